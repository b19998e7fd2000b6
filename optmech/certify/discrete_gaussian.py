"""The discrete Gaussian ``N_ℤ(0, σ²)`` as a reference for
`optmech.certify.profiles`.

``P(k) ∝ e^(−k²/(2σ²))`` (Canonne, Kamath & Steinke, 2020) has unbounded privacy losses, so it
has no description with geometric tails; its Rényi divergences have the closed form
``Σ_k P^α P_s^(1−α) = e^(α(α−1)s²/(2σ²)) θ((1−α)s)/θ(0)``, ``θ(c) = Σ_k e^(−(k−c)²/(2σ²))``,
evaluated here with a rigorous error bound (``u = 2^-53``).

References
----------
Canonne, C. L., Kamath, G. & Steinke, T. (2020). The discrete Gaussian for differential
privacy. NeurIPS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from optmech._floats import FloatArray
from optmech._validation import check_real

__all__ = ["DiscreteGaussian", "discrete_gaussian", "renyi_discrete_gaussian"]

_U = 2.0**-53


def _up(x: FloatArray, rel: float) -> FloatArray:
    return np.nextafter(x + rel * np.abs(x), np.inf)


@dataclass(frozen=True)
class DiscreteGaussian:
    """The discrete Gaussian of scale σ (build it with `discrete_gaussian`)."""

    sigma: float


def discrete_gaussian(sigma: float) -> Any:
    """The discrete Gaussian ``N_ℤ(0, σ²)``, ``P(k) ∝ e^(−k²/(2σ²))``, σ in (0, 1e6].

    A reference family for this module (Canonne, Kamath & Steinke, 2020), with
    ``Σ_k P^α P_s^(1−α) = e^(α(α−1)s²/(2σ²)) θ((1−α)s)/θ(0)``, ``θ(c) = Σ_k e^(−(k−c)²/(2σ²))``.
    """
    return DiscreteGaussian(check_real("sigma", sigma, low=0.0, high=1e6, low_open=True))


def _dg_log_theta(sigma: float, f: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``log θ(f) − log θ(0)``, ``θ(f) = Σ_k e^(−(k−f)²/(2σ²))``, ``|f| ≤ 1/2``, and an error bound.

    For σ ≥ 1/2 by Poisson summation, ``θ(f) ∝ 1 + 2Σ_m e^(−2π²σ²m²) cos(2πmf)`` (terms beyond
    ``m = 14`` are below e^(−900)): the ratio keeps its absolute precision ``~u·θ-deviation``.
    """
    if sigma >= 0.5:
        m = np.arange(1, 15, dtype=float)
        terms = np.exp(-2.0 * math.pi**2 * sigma**2 * m**2)
        inner = 2.0 * np.sum(terms[None, :] * np.cos(2.0 * math.pi * m[None, :] * f[:, None]), 1)
        val = np.log1p(inner) - math.log1p(2.0 * float(np.sum(terms)))
        return val, 40.0 * _U * 2.0 * float(np.sum(terms)) + 4.0 * _U * np.abs(val) + 1e-300
    half = math.ceil(40.0 * sigma) + 2  # |k| > J: below e^(−700) of the sum
    k = np.arange(-half, half + 1, dtype=float)
    val = special.logsumexp(-((k[None, :] - f[:, None]) ** 2) / (2.0 * sigma**2), axis=1)
    val = val - special.logsumexp(-(k**2) / (2.0 * sigma**2))
    return val, (4.0 * half + 16.0) * _U + 4.0 * _U * np.abs(val) + 1e-300


def renyi_discrete_gaussian(sigma: float, reach: int, alphas: FloatArray) -> FloatArray:
    """Upper bounds of ``max_{0<s≤Δ} D_α(P ‖ P_s)`` at each order (closed form above)."""
    best = np.full(alphas.shape, -np.inf)
    for s in range(1, reach + 1):
        c = (1.0 - alphas) * s
        f = c - np.round(c)
        log_t, err_t = _dg_log_theta(sigma, f)
        # f carries the rounding of c, u|c|, and |d log θ/df| ≤ (40σ + 3)/σ².
        err = err_t + 2.0 * _U * np.abs(c) * (40.0 * sigma + 3.0) / sigma**2
        quad = alphas * (s * s / (2.0 * sigma**2))
        val = _up(quad, 4.0 * _U) + _up((log_t + err) / (alphas - 1.0), 4.0 * _U)
        best = np.maximum(best, val)
    return _up(best, 2.0 * _U)
