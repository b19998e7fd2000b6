r"""The variation-ratio bound on shuffled reports (Wang et al., PVLDB 2024), in a sound form.

Wang et al. ("Privacy amplification via shuffling: unified, simplified, and tightened",
Proc. VLDB Endow. 2024, DOI 10.14778/3659437.3659444; preprint "Unified, tight and fast
privacy amplification in the shuffle model of differential privacy"; public code
wangsw/PrivacyAmplification, whose appendix holds the lemmas cited here) describe a
randomizer by three numbers, computed here exactly from the matrix
(`variation_ratio_parameters`):

- p, the largest ratio $M(y|x^0)/M(y|x^1)$ over pairs of inputs and outputs ($e^{ε_0}$);
- β, the largest total variation $\tfrac12 Σ_y |M(y|x^0) − M(y|x^1)|$ over pairs;
- q, the largest ratio $\max(M(y|x^0), M(y|x^1)) / M(y|x)$ over pairs, third inputs x and
  outputs y (again $e^{ε_0}$ for a matrix).

Their Lemma 4.4 splits, for a pair with total variation β' and $α = β'/(p − 1)$, user 1's
rows as $M(\cdot|x^0) = pα Q^0 + α Q^1 + m Q^*$ and $M(\cdot|x^1) = α Q^0 + pα Q^1 + m Q^*$,
$m = 1 − (p + 1)α$, and every other row as $r Q^0 + r Q^1 + (1 − 2r) Q_i$ with
$r = αp/q$. Their Lemma 4.5 then compares the counts of $Q^0$ and $Q^1$ draws with user 1's
neutral draw $Q^*$ pooled with all the others' $Q_i$ draws. That pooling is a
post-processing only when every $Q_i$ equals $Q^*$: in general the histogram tells user 1's
neutral draw apart more often, and the published bound is too small. For 3-ary randomized
response (ε₀ = 1, n = 2, the other user at $x^0$) the histogram's δ at ε = 0.82 is 0.054
while the published bound gives 0.020 (the tests reproduce both); with ε₀ = 4 and n = 300 the
gap persists at δ ≈ 1e-4.

The sound form splits every other row further, $M(\cdot|x) = r (Q^0 + Q^1) + s Q^* +
(1 − 2r − s) Q_x$, with r the largest the rows allow (at least the paper's αp/q) and s the
largest share of user 1's neutral law every row then holds. The histogram is a
post-processing of the labels: the counts of $Q^0$, $Q^1$ and $Q^*$ draws, and which users
drew their own $Q_x$ (independent of user 1). Pooling user 1's neutral draw with the others'
$Q^*$ draws is then exact, and the comparison is computed in ``_VariationRatioCurve``. Over
all pairs the bound takes the largest α and the smallest r and s: δ grows with α (user 1's
law is a mixture with a common part of weight m, and a hockey-stick divergence of such
mixtures is convex in the other weight and 0 at 0), and more draws of $Q^0$, $Q^1$ or $Q^*$
by the others are a post-processing (a user's own label can be redrawn as one of them).
With $s = 0$ user 1's neutral draw is seen, and the bound is m = 1 − (p + 1)α lighter than
the clone pair of Feldman, McMillan & Talwar at clone probability 2r; with m = 0 (binary
randomized response) it is the published bound and the blanket bound of
`optmech.certify.shuffle`.

Rounding: p, q and α are rounded up, r and s down; entries of $Q^*$ below 1e-9 relative
(rounding residues at outputs where the pair's ratio is p) are left out and their mass
charged to δ; binomial masses outside ±``_WIDTH`` standard deviations are charged whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from optmech._floats import FloatArray, IntArray, U

__all__ = ["VariationRatio", "variation_ratio_parameters"]

#: Relative rounding allowance of the parameters (a few ulps of each operation).
_ROUND = 1e-14
#: Relative allowance for SciPy's binomial functions and the sums.
_SLACK = 1e-12
#: Half-width of the binomial windows, in standard deviations (the rest is charged whole).
_WIDTH = 8.0
#: Absolute error of a difference of two binomial tails (each exact to a few units of 1e-15
#: relative, and at most 1).
_TAIL_ERROR = 64.0 * U
#: Entries of Q* at most this fraction of the pair's entry are rounding residues.
_RESIDUE = 1e-9
#: Most pairs (N, c) of bins: N others drawing a clone or the shared law, c shared draws seen.
_BUDGET = 8192
#: Pairs of the curve that brackets the crossing before the finer curves are searched.
_COARSE_BUDGET = 1024
#: Most pairs (N, c) of the curve with one integer a bin (no bin charged beyond its own value),
#: searched only near the crossing when it fits.
_FINE_BUDGET = 1 << 18
#: Bins beyond ±3 standard deviations are this many times wider.
_COARSE = 4


def _binom() -> Any:
    from optmech.certify._binomial import binom

    return binom


@dataclass(frozen=True)
class VariationRatio:
    """The variation-ratio parameters of a randomizer's matrix (Wang et al., PVLDB 2024) and
    the decomposition `shuffle_epsilon` uses.

    Attributes
    ----------
    p : float
        Largest ratio between two rows' entries of the same output (``e^ε₀``), rounded up.
    beta : float
        Largest total variation between two rows, rounded up.
    q : float
        Largest ratio of a pair's larger entry to a third row's entry (``e^ε₀`` for a
        matrix), rounded up.
    alpha : float
        ``β / (p − 1)``: user 1's draw is ``Q⁰`` with probability ``p α``, ``Q¹`` with ``α``,
        rounded up.
    r : float
        Probability that another user's draw is ``Q⁰`` (and ``Q¹``), the smallest over pairs,
        at least the paper's ``α p / q``; rounded down.
    s : float
        Probability that another user's draw is user 1's neutral law ``Q*``, the smallest over
        pairs; rounded down (0 when the pair has no neutral part).
    """

    p: float
    beta: float
    q: float
    alpha: float
    r: float
    s: float
    residue: float = 0.0


def variation_ratio_parameters(matrix: FloatArray) -> VariationRatio:
    """p, β, q and the decomposition (α, r, s) of a row-stochastic matrix, computed exactly
    from its entries and rounded outward.

    Parameters
    ----------
    matrix : ndarray, shape (k_in, k_out)
        ``M[x, y] = P(output y | input x)`` with a finite ε₀ (no zero facing a positive
        entry in a column) and two distinct rows; validated by `optmech.shuffle_epsilon`.

    Returns
    -------
    VariationRatio

    Examples
    --------
    >>> import math, numpy as np
    >>> e = math.exp(1.0)
    >>> krr = (e * np.eye(4) + (1 - np.eye(4))) / (e + 3)  # 4-ary randomized response
    >>> v = variation_ratio_parameters(krr)
    >>> bool(math.isclose(v.beta, (e - 1) / (e + 3))), bool(math.isclose(v.p, e))
    (True, True)
    >>> bool(math.isclose(v.r, 1 / (e + 3))), bool(math.isclose(v.s, 2 / (e + 3)))
    (True, True)
    """
    m = np.asarray(matrix, dtype=np.float64)
    m = m[:, m.max(axis=0) > 0.0]
    top, bottom = m.max(axis=0), m.min(axis=0)
    p = float(np.max(top / bottom))
    # q: max over pairs, third rows and outputs of max(M(y|x0), M(y|x1)) / M(y|x); the pair may
    # hold the column's largest entry, so q is the column's largest over smallest, as p.
    q = p
    beta = float(np.max(0.5 * np.abs(m[:, None, :] - m[None, :, :]).sum(axis=2)))
    up, down = 1.0 + _ROUND * m.shape[1], 1.0 - _ROUND * m.shape[1]
    p_up = p * up
    alpha, r, s, residue = _pair_decomposition(m, p_up)
    return VariationRatio(
        p=p_up,
        beta=min(1.0, beta * up),
        q=q * up,
        alpha=min(1.0 / (p_up + 1.0), alpha * up),
        r=max(0.0, r * down),
        s=max(0.0, s * down),
        residue=residue * up + 4.0 * U * m.shape[1],  # and the clipped rounding
    )


def _pair_decomposition(matrix: FloatArray, p: float) -> tuple[float, float, float, float]:
    """(α_max, r_min, s_min, residue) over the pairs of distinct rows (module docstring),
    unrounded; ``residue`` is the largest mass of user 1's law left out of the split (entries
    of Q* below ``_RESIDUE`` relative, rounding residues where the pair's ratio is p).

    For a pair with total variation β': α' = β'/(p − 1), Q⁰ + Q¹ = |M₀ − M₁| / β' and
    m' Q* = min(M₀, M₁) − |M₀ − M₁|/(p − 1); r' is the largest r with every row above
    r (Q⁰ + Q¹), and s' the largest s with every row above r' (Q⁰ + Q¹) + s Q*."""
    k = matrix.shape[0]
    alpha_max, r_min, s_min, residue = 0.0, 1.0, 1.0, 0.0
    floor = matrix.min(axis=0)  # every row is at least the column's smallest entry
    for i in range(k - 1):  # the pairs (i, j > i), vectorised over j
        rows = matrix[i + 1 :]
        diff = np.abs(rows - matrix[i])
        beta = 0.5 * diff.sum(axis=1)
        keep = beta > 0.0
        if not np.any(keep):
            continue
        rows, diff, beta = rows[keep], diff[keep], beta[keep]
        clones = diff / beta[:, None]
        star = np.maximum(np.minimum(rows, matrix[i]) - diff / (p - 1.0), 0.0)
        # Outputs where the pair's ratio is p: a rounding residue, left out (and charged).
        tiny = star <= _RESIDUE * np.maximum(rows, matrix[i])
        residue = max(residue, float(np.max(np.where(tiny, star, 0.0).sum(axis=1))))
        star[tiny] = 0.0
        m = star.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.min(np.where(clones > 0.0, floor / clones, np.inf), axis=1)
            r = np.minimum(r, 0.5)
            share = star / np.where(m > 0.0, m, 1.0)[:, None]
            rest = np.maximum(floor - r[:, None] * clones, 0.0)
            s_pair = np.min(np.where(share > 0.0, rest / share, np.inf), axis=1)
        s_pair = np.where(m > 1e-12, np.minimum(s_pair, 1.0 - 2.0 * r), 0.0)
        alpha_max = max(alpha_max, float(np.max(beta)) / (p - 1.0))
        r_min, s_min = min(r_min, float(np.min(r))), min(s_min, float(np.min(s_pair)))
    return alpha_max, r_min, s_min, residue


def _bins(total: int, prob: float, count: int) -> tuple[IntArray, IntArray, float]:
    """About ``count`` bins [start, end] of the integers within ±``_WIDTH`` standard
    deviations of Bin(total, prob), ``_COARSE`` times wider beyond ±3 standard deviations
    (where little mass lies), and the mass outside them."""
    binom = _binom()
    mean, sd = total * prob, math.sqrt(total * prob * (1.0 - prob))
    lo, hi = _window(total, prob)
    outside = float(binom.cdf(lo - 1, total, prob) + binom.sf(hi, total, prob))
    if hi - lo + 1 <= count:  # one integer a bin
        starts = np.arange(lo, hi + 1, dtype=np.int64)
        return starts, starts.copy(), outside
    inner_lo = max(lo, math.floor(mean - 3.0 * sd))
    inner_hi = min(hi, math.ceil(mean + 3.0 * sd))
    span = (inner_hi - inner_lo + 1) + ((inner_lo - lo) + (hi - inner_hi)) / _COARSE
    width = max(1, math.ceil(span / count))
    outer = width * _COARSE
    starts = np.concatenate(
        [
            np.arange(inner_lo - outer, lo - 1, -outer)[::-1],
            np.arange(inner_lo, inner_hi + 1, width),
            np.arange(inner_hi + 1, hi + 1, outer),
        ]
    ).astype(np.int64)
    starts = np.unique(np.maximum(np.append(starts, lo), lo))  # the first bin starts at lo
    ends = np.append(starts[1:] - 1, hi)
    return starts, ends, outside


def _window(total: int, prob: float) -> tuple[int, int]:
    """The integers within ±``_WIDTH`` standard deviations of Bin(total, prob), and 8 more."""
    mean, sd = total * prob, math.sqrt(total * prob * (1.0 - prob))
    lo = max(0, math.floor(mean - _WIDTH * sd - 8.0))
    return lo, min(total, math.ceil(mean + _WIDTH * sd + 8.0))


def _windows(total: IntArray, prob: float) -> tuple[IntArray, IntArray]:
    """`_window` of Bin(N, prob) for every N of ``total`` (the same bounds, vectorised)."""
    mean = total * prob
    sd = np.sqrt(total * prob * (1.0 - prob))
    lo = np.maximum(0, np.floor(mean - _WIDTH * sd - 8.0)).astype(np.int64)
    return lo, np.minimum(total, np.ceil(mean + _WIDTH * sd + 8.0)).astype(np.int64)


def full_pairs(others: int, params: VariationRatio) -> int:
    """Pairs (N, c) of `_VariationRatioCurve` with one integer a bin (0 when the pair has no
    neutral part shared with the others: then no bins of c are needed)."""
    lam = min(1.0, (params.p + 1.0) * params.alpha)
    pi = min(1.0, 2.0 * params.r + params.s)
    sigma = params.s / pi if pi > 0.0 else 0.0
    return _full_pairs(others, pi, sigma) if sigma > 0.0 and lam < 1.0 else 0


def _full_pairs(others: int, pi: float, sigma: float) -> int:
    """Pairs (N, c) of the curve with one integer a bin (`_VariationRatioCurve`)."""
    lo, hi = _window(others, pi)
    c_lo, c_hi = _windows(np.arange(lo, hi + 1, dtype=np.int64), sigma)
    return int(np.sum(c_hi - c_lo + 1))


def _mass(starts: IntArray, ends: IntArray, total: Any, prob: float) -> FloatArray:
    """P(start ≤ Bin(total, prob) ≤ end) per bin, as a difference of the two lower tails below
    the mean and of the two upper tails above it (each small where the bin is far out, so the
    difference keeps its relative accuracy there), at least 0."""
    binom = _binom()
    starts, ends, total = np.broadcast_arrays(starts, ends, total)
    upper = starts > total * prob
    out = np.empty(starts.shape)
    a, b, t = starts[upper], ends[upper], total[upper]
    out[upper] = binom.sf(a - 1, t, prob) - binom.sf(b, t, prob)
    a, b, t = starts[~upper], ends[~upper], total[~upper]
    out[~upper] = binom.cdf(b, t, prob) - binom.cdf(a - 1, t, prob)
    return np.maximum(out, 0.0)


def _bin_counts(others: int, pi: float, sigma: float, budget: int = _BUDGET) -> tuple[int, int]:
    """Bins of N and of c within ``budget`` pairs, split so that a bin's width is about the
    same fraction of N as of the clone count T = N + 1 − c (the loss of charging a bin its
    worst end is about that fraction)."""
    mean_n = max(1.0, others * pi)
    spread_n = math.sqrt(others * pi * (1.0 - pi)) / mean_n
    mean_t = max(1.0, mean_n * (1.0 - sigma))
    spread_c = math.sqrt(mean_n * sigma * (1.0 - sigma)) / mean_t
    if spread_n <= 0.0 or spread_c <= 0.0:
        return (1, budget) if spread_n <= 0.0 else (budget, 1)
    n_bins = math.sqrt(budget * spread_n / spread_c)
    n_bins = int(min(budget, max(1.0, n_bins)))
    return n_bins, max(1, budget // n_bins)


class _VariationRatioCurve:
    """δ(ε) of the variation-ratio comparison with user 1's neutral draw pooled with the
    others' shared draws only, over ``others`` other users; an upper bound.

    N others draw a clone or the shared law (observed: the rest are told apart), c draws are
    shared (observed). Given (N, c) the counts of Q⁰ and Q¹ draws, T = N + 1 − c in all, are
    a mixture, with the same weight w_c in both datasets, of FMT's clone pair (T − 1 other
    clones, user 1 a clone) and Bin(T, 1/2) (user 1 shared): the clone pair with user 1's
    Δ ~ Bern(u), u = (1 − w_c) p/(p + 1) + w_c/2. Its δ is non-increasing in w_c (a common
    mixture component) and in T (one more clone is a post-processing), and w_c grows with c:
    a bin of c is charged its first w and its last T. One more such other is a
    post-processing too, so a block of N is charged its first N."""

    def __init__(
        self, others: int, params: VariationRatio, budget: int = _BUDGET, negligible: float = 0.0
    ) -> None:
        binom = _binom()
        p = params.p
        self.eps0 = math.log(p)
        self.residue = params.residue
        lam = min(1.0, (p + 1.0) * params.alpha)  # user 1's draw is a clone
        m = 1.0 - lam
        r, s = params.r, params.s
        pi = min(1.0, 2.0 * r + s)
        sigma = s / pi if pi > 0.0 else 0.0
        shared = sigma > 0.0 and m > 0.0
        #: One integer a bin: no pair is charged beyond its own value.
        self.exact_bins = shared and _full_pairs(others, pi, sigma) <= budget
        if self.exact_bins:
            self._init_full(others, p, m, pi, sigma)
            self._prune(negligible)
            return
        n_bins, c_bins = _bin_counts(others, pi, sigma, budget) if shared else (budget // 8, 1)
        n_starts, n_ends, self.outside = _bins(others, pi, n_bins)
        n_mass = _mass(n_starts, n_ends, others, pi)
        c_counts = [0]
        u_all: list[FloatArray] = []
        t_all: list[IntArray] = []
        w_all: list[FloatArray] = []
        for big_n, mass in zip(n_starts.tolist(), n_mass.tolist(), strict=True):
            if shared:
                c1, c2, out = _bins(big_n, sigma, c_bins)
                c2 = np.append(c2[:-1], c2[-1] + 1)  # observed c runs one past the others'
                at = (1.0 - m) * _mass(c1, c2, big_n, sigma)
                at += m * _mass(c1 - 1, c2 - 1, big_n, sigma)
                # w at the bin's first c: user 1 shared, given c.
                one = m * binom.pmf(c1 - 1, big_n, sigma)
                w = np.where(one > 0.0, one / (one + (1.0 - m) * binom.pmf(c1, big_n, sigma)), 0.0)
                w = np.clip(w * (1.0 - 1e-12), 0.0, 1.0)
            else:  # no shared draws: user 1's shared draw is seen, and its slice has δ = 0
                c1 = c2 = np.zeros(1, dtype=np.int64)
                at, w, out = np.array([1.0 - m]), np.zeros(1), 0.0
            c_counts.append(c1.size)
            u_all.append((1.0 - w) * p / (p + 1.0) + 0.5 * w)
            t_all.append(big_n + 1 - c2)
            w_all.append(np.maximum(at, 0.0) * max(mass, 0.0) * (1.0 + _SLACK))
            self.outside += 2.0 * out * max(mass, 0.0)
        self.u = np.concatenate(u_all)
        self.trials = np.concatenate(t_all)
        self.weight = np.concatenate(w_all) + _SLACK * 1e-300
        # A difference of two tails is exact to a few ulps of the larger (``_TAIL_ERROR``),
        # charged absolutely: the bins of N carry at most that each, and those of c at most
        # that each times their N's mass (at most 1).
        self.outside += _TAIL_ERROR * (n_mass.size + max(c_counts))
        self._prune(negligible)

    def _prune(self, negligible: float) -> None:
        """Charge the lightest pairs whole (their δ is at most 1), as many as weigh at most
        ``negligible`` together: fewer pairs to evaluate at every ε."""
        if negligible <= 0.0:
            return
        order = np.argsort(self.weight)
        light = order[: int(np.searchsorted(np.cumsum(self.weight[order]), negligible, "right"))]
        if light.size == 0:
            return
        self.outside += float(np.sum(self.weight[light])) * (1.0 + 1e-9)
        keep = np.ones(self.weight.size, dtype=bool)
        keep[light] = False
        self.u, self.trials, self.weight = self.u[keep], self.trials[keep], self.weight[keep]

    def _init_full(self, others: int, p: float, m: float, pi: float, sigma: float) -> None:
        """One integer a bin, vectorised over the pairs (N, c): every pair carries its own w
        and T, and its mass from pmfs (accurate to a few ulps relative, where differences of
        cdfs are not); as the binned form, the last c of each N runs one past the window."""
        binom = _binom()
        n_lo, n_hi = _window(others, pi)
        big_n = np.arange(n_lo, n_hi + 1, dtype=np.int64)
        self.outside = float(binom.cdf(n_lo - 1, others, pi) + binom.sf(n_hi, others, pi))
        n_mass = np.maximum(binom.pmf(big_n, others, pi), 0.0)
        c_lo, c_hi = _windows(big_n, sigma)
        out = binom.cdf(c_lo - 1, big_n, sigma) + binom.sf(c_hi, big_n, sigma)
        self.outside += float(np.dot(2.0 * out, n_mass))
        sizes = c_hi - c_lo + 1
        row = np.repeat(np.arange(big_n.size), sizes)
        first = np.cumsum(sizes) - sizes
        index = np.arange(row.size) - first[row]
        c = c_lo[row] + index
        n_of = big_n[row]
        last = c == c_hi[row]  # this bin is [c, c + 1]
        # pmf of Bin(N, σ) at c_lo − 1 … c_hi + 1 for every N, read at c − 1, c and c + 1.
        flat = np.repeat(np.arange(big_n.size), sizes + 2)
        grid = c_lo[flat] - 1 + np.arange(flat.size) - (first + 2 * np.arange(big_n.size))[flat]
        pmf = binom.pmf(grid, big_n[flat], sigma)
        at_c = row * 2 + np.arange(row.size) + 1  # where c sits in `grid`
        below, here, above = pmf[at_c - 1], pmf[at_c], pmf[at_c + 1]
        at = (1.0 - m) * here + m * below
        at += np.where(last, (1.0 - m) * above + m * here, 0.0)
        one = m * below
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(one > 0.0, one / (one + (1.0 - m) * here), 0.0)
        w = np.clip(w * (1.0 - 1e-12), 0.0, 1.0)
        self.u = (1.0 - w) * p / (p + 1.0) + 0.5 * w
        self.trials = n_of + 1 - np.where(last, c + 1, c)
        mass = np.maximum(at, 0.0) * n_mass[row] * (1.0 + _SLACK)
        self.weight = mass + _SLACK * 1e-300

    def __call__(self, eps: float) -> float:
        if eps >= self.eps0:
            return 0.0
        from scipy.special import bdtrc

        e, u = math.exp(eps), self.u
        v = 1.0 - u
        t = self.trials
        tf = t.astype(np.float64)
        live = u > e * v  # else the likelihood ratio never exceeds e^ε: δ = 0
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = np.where(live, (e * u - v) / (u - e * v), 0.0)
            centre = np.floor(np.where(live, theta * tf / (1.0 + theta), tf + 2.0)) + 1.0
        others = np.maximum(t - 1, 0)  # B ~ Bin(T − 1, 1/2), the others' clones

        # tails[i] = P(B ≥ centre − 2 + i): the last from the incomplete beta function, the
        # others adding pmfs (a few ulps each, and an eighth of its cost).
        start = centre + 1.0
        inner = bdtrc(np.clip(start - 1.0, 0.0, others), others, 0.5)
        tails = [np.where(start <= 0.0, 1.0, np.where(start > others, 0.0, inner))]
        for i in (0.0, -1.0, -2.0):
            point = _binom().pmf(centre + i, others, 0.5)
            tails.insert(0, np.minimum(tails[0] + point, 1.0))
        best = np.zeros_like(tf)
        for i in range(3):  # the set a ≥ centre − 1 + i
            value = (u - e * v) * tails[i] + (v - e * u) * tails[i + 1]
            best = np.maximum(best, value + _SLACK * (1.0 + e) * (tails[i] + tails[i + 1]))
        best = np.where(live, np.minimum(best, 1.0), 0.0)
        total = float(np.dot(self.weight, best)) + self.outside
        total += 2.0 * (1.0 + e) * self.residue
        return min(1.0, total * (1.0 + _SLACK))
