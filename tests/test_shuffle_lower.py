"""The lower bound of ``optmech.shuffle_epsilon``: the four-set curve against truths computed
here another way.

- Small cases: the law of the whole histogram (every output) is enumerated for user 1 at
  x⁰ or x¹ and every other user at one input o, and its curve Σ_H (P₀(H) − e^ε P₁(H))₊ summed.
  For k-ary randomized response with S0 = {x⁰}, S1 = {x¹}, S2 = {o} the four counts lose
  nothing (the other outputs are alike under the three rows), so the curve equals it; for any
  other partition the curve is of a post-processing and lies below it, and equals the curve of
  the enumerated four-group histogram.
- Larger n: E[(Σ_g z_g H_g)₊]/n summed over the whole multinomial grid of the four groups,
  its pmf from log-gamma functions (the module sums slices of binomials instead).
- One published number is shown not to be an upper bound: Wang et al.'s variation-ratio code
  (PVLDB 2024, wangsw/PrivacyAmplification, ``amplificationUB`` with p = q = e^ε₀,
  β = (e^ε₀ − 1)/(e^ε₀ + k − 1), 20 bisection steps; ``benchmarks/shuffle.py`` runs it) gives
  ε = 0.3219986 for 32-ary randomized response at ε₀ = 4, n = 10⁴, δ = 10⁻⁶; a concrete pair
  of datasets has a larger ε there.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from _shuffle_reference import brute_delta, histogram_law
from scipy.special import gammaln

import optmech
from optmech.certify import shuffle_lower
from optmech.certify.shuffle_curves import _window
from optmech.certify.shuffle_lower import _four_set_laws, _FourSetsCurve

EPS = (0.0, 0.2, 0.6, 1.5)


def rr(eps0: float, k: int) -> npt.NDArray[np.float64]:
    """k-ary randomized response: the truth with probability e^ε₀ / (e^ε₀ + k − 1)."""
    e = math.exp(eps0)
    return (e * np.eye(k) + (1.0 - np.eye(k))) / (e + k - 1)


def random_matrix(seed: int, k_in: int, k_out: int, eps0: float) -> npt.NDArray[np.float64]:
    rng = np.random.default_rng(seed)
    m = np.exp(rng.uniform(0.0, eps0 / 2, size=(k_in, k_out))) * rng.dirichlet(np.ones(k_out))
    return m / m.sum(axis=1, keepdims=True)


def enumerated(rows: tuple[npt.NDArray[np.float64], ...], n: int, eps: float) -> float:
    """δ(ε) of the histogram of user 1 at ``rows[0]`` against ``rows[1]``, the n − 1 others
    at ``rows[2]``, by enumeration."""
    first, second, other = rows
    p = histogram_law([first, *[other] * (n - 1)])
    q = histogram_law([second, *[other] * (n - 1)])
    return sum(max(p[h] - math.exp(eps) * q.get(h, 0.0), 0.0) for h in p)


def projected(
    matrix: npt.NDArray[np.float64], sets: list[npt.NDArray[np.bool_]]
) -> npt.NDArray[np.float64]:
    """The rows' laws over the output sets."""
    return np.stack([matrix[:, s].sum(axis=1) for s in sets], axis=1)


@pytest.mark.parametrize("k", [3, 4, 5])
@pytest.mark.parametrize("eps0", [0.7, 2.0])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_k_rr_four_sets_are_the_whole_histogram(k: int, eps0: float, n: int) -> None:
    """k-RR, pair (0, 1), others at 2: the four-set curve is the enumerated curve of the
    whole histogram, below it by at most its rounding allowance (`_SLACK` = 1e-12 times the
    magnitudes of the terms summed, a few units of 1e-12 here)."""
    m = rr(eps0, k)
    eye = np.eye(k, dtype=bool)
    laws = projected(m, [eye[0], eye[1], eye[2], ~(eye[0] | eye[1] | eye[2])])
    assert all(np.array_equal(a, b) for a, b in zip(_four_set_laws(m)[0], laws[:3], strict=True))
    curve = _FourSetsCurve(n - 1, laws[0], laws[1], laws[2])
    for eps in EPS:
        truth = enumerated((m[0], m[1], m[2]), n, eps)
        assert truth - 1e-11 <= curve(eps) <= truth


@pytest.mark.parametrize("seed", range(6))
def test_any_partition_is_a_post_processing(seed: int) -> None:
    """Random matrices and random partitions into four sets: the curve is the enumerated
    curve of the four groups' histogram, and below that of the whole histogram."""
    rng = np.random.default_rng(seed)
    k_out, n = int(rng.integers(4, 6)), int(rng.integers(2, 6))
    m = random_matrix(seed, 3, k_out, 2.0)
    label = rng.permutation(np.arange(k_out) % 4)  # every group non-empty
    laws = projected(m, [label == g for g in range(4)])
    curve = _FourSetsCurve(n - 1, laws[0], laws[1], laws[2])
    for eps in EPS:
        grouped = enumerated((laws[0], laws[1], laws[2]), n, eps)
        assert grouped - 1e-11 <= curve(eps) <= grouped
        assert curve(eps) <= enumerated((m[0], m[1], m[2]), n, eps)


def multinomial_curve(laws: npt.NDArray[np.float64], n: int, eps: float) -> float:
    """E[(Σ_g z_g H_g)₊]/n over the whole grid of H ~ Mult(n; laws[2])."""
    first, second, q = laws
    z = (first - math.exp(eps) * second) / q
    h = np.stack(np.meshgrid(*[np.arange(n + 1)] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    h = h[h.sum(axis=1) <= n]
    counts = np.column_stack([h, n - h.sum(axis=1)])
    log_pmf = gammaln(n + 1.0) - gammaln(counts + 1.0).sum(axis=1) + counts @ np.log(q)
    return float(np.dot(np.exp(log_pmf), np.maximum(counts @ z, 0.0)) / n)


@pytest.mark.parametrize("seed", range(4))
def test_larger_n_against_the_whole_multinomial(seed: int) -> None:
    """n = 60: the curve (slices, zones and windows) against the sum over every histogram of
    the four groups: below it, by at most its rounding allowance (`_SLACK` times the terms'
    magnitudes) and the mass outside its windows."""
    m = random_matrix(seed, 3, 6, 3.0)
    label = np.random.default_rng(seed).permutation(np.arange(6) % 4)
    laws = projected(m, [label == g for g in range(4)])
    curve = _FourSetsCurve(59, laws[0], laws[1], laws[2])
    for eps in EPS:
        truth = multinomial_curve(laws, 60, eps)
        assert truth * (1 - 1e-9) - 1e-13 <= curve(eps) <= truth


def test_blocks_of_the_outer_count_stay_below(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counts of comparable spreads (S0 against S1, S2 against the rest) at n = 2000 make
    too many thresholds: the inner window narrows and the outer count goes in blocks
    (Jensen). The curve can only drop, the more the smaller the budget, and stays positive."""
    first, second = np.array([0.3, 0.2, 0.3, 0.2]), np.array([0.2, 0.3, 0.2, 0.3])
    law = np.full(4, 0.25)
    values = []
    for budget in (10**8, shuffle_lower._MAX_POINTS, 1000, 1):
        monkeypatch.setattr(shuffle_lower, "_MAX_POINTS", budget)
        values.append(_FourSetsCurve(1999, first, second, law)(0.01))
    assert values == sorted(values, reverse=True) and values[-1] > 0.0


def test_degenerate_laws_give_numbers() -> None:
    """n = 2, empty groups, a group the others never reach, laws past 1 by ulps: finite
    values in [0, 1] (a group the others never reach is merged, a post-processing)."""
    rows = [
        ([0.6, 0.3, 0.0, 0.1], [0.3, 0.6, 0.0, 0.1], [0.3, 0.3, 0.0, 0.4]),  # S2 empty
        ([0.7, 0.2, 0.1], [0.2, 0.7, 0.1], [0.5, 0.5 + 4e-16, 0.0]),  # three sets, past 1
        ([0.5, 0.2, 0.2, 0.1], [0.2, 0.5, 0.2, 0.1], [0.4, 0.4, 0.0, 0.2]),  # S2 never reached
        ([0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]),  # identical rows
        ([1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]),  # others elsewhere
    ]
    cases = [tuple(np.array(x) for x in row) for row in rows]
    assert _window(1000, 1.0 + 4e-16) == (990, 1000)
    for others in (1, 2, 100):
        for first, second, law in cases:
            curve = _FourSetsCurve(others, first, second, law)
            for eps in EPS:
                value = curve(eps)
                assert math.isfinite(value) and 0.0 <= value <= 1.0
    # the merged group: its curve is that of the laws with the group moved into S0's place
    first, second, law = cases[2]
    merged = _FourSetsCurve(1, first, second, law)
    moved = [np.array([x[0] + x[2], x[1], 0.0, x[3]]) for x in (first, second)]
    assert merged(0.2) == _FourSetsCurve(1, *moved, law)(0.2)
    assert merged(0.2) <= enumerated((first, second, law), 2, 0.2)


@pytest.mark.parametrize("seed", range(20))
def test_lower_bound_stays_below_the_certified_epsilon(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    k_in, k_out = int(rng.integers(2, 7)), int(rng.integers(3, 9))
    m = random_matrix(seed, k_in, k_out, float(rng.uniform(0.5, 5.0)))
    for n in (2, 7, 300, 20_000):
        g = optmech.shuffle_epsilon(m, n, 1e-6)
        assert 0.0 <= g.lower_bound <= g.epsilon <= g.local_epsilon


@pytest.mark.parametrize("seed", range(4))
def test_a_finer_partition_gives_a_larger_curve(seed: int) -> None:
    """S2 split from the rest refines (S0, S1, rest): the four-set curve is above the
    three-set one (up to rounding), for the laws `_four_set_laws` builds."""
    m = random_matrix(seed, 5, 7, 2.0)
    for first, second, law in _four_set_laws(m):
        merge = [np.array([x[0], x[1], 0.0, x[2] + x[3]]) for x in (first, second, law)]
        four, three = _FourSetsCurve(499, first, second, law), _FourSetsCurve(499, *merge)
        for eps in (0.05, 0.2, 0.5):
            assert four(eps) >= three(eps) - 1e-13


@pytest.mark.slow
@pytest.mark.parametrize(
    ("k", "eps0", "published"),
    [
        (32, 4.0, 0.3219986),
        (32, 2.0, 0.05051612854003906),
        (64, 4.0, 0.2702674865722656),
        (64, 2.0, 0.03647041320800781),
    ],
)
def test_published_variation_ratio_numbers_are_below_a_concrete_pair(
    k: int, eps0: float, published: float
) -> None:
    """n = 10⁴, δ = 10⁻⁶: the ε of Wang et al.'s published code (module docstring) is below
    the ε of a concrete pair of datasets, so it is not an upper bound; optmech's certified ε
    stays above that pair's. Matrix and closed form agree."""
    g = optmech.shuffle_epsilon(rr(eps0, k), 10_000, 1e-6)
    assert published < g.lower_bound <= g.epsilon
    h = optmech.shuffle_epsilon(optmech.GRR(k, eps0), 10_000, 1e-6)
    assert published < h.lower_bound <= h.epsilon


@pytest.mark.parametrize(
    "oracle",
    [
        optmech.GRR(4, 1.0),
        optmech.OUE(3, 1.0),
        optmech.HadamardResponse(3, 1.5),
        optmech.SubsetSelection(4, 1.0, d=2),
    ],
    ids=lambda o: type(o).__name__,
)
def test_oracle_lower_bounds_are_reached(oracle: Any) -> None:
    """Four users, δ = 0.05: at the lower bound (closed form, and from the matrix) the true
    curve, enumerated over every pair and dataset, is at least δ."""
    matrix = np.asarray(oracle.randomizer.matrix)
    lower = []
    for mechanism in (oracle, matrix):
        g = optmech.shuffle_epsilon(mechanism, 4, 0.05)
        assert 0.0 < g.lower_bound <= g.epsilon
        lower.append(g.lower_bound)
    assert brute_delta(matrix, 4, max(lower)) >= 0.05  # the true curve is non-increasing
