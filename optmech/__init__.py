"""optmech: design and verify optimal differential-privacy mechanisms by linear programming.

Closed-form optimal noise ([`Staircase`][Staircase], [`DiscreteStaircase`][DiscreteStaircase],
[`Geometric`][Geometric] + remap, [`UniformAtom`][UniformAtom]) and baselines ([`Laplace`][Laplace],
[`TruncatedLaplace`][TruncatedLaplace], [`Gaussian`][Gaussian]); the additive-noise LP designer
[`design_noise`][design_noise]; the user-specific count-query LPs
[`bayesian_mechanism`][bayesian_mechanism] and [`minimax_mechanism`][minimax_mechanism] with remaps;
and independent certification of what any mechanism achieves ([`optmech.certify`][optmech.certify]).
Every LP-backed result carries a [`Provenance`][Provenance] with a certified interval
``[lower_bound, value]`` for the optimum. Guarantees beyond (ε, δ) ([`ZCDP`][ZCDP],
[`RenyiDP`][RenyiDP], [`GaussianDP`][GaussianDP], [`PrivacyProfile`][PrivacyProfile]) are certified
by [`optmech.certify.profiles`][optmech.certify.profiles] and composed by
[`optmech.accounting`][optmech.accounting]; [`StaircaseND`][StaircaseND] is the staircase in ℝ^d,
and ``design_noise(..., dimension=2)`` designs noise in ℝ² for a ball of shifts by LP.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public names and the module each is imported from on first use. ``import optmech`` loads
#: none of them, so the closed-form path (``optmech.Staircase``, costs, privacy) never pays
#: for cvxpy, networkx or matplotlib; the LP entry points load them when first touched.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "": (
        "certify",
        "costs",
        "graphs",
    ),  # subpackages
    "optmech.certify": (
        "certify_mechanism",
        "certify_noise",
        "check_dp",
    ),
    "optmech.exceptions": (
        "InaccurateSolutionWarning",
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

_ORIGIN: dict[str, str] = {
    name: module or f"optmech.{name}" for module, names in _EXPORTS.items() for name in names
}

__all__ = sorted([*_ORIGIN, "__version__"])


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562) and keep it in the module's namespace."""
    module = _ORIGIN.get(name)
    if module is None:
        raise AttributeError(f"module 'optmech' has no attribute {name!r}")
    loaded = importlib.import_module(module)
    value = loaded if module == f"optmech.{name}" else getattr(loaded, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs
    from optmech import certify, costs, graphs
    from optmech.certify import certify_mechanism, certify_noise, check_dp
    from optmech.exceptions import (
        InaccurateSolutionWarning,
        OptmechError,
        PrivacyViolationError,
        ProblemTooLargeError,
        SolverError,
    )
    from optmech.lp.additive import AdditiveSpec, CoarseGridWarning
    from optmech.lp.additive.designed import (
        DesignedGradedNoise,
        DesignedLatticeNoise,
        DesignedNoise,
        DesignedPiecewiseNoise,
    )
    from optmech.lp.additive2d import AdditiveSpec2D, DesignedNoise2D
    from optmech.lp.dependent import dependent_noise_lp
    from optmech.lp.design import design_noise
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
        PiecewiseConstantNoise2D,
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
