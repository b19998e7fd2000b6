r"""
# zCDP and Gaussian-DP noise, composed by the accountant

Ten releases of one count, each with noise on $\mathbb{Z}$ designed by LP for $|x|$ under a
per-release guarantee: 0.1-zCDP (Bun & Steinke 2016), so 1-zCDP in all, and 0.5-GDP (Dong,
Roth & Su 2022), so $0.5\sqrt{10}$-GDP in all. The accountant
([`optmech.accounting.compose`][optmech.accounting.compose]) composes each design's own privacy
loss distribution (Meiser & Mohammadi 2018) and reads off δ(ε). The designs' certified ρ and μ
are recomputed from their pmfs; the composed curves lie below what the guarantees alone promise.
Theory: [beyond (ε, δ)](../../theory/beyond.md).
"""

from statistics import NormalDist

import matplotlib.pyplot as plt
import numpy as np

import optmech
from optmech.accounting import compose

k = 10
rho, mu = 0.1, 0.5
zcdp = optmech.design_noise(
    optmech.ZCDP(rho), sensitivity=1, cost="abs", integer=True
)
gdp = optmech.design_noise(
    optmech.GaussianDP(mu), sensitivity=1, cost="abs", integer=True
)
print(
    f"0.1-zCDP design: E|X| = {zcdp.value:.4f}, "
    f"certified ρ = {zcdp.certified_rho:.6f}"
)
print(
    f"0.5-GDP design:  E|X| = {gdp.value:.4f}, "
    f"certified μ = {gdp.certified_mu:.6f}"
)

# %%
# δ(ε) after ten releases: the designs' composed PLDs (pessimistic, so upper bounds), and the
# curves the composed guarantees give: $k\rho$-zCDP implies
# $\delta \le e^{-(\varepsilon - k\rho)^2 / (4k\rho)}$, and $\sqrt{k}\mu$-GDP has the
# Gaussian trade-off curve.

epsilons = np.linspace(0.5, 6.0, 12)
delta_zcdp = np.asarray(compose(zcdp, k, epsilons))
delta_gdp = np.asarray(compose(gdp, k, epsilons))
total_rho, total_mu = k * rho, np.sqrt(k) * mu
bound_zcdp = np.exp(
    -(np.maximum(epsilons - total_rho, 0.0) ** 2) / (4 * total_rho)
)
normal = NormalDist()
gdp_curve = np.array(
    [
        normal.cdf(-e / total_mu + total_mu / 2)
        - np.exp(e) * normal.cdf(-e / total_mu - total_mu / 2)
        for e in epsilons
    ]
)

print(
    f"{'ε':>5} {'zCDP design':>12} {'zCDP bound':>11} "
    f"{'GDP design':>11} {'GDP curve':>10}"
)
table = np.column_stack(
    [epsilons, delta_zcdp, bound_zcdp, delta_gdp, gdp_curve]
)
for e, dz, bz, dg, cg in table[::2]:
    print(f"{e:5.2f} {dz:12.3e} {bz:11.3e} {dg:11.3e} {cg:10.3e}")

fig, ax = plt.subplots(figsize=(7, 3.6))
ax.semilogy(
    epsilons,
    bound_zcdp,
    "--",
    color="C0",
    label=f"{total_rho:g}-zCDP, conversion",
)
ax.semilogy(
    epsilons, delta_zcdp, "o-", color="C0", label="zCDP design ×10, accountant"
)
ax.semilogy(
    epsilons, gdp_curve, "--", color="C1", label=f"{total_mu:.3f}-GDP curve"
)
ax.semilogy(
    epsilons, delta_gdp, "s-", color="C1", label="GDP design ×10, accountant"
)
ax.set(
    xlabel="ε", ylabel="δ(ε)", title=f"{k} releases of designed lattice noise"
)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
