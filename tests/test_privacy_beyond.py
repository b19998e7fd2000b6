"""Guarantees beyond (ε, δ) in optmech.privacy: validation, implied curves, parsing.

Independent truths: the implied curves are recomputed here in mpmath (50 digits) straight from
their definitions (Bun & Steinke, 2016, Proposition 1.3; Mironov, 2017, Proposition 3; Dong,
Roth & Su, 2022, Corollary 2.13), so the tolerances only cover double rounding.
"""

from __future__ import annotations

import dataclasses
import math
import typing

import mpmath as mp
import numpy as np
import pytest

from optmech.privacy import (
    ZCDP,
    ApproxDP,
    GaussianDP,
    Privacy,
    PrivacyProfile,
    PureDP,
    RenyiDP,
    check_privacy,
    parse_privacy,
)


def _gdp_delta_mp(mu: float, eps: float) -> float:
    mp.mp.dps = 50
    m, e = mp.mpf(mu), mp.mpf(eps)
    return float(mp.ncdf(-e / m + m / 2) - mp.e**e * mp.ncdf(-e / m - m / 2))


# -- construction and validation -------------------------------------------------------------
def test_zcdp() -> None:
    z = ZCDP(0.5)
    assert z.rho == 0.5 and type(z.rho) is float
    assert str(z) == "0.5-zCDP" and repr(z) == "ZCDP(rho=0.5)"
    assert z.renyi_epsilon(3.0) == 1.5
    np.testing.assert_array_equal(z.renyi_epsilon([2.0, 4.0]), [1.0, 2.0])
    assert ZCDP(np.float64(0.5)) == z and hash(ZCDP(1)) == hash(ZCDP(1.0))


def test_renyi_dp_scalar_and_orders() -> None:
    r = RenyiDP(2, 0.5)
    assert (r.alpha, r.epsilon) == (2.0, 0.5) and r.orders == (2.0,) and r.epsilons == (0.5,)
    several = RenyiDP([2, 8], np.array([0.5, 1.5]))
    assert several.alpha == (2.0, 8.0) and several.epsilon == (0.5, 1.5)
    assert str(several) == "(α, ε)-RDP at (2, 0.5), (8, 1.5)"
    assert hash(several) == hash(RenyiDP((2.0, 8.0), (0.5, 1.5)))


def test_gaussian_dp_and_profile() -> None:
    g = GaussianDP(1)
    assert g.mu == 1.0 and str(g) == "1-GDP"
    p = PrivacyProfile([0.5, 1.0], [1e-2, 1e-3])
    assert p.epsilons == (0.5, 1.0) and p.deltas == (0.01, 0.001)
    assert str(p) == "δ(0.5) ≤ 0.01, δ(1) ≤ 0.001"
    assert PrivacyProfile(0.0, 0.0).deltas == (0.0,)  # one point, δ = 0 allowed
    assert PrivacyProfile([0, 1], [0.5, 0.5]).deltas == (0.5, 0.5)  # non-increasing, not strict


def test_new_guarantees_are_frozen() -> None:
    for g, field in [(ZCDP(1), "rho"), (GaussianDP(1), "mu"), (RenyiDP(2, 1), "alpha")]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(g, field, 2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        PrivacyProfile([1], [0.1]).deltas = (0.2,)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("build", "exc", "match"),
    [
        (
            lambda: ZCDP(0.0),
            ValueError,
            r"`rho` must be a finite real number in \(0, inf\); got 0.0",
        ),
        (lambda: ZCDP(-1), ValueError, r"`rho` .* got -1.0"),
        (lambda: ZCDP(math.inf), ValueError, "`rho`"),
        (lambda: ZCDP("1"), TypeError, "`rho` must be a real number"),
        (lambda: ZCDP(True), TypeError, "`rho`"),
        (lambda: GaussianDP(0.0), ValueError, r"`mu` must be a finite real number in \(0, inf\)"),
        (lambda: GaussianDP(None), TypeError, "`mu`"),
        (
            lambda: RenyiDP(1.0, 0.5),
            ValueError,
            r"`alpha` must be a finite real number in \(1, inf\); got 1.0",
        ),
        (lambda: RenyiDP(0.5, 0.5), ValueError, r"`alpha` .* got 0.5"),
        (
            lambda: RenyiDP(2, -0.1),
            ValueError,
            r"`epsilon` must be a finite real number in \[0, inf\); got -0.1",
        ),
        (lambda: RenyiDP([2, 1], [0.1, 0.2]), ValueError, r"`alpha\[1\]` .*\(1, inf\); got 1.0"),
        (lambda: RenyiDP([2, 3], [0.1]), ValueError, "same length; got 2 order"),
        (lambda: RenyiDP(2, [0.1]), ValueError, "both be scalars or sequences"),
        (lambda: RenyiDP([2, 2], [0.1, 0.2]), ValueError, "distinct orders"),
        (lambda: RenyiDP([], []), ValueError, "non-empty"),
        (lambda: RenyiDP("2", 0.5), TypeError, "`alpha` must be a real number or a sequence"),
        (lambda: RenyiDP(2, None), TypeError, "`epsilon`"),
        (lambda: RenyiDP([2, "3"], [1, 2]), TypeError, r"`alpha\[1\]`"),
        (
            lambda: PrivacyProfile([0.5, 0.2], [0.1, 0.01]),
            ValueError,
            r"strictly increasing: `epsilons\[1\]` must be in \(0.5, inf\); got 0.2",
        ),
        (lambda: PrivacyProfile([0.5, 0.5], [0.1, 0.01]), ValueError, r"`epsilons\[1\]`"),
        (
            lambda: PrivacyProfile([0.1, 0.5], [0.01, 0.1]),
            ValueError,
            r"non-increasing .*`deltas\[1\]` must be in \[0, 0.01\]; got 0.1",
        ),
        (
            lambda: PrivacyProfile([-0.1], [0.1]),
            ValueError,
            r"`epsilons\[0\]` .*\[0, inf\); got -0.1",
        ),
        (lambda: PrivacyProfile([0.1], [1.5]), ValueError, r"`deltas\[0\]` .*\[0, 1\]; got 1.5"),
        (lambda: PrivacyProfile([0.1], [-0.5]), ValueError, r"`deltas\[0\]`"),
        (lambda: PrivacyProfile([0.1, 0.2], [0.1]), ValueError, "same length; got 2 and 1"),
        (lambda: PrivacyProfile("0.1", [0.1]), TypeError, "`epsilons`"),
        (lambda: PrivacyProfile([0.1], [None]), TypeError, r"`deltas\[0\]`"),
    ],
)
def test_guarantees_reject(build, exc, match) -> None:
    with pytest.raises(exc, match=match):
        build()


# -- implied curves --------------------------------------------------------------------------
def test_zcdp_to_approx_is_bun_steinke() -> None:
    """ε = ρ + 2√(ρ log(1/δ)); a closed form, so only a few ulps apart."""
    for rho, delta in [(0.5, 1e-6), (0.01, 1e-3), (3.0, 0.5)]:
        got = ZCDP(rho).to_approx(delta)
        assert isinstance(got, ApproxDP) and got.delta == delta
        assert got.epsilon == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)), 1e-15)
    with pytest.raises(ValueError, match=r"`delta` must be a finite real number in \(0, 1\)"):
        ZCDP(1).to_approx(0.0)
    with pytest.raises(ValueError, match=r"`alpha` must be .*\(1, inf\); got 1.0"):
        ZCDP(1).renyi_epsilon([2.0, 1.0])


def test_renyi_to_approx_takes_the_best_order() -> None:
    r = RenyiDP([2, 8, 32], [0.5, 1.5, 4.0])
    for delta in [1e-2, 1e-6, 1e-12]:
        pairs = zip(r.orders, r.epsilons, strict=True)
        want = min(e + math.log(1 / delta) / (a - 1) for a, e in pairs)
        assert r.to_approx(delta).epsilon == pytest.approx(want, rel=1e-15)


def test_gaussian_dp_delta_against_mpmath() -> None:
    """log-space evaluation keeps ~1e-12 relative accuracy where δ_μ is 1e-190 (mpmath: 50
    digits); 1e-11 leaves room for the ~|log δ|·u error of log_ndtr at the far tail."""
    for mu in [0.3, 1.0, 4.0]:
        eps = np.array([-2.0, 0.0, 0.5, 2.0, 10.0, 10.0 * mu**2])
        got = GaussianDP(mu).delta(eps)
        want = np.array([_gdp_delta_mp(mu, e) for e in eps])
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)
    assert GaussianDP(1.0).delta(0.0) == pytest.approx(2 * 0.691462461274013 - 1, rel=1e-14)
    with pytest.raises(ValueError, match="NaN"):
        GaussianDP(1.0).delta(math.nan)


def test_gaussian_dp_to_approx_is_valid_and_tight() -> None:
    """The returned ε satisfies δ_μ(ε) ≤ δ and is within 1e-10 of the root (mpmath check)."""
    for mu, delta in [(1.0, 1e-5), (0.5, 1e-9), (3.0, 0.01)]:
        eps = GaussianDP(mu).to_approx(delta).epsilon
        assert _gdp_delta_mp(mu, eps) <= delta
        assert _gdp_delta_mp(mu, eps * (1 - 1e-10)) > delta
    assert GaussianDP(0.1).to_approx(0.5).epsilon == 0.0  # δ_μ(0) = 2Φ(0.05) − 1 < 0.5


def test_profile_implied_delta() -> None:
    p = PrivacyProfile([0.5, 1.0, 2.0], [0.1, 0.01, 0.0])
    np.testing.assert_array_equal(p.delta([0.0, 0.5, 0.9, 1.0, 5.0]), [1.0, 0.1, 0.1, 0.01, 0.0])
    assert p.delta(1.5) == 0.01


def test_privacy_alias_lists_every_guarantee() -> None:
    """The alias holds exactly the kinds the parser builds from every documented form, and
    check_privacy(beyond=True) accepts each of them."""
    forms = ["eps=1", "eps=1,delta=0.1", "zcdp=0.5", "gdp=1", "rdp=2:1", "profile=1:0.1"]
    parsed = [parse_privacy(form) for form in forms]
    assert {type(g) for g in parsed} == set(typing.get_args(Privacy))
    for g in parsed:
        assert check_privacy(g, beyond=True) is g


# -- parsing ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("zcdp=0.5", ZCDP(0.5)),
        ("rho=0.25", ZCDP(0.25)),
        ("gdp=1", GaussianDP(1.0)),
        ("mu=0.5", GaussianDP(0.5)),
        ("rdp=2:0.5", RenyiDP(2.0, 0.5)),
        ("rdp=2:0.5;8:1.5", RenyiDP((2.0, 8.0), (0.5, 1.5))),
        (" RDP = 2:0.5 ; 4:1 ", RenyiDP((2.0, 4.0), (0.5, 1.0))),
        ("profile=0.5:1e-2,1:1e-3", PrivacyProfile((0.5, 1.0), (0.01, 0.001))),
        ("profile=1:0.1", PrivacyProfile((1.0,), (0.1,))),
        ("eps=1", PureDP(1.0)),
        ("eps=1,delta=1e-6", ApproxDP(1.0, 1e-6)),
        ("delta=0.3", ApproxDP(0.0, 0.3)),
    ],
)
def test_parse_privacy_forms(spec: str, want: Privacy) -> None:
    assert parse_privacy(spec) == want


@pytest.mark.parametrize(
    ("spec", "exc", "match"),
    [
        ("zcdp=", ValueError, "'zcdp=RHO'"),
        ("zcdp=abc", ValueError, "with numbers"),
        ("zcdp=-1", ValueError, "`rho`"),
        ("gdp=0", ValueError, "`mu`"),
        ("rdp=2", ValueError, "missing ':'"),
        ("rdp=2:x", ValueError, "with numbers"),
        ("rdp=1:0.5", ValueError, "`alpha`"),
        ("profile=0.5:0.1,0.2:0.01", ValueError, r"`epsilons\[1\]`"),
        ("profile=0.5", ValueError, "'profile=EPS:DELTA"),
        ("foo=1", ValueError, "'gdp=MU'"),
        ("eps=1,zcdp=1", ValueError, "'eps=E'"),
    ],
)
def test_parse_privacy_rejects(spec: str, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        parse_privacy(spec)
