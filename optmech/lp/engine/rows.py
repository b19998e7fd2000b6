"""Named blocks of inequality rows: how every row-block LP keeps its constraints.

An LP of the additive designers (1-D and 2-D) is ``min c·z  s.t.  A z ≤ b,  Σ_j a_j z_j = 1,
z ≥ 0``, its rows grouped into families that each have a name (``"window"``, ``"hockey"``,
``"band"``, ...). A family is a `RowBlock`; the LP keeps them in a frozen
`RowRecord` and reads each one's multipliers by that name (cvxpy's
``dual_vars[constr.id]`` discipline), never by position.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray

__all__ = ["RowBlock", "RowRecord", "balance"]


@dataclass(frozen=True)
class RowBlock:
    """One named family of rows ``a @ z ≤ b`` over all the LP's variables ``z`` (``a`` of shape
    ``(rows, variables)``), named e.g. ``"window"``, ``"hockey"`` or ``"band"``."""

    name: str
    a: sp.csr_matrix
    b: FloatArray

    @property
    def rows(self) -> int:
        """Number of rows."""
        return int(self.a.shape[0])


@dataclass(frozen=True)
class RowRecord:
    """The LP's row blocks by name (frozen, in the order they were built)."""

    blocks: tuple[RowBlock, ...]

    def __iter__(self) -> Iterator[RowBlock]:
        return iter(self.blocks)

    @property
    def names(self) -> tuple[str, ...]:
        """Block names, in order."""
        return tuple(b.name for b in self.blocks)

    @property
    def num_rows(self) -> int:
        """Rows of all blocks."""
        return sum(b.rows for b in self.blocks)

    @property
    def nonzeros(self) -> int:
        """Stored coefficients of all blocks."""
        return sum(int(b.a.nnz) for b in self.blocks)

    def stacked(self, num_variables: int) -> tuple[sp.csr_matrix, FloatArray]:
        """All rows as one ``(A_ub, b_ub)`` (for a direct solver call or a violation check)."""
        if not self.blocks:
            return sp.csr_matrix((0, num_variables)), np.zeros(0)
        return (
            sp.vstack([b.a for b in self.blocks], format="csr"),
            np.concatenate([b.b for b in self.blocks]),
        )


def balance(a: sp.csr_matrix) -> FloatArray:
    """Row scales ``1/√(max|a_ij| · min|a_ij|)`` over each row's nonzeros (1 for empty rows).

    A privacy row ``x_a − e^ε x_b ≤ 0`` becomes ``e^(−ε/2) x_a − e^(ε/2) x_b ≤ 0``: the same
    feasible set, better balanced (`optmech.lp.solve.Strategy`).
    """
    m = abs(a).tocsr()
    m.eliminate_zeros()
    filled = np.diff(m.indptr) > 0
    starts = m.indptr[:-1][filled]
    scale = np.ones(m.shape[0])
    if starts.size:
        top = np.maximum.reduceat(m.data, starts)
        low = np.minimum.reduceat(m.data, starts)
        scale[filled] = 1.0 / np.sqrt(top * low)
    return scale
