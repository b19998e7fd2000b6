r"""
# (0, δ) and (ε, δ): designs against their closed forms

Geng, Ding, Guo & Kumar (2019, Thm. 3): within symmetric noise whose density is non-increasing
in $|x|$, the optimal (0, δ) noise for $|x|$ is a uniform density plus an atom at 0
([`UniformAtom`][optmech.UniformAtom]); for $|x|$ the atom appears once δ > 1/2. For
(ε, δ) the truncated Laplace (Geng, Ding, Guo & Kumar 2020) and the analytic Gaussian (Balle &
Wang 2018) are the baselines. The LP designer meets the first theorem inside its class, and
beats both baselines. Theory: [(0, δ) and (ε, δ)](../../theory/approximate-dp.md).
"""

import matplotlib.pyplot as plt

import optmech

deltas = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
closed: list[float] = []
lp: list[float] = []
for delta in deltas:
    atom = optmech.UniformAtom.optimal(delta=delta, sensitivity=1.0, cost="abs")
    noise = optmech.design_noise(
        optmech.ApproxDP(0.0, delta),
        sensitivity=1.0,
        cost="abs",
        symmetric=True,
        monotone=True,  # the class of the theorem
        resolution=10,
        periods=4,  # the uniform part reaches (1 − α)Δ / (2(δ − α)) ≤ 2.5Δ
    )
    closed.append(atom.expected_cost("abs"))
    lp.append(noise.value)

# %%
# For (ε, δ) with ε = 1: the LP design against the truncated Laplace and the analytic
# Gaussian, as δ varies.

eps = 1.0
small_deltas = [1e-4, 1e-3, 1e-2, 5e-2]
designed: list[float] = []
truncated: list[float] = []
gaussian: list[float] = []
for delta in small_deltas:
    design = optmech.design_noise(
        optmech.ApproxDP(eps, delta),
        sensitivity=1.0,
        cost="abs",
        resolution=10,
        periods=14,
    )
    designed.append(design.value)
    truncated.append(
        optmech.TruncatedLaplace(epsilon=eps, delta=delta).expected_cost("abs")
    )
    analytic = optmech.Gaussian(
        epsilon=eps, delta=delta, calibration="analytic"
    )
    gaussian.append(analytic.expected_cost("abs"))

print(f"{'δ':>6} {'uniform+atom':>13} {'LP (class)':>11}")
for delta, c, v in zip(deltas, closed, lp, strict=True):
    print(f"{delta:6.2f} {c:13.6f} {v:11.6f}")
print(
    f"\n{'δ':>8} {'LP design':>10} "
    f"{'trunc. Laplace':>15} {'analytic Gauss.':>16}"
)
for delta, d, t, g in zip(
    small_deltas, designed, truncated, gaussian, strict=True
):
    print(f"{delta:8.0e} {d:10.4f} {t:15.4f} {g:16.4f}")

fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
ax.plot(deltas, closed, "-", label="uniform + atom (theorem)")
ax.plot(deltas, lp, "o", mfc="none", label="LP, symmetric monotone")
ax.axvline(0.5, color="grey", lw=0.8, ls=":")
ax.set(
    xlabel="δ",
    ylabel="E|X|  (Δ = 1)",
    title="(0, δ)-DP: the atom appears at δ = 1/2",
)
ax.legend()
ax2.semilogx(small_deltas, gaussian, "^--", label="analytic Gaussian")
ax2.semilogx(small_deltas, truncated, "s--", label="truncated Laplace")
ax2.semilogx(small_deltas, designed, "o-", label="LP design (certified)")
ax2.set(xlabel="δ", ylabel="E|X|", title=f"({eps:g}, δ)-DP")
ax2.legend()
fig.tight_layout()
plt.show()
