"""Exact samplers (integer and rational arithmetic): each law against an independent formula.

Statistical tests: 4·10⁴ draws from ``random.Random(seed)`` (fixed seeds, reproducible), a
chi-square or binomial test at false-failure rate ``ALPHA = 1e-6`` each, the critical value
derived from it; cells with expected counts below 20 are merged (the chi-square approximation
holds). Independent truth: closed-form pmfs written in the tests, or the families' ``pmf``
(float formulas that share no code with the samplers).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import optmech
from optmech.mechanisms.exact_sampling import (
    RationalTable,
    bernoulli,
    bernoulli_exp,
    geometric_exp,
    geometric_ratio,
)

ALPHA = 1e-6
DRAWS = 40_000


def _chi_square_ok(samples: np.ndarray, support: np.ndarray, probs: np.ndarray) -> bool:
    """Chi-square goodness of fit at level ALPHA; cells expected below 20 merged into one
    cell with everything outside ``support``."""
    samples = np.asarray(samples)
    expected = DRAWS * probs
    big = expected >= 20
    observed = np.array([np.count_nonzero(samples == v) for v in support[big]])
    rest_obs = DRAWS - observed.sum()
    rest_exp = DRAWS - expected[big].sum()
    obs = np.append(observed, rest_obs) if rest_exp >= 20 else observed
    exp = np.append(expected[big], rest_exp) if rest_exp >= 20 else expected[big]
    if rest_exp < 20:  # fold the remainder into the last cell
        obs[-1] += rest_obs
        exp[-1] += rest_exp
    statistic = float(np.sum((obs - exp) ** 2 / exp))
    return statistic <= float(stats.chi2.isf(ALPHA, df=obs.size - 1))


@pytest.mark.parametrize("x", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_has_probability_exp_minus_x(x: Fraction) -> None:
    rng = random.Random(1)
    hits = sum(bernoulli_exp(x, rng) for _ in range(DRAWS))
    assert stats.binomtest(hits, DRAWS, math.exp(-float(x))).pvalue >= ALPHA


def test_rational_bernoulli_and_table_are_exact() -> None:
    rng = random.Random(2)
    hits = sum(bernoulli(Fraction(2, 7), rng) for _ in range(DRAWS))
    assert stats.binomtest(hits, DRAWS, 2 / 7).pvalue >= ALPHA
    weights = [0.1, 0.2, 1e-300, 0.7]
    table = RationalTable(weights)
    total = sum(Fraction(w) for w in weights)
    assert table.total == total
    assert [table.probability(i) for i in range(4)] == [Fraction(w) / total for w in weights]


@pytest.mark.parametrize("rate", [Fraction(1, 10), Fraction(1), Fraction(5, 2)])
def test_geometric_exp_against_its_pmf(rate: Fraction) -> None:
    rng = random.Random(3)
    draws = np.array([geometric_exp(rate, rng) for _ in range(DRAWS)])
    k = np.arange(0, 400)
    b = math.exp(-float(rate))
    assert _chi_square_ok(draws, k, (1 - b) * b**k)


@pytest.mark.parametrize("rho", [Fraction(1, 3), Fraction(0.6), Fraction(0.95), Fraction(0.999)])
def test_geometric_ratio_against_its_pmf(rho: Fraction) -> None:
    """No block level (ρ ≤ 1/2), one, five and ten levels of the binary factorisation."""
    rng = random.Random(4)
    draws = np.array([geometric_ratio(rho, rng) for _ in range(DRAWS)])
    r = float(rho)
    k = np.arange(0, 40_000)
    assert _chi_square_ok(draws, k, (1 - r) * r**k)


def _family_pmf_ok(noise: object, seed: int) -> bool:
    draws = noise.sample_exact(DRAWS, rng=random.Random(seed))  # type: ignore[attr-defined]
    k = np.arange(-400, 401)
    return _chi_square_ok(draws, k, np.asarray(noise.pmf(k)))  # type: ignore[attr-defined]


def test_geometric_family() -> None:
    assert _family_pmf_ok(optmech.Geometric(epsilon=0.7, sensitivity=2), 5)


@pytest.mark.parametrize(("eps", "delta", "r"), [(1.0, 5, 2), (0.5, 5, 5), (3.0, 5, 1)])
def test_discrete_staircase_family(eps: float, delta: int, r: int) -> None:
    assert _family_pmf_ok(optmech.DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r), 6)


def test_designed_lattice_noise() -> None:
    noise = optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=2, cost="squared", integer=True, periods=3
    )
    assert _family_pmf_ok(noise, 7)
    law = noise.grid_description()
    stored = sum(Fraction(float(v)) for v in law.masses)
    for base, ratio in (law.left_tail, law.right_tail):
        stored += sum(Fraction(float(v)) for v in base) / (1 - Fraction(float(ratio)))
    assert noise.exact_total == stored
    assert abs(float(stored) - 1.0) <= 1e-12


def test_types_and_reproducibility() -> None:
    g = optmech.Geometric(epsilon=1.0)
    one = g.sample_exact(rng=random.Random(9))
    assert isinstance(one, int)
    a = g.sample_exact((3, 4), rng=random.Random(9))
    b = g.sample_exact((3, 4), rng=random.Random(9))
    assert a.shape == (3, 4) and a.dtype == np.int64 and np.array_equal(a, b)
    assert isinstance(g.sample_exact(), int)  # the default: the operating system's entropy


def test_bad_arguments() -> None:
    g = optmech.Geometric(epsilon=1.0)
    with pytest.raises(TypeError, match="`rng` must be None or have a getrandbits method"):
        g.sample_exact(3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="`size`"):
        g.sample_exact(-1, rng=random.Random(0))


def test_user_mechanism_sample_follows_its_row() -> None:
    """Releases for input i follow row i of the certified mechanism (chi-square, ALPHA)."""
    user = optmech.bayesian_mechanism(np.full(8, 1 / 8), "abs", 0.7)
    for i in (0, 3):
        draws = user.rvs(i, DRAWS, rng=random.Random(10 + i))
        assert draws.dtype == np.int64
        assert _chi_square_ok(draws, np.arange(8), user.mechanism[i])
    assert isinstance(user.rvs(3, rng=random.Random(0)), int)
    with pytest.raises(ValueError, match="`true_value` must be one of the inputs"):
        user.rvs(8)
