"""Linear rows of a mechanism-matrix LP: the layout of its variables and the caller's constraints.

The local LP's variables are one vector ``z = [vec(Q), t, Z]``: the mechanism ``Q`` (``n × m``,
row-major), the column minima ``t`` of the envelope rows (``m``) and, when
`Monotone` is asked for, the cumulative differences ``Z``
(``(n − 1) × m``) of consecutive rows. Every family of rows is a sparse matrix on ``z`` with a
right-hand side, kept by name (`RowFamily`): the builder hands them to cvxpy, the
Lagrangian bound relaxes them with the solver's multipliers, and the residuals of the returned
mechanism are computed from ``Q`` directly (`residual`).

`constraint_rows` translates each declarative constraint of
`optmech.constraints` for a mechanism matrix (the variable every
count-query and local LP shares) and refuses the others by name:

* ``Unbiased``: ``Σ_r Q[i, r] y_r = x_i`` (Badanidiyuru et al. (2023)), divided by
  ``max(1, max |y|)``;
* ``MaxRisk(b)``: ``Σ_r Q[i, r] L[i, r] ≤ b`` for every input, divided by b;
* ``Monotone``: ``Z[i, c] = Σ_{r ≤ c} (Q[i, r] − Q[i+1, r]) ≥ 0`` through ``Z[i, c] − Z[i, c−1]
  − Q[i, c] + Q[i+1, c] = 0`` (four entries a row, instead of the ``O(m)`` of a cumulative sum);
* ``TailBound(t, q)``: ``Σ_{r : |y_r − x_i| > t} Q[i, r] ≤ q`` for every input;
* ``MaxCost(c, b)``: ``Σ_i p_i Σ_r Q[i, r] c(y_r − x_i) ≤ b`` with a prior, else for every input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.constraints import (
    Constraint,
    MaxCost,
    MaxRisk,
    Monotone,
    TailBound,
    Unbiased,
)
from optmech.lp.matrix.envelope_setting import LocalSetting

__all__ = ["Layout", "RowFamily", "constraint_rows", "per_input_rows", "residual", "residual_scale"]

#: The declarative constraints a mechanism-matrix LP translates.
SUPPORTED = (Unbiased, MaxRisk, Monotone, TailBound, MaxCost)


@dataclass(frozen=True)
class Layout:
    """Where ``Q``, ``t`` and ``Z`` sit in the LP's variable vector ``z``."""

    num_inputs: int
    num_outputs: int
    monotone: bool = False

    @property
    def entries(self) -> int:
        """``n·m``, the mechanism's entries (the first block of ``z``)."""
        return self.num_inputs * self.num_outputs

    @property
    def envelope(self) -> slice:
        """The column minima ``t``."""
        return slice(self.entries, self.entries + self.num_outputs)

    @property
    def cumulative(self) -> slice:
        """``Z`` (empty without ``Monotone``)."""
        start = self.entries + self.num_outputs
        size = (self.num_inputs - 1) * self.num_outputs if self.monotone else 0
        return slice(start, start + size)

    @property
    def size(self) -> int:
        """Length of ``z``."""
        return self.cumulative.stop

    def on_z(self, values: FloatArray) -> FloatArray:
        """A vector on ``z``: ``values`` (``n × m``) in the block of ``Q``, zeros elsewhere."""
        out = np.zeros(self.size)
        out[: self.entries] = values.ravel()
        return out


@dataclass(frozen=True)
class RowFamily:
    """One family of rows ``A z (= or ≤) b``, scaled to O(1) coefficients, named by its
    constraint's ``repr`` (or ``"envelope lower"``, ...). ``tighten`` is how much ``rhs`` shrinks
    per unit of margin when the LP is re-solved with one (None for equalities and rows that must
    stay tight)."""

    name: str
    matrix: sp.csr_matrix = field(repr=False)
    rhs: FloatArray = field(repr=False)
    equality: bool
    tighten: FloatArray | None = field(default=None, repr=False)

    def rhs_with(self, margin: float) -> FloatArray:
        """The right-hand side tightened by ``margin`` (inequalities only)."""
        if margin == 0 or self.tighten is None:
            return self.rhs
        return self.rhs - margin * self.tighten


def per_input_rows(layout: Layout, values: FloatArray) -> sp.csr_matrix:
    """Rows ``Σ_r values[i, r] Q[i, r]``, one per input, on ``z``."""
    n, m = values.shape
    rows = np.repeat(np.arange(n), m)
    return sp.csr_matrix((values.ravel(), (rows, np.arange(n * m))), shape=(n, layout.size))


def _monotone(layout: Layout) -> sp.csr_matrix:
    """``Z[i, c] − Z[i, c−1] − Q[i, c] + Q[i+1, c] = 0`` (``Z[i, −1] = 0``)."""
    n, m = layout.num_inputs, layout.num_outputs
    i = np.repeat(np.arange(n - 1), m)
    c = np.tile(np.arange(m), n - 1)
    row = i * m + c  # also the position of Q[i, c] in z, and row + m that of Q[i + 1, c]
    z0 = layout.cumulative.start
    parts = [
        (row, z0 + row, np.ones(row.size)),
        (row[c > 0], z0 + row[c > 0] - 1, -np.ones(int(np.sum(c > 0)))),
        (row, row, -np.ones(row.size)),
        (row, row + m, np.ones(row.size)),
    ]
    r, k, v = (np.concatenate(a) for a in zip(*parts, strict=True))
    return sp.csr_matrix((v, (r, k)), shape=((n - 1) * m, layout.size))


def constraint_rows(
    constraint: Constraint, setting: LocalSetting, layout: Layout, *, designer: str
) -> RowFamily:
    """The rows of one declarative constraint on a mechanism matrix (module docstring).

    Raises
    ------
    ValueError
        A constraint this LP does not translate (named, with the designer's name).
    """
    x, y, n = setting.inputs, setting.outputs, setting.num_inputs
    name = constraint.name
    if isinstance(constraint, Unbiased):
        # Rows with one support have means spanning the inputs only with outputs beyond them.
        if not (y[0] < x[0] and y[-1] > x[-1]):
            raise ValueError(
                "`outputs` must reach strictly below the smallest input and above the largest for "
                f"Unbiased(): inputs span [{x[0]:g}, {x[-1]:g}], outputs [{y[0]:g}, {y[-1]:g}]. "
                "Widen the output grid, e.g. by the inputs' range on each side."
            )
        scale = residual_scale(constraint, setting)
        values = np.broadcast_to(y[None, :] / scale, setting.loss.shape)
        return RowFamily(name, per_input_rows(layout, values), x / scale, True)
    if isinstance(constraint, MaxRisk):
        a = per_input_rows(layout, setting.loss / constraint.bound)
        return RowFamily(name, a, np.ones(n), False, np.ones(n))
    if isinstance(constraint, Monotone):
        k = (n - 1) * setting.num_outputs
        return RowFamily(name, _monotone(layout), np.zeros(k), True)
    if isinstance(constraint, TailBound):
        far = (np.abs(y[None, :] - x[:, None]) > constraint.t).astype(np.float64)
        rhs = np.full(n, constraint.probability)
        return RowFamily(name, per_input_rows(layout, far), rhs, False, np.ones(n))
    if isinstance(constraint, MaxCost):
        cost = constraint.values(x, y) / constraint.bound
        if setting.prior is None:
            a = per_input_rows(layout, cost)
            return RowFamily(name, a, np.ones(n), False, np.ones(n))
        weights = (setting.prior[:, None] * cost).ravel()
        rows = np.zeros(weights.size, dtype=np.int64)
        a = sp.csr_matrix((weights, (rows, np.arange(weights.size))), shape=(1, layout.size))
        return RowFamily(name, a, np.ones(1), False, np.ones(1))
    raise ValueError(
        f"{designer} does not support the constraint {name}; it takes "
        f"{', '.join(c.__name__ + '()' for c in SUPPORTED)} and callables."
    )


def residual(constraint: Constraint, setting: LocalSetting, mechanism: FloatArray) -> float:
    """Largest violation of ``constraint`` by ``mechanism``, relative to its scale
    (`residual_scale`; 0 when it holds), computed from the matrix itself."""
    q = mechanism
    x, y = setting.inputs, setting.outputs
    if isinstance(constraint, Unbiased):
        excess = float(np.max(np.abs(q @ y - x)))
    elif isinstance(constraint, MaxRisk):
        excess = float(np.max(np.sum(q * setting.loss, axis=1))) - constraint.bound
    elif isinstance(constraint, Monotone):
        cum = np.cumsum(q, axis=1)
        excess = float(np.max(cum[1:] - cum[:-1]))
    elif isinstance(constraint, TailBound):
        far = np.abs(y[None, :] - x[:, None]) > constraint.t
        excess = float(np.max(np.sum(np.where(far, q, 0.0), axis=1))) - constraint.probability
    elif isinstance(constraint, MaxCost):
        per_input = np.sum(q * constraint.values(x, y), axis=1)
        worst = np.max(per_input) if setting.prior is None else setting.prior @ per_input
        excess = float(worst) - constraint.bound
    else:  # pragma: no cover - refused by constraint_rows
        raise ValueError(f"no residual for {constraint.name}")
    return max(0.0, excess) / residual_scale(constraint, setting)


def residual_scale(constraint: Constraint, setting: LocalSetting) -> float:
    """The magnitude a residual is relative to (for the provenance)."""
    if isinstance(constraint, Unbiased):
        return max(1.0, float(np.max(np.abs(setting.outputs))))
    if isinstance(constraint, MaxRisk | MaxCost):
        return float(constraint.bound)
    return 1.0
