"""Solving a 1-D additive LP: the engine's solve path, and the cross-check of a design.

`solve_additive` runs the engine's
`solve_built` on an
`AdditiveLP` (as built, rescaled, then the other solver),
feasible by construction exactly when the spec is ε-DP.

`cross_check` tightens a design's certified interval with the other solver's
multipliers (`optmech.lp.engine.crosscheck`, shared with the user
LPs). At large ε (values of 1e-9 and below, cells of mass 1e-14 on a graded grid) HiGHS's simplex
multipliers can leave reduced costs that are negative by its absolute tolerance on hundreds of
tiny cells, and the Lagrangian bound of the design then collapses to the trivial 0 although the
point is optimal to 4 digits; an interior-point solver's multipliers are centred and restore a
narrow interval. The better of the two certified points is kept unless the caller named a solver.

Measured (``design_noise(PureDP(30), sensitivity=1, cost=Squared())``): HiGHS alone certifies
``[0, 1.000362 V*]``; with the cross-check ``[0.996865 V*, 1.000362 V*]``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

from optmech._deprecation import warn_deprecated
from optmech.lp.additive.designed import DesignedNoise
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.engine import interval
from optmech.lp.engine.crosscheck import cross_check as _cross_check
from optmech.lp.engine.run import DesignRun
from optmech.lp.engine.solving import solve_built
from optmech.lp.solve import ProblemKind, SolveInfo

__all__ = ["DesignRun", "cross_check", "relatively_wide", "solve_additive"]

#: ``finish_design(lp, info, *, allow_repair, accuracy, warn)`` (passed in: this module sits
#: below it).
Finish = Callable[..., DesignedNoise]


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


def cross_check(
    noise: DesignedNoise, lp: AdditiveLP, finish: Finish, run: DesignRun
) -> DesignedNoise:
    """``noise`` with the larger lower bound of the other solvers' solves of ``lp``.

    Parameters
    ----------
    noise : DesignedNoise
        The first solve's design (its interval relatively wide:
        `relatively_wide`).
    lp : AdditiveLP
        The LP it solved.
    finish : callable
        `optmech.lp.additive.designer.finish_design`.
    run : DesignRun
        The first solve's settings. If it names a solver, ``noise``'s point is kept and only the
        bound is tightened.

    Returns
    -------
    DesignedNoise
        The better certified point, with ``lower_bound`` the largest bound found and every
        attempt recorded (the cross-check's labelled ``"cross-check, …"``). A cross-check
        that fails is recorded and changes nothing else.
    """

    def solve_with(name: str) -> DesignedNoise:
        solved, info = solve_additive(lp, run.with_solver(name))
        return finish(
            solved, info, allow_repair=run.allow_repair, accuracy=run.accuracy, warn=False
        )

    others, tried = _cross_check(
        noise.provenance.solver, solve_with, lambda other: other.provenance.attempts
    )
    best, lower = noise, noise.lower_bound
    for other in others:
        lower = max(lower, other.lower_bound)
        if run.solver is None and other.value < best.value:
            best = other
    attempts = (*noise.provenance.attempts, *tried)
    prov = best.provenance.replace(
        lower_bound=min(lower, best.value),
        attempts=attempts,
        total_time=sum(a.seconds for a in attempts),
    )
    out = copy.copy(best)
    out._record = dataclasses.replace(best.record, provenance=prov)
    return out
