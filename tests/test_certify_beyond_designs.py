"""Designs under guarantees beyond (ε, δ) certify and export like any other noise.

``design_noise(ZCDP(...) / GaussianDP(...) / RenyiDP(...) / PrivacyProfile(...), integer=True)``
returns a lattice pmf claiming that guarantee. ``certify_noise`` (and ``certify``) report the
certified number of the design's own guarantee, and ``to_opendp`` exports it with OpenDP's
``zero_concentrated_divergence`` (zCDP) or as approximate DP at the certified profile (the
others). Independent truth: direct sums over the pmf, explicit on a window holding all but
1e-40 of the mass (a loss of at most that much is below every tolerance used here): the Rényi
divergences ``D_α = log Σ P^α Q^(1−α)/(α − 1)`` and the hockey-stick
``δ(ε) = Σ (P − e^ε Q)₊`` of the shifts by ±1 (Mironov 2017; Balle & Wang 2018, Thm. 5), and
the μ-GDP curve ``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` (Dong, Roth & Su 2022,
Cor. 2.13).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import special

import optmech
from optmech.certify import NoiseCertificate, certify, certify_noise, check
from optmech.interop import to_opendp
from optmech.privacy import ZCDP, GaussianDP, PrivacyProfile, RenyiDP, gaussian_dp_delta

pytest.importorskip("opendp")


@functools.cache
def _design(guarantee: object) -> object:
    return optmech.design_noise(guarantee, sensitivity=1, cost="abs", integer=True)


def _pmf(noise: object) -> np.ndarray:
    """The pmf on a window holding all but 1e-40 of the mass, zero-padded by one point."""
    half = 8
    while noise.sf(half) > 1e-40 or noise.cdf(-half) > 1e-40:  # type: ignore[attr-defined]
        half *= 2
    k = np.arange(-half - 1, half + 2)
    return np.asarray(noise.pmf(k), dtype=float)  # type: ignore[attr-defined]


def _renyi(p: np.ndarray, alpha: float) -> float:
    """max over the shifts ±1 of D_α(P ‖ P_s), on the points where both are positive."""
    best = -math.inf
    for a, b in ((p[:-1], p[1:]), (p[1:], p[:-1])):
        live = (a > 0) & (b > 0)
        total = special.logsumexp(alpha * np.log(a[live]) + (1 - alpha) * np.log(b[live]))
        best = max(best, total / (alpha - 1))
    return best


def _hockey(p: np.ndarray, eps: float) -> float:
    return max(
        float(np.sum(np.maximum(a - math.exp(eps) * b, 0.0)))
        for a, b in ((p[:-1], p[1:]), (p[1:], p[:-1]))
    )


GUARANTEES = [
    ZCDP(0.5),
    GaussianDP(1.0),
    RenyiDP([2.0, 8.0], [0.5, 1.5]),
    PrivacyProfile([0.5, 1.0], [1e-2, 1e-3]),
]


@pytest.mark.parametrize("guarantee", GUARANTEES, ids=str)
def test_design_certifies_its_own_guarantee(guarantee: object) -> None:
    noise = _design(guarantee)
    cert = certify_noise(noise)
    assert isinstance(cert, NoiseCertificate) and cert.guarantee == guarantee and cert.holds
    assert cert.delta is None and cert.delta_epsilon is None  # no ε in the guarantee
    assert check(noise, guarantee) is True
    assert certify(noise).value == cert.value
    p = _pmf(noise)
    if isinstance(guarantee, ZCDP):
        alphas = np.concatenate([1 + np.geomspace(1e-3, 1.0, 12), np.linspace(2.0, 40.0, 20)])
        brute = max(_renyi(p, a) / a for a in alphas)
        assert brute <= cert.value <= 0.5 * (1 + 1e-6)
    elif isinstance(guarantee, GaussianDP):
        eps = np.linspace(0.0, 6.0, 61)
        assert cert.value <= 1.0 * (1 + 1e-6)
        curve = np.asarray(gaussian_dp_delta(cert.value, eps))
        assert all(_hockey(p, e) <= d + 1e-15 for e, d in zip(eps, curve, strict=True))
    elif isinstance(guarantee, RenyiDP):
        brute = [_renyi(p, a) for a in guarantee.orders]
        assert all(b <= c for b, c in zip(brute, cert.value, strict=True))
        assert all(c <= e * (1 + 1e-9) for c, e in zip(cert.value, guarantee.epsilons, strict=True))
    else:
        brute = [_hockey(p, e) for e in guarantee.epsilons]
        assert all(b <= c + 1e-16 for b, c in zip(brute, cert.value, strict=True))
        assert all(c <= d * (1 + 1e-9) for c, d in zip(cert.value, guarantee.deltas, strict=True))


def test_zcdp_design_exports_a_zcdp_measurement() -> None:
    noise = _design(ZCDP(0.5))
    rho = certify_noise(noise).value
    m = noise.to_opendp()  # type: ignore[attr-defined]
    assert "ZeroConcentrated" in str(m.output_measure)
    assert m.map(1) == rho and m.map(2) == 4 * rho and m.map(0) == 0.0
    assert isinstance(m(7), int)


@pytest.mark.parametrize("guarantee", GUARANTEES[1:], ids=str)
def test_other_designs_export_approximate_dp_at_the_certified_profile(guarantee: object) -> None:
    noise = _design(guarantee)
    m = noise.to_opendp()  # type: ignore[attr-defined]
    assert "Approximate" in str(m.output_measure)
    eps, delta = m.map(1)
    expected = 1e-3 if isinstance(guarantee, PrivacyProfile) else 1e-6
    assert delta == expected
    p = _pmf(noise)
    assert _hockey(p, eps) <= delta  # the pair (ε, δ) holds for the pmf itself
    if eps > 0:  # and ε is about the least: a percent less does not reach δ
        assert _hockey(p, eps * 0.99) > delta
    if isinstance(guarantee, PrivacyProfile):  # finite support: no ε reaches a smaller δ
        with pytest.raises(ValueError, match="larger `delta`"):
            to_opendp(noise, delta=1e-4)
    else:
        chosen = to_opendp(noise, delta=1e-4).map(1)
        assert chosen[1] == 1e-4 and _hockey(p, chosen[0]) <= 1e-4
