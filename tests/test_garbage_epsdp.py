"""Garbage in, clear errors out: the closed-form families under random junk (hypothesis).

The constructor of every closed-form family on ℝ and ℤ of the registry (``_families``) is
called with values drawn from junk (NaN, ±inf, negative, zero, huge, tiny, strings, None, bools,
lists, complex numbers, Decimals, numpy scalars) mixed with valid values, in every keyword, and
whatever it builds is exercised with junk; so are the staircase optimisers and helpers, the
range-restricted geometric and the ``staircase`` command. The only exceptions allowed out are
:class:`ValueError` and :class:`TypeError`; whatever comes back must contain no NaN (pytest's
``filterwarnings = error`` also turns any numpy overflow or invalid-value warning into a failure).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from _families import entries
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optmech.cli import main
from optmech.costs import Absolute, Asymmetric, Power, ZeroOne
from optmech.mechanisms.discrete_staircase import DiscreteStaircase
from optmech.mechanisms.geometric import truncated_geometric
from optmech.mechanisms.staircase import (
    Staircase,
    heuristic_gamma,
    laplace_staircase_ratio,
    staircase_gamma_star,
)

ALLOWED = (ValueError, TypeError)

numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-5.0, max_value=50.0),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=-3, max_value=30),
    st.sampled_from(
        [
            0,
            1,
            2,
            5,
            0.5,
            1e-6,
            9e-7,
            1e-12,
            700.0,
            700.1,
            1e-300,
            1e300,
            5e-324,
            1.7e308,
            -0.0,
            10**6,
            10**6 + 1,
            2**53,
            2**53 + 1,
        ]
    ),
    st.builds(np.float64, st.floats(allow_nan=True, allow_infinity=True)),
    st.builds(np.int64, st.integers(min_value=-(2**63), max_value=2**63 - 1)),
)
junk = st.one_of(
    numbers,
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.lists(st.floats(allow_nan=True), max_size=3),
    st.sampled_from(
        [
            1 + 2j,
            Decimal("1.5"),
            Fraction(1, 3),
            object(),
            np.array([1.0, 2.0]),
            np.array(np.nan),
            np.bool_(True),
            [[1.0], [1.0, 2.0]],
            {},
            (),
        ]
    ),
)
costs = st.one_of(
    st.sampled_from(
        [
            "abs",
            "squared",
            "power:3",
            "zero-one:0.5",
            "zero-one",
            "asym:2,1",
            "power:-1",
            "power:nan",
            "cubic",
            "",
            Absolute(),
            Power(2.0),
            ZeroOne(3.0),
            Asymmetric(over=2.0, under=1.0),
        ]
    ),
    st.builds(Power, st.integers(min_value=1, max_value=80)),  # closed-form series, huge values
    junk,
)
SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def attempt(fn, *args: Any, **kwargs: Any) -> Any:
    """Call; return the result, or None when a ValueError/TypeError (the allowed ones) came out."""
    try:
        return fn(*args, **kwargs)
    except ALLOWED:
        return None


def assert_no_nan(value: Any) -> None:
    if value is None:
        return
    if isinstance(value, float | np.ndarray | np.floating):
        assert not np.any(np.isnan(value)), value


def exercise(noise: Any, point: Any, size: Any, cost: Any) -> None:
    """All public methods, with valid arguments and with the drawn junk."""
    pts = np.array([-np.inf, -3.5, -1.0, 0.0, 0.25, 1.0, 2.0, 1e6, np.inf])
    density = noise.pmf(pts) if noise.discrete else noise.pdf(pts)
    assert np.all(np.isfinite(density)) and np.all(density >= 0)
    cdf = noise.cdf(pts)
    assert np.all((cdf >= 0) & (cdf <= 1))
    q = noise.ppf(np.array([0.0, 1e-9, 0.3, 0.5, 0.9, 1.0]))
    assert not np.any(np.isnan(q)) and np.all(q[1:] >= q[:-1])
    samples = noise.rvs(5, rng=0)
    assert samples.shape == (5,) and np.all(np.isfinite(samples))
    for spec in ("abs", "squared"):
        value = attempt(noise.expected_cost, spec)
        assert value is None or (math.isfinite(value) and value >= 0)
    for method in ("pdf" if not noise.discrete else "pmf", "cdf", "ppf"):
        assert_no_nan(attempt(getattr(noise, method), point))
    assert_no_nan(attempt(noise.rvs, size, rng=1))
    value = attempt(noise.expected_cost, cost)
    assert value is None or math.isfinite(value)
    assert "nan" not in repr(noise)


# (sizes stay small: a huge valid size is a legitimate request for memory, not junk)
sizes = st.one_of(
    st.none(),
    st.integers(min_value=-3, max_value=20),
    st.text(max_size=2),
    st.floats(min_value=-3, max_value=20),
    st.sampled_from([math.nan, math.inf]),
    st.tuples(st.integers(0, 3), st.integers(-1, 3)),
)


#: The closed-form families on ℝ and ℤ of the registry, one class each, and their keywords.
FAMILIES = sorted(
    {type(e.noise) for e in entries(space=("R", "Z")) if e.code is not None},
    key=lambda cls: cls.__name__,
)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda cls: cls.__name__)
@SETTINGS
@given(values=st.lists(junk, min_size=4, max_size=4), point=junk, size=sizes, cost=costs)
def test_family(family, values, point, size, cost) -> None:
    keywords = list(inspect.signature(family).parameters)
    noise = attempt(family, **dict(zip(keywords, values, strict=False)))
    if noise is not None:
        exercise(noise, point, size, cost)


@pytest.mark.parametrize(
    ("family", "shape_in_range"),
    [
        (Staircase, lambda best: 0.0 <= best.gamma <= 1.0),
        (DiscreteStaircase, lambda best: 1 <= best.r <= best.sensitivity),
    ],
    ids=["Staircase", "DiscreteStaircase"],
)
@SETTINGS
@given(eps=junk, delta=junk, cost=costs)
def test_optimal(family, shape_in_range, eps, delta, cost) -> None:
    best = attempt(family.optimal, epsilon=eps, sensitivity=delta, cost=cost)
    if best is not None:
        assert shape_in_range(best)


@SETTINGS
@given(eps=st.one_of(junk, st.lists(numbers, max_size=4)), delta=junk, cost=costs)
def test_staircase_helpers(eps, delta, cost) -> None:
    assert_no_nan(attempt(heuristic_gamma, eps))
    assert_no_nan(attempt(staircase_gamma_star, eps, cost, delta))
    assert_no_nan(attempt(laplace_staircase_ratio, eps, cost, delta))


@SETTINGS
@given(n=st.one_of(junk, st.integers(min_value=-2, max_value=60)), eps=junk)
def test_truncated_geometric(n, eps) -> None:
    mech = attempt(truncated_geometric, n, eps)
    if mech is not None:
        assert np.all(np.isfinite(mech)) and np.all(mech >= 0)
        np.testing.assert_allclose(mech.sum(axis=1), 1.0, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    eps=st.text(max_size=6) | st.sampled_from(["nan", "inf", "-1", "0", "1e400", "1"]),
    delta=st.sampled_from(["1", "0", "-2", "nan", "x", "1e308"]),
    cost=costs,
)
def test_cli(eps, delta, cost) -> None:
    args = ["staircase", "--epsilon", eps, "--sensitivity", delta, "--json"]
    if isinstance(cost, str) and cost and not cost.startswith("-"):
        args += ["--cost", cost]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as exc:  # argparse rejects what is not a float
            status = exc.code
    assert status in (0, 2)
    assert "Traceback" not in err.getvalue()
    if status == 0:
        assert "nan" not in out.getvalue().lower()
