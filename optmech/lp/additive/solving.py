"""Solving an additive LP: one robust solve path, and a cross-check that tightens the interval.

[`solve_additive`][solve_additive] runs
[`optmech.lp.solve.solve_robust`][optmech.lp.solve.solve_robust] on an
[`AdditiveLP`][optmech.lp.additive.lp.AdditiveLP] (as built, rescaled, then the other solver).

[`cross_check`][cross_check] tightens a design's certified interval with the other solver's
multipliers. A simplex vertex's multipliers are one extreme dual solution among many; at large ε
(values of 1e-9 and below, cells of mass 1e-14 on a graded grid) HiGHS's can leave reduced costs
that are negative by its absolute tolerance on hundreds of tiny cells, and the Lagrangian bound of
the design then collapses to the trivial 0 although the point is optimal to 4 digits. An
interior-point solver's multipliers are centred, so re-solving the *same* LP with the other main
solver ([`optmech.lp.solve.alternative_solvers`][optmech.lp.solve.alternative_solvers]) and keeping
the larger of the two rigorous bounds (each valid for the one LP, whatever solver produced it)
restores a narrow interval; the better of the two certified points is kept unless the caller named a
solver. This mirrors the cross-check of the user LPs (`optmech.lp.user.engine`).

Measured (``design_noise(PureDP(30), sensitivity=1, cost=Squared())``): HiGHS alone certifies
``[0, 1.000362 V*]``; with the cross-check ``[0.996865 V*, 1.000362 V*]``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from optmech.exceptions import SolverError
from optmech.lp.additive.designed import DesignedNoise
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.solve import (
    ProblemKind,
    SolveInfo,
    Strategy,
    alternative_solvers,
    solve_robust,
)
from optmech.provenance import DEFAULT_ACCURACY, Attempt

__all__ = ["DesignRun", "cross_check", "relatively_wide", "solve_additive"]

#: ``finish_design(lp, info, *, repair, accuracy, warn)`` (passed in: this module sits below it).
Finish = Callable[..., DesignedNoise]


@dataclass(frozen=True)
class DesignRun:
    """How a design is solved: the settings every designer passes down unchanged.

    Attributes
    ----------
    solver : str or None
        cvxpy solver name; None for the policy of
        [`optmech.lp.solve.solve_robust`][optmech.lp.solve.solve_robust].
    repair : bool
        Repair a point that is not exactly private (else raise).
    accuracy : float
        Certified-interval width above which a warning is issued.
    options : dict or None
        Options passed to the solver.
    verbose : bool
        Show the solver log.
    """

    solver: str | None = None
    repair: bool = True
    accuracy: float = DEFAULT_ACCURACY
    options: dict[str, Any] | None = None
    verbose: bool = False


def relatively_wide(noise: DesignedNoise) -> bool:
    """Whether ``[lower_bound, value]`` is wider than ``accuracy`` relative to the value itself
    ([`Provenance.certified`][Provenance.certified] is absolute below 1, so tiny values pass it
    whatever their lower bound)."""
    prov = noise.provenance
    return prov.value > 0 and prov.value - prov.lower_bound > prov.accuracy * prov.value


def _label(attempt: Attempt) -> Attempt:
    return dataclasses.replace(attempt, variant=f"cross-check, {attempt.variant}")


def solve_additive(
    lp: AdditiveLP,
    run: DesignRun,
    *,
    fresh: bool = False,
    kind: ProblemKind = "additive",
    feasible: bool | None = None,
) -> tuple[AdditiveLP, SolveInfo]:
    """Solve ``lp`` by [`solve_robust`][optmech.lp.solve.solve_robust]; returns the variant solved.

    ``run`` gives the solver, its options and verbosity. ``fresh``: ``lp.problem`` has not been
    solved yet, so the first "as built" attempt may use it rather than a new build.
    ``feasible`` (default: the spec is ε-DP) says the problem is feasible by construction (a grid
    Laplace density satisfies every ε-DP row), so "infeasible" there is numerical trouble and is
    retried. ``kind="conic"`` for the Rényi / zCDP problems (cone solvers only).
    """
    unused = [lp] if fresh else []

    def build(strategy: Strategy) -> tuple[Any, AdditiveLP]:
        variant = unused.pop() if unused and not strategy.rescaled else lp.for_strategy(strategy)
        unused.clear()
        return variant.problem, variant

    return solve_robust(
        build,
        num_variables=lp.num_variables,
        solver=run.solver,
        kind=kind,
        options=run.options,
        verbose=run.verbose,
        feasible=lp.spec.pure if feasible is None else feasible,
    )


def cross_check(
    noise: DesignedNoise,
    lp: AdditiveLP,
    finish: Finish,
    run: DesignRun,
) -> DesignedNoise:
    """``noise`` with the larger lower bound of the other solvers' solves of ``lp``.

    Parameters
    ----------
    noise : DesignedNoise
        The first solve's design (its interval relatively wide:
        [`relatively_wide`][relatively_wide]).
    lp : AdditiveLP
        The LP it solved.
    finish : callable
        [`optmech.lp.additive.design.finish_design`][optmech.lp.additive.design.finish_design].
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
    best = noise
    lower = noise.lower_bound
    attempts = list(noise.provenance.attempts)
    for name in alternative_solvers(noise.provenance.solver):
        try:
            solved, info = solve_additive(lp, dataclasses.replace(run, solver=name))
            other = finish(solved, info, repair=run.repair, accuracy=run.accuracy, warn=False)
        except SolverError as exc:
            attempts += [_label(a) for a in exc.attempts if isinstance(a, Attempt)]
            continue
        attempts += [_label(a) for a in other.provenance.attempts]
        lower = max(lower, other.lower_bound)
        if run.solver is None and other.value < best.value:
            best = other
    prov = best.provenance.replace(
        lower_bound=min(lower, best.value),
        attempts=tuple(attempts),
        total_time=sum(a.seconds for a in attempts),
    )
    out = copy.copy(best)
    out._record = dataclasses.replace(best.record, provenance=prov)
    return out
