"""Designs at tiny ε: the tails sit at exactly e^ε, so the pessimistic certificate exceeds ε by
its own rounding (2e-14 to 4e-14 absolute here), which at ε ≤ 1e-5 is more than the relative margin
ε·1e-9. The design is accepted within ε(1 + PRIVACY_RTOL) + PRIVACY_ATOL and reports the
certified ε it has.

Independent truth: the staircase optimum ``V* = Δ e^(ε/2)/(e^ε − 1)`` (Geng & Viswanath 2016,
Thm. 4) written out here, and density ratios read off ``pdf`` at random real points and shifts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import optmech
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
