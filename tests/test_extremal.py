"""`optmech.extremal_mechanism` and `optmech.utilities` against independent truth.

Independent truth: the staircase-pattern LP of Kairouz, Oh & Viswanath (2016) written here from
its definition (patterns from ``itertools.product``, the utility of each pattern evaluated term by
term in `tests/_local_reference.py`) and solved by scipy's ``linprog``; closed forms for
randomized response; random ε-LDP mechanisms (rows of entries in ``[1, e^(ε/2)]`` normalised,
which is ε-LDP because each row's sum lies in ``[m, m e^(ε/2)]``), none of which may beat the
certified upper bound. linprog's optimum is accurate to about 1e-7 relative (its HiGHS
tolerances): that is the slack of the comparisons with it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import optmech
from optmech.lp.local.extremal import binary_value, paper_binary_set, randomized_response_value
from optmech.mechanisms.randomized_response import randomized_response
from optmech.utilities import KLDivergence, MutualInformation
from tests._local_reference import REFERENCE_RTOL, kl_divergence, mutual_information


def _pattern_lp(utility_of: object, k: int, eps: float) -> float:
    from scipy.optimize import linprog

    ratio = math.exp(eps)
    columns = [
        np.array(bits, dtype=float) * (ratio - 1) + 1
        for bits in itertools.product([0, 1], repeat=k)
    ]
    s = np.stack(columns, axis=1)
    mu = np.array([utility_of(col[:, None]) for col in columns])  # type: ignore[operator]
    res = linprog(-mu, A_eq=s, b_eq=np.ones(k), bounds=(0, None))
    assert res.status == 0, res.message
    return float(-res.fun)


def _mi_of(prior: np.ndarray) -> object:
    return lambda column: mutual_information(prior, column)


def _kl_of(p0: np.ndarray, p1: np.ndarray) -> object:
    return lambda column: kl_divergence(p0, p1, column)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("eps", [0.3, 1.5, 4.0])
def test_mutual_information_optimum_matches_an_independent_pattern_lp(
    seed: int, eps: float
) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    prior = rng.dirichlet(np.ones(k))
    res = optmech.extremal_mechanism(MutualInformation(prior), eps)
    reference = _pattern_lp(_mi_of(prior), k, eps)
    slack = REFERENCE_RTOL * max(reference, 1e-3)
    assert res.value - slack <= reference <= res.upper_bound + slack
    assert res.upper_bound - res.value <= 1e-6 * max(res.value, 1.0)
    assert mutual_information(prior, res.mechanism) == pytest.approx(res.value, rel=1e-9)
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    assert optmech.certify_mechanism(res.mechanism, pairs).epsilon <= eps
    assert res.certified_epsilon <= eps


@pytest.mark.parametrize("seed", range(4))
def test_kl_optimum_matches_an_independent_pattern_lp(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 7))
    p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
    eps = float(rng.uniform(0.2, 5.0))
    res = optmech.extremal_mechanism(KLDivergence(p0, p1), eps)
    reference = _pattern_lp(_kl_of(p0, p1), k, eps)
    slack = REFERENCE_RTOL * max(reference, 1e-3)
    assert res.value - slack <= reference <= res.upper_bound + slack
    assert kl_divergence(p0, p1, res.mechanism) == pytest.approx(res.value, rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_no_random_ldp_mechanism_beats_the_certified_optimum(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    k, eps = 4, 1.2
    prior = rng.dirichlet(np.ones(k))
    res = optmech.extremal_mechanism(MutualInformation(prior), eps)
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    for _ in range(200):
        m = int(rng.integers(2, 9))
        a = np.exp(rng.uniform(0.0, eps / 2, size=(k, m)))
        q = a / a.sum(axis=1, keepdims=True)
        assert optmech.certify_mechanism(q, pairs).epsilon <= eps
        assert mutual_information(prior, q) <= res.upper_bound


def test_randomized_response_closed_form() -> None:
    """Uniform prior: ``I = log k − H(row)``, the row ``(a, b, …, b)``, ``a = e^ε/(e^ε+k−1)``."""
    k, eps = 5, 1.7
    a = math.exp(eps) / (math.exp(eps) + k - 1)
    b = 1 / (math.exp(eps) + k - 1)
    closed = math.log(k) + a * math.log(a) + (k - 1) * b * math.log(b)
    low, high = randomized_response_value(MutualInformation(np.full(k, 1 / k)), eps)
    assert low <= closed <= high and high - low < 1e-13
    q = randomized_response(k, eps)
    assert mutual_information(np.full(k, 1 / k), q) == pytest.approx(closed, rel=1e-13)


def test_binary_and_randomized_response_are_optimal_at_the_extremes() -> None:
    """Kairouz, Oh & Viswanath (2016): the binary mechanism is optimal for small ε, randomized
    response for large ε. Here at ε = 0.05 and ε = 12 for a 4-input prior: each value lies in
    the LP's certified interval (widened by the enclosures' width)."""
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    util = MutualInformation(prior)
    small = optmech.extremal_mechanism(util, 0.05)
    low, high = binary_value(util, 0.05)
    assert small.value <= high and low <= small.upper_bound
    large = optmech.extremal_mechanism(util, 12.0)
    low, high = randomized_response_value(util, 12.0)
    assert large.value <= high and low <= large.upper_bound
    middle = optmech.extremal_mechanism(util, 1.0)  # neither is optimal in between
    assert binary_value(util, 1.0)[1] < middle.value
    assert randomized_response_value(util, 1.0)[1] < middle.value


def test_paper_binary_set_for_hypothesis_testing() -> None:
    p0 = np.array([0.5, 0.1, 0.4])
    p1 = np.array([0.2, 0.3, 0.5])
    assert paper_binary_set(KLDivergence(p0, p1)).tolist() == [True, False, False]


def test_size_limit_and_bad_input() -> None:
    with pytest.raises(optmech.ProblemTooLargeError, match="2\\^15 = 32768 patterns"):
        optmech.extremal_mechanism(MutualInformation(np.full(15, 1 / 15)), 1.0)
    with pytest.raises(TypeError, match="`utility` must be"):
        optmech.extremal_mechanism("mutual information", 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`epsilon`"):
        optmech.extremal_mechanism(MutualInformation([0.5, 0.5]), -1.0)
    with pytest.raises(ValueError, match="`prior` must sum to 1"):
        MutualInformation([0.5, 0.6])
    with pytest.raises(ValueError, match="`p0` and `p1` must differ"):
        KLDivergence([0.5, 0.5], [0.5, 0.5])
    with pytest.raises(ValueError, match="`prior` must have one entry per input"):
        KLDivergence([0.5, 0.5], [0.2, 0.3, 0.5])


def test_twelve_inputs_are_solved_exactly() -> None:
    rng = np.random.default_rng(5)
    prior = rng.dirichlet(np.ones(12))
    res = optmech.extremal_mechanism(MutualInformation(prior), 2.0)
    assert res.upper_bound - res.value <= 1e-6 * max(res.value, 1.0)
    assert res.mechanism.shape[0] == 12 and res.mechanism.shape[1] <= 12
    assert mutual_information(prior, res.mechanism) == pytest.approx(res.value, rel=1e-9)
