"""optmech: design and verify optimal differential-privacy mechanisms by linear programming.

Closed-form optimal noise (:class:`Staircase`, :class:`DiscreteStaircase`, :class:`Geometric`
+ remap, :class:`UniformAtom`) and baselines (:class:`Laplace`, :class:`TruncatedLaplace`,
:class:`Gaussian`); the additive-noise LP designer :func:`design_noise`; the user-specific
count-query LPs :func:`bayesian_mechanism` and :func:`minimax_mechanism` with remaps; and
independent certification of what any mechanism achieves (:mod:`optmech.certify`). Every
LP-backed result carries a :class:`Provenance` with a certified interval ``[lower_bound, value]``
for the optimum. Guarantees beyond (ε, δ) (:class:`ZCDP`, :class:`RenyiDP`,
:class:`GaussianDP`, :class:`PrivacyProfile`) are certified by :mod:`optmech.certify.profiles`
and composed by :mod:`optmech.accounting`; :class:`StaircaseND` is the staircase in ℝ^d.
"""

from optmech import certify, costs, graphs
from optmech.certify import certify_mechanism, certify_noise, check_dp
from optmech.exceptions import (
    InaccurateSolutionWarning,
    OptmechError,
    PrivacyViolationError,
    ProblemTooLargeError,
    SolverError,
)
from optmech.lp.additive import AdditiveSpec, CoarseGridWarning, design_noise
from optmech.lp.dependent import dependent_noise_lp
from optmech.lp.designed import (
    DesignedGradedNoise,
    DesignedLatticeNoise,
    DesignedNoise,
    DesignedPiecewiseNoise,
)
from optmech.lp.remap import (
    RemapResult,
    apply_remap,
    bayes_remap,
    constraint_matrix,
    geometric_bayes,
    geometric_minimax,
    is_remap_of_geometric,
    minimax_remap,
    remap_from_constraint_matrix,
    remap_of_geometric,
)
from optmech.lp.solve import SolveInfo, available_solvers
from optmech.lp.user import (
    UserMechanism,
    bayesian_mechanism,
    common_mechanism,
    make_private,
    minimax_mechanism,
)
from optmech.mechanisms import (
    DiscreteStaircase,
    Gaussian,
    Geometric,
    Laplace,
    Staircase,
    StaircaseND,
    TruncatedLaplace,
    UniformAtom,
    heuristic_gamma,
    laplace_staircase_ratio,
    staircase_gamma_star,
    truncated_geometric,
)
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PrivacyProfile, PureDP, RenyiDP
from optmech.provenance import Provenance

__version__ = "0.1.0"

__all__ = [
    "ZCDP",
    "AdditiveSpec",
    "ApproxDP",
    "CoarseGridWarning",
    "DesignedGradedNoise",
    "DesignedLatticeNoise",
    "DesignedNoise",
    "DesignedPiecewiseNoise",
    "DiscreteStaircase",
    "Gaussian",
    "GaussianDP",
    "Geometric",
    "InaccurateSolutionWarning",
    "Laplace",
    "OptmechError",
    "PrivacyProfile",
    "PrivacyViolationError",
    "ProblemTooLargeError",
    "Provenance",
    "PureDP",
    "RemapResult",
    "RenyiDP",
    "SolveInfo",
    "SolverError",
    "Staircase",
    "StaircaseND",
    "TruncatedLaplace",
    "UniformAtom",
    "UserMechanism",
    "__version__",
    "apply_remap",
    "available_solvers",
    "bayes_remap",
    "bayesian_mechanism",
    "certify",
    "certify_mechanism",
    "certify_noise",
    "check_dp",
    "common_mechanism",
    "constraint_matrix",
    "costs",
    "dependent_noise_lp",
    "design_noise",
    "geometric_bayes",
    "geometric_minimax",
    "graphs",
    "heuristic_gamma",
    "is_remap_of_geometric",
    "laplace_staircase_ratio",
    "make_private",
    "minimax_mechanism",
    "minimax_remap",
    "remap_from_constraint_matrix",
    "remap_of_geometric",
    "staircase_gamma_star",
    "truncated_geometric",
]
