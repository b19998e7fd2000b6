"""Closed-form additive noise families, one module each, on one base class (:mod:`.base`).

ε-DP: :class:`Laplace`, :class:`Staircase` (optimal on ℝ, seed 000), :class:`DiscreteStaircase`
(optimal on ℤ), :class:`Geometric`, and the GRS range-restricted matrix
:func:`truncated_geometric`. (0, δ): :class:`UniformAtom` (optimal within symmetric
non-increasing noise, seed 004). (ε, δ) baselines: :class:`TruncatedLaplace`, :class:`Gaussian`.
LP-designed noise: :class:`PiecewiseConstantNoise` and :class:`LatticeNoise`. Noise in ℝ^d
for a sensitivity measured in a norm: :class:`StaircaseND`; LP-designed noise in ℝ²:
:class:`PiecewiseConstantNoise2D`.
"""

from optmech.mechanisms.base import ContinuousNoise, DiscreteNoise, NoiseDistribution
from optmech.mechanisms.discrete_staircase import DiscreteStaircase
from optmech.mechanisms.gaussian import Gaussian, analytic_gaussian_delta
from optmech.mechanisms.geometric import Geometric, truncated_geometric
from optmech.mechanisms.laplace import Laplace
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.mechanisms.piecewise2d import PiecewiseConstantNoise2D
from optmech.mechanisms.staircase import (
    Staircase,
    heuristic_gamma,
    laplace_staircase_ratio,
    staircase_gamma_star,
)
from optmech.mechanisms.staircase_nd import StaircaseND
from optmech.mechanisms.truncated_laplace import TruncatedLaplace
from optmech.mechanisms.uniform_atom import UniformAtom, uniform_atom_min_cost

__all__ = [
    "ContinuousNoise",
    "DiscreteNoise",
    "DiscreteStaircase",
    "Gaussian",
    "Geometric",
    "Laplace",
    "LatticeNoise",
    "NoiseDistribution",
    "PiecewiseConstantNoise",
    "PiecewiseConstantNoise2D",
    "Staircase",
    "StaircaseND",
    "TruncatedLaplace",
    "UniformAtom",
    "analytic_gaussian_delta",
    "heuristic_gamma",
    "laplace_staircase_ratio",
    "staircase_gamma_star",
    "truncated_geometric",
    "uniform_atom_min_cost",
]
