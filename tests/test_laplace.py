"""Tests of the Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006; the baseline of Geng &
Viswanath 2016).

References are computed here: the density ``(ε/2Δ) e^(−ε|x|/Δ)`` written out, costs by
:func:`scipy.integrate.quad` of that density, and the classical moments ``Γ(p + 1)(Δ/ε)^p``.
What every family shares (goodness of fit, empirical privacy, bad parameters, quantiles, tails,
moments against samples) is checked by the conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.laplace import Laplace
from optmech.privacy import PureDP

PARAMS = [(1.0, 1.0), (0.1, 1.0), (2.0, 0.5), (10.0, 3.0)]  # (epsilon, sensitivity)


def density(x: float, eps: float, delta: float) -> float:
    return eps / (2 * delta) * math.exp(-eps * abs(x) / delta)


def quad_cost(cost, eps: float, delta: float) -> float:
    """``∫ c f`` by quad on each half line (kinks of the costs below are at 0 or ±t)."""
    scale = delta / eps
    total = 0.0
    for sign in (1.0, -1.0):
        for lo, hi in ((0.0, scale), (scale, 10 * scale), (10 * scale, math.inf)):
            val, _ = integrate.quad(
                lambda x, s=sign: float(cost(s * x)) * density(x, eps, delta),
                lo,
                hi,
                epsabs=0.0,
                epsrel=1e-13,
                limit=200,
            )
            total += val
    return total


@pytest.mark.parametrize(("eps", "delta"), PARAMS)
def test_pdf_and_cdf_are_the_written_density(eps: float, delta: float) -> None:
    lap = Laplace(epsilon=eps, sensitivity=delta)
    xs = np.linspace(-20 * delta / eps, 20 * delta / eps, 401)
    np.testing.assert_allclose(lap.pdf(xs), [density(x, eps, delta) for x in xs], rtol=1e-14)
    for x in (-3.0, -0.2, 0.0, 0.7, 5.0):
        x = x * delta / eps
        integral, _ = integrate.quad(
            lambda t: density(t, eps, delta), -math.inf, x, epsabs=0.0, epsrel=1e-13
        )
        assert lap.cdf(x) == pytest.approx(integral, rel=1e-11)
    assert lap.scale == delta / eps


@pytest.mark.parametrize(("eps", "delta"), PARAMS)
def test_closed_form_costs(eps: float, delta: float) -> None:
    lap = Laplace(epsilon=eps, sensitivity=delta)
    s = delta / eps
    assert lap.expected_cost(Absolute()) == pytest.approx(s, rel=1e-14)
    assert lap.expected_cost(Squared()) == pytest.approx(2 * s * s, rel=1e-14)
    for p in (0.5, 1.5, 3.0, 7.0):
        assert lap.expected_cost(Power(p)) == pytest.approx(math.gamma(p + 1) * s**p, rel=1e-12)
    asym = Asymmetric(over=3.0, under=1.0, p=2.0)
    assert lap.expected_cost(asym) == pytest.approx(2.0 * 2 * s * s, rel=1e-13)
    assert lap.expected_cost(ZeroOne(0.8)) == pytest.approx(math.exp(-eps * 0.8 / delta), rel=1e-14)


@pytest.mark.parametrize(("eps", "delta"), PARAMS[:3])
def test_costs_equal_quadrature(eps: float, delta: float) -> None:
    lap = Laplace(epsilon=eps, sensitivity=delta)
    costs = [
        Absolute(),
        Squared(),
        Power(1.5),
        Asymmetric(over=2.0, under=0.5, p=1.0),
        ZeroOne(0.3 * delta / eps),
        Custom(lambda e: np.log1p(e * e)),
        Custom(lambda e: np.where(e > 0, np.sqrt(np.abs(e)), e * e)),
    ]
    for cost in costs:
        assert lap.expected_cost(cost) == pytest.approx(quad_cost(cost, eps, delta), rel=1e-10), (
            cost
        )


@pytest.mark.parametrize("jump", [0.123456789, 300.5])
def test_quadrature_fallback_handles_jumps(jump: float) -> None:
    # A jump at a point the quadrature's pieces don't know about: P(|X| > t) = e^(−εt/Δ).
    jumpy = Custom(lambda e: (np.abs(e) > jump).astype(float) * 2.0)
    assert Laplace(epsilon=1.0).expected_cost(jumpy) == pytest.approx(
        2.0 * math.exp(-jump), rel=1e-10
    )


def test_costs_that_overflow_raise() -> None:
    with pytest.raises(ValueError, match="not finite"):
        Laplace(epsilon=1e-10, sensitivity=1e10).expected_cost(Power(40))


@pytest.mark.parametrize(("eps", "delta"), PARAMS)
def test_privacy_density_ratio(eps: float, delta: float) -> None:
    lap = Laplace(epsilon=eps, sensitivity=delta)
    assert lap.privacy == PureDP(eps) and lap.epsilon == eps and lap.delta == 0.0
    xs = np.linspace(-5 * delta, 5 * delta, 1001)
    worst = max(
        float(np.max(np.log(lap.pdf(xs)) - np.log(lap.pdf(xs + d))))
        for d in delta * np.array([-1.0, -0.5, 0.25, 1.0])
    )
    assert worst <= eps * (1 + 1e-12)
    assert worst == pytest.approx(eps, rel=1e-12)
