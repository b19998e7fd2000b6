"""Tests of optmech._validation: canonical values out, parameter/range/value in every message."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from optmech._validation import (
    check_callable,
    check_int,
    check_real,
    check_real_array,
    check_rng,
    check_size,
    describe,
)


class TestCheckReal:
    @pytest.mark.parametrize(
        "value", [2, 2.0, np.float32(2.0), np.int64(2), np.array(2.0), np.array(2), Fraction(2)]
    )
    def test_accepts_reals_as_python_float(self, value) -> None:
        out = check_real("x", value)
        assert out == 2.0 and type(out) is float

    @pytest.mark.parametrize(
        ("kwargs", "value", "interval"),
        [
            ({"low": 0.0, "low_open": True}, 0.0, "(0, inf)"),
            ({"low": 0.0}, -1e-300, "[0, inf)"),
            ({"low": 0.0, "high": 1.0, "low_open": True, "high_open": True}, 1.0, "(0, 1)"),
            ({"low": 0.0, "high": 1.0}, 1.5, "[0, 1]"),
            ({"high": 3.0, "high_open": True}, 3.0, "(-inf, 3)"),
        ],
    )
    def test_interval_ends(self, kwargs, value, interval) -> None:
        with pytest.raises(ValueError) as info:
            check_real("epsilon", value, **kwargs)
        message = str(info.value)
        assert message.startswith(f"`epsilon` must be a finite real number in {interval}; got ")
        assert repr(float(value)) in message

    def test_closed_ends_are_included(self) -> None:
        assert check_real("x", 0.0, low=0.0, high=1.0) == 0.0
        assert check_real("x", 1.0, low=0.0, high=1.0) == 1.0

    @pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float64("nan")])
    def test_non_finite(self, value) -> None:
        with pytest.raises(ValueError, match="`x` must be a finite real number"):
            check_real("x", value)

    def test_huge_integers_are_a_value_error_not_an_overflow(self) -> None:
        with pytest.raises(ValueError, match="`x` must be a finite real number"):
            check_real("x", 10**400)
        with pytest.raises(ValueError, match="`x`"):
            check_real("x", -(10**400))

    @pytest.mark.parametrize(
        "value",
        [True, np.bool_(False), "1.0", None, 1j, [1.0], np.array([1.0]), np.array(True), object()],
    )
    def test_non_reals_are_type_errors(self, value) -> None:
        with pytest.raises(TypeError, match=r"`delta` must be a real number in \(0, 1\); got"):
            check_real("delta", value, low=0, high=1, low_open=True, high_open=True)

    def test_hint_is_appended(self) -> None:
        with pytest.raises(ValueError, match=r"got 0.0. \(use PureDP\)$"):
            check_real("delta", 0.0, low=0.0, low_open=True, hint="use PureDP")
        with pytest.raises(TypeError, match=r"\(use PureDP\)$"):
            check_real("delta", "x", hint="use PureDP")


class TestCheckInt:
    @pytest.mark.parametrize("value", [3, 3.0, np.int32(3), np.float64(3.0), 10**30])
    def test_accepts_integral_values(self, value) -> None:
        out = check_int("n", value)
        assert out == int(value) and type(out) is int

    @pytest.mark.parametrize("value", [3.5, math.nan, math.inf, np.float64(3.5)])
    def test_non_integral_reals(self, value) -> None:
        with pytest.raises(ValueError, match=r"`n` must be an integer in \[1, inf\); got") as info:
            check_int("n", value, low=1)
        assert str(info.value).endswith(f"got {float(value)!r}.")

    @pytest.mark.parametrize("value", [True, "3", None, 3j, [3], np.bool_(True)])
    def test_non_numbers(self, value) -> None:
        with pytest.raises(TypeError, match="`n` must be an integer") as info:
            check_int("n", value)
        assert "np." not in str(info.value)

    def test_bounds(self) -> None:
        assert check_int("n", 5, low=5, high=5) == 5
        with pytest.raises(ValueError, match=r"`n` must be an integer in \[1, 4\]; got 5\."):
            check_int("n", 5, low=1, high=4)
        with pytest.raises(ValueError, match=r"in \[0, inf\); got -1"):
            check_int("n", -1, low=0)
        with pytest.raises(ValueError, match=r"in \[-inf, 2\]; got 3"):
            check_int("n", 3, high=2)


class TestCheckRealArray:
    def test_returns_a_float_copy(self) -> None:
        src = np.array([1, 2, 3])
        out = check_real_array("prior", src)
        assert out.dtype == np.float64
        out[0] = 99
        assert src[0] == 1

    def test_shape_checks(self) -> None:
        assert check_real_array("m", [[1, 2], [3, 4]], ndim=2, shape=(2, 2)).shape == (2, 2)
        with pytest.raises(ValueError, match=r"`m` must be 1-dimensional; got shape \(2, 2\)"):
            check_real_array("m", [[1, 2], [3, 4]], ndim=1)
        with pytest.raises(ValueError, match=r"`m` must have shape \(3,\); got shape \(2,\)"):
            check_real_array("m", [1, 2], shape=(3,))
        with pytest.raises(ValueError, match="`m` must not be empty"):
            check_real_array("m", [])
        assert check_real_array("m", [], allow_empty=True).size == 0

    def test_values(self) -> None:
        with pytest.raises(ValueError, match="`p` must contain only finite numbers"):
            check_real_array("p", [1.0, np.nan])
        with pytest.raises(ValueError, match="`p` must contain only finite numbers"):
            check_real_array("p", [1.0, np.inf])
        with pytest.raises(ValueError, match=r"`p` must be non-negative; smallest entry is -0.5"):
            check_real_array("p", [1.0, -0.5], nonnegative=True)

    @pytest.mark.parametrize(
        "value", [[True, False], ["a", "b"], None, [1j], [[1], [1, 2]], [10**400], {"a": 1}]
    )
    def test_non_numeric(self, value) -> None:
        with pytest.raises(TypeError, match="`p` must be an array of real numbers"):
            check_real_array("p", value)


class TestSizeRngCallable:
    def test_check_size(self) -> None:
        assert check_size(None) is None
        assert check_size(3) == (3,)
        assert check_size((2, 3)) == (2, 3)
        assert check_size([2, 3.0]) == (2, 3)
        assert check_size(0) == (0,)
        with pytest.raises(ValueError, match=r"`size` must be an integer in \[0, inf\); got -1"):
            check_size(-1)
        with pytest.raises(ValueError, match="`size`"):
            check_size(2.5)
        with pytest.raises(TypeError, match="`size`"):
            check_size("3")
        with pytest.raises(TypeError, match="`size`"):
            check_size(True)

    def test_check_rng(self) -> None:
        gen = np.random.default_rng(0)
        assert check_rng(gen) is gen
        a = check_rng(42).random(3)
        b = check_rng(np.random.SeedSequence(42)).random(3)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(check_rng(np.random.PCG64(42)).random(3), a)
        assert isinstance(check_rng(None), np.random.Generator)
        for bad in ("seed", 1.5, -1, object()):
            with pytest.raises(TypeError, match="`rng` must be None, an int seed"):
                check_rng(bad)

    def test_check_callable(self) -> None:
        assert check_callable("fn", abs) is abs
        with pytest.raises(TypeError, match="`fn` must be callable; got 3"):
            check_callable("fn", 3)


def test_describe() -> None:
    assert describe(1.5) == "1.5"
    long = describe("x" * 200)
    assert len(long) == 80 and long.endswith("...")

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    assert describe(Broken()) == "<Broken>"
