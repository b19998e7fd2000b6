"""Argument checks shared by every public entry point.

Each check either returns the value in canonical form (a Python ``float``/``int`` or a numpy
array) or raises `TypeError` / `ValueError` with a message of the form
```` `epsilon` must be a finite real number in (0, inf); got -1.0. ````
that names the parameter, the valid range and the value received. Validation happens once,
at the public boundary; private formula code trusts its inputs.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "check_callable",
    "check_epsilon",
    "check_flag",
    "check_int",
    "check_prior",
    "check_real",
    "check_real_array",
    "check_rng",
    "check_size",
    "check_tail",
    "check_vectors",
    "describe",
]


def describe(value: Any) -> str:
    """Short, safe rendering of a received value for an error message."""
    try:
        text = repr(value)
    except Exception:  # a user object whose __repr__ fails must not mask our error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _interval(low: float, high: float, low_open: bool, high_open: bool) -> str:
    left = "(" if low_open or low == -math.inf else "["
    right = ")" if high_open or high == math.inf else "]"
    lo = "-inf" if low == -math.inf else f"{low:g}"
    hi = "inf" if high == math.inf else f"{high:g}"
    return f"{left}{lo}, {hi}{right}"


def check_real(
    name: str,
    value: Any,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    hint: str = "",
) -> float:
    """Return ``value`` as a finite float in the given interval, or raise.

    Parameters
    ----------
    name : str
        Parameter name used in the message.
    value : object
        The value received. ``bool`` is rejected (``True`` is not a privacy level).
    low, high : float
        Interval ends; infinite ends are always open.
    low_open, high_open : bool
        Whether each end is excluded.
    hint : str
        Extra advice appended to the message.

    Examples
    --------
    >>> check_real("epsilon", 2, low=0, low_open=True)
    2.0
    """
    interval = _interval(low, high, low_open, high_open)
    suffix = f" ({hint})" if hint else ""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
            value = value.item()
        else:
            raise TypeError(
                f"`{name}` must be a real number in {interval}; got {describe(value)} "
                f"of type {type(value).__name__}.{suffix}"
            )
    try:
        x = float(value)
    except OverflowError:  # an int beyond float range, e.g. 10**400
        x = math.inf if value > 0 else -math.inf
    bad = (
        not math.isfinite(x)
        or x < low
        or x > high
        or (low_open and x == low)
        or (high_open and x == high)
    )
    if bad:
        raise ValueError(f"`{name}` must be a finite real number in {interval}; got {x!r}.{suffix}")
    return x


def check_int(
    name: str,
    value: Any,
    *,
    low: int | None = None,
    high: int | None = None,
    hint: str = "",
) -> int:
    """Return ``value`` as a Python int in ``[low, high]``, or raise.

    Integral floats such as ``5.0`` are accepted; ``5.5``, ``True`` and strings are not.

    Examples
    --------
    >>> check_int("sensitivity", 3.0, low=1)
    3
    """
    lo = "-inf" if low is None else str(low)
    hi = "inf" if high is None else str(high)
    rng = f"[{lo}, {hi}]" if high is not None else f"[{lo}, inf)"
    suffix = f" ({hint})" if hint else ""
    if isinstance(value, bool | np.bool_):
        raise TypeError(
            f"`{name}` must be an integer in {rng}; got {bool(value)!r} of type bool.{suffix}"
        )
    if isinstance(value, numbers.Integral):
        n = int(value)
    elif (
        isinstance(value, numbers.Real)
        and math.isfinite(float(value))
        and float(value).is_integer()
    ):
        n = int(value)  # type: ignore[call-overload]  # numbers.Real declares no __int__
    elif isinstance(value, numbers.Real):
        raise ValueError(f"`{name}` must be an integer in {rng}; got {float(value)!r}.{suffix}")
    else:
        raise TypeError(
            f"`{name}` must be an integer in {rng}; got {describe(value)} "
            f"of type {type(value).__name__}.{suffix}"
        )
    if (low is not None and n < low) or (high is not None and n > high):
        raise ValueError(f"`{name}` must be an integer in {rng}; got {n}.{suffix}")
    return n


def _real_array(name: str, value: Any, what: str) -> npt.NDArray[np.float64]:
    """``value`` as a new float64 array if its dtype is real (not bool), else TypeError."""
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"`{name}` must be an array of {what}; got {describe(value)}.") from exc
    if arr.dtype.kind not in "iuf" or arr.dtype == np.bool_:
        raise TypeError(
            f"`{name}` must be an array of {what}; got dtype {arr.dtype} from {describe(value)}."
        )
    return arr.astype(np.float64, copy=True)


def check_real_array(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    shape: tuple[int, ...] | None = None,
    nonnegative: bool = False,
    allow_empty: bool = False,
) -> npt.NDArray[np.float64]:
    """Return ``value`` as a finite float64 array, or raise.

    Examples
    --------
    >>> check_real_array("prior", [0.5, 0.5], ndim=1)
    array([0.5, 0.5])
    """
    arr = _real_array(name, value, "real numbers")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"`{name}` must be {ndim}-dimensional; got shape {arr.shape}.")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"`{name}` must have shape {shape}; got shape {arr.shape}.")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"`{name}` must not be empty; got shape {arr.shape}.")
    valid = "[0, inf)" if nonnegative else "(-inf, inf)"
    if not np.all(np.isfinite(arr)):
        where = np.unravel_index(int(np.argmin(np.isfinite(arr))), arr.shape)
        raise ValueError(
            f"`{name}` must contain only finite numbers, each in {valid}; got "
            f"{float(arr[where])!r} at index {_index(where)}."
        )
    if nonnegative and np.any(arr < 0):
        where = np.unravel_index(int(np.argmin(arr)), arr.shape)
        raise ValueError(
            f"`{name}` must be non-negative; smallest entry is {float(arr[where])!r} at index "
            f"{_index(where)}; each entry must be in {valid}."
        )
    return arr


def _index(where: tuple[Any, ...]) -> str:
    """An array index as written in Python: ``3`` or ``(1, 2)``."""
    flat = tuple(int(i) for i in where)
    return str(flat[0]) if len(flat) == 1 else str(flat)


def check_vectors(name: str, value: Any, dimension: int | None = None) -> npt.NDArray[np.float64]:
    """``value`` as a float array of shape ``(..., d)``: vectors along the last axis, ``d`` the
    given ``dimension`` (any ``d ≥ 1`` when None); infinities allowed, NaN not.

    Examples
    --------
    >>> check_vectors("points", [[0, 1], [2, 3]], dimension=2).shape
    (2, 2)
    """
    arr = _real_array(name, value, "real vectors")
    if arr.ndim == 0 or arr.shape[-1] == 0 or dimension not in (None, arr.shape[-1]):
        shape = "(..., d) with d ≥ 1" if dimension is None else f"(..., {dimension})"
        raise ValueError(
            f"`{name}` must have shape {shape} (one vector per row); got shape {arr.shape}."
        )
    if np.any(np.isnan(arr)):
        raise ValueError(f"`{name}` must not contain NaN; got {describe(value)}.")
    return arr


def check_tail(
    name: str, tail: Any, period: int | None = None
) -> tuple[npt.NDArray[np.float64], float]:
    """A geometric tail ``(base, ratio)``: the values of one period beyond a grid, each further
    period ``ratio`` times the one before; ``None`` is the zero tail.

    ``base`` is non-negative with ``period`` entries when ``period`` is given; ``ratio`` is in
    [0, 1).

    Examples
    --------
    >>> check_tail("right_tail", ([0.5, 0.25], 0.5), period=2)
    (array([0.5 , 0.25]), 0.5)
    """
    if tail is None:
        return np.zeros(period or 1), 0.0
    try:
        base, ratio = tail
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"`{name}` must be None or a pair (base values, ratio); got {describe(tail)}."
        ) from exc
    arr = check_real_array(f"{name} base", base, ndim=1, nonnegative=True)
    if period is not None and arr.size != period:
        raise ValueError(
            f"`{name}` base must have {period} entries (one per cell of a period); got {arr.size}."
        )
    return arr, check_real(f"{name} ratio", ratio, low=0.0, high=1.0, high_open=True)


def check_size(size: Any) -> tuple[int, ...] | None:
    """Validate a ``size`` argument of ``rvs``: None, a non-negative int or a tuple of them."""
    if size is None:
        return None
    items = size if isinstance(size, tuple | list) else (size,)
    return tuple(check_int("size", s, low=0) for s in items)


def check_rng(rng: Any) -> np.random.Generator:
    """Normalise ``rng`` through `numpy.random.default_rng` (SPEC 7),
    with a clear error."""
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "`rng` must be None, an int seed, a SeedSequence, a BitGenerator or a "
            f"numpy Generator; got {describe(rng)}."
        ) from exc


def check_callable(name: str, value: Any) -> Callable[..., Any]:
    """Return ``value`` if callable, else raise `TypeError`."""
    if not callable(value):
        raise TypeError(f"`{name}` must be callable; got {describe(value)}.")
    return value


def check_flag(name: str, value: Any) -> bool:
    """``value`` as a ``bool``; only ``True``/``False`` (numpy's too) are accepted.

    Examples
    --------
    >>> check_flag("symmetric", 1)
    Traceback (most recent call last):
    ...
    TypeError: `symmetric` must be True or False; got 1.
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"`{name}` must be True or False; got {describe(value)}.")
    return bool(value)


def check_epsilon(epsilon: Any, *, high: float = math.inf, hint: str | None = None) -> float:
    """``epsilon`` as a float in ``(0, high]``."""
    return check_real("epsilon", epsilon, low=0.0, high=high, low_open=True, hint=hint or "")


def check_prior(
    prior: Any, size: int | None = None, *, normalize: bool = False
) -> npt.NDArray[np.float64]:
    """Validate a prior over the inputs: finite, non-negative, summing to 1 (within 1e-9).

    Parameters
    ----------
    prior : array_like, shape (N,)
        Probabilities of the inputs, in node order.
    size : int, optional
        Required length.
    normalize : bool, default False
        Divide by the sum instead of requiring it to be 1 (the sum must still be positive; a
        sum beyond the largest float is fine: the prior is scaled by its largest entry first).

    Examples
    --------
    >>> check_prior([1, 3], normalize=True).tolist()
    [0.25, 0.75]
    >>> check_prior([0.5, 0.6])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `prior` must sum to 1 (within 1e-09), each entry in [0, 1]; got sum 1.1. ...
    """
    p = check_real_array("prior", prior, ndim=1, nonnegative=True)
    if size is not None and p.size != size:
        raise ValueError(f"`prior` must have one entry per input ({size}); got {p.size}.")
    with np.errstate(over="ignore"):  # a sum beyond the largest float is inf
        total = float(p.sum())
    if normalize:
        if total == 0.0:
            raise ValueError(
                "`prior` must have a positive sum, in (0, inf), to be normalised; got sum 0 "
                "(every entry is 0)."
            )
        if math.isinf(total):  # scaled by the largest entry first
            scaled = p / float(p.max())
            return scaled / float(scaled.sum())
        return p / total
    if not abs(total - 1.0) <= 1e-9:
        overflow = (
            f" (its entries, up to {float(p.max()):.6g}, add up beyond the largest float)"
            if math.isinf(total)
            else ""
        )
        raise ValueError(
            f"`prior` must sum to 1 (within 1e-09), each entry in [0, 1]; got sum "
            f"{total:.12g}{overflow}. Pass normalize=True to rescale it."
        )
    return p
