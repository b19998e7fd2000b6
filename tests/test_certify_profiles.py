"""Certified profiles, Rényi divergences, zCDP ρ and GDP μ (optmech.certify.profiles).

Independent truths, each computed here another way:

* brute force — the tails written out over 120 periods (ratios ≤ 0.7, so the cut-off mass is
  below 0.7^120 ≈ 1e-19 of the total), every shift and direction summed term by term;
* closed forms — the geometric mechanism's privacy loss takes ±ε only (``δ(ε')`` is a
  two-point expectation; its KL divergence ``ε·tanh(ε/2)``; its ε-DP trade-off curve touches
  ``G_μ`` at ``μ = −2Φ⁻¹(1/(1 + e^ε))``), the discrete Gaussian is exactly ``Δ²/(2σ²)``-zCDP
  (Canonne, Kamath & Steinke, 2020: attained at integer orders), ε-DP implies ε²/2-zCDP (Bun &
  Steinke, 2016, Proposition 1.4), and the rounded Gaussian has the GDP μ of its continuous
  parent (post-processing gives ≤; at ε = 0 both profiles equal ``2Φ(Δ/(2σ)) − 1``);
* mpmath sums with 40–50 digits for the Rényi divergences and for ``log_ndtr``.

Tolerances: certified numbers must never be below the truth (pessimism) and may exceed it by
the stated allowances (a few hundred ulps) or, for ρ and μ, by the requested ``rtol``.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from scipy.special import logsumexp

from optmech.certify import certify_guarantee, certify_mu, certify_rho
from optmech.certify.profiles import (
    Certificate,
    GuaranteeReport,
    certified_mu,
    certified_rho,
    check_guarantee,
    discrete_gaussian,
    privacy_profile,
    profile_breakpoints,
    pure_epsilon,
    renyi_divergence,
)
from optmech.exceptions import PrivacyViolationError
from optmech.mechanisms import (
    DiscreteStaircase,
    Geometric,
    LatticeNoise,
    TruncatedLaplace,
)
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PrivacyProfile, PureDP, RenyiDP

U = 2.0**-53


def _geometric(eps: float) -> dict:
    b = math.exp(-eps)
    p0 = (1 - b) / (1 + b)
    return {"masses": [p0], "left_tail": ([p0 * b], b), "right_tail": ([p0 * b], b)}


def _random_case(seed: int) -> tuple[dict, int]:
    rng = np.random.default_rng(seed)
    period, n, reach = int(rng.integers(1, 4)), int(rng.integers(1, 12)), int(rng.integers(1, 5))
    masses = rng.uniform(0.05, 1.0, n)
    if seed % 5 == 0:
        masses[rng.integers(n)] = 0.0  # a zero inside: infinite losses within reach
    left = (rng.uniform(0.05, 1.0, period), float(rng.uniform(0.2, 0.7)))
    right = (rng.uniform(0.05, 1.0, period), float(rng.uniform(0.2, 0.7)))
    return {"masses": masses, "left_tail": left, "right_tail": right}, reach


def _expand(desc: dict, periods: int = 120) -> np.ndarray:
    (lb, lr), (rb, rr) = desc["left_tail"], desc["right_tail"]
    left = [np.asarray(lb) * lr**k for k in range(periods)][::-1]
    right = [np.asarray(rb) * rr**k for k in range(periods)]
    arr = np.concatenate([*left, np.asarray(desc["masses"], float), *right])
    return arr / arr.sum()


def _pairs(arr: np.ndarray, reach: int):
    """(P, P_s) over the explicit array for every shift and direction, edges dropped."""
    for s in range(1, reach + 1):
        yield arr[:-s], arr[s:]
        yield arr[s:], arr[:-s]


def _brute_profile(arr: np.ndarray, reach: int, eps: float) -> float:
    return max(np.maximum(p - math.exp(eps) * q, 0.0).sum() for p, q in _pairs(arr, reach))


def _brute_renyi(arr: np.ndarray, reach: int, alpha: float) -> float:
    best = -math.inf
    for p, q in _pairs(arr, reach):
        keep = p > 1e-200  # the cut-off edge of the expansion, not the noise
        if np.any(q[keep] == 0):
            return math.inf
        terms = alpha * np.log(p[keep]) + (1 - alpha) * np.log(q[keep])
        best = max(best, logsumexp(terms) / (alpha - 1))
    return best


# -- the profile ------------------------------------------------------------------------------
def test_geometric_profile_is_the_two_point_loss() -> None:
    """Loss +ε with probability 1/(1+β), −ε otherwise: δ(ε') = E[(1 − e^(ε'−L))₊] (k = 1).
    Allowance: the losses are rounded up by ~1e-15, so at ε' = ε the bound is ~1e-15, not 0."""
    for eps in [0.1, 1.0, 4.0]:
        beta = math.exp(-eps)
        grid = np.array([-2 * eps, -eps, -0.5 * eps, 0.0, 0.3 * eps, 0.99 * eps, eps, 2 * eps])
        want = np.array(
            [
                (1 - math.exp(e - eps)) / (1 + beta) * (e < eps)
                + beta * (1 - math.exp(e + eps)) / (1 + beta) * (e < -eps)
                for e in grid
            ]
        )
        got = privacy_profile(Geometric(epsilon=eps), grid)
        assert np.all(got >= want)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
        assert privacy_profile(_geometric(eps), 0.0, sensitivity=1) == pytest.approx(
            math.tanh(eps / 2), rel=1e-12
        )


@pytest.mark.parametrize("seed", range(20))
def test_profile_and_renyi_against_brute_force(seed: int) -> None:
    """Random tables, periods 1–3, Δ 1–4, asymmetric, sometimes a zero inside. Relative 1e-11:
    allowances of ~n·u·|log mass| plus the 1e-19 expansion cut-off."""
    desc, reach = _random_case(seed)
    arr = _expand(desc)
    eps = np.array([-1.0, 0.0, 0.3, 1.0, 2.5])
    got = privacy_profile(desc, eps, sensitivity=reach)
    want = np.array([_brute_profile(arr, reach, e) for e in eps])
    # The explicit array's cut edges face zeros: mass < 1e-19, irrelevant beyond 1e-18.
    assert np.all(got >= want * (1 - 1e-12) - 1e-18)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-18)
    alphas = np.array([1.3, 2.0, 5.0])
    got_r = renyi_divergence(desc, alphas, sensitivity=reach)
    want_r = np.array([_brute_renyi(arr, reach, a) for a in alphas])
    if np.all(np.isfinite(want_r)):
        assert np.all(got_r >= want_r - 1e-15)
        np.testing.assert_allclose(got_r, want_r, rtol=1e-11)
    else:
        assert np.all(np.isinf(got_r))
        assert pure_epsilon(desc, sensitivity=reach) == math.inf


def test_profile_is_piecewise_linear_between_breakpoints() -> None:
    """A symmetric noise (one curve for both directions, Δ = 1): δ is linear in e^ε between
    consecutive breakpoints, to the evaluation's few-ulp allowances."""
    m = np.array([0.1, 0.3, 0.6, 0.3, 0.1])
    desc = {"masses": m, "left_tail": ([0.05], 0.5), "right_tail": ([0.05], 0.5)}
    points = profile_breakpoints(desc, sensitivity=1)
    wide = [(lo, hi) for lo, hi in itertools.pairwise(points) if hi - lo > 0.05]
    assert len(wide) >= 3
    for lo, hi in wide:
        t = np.exp(np.linspace(lo, hi, 7))
        vals = privacy_profile(desc, np.log(t), sensitivity=1)
        line = vals[0] + (vals[-1] - vals[0]) * (t - t[0]) / (t[-1] - t[0])
        np.testing.assert_allclose(vals, line, rtol=1e-12, atol=1e-15)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.01, 1.0), min_size=1, max_size=8),
    st.floats(0.05, 0.9),
    st.integers(1, 3),
)
def test_profile_shape(masses: list[float], ratio: float, reach: int) -> None:
    """Any noise: δ ∈ [0, 1], non-increasing in ε, convex in e^ε (three-point chords)."""
    desc = {
        "masses": masses,
        "left_tail": ([masses[0]], ratio),
        "right_tail": ([masses[-1]], ratio),
    }
    eps = np.linspace(-1.0, 3.0, 41)
    d = privacy_profile(desc, eps, sensitivity=reach)
    assert np.all((d >= 0) & (d <= 1)) and np.all(np.diff(d) <= 1e-15)
    t = np.exp(eps)
    chord = d[:-2] + (d[2:] - d[:-2]) * (t[1:-1] - t[:-2]) / (t[2:] - t[:-2])
    assert np.all(d[1:-1] <= chord + 1e-13)


def test_lattice_noise_object_equals_its_description() -> None:
    g = Geometric(epsilon=0.7)
    b = g.beta
    pmf = np.asarray(g.pmf(np.arange(-3, 4)))
    noise = LatticeNoise(
        start=-3, pmf=pmf, period=1, left_tail=([pmf[0] * b], b),
        right_tail=([pmf[-1] * b], b), sensitivity=1, privacy=PureDP(0.7),
    )  # fmt: skip
    eps = [0.0, 0.35, 0.69]
    np.testing.assert_allclose(privacy_profile(noise, eps), privacy_profile(g, eps), rtol=1e-12)
    assert pure_epsilon(noise) == pytest.approx(0.7, rel=1e-13)


def test_finite_support_faces_zeros() -> None:
    """No tails: the edge mass faces a zero within reach, so every divergence is infinite."""
    desc = {"masses": [0.25, 0.5, 0.25]}
    assert privacy_profile(desc, 50.0, sensitivity=1) == pytest.approx(0.25, rel=1e-14)
    assert pure_epsilon(desc, sensitivity=1) == math.inf
    assert renyi_divergence(desc, 2.0, sensitivity=1) == math.inf
    assert certified_rho(desc, sensitivity=1) == math.inf
    assert certified_mu(desc, sensitivity=1) == math.inf


def test_pure_epsilon_of_closed_forms() -> None:
    """Both families are exactly ε-DP for their Δ; a few ulps of rounding up allowed."""
    for noise in [
        Geometric(epsilon=2.0, sensitivity=3),
        DiscreteStaircase(epsilon=1.5, sensitivity=4, r=2),
    ]:
        eps = pure_epsilon(noise)
        assert noise.privacy.epsilon <= eps <= noise.privacy.epsilon * (1 + 1e-13)


# -- Rényi --------------------------------------------------------------------------------------
def test_geometric_renyi_against_mpmath() -> None:
    """Direct 40-digit sums over ℤ, never below; the allowance of ~100u on log Σ is divided by
    α − 1, hence the relative tolerance 1e-12 + 1e-14/(α − 1)."""
    mp.mp.dps = 40
    eps = 1.0
    beta = mp.e ** (-eps)
    c = (1 - beta) / (1 + beta)

    def pmf(k):
        return c * beta ** abs(k)

    for alpha in [1.01, 1.5, 2.0, 10.0, 100.0]:
        a = mp.mpf(alpha)
        s = mp.nsum(lambda k, a=a: pmf(k) ** a * pmf(k + 1) ** (1 - a), [-mp.inf, mp.inf])
        want = float(mp.log(s) / (a - 1))
        got = renyi_divergence(Geometric(epsilon=eps), alpha)
        assert want <= got <= want * (1 + 1e-12 + 1e-14 / (alpha - 1))


@pytest.mark.parametrize("sigma", [0.4, 1.0, 3.0])
def test_discrete_gaussian_renyi_against_mpmath(sigma: float) -> None:
    """Direct 50-digit sums of P^α P_s^(1−α) over |k| ≤ 60σ + 60 (beyond: < e^-1800). The
    largest shift s = Δ dominates. Relative 1e-11: near α = 1 the allowance is divided by α − 1."""
    mp.mp.dps = 50
    sg = mp.mpf(sigma)
    half = int(60 * sigma) + 60

    def logp(k):
        return -(mp.mpf(k) ** 2) / (2 * sg**2)

    z = mp.fsum(mp.e ** logp(k) for k in range(-half, half + 1))
    for shift in [1, 2]:
        alphas = [1.001, 1.5, 2.5, 7.0, 30.0]
        got = renyi_divergence(discrete_gaussian(sigma), alphas, sensitivity=shift)
        for alpha, value in zip(alphas, got, strict=True):
            a = mp.mpf(alpha)
            reach = half + int(abs(1 - alpha) * shift) + shift
            total = mp.fsum(
                mp.e ** (a * logp(k) + (1 - a) * logp(k + shift)) for k in range(-reach, reach)
            )
            want = float(mp.log(total / z) / (a - 1))
            assert want <= value <= want * (1 + 1e-11)


def test_log_ndtr_meets_the_assumed_accuracy() -> None:
    """The GDP check assumes scipy's log_ndtr within 16u(1 + |value|); verify on −60..8."""
    mp.mp.dps = 40
    for x in np.linspace(-60.0, 8.0, 137):
        want = mp.log(mp.ncdf(mp.mpf(float(x))))
        got = float(special.log_ndtr(x))
        assert abs(got - float(want)) <= 16 * U * (1 + abs(got))


# -- zCDP ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("sigma", "reach"), [(0.7, 1), (2.0, 1), (10.0, 3)])
def test_discrete_gaussian_is_delta_squared_over_two_sigma_squared_zcdp(
    sigma: float, reach: int
) -> None:
    """Exactly ρ = Δ²/(2σ²) (attained at every integer order), so a pessimistic certificate is
    at least ρ and, with rtol = 1e-6, at most ρ(1 + 1e-6) plus rounding."""
    rho = reach**2 / (2 * sigma**2)
    cert = certify_rho(discrete_gaussian(sigma), sensitivity=reach)
    assert isinstance(cert, Certificate) and cert.guarantee == ZCDP(cert.value)
    assert rho <= cert.value <= rho * (1 + 1e-6 + 1e-12)
    assert cert.lower <= cert.value


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_geometric_rho(eps: float) -> None:
    """ρ = sup D_α/α; here the supremum is the α → 1 limit, KL = ε·tanh(ε/2) (the loss is ±ε),
    and never above ε²/2. mpmath values of D_α/α on a grid must not exceed the certificate."""
    kl = eps * math.tanh(eps / 2)
    got = certified_rho(Geometric(epsilon=eps))
    assert kl <= got <= kl * (1 + 1e-6 + 1e-12)
    assert got <= eps**2 / 2
    alphas = np.geomspace(1.001, 200.0, 25)
    assert np.all(renyi_divergence(Geometric(epsilon=eps), alphas) / alphas <= got)


def test_discrete_staircase_rho_below_the_pure_dp_bound() -> None:
    d = DiscreteStaircase(epsilon=1.0, sensitivity=5, r=2)
    assert certified_rho(d) <= 0.5  # ε-DP ⇒ ε²/2-zCDP


# -- GDP -------------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_geometric_mu_is_the_pure_dp_curve(eps: float) -> None:
    """With Δ = 1 the geometric pair is the canonical ε-DP pair; its trade-off curve lies above
    G_μ iff μ ≥ −2Φ⁻¹(1/(1 + e^ε)) (the kink). Bisection rtol 1e-6."""
    mu_star = -2 * float(special.ndtri(1 / (1 + math.exp(eps))))
    cert = certify_mu(Geometric(epsilon=eps))
    assert mu_star <= cert.value <= mu_star * (1 + 2e-6)
    assert cert.lower < mu_star


def _rounded_gaussian(sigma: float, half: int) -> dict:
    """P(k) = Φ((k + ½)/σ) − Φ((k − ½)/σ) on |k| ≤ half (in log space), continued beyond by
    geometric tails at the edge ratio (< 1e-190 of the mass)."""
    k = np.abs(np.arange(-half, half + 1.0))
    lo, hi = special.log_ndtr(-(k - 0.5) / sigma), special.log_ndtr(-(k + 0.5) / sigma)
    p = np.exp(lo + np.log(-np.expm1(hi - lo)))
    r = p[0] / p[1]
    return {"masses": p, "left_tail": ([p[0] * r], r), "right_tail": ([p[-1] * r], r)}


@pytest.mark.parametrize(("sigma", "reach"), [(1.0, 1), (2.0, 1), (2.0, 2), (0.5, 1)])
def test_rounded_gaussian_mu_is_the_continuous_mu(sigma: float, reach: int) -> None:
    """Post-processing: round(N(0, σ²)) is (Δ/σ)-GDP; and δ(0) = 2Φ(Δ/(2σ)) − 1 = δ_μ(0) for
    the rounded noise too, so Δ/σ is exact: the certificate lies in [Δ/σ, (Δ/σ)(1 + 2rtol)]."""
    mu = reach / sigma
    got = certified_mu(_rounded_gaussian(sigma, int(25 * sigma) + 5), sensitivity=reach)
    assert mu <= got <= mu * (1 + 2e-6)


def test_gdp_check_rejects_just_below() -> None:
    g = Geometric(epsilon=1.0)
    mu_star = -2 * float(special.ndtri(1 / (1 + math.e)))
    assert check_guarantee(g, GaussianDP(mu_star * 1.001))
    assert not check_guarantee(g, GaussianDP(mu_star * 0.999))


# -- guarantees --------------------------------------------------------------------------------
def test_check_guarantee_each_kind() -> None:
    g = Geometric(epsilon=1.0)
    kl = math.tanh(0.5)
    d1 = privacy_profile(g, 0.5)
    cases = [
        (PureDP(1.0), True), (PureDP(0.99), False),
        (ApproxDP(0.5, d1 * 1.0001), True), (ApproxDP(0.5, d1 * 0.999), False),
        (ZCDP(kl * 1.00001), True), (ZCDP(kl * 0.999), False),
        (RenyiDP([2.0, 10.0], [0.74, 0.97]), True), (RenyiDP([2.0, 10.0], [0.74, 0.96]), False),
        (PrivacyProfile([0.0, 0.5], [0.47, d1 * 1.001]), True),
        (PrivacyProfile([0.0, 0.5], [0.46, 0.3]), False),
    ]  # fmt: skip
    for guarantee, holds in cases:
        assert check_guarantee(g, guarantee) is holds, guarantee
    rep = certify_guarantee(g, ZCDP(0.3))
    assert isinstance(rep, GuaranteeReport) and not rep.holds and "0.3-zCDP" in rep.reason
    with pytest.raises(PrivacyViolationError, match=r"not 0\.3-zCDP") as err:
        check_guarantee(g, ZCDP(0.3), debug=True)
    assert isinstance(err.value.report, GuaranteeReport) and not err.value.report.holds
    assert check_guarantee(g, ZCDP(kl * 1.00001), debug=True) is True


def test_discrete_gaussian_guarantees() -> None:
    dg = discrete_gaussian(2.0)
    assert check_guarantee(dg, ZCDP(0.125), sensitivity=1)
    assert not check_guarantee(dg, ZCDP(0.124), sensitivity=1)
    assert check_guarantee(dg, RenyiDP(3.0, 0.375 * (1 + 1e-9)), sensitivity=1)
    assert not check_guarantee(dg, PureDP(100.0), sensitivity=1)  # unbounded loss
    with pytest.raises(TypeError, match="geometric tails, not a discrete Gaussian"):
        check_guarantee(dg, GaussianDP(0.5), sensitivity=1)
    with pytest.raises(TypeError, match="privacy_profile needs"):
        privacy_profile(dg, 0.5, sensitivity=1)


# -- validation --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (
            lambda: privacy_profile(TruncatedLaplace(epsilon=1.0, delta=1e-3), 0.1),
            TypeError,
            "pmf description",
        ),
        (lambda: privacy_profile({"p": [1.0]}, 0.1, sensitivity=1), TypeError, "'masses'"),
        (
            lambda: privacy_profile(_geometric(1.0), 0.1),
            TypeError,
            "`sensitivity` must be an integer",
        ),
        (
            lambda: privacy_profile(_geometric(1.0), 0.1, sensitivity=1.5),
            ValueError,
            "fractional reach",
        ),
        (lambda: privacy_profile(_geometric(1.0), 0.1, sensitivity=0), ValueError, r"\[1, inf\)"),
        (
            lambda: privacy_profile(_geometric(1.0), math.nan, sensitivity=1),
            ValueError,
            "`epsilons`",
        ),
        (
            lambda: renyi_divergence(_geometric(1.0), 1.0, sensitivity=1),
            ValueError,
            r"`alpha` .*\(1, inf\); got 1.0",
        ),
        (
            lambda: renyi_divergence(
                {"masses": [1.0], "left_tail": ([0.1, 0.1], 0.5), "right_tail": ([0.1], 0.5)},
                2.0,
                sensitivity=1,
            ),
            ValueError,
            "same length",
        ),
        (
            lambda: renyi_divergence(
                {"masses": [1.0], "left_tail": ([0.1], 1.0)}, 2.0, sensitivity=1
            ),
            ValueError,
            "ratio",
        ),
        (
            lambda: renyi_divergence({"masses": [-1.0]}, 2.0, sensitivity=1),
            ValueError,
            "non-negative",
        ),
        (lambda: certified_rho(discrete_gaussian(1.0)), TypeError, "`sensitivity` is required"),
        (lambda: certified_rho(_geometric(1.0), sensitivity=1, rtol=0.0), ValueError, "`rtol`"),
        (lambda: certified_mu(_geometric(1.0), sensitivity=1, debug=1), TypeError, "`debug`"),
        (lambda: discrete_gaussian(0.0), ValueError, "`sigma`"),
        (
            lambda: check_guarantee(_geometric(1.0), "eps=1", sensitivity=1),
            TypeError,
            "`guarantee`",
        ),
    ],
)
def test_rejects(call, exc, match) -> None:
    with pytest.raises(exc, match=match):
        call()
