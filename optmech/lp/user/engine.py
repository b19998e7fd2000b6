"""The one solve path of every user LP: build, solve robustly, invert, repair, certify.

`solve_user_lp` is the private engine behind
`bayesian_mechanism`,
`minimax_mechanism` and
`common_mechanism`; what differs between them is the objective
object (`optmech.lp.matrix.objectives`).

1. **Scale.** The objective is divided by its value at the best known ε-DP mechanism (the best
   constant answer; for a count query the geometric mechanism with the Bayes remap), so the
   optimum is O(1).
2. **Solve** through `optmech.lp.solve.solve_robust`
(``feasible=True``: these LPs are
   feasible — the constant mechanism — and bounded below by 0, so "infeasible"/"unbounded" are
   numerical trouble and are retried, never reported). The builder reads the strategy, never a
   solver's name: an interior-point solver gets ``X ≥ 0`` on the first row only; the rescaled
   variant divides the objective by its largest coefficient (all ≤ 1) and writes each privacy
   row as ``e^(−ε) x_a ≤ x_b`` (largest coefficient 1). Measured on 60 count LPs (ε ∈ {30, 50},
   n ≤ 60, |e|, e² and 0-1, uniform and random priors, objective ÷ largest weight): Clarabel
   ended "optimal" on all 60 in this form; with the balanced rows ``e^(−ε/2) x_a ≤ e^(ε/2)
   x_b`` 20 ended optimal, 20 inaccurate and 20 failed (at ε = 50: 14 solver errors, 6
   iteration limits). HiGHS solved 59 of the 60 with balanced rows, and every rescaled HiGHS
   attempt at ε = 50 (n ≤ 60, the three losses, both priors) in this form.
3. **Invert** the reduction (mirror symmetry), mapping point and multipliers to the full LP.
4. **Certify.** The point is clipped, normalised and repaired to a mechanism the independent
   certifier proves ε-DP (`optmech.lp.matrix.repair`); the value is the
   objective at it, rounded up; the lower bound is Lagrangian, rounded down
   (`optmech.lp.matrix.bounds`). The LP's optimum lies in
   ``[lower_bound, value]`` whatever the solver's tolerances.
5. **Refine** when that interval is wider than ``accuracy`` relative to the value: the known
   private mechanisms compete with the LP's point and the better certified one is kept. A zero
   optimum is then returned as exactly 0: it is attained only by mechanisms that never give an
   answer of positive loss, and on a connected graph a used column is positive in every row,
   so some column of the weights is all zero and the constant mechanism answering it — a
   vertex, and one of the known mechanisms — has value exactly 0. If the interval is still
   wide (and the value is at least 1e-12 of the largest weight, so coefficients stay below
   1e12), the LP is solved once more with its objective divided by the current value: the
   better certified point is kept and the larger of the two lower bounds (both rigorous). On
   count LPs at ε = 15–20 this took Clarabel's values from 6e-6 to 4e-8 relative above the
   optimum; attempts of that solve are recorded as ``"refined, …"``.
6. **Cross-check** when the interval is still wide: the other solver of
   `optmech.lp.solve.MAIN_SOLVERS` solves the same LP (scaled by
   the current value); the larger lower bound is kept, and its certified point competes unless the
   caller named a solver or asked for a vertex (then the caller's point is kept). A simplex vertex's
   multipliers are one extreme dual solution, an interior-point solver's are centred: on a GRS
   instance (n = 24, ε = 1.623, √|e|) HiGHS left the bound 3e-6 below the optimum, and the
   cross-check closes it. Attempts are recorded as ``"cross-check, …"``.

The certificate concerns the matrix as returned: the certifier proves ``certified ε ≤ ε`` for
its entries, whose rows sum to 1 up to a few ulps of floating-point normalisation.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import cvxpy as cp

from optmech._floats import FloatArray
from optmech.exceptions import SolverError
from optmech.lp.engine.crosscheck import cross_check, labelled
from optmech.lp.engine.interval import relatively_wide
from optmech.lp.engine.record import Solved
from optmech.lp.engine.report import stage
from optmech.lp.matrix.build import Bounds, LPForm, RowScaling, UserLP
from optmech.lp.matrix.objectives import Objective, Reference, reference_scale
from optmech.lp.matrix.repair import clip_normalise, max_violation, repair_point
from optmech.lp.matrix.setting import UserSetting
from optmech.lp.solve import SolveInfo, Strategy, provenance_of, solve_robust
from optmech.lp.user.reductions import Inverse, MirrorReduction, NoReduction
from optmech.provenance import Attempt, Provenance, Repair, RepairKind

__all__ = ["Solved", "solve_user_lp"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Run:
    lp: UserLP
    inverse: Inverse
    factor: float


@dataclass(frozen=True)
class Candidate:
    """A certified mechanism, the point it was repaired from and where that came from."""

    mechanism: FloatArray
    value: float
    unrepaired_value: float
    kind: RepairKind
    weight: float
    certified_epsilon: float
    source: tuple[str, str]


@dataclass(frozen=True)
class _Context:
    setting: UserSetting
    epsilon: float
    objective: Objective
    reduction: NoReduction | MirrorReduction
    solver: str | None
    vertex: bool


@dataclass(frozen=True)
class _Solve:
    """One robust solve: the certified point, the solver's raw point, the bound, provenance."""

    best: Candidate
    raw: FloatArray
    violation: float
    lower: float
    info: SolveInfo
    build_time: float


def certify_candidate(
    point: FloatArray,
    setting: UserSetting,
    epsilon: float,
    objective: Objective,
    source: tuple[str, str],
) -> Candidate:
    """``point`` repaired to a certified ε-DP mechanism
    (`repair_point`), with the objective at both."""
    outcome = repair_point(point, epsilon, setting.src, setting.dst, setting.is_path)
    return Candidate(
        outcome.mechanism,
        objective.value(outcome.mechanism),
        objective.value(point),
        outcome.kind,
        outcome.weight,
        outcome.certified_epsilon,
        source,
    )


def _solve(ctx: _Context, factor_of: Callable[[Strategy], float]) -> _Solve:
    """Build (the strategy decides bounds, row scaling and, through ``factor_of``, the
    objective's divisor), solve robustly, invert the reduction, certify, bound."""
    build_time = [0.0]

    def build(strategy: Strategy) -> tuple[cp.Problem, _Run]:
        start = time.perf_counter()
        with stage("build", _log) as found:
            factor = factor_of(strategy)
            form = LPForm(
                bounds=Bounds.FIRST_ROW if strategy.interior_point else Bounds.ALL,
                scaling=RowScaling.NORMALISED if strategy.rescaled else RowScaling.PLAIN,
            )
            lp, inverse = ctx.reduction.apply(ctx.objective.data(factor), ctx.epsilon, form)
            found.update(_counts(lp))
        build_time[0] = time.perf_counter() - start
        return lp.problem, _Run(lp, inverse, factor)

    n_in, n_out = ctx.objective.shape
    extra = 0 if ctx.objective.kind == "bayesian" else 1  # the epigraph variable
    run, info = solve_robust(
        build,
        num_variables=n_in * n_out + extra,
        solver=ctx.solver,
        vertex=ctx.vertex,
        kind="count",
        feasible=True,
    )
    point, duals = run.inverse.invert(run.lp.point(), run.lp.duals())
    raw = clip_normalise(point)
    best = certify_candidate(
        raw, ctx.setting, ctx.epsilon, ctx.objective, (info.solver, info.status)
    )
    lower = ctx.objective.lower_bound(duals, run.lp.coefficients, run.factor, ctx.setting)
    violation = max_violation(point, ctx.epsilon, ctx.setting.src, ctx.setting.dst)
    return _Solve(best, raw, violation, lower, info, build_time[0])


def _counts(lp: UserLP) -> dict[str, int]:
    """Variables, rows and stored coefficients of a built user LP, for the logs (a privacy row
    holds two entries, a row sum one per variable, an epigraph row one input's row and ``t``)."""
    n = int(lp.variable.size)
    privacy = int(lp.forward.size) + (0 if lp.backward is None else int(lp.backward.size))
    epigraph = 0 if lp.epigraph is None else int(lp.epigraph.size) * (lp.variable.shape[1] + 1)
    return {
        "variables": n + (lp.worst_case is not None),
        "rows": sum(int(c.size) for c in lp.problem.constraints),
        "nonzeros": n + 2 * privacy + epigraph,
    }


def compete(
    best: Candidate,
    references: list[Reference],
    setting: UserSetting,
    epsilon: float,
    objective: Objective,
) -> tuple[Candidate, list[Attempt]]:
    """The best certified point among ``best`` and the known private mechanisms.

    A known mechanism that wins is recorded as an attempt with solver ``"none"`` and status
    ``"exact"`` (computed without a solver).
    """
    kept: list[Attempt] = []
    for ref in references:
        start = time.perf_counter()
        candidate = certify_candidate(ref.mechanism, setting, epsilon, objective, ("none", "exact"))
        if candidate.value < best.value:
            best = candidate
            seconds = time.perf_counter() - start
            kept = [Attempt("none", f"known ε-DP mechanism: {ref.name}", "exact", seconds)]
    return best, kept


def _refine(ctx: _Context, best: Candidate) -> tuple[_Solve | None, list[Attempt]]:
    """Re-solve with the objective divided by the current value (step 5); ``None`` if that
    fails. Its attempts are labelled ``"refined, …"``."""
    factor = best.value
    try:
        with stage("refine", _log, divisor=factor):
            again = _solve(ctx, lambda _strategy: factor)
    except SolverError as exc:
        return None, labelled(exc.attempts, "refined")
    return again, labelled(again.info.attempts, "refined")


def _cross_check(
    ctx: _Context, best: Candidate, scale: float, used: str, attempts: list[Attempt]
) -> list[_Solve]:
    """Step 6: the same LP by each other solver of the policy (appending its attempts,
    labelled ``"cross-check, …"``); both points and bounds are certified, so the better value
    and the larger bound are kept."""
    factor = best.value if best.value > 0 else scale

    def solve_with(name: str) -> _Solve:
        return _solve(replace(ctx, solver=name), lambda _strategy: factor)

    others, tried = cross_check(used, solve_with, lambda other: other.info.attempts)
    attempts += tried
    return others


def should_refine(best: Candidate, lower: float, accuracy: float, scale: float, top: float) -> bool:
    """Wide, positive, not already solved at this scale, and coefficients stay below 1e12."""
    return (
        relatively_wide(best.value, lower, accuracy)
        and best.value >= 1e-12 * top
        and not 0.5 <= scale / best.value <= 2.0
    )


def solve_user_lp(
    setting: UserSetting,
    epsilon: float,
    objective: Objective,
    *,
    solver: str | None,
    vertex: bool,
    reduce: bool,
    accuracy: float,
) -> Solved:
    """Solve one user LP and certify the result (module docstring: steps 1–5).

    Parameters
    ----------
    setting : UserSetting
        Graph and edges (the objective holds the coefficients).
    epsilon : float
        Privacy level (validated).
    objective : LinearObjective or EpigraphObjective
        What is minimised.
    solver : str or None
        A solver named by the caller (kept, with its rescaled variant), or the policy's.
    vertex : bool
        Ask for a vertex (simplex only).
    reduce : bool
        Solve over the orbits of the mirror symmetry (a mirror-symmetric Bayesian path LP).
    accuracy : float
        Relative width of ``[lower_bound, value]`` below which no refinement is tried.

    Raises
    ------
    SolverError
        Every attempt of the first solve failed; the error lists them.
    """
    references = objective.references(setting, epsilon)
    scale = reference_scale(objective, references)
    reduction = MirrorReduction(setting.graph) if reduce else NoReduction(setting.graph)
    ctx = _Context(setting, epsilon, objective, reduction, solver, vertex)
    top = objective.top
    first = _solve(ctx, lambda s: top if s.rescaled and top > 0 else scale)
    used, best, lower = first, first.best, first.lower
    attempts = list(first.info.attempts)
    if relatively_wide(best.value, lower, accuracy):
        best, kept = compete(best, references, setting, epsilon, objective)
        attempts += kept
    if should_refine(best, lower, accuracy, scale, top):
        again, tried = _refine(ctx, best)
        attempts += tried
        if again is not None:
            lower = max(lower, again.lower)
            if again.best.value < best.value:
                used, best = again, again.best
    if relatively_wide(best.value, lower, accuracy):
        # A solver named by the caller (or a vertex) keeps its point: the other solver then
        # only tightens the bound.
        keep_point = ctx.solver is not None or ctx.vertex
        for other in _cross_check(ctx, best, scale, used.info.solver, attempts):
            lower = max(lower, other.lower)
            if not keep_point and other.best.value < best.value:
                used, best = other, other.best
    return Solved(
        best.mechanism,
        used.raw,
        used.best.unrepaired_value,
        best.certified_epsilon,
        _provenance(used, best, lower, attempts, accuracy),
        used.info,
    )


def _provenance(
    used: _Solve, best: Candidate, lower: float, attempts: list[Attempt], accuracy: float
) -> Provenance:
    return provenance_of(
        used.info,
        value=best.value,
        lower_bound=min(lower, best.value),
        build_time=used.build_time,
        attempts=attempts,
        source=best.source,
        accuracy=accuracy,
        violation_before=used.violation,
        repair=Repair(best.kind, best.weight, best.value - best.unrepaired_value),
    )
