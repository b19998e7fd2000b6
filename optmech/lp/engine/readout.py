"""The solver's side of a row-block LP: one attempt's problem, its scalings, and reading back.

The additive designers (1-D and 2-D) build their LPs once, as matrices in their own units
(`RowRecord`, a mass per variable for the normalisation ``Σ_j a_j z_j = 1``, a cost per variable).
`LPReadout` turns them into a cvxpy problem for one attempt of `optmech.lp.solve.solve_robust` —
columns divided by a scale, rows balanced, the objective divided to O(1) — and maps the solver's
point and multipliers back to the LP's own units, each row block's multipliers read by its name.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import cvxpy as cp
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech.lp.engine.rows import RowRecord, balance
from optmech.lp.solve import Strategy

__all__ = ["NORMALISATION", "LPReadout"]

#: Name of the normalisation constraint (a simplex block, not a row of ``RowRecord``).
NORMALISATION = "normalisation"


@dataclass(frozen=True, kw_only=True)
class LPReadout:
    """The solver's side of a built additive LP (the 1-D and 2-D ones): the problem of one
    attempt, its scalings, and reading its point and multipliers back in the LP's own units,
    with the bounds its certified interval uses.

    The LP supplies ``weights``, ``mass``, ``rows`` and ``num_aux``; the fields below are set
    by its ``for_strategy`` (keyword-only, so they follow the LP's own fields).

    Attributes
    ----------
    objective_factor : float
        The solver's objective is ``weights / objective_factor``.
    col_scale : numpy.ndarray or None
        The solver's variable is ``z / col_scale``.
    problem : cvxpy.Problem
        The solver's problem (None until built for an attempt).
    variable : cvxpy.Variable
        The solver's variable.
    constraints : Mapping[str, cvxpy.Constraint]
        Each row block's constraint by name, and ``"normalisation"``.
    row_scale : Mapping[str, numpy.ndarray]
        The factor each block's rows were multiplied by for the solver.
    strategy : Strategy or None
        The attempt this problem was built for.
    """

    if TYPE_CHECKING:  # fields of the LP itself
        weights: FloatArray
        mass: FloatArray
        rows: RowRecord
        num_aux: int

    objective_factor: float = 1.0
    col_scale: FloatArray | None = None
    problem: Any = None
    variable: Any = None
    constraints: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    row_scale: Mapping[str, FloatArray] = dataclasses.field(default_factory=dict)
    strategy: Strategy | None = None

    @property
    def num_variables(self) -> int:
        """All variables: values, atom or tail scales, auxiliaries."""
        return int(self.weights.size)

    def counts(self) -> dict[str, int]:
        """Variables, rows (the normalisation included) and stored coefficients of the LP as
        built (cones of the Rényi designs not counted), for the logs."""
        return {
            "variables": self.num_variables,
            "rows": self.rows.num_rows + 1,
            "nonzeros": self.rows.nonzeros + int(np.count_nonzero(self.mass)),
        }

    def attempt(self, strategy: Strategy | None, col_scale: FloatArray, *, balanced: bool) -> Any:
        """A copy holding a fresh cvxpy problem for one solver attempt (None: as built).

        Columns divided by ``col_scale``, rows balanced if asked (`balance`), and the objective
        divided by the LP's ``scale`` — or, rescaled, by its largest entry in the solver's units.
        """
        factor = self.scale  # type: ignore[attr-defined]
        if strategy is not None and strategy.rescaled:
            top = float(np.max(np.abs(self.weights * col_scale)))
            factor = top if top > 0 else factor
        y = cp.Variable(self.weights.size, nonneg=True)  # the solver's variable z / col_scale
        d = None if np.all(col_scale == 1.0) else sp.diags(col_scale)
        named: dict[str, Any] = {}
        scales: dict[str, FloatArray] = {}
        for block in self.rows:
            if not block.rows:
                continue
            a, b = ((block.a @ d).tocsr() if d is not None else block.a), block.b
            if balanced:
                scales[block.name] = s = balance(a)
                a, b = (sp.diags(s) @ a).tocsr(), b * s
            named[block.name] = a @ y <= b
        for extra in (getattr(self, "cones", None), getattr(self, "custom", None)):
            if extra is not None:  # any object with ``constraints(y, col_scale)``
                named.update(extra.constraints(y, col_scale))
        norm = sp.csr_matrix((self.mass * col_scale).reshape(1, -1))
        named[NORMALISATION] = norm @ y == np.ones(1)
        objective = cp.Minimize((self.weights / factor * col_scale) @ y)
        return dataclasses.replace(
            self,  # type: ignore[arg-type]
            objective_factor=factor,
            col_scale=col_scale,
            problem=cp.Problem(objective, list(named.values())),
            variable=y,
            constraints=MappingProxyType(named),
            row_scale=MappingProxyType(scales),
            strategy=strategy,
        )

    def value_upper(self, value: float) -> FloatArray:
        """Upper bounds ``min(1/a_j, U/c_j)`` of the value variables at an optimum, ``U ≥`` it.

        ``Σ a_j x_j = 1`` and ``x ≥ 0`` give ``x_j ≤ 1/a_j``; with a cost ``c ≥ 0`` an optimum
        also has ``c_j x_j ≤ c·x ≤ U`` for any ``U`` at least the optimum (the value of a
        feasible point), so restricting the LP to these boxes keeps its optimum.
        """
        k = self.num_variables - self.num_aux
        a, c = self.mass[:k], self.weights[:k]
        upper = 1.0 / a
        if np.all(self.weights >= 0) and math.isfinite(value) and value > 0:
            with np.errstate(divide="ignore"):
                upper = np.minimum(upper, np.where(c > 0, value / c, np.inf))
        return upper * (1.0 + 8.0 * _U)

    def aux_upper(self, value: float) -> FloatArray:
        """Upper bounds of the auxiliaries at an optimum whose value is at most ``value`` (each
        LP knows its own: block minima, hockey-stick terms at `value_upper`)."""
        raise NotImplementedError(f"{type(self).__name__} does not bound its auxiliaries")

    def point(self) -> FloatArray:
        """The solver's point ``z`` (values, atom, auxiliaries) in the LP's own units."""
        assert self.col_scale is not None
        return np.asarray(self.variable.value, dtype=np.float64) * self.col_scale

    def duals(self) -> dict[str, FloatArray] | None:
        """The solver's multipliers of each row block in the LP's own units (None if missing)."""
        out = {}
        for block in self.rows:
            if not block.rows:
                continue
            y = self.constraints[block.name].dual_value
            if y is None:
                return None
            scale = self.row_scale.get(block.name, 1.0) * self.objective_factor
            out[block.name] = np.asarray(y, dtype=np.float64).reshape(-1) * scale
        return out

    def violation(self, z: npt.ArrayLike) -> float:
        """Largest constraint violation of a point (rows, normalisation, bounds), LP units."""
        za = np.asarray(z, dtype=np.float64)
        parts = [0.0, float(np.max(-za, initial=0.0)), abs(float(self.mass @ za) - 1.0)]
        parts += [float(np.max(block.a @ za - block.b)) for block in self.rows if block.rows]
        return max(parts)
