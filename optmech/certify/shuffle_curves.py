"""The privacy curves behind `shuffle_epsilon`: the clone reductions (upper bounds), the exact
curve of a two-output randomizer, the count of one output set of a concrete pair of datasets
(a lower bound; the others are in `optmech.certify.shuffle_lower`), and the search of ε.

Each curve maps ε to δ(ε); the formulas, their sources and their rounding are described in
`optmech.certify.shuffle`. Nothing here validates its inputs: `shuffle_epsilon` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray

#: Relative allowance for the rounding of SciPy's binomial functions and of the sums.
_SLACK = 1e-12
#: Half-width of the binomial windows, in standard deviations.
_WIDTH = 40.0
#: Blocks per standard deviation of C in the clone bounds (upper bound by monotonicity in c),
#: over ±``_CLONE_WIDTH`` standard deviations (the mass beyond is charged to δ whole).
_BLOCKS_PER_SIGMA = 10.0
_CLONE_WIDTH = 12.0
#: Most bisection steps after Brent's method, if a check of its crossing fails.
_STEPS = 56

_Curve = Callable[[float], float]


def _binom() -> Any:
    from optmech.certify._binomial import binom

    return binom


# -- the clone reduction -----------------------------------------------------------------------
def _clone_p(matrix: FloatArray) -> float:
    """The blanket clone probability: the largest p with every row above p/2 times the mean of
    every pair of distinct rows, rounded down."""
    floor = matrix.min(axis=0)  # min_x M(y|x)
    pair = matrix[:, None, :] + matrix[None, :, :]  # M(y|x0) + M(y|x1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(pair > 0.0, 2.0 * floor / pair, np.inf)
    ratio[np.arange(matrix.shape[0]), np.arange(matrix.shape[0])] = np.inf  # x⁰ ≠ x¹
    p = float(np.min(ratio))
    return min(1.0, max(0.0, p * (1.0 - 1e-14)))


def _window(total: int, p: float, width: float = _WIDTH) -> tuple[int, int]:
    mean, sd = total * p, math.sqrt(max(0.0, total * p * (1.0 - p)))  # p may round past 1
    lo = max(0, math.floor(mean - width * sd - 10.0))
    hi = min(total, math.ceil(mean + width * sd + 10.0))
    return lo, hi


class _CloneCurve:
    """δ(ε) of FMT's clone pair with clone probability ``p`` and pair ε ``eps0`` over
    ``others`` other users, an upper bound (module docstring)."""

    def __init__(self, others: int, p: float, eps0: float) -> None:
        binom = _binom()
        self.eps0 = eps0
        self.w = 1.0 / (1.0 + math.exp(-eps0))
        lo, hi = _window(others, p, _CLONE_WIDTH)
        sd = math.sqrt(others * p * (1.0 - p))
        width = max(1, int(sd / _BLOCKS_PER_SIGMA))
        starts = np.arange(lo, hi + 1, width, dtype=np.int64)
        ends = np.minimum(starts + width - 1, hi)
        # P(C in [start, end]) per block, from the cdf (blocks of 1 from the pmf).
        if width == 1:
            mass = binom.pmf(starts, others, p)
        else:
            mass = binom.cdf(ends, others, p) - binom.cdf(starts - 1, others, p)
            mass = np.maximum(mass, 0.0)
        self.outside = float(binom.cdf(lo - 1, others, p) + binom.sf(hi, others, p))
        self.c = starts.astype(np.float64)
        self.trials = starts
        self.mass = mass * (1.0 + _SLACK)

    def __call__(self, eps: float) -> float:
        if eps >= self.eps0:
            return 0.0
        w, e = self.w, math.exp(eps)
        c = self.c
        # Ratio P/Q > e^ε iff u/(c + 1 − u) > T.
        t = (e * w - (1.0 - w)) / (w - e * (1.0 - w))
        centre = np.floor(t * (c + 1.0) / (1.0 + t)) + 1.0
        best = np.zeros_like(c)
        from scipy.special import bdtrc

        # tails[i] = P(B ≥ centre − 2 + i), B ~ Bin(c, 1/2); a threshold t ∈ {centre − 1,
        # centre, centre + 1} keeps u ≥ t, whose sums are P(B ≥ t − 1) and P(B ≥ t).
        tails = [
            np.where(m < 0.0, 1.0, bdtrc(np.clip(m, 0.0, c), self.trials, 0.5))
            for m in (centre + i - 3.0 for i in range(4))
        ]
        for i in range(3):
            s1, s0 = tails[i], tails[i + 1]
            value = (w - e * (1.0 - w)) * s1 + ((1.0 - w) - e * w) * s0
            slack = _SLACK * (1.0 + e) * (s1 + s0)
            best = np.maximum(best, value + slack)
        total = float(np.dot(self.mass, np.minimum(best, 1.0))) + self.outside
        return min(1.0, total * (1.0 + _SLACK))


# -- binary counts -----------------------------------------------------------------------------
def _binary_rows(matrix: FloatArray, chosen: npt.NDArray[np.bool_]) -> tuple[float, float]:
    """(lowest, highest) probability of the output set ``chosen`` over the rows."""
    col = matrix[:, chosen].sum(axis=1)
    return float(col.min()), float(col.max())


def _count_pmf(others: int, k: int, hi: float, lo: float) -> tuple[int, FloatArray]:
    """Windowed pmf of Bin(k, hi) + Bin(others − k, lo): (offset, values); mass outside the
    windows is dropped (a lower bound)."""
    binom = _binom()
    parts = []
    offset = 0
    for size, prob in ((k, hi), (others - k, lo)):
        a, b = _window(size, prob)
        support = np.arange(a, b + 1)
        parts.append(binom.pmf(support, size, prob))
        offset += a
    small, large = sorted(parts, key=len)
    if small.size <= 64:
        pmf = np.convolve(large, small)
    else:
        from scipy.signal import fftconvolve

        pmf = np.maximum(fftconvolve(large, small), 0.0)
    return offset, pmf


class _CountCurve:
    """Lower curve of the count of one output set, for a pair (p¹, p⁰) and fixed others."""

    def __init__(self, pmf: FloatArray, p1: float, p0: float) -> None:
        n0 = np.append(pmf, 0.0)
        n1 = np.insert(pmf, 0, 0.0)
        self.a = p1 * n1 + (1.0 - p1) * n0
        self.b = p0 * n1 + (1.0 - p0) * n0

    def __call__(self, eps: float) -> float:
        diff = self.a - math.exp(eps) * self.b
        total = float(np.sum(diff[diff > 0.0]))
        return max(0.0, total - _SLACK * (1.0 + math.exp(eps)) * 2.0)


class _ExactBinaryCurve:
    """Exact worst-case curve of a two-output matrix over every k, by FFT (an upper bound:
    the rounding of the spectrum, ``n u`` relative in its exponent, and of the transform,
    ``log₂ L · u``, are charged to δ on every one of the L points summed)."""

    def __init__(self, others: int, hi: float, lo: float) -> None:
        size = 1 << (others + 2).bit_length()
        z = np.exp(-2j * np.pi * np.arange(size) / size)
        with np.errstate(divide="ignore"):
            log_hi = np.log(1.0 - hi + hi * z)
            log_lo = np.log(1.0 - lo + lo * z)
        self.hi, self.lo = hi, lo
        self.table = np.empty((others + 1, others + 2))
        for start in range(0, others + 1, 256):  # k others at `hi`, in blocks of rows
            k = np.arange(start, min(others + 1, start + 256))[:, None]
            spectrum = np.exp(k * log_hi + (others - k) * log_lo)
            self.table[start : start + k.shape[0]] = np.fft.ifft(spectrum, axis=1).real[
                :, : others + 2
            ]
        u = np.finfo(np.float64).eps
        self.error = 4.0 * u * size * (others + 64.0 * math.log2(size))

    def __call__(self, eps: float) -> float:
        e = math.exp(eps)
        n0 = self.table
        worst = 0.0
        for first, second in ((self.hi, self.lo), (self.lo, self.hi)):
            diff = ((1.0 - first) - e * (1.0 - second)) * n0  # the report is 0 …
            diff[:, 1:] += (first - e * second) * n0[:, :-1]  # … or 1
            worst = max(worst, float(np.max(np.sum(np.maximum(diff, 0.0), axis=1))))
        return min(1.0, worst + self.error * (1.0 + e))


def _brent(
    f: Callable[[float], float], a: float, fa: float, b: float, fb: float, rtol: float
) -> tuple[float, float, float, float]:
    """Brent's method (Brent 1973, *Algorithms for minimization without derivatives*, ch. 4:
    inverse quadratic interpolation, secant and bisection) on ``[a, b]`` with ``f(a) = fa``
    and ``f(b) = fb`` of opposite signs: the last ``(b, f(b), c, f(c))``, two evaluated points
    about ``rtol`` relative apart and of opposite signs when it converges within 100
    evaluations (`_refine` checks each sign, and bisects on). Written here so that a
    certificate does not import ``scipy.optimize`` (a sixth of a second), and so that the
    bracket comes back evaluated."""
    c, fc = a, fa
    d = e = b - a
    for _ in range(100):
        if fb * fc > 0.0:
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        step = (4.4e-16 + 0.5 * rtol) * abs(b) + 1e-300
        m = 0.5 * (c - b)
        if abs(m) <= step or fb == 0.0:
            break
        if abs(e) >= step and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:  # secant
                p, q = 2.0 * m * s, 1.0 - s
            else:  # inverse quadratic interpolation
                q, r = fa / fc, fb / fc
                p = s * (2.0 * m * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            p = abs(p)
            if 2.0 * p < min(3.0 * m * q - abs(step * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b += d if abs(d) > step else math.copysign(step, m)
        fb = f(b)
    return b, fb, c, fc


# -- ε of a δ ----------------------------------------------------------------------------------
def _crossing(
    curve: _Curve,
    delta: float,
    eps0: float,
    rtol: float = 1e-9,
    start: float = 0.0,
    stop: float | None = None,
    near: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """``(lo, hi)`` with ``curve(lo) > δ ≥ curve(hi)`` and ``hi − lo`` about ``rtol``
    relative, both evaluated, so the bracket is certain for the computed curve; ``(start,
    start)`` when ``curve(start) ≤ δ``. The search runs in ``[start, stop]`` (``stop`` is
    ε₀ by default, and ε₀ when ``curve(stop) > δ``). ``near``: a bracket ``(lo, hi)``
    expected to hold the crossing, tried first (a finer curve's, from a coarser one's).
    Brent's method on ``log curve − log δ`` finds the crossing in a dozen evaluations and
    returns its last two points, on either side; bisection takes over if they are too far
    apart."""
    log_delta = math.log(delta)

    def gap(eps: float) -> float:  # its sign is that of curve(ε) − δ, exactly
        value = curve(eps)
        out = math.log(max(value, 1e-300)) - log_delta
        return max(out, 5e-324) if value > delta else min(out, 0.0)

    if near is not None:
        g_lo, g_hi = gap(near[0]), gap(near[1])
        if g_lo > 0.0 >= g_hi:
            return _refine(gap, near[0], g_lo, near[1], g_hi, rtol)
        if g_hi > 0.0:  # the crossing is beyond
            return _crossing(curve, delta, eps0, rtol, near[1], stop)
        stop = near[0]  # the crossing is below
    g_start = gap(start)
    if g_start <= 0.0:
        return start, start
    hi = eps0 if stop is None else stop
    g_hi = gap(hi)
    if g_hi > 0.0 and hi < eps0:
        hi, g_hi = eps0, gap(eps0)
    if g_hi > 0.0:
        return hi, hi
    return _refine(gap, start, g_start, hi, g_hi, rtol)


def _refine(
    gap: Callable[[float], float], lo: float, g_lo: float, hi: float, g_hi: float, rtol: float
) -> tuple[float, float]:
    """`_crossing`'s bracket from ``gap(lo) = g_lo > 0 ≥ g_hi = gap(hi)``."""
    b, fb, c, fc = _brent(gap, lo, g_lo, hi, g_hi, rtol)
    for x, fx in ((b, fb), (c, fc)):
        if fx > 0.0 and x > lo:
            lo = x
        elif fx <= 0.0 and x < hi:
            hi = x
    for _ in range(_STEPS):
        if hi - lo <= 2 * rtol * max(hi, 1e-6):
            break
        mid = 0.5 * (lo + hi)
        if gap(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return lo, hi


def _epsilon_up(curve: _Curve, delta: float, eps0: float) -> float:
    """Smallest ε found (rounded up) with curve(ε) ≤ δ, in [0, ε₀]."""
    return _crossing(curve, delta, eps0)[1]
