"""Designs that cannot be solved are refused before anything of their size is built, by name.

Each request here once crashed or ran away: μ = 100 GDP (an OverflowError in ``e^5702``), (0, 1e-9)
(a 149 GiB grid allocated before the memory estimate ran), (0, 1e-300) and (1, 1e-300) with
constraints (minutes at 2.3 GB; without constraints (1, 1e-300) is answered by the ε-DP design),
ρ = 10⁶ zCDP (an OverflowError in the tails' ratio). Independent truth: the valid ranges follow
from the formulas stated in the messages — the GDP cap ε where ``δ_μ(ε) = 1e-12``, computed
here with ``scipy.stats``; the (0, δ) support ``1/(2δ)`` periods of Geng, Ding, Guo & Kumar
(2019); and "before anything is built" is checked by making the grid constructor fail.
"""

from __future__ import annotations

import math

import pytest
from scipy import optimize, stats

import optmech
import optmech.lp.additive.lp as lp_module
from optmech import design_noise
from optmech.exceptions import ProblemTooLargeError, SolverError
from optmech.lp.additive.spec import BEYOND_LOSS_MAX, DELTA_MIN


@pytest.fixture
def nothing_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a grid is built (every LP builds its grid first)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a grid was built before the refusal")

    monkeypatch.setattr(lp_module, "make_grid", refuse)


def _gdp_cap(mu: float) -> float:
    """The ε where δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) is 1e-12 (Dong, Roth & Su 2022)."""

    def excess(eps: float) -> float:
        upper = stats.norm.cdf(-eps / mu + mu / 2)
        return float(upper - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)) - 1e-12

    return float(optimize.brentq(excess, 0.0, 200.0, xtol=1e-10))


@pytest.mark.usefixtures("nothing_built")
def test_gdp_beyond_the_solvable_cap_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"`mu` must be in \(0, 6\.4\d*\].*got 100\.0") as info:
        design_noise(optmech.GaussianDP(100.0), sensitivity=1, cost="abs", integer=True)
    top = float(str(info.value).split("(0, ")[1].split("]")[0])
    assert _gdp_cap(top) == pytest.approx(BEYOND_LOSS_MAX, rel=1e-3)


@pytest.mark.usefixtures("nothing_built")
@pytest.mark.parametrize(
    ("privacy", "name"),
    [
        (optmech.ZCDP(1e6), "`rho`"),
        (optmech.ApproxDP(0.0, 1e-300), "`delta`"),
        (optmech.RenyiDP(2.0, 1e6), "`privacy`"),
        (optmech.PrivacyProfile([1.0], [1e-12]), "`privacy`"),
        (optmech.PrivacyProfile([60.0], [0.0]), "`privacy`"),
    ],
    ids=str,
)
def test_out_of_range_guarantees_are_refused_by_name(privacy: object, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        design_noise(privacy, sensitivity=1, cost="abs", integer=True)


def test_delta_floor_is_stated() -> None:
    """With constraints of the caller's the (ε, δ) LP itself must be solved: its floor holds."""
    from optmech.constraints import Unbiased

    with pytest.raises(ValueError, match=rf"\[{DELTA_MIN:g}, 1\]; got 1e-300"):
        design_noise(
            optmech.ApproxDP(1.0, 1e-300), sensitivity=1.0, cost="abs", constraints=Unbiased()
        )


def test_a_tiny_delta_on_the_integers_is_answered_by_the_pure_lattice_design() -> None:
    """(1, 1e-300) on ℤ, Δ = 2: the ε-DP lattice design, δ certified 0, and never below the
    discrete staircase's optimum (Geng & Viswanath 2016, §VI) by more than its interval."""
    noise = design_noise(optmech.ApproxDP(1.0, 1e-300), sensitivity=2, cost="abs", integer=True)
    best = optmech.DiscreteStaircase.optimal(epsilon=1.0, sensitivity=2, cost="abs")
    assert noise.record.source == "pure" and noise.certified_delta == 0.0
    assert noise.lower_bound <= best.expected_cost("abs") * (1 + 1e-9) <= noise.value * (1 + 2e-9)


@pytest.mark.usefixtures("nothing_built")
@pytest.mark.parametrize("integer", [True, False])
def test_memory_estimate_refuses_before_the_grid_is_built(integer: bool) -> None:
    """(0, 1e-9) needs ``1/(2δ) = 5·10⁸`` periods each side: refused with its size, unbuilt."""
    with pytest.raises(ProblemTooLargeError, match=r"about [0-9.e+]+ GB .*periods=500000001"):
        design_noise(optmech.ApproxDP(0.0, 1e-9), sensitivity=1, cost="abs", integer=integer)


def test_zcdp_at_a_huge_rho_is_designed_with_a_non_negative_bound() -> None:
    """ρ = 1000 on ℤ: nearly all mass at 0 (the discrete Gaussian's σ is 0.022). The cost |x| is
    non-negative, so the certified lower bound is too (it was −4.5e-12 from rounding)."""
    noise = design_noise(optmech.ZCDP(1000.0), sensitivity=1, cost="abs", integer=True)
    assert 0.0 <= noise.lower_bound <= noise.value < 1e-9
    assert noise.certified_rho <= 1000.0


def test_profile_support_grows_when_the_default_is_too_short() -> None:
    """The longest of the points' own supports (9 periods) is infeasible for the three points
    together; the design lengthens it (up to the truncated Laplace's at ε = 0.5, δ = 1e-5,
    which meets every point) and matches the design on 20 periods within the intervals."""
    g = optmech.PrivacyProfile([0.5, 1.0, 2.0], [1e-2, 1e-3, 1e-5])
    grown = design_noise(g, sensitivity=1, cost="abs", integer=True)
    wide = design_noise(g, sensitivity=1, cost="abs", integer=True, periods=20)
    assert grown.record.periods > 9
    assert max(grown.lower_bound, wide.lower_bound) <= min(grown.value, wide.value)
    for (eps, got), target in zip(grown.certified_profile, g.deltas, strict=True):
        assert got <= target, eps
    with pytest.raises(SolverError, match="raise `periods`"):  # a support given is kept
        design_noise(g, sensitivity=1, cost="abs", integer=True, periods=9)
