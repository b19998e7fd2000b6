"""Rigorous lower bounds on a user LP from multipliers of its row sums alone (tree graphs).

Write the user LP on a tree neighbour graph (Ghosh, Roughgarden & Sundararajan (2012), LP
(2)–(6)) by columns: ``x_r = X[:, r]`` lies in the cone K of ε-DP columns
(`optmech.lp.user.cone`) and the only coupling rows are the row sums,

    minimise  Σ_r c_r · x_r   subject to   Σ_r x_r = 1,   x_r ∈ K for every r.

**The bound.** Let ``y ∈ ℝ^N`` be *any* vector (in practice the row-sum multipliers of the
restricted master of column generation) and ``t`` a shift with ``c_r − y + t·1 ∈ K*`` for every
column r (`least_shift`; the dual cone ``K*`` contains
``1`` because K is in the non-negative orthant, so such a ``t`` exists). Then ``y' = y − t·1`` is
feasible for the Lagrangian dual, and for every feasible X

    Σ_r c_r · x_r = Σ_r (c_r − y') · x_r + y' · Σ_r x_r ≥ 0 + Σ_i y'_i = Σ_i y_i − N t,

since each ``(c_r − y') · x_r ≥ 0`` (``x_r ∈ K``). This is the Lagrangian (Dantzig–Wolfe)
bound; at an optimal master the shift is the most negative reduced cost per unit of row mass,
and it vanishes when no column prices out, so the bound closes on the optimum. Its validity
needs nothing from the solver: ``y`` may be any floats.

**Epigraph objectives** (``min max_k F_k · vec(X)`` with non-negative forms; a minimax user,
Gupte & Sundararajan (2010)): for weights ``w ≥ 0`` with ``Σ w ≤ 1``
(``simplex_weights`` of `optmech.lp.matrix.bounds`) ``max_k F_k · x ≥ Σ_k w_k F_k · x``
and the linear bound above applies to ``c_r = (Σ_k w_k F_k)[:, r]``, with ``y`` the row-sum
multipliers divided by the epigraph multipliers' total.

**Rounding.** The columns are taken in blocks (each block's proved shift proves its columns at
any larger shift, so the largest is kept). ``c − y + t`` is rounded down before the DP (a
smaller vector only weakens the claim: the difference is non-negative, in ``K*``), the shift is
proved by the rounded-down DP, and ``Σ y`` (``math.fsum``, correctly rounded) and ``N t`` are
rounded outward, as `optmech.lp.bounds` does.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray, U
from optmech.lp.matrix.bounds import simplex_weights
from optmech.lp.user.cone import RootedTree, column_blocks, least_shift

__all__ = ["dual_cone_bound", "epigraph_cone_bound", "linear_cone_bound"]


def dual_cone_bound(
    coefficients: FloatArray,
    multipliers: npt.ArrayLike,
    tree: RootedTree,
    epsilon: float,
    shift: float | None = None,
    floor: float | None = None,
) -> float:
    """``Σ y − N t`` rounded down: a lower bound on ``min Σ_r c_r · x_r`` (module docstring).

    Parameters
    ----------
    coefficients : ndarray, shape (N, m)
        ``c[:, r]``, taken as exact (or as lower bounds of the exact coefficients).
    multipliers : array_like, shape (N,)
        Any ``y``; the bound is tight when ``y`` solves the Lagrangian dual.
    tree : RootedTree
        The neighbour graph.
    epsilon : float
        Privacy level.
    shift : float, optional
        An estimate of the least shift (where its proof starts; any value is safe).
    floor : float, optional
        A lower estimate of the least shift (where its search may stop; any value is safe).

    Returns
    -------
    float
        The bound (``-inf`` if ``y`` is not finite).

    Examples
    --------
    The 2-row path at ``e^ε = 3`` with costs ``c = [[0, 1], [1, 0]]``: the optimum is
    ``2 · 1/4`` (answer truthfully with probability 3/4), and ``y = (1/4, 1/4)`` proves it:

    >>> c = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> bound = dual_cone_bound(c, [0.25, 0.25], RootedTree.path(2), math.log(3))
    >>> 0.5 - 1e-9 < bound <= 0.5
    True
    """
    y = np.asarray(multipliers, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(y)):
        return -math.inf
    n, m = coefficients.shape
    t = -math.inf  # the largest proved shift of the blocks proves every column (monotone)
    for cols in column_blocks(n, m):
        block = coefficients[:, cols]
        t = max(t, least_shift(block, tree, epsilon, shift, multipliers=y, floor=floor))
    total = math.nextafter(math.fsum(y.tolist()), -math.inf)
    paid = math.nextafter(y.size * t, math.inf)
    return math.nextafter(total - paid, -math.inf)


def linear_cone_bound(
    weights: FloatArray,
    multipliers: npt.ArrayLike,
    tree: RootedTree,
    epsilon: float,
    shift: float | None = None,
    floor: float | None = None,
) -> float:
    """A rigorous lower bound on ``min Σ W ⊙ X`` (a Bayesian user; ``W ≥ 0``).

    ``max(0, dual_cone_bound(W, y))``: the optimum of a non-negative objective is at least 0.
    """
    return max(dual_cone_bound(weights, multipliers, tree, epsilon, shift, floor), 0.0)


def epigraph_cone_bound(
    forms: sp.csr_matrix,
    shape: tuple[int, int],
    multipliers: npt.ArrayLike,
    epigraph_multipliers: npt.ArrayLike | None,
    tree: RootedTree,
    epsilon: float,
    shift: float | None = None,
    floor: float | None = None,
) -> float:
    """A rigorous lower bound on ``min max_k F_k · vec(X)`` (non-negative forms, row-major).

    Parameters
    ----------
    forms : scipy.sparse matrix, shape (K, N·m)
        The true forms.
    shape : (int, int)
        ``(N, m)``.
    multipliers : array_like, shape (N,)
        Of the row sums, in the forms' units.
    epigraph_multipliers : array_like, shape (K,), optional
        Of the rows ``F_k · vec(X) ≤ t`` (non-negative; normalised here).
    tree, epsilon
        As for `dual_cone_bound`.
    shift, floor : float, optional
        Estimates of the least shift for the normalised weights (as for
        `dual_cone_bound`).

    Returns
    -------
    float
        ``max(bound, 0)``; 0 without positive epigraph multipliers.
    """
    normalised = simplex_weights(epigraph_multipliers)
    if normalised is None:
        return 0.0
    w, total = normalised
    f = sp.csr_matrix(forms)
    terms = int(np.max(np.diff(f.tocsc().indptr), initial=1))
    combined = np.asarray(f.T @ w).reshape(shape)
    # Non-negative terms: the computed sum is at most (1 + γ_k) times the exact one.
    below = np.nextafter(combined * (1.0 - (terms + 2) * U / (1.0 - (terms + 2) * U)), -np.inf)
    y = np.asarray(multipliers, dtype=np.float64).reshape(-1) / total
    return max(dual_cone_bound(np.maximum(below, 0.0), y, tree, epsilon, shift, floor), 0.0)
