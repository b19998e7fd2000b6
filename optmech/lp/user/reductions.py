"""Reductions of the user LP, in cvxpy's ``apply``/``invert`` style.

``lp, inverse = reduction.apply(data, epsilon, form)`` builds the (possibly smaller) LP that is
solved; ``X, duals = inverse.invert(point, duals)`` maps the solver's point *and* multipliers
back to the full LP, where the repair, the certified value and the rigorous lower bound are
computed exactly as for an unreduced solve.

* `NoReduction`: the LP as it is.
* `MirrorReduction`: a mirror-symmetric Bayesian instance on the path (``p_i L[i,
  r] = p_{n−i} L[n−i, m−1−r]``, e.g. a uniform prior and a cost of ``|output − input|``) solved over
  the orbits of the reflection ``σ(i, r) = (n−i, m−1−r)``: half the variables, the same optimum.

Why the mirror reduction is exact: ``σ`` maps the simplex rows to simplex rows (row ``i`` to
row ``n−i``), the privacy row ``x[i, r] ≤ e^ε x[i+1, r]`` to ``x[n−i, m−1−r] ≤
e^ε x[n−i−1, m−1−r]`` (the reverse direction on the edge ``{n−i−1, n−i}``) and back, and keeps
the objective; so for an optimum ``X`` the mirror ``σX`` is optimal too and, by convexity, so
is ``(X + σX)/2``, which is symmetric: the optimum over symmetric ``X`` *is* the optimum.
"""

from __future__ import annotations

from dataclasses import dataclass

import cvxpy as cp
import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech.graphs import edge_pairs, is_path_graph
from optmech.lp.matrix.build import (
    Bounds,
    Duals,
    LPData,
    LPForm,
    UserLP,
    build_user_lp,
    privacy_coefficients,
)

__all__ = [
    "IdentityInverse",
    "MirrorInverse",
    "MirrorReduction",
    "NoReduction",
    "is_mirror_symmetric",
    "mirror_maps",
]


@dataclass(frozen=True)
class IdentityInverse:
    """The inverse of `NoReduction`: the point reshaped, the multipliers as
    they are."""

    shape: tuple[int, int]

    def invert(self, point: FloatArray, duals: Duals) -> tuple[FloatArray, Duals]:
        """``(point as an (N, m) matrix, duals)``."""
        return np.asarray(point, dtype=np.float64).reshape(self.shape), duals


@dataclass(frozen=True)
class NoReduction:
    """The LP as it is (`build_user_lp` on ``graph``)."""

    graph: nx.Graph

    def apply(self, data: LPData, epsilon: float, form: LPForm) -> tuple[UserLP, IdentityInverse]:
        """Build the full LP."""
        lp = build_user_lp(data, epsilon, self.graph, bounds=form.bounds, scaling=form.scaling)
        return lp, IdentityInverse(data.shape)


def is_mirror_symmetric(weights: FloatArray, graph: nx.Graph) -> bool:
    """Whether the Bayesian user LP is invariant under the reflection ``σ(i, r) = (n−i, m−1−r)``.

    True when ``graph`` is the count-query path ``0 ~ 1 ~ … ~ n`` in node order (so
    ``i → n − i`` is a graph automorphism) and the objective weights ``W = p[:, None] · L``
    are *exactly* mirrored, ``W[i, r] == W[n − i, m − 1 − r]`` (``np.array_equal``, no
    tolerance: a symmetric prior and loss built in floating point give exactly mirrored
    products, and a near-symmetric instance must not be solved as a symmetric one).

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.graphs import path_graph
    >>> i = np.arange(4)
    >>> loss = np.abs(i[:, None] - i[None, :]).astype(float)
    >>> is_mirror_symmetric(np.full(4, 0.25)[:, None] * loss, path_graph(3))
    True
    >>> is_mirror_symmetric(np.array([0.1, 0.2, 0.3, 0.4])[:, None] * loss, path_graph(3))
    False
    """
    w = np.asarray(weights)
    return (
        w.ndim == 2
        and w.shape[0] == graph.number_of_nodes()
        and is_path_graph(graph)
        and bool(np.array_equal(w, w[::-1, ::-1]))
    )


def mirror_maps(
    n_in: int, n_out: int
) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix, sp.csr_matrix]:
    """Orbit expansion and the kept constraint rows of the mirrored path LP (sparse, vectorised).

    With ``x = vec(X)`` row-major (index ``k = i·m + r``) the reflection is ``k → Nm − 1 − k``;
    the representative of ``{k, Nm − 1 − k}`` is the smaller index, so the representatives are
    ``0 … ⌈Nm/2⌉ − 1`` and ``P`` (``Nm × ⌈Nm/2⌉``, ``P[k, min(k, Nm−1−k)] = 1``) expands them:
    ``vec(X) = P y``. Also returned, as selections of ``vec(X)``: the row sums of rows
    ``0 … ⌊(N−1)/2⌋``, and for every ``(i, r)`` with ``i < N − 1`` the entries ``x[i, r]``
    (``U``) and ``x[i + 1, r]`` (``V``), so the upward privacy rows are ``(U − e^ε V) x ≤ 0``.
    """
    size = n_in * n_out
    k = np.arange(size)
    expand = sp.csr_matrix(
        (np.ones(size), (k, np.minimum(k, size - 1 - k))), shape=(size, (size + 1) // 2)
    )
    keep = (n_in - 1) // 2 + 1
    rowsum = sp.kron(sp.eye(keep, n_in), np.ones((1, n_out)), format="csr")
    m_rows = (n_in - 1) * n_out
    u = sp.eye(m_rows, size, format="csr")
    v = sp.eye(m_rows, size, k=n_out, format="csr")
    return expand, rowsum, u, v


@dataclass(frozen=True)
class MirrorInverse:
    """Maps the orbit LP's point and multipliers to the full path LP.

    The point: ``vec(X) = P y``. The multipliers (Lagrangian argument): let ``z`` be those of
    the kept upward rows ``x[i, r] ≤ e^ε x[i+1, r]``. On a symmetric ``X = P y`` each upward
    row's mirror is a downward row with the same value, so the reduced Lagrangian
    ``Σ W ⊙ X + Σ z ⊙ (upward rows)`` equals the full one with ``z/2`` on the upward row
    ``(i, r)`` and ``z/2`` on its mirror, the downward row ``x[n−i, m−1−r] ≤
    e^ε x[n−i−1, m−1−r]``: an optimal reduced dual gives a (symmetric) optimal full dual. Those
    are laid out in the orientation of `optmech.graphs.edge_pairs`
    (``forward`` for
    ``x[src] ≤ e^ε x[dst]``). Whatever the multipliers, the Lagrangian bound computed from them
    on the *full* LP is valid; the reduction only makes it tight.
    """

    n_in: int
    n_out: int
    expand: sp.csr_matrix
    src: IntArray
    dst: IntArray

    def expand_point(self, value: npt.ArrayLike) -> FloatArray:
        """The full ``(N, m)`` matrix of an orbit vector."""
        y = np.asarray(value, dtype=np.float64).reshape(-1)
        return np.asarray(self.expand @ y).reshape(self.n_in, self.n_out)

    def invert(self, point: FloatArray, duals: Duals) -> tuple[FloatArray, Duals]:
        """``(X, full duals)``; the duals are ``None`` when the solver gave none."""
        x = self.expand_point(point)
        if duals.forward is None:
            return x, Duals(None, None)
        up = np.clip(duals.forward.reshape(self.n_in - 1, self.n_out), 0.0, None) / 2.0
        down = up[::-1, ::-1]  # down[i, r]: x[i+1, r] ≤ e^ε x[i, r], the mirror of up[n−1−i, …]
        low = np.minimum(self.src, self.dst)
        ascending = (self.src < self.dst)[:, None]
        forward = np.where(ascending, up[low], down[low])
        backward = np.where(ascending, down[low], up[low])
        return x, Duals(forward, backward)


@dataclass(frozen=True)
class MirrorReduction:
    """Solve a mirror-symmetric Bayesian path LP over the orbits of ``σ`` (module docstring).

    The variables are the orbit representatives ``y`` (``⌈Nm/2⌉``, ``vec(X) = P y``; see
    `mirror_maps`). Substituted, the constraints of row ``i`` and row ``n−i``
    coincide, and so do each upward privacy row and its mirror (a downward row): one row per orbit
    is kept, the row sums of rows ``i ≤ ⌊n/2⌋`` and all the upward rows (no upward row is its own
    mirror), so the constraint matrix has no duplicate rows (an interior-point solver would stall on
    them). `Bounds.FIRST_ROW` keeps ``X ≥ 0`` only on row 0 (all representatives): the upward rows
    give ``x[i+1, r] ≥ e^(−ε) x[i, r]``, hence ``X ≥ 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.graphs import path_graph
    >>> lp, inverse = MirrorReduction(path_graph(2)).apply(
    ...     LPData((3, 3), weights=np.ones((3, 3))), 1.0, LPForm())
    >>> lp.variable.size, lp.simplex.size, lp.forward.size
    (5, 2, 6)
    >>> inverse.expand_point(np.arange(5.0)).tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 3.0], [2.0, 1.0, 0.0]]
    """

    graph: nx.Graph

    def apply(self, data: LPData, epsilon: float, form: LPForm) -> tuple[UserLP, MirrorInverse]:
        """The orbit LP and its inverse (``data`` must hold mirror-symmetric weights)."""
        if data.weights is None:
            raise ValueError("the mirror reduction applies to a Bayesian objective alone.")
        n_in, n_out = data.shape
        lo, hi = privacy_coefficients(epsilon, form.scaling)
        expand, rowsum, u, v = mirror_maps(n_in, n_out)
        a_eq = (rowsum @ expand).tocsr()
        a_dp = ((lo * u - hi * v) @ expand).tocsr()
        a_eq.sum_duplicates()
        a_dp.sum_duplicates()
        c = np.asarray(expand.T @ np.asarray(data.weights, dtype=np.float64).ravel())
        y = cp.Variable(expand.shape[1], nonneg=form.bounds == Bounds.ALL, name="mechanism_orbits")
        simplex = a_eq @ y == 1
        forward = a_dp @ y <= 0
        constraints = [simplex, forward]
        first_row = None
        if form.bounds == Bounds.FIRST_ROW:
            first_row = y[:n_out] >= 0  # row 0: indices 0 … m − 1, all representatives
            constraints.append(first_row)
        lp = UserLP(
            problem=cp.Problem(cp.Minimize(c @ y), constraints),
            variable=y,
            simplex=simplex,
            forward=forward,
            backward=None,
            coefficients=(lo, hi),
            first_row=first_row,
        )
        src, dst = edge_pairs(self.graph)
        return lp, MirrorInverse(n_in, n_out, expand, src, dst)
