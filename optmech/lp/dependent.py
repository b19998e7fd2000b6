"""Query-output-dependent noise: the worst-case LP of Geng & Viswanath (2016), Thm. 10.

For an integer query ``t`` with integer sensitivity Δ, let the noise law depend on the query
value, ``K(t) = t + X_t``, periodic in ``t`` with period ``P`` (Geng & Viswanath (2016), §VI,
"query-output dependent noise"). ε-DP requires, for every ``t``, every shift ``|d| ≤ Δ`` and
every output ``y``, ``P(y | t) ≤ e^ε P(y | t + d)``, i.e. with ``p_t`` the pmf of ``X_t``:

    p_t(k) ≤ e^ε p_{(t + d) mod P}(k − d)        for all k ∈ ℤ, 0 < |d| ≤ Δ, t = 0..P−1.

The objective is the worst case over ``t`` of ``E c(X_t)``. Geng & Viswanath (2016), Thm. 10,
show that dependence on ``t`` cannot beat the best query-independent noise, which in the
integer setting is the discrete staircase (Geng & Viswanath (2016), §VI): the LP optimum must
equal ``min_r E c(staircase_r)``.

**The LP.** Noise on the grid ``k ∈ [−K, K]`` (``K ≥ Δ``), tails *closed exactly* by
continuing the outermost period of Δ cells geometrically with factor ``b = e^(−ε)`` per period:
``p_t(k) = b p_t(k − Δ)`` for ``k > K`` and ``p_t(k) = b p_t(k + Δ)`` for ``k < −K``. The
variables are *masses*: ``y_t(k)`` is the probability of ``k`` on the grid's inner cells, and
of the whole geometric class ``{k, k ± Δ, k ± 2Δ, …}`` on the outermost period (``y = q m``
with ``m_k = 1/(1 − b)`` there, 1 inside, ``q`` the pmf value). In these units

* each phase is a probability simplex, ``Σ_k y_t(k) = 1`` (exact block weights 1, which the
  Lagrangian bound of `optmech.lp.bounds` uses as they are);
* the cost of phase ``t`` is ``Σ_k y_t(k) c̄_k`` with ``c̄_k`` the mean cost of cell ``k``'s
  class, ``c̄_k = (1 − b) Σ_{j≥0} b^j c(k ± jΔ)`` on the outermost period
  (`optmech.costs.Cost.periodic_sum`), so coefficients stay O(1)
  after one division by the cost of a known feasible point, even at ε = 0.05 where 86% of the mass
  sits in the tails (as pmf values those variables carried weights ``1/(1 − b) ≈ 20`` in the
  normalisation and costs 10⁴ times the inner ones);
* privacy: the constraints for ``k`` and ``k − d`` on the grid extended by one period on each
  side ``[−K − Δ, K + Δ]`` (entries there are ``b`` times the outermost period) suffice: a pair
  further out is a ``b``-multiple of one ``Δ`` further in, because both of its entries lie in
  the geometric region.

Every LP-feasible point is therefore a genuine ε-DP family on ℤ, so the LP value is an upper
bound on the optimum over *all* dependent noise; and the discrete staircase is feasible (its pmf
satisfies ``p(k + Δ) = b p(k)`` for ``k ≥ 0``), so for ``K ≥ Δ`` the LP optimum equals the
staircase optimum if the theorem holds.

**Certified, not trusted.** The LP is solved by `optmech.lp.solve.solve_robust`. The solver's point
is clipped, each phase renormalised, certified on the extended grid (which covers every distinct
ratio), and if the certified ε exceeds ε it is mixed with the ``ε/2``-geometric noise
``u(k) ∝ e^(−ε|k|/(2Δ))``, which has slack ``e^ε u(k − d) − u(k) > 0`` everywhere and a slower tail
than ``b``, so a mixture that is private on the extended grid is private everywhere. The returned
family's certified ε is at most ε with no slack (the certificate adds the rounding of the tail
products, the mixture and the normalisation). Its worst-case cost, rounded up, is
`Provenance.value`; the solver's multipliers, read by name from the record of the LP's constraints,
give a Lagrangian lower bound (`optmech.lp.bounds.lagrangian_bound`, rounded down, every constraint
coefficient allowed the rounding error of its computation), so the LP's optimum lies in
``[provenance.lower_bound, provenance.value]`` whatever the solver's tolerances.

Examples
--------
>>> res = dependent_noise_lp(1.0, sensitivity=1, cost="abs", period=2)
>>> round(res.value, 8)  # two-sided geometric: E|X| = 1/sinh(1)
0.85091813
>>> res.lower_bound <= 1 / math.sinh(1.0) <= res.value
True
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech._floats import U as _U
from optmech._validation import check_epsilon, check_flag, check_int
from optmech.certify.matrix import log_ratio_bound
from optmech.costs import Cost, as_cost
from optmech.lp.bounds import SimplexBlocks, lagrangian_bound, upper_dot
from optmech.lp.dependent_result import (
    DependentNoiseResult,
    Multipliers,
    geometric_half,
)
from optmech.lp.engine.certified import CertifiedLP, Policy, certified_solve
from optmech.lp.engine.mixing import MixingSearch, least_mixture
from optmech.lp.engine.report import reporting, stage
from optmech.lp.limits import DEPENDENT_MEMORY_GB
from optmech.lp.matrix.setting import check_budget, check_lp_size
from optmech.lp.solve import ProblemKind, Strategy
from optmech.provenance import Repair, RepairKind, warn_if_uncertified

__all__ = ["DependentNoiseResult", "Multipliers", "dependent_noise_lp"]

_log = logging.getLogger(__name__)


#: Largest ε accepted: beyond it e^ε exceeds 1e21 and the LP is meaningless in float64.
EPSILON_MAX = 50.0


@dataclass(frozen=True)
class _Instance:
    """Grid, tail factor and the coefficients of the LP in mass units (module docstring)."""

    eps: float
    delta: int
    period: int
    half: int
    b: float
    mass: FloatArray  # m_k: 1 inside, 1/(1 − b) on the outermost period
    costs: FloatArray  # Σ_j b^j c(k ± jΔ) per pmf unit (c(k) inside)
    extension: FloatArray  # E: (q E)[k] = q[k] on the grid, b q[k ∓ Δ] one period beyond
    pairs: tuple[tuple[int, IntArray, slice, slice], ...]
    scale: float  # cost of the ε/Δ-geometric noise (feasible): brings the objective to O(1)
    coefficient_rtol: float  # relative error bound of every float coefficient

    @property
    def n_grid(self) -> int:
        return 2 * self.half + 1


def _extension(half: int, delta: int, b: float) -> FloatArray:
    """``E`` with ``(q E)[k] = q[k]`` on the grid and ``b q[k ∓ Δ]`` one period beyond it."""
    ks = np.arange(-half - delta, half + delta + 1)
    src = np.where(ks > half, ks - delta, np.where(ks < -half, ks + delta, ks))
    out = np.zeros((2 * half + 1, ks.size))
    out[src + half, np.arange(ks.size)] = np.where(np.abs(ks) > half, b, 1.0)
    return out


def _pairs(period: int, n_ext: int, delta: int) -> tuple[tuple[int, IntArray, slice, slice], ...]:
    """Per shift d: (d, partner phases, columns of k, columns of k − d) on the extended grid."""
    out = []
    for d in (*range(-delta, 0), *range(1, delta + 1)):  # 2Δ shifts, each a whole-matrix constraint
        lo, hi = max(d, 0), n_ext + min(d, 0)
        out.append((d, (np.arange(period) + d) % period, slice(lo, hi), slice(lo - d, hi - d)))
    return tuple(out)


def _coefficient_rtol(eps: float) -> float:
    """Relative error bound of the float coefficients (costs, masses, ``e^ε``, ``b``).

    ``math.exp`` is within one ulp; ``c(k)`` at integers is exact or correctly rounded for the
    built-in costs; a tail sum ``Σ_j b^j c(k + jΔ)`` of `Cost.periodic_sum` has at most
    ``J ≈ 40/ε + 64`` positive terms before its remainder is below 1e-17 relative, each weight
    ``b^j = e^(j log b)`` accurate to ``(40 + 4)u`` (the exponent is at most 40 there), so Higham's
    bound for a sum of positive terms gives ``(J + 48)u``; the closed forms of the integer powers
    take fewer roundings. Doubled for the division by the mass and the products with ``b`` and
    ``e^ε`` in the constraint rows.
    """
    terms = 40.0 / eps + 64.0
    return 2.0 * (terms + 48.0) * _U


def _instance(
    eps: float, delta: int, c: Cost, period: int, half: int
) -> tuple[_Instance, IntArray]:
    b = math.exp(-eps)
    ks = np.arange(-half, half + 1)
    mass = np.where(np.abs(ks) > half - delta, 1.0 / (1.0 - b), 1.0)  # the outermost periods
    costs = np.asarray(c(ks.astype(np.float64)), dtype=np.float64).copy()
    for outer, step in ((ks > half - delta, delta), (ks < -half + delta, -delta)):
        k = ks[outer].astype(np.float64)
        costs[outer] += b * np.asarray(c.periodic_sum(k + step, period=step, ratio=b))
    if not np.all(np.isfinite(costs)):
        raise ValueError(f"the expected cost of {c!r} diverges on the geometric tails.")
    ext = _extension(half, delta, b)
    # Scale: the cost of the ε/Δ-geometric noise (its tail is b per Δ: feasible here).
    lap = np.exp(-eps / delta * np.abs(ks)) * mass
    scale = float(lap @ (costs / mass) / lap.sum())
    return _Instance(
        eps=eps,
        delta=delta,
        period=period,
        half=half,
        b=b,
        mass=mass,
        costs=costs,
        extension=ext,
        pairs=_pairs(period, ext.shape[1], delta),
        scale=scale if scale > 0 else 1.0,
        coefficient_rtol=_coefficient_rtol(eps),
    ), ks


@dataclass(frozen=True)
class _Record:
    """The LP of one attempt: variables and constraints by name, with their matrices.

    The variable is ``x = [vec(y), w]`` (``y`` row-major, phase by phase; ``w`` the worst-case
    cost in units of `objective_unit`). The multipliers of the Lagrangian bound
    are read from these constraints by name (``record.cost.dual_value``), never by position.
    """

    x: cp.Variable
    cost: cp.Constraint  # A_cost x ≤ 0: y_t·c̄/unit − w ≤ 0
    privacy: cp.Constraint  # A_dp x ≤ 0
    a_cost: sp.csr_matrix = field(repr=False)
    a_dp: sp.csr_matrix = field(repr=False)
    objective_unit: float  # the LP's w times this is a cost
    w_box: tuple[float, float]  # bounds on w implied by the LP (for the Lagrangian bound)
    coefficients: FloatArray = field(repr=False)  # c̄/unit as solved
    balanced: bool = False


def _privacy_matrix(inst: _Instance, balanced: bool) -> sp.csr_matrix:
    """Rows ``(q E)[t, k] − e^ε (q E)[t + d, k − d] ≤ 0`` in mass units, all shifts stacked.

    ``balanced`` divides each row by ``e^(ε/2)`` (``e^(−ε/2) a ≤ e^(ε/2) b``), the form
    `optmech.lp.solve.Strategy` asks for on a retry.
    """
    e_y = inst.extension / inst.mass[:, None]  # (q E) = y (diag(1/m) E)
    half = inst.eps / 2.0
    left, right = (math.exp(-half), math.exp(half)) if balanced else (1.0, math.exp(inst.eps))
    eye = sp.identity(inst.period, format="csr")
    blocks = []
    for _d, partner, cols, cols_d in inst.pairs:
        a = sp.kron(eye, sp.csr_matrix(e_y[:, cols].T)) * left
        bb = sp.kron(eye[partner], sp.csr_matrix(e_y[:, cols_d].T)) * right  # phase t + d
        blocks.append((a - bb).tocsr())
    body = sp.vstack(blocks, format="csr")
    body.eliminate_zeros()
    return sp.hstack([body, sp.csr_matrix((body.shape[0], 1))], format="csr")


def _build(inst: _Instance, strategy: Strategy) -> tuple[cp.Problem, _Record]:
    """The LP for one attempt of `solve_robust` (rescaled: coefficients ≤ 1, balanced), logged
    as the stage ``build`` with its size."""
    with stage("build", _log) as found:
        n = inst.period * inst.n_grid
        coef = inst.costs / inst.mass / inst.scale  # c̄_k, the mean cost of cell k's class
        unit = inst.scale
        if strategy.rescaled:
            top = float(np.max(np.abs(coef)))
            if top > 0:
                coef, unit = coef / top, inst.scale * top
        eye, ones = sp.identity(inst.period), np.ones((inst.period, 1))
        a_cost = sp.hstack([sp.kron(eye, sp.csr_matrix(coef[None, :])), -ones], format="csr")
        a_dp = _privacy_matrix(inst, strategy.rescaled)
        a_mass = sp.hstack([sp.kron(eye, np.ones((1, inst.n_grid))), 0.0 * ones], format="csr")
        x = cp.Variable(n + 1, name="noise_and_worst_case")
        mass = a_mass @ x == 1
        cost = a_cost @ x <= 0
        privacy = a_dp @ x <= 0
        positive = x[:n] >= 0
        # w lies between the cheapest cell and twice the cost of the ε/Δ-geometric (feasible, cost
        # `scale`): a box that cuts no optimum off, so its bound is valid for the LP.
        w_box = (float(min(np.min(coef), 0.0)), 2.0 * inst.scale / unit + 1.0)
        problem = cp.Problem(cp.Minimize(x[n]), [mass, cost, privacy, positive])
        record = _Record(x, cost, privacy, a_cost, a_dp, unit, w_box, coef, strategy.rescaled)
        found.update(
            variables=record.x.size,
            rows=inst.period + record.a_cost.shape[0] + record.a_dp.shape[0],
            nonzeros=inst.period * inst.n_grid + record.a_cost.nnz + record.a_dp.nnz,
        )
    return problem, record


def _lower_bound(inst: _Instance, record: _Record) -> float:
    """Lagrangian bound on the LP's optimum (in cost units), from the record's multipliers."""
    y_cost, y_dp = record.cost.dual_value, record.privacy.dual_value
    if y_cost is None or y_dp is None:
        return -math.inf
    n = inst.period * inst.n_grid
    c = np.zeros(n + 1)
    c[n] = 1.0
    block = np.concatenate([np.repeat(np.arange(inst.period), inst.n_grid), [-1]])
    blocks = SimplexBlocks(block.astype(np.int64), np.ones(n + 1), np.ones(inst.period))
    lower = np.zeros(n + 1)
    upper = np.full(n + 1, np.inf)
    lower[n], upper[n] = record.w_box
    bound = lagrangian_bound(
        c,
        a_ub=sp.vstack([record.a_cost, record.a_dp], format="csr"),
        b_ub=np.zeros(record.a_cost.shape[0] + record.a_dp.shape[0]),
        y_ub=np.concatenate([np.ravel(y_cost), np.ravel(y_dp)]),
        blocks=blocks,
        lower=lower,
        upper=upper,
        coefficient_rtol=inst.coefficient_rtol,
    )
    if not math.isfinite(bound):
        return -math.inf
    return math.nextafter(bound * record.objective_unit, -math.inf)


def _multipliers(record: _Record) -> Multipliers | None:
    y_cost, y_dp = record.cost.dual_value, record.privacy.dual_value
    if y_cost is None or y_dp is None:
        return None
    scaling = ("objective_unit", "coefficients", "balanced", "w_box")
    return Multipliers(
        cost=np.asarray(y_cost, dtype=np.float64).ravel(),
        privacy=np.asarray(y_dp, dtype=np.float64).ravel(),
        **{name: getattr(record, name) for name in scaling},
    )


def _certify(ext: FloatArray, pairs: tuple[tuple[int, IntArray, slice, slice], ...]) -> float:
    worst = 0.0
    for _d, partner, cols, cols_d in pairs:
        worst = max(worst, float(np.max(log_ratio_bound(ext[:, cols], ext[partner][:, cols_d]))))
    return worst


def _normalisation(inst: _Instance, q: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Enclosures ``[Z_lo, Z_hi]`` of each phase's total mass ``Σ_k q_t(k) m_k`` (exact m)."""
    rtol = inst.coefficient_rtol
    hi = np.array([upper_dot(inst.mass, row) for row in q]) * (1.0 + rtol)
    lo = -np.array([upper_dot(-inst.mass, row) for row in q]) * (1.0 - rtol)
    return lo, hi


def _family_epsilon(inst: _Instance, ext: FloatArray, q: FloatArray) -> float:
    """Certified ε of the exactly normalised family: the float certificate of the extended grid,
    plus the rounding of its entries (the tail products and the mixture: 8 ulps of a log) and
    the largest ratio between two phases' normalisations."""
    z_lo, z_hi = _normalisation(inst, q)
    spread = math.log(float(np.max(z_hi)) / float(np.min(z_lo))) * (1.0 + 4.0 * _U)
    return math.nextafter(_certify(ext, inst.pairs) + 8.0 * _U + spread, math.inf)


def _repair(inst: _Instance, q: FloatArray) -> tuple[FloatArray, float, float]:
    """Mix with the ε/2-geometric until the family certifies at ε; return (ext, λ, ε certified)."""
    ext = q @ inst.extension
    cert = _family_epsilon(inst, ext, q)
    if cert <= inst.eps:
        return ext, 0.0, cert
    n_ext = inst.extension.shape[1]
    u_ext = geometric_half(inst.eps, inst.delta, np.arange(n_ext) - inst.half - inst.delta)
    # Aim inside ε by what the certificate adds to an exactly tight pair: the ulps of the logs,
    # the entries' rounding and the normalisations' spread (twice, for safety).
    positive = ext[ext > 0]
    logs = float(np.max(np.abs(np.log(positive)))) if positive.size else 0.0
    slack = cert - _certify(ext, inst.pairs)  # rounding + spread added by _family_epsilon
    margin = 2.0 * (8.0 * float(np.spacing(logs)) + slack)
    et = math.exp(inst.eps - margin if margin < inst.eps / 2 else inst.eps * (1.0 - 1e-10))
    need = 0.0
    for _d, partner, cols, cols_d in inst.pairs:
        a, bb = ext[:, cols], ext[partner][:, cols_d]
        ua, ub = u_ext[cols][None, :], u_ext[cols_d][None, :]
        need = max(need, float(np.max((a - et * bb) / (et * ub - ua))))

    def certified(lam: float) -> tuple[FloatArray, float] | None:
        mixed = (1.0 - lam) * ext + lam * u_ext[None, :]
        cert = _family_epsilon(inst, mixed, q)
        return (mixed, cert) if cert <= inst.eps else None

    lam, (mixed, cert) = least_mixture(  # λ = 1 is the ε/2-geometric, private
        certified,
        max(need / (1.0 + need), 1e-16),
        MixingSearch(),
        failure="the dependent-noise repair failed; this is a bug",
    )
    return mixed, lam, cert


def _geometric_cost(c: Cost, eps: float, delta: int) -> float:
    """Exact ``E c(U)`` for the ε/2-geometric ``u(k) ∝ β^|k|``, ``β = e^(−ε/(2Δ))``."""
    beta = math.exp(-eps / (2.0 * delta))
    norm = math.tanh(eps / (4.0 * delta))
    up = float(c.periodic_sum(0.0, period=1.0, ratio=beta))
    down = float(c.periodic_sum(0.0, period=-1.0, ratio=beta))
    return norm * (up + down - float(c(0.0)))


def _phase_costs_upper(inst: _Instance, q: FloatArray, lam: float, u_cost: float) -> FloatArray:
    """Upper bounds of ``E c(X_t)`` for the exactly normalised, mixed family, per phase."""
    rtol = inst.coefficient_rtol
    num = np.array([upper_dot(inst.costs, row) for row in q]) * (1.0 + rtol)
    z_lo, _ = _normalisation(inst, q)
    own = num / z_lo * (1.0 + 2.0 * _U)
    mixed = (1.0 - lam) * own + lam * u_cost * (1.0 + rtol)
    return np.nextafter(mixed * (1.0 + 4.0 * _U), np.inf)


@dataclass(frozen=True)
class _Family:
    """A certified family: pmfs ``q`` (phase by phase), its repair weight ``λ``, certified ε,
    each phase's cost, the upper bound of the worst, and the solver's point's violation and
    worst cost."""

    q: FloatArray
    lam: float
    epsilon: float
    phase: FloatArray
    value: float
    raw_violation: float
    raw_value: float


@dataclass
class _Dependent(CertifiedLP[_Record, tuple[FloatArray, _Record], _Family]):
    """The dependent-noise LP as hooks of `certified_solve` (module docstring)."""

    inst: _Instance
    c: Cost
    kind: ProblemKind = "count"

    def __post_init__(self) -> None:
        self.num_variables = self.inst.period * self.inst.n_grid + 1

    def build(self, strategy: Strategy) -> tuple[cp.Problem, _Record]:
        return _build(self.inst, strategy)

    def read(self, built: _Record) -> tuple[FloatArray, _Record]:
        return np.asarray(built.x.value, dtype=np.float64), built

    def repair(self, read: tuple[FloatArray, _Record]) -> _Family:
        """Clip, renormalise each phase, and mix with the ε/2-geometric until it certifies."""
        inst, (point, record) = self.inst, read
        with stage("certify", _log) as found:
            y = np.clip(point[:-1].reshape(inst.period, inst.n_grid), 0.0, None)
            violation = max(
                float(np.max(record.a_dp @ point, initial=0.0)),
                float(np.max(np.abs(y.sum(axis=1) - 1.0))),
                float(max(0.0, -np.min(point[:-1]))),
            )
            y /= y.sum(axis=1, keepdims=True)
            q = y / inst.mass[None, :]
            q /= (q @ inst.mass)[:, None]
            _ext, lam, cert = _repair(inst, q)
            found.update(certified_epsilon=cert, repair_weight=lam)
        u_cost = _geometric_cost(self.c, inst.eps, inst.delta) if lam > 0 else 0.0
        value = float(np.max(_phase_costs_upper(inst, q, lam, u_cost)))
        own = (q @ inst.costs) / (q @ inst.mass)
        phase = (1.0 - lam) * own + lam * u_cost
        return _Family(q, lam, cert, phase, value, violation, float(np.max(own)))

    def certify(self, candidate: _Family) -> float | None:
        return candidate.value if candidate.epsilon <= self.inst.eps else None

    def bound(self, built: _Record, point: tuple[FloatArray, _Record]) -> float:
        return _lower_bound(self.inst, built)


def dependent_noise_lp(
    epsilon: float,
    *,
    sensitivity: int = 1,
    cost: Cost | str = "abs",
    period: int | None = None,
    half_width: int | None = None,
    solver: str | None = None,
    max_memory_gb: float = DEPENDENT_MEMORY_GB,
    verbose: bool = False,
    progress: bool = False,
) -> DependentNoiseResult:
    """Optimal worst-case noise when the noise may depend on the query value.

    Geng & Viswanath (2016), Thm. 10: the optimum equals that of the best query-independent
    noise, the discrete staircase.

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
        Period ``P`` of the dependence on ``t``; default $2Δ$. ``P = 1`` is query-independent noise.
    half_width : int, optional
        Grid $−K..K$ with $K ≥ Δ$; default $3Δ$.
    solver : str, optional
        cvxpy solver; default by `optmech.lp.solve.SOLVER_POLICY` ``["count"]``, with the
        retries of `optmech.lp.solve.solve_robust`.
    max_memory_gb : float, default 0.48
        Refuse (`ProblemTooLargeError`, with the
        estimate) an LP whose estimated solver memory is larger; ``math.inf`` for no limit.
    verbose : bool, default False
        Log the stages (build, solve, certify, repair) at INFO to stderr
        (`optmech.lp.engine.report`).
    progress : bool, default False
        Show a progress bar of the stages, solver attempts and repair steps.

    Returns
    -------
    DependentNoiseResult
        With ``.provenance``: the LP's optimum lies in ``[lower_bound, value]``.

    Warns
    -----
    InaccurateSolutionWarning
        When the certified interval is wider than `optmech.provenance.DEFAULT_ACCURACY`.

    Examples
    --------
    For Δ = 1 and the absolute cost the optimum is the two-sided geometric noise's
    ``E|X| = 1/sinh(ε)`` (Geng & Viswanath (2016), §VI), within the certified interval:

    >>> import math
    >>> res = dependent_noise_lp(1.0, sensitivity=1, cost="abs", period=2)
    >>> bool(res.lower_bound <= 1 / math.sinh(1.0) <= res.value)
    True
    """
    eps = check_epsilon(
        epsilon, high=EPSILON_MAX, hint="larger ε makes e^ε exceed 1e21 and the LP meaningless"
    )
    delta = check_int("sensitivity", sensitivity, low=1, high=1000)
    c = as_cost(cost)
    period = 2 * delta if period is None else check_int("period", period, low=1)
    half = 3 * delta
    if half_width is not None:
        hint = "the grid must hold one full period Δ"
        half = check_int("half_width", half_width, low=delta, hint=hint)
    n_grid = 2 * half + 1
    budget, _ = check_budget(max_memory_gb)
    check_lp_size(
        f"the dependent-noise LP would have {period} x {n_grid} variables",
        period * n_grid,
        max_memory_gb=budget,
    )
    with reporting(verbose=bool(verbose), progress=check_flag("progress", progress)):
        inst, ks = _instance(eps, delta, c, period, half)
        out = certified_solve(_Dependent(inst, c), Policy(solver=solver, cross_check=False))
    family, lam = out.best.candidate, out.best.candidate.lam
    provenance = out.provenance(
        violation_before=family.raw_violation,
        repair=Repair(
            kind=RepairKind.MIXTURE if lam > 0 else RepairKind.NONE,
            weight=lam,
            cost=family.value - family.raw_value if lam > 0 else 0.0,
        ),
    )
    warn_if_uncertified(provenance)
    return DependentNoiseResult(
        probabilities=family.q,
        support=ks,
        phase_costs=family.phase,
        certified_epsilon=family.epsilon,
        epsilon=eps,
        sensitivity=delta,
        period=period,
        half_width=half,
        provenance=provenance,
        multipliers=_multipliers(out.used.built),
        _solve_info=out.used.info,
    )
