"""An (ε, δ) design on too few periods is a ValueError naming ``periods``, before any solve.

Independent truth: the truncated Laplace on ``[−A, A]`` with ``A = Δ + (Δ/ε) ln(1 + (e^ε −
1)/(2δ))`` is (ε, δ)-DP (Geng, Ding, Guo & Kumar (2020)), so no support of ``⌈A/Δ⌉`` periods
may be refused; and the designer's LP, solved at the least number of periods accepted, is
feasible there (the refusal is not looser than the LP by a period on these instances).
"""

from __future__ import annotations

import math
import re
import warnings

import pytest

import optmech


def _truncated_laplace_periods(eps: float, delta: float) -> int:
    return math.ceil(1.0 + math.log1p(math.expm1(eps) / (2.0 * delta)) / eps)


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1e-3), (2.0, 1e-5), (0.5, 0.05), (4.0, 1e-8)])
@pytest.mark.parametrize("integer", [False, True])
def test_too_few_periods_are_refused_by_name(eps: float, delta: float, integer: bool) -> None:
    privacy = optmech.ApproxDP(eps, delta)
    with pytest.raises(ValueError, match=r"`periods` must be at least (\d+)") as info:
        optmech.design_noise(privacy, sensitivity=1, cost="abs", periods=1, integer=integer)
    need = int(re.search(r"at least (\d+)", str(info.value)).group(1))  # type: ignore[union-attr]
    assert 1 < need <= _truncated_laplace_periods(eps, delta)
    assert "got periods=1" in str(info.value)


@pytest.mark.slow
@pytest.mark.parametrize(("eps", "delta", "integer"), [(1.0, 1e-3, False), (1.0, 1e-3, True)])
def test_the_least_accepted_support_is_designed(eps: float, delta: float, integer: bool) -> None:
    privacy = optmech.ApproxDP(eps, delta)
    with pytest.raises(ValueError, match=r"at least (\d+)") as info:
        optmech.design_noise(privacy, sensitivity=1, cost="abs", periods=1, integer=integer)
    need = int(re.search(r"at least (\d+)", str(info.value)).group(1))  # type: ignore[union-attr]
    resolution = None if integer else 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noise = optmech.design_noise(
            privacy,
            sensitivity=1,
            cost="abs",
            periods=need,
            resolution=resolution,
            integer=integer,
        )
    assert noise.certified_delta <= delta  # (ε, δ) certified: δ at the ε asked
