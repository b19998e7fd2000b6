r"""
# The staircase beats Laplace, and the LP finds it

Geng & Viswanath (2016, Thm. 3): among all ε-DP noise laws for a query of sensitivity Δ, the
one with the least expected $|X|$ is a staircase, of cost
$V^* = \Delta e^{\varepsilon/2} / (e^{\varepsilon} - 1)$; Laplace costs $\Delta/\varepsilon$.
The LP designer, which knows nothing of staircases, finds the same optimum at every ε, and the
gap to Laplace opens as ε grows. Theory: [the staircase](../../theory/staircase.md).
"""

import matplotlib.pyplot as plt
import numpy as np

import optmech

epsilons = [0.5, 1.0, 2.0, 4.0, 8.0, 12.0]
theorem: list[float] = []
designed: list[float] = []
laplace: list[float] = []
for eps in epsilons:
    stair = optmech.Staircase.optimal(epsilon=eps, sensitivity=1.0, cost="abs")
    noise = optmech.design_noise(
        optmech.PureDP(eps), sensitivity=1.0, cost="abs"
    )
    # ε recomputed from the density alone:
    assert noise.certified_epsilon <= eps * (1 + 1e-9)
    theorem.append(stair.expected_cost("abs"))
    designed.append(noise.value)  # the exact cost of that certified density
    laplace.append(optmech.Laplace(epsilon=eps).expected_cost("abs"))

# %%
# The designed noise costs the theorem's optimum up to the grid's error, and Laplace pays a
# factor that grows like $e^{\varepsilon/2}/\varepsilon$.

print(
    f"{'ε':>5} {'V* (theorem)':>13} {'LP design':>11} "
    f"{'LP / V* - 1':>12} {'Laplace / V*':>13}"
)
for eps, v, d, lap in zip(epsilons, theorem, designed, laplace, strict=True):
    print(f"{eps:5.1f} {v:13.6g} {d:11.6g} {d / v - 1:12.1e} {lap / v:13.3f}")

fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
ax.semilogy(epsilons, laplace, "s--", label=r"Laplace, $\Delta/\varepsilon$")
ax.semilogy(epsilons, theorem, "-", label="staircase $V^*$ (theorem)")
ax.semilogy(epsilons, designed, "o", mfc="none", label="LP design (certified)")
ax.set(xlabel="ε", ylabel="E|X|  (Δ = 1)", title="Optimal ε-DP noise for |x|")
ax.legend()
x = np.linspace(-3.0, 3.0, 1201)
stair4 = optmech.Staircase.optimal(epsilon=4.0, sensitivity=1.0, cost="abs")
ax2.plot(x, stair4.pdf(x), label=f"staircase, γ* = {stair4.gamma:.3f}")
ax2.plot(x, optmech.Laplace(epsilon=4.0).pdf(x), "--", label="Laplace")
ax2.set(
    xlabel="x",
    ylabel="density",
    yscale="log",
    title="The two densities at ε = 4",
)
ax2.legend()
fig.tight_layout()
plt.show()
