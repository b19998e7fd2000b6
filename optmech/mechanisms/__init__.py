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

from __future__ import annotations

from typing import TYPE_CHECKING

from optmech._lazy import lazy_exports

#: Public names and the module each is imported from on first use (PEP 562): importing one
#: family (or ``optmech.mechanisms.description``) does not load the others, so a 1-D design
#: never pays for the 2-D and ℝ^d families.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "optmech.mechanisms.base": (
        "ContinuousNoise",
        "DiscreteNoise",
        "NoiseDistribution",
    ),
    "optmech.mechanisms.discrete_staircase": ("DiscreteStaircase",),
    "optmech.mechanisms.gaussian": (
        "Gaussian",
        "analytic_gaussian_delta",
    ),
    "optmech.mechanisms.geometric": (
        "Geometric",
        "truncated_geometric",
    ),
    "optmech.mechanisms.laplace": ("Laplace",),
    "optmech.mechanisms.piecewise": (
        "LatticeNoise",
        "PiecewiseConstantNoise",
    ),
    "optmech.mechanisms.piecewise2d": ("PiecewiseConstantNoise2D",),
    "optmech.mechanisms.staircase": (
        "Staircase",
        "heuristic_gamma",
        "laplace_staircase_ratio",
        "staircase_gamma_star",
    ),
    "optmech.mechanisms.staircase_nd": ("StaircaseND",),
    "optmech.mechanisms.truncated_laplace": ("TruncatedLaplace",),
    "optmech.mechanisms.uniform_atom": (
        "UniformAtom",
        "uniform_atom_min_cost",
    ),
}

__all__ = sorted([*(name for names in _EXPORTS.values() for name in names)])

if not TYPE_CHECKING:  # hidden from type checkers, so that a misspelt name is an error there
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs (``X as X``: re-exported)
    from optmech.mechanisms.base import ContinuousNoise as ContinuousNoise
    from optmech.mechanisms.base import DiscreteNoise as DiscreteNoise
    from optmech.mechanisms.base import NoiseDistribution as NoiseDistribution
    from optmech.mechanisms.discrete_staircase import DiscreteStaircase as DiscreteStaircase
    from optmech.mechanisms.gaussian import Gaussian as Gaussian
    from optmech.mechanisms.gaussian import analytic_gaussian_delta as analytic_gaussian_delta
    from optmech.mechanisms.geometric import Geometric as Geometric
    from optmech.mechanisms.geometric import truncated_geometric as truncated_geometric
    from optmech.mechanisms.laplace import Laplace as Laplace
    from optmech.mechanisms.piecewise import LatticeNoise as LatticeNoise
    from optmech.mechanisms.piecewise import PiecewiseConstantNoise as PiecewiseConstantNoise
    from optmech.mechanisms.piecewise2d import PiecewiseConstantNoise2D as PiecewiseConstantNoise2D
    from optmech.mechanisms.staircase import Staircase as Staircase
    from optmech.mechanisms.staircase import heuristic_gamma as heuristic_gamma
    from optmech.mechanisms.staircase import laplace_staircase_ratio as laplace_staircase_ratio
    from optmech.mechanisms.staircase import staircase_gamma_star as staircase_gamma_star
    from optmech.mechanisms.staircase_nd import StaircaseND as StaircaseND
    from optmech.mechanisms.truncated_laplace import TruncatedLaplace as TruncatedLaplace
    from optmech.mechanisms.uniform_atom import UniformAtom as UniformAtom
    from optmech.mechanisms.uniform_atom import uniform_atom_min_cost as uniform_atom_min_cost
