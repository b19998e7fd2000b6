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
  it is the exact quotient, and `cells_within_reach` decides ``ceil(R)`` in
  rational arithmetic; given ``reach`` it is that float's exact value. Nothing is snapped to a
  nearby integer: ``Δ = 0.6000000001`` on cells of ``h = 0.3`` reaches three cells, not two.
* **pure ε** (Geng & Viswanath, 2016, for the staircase family): a piecewise-constant density
  is ε-DP on ℝ iff ``p_i ≤ e^ε p_j`` for all cells with ``|i − j| ≤ ceil(R)``.
  `noise_epsilon` returns ``max log(p_i / p_j)`` over those pairs, ``inf`` when a
  positive cell faces a zero cell within reach (or an atom is present).
* **δ at a given ε** (the hockey-stick divergence of the shifted noise, Balle & Wang, 2018,
  Theorem 5): at a shift of ``s`` cells it is ``H(s) = Σ_j (p_j − e^ε p_{j+s})_+`` (plus the
  atom, which leaves the origin under any shift). For a piecewise-constant density ``H`` is
  *linear in s between integers* (a cell shifted by ``s + t`` overlaps cells ``j+s`` and
  ``j+s+1`` in proportions ``1 − t`` and ``t``), and ``H(0) = 0`` for ``ε ≥ 0``, so the
  supremum over ``0 < |d| ≤ Δ`` is the maximum over integer shifts ``1..floor(R)``, both
  directions, and (for a fractional ``R``) the interpolated value at ``R``. The interpolation
  weight ``t = R − floor(R)`` is bracketed by two floats and the larger end value is kept.
  `noise_delta` returns it.

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
(`optmech.certify.exact_arithmetic`, for grids up to about 10^4
cells). `certify_noise_epsilon` and
`certify_noise_delta` return reports naming the worst pair (ε) or the worst
shift (δ).

**Descriptions.** Each function takes the grid either as a
`GridDescription` (what
``noise.grid_description()`` returns; its reach is exact) or by the keywords ``masses``,
``reach`` (or ``sensitivity`` and ``width``), ``left_tail``, ``right_tail`` and ``atom``.
`certify_noise` takes any 1-D noise that
describes itself (``privacy_source()``): grids are read here, closed forms through
`optmech.certify.profiles`, and the guarantee the noise claims —
pure ε, (ε, δ), or beyond (ρ, μ, a profile, a Rényi curve) — is certified
(``optmech.certify.noise_certificate``).

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
>>> from optmech.mechanisms.description import GridDescription
>>> rep = certify_noise_epsilon(GridDescription(masses, tail, right, reach=1))
>>> abs(rep.cell - rep.partner), round(rep.value, 12)  # neighbours, ratio e^1
(1, 1.0)
>>> noise_delta(masses, epsilon=1.0, reach=1, left_tail=tail, right_tail=right) < 1e-13
True

A sensitivity a hair above two cells reaches the third cell:

>>> cells_within_reach(0.6000000001, 0.3), cells_within_reach(0.6, 0.3)
(3, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import optmech.certify._grid as _grid_mod
from optmech._floats import FloatArray
from optmech._validation import check_flag, check_real, describe
from optmech.certify.report import (
    DeltaAtEpsilonReport,
    PureEpsilonReport,
    number_or_report,
)
from optmech.mechanisms.description import (
    GridDescription,
    cells_within_reach,
    grid_of,
)

__all__ = [
    "DeltaReport",
    "EpsilonReport",
    "cells_within_reach",
    "certify_noise_delta",
    "certify_noise_epsilon",
    "noise_delta",
    "noise_epsilon",
]


@dataclass(frozen=True)
class EpsilonReport(PureEpsilonReport):
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
    exact : bool
        Certified in exact rational arithmetic.
    guarantee, value
        ``PureDP(epsilon)`` (None when ε is 0 or infinite) and `epsilon`.

    Examples
    --------
    >>> from optmech import Geometric
    >>> from optmech.certify import certify_noise_epsilon
    >>> report = certify_noise_epsilon(Geometric(epsilon=1.0))
    >>> type(report).__name__, round(report.epsilon, 9)
    ('EpsilonReport', 1.0)
    """

    epsilon: float
    cell: int
    partner: int
    cell_mass: float
    partner_mass: float
    reason: str
    exact: bool = False


@dataclass(frozen=True)
class DeltaReport(DeltaAtEpsilonReport):
    """The achieved δ at a given ε and the shift attaining it.

    Attributes
    ----------
    delta : float
        Certified (pessimistic) $max_{0<|d|≤Δ} sup_S P(S) − e^ε P(S + d)$.
    epsilon : float
        The ε it was computed at.
    shift : float
        The worst shift in cells (negative: the other direction).
    per_shift : numpy.ndarray
        ``H(s)`` for ``s = 1..floor(R)`` (max of both directions; empty when ``R < 1``), without
        the roundoff bound.
    reason : str
        One line describing the worst shift.
    exact : bool
        Certified in exact rational arithmetic.
    guarantee, value
        The (ε, δ) guarantee established (``PureDP(ε)`` when δ = 0) and `delta`.

    Examples
    --------
    >>> from optmech import Geometric
    >>> from optmech.certify import certify_noise_delta
    >>> report = certify_noise_delta(Geometric(epsilon=1.0), epsilon=0.5)
    >>> type(report).__name__, report.epsilon, report.shift
    ('DeltaReport', 0.5, 1.0)
    """

    delta: float
    epsilon: float
    shift: float
    per_shift: FloatArray = field(repr=False)
    reason: str
    exact: bool = False


# -- the grid, from a description or the keywords ----------------------------------------------
def _described(
    masses: Any,
    reach: Any,
    sensitivity: Any,
    width: Any,
    left_tail: Any,
    right_tail: Any,
    atom: Any,
) -> GridDescription:
    """The grid of the keyword form: ``masses`` and the keywords, or a description given in
    their place (then alone)."""
    if isinstance(masses, np.ndarray | list | tuple) or grid_of(masses) is None:
        return GridDescription.from_arguments(
            masses,
            reach=reach,
            sensitivity=sensitivity,
            width=width,
            left_tail=left_tail,
            right_tail=right_tail,
            atom=atom,
        )
    given = (reach, sensitivity, width, left_tail, right_tail)
    if any(v is not None for v in given) or atom != 0.0:
        raise TypeError(
            "give the grid either as a description (change its reach with `with_reach`) or by "
            "`masses` and the keywords, not both; got a description and keywords."
        )
    return _grid(masses)


def _grid(grid: Any) -> GridDescription:
    """The `GridDescription` of ``grid``
    (itself, a pmf mapping, or a noise's), its reach known."""
    desc = None if isinstance(grid, np.ndarray | list | tuple) else grid_of(grid)
    if desc is None:
        raise TypeError(
            "`grid` must be a GridDescription (e.g. GridDescription.from_arguments(masses, "
            "reach=...)), a pmf mapping or a noise with a grid; got "
            f"{describe(grid)}. The keyword form is noise_epsilon(masses, reach=...)."
        )
    if desc.reach is None:
        raise TypeError("the description has no reach: give it with `with_reach(cells)`.")
    return desc


# -- ε --------------------------------------------------------------------------------------------
def _epsilon_report(
    eps: float, big: int, small: int, big_mass: float, small_mass: float, ratio: float, exact: bool
) -> EpsilonReport:
    if math.isinf(eps):
        reason = (
            f"cell {big} has mass {big_mass:.3g} but cell {small}, {abs(big - small)} cells "
            "away, has none"
        )
    else:
        reason = f"p[{big}] / p[{small}] = {ratio:.12g} ({abs(big - small)} cells apart)"
    # Reported as (larger, smaller): the pair's ratio p_cell / p_partner is the worst.
    return EpsilonReport(eps, big, small, big_mass, small_mass, reason, exact)


def certify_noise_epsilon(grid: Any, *, exact: bool = False) -> EpsilonReport:
    """Achieved pure ε of grid noise for shifts up to $Δ$ (tails included), with the worst pair.

    Parameters
    ----------
    grid : GridDescription, mapping or noise
        The grid: a `GridDescription` (its
        reach exact), a pmf mapping with a ``reach``, or a noise with a grid (its
        ``grid_description()``). The keyword form is `noise_epsilon`'s.
    exact : bool
        Compute in rational arithmetic with an interval enclosure of the logarithm
        (`optmech.certify.exact_arithmetic.epsilon_exact`):
        the result is the exact ε rounded up to the next float. For grids up to a few thousand
        cells.

    Returns
    -------
    EpsilonReport
        Pessimistic ``max log(p_i / p_j)`` over $|i − j| ≤ ceil(R)$ and where it is attained;
        ``inf`` when a positive cell faces a zero one within reach, or for an atom.

    Examples
    --------
    >>> from optmech import Geometric
    >>> from optmech.certify import certify_noise_epsilon
    >>> report = certify_noise_epsilon(Geometric(epsilon=1.0))
    >>> round(report.epsilon, 9), abs(report.cell - report.partner)  # attained by neighbours
    (1.0, 1)
    """
    g = _grid_mod.grid_numbers(_grid(grid))
    exact = check_flag("exact", exact)
    if g.atom > 0:
        reason = f"an atom of mass {g.atom:.3g} at the origin"
        return EpsilonReport(math.inf, -1, -1, g.atom, 0.0, reason, exact)
    found: tuple[float, int, int, float, float, float]
    if exact:
        found = _grid_mod.exact_module().epsilon_exact(
            g.p, g.lb, g.lr, g.rb, g.rr, math.ceil(g.reach)
        )
    else:
        found = _grid_mod.epsilon_float(g, math.ceil(g.reach))
    return _epsilon_report(*found, exact)


def noise_epsilon(
    masses: Any,
    *,
    reach: float | None = None,
    sensitivity: float | None = None,
    width: float | None = None,
    left_tail: Any = None,
    right_tail: Any = None,
    atom: float = 0.0,
    debug: bool = False,
    exact: bool = False,
) -> float:
    """Achieved pure ε of grid noise for shifts up to $Δ$ (tails included).

    Parameters
    ----------
    masses : array_like or GridDescription
        Non-negative cell masses (or pmf values) on the grid, left to right; or the grid's
        description (then without the other keywords; see
        `certify_noise_epsilon`).
    reach : float, optional
        Sensitivity in cells, $Δ/h$ ($Δ$ for noise on ℤ), in (0, inf), taken as exact:
        pairs up to ``ceil(reach)`` cells apart are compared. Give either ``reach`` or both
        ``sensitivity`` and ``width``.
    sensitivity, width : float, optional
        $Δ$ and the cell width ``h``, each in (0, inf); the reach is then the exact rational
        $Δ/h$ (see `cells_within_reach`).
    left_tail, right_tail : (array_like, float) or None
        ``(base, ratio)`` of each geometric tail (module docstring); ``None`` is zero mass.
    atom : float
        Mass of an atom at the origin (continuous noise); any positive atom gives ``inf``.
    debug : bool
        Deprecated: return the `EpsilonReport`; use
        `certify_noise_epsilon`.
    exact : bool
        Rational arithmetic (`certify_noise_epsilon`).

    Returns
    -------
    float
        Pessimistic ``max log(p_i / p_j)`` over $|i − j| ≤ ceil(R)$.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech.certify import noise_epsilon
    >>> noise_epsilon([0.25, 0.5, 0.25], reach=1)  # a shift by 1 puts mass where there was none
    inf
    >>> b = np.exp(-1.0)  # the geometric pmf on -3..3, its tails continuing the ratio b
    >>> masses = b ** np.abs(np.arange(-3, 4)) * (1 - b) / (1 + b)
    >>> tail = (masses[:1] * b, b)
    >>> round(noise_epsilon(masses, reach=1, left_tail=tail, right_tail=tail), 9)
    1.0
    """
    desc = _described(masses, reach, sensitivity, width, left_tail, right_tail, atom)
    report = certify_noise_epsilon(desc, exact=exact)
    old, new = "noise_epsilon(..., debug=True)", "certify_noise_epsilon(...)"
    return number_or_report(report, debug, old, new)  # type: ignore[no-any-return]


# -- δ --------------------------------------------------------------------------------------------
def _graded_delta(desc: GridDescription, eps: float) -> DeltaReport:
    """δ of densities on a graded grid: only the bound from the pure ε (cells are unequal)."""
    g = _grid_mod.grid_numbers(desc)
    short = _grid_mod.delta_shortcut(g, eps, mass=1.0 + 1e-9)  # the family's mass tolerance
    if short is not None:
        return DeltaReport(short[0], eps, 0.0, short[1], short[2])
    per = np.ones(math.floor(g.reach))
    reason = "graded grid: δ is certified from the pure ε only; 1 bounds it"
    return DeltaReport(1.0, eps, 0.0, per, reason)


def certify_noise_delta(grid: Any, *, epsilon: float, exact: bool = False) -> DeltaReport:
    """Achieved δ at ``epsilon`` of grid noise for shifts up to $Δ$, both directions, with
    the worst shift.

    Parameters
    ----------
    grid : GridDescription, mapping or noise
        As in `certify_noise_epsilon`; an atom adds its mass to every
        shift's divergence. On a graded grid only the bound from the pure ε is certified.
    epsilon : float
        The ε at which δ is computed, in [0, inf).
    exact : bool
        Compute the hockey-stick sums in rational arithmetic with a rigorous lower bound of
        $e^ε$
        (`optmech.certify.exact_arithmetic.delta_exact`):
        the result is an upper bound of the exact δ within about ``1e-38`` of it, rounded up to
        the next float. For grids up to a few thousand cells times reach.

    Returns
    -------
    DeltaReport
        Pessimistic $max_{0 < |d| ≤ Δ} Σ_j (p_j − e^ε p_{j+d/h})_+ + atom$, capped at 1 (or at
        the total mass when the given floats sum above 1).

    Examples
    --------
    >>> from optmech import Geometric
    >>> from optmech.certify import certify_noise_delta
    >>> report = certify_noise_delta(Geometric(epsilon=1.0), epsilon=0.5)
    >>> round(report.delta, 6), report.shift
    (0.287649, 1.0)
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    desc = _grid(grid)
    exact = check_flag("exact", exact)
    if not desc.equal_cells:
        return _graded_delta(desc, eps)
    g = _grid_mod.grid_numbers(desc)
    if exact:
        found = _grid_mod.exact_module().delta_exact(
            g.p, g.lb, g.lr, g.rb, g.rr, g.atom, eps, g.reach
        )
    else:
        short = _grid_mod.delta_shortcut(g, eps)
        if short is not None:
            return DeltaReport(short[0], eps, 0.0, short[1], short[2])
        found = _grid_mod.delta_float(g, eps)
    delta, shift, per, value = found
    reason = (
        f"shift of {abs(shift):g} cells ({'right' if shift > 0 else 'left'}): "
        f"Σ (p_j − e^{eps:g} p_(j±s))_+ = {value - g.atom:.6g}"
        + (f" plus the atom {g.atom:.6g}" if g.atom > 0 else "")
    )
    return DeltaReport(delta, eps, shift, per, reason, exact)


def noise_delta(
    masses: Any,
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
) -> float:
    """Achieved δ at ``epsilon`` of grid noise for shifts up to $Δ$, both directions.

    Parameters
    ----------
    masses, reach, sensitivity, width, left_tail, right_tail, atom
        As in `noise_epsilon`; the atom adds its mass to every shift's
        divergence.
    epsilon : float
        The ε at which δ is computed, in [0, inf).
    debug : bool
        Deprecated: return the `DeltaReport`; use
        `certify_noise_delta`.
    exact : bool
        Rational arithmetic (`certify_noise_delta`).

    Returns
    -------
    float
        Pessimistic $max_{0 < |d| ≤ Δ} Σ_j (p_j − e^ε p_{j+d/h})_+ + atom$, capped at 1 (or at
        the total mass when the given floats sum above 1).

    Examples
    --------
    >>> from optmech.certify import noise_delta
    >>> masses = [0.25, 0.5, 0.25]  # a pmf on {-1, 0, 1}
    >>> round(noise_delta(masses, epsilon=0.5, reach=1), 6)
    0.33782
    >>> noise_delta(masses, epsilon=0.5, reach=1) <= noise_delta(masses, epsilon=0.0, reach=1)
    True
    """
    desc = _described(masses, reach, sensitivity, width, left_tail, right_tail, atom)
    report = certify_noise_delta(desc, epsilon=epsilon, exact=exact)
    old, new = "noise_delta(..., debug=True)", "certify_noise_delta(...)"
    return number_or_report(report, debug, old, new)  # type: ignore[no-any-return]
