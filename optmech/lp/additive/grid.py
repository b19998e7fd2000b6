"""The cells of an additive-noise design: a Δ-periodic partition of ℝ, or the integers.

Every grid here repeats with period Δ: each period ``[kΔ, (k+1)Δ)`` is cut at the same relative
edges ``0 = t_0 < … < t_m = 1`` (``m`` cells per Δ), ``K`` periods on each side of 0. Three kinds:

* **uniform** — ``t_i = i/m``, cells of width ``h = Δ/m`` (the grid of Geng & Viswanath 2016,
  §IV, on which a staircase with ``γ ∈ {0, 1/m, …, 1}`` is exact);
* **graded** — a geometric ladder of edges from ``e^(−ε)`` up to where its spacing reaches the
  coarse spacing ``1/c``, uniform steps of ``1/c`` above, and the mirror image ``1 − t`` of all
  of them (so the partition of ℝ is symmetric about 0). The staircase's step ``γ*Δ`` lies
  between ``e^(−ε)Δ`` and ``Δ/2`` (``γ* ≈ e^(−ε/2)`` for ``|x|``, ``≈ (e^(−ε)/p)^(1/(p+1))`` for
  ``|x|^p``; Geng & Viswanath 2016, Thms. 4 and 6 and §V), so some edge is within a factor
  `LADDER_RATIO` of it at any ε, with a few hundred cells where a uniform grid would
  need ``20(1 + e^(ε/2))``;
* **integer** — the points of ℤ, ``Δ`` per period (the discrete setting of Geng & Viswanath
  2016, §VI).

Because the partition is Δ-periodic, a shift by ``|d| ≤ Δ`` moves every point at most ``m``
cells (see `optmech.mechanisms.graded`): the ε-DP window is "index
distance ≤ m" on every kind, so the LP's rows do not depend on the widths; only the masses
(``x_j·w_j`` for the variable ``x_j = Δ·f_j``) and the cell-averaged costs do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech.costs import Cost
from optmech.lp.engine.rounding import uniform_width
from optmech.mechanisms.graded import anchored_integrals

__all__ = ["LADDER_RATIO", "AdditiveGrid", "GridKind", "graded_widths", "make_grid"]


#: Ratio of consecutive edges of the graded ladder. With an edge within a factor
#: ``√LADDER_RATIO`` of γ*, the staircase's cost is within ``cosh(½ ln 1.1) − 1 ≈ 0.11%`` of
#: V* for ``|x|`` and ``≈ (½ ln 1.1)² ≈ 0.23%`` for ``x²`` (second-order in ``ln(γ/γ*)``).
LADDER_RATIO = 1.1
#: The ladder reaches down to ``e^(−LADDER_DEPTH·ε)``.
LADDER_DEPTH = 1.0
#: Coarse cells per Δ of the graded grid where the ladder is coarser than them.
GRADED_COARSE = 40


class GridKind(StrEnum):
    """How a period of the continuous grid is cut."""

    #: Graded for pure ε-DP when a uniform grid cannot resolve the staircase's top step.
    AUTO = "auto"
    #: ``m`` cells of width ``Δ/m``.
    UNIFORM = "uniform"
    #: A geometric ladder near the period's ends plus a coarse uniform part.
    GRADED = "graded"
    #: The integers (noise on ℤ).
    INTEGER = "integer"


@dataclass(frozen=True)
class AdditiveGrid:
    """The cells (or integer points) of a design: ``K = periods`` periods of Δ on each side of 0.

    ``widths`` are the relative widths of the ``m`` cells of one period (sum 1; a palindrome, so
    the grid is symmetric about 0; ``1/Δ`` each on ℤ). ``width`` is ``h``, the cell width of a
    uniform grid (Δ/m rounded up to a float, so that a shift by Δ moves a point at most ``m``
    cells even in floating point); 1 on ℤ, ``nan`` if graded. ``index`` is the cell
    ``j = −Km … Km−1`` (the ``j mod m``-th cell of period ``⌊j/m⌋``), or the integer ``j``
    (``−KΔ … KΔ``).
    """

    kind: GridKind
    sensitivity: float
    periods: int
    widths: FloatArray
    width: float
    index: IntArray

    @property
    def integer(self) -> bool:
        """Noise on ℤ."""
        return self.kind == GridKind.INTEGER

    @property
    def n(self) -> int:
        """Number of cells (points)."""
        return int(self.index.size)

    @property
    def resolution(self) -> int:
        """Cells per Δ, ``m`` (``Δ`` points on ℤ)."""
        return int(self.widths.size)

    @property
    def period(self) -> int:
        """Cells per Δ: the cell reach of a shift by Δ and the period of the tails."""
        return self.resolution

    @property
    def start(self) -> float:
        """Left edge of the first cell (the first integer)."""
        if self.kind == GridKind.GRADED:
            return -self.periods * self.sensitivity
        return float(self.index[0]) * self.width

    def mirror(self) -> IntArray:
        """Position of each cell's mirror image (``−1−j`` for cells, ``−j`` for points)."""
        return (self.n - 1 - np.arange(self.n)).astype(np.int64)

    def mass_per_unit(self) -> FloatArray:
        """Mass of each cell per unit of its variable ``x_j = Δ·f_j`` (``w_j``; ``1/Δ`` on ℤ)."""
        return np.tile(self.widths, self.n // self.period + 1)[: self.n]

    def cell_costs(self, cost: Cost) -> FloatArray:
        """Cost of each cell per unit of its variable: ``∫_cell c / Δ`` (``c(j)/Δ`` on ℤ)."""
        if self.integer:
            return np.asarray(cost(self.index.astype(np.float64)), dtype=np.float64) / self.period
        if self.kind == GridKind.UNIFORM:
            edges = self.width * np.arange(self.index[0], self.index[-1] + 2, dtype=np.float64)
            return np.asarray(cost.integral(edges[:-1], edges[1:]), dtype=np.float64) / (
                self.sensitivity
            )
        anchor, lo, hi = self._anchored(np.arange(-self.periods, self.periods))
        return anchored_integrals(cost, anchor, lo, hi) / self.sensitivity

    def tail_costs(self, cost: Cost, ratio: float) -> tuple[FloatArray, FloatArray]:
        """Cost of the geometric tails per unit of the first / last period's variables.

        Beyond the grid each side repeats its outermost period times ``ratio`` per period, so a
        unit of ``x_j`` there costs ``ratio·Σ_{k≥0} ratio^k ∫ c`` over the cell shifted outwards
        by ``(k + 1)Δ`` (`periodic_integral` / ``periodic_sum``).
        """
        left, right = (self._tail_cost(cost, ratio, side) for side in (-1, 1))
        return ratio * left, ratio * right

    def _tail_cost(self, cost: Cost, ratio: float, side: int) -> FloatArray:
        """`tail_costs` of one side (``-1`` left, ``1`` right), before the factor ``ratio``."""
        p, delta, h, outer = self.period, self.sensitivity, self.width, side > 0
        if self.integer:
            first = self.index[-1] + 1 if outer else self.index[0] - p
            pts = first + np.arange(p, dtype=np.float64)
            return np.asarray(cost.periodic_sum(pts, period=side * p, ratio=ratio)) / p
        if self.kind == GridKind.UNIFORM:
            a = (self.start + self.n * h if outer else self.start - p * h) + h * np.arange(p)
            cells = cost.periodic_integral(a, a + h, period=side * p * h, ratio=ratio)
            return np.asarray(cells) / delta
        a, lo, hi = self._anchored(np.array([self.periods if outer else -self.periods - 1]))
        return anchored_integrals(cost, a, lo, hi, period=side * delta, ratio=ratio) / delta

    def costs_with_tails(self, cost: Cost, ratio: float) -> FloatArray:
        """`cell_costs` with the tails' (`tail_costs`) added to the outermost periods' cells."""
        cells = np.array(self.cell_costs(cost), dtype=np.float64)
        if ratio > 0:
            left, right = self.tail_costs(cost, ratio)
            cells[: self.period] += left
            cells[-self.period :] += right
        return cells

    def _anchored(self, periods: IntArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Anchors and offsets of the cells of the given periods (graded grids).

        A cell in the left half of its period is measured from the period's start (prefix sums
        of the widths), one in the right half from its end (suffix sums), so the narrow cells at
        both ends keep their exact widths (`optmech.mechanisms.graded.anchored_integrals`).
        """
        w, delta = self.widths, self.sensitivity
        t = np.concatenate([[0.0], np.cumsum(w)])
        s = np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])
        right = t[:-1] >= 0.5
        shift = np.where(right, 1.0, 0.0)
        lo = np.where(right, -s[:-1], t[:-1]) * delta
        hi = np.where(right, -s[1:], t[1:]) * delta
        k = periods.astype(np.float64)[:, None] + shift[None, :]
        count = periods.size
        return (k * delta).reshape(-1), np.tile(lo, count), np.tile(hi, count)

    def centres(self) -> FloatArray:
        """Cell centres (the integers on ℤ), in absolute units (for reference densities)."""
        if self.integer:
            return self.index.astype(np.float64)
        if self.kind == GridKind.UNIFORM:
            return (self.index.astype(np.float64) + 0.5) * self.width
        anchor, lo, hi = self._anchored(np.arange(-self.periods, self.periods))
        return anchor + (lo + hi) / 2.0

    def expand(self, symmetric: bool) -> tuple[sp.csr_matrix, int]:
        """Map the value variables to the full grid (identity, or mirrored halves)."""
        n = self.n
        if not symmetric:
            return sp.identity(n, format="csr"), n
        half = (n + 1) // 2  # cells: n even; integers: n odd, the centre is its own mirror
        pos = np.arange(n)
        col = np.where(pos >= n - half, pos - (n - half), self.mirror() - (n - half))
        return sp.csr_matrix((np.ones(n), (pos, col)), shape=(n, half)), half


def graded_widths(
    epsilon: float, *, coarse: int = GRADED_COARSE, ratio: float = LADDER_RATIO
) -> FloatArray:
    """Relative widths of one period of the graded grid (module docstring), a palindrome: a ladder
    of edges of ratio ``ratio`` down to ``e^(−ε)``, ``coarse`` cells per Δ above (rounded up to
    an even number).

    Examples
    --------
    >>> w = graded_widths(20.0)
    >>> bool(abs(w.sum() - 1.0) < 1e-15 and np.allclose(w, w[::-1], rtol=0, atol=0))
    True
    >>> float(w[0]) < 1e-8 < float(w.max())
    True
    """
    c2 = 2 * math.ceil(coarse / 2)
    switch = min(0.5, 1.0 / (c2 * (1.0 - 1.0 / ratio)))  # where the ladder's spacing is 1/c2
    low = math.exp(-LADDER_DEPTH * epsilon)
    count = max(math.ceil(math.log(switch / low) / math.log(ratio)), 0) if low < switch else 0
    ladder = switch * ratio ** -np.arange(count + 1, dtype=np.float64)
    steps = max(math.ceil((0.5 - switch) * c2), 0)
    upper = np.linspace(switch, 0.5, steps + 1) if steps else np.array([0.5])
    edges = np.unique(np.concatenate([[0.0], ladder, upper]))
    half = np.diff(edges)
    widths = np.concatenate([half, half[::-1]])
    return widths / widths.sum()


def make_grid(
    kind: GridKind, sensitivity: float, periods: int, *, cells: int, epsilon: float = 0.0
) -> AdditiveGrid:
    """Build a grid: ``cells`` per Δ (uniform), the coarse part (graded), or Δ points (ℤ)."""
    if kind == GridKind.INTEGER:
        delta = int(sensitivity)
        index = np.arange(-periods * delta, periods * delta + 1, dtype=np.int64)
        return AdditiveGrid(kind, float(delta), periods, np.full(delta, 1.0 / delta), 1.0, index)
    if kind == GridKind.UNIFORM:
        index = np.arange(-periods * cells, periods * cells, dtype=np.int64)
        widths = np.full(cells, 1.0 / cells)
        return AdditiveGrid(
            kind, sensitivity, periods, widths, uniform_width(sensitivity, cells), index
        )
    widths = graded_widths(epsilon, coarse=cells)
    m = widths.size
    index = np.arange(-periods * m, periods * m, dtype=np.int64)
    return AdditiveGrid(kind, sensitivity, periods, widths, math.nan, index)
