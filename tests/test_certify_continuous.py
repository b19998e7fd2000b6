"""Profiles and Rényi divergences of continuous noise (optmech.certify.continuous via profiles).

Independent truths:

* the staircase with γ = 1/4 and Δ = 1: every edge is a multiple of 1/4, so on a grid of step
  1/64 sampled at midpoints both the density and its shift by any multiple of 1/64 are constant
  on each step — the Riemann sums below are the exact integrals (to float rounding), and the
  supremum over shifts is taken here over all 64 multiples of 1/64 in (0, 1], not only at the
  edge differences the library evaluates;
* closed forms: Laplace ``δ(ε) = 1 − e^((ε − 1)/2)``, Gaussian ``δ_μ`` with μ = Δ/σ (written
  out with scipy.stats), the Rényi divergence of the Gaussian ``αΔ²/(2σ²)``;
* the uniform + atom: δ(ε) = δ at every ε ≥ 0 (its uniform part facing zero plus the atom).

Tolerances: the Riemann sums hold ~10^5 terms of size ≤ 1: relative 1e-12; closed forms
1e-12 relative plus the library's stated allowances (8 ulps, ``1e-12`` for ``log_ndtr``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from optmech.accounting import compose
from optmech.certify.profiles import (
    certified_mu,
    certified_rho,
    privacy_profile,
    pure_epsilon,
    renyi_divergence,
)
from optmech.mechanisms import Gaussian, Laplace, Staircase, UniformAtom


def _staircase_sums(eps: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    noise = Staircase(epsilon=1.0, gamma=0.25)
    h = 1 / 64
    x = (np.arange(-64 * 60, 64 * 60) + 0.5) * h  # beyond ±60: mass below e^-59
    f = noise.pdf(x)
    best_d, best_r = np.zeros(eps.size), np.full(alphas.size, -np.inf)
    for j in range(1, 65):
        for g in (np.roll(f, -j), np.roll(f, j)):  # x + s and x − s
            g = g.copy()
            g[:j] = g[-j:] = 0.0
            d = np.maximum(f[None, :] - np.exp(eps)[:, None] * g[None, :], 0).sum(axis=1) * h
            best_d = np.maximum(best_d, d)
            live = (f > 0) & (g > 0)
            lf, lg = np.log(f[live] * h), np.log(g[live] * h)
            r = np.array([logsumexp(a * lf + (1 - a) * lg) / (a - 1) for a in alphas])
            best_r = np.maximum(best_r, r)
    return best_d, best_r


def test_staircase_profile_and_renyi_against_exact_sums() -> None:
    eps = np.array([0.0, 0.2, 0.5, 0.9, 0.999])
    alphas = np.array([1.5, 2.0, 5.0, 20.0])
    want_d, want_r = _staircase_sums(eps, alphas)
    noise = Staircase(epsilon=1.0, gamma=0.25)
    got_d = privacy_profile(noise, eps)
    got_r = renyi_divergence(noise, alphas)
    assert np.all(got_d >= want_d * (1 - 1e-12))
    np.testing.assert_allclose(got_d, want_d, rtol=1e-10, atol=1e-13)
    assert np.all(got_r >= want_r - 1e-12)
    np.testing.assert_allclose(got_r, want_r, rtol=1e-9)
    assert privacy_profile(noise, 1.0) < 1e-12  # pure 1-DP: nothing above ε = 1
    assert pure_epsilon(noise) == pytest.approx(1.0, rel=1e-12)
    assert certified_rho(noise) <= 0.5  # ε-DP ⇒ ε²/2-zCDP (Bun & Steinke 2016)


def test_laplace_and_gaussian_closed_forms() -> None:
    lap = Laplace(epsilon=1.0, sensitivity=2.0)
    eps = np.array([0.0, 0.3, 0.99, 1.0, 3.0])
    want = np.where(eps < 1, -np.expm1((eps - 1) / 2), 0.0)
    got = privacy_profile(lap, eps)
    assert np.all(got >= want) and np.allclose(got, want, rtol=1e-12, atol=0)
    # δ at −x from the reversed pair: 1 − e^(−x) + e^(−x) δ(x).
    assert privacy_profile(lap, -0.5) == pytest.approx(
        -math.expm1(-0.5) + math.exp(-0.5) * privacy_profile(lap, 0.5), rel=1e-12
    )
    g = Gaussian(epsilon=1.0, delta=1e-5, calibration="analytic")
    mu = 1.0 / g.sigma
    e = np.array([0.0, 0.5, 1.0, 4.0])
    want = stats.norm.cdf(-e / mu + mu / 2) - np.exp(e) * stats.norm.cdf(-e / mu - mu / 2)
    got = privacy_profile(g, e)
    assert np.all(got >= want * (1 - 1e-13)) and np.allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(
        renyi_divergence(g, [2.0, 7.0]), np.array([2.0, 7.0]) * mu**2 / 2, rtol=1e-14
    )
    assert certified_mu(g) == pytest.approx(mu, rel=1e-14)
    assert certified_rho(g) == pytest.approx(mu * mu / 2, rel=1e-7)


def test_uniform_atom() -> None:
    ua = UniformAtom(delta=0.1, sensitivity=1.0, alpha=0.02)
    assert np.all(np.abs(privacy_profile(ua, [0.0, 1.0, 5.0]) - 0.1) < 1e-12)
    assert math.isinf(renyi_divergence(ua, 2.0)) and math.isinf(pure_epsilon(ua))


def test_staircase_composes() -> None:
    """One use through the PLD equals the profile (from above, by at most the discretisation's
    effect, < 1e-3 here); ten uses of 1-DP noise give δ(10) = 0."""
    st = Staircase.optimal(epsilon=1.0, cost="abs")
    eps = np.array([0.0, 0.5])
    one = compose(st, 1, eps, discretization=1e-3)
    exact = privacy_profile(st, eps)
    assert np.all(one >= exact - 1e-15) and np.all(one <= exact + 1e-3)
    assert compose(st, 10, 10.0, discretization=1e-3) < 1e-12
