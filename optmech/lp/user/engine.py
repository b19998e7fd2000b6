"""The one solve path of every user LP: build, solve robustly, invert, repair, certify.

`solve_user_lp` is the private engine behind
`bayesian_mechanism`,
`minimax_mechanism` and
`common_mechanism`; what differs between them is the objective
object (`optmech.lp.matrix.objectives`).

1. **Scale.** The objective is divided by its value at the best known ε-DP mechanism (the best
   constant answer; for a count query the geometric mechanism with the Bayes remap), so the
   optimum is O(1).
2. **Solve** through the certified loop (`optmech.lp.engine.certified`; ``feasible=True``: these
   LPs are feasible — the constant mechanism — and bounded below by 0, so
   "infeasible"/"unbounded" are numerical trouble and are retried, never reported). The builder
   reads the strategy, never a solver's name: an interior-point solver gets ``X ≥ 0`` on the
   first row only; the rescaled variant divides the objective by its largest coefficient (all ≤
   1) and writes each privacy row as ``e^(−ε) x_a ≤ x_b`` (largest coefficient 1). Measured on
   60 count LPs (ε ∈ {30, 50}, n ≤ 60, |e|, e² and 0-1, uniform and random priors, objective ÷
   largest weight): Clarabel ended "optimal" on all 60 in this form; with the balanced rows
   ``e^(−ε/2) x_a ≤ e^(ε/2) x_b`` 20 ended optimal, 20 inaccurate and 20 failed (at ε = 50: 14
   solver errors, 6 iteration limits). HiGHS solved 59 of the 60 with balanced rows, and every
   rescaled HiGHS attempt at ε = 50 (n ≤ 60, the three losses, both priors) in this form.
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

import functools
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import cvxpy as cp

from optmech._floats import FloatArray
from optmech.lp.engine.certified import CertifiedLP, Outcome, Policy, certified_solve
from optmech.lp.engine.record import Solved
from optmech.lp.engine.report import stage
from optmech.lp.matrix.build import Bounds, Duals, LPForm, RowScaling, UserLP
from optmech.lp.matrix.objectives import Objective, Reference, reference_scale
from optmech.lp.matrix.repair import RepairOutcome, clip_normalise, max_violation, repair_point
from optmech.lp.matrix.setting import UserSetting
from optmech.lp.solve import Strategy
from optmech.lp.user.reductions import IdentityInverse, MirrorInverse, MirrorReduction, NoReduction
from optmech.provenance import Repair

__all__ = ["Solved", "solve_user_lp"]

_log = logging.getLogger(__name__)

B = TypeVar("B")


@dataclass
class _Run:
    lp: UserLP
    inverse: IdentityInverse | MirrorInverse
    factor: float

    @functools.cached_property
    def inverted(self) -> tuple[FloatArray, Duals]:
        """The point and multipliers of the full LP (the reduction inverted)."""
        return self.inverse.invert(self.lp.point(), self.lp.duals())


@dataclass(frozen=True)
class Candidate:
    """A certified mechanism (how the point was repaired) and the objective at it and at the
    point it was repaired from."""

    repaired: RepairOutcome
    value: float
    unrepaired_value: float


class MatrixHooks(CertifiedLP[B, FloatArray, Candidate], Generic[B]):
    """The hooks every user LP shares (`optmech.lp.engine.certified`): the repair
    (`repair_point`), the certificate (``certified ε ≤ ε``, the objective rounded up), the known
    mechanisms and the refined LP (module docstring, step 5)."""

    kind = "count"

    def __init__(
        self,
        setting: UserSetting,
        epsilon: float,
        objective: Objective,
        references: Callable[[], Iterable[Reference]],
        scale: float,
    ) -> None:
        self.setting, self.epsilon, self.objective = setting, epsilon, objective
        self.references, self.scale = references, scale

    def repair(self, point: FloatArray) -> Candidate:
        s = self.setting
        outcome = repair_point(point, self.epsilon, s.src, s.dst, s.is_path)
        return Candidate(
            outcome, self.objective.value(outcome.mechanism), self.objective.value(point)
        )

    def certify(self, candidate: Candidate) -> float | None:
        return candidate.value if candidate.repaired.certified_epsilon <= self.epsilon else None

    def known(self) -> Iterable[tuple[str, FloatArray]]:
        return [(f"known ε-DP mechanism: {r.name}", r.mechanism) for r in self.references()]

    def refined(self, value: float) -> CertifiedLP[B, FloatArray, Candidate] | None:
        """The LP with its objective divided by ``value``, when that value is positive (at
        least 1e-12 of the largest weight, so coefficients stay below 1e12) and not already
        the scale solved at."""
        if value < 1e-12 * self.objective.top or 0.5 <= self.scale / value <= 2.0:
            return None
        return self.at(value)

    def at(self, factor: float) -> CertifiedLP[B, FloatArray, Candidate]:
        """The same LP with its objective divided by ``factor``."""
        raise NotImplementedError


class _UserLP(MatrixHooks[_Run]):
    """A user LP built by cvxpy (the strategy decides bounds, row scaling and, through
    ``factor_of``, the objective's divisor), its reduction inverted."""

    def __init__(
        self,
        base: MatrixHooks[Any],
        reduction: NoReduction | MirrorReduction,
        factor_of: Callable[[Strategy], float],
    ) -> None:
        super().__init__(base.setting, base.epsilon, base.objective, base.references, base.scale)
        self.reduction, self.factor_of = reduction, factor_of
        n_in, n_out = self.objective.shape
        extra = 0 if self.objective.kind == "bayesian" else 1  # the epigraph variable
        self.num_variables = n_in * n_out + extra

    def build(self, strategy: Strategy) -> tuple[cp.Problem, _Run]:
        with stage("build", _log) as found:
            factor = self.factor_of(strategy)
            form = LPForm(
                bounds=Bounds.FIRST_ROW if strategy.interior_point else Bounds.ALL,
                scaling=RowScaling.NORMALISED if strategy.rescaled else RowScaling.PLAIN,
            )
            lp, inverse = self.reduction.apply(self.objective.data(factor), self.epsilon, form)
            found.update(_counts(lp))
        return lp.problem, _Run(lp, inverse, factor)

    def read(self, built: _Run) -> FloatArray:
        return clip_normalise(built.inverted[0])

    def bound(self, built: _Run, point: FloatArray) -> float:
        duals = built.inverted[1]
        return self.objective.lower_bound(duals, built.lp.coefficients, built.factor, self.setting)

    def at(self, factor: float) -> _UserLP:
        return _UserLP(self, self.reduction, lambda _strategy: factor)

    def cross_checked(self, value: float) -> _UserLP:
        return self.at(value if value > 0 else self.scale)


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


def solved(outcome: Outcome[B, FloatArray, Candidate], accuracy: float, **fields: object) -> Solved:
    """The `Solved` of a certified loop's outcome (provenance with the repair record)."""
    best, used = outcome.best.candidate, outcome.used
    assert used.best is not None
    r = best.repaired
    repair = Repair(r.kind, r.weight, best.value - best.unrepaired_value)
    provenance = outcome.provenance(accuracy=accuracy, repair=repair, **fields)
    unrepaired = used.best.candidate.unrepaired_value
    return Solved(r.mechanism, used.point, unrepaired, r.certified_epsilon, provenance, used.info)


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
    """Solve one user LP and certify the result (module docstring: steps 1–6).

    ``solver`` is one named by the caller (kept, with its rescaled variant) or ``None`` (the
    policy's); ``vertex`` asks for a vertex (simplex only); ``reduce`` solves over the orbits of
    the mirror symmetry (a mirror-symmetric Bayesian path LP); ``accuracy`` is the relative
    width of ``[lower_bound, value]`` below which no refinement is tried.

    Raises
    ------
    SolverError
        Every attempt of the first solve failed; the error lists them.
    """
    references = objective.references(setting, epsilon)
    scale = reference_scale(objective, references)
    reduction = MirrorReduction(setting.graph) if reduce else NoReduction(setting.graph)
    base: MatrixHooks[Any] = MatrixHooks(setting, epsilon, objective, lambda: references, scale)
    top = objective.top
    lp = _UserLP(base, reduction, lambda s: top if s.rescaled and top > 0 else scale)
    outcome = certified_solve(lp, Policy(solver=solver, vertex=vertex, accuracy=accuracy))
    violation = max_violation(outcome.used.built.inverted[0], epsilon, setting.src, setting.dst)
    return solved(outcome, accuracy, violation_before=violation)
