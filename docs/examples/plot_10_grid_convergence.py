r"""
# Exact discretisation and certified intervals

The LP designer optimises over densities that are constant on cells of width $\Delta/m$ and
continue geometrically beyond the grid. Its window constraints are exactly ε-DP over the reals,
and its objective is the exact cost of the returned density, so the value is an upper bound on
the continuous optimum $V^*$ (Geng & Viswanath 2016). Each result also carries a certified
interval $[\text{lower\_bound}, \text{value}]$ for the LP's own optimum. Here: a coarse design
next to the staircase, then how the gap to $V^*$ closes as the grid refines: the grid's optimum
is the staircase whose step γ is the best grid edge, which is exactly the allowance the theorem
catalogue (`optmech verify`) grants. Theory: [exact discretisation](../../theory/discretisation.md),
[certified intervals](../../theory/certificates.md).
"""

import matplotlib.pyplot as plt
import numpy as np

import optmech

eps = 1.0
coarse = optmech.design_noise(
    optmech.PureDP(eps), sensitivity=1.0, cost="abs", resolution=4, periods=3
)
stair = optmech.Staircase.optimal(epsilon=eps, sensitivity=1.0, cost="abs")
# In one dimension a design is a density on cells, with its pdf:
assert isinstance(coarse, optmech.DesignedPiecewiseNoise)

x = np.linspace(-5.0, 5.0, 2001)
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.plot(
    x,
    stair.pdf(x),
    color="grey",
    lw=3,
    alpha=0.5,
    label=f"staircase, γ* = {stair.gamma:.3f}",
)
ax.plot(x, coarse.pdf(x), color="C0", label="LP design, 4 cells per Δ")
ax.axvspan(
    -5.0,
    coarse.start,
    color="C1",
    alpha=0.12,
    label="geometric tail (closed form)",
)
ax.axvspan(-coarse.start, 5.0, color="C1", alpha=0.12)
ax.set(
    xlabel="x (Δ = 1)",
    ylabel="density",
    yscale="log",
    title=f"{eps:g}-DP noise for |x|",
)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# The gap to the theorem as the grid refines. A grid with $m$ cells per Δ can only place the
# staircase's step at a multiple of $1/m$: the staircase with γ rounded to the better of the
# two nearest grid edges is a point of the LP, and the LP finds it (its value equals that cost
# to the certified interval, about $10^{-10}$ wide). The gap depends on how close γ* lies to
# a grid edge, not on $m$ alone: at ε = 1, γ* ≈ 0.3775 is almost 3/8.

V = stair.expected_cost("abs")
resolutions = np.arange(2, 25)
gap: list[float] = []
width: list[float] = []
rounded: list[float] = []
for m in resolutions:
    noise = optmech.design_noise(
        optmech.PureDP(eps),
        sensitivity=1.0,
        cost="abs",
        resolution=int(m),
        periods=6,
    )
    gap.append(noise.value / V - 1)
    width.append((noise.value - noise.lower_bound) / noise.value)
    edges = [np.floor(stair.gamma * m) / m, np.ceil(stair.gamma * m) / m]
    best = min(
        optmech.Staircase(epsilon=eps, sensitivity=1.0, gamma=g).expected_cost(
            "abs"
        )
        for g in edges
        if 0 < g < 1
    )
    rounded.append(best / V - 1)

print(
    f"{'m':>3} {'LP / V* − 1':>12} {'γ on the grid':>14} {'interval width':>15}"
)
for m, g, r, w in list(zip(resolutions, gap, rounded, width, strict=True))[::4]:
    print(f"{m:3d} {g:12.3e} {r:14.3e} {w:15.1e}")

fig, ax = plt.subplots(figsize=(7, 3.4))
ax.semilogy(
    resolutions,
    rounded,
    "-",
    color="grey",
    label="staircase with γ on the grid",
)
ax.semilogy(resolutions, gap, "o", mfc="none", label="LP value / V* − 1")
ax.semilogy(
    resolutions, width, "x", label="certified interval width (relative)"
)
ax.set(
    xlabel="m (cells per Δ)",
    ylabel="relative gap",
    title=f"Grid error and certificate, ε = {eps:g}",
)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
