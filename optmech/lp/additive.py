"""The LP designer of additive noise: optimal ε-DP, (0, δ) and (ε, δ) noise for any cost.

Mechanism ``K(D) = q(D) + X`` (seed 000 §I; seed 004 for (0, δ)). The noise ``X`` is searched
among densities constant on cells of width ``h = Δ/m`` of the grid ``[−KΔ, KΔ)`` (``m`` cells per
Δ, ``K`` periods each side), or among pmfs on the integers ``−KΔ..KΔ`` when queries and Δ are
integers (seed 000's discrete setting). Everything below is exact (THEORY.md §4):

**Variables.** Densities scaled by Δ, ``x_j = Δ·f_j`` (mass ``x_j/m``), not masses: with masses
near ``1/(2m)`` an absolute solver tolerance of 1e-7 lets the solver cut the tail (THEORY.md §5).
With ``symmetric=True`` only the cells right of 0 are variables (``f(−x) = f(x)``), which
roughly halves the LP (THEORY.md §5). For a *symmetric cost* this reduction is exact even in
the unrestricted class — grid, constraints and objective are invariant under ``x ↦ −x``, so
the average of an optimum and its mirror image is feasible and optimal — and it is used unless
``reduce_symmetric=False``. The objective is divided by the cost of a feasible reference density so
that it is O(1).

**Objective.** The cell-*averaged* cost ``(1/h)∫_cell c`` (:meth:`optmech.costs.Cost.integral`),
so the LP value is the exact expected cost of the designed density: an upper bound for the
continuous problem that converges to it as m grows.

**ε-DP** (seed 000, THEORY.md §1, §4). A finite support cannot be ε-DP, so the tail is closed:
beyond ``±KΔ`` the density repeats the outermost period multiplied by ``b = e^−ε`` per period.
Its cost is exact (:meth:`~optmech.costs.Cost.periodic_integral` / ``periodic_sum``). The pairs
``f_i ≤ e^ε f_j``, ``|i − j| ≤ m`` are imposed on the grid extended by one *virtual* period
each side (``b`` times the outermost real one): deeper pairs are ``b``-scaled copies of these,
so the designed density is ε-DP on all of ℝ, not just on the grid. The window rows come from
:mod:`optmech.lp.windows` (all pairs, or an O(n) auxiliary form for large m).

**(0, δ) and (ε, δ)** (seed 004, THEORY.md §3). Hockey-stick rows for every integer shift
``s = 1..m`` and both directions, ``(1/m)·Σ_j t_sj + α ≤ δ`` with ``t_sj ≥ x_j − e^ε x_{j+s}``,
``t ≥ 0``; ``α`` is an optional atom at the origin (the (0, δ) optimum has one, seed 004), which
leaves the origin under every shift. A piecewise-constant density's divergence at a fractional
shift interpolates linearly between integer shifts, so these rows make the noise (ε, δ)-DP for
every real shift ``|d| ≤ Δ``. Tails are zero: the support is ``[−KΔ, KΔ]``.

**Classes.** ``symmetric=True``: ``f(−x) = f(x)``. ``monotone=True``: non-increasing in ``|x|``
(a peak at the origin). In the monotone class the ε-DP window collapses to pairs exactly ``m``
apart (any closer pair is dominated by one of those, by monotonicity; THEORY.md §5) — the shape
the theorems prove, so it is fast, but a *verification* must also solve the unrestricted class.
The (0, δ) theorem (seed 004) holds *within* symmetric non-increasing noise; outside it an LP
does better (``optmech verify`` shows it).

:func:`design_noise` builds, solves (:func:`optmech.lp.solve.solve`, ``kind="additive"``),
re-evaluates the cost at the returned point, certifies it independently
(:mod:`optmech.certify.noise`), repairs a point the solver left slightly non-private
(:mod:`optmech.lp.noise_repair`) and returns a :class:`~optmech.lp.designed.DesignedNoise`.

Examples
--------
>>> import optmech
>>> from optmech.lp.additive import design_noise
>>> noise = design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=8,
...                      periods=2, symmetric=True)
>>> noise.certified_epsilon <= 1.0 + 1e-9
True
>>> v_star = float(np.exp(0.5) / (np.e - 1))     # staircase optimum, seed 000
>>> bool(v_star <= noise.value <= 1.001 * v_star)
True
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._validation import check_flag, check_int, check_privacy, check_real
from optmech.certify.noise import noise_delta, noise_epsilon
from optmech.costs import Cost, as_cost
from optmech.exceptions import (
    InaccurateSolutionWarning,
    PrivacyViolationError,
    ProblemTooLargeError,
    SolverError,
)
from optmech.lp.designed import DesignedNoise, DesignInfo, make_designed
from optmech.lp.noise_repair import envelope_repair, mixture_repair
from optmech.lp.solve import solve
from optmech.lp.windows import WINDOW_METHODS, choose_window_method, window_size, window_system
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import ApproxDP, PureDP

__all__ = [
    "DEFAULT_MAX_MEMORY_GB",
    "PRIVACY_RTOL",
    "REPAIR_WARN_RTOL",
    "AdditiveGrid",
    "AdditiveLP",
    "build_additive_lp",
    "default_periods",
    "default_resolution",
    "design_noise",
    "estimate_additive_size",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Default memory cap of :func:`design_noise` / :func:`build_additive_lp`, in GB.
DEFAULT_MAX_MEMORY_GB = 4.0
#: A designed noise must be certified within this relative tolerance of the requested ε / δ.
PRIVACY_RTOL = 1e-9
#: A repair costing more than this fraction of the value is reported with a warning.
REPAIR_WARN_RTOL = 1e-6
#: Bytes per nonzero and per row/variable through cvxpy's canonicalisation and the solver.
#: Measured peak RSS growth (benchmarks/bench_additive.py, Clarabel, full ε-DP LP, m = 25…400):
#: about 730 bytes per nonzero all included; these constants give about 1.5x that.
_BYTES_PER_NONZERO = 600
_BYTES_PER_ROW = 900


# -- grid -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AdditiveGrid:
    """The cells (or integer points) of the design.

    Attributes
    ----------
    integer : bool
        Noise on ℤ (points) instead of a density (cells).
    sensitivity : float
        Δ.
    resolution : int
        Cells per Δ, ``m`` (``Δ`` for integer noise).
    periods : int
        Periods ``K`` of Δ on each side of 0.
    width : float
        ``h = Δ/m`` (1 for integer noise).
    index : numpy.ndarray
        Cell ``j`` is ``[jh, (j+1)h)`` (``j = −Km..Km−1``), or the integer ``j`` (``−KΔ..KΔ``).
    """

    integer: bool
    sensitivity: float
    resolution: int
    periods: int
    width: float
    index: IntArray

    @property
    def n(self) -> int:
        """Number of cells (points)."""
        return int(self.index.size)

    @property
    def start(self) -> float:
        """Left edge of the first cell (the first integer)."""
        return float(self.index[0]) * self.width

    @property
    def period(self) -> int:
        """Cells per Δ, the tail period."""
        return self.resolution

    def mirror(self) -> IntArray:
        """Position of each cell's mirror image (``−1−j`` for cells, ``−j`` for points)."""
        return (self.n - 1 - np.arange(self.n)).astype(np.int64)


def _make_grid(integer: bool, sensitivity: float, m: int, periods: int) -> AdditiveGrid:
    if integer:
        delta = int(sensitivity)
        index = np.arange(-periods * delta, periods * delta + 1, dtype=np.int64)
        return AdditiveGrid(True, float(delta), delta, periods, 1.0, index)
    index = np.arange(-periods * m, periods * m, dtype=np.int64)
    return AdditiveGrid(False, sensitivity, m, periods, sensitivity / m, index)


def default_resolution(privacy: PureDP | ApproxDP) -> int:
    """``m ≈ 20(1 + e^(ε/2))`` for ε-DP (about 20 cells on the staircase's top step, THEORY.md
    §5), capped at 400; 20 for (ε, δ)."""
    if isinstance(privacy, PureDP):
        steps = math.ceil(20.0 * (1.0 + math.exp(min(privacy.epsilon, 20.0) / 2.0)))
        return min(400, max(8, steps))
    return 20


def default_periods(privacy: PureDP | ApproxDP) -> int:
    """Periods each side: 3 for ε-DP (the tail closure carries the rest); for (ε, δ) one more
    than the truncated Laplace's support ``(1/ε) ln(1 + (e^ε − 1)/(2δ))`` (THEORY.md §3); for
    (0, δ) one more than the uniform block's ``1/(2δ)`` (seed 004)."""
    if isinstance(privacy, PureDP):
        return 3
    eps, delta = privacy.epsilon, privacy.delta
    if eps == 0.0:
        return math.ceil(1.0 / (2.0 * delta)) + 1
    reach = math.log1p(math.expm1(min(eps, 700.0)) / (2.0 * delta)) / eps
    return math.ceil(reach) + 1


# -- sizes ------------------------------------------------------------------------------------
def estimate_additive_size(
    privacy: PureDP | ApproxDP,
    *,
    grid_n: int,
    period: int,
    symmetric: bool,
    monotone: bool,
    window: str,
    atom: bool,
) -> dict[str, int | float]:
    """Variables, rows, nonzeros and estimated bytes of the LP, before anything is built."""
    n_z = (grid_n + 1) // 2 if symmetric else grid_n
    n_vars, rows, nnz = n_z + int(atom), 1, n_z + int(atom)  # normalisation row
    if isinstance(privacy, PureDP):
        seq = (grid_n // 2 + 2 * period) if symmetric else grid_n + 2 * period
        if monotone:
            rows += seq + 2 * max(seq - period, 0)
            nnz += 2 * seq + 4 * max(seq - period, 0)
        else:
            w_rows, w_aux, w_nnz = window_size(seq, period, window)
            rows += w_rows
            n_vars += w_aux
            nnz += w_nnz
    else:
        if monotone:
            rows += grid_n
            nnz += 2 * grid_n
        directions = 1 if symmetric else 2
        aux = directions * period * grid_n
        n_vars += aux
        rows += aux + directions * period
        nnz += 4 * aux + directions * period
    memory = nnz * _BYTES_PER_NONZERO + (rows + n_vars) * _BYTES_PER_ROW
    return {"variables": n_vars, "rows": rows, "nonzeros": nnz, "bytes": float(memory)}


# -- the LP -----------------------------------------------------------------------------------
@dataclass
class AdditiveLP:
    """A built additive-noise LP and what is needed to read a noise off its solution.

    Attributes
    ----------
    problem : cvxpy.Problem
        ``min c @ x  s.t.  a_ub @ x ≤ b_ub, a_eq @ x = 1, x ≥ 0``.
    variable : cvxpy.Variable
        ``x``: the grid values (half of them when symmetric), the atom, then auxiliaries.
    a_ub, b_ub, a_eq, c : scipy.sparse.csr_matrix / numpy.ndarray
        The same LP as matrices (``c`` scaled by ``1/scale``), e.g. for a direct solver call.
    scale : float
        Objective scale: the expected cost of a feasible reference density.
    grid : AdditiveGrid
        Cells / points.
    expand : scipy.sparse.csr_matrix
        Full grid values ``x_full = expand @ x[:num_values]``.
    num_values : int
        Number of grid-value variables.
    atom_index : int or None
        Position of the atom variable.
    tail_ratio : float
        ``b = e^−ε`` (ε-DP) or 0 (finite support).
    privacy, cost, symmetric, monotone, window
        The specification.
    build_time : float
        Seconds spent building matrices and the cvxpy problem.
    reduced : bool
        Whether the LP was solved on half the variables (``symmetric``, or a symmetric cost).
    """

    problem: cp.Problem
    variable: cp.Variable
    a_ub: sp.csr_matrix
    b_ub: FloatArray
    a_eq: sp.csr_matrix
    c: FloatArray
    scale: float
    grid: AdditiveGrid
    expand: sp.csr_matrix
    num_values: int
    atom_index: int | None
    tail_ratio: float
    privacy: PureDP | ApproxDP
    cost: Cost
    symmetric: bool
    monotone: bool
    window: str
    build_time: float
    reduced: bool = False

    def violation(self, x: npt.ArrayLike) -> float:
        """Largest constraint violation of a point (rows, normalisation, bounds), LP units."""
        xa = np.asarray(x, dtype=np.float64)
        parts = [0.0, float(np.max(-xa, initial=0.0)), abs(float((self.a_eq @ xa)[0]) - 1.0)]
        if self.a_ub.shape[0]:
            parts.append(float(np.max(self.a_ub @ xa - self.b_ub)))
        return max(parts)

    def noise_from(self, x: npt.ArrayLike) -> PiecewiseConstantNoise | LatticeNoise:
        """The noise of a solution: clipped at 0, tails attached, renormalised exactly."""
        xa = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
        full = np.asarray(self.expand @ xa[: self.num_values], dtype=np.float64)
        atom = float(xa[self.atom_index]) if self.atom_index is not None else 0.0
        return _noise(self.grid, full, atom, self.tail_ratio, self.privacy)


def _noise(
    grid: AdditiveGrid,
    full: FloatArray,
    atom: float,
    ratio: float,
    privacy: PureDP | ApproxDP,
) -> PiecewiseConstantNoise | LatticeNoise:
    m, p = grid.resolution, grid.period
    left = ratio * full[:p]
    right = ratio * full[-p:]
    total = (full.sum() + (left.sum() + right.sum()) / (1.0 - ratio)) / m + atom
    if not total > 0:
        raise PrivacyViolationError("the solver returned an all-zero point; no noise to read off")
    if grid.integer:
        scale = 1.0 / (m * total)
        return LatticeNoise(
            start=int(grid.index[0]),
            pmf=full * scale,
            period=p,
            left_tail=(left * scale, ratio),
            right_tail=(right * scale, ratio),
            sensitivity=int(grid.sensitivity),
            privacy=privacy,
        )
    scale = 1.0 / (grid.sensitivity * total)
    return PiecewiseConstantNoise(
        start=grid.start,
        width=grid.width,
        densities=full * scale,
        period=p,
        left_tail=(left * scale, ratio),
        right_tail=(right * scale, ratio),
        atom=atom / total,
        sensitivity=grid.sensitivity,
        privacy=privacy,
    )


def _expand(grid: AdditiveGrid, symmetric: bool) -> tuple[sp.csr_matrix, int]:
    """Map the value variables to the full grid (identity, or mirror halves)."""
    n = grid.n
    if not symmetric:
        return sp.identity(n, format="csr"), n
    half = (n + 1) // 2  # continuous: n even; integer: n odd, the centre is its own mirror
    pos = np.arange(n)
    col = np.where(pos >= n - half, pos - (n - half), grid.mirror() - (n - half))
    return sp.csr_matrix((np.ones(n), (pos, col)), shape=(n, half)), half


def _cell_costs(grid: AdditiveGrid, cost: Cost) -> FloatArray:
    """Cost weight of each cell per unit of x (mass x/m): ∫_cell c / Δ, or c(j)/m."""
    if grid.integer:
        w = np.asarray(cost(grid.index.astype(np.float64)), dtype=np.float64) / grid.resolution
    else:
        edges = grid.width * np.arange(grid.index[0], grid.index[-1] + 2, dtype=np.float64)
        w = np.asarray(cost.integral(edges[:-1], edges[1:]), dtype=np.float64) / grid.sensitivity
    return w


def _tail_costs(grid: AdditiveGrid, cost: Cost, ratio: float) -> tuple[FloatArray, FloatArray]:
    """Cost of the geometric tails per unit of x on the first / last period of the grid."""
    p, h, m = grid.period, grid.width, grid.resolution
    delta = grid.sensitivity
    if grid.integer:
        right_pts = grid.index[-1] + 1 + np.arange(p, dtype=np.float64)
        left_pts = grid.index[0] - p + np.arange(p, dtype=np.float64)
        right = np.asarray(cost.periodic_sum(right_pts, period=p, ratio=ratio)) / m
        left = np.asarray(cost.periodic_sum(left_pts, period=-p, ratio=ratio)) / m
    else:
        a_right = grid.start + grid.n * h + h * np.arange(p)
        a_left = grid.start - p * h + h * np.arange(p)
        right = (
            np.asarray(cost.periodic_integral(a_right, a_right + h, period=p * h, ratio=ratio))
            / delta
        )
        left = (
            np.asarray(cost.periodic_integral(a_left, a_left + h, period=-p * h, ratio=ratio))
            / delta
        )
    return ratio * left, ratio * right


def _reference_values(grid: AdditiveGrid, privacy: PureDP | ApproxDP) -> FloatArray:
    """A density feasible for ε-DP (grid Laplace) or the uniform one, for objective scaling."""
    if isinstance(privacy, PureDP):
        centre = grid.index + (0.0 if grid.integer else 0.5)
        return np.exp(-privacy.epsilon * np.abs(centre) / grid.resolution)
    return np.ones(grid.n)


def _monotone_rows(index: IntArray, integer: bool, right_only: bool) -> tuple[IntArray, IntArray]:
    """Pairs (a, b) of positions with g_a ≤ g_b: outward neighbours ≤ inward ones."""
    pos = np.arange(index.size)
    right = index[:-1] >= 0  # g[k+1] ≤ g[k] for cells k ≥ 0 (points k ≥ 0)
    pairs_a = [pos[1:][right]]
    pairs_b = [pos[:-1][right]]
    if not right_only:
        edge = 0 if integer else -1
        left = index[1:] <= edge  # g[k−1] ≤ g[k] for cells k ≤ −1 (points k ≤ 0)
        pairs_a.append(pos[:-1][left])
        pairs_b.append(pos[1:][left])
    return np.concatenate(pairs_a), np.concatenate(pairs_b)


def _pair_rows(a: IntArray, b: IntArray, factor: float, n: int) -> sp.csr_matrix:
    """Rows ``g_a − factor·g_b ≤ 0``."""
    k = a.size
    rows = np.concatenate([np.arange(k), np.arange(k)])
    return sp.csr_matrix(
        (np.concatenate([np.ones(k), np.full(k, -factor)]), (rows, np.concatenate([a, b]))),
        shape=(k, n),
    )


def _pure_rows(
    grid: AdditiveGrid,
    expand: sp.csr_matrix,
    epsilon: float,
    symmetric: bool,
    monotone: bool,
    window: str,
) -> tuple[sp.csr_matrix, sp.csr_matrix, int, str]:
    """ε-DP rows on the grid extended by one virtual period each side (module docstring)."""
    p, b, factor = grid.period, math.exp(-epsilon), math.exp(epsilon)
    e = expand.tocsr()
    extended = sp.vstack([b * e[:p], e, b * e[-p:]], format="csr")
    index = np.concatenate([grid.index[:p] - p, grid.index, grid.index[-p:] + p])
    if symmetric:  # pairs reaching left of −m mirror pairs on the right
        keep = index >= -p
        extended, index = extended[keep], index[keep]
    n_seq = index.size
    if monotone:
        ma, mb = _monotone_rows(index, grid.integer, right_only=symmetric)
        k = np.arange(n_seq - p)
        rows = sp.vstack(
            [
                _pair_rows(ma, mb, 1.0, n_seq),
                _pair_rows(k, k + p, factor, n_seq),
                _pair_rows(k + p, k, factor, n_seq),
            ],
            format="csr",
        )
        return rows @ extended, sp.csr_matrix((rows.shape[0], 0)), 0, "monotone"
    method = choose_window_method(n_seq, p) if window == "auto" else window
    system = window_system(n_seq, p, factor, method=method)
    return system.a_g @ extended, system.a_u, system.num_aux, method


def _hockey_rows(
    grid: AdditiveGrid,
    expand: sp.csr_matrix,
    epsilon: float,
    symmetric: bool,
) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix, int]:
    """Rows ``x_j − e^ε x_{j±s} − t_sj ≤ 0`` and the per-shift sums ``(1/m)Σ_j t_sj``.

    Returns (rows on values, rows on t, sum rows on t, number of t).
    """
    n, m, factor = grid.n, grid.resolution, math.exp(epsilon)
    directions = (1,) if symmetric else (1, -1)
    shifts = np.arange(1, grid.period + 1)
    d = np.repeat(np.array(directions), shifts.size * n)
    s = np.tile(np.repeat(shifts, n), len(directions))
    j = np.tile(np.arange(n), shifts.size * len(directions))
    partner = j + d * s
    inside = (partner >= 0) & (partner < n)
    k = j.size
    rows = np.arange(k)
    vals_rows = np.concatenate([rows, rows[inside]])
    vals_cols = np.concatenate([j, partner[inside]])
    vals = np.concatenate([np.ones(k), np.full(int(inside.sum()), -factor)])
    on_x = sp.csr_matrix((vals, (vals_rows, vals_cols)), shape=(k, n)) @ expand
    on_t = -sp.identity(k, format="csr")
    groups = np.repeat(np.arange(len(directions) * shifts.size), n)
    sums = sp.csr_matrix(
        (np.full(k, 1.0 / m), (groups, rows)), shape=(len(directions) * shifts.size, k)
    )
    return on_x.tocsr(), on_t, sums, k


def build_additive_lp(
    privacy: PureDP | ApproxDP,
    *,
    sensitivity: float,
    cost: Any,
    resolution: int | None = None,
    periods: int | None = None,
    integer: bool = False,
    symmetric: bool = False,
    monotone: bool = False,
    window: str = "auto",
    atom: bool | None = None,
    reduce_symmetric: bool = True,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
) -> AdditiveLP:
    """Build the additive-noise LP (module docstring); nothing is solved.

    Parameters
    ----------
    privacy : PureDP or ApproxDP
        The guarantee; ``ApproxDP(0, delta)`` is (0, δ).
    sensitivity : float
        Δ, in (0, inf); an integer ≥ 1 when ``integer``.
    cost : Cost, str or callable
        Any cost of the error (:func:`optmech.costs.as_cost`), asymmetric ones included.
    resolution : int, optional
        Cells per Δ, ``m ≥ 1`` (default :func:`default_resolution`). Integer noise has Δ points
        per Δ; give None or Δ.
    periods : int, optional
        Periods of Δ each side, ``K ≥ 1`` (default :func:`default_periods`).
    integer : bool
        Noise on ℤ for integer queries.
    symmetric, monotone : bool
        Restrict to symmetric noise / noise non-increasing in ``|x|``.
    window : {"auto", "pairs", "sparse-table", "blocks"}
        Form of the ε-DP window rows (:mod:`optmech.lp.windows`).
    atom : bool, optional
        Allow an atom at the origin (default: for (ε, δ) densities; never for ε-DP or on ℤ).
    reduce_symmetric : bool
        For a symmetric cost, solve on half the variables even when ``symmetric=False``: the
        grid, the constraints and the objective are then invariant under ``x ↦ −x``, so the
        average of an optimum and its mirror image is feasible and optimal — the unrestricted
        optimum is attained by symmetric noise and nothing is lost (a test checks it). Pass
        False to solve the full LP anyway.
    max_memory_gb : float
        Refuse (:class:`~optmech.exceptions.ProblemTooLargeError`) above this estimate.

    Raises
    ------
    ValueError, TypeError
        Bad arguments, or a combination that cannot be feasible (a (0, δ) support too short).
    ProblemTooLargeError
        The estimated memory exceeds ``max_memory_gb``.
    """
    start = time.perf_counter()
    privacy = check_privacy(privacy)
    integer = check_flag("integer", integer)
    symmetric = check_flag("symmetric", symmetric)
    monotone = check_flag("monotone", monotone)
    if integer:
        delta_cells = check_int(
            "sensitivity", sensitivity, low=1, hint="integer noise needs an integer sensitivity"
        )
        sens = float(delta_cells)
        if resolution is not None and check_int("resolution", resolution, low=1) != delta_cells:
            raise ValueError(
                f"`resolution` must be None or equal to `sensitivity` ({delta_cells}) for integer "
                f"noise (one point per integer); got {resolution!r}."
            )
        m = delta_cells
    else:
        sens = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        m = (
            default_resolution(privacy)
            if resolution is None
            else check_int("resolution", resolution, low=1)
        )
    k_periods = (
        default_periods(privacy) if periods is None else check_int("periods", periods, low=1)
    )
    if window != "auto" and window not in WINDOW_METHODS:
        raise ValueError(f"`window` must be 'auto' or one of {WINDOW_METHODS}; got {window!r}.")
    mem_cap = check_real("max_memory_gb", max_memory_gb, low=0.0, low_open=True)
    pure = isinstance(privacy, PureDP)
    if atom is None:
        use_atom = not pure and not integer
    else:
        use_atom = check_flag("atom", atom)
        if use_atom and (pure or integer):
            raise ValueError(
                "`atom=True` needs (ε, δ) privacy and a density: an atom is never ε-DP, and "
                "integer noise has its mass at 0 in the pmf already."
            )
    if not pure and privacy.epsilon == 0.0:
        points = 2 * k_periods + (1 if integer else 0)
        if 1.0 / points > privacy.delta:
            need = math.ceil((1.0 / privacy.delta - (1 if integer else 0)) / 2.0)
            raise ValueError(
                f"`periods` must be at least {need} for (0, {privacy.delta:g})-DP: shifting a "
                f"support of {points} sensitivities by its length {points} times gives disjoint "
                f"copies, so δ ≥ 1/{points} = {1.0 / points:.3g}; got periods={k_periods}."
            )
    cost_obj = as_cost(cost)
    half = symmetric or (check_flag("reduce_symmetric", reduce_symmetric) and cost_obj.symmetric)
    grid_n = 2 * k_periods * m + (1 if integer else 0)
    method = window
    if pure and not monotone and window == "auto":
        seq = (grid_n // 2 + 2 * m) if half else grid_n + 2 * m
        method = choose_window_method(seq, m)
    size = estimate_additive_size(
        privacy,
        grid_n=grid_n,
        period=m,
        symmetric=half,
        monotone=monotone,
        window=method if method != "auto" else "blocks",
        atom=use_atom,
    )
    if size["bytes"] > mem_cap * 1e9:
        raise ProblemTooLargeError(
            f"the LP would need about {size['bytes'] / 1e9:.3g} GB ({size['variables']:,} "
            f"variables, {size['rows']:,} rows, {size['nonzeros']:,} nonzeros; resolution={m}, "
            f"periods={k_periods}), above max_memory_gb={mem_cap:g}. Lower the resolution or "
            "the periods, use symmetric=True / monotone=True, or raise max_memory_gb."
        )

    grid = _make_grid(integer, sens, m, k_periods)
    expand, n_values = _expand(grid, half)
    ratio = math.exp(-privacy.epsilon) if pure else 0.0

    # Objective and normalisation per full-grid value, then mapped to the variables.
    weights = _cell_costs(grid, cost_obj)
    mass = np.full(grid.n, 1.0 / m)
    if pure:
        tail_left, tail_right = _tail_costs(grid, cost_obj, ratio)
        weights[:m] += tail_left
        weights[-m:] += tail_right
        mass[:m] += ratio / (1.0 - ratio) / m
        mass[-m:] += ratio / (1.0 - ratio) / m
    if not np.all(np.isfinite(weights)):
        raise ValueError(
            f"`cost` {cost_obj!r} gives a non-finite cost (NaN or inf) on the grid or its tails; "
            "costs must be finite and the tail series must converge."
        )
    ref = _reference_values(grid, privacy)
    ref_cost = float(weights @ ref) / float(mass @ ref)
    scale = ref_cost if ref_cost > 0 and math.isfinite(ref_cost) else 1.0
    c_values = np.asarray(expand.T @ weights, dtype=np.float64) / scale
    a_values = np.asarray(expand.T @ mass, dtype=np.float64)

    # Rows: blocks of (rows on values, atom column or None, rows on the auxiliaries — all of
    # them or none —, rhs). Auxiliaries: window minima (ε-DP) or hockey-stick terms t_sj (δ).
    blocks: list[tuple[sp.csr_matrix, FloatArray | None, sp.csr_matrix, FloatArray]] = []
    atom_col = n_values if use_atom else None
    used = "none"
    if pure:
        rows_v, rows_u, n_aux, used = _pure_rows(
            grid, expand, privacy.epsilon, half, monotone, method
        )
        blocks.append((rows_v, None, rows_u, np.zeros(rows_v.shape[0])))
    else:
        if monotone:
            ma, mb = _monotone_rows(grid.index, integer, right_only=half)
            rows_v = (_pair_rows(ma, mb, 1.0, grid.n) @ expand).tocsr()
            blocks.append(
                (rows_v, None, sp.csr_matrix((rows_v.shape[0], 0)), np.zeros(rows_v.shape[0]))
            )
        on_x, on_t, sums, n_aux = _hockey_rows(grid, expand, privacy.epsilon, half)
        blocks.append((on_x, None, on_t, np.zeros(on_x.shape[0])))
        # The atom leaves the origin under every shift: + α in each hockey-stick sum row.
        blocks.append(
            (
                sp.csr_matrix((sums.shape[0], n_values)),
                np.ones(sums.shape[0]),
                sums,
                np.full(sums.shape[0], privacy.delta),
            )
        )
    n_total = n_values + int(use_atom) + n_aux
    parts = []
    for values_part, atom_part, aux_part, _ in blocks:
        r = values_part.shape[0]
        if atom_part is None or not use_atom:
            atom_block = sp.csr_matrix((r, int(use_atom)))
        else:
            atom_block = sp.csr_matrix(atom_part.reshape(-1, 1))
        if aux_part.shape[1] != n_aux:
            aux_part = sp.csr_matrix((r, n_aux))
        parts.append(sp.hstack([values_part, atom_block, aux_part], format="csr"))
    a_ub = sp.vstack(parts, format="csr")
    b_ub = np.concatenate([block[3] for block in blocks])
    c = np.zeros(n_total)
    c[:n_values] = c_values
    a_eq_row = np.zeros(n_total)
    a_eq_row[:n_values] = a_values
    if use_atom:
        c[atom_col] = float(cost_obj(0.0)) / scale
        a_eq_row[atom_col] = 1.0
    a_eq = sp.csr_matrix(a_eq_row.reshape(1, -1))

    x = cp.Variable(n_total, nonneg=True)
    constraints = [a_eq @ x == np.ones(1)]
    if a_ub.shape[0]:
        constraints.insert(0, a_ub @ x <= b_ub)
    problem = cp.Problem(cp.Minimize(c @ x), constraints)
    return AdditiveLP(
        problem=problem,
        variable=x,
        a_ub=a_ub,
        b_ub=b_ub,
        a_eq=a_eq,
        c=c,
        scale=scale,
        grid=grid,
        expand=expand,
        num_values=n_values,
        atom_index=atom_col,
        tail_ratio=ratio,
        privacy=privacy,
        cost=cost_obj,
        symmetric=symmetric,
        monotone=monotone,
        window=used,
        build_time=time.perf_counter() - start,
        reduced=half,
    )


# -- the designer -----------------------------------------------------------------------------
def _certified(noise: Any, privacy: PureDP | ApproxDP) -> tuple[float, float | None, bool]:
    """(pure ε, δ at the requested ε or None when not needed, whether ``privacy`` holds)."""
    desc = noise.grid_description()
    kwargs = {k: desc[k] for k in ("masses", "reach", "left_tail", "right_tail", "atom")}
    eps = float(noise_epsilon(**kwargs))
    if isinstance(privacy, PureDP):
        ok = eps <= privacy.epsilon * (1.0 + PRIVACY_RTOL)
        # δ at ε is then ~roundoff and cheap (noise_delta's pure-ε bound); skip it otherwise.
        delta = float(noise_delta(**kwargs, epsilon=privacy.epsilon)) if ok else None
        return eps, delta, bool(ok)
    delta = float(noise_delta(**kwargs, epsilon=privacy.epsilon))
    return eps, delta, bool(delta <= privacy.delta * (1.0 + PRIVACY_RTOL))


def design_noise(
    privacy: PureDP | ApproxDP,
    *,
    sensitivity: float,
    cost: Any,
    resolution: int | None = None,
    periods: int | None = None,
    integer: bool = False,
    symmetric: bool = False,
    monotone: bool = False,
    solver: str | None = None,
    window: str = "auto",
    atom: bool | None = None,
    reduce_symmetric: bool = True,
    repair: bool = True,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    solver_options: dict[str, Any] | None = None,
    verbose: bool = False,
) -> DesignedNoise:
    """Design optimal additive noise for ``privacy`` and ``cost`` by LP, certified.

    Parameters
    ----------
    privacy, sensitivity, cost, resolution, periods, integer, symmetric, monotone, window, atom,
    reduce_symmetric, max_memory_gb
        As in :func:`build_additive_lp`.
    solver : str, optional
        cvxpy solver name; default by problem size (:data:`optmech.lp.solve.SOLVER_POLICY`).
    repair : bool
        When the solver's point is not private to within :data:`PRIVACY_RTOL` (tolerances of
        1e-9…1e-7 leave tiny cells slightly off, THEORY.md §5): repair it (ε-DP: raise cells to
        the ratio bound; (ε, δ): mix with a reference density) and record the cost of doing so
        in ``info`` (with an :class:`~optmech.exceptions.InaccurateSolutionWarning` when it
        exceeds :data:`REPAIR_WARN_RTOL` of the value); with ``repair=False`` raise
        :class:`PrivacyViolationError` instead.
    solver_options : dict, optional
        Options passed to the solver (override optmech's defaults).
    verbose : bool
        Show the solver log.

    Returns
    -------
    DesignedNoise
        A :class:`~optmech.mechanisms.piecewise.PiecewiseConstantNoise` (or
        :class:`~optmech.mechanisms.piecewise.LatticeNoise`) certified for ``privacy``, with
        ``value`` (its exact expected cost), ``certified_epsilon``, ``certified_delta``,
        ``status``, ``solver``, ``solve_time`` and the full provenance in ``info``.

    Raises
    ------
    SolverError
        The solver failed or returned a status other than optimal.
    PrivacyViolationError
        The solver's point is not private and ``repair=False`` (or the repair failed).
    """
    lp = build_additive_lp(
        privacy,
        sensitivity=sensitivity,
        cost=cost,
        resolution=resolution,
        periods=periods,
        integer=integer,
        symmetric=symmetric,
        monotone=monotone,
        window=window,
        atom=atom,
        reduce_symmetric=reduce_symmetric,
        max_memory_gb=max_memory_gb,
    )
    repair = check_flag("repair", repair)
    try:
        result = solve(
            lp.problem, solver=solver, options=solver_options, verbose=verbose, kind="additive"
        )
    except SolverError as exc:
        if exc.status != "infeasible" or isinstance(privacy, PureDP):
            raise
        need = default_periods(privacy)
        raise SolverError(
            exc.solver,
            exc.status,
            f"no noise on [-{lp.grid.periods}Δ, {lp.grid.periods}Δ] is {privacy}: the support "
            f"is too short for this δ (the truncated Laplace needs about {need} periods); "
            "raise `periods`",
        ) from exc
    return finish_design(lp, result, repair=repair)


def finish_design(lp: AdditiveLP, result: Any, *, repair: bool = True) -> DesignedNoise:
    """Read, certify, repair if needed, and wrap the solution of a solved :class:`AdditiveLP`."""
    point = np.asarray(lp.variable.value, dtype=np.float64)
    violation = lp.violation(point)
    raw = lp.noise_from(point)
    raw_value = raw.expected_cost(lp.cost)
    raw_eps, raw_delta, ok = _certified(raw, lp.privacy)
    noise, how, detail = raw, "none", ""
    if not ok:
        if not repair:
            what = (
                f"ε = {raw_eps:.12g}"
                if isinstance(lp.privacy, PureDP)
                else f"δ = {raw_delta:.6g} at ε = {lp.privacy.epsilon:g}"
            )
            raise PrivacyViolationError(
                f"the solver's point is not {lp.privacy}: certified {what} (tolerance "
                f"{PRIVACY_RTOL:g} relative); pass repair=True, tighten the solver tolerances or "
                "try another solver."
            )
        if isinstance(lp.privacy, PureDP):
            noise = envelope_repair(raw, lp.privacy.epsilon)
            how = "envelope"
        else:
            noise, lam = mixture_repair(raw, lp.privacy.epsilon, lp.privacy.delta)
            how, detail = "mixture", f"lambda={lam:.3g}"
    cert_eps, cert_delta, ok = _certified(noise, lp.privacy)
    if not ok or cert_delta is None:
        raise PrivacyViolationError(
            f"the designed noise is not {lp.privacy} even after repair ({how}): certified "
            f"ε = {cert_eps:.12g}, δ = {cert_delta}."
        )
    value = noise.expected_cost(lp.cost) if how != "none" else raw_value
    if how != "none" and value - raw_value > REPAIR_WARN_RTOL * abs(raw_value):
        was = f"ε = {raw_eps:.6g}" if isinstance(lp.privacy, PureDP) else f"δ = {raw_delta:.6g}"
        warnings.warn(
            f"the solver's point was not {lp.privacy} (certified {was}); repaired by {how} at "
            f"a cost of {value - raw_value:.3g} ({(value - raw_value) / abs(raw_value):.2%} of "
            "the value). Try another solver or tighter tolerances for a better optimum.",
            InaccurateSolutionWarning,
            stacklevel=2,
        )
    info = DesignInfo(
        privacy=lp.privacy,
        cost=lp.cost,
        sensitivity=lp.grid.sensitivity,
        resolution=lp.grid.resolution,
        periods=lp.grid.periods,
        integer=lp.grid.integer,
        symmetric=lp.symmetric,
        monotone=lp.monotone,
        window=lp.window,
        reduced=lp.reduced,
        solver=result.solver,
        status=result.status,
        solve_time=result.solve_time,
        compile_time=result.compile_time,
        total_time=result.total_time,
        build_time=lp.build_time,
        iterations=result.iterations,
        num_variables=result.num_variables,
        num_constraints=result.num_constraints,
        lp_objective=result.objective * lp.scale,
        raw_value=raw_value,
        value=value,
        max_violation=violation,
        raw_certified_epsilon=raw_eps,
        raw_certified_delta=raw_delta,
        certified_epsilon=cert_eps,
        certified_delta=float(cert_delta),
        repair=how,
        repair_cost=value - raw_value,
        repair_detail=detail,
    )
    return make_designed(noise, info)
