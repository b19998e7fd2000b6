"""Privacy profiles and Rényi divergences of continuous noise, for `profiles`.

Every divergence here is a supremum over the shifts ``0 < |d| ≤ Δ`` of ``P`` (the noise) against
``P_d`` (its law moved by ``d``); all families below are symmetric, so one direction suffices.

* **Laplace** of scale ``b`` (``e = Δ/b``): ``δ(ε) = 1 − e^((ε − e)/2)`` for ``0 ≤ ε < e``, 0
  above; ``D_α = log(α/(2α−1)·e^((α−1)e) + (α−1)/(2α−1)·e^(−αe))/(α − 1)`` (Mironov 2017,
  Proposition 6). Both grow with ``d``: the worst shift is Δ.
* **Gaussian** ``N(0, σ²)``: ``δ(ε) = δ_μ(ε)`` with ``μ = Δ/σ`` (Balle & Wang 2018, Theorem 8:
  the curve of μ-GDP, Dong, Roth & Su 2022) and ``D_α = αΔ²/(2σ²)``.
* **Piecewise-constant densities with known edges** (the staircase of Geng & Viswanath 2016,
  the uniform + atom of Geng, Ding, Guo & Kumar 2019): for a shift ``d`` the line splits at the
  edges and the edges moved by ``−d``; on each piece both densities are constant, so the pairs
  ``(P(piece), P_d(piece))`` give ``δ_d(ε) = Σ (p − e^ε q)₊`` and
  ``Σ p^α q^(1−α)`` exactly. Both are linear in ``d`` while no edge crosses another (a piece's
  width moves linearly), so the supremum over ``d ∈ (0, Δ]`` is attained at ``Δ`` or at a
  difference of two edges — those shifts are evaluated. The staircase is cut at ``±KΔ`` with
  its mass beyond below ``1e-18``; that mass is added to δ whole, and to the Rényi sum times
  ``e^((α−1)ε)`` (its losses are at most ε). An atom faces no atom after any shift: it adds its
  mass to δ, and makes every Rényi divergence infinite.

Negative ε use ``δ(−x) = 1 − e^(−x) + e^(−x) δ(x)`` (the pair reversed, which is the same pair
mirrored for symmetric noise). Floating point: the densities and ``exp``/``log`` are taken
within 8 ulps, each piece's width within 2 (the edges are floats); the results are rounded up
by these allowances (``u = 2^-53``), so none is below the exact value for the given floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from optmech._floats import FloatArray
from optmech._validation import check_real
from optmech.mechanisms.description import (
    PiecewiseDescription,
    PrivacySource,
    SourceKind,
    source_of,
)
from optmech.privacy import gaussian_dp_delta

__all__ = ["ContinuousSource", "continuous_source"]

_U = 2.0**-53
#: Relative allowance of a piece's mass (density within 8 ulps, width within 2).
_REL = 16.0 * _U
#: The kinds of source read here.
_KINDS = (SourceKind.LAPLACE, SourceKind.GAUSSIAN, SourceKind.PIECEWISE)


def _negative(profile: Callable[[FloatArray], FloatArray], eps: FloatArray) -> FloatArray:
    """The profile at any ε from its values at ``|ε|`` (module docstring)."""
    pos = profile(np.abs(eps))
    with np.errstate(over="ignore"):
        neg = -np.expm1(eps) + np.exp(eps) * pos
    return np.where(eps >= 0, pos, np.minimum(neg * (1.0 + 4.0 * _U), 1.0))


@dataclass(frozen=True)
class ContinuousSource:
    """A continuous noise's certified profile and divergences (module docstring).

    Attributes
    ----------
    profile : callable
        ``ε ↦ δ(ε)`` (vectorised, pessimistic).
    divergence : callable
        ``α ↦ max_d D_α(P ‖ P_d)`` (vectorised, pessimistic).
    losses : numpy.ndarray
        The privacy losses ``log p/q`` of the pieces (the profile's breakpoints), finite ones.
    d_inf : float
        The largest loss (``inf`` when a mass faces none).
    rho, mu : float or None
        Closed-form zCDP ρ and GDP μ where known (the Gaussian).
    """

    profile: Callable[[FloatArray], FloatArray]
    divergence: Callable[[FloatArray], FloatArray]
    losses: FloatArray
    d_inf: float
    rho: float | None = None
    mu: float | None = None


def _laplace(scale: float, delta: float) -> ContinuousSource:
    e = delta / scale

    def profile(eps: FloatArray) -> FloatArray:
        val = np.where(eps < e, -np.expm1(np.minimum(eps - e, 0.0) / 2.0), 0.0)
        return val * (1.0 + 8.0 * _U)

    def divergence(alphas: FloatArray) -> FloatArray:
        a = alphas
        first = np.log(a / (2.0 * a - 1.0)) + (a - 1.0) * e
        second = np.log((a - 1.0) / (2.0 * a - 1.0)) - a * e
        val = np.logaddexp(first, second) / (a - 1.0)
        err = 16.0 * _U * (1.0 + np.abs(first) + np.abs(second)) / (a - 1.0)
        return val + err + 4.0 * _U * np.abs(val)

    return ContinuousSource(
        lambda x: _negative(profile, x), divergence, np.array([-e, e]), e * (1.0 + 4.0 * _U)
    )


def _gaussian(sigma: float, delta: float) -> ContinuousSource:
    mu = delta / sigma

    def profile(eps: FloatArray) -> FloatArray:
        out = np.asarray(gaussian_dp_delta(mu, eps), dtype=float)
        return np.minimum(out * (1.0 + 1e-12) + 1e-300, 1.0)  # log_ndtr within ~16 ulps

    def divergence(alphas: FloatArray) -> FloatArray:
        return alphas * (mu * mu / 2.0) * (1.0 + 8.0 * _U)

    rho = mu * mu / 2.0 * (1.0 + 8.0 * _U)
    return ContinuousSource(profile, divergence, np.zeros(0), math.inf, rho, mu)


def _pieces(
    source: PiecewiseDescription, edges: FloatArray, shift: float
) -> tuple[FloatArray, ...]:
    """Log masses of the pieces under ``P`` and ``P_d`` (−inf for none)."""
    cuts = np.unique(np.concatenate([edges, edges - shift]))
    lo, hi = cuts[:-1], cuts[1:]
    mid = (lo + hi) / 2.0
    with np.errstate(divide="ignore"):
        width = np.log(hi - lo)
    lp = np.asarray(source.log_density(mid), dtype=float) + width
    lq = np.asarray(source.log_density(mid + shift), dtype=float) + width
    return lp, lq


def _piecewise(source: PiecewiseDescription, own: float, delta: float) -> ContinuousSource:
    half, atom, tail = source.edges, source.atom, source.tail_mass
    edges = np.unique(np.concatenate([-half[::-1], half]))
    near = edges[np.abs(edges) <= 3.0 * max(delta, own)]
    diffs = np.abs(near[:, None] - near[None, :]).ravel()
    shifts = np.unique(np.append(diffs[(diffs > 0) & (diffs <= delta)], delta))
    pairs = [_pieces(source, edges, float(s)) for s in shifts]
    pure = source.tail_epsilon if tail > 0 else 0.0

    def profile(eps: FloatArray) -> FloatArray:
        best = np.zeros(eps.shape)
        for lp, lq in pairs:
            with np.errstate(over="ignore", invalid="ignore"):
                p = np.exp(lp) * (1.0 + _REL)
                q = np.exp(lq) * (1.0 - _REL)
                terms = np.maximum(p[None, :] - np.exp(eps)[:, None] * q[None, :], 0.0)
            val = np.sum(np.nan_to_num(terms, nan=0.0), axis=1)
            best = np.maximum(best, val * (1.0 + (lp.size + 4) * _U))
        return np.minimum(best + atom + tail, 1.0)

    def divergence(alphas: FloatArray) -> FloatArray:
        if atom > 0:
            return np.full(alphas.shape, np.inf)
        best = np.full(alphas.shape, -np.inf)
        for lp, lq in pairs:
            live = np.isfinite(lp)
            if np.any(live & ~np.isfinite(lq)):
                return np.full(alphas.shape, np.inf)
            x = alphas[:, None] * lp[live] + (1.0 - alphas[:, None]) * lq[live]
            err = alphas[:, None] * np.abs(lp[live]) + alphas[:, None] * np.abs(lq[live])
            total = special.logsumexp(x, axis=1) + np.max(err, axis=1) * 8.0 * _U + _REL * alphas
            if tail > 0:
                total = np.logaddexp(total, math.log(tail) + (alphas - 1.0) * pure)
            val = (total + (live.sum() + 4) * _U) / (alphas - 1.0)
            best = np.maximum(best, val + 4.0 * _U * np.abs(val))
        return best

    losses = np.concatenate([(lp - lq)[np.isfinite(lp - lq)] for lp, lq in pairs])
    d_inf = math.inf if atom > 0 else float(np.max(losses, initial=0.0)) * (1.0 + 8.0 * _U)
    return ContinuousSource(lambda x: _negative(profile, x), divergence, losses, d_inf)


def continuous_source(noise: Any, sensitivity: Any) -> ContinuousSource | None:
    """The certified profile and divergences of a continuous closed form, or None for others.

    Reads the noise's self-description (``privacy_source()``): Laplace and Gaussian by their
    parameters, a density constant between known edges (Staircase, UniformAtom) by its
    `PiecewiseDescription`. ``noise``
    may also be that `PrivacySource` itself;
    ``sensitivity`` defaults to the noise's own.
    """
    src = noise if isinstance(noise, PrivacySource) else source_of(noise)
    if src is None or src.kind not in _KINDS:
        return None
    delta = src.sensitivity if sensitivity is None else sensitivity
    delta = check_real("sensitivity", delta, low=0.0, low_open=True)
    if src.kind == SourceKind.LAPLACE:
        return _laplace(float(src.parameters["scale"]), delta)
    if src.kind == SourceKind.GAUSSIAN:
        return _gaussian(float(src.parameters["sigma"]), delta)
    assert src.pieces is not None
    return _piecewise(src.pieces, src.sensitivity, delta)
