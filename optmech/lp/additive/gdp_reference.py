"""Mixing references of a Gaussian-DP design: the grid Gaussian, wider ones, and its own cost.

A GDP design (`optmech.lp.additive.beyond`) solves the LP at finitely many ε; its noise then
exceeds ``δ_μ(ε)`` a little between them (most, relatively, in the far tail), and is repaired by
mixing with a reference noise ``R``: the hockey-stick divergence is jointly convex, so ``δ`` of
the mixture ``(1 − λ)P + λR`` is at most ``(1 − λ)δ_P(ε) + λδ_R(ε)`` at every ε, and some ``λ``
certifies once ``R`` has room below ``δ_μ`` wherever ``P`` exceeds it.

The Gaussian ``N(0, Δ²/μ²)`` on the grid (`grid_gaussian`) is nearly optimal
but has almost no room: its profile is ``δ_μ`` itself, so a mixture with it needs ``λ ≈ 1`` and
costs what the grid Gaussian costs. A *wider* Gaussian ``N(0, Δ²/(fμ)²)``, ``f < 1``, is
``fμ``-GDP (Dong, Roth & Su 2022, Theorem 2.7) and has room ``δ_μ − δ_{fμ}`` everywhere, largest
relative to ``δ_μ`` in the tail; it costs ``1/f`` times more, so the best ``f`` balances the two:
`cheapest_wider_mixture` tries each of `WIDER`, every
mixture certified over the continuum of ε by the caller.

Measured (μ = 1, |x|, 8 cells per Δ, HiGHS, one LP at 24 evenly spaced ε): the LP's noise is
1.009-GDP at cost 0.78569; mixed with the grid Gaussian it needs λ = 1 (0.79892, 0.13 % above
the Gaussian's 0.79788); with wider ones f = 0.95 needs λ = 0.15 (0.79409), f = 0.85 λ = 0.045
(0.79265), f = 0.7 λ = 0.021 (0.79306): the designed noise is 0.65 % *below* the Gaussian
mechanism.

References
----------
Dong, J., Roth, A. & Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from scipy import special

from optmech.exceptions import PrivacyViolationError
from optmech.lp.engine.mixing import MixingSearch, least_mixture
from optmech.mechanisms._symmetric_quad import integrate_symmetric
from optmech.privacy import GaussianDP

__all__ = ["WIDER", "WiderMixture", "cheapest_wider_mixture", "gaussian_cost", "grid_gaussian"]

#: The factors ``f`` of μ of the wider Gaussian references tried, ``N(0, Δ²/(fμ)²)``.
WIDER = (0.95, 0.9, 0.85, 0.8, 0.7, 0.6)


def grid_gaussian(lp: Any, sigma: float) -> dict[str, Any]:
    """The noise keywords of ``N(0, σ²)`` on the LP's grid: its mass in each cell (each point's
    rounding interval on ℤ), the tails of the grid's ratio beyond, normalised
    (`AdditiveLP.noise_parts`).

    The masses are differences of ``log Φ`` taken on the side away from 0, so that cells far in
    the tail keep their relative accuracy.
    """
    grid = lp.grid
    if grid.integer:
        lo, hi = grid.index - 0.5, grid.index + 0.5
    else:
        lo = grid.index * grid.width
        hi = lo + grid.width
    a, b = np.minimum(np.abs(lo), np.abs(hi)), np.maximum(np.abs(lo), np.abs(hi))
    inside = np.sign(lo) != np.sign(hi)
    upper = special.log_ndtr(-np.where(inside, 0.0, a) / sigma)
    lower = special.log_ndtr(-b / sigma)
    logs = upper + np.log(-np.expm1(lower - upper))
    logs = np.where(inside, np.log(special.ndtr(b / sigma) - special.ndtr(-a / sigma)), logs)
    full = np.exp(logs - float(np.max(logs)))
    return dict(lp.noise_parts(full, 0.0)[1])


class WiderMixture(NamedTuple):
    """The cheapest certified mixture with a wider Gaussian: the factor ``f`` of μ, the weight
    ``λ`` of the reference, the mixture's noise keywords and its cost."""

    factor: float
    weight: float
    kwargs: dict[str, Any]
    cost: float


def cheapest_wider_mixture(
    lp: Any,
    mu: float,
    kwargs: dict[str, Any],
    *,
    certifies: Callable[[dict[str, Any]], bool],
    value: Callable[[dict[str, Any]], float],
    mix: Callable[[dict[str, Any], dict[str, Any], float], dict[str, Any]],
) -> WiderMixture | None:
    """The cheapest certified mixture of the noise ``kwargs`` with a wider Gaussian, or None when no
    ``λ ≤ 1/2`` certifies for any ``f``.

    For each ``f`` of `WIDER`, the least weight ``λ ≤ 1/2`` found whose mixture with
    ``N(0, Δ²/(fμ)²)`` on the grid certifies (`least_mixture`: from 1e-3 up by fourfold steps,
    then 8 geometric bisections); the cost is linear in the noise, ``(1 − λ)·value(P) +
    λ·value(R)``. ``certifies``, ``value`` and ``mix``: whether keywords are μ-GDP over the
    continuum of ε, their exact cost, the keywords of ``(1 − λ)a + λb``.
    """
    cost = value(kwargs)
    search = MixingSearch(growth=4.0, largest=0.5, refine_steps=8, geometric=True)
    best: WiderMixture | None = None
    for f in WIDER:
        reference = grid_gaussian(lp, lp.grid.sensitivity / (f * mu))

        def certified(lam: float, reference: dict[str, Any] = reference) -> dict[str, Any] | None:
            mixed = mix(kwargs, reference, lam)
            return mixed if certifies(mixed) else None

        try:
            lam, mixed = least_mixture(certified, 1e-3, search, failure="no weight certifies")
        except PrivacyViolationError:
            continue
        total = (1.0 - lam) * cost + lam * value(reference)
        if best is None or total < best.cost:
            best = WiderMixture(f, lam, mixed, total)
    return best


def gaussian_cost(spec: Any) -> float | None:
    """GDP: the expected cost of the Gaussian ``N(0, Δ²/μ²)`` itself — in closed form for a
    power cost (``E|X|^p = σ^p 2^(p/2) Γ((p + 1)/2)/√π``, half on each side), else by
    quadrature; None for other guarantees. The textbook μ-GDP mechanism (Dong, Roth & Su
    2022, Theorem 2.7): a design on a grid that costs more says the grid cannot reach it."""
    if not isinstance(spec.privacy, GaussianDP):
        return None
    sigma = float(spec.sensitivity) / spec.privacy.mu
    cost = spec.cost
    law = cost.power_law
    if law is not None:  # w₊ e^p above 0, w₋ |e|^p below: each half carries E|X|^p / 2
        p, over, under = law
        log_moment = p * math.log(sigma * math.sqrt(2.0)) + special.gammaln((p + 1.0) / 2.0)
        return 0.5 * (over + under) * math.exp(log_moment) / math.sqrt(math.pi)
    return integrate_symmetric(
        cost, lambda y: np.exp(-0.5 * y * y) / math.sqrt(2.0 * math.pi), sigma, math.inf
    )
