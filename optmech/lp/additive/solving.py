"""Solving a 1-D additive LP: the engine's solve path.

`solve_additive` runs the engine's
`solve_built` on an
`AdditiveLP` (as built, rescaled, then the other solver),
feasible by construction exactly when the spec is ε-DP.

A design's certified interval is tightened by the other solver's multipliers in
`optmech.lp.engine.certified.certified_solve` (its cross-check). At large ε (values of 1e-9 and
below, cells of mass 1e-14 on a graded grid) HiGHS's simplex multipliers can leave reduced
costs that are negative by its absolute tolerance on hundreds of tiny cells, and the Lagrangian
bound of the design then collapses to the trivial 0 although the point is optimal to 4 digits;
an interior-point solver's multipliers are centred and restore a narrow interval. The better of
the two certified points is kept unless the caller named a solver.

Measured (``design_noise(PureDP(30), sensitivity=1, cost=Squared())``): HiGHS alone certifies
``[0, 1.000362 V*]``; with the cross-check ``[0.996865 V*, 1.000362 V*]``.
"""

from __future__ import annotations

from optmech._deprecation import warn_deprecated
from optmech.lp.additive.designed import DesignedNoise
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.engine import interval
from optmech.lp.engine.run import DesignRun
from optmech.lp.engine.solving import solve_built
from optmech.lp.solve import ProblemKind, SolveInfo

__all__ = ["DesignRun", "relatively_wide", "solve_additive"]


def relatively_wide(noise: DesignedNoise) -> bool:
    """Deprecated: the engine's
    `relatively_wide` of the noise's
    ``(value, lower_bound, accuracy)``, the one width test of every LP result."""
    warn_deprecated(
        "`optmech.lp.additive.solving.relatively_wide(noise)`",
        "`optmech.lp.engine.interval.relatively_wide(value, lower_bound, accuracy)`",
    )
    prov = noise.provenance
    return interval.relatively_wide(prov.value, prov.lower_bound, prov.accuracy)


def solve_additive(
    lp: AdditiveLP,
    run: DesignRun,
    *,
    fresh: bool = False,
    kind: ProblemKind = "additive",
    feasible: bool | None = None,
) -> tuple[AdditiveLP, SolveInfo]:
    """Solve ``lp`` by `solve_robust`; returns the variant solved.

    ``run`` gives the solver and its options. ``fresh``: ``lp.problem`` has not been solved
    yet, so the first "as built" attempt may use it rather than a new build. ``feasible``
    (default: the spec is ε-DP) says the problem is feasible by construction (a grid Laplace
    density satisfies every ε-DP row), so "infeasible" there is numerical trouble and is
    retried. ``kind="conic"`` for the Rényi / zCDP problems (cone solvers only).
    """
    return solve_built(
        lp, run, kind=kind, feasible=lp.spec.pure if feasible is None else feasible, fresh=fresh
    )
