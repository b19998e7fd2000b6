"""The floating-point engine of `optmech.certify.noise`: the extended
grid (virtual tail periods), the pure ε of a grid and its hockey-stick δ, each rounded towards
more privacy loss (the module docstring of `optmech.certify.noise` derives every step)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from scipy import ndimage

from optmech._floats import TINY as _TINY
from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech.mechanisms.description import GridDescription

__all__ = ["delta_float", "delta_shortcut", "epsilon_float", "exact_module", "grid_numbers"]


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


def grid_numbers(desc: GridDescription) -> _Noise:
    """The description's numbers as the engine reads them (its reach must be known)."""
    assert desc.reach is not None
    (lb, lr), (rb, rr) = desc.left_tail, desc.right_tail
    return _Noise(desc.masses, desc.reach, lb, lr, rb, rr, desc.atom)


def exact_module() -> Any:
    """`optmech.certify.exact_arithmetic`, imported on first
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
def epsilon_float(g: _Noise, cells: int) -> tuple[float, int, int, float, float, float]:
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


def delta_float(g: _Noise, eps: float) -> tuple[float, float, FloatArray, float]:
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


def delta_shortcut(
    g: _Noise, eps: float, mass: float | None = None
) -> tuple[float, FloatArray, str] | None:
    """δ from the pure ε when that is at most ``ε(1 + 1e-9)`` (no hockey-stick sums needed):
    (δ, per-shift values, reason), or None.

    If every ratio within reach is at most ``e^ε'`` (ε' the pessimistic pure ε), each term is at
    most ``p_j (1 − e^(ε − ε'))``, so δ ≤ ``−expm1(ε − ε')·(total mass)``: exactly 0 when
    ``ε' ≤ ε``, and a cheap rigorous bound when ε' exceeds ε by roundoff. ``mass`` bounds the
    total mass when the values are densities (a graded grid); default the values' sum.
    """
    if g.atom != 0.0 or eps <= 0.0:
        return None
    pure = epsilon_float(g, math.ceil(g.reach))[0]
    if pure > eps * (1.0 + 1e-9):
        return None
    terms = g.p.size + 2 * g.period
    if mass is None:
        mass = float(g.p.sum() + g.lb.sum() / (1.0 - g.lr) + g.rb.sum() / (1.0 - g.rr))
    bound = 0.0
    if pure > eps:
        bound = math.nextafter(-math.expm1(eps - pure) * mass * (1.0 + (terms + 8) * _U), 1.0)
    whole = math.floor(g.reach)
    reason = (
        f"pure ε = {pure:.12g} ≤ {eps:g}(1 + 1e-9): every term is at most "
        f"p_j(1 − e^(ε − ε')), δ ≤ {bound:.3g}"
    )
    return bound, np.full(whole, bound), reason
