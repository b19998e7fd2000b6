"""The LP engine's shared parts, each against an independent statement of what it must do."""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import pytest

from optmech.exceptions import PrivacyViolationError, SolverError
from optmech.lp.engine.acceptance import PRIVACY_ATOL, PRIVACY_RTOL, within_privacy
from optmech.lp.engine.crosscheck import cross_check, labelled
from optmech.lp.engine.interval import relatively_wide
from optmech.lp.engine.mixing import MixingSearch, least_mixture
from optmech.lp.engine.rounding import tail_ratio_for, uniform_width
from optmech.lp.solve import alternative_solvers
from optmech.provenance import Attempt, Provenance


def _threshold(theta: float, tried: list[float]) -> object:
    """A certificate that holds from ``theta`` on (mixing is monotone for a convex divergence),
    recording every weight asked about."""

    def certify(weight: float) -> float | None:
        tried.append(weight)
        return weight if weight >= theta else None

    return certify


@pytest.mark.parametrize("theta", np.random.default_rng(20).uniform(1e-9, 0.9, 12).tolist())
def test_the_growth_follows_its_schedule_and_stops_at_the_first_certified_weight(
    theta: float,
) -> None:
    """Without bisection the weights tried are start, then ``min(1, max(2w, floor))``, until
    the first one at or above the threshold, which is returned."""
    tried: list[float] = []
    weight, got = least_mixture(
        _threshold(theta, tried), 1e-12, MixingSearch(floor=1e-10), failure="x"
    )
    expected = [1e-12]
    while expected[-1] < theta:
        expected.append(min(1.0, max(2.0 * expected[-1], 1e-10)))
    assert tried == expected and weight == got == expected[-1] >= theta


@pytest.mark.parametrize("geometric", [False, True])
@pytest.mark.parametrize("theta", [3e-7, 0.01, 0.37, 0.999])
def test_the_bisection_brackets_the_least_certified_weight(geometric: bool, theta: float) -> None:
    """After ``k`` steps the weight certifies and is close to the threshold.

    Midpoints: the bracket [last failure (0 at first), first certified] halves each step, so the
    weight is within ``first·2^−k`` of the threshold. Geometric means (``growth`` 16, from below
    every threshold, so the growth step before the first certified weight failed and the
    threshold is above ``first/16``): a trial fails by the second step, leaving a bracket of
    ratio at most 4 that halves in log each step after: within a factor ``4^(2^−(k−2))``.
    """
    tried: list[float] = []
    k = 10
    search = MixingSearch(growth=16.0, refine_steps=k, geometric=geometric)
    weight, _ = least_mixture(_threshold(theta, tried), 1e-9, search, failure="x")
    first = next(w for w in tried if w >= theta)
    assert theta <= weight <= first
    assert len(tried) == tried.index(first) + 1 + k
    if geometric:
        assert all(first / 16.0 <= w <= first for w in tried[tried.index(first) :])
        assert weight / theta <= 4.0 ** (2.0 ** -(k - 2))
    else:
        assert weight - theta <= first * 2.0**-k


def test_no_certified_weight_raises_with_the_callers_message() -> None:
    tried: list[float] = []
    with pytest.raises(PrivacyViolationError, match="no mixture"):
        least_mixture(_threshold(2.0, tried), 0.1, MixingSearch(largest=0.5), failure="no mixture")
    assert tried[-1] == 0.5 and tried.count(0.5) == 1


def test_relative_width_is_relative_even_below_one() -> None:
    """A value of 1e-9 with the trivial bound 0 passes the provenance's absolute rule (the gap
    measured against 1 below 1) but is 100% wide relative to itself."""
    prov = Provenance("HIGHS", "optimal", (), value=1e-9, lower_bound=0.0, accuracy=1e-6)
    assert prov.within_accuracy
    assert relatively_wide(1e-9, 0.0, 1e-6)
    assert not relatively_wide(1e-9, 1e-9 * (1 - 1e-7), 1e-6)
    assert not relatively_wide(0.0, -1.0, 1e-6)  # a zero value: nothing left to gain


def test_cross_check_labels_every_attempt_and_keeps_going_after_a_failure() -> None:
    others = alternative_solvers("HIGHS")
    calls: list[str] = []

    def solve_with(name: str) -> str:
        calls.append(name)
        if len(calls) == 1:
            raise SolverError(
                name, "solver_error", "x", attempts=(Attempt(name, "as built", "x", 0.1),)
            )
        return name

    solves, attempts = cross_check(
        "HIGHS", solve_with, lambda s: [Attempt(s, "rescaled", "ok", 1.0)]
    )
    assert calls == others
    assert solves == others[1:]
    assert all(a.variant.startswith("cross-check, ") for a in attempts)
    assert [a.solver for a in attempts] == others


def test_labelled_drops_what_is_not_an_attempt() -> None:
    out = labelled([Attempt("CLARABEL", "as built", "optimal", 0.5), "note"], "refined")
    assert out == [Attempt("CLARABEL", "refined, as built", "optimal", 0.5)]


@pytest.mark.parametrize("epsilon", [1e-6, 0.1, 1.0, math.log(2), 7.5, 30.0, 50.0])
def test_tail_ratio_is_exactly_private_against_the_rounded_factor(epsilon: float) -> None:
    """``fl(e^ε)·ρ ≥ 1`` in exact rationals, ``ρ > e^−ε`` against a rigorous ball enclosure
    (python-flint), and ρ only a few ulps above it."""
    ratio = tail_ratio_for(epsilon)
    assert Fraction(math.exp(epsilon)) * Fraction(ratio) >= 1
    saved, flint.ctx.prec = flint.ctx.prec, 200
    try:
        exact = (-flint.arb(epsilon)).exp()
        assert flint.arb(ratio) > exact
        assert flint.arb(ratio) < exact * (1 + flint.arb(8) * flint.arb(2) ** -53)
    finally:
        flint.ctx.prec = saved


@pytest.mark.parametrize(("delta", "m"), [(1.0, 3), (1.0, 7), (0.1, 10), (2.5, 1000), (3.0, 49)])
def test_uniform_width_reaches_exactly_m_cells(delta: float, m: int) -> None:
    """``Δ/h ≤ m`` in exact rationals, and ``h`` is the least such float."""
    h = uniform_width(delta, m)
    assert Fraction(delta) / Fraction(h) <= m
    assert Fraction(delta) / Fraction(math.nextafter(h, 0.0)) > m


def test_acceptance_is_the_stated_margin() -> None:
    eps = 0.7
    edge = eps * (1.0 + PRIVACY_RTOL) + PRIVACY_ATOL
    assert within_privacy(edge, eps) and not within_privacy(math.nextafter(edge, math.inf), eps)
