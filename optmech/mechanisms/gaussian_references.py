"""Expected costs of the Gaussian references beyond (ε, δ): continuous, discrete and rounded.

The designs under zCDP, Rényi DP and GDP are compared with the Gaussian noise that meets the
same guarantee:

* ``N(0, σ²)`` on ℝ: ``Δ²/(2σ²)``-zCDP (Bun & Steinke 2016), ``αΔ²/(2σ²)``-Rényi DP (Mironov
  2017, Proposition 7), ``Δ/σ``-GDP (Dong, Roth & Su 2022);
* the discrete Gaussian ``N_ℤ(0, σ²)``, ``P(k) ∝ e^(−k²/(2σ²))``: ``Δ²/(2σ²)``-zCDP and the same
  Rényi curve (Canonne, Kamath & Steinke 2020, Theorem 14);
* the rounded Gaussian ``round(N(0, σ²))``: ``Δ/σ``-GDP by post-processing.

The lattice sums run over ``|k| ≤ 40σ + 2`` (the rest is below ``e^(−800)`` of the total), the
continuous expectation by adaptive quadrature on each side of 0 (``quad``'s error estimate is
checked against ``1e-10`` of the value).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import integrate, special

from optmech._validation import check_flag, check_real
from optmech.costs import as_cost

__all__ = ["gaussian_cost", "lattice_gaussian_cost"]


def lattice_gaussian_cost(sigma: float, cost: Any, *, rounded: bool = False) -> float:
    """``E c(K)`` for the discrete Gaussian ``N_ℤ(0, σ²)`` (or ``round(N(0, σ²))``).

    Parameters
    ----------
    sigma : float
        σ, in (0, 1e6].
    cost : Cost or str
        The cost of the error.
    rounded : bool
        The rounded Gaussian instead: ``P(k) = Φ((k + ½)/σ) − Φ((k − ½)/σ)``.

    Examples
    --------
    >>> round(lattice_gaussian_cost(1.0, "squared"), 9)  # a little below σ²
    0.999999789
    """
    s = check_real("sigma", sigma, low=0.0, high=1e6, low_open=True)
    c = as_cost(cost)
    half = math.ceil(40.0 * s) + 2
    k = np.arange(-half, half + 1, dtype=float)
    if check_flag("rounded", rounded):
        upper = special.log_ndtr(-(np.abs(k) - 0.5) / s)  # P(X > |k| − ½), tail-accurate
        lower = special.log_ndtr(-(np.abs(k) + 0.5) / s)
        logs = upper + np.log(-np.expm1(lower - upper))
    else:
        logs = -(k**2) / (2.0 * s * s)
    p = np.exp(logs - special.logsumexp(logs))
    return float(math.fsum((p * np.asarray(c(k), dtype=float)).tolist()))


def gaussian_cost(sigma: float, cost: Any) -> float:
    """``E c(X)`` for ``X ~ N(0, σ²)``.

    Examples
    --------
    >>> round(gaussian_cost(2.0, "abs") / (2.0 * (2 / math.pi) ** 0.5), 10)
    1.0
    """
    s = check_real("sigma", sigma, low=0.0, high=1e300, low_open=True)
    c = as_cost(cost)

    def density(x: float) -> float:
        return (
            float(np.asarray(c(np.array([x])))[0])
            * math.exp(-0.5 * (x / s) ** 2)
            / (s * math.sqrt(2 * math.pi))
        )

    total = 0.0
    for lo, hi in ((-40.0 * s, 0.0), (0.0, 40.0 * s)):
        val, err = integrate.quad(density, lo, hi, limit=400, epsabs=0.0, epsrel=1e-12)
        if not err <= 1e-10 * max(abs(val), 1e-300):
            raise ValueError(
                f"the Gaussian expectation of {c!r} did not converge (error {err:.3g})."
            )
        total += val
    return total
