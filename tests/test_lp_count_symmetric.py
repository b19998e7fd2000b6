"""Mirror-symmetry reduction of the Bayesian user LP (optmech.lp.user, ``reduce_symmetric``).

Independent truth:

* the same instance solved without the reduction (the full LP of ``build_user_lp``);
* GRS Thm. 3.1: for losses monotone in ``|i − r|`` the optimum is the geometric mechanism
  ``G`` (written here from GRS (2012), §2) followed by the Bayes remap (an explicit argmin);
* privacy: the ratios of adjacent rows recomputed here.

Tolerances: both solves use HiGHS (n ≤ 30: under ``SOLVER_POLICY["count"]``) at 1e-10
feasibility, and the certified values are re-evaluated at certified mechanisms: 1e-9 relative
between the two solves, 1e-7 relative (1e-9 absolute) against G + remap, as in
tests/test_lp_count.py. The lower bound is rigorous, so it may not exceed the value by more
than summation rounding (1e-12 relative).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from _reference import g_plus_bayes_remap

from optmech.graphs import path_graph
from optmech.lp.user import (
    LPData,
    LPForm,
    MirrorReduction,
    bayesian_mechanism,
    is_mirror_symmetric,
    minimax_mechanism,
)


def max_log_ratio_path(m: np.ndarray) -> float:
    """Largest |log(m[i, r] / m[i + 1, r])| over adjacent rows (inf if one entry is 0 alone)."""
    a, b = m[:-1], m[1:]
    both_zero = (a == 0) & (b == 0)
    one_zero = (a == 0) ^ (b == 0)
    if np.any(one_zero):
        return math.inf
    with np.errstate(divide="ignore"):
        logs = np.abs(np.log(np.where(both_zero, 1.0, a)) - np.log(np.where(both_zero, 1.0, b)))
    return float(logs.max())


def symmetric_prior(n: int, rng: np.random.Generator) -> np.ndarray:
    q = rng.uniform(0.05, 1.0, n + 1)
    p = q + q[::-1]  # exactly mirrored (floating addition commutes)
    return p / p.sum()


def distance_loss(n: int, power: int) -> np.ndarray:
    i = np.arange(n + 1)
    return np.abs(i[:, None] - i[None, :]).astype(np.float64) ** power


CASES = [  # (n, eps, power of |e|): n even and odd (a middle row / none), several ε
    (7, 0.3, 1),
    (8, 1.0, 1),
    (19, 2.0, 1),
    (30, 0.5, 1),
    (8, 0.5, 2),
    (13, 1.5, 2),
    (24, 0.7, 2),
]


@pytest.mark.parametrize(("n", "eps", "power"), CASES)
def test_reduced_matches_full_lp_and_grs(n: int, eps: float, power: int) -> None:
    rng = np.random.default_rng(1000 * n + power)
    prior = symmetric_prior(n, rng)
    loss = distance_loss(n, power)
    red = bayesian_mechanism(prior, loss, eps, method="full")
    full = bayesian_mechanism(prior, loss, eps, reduce_symmetric=False, method="full")
    assert red.symmetry_reduced and not full.symmetry_reduced
    size = (n + 1) ** 2
    assert red.provenance.num_variables == (size + 1) // 2
    assert full.provenance.num_variables == size
    assert red.value == pytest.approx(full.value, rel=1e-9, abs=1e-12)
    # Certified ε-DP, recomputed here.
    assert red.mechanism.shape == (n + 1, n + 1)
    assert np.all(red.mechanism >= 0)
    np.testing.assert_allclose(red.mechanism.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert max_log_ratio_path(red.mechanism) <= eps * (1 + 1e-9)
    assert red.certified_epsilon <= eps * (1 + 1e-9)
    # The value is the objective at the returned matrix, and equals G + Bayes remap.
    assert red.value == pytest.approx(
        float(np.sum(prior[:, None] * loss * red.mechanism)), rel=1e-12
    )
    ref = g_plus_bayes_remap(prior, loss, eps)
    assert red.value == pytest.approx(ref, rel=1e-7, abs=1e-9)
    assert red.value >= ref * (1 - 1e-11)
    # The dual bound is rigorous and tight.
    assert red.lower_bound <= red.value * (1 + 1e-12)
    assert red.lower_bound >= ref - 1e-7 * ref - 1e-9
    # The point the LP returned is mirror-symmetric (expanded from orbits; the row
    # normalisation sums mirrored rows in opposite orders, hence a few ulps).
    np.testing.assert_allclose(
        red.raw_mechanism, red.raw_mechanism[::-1, ::-1], rtol=1e-14, atol=1e-16
    )


def test_zero_one_loss_and_uniform_prior() -> None:
    n, eps = 11, 0.8
    prior = np.full(n + 1, 1.0 / (n + 1))
    red = bayesian_mechanism(prior, "zero-one", eps, method="full")
    full = bayesian_mechanism(prior, "zero-one", eps, reduce_symmetric=False, method="full")
    assert red.symmetry_reduced
    assert red.value == pytest.approx(full.value, rel=1e-9)
    loss = 1.0 - np.eye(n + 1)
    assert red.value == pytest.approx(g_plus_bayes_remap(prior, loss, eps), rel=1e-7)
    assert red.lower_bound <= red.value


def test_non_square_outputs() -> None:
    """σ(i, r) = (n − i, m − 1 − r) with m ≠ N: loss (i(m−1) − r n)², exact integers."""
    n, m, eps = 6, 4, 0.9
    i = np.arange(n + 1)[:, None]
    r = np.arange(m)[None, :]
    loss = ((i * (m - 1) - r * n) ** 2).astype(np.float64)
    prior = symmetric_prior(n, np.random.default_rng(5))
    red = bayesian_mechanism(prior, loss, eps, method="full")
    full = bayesian_mechanism(prior, loss, eps, reduce_symmetric=False, method="full")
    assert red.symmetry_reduced and red.mechanism.shape == (n + 1, m)
    assert red.value == pytest.approx(full.value, rel=1e-9, abs=1e-12)
    assert max_log_ratio_path(red.mechanism) <= eps * (1 + 1e-9)
    assert full.lower_bound - 1e-9 <= red.lower_bound <= red.value * (1 + 1e-12)


def test_asymmetric_instances_are_not_reduced() -> None:
    n, eps = 9, 1.0
    rng = np.random.default_rng(7)
    loss = distance_loss(n, 1)
    skewed = rng.uniform(0.1, 1.0, n + 1)
    skewed /= skewed.sum()
    res = bayesian_mechanism(skewed, loss, eps)
    assert not res.symmetry_reduced
    assert res.value == pytest.approx(g_plus_bayes_remap(skewed, loss, eps), rel=1e-7)
    # One ulp off symmetric: the check is exact, so no reduction.
    prior = np.full(n + 1, 1.0 / (n + 1))
    prior[0] = np.nextafter(prior[0], 1.0)
    assert not bayesian_mechanism(prior, loss, eps, normalize=True).symmetry_reduced
    # An asymmetric loss with a symmetric prior.
    uniform = np.full(n + 1, 1.0 / (n + 1))
    i = np.arange(n + 1)
    diff = i[None, :] - i[:, None]
    lopsided = np.where(diff > 0, 2.0 * diff, -diff).astype(np.float64)
    assert not bayesian_mechanism(uniform, lopsided, eps).symmetry_reduced
    # A mirror-symmetric matrix on a graph that is not the path (a cycle).
    cycle = nx.cycle_graph(n + 1)
    assert not is_mirror_symmetric(uniform[:, None] * loss, cycle)
    assert not bayesian_mechanism(uniform, loss, eps, graph=cycle).symmetry_reduced


def test_vertex_and_minimax_are_not_reduced() -> None:
    n, eps = 10, 0.5
    prior = np.full(n + 1, 1.0 / (n + 1))
    loss = distance_loss(n, 1)
    vert = bayesian_mechanism(prior, loss, eps, vertex=True)
    assert not vert.symmetry_reduced
    assert vert.provenance.num_variables == (n + 1) ** 2
    assert vert.value == pytest.approx(g_plus_bayes_remap(prior, loss, eps), rel=1e-9)
    assert not minimax_mechanism(loss, eps).symmetry_reduced


def test_bad_flag() -> None:
    with pytest.raises(TypeError, match="reduce_symmetric"):
        bayesian_mechanism(np.full(3, 1 / 3), "abs", 1.0, reduce_symmetric="yes")


@pytest.mark.parametrize("n", [4, 5])
def test_mirror_problem_has_one_row_per_orbit(n: int) -> None:
    """Sizes of the orbit LP, and no two constraint rows alike (nor mirrors of each other)."""
    size = (n + 1) ** 2
    eps = 0.7
    lp, inverse = MirrorReduction(path_graph(n)).apply(
        LPData((n + 1, n + 1), weights=np.ones((n + 1, n + 1))), eps, LPForm()
    )
    y, expand = lp.variable, inverse.expand_point
    assert y.size == (size + 1) // 2
    eq, dp = lp.simplex, lp.forward
    assert [c.id for c in lp.problem.constraints] == [eq.id, dp.id]
    assert eq.size == n // 2 + 1 and dp.size == n * (n + 1)
    # Read the constraint rows back as coefficients on y (evaluate on unit vectors).
    basis = np.eye(y.size)
    rows_eq = np.stack([_expr_value(eq.args[0], y, col) for col in basis], axis=1)
    rows_dp = np.stack([_expr_value(dp.args[0], y, col) for col in basis], axis=1)
    for rows in (rows_eq, rows_dp):
        assert np.unique(np.round(rows, 12), axis=0).shape[0] == rows.shape[0]
    # The DP rows, expanded to X, are exactly the upward rows x[i, r] − e^ε x[i + 1, r].
    point = np.random.default_rng(3).uniform(size=y.size)
    x = expand(point)
    upward = (x[:-1] - math.exp(eps) * x[1:]).ravel()
    np.testing.assert_allclose(rows_dp @ point, upward, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(x, x[::-1, ::-1])


def _expr_value(expr, var, value: np.ndarray) -> np.ndarray:
    var.value = value
    return np.asarray(expr.value, dtype=np.float64).reshape(-1)
