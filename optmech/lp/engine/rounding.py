"""Directed rounding of the two floats an additive grid LP is built on, so its rows are exact.

A grid of ``m`` cells per Δ needs a cell width ``h`` with ``Δ/h ≤ m`` *exactly* (a shift by Δ
then reaches at most ``m`` cells, which the window rows cover), and a geometric tail needs a
ratio ``ρ ≥ e^−ε`` per period with ``fl(e^ε)·ρ ≥ 1`` *exactly* (a tail with that ratio is then
ε-DP against the rounded ``e^ε`` of the rows). Both are checked in exact rationals of the two
floats. The 1-D and 2-D designers share them.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["tail_ratio_for", "uniform_width"]


def tail_ratio_for(epsilon: float) -> float:
    """``e^−ε`` rounded *up* (two ulps, and until ``fl(e^ε)·ratio ≥ 1`` exactly): a geometric
    tail with this ratio per period is exactly ε-DP against the rounded ``e^ε`` of the rows.

    Examples
    --------
    >>> r = tail_ratio_for(1.0)
    >>> r > math.exp(-1.0) and Fraction(math.exp(1.0)) * Fraction(r) >= 1
    True
    """
    ratio = math.nextafter(math.nextafter(math.exp(-epsilon), 1.0), 1.0)
    factor = Fraction(math.exp(epsilon))
    while factor * Fraction(ratio) < 1:  # exactly, as the product of the two floats
        ratio = math.nextafter(ratio, 1.0)
    return ratio


def uniform_width(sensitivity: float, m: int) -> float:
    """``Δ/m`` rounded up to a float, so that ``Δ/h ≤ m`` exactly (a shift by Δ reaches ``m``).

    Examples
    --------
    >>> h = uniform_width(1.0, 3)
    >>> Fraction(1.0) / Fraction(h) <= 3
    True
    """
    h = sensitivity / m
    if Fraction(sensitivity) / Fraction(h) > m:
        h = math.nextafter(h, math.inf)
    return h
