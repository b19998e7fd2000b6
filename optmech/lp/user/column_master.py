"""The restricted master LP of column generation for the user LPs on a tree.

Dantzig–Wolfe decomposition of the user LP (Ghosh, Roughgarden & Sundararajan (2012), LP (2)–(6))
over the cone K of ε-DP columns ([`optmech.lp.user.cone`][optmech.lp.user.cone]): every column of
a mechanism is a non-negative combination of K's extreme rays, so with generated pairs
``(r_j, v_j)`` (an output and a ray) the master LP over ``λ ≥ 0`` is

    Bayesian:  minimise Σ_j (c_{r_j} · v_j) λ_j        subject to  Σ_j λ_j v_j = 1 (N rows)
    epigraph:  minimise s   subject to the same rows and  Σ_j (F_k[:, r_j] · v_j) λ_j ≤ s  ∀k,

and ``X[:, r] = Σ_{j : r_j = r} λ_j v_j`` is ε-DP by construction whatever ``λ ≥ 0`` is (a sum of
rays of K is in K). The master is solved by simplex with its basis kept between rounds
([`optmech.lp.solve.run_incremental`][optmech.lp.solve.run_incremental]).

Rays are stored as their sign patterns (one bit per row) and handed to the solver *truncated*:
entries below [`TRUNCATION`][TRUNCATION] of the ray's maximum are dropped (the rays decay
geometrically, so a column keeps about ``2·ln(1/TRUNCATION)/ε`` entries instead of N: the
master stays sparse). The master is then a slight relaxation in the row sums; the mechanism is
rebuilt from the *full* rays, so it stays exactly ε-DP, and its row sums differ from 1 by at most
the truncated mass (about 1e-11), which the clip-and-normalise step of the repair absorbs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from optmech._floats import BoolArray, FloatArray, IntArray
from optmech.lp.solve import INCREMENTAL_OPTIONS, new_incremental_model, run_incremental
from optmech.lp.user.cone import RootedTree, extreme_rays
from optmech.provenance import Attempt

__all__ = ["NEGLIGIBLE", "TRUNCATION", "MasterDuals", "RestrictedMaster"]

#: Ray entries below this (relative to the ray's maximum, 1) are left out of the master's
#: matrix; above the solver's smallest kept coefficient (``small_matrix_value`` = 1e-12).
TRUNCATION = 1e-11


#: Ray weights below this are dropped when the mechanism is rebuilt (they move the row sums by
#: less than the margin the rebuilt rays leave, and with rays floored at 1e-280 keep every entry
#: of X a normal float).
NEGLIGIBLE = 1e-15


@dataclass(frozen=True)
class MasterDuals:
    """Multipliers of a solved master, in its (scaled) units.

    Attributes
    ----------
    rows : ndarray, shape (N,)
        Of the row sums (free).
    epigraph : ndarray, shape (K,) or None
        Of the rows ``F_k · x ≤ s``, non-negative (epigraph objectives only).
    """

    rows: FloatArray
    epigraph: FloatArray | None = None


class RestrictedMaster:
    """The master LP over the columns generated so far (module docstring).

    Parameters
    ----------
    shape : (int, int)
        ``(N, m)`` of the mechanism.
    tree : RootedTree
        The neighbour graph.
    epsilon : float
        Privacy level.
    weights : ndarray, shape (N, m), optional
        Bayesian costs ``c`` (already scaled).
    forms : scipy.sparse matrix, shape (K, N·m), optional
        Epigraph forms (already scaled), row-major ``vec(X)``.
    """

    def __init__(
        self,
        shape: tuple[int, int],
        tree: RootedTree,
        epsilon: float,
        *,
        weights: FloatArray | None = None,
        forms: sp.csr_matrix | None = None,
    ) -> None:
        self.shape = shape
        self.tree = tree
        self.epsilon = epsilon
        self.weights = weights
        self.forms = None if forms is None else sp.csr_matrix(forms)
        self.model = new_incremental_model()
        n = shape[0]
        k = 0 if self.forms is None else self.forms.shape[0]
        self.num_forms = k
        lower = np.concatenate([np.ones(n), np.full(k, -np.inf)])
        upper = np.concatenate([np.ones(n), np.zeros(k)])
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
        self.nonzeros = 0
        self.iterations = 0
        self.attempts: list[Attempt] = []

    @property
    def num_columns(self) -> int:
        """Generated columns (without the epigraph variable)."""
        return int(sum(o.size for o in self._outputs))

    @property
    def solver_options(self) -> dict[str, object]:
        """The options the master is solved with."""
        return dict(INCREMENTAL_OPTIONS)

    def _column_entries(
        self, outputs: IntArray, rays: FloatArray
    ) -> tuple[FloatArray, sp.csc_matrix]:
        """Costs and the (truncated) matrix entries of new columns."""
        kept = np.where(rays >= TRUNCATION, rays, 0.0)
        body = sp.csc_matrix(kept)
        if self.forms is None:
            assert self.weights is not None
            costs = np.einsum("ir,ir->r", self.weights[:, outputs], kept)
            return costs, body
        m = self.shape[1]
        coo = body.tocoo()
        select = sp.csc_matrix(
            (coo.data, (coo.row * m + outputs[coo.col], coo.col)),
            shape=(self.shape[0] * m, outputs.size),
        )
        risk = sp.csc_matrix(self.forms @ select)
        return np.zeros(outputs.size), sp.vstack([body, risk], format="csc")

    def _append(
        self, outputs: IntArray, rays: FloatArray, packed: np.ndarray, constant: bool
    ) -> None:
        costs, matrix = self._column_entries(outputs, rays)
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
        self.nonzeros += int(matrix.nnz)
        self._outputs.append(np.asarray(outputs, dtype=np.int64))
        self._patterns.append(packed)
        self._constant.append(np.full(k, constant))

    def add_rays(self, outputs: IntArray, descending: BoolArray) -> None:
        """Add the extreme rays of the sign patterns ``descending`` (rows × k) for ``outputs``."""
        if outputs.size == 0:
            return
        rays = extreme_rays(descending, self.tree, self.epsilon)
        self._append(outputs, rays, np.packbits(descending, axis=0), False)

    def add_constant(self, outputs: IntArray) -> None:
        """Add the all-ones column (the constant answer) for each of ``outputs``."""
        n = self.shape[0]
        rays = np.ones((n, outputs.size))
        packed = np.packbits(np.zeros((n, outputs.size), dtype=bool), axis=0)
        self._append(outputs, rays, packed, True)

    def solve(self, variant: str) -> None:
        """Solve from the current basis (attempts recorded in [`attempts`][attempts])."""
        self.attempts += run_incremental(self.model, variant)
        self.iterations += int(self.model.getInfo().simplex_iteration_count)

    @property
    def objective(self) -> float:
        """The master's optimal value (scaled units)."""
        return float(self.model.getInfo().objective_function_value)

    def duals(self) -> MasterDuals:
        """The multipliers (HiGHS reports ``c − Aᵀ(row duals)`` as reduced costs: a ``≤`` row
        at its bound of a minimisation has a non-positive dual, negated here)."""
        duals = np.asarray(self.model.getSolution().row_dual, dtype=np.float64)
        n = self.shape[0]
        if self.num_forms == 0:
            return MasterDuals(duals[:n])
        return MasterDuals(duals[:n], np.clip(-duals[n:], 0.0, None))

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

    def point(self, epsilon: float) -> FloatArray:
        """``X[:, r] = Σ_{j: r_j = r} λ_j v_j`` with the full rays built at ``epsilon``.

        With ``epsilon`` a hair below the master's ε every column of X has ratios at most
        ``e^epsilon``: room for the row normalisation and the certifier's rounding. The rays then
        differ slightly from the master's (and are not truncated), so ``λ`` is corrected by
        iterative refinement with the master's basis, ``λ_B += B⁻¹ (1 − Σ λ_j v_j)`` (twice; the
        epigraph rows keep their residual 0): the row sums come out 1 to about 1e-15, not to the
        truncated mass. Weights below [`NEGLIGIBLE`][NEGLIGIBLE] (negative ones included) are set
        to 0, so no entry of X comes near the subnormal range.
        """
        m = self.shape[1]
        offset = 1 if self.num_forms else 0
        values = np.asarray(self.model.getSolution().col_value, dtype=np.float64)
        lam = np.clip(values[offset:], 0.0, None)
        _, basic = self.model.getBasicVariables()
        basic = np.asarray(basic, dtype=np.int64)
        columns = basic[basic >= offset] - offset
        used = np.union1d(np.nonzero(lam > 0)[0], columns)
        rays = self._rays(used, epsilon)
        where = np.searchsorted(used, columns)
        positions = np.nonzero(basic >= offset)[0]
        for _ in range(2):
            residual = np.concatenate([1.0 - rays @ lam[used], np.zeros(self.num_forms)])
            _, step = self.model.getBasisSolve(residual)
            lam[used[where]] += np.asarray(step)[positions]
            lam[lam < NEGLIGIBLE] = 0.0
        outputs = np.concatenate(self._outputs)[used]
        pick = sp.csr_matrix((lam[used], (np.arange(used.size), outputs)), shape=(used.size, m))
        return np.asarray((pick.T @ rays.T).T)
