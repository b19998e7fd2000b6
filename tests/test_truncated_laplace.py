"""Tests of the truncated Laplace (ε, δ) noise (Geng, Ding, Guo & Kumar 2020).

References are computed here: the support from the paper's formula, moments from hand-derived
antiderivatives, everything else by quadrature of the density. What every family shares
(goodness of fit, empirical privacy, bad parameters, density against cdf, quantiles, tails, repr)
is checked by the conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _reference import expected_cost_by_quadrature
from scipy import integrate

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.truncated_laplace import TruncatedLaplace
from optmech.privacy import ApproxDP

PARAMS = [  # (epsilon, delta, sensitivity)
    (1.0, 1e-6, 1.0),
    (0.1, 0.01, 2.0),
    (2.0, 0.2, 0.5),
    (5.0, 1e-10, 1.0),
    (1.0, 0.5, 1.0),
    (0.5, 0.8, 3.0),  # δ > 1/2: A < Δ
]


def theory_half_width(eps: float, delta: float, sens: float) -> float:
    """Geng, Ding, Guo & Kumar (2020): A = (Δ/ε) ln(1 + (e^ε − 1)/(2δ))."""
    return sens / eps * math.log(1 + (math.exp(eps) - 1) / (2 * delta))


@pytest.mark.parametrize(("eps", "delta", "sens"), PARAMS)
def test_density_shape_and_mass(eps: float, delta: float, sens: float) -> None:
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    a = theory_half_width(eps, delta, sens)
    assert noise.half_width == pytest.approx(a, rel=1e-13)
    a = noise.half_width
    assert noise.scale == pytest.approx(sens / eps, rel=1e-15)
    assert noise.privacy == ApproxDP(eps, delta)
    x = np.linspace(-a, a, 9)
    # Proportional to e^(−ε|x|/Δ) inside, zero outside.
    np.testing.assert_allclose(
        noise.pdf(x) / noise.pdf(0.0), np.exp(-eps * np.abs(x) / sens), rtol=1e-13
    )
    assert noise.pdf(a * 1.0001) == 0.0 and noise.pdf(-a * 1.0001) == 0.0
    mass = integrate.quad(noise.pdf, -a, a, points=[0.0], epsabs=0, epsrel=1e-13)[0]
    assert mass == pytest.approx(1.0, rel=1e-12)


def hand_moments(eps: float, delta: float, sens: float) -> tuple[float, float]:
    """E|X| and E X² from ∫_0^A x^k e^(−x/λ) dx, derived by parts (λ = Δ/ε, t = A/λ, u = e^(−t)).

    E|X| = λ(1 − u(1 + t))/(1 − u);  E X² = λ²(2 − u(t² + 2t + 2))/(1 − u).
    """
    lam = sens / eps
    t = theory_half_width(eps, delta, sens) / lam
    u = math.exp(-t)
    return (lam * (1 - u * (1 + t)) / (1 - u), lam**2 * (2 - u * (t * t + 2 * t + 2)) / (1 - u))


@pytest.mark.parametrize(("eps", "delta", "sens"), PARAMS)
def test_power_costs_match_hand_derived_moments(eps: float, delta: float, sens: float) -> None:
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    m1, m2 = hand_moments(eps, delta, sens)
    assert noise.expected_cost(Absolute()) == pytest.approx(m1, rel=1e-10)
    assert noise.expected_cost(Squared()) == pytest.approx(m2, rel=1e-10)
    assert noise.expected_cost(Power(1.0)) == pytest.approx(m1, rel=1e-10)


COSTS = [
    Absolute(),
    Squared(),
    Power(0.5),
    Power(3.7),
    ZeroOne(0.4),
    ZeroOne(100.0),
    Asymmetric(over=3.0, under=1.0, p=2.0),
    Custom(lambda e: np.log1p(np.abs(e))),
    Custom(lambda e: np.abs(e) ** 1.5),
]


@pytest.mark.parametrize("cost", COSTS, ids=repr)
@pytest.mark.parametrize(("eps", "delta", "sens"), PARAMS[:4])
def test_expected_cost_matches_quadrature(cost, eps: float, delta: float, sens: float) -> None:
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    a = noise.half_width
    breaks = [-a, 0.0, a]
    if isinstance(cost, ZeroOne):
        breaks += [-cost.tolerance, cost.tolerance]
    breaks = sorted({b for b in breaks if -a <= b <= a})
    expected = expected_cost_by_quadrature(noise, cost, breaks)
    assert noise.expected_cost(cost) == pytest.approx(expected, rel=1e-10)


def test_custom_cost_matches_power_closed_form() -> None:
    noise = TruncatedLaplace(epsilon=0.7, delta=1e-4, sensitivity=1.5)
    for p in (0.5, 1.5, 2.0, 4.0):
        custom = Custom(lambda e, p=p: np.abs(e) ** p)
        assert noise.expected_cost(custom) == pytest.approx(
            noise.expected_cost(Power(p)), rel=1e-10
        )


def hockey_stick(noise: TruncatedLaplace, eps: float, d: float) -> float:
    """∫ (f(x) − e^ε f(x − d))_+ dx by quadrature between the kinks and jumps of both densities.

    The integrand is written f(x)·(1 − e^ε f(x − d)/f(x))_+ and a factor below 1e-12 counts as 0:
    where the two sides agree exactly (|x| − |x − d| = −d) round-off would otherwise leave noise
    of relative size 1e-16 that quad cannot integrate; the bias is below 1e-12 of the mass.
    """
    a = noise.half_width
    cuts = sorted({-a, -a + d, 0.0, d, a, a + d})

    def positive_part(x: float) -> float:
        f = float(noise.pdf(x))
        if f == 0.0:
            return 0.0
        factor = 1.0 - math.exp(eps) * float(noise.pdf(x - d)) / f
        return f * factor if factor > 1e-12 else 0.0

    return sum(
        integrate.quad(positive_part, lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
        for lo, hi in itertools.pairwise(cuts)
    )


@pytest.mark.parametrize(("eps", "delta", "sens"), PARAMS)
def test_privacy_hockey_stick(eps: float, delta: float, sens: float) -> None:
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    for d in sens * np.array([0.1, 0.5, 0.9, 1.0]):
        assert hockey_stick(noise, eps, d) <= delta * (1 + 1e-9)
    at_sensitivity = hockey_stick(noise, eps, sens)
    if delta <= 0.5:
        # Tight: the uncovered slab [−A, −A + Δ) carries exactly δ.
        assert at_sensitivity == pytest.approx(delta, rel=1e-9)
    # Negative shifts by symmetry.
    assert hockey_stick(noise, eps, -sens) == pytest.approx(at_sensitivity, rel=1e-9, abs=1e-300)


def test_hockey_stick_detects_a_too_short_support() -> None:
    """The same density cut at 0.95 A is no longer (ε, δ)-DP: the check can fail."""
    eps, delta = 1.0, 1e-3
    noise = TruncatedLaplace(epsilon=eps, delta=delta)
    short = TruncatedLaplace(epsilon=eps, delta=delta)
    a = 0.95 * noise.half_width
    norm = integrate.quad(lambda x: math.exp(-eps * abs(x)), -a, a, points=[0.0])[0]
    short.half_width = a
    short._peak = 1.0 / norm
    assert integrate.quad(short.pdf, -a, a, points=[0.0])[0] == pytest.approx(1.0)
    assert hockey_stick(short, eps, 1.0) > 1.3 * delta  # e^(0.05 ε A/Δ) ≈ 1.40 times δ


def test_extreme_parameters_stay_accurate() -> None:
    for eps, delta in [(800.0, 0.1), (1e-8, 1e-3), (30.0, 1e-300), (1e-3, 0.999)]:
        noise = TruncatedLaplace(epsilon=eps, delta=delta)
        lam = 1.0 / eps
        t = noise.half_width / lam
        assert math.isfinite(t) and t > 0
        m1 = noise.expected_cost(Absolute())
        # E|X| by quadrature of the definition in the variable y = x/λ.
        ref = (
            lam
            * integrate.quad(lambda y, t=t: y * math.exp(-y), 0, t, epsabs=0, epsrel=1e-13)[0]
            / -math.expm1(-t)
        )
        assert m1 == pytest.approx(ref, rel=1e-9)
        assert 0 <= noise.cdf(0.3 * noise.half_width) <= 1


def test_huge_exponent_uses_the_series() -> None:
    noise = TruncatedLaplace(epsilon=1.0, delta=0.4)  # t ≈ 1.07: |X|^300 is tiny
    a = noise.half_width
    value = noise.expected_cost(Power(300.0))
    ref = (
        integrate.quad(
            lambda x: (x / a) ** 300 * float(noise.pdf(x)),
            0,
            a,
            epsabs=0,
            epsrel=1e-12,
            points=[0.95 * a],
        )[0]
        * 2
    )
    assert value == pytest.approx(ref * a**300, rel=1e-9)
