"""The minimax user's LP over remaps of a given mechanism (Gupte & Sundararajan (2010)).

For a mechanism ``M`` (N × m), a loss ``L`` and side information S, the best randomized remap
``T`` (m × k, row-stochastic) solves:

    minimise t   subject to   Σ_z Σ_r M[i, z] L[i, r] T[z, r] ≤ t   for i ∈ S,
                              T ≥ 0,  Σ_r T[z, r] = 1.

Gupte & Sundararajan prove that for a count query and a monotone loss, the range-restricted
geometric mechanism followed by this remap is as good as the minimax user's optimal mechanism.

Numerics. The rows multiply ``M`` into the coefficients: the geometric mechanism's entries
reach ``e^(−εn)`` (``e^-90`` at n = 30, ε = 3), so a row's coefficients span 40 orders of
magnitude, which made HiGHS fail ("solver_error") and Clarabel report "unbounded" on that
instance. The LP handed to the solver drops, in each row, the coefficients below
`DROP_RTOL` of the row's largest (a perturbed LP whose optimum moves by at most that
fraction of the row's total), and the objective is scaled to O(1). Nothing is lost in rigour:
the value is evaluated at the returned ``T`` on the *true* coefficients (rounded up) and the
lower bound is Lagrangian on the *true* LP (rounded down), so ``[lower_bound, value]``
contains the true LP's optimum.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech.lp.bounds import SimplexBlocks, lagrangian_bound
from optmech.lp.engine.certified import CertifiedLP, Policy, certified_solve
from optmech.lp.matrix.bounds import simplex_weights
from optmech.lp.matrix.objectives import scale_of
from optmech.lp.solve import Strategy
from optmech.provenance import Provenance

__all__ = [
    "BYTES_PER_COEFFICIENT",
    "DEFAULT_REMAP_MEMORY_GB",
    "DROP_RTOL",
    "RemapLP",
    "build_remap_lp",
    "remap_forms",
    "solve_minimax_remap",
]


#: Coefficients below this fraction of their row's largest are left out of the LP solved.
DROP_RTOL = 1e-12
#: Peak memory per dense constraint coefficient of the remap LP (cvxpy's canonicalisation
#: keeps several copies), measured on ``G`` with S = all inputs: 222 B at n = 60, 252 B at
#: n = 100, 136 B at n = 140 (HiGHS): the basis of the estimate quoted when the LP is refused.
BYTES_PER_COEFFICIENT = 250
#: Default memory budget of the remap LP: 20 million coefficients (n = 270 with S = all), the
#: cap it had before memory became the convention, at the measured bytes per coefficient.
DEFAULT_REMAP_MEMORY_GB = 20_000_000 * BYTES_PER_COEFFICIENT / 1e9


def remap_forms(m_rows: FloatArray, loss_rows: FloatArray) -> FloatArray:
    """``F[s, z·k + r] = M[i_s, z] · L[i_s, r]``: the rows of the LP on ``vec(T)`` (row-major)."""
    return (m_rows[:, :, None] * loss_rows[:, None, :]).reshape(m_rows.shape[0], -1)


@dataclass(frozen=True)
class RemapLP:
    """The remap LP with its constraints by name: ``remap`` is ``T`` (m × k, non-negative),
    ``simplex`` the rows of ``T`` summing to 1 and ``epigraph`` the rows ``F vec(T) / factor ≤ t``
    (``t`` the worst case, in the scaled units)."""

    problem: cp.Problem
    remap: cp.Variable
    simplex: cp.Constraint
    epigraph: cp.Constraint


def build_remap_lp(
    forms: FloatArray, shape: tuple[int, int], factor: float, *, drop_rtol: float = DROP_RTOL
) -> RemapLP:
    """Build the LP with the forms divided by ``factor`` and tiny coefficients dropped.

    Examples
    --------
    >>> import numpy as np
    >>> lp = build_remap_lp(np.array([[1.0, 1e-20, 2.0, 3.0]]), (2, 2), 1.0)
    >>> lp.epigraph.size, lp.simplex.size
    (1, 2)
    """
    scaled = forms / factor
    keep = scaled >= drop_rtol * scaled.max(axis=1, keepdims=True)
    a = sp.csr_matrix(np.where(keep, scaled, 0.0))
    t = cp.Variable(shape, nonneg=True, name="remap")
    worst = cp.Variable(name="worst_case")
    simplex = cp.sum(t, axis=1) == 1
    epigraph = a @ cp.vec(t, order="C") <= worst
    problem = cp.Problem(cp.Minimize(worst), [simplex, epigraph])
    return RemapLP(problem, t, simplex, epigraph)


def _candidates(m_rows: FloatArray, loss_rows: FloatArray) -> list[tuple[str, FloatArray]]:
    """Feasible remaps known without an LP: the best constant answer, the Bayes remap for a
    uniform prior on S and, when square, the identity."""
    n_z, k = m_rows.shape[1], loss_rows.shape[1]
    best = int(np.argmin(np.max(loss_rows, axis=0)))
    out = [("best constant answer", np.tile(np.eye(k)[best], (n_z, 1)))]
    choice = np.argmin(m_rows.T @ loss_rows, axis=1)
    out.append(("Bayes remap for a uniform prior on S", np.eye(k)[choice]))
    if n_z == k:
        out.append(("identity", np.eye(k)))
    return out


def upper_worst(m_rows: FloatArray, t: FloatArray, loss_rows: FloatArray) -> float:
    """``max_s Σ_z Σ_r M[s, z] T[z, r] L[s, r]`` rounded up (exactly 0 when every term is).

    All terms are non-negative, so the computed sums carry a relative error of at most
    ``γ_{m+k+1}`` (Higham (2002), §3.1: ``M T`` sums m products, the row sum k more).
    """
    used = ((m_rows != 0).astype(np.float64) @ (t != 0).astype(np.float64)) * (loss_rows != 0)
    if not np.any(used):
        return 0.0
    total = float(np.max(np.sum((m_rows @ t) * loss_rows, axis=1)))
    k = m_rows.shape[1] + t.shape[1] + 2
    return total * (1.0 + k * _U / (1.0 - k * _U)) + 5e-324


def remap_bound(forms: FloatArray, mu: FloatArray | None, shape: tuple[int, int]) -> float:
    """Lower bound on the true LP: ``min_T Σ_s w_s F_s · vec(T)`` with ``w = μ/Σμ`` (``Σ w ≤ 1``
    exactly), which is at most ``min_T max_s F_s · vec(T)`` since the forms are non-negative;
    evaluated over the simplex rows of ``T`` and rounded down by
    `lagrangian_bound`."""
    weights = simplex_weights(mu)
    if weights is None:
        return 0.0
    w = weights[0]
    used = w > 0
    bound = lagrangian_bound(
        np.zeros(shape[0] * shape[1]),
        a_ub=sp.csr_matrix(forms[used]),
        b_ub=np.zeros(int(np.count_nonzero(used))),
        y_ub=w[used],
        blocks=SimplexBlocks.rows(*shape),
    )
    return max(bound, 0.0) if math.isfinite(bound) else 0.0


class _Remap(CertifiedLP[RemapLP, FloatArray, FloatArray]):
    """The remap LP's hooks (`optmech.lp.engine.certified`): the point clipped and its rows
    normalised is a remap, certified by its worst case on the true coefficients (rounded up)
    and bounded by `remap_bound`; the known remaps (`_candidates`) compete."""

    kind = "remap"

    def __init__(self, m_rows: FloatArray, loss_rows: FloatArray) -> None:
        self.m_rows, self.loss_rows = m_rows, loss_rows
        self.shape = (m_rows.shape[1], loss_rows.shape[1])
        self.forms = remap_forms(m_rows, loss_rows)
        self.top = float(self.forms.max()) if self.forms.size else 1.0
        self.candidates = _candidates(m_rows, loss_rows)
        # The least worst case of the known remaps, never below 1e-6 of the largest coefficient:
        # the LP's optimum becomes O(1) (scaled by the constant answer alone, an optimum of 3e-3
        # came out 1.2e-6 too high) and no coefficient exceeds 1e6 (the Bayes remap of ``G`` at
        # n = 30, ε = 3 is worth 1e-18).
        values = [
            float(np.max(np.sum(loss_rows * (m_rows @ t), axis=1))) for _, t in self.candidates
        ]
        self.scale = scale_of(values, self.top)
        self.num_variables = self.shape[0] * self.shape[1] + 1

    def build(self, strategy: Strategy) -> tuple[cp.Problem, RemapLP]:
        factor = self.top if strategy.rescaled and self.top > 0 else self.scale
        lp = build_remap_lp(self.forms, self.shape, factor)
        return lp.problem, lp

    def read(self, built: RemapLP) -> FloatArray:
        t = np.clip(np.asarray(built.remap.value, dtype=np.float64), 0.0, None)
        sums = t.sum(axis=1, keepdims=True)
        return np.divide(t, sums, out=np.full_like(t, 1.0 / self.shape[1]), where=sums > 0)

    def repair(self, point: FloatArray) -> FloatArray:
        return point

    def certify(self, candidate: FloatArray) -> float:
        return upper_worst(self.m_rows, candidate, self.loss_rows)

    def bound(self, built: RemapLP, point: FloatArray) -> float:
        mu = built.epigraph.dual_value
        finite = mu is not None and bool(np.all(np.isfinite(mu)))
        return remap_bound(self.forms, mu if finite else None, self.shape)

    def known(self) -> Iterable[tuple[str, FloatArray]]:
        return [(f"known remap: {name}", t) for name, t in self.candidates]


def solve_minimax_remap(
    m_rows: FloatArray,
    loss_rows: FloatArray,
    *,
    solver: str | None,
    accuracy: float,
) -> tuple[FloatArray, Provenance]:
    """Solve the remap LP robustly and certify ``[lower_bound, value]`` on the true LP, for the
    rows of ``M`` and ``L`` of the inputs of S; ``solver`` is a named solver (kept, then rescaled)
    or the policy's (with the fallback); ``accuracy`` is recorded in the provenance (the caller
    warns). Returns ``T`` and its provenance."""
    policy = Policy(solver=solver, accuracy=accuracy, cross_check=False)
    outcome = certified_solve(_Remap(m_rows, loss_rows), policy)
    value = np.asarray(outcome.used.built.remap.value, dtype=np.float64)
    violation = float(max(0.0, -float(np.min(value))))
    return outcome.best.candidate, outcome.provenance(accuracy=accuracy, violation_before=violation)
