"""Independent certification of 2-D additive noise given on a grid of square cells.

Mechanism ``K(D) = q(D) + X`` with ``q(D) ∈ ℝ²`` and the shifts ``s = q(D₁) − q(D₂)`` in the
closed ball ``B = {‖s‖ ≤ Δ}`` of the ℓ1, ℓ2 or ℓ∞ norm. The noise is described by numbers only:
densities on the cells of side ``h`` of a box ``[−n₀h, n₀h)²`` (cell ``(i, j)`` is
``[ih, (i+1)h) × [jh, (j+1)h)``) and, outside the box, a non-negative combination of *tail
shapes* whose values are computed here from integers (`tail_values`). Nothing is
taken from the LP that produced the noise.

**Which pairs of cells a shift connects** (`footprint`). Let ``R = Δ/h`` (an exact
rational). A shift ``s ∈ B`` carries a set of positive measure of cell ``p`` into cell
``p + d`` iff the open cells meet after the shift, i.e. iff ``s`` lies in the open square
``Q_d = h·(d + (−1, 1)²)`` (the difference set of two open cells). ``B ∩ Q_d ≠ ∅`` iff the
norm's distance from 0 to the *closed* square is below Δ, strictly: a point of the open
square at distance exactly Δ can be moved towards 0 inside it. The closest point of the closed
square has coordinates ``(A, B)·h`` with ``A = max(|d₁| − 1, 0)``, ``B = max(|d₂| − 1, 0)``,
so the pair is constrained iff

    ℓ∞: max(A, B) < R,     ℓ1: A + B < R,     ℓ2: A² + B² < R²,

decided in integer arithmetic. A density constant on cells is ε-DP over ℝ² iff
``f(p) ≤ e^ε f(p + d)`` for all cells ``p`` and offsets ``d`` of the footprint ``F``: the
supremum over real points and real shifts of a ratio of two constants is attained on such a
pair (Geng, Kairouz, Oh & Viswanath 2015 for the staircase in ℝ^d; the same argument as on the
line, Geng & Viswanath 2016).

**Tail shapes** (values at cell ``(i, j)`` outside the box, times a scale ``t ≥ 0``):

``("gauge", t, normals, offsets, (a, q), ratio)``
    ``t·ratio^k(i,j)`` with ``k = max_l ceil((q·n_l·v − 2a·h_l)/(2q·h_l))``, ``v = (2i+1, 2j+1)``:
    ``k = ceil(G(c) − a/q)`` for the gauge ``G(c) = max_l n_l·c/h_l`` of the polygon
    ``P = {x : n_l·x ≤ h_l}`` at the cell's centre ``c = v/2`` (a staircase with level sets
    ``∂(λP)``, Geng & Viswanath's γ = a/q). If ``F ⊂ P`` (checked exactly), ``G`` is sublinear
    and ``G(±d) ≤ 1`` on ``F``, so ``|k(p + d) − k(p)| ≤ 1``: the shape alone is
    ``log(1/ratio)``-DP for every pair, inside the box or not.
``("product", t, period, high, ratio)``
    ``t·s(i)s(j)`` with ``s(i) = ratio^(n(i))``, ``n(i) = ⌊i'/m⌋ + [i' mod m ≥ g]`` (``m`` =
    period, ``g`` = high, ``i' = i`` for ``i ≥ 0`` and ``−1 − i`` below): the product of two
    1-D cell staircases. Step points are ``m`` apart, so ``|n(i + δ) − n(i)| ≤ 1`` for
    ``|δ| ≤ m``; if ``F ⊂ [−m, m]²`` (checked) the shape is ``2·log(1/ratio)``-DP.

**The certificate.** A sum of non-negative shapes has every ratio below the largest of theirs
(``(a₁ + a₂)/(b₁ + b₂) ≤ max(a₁/b₁, a₂/b₂)``), so pairs of cells both outside the box are
covered by the shapes' own levels. Every other pair has a cell in the box and the other within
``w = max|d|`` cells of it: the box grown by ``w`` cells holds them all, and their log-ratios
are compared offset by offset (numpy, no solver). The result is pessimistic: ten ulps of the
largest ``|log|``, and 64 unit roundoffs for the tail values (a power and a few products and
sums), are added (Higham 2002, ch. 3), and each shape's level is rounded up.

Sources: Geng & Viswanath (2016), IEEE Trans. Inf. Theory 62(2); Geng, Kairouz, Oh &
Viswanath (2015), *The staircase mechanism in differential privacy*, IEEE JSTSP 9(7);
Higham (2002), *Accuracy and Stability of Numerical Algorithms*.

Examples
--------
>>> [footprint(norm, 8).shape[0] for norm in NORMS]  # ℓ1, ℓ2, ℓ∞ at eight cells per Δ
[177, 257, 289]
>>> footprint("l1", 1).shape[0]  # Δ = one cell: the whole 3×3 block (corners touch)
9
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_real, check_real_array, describe
from optmech.certify.report import PureEpsilonReport, number_or_report
from optmech.mechanisms.description import source_of

__all__ = [
    "NORMS",
    "Noise2DReport",
    "certify_noise2d_epsilon",
    "footprint",
    "noise2d_epsilon",
    "reach_of",
    "row_half_widths",
    "tail_values",
]


#: The norms of the ball of shifts.
NORMS = ("l1", "l2", "linf")
#: Unit roundoff of float64.
_U = 2.0**-53


def _check_norm(norm: Any) -> str:
    if not isinstance(norm, str) or norm not in NORMS:
        raise ValueError(f"`norm` must be one of {NORMS}; got {describe(norm)}.")
    return norm


def _check_reach(reach: Any) -> Fraction:
    if isinstance(reach, Fraction):
        if reach <= 0:
            raise ValueError(f"`reach` must be positive; got {reach}.")
        return reach
    return Fraction(check_real("reach", reach, low=0.0, low_open=True))


def reach_of(sensitivity: float, width: float) -> Fraction:
    """``R = Δ/h`` as an exact rational of the two floats.

    Examples
    --------
    >>> reach_of(1.0, 0.125)
    Fraction(8, 1)
    """
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    h = check_real("width", width, low=0.0, low_open=True)
    return Fraction(d) / Fraction(h)


def _largest_below(norm: str, a: int, p: int, q: int) -> int:
    """Largest ``B ≥ 0`` with the pair ``(A, B) = (a, B)`` inside (``R = p/q``), or −1."""
    if norm == "linf":
        return -(-p // q) - 1 if a * q < p else -1
    if norm == "l1":
        rest = p - a * q  # B·q < p − a·q
        return -(-rest // q) - 1 if rest > 0 else -1
    rest = p * p - a * a * q * q  # (B·q)² < p² − a²q²
    return math.isqrt(rest - 1) // q if rest > 0 else -1


def row_half_widths(norm: str, reach: Any) -> IntArray:
    """``L(d₁)`` for ``d₁ = −w … w``: the footprint's row ``d₁`` is ``|d₂| ≤ L(d₁)``.

    Exact integer arithmetic on ``R = p/q`` (module docstring). ``w`` is the largest ``|d₁|``
    with a non-empty row, so every entry is ≥ 0.

    Examples
    --------
    >>> row_half_widths("l1", 3).tolist()
    [1, 2, 3, 3, 3, 2, 1]
    """
    norm = _check_norm(norm)
    r = _check_reach(reach)
    p, q = r.numerator, r.denominator
    half = []
    a = 0
    while True:
        top = _largest_below(norm, a, p, q)
        if top < 0:
            break
        half.append(top + 1)  # |d₂| = B + 1 for B ≥ 0 (and |d₂| ≤ 1 has B = 0)
        a += 1
    # |d₁| = 0 and 1 both have A = 0; |d₁| = A + 1 afterwards.
    side = [half[0], *half]
    return np.asarray(side[:0:-1] + side, dtype=np.int64)


def footprint(norm: str, reach: Any) -> IntArray:
    """Offsets ``d`` (shape (k, 2), lexicographic) of the pairs of cells a shift connects.

    Parameters
    ----------
    norm : {'l1', 'l2', 'linf'}
        Norm of the ball of shifts.
    reach : int, float or Fraction
        ``R = Δ/h`` (exact, > 0).

    Returns
    -------
    ndarray of int64, shape (k, 2)
        Every ``(d₁, d₂)`` such that some ``‖s‖ ≤ Δ`` carries positive measure of a cell into
        the cell ``d`` further (module docstring); symmetric under ``d ↦ −d`` and the swap.
    """
    widths = row_half_widths(norm, reach)
    w = (widths.size - 1) // 2
    rows = [
        np.column_stack([np.full(2 * L + 1, d1), np.arange(-L, L + 1)])
        for d1, L in zip(range(-w, w + 1), widths.tolist(), strict=True)
    ]
    return np.concatenate(rows).astype(np.int64)


# -- tail shapes --------------------------------------------------------------------------------
def _fold(i: IntArray) -> IntArray:
    return np.where(i >= 0, i, -1 - i)


def _gauge_levels(i: IntArray, j: IntArray, normals: IntArray, offsets: IntArray, a: int, q: int):
    """``k(i, j)`` of a gauge shape (module docstring), exactly, in int64."""
    v1, v2 = 2 * i + 1, 2 * j + 1
    out = None
    for (n1, n2), h in zip(normals.tolist(), offsets.tolist(), strict=True):
        num = q * (n1 * v1 + n2 * v2) - 2 * a * h
        k = -((-num) // (2 * q * h))
        out = k if out is None else np.maximum(out, k)
    return out


def _product_levels(i: IntArray, period: int, high: int) -> IntArray:
    f = _fold(i)
    return f // period + (f % period >= high)


def tail_values(tail: Any, i: npt.ArrayLike, j: npt.ArrayLike) -> FloatArray:
    """Values of one tail shape (its scale included) at cells ``(i, j)`` (module docstring).

    Examples
    --------
    >>> square = (np.array([[1, 0], [-1, 0], [0, 1], [0, -1]]), np.array([2, 2, 2, 2]))
    >>> tail = ("gauge", 1.0, *square, (1, 2), 0.5)
    >>> tail_values(tail, [0, 1, 2, 3], [0, 0, 0, 0]).tolist()   # levels 0, 1, 1, 2
    [1.0, 0.5, 0.5, 0.25]
    """
    ii = np.asarray(i, dtype=np.int64)
    jj = np.asarray(j, dtype=np.int64)
    kind, scale = tail[0], float(tail[1])
    if kind == "gauge":
        _, _, normals, offsets, (a, q), ratio = tail
        k = _gauge_levels(ii, jj, np.asarray(normals), np.asarray(offsets), int(a), int(q))
        return scale * np.power(float(ratio), k.astype(np.float64))
    _, _, period, high, ratio = tail
    n = _product_levels(ii, int(period), int(high)) + _product_levels(jj, int(period), int(high))
    return scale * np.power(float(ratio), n.astype(np.float64))


def _tail_level(tail: Any, offsets: IntArray) -> tuple[float, str]:
    """(pessimistic ε of the shape alone, why) — ``inf`` when its hypothesis fails."""
    kind = tail[0]
    if kind == "gauge":
        _, _, normals, heights, (a, q), ratio = tail
        n = np.asarray(normals, dtype=np.int64)
        h = np.asarray(heights, dtype=np.int64)
        inside = bool(np.all(h > 0)) and bool(np.all(offsets @ n.T <= h[None, :]))
        if not (inside and 0 <= a < q and 0.0 < ratio <= 1.0):
            return math.inf, "the gauge polygon does not contain the footprint"
        return math.nextafter(-math.log(ratio) * (1.0 + 4.0 * _U), math.inf), "gauge tail"
    _, _, period, high, ratio = tail
    if not (1 <= high <= period and 0.0 < ratio <= 1.0):
        return math.inf, "bad product tail"
    if int(np.max(np.abs(offsets))) > period:
        return math.inf, "the footprint leaves the product tail's period square"
    return math.nextafter(-2.0 * math.log(ratio) * (1.0 + 4.0 * _U), math.inf), "product tail"


@dataclass(frozen=True)
class Noise2DReport(PureEpsilonReport):
    """The certified ε of a 2-D grid noise and where it is attained.

    Attributes
    ----------
    epsilon : float
        Pessimistic ``max log(f(p)/f(p + d))`` over all cells (tails included), ``inf``
        possible.
    cell, partner : tuple of int
        The worst pair (cell indices; outside the box for tail cells), or ``(0, 0)`` twice when
        a tail shape's own level is the maximum.
    reason : str
        One line.
    exact : bool
        Always False: the 2-D certificate is in pessimistic floating point.
    guarantee, value
        ``PureDP(epsilon)`` (None when infinite) and `epsilon`.

    Examples
    --------
    >>> import optmech
    >>> from optmech.certify import certify_noise2d_epsilon
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="l1",
    ...                              dimension=2, sensitivity_norm="l1", resolution=2, periods=1)
    >>> report = certify_noise2d_epsilon(noise)
    >>> type(report).__name__, bool(report.epsilon <= 1.0 + 1e-9)
    ('Noise2DReport', True)
    """

    epsilon: float
    cell: tuple[int, int]
    partner: tuple[int, int]
    reason: str
    exact: bool = False


def _extended_logs(dens: FloatArray, tails: list[Any], w: int) -> tuple[FloatArray, FloatArray]:
    """Log-densities on the box grown by ``w`` cells, and the tails' part of it (0 in box)."""
    n0 = dens.shape[0] // 2
    idx = np.arange(-n0 - w, n0 + w, dtype=np.int64)
    ii, jj = np.meshgrid(idx, idx, indexing="ij")
    outside = np.zeros(ii.shape)
    for tail in tails:
        outside = outside + tail_values(tail, ii, jj)
    values = outside.copy()
    values[w : w + 2 * n0, w : w + 2 * n0] = dens
    with np.errstate(divide="ignore"):
        return np.log(values), outside


def _worst_pair(logs: FloatArray, offsets: IntArray) -> tuple[float, tuple[int, int], tuple]:
    """``max (L[p] − L[p + d])`` over offsets (both directions), its pair (array indices)."""
    size = logs.shape[0]
    best, where = -math.inf, ((0, 0), (0, 0))
    for d1, d2 in offsets.tolist():
        if (d1, d2) <= (0, 0):  # each unordered pair once; both directions below
            continue
        a = logs[max(0, -d1) : size - max(0, d1), max(0, -d2) : size - max(0, d2)]
        b = logs[max(0, d1) : size + min(0, d1), max(0, d2) : size + min(0, d2)]
        with np.errstate(invalid="ignore"):
            gap = np.abs(a - b)  # inf - inf = nan: two zero cells, no constraint
        gap = np.where(np.isnan(gap), -np.inf, gap)
        k = int(np.argmax(gap))
        if gap.flat[k] > best:
            r, c = divmod(k, gap.shape[1])
            p = (r + max(0, -d1), c + max(0, -d2))
            q = (p[0] + d1, p[1] + d2)
            best, where = float(gap.flat[k]), (p, q) if a.flat[k] >= b.flat[k] else (q, p)
    return best, where[0], where[1]


def _certify2d(
    densities: Any, norm: str, reach: Any, sensitivity: Any, width: Any, tails: Any
) -> Noise2DReport:
    """The certificate of `noise2d_epsilon`'s arguments."""
    dens = check_real_array("densities", densities, ndim=2, nonnegative=True)
    if dens.shape[0] != dens.shape[1] or dens.shape[0] % 2:
        raise ValueError(f"`densities` must be square with an even side; got {dens.shape}.")
    if reach is None:
        if sensitivity is None or width is None:
            raise TypeError("give `reach`, or both `sensitivity` and `width`.")
        r = reach_of(sensitivity, width)
    else:
        r = _check_reach(reach)
    offsets = footprint(norm, r)
    tails = list(tails)
    w = int(np.max(np.abs(offsets)))
    logs, outside = _extended_logs(dens, tails, w)
    gap, cell, partner = _worst_pair(logs, offsets)
    if gap == -math.inf:
        raise ValueError("`densities` and the tails are all zero: not a distribution.")
    if math.isfinite(gap):
        finite = np.abs(logs[np.isfinite(logs)])
        margin = 10.0 * float(np.spacing(np.max(finite))) + 64.0 * _U
        eps = math.nextafter(max(gap + margin, 0.0), math.inf)
    else:
        eps = math.inf
    n0 = dens.shape[0] // 2
    shift = n0 + w
    cell_ij = (cell[0] - shift, cell[1] - shift)
    partner_ij = (partner[0] - shift, partner[1] - shift)
    reason = f"f{cell_ij} / f{partner_ij} = exp({gap:.12g})"
    for tail in tails:
        if float(tail[1]) > 0:
            level, why = _tail_level(tail, offsets)
            if level > eps:
                eps, cell_ij, partner_ij, reason = level, (0, 0), (0, 0), why
    if not tails or not np.any(outside > 0):
        eps, reason = math.inf, "zero density outside the box next to positive cells"
    return Noise2DReport(eps, cell_ij, partner_ij, reason)


def certify_noise2d_epsilon(noise: Any) -> Noise2DReport:
    """Achieved pure ε of a 2-D grid noise for all shifts in the ball of radius Δ, and where.

    Parameters
    ----------
    noise : PiecewiseConstantNoise2D or mapping
        A noise in ℝ² that describes itself (``privacy_source()``: the 2-D designs), or the
        keywords of `noise2d_epsilon` as a mapping (a noise's
        ``description()``).

    Returns
    -------
    Noise2DReport
        Pessimistic ε (module docstring) and the worst pair of cells.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech import PiecewiseConstantNoise2D
    >>> from optmech.certify import certify_noise2d_epsilon
    >>> square = PiecewiseConstantNoise2D(np.full((4, 4), 1 / 4), width=0.5, sensitivity=0.5,
    ...                                   norm="linf", tails=[], epsilon=1.0)
    >>> certify_noise2d_epsilon(square).epsilon  # a shift moves mass off the square: not ε-DP
    inf
    """
    source = source_of(noise)
    found = source.grid2d if source is not None else noise
    if not isinstance(found, Mapping) or "densities" not in found or "norm" not in found:
        raise TypeError(
            "`noise` must be a 2-D noise that describes itself or a mapping with the keywords "
            f"of noise2d_epsilon ('densities', 'norm', ...); got {describe(noise)}."
        )
    return _certify2d(
        found["densities"],
        found["norm"],
        found.get("reach"),
        found.get("sensitivity"),
        found.get("width"),
        found.get("tails", ()),
    )


def noise2d_epsilon(
    densities: npt.ArrayLike,
    *,
    norm: str,
    reach: Any = None,
    sensitivity: float | None = None,
    width: float | None = None,
    tails: Any = (),
    debug: bool = False,
) -> float:
    """Achieved pure ε of a 2-D grid noise for all shifts in the ball of radius Δ.

    Parameters
    ----------
    densities : array_like, shape (2n₀, 2n₀)
        Non-negative densities (or masses: the cells are equal) of the box cells, row ``a`` and
        column ``b`` being cell $(a − n₀, b − n₀)$.
    norm : {'l1', 'l2', 'linf'}
        Norm of the ball of shifts.
    reach : int, float or Fraction, optional
        $R = Δ/h$ (exact); or give ``sensitivity`` and ``width`` (``R`` their exact ratio).
    tails : sequence
        Tail shapes with their scales (module docstring), in the densities' units; empty means
        zero density outside the box (never ε-DP).
    debug : bool
        Deprecated: return the `Noise2DReport`; use
        `certify_noise2d_epsilon`.

    Returns
    -------
    float
        Pessimistic ε (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.certify import noise2d_epsilon
    >>> flat = np.full((4, 4), 1 / 16)  # uniform on a 4 × 4 square, no tails
    >>> noise2d_epsilon(flat, norm="linf", reach=1)  # mass shifted off the square: not ε-DP
    inf
    """
    report = _certify2d(densities, norm, reach, sensitivity, width, tails)
    old, new = "noise2d_epsilon(..., debug=True)", "certify_noise2d_epsilon(...)"
    return number_or_report(report, debug, old, new)  # type: ignore[no-any-return]
