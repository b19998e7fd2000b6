"""Query-output-dependent noise LP (optmech.lp.dependent), Geng & Viswanath (2016), Thm. 10.

Independent truth: the discrete staircase pmf of Geng & Viswanath (2016), §VI, summed term by
term here; reference values printed to 5–6 digits (Δ=5, ε=1: 4.78628 and 48.0337; Δ=10, ε=5:
0.66516); and a brute-force check of the privacy constraints of the returned family over many
query values and outputs.

No tolerance on the LP's value: its certified interval ``[lower_bound, value]`` must contain the
staircase optimum (the LP's optimum *is* that value), and the only slack is the rounding of the
reference computed here (a sum of 8001 positive terms: below 1e-12 relative, Higham's bound
8001u ≈ 9e-13).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from optmech.exceptions import ProblemTooLargeError
from optmech.lp.dependent import dependent_noise_lp
from optmech.provenance import RepairKind

#: Rounding of :func:`staircase_optimum`: 8001 positive terms, Higham γ_8001 < 1e-12.
REFERENCE_RTOL = 1e-12


def staircase_optimum(eps: float, delta: int, cost: str, span: int = 4000) -> float:
    """``min_r Σ_i p_r(i) c(i)`` with ``p_r`` of Geng & Viswanath (2016), §VI, over |i| ≤ span."""
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
    [
        (1.0, 1, "abs", 1),
        (1.0, 1, "abs", 3),
        (0.4, 3, "squared", 2),
        (2.0, 4, "abs", 4),
        (0.05, 6, "squared", 7),
        (0.05, 6, "squared", 12),
    ],
)
def test_certified_interval_contains_the_discrete_staircase(
    eps: float, delta: int, cost: str, period: int
) -> None:
    res = dependent_noise_lp(eps, sensitivity=delta, cost=cost, period=period)
    ref = staircase_optimum(eps, delta, cost)
    prov = res.provenance
    assert prov.lower_bound <= ref * (1 + REFERENCE_RTOL)
    assert ref * (1 - REFERENCE_RTOL) <= prov.value  # a private family cannot beat the theorem
    assert prov.within_accuracy  # decisive: within optmech's requested accuracy
    assert res.phase_costs.shape == (period,)
    assert float(np.max(res.phase_costs)) <= res.value


def test_formerly_failing_rows_have_a_tight_interval() -> None:
    """ε = 0.05, Δ = 6, e²: the tails hold 86% of the mass; in mass units the LP stays O(1)."""
    res = dependent_noise_lp(0.05, sensitivity=6, cost="squared", period=12)
    assert res.provenance.gap <= 1e-8 * res.value


def test_provenance_records_the_solve_and_the_repair() -> None:
    res = dependent_noise_lp(1.0, sensitivity=2, cost="abs", period=2)
    prov = res.provenance
    # The default solver, optimal at the first attempt.
    assert (prov.solver, prov.status) == ("HIGHS", "optimal")
    assert [a.solver for a in prov.attempts] == ["HIGHS"]
    # One mass per phase and grid point, and the worst case: P (2K + 1) + 1 variables, with
    # P = 2 and the default grid K = 3Δ = 6.
    assert prov.num_variables == res.period * res.support.size + 1 == 2 * 13 + 1
    # A mixture has a weight in (0, 1); no repair has none.
    if prov.repair.kind is RepairKind.MIXTURE:
        assert 0.0 < prov.repair.weight < 1.0
    else:
        assert prov.repair.kind is RepairKind.NONE and prov.repair.weight == 0.0
    assert res.multipliers is not None
    assert res.multipliers.cost.shape == (2,) and np.all(np.isfinite(res.multipliers.privacy))
    assert f"value={prov.value:.9g}" in repr(res) and f"solver={prov.solver}" in repr(res)


def test_certified_epsilon_is_at_most_epsilon_without_slack() -> None:
    for eps, delta, period in ((0.05, 2, 3), (1.0, 3, 4), (5.0, 2, 2)):
        res = dependent_noise_lp(eps, sensitivity=delta, cost="abs", period=period)
        assert res.certified_epsilon <= eps


@pytest.mark.parametrize(
    ("eps", "delta", "cost", "reference", "last_digit"),
    [
        (1.0, 5, "abs", 4.78628, 1e-5),
        (1.0, 5, "squared", 48.0337, 1e-4),
        (5.0, 10, "abs", 0.66516, 1e-5),
    ],
)
def test_reference_values(
    eps: float, delta: int, cost: str, reference: float, last_digit: float
) -> None:
    res = dependent_noise_lp(eps, sensitivity=delta, cost=cost, period=2)
    # Printed rounded: half a unit in the last digit printed, plus the certified interval.
    assert res.lower_bound - 0.5 * last_digit <= reference <= res.value + 0.5 * last_digit


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
    # The brute force rounds twice (each log within a few ulps of ~|log p| ≤ 110): 1e-12.
    assert worst <= eps + 1e-12
    assert res.certified_epsilon <= eps


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="`epsilon`"):
        dependent_noise_lp(0.0)
    with pytest.raises(ValueError, match="`epsilon`"):
        dependent_noise_lp(60.0)
    with pytest.raises(ValueError, match="`sensitivity`"):
        dependent_noise_lp(1.0, sensitivity=0)
    with pytest.raises(ValueError, match="`half_width`"):
        dependent_noise_lp(1.0, sensitivity=3, half_width=2)
    with pytest.raises(ValueError, match="`period`"):
        dependent_noise_lp(1.0, period=0)
    with pytest.raises(ValueError, match="cost"):
        dependent_noise_lp(1.0, cost="nonsense")
    with pytest.raises(ProblemTooLargeError, match=r"GB of solver memory.*max_memory_gb"):
        dependent_noise_lp(1.0, sensitivity=1, period=1000, half_width=1000)
    with pytest.raises(ValueError, match="`max_memory_gb`"):
        dependent_noise_lp(1.0, max_memory_gb=0)
