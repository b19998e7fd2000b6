"""Tests of optmech.lp.solve on tiny LPs whose optimum, primal point and duals are known by hand."""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest

from optmech.exceptions import SolverError
from optmech.lp.solve import (
    KNOWN_SOLVERS,
    SolveInfo,
    available_solvers,
    choose_solver,
    default_options,
    solve,
)

SOLVERS = ["HIGHS", "CLARABEL"]
#: Both solvers run with optmech's 1e-10 tolerances; 1e-7 leaves room for interior-point
#: solutions that stop just inside the feasible set.
TOL = 1e-7


def two_variable_lp() -> tuple[cp.Problem, cp.Variable, list[cp.Constraint]]:
    """min x0 + 2 x1  s.t.  x0 + x1 ≥ 1,  x0 − x1 ≤ 1/2,  x ≥ 0.

    By hand: both constraints are tight at x = (3/4, 1/4), value 5/4; stationarity
    (1, 2) = y1 (1, 1) − y2 (1, −1) gives duals y1 = 3/2, y2 = 1/2.
    """
    x = cp.Variable(2, nonneg=True)
    cons = [x[0] + x[1] >= 1, x[0] - x[1] <= 0.5]
    return cp.Problem(cp.Minimize(x[0] + 2 * x[1]), cons), x, cons


@pytest.mark.parametrize("solver", SOLVERS)
def test_known_optimum_primal_and_duals(solver: str) -> None:
    problem, x, cons = two_variable_lp()
    info = solve(problem, solver=solver)
    assert isinstance(info, SolveInfo)
    assert info.solver == solver and info.status == "optimal"
    assert info.objective == pytest.approx(1.25, abs=TOL)
    np.testing.assert_allclose(x.value, [0.75, 0.25], atol=TOL)
    assert cons[0].dual_value == pytest.approx(1.5, abs=TOL)
    assert cons[1].dual_value == pytest.approx(0.5, abs=TOL)
    # Primal feasibility and complementary slackness at the returned point.
    assert x.value.min() >= -TOL
    assert cons[0].dual_value * (x.value.sum() - 1) == pytest.approx(0.0, abs=TOL)
    assert (info.num_variables, info.num_constraints) == (2, 2)
    assert info.options == default_options(solver)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("epsilon", [0.1, math.log(2), 2.0])
def test_randomized_response_lp(solver: str, epsilon: float) -> None:
    """Two inputs, two outputs, ε-DP, uniform prior and 0-1 loss: the optimum error is
    1/(1 + e^ε), attained by randomized response (GRS with n = 1)."""
    m = cp.Variable((2, 2), nonneg=True)
    ratio = math.exp(epsilon)
    cons = [cp.sum(m, axis=1) == 1, m[0, :] <= ratio * m[1, :], m[1, :] <= ratio * m[0, :]]
    problem = cp.Problem(cp.Minimize(0.5 * (m[0, 1] + m[1, 0])), cons)
    info = solve(problem, solver=solver)
    assert info.objective == pytest.approx(1 / (1 + ratio), abs=TOL)
    truth = np.array([[ratio, 1.0], [1.0, ratio]]) / (1 + ratio)
    np.testing.assert_allclose(m.value, truth, atol=1e-6)
    assert info.num_variables == 4 and info.num_constraints == 6


@pytest.mark.parametrize("solver", SOLVERS)
def test_infeasible_raises_solver_error(solver: str) -> None:
    x = cp.Variable(nonneg=True)
    problem = cp.Problem(cp.Minimize(x), [x >= 1, x <= 0])
    with pytest.raises(SolverError, match=rf"solver {solver} returned status 'infeasible'") as info:
        solve(problem, solver=solver)
    assert info.value.solver == solver
    assert info.value.status == "infeasible"
    assert "constraints admit no mechanism" in info.value.hint


@pytest.mark.parametrize("solver", SOLVERS)
def test_unbounded_raises_solver_error(solver: str) -> None:
    x = cp.Variable()
    problem = cp.Problem(cp.Minimize(x), [x <= 1])
    with pytest.raises(SolverError, match=rf"solver {solver} returned status") as info:
        solve(problem, solver=solver)
    assert "unbounded" in info.value.status


def test_unknown_and_malformed_solver_names() -> None:
    problem, _, _ = two_variable_lp()
    with pytest.raises(ValueError, match=r"`solver` must be one of \[.*HIGHS.*\].*got 'NOPE'"):
        solve(problem, solver="NOPE")
    with pytest.raises(TypeError, match="`solver` must be a solver name"):
        solve(problem, solver=3)  # type: ignore[arg-type]
    # Names are case-insensitive.
    assert solve(problem, solver="highs").solver == "HIGHS"


def degenerate_lp(n: int = 6) -> tuple[cp.Problem, cp.Variable]:
    """min Σ x  s.t.  Σ x ≥ 1, x ≥ 0: every point of the simplex is optimal; vertices are e_i."""
    x = cp.Variable(n, nonneg=True)
    return cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(x) >= 1]), x


def test_vertex_solution_on_a_degenerate_lp() -> None:
    problem, x = degenerate_lp()
    info = solve(problem, vertex=True)
    assert info.solver == "HIGHS"
    assert info.options["highs_options"] == {"solver": "simplex"}
    assert info.objective == pytest.approx(1.0, abs=1e-12)
    # A basic solution of a one-row LP has exactly one non-zero entry, equal to 1.
    assert np.sum(np.abs(x.value) > 1e-9) == 1
    assert x.value.max() == pytest.approx(1.0, abs=1e-12)


def test_interior_point_does_not_give_a_vertex() -> None:
    """The vertex test above can fail: an interior-point solver lands inside the optimal face."""
    problem, x = degenerate_lp()
    solve(problem, solver="CLARABEL")
    assert np.sum(np.abs(x.value) > 1e-9) > 1


def test_inaccurate_status_is_recorded_without_a_warning() -> None:
    """``optimal_inaccurate`` is data: recorded in the SolveInfo, the point kept, no warning.

    (Callers certify the point and warn only when the certified interval is wide; pytest runs
    with ``filterwarnings = error``, so a warning here would fail the test.) The point is
    checked to 1e-3, the "reduced" tolerances Clarabel was allowed to stop at.
    """
    problem, x, _ = two_variable_lp()
    # Unreachable tolerances with lenient "reduced" ones: Clarabel stops AlmostSolved.
    options = {
        "max_iter": 10,
        "tol_gap_abs": 1e-300,
        "tol_gap_rel": 1e-300,
        "tol_feas": 1e-300,
        "tol_ktratio": 1e-300,
        "reduced_tol_gap_abs": 1e-2,
        "reduced_tol_gap_rel": 1e-2,
        "reduced_tol_feas": 1e-2,
        "reduced_tol_ktratio": 1e-1,
    }
    info = solve(problem, solver="CLARABEL", options=options)
    assert info.status == "optimal_inaccurate"
    assert [a.status for a in info.attempts] == ["optimal_inaccurate"]
    assert info.options["max_iter"] == 10  # user options override the defaults
    np.testing.assert_allclose(x.value, [0.75, 0.25], atol=1e-3)


def test_iteration_limit_raises_with_a_remedy() -> None:
    problem, _, _ = two_variable_lp()
    with pytest.raises(SolverError, match=r"user_limit.*give it more") as info:
        solve(problem, solver="CLARABEL", options={"max_iter": 1})
    assert info.value.status == "user_limit"


def test_solver_choice_and_options() -> None:
    solvers = available_solvers()
    assert solvers == [s for s in KNOWN_SOLVERS if s in solvers]
    assert {"HIGHS", "CLARABEL"} <= set(solvers)
    assert choose_solver(10) == "HIGHS"
    assert choose_solver(10**6) == "CLARABEL"
    assert choose_solver(10**6, vertex=True) == "HIGHS"
    opts = default_options("highs")
    opts["primal_feasibility_tolerance"] = 1.0  # the caller's copy: the defaults keep theirs
    assert default_options("HIGHS") != opts
    assert default_options("GLPK") == {}
    problem, x, _ = two_variable_lp()
    assert solve(problem).solver == "HIGHS"
    # HiGHS at its defaults reaches the vertex (3/4, 1/4) to 1e-9 and violates no constraint
    # by more: the tolerances are tight enough for the certifier's 1e-9 slack.
    np.testing.assert_allclose(x.value, [0.75, 0.25], atol=1e-9)
    assert x.value.sum() >= 1 - 1e-9 and x.value[0] - x.value[1] <= 0.5 + 1e-9


@pytest.mark.parametrize(
    ("message", "error", "match"),
    [
        (
            "Cannot unpack invalid solution: Solution(status=unknown, ...)",
            SolverError,
            "HIGHS returned status 'unknown'",
        ),
        ("some unrelated bug", ValueError, "unrelated bug"),
    ],
    ids=["unknown-status-is-a-solver-error", "other-value-errors-are-not-masked"],
)
def test_value_errors_raised_by_cvxpy(monkeypatch, message, error, match) -> None:
    """cvxpy's ValueError for an unmapped solver status must surface as SolverError; any
    other ValueError passes through unmasked."""
    x = cp.Variable(2, nonneg=True)
    problem = cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(x) == 1])

    def fake_solve(*args, **kwargs):
        raise ValueError(message)

    monkeypatch.setattr(problem, "solve", fake_solve)
    with pytest.raises(error, match=match):
        solve(problem, solver="HIGHS")


def test_a_highs_failure_says_why_highs_stopped() -> None:
    """A HiGHS run cut short by its own limits (one simplex iteration; three interior-point
    iterations without crossover) fails with a status naming HiGHS's model status and the
    limit, not a bare "user_limit"."""
    rng = np.random.default_rng(0)
    a = rng.random((60, 20))
    x = cp.Variable(20, nonneg=True)
    problem = cp.Problem(cp.Minimize(rng.random(20) @ x), [a @ x >= a @ np.ones(20)])
    limits = [
        ({"highs_options": {"solver": "simplex"}, "simplex_iteration_limit": 1}, "simplex"),
        ({"highs_options": {"solver": "ipm"}, "run_crossover": "off", "ipm_iteration_limit": 3},
         "interior-point"),
    ]  # fmt: skip
    for options, method in limits:
        with pytest.raises(SolverError) as failed:
            solve(problem, solver="HIGHS", options=options)
        status = failed.value.status
        assert status.startswith("user_limit (HiGHS kIterationLimit: its iteration limit")
        assert f"{3 if method == 'interior-point' else 1} {method}" in status


def test_an_interior_point_run_short_of_its_tolerance_says_so(monkeypatch) -> None:
    """HiGHS's ``kUnknown`` after interior-point iterations without crossover (cvxpy cannot
    unpack it): the status names the iterations, the tolerance missed and the residuals that
    HiGHS reported (made up here)."""
    from types import SimpleNamespace

    x = cp.Variable(2, nonneg=True)
    problem = cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(x) == 1])
    info = SimpleNamespace(
        ipm_iteration_count=41,
        simplex_iteration_count=0,
        max_primal_infeasibility=2e-12,
        max_dual_infeasibility=3e-8,
    )

    def stops_short(*args, **kwargs):
        problem._solver_cache["HIGHS"] = (None, None, {"model_status": "kUnknown", "info": info})
        raise ValueError("Cannot unpack invalid solution: Solution(status=unknown, ...)")

    monkeypatch.setattr(problem, "solve", stops_short)
    options = {"run_crossover": "off", "ipm_optimality_tolerance": 1e-10}
    with pytest.raises(SolverError) as failed:
        solve(problem, solver="HIGHS", options=options)
    assert failed.value.status == (
        "unknown (HiGHS kUnknown: interior point stopped after 41 iterations short of "
        "ipm_optimality_tolerance=1e-10, crossover off; max primal infeasibility 2.0e-12, "
        "max dual infeasibility 3.0e-08)"
    )
