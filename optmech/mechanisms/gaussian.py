"""Gaussian noise for (ε, δ)-DP, with the classic or the analytic calibration.

Dwork & Roth (2014), *The Algorithmic Foundations of Differential Privacy*, Thm. A.1 (the classic
calibration); Balle & Wang (2018) (the analytic one). Two ways to pick the standard deviation σ for
queries of sensitivity Δ:

``"classic"``
    ``σ = Δ √(2 ln(1.25/δ)) / ε``, Dwork & Roth, *The Algorithmic Foundations of Differential
    Privacy*, Theorem A.1, whose proof needs ``ε < 1``.
``"analytic"``
    Balle & Wang (ICML 2018), Theorem 8: ``X ~ N(0, σ²)`` is (ε, δ)-DP at sensitivity Δ iff

        Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ,

    the hockey-stick divergence at shift Δ (smaller shifts diverge less). The left side falls
    as σ grows; the smallest admissible σ is found by
    `scipy.optimize.brentq` on
    ``ln σ`` and then nudged up until the inequality holds as evaluated, so the calibration is
    pessimistic (never below the exact σ by more than the evaluation error of the left side).

Tails: ``sf(x) = Φ(−x/σ)`` (`scipy.special.ndtr`, full relative precision down to the
smallest doubles) and ``logsf(x) = log Φ(−x/σ)``, ``logcdf(x) = log Φ(x/σ)`` by
`scipy.special.log_ndtr`, finite for every finite ``x``.

Examples
--------
>>> from optmech.mechanisms.gaussian import Gaussian
>>> round(Gaussian(epsilon=0.5, delta=1e-5).sigma, 6)
9.689611
>>> g = Gaussian(epsilon=2.0, delta=1e-5, calibration="analytic")
>>> g.sigma < Gaussian(epsilon=0.9, delta=1e-5).sigma
True
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from optmech._floats import FloatArray
from optmech._scipy import optimize, special
from optmech._validation import check_real, describe
from optmech.costs import Cost, Power, ZeroOne
from optmech.mechanisms._symmetric_quad import integrate_symmetric
from optmech.mechanisms.base import ContinuousNoise, _keyword_repr, _SymmetricNoise
from optmech.mechanisms.description import PrivacySource, SourceKind
from optmech.privacy import ApproxDP

__all__ = ["Gaussian", "analytic_gaussian_delta"]


CALIBRATIONS = ("classic", "analytic")

_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _log_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """``ln[Φ(a) − e^ε Φ(b)]`` with ``a = Δ/(2σ) − εσ/Δ``, ``b = a − Δ/σ`` (Balle & Wang, Thm 8).

    Computed as ``ln Φ(a) + ln(−expm1(ε + ln Φ(b) − ln Φ(a)))`` with `scipy.special.log_ndtr`,
    which keeps relative accuracy deep in the tails; ``−inf`` when the difference underflows.
    """
    with np.errstate(all="ignore"):
        ratio = np.float64(sensitivity) / sigma
        shift = np.float64(epsilon) * sigma / sensitivity
        a = ratio / 2.0 - shift
        b = -ratio / 2.0 - shift
        log_a = float(special.log_ndtr(a))
        log_b = float(special.log_ndtr(b))
    exponent = epsilon + log_b - log_a
    if math.isnan(exponent) or math.isnan(log_a):
        raise ValueError(
            f"cannot evaluate the Gaussian privacy curve at sigma={sigma!r}, epsilon={epsilon!r}, "
            f"sensitivity={sensitivity!r}: the parameters leave floating-point range."
        )
    if exponent >= 0.0:
        return -math.inf
    return log_a + math.log(-math.expm1(exponent))


def analytic_gaussian_delta(sigma: float, *, epsilon: float, sensitivity: float = 1.0) -> float:
    """The least δ for which $N(0, σ²)$ noise is (ε, δ)-DP at sensitivity Δ (Balle & Wang).

    Parameters
    ----------
    sigma : float
        Standard deviation, in (0, inf).
    epsilon : float
        In [0, inf).
    sensitivity : float, default 1
        In (0, inf).

    Examples
    --------
    >>> round(analytic_gaussian_delta(1.0, epsilon=0.0), 12)   # 2Φ(1/2) − 1
    0.382924922548
    """
    s = check_real("sigma", sigma, low=0.0, low_open=True)
    e = check_real("epsilon", epsilon, low=0.0)
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    return math.exp(_log_delta(s, e, d))


def _analytic_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest σ with δ(σ) ≤ δ, by Brent's method on ``ln σ``, rounded up."""
    target = math.log(delta)
    floor = -1e4  # below ln of any positive float; keeps brentq's values finite

    def gap(log_sigma: float) -> float:
        return max(_log_delta(math.exp(log_sigma), epsilon, sensitivity), floor) - target

    guess = math.log(sensitivity) + 0.5 * math.log(2.0 * math.log(1.25 / delta)) - math.log(epsilon)
    lo_limit, hi_limit = math.log(sys.float_info.min) + 10.0, math.log(sys.float_info.max) - 10.0
    guess = min(max(guess, lo_limit), hi_limit)
    lo = hi = guess
    step = 0.5
    while gap(lo) <= 0.0:
        if lo <= lo_limit:
            raise ValueError(
                f"cannot calibrate the analytic Gaussian for epsilon={epsilon!r}, delta={delta!r}, "
                f"sensitivity={sensitivity!r}: sigma would underflow."
            )
        lo, step = max(lo - step, lo_limit), step * 2.0
    step = 0.5
    while gap(hi) >= 0.0:
        if hi >= hi_limit:
            raise ValueError(
                f"cannot calibrate the analytic Gaussian for epsilon={epsilon!r}, delta={delta!r}, "
                f"sensitivity={sensitivity!r}: sigma would overflow."
            )
        hi, step = min(hi + step, hi_limit), step * 2.0
    root = optimize.brentq(gap, lo, hi, xtol=1e-15, rtol=4.0 * sys.float_info.epsilon, maxiter=500)
    sigma = math.exp(root)
    # Pessimistic: move up until the privacy curve, as evaluated, is within δ.
    bump = sys.float_info.epsilon
    while math.exp(_log_delta(sigma, epsilon, sensitivity)) > delta:
        sigma *= 1.0 + bump
        bump *= 2.0
    return sigma


class Gaussian(_SymmetricNoise, ContinuousNoise):
    """Gaussian noise $N(0, σ²)$ calibrated for (ε, δ)-DP (Dwork & Roth 2014; Balle & Wang 2018).

    Parameters
    ----------
    epsilon : float
        Privacy-loss bound ε, in (0, inf); in (0, 1) for ``calibration="classic"``.
    delta : float
        Additive slack δ, in (0, 1).
    sensitivity : float, default 1
        Query sensitivity Δ, in (0, inf).
    calibration : {"classic", "analytic"}, default "classic"
        ``"classic"``: $σ = Δ√(2 ln(1.25/δ))/ε$ (Dwork & Roth, Thm A.1). ``"analytic"``: the
        smallest σ meeting Balle & Wang's exact condition, rounded up.

    Attributes
    ----------
    sigma : float
        The standard deviation.

    Examples
    --------
    >>> Gaussian(epsilon=0.5, delta=1e-5)
    Gaussian(epsilon=0.5, delta=1e-05, sensitivity=1.0, calibration='classic')
    >>> Gaussian(epsilon=2.0, delta=1e-5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `epsilon` must be in (0, 1) for calibration='classic' ...; got 2.0. Use ...
    """

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float,
        sensitivity: float = 1.0,
        calibration: str = "classic",
    ) -> None:
        self._epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
        self._delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        self.calibration = _check_calibration(calibration)
        if self.calibration == "classic":
            if self._epsilon >= 1.0:
                raise ValueError(
                    "`epsilon` must be in (0, 1) for calibration='classic' (Dwork & Roth, "
                    f"Theorem A.1); got {self._epsilon!r}. Use calibration='analytic' for "
                    "epsilon >= 1."
                )
            with np.errstate(all="ignore"):
                sigma = float(
                    np.float64(self.sensitivity)
                    * math.sqrt(2.0 * math.log(1.25 / self._delta))
                    / self._epsilon
                )
        else:
            sigma = _analytic_sigma(self._epsilon, self._delta, self.sensitivity)
        if not (sys.float_info.min <= sigma < math.inf):
            raise ValueError(
                f"`epsilon`, `delta` and `sensitivity` give sigma={sigma!r}, outside "
                f"floating-point range; got epsilon={self._epsilon!r}, delta={self._delta!r}, "
                f"sensitivity={self.sensitivity!r}."
            )
        self.sigma = sigma

    @property
    def privacy(self) -> ApproxDP:
        """``ApproxDP(ε, δ)`` for queries of sensitivity `sensitivity`."""
        return ApproxDP(self._epsilon, self._delta)

    # -- self-description -------------------------------------------------------------------
    def privacy_source(self) -> PrivacySource:
        """The Gaussian law $N(0, σ²)$: closed-form profile (μ-GDP with $μ = Δ/σ$) and
        divergences (kind ``gaussian``)."""
        return self._source(SourceKind.GAUSSIAN, parameters={"sigma": self.sigma})

    def __repr__(self) -> str:
        return _keyword_repr(
            self,
            epsilon=self._epsilon,
            delta=self._delta,
            sensitivity=self.sensitivity,
            calibration=self.calibration,
        )

    # -- formulas -----------------------------------------------------------------------
    def _pdf(self, x: FloatArray) -> FloatArray:
        with np.errstate(all="ignore"):
            z = x / self.sigma
            return np.exp(-0.5 * z * z) / (self.sigma * _SQRT_2PI)

    def _logpdf(self, x: FloatArray) -> FloatArray:
        with np.errstate(all="ignore"):
            z = x / self.sigma
            return -0.5 * z * z - math.log(self.sigma * _SQRT_2PI)

    def _cdf(self, x: FloatArray) -> FloatArray:
        # ndtr keeps relative precision in the lower tail (down to 1e-308), so the upper tail,
        # Φ(−x/σ) by symmetry, keeps it too.
        with np.errstate(all="ignore"):
            return special.ndtr(x / self.sigma)

    def _logcdf(self, x: FloatArray) -> FloatArray:
        # scipy's log_ndtr keeps relative accuracy in both tails (an asymptotic series far out).
        with np.errstate(all="ignore"):
            return special.log_ndtr(x / self.sigma)

    def _ppf(self, q: FloatArray) -> FloatArray:
        with np.errstate(all="ignore"):
            return self.sigma * special.ndtri(q)

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        return self.sigma * rng.standard_normal(size)

    def _expected_cost(self, cost: Cost) -> float:
        if isinstance(cost, Power):
            # E|X|^p = σ^p 2^(p/2) Γ((p + 1)/2) / √π.
            p = cost.p
            log_value = (
                p * math.log(self.sigma)
                + 0.5 * p * math.log(2.0)
                + float(special.gammaln((p + 1.0) / 2.0))
                - 0.5 * math.log(math.pi)
            )
            return math.exp(log_value) if log_value < 709.0 else math.inf
        if isinstance(cost, ZeroOne):
            return float(special.erfc(cost.tolerance / (self.sigma * math.sqrt(2.0))))
        return integrate_symmetric(
            cost, lambda y: np.exp(-0.5 * y * y) / _SQRT_2PI, self.sigma, math.inf
        )

    # -- scipy.stats parity: exact moments and entropy ------------------------------------------
    def _even_moment(self, n: int) -> float:
        """``E X^n = σ^n (n − 1)!! = σ^n 2^(n/2) Γ((n + 1)/2)/√π`` (even ``n``), in logs."""
        return math.exp(
            n * math.log(self.sigma)
            + 0.5 * n * math.log(2.0)
            + float(special.gammaln((n + 1.0) / 2.0))
            - 0.5 * math.log(math.pi)
        )

    def _entropy(self) -> float:
        """``log(σ √(2πe))``."""
        return math.log(self.sigma) + 0.5 * math.log(2.0 * math.pi * math.e)


def _check_calibration(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"`calibration` must be one of {CALIBRATIONS}; got {describe(value)} "
            f"of type {type(value).__name__}."
        )
    if value not in CALIBRATIONS:
        raise ValueError(f"`calibration` must be one of {CALIBRATIONS}; got {value!r}.")
    return value
