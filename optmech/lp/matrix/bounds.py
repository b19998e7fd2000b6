"""Rigorous lower bounds on a user LP's optimum from the solver's multipliers.

Lagrangian relaxation of the privacy rows (and, for an epigraph objective, of the rows
``F_k · vec(X) ≤ t``), keeping each row of ``X`` in the probability simplex — which contains
the feasible set — gives for *any* multipliers ``z ≥ 0`` (Ghosh, Roughgarden & Sundararajan
(2012), LP (2)–(6); weak duality):

    optimum ≥ Σ_i min_r C[i, r],   C = W + (privacy rows)ᵀ z.

For an epigraph objective ``min max_k F_k · vec(X)`` (a minimax user, Gupte & Sundararajan
(2010); or the common-mechanism ratio, Brenner & Nissim (2014)) the epigraph multipliers
``μ`` are normalised to weights ``w`` summing to at most 1 and ``max_k F_k · x ≥ Σ_k w_k
F_k · x`` (non-negative forms) reduces it to the linear case: ``optimum ≥ Σ_i min_r
(Σ_k w_k F_k + Pᵀz/Σμ)[i, r]``.

The arithmetic is `optmech.lp.bounds.lagrangian_bound`'s:
every step is rounded downward, and the privacy coefficients (``e^ε`` as computed by
`math.exp`, within an ulp) are covered by its ``coefficient_rtol``. The solver's
multipliers only make the bound tight; its validity needs nothing from the solver. With non-negative
weights the optimum is also at least 0, so the bound returned is ``max(dual bound, 0)``.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.lp.bounds import SimplexBlocks, lagrangian_bound
from optmech.lp.matrix.build import Duals, privacy_matrix

__all__ = ["epigraph_bound", "linear_bound", "simplex_weights"]


def _privacy_multipliers(duals: Duals, factor: float) -> FloatArray | None:
    if duals.forward is None or duals.backward is None:
        return None
    return np.concatenate([duals.forward.ravel(), duals.backward.ravel()]) * factor


def _relaxed(c: FloatArray, a_ub: sp.csr_matrix, y: FloatArray, shape: tuple[int, int]) -> float:
    """``max(0, min Σ c ⊙ X + yᵀ(A X))`` over rows of ``X`` in the simplex, rounded down."""
    blocks = SimplexBlocks.rows(*shape)
    bound = lagrangian_bound(c, a_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]), y_ub=y, blocks=blocks)
    return max(bound, 0.0)


def linear_bound(
    weights: FloatArray,
    duals: Duals,
    coefficients: tuple[float, float],
    factor: float,
    graph: nx.Graph,
) -> float:
    """A rigorous lower bound on ``min Σ W ⊙ X`` over ε-DP mechanisms on ``graph``, at least 0
    (0 when the solver gave no multipliers).

    ``weights`` are the true (unscaled, non-negative) ones; ``duals`` are the multipliers of the
    privacy rows ``lo · x_a ≤ hi · x_b`` (``coefficients = (lo, hi)``) of the LP solved with
    objective ``W / factor``, so ``factor · z`` are multipliers in ``W``'s units.
    """
    y = _privacy_multipliers(duals, factor)
    if y is None:
        return 0.0
    a_ub = privacy_matrix(graph, weights.shape[1], *coefficients)
    return _relaxed(weights.ravel(), a_ub, y, weights.shape)


def simplex_weights(mu: npt.ArrayLike | None) -> tuple[FloatArray, float] | None:
    """``(μ / Σμ, Σμ)`` with the normalised weights summing to at most 1 exactly (``fsum``).

    ``max_k a_k ≥ Σ_k w_k a_k`` for ``a ≥ 0`` and ``w ≥ 0`` with ``Σ w ≤ 1``; rounding the
    division could leave ``Σ w`` an ulp above 1, so the weights are shrunk until it is not.
    ``None`` when there is no positive multiplier.
    """
    if mu is None:
        return None
    m = np.clip(np.asarray(mu, dtype=np.float64).reshape(-1), 0.0, None)
    total = math.fsum(m.tolist())
    if not (total > 0 and math.isfinite(total)):
        return None
    w = m / total
    while math.fsum(w.tolist()) > 1.0:
        w *= 1.0 - 2.0**-52
    return w, total


def epigraph_bound(
    forms: sp.csr_matrix,
    shape: tuple[int, int],
    duals: Duals,
    coefficients: tuple[float, float],
    factor: float,
    graph: nx.Graph,
) -> float:
    """A rigorous lower bound on ``min max_k F_k · vec(X)`` over ε-DP mechanisms, at least 0.

    With the epigraph multipliers ``μ`` (unit-free) normalised to weights ``w``
    (`simplex_weights`), ``max_k F_k · x ≥ Σ_k w_k F_k · x`` for every feasible ``x`` (the true
    forms are non-negative), and the Lagrangian bound of the linear objective ``Σ_k w_k F_k``
    with the privacy multipliers (scaled back by ``factor`` as for `linear_bound`) divided by
    the same ``Σ μ`` bounds the right-hand side from below. (At an optimal dual ``Σ μ = 1``:
    the normalisation only removes the solver's error in it, which a box on ``t`` would have to
    pay for as ``|1 − Σ μ| · t_max``.)
    """
    y = _privacy_multipliers(duals, factor)
    weights = simplex_weights(duals.epigraph)
    if y is None or weights is None:
        return 0.0
    w, total = weights
    privacy = privacy_matrix(graph, shape[1], *coefficients)
    a_ub = sp.vstack([sp.csr_matrix(forms), privacy], format="csr")
    return _relaxed(np.zeros(shape[0] * shape[1]), a_ub, np.concatenate([w, y / total]), shape)
