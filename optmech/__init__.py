"""optmech: design and verify optimal differential-privacy mechanisms by linear programming.

Closed-form optimal noise ([`Staircase`][Staircase], [`DiscreteStaircase`][DiscreteStaircase],
[`Geometric`][Geometric] + remap, [`UniformAtom`][UniformAtom]) and baselines ([`Laplace`][Laplace],
[`TruncatedLaplace`][TruncatedLaplace], [`Gaussian`][Gaussian]); the additive-noise LP designer
[`design_noise`][design_noise]; the user-specific count-query LPs
[`bayesian_mechanism`][bayesian_mechanism] and [`minimax_mechanism`][minimax_mechanism] with remaps;
the local model ([`local_mechanism`][local_mechanism] with constraints of one's own from
[`optmech.constraints`][optmech.constraints], [`rr_on_bins`][rr_on_bins],
[`extremal_mechanism`][extremal_mechanism] for the utilities of
[`optmech.utilities`][optmech.utilities]);
and independent certification of what any mechanism achieves ([`optmech.certify`][optmech.certify]:
``optmech.certify.certify(obj)`` for a certificate, [`check`][check] for a claim).
Every LP-backed result carries a [`Provenance`][Provenance] with a certified interval
``[lower_bound, value]`` for the optimum. Guarantees beyond (ε, δ) ([`ZCDP`][ZCDP],
[`RenyiDP`][RenyiDP], [`GaussianDP`][GaussianDP], [`PrivacyProfile`][PrivacyProfile]) are certified
by [`optmech.certify.profiles`][optmech.certify.profiles] and composed by
[`optmech.accounting`][optmech.accounting]; [`StaircaseND`][StaircaseND] is the staircase in ℝ^d,
and ``design_noise(..., dimension=2)`` designs noise in ℝ² for a ball of shifts by LP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from optmech._lazy import lazy_exports

__version__ = "0.1.0"

#: Public names and the module each is imported from on first use. ``import optmech`` loads
#: none of them, so the closed-form path (``optmech.Staircase``, costs, privacy) never pays
#: for cvxpy, networkx or matplotlib; the LP entry points load them when first touched.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "": (
        "accounting",
        "certify",
        "constraints",
        "costs",
        "experiments",
        "graphs",
        "interop",
        "utilities",
    ),  # subpackages and modules
    "optmech.certify": (
        "certify_mechanism",
        "certify_noise",
        "check",
        "check_dp",
    ),
    "optmech.exceptions": (
        "InaccurateSolutionWarning",
        "InfeasibleConstraintsError",
        "OptmechError",
        "PrivacyViolationError",
        "ProblemTooLargeError",
        "SolverError",
    ),
    "optmech.lp.additive": (
        "AdditiveSpec",
        "CoarseGridWarning",
    ),
    "optmech.lp.design": ("design_noise",),
    "optmech.lp.additive2d": (
        "AdditiveSpec2D",
        "DesignedNoise2D",
    ),
    "optmech.lp.dependent": ("dependent_noise_lp",),
    "optmech.lp.local": (
        "ExtremalMechanism",
        "LocalMechanism",
        "RROnBins",
        "extremal_mechanism",
        "local_mechanism",
        "rr_on_bins",
    ),
    "optmech.lp.additive.designed": (
        "DesignedGradedNoise",
        "DesignedLatticeNoise",
        "DesignedNoise",
        "DesignedPiecewiseNoise",
    ),
    "optmech.lp.remap": (
        "RemapResult",
        "apply_remap",
        "bayes_remap",
        "constraint_matrix",
        "geometric_bayes",
        "geometric_minimax",
        "is_remap_of_geometric",
        "minimax_remap",
        "remap_from_constraint_matrix",
        "remap_of_geometric",
    ),
    "optmech.lp.solve": (
        "SolveInfo",
        "available_solvers",
    ),
    "optmech.lp.user": (
        "UserMechanism",
        "bayesian_mechanism",
        "common_mechanism",
        "make_private",
        "minimax_mechanism",
    ),
    "optmech.mechanisms": (
        "DiscreteStaircase",
        "Gaussian",
        "Geometric",
        "Laplace",
        "Staircase",
        "PiecewiseConstantNoise2D",
        "StaircaseND",
        "TruncatedLaplace",
        "UniformAtom",
        "heuristic_gamma",
        "laplace_staircase_ratio",
        "staircase_gamma_star",
        "truncated_geometric",
    ),
    "optmech.privacy": (
        "ZCDP",
        "ApproxDP",
        "GaussianDP",
        "PrivacyProfile",
        "PureDP",
        "RenyiDP",
    ),
    "optmech.provenance": ("Provenance",),
}

__all__ = sorted([*(name for names in _EXPORTS.values() for name in names), "__version__"])

if not TYPE_CHECKING:  # hidden from type checkers, so that a misspelt name is an error there
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs (``X as X``: re-exported)
    from optmech import accounting as accounting
    from optmech import certify as certify
    from optmech import constraints as constraints
    from optmech import costs as costs
    from optmech import experiments as experiments
    from optmech import graphs as graphs
    from optmech import interop as interop
    from optmech import utilities as utilities
    from optmech.certify import certify_mechanism as certify_mechanism
    from optmech.certify import certify_noise as certify_noise
    from optmech.certify import check as check
    from optmech.certify import check_dp as check_dp
    from optmech.exceptions import InaccurateSolutionWarning as InaccurateSolutionWarning
    from optmech.exceptions import InfeasibleConstraintsError as InfeasibleConstraintsError
    from optmech.exceptions import OptmechError as OptmechError
    from optmech.exceptions import PrivacyViolationError as PrivacyViolationError
    from optmech.exceptions import ProblemTooLargeError as ProblemTooLargeError
    from optmech.exceptions import SolverError as SolverError
    from optmech.lp.additive import AdditiveSpec as AdditiveSpec
    from optmech.lp.additive import CoarseGridWarning as CoarseGridWarning
    from optmech.lp.additive.designed import DesignedGradedNoise as DesignedGradedNoise
    from optmech.lp.additive.designed import DesignedLatticeNoise as DesignedLatticeNoise
    from optmech.lp.additive.designed import DesignedNoise as DesignedNoise
    from optmech.lp.additive.designed import DesignedPiecewiseNoise as DesignedPiecewiseNoise
    from optmech.lp.additive2d import AdditiveSpec2D as AdditiveSpec2D
    from optmech.lp.additive2d import DesignedNoise2D as DesignedNoise2D
    from optmech.lp.dependent import dependent_noise_lp as dependent_noise_lp
    from optmech.lp.design import design_noise as design_noise
    from optmech.lp.local import ExtremalMechanism as ExtremalMechanism
    from optmech.lp.local import LocalMechanism as LocalMechanism
    from optmech.lp.local import RROnBins as RROnBins
    from optmech.lp.local import extremal_mechanism as extremal_mechanism
    from optmech.lp.local import local_mechanism as local_mechanism
    from optmech.lp.local import rr_on_bins as rr_on_bins
    from optmech.lp.remap import RemapResult as RemapResult
    from optmech.lp.remap import apply_remap as apply_remap
    from optmech.lp.remap import bayes_remap as bayes_remap
    from optmech.lp.remap import constraint_matrix as constraint_matrix
    from optmech.lp.remap import geometric_bayes as geometric_bayes
    from optmech.lp.remap import geometric_minimax as geometric_minimax
    from optmech.lp.remap import is_remap_of_geometric as is_remap_of_geometric
    from optmech.lp.remap import minimax_remap as minimax_remap
    from optmech.lp.remap import remap_from_constraint_matrix as remap_from_constraint_matrix
    from optmech.lp.remap import remap_of_geometric as remap_of_geometric
    from optmech.lp.solve import SolveInfo as SolveInfo
    from optmech.lp.solve import available_solvers as available_solvers
    from optmech.lp.user import UserMechanism as UserMechanism
    from optmech.lp.user import bayesian_mechanism as bayesian_mechanism
    from optmech.lp.user import common_mechanism as common_mechanism
    from optmech.lp.user import make_private as make_private
    from optmech.lp.user import minimax_mechanism as minimax_mechanism
    from optmech.mechanisms import DiscreteStaircase as DiscreteStaircase
    from optmech.mechanisms import Gaussian as Gaussian
    from optmech.mechanisms import Geometric as Geometric
    from optmech.mechanisms import Laplace as Laplace
    from optmech.mechanisms import PiecewiseConstantNoise2D as PiecewiseConstantNoise2D
    from optmech.mechanisms import Staircase as Staircase
    from optmech.mechanisms import StaircaseND as StaircaseND
    from optmech.mechanisms import TruncatedLaplace as TruncatedLaplace
    from optmech.mechanisms import UniformAtom as UniformAtom
    from optmech.mechanisms import heuristic_gamma as heuristic_gamma
    from optmech.mechanisms import laplace_staircase_ratio as laplace_staircase_ratio
    from optmech.mechanisms import staircase_gamma_star as staircase_gamma_star
    from optmech.mechanisms import truncated_geometric as truncated_geometric
    from optmech.privacy import ZCDP as ZCDP
    from optmech.privacy import ApproxDP as ApproxDP
    from optmech.privacy import GaussianDP as GaussianDP
    from optmech.privacy import PrivacyProfile as PrivacyProfile
    from optmech.privacy import PureDP as PureDP
    from optmech.privacy import RenyiDP as RenyiDP
    from optmech.provenance import Provenance as Provenance
