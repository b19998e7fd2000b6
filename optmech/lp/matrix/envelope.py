"""The envelope LP of a local randomizer, as a cvxpy problem with named row families.

Every pair of inputs is a pair of neighbours, so the ``n(n − 1)·m`` pairwise rows
``Q[i, r] ≤ e^ε Q[j, r]`` would grow with the square of the inputs. Per column they say
``max_i Q[i, r] ≤ e^ε min_i Q[i, r]``, which one extra variable per column states in ``2·n·m``
rows (the *envelope* form):

    t_r ≤ Q[i, r] ≤ e^ε t_r        for every input i and output r.

(If ``Q`` meets these, ``Q[i, r] ≤ e^ε t_r ≤ e^ε Q[j, r]``; conversely ``t_r = min_i Q[i, r]``
meets them.) The objective is Bayesian, ``Σ_i p_i Σ_r Q[i, r] L[i, r]`` (Ghazi et al. (2023),
), or minimax, ``min s`` subject to ``Σ_r Q[i, r] L[i, r] ≤ s`` for every input. The rows are
written as `optmech.lp.solve.Strategy` asks: ``Q − e^ε t ≤ 0`` as
built, or ``e^(−ε) Q − t ≤ 0`` rescaled (largest coefficient 1).

**The lower bound** (`local_bound`) is weak duality over this LP: each row of ``Q`` stays in the
probability simplex, the column minima ``t`` and the cumulative differences ``Z`` stay in the
box ``[0, 1]`` (valid: ``t_r ≤ Q[i, r] ≤ 1``, and a difference of two distribution functions
lies in ``[−1, 1]``, here in ``[0, 1]`` as ``Z ≥ 0``), and every other family is relaxed with
its multipliers; `lagrangian_bound` rounds each step down. The rows are those of the problem
*asked* (at ε, with the caller's bounds), whatever margin the solved LP had: a multiplier is
valid for any row, so the bound holds for the problem asked. A minimax objective ``min max_i
L[i] · Q[i]`` is reduced to the linear one with the epigraph multipliers normalised to weights
``w``, ``Σ w ≤ 1`` (`optmech.lp.matrix.bounds.simplex_weights`; Gupte & Sundararajan (2010)),
and the other multipliers divided by the same sum. A callable's cvxpy constraints enter the
relaxation as rows too when they are affine in the LP's variable: their coefficients are
cvxpy's Jacobian of the constraint's expression (`custom_rows`); others are dropped from the
relaxation, which only weakens it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.lp.bounds import SimplexBlocks, lagrangian_bound
from optmech.lp.matrix.bounds import simplex_weights
from optmech.lp.matrix.build import finite_dual, finite_point
from optmech.lp.matrix.rows import Layout, RowFamily, per_input_rows

__all__ = [
    "LocalLP",
    "Objective",
    "build_local_lp",
    "custom_rows",
    "custom_variables",
    "envelope_rows",
    "local_bound",
    "simplex_rows",
]


@dataclass(frozen=True)
class Objective:
    """What the LP minimises: ``Σ W ⊙ Q`` (``weights``) or ``max_i L[i] · Q[i]`` (``forms``)."""

    weights: FloatArray | None = field(default=None, repr=False)
    forms: FloatArray | None = field(default=None, repr=False)

    @property
    def minimax(self) -> bool:
        """Whether the objective is the worst input's expected loss."""
        return self.forms is not None

    @property
    def matrix(self) -> FloatArray:
        """The weights (Bayesian) or the loss matrix (minimax)."""
        out = self.forms if self.forms is not None else self.weights
        assert out is not None
        return out

    def value(self, mechanism: FloatArray) -> float:
        """The objective at ``mechanism`` in plain floating point."""
        if self.forms is not None:
            return float(np.max(np.sum(self.forms * mechanism, axis=1)))
        return float(np.sum(self.matrix * mechanism))


def envelope_rows(layout: Layout, epsilon: float, rescaled: bool) -> tuple[RowFamily, RowFamily]:
    """``t_r − Q[i, r] ≤ 0`` and ``Q[i, r] − e^ε t_r ≤ 0`` (or ``e^(−ε) Q[i, r] − t_r ≤ 0``)."""
    n, m = layout.num_inputs, layout.num_outputs
    entries = np.arange(n * m)
    t_index = layout.envelope.start + np.tile(np.arange(m), n)
    lo, hi = (math.exp(-epsilon), 1.0) if rescaled else (1.0, math.exp(epsilon))
    rows = np.concatenate([entries, entries])
    cols = np.concatenate([t_index, entries])
    ones, shape = np.ones(n * m), (n * m, layout.size)
    lower = sp.csr_matrix((np.concatenate([ones, -ones]), (rows, cols)), shape=shape)
    upper = sp.csr_matrix((np.concatenate([-hi * ones, lo * ones]), (rows, cols)), shape=shape)
    zeros = np.zeros(n * m)
    return (
        RowFamily("envelope lower", lower, zeros, False),
        RowFamily("envelope upper", upper, zeros, False),
    )


def simplex_rows(layout: Layout) -> sp.csr_matrix:
    """``Σ_r Q[i, r]`` for every input, on ``z``."""
    return per_input_rows(layout, np.ones((layout.num_inputs, layout.num_outputs)))


def _flat(value: FloatArray | None) -> FloatArray | None:
    return None if value is None else value.reshape(-1)


@dataclass(frozen=True)
class LocalLP:
    """A built envelope LP: the problem, its variable ``z = [vec(Q), t, Z]`` (`Layout`), the
    constraints of its row families (in their order), the epigraph rows ``L[i] · Q[i] / factor
    ≤ s`` of a minimax objective and the constraints of the caller's callables."""

    problem: cp.Problem
    z: cp.Variable
    layout: Layout
    constraints: tuple[cp.Constraint, ...]
    epigraph: cp.Constraint | None = None
    custom: tuple[cp.Constraint, ...] = ()

    def point(self) -> FloatArray:
        """The solver's ``z``, checked finite."""
        return finite_point(self.z)

    def mechanism(self) -> FloatArray:
        """The ``(n, m)`` block of the solver's point."""
        return self.point()[: self.layout.entries].reshape(self.layout.num_inputs, -1)

    def duals(self) -> list[FloatArray | None]:
        """The multipliers of each family, flat (``None`` where missing or not finite)."""
        return [_flat(finite_dual(con)) for con in self.constraints]

    def epigraph_duals(self) -> FloatArray | None:
        """The multipliers of the epigraph rows (minimax)."""
        return _flat(finite_dual(self.epigraph))


Custom = Callable[[Any], Any]


def custom_variables(layout: Layout, z: cp.Variable | cp.Expression) -> SimpleNamespace:
    """What a caller's callable receives: ``mechanism``, the ``(n, m)`` matrix, and
    ``envelope``, the column minima."""
    n, m = layout.num_inputs, layout.num_outputs
    return SimpleNamespace(
        mechanism=cp.reshape(z[: n * m], (n, m), order="C"), envelope=z[layout.envelope]
    )


def build_local_lp(
    objective: Objective,
    layout: Layout,
    families: list[RowFamily],
    *,
    factor: float,
    margin: float = 0.0,
    custom: list[Custom] | None = None,
) -> LocalLP:
    """Build the envelope LP (module docstring) over the given row families: privacy rows and
    the caller's constraints, the inequalities tightened by ``margin`` (relative). The
    objective is divided by ``factor`` (its value at a known mechanism, so the optimum is
    O(1)); each of ``custom`` returns cvxpy constraints on `custom_variables`."""
    z = cp.Variable(layout.size, nonneg=True, name="z")
    cons = []
    for fam in families:
        expr = fam.matrix @ z
        rhs = fam.rhs_with(margin)
        cons.append(expr == rhs if fam.equality else expr <= rhs)
    all_cons: list[cp.Constraint] = [*cons, simplex_rows(layout) @ z == 1]
    epigraph = None
    if objective.minimax:
        worst = cp.Variable(name="worst_case")
        epigraph = per_input_rows(layout, objective.matrix / factor) @ z <= worst
        all_cons.append(epigraph)
        goal = cp.Minimize(worst)
    else:
        goal = cp.Minimize(layout.on_z(objective.matrix / factor) @ z)
    added: list[cp.Constraint] = []
    if custom:
        variables = custom_variables(layout, z)
        for fn in custom:
            added += list(fn(variables))
    return LocalLP(
        problem=cp.Problem(goal, [*added, *all_cons]),
        z=z,
        layout=layout,
        constraints=tuple(cons),
        epigraph=epigraph,
        custom=tuple(added),
    )


def custom_rows(
    constraints: tuple[cp.Constraint, ...], z: cp.Variable
) -> tuple[list[RowFamily], list[FloatArray | None]]:
    """The affine constraints among ``constraints`` as row families on ``z`` (with the point
    ``z.value`` the solver left), and their multipliers; other constraints are skipped."""
    families: list[RowFamily] = []
    duals: list[FloatArray | None] = []
    for con in constraints:
        expr = getattr(con, "expr", None)
        equality = isinstance(con, cp.constraints.Equality | cp.constraints.Zero)
        inequality = isinstance(con, cp.constraints.Inequality | cp.constraints.NonPos)
        if expr is None or not (equality or inequality) or not expr.is_affine():
            continue
        if {v.id for v in expr.variables()} != {z.id} or z.value is None:
            continue
        grad = expr.grad.get(z)
        if grad is None:
            continue
        a = sp.csr_matrix(grad).T.tocsr()
        value = np.asarray(expr.value, dtype=np.float64).reshape(-1, order="F")
        rhs = a @ np.asarray(z.value, dtype=np.float64) - value
        dual = con.dual_value
        mult = None if dual is None else np.asarray(dual, dtype=np.float64).reshape(-1, order="F")
        families.append(RowFamily(f"custom {con.id}", a, rhs, equality))
        duals.append(mult if mult is not None and np.all(np.isfinite(mult)) else None)
    return families, duals


def _stack(
    families: list[RowFamily], duals: list[FloatArray | None], equality: bool, scale: float
) -> tuple[sp.csr_matrix | None, FloatArray | None, FloatArray | None] | None:
    """``(A, b, y)`` of the families of one kind; ``None`` when a multiplier is missing."""
    picked = [(f, d) for f, d in zip(families, duals, strict=True) if f.equality == equality]
    if not picked:
        return None, None, None
    if any(d is None or d.size != f.rhs.size for f, d in picked):
        return None
    a = sp.vstack([f.matrix for f, _ in picked], format="csr")
    b = np.concatenate([f.rhs for f, _ in picked])
    y = np.concatenate([d for _, d in picked]) * scale  # type: ignore[misc]
    return a, b, y


def local_bound(
    objective: Objective,
    layout: Layout,
    families: list[RowFamily],
    duals: list[FloatArray | None],
    *,
    factor: float,
    epigraph: FloatArray | None = None,
) -> float:
    """A lower bound on the optimum of the true (unscaled) ``objective`` (module docstring);
    ``-inf`` without usable multipliers. ``families`` are the rows of the problem asked (at ε,
    unmargined) and ``duals`` the solver's multipliers of each, for the LP scaled by
    ``factor``; ``epigraph`` those of the epigraph rows of a minimax LP."""
    scale = factor
    if objective.minimax:
        weights = simplex_weights(epigraph)
        if weights is None:
            return -np.inf
        w, total = weights
        c = layout.on_z(w[:, None] * objective.matrix)
        scale = factor / total
    else:
        c = layout.on_z(objective.matrix)
    ub = _stack(families, duals, False, scale)
    eq = _stack(families, duals, True, scale)
    if ub is None or eq is None:
        return -np.inf
    n = layout.num_inputs
    block = np.full(layout.size, -1, dtype=np.int64)
    block[: layout.entries] = np.repeat(np.arange(n), layout.num_outputs)
    bound = lagrangian_bound(
        c,
        a_ub=ub[0],
        b_ub=ub[1],
        y_ub=ub[2],
        a_eq=eq[0],
        b_eq=eq[1],
        y_eq=eq[2],
        blocks=SimplexBlocks(block, np.ones(layout.size), np.ones(n)),
        lower=np.zeros(layout.size),
        upper=np.ones(layout.size),
    )
    return max(bound, 0.0)
