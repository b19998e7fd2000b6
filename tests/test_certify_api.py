"""One certification API: checks return bools (``debug=True`` raises with the explanation), every
certificate shares one base (guarantee, value, exact, reason, ``to_dict``, ``_repr_html_``),
``certify``/``check`` dispatch on what an object says about itself, and one tolerance convention.

Independent truth: the GRS matrix with ratios exactly 2 (ε = ln 2, Ghosh, Roughgarden &
Sundararajan 2012); the geometric law's ε, its zCDP ρ = KL = ε·tanh(ε/2) (its loss is ±ε; the
supremum of D_α/α is the α → 1 limit) and its μ = −2Φ⁻¹(1/(1 + e^ε)) (the canonical ε-DP pair,
Dong, Roth & Su 2022, Cor. 2.13); the discrete Gaussian's ρ = Δ²/(2σ²) (Canonne, Kamath & Steinke
2020); a lattice table built with a known ratio ``e^(ε(1 + 5e-7))`` between neighbours.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import special

import optmech
from optmech.certify import (
    FLOAT_RTOL,
    SEARCH_RTOL,
    Certificate,
    DeltaReport,
    EpsilonReport,
    GuaranteeReport,
    MatrixCertificate,
    Noise2DReport,
    NoiseCertificate,
    PrivacyReport,
    TheoremReport,
    certified_mu,
    certified_rho,
    certify,
    certify_guarantee,
    certify_mechanism,
    certify_mu,
    certify_noise,
    certify_noise2d_epsilon,
    certify_noise_delta,
    certify_noise_epsilon,
    certify_rho,
    check,
    check_dp,
    check_guarantee,
    check_noise,
    default_rtol,
    noise2d_epsilon,
    noise_delta,
    noise_epsilon,
)
from optmech.certify.noise2d import footprint
from optmech.certify.profiles import discrete_gaussian
from optmech.exceptions import PrivacyViolationError
from optmech.mechanisms import (
    Gaussian,
    Geometric,
    Laplace,
    LatticeNoise,
    PiecewiseConstantNoise2D,
    StaircaseND,
    TruncatedLaplace,
)
from optmech.mechanisms.description import GridDescription
from optmech.mechanisms.tails2d import GaugeTail, gauge_polygon
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PrivacyProfile, PureDP, RenyiDP

LN2 = math.log(2.0)
GRS = np.array([[4, 1, 1], [2, 2, 2], [1, 1, 4]]) / 6  # neighbouring ratios exactly 2
GEO = Geometric(epsilon=1.0)
KL = math.tanh(0.5)  # ρ of the geometric law at ε = 1
MU_STAR = -2.0 * float(special.ndtri(1.0 / (1.0 + math.e)))


def _noise2d() -> PiecewiseConstantNoise2D:
    """A box of two cells per Δ closed by the ℓ∞ gauge staircase of ratio e^−1: ε = 1."""
    tail = GaugeTail(*gauge_polygon(footprint("linf", 2)), Fraction(1, 2), math.exp(-1.0))
    i, j = np.meshgrid(np.arange(-2, 2), np.arange(-2, 2), indexing="ij")
    return PiecewiseConstantNoise2D(
        tail.values(i, j), width=0.5, sensitivity=1.0, norm="linf", tails=[(tail, 1.0)],
        epsilon=1.0,
    )  # fmt: skip


def _lattice(eps: float, claim: float) -> LatticeNoise:
    """The two-sided geometric pmf with ratio ``e^(−eps)`` per point, claiming ``claim``-DP."""
    b = math.exp(-eps)
    p0 = (1 - b) / (1 + b)
    tail = ([p0 * b], b)
    return LatticeNoise(
        start=0, pmf=[p0], period=1, left_tail=tail, right_tail=tail, sensitivity=1,
        privacy=PureDP(claim),
    )  # fmt: skip


# -- checks: a bool, or True / PrivacyViolationError with debug ----------------------------------
CHECKS = [
    ("check_dp", lambda d: check_dp(GRS, 0.7, debug=d), lambda d: check_dp(GRS, 0.69, debug=d)),
    (
        "check_noise",
        lambda d: check_noise(GEO, 1.0, debug=d),
        lambda d: check_noise(GEO, 0.99, debug=d),
    ),
    (
        "check_guarantee",
        lambda d: check_guarantee(GEO, ZCDP(KL * 1.00001), debug=d),
        lambda d: check_guarantee(GEO, ZCDP(KL * 0.999), debug=d),
    ),
    ("check", lambda d: check(GRS, PureDP(0.7), debug=d), lambda d: check(GEO, ZCDP(0.3), debug=d)),
]


@pytest.mark.parametrize(("name", "holds", "fails"), CHECKS, ids=[c[0] for c in CHECKS])
def test_checks_return_bools_and_raise_with_debug(name, holds, fails) -> None:
    assert holds(False) is True and fails(False) is False
    assert holds(True) is True
    with pytest.raises(PrivacyViolationError, match=r"^not ") as err:
        fails(True)
    assert isinstance(err.value.report, PrivacyReport)


def test_check_dp_debug_explains_the_worst_pair() -> None:
    """The old ``(ok, explanation)`` line is now the error's message."""
    m = np.array([[0.6, 0.4], [0.3, 0.7]])  # ratio 2 at output 0
    with pytest.raises(PrivacyViolationError) as err:
        check_dp(m, 0.5, debug=True)
    assert str(err.value) == f"not 0.5-DP: {certify_mechanism(m).explain()}"
    assert "edge (0, 1), output 0" in str(err.value) and "ratio 2" in str(err.value)


# -- one base class for every report -------------------------------------------------------------
def _reports() -> list[tuple[PrivacyReport, type, float]]:
    """Each report with its class and the truth its value must cover (never be below)."""
    masses = np.array([0.1, 0.2, 0.4, 0.2, 0.1])  # ratio 4 two cells apart
    tails = {"left_tail": ([0.08, 0.1], 0.8), "right_tail": ([0.1, 0.08], 0.8)}
    return [
        (
            certify_noise_epsilon(GridDescription.from_arguments(masses, reach=2, **tails)),
            EpsilonReport,
            math.log(4.0),
        ),
        # δ(0) at one cell, no tails: (0.4 − 0.2) + (0.2 − 0.1) + (0.1 − 0)
        (
            certify_noise_delta(GridDescription.from_arguments(masses, reach=1), epsilon=0.0),
            DeltaReport,
            0.4,
        ),
        (certify_noise(GEO), NoiseCertificate, 1.0),
        (certify_mechanism(GRS), MatrixCertificate, LN2),
        (certify(_noise2d()), Noise2DReport, 1.0),
        (certify_rho(GEO), Certificate, KL),
        (certify_mu(GEO), Certificate, MU_STAR),
        (certify_guarantee(GEO, ZCDP(0.5)), GuaranteeReport, KL),
        (certify(StaircaseND(epsilon=1.5, gamma=0.5)), TheoremReport, 1.5),
    ]


def test_every_report_has_the_common_interface() -> None:
    for report, cls, truth in _reports():
        assert isinstance(report, cls) and isinstance(report, PrivacyReport), cls
        assert truth <= float(report.value) <= truth * (1 + 1e-6) + 1e-12, cls
        data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
        assert data["report"] == cls.__name__ and data["exact"] is report.exact
        assert data["reason"] == report.reason and report.reason
        assert data["guarantee"] == (None if report.guarantee is None else str(report.guarantee))
        html = report._repr_html_()
        assert html.startswith("<table") and cls.__name__ in html and "reason" in html


def test_reports_keep_their_fields_and_name_the_guarantee_they_establish() -> None:
    rep = certify_mechanism(GRS)
    assert (
        rep.edge is not None and rep.value == rep.epsilon and rep.guarantee == PureDP(rep.epsilon)
    )
    assert certify_mechanism(GRS, exact=True).exact and not rep.exact
    assert (
        certify_noise_epsilon(GridDescription.from_arguments([0.25, 0.5, 0.25], reach=1)).guarantee
        is None
    )  # ε = inf
    cert = certify_noise(GEO)
    assert cert.guarantee == PureDP(1.0) and cert.holds and cert.delta_epsilon == 1.0
    assert certify_rho(GEO).guarantee == ZCDP(certify_rho(GEO).value)
    assert certify_mu(GEO).guarantee == GaussianDP(certify_mu(GEO).value)
    inf = certify_noise_epsilon(GridDescription.from_arguments([1.0], reach=1, atom=0.5)).to_dict()
    assert inf["epsilon"] == "inf" and inf["value"] == "inf"  # JSON-safe


# -- the number functions keep their number; debug=True is deprecated ----------------------------
DEPRECATED = [
    (
        lambda: noise_epsilon([0.25, 0.5, 0.25], reach=1, debug=True),
        lambda: certify_noise_epsilon(GridDescription.from_arguments([0.25, 0.5, 0.25], reach=1)),
        "certify_noise_epsilon",
    ),
    (
        lambda: noise_delta([0.25, 0.5, 0.25], epsilon=0.1, reach=1, debug=True),
        lambda: certify_noise_delta(
            GridDescription.from_arguments([0.25, 0.5, 0.25], reach=1), epsilon=0.1
        ),
        "certify_noise_delta",
    ),
    (
        lambda: noise2d_epsilon(**_noise2d().description(), debug=True),
        lambda: certify_noise2d_epsilon(_noise2d()),
        "certify_noise2d_epsilon",
    ),
    (lambda: certified_rho(GEO, debug=True), lambda: certify_rho(GEO), "certify_rho"),
    (lambda: certified_mu(GEO, debug=True), lambda: certify_mu(GEO), "certify_mu"),
]


@pytest.mark.parametrize(("old", "new", "name"), DEPRECATED, ids=[d[2] for d in DEPRECATED])
def test_debug_of_number_functions_is_deprecated(old, new, name) -> None:
    with pytest.deprecated_call(match=name):
        report = old()
    fresh = new()
    assert type(report) is type(fresh) and report.value == fresh.value
    assert report.reason == fresh.reason


def test_number_functions_return_the_number() -> None:
    assert noise_epsilon([0.25, 0.5, 0.25], reach=1) == math.inf
    assert certified_rho(GEO) == certify_rho(GEO).value
    assert isinstance(noise2d_epsilon(**_noise2d().description()), float)


# -- one rtol convention ------------------------------------------------------------------------
def test_default_rtol_follows_the_number_compared() -> None:
    assert (FLOAT_RTOL, SEARCH_RTOL) == (1e-9, 1e-6)
    assert default_rtol(PureDP(1.0)) == default_rtol(ApproxDP(1.0, 1e-3)) == FLOAT_RTOL
    assert default_rtol(RenyiDP(2.0, 1.0)) == default_rtol(PrivacyProfile(1.0, 0.1)) == FLOAT_RTOL
    assert default_rtol(ZCDP(0.5)) == default_rtol(GaussianDP(1.0)) == SEARCH_RTOL


def test_direct_numbers_are_checked_at_1e9_by_every_check() -> None:
    """A table whose neighbours differ by e^(1 + 5e-7): its pure ε exceeds 1 by 5e-7 relative,
    above the float slack and below the search slack. Every check of PureDP(1) agrees (before,
    ``check_guarantee`` alone let it pass at 1e-6); the explicit rtol still decides."""
    over = _lattice(1.0 + 5e-7, 1.0)
    assert check_noise(over, 1.0) is False
    assert check_guarantee(over, PureDP(1.0)) is False
    assert check(over, PureDP(1.0)) is False
    assert check_guarantee(over, PureDP(1.0), rtol=1e-6) is True
    inside = _lattice(1.0 + 5e-10, 1.0)  # within the float slack: compatible with 1e-9
    assert check_noise(inside, 1.0) and check_guarantee(inside, PureDP(1.0))
    assert check(inside, PureDP(1.0)) and not check_noise(_lattice(1.0 + 5e-9, 1.0), 1.0)


def test_searched_numbers_need_the_search_slack() -> None:
    """The discrete Gaussian is exactly Δ²/(2σ²)-zCDP; its certified ρ (a search over every
    order) lies strictly above, so only a slack of the search's size lets it pass."""
    dg, rho = discrete_gaussian(2.0), 1.0 / 8.0
    cert = certify_rho(dg, sensitivity=1)
    assert rho < cert.value <= rho * (1 + SEARCH_RTOL)
    assert check_guarantee(dg, ZCDP(rho), sensitivity=1) is True
    assert check_guarantee(dg, ZCDP(rho), sensitivity=1, rtol=0.0) is False


# -- one entry point -----------------------------------------------------------------------------
def test_certify_dispatches_on_the_self_description() -> None:
    user = optmech.bayesian_mechanism(np.full(6, 1 / 6), "abs", 0.5)
    rep = certify(user)
    assert isinstance(rep, MatrixCertificate)
    assert rep.epsilon == certify_mechanism(user.mechanism, user.setting.graph).epsilon
    assert check(user, PureDP(0.5)) and not check(user, PureDP(0.4))
    lap = certify(Laplace(epsilon=1.0))
    assert isinstance(lap, NoiseCertificate) and 1.0 <= lap.value <= 1.0 + 1e-12
    assert lap.delta == 0.0 and lap.epsilon_report is None  # a closed form: its exact profile
    gauss = Gaussian(epsilon=0.5, delta=1e-5, calibration="analytic")
    rep_g = certify(gauss)  # δ at ε = 0.5 of the analytic Gaussian is exactly 1e-5
    assert 1e-5 * (1 - 1e-9) <= rep_g.value <= 1e-5 * (1 + 1e-9) and rep_g.holds
    assert isinstance(certify(_noise2d()), Noise2DReport) and check(_noise2d(), PureDP(1.0))
    nd = StaircaseND(epsilon=1.5, gamma=0.5)
    assert check(nd, PureDP(1.5)) and not check(nd, PureDP(1.4))


def test_certify_refuses_what_it_cannot_certify() -> None:
    with pytest.raises(TypeError, match="no independent certifier"):
        certify(TruncatedLaplace(epsilon=1.0, delta=1e-3))
    with pytest.raises(TypeError, match="pure ε-DP"):
        certify(GRS, ZCDP(0.5))
    with pytest.raises(TypeError, match="`obj` must be a mechanism matrix"):
        certify("noise")
    with pytest.raises(TypeError, match="`privacy` must be"):
        check(GEO, "eps=1")


def test_certify_at_another_sensitivity() -> None:
    """The geometric law with ratio e^−1 per point shifted by 2 points: ε = 2 exactly; the
    Laplace density of scale 1 shifted by 3: ε = 3 (its closed-form profile)."""
    assert 2.0 <= certify(GEO, sensitivity=2).value <= 2.0 * (1 + 1e-12)
    assert 3.0 <= certify(Laplace(epsilon=1.0), sensitivity=3.0).value <= 3.0 * (1 + 1e-12)
    with pytest.raises(ValueError, match="`sensitivity` must be an integer"):
        certify(GEO, sensitivity=1.5)
