"""Truncated Laplace noise for (ε, δ)-DP.

Geng, Ding, Guo & Kumar (2020), *Tight analysis of privacy and utility tradeoff in approximate
differential privacy*: the density is proportional to
``e^(−ε|x|/Δ)`` on ``[−A, A]`` and zero outside, with

    A = (Δ/ε) ln(1 + (e^ε − 1)/(2δ)).

Writing ``λ = Δ/ε``, ``t = A/λ`` and ``u = e^(−t)``, the density is
``f(x) = e^(−|x|/λ) / (2λ(1 − u))`` on ``[−A, A]``, and for ``0 ≤ y ≤ A``

    P(X > y) = P(X < −y) = e^(−y/λ) (1 − e^(−(A − y)/λ)) / (2(1 − u)),

a product of positive factors (``expm1`` for the second), so ``sf`` keeps its relative precision
up to the end of the support and ``logsf`` (the sum of the factors' logs) stays finite where
``e^(−y/λ)`` underflows (tiny δ).

Privacy, derived here: for a shift ``0 < d ≤ Δ`` the hockey-stick divergence
``∫ (f(x) − e^ε f(x − d))_+ dx`` is the mass of ``[−A, −A + d)``, which the shifted copy does not
cover, plus nothing elsewhere (``|x| ≥ |x − d| − Δ``) as long as ``A ≥ Δ``; at ``d = Δ`` that mass
is ``(e^ε − 1) u / (2(1 − u)) = δ`` exactly. When ``A < Δ`` (which happens iff ``δ > 1/2``) the
divergence at ``d = Δ`` is ``1 − (e^(−ε)/u − u)/(2(1 − u))``, and
``δ − that = e^(−ε)(1/u − e^ε)² / (2(1/u − 1)) ≥ 0``; ``A > Δ/2`` always (since
``1/u > (1 + e^ε)/2 ≥ e^(ε/2)``), so the supports of the two copies overlap. Hence
`TruncatedLaplace.privacy` is ``ApproxDP(ε, δ)`` for every δ in (0, 1),
tight for
``δ ≤ 1/2``.

Examples
--------
>>> from optmech.mechanisms.truncated_laplace import TruncatedLaplace
>>> noise = TruncatedLaplace(epsilon=1.0, delta=0.5)   # 1 + (e − 1)/1 = e, so A = Δ
>>> noise.half_width
1.0
>>> noise.cdf(0.0)
0.5
"""

from __future__ import annotations

import math
import sys

import numpy as np

from optmech._floats import FloatArray
from optmech._scipy import special
from optmech._validation import check_real
from optmech.costs import Cost, Power, ZeroOne
from optmech.mechanisms._symmetric_quad import integrate_symmetric
from optmech.mechanisms.base import ContinuousNoise, _keyword_repr, _SymmetricNoise
from optmech.privacy import ApproxDP

__all__ = ["TruncatedLaplace"]


def _log_tail_ratio(epsilon: float, delta: float) -> float:
    """``t = A/λ = ln(1 + (e^ε − 1)/(2δ))``, without overflow for large ε or tiny δ."""
    if epsilon > 700.0:
        # ln(e^ε − 1 + 2δ) − ln(2δ) = ε + ln(1 − (1 − 2δ)e^(−ε)) − ln(2δ).
        return epsilon + math.log1p(-(1.0 - 2.0 * delta) * math.exp(-epsilon)) - math.log(2 * delta)
    log_ratio = math.log(math.expm1(epsilon)) - math.log(2.0 * delta)
    if log_ratio < 700.0:
        return math.log1p(math.exp(log_ratio))
    return log_ratio + math.log1p(math.exp(-log_ratio))


def _log_lower_gamma(a: float, x: float) -> float:
    """``ln γ(a, x)`` (lower incomplete gamma), also when the regularised value underflows."""
    reg = float(special.gammainc(a, x))
    if reg > 1e-250:
        return math.log(reg) + float(special.gammaln(a))
    # γ(a, x) = x^a e^(−x) Σ_n x^n / (a (a+1) ... (a+n)); here a ≫ x so the terms fall fast.
    term, total, n = 1.0 / a, 1.0 / a, 0
    while term > 1e-17 * total and n < 100_000:
        n += 1
        term *= x / (a + n)
        total += term
    return a * math.log(x) - x + math.log(total)


class TruncatedLaplace(_SymmetricNoise, ContinuousNoise):
    """Laplace noise truncated to $[−A, A]$ (Geng, Ding, Guo & Kumar 2020).

    Parameters
    ----------
    epsilon : float
        Privacy-loss bound ε, in (0, inf).
    delta : float
        Additive slack δ, in (0, 1).
    sensitivity : float, default 1
        Query sensitivity Δ, in (0, inf).

    Attributes
    ----------
    scale : float
        $λ = Δ/ε$.
    half_width : float
        $A = λ ln(1 + (e^ε − 1)/(2δ))$: the support is $[−A, A]$.

    Notes
    -----
    `privacy` is ``ApproxDP(ε, δ)``: see the module docstring for the derivation (tight
    at shift Δ for $δ ≤ 1/2$, conservative above).

    Examples
    --------
    >>> noise = TruncatedLaplace(epsilon=1.0, delta=1e-6, sensitivity=2.0)
    >>> round(noise.half_width, 6)
    27.327379
    >>> noise.privacy
    ApproxDP(epsilon=1.0, delta=1e-06)
    """

    def __init__(self, *, epsilon: float, delta: float, sensitivity: float = 1.0) -> None:
        self._epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
        self._delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        with np.errstate(all="ignore"):
            self.scale = float(np.float64(self.sensitivity) / self._epsilon)
            self._t = _log_tail_ratio(self._epsilon, self._delta)
            self.half_width = float(np.float64(self.scale) * self._t)
            self._u = math.exp(-self._t)
            self._one_minus_u = -math.expm1(-self._t)
            self._peak = float(1.0 / (2.0 * np.float64(self.scale) * self._one_minus_u))
        finite = all(
            math.isfinite(v) and v > 0.0 for v in (self.scale, self.half_width, self._peak)
        )
        if not finite or self._one_minus_u < sys.float_info.min or self.scale < sys.float_info.min:
            raise ValueError(
                "`epsilon`, `delta` and `sensitivity` give a truncated Laplace outside "
                f"floating-point range (scale {self.scale!r}, half-width {self.half_width!r}); "
                f"got epsilon={self._epsilon!r}, delta={self._delta!r}, "
                f"sensitivity={self.sensitivity!r}."
            )

    @property
    def privacy(self) -> ApproxDP:
        """``ApproxDP(ε, δ)`` for queries of sensitivity `sensitivity`."""
        return ApproxDP(self._epsilon, self._delta)

    def __repr__(self) -> str:
        return _keyword_repr(
            self, epsilon=self._epsilon, delta=self._delta, sensitivity=self.sensitivity
        )

    # -- formulas -----------------------------------------------------------------------
    def _pdf(self, x: FloatArray) -> FloatArray:
        with np.errstate(all="ignore"):
            inside = self._peak * np.exp(-np.abs(x) / self.scale)
        return np.where(np.abs(x) <= self.half_width, inside, 0.0)

    def _lower_tail(self, y: FloatArray) -> FloatArray:
        """``P(X ≤ −y)`` for ``0 ≤ y ≤ A``: ``e^(−y/λ)(1 − e^(−(A − y)/λ)) / (2(1 − u))``."""
        with np.errstate(all="ignore"):
            return (
                np.exp(-y / self.scale)
                * -np.expm1(-(self.half_width - y) / self.scale)
                / (2.0 * self._one_minus_u)
            )

    def _log_lower_tail(self, y: FloatArray) -> FloatArray:
        """``log P(X ≤ −y)`` for ``0 ≤ y ≤ A``, from the same product as
        `_lower_tail`.

        ``−y/λ + log(1 − e^(−(A − y)/λ)) − log(2(1 − u))``: finite wherever the tail is positive
        (even when ``e^(−y/λ)`` underflows), ``−inf`` at ``y = A``.
        """
        with np.errstate(all="ignore"):
            log_tail = (
                -y / self.scale
                + np.log(-np.expm1(-(self.half_width - y) / self.scale))
                - math.log(2.0 * self._one_minus_u)
            )
        return np.minimum(log_tail, -math.log(2.0))

    def _logpdf(self, x: FloatArray) -> FloatArray:
        with np.errstate(all="ignore"):
            inside = math.log(self._peak) - np.abs(x) / self.scale
        return np.where(np.abs(x) <= self.half_width, inside, -np.inf)

    def _cdf(self, x: FloatArray) -> FloatArray:
        y = np.clip(np.abs(x), 0.0, self.half_width)
        tail = np.clip(self._lower_tail(y), 0.0, 0.5)
        return np.where(x < 0.0, tail, 1.0 - tail)

    def _logcdf(self, x: FloatArray) -> FloatArray:
        y = np.clip(np.abs(x), 0.0, self.half_width)
        upper = np.log1p(-np.clip(self._lower_tail(y), 0.0, 0.5))
        return np.where(x < 0.0, self._log_lower_tail(y), upper)

    def _left_quantile(self, q: FloatArray) -> FloatArray:
        """``x ≤ 0`` with ``P(X ≤ x) = q`` for ``0 ≤ q ≤ 1/2``: ``λ ln(u + 2q(1 − u))``."""
        with np.errstate(all="ignore"):
            w = self._u + 2.0 * q * self._one_minus_u
            near_zero = np.log1p(-(1.0 - 2.0 * q) * self._one_minus_u)
            out = self.scale * np.where(w < 0.5, np.log(w), near_zero)
        return np.clip(out, -self.half_width, 0.0)

    def _ppf(self, q: FloatArray) -> FloatArray:
        low = q <= 0.5
        return np.where(
            low,
            self._left_quantile(np.where(low, q, 0.5)),
            -self._left_quantile(np.where(low, 0.5, 1.0 - q)),
        )

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        return self._ppf(rng.random(size))

    def _expected_cost(self, cost: Cost) -> float:
        if isinstance(cost, Power):
            # E|X|^p = λ^p γ(p + 1, t) / (1 − u)  (γ: lower incomplete gamma).
            p = cost.p
            log_value = (
                p * math.log(self.scale)
                + _log_lower_gamma(p + 1.0, self._t)
                - math.log(self._one_minus_u)
            )
            return math.exp(log_value) if log_value < 709.0 else math.inf
        if isinstance(cost, ZeroOne):
            y = cost.tolerance
            if y >= self.half_width:
                return 0.0
            return float(2.0 * self._lower_tail(np.asarray(y)))
        return integrate_symmetric(
            cost,
            lambda y: np.exp(-y) / (2.0 * self._one_minus_u),
            self.scale,
            self._t,
        )

    # -- scipy.stats parity: exact moments and entropy ------------------------------------------
    def _even_moment(self, n: int) -> float:
        """``E X^n = λ^n γ(n + 1, t)/(1 − u)`` (even ``n``; γ the lower incomplete gamma)."""
        log_value = (
            n * math.log(self.scale)
            + _log_lower_gamma(n + 1.0, self._t)
            - math.log(self._one_minus_u)
        )
        return math.exp(log_value) if log_value < 709.0 else math.inf

    def _entropy(self) -> float:
        """``log(2λ(1 − u)) + E|X|/λ`` with ``E|X|/λ = γ(2, t)/(1 − u)``."""
        mean_abs = float(special.gammainc(2.0, self._t)) / self._one_minus_u
        return math.log(2.0 * self.scale) + math.log(self._one_minus_u) + mean_abs
