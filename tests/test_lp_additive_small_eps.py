"""Designs at tiny ε: the tails sit at exactly e^ε, so the pessimistic certificate exceeds ε by
its own rounding (2e-14 to 4e-14 absolute here), which at ε ≤ 1e-5 is more than the relative margin
ε·1e-9. The design is accepted within ε(1 + PRIVACY_RTOL) + PRIVACY_ATOL and reports the
certified ε it has.

Independent truth: the staircase optimum ``V* = Δ e^(ε/2)/(e^ε − 1)`` (Geng & Viswanath 2016,
Thm. 4) written out here, density ratios read off ``pdf`` at random real points and shifts, and
the exact rational cost of the returned noise (``_exact_tails``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from _exact_tails import exact_piecewise_cost

import optmech
from optmech.costs import as_cost
from optmech.lp.engine.acceptance import PRIVACY_ATOL, PRIVACY_RTOL


@pytest.mark.parametrize("eps", [1e-5, 1e-6])
def test_tiny_epsilon_designs_are_certified_and_optimal(eps: float) -> None:
    noise = optmech.design_noise(optmech.PureDP(eps), sensitivity=1.0, cost="abs")
    v_star = math.exp(eps / 2) / math.expm1(eps)
    assert v_star * (1 - 1e-12) <= noise.value <= 1.02 * v_star
    assert noise.lower_bound <= noise.value
    assert noise.certified_epsilon <= eps * (1 + PRIVACY_RTOL) + PRIVACY_ATOL
    # Falsification: log f(x) − log f(x + d) for real x and |d| ≤ Δ. Each float log carries
    # an error of at most u·|log f| ≤ 2^-53·745, so two of them 2e-13 at the most.
    rng = np.random.default_rng(7)
    reach = noise.record.periods + 2.0
    x = rng.uniform(-reach, reach, 100_000)
    d = rng.uniform(-1.0, 1.0, x.size)
    ratio = np.abs(np.log(noise.pdf(x)) - np.log(noise.pdf(x + d)))
    assert float(np.max(ratio)) <= eps + PRIVACY_ATOL + 2e-13


def test_epsilon_below_the_certifiable_range_is_refused_by_name() -> None:
    """Below 1e-6 the certificate's own rounding (up to about 1e-12) is a visible fraction of
    ε: refused up front, naming the parameter and the range."""
    with pytest.raises(ValueError, match=r"`epsilon`.*1e-06") as info:
        optmech.design_noise(optmech.PureDP(1e-9), sensitivity=1.0, cost="abs")
    assert "1e-09" in str(info.value)
    # (0, δ) keeps ε = 0.
    optmech.AdditiveSpec(optmech.ApproxDP(0.0, 0.1), 1.0, "abs")


@pytest.mark.parametrize("cost", ["squared", "abs"])
def test_the_interval_brackets_the_exact_cost_of_the_returned_noise(cost: str) -> None:
    """At ε = 1e-6 nearly all the mass lies in the geometric tails (ratio 1 − 1e-6 per Δ), whose
    cost is a sum of about 10⁶ periods. ``value`` must be at least the exact cost of the noise
    returned (it is that noise's cost rounded up), and ``lower_bound`` at most the cost of any
    feasible point, the returned one included. (With the tails as differences of two huge sums,
    ``value`` was 4.3e-11 below the exact cost for x² and ``lower_bound`` 6.6e-11 above it for
    |x|.)"""
    noise = optmech.design_noise(optmech.PureDP(1e-6), sensitivity=1.0, cost=cost)
    exact = exact_piecewise_cost(noise, as_cost(cost))
    assert Fraction(noise.value) >= exact
    assert Fraction(noise.lower_bound) <= exact
    assert float(exact - Fraction(noise.lower_bound)) <= 1e-9 * float(exact)
