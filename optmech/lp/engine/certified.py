"""The certified solve: the one loop of every LP whose answer optmech certifies.

An LP family writes what is its own as the hooks of a `CertifiedLP` (in the spirit of
scipy.stats' ``_pdf`` methods), and `certified_solve` runs the loop that every family shares:

1. **Solve** robustly (`optmech.lp.solve.solve_robust`: as built, rescaled, then the other
   solver), each attempt's problem from ``build``;
2. **read** the point, **repair** it into exact feasibility, **certify** the repaired point
   independently (a candidate the certificate rejects is never returned) and **bound** the
   optimum from below (weak duality with the solver's multipliers);
3. **rounds**: while ``next_round`` poses a new or extended LP (column generation, cutting
   planes), solve that one; every round's bound holds for the LP asked, so the largest is kept;
4. **compete** when the certified interval ``[lower_bound, value]`` is wider than asked
   (`relatively_wide`): the known candidates are repaired and certified the same way, and the
   better certified point is kept;
5. **refine** when it is still wide and ``refined`` poses the LP again (e.g. its objective
   divided by the current value): the better point and the larger bound are kept;
6. **cross-check** when it is still wide: the other main solver solves the LP
   (`optmech.lp.engine.crosscheck`); the larger bound is kept, and its point unless the caller
   named a solver or asked for a vertex (`Policy.keep_point`).

Every attempt, round, refinement and cross-check is logged and counted (`optmech.lp.engine.report`)
and its attempts recorded, those after the first labelled ``"round k, …"``, ``"refined, …"``,
``"cross-check, …"``; `Outcome.provenance` assembles the result's `Provenance`.

Hooks
-----
``build(strategy) -> (problem, built)``
    The cvxpy problem of one solver attempt (`Strategy`: as built or rescaled, which solver)
    and what the other hooks read from it (variables, constraints, scale).
``read(built) -> point``
    The solver's point, in the LP's own units.
``repair(point) -> candidate or None``
    The point made exactly feasible (None: no repair).
``certify(candidate) -> value or None``
    The objective at the candidate, rounded up, if an independent certificate accepts it
    (None: rejected).
``bound(built, point) -> float``
    A rigorous lower bound on the optimum (e.g. Lagrangian, from the multipliers).
``known() -> [(label, point), ...]``
    Points known without a solver, to compete (optional; none by default).
``next_round(solve) -> CertifiedLP or None``, ``refined(value)``, ``cross_checked(value)``
    A further round, a refined LP and the LP the other solver solves (optional: none, none,
    the LP itself).
``solve(solver, vertex) -> (built, info, build seconds)``
    The solve itself (optional: an LP solved otherwise, e.g. by column generation, overrides
    it; the default is `optmech.lp.solve.solve_robust` over ``build``).

`solve_uncertified` and `solve_problem` are the doors for the LPs whose answer is checked
elsewhere (the elastic LP that names conflicting constraints, the textbook solves of the theorem
catalogue): outside `optmech.lp.engine` no module calls the solver door itself.

Examples
--------
>>> import cvxpy as cp
>>> class Tiny(CertifiedLP[cp.Variable, float, float]):
...     '''min x subject to x ≥ 1, x ≥ 0 (optimum 1).'''
...     num_variables = 1
...     def build(self, strategy):
...         x = cp.Variable(nonneg=True)
...         return cp.Problem(cp.Minimize(x), [x >= 1]), x
...     def read(self, built):
...         return float(built.value)
...     def repair(self, point):
...         return max(point, 1.0)
...     def certify(self, candidate):
...         return candidate if candidate >= 1.0 else None
...     def bound(self, built, point):
...         return 1.0
>>> out = certified_solve(Tiny())
>>> out.best.value, out.lower
(1.0, 1.0)
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import cvxpy as cp

from optmech.exceptions import PrivacyViolationError, SolverError
from optmech.lp.engine.crosscheck import cross_check, labelled
from optmech.lp.engine.interval import relatively_wide
from optmech.lp.engine.report import stage
from optmech.lp.solve import ProblemKind, SolveInfo, Strategy, provenance_of, solve, solve_robust
from optmech.provenance import DEFAULT_ACCURACY, Attempt, Provenance

__all__ = [
    "Certified",
    "CertifiedLP",
    "NotCertified",
    "Outcome",
    "Policy",
    "Solve",
    "certified_solve",
    "compete",
    "solve_problem",
    "solve_uncertified",
]

B = TypeVar("B")  # what a build hands back to the other hooks
P = TypeVar("P")  # the point read out
C = TypeVar("C")  # a repaired candidate
T = TypeVar("T")

#: The source of a known point that wins (computed without a solver).
KNOWN = ("none", "exact")


@dataclass(frozen=True)
class Certified(Generic[C]):
    """A candidate the certificate accepted, its certified value and its source
    (``(solver, status)``; ``("none", "exact")`` for a known point)."""

    candidate: C
    value: float
    source: tuple[str, str]


@dataclass(frozen=True)
class Solve(Generic[B, P, C]):
    """One solve of the loop: what was built, the point read, its certified repair (None when
    rejected), the lower bound, the solve's record and the seconds of its last build."""

    built: B
    point: P
    best: Certified[C] | None
    lower: float
    info: SolveInfo
    build_time: float


class NotCertified(PrivacyViolationError):
    """No candidate passed the certificate; carries the lower bound and the attempts made."""

    def __init__(self, message: str, lower: float, attempts: Sequence[Attempt]) -> None:
        super().__init__(message)
        self.lower = lower
        self.attempts = tuple(attempts)


class CertifiedLP(Generic[B, P, C]):
    """An LP family's pieces (module docstring, *Hooks*); `certified_solve` owns the loop.

    Attributes
    ----------
    num_variables : int
        Scalar variables of the LP (the solver policy's size).
    kind : str
        The LP family of `optmech.lp.solve.SOLVER_POLICY`.
    feasible : bool
        Feasible and bounded by construction ("infeasible" is numerical trouble, retried).
    label : str
        Put before the variant of this LP's attempts (empty: none).
    """

    num_variables: int = 0
    kind: ProblemKind = "generic"
    feasible: bool = True
    label: str = ""

    def build(self, strategy: Strategy) -> tuple[cp.Problem, B]:
        """The problem of one attempt and what the other hooks read."""
        raise NotImplementedError

    def read(self, built: B) -> P:
        """The solver's point."""
        raise NotImplementedError

    def repair(self, point: P) -> C | None:
        """The point made exactly feasible, or None."""
        raise NotImplementedError

    def certify(self, candidate: C) -> float | None:
        """The certified value of ``candidate`` (rounded up), or None when rejected."""
        raise NotImplementedError

    def bound(self, built: B, point: P) -> float:
        """A rigorous lower bound on the optimum."""
        raise NotImplementedError

    def known(self) -> Iterable[tuple[str, P]]:
        """Points known without a solver, labelled, to compete with the LP's."""
        return ()

    def next_round(self, solve: Solve[B, P, C]) -> CertifiedLP[B, P, C] | None:
        """The LP of a further round after ``solve`` (None: no more rounds)."""
        return None

    def refined(self, value: float) -> CertifiedLP[B, P, C] | None:
        """The LP posed again to tighten a wide interval at ``value`` (None: not worth it)."""
        return None

    def cross_checked(self, value: float) -> CertifiedLP[B, P, C]:
        """The LP the other main solver solves in a cross-check."""
        return self

    def solve(self, solver: str | None, vertex: bool) -> tuple[B, SolveInfo, float]:
        """Solve robustly over `build`: what was built, the record, the last build's seconds."""
        seconds = [0.0]

        def build(strategy: Strategy) -> tuple[cp.Problem, B]:
            start = time.perf_counter()
            out = self.build(strategy)
            seconds[0] = time.perf_counter() - start
            return out

        built, info = solve_robust(
            build,
            num_variables=self.num_variables,
            solver=solver,
            vertex=vertex,
            kind=self.kind,
            feasible=self.feasible,
        )
        return built, info, seconds[0]


@dataclass(frozen=True)
class Policy:
    """How `certified_solve` runs.

    Attributes
    ----------
    solver : str or None
        A solver named by the caller (kept, with its rescaled variant), or the policy's.
    vertex : bool
        Ask for a vertex (simplex only).
    accuracy : float
        Relative width of ``[lower_bound, value]`` above which the loop works further.
    cross_check : bool
        Cross-check a wide interval with the other main solver.
    keep_point : bool
        The cross-check only tightens the bound (default: when a solver is named or a vertex asked).
    """

    solver: str | None = None
    vertex: bool = False
    accuracy: float = DEFAULT_ACCURACY
    cross_check: bool = True
    keep_point: bool | None = None


@dataclass
class Outcome(Generic[B, P, C]):
    """What `certified_solve` found: the best certified candidate, the largest lower bound,
    the solve in use (whose point won, or the last one) and every attempt."""

    best: Certified[C]
    lower: float
    used: Solve[B, P, C]
    attempts: list[Attempt] = field(default_factory=list)

    def provenance(self, **fields: Any) -> Provenance:
        """The result's `Provenance` (the interval ``[min(lower, value), value]``, the solve in
        use, the attempts, the winner's source) with the caller's further ``fields``."""
        return provenance_of(
            self.used.info,
            value=self.best.value,
            lower_bound=min(self.lower, self.best.value),
            build_time=self.used.build_time,
            attempts=self.attempts,
            source=self.best.source,
            **fields,
        )


def _accepted(lp: CertifiedLP[B, P, C], point: P, source: tuple[str, str]) -> Certified[C] | None:
    """``point`` repaired and certified, or None when either step rejects it."""
    candidate = lp.repair(point)
    if candidate is None:
        return None
    value = lp.certify(candidate)
    return None if value is None else Certified(candidate, value, source)


def _solve(lp: CertifiedLP[B, P, C], solver: str | None, vertex: bool) -> Solve[B, P, C]:
    built, info, build_time = lp.solve(solver, vertex)
    if lp.label:
        info = dataclasses.replace(info, attempts=tuple(labelled(info.attempts, lp.label)))
    point = lp.read(built)
    best = _accepted(lp, point, (info.solver, info.status))
    return Solve(built, point, best, lp.bound(built, point), info, build_time)


def _better(best: Certified[C] | None, other: Certified[C] | None) -> bool:
    return other is not None and (best is None or other.value < best.value)


def compete(
    lp: CertifiedLP[B, P, C], best: Certified[C] | None
) -> tuple[Certified[C] | None, list[Attempt]]:
    """The best certified point among ``best`` and the LP's known points; a known point that
    wins is recorded as an attempt with solver ``"none"`` and status ``"exact"``."""
    kept: list[Attempt] = []
    for label, point in lp.known():
        start = time.perf_counter()
        other = _accepted(lp, point, KNOWN)
        if _better(best, other):
            best = other
            kept = [Attempt("none", label, "exact", time.perf_counter() - start)]
    return best, kept


def certified_solve(lp: CertifiedLP[B, P, C], policy: Policy = Policy()) -> Outcome[B, P, C]:
    """Run the certified loop on ``lp`` (module docstring, steps 1–6).

    Raises
    ------
    SolverError
        Every attempt of the first solve failed (the error lists them).
    NotCertified
        Neither the LP's point nor a known point passed the certificate.
    """
    used = _solve(lp, policy.solver, policy.vertex)
    best, lower = used.best, used.lower
    attempts = list(used.info.attempts)
    current, k = lp, 1
    while (following := current.next_round(used)) is not None:
        current, k = following, k + 1
        with stage("round", number=k):
            used = _solve(current, policy.solver, policy.vertex)
        attempts += labelled(used.info.attempts, f"round {k}")
        lower = max(lower, used.lower)
        if _better(best, used.best):
            best = used.best

    accuracy = policy.accuracy
    if best is None or relatively_wide(best.value, lower, accuracy):
        best, kept = compete(current, best)
        attempts += kept
    if best is None:
        raise NotCertified("no point passed the certificate", lower, attempts)
    again = current.refined(best.value) if relatively_wide(best.value, lower, accuracy) else None
    if again is not None:
        try:
            with stage("refine", divisor=best.value):
                other = _solve(again, policy.solver, policy.vertex)
        except SolverError as exc:
            attempts += labelled(exc.attempts, "refined")
        else:
            attempts += labelled(other.info.attempts, "refined")
            lower = max(lower, other.lower)
            if other.best is not None and other.best.value < best.value:
                used, best = other, other.best
    if policy.cross_check and relatively_wide(best.value, lower, accuracy):
        keep = policy.keep_point
        keep = (policy.solver is not None or policy.vertex) if keep is None else keep
        checked = current.cross_checked(best.value)
        others, tried = cross_check(
            used.info.solver,
            lambda name: _solve(checked, name, policy.vertex),
            lambda s: s.info.attempts,
        )
        attempts += tried
        for other in others:
            lower = max(lower, other.lower)
            if not keep and other.best is not None and other.best.value < best.value:
                used, best = other, other.best
    return Outcome(best, lower, used, attempts)


def solve_uncertified(
    build: Callable[[Strategy], tuple[cp.Problem, T]],
    *,
    num_variables: int,
    kind: ProblemKind = "generic",
    solver: str | None = None,
    vertex: bool = False,
    feasible: bool = True,
) -> tuple[T, SolveInfo]:
    """Solve an LP robustly whose answer is checked elsewhere or needs no certificate (module
    docstring): `optmech.lp.solve.solve_robust` with the same arguments."""
    return solve_robust(
        build,
        num_variables=num_variables,
        solver=solver,
        vertex=vertex,
        kind=kind,
        feasible=feasible,
    )


def solve_problem(
    problem: cp.Problem, *, kind: ProblemKind = "generic", solver: str | None = None
) -> SolveInfo:
    """Solve a built problem once, in place, whose answer is checked elsewhere (module
    docstring): `optmech.lp.solve.solve`; raises `SolverError` unless it ends optimal."""
    return solve(problem, kind=kind, solver=solver)
