r"""The worst-case curve of a two-output randomizer at any n, by blocks of the count k.

With two outputs the shuffled histogram is the count of ones. With k of the n − 1 other users
at the upper row ``hi`` and the rest at ``lo`` the count of the others is
$X_k = \mathrm{Bin}(k, hi) + \mathrm{Bin}(n − 1 − k, lo)$, and the curve is the largest over k
and both directions of $Σ_s (c_1 f_k(s − 1) + c_0 f_k(s))_+$, $f_k$ the law of $X_k$ and
$c_1 = p_1 − e^ε p_0$, $c_0 = (1 − p_1) − e^ε (1 − p_0)$ for user 1's two rows.

**Blocks.** Evaluating every k costs O(n) pmfs. Instead the k are cut into blocks
$[k_1, k_2]$: for k in the block, $X_k = X' + Z$ with
$X' = \mathrm{Bin}(k_1, hi) + \mathrm{Bin}(n − 1 − k_2, lo)$ and Z the count of the
$w = k_2 − k_1$ users in between, independent of X' and of user 1. Adding an independent count
is a post-processing, so the curve of $X_k$ is at most that of $X'$: the block is charged the
exact curve of n − w users. With blocks of one k the curve is exact; the blocks are as
narrow as a budget of table entries allows.

**Thinning.** Fewer of the w are dropped: a report at the upper row is $B_{lo} \lor B_τ$,
$τ = (hi − lo)/(1 − lo)$, both Bernoulli and independent. Showing the observer which of the
middle users at the upper row drew $B_τ = 1$ (J of them, each reporting 1) is a
post-processing the other way (it can only raise δ) and leaves the others of the block
reporting $B_{lo}$: given J the count is $\mathrm{Bin}(k_1, hi) + \mathrm{Bin}(n − 1 − k_1 − J,
lo) + J$, whose curve grows with J, and $J \sim \mathrm{Bin}(k − k_1, τ)$ is stochastically at
most $\mathrm{Bin}(w, τ)$. So the block is charged the curve with $j = w τ$ plus ``_WIDTH``
standard deviations dropped (when below w) and $P(\mathrm{Bin}(w, τ) > j)$ whole. Mirrored, a
report at the lower row is $B_{hi} \land B_{lo/hi}$, keeping middle users at the upper row with
$τ = (hi − lo)/hi$; the smaller τ is used. For binary randomized response
$τ = 1 − e^{−ε_0}$: at n = 10⁶ and ε₀ = 1 about 5 000 of the 10⁶ others are dropped per
block, worth about 0.3 % of ε; at ε₀ ≥ 4 the thinning keeps no one.

**Tables.** Each binomial is kept on a window of ±``_WIDTH`` standard deviations about its
mode (the mass outside, from SciPy's cdf and sf, is charged whole). Its pmf is SciPy's at the
mode and, away from it, the product of the ratios of consecutive pmfs,
$f(x)/f(x − 1) = \frac{t − x + 1}{x} \frac{p}{1 − p}$ (and its mirror below the mode), each
at most 1: a step rounds at most six times, so an entry d steps from the mode carries at most
$γ_{6d+1}$ relative beyond SciPy's error at the mode (Higham, *Accuracy and Stability of
Numerical Algorithms*, 2002, §3.1), and the window at most $γ$ of $6(\mathrm{sd} + 1) + 1$ in
the 1-norm, as $E|X − \mathrm{mode}| \le \mathrm{sd} + 1$. The two windows of a block are
convolved by a real FFT whose error is at most
$c\,u \log_2 L\,(\|x\|_2 \|y\|_1 + \|x\|_1 \|y\|_2 + \|x * y\|_2)$ in the 2-norm (so at every
point) for three transforms each accurate to $c\,u \log_2 L$ (Higham, §24.1;
$\|x\|_1, \|y\|_1 \le 1$ here), at most $\sqrt{L}$ times that in the 1-norm, charged with
c = 16 (log₂ L + 2 for log₂ L); where a window has at most ``_DIRECT`` entries (a 2-norm near
1) the convolution is summed directly instead, each entry to $γ_{65}$ relative. Each row's tail
sums $S(t) = Σ_{s ≥ t} f(s)$ are summed in chunks, to $γ$ of a few hundred relative.

**One threshold per row.** The law g of X' with its windows (binomial pmfs cut to intervals,
convolved) is log-concave with an interval for support (Hoggar 1974), so $g(s − 1)/g(s)$ is
non-decreasing and $c_1 g(s − 1) + c_0 g(s)$ changes sign once, at t*: when
$c_1 > 0 > c_0$ the positive part is the tail $c_1 S(t^* − 1) + c_0 S(t^*)$, when
$c_1 < 0 < c_0$ the head before t*. A difference of the table beyond its rounding η (the
pointwise error, times $|c_1| + |c_0|$) has the sign of g's, and places t* above or below it;
the differences at ``_GRID`` points over the row, then at every point between the two nearest
certified ones, pin t* to a few points, and the largest sum among them is taken. Far from the
crossing, where the differences within the window are all within η, the thresholds not read
are bounded whole: as $c_1 + c_0 = 1 − e^ε \le 0$, a tail from t is at most
$c_1 \min(S(t − 1), g(t − 1))$, a head up to t at most $c_0 \min(P(t), g(t − 1))$ (P the head
sums), both monotone in t past the points read. An evaluation reads a few hundred entries per
row, not the table.

Rounding, charged to δ (so the curve is an upper bound): in the 1-norm per row, the mass
outside the windows, the FFT's, the recurrence's and the sums' errors, and ``_SLACK`` relative
for SciPy's pmfs at the modes and the final sums, times the coefficients' sizes; and the
coefficients' own rounding, at most $8u(1 + e^ε)$ together, times the mass.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray, U

#: Half-width of the binomial windows, in standard deviations (the rest is charged whole;
#: beyond 10 standard deviations a binomial holds about 1e-23 at n = 10⁶).
_WIDTH = 10.0
#: Relative allowance for SciPy's pmfs and the sums.
_SLACK = 1e-12
#: Budget of table entries over all blocks (memory ~ 24 bytes each, the FFT linear in it).
_BUDGET = 1_700_000
#: Differences read first, spread over a row's support, when locating its threshold.
_GRID = 64
#: Windows this short are convolved directly.
_DIRECT = 64
#: Chunk of the tail sums' first summation.
_CHUNK = 128


def _binom() -> Any:
    from optmech.certify._binomial import binom

    return binom


def _gamma(steps: float, unit: float = U) -> float:
    """Higham's γ_k = k u / (1 − k u)."""
    return steps * unit / (1.0 - steps * unit)


def _windowed_pmfs(
    totals: npt.NDArray[np.int64], p: float
) -> tuple[FloatArray, IntArray, FloatArray, FloatArray, FloatArray]:
    """Rows of pmfs of Bin(total, p) on windows about the mode, row i in columns
    ``[0, lengths[i])`` (zero beyond); the lengths; the mass outside each window; and, per row,
    bounds on the recurrence's error (module docstring): in the 1-norm, and relative to the
    largest entry."""
    binom = _binom()
    t = totals.astype(np.float64)
    sd = np.sqrt(t * p * (1.0 - p))
    mode = np.minimum(np.floor((t + 1.0) * p), t).astype(np.int64)
    half = np.ceil(_WIDTH * sd + 8.0).astype(np.int64)
    lo = np.maximum(0, mode - half)
    hi = np.minimum(totals, mode + half)
    reach = np.maximum(hi - mode, mode - lo)
    steps = np.arange(1, int(np.max(reach)) + 1, dtype=np.float64)
    m = mode.astype(np.float64)[:, None]
    halves = []
    for above, side in ((True, t[:, None] - m + 1.0), (False, m + 1.0)):
        # f(x) / f(x ∓ 1) at x = mode ± d, at most 1 (past the window, where the ratio means
        # nothing, it is not read).
        ratio = np.empty((t.size, steps.size + 1))
        ratio[:, 0] = binom.pmf(mode, totals, p)
        other = t[:, None] - side + 1.0  # mode, or t − mode
        odds = p / (1.0 - p) if above else (1.0 - p) / p
        np.multiply((side - steps) / (other + steps), odds, out=ratio[:, 1:])
        halves.append(np.cumprod(ratio, axis=1))
    up, down = halves
    # x = mode − D + c in the joined rows (D = steps.size), then each window moved to column 0.
    joined = np.concatenate([down[:, :0:-1], up], axis=1)
    lengths = hi - lo + 1
    width = int(np.max(lengths))
    cols = (lo - mode + steps.size)[:, None] + np.arange(width)
    pmf = np.take_along_axis(joined, np.minimum(cols, joined.shape[1] - 1), axis=1)
    pmf[np.arange(width) >= lengths[:, None]] = 0.0
    # An entry d steps from the mode carries γ_{6d+1} relative (six roundings a step, one for
    # the anchor's product); Σ_x f(x) |x − mode| ≤ √(E (X − mode)²) ≤ sd + 1.
    steps_max = 6.0 * reach + 1.0
    error_max = steps_max * U / (1.0 - steps_max * U)
    error_1 = U * (6.0 * (sd + 1.0) + 1.0) / (1.0 - steps_max * U) * (1.0 + error_max)
    outside = binom.cdf(lo - 1, totals, p) + binom.sf(hi, totals, p)
    return pmf, lengths, np.asarray(outside, dtype=np.float64), error_1 + 1e-300 * width, error_max


def _direct_convolution(
    left: FloatArray, right: FloatArray, shorter_left: npt.NDArray[np.bool_], length: int
) -> FloatArray:
    """Row-wise convolutions, their first ``length`` entries, as sums over the shorter window
    of each row (at most _DIRECT entries; the left one where ``shorter_left``)."""
    width = max(left.shape[1], right.shape[1])
    pad = [np.zeros((left.shape[0], width)) for _ in range(2)]
    pad[0][:, : left.shape[1]], pad[1][:, : right.shape[1]] = left, right
    short = shorter_left[:, None]
    x = np.where(short, pad[0], pad[1])[:, :_DIRECT]
    y = np.where(short, pad[1], pad[0])
    out = np.zeros((left.shape[0], max(width + _DIRECT, length)))
    for j in range(x.shape[1]):
        out[:, j : j + width] += x[:, j : j + 1] * y
    return out[:, :length]


def _tail_sums(pmf: FloatArray) -> tuple[FloatArray, float]:
    """``S[:, t] = Σ_{s ≥ t} pmf[:, s]`` by sums within chunks of _CHUNK and of the chunks' totals,
    and a bound on its relative error (every term non-negative): γ over the two sums' lengths
    and the last addition."""
    rows, length = pmf.shape
    chunks = -(-length // _CHUNK)
    flipped = np.zeros((rows, chunks * _CHUNK))
    flipped[:, :length] = pmf[:, ::-1]
    inner = np.cumsum(flipped.reshape(rows, chunks, _CHUNK), axis=2)
    outer = np.zeros((rows, chunks))
    np.cumsum(inner[:, :-1, -1], axis=1, out=outer[:, 1:])
    total = (inner + outer[:, :, None]).reshape(rows, -1)[:, :length]
    return np.ascontiguousarray(total[:, ::-1]), _gamma(_CHUNK + chunks + 1.0)


def _thinned(widths: IntArray, hi: float, lo: float) -> tuple[IntArray, FloatArray]:
    """Per block of ``widths`` middle users, how many are dropped, j, and the probability that
    the thinning (module docstring) would need more, P(Bin(w, τ) > j), charged to δ whole:
    j about w τ plus ``_WIDTH`` standard deviations, at most w (then nothing is charged)."""
    binom = _binom()
    tau = min(1.0, min((hi - lo) / hi, (hi - lo) / (1.0 - lo)) * (1.0 + 8.0 * U))  # rounded up
    w = widths.astype(np.float64)
    spread = np.ceil(w * tau + _WIDTH * np.sqrt(w * tau * (1.0 - tau)) + 8.0)
    dropped = np.minimum(widths, spread.astype(np.int64))
    tail = np.where(dropped < widths, binom.sf(dropped, widths, tau), 0.0)
    return dropped, np.asarray(tail, dtype=np.float64)


def block_edges(others: int, hi: float, lo: float, budget: int = _BUDGET) -> IntArray:
    """Starts of the blocks of k (the last block ends at ``others``): as many blocks, up to one
    per k, as the budget of table entries allows."""
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
        # The block's middle users: those the thinning (module docstring) cannot keep.
        dropped, self.thinned = _thinned(ends - starts, hi, lo)
        self.dropped = int(np.max(dropped))
        if (hi - lo) / hi < (hi - lo) / (1.0 - lo):  # kept at the upper row
            totals = (ends - dropped, others - ends)
        else:  # kept at the lower row
            totals = (starts, others - starts - dropped)
        left, left_len, out_left, err_left, rel_left = _windowed_pmfs(totals[0], hi)
        right, right_len, out_right, err_right, rel_right = _windowed_pmfs(totals[1], lo)
        # Every block's two windows convolved at once by a real FFT of one common length …
        support = left_len + right_len - 1
        length = int(np.max(support))
        size = 1 << max(1, (length - 1).bit_length())
        pmf = np.fft.irfft(np.fft.rfft(left, size) * np.fft.rfft(right, size), size)
        pmf = np.maximum(pmf[:, :length], 0.0)
        pmf[np.arange(length) >= support[:, None]] = 0.0  # beyond the support of g
        norm = 3.0 * np.maximum(np.linalg.norm(left, axis=1), np.linalg.norm(right, axis=1))
        fft_2 = 16.0 * U * (math.log2(size) + 2.0) * norm  # in the 2-norm, so pointwise too
        fft_1 = fft_2 * math.sqrt(size)
        # … but where a window is short (its 2-norm, near 1, would dominate the FFT's error),
        # directly: each entry a sum of at most _DIRECT products, γ relative.
        direct = np.flatnonzero(np.minimum(left_len, right_len) <= _DIRECT)
        if direct.size:
            shorter_left = left_len[direct] <= right_len[direct]
            pmf[direct] = _direct_convolution(left[direct], right[direct], shorter_left, length)
            fft_2[direct] = fft_1[direct] = 0.0
        # The tail sums S(t), each with γ relative (`_tail_sums`).
        tails, sums = _tail_sums(pmf)
        self.mass = tails[:, 0].copy()
        # ‖table − law‖₁ per row: the windows' lost mass, the FFT, the recurrence (both pieces
        # of mass ≤ 1 + their error), SciPy's pmf at each mode, the direct sums, and the tail
        # sums' rounding (twice: a head is the total less a tail).
        recurrence = err_left + err_right + 2.0 * err_left * err_right
        products = _gamma(_DIRECT + 1.0)
        self.charge = (
            out_left
            + out_right
            + fft_1
            + recurrence
            + (2.0 * _SLACK + products + 2.0 * sums) * self.mass
        )
        # |table − g| at any one point (g: the windows' convolution, module docstring).
        relative = (1.0 + rel_left + _SLACK) * (1.0 + rel_right + _SLACK) * (1.0 + products) - 1.0
        self.pointwise = fft_2 + 2.0 * relative * np.max(pmf, axis=1) + 1e-300
        rows = pmf.shape[0]
        # f(s − 1) at column s, s = 0 … length (one zero each side); S(s − 1) at column s,
        # s = 0 … length + 1.
        self.table = np.zeros((rows, length + 3))  # the last column only to match `tails`
        self.table[:, 1 : length + 1] = pmf
        self.tails = np.zeros((rows, length + 3))
        self.tails[:, 1 : length + 1] = tails
        self.tails[:, 0] = self.tails[:, 1]
        self.length = length
        self.peak = np.max(pmf, axis=1)
        # The first differences read, s = 0 … support at equal steps, and how many are read
        # next: every s between the two grid points either side of an unread one.
        step = np.arange(_GRID) / (_GRID - 1.0)
        self.grid = np.floor(step * support[:, None]).astype(np.int64)
        self.window = int(np.max(np.diff(self.grid, axis=1))) * 2 + 2
        self.base = (np.arange(rows) * (length + 3))[:, None]  # of each row, flattened

    def _peak_beyond(self, at: IntArray, way: int) -> FloatArray:
        """Per row, an upper bound on max g(s) over s ≥ ``at`` (``way`` = 1) or s ≤ ``at``
        (``way`` = −1): g is log-concave, so unimodal, and once g(at − k way) > g(at) is
        certain for some k > 0 (the table's two entries differ by more than twice the
        rounding) its largest value there is g(at); otherwise the row's largest entry."""
        f, rows = self.table, np.arange(self.table.shape[0])
        here = f[rows, np.clip(at + 1, 0, self.length + 1)]
        inner = f[rows, np.clip(at + 1 - way * self.window, 0, self.length + 1)]
        falling = inner - here > 2.0 * self.pointwise
        return np.where(falling, here, self.peak) + self.pointwise

    def _positive_parts(self, c1: float, c0: float, slip: float = 0.0) -> FloatArray:
        """Per row, an upper bound on Σ_s (c1 g(s − 1) + c0 g(s))₊ up to the charges: the
        largest sum from a threshold in the interval certified to hold t* (module docstring).
        ``slip``: a bound on the rounding of the two coefficients together."""
        rows, last = self.table.shape[0], self.length  # differences at s = 0 … last
        if c1 <= 0.0 and c0 <= 0.0:  # one sign throughout: no threshold
            return np.zeros(rows)
        if c1 >= 0.0 and c0 >= 0.0:
            return (c1 + c0) * self.mass
        # Sign · difference < −η: certainly before t*; > η: certainly at or after it
        # (t* ∈ [0, last + 1]; a tail when c1 > 0, a head when c1 < 0).
        sign = 1.0 if c1 > 0.0 else -1.0
        eta = ((abs(c1) + abs(c0)) * self.pointwise + slip * self.peak)[:, None]
        a1, a0 = sign * c1, sign * c0
        f, tails, base = self.table.ravel(), self.tails.ravel(), self.base
        # First _GRID differences spread over each row's support, then `window` ones next to
        # the two certified nearest t* (or next to one of them, see below).
        grid = self.grid
        at = grid + base
        d = a1 * f.take(at) + a0 * f.take(at + 1)
        before = np.max(np.where(d < -eta, grid, -1), axis=1)
        after = np.min(np.where(d > eta, grid, last + 1), axis=1)
        window = self.window
        start = before + 1 if sign > 0.0 else np.maximum(before + 1, after - window + 1)
        s = start[:, None] + np.arange(window)
        at = np.minimum(s, last) + base
        d = a1 * f.take(at) + a0 * f.take(at + 1)
        inside = s < after[:, None]
        before = np.maximum(before, np.max(np.where(inside & (d < -eta), s, -1), axis=1))
        after = np.minimum(after, np.min(np.where(inside & (d > eta), s, last + 1), axis=1))
        at = np.minimum(s, last + 1) + base
        value = c1 * tails.take(at) + c0 * tails.take(at + 1)  # Σ_{s ≥ t} of the differences
        if sign < 0.0:  # a head: the total less the tail
            value = (c1 + c0) * self.mass[:, None] - value
        held = (s > before[:, None]) & (s <= after[:, None])
        out = np.max(np.where(held, value, -np.inf), axis=1)
        # Thresholds of (before, after] not read (far from the crossing, where the differences
        # are within the rounding): as c1 + c0 = 1 − e^ε ≤ 0, a tail from t is at most
        # c1 S(t − 1) and c1 g(t − 1), so at most c1 S(e) and c1 max_{s ≥ e} g(s) for e the
        # last s read; a head up to t is at most c0 (M − S(t)) and c0 g(t − 1), so at most
        # c0 (M − S(e)) and c0 max_{s ≤ e − 1} g(s) for e = start − 1 (`_peak_beyond`).
        sums, rows_ = self.tails, np.arange(rows)
        if sign > 0.0:
            end = np.minimum(start + window - 1, last)
            bound = np.minimum(sums[rows_, end + 1], self._peak_beyond(end, 1))
            far = np.where(after > start + window - 1, c1 * bound, -np.inf)
        else:
            end = np.maximum(start - 1, 0)
            bound = np.minimum(self.mass - sums[rows_, end + 1], self._peak_beyond(end - 1, -1))
            far = np.where(before < start - 1, c0 * bound, -np.inf)
        out = np.maximum(out, far)
        # Contradicting certificates (never seen: η bounds the rounding): t* unknown.
        out[after <= before] = max(c1, c0) * self.mass[after <= before]
        return np.maximum(out, 0.0)

    def __call__(self, eps: float) -> float:
        e = math.exp(eps)
        worst = 0.0
        for first, second in ((self.hi, self.lo), (self.lo, self.hi)):
            c1 = first - e * second  # user 1 reports 1 …
            c0 = (1.0 - first) - e * (1.0 - second)  # … or 0
            size = abs(c1) + abs(c0)
            slip = 8.0 * U * (1.0 + e)  # |c1 − exact| + |c0 − exact|
            bound = self._positive_parts(c1, c0, slip)
            bound += size * (self.charge + _SLACK * self.mass) + slip * self.mass + self.thinned
            worst = max(worst, float(np.max(bound)))
        return min(1.0, worst * (1.0 + _SLACK))
