"""The shared interface of the noise families on ℝ^d (StaircaseND, PiecewiseConstantNoise2D).

Independent truths: the 1-D staircase's closed forms (Geng & Viswanath 2016) for StaircaseND in
dimension 1, and the cost given as a Norm object against the same cost given by name.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import optmech
from optmech.certify.noise2d import footprint
from optmech.costs.norm import Norm
from optmech.mechanisms.tails2d import GaugeTail, gauge_polygon
from optmech.mechanisms.vector import VectorNoise


def _grid_noise() -> optmech.PiecewiseConstantNoise2D:
    tail = GaugeTail(*gauge_polygon(footprint("linf", 2)), Fraction(1, 2), float(np.exp(-1)))
    i, j = np.meshgrid(np.arange(-2, 2), np.arange(-2, 2), indexing="ij")
    return optmech.PiecewiseConstantNoise2D(
        tail.values(i, j), width=0.5, sensitivity=1.0, norm="linf", tails=[(tail, 1.0)], epsilon=1.0
    )


FAMILIES = {
    "staircase_nd": lambda: optmech.StaircaseND(epsilon=1.0, gamma=0.4, norm="l2", dimension=3),
    "grid_2d": _grid_noise,
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_shared_interface(name: str) -> None:
    noise = FAMILIES[name]()
    d = noise.dimension
    assert isinstance(noise, VectorNoise)
    assert noise.epsilon == 1.0 and noise.privacy == optmech.PureDP(1.0)
    assert noise.sensitivity == 1.0 and noise.norm in ("l1", "l2", "linf")
    x = noise.rvs(5, rng=0)
    assert x.shape == (5, d)
    assert noise.rvs(rng=0).shape == (d,)
    assert isinstance(noise.pdf(np.zeros(d)), float)
    assert noise.pdf(x).shape == (5,)
    np.testing.assert_allclose(noise.logpdf(x), np.log(noise.pdf(x)), rtol=1e-14)


@pytest.mark.parametrize(
    ("name", "norm"),
    [("staircase_nd", "l2"), ("grid_2d", "l1"), ("grid_2d", "l2"), ("grid_2d", "linf")],
)
def test_a_cost_by_name_is_the_norm(name: str, norm: str) -> None:
    noise = FAMILIES[name]()
    order = {"l1": 1, "l2": 2, "linf": math.inf}[norm]
    assert noise.expected_cost(norm) == noise.expected_cost(Norm(order))


def test_the_staircase_in_dimension_one_is_the_1d_staircase() -> None:
    """E|X| and E X² of Geng & Viswanath (2016) in closed form, b = e^(−ε), u = b + (1 − b)γ."""
    eps, gamma, delta = 1.3, 0.35, 0.8
    nd = optmech.StaircaseND(epsilon=eps, gamma=gamma, sensitivity=delta, norm="l1", dimension=1)
    b = math.exp(-eps)
    u = b + (1 - b) * gamma
    assert nd.expected_cost("l1") == pytest.approx(
        delta * (1 / math.expm1(eps) + (b + gamma**2 * (1 - b)) / (2 * u)), rel=1e-13
    )
    squared = delta**2 * (u**3 + 3 * b * u + b + b * b) / (3 * u * (1 - b) ** 2)
    assert nd.expected_cost(Norm(1, 2)) == pytest.approx(squared, rel=1e-13)


def test_epsilon_by_position_is_deprecated_but_works() -> None:
    with pytest.deprecated_call(match=r"StaircaseND\(epsilon=…\)"):
        old = optmech.StaircaseND(1.0, gamma=0.4)
    assert repr(old) == repr(optmech.StaircaseND(epsilon=1.0, gamma=0.4))
    with pytest.deprecated_call(match=r"StaircaseND\.optimal\(epsilon=…\)"):
        best = optmech.StaircaseND.optimal(2.0, cost=Norm(1))
    assert best.gamma == optmech.StaircaseND.optimal(epsilon=2.0, cost=Norm(1)).gamma
    with pytest.raises(TypeError, match="`epsilon` by keyword"):
        optmech.StaircaseND(1.0, epsilon=1.0, gamma=0.4)


def test_expected_cost_needs_a_cost() -> None:
    with pytest.raises(TypeError):
        optmech.StaircaseND(epsilon=1.0, gamma=0.4).expected_cost()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="`cost` must be"):
        _grid_noise().expected_cost("abs")
