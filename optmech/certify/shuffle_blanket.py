r"""The privacy blanket of shuffled reports, computed exactly for randomizers of few output groups.

Balle, Bell, Gascón & Nissim ("The privacy blanket of the shuffle model", CRYPTO 2019) write
every row of a randomizer as a mixture with a common part,

$$
M(\cdot \mid x) = γ\, ω + (1 − γ)\, R_x, \qquad γ = Σ_y \min_x M(y \mid x), \quad
ω(y) = \min_x M(y \mid x) / γ :
$$

each other user's report is, with probability γ, a draw of ω independent of its input (the
blanket). Su, Cheng & Wang ("Decomposition-based optimal bounds for privacy amplification via
shuffling", arXiv 2504.07414, 2025) show this decomposition is the best one. Reveal the others'
non-blanket reports (a post-processing: they are independent of user 1). With m blanket draws,
$m \sim \mathrm{Bin}(n − 1, γ)$, the rest is the multiset of m + 1 reports, user 1's among
them; writing every report's law against ω, $P_0(H) = Σ_{s ∈ H} Π_j ω(y_j) \cdot \frac{1}{m+1}
Σ_i a(y_i)$ with $a(y) = M(y \mid x^0)/ω(y)$ (the sum is constant on the multiset H), so for
the ordered pair $(x^0, x^1)$

$$
δ_m(ε) = \frac{1}{m + 1}\, E\Big[\Big(Σ_{i=1}^{m+1} Z_i\Big)_+\Big], \qquad
Z_i = a(Y_i) − e^ε b(Y_i), \quad Y_i \overset{iid}{\sim} ω,
$$

$b(y) = M(y \mid x^1)/ω(y)$, and $δ(ε) ≤ \max_{(x^0, x^1)} Σ_m P(m)\, δ_m(ε)$.

Outputs with the same $(a, b)$ merge without loss. When a pair has at most three such groups
(k-ary randomized response: $\{x^0\}$, $\{x^1\}$ and the rest; every two-output matrix) the
sum is, with T = m + 1 and the groups' counts $(N_1, N_2, N_3)$, linear in $N_2$ once $N_1$
is fixed: $N_1 \sim \mathrm{Bin}(T, ω(G_1))$, $N_2 \mid N_1 \sim \mathrm{Bin}(T − N_1, ρ)$,
and $E[(c N_2 + d)_+]$ is a binomial tail and a partial mean, both from one survival function
and one pmf (`_BlanketCurve`). $G_1$ is, among the groups whose Z is extreme (the least or
the largest of the three on [0, ε₀]; for k-ary randomized response the other input's output)
and whose variance is at most four times the least, the one of least variance; else the group
of least variance (the fewest $N_1$ summed). With an extreme Z one more of its draws, in place
of another's, only lowers (or raises) the sum, so $E[(Σ Z)_+ \mid T, N_1]$ is monotone in
$N_1$ and a run of counts can be charged its first (last) value: the curve that brackets the
crossing cuts $N_1$ in such blocks, and the fine curve charges runs of eight counts their first
value, summing cell by cell only the runs whose charge exceeds the next run's first value times
their mass by more than their share of 1e-6 of the total. A matrix whose pairs have more
groups, or more than ``_MAX_STRUCTURES`` distinct pair structures, gets no bound here (its
lattice form is `optmech.certify.shuffle_blanket_fft`); pairs whose structures agree to
``_MERGE`` are evaluated once.

Costs are bounded by blocks of m: $δ_m$ is non-increasing in m (one more blanket draw is a
post-processing), so a block of m is charged its first m; the blocks are one m wide within the
budget, wider far from the mean. Rounding, charged so that the curve is an upper bound:

- γ is rounded down (a smaller γ is a valid decomposition, and fewer blanket draws only lose
  privacy); a is rounded up and b down (the positive part grows with every $Z_i$); outputs whose
  $(a, b)$ agree to ``_MERGE`` relative share a group with the largest a and smallest b;
- the groups' masses carry relative errors of a few ulps, and pairs evaluated as one
  structure take its largest a, smallest b and the largest difference of their masses:
  changing the law of each of T draws by total variation τ moves $δ_m$ by at most
  τ times the range of Z (couple the draws; each differing draw moves the sum by at most the
  range, and the sum is divided by T);
- binomial masses carry ``_SLACK`` relative; masses of m and of $N_1$ outside their windows of
  ±8 standard deviations are charged whole (δ ≤ 1, and $(Σ Z)_+ / T ≤ \max_y Z(y)_+$);
- a threshold computed one off moves the positive part by at most one term near zero, at most
  a few ulps of $|d| + |c| T$; the rounding of Z and of the sums by a few ulps of T times the
  range of Z;
- cells whose Chernoff bound, $P(\mathrm{Bin}(r, ρ) ≥ s) ≤ e^{−r\,\mathrm{KL}(s/r \| ρ)}$, is
  negligible are charged that bound instead of their tail (it is an upper bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from optmech._floats import FloatArray, IntArray, U
from optmech.certify.shuffle_curves import _crossing
from optmech.certify.shuffle_variation import _bins, _mass, _windows

__all__ = ["BlanketGroups", "blanket_groups"]

#: Relative allowance for SciPy's binomial functions and the sums.
_SLACK = 1e-12
#: Ratios a, b agreeing to this relative precision share a group.
_MERGE = 1e-12
#: Most groups per pair computed exactly.
_MAX_GROUPS = 3
#: Most distinct pair structures evaluated (else no blanket bound).
_MAX_STRUCTURES = 16
#: Largest ``inputs² × outputs`` whose pairs are grouped.
_MAX_CELLS = 1 << 22
#: Cells (blocks of m times counts of the first group) of the curve searched near the answer;
#: twice as many while the mean number of blanket draws is at most `_CHEAP_DRAWS` (SciPy's
#: binomial survival function costs more for larger counts).
_BUDGET = 1 << 16
_CHEAP_DRAWS = 100_000
#: Cells of the curve that brackets the crossing first, and its blocks of the first count.
_COARSE_BUDGET = 1 << 12
_COARSE_BLOCKS = 64
#: Fewest blocks of m.
_MIN_BLOCKS = 4
#: Counts of the first group in a run charged its first value (`_PairCells._refined`), and
#: the share of the total by which the runs' charges may exceed their sums.
_STRIDE = 8
_REFINE = 1e-6


@dataclass(frozen=True)
class BlanketGroups:
    """One ordered pair's outputs grouped by their ratios to the blanket law.

    Attributes
    ----------
    weight : ndarray, shape (g,)
        ω of each group (summing to 1 up to rounding).
    a, b : ndarray, shape (g,)
        ``M(y|x⁰)/ω(y)`` (rounded up) and ``M(y|x¹)/ω(y)`` (rounded down) on the group.
    gamma : float
        The blanket mass γ, rounded down.
    error : float
        Total variation between the groups' computed and exact masses, an upper bound.
    """

    weight: FloatArray
    a: FloatArray
    b: FloatArray
    gamma: float
    error: float


def _round_key(values: FloatArray) -> IntArray:
    """Integer labels of values agreeing to about ``_MERGE`` relative (a log grid)."""
    return np.floor(np.log(values) / _MERGE * 0.25).astype(np.int64)


def _row_labels(ratio: FloatArray) -> IntArray | None:
    """Per row, the rank of each output's ratio among the row's distinct ratios (to
    ``_MERGE``); None when a row has more than three (every pair with it has more groups)."""
    keys = _round_key(ratio)
    labels = np.empty(keys.shape, dtype=np.int64)
    for i, row in enumerate(keys):
        labels[i] = np.unique(row, return_inverse=True)[1]
    return labels if int(labels.max()) < _MAX_GROUPS else None


def _pair_slots(
    labels: IntArray, omega: FloatArray, up: FloatArray, down: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For every ordered pair (i, j) and every combination s = (l, l') of a label of row i
    and one of row j: the mass of ω on the outputs labelled l in row i and l' in row j, the
    largest ``up[i]`` on the outputs labelled l in row i and the least ``down[j]`` on those
    labelled l' in row j (over a superset of the group: a larger a and a smaller b); 0, inf
    and inf where there is none. By products of the label indicators, one per slot."""
    k_in = labels.shape[0]
    width = int(labels.max()) + 1
    weight = np.empty((k_in, k_in, width * width))
    a = np.empty_like(weight)
    b = np.empty_like(weight)
    hot = [labels == label for label in range(width)]
    top = [np.where(h, up, -np.inf).max(axis=1) for h in hot]
    bottom = [np.where(h, down, np.inf).min(axis=1) for h in hot]
    for first in range(width):
        left = hot[first] * omega
        for second in range(width):
            slot = first * width + second
            weight[:, :, slot] = left @ hot[second].T.astype(np.float64)
            a[:, :, slot] = top[first][:, None]
            b[:, :, slot] = bottom[second][None, :]
    a[weight <= 0.0] = np.inf
    return weight, a, b


def _structure_keys(weight: FloatArray, a: FloatArray, b: FloatArray) -> IntArray:
    """Rows of integer keys of the pairs' groups (absent groups a sentinel)."""
    absent = weight <= 0.0
    parts = [np.where(absent, 1.0, v) for v in (weight, a, b)]
    keys = _round_key(np.concatenate(parts, axis=1))
    keys[np.tile(absent, 3)] = np.iinfo(np.int64).min
    return keys


def blanket_groups(matrix: FloatArray) -> list[BlanketGroups] | None:
    """The distinct group structures of the ordered pairs of a matrix (module docstring), or
    None when a pair has more than three groups, or there are too many structures. With two
    outputs only the pairs of the two extreme rows are kept: $δ_m$ is jointly convex in the
    pair's rows (every Z is linear in them, ω held fixed), and every row lies between those.

    Parameters
    ----------
    matrix : ndarray, shape (k_in, k_out)
        A validated row-stochastic matrix without zero columns and with a finite ε₀.

    Returns
    -------
    list of BlanketGroups or None

    Examples
    --------
    >>> import math, numpy as np
    >>> e = math.exp(1.0)
    >>> krr = (e * np.eye(4) + (1 - np.eye(4))) / (e + 3)  # 4-ary randomized response
    >>> groups = blanket_groups(krr)  # every ordered pair has the same three groups
    >>> len(groups), np.round(np.sort(groups[0].weight), 6).tolist()
    (1, [0.25, 0.25, 0.5])
    """
    k_in, k_out = matrix.shape
    if k_in * k_in * k_out > _MAX_CELLS:
        return None
    floor = matrix.min(axis=0)
    gamma = float(floor.sum())
    ratio = matrix / floor[None, :]  # a(y) / γ for each row
    if k_out == 2:  # δ_m is convex in the pair's rows, which lie between the two extreme ones
        ratio = ratio[[int(np.argmin(matrix[:, 1])), int(np.argmax(matrix[:, 1]))]]
    labels = _row_labels(ratio)
    if labels is None:
        return None
    grow = 1.0 + 8.0 * k_out * U
    weight, a, b = _pair_slots(labels, floor / gamma, ratio * gamma * grow, ratio * gamma / grow)
    counts = np.count_nonzero(weight > 0.0, axis=2)
    np.fill_diagonal(counts, 0)
    if int(counts.max()) > _MAX_GROUPS:
        return None
    pairs = counts > 1  # one group: identical rows, δ = 0
    weight, a, b = weight[pairs], a[pairs], b[pairs]
    # groups in the order of (a, b), absent ones last; then the first three
    order = np.argsort(b, axis=1, kind="stable")
    order = np.take_along_axis(order, np.argsort(np.take_along_axis(a, order, 1), 1, "stable"), 1)
    weight, a, b = (np.take_along_axis(v, order, 1)[:, :_MAX_GROUPS] for v in (weight, a, b))
    keys, inverse = np.unique(_structure_keys(weight, a, b), axis=0, return_inverse=True)
    if keys.shape[0] > _MAX_STRUCTURES:
        return None
    out = []
    error = 2.0 * (k_out + 2) * U
    for u in range(keys.shape[0]):
        # one structure for pairs alike: the largest a, the smallest b, and the difference of
        # the masses charged (`BlanketGroups.error`)
        member = np.flatnonzero(inverse.reshape(-1) == u)
        w = weight[member[0]]
        live = w > 0.0
        moved = 0.5 * float(np.max(np.sum(np.abs(weight[member] - w), axis=1)))
        out.append(
            BlanketGroups(
                weight=w[live],
                a=np.max(a[member], axis=0)[live],
                b=np.min(b[member], axis=0)[live],
                gamma=gamma / grow,
                error=error + moved,
            )
        )
    return out


def _extreme_first(w: FloatArray, a: FloatArray, b: FloatArray, eps0: float) -> tuple[int, int]:
    """The group counted first and the side where its Z is extreme on [0, ε₀] (−1: least,
    +1: largest, 0: neither). Among groups with an extreme Z (``Z_g − Z_h`` is affine in e^ε,
    so its sign on both ends holds between), the one of least variance; else the least
    variance overall (fewest counts summed)."""
    var = w * (1.0 - w)
    best, side = int(np.argmin(var)), 0
    for g in np.argsort(var, kind="stable"):
        others = [h for h in range(3) if h != g and w[h] > 0.0]
        ends = [a[g] - e * b[g] - (a[others] - e * b[others]) for e in (1.0, math.exp(eps0))]
        if all(np.all(end <= 0.0) for end in ends) or all(np.all(end >= 0.0) for end in ends):
            if var[g] <= 4.0 * var[best]:
                return int(g), -1 if np.all(ends[0] <= 0.0) else 1
    return best, side


class _PairCells:
    """The cells (block of m, block of counts of the first group) of one pair's curve, with
    masses. With ``blocks`` > 0 the first count's window is cut in about that many blocks
    when its Z is the least of the groups' on [0, ε₀] (one more such draw, in place of one of
    the others', only lowers the sum: the positive part is non-increasing in that count, and a
    block is charged its first count) or the largest (its last); one count each otherwise."""

    def __init__(
        self, others: int, groups: BlanketGroups, budget: int, eps0: float, blocks: int = 0
    ) -> None:
        w, a, b = (np.zeros(3) for _ in range(3))
        w[: groups.weight.size] = groups.weight
        a[: groups.a.size] = groups.a
        b[: groups.b.size] = groups.b
        first, self.monotone = _extreme_first(w, a, b, eps0)
        self.side = self.monotone
        self.order = [first, *(g for g in range(3) if g != first)]
        self.a, self.b = a[self.order], b[self.order]
        self.error = groups.error
        w = w[self.order]
        p_first = float(min(1.0, w[0]))
        tail = float(w[1] + w[2])
        self.rho = float(w[1] / tail) if tail > 0.0 else 1.0
        gamma = min(1.0, groups.gamma)
        sd = math.sqrt((others * gamma + 1.0) * p_first * (1.0 - p_first))
        width = max(1, math.ceil((16.0 * sd + 17.0) / blocks)) if blocks else 1
        if p_first <= 0.0:
            self.monotone = 0
        if width == 1 or p_first <= 0.0:
            width, self.side = 1, 0
        count = max(_MIN_BLOCKS, int(budget // ((16.0 * sd + 17.0) / width)))
        starts, ends, self.outside = _bins(others, gamma, count)
        block_mass = _mass(starts, ends, others, gamma)
        t = starts + 1  # the first m of each block, and user 1
        lo, hi = _windows(t, p_first)
        if p_first <= 0.0:  # an empty group (two outputs): N₁ = 0
            hi = lo
        out = _binom().cdf(lo - 1, t, p_first) + _binom().sf(hi, t, p_first)
        #: Mass whose positive part is charged at most max Z₊ (outside the windows of N₁).
        self.far = float(np.dot(block_mass, out)) * (1.0 + _SLACK)
        sizes = (hi - lo) // width + 1
        row = np.repeat(np.arange(t.size), sizes)
        offset = np.cumsum(sizes) - sizes
        self.n_lo = lo[row] + width * (np.arange(row.size) - offset[row])
        self.n_hi = np.minimum(self.n_lo + width - 1, hi[row])
        self.t = t[row]
        if width == 1:
            inside = _binom().pmf(self.n_lo, self.t, p_first)
        else:
            inside = _mass(self.n_lo, self.n_hi, self.t, p_first)
        self.mass = np.maximum(inside, 0.0) * block_mass[row] * (1.0 + _SLACK)
        self.cutoff = 0.0
        self._index()

    def prune(self, negligible: float) -> None:
        """Charge the lightest cells at δ ≤ max Z₊ whole (`far`), as many as weigh at most
        ``negligible`` together at the largest Z₊; the cells left whose Chernoff bound weighs
        at most their share of ``negligible`` are charged it (`_positive_part`)."""
        if negligible <= 0.0:
            return
        scale = max(float(np.max(self.a)), 1e-300)
        order = np.argsort(self.mass)
        light = order[: int(np.searchsorted(np.cumsum(self.mass[order]), negligible / scale))]
        self.far += float(np.sum(self.mass[light])) * (1.0 + 1e-9)
        keep = np.ones(self.mass.size, dtype=bool)
        keep[light] = False
        self.n_lo, self.n_hi = self.n_lo[keep], self.n_hi[keep]
        self.t, self.mass = self.t[keep], self.mass[keep]
        self.cutoff = negligible / max(1, self.mass.size)
        self._index()

    def __call__(self, eps: float) -> float:
        """Σ over cells of mass · E[(Σ Z)₊ | T, N₁] / T, and the charges."""
        e = math.exp(eps)
        z = self.a - e * self.b
        scale = float(np.max(self.a) + e * np.max(self.b))
        n_first = self.n_lo if self.side <= 0 else self.n_hi
        if self.side and (np.any(z[1:] * self.side > z[0] * self.side)):
            return 1.0  # not extreme at this ε (rounding at a tie): no bound from the blocks
        r = self.t - n_first  # draws in the second and third groups
        d = n_first * z[0] + r * z[2]
        c, rho = float(z[1] - z[2]), self.rho
        if c < 0.0:  # count the third group instead: c N₂ + d = −c N₃ + (c r + d)
            c, d, rho = -c, d + c * r, 1.0 - rho
        weight = self.mass / self.t

        def part(idx: IntArray) -> FloatArray:  # E[(Σ Z)₊ | cell] / T, rounded up
            value, size = _positive_part(c, d[idx], r[idx], rho, weight[idx], self.cutoff)
            return (np.maximum(value, 0.0) + size) / self.t[idx]

        if self.anchors is None or np.any(z[1:] < z[0]):
            body = float(np.dot(self.mass, part(np.arange(self.mass.size))))
        else:
            body = self._refined(part)
        top = max(0.0, float(np.max(z)))
        # the masses' error moves δ by at most its total variation times the range of Z, the
        # rounding of Z and of d by a few ulps of T times that range (divided by T)
        total = body + top * self.far + self.outside + (self.error + 16.0 * U) * scale
        return total * (1.0 + _SLACK)

    def _index(self) -> None:
        """Runs of `_STRIDE` consecutive cells of one block of m (`_refined`), when the first
        group's Z is the least on [0, ε₀] and its counts are one a cell."""
        self.anchors: IntArray | None = None
        if self.monotone >= 0 or self.side or self.mass.size < 4 * _STRIDE:
            return
        cells = np.arange(self.mass.size)
        new_row = np.r_[True, self.t[1:] != self.t[:-1]]
        pos = cells - np.maximum.accumulate(np.where(new_row, cells, 0))
        first = pos % _STRIDE == 0
        self.anchors = np.flatnonzero(first)
        self.run_of = np.cumsum(first) - 1
        self.run_mass = np.add.reduceat(self.mass, self.anchors)
        same = np.r_[self.t[self.anchors[1:]] == self.t[self.anchors[:-1]], False]
        self.next_run = np.where(same, np.arange(self.anchors.size) + 1, -1)
        self.inner = ~first

    def _refined(self, part: Callable[[IntArray], FloatArray]) -> float:
        """Σ mass · part over the cells, each run of counts first charged its first cell's
        value times its mass (the positive part is non-increasing in the first count: one more
        of its draws in place of another's only lowers the sum); the runs whose charge exceeds
        the next run's first value times their mass by more than their share of ``_REFINE``
        of the total are summed cell by cell."""
        assert self.anchors is not None
        head = part(self.anchors)
        upper = head * self.run_mass
        lower = np.where(self.next_run >= 0, head[self.next_run], 0.0) * self.run_mass
        refine = upper - lower > _REFINE * float(np.sum(upper)) / upper.size
        cells = np.flatnonzero(refine[self.run_of] & self.inner)
        exact = np.zeros(self.mass.size)
        exact[self.anchors] = head * self.mass[self.anchors]
        exact[cells] = part(cells) * self.mass[cells]
        return float(np.sum(upper[~refine])) + float(np.sum(exact[refine[self.run_of]]))


def _positive_part(
    c: float, d: FloatArray, r: IntArray, rho: float, weight: FloatArray, cutoff: float
) -> tuple[FloatArray, FloatArray]:
    """E[(c N + d)₊] for N ~ Bin(r, ρ), c ≥ 0, elementwise, and the allowance for its
    rounding. With s the least integer where c s + d > 0 the sum is
    ``c r ρ P(X ≥ s − 1) + d P(N ≥ s)``, X ~ Bin(r − 1, ρ), from one survival function and
    one pmf of X (N = X + Bernoulli(ρ)). A cell whose Chernoff bound
    ``(c r + d)₊ exp(−r KL(s/r ‖ ρ))`` times its ``weight`` is at most ``cutoff`` is charged
    that bound instead (an upper bound: c N + d ≤ c r + d)."""
    rf = r.astype(np.float64)
    if c <= 0.0 or rho <= 0.0:
        return np.maximum(d, 0.0), 8.0 * U * np.abs(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.clip(np.floor(-d / c) + 1.0, 0.0, rf + 1.0)
    whole = s <= 0.0  # every N counts: the mean
    value = np.where(whole, c * rf * rho + d, 0.0)
    size = np.where(whole, _SLACK * (c * rf * rho + np.abs(d)), 0.0)
    live = np.flatnonzero((s > 0.0) & (s <= rf))
    if live.size and rho < 1.0:
        q = s[live] / rf[live]
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = q * np.log(q / rho)
            t2 = np.where(q < 1.0, (1.0 - q) * np.log((1.0 - q) / (1.0 - rho)), 0.0)
        exponent = -rf[live] * (t1 + t2) + 8.0 * U * rf[live] * (np.abs(t1) + np.abs(t2))
        top = np.maximum(c * rf[live] + d[live], 0.0)
        bound = top * np.exp(np.minimum(exponent + 1e-12, 0.0))
        cheap = (q > rho) & (weight[live] * bound <= cutoff)
        value[live[cheap]] = bound[cheap]
        live = live[~cheap]
    if live.size:
        value[live], size[live] = _exact_part(c, d[live], r[live], s[live], rho)
    return value, size


def _exact_part(
    c: float, d: FloatArray, r: IntArray, s: FloatArray, rho: float
) -> tuple[FloatArray, FloatArray]:
    """`_positive_part` for cells with 0 < s ≤ r (so r ≥ 1), from one survival function and
    one pmf of X ~ Bin(r − 1, ρ)."""
    from scipy.special import bdtrc

    rf = r.astype(np.float64)
    x = r - 1
    upper = np.where(s > x, 0.0, bdtrc(np.clip(s - 1.0, 0.0, x), x, rho))  # P(X ≥ s)
    point = _binom().pmf(s - 1.0, x, rho) if rho < 1.0 else (s - 1.0 == x).astype(np.float64)
    tail_x = np.minimum(upper + point, 1.0)  # P(X ≥ s − 1)
    tail_n = np.minimum(upper + rho * point, 1.0)  # P(N ≥ s)
    mean = c * rf * rho * tail_x
    value = mean + d * tail_n
    size = _SLACK * (mean + np.abs(d) * tail_n) + 16.0 * U * (np.abs(d) + c * rf)
    return value, size


def _binom() -> Any:
    from optmech.certify._binomial import binom

    return binom


class _BlanketCurve:
    """δ(ε) of the privacy blanket, the largest over the pairs' group structures, an upper
    bound (module docstring); ``negligible``: cell mass charged whole to save evaluations."""

    def __init__(
        self,
        others: int,
        structures: list[BlanketGroups],
        eps0: float,
        budget: int = _BUDGET,
        negligible: float = 0.0,
        blocks: int = 0,
    ) -> None:
        self.eps0 = eps0
        share = max(1, budget // max(1, len(structures)))
        self.pairs = [_PairCells(others, g, share, eps0, blocks) for g in structures]
        for pair in self.pairs:
            pair.prune(negligible)

    @property
    def cells(self) -> int:
        """Cells evaluated at every ε."""
        return sum(int(p.mass.size) for p in self.pairs)

    def __call__(self, eps: float) -> float:
        if eps >= self.eps0:
            return 0.0
        return min(1.0, max(pair(eps) for pair in self.pairs))


class _MinCurve:
    """The pointwise least of upper curves (each valid, so their minimum is)."""

    def __init__(self, *curves: Callable[[float], float]) -> None:
        self.curves = curves

    def __call__(self, eps: float) -> float:
        return min(curve(eps) for curve in self.curves)


#: Relative width below the reference ε where the crossing is looked for first.
_NEAR = 2e-2
#: Relative precision of the coarse curve's crossing; most evaluations of the fine curve.
_COARSE_RTOL = 1e-4
_FINE_STEPS = 4
#: Relative distance above the predicted crossing each secant step aims at, and the relative
#: distance in ε (estimated) below which a point at most δ ends the steps.
_AIM = 1e-6
_STOP = 1e-5


def blanket_search(
    others: int,
    structures: list[BlanketGroups],
    delta: float,
    eps0: float,
    reference: float,
) -> tuple[Callable[[float], float], float]:
    """The blanket curve and its certified ε at ``delta`` (ε₀ when none below it is found).

    A curve of `_COARSE_BUDGET` cells (`_COARSE_BLOCKS` blocks of the first count, where its Z
    is extreme) brackets the crossing, looked for just below
    ``reference`` first (an ε certified by another bound; `_crossing` widens the search); the
    curve of `_BUDGET` cells, below it, is then stepped down from the coarse crossing by the
    secant of log δ (`_descend`). Each curve is an upper bound, so their pointwise least is
    returned, and the least ε where one was evaluated at most δ."""
    negligible = 1e-5 * delta
    coarse = _BlanketCurve(others, structures, eps0, _COARSE_BUDGET, negligible, _COARSE_BLOCKS)
    draws = others * min(g.gamma for g in structures)
    budget = _BUDGET * (2 if draws <= _CHEAP_DRAWS else 1)
    fine = _BlanketCurve(others, structures, eps0, budget, negligible)
    both = _MinCurve(coarse, fine)
    start = min(reference, eps0)
    near = None
    if 0.0 < start < eps0:  # the coarse curve crosses a few percent above the fine one
        above = coarse(start) > delta
        near = (
            (start, min(eps0, start * (1.0 + 4 * _NEAR))) if above else (start * (1 - _NEAR), start)
        )
    lo, hi = _crossing(coarse, delta, eps0, _COARSE_RTOL, near=near)
    if not 0.0 < lo < hi < eps0:
        return both, hi
    slope = (math.log(coarse(lo)) - math.log(coarse(hi))) / (lo - hi)
    f_hi = fine(hi)
    if f_hi > delta or not slope < 0.0:
        return both, hi
    return both, _descend(fine, delta, hi, f_hi, slope)


def _descend(
    curve: Callable[[float], float],
    delta: float,
    hi: float,
    f_hi: float,
    slope: float,
    steps: int = _FINE_STEPS,
) -> float:
    """The least ε found with ``curve(ε) ≤ δ``, from ``curve(hi) = f_hi ≤ δ`` and an estimate
    ``slope < 0`` of d log δ / dε: at most ``steps`` secant steps on log δ against ε²
    (nearly linear: δ falls about as e^{−c n ε²}), each aimed ``_AIM`` relative above the
    crossing the last two points predict (a point is kept only once evaluated at most δ); it
    stops at a point at most δ that is within about ``_STOP`` of the crossing."""
    log_delta = math.log(delta)
    lo, x, fx = 0.0, hi, f_hi
    slope /= 2.0 * hi  # d log δ / d(ε²)
    for _ in range(steps):
        square = x * x + (log_delta - math.log(max(fx, 1e-300))) / slope
        nxt = math.sqrt(max(square, 0.0)) * (1.0 + _AIM)
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi) if nxt <= lo else hi
        if nxt >= hi * (1.0 - _AIM):
            break
        f_nxt = curve(nxt)
        if f_nxt <= 0.0:
            return nxt
        secant = (math.log(f_nxt) - math.log(max(fx, 1e-300))) / (nxt * nxt - x * x)
        slope = secant if secant < 0.0 else slope
        x, fx = nxt, f_nxt
        if fx > delta:
            lo = x
            continue
        hi = x
        if log_delta - math.log(fx) <= -slope * 2.0 * _STOP * x * x:
            break
    return hi
