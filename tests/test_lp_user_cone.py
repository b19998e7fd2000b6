"""The cone of ε-DP columns on a tree: pricing DP, rays, least shift and the Lagrangian bound.

Independent truth: brute force over every sign pattern of the extreme rays (``2^(N−1)`` of them
for N ≤ 9), evaluated in ball arithmetic (python-flint ``arb`` at 200 bits: ``e^ε`` enclosed,
so the enclosures are rigorous and about 1e-59 wide); the dense matrix product for the decay
sums; and for the bound, the exact optimum of the GRS LP (the geometric mechanism with the Bayes
remap in rational arithmetic, Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1) and the full
LP solved by Clarabel (a different solver and method).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from _reference import g_plus_bayes_remap_exact
from flint import arb, ctx

from optmech.graphs import edge_pairs
from optmech.lp.matrix.build import row_forms
from optmech.lp.user import bayesian_mechanism, minimax_mechanism
from optmech.lp.user.cone import (
    RAY_FLOOR,
    RootedTree,
    cone_minimum,
    cone_minimum_below,
    decay_products,
    extreme_rays,
    kink_operator,
    kinks,
    least_shift,
    steepest_rays,
)
from optmech.lp.user.cone_bounds import dual_cone_bound, epigraph_cone_bound, linear_cone_bound

ctx.prec = 200


def trees() -> list[RootedTree]:
    """Paths of 2–9 rows and random labelled trees of 3–8 rows (fixed seeds)."""
    out = [RootedTree.path(n) for n in (2, 3, 5, 9)]
    for n, seed in [(3, 1), (5, 2), (7, 3), (8, 4)]:
        g = nx.random_labeled_tree(n, seed=seed)
        src, dst = edge_pairs(g)
        tree = RootedTree.of(src, dst, n)
        assert tree is not None
        out.append(tree)
    return out


def pattern_logs(tree: RootedTree) -> list[list[int]]:
    """Every sign pattern as the integer exponents ``k_v`` of ``x_v = e^(k_v ε)`` (root 0)."""
    n = tree.size
    others = [int(v) for v in tree.order[1:]]
    out = []
    for signs in itertools.product((-1, 1), repeat=n - 1):
        step = dict(zip(others, signs, strict=True))
        k = [0] * n
        for v in others:  # breadth-first: the parent is done
            k[v] = k[int(tree.parent[v])] + step[v]
        out.append(k)
    return out


def pattern_values(w: np.ndarray, tree: RootedTree, eps: float, shift: float = 0.0) -> list[arb]:
    """``(w + shift) · x`` for every pattern with ``x_root = 1``, in ball arithmetic."""
    e = arb(eps)
    return [
        sum((arb(float(w[v])) + arb(shift)) * (e * kv).exp() for v, kv in enumerate(k))
        for k in pattern_logs(tree)
    ]


def brute_min(w: np.ndarray, tree: RootedTree, eps: float) -> float:
    return float(min(v.mid() for v in pattern_values(w, tree, eps)))


def brute_ratio(w: np.ndarray, tree: RootedTree, eps: float) -> float:
    """``max over patterns of −w · x / Σx``."""
    e = arb(eps)
    best = -math.inf
    for k in pattern_logs(tree):
        xs = [(e * kv).exp() for kv in k]
        num = sum(arb(float(w[v])) * x for v, x in enumerate(xs))
        best = max(best, float((-num / sum(xs)).mid()))
    return best


@pytest.mark.parametrize("tree", trees(), ids=lambda t: f"N{t.size}{'path' if t.is_path else ''}")
@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_dp_finds_the_minimum_over_every_sign_pattern(tree: RootedTree, eps: float) -> None:
    """``cone_minimum`` equals the brute-force minimum over all ``2^(N−1)`` extreme rays
    (relative 1e-12: a handful of roundings in sums of at most 9 terms of size ``e^(9ε)``), and
    its pattern attains it."""
    rng = np.random.default_rng(tree.size * 100 + int(eps * 10))
    w = rng.normal(size=(tree.size, 6)) + 0.2
    values, descending = cone_minimum(w, tree, eps)
    rays = extreme_rays(descending, tree, eps)
    for r in range(w.shape[1]):
        truth = brute_min(w[:, r], tree, eps)
        scale = float(np.sum(np.abs(w[:, r]))) * math.exp(eps * tree.size)
        assert abs(values[r] - truth) <= 1e-12 * scale
        root_scaled = rays[:, r] / rays[0, r]  # x_root = 1
        assert abs(float(w[:, r] @ root_scaled) - truth) <= 1e-12 * scale


@pytest.mark.parametrize("tree", trees(), ids=lambda t: f"N{t.size}{'path' if t.is_path else ''}")
def test_rounded_down_dp_is_below_the_exact_minimum(tree: RootedTree) -> None:
    """Every value of ``cone_minimum_below`` is at most the exact minimum (the lower end of its
    200-bit enclosure), also when that minimum is exactly 0 (a column at the cone's boundary)."""
    eps = 0.7
    rng = np.random.default_rng(tree.size)
    w = rng.normal(size=(tree.size, 5))
    w[:, 0] += brute_ratio(w[:, 0], tree, eps)  # column 0: minimum 0 up to one rounding
    below = cone_minimum_below(w, tree, eps)
    for r in range(w.shape[1]):
        exact_low = min((v.lower() for v in pattern_values(w[:, r], tree, eps)), key=float)
        assert arb(float(below[r])) <= exact_low


def test_least_shift_is_near_the_least_far_below_the_bracket_width() -> None:
    """A column whose least shift (about 1e-13) is far below its bracket's width
    (``2^-40 max|w|`` = 1.4e-10, set by an entry ``e^5`` the ray reaches decayed): the proved
    shift is within 5% of the brute-force ratio, not at the bracket's upper end; multiplied by
    ``N`` that difference was the bound's whole gap on large priors."""
    tree, eps = RootedTree.path(5), 5.0
    w = np.array([[-1.0], [math.exp(5.0) * (1.0 - 1e-13)], [0.0], [0.0], [0.0]])
    exact = brute_ratio(w[:, 0], tree, eps)
    _, hi, _ = steepest_rays(w, tree, eps)
    assert hi[0] > 100 * exact  # the bracket alone would not do
    t = least_shift(w, tree, eps)
    assert all(v.lower() >= 0 for v in pattern_values(w[:, 0], tree, eps, t))
    assert exact <= t <= 1.05 * exact


@pytest.mark.parametrize("tree", trees(), ids=lambda t: f"N{t.size}{'path' if t.is_path else ''}")
def test_least_shift_is_proved_and_near_the_least(tree: RootedTree) -> None:
    """``w + t`` is in the dual cone for every column (every pattern's value, enclosed, is
    non-negative), and ``t`` exceeds the brute-force ``max_r max_x (−w_r · x / Σx)`` by at most
    1e-9 of the weights' scale; ``steepest_rays`` brackets each column's ratio."""
    eps = 0.9
    rng = np.random.default_rng(7 * tree.size)
    w = rng.normal(size=(tree.size, 4)) + 0.5
    t = least_shift(w, tree, eps)
    ratios = [brute_ratio(w[:, r], tree, eps) for r in range(w.shape[1])]
    assert t >= max(ratios) and t - max(ratios) <= 1e-9 * float(np.max(np.abs(w)))
    for r in range(w.shape[1]):
        assert all(v.lower() >= 0 for v in pattern_values(w[:, r], tree, eps, t))
    lo, hi, _ = steepest_rays(w, tree, eps)
    for r, ratio in enumerate(ratios):
        if ratio > 0:  # columns already in the cone report 0
            assert abs(lo[r] - ratio) <= 1e-9 and abs(hi[r] - ratio) <= 1e-9


def test_extreme_rays_follow_their_patterns_and_stay_above_the_floor() -> None:
    """Ratios of neighbours are exactly ``e^(±ε)`` (to rounding) as the pattern says; far down a
    long path the entries stop at the floor rather than underflow to 0 (a zero facing a positive
    entry would not be private)."""
    tree = RootedTree.path(400)
    eps = 5.0
    descending = np.zeros((400, 2), dtype=bool)
    descending[1:, 0] = True  # falls all the way
    descending[1::2, 1] = True  # zig-zag
    rays = extreme_rays(descending, tree, eps)
    assert rays[0, 0] == 1.0 and rays[-1, 0] == RAY_FLOOR
    assert np.all(rays > 0) and np.all(np.diff(rays[:, 0]) <= 0)
    ratios = rays[1:, 1] / rays[:-1, 1]
    assert np.allclose(ratios, np.where(np.arange(1, 400) % 2 == 1, math.exp(-eps), math.exp(eps)))


@pytest.mark.parametrize("tree", trees(), ids=lambda t: f"N{t.size}{'path' if t.is_path else ''}")
def test_decay_products_equal_the_dense_product(tree: RootedTree) -> None:
    """``D[j, r] = Σ_i e^(−ε d(i, j)) W[i, r]`` against the distance matrix (networkx)."""
    eps = 0.6
    g = nx.Graph()
    g.add_nodes_from(range(tree.size))
    g.add_edges_from((int(v), int(tree.parent[v])) for v in tree.order[1:])
    dist = np.array(
        [[nx.shortest_path_length(g, i, j) for j in range(tree.size)] for i in range(tree.size)]
    )
    w = np.random.default_rng(3).random((tree.size, 3))
    assert np.allclose(decay_products(w, tree, eps), np.exp(-eps * dist) @ w, rtol=1e-13)


def test_non_trees_are_recognised() -> None:
    assert RootedTree.of(np.array([0, 1, 2]), np.array([1, 2, 0]), 3) is None  # a cycle
    assert RootedTree.of(np.array([0, 2]), np.array([1, 3]), 4) is None  # 3 edges missing one
    tree = RootedTree.of(np.array([3, 2, 1]), np.array([2, 1, 0]), 4)  # the path, reversed edges
    assert tree is not None and tree.is_path


def exact_grs_optimum(prior: list[Fraction], power: int, eps: float) -> Fraction:
    """The GRS optimum at a rational ``α`` just above ``e^(−ε)`` (one ulp; the optimum is
    non-decreasing in α, so this bounds the float-ε LP's optimum from above)."""
    n = len(prior) - 1
    loss = [[Fraction(abs(i - r) ** power) for r in range(n + 1)] for i in range(n + 1)]
    return g_plus_bayes_remap_exact(prior, loss, Fraction(math.nextafter(math.exp(-eps), 1.0)))


@pytest.mark.parametrize(("n", "eps", "power"), [(5, math.log(2), 1), (8, math.log(3), 2)])
def test_bound_from_any_multipliers_stays_below_the_exact_optimum(
    n: int, eps: float, power: int
) -> None:
    """``Σ y − N t`` is a lower bound whatever ``y`` is: random, huge, or the optimal
    multipliers of column generation (then it is within 1e-9 of the optimum)."""
    rng = np.random.default_rng(n)
    counts = [int(c) for c in rng.integers(1, 8, size=n + 1)]
    prior = [Fraction(c, sum(counts)) for c in counts]
    p = np.array([float(v) for v in prior])
    i = np.arange(n + 1)
    loss = np.abs(i[:, None] - i[None, :]).astype(float) ** power
    weights = p[:, None] * loss
    # The exact weights differ from the floats by an ulp: a bound for the float weights is a
    # bound for the exact LP up to that, which the 1e-15 slack covers.
    opt = float(exact_grs_optimum(prior, power, eps)) * (1 + 1e-15)
    tree = RootedTree.path(n + 1)
    for y in [rng.normal(size=n + 1), 1e6 * rng.normal(size=n + 1), np.zeros(n + 1)]:
        assert dual_cone_bound(weights, y, tree, eps) <= opt
    res = bayesian_mechanism(p, loss, eps, method="column-generation")
    assert res.lower_bound <= opt <= res.value * (1 + 1e-15)
    assert res.lower_bound >= opt * (1 - 1e-9)
    assert linear_cone_bound(weights, np.full(n + 1, -1.0), tree, eps) == 0.0  # never below 0


def test_epigraph_bound_stays_below_the_minimax_optimum_of_another_solver() -> None:
    """Minimax user, |e|, n = 12: for random epigraph and row-sum multipliers the bound stays
    below Clarabel's certified value of the full LP (an upper bound of the optimum)."""
    n, eps = 12, 0.8
    full = minimax_mechanism("abs", eps, n=n, solver="CLARABEL", method="full")
    i = np.arange(n + 1)
    forms = row_forms(np.abs(i[:, None] - i[None, :]).astype(float), i)
    tree = RootedTree.path(n + 1)
    rng = np.random.default_rng(5)
    for _ in range(5):
        mu = rng.random(n + 1) * (rng.random(n + 1) < 0.5)
        y = rng.normal(size=n + 1)
        bound = epigraph_cone_bound(forms, (n + 1, n + 1), y, mu, tree, eps)
        assert 0.0 <= bound <= full.value
    assert epigraph_cone_bound(forms, (n + 1, n + 1), np.zeros(n + 1), None, tree, eps) == 0.0


@pytest.mark.parametrize("tree", trees(), ids=lambda t: f"N{t.size}{'path' if t.is_path else ''}")
def test_kink_operator_inverts_the_peaked_rays_and_finds_the_kinks(tree: RootedTree) -> None:
    """``L = (1 − α²) A⁻¹`` for ``A = (α^d(i, j))`` (distances by networkx), and for random
    patterns ``L x`` is ``(1 − α²)(1 − k_v) x_v`` with ``k_v`` counted from the ray itself (the
    neighbours whose entry is larger)."""
    eps = 0.45
    alpha = math.exp(-eps)
    g = nx.Graph()
    g.add_nodes_from(range(tree.size))
    g.add_edges_from((int(v), int(tree.parent[v])) for v in tree.order[1:])
    dist = np.array(
        [[nx.shortest_path_length(g, i, j) for j in range(tree.size)] for i in range(tree.size)]
    )
    op, ones = kink_operator(tree, eps)
    assert np.allclose(alpha**dist @ op.toarray(), (1 - alpha**2) * np.eye(tree.size))
    assert np.allclose(ones, op.toarray().sum(axis=1))
    descending = np.random.default_rng(tree.size).random((tree.size, 20)) < 0.5
    rays = extreme_rays(descending, tree, eps)
    above = np.zeros(rays.shape)
    for u, v in g.edges:
        above[u] += rays[v] > rays[u]
        above[v] += rays[u] > rays[v]
    expected = (1 - alpha**2) * (1 - above) * rays
    assert np.allclose(op @ rays, expected, atol=1e-14)
    assert np.array_equal(kinks(descending, tree), (1 - above).astype(int))


def test_bound_with_any_multipliers_stays_below_another_solvers_optimum() -> None:
    """A random loss matrix on a random tree (no closed form): for random multipliers the bound
    stays below Clarabel's certified value of the full LP, and with column generation's own
    multipliers it meets it within the certified widths."""
    g = nx.random_labeled_tree(9, seed=12)
    rng = np.random.default_rng(12)
    prior = rng.dirichlet(np.ones(9))
    loss = rng.random((9, 5))
    full = bayesian_mechanism(prior, loss, 0.7, graph=g, solver="CLARABEL")
    src, dst = edge_pairs(g)
    tree = RootedTree.of(src, dst, 9)
    assert tree is not None
    weights = prior[:, None] * loss
    for scale in (0.01, 1.0, 100.0):
        assert linear_cone_bound(weights, scale * rng.normal(size=9), tree, 0.7) <= full.value
    ours = bayesian_mechanism(prior, loss, 0.7, graph=g, method="column-generation")
    assert ours.lower_bound <= full.value and full.lower_bound <= ours.value
