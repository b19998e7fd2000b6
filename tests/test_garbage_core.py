"""Garbage in, clean errors out: property tests over every public entry point of the core.

Random values of every kind (NaN, ±inf, negative, zero, subnormal, huge, huge integers,
strings, None, bools, lists, complex numbers, arrays, arbitrary objects) go into the public
constructors and functions of :mod:`optmech.costs`, :mod:`optmech.privacy` and the (0, δ) /
(ε, δ) families. The property: either a result comes back that contains no NaN, or a
``ValueError`` / ``TypeError`` is raised. Any other exception, and any warning (pytest runs
with ``filterwarnings = error``), fails the test.

The examples are derandomised (a fixed sequence per test, no example database) so the suite is
reproducible.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from optmech.costs import (
    Absolute,
    Asymmetric,
    Custom,
    Power,
    Squared,
    ZeroOne,
    as_cost,
    parse_cost,
)
from optmech.mechanisms.gaussian import Gaussian, analytic_gaussian_delta
from optmech.mechanisms.truncated_laplace import TruncatedLaplace
from optmech.mechanisms.uniform_atom import UniformAtom, uniform_atom_min_cost
from optmech.privacy import ApproxDP, PureDP

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None)

SPECIAL = [
    0,
    0.0,
    -0.0,
    1,
    -1,
    0.5,
    5e-324,
    2.2250738585072014e-308,
    1e-300,
    1 - 1e-16,
    1.0,
    1e300,
    1.7976931348623157e308,
    -1e308,
    math.nan,
    math.inf,
    -math.inf,
    10**400,
    -(10**400),
    np.float64(0.5),
    np.float32(0.25),
    np.int64(3),
    np.nan,
    np.array(0.5),
    np.array([0.5, 2.0]),
    np.array([[1.0]]),
    np.array([1j]),
    np.array(["a"]),
    np.array(True),
    b"1",
    "0.5",
    "abs",
    "power:1e400",
    "asym:nan,1",
    "zero-one:-0",
    "",
    object(),
    [],
    [1, [2]],
    {"a": 1},
    (1, 2),
    1 + 2j,
    True,
    False,
    None,
]

GARBAGE = st.one_of(
    st.sampled_from(SPECIAL),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.text(max_size=8),
    st.none(),
    st.booleans(),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=3),
    st.complex_numbers(allow_nan=True, allow_infinity=True),
)

COSTS = [
    Absolute(),
    Squared(),
    Power(2.5),
    Power(3),
    Asymmetric(over=2.0, under=0.5),
    ZeroOne(0.5),
    Custom(lambda e: np.log1p(np.abs(e))),
]
COST = st.sampled_from(COSTS)


def assert_no_nan(value: Any) -> None:
    """No NaN in a float/array result, nor in the float attributes of an object result."""
    if isinstance(value, float | np.floating | np.ndarray):
        assert not np.any(np.isnan(np.asarray(value, dtype=np.float64))), value
    elif isinstance(value, tuple | list):
        for item in value:
            assert_no_nan(item)
    elif hasattr(value, "__dict__"):
        for item in vars(value).values():
            if isinstance(item, float | np.floating | np.ndarray):
                assert_no_nan(item)


def survives(fn, *args: Any, **kwargs: Any) -> Any:  # type: ignore[no-untyped-def]
    """Call ``fn``; a ValueError/TypeError is a clean refusal, a result must be NaN-free."""
    try:
        result = fn(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        assert str(exc), "errors must explain themselves"
        return None
    assert_no_nan(result)
    return result


# -- costs -----------------------------------------------------------------------------------------
@SETTINGS
@given(GARBAGE, GARBAGE, GARBAGE)
def test_cost_constructors(a: Any, b: Any, c: Any) -> None:
    survives(Power, a)
    survives(ZeroOne, a)
    survives(Asymmetric, over=a, under=b, p=c)
    survives(Custom, a)
    survives(Custom, np.abs, symmetric=a, nondecreasing=b)
    survives(Custom, np.abs, antiderivative=a, growth=b, name=c)
    survives(parse_cost, a)
    survives(as_cost, a)


@SETTINGS
@given(st.text(alphabet="absqurepowzrn-:,.0123456789eE+-infINF ", max_size=14))
def test_parse_cost_on_spec_like_strings(spec: str) -> None:
    cost = survives(parse_cost, spec)
    if cost is not None:
        assert_no_nan(cost(np.array([-1.0, 0.0, 2.0])))


def _reasonable_ratio(ratio: Any) -> bool:
    """Ratios just below 1 are valid but need millions of series terms: not garbage, just slow."""
    try:
        r = float(ratio)
    except (TypeError, ValueError, OverflowError):
        return True
    return not 0.95 < r < 1.0


@SETTINGS
@given(COST, GARBAGE, GARBAGE, GARBAGE, GARBAGE)
def test_cost_methods(cost: Any, a: Any, b: Any, period: Any, ratio: Any) -> None:
    assume(_reasonable_ratio(ratio))
    survives(cost, a)
    survives(cost.integral, a, b)
    survives(cost.cell_average, a, b)
    survives(cost.loss_matrix, a, b)
    survives(cost.periodic_integral, a, b, period=period, ratio=ratio)
    survives(cost.periodic_sum, a, period=period, ratio=ratio)
    survives(cost.periodic_sum, 0.5, period=period, ratio=0.5)
    survives(cost.periodic_integral, 0.0, 1.0, period=1.0, ratio=ratio)
    survives(cost.mirrored().integral, a, b)
    survives(cost.require_symmetric_nondecreasing, a)


@SETTINGS
@given(COST, st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_cost_methods_on_extreme_reals(cost: Any, a: float, b: float) -> None:
    survives(cost, a)
    survives(cost.integral, a, b)
    survives(cost.periodic_integral, a, b, period=1.5, ratio=0.5)
    survives(cost.periodic_sum, a, period=-2.0, ratio=0.3)


# -- privacy ---------------------------------------------------------------------------------------
@SETTINGS
@given(GARBAGE, GARBAGE)
def test_privacy_guarantees(a: Any, b: Any) -> None:
    for guarantee in (survives(PureDP, a), survives(ApproxDP, a, b)):
        if guarantee is not None:
            assert math.isfinite(guarantee.epsilon) and 0 <= guarantee.delta < 1


# -- the (0, δ) and (ε, δ) families ----------------------------------------------------------
@SETTINGS
@given(GARBAGE, GARBAGE, GARBAGE, GARBAGE)
def test_family_constructors(a: Any, b: Any, c: Any, d: Any) -> None:
    survives(UniformAtom, delta=a, sensitivity=b, alpha=c)
    survives(UniformAtom.optimal, delta=a, sensitivity=b, cost="abs")
    survives(UniformAtom.optimal, delta=0.7, cost=d)
    survives(uniform_atom_min_cost, a, b, c)
    survives(TruncatedLaplace, epsilon=a, delta=b, sensitivity=c)
    survives(Gaussian, epsilon=a, delta=b, sensitivity=c)
    survives(Gaussian, epsilon=a, delta=b, sensitivity=c, calibration="analytic")
    survives(Gaussian, epsilon=0.5, delta=1e-5, calibration=d)
    survives(analytic_gaussian_delta, a, epsilon=b, sensitivity=c)


POSITIVE = st.one_of(
    st.floats(min_value=5e-324, max_value=1.7976931348623157e308),
    st.sampled_from([5e-324, 1e-300, 1e-10, 1.0, 1e10, 1e300, 1.7976931348623157e308]),
)
UNIT = st.one_of(
    st.floats(min_value=5e-324, max_value=1 - 1e-16),
    st.sampled_from([5e-324, 1e-300, 1e-12, 0.5, 1 - 1e-12, 1 - 1e-16]),
)
FRACTION = st.floats(min_value=0.0, max_value=1.0)


def exercise(noise: Any, point: Any, q: Any) -> None:
    """Every public method, at extreme and garbage arguments."""
    for x in (point, 0.0, 1.0, -1.0, math.inf, -math.inf, [0.5, -2.0]):
        survives(noise.pdf, x)
        survives(noise.cdf, x)
        cdf = survives(noise.cdf, x)
        if cdf is not None:
            assert np.all((np.asarray(cdf) >= 0) & (np.asarray(cdf) <= 1))
    for level in (q, 0.0, 0.5, 1.0):
        survives(noise.ppf, level)
    for cost in ("abs", "squared", ZeroOne(1.0), Power(0.5), point):
        survives(noise.expected_cost, cost)
    samples = survives(noise.rvs, 4, rng=0)
    if samples is not None:
        assert np.all(np.isfinite(samples))
    survives(noise.rvs, point, rng=point)
    assert_no_nan(noise.privacy.delta)
    assert isinstance(repr(noise), str)


@SETTINGS
@given(UNIT, POSITIVE, FRACTION, GARBAGE, GARBAGE)
def test_uniform_atom_at_extreme_parameters(
    delta: float, sens: float, frac: float, point: Any, q: Any
) -> None:
    noise = survives(UniformAtom, delta=delta, sensitivity=sens, alpha=frac * delta)
    if noise is not None:
        assert 0 < noise.half_width < math.inf and 0 < noise.density < math.inf
        exercise(noise, point, q)
    survives(UniformAtom.optimal, delta=delta, sensitivity=sens, cost="squared")
    survives(uniform_atom_min_cost, delta, 1.0 + frac, sens)


@SETTINGS
@given(POSITIVE, UNIT, POSITIVE, GARBAGE, GARBAGE)
def test_truncated_laplace_at_extreme_parameters(
    eps: float, delta: float, sens: float, point: Any, q: Any
) -> None:
    noise = survives(TruncatedLaplace, epsilon=eps, delta=delta, sensitivity=sens)
    if noise is not None:
        assert 0 < noise.half_width < math.inf and 0 < noise.scale < math.inf
        exercise(noise, point, q)


@SETTINGS
@given(POSITIVE, UNIT, POSITIVE, st.sampled_from(["classic", "analytic"]), GARBAGE, GARBAGE)
def test_gaussian_at_extreme_parameters(
    eps: float, delta: float, sens: float, calibration: str, point: Any, q: Any
) -> None:
    noise = survives(Gaussian, epsilon=eps, delta=delta, sensitivity=sens, calibration=calibration)
    if noise is not None:
        assert 0 < noise.sigma < math.inf
        exercise(noise, point, q)
