"""Privacy accounting with dp_accounting (optmech.accounting) against closed forms.

Independent truths: for the geometric mechanism with Δ = 1 the privacy loss is ±ε, +ε with
probability 1/(1 + β), β = e^(−ε); after k-fold composition it is ε(2J − k) with
J ~ Bin(k, 1/(1 + β)) and δ(ε') = E[(1 − e^(ε' − L))₊], summed here exactly (``math.comb``,
``math.fsum``). Laplace noise of scale b has δ(ε') = 1 − e^((ε' − Δ/b)/2) for one use, and its
Rényi curve is Mironov's (2017) Proposition 6; the Gaussian's is αΔ²/(2σ²).

Tolerances: a pessimistic PLD must not fall below the truth; 5% is the accuracy
claim, measured far tighter (about 1e-6 at k = 100, the discretisation 1e-4 multiplying ε here).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from optmech.accounting import compose, privacy_loss_distribution, renyi_curve
from optmech.certify.profiles import discrete_gaussian, privacy_profile, renyi_divergence
from optmech.mechanisms import (
    DiscreteStaircase,
    Gaussian,
    Geometric,
    Laplace,
    TruncatedLaplace,
)


def _binomial_delta(eps: float, k: int, targets: np.ndarray) -> np.ndarray:
    p = 1.0 / (1.0 + math.exp(-eps))
    out = []
    for target in targets:
        terms = [
            math.comb(k, j) * p**j * (1 - p) ** (k - j) * -math.expm1(target - eps * (2 * j - k))
            for j in range(k + 1)
            if eps * (2 * j - k) > target
        ]
        out.append(math.fsum(terms))
    return np.array(out)


@pytest.mark.parametrize("k", [1, 10, 100])
def test_geometric_composition_against_the_binomial_loss(k: int) -> None:
    """compose ≥ the closed form and within 5% of it wherever δ ≥ 1e-9 (below that the
    floating-point allowance of compose, ~5e-14, is a visible fraction)."""
    eps = 0.5
    grid = np.linspace(0.0, 0.8 * eps * k, 25)
    want = _binomial_delta(eps, k, grid)
    got = compose(Geometric(epsilon=eps), k, grid)
    keep = want >= 1e-9
    assert keep.sum() >= 10
    assert np.all(got >= want)
    assert np.all(got[keep] <= want[keep] * 1.05)
    assert np.max(got[keep] / want[keep] - 1) < 1e-4  # the measured accuracy, far inside 5%


def test_compose_at_a_scalar_and_one_use_is_the_profile() -> None:
    g = Geometric(epsilon=1.0)
    d = compose(g, 1, 0.5)
    assert isinstance(d, float)
    assert privacy_profile(g, 0.5) <= d <= privacy_profile(g, 0.5) + 1e-12


def test_pessimistic_dominates_optimistic() -> None:
    """Both PLDs of an asymmetric lattice noise (Δ = 2: four curves that cross) bracket the
    exact largest profile at k = 1. Pessimistic: the chord through the curve at multiples of
    1e-4 around every breakpoint and crossing, above it by < 1e-9 (and below only by
    dp_accounting's own rounding, < 1e-15); optimistic: losses rounded down, below by < 1e-3."""
    desc = {
        "masses": [0.1, 0.4, 0.2, 0.15],
        "left_tail": ([0.05], 0.4),
        "right_tail": ([0.04], 0.6),
    }
    grid = np.linspace(-0.5, 2.0, 26)
    exact = privacy_profile(desc, grid, sensitivity=2)
    hi = privacy_loss_distribution(desc, sensitivity=2).get_delta_for_epsilon(grid)
    lo = privacy_loss_distribution(desc, sensitivity=2, pessimistic=False)
    lo = lo.get_delta_for_epsilon(grid)
    assert np.all(hi >= exact - 1e-15) and np.all(hi <= exact + 1e-9)
    assert np.all(lo <= exact + 1e-12) and np.all(lo >= exact - 1e-3)


def test_discrete_staircase_composes() -> None:
    d = DiscreteStaircase(epsilon=1.0, sensitivity=3, r=2)
    one = compose(d, 1, [0.0, 0.5])
    assert np.all(one >= privacy_profile(d, [0.0, 0.5]))
    ten = compose(d, 10, [2.0, 5.0, 10.0])
    assert np.all(np.diff(ten) < 0) and ten[-1] <= 1e-12  # 10 uses of 1-DP: δ(10) = 0


def test_laplace_uses_dp_accountings_exact_pld() -> None:
    """One use of Laplace(b = Δ/ε): δ(ε') = 1 − e^((ε' − ε)/2); the discretisation 1e-4 moves
    it by at most ~1e-4."""
    lap = Laplace(epsilon=1.0, sensitivity=2.0)
    grid = np.array([0.0, 0.5, 0.9])
    want = -np.expm1((grid - 1.0) / 2)
    got = compose(lap, 1, grid)
    assert np.all(got >= want) and np.all(got <= want + 1e-4)


def test_renyi_curves() -> None:
    orders = np.array([1.5, 2.0, 8.0, 64.0])
    lap = Laplace(epsilon=1.0)
    e = 1.0  # Mironov (2017), Proposition 6
    want = e + np.log1p((orders - 1) * np.expm1(e * (1 - 2 * orders)) / (2 * orders - 1)) / (
        orders - 1
    )
    np.testing.assert_allclose(renyi_curve(lap, orders), want, rtol=1e-12)
    gauss = Gaussian(epsilon=1.0, delta=1e-5, calibration="analytic")
    np.testing.assert_allclose(
        renyi_curve(gauss, orders), orders / (2 * gauss.sigma**2), rtol=1e-12
    )
    geo = Geometric(epsilon=0.5)
    np.testing.assert_array_equal(renyi_curve(geo, orders), renyi_divergence(geo, orders))
    dg = renyi_curve(discrete_gaussian(2.0), [2.0, 3.0], sensitivity=1)
    np.testing.assert_allclose(dg, [0.25, 0.375], rtol=1e-12)


def test_rdp_curve_feeds_dp_accountings_conversion() -> None:
    """k·ε(α) through dp_accounting's RDP → (ε, δ) conversion is a valid (looser) bound: the
    PLD's δ at that ε is below the target."""
    from dp_accounting.rdp import rdp_privacy_accountant

    orders = np.array([2.0, 4.0, 8.0, 16.0, 32.0])
    geo = Geometric(epsilon=0.5)
    eps, _ = rdp_privacy_accountant.compute_epsilon(orders, 10 * renyi_curve(geo, orders), 1e-6)
    assert compose(geo, 10, eps) <= 1e-6


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (
            lambda: compose(TruncatedLaplace(epsilon=1.0, delta=1e-3), 1, 0.5),
            TypeError,
            "Staircase, UniformAtom or a PrivacyProfile",
        ),
        (
            lambda: compose(discrete_gaussian(1.0), 1, 0.5, sensitivity=1),
            TypeError,
            "geometric tails",
        ),
        (lambda: compose(Geometric(epsilon=1.0), 0, 0.5), ValueError, "`k`"),
        (lambda: compose(Geometric(epsilon=1.0), 1, [math.inf]), ValueError, "`epsilons`"),
        (
            lambda: compose(Geometric(epsilon=1.0), 1, 0.5, discretization=0.0),
            ValueError,
            "`discretization`",
        ),
        (lambda: renyi_curve(Geometric(epsilon=1.0), [1.0]), ValueError, r"`orders` .*\(1, inf\)"),
        (
            lambda: privacy_loss_distribution(Laplace(epsilon=1.0), pessimistic=1),
            TypeError,
            "`pessimistic`",
        ),
    ],
)
def test_rejects(call, exc, match) -> None:
    with pytest.raises(exc, match=match):
        call()
