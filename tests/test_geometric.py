"""Tests of the two-sided geometric noise and the range-restricted geometric.

References: the pmf ``(1 − β)/(1 + β) β^|k|`` written out and summed by brute force, the
moment formulas ``E|X| = 2β/(1 − β²)``, ``E X² = 2β/(1 − β)²``, and the worked example of
Ghosh, Roughgarden & Sundararajan 2012 (Fig. 2) for the range-restricted mechanism. What every
family shares is checked by the conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from _reference import FIG2_STRINGS, LATTICE_COSTS, assert_expected_costs

from optmech.costs import Absolute, Squared
from optmech.mechanisms.geometric import Geometric, truncated_geometric
from optmech.privacy import PureDP

PARAMS = [(1.0, 1), (0.1, 1), (2.0, 3), (6.0, 2), (30.0, 1)]  # (epsilon, sensitivity)


def pmf(k: np.ndarray, eps: float, delta: int) -> np.ndarray:
    beta = math.exp(-eps / delta)
    return (1 - beta) / (1 + beta) * beta ** np.abs(k)


def support(eps: float, delta: int) -> np.ndarray:
    reach = int(80 * delta / eps) + 5
    return np.arange(-reach, reach + 1)


@pytest.mark.parametrize(("eps", "delta"), PARAMS)
def test_pmf_and_cdf_are_the_written_pmf(eps: float, delta: int) -> None:
    g = Geometric(epsilon=eps, sensitivity=delta)
    k = support(eps, delta)
    p = pmf(k, eps, delta)
    np.testing.assert_allclose(g.pmf(k), p, rtol=1e-13)
    assert math.fsum(np.asarray(g.pmf(k)).tolist()) == pytest.approx(1.0, abs=1e-14)
    window = np.abs(k) <= min(50, int(40 * delta / eps))
    np.testing.assert_allclose(g.cdf(k[window]), np.cumsum(p)[window], rtol=1e-12)
    assert g.beta == pytest.approx(math.exp(-eps / delta), rel=1e-15)


@pytest.mark.parametrize(("eps", "delta"), PARAMS)
def test_expected_costs(eps: float, delta: int) -> None:
    g = Geometric(epsilon=eps, sensitivity=delta)
    beta = math.exp(-eps / delta)
    assert g.expected_cost(Absolute()) == pytest.approx(2 * beta / (1 - beta**2), rel=1e-12)
    assert g.expected_cost(Squared()) == pytest.approx(2 * beta / (1 - beta) ** 2, rel=1e-12)
    k = support(eps, delta)
    p = pmf(k, eps, delta)
    assert_expected_costs(g, LATTICE_COSTS, k, p)


@pytest.mark.parametrize(("eps", "delta"), PARAMS)
def test_pmf_ratio_within_sensitivity(eps: float, delta: int) -> None:
    g = Geometric(epsilon=eps, sensitivity=delta)
    assert g.privacy == PureDP(eps)
    k = np.arange(-5 * delta, 5 * delta + 1, dtype=float)
    log_p = np.log(g.pmf(k))
    worst = max(float(np.max(log_p - np.log(g.pmf(k + s)))) for s in range(-delta, delta + 1))
    assert worst == pytest.approx(eps, rel=1e-12)


# -- range-restricted geometric (GRS) -----------------------------------------------------------
@pytest.mark.parametrize(("n", "eps"), [(1, 0.5), (5, math.log(2)), (40, 1.3), (200, 0.05)])
def test_truncated_geometric_formula_rows_and_privacy(n: int, eps: float) -> None:
    m = truncated_geometric(n, eps)
    assert m.shape == (n + 1, n + 1)
    alpha = math.exp(-eps)
    for i in (0, n // 3, n):
        for j in range(n + 1):
            if j == 0:
                expected = alpha**i / (1 + alpha)
            elif j == n:
                expected = alpha ** (n - i) / (1 + alpha)
            else:
                expected = alpha ** abs(i - j) * (1 - alpha) / (1 + alpha)
            assert m[i, j] == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(m.sum(axis=1), 1.0, rtol=1e-13)
    log_ratio = np.abs(np.log(m[1:]) - np.log(m[:-1]))
    assert float(log_ratio.max()) == pytest.approx(eps, rel=1e-12)


def test_truncated_geometric_reproduces_grs_figure_2() -> None:
    """n = 5, ε = ln 2, G remapped by 1 → 2 (all else fixed): the matrix of Ghosh, Roughgarden &
    Sundararajan 2012, Fig. 2."""
    figure = FIG2_STRINGS
    expected = np.array([[float(Fraction(v)) for v in row] for row in figure])
    g = truncated_geometric(5, math.log(2))
    remapped = g.copy()
    remapped[:, 2] += remapped[:, 1]
    remapped[:, 1] = 0.0
    np.testing.assert_allclose(remapped, expected, rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((0, 1.0), ValueError, r"`n` must be an integer in \[1, 5000\]; got 0"),
        ((2.5, 1.0), ValueError, r"`n`"),
        ((10**6, 1.0), ValueError, r"`n`.*memory"),
        (("3", 1.0), TypeError, r"`n`"),
        ((3, 0.0), ValueError, r"`epsilon`"),
        ((3, -1.0), ValueError, r"`epsilon`"),
        ((3, math.inf), ValueError, r"`epsilon`"),
        ((3, None), TypeError, r"`epsilon`"),
    ],
)
def test_truncated_geometric_bad_inputs(args, error, match) -> None:
    with pytest.raises(error, match=match):
        truncated_geometric(*args)
