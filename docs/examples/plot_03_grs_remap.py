r"""
# A user's optimum is the geometric mechanism, remapped

Ghosh, Roughgarden & Sundararajan (2012, Thm. 3.1): for a count query on $\{0, \dots, n\}$, any
prior and any loss non-decreasing in $|i - r|$, the user's optimal ε-DP mechanism is the
geometric mechanism $G$ followed by the user's own deterministic remap. Here the user's LP
([`bayesian_mechanism`][optmech.bayesian_mechanism]) and the geometric mechanism plus the Bayes
remap ([`geometric_bayes`][optmech.geometric_bayes]) agree, and
[`is_remap_of_geometric`][optmech.is_remap_of_geometric] recovers the remap $T$ with
$M = G\,T$ from the LP's matrix alone. Theory: [count queries](../../theory/count-queries.md).
"""

import matplotlib.pyplot as plt
import numpy as np

import optmech

n, eps = 10, 0.5
counts = np.arange(n + 1)
prior = np.exp(-0.5 * ((counts - 3.0) / 2.0) ** 2)
prior /= prior.sum()  # a user who expects a count near 3

# The user's own LP, certified, and G followed by the user's Bayes remap:
user = optmech.bayesian_mechanism(prior, "abs", eps)
via_geometric = optmech.geometric_bayes(prior, "abs", eps)
is_remap, remap = optmech.is_remap_of_geometric(user.mechanism, eps)

print(f"user LP:              [{user.lower_bound:.10f}, {user.value:.10f}]")
print(f"geometric + remap:     {via_geometric.value:.10f}")
print(f"LP matrix = G · T, T row-stochastic: {is_remap}")
assert is_remap and abs(user.value - via_geometric.value) <= 1e-7 * user.value

# %%
# The three matrices: the LP's optimum, the geometric mechanism (the same for every user) and
# the remap. The remap is deterministic, each noisy count is sent to one answer, and it pulls
# the answers towards the prior's mass.

geometric = optmech.truncated_geometric(n, eps)
fig, axes = plt.subplots(1, 3, figsize=(10, 3.3), layout="constrained")
panels = [
    (user.mechanism, "user's LP optimum $M$", "input (true count)", "output"),
    (geometric, "geometric mechanism $G$", "input (true count)", "noisy count"),
    (
        np.clip(remap, 0.0, 1.0),
        "remap $T$, $M = G\\,T$",
        "noisy count",
        "answer",
    ),
]
for ax, (matrix, title, rows, columns) in zip(axes, panels, strict=True):
    image = ax.imshow(matrix, cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set(title=title, xlabel=columns, ylabel=rows)
    ax.set(xticks=counts[::2], yticks=counts[::2])
fig.colorbar(image, ax=axes, shrink=0.8, label="probability")
plt.show()
