"""Tests of Gaussian (ε, δ) noise: classic (Dwork & Roth Thm A.1) and analytic (Balle & Wang).

The privacy checks integrate the hockey-stick divergence of two shifted Gaussian densities by
quadrature, independently of the Φ-formula the analytic calibration solves. What every family
shares (goodness of fit, empirical privacy, bad parameters, density against cdf, quantiles,
tails, repr) is checked by the conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import expected_cost_by_quadrature
from scipy import integrate, stats

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.gaussian import Gaussian, analytic_gaussian_delta
from optmech.privacy import ApproxDP


def hockey_stick(sigma: float, eps: float, d: float) -> float:
    """∫ (φ_σ(x) − e^ε φ_σ(x − d))_+ dx by quadrature.

    The integrand is positive exactly for x < x0 = d/2 − εσ²/d; there it equals
    φ_σ(x)(1 − e^(ε + (2xd − d²)/(2σ²))), computed with expm1 to keep relative accuracy. The
    density is taken in the variable z = x/σ, and the range is cut where φ(z) < 1e-320.
    """
    z0 = (d / 2 - eps * sigma**2 / d) / sigma
    r = d / sigma

    def integrand(z: float) -> float:
        return (
            math.exp(-z * z / 2)
            / math.sqrt(2 * math.pi)
            * -math.expm1(eps + (2 * z * r - r * r) / 2)
        )

    lower = min(z0, 0.0) - 40.0
    pieces = [(lower, z0)] if z0 - lower <= 10 else [(lower, z0 - 10.0), (z0 - 10.0, z0)]
    return sum(
        integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0] for lo, hi in pieces
    )


ANALYTIC = [  # (epsilon, delta, sensitivity)
    (0.1, 1e-3, 1.0),
    (0.5, 1e-5, 1.0),
    (1.0, 1e-6, 3.0),
    (2.0, 1e-10, 1.0),
    (5.0, 1e-5, 0.5),
    (8.0, 0.3, 1.0),
    (0.5, 0.9, 2.0),
]


@pytest.mark.parametrize(("eps", "delta", "sens"), ANALYTIC)
def test_analytic_calibration_spends_exactly_delta(eps: float, delta: float, sens: float) -> None:
    noise = Gaussian(epsilon=eps, delta=delta, sensitivity=sens, calibration="analytic")
    achieved = hockey_stick(noise.sigma, eps, sens)
    assert achieved == pytest.approx(delta, rel=1e-9)
    # Pessimistic rounding: as evaluated, the privacy curve is within δ.
    assert analytic_gaussian_delta(noise.sigma, epsilon=eps, sensitivity=sens) <= delta
    # Minimal: a slightly smaller σ spends more than δ.
    assert hockey_stick(noise.sigma * (1 - 1e-6), eps, sens) > delta
    # Smaller shifts diverge less.
    for frac in (0.25, 0.5, 0.9):
        assert hockey_stick(noise.sigma, eps, frac * sens) <= delta
    assert noise.privacy == ApproxDP(eps, delta)


@pytest.mark.parametrize("eps", [0.05, 0.3, 0.7, 0.99])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-2, 0.5, 0.99])
def test_classic_calibration_is_private_and_follows_the_formula(eps: float, delta: float) -> None:
    sens = 2.0
    noise = Gaussian(epsilon=eps, delta=delta, sensitivity=sens)
    assert noise.calibration == "classic"
    assert noise.sigma == pytest.approx(
        sens * math.sqrt(2 * math.log(1.25 / delta)) / eps, rel=1e-14
    )
    assert hockey_stick(noise.sigma, eps, sens) <= delta
    analytic = Gaussian(epsilon=eps, delta=delta, sensitivity=sens, calibration="analytic")
    assert analytic.sigma <= noise.sigma


def test_balle_wang_formula_against_quadrature() -> None:
    for sigma, eps, sens in [(0.5, 0.0, 1.0), (1.0, 1.0, 1.0), (3.0, 0.2, 2.0), (0.2, 4.0, 1.0)]:
        assert analytic_gaussian_delta(sigma, epsilon=eps, sensitivity=sens) == pytest.approx(
            hockey_stick(sigma, eps, sens), rel=1e-10
        )
    # ε = 0: the total variation 2Φ(Δ/(2σ)) − 1.
    assert analytic_gaussian_delta(2.0, epsilon=0.0) == pytest.approx(
        2 * stats.norm.cdf(0.25) - 1, rel=1e-14
    )


def test_hockey_stick_check_can_fail() -> None:
    """σ = Δ/ε·0.5 at ε = 1 spends far more than δ = 1e-5."""
    assert hockey_stick(0.5, 1.0, 1.0) > 1e-2


@pytest.mark.parametrize("calibration", ["classic", "analytic"])
def test_pdf_is_the_normal_density(calibration: str) -> None:
    noise = Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1.5, calibration=calibration)
    s = noise.sigma
    x = np.linspace(-6 * s, 6 * s, 25)
    np.testing.assert_allclose(
        noise.pdf(x), np.exp(-(x**2) / (2 * s * s)) / (s * math.sqrt(2 * math.pi)), rtol=1e-14
    )


@pytest.mark.parametrize("sigma_case", [(0.3, 1e-4), (0.9, 1e-8)])
def test_power_costs_closed_forms(sigma_case: tuple[float, float]) -> None:
    eps, delta = sigma_case
    noise = Gaussian(epsilon=eps, delta=delta)
    s = noise.sigma
    # Hand-typed moments of N(0, σ²).
    assert noise.expected_cost(Absolute()) == pytest.approx(s * math.sqrt(2 / math.pi), rel=1e-12)
    assert noise.expected_cost(Squared()) == pytest.approx(s * s, rel=1e-12)
    assert noise.expected_cost(Power(3)) == pytest.approx(
        2 * s**3 * math.sqrt(2 / math.pi), rel=1e-12
    )
    assert noise.expected_cost(Power(4)) == pytest.approx(3 * s**4, rel=1e-12)


COSTS = [
    Absolute(),
    Squared(),
    Power(0.5),
    Power(3.3),
    ZeroOne(0.7),
    Asymmetric(over=2.0, under=0.5, p=1.5),
    Custom(lambda e: np.log1p(e * e)),
    Custom(lambda e: np.minimum(np.abs(e), 2.0)),
]


@pytest.mark.parametrize("cost", COSTS, ids=repr)
@pytest.mark.parametrize("calibration", ["classic", "analytic"])
def test_expected_cost_matches_quadrature(cost, calibration: str) -> None:
    noise = Gaussian(epsilon=0.8, delta=1e-3, sensitivity=0.4, calibration=calibration)
    s = noise.sigma
    breaks = [-60 * s, 0.0, 60 * s]
    if isinstance(cost, ZeroOne):
        breaks += [-cost.tolerance, cost.tolerance]
    if isinstance(cost, Custom):
        breaks += [-2.0, 2.0]
    breaks = sorted(breaks)
    expected = expected_cost_by_quadrature(noise, cost, breaks, limit=400)
    assert noise.expected_cost(cost) == pytest.approx(expected, rel=1e-9)


def test_custom_cost_matches_power_closed_form() -> None:
    noise = Gaussian(epsilon=3.0, delta=1e-6, calibration="analytic")
    for p in (0.5, 1.0, 2.0, 5.0):
        custom = Custom(lambda e, p=p: np.abs(e) ** p)
        assert noise.expected_cost(custom) == pytest.approx(noise.expected_cost(Power(p)), rel=1e-9)


def test_extreme_parameters() -> None:
    for eps, delta in [(50.0, 1e-5), (1e-6, 1e-9), (5.0, 1e-300), (0.01, 0.999)]:
        noise = Gaussian(epsilon=eps, delta=delta, calibration="analytic")
        assert 0 < noise.sigma < math.inf
        assert analytic_gaussian_delta(noise.sigma, epsilon=eps) <= delta
        assert math.isfinite(noise.expected_cost("squared"))


def test_bad_arguments_of_the_delta_curve() -> None:
    with pytest.raises(ValueError, match="`sigma`"):
        analytic_gaussian_delta(0.0, epsilon=1.0)
    with pytest.raises(ValueError, match="`epsilon`"):
        analytic_gaussian_delta(1.0, epsilon=-1.0)
