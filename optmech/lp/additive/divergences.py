"""Rows and cones of the guarantees beyond (ε, δ), over the pairs of `pairs`.

**Hockey-stick rows** (privacy profiles, GDP at finitely many ε). For each point
``(ε_i, δ_i)``, each shift and direction: ``x_k − e^(ε_i) x_(k+s) − t_k ≤ 0`` and
``Σ_k w_k t_k / (m δ_i) ≤ 1`` with auxiliaries ``t ≥ 0``; at an optimum ``t_k`` may take its
canonical value ``(x_k − e^ε x_(k+s))₊``, so the rows say exactly ``δ_s(ε_i) ≤ δ_i`` (Balle &
Wang 2018, Theorem 5; the tails' pairs carry their weights, `pairs`).

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

**Orders near 1.** When the budget ``b = (α − 1)ε(α)`` is small (below `NEAR_ONE_BUDGET`) the
power cones are thin: every term lies within a relative ``b`` of ``P``, and interior-point
solvers stall (measured: Clarabel fails at ``b ≤ 2e-4``, e.g. α = 1.01, ε = 0.01). Since
``Σ w m⁻¹ P = Σ w m⁻¹ Q = 1`` for every shift, the constraint is, exactly,
``F_α = Σ w m⁻¹ f_α(P, Q) ≤ B = (e^b − 1)/(α(α − 1))`` with the α-divergence summand
``f_α(P, Q) = (P^α Q^(1−α) − αP − (1 − α)Q)/(α(α − 1)) ≥ 0`` (Amari 2009), which tends to the
Kullback–Leibler summand ``k(P, Q) = P log(P/Q) − P + Q`` as α → 1, and ``B → ε``. Both are
1-homogeneous and convex. The design writes ``F_α = K + (F_α − K)`` and solves
``K(z) + ∇(F_α − K)(z̄)·z ≤ B`` — the Kullback–Leibler sum through exponential cones, the small
remainder linearised at a tangent point ``z̄`` (for a 1-homogeneous function the tangent plane
through the origin, Euler's identity): a sequential convex approximation whose fixed point meets
``F_α ≤ B``, well scaled (every quantity is of the order of ε), and whose remainder is of
relative size ``(α − 1)·|log(P/Q)|``. The rounds of `optmech.lp.additive.beyond` move ``z̄`` to
each round's point; the returned noise is certified at the requested order, and its lower bound
is taken on the Rényi sum itself (not on the approximation).

Both sums are 1-homogeneous in the values (the lower bound of `optmech.lp.additive.cone_bound`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from optmech._floats import BoolArray, FloatArray
from optmech.lp.additive.pairs import PairMaps
from optmech.lp.additive.rows import AuxMap, RowBlock, RowRecord, monotone_pairs
from optmech.lp.additive.windows import pair_rows

__all__ = [
    "NEAR_ONE_BUDGET",
    "NEAR_ONE_ORDER",
    "RenyiCones",
    "hockey_rows",
    "monotone_block",
    "pure_block",
]

_U = 2.0**-53
#: Rényi orders whose budget ``(α − 1)ε(α)`` is below this are solved in the near-one form
#: (module docstring). Measured on ℤ, Δ = 1, |x|: power cones fail at budgets 1e-4 and 2e-4 and
#: solve from 5e-4 on (the mixing repair then moves the value by up to 1e-3 relative at 5e-3);
#: the near-one form converges in one or two rounds up to budgets of about 1e-2.
NEAR_ONE_BUDGET = 2e-3
#: ... and whose order is at most this: the remainder ``F_α − K`` grows like ``(α − 1)|log(P/Q)|``
#: and ``e^(α log(P/Q))``, and the linearisation stops converging (measured: α = 3, ε = 0.01
#: and α = 10, ε = 1e-4 oscillate; those keep the power cones).
NEAR_ONE_ORDER = 2.0


def monotone_block(index: Any, integer: bool, reduced: bool, expand: sp.csr_matrix) -> RowBlock:
    """``x_(k+1) ≤ x_k`` outwards (the class non-increasing in ``|x|``), on the values."""
    a, b = monotone_pairs(index, integer, right_only=reduced)
    rows = (pair_rows(a, b, 1.0, expand.shape[0]) @ expand).tocsr()
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
    """The hockey-stick rows of every point (module docstring), after the blocks ``head``:
    ``"hockey"`` (one per pair and point) and ``"hockey-sum"`` (one per shift, direction and
    point, each over its bound δ).

    Variables: the values, the atom (which leaves the origin under every shift, so it adds to
    every sum), then one auxiliary per pair and point. Without points (a profile whose every
    point has δ = 0, i.e. pure ε-DP through the ``head`` rows) there are no auxiliaries and
    only the ``head`` blocks.
    """
    n_aux = pairs.size * len(points)
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
    if points:
        atom_col = sp.csr_matrix((n_aux, int(atom)))
        hockey = sp.hstack([on_values, atom_col, -sp.identity(n_aux, format="csr")], format="csr")
        sums = sp.block_diag([pairs.sums(pairs.weight * pairs.unit)] * len(points), format="csr")
        atom_sum = sp.csr_matrix(np.ones((sums.shape[0], int(atom))))
        total = sp.hstack([sp.csr_matrix((sums.shape[0], n_values)), atom_sum, sums], format="csr")
        # Each sum row over its bound (≤ 1): δ far below a solver's absolute tolerance stays seen.
        bounds = np.repeat([d for _, d in points], pairs.groups).astype(np.float64)
        total = (sp.diags(1.0 / bounds) @ total).tocsr()
        blocks += [
            RowBlock("hockey", hockey, np.zeros(n_aux)),
            RowBlock("hockey-sum", total, np.ones(bounds.size)),
        ]
    return RowRecord(tuple(blocks)), AuxMap(hockey=on_values)


@dataclass(frozen=True)
class RenyiCones:
    """Rényi cones at ``orders`` with log-budgets ``b = (α − 1)ε(α)`` (the bound on
    ``log Σ P^α Q^(1−α)``), an optional Kullback–Leibler bound ``kl`` (zCDP: ρ), and the near-one
    rows linearised at ``tangent`` (module docstring). ``near_one_form``: orders with a small
    budget take the near-one form (Rényi DP; zCDP keeps power cones next to the KL rows).
    """

    pairs: PairMaps
    orders: FloatArray
    log_budgets: FloatArray
    kl: float | None = None
    tangent: FloatArray | None = None
    near_one_form: bool = False

    @property
    def near_one(self) -> BoolArray:
        """The orders solved in the near-one form: with `near_one_form`, those whose budget is
        below `NEAR_ONE_BUDGET` and whose order is at most `NEAR_ONE_ORDER`."""
        thin = (self.log_budgets < NEAR_ONE_BUDGET) & (self.orders <= NEAR_ONE_ORDER)
        return np.asarray(self.near_one_form & thin, dtype=bool)

    def near_one_budgets(self) -> FloatArray:
        """``B = (e^b − 1)/(α(α − 1))`` of each near-one order: the bound on ``F_α``."""
        a, b = self.orders[self.near_one], self.log_budgets[self.near_one]
        return np.expm1(b) / (a * (a - 1.0))

    def near_one_corrections(self) -> FloatArray:
        """``∇(F_α − K)(z̄)`` per near-one order and shift (rows over the value variables), at
        the tangent point ``z̄`` (zero without one, or where a member of a pair is 0).

        Per pair, with ``L = log(P/Q)`` and β = α − 1: ``∂/∂P = w(expm1(βL)/β − L)`` and
        ``∂/∂Q = w(expm1(L) − expm1(αL)/α)``, both of order ``β L²``."""
        p = self.pairs
        orders = self.orders[self.near_one]
        out = np.zeros((orders.size * p.groups, p.first.shape[1]))
        if self.tangent is None or not orders.size:
            return out
        x1, x2 = p.first @ self.tangent, p.second @ self.tangent
        live = (x1 > 0) & (x2 > 0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ell = np.where(live, np.log(x1) - np.log(x2), 0.0)
        w = p.weight * p.unit
        for i, alpha in enumerate(orders):
            beta = alpha - 1.0
            with np.errstate(over="ignore", invalid="ignore"):
                d1 = w * (np.expm1(beta * ell) / beta - ell)
                d2 = w * (np.expm1(ell) - np.expm1(alpha * ell) / alpha)
            ok = live & np.isfinite(d1) & np.isfinite(d2)
            rows = (
                p.sums(np.where(ok, d1, 0.0)) @ p.first + p.sums(np.where(ok, d2, 0.0)) @ p.second
            )
            out[i * p.groups : (i + 1) * p.groups] = np.asarray(sp.csr_matrix(rows).todense())
        return out

    def constraints(self, y: Any, col_scale: FloatArray) -> dict[str, Any]:
        """The cvxpy constraints over the solver's variable ``y`` (values ``= col_scale·y``):
        ``"renyi"`` (one sum row per power-cone order and shift), ``"renyi-cones"``,
        ``"renyi-near"`` (one row ``(K + ∇(F_α − K)(z̄)·z)/B ≤ 1`` per near-one order and shift),
        ``"kl"`` (when `kl` is set) and ``"kl-cones"`` (shared by the last two)."""
        import cvxpy as cp

        p = self.pairs
        n_values = p.first.shape[1]
        d = sp.diags(col_scale[:n_values])
        first = (p.first @ d).tocsr() @ y[:n_values]
        second = (p.second @ d).tocsr() @ y[:n_values]
        out: dict[str, Any] = {}
        power = ~self.near_one
        if np.any(power):
            orders, budgets = self.orders[power], self.log_budgets[power]
            a = np.repeat(orders, p.size)
            scale = np.log(np.tile(p.weight * p.unit, orders.size))
            scale = np.exp((scale - np.repeat(budgets, p.size)) / a)
            t = cp.Variable(a.size)
            reps = orders.size
            big_first = cp.hstack([first] * reps) if reps > 1 else first
            big_second = cp.hstack([second] * reps) if reps > 1 else second
            out["renyi-cones"] = cp.PowCone3D(t, big_second, cp.multiply(scale, big_first), 1 / a)
            groups = sp.block_diag([p.sums(np.ones(p.size))] * reps, format="csr")
            out["renyi"] = groups @ t <= np.ones(groups.shape[0])
        if self.kl is None and not np.any(self.near_one):
            return out
        r = cp.Variable(p.size)
        out["kl-cones"] = r >= cp.rel_entr(first, second)
        sums = p.sums(p.weight * p.unit)
        if self.kl is not None:
            out["kl"] = sums @ r <= np.full(p.groups, self.kl)
        if np.any(self.near_one):
            reps = int(np.count_nonzero(self.near_one))
            kl_form = sums @ r - sums @ first + sums @ second  # Σ w m⁻¹ k(P, Q) per shift
            lin = (sp.csr_matrix(self.near_one_corrections()) @ d).tocsr() @ y[:n_values]
            big = cp.hstack([kl_form] * reps) if reps > 1 else kl_form
            inv = 1.0 / np.repeat(self.near_one_budgets(), p.groups)
            out["renyi-near"] = cp.multiply(inv, big + lin) <= np.ones(reps * p.groups)
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
                d1, d2 = alpha * f / x1, (1.0 - alpha) * f / x2
                parts.append((d1, d2, err, curv / x1**2, curv / x2**2))
                sums.append(p.sums(np.ones(p.size)) @ f)
            if kl is not None:
                ratio = l1 - l2
                f = np.where(pos, w * x1 * ratio, 0.0) / kl
                err = 8.0 * _U * (4.0 + np.abs(l1) + np.abs(l2))
                d1, d2 = w * (ratio + 1.0) / kl, -w * x1 / x2 / kl
                parts.append((d1, d2, err, w / x1 / kl, w * x1 / x2**2 / kl))
                sums.append(p.sums(np.ones(p.size)) @ f)
        out: list[list[FloatArray]] = [[], [], []]
        t1, t2, a1, a2, q1, q2 = self._transposed
        for d1, d2, err, h1, h2 in parts:
            d1, d2 = np.where(pos, d1, 0.0), np.where(pos, d2, 0.0)
            h1, h2 = np.where(pos, h1, 0.0), np.where(pos, h2, 0.0)
            out[0].append(self._grouped(t1, d1) + self._grouped(t2, d2))
            out[1].append(self._grouped(a1, np.abs(d1) * err) + self._grouped(a2, np.abs(d2) * err))
            out[2].append(self._grouped(q1, h1) + self._grouped(q2, h2))
        dense = [np.vstack(rows) if rows else np.zeros((0, values.size)) for rows in out]
        total = np.concatenate(sums) if sums else np.zeros(0)
        return total, dense[0], dense[1], dense[2]

    @functools.cached_property
    def _transposed(self) -> tuple[sp.csr_matrix, ...]:
        """``firstᵀ``, ``secondᵀ``, their absolute values and squares (values × pairs)."""
        p = self.pairs
        first, second = p.first.tocsr(), p.second.tocsr()
        squares = (first.multiply(first), second.multiply(second))
        pieces = (first, second, abs(first), abs(second), *squares)
        return tuple(m.T.tocsr() for m in pieces)

    def _grouped(self, transposed: sp.csr_matrix, coefficients: FloatArray) -> FloatArray:
        """``Σ_{pairs of group g} coefficients_p · row_p`` for every group (groups × values):
        the matrix ``sums(coefficients) @ rows`` as one sparse-by-dense product."""
        p = self.pairs
        weights = np.zeros((p.size, p.groups))
        weights[np.arange(p.size), p.group] = coefficients
        return np.asarray(transposed @ weights, dtype=np.float64).T
