"""The cone of ε-DP columns on a tree, and the pricing dynamic programme over it.

On a neighbour graph each output column ``x = X[:, r]`` of an ε-DP mechanism lies in the cone

    K = {x ≥ 0 : x_v ≤ e^ε x_u and x_u ≤ e^ε x_v for every edge u ~ v}

(Ghosh, Roughgarden & Sundararajan (2012), LP (2)–(6): the privacy rows constrain each column on
its own; only the row sums ``Σ_r x[i, r] = 1`` couple the columns). When the graph is a tree —
the path ``0 ~ 1 ~ … ~ n`` of a count query in particular — K has a simple description, and
linear minimisation over it is a linear-time dynamic programme. This is the pricing problem of
Dantzig–Wolfe column generation
(`optmech.lp.user.column_generation`).

**Extreme rays.** Root the tree at a node ``ρ``. A non-zero ``x ∈ K`` is positive everywhere
(``x_v ≥ e^(−ε) x_u`` along edges, the tree is connected), so ``P = K ∩ {x_ρ = 1}`` is a slice
meeting every ray of K once, and it is bounded (``x_v ≤ e^(ε·depth(v))``). A vertex of P has
``N − 1`` tight privacy rows besides ``x_ρ = 1`` (no sign bound is tight); the two rows of one
edge cannot both be tight (``x_v = e^ε x_u = e^(2ε) x_v`` forces ``x_v = 0``), and there are
``N − 1`` edges, so each edge has exactly one tight row: ``x_v = e^(±ε) x_parent(v)``. Hence the
extreme rays of K are the ``2^(N−1)`` *sign patterns* ``s ∈ {−1, +1}^(edges)``,
``x_v = x_parent(v) e^(s_v ε)``, and each pattern is one (every pattern is in K).

**The pricing DP (why it finds the minimum).** For ``w ∈ ℝ^N`` let ``f_v`` be the least value of
``Σ_{u in subtree(v)} w_u x_u`` over patterns restricted to ``subtree(v)`` with ``x_v = 1``.
Given ``x_v = 1`` a child ``c`` has ``x_c = e^(±ε)`` and its subtree's patterns scale with
``x_c``, independently of the other children's, so

    f_v = w_v + Σ_{children c} φ(f_c),   φ(a) = min(e^(−ε) a, e^ε a)
        = e^(−ε) a if a ≥ 0, else e^ε a,

and the minimising choice for edge ``(v, c)`` is ``x_c = e^(−ε)`` when ``f_c ≥ 0`` (called
*descending*), else ``e^ε``. By induction from the leaves, ``f_ρ`` is the minimum of ``w · x`` over
the vertices of P, hence over P (a linear function on a polytope), and ``w ∈ K*`` (the dual cone,
``w · x ≥ 0`` on K) iff ``f_ρ ≥ 0``. On the path rooted at 0 this is the recursion
``a_n = w_n``, ``a_i = w_i + φ(a_{i+1})`` — ``2^n`` patterns checked in ``O(n)``; it is vectorised
here over all columns at once. φ is non-decreasing, so every ``f_v`` is non-decreasing in ``w``
(entrywise): shifting ``w`` by ``t·1`` moves ``f_ρ`` monotonically, and an evaluation whose every
step rounds down (`cone_minimum_below`) is a lower bound of the exact ``f_ρ``.

**The least shift.** ``1 ∈ K*`` (K is in the non-negative orthant), so ``w + t·1 ∈ K*`` for all
``t ≥ t*(w) = −min_{x ∈ K, Σx = 1} w · x``; `least_shift` finds the largest
``t*`` over the columns by Newton's (Dinkelbach's) method on the ratio ``w · x / Σx`` over the
DP's rays (`steepest_rays`: per column, the ray of most negative reduced
cost per unit of row mass — the pricing of column generation), then proves the result with the
rounded-down DP. The shift is what turns any
multipliers of the row sums into a rigorous lower bound
(`optmech.lp.user.cone_bounds`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from optmech._floats import BoolArray, FloatArray, IntArray, U

__all__ = [
    "RAY_FLOOR",
    "RootedTree",
    "column_blocks",
    "cone_minimum",
    "cone_minimum_below",
    "decay_products",
    "extreme_rays",
    "kink_operator",
    "kinks",
    "least_shift",
    "steepest_rays",
]

#: Columns per block of a sweep: the DP's work arrays stay near ``BLOCK_ENTRIES`` floats.
BLOCK_ENTRIES = 4_000_000
#: ``log`` of the smallest entry of a ray (its maximum is 1).
_LOG_FLOOR = -645.0
#: Smallest entry of a ray (its maximum is 1; about 1e-280): far above the subnormal range,
#: where ratios of neighbouring entries could no longer be represented (and where arithmetic is
#: many times slower: at ε = 0.5 the rays of n = 1600 reach it, and rays built without the
#: floor took 6x the time of n = 1000's).
RAY_FLOOR = float(np.exp(_LOG_FLOOR))
#: Relative uncertainty of ``math.exp`` (within an ulp; four leave room).
_EXP_RTOL = 4.0 * U
#: Steps of `steepest_rays` at most (each narrows every bracket; measured on
#: random weights, N = 200–1000, ε = 0.1–2: 18–50 steps to a relative width of 2^-40).
_NEWTON_STEPS = 200


@dataclass(frozen=True)
class RootedTree:
    """A tree neighbour graph rooted at row 0, in breadth-first order.

    Attributes
    ----------
    order : ndarray of int, shape (N,)
        Rows in breadth-first order from the root (``order[0] == 0``): every row comes after
        its parent.
    parent : ndarray of int, shape (N,)
        ``parent[v]``, the row above ``v`` (``−1`` for the root).
    is_path : bool
        Whether the tree is the path ``0 ~ 1 ~ … ~ n`` in row order (``parent[v] = v − 1``).
    """

    order: IntArray
    parent: IntArray
    is_path: bool

    @property
    def size(self) -> int:
        """``N``, the number of rows."""
        return int(self.order.size)

    @classmethod
    def path(cls, num_rows: int) -> RootedTree:
        """The path ``0 ~ 1 ~ … ~ num_rows − 1`` rooted at 0."""
        rows = np.arange(num_rows, dtype=np.int64)
        return cls(rows, rows - 1, True)

    @classmethod
    def of(cls, src: IntArray, dst: IntArray, num_rows: int) -> RootedTree | None:
        """The tree with edges ``(src[e], dst[e])``, or ``None`` if they do not form a tree.

        Examples
        --------
        >>> RootedTree.of(np.array([0, 0]), np.array([1, 2]), 3).parent.tolist()
        [-1, 0, 0]
        >>> RootedTree.of(np.array([0, 1, 2]), np.array([1, 2, 0]), 3) is None  # a cycle
        True
        """
        if src.size != num_rows - 1:
            return None
        if np.all(np.minimum(src, dst) + 1 == np.maximum(src, dst)) and np.array_equal(
            np.sort(np.minimum(src, dst)), np.arange(num_rows - 1)
        ):
            return cls.path(num_rows)
        adj = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(num_rows, num_rows))
        order, pred = csgraph.breadth_first_order(adj, 0, directed=False, return_predecessors=True)
        if order.size != num_rows:
            return None
        parent = np.asarray(pred, dtype=np.int64)
        parent[0] = -1
        return cls(np.asarray(order, dtype=np.int64), parent, False)


def column_blocks(num_rows: int, num_cols: int) -> list[slice]:
    """Slices of the columns, ``BLOCK_ENTRIES`` entries at most each (one column at least)."""
    width = max(1, BLOCK_ENTRIES // max(num_rows, 1))
    return [slice(k, min(k + width, num_cols)) for k in range(0, num_cols, width)]


def _sweep(weights: FloatArray, tree: RootedTree, epsilon: float) -> tuple[FloatArray, BoolArray]:
    """The DP on one block: ``f_root`` per column and the descending choices (rows × columns).

    A negative suffix grows by ``e^ε`` per step and may overflow to ``−inf``: still negative,
    and the choices above it (rise as fast as possible) are the minimising ones.
    """
    shrink, grow = math.exp(-epsilon), math.exp(epsilon)
    n = tree.size
    descending = np.zeros(weights.shape, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        if tree.is_path:
            a = weights[n - 1].copy()
            for v in range(n - 1, 0, -1):
                down = a >= 0
                descending[v] = down
                a = weights[v - 1] + np.where(down, shrink * a, grow * a)
            return a, descending
        f = weights.copy()
        for v in tree.order[:0:-1]:  # children before parents
            down = f[v] >= 0
            descending[v] = down
            f[tree.parent[v]] += np.where(down, shrink * f[v], grow * f[v])
    return f[0].copy(), descending


def cone_minimum(
    weights: FloatArray, tree: RootedTree, epsilon: float
) -> tuple[FloatArray, BoolArray]:
    """``min w · x`` over ``x ∈ K`` with ``x_root = 1``, for every column ``w`` of ``weights``.

    Parameters
    ----------
    weights : ndarray, shape (N, m)
        One vector per column.
    tree : RootedTree
        The neighbour graph.
    epsilon : float
        Privacy level.

    Returns
    -------
    (values, descending)
        ``values[r]`` the minimum (negative iff column r is outside the dual cone K*);
        ``descending[v, r]`` whether the minimising ray has ``x_v = e^(−ε) x_parent(v)``.

    Examples
    --------
    All sign patterns of the path on 3 rows, brute force:

    >>> import itertools
    >>> w = np.array([[1.0], [-3.0], [1.5]])
    >>> best = min(w[0, 0] + w[1, 0] * math.exp(a) + w[2, 0] * math.exp(a + b)
    ...            for a, b in itertools.product([-1.0, 1.0], repeat=2))
    >>> bool(np.isclose(cone_minimum(w, RootedTree.path(3), 1.0)[0][0], best))
    True
    """
    n, m = weights.shape
    values = np.empty(m)
    descending = np.empty((n, m), dtype=bool)
    for cols in column_blocks(n, m):
        values[cols], descending[:, cols] = _sweep(weights[:, cols], tree, epsilon)
    return values, descending


def cone_minimum_below(weights: FloatArray, tree: RootedTree, epsilon: float) -> FloatArray:
    """A lower bound, rounded down at every step, of `cone_minimum`'s values.

    Each product and sum of the DP is rounded to the next float below; ``e^(−ε)`` and ``e^ε``
    are replaced by a lower resp. upper bound of the exact constants. As φ is non-decreasing,
    by induction every computed ``f_v`` is at most the exact one for the given floats: a
    non-negative result *proves* ``w ∈ K*``. (An overflow gives ``−inf``: still a lower bound.)
    """
    shrink = math.exp(-epsilon) * (1.0 - _EXP_RTOL)
    grow = math.exp(epsilon) * (1.0 + _EXP_RTOL)
    n, m = weights.shape
    out = np.empty(m)
    with np.errstate(over="ignore", invalid="ignore"):
        for cols in column_blocks(n, m):
            f = weights[:, cols].copy()
            for v in tree.order[:0:-1]:
                step = np.nextafter(np.where(f[v] >= 0, shrink * f[v], grow * f[v]), -np.inf)
                p = tree.parent[v]
                f[p] = np.nextafter(f[p] + step, -np.inf)
            out[cols] = f[0]
    return np.where(np.isnan(out), -np.inf, out)


def extreme_rays(descending: BoolArray, tree: RootedTree, epsilon: float) -> FloatArray:
    """The rays of the sign patterns ``descending`` (rows × rays), each scaled to maximum 1.

    Entries are floored at ``RAY_FLOOR`` (``e^(−ε)`` per step underflows after a few
    hundred steps, and a zero facing a positive entry is not private at any ε): the maximum of
    a column and a constant keeps every ratio bound, as ``max(a, c) ≤ max(e^ε b, c) ≤
    e^ε max(b, c)``, so a floored ray is still in K.

    Examples
    --------
    >>> extreme_rays(np.array([[False], [True], [False]]), RootedTree.path(3), math.log(2))[:, 0]
    array([1. , 0.5, 1. ])
    """
    small = np.int16 if tree.size < 30_000 else np.int32  # |exponents| ≤ N − 1
    steps = np.where(descending, small(-1), small(1))
    if tree.is_path:
        powers = np.cumsum(steps, axis=0, dtype=small)
        np.subtract(powers, steps[0], out=powers)  # the root's entry is meaningless: x_0 = 1 (e^0)
    else:
        powers = np.zeros(steps.shape, dtype=small)
        for v in tree.order[1:]:
            powers[v] = powers[tree.parent[v]] + steps[v]
    logs = (powers - powers.max(axis=0, keepdims=True)) * epsilon  # x_v = e^(ε · power)
    np.maximum(logs, _LOG_FLOOR, out=logs)
    return np.exp(logs, out=logs)


def decay_products(weights: FloatArray, tree: RootedTree, epsilon: float) -> FloatArray:
    """``D[j, r] = Σ_i e^(−ε d(i, j)) W[i, r]``: each column of ``W`` against every peaked ray.

    The ray ``e^(−ε d(·, j))`` (graph distance d) is the extreme ray that descends away from
    ``j`` along every edge — column ``j`` of the geometric mechanism on the path, up to scale
    (Ghosh, Roughgarden & Sundararajan (2012), §3). Two sweeps (up the tree: the subtree sums
    ``U_v = W_v + e^(−ε) Σ_c U_c``; down: ``D_v = U_v + e^(−ε)(D_parent − e^(−ε) U_v)``) give
    all ``N × m`` products in ``O(N m)``, where the matrix product would take ``O(N² m)``.

    Examples
    --------
    >>> w = np.array([[1.0], [2.0], [4.0]])
    >>> decay_products(w, RootedTree.path(3), math.log(2))[:, 0].tolist()
    [3.0, 4.5, 5.25]
    """
    a = math.exp(-epsilon)
    up = np.array(weights, dtype=np.float64, copy=True)
    for v in tree.order[:0:-1]:
        up[tree.parent[v]] += a * up[v]
    out = up.copy()
    for v in tree.order[1:]:
        out[v] = up[v] + a * (out[tree.parent[v]] - a * up[v])
    return out


def kink_operator(tree: RootedTree, epsilon: float) -> tuple[sp.csr_matrix, FloatArray]:
    """``L`` and ``L·1``: the banded operator that maps every ray of K to its kinks.

    ``L = (1 − α²)·A⁻¹`` for ``A = (α^d(i, j))`` (``α = e^(−ε)``, d the tree distance): ``L`` has
    ``1 + α²(deg_v − 1)`` on the diagonal and ``−α`` on the edges (on the path: tridiagonal,
    ``(1 + α², −α)`` inside and ``1`` at the ends). For a ray x,

        (L x)_v = (1 − α²)(1 − k_v) x_v,   k_v = the number of neighbours of v above it,

    (each neighbour above contributes ``α·x_v/α``, each below ``α·α x_v``), so ``L x`` is zero
    except at the ray's peaks (``k_v = 0``) and valleys (``k_v ≥ 2``): a handful of entries where
    x has N. Applied to the row sums (``L Σ_r x_r = L 1``: the same constraints, L is
    invertible) it makes column generation's master sparse.

    Examples
    --------
    >>> op, ones = kink_operator(RootedTree.path(3), math.log(2))
    >>> op.toarray().tolist(), ones.tolist()
    ([[1.0, -0.5, 0.0], [-0.5, 1.25, -0.5], [0.0, -0.5, 1.0]], [0.5, 0.25, 0.5])
    """
    n = tree.size
    alpha = math.exp(-epsilon)
    child = tree.order[1:]
    parent = tree.parent[child]
    degree = np.bincount(np.concatenate([child, parent]), minlength=n).astype(np.float64)
    rows = np.concatenate([np.arange(n), child, parent])
    cols = np.concatenate([np.arange(n), parent, child])
    data = np.concatenate([1.0 + alpha**2 * (degree - 1.0), np.full(2 * child.size, -alpha)])
    op = sp.csr_matrix((data, (rows, cols)), shape=(n, n))
    return op, np.asarray(op @ np.ones(n))


def kinks(descending: BoolArray, tree: RootedTree) -> IntArray:
    """``1 − k_v`` for every row and ray (`kink_operator`): 1 at a peak, 0 on a
    slope, negative at a valley.

    Examples
    --------
    >>> kinks(np.array([[False], [True], [False]]), RootedTree.path(3))[:, 0].tolist()  # 1, ½, 1
    [1, -1, 1]
    """
    up = descending.astype(np.int64)  # the parent is above v
    up[tree.order[0]] = 0
    child = tree.order[1:]
    rising = (~descending[child]).astype(np.int64)  # the child is above its parent
    if tree.is_path:
        up[:-1] += rising
    else:
        np.add.at(up, tree.parent[child], rising)
    return 1 - up


def _ratios(
    weights: FloatArray, tree: RootedTree, epsilon: float, shifts: FloatArray
) -> tuple[FloatArray, FloatArray, BoolArray]:
    """At the DP's minimising ray of ``w + shift`` (per column): the DP's minimum, the ratio
    ``−w · x / Σx`` and the ray's pattern."""
    values, descending = cone_minimum(weights + shifts[None, :], tree, epsilon)
    return values, _ratio(weights, descending, tree, epsilon), descending


def _ratio(
    weights: FloatArray, descending: BoolArray, tree: RootedTree, epsilon: float
) -> FloatArray:
    """``−w · x / Σx`` per column, at the ray ``x`` of its pattern."""
    rays = extreme_rays(descending, tree, epsilon)
    return -np.einsum("ir,ir->r", weights, rays) / rays.sum(axis=0)


def steepest_rays(
    weights: FloatArray, tree: RootedTree, epsilon: float, tolerance: float = 0.0
) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Per column, brackets ``lo_r ≤ t_r ≤ hi_r`` of ``t_r = max_{x ∈ K} (−w_r · x / Σx)`` (up
    to the DP's rounding, which `least_shift` settles rigorously) and the pattern
    of a ray whose ratio is ``lo_r``.

    ``t_r`` is the least shift putting ``w_r + t_r·1`` in K*, and its ray is the column of most
    negative reduced cost per unit of row mass. A column already in K* (DP minimum of ``w_r``
    non-negative) has ``t_r ≤ 0`` and gets ``lo_r = hi_r = 0`` with an empty pattern; the others
    are bracketed by ``hi_r = −min_i w_ir`` (then ``w_r + hi_r ≥ 0``) and the ratio of the
    unshifted DP's ray, and the bracket is narrowed by evaluating the DP at a shift ``t`` inside
    it: a negative minimum gives a ray whose ratio exceeds ``t`` (Newton's step, Dinkelbach's
    method), which becomes ``lo_r``; a non-negative one makes ``t`` the new ``hi_r``. Steps
    alternate between ``lo_r + δ_r`` (twice; the offset ``δ_r = 2^-40 max|w_r|`` keeps the current
    ray's own rounding noise out of the DP's minimum) and the midpoint. A column stops at width
    ``δ_r``, or at 1% of ``lo_r`` once it cannot hold the largest ``t_r`` (its ``hi_r`` is below
    another column's ``lo``) or the bracket is narrower than ``tolerance``: its ray is steep
    enough to price with.

    Examples
    --------
    >>> w = np.array([[1.0, 0.0], [-1.0, 0.5]])  # rows 0, 1 of the path; two columns
    >>> lo, hi, descending = steepest_rays(w, RootedTree.path(2), math.log(3))
    >>> bool(abs(lo[0] - 0.5) < 1e-11 and abs(hi[0] - 0.5) < 1e-11), float(hi[1])
    (True, 0.0)
    >>> descending[:, 0].tolist()  # x = (1, 3): rising
    [False, False]
    """
    w = np.asarray(weights, dtype=np.float64)
    n, m = w.shape
    lo = np.zeros(m)
    hi = np.zeros(m)
    patterns = np.zeros((n, m), dtype=bool)
    values, found = cone_minimum(w, tree, epsilon)
    active = np.nonzero(values < 0)[0]
    if active.size == 0:
        return lo, hi, patterns
    hi[active] = -w[:, active].min(axis=0)
    lo[active] = np.minimum(_ratio(w[:, active], found[:, active], tree, epsilon), hi[active])
    patterns[:, active] = found[:, active]
    delta = 2.0**-40 * np.max(np.abs(w), axis=0)
    for step in range(_NEWTON_STEPS):
        width = hi[active] - lo[active]
        keep = (width > delta[active]) & (
            (width > 0.01 * np.abs(lo[active]))
            | ((hi[active] >= lo[active].max()) & (width > tolerance))
        )
        active = active[keep]
        if active.size == 0:
            break
        low, high = lo[active], hi[active]
        t = low + delta[active] if step % 3 < 2 else low + 0.5 * (high - low)
        t = np.minimum(t, high)
        values, ratios, found = _ratios(w[:, active], tree, epsilon, t)
        rising = (values < 0) & (ratios > low)
        up = active[rising]
        lo[up] = np.minimum(ratios[rising], hi[up])
        patterns[:, up] = found[:, rising]
        down = active[~rising]
        hi[down] = t[~rising]
    return lo, hi, patterns


def least_shift(
    weights: FloatArray,
    tree: RootedTree,
    epsilon: float,
    estimate: float | None = None,
    multipliers: FloatArray | None = None,
    floor: float | None = None,
) -> float:
    """A ``t`` with ``w + t·1 ∈ K*`` for every column ``w`` of ``weights − y``, proved, near the
    least.

    The largest upper end of `steepest_rays`' brackets (or ``estimate``),
    checked by `cone_minimum_below` on ``w + t`` rounded down — computed as
    ``weights − (y − t)`` with ``y − t`` rounded up and the difference rounded down — and raised
    (by a relative ``2^-40``, doubling) until that proves it; then lowered by bisection towards
    ``floor`` (the largest lower end of the brackets: the ratio of a ray actually found), the
    columns that ``floor`` proves left out of every later test (each proved shift proves every
    larger one, ``1 ∈ K*``). The brackets stop at a width of ``2^-40`` of a column's largest
    ``|w|`` (the DP's rounding noise near the peak of its ray), which far from the peak can exceed
    the least shift itself: measured on a Dirichlet(1) prior, squared loss, ε = 0.5, n = 1000,
    the upper end was 8.6e-9 where the least shift was 5e-17, a gap of ``N`` times that
    (1.1e-6 relative) in the bound; the bisection closes it to the rounding.

    Parameters
    ----------
    weights : ndarray, shape (N, m)
        The vectors (floats taken as exact).
    tree : RootedTree
        The neighbour graph.
    epsilon : float
        Privacy level.
    estimate : float, optional
        A near value of the least shift already known (column generation's last pricing): the
        search starts there instead of at the brackets' upper ends.
    multipliers : ndarray, shape (N,), optional
        ``y``, subtracted from every column (default 0).
    floor : float, optional
        A near lower estimate of the least shift (column generation's last pricing); without
        ``estimate``, the brackets' largest lower end. Not trusted: only where the search stops.

    Returns
    -------
    float
        The proved shift (possibly negative: then every column is inside K* with room).

    Examples
    --------
    >>> w = np.array([[1.0, 0.0], [-1.0, 0.5]])
    >>> t = least_shift(w, RootedTree.path(2), math.log(3))
    >>> bool(0.5 <= t < 0.5 + 1e-11)
    True
    """
    w = np.asarray(weights, dtype=np.float64)
    y = np.zeros(w.shape[0]) if multipliers is None else np.asarray(multipliers, np.float64)
    if estimate is None:
        low, high, _ = steepest_rays(w - y[:, None], tree, epsilon)
        estimate = float(np.max(high))
        if floor is None:
            floor = float(np.max(low))
    scale = max(abs(estimate), float(np.max(np.abs(w), initial=0.0)), 1e-300)
    scale = max(scale, float(np.max(np.abs(y), initial=0.0)))
    proved = _proved(w, y, tree, epsilon, estimate, scale)
    if floor is None or not floor < proved:
        return proved
    return _lowered(w, y, tree, epsilon, floor, proved)


def _failing(
    w: FloatArray, y: FloatArray, tree: RootedTree, epsilon: float, t: float, columns: IntArray
) -> IntArray:
    """The ``columns`` that the rounded-down DP does not prove at shift ``t``."""
    offset = np.nextafter(y - t, np.inf)  # at least y − t
    shifted = np.nextafter(w[:, columns] - offset[:, None], -np.inf)
    return columns[~(cone_minimum_below(shifted, tree, epsilon) >= 0)]


#: Bisection steps of `least_shift` at most (each halves the interval between the
#: floor and the proved shift; 8.6e-9 to 1e-17 takes 30).
_BISECTION_STEPS = 64


def _lowered(
    w: FloatArray, y: FloatArray, tree: RootedTree, epsilon: float, low: float, high: float
) -> float:
    """A proved shift in ``[low, high]`` near the least, ``high`` being proved (bisection on
    the columns ``low`` does not prove; see `least_shift`)."""
    pending = _failing(w, y, tree, epsilon, low, np.arange(w.shape[1]))
    if pending.size == 0:
        return low
    # Stop once N·(high − low) is below the rounding of Σ y: the bound cannot tell the difference.
    resolution = 2.0**-50 * max(abs(math.fsum(y.tolist())), 1e-300) / max(w.shape[0], 1)
    # DP columns at most: eight sweeps over every column, or every step on a few columns.
    work = max(8 * w.shape[1], 16 * _BISECTION_STEPS)
    for _ in range(_BISECTION_STEPS):
        if high - low <= resolution or work <= 0:
            break
        middle = low + 0.5 * (high - low)
        if not low < middle < high:
            break
        work -= pending.size
        failing = _failing(w, y, tree, epsilon, middle, pending)
        if failing.size:  # the others are proved at middle, hence at every later (larger) test
            low, pending = middle, failing
        else:
            high = middle
    return high


def _proved(
    w: FloatArray, y: FloatArray, tree: RootedTree, epsilon: float, t: float, scale: float
) -> float:
    """The least ``t' ≥ t`` on a doubling grid that the rounded-down DP proves."""
    step = scale * 2.0**-40
    pending = np.arange(w.shape[1])
    for _ in range(1100):
        pending = _failing(w, y, tree, epsilon, t, pending)
        if pending.size == 0:
            return t
        t += step
        step *= 2.0
    raise ArithmeticError("no finite shift proves the dual cone membership")  # pragma: no cover
