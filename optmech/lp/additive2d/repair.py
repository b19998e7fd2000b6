"""Make a slightly non-private 2-D solver point exactly private: the least ε-DP envelope.

Solvers stop at absolute tolerances, so a returned point has a few window ratios a hair above
``e^ε``. As in 1-D (`optmech.lp.additive.repair.envelope_raise`), each cell is raised to the largest
value its neighbours force, ``L(p) ← max(L(p), max_{q ∈ p + F} L(q) − ε')`` in the log domain, on
the box grown by the footprint's reach ``w`` (the cells outside hold the tails ``Σ_l t_l S_l``,
fixed); and when a box cell is too large for a tail neighbour (``f(p) > e^ε' Σ t S(q)``), every tail
scale is raised by the same factor. Each step only raises, so the iteration reaches the least fixed
point above the point when one exists (the solver's point is close to feasible, so a few rounds
suffice). The pairs of two tail cells are ε-DP by the shapes' own construction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from scipy import ndimage

from optmech._floats import FloatArray
from optmech.exceptions import PrivacyViolationError
from optmech.mechanisms.tails2d import GaugeTail, ProductTail

__all__ = ["envelope_2d", "footprint_max"]

Tail = GaugeTail | ProductTail

#: Rounds of the raise before giving up.
MAX_ROUNDS = 1000


def footprint_max(logs: FloatArray, widths: npt.ArrayLike) -> FloatArray:
    """``max_{d ∈ F} logs[p + d]`` at every cell (−inf outside the array), the footprint given
    by its row half-widths ``L(d₁)``, ``d₁ = −w … w``: a 1-D running maximum per width, then
    the rows shifted by ``d₁``.

    Examples
    --------
    >>> a = np.full((5, 5), -np.inf); a[2, 2] = 0.0
    >>> bool(np.isfinite(footprint_max(a, [1, 1, 1])).sum() == 9)
    True
    """
    half = np.asarray(widths, dtype=np.int64)
    w = (half.size - 1) // 2
    rows = {
        int(L): ndimage.maximum_filter1d(
            logs, size=2 * int(L) + 1, axis=1, mode="constant", cval=-np.inf
        )
        for L in np.unique(half)
    }
    out = np.full(logs.shape, -np.inf)
    for d1, L in zip(range(-w, w + 1), half.tolist(), strict=True):
        lo, hi = max(0, -d1), logs.shape[0] - max(0, d1)
        out[lo:hi] = np.maximum(out[lo:hi], rows[int(L)][lo + d1 : hi + d1])
    return out


def _outside(tails: Sequence[Tail], scales: FloatArray, n0: int, w: int) -> FloatArray:
    """``Σ t_l S_l`` on the box grown by ``w`` (0 inside the box)."""
    idx = np.arange(-n0 - w, n0 + w, dtype=np.int64)
    ii, jj = np.meshgrid(idx, idx, indexing="ij")
    out = np.zeros(ii.shape)
    for tail, t in zip(tails, scales.tolist(), strict=True):
        if t > 0:
            out = out + t * tail.values(ii, jj)
    out[w : w + 2 * n0, w : w + 2 * n0] = 0.0
    return out


def envelope_2d(
    box: FloatArray,
    scales: FloatArray,
    tails: Sequence[Tail],
    widths: npt.ArrayLike,
    bound: float,
) -> tuple[FloatArray, FloatArray, bool]:
    """The least raise of ``(box, scales)`` (the ``2n₀ × 2n₀`` cell values and the tail scales)
    whose window and band ratios are ``≤ e^bound``, and whether anything was raised.

    All-zero ``scales`` start the first tail at the least scale the box needs. Raises
    `PrivacyViolationError` when no fixed point is reached within `MAX_ROUNDS` rounds or the box
    is all zero.
    """
    n0 = box.shape[0] // 2
    w = (np.asarray(widths).size - 1) // 2
    inner = (slice(w, w + 2 * n0), slice(w, w + 2 * n0))

    def need_ratio(grown: FloatArray, tails: Sequence[Tail], t: FloatArray) -> float:
        """Factor the tail scales need: ``max_q e^(−ε')·max_{p ∈ q+F, box} f(p) / Σ t S(q)``."""
        reach = footprint_max(grown, widths)
        out = _outside(tails, t, n0, w)
        tail = out > 0  # cells outside the box where a tail is positive (elsewhere no finite gap)
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = reach[tail] - bound - np.log(out[tail])
        gap = gap[np.isfinite(gap)]
        return float(np.exp(np.max(gap))) if gap.size else 1.0

    with np.errstate(divide="ignore"):
        logs = np.log(np.maximum(box, 0.0))
    if not np.any(np.isfinite(logs)):
        raise PrivacyViolationError("the solver returned an all-zero box; nothing to repair.")
    t = np.maximum(np.asarray(scales, dtype=np.float64), 0.0)
    changed = False
    for _ in range(MAX_ROUNDS):
        grown = np.full((2 * (n0 + w),) * 2, -np.inf)
        grown[inner] = logs
        started = bool(np.any(t > 0))
        ratio = need_ratio(grown, tails, t) if started else math.inf
        if ratio > 1.0 + 2.0**-45:  # a box cell is too large for the tail next to it
            if started:
                t = t * (ratio * (1.0 + 2.0**-44))
            else:  # the least scale of the first tail that the box's edge needs
                first = need_ratio(grown, tails[:1], np.ones(1))
                t[0] = first * (1.0 + 1e-12)
            changed = True
            continue
        with np.errstate(divide="ignore"):
            grown = np.where(np.isneginf(grown), np.log(_outside(tails, t, n0, w)), grown)
        need = footprint_max(grown, widths)[inner] - bound
        raise_ = need > logs
        if not np.any(raise_):
            return np.exp(logs), t, changed
        logs = np.where(raise_, need, logs)
        changed = True
    raise PrivacyViolationError(
        f"the envelope repair did not converge in {MAX_ROUNDS} rounds; the solver's point is "
        "far from private (try another solver or tighter tolerances)."
    )
