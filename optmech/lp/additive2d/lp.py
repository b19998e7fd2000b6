"""Build the 2-D additive-noise LP of an `AdditiveSpec2D`.

``min c·x  s.t.  A x ≤ 0 (named row blocks),  Σ_j a_j x_j = 1,  x ≥ 0`` with ``x`` holding

* ``z_k = Δ²·f`` on the cells of orbit ``k`` of the box ``[−n₀h, n₀h)²`` under the cost's
  symmetry group (one variable per orbit: the grid, the ball, the tails and the rows are
  invariant, so averaging an optimum over the group loses nothing; ``h`` is ``Δ/m`` rounded
  up, so a shift by Δ reaches at most the ``m``-cell footprint);
* ``t_l``, the scale of each tail shape
(`optmech.mechanisms.tails2d`): the density is
  ``Σ_l t_l S_l(q)/Δ²`` on every cell ``q`` outside the box;
* the auxiliaries of the window rows
(`optmech.lp.additive2d.windows`).

``a_j`` is the mass of a unit of ``x_j`` (orbit size times ``h²/Δ²``; a tail's series of masses),
``c_j`` its cost: exact cell averages of the cost (ℓ1, ℓ∞) or their lower ends (quadrature with a
stated error; `AdditiveLP2D.weights_high` holds the upper ends, which give the design's value), and
the tails' series (`tail_sums`).

Rows (all ``≤ 0``):

``"window"``
    ``f(p) ≤ e^ε f(q)`` for box cells ``q − p ∈ F`` (`optmech.certify.noise2d.footprint`).
``"band"``
    The pairs of a box cell ``p`` and a cell ``q ∉ box`` within reach:
    ``z_p ≤ e^ε Σ_l t_l S_l(q)`` and ``Σ_l t_l S_l(q) ≤ e^ε z_p``. Only the tuples
    ``(S_l(q))_l`` that are minimal (first kind) or maximal (second kind) among ``p``'s
    neighbours matter: the others are implied, since the ``t_l`` are ≥ 0.

Pairs of two cells outside the box need no row: each shape is ε-DP on its own and a sum of
non-negative ε-DP functions is ε-DP. So the rows are exactly ε-DP of the density on all of ℝ².

**What the solver sees.** Values span ``e^(−2εK)`` across the box, far beyond absolute solver
tolerances, so each column is divided by its value at a feasible reference — the gauge tail shape
itself, continued into the box — the objective by that reference's cost, and each row by the
geometric mean of its extreme coefficients (as the 1-D graded LP does, `optmech.lp.additive.lp`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from optmech._floats import FloatArray, IntArray
from optmech._floats import U as _U
from optmech.certify.noise2d import footprint, row_half_widths
from optmech.lp.additive2d.spec import AdditiveSpec2D
from optmech.lp.additive2d.windows import WindowSystem2D, window_system_2d
from optmech.lp.engine.readout import LPReadout
from optmech.lp.engine.rounding import tail_ratio_for, uniform_width
from optmech.lp.engine.rows import RowBlock, RowRecord
from optmech.lp.solve import Strategy
from optmech.mechanisms.tails2d import (
    GaugeTail,
    ProductTail,
    TailSums,
    gauge_polygon,
    shape_values,
    tail_sums,
)

__all__ = ["AdditiveLP2D", "build_additive_lp_2d", "orbits"]

Tail = GaugeTail | ProductTail

#: Entries of the comparison array of one chunk of `_pareto`.
_PARETO_CHUNK = 1 << 22


def orbits(cells: int, group: str) -> tuple[IntArray, IntArray, FloatArray]:
    """Orbit of each cell of the box ``[−n₀, n₀)²`` (row-major), a representative of each
    orbit (flat index) and the orbit sizes.

    The group acts by ``i ↦ −1 − i`` in each coordinate (``'reflections'``) and also by the
    swap ``(i, j) ↦ (j, i)`` (``'dihedral'``); the representative has ``0 ≤ i ≤ j``.

    Examples
    --------
    >>> orbit, reps, sizes = orbits(2, "dihedral")
    >>> reps.size, sizes.tolist()
    (3, [4.0, 8.0, 4.0])
    """
    n = 2 * cells
    idx = np.arange(-cells, cells, dtype=np.int64)
    i, j = np.meshgrid(idx, idx, indexing="ij")
    if group == "none":
        key = ((i + cells) * n + (j + cells)).ravel()
    else:
        fi, fj = np.where(i >= 0, i, -1 - i), np.where(j >= 0, j, -1 - j)
        if group == "dihedral":
            fi, fj = np.minimum(fi, fj), np.maximum(fi, fj)
        key = (fi * cells + fj).ravel()
    _, first, orbit, sizes = np.unique(
        key, return_index=True, return_inverse=True, return_counts=True
    )
    if group != "none":  # representative in the first quadrant: i = fi, j = fj
        fi_r, fj_r = np.divmod(key[first], cells)
        first = (fi_r + cells) * n + (fj_r + cells)
    return orbit.astype(np.int64), first.astype(np.int64), sizes.astype(np.float64)


def _product_high(spec: AdditiveSpec2D) -> int:
    """``g`` of the product tail: the best 1-D staircase at ε/2 on the grid for ``|x|``."""
    from optmech.costs import Absolute
    from optmech.mechanisms.staircase import Staircase

    m = spec.resolution
    costs = [
        Staircase(epsilon=spec.epsilon / 2, sensitivity=1.0, gamma=g / m).expected_cost(Absolute())
        for g in range(1, m + 1)
    ]
    return int(np.argmin(costs)) + 1


#: The balls whose gauge tails close a design, by the ball of shifts: that ball and every
#: larger one (ℓ1 ⊂ ℓ2 ⊂ ℓ∞), so that the designs' classes are nested like the balls.
TAIL_BALLS = {"l1": ("l1", "l2", "linf"), "l2": ("l2", "linf"), "linf": ("linf",)}


def make_tails(spec: AdditiveSpec2D) -> tuple[Tail, ...]:
    """The tail shapes of a spec (module docstring).

    For the ball of shifts and every larger one among ℓ1 ⊂ ℓ2 ⊂ ℓ∞ (`TAIL_BALLS`), the gauge
    staircases of its footprint's hull with their steps at each of ``γ = (2j + 1)/(2m)``,
    ``j = 0 … m − 1`` (or at ``spec.gamma`` alone): each is ε-DP for the smaller footprint too. Then
    the product of two 1-D staircases at ε/2 (``tails="gauge+product"``).
    """
    m = spec.resolution
    ratio = tail_ratio_for(spec.epsilon)
    steps = [Fraction(2 * j + 1, 2 * m) for j in range(m)] if spec.gamma is None else [spec.gamma]
    shapes: list[Tail] = []
    for ball in TAIL_BALLS[spec.sensitivity_norm]:
        normals, heights = gauge_polygon(footprint(ball, m))
        shapes += [GaugeTail(normals, heights, g, ratio) for g in steps]
    if spec.tails == "gauge+product":
        shapes.append(ProductTail(m, _product_high(spec), tail_ratio_for(spec.epsilon / 2.0)))
    return tuple(shapes)


def gauge_value(tail: GaugeTail, i: IntArray, j: IntArray) -> FloatArray:
    """``G`` at the centres of cells ``(i, j)``: every gauge tail is a non-increasing function
    of it (exact for comparisons: a ratio of small integers, correctly rounded)."""
    v1, v2 = 2 * i + 1, 2 * j + 1
    values = [
        (n1 * v1 + n2 * v2) / (2.0 * h)
        for (n1, n2), h in zip(tail.normals.tolist(), tail.heights.tolist(), strict=True)
    ]
    return np.max(np.stack(values), axis=0)


@dataclass(frozen=True)
class AdditiveLP2D(LPReadout):
    """A built 2-D LP and what is needed to read a noise off its solution.

    The fields and methods the certified interval uses (``weights``, ``mass``, ``rows``,
    ``num_aux``, ``aux_upper`` and those of `LPReadout`) mean what they mean for the 1-D LP, so the
    engine's `lp_interval` applies as it is.

    ``width`` is ``h``; ``orbit``, ``reps``, ``sizes`` are the box's `orbits`; ``tails`` the tail
    shapes in the order of their variables, ``sums`` their masses and costs outside the box (scale
    1, densities in units of ``1/Δ²``). ``weights`` and ``weights_high`` are the lower and upper
    ends of the cost of a unit of each variable (0 for the ``num_aux`` auxiliaries of ``window``),
    ``mass`` its mass (tails: the lower end of their series, ``mass_rtol`` the relative width of
    those intervals). ``reference`` is a feasible point (values and tails, normalised: the gauge
    tail shape everywhere), ``columns`` the solver's scale of the values and tails
    (`solver_scale`), ``scale`` the reference's cost (the objective is divided by it).
    """

    spec: AdditiveSpec2D
    width: float
    orbit: IntArray
    reps: IntArray
    sizes: FloatArray
    tails: tuple[Tail, ...]
    sums: tuple[TailSums, ...]
    weights: FloatArray
    num_aux: int
    weights_high: FloatArray
    mass: FloatArray
    mass_rtol: float
    rows: RowRecord
    window: WindowSystem2D
    reference: FloatArray
    columns: FloatArray
    scale: float
    build_time: float

    # -- sizes ----------------------------------------------------------------------------------
    @property
    def num_reps(self) -> int:
        """Value variables of the box (orbits)."""
        return int(self.reps.size)

    def box(self, values: FloatArray) -> FloatArray:
        """The box's ``2n₀ × 2n₀`` array of the orbit values ``values[:num_reps]``."""
        n = 2 * self.spec.cells
        return np.asarray(values[: self.num_reps])[self.orbit].reshape(n, n)

    # -- attempts ------------------------------------------------------------------------------
    def for_strategy(self, strategy: Strategy | None) -> AdditiveLP2D:
        """The same LP as a fresh cvxpy problem for one solver attempt (rows balanced, columns by
        `solver_scale`; `attempt`)."""
        return self.attempt(strategy, self.solver_scale(), balanced=True)  # type: ignore[no-any-return]

    def solver_scale(self) -> FloatArray:
        """Columns divided by the reference point (auxiliaries by its window minima)."""
        return np.maximum(self.complete(self.columns), 1e-300)

    def aux_upper(self, value: float) -> FloatArray:
        """Bounds of the auxiliaries at an optimum: their window minima at `value_upper`."""
        upper = self.box(self.value_upper(value)).ravel()
        return self.window.canonical_aux(upper) * (1.0 + 8.0 * _U)

    def complete(self, values: FloatArray) -> FloatArray:
        """Values and tail scales followed by their canonical auxiliaries."""
        v = np.asarray(values, dtype=np.float64)
        return np.concatenate([v, self.window.canonical_aux(self.box(v).ravel())])


def _band(
    spec: AdditiveSpec2D, tails: tuple[Tail, ...], orbit: IntArray, reps: IntArray, k: int
) -> sp.csr_matrix:
    """The ``"band"`` rows over (values, tails) (module docstring).

    The gauge tails of one polygon are all non-increasing functions of its gauge ``G(q)``, a
    product tail is its own function: a neighbour ``q`` binds the first kind of row only if no
    other has every gauge larger and every product value smaller (and the second kind the
    reverse), so only those pairs are kept (`_pareto` on these keys).
    """
    n0, n = spec.cells, 2 * spec.cells
    offsets = footprint(spec.sensitivity_norm, spec.resolution)
    w = int(np.max(np.abs(offsets)))
    a, b = np.divmod(reps, n)
    near = (a < w) | (a >= n - w) | (b < w) | (b >= n - w)
    pi, pj = a[near] - n0, b[near] - n0
    qi = pi[:, None] + offsets[None, :, 0]
    qj = pj[:, None] + offsets[None, :, 1]
    out = ~((qi >= -n0) & (qi < n0) & (qj >= -n0) & (qj < n0))
    owner = np.broadcast_to(orbit[reps[near]][:, None], qi.shape)[out]
    qi, qj = qi[out], qj[out]
    polygons = {id(t.heights): t for t in tails if isinstance(t, GaugeTail)}.values()
    gauges = [gauge_value(t, qi, qj) for t in polygons]
    others = [t.values(qi, qj) for t in tails if isinstance(t, ProductTail)]
    keys = np.column_stack([*gauges, *others])
    factor = math.exp(spec.epsilon)
    blocks = []
    for sign in (1.0, -1.0):  # minimal values (z ≤ e^ε Σ t V) and maximal ones (Σ t V ≤ e^ε z)
        signs = np.array([-sign] * len(gauges) + [sign] * len(others))
        who, where = _pareto(owner, keys * signs)
        vals = shape_values(tails, qi[where], qj[where]).T
        rows = np.concatenate([np.arange(who.size)] * (1 + len(tails)))
        cols = np.concatenate([who] + [np.full(who.size, k + t) for t in range(len(tails))])
        own, other = (1.0, -factor) if sign > 0 else (-factor, 1.0)
        data = np.concatenate([np.full(who.size, own), *(other * vals.T)])
        blocks.append(sp.csr_matrix((data, (rows, cols)), shape=(who.size, k + len(tails))))
    return sp.vstack(blocks, format="csr")


def _pareto(owner: IntArray, keys: FloatArray) -> tuple[IntArray, IntArray]:
    """Per owner, the rows whose keys no other row of the owner beats in every column (≤):
    (owners, row indices). Exact duplicates are kept once.

    First every row is compared with a few probes of its owner (the least row in each key and
    in their sum): a row a probe beats is dropped. The survivors are then compared pairwise
    (`_front`); a survivor beaten by a dropped row is beaten by that row's probe
    too (≤ is transitive and the rows are distinct), so nothing else is lost.
    """
    order = np.lexsort((*keys.T[::-1], owner))
    own, vals = owner[order], keys[order]
    fresh = np.ones(own.size, dtype=bool)
    fresh[1:] = (own[1:] != own[:-1]) | np.any(vals[1:] != vals[:-1], axis=1)
    order, own, vals = order[fresh], own[fresh], vals[fresh]
    start = np.flatnonzero(np.concatenate([[True], own[1:] != own[:-1]]))
    if own.size == 0:
        return own, order
    group = np.repeat(np.arange(start.size), np.diff(np.append(start, own.size)))
    rows = np.arange(own.size)
    alive = np.ones(own.size, dtype=bool)
    for key in [*vals.T, vals.sum(axis=1)]:
        probe = np.lexsort((key, own))[start][group]  # per row, its owner's least in `key`
        alive &= ~(np.all(vals[probe] <= vals, axis=1) & (probe != rows))
    keep = np.zeros(own.size, dtype=bool)
    keep[alive] = _front(own[alive], vals[alive])
    return own[keep], order[keep]


def _front(own: IntArray, vals: FloatArray) -> npt.NDArray[np.bool_]:
    """Per owner (``own`` sorted, rows distinct), whether no other row of the owner is ≤ the
    row in every key: blocks by size, each chunk of them padded with +inf rows (which beat
    nothing) to its largest and compared at once, chunks cut so the array stays small."""
    start = np.flatnonzero(np.concatenate([[True], own[1:] != own[:-1]]))
    sizes = np.diff(np.append(start, own.size))
    group = np.repeat(np.arange(start.size), sizes)
    slot = np.arange(own.size) - start[group]
    by_size = np.argsort(sizes, kind="stable")
    rank = np.empty_like(by_size)
    rank[by_size] = np.arange(by_size.size)
    row_rank = rank[group]
    keep = np.zeros(own.size, dtype=bool)
    first, keys_n = 0, max(vals.shape[1], 1)
    while first < by_size.size:
        width = int(sizes[by_size[first]])
        last = min(first + max(1, _PARETO_CHUNK // max(width * width * keys_n, 1)), by_size.size)
        width = int(sizes[by_size[last - 1]])
        last = min(last, first + max(1, _PARETO_CHUNK // max(width * width * keys_n, 1)))
        width = int(sizes[by_size[last - 1]])
        rows = (row_rank >= first) & (row_rank < last)
        padded = np.full((last - first, width, vals.shape[1]), np.inf)
        padded[row_rank[rows] - first, slot[rows]] = vals[rows]
        # beaten[g, a, b]: row b of block g is ≤ row a in every key (b ≠ a)
        beaten = np.all(padded[:, None, :, :] <= padded[:, :, None, :], axis=3)
        beaten[:, np.arange(width), np.arange(width)] = False
        keep[rows] = ~np.any(beaten, axis=2)[row_rank[rows] - first, slot[rows]]
        first = last
    return keep


def _costs(spec: AdditiveSpec2D, h: float, reps: IntArray) -> tuple[FloatArray, FloatArray]:
    """Lower and upper ends of the cost averages over the representative cells."""
    n0, n = spec.cells, 2 * spec.cells
    a, b = np.divmod(reps, n)
    lo = np.column_stack([(a - n0) * h, (b - n0) * h]).astype(np.float64)
    avg, err = spec.cost.cell_average(lo, lo + h, return_error=True)
    avg, err = np.asarray(avg, dtype=np.float64), np.asarray(err, dtype=np.float64)
    return avg - err, avg + err


def _reference(
    tails: tuple[Tail, ...], reps: IntArray, n0: int, weights: FloatArray, mass: FloatArray, k: int
) -> tuple[FloatArray, FloatArray]:
    """A feasible point and the solver's column scales.

    The point: the cheapest gauge tail shape continued into the box (each is ε-DP on its own),
    normalised. The scales: the same, with the other tails scaled to its value at the box's edge.
    """
    a, b = np.divmod(reps, 2 * n0)
    best, ref = math.inf, np.zeros(k + len(tails))
    for t_idx, tail in enumerate(tails):
        if not isinstance(tail, GaugeTail):
            continue
        point = np.zeros(k + len(tails))
        point[:k] = tail.values(a - n0, b - n0)
        point[k + t_idx] = 1.0
        point /= float(mass[: point.size] @ point)
        cost = float(weights[: point.size] @ point)
        if cost < best:
            best, ref, chosen = cost, point, t_idx
    cols = ref.copy()
    edge = (np.array([n0]), np.array([0]))
    level = ref[k + chosen] * float(tails[chosen].values(*edge)[0])
    for t_idx, tail in enumerate(tails):
        if t_idx != chosen:
            cols[k + t_idx] = level / float(tail.values(*edge)[0])
    return ref, cols


def build_additive_lp_2d(spec: AdditiveSpec2D, *, strategy: Strategy | None = None) -> AdditiveLP2D:
    """Build the 2-D LP of ``spec`` (module docstring); nothing is solved.

    Raises
    ------
    ProblemTooLargeError
        The estimated memory exceeds ``spec.max_memory_gb``.
    """
    start = time.perf_counter()
    spec.check_size()
    n0, m, delta = spec.cells, spec.resolution, spec.sensitivity
    h = uniform_width(delta, m)
    orbit, reps, sizes = orbits(n0, spec.group)
    k = reps.size
    tails = make_tails(spec)
    sums = tuple(tail_sums(list(tails), n0, h, spec.cost))
    unit = h * h / (delta * delta)
    c_lo, c_hi = _costs(spec, h, reps)
    widths = row_half_widths(spec.sensitivity_norm, m)
    window = window_system_2d(
        2 * n0, widths, math.exp(spec.epsilon), method=spec.method, rows_at=reps
    )
    n_aux = window.num_aux
    tail = {f: [getattr(s, f) / delta**2 for s in sums] for f in ("cost_low", "cost_high", "mass")}
    aux = np.zeros(n_aux)
    weights = np.concatenate([sizes * unit * c_lo, tail["cost_low"], aux])
    weights_high = np.concatenate([sizes * unit * c_hi, tail["cost_high"], aux])
    mass = np.concatenate([sizes * unit, tail["mass"], aux])
    expand = sp.csr_matrix(
        (np.ones(orbit.size), (np.arange(orbit.size), orbit)), shape=(orbit.size, k)
    )
    tail_cols = sp.csr_matrix((window.a_g.shape[0], len(tails)))
    win = sp.hstack([window.a_g @ expand, tail_cols, window.a_u], format="csr")
    band = _band(spec, tails, orbit, reps, k)
    band = sp.hstack([band, sp.csr_matrix((band.shape[0], n_aux))], format="csr")
    blocks = {"window": win, "band": band}  # all rows ≤ 0
    rows = RowRecord(tuple(RowBlock(name, a, np.zeros(a.shape[0])) for name, a in blocks.items()))
    reference, columns = _reference(tails, reps, n0, weights_high, mass, k)
    scale = float(weights_high[: reference.size] @ reference)
    lp = AdditiveLP2D(
        spec=spec,
        width=h,
        orbit=orbit,
        reps=reps,
        sizes=sizes,
        tails=tails,
        sums=sums,
        weights=weights,
        num_aux=n_aux,
        weights_high=weights_high,
        mass=mass,
        mass_rtol=max(s.mass_rest / s.mass for s in sums),
        rows=rows,
        window=window,
        reference=reference,
        columns=columns,
        scale=scale if scale > 0 else 1.0,
        build_time=time.perf_counter() - start,
    )
    return lp.for_strategy(strategy)
