"""Moments of the privacy loss, for the certified zCDP ρ near α = 1.

Rényi sums lose their relative accuracy as α → 1 (the error of ``log Σ P^α Q^(1−α)`` is divided
by ``α − 1``); the mean and second moment of the loss ``ℓ = log P/Q`` under ``P`` bound
``D_α`` there instead (`kl_bound`). Inputs are the pairs of one shift as
`optmech.certify.profiles` builds them (log masses and their error
bounds, ``u = 2^-53``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from optmech._floats import FloatArray

__all__ = ["kl_bound", "kl_moments"]

_U = 2.0**-53


def kl_moments(g: Any, at: tuple[FloatArray, ...]) -> tuple[float, float, float]:
    """Upper bounds of ``KL = E_P ℓ``, ``E_P ℓ²`` and ``max(ℓ, 0)`` of one shift's losses."""
    lp, ep, lq, eq, lw, ew, log_inf = at
    if log_inf > -np.inf:
        return math.inf, math.inf, math.inf
    ell = lp - lq
    eta = ep + eq + 2.0 * _U * (1.0 + np.abs(ell))
    la = lw + lp - g.log_mass
    err = ew + ep + g.mass_err + 4.0 * _U * (1.0 + np.abs(la))
    hi, lo = np.exp(la + err) * (1.0 + 4.0 * _U), np.exp(la - err) * (1.0 - 4.0 * _U)
    up = ell + eta
    first = np.where(up >= 0, hi, lo) * up
    second = hi * (np.abs(ell) + eta) ** 2
    slack = (ell.size + 4.0) * _U
    kl = math.fsum(first.tolist()) + slack * float(np.sum(np.abs(first)))
    return kl, math.fsum(second.tolist()) * (1.0 + slack), max(float(np.max(up, initial=0)), 0.0)


def kl_bound(moments: list[tuple[float, float, float]]) -> Callable[[float], float]:
    """``a ↦`` a bound of ``sup_{1<α≤a} D_α/α`` from the loss moments of every shift.

    ``K(t) = log E_P e^(tℓ)`` is the cumulant function of the loss: ``K(0) = 0``,
    ``K'(0) = KL``, ``K''(s) ≤ E_{P_s} ℓ² ≤ e^(s ℓ⁺) E_P ℓ²`` (``K(s) ≥ 0``), so
    ``D_α = K(α − 1)/(α − 1) ≤ KL + (α − 1)c`` with ``c = e^((a−1)ℓ⁺) E_P ℓ²/2``, and
    ``(KL + (α − 1)c)/α`` is monotone in α. It is accurate where the Rényi sums are not: the
    error of ``log Σ P^α Q^(1−α)`` is divided by ``α − 1``.
    """

    def bound(a: float) -> float:
        best = 0.0
        for kl, m2, lmax in moments:
            c = math.exp(min((a - 1.0) * lmax, 700.0)) * m2 / 2.0 * (1.0 + 8.0 * _U)
            val = kl if c <= kl else kl + (a - 1.0) * (c - kl) / a
            best = max(best, val * (1.0 + 8.0 * _U))
        return best

    return bound
