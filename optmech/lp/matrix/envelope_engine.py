"""The solve path of the local LP: build, solve, repair within the constraints, certify, bound.

The same path solves the count-query and graph user LPs with constraints: given a
`NeighbourGraph`, privacy is ε-DP on its edges
(rows, closure, certificate, elastic LP) instead of ε-LDP on every pair
(`optmech.lp.user.constrained`).

1. **Scale.** The objective is divided by its value at the best constant answer (so the optimum
   is O(1)); the rescaled variant divides by its largest coefficient and writes the privacy rows
   ``e^(−ε) Q ≤ t`` (`optmech.lp.matrix.envelope`).
2. **Solve** through `optmech.lp.solve.solve_robust` with the
   count-LP policy (HiGHS on small LPs, Clarabel above: on the envelope LP at 60 x 600, ε = 1,
   Clarabel took 3 s, HiGHS's simplex 61 s and its interior point 18 s). Without constraints the
   LP is feasible by construction (the constant mechanism) and "infeasible" is numerical trouble,
   retried; with constraints an infeasible status is diagnosed by the elastic LP
   (`optmech.lp.matrix.diagnose`), whose error names the constraints
   at fault.
3. **Repair** within the constraints
   (`optmech.lp.matrix.envelope_repair`):
   envelope closure, then an exact correction of the rows' sums and (for ``Unbiased``) means.
   Every declarative constraint is then evaluated on the returned matrix. An interior-point
   point spreads mass ~1e-12 over every output; with an equality such as ``Unbiased`` the
   closure of those columns moves the rows' means by more than the correction can absorb
   without breaking ε. Then the point is **polished**: the LP restricted to the outputs the
   point uses (largest entry above 1e-6 of the largest) is solved for a vertex by simplex,
   whose entries sit exactly on their bounds (measured on 60 x 600 with ``Unbiased``, ε = 1:
   95 of the 600 outputs, 6 s, value within 1.1e-10 relative of the full LP's lower bound).
   If that fails too, the LP is **re-solved with a margin**: privacy at ``ε(1 − η)`` and every
   inequality's bound tightened by ``η`` of its scale, for ``η`` = 1e-9, 1e-7, 1e-5 in turn.
4. **Certify and bound.** The value is the objective at the returned mechanism, rounded up; the
   lower bound is Lagrangian, from the multipliers and the rows of the problem asked
   (`optmech.lp.matrix.envelope_bound`), rounded down; the
   mechanism's ε is
   certified over every pair of inputs by
   `certify_mechanism`.
5. **Cross-check** when the interval is wider than ``accuracy`` and the LP is small (at most
   `CROSS_CHECK_VARIABLES`): the other main solver solves the same LP; the better certified
   point and the larger bound are kept. (On larger LPs the other solver is simplex, which took
   450 s on the 60 x 600 unbiased LP.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import cvxpy as cp
import numpy as np

from optmech._floats import FloatArray
from optmech.constraints import RESIDUAL_TOL, Constraint, Custom, Monotone, Unbiased
from optmech.exceptions import InfeasibleConstraintsError, PrivacyViolationError, SolverError
from optmech.lp.engine.crosscheck import CROSS_CHECK, labelled
from optmech.lp.engine.interval import relatively_wide
from optmech.lp.engine.record import Solved
from optmech.lp.matrix.diagnose import diagnose_infeasible, least_slacks
from optmech.lp.matrix.envelope import LocalLP, Objective, build_local_lp, envelope_rows
from optmech.lp.matrix.envelope_bound import custom_rows, local_bound
from optmech.lp.matrix.envelope_repair import LocalRepair, envelope_closure, repair_local
from optmech.lp.matrix.envelope_setting import LocalSetting
from optmech.lp.matrix.neighbours import NeighbourGraph
from optmech.lp.matrix.objectives import exact_upper_dot
from optmech.lp.matrix.rows import Layout, RowFamily, constraint_rows, residual, residual_scale
from optmech.lp.solve import SolveInfo, Strategy, alternative_solvers, provenance_of, solve_robust
from optmech.provenance import Attempt, ConstraintRecord, Repair

__all__ = ["CROSS_CHECK_VARIABLES", "MARGINS", "POLISH_SUPPORT", "solve_local"]

#: Relative margins of the re-solves (step 3 of the module docstring).
MARGINS = (0.0, 1e-9, 1e-7, 1e-5)
#: An output is in the support polished by simplex when its column's largest entry is above
#: this fraction of the largest entry of the point.
POLISH_SUPPORT = 1e-6
#: Privacy margin of the polish, relative (at least 2e-11 absolute in ε): a simplex vertex
#: meets ``Q = e^ε t`` only to about 1e-12 relative (measured: certified ε 3.6e-12 above ε at
#: 60 x 95), which the margin absorbs without a closure (whose correction would move the means).
POLISH_MARGIN = 1e-10
#: Largest LP (variables) cross-checked by the other main solver (step 5).
CROSS_CHECK_VARIABLES = 20_000


@dataclass(frozen=True)
class _Problem:
    setting: LocalSetting
    epsilon: float
    objective: Objective
    layout: Layout
    declared: tuple[Constraint, ...]
    families: tuple[RowFamily, ...]
    custom: tuple[Custom, ...]
    scale: float
    vertex: bool = False
    graph: NeighbourGraph | None = None
    designer: str = "local_mechanism"

    @property
    def constrained(self) -> bool:
        return bool(self.declared or self.custom)

    @property
    def means(self) -> FloatArray | None:
        unbiased = any(isinstance(c, Unbiased) for c in self.declared)
        return self.setting.inputs if unbiased else None

    @property
    def allow_mixture(self) -> bool:
        return not self.custom and all(isinstance(c, Monotone) for c in self.declared)

    @property
    def privacy(self) -> str:
        return "ε-LDP" if self.graph is None else "ε-DP"

    def privacy_rows(self, layout: Layout, epsilon: float, rescaled: bool) -> list[RowFamily]:
        if self.graph is None:
            return list(envelope_rows(layout, epsilon, rescaled))
        return list(self.graph.rows(layout, epsilon, rescaled))

    def rows(self, epsilon: float, rescaled: bool) -> list[RowFamily]:
        return [*self.privacy_rows(self.layout, epsilon, rescaled), *self.families]

    def restricted(self, support: np.ndarray) -> _Problem:
        """The same problem on the outputs ``support`` only (no callables)."""
        base = self.setting
        setting = LocalSetting(
            base.inputs, base.outputs[support], base.loss[:, support], base.cost, base.prior
        )
        matrix = self.objective.matrix[:, support]
        objective = Objective(forms=matrix) if self.objective.minimax else Objective(weights=matrix)
        layout = Layout(base.num_inputs, support.size, self.layout.monotone)
        families = tuple(
            constraint_rows(c, setting, layout, designer=self.designer) for c in self.declared
        )
        return replace(
            self, setting=setting, objective=objective, layout=layout, families=families, custom=()
        )


@dataclass(frozen=True)
class _Run:
    lp: LocalLP
    factor: float
    rescaled: bool


@dataclass(frozen=True)
class _Candidate:
    mechanism: FloatArray
    value: float
    repair: LocalRepair
    raw: FloatArray
    lower: float
    info: SolveInfo
    violation: float
    build_time: float
    margin: float


def _upper_value(objective: Objective, mechanism: FloatArray) -> float:
    """The objective at ``mechanism`` rounded up (an upper bound on the exact value)."""
    if objective.minimax:
        return max(
            exact_upper_dot(row, q) for row, q in zip(objective.matrix, mechanism, strict=True)
        )
    return exact_upper_dot(objective.matrix, mechanism)


def _violation(problem: _Problem, lp: LocalLP) -> float:
    """Largest violation of the LP's rows (at ε, unmargined) by the solver's raw point."""
    z = lp.point()
    worst = max(0.0, -float(z.min()))
    n, m = problem.layout.num_inputs, problem.layout.num_outputs
    worst = max(worst, float(np.max(np.abs(z[: n * m].reshape(n, m).sum(axis=1) - 1.0))))
    for fam in problem.rows(problem.epsilon, False):
        gap = fam.matrix @ z - fam.rhs
        worst = max(worst, float(np.max(np.abs(gap) if fam.equality else gap, initial=0.0)))
    return worst


def _solve_once(
    problem: _Problem,
    margin: float,
    solver: str | None,
    vertex: bool = False,
    diagnose: bool = True,
) -> tuple[_Run, SolveInfo, float]:
    """One robust solve at the given margin (module docstring, steps 1–2); an infeasible
    constrained LP is diagnosed (`diagnose_infeasible`) when
    ``diagnose``."""
    build_time = [0.0]
    eps_lp = problem.epsilon * (1.0 - max(margin, 0.0))  # a negative margin loosens caps only
    top = float(np.max(problem.objective.matrix))

    def build(strategy: Strategy) -> tuple[cp.Problem, _Run]:
        start = time.perf_counter()
        factor = top if strategy.rescaled and top > 0 else problem.scale
        rows = problem.rows(eps_lp, strategy.rescaled)
        lp = build_local_lp(
            problem.objective,
            problem.layout,
            rows,
            factor=factor,
            margin=margin,
            custom=[c.function for c in problem.custom],
        )
        build_time[0] = time.perf_counter() - start
        return lp.problem, _Run(lp, factor, strategy.rescaled)

    try:
        run, info = solve_robust(
            build,
            num_variables=problem.layout.size,
            solver=solver,
            vertex=vertex,
            kind="count",
            feasible=not problem.constrained,
        )
    except SolverError as exc:
        if diagnose and problem.constrained and exc.status.startswith("infeasible"):
            raise diagnose_infeasible(
                problem.layout,
                problem.epsilon,
                list(problem.families),
                [c.function for c in problem.custom],
                solver=solver,
                privacy_rows=problem.privacy_rows,
                privacy=problem.privacy,
            ) from exc
        raise
    return run, info, build_time[0]


def _repaired(problem: _Problem, point: FloatArray) -> LocalRepair | None:
    """The repaired point, if it is certified and keeps every declarative constraint."""
    graph = problem.graph
    repaired = repair_local(
        point,
        problem.epsilon,
        problem.setting.outputs,
        problem.means,
        allow_mixture=problem.allow_mixture,
        closure=envelope_closure if graph is None else graph.closure,
        pairs=None if graph is None else graph.pairs,
    )
    if repaired.mechanism is None:
        return None
    if any(
        residual(c, problem.setting, repaired.mechanism) > RESIDUAL_TOL for c in problem.declared
    ):
        return None
    return repaired


def _polish_support(problem: _Problem, point: FloatArray) -> np.ndarray:
    """The outputs the polish keeps: those whose column's largest entry is above
    `POLISH_SUPPORT` of the point's largest and, under ``Unbiased``, the most used output below
    the smallest input and above the largest (at a large ε the debiasing outputs carry about
    ``e^(−ε)`` of the mass, below `POLISH_SUPPORT`, yet no row mean reaches the inputs' ends
    without them)."""
    heights = point.max(axis=0)
    keep = heights > POLISH_SUPPORT * float(heights.max())
    if problem.means is not None:
        outputs, inputs = problem.setting.outputs, problem.setting.inputs
        below, above = np.flatnonzero(outputs < inputs[0]), np.flatnonzero(outputs > inputs[-1])
        for nearest_first in (below[::-1], above):  # the tallest; among equals, the nearest
            if nearest_first.size and not np.any(keep[nearest_first]):
                keep[nearest_first[int(np.argmax(heights[nearest_first]))]] = True
    return np.flatnonzero(keep)


def _polish(
    problem: _Problem, margin: float, point: FloatArray
) -> tuple[LocalRepair, SolveInfo] | None:
    """Step 3's polish: a simplex vertex of the LP restricted to the point's support (solved with
    a privacy margin of at least `POLISH_MARGIN`), embedded in the full output grid (``None``
    when it does not help or fails)."""
    support = _polish_support(problem, point)
    if problem.custom or support.size in (0, problem.setting.num_outputs):
        return None
    sub = problem.restricted(support)
    at = max(margin, POLISH_MARGIN, 2e-11 / problem.epsilon)
    try:
        run, info, _ = _solve_once(sub, at, None, vertex=True, diagnose=False)
    except SolverError:
        return None
    repaired = _repaired(sub, run.lp.mechanism())
    if repaired is None or repaired.mechanism is None:
        return None
    full = np.zeros((problem.setting.num_inputs, problem.setting.num_outputs))
    full[:, support] = repaired.mechanism
    if any(residual(c, problem.setting, full) > RESIDUAL_TOL for c in problem.declared):
        return None
    return replace(repaired, mechanism=full), info


def _candidate(
    problem: _Problem,
    margin: float,
    solver: str | None,
    attempts: list[Attempt],
    bounds: list[float],
) -> _Candidate | None:
    """Solve at ``margin``, bound (appended to ``bounds`` even when the point is not kept),
    repair (polishing when needed), check the constraints; ``None`` if no point kept them (the
    caller re-solves with a larger margin)."""
    run, info, build_time = _solve_once(problem, margin, solver, problem.vertex)
    attempts += [_relabel(a, margin, "") for a in info.attempts]
    extra, extra_duals = custom_rows(run.lp.custom, run.lp.z)
    lower = local_bound(
        problem.objective,
        problem.layout,
        [*problem.rows(problem.epsilon, run.rescaled), *extra],
        [*run.lp.duals(), *extra_duals],
        factor=run.factor,
        epigraph=run.lp.epigraph_duals(),
    )
    bounds.append(lower)
    point = run.lp.mechanism()
    repaired = _repaired(problem, point)
    used = info
    if repaired is None:
        polished = _polish(problem, margin, np.clip(point, 0.0, None))
        if polished is None:
            return None
        repaired, used = polished
        attempts += [_relabel(a, margin, "polish on the support") for a in used.attempts]
    assert repaired.mechanism is not None
    raw = np.clip(point, 0.0, None)
    raw /= np.maximum(raw.sum(axis=1, keepdims=True), 1e-300)
    return _Candidate(
        mechanism=repaired.mechanism,
        value=_upper_value(problem.objective, repaired.mechanism),
        repair=repaired,
        raw=raw,
        lower=max(bounds),
        info=replace(used, attempts=tuple(attempts)),
        violation=_violation(problem, run.lp),
        build_time=build_time,
        margin=margin,
    )


def _with_margins(problem: _Problem, solver: str | None, attempts: list[Attempt]) -> _Candidate:
    """Step 3: the first margin whose repaired (or polished) point keeps every constraint; its
    bound is the largest of the margins' bounds (each is valid for the problem asked)."""
    bounds: list[float] = []
    caps = [fam.name for fam in problem.families if not fam.equality]
    failure: Exception | None = None
    for margin in MARGINS:
        try:
            found = _candidate(problem, margin, solver, attempts, bounds)
        except InfeasibleConstraintsError as exc:
            if margin == 0.0 or not caps:
                raise
            failure = exc  # the bounds tightened by the margin admit nothing
            break
        except SolverError as exc:
            if not caps:
                raise
            failure = exc
            if margin == 0.0:  # a cap at its least value, to the solvers' resolution
                found = _loosened(problem, solver, attempts, bounds)
                if found is not None:
                    return found
                if _least_slack(problem, solver) is None:
                    raise  # the elastic LP fails too: the solvers' trouble, not the cap's
            break
        if found is not None:
            return found
    names = ", ".join(c.name for c in problem.declared) or "privacy"
    if caps:
        capped = " and ".join(caps)
        if isinstance(failure, SolverError) and not bounds:
            how = (
                f"every solver failed on the LP, with {capped} as given and loosened by "
                f"{0.5 * RESIDUAL_TOL:g} (relative)"
            )
        else:
            how = "the LP meets them, but no repair of its point keeps them once certified"
        raise InfeasibleConstraintsError(
            f"no {problem.privacy} mechanism (ε = {problem.epsilon:g}) was found that keeps "
            f"{names} within the tolerance {RESIDUAL_TOL:g} (relative): {how}. The bound of "
            f"{capped} lies below, or within about {MARGINS[-1]:g} (relative) of, the least "
            f"value any mechanism reaches. Relax {capped} by {MARGINS[-1]:g} relative or more.",
            constraints=tuple(caps),
        ) from failure
    raise PrivacyViolationError(
        f"no repair of the solver's point kept {names} within {RESIDUAL_TOL:g} and "
        f"{problem.privacy}, even "
        f"after re-solving with a margin of {MARGINS[-1]:g}; try solver=... or a coarser grid."
    )


def _least_slack(problem: _Problem, solver: str | None) -> float | None:
    """The least relative amount by which the caller's constraints must give way over private
    mechanisms (the elastic LP of `optmech.lp.matrix.diagnose`);
    None when no solver solves that either."""
    try:
        slacks = least_slacks(
            problem.layout,
            problem.epsilon,
            list(problem.families),
            solver,
            problem.privacy_rows,
        )
    except SolverError:
        return None
    return max(slacks, default=0.0)


def _loosened(
    problem: _Problem, solver: str | None, attempts: list[Attempt], bounds: list[float]
) -> _Candidate | None:
    """The caps loosened by half the tolerance `RESIDUAL_TOL` (privacy untouched): a cap
    within the solvers' resolution of the least value any mechanism reaches leaves an LP on
    the edge of feasibility, on which the solvers fail; the loosened LP is not, and its
    repaired point, checked against the caps as asked, meets them within the tolerance (or
    is not kept). Its Lagrangian bound is that of the problem asked, as every bound here."""
    try:
        return _candidate(problem, -0.5 * RESIDUAL_TOL, solver, attempts, bounds)
    except (SolverError, InfeasibleConstraintsError):
        return None


def _relabel(attempt: Attempt, margin: float, step: str) -> Attempt:
    parts = [p for p in (step, f"margin {margin:g}" if margin else "", attempt.variant) if p]
    return Attempt(
        attempt.solver, ", ".join(parts), attempt.status, attempt.seconds, attempt.message
    )


def _records(problem: _Problem, best: _Candidate) -> tuple[ConstraintRecord, ...]:
    out = [
        ConstraintRecord(
            c.name,
            c.kind,
            residual(c, problem.setting, best.mechanism),
            residual_scale(c, problem.setting),
        )
        for c in problem.declared
    ]
    if problem.custom:
        out += _custom_records(problem, best.mechanism)
    return tuple(out)


def _custom_records(problem: _Problem, mechanism: FloatArray) -> list[ConstraintRecord]:
    """The callables' constraints evaluated at the returned mechanism (absolute violation)."""
    n, m = mechanism.shape
    z = cp.Variable(problem.layout.size)
    value = np.zeros(problem.layout.size)
    value[: n * m] = mechanism.ravel()
    value[problem.layout.envelope] = mechanism.min(axis=0)
    if problem.layout.monotone:
        value[problem.layout.cumulative] = np.cumsum(mechanism[:-1] - mechanism[1:], axis=1).ravel()
    z.value = value
    from types import SimpleNamespace

    namespace = SimpleNamespace(
        mechanism=cp.reshape(z[: n * m], (n, m), order="C"), envelope=z[problem.layout.envelope]
    )
    records = []
    for item in problem.custom:
        found = item.function(namespace)
        worst = max((float(np.max(c.violation())) for c in found), default=0.0)
        records.append(ConstraintRecord(item.name, "custom", worst, 1.0))
    return records


def _cross_check(problem: _Problem, best: _Candidate, attempts: list[Attempt]) -> _Candidate:
    """Step 5: the other main solver at the same margin; the better point, the larger bound."""
    lower = best.lower
    for name in alternative_solvers(best.info.solver):
        tried: list[Attempt] = []
        try:
            other = _candidate(problem, best.margin, name, tried, [best.lower])
        except SolverError as exc:
            tried += [a for a in exc.attempts if isinstance(a, Attempt)]
            other = None
        attempts += labelled(tried, CROSS_CHECK)
        if other is None:
            continue
        lower = max(lower, other.lower)
        if other.value < best.value:
            best = other
    return replace(best, lower=lower, info=replace(best.info, attempts=tuple(attempts)))


def solve_local(
    setting: LocalSetting,
    epsilon: float,
    objective: Objective,
    constraints: tuple[Constraint, ...],
    *,
    solver: str | None,
    accuracy: float,
    vertex: bool = False,
    graph: NeighbourGraph | None = None,
    designer: str = "local_mechanism",
) -> Solved:
    """Solve the envelope LP with the caller's constraints and certify it (module docstring);
    ``vertex`` asks for a simplex vertex (the polish then keeps its support).

    With a ``graph``, privacy is ε-DP on its edges instead of ε-LDP
    (`NeighbourGraph`: the user LPs with
    constraints); ``designer`` names the public function in error messages."""
    declared = tuple(c for c in constraints if not isinstance(c, Custom))
    custom = tuple(c for c in constraints if isinstance(c, Custom))
    layout = Layout(
        setting.num_inputs,
        setting.num_outputs,
        monotone=any(isinstance(c, Monotone) for c in declared),
    )
    families = tuple(constraint_rows(c, setting, layout, designer=designer) for c in declared)
    constant = np.zeros((setting.num_inputs, setting.num_outputs))
    constant[:, int(np.argmin(objective.matrix.sum(axis=0)))] = 1.0
    top = float(np.max(objective.matrix))
    scale = max(objective.value(constant), top * 1e-6) or 1.0
    problem = _Problem(
        setting,
        epsilon,
        objective,
        layout,
        declared,
        families,
        custom,
        scale,
        vertex,
        graph,
        designer,
    )
    attempts: list[Attempt] = []
    best = _with_margins(problem, solver, attempts)
    if (
        relatively_wide(best.value, best.lower, accuracy)
        and layout.size <= CROSS_CHECK_VARIABLES
        and not vertex
    ):
        best = _cross_check(problem, best, attempts)
    prov = provenance_of(
        best.info,
        value=best.value,
        lower_bound=min(best.lower, best.value),
        build_time=best.build_time,
        attempts=best.info.attempts,
        accuracy=accuracy,
        violation_before=best.violation,
        repair=Repair(
            best.repair.kind,
            best.repair.weight,
            best.value - objective.value(best.raw),
        ),
        constraints=_records(problem, best),
    )
    return Solved(
        mechanism=best.mechanism,
        raw_mechanism=best.raw,
        raw_value=objective.value(best.raw),
        certified_epsilon=best.repair.certified_epsilon,
        provenance=prov,
        info=best.info,
    )
