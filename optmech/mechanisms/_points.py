"""Validation of the points a 1-D noise is evaluated at, and the scalar-or-array convention.

Shared by [`base`][optmech.mechanisms.base] and [`statistics`][optmech.mechanisms.statistics]:
inputs become float arrays (NaN and non-real values refused), and a 0-d result becomes a Python
float, as ``scipy.stats`` returns a scalar for a scalar.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray

__all__ = ["ArrayInput", "Scalar"]

#: A scalar argument: a method returns a Python float for it.
Scalar: TypeAlias = float | np.floating[Any] | np.integer[Any]
#: An array argument (an ndarray or a nested sequence): a method returns an ndarray for it.
ArrayInput: TypeAlias = npt.NDArray[Any] | Sequence[Any]


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
