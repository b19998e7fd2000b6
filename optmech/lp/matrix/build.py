"""Building the user LP as a cvxpy problem, with its constraints *named* (vectorised).

Over oblivious mechanisms ``x[i, r] = P(r | i)`` on a neighbour graph (Ghosh, Roughgarden &
Sundararajan (2012), LP (2)–(6); for a count query the graph is the path ``i ~ i + 1``):

    minimise   Σ W ⊙ X                      (Bayesian)   or   t   (epigraph: minimax, common)
    subject to Σ_r x[i, r] = 1,  x ≥ 0,                        F_k · vec(X) ≤ t  for every k
               x[i, r] ≤ e^ε x[i', r]   for every edge i ~ i' (both directions), every r.

Construction is vectorised (element-wise construction costs more than solving): with the
sparse edge selections ``S_src, S_dst`` of
`optmech.graphs.edge_incidence` the privacy constraints are the two
matrix inequalities ``S_src X ≤ e^ε S_dst X`` and the reverse.

The builder returns a frozen `UserLP` whose fields *are* the constraints (``simplex``,
``forward``, ``backward``, ``epigraph``, ...), so the solver's multipliers are read by name —
``lp.forward.dual_value`` — never by position in ``problem.constraints`` (cvxpy's
``dual_vars[constr.id]``); extra constraints a caller adds come first and shift nothing.

Two knobs, set by `optmech.lp.solve.Strategy` and never by a solver's
name:

* `Bounds`: ``X ≥ 0`` entrywise, or only on the first row — on a connected graph the
  privacy rows imply the rest (``x[j, r] ≥ e^(−ε) x[i, r] ≥ 0`` along every edge), which spares
  an interior-point solver ``N·m`` cone constraints (about 15% of its time at n = 400).
* `RowScaling`: the privacy rows as ``x_a ≤ e^ε x_b`` (as built) or divided by
  ``e^ε``, ``e^(−ε) x_a ≤ x_b`` (largest coefficient 1), which keeps interior-point solvers working
  up to ε = 50 where ``e^ε ≈ 5e21`` (measured, see
  `optmech.lp.user.engine`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import cvxpy as cp
import networkx as nx
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech.exceptions import SolverError
from optmech.graphs import edge_incidence, edge_pairs

__all__ = [
    "Bounds",
    "Duals",
    "LPData",
    "LPForm",
    "RowScaling",
    "UserLP",
    "build_user_lp",
    "build_user_problem",
    "privacy_coefficients",
    "privacy_matrix",
    "row_forms",
]

Extra = Callable[[cp.Variable], list[cp.Constraint]]


class Bounds(StrEnum):
    """Which non-negativity bounds the LP states explicitly."""

    #: ``X ≥ 0`` entrywise (free for simplex: variable bounds).
    ALL = "all"
    #: Only the first row; the privacy rows on a connected graph imply the rest.
    FIRST_ROW = "first"


class RowScaling(StrEnum):
    """How each privacy row ``x_a ≤ e^ε x_b`` is written (the same constraint either way)."""

    #: ``x_a − e^ε x_b ≤ 0``.
    PLAIN = "plain"
    #: ``e^(−ε) x_a − x_b ≤ 0``: largest coefficient 1.
    NORMALISED = "normalised"


@dataclass(frozen=True)
class LPForm:
    """How one solver attempt writes the LP: the bounds it states and the privacy rows' scaling
    (the same feasible set either way)."""

    bounds: Bounds = Bounds.ALL
    scaling: RowScaling = RowScaling.PLAIN


def privacy_coefficients(epsilon: float, scaling: RowScaling) -> tuple[float, float]:
    """``(lo, hi)`` of the rows ``lo · x_a ≤ hi · x_b``: ``(1, e^ε)`` or ``(e^(−ε), 1)``.

    Each is within one ulp of the exact value (``math.exp``); rigorous bounds allow for that.
    """
    if scaling == RowScaling.NORMALISED:
        return math.exp(-epsilon), 1.0
    return 1.0, math.exp(epsilon)


@dataclass(frozen=True)
class LPData:
    """The objective of one build: weights (Bayesian) or the epigraph forms, already scaled.

    Attributes
    ----------
    shape : (int, int)
        ``(N, m)`` of the mechanism.
    weights : ndarray, shape (N, m), optional
        ``Σ W ⊙ X`` is minimised.
    forms : scipy.sparse matrix, shape (K, N·m), optional
        ``max_k F_k · vec(X)`` is minimised (``vec`` row-major) through an epigraph variable.
    """

    shape: tuple[int, int]
    weights: FloatArray | None = None
    forms: sp.csr_matrix | None = None


@dataclass(frozen=True)
class Duals:
    """Multipliers read off a solved `UserLP` by name (``None`` where none were given).

    Attributes
    ----------
    forward, backward : ndarray, shape (|E|, m)
        Of ``lo · x[src] ≤ hi · x[dst]`` and ``lo · x[dst] ≤ hi · x[src]``, edges in the order
        of `optmech.graphs.edge_pairs`.
    epigraph : ndarray, shape (K,)
        Of ``F_k · vec(X) ≤ t``.
    """

    forward: FloatArray | None
    backward: FloatArray | None
    epigraph: FloatArray | None = None


def finite_dual(constraint: cp.Constraint | None) -> FloatArray | None:
    """The multipliers of ``constraint`` (``None`` where missing or not finite)."""
    if constraint is None or constraint.dual_value is None:
        return None
    value = np.asarray(constraint.dual_value, dtype=np.float64)
    return value if np.all(np.isfinite(value)) else None


def finite_point(variable: cp.Variable) -> FloatArray:
    """The solver's value of ``variable``, checked finite (else `SolverError`)."""
    value = variable.value
    if value is None or not np.all(np.isfinite(value)):
        raise SolverError("LP", "no_solution", "the solver returned no finite point")
    return np.asarray(value, dtype=np.float64)


@dataclass(frozen=True)
class UserLP:
    """A built user LP: the problem, its variable and its constraints by name.

    Attributes
    ----------
    problem : cvxpy.Problem
    variable : cvxpy.Variable
        The mechanism ``X`` (N, m), or the orbit representatives of a reduced LP.
    simplex : cvxpy.Constraint
        Row sums equal to 1.
    forward, backward : cvxpy.Constraint or None
        Privacy rows ``lo · S_src X ≤ hi · S_dst X`` and the reverse (a reduced LP keeps one
        family: ``backward`` is then ``None``).
    coefficients : (float, float)
        ``(lo, hi)`` of the privacy rows (`privacy_coefficients`).
    epigraph : cvxpy.Constraint or None
        ``F vec(X) ≤ t`` for an epigraph objective.
    worst_case : cvxpy.Variable or None
        The epigraph variable ``t``.
    first_row : cvxpy.Constraint or None
        ``X[0] ≥ 0`` under `Bounds.FIRST_ROW`.
    extra : tuple of cvxpy.Constraint
        Constraints added by the caller.
    """

    problem: cp.Problem
    variable: cp.Variable
    simplex: cp.Constraint
    forward: cp.Constraint
    backward: cp.Constraint | None
    coefficients: tuple[float, float]
    epigraph: cp.Constraint | None = None
    worst_case: cp.Variable | None = None
    first_row: cp.Constraint | None = None
    extra: tuple[cp.Constraint, ...] = ()

    def point(self) -> FloatArray:
        """The solver's value of `variable` (`finite_point`)."""
        return finite_point(self.variable)

    def duals(self) -> Duals:
        """The multipliers of the named constraints (`finite_dual`)."""
        return Duals(*(finite_dual(c) for c in (self.forward, self.backward, self.epigraph)))


def _at_most(lo: float, a: cp.Expression, hi: float, b: cp.Expression) -> cp.Constraint:
    """``lo · a ≤ hi · b`` without multiplying by an exact 1 (cvxpy would keep the node)."""
    left = a if lo == 1.0 else lo * a
    right = b if hi == 1.0 else hi * b
    return left <= right


def build_user_lp(
    data: LPData,
    epsilon: float,
    graph: nx.Graph,
    *,
    bounds: Bounds = Bounds.ALL,
    scaling: RowScaling = RowScaling.PLAIN,
    extra: Extra | None = None,
) -> UserLP:
    """Build the user LP (vectorised; GRS LP (2)–(6)) with named constraints.

    Parameters
    ----------
    data : LPData
        Objective: weights (``Σ W ⊙ X``) or epigraph forms (``max_k F_k · vec(X)``).
    epsilon : float
        Privacy level.
    graph : networkx.Graph
        Neighbour graph (node order = rows); connected (validated by the caller).
    bounds : Bounds
        ``X ≥ 0`` entrywise, or on the first row only (the privacy rows imply the rest).
    scaling : RowScaling
        How the privacy rows are written.
    extra : callable, optional
        ``extra(X)`` returns more constraints; they come first in ``problem.constraints``.

    Returns
    -------
    UserLP

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.graphs import path_graph
    >>> lp = build_user_lp(LPData((3, 3), weights=np.ones((3, 3))), 1.0, path_graph(2))
    >>> lp.forward.shape, lp.backward.shape, lp.epigraph is None
    ((2, 3), (2, 3), True)
    """
    n_in, n_out = data.shape
    x = cp.Variable((n_in, n_out), nonneg=bounds == Bounds.ALL, name="mechanism")
    s_src, s_dst = edge_incidence(graph)
    lo, hi = privacy_coefficients(epsilon, scaling)
    a, b = s_src @ x, s_dst @ x
    added = tuple(extra(x)) if extra is not None else ()
    simplex = cp.sum(x, axis=1) == 1
    forward = _at_most(lo, a, hi, b)
    backward = _at_most(lo, b, hi, a)
    constraints = [*added, simplex, forward, backward]
    first_row = None
    if bounds == Bounds.FIRST_ROW:
        first_row = x[0] >= 0
        constraints.append(first_row)
    epigraph = worst = None
    if data.forms is None:
        objective = cp.Minimize(cp.sum(cp.multiply(data.weights, x)))
    else:
        worst = cp.Variable(name="worst_case")
        epigraph = data.forms @ cp.vec(x, order="C") <= worst
        constraints.append(epigraph)
        objective = cp.Minimize(worst)
    return UserLP(
        problem=cp.Problem(objective, constraints),
        variable=x,
        simplex=simplex,
        forward=forward,
        backward=backward,
        coefficients=(lo, hi),
        epigraph=epigraph,
        worst_case=worst,
        first_row=first_row,
        extra=added,
    )


def row_forms(loss: FloatArray, rows: IntArray) -> sp.csr_matrix:
    """Epigraph forms of a minimax user: form k is ``L[rows[k]]`` on row ``rows[k]`` of X.

    Examples
    --------
    >>> import numpy as np
    >>> row_forms(np.arange(4.0).reshape(2, 2), np.array([1])).toarray().tolist()
    [[0.0, 0.0, 2.0, 3.0]]
    """
    n_out = loss.shape[1]
    cols = (rows[:, None] * n_out + np.arange(n_out)[None, :]).ravel()
    k = np.repeat(np.arange(rows.size), n_out)
    return sp.csr_matrix((loss[rows].ravel(), (k, cols)), shape=(rows.size, loss.shape[0] * n_out))


def privacy_matrix(graph: nx.Graph, num_outputs: int, lo: float, hi: float) -> sp.csr_matrix:
    """The privacy rows on ``vec(X)`` (row-major): forward ``(e, r)`` rows, then backward.

    Row ``e·m + r`` of the forward block is ``lo · x[src(e), r] − hi · x[dst(e), r]``; the
    backward block swaps ``src`` and ``dst``. The order matches `Duals` flattened.

    Examples
    --------
    >>> from optmech.graphs import path_graph
    >>> privacy_matrix(path_graph(1), 1, 1.0, 2.0).toarray().tolist()
    [[1.0, -2.0], [-2.0, 1.0]]
    """
    src, dst = edge_pairs(graph)
    m = num_outputs
    r = np.tile(np.arange(m), src.size)
    col_src = np.repeat(src, m) * m + r
    col_dst = np.repeat(dst, m) * m + r
    half = col_src.size
    # Exactly two entries per row: CSR built directly (no COO sort), ``lo`` first.
    first, second = np.concatenate([col_src, col_dst]), np.concatenate([col_dst, col_src])
    indices = np.stack([first, second], axis=1).astype(np.int64).ravel()
    indptr = np.arange(0, 4 * half + 1, 2, dtype=np.int64)
    return sp.csr_matrix(
        (np.tile([lo, -hi], 2 * half), indices, indptr),
        shape=(2 * half, graph.number_of_nodes() * m),
    )


def build_user_problem(
    weights: FloatArray,
    epsilon: float,
    graph: nx.Graph,
    *,
    rows: IntArray | None = None,
    extra: Extra | None = None,
    bounds: Bounds | str = Bounds.ALL,
) -> tuple[cp.Problem, cp.Variable]:
    """The user LP as ``(problem, X)``: a short form of `build_user_lp`.

    Parameters
    ----------
    weights : ndarray, shape (N, m)
        Objective coefficients: ``p[:, None] · L`` (Bayesian) or ``L`` (minimax).
    epsilon : float
        Privacy level.
    graph : networkx.Graph
        Neighbour graph (node order = rows).
    rows : ndarray of int, optional
        Minimax: the rows (side information S) whose expected loss is bounded by ``t``.
    extra : callable, optional
        More constraints on ``X``.
    bounds : Bounds or {"all", "first"}
        As `Bounds`.
    """
    shape = (int(weights.shape[0]), int(weights.shape[1]))
    if rows is None:
        data = LPData(shape, weights=weights)
    else:
        data = LPData(shape, forms=row_forms(weights, np.asarray(rows, dtype=np.int64)))
    lp = build_user_lp(data, epsilon, graph, bounds=Bounds(bounds), extra=extra)
    return lp.problem, lp.variable
