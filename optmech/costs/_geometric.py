"""Geometric tail sums in closed form, written so that they keep their relative precision.

A geometric tail ``Σ_{k≥0} ρ^k g(k)`` with ``ρ`` close to 1 (``ρ = e^−ε`` at small ε) is huge,
of order ``1/(1 − ρ)^(p+1)`` for a cost growing like ``|e|^p``. Differences of two such sums
(``F(b) − F(a)`` of an antiderivative summed over the periods) lose about
``log10(1/(1 − ρ))·(p + 1)`` digits. The forms here never subtract two large numbers:

* the moments ``Σ_k k^i ρ^k = ρ A_i(ρ)/(1 − ρ)^(i+1)`` (Eulerian polynomials ``A_i``, positive
  coefficients; ``1 − ρ`` is exact in float64 for ``ρ ≥ 1/2``, Sterbenz's lemma);
* the power gap ``(x + w)^n − x^n = −(x + w)^n · expm1(n · log1p(−w/(x + w)))`` for
  ``x, w ≥ 0``, accurate to a few units in the last place whatever ``w/x``;
* partial geometric sums ``Σ_{j<k} ρ^j = −expm1(k log ρ)/(1 − ρ)`` and ``ρ^k = exp(k log ρ)``;
* clipped ramps ``Σ_k ρ^k clip(y + k s, 0, w)`` (the part of a moving cell beyond a threshold)
  as a short explicit sum over the periods where the clip is active plus geometric blocks.

Every result is a sum of non-negative terms, each carrying a few rounding errors, so its
relative error is at most a small multiple of the unit roundoff times the number of terms
(Higham 2002, §3.1).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from optmech._floats import BoolArray, FloatArray

__all__ = [
    "MAX_EXPLICIT_TERMS",
    "first_index",
    "geometric_head",
    "geometric_moment",
    "geometric_power",
    "power_gap",
    "ramp_series",
]

#: Most terms summed one by one (over all points) before a closed form gives up (the caller
#: then falls back to the series).
MAX_EXPLICIT_TERMS = 1 << 20
#: Periods beyond which a float index ``k`` no longer pins down ``k·period`` (``2^50``).
_MAX_INDEX = float(2**50)


def geometric_moment(order: int, ratio: float) -> float:
    """``Σ_{k≥0} k^order ρ^k`` for integer ``order ≥ 0`` and ``0 ≤ ρ < 1`` (``0^0 = 1``).

    ``ρ A_n(ρ)/(1 − ρ)^(n+1)`` with the Eulerian numbers ``A(n, m)`` (Graham, Knuth &
    Patashnik, *Concrete Mathematics*, 1994, eq. 7.77): positive terms only.

    Examples
    --------
    >>> geometric_moment(2, 0.5)  # 0.5·(1 + 0.5)/0.5³
    6.0
    """
    if order == 0:
        return 1.0 / (1.0 - ratio)
    row = [1]
    for n in range(2, order + 1):
        new = [1] * n
        for m in range(1, n - 1):
            new[m] = (m + 1) * row[m] + (n - m) * row[m - 1]
        row = new
    poly = sum(a * ratio**m for m, a in enumerate(row))
    return ratio * poly / (1.0 - ratio) ** (order + 1)


def power_gap(low: FloatArray, width: FloatArray, n: int) -> FloatArray:
    """``(low + width)^n − low^n`` for ``low, width ≥ 0`` and integer ``n ≥ 1``, without
    cancellation: ``−top^n · expm1(n · log1p(−width/top))`` with ``top = low + width``.

    Examples
    --------
    >>> (3.0 + 1e-12) ** 2 - 3.0**2  # the plain difference keeps four digits of 6e-12 + 1e-24
    6.000533403494046e-12
    >>> float(power_gap(np.array(3.0), np.array(1e-12), 2))
    6.0000000000009995e-12
    """
    top = low + width
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        frac = np.where(top > 0, width / np.where(top > 0, top, 1.0), 0.0)
        gap = -np.expm1(n * np.log1p(-frac)) * top**n
    return np.where(width > 0, gap, 0.0)


def geometric_power(ratio: float, k: FloatArray) -> FloatArray:
    """``ρ^k`` for float indices ``k ≥ 0`` (``0^0 = 1``), without underflow warnings."""
    with np.errstate(under="ignore"):
        return np.power(ratio, k)


def geometric_head(ratio: float, k: FloatArray) -> FloatArray:
    """``Σ_{j<k} ρ^j = −expm1(k log ρ)/(1 − ρ)``, exact for ``ρ = 0`` too (``1`` for ``k ≥ 1``)."""
    if ratio == 0.0:
        return np.where(k > 0, 1.0, 0.0)
    with np.errstate(under="ignore"):
        return -np.expm1(k * math.log(ratio)) / (1.0 - ratio)


def first_index(
    holds: Callable[[FloatArray], BoolArray], estimate: FloatArray
) -> FloatArray | None:
    """The smallest integer ``k ≥ 0`` at which a test monotone in ``k`` (false, then true) holds.

    Parameters
    ----------
    holds : callable
        ``holds(k)`` for a float array of integer indices (shaped like ``estimate``).
    estimate : FloatArray
        A float estimate of the index (off by at most one or two: it comes from a division).

    Returns
    -------
    FloatArray or None
        The index, checked by evaluating the test around the estimate; None when the estimate
        is not finite, too large for exact float indices, or more than two off.
    """
    if not np.all(np.isfinite(estimate)) or np.any(estimate > _MAX_INDEX):
        return None
    base = np.maximum(np.ceil(estimate) - 2.0, 0.0)
    misses = np.zeros(estimate.shape)
    for j in range(5):
        misses = misses + ~holds(base + j)
    if np.any(misses == 5) or np.any((base > 0) & holds(base)):
        return None
    return base + misses


def ramp_series(
    start: FloatArray, step: float, width: FloatArray, ratio: float
) -> FloatArray | None:
    """``Σ_{k≥0} ρ^k clip(start + k·step, 0, width)`` (``step ≠ 0``, ``width ≥ 0``, ``0 ≤ ρ < 1``).

    The clipped line is constant (0 or ``width``) except on the few periods where it crosses
    ``[0, width]``: those are summed one by one, the constant runs as geometric blocks. This is
    the cost of the part of a cell ``[a + k·step, a + k·step + width]`` beyond a threshold
    (``start = a + width − threshold``), as the cell moves by a period per step.

    Returns
    -------
    FloatArray or None
        The sums; None when the crossing takes more than `MAX_EXPLICIT_TERMS` periods in all.
    """
    up = step > 0
    size = abs(step)
    # Periods before the crossing (constant 0 going up, width going down) and after it.
    before = np.floor((-start if up else start - width) / size) - 1.0
    after = np.ceil((width - start if up else start) / size) + 1.0
    if not (np.all(np.isfinite(before)) and np.all(np.isfinite(after))):
        return None
    lo = np.maximum(before, 0.0)
    hi = np.maximum(after, lo)
    if np.any(hi > _MAX_INDEX):
        return None
    count = hi - lo
    longest = int(count.max(initial=0.0))
    if longest * max(count.size, 1) > MAX_EXPLICIT_TERMS:
        return None
    # The constant runs must hold where assumed (a check of the float estimates above).
    edge_lo = np.clip(start + (lo - 1.0) * step, 0.0, width)
    edge_hi = np.clip(start + hi * step, 0.0, width)
    flat_lo, flat_hi = (0.0, width) if up else (width, 0.0)
    if np.any((lo > 0) & (edge_lo != flat_lo)) or np.any(edge_hi != flat_hi):
        return None
    ks = lo[..., None] + np.arange(longest, dtype=np.float64)
    active = ks < hi[..., None]
    terms = np.clip(start[..., None] + ks * step, 0.0, width[..., None])
    explicit = np.sum(np.where(active, geometric_power(ratio, ks) * terms, 0.0), axis=-1)
    if up:
        return explicit + width * geometric_power(ratio, hi) / (1.0 - ratio)
    return explicit + width * geometric_head(ratio, lo)
