"""Tests of the discrete staircase (Geng & Viswanath 2016, discrete setting).

References are computed here by brute force: the pmf of Geng & Viswanath 2016 written out, summed
over a range far beyond where it underflows; the optimum by evaluating every r. What every family
shares (goodness of fit, empirical privacy, bad parameters, quantiles, tails, repr) is checked by
the conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import LATTICE_COSTS, assert_expected_costs, lattice_expectation

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.discrete_staircase import DiscreteStaircase
from optmech.privacy import PureDP

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
    return lattice_expectation(cost, i, theory_pmf(i, eps, delta, r))


@pytest.mark.parametrize(("eps", "delta", "r"), PARAMS)
def test_pmf_and_cdf_are_the_written_pmf(eps: float, delta: int, r: int) -> None:
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


@pytest.mark.parametrize(("eps", "delta", "r"), PARAMS)
def test_expected_costs_equal_brute_force_sums(eps: float, delta: int, r: int) -> None:
    d = DiscreteStaircase(epsilon=eps, sensitivity=delta, r=r)
    i = support(eps, delta)
    costs = [Absolute(), Squared(), *LATTICE_COSTS]
    assert_expected_costs(d, costs, i, theory_pmf(i, eps, delta, r))


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


def test_optimal_rejects_costs_outside_the_theorem() -> None:
    with pytest.raises(ValueError, match="symmetric"):
        DiscreteStaircase.optimal(epsilon=1.0, sensitivity=3, cost=Asymmetric(over=2, under=1))
    with pytest.raises(ValueError, match="non-decreasing"):
        DiscreteStaircase.optimal(
            epsilon=1.0, sensitivity=3, cost=Custom(lambda e: np.cos(e) + 2.0)
        )
    with pytest.raises(ValueError, match="`sensitivity`"):
        DiscreteStaircase.optimal(epsilon=1.0, sensitivity=1.5, cost="abs")
