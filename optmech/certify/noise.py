"""Independent certification of additive noise given on a uniform grid.

The noise is described by plain numbers, never by the LP that produced it: the masses of the
cells of a uniform grid (cells of width ``h``, or the points of ℤ), a geometric tail on each
side, and an optional atom at the origin. A tail repeats one *base period* of ``P`` cells
outwards, multiplied by ``ratio`` per period: the first left period (the ``P`` cells just left
of the grid) has masses ``base``, the one further left ``ratio · base``, and so on; likewise on
the right. ``ratio = 0`` (or no tail) means zero mass beyond the grid.

Privacy of ``K(D) = q(D) + X`` for ``|q(D1) − q(D2)| ≤ Δ``, with ``R = Δ/h`` cells:

* **reach.** A shift by ``0 < d ≤ Δ`` moves a point by ``d/h ≤ R`` cells, so it can land
  ``ceil(R)`` cells away as soon as ``R`` exceeds an integer by *any* positive amount. ``R`` is
  taken exactly: given ``sensitivity`` and ``width`` (floats, so ``Δ/h`` is a rational number)
  it is the exact quotient, and [`cells_within_reach`][cells_within_reach] decides ``ceil(R)`` in
  rational arithmetic; given ``reach`` it is that float's exact value. Nothing is snapped to a
  nearby integer: ``Δ = 0.6000000001`` on cells of ``h = 0.3`` reaches three cells, not two.
* **pure ε** (Geng & Viswanath, 2016, for the staircase family): a piecewise-constant density
  is ε-DP on ℝ iff ``p_i ≤ e^ε p_j`` for all cells with ``|i − j| ≤ ceil(R)``.
  [`noise_epsilon`][noise_epsilon] returns ``max log(p_i / p_j)`` over those pairs, ``inf`` when a
  positive cell faces a zero cell within reach (or an atom is present).
* **δ at a given ε** (the hockey-stick divergence of the shifted noise, Balle & Wang, 2018,
  Theorem 5): at a shift of ``s`` cells it is ``H(s) = Σ_j (p_j − e^ε p_{j+s})_+`` (plus the
  atom, which leaves the origin under any shift). For a piecewise-constant density ``H`` is
  *linear in s between integers* (a cell shifted by ``s + t`` overlaps cells ``j+s`` and
  ``j+s+1`` in proportions ``1 − t`` and ``t``), and ``H(0) = 0`` for ``ε ≥ 0``, so the
  supremum over ``0 < |d| ≤ Δ`` is the maximum over integer shifts ``1..floor(R)``, both
  directions, and (for a fractional ``R``) the interpolated value at ``R``. The interpolation
  weight ``t = R − floor(R)`` is bracketed by two floats and the larger end value is kept.
  [`noise_delta`][noise_delta] returns it.

Tails are exact, not truncated. Far enough out, a pair of cells (or a hockey-stick term) is a
``ratio``-scaled copy of the pair one period inwards, so extending the grid by
``2 + ceil(ceil(R)/P)`` *virtual* periods on each side sees every distinct ratio, and the tail's
infinite hockey-stick sum is ``1/(1 − ratio)`` times the terms of one period.

Both results are *pessimistic*: floating-point error is bounded and added (Higham, 2002, ch. 3),
so a certified value is never below the exact one for the given floats. ε: ten ulps of the
largest ``|log mass|`` (four for each of numpy's logarithms, two for their difference) plus
twenty unit roundoffs ``u = 2^-53`` (tail masses ``base·ratio^k`` within nine), rounded up.
δ: ``e^ε`` rounded down, ``(10 + 10e^ε)·u`` times the mass plus ``(n + 8)·u`` times the largest
divergence (a sum of ``n`` terms in any order). ``exact=True`` computes in rational arithmetic
with interval enclosures of ``log`` and ``exp`` instead
([`optmech.certify.exact_arithmetic`][optmech.certify.exact_arithmetic], for grids up to about 10^4
cells). ``debug=True``
returns a report naming the worst pair (ε) or the worst shift (δ).

Sources: Geng & Viswanath (2016), "The optimal noise-adding mechanism in differential privacy",
IEEE Trans. Inf. Theory 62(2); Balle & Wang (2018), "Improving the Gaussian mechanism for
differential privacy", ICML; Higham (2002), *Accuracy and Stability of Numerical Algorithms*.

Examples
--------
The two-sided geometric pmf ``P(i) ∝ b^|i|`` on ℤ is ε-DP for Δ = 1:

>>> import numpy as np
>>> eps = 1.0
>>> b = np.exp(-eps)
>>> k = np.arange(-3, 4)
>>> masses = (1 - b) / (1 + b) * b ** np.abs(k)
>>> tail = (masses[:1] * b, b)                   # the period left of -3 is b * p(-3)
>>> right = (masses[-1:] * b, b)
>>> round(noise_epsilon(masses, reach=1, left_tail=tail, right_tail=right), 12)
1.0
>>> noise_delta(masses, epsilon=1.0, reach=1, left_tail=tail, right_tail=right) < 1e-13
True

A sensitivity a hair above two cells reaches the third cell:

>>> cells_within_reach(0.6000000001, 0.3), cells_within_reach(0.6, 0.3)
(3, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import ndimage

from optmech._floats import TINY as _TINY
from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech._validation import check_flag, check_real, check_real_array, check_tail, describe

__all__ = [
    "DeltaReport",
    "EpsilonReport",
    "NoiseCertificate",
    "cells_within_reach",
    "certify_noise",
    "check_noise",
    "noise_delta",
    "noise_epsilon",
]


@dataclass(frozen=True)
class EpsilonReport:
    """The achieved ε and where it is attained.

    Attributes
    ----------
    epsilon : float
        Certified (pessimistic) ``max log(p_i/p_j)`` over pairs within reach; ``inf`` possible.
    cell, partner : int
        Grid indices of the worst pair (``p_cell / p_partner`` is the largest ratio); indices
        below 0 or at/after the grid's length are tail cells. ``-1, -1`` when no pair binds
        (a single cell) and for an atom.
    cell_mass, partner_mass : float
        Their masses.
    reason : str
        One line: the pair and ratio, a zero cell facing a positive one, or the atom.
    """

    epsilon: float
    cell: int
    partner: int
    cell_mass: float
    partner_mass: float
    reason: str


@dataclass(frozen=True)
class DeltaReport:
    """The achieved δ at a given ε and the shift attaining it.

    Attributes
    ----------
    delta : float
        Certified (pessimistic) ``max_{0<|d|≤Δ} sup_S P(S) − e^ε P(S + d)``.
    epsilon : float
        The ε it was computed at.
    shift : float
        The worst shift in cells (negative: the other direction).
    per_shift : numpy.ndarray
        ``H(s)`` for ``s = 1..floor(R)`` (max of both directions; empty when ``R < 1``), without
        the roundoff bound.
    reason : str
        One line describing the worst shift.
    """

    delta: float
    epsilon: float
    shift: float
    per_shift: FloatArray = field(repr=False)
    reason: str


@dataclass(frozen=True)
class NoiseCertificate:
    """Both certified numbers of a noise, as [`certify_noise`][certify_noise] returns them.

    Attributes
    ----------
    epsilon : float
        Achieved pure ε (``inf`` when the noise is not pure-DP, e.g. finite support or an atom).
    delta : float
        Achieved δ at `delta_epsilon`.
    delta_epsilon : float
        The ε at which δ was computed.
    epsilon_report, delta_report : EpsilonReport, DeltaReport
        Where each is attained.
    """

    epsilon: float
    delta: float
    delta_epsilon: float
    epsilon_report: EpsilonReport = field(repr=False)
    delta_report: DeltaReport = field(repr=False)


class _Noise(NamedTuple):
    """Validated grid noise: masses, exact reach in cells, tails, atom."""

    p: FloatArray
    reach: Fraction
    lb: FloatArray
    lr: float
    rb: FloatArray
    rr: float
    atom: float

    @property
    def period(self) -> int:
        return int(self.lb.size)


# -- input handling ---------------------------------------------------------------------------
def cells_within_reach(sensitivity: float, width: float) -> int:
    """Cells a shift by at most ``sensitivity`` can move a point on cells of ``width``.

    ``ceil(Δ/h)`` of the *exact* rational ``Δ/h`` (both floats are dyadic rationals): the
    integer itself when ``Δ`` is an exact multiple of ``h``, otherwise the next integer, however
    close ``Δ/h`` is to an integer, since a shift reaching past a cell edge by any positive
    amount lands in the next cell. Pairs of cells this far apart constrain a pure-DP density
    (Geng & Viswanath, 2016).

    Parameters
    ----------
    sensitivity : float
        ``Δ``, in (0, inf).
    width : float
        Cell width ``h``, in (0, inf).

    Returns
    -------
    int

    Examples
    --------
    >>> cells_within_reach(1.0, 0.25), cells_within_reach(1.0, 0.3)
    (4, 4)
    >>> cells_within_reach(1.0, 1.0 / 3.0)  # the float 1/3 is below 1/3: 3 + 2e-16 cells
    4
    """
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    h = check_real("width", width, low=0.0, low_open=True)
    return math.ceil(Fraction(d) / Fraction(h))


def _exact_reach(reach: Any, sensitivity: Any, width: Any) -> Fraction:
    """``R`` as an exact rational from ``reach`` or from ``sensitivity / width``."""
    if reach is not None:
        if sensitivity is not None or width is not None:
            raise TypeError(
                "pass either `reach` or both `sensitivity` and `width`, not both; got "
                f"reach={describe(reach)}, sensitivity={describe(sensitivity)}, "
                f"width={describe(width)}."
            )
        return Fraction(check_real("reach", reach, low=0.0, low_open=True))
    if sensitivity is None or width is None:
        raise TypeError(
            "`reach`, or both `sensitivity` and `width`, are required (the reach in cells is "
            f"sensitivity / width); got sensitivity={describe(sensitivity)}, "
            f"width={describe(width)}."
        )
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    h = check_real("width", width, low=0.0, low_open=True)
    return Fraction(d) / Fraction(h)


def _prepare(
    masses: Any,
    reach: Any,
    sensitivity: Any,
    width: Any,
    left_tail: Any,
    right_tail: Any,
    atom: Any,
) -> _Noise:
    p = check_real_array("masses", masses, ndim=1, nonnegative=True)
    r = _exact_reach(reach, sensitivity, width)
    a = check_real("atom", atom, low=0.0)
    lb, lr = check_tail("left_tail", left_tail)
    rb, rr = check_tail("right_tail", right_tail)
    if left_tail is None and right_tail is not None:
        lb = np.zeros(rb.size)
    if right_tail is None and left_tail is not None:
        rb = np.zeros(lb.size)
    if lb.size != rb.size:
        raise ValueError(
            "`left_tail` and `right_tail` must have base periods of the same length; got "
            f"{lb.size} and {rb.size}."
        )
    return _Noise(p, r, lb, lr, rb, rr, a)


def _exact_module() -> Any:
    """[`optmech.certify.exact_arithmetic`][optmech.certify.exact_arithmetic], imported on first
    use (it needs python-flint)."""
    try:
        from optmech.certify import exact_arithmetic as exact
    except ImportError as exc:  # pragma: no cover - python-flint is a dependency
        raise ImportError(
            "exact=True needs python-flint (pip install 'python-flint>=0.6')."
        ) from exc
    return exact


def _extended(
    p: FloatArray, lb: FloatArray, lr: float, rb: FloatArray, rr: float, reach_cells: int
) -> tuple[FloatArray, int, int]:
    """Grid plus ``2 + ceil(reach/P)`` virtual tail periods each side: (array, offset, n_v)."""
    period = lb.size
    n_v = 2 + -(-reach_cells // period)
    powers = lr ** np.arange(n_v)
    left = (powers[::-1, None] * lb[None, :]).reshape(-1)  # farthest period first
    right = ((rr ** np.arange(n_v))[:, None] * rb[None, :]).reshape(-1)
    return np.concatenate([left, p, right]), n_v * period, n_v


# -- ε --------------------------------------------------------------------------------------------
def _epsilon_float(g: _Noise, cells: int) -> tuple[float, int, int, float, float, float]:
    """Float path: (ε, larger cell, smaller cell, their masses, computed ratio), offset-free."""
    ext, offset, n_v = _extended(g.p, g.lb, g.lr, g.rb, g.rr, cells)
    with np.errstate(divide="ignore"):
        logs = np.log(ext)
    top = ndimage.maximum_filter1d(logs, size=2 * cells + 1, mode="constant", cval=-np.inf)
    with np.errstate(invalid="ignore"):
        gaps = top - logs  # -inf - -inf = nan: two zero cells, no constraint
    gaps = np.where(np.isnan(gaps), -np.inf, gaps)
    worst = int(np.argmax(gaps))
    eps_hat = float(gaps[worst])
    if eps_hat == -np.inf:  # every cell is zero
        raise ValueError("`masses` and the tails are all zero: not a distribution.")
    lo, hi = max(0, worst - cells), min(ext.size, worst + cells + 1)
    partner = lo + int(np.argmax(logs[lo:hi]))
    if math.isfinite(eps_hat):
        finite = logs[np.isfinite(logs)]
        # Four ulps of each log, one of the difference (at most twice the largest log), and
        # nine roundoffs of each tail mass (numpy's power within four ulps, then a product).
        margin = 10.0 * float(np.spacing(np.max(np.abs(finite)))) + 20.0 * _U
        # The smallest power of each tail ratio (a subnormal power spoils the products too).
        powers = [x for r in (g.lr, g.rr) if (x := r ** (n_v - 1)) > 0]
        smallest = min([float(np.min(ext[ext > 0])), *powers])
        if smallest < _TINY:  # a subnormal mass: its rounding is absolute, not relative
            margin += 4.0 * 2.0**-1074 / smallest
        eps = math.nextafter(max(eps_hat + margin, 0.0), math.inf)
    else:
        eps = math.inf
    ratio = math.exp(min(eps_hat, 709.0)) if math.isfinite(eps_hat) else math.inf
    return eps, partner - offset, worst - offset, float(ext[partner]), float(ext[worst]), ratio


def _epsilon_report(
    eps: float, big: int, small: int, big_mass: float, small_mass: float, ratio: float
) -> EpsilonReport:
    if math.isinf(eps):
        reason = (
            f"cell {big} has mass {big_mass:.3g} but cell {small}, {abs(big - small)} cells "
            "away, has none"
        )
    else:
        reason = f"p[{big}] / p[{small}] = {ratio:.12g} ({abs(big - small)} cells apart)"
    # Reported as (larger, smaller): the pair's ratio p_cell / p_partner is the worst.
    return EpsilonReport(eps, big, small, big_mass, small_mass, reason)


def noise_epsilon(
    masses: npt.ArrayLike,
    *,
    reach: float | None = None,
    sensitivity: float | None = None,
    width: float | None = None,
    left_tail: Any = None,
    right_tail: Any = None,
    atom: float = 0.0,
    debug: bool = False,
    exact: bool = False,
) -> float | EpsilonReport:
    """Achieved pure ε of grid noise for shifts up to ``Δ`` (tails included).

    Parameters
    ----------
    masses : array_like
        Non-negative cell masses (or pmf values) on the grid, left to right.
    reach : float, optional
        Sensitivity in cells, ``Δ/h`` (``Δ`` for noise on ℤ), in (0, inf), taken as exact:
        pairs up to ``ceil(reach)`` cells apart are compared. Give either ``reach`` or both
        ``sensitivity`` and ``width``.
    sensitivity, width : float, optional
        ``Δ`` and the cell width ``h``, each in (0, inf); the reach is then the exact rational
        ``Δ/h`` (see [`cells_within_reach`][cells_within_reach]).
    left_tail, right_tail : (array_like, float) or None
        ``(base, ratio)`` of each geometric tail (module docstring); ``None`` is zero mass.
    atom : float
        Mass of an atom at the origin (continuous noise); any positive atom gives ``inf``.
    debug : bool
        Return an [`EpsilonReport`][EpsilonReport] instead of the float.
    exact : bool
        Compute in rational arithmetic with an interval enclosure of the logarithm
        ([`optmech.certify.exact_arithmetic.epsilon_exact`][optmech.certify.exact_arithmetic.epsilon_exact]):
        the result is the exact ε rounded up to the next float. For grids up to a few thousand
        cells.

    Returns
    -------
    float or EpsilonReport
        Pessimistic ``max log(p_i / p_j)`` over ``|i − j| ≤ ceil(R)``.
    """
    g = _prepare(masses, reach, sensitivity, width, left_tail, right_tail, atom)
    debug = check_flag("debug", debug)
    if check_flag("exact", exact) and g.atom == 0:
        found = _exact_module().epsilon_exact(g.p, g.lb, g.lr, g.rb, g.rr, math.ceil(g.reach))
    elif g.atom > 0:
        rep = EpsilonReport(
            math.inf, -1, -1, g.atom, 0.0, f"an atom of mass {g.atom:.3g} at the origin"
        )
        return rep if debug else rep.epsilon
    else:
        found = _epsilon_float(g, math.ceil(g.reach))
    rep = _epsilon_report(*found)
    return rep if debug else rep.epsilon


# -- δ --------------------------------------------------------------------------------------------
def _hockey_one_direction(
    ext: FloatArray, weights: FloatArray, factor: float, shifts: int
) -> FloatArray:
    """``H(s) = Σ_j w_j (p_j − factor·p_{j+s})_+``, ``s = 1..shifts``, partners in the array."""
    out = np.empty(shifts)
    buf = np.empty(ext.size)
    for s in range(1, shifts + 1):  # one vectorised pass per shift, in place
        diff = buf[: ext.size - s]
        np.multiply(ext[s:], -factor, out=diff)
        np.add(diff, ext[:-s], out=diff)
        np.maximum(diff, 0.0, out=diff)
        out[s - 1] = float(np.dot(weights[:-s], diff))
    return out


def _weights(size: int, offset: int, grid: int, period: int, lr: float, rr: float) -> FloatArray:
    """Weights making the finite sum equal the infinite one (module docstring)."""
    w = np.ones(size)
    w[:period] = 1.0 / (1.0 - lr)  # the farthest left virtual period stands for all beyond it
    right_start = offset + grid
    w[right_start : right_start + period] = 1.0 / (1.0 - rr)
    w[right_start + period :] = 0.0  # scaled copies of the first right period
    return w


def _bracket(t: Fraction) -> tuple[float, float]:
    """Two floats ``lo ≤ t ≤ hi`` (equal when ``t`` is a float)."""
    near = float(t)
    exact = Fraction(near)
    if exact < t:
        return near, math.nextafter(near, math.inf)
    if exact > t:
        return math.nextafter(near, -math.inf), near
    return near, near


def _delta_float(g: _Noise, eps: float) -> tuple[float, float, FloatArray, float]:
    """Float path: (pessimistic δ, signed worst shift, per-shift H, computed worst H)."""
    whole, cells = math.floor(g.reach), math.ceil(g.reach)
    # e^ε rounded down (four ulps), so every computed term is at least the exact one.
    factor = math.exp(eps) * (1.0 - 4.0 * _U)
    ext, offset, _ = _extended(g.p, g.lb, g.lr, g.rb, g.rr, cells)
    w = _weights(ext.size, offset, g.p.size, g.period, g.lr, g.rr)
    forward = _hockey_one_direction(ext, w, factor, cells)
    ext_rev, offset_rev, _ = _extended(g.p[::-1], g.rb[::-1], g.rr, g.lb[::-1], g.lr, cells)
    w_rev = _weights(ext_rev.size, offset_rev, g.p.size, g.period, g.rr, g.lr)
    backward = _hockey_one_direction(ext_rev, w_rev, factor, cells)
    curves = np.stack([forward[:whole], backward[:whole]])  # H(1..floor R), both directions
    shifts = np.arange(1, whole + 1, dtype=float)
    if g.reach > whole:
        # H is linear between the integers floor R and ceil R (H(0) = 0): the larger of its
        # values at the two floats bracketing t = R − floor R bounds H(R).
        below = np.array([forward[whole - 1], backward[whole - 1]]) if whole else np.zeros(2)
        above = np.array([forward[cells - 1], backward[cells - 1]])
        ends = [(1.0 - t) * below + t * above for t in _bracket(g.reach - whole)]
        curves = np.column_stack([curves, np.maximum(ends[0], ends[1])])
        shifts = np.append(shifts, float(g.reach))
    both = np.max(curves, axis=0) + g.atom
    k = int(np.argmax(both))
    d_hat = float(both[k])
    total_mass = float(np.dot(w, ext)) + g.atom
    h_max = max(float(forward.max()), float(backward.max())) + g.atom
    margin = (10.0 + 10.0 * factor) * _U * total_mass + (ext.size + 8.0) * _U * h_max
    # δ ≤ the total mass: cap at 1, or at the mass (rounded up) when the floats sum above 1.
    mass_up = math.nextafter(total_mass * (1.0 + (ext.size + 8.0) * _U), math.inf)
    delta = min(math.nextafter(d_hat + margin, math.inf), max(1.0, mass_up))
    sign = 1.0 if curves[0, k] >= curves[1, k] else -1.0
    per = np.maximum(forward[:whole], backward[:whole]) + g.atom
    return delta, sign * float(shifts[k]), per, d_hat


def _delta_shortcut(g: _Noise, eps: float) -> DeltaReport | None:
    """δ from the pure ε when that is at most ``ε(1 + 1e-9)`` (no hockey-stick sums needed).

    If every ratio within reach is at most ``e^ε'`` (ε' the pessimistic pure ε), each term is at
    most ``p_j (1 − e^(ε − ε'))``, so δ ≤ ``−expm1(ε − ε')·(total mass)``: exactly 0 when
    ``ε' ≤ ε``, and a cheap rigorous bound when ε' exceeds ε by roundoff.
    """
    if g.atom != 0.0 or eps <= 0.0:
        return None
    pure = _epsilon_float(g, math.ceil(g.reach))[0]
    if pure > eps * (1.0 + 1e-9):
        return None
    terms = g.p.size + 2 * g.period
    mass = float(g.p.sum() + g.lb.sum() / (1.0 - g.lr) + g.rb.sum() / (1.0 - g.rr))
    bound = 0.0
    if pure > eps:
        bound = math.nextafter(-math.expm1(eps - pure) * mass * (1.0 + (terms + 8) * _U), 1.0)
    whole = math.floor(g.reach)
    return DeltaReport(
        bound,
        eps,
        0.0,
        np.full(whole, bound),
        f"pure ε = {pure:.12g} ≤ {eps:g}(1 + 1e-9): every term is at most "
        f"p_j(1 − e^(ε − ε')), δ ≤ {bound:.3g}",
    )


def noise_delta(
    masses: npt.ArrayLike,
    *,
    epsilon: float,
    reach: float | None = None,
    sensitivity: float | None = None,
    width: float | None = None,
    left_tail: Any = None,
    right_tail: Any = None,
    atom: float = 0.0,
    debug: bool = False,
    exact: bool = False,
) -> float | DeltaReport:
    """Achieved δ at ``epsilon`` of grid noise for shifts up to ``Δ``, both directions.

    Parameters
    ----------
    masses, reach, sensitivity, width, left_tail, right_tail, atom
        As in [`noise_epsilon`][noise_epsilon]; the atom adds its mass to every shift's divergence.
    epsilon : float
        The ε at which δ is computed, in [0, inf).
    debug : bool
        Return a [`DeltaReport`][DeltaReport] instead of the float.
    exact : bool
        Compute the hockey-stick sums in rational arithmetic with a rigorous lower bound of
        ``e^ε``
        ([`optmech.certify.exact_arithmetic.delta_exact`][optmech.certify.exact_arithmetic.delta_exact]):
        the result is an upper bound of the exact δ within about ``1e-38`` of it, rounded up to
        the next float. For grids up to a few thousand cells times reach.

    Returns
    -------
    float or DeltaReport
        Pessimistic ``max_{0 < |d| ≤ Δ} Σ_j (p_j − e^ε p_{j+d/h})_+ + atom``, capped at 1 (or at
        the total mass when the given floats sum above 1).
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    g = _prepare(masses, reach, sensitivity, width, left_tail, right_tail, atom)
    debug = check_flag("debug", debug)
    if check_flag("exact", exact):
        found = _exact_module().delta_exact(g.p, g.lb, g.lr, g.rb, g.rr, g.atom, eps, g.reach)
    else:
        short = _delta_shortcut(g, eps)
        if short is not None:
            return short if debug else short.delta
        found = _delta_float(g, eps)
    delta, shift, per, value = found
    if not debug:
        return delta
    reason = (
        f"shift of {abs(shift):g} cells ({'right' if shift > 0 else 'left'}): "
        f"Σ (p_j − e^{eps:g} p_(j±s))_+ = {value - g.atom:.6g}"
        + (f" plus the atom {g.atom:.6g}" if g.atom > 0 else "")
    )
    return DeltaReport(delta, eps, shift, per, reason)


# -- objects --------------------------------------------------------------------------------------
def _grid_arguments(noise: Any) -> dict[str, Any]:
    """Masses, tails, atom, sensitivity and width of a grid noise object."""
    try:
        desc = noise.grid_description()
        sensitivity, width = noise.sensitivity, noise.width
    except AttributeError as exc:
        raise TypeError(
            "`noise` must be grid noise with a grid_description() method and `sensitivity` "
            "and `width` attributes (optmech.mechanisms.piecewise.PiecewiseConstantNoise or "
            f"LatticeNoise); got {describe(noise)} of type {type(noise).__name__}."
        ) from exc
    out = {k: desc[k] for k in ("masses", "left_tail", "right_tail", "atom")}
    out["sensitivity"] = desc.get("sensitivity", sensitivity)
    out["width"] = desc.get("width", width)
    return out


def certify_noise(
    noise: Any, *, epsilon: float | None = None, exact: bool = False
) -> NoiseCertificate:
    """Certify grid noise: achieved pure ε, and δ at ``epsilon`` (default: the noise's own ε).

    Parameters
    ----------
    noise : PiecewiseConstantNoise or LatticeNoise
        Any object with a ``grid_description()`` method returning a dict with keys ``masses``,
        ``left_tail``, ``right_tail``, ``atom``, and attributes ``sensitivity`` and ``width``
        (the piecewise families of `optmech.mechanisms.piecewise`); nothing else about it
        is trusted. The reach is the exact ``sensitivity / width``
        ([`cells_within_reach`][cells_within_reach]), not the rounded ``reach`` of the description.
    epsilon : float, optional
        The ε at which δ is certified, in [0, inf); default the ε of ``noise.privacy``.
    exact : bool, default False
        Rational arithmetic with interval enclosures ([`noise_epsilon`][noise_epsilon]).

    Returns
    -------
    NoiseCertificate
    """
    kwargs = _grid_arguments(noise)
    exact = check_flag("exact", exact)
    eps_rep = noise_epsilon(**kwargs, debug=True, exact=exact)
    at = float(noise.privacy.epsilon) if epsilon is None else check_real("epsilon", epsilon, low=0)
    delta_rep = noise_delta(**kwargs, epsilon=at, debug=True, exact=exact)
    assert isinstance(eps_rep, EpsilonReport) and isinstance(delta_rep, DeltaReport)
    return NoiseCertificate(eps_rep.epsilon, delta_rep.delta, at, eps_rep, delta_rep)


def check_noise(
    noise: Any,
    epsilon: float,
    delta: float = 0.0,
    *,
    rtol: float = 1e-9,
    debug: bool = False,
    exact: bool = False,
) -> bool | NoiseCertificate:
    """Whether grid noise is (ε, δ)-DP for its sensitivity, up to relative tolerance ``rtol``.

    Parameters
    ----------
    noise : PiecewiseConstantNoise or LatticeNoise
        Grid noise, as for [`certify_noise`][certify_noise].
    epsilon : float
        Claimed ε, in [0, inf).
    delta : float, default 0
        Claimed δ, in [0, 1]. With ``0`` the pure ε is checked; otherwise δ at ``epsilon``.
    rtol : float, default 1e-9
        Relative slack for rounding, in [0, inf).
    debug : bool, default False
        Return the [`NoiseCertificate`][NoiseCertificate] (whose reports name the worst pair /
        shift).
    exact : bool, default False
        Certify in rational arithmetic ([`certify_noise`][certify_noise]).

    Returns
    -------
    bool or NoiseCertificate
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    dlt = check_real("delta", delta, low=0.0, high=1.0)
    tol = check_real("rtol", rtol, low=0.0)
    cert = certify_noise(noise, epsilon=eps, exact=exact)
    if check_flag("debug", debug):
        return cert
    if dlt == 0.0:
        return bool(cert.epsilon <= eps * (1.0 + tol))
    return bool(cert.delta <= dlt * (1.0 + tol))
