"""What to design in 2-D: `AdditiveSpec2D`, validated once, and the size it will take.

Noise ``X ∈ ℝ²`` for ``K(D) = q(D) + X`` under pure ε-DP with shifts in the ball of radius Δ of the
ℓ1, ℓ2 or ℓ∞ norm (``sensitivity_norm``), searched among densities constant on square cells of side
``h = Δ/m`` (``m`` = ``resolution``) on the box ``[−KΔ, KΔ)²`` (``K`` = ``periods``), closed outside
by tail shapes (`optmech.mechanisms.tails2d`). The size of the LP is estimated from these numbers
before anything is built (`AdditiveSpec2D.size`), and a design that would need more than
``max_memory_gb`` is refused (`ProblemTooLargeError`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from optmech._floats import IntArray
from optmech._validation import check_flag, check_int, check_real, describe
from optmech.certify.noise2d import NORMS, footprint, row_half_widths
from optmech.costs.vector import as_vector_cost, symmetry_of
from optmech.exceptions import ProblemTooLargeError
from optmech.lp.limits import ADDITIVE_MEMORY_GB, budget_to_run
from optmech.mechanisms.tails2d import gauge_polygon
from optmech.privacy import PureDP

__all__ = [
    "DEFAULT_RESOLUTION_2D",
    "TAIL_CHOICES",
    "AdditiveSpec2D",
    "default_periods_2d",
]

#: Default cells per Δ of a 2-D design.
DEFAULT_RESOLUTION_2D = 8
#: The tail closures: the gauge staircase alone, or with the product of 1-D staircases at ε/2.
TAIL_CHOICES = ("gauge", "gauge+product")
#: Forms of the window rows (`optmech.lp.additive2d.windows`);
#: "auto" is "runs".
WINDOW_CHOICES = ("auto", "runs", "pairs")
#: Memory of a design: the peak resident memory of the process above its size after importing
#: optmech and cvxpy. ``python -m benchmarks.size2d`` measures it (one fresh process per
#: design, ℓ1 cost, Δ = 1, ε = 1, 4 periods; HiGHS interior point) with the LP's counts and
#: this estimate; MB, measured / estimated (at m = 20 the LPs have 39k / 35k / 30k variables,
#: 336k / 330k / 318k rows, 0.73M / 0.84M / 0.83M nonzeros; the estimate is 1.2-1.4 times the
#: measured peak from m = 12 on, at most 2 times below):
#:
#: ====  ===========  ===========  ===========
#:    m  ℓ∞           ℓ2           ℓ1
#: ====  ===========  ===========  ===========
#:    4  17 / 27      21 / 41      28 / 55
#:    8  51 / 73      84 / 128     117 / 183
#:   12  116 / 146    213 / 270    303 / 395
#:   16  179 / 216    261 / 360    376 / 529
#:   20  322 / 393    335 / 453    469 / 657
#: ====  ===========  ===========  ===========
#:
#: A design passes three peaks, one after the other (``_peak_bytes``):
#:
#: 1. the tails' series (``optmech.mechanisms.tails2d.tail_sums``) hold a few
#:    float64 arrays of every tail over a chunk of at most about ``1.2·2¹⁸`` cells
#:    (measured: 72k cells at m = 4, 193k at m = 8, 295k-317k from m = 12 at ε = 1; 26-28
#:    bytes per cell and tail). The series run about ``42m/ε`` cells out (to a relative
#:    rest of 2⁻⁶⁰) in chunks growing with the distance, so the chunk is taken ``∝ m/ε``
#:    below its cap. Other ε (MB, measured / estimated): ℓ1, m = 8, 8 periods, ε = 0.5:
#:    213 / 275; ℓ2, m = 6, 8 periods, ε = 0.2: 134 / 148; ℓ1, m = 8, 2 periods, ε = 4:
#:    13 / 53 (a small design, its series short);
#: 2. the band rows (``optmech.lp.additive2d.lp._band``) evaluate every gauge polygon's
#:    facets at every (box cell near the edge, footprint offset) pair, on top of the window
#:    rows already built (measured alone: 33 bytes per pair for the ℓ∞ ball, 81-139 for the
#:    ℓ2 ball with 16-32 facets, 89-112 for the ℓ1 ball, m = 12 … 32; 80-150 bytes per
#:    nonzero retained after the build);
#: 3. the solve: the LP, its cvxpy form and HiGHS's (measured: 390-480 bytes per nonzero
#:    from m = 12 to 20, 33 MB at m = 8), growing faster than the nonzeros beyond a million
#:    or so: ℓ∞, m = 24 (1.22M nonzeros): 506 MB, 414 bytes per nonzero, estimated 688 MB;
#:    m = 32 (2.80M): 1590 MB, 567 bytes per nonzero, estimated 2003 MB. Hence bytes per
#:    nonzero ``× (nonzeros/10⁶)^0.3`` above a million.
_BASE_BYTES = 10_000_000
_TAIL_CHUNK_CELLS = 330_000
_TAIL_CHUNK_CELLS_PER_M = 27_000
_BYTES_PER_TAIL_CELL = 32
_BYTES_PER_BAND_PAIR = 32
_BYTES_PER_BAND_FACET = 4
_BYTES_PER_NONZERO_BUILT = 160
_BYTES_PER_NONZERO = 520
_SOLVE_GROWTH_FROM = 1_000_000
_SOLVE_GROWTH_POWER = 0.3
#: Band rows per box cell near the edge, from above (two kinds; the Pareto fronts of the
#: tails' keys, `optmech.lp.additive2d.lp._band`): 2 for the ℓ∞ ball (one gauge polygon and
#: the product: one row of each kind), at most 2.27 measured for the ℓ1 ball (m = 4 … 32);
#: for the ℓ2 ball 2.12 (m = 4) growing to 3.95 (m = 32), bounded by ``2 + m/16``.
_BAND_PER_CELL = {"l1": 2.5, "linf": 2.0}


def _rep_rows(cells: int, group: str) -> tuple[IntArray, IntArray, IntArray]:
    """Rows ``i`` of the box holding orbit representatives
    (`orbits`), how many each, and the least column."""
    n = 2 * cells
    if group == "none":
        rows = np.arange(n, dtype=np.int64)
        return rows, np.full(n, n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    rows = np.arange(cells, n, dtype=np.int64)
    if group == "dihedral":  # cells ≤ i ≤ j < n
        return rows, n - rows, rows
    return rows, np.full(cells, cells, dtype=np.int64), np.full(cells, cells, dtype=np.int64)


def _num_reps(cells: int, group: str) -> int:
    """Orbits of the box ``[−n₀, n₀)²`` under the group."""
    return int(_rep_rows(max(cells, 0), group)[1].sum())


def _window_counts(spec: AdditiveSpec2D, widths: IntArray) -> tuple[int, int]:
    """(rows, auxiliaries) of the window rows (``window_system_2d`` at the orbit
    representatives), without building them.

    ``"runs"``: one lookup per (representative, ``d₁`` whose row is in the box), two rows each, and
    two doubling rows per auxiliary. The lookups reading row ``r`` of the box at level ``l`` or
    above start at ``a_l(r)`` at the least (the least column of their representatives minus
    ``L(d₁)``) and reach the box's edge, and an auxiliary needs its two children, so level ``l``
    keeps the ``n − 2^l + 1 − a_l(r)`` starts from ``a_l(r)`` on (the pruning of
    ``optmech.lp.additive2d.windows``). ``"pairs"``: one row per (representative, footprint offset
    in the box); the representatives of row ``i`` are the columns ``least(i) … n − 1``.
    """
    n, w = 2 * spec.cells, (widths.size - 1) // 2
    rows, count, least = _rep_rows(spec.cells, spec.group)
    d1 = np.arange(-w, w + 1)
    inside = (rows[:, None] + d1[None, :] >= 0) & (rows[:, None] + d1[None, :] < n)
    if spec.method == "pairs":  # the representatives of row i are j = least(i) … n − 1
        cols = np.arange(n)
        reach = np.arange(int(widths.max()) + 1)[:, None]
        span = np.minimum(cols + reach, n - 1) - np.maximum(cols - reach, 0) + 1
        tail = np.cumsum(span[:, ::-1], axis=1)[:, ::-1]  # Σ_{j ≥ c} of row L's spans
        per_row = np.where(inside, tail[widths[None, :], least[:, None]], 0).sum(axis=1)
        return int(per_row.sum() - count.sum()), 0
    lookups = int(count @ inside.sum(axis=1))
    # Row r of the box is read by the representatives of rows r − d₁ at offset d₁, from
    # column least(r − d₁) − L(d₁) on, at level lev(d₁) (no higher: clipping only shortens).
    touched = np.arange(max(0, int(rows[0]) - w), n, dtype=np.int64)
    source = touched[:, None] - d1[None, :]
    valid = (source >= rows[0]) & (source <= rows[-1])
    first = least[np.clip(source - rows[0], 0, rows.size - 1)]
    start = np.where(valid, np.maximum(first - widths[None, :], 0), n)
    level = np.floor(np.log2(np.minimum(2 * widths + 1, n))).astype(np.int64)
    aux = 0
    for lv in range(1, int(level.max(initial=0)) + 1):
        lowest = start[:, level >= lv].min(axis=1)  # the children reach down to it
        aux += int(np.maximum(n - 2**lv + 1 - lowest, 0).sum())
    return 2 * aux + 2 * lookups, aux


def _lp_counts(spec: AdditiveSpec2D) -> tuple[int, int, int, int, int]:
    """(variables, rows, nonzeros, tails, band pairs) of the built LP (`AdditiveLP2D.counts`:
    the normalisation row and its coefficients included; band pairs: box cells near the edge
    times footprint offsets, what the band rows are chosen from)."""
    widths = row_half_widths(spec.sensitivity_norm, spec.resolution)
    w = (widths.size - 1) // 2
    reps = _num_reps(spec.cells, spec.group)
    window_rows, aux = _window_counts(spec, widths)
    balls = {"l1": 3, "l2": 2, "linf": 1}[spec.sensitivity_norm]
    steps = spec.resolution if spec.gamma is None else 1
    tails = balls * steps + (spec.tails == "gauge+product")
    near = reps - _num_reps(spec.cells - w, spec.group)
    per_cell = _BAND_PER_CELL.get(spec.sensitivity_norm, 2.0 + spec.resolution / 16.0)
    band_rows = math.ceil(near * per_cell)
    variables = reps + tails + aux
    rows = 1 + window_rows + band_rows
    nonzeros = 2 * window_rows + band_rows * (1 + tails) + reps + tails
    return variables, rows, nonzeros, tails, near * int(np.sum(2 * widths + 1))


def _peak_bytes(spec: AdditiveSpec2D, nonzeros: int, tails: int, pairs: int) -> int:
    """Peak bytes of a design: the largest of its three peaks (the comment on the constants),
    plus a few arrays of the grown box (the certificate, the repair)."""
    m = spec.resolution
    chunk = min(_TAIL_CHUNK_CELLS, _TAIL_CHUNK_CELLS_PER_M * m / spec.epsilon)
    series = tails * chunk * _BYTES_PER_TAIL_CELL
    balls = ("l1", "l2", "linf")[("l1", "l2", "linf").index(spec.sensitivity_norm) :]
    facets = max(gauge_polygon(footprint(ball, m))[0].shape[0] for ball in balls)
    band = nonzeros * _BYTES_PER_NONZERO_BUILT + pairs * (
        _BYTES_PER_BAND_PAIR + _BYTES_PER_BAND_FACET * facets
    )
    growth = max(1.0, nonzeros / _SOLVE_GROWTH_FROM) ** _SOLVE_GROWTH_POWER
    solve = nonzeros * _BYTES_PER_NONZERO * growth
    box = 64 * (2 * spec.cells + 2 * m) ** 2
    return int(_BASE_BYTES + max(series, band, solve) + box)


def default_periods_2d(epsilon: float) -> int:
    """``K = ceil(4/ε)`` periods each way, between 2 and 8: the box then holds all but about
    ``e^(−4)`` of a staircase's mass (the tail closure carries the rest exactly)."""
    return int(min(8, max(2, math.ceil(4.0 / epsilon))))


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {choices}; got {describe(value)}.")
    return value


@dataclass(frozen=True)
class AdditiveSpec2D:
    """A 2-D additive-noise design, validated (module docstring).

    Parameters
    ----------
    privacy : PureDP
        The guarantee (pure ε-DP; ε in (0, 50]).
    sensitivity : float
        Δ, the radius of the ball of shifts, in (0, inf).
    cost : Norm, VectorCustom, str or callable
        The cost of the error vector (`optmech.costs.vector.as_vector_cost`).
    sensitivity_norm : {'l1', 'l2', 'linf'}
        The norm of the ball of shifts.
    resolution : int
        ``m`` cells per Δ, in [1, 64] (default 8).
    periods : int, optional
        ``K`` periods each way, in [1, 64] (default `default_periods_2d`).
    window : {'auto', 'runs', 'pairs'}
        Form of the window rows.
    tails : {'gauge+product', 'gauge'}
        The tail closure (`optmech.mechanisms.tails2d`).
    reduce_symmetric : bool
        Solve on one cell per orbit of the cost's symmetry group: the grid, the ball, the tails
        and the rows are invariant under it (the dihedral group for a norm), so the average of
        an optimum over the group is feasible and optimal — nothing is lost.
    gamma : float or Fraction, optional
        One step position for the gauge tail, in [0, 1); default: a gauge tail at each of
        the ``m`` positions the grid resolves (the LP mixes them).
    max_memory_gb : float
        Refuse LPs whose estimated memory exceeds this, in (0, inf).

    Examples
    --------
    >>> import optmech
    >>> spec = optmech.AdditiveSpec2D(optmech.PureDP(1.0), 1.0, "l1", "l1", resolution=2, periods=1)
    >>> spec.resolution, spec.sensitivity_norm
    (2, 'l1')
    >>> optmech.AdditiveSpec2D(optmech.PureDP(1.0), 1.0, "l1", "l3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: `sensitivity_norm` must be one of ('l1', 'l2', 'linf'); got 'l3'.
    """

    privacy: PureDP
    sensitivity: float
    cost: Any
    sensitivity_norm: str
    resolution: int = DEFAULT_RESOLUTION_2D
    periods: int | None = None
    window: str = "auto"
    tails: str = "gauge+product"
    reduce_symmetric: bool = True
    gamma: Any = None
    max_memory_gb: float = ADDITIVE_MEMORY_GB

    def __post_init__(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        if not isinstance(self.privacy, PureDP):
            raise ValueError(
                "`privacy` must be optmech.PureDP(epsilon) for a 2-D design (pure ε-DP only); "
                f"got {describe(self.privacy)}."
            )
        check_real("epsilon", self.privacy.epsilon, high=50.0, hint="2-D designs need ε ≤ 50")
        put("sensitivity", check_real("sensitivity", self.sensitivity, low=0.0, low_open=True))
        put("cost", as_vector_cost(self.cost))
        put("sensitivity_norm", _check_choice("sensitivity_norm", self.sensitivity_norm, NORMS))
        put("resolution", check_int("resolution", self.resolution, low=1, high=64))
        eps = self.privacy.epsilon
        periods = default_periods_2d(eps) if self.periods is None else self.periods
        put("periods", check_int("periods", periods, low=1, high=64))
        put("window", _check_choice("window", self.window, WINDOW_CHOICES))
        put("tails", _check_choice("tails", self.tails, TAIL_CHOICES))
        put("reduce_symmetric", check_flag("reduce_symmetric", self.reduce_symmetric))
        put(
            "max_memory_gb", check_real("max_memory_gb", self.max_memory_gb, low=0.0, low_open=True)
        )
        if self.gamma is not None:
            g = check_real("gamma", self.gamma, low=0.0, high=1.0, high_open=True)
            put("gamma", Fraction(g).limit_denominator(1 << 20))

    # -- derived --------------------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        """ε."""
        return self.privacy.epsilon

    @property
    def cells(self) -> int:
        """$n₀ = K·m$: cells from the centre to the box's edge."""
        assert self.periods is not None
        return self.periods * self.resolution

    @property
    def group(self) -> str:
        """The symmetry group the LP is reduced by (``'none'`` when not reducing)."""
        return symmetry_of(self.cost) if self.reduce_symmetric else "none"

    @property
    def method(self) -> str:
        """The window form ``"auto"`` resolves to."""
        return "runs" if self.window == "auto" else self.window

    def size(self) -> dict[str, int | float]:
        """Variables, rows, nonzeros and estimated peak bytes of the design, before building.

        The counts follow `build_additive_lp_2d`
        term by term: exact for the variables and the window rows (the auxiliaries of the
        ``"runs"`` form are counted per row and level of the box), from above and within a
        few percent for the band rows. The bytes are the largest of the design's three
        successive peaks, fitted to measurements (the comment on `_BYTES_PER_NONZERO`).
        """
        variables, rows, nonzeros, tails, pairs = _lp_counts(self)
        memory = _peak_bytes(self, nonzeros, tails, pairs)
        return {"variables": variables, "rows": rows, "nonzeros": nonzeros, "bytes": memory}

    def check_size(self) -> None:
        """Refuse an LP whose estimated memory exceeds `max_memory_gb` (before building)."""
        size = self.size()
        if size["bytes"] > self.max_memory_gb * 1e9:
            raise ProblemTooLargeError(
                f"the 2-D LP (window rows in the form {self.method!r}) would need about "
                f"{size['bytes'] / 1e9:.3g} GB "
                f"({size['variables']:,} variables, {size['rows']:,} rows, "
                f"{size['nonzeros']:,} nonzeros; resolution={self.resolution}, "
                f"periods={self.periods}, sensitivity_norm={self.sensitivity_norm!r}), above "
                f"max_memory_gb={self.max_memory_gb:g}. To run it: "
                f"max_memory_gb={budget_to_run(size['bytes'] / 1e9)}; or lower the resolution "
                "or the periods."
            )

    def replace(self, **changes: Any) -> AdditiveSpec2D:
        """A copy with some fields changed, validated again."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        fields.update(changes)
        return AdditiveSpec2D(**fields)

    @classmethod
    def options(cls) -> tuple[str, ...]:
        """The keyword options besides ``privacy``, ``sensitivity`` and ``cost``."""
        skip = {"privacy", "sensitivity", "cost"}
        return tuple(f.name for f in dataclasses.fields(cls) if f.name not in skip)
