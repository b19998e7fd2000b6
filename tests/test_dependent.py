"""Query-output-dependent noise LP (optmech.lp.dependent), seed 000 Thm. 10.

Independent truth: the discrete staircase pmf of THEORY.md §1 summed term by term here, the
reference values printed in THEORY.md §1 (Δ=5, ε=1: 4.78628 and 48.0337; Δ=10, ε=5: 0.66516),
and a brute-force check of the privacy constraints of the returned family over many query
values and outputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from optmech.exceptions import ProblemTooLargeError
from optmech.lp.dependent import dependent_noise_lp


def staircase_optimum(eps: float, delta: int, cost: str, span: int = 4000) -> float:
    """``min_r Σ_i p_r(i) c(i)`` with ``p_r`` from THEORY.md §1, summed over |i| ≤ span."""
    b = math.exp(-eps)
    i = np.arange(-span, span + 1)
    costs = np.abs(i) if cost == "abs" else i.astype(float) ** 2
    best = math.inf
    for r in range(1, delta + 1):
        a = (1 - b) / (2 * r + 2 * b * (delta - r) - (1 - b))
        k = np.abs(i) // delta
        p = np.where(np.abs(i) - k * delta < r, a * b**k, a * b ** (k + 1))
        assert abs(p.sum() - 1.0) < 1e-12
        best = min(best, float(np.sum(p * costs)))
    return best


@pytest.mark.parametrize(
    ("eps", "delta", "cost", "period"),
    [(1.0, 1, "abs", 1), (1.0, 1, "abs", 3), (0.4, 3, "squared", 2), (2.0, 4, "abs", 4)],
)
def test_worst_case_equals_discrete_staircase(
    eps: float, delta: int, cost: str, period: int
) -> None:
    res = dependent_noise_lp(eps, sensitivity=delta, cost=cost, period=period)
    ref = staircase_optimum(eps, delta, cost)
    assert res.value >= ref * (1 - 1e-11)  # a certified family cannot beat the theorem
    assert res.value <= ref * (1 + 1e-8)  # solver accuracy (HiGHS, tolerance 1e-10)
    assert res.value == pytest.approx(float(np.max(res.phase_costs)), rel=1e-14)
    assert res.phase_costs.shape == (period,)


@pytest.mark.parametrize(
    ("eps", "delta", "cost", "reference", "last_digit"),
    [
        (1.0, 5, "abs", 4.78628, 1e-5),
        (1.0, 5, "squared", 48.0337, 1e-4),
        (5.0, 10, "abs", 0.66516, 1e-5),
    ],
)
def test_theory_reference_values(
    eps: float, delta: int, cost: str, reference: float, last_digit: float
) -> None:
    res = dependent_noise_lp(eps, sensitivity=delta, cost=cost, period=2)
    # THEORY.md prints these rounded: half a unit in the last digit printed.
    assert abs(res.value - reference) <= 0.5 * last_digit


def test_family_is_a_private_distribution_by_brute_force() -> None:
    eps, delta, period = 0.7, 2, 3
    res = dependent_noise_lp(eps, sensitivity=delta, cost="abs", period=period)
    k = np.arange(-300, 301)
    for t in range(period):
        assert abs(res.pmf(t, k).sum() - 1.0) < 1e-12
    worst = 0.0
    outputs = np.arange(-150, 160)
    for t in range(-4, 2 * period + 4):  # query values, beyond one period
        p_t = res.pmf(t, outputs - t)
        for d in range(-delta, delta + 1):
            p_n = res.pmf(t + d, outputs - t - d)
            both = (p_t > 0) & (p_n > 0)
            assert np.array_equal(p_t > 0, p_n > 0)
            worst = max(worst, float(np.max(np.abs(np.log(p_t[both] / p_n[both])))))
    assert worst <= eps * (1 + 1e-9)
    assert res.certified_epsilon <= eps * (1 + 1e-9)
    assert worst <= res.certified_epsilon * (1 + 1e-12)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="`epsilon`"):
        dependent_noise_lp(0.0)
    with pytest.raises(ValueError, match="`sensitivity`"):
        dependent_noise_lp(1.0, sensitivity=0)
    with pytest.raises(ValueError, match="`half_width`"):
        dependent_noise_lp(1.0, sensitivity=3, half_width=2)
    with pytest.raises(ValueError, match="`period`"):
        dependent_noise_lp(1.0, period=0)
    with pytest.raises(ValueError, match="cost"):
        dependent_noise_lp(1.0, cost="nonsense")
    with pytest.raises(ProblemTooLargeError):
        dependent_noise_lp(1.0, sensitivity=1, period=1000, half_width=1000)
