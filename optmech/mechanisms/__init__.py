"""Closed-form additive noise families, one module each, on one base class ([`base`][base]).

ε-DP: [`Laplace`][Laplace], [`Staircase`][Staircase] (optimal on ℝ, Geng & Viswanath 2016),
[`DiscreteStaircase`][DiscreteStaircase] (optimal on ℤ), [`Geometric`][Geometric], and the GRS
range-restricted matrix [`truncated_geometric`][truncated_geometric]. (0, δ):
[`UniformAtom`][UniformAtom] (optimal within symmetric non-increasing noise, Geng, Ding, Guo & Kumar
2019). (ε, δ) baselines: [`TruncatedLaplace`][TruncatedLaplace], [`Gaussian`][Gaussian]. LP-designed
noise: [`PiecewiseConstantNoise`][PiecewiseConstantNoise] and [`LatticeNoise`][LatticeNoise]. Noise
in ℝ^d for a sensitivity measured in a norm: [`StaircaseND`][StaircaseND]; LP-designed noise in ℝ²:
[`PiecewiseConstantNoise2D`][PiecewiseConstantNoise2D].
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
