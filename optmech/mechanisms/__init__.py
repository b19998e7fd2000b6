"""Closed-form additive noise families, one module each, on one base class (`base`).

ε-DP: `Laplace`, `Staircase` (optimal on ℝ, Geng & Viswanath 2016),
`DiscreteStaircase` (optimal on ℤ), `Geometric`, and the GRS
range-restricted matrix `truncated_geometric`. (0, δ):
`UniformAtom` (optimal within symmetric non-increasing noise, Geng, Ding, Guo & Kumar
2019). (ε, δ) baselines: `TruncatedLaplace`, `Gaussian`. LP-designed
noise: `PiecewiseConstantNoise` and `LatticeNoise`. Noise
in ℝ^d for a sensitivity measured in a norm: `StaircaseND`; LP-designed noise in ℝ²:
`PiecewiseConstantNoise2D`. Local randomizers (a row-stochastic matrix,
ε-LDP over every pair of inputs, generalised randomized response among them):
`LocalRandomizer`. Frequency oracles over k items, with their unbiased estimators and the
closed-form quantities the shuffle bounds read (`ShuffleDescription`): `GRR`, `OUE`, `OLH`,
`HadamardResponse`, `SubsetSelection`.
"""

from __future__ import annotations

import lazy_loader as _lazy

#: The public names are the imports of the type stub beside this file (``__init__.pyi``); at
#: run time each is imported on first use (PEP 562), so that one family does not load the
#: others (nor the 2-D and ℝ^d families).
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
