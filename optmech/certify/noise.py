"""Independent certification of additive noise given on a uniform grid (THEORY.md §1, §3, §4).

The noise is described by plain numbers, never by the LP that produced it: the masses of the
cells of a uniform grid (cells of width ``h``, or the points of ℤ), a geometric tail on each
side, and an optional atom at the origin. A tail repeats one *base period* of ``P`` cells
outwards, multiplied by ``ratio`` per period: the first left period (the ``P`` cells just left
of the grid) has masses ``base``, the one further left ``ratio · base``, and so on; likewise on
the right. ``ratio = 0`` (or no tail) means zero mass beyond the grid.

Privacy of ``K(D) = q(D) + X`` for ``|q(D1) − q(D2)| ≤ Δ``, with ``reach = Δ/h`` cells:

* **pure ε** (THEORY.md §4): the density is ε-DP on ℝ iff ``p_i ≤ e^ε p_j`` for all cells with
  ``|i − j| ≤ ceil(reach)`` — a shift by ``d ≤ Δ`` moves a point at most ``ceil(reach)`` cells.
  :func:`noise_epsilon` returns ``max log(p_i / p_j)`` over those pairs, ``inf`` when a positive
  cell faces a zero cell within reach (or an atom is present).
* **δ at a given ε** (THEORY.md §3): the hockey-stick divergence at a shift of ``s`` cells is
  ``H(s) = Σ_j (p_j − e^ε p_{j+s})_+`` (plus the atom, which leaves the origin under any shift).
  For a piecewise-constant density it is *linear in s between integers* (a cell shifted by
  ``s + t`` overlaps cells ``j+s`` and ``j+s+1`` in proportions ``1 − t`` and ``t``), so the
  supremum over ``0 < |d| ≤ Δ`` is the maximum over integer shifts ``1..floor(reach)``, both
  directions, and (when ``reach`` is fractional) the interpolated value at ``reach``.
  :func:`noise_delta` returns it.

Tails are exact, not truncated. Far enough out, a pair of cells (or a hockey-stick term) is a
``ratio``-scaled copy of the pair one period inwards, so extending the grid by
``2 + ceil(reach/P)`` *virtual* periods on each side sees every distinct ratio, and the tail's
infinite hockey-stick sum is ``1/(1 − ratio)`` times the terms of one period.

Both results are *pessimistic*: floating-point error is bounded and added (ε: four ulps of the
largest log-mass involved; δ: ``(2 + e^ε)·u`` times the mass plus ``(log2 n + 4)·u`` times the
sum, ``u = 2^-53``), so a certified value is never below the exact one for the given floats.
``debug=True`` returns a report naming the worst pair (ε) or the worst shift (δ).

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
>>> noise_delta(masses, epsilon=1.0, reach=1, left_tail=tail, right_tail=right) < 1e-14
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import ndimage

from optmech._validation import check_real, check_real_array

__all__ = [
    "DeltaReport",
    "EpsilonReport",
    "NoiseCertificate",
    "certify_noise",
    "check_noise",
    "noise_delta",
    "noise_epsilon",
]

FloatArray = npt.NDArray[np.float64]

#: Unit roundoff of float64.
_U = 2.0**-53
#: A reach within this relative distance of an integer is taken as that integer.
_REACH_SNAP = 1e-9


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
        ``H(s)`` for ``s = 1..floor(reach)`` (max of both directions), without the roundoff bound.
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
    """Both certified numbers of a noise, as :func:`certify_noise` returns them.

    Attributes
    ----------
    epsilon : float
        Achieved pure ε (``inf`` when the noise is not pure-DP, e.g. finite support or an atom).
    delta : float
        Achieved δ at :attr:`delta_epsilon`.
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


# -- input handling ---------------------------------------------------------------------------
def _tail(name: str, tail: Any, period: int | None) -> tuple[FloatArray, float]:
    """Validate a ``(base, ratio)`` tail; ``None`` is the zero tail."""
    if tail is None:
        return np.zeros(period or 1), 0.0
    try:
        base, ratio = tail
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"`{name}` must be None or a pair (base masses, ratio); got {tail!r}."
        ) from exc
    base_arr = check_real_array(f"{name} base", base, ndim=1, nonnegative=True)
    ratio_f = check_real(f"{name} ratio", ratio, low=0.0, high=1.0, high_open=True)
    return base_arr, ratio_f


def _prepare(
    masses: Any, reach: Any, left_tail: Any, right_tail: Any, atom: Any
) -> tuple[FloatArray, float, FloatArray, float, FloatArray, float, float, int]:
    p = check_real_array("masses", masses, ndim=1, nonnegative=True)
    r = check_real("reach", reach, low=0.0, low_open=True)
    a = check_real("atom", atom, low=0.0)
    lb, lr = _tail("left_tail", left_tail, None)
    rb, rr = _tail("right_tail", right_tail, None)
    if left_tail is None and right_tail is not None:
        lb = np.zeros(rb.size)
    if right_tail is None and left_tail is not None:
        rb = np.zeros(lb.size)
    if lb.size != rb.size:
        raise ValueError(
            "`left_tail` and `right_tail` must have base periods of the same length; got "
            f"{lb.size} and {rb.size}."
        )
    period = int(lb.size)
    return p, r, lb, lr, rb, rr, a, period


def _snap(reach: float) -> float:
    near = round(reach)
    return float(near) if near > 0 and abs(reach - near) <= _REACH_SNAP * reach else reach


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
def noise_epsilon(
    masses: npt.ArrayLike,
    *,
    reach: float,
    left_tail: Any = None,
    right_tail: Any = None,
    atom: float = 0.0,
    debug: bool = False,
) -> float | EpsilonReport:
    """Achieved pure ε of grid noise for shifts up to ``reach`` cells (tails included).

    Parameters
    ----------
    masses : array_like
        Non-negative cell masses (or pmf values) on the grid, left to right.
    reach : float
        Sensitivity in cells, ``Δ/h`` (``Δ`` for noise on ℤ); pairs up to ``ceil(reach)``
        cells apart are compared.
    left_tail, right_tail : (array_like, float) or None
        ``(base, ratio)`` of each geometric tail (module docstring); ``None`` is zero mass.
    atom : float
        Mass of an atom at the origin (continuous noise); any positive atom gives ``inf``.
    debug : bool
        Return an :class:`EpsilonReport` instead of the float.

    Returns
    -------
    float or EpsilonReport
        Pessimistic ``max log(p_i / p_j)`` over ``|i − j| ≤ ceil(reach)``.
    """
    p, r, lb, lr, rb, rr, a, _period = _prepare(masses, reach, left_tail, right_tail, atom)
    if a > 0:
        rep = EpsilonReport(math.inf, -1, -1, a, 0.0, f"an atom of mass {a:.3g} at the origin")
        return rep if debug else rep.epsilon
    cells = math.ceil(_snap(r))
    ext, offset, _ = _extended(p, lb, lr, rb, rr, cells)
    with np.errstate(divide="ignore"):
        logs = np.log(ext)
    size = 2 * cells + 1
    top = ndimage.maximum_filter1d(logs, size=size, mode="constant", cval=-np.inf)
    with np.errstate(invalid="ignore"):
        gaps = top - logs  # -inf - -inf = nan: two zero cells, no constraint
    gaps = np.where(np.isnan(gaps), -np.inf, gaps)
    worst = int(np.argmax(gaps))
    eps_hat = float(gaps[worst])
    if eps_hat == -np.inf:  # every cell is zero
        raise ValueError("`masses` and the tails are all zero: not a distribution.")
    lo, hi = max(0, worst - cells), min(ext.size, worst + cells + 1)
    partner = lo + int(np.argmax(logs[lo:hi]))
    finite = logs[np.isfinite(logs)]
    margin = 4.0 * _U * float(np.max(np.abs(finite))) if finite.size else 0.0
    eps = max(eps_hat + margin, 0.0) if math.isfinite(eps_hat) else math.inf
    cell_idx, partner_idx = worst - offset, partner - offset
    if not debug:
        return eps
    if math.isinf(eps):
        reason = (
            f"cell {partner_idx} has mass {ext[partner]:.3g} but cell {cell_idx}, "
            f"{abs(partner_idx - cell_idx)} cells away, has none"
        )
    else:
        reason = (
            f"p[{partner_idx}] / p[{cell_idx}] = {math.exp(eps_hat):.12g} "
            f"({abs(partner_idx - cell_idx)} cells apart)"
        )
    # Report as (larger, smaller): the pair's ratio p_cell / p_partner is the worst.
    return EpsilonReport(eps, partner_idx, cell_idx, float(ext[partner]), float(ext[worst]), reason)


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


def noise_delta(
    masses: npt.ArrayLike,
    *,
    epsilon: float,
    reach: float,
    left_tail: Any = None,
    right_tail: Any = None,
    atom: float = 0.0,
    debug: bool = False,
) -> float | DeltaReport:
    """Achieved δ at ``epsilon`` of grid noise for shifts up to ``reach`` cells, both directions.

    Parameters
    ----------
    masses, reach, left_tail, right_tail, atom
        As in :func:`noise_epsilon`; the atom adds its mass to every shift's divergence.
    epsilon : float
        The ε at which δ is computed, in [0, inf).
    debug : bool
        Return a :class:`DeltaReport` instead of the float.

    Returns
    -------
    float or DeltaReport
        Pessimistic ``max_{0 < |d| ≤ reach} Σ_j (p_j − e^ε p_{j+d})_+ + atom``.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    p, r, lb, lr, rb, rr, a, period = _prepare(masses, reach, left_tail, right_tail, atom)
    if a == 0.0 and eps > 0.0:
        # If every ratio within reach is at most e^ε' (ε' the pessimistic pure ε), each term
        # is at most p_j (1 − e^(ε − ε')), so δ ≤ −expm1(ε − ε')·(total mass): exactly 0 when
        # ε' ≤ ε, and a cheap rigorous bound when ε' exceeds ε by roundoff (relative 1e-9).
        pure = noise_epsilon(p, reach=r, left_tail=(lb, lr), right_tail=(rb, rr))
        if pure <= eps * (1.0 + 1e-9):
            mass = float(p.sum() + lb.sum() / (1.0 - lr) + rb.sum() / (1.0 - rr))
            bound = 0.0 if pure <= eps else -math.expm1(eps - pure) * mass * (1.0 + 4.0 * _U)
            if not debug:
                return bound
            whole = max(math.floor(_snap(r)), 1)
            return DeltaReport(
                bound,
                eps,
                0.0,
                np.full(whole, bound),
                f"pure ε = {pure:.12g} ≤ {eps:g}(1 + 1e-9): every term is at most "
                f"p_j(1 − e^(ε − ε')), δ ≤ {bound:.3g}",
            )
    r = _snap(r)
    whole = max(math.floor(r), 1)
    cells = math.ceil(r)
    # e^ε rounded down (four ulps), so every computed term is at least the exact one.
    factor = math.exp(eps) * (1.0 - 4.0 * _U)
    ext, offset, _ = _extended(p, lb, lr, rb, rr, cells)
    w = _weights(ext.size, offset, p.size, period, lr, rr)
    forward = _hockey_one_direction(ext, w, factor, cells)
    ext_rev, offset_rev, _ = _extended(p[::-1], rb[::-1], rr, lb[::-1], lr, cells)
    w_rev = _weights(ext_rev.size, offset_rev, p.size, period, rr, lr)
    backward = _hockey_one_direction(ext_rev, w_rev, factor, cells)
    # Fractional reach: H is linear between integer shifts.
    # (a reach below one cell is rounded up to one: pessimistic.)
    if r > whole:
        t = r - whole
        frac_f = (1 - t) * forward[whole - 1] + t * forward[cells - 1]
        frac_b = (1 - t) * backward[whole - 1] + t * backward[cells - 1]
        forward_c = np.append(forward[:whole], frac_f)
        backward_c = np.append(backward[:whole], frac_b)
        shifts = np.append(np.arange(1, whole + 1, dtype=float), r)
    else:
        forward_c, backward_c = forward[:whole], backward[:whole]
        shifts = np.arange(1, whole + 1, dtype=float)
    both = np.maximum(forward_c, backward_c) + a
    k = int(np.argmax(both))
    d_hat = float(both[k])
    total_mass = float(np.dot(w, ext)) + a
    margin = (2.0 + factor) * _U * total_mass + (math.log2(ext.size + 1) + 4.0) * _U * d_hat
    delta = min(d_hat + margin, 1.0)
    if not debug:
        return delta
    sign = 1.0 if forward_c[k] >= backward_c[k] else -1.0
    reason = (
        f"shift of {shifts[k]:g} cells ({'right' if sign > 0 else 'left'}): "
        f"Σ (p_j − e^{eps:g} p_(j±s))_+ = {float(max(forward_c[k], backward_c[k])):.6g}"
        + (f" plus the atom {a:.6g}" if a > 0 else "")
    )
    per = np.maximum(forward[:whole], backward[:whole]) + a
    return DeltaReport(delta, eps, sign * float(shifts[k]), per, reason)


# -- objects --------------------------------------------------------------------------------------
def _grid_description(noise: Any) -> dict[str, Any]:
    try:
        desc = noise.grid_description()
    except AttributeError as exc:
        raise TypeError(
            "`noise` must be grid noise with a grid_description() method "
            "(optmech.mechanisms.piecewise.PiecewiseConstantNoise or LatticeNoise); got "
            f"{type(noise).__name__}."
        ) from exc
    return desc


def certify_noise(noise: Any, *, epsilon: float | None = None) -> NoiseCertificate:
    """Certify grid noise: achieved pure ε, and δ at ``epsilon`` (default: the noise's own ε).

    ``noise`` is any object with a ``grid_description()`` method returning a dict with keys
    ``masses``, ``reach``, ``left_tail``, ``right_tail``, ``atom`` (the piecewise families of
    :mod:`optmech.mechanisms.piecewise`); nothing else about it is trusted.
    """
    d = _grid_description(noise)
    kwargs = {k: d[k] for k in ("masses", "reach", "left_tail", "right_tail", "atom")}
    eps_rep = noise_epsilon(**kwargs, debug=True)
    at = float(noise.privacy.epsilon) if epsilon is None else check_real("epsilon", epsilon, low=0)
    delta_rep = noise_delta(**kwargs, epsilon=at, debug=True)
    assert isinstance(eps_rep, EpsilonReport) and isinstance(delta_rep, DeltaReport)
    return NoiseCertificate(eps_rep.epsilon, delta_rep.delta, at, eps_rep, delta_rep)


def check_noise(
    noise: Any, epsilon: float, delta: float = 0.0, *, rtol: float = 1e-9, debug: bool = False
) -> bool | NoiseCertificate:
    """Whether grid noise is (ε, δ)-DP for its sensitivity, up to relative tolerance ``rtol``.

    With ``delta = 0`` the pure ε is checked; otherwise δ at ``epsilon``. ``debug=True`` returns
    the :class:`NoiseCertificate`, whose reports name the worst pair / shift.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    dlt = check_real("delta", delta, low=0.0, high=1.0)
    tol = check_real("rtol", rtol, low=0.0)
    cert = certify_noise(noise, epsilon=eps)
    if debug:
        return cert
    if dlt == 0.0:
        return bool(cert.epsilon <= eps * (1.0 + tol))
    return bool(cert.delta <= dlt * (1.0 + tol))
