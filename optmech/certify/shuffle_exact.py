r"""The worst-case curve of a two-output randomizer at any n, by blocks of the count k.

With two outputs the shuffled histogram is the count of ones. With k of the n − 1 other users
at the upper row ``hi`` and the rest at ``lo`` the count of the others is
$X_k = \mathrm{Bin}(k, hi) + \mathrm{Bin}(n − 1 − k, lo)$, and the curve is the largest over k
and both directions of $Σ_s (c_1 f_k(s − 1) + c_0 f_k(s))_+$, $f_k$ the law of $X_k$ and
$c_1 = p_1 − e^ε p_0$, $c_0 = (1 − p_1) − e^ε (1 − p_0)$ for user 1's two rows.

Evaluating every k costs O(n) pmfs. Instead the k are cut into blocks
$[k_1, k_2]$: for k in the block, $X_k = X' + Z$ with
$X' = \mathrm{Bin}(k_1, hi) + \mathrm{Bin}(n − 1 − k_2, lo)$ and Z the count of the
$k_2 − k_1$ users in between, independent of X' and of user 1. Adding an independent count is a
post-processing, so the curve of $X_k$ is at most that of $X'$: the block is charged the
exact curve of n − (k₂ − k₁) users. With blocks of one k the curve is exact; the blocks are as
narrow as a budget of pmf entries allows (at n = 10⁶, about 2 000 of the 10⁶ others are
dropped per block, worth about 0.1 % of ε).

Rounding, charged to δ (so the curve is an upper bound): the mass of each binomial outside its
window of ±``_WIDTH`` standard deviations is computed by SciPy's cdf and sf and charged whole
times the positive coefficients; the FFT convolution's error is at most
$c\,u \log_2 L\,(\|x\|_2 \|y\|_1 + \|x\|_1 \|y\|_2 + \|x * y\|_2)$ in the 2-norm for
three transforms each accurate to $c\,u \log_2 L$ (Higham, *Accuracy and Stability of
Numerical Algorithms*, §24.1; $\|x\|_1, \|y\|_1 \le 1$ here), at most $\sqrt{L}$ times that in
the 1-norm, charged with c = 16 (log₂ L + 2 for log₂ L); the pmfs and the sums carry
``_SLACK`` relative.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray, U

#: Half-width of the binomial windows, in standard deviations (the rest is charged whole).
_WIDTH = 14.0
#: Relative allowance for SciPy's pmfs and the sums.
_SLACK = 1e-12
#: Budget of stored pmf entries over all blocks (memory ~ 8 bytes each, time per ε linear).
_BUDGET = 3_000_000


def _binom() -> Any:
    from optmech.certify._binomial import binom

    return binom


def _windowed_pmfs(totals: npt.NDArray[np.int64], p: float) -> tuple[FloatArray, FloatArray]:
    """Rows of pmfs of Bin(total, p) on windows (zero-padded to one width) and the mass outside
    each window, one row per total."""
    binom = _binom()
    t = totals.astype(np.float64)
    sd = np.sqrt(t * p * (1.0 - p))
    lo = np.maximum(0, np.floor(t * p - _WIDTH * sd - 8.0)).astype(np.int64)
    hi = np.minimum(totals, np.ceil(t * p + _WIDTH * sd + 8.0)).astype(np.int64)
    width = int(np.max(hi - lo)) + 1
    j = lo[:, None] + np.arange(width)[None, :]
    inside = j <= hi[:, None]
    pmf = np.zeros(j.shape)
    rows = np.broadcast_to(totals[:, None], j.shape)
    pmf[inside] = binom.pmf(j[inside], rows[inside], p)
    outside = binom.cdf(lo - 1, totals, p) + binom.sf(hi, totals, p)
    return pmf, np.asarray(outside, dtype=np.float64)


def block_edges(others: int, hi: float, lo: float, budget: int = _BUDGET) -> IntArray:
    """Starts of the blocks of k (the last block ends at ``others``): as many blocks, up to one
    per k, as the budget of pmf entries allows."""
    sd = math.sqrt(others * max(hi * (1 - hi), lo * (1 - lo)))
    length = 2.0 * _WIDTH * math.sqrt(2.0) * sd + 40.0
    blocks = int(min(others + 1, max(64, budget // max(length, 1.0))))
    width = math.ceil((others + 1) / blocks)
    return np.arange(0, others + 1, width, dtype=np.int64)


class _BlockedBinaryCurve:
    """Worst-case δ(ε) of a two-output matrix with rows ``hi`` > ``lo`` (probability of the
    second output) over ``others`` other users, an upper bound (module docstring)."""

    def __init__(self, others: int, hi: float, lo: float, budget: int = _BUDGET) -> None:
        self.hi, self.lo = hi, lo
        starts = block_edges(others, hi, lo, budget)
        ends = np.append(starts[1:] - 1, others)
        self.dropped = int(np.max(ends - starts))
        left, out_left = _windowed_pmfs(starts, hi)
        right, out_right = _windowed_pmfs(others - ends, lo)
        # Every block's two windows convolved at once by a real FFT of one common length.
        length = left.shape[1] + right.shape[1] - 1
        size = 1 << max(1, (length - 1).bit_length())
        pmf = np.fft.irfft(np.fft.rfft(left, size) * np.fft.rfft(right, size), size)
        pmf = np.maximum(pmf[:, :length], 0.0)
        norm = 3.0 * np.maximum(np.linalg.norm(left, axis=1), np.linalg.norm(right, axis=1))
        fft_error = 16.0 * U * (math.log2(size) + 2.0) * math.sqrt(size) * norm
        self.table = np.concatenate([pmf, np.zeros((pmf.shape[0], 1))], axis=1)
        self.charge = out_left + out_right + fft_error  # times the coefficients' sizes
        self.mass = np.sum(self.table, axis=1)

    def __call__(self, eps: float) -> float:
        e = math.exp(eps)
        f = self.table
        worst = 0.0
        for first, second in ((self.hi, self.lo), (self.lo, self.hi)):
            c1 = first - e * second  # user 1 reports 1 …
            c0 = (1.0 - first) - e * (1.0 - second)  # … or 0
            diff = c0 * f
            diff[:, 1:] += c1 * f[:, :-1]
            sums = np.sum(np.maximum(diff, 0.0), axis=1)
            mass = np.sum(f, axis=1)
            bound = sums + (abs(c1) + abs(c0)) * self.charge + _SLACK * (abs(c1) + abs(c0)) * mass
            worst = max(worst, float(np.max(bound)))
        return min(1.0, worst * (1.0 + _SLACK))
