"""The one place optmech calls an LP solver: solver choice, options, status, timings.

Builders elsewhere in :mod:`optmech.lp` return cvxpy problems and stay solver-agnostic; they
pass the problem here. Solver status is data (cvxpy's convention): ``optimal`` is kept,
``optimal_inaccurate`` is kept with an :class:`~optmech.exceptions.InaccurateSolutionWarning`,
anything else raises :class:`~optmech.exceptions.SolverError` naming the solver, the status and a
remedy. Default tolerances are tighter than the solvers' own (THEORY.md §5: optimal values here
can be 1e-4 and entries e^-45, so an absolute 1e-7 tolerance is too loose).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp

from optmech._validation import describe
from optmech.exceptions import InaccurateSolutionWarning, SolverError

__all__ = [
    "SOLVER_POLICY",
    "SolveInfo",
    "available_solvers",
    "choose_solver",
    "default_options",
    "solve",
]

#: Solvers optmech knows how to tune, in order of preference.
KNOWN_SOLVERS = ("HIGHS", "CLARABEL", "SCS", "ECOS", "GLPK", "GUROBI", "MOSEK", "CPLEX")

#: Tight tolerances for each solver (THEORY.md §5).
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

#: Per-kind adjustments of :data:`_OPTIONS` (applied before the caller's ``options``); none at
#: present. Measured and rejected: ``tol_feas = 1e-9`` for Clarabel on the GRS LP (its primal
#: residual stalls near 1e-10 at n = 200, so half the iterations are spent there) saves 20-40%
#: (n = 800: 62 s against 76 s) but the certified value's gap to the GRS optimum grows from
#: 4e-9 to 5e-7 at n = 800 (docs/performance.md).
_KIND_OPTIONS: dict[tuple[str, str], dict[str, Any]] = {}

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
    """Provenance of one LP solve.

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


def available_solvers() -> list[str]:
    """The LP solvers cvxpy can use on this machine, in optmech's order of preference."""
    installed = set(cp.installed_solvers())
    return [s for s in KNOWN_SOLVERS if s in installed]


def default_options(solver: str, kind: str = "generic") -> dict[str, Any]:
    """optmech's default options for ``solver`` (a copy; empty for solvers it does not tune).

    ``kind`` (a key of :data:`SOLVER_POLICY`) adds that family's adjustments, as :func:`solve`
    does; the default ``"generic"`` has none.
    """
    opts = dict(_OPTIONS.get(solver.upper(), {}))
    opts.update(_KIND_OPTIONS.get((kind, solver.upper()), {}))
    return opts


#: Default solver by problem kind: ``(largest size for the first solver, first, above)``.
#: Sizes are numbers of scalar variables. Each LP family owns its row; the numbers behind each
#: choice are in ``docs/performance.md`` and the benchmarks.
SOLVER_POLICY: dict[str, tuple[int, str, str]] = {
    "generic": (50_000, "HIGHS", "CLARABEL"),
    # Additive-noise LPs (optmech.lp.additive, 2 shared cores, benchmarks/bench_additive.py):
    # HiGHS returns exact vertices (no repair; integer/(0, δ) optima to ~1e-16) and stays
    # within ~2x of Clarabel up to ~15k variables (ε-DP m = 100, 20 periods: 2-3 s vs 1-1.5 s);
    # Clarabel can end "inaccurate" there (e², m = 100: raw ε 2.06, value 4e-7 high after the
    # repair). Above, HiGHS slows sharply (m = 1000, 5 periods: 43 s vs 1.4 s) and Clarabel's
    # points need only a repair costing ~1e-9 relative. (0, δ) LPs favour Clarabel earlier
    # ((0, 0.01), 10.7k variables: 6 s vs 0.4 s): pass solver="CLARABEL" there.
    "additive": (15_000, "HIGHS", "CLARABEL"),
    # Count/user LPs (optmech.lp.count, measured on 2 shared cores, benchmarks/grs.py):
    # HiGHS simplex returns exact vertices (gap to the GRS optimum ~1e-16) but slows sharply
    # with n and at small ε (n = 70, ε = 0.1: 2.5 s vs Clarabel 0.5 s; n = 150: 34 s vs 3.5 s);
    # Clarabel's points, after the lower-closure repair, are within ~1e-8 of the optimum.
    # HiGHS up to n = 50 (51² variables, +1 for a minimax epigraph), Clarabel above.
    "count": (2_700, "HIGHS", "CLARABEL"),
}


def choose_solver(num_variables: int, *, vertex: bool = False, kind: str = "generic") -> str:
    """Pick a solver for an LP of the given size and kind.

    Vertex solutions (needed to read a constraint pattern or remap off an optimum, GRS
    Lemmas 5.9–5.11) come from simplex: HiGHS. Otherwise :data:`SOLVER_POLICY` decides by the
    number of variables (interior point scales better on the large dense-ish LPs, THEORY.md §5).
    """
    solvers = available_solvers()
    if not solvers:
        raise SolverError(
            "none", "unavailable", "install highspy or clarabel (pip install optmech)"
        )
    if kind not in SOLVER_POLICY:
        raise ValueError(f"`kind` must be one of {sorted(SOLVER_POLICY)}; got {kind!r}.")
    limit, small, large = SOLVER_POLICY[kind]
    if vertex:
        preferred = "HIGHS"
    else:
        preferred = small if num_variables <= limit else large
    return preferred if preferred in solvers else solvers[0]


def _normalise_solver(solver: str | None, num_variables: int, vertex: bool, kind: str) -> str:
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
    kind: str = "generic",
) -> SolveInfo:
    """Solve ``problem`` in place and return its provenance; raise unless the status is optimal.

    Parameters
    ----------
    problem : cvxpy.Problem
        A built LP.
    solver : str, optional
        cvxpy solver name; chosen by :func:`choose_solver` when omitted.
    vertex : bool
        Whether a vertex (basic) solution is needed; steers the default to simplex.
    options : dict, optional
        Solver options overriding optmech's defaults for that solver.
    verbose : bool
        Pass through to the solver's log.
    kind : str
        Problem family for the default solver choice (a key of :data:`SOLVER_POLICY`).

    Raises
    ------
    SolverError
        When the solver fails or returns a status other than optimal/optimal_inaccurate.
    """
    num_variables = sum(v.size for v in problem.variables())
    num_constraints = sum(c.size for c in problem.constraints)
    name = _normalise_solver(solver, num_variables, vertex, kind)
    opts = default_options(name, kind)
    if vertex and name == "HIGHS":
        # HiGHS's own "solver" option clashes with cvxpy's keyword; pass it nested.
        opts["highs_options"] = {"solver": "simplex"}
    if options:
        opts.update(options)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # cvxpy's own "Solution may be inaccurate" warning: the status is handled below
            # (InaccurateSolutionWarning or SolverError), so it would only be said twice.
            warnings.filterwarnings(
                "ignore", message="Solution may be inaccurate", category=UserWarning
            )
            problem.solve(solver=name, verbose=verbose, **opts)
    except cp.error.SolverError as exc:
        raise SolverError(name, "solver_error", f"{_HINTS['solver_error']} ({exc})") from exc
    except ValueError as exc:
        # cvxpy raises ValueError("Cannot unpack invalid solution ...") when a solver ends with
        # a status it does not map (HiGHS "unknown" on badly scaled LPs): solver trouble, not
        # bad input.
        if "solution" not in str(exc).lower():
            raise
        raise SolverError(name, "unknown", f"{_HINTS['solver_error']} ({exc})") from exc
    total = time.perf_counter() - start
    status = str(problem.status)
    if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise SolverError(name, status, _HINTS.get(status, _HINTS["solver_error"]))
    if status == cp.OPTIMAL_INACCURATE:
        warnings.warn(
            f"solver {name} reported an inaccurate optimum; the result was certified "
            "independently but try another solver to confirm",
            InaccurateSolutionWarning,
            stacklevel=2,
        )
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
    )
