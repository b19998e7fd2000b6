r"""
# Amplification by shuffling: the central ε of n randomized reports

Each of n users answers through the same ε₀-LDP randomizer and a shuffler releases only the
histogram of the answers. [`shuffle_epsilon`][optmech.shuffle_epsilon] certifies the central
(ε, δ) guarantee of that histogram, worst over the neighbouring pair and the other users'
inputs, and computes the ε of a concrete pair of datasets below it. The figure draws, for
binary randomized response at ε₀ = 2 and δ = 10⁻⁶, the exact worst case, the general bounds
(clones, blanket, variation-ratio) and the lower bound against n; the table gives each bound's
distance from the lower bound on k-ary randomized response. The full tables of the theory page
come from ``python -m benchmarks.shuffle_table``. Theory: [the shuffle
model](../../theory/shuffle.md).
"""

import math

import matplotlib.pyplot as plt
import numpy as np
import numpy.typing as npt

import optmech

DELTA = 1e-6


def randomized_response(eps0: float, k: int) -> npt.NDArray[np.float64]:
    """k-ary randomized response: the truth with probability e^ε₀/(e^ε₀ + k − 1)."""
    e = math.exp(eps0)
    return (e * np.eye(k) + (1 - np.eye(k))) / (e + k - 1)


# %%
# The central ε against n, binary randomized response at ε₀ = 2.
sizes = np.unique(np.geomspace(100, 1_000_000, 7).astype(int))
curves: dict[str, list[float]] = {
    "exact": [],
    "blanket": [],
    "variation-ratio": [],
    "clones": [],
}
lower: list[float] = []
for n in sizes:
    g = optmech.shuffle_epsilon(randomized_response(2.0, 2), int(n), DELTA)
    for name, values in curves.items():
        values.append(g.bounds.get(name, np.nan))
    lower.append(g.lower_bound)

fig, ax = plt.subplots(figsize=(7, 3.6))
ax.loglog(sizes, curves["exact"], "o-", label="exact")
ax.loglog(sizes, curves["blanket"], "s--", label="blanket clones")
ax.loglog(sizes, curves["variation-ratio"], "x", label="variation-ratio")
ax.loglog(sizes, curves["clones"], "^:", label="FMT clones (ε₀ only)")
ax.loglog(sizes, lower, "k.-", lw=0.8, label="lower bound (a concrete pair)")
ax.set(
    xlabel="users n",
    ylabel="central ε at δ = 1e-6",
    title="Binary randomized response, ε₀ = 2, shuffled",
)
ax.legend()
fig.tight_layout()

# %%
# Distance from the lower bound (bound / lower − 1) on k-ary randomized response, n = 10⁴.
print(
    f"{'k':>2} {'ε₀':>4} {'lower':>9} {'var.-ratio':>10} {'blanket':>8} {'clones':>8}"
)
for k in (3, 64):
    for eps0 in (1.0, 4.0):
        g = optmech.shuffle_epsilon(randomized_response(eps0, k), 10_000, DELTA)
        low = g.lower_bound
        print(
            f"{k:2d} {eps0:4g} {low:9.5f} "
            f"{g.bounds['variation-ratio'] / low - 1:10.1%} "
            f"{g.bounds['blanket'] / low - 1:8.1%} "
            f"{g.bounds['clones'] / low - 1:8.1%}"
        )
plt.show()
