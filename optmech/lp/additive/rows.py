"""The constraint rows of the additive-noise LP, as named blocks.

Variables, in this order: the grid values ``x`` (densities × Δ; half of them when the LP is
mirror-reduced), the atom ``α`` when allowed, then the auxiliaries (window minima for ε-DP,
hockey-stick terms for (ε, δ)). Each family of rows is a `RowBlock` with a name; the LP keeps
them in a frozen `RowRecord` and reads each one's multipliers by that name (cvxpy's
``dual_vars[constr.id]`` discipline), never by position.

``"monotone"``
    ``x_{k+1} ≤ x_k`` outwards (the class non-increasing in ``|x|``).
``"window"``
    ε-DP: ``x_i ≤ e^ε x_j`` for cells at most ``m`` apart (Geng & Viswanath 2016, §II; the
    window on a Δ-periodic grid, `optmech.lp.additive.grid`). All pairs,
    or an auxiliary form (`optmech.lp.additive.windows`); in the
    monotone class, pairs exactly ``m`` apart.
``"tail"``
    ε-DP across the ends of the grid, where the tails continue the outermost periods times the
    tail ratio ``ρ`` per period: the pairs between a real cell and a *virtual* one reduce to
    ``x_j ≤ e^ε ρ·x_o`` for ``o`` before ``j`` (outwards) in the outermost period; deeper pairs
    are ``ρ``-scaled copies of real ones, so the noise is ε-DP on all of ℝ
    (`pure_rows`). Used when ``ρ`` is small; otherwise the window itself runs over one
    virtual period.
``"hockey"``, ``"hockey-sum"``
    (ε, δ): ``x_j − e^ε x_{j±s} − t_sj ≤ 0`` and ``((1/m)Σ_j t_sj + α)/δ ≤ 1`` for every integer
    shift ``s = 1..m`` (the hockey-stick divergence of a piecewise-constant density is linear
    between whole-cell shifts, so these suffice for every real shift ``|d| ≤ Δ``; Geng, Ding,
    Guo & Kumar 2019). The atom leaves the origin under every shift. Below
    `RELATIVE_SUMS_BELOW` the sum rows are written relative to δ,
    ``((1/m)Σ_j t_sj + α)/δ ≤ 1``, so that a solver's absolute feasibility tolerance (about
    1e-7) is a *relative* error of δ: written as ``… ≤ δ``, such a δ is beneath that tolerance
    (measured, HiGHS, ε = 1: δ = 1e-11 "infeasible" in presolve; 1e-10 served only after a
    mixing repair that cost 1.7% of the value), while relative to δ both solve to a certified
    interval of 2e-5 or better.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech.lp.additive.grid import AdditiveGrid, GridKind
from optmech.lp.additive.windows import (
    WindowSystem,
    both_ways,
    choose_window_method,
    pair_rows,
    window_system,
)
from optmech.lp.engine.rows import RowBlock, RowRecord

__all__ = ["RELATIVE_SUMS_BELOW", "AuxMap", "RowBlock", "RowRecord", "approx_rows", "pure_rows"]

#: With a tail ratio at least this (ε ≤ 13.8), the window on a uniform grid or ℤ runs on the
#: grid extended by one virtual period each side (coefficients ``ratio``, far above solvers'
#: 1e-9 drop threshold); below (and on graded grids), on the real cells plus the tail rows.
#: Measured (benchmarks/additive.py, Clarabel, ε = 1, 20 periods): the extended form takes 65
#: iterations at m = 10 where the tail rows take 147 (0.05 s against 0.08 s); from m = 30 on
#: the two are within the machine's noise, and at m = 1000 the tail rows save ~25%.
VIRTUAL_ROWS_ABOVE = 1e-6
#: Below this δ the hockey-stick sum rows are written relative to δ (module docstring); from it
#: on, as ``… ≤ δ``. Measured (HiGHS, ℝ, x², default grids): at δ = 1e-10 relative rows certify
#: ε = 0.1, 1 and 5 to intervals of 2e-6, 3e-6 and 6e-9, the absolute ones to 1.6e-4, 1.3e-2
#: and 6e-8; at δ = 1e-9, ε = 5, the absolute rows to 5e-8 and the relative ones only to
#: 6e-2 (after a mixing repair).
RELATIVE_SUMS_BELOW = 1e-9


@dataclass(frozen=True)
class AuxMap:
    """The canonical auxiliaries of given value variables: window minima or hockey terms.

    At an optimum every auxiliary may take its canonical value — the minimum of the cells it
    stands for, or ``max(0, x_j − e^ε x_{j±s})`` — which is monotone in the values; so the
    canonical auxiliaries of an upper bound of the values bound the auxiliaries, and those of a
    point complete it to a point of the LP. ``system`` and ``real``: the window's auxiliaries
    and the sequence it runs on (ε-DP); ``tails``: per outer period, its cells and whether
    minima run rightwards; ``hockey``: ``x_j − e^ε x_{j±s}`` per term ((ε, δ)).
    """

    system: WindowSystem | None = None
    real: sp.csr_matrix | None = None
    tails: tuple[tuple[sp.csr_matrix, bool], ...] = ()
    hockey: sp.csr_matrix | None = None

    def canonical(self, values: FloatArray) -> FloatArray:
        """The auxiliaries, in the LP's order, for value variables ``values``."""
        v = np.asarray(values, dtype=np.float64)
        if self.hockey is not None:
            return np.maximum(np.asarray(self.hockey @ v).reshape(-1), 0.0)
        parts = []
        if self.system is not None and self.real is not None:
            parts.append(self.system.canonical_aux(np.asarray(self.real @ v).reshape(-1)))
        for last, rightwards in self.tails:
            cells = np.asarray(last @ v).reshape(-1)
            parts.append(np.minimum.accumulate(cells if rightwards else cells[::-1]))
        return np.concatenate(parts) if parts else np.zeros(0)


def virtual_rows(grid: AdditiveGrid, tail_ratio: float) -> bool:
    """Whether the ε-DP window runs over one virtual period each side (`pure_rows`):
    on uniform grids and ℤ while ``tail_ratio ≥`` `VIRTUAL_ROWS_ABOVE`; never
    on a graded grid (large ε, where its solver scaling is built around the tail rows)."""
    return grid.kind != GridKind.GRADED and tail_ratio >= VIRTUAL_ROWS_ABOVE


def monotone_pairs(index: IntArray, integer: bool, right_only: bool) -> tuple[IntArray, IntArray]:
    """Pairs ``(a, b)`` of positions with ``g_a ≤ g_b``: outward neighbours ≤ inward ones."""
    pos = np.arange(index.size)
    right = index[:-1] >= 0  # g[k+1] ≤ g[k] for cells k ≥ 0 (points k ≥ 0)
    pairs_a = [pos[1:][right]]
    pairs_b = [pos[:-1][right]]
    if not right_only:
        edge = 0 if integer else -1
        left = index[1:] <= edge  # g[k−1] ≤ g[k] for cells k ≤ −1 (points k ≤ 0)
        pairs_a.append(pos[:-1][left])
        pairs_b.append(pos[1:][left])
    return np.concatenate(pairs_a), np.concatenate(pairs_b)


def _widen(
    on_values: sp.csr_matrix, on_aux: sp.csr_matrix | None, layout: tuple[int, int, int]
) -> sp.csr_matrix:
    """Rows over ``[values | atom | aux]`` from their value and auxiliary parts."""
    _, n_atom, n_aux = layout
    r = on_values.shape[0]
    aux = on_aux if on_aux is not None and on_aux.shape[1] == n_aux else sp.csr_matrix((r, n_aux))
    return sp.hstack([on_values, sp.csr_matrix((r, n_atom)), aux], format="csr")


def _tail_rows(last: sp.csr_matrix, factor: float, rightwards: bool) -> tuple[Any, Any]:
    """Rows ``x_j ≤ factor·Q_j`` with ``Q_j = min(x_o : o before j)`` over one outer period.

    ``last`` maps the period's ``m`` cells (left to right) to the value variables. On the right
    the minima run from the period's start (prefix minima), on the left from its end (suffix
    minima). Returns (rows on the values, rows on the ``m`` minima).
    """
    m = last.shape[0]
    ordered = last if rightwards else last[np.arange(m)[::-1]]
    eye = sp.identity(m, format="csr")
    chain = sp.csr_matrix((np.ones(m - 1), (np.arange(m - 1), np.arange(m - 1))), shape=(m - 1, m))
    # Q_j − x_j ≤ 0;  Q_j − Q_(j−1) ≤ 0;  x_j − factor·Q_j ≤ 0.
    on_q = sp.vstack([eye, eye[1:] - chain, -factor * eye], format="csr")
    on_x = sp.vstack([-ordered, sp.csr_matrix((m - 1, last.shape[1])), ordered], format="csr")
    return on_x, on_q


def pure_rows(
    grid: AdditiveGrid,
    expand: sp.csr_matrix,
    epsilon: float,
    *,
    tail_ratio: float,
    reduced: bool,
    monotone: bool,
    window: str,
    atom: bool,
) -> tuple[RowRecord, AuxMap, str]:
    """ε-DP rows (module docstring): ``(record, auxiliaries, window form used)``.

    The virtual periods beyond the grid are ``ratio = tail_ratio ≈ e^−ε`` times its outermost
    ones. While ``ratio ≥`` `VIRTUAL_ROWS_ABOVE` (`virtual_rows`) the window runs on the grid
    extended by one virtual period each side (coefficients ``ratio``). Otherwise those
    coefficients would reach solvers' drop threshold (HiGHS removes entries below 1e-9; a
    dropped one forces window minima to 0 — "infeasible" from ε ≈ 20.7), so the window runs on
    the real cells and the virtual pairs are written out: besides scaled copies of real pairs
    they add only ``x_j ≤ e^ε·ratio·x_o`` for ``o`` before ``j`` (outwards) in the outermost
    period, with coefficients ``1`` and ``e^ε·ratio ≥ 1``.
    """
    p, factor = grid.period, math.exp(epsilon)
    e = expand.tocsr()
    index = grid.index
    real = e[index >= -p] if reduced else e  # pairs left of −m mirror pairs on the right
    seq_index = index[index >= -p] if reduced else index
    n_seq, n_values = real.shape[0], expand.shape[1]
    sides = [(e[-p:], True)] + ([] if reduced else [(e[:p], False)])
    if monotone:
        ma, mb = monotone_pairs(seq_index, grid.integer, right_only=reduced)
        mono = [pair_rows(ma, mb, 1.0, n_seq) @ real]
        # The first virtual cell (ratio·x_o) is at most the outermost real one: x_o ≤ x/ratio.
        for side, right in sides:
            o, edge = (side[0], e[-1]) if right else (side[-1], e[0])
            mono.append(o - edge / tail_ratio)
        k = np.arange(n_seq - p)
        win = both_ways(k, k + p, factor, n_seq)
        layout = (n_values, int(atom), 0)
        mono_rows = sp.vstack(mono, format="csr")
        mono_blocks = (
            RowBlock("monotone", _widen(mono_rows, None, layout), np.zeros(mono_rows.shape[0])),
            RowBlock("window", _widen(win @ real, None, layout), np.zeros(win.shape[0])),
        )
        return RowRecord(mono_blocks), AuxMap(), "monotone"
    if virtual_rows(grid, tail_ratio):  # the grid extended by one virtual period each side
        b = tail_ratio
        ext = sp.vstack([b * e[:p], e, b * e[-p:]], format="csr")
        ext_index = np.concatenate([index[:p] - p, index, index[-p:] + p])
        if reduced:
            ext = ext[ext_index >= -p]
        real, n_seq, sides = ext, ext.shape[0], []
    method = choose_window_method(n_seq, p) if window == "auto" else window
    system = window_system(n_seq, p, factor, method=method)
    tails = [(_tail_rows(side, factor * tail_ratio, right), side, right) for side, right in sides]
    n_aux = system.num_aux + p * len(tails)
    layout = (n_values, int(atom), n_aux)
    a_u = sp.hstack([system.a_u, sp.csr_matrix((system.a_u.shape[0], n_aux - system.num_aux))])
    rows = _widen((system.a_g @ real).tocsr(), a_u.tocsr(), layout)
    blocks = [RowBlock("window", rows, np.zeros(rows.shape[0]))]
    if tails:
        offset, parts = system.num_aux, []
        for (on_x, on_q), _, _ in tails:
            left = sp.csr_matrix((on_q.shape[0], offset))
            right = sp.csr_matrix((on_q.shape[0], n_aux - offset - p))
            parts.append(_widen(on_x, sp.hstack([left, on_q, right]).tocsr(), layout))
            offset += p
        tail = sp.vstack(parts, format="csr")
        blocks.append(RowBlock("tail", tail, np.zeros(tail.shape[0])))
    aux = AuxMap(system=system, real=real, tails=tuple((side, r) for _, side, r in tails))
    return RowRecord(tuple(blocks)), aux, method


def approx_rows(
    grid: AdditiveGrid,
    expand: sp.csr_matrix,
    epsilon: float,
    delta: float,
    *,
    reduced: bool,
    monotone: bool,
    atom: bool,
) -> tuple[RowRecord, AuxMap]:
    """(ε, δ) rows (module docstring): ``(record, auxiliaries)``."""
    n, m, factor = grid.n, grid.period, math.exp(epsilon)
    n_values = expand.shape[1]
    directions = (1,) if reduced else (1, -1)
    shifts = np.arange(1, m + 1)
    d = np.repeat(np.array(directions), shifts.size * n)
    s = np.tile(np.repeat(shifts, n), len(directions))
    j = np.tile(np.arange(n), shifts.size * len(directions))
    partner = j + d * s
    inside = (partner >= 0) & (partner < n)
    k = j.size
    rows = np.arange(k)
    vals = np.concatenate([np.ones(k), np.full(int(inside.sum()), -factor)])
    on_x = sp.csr_matrix(
        (vals, (np.concatenate([rows, rows[inside]]), np.concatenate([j, partner[inside]]))),
        shape=(k, n),
    )
    layout = (n_values, int(atom), k)
    on_values = (on_x @ expand).tocsr()
    hockey = _widen(on_values, -sp.identity(k, format="csr"), layout)
    groups = np.repeat(np.arange(len(directions) * shifts.size), n)
    unit = delta if delta < RELATIVE_SUMS_BELOW else 1.0  # relative to δ (module docstring)
    sums = sp.csr_matrix(
        (np.full(k, 1.0 / (m * unit)), (groups, rows)), shape=(len(directions) * shifts.size, k)
    )
    sums = _widen(sp.csr_matrix((sums.shape[0], n_values)), sums, layout)
    if atom:  # + α in every sum row
        sums = sums.tolil()
        sums[:, n_values] = 1.0 / unit
        sums = sums.tocsr()
    blocks = [
        RowBlock("hockey", hockey, np.zeros(k)),
        RowBlock("hockey-sum", sums, np.full(sums.shape[0], delta / unit)),
    ]
    if monotone:
        ma, mb = monotone_pairs(grid.index, grid.integer, right_only=reduced)
        mono = (pair_rows(ma, mb, 1.0, grid.n) @ expand).tocsr()
        blocks.insert(0, RowBlock("monotone", _widen(mono, None, layout), np.zeros(mono.shape[0])))
    return RowRecord(tuple(blocks)), AuxMap(hockey=on_values)
