"""The solve path of the local LP: build, solve, repair within the constraints, certify, bound.

The same path solves the count-query and graph user LPs with constraints: given a
`NeighbourGraph`, privacy is ε-DP on its edges (rows, closure, certificate, elastic LP) instead
of ε-LDP on every pair (`optmech.lp.user.constrained`).

1. **Scale.** The objective is divided by its value at the best constant answer (so the optimum
   is O(1)); the rescaled variant divides by its largest coefficient and writes the privacy rows
   ``e^(−ε) Q ≤ t`` (`optmech.lp.matrix.envelope`).
2. **Solve** through the certified loop (`optmech.lp.engine.certified`) with the count-LP
   policy (HiGHS on small LPs, Clarabel above: on the envelope LP at 60 x 600, ε = 1, Clarabel
   took 3 s, HiGHS's simplex 61 s and its interior point 18 s). Without constraints the LP is
   feasible by construction (the constant mechanism) and "infeasible" is numerical trouble,
   retried; with constraints an infeasible status is diagnosed by the elastic LP
   (`_least_slacks`), whose error names the constraints at fault.
3. **Repair** within the constraints (`optmech.lp.matrix.repair.repair_local`): envelope
   closure, then an exact correction of the rows' sums and (for ``Unbiased``) means. Every
   declarative constraint is then evaluated on the returned matrix. An interior-point point
   spreads mass ~1e-12 over every output; with an equality such as ``Unbiased`` the closure of
   those columns moves the rows' means by more than the correction can absorb without breaking
   ε. Then the point is **polished**: the LP restricted to the outputs the point uses (largest
   entry above 1e-6 of the largest) is solved for a vertex by simplex, whose entries sit
   exactly on their bounds (measured on 60 x 600 with ``Unbiased``, ε = 1: 95 of the 600
   outputs, 6 s, value within 1.1e-10 relative of the full LP's lower bound). If that fails
   too, the LP is **re-solved with a margin**: privacy at ``ε(1 − η)`` and every inequality's
   bound tightened by ``η`` of its scale, for ``η`` = 1e-9, 1e-7, 1e-5 in turn.
4. **Certify and bound.** The value is the objective at the returned mechanism, rounded up; the
   lower bound is Lagrangian, from the multipliers and the rows of the problem asked
   (`optmech.lp.matrix.envelope.local_bound`), rounded down; the mechanism's ε is certified
   over every pair of inputs by `certify_mechanism`.
5. **Cross-check** (the loop's) when the interval is wider than ``accuracy`` and the LP is small
   (at most `CROSS_CHECK_VARIABLES`): the other main solver solves the same LP; the better
   certified point and the larger bound are kept. (On larger LPs the other solver is simplex,
   which took 450 s on the 60 x 600 unbiased LP.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cvxpy as cp
import numpy as np

from optmech._floats import FloatArray
from optmech.constraints import RESIDUAL_TOL, Constraint, Custom, Monotone, Unbiased
from optmech.exceptions import InfeasibleConstraintsError, PrivacyViolationError, SolverError
from optmech.lp.engine.certified import (
    CertifiedLP,
    NotCertified,
    Outcome,
    Policy,
    certified_solve,
    solve_uncertified,
)
from optmech.lp.engine.crosscheck import CROSS_CHECK, labelled
from optmech.lp.engine.record import Solved
from optmech.lp.matrix.envelope import (
    LocalLP,
    Objective,
    build_local_lp,
    custom_rows,
    custom_variables,
    envelope_rows,
    local_bound,
    simplex_rows,
)
from optmech.lp.matrix.envelope_setting import LocalSetting
from optmech.lp.matrix.neighbours import NeighbourGraph
from optmech.lp.matrix.objectives import exact_upper_dot
from optmech.lp.matrix.repair import RepairOutcome, envelope_closure, repair_local
from optmech.lp.matrix.rows import Layout, RowFamily, constraint_rows, residual, residual_scale
from optmech.lp.solve import SolveInfo, Strategy, provenance_of
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
#: A slack of the elastic LP below this (relative to the rows' O(1) scale) is solver noise.
SLACK_TOL = 1e-7


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
        rows = envelope_rows if self.graph is None else self.graph.rows
        return list(rows(layout, epsilon, rescaled))

    def rows(self, epsilon: float, rescaled: bool) -> list[RowFamily]:
        return [*self.privacy_rows(self.layout, epsilon, rescaled), *self.families]

    def restricted(self, support: np.ndarray) -> _Problem:
        """The same problem on the outputs ``support`` only (no callables)."""
        base = self.setting
        setting = replace(base, outputs=base.outputs[support], loss=base.loss[:, support])
        matrix = self.objective.matrix[:, support]
        objective = Objective(forms=matrix) if self.objective.minimax else Objective(weights=matrix)
        layout = Layout(base.num_inputs, support.size, self.layout.monotone)
        families = tuple(
            constraint_rows(c, setting, layout, designer=self.designer) for c in self.declared
        )
        return replace(
            self, setting=setting, objective=objective, layout=layout, families=families, custom=()
        )


def _least_slacks(
    problem: _Problem, families: tuple[RowFamily, ...], solver: str | None
) -> list[float]:
    """The elastic LP: every row of ``families`` gets a slack and the total slack is minimised
    over private mechanisms (the privacy rows and the rows' sums stay hard; the problem is
    feasible: the constant mechanism). Returns the largest slack each family needs there."""
    layout = problem.layout

    def build(strategy: Strategy) -> tuple[cp.Problem, list[cp.Variable]]:
        z = cp.Variable(layout.size, nonneg=True)
        privacy = problem.privacy_rows(layout, problem.epsilon, strategy.rescaled)
        cons = [fam.matrix @ z <= 0 for fam in privacy]
        cons.append(simplex_rows(layout) @ z == 1)
        slacks = []
        for fam in families:
            s = cp.Variable(fam.rhs.size, nonneg=True)
            slacks.append(s)
            expr = fam.matrix @ z - fam.rhs
            cons += [expr <= s, -s <= expr] if fam.equality else [expr <= s]
        total = sum((cp.sum(s) for s in slacks), cp.Constant(0.0))
        return cp.Problem(cp.Minimize(total), cons), slacks

    slacks, _ = solve_uncertified(
        build, num_variables=layout.size, solver=solver, kind="count", feasible=True
    )
    return [float(np.max(s.value)) if s.value is not None else 0.0 for s in slacks]


def _diagnosed(problem: _Problem, solver: str | None) -> InfeasibleConstraintsError:
    """The error to raise for an infeasible constrained LP, naming the constraints at fault.

    The constraints whose rows keep a positive slack in the elastic LP (`_least_slacks`) cannot
    all hold together. One that admits no private mechanism on its own is named alone, with the
    least amount (relative, its rows being O(1)) by which it must give way; otherwise the
    constraints are named together (and the callables, when the declared ones hold together).
    """
    families, privacy = problem.families, problem.privacy
    names = tuple(f.name for f in families)
    where = f"(ε = {problem.epsilon:g}) on these outputs"
    try:
        alone = [(f.name, _least_slacks(problem, (f,), solver)[0]) for f in families]
        together = max(_least_slacks(problem, families, solver), default=0.0) if families else 0.0
    except SolverError as exc:
        return InfeasibleConstraintsError(
            f"the constraints {', '.join(names) or 'given'} admit no {privacy} mechanism {where} "
            f"(the solver could not locate the conflict: {exc}).",
            constraints=names or ("custom",),
        )
    guilty = [(name, v) for name, v in alone if v > SLACK_TOL]
    if guilty:
        parts = [f"{name} alone (off by at least {v:.3g}, relative)" for name, v in guilty]
        text = (
            f"no {privacy} mechanism {where} meets {'; '.join(parts)}. Relax "
            f"{'it' if len(parts) == 1 else 'them'}, widen the outputs or raise ε."
        )
        return InfeasibleConstraintsError(text, constraints=tuple(n for n, _ in guilty))
    if together > SLACK_TOL or not problem.custom:
        text = (
            f"each constraint holds alone, but {' and '.join(names)} admit no {privacy} mechanism "
            f"together {where}. Relax one of them, widen the outputs or raise ε."
        )
        return InfeasibleConstraintsError(text, constraints=names)
    text = (
        f"the callables' constraints admit no {privacy} mechanism {where}"
        + (f" together with {', '.join(names)}" if names else "")
        + "."
    )
    return InfeasibleConstraintsError(text, constraints=(*names, "custom"))


@dataclass(frozen=True)
class _Run:
    lp: LocalLP
    factor: float
    rescaled: bool


@dataclass(frozen=True)
class _Local:
    """A repaired point that keeps every declarative constraint, and the polish's solve when
    the polish found it."""

    repair: RepairOutcome
    polish: SolveInfo | None = None


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
    worst = max(0.0, -float(z.min()), float(np.max(np.abs(lp.mechanism().sum(axis=1) - 1.0))))
    for fam in problem.rows(problem.epsilon, False):
        gap = fam.matrix @ z - fam.rhs
        worst = max(worst, float(np.max(np.abs(gap) if fam.equality else gap, initial=0.0)))
    return worst


class _LocalLP(CertifiedLP[_Run, FloatArray, _Local]):
    """The envelope LP at a margin (module docstring, steps 1–4) as hooks of the certified loop
    (`optmech.lp.engine.certified`). An infeasible constrained LP is diagnosed
    (`_diagnosed`) when ``diagnose``; ``floor`` is the largest bound found at smaller
    margins (each valid for the problem asked)."""

    kind = "count"

    def __init__(
        self, problem: _Problem, margin: float, floor: float = -math.inf, diagnose: bool = True
    ) -> None:
        self.problem, self.margin, self.floor, self.diagnose = problem, margin, floor, diagnose
        self.num_variables = problem.layout.size
        self.feasible = not problem.constrained
        self.label = f"margin {margin:g}" if margin else ""
        self.polished: list[Attempt] = []  # the attempts of a polish that was kept
        self.checked: _LocalLP | None = None

    def build(self, strategy: Strategy) -> tuple[cp.Problem, _Run]:
        problem = self.problem
        eps_lp = problem.epsilon * (1.0 - max(self.margin, 0.0))  # a negative one loosens caps
        top = float(np.max(problem.objective.matrix))
        factor = top if strategy.rescaled and top > 0 else problem.scale
        lp = build_local_lp(
            problem.objective,
            problem.layout,
            problem.rows(eps_lp, strategy.rescaled),
            factor=factor,
            margin=self.margin,
            custom=[c.function for c in problem.custom],
        )
        return lp.problem, _Run(lp, factor, strategy.rescaled)

    def solve(self, solver: str | None, vertex: bool) -> tuple[_Run, SolveInfo, float]:
        try:
            return super().solve(solver, vertex)
        except SolverError as exc:
            if self.diagnose and self.problem.constrained and exc.status.startswith("infeasible"):
                raise _diagnosed(self.problem, solver) from exc
            raise

    def read(self, built: _Run) -> FloatArray:
        return built.lp.mechanism()

    def repair(self, point: FloatArray) -> _Local | None:
        """The repaired point, else the polished one (step 3); None if neither keeps the
        constraints (the caller re-solves with a larger margin)."""
        repaired = _repaired(self.problem, point)
        if repaired is not None:
            return _Local(repaired)
        polished = _polish(self.problem, self.margin, np.clip(point, 0.0, None))
        if polished is not None and polished.polish is not None:
            step = "polish on the support"
            self.polished += [_relabel(a, self.margin, step) for a in polished.polish.attempts]
        return polished

    def certify(self, candidate: _Local) -> float:
        return _upper_value(self.problem.objective, candidate.repair.mechanism)

    def bound(self, built: _Run, point: FloatArray) -> float:
        problem, lp = self.problem, built.lp
        extra, extra_duals = custom_rows(lp.custom, lp.z)
        lower = local_bound(
            problem.objective,
            problem.layout,
            [*problem.rows(problem.epsilon, built.rescaled), *extra],
            [*lp.duals(), *extra_duals],
            factor=built.factor,
            epigraph=lp.epigraph_duals(),
        )
        return max(lower, self.floor)

    def cross_checked(self, value: float) -> _LocalLP:
        self.checked = _LocalLP(self.problem, self.margin, self.floor)
        return self.checked


def _repaired(problem: _Problem, point: FloatArray) -> RepairOutcome | None:
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
    if repaired is None or any(
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


def _polish(problem: _Problem, margin: float, point: FloatArray) -> _Local | None:
    """Step 3's polish: a simplex vertex of the LP restricted to the point's support (solved with
    a privacy margin of at least `POLISH_MARGIN`), embedded in the full output grid (``None``
    when it does not help or fails)."""
    support = _polish_support(problem, point)
    if problem.custom or support.size in (0, problem.setting.num_outputs):
        return None
    sub = problem.restricted(support)
    at = max(margin, POLISH_MARGIN, 2e-11 / problem.epsilon)
    try:
        run, info, _ = _LocalLP(sub, at, diagnose=False).solve(None, True)
    except SolverError:
        return None
    repaired = _repaired(sub, run.lp.mechanism())
    if repaired is None:
        return None
    full = np.zeros((problem.setting.num_inputs, problem.setting.num_outputs))
    full[:, support] = repaired.mechanism
    if any(residual(c, problem.setting, full) > RESIDUAL_TOL for c in problem.declared):
        return None
    return _Local(replace(repaired, mechanism=full), info)


def _at_margin(
    problem: _Problem, margin: float, policy: Policy, attempts: list[Attempt], bounds: list[float]
) -> Outcome[_Run, FloatArray, _Local] | None:
    """The certified loop at ``margin``; its bound is appended to ``bounds`` even when no point
    kept the constraints (then ``None``: the caller re-solves with a larger margin)."""
    lp = _LocalLP(problem, margin, max(bounds, default=-math.inf))
    try:
        out = certified_solve(lp, policy)
    except NotCertified as exc:
        attempts += exc.attempts
        bounds.append(exc.lower)
        return None
    checked = [a for a in out.attempts if a.variant.startswith(CROSS_CHECK)]
    attempts += [a for a in out.attempts if not a.variant.startswith(CROSS_CHECK)]
    attempts += [*lp.polished, *checked]
    if lp.checked is not None:
        attempts += labelled(lp.checked.polished, CROSS_CHECK)
    bounds.append(out.lower)
    return out


def _with_margins(
    problem: _Problem, policy: Policy, attempts: list[Attempt]
) -> Outcome[_Run, FloatArray, _Local]:
    """Step 3: the first margin whose repaired (or polished) point keeps every constraint; its
    bound is the largest of the margins' bounds (each is valid for the problem asked)."""
    bounds: list[float] = []
    caps = [fam.name for fam in problem.families if not fam.equality]
    failure: Exception | None = None
    for margin in MARGINS:
        try:
            found = _at_margin(problem, margin, policy, attempts, bounds)
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
                found = _loosened(problem, policy, attempts, bounds)
                if found is not None:
                    return found
                if not _elastic_solves(problem, policy.solver):
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
        f"{problem.privacy}, even after re-solving with a margin of {MARGINS[-1]:g}; try "
        "solver=... or a coarser grid."
    )


def _elastic_solves(problem: _Problem, solver: str | None) -> bool:
    """Whether a solver solves the elastic LP (`_least_slacks`)."""
    try:
        _least_slacks(problem, problem.families, solver)
    except SolverError:
        return False
    return True


def _loosened(
    problem: _Problem, policy: Policy, attempts: list[Attempt], bounds: list[float]
) -> Outcome[_Run, FloatArray, _Local] | None:
    """The caps loosened by half the tolerance `RESIDUAL_TOL` (privacy untouched): a cap
    within the solvers' resolution of the least value any mechanism reaches leaves an LP on
    the edge of feasibility, on which the solvers fail; the loosened LP is not, and its
    repaired point, checked against the caps as asked, meets them within the tolerance (or
    is not kept). Its Lagrangian bound is that of the problem asked, as every bound here."""
    try:
        return _at_margin(problem, -0.5 * RESIDUAL_TOL, policy, attempts, bounds)
    except (SolverError, InfeasibleConstraintsError):
        return None


def _relabel(attempt: Attempt, margin: float, step: str) -> Attempt:
    parts = [p for p in (step, f"margin {margin:g}" if margin else "", attempt.variant) if p]
    return replace(attempt, variant=", ".join(parts))


def _records(problem: _Problem, mechanism: FloatArray) -> tuple[ConstraintRecord, ...]:
    """Each declared constraint's residual at ``mechanism`` and each callable's largest
    (absolute) violation."""
    layout, setting = problem.layout, problem.setting
    out = [
        ConstraintRecord(
            c.name, c.kind, residual(c, setting, mechanism), residual_scale(c, setting)
        )
        for c in problem.declared
    ]
    z = cp.Variable(layout.size)
    value = layout.on_z(mechanism)
    value[layout.envelope] = mechanism.min(axis=0)
    if layout.monotone:
        value[layout.cumulative] = np.cumsum(mechanism[:-1] - mechanism[1:], axis=1).ravel()
    z.value = value
    for item in problem.custom:
        found = item.function(custom_variables(layout, z))
        worst = max((float(np.max(c.violation())) for c in found), default=0.0)
        out.append(ConstraintRecord(item.name, "custom", worst, 1.0))
    return tuple(out)


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

    With a ``graph``, privacy is ε-DP on its edges instead of ε-LDP (`NeighbourGraph`: the user
    LPs with constraints); ``designer`` names the public function in error messages."""
    declared = tuple(c for c in constraints if not isinstance(c, Custom))
    custom = tuple(c for c in constraints if isinstance(c, Custom))
    monotone = any(isinstance(c, Monotone) for c in declared)
    layout = Layout(setting.num_inputs, setting.num_outputs, monotone)
    families = tuple(constraint_rows(c, setting, layout, designer=designer) for c in declared)
    constant = np.zeros((setting.num_inputs, setting.num_outputs))
    constant[:, int(np.argmin(objective.matrix.sum(axis=0)))] = 1.0
    scale = max(objective.value(constant), float(np.max(objective.matrix)) * 1e-6) or 1.0
    problem = _Problem(
        setting, epsilon, objective, layout, declared, families, custom, scale, graph, designer
    )
    attempts: list[Attempt] = []
    policy = Policy(
        solver=solver,
        vertex=vertex,
        accuracy=accuracy,
        cross_check=layout.size <= CROSS_CHECK_VARIABLES and not vertex,
        keep_point=False,
    )
    outcome = _with_margins(problem, policy, attempts)
    best, used = outcome.best.candidate, outcome.used
    raw = np.clip(used.point, 0.0, None)
    raw /= np.maximum(raw.sum(axis=1, keepdims=True), 1e-300)
    info = replace(best.polish or used.info, attempts=tuple(attempts))
    value = outcome.best.value
    prov = provenance_of(
        info,
        value=value,
        lower_bound=min(outcome.lower, value),
        build_time=used.build_time,
        attempts=info.attempts,
        accuracy=accuracy,
        violation_before=_violation(problem, used.built.lp),
        repair=Repair(best.repair.kind, best.repair.weight, value - objective.value(raw)),
        constraints=_records(problem, best.repair.mechanism),
    )
    return Solved(
        mechanism=best.repair.mechanism,
        raw_mechanism=raw,
        raw_value=objective.value(raw),
        certified_epsilon=best.repair.certified_epsilon,
        provenance=prov,
        info=info,
    )
