"""Geometric tail sums of a power cost with a huge exponent against a tiny ratio.

The binomial closed form's terms (Eulerian numbers times powers of the ratio) overflow there
though the sum is modest; the sum must still come out right. Independent truth: the series
``Σ_k ρ^k |x + kT|^p`` summed term by term in mpmath at 60 digits.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from optmech.costs import Asymmetric, Power


def _mp_sum(
    p: float, x: float, period: float, ratio: float, over: float = 1, under: float = 1
) -> float:
    with mp.workdps(60):
        total = mp.mpf(0)
        for k in range(400):  # the terms peak near k = p/(−ln ρ), a few here, then fall
            e = mp.mpf(x) + k * mp.mpf(period)
            w = over if e >= 0 else under
            term = mp.mpf(ratio) ** k * w * abs(e) ** p
            total += term
            if k > 20 and term < total * mp.mpf(10) ** -50:
                break
        return float(total)


@pytest.mark.parametrize(
    ("p", "ratio", "truth"),
    [(200, 1e-100, 1.0), (1000, 1e-300, 11.7151)],
)
def test_the_reported_sums(p: int, ratio: float, truth: float) -> None:
    got = Power(p).periodic_sum(1.0, period=1.0, ratio=ratio)
    exact = _mp_sum(p, 1.0, 1.0, ratio)
    assert exact == pytest.approx(truth, rel=1e-5)  # the values as stated, to their digits
    assert got == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("x", [-2.5, -0.5, 0.0, 1.0, 3.0])
@pytest.mark.parametrize("period", [1.0, -1.0, 0.7])
def test_points_and_directions_agree_with_mpmath(x: float, period: float) -> None:
    cost = Asymmetric(over=3.0, under=0.5, p=600)
    got = cost.periodic_sum(np.array([x]), period=period, ratio=1e-200)
    exact = _mp_sum(600, x, period, 1e-200, over=3.0, under=0.5)
    assert float(got[0]) == pytest.approx(exact, rel=1e-12)


def test_a_sum_beyond_the_floats_is_refused_without_contradiction() -> None:
    """Its exponent is within the range the message would state, so the message does not
    state one: it names the exponent and what keeps the sum finite."""
    with pytest.raises(ValueError) as info:
        Power(1000).periodic_sum(3.0, period=1.0, ratio=1e-10)
    message = str(info.value)
    assert "overflows float64" in message and "`power`" in message and "1000" in message
    assert "must be in (0, " not in message or "got 1000" in message
