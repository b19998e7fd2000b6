"""The caller's constraints on the user LPs (``constraints=`` of bayesian/minimax_mechanism).

Independent truth: a separate LP written here for scipy's ``linprog`` (the mechanism's entries,
the pairwise privacy rows ``X[a, r] ≤ e^ε X[b, r]`` on every edge in both directions — not the
envelope —, row sums, the constraints as dense rows), whose optimum must lie in the certified
interval ``[lower_bound, value]`` up to linprog's tolerance; privacy, unbiasedness, risks, tails
and distribution functions recomputed from the returned matrix.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _reference import user_lp_optimum

import optmech
from optmech.constraints import RESIDUAL_TOL, MaxRisk, Monotone, TailBound, Unbiased
from optmech.exceptions import InfeasibleConstraintsError

#: Agreement asked of linprog's optimum with the certified interval (HiGHS' own tolerance).
LINPROG_TOL = 1e-7


def _path(n: int) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(n)]


def _edge_epsilon(x: np.ndarray, edges: list[tuple[int, int]]) -> float:
    """The largest |log ratio| of the matrix along the edges; a column is all zero or all
    positive (else the ratio is infinite)."""
    used = x.max(axis=0) > 0
    if np.any(x[:, used] <= 0):
        return math.inf
    a = np.array([u for u, _ in edges])
    b = np.array([v for _, v in edges])
    return float(np.max(np.abs(np.log(x[a][:, used]) - np.log(x[b][:, used]))))


def _in_interval(res: optmech.UserMechanism, truth: float) -> None:
    tol = LINPROG_TOL * max(1.0, abs(truth))
    assert res.lower_bound - tol <= truth <= res.value + tol
    assert res.value - res.lower_bound <= 1e-6 * max(1.0, res.value)


@pytest.mark.parametrize("epsilon", [0.5, 1.0])
def test_unbiased_minimax_matches_a_separate_lp(epsilon: float) -> None:
    n = 4
    outputs = np.arange(-n, 2 * n + 1, dtype=float)
    res = optmech.minimax_mechanism("abs", epsilon, n=n, outputs=outputs, constraints=Unbiased())
    loss = np.abs(outputs[None, :] - np.arange(n + 1)[:, None])
    truth = user_lp_optimum(loss, epsilon, _path(n), means=np.arange(n + 1.0), outputs=outputs)
    _in_interval(res, truth)
    x = res.mechanism
    assert np.max(np.abs(x @ outputs - np.arange(n + 1))) <= RESIDUAL_TOL * np.max(abs(outputs))
    assert res.certified_epsilon <= epsilon
    assert _edge_epsilon(x, _path(n)) <= epsilon * (1 + 1e-12)


def test_unbiased_bayesian_matches_a_separate_lp() -> None:
    n, epsilon = 5, 0.8
    prior = np.array([0.3, 0.2, 0.1, 0.1, 0.1, 0.2])
    outputs = np.arange(-3, n + 4, dtype=float)
    res = optmech.bayesian_mechanism(
        prior, "squared", epsilon, outputs=outputs, constraints=[Unbiased()]
    )
    loss = (outputs[None, :] - np.arange(n + 1)[:, None]) ** 2
    truth = user_lp_optimum(
        loss, epsilon, _path(n), prior=prior, means=np.arange(n + 1.0), outputs=outputs
    )
    _in_interval(res, truth)
    unconstrained = optmech.bayesian_mechanism(prior, "squared", epsilon, outputs=outputs)
    assert res.value >= unconstrained.lower_bound


def test_max_risk_caps_every_input_and_costs_the_bayesian_user() -> None:
    n, epsilon, bound = 4, 1.0, 1.1
    prior = np.full(n + 1, 1 / (n + 1))
    free = optmech.bayesian_mechanism(prior, "squared", epsilon)
    loss = free.setting.loss
    assert np.max(np.sum(free.mechanism * loss, axis=1)) > bound  # the cap binds
    res = optmech.bayesian_mechanism(prior, "squared", epsilon, constraints=MaxRisk(bound))
    risks = np.sum(res.mechanism * loss, axis=1)
    assert np.max(risks) <= bound * (1 + RESIDUAL_TOL)
    assert res.value >= free.lower_bound
    assert res.lower_bound > free.value  # strictly costlier: the cap binds at the optimum
    _in_interval(res, user_lp_optimum(loss, epsilon, _path(n), prior=prior, max_risk=bound))


def test_monotone_on_a_loss_that_rewards_reversal() -> None:
    rng = np.random.default_rng(3)
    loss = rng.uniform(0.0, 1.0, size=(5, 5))
    epsilon = 1.0
    free = optmech.minimax_mechanism(loss, epsilon)
    cdf = np.cumsum(free.mechanism, axis=1)
    assert np.max(cdf[1:] - cdf[:-1]) > 1e-3  # unconstrained, the CDFs cross
    res = optmech.minimax_mechanism(loss, epsilon, constraints=[Monotone()])
    cdf = np.cumsum(res.mechanism, axis=1)
    assert np.max(cdf[1:] - cdf[:-1]) <= RESIDUAL_TOL
    _in_interval(res, user_lp_optimum(loss, epsilon, _path(4), monotone=True))


def test_tail_bound_with_side_information_matches_a_separate_lp() -> None:
    n, epsilon, t, q = 6, 0.5, 2.0, 0.3
    res = optmech.minimax_mechanism(
        "abs", epsilon, n=n, side_information=[2, 3, 4], constraints=TailBound(t, q)
    )
    values = np.arange(n + 1.0)
    far = (np.abs(values[None, :] - values[:, None]) > t).astype(float)
    assert np.max(np.sum(res.mechanism * far, axis=1)) <= q + RESIDUAL_TOL
    loss = np.abs(values[None, :] - values[:, None])
    loss[[0, 1, 5, 6]] = 0.0  # the user's worst case is over S only
    _in_interval(res, user_lp_optimum(loss, epsilon, _path(n), tail=(far, q)))


def test_max_risk_below_the_private_minimum_is_named() -> None:
    n, epsilon = 4, 1.0
    best = optmech.minimax_mechanism("abs", epsilon, n=n)  # least worst-input risk of ε-DP
    bound = 0.9 * best.lower_bound
    with pytest.raises(InfeasibleConstraintsError, match=r"MaxRisk") as info:
        optmech.bayesian_mechanism(
            np.full(n + 1, 0.2), "abs", epsilon, constraints=[MaxRisk(bound), Monotone()]
        )
    assert info.value.constraints == (repr(MaxRisk(bound)),)


def test_provenance_residuals_recomputed_from_the_matrix() -> None:
    n, epsilon = 4, 1.0
    outputs = np.arange(-2, n + 3, dtype=float)
    constraints = [Unbiased(), MaxRisk(2.5), Monotone(), TailBound(1.0, 0.6)]
    res = optmech.minimax_mechanism(
        "squared", epsilon, n=n, outputs=outputs, constraints=constraints
    )
    x, values = res.mechanism, np.arange(n + 1.0)
    loss = (outputs[None, :] - values[:, None]) ** 2
    cdf = np.cumsum(x, axis=1)
    far = np.abs(outputs[None, :] - values[:, None]) > 1.0
    expected = {
        "Unbiased()": np.max(np.abs(x @ outputs - values)) / np.max(np.abs(outputs)),
        "MaxRisk(bound=2.5)": max(0.0, np.max(np.sum(x * loss, axis=1)) - 2.5) / 2.5,
        "Monotone()": max(0.0, np.max(cdf[1:] - cdf[:-1])),
        "TailBound(t=1.0, probability=0.6)": max(0.0, np.max(np.sum(x * far, axis=1)) - 0.6),
    }
    records = {r.name: r for r in res.provenance.constraints}
    assert set(records) == set(expected)
    for name, value in expected.items():
        assert records[name].residual == pytest.approx(value, abs=1e-15)
        assert records[name].residual <= RESIDUAL_TOL
    assert res.certified_epsilon <= epsilon


def test_column_generation_refuses_constraints() -> None:
    with pytest.raises(ValueError, match=r"`method`.*`constraints`"):
        optmech.bayesian_mechanism(
            np.full(5, 0.2), "abs", 1.0, method="column-generation", constraints=Monotone()
        )
    with pytest.raises(ValueError, match=r"`method`.*`constraints`"):
        optmech.minimax_mechanism(
            "abs", 1.0, n=4, method="column-generation", constraints=[MaxRisk(3.0)]
        )


def test_auto_takes_the_whole_lp_with_constraints() -> None:
    """A count query with a monotone loss goes to column generation under "auto" without
    constraints; with one that never binds the whole LP gives the same optimum."""
    prior = np.full(7, 1 / 7)
    free = optmech.bayesian_mechanism(prior, "abs", 1.0)
    res = optmech.bayesian_mechanism(prior, "abs", 1.0, constraints=TailBound(0.0, 0.999))
    assert res.lower_bound - 1e-7 <= free.value and free.lower_bound - 1e-7 <= res.value


def test_constraints_need_increasing_values() -> None:
    with pytest.raises(ValueError, match="`outputs` must reach strictly below"):
        optmech.minimax_mechanism("abs", 1.0, n=3, constraints=Unbiased())
    with pytest.raises(TypeError, match="`constraints`"):
        optmech.minimax_mechanism("abs", 1.0, n=3, constraints=3)


def test_cli_user_constraints() -> None:
    from optmech.cli.user import compute

    out, result = compute(n=4, epsilon=1.0, loss="abs", minimax=True, unbiased=True, max_risk=3.0)
    outputs = np.asarray(out["outputs"])
    assert outputs.tolist() == list(range(-4, 9))  # widened by the inputs' range each side
    x = np.asarray(out["mechanism"])
    assert np.max(np.abs(x @ outputs - np.arange(5))) <= RESIDUAL_TOL * 8
    loss = np.abs(outputs[None, :] - np.arange(5)[:, None])
    assert np.max(np.sum(x * loss, axis=1)) <= 3.0 * (1 + RESIDUAL_TOL)
    assert [c["name"] for c in out["constraints"]] == ["Unbiased()", "MaxRisk(bound=3.0)"]
    assert out["geometric_value"] is None
    truth = user_lp_optimum(
        loss, 1.0, _path(4), means=np.arange(5.0), outputs=outputs, max_risk=3.0
    )
    _in_interval(result, truth)
    with pytest.raises(ValueError, match="`--max-risk` must be in"):
        compute(n=4, epsilon=1.0, minimax=True, max_risk=-1.0)


def test_callable_constraint_is_reported_with_its_violation() -> None:
    def first_row_answers_zero(variables: Any) -> list[Any]:
        return [variables.mechanism[0, 0] >= 0.6]

    res = optmech.minimax_mechanism("abs", 1.0, n=3, constraints=first_row_answers_zero)
    (record,) = res.provenance.constraints
    assert record.kind == "custom"
    assert record.residual == pytest.approx(max(0.0, 0.6 - res.mechanism[0, 0]), abs=1e-15)
    assert res.mechanism[0, 0] >= 0.6 - 1e-6  # the solver met it; the repair moves ~1e-10
    assert res.certified_epsilon <= 1.0


def test_constraints_on_a_graph_without_increasing_values_are_refused() -> None:
    from optmech.graphs import parse_graph

    grid = parse_graph("grid:2x2", None)
    with pytest.raises(ValueError, match="`constraints` Monotone"):
        optmech.minimax_mechanism("abs", 1.0, graph=grid, constraints=Monotone())


def test_unbiased_on_a_sensitivity_graph_matches_a_separate_lp() -> None:
    """A graph other than the path (neighbours up to 2 apart): privacy on its edges only."""
    from optmech.graphs import parse_graph

    n, epsilon = 4, 1.0
    graph = parse_graph("sensitivity:2", n)
    edges = [(i, j) for i in range(n + 1) for j in range(i + 1, min(n, i + 2) + 1)]
    outputs = np.arange(-4.0, 9.0)
    prior = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    res = optmech.bayesian_mechanism(
        prior, "abs", epsilon, graph=graph, outputs=outputs, constraints=Unbiased()
    )
    loss = np.abs(outputs[None, :] - np.arange(n + 1.0)[:, None])
    truth = user_lp_optimum(
        loss, epsilon, edges, prior=prior, means=np.arange(n + 1.0), outputs=outputs
    )
    _in_interval(res, truth)
    assert _edge_epsilon(res.mechanism, edges) <= epsilon * (1 + 1e-12)
    # the path alone would allow more: the graph's extra edges bind
    path = user_lp_optimum(
        loss, epsilon, _path(n), prior=prior, means=np.arange(n + 1.0), outputs=outputs
    )
    assert path < res.lower_bound - 1e-6
