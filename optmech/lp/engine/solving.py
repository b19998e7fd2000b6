"""Solving a row-block LP: its attempts built from the LP's own matrices.

`solve_built` runs `optmech.lp.solve.solve_robust` (as built, rescaled, then the other solver) on an
LP that knows how to build its problem for one attempt (`LPReadout`: ``for_strategy``), and returns
the variant that was solved, whose point and multipliers are then read; `BuiltSolve` is such an LP
as hooks of `optmech.lp.engine.certified.certified_solve`.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

from optmech.lp.engine.certified import CertifiedLP
from optmech.lp.engine.run import DesignRun
from optmech.lp.solve import ProblemKind, SolveInfo, Strategy, solve_robust

__all__ = ["BuiltSolve", "solve_built"]

L = TypeVar("L")
P = TypeVar("P")
C = TypeVar("C")


def solve_built(
    lp: L,
    run: DesignRun,
    *,
    kind: ProblemKind,
    feasible: bool,
    fresh: bool = False,
) -> tuple[L, SolveInfo]:
    """Solve a built LP (`LPReadout`) robustly with ``run``'s solver and options; returns the
    variant solved and the solve's record. ``feasible``: "infeasible" is numerical trouble and is
    retried; ``fresh``: ``lp.problem`` has not been solved yet, so the first "as built" attempt
    may use it rather than a new build."""
    unused: list[Any] = [lp] if fresh else []
    readout: Any = lp

    def build(strategy: Strategy) -> tuple[Any, L]:
        variant = (
            unused.pop() if unused and not strategy.rescaled else readout.for_strategy(strategy)
        )
        unused.clear()
        return variant.problem, variant

    return solve_robust(
        build,
        num_variables=readout.num_variables,
        solver=run.solver,
        kind=kind,
        options=run.options,
        feasible=feasible,
    )


class BuiltSolve(CertifiedLP[L, P, C]):
    """The hooks of a built LP (`LPReadout`) solved by `solve_built`: its first attempt uses
    the problem as built, later solves (a cross-check) build their own; ``solved``, a solve
    already made, is finished instead of solving.

    A designer adds ``read``, ``repair``, ``certify`` and ``bound`` (`optmech.lp.engine.certified`).
    """

    def __init__(
        self,
        lp: L,
        run: DesignRun,
        *,
        kind: ProblemKind,
        feasible: bool,
        solved: tuple[L, SolveInfo] | None = None,
    ) -> None:
        self.lp, self.run, self.solved = lp, run, solved
        self.kind, self.feasible = kind, feasible
        self.num_variables = cast(Any, lp).num_variables
        self.fresh = True

    def solve(self, solver: str | None, vertex: bool) -> tuple[L, SolveInfo, float]:
        if self.solved is not None:
            variant, info = self.solved
        else:
            run = self.run if solver == self.run.solver else self.run.with_solver(str(solver))
            variant, info = solve_built(
                self.lp, run, kind=self.kind, feasible=self.feasible, fresh=self.fresh
            )
            self.fresh = False
        return variant, info, cast(Any, variant).build_time
