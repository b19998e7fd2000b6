"""Build the additive-noise LP of an `AdditiveSpec`.

``min c·z  s.t.  A z ≤ b (named row blocks),  Σ_j a_j z_j = 1,  z ≥ 0`` where ``z`` holds the
grid values ``x_j = Δ·f_j`` (densities, not masses: with masses near ``1/(2m)`` an absolute
solver tolerance of 1e-7 lets the solver cut the tail), the atom, then the auxiliaries. ``a_j``
is the mass of a unit of ``z_j`` (the cell's relative width, plus the geometric tail it carries
for the outermost periods, doubled for a mirrored pair); ``c_j`` is its exact cost — the
cell-*averaged* cost (Geng & Viswanath 2016, §IV; `optmech.costs.Cost.integral`) and the tail's
closed-form series. The LP value is therefore the exact expected cost of the noise read off a
feasible point: an upper bound for the continuous problem.

**What the solver sees.** The objective is divided by the cost of a feasible reference density
so that it is O(1). On a graded grid (large ε) the densities of an optimum span ``e^ε`` within
one period, far beyond what absolute solver tolerances resolve, so each variable is also divided
by its value in the reference — the best *staircase on the grid itself* (Geng & Viswanath 2016,
Thm. 3: the optimum for the costs the theorem covers), found exactly by cumulative sums over the
step's position — and each row by the geometric mean of its extreme coefficients. At the optimum
the solver's variables are then O(1) and a binding privacy row reads ``y_a − y_b ≤ 0``. These
scalings are the solver's business only: the matrices, the point (`AdditiveLP.point`) and the
multipliers (`AdditiveLP.duals`) are mapped back to the LP's own units.

`build_additive_lp` builds the matrices once; `AdditiveLP.for_strategy` wraps them in a cvxpy
problem for one attempt of `optmech.lp.solve.solve_robust`, keeping each row block's constraint
under its name for reading the multipliers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech.exceptions import PrivacyViolationError
from optmech.lp.additive.divergences import RenyiCones
from optmech.lp.additive.grid import AdditiveGrid, GridKind, graded_widths, make_grid
from optmech.lp.additive.rows import AuxMap, RowRecord, approx_rows, pure_rows
from optmech.lp.additive.spec import AdditiveSpec, SpecViews
from optmech.lp.engine.readout import LPReadout
from optmech.lp.solve import Strategy
from optmech.mechanisms.graded import GradedNoise
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import ApproxDP, PureDP

__all__ = ["AdditiveLP", "GridNoise", "LPReadout", "build_additive_lp"]

#: The noise families an additive design is read into.
GridNoise = PiecewiseConstantNoise | LatticeNoise | GradedNoise
#: Smallest mass of a cell in the solver's units on a graded grid (``AdditiveLP.solver_scale``).
MASS_FLOOR = 1e-3
#: ... but no column is lifted by more than this factor above the reference staircase.
MAX_LIFT = 1e10


@dataclass(frozen=True)
class AdditiveLP(SpecViews, LPReadout):
    """A built additive-noise LP and what is needed to read a noise off its solution.

    Variables ``z``: ``num_values`` grid values (``expand @ z[:num_values]`` is the full grid),
    the atom at ``atom_index`` (or None), ``num_aux`` auxiliaries. ``weights`` and ``mass`` are
    the exact cost and mass of a unit of each variable (tails included; 0 for auxiliaries);
    ``scale`` is the cost of a feasible reference density (the objective is ``weights / scale``)
    and ``profile`` the reference staircase's normalised value variables on a graded grid (else
    None). ``rows`` holds the inequality rows by name in the LP's own units, ``aux`` the
    auxiliaries' canonical values, ``window`` the form of the ε-DP rows (``"none"`` for (ε, δ)),
    ``cones`` the Rényi / Kullback–Leibler cones of zCDP and Rényi DP designs, ``declared`` the
    caller's constraints among the rows and ``custom`` the callables' cvxpy constraints added to
    each attempt (`optmech.lp.additive.constraint_rows`). The solver's side — ``problem``,
    ``variable`` (``z / col_scale``), ``constraints`` by name, ``row_scale``,
    ``objective_factor``, ``strategy`` — is the engine's `LPReadout`.
    """

    spec: AdditiveSpec
    grid: AdditiveGrid
    expand: sp.csr_matrix
    num_values: int
    num_aux: int
    atom_index: int | None
    weights: FloatArray
    mass: FloatArray
    scale: float
    rows: RowRecord
    aux: AuxMap
    profile: FloatArray | None
    window: str
    build_time: float
    cones: RenyiCones | None = None
    declared: tuple[Any, ...] = ()
    custom: Any = None

    # -- views ----------------------------------------------------------------------------
    @property
    def tail_ratio(self) -> float:
        """Ratio per period of the ε-DP tails (`AdditiveSpec.tail_ratio`), or 0."""
        return self.spec.tail_ratio

    @property
    def c(self) -> FloatArray:
        """The objective in the LP's units, divided by `scale`."""
        return self.weights / self.scale

    @property
    def a_ub(self) -> sp.csr_matrix:
        """All inequality rows stacked (for a direct solver call)."""
        return self.rows.stacked(self.num_variables)[0]

    @property
    def b_ub(self) -> FloatArray:
        """Their right-hand sides."""
        return self.rows.stacked(self.num_variables)[1]

    @property
    def a_eq(self) -> sp.csr_matrix:
        """The normalisation row ``Σ a_j z_j = 1``."""
        return sp.csr_matrix(self.mass.reshape(1, -1))

    # -- attempts -----------------------------------------------------------------------------
    def for_strategy(self, strategy: Strategy | None) -> AdditiveLP:
        """The same LP as a fresh cvxpy problem for one solver attempt (None: as built).

        Rescaled: rows balanced (`balance`) and the objective
        divided so that its largest entry is 1; on a graded grid the columns are then scaled by
        the reference staircase alone (`solver_scale`).
        """
        rescaled = strategy is not None and strategy.rescaled
        col_scale = self.solver_scale(rescaled)
        return self.attempt(strategy, col_scale, balanced=self.profile is not None or rescaled)

    def aux_upper(self, value: float) -> FloatArray:
        """Upper bounds of the auxiliaries at an optimum: their canonical values (block minima,
        hockey-stick terms) at `value_upper` — monotone, so valid (`AuxMap`)."""
        upper = self.value_upper(value)
        return self.aux.canonical(upper[: self.num_values]) * (1.0 + 8.0 * _U)

    def solver_scale(self, rescaled: bool) -> FloatArray:
        """The solver's column scale (module docstring).

        Uniform grids: 1. Graded grids: each value variable by the reference staircase's value,
        raised so that no cell's mass falls below `MASS_FLOOR` (a cell's dual feasibility
        is seen by the solver relative to that mass), and each auxiliary by its upper bound at
        an optimum; rescaled: the reference staircase alone (and its block minima).
        """
        scale = np.ones(self.num_variables)
        if self.profile is None:
            return scale
        nv, k = self.num_values, self.num_variables - self.num_aux
        if rescaled:
            scale[:nv] = self.profile
            scale[k:] = self.aux.canonical(self.profile)
        else:
            floor = np.minimum(MASS_FLOOR / self.mass[:nv], self.profile * MAX_LIFT)
            scale[:nv] = np.maximum(self.profile, floor)
            scale[k:] = self.aux_upper(self.scale)
        return np.maximum(scale, 1e-300)

    def complete(self, values: FloatArray) -> FloatArray:
        """A full point: value (and atom) variables followed by their canonical auxiliaries."""
        v = np.asarray(values, dtype=np.float64)
        return np.concatenate([v, self.aux.canonical(v[: self.num_values])])

    def full_values(self, z: npt.ArrayLike) -> tuple[FloatArray, float]:
        """Grid values (clipped at 0) and the atom of a point."""
        za = np.maximum(np.asarray(z, dtype=np.float64), 0.0)
        full = np.asarray(self.expand @ za[: self.num_values], dtype=np.float64)
        atom = float(za[self.atom_index]) if self.atom_index is not None else 0.0
        return full, atom

    def variables_of(self, full: FloatArray, atom: float) -> FloatArray:
        """The value and atom variables of a full grid (the inverse of `full_values`)."""
        values = full[self.grid.n - self.num_values :] if self.reduced else full
        out = np.concatenate([values, [atom] if self.atom_index is not None else []])
        return np.asarray(out, dtype=np.float64)

    def values_of(self, kwargs: Mapping[str, Any]) -> FloatArray:
        """The full grid values (``Δ·f``, or ``Δ·pmf`` on ℤ) of a noise's keywords."""
        if "pmf" in kwargs:
            return np.asarray(kwargs["pmf"], dtype=np.float64) * self.grid.period
        return np.asarray(kwargs["densities"], dtype=np.float64) * self.grid.sensitivity

    def noise_parts(self, full: FloatArray, atom: float) -> tuple[type, dict[str, Any]]:
        """The family and constructor keywords of the noise with grid values ``full``.

        Tails continue the outermost periods times `tail_ratio`; everything is divided
        by the total mass so the noise is normalised (ratios, hence privacy, are unchanged).
        """
        grid, ratio, p = self.grid, self.tail_ratio, self.grid.period
        z = self.variables_of(full, atom)
        total = float(self.mass[: z.size] @ z)
        if not total > 0:
            raise PrivacyViolationError(
                "the solver returned an all-zero point; no noise to read off"
            )
        left, right = ratio * full[:p], ratio * full[-p:]
        if grid.integer:
            s = 1.0 / (grid.period * total)
            return LatticeNoise, {
                "start": int(grid.index[0]),
                "pmf": full * s,
                "period": p,
                "left_tail": (left * s, ratio),
                "right_tail": (right * s, ratio),
                "sensitivity": int(grid.sensitivity),
                "privacy": self.privacy,
            }
        s = 1.0 / (grid.sensitivity * total)
        common = {
            "densities": full * s,
            "left_tail": (left * s, ratio),
            "right_tail": (right * s, ratio),
            "sensitivity": grid.sensitivity,
            "privacy": self.privacy,
        }
        if grid.kind == GridKind.GRADED:
            return GradedNoise, {**common, "widths": grid.widths, "first_period": -grid.periods}
        return PiecewiseConstantNoise, {
            **common,
            "start": grid.start,
            "width": grid.width,
            "period": p,
            "atom": atom / total,
        }


def _staircase_profile(
    grid: AdditiveGrid, spec: AdditiveSpec, weights: FloatArray, mass: FloatArray
) -> tuple[FloatArray, float] | None:
    """The best staircase on the grid (full-grid values and cost), or None off its scope.

    A symmetric staircase with its step at a cell edge ``t_g ≤ 1/2`` of each period
    (Geng & Viswanath 2016, Thm. 3) is a feasible point of the ε-DP LP: top cells ``c^k``, the
    rest ``c^(k+1)`` in period ``k`` from 0, with ``c = b·e^s`` a hair above the tail ratio
    ``b`` (``s = 2^-36·max(1, ε)``) so that every row holds with room to spare. Its cost and mass
    are linear in which cells are on top, so every ``g`` is evaluated at once by cumulative sums.
    """
    privacy = spec.privacy
    if not isinstance(privacy, PureDP) or grid.integer:
        return None
    m, kk = grid.period, grid.periods
    b = spec.tail_ratio * math.exp(2.0**-36 * max(1.0, privacy.epsilon))
    j = np.arange(grid.n)
    period, cell = np.divmod(j, m)
    right = period >= kk  # periods kk.. are 0, 1, ... from the origin
    dist = np.where(right, period - kk, kk - 1 - period)
    rank = np.where(right, cell, m - 1 - cell)  # cell index counted from the origin's side
    base = b ** dist.astype(np.float64)
    steps = int(np.searchsorted(np.cumsum(grid.widths), 0.5 + 1e-12))  # edges t_g ≤ 1/2
    cost_by_rank = np.bincount(rank, weights=weights * base, minlength=m)
    mass_by_rank = np.bincount(rank, weights=mass * base, minlength=m)
    top_cost = np.concatenate([[0.0], np.cumsum(cost_by_rank)])[: steps + 1]
    top_mass = np.concatenate([[0.0], np.cumsum(mass_by_rank)])[: steps + 1]
    total_cost, total_mass = float(cost_by_rank.sum()), float(mass_by_rank.sum())
    costs = (b * total_cost + (1.0 - b) * top_cost) / (b * total_mass + (1.0 - b) * top_mass)
    g = int(np.argmin(costs[1:])) + 1
    return base * np.where(rank < g, 1.0, b), float(costs[g])


def _reference(
    grid: AdditiveGrid, spec: AdditiveSpec, weights: FloatArray, mass: FloatArray
) -> tuple[float, FloatArray | None]:
    """(objective scale, column profile or None).

    The scale is the cost of the cheapest of: the grid Laplace density (ε-DP, scale ``Δ/ε``),
    the best grid staircase (ε-DP on a graded grid), the uniform density ((ε, δ)). The profile,
    used to scale the solver's columns on a graded grid, is that staircase.
    """
    privacy = spec.privacy
    if not isinstance(privacy, PureDP):
        ref = np.ones(grid.n)
        return _positive(float(weights @ ref) / float(mass @ ref)), None
    laplace = np.exp(-privacy.epsilon * np.abs(grid.centres()) / grid.sensitivity)
    scale = float(weights @ laplace) / float(mass @ laplace)
    if grid.kind != GridKind.GRADED:
        return _positive(scale), None
    profile = _staircase_profile(grid, spec, weights, mass)
    assert profile is not None
    return _positive(min(scale, profile[1])), profile[0]


def _positive(value: float) -> float:
    return value if value > 0 and math.isfinite(value) else 1.0


def _cells(grid: AdditiveGrid, spec: AdditiveSpec) -> tuple[FloatArray, FloatArray]:
    """Cost and mass of a unit of each full-grid value, the geometric tails included."""
    ratio, p = spec.tail_ratio, grid.period
    cell_w, cell_m = grid.costs_with_tails(spec.cost, ratio), grid.mass_per_unit()
    if ratio > 0:
        cell_m[:p] += ratio / (1.0 - ratio) * cell_m[:p]
        cell_m[-p:] += ratio / (1.0 - ratio) * cell_m[-p:]
    if not np.all(np.isfinite(cell_w)):
        raise ValueError(
            f"`cost` {spec.cost!r} gives a non-finite cost (NaN or inf) on the grid or its tails; "
            "costs must be finite and the tail series must converge."
        )
    return cell_w, cell_m


def _rows(
    grid: AdditiveGrid, expand: sp.csr_matrix, spec: AdditiveSpec, cuts: Any
) -> tuple[RowRecord, AuxMap, str, RenyiCones | None]:
    """The row blocks, the auxiliaries, the window form (``"none"`` for (ε, δ)) and the cones
    (guarantees beyond (ε, δ): the round's `Cuts.constraints`)."""
    if spec.beyond:
        if cuts is None:
            raise TypeError(
                f"building the LP of {spec.privacy} needs `cuts` (a round of "
                "optmech.lp.additive.beyond_cuts.Cuts: its orders or ε and margin); "
                "optmech.design_noise runs the rounds."
            )
        return cuts.constraints(grid, expand, spec)
    common = {"reduced": spec.reduced, "monotone": spec.monotone, "atom": bool(spec.atom)}
    privacy = spec.privacy
    if isinstance(privacy, PureDP):
        rows, aux, window = pure_rows(
            grid, expand, privacy.epsilon, tail_ratio=spec.tail_ratio, window=spec.window, **common
        )
        return rows, aux, window, None
    assert isinstance(privacy, ApproxDP)  # neither ε-DP nor beyond (ε, δ)
    rows, aux = approx_rows(grid, expand, privacy.epsilon, privacy.delta, **common)
    return rows, aux, "none", None


def _cells_per_period(spec: AdditiveSpec, epsilon: float) -> int:
    """Cells (points) per Δ of the grid `make_grid` will build: Δ on ℤ, ``resolution`` on a
    uniform grid, the ladder's cells on a graded one (one period's widths, cheap)."""
    if spec.grid == GridKind.INTEGER:
        return int(spec.sensitivity)
    if spec.grid == GridKind.GRADED:
        return int(graded_widths(epsilon, coarse=int(spec.resolution or 0)).size)
    return int(spec.resolution or 0)


def build_additive_lp(
    spec: AdditiveSpec, *, strategy: Strategy | None = None, cuts: Any = None
) -> AdditiveLP:
    """Build the additive-noise LP of ``spec`` (module docstring); nothing is solved. ``strategy``:
    the problem for one solver attempt (`AdditiveLP.for_strategy`; default as built); ``cuts``:
    beyond (ε, δ), the round's orders or ε and targets (`optmech.lp.additive.beyond_cuts.Cuts`).

    Raises
    ------
    ProblemTooLargeError
        The estimated memory exceeds ``spec.max_memory_gb``.
    ValueError
        The cost is not finite on the grid or its tails.
    """
    start = time.perf_counter()
    assert spec.resolution is not None and spec.periods is not None
    epsilon = spec.privacy.epsilon if isinstance(spec.privacy, PureDP) else 0.0
    spec.check_size(_cells_per_period(spec, epsilon))  # before anything of the grid's size
    grid = make_grid(
        spec.grid, spec.sensitivity, spec.periods, cells=spec.resolution, epsilon=epsilon
    )
    expand, n_values = grid.expand(spec.reduced)
    cell_w, cell_m = _cells(grid, spec)
    rows, aux, window, cones = _rows(grid, expand, spec, cuts)
    atom = bool(spec.atom)
    value_mass = np.asarray(expand.T @ cell_m, dtype=np.float64)
    n_aux = aux.canonical(np.zeros(n_values)).size
    n_total = n_values + int(atom) + n_aux
    weights, mass = np.zeros(n_total), np.zeros(n_total)
    weights[:n_values] = expand.T @ cell_w
    mass[:n_values] = value_mass
    if atom:
        weights[n_values], mass[n_values] = float(spec.cost(0.0)), 1.0
    scale, profile = _reference(grid, spec, cell_w, cell_m)
    values = None
    if profile is not None:  # the reference, normalised: the solver's variables are O(1)
        values = np.asarray(profile[grid.n - n_values :] if spec.reduced else profile)
        values = values / float(value_mass @ values)
    lp = AdditiveLP(
        spec=spec,
        grid=grid,
        expand=expand,
        num_values=n_values,
        num_aux=n_aux,
        atom_index=n_values if atom else None,
        weights=weights,
        mass=mass,
        scale=scale,
        rows=rows,
        aux=aux,
        profile=values,
        window=window,
        build_time=time.perf_counter() - start,
        cones=cones,
    )
    return lp.for_strategy(strategy)
