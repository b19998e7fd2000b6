"""Remaps (optmech.lp.remap, geometric_remaps, remap_of_geometric) against independent truth.

* Bayes remap: brute force over every deterministic remap.
* Minimax remap: the same LP written entry by entry for scipy's linprog.
* ``G⁻¹M``: a dense solve with ``G`` written from GRS (2012), §2.
* Constraint matrix: the definitions of GRS §5 evaluated in exact rational arithmetic.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from _reference import g_plus_bayes_remap, geometric_from_theory
from scipy.optimize import linprog

from optmech.lp.geometric_remaps import check_monotone_loss, geometric_bayes, geometric_minimax
from optmech.lp.remap import apply_remap, bayes_remap, minimax_remap
from optmech.lp.remap_of_geometric import (
    constraint_matrix,
    geometric_inverse_apply,
    is_remap_of_geometric,
    remap_from_constraint_matrix,
    remap_of_geometric,
)


def random_stochastic(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    m = rng.random((rows, cols))
    return m / m.sum(axis=1, keepdims=True)


def test_bayes_remap_is_the_best_deterministic_remap() -> None:
    rng = np.random.default_rng(1)
    m = random_stochastic(rng, 5, 4)
    prior = rng.dirichlet(np.ones(5))
    loss = rng.uniform(0, 2, size=(5, 3))
    best = math.inf
    for choice in itertools.product(range(3), repeat=4):
        t = np.eye(3)[list(choice)]
        best = min(best, float(np.sum(prior[:, None] * loss * (m @ t))))
    res = bayes_remap(m, prior, loss)
    assert res.value == pytest.approx(best, rel=1e-12)
    assert res.kind == "bayes"
    assert np.array_equal(res.remap, np.eye(3)[res.assignment])
    assert np.allclose(res.mechanism, m @ res.remap)


def linprog_minimax_remap(m: np.ndarray, loss: np.ndarray, side: list[int]) -> float:
    n_z, k = m.shape[1], loss.shape[1]
    nv = n_z * k + 1
    c = np.zeros(nv)
    c[-1] = 1.0
    a_ub = []
    for i in side:
        row = np.zeros(nv)
        for z in range(n_z):
            for r in range(k):
                row[z * k + r] = m[i, z] * loss[i, r]
        row[-1] = -1.0
        a_ub.append(row)
    a_eq = np.zeros((n_z, nv))
    for z in range(n_z):
        a_eq[z, z * k : (z + 1) * k] = 1.0
    res = linprog(
        c,
        A_ub=np.array(a_ub),
        b_ub=np.zeros(len(side)),
        A_eq=a_eq,
        b_eq=np.ones(n_z),
        bounds=[(0, None)] * (nv - 1) + [(None, None)],
        method="highs",
    )
    assert res.status == 0
    return float(res.fun)


def test_minimax_remap_matches_linprog_and_can_be_randomized() -> None:
    rng = np.random.default_rng(2)
    m = random_stochastic(rng, 6, 5)
    loss = rng.uniform(0, 3, size=(6, 4))
    side = [0, 2, 5]
    res = minimax_remap(m, loss, side)
    ref = linprog_minimax_remap(m, loss, side)
    assert res.value >= ref - 1e-12
    assert res.value - ref <= 1e-8 * max(ref, 1.0)
    assert res.lower_bound <= ref * (1 + 1e-12)  # Lagrangian bound: rigorous
    assert res.value - res.lower_bound <= 1e-6 * ref
    assert np.allclose(res.remap.sum(axis=1), 1.0)
    assert res.kind == "minimax" and res.assignment is None


def test_geometric_minimax_is_g_plus_the_best_randomized_remap() -> None:
    n, eps = 5, 0.8
    loss = np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1))).astype(float) ** 2
    side = [0, 4]
    res = geometric_minimax(loss, eps, side_information=side)
    ref = linprog_minimax_remap(geometric_from_theory(n, eps), loss, side)
    assert res.value >= ref - 1e-12
    assert res.value - ref <= 1e-8 * ref


@pytest.mark.parametrize(("n", "eps"), [(1, 0.05), (6, 0.7), (12, 5.0)])
def test_geometric_inverse_matches_a_dense_solve(n: int, eps: float) -> None:
    rng = np.random.default_rng(n)
    m = random_stochastic(rng, n + 1, 4)
    dense = np.linalg.solve(geometric_from_theory(n, eps), m)
    assert np.allclose(geometric_inverse_apply(m, eps), dense, rtol=1e-9, atol=1e-9)


def test_remap_of_g_is_recognised_and_recovered() -> None:
    rng = np.random.default_rng(4)
    n, eps = 9, 1.2
    t = random_stochastic(rng, n + 1, 6)
    t[t < 0.1] = 0.0  # exact zeros in T
    t /= t.sum(axis=1, keepdims=True)
    m = geometric_from_theory(n, eps) @ t
    ok, recovered = is_remap_of_geometric(m, eps, atol=0.0)
    assert ok
    assert np.allclose(recovered, t, atol=1e-10)
    res = remap_of_geometric(m, eps, atol=0.0)
    assert res.residual < 1e-12


def test_randomized_response_is_not_a_remap() -> None:
    n, eps = 6, 1.0
    rr = np.full((n + 1, n + 1), 1.0) + math.expm1(eps) * np.eye(n + 1)
    rr /= rr.sum(axis=1, keepdims=True)
    # Independent: the dense inverse has clearly negative entries.
    assert np.linalg.solve(geometric_from_theory(n, eps), rr).min() < -0.05
    ok, _ = is_remap_of_geometric(rr, eps)
    assert not ok


def test_tolerance_accepts_accuracy_of_entries_and_no_more() -> None:
    n, eps = 5, 0.5
    g = geometric_from_theory(n, eps)
    t = np.eye(n + 1)
    t[1] = np.eye(n + 1)[2]  # T has zeros: G⁻¹M has exact zeros that noise can push below 0
    m = g @ t
    a = math.exp(-eps)
    kappa = ((1 + a) / (1 - a)) ** 2
    noise = np.zeros_like(m)
    noise[2, 1] = 1e-10  # M's column 1 is zero in exact arithmetic
    noise[2, 0] = -1e-10
    noisy = m + noise
    assert is_remap_of_geometric(noisy, eps, atol=1e-9)[0]
    big = m.copy()
    big[2, 1] += 1e-4
    big[2, 0] -= 1e-4
    res = remap_of_geometric(big, eps, atol=1e-9)
    assert not res.is_remap
    assert res.min_entry < -1e-9 * kappa


def test_constraint_matrix_follows_the_definitions_exactly() -> None:
    """Fig. 2 of GRS (2012) in rational arithmetic, classified from the definitions of GRS §5."""
    n, half = 5, Fraction(1, 2)
    g = [
        [
            half**i / (1 + half)
            if j == 0
            else half ** (n - i) / (1 + half)
            if j == n
            else half ** abs(i - j) * (1 - half) / (1 + half)
            for j in range(n + 1)
        ]
        for i in range(n + 1)
    ]
    remap = [0, 2, 2, 3, 4, 5]
    m = [
        [sum((g[i][z] for z in range(n + 1) if remap[z] == r), Fraction(0)) for r in range(n + 1)]
        for i in range(n + 1)
    ]
    expected = []
    for i in range(n):
        row = []
        for r in range(n + 1):
            if all(m[k][r] == 0 for k in range(n + 1)):
                row.append("Z")
            elif m[i][r] == 2 * m[i + 1][r]:
                row.append("L")
            elif m[i + 1][r] == 2 * m[i][r]:
                row.append("H")
            else:
                row.append("S")
        expected.append(row)
    floats = np.array([[float(v) for v in row] for row in m])
    got = constraint_matrix(floats, math.log(2))
    assert got.tolist() == expected
    t = remap_from_constraint_matrix(got)
    assert [int(np.argmax(row)) for row in t] == remap


@pytest.mark.parametrize("seed", range(3))
def test_constructive_remap_inverts_lemma_5_10(seed: int) -> None:
    """Map consecutive intervals of G's outputs to increasing columns; read the map back."""
    rng = np.random.default_rng(seed)
    n, eps = 12, float(rng.uniform(0.2, 3))
    cuts = np.sort(rng.choice(np.arange(1, n + 1), size=4, replace=False))
    columns = np.sort(rng.choice(8, size=5, replace=False))
    t = np.zeros((n + 1, 8))
    for block, z in enumerate(np.split(np.arange(n + 1), cuts)):
        t[z, columns[block]] = 1.0
    m = geometric_from_theory(n, eps) @ t
    assert np.array_equal(remap_from_constraint_matrix(constraint_matrix(m, eps)), t)


def test_constructive_remap_rejects_non_staircase_patterns() -> None:
    with pytest.raises(ValueError, match="not of the form"):
        remap_from_constraint_matrix([["L"], ["H"]])
    with pytest.raises(ValueError, match="partition"):
        remap_from_constraint_matrix([["L", "L"], ["L", "L"]])
    with pytest.raises(ValueError, match="mixes Z"):
        remap_from_constraint_matrix([["Z"], ["L"]])
    with pytest.raises(ValueError, match="'Z', 'S', 'L' or 'H'"):
        remap_from_constraint_matrix([["Q"]])


def test_monotone_loss_check_and_theorem_guards() -> None:
    i = np.arange(4)
    asym = np.where(i[None, :] >= i[:, None], 3.0, 1.0) * np.abs(i[None, :] - i[:, None])
    np.testing.assert_array_equal(check_monotone_loss(asym), asym)  # accepted, returned as given
    bumpy = np.abs(np.subtract.outer(i, i)).astype(float)
    bumpy[0, 3] = 0.5  # l(0, 3) < l(0, 2): not monotone in |i − r|
    with pytest.raises(ValueError, match="row 0 decreases from r = 2 to r = 3"):
        check_monotone_loss(bumpy)
    with pytest.raises(ValueError, match="non-decreasing"):
        geometric_bayes(np.full(4, 0.25), bumpy, 1.0)
    with pytest.raises(ValueError, match="non-decreasing"):
        geometric_minimax(bumpy, 1.0)
    res = geometric_bayes(np.full(4, 0.25), bumpy, 1.0, require_monotone=False)
    # Outside the theorem it is still G and the Bayes remap: Σ_z min_r Σ_i p_i G[i, z] L[i, r].
    assert res.value == pytest.approx(g_plus_bayes_remap(np.full(4, 0.25), bumpy, 1.0), rel=1e-12)
    with pytest.raises(ValueError, match="square"):
        geometric_bayes(np.full(4, 0.25), np.ones((4, 3)), 1.0)


def test_apply_remap_and_input_checks() -> None:
    m = np.array([[0.5, 0.5], [0.2, 0.8]])
    assert np.allclose(apply_remap(m, [[0, 1], [1, 0]]), [[0.5, 0.5], [0.8, 0.2]])
    with pytest.raises(ValueError, match="one row per output"):
        apply_remap(m, np.eye(3))
    with pytest.raises(ValueError, match="rows must sum to 1"):
        apply_remap(m, [[0.5, 0.4], [0, 1]])
    with pytest.raises(ValueError, match="non-negative"):
        bayes_remap([[1.5, -0.5], [0.5, 0.5]], [0.5, 0.5], "abs")
    with pytest.raises(ValueError, match="must sum to 1"):
        bayes_remap(m, [0.5, 0.6], "abs")
    with pytest.raises(ValueError, match="`epsilon`"):
        is_remap_of_geometric(m, 0.0)
    with pytest.raises(ValueError, match="`atol`"):
        is_remap_of_geometric(m, 1.0, atol=-1.0)


def test_minimax_remap_refuses_huge_lps_before_building() -> None:
    from optmech.exceptions import ProblemTooLargeError

    m = np.full((300, 300), 1 / 300)
    with pytest.raises(ProblemTooLargeError, match="refused before building"):
        minimax_remap(m, "abs")
