"""Closing a 2-D grid density beyond its box: ε-DP tail shapes, their exact mass and cost.

A density designed on the cells of a box ``[−n₀h, n₀h)²`` must continue outside it: mass next
to zero mass is never ε-DP. In 1-D the last period continues geometrically with ratio ``e^−ε``
per Δ. In 2-D the product of such continuations is not ε-DP for the ℓ∞ ball: the shift
``(Δ, Δ)`` is in the ball and moves a corner cell one period out in *both* coordinates,
a ratio ``e^(2ε)``. Here the outside is a non-negative combination ``Σ_l t_l S_l`` of fixed
shapes ``S_l``, each ε-DP on its own for *every* pair of cells, so that only the pairs with a
cell in the box need rows in an LP (a sum of non-negative ε-DP functions is ε-DP:
``(a₁ + a₂)/(b₁ + b₂) ≤ max(a₁/b₁, a₂/b₂)``):

`GaugeTail`
    ``S(i, j) = b^k``, ``k = ceil(G(c) − γ)`` at the cell's centre ``c = (i + ½, j + ½)``, with
    ``G`` the gauge of the convex hull ``P`` of the footprint ``F`` (the offsets of the pairs
    of cells a shift connects,
    `optmech.certify.noise2d.footprint`) and ``b = e^−ε``.
    ``G`` is sublinear and ``G(d) ≤ 1`` on ``F``, so ``k`` changes by at most 1 between
    connected cells: ``S`` is ε-DP. Its level sets are the polygons ``∂(λP)``: the staircase
    of Geng, Kairouz, Oh & Viswanath (2015) for the norm the grid resolves (``P`` is the ball
    of radius Δ, grown by a cell), with its step at ``γ`` (a fraction ``a/q``, so that every
    module computes the same integer ``k``). Since ``P`` is a lattice polygon, ``ceil(G)`` is
    the graph distance in connected cells (lattice polygons are normal), the fastest decay
    ε-DP allows.
`ProductTail`
    ``S(i, j) = s(i)s(j)``, two 1-D cell staircases with ratio ``ρ = e^(−ε/2)`` per period of
    ``m`` cells (``g`` high cells each): ε-DP whenever the footprint lies in ``[−m, m]²``, as
    it does for all three balls (they lie in ``[−Δ, Δ]²``). With it, two independent 1-D
    staircases at ε/2 are a point of the design's LP.

`tail_sums` computes ``Σ_{q ∉ box} S(q)·h²`` (mass) and ``Σ S(q)∫_q c`` (cost) over the
cells outside the box, ring by ring of ``max(|i'|, |j'|)`` on one octant (the shapes are
invariant under the dihedral group), with cell averages exact for ℓ1 and ℓ∞ costs and
bracketed for others (quadrature near the box, ``[‖m‖, ‖m‖ + h²/(12‖m‖)]`` for the ℓ2 norm
at a far cell's midpoint ``m``: Jensen below, ``‖m + u‖ ≤ ‖m‖ + ⟨m̂, u⟩ + |u|²/(2‖m‖)``
above). The rings stop when a rigorous bound on the rest (ring counts times a bound of the
shape and of the cost on each ring) falls below ``2^−60`` of the sums; that bound is returned
too, so the sums are an interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray

__all__ = [
    "GaugeTail",
    "ProductTail",
    "TailShape",
    "TailSums",
    "gauge_fraction",
    "gauge_polygon",
    "sample_outside",
    "shape_values",
    "tail_sums",
]


#: The rings stop when the rest is below this fraction of the sums.
REST_RTOL = 2.0**-60
#: Cells per chunk of the ring enumeration.
_CHUNK = 1 << 18
#: Rings of near cells (from the box) whose ℓ2 averages use the quadrature.
_NEAR_RINGS = 3


def _fold(i: IntArray) -> IntArray:
    return np.where(i >= 0, i, -1 - i)


def gauge_polygon(offsets: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """Facets ``(normals, heights)`` of the convex hull of integer points: ``n·x ≤ h``.

    Andrew's monotone chain in exact integers; each normal is primitive (its entries coprime)
    and points outwards. The hull must contain the origin in its interior (``h > 0``).

    Examples
    --------
    >>> n, h = gauge_polygon([[1, 0], [-1, 0], [0, 1], [0, -1]])
    >>> sorted(zip(n.tolist(), h.tolist()))
    [([-1, -1], 1), ([-1, 1], 1), ([1, -1], 1), ([1, 1], 1)]
    """
    pts = sorted({(int(a), int(b)) for a, b in np.asarray(offsets, dtype=np.int64).tolist()})

    def cross(o: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> int:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[int, int]] = []
    upper: list[tuple[int, int]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = lower[:-1] + upper[:-1]  # counter-clockwise
    normals, heights = [], []
    for u, v in zip(hull, hull[1:] + hull[:1], strict=True):
        n = (v[1] - u[1], u[0] - v[0])
        g = math.gcd(*n)
        n = (n[0] // g, n[1] // g)
        normals.append(n)
        heights.append(n[0] * u[0] + n[1] * u[1])
    h = np.asarray(heights, dtype=np.int64)
    if np.any(h <= 0):
        raise ValueError("the hull of `offsets` must contain the origin in its interior.")
    return np.asarray(normals, dtype=np.int64), h


def gauge_fraction(
    normals: IntArray, heights: IntArray, i: npt.ArrayLike, j: npt.ArrayLike
) -> tuple[IntArray, IntArray]:
    """The gauge ``G = max_l n_l·v/(2h_l)`` of the polygon ``n_l·x ≤ h_l`` at the doubled cell
    centres ``v = (2i + 1, 2j + 1)``, as an exact fraction ``(num, den)``, ``den > 0``: the
    numerator and denominator of the maximising facet (compared by cross-multiplication).

    Every gauge tail of one polygon is a function of it, so tails that differ only in their
    step position share this work (`shape_values`).

    Examples
    --------
    >>> num, den = gauge_fraction(np.array([[1, 0], [0, 1], [-1, 0], [0, -1]]),
    ...                           np.array([1, 1, 1, 1]), np.array([0, 2]), np.array([-3, 0]))
    >>> (num / den).tolist()  # max(|2i + 1|, |2j + 1|) / 2
    [2.5, 2.5]
    """
    v1 = 2 * np.asarray(i, dtype=np.int64) + 1
    v2 = 2 * np.asarray(j, dtype=np.int64) + 1
    best_num, best_den = None, None
    for (n1, n2), h in zip(normals.tolist(), heights.tolist(), strict=True):
        num = n1 * v1 + n2 * v2
        if best_num is None or best_den is None:
            best_num, best_den = num, np.full(num.shape, 2 * h, dtype=np.int64)
            continue
        better = num * best_den > best_num * (2 * h)
        best_num = np.where(better, num, best_num)
        best_den = np.where(better, 2 * h, best_den)
    assert best_num is not None and best_den is not None
    return best_num, best_den


def shape_values(shapes: Sequence[Tail], i: npt.ArrayLike, j: npt.ArrayLike) -> FloatArray:
    """``S_l(i, j)`` of each shape, stacked (shape ``(len(shapes),) + i.shape``): the same as
    ``[s.values(i, j) for s in shapes]``, with each polygon's gauge computed once."""
    fractions: dict[tuple[bytes, bytes], tuple[IntArray, IntArray]] = {}
    out = []
    for shape in shapes:
        if isinstance(shape, GaugeTail):
            key = (shape.normals.tobytes(), shape.heights.tobytes())
            if key not in fractions:
                fractions[key] = gauge_fraction(shape.normals, shape.heights, i, j)
            levels = shape.levels_at(*fractions[key])
            out.append(np.power(shape.ratio, levels.astype(np.float64)))
        else:
            out.append(shape.values(i, j))
    return np.stack(out)


class TailShape:
    """What the tail shapes share: ``S(i, j) = ratio^levels(i, j)``, decaying geometrically.

    Subclasses give ``ratio``, the integer ``levels`` and ``rings_per_level`` (the rings of
    ``max(|i'|, |j'|)`` over which the level grows by at least 1, so that ``S`` on ring ``r``
    is a constant times `decay` to the ``r``).
    """

    ratio: float

    def levels(self, i: npt.ArrayLike, j: npt.ArrayLike) -> IntArray:
        """The integer level of each cell ``(i, j)``."""
        raise NotImplementedError

    @property
    def rings_per_level(self) -> int:
        """Rings per unit of level growth."""
        raise NotImplementedError

    def values(self, i: npt.ArrayLike, j: npt.ArrayLike) -> FloatArray:
        """``S(i, j)`` (scale 1)."""
        return np.power(self.ratio, self.levels(i, j).astype(np.float64))

    @property
    def decay(self) -> float:
        """``β``: ``ring_bound`` is a constant times ``β^r``."""
        return float(self.ratio ** (1.0 / self.rings_per_level))


@dataclass(frozen=True)
class GaugeTail(TailShape):
    """The gauge staircase ``b^ceil(G(c) − γ)`` of a footprint's hull (module docstring).

    Attributes
    ----------
    normals, heights : ndarray of int64
        Facets ``n_l·x ≤ h_l`` of the hull (`gauge_polygon`).
    gamma : Fraction
        The step's position in each level, in [0, 1).
    ratio : float
        ``b``, in (0, 1]: the shape is ``log(1/b)``-DP.
    """

    normals: IntArray = field(repr=False)
    heights: IntArray = field(repr=False)
    gamma: Fraction
    ratio: float

    @property
    def reach(self) -> int:
        """``max ‖x‖∞`` over the polygon (its vertices are lattice points)."""
        return int(max(np.max(np.abs(self._vertices())), 1))

    def _vertices(self) -> IntArray:
        n, h = self.normals, self.heights
        k = n.shape[0]
        out = []
        for a in range(k):  # consecutive facets meet at a vertex
            b = (a + 1) % k
            det = n[a, 0] * n[b, 1] - n[a, 1] * n[b, 0]
            x = (h[a] * n[b, 1] - h[b] * n[a, 1]) // det
            y = (n[a, 0] * h[b] - n[b, 0] * h[a]) // det
            out.append((x, y))
        return np.asarray(out, dtype=np.int64)

    def levels(self, i: npt.ArrayLike, j: npt.ArrayLike) -> IntArray:
        """``k(i, j)`` exactly (integers;
        `optmech.certify.noise2d.tail_values`)."""
        return self.levels_at(*gauge_fraction(self.normals, self.heights, i, j))

    def levels_at(self, num: IntArray, den: IntArray) -> IntArray:
        """``k = ⌈G − γ⌉`` from the gauge ``G = num/den`` of `gauge_fraction`
        (exact integer arithmetic: ``⌈max_l x_l − γ⌉ = max_l ⌈x_l − γ⌉``)."""
        a, q = self.gamma.numerator, self.gamma.denominator
        return -((a * den - q * num) // (q * den))

    def ring_bound(self, rings: FloatArray) -> FloatArray:
        """``S ≤ b^((r + ½)/w − 1)`` on the ring ``max(i', j') = r`` (``G ≥ ‖c‖∞/w``)."""
        return np.power(self.ratio, (rings + 0.5) / self.reach - 1.0)

    @property
    def rings_per_level(self) -> int:
        """``w``: the level grows by at least 1 every ``w`` rings (the polygon's reach)."""
        return self.reach

    def description(self, scale: float) -> tuple[Any, ...]:
        """The shape as
        `optmech.certify.noise2d.noise2d_epsilon` reads
        it."""
        g = (self.gamma.numerator, self.gamma.denominator)
        return ("gauge", scale, self.normals, self.heights, g, self.ratio)


@dataclass(frozen=True)
class ProductTail(TailShape):
    """``s(i)s(j)``: two 1-D cell staircases, ``period`` cells per Δ, ``high`` cells on top.

    Attributes
    ----------
    period, high : int
        ``m`` and ``g`` (1 ≤ g ≤ m).
    ratio : float
        ``ρ`` per period; the shape is ``2 log(1/ρ)``-DP for footprints in ``[−m, m]²``.
    """

    period: int
    high: int
    ratio: float

    def levels(self, i: npt.ArrayLike, j: npt.ArrayLike) -> IntArray:
        """``n(i) + n(j)``."""
        m, g = self.period, self.high
        fi, fj = _fold(np.asarray(i, dtype=np.int64)), _fold(np.asarray(j, dtype=np.int64))
        return fi // m + (fi % m >= g) + fj // m + (fj % m >= g)

    def ring_bound(self, rings: FloatArray) -> FloatArray:
        """``S ≤ ρ^(r/m − 1)`` on the ring ``max(i', j') = r``."""
        return np.power(self.ratio, rings / self.period - 1.0)

    @property
    def rings_per_level(self) -> int:
        """``m``: one level per period of cells."""
        return self.period

    def description(self, scale: float) -> tuple[Any, ...]:
        """The shape as
        `optmech.certify.noise2d.noise2d_epsilon` reads
        it."""
        return ("product", scale, self.period, self.high, self.ratio)


Tail = GaugeTail | ProductTail


@dataclass(frozen=True)
class TailSums:
    """``Σ_{q ∉ box} S(q)·h²`` in ``[mass, mass + mass_rest]`` and ``Σ S(q)∫_q c`` in
    ``[cost_low, cost_high]``."""

    mass: float
    mass_rest: float
    cost_low: float
    cost_high: float

    @property
    def cost(self) -> float:
        """The midpoint of the cost's interval."""
        return 0.5 * (self.cost_low + self.cost_high)


def _ring_cells(first: int, last: int) -> tuple[IntArray, IntArray, FloatArray]:
    """Octant cells ``0 ≤ a ≤ r`` of the rings ``r = first … last − 1`` and their
    multiplicities (8, or 4 on the diagonal and the axis of the fold)."""
    r = np.arange(first, last, dtype=np.int64)
    counts = r + 1
    rr = np.repeat(r, counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    aa = np.arange(rr.size, dtype=np.int64) - np.repeat(starts, counts)
    mult = np.where(aa == rr, 4.0, 8.0)
    return aa, rr, mult


def _box_averages(cost: Any, lo: FloatArray, h: float, near: bool) -> tuple[FloatArray, FloatArray]:
    """Lower and upper ends of the cost's averages over the boxes ``[lo, lo + h]``.

    Exact averages where the cost has them; the ℓ2 norm at far cells by its Taylor expansion
    at the midpoint ``m``: ``‖m‖ + h²/(24‖m‖)`` (the Laplacian of ``‖x‖`` is ``1/‖x‖``; odd
    terms vanish on the square), with remainder at most ``E|u|⁴/24·12/ρ³ = 7h⁴/(360ρ³)``
    (``|d⁴/dt⁴ ‖x + tu‖| ≤ 12|u|⁴/‖x + tu‖³``, ``E|u|⁴ = 7h⁴/180``, ``ρ = ‖m‖ − h/√2`` the
    cell's distance from 0); otherwise the quadrature and its stated error.
    """
    hi = lo + h
    exact = getattr(cost, "has_exact_cell_average", None)
    if exact is not None and exact(2):
        avg = np.asarray(cost.cell_average(lo, hi), dtype=np.float64)
        return avg, avg
    if not near and getattr(cost, "order", None) == 2.0 and getattr(cost, "power", None) == 1.0:
        mid = np.hypot(lo[:, 0] + 0.5 * h, lo[:, 1] + 0.5 * h)
        centre = mid + h * h / (24.0 * mid)
        rest = 7.0 * h**4 / (360.0 * (mid - h / math.sqrt(2.0)) ** 3) + 4e-16 * mid
        return centre - rest, centre + rest
    avg, err = cost.cell_average(lo, hi, return_error=True)
    avg, err = np.asarray(avg, dtype=np.float64), np.asarray(err, dtype=np.float64)
    return avg - err, avg + err


def _cell_averages(
    cost: Any, a: IntArray, r: IntArray, mult: FloatArray, h: float, near: bool
) -> tuple[FloatArray, FloatArray]:
    """Sums of the cost's averages over the ``mult`` images of each octant cell
    ``[ah, (a+1)h] × [rh, (r+1)h]`` under the dihedral group (low and high ends).

    A cost invariant under the whole group needs the cell itself; one invariant under sign
    changes only, the cell and its mirror image in the diagonal; any other, all images.
    """
    lo = np.stack([a * h, r * h], axis=-1).astype(np.float64)
    group = getattr(cost, "symmetry", "dihedral")
    if group == "dihedral":
        low, high = _box_averages(cost, lo, h, near)
        return mult * low, mult * high
    diagonal = mult == 4.0
    signs = (
        [(1.0, 1.0)] if group == "reflections" else [(sx, sy) for sx in (1, -1) for sy in (1, -1)]
    )
    weight = 4.0 / len(signs)
    low, high = np.zeros(a.size), np.zeros(a.size)
    for swap in (False, True):
        base = lo[:, ::-1] if swap else lo
        keep = np.where(diagonal & swap, 0.0, weight)
        for sx, sy in signs:
            corner = np.where(np.array([sx, sy]) > 0, base, -base - h)
            lw, hg = _box_averages(cost, corner, h, near)
            low, high = low + keep * lw, high + keep * hg
    return low, high


def _series_rest(beta: float, start: int, degree: int) -> float:
    """``Σ_{r ≥ start} (r + 1)^degree β^r``, rounded up (terms summed, then a geometric bound).

    Beyond ``r₁`` where ``β((r₁ + 2)/(r₁ + 1))^degree ≤ ρ = (1 + β)/2``, each term is at
    most ``ρ`` times the previous one.
    """
    if beta <= 0.0:
        return 0.0
    rho = 0.5 * (1.0 + beta)
    r1 = max(start, math.ceil(degree / max(math.log(rho / beta), 1e-300)))
    r = np.arange(start, r1 + 1, dtype=np.float64)
    with np.errstate(under="ignore"):
        terms = np.exp(degree * np.log1p(r) + r * math.log(beta))
    last = float(terms[-1])
    return float(np.sum(terms)) * (1.0 + 1e-12) + last * rho / (1.0 - rho)


def _growth(cost: Any, h: float) -> tuple[float, float]:
    """``(K, p)`` with cost ``≤ K (r + 1)^p`` on the ring ``r`` (``‖x‖∞ ≤ (r + 1)h``).

    A norm power: ``‖x‖_q^p ≤ (2‖x‖∞)^p``; a declared growth ``C(1 + ‖x‖∞)^p`` is at most
    ``C(1 + h)^p (r + 1)^p``.
    """
    if cost is None:
        return 0.0, 0.0
    growth = getattr(cost, "growth", None)
    if growth is not None:
        return growth[0] * (1.0 + h) ** growth[1], growth[1]
    return (2.0 * h) ** cost.power, cost.power


def _rest(shape: Tail, first: int, h: float, growth: tuple[float, float]) -> tuple[float, float]:
    """Bounds on the mass and cost of the rings from ``first`` on.

    Ring ``r`` has ``8r + 4 ≤ 8(r + 1)`` cells, ``S ≤ C β^r`` and a cost at most
    ``K (r + 1)^p`` (`_growth`).
    """
    beta = shape.decay
    c = float(shape.ring_bound(np.zeros(1))[0])
    mass = 8.0 * h * h * c * _series_rest(beta, first, 1)
    k, power = growth
    cost = 8.0 * h * h * c * k * _series_rest(beta, first, math.ceil(power) + 1)
    return mass, cost


@overload
def tail_sums(shapes: Tail, cells: int, width: float, cost: Any = None) -> TailSums: ...
@overload
def tail_sums(
    shapes: Sequence[Tail], cells: int, width: float, cost: Any = None
) -> list[TailSums]: ...
def tail_sums(
    shapes: Tail | Sequence[Tail], cells: int, width: float, cost: Any = None
) -> TailSums | list[TailSums]:
    """Mass and cost of each shape over the cells outside the box ``[−n₀, n₀)²`` (docstring).

    Parameters
    ----------
    shapes : GaugeTail, ProductTail or a sequence of them
        The tail shapes (scale 1); a sequence shares one enumeration of the cells (and their
        cost averages).
    cells : int
        ``n₀``: cells from the centre to the box's edge.
    width : float
        ``h``.
    cost : Norm or VectorCustom, optional
        A 2-D cost (`optmech.costs.vector`: cell averages, symmetry,
        growth). None: the masses only (the cost fields are 0).

    Returns
    -------
    TailSums or list of TailSums
        One per shape (a single one for a single shape).
    """
    single = isinstance(shapes, TailShape)
    items: list[Tail] = [shapes] if isinstance(shapes, TailShape) else list(shapes)
    h = float(width)
    growth = _growth(cost, h)
    k = len(items)
    mass, cost_low, cost_high = np.zeros(k), np.zeros(k), np.zeros(k)
    first = cells
    reach = max(int(getattr(t, "reach", getattr(t, "period", 1))) for t in items)
    near_end = cells + _NEAR_RINGS * reach
    while True:
        span = max(1, min(_CHUNK // (first + 1), 4 + (first - cells) // 2))  # growing chunks
        if first < near_end:  # the near rings form a chunk of their own
            span = min(span, near_end - first)
        a, r, mult = _ring_cells(first, first + span)
        values = shape_values(items, a, r) * (h * h)
        mass += np.sum(values * mult, axis=1)
        if cost is not None:
            low, high = _cell_averages(cost, a, r, mult, h, first < near_end)
            cost_low += np.sum(values * low, axis=1)
            cost_high += np.sum(values * high, axis=1)
        first += span
        rests = [_rest(t, first, h, growth) for t in items]
        rest_mass = np.array([x[0] for x in rests])
        rest_cost = np.array([x[1] for x in rests])
        if np.all(rest_mass <= REST_RTOL * mass) and (
            cost is None or np.all(rest_cost <= REST_RTOL * cost_high)
        ):
            break
    # Positive terms, each with a few roundings, summed pairwise by numpy (error at most
    # log2(n)·u of the sum per chunk) over at most a few thousand chunks: 1e-12 relative
    # covers them all.
    rest_mass = rest_mass + mass * 1e-12
    out = [
        TailSums(
            float(mass[i]),
            float(rest_mass[i]),
            0.0 if cost is None else float(cost_low[i] * (1.0 - 1e-12)),
            0.0 if cost is None else float(cost_high[i] * (1.0 + 1e-12) + rest_cost[i]),
        )
        for i in range(k)
    ]
    return out[0] if single else out


# -- sampling -------------------------------------------------------------------------------
def _ring_cell(r: IntArray, k: IntArray) -> tuple[IntArray, IntArray]:
    """The ``k``-th of the ``8r + 4`` cells with ``max(i', j') = r`` (four sides of 2r + 1)."""
    side, pos = np.divmod(k, 2 * r + 1)
    i = np.select([side == 0, side == 1, side == 2], [r, r - pos, -1 - r], default=-1 - r + pos)
    j = np.select([side == 0, side == 1, side == 2], [-1 - r + pos, r, r - pos], default=-1 - r)
    return i, j


def _sample_gauge(
    shape: GaugeTail, cells: int, n: int, rng: np.random.Generator
) -> tuple[IntArray, IntArray]:
    """Exact rejection sampler of the cells ``q ∉ box`` with probability ``∝ S(q)``.

    Envelope: ring ``r = n₀ + u`` with weight ``(8r + 4)β^u`` — a mixture of
    ``NegBin(2, 1 − β)`` (weight ``8/(1 − β)²``, the part ``8(u + 1)β^u``) and a geometric
    (weight ``(8n₀ − 4)/(1 − β)``) — then a uniform cell of the ring, accepted with
    probability ``S(q)/(C β^r)`` (`GaugeTail.ring_bound`).
    """
    beta = shape.decay
    w_a, w_b = 8.0 / (1.0 - beta) ** 2, (8.0 * cells - 4.0) / (1.0 - beta)
    out_i: list[IntArray] = []
    out_j: list[IntArray] = []
    got = 0
    while got < n:
        batch = max(64, 2 * (n - got))
        first = rng.random(batch) < w_a / (w_a + w_b)
        u = np.where(
            first,
            rng.negative_binomial(2, 1.0 - beta, batch),
            rng.geometric(1.0 - beta, batch) - 1,
        ).astype(np.int64)
        r = cells + u
        i, j = _ring_cell(r, (rng.random(batch) * (8 * r + 4)).astype(np.int64))
        keep = rng.random(batch) * shape.ring_bound(r.astype(np.float64)) < shape.values(i, j)
        out_i.append(i[keep])
        out_j.append(j[keep])
        got += int(np.sum(keep))
    return np.concatenate(out_i)[:n], np.concatenate(out_j)[:n]


def _staircase_cells(
    shape: ProductTail, cells: int, n: int, rng: np.random.Generator, outside: bool
) -> IntArray:
    """1-D cells ``i`` with probability ``∝ s(i)``, outside ``[−n₀, n₀)`` or inside it."""
    m, g, rho = shape.period, shape.high, shape.ratio
    within = np.where(np.arange(m) < g, 1.0, rho)
    if outside:  # n₀ is a whole number of periods: a geometric period, then a cell of it
        period = cells // m + rng.geometric(1.0 - rho, n) - 1
        fold = period * m + rng.choice(m, size=n, p=within / within.sum())
    else:
        f = np.arange(cells)
        weights = rho ** (f // m) * within[f % m]
        fold = rng.choice(cells, size=n, p=weights / weights.sum())
    sign = rng.random(n) < 0.5
    return np.where(sign, fold, -1 - fold).astype(np.int64)


def _sample_product(
    shape: ProductTail, cells: int, n: int, rng: np.random.Generator
) -> tuple[IntArray, IntArray]:
    """Exact sampler of the product shape outside the box: ``{i out} ∪ {i in, j out}``."""
    m, g, rho = shape.period, shape.high, shape.ratio
    per_period = g + (m - g) * rho
    z_in = per_period * (1.0 - rho ** (cells // m)) / (1.0 - rho)  # one side
    z_out = per_period * rho ** (cells // m) / (1.0 - rho)
    p_first = z_out * (z_in + z_out) / (z_out * (z_in + z_out) + z_in * z_out)
    first = rng.random(n) < p_first
    i_out = _staircase_cells(shape, cells, n, rng, True)
    i_in = _staircase_cells(shape, cells, n, rng, False)
    j_any = np.where(
        rng.random(n) < z_out / (z_in + z_out),
        _staircase_cells(shape, cells, n, rng, True),
        _staircase_cells(shape, cells, n, rng, False),
    )
    j_out = _staircase_cells(shape, cells, n, rng, True)
    return np.where(first, i_out, i_in), np.where(first, j_any, j_out)


def sample_outside(
    shape: Tail, cells: int, n: int, rng: np.random.Generator
) -> tuple[IntArray, IntArray]:
    """``n`` cells outside the box ``[−n₀, n₀)²``, drawn with probability ``∝ S(q)`` (exact)."""
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    if isinstance(shape, GaugeTail):
        return _sample_gauge(shape, cells, n, rng)
    return _sample_product(shape, cells, n, rng)
