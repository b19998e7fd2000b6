"""What to design: `AdditiveSpec`, validated once, and the size it will take.

A spec holds every modelling choice of an additive-noise design — the guarantee, Δ, the cost,
the grid (kind, cells per Δ, periods), the class restrictions, the form of the window rows, the
atom, the mirror reduction and the memory cap — checked in ``__post_init__`` with messages that
name the parameter, its range and the value (the `dp_accounting` style). Defaults that depend on
the rest (cells per Δ, periods, grid kind, atom) are resolved there too, so the spec records
what was built. `optmech.design_noise` takes the same keywords and passes them here.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import optmech.privacy as guarantees
from optmech._validation import check_flag, check_int, check_real, describe
from optmech.costs import Cost, as_cost
from optmech.exceptions import ProblemTooLargeError
from optmech.lp.additive.grid import GRADED_COARSE, GridKind
from optmech.lp.additive.rows import VIRTUAL_ROWS_ABOVE
from optmech.lp.additive.windows import WINDOW_METHODS, choose_window_method, window_size
from optmech.lp.engine.rounding import tail_ratio_for
from optmech.lp.limits import ADDITIVE_MEMORY_GB, budget_to_run
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, Privacy, PrivacyProfile, PureDP, RenyiDP

__all__ = [
    "APPROX_CELLS",
    "APPROX_HOCKEY_TERMS",
    "BEYOND_LOSS_MAX",
    "DEFAULT_MAX_MEMORY_GB",
    "DELTA_MIN",
    "EPSILON_MAX",
    "EPSILON_MIN",
    "GDP_CAP_DELTA",
    "GRADED_ABOVE_CELLS",
    "PROFILE_DELTA_MIN",
    "UNIFORM_MAX_CELLS",
    "AdditiveSpec",
    "WindowForm",
    "default_periods",
    "default_resolution",
    "estimate_additive_size",
    "tail_ratio_for",
]

#: The forms of the ε-DP window rows (`optmech.lp.additive.windows`); "auto" picks by size.
WindowForm = Literal["auto", "pairs", "sparse-table", "blocks"]

#: Default memory cap of a design, in GB (the one size limit: every refusal states it;
#: `optmech.lp.limits.ADDITIVE_MEMORY_GB`).
DEFAULT_MAX_MEMORY_GB = ADDITIVE_MEMORY_GB
#: Largest ε of an ε-DP or (ε, δ) design. Measured (HiGHS and Clarabel, |x| and x², ℝ and ℤ,
#: default grids): designs solve and certify up to ε = 65; at ε = 70 every solver attempt
#: fails, and beyond ε ≈ 700 the graded grid cannot be built (``e^−ε`` underflows). The same
#: cap as the user LPs'.
EPSILON_MAX = 50.0
#: Smallest ε of an ε-DP design (as for the staircase families): the certificate's rounding
#: (at most about 1.1e-12 absolute) stays within about 1e-6 of ε.
EPSILON_MIN = 1e-6
#: Smallest δ > 0 of an (ε, δ) design. The support grows as ln(1/δ)/ε and every density the
#: hockey-stick rows weigh must be resolved relative to δ. With the sum rows written relative
#: to δ (`optmech.lp.additive.rows`) and the default cells per Δ
#: sized from the support (`default_resolution`), measured (HiGHS, ℝ, |x| and x², ε = 0.1,
#: 0.3, 1, 2, 5, 2 shared cores): δ = 1e-11 is served within 10 s and 0.2 GB, certified, and
#: below the truncated Laplace's cost (Geng, Ding, Guo & Kumar 2020) by 0.04% (ε = 0.1) to
#: 27% (ε = 5); the certified interval is within 1e-5 for ε ≤ 0.3, about 1% at ε = 1 and 2,
#: and wider at ε = 5 (a mixing repair). At δ = 1e-12 HiGHS reports the LP "infeasible"
#: after minutes (ε = 1) and Clarabel does not finish in 100 s. ``design_noise`` answers a
#: smaller δ > 0 at ε > 0 (without constraints) by the ε-DP design, certified, with the LP at
#: this δ for the lower bound (`optmech.lp.additive.approx`).
DELTA_MIN = 1e-11
#: Smallest δ > 0 of a privacy profile's point (designed with the rows of
#: `optmech.lp.additive.beyond`, measured down to this δ).
PROFILE_DELTA_MIN = 1e-9
#: Largest privacy loss the rows of a design beyond (ε, δ) may span: the ε of its geometric
#: tails (ρ-zCDP: √ρ; see `AdditiveSpec.tail_epsilon`) and the cap of a GDP design (the ε
#: where ``δ_μ(ε)`` is `GDP_CAP_DELTA`). Measured (ℤ, |x|): GDP designs solve at μ = 6.4 (cap
#: 64.6) and fail at every attempt at μ = 7 (cap 73); beyond ε ≈ 700 ``e^ε`` overflows.
BEYOND_LOSS_MAX = 65.0
#: GDP designs cap every privacy loss at the ε where ``δ_μ(ε)`` is this small (pure rows there,
#: `optmech.lp.additive.beyond`).
GDP_CAP_DELTA = 1e-12
#: Default cells per Δ of an (ε, δ) design whose support is short enough
#: (`default_resolution`).
APPROX_CELLS = 20
#: Most hockey-stick terms (cells × shifts, ``2Km²``) of a default (ε, δ) design: beyond it
#: the cells per Δ are lowered. Measured (HiGHS, ℝ, |x|, 2 shared cores): ε = 0.1, δ = 1e-9
#: (K = 179 periods) took 0.7 s at m = 4 (5.7k terms), 9.9 s at m = 8 (23k) and more than
#: five minutes at m = 20 (143k); m = 4 and 8 within 1e-6 of each other. At δ = 1e-11:
#: ε = 0.1 (K = 225), m = 6 (16.2k terms) took 18 s (|x|) and 28 s (x²); ε = 0.3 (K = 80),
#: m = 8 (10k) 4.1 s and m = 6 (5.8k) 0.9 s, the same value to 1e-6.
APPROX_HOCKEY_TERMS = 8_000
#: Largest default cells per Δ of a uniform grid.
UNIFORM_MAX_CELLS = 400
#: ``grid="auto"`` grades the grid when about 20 cells on the staircase's top step γ*Δ would
#: need more uniform cells per Δ than this (``20(1 + e^(ε/2)) > 400``, i.e. ε > 2 ln 19 ≈ 5.9).
#: Measured (benchmarks/bench_additive.py ``graded``, HiGHS, |x| and x², 2 shared cores): up to
#: that point the uniform default is within 1e-5 of V* (ε = 6: 400 cells, 0.66 s; the graded
#: grid 8e-4 in 0.03 s); beyond it the capped uniform grid falls behind — 6.4e-3 above V* at
#: ε = 10, 1.37 at ε = 15, 26.5 at ε = 20 (|x|) — while the graded one stays within 1.1e-3
#: up to ε = 30 in under 1.2 s.
GRADED_ABOVE_CELLS = UNIFORM_MAX_CELLS
#: Bytes per nonzero and per row/variable through cvxpy's canonicalisation and the solver.
#: Measured peak RSS growth (benchmarks/bench_additive.py, Clarabel, full ε-DP LP, m = 25…400):
#: about 730 bytes per nonzero all included; these constants give about 1.5x that.
_BYTES_PER_NONZERO = 600
_BYTES_PER_ROW = 900


def _top_step_cells(epsilon: float) -> float:
    """Uniform cells per Δ that put about 20 on the staircase's top step ``Δ/(1 + e^(ε/2))``."""
    return 20.0 * (1.0 + math.exp(min(epsilon, 1400.0) / 2.0))


def default_resolution(privacy: Privacy) -> int:
    """Uniform cells per Δ: ``20(1 + e^(ε/2))`` for ε-DP (about 20 cells on the staircase's top
    step γ*Δ; Geng & Viswanath 2016, §V-B), capped at `UNIFORM_MAX_CELLS`; for (ε, δ) with ε >
    0, 20 while the LP's ``2Km²`` hockey-stick terms (``K`` periods each side,
    `default_periods`) stay within `APPROX_HOCKEY_TERMS`, else the largest even ``m ≥ 2`` that
    keeps them there; 20 for (0, δ) and privacy profiles; 8 for Rényi DP, zCDP (cones per cell
    and shift) and GDP (a hockey-stick block per cell, shift and cut ε, over several rounds).

    The (ε, δ) budget binds only where the support is long, i.e. at small ε and δ: there the
    optimum is close to the staircase of Geng & Viswanath (2016), whose top step ``γ*Δ`` tends
    to ``Δ/2`` as ε → 0 — an even ``m`` holds it exactly.
    """
    if isinstance(privacy, PureDP):
        steps = math.ceil(min(_top_step_cells(privacy.epsilon), 1e9))
        return min(UNIFORM_MAX_CELLS, max(8, steps))
    if isinstance(privacy, ApproxDP) and privacy.epsilon > 0.0:
        periods = default_periods(privacy)
        fits = math.isqrt(APPROX_HOCKEY_TERMS // (2 * periods))
        return APPROX_CELLS if fits >= APPROX_CELLS else max(2, fits - fits % 2)
    return 8 if isinstance(privacy, ZCDP | RenyiDP | GaussianDP) else 20


def gaussian_scale(privacy: Privacy) -> float | None:
    """The noise scale, in units of Δ, of the Gaussian that meets a guarantee beyond (ε, δ):
    ``1/√(2ρ)`` (zCDP, Bun & Steinke 2016), ``max_α √(α/(2ε(α)))`` (Rényi DP at the given
    orders, Mironov 2017, Proposition 7), ``1/μ`` (GDP, Dong, Roth & Su 2022); None otherwise.
    It sizes the default support of those designs."""
    if isinstance(privacy, ZCDP):
        return 1.0 / math.sqrt(2.0 * privacy.rho)
    if isinstance(privacy, RenyiDP):
        pairs = zip(privacy.orders, privacy.epsilons, strict=True)
        return max(math.sqrt(a / (2.0 * max(e, 1e-300))) for a, e in pairs)
    if isinstance(privacy, GaussianDP):
        return 1.0 / privacy.mu
    return None


def default_periods(privacy: Privacy, *, graded: bool = False) -> int:
    """Periods each side: for ε-DP 3 on a uniform grid and 1 on a graded one (the tail closure
    carries the rest: the staircase of Geng & Viswanath 2016 is exactly one period continued
    geometrically, and at the large ε that grades a grid deeper periods hold densities below
    ``e^(−2ε)`` of the peak, which no solver resolves); for (ε, δ) one more than the truncated
    Laplace's support ``(1/ε) ln(1 + (e^ε − 1)/(2δ))`` (Geng, Ding, Guo & Kumar 2020); for
    (0, δ) one more than the uniform block's ``1/(2δ)`` (Geng, Ding, Guo & Kumar 2019); for
    zCDP, Rényi DP and GDP ten scales of the matching Gaussian (`gaussian_scale`:
    there its mass is below e^(−50), and the slow geometric tail beyond costs nothing measurable);
    for a privacy profile the longest of its points' (and 3 for a point with δ = 0)."""
    if isinstance(privacy, PureDP):
        return 1 if graded else 3
    scale = gaussian_scale(privacy)
    if scale is not None:
        return max(3, math.ceil(7.0 * scale))
    if isinstance(privacy, PrivacyProfile):
        points = zip(privacy.epsilons, privacy.deltas, strict=True)
        return max(default_periods(ApproxDP(e, d)) if 0 < d < 1 else 3 for e, d in points)
    assert isinstance(privacy, ApproxDP)  # every other guarantee has returned above
    eps, delta = privacy.epsilon, privacy.delta
    if eps == 0.0:
        return math.ceil(1.0 / (2.0 * delta)) + 1
    reach = math.log1p(math.expm1(min(eps, 700.0)) / (2.0 * delta)) / eps
    return math.ceil(reach) + 1


def _window_length(grid_n: int, period: int, symmetric: bool, virtual: bool) -> int:
    """Cells the ε-DP window runs on (`optmech.lp.additive.rows.pure_rows`): the grid and one
    virtual period each side, or the real cells; those right of −m when mirror-reduced."""
    if virtual:
        return (grid_n // 2 + 2 * period) if symmetric else grid_n + 2 * period
    return (grid_n // 2 + period + grid_n % 2) if symmetric else grid_n


def estimate_additive_size(
    privacy: Privacy,
    *,
    grid_n: int,
    period: int,
    symmetric: bool,
    monotone: bool,
    window: str,
    atom: bool,
    virtual: bool | None = None,
) -> dict[str, int | float]:
    """Variables, rows, nonzeros and estimated bytes of the LP, before anything is built.

    ``virtual``: whether the ε-DP window runs over one virtual period each side
    (`optmech.lp.additive.rows.virtual_rows`); default as on a uniform grid.
    """
    n_z = (grid_n + 1) // 2 if symmetric else grid_n
    n_vars, rows, nnz = n_z + int(atom), 1, n_z + int(atom)  # normalisation row
    if isinstance(privacy, PureDP):
        # Virtual periods while e^−ε ≥ VIRTUAL_ROWS_ABOVE; else each outer period adds m
        # minima and 3m − 1 tail rows.
        if virtual is None:
            virtual = math.exp(-privacy.epsilon) >= VIRTUAL_ROWS_ABOVE
        seq = _window_length(grid_n, period, symmetric, virtual)
        sides = 0 if virtual else (1 if symmetric else 2)
        if monotone:
            real = _window_length(grid_n, period, symmetric, False)
            ends = 1 if symmetric else 2
            rows += (real - 1 + ends) + 2 * max(real - period, 0)
            nnz += 2 * (real - 1 + ends) + 4 * max(real - period, 0)
        else:
            w_rows, w_aux, w_nnz = window_size(seq, period, window)
            rows += w_rows + sides * (3 * period - 1)
            n_vars += w_aux + sides * period
            nnz += w_nnz + sides * (6 * period - 2)
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


def _renyi_tail(privacy: RenyiDP) -> float:
    """``min_α max(ε(α)/2, √(ε(α)/α))`` (`AdditiveSpec.tail_epsilon`)."""
    pairs = zip(privacy.orders, privacy.epsilons, strict=True)
    return min(max(e / 2.0, math.sqrt(e / a)) for a, e in pairs)


def _largest_mu() -> float:
    """The μ whose GDP cap ε (where ``δ_μ(ε) = GDP_CAP_DELTA``) is `BEYOND_LOSS_MAX`."""
    from scipy import optimize

    def excess(mu: float) -> float:
        return GaussianDP(mu).to_approx(GDP_CAP_DELTA).epsilon - BEYOND_LOSS_MAX

    return float(optimize.brentq(excess, 1e-3, 100.0, xtol=1e-12))


def _check_beyond(privacy: Privacy) -> None:
    """Refuse a guarantee beyond (ε, δ) whose design cannot be solved, before anything is built:
    ρ, μ or the Rényi budgets whose privacy rows would span more than ``e^BEYOND_LOSS_MAX``, and
    profile points with ε above `EPSILON_MAX` or ``0 < δ < PROFILE_DELTA_MIN``."""
    hint = "beyond it the design's privacy rows span more than e^65 and no solver resolves them"
    if isinstance(privacy, ZCDP):
        check_real("rho", privacy.rho, low=0.0, high=BEYOND_LOSS_MAX**2, low_open=True, hint=hint)
    elif isinstance(privacy, GaussianDP):
        cap = privacy.to_approx(GDP_CAP_DELTA).epsilon
        if not cap <= BEYOND_LOSS_MAX:
            raise ValueError(
                f"`mu` must be in (0, {_largest_mu():.4g}] for a design: every privacy loss is "
                f"capped at the ε where δ_μ(ε) = {GDP_CAP_DELTA:g} (here {cap:.4g}), and {hint}; "
                f"got {privacy.mu!r}."
            )
    elif isinstance(privacy, RenyiDP):
        tails = _renyi_tail(privacy)
        if not tails <= BEYOND_LOSS_MAX:
            raise ValueError(
                "`privacy` must leave the Rényi design's geometric tails a loss "
                f"min_α max(ε(α)/2, √(ε(α)/α)) in (0, {BEYOND_LOSS_MAX:g}]: {hint}; got "
                f"{tails:.4g} for {privacy}."
            )
    elif isinstance(privacy, PrivacyProfile):
        for eps, delta in zip(privacy.epsilons, privacy.deltas, strict=True):
            if eps > EPSILON_MAX or 0.0 < delta < PROFILE_DELTA_MIN:
                raise ValueError(
                    f"`privacy` profile points must have ε in [0, {EPSILON_MAX:g}] and δ = 0 or "
                    f"δ ≥ {PROFILE_DELTA_MIN:g} for a design (beyond these the LP's rows span "
                    "more than e^50 or are scaled by 1/δ, and no solver resolves them); got "
                    "(ε, δ) = "
                    f"({eps!r}, {delta!r})."
                )


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {choices}; got {describe(value)}.")
    return value


class SpecViews:
    """Read-only views of ``self.spec`` (an `AdditiveSpec`) shared by the LP and the
    design record."""

    spec: AdditiveSpec

    @property
    def privacy(self) -> Privacy:
        """The guarantee."""
        return self.spec.privacy

    @property
    def cost(self) -> Cost:
        """The cost."""
        return self.spec.cost

    @property
    def symmetric(self) -> bool:
        """Restricted to symmetric noise (as asked)."""
        return self.spec.symmetric

    @property
    def monotone(self) -> bool:
        """Restricted to noise non-increasing in ``|x|``."""
        return self.spec.monotone

    @property
    def reduced(self) -> bool:
        """Solved on half the variables (``symmetric``, or exactly equivalent for this cost)."""
        return self.spec.reduced


@dataclass(frozen=True)
class AdditiveSpec:
    """An additive-noise design, validated: ``K(D) = q(D) + X`` with ``X`` found by LP.

    Parameters
    ----------
    privacy : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile
        The guarantee; ``ApproxDP(0, delta)`` is (0, δ). The guarantees beyond (ε, δ) are
        designed by `optmech.lp.additive.beyond` on a uniform grid or
        ℤ.
    sensitivity : float
        Δ, in (0, inf); an integer ≥ 1 when ``integer``.
    cost : Cost, str or callable
        Any cost of the error (`optmech.costs.as_cost`), asymmetric ones
        included.
    resolution : int, optional
        Cells per Δ, $m ≥ 1$: of a uniform grid (default
        `default_resolution`), or of the coarse part of a graded one (default
        40). Integer noise has Δ points per Δ: give None or Δ.
    periods : int, optional
        Periods of Δ each side, $K ≥ 1$ (default `default_periods`).
    integer : bool
        Noise on ℤ for integer queries.
    symmetric, monotone : bool
        Restrict to symmetric noise / noise non-increasing in ``|x|``.
    grid : {"auto", "uniform", "graded"}
        How a period is cut (`optmech.lp.additive.grid`). "auto" grades
        it for ε-DP densities when no ``resolution`` is given and a uniform grid would need more
        than `GRADED_ABOVE_CELLS` cells per Δ to resolve the staircase's top step.
    window : {"auto", "pairs", "sparse-table", "blocks"}
        Form of the ε-DP window rows (`optmech.lp.additive.windows`).
    atom : bool, optional
        Allow an atom at the origin (default: for (ε, δ) densities; never for ε-DP or on ℤ).
    reduce_symmetric : bool
        For a symmetric cost, solve on half the variables even when ``symmetric=False``: the
        grid, the constraints and the objective are then invariant under $x ↦ −x$, so the
        average of an optimum and its mirror image is feasible and optimal — nothing is lost
        (a test checks it). False solves the full LP anyway.
    max_memory_gb : float
        Refuse (`ProblemTooLargeError`) LPs whose
        estimated memory exceeds this many GB, in (0, inf).

    Raises
    ------
    ValueError, TypeError
        A bad value, or a combination that cannot be feasible (a (0, δ) support too short).

    Examples
    --------
    >>> from optmech.privacy import PureDP
    >>> spec = AdditiveSpec(PureDP(15.0), sensitivity=1.0, cost="abs")
    >>> spec.grid, spec.periods, spec.reduced
    (<GridKind.GRADED: 'graded'>, 1, True)
    >>> AdditiveSpec(PureDP(1.0), sensitivity=1.0, cost="abs", resolution=8).grid
    <GridKind.UNIFORM: 'uniform'>
    """

    privacy: Privacy
    sensitivity: float
    cost: Cost
    resolution: int | None = None
    periods: int | None = None
    integer: bool = False
    symmetric: bool = False
    monotone: bool = False
    grid: GridKind = GridKind.AUTO
    window: WindowForm = "auto"
    atom: bool | None = None
    reduce_symmetric: bool = True
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB

    def __post_init__(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        privacy = guarantees.check_privacy(self.privacy, beyond=True)
        pure = isinstance(privacy, PureDP)
        if isinstance(privacy, PureDP | ApproxDP):
            check_real(
                "epsilon",
                privacy.epsilon,
                low=EPSILON_MIN if pure else 0.0,
                high=EPSILON_MAX,
                hint="beyond it the LP's privacy rows span more than 1e21 and no solver "
                "resolves them; below 1e-6 (ε-DP) the certificate's own rounding is a visible "
                "fraction of ε",
            )
            if not pure:
                check_real(
                    "delta",
                    privacy.delta,
                    low=DELTA_MIN,
                    high=1.0,
                    hint="below it the densities the hockey-stick rows weigh are beneath the "
                    "solvers' tolerance (design_noise without constraints answers a smaller "
                    "δ > 0 at ε > 0 by the ε-DP design)",
                )
        else:
            _check_beyond(privacy)
        put("privacy", privacy)
        put("_periods_defaulted", self.periods is None)
        for name in ("integer", "symmetric", "monotone", "reduce_symmetric"):
            put(name, check_flag(name, getattr(self, name)))
        put("cost", as_cost(self.cost))
        put("window", _check_choice("window", self.window, ("auto", *WINDOW_METHODS)))
        put(
            "max_memory_gb", check_real("max_memory_gb", self.max_memory_gb, low=0.0, low_open=True)
        )
        grid = GridKind(_check_choice("grid", str(self.grid), ("auto", "uniform", "graded")))
        if self.integer:
            self._resolve_integer(grid)
        else:
            put("sensitivity", check_real("sensitivity", self.sensitivity, low=0.0, low_open=True))
            if self.resolution is not None:
                put("resolution", check_int("resolution", self.resolution, low=1))
            graded = grid == GridKind.GRADED or (
                grid == GridKind.AUTO
                and pure
                and self.resolution is None
                and _top_step_cells(privacy.epsilon) > GRADED_ABOVE_CELLS
            )
            if graded and not pure:
                raise ValueError(
                    "`grid` must be 'uniform' or 'auto' for (ε, δ) designs and those beyond "
                    f"(here {privacy}): the hockey-stick rows and Rényi divergences interpolate "
                    "between whole-cell shifts only on a uniform grid; got 'graded'."
                )
            put("grid", GridKind.GRADED if graded else GridKind.UNIFORM)
            if self.resolution is None:
                put("resolution", GRADED_COARSE if graded else default_resolution(privacy))
        if self.periods is None:
            put("periods", default_periods(privacy, graded=self.grid == GridKind.GRADED))
        else:
            put("periods", check_int("periods", self.periods, low=1))
        self._resolve_atom(pure)
        if isinstance(privacy, ApproxDP) and privacy.epsilon == 0.0:
            self._check_zero_delta_support()
        elif isinstance(privacy, ApproxDP) and 0.0 < privacy.delta < 1.0:
            self._check_approx_support()

    def _resolve_integer(self, grid: GridKind) -> None:
        if grid == GridKind.GRADED:
            raise ValueError(
                "`grid` must be 'auto' or 'uniform' for integer noise: the integers need no "
                "grading; got 'graded'."
            )
        delta = check_int(
            "sensitivity",
            self.sensitivity,
            low=1,
            hint="integer noise needs an integer sensitivity",
        )
        if self.resolution is not None and check_int("resolution", self.resolution, low=1) != delta:
            raise ValueError(
                f"`resolution` must be None or equal to `sensitivity` ({delta}) for integer "
                f"noise (one point per integer); got {self.resolution!r}."
            )
        object.__setattr__(self, "sensitivity", float(delta))
        object.__setattr__(self, "resolution", delta)
        object.__setattr__(self, "grid", GridKind.INTEGER)

    def _resolve_atom(self, pure: bool) -> None:
        # An atom faces zero density under every shift: δ(ε) ≥ its mass at every ε, and every
        # Rényi divergence is infinite. Only (ε, δ) and profiles with δ > 0 everywhere allow it.
        allowed = not pure and self.tail_epsilon is None
        if self.atom is None:
            object.__setattr__(self, "atom", allowed and not self.integer)
            return
        atom = check_flag("atom", self.atom)
        if atom and (not allowed or self.integer):
            raise ValueError(
                "`atom=True` needs (ε, δ) privacy (or a privacy profile with δ > 0 at every "
                f"point) and a density; got {self.privacy}{' on ℤ' if self.integer else ''}: "
                "an atom faces zero density under every shift, so it is never ε-DP, zCDP, "
                "Rényi DP or GDP, and integer noise has its mass at 0 in the pmf already."
            )
        object.__setattr__(self, "atom", atom)

    def _check_zero_delta_support(self) -> None:
        assert self.periods is not None
        assert isinstance(self.privacy, ApproxDP)  # checked only for (0, δ)
        points = 2 * self.periods + (1 if self.integer else 0)
        delta = self.privacy.delta
        if 1.0 / points > delta:
            need = math.ceil((1.0 / delta - (1 if self.integer else 0)) / 2.0)
            raise ValueError(
                f"`periods` must be at least {need} for (0, {delta:g})-DP: shifting a support of "
                f"{points} sensitivities by its length {points} times gives disjoint copies, so "
                f"δ ≥ 1/{points} = {1.0 / points:.3g}; got periods={self.periods}."
            )

    def _check_approx_support(self) -> None:
        """Refuse ``periods`` too few for (ε, δ) with ε > 0: a support that no (ε, δ)-DP noise
        fills.

        On ``[−KΔ, KΔ]`` the mass beyond ``KΔ − (j + 1)Δ``, ``T_j``, meets
        ``T_j ≤ e^ε T_(j−1) + δ`` (the set beyond ``KΔ − jΔ`` under the shift by Δ), with
        ``T_(−1) = 0``, so ``P(Z > 0) ≤ δ G(K)`` with ``G(K) = (e^(εK) − 1)/(e^ε − 1)``, and
        the same below 0. A density with an atom at 0 has it at most δ (the atom faces no mass
        under the shift): the LP is infeasible unless ``δ (2 G(K) + atom) ≥ 1``. On ℤ, one
        more step of the chain crosses 0: ``δ (G(K) + G(K + 1)) ≥ 1``. (The truncated Laplace
        of Geng, Ding, Guo & Kumar (2020) fills about one period more.)"""
        assert self.periods is not None and isinstance(self.privacy, ApproxDP)
        eps, delta = self.privacy.epsilon, self.privacy.delta
        if eps * (self.periods + 1) > 700.0:  # e^(εK) alone exceeds 1/δ for every δ served
            return

        def reach(k: int) -> float:
            return math.expm1(eps * k) / math.expm1(eps)

        def filled(k: int) -> bool:
            if self.integer:
                return delta * (reach(k) + reach(k + 1)) >= 1.0
            return delta * (2.0 * reach(k) + (1.0 if self.atom else 0.0)) >= 1.0

        if filled(self.periods):
            return
        need = self.periods + 1
        while not filled(need):
            need += 1
        raise ValueError(
            f"`periods` must be at least {need} for {self.privacy}"
            f"{' on ℤ' if self.integer else ''}: on [−KΔ, KΔ] an (ε, δ)-DP noise holds at most "
            f"δ(e^(εK) − 1)/(e^ε − 1) of its mass on each side of 0, less than the whole for "
            f"K < {need}; got periods={self.periods}."
        )

    # -- derived ----------------------------------------------------------------------------
    @property
    def periods_defaulted(self) -> bool:
        """Whether `periods` was derived (`default_periods`) rather than
        given: a design may then lengthen a finite support that turns out too short."""
        return bool(getattr(self, "_periods_defaulted", False))

    @property
    def pure(self) -> bool:
        """Whether the guarantee is pure ε-DP."""
        return isinstance(self.privacy, PureDP)

    @property
    def reduced(self) -> bool:
        """Whether the LP is solved on half the variables (symmetric, or a symmetric cost)."""
        return bool(self.symmetric or (self.reduce_symmetric and self.cost.symmetric))

    @property
    def beyond(self) -> bool:
        """Whether the guarantee is beyond (ε, δ): zCDP, Rényi DP, GDP or a privacy profile."""
        return not isinstance(self.privacy, PureDP | ApproxDP)

    @property
    def tail_epsilon(self) -> float | None:
        """The pure ε of the geometric tails beyond the grid (their ratio per period is
        $e^{−ε}$), or None for a finite support.

        ε-DP: ε. A profile with $δ_j = 0$ from some point on: the first such $ε_j$ (the noise is
        then $ε_j$-DP). zCDP, Rényi DP and GDP: the ε at which ε-DP gives half the guarantee —
        $√ρ$ (ε-DP is $ε²/2$-zCDP; Bun & Steinke 2016, Proposition 1.4);
        $min_α max(ε(α)/2, √(ε(α)/α))$ (``D_α ≤ min(ε, αε²/2)``); $log(Φ(μ/4)/Φ(−μ/4))$ (ε-DP is
        $−2Φ⁻¹(1/(1 + e^ε))$-GDP; Dong, Roth & Su 2022). Those need tails (a finite support
        faces zero mass: infinite Rényi divergences, δ(ε) > 0 at every ε) whose own losses stay
        far inside the guarantee, and a geometric noise of that ratio is a mixing reference that
        keeps the design's tails geometric (`optmech.lp.additive.beyond`).
        """
        g = self.privacy
        if isinstance(g, PureDP):
            return g.epsilon
        if isinstance(g, ZCDP):
            return math.sqrt(g.rho)
        if isinstance(g, RenyiDP):
            return _renyi_tail(g)
        if isinstance(g, GaussianDP):
            from scipy import special

            return float(special.log_ndtr(g.mu / 4.0) - special.log_ndtr(-g.mu / 4.0))
        if isinstance(g, PrivacyProfile) and g.deltas[-1] == 0.0:
            return g.epsilons[g.deltas.index(0.0)]
        return None

    @property
    def tail_ratio(self) -> float:
        """Ratio per period of the tails: $e^{−ε}$ of `tail_epsilon` rounded *up*
        (two ulps, and until $fl(e^ε)·ratio ≥ 1$ exactly), so that a tail is exactly ε-DP and a
        tail row holds for a constant last period; 0 (finite support) for (ε, δ) and profiles with δ
        > 0 at every point. The LP is the ideal one up to these ulps."""
        eps = self.tail_epsilon
        if eps is None:
            return 0.0
        ratio = math.nextafter(math.nextafter(math.exp(-eps), 1.0), 1.0)
        factor = Fraction(math.exp(eps))
        while factor * Fraction(ratio) < 1:  # exactly, as the product of the two floats
            ratio = math.nextafter(ratio, 1.0)
        return ratio

    def replace(self, **changes: Any) -> AdditiveSpec:
        """A copy with some fields changed, validated again (defaults are *not* re-derived:
        pass ``resolution=None`` / ``periods=None`` / ``grid="auto"`` to re-derive them)."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}
        if fields["grid"] == GridKind.INTEGER:  # resolved from `integer`, not an input
            fields["grid"] = GridKind.AUTO
        fields.update(changes)
        return AdditiveSpec(**fields)

    @classmethod
    def options(cls) -> tuple[str, ...]:
        """The keyword options besides ``privacy``, ``sensitivity`` and ``cost``."""
        skip = {"privacy", "sensitivity", "cost"}
        return tuple(f.name for f in dataclasses.fields(cls) if f.init and f.name not in skip)

    def size(self, cells: int) -> dict[str, int | float]:
        """The LP's estimated size (`estimate_additive_size`) for ``cells`` per period."""
        assert self.periods is not None  # resolved in __post_init__
        grid_n = 2 * self.periods * cells + (1 if self.integer else 0)
        return estimate_additive_size(
            self.privacy,
            grid_n=grid_n,
            period=cells,
            symmetric=self.reduced,
            monotone=self.monotone,
            window=self.window_form(grid_n, cells),
            atom=bool(self.atom),
            virtual=self._virtual,
        )

    def window_form(self, grid_n: int, cells: int) -> str:
        """The window form "auto" resolves to for this grid (``"blocks"`` when unknown)."""
        if self.tail_epsilon is None or self.monotone or self.window != "auto":
            return self.window if self.window != "auto" else "blocks"
        seq = _window_length(grid_n, cells, self.reduced, self._virtual)
        return choose_window_method(seq, cells)

    @property
    def _virtual(self) -> bool:
        """Whether the ε-DP window runs over virtual periods (``rows.virtual_rows``)."""
        eps = self.tail_epsilon
        return self.grid != GridKind.GRADED and math.exp(-(eps or 0.0)) >= VIRTUAL_ROWS_ABOVE

    def check_size(self, cells: int) -> None:
        """Refuse an LP whose estimated memory exceeds `max_memory_gb` (before building)."""
        size = self.size(cells)
        grid_n = 2 * (self.periods or 0) * cells + (1 if self.integer else 0)
        if size["bytes"] > self.max_memory_gb * 1e9:
            raise ProblemTooLargeError(
                f"the LP (window rows in the form {self.window_form(grid_n, cells)!r}) would need "
                f"about {size['bytes'] / 1e9:.3g} GB ({size['variables']:,} "
                f"variables, {size['rows']:,} rows, {size['nonzeros']:,} nonzeros; {cells} cells "
                f"per Δ, periods={self.periods}), above max_memory_gb={self.max_memory_gb:g}. "
                f"To run it: max_memory_gb={budget_to_run(size['bytes'] / 1e9)}; or lower the "
                "resolution or the periods, or use symmetric=True / monotone=True."
            )
