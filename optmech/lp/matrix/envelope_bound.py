"""A rigorous lower bound on the envelope LP's optimum from the solver's multipliers.

Weak duality over the LP of `optmech.lp.matrix.envelope`: each
row of ``Q``
stays in the probability simplex, the column minima ``t`` and the cumulative differences ``Z``
stay in the box ``[0, 1]`` (valid: ``t_r ≤ Q[i, r] ≤ 1``, and a difference of two
distribution functions lies in ``[−1, 1]``, here in ``[0, 1]`` as ``Z ≥ 0``), and every other
family is relaxed with its multipliers;
`lagrangian_bound` rounds each step down. The rows are
those of the problem *asked* (at ε, with the caller's bounds), whatever margin the solved LP had: a
multiplier is valid for any row, so the bound
holds for the problem asked. A minimax objective ``min max_i L[i] · Q[i]`` is reduced to the
linear one with the epigraph multipliers normalised to weights ``w``, ``Σ w ≤ 1``
(`optmech.lp.matrix.bounds.simplex_weights`; Gupte & Sundararajan (2010)), and
the other multipliers divided by the same sum.

A callable's cvxpy constraints enter the relaxation as rows too when they are affine in the LP's
variable: their coefficients are cvxpy's Jacobian of the constraint's expression
(`custom_rows`); others are dropped from the relaxation, which only weakens it.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.lp.bounds import SimplexBlocks, lagrangian_bound
from optmech.lp.matrix.bounds import simplex_weights
from optmech.lp.matrix.envelope import Objective
from optmech.lp.matrix.rows import Layout, RowFamily

__all__ = ["custom_rows", "local_bound"]


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


def _blocks(layout: Layout) -> SimplexBlocks:
    n, m = layout.num_inputs, layout.num_outputs
    block = np.full(layout.size, -1, dtype=np.int64)
    block[: n * m] = np.repeat(np.arange(n), m)
    return SimplexBlocks(block, np.ones(layout.size), np.ones(n))


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
    """A lower bound on the optimum (module docstring); ``-inf`` without usable multipliers.

    Parameters
    ----------
    objective : Objective
        The true (unscaled) objective.
    layout : Layout
    families : list of RowFamily
        The rows of the problem asked (at ε, unmargined), in the order of ``duals``.
    duals : list of ndarray or None
        The solver's multipliers of each family, for the LP scaled by ``factor``.
    factor : float
        The objective divisor of the LP solved.
    epigraph : ndarray, optional
        The epigraph multipliers of a minimax LP.
    """
    n, m = layout.num_inputs, layout.num_outputs
    scale = factor
    c = np.zeros(layout.size)
    if objective.minimax:
        weights = simplex_weights(epigraph)
        if weights is None:
            return -np.inf
        w, total = weights
        c[: n * m] = (w[:, None] * objective.matrix).ravel()
        scale = factor / total
    else:
        c[: n * m] = objective.matrix.ravel()
    ub = _stack(families, duals, False, scale)
    eq = _stack(families, duals, True, scale)
    if ub is None or eq is None:
        return -np.inf
    return max(
        lagrangian_bound(
            c,
            a_ub=ub[0],
            b_ub=ub[1],
            y_ub=ub[2],
            a_eq=eq[0],
            b_eq=eq[1],
            y_eq=eq[2],
            blocks=_blocks(layout),
            lower=np.zeros(layout.size),
            upper=np.ones(layout.size),
        ),
        0.0,
    )
