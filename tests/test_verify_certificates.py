"""The catalogue decides by certificates: a wrong reference fails, allowances are the derived
discretisation bounds, and the formerly failing query-dependent rows pass on their intervals.

Independent truth: the staircase cost is recomputed here from the density of Geng & Viswanath
(2016), eq. (22), summed period by period in floating point with :func:`math.fsum` (not from
optmech's formulas nor from the ball-arithmetic references of the catalogue), and V* from the
closed forms of Thms. 4 and 6 (§IV).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import staircase_cost_by_periods

from optmech.theorems import _enclose as enc
from optmech.theorems import additive, count, query_dependent
from optmech.theorems.catalogue import certificate_row
from optmech.theorems.count_structure import uniqueness_certificate

U = 2.0**-53


def v_star(eps: float, cost: str) -> float:
    """V* of Geng & Viswanath (2016) for Δ = 1."""
    if cost == "abs":
        return math.exp(eps / 2) / math.expm1(eps)
    b = math.exp(-eps)
    u = (b * (1 + b) / 2) ** (1 / 3)
    return (u * u + b) / (1 - b) ** 2


@pytest.mark.parametrize(
    ("eps", "cost", "m"), [(1.0, "abs", 12), (1.0, "squared", 12), (5.0, "squared", 12)]
)
def test_allowance_is_the_independent_discretisation_bound(eps: float, cost: str, m: int) -> None:
    """``V*_grid − V*`` with γ* rounded to the better grid edge, recomputed here.

    Each cost is a sum of positive terms each within ~8 roundings: the difference of two such
    sums is within 32u·V* (Higham), far below the allowances (≥ 5e-9 here).
    """
    gamma = (
        1 / (1 + math.exp(eps / 2))
        if cost == "abs"
        else ((math.exp(-eps) * (1 + math.exp(-eps)) / 2) ** (1 / 3) - math.exp(-eps))
        / (1 - math.exp(-eps))
    )
    grid = min(
        staircase_cost_by_periods(eps, k / m, cost)
        for k in (math.floor(gamma * m), math.ceil(gamma * m))
    )
    independent = grid - v_star(eps, cost)
    derived = additive.grid_allowance(eps, cost, m)["allowance"]
    assert abs(derived - independent) <= 32 * U * v_star(eps, cost)
    assert derived > 0


def test_a_staircase_row_carries_that_allowance() -> None:
    row = additive._staircase_row("staircase LP", 1.0, "squared", 12, periods=2)
    assert row.allowance == additive.grid_allowance(1.0, "squared", 12)["allowance"]
    assert row.kind == "certificate" and "allowance" in row.rule


def test_a_reference_outside_the_interval_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The GRS row passes with the true reference and fails when the reference is off by 1e-7
    relative (a theorem that is false by that much), far above the interval's width."""
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    good = count.universal_optimality_check(prior, "abs", 0.7)
    assert good.passed
    width = good.upper_bound - good.lower_bound
    assert width <= 1e-8 * good.upper_bound
    real = enc.geometric_bayes_value
    monkeypatch.setattr(enc, "geometric_bayes_value", lambda *a: real(*a) * (1 + 1e-7))
    bad = count.universal_optimality_check(prior, "abs", 0.7)
    assert not bad.passed and "outside the certified interval" in bad.detail
    # The same interval against a reference just beyond its upper end.
    beyond = math.nextafter(good.upper_bound, math.inf)
    assert not certificate_row(
        "x", "y", lower=good.lower_bound, upper=good.upper_bound, reference=beyond
    ).passed


def test_a_perturbed_staircase_reference_fails_the_dependent_row() -> None:
    (row,) = query_dependent.dependent_rows([(0.05, 6, "squared", 7)])
    assert row.passed
    shifted = (row.reference_low * (1 + 1e-7), row.reference_high * (1 + 1e-7))
    again = certificate_row(
        row.check, row.instance, lower=row.lower_bound, upper=row.upper_bound, reference=shifted
    )
    assert not again.passed


def test_formerly_failing_rows_pass_on_their_certificates() -> None:
    """ε = 0.05, Δ = 6, e², periods 7 and 12: the reference lies in a certified interval."""
    rows = query_dependent.dependent_rows([(0.05, 6, "squared", 7), (0.05, 6, "squared", 12)])
    for row in rows:
        assert row.passed, row.detail
        assert row.lower_bound <= row.reference_low <= row.reference_high <= row.upper_bound
        assert row.allowance == 0.0 and row.tolerance == 0.0


@pytest.mark.parametrize(("n", "eps"), [(1, 1.0), (4, 0.5), (12, 0.1), (20, 5.0)])
def test_uniqueness_certificate_is_positive(n: int, eps: float) -> None:
    assert uniqueness_certificate(n, eps) > 0


def test_uniqueness_certificate_satisfies_stationarity() -> None:
    """Rebuild the dual of the n = 3 LP in floats from the certificate's formulas: with ν from
    the KMS system, every reduced cost of the full LP vanishes (to rounding, 1e-12)."""
    n, eps = 3, 0.8
    alpha = math.exp(-eps)
    w = 1.0 - np.eye(n + 1)
    kms = alpha ** np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1)))
    nu = np.linalg.solve(kms, -np.sum(kms * w, axis=0))
    e = 1 / alpha
    reduced = w + nu[:, None]
    for r in range(n + 1):
        mu = 0.0
        for k in range(r):  # x[k+1, r] ≤ e x[k, r] with multiplier mu_k
            mu = alpha * (w[k, r] + nu[k] + mu)
            reduced[k + 1, r] += mu
            reduced[k, r] -= e * mu
        lam = 0.0
        for k in range(n, r, -1):  # x[k-1, r] ≤ e x[k, r] with multiplier lam
            lam = alpha * (w[k, r] + nu[k] + lam)
            reduced[k - 1, r] += lam
            reduced[k, r] -= e * lam
    assert np.max(np.abs(reduced)) <= 1e-12
