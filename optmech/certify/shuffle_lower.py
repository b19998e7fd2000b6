r"""The lower bound of `shuffle_epsilon`: privacy curves of concrete pairs of datasets.

Any post-processing of the histogram, for a chosen pair $(x^0, x^1)$ of user 1's inputs and
chosen inputs of the other users, has a privacy curve below the true one. Two kinds are
computed, each exactly up to rounding (every term dropped, and the rounding allowance, only
lower them):

- the count of reports in one output set, others at the set's extreme rows (`_CountCurve` of
  `optmech.certify.shuffle_curves`);
- the counts of reports in four output sets $G = (S_0, S_1, S_2, \text{rest})$, every other
  user at one input o (`_FourSetsCurve`).

Four sets. Let $Q_o$ be the law of o's report over the groups and $a(g) = Q_{x^0}(g)/Q_o(g)$,
$b(g) = Q_{x^1}(g)/Q_o(g)$. A sequence of reports $y$ has probability
$Q_{x^0}(y_1) \prod_{j ≥ 2} Q_o(y_j) = a(y_1) \prod_j Q_o(y_j)$ under $x^0$; the sequences of
one histogram H are the permutations of each other, so averaging over which report is user 1's,
$P_0(H) = \frac{1}{n} Σ_g a(g) H_g \, \mathrm{Mult}(n; Q_o)(H)$, and likewise $P_1$ with b.
Hence, exactly,

$$
δ(ε) = Σ_H (P_0(H) − e^ε P_1(H))_+ = \frac{1}{n}\, E\Big[\Big(Σ_g z_g H_g\Big)_+\Big],
\qquad z_g = a(g) − e^ε b(g),\quad H \sim \mathrm{Mult}(n; Q_o).
$$

Given the total $t = H_0 + H_1 \sim \mathrm{Bin}(n, Q_o(S_0 ∪ S_1))$, the counts
$H_0 \sim \mathrm{Bin}(t, ρ)$ and $H_2 \sim \mathrm{Bin}(n − t, π)$ are independent
($ρ$, $π$ the shares of $S_0$ in $S_0 ∪ S_1$ and of $S_2$ in the rest), and
$X = Σ_g z_g H_g = C_t + c H_0 + β H_2$ is affine in both. With the signs of c and β made
positive (a count read from the other end), one count U is summed over and the other V, of the
smaller spread, in closed form: for a fixed u, $E[(C_t + c u + β V)_+]$ is
$A\,P(V ≥ τ) + β\,m π\,P(\mathrm{Bin}(m − 1, π) ≥ τ − 1)$ at the threshold $τ = ⌈−A/β⌉$,
$A = C_t + c u$. Only the few u whose threshold falls inside V's window need that: above them
$X ≥ 0$ on V's whole window and the slice's part is the closed-form mean of X over
$U ≥ u_1$ (a partial mean of U); below them the part is dropped. Any region $R$ gives
$E[X 1_R] ≤ E[X_+]$, so a rounded threshold or a dropped region only lowers the curve. When the
u in between are too many (`_MAX_POINTS`), they go in blocks, each charged at its conditional
mean: $E[(A(U) + β V)_+]$ is convex in u, so by Jensen's inequality a block's weight times the
value at its mean is below its sum. For k-ary randomized response with $S_i = \{x^i\}$ and
$o = x^2$, $S_2 = \{x^2\}$, the four counts are the whole histogram up to the symmetry of the
other outputs (`tests/test_shuffle_lower.py` enumerates it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray, U
from optmech.certify.shuffle_curves import (
    _SLACK,
    _binary_rows,
    _binom,
    _count_pmf,
    _CountCurve,
    _crossing,
    _Curve,
    _window,
)

#: Others at the far end in the count curves' pairs: k ∈ {0..K} ∪ {n−1−K..n−1}.
_ENDS = 3
#: Half-widths, in standard deviations, of the windows of t (slices outside are dropped), of
#: the outer count given t (thresholds outside are dropped) and of the inner one (beyond it,
#: the sign of X is taken from the window's ends; narrower, down to the last, while the
#: thresholds exceed `_MAX_POINTS`).
_T_WIDTH = 6.0
_OUTER_WIDTH = 12.0
_INNER_WIDTHS = (8.0, 6.0, 5.0, 4.0)
#: Most slices t (the window of t narrows to fit) and most thresholds per evaluation (the
#: outer count goes in Jensen blocks beyond: a loss when a block is wider than the scale of
#: the inner count's effect on u, β sd(V)/c).
_MAX_SLICES = 8192
_MAX_POINTS = 16384
#: Relative precision of the lower ε (its bracket is searched to this width, then rounded down).
_LOWER_RTOL = 1e-6

_Laws = tuple[FloatArray, FloatArray, FloatArray]


def _groups(first: FloatArray, second: FloatArray, law: FloatArray) -> _Laws:
    """The laws over four groups (three are read as (S0, S1, rest), S2 empty), clipped at 0; a
    group the others never reach that user 1 may is merged into the others' likeliest group
    (a post-processing of the histogram)."""
    out = []
    for x in (first, second, law):
        x = np.clip(np.asarray(x, dtype=np.float64), 0.0, None)
        out.append(np.insert(x, 2, 0.0) if x.size == 3 else x.copy())
    f, s, q = out
    lost = (q <= 0.0) & ((f > 0.0) | (s > 0.0))
    if np.any(lost):
        g = int(np.argmax(q))
        f[g] += f[lost].sum()
        s[g] += s[lost].sum()
        f[lost] = s[lost] = 0.0
    return f, s, q


def _between(lo: FloatArray, hi: FloatArray, size: IntArray, p: float) -> FloatArray:
    """P(lo ≤ Bin(size, p) ≤ hi), from the survival function above the mean and the cdf below
    (no difference of two numbers near 1)."""
    binom = _binom()
    above = lo > size * p
    out = np.empty(lo.shape)
    a = above
    out[a] = binom.sf(lo[a] - 1.0, size[a], p) - binom.sf(hi[a], size[a], p)
    b = ~above
    out[b] = binom.cdf(hi[b], size[b], p) - binom.cdf(lo[b] - 1.0, size[b], p)
    return np.maximum(out, 0.0)


def _tail_part(
    a: FloatArray, beta: float, size: IntArray, p: float, tau: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """``E[(a + β V) 1{V ≥ τ}]`` for ``V ~ Bin(size, p)``,
    ``a P(V ≥ τ) + β size p P(Bin(size − 1, p) ≥ τ − 1)``, and the sum of its two terms'
    magnitudes (the scale of its rounding). The second tail is the first plus
    ``(1 − p) P(Bin(size − 1, p) = τ − 1)`` (one more trial is one more Bernoulli), a sum of
    positive terms: one survival function, not two."""
    binom = _binom()
    tail = binom.sf(tau - 1.0, size, p)
    first = tail * a
    if beta == 0.0:
        return first, np.abs(first)
    fewer = np.maximum(size - 1, 0)
    shorter = tail + (1.0 - p) * binom.pmf(tau - 1.0, fewer, p)
    second = beta * size * p * np.minimum(shorter, 1.0)
    return first + second, np.abs(first) + np.abs(second)


class _FourSetsCurve:
    """Lower curve of the counts of reports in four output sets (S0, S1, S2, rest), for user
    1's laws ``first`` against ``second`` over them and every other user at one input with law
    ``others_law``: exact up to rounding (module docstring). Three-set laws are read with S2
    empty."""

    def __init__(
        self, others: int, first: FloatArray, second: FloatArray, others_law: FloatArray
    ) -> None:
        binom = _binom()
        self.first, self.second, self.law = _groups(first, second, others_law)
        q = self.law
        self.n = n = others + 1  # every report, user 1's included, drawn from the others' law
        pair, rest = float(q[0] + q[1]), float(q[2] + q[3])
        both = min(1.0, pair)  # a law summing to 1 + ulps
        self.rho = float(q[0] / pair) if pair > 0.0 else 0.5
        self.pi = float(q[2] / rest) if rest > 0.0 else 0.5
        lo, hi = _window(n, both, _T_WIDTH)
        if hi - lo >= _MAX_SLICES:  # the central slices (the others dropped)
            mid = round(n * both)
            lo = max(lo, mid - _MAX_SLICES // 2)
            hi = min(hi, lo + _MAX_SLICES - 1)
        self.t = np.arange(lo, hi + 1, dtype=np.int64)
        self.weight = binom.pmf(self.t, n, both)
        self.mass = float(np.sum(self.weight))

    def __call__(self, eps: float) -> float:
        e = math.exp(eps)
        q = self.law
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(q > 0.0, (self.first - e * self.second) / q, 0.0)
        parts, terms, scale = self._slices(z)
        value = float(np.dot(self.weight, parts))
        # each term within _SLACK of its magnitude; X itself within 8 u of its scale
        slack = _SLACK * float(np.dot(self.weight, terms)) + 8.0 * U * float(
            np.dot(self.weight, scale)
        )
        return max(0.0, (value - slack) / self.n)

    def _slices(self, z: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Per slice t: a lower bound on ``E[X_+ | t]``, the magnitudes of the terms summed
        for it, and a bound on |X| (the scales of the rounding allowance)."""
        n, t = self.n, self.t
        tf, m = t.astype(np.float64), n - t
        c, beta = float(z[0] - z[1]), float(z[2] - z[3])
        const = z[3] * n + (z[1] - z[3]) * tf  # X = const + c H0 + β H2
        rho, pi = self.rho, self.pi
        if c < 0.0:  # H0 = t − H0', H0' ~ Bin(t, 1 − ρ)
            const, c, rho = const + c * tf, -c, 1.0 - rho
        if beta < 0.0:
            const, beta, pi = const + beta * m, -beta, 1.0 - pi
        scale = np.abs(const) + c * tf + beta * m
        if c == 0.0 and beta == 0.0:
            return np.maximum(const, 0.0), np.abs(const), scale
        mean_t = float(np.dot(self.weight, tf) / max(self.mass, 1e-300))
        spread0 = c * math.sqrt(mean_t * rho * (1.0 - rho))
        spread2 = beta * math.sqrt((n - mean_t) * pi * (1.0 - pi))
        outer: tuple[IntArray, float, float] = (t, rho, c)
        inner: tuple[IntArray, float, float] = (m, pi, beta)
        if (spread2, beta) > (spread0, c):
            outer, inner = inner, outer
        return (*_slice_parts(const, outer, inner), scale)


def _count_window(size: IntArray, p: float, width: float) -> tuple[FloatArray, FloatArray]:
    """The window ±``width`` standard deviations of Bin(size, p), elementwise."""
    mean, sd = size * p, np.sqrt(size * p * (1.0 - p))
    lo = np.clip(np.floor(mean - width * sd - 1.0), 0.0, size)
    hi = np.clip(np.ceil(mean + width * sd + 1.0), 0.0, size)
    return lo, hi


def _slice_parts(
    const: FloatArray,
    outer: tuple[IntArray, float, float],
    inner: tuple[IntArray, float, float],
) -> tuple[FloatArray, FloatArray]:
    """``E[(const + c U + β V)_+]`` per slice, from below, for independent
    ``U ~ Bin(size_u, p_u)`` and ``V ~ Bin(size_v, p_v)`` with ``c > 0``, ``β ≥ 0``; and the
    magnitudes of the terms summed."""
    binom = _binom()
    size_u, p_u, c = outer
    size_v, p_v, beta = inner
    lo_u, hi_u = _count_window(size_u, p_u, _OUTER_WIDTH)
    top = (size_u + 1).astype(np.float64)
    for width_v in _INNER_WIDTHS:
        lo_v, hi_v = _count_window(size_v, p_v, width_v)
        # u ≥ u1: X ≥ 0 on V's window, the mean of X over U ≥ u1 (every V); u < u0: dropped;
        # u0 ≤ u < u1 (inside U's window): one threshold on V each, or per block of u.
        u0 = np.clip(np.ceil((-const - beta * hi_v) / c), 0.0, top)
        u1 = np.clip(np.ceil((-const - beta * lo_v) / c), u0, top)
        start = np.maximum(u0, lo_u)
        stop = np.minimum(u1, hi_u + 1.0)
        counts = np.maximum(stop - start, 0.0).astype(np.int64)
        total = int(counts.sum())
        if total <= _MAX_POINTS:
            break
    above, terms = _tail_part(const + beta * size_v * p_v, c, size_u, p_u, u1)
    parts = np.maximum(above, 0.0)
    if total == 0:
        return parts, terms
    width = max(1, -(-total // _MAX_POINTS))
    blocks = -(-counts // width)
    which = np.repeat(np.arange(counts.size), blocks)
    first = np.repeat(np.cumsum(blocks) - blocks, blocks)
    lo = start[which] + width * (np.arange(which.size) - first)
    sizes = size_u[which]
    if width == 1:
        weight, u = binom.pmf(lo, sizes, p_u), lo
    else:  # Jensen: a block's weight at its conditional mean
        hi = np.minimum(lo + (width - 1), stop[which] - 1.0)
        weight = _between(lo, hi, sizes, p_u)
        partial = sizes * p_u * _between(lo - 1.0, hi - 1.0, np.maximum(sizes - 1, 0), p_u)
        with np.errstate(divide="ignore", invalid="ignore"):
            u = np.clip(np.where(weight > 0.0, partial / weight, lo), lo, hi)
        terms += np.bincount(which, weights=weight * c * u, minlength=counts.size)  # u's error
    a = const[which] + c * u
    tau = np.ceil(-a / beta)
    value, size = _tail_part(a, beta, size_v[which], p_v, tau)
    parts += np.bincount(which, weights=weight * np.maximum(value, 0.0), minlength=counts.size)
    terms += np.bincount(which, weights=weight * size, minlength=counts.size)
    return parts, terms


# -- the laws and curves ---------------------------------------------------------------------
def _four_set_laws(matrix: FloatArray) -> list[_Laws]:
    """Laws over (S0, S1, S2, rest) for the pair of rows farthest apart in ε: S0 and S1 where
    one row exceeds the other; every other user at one row o, and S2 the outputs outside
    S0 ∪ S1 where o's row exceeds the pair's. o is the row that puts the least mass on S0 ∪ S1
    (for k-ary randomized response an input outside the pair, and S2 = {o}), then either row
    of the pair (S2 empty: better for some randomizers, e.g. unary encoding); both
    directions."""
    logs = np.log(matrix)
    ratio = np.max(np.abs(logs[:, None, :] - logs[None, :, :]), axis=2)
    i, j = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    s0, s1 = matrix[i] > matrix[j], matrix[j] > matrix[i]
    pair = s0 | s1
    out = []
    for o in dict.fromkeys([int(np.argmin(matrix[:, pair].sum(axis=1))), int(i), int(j)]):
        s2 = ~pair & (matrix[o] > matrix[i])
        sets = np.stack([s0, s1, s2, ~(pair | s2)], axis=1)
        laws = np.clip(matrix @ sets, 0.0, 1.0)
        out += [(laws[i], laws[j], laws[o]), (laws[j], laws[i], laws[o])]
    return out


def _distinct(pairs: Sequence[_Laws]) -> list[_Laws]:
    """``pairs`` without repeats and mirror images (S0 and S1 swapped in all three laws: the
    same curve)."""
    seen: set[bytes] = set()
    out = []
    for laws in pairs:
        rows = [np.asarray(x, dtype=np.float64) for x in laws]
        swap = [1, 0, *range(2, rows[0].size)]
        keys = [b"".join(x.tobytes() for x in rows), b"".join(x[swap].tobytes() for x in rows)]
        if not seen.intersection(keys):
            seen.update(keys)
            out.append(laws)
    return out


def _lower_laws(matrix: FloatArray) -> tuple[list[tuple[float, float]], list[_Laws]]:
    """The post-processings of one report the lower bound counts: ``(lo, hi)`` probabilities
    of a few output sets over the rows, and the four-set laws (three or more outputs)."""
    k_out = matrix.shape[1]
    sets: list[npt.NDArray[np.bool_]] = []
    if k_out == 2:
        sets.append(np.array([False, True]))
    else:
        eye = np.eye(k_out, dtype=bool)
        spread = matrix.max(axis=0) - matrix.min(axis=0)
        for j in np.argsort(-spread)[:4]:
            sets.append(eye[j])
        i, j = np.unravel_index(
            np.argmax(np.abs(matrix[:, None, :] - matrix[None, :, :]).sum(axis=2)),
            (matrix.shape[0],) * 2,
        )
        sets.append(matrix[i] > matrix[j])
    counts = [_binary_rows(matrix, chosen) for chosen in sets]
    return counts, _four_set_laws(matrix) if k_out > 2 else []


def _lower_curves_of(
    counts: Sequence[tuple[float, float]], pairs: Sequence[_Laws], others: int
) -> list[_Curve]:
    """Curves of concrete pairs: the count of each set of ``counts`` with the other users at
    the set's extreme rows, then the four-set counts of ``pairs``."""
    curves: list[_Curve] = []
    ends = list(range(min(_ENDS, others) + 1))
    ends += [others - k for k in ends if others - k > _ENDS]
    for lo, hi in counts:
        if hi <= lo:
            continue
        for k in ends:
            _, pmf = _count_pmf(others, k, hi, lo)
            curves.append(_CountCurve(pmf, hi, lo))
            curves.append(_CountCurve(pmf, lo, hi))
    # after the cheap curves, which set the bar they must beat
    curves += [_FourSetsCurve(others, *laws) for laws in _distinct(pairs)]
    return curves


def _lower_epsilon(curves: Sequence[_Curve], delta: float, eps0: float, upper: float) -> float:
    """The largest ε found (rounded down, to `_LOWER_RTOL` relative) at which one of the
    ``curves`` exceeds δ, in [0, ``upper``]. Each curve is searched only above the best so far
    (one evaluation when it does not beat it): the count curves (cheap) in turn, then the
    four-set curves from the one largest at the count curves' ε, so that the costly ones are
    seldom searched in full."""
    lower = 0.0
    four = [c for c in curves if isinstance(c, _FourSetsCurve)]
    for curve in curves:
        if not isinstance(curve, _FourSetsCurve):
            lower = _crossing(curve, delta, eps0, _LOWER_RTOL, lower, upper)[0]
    at = lower
    for _, curve in sorted(((-c(at), i), c) for i, c in enumerate(four)):
        lower = _crossing(curve, delta, eps0, _LOWER_RTOL, lower, upper)[0]
    return lower
