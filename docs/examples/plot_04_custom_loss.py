r"""
# Your own loss, your own constraints

No theorem covers this user: errors below 0.25 are free, and beyond that an over-estimate
costs three times an under-estimate. The LP designer takes the loss as a vectorised callable
([`optmech.costs.Custom`][optmech.costs.Custom]) and conditions on the noise from
[`optmech.constraints`][optmech.constraints]: here the released value must be unbiased, and
must land within 0.5 of the truth with probability at least 74%. Each design is certified ε-DP
independently of the solver, and meets each constraint as returned.
Theory: [constraints of one's own](../../theory/discretisation.md#constraints-of-ones-own);
how-to: [custom losses](../../howto/custom-loss.md).
"""

import matplotlib.pyplot as plt
import numpy as np
import numpy.typing as npt

import optmech
from optmech.constraints import Constraint, TailBound, Unbiased
from optmech.costs import Custom


def dead_zone(e: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Free within 0.25 of the truth, then |e| − 0.25, three times as dear
    above it."""
    return np.where(e > 0, 3.0, 1.0) * np.maximum(np.abs(e) - 0.25, 0.0)


cost = Custom(dead_zone, name="dead zone, over-estimates 3x")
eps = 2.0
designs: dict[str, list[Constraint]] = {
    "no constraint": [],
    "unbiased": [Unbiased()],
    "unbiased, P(|Z| > 0.5) ≤ 0.26": [Unbiased(), TailBound(0.5, 0.26)],
}
noises: dict[str, optmech.DesignedPiecewiseNoise] = {}
for label, conditions in designs.items():
    noise = optmech.design_noise(
        optmech.PureDP(eps),
        sensitivity=1.0,
        cost=cost,
        resolution=20,
        periods=8,
        constraints=conditions,
    )
    # In one dimension a design is a density on cells, with its moments:
    assert isinstance(noise, optmech.DesignedPiecewiseNoise)
    noises[label] = noise

# %%
# What each condition costs. The unconstrained optimum shifts its mass below the truth (mean
# −0.175); unbiasedness costs 8%, and the tail bound a little more.

print(
    f"{'design':<32} {'E cost':>8} {'mean':>8} "
    f"{'P(|Z|>0.5)':>11} {'certified ε':>12}"
)
for label, noise in noises.items():
    tail = noise.sf(0.5) + noise.cdf(-0.5)
    print(
        f"{label:<32} {noise.value:8.4f} {noise.mean():8.4f} {tail:11.4f} "
        f"{noise.certified_epsilon:12.9f}"
    )

x = np.linspace(-2.5, 2.5, 1001)
fig, ax = plt.subplots(figsize=(7, 3.4))
for label, noise in noises.items():
    ax.plot(x, noise.pdf(x), label=f"{label}: E cost {noise.value:.3f}")
ax.set(
    xlabel="noise z (Δ = 1)",
    ylabel="density",
    title=f"Designed {eps:g}-DP noise",
)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
