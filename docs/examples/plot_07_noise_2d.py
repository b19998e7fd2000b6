r"""
# Noise in the plane: level sets for three sensitivity balls

A vector query in $\mathbb{R}^2$ is ε-DP for shifts in the ball $\lVert s\rVert \le \Delta$
of a norm; ℓ1 for histograms, ℓ2 for gradients, ℓ∞ for box-constrained statistics. The LP
designer ([`design_noise`][optmech.design_noise] with `dimension=2`) finds the cheapest
piecewise-constant density on square cells for the ℓ1 cost, certified over every real shift in
the ball. Its level sets take the shape of the ball; the closed-form staircase of the ball's
norm ([`StaircaseND`][optmech.StaircaseND], Kulesza, Suresh & Wang 2025) is the continuous
reference. Theory: [noise in the plane](../../theory/multidimensional.md).
"""

import matplotlib.pyplot as plt

import optmech
from optmech.costs import Norm

eps = 2.0
balls = {"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞"}
fig, axes = plt.subplots(1, 3, figsize=(11, 3.6), layout="constrained")
print(
    f"{'ball':>4} {'LP, 6 cells/Δ':>14} {'certified ε':>12} "
    f"{'StaircaseND':>12} {'Laplace×2':>10}"
)
for ax, (norm, name) in zip(axes, balls.items(), strict=True):
    noise = optmech.design_noise(
        optmech.PureDP(eps),
        sensitivity=1.0,
        cost="l1",
        dimension=2,
        sensitivity_norm=norm,
        resolution=6,
        periods=3,
    )
    stair = optmech.StaircaseND.optimal(
        epsilon=eps, sensitivity=1.0, norm=norm, cost=Norm("l1")
    )
    # Laplace on each axis, calibrated to the largest ℓ1 norm c of a shift
    # in the ball: 2cΔ/ε.
    laplace = 2 * {"l1": 1.0, "l2": 2**0.5, "linf": 2.0}[norm] / eps
    print(
        f"{name:>4} {noise.value:14.4f} {noise.certified_epsilon:12.9f} "
        f"{stair.expected_cost(Norm('l1')):12.4f} {laplace:10.4f}"
    )
    noise.plot(ax=ax, periods=2.0)
    ax.set_title(f"{name} ball: E‖X‖₁ = {noise.value:.3f}", fontsize=10)
fig.suptitle(f"LP-designed {eps:g}-DP noise in the plane (log density)")
plt.show()
