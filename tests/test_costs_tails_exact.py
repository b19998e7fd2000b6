"""Geometric tail sums of the built-in costs against exact rational arithmetic.

``Cost.periodic_integral`` and ``Cost.periodic_sum`` at ratios up to ``e^−ε`` for ε = 1e-6 (the
smallest ε a design takes): a tail of ``10⁶`` periods, whose value is about ``10^(6(p+1))``
times its first term. The references are exact rationals built from the float inputs
(`fractions.Fraction`): the moments ``S_i = Σ_k k^i ρ^k`` from the recurrence
``(1 − ρ)S_i = [i = 0] + Σ_{j<i} C(i, j)(−1)^(i−j+1)(S_j − [j = 0])`` (a telescoping of
``k^i − (k − 1)^i``, not the Eulerian numbers the code uses), the periods whose cells reach the
near half line (or cross ``±t``) summed one by one, and the rest expanded binomially.

Stated accuracy: every result is a sum of non-negative terms of a few roundings each, so its
relative error is at most a few units of roundoff ``u = 2^−53`` per term. The tests allow
``4(p + 2)u`` for a power ``p`` (``p + 1`` binomial terms plus the periods summed one by one;
the largest error measured on these cases is 3.6u) and ``16u`` for the zero-one cost.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from _exact_tails import (
    exact_power_integral,
    exact_power_sum,
    exact_zero_one_integral,
    exact_zero_one_sum,
    power_law,
    relative_error,
)

from optmech.costs import Absolute, Asymmetric, Cost, Power, Squared, ZeroOne
from optmech.lp.additive.spec import tail_ratio_for

U = 2.0**-53
RATIOS = [0.0, 0.5, math.exp(-1.0), tail_ratio_for(1e-3), tail_ratio_for(1e-6)]


POWER_COSTS = [Absolute(), Squared(), Power(3), Power(5), Asymmetric(over=3.0, under=0.5, p=2.0)]
CELLS = [(3.0, 3.0 + 1.0 / 41.0), (0.0, 0.125), (1e6, 1e6 + 1e-3), (2.5, 0.5), (-0.7, 0.4)]


def _cell_edges(period: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The ``CELLS`` as arrays of left and right edges, each cell mirrored to ``(−b, −a)`` for
    a negative period."""
    a = np.array([c[0] for c in CELLS])
    b = np.array([c[1] for c in CELLS])
    return (-b, -a) if period < 0 else (a, b)


@pytest.mark.parametrize("cost", POWER_COSTS, ids=repr)
@pytest.mark.parametrize("ratio", RATIOS)
@pytest.mark.parametrize("period", [1.0, -1.0, 0.3, -7.5])
def test_power_periodic_integral_is_exact_to_a_few_ulps(
    cost: Cost, ratio: float, period: float
) -> None:
    p = power_law(cost)[0]
    a, b = _cell_edges(period)
    got = np.asarray(cost.periodic_integral(a, b, period=period, ratio=ratio))
    for g, lo, hi in zip(got.tolist(), a.tolist(), b.tolist(), strict=True):
        exact = exact_power_integral(cost, lo, hi, period, ratio)
        assert relative_error(g, exact) <= 4 * (p + 2) * U, (lo, hi)


@pytest.mark.parametrize("cost", POWER_COSTS, ids=repr)
@pytest.mark.parametrize("ratio", RATIOS)
@pytest.mark.parametrize("period", [1.0, -0.3])
def test_power_periodic_sum_is_exact_to_a_few_ulps(cost: Cost, ratio: float, period: float) -> None:
    p = power_law(cost)[0]
    x = np.array([0.0, 3.0, 1e6, -2.2, 0.7]) * np.sign(period)
    got = np.asarray(cost.periodic_sum(x, period=period, ratio=ratio))
    for g, xi in zip(got.tolist(), x.tolist(), strict=True):
        assert relative_error(g, exact_power_sum(cost, xi, period, ratio)) <= 4 * (p + 2) * U


@pytest.mark.parametrize("tol", [0.0, 0.3, 2.0])
@pytest.mark.parametrize("ratio", RATIOS)
@pytest.mark.parametrize("period", [1.0, -0.25])
def test_zero_one_tails_are_exact_to_a_few_ulps(tol: float, ratio: float, period: float) -> None:
    """The zero-one cost's tails in closed form (before: a series that gave up below ε ≈ 2e-5)."""
    cost = ZeroOne(tol)
    a, b = _cell_edges(period)
    got = np.asarray(cost.periodic_integral(a, b, period=period, ratio=ratio))
    for g, lo, hi in zip(got.tolist(), a.tolist(), b.tolist(), strict=True):
        assert relative_error(g, exact_zero_one_integral(tol, lo, hi, period, ratio)) <= 16 * U
    x = np.array([0.0, 0.3, -0.3, 2.0, -5.0, 4.75]) * np.sign(period)
    sums = np.asarray(cost.periodic_sum(x, period=period, ratio=ratio))
    for g, xi in zip(sums.tolist(), x.tolist(), strict=True):
        assert relative_error(g, exact_zero_one_sum(tol, xi, period, ratio)) <= 16 * U


def test_the_tail_at_epsilon_1e6_keeps_its_digits() -> None:
    """The case that lost nine digits to ``F(b) − F(a)`` (relative error 2.4e-9 before)."""
    ratio = tail_ratio_for(1e-6)
    a, b = 3.0, 3.0 + 1.0 / 41.0
    got = Absolute().periodic_integral(a, b, period=1.0, ratio=ratio)
    assert relative_error(float(got), exact_power_integral(Absolute(), a, b, 1.0, ratio)) <= 4 * U


def test_mirrored_costs_use_the_closed_forms() -> None:
    """``c(−e)`` of an asymmetric cost: its tail is the base cost's over the mirrored cells."""
    cost = Asymmetric(over=3.0, under=0.5, p=2.0)
    mirror = cost.mirrored()
    ratio = tail_ratio_for(1e-6)
    got = float(mirror.periodic_integral(2.0, 2.5, period=1.0, ratio=ratio))
    exact = exact_power_integral(cost, -2.5, -2.0, -1.0, ratio)
    assert relative_error(got, exact) <= 16 * U
    got_sum = float(mirror.periodic_sum(2.0, period=1.0, ratio=ratio))
    assert relative_error(got_sum, exact_power_sum(cost, -2.0, -1.0, ratio)) <= 16 * U
