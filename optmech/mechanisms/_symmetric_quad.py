"""Quadrature of a cost against a symmetric noise density, for costs with no closed form.

Shared by the (ε, δ) families (`truncated_laplace`,
`gaussian`): their ``expected_cost`` uses closed forms for
``Power`` and ``ZeroOne`` costs and this stated-accuracy quadrature otherwise.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from optmech._floats import FloatArray
from optmech._scipy import integrate
from optmech.costs import Cost

__all__ = ["QUADRATURE_ACCEPT", "QUADRATURE_RTOL", "integrate_symmetric"]


#: Relative accuracy requested from ``scipy.integrate.quad``.
QUADRATURE_RTOL = 1e-10
#: A result whose error estimate exceeds this (relative) raises instead of being returned.
QUADRATURE_ACCEPT = 1e-8


def integrate_symmetric(
    cost: Cost, weight: Callable[[FloatArray], FloatArray], scale: float, upper: float
) -> float:
    """``∫_0^upper (c(scale·y) + c(−scale·y)) weight(y) dy`` by adaptive quadrature.

    Used for costs with no closed form against a symmetric noise density (``weight`` is the
    density in units of ``scale``, folded onto ``y ≥ 0``; ``upper`` may be ``inf``).
    `scipy.integrate.quad` is asked for `QUADRATURE_RTOL`
    relative accuracy; when its own error estimate exceeds `QUADRATURE_ACCEPT`
    relative the call raises `ValueError` rather than return an inexact "exact" cost.
    """

    def integrand(y: float) -> float:
        pts = np.array([scale * y, -scale * y])
        with np.errstate(all="ignore"):
            w = float(weight(np.asarray(y)))
            return 0.0 if w == 0.0 else float(np.sum(np.asarray(cost(pts)))) * w

    pieces = [(0.0, min(upper, 10.0))]
    if upper > 10.0:
        pieces.append((10.0, upper))
    total, error = 0.0, 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        for lo, hi in pieces:
            val, err = integrate.quad(
                integrand, lo, hi, epsabs=0.0, epsrel=QUADRATURE_RTOL, limit=500
            )
            total += val
            error += err
    if not math.isfinite(total) or error > QUADRATURE_ACCEPT * max(abs(total), 1e-300):
        raise ValueError(
            f"could not integrate {cost!r} against the noise density to relative accuracy "
            f"{QUADRATURE_ACCEPT:g} (estimate {total!r}, error {error!r}); give the cost a "
            "closed-form antiderivative or a smoother shape."
        )
    return total
