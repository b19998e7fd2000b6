r"""
# Amplification by shuffling: the central ε of n randomized reports

Each of n users answers through the same ε₀-LDP randomizer and a shuffler releases only the
histogram of the answers. [`shuffle_epsilon`][optmech.shuffle_epsilon] certifies the central
(ε, δ) guarantee of that histogram, worst over the neighbouring pair and the other users'
inputs, and computes the ε of a concrete pair of datasets below it. The figure draws, for
binary randomized response at ε₀ = 2 and δ = 10⁻⁶, the exact worst case (where it is
computed, n ≤ 1000), the two clone bounds and the lower bound against n; the tables give each
bound's distance from the exact ε on binary randomized response and from the lower bound on
k-ary randomized response. Theory: [the shuffle model](../../theory/shuffle.md).
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
sizes = np.unique(np.geomspace(100, 1_000_000, 13).astype(int))
curves: dict[str, list[float]] = {"exact": [], "blanket": [], "clones": []}
lower: list[float] = []
for n in sizes:
    g = optmech.shuffle_epsilon(randomized_response(2.0, 2), int(n), DELTA)
    for name, values in curves.items():
        values.append(g.bounds.get(name, np.nan))
    lower.append(g.lower_bound)

fig, ax = plt.subplots(figsize=(7, 3.6))
ax.loglog(sizes, curves["exact"], "o-", label="exact (n ≤ 1000)")
ax.loglog(sizes, curves["blanket"], "s--", label="blanket clones")
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
# Distance from the exact ε on binary randomized response (bound / exact − 1).
print(f"{'ε₀':>4} {'n':>6} {'exact':>9} {'blanket':>8} {'clones':>8}")
for eps0 in (0.5, 1.0, 2.0, 4.0, 6.0):
    for n in (100, 1000):
        g = optmech.shuffle_epsilon(randomized_response(eps0, 2), n, DELTA)
        exact = g.bounds["exact"]
        print(
            f"{eps0:4g} {n:6d} {exact:9.5f} "
            f"{g.bounds['blanket'] / exact - 1:8.1%} "
            f"{g.bounds['clones'] / exact - 1:8.1%}"
        )

# %%
# Distance from the lower bound (bound / lower − 1), where no exact ε is computed: binary
# randomized response at larger n, and 3- and 64-ary randomized response.
print(f"{'k':>2} {'ε₀':>4} {'n':>8} {'lower':>9} {'blanket':>8} {'clones':>8}")
for k in (2, 3, 8, 64):
    for eps0 in (1.0, 4.0):
        for n in (10_000, 1_000_000):
            g = optmech.shuffle_epsilon(randomized_response(eps0, k), n, DELTA)
            low = g.lower_bound
            print(
                f"{k:2d} {eps0:4g} {n:8d} {low:9.5f} "
                f"{g.bounds['blanket'] / low - 1:8.1%} "
                f"{g.bounds['clones'] / low - 1:8.1%}"
            )
plt.show()
