"""The one place optmech calls an LP solver: solver choice, options, status, timings.

Builders elsewhere in `optmech.lp` return cvxpy problems and stay solver-agnostic; they pass the
problem here. Solver status is data (cvxpy's convention): ``optimal`` is kept,
``optimal_inaccurate`` is kept with an `InaccurateSolutionWarning`, anything else raises
`SolverError` naming the solver, the status and a remedy. Default tolerances are tighter than the
solvers' own (measured, see the performance page: optimal values here can be 1e-4 and entries e^-45,
so an absolute 1e-7 tolerance is too loose).
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

import cvxpy as cp
import numpy as np

from optmech._validation import describe
from optmech.exceptions import SolverError
from optmech.lp.engine.report import reporting, stage
from optmech.lp.solver_output import quiet_highs_banner, solver_log
from optmech.provenance import Attempt, Provenance

__all__ = [
    "CONIC_SOLVERS",
    "INCREMENTAL_SOLVER",
    "MAIN_SOLVERS",
    "SOLVER_POLICY",
    "ProblemKind",
    "SolveInfo",
    "Strategy",
    "alternative_solvers",
    "attempt_plan",
    "available_solvers",
    "choose_solver",
    "default_options",
    "provenance_of",
    "quiet_incremental_solver",
    "solve",
    "solve_robust",
]

T = TypeVar("T")

_log = logging.getLogger(__name__)

#: The LP families of `SOLVER_POLICY`.
ProblemKind = Literal["generic", "additive", "additive2d", "gdp", "count", "remap", "conic"]

#: Solvers optmech knows how to tune, in order of preference.
KNOWN_SOLVERS = ("HIGHS", "CLARABEL", "SCS", "ECOS", "GLPK", "GUROBI", "MOSEK", "CPLEX")

#: Interior-point solvers: their points lie inside the feasible set, never at a vertex, and
#: builders may drop bounds that the other constraints imply (they cost them cone rows).
_INTERIOR_POINT = frozenset({"CLARABEL", "SCS", "ECOS", "MOSEK"})
#: Simplex solvers, for vertex (basic) solutions.
_SIMPLEX = ("HIGHS",)

#: The solvers optmech's policy chooses from and falls back between (measured on every LP
#: family, docs/performance.md); others are used only when named.
MAIN_SOLVERS = ("HIGHS", "CLARABEL")

#: Solvers of conic (power- and exponential-cone) problems, in order of preference: the LP-only
#: solvers (HiGHS) cannot take them, so a conic problem falls back within this list.
CONIC_SOLVERS = ("CLARABEL",)

#: Tight tolerances for each solver (measured: the performance page).
_OPTIONS: dict[str, dict[str, Any]] = {
    "HIGHS": {
        "primal_feasibility_tolerance": 1e-10,
        "dual_feasibility_tolerance": 1e-10,
    },
    "CLARABEL": {
        "tol_gap_abs": 1e-10,
        "tol_gap_rel": 1e-10,
        "tol_feas": 1e-10,
        "max_iter": 500,
        # Clarabel 0.11's default ("auto") picks the faer supernodal LDL; on the additive LP's
        # banded KKT systems QDLDL is 2.5x faster (m = 1000, 20 periods: 17 s vs 42 s, the
        # same 32 iterations and optimum) and on the GRS LP as fast (n = 400: 10.0 s vs
        # 10.6 s). Measured by benchmarks/additive.py and grs.py (docs/performance.md).
        "direct_solve_method": "qdldl",
    },
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000},
}

#: Per-kind adjustments of ``_OPTIONS`` (applied before the caller's ``options``, and only
#: from the size in `_KIND_OPTIONS_FROM` where that names one). Measured and rejected:
#: ``tol_feas = 1e-9`` for Clarabel on the GRS LP (its primal residual stalls near 1e-10 at
#: n = 200, so half the iterations are spent there) saves 20-40% (n = 800: 62 s against 76 s)
#: but the certified value's gap to the GRS optimum grows from 4e-9 to 5e-7 at n = 800
#: (docs/performance.md).
_KIND_OPTIONS: dict[tuple[str, str], dict[str, Any]] = {
    # The minimax remap LP multiplies a mechanism into the rows: entries down to e^-45 (the
    # geometric mechanism at large n ε). HiGHS drops coefficients below 1e-9 by default, which
    # changes the LP; keep them down to 1e-12.
    ("remap", "HIGHS"): {"small_matrix_value": 1e-12},
    # The 2-D additive LP has ~9x more rows than columns, so dual simplex works with a basis
    # of all its rows: ℓ∞ ball, ε = 1, 20 cells per Δ, 4 periods (39k columns, 336k rows):
    # 53k iterations, 185-305 s on 2 shared cores. HiGHS's interior point (which dualizes
    # it) without crossover: 41 iterations, 46 s to a relative gap of 1e-10; the three more
    # iterations to 1e-12 cost 28 s. The certificate needs no vertex: its lower bound is weak
    # duality with any multipliers (benchmarks/additive2d.py).
    ("additive2d", "HIGHS"): {
        "highs_options": {"solver": "ipm"},
        "run_crossover": "off",
        "ipm_optimality_tolerance": 1e-10,
    },
}

#: The number of variables from which an entry of `_KIND_OPTIONS` applies (below it, the
#: solver's defaults). 2-D additive LPs, ε = 1, 4 periods, the three balls, solve seconds
#: inside HiGHS, two runs each (``python -m benchmarks --quick --only additive2d``): 150-170
#: variables, interior point 6.5-9.5 ms against dual simplex 4 ms; 750-920, 49-64 ms against
#: 54-60 ms; 1,800-2,200, 207-243 ms against 307-369 ms.
_KIND_OPTIONS_FROM: dict[tuple[str, str], int] = {("additive2d", "HIGHS"): 1_000}

_HINTS = {
    "infeasible": "the constraints admit no mechanism: check the privacy level, the support "
    "and the class flags (symmetric/monotone) for a contradiction",
    "unbounded": "the objective is unbounded below: is the cost negative somewhere?",
    "infeasible_inaccurate": "the solver could not decide feasibility: try solver='HIGHS' or a "
    "coarser resolution",
    "unbounded_inaccurate": "the solver could not decide boundedness: try another solver",
    "solver_error": "try another solver (solver='HIGHS' or solver='CLARABEL') or a smaller problem",
    "user_limit": "the solver hit a time or iteration limit: give it more, or shrink the problem",
}


@dataclass(frozen=True)
class SolveInfo:
    """The record of one LP solve, as `solve` and `solve_robust` return it.

    Results do not carry it: each LP result holds a `Provenance` (`provenance_of` builds it from
    this record, the certified interval and the repair).

    Attributes
    ----------
    solver : str
        cvxpy's name of the solver used.
    status : str
        ``"optimal"`` or ``"optimal_inaccurate"`` (anything else raised).
    objective : float
        The solver's reported objective (callers should re-evaluate at the returned point).
    solve_time : float
        Seconds inside the solver, as the solver reports it (wall time if it reports none).
    compile_time : float
        Seconds cvxpy spent canonicalising the problem.
    total_time : float
        Wall-clock seconds of the whole ``problem.solve`` call.
    iterations : int or None
        Solver iterations, when reported.
    num_variables, num_constraints : int
        Scalar variables and scalar constraints of the problem as built.
    options : dict
        The options passed to the solver.
    attempts : tuple of optmech.provenance.Attempt
        Every attempt of `solve_robust`, the successful one last (just this one for `solve`).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from optmech.lp.solve import solve
    >>> x = cp.Variable(2, nonneg=True)
    >>> info = solve(cp.Problem(cp.Minimize(x[0] + 2 * x[1]), [x[0] + x[1] >= 1]))
    >>> info.status, round(info.objective, 6)
    ('optimal', 1.0)
    """

    solver: str
    status: str
    objective: float
    solve_time: float
    compile_time: float
    total_time: float
    iterations: int | None
    num_variables: int
    num_constraints: int
    options: dict[str, Any] = field(default_factory=dict)
    attempts: tuple[Attempt, ...] = ()


def provenance_of(
    info: SolveInfo,
    *,
    value: float,
    lower_bound: float,
    build_time: float,
    attempts: tuple[Attempt, ...] | list[Attempt] | None = None,
    source: tuple[str, str] | None = None,
    **fields: Any,
) -> Provenance:
    """The `Provenance` of a result computed from the solve ``info``.

    The solve gives the solver and status (unless ``source`` names another point's, e.g. a
    known mechanism that won), the attempts (``info.attempts`` unless given), timings, sizes
    and options; the caller gives the certified interval and the build time, and any further
    field (``accuracy``, ``violation_before``, ``violation_after``, ``repair``).
    """
    tried = tuple(info.attempts if attempts is None else attempts)
    solver, status = source if source is not None else (info.solver, info.status)
    return Provenance(
        solver=solver,
        status=status,
        attempts=tried,
        value=value,
        lower_bound=lower_bound,
        build_time=build_time,
        compile_time=info.compile_time,
        solve_time=info.solve_time,
        total_time=sum(a.seconds for a in tried) or info.total_time,
        iterations=info.iterations,
        num_variables=info.num_variables,
        num_constraints=info.num_constraints,
        options=dict(info.options),
        **fields,
    )


def available_solvers() -> list[str]:
    """The LP solvers cvxpy can use on this machine, in optmech's order of preference.

    Examples
    --------
    >>> solvers = available_solvers()
    >>> "HIGHS" in solvers and solvers[0] == "HIGHS"  # HiGHS comes with optmech, and is preferred
    True
    """
    installed = set(cp.installed_solvers())
    return [s for s in KNOWN_SOLVERS if s in installed]


def default_options(
    solver: str, kind: ProblemKind = "generic", num_variables: int | None = None
) -> dict[str, Any]:
    """optmech's default options for ``solver`` (a copy; empty for solvers it does not tune).

    ``kind`` (a key of `SOLVER_POLICY`) adds that family's adjustments, as `solve`
    does; the default ``"generic"`` has none. Some adjustments pay only on large LPs: given
    ``num_variables``, those are left out below their size (without it, they are included).
    """
    key = (kind, solver.upper())
    opts = dict(_OPTIONS.get(solver.upper(), {}))
    if num_variables is None or num_variables >= _KIND_OPTIONS_FROM.get(key, 0):
        opts.update(_KIND_OPTIONS.get(key, {}))
    return opts


#: Default solver by problem kind: ``(largest size for the first solver, first, above)``.
#: Sizes are numbers of scalar variables. Each LP family owns its row; the numbers behind each
#: choice are in ``docs/performance.md`` and the benchmarks.
SOLVER_POLICY: dict[str, tuple[int, str, str]] = {
    "generic": (50_000, "HIGHS", "CLARABEL"),
    # Additive-noise LPs (optmech.lp.additive): the crossover measured by
    # benchmarks/crossover.py (python -m benchmarks --only crossover; 2 shared cores, each
    # design 3 times in fresh processes, HiGHS and Clarabel alternated; in-process design time,
    # median). It depends on the periods and the cost, not on the size alone. At the default
    # 3 periods Clarabel is as fast or faster from about 2,000 variables (|e| and e²,
    # ε = 0.5-3; m = 400, 5,200 variables: 0.3-0.9 s against 1.2-2.5 s). At 20 periods it is
    # faster from 3,200 variables for |e| (m = 200, 12,800 variables: 2.2 s against 11.5 s),
    # but for e² it ends "inaccurate" after many iterations and is 3-4.6x slower up to 6,400
    # variables (m = 100: 21 s against 7 s), faster only at 12,800 (11 s against 23 s). So
    # HiGHS up to 10,000 variables, Clarabel above: the size from which Clarabel was faster
    # in every group, which bounds the worst loss measured at 2.8x (2.4 s). Both solvers'
    # certified intervals contain the other's value in every case (HiGHS's are ~1e-10 wide,
    # Clarabel's up to 1e-6, relative). Measured again at 20 periods, ε = 1, one run of each
    # alternated (load 8-14): |e| at 6,400 / 9,600 / 12,800 variables, Clarabel / HiGHS
    # 0.32 / 0.50 / 0.14; e² 2.72 / 1.45 / 0.39. So a lower threshold would help |e| and cost
    # e² up to 2.7x; the threshold stays where Clarabel is faster for both.
    "additive": (10_000, "HIGHS", "CLARABEL"),
    # 2-D additive LPs (optmech.lp.additive2d: window rows over the cells' orbits, many more
    # rows than variables), measured on 2 shared cores (benchmarks/additive2d.py): HiGHS is
    # faster and exact where Clarabel ends with a wide certified interval (ℓ∞ ball, ε = 1,
    # 16 cells per Δ, 4 periods, 24k variables, 181k rows: HiGHS 86 s, relative gap 4e-9;
    # Clarabel 151 s, relative gap 3.9e-6). HiGHS at every size; Clarabel is the fallback.
    "additive2d": (10**9, "HIGHS", "CLARABEL"),
    # Gaussian-DP cutting-plane rounds (optmech.lp.additive.beyond: a hockey-stick block per
    # pair and cut ε), measured on 2 shared cores (μ = 1, |e|, 8 cells per Δ, 7 periods, the
    # first round's 24 cuts): HiGHS 5.2 s, Clarabel 32 s, the same lower bound to 1e-6. HiGHS
    # at every size; Clarabel is the fallback.
    "gdp": (10**9, "HIGHS", "CLARABEL"),
    # Count/user LPs (optmech.lp.user, measured on 2 shared cores, benchmarks/grs.py):
    # HiGHS simplex returns exact vertices (gap to the GRS optimum ~1e-16) but slows sharply
    # with n and at small ε (n = 70, ε = 0.1: 2.5 s vs Clarabel 0.5 s; n = 150: 34 s vs 3.5 s);
    # Clarabel's points, after the lower-closure repair, are within ~1e-8 of the optimum.
    # HiGHS up to n = 50 (51² variables, +1 for a minimax epigraph), Clarabel above.
    "count": (2_700, "HIGHS", "CLARABEL"),
    # The minimax remap LP (optmech.lp.remap): small, dense rows; the generic choice.
    "remap": (50_000, "HIGHS", "CLARABEL"),
    # Rényi / zCDP designs: power and exponential cones, which only Clarabel takes.
    "conic": (2**62, "CLARABEL", "CLARABEL"),
}


def choose_solver(
    num_variables: int, *, vertex: bool = False, kind: ProblemKind = "generic"
) -> str:
    """Pick a solver for an LP of the given size and kind.

    Vertex solutions (needed to read a constraint pattern or remap off an optimum, GRS Lemmas
    5.9–5.11) come from simplex: HiGHS. Otherwise `SOLVER_POLICY` decides by the number of variables
    (interior point scales better on the large dense-ish LPs; measured on the performance page).
    """
    solvers = available_solvers()
    if not solvers:
        raise SolverError(
            "none", "unavailable", "install highspy or clarabel (pip install optmech)"
        )
    if kind not in SOLVER_POLICY:
        raise ValueError(f"`kind` must be one of {sorted(SOLVER_POLICY)}; got {kind!r}.")
    limit, small, large = SOLVER_POLICY[kind]
    preferred = _SIMPLEX[0] if vertex else (small if num_variables <= limit else large)
    return preferred if preferred in solvers else solvers[0]


def _normalise_solver(
    solver: str | None, num_variables: int, vertex: bool, kind: ProblemKind
) -> str:
    if solver is None:
        return choose_solver(num_variables, vertex=vertex, kind=kind)
    if not isinstance(solver, str):
        raise TypeError(f"`solver` must be a solver name such as 'HIGHS'; got {describe(solver)}.")
    name = solver.upper()
    solvers = available_solvers()
    if name not in solvers:
        raise ValueError(
            f"`solver` must be one of {solvers} (installed LP solvers); got {solver!r}."
        )
    return name


def solve(
    problem: cp.Problem,
    *,
    solver: str | None = None,
    vertex: bool = False,
    options: dict[str, Any] | None = None,
    verbose: bool = False,
    kind: ProblemKind = "generic",
) -> SolveInfo:
    """Solve ``problem`` in place and return its provenance; raise unless the status is optimal.

    Parameters
    ----------
    problem : cvxpy.Problem
        A built LP.
    solver : str, optional
        cvxpy solver name; chosen by `choose_solver` when omitted.
    vertex : bool
        Whether a vertex (basic) solution is needed; steers the default to simplex.
    options : dict, optional
        Solver options overriding optmech's defaults for that solver.
    verbose : bool
        Log this solve at INFO to stderr (`optmech.lp.engine.report`). The solver's own log goes to
        the logger ``"optmech.lp.solve"`` at DEBUG, whenever that level is enabled.
    kind : str
        Problem family for the default solver choice (a key of `SOLVER_POLICY`).

    Returns
    -------
    SolveInfo
        ``optimal_inaccurate`` is kept without a warning: callers certify the point
        independently and warn only when the certified interval is too wide
        (`optmech.provenance.warn_if_uncertified`).

    Raises
    ------
    SolverError
        When the solver fails or returns a status other than optimal/optimal_inaccurate.
    """
    num_variables = sum(v.size for v in problem.variables())
    num_constraints = sum(c.size for c in problem.constraints)
    name = _normalise_solver(solver, num_variables, vertex, kind)
    opts = default_options(name, kind, int(num_variables))
    if vertex and name in _SIMPLEX:
        # HiGHS's own "solver" option clashes with cvxpy's keyword; pass it nested.
        opts["highs_options"] = {"solver": "simplex"}
    if options:
        opts.update(options)
    with reporting(verbose=verbose):
        start = time.perf_counter()
        try:
            _run_solver(problem, name, opts)
        except cp.error.SolverError as exc:
            raise SolverError(name, "solver_error", f"{_HINTS['solver_error']} ({exc})") from exc
        except ValueError as exc:
            # cvxpy raises ValueError("Cannot unpack invalid solution ...") when a solver ends with
            # a status it does not map (HiGHS "unknown" on badly scaled LPs): solver trouble, not
            # bad input.
            if "solution" not in str(exc).lower():
                raise
            ending = _highs_ending(problem, opts) if name == "HIGHS" else None
            status = "unknown" if ending is None else f"unknown ({ending})"
            raise SolverError(name, status, f"{_HINTS['solver_error']} ({exc})") from exc
        total = time.perf_counter() - start
    status = str(problem.status)
    if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        decided = status in ("infeasible", "unbounded", "infeasible_or_unbounded")
        ending = _highs_ending(problem, opts) if name == "HIGHS" and not decided else None
        hint = _HINTS.get(status, _HINTS["solver_error"])
        raise SolverError(name, status if ending is None else f"{status} ({ending})", hint)
    stats = problem.solver_stats
    compile_time = float(problem.compilation_time or 0.0)
    solve_time = stats.solve_time if stats is not None and stats.solve_time is not None else None
    return SolveInfo(
        solver=name,
        status=status,
        objective=float(problem.value),
        solve_time=float(solve_time) if solve_time is not None else max(total - compile_time, 0.0),
        compile_time=compile_time,
        total_time=total,
        iterations=None if stats is None else stats.num_iters,
        num_variables=int(num_variables),
        num_constraints=int(num_constraints),
        options=opts,
        attempts=(Attempt(name, "as built", status, total),),
    )


def _run_solver(problem: cp.Problem, name: str, opts: dict[str, Any]) -> None:
    """``problem.solve`` with the solver's log on DEBUG when that is enabled, else silent."""
    with warnings.catch_warnings(), contextlib.ExitStack() as stack:
        # cvxpy's own "Solution may be inaccurate" warning: the status is handled below
        # (InaccurateSolutionWarning or SolverError), so it would only be said twice.
        warnings.filterwarnings(
            "ignore", message="Solution may be inaccurate", category=UserWarning
        )
        logged = False
        with contextlib.suppress(OSError):  # no file descriptor 1 to redirect (an embedding host)
            if _log.isEnabledFor(logging.DEBUG):
                stack.enter_context(solver_log(name))
                logged = True
        if name == "HIGHS" and not logged:
            quiet_highs_banner()
        problem.solve(solver=name, verbose=logged, **opts)


#: Why HiGHS stopped, by its model status (what the status alone does not say).
_HIGHS_ENDINGS = {
    "kTimeLimit": "its time limit",
    "kIterationLimit": "its iteration limit",
    "kSolveError": "numerical trouble in the solve",
    "kPostsolveError": "numerical trouble in postsolve",
    "kPresolveError": "numerical trouble in presolve",
    "kMemoryLimit": "its memory limit",
    "kInterrupt": "an interrupt",
}


def _highs_ending(problem: cp.Problem, opts: dict[str, Any]) -> str | None:
    """Why a HiGHS solve ended, from its model status and info (cvxpy keeps the last run's in
    the problem's solver cache), or None when they are not at hand.

    An interior-point run without crossover that stops short of ``ipm_optimality_tolerance``
    ends with the model status ``kUnknown``: the point is neither certified optimal nor a
    vertex, and the status says which tolerance was missed by how much.
    """
    cached = getattr(problem, "_solver_cache", {}).get("HIGHS")
    if not cached or len(cached) < 3 or not isinstance(cached[2], dict):
        return None
    model, info = str(cached[2].get("model_status", "")), cached[2].get("info")
    if info is None:
        return None
    ipm = int(getattr(info, "ipm_iteration_count", 0) or 0)
    simplex = int(getattr(info, "simplex_iteration_count", 0) or 0)
    residuals = (
        f"max primal infeasibility {getattr(info, 'max_primal_infeasibility', math.nan):.1e}, "
        f"max dual infeasibility {getattr(info, 'max_dual_infeasibility', math.nan):.1e}"
    )
    if model == "kUnknown" and ipm and opts.get("run_crossover") == "off":
        tolerance = opts.get("ipm_optimality_tolerance", 1e-8)
        why = (
            f"interior point stopped after {ipm} iterations short of ipm_optimality_tolerance="
            f"{tolerance:g}, crossover off"
        )
    else:
        why = _HIGHS_ENDINGS.get(model, "no decision")
        why += f" after {ipm} interior-point and {simplex} simplex iterations"
    return f"HiGHS {model}: {why}; {residuals}"


# -- the robust solve path ----------------------------------------------------------------------
@dataclass(frozen=True)
class Strategy:
    """How one attempt of `solve_robust` builds its LP and which solver solves it.

    Builders stay solver-agnostic: they read `interior_point` (drop bounds the
    other rows imply: an interior-point solver pays for each) and `rescaled` (build the
    better-conditioned form: objective coefficients at most 1, privacy rows balanced as
    ``e^(−ε/2) x_a ≤ e^(ε/2) x_b``), never the solver's name.
    """

    solver: str
    rescaled: bool = False

    @property
    def interior_point(self) -> bool:
        """Whether the solver is an interior-point method (no vertex solutions)."""
        return self.solver in _INTERIOR_POINT

    @property
    def variant(self) -> str:
        """``"as built"`` or ``"rescaled"``."""
        return "rescaled" if self.rescaled else "as built"


def attempt_plan(
    num_variables: int,
    *,
    solver: str | None = None,
    vertex: bool = False,
    kind: ProblemKind = "generic",
) -> list[Strategy]:
    """The ordered attempts of `solve_robust`.

    A solver named by the caller is kept: the LP as built, then rescaled. Otherwise the policy's
    choice (`choose_solver`) as built and rescaled, then every other installed solver of
    `MAIN_SOLVERS` as built and rescaled; with ``vertex=True`` only simplex solvers (a vertex is
    what was asked for), and for ``kind="conic"`` only `CONIC_SOLVERS` (LP solvers take no cones).
    """
    first = _normalise_solver(solver, num_variables, vertex, kind)
    names = [first]
    if solver is None:
        pool = CONIC_SOLVERS if kind == "conic" else _SIMPLEX if vertex else MAIN_SOLVERS
        names += [s for s in pool if s != first and s in available_solvers()]
    return [Strategy(name, rescaled) for name in names for rescaled in (False, True)]


def alternative_solvers(used: str) -> list[str]:
    """The other installed solvers of `MAIN_SOLVERS`, to cross-check ``used``'s answer.

    An interior-point solver's multipliers are centred (strictly complementary) where a
    simplex vertex's are one extreme dual solution among many, so re-solving with the other
    method is what tightens a Lagrangian bound that one solver left loose.
    """
    return [s for s in MAIN_SOLVERS if s != used.upper() and s in available_solvers()]


def solve_robust(
    build: Callable[[Strategy], tuple[cp.Problem, T]],
    *,
    num_variables: int,
    solver: str | None = None,
    vertex: bool = False,
    kind: ProblemKind = "generic",
    options: dict[str, Any] | None = None,
    verbose: bool = False,
    feasible: bool = True,
) -> tuple[T, SolveInfo]:
    """Build and solve an LP, retrying with rescaled data and the other solver on failure.

    This is optmech's one solver path (cvxpy's ``Problem._solve_solver_path`` in spirit): every
    LP family passes a builder, and the status handling, the retries and the final diagnosis
    live here. Each attempt of `attempt_plan` calls ``build(strategy)`` for a fresh
    problem; the first that ends optimal (or optimal-inaccurate) with a finite point wins.

    Parameters
    ----------
    build : callable
        ``build(strategy) -> (problem, payload)``; ``payload`` is handed back with the result
        (typically the variables and the constraint record the caller reads).
    num_variables : int
        Size of the full LP, for the default solver choice.
    solver, vertex, kind, options, verbose
        As for `solve`.
    feasible : bool
        Whether the LP is feasible and bounded by construction (a known feasible point and a
        non-negative objective, say). Then "infeasible" and "unbounded" are numerical trouble,
        retried like any failure and never reported as such; otherwise an infeasible status is
        final (raised at once: no rescaling makes an infeasible LP feasible).

    Returns
    -------
    (payload, SolveInfo)
        The successful attempt's payload and provenance; ``info.attempts`` lists every attempt.

    Raises
    ------
    SolverError
        Every attempt failed: the error names each attempt and its status, and a remedy.
    """
    attempts: list[Attempt] = []
    last: SolverError | None = None
    with reporting(verbose=verbose):
        for strategy in attempt_plan(num_variables, solver=solver, vertex=vertex, kind=kind):
            name, variant = strategy.solver, strategy.variant
            start = time.perf_counter()  # an attempt's seconds include its build
            problem, payload = build(strategy)
            outcome: SolveInfo | SolverError
            with stage("solve", _log, solver=name, variant=variant) as found:
                try:
                    outcome = solve(problem, solver=name, vertex=vertex, options=options, kind=kind)
                except SolverError as exc:
                    outcome = exc
                values = [v.value for v in problem.variables()]
                finite = all(x is not None and np.all(np.isfinite(x)) for x in values)
                if isinstance(outcome, SolveInfo) and not finite:
                    outcome = SolverError(name, "no_solution", "no finite point returned")
                seconds = time.perf_counter() - start
                attempts.append(Attempt(name, variant, outcome.status, seconds))
                found.update(status=outcome.status)
                if isinstance(outcome, SolveInfo):
                    found.update(
                        variables=outcome.num_variables,
                        constraints=outcome.num_constraints,
                        iterations=outcome.iterations,
                    )
            if isinstance(outcome, SolveInfo):
                return payload, replace(outcome, attempts=tuple(attempts))
            last = outcome
            if not feasible and last.status in ("infeasible", "unbounded"):
                raise SolverError(
                    last.solver, last.status, last.hint, attempts=tuple(attempts)
                ) from last
    assert last is not None
    tried = "; ".join(str(a) for a in attempts)
    why = (
        "this LP is feasible and bounded by construction, so these statuses are numerical "
        "trouble, not a property of the problem"
        if feasible
        else "every attempt failed"
    )
    raise SolverError(
        last.solver,
        last.status,
        f"{why}. Tried: {tried}. Try a coarser grid or a smaller problem, another solver "
        "(solver=...), or looser privacy",
        attempts=tuple(attempts),
    )


# -- LPs grown column by column -----------------------------------------------------------------
#: The solver of LPs grown by columns (column generation's master, `optmech.lp.incremental`,
#: which calls it directly): simplex keeps its basis from one round to the next, which a cvxpy
#: problem cannot pass on.
INCREMENTAL_SOLVER = "HIGHS"
#: Spend the incremental solver's licence banner on /dev/null (once per process).
quiet_incremental_solver = quiet_highs_banner
