"""Composing a `PrivacyProfile`: its chords in e^ε bound the curve the points come from."""

from __future__ import annotations

import numpy as np
import pytest

from optmech import Laplace, PrivacyProfile
from optmech.accounting import compose


def laplace_curve(eps: np.ndarray, eps0: float) -> np.ndarray:
    """δ(ε) of Laplace noise of scale Δ/ε₀ at shift Δ: 1 − e^((ε − ε₀)/2) on [0, ε₀], 0 after
    (integrating the two densities' difference above e^ε times the other)."""
    return np.where(eps < eps0, -np.expm1((np.minimum(eps, eps0) - eps0) / 2.0), 0.0)


@pytest.mark.parametrize("k", [1, 4, 16])
def test_a_profile_of_laplace_composes_above_laplace_and_close_to_it(k: int) -> None:
    eps0 = 1.0
    points = np.linspace(0.0, eps0, 200)
    profile = PrivacyProfile(points.tolist(), laplace_curve(points, eps0).tolist())
    at = np.array([0.5, 1.0, 2.0, 4.0])
    exact = np.asarray(compose(Laplace(epsilon=eps0), k, at))
    from_points = np.asarray(compose(profile, k, at))
    # The chords lie above the convex curve, and composition keeps the order (domination).
    assert np.all(from_points >= exact - 1e-12)
    # 200 points: the chords are within ~(Δε)²/8 of the curve, so the composed δ stays close.
    assert np.all(from_points - exact <= 1e-3 * k + 1e-9)


def test_one_use_of_a_profile_is_at_least_its_points() -> None:
    profile = PrivacyProfile([0.2, 0.6, 1.3], [0.3, 0.1, 0.01])
    got = np.asarray(compose(profile, 1, list(profile.epsilons)))
    assert np.all(got >= np.asarray(profile.deltas) - 1e-12)
    assert np.all(got <= np.asarray(profile.deltas) + 5e-4)  # a grid step of 1e-4 around each


def test_pure_points_compose_as_randomized_response() -> None:
    # δ(1) = 0 is 1-DP, whose pairs randomized response with ε = 1 dominates (Kairouz, Oh &
    # Viswanath, 2015): its curve at 0.5 is (e − e^0.5)/(1 + e). The chords of both directions
    # reach it; the chord from (ε, δ) = (0, 1) alone would give 0.62.
    profile = PrivacyProfile([1.0], [0.0])
    rr = (np.e - np.exp(0.5)) / (1.0 + np.e)
    assert compose(profile, 1, 0.5) == pytest.approx(rr, abs=5e-4)
    assert compose(profile, 1, 0.5) >= rr - 1e-12


def test_a_shuffled_guarantee_composes() -> None:
    import optmech

    rr = np.array([[0.75, 0.25], [0.25, 0.75]])
    g = optmech.shuffle_epsilon(rr, 1000, 1e-6)
    once = compose(g.to_profile(64), 1, g.epsilon)
    assert once >= 1e-6 * (1 - 1e-9)  # the profile holds δ(ε) there: not below it
    assert compose(g.to_profile(64), 4, g.epsilon) > once


def test_a_sensitivity_with_a_profile_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="`sensitivity`"):
        compose(PrivacyProfile([0.5], [0.1]), 2, 1.0, sensitivity=1)
