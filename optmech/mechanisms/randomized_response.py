"""Randomized response and the binary mechanism: two closed-form ε-LDP randomizers.

* **k-ary randomized response** (Warner (1965); Kairouz, Oh & Viswanath (2016)): the
  true input with probability ``e^ε/(e^ε + k − 1)``, each other input with ``1/(e^ε + k − 1)``.
* **Binary mechanism** (Kairouz, Oh & Viswanath (2016)): two outputs; output 1 with
  probability ``e^ε/(1 + e^ε)`` when the input is in a set ``T`` and ``1/(1 + e^ε)`` otherwise.

Both are staircase mechanisms (every column takes the values ``t`` and ``e^ε t`` only), so the
ratio of any two entries of a column is 1 or ``e^ε`` exactly in real arithmetic.

Examples
--------
>>> import math
>>> import numpy as np
>>> randomized_response(3, math.log(2.0)).tolist()
[[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
>>> np.round(binary_mechanism(np.array([True, False, False]), math.log(3.0)), 12).tolist()
[[0.75, 0.25], [0.25, 0.75], [0.25, 0.75]]
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import check_int, check_real

__all__ = ["binary_mechanism", "randomized_response"]


def randomized_response(k: int, epsilon: float) -> FloatArray:
    """The ``k × k`` randomized-response matrix at ε (module docstring).

    Parameters
    ----------
    k : int
        Number of inputs (= outputs), at least 2.
    epsilon : float
        Privacy level, in (0, 50].
    """
    k = check_int("k", k, low=2)
    ratio = math.exp(check_real("epsilon", epsilon, low=0.0, high=50.0, low_open=True))
    q = np.full((k, k), 1.0 / (ratio + k - 1))
    np.fill_diagonal(q, ratio / (ratio + k - 1))
    return q


def binary_mechanism(high: npt.ArrayLike, epsilon: float) -> FloatArray:
    """The ``k × 2`` binary mechanism whose first output is likelier on the inputs of ``high``.

    Parameters
    ----------
    high : array_like of bool, shape (k,)
        Membership of each input in ``T``; neither empty nor all of the inputs.
    epsilon : float
        Privacy level, in (0, 50].
    """
    t = np.asarray(high)
    if t.dtype != np.bool_ or t.ndim != 1 or t.all() or not t.any():
        raise ValueError(
            "`high` must be a 1-D boolean array marking a proper, non-empty subset of the "
            f"inputs; got {t.tolist()!r}."
        )
    ratio = math.exp(check_real("epsilon", epsilon, low=0.0, high=50.0, low_open=True))
    hi, lo = ratio / (1.0 + ratio), 1.0 / (1.0 + ratio)
    first = np.where(t, hi, lo)
    return np.stack([first, np.where(t, lo, hi)], axis=1)
