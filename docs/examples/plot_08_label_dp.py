r"""
# Label DP for regression: RR-on-Bins against the LP

In the local model every two labels are neighbours. Ghazi et al. (2023) show that the optimal
ε-label-DP randomizer for the squared error, over all real outputs, is *RR-on-Bins*:
partition the labels into contiguous bins, give each bin one output, and answer randomized
response over the bins. [`rr_on_bins`][optmech.rr_on_bins] finds the best bins by dynamic
programming; [`local_mechanism`][optmech.local_mechanism] solves the LP over every ε-DP
randomizer on a grid of outputs, with no bins in sight, and lands within $h^2/4$ of it for a
grid of width $h$. Theory: [the local model](../../theory/local.md).
"""

import matplotlib.pyplot as plt
import numpy as np

import optmech

labels = np.arange(12.0)
bumps = np.exp(-0.5 * ((labels - 2.0) / 1.2) ** 2) + 0.6 * np.exp(
    -0.5 * ((labels - 9.0) / 0.8) ** 2
)
prior = bumps / bumps.sum()  # a two-peaked label distribution
grid = np.linspace(0.0, 11.0, 45)  # h = 0.25
epsilons = [0.25, 0.5, 1.0, 2.0, 4.0]
rr_values: list[float] = []
lp_values: list[float] = []
staircase: list[float] = []
for eps in epsilons:
    rr = optmech.rr_on_bins(prior, "squared", eps, inputs=labels)
    lp = optmech.local_mechanism(
        prior, "squared", eps, inputs=labels, outputs=grid
    )
    assert (
        rr.value <= lp.value + 1e-9
        and lp.value <= rr.value + 0.25**2 / 4 + 1e-9
    )
    rr_values.append(rr.value)
    lp_values.append(lp.value)
    # Additive noise on the label, sensitivity the labels' range: the best
    # is a staircase.
    stair = optmech.Staircase.optimal(
        epsilon=eps, sensitivity=11.0, cost="squared"
    )
    staircase.append(stair.expected_cost("squared"))

print(f"{'ε':>5} {'RR-on-Bins':>11} {'LP (grid)':>10} {'staircase noise':>16}")
for row in zip(epsilons, rr_values, lp_values, staircase, strict=True):
    print(f"{row[0]:5.2f} {row[1]:11.4f} {row[2]:10.4f} {row[3]:16.2f}")

# %%
# The bins at ε = 1: each label is sent to its bin's output with probability
# $e^{\varepsilon}/(e^{\varepsilon} + k - 1)$, to each other output otherwise. Few bins at
# small ε (one bin, the prior's mean, when privacy is tight), more as ε grows.

best = optmech.rr_on_bins(prior, "squared", 1.0, inputs=labels)
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.4))
ax.semilogy(epsilons, staircase, "s--", label="staircase noise on the label")
ax.semilogy(
    epsilons,
    lp_values,
    "o",
    mfc="none",
    ms=8,
    label="LP, 45 outputs (certified)",
)
ax.semilogy(epsilons, rr_values, "-", label="RR-on-Bins (optimal)")
ax.set(xlabel="ε", ylabel="mean squared error", title="ε-label-DP randomizers")
ax.legend(fontsize=8)
for j, (members, output) in enumerate(
    zip(best.bins, best.outputs, strict=True)
):
    mask = np.isin(labels, members)
    ax2.bar(
        labels[mask],
        prior[mask],
        color=f"C{j}",
        label=f"bin {j + 1} → {output:.2f}",
    )
    ax2.axvline(output, color=f"C{j}", ls="--")
ax2.set(
    xlabel="label",
    ylabel="prior",
    title=f"RR-on-Bins at ε = 1: {len(best.bins)} bins",
)
ax2.legend(fontsize=8)
fig.tight_layout()
plt.show()
