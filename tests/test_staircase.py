"""Tests of the staircase mechanism (Geng & Viswanath 2016; Geng & Viswanath 2016).

References are computed here, independently of :mod:`optmech.mechanisms.staircase`: the density
straight from Geng & Viswanath 2016, costs as sums of exact step integrals over the periods (numpy),
as quadrature of the density step by step (scipy), and in 50-digit decimal arithmetic for the closed
forms at extreme ε. The statistical test (against Algorithm 1 of Geng, Kairouz, Oh & Viswanath
2015) uses a fixed seed and false-failure rate ``ALPHA = 1e-6``. What every family shares
(goodness of fit, empirical privacy, bad parameters, quantiles, tails, repr) is checked by the
conformance battery, ``test_family_battery``.
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from optmech.costs import Absolute, Asymmetric, Custom, Power, Squared, ZeroOne
from optmech.mechanisms.laplace import Laplace
from optmech.mechanisms.staircase import (
    Staircase,
    heuristic_gamma,
    laplace_staircase_ratio,
    staircase_gamma_star,
)
from optmech.privacy import PureDP

#: False-failure rate of the statistical test.
ALPHA = 1e-6

EPSILONS = (0.01, 0.1, 1.0, 2.0, 5.0, 10.0, 20.0)
PARAMS = [  # (epsilon, sensitivity, gamma)
    (1.0, 1.0, 0.3),
    (0.5, 2.5, 0.7),
    (3.0, 0.5, 0.0),
    (3.0, 0.5, 1.0),
    (8.0, 1.0, 0.02),
    (0.05, 1.0, 0.5),
]


# -- independent references -------------------------------------------------------------------
def theory_pdf(x: float, eps: float, delta: float, gamma: float) -> float:
    """Geng & Viswanath 2016, the staircase density, written out literally."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * delta * (gamma + (1 - gamma) * b))
    ax = abs(x)
    k = math.floor(ax / delta)
    return a * b**k if ax - k * delta < gamma * delta else a * b ** (k + 1)


def periods_needed(eps: float, p: float) -> int:
    """K with b^K K^p negligible (< 1e-19 relative)."""
    k = 10
    while -eps * k + p * math.log(k + 1) > -45:
        k = int(k * 1.2) + 1
    return k


def step_sum_power(
    eps: float, delta: float, gamma: float, p: float, over: float = 1.0, under: float = 1.0
) -> float:
    """``E c(X)`` for ``c = w·|x|^p``: exact integrals of each step, summed over the periods."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * delta * (gamma + (1 - gamma) * b))
    k = np.arange(periods_needed(eps, p), dtype=np.float64)
    lo, mid, hi = k * delta, (k + gamma) * delta, (k + 1) * delta
    q = p + 1
    weights = np.exp(-eps * k)
    terms = weights * ((mid**q - lo**q) + b * (hi**q - mid**q)) / q
    return (over + under) * a * math.fsum(terms.tolist())


def step_sum_at_steps(eps: float, delta: float, gamma: float, p: float) -> float:
    """``(1 − b) Σ_k b^k ((k + γ)Δ)^p``: the step-point average of the stationarity condition."""
    b = math.exp(-eps)
    k = np.arange(periods_needed(eps, p), dtype=np.float64)
    return (1 - b) * math.fsum((np.exp(-eps * k) * ((k + gamma) * delta) ** p).tolist())


def quad_by_steps(noise: Staircase, cost, *, eps: float, delta: float, gamma: float) -> float:
    """``∫ f c`` by scipy quad on each step of each period, both sides; f from Geng & Viswanath
    2016."""
    periods = periods_needed(eps, 3.0)
    total = []
    for k in range(periods):
        for lo, hi in ((k * delta, (k + gamma) * delta), ((k + gamma) * delta, (k + 1) * delta)):
            if hi <= lo:
                continue
            height = theory_pdf(0.5 * (lo + hi), eps, delta, gamma)
            if height == 0.0:
                continue
            for sign in (1.0, -1.0):
                val, _ = integrate.quad(
                    lambda x, s=sign: float(cost(s * x)), lo, hi, epsabs=0.0, epsrel=1e-13
                )
                total.append(height * val)
    return math.fsum(total)


def decimal_closed_forms(eps: float, gamma: float) -> tuple[float, float]:
    """Geng & Viswanath 2016: ``E|X|`` and ``E X²`` (Δ = 1) in 50-digit arithmetic."""
    getcontext().prec = 50
    e = Decimal(eps)
    g = Decimal(gamma)
    b = (-e).exp()
    u = b + (1 - b) * g
    a = (1 - b) / (2 * u)
    # E|X| from the step integrals: 2a Σ b^k [ (k+γ)² − k² + b((k+1)² − (k+γ)²) ] / 2
    s0 = 1 / (1 - b)
    s1 = b / (1 - b) ** 2
    first = 2 * g * s1 + g * g * s0 + b * (2 * (1 - g) * s1 + (1 - g * g) * s0)
    abs_moment = a * first
    sq = (u**3 + 3 * b * u + b + b * b) / (3 * u * (1 - b) ** 2)
    return float(abs_moment), float(sq)


# -- density, cdf, ppf --------------------------------------------------------------------------
@pytest.mark.parametrize(("eps", "delta", "gamma"), PARAMS)
def test_pdf_matches_theory(eps: float, delta: float, gamma: float) -> None:
    noise = Staircase(epsilon=eps, sensitivity=delta, gamma=gamma)
    xs = np.linspace(-7.3 * delta, 7.3 * delta, 1001)
    expected = np.array([theory_pdf(x, eps, delta, gamma) for x in xs])
    np.testing.assert_allclose(noise.pdf(xs), expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize(("eps", "delta", "gamma"), PARAMS)
def test_pdf_integrates_to_one_and_cdf_is_its_integral(eps, delta, gamma) -> None:
    noise = Staircase(epsilon=eps, sensitivity=delta, gamma=gamma)
    total = quad_by_steps(noise, lambda x: 1.0, eps=eps, delta=delta, gamma=gamma)
    assert total == pytest.approx(1.0, rel=1e-12)
    # cdf(x) − cdf(x0) = ∫_{x0}^{x} f, integrating step by step between the breakpoints.
    x0 = -4.0 * delta
    for x in (-3.7 * delta, -1.0 * delta, -0.5 * delta, 0.0, (1 + gamma) * delta, 2.9 * delta):
        steps = [
            sign * (k + s) * delta for k in range(6) for s in (0.0, gamma) for sign in (1.0, -1.0)
        ]
        breaks = sorted({x0, x, *[v for v in steps if x0 < v < x]})
        pieces = [
            integrate.quad(
                lambda t: theory_pdf(t, eps, delta, gamma), lo, hi, epsabs=0.0, epsrel=1e-13
            )[0]
            for lo, hi in itertools.pairwise(breaks)
        ]
        assert noise.cdf(x) - noise.cdf(x0) == pytest.approx(
            math.fsum(pieces), rel=1e-11, abs=1e-15
        )
    assert noise.cdf(0.0) == 0.5
    assert noise.cdf(np.inf) == 1.0
    assert noise.cdf(-np.inf) == 0.0
    assert noise.pdf(np.inf) == 0.0


def test_ppf_keeps_precision_at_tiny_epsilon() -> None:
    noise = Staircase(epsilon=1e-6, gamma=0.5)
    # Near the median the quantile lies on the first step: x = (q − 1/2)/a, a = (1−b)/(2u).
    q = 0.5 + 1e-8
    omb = -math.expm1(-1e-6)
    a = omb / (2 * (1 - omb + 0.5 * omb))
    assert noise.ppf(q) == pytest.approx(1e-8 / a, rel=1e-8)


# -- exact expected costs ----------------------------------------------------------------------
@pytest.mark.parametrize(("eps", "delta", "gamma"), PARAMS)
def test_power_costs_equal_step_sums(eps: float, delta: float, gamma: float) -> None:
    noise = Staircase(epsilon=eps, sensitivity=delta, gamma=gamma)
    for p, cost in (
        (1.0, Absolute()),
        (2.0, Squared()),
        (3.0, Power(3)),
        (1.5, Power(1.5)),
        (0.5, Power(0.5)),
    ):
        assert noise.expected_cost(cost) == pytest.approx(
            step_sum_power(eps, delta, gamma, p), rel=1e-10
        ), cost
    asym = Asymmetric(over=3.0, under=0.5, p=2.0)
    assert noise.expected_cost(asym) == pytest.approx(
        step_sum_power(eps, delta, gamma, 2.0, over=3.0, under=0.5), rel=1e-10
    )


@pytest.mark.parametrize(("eps", "delta", "gamma"), PARAMS[:4])
def test_costs_equal_quadrature_of_the_density(eps: float, delta: float, gamma: float) -> None:
    noise = Staircase(epsilon=eps, sensitivity=delta, gamma=gamma)
    costs = [
        Absolute(),
        Squared(),
        Power(1.5),
        Asymmetric(over=2.0, under=1.0, p=1.0),
        ZeroOne(0.0),
        ZeroOne(0.7 * delta),
        ZeroOne(2.0 * delta),
        Custom(lambda e: np.log1p(np.abs(e))),
        Custom(lambda e: np.where(e > 0, e**2, np.abs(e))),  # asymmetric, no closed form
    ]
    for cost in costs:
        reference = quad_by_steps(noise, cost, eps=eps, delta=delta, gamma=gamma)
        assert noise.expected_cost(cost) == pytest.approx(reference, rel=1e-9), cost


@pytest.mark.parametrize("eps", [*EPSILONS, 1e-6, 700.0])
@pytest.mark.parametrize("gamma", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_abs_and_squared_closed_forms_in_high_precision(eps: float, gamma: float) -> None:
    abs_ref, sq_ref = decimal_closed_forms(eps, gamma)
    noise = Staircase(epsilon=eps, gamma=gamma)
    assert noise.expected_cost("abs") == pytest.approx(abs_ref, rel=1e-10)
    assert noise.expected_cost("squared") == pytest.approx(sq_ref, rel=1e-10)


@pytest.mark.parametrize("delta", [0.25, 1.0, 3.0])
def test_costs_scale_with_sensitivity(delta: float) -> None:
    unit = Staircase(epsilon=1.3, gamma=0.4)
    scaled = Staircase(epsilon=1.3, sensitivity=delta, gamma=0.4)
    assert scaled.expected_cost("abs") == pytest.approx(
        delta * unit.expected_cost("abs"), rel=1e-13
    )
    assert scaled.expected_cost(Power(3)) == pytest.approx(
        delta**3 * unit.expected_cost(Power(3)), rel=1e-12
    )


def test_gamma_zero_and_one_are_the_same_law() -> None:
    # γ = 0: (1 − b)b^k/(2Δ) on [kΔ, (k+1)Δ); γ = 1: the same, written with the other step.
    low, high = Staircase(epsilon=2.0, gamma=0.0), Staircase(epsilon=2.0, gamma=1.0)
    xs = np.linspace(-5.05, 5.05, 203)
    np.testing.assert_allclose(low.pdf(xs), high.pdf(xs), rtol=1e-14)
    assert low.expected_cost(Power(2.5)) == pytest.approx(high.expected_cost(Power(2.5)), rel=1e-12)


# -- optimal γ ------------------------------------------------------------------------------------
def stationarity(gamma: float, eps: float, p: float) -> float:
    """``(1 − b) Σ b^k ((k + γ))^p − E_γ|X|^p`` from the test's own sums (Δ = 1)."""
    return step_sum_at_steps(eps, 1.0, gamma, p) - step_sum_power(eps, 1.0, gamma, p)


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize(("spec", "p"), [("abs", 1.0), ("squared", 2.0)])
def test_gamma_star_is_the_argmin_of_the_exact_cost(eps: float, spec: str, p: float) -> None:
    # dE/dγ has the sign of the stationarity function (see staircase module docstring); its
    # root, found here from independent sums, is the argmin to ~1e-12.
    root = optimize.brentq(stationarity, 0.0, 1.0, args=(eps, p), xtol=1e-16, rtol=1e-15)
    closed = staircase_gamma_star(eps, spec)
    assert closed == pytest.approx(root, rel=1e-8, abs=0)
    assert Staircase.optimal(epsilon=eps, cost=spec).gamma == closed
    # and it is a minimum of the cost the class computes
    best = Staircase(epsilon=eps, gamma=closed).expected_cost(spec)
    for other in (closed * (1 - 1e-3), min(closed * (1 + 1e-3), 1.0), 0.0, 1.0):
        assert Staircase(epsilon=eps, gamma=other).expected_cost(spec) >= best * (1 - 1e-15)


@pytest.mark.parametrize("eps", [0.5, 3.0])
def test_numerical_optimum_matches_closed_form(eps: float) -> None:
    # A user cost equal to |e| takes the numerical route (grid, bounded Brent, derivative root).
    custom_abs = Custom(lambda e: np.abs(e), antiderivative=lambda x: x * np.abs(x) / 2)
    found = Staircase.optimal(epsilon=eps, cost=custom_abs).gamma
    assert found == pytest.approx(1.0 / (1.0 + math.exp(eps / 2)), rel=1e-8)


@pytest.mark.parametrize("eps", [0.3, 2.0, 6.0])
def test_numerical_optimum_for_other_costs_beats_a_fine_grid(eps: float) -> None:
    for cost in (Power(3), Power(1.5), ZeroOne(0.4)):
        best = Staircase.optimal(epsilon=eps, cost=cost)
        value = best.expected_cost(cost)
        grid = [Staircase(epsilon=eps, gamma=g).expected_cost(cost) for g in np.linspace(0, 1, 41)]
        assert value <= min(grid) * (1 + 1e-12), cost


def test_ratio_reference_points() -> None:
    # Geng & Viswanath 2016, Fig. 2: 14.84 (|e|) and 23.61 (e²) at ε = 10, given to 4 significant
    # digits.
    assert round(float(laplace_staircase_ratio(10.0, "abs")), 2) == 14.84
    assert round(float(laplace_staircase_ratio(10.0, "squared")), 2) == 23.61
    # the ratio is Laplace cost over the optimal staircase cost, each computed separately
    for spec in ("abs", "squared"):
        lap = Laplace(epsilon=10.0).expected_cost(spec)
        opt = Staircase.optimal(epsilon=10.0, cost=spec).expected_cost(spec)
        assert laplace_staircase_ratio(10.0, spec) == pytest.approx(lap / opt, rel=1e-12)


def test_ratio_limits_and_asymptotics() -> None:
    small = laplace_staircase_ratio(np.array([1e-3, 1e-2]), "abs")
    np.testing.assert_allclose(small, 1.0, atol=1e-4)
    assert laplace_staircase_ratio(1e-3, "squared") == pytest.approx(1.0, abs=1e-3)
    eps = 40.0
    v_abs = Staircase.optimal(epsilon=eps, cost="abs").expected_cost("abs")
    v_sq = Staircase.optimal(epsilon=eps, cost="squared").expected_cost("squared")
    assert v_abs / math.exp(-eps / 2) == pytest.approx(1.0, rel=1e-8)
    assert v_sq / (2 ** (-2 / 3) * math.exp(-2 * eps / 3)) == pytest.approx(1.0, rel=1e-5)
    # generic costs take the numerical route and still give ratio >= 1
    assert laplace_staircase_ratio(2.0, Power(3)) > 1.0


def test_helpers_are_vectorised() -> None:
    eps = np.array([[0.5, 1.0], [2.0, 4.0]])
    for fn in (
        heuristic_gamma,
        lambda e: staircase_gamma_star(e, "squared"),
        lambda e: laplace_staircase_ratio(e, "abs"),
    ):
        out = fn(eps)
        assert isinstance(out, np.ndarray) and out.shape == eps.shape
        assert isinstance(fn(1.0), float)
        np.testing.assert_array_equal(out.ravel(), [fn(float(e)) for e in eps.ravel()])
    np.testing.assert_allclose(heuristic_gamma(eps), 1 / (1 + np.exp(eps / 2)), rtol=1e-15)
    assert staircase_gamma_star(np.array([1.0, 2.0]), Power(3)).shape == (2,)
    assert staircase_gamma_star([], "abs").shape == (0,)


def test_heuristic_gamma_concentrates_mass() -> None:
    # P(|X| < γ̃Δ) → 1 as ε → ∞ (Geng & Viswanath (2016), §V-B)
    mass = [
        2 * Staircase(epsilon=e, gamma=heuristic_gamma(e)).cdf(heuristic_gamma(e)) - 1
        for e in (5.0, 10.0, 20.0)
    ]
    assert mass[0] < mass[1] < mass[2]
    assert mass[2] > 1 - 1e-4


# -- privacy ------------------------------------------------------------------------------------
def max_log_ratio(noise: Staircase, delta: float, gamma: float) -> float:
    """``max log f(x)/f(y)`` over grid pairs at exact distance ≤ Δ (at and beside every step)."""
    steps = np.concatenate(
        [
            np.arange(-5, 6) * delta,
            (np.arange(-5, 5) + gamma) * delta,
            -(np.arange(0, 5) + gamma) * delta,
        ]
    )
    points = np.unique(
        np.concatenate(
            [
                steps,
                np.nextafter(steps, np.inf),
                np.nextafter(steps, -np.inf),
                np.linspace(-5 * delta, 5 * delta, 1201),
            ]
        )
    )
    shifts = delta * np.array([1.0, 1 - 2.0**-45, 1 - gamma, gamma, 0.5, 0.01])
    log_f = np.log(noise.pdf(points))
    worst = -np.inf
    limit = Fraction(delta)
    for d in np.concatenate([shifts, -shifts]):
        other = points + d
        close = np.abs(other - points) <= delta * (1 - 1e-12)
        border = ~close & (np.abs(other - points) <= delta * (1 + 1e-12))
        for i in np.flatnonzero(border):  # decide the borderline pairs in exact arithmetic
            close[i] = abs(Fraction(float(other[i])) - Fraction(float(points[i]))) <= limit
        ratio = log_f[close] - np.log(noise.pdf(other[close]))
        worst = max(worst, float(ratio.max()))
    return worst


@pytest.mark.parametrize(
    ("eps", "delta", "gamma"),
    [
        (1.0, 1.0, 0.3775406687981454),
        (3.0, 2.0, 0.25),
        (0.5, 0.5, 0.0),
        (8.0, 1.0, 1.0),
        (20.0, 1.0, 4.5e-5),
    ],
)
def test_density_ratio_is_at_most_e_eps_and_tight(eps: float, delta: float, gamma: float):
    noise = Staircase(epsilon=eps, sensitivity=delta, gamma=gamma)
    assert noise.privacy == PureDP(eps)
    assert max_log_ratio(noise, delta, gamma) == pytest.approx(eps, rel=1e-12)


# -- sampling -------------------------------------------------------------------------------------
def algorithm_1(eps: float, delta: float, gamma: float, n: int, rng) -> np.ndarray:
    """Geng, Kairouz, Oh & Viswanath (2015), Algorithm 1, literally: S, G, U, B drawn apart."""
    b = math.exp(-eps)
    s = rng.choice([-1.0, 1.0], size=n)
    g = rng.geometric(1 - b, size=n) - 1
    u = rng.random(n)
    bb = (rng.random(n) >= gamma / (gamma + (1 - gamma) * b)).astype(float)
    return s * ((1 - bb) * (g + gamma * u) * delta + bb * (g + gamma + (1 - gamma) * u) * delta)


@pytest.mark.parametrize(("eps", "gamma"), [(1.0, 0.3), (6.0, 0.05)])
def test_sampler_matches_algorithm_1(eps: float, gamma: float) -> None:
    """Two-sample KS against a literal Algorithm 1; false-failure rate ALPHA."""
    rng = np.random.default_rng(7)
    ours = Staircase(epsilon=eps, sensitivity=2.0, gamma=gamma).rvs(100_000, rng=rng)
    literal = algorithm_1(eps, 2.0, gamma, 100_000, rng)
    assert stats.ks_2samp(ours, literal).pvalue > ALPHA


def test_draws_at_tiny_epsilon_are_finite() -> None:
    assert np.all(np.isfinite(Staircase(epsilon=1e-6, gamma=0.5).rvs(1000, rng=2)))


# -- errors ----------------------------------------------------------------------------------------
def test_optimal_rejects_costs_outside_the_theorem() -> None:
    with pytest.raises(ValueError, match=r"symmetric"):
        Staircase.optimal(epsilon=1.0, cost=Asymmetric(over=2.0, under=1.0))
    with pytest.raises(ValueError, match=r"non-decreasing"):
        Staircase.optimal(epsilon=1.0, cost=Custom(lambda e: np.abs(np.sin(e))))
    with pytest.raises(ValueError, match=r"`cost` spec"):
        Staircase.optimal(epsilon=1.0, cost="cubic")
    with pytest.raises(TypeError, match=r"`cost`"):
        Staircase.optimal(epsilon=1.0, cost=3)
    with pytest.raises(ValueError, match=r"`epsilon`"):
        Staircase.optimal(epsilon=0.0, cost="abs")
    with pytest.raises(ValueError, match=r"symmetric"):
        staircase_gamma_star(1.0, Asymmetric(over=2.0, under=1.0))
    with pytest.raises(ValueError, match=r"non-decreasing"):
        laplace_staircase_ratio(1.0, Custom(lambda e: np.abs(np.sin(e))))


def test_helpers_reject_bad_epsilons() -> None:
    with pytest.raises(ValueError, match=r"`epsilon` must contain .*\[1e-06, 700\].*; got -1.0"):
        staircase_gamma_star([1.0, -1.0])
    with pytest.raises(ValueError, match=r"`epsilon`"):
        heuristic_gamma(np.array([1.0, np.nan]))
    with pytest.raises(TypeError, match=r"`epsilon`"):
        laplace_staircase_ratio(["a", "b"])
    with pytest.raises(TypeError, match=r"`epsilon`"):
        heuristic_gamma(None)
    with pytest.raises(ValueError, match=r"`q` must be in \[0, 1\]"):
        Staircase(epsilon=1.0, gamma=0.5).ppf(1.5)
