"""Validation of the points a 1-D noise is evaluated at, and the scalar-or-array convention.

Shared by `base` and `statistics`:
inputs become float arrays (NaN and non-real values refused), and a 0-d result becomes a Python
float, as ``scipy.stats`` returns a scalar for a scalar. `pointwise` states that
convention once for type checkers, for every method of one array-like argument.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, Self, TypeAlias, overload

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray

__all__ = ["ArrayInput", "PointFunction", "Scalar", "pointwise"]

#: A scalar argument: a method returns a Python float for it.
Scalar: TypeAlias = float | np.floating[Any] | np.integer[Any]
#: An array argument (an ndarray or a nested sequence): a method returns an ndarray for it.
ArrayInput: TypeAlias = npt.NDArray[Any] | Sequence[Any]


class PointFunction(Protocol):
    """A noise's function of points, as read on the noise: a Python float for a scalar, an
    ndarray for an array (the ``scipy.stats`` convention)."""

    @overload
    def __call__(self, x: Scalar, /) -> float: ...
    @overload
    def __call__(self, x: ArrayInput, /) -> FloatArray: ...
    @overload
    def __call__(self, x: npt.ArrayLike, /) -> FloatArray | float: ...


class _PointMethod(Protocol):
    """A method made by `pointwise`: a `PointFunction` on an
    instance."""

    @overload
    def __get__(self, obj: None, owner: Any, /) -> Self: ...
    @overload
    def __get__(self, obj: object, owner: Any, /) -> PointFunction: ...
    def __call__(self, noise: Any, x: npt.ArrayLike, /) -> Any:
        """Called on the class, with the noise first (``NoiseDistribution.cdf(noise, x)``)."""


def pointwise(method: Callable[[Any, npt.ArrayLike], FloatArray | float]) -> _PointMethod:
    """Type a method of one array-like argument as a `PointFunction` (float for
    a scalar, ndarray for an array), the overloads stated once for every such method.

    The method itself is returned: nothing wraps it at run time.

    Parameters
    ----------
    method : callable
        ``(self, points) -> float or ndarray``, returning through ``_out``.

    Returns
    -------
    callable
        ``method``, typed for type checkers as a descriptor giving a ``PointFunction``.

    Examples
    --------
    >>> from optmech.mechanisms.laplace import Laplace
    >>> noise = Laplace(epsilon=1.0)
    >>> noise.cdf(0.0), noise.cdf([0.0, np.inf])  # the median of a symmetric law, and 1
    (0.5, array([0.5, 1. ]))
    >>> Laplace.cdf.__qualname__  # the method itself, not a wrapper
    'NoiseDistribution.cdf'
    """
    return method


def _as_points(name: str, x: npt.ArrayLike) -> FloatArray:
    try:
        if x is None:
            raise TypeError("None")
        if np.iscomplexobj(x):  # casting would only warn and drop the imaginary part
            raise TypeError("complex values")
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"`{name}` must be real numbers; got {x!r}.") from exc
    if np.any(np.isnan(arr)):
        raise ValueError(f"`{name}` must not contain NaN.")
    return arr


def _out(x: FloatArray) -> Any:
    """A Python float for a 0-d result, the array otherwise (typed by the callers' overloads)."""
    return float(x) if np.ndim(x) == 0 else x


def _log(values: FloatArray) -> FloatArray:
    """``log`` of non-negative values, ``−inf`` at 0 without a warning."""
    with np.errstate(divide="ignore"):
        return np.log(values)
