"""The exact mode of ``optmech verify``: rationals and balls instead of rounding.

Independent truth: the worked example of Ghosh, Roughgarden & Sundararajan (2012), Fig. 2, whose
value 41/48 is recomputed here in :class:`fractions.Fraction` from the published matrix; and
mechanisms doctored here to violate ε-DP by amounts a float certificate cannot see.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from _reference import FIG2, geometric_from_theory

from optmech import check_dp
from optmech.theorems import count
from optmech.theorems import exact_catalogue as exact


def fig2_value() -> Fraction:
    """Σ_i p_i Σ_r Fig2[i, r] |r − i| for the prior uniform on {0, 2, 3, 4, 5}."""
    prior = [Fraction(1, 5) if i != 1 else Fraction(0) for i in range(6)]
    return sum(
        (prior[i] * Fraction(FIG2[i][r]) * abs(r - i) for i in range(6) for r in range(6)),
        Fraction(0),
    )


def test_decide_at_most_resolves_ratios_next_to_e_to_the_epsilon() -> None:
    eps = math.log(2.0)  # the double just below ln 2: e^eps = 2 − 4.6e-17
    assert exact.decide_at_most(Fraction(2), eps) is False
    assert exact.decide_at_most(Fraction(2) - Fraction(1, 10**15), eps) is True
    assert exact.decide_at_most(Fraction(3, 2), eps) is True


def test_exact_mode_agrees_with_the_float_mode_on_the_worked_example() -> None:
    prior = np.array([1, 0, 1, 1, 1, 1], dtype=np.float64) / 5.0
    loss = np.abs(np.subtract.outer(np.arange(6), np.arange(6))).astype(float)
    row = exact.exact_count_row(
        prior, loss, math.log(2.0), name="exact", label="Fig. 2", vertex=True
    )
    assert row.passed and row.exact, row.detail
    float_row = count.worked_example_rows()[2]
    assert float_row.passed, float_row.detail
    # Both intervals contain the value of Fig. 2 (ε = ln 2 vs its double: ~1e-16 apart, far
    # inside the certified widths), and the exact upper end (the mechanism's exact value) is not
    # above the float one (the same value rounded up).
    target = fig2_value()
    assert target == Fraction(41, 48)
    width = max(row.upper_bound - row.lower_bound, 1e-15)
    assert (
        Fraction(row.lower_bound) - Fraction(width)
        <= target
        <= Fraction(row.upper_bound) + Fraction(width)
    )
    assert row.upper_bound <= float_row.upper_bound
    assert max(row.lower_bound, float_row.lower_bound) <= min(
        row.upper_bound, float_row.upper_bound
    )


def test_exact_privacy_catches_a_doctored_mechanism() -> None:
    """G raised by 1e-13 relative in one entry: a float certificate with optmech's 1e-9 slack
    accepts it; the exact check (rationals against e^ε in balls) does not."""
    eps = 0.7
    g = geometric_from_theory(4, eps)
    assert exact.matrix_privacy(exact.exact_matrix(g * 0.5 + 0.5 / 5), eps)[0] is True
    doctored = g.copy()
    doctored[0, 0] *= 1 + 1e-13  # ratio to G[1, 0] now e^ε (1 + 1e-13)
    doctored[0] /= doctored[0].sum()
    assert check_dp(doctored, eps)  # within the float slack
    verdict, why = exact.matrix_privacy(exact.exact_matrix(doctored), eps)
    assert verdict is False, why


def test_an_exact_row_fails_for_a_doctored_mechanism(monkeypatch: pytest.MonkeyPatch) -> None:
    real = exact.bayesian_mechanism

    def doctored(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real(*args, **kwargs)
        m = result.mechanism.copy()
        m[0, 0] += 1e-9  # breaks a ratio that sits at e^ε
        m[0] /= m[0].sum()
        object.__setattr__(result, "mechanism", m)
        return result

    monkeypatch.setattr(exact, "bayesian_mechanism", doctored)
    prior = np.full(4, 0.25)
    loss = np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)
    row = exact.exact_count_row(prior, loss, 1.0, name="exact", label="doctored", vertex=True)
    assert not row.passed and "failed: exactly ε-DP" in row.detail


def test_exact_dependent_row_nests_in_the_float_certificate() -> None:
    row = exact.exact_dependent_row(0.5, 2, "squared", 3)
    assert row.passed and row.exact, row.detail
    assert row.lower_bound <= row.reference_low <= row.reference_high <= row.upper_bound
