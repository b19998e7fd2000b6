"""Rigorous bounds on an LP's optimum from any multipliers, rounded outward.

For the LP

    minimise  c·x   subject to   A_ub x ≤ b_ub,   A_eq x = b_eq,   x ∈ X,

where ``X`` is a product of *simplex blocks* ``{x_G ≥ 0 : Σ_{j∈G} a_j x_j = s_G}`` (``a > 0``;
the rows of a mechanism matrix, the normalisation of a density) and *boxes*
``l_j ≤ x_j ≤ u_j``, weak duality holds for every ``λ ≥ 0`` and every ``ν``:

    optimum ≥ −λ·b_ub − ν·b_eq + Σ_G s_G min_{j∈G} r_j / a_j + Σ_{j in boxes} min(r_j l_j, r_j u_j),

with reduced costs ``r = c + A_ubᵀλ + A_eqᵀν``. The solver's multipliers only make the bound tight;
its *validity* needs nothing from the solver (``λ`` is clipped to ``≥ 0``). Keeping the simplex
blocks out of the relaxation (rather than bounding each variable by a box) makes the bound pay only
for the single worst reduced cost of a block, not the sum over the block, which is what keeps it
within ~1e-9 of the optimum on LPs with 10⁵ variables (Neumaier & Shcherbina, *Safe bounds in linear
and mixed-integer programming*, Math. Programming 99, 2004, use boxes alone).

Every floating-point step is rounded *downward* by an a-priori error bound (Higham,
*Accuracy and Stability of Numerical Algorithms*, 2002, §3.1: a sum of ``k`` products carries a
relative error of at most ``γ_k = k u/(1 − k u)`` of the sum of absolute values), so the
returned number is a lower bound of the exact bound for the given floats. Coefficients that are
themselves rounded (``e^ε`` computed by `math.exp`) are covered by ``coefficient_rtol``.
`upper_dot` rounds a primal objective upward the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray, U

__all__ = ["SimplexBlocks", "lagrangian_bound", "upper_dot"]


#: Default relative uncertainty of a constraint coefficient: ``math.exp`` is accurate to about
#: one ulp; four leave room for a product such as ``e^ε·a``.
COEFFICIENT_RTOL = 4.0 * U


@dataclass(frozen=True)
class SimplexBlocks:
    """Groups of variables each confined to ``{x ≥ 0 : Σ a_j x_j = total}``.

    Attributes
    ----------
    block : ndarray of int, shape (n,)
        Block of each variable, ``0 … k−1``, or ``−1`` for variables in no block (boxes).
    weight : ndarray, shape (n,)
        ``a_j > 0`` for block variables (ignored elsewhere).
    total : ndarray, shape (k,)
        ``s_G > 0``.
    """

    block: IntArray
    weight: FloatArray
    total: FloatArray

    @classmethod
    def rows(cls, num_rows: int, num_cols: int) -> SimplexBlocks:
        """Each row of a ``num_rows × num_cols`` matrix (row-major) sums to 1."""
        block = np.repeat(np.arange(num_rows, dtype=np.int64), num_cols)
        return cls(block, np.ones(num_rows * num_cols), np.ones(num_rows))


def _gamma(k: int) -> float:
    return k * U / (1.0 - k * U)


def lagrangian_bound(
    c: npt.ArrayLike,
    *,
    a_ub: sp.spmatrix | None = None,
    b_ub: npt.ArrayLike | None = None,
    y_ub: npt.ArrayLike | None = None,
    a_eq: sp.spmatrix | None = None,
    b_eq: npt.ArrayLike | None = None,
    y_eq: npt.ArrayLike | None = None,
    blocks: SimplexBlocks | None = None,
    lower: npt.ArrayLike | None = None,
    upper: npt.ArrayLike | None = None,
    coefficient_rtol: float = COEFFICIENT_RTOL,
) -> float:
    """A rigorous lower bound on the LP's optimum (module docstring), rounded down.

    Parameters
    ----------
    c : array_like, shape (n,)
        Objective.
    a_ub, b_ub, y_ub : sparse matrix, array_like, array_like
        Inequality rows ``A_ub x ≤ b_ub`` and their multipliers (clipped to ``≥ 0``).
    a_eq, b_eq, y_eq : sparse matrix, array_like, array_like
        Equality rows *not* part of a simplex block, and their (free) multipliers.
    blocks : SimplexBlocks, optional
        The simplex blocks; variables outside them use ``[lower, upper]``.
    lower, upper : array_like, optional
        Box of the variables in no block (default ``[0, inf)``). Only the side that the sign of
        a reduced cost selects must be finite; an infinite one gives ``-inf``.
    coefficient_rtol : float
        Relative uncertainty of each constraint coefficient (e.g. a rounded ``e^ε``).

    Returns
    -------
    float
        A lower bound on the optimum; ``-inf`` when a needed bound is infinite or a multiplier
        is missing or not finite.

    Examples
    --------
    ``min x0 + 2 x1`` on the simplex ``x0 + x1 = 1`` with ``x0 ≤ 1/2`` has optimum 3/2; its
    multiplier 1 proves it:

    >>> import numpy as np, scipy.sparse as sp
    >>> blocks = SimplexBlocks(np.array([0, 0]), np.ones(2), np.ones(1))
    >>> lb = lagrangian_bound([1.0, 2.0], a_ub=sp.csr_matrix([[1.0, 0.0]]), b_ub=[0.5],
    ...                       y_ub=[1.0], blocks=blocks)
    >>> 1.5 - 1e-14 < lb <= 1.5
    True
    """
    cv = np.asarray(c, dtype=np.float64).reshape(-1)
    n = cv.size
    r = cv.copy()
    magnitude = np.abs(cv)
    parts: list[FloatArray] = []  # the terms of the bound, each rounded to nearest
    counts = np.ones(n, dtype=np.int64)
    for matrix, rhs, mult, free in ((a_ub, b_ub, y_ub, False), (a_eq, b_eq, y_eq, True)):
        if matrix is None or matrix.shape[0] == 0:
            continue
        y = np.asarray(np.nan if mult is None else mult, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(y)):  # missing (NaN) or not finite
            return -math.inf
        if not free:
            y = np.clip(y, 0.0, None)
        a = sp.csr_matrix(matrix)
        r += np.asarray(a.T @ y).reshape(-1)
        magnitude += np.asarray(abs(a).T @ np.abs(y)).reshape(-1) * (1.0 + coefficient_rtol)
        counts += np.diff(sp.csc_matrix(a).indptr).astype(np.int64)  # terms per column
        parts.append(-(y * np.asarray(rhs, dtype=np.float64).reshape(-1)))
    k = int(counts.max(initial=1)) + 1
    slack = (_gamma(k) + coefficient_rtol) * magnitude  # r lies in [r − slack, r + slack]
    r_low = r - slack
    in_block = np.zeros(n, dtype=bool)
    if blocks is not None:
        in_block = blocks.block >= 0
        ratio = r_low[in_block] / blocks.weight[in_block]
        ratio = ratio - np.abs(ratio) * 2.0 * U  # the division, rounded down
        mins = np.full(blocks.total.size, np.inf)
        np.minimum.at(mins, blocks.block[in_block], ratio)
        if not np.all(np.isfinite(mins)):
            return -math.inf
        parts.append(mins * blocks.total)
    box = ~in_block
    if np.any(box):
        lo = np.broadcast_to(np.asarray(0.0 if lower is None else lower, float), (n,))
        hi = np.broadcast_to(np.asarray(np.inf if upper is None else upper, float), (n,))
        # The minimum of the bilinear r·x over [r_low, r_high] times the box [l, u] is at a
        # corner. 0·inf counts as 0 (a zero reduced cost leaves x free).
        with np.errstate(invalid="ignore"):
            corners = np.stack([s[box] * x[box] for s in (r_low, r + slack) for x in (lo, hi)])
        picked = np.nan_to_num(corners, nan=0.0, posinf=np.inf, neginf=-np.inf).min(axis=0)
        if not np.all(np.isfinite(picked)):
            return -math.inf
        parts.append(picked)
    terms = [t for part in parts for t in part.tolist()]
    term_error = sum(float(np.sum(np.abs(part))) * 2.0 * U for part in parts)
    total = math.fsum(terms)
    return total - term_error - abs(total) * U - len(terms) * 5e-324


def upper_dot(c: npt.ArrayLike, x: npt.ArrayLike) -> float:
    """``Σ c_j x_j`` rounded up: an upper bound of the exact sum for the given floats.

    Examples
    --------
    >>> upper_dot([0.1, 0.2], [1.0, 1.0]) >= 0.1 + 0.2
    True
    """
    products = np.asarray(c, dtype=np.float64).ravel() * np.asarray(x, dtype=np.float64).ravel()
    total = math.fsum(products.tolist())
    return total + float(np.sum(np.abs(products))) * U + abs(total) * U + products.size * 5e-324
