"""Tests of optmech.privacy: validated, frozen guarantees."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from optmech.privacy import ApproxDP, PureDP


def test_pure_dp() -> None:
    g = PureDP(1)
    assert g.epsilon == 1.0 and type(g.epsilon) is float
    assert g.delta == 0.0
    assert str(g) == "1-DP"
    assert repr(g) == "PureDP(epsilon=1.0)"
    assert PureDP(np.float64(0.5)) == PureDP(0.5)
    assert PureDP(epsilon=2.0) == PureDP(2)
    assert hash(PureDP(2)) == hash(PureDP(2.0))


def test_approx_dp() -> None:
    g = ApproxDP(0, 0.25)
    assert (g.epsilon, g.delta) == (0.0, 0.25)
    assert type(g.epsilon) is float and type(g.delta) is float
    assert str(ApproxDP(1.5, 1e-6)) == "(1.5, 1e-06)-DP"
    assert ApproxDP(epsilon=1, delta=0.5) == ApproxDP(1.0, 0.5)
    assert ApproxDP(1.0, 0.5) != PureDP(1.0)


def test_guarantees_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PureDP(1.0).epsilon = 2.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ApproxDP(1.0, 0.1).delta = 0.2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("args", "exc", "match"),
    [
        ((0.0,), ValueError, r"`epsilon` must be a finite real number in \(0, inf\); got 0.0"),
        ((-1.0,), ValueError, r"`epsilon` .* got -1.0"),
        ((math.inf,), ValueError, "`epsilon`"),
        ((math.nan,), ValueError, "`epsilon`"),
        ((10**400,), ValueError, "`epsilon`"),
        ((True,), TypeError, "`epsilon` must be a real number"),
        (("1",), TypeError, "`epsilon`"),
        ((None,), TypeError, "`epsilon`"),
        ((1j,), TypeError, "`epsilon`"),
    ],
)
def test_pure_dp_rejects(args, exc, match) -> None:
    with pytest.raises(exc, match=match):
        PureDP(*args)


@pytest.mark.parametrize(
    ("args", "exc", "match"),
    [
        ((-0.1, 0.1), ValueError, r"`epsilon` must be a finite real number in \[0, inf\)"),
        ((1.0, 0.0), ValueError, r"`delta` .*\(0, 1\); got 0.0. \(use PureDP\(epsilon\)"),
        ((1.0, 1.0), ValueError, r"`delta` .* got 1.0"),
        ((1.0, -0.5), ValueError, "`delta`"),
        ((1.0, math.nan), ValueError, "`delta`"),
        ((math.inf, 0.1), ValueError, "`epsilon`"),
        ((1.0, None), TypeError, "`delta`"),
        ((1.0, [0.1]), TypeError, "`delta`"),
        ((False, 0.1), TypeError, "`epsilon`"),
    ],
)
def test_approx_dp_rejects(args, exc, match) -> None:
    with pytest.raises(exc, match=match):
        ApproxDP(*args)


def test_pure_and_approx_keep_their_parse_forms() -> None:
    """The forms beyond (ε, δ) leave ``eps=``/``delta=`` parsing and the classes untouched."""
    from optmech.privacy import Privacy, parse_privacy

    assert parse_privacy("eps=2") == PureDP(2.0)
    assert parse_privacy("e=1, d=0.1") == ApproxDP(1.0, 0.1)
    assert isinstance(PureDP(1), Privacy) and isinstance(ApproxDP(0, 0.5), Privacy)
    with pytest.raises(ValueError, match="'eps=E', 'delta=D', 'eps=E,delta=D', 'zcdp=RHO'"):
        parse_privacy("eps=1,eps=2")
    with pytest.raises(TypeError, match="spec must be a string"):
        parse_privacy(1.0)  # type: ignore[arg-type]
