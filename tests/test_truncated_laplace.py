"""Tests of the truncated Laplace (ε, δ) noise (Geng, Ding, Guo & Kumar 2020).

References are computed here: the support from the paper's formula, moments from hand-derived
antiderivatives, everything else by quadrature of the density.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _reference import expected_cost_by_quadrature
from scipy import integrate, stats

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.truncated_laplace import TruncatedLaplace
from optmech.privacy import ApproxDP

#: False-failure probability of each statistical test.
ALPHA = 1e-6

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


@pytest.mark.parametrize(("eps", "delta", "sens"), PARAMS)
def test_cdf_is_integrated_pdf(eps: float, delta: float, sens: float) -> None:
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    a = noise.half_width
    for x in np.linspace(-1.1 * a, 1.1 * a, 23):
        lo = max(-a, min(x, -a))
        pts = [0.0] if lo < 0.0 < x else None
        expected = (
            integrate.quad(noise.pdf, lo, min(x, a), points=pts, epsabs=1e-15, epsrel=1e-13)[0]
            if x > -a
            else 0.0
        )
        assert noise.cdf(x) == pytest.approx(expected, abs=1e-13), x
    assert noise.cdf(-np.inf) == 0.0 and noise.cdf(np.inf) == 1.0
    assert noise.cdf(0.0) == 0.5


@pytest.mark.parametrize(("eps", "delta", "sens"), PARAMS)
def test_ppf_inverts_cdf(eps: float, delta: float, sens: float) -> None:
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    a = noise.half_width
    x = np.linspace(-a, a, 401)
    # Round-off in q = cdf(x) is at most one ulp of q (≤ 2.3e-16 near 1), which moves the
    # quantile by about that over the density: the right tail is conditioned by 1/pdf.
    tol = 1e-10 * a + 4.5e-16 / np.asarray(noise.pdf(x))
    assert np.all(np.abs(np.asarray(noise.ppf(noise.cdf(x))) - x) <= tol)
    left = x[x <= 0]
    np.testing.assert_allclose(noise.ppf(noise.cdf(left)), left, atol=1e-10 * a)
    q = np.concatenate([np.linspace(0, 1, 501), [1e-300, 1e-15, 1 - 1e-15]])
    np.testing.assert_allclose(noise.cdf(noise.ppf(q)), q, atol=1e-14)
    assert noise.ppf(0.0) == pytest.approx(-a, rel=1e-14)
    assert noise.ppf(1.0) == pytest.approx(a, rel=1e-14)
    assert noise.ppf(0.5) == 0.0


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


@pytest.mark.parametrize(
    ("eps", "delta", "sens", "seed"),
    [(1.0, 1e-3, 1.0, 11), (0.2, 0.3, 2.0, 12), (4.0, 1e-8, 1.0, 13)],
)
def test_sampler_goodness_of_fit(eps: float, delta: float, sens: float, seed: int) -> None:
    """KS test of 20 000 draws against the cdf.

    False-failure rate ALPHA = 1e-6 per KS test: fail iff the p-value is below ALPHA.
    """
    noise = TruncatedLaplace(epsilon=eps, delta=delta, sensitivity=sens)
    x = noise.rvs(20_000, rng=seed)
    assert np.all(np.abs(x) <= noise.half_width)
    assert stats.kstest(x, noise.cdf).pvalue > ALPHA
    # Independent reference cdf from the definition (not the class's formula).
    a, lam = noise.half_width, sens / eps
    norm = 2 * lam * (1 - math.exp(-a / lam))

    def ref_cdf(v: np.ndarray) -> np.ndarray:
        v = np.clip(v, -a, a)
        neg = lam * (np.exp(-np.abs(v) / lam) - math.exp(-a / lam)) / norm
        return np.where(v < 0, neg, 1 - neg)

    assert stats.kstest(x, ref_cdf).pvalue > ALPHA


def test_rvs_shapes_and_reproducibility() -> None:
    noise = TruncatedLaplace(epsilon=1.0, delta=1e-3)
    assert isinstance(noise.rvs(rng=1), float)
    assert noise.rvs((3, 4), rng=1).shape == (3, 4)
    np.testing.assert_array_equal(noise.rvs(6, rng=5), noise.rvs(6, rng=5))


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


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (
            {"epsilon": 0.0, "delta": 0.1},
            ValueError,
            r"`epsilon` must be a finite real number in \(0, inf\); got 0.0",
        ),
        ({"epsilon": math.inf, "delta": 0.1}, ValueError, "`epsilon`"),
        ({"epsilon": 1.0, "delta": 0.0}, ValueError, r"`delta` .*\(0, 1\)"),
        ({"epsilon": 1.0, "delta": 1.0}, ValueError, "`delta`"),
        (
            {"epsilon": 1.0, "delta": 0.1, "sensitivity": -2.0},
            ValueError,
            r"`sensitivity` .* got -2.0",
        ),
        ({"epsilon": "1", "delta": 0.1}, TypeError, "`epsilon`"),
        ({"epsilon": 1.0, "delta": False}, TypeError, "`delta`"),
        (
            {"epsilon": 1e-300, "delta": 1e-300, "sensitivity": 1e300},
            ValueError,
            "floating-point range",
        ),
    ],
)
def test_bad_parameters(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        TruncatedLaplace(**kwargs)


def test_repr_and_keyword_only() -> None:
    noise = TruncatedLaplace(epsilon=1.5, delta=0.01, sensitivity=2.0)
    assert repr(noise) == "TruncatedLaplace(epsilon=1.5, delta=0.01, sensitivity=2.0)"
    with pytest.raises(TypeError):
        TruncatedLaplace(1.0, 0.1)  # type: ignore[misc]
