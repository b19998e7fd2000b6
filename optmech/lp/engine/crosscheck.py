"""The cross-check: the same LP solved by the other main solver, its attempts labelled.

A simplex vertex's multipliers are one extreme dual solution among many, an interior-point solver's
are centred; so when a certified interval ``[lower_bound, value]`` is wider than asked, solving the
*same* LP with the other solver of `optmech.lp.solve.MAIN_SOLVERS` (`alternative_solvers`) and
keeping the larger of the two rigorous lower bounds (each valid for the one LP, whatever solver
produced it) usually closes it; the better of the two certified points may be kept too. Every LP
family (the additive designers, the user LPs) calls `cross_check`; what it keeps is its own choice.

Attempts of a step after the first solve are recorded with the step's name in front of their
variant (`labelled`): ``"cross-check, as built"``, ``"refined, rescaled"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from optmech.exceptions import SolverError
from optmech.lp.engine.report import stage
from optmech.lp.solve import alternative_solvers
from optmech.provenance import Attempt

__all__ = ["CROSS_CHECK", "cross_check", "labelled"]

T = TypeVar("T")

#: The label of the cross-check's attempts.
CROSS_CHECK = "cross-check"


def labelled(attempts: Iterable[object], step: str) -> list[Attempt]:
    """The attempts (of a solve or a `SolverError`) with ``"step, "`` before their variant.

    Examples
    --------
    >>> labelled([Attempt("a solver", "as built", "optimal", 0.1)], "refined")[0].variant
    'refined, as built'
    """
    return [
        dataclasses.replace(a, variant=f"{step}, {a.variant}")
        for a in attempts
        if isinstance(a, Attempt)
    ]


def cross_check(
    used: str, solve_with: Callable[[str], T], attempts_of: Callable[[T], Sequence[Attempt]]
) -> tuple[list[T], list[Attempt]]:
    """Solve again (``solve_with(solver)``, the same LP solved and certified) with each installed
    main solver other than ``used``; a `SolverError` is recorded, not raised. Returns the
    successful solves, in order, and every attempt made (``attempts_of`` a solve), labelled
    ``"cross-check, …"``."""
    solves: list[T] = []
    attempts: list[Attempt] = []
    for name in alternative_solvers(used):
        with stage("cross-check", solver=name):
            try:
                other = solve_with(name)
            except SolverError as exc:
                attempts += labelled(exc.attempts, CROSS_CHECK)
                continue
        attempts += labelled(attempts_of(other), CROSS_CHECK)
        solves.append(other)
    return solves, attempts
