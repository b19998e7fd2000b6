r"""
# A first design: noise for a loss no theorem covers

Over-estimates cost three times as much as under-estimates. No closed form gives the optimal
ε-DP noise for that loss; [`design_noise`][optmech.design_noise] finds it by linear
programming, certifies its privacy from the density alone, and hands back a sampler.
"""

import optmech
from optmech.costs import Asymmetric

cost = Asymmetric(over=3, under=1)  # 3e for e > 0, |e| for e < 0
noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost=cost)
print(noise.value)  # its exact expected cost
print(noise.certified_epsilon)  # recomputed from the density alone
noise.plot()

# %%
# The design moves its mass below the truth. The best *symmetric* noise for this loss, the
# staircase of Geng & Viswanath (2016), costs 16% more, and Laplace more still.

staircase = optmech.Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost="abs")
laplace = optmech.Laplace(epsilon=1.0, sensitivity=1.0)
print(f"designed:  {noise.value:.4f}")
print(f"staircase: {staircase.expected_cost(cost):.4f}")
print(f"Laplace:   {laplace.expected_cost(cost):.4f}")

# %%
# Release a query answer of 42 with 1-DP. In one dimension the design is a density on cells
# (`DesignedPiecewiseNoise`), with a sampler, its cdf and its moments.

assert isinstance(noise, optmech.DesignedPiecewiseNoise)
released = 42.0 + noise.rvs(5, rng=0)
print(released, noise.mean(), noise.cdf(0.0))
