"""The additive-noise LP designer against independent optima.

Every reference is computed here, from the papers' formulas, without optmech's mechanism
classes: the staircase optimum V* in closed form (Geng & Viswanath 2016), the cost of a
staircase with any γ by summing exact cell integrals over 400 periods, the best discrete
staircase by direct sums (Geng & Viswanath 2016, discrete setting), the uniform+atom optimum
(Geng, Ding, Guo & Kumar 2019), the truncated Laplace cost by quadrature and the analytic
Gaussian's σ by root finding (Balle & Wang's condition). Tolerances: the LP optimum is a vertex
of a well-scaled LP solved to 1e-10, re-evaluated exactly, so 1e-9 relative unless a
discretisation bound is stated.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

import optmech
from optmech.costs import Asymmetric
from optmech.lp.design import design_noise

RTOL = 1e-9


# -- independent references ------------------------------------------------------------------
def _antiderivative(cost: str):
    return (lambda x: x * x / 2.0) if cost == "abs" else (lambda x: x**3 / 3.0)


def staircase_cost(gamma: float, eps: float, cost: str, delta: float = 1.0) -> float:
    """E c(X) for the staircase f_γ (Geng & Viswanath 2016), by exact integrals over 400 periods."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * delta * (gamma + (1 - gamma) * b))
    big = _antiderivative(cost)
    k = np.arange(400, dtype=float)
    lo, mid, hi = k * delta, (k + gamma) * delta, (k + 1) * delta
    half = np.sum(a * b**k * (big(mid) - big(lo)) + a * b ** (k + 1) * (big(hi) - big(mid)))
    return float(2 * half)


def staircase_optimum(eps: float, cost: str) -> tuple[float, float]:
    """(γ*, V*) from the closed forms of Geng & Viswanath (2016), Δ = 1."""
    b = math.exp(-eps)
    if cost == "abs":
        return 1 / (1 + math.exp(eps / 2)), math.exp(eps / 2) / (math.exp(eps) - 1)
    u = (b * (1 + b) / 2) ** (1 / 3)
    return (u - b) / (1 - b), (u * u + b) / (1 - b) ** 2


def discrete_staircase_best(eps: float, delta: int, cost: str) -> float:
    """min over r of E c(X) for the discrete staircase pmf (Geng & Viswanath 2016), by sums."""
    b = math.exp(-eps)
    i = np.arange(0, 200 * delta + 1)
    c = np.abs(i) if cost == "abs" else i.astype(float) ** 2
    best = math.inf
    for r in range(1, delta + 1):
        a = (1 - b) / (2 * r + 2 * b * (delta - r) - (1 - b))
        k = i // delta
        p = np.where(i - k * delta < r, a * b**k, a * b ** (k + 1))
        best = min(best, float(2 * np.sum(p * c) - p[0] * c[0]))
    return best


def uniform_atom_optimum(delta: float, p: int) -> tuple[float, float]:
    """(α*, min cost) of Geng, Ding, Guo & Kumar (2019) for c = |x|^p, Δ = 1."""
    if delta <= p / (p + 1):
        return 0.0, 1 / (2**p * (p + 1) * delta**p)
    return (p + 1) * delta - p, ((p + 1) / (2 * p)) ** p * (1 - delta)


# -- ε-DP on ℝ --------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("cost", ["abs", "squared"])
def test_pure_dp_between_staircase_optimum_and_grid_staircase(eps: float, cost: str) -> None:
    m = 12
    gamma, v_star = staircase_optimum(eps, cost)
    assert staircase_cost(gamma, eps, cost) == pytest.approx(v_star, rel=1e-12)  # formulas agree
    noise = design_noise(optmech.PureDP(eps), sensitivity=1.0, cost=cost, resolution=m, periods=2)
    lo, hi = math.floor(gamma * m) / m, math.ceil(gamma * m) / m
    grid_best = min(staircase_cost(lo, eps, cost), staircase_cost(hi, eps, cost))
    assert noise.value >= v_star * (1 - RTOL)  # never below the continuous optimum
    assert noise.value <= grid_best * (1 + RTOL)  # at least as good as γ rounded to the grid
    assert noise.certified_epsilon <= eps * (1 + RTOL)
    assert noise.value == pytest.approx(noise.expected_cost(cost), rel=1e-14)


def test_pure_dp_converges_at_second_order() -> None:
    """Gap to V* is (γ_grid − γ*)² · V''(γ*)/2: second order in the grid distance, O(1/m²).

    ε = 1, e². The grids m = 4, 8, ..., 64 are nested, so the gap never grows; the gap divided
    by the squared distance of γ* to the grid approaches V''(γ*)/2 (found by finite differences
    of the independent staircase cost).
    """
    eps, cost = 1.0, "squared"
    gamma, v_star = staircase_optimum(eps, cost)
    step = 1e-3
    curvature = (
        staircase_cost(gamma + step, eps, cost)
        - 2 * v_star
        + staircase_cost(gamma - step, eps, cost)
    ) / step**2
    ms = [4, 8, 16, 32, 64]
    gaps, dists = [], []
    for m in ms:
        noise = design_noise(
            optmech.PureDP(eps), sensitivity=1.0, cost=cost, resolution=m, periods=1
        )
        gaps.append(noise.value - v_star)
        dists.append(min(abs(k / m - gamma) for k in range(m + 1)))
    gaps_a, dists_a = np.array(gaps), np.array(dists)
    assert np.all(np.diff(gaps_a) <= 1e-12)
    # The quadratic model: third-order terms are 5 % at m = 4, shrinking with the distance.
    ratio = gaps_a / dists_a**2 / (curvature / 2)
    np.testing.assert_allclose(ratio[1:], 1.0, rtol=0.05)
    assert abs(ratio[-1] - 1.0) < 0.01
    slope = np.polyfit(np.log(dists_a), np.log(gaps_a), 1)[0]
    assert 1.9 < slope < 2.1
    # Hence O(1/m²): the distance is at most 1/(2m).
    assert np.all(gaps_a <= 1.05 * curvature / 2 / (2 * np.array(ms)) ** 2)


# -- integer noise ------------------------------------------------------------------------------
@pytest.mark.parametrize("delta", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("cost", ["abs", "squared"])
def test_integer_lp_equals_best_discrete_staircase(delta: int, cost: str) -> None:
    noise = design_noise(optmech.PureDP(1.0), sensitivity=delta, cost=cost, integer=True, periods=2)
    assert noise.value == pytest.approx(discrete_staircase_best(1.0, delta, cost), rel=RTOL)
    assert noise.certified_epsilon <= 1.0 * (1 + RTOL)
    assert noise.discrete


def test_integer_reference_points_and_geometric() -> None:
    """Reference values of the discrete staircase (Geng & Viswanath 2016); Δ = 1 gives the
    two-sided geometric pmf."""
    v = design_noise(optmech.PureDP(1.0), sensitivity=5, cost="abs", integer=True).value
    assert v == pytest.approx(4.78628, abs=5e-6)
    v = design_noise(optmech.PureDP(1.0), sensitivity=5, cost="squared", integer=True).value
    assert v == pytest.approx(48.0337, abs=5e-5)
    v = design_noise(optmech.PureDP(5.0), sensitivity=10, cost="abs", integer=True).value
    assert v == pytest.approx(0.66516, abs=5e-6)
    eps = 0.8
    b = math.exp(-eps)
    geo = design_noise(optmech.PureDP(eps), sensitivity=1, cost="abs", integer=True, periods=3)
    k = np.arange(-8, 9)
    np.testing.assert_allclose(geo.pmf(k), (1 - b) / (1 + b) * b ** np.abs(k), rtol=1e-8)


# -- (0, δ) --------------------------------------------------------------------------------------
# δ chosen so that the optimal half-width L = (1 − α*)Δ/(2(δ − α*)) is a multiple of 1/12.
@pytest.mark.parametrize(
    ("cost", "p", "delta"),
    [
        ("abs", 1, 0.25),
        ("abs", 1, 0.6),
        ("abs", 1, 0.8),
        ("squared", 2, 0.25),
        ("squared", 2, 0.6),
        ("squared", 2, 0.8),
    ],
)
def test_zero_delta_class_equals_uniform_plus_atom(cost: str, p: int, delta: float) -> None:
    """The theorem of Geng, Ding, Guo & Kumar (2019) lives in symmetric noise non-increasing in |x|:
    the LP restricted to that class attains the uniform+atom optimum; the atom appears iff δ > p/(p
    + 1)."""
    alpha, v = uniform_atom_optimum(delta, p)
    noise = design_noise(
        optmech.ApproxDP(0.0, delta),
        sensitivity=1.0,
        cost=cost,
        resolution=12,
        symmetric=True,
        monotone=True,
    )
    assert noise.value == pytest.approx(v, rel=RTOL)
    assert noise.certified_delta <= delta * (1 + RTOL)
    if delta > p / (p + 1):
        assert noise.atom == pytest.approx(alpha, abs=1e-9)
        assert noise.atom > 0.1
    else:
        assert noise.atom <= 1e-9


def test_zero_delta_outside_the_class_an_lp_does_better() -> None:
    """Without the monotone class, non-monotone (0, δ) noise beats the class optimum for e²."""
    delta = 0.6
    _, v = uniform_atom_optimum(delta, 2)
    free = design_noise(
        optmech.ApproxDP(0.0, delta), sensitivity=1.0, cost="squared", resolution=12
    )
    assert free.certified_delta <= delta * (1 + RTOL)
    assert free.value < 0.97 * v
    dens = free.densities
    centre = dens.size // 2
    right = dens[centre:]
    assert np.any(np.diff(right) > 1e-6)  # not non-increasing in |x|


# -- asymmetric cost -----------------------------------------------------------------------------
def test_asymmetric_cost_beats_symmetric_staircase() -> None:
    eps = 1.0
    cost = Asymmetric(over=3, under=1)
    noise = design_noise(optmech.PureDP(eps), sensitivity=1.0, cost=cost, resolution=12, periods=3)
    assert noise.certified_epsilon <= eps * (1 + RTOL)
    # A symmetric noise costs (3 + 1)/2 · E|X| under this cost; the best is 2·V*.
    _, v_star = staircase_optimum(eps, "abs")
    assert noise.value < 0.9 * 2 * v_star
    assert noise.cdf(0.0) > 0.6  # under-estimates preferred
    assert not noise.is_symmetric
    assert not noise.record.reduced


# -- (ε, δ) --------------------------------------------------------------------------------------
def _truncated_laplace_cost(eps: float, delta: float, power: int) -> float:
    a = math.log(1 + (math.exp(eps) - 1) / (2 * delta)) / eps
    norm = 2 * (1 - math.exp(-eps * a)) / eps
    val, _ = integrate.quad(lambda x: x**power * math.exp(-eps * x), 0, a)
    return 2 * val / norm


def _analytic_gaussian_sigma(eps: float, delta: float) -> float:
    def excess(sigma: float) -> float:
        return (
            stats.norm.cdf(0.5 / sigma - eps * sigma)
            - math.exp(eps) * stats.norm.cdf(-0.5 / sigma - eps * sigma)
            - delta
        )

    return optimize.brentq(excess, 1e-3, 100.0, xtol=1e-14)


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1e-3), (2.0, 1e-4)])
@pytest.mark.parametrize("cost", ["abs", "squared"])
def test_approx_dp_beats_truncated_laplace_and_gaussian(eps, delta, cost) -> None:
    power = 1 if cost == "abs" else 2
    noise = design_noise(optmech.ApproxDP(eps, delta), sensitivity=1.0, cost=cost, resolution=10)
    assert noise.certified_delta <= delta * (1 + RTOL)
    sigma = _analytic_gaussian_sigma(eps, delta)
    gauss = sigma * math.sqrt(2 / math.pi) if power == 1 else sigma**2
    tl = _truncated_laplace_cost(eps, delta, power)
    assert noise.value < 0.99 * tl
    assert noise.value < 0.5 * gauss


# -- the mirror reduction -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "privacy", [optmech.PureDP(1.0), optmech.ApproxDP(0.5, 0.1), optmech.ApproxDP(0.0, 0.3)]
)
def test_mirror_reduction_is_exact_for_symmetric_costs(privacy) -> None:
    kw = {"sensitivity": 1.0, "cost": "squared", "resolution": 6, "periods": 4}
    full = design_noise(privacy, reduce_symmetric=False, **kw)
    half = design_noise(privacy, **kw)
    assert half.record.reduced and not full.record.reduced
    assert half.value == pytest.approx(full.value, rel=1e-8)
    assert half.is_symmetric
