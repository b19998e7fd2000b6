"""The restricted master LP of column generation for the user LPs on a tree.

Dantzig–Wolfe decomposition of the user LP (Ghosh, Roughgarden & Sundararajan (2012), LP (2)–(6))
over the cone K of ε-DP columns (`optmech.lp.user.cone`): every column of
a mechanism is a non-negative combination of K's extreme rays, so with generated pairs
``(r_j, v_j)`` (an output and a ray) the master LP over ``λ ≥ 0`` is

    Bayesian:  minimise Σ_j (c_{r_j} · v_j) λ_j        subject to  L Σ_j λ_j v_j = L 1 (N rows)
    epigraph:  minimise s   subject to the same rows and  Σ_j (F_k[:, r_j] · v_j) λ_j ≤ s  ∀k,

and ``X[:, r] = Σ_{j : r_j = r} λ_j v_j`` is ε-DP by construction whatever ``λ ≥ 0`` is (a sum of
rays of K is in K). The row sums are written through the invertible operator L of
`kink_operator` — the same constraints — because ``L v``
is non-zero only at the ray's peaks and valleys: a master column holds a few entries where the
ray has N (measured, Dirichlet prior, |e|, ε = 0.5, n = 4000: the first master's solve took
7.7 s with the plain row sums and truncated rays, 0.1 s with 9,866 nonzeros this way). Its
multipliers ``z`` give those of the plain row sums as ``y = L z`` (L is symmetric). The
master is solved by simplex with its basis kept between rounds
(`optmech.lp.incremental.run_incremental`).

Rays are stored as their sign patterns (one bit per row). In the epigraph rows they are
*truncated*: entries below ``TRUNCATION`` of the ray's maximum are dropped (so a
column keeps about ``2·ln(1/TRUNCATION)/ε`` entries there); kink entries below it are dropped too.
The master is then a slight relaxation; the mechanism is rebuilt from the *full* rays and its
weights refined against them (`RestrictedMaster.point`), so it stays
exactly ε-DP with row sums 1 to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np
import scipy.sparse as sp

from optmech._floats import BoolArray, FloatArray, IntArray
from optmech.lp.incremental import new_incremental_model, run_incremental
from optmech.lp.user.cone import (
    RootedTree,
    column_blocks,
    extreme_rays,
    kink_operator,
    kinks,
)
from optmech.provenance import Attempt

__all__ = ["NEGLIGIBLE", "TRUNCATION", "RestrictedMaster"]

#: Ray entries below this (relative to the ray's maximum, 1) are left out of the master's
#: matrix; above the solver's smallest kept coefficient (``small_matrix_value`` = 1e-12).
TRUNCATION = 1e-11
#: Ray weights below this are dropped when the mechanism is rebuilt (they move the row sums by
#: less than the margin the rebuilt rays leave, and with rays floored at 1e-280 keep every entry
#: of X a normal float).
NEGLIGIBLE = 1e-15


def _truncated(rays: FloatArray) -> sp.csc_matrix:
    """The rays with their entries below `TRUNCATION` dropped."""
    return sp.csc_matrix(np.where(rays >= TRUNCATION, rays, 0.0))


class RestrictedMaster:
    """The master LP over the columns generated so far (module docstring), for the Bayesian
    costs ``weights`` or the epigraph ``forms`` (row-major ``vec(X)``); its objective is the true
    one divided by ``factor`` (so its optimum is O(1))."""

    def __init__(
        self,
        shape: tuple[int, int],
        tree: RootedTree,
        epsilon: float,
        *,
        weights: FloatArray | None = None,
        forms: sp.csr_matrix | None = None,
        factor: float = 1.0,
    ) -> None:
        self.shape = shape
        self.tree = tree
        self.epsilon = epsilon
        self.weights = weights
        self.forms = None if forms is None else sp.csr_matrix(forms)
        self.factor = factor
        self.operator, self.rhs = kink_operator(tree, epsilon)
        self.model = new_incremental_model()
        n = shape[0]
        k = 0 if self.forms is None else self.forms.shape[0]
        self.num_forms = k
        lower = np.concatenate([self.rhs, np.full(k, -np.inf)])
        upper = np.concatenate([self.rhs, np.zeros(k)])
        empty = np.zeros(0, dtype=np.int32)
        self.model.addRows(
            n + k, lower, upper, 0, np.zeros(n + k, dtype=np.int32), empty, np.zeros(0)
        )
        if k:  # the epigraph variable s ≥ 0: cost 1, −1 in every form row
            rows = np.arange(n, n + k, dtype=np.int32)
            self.model.addCols(1, [1.0], [0.0], [np.inf], k, [0], rows, -np.ones(k))
        self._outputs: list[IntArray] = []
        self._patterns: list[np.ndarray] = []  # packed bits, (⌈N/8⌉, k) per batch
        self._constant: list[BoolArray] = []
        self.iterations = 0
        self.attempts: list[Attempt] = []

    @property
    def num_columns(self) -> int:
        """Generated columns (without the epigraph variable)."""
        return int(sum(o.size for o in self._outputs))

    def _risk(self, outputs: IntArray, kept: sp.csc_matrix) -> sp.csc_matrix:
        """The epigraph rows of new columns: ``F_k[:, r_j] · v_j`` (truncated rays)."""
        assert self.forms is not None
        m = self.shape[1]
        coo = kept.tocoo()
        select = sp.csc_matrix(
            (coo.data, (coo.row * m + outputs[coo.col], coo.col)),
            shape=(self.shape[0] * m, outputs.size),
        )
        return sp.csc_matrix(self.forms @ select) / self.factor

    def _append(
        self,
        outputs: IntArray,
        costs: FloatArray,
        body: sp.csc_matrix,
        kept: Callable[[], sp.csc_matrix],
        descending: BoolArray,
        constant: bool = False,
    ) -> None:
        """Hand new columns to the solver: row-sum entries ``body`` (already through L) and, for
        an epigraph objective (no costs), the epigraph rows of the truncated rays ``kept()``."""
        if self.forms is not None:
            matrix = sp.vstack([body, self._risk(outputs, kept())], format="csc")
            costs = np.zeros(outputs.size)
        else:
            matrix = sp.csc_matrix(body)
        matrix.sort_indices()
        k = outputs.size
        self.model.addCols(
            k,
            costs,
            np.zeros(k),
            np.full(k, np.inf),
            matrix.nnz,
            matrix.indptr[:-1].astype(np.int32),
            matrix.indices.astype(np.int32),
            matrix.data,
        )
        self._outputs.append(np.asarray(outputs, dtype=np.int64))
        self._patterns.append(np.packbits(descending, axis=0))
        self._constant.append(np.full(k, constant))

    def _costs(self, outputs: IntArray, rays: FloatArray) -> FloatArray:
        if self.weights is None:
            return np.zeros(outputs.size)
        return np.einsum("ir,ir->r", self.weights[:, outputs], rays) / self.factor

    def add_rays(self, outputs: IntArray, descending: BoolArray) -> None:
        """Add the extreme rays of the sign patterns ``descending`` (rows × k) for ``outputs``."""
        if outputs.size == 0:
            return
        rays = extreme_rays(descending, self.tree, self.epsilon)
        entries = (1.0 - math.exp(-2.0 * self.epsilon)) * kinks(descending, self.tree) * rays
        body = sp.csc_matrix(np.where(np.abs(entries) >= TRUNCATION, entries, 0.0))
        costs = self._costs(outputs, rays)
        self._append(outputs, costs, body, partial(_truncated, rays), descending)

    def add_peaked(
        self, peaks: IntArray, outputs: IntArray, costs: FloatArray, descending: BoolArray
    ) -> None:
        """Add the peaked rays ``e^(−ε d(·, j))`` for ``j`` in ``peaks`` (patterns
        ``descending``), with their costs known (Bayesian, scaled; ignored for an epigraph
        objective).

        ``L v`` is the single entry ``1 − α²`` at the peak; on the path the truncated ray is
        built from its window around the peak, never as a dense matrix.
        """
        k = peaks.size
        if k == 0:
            return
        n = self.shape[0]
        alpha2 = math.exp(-2.0 * self.epsilon)
        body = sp.csc_matrix((np.full(k, 1.0 - alpha2), (peaks, np.arange(k))), shape=(n, k))
        window = partial(self._peaked_window, peaks, descending)
        self._append(outputs, costs, body, window, descending)

    def _peaked_window(self, peaks: IntArray, descending: BoolArray) -> sp.csc_matrix:
        """The truncated peaked rays, sparse (on the path from a window around each peak)."""
        n = self.shape[0]
        if not self.tree.is_path:
            return _truncated(extreme_rays(descending, self.tree, self.epsilon))
        reach = int(math.log(1.0 / TRUNCATION) / self.epsilon)
        offsets = np.arange(-reach, reach + 1)
        rows = peaks[None, :] + offsets[:, None]
        cols = np.broadcast_to(np.arange(peaks.size)[None, :], rows.shape)
        inside = (rows >= 0) & (rows < n)
        values = np.exp(-self.epsilon * np.abs(offsets))[:, None] * np.ones(peaks.size)[None, :]
        return sp.csc_matrix((values[inside], (rows[inside], cols[inside])), shape=(n, peaks.size))

    def add_constant(self, outputs: IntArray) -> None:
        """Add the all-ones column (the constant answer) for each of ``outputs``."""
        ones = np.ones((self.shape[0], outputs.size))
        body = sp.csc_matrix(np.repeat(self.rhs[:, None], outputs.size, axis=1))
        costs = self._costs(outputs, ones)
        descending = np.zeros(ones.shape, dtype=bool)
        self._append(outputs, costs, body, partial(sp.csc_matrix, ones), descending, True)

    def solve(self, variant: str) -> None:
        """Solve from the current basis (attempts recorded in ``attempts``)."""
        self.attempts += run_incremental(self.model, variant)
        self.iterations += int(self.model.getInfo().simplex_iteration_count)

    @property
    def objective(self) -> float:
        """The master's optimal value (scaled units)."""
        return float(self.model.getInfo().objective_function_value)

    def duals(self) -> tuple[FloatArray, FloatArray | None]:
        """The multipliers, in the master's units: of the plain row sums ``Σ_r x[i, r] = 1``
        (``L z`` for those ``z`` of the transformed rows) and, for an epigraph objective, of the
        rows ``F_k · x ≤ s`` (HiGHS reports ``c − Aᵀ(row duals)`` as reduced costs: a ``≤`` row
        at its bound of a minimisation has a non-positive dual, negated here)."""
        duals = np.asarray(self.model.getSolution().row_dual, dtype=np.float64)
        n = self.shape[0]
        rows = np.asarray(self.operator @ duals[:n])
        return rows, (np.clip(-duals[n:], 0.0, None) if self.num_forms else None)

    def _rays(self, columns: IntArray, epsilon: float) -> FloatArray:
        """The full rays of ``columns`` (indices among the generated ones) at ``epsilon``."""
        n = self.shape[0]
        bounds = np.cumsum([0] + [o.size for o in self._outputs])
        batch = np.searchsorted(bounds, columns, side="right") - 1
        bits = np.stack(
            [self._patterns[b][:, j - bounds[b]] for b, j in zip(batch, columns, strict=True)],
            axis=1,
        )
        descending = np.unpackbits(bits, axis=0, count=n).astype(bool)
        rays = extreme_rays(descending, self.tree, epsilon)
        rays[:, np.concatenate(self._constant)[columns]] = 1.0
        return rays

    def _accumulate(
        self, x: FloatArray, columns: IntArray, weights: FloatArray, epsilon: float
    ) -> None:
        """``x[:, r_j] += weights_j v_j`` for ``columns``, in blocks of rays."""
        outputs = np.concatenate(self._outputs)
        order = np.argsort(outputs[columns], kind="stable")
        columns, weights = columns[order], weights[order]
        for part in column_blocks(self.shape[0], columns.size):
            rays = self._rays(columns[part], epsilon)
            rays *= weights[part]
            targets = outputs[columns[part]]  # sorted: sum the runs of one output
            first = np.flatnonzero(np.r_[True, targets[1:] != targets[:-1]])
            x[:, targets[first]] += np.add.reduceat(rays, first, axis=1)

    def point(self, epsilon: float) -> FloatArray:
        """``X[:, r] = Σ_{j: r_j = r} λ_j v_j`` with the full rays built at ``epsilon``.

        With ``epsilon`` a hair below the master's ε every column of X has ratios at most
        ``e^epsilon``: room for the row normalisation and the certifier's rounding. The rays then
        differ slightly from the master's (and are not truncated), so ``λ`` is corrected by
        iterative refinement with the master's basis, ``λ_B += B⁻¹ L(1 − Σ λ_j v_j)`` (at most
        twice; the epigraph rows keep their residual 0): the row sums come out 1 to about 1e-15.
        Weights below ``NEGLIGIBLE`` (negative ones included) are set to 0, so no entry of X
        comes near the subnormal range. The rays are built in blocks, never all at once.
        """
        offset = 1 if self.num_forms else 0
        values = np.asarray(self.model.getSolution().col_value, dtype=np.float64)
        lam = np.clip(values[offset:], 0.0, None)
        lam[lam < NEGLIGIBLE] = 0.0
        _, basic = self.model.getBasicVariables()
        basic = np.asarray(basic, dtype=np.int64)
        columns = basic[basic >= offset] - offset
        positions = np.nonzero(basic >= offset)[0]
        used = np.nonzero(lam > 0)[0]
        x = np.zeros(self.shape)
        self._accumulate(x, used, lam[used], epsilon)
        for _ in range(2):
            residual = 1.0 - x.sum(axis=1)
            if float(np.max(np.abs(residual))) <= 1e-15:
                break
            gap = np.asarray(self.operator @ residual)
            _, step = self.model.getBasisSolve(np.concatenate([gap, np.zeros(self.num_forms)]))
            new = lam.copy()
            new[columns] += np.asarray(step)[positions]
            new[new < NEGLIGIBLE] = 0.0
            changed = np.nonzero(new != lam)[0]
            self._accumulate(x, changed, new[changed] - lam[changed], epsilon)
            lam = new
        return x
