"""Rows and cones of the guarantees beyond (ε, δ), over the pairs of [`pairs`][pairs].

**Hockey-stick rows** (privacy profiles, GDP at finitely many ε). For each point
``(ε_i, δ_i)``, each shift and direction: ``x_k − e^(ε_i) x_(k+s) − t_k ≤ 0`` and
``Σ_k w_k t_k / (m δ_i) ≤ 1`` with auxiliaries ``t ≥ 0``; at an optimum ``t_k`` may take its
canonical value ``(x_k − e^ε x_(k+s))₊``, so the rows say exactly ``δ_s(ε_i) ≤ δ_i`` (Balle &
Wang 2018, Theorem 5; the tails' pairs carry their weights, [`pairs`][pairs]).

**Pure rows** (a profile point with ``δ = 0``): ``x_k ≤ e^ε x_(k+s)`` for every pair — the ε-DP
window of Geng & Viswanath (2016) over the grid and its virtual tail periods. Pairs inside one
tail cell (a cell and its own copy a period out) hold exactly by the tail ratio's rounding and
are left out: their float coefficient could come out a hair positive and force the cell to 0.

**Rényi cones** (Rényi DP at given orders, zCDP at the cut orders). Each pair's term
``w m⁻¹ P^α Q^(1−α) e^(−b)`` (``b = (α − 1)ε(α)``) is bounded by ``t`` through the power cone
``t^(1/α) Q^(1−1/α) ≥ (w m⁻¹ e^(−b))^(1/α) P`` (cvxpy's ``PowCone3D``), and
``Σ_(pairs of a shift) t ≤ 1`` says ``D_α(P ‖ P_s) ≤ ε(α)`` (Mironov 2017, Definition 3). The
sum is jointly convex in (P, Q) — a perspective of ``u ↦ u^α`` — so the set is convex.
**Kullback–Leibler rows** (zCDP, the limit α → 1, where power cones grow thin):
``Σ w m⁻¹ P log(P/Q) ≤ ρ`` through cvxpy's ``rel_entr`` (exponential cones).

Both sums are 1-homogeneous in the values, which
[`optmech.lp.additive.beyond`][optmech.lp.additive.beyond] uses for a rigorous lower bound (Euler's
identity turns a tangent plane into a Lagrangian bound).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.lp.additive.pairs import PairMaps
from optmech.lp.additive.rows import AuxMap, RowBlock, RowRecord, _pair_rows, monotone_pairs

__all__ = ["RenyiCones", "hockey_rows", "monotone_block", "pure_block"]

_U = 2.0**-53


def monotone_block(index: Any, integer: bool, reduced: bool, expand: sp.csr_matrix) -> RowBlock:
    """``x_(k+1) ≤ x_k`` outwards (the class non-increasing in ``|x|``), on the values."""
    a, b = monotone_pairs(index, integer, right_only=reduced)
    rows = (_pair_rows(a, b, 1.0, expand.shape[0]) @ expand).tocsr()
    return RowBlock("monotone", rows, np.zeros(rows.shape[0]))


def _single(first: sp.csr_matrix, second: sp.csr_matrix) -> Any:
    """Pairs whose two members are multiples of one and the same variable."""
    nnz1, nnz2 = np.diff(first.indptr), np.diff(second.indptr)
    same = (nnz1 == 1) & (nnz2 == 1)
    cols1 = np.zeros(first.shape[0], dtype=np.int64)
    cols2 = np.zeros(second.shape[0], dtype=np.int64)
    cols1[nnz1 == 1] = first.indices[first.indptr[:-1][nnz1 == 1]]
    cols2[nnz2 == 1] = second.indices[second.indptr[:-1][nnz2 == 1]]
    return same & (cols1 == cols2)


def pure_block(pairs: PairMaps, epsilon: float) -> RowBlock:
    """``x_k − e^ε x_(k+s) ≤ 0`` for every pair but those within one tail cell (module text)."""
    keep = ~_single(pairs.first, pairs.second)
    rows = (pairs.first[keep] - math.exp(epsilon) * pairs.second[keep]).tocsr()
    return RowBlock("pure", rows, np.zeros(rows.shape[0]))


def hockey_rows(
    pairs: PairMaps,
    points: Sequence[tuple[float, float]],
    *,
    n_values: int,
    atom: bool,
    head: Sequence[RowBlock] = (),
) -> tuple[RowRecord, AuxMap]:
    """The hockey-stick rows of every point (module docstring), after the blocks ``head``.

    Variables: the values, the atom (which leaves the origin under every shift, so it adds to
    every sum), then one auxiliary per pair and point. Without points (a profile whose every
    point has δ = 0, i.e. pure ε-DP through the ``head`` rows) there are no auxiliaries and
    only the ``head`` blocks.
    """
    k, n_points = pairs.size, len(points)
    n_aux = k * n_points
    diffs = [(pairs.first - math.exp(eps) * pairs.second).tocsr() for eps, _ in points]
    on_values = sp.vstack(diffs, format="csr") if diffs else sp.csr_matrix((0, n_values))
    width = n_values + int(atom) + n_aux
    blocks = [
        RowBlock(
            b.name,
            sp.hstack([b.a, sp.csr_matrix((b.rows, width - b.a.shape[1]))], format="csr"),
            b.b,
        )
        for b in head
    ]
    if n_points:
        blocks += _hockey_blocks(pairs, points, on_values, n_values=n_values, atom=atom)
    return RowRecord(tuple(blocks)), AuxMap(hockey=on_values)


def _hockey_blocks(
    pairs: PairMaps,
    points: Sequence[tuple[float, float]],
    on_values: sp.csr_matrix,
    *,
    n_values: int,
    atom: bool,
) -> list[RowBlock]:
    """The ``"hockey"`` rows (one per pair and point) and the ``"hockey-sum"`` rows (one per
    shift, direction and point, each over its bound δ)."""
    n_aux = on_values.shape[0]
    atom_col = sp.csr_matrix((n_aux, int(atom)))
    hockey = sp.hstack([on_values, atom_col, -sp.identity(n_aux, format="csr")], format="csr")
    sums = sp.block_diag([pairs.sums(pairs.weight * pairs.unit)] * len(points), format="csr")
    atom_sum = sp.csr_matrix(np.ones((sums.shape[0], int(atom))))
    total = sp.hstack([sp.csr_matrix((sums.shape[0], n_values)), atom_sum, sums], format="csr")
    # Each sum row over its bound (≤ 1): δ far below a solver's absolute tolerance stays seen.
    bounds = np.repeat([d for _, d in points], pairs.groups).astype(np.float64)
    total = (sp.diags(1.0 / bounds) @ total).tocsr()
    return [
        RowBlock("hockey", hockey, np.zeros(n_aux)),
        RowBlock("hockey-sum", total, np.ones(bounds.size)),
    ]


@dataclass(frozen=True)
class RenyiCones:
    """Rényi cones at given orders and an optional Kullback–Leibler bound (module docstring).

    Attributes
    ----------
    pairs : PairMaps
        The pairs of every shift and direction.
    orders : numpy.ndarray
        Orders α > 1.
    log_budgets : numpy.ndarray
        ``b = (α − 1)ε(α)`` per order: the bound on ``log Σ P^α Q^(1−α)``.
    kl : float or None
        Bound on the Kullback–Leibler divergence of every shift (zCDP: ρ), or None.
    """

    pairs: PairMaps
    orders: FloatArray
    log_budgets: FloatArray
    kl: float | None = None

    def constraints(self, y: Any, col_scale: FloatArray) -> dict[str, Any]:
        """The cvxpy constraints over the solver's variable ``y`` (values ``= col_scale·y``):
        ``"renyi"`` (one sum row per order and shift), ``"renyi-cones"``, ``"kl"``,
        ``"kl-cones"`` (the last two when `kl` is set)."""
        import cvxpy as cp

        p = self.pairs
        n_values = p.first.shape[1]
        d = sp.diags(col_scale[:n_values])
        first = (p.first @ d).tocsr() @ y[:n_values]
        second = (p.second @ d).tocsr() @ y[:n_values]
        out: dict[str, Any] = {}
        if self.orders.size:
            a = np.repeat(self.orders, p.size)
            scale = np.log(np.tile(p.weight * p.unit, self.orders.size))
            scale = np.exp((scale - np.repeat(self.log_budgets, p.size)) / a)
            t = cp.Variable(a.size)
            reps = self.orders.size
            big_first = cp.hstack([first] * reps) if reps > 1 else first
            big_second = cp.hstack([second] * reps) if reps > 1 else second
            out["renyi-cones"] = cp.PowCone3D(t, big_second, cp.multiply(scale, big_first), 1 / a)
            groups = sp.block_diag([p.sums(np.ones(p.size))] * reps, format="csr")
            out["renyi"] = groups @ t <= np.ones(groups.shape[0])
        if self.kl is not None:
            r = cp.Variable(p.size)
            out["kl-cones"] = r >= cp.rel_entr(first, second)
            out["kl"] = p.sums(p.weight * p.unit) @ r <= np.full(p.groups, self.kl)
        return out

    def divergence_gradient(
        self, values: FloatArray, budgets: FloatArray, kl: float | None
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Per row of ``"renyi"`` and ``"kl"``: the sum normalised by its bound (``Σ terms ·
        e^(−b)`` with the *given* log-budgets ``budgets``; the KL sum over ``kl``), its gradient
        in the values (rows), a bound on the floating-point error of each gradient entry, and
        the diagonal of its Hessian (cross terms of a variable with itself left out: only a
        guide for choosing a tangent point).

        Used for the Lagrangian bound; every sum is 1-homogeneous (module docstring).
        """
        p = self.pairs
        x1, x2 = p.first @ values, p.second @ values
        w = p.weight * p.unit
        parts, sums = [], []
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            l1, l2 = np.log(x1), np.log(x2)
            pos = x1 > 0
            for alpha, b in zip(self.orders, budgets, strict=True):
                f = w * np.exp(alpha * l1 + (1.0 - alpha) * l2 - b)
                f = np.where(pos & np.isfinite(f), f, np.where(pos, np.inf, 0.0))
                curv = alpha * (alpha - 1.0) * f
                err = 8.0 * _U * (4.0 + alpha * np.abs(l1) + alpha * np.abs(l2) + abs(b))
                parts.append(
                    (alpha * f / x1, (1.0 - alpha) * f / x2, err, curv / x1**2, curv / x2**2)
                )
                sums.append(p.sums(np.ones(p.size)) @ f)
            if kl is not None:
                ratio = l1 - l2
                f = np.where(pos, w * x1 * ratio, 0.0) / kl
                err = 8.0 * _U * (4.0 + np.abs(l1) + np.abs(l2))
                parts.append(
                    (
                        w * (ratio + 1.0) / kl,
                        -w * x1 / x2 / kl,
                        err,
                        w / x1 / kl,
                        w * x1 / x2**2 / kl,
                    )
                )
                sums.append(p.sums(np.ones(p.size)) @ f)
        out: list[list[Any]] = [[], [], []]
        sq1, sq2 = p.first.multiply(p.first), p.second.multiply(p.second)
        for d1, d2, err, h1, h2 in parts:
            d1, d2 = np.where(pos, d1, 0.0), np.where(pos, d2, 0.0)
            h1, h2 = np.where(pos, h1, 0.0), np.where(pos, h2, 0.0)
            out[0].append(p.sums(d1) @ p.first + p.sums(d2) @ p.second)
            out[1].append(
                p.sums(np.abs(d1) * err) @ abs(p.first) + p.sums(np.abs(d2) * err) @ abs(p.second)
            )
            out[2].append(p.sums(h1) @ sq1 + p.sums(h2) @ sq2)
        dense = [
            sp.vstack([sp.csr_matrix(m) for m in rows]).toarray()
            if rows
            else np.zeros((0, values.size))
            for rows in out
        ]
        total = np.concatenate(sums) if sums else np.zeros(0)
        return total, dense[0], dense[1], dense[2]
