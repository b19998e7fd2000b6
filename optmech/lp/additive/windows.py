"""Window constraints ``g_i ≤ e^ε g_j`` for ``|i − j| ≤ r``, in three exactly equivalent forms.

A density constant on cells of width ``h = Δ/m`` (or on any Δ-periodic partition with ``m`` cells
per Δ, `optmech.mechanisms.graded`) is ε-DP on ℝ iff every pair of
cells at most ``r = m`` apart has ratio at most ``e^ε`` (Geng & Viswanath 2016; chaining neighbours
only is *not* enough: it gives ``mε``). This module writes that family of constraints as sparse rows

    A_g @ g + A_u @ u ≤ 0,      u ≥ 0 auxiliary,

in one of three forms whose feasible sets, projected onto ``g``, coincide:

``"pairs"``
    Every pair: ``2·Σ_{s=1..r} (n − s) ≈ 2rn`` rows, no auxiliary variable. Best for small r.
``"sparse-table"``
    Range minima by doubling: ``u^(l)_k ≤ u^(l−1)_k``, ``u^(l)_k ≤ u^(l−1)_{k+2^(l−1)}`` (with
    ``u^(0) = g``) make ``u^(l)_k ≤ min g[k : k + 2^l]``; the window ``[i − r, i + r]`` (clipped
    to the array) is covered by two blocks of length ``2^l ≤`` its length, and
    ``g_i ≤ e^ε u^(l)`` on both. About ``n·log2(2r)`` auxiliaries and ``3n·log2(2r)`` rows.
``"blocks"``
    Van Herk / Gil–Werman sliding minima: cut the array into blocks of ``w = 2r + 1`` cells;
    prefix minima ``P_k ≤ g_k, P_k ≤ P_{k−1}`` and suffix minima ``S_k ≤ g_k, S_k ≤ S_{k+1}``
    inside each block. A window of length ``≤ w`` meets at most two blocks, so its minimum is
    ``min(S_lo, P_hi)`` (one of them when the window starts at a block start or ends at the
    array's end). ``2n`` auxiliaries and at most ``6n`` rows, *independent of r*.

Why the projections coincide: given a feasible ``g``, setting every auxiliary to the minimum of
its block satisfies all rows (so the auxiliary form is no stronger); conversely every auxiliary
is at most the minimum of cells *inside* the window it stands for, so ``g_i ≤ e^ε u`` implies
``g_i ≤ e^ε g_j`` for every ``j`` in the window (no weaker). The tests check both directions on
random points with an independent LP, and that the LP optima agree.

Examples
--------
>>> import numpy as np
>>> sys_ = window_system(6, 2, 2.0, method="blocks")
>>> g = np.array([1.0, 1.5, 2.0, 1.5, 1.0, 0.8])
>>> bool(np.all(sys_.residual(g) <= 1e-12))        # ratios within 2 cells are ≤ 2
True
>>> bool(np.all(window_system(6, 2, 1.5, method="pairs").residual(g) <= 1e-12))
False
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray

__all__ = ["WINDOW_METHODS", "WindowSystem", "choose_window_method", "window_size", "window_system"]


WINDOW_METHODS: tuple[str, ...] = ("pairs", "sparse-table", "blocks")

#: "auto" uses all pairs while they need at most this many rows, the block form above it.
#: Measured (benchmarks/bench_additive.py, HiGHS and Clarabel): the block form is as fast on
#: tiny LPs and 3-40x faster from a few thousand pair rows on (m = 50, 10 periods, full LP:
#: 0.2-0.8 s against 2.4-8 s with all pairs; the sparse table sits in between, 3-6 s).
PAIRS_MAX_ROWS = 2_000


@dataclass(frozen=True)
class WindowSystem:
    """Rows ``A_g @ g + A_u @ u ≤ 0`` with ``u ≥ 0`` (``num_aux`` auxiliaries) in the form
    ``method``; ``block`` is the block length ``2r + 1`` of ``"blocks"``, ``levels`` the levels of
    ``"sparse-table"`` (0 otherwise).
    """

    a_g: sp.csr_matrix
    a_u: sp.csr_matrix
    num_aux: int
    method: str
    block: int = 0
    levels: int = 0

    def canonical_aux(self, g: FloatArray) -> FloatArray:
        """The largest feasible auxiliaries for ``g``: each one the minimum of its block
        (``"blocks"``: prefix and suffix minima inside each block of ``2r + 1`` cells;
        ``"sparse-table"``: ``u^(l)_k = min g[k : k + 2^l]``), clipped at 0 as the auxiliaries
        are; every row holds at ``(g, canonical_aux(g))`` iff ``g`` satisfies the window.

        Monotone in ``g``; used by `residual`, and with ``g`` an upper bound of the
        cells it bounds every auxiliary at an optimum (the LP's certified interval).
        """
        n = self.a_g.shape[1]
        if self.num_aux == 0:
            return np.zeros(0)
        garr = np.asarray(g, dtype=np.float64)
        if self.method == "blocks":
            w = self.block
            blocks = -(-n // w)
            padded = np.full(blocks * w, np.inf)
            padded[:n] = garr
            grid = padded.reshape(blocks, w)
            prefix = np.minimum.accumulate(grid, axis=1).reshape(-1)[:n]
            suffix = np.minimum.accumulate(grid[:, ::-1], axis=1)[:, ::-1].reshape(-1)[:n]
            out = np.concatenate([prefix, suffix])
        else:
            levels, prev = [], garr
            for level in range(1, self.levels + 1):
                half = 2 ** (level - 1)
                prev = np.minimum(prev[: n - 2 * half + 1], prev[half : n - half + 1])
                levels.append(prev)
            out = np.concatenate(levels)
        return np.maximum(out, 0.0)

    def residual(self, g: npt.ArrayLike) -> FloatArray:
        """Row values at ``(g, canonical_aux(g))``: all ≤ 0 iff ``g`` satisfies the windows."""
        garr = np.asarray(g, dtype=np.float64)
        u = self.canonical_aux(garr)
        return np.asarray(self.a_g @ garr + self.a_u @ u, dtype=np.float64)


# -- sizes ----------------------------------------------------------------------------------
def _levels(n: int, reach: int) -> int:
    return int(np.floor(np.log2(max(min(n, 2 * reach + 1), 1))))


def window_size(n: int, reach: int, method: str) -> tuple[int, int, int]:
    """``(rows, auxiliaries, nonzeros)`` of a window system, computed without building it."""
    r = min(reach, n - 1)
    if r <= 0:
        return 0, 0, 0
    if method == "pairs":
        rows = 2 * (r * n - r * (r + 1) // 2)
        return rows, 0, 2 * rows
    if method == "sparse-table":
        levels = _levels(n, r)
        aux = sum(n - 2**level + 1 for level in range(1, levels + 1))
        rows = 2 * aux + 2 * n
        return rows, aux, 2 * rows
    if method == "blocks":
        rows = 6 * n
        return rows, 2 * n, 2 * rows
    raise ValueError(f"`window` must be one of {WINDOW_METHODS} or 'auto'; got {method!r}.")


def choose_window_method(n: int, reach: int) -> str:
    """``"pairs"`` while it has at most `PAIRS_MAX_ROWS` rows, ``"blocks"`` above."""
    rows, _, _ = window_size(n, reach, "pairs")
    return "pairs" if rows <= PAIRS_MAX_ROWS else "blocks"


# -- builders ---------------------------------------------------------------------------------
def _unit_rows(cols: IntArray, width: int) -> sp.csr_matrix:
    """One row per entry of ``cols``, with a 1 in that column."""
    return sp.csr_matrix(
        (np.ones(cols.size), (np.arange(cols.size), cols)), shape=(cols.size, width)
    )


def pair_rows(a: IntArray, b: IntArray, factor: float, n: int) -> sp.csr_matrix:
    """Rows ``g_a − factor·g_b ≤ 0``."""
    k = a.size
    rows = np.concatenate([np.arange(k), np.arange(k)])
    return sp.csr_matrix(
        (np.concatenate([np.ones(k), np.full(k, -factor)]), (rows, np.concatenate([a, b]))),
        shape=(k, n),
    )


def both_ways(a: IntArray, b: IntArray, factor: float, n: int) -> sp.csr_matrix:
    """Rows ``g_a − factor·g_b ≤ 0``, then ``g_b − factor·g_a ≤ 0``."""
    return sp.vstack([pair_rows(a, b, factor, n), pair_rows(b, a, factor, n)], format="csr")


def _pairs(n: int, r: int, factor: float) -> WindowSystem:
    shifts = np.arange(1, r + 1)
    counts = n - shifts
    s = np.repeat(shifts, counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    i = np.arange(s.size) - np.repeat(starts, counts)
    a_g = both_ways(i, i + s, factor, n)
    return WindowSystem(a_g, sp.csr_matrix((a_g.shape[0], 0)), 0, "pairs")


def _windows(n: int, r: int) -> tuple[IntArray, IntArray]:
    i = np.arange(n)
    return np.maximum(i - r, 0), np.minimum(i + r, n - 1)


def _sparse_table(n: int, r: int, factor: float) -> WindowSystem:
    levels = _levels(n, r)
    sizes = [n - 2**level + 1 for level in range(1, levels + 1)]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_aux = int(offsets[-1])
    # Level-l auxiliary k sits at column offsets[l-1] + k; level 0 is g itself. Doubling rows:
    # u^(l)_k − u^(l−1)_k ≤ 0 and u^(l)_k − u^(l−1)_{k+2^(l−1)} ≤ 0.
    on_g, on_u = [], []
    for level in range(1, levels + 1):  # O(log r) levels, each one vectorised block
        k = np.arange(sizes[level - 1])
        me = _unit_rows(offsets[level - 1] + k, n_aux)
        for prev in (k, k + 2 ** (level - 1)):
            if level == 1:
                on_g.append(-_unit_rows(prev, n))
                on_u.append(me)
            else:
                on_g.append(sp.csr_matrix((k.size, n)))
                on_u.append(me - _unit_rows(offsets[level - 2] + prev, n_aux))
    # Window rows: g_i − f u^(l_i)_{lo} ≤ 0 and g_i − f u^(l_i)_{hi − 2^l + 1} ≤ 0.
    lo, hi = _windows(n, r)
    lvl = np.floor(np.log2(hi - lo + 1)).astype(np.int64)
    i = np.flatnonzero(lvl >= 1)
    top = lvl[i]
    for col in (offsets[top - 1] + lo[i], offsets[top - 1] + hi[i] - 2**top + 1):
        on_g.append(_unit_rows(i, n))
        on_u.append(-factor * _unit_rows(col, n_aux))
    a_g, a_u = sp.vstack(on_g, format="csr"), sp.vstack(on_u, format="csr")
    return WindowSystem(a_g, a_u, n_aux, "sparse-table", levels=levels)


def _blocks(n: int, r: int, factor: float) -> WindowSystem:
    """Prefix minima ``P_k`` (columns ``k``) and suffix minima ``S_k`` (columns ``n + k``) in
    blocks of ``w`` cells: ``P_k − g_k ≤ 0``, ``P_k − P_{k−1} ≤ 0`` (not at a block's start),
    ``S_k − g_k ≤ 0``, ``S_k − S_{k+1} ≤ 0`` (not at its end), then ``g_i − f P_hi ≤ 0`` and
    ``g_i − f S_lo ≤ 0`` where the window needs them."""
    w = 2 * r + 1
    k = np.arange(n)
    lo, hi = _windows(n, r)
    same, at_start = (lo // w) == (hi // w), lo % w == 0
    use_p = ~same | at_start  # window needs P_hi unless it ends a block inside S_lo
    use_s = ~same | ~at_start
    after = k[k % w != 0]
    before = k[(k % w != w - 1) & (k != n - 1)]
    a_u = sp.vstack(
        [
            _unit_rows(k, 2 * n),
            _unit_rows(after, 2 * n) - _unit_rows(after - 1, 2 * n),
            _unit_rows(n + k, 2 * n),
            _unit_rows(n + before, 2 * n) - _unit_rows(n + before + 1, 2 * n),
            -factor * _unit_rows(hi[use_p], 2 * n),
            -factor * _unit_rows(n + lo[use_s], 2 * n),
        ],
        format="csr",
    )
    a_g = sp.vstack(
        [
            -_unit_rows(k, n),
            sp.csr_matrix((after.size, n)),
            -_unit_rows(k, n),
            sp.csr_matrix((before.size, n)),
            _unit_rows(k[use_p], n),
            _unit_rows(k[use_s], n),
        ],
        format="csr",
    )
    return WindowSystem(a_g, a_u, 2 * n, "blocks", block=w)


def window_system(n: int, reach: int, factor: float, *, method: str = "auto") -> WindowSystem:
    """Rows enforcing ``g_i ≤ factor·g_j`` (``factor = e^ε``) for all ``|i − j| ≤ reach`` (``m``
    cells per Δ) on an array of length n, in the form ``method`` (module docstring; "auto" is
    `choose_window_method`).
    """
    r = min(int(reach), n - 1)
    if method == "auto":
        method = choose_window_method(n, r)
    if method not in WINDOW_METHODS:
        raise ValueError(f"`window` must be one of {WINDOW_METHODS} or 'auto'; got {method!r}.")
    if r <= 0:
        return WindowSystem(sp.csr_matrix((0, n)), sp.csr_matrix((0, 0)), 0, method)
    if method == "pairs":
        return _pairs(n, r, factor)
    if method == "sparse-table":
        return _sparse_table(n, r, factor)
    return _blocks(n, r, factor)
