"""Repairs that make a slightly non-private grid noise exactly private (THEORY.md §5).

Solvers stop at absolute tolerances near 1e-9…1e-7, and cells deep in the support are smaller
than that: a returned point typically has a few ratios above ``e^ε``, zero cells next to tiny
positive ones (``ε = inf``), or a hockey-stick sum a hair above δ. Two repairs, each followed by
an independent certification in :func:`optmech.lp.additive.finish_design`:

:func:`envelope_repair` (pure ε)
    The smallest grid sequence above the given one that satisfies ``p_i ≤ e^ε p_j`` for
    ``|i − j| ≤ r`` on the grid extended by its geometric tails: iterate
    ``L ← max(L, maxfilter_r(L) − ε)`` in the log domain (and the same through the virtual
    periods, which copy the outermost real periods times ``e^−ε``) to its fixed point, then
    renormalise. Ratios are scale-free, so the result is ε-DP; only cells that violated a bound
    grow, so the cost changes by about the violation.
:func:`mixture_repair` ((ε, δ))
    The hockey-stick divergence is jointly convex, so ``(1 − λ)P + λR`` has
    ``H ≤ (1 − λ)H_P + λH_R``; with a reference ``R`` whose ``H_R < δ`` (a grid Laplace density,
    pure ``ε/2``-DP so ``H_R = 0`` when ``ε > 0``; ``ε_R = δ`` for (0, δ)),
    ``λ = (H_P − δ)/(H_P − H_R)`` restores δ. ``λ`` is tiny when the violation is.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import ndimage

from optmech.certify.noise import certify_noise
from optmech.exceptions import PrivacyViolationError
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import ApproxDP, PureDP

__all__ = ["envelope_repair", "mixture_repair"]

FloatArray = npt.NDArray[np.float64]
GridNoise = PiecewiseConstantNoise | LatticeNoise


def _values(noise: GridNoise) -> FloatArray:
    if isinstance(noise, PiecewiseConstantNoise):
        return noise.densities
    return noise.probabilities


def _rebuild(
    noise: GridNoise,
    values: FloatArray,
    left: tuple[FloatArray, float],
    right: tuple[FloatArray, float],
    atom: float,
    privacy: PureDP | ApproxDP,
) -> GridNoise:
    """Same grid, new numbers, normalised to total mass 1."""
    h = noise.width
    total = (
        h * (values.sum() + left[0].sum() / (1.0 - left[1]) + right[0].sum() / (1.0 - right[1]))
        + atom
    )
    s = 1.0 / total
    if isinstance(noise, PiecewiseConstantNoise):
        return PiecewiseConstantNoise(
            start=noise.start,
            width=h,
            densities=values * s,
            period=noise.period,
            left_tail=(left[0] * s, left[1]),
            right_tail=(right[0] * s, right[1]),
            atom=atom * s,
            sensitivity=noise.sensitivity,
            privacy=privacy,
        )
    return LatticeNoise(
        start=int(noise.start),
        pmf=values * s,
        period=noise.period,
        left_tail=(left[0] * s, left[1]),
        right_tail=(right[0] * s, right[1]),
        sensitivity=int(noise.sensitivity),
        privacy=privacy,
    )


def _reach(noise: GridNoise) -> int:
    r = noise.sensitivity / noise.width
    near = round(r)
    return int(near) if abs(r - near) <= 1e-9 * r else math.ceil(r)


def envelope_repair(noise: GridNoise, epsilon: float) -> GridNoise:
    """The least ε-DP raise of ``noise`` (module docstring), renormalised.

    The tails must be geometric with ratio ``e^−ε`` continuing the outermost periods (as the LP
    designs them); an atom cannot be repaired (it is never ε-DP).
    """
    b = math.exp(-epsilon)
    left_base, lr = noise.left_tail
    right_base, rr = noise.right_tail
    values = _values(noise)
    p, n = noise.period, values.size
    if noise.atom > 0:
        raise PrivacyViolationError("an atom is never ε-DP; it cannot be repaired by raising cells")
    same = (
        abs(lr - b) <= 1e-12
        and abs(rr - b) <= 1e-12
        and n >= p
        and np.allclose(left_base, b * values[:p], rtol=1e-9, atol=0)
        and np.allclose(right_base, b * values[-p:], rtol=1e-9, atol=0)
    )
    if not same:
        raise PrivacyViolationError(
            "envelope_repair needs tails continuing the outermost periods with ratio e^-ε"
        )
    r = _reach(noise)
    with np.errstate(divide="ignore"):
        logs = np.log(values)
    size = 2 * r + 1
    for _ in range(4 * (n // max(r, 1)) + 16):  # each sweep propagates r cells; vectorised
        ext = np.concatenate([logs[:p] - epsilon, logs, logs[-p:] - epsilon])
        top = ndimage.maximum_filter1d(ext, size=size, mode="constant", cval=-np.inf)
        need = top[p : p + n] - epsilon
        # A virtual cell copies an outer cell times b: its own bound lifts that cell.
        need[-p:] = np.maximum(need[-p:], top[p + n :])
        need[:p] = np.maximum(need[:p], top[:p])
        new = np.maximum(logs, need)
        if np.array_equal(new, logs):
            break
        logs = new
    else:
        raise PrivacyViolationError("envelope_repair did not reach a fixed point")
    raised = np.exp(logs)
    privacy = PureDP(epsilon)
    return _rebuild(noise, raised, (b * raised[:p], b), (b * raised[-p:], b), 0.0, privacy)


def _reference(
    noise: GridNoise, eps_ref: float
) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """A grid Laplace density at ``eps_ref`` on the same grid, with its exact geometric tails."""
    h, p = noise.width, noise.period
    centre = 0.0 if isinstance(noise, LatticeNoise) else 0.5
    pos = noise.start / h + np.arange(noise.num_cells) + centre
    scale = eps_ref * h / noise.sensitivity
    values = np.exp(-scale * np.abs(pos))
    left_pos = noise.start / h - p + np.arange(p) + centre
    right_pos = noise.start / h + noise.num_cells + np.arange(p) + centre
    ratio = math.exp(-eps_ref * p * h / noise.sensitivity)
    return values, np.exp(-scale * np.abs(left_pos)), np.exp(-scale * np.abs(right_pos)), ratio


def mixture_repair(noise: GridNoise, epsilon: float, delta: float) -> tuple[GridNoise, float]:
    """Mix ``noise`` with a grid Laplace reference until it is (ε, δ)-DP; returns (noise, λ).

    ``noise`` must have zero tails or tails with the reference's ratio (the LP's (ε, δ) designs
    have zero tails). Raises :class:`PrivacyViolationError` when no mixture works.
    """
    privacy = ApproxDP(epsilon, delta)
    eps_ref = epsilon / 2.0 if epsilon > 0 else delta
    ref_values, ref_left, ref_right, ratio = _reference(noise, eps_ref)
    reference = _rebuild(noise, ref_values, (ref_left, ratio), (ref_right, ratio), 0.0, privacy)
    h_ref = certify_noise(reference, epsilon=epsilon).delta
    h_p = certify_noise(noise, epsilon=epsilon).delta
    if h_ref >= delta:
        raise PrivacyViolationError(
            f"cannot repair: the reference density has δ = {h_ref:.3g} ≥ {delta:g} at "
            f"ε = {epsilon:g}"
        )
    left_base, lr = noise.left_tail
    right_base, rr = noise.right_tail
    for base, rho in ((left_base, lr), (right_base, rr)):
        if np.any(base > 0) and abs(rho - ratio) > 1e-12:
            raise PrivacyViolationError(
                "cannot repair by mixing: the noise's tails are geometric with another ratio"
            )
    values = _values(noise)
    ref = _values(reference)
    ref_l, _ = reference.left_tail
    ref_r, _ = reference.right_tail

    def mix(lam: float) -> GridNoise:
        return _rebuild(
            noise,
            (1 - lam) * values + lam * ref,
            ((1 - lam) * left_base + lam * ref_l, ratio),
            ((1 - lam) * right_base + lam * ref_r, ratio),
            (1 - lam) * noise.atom,
            privacy,
        )

    def private(candidate: GridNoise) -> bool:
        return bool(certify_noise(candidate, epsilon=epsilon).delta <= delta)

    # Convexity gives a λ that works; the bound is loose (mixing also lowers P's own terms),
    # so bisect down to the least λ that certifies (to 1e-3 relative).
    excess = max(h_p - delta, 0.0)
    hi = min(1.0, excess / (h_p - h_ref) * (1.0 + 1e-6) + 1e-15)
    best = mix(hi)
    while not private(best):
        if hi >= 1.0:
            raise PrivacyViolationError(
                f"mixing with a reference density did not reach δ = {delta:g} (λ up to 1)"
            )
        hi = min(1.0, 2.0 * hi)
        best = mix(hi)
    lo = 0.0
    for _ in range(12):  # each step one certification
        mid = 0.5 * (lo + hi)
        candidate = mix(mid)
        if private(candidate):
            hi, best = mid, candidate
        else:
            lo = mid
    return best, hi
