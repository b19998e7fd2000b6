"""Repairs that make a slightly non-private grid noise exactly private.

Solvers stop at absolute tolerances near 1e-9…1e-7, and cells deep in the support are smaller
than that: a returned point typically has a few ratios above ``e^ε``, zero cells next to tiny
positive ones (``ε = inf``), or a hockey-stick sum a hair above δ. Two repairs, each followed by
an independent certification in `optmech.lp.additive.designer`:

`envelope_raise` (pure ε)
    The smallest grid sequence above the given one that satisfies ``p_i ≤ e^ε p_j`` for
    ``|i − j| ≤ r`` on the grid extended by its geometric tails: iterate
    ``L ← max(L, maxfilter_r(L) − ε)`` in the log domain (and the same through the virtual
    periods, which copy the outermost real periods times ``e^−ε``) to its fixed point, then
    renormalise. Ratios are scale-free, so the result is ε-DP; only cells that violated a bound
    grow, so the cost changes by about the violation. It works on densities, so it repairs a
    uniform, integer or graded (Δ-periodic) grid alike; the reach ``r`` is the number of cells
    per Δ, exact (`cell_reach`).
`mixture_repair` ((ε, δ))
    The hockey-stick divergence is jointly convex, so ``(1 − λ)P + λR`` has
    ``H ≤ (1 − λ)H_P + λH_R``; with a reference ``R`` whose ``H_R < δ``,
    ``λ = (H_P − δ)/(H_P − H_R)`` restores δ, and a bisection finds the least λ that certifies.
    The reference keeps the noise's support (zero tails): the grid Laplace density at ε, pure
    ε-DP inside the support, so ``H_R`` is the mass of its outermost period (the uniform
    density for (0, δ)). Only when that is not below δ (a support at the edge of feasibility)
    is the reference the grid Laplace at ``ε/2`` with geometric tails, which leaves the support.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, cast

import numpy as np
from scipy import ndimage

from optmech._floats import FloatArray
from optmech.certify.noise import noise_delta
from optmech.exceptions import PrivacyViolationError
from optmech.lp.engine.mixing import MixingSearch, least_mixture
from optmech.mechanisms.graded import GradedNoise
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import ApproxDP

__all__ = [
    "cell_reach",
    "envelope_raise",
    "hockey_delta",
    "mixture_repair",
    "raise_inside",
    "slack",
]

GridNoise = PiecewiseConstantNoise | LatticeNoise | GradedNoise


def cell_reach(sensitivity: float, width: float) -> int:
    """Cells a shift by Δ can reach: ``Δ/h`` exactly, rounded up unless it is an integer.

    Computed in exact rationals of the two floats: a shift that reaches past a cell edge by any
    positive amount makes that cell count.

    Examples
    --------
    >>> cell_reach(1.0, 0.25), cell_reach(1.0, 0.3)
    (4, 4)
    """
    ratio = Fraction(sensitivity) / Fraction(width)
    return int(ratio.numerator // ratio.denominator) + (ratio.denominator != 1)


def equal_cells(noise: GridNoise) -> PiecewiseConstantNoise | LatticeNoise:
    """``noise`` as a family of equal cells — a uniform grid or ℤ, as its grid description
    says (a graded grid is not)."""
    assert noise.grid_description().equal_cells
    return cast(PiecewiseConstantNoise | LatticeNoise, noise)


def slack(epsilon: float, values: FloatArray) -> float:
    """How far inside ε the window of a returned ε-DP design is: ``2^-36·max(1, ε, max|log v|)``.

    Rounding in the log-domain raise and in ``fl(e^ε)`` is a few ulps of the largest
    ``|log v|``; this is far above it, so every window row of the LP holds at the returned
    point in exact arithmetic, and far below any accuracy asked for (it moves the cost by about
    ``slack`` relative, ≤ 1e-8 for |log v| ≤ 700).
    """
    positive = values[values > 0]
    spread = float(np.max(np.abs(np.log(positive)))) if positive.size else 0.0
    return 2.0**-36 * max(1.0, epsilon, spread)


def envelope_raise(
    values: FloatArray,
    *,
    reach: int,
    period: int,
    bound: float,
    tail_log_ratio: float | None = None,
) -> FloatArray:
    """The least sequence ``≥ values`` with ratios ``≤ e^bound`` within ``reach`` cells.

    ``values`` are the grid's densities (or pmf); beyond each end the grid continues its
    outermost ``period`` cells times ``e^−tail_log_ratio`` per period (default ``bound``), and
    those virtual cells are constrained too (module docstring); ``tail_log_ratio ≤ bound`` is
    required (a cell and its own copy one period out are ``period`` cells apart). Returns the
    raised values (not normalised).
    """
    tail = bound if tail_log_ratio is None else tail_log_ratio
    if tail > bound:
        raise ValueError(
            f"`tail_log_ratio` must be at most `bound` ({bound!r}); got {tail!r}: a tail "
            "decaying faster than the bound allows is never within it."
        )
    logs = _log(values)
    n, p, r = values.size, period, reach
    size = 2 * r + 1
    for _ in range(4 * (n // max(r, 1)) + 16):  # each sweep propagates r cells; vectorised
        ext = np.concatenate([logs[:p] - tail, logs, logs[-p:] - tail])
        top = ndimage.maximum_filter1d(ext, size=size, mode="constant", cval=-np.inf)
        need = top[p : p + n] - bound
        # A virtual cell copies an outer cell times e^−tail: its own bound lifts that cell.
        need[-p:] = np.maximum(need[-p:], top[p + n :] - bound + tail)
        need[:p] = np.maximum(need[:p], top[:p] - bound + tail)
        new = np.maximum(logs, need)
        if np.array_equal(new, logs):
            break
        logs = new
    else:
        raise PrivacyViolationError("envelope_raise did not reach a fixed point")
    return np.exp(logs)


def raise_inside(
    full: FloatArray,
    epsilon: float,
    period: int,
    tail_ratio: float,
    monotone: Callable[[FloatArray], FloatArray] | None = None,
) -> FloatArray:
    """`envelope_raise` of grid values to window ratios ``e^(ε − slack)`` (`slack`), the tails
    at their ratio (or that bound), alternated with ``monotone`` (a raise non-increasing in
    ``|x|``) until both hold: each round only raises; the monotone class needs a few."""
    bound = epsilon - slack(epsilon, full)
    tail_log = min(-math.log(tail_ratio), bound)
    raised = full
    for _ in range(64):
        raised = envelope_raise(
            raised, reach=period, period=period, bound=bound, tail_log_ratio=tail_log
        )
        if monotone is None:
            break
        again = monotone(raised)
        if np.array_equal(again, raised):
            break
        raised = again
    return raised


def _log(values: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore"):
        return np.log(values)


_EqualCells = PiecewiseConstantNoise | LatticeNoise


def _values(noise: _EqualCells) -> FloatArray:
    if noise.discrete:
        return cast(LatticeNoise, noise).probabilities
    return cast(PiecewiseConstantNoise, noise).densities


def _rebuild(
    noise: _EqualCells,
    values: FloatArray,
    left: tuple[FloatArray, float],
    right: tuple[FloatArray, float],
    atom: float,
    privacy: ApproxDP,
) -> tuple[type, dict[str, Any]]:
    """Same grid, new numbers, normalised to total mass 1: the family and its keywords."""
    h = noise.width
    mass = values.sum() + left[0].sum() / (1.0 - left[1]) + right[0].sum() / (1.0 - right[1])
    s = 1.0 / (h * mass + atom)
    common = {
        "period": noise.period,
        "left_tail": (left[0] * s, left[1]),
        "right_tail": (right[0] * s, right[1]),
        "privacy": privacy,
    }
    if noise.discrete:
        return LatticeNoise, {
            **common,
            "start": int(noise.start),
            "pmf": values * s,
            "sensitivity": int(noise.sensitivity),
        }
    return PiecewiseConstantNoise, {
        **common,
        "start": noise.start,
        "width": h,
        "densities": values * s,
        "atom": atom * s,
        "sensitivity": noise.sensitivity,
    }


def _laplace_values(noise: _EqualCells, eps_ref: float) -> tuple[FloatArray, ...]:
    """Grid Laplace values at ``eps_ref`` on the grid and on the first period beyond each end."""
    p, h = noise.period, noise.width
    centre = 0.0 if noise.discrete else 0.5
    pos = noise.start / h + np.arange(-p, noise.num_cells + p) + centre
    vals = np.exp(-eps_ref * h * np.abs(pos) / noise.sensitivity)
    return vals[p:-p], vals[:p], vals[-p:]


def hockey_delta(noise: _EqualCells, epsilon: float, reach: int) -> float:
    """Certified δ at ε of a uniform-grid or lattice noise for shifts up to ``reach`` cells.

    `optmech.certify.noise.noise_delta` on the noise's masses,
    tails and atom, with the cell reach given exactly (the designer certifies with the same call).
    """
    return noise_delta(noise.grid_description().with_reach(reach), epsilon=epsilon)


def _reference(noise: _EqualCells, epsilon: float, delta: float, reach: int) -> _EqualCells:
    """The mixing reference (module docstring): support-preserving when it certifies below δ."""
    values, left, right = _laplace_values(noise, epsilon)
    zero = (np.zeros(noise.period), 0.0)
    privacy = ApproxDP(epsilon, delta)
    family, kwargs = _rebuild(noise, values, zero, zero, 0.0, privacy)
    inside = family(**kwargs)
    if hockey_delta(inside, epsilon, reach) < delta:
        return inside
    eps_ref = epsilon / 2.0 if epsilon > 0 else delta
    values, left, right = _laplace_values(noise, eps_ref)
    ratio = math.exp(-eps_ref * noise.period * noise.width / noise.sensitivity)
    family, kwargs = _rebuild(noise, values, (left, ratio), (right, ratio), 0.0, privacy)
    return family(**kwargs)


def mixture_repair(
    noise: _EqualCells, epsilon: float, delta: float, *, reach: int
) -> tuple[type, dict[str, Any], float]:
    """Mix ``noise`` with a reference until it is (ε, δ)-DP; returns the family and keywords of
    the mixture, and ``λ``.

    ``noise`` must have zero tails or tails with the reference's ratio (the LP's (ε, δ) designs
    have zero tails); ``reach`` is its cells per Δ. δ is certified by `hockey_delta`, at most
    ``delta`` exactly. Raises `PrivacyViolationError` when no mixture works.
    """
    privacy = ApproxDP(epsilon, delta)
    reference = _reference(noise, epsilon, delta, reach)
    h_ref = hockey_delta(reference, epsilon, reach)
    h_p = hockey_delta(noise, epsilon, reach)
    if h_ref >= delta:
        raise PrivacyViolationError(
            f"cannot repair: the reference density has δ = {h_ref:.3g} ≥ {delta:g} at "
            f"ε = {epsilon:g}"
        )
    (ref_l, ratio), (ref_r, _) = reference.left_tail, reference.right_tail
    (left_base, lr), (right_base, rr) = noise.left_tail, noise.right_tail
    for base, rho in ((left_base, lr), (right_base, rr)):
        if np.any(base > 0) and abs(rho - ratio) > 1e-12:
            raise PrivacyViolationError(
                "cannot repair by mixing: the noise's tails are geometric with another ratio"
            )
    values, ref = _values(noise), _values(reference)

    def certified(lam: float) -> tuple[type, dict[str, Any]] | None:
        family, kwargs = _rebuild(
            noise,
            (1 - lam) * values + lam * ref,
            ((1 - lam) * left_base + lam * ref_l, ratio),
            ((1 - lam) * right_base + lam * ref_r, ratio),
            (1 - lam) * noise.atom,
            privacy,
        )
        ok = hockey_delta(family(**kwargs), epsilon, reach) <= delta
        return (family, kwargs) if ok else None

    # Convexity gives a λ that works; the bound is loose (mixing also lowers P's own terms),
    # so bisect down to the least λ that certifies (to 1e-3 relative).
    excess = max(h_p - delta, 0.0)
    start = min(1.0, excess / (h_p - h_ref) * (1.0 + 1e-6) + 1e-15)
    lam, (family, kwargs) = least_mixture(
        certified,
        start,
        MixingSearch(refine_steps=12),
        failure=f"mixing with a reference density did not reach δ = {delta:g} (λ up to 1)",
    )
    return family, kwargs, lam
