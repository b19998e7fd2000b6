"""Query-output-dependent noise: the worst-case LP of the staircase paper (seed 000, Thm. 2/10).

For an integer query ``t`` with integer sensitivity Δ, let the noise law depend on the query
value, ``K(t) = t + X_t``, periodic in ``t`` with period ``P`` (THEORY.md §1, "query-output
dependent noise"). ε-DP requires, for every ``t``, every shift ``|d| ≤ Δ`` and every output
``y``, ``P(y | t) ≤ e^ε P(y | t + d)``, i.e. with ``p_t`` the pmf of ``X_t``::

    p_t(k) ≤ e^ε p_{(t + d) mod P}(k − d)        for all k ∈ ℤ, 0 < |d| ≤ Δ, t = 0..P−1.

The objective is the worst case over ``t`` of ``E c(X_t)``. Geng & Viswanath show that
dependence on ``t`` cannot beat the best query-independent noise, which in the integer setting
is the discrete staircase (THEORY.md §1): the LP optimum must equal ``min_r E c(staircase_r)``.

**The LP.** Variables ``q_t(k)`` for ``k ∈ [−K, K]`` (``K ≥ Δ``), tails *closed exactly*
(THEORY.md §4) by continuing the outermost period of Δ cells geometrically with factor
``b = e^(−ε)`` per period: ``p_t(k) = b p_t(k − Δ)`` for ``k > K`` and ``p_t(k) = b p_t(k + Δ)``
for ``k < −K``. Then

* mass ``Σ_{grid} q + b/(1 − b) · (outermost period on each side) = 1``;
* cost ``Σ_{grid} q c(k) + Σ_{outer period} q(k) · b · Σ_{j≥0} b^j c(k ± (j + 1)Δ)``, exact via
  :meth:`optmech.costs.Cost.periodic_sum`;
* privacy: it suffices to impose the constraints for ``k`` and ``k − d`` on the grid extended
  by one period on each side ``[−K − Δ, K + Δ]`` (entries there are ``b`` times the outermost
  period): a pair further out is a ``b``-multiple of one ``Δ`` further in, because both of its
  entries lie in the geometric region.

Every LP-feasible point is therefore a genuine ε-DP family on ℤ, so the LP value is an upper
bound on the optimum over *all* dependent noise; and the discrete staircase is feasible (its pmf
satisfies ``p(k + Δ) = b p(k)`` for ``k ≥ 0``), so for ``K ≥ Δ`` the LP value equals the
staircase optimum if the theorem holds.

The solver's point is clipped, each phase renormalised, certified on the extended grid (which
covers every distinct ratio), and if needed mixed with the ``ε/2``-geometric noise
``u(k) ∝ e^(−ε|k|/(2Δ))``, which has slack ``e^ε u(k − d) − u(k) > 0`` everywhere and a slower
tail than ``b``, so a mixture that is private on the extended grid is private everywhere.

Examples
--------
>>> res = dependent_noise_lp(1.0, sensitivity=1, cost="abs", period=2)
>>> round(res.value, 8)  # two-sided geometric: E|X| = 1/sinh(1)
0.85091813
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._validation import check_int
from optmech.certify.matrix import log_ratio_bound
from optmech.costs import Cost, as_cost
from optmech.exceptions import PrivacyViolationError, ProblemTooLargeError, SolverError
from optmech.lp.count import check_epsilon
from optmech.lp.solve import SolveInfo, solve

__all__ = ["DependentNoiseResult", "dependent_noise_lp"]

FloatArray = npt.NDArray[np.float64]

#: Cap on LP variables (phases × grid points).
MAX_VARIABLES = 200_000
_ROUNDING_RTOL = 1e-12


@dataclass(frozen=True)
class DependentNoiseResult:
    """The optimal query-value-dependent noise family and its worst-case cost.

    The noise at query value ``t`` has pmf ``(1 − λ) q_{t mod P}(k) + λ u(k)`` where ``q`` is
    :attr:`probabilities` on :attr:`support` with the geometric tails of the module docstring,
    and ``u`` the ``ε/2``-geometric noise (``λ`` = :attr:`repair_lambda`, usually 0).

    Attributes
    ----------
    probabilities : ndarray, shape (P, 2K + 1)
        ``q_t(k)`` on the grid.
    support : ndarray of int
        The grid ``−K..K``.
    value : float
        ``max_t E c(X_t)``, exact (tails included).
    phase_costs : ndarray, shape (P,)
        ``E c(X_t)`` for each phase.
    certified_epsilon : float
        Achieved ε of the family (pessimistic, independent of the LP).
    epsilon, sensitivity, period, half_width
        The instance.
    repair_lambda : float
        Weight of the ``ε/2``-geometric mixed in to make the point exactly private.
    status, solver : str
    solve_time : float
    info : SolveInfo
    """

    probabilities: FloatArray = field(repr=False)
    support: npt.NDArray[np.int64] = field(repr=False)
    value: float
    phase_costs: FloatArray
    certified_epsilon: float
    epsilon: float
    sensitivity: int
    period: int
    half_width: int
    repair_lambda: float
    status: str
    solver: str
    solve_time: float
    info: SolveInfo | None = field(repr=False, default=None)

    def pmf(self, t: int, k: npt.ArrayLike) -> FloatArray:
        """``P(X_t = k)`` for query value ``t`` (any integer) and noise values ``k``."""
        kk = np.asarray(k, dtype=np.int64)
        q = _with_tails(
            self.probabilities[int(t) % self.period],
            self.half_width,
            self.sensitivity,
            self.epsilon,
            kk,
        )
        u = _geometric_half(self.epsilon, self.sensitivity, kk)
        return (1.0 - self.repair_lambda) * q + self.repair_lambda * u


def _geometric_half(eps: float, delta: int, k: npt.NDArray[np.int64]) -> FloatArray:
    """The ε/2-geometric pmf ``u(k) = (1 − β)/(1 + β) β^|k|``, ``β = e^(−ε/(2Δ))``."""
    # (1 − β)/(1 + β) = tanh(ε/(4Δ))
    return math.tanh(eps / (4.0 * delta)) * np.exp(-eps / (2.0 * delta) * np.abs(k))


def _with_tails(
    q: FloatArray, half: int, delta: int, eps: float, k: npt.NDArray[np.int64]
) -> FloatArray:
    """Grid values ``q`` on ``−K..K`` continued by their geometric tails, at integers ``k``."""
    b = math.exp(-eps)
    out = np.zeros(k.shape)
    inside = np.abs(k) <= half
    out[inside] = q[k[inside] + half]
    right = k > half
    periods = -((half - k[right]) // delta)  # ceil((k − K)/Δ)
    out[right] = b**periods * q[k[right] - periods * delta + half]
    left = k < -half
    periods = -((k[left] + half) // delta)  # ceil((−K − k)/Δ)
    out[left] = b**periods * q[k[left] + periods * delta + half]
    return out


def _extension(half: int, delta: int, b: float) -> sp.csr_matrix:
    """``E`` with ``(q E)[k] = q[k]`` on the grid and ``b q[k ∓ Δ]`` one period beyond it."""
    n_grid = 2 * half + 1
    ks = np.arange(-half - delta, half + delta + 1)
    src = np.where(ks > half, ks - delta, np.where(ks < -half, ks + delta, ks))
    val = np.where(np.abs(ks) > half, b, 1.0)
    return sp.csr_matrix((val, (src + half, np.arange(ks.size))), shape=(n_grid, ks.size))


def _pairs(
    period: int, n_ext: int, delta: int
) -> list[tuple[int, npt.NDArray[np.int64], slice, slice]]:
    """Per shift d: (d, partner phases, columns of k, columns of k − d) on the extended grid."""
    out = []
    for d in range(-delta, delta + 1):  # 2Δ shifts, each a whole-matrix constraint
        if d == 0:
            continue
        lo, hi = max(d, 0), n_ext + min(d, 0)
        out.append((d, (np.arange(period) + d) % period, slice(lo, hi), slice(lo - d, hi - d)))
    return out


def _certify(ext: FloatArray, pairs: list[Any]) -> float:
    worst = 0.0
    for _d, partner, cols, cols_d in pairs:
        worst = max(worst, float(np.max(log_ratio_bound(ext[:, cols], ext[partner][:, cols_d]))))
    return worst


def dependent_noise_lp(
    epsilon: float,
    *,
    sensitivity: int = 1,
    cost: Cost | str = "abs",
    period: int | None = None,
    half_width: int | None = None,
    solver: str | None = None,
) -> DependentNoiseResult:
    """Optimal worst-case noise when the noise may depend on the query value (seed 000, Thm. 10).

    Parameters
    ----------
    epsilon : float
        Privacy level, in (0, 50].
    sensitivity : int, default 1
        Integer sensitivity Δ, in [1, 1000].
    cost : Cost or str, default "abs"
        Cost of the noise (any cost whose geometric tail sums converge; the theorem needs it
        symmetric and non-decreasing in ``|e|``).
    period : int, optional
        Period ``P`` of the dependence on ``t``; default ``2Δ``. ``P = 1`` is query-independent
        noise.
    half_width : int, optional
        Grid ``−K..K`` with ``K ≥ Δ``; default ``3Δ``.
    solver : str, optional
        cvxpy solver.

    Returns
    -------
    DependentNoiseResult
    """
    eps = check_epsilon(epsilon)
    delta = check_int("sensitivity", sensitivity, low=1, high=1000)
    c = as_cost(cost)
    period = 2 * delta if period is None else check_int("period", period, low=1)
    half = (
        3 * delta
        if half_width is None
        else check_int(
            "half_width", half_width, low=delta, hint="the grid must hold one full period Δ"
        )
    )
    n_grid = 2 * half + 1
    if period * n_grid > MAX_VARIABLES:
        raise ProblemTooLargeError(
            f"the dependent-noise LP would have {period} x {n_grid} variables, more than "
            f"{MAX_VARIABLES}; refused before building."
        )
    b = math.exp(-eps)
    ks = np.arange(-half, half + 1)
    outer_right = ks > half - delta
    outer_left = ks < -half + delta
    mass = 1.0 + (b / (1.0 - b)) * (outer_right.astype(float) + outer_left.astype(float))
    costs = np.asarray(c(ks.astype(np.float64)), dtype=np.float64).copy()
    k_r = ks[outer_right].astype(np.float64)
    k_l = ks[outer_left].astype(np.float64)
    costs[outer_right] += b * np.asarray(c.periodic_sum(k_r + delta, period=delta, ratio=b))
    costs[outer_left] += b * np.asarray(c.periodic_sum(k_l - delta, period=-delta, ratio=b))
    if not np.all(np.isfinite(costs)):
        raise ValueError(f"the expected cost of {c!r} diverges on the geometric tails.")
    ext_map = _extension(half, delta, b)
    pairs = _pairs(period, ext_map.shape[1], delta)
    # Scale: the cost of the ε/Δ-geometric noise (feasible, exactly representable here).
    lap = np.exp(-eps / delta * np.abs(ks))
    scale = float(lap @ costs / (lap @ mass))
    scale = scale if scale > 0 else 1.0

    q = cp.Variable((period, n_grid), nonneg=True, name="noise")
    worst = cp.Variable(name="worst_case")
    qe = q @ ext_map
    e = math.exp(eps)
    constraints = [q @ mass == 1, q @ (costs / scale) <= worst]
    constraints += [
        qe[:, cols] <= e * qe[partner, :][:, cols_d] for _d, partner, cols, cols_d in pairs
    ]
    problem = cp.Problem(cp.Minimize(worst), constraints)
    info = solve(problem, solver=solver, kind="count")
    if q.value is None:
        raise SolverError(info.solver, "no_solution", "the solver returned no point")
    raw = np.clip(q.value, 0.0, None)
    raw /= (raw @ mass)[:, None]
    ext = raw @ ext_map.toarray()
    lam = 0.0
    if _certify(ext, pairs) > eps * (1.0 + _ROUNDING_RTOL):
        u_ext = _geometric_half(eps, delta, np.arange(-half - delta, half + delta + 1))
        target = eps * (1.0 - 1e-10)
        et = math.exp(target)
        need = 0.0
        for _d, partner, cols, cols_d in pairs:
            a, bb = ext[:, cols], ext[partner][:, cols_d]
            ua, ub = u_ext[cols][None, :], u_ext[cols_d][None, :]
            need = max(need, float(np.max((a - et * bb) / (et * ub - ua))))
        lam = need / (1.0 + need)
        for _ in range(60):
            mixed = (1.0 - lam) * ext + lam * u_ext[None, :]
            if _certify(mixed, pairs) <= eps * (1.0 + _ROUNDING_RTOL):
                break
            lam = min(1.0, max(2.0 * lam, 1e-15))
        else:  # pragma: no cover - λ = 1 is the ε/2-geometric, private
            raise PrivacyViolationError("the dependent-noise repair failed; this is a bug")
        ext = mixed
    cert = _certify(ext, pairs)
    # The ε/2-geometric's tails decay by e^(−ε/2) per period, not b: its own exact series.
    u_cost = _geometric_cost(c, eps, delta) if lam > 0 else 0.0
    phase = (1.0 - lam) * (raw @ costs) + lam * u_cost
    return DependentNoiseResult(
        probabilities=raw,
        support=ks,
        value=float(np.max(phase)),
        phase_costs=phase,
        certified_epsilon=cert,
        epsilon=eps,
        sensitivity=delta,
        period=period,
        half_width=half,
        repair_lambda=lam,
        status=info.status,
        solver=info.solver,
        solve_time=info.solve_time,
        info=info,
    )


def _geometric_cost(c: Cost, eps: float, delta: int) -> float:
    """Exact ``E c(U)`` for the ε/2-geometric ``u(k) ∝ β^|k|``, ``β = e^(−ε/(2Δ))``."""
    beta = math.exp(-eps / (2.0 * delta))
    norm = math.tanh(eps / (4.0 * delta))
    up = float(c.periodic_sum(0.0, period=1.0, ratio=beta))
    down = float(c.periodic_sum(0.0, period=-1.0, ratio=beta))
    return norm * (up + down - float(c(0.0)))
