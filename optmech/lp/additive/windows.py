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
from typing import Literal

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray

__all__ = [
    "WINDOW_METHODS",
    "WindowSystem",
    "choose_window_method",
    "window_size",
    "window_system",
]


Method = Literal["pairs", "sparse-table", "blocks"]
WINDOW_METHODS: tuple[str, ...] = ("pairs", "sparse-table", "blocks")

#: "auto" uses all pairs while they need at most this many rows, the block form above it.
#: Measured (benchmarks/bench_additive.py, HiGHS and Clarabel): the block form is as fast on
#: tiny LPs and 3-40x faster from a few thousand pair rows on (m = 50, 10 periods, full LP:
#: 0.2-0.8 s against 2.4-8 s with all pairs; the sparse table sits in between, 3-6 s).
PAIRS_MAX_ROWS = 2_000


@dataclass(frozen=True)
class WindowSystem:
    """Rows ``A_g @ g + A_u @ u ≤ 0`` with ``u ≥ 0``.

    Attributes
    ----------
    a_g : scipy.sparse.csr_matrix
        Coefficients of the cells, shape ``(rows, n)``.
    a_u : scipy.sparse.csr_matrix
        Coefficients of the auxiliaries, shape ``(rows, num_aux)``.
    num_aux : int
        Number of auxiliary variables.
    method : str
        The form used.
    block : int
        Block length ``2r + 1`` of the ``"blocks"`` form (0 otherwise).
    levels : int
        Levels of the ``"sparse-table"`` form (0 otherwise).
    """

    a_g: sp.csr_matrix
    a_u: sp.csr_matrix
    num_aux: int
    method: str
    block: int = 0
    levels: int = 0

    def canonical_aux(self, g: FloatArray) -> FloatArray:
        """The largest feasible auxiliaries for ``g``: each one the minimum of its block.

        Monotone in ``g``; used by `residual`, and with ``g`` an upper bound of the
        cells it bounds every auxiliary at an optimum (the LP's certified interval).
        """
        return _canonical_aux(self, g)

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
    """``"pairs"`` while it has at most `PAIRS_MAX_ROWS` rows, ``"blocks"``
    above."""
    rows, _, _ = window_size(n, reach, "pairs")
    return "pairs" if rows <= PAIRS_MAX_ROWS else "blocks"


# -- builders ---------------------------------------------------------------------------------
def _rows(
    n_rows: int,
    cols_g: list[tuple[IntArray, float | FloatArray]],
    cols_u: list[tuple[IntArray, float | FloatArray]],
    n: int,
    n_aux: int,
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Assemble two CSR matrices; each list item gives, per row, a column and a coefficient."""

    def build(items: list[tuple[IntArray, float | FloatArray]], width: int) -> sp.csr_matrix:
        if not items:
            return sp.csr_matrix((n_rows, width))
        rows = np.concatenate([np.flatnonzero(c >= 0) for c, _ in items])
        cols = np.concatenate([c[c >= 0] for c, _ in items])
        vals = np.concatenate(
            [np.broadcast_to(np.asarray(v, dtype=np.float64), c.shape)[c >= 0] for c, v in items]
        )
        return sp.csr_matrix((vals, (rows, cols)), shape=(n_rows, width))

    return build(cols_g, n), build(cols_u, n_aux)


def _pairs(n: int, r: int, factor: float) -> WindowSystem:
    shifts = np.arange(1, r + 1)
    counts = n - shifts
    s = np.repeat(shifts, counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    i = np.arange(s.size) - np.repeat(starts, counts)
    j = i + s
    total = i.size
    rows = np.arange(2 * total)
    # g_i − f g_j ≤ 0 and g_j − f g_i ≤ 0.
    left = np.concatenate([i, j])
    right = np.concatenate([j, i])
    a_g = sp.csr_matrix(
        (
            np.concatenate([np.ones(2 * total), np.full(2 * total, -factor)]),
            (np.concatenate([rows, rows]), np.concatenate([left, right])),
        ),
        shape=(2 * total, n),
    )
    return WindowSystem(a_g, sp.csr_matrix((2 * total, 0)), 0, "pairs")


def _windows(n: int, r: int) -> tuple[IntArray, IntArray]:
    i = np.arange(n)
    return np.maximum(i - r, 0), np.minimum(i + r, n - 1)


def _sparse_table(n: int, r: int, factor: float) -> WindowSystem:
    levels = _levels(n, r)
    sizes = np.array([n - 2**level + 1 for level in range(1, levels + 1)], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n_aux = int(offsets[-1])
    # Level-l auxiliary k sits at column offsets[l-1] + k; level 0 is g itself.
    row_parts_g: list[tuple[IntArray, float | FloatArray]] = []
    row_parts_u: list[tuple[IntArray, float | FloatArray]] = []
    # Doubling rows: u^(l)_k − u^(l−1)_k ≤ 0 and u^(l)_k − u^(l−1)_{k+2^(l−1)} ≤ 0.
    dbl_self, dbl_prev, dbl_prev_is_g = [], [], []
    for level in range(1, levels + 1):  # O(log r) levels, each one vectorised block
        k = np.arange(sizes[level - 1])
        me = offsets[level - 1] + k
        half = 2 ** (level - 1)
        for prev in (k, k + half):
            dbl_self.append(me)
            if level == 1:
                dbl_prev.append(prev)
                dbl_prev_is_g.append(np.ones(k.size, dtype=bool))
            else:
                dbl_prev.append(offsets[level - 2] + prev)
                dbl_prev_is_g.append(np.zeros(k.size, dtype=bool))
    me_all = np.concatenate(dbl_self)
    prev_all = np.concatenate(dbl_prev)
    is_g = np.concatenate(dbl_prev_is_g)
    n_dbl = me_all.size
    # Window rows: g_i − f u^(l_i)_{lo} ≤ 0 and g_i − f u^(l_i)_{hi − 2^l + 1} ≤ 0.
    lo, hi = _windows(n, r)
    width = hi - lo + 1
    lvl = np.floor(np.log2(width)).astype(np.int64)
    use = lvl >= 1
    i = np.arange(n)[use]
    lvl_u = lvl[use]
    col_a = offsets[lvl_u - 1] + lo[use]
    col_b = offsets[lvl_u - 1] + hi[use] - 2**lvl_u + 1
    n_win = 2 * i.size
    n_rows = n_dbl + n_win
    minus = np.full(n_rows, -1, dtype=np.int64)
    # g columns: previous level when it is g (rows of level 1), and the window rows.
    g_cols = minus.copy()
    g_cols[:n_dbl] = np.where(is_g, prev_all, -1)
    g_cols[n_dbl:] = np.concatenate([i, i])
    g_vals = np.where(np.arange(n_rows) < n_dbl, -1.0, 1.0)
    row_parts_g.append((g_cols, g_vals))
    # u columns: self (+1) on doubling rows, previous (−1) when it is an aux, window (−f).
    u_self = minus.copy()
    u_self[:n_dbl] = me_all
    row_parts_u.append((u_self, 1.0))
    u_prev = minus.copy()
    u_prev[:n_dbl] = np.where(is_g, -1, prev_all)
    row_parts_u.append((u_prev, -1.0))
    u_win = minus.copy()
    u_win[n_dbl:] = np.concatenate([col_a, col_b])
    row_parts_u.append((u_win, -factor))
    a_g, a_u = _rows(n_rows, row_parts_g, row_parts_u, n, n_aux)
    return WindowSystem(a_g, a_u, n_aux, "sparse-table", levels=levels)


def _blocks(n: int, r: int, factor: float) -> WindowSystem:
    w = 2 * r + 1
    k = np.arange(n)
    start = k % w == 0
    end = (k % w == w - 1) | (k == n - 1)
    # Auxiliaries: P_k at column k, S_k at column n + k.
    pre, suf = k, n + k
    lo, hi = _windows(n, r)
    same = (lo // w) == (hi // w)
    use_p = ~same | (lo % w == 0)  # window needs P_hi unless it ends a block inside S_lo
    use_s = ~same | ~(lo % w == 0)
    minus = np.full(n, -1, dtype=np.int64)
    # Row groups (each of length n, unused rows dropped afterwards):
    # 0: P_k − g_k ≤ 0; 1: P_k − P_{k−1} ≤ 0 (not at block start);
    # 2: S_k − g_k ≤ 0; 3: S_k − S_{k+1} ≤ 0 (not at block end);
    # 4: g_i − f P_hi ≤ 0; 5: g_i − f S_lo ≤ 0.
    g_col = np.concatenate([k, minus, k, minus, np.where(use_p, k, -1), np.where(use_s, k, -1)])
    g_val = np.concatenate([-np.ones(2 * n), -np.ones(2 * n), np.ones(2 * n)])
    u_self = np.concatenate(
        [pre, np.where(start, -1, pre), suf, np.where(end, -1, suf), minus, minus]
    )
    u_prev = np.concatenate(
        [minus, np.where(start, -1, pre - 1), minus, np.where(end, -1, suf + 1), minus, minus]
    )
    u_win = np.concatenate(
        [minus, minus, minus, minus, np.where(use_p, pre[hi], -1), np.where(use_s, suf[lo], -1)]
    )
    keep = (g_col >= 0) | (u_self >= 0)
    rows_kept = np.flatnonzero(keep)
    n_rows = rows_kept.size

    def sel(a: IntArray) -> IntArray:
        return a[rows_kept]

    g_vals = g_val[rows_kept]
    a_g, a_u = _rows(
        n_rows,
        [(sel(g_col), g_vals)],
        [(sel(u_self), 1.0), (sel(u_prev), -1.0), (sel(u_win), -factor)],
        n,
        2 * n,
    )
    return WindowSystem(a_g, a_u, 2 * n, "blocks", block=w)


def window_system(n: int, reach: int, factor: float, *, method: str = "auto") -> WindowSystem:
    """Rows enforcing ``g_i ≤ factor·g_j`` for all ``|i − j| ≤ reach`` on an array of length n.

    Parameters
    ----------
    n : int
        Length of the array ``g``.
    reach : int
        Largest index distance constrained (``m`` cells per Δ).
    factor : float
        ``e^ε``.
    method : {"auto", "pairs", "sparse-table", "blocks"}
        The form (module docstring); "auto" is `choose_window_method`.
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


def _canonical_aux(system: WindowSystem, g: FloatArray) -> FloatArray:
    """The auxiliaries set to the minima they stand for (module docstring), vectorised.

    ``"blocks"``: prefix minima ``P`` and suffix minima ``S`` inside each block of ``2r + 1``
    cells; ``"sparse-table"``: ``u^(l)_k = min g[k : k + 2^l]`` level by level. These are the
    largest auxiliaries the rows with one auxiliary on the left allow, and every row holds at
    ``(g, canonical_aux(g))`` iff ``g`` satisfies the window (the window rows are left to the
    caller). Clipped at 0, as the auxiliaries are.
    """
    n = system.a_g.shape[1]
    if system.num_aux == 0:
        return np.zeros(0)
    garr = np.asarray(g, dtype=np.float64)
    if system.method == "blocks":
        w = system.block
        blocks = -(-n // w)
        padded = np.full(blocks * w, np.inf)
        padded[:n] = garr
        grid = padded.reshape(blocks, w)
        prefix = np.minimum.accumulate(grid, axis=1).reshape(-1)[:n]
        suffix = np.minimum.accumulate(grid[:, ::-1], axis=1)[:, ::-1].reshape(-1)[:n]
        out = np.concatenate([prefix, suffix])
    else:
        levels = []
        prev = garr
        for level in range(1, system.levels + 1):
            half = 2 ** (level - 1)
            size = n - 2**level + 1
            cur = np.minimum(prev[:size], prev[half : half + size])
            levels.append(cur)
            prev = cur
        out = np.concatenate(levels)
    return np.maximum(out, 0.0)
