"""Tests of the discrete staircase (Geng & Viswanath 2016, discrete setting).

References are computed here by brute force: the pmf of Geng & Viswanath 2016 written out, summed
over a range far beyond where it underflows; the optimum by evaluating every r. Statistical tests:
fixed seeds, false-failure rate ``ALPHA = 1e-6`` each.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.discrete_staircase import DiscreteStaircase
from optmech.privacy import PureDP

_spec = importlib.util.spec_from_file_location(
    "_epsdp_helpers", Path(__file__).with_name("_epsdp_helpers.py")
)
helpers = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(helpers)  # type: ignore[union-attr]
ALPHA = helpers.ALPHA

PARAMS = [  # (epsilon, sensitivity, r)
    (1.0, 5, 2),
    (0.3, 4, 4),
    (2.0, 7, 1),
    (5.0, 3, 2),
    (20.0, 3, 2),
    (0.05, 2, 1),
    (1.0, 1, 1),
]


def theory_pmf(i: np.ndarray, eps: float, delta: int, r: int) -> np.ndarray:
    """Geng & Viswanath 2016, discrete setting, written out."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * r + 2 * b * (delta - r) - (1 - b))
    m = np.abs(i)
    k = m // delta
    return np.where(m - k * delta < r, a * b**k, a * b ** (k + 1))


def support(eps: float, delta: int) -> np.ndarray:
    """Integers where the pmf exceeds ~1e-30 relative (and then some)."""
    reach = int(delta * (75 / eps + 2))
    return np.arange(-reach, reach + 1)


def brute_cost(cost, eps: float, delta: int, r: int) -> float:
    i = support(eps, delta)
    return helpers.lattice_expectation(cost, i, theory_pmf(i, eps, delta, r))


@pytest.mark.parametrize(("eps", "delta", "r"), PARAMS)
def test_pmf_cdf_ppf(eps: float, delta: int, r: int) -> None:
    d = DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    i = support(eps, delta)
    p = theory_pmf(i, eps, delta, r)
    np.testing.assert_allclose(d.pmf(i), p, rtol=1e-13)
    assert math.fsum(p.tolist()) == pytest.approx(1.0, abs=1e-14)
    assert math.fsum(np.asarray(d.pmf(i)).tolist()) == pytest.approx(1.0, abs=1e-14)
    cumulative = np.cumsum(p)
    # where the mass left of the summed range is below 1e-13 of the cdf itself
    window = np.abs(i) <= min(60, int(delta * 40 / eps))
    np.testing.assert_allclose(d.cdf(i[window]), cumulative[window], rtol=1e-12)
    assert d.cdf(2.5) == d.cdf(2.0) and d.pmf(0.5) == 0.0
    assert d.cdf(-np.inf) == 0.0 and d.cdf(np.inf) == 1.0
    q = np.array([1e-200, 1e-9, 0.01, 0.3, float(d.cdf(-1)), 0.5, 0.77, 0.999, 1 - 1e-12])
    x = d.ppf(q)
    assert np.all(x == np.round(x))
    assert np.all(d.cdf(x) >= q * (1 - 1e-14))
    assert np.all(d.cdf(x - 1) < q)
    assert d.ppf(0.0) == -np.inf and d.ppf(1.0) == np.inf


@pytest.mark.parametrize(("eps", "delta", "r"), PARAMS)
def test_expected_costs_equal_brute_force_sums(eps: float, delta: int, r: int) -> None:
    d = DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    i = support(eps, delta)
    costs = [Absolute(), Squared(), *helpers.LATTICE_COSTS]
    helpers.assert_expected_costs(d, costs, i, theory_pmf(i, eps, delta, r))


@pytest.mark.parametrize(
    ("delta", "eps", "spec", "r_star", "value"),
    [(5, 1.0, "abs", 2, 4.78628), (5, 1.0, "squared", 3, 48.0337), (10, 5.0, "abs", 1, 0.66516)],
)
def test_reference_points(delta, eps, spec, r_star, value) -> None:
    best = DiscreteStaircase.optimal(epsilon=eps, sensitivity=delta, cost=spec)
    assert best.r == r_star
    digits = len(str(value).split(".")[1])
    assert round(best.expected_cost(spec), digits) == value


@pytest.mark.parametrize(("eps", "delta"), [(0.2, 6), (1.0, 9), (3.0, 4), (0.7, 12)])
def test_optimal_is_brute_force_argmin(eps: float, delta: int) -> None:
    for cost in (Absolute(), Squared(), Power(0.5), ZeroOne(3.0)):
        values = [brute_cost(cost, eps, delta, r) for r in range(1, delta + 1)]
        best = DiscreteStaircase.optimal(epsilon=eps, sensitivity=delta, cost=cost)
        assert best.expected_cost(cost) == pytest.approx(min(values), rel=1e-10), cost
        assert values[best.r - 1] <= min(values) * (1 + 1e-12)


def test_large_sensitivity_search_is_fast_and_consistent() -> None:
    best = DiscreteStaircase.optimal(epsilon=1.0, sensitivity=20_000, cost="abs")
    for r in (best.r - 1, best.r + 1):
        other = DiscreteStaircase(epsilon=1.0, sensitivity=20_000, r=r)
        assert other.expected_cost("abs") >= best.expected_cost("abs")


@pytest.mark.parametrize("eps", [0.05, 1.0, 8.0])
def test_sensitivity_one_is_the_geometric(eps: float) -> None:
    d = DiscreteStaircase(epsilon=eps, sensitivity=1, r=1)
    i = np.arange(-60, 61)
    b = math.exp(-eps)
    np.testing.assert_allclose(d.pmf(i), (1 - b) / (1 + b) * b ** np.abs(i), rtol=1e-13)
    assert d.expected_cost("abs") == pytest.approx(2 * b / (1 - b * b), rel=1e-13)
    assert d.expected_cost("squared") == pytest.approx(2 * b / (1 - b) ** 2, rel=1e-13)


@pytest.mark.parametrize(("eps", "delta", "r"), PARAMS)
def test_pmf_ratio_within_sensitivity_is_at_most_e_eps(eps: float, delta: int, r: int) -> None:
    d = DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    assert d.privacy == PureDP(eps)
    i = np.arange(-6 * delta, 6 * delta + 1, dtype=float)
    log_p = np.log(d.pmf(i))
    worst = max(float(np.max(log_p - np.log(d.pmf(i + s)))) for s in range(-delta, delta + 1))
    assert worst == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize(("eps", "delta", "r"), PARAMS)
def test_sampler_goodness_of_fit(eps: float, delta: int, r: int) -> None:
    """Chi-square with merged tail cells; false-failure rate ALPHA."""
    d = DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    samples = d.rvs(200_000, rng=4242)
    assert np.all(samples == np.round(samples))
    assert helpers.chi_square_pvalue(samples, d.pmf) > ALPHA


def test_sampler_goodness_of_fit_detects_a_wrong_law() -> None:
    wrong = DiscreteStaircase(epsilon=1.0, sensitivity=5, r=3).rvs(200_000, rng=1)
    right = DiscreteStaircase(epsilon=1.0, sensitivity=5, r=2)
    assert helpers.chi_square_pvalue(wrong, right.pmf) < ALPHA


@pytest.mark.parametrize(("eps", "delta", "r"), [(1.0, 3, 2), (2.0, 2, 1)])
def test_empirical_privacy_of_neighbouring_outputs(eps: float, delta: int, r: int) -> None:
    """Counts of t + X and t + Δ + X per integer; false-failure rate ALPHA overall."""
    d = DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    edges = np.arange(5 - 5 * delta, 5 + 6 * delta + 1) - 0.5
    helpers.assert_neighbours_private(d, eps, shift=delta, edges=edges, seeds=(21, 22), offset=5)


def test_rvs_reproducible_and_parameters() -> None:
    """(Its repr and sample shapes: test_epsdp_families.)"""
    d = DiscreteStaircase(epsilon=1.0, sensitivity=4, r=3)
    np.testing.assert_array_equal(d.rvs(7, rng=3), d.rvs(7, rng=3))
    assert d.r == 3 and d.sensitivity == 4


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"epsilon": 1.0, "sensitivity": 2.5, "r": 1},
            ValueError,
            r"`sensitivity` must be an integer in \[1, 1000000\]; got 2.5",
        ),
        ({"epsilon": 1.0, "sensitivity": 0, "r": 1}, ValueError, r"`sensitivity`.*got 0"),
        ({"epsilon": 1.0, "sensitivity": 10**7, "r": 1}, ValueError, r"`sensitivity`"),
        ({"epsilon": 1.0, "sensitivity": "3", "r": 1}, TypeError, r"`sensitivity`"),
        ({"epsilon": 1.0, "sensitivity": True, "r": 1}, TypeError, r"`sensitivity`"),
        ({"epsilon": 1.0, "sensitivity": 3, "r": 0}, ValueError, r"`r` must be .*\[1, 3\]; got 0"),
        ({"epsilon": 1.0, "sensitivity": 3, "r": 4}, ValueError, r"`r`.*\[1, 3\]; got 4"),
        ({"epsilon": 1.0, "sensitivity": 3, "r": 1.5}, ValueError, r"`r`"),
        ({"epsilon": 0.0, "sensitivity": 3, "r": 1}, ValueError, r"`epsilon`"),
        ({"epsilon": math.nan, "sensitivity": 3, "r": 1}, ValueError, r"`epsilon`"),
        ({"epsilon": math.inf, "sensitivity": 3, "r": 1}, ValueError, r"`epsilon`"),
    ],
)
def test_bad_parameters_raise(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        DiscreteStaircase(**kwargs)


def test_optimal_rejects_costs_outside_the_theorem() -> None:
    with pytest.raises(ValueError, match="symmetric"):
        DiscreteStaircase.optimal(epsilon=1.0, sensitivity=3, cost=Asymmetric(over=2, under=1))
    with pytest.raises(ValueError, match="non-decreasing"):
        DiscreteStaircase.optimal(
            epsilon=1.0, sensitivity=3, cost=Custom(lambda e: np.cos(e) + 2.0)
        )
    with pytest.raises(ValueError, match="`sensitivity`"):
        DiscreteStaircase.optimal(epsilon=1.0, sensitivity=1.5, cost="abs")
