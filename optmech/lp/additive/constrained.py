"""The 1-D designer under the caller's constraints: rows, margins, residuals, diagnosis.

`design_constrained` designs ε-DP or (ε, δ) noise that also meets the
constraints of `optmech.constraints`, each as returned:

1. **Rows.** The LP of the spec is built once and the constraints' rows are added to it
   (`optmech.lp.additive.constraint_rows`); a
   callable whose constraints are affine (in)equalities becomes rows too (read off cvxpy's
   gradient of each), any other callable's cvxpy constraints join each solver attempt. The
   mirror reduction is turned off when a constraint is not mirror-invariant (an asymmetric
   second cost, a callable).
2. **Solve, read, repair** as without constraints
   (`finish_design`). The privacy repair (cells
   raised to a window strictly inside ε, or a mixture for δ) moves the point by a hair, which
   can carry it across a constraint's bound; the reference staircase never replaces the
   solver's point here (it meets none of the constraints).
3. **Check.** Every declarative constraint is evaluated on the returned noise itself (its
   ``mean`` and ``expected_cost``); when one is off by more than
   ``optmech.constraints.RESIDUAL_TOL`` (1e-9), the LP is **re-solved with a margin**:
   every inequality's bound tightened to ``(1 − η)·b`` for ``η`` in ``MARGINS``. The
   certified interval is always that of the problem *asked*: the lower bound is weak duality
   with the margin solve's multipliers on the untightened rows (valid for any multipliers).
   If no margin works, `PrivacyViolationError`
   names the constraints; a noise that violates one is never returned.
4. **Infeasible.** When the constrained LP has no solution, each constraint is tried alone and
   `InfeasibleConstraintsError` names those
   that admit no noise of the guarantee on their own (or all of them, if only their
   combination fails).

The provenance lists every constraint with its residual (`ConstraintRecord`).

The lower bound knows the multipliers of every row, affine callables' included, but not those of
a callable's other cvxpy constraints: it stays valid (a Lagrangian of a relaxation) but is then
usually far from the value when the callable binds, and the design warns that its interval is
wide.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import cast

from optmech.constraints import RESIDUAL_TOL, Constraint, Custom
from optmech.exceptions import InfeasibleConstraintsError, PrivacyViolationError, SolverError
from optmech.lp.additive.constraint_rows import (
    CustomRows,
    constraint_blocks,
    constraint_records,
    custom_blocks,
    mirror_invariant,
    unmet,
    with_blocks,
)
from optmech.lp.additive.designed import DesignedNoise
from optmech.lp.additive.designer import AdditiveSolve, Candidate, SolverPoint, grid_point
from optmech.lp.additive.diagnostics import warn_about
from optmech.lp.additive.lp import AdditiveLP, GridNoise, build_additive_lp
from optmech.lp.additive.spec import AdditiveSpec
from optmech.lp.engine.certified import NotCertified, Policy, certified_solve
from optmech.lp.engine.crosscheck import labelled
from optmech.lp.engine.report import reporting, stage
from optmech.lp.engine.run import DesignRun
from optmech.lp.engine.solving import solve_built
from optmech.lp.solve import SolveInfo
from optmech.provenance import Attempt, ConstraintRecord

__all__ = ["MARGINS", "constrained_lp", "design_constrained"]

_log = logging.getLogger(__name__)

#: Relative margins of the re-solves (step 3 of the module docstring).
MARGINS = (0.0, 1e-9, 1e-7, 1e-5)


def constrained_lp(
    base: AdditiveLP, constraints: Sequence[Constraint], margin: float = 0.0
) -> AdditiveLP:
    """``base`` with the rows of ``constraints`` (inequalities tightened by ``margin``) and the
    callables' constraints, as a fresh problem."""
    blocks = constraint_blocks(base, constraints, margin)
    customs = tuple(c for c in constraints if isinstance(c, Custom))
    affine, rest = custom_blocks(base, customs) if customs else ((), ())
    lp = dataclasses.replace(
        base,
        rows=with_blocks(base.rows, (*blocks, *affine)),
        declared=tuple(constraints),
        custom=None,
    )
    if rest:
        lp = dataclasses.replace(lp, custom=CustomRows(lp, rest))
    return lp.for_strategy(None)


def _diagnose(
    base: AdditiveLP, constraints: Sequence[Constraint], run: DesignRun, exc: SolverError
) -> InfeasibleConstraintsError:
    """The error of an infeasible constrained LP, naming the constraints at fault."""
    names = tuple(c.name for c in constraints)
    guilty = []
    for item in constraints if len(constraints) > 1 else ():
        try:
            lp = constrained_lp(base, [item])
            solve_built(lp, run, kind="additive", feasible=False, fresh=True)
        except SolverError as alone:
            if alone.status == "infeasible":
                guilty.append(item.name)
    privacy = base.privacy
    if guilty or len(names) == 1:
        named = tuple(guilty) or names
        text = (
            f"no {privacy} noise on this grid meets {', '.join(named)}"
            f"{' on its own' if len(named) == 1 and len(names) > 1 else ''} (the solver "
            f"{exc.solver} found the LP infeasible). Relax "
            f"{'it' if len(named) == 1 else 'them'} or weaken the privacy guarantee."
        )
        return InfeasibleConstraintsError(text, constraints=named)
    text = (
        f"each constraint admits {privacy} noise on its own, but {' and '.join(names)} do not "
        f"together (the solver {exc.solver} found the LP infeasible). Relax one of them."
    )
    return InfeasibleConstraintsError(text, constraints=names)


class _ConstrainedSolve(AdditiveSolve):
    """`AdditiveSolve` of the LP ``lp`` (the rows asked, or tightened by a margin), finished on
    the rows asked: a noise that misses a constraint is not certified (``missed`` says which),
    and an infeasible LP names the constraints at fault."""

    def __init__(
        self,
        lp: AdditiveLP,
        run: DesignRun,
        asked: AdditiveLP,
        base: AdditiveLP,
        constraints: Sequence[Constraint],
        label: str,
    ) -> None:
        super().__init__(lp, run, feasible=False)
        self.asked, self.base, self.constraints, self.label = asked, base, constraints, label
        self.missed: str | None = None

    def solve(self, solver: str | None, vertex: bool) -> tuple[AdditiveLP, SolveInfo, float]:
        first = self.fresh
        try:
            return super().solve(solver, vertex)
        except SolverError as exc:
            if exc.status != "infeasible" or not first:
                raise
            raise _diagnose(self.base, self.constraints, self.run, exc) from exc

    def read(self, built: AdditiveLP) -> SolverPoint:
        return super().read(dataclasses.replace(built, rows=self.asked.rows))

    def records(self, candidate: Candidate) -> tuple[ConstraintRecord, ...]:
        """Each constraint evaluated on the noise of ``candidate`` itself."""
        noise = cast(GridNoise, candidate.family(**candidate.kwargs))
        point = grid_point(self.asked, candidate.kwargs)[0]
        return constraint_records(self.asked, self.constraints, noise, point)

    def certify(self, candidate: Candidate) -> float | None:
        value = super().certify(candidate)
        bad = unmet(self.records(candidate)) if value is not None else ()
        if bad:
            worst = ", ".join(f"{r.name} (residual {r.residual:.3g})" for r in bad)
            self.missed = f"after the privacy repair the noise misses {worst}"
            return None
        return value


def design_constrained(
    spec: AdditiveSpec, run: DesignRun, constraints: Sequence[Constraint]
) -> DesignedNoise:
    """Design certified ε-DP or (ε, δ) noise for ``spec`` that meets ``constraints`` as
    returned (module docstring).

    Raises
    ------
    InfeasibleConstraintsError
        No noise of the guarantee on the spec's grid meets the constraints (named).
    PrivacyViolationError
        No margin kept every constraint through the privacy repair, or ``run.allow_repair``
        is False and the solver's point is not private.
    """
    if spec.reduced and not spec.symmetric and not all(map(mirror_invariant, constraints)):
        spec = spec.replace(reduce_symmetric=False)
    with reporting(verbose=run.verbose, progress=run.progress, what="design_noise"):
        with stage("build", _log) as found:
            base = build_additive_lp(spec)
            asked = constrained_lp(base, constraints)
            found.update(asked.counts())

        missed: list[str] = []
        tried: list[Attempt] = []
        for margin in MARGINS:
            step = f"margin {margin:g}" if margin else ""
            lp = asked if margin == 0.0 else constrained_lp(base, constraints, margin)
            hooks = _ConstrainedSolve(lp, run, asked, base, constraints, step)
            # a callable's multipliers are not in any bound: no cross-check can tighten it
            policy = Policy(run.solver, accuracy=run.accuracy, cross_check=asked.custom is None)
            try:
                out = certified_solve(hooks, policy)
            except InfeasibleConstraintsError as exc:
                if margin == 0.0:
                    raise
                missed.append(f"{step}: infeasible ({exc})")
                break
            except NotCertified as exc:
                if hooks.missed is None:
                    raise
                missed.append(f"{step or 'as asked'}: {hooks.missed}")
                tried += labelled(exc.attempts, "constraint not met")
                continue
            out.attempts[:0] = tried  # the margins that missed a constraint, before this one's
            noise = hooks.design(out, constraints=hooks.records(out.best.candidate))
            warn_about(noise, asked, stacklevel=4)
            return noise
    raise PrivacyViolationError(
        f"no repair of the solver's point kept every constraint within {RESIDUAL_TOL:g} and "
        f"{spec.privacy}, even with a margin of {MARGINS[-1]:g} ({'; '.join(missed)}); try "
        "solver=... or another resolution."
    )
