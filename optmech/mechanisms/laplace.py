"""The Laplace mechanism: ``X ~ Lap(Δ/ε)``, density ``(ε/2Δ) exp(−ε|x|/Δ)``.

The classical ε-DP additive noise (Dwork, McSherry, Nissim & Smith 2006, the Laplace mechanism; Geng
& Viswanath 2016 give its costs ``Δ/ε`` for ``|x|`` and ``2Δ²/ε²`` for ``x²``). It is the baseline
the staircase mechanism (`optmech.mechanisms.staircase`) improves
on: the ratio of their costs grows like ``e^(ε/2)/ε`` for ``|x|`` as ε grows.

Expected costs are exact:

* power-law costs ``w₊ e^p`` / ``w₋ |e|^p`` (`Absolute`,
  `Squared`, `Power`,
  `Asymmetric`): ``(w₊ + w₋)/2 · Γ(p + 1) (Δ/ε)^p``;
* `ZeroOne` with tolerance ``t``: ``P(|X| > t) = exp(−εt/Δ)``;
* any other cost: adaptive quadrature (`scipy.integrate.quad`, ``epsrel`` 1e-12) of
  ``c(±s·y) e^(−y)/2`` over the half line, split into pieces ``[0, 1], [1, 2], [2, 4], …``;
  the result is accepted only when the summed error estimates are below
  `QUAD_RTOL` relative, otherwise `ValueError` is raised.

Tails are exact: ``sf(x) = cdf(−x)`` by symmetry (as ``scipy.stats.laplace``), which is
``½ exp(−x/λ)`` for ``x ≥ 0`` (``λ = Δ/ε``); ``logsf``/``logcdf`` are ``−log 2 − |x|/λ`` on the
tail side and ``log1p(−½ exp(−|x|/λ))`` on the other, finite for every finite ``x``.

Examples
--------
>>> lap = Laplace(epsilon=2.0, sensitivity=1.0)
>>> lap
Laplace(epsilon=2.0, sensitivity=1.0)
>>> lap.expected_cost("abs"), lap.expected_cost("squared")
(0.5, 0.5)
>>> float(lap.cdf(0.0))
0.5
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from optmech._floats import TINY as _TINY
from optmech._floats import FloatArray
from optmech._scipy import integrate
from optmech._validation import check_real
from optmech.costs import Cost, ZeroOne
from optmech.mechanisms.base import ContinuousNoise, _keyword_repr, _SymmetricNoise
from optmech.mechanisms.description import PrivacySource, SourceKind
from optmech.privacy import PureDP

__all__ = ["QUAD_RTOL", "Laplace"]


#: Relative accuracy accepted from the quadrature fallback of ``Laplace.expected_cost``.
QUAD_RTOL = 1e-10

# Smallest positive normal double: scales below it lose precision.
# Largest scale: samples and quantiles (up to ~745 scales out) must stay finite.
_HUGE = 1e300


_F = TypeVar("_F", bound=Callable[..., Any])


def quiet_overflow(fn: _F) -> _F:
    """Run a formula with numpy overflow warnings off: an overflow there means a density or a
    tail of exactly 0 (``exp(−inf)``) or a point beyond the double range, never an error."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(over="ignore"):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def arithmetic_as_value_error(fn: _F) -> _F:
    """Turn a float overflow / division by zero inside an exact-cost series into a ValueError.

    The cost series of `optmech.costs` work in Python floats; for extreme
    parameters (a high power at a tiny ε) an intermediate leaves the double range. That is a
    property of the arguments, so it is reported as such.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ArithmeticError as exc:
            raise ValueError(
                "the expected cost leaves the double range for these parameters "
                f"({type(exc).__name__}: {exc}); use a larger epsilon or a slower-growing cost."
            ) from exc

    return wrapper  # type: ignore[return-value]


def _log_gamma(x: float) -> float:
    """``ln Γ(x)`` for ``x > 0``: ``Γ`` itself while it is finite (exact at small integers, so
    ``E X² = 2 s²`` comes out exactly), ``math.lgamma`` beyond."""
    return math.log(math.gamma(x)) if x < 171.0 else math.lgamma(x)


def _power_law(cost: Cost) -> tuple[float, float, float] | None:
    """``(p, w₊, w₋)`` when ``cost`` is ``w₊ e^p`` for ``e ≥ 0`` and ``w₋ |e|^p`` for ``e < 0``.

    Recognises the power-law family of `optmech.costs` (Absolute, Squared, Power,
    Asymmetric); ``None`` for any other cost. For a symmetric noise law the expected cost of
    such a cost is ``(w₊ + w₋)/2 · E|X|^p``.
    """
    return cost.power_law


def _laplace_quadrature(cost: Cost, scale: float) -> float:
    """``E c(X)`` for ``X ~ Lap(scale)`` by adaptive quadrature on pieces of each half line.

    With ``x = ±scale·y`` the expectation is ``½ ∫_0^∞ (c(scale·y) + c(−scale·y)) e^(−y) dy``.
    The half line is cut at ``y = 0, 1, 2, 4, …, 1024`` (so kinks of ``c`` far out are met
    by a piece of bounded length) with a final piece to infinity.
    """

    def integrand(y: float) -> float:
        pts = np.array([scale * y, -scale * y])
        values = np.asarray(cost(pts), dtype=np.float64)
        return float(values.sum() * math.exp(-y) / 2.0)

    edges = [0.0, 1.0, *[2.0**k for k in range(1, 11)]]
    total = 0.0
    error = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        pieces = [*itertools.pairwise(edges), (edges[-1], math.inf)]
        for lo, hi in pieces:
            val, err = integrate.quad(integrand, lo, hi, epsabs=0.0, epsrel=1e-12, limit=200)
            total += val
            error += err
    if not (math.isfinite(total) and math.isfinite(error)):
        raise ValueError(f"the expected cost of Laplace noise under {cost!r} is not finite.")
    if error > QUAD_RTOL * max(abs(total), 1e-300):
        raise ValueError(
            f"quadrature of the expected cost under {cost!r} did not reach relative accuracy "
            f"{QUAD_RTOL:g} (error estimate {error:.3g} for value {total:.6g}); give the cost "
            "in a closed-form family (Power, Asymmetric, ZeroOne) or smooth it."
        )
    return total


class Laplace(_SymmetricNoise, ContinuousNoise):
    """Laplace noise $Lap(Δ/ε)$: density $f(x) = (ε/2Δ) exp(−ε|x|/Δ)$, ε-DP for sensitivity Δ.

    Dwork, McSherry, Nissim & Smith (2006); the baseline of the staircase (Geng & Viswanath 2016).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : float, default 1
        Query sensitivity Δ, in (0, inf). The scale $Δ/ε$ must lie in [2.2e-308, 1e300].

    Attributes
    ----------
    scale : float
        $Δ/ε$.

    Examples
    --------
    >>> Laplace(epsilon=1.0).expected_cost("zero-one:1")  # P(|X| > 1) = e^-1
    0.36787944117144233
    """

    def __init__(self, *, epsilon: float, sensitivity: float = 1.0) -> None:
        self._epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        scale = self.sensitivity / self._epsilon
        if not _TINY <= scale <= _HUGE:
            raise ValueError(
                "`sensitivity`/`epsilon` (the Laplace scale) must be in [2.2e-308, 1e300] "
                "(a normal double whose samples and quantiles stay finite); got "
                f"sensitivity={self.sensitivity!r}, epsilon={self._epsilon!r}."
            )
        self.scale = scale

    @property
    def privacy(self) -> PureDP:
        """``PureDP(epsilon)``: $f(x) ≤ e^ε f(x + d)$ for all $|d| ≤ Δ$."""
        return PureDP(self._epsilon)

    # -- self-description -------------------------------------------------------------------
    def privacy_source(self) -> PrivacySource:
        """The Laplace law of scale `scale`: closed-form profile and divergences (kind
        ``laplace``)."""
        return self._source(SourceKind.LAPLACE, parameters={"scale": self.scale})

    def __repr__(self) -> str:
        return _keyword_repr(self, epsilon=self._epsilon, sensitivity=self.sensitivity)

    # -- formulas ---------------------------------------------------------------------------
    @quiet_overflow
    def _pdf(self, x: FloatArray) -> FloatArray:
        return np.exp(-np.abs(x) / self.scale) / (2.0 * self.scale)

    @quiet_overflow
    def _cdf(self, x: FloatArray) -> FloatArray:
        half_tail = 0.5 * np.exp(-np.abs(x) / self.scale)
        return np.where(x < 0, half_tail, 1.0 - half_tail)

    @quiet_overflow
    def _logpdf(self, x: FloatArray) -> FloatArray:
        return -np.abs(x) / self.scale - math.log(2.0 * self.scale)

    @quiet_overflow
    def _logcdf(self, x: FloatArray) -> FloatArray:
        # log P(X ≤ x) = log(1/2) − |x|/λ for x < 0 and log1p(−exp(−x/λ)/2) for x ≥ 0.
        z = np.abs(x) / self.scale
        return np.where(x < 0, -math.log(2.0) - z, np.log1p(-0.5 * np.exp(-z)))

    @quiet_overflow
    def _ppf(self, q: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore"):
            low = self.scale * np.log(2.0 * np.minimum(q, 0.5))
            high = -self.scale * np.log(2.0 * (1.0 - np.maximum(q, 0.5)))
        return np.where(q < 0.5, low, high)

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        return np.asarray(rng.laplace(0.0, self.scale, size), dtype=np.float64)

    @arithmetic_as_value_error
    def _expected_cost(self, cost: Cost) -> float:
        law = _power_law(cost)
        if law is not None:
            p, over, under = law
            # E|X|^p = Γ(p + 1) s^p, in logs so that large p or s overflow only if the value does.
            log_moment = _log_gamma(p + 1.0) + p * math.log(self.scale)
            if log_moment > 709.0:
                return math.inf  # reported by expected_cost as a ValueError (not finite)
            return 0.5 * (over + under) * math.exp(log_moment)
        if isinstance(cost, ZeroOne):
            return math.exp(-cost.tolerance / self.scale)
        return _laplace_quadrature(cost, self.scale)

    # -- scipy.stats parity: exact moments and entropy ------------------------------------------
    def _even_moment(self, n: int) -> float:
        """``E X^n = n! λ^n`` (even ``n``), in logs."""
        return math.exp(_log_gamma(n + 1.0) + n * math.log(self.scale))

    def _entropy(self) -> float:
        """``1 + log(2λ)``."""
        return 1.0 + math.log(2.0 * self.scale)
