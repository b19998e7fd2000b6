"""Window constraints ``g(p) ≤ e^ε g(p + d)`` for ``d`` in a 2-D footprint, in two forms.

A density constant on the cells of an ``n × n`` box is ε-DP for the pairs inside the box iff
``g(p) ≤ e^ε g(q)`` whenever ``q − p`` lies in the footprint ``F`` of the ball
(`optmech.certify.noise2d.footprint`); as ``F = −F``, it suffices to impose, at every cell ``p``,
``g(p) ≤ e^ε min_{q ∈ p + F} g(q)`` (clipped to the box). With a symmetry group acting on the box,
the rows are needed at one cell per orbit only (``rows_at``): the rows of the other cells are their
images. Two forms with the same projection onto ``g``:

``"pairs"``
    One row per pair: ``|rows_at| · |F|`` rows (``|F| ≈ 4m²`` for the ℓ∞ ball at ``m`` cells
    per Δ), no auxiliary variable. The reference.
``"runs"``
    The footprint's rows are intervals ``|d₂| ≤ L(d₁)`` (the balls are convex and symmetric),
    so ``min_{p+F} g = min_{d₁} min g[i + d₁, j − L(d₁) : j + L(d₁)]``. A sparse table along
    each row of the box, ``T_l(i, j) ≤ min g[i, j : j + 2^l]`` built by doubling
    (``T_l(i, j) ≤ T_{l−1}(i, j)``, ``T_l(i, j) ≤ T_{l−1}(i, j + 2^(l−1))``, ``T_0 = g``), covers
    every interval by two overlapping blocks of length ``2^l``, so each ``(p, d₁)`` costs two
    rows ``g(p) ≤ e^ε T_l(·)``. About ``n² log₂(2m + 1)`` auxiliaries and ``2(2w + 1)`` rows per
    cell of ``rows_at`` (``w ≈ m``): with the 8-fold symmetry, ``O(n² (log m + m/4))`` rows
    against ``O(n² m²/8)`` for the pairs. Auxiliaries that no kept row needs are pruned (the
    doubling rows of an auxiliary are kept with it), which changes nothing: a removed auxiliary
    appears in no kept row.

Why the projections coincide (as in 1-D, `optmech.lp.additive.windows`): every auxiliary is at most
the minimum of cells inside the interval it stands for, so its rows imply the pairs; and given
``g`` satisfying the pairs, setting each auxiliary to that minimum (`canonical_aux`)
satisfies every row. ``tests/test_additive2d_windows.py`` checks both directions on random
points and that the LP optima agree.

Examples
--------
>>> import numpy as np
>>> from optmech.certify.noise2d import row_half_widths
>>> widths = row_half_widths("linf", 2)
>>> runs = window_system_2d(6, widths, 2.0, method="runs")
>>> g = np.ones((6, 6)); g[2, 3] = 1.9
>>> bool(np.all(runs.residual(g.ravel()) <= 1e-12)), runs.num_aux > 0
(True, True)
>>> g[2, 3] = 2.1
>>> bool(np.all(window_system_2d(6, widths, 2.0, method="pairs").residual(g.ravel()) <= 0))
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray

__all__ = ["WINDOW_METHODS_2D", "WindowSystem2D", "window_size_2d", "window_system_2d"]


WINDOW_METHODS_2D = ("pairs", "runs")


@dataclass(frozen=True)
class WindowSystem2D:
    """Rows ``a_g @ g + a_u @ u ≤ 0`` (``u ≥ 0``) over the ``n²`` cells of a box (row-major).

    Attributes
    ----------
    a_g, a_u : scipy.sparse.csr_matrix
        Coefficients of the cells and of the auxiliaries.
    method : str
        ``"pairs"`` or ``"runs"``.
    n : int
        Cells per side of the box.
    levels : tuple of ndarray
        ``"runs"``: for each level ``l = 1, 2, …`` the flat index ``i·(n − 2^l + 1) + j`` of
        each kept auxiliary of that level, in column order.
    """

    a_g: sp.csr_matrix
    a_u: sp.csr_matrix
    method: str
    n: int
    levels: tuple[IntArray, ...] = ()

    @property
    def num_aux(self) -> int:
        """Number of auxiliary variables."""
        return int(self.a_u.shape[1])

    def canonical_aux(self, g: npt.ArrayLike) -> FloatArray:
        """The largest feasible auxiliaries: each the minimum of its interval (clipped at 0)."""
        if not self.levels:
            return np.zeros(0)
        out, prev = [], np.asarray(g, dtype=np.float64).reshape(self.n, self.n)
        for level, kept in enumerate(self.levels, start=1):
            half = 2 ** (level - 1)
            size = self.n - 2**level + 1
            prev = np.minimum(prev[:, :size], prev[:, half : half + size])
            out.append(prev.reshape(-1)[kept])
        return np.maximum(np.concatenate(out), 0.0)

    def residual(self, g: npt.ArrayLike) -> FloatArray:
        """Row values at ``(g, canonical_aux(g))``: all ≤ 0 iff ``g`` satisfies the window."""
        garr = np.asarray(g, dtype=np.float64).reshape(-1)
        return np.asarray(self.a_g @ garr + self.a_u @ self.canonical_aux(garr))


def _matrix(parts: list[tuple[IntArray, IntArray, FloatArray]], shape: tuple[int, int]) -> Any:
    """The CSR matrix of ``(rows, columns, values)`` triplets, in order."""
    rows, cols, vals = (np.concatenate(x) for x in zip(*parts, strict=True))
    return sp.csr_matrix((vals, (rows, cols)), shape=shape)


def _pairs(n: int, widths: IntArray, factor: float, rows_at: IntArray) -> WindowSystem2D:
    w = (widths.size - 1) // 2
    d1 = np.repeat(np.arange(-w, w + 1), 2 * widths + 1).astype(np.int64)
    d2 = np.concatenate([np.arange(-L, L + 1) for L in widths.tolist()]).astype(np.int64)
    keep = (d1 != 0) | (d2 != 0)
    d1, d2 = d1[keep], d2[keep]
    i, j = np.divmod(rows_at, n)
    qi = i[:, None] + d1[None, :]
    qj = j[:, None] + d2[None, :]
    inside = (qi >= 0) & (qi < n) & (qj >= 0) & (qj < n)
    p = np.broadcast_to(rows_at[:, None], qi.shape)[inside]
    q = (qi * n + qj)[inside]
    rows = np.arange(p.size)
    a_g = _matrix(
        [(rows, p, np.ones(p.size)), (rows, q, np.full(p.size, -factor))], (p.size, n * n)
    )
    return WindowSystem2D(a_g, sp.csr_matrix((p.size, 0)), "pairs", n)


def _runs(n: int, widths: IntArray, factor: float, rows_at: IntArray) -> WindowSystem2D:
    # Per (cell, d₁): the cell, the row it reads, the level and the two block starts.
    w = (widths.size - 1) // 2
    i, j = np.divmod(rows_at, n)
    row = i[:, None] + np.arange(-w, w + 1)[None, :]
    lo = np.maximum(j[:, None] - widths[None, :], 0)
    hi = np.minimum(j[:, None] + widths[None, :], n - 1)
    use = (row >= 0) & (row < n)
    cell = np.broadcast_to(rows_at[:, None], row.shape)[use]
    row, lo, hi = row[use], lo[use], hi[use]
    level = np.floor(np.log2(hi - lo + 1)).astype(np.int64)
    start_a, start_b = lo, hi - 2**level + 1
    top = int(level.max(initial=0))
    # T_l(i, j), j ≤ n − 2^l, is entry base[l − 1] + i·(n − 2^l + 1) + j of one flat array.
    base = np.cumsum([0] + [n * (n - 2**lv + 1) for lv in range(1, top + 1)]).astype(np.int64)
    single, many = level == 0, level > 0
    lv = level[many]
    flat = [base[lv - 1] + row[many] * (n - 2**lv + 1) + s[many] for s in (start_a, start_b)]
    need = np.zeros(int(base[-1]), dtype=bool)
    need[np.concatenate(flat)] = True  # what the lookups read, then the children of those
    masks = [need[base[i] : base[i + 1]].reshape(n, -1) for i in range(top)]  # views of `need`
    for lv in range(top, 1, -1):  # T_l(i, j) needs T_{l−1}(i, j) and T_{l−1}(i, j + half)
        half, parent, child = 2 ** (lv - 1), masks[lv - 1], masks[lv - 2]
        child[:, : parent.shape[1]] |= parent
        child[:, half : half + parent.shape[1]] |= parent
    kept = [np.flatnonzero(mk) for mk in masks]
    column = np.full(need.size, -1, dtype=np.int64)  # each kept auxiliary's column, in order
    column[need] = np.arange(int(need.sum()))
    g: list[tuple[IntArray, IntArray, FloatArray]] = []  # (rows, columns, values) of a_g
    u: list[tuple[IntArray, IntArray, FloatArray]] = []  # and of a_u
    r0 = 0
    for lv, k in enumerate(kept, start=1):  # doubling rows: T_l − child ≤ 0 for both children
        half = 2 ** (lv - 1)
        ri, rj = np.divmod(k, n - 2**lv + 1)
        me = column[base[lv - 1] + k]
        for shift in (0, half):
            rows = r0 + np.arange(k.size)
            u.append((rows, me, np.ones(k.size)))
            if lv == 1:
                g.append((rows, ri * n + rj + shift, -np.ones(k.size)))
            else:
                child = column[base[lv - 2] + ri * (n - half + 1) + rj + shift]
                u.append((rows, child, -np.ones(k.size)))
            r0 += k.size
    for start, at in zip((start_a, start_b), flat, strict=True):  # g(p) − e^ε T_l(row, start) ≤ 0
        rows = r0 + np.arange(cell.size)
        g.append((rows, cell, np.ones(cell.size)))
        g.append((rows[single], row[single] * n + start[single], np.full(single.sum(), -factor)))
        u.append((rows[many], column[at], np.full(at.size, -factor)))
        r0 += cell.size
    a_u = _matrix(u, (r0, int(need.sum())))
    return WindowSystem2D(_matrix(g, (r0, n * n)), a_u, "runs", n, tuple(kept))


def window_size_2d(
    n: int, widths: IntArray, method: str, rows_at: int | None = None
) -> tuple[int, int, int]:
    """``(rows, auxiliaries, nonzeros)``, estimated from above without building anything."""
    cells = n * n if rows_at is None else rows_at
    if method == "pairs":
        rows = cells * int(np.sum(2 * np.asarray(widths) + 1))
        return rows, 0, 2 * rows
    levels = int(np.floor(np.log2(max(2 * int(np.max(widths)) + 1, 1))))
    aux = n * n * levels
    rows = 2 * aux + 2 * cells * int(np.asarray(widths).size)
    return rows, aux, 2 * rows


def window_system_2d(
    n: int,
    widths: npt.ArrayLike,
    factor: float,
    *,
    method: str = "runs",
    rows_at: npt.ArrayLike | None = None,
) -> WindowSystem2D:
    """Rows enforcing ``g(p) ≤ factor·g(q)`` for ``q − p`` in the footprint (module docstring),
    ``g`` the box's ``n × n`` cells row-major, the footprint given by ``widths`` ``L(d₁)``,
    ``d₁ = −w … w`` (`optmech.certify.noise2d.row_half_widths`), the rows imposed at the flat
    indices ``rows_at`` (default: every cell)."""
    w = np.asarray(widths, dtype=np.int64)
    if method not in WINDOW_METHODS_2D:
        raise ValueError(f"`window` must be one of {WINDOW_METHODS_2D}; got {method!r}.")
    at = np.arange(n * n, dtype=np.int64) if rows_at is None else np.asarray(rows_at, np.int64)
    return (_pairs if method == "pairs" else _runs)(n, w, factor, at)
