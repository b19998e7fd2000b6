"""User LPs (optmech.lp.user) against independent truth.

* GRS Thm. 3.1: for monotone losses the optimum equals the geometric mechanism ``G`` (written
  here from the formula of Ghosh, Roughgarden & Sundararajan (2012), §2) followed by the Bayes
  remap (an explicit argmin written here).
* Any graph, any loss: the same LP written element by element for ``scipy.optimize.linprog``
  (a different modelling path and interface than optmech's vectorised cvxpy build).
* Privacy: ratios of the returned matrix recomputed here.

Tolerances: a certified mechanism is feasible, so its value is never below the optimum (up to
summation rounding, 1e-11 relative); above, solver accuracy (HiGHS/Clarabel at 1e-10
tolerances) plus the repair: 1e-7 relative, 1e-9 absolute.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from _reference import g_plus_bayes_remap, geometric_from_theory, user_lp_optimum

from optmech.costs import Absolute, Asymmetric, Power, Squared, ZeroOne
from optmech.exceptions import ProblemTooLargeError
from optmech.graphs import grid_graph, hypercube_graph, node_values, path_graph
from optmech.lp.user import (
    bayesian_mechanism,
    check_prior,
    common_mechanism,
    make_private,
    minimax_mechanism,
)


def max_log_ratio(m: np.ndarray, edges: list[tuple[int, int]]) -> float:
    worst = 0.0
    for i, j in edges:
        for r in range(m.shape[1]):
            a, b = m[i, r], m[j, r]
            if a == 0 and b == 0:
                continue
            if a == 0 or b == 0:
                return math.inf
            worst = max(worst, abs(math.log(a / b)))
    return worst


def assert_optimal(value: float, reference: float, scale: float = 1.0) -> None:
    assert value >= reference - 1e-11 * abs(reference) - 1e-12 * scale
    assert value - reference <= 1e-7 * abs(reference) + 1e-9 * scale


LOSSES = [Absolute(), Squared(), ZeroOne(), ZeroOne(2.0), Asymmetric(over=3, under=0.5), Power(0.5)]


@pytest.mark.parametrize("k", range(6))
def test_bayesian_lp_equals_geometric_plus_bayes_remap(k: int, lp_solver: str) -> None:
    rng = np.random.default_rng(100 + k)
    n = int(rng.integers(2, 13))
    eps = float(np.exp(rng.uniform(math.log(0.05), math.log(5))))
    prior = rng.dirichlet(np.full(n + 1, 0.7))
    cost = LOSSES[k]
    res = bayesian_mechanism(prior, cost, eps, solver=lp_solver)
    assert res.solver in (lp_solver, "none")  # "none": a known mechanism was better
    loss = cost.loss_matrix(np.arange(n + 1), np.arange(n + 1))
    ref = g_plus_bayes_remap(prior, loss, eps)
    assert_optimal(res.value, ref)
    # The dual bound is rigorous (never above the optimum) and tight (measured ≤ 4e-8 rel).
    assert res.lower_bound <= ref * (1 + 1e-12)
    assert res.gap <= 1e-6 * ref + 1e-12
    edges = [(i, i + 1) for i in range(n)]
    assert max_log_ratio(res.mechanism, edges) <= eps * (1 + 1e-9)
    assert res.certified_epsilon <= eps * (1 + 1e-9)
    assert np.allclose(res.mechanism.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # The value reported is the objective at the returned mechanism, recomputed here.
    assert res.value == pytest.approx(
        float(np.sum(prior[:, None] * loss * res.mechanism)), rel=1e-12
    )


def test_clarabel_agrees_with_highs_and_the_theorem() -> None:
    rng = np.random.default_rng(3)
    n, eps = 10, 0.3
    prior = rng.dirichlet(np.ones(n + 1))
    loss = Squared().loss_matrix(np.arange(n + 1), np.arange(n + 1))
    ref = g_plus_bayes_remap(prior, loss, eps)
    for solver in ("HIGHS", "CLARABEL"):
        res = bayesian_mechanism(prior, loss, eps, solver=solver)
        assert res.solver == solver
        assert_optimal(res.value, ref)
        assert res.certified_epsilon <= eps * (1 + 1e-9)


def test_non_monotone_loss_on_a_grid_matches_linprog() -> None:
    rng = np.random.default_rng(11)
    g = grid_graph((2, 3))
    n_in = g.number_of_nodes()
    outputs = np.array([0.0, 1.5, 3.0, 7.0])  # any output set, any loss matrix
    loss = rng.uniform(0, 2, size=(n_in, outputs.size))
    prior = rng.dirichlet(np.ones(n_in))
    eps = 0.8
    res = bayesian_mechanism(prior, loss, eps, graph=g, outputs=outputs)
    index = {v: k for k, v in enumerate(g.nodes)}
    edges = [(index[a], index[b]) for a, b in g.edges]
    ref = user_lp_optimum(loss, eps, edges, prior=prior)
    assert_optimal(res.value, ref)
    assert res.lower_bound <= ref * (1 + 1e-12)
    assert max_log_ratio(res.mechanism, edges) <= eps * (1 + 1e-9)
    assert np.array_equal(res.outputs, outputs)


def test_cost_on_vector_queries_sums_coordinates() -> None:
    g = grid_graph((2, 2))
    values = node_values(g)
    prior = np.full(4, 0.25)
    res = bayesian_mechanism(prior, "abs", 1.0, graph=g)
    expected_loss = np.abs(values[None, :, :] - values[:, None, :]).sum(axis=2)
    assert np.array_equal(res.loss, expected_loss)


def test_minimax_matches_linprog_for_any_loss(lp_solver: str) -> None:
    rng = np.random.default_rng(5)
    n, eps = 6, 0.7
    loss = rng.uniform(0, 3, size=(n + 1, n + 1))
    side = [1, 2, 5]
    res = minimax_mechanism(loss, eps, side_information=side, solver=lp_solver)
    ref = user_lp_optimum(loss, eps, [(i, i + 1) for i in range(n)], rows=side)
    assert_optimal(res.value, ref, scale=3.0)
    assert res.lower_bound <= ref * (1 + 1e-12)  # rigorous whatever the duals' quality
    worst = max(float(np.sum(loss[i] * res.mechanism[i])) for i in side)
    assert res.value == pytest.approx(worst, rel=1e-12)
    assert res.side_information.tolist() == side
    assert res.certified_epsilon <= eps * (1 + 1e-9)


def test_minimax_with_a_cost_needs_n_and_defaults_to_all_inputs() -> None:
    res = minimax_mechanism("abs", 1.0, n=4)
    assert res.side_information.tolist() == [0, 1, 2, 3, 4]
    ref = user_lp_optimum(
        np.abs(np.subtract.outer(np.arange(5), np.arange(5))).astype(float),
        1.0,
        [(i, i + 1) for i in range(4)],
        rows=list(range(5)),
    )
    assert_optimal(res.value, ref)
    with pytest.raises(ValueError, match="number of inputs is unknown"):
        minimax_mechanism("abs", 1.0)
    with pytest.raises(ValueError, match="must equal the number of nodes"):
        minimax_mechanism("abs", 1.0, n=3, graph=path_graph(5))


def test_vertex_solutions_come_from_simplex() -> None:
    res = bayesian_mechanism(np.full(6, 1 / 6), "abs", 0.5, vertex=True)
    assert res.solver == "HIGHS"
    assert res.raw_mechanism.shape == (6, 6)
    assert res.repair_cost >= -1e-15


def test_database_level_graph_can_beat_nothing_it_should_not() -> None:
    """On the hypercube (databases, count as value) the LP is certified over database edges."""
    g = hypercube_graph(3)
    prior = np.full(8, 1 / 8)
    res = bayesian_mechanism(prior, "abs", 1.0, graph=g)
    index = {v: k for k, v in enumerate(g.nodes)}
    edges = [(index[a], index[b]) for a, b in g.edges]
    assert max_log_ratio(res.mechanism, edges) <= 1.0 * (1 + 1e-9)
    ref = user_lp_optimum(res.loss, 1.0, edges, prior=prior)
    assert_optimal(res.value, ref)


def test_make_private_repairs_tiny_violations_cheaply() -> None:
    eps, n = 1.0, 30
    g = geometric_from_theory(n, eps)
    bad = g.copy()
    bad[n, 0] = 0.0  # was e^-30/(1 + e^-1) ≈ 7e-14: now a zero facing a positive entry
    bad[0, n // 2] *= 1.0 + 1e-9  # a ratio a hair above e^ε
    bad /= bad.sum(axis=1, keepdims=True)
    edges = [(i, i + 1) for i in range(n)]
    assert math.isinf(max_log_ratio(bad, edges))
    fixed, lam = make_private(bad, eps)
    assert max_log_ratio(fixed, edges) <= eps * (1 + 1e-9)
    assert np.max(np.abs(fixed - g)) < 1e-8  # only the violating entries moved, by ~1e-9
    assert lam == 0.0  # the lower closure sufficed: no mixing with the uniform mechanism


def test_make_private_mixes_far_from_private_points() -> None:
    eps = 0.5
    fixed, lam = make_private(np.eye(4), eps, path_graph(3))
    assert max_log_ratio(fixed, [(0, 1), (1, 2), (2, 3)]) <= eps * (1 + 1e-9)
    assert 0 < lam < 1


def test_common_mechanism_ratio_one_for_identical_users(lp_solver: str) -> None:
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    loss = Absolute().loss_matrix(np.arange(4), np.arange(4))
    res = common_mechanism([prior, prior], [loss, loss], 1.0, solver=lp_solver)
    assert res.ratio == pytest.approx(1.0, abs=1e-7)
    assert res.lp_ratio == pytest.approx(1.0, abs=1e-7)
    assert res.lower_bound <= 1.0 + 1e-12


def test_common_mechanism_brenner_nissim_grid() -> None:
    g = grid_graph((3, 3))
    v = node_values(g)
    prior = np.full(9, 1 / 9)
    loss_sum = np.abs(np.arange(5)[None, :] - v.sum(axis=1)[:, None])
    loss_first = np.abs(np.arange(3)[None, :] - v[:, 0][:, None])
    res = common_mechanism([prior, prior], [loss_sum, loss_first], 1.0, graph=g)
    assert res.lower_bound > 1.05  # no single mechanism is optimal for both (measured 1.0967)
    assert res.lower_bound <= res.lp_ratio + 1e-9 <= res.ratio + 2e-9
    # The reported values are the users' losses through the projections, recomputed here.
    joint = res.mechanism.reshape(9, 5, 3)
    value_sum = float(np.sum(prior[:, None] * loss_sum * joint.sum(axis=2)))
    value_first = float(np.sum(prior[:, None] * loss_first * joint.sum(axis=1)))
    assert np.allclose(res.values, [value_sum, value_first], rtol=1e-12)
    assert res.ratio >= res.lp_ratio - 1e-9
    optima = [
        user_lp_optimum(
            loss,
            1.0,
            [
                (k, kk)
                for k, a in enumerate(g.nodes)
                for kk, b in enumerate(g.nodes)
                if (a, b) in g.edges and k < kk
            ],
            prior=prior,
        )
        for loss in (loss_sum, loss_first)
    ]
    assert np.allclose(res.optima, optima, rtol=1e-7)


def test_prior_validation() -> None:
    loss = "abs"
    with pytest.raises(ValueError, match="non-negative"):
        bayesian_mechanism([0.5, -0.1, 0.6], loss, 1.0)
    with pytest.raises(ValueError, match="finite"):
        bayesian_mechanism([0.5, np.nan, 0.5], loss, 1.0)
    with pytest.raises(ValueError, match="must sum to 1"):
        bayesian_mechanism([0.5, 0.6], loss, 1.0)
    res = bayesian_mechanism([1.0, 3.0], loss, 1.0, normalize=True)
    assert res.prior.tolist() == [0.25, 0.75]
    with pytest.raises(ValueError, match="positive sum"):
        check_prior([0.0, 0.0], normalize=True)
    with pytest.raises(ValueError, match="one entry per input"):
        bayesian_mechanism([0.5, 0.5], loss, 1.0, graph=path_graph(3))
    with pytest.raises(ValueError, match="at least 2 inputs"):
        bayesian_mechanism([1.0], loss, 1.0)


def test_loss_and_epsilon_and_graph_validation() -> None:
    p = np.full(3, 1 / 3)
    with pytest.raises(ValueError, match="one row per input"):
        bayesian_mechanism(p, np.ones((4, 3)), 1.0)
    with pytest.raises(ValueError, match="one column per output"):
        bayesian_mechanism(p, np.ones((3, 3)), 1.0, outputs=[0, 1])
    with pytest.raises(ValueError, match="non-negative"):
        bayesian_mechanism(p, -np.ones((3, 3)), 1.0)
    with pytest.raises(TypeError, match="cost"):
        bayesian_mechanism(p, 3.0, 1.0)
    with pytest.raises(ValueError, match="`epsilon`"):
        bayesian_mechanism(p, "abs", 0.0)
    with pytest.raises(ValueError, match="`epsilon`"):
        bayesian_mechanism(p, "abs", -1.0)
    with pytest.raises(ValueError, match="`epsilon`"):
        bayesian_mechanism(p, "abs", 100.0)
    with pytest.raises(ValueError, match="connected"):
        bayesian_mechanism(p, "abs", 1.0, graph=nx.empty_graph(3))
    with pytest.raises(ValueError, match="at least 2 nodes"):
        bayesian_mechanism(p, "abs", 1.0, graph=nx.Graph())
    with pytest.raises(ValueError, match="side_information"):
        minimax_mechanism("abs", 1.0, n=3, side_information=[])
    with pytest.raises(ValueError, match="inputs of the graph"):
        minimax_mechanism("abs", 1.0, n=3, side_information=[7])
    with pytest.raises(TypeError, match="collection of inputs"):
        minimax_mechanism("abs", 1.0, n=3, side_information=3)


def test_too_large_is_refused_before_building() -> None:
    n = 20000  # by column generation about 32 GB (the full LP's would be far more)
    with pytest.raises(ProblemTooLargeError, match=r"about \d+\.\d GB of solver memory"):
        bayesian_mechanism(np.full(n + 1, 1 / (n + 1)), "abs", 1.0)
    with pytest.raises(ProblemTooLargeError):
        minimax_mechanism("abs", 1.0, n=10**6)
    with pytest.raises(ProblemTooLargeError):
        bayesian_mechanism(np.full(11, 1 / 11), "abs", 1.0, max_variables=100)


def test_theorem_checks_refuse_losses_outside_the_theorem() -> None:
    from optmech.theorems.count import minimax_optimality_check, universal_optimality_check

    bumpy = np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)
    bumpy[0, 3] = 0.5
    with pytest.raises(ValueError, match="non-decreasing in"):
        universal_optimality_check(np.full(4, 0.25), bumpy, 1.0)
    with pytest.raises(ValueError, match="non-decreasing in"):
        minimax_optimality_check(bumpy, 1.0, [0, 2])
    row = universal_optimality_check(np.array([0.1, 0.2, 0.3, 0.4]), "squared", 0.7)
    assert row.passed and row.group == "count-lp"
    assert row.value == pytest.approx(
        g_plus_bayes_remap(
            np.array([0.1, 0.2, 0.3, 0.4]),
            np.subtract.outer(np.arange(4), np.arange(4)).astype(float) ** 2,
            0.7,
        ),
        rel=1e-7,
    )
