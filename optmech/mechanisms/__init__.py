"""Closed-form additive noise families, one module each, on one base class ([`base`][base]).

ε-DP: [`Laplace`][Laplace], [`Staircase`][Staircase] (optimal on ℝ, Geng & Viswanath 2016),
[`DiscreteStaircase`][DiscreteStaircase] (optimal on ℤ), [`Geometric`][Geometric], and the GRS
range-restricted matrix [`truncated_geometric`][truncated_geometric]. (0, δ):
[`UniformAtom`][UniformAtom] (optimal within symmetric non-increasing noise, Geng, Ding, Guo & Kumar
2019). (ε, δ) baselines: [`TruncatedLaplace`][TruncatedLaplace], [`Gaussian`][Gaussian]. LP-designed
noise: [`PiecewiseConstantNoise`][PiecewiseConstantNoise] and [`LatticeNoise`][LatticeNoise]. Noise
in ℝ^d for a sensitivity measured in a norm: [`StaircaseND`][StaircaseND]; LP-designed noise in ℝ²:
[`PiecewiseConstantNoise2D`][PiecewiseConstantNoise2D]. Local randomizers (a row-stochastic matrix,
ε-LDP over every pair of inputs, generalised randomized response among them):
[`LocalRandomizer`][LocalRandomizer].
"""

from __future__ import annotations

import lazy_loader as _lazy

#: The public names are the imports of the type stub beside this file (``__init__.pyi``); at
#: run time each is imported on first use (PEP 562), so that one family does not load the
#: others (nor the 2-D and ℝ^d families).
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
