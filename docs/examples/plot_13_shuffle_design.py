r"""
# Designing a local randomizer for a central target after shuffling

n users each send one label through the same local randomizer, and a shuffler releases only
the histogram of the reports. [`shuffle_mechanism`][optmech.shuffle_mechanism] looks for the
randomizer of least expected loss whose n shuffled reports
[`shuffle_epsilon`][optmech.shuffle_epsilon] certifies central (ε, δ)-DP: it searches the
local LP along lines of the (ε₀, clone probability) frontier and keeps only matrices whose own
certificate meets the target. Here: 8 labels with a skewed prior, the squared error,
n = 10 000 users and a central target (ε, δ) = (0.5, 10⁻⁶). Generalised randomized response
(GRR) and RR-on-Bins, each at the largest ε₀ the same certificate accepts, are the baselines.
Theory: [the shuffle model](../../theory/shuffle.md); the experiment `shuffle-frontier`
compares the design with frequency oracles over n and ε.
"""

import matplotlib.pyplot as plt
import numpy as np

import optmech

labels = np.arange(8.0)
prior = 0.6**labels
prior /= prior.sum()
N, EPS, DELTA = 10_000, 0.5, 1e-6

res = optmech.shuffle_mechanism(
    prior, "squared", EPS, DELTA, n=N, inputs=labels
)

# %%
# The designed randomizer: rows are the labels, columns the reports (the labels and the
# outputs of the calibrated RR-on-Bins). It is randomized response over five bins: labels 0
# to 3 each keep a report of their own, the four rare labels 4 to 7 share one (near their
# prior mean), and a report is kept with probability about 0.94 (0.95 for the shared one).
# Randomized response's clone probability is the largest an ε₀-LDP matrix allows, so the
# certificate accepts it at the same ε₀ as GRR on all 8 labels, larger than RR-on-Bins'
# calibrated ε₀.
fig, ax = plt.subplots(figsize=(7, 3.8))
res.plot(ax=ax)
fig.tight_layout()

# %%
# Its certificate: the central ε certified for its own matrix, never the target, the local
# ε₀ and the bound that certified it, and a concrete pair of datasets below it.
g = res.guarantee
print(f"returned          {res.source}")
print(f"local ε₀          {res.local_epsilon:.4f}")
print(f"central ε         {g.epsilon:.4f}  ({g.method}; target {EPS})")
print(f"a pair's ε (low)  {g.lower_bound:.4f}")
print(
    f"expected loss     {res.value:.4f}  (bound over the lines {res.lower_bound:.4f})"
)

# %%
# Against the baselines, each at its largest certified ε₀ for the same target.
print(f"{'randomizer':<14} {'ε₀':>7} {'central ε':>10} {'expected loss':>14}")
print(
    f"{'designed':<14} {res.local_epsilon:7.4f} {g.epsilon:10.4f} "
    f"{res.value:14.4f}"
)
for name, base in res.baselines.items():
    print(
        f"{name:<14} {base.local_epsilon:7.4f} {base.guarantee.epsilon:10.4f} "
        f"{base.value:14.4f}"
    )

# The claim: certified at the target, and below both calibrated baselines.
assert optmech.shuffle_epsilon(res.mechanism, N, DELTA).epsilon <= EPS
assert res.value < min(b.value for b in res.baselines.values())
plt.show()
