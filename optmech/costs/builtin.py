"""The built-in costs: powers of the error (symmetric or not) and the 0-1 (threshold) cost."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from optmech._scipy import special
from optmech._validation import check_real
from optmech.costs._geometric import (
    MAX_EXPLICIT_TERMS,
    first_index,
    geometric_head,
    geometric_moment,
    geometric_power,
    power_gap,
    ramp_series,
)
from optmech.costs.base import Cost, FloatArray, _num

__all__ = ["Absolute", "Asymmetric", "Power", "Squared", "ZeroOne"]


def _largest_finite_exponent(period: float, ratio: float) -> float | None:
    """About the largest ``p`` for which ``Σ_k ratio^k (k·period)^p`` is a finite float64:
    the sum is about ``Γ(p + 1)·period^p/s^(p + 1)`` with ``s = −ln ratio`` (the moments of a
    geometric tail, as of the Laplace law), whose log is convex in ``p``; None when there is
    no tail (``ratio = 0``) or no bound.

    Examples
    --------
    >>> round(_largest_finite_exponent(1.0, float(np.exp(-1.0))), 1)
    170.6
    """
    if not 0.0 < ratio < 1.0 or not 0.0 < period < float("inf"):
        return None
    scale = -math.log(ratio)
    limit = math.log(float(np.finfo(np.float64).max))

    def log_sum(p: float) -> float:
        return math.lgamma(p + 1.0) + p * math.log(period) - (p + 1.0) * math.log(scale)

    if log_sum(0.0) > limit:
        return None
    low, high = 0.0, 1.0
    while log_sum(high) <= limit:
        low, high = high, 2.0 * high
    for _ in range(60):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if log_sum(mid) <= limit else (low, mid)
    return low


class _PowerLike(Cost):
    """``c(e) = w₊ e^p`` for ``e > 0`` and ``w₋ |e|^p`` for ``e < 0`` — closed forms throughout."""

    def __init__(self, p: float, over: float = 1.0, under: float = 1.0) -> None:
        self._p = p
        self._over = over
        self._under = under
        self.symmetric = over == under
        self.nondecreasing = True
        self.growth = p

    @property
    def power_law(self) -> tuple[float, float, float]:
        return (float(self._p), float(self._over), float(self._under))

    def _value(self, e: FloatArray) -> FloatArray:
        mag = np.abs(e) ** self._p
        return np.where(e >= 0, self._over * mag, self._under * mag)

    def _antiderivative(self, x: FloatArray) -> FloatArray:
        mag = np.abs(x) ** (self._p + 1.0) / (self._p + 1.0)
        return np.where(x >= 0, self._over * mag, -self._under * mag)

    def _overflow_message(self, what: str, period: float, ratio: float) -> str:
        """Name the exponent and the largest one whose tail sum stays finite here."""
        largest = _largest_finite_exponent(abs(period), ratio)
        head = (
            f"{what} of {self!r} overflows float64 (largest finite {np.finfo(np.float64).max:.4g})"
        )
        if largest is not None and self._p > largest:
            return (
                f"{head}: the cost's exponent `power` must be in (0, {largest:.4g}] (about) for "
                f"period {abs(period):g} and ratio {ratio:.6g}; got {self._p:g}."
            )
        return (
            f"{head} at period {abs(period):g} and ratio {ratio:.6g}: a smaller exponent "
            f"`power` (got {self._p:g}), period or error keeps it finite."
        )

    def _outwards(self, period: float) -> float:
        """Weight of the half line a tail walks into (``over`` for ``period > 0``)."""
        return self._over if period > 0 else self._under

    @staticmethod
    def _far_from(y: FloatArray, t: float) -> FloatArray | None:
        """``k₀``: the first period with ``y + k₀·t ≥ 0`` (``y`` measured outwards, ``t > 0``);
        None when too many periods come before it to sum them one by one."""
        k0 = first_index(lambda k: y + k * t >= 0, -y / t)
        if k0 is None or float(k0.max(initial=0.0)) * max(k0.size, 1) > MAX_EXPLICIT_TERMS:
            return None
        return k0

    def _periodic_sum_closed(self, x: FloatArray, period: float, ratio: float) -> FloatArray | None:
        """The binomial closed form (``_periodic_sum_binomial``), or,
        where its terms overflow though the sum does not (a huge exponent against a tiny
        ratio), the sum of the terms in log space
        (``_periodic_sum_logspace``)."""
        try:
            out = self._periodic_sum_binomial(x, period, ratio)
        except OverflowError:
            out = np.full(x.shape, np.inf)
        if out is not None and np.all(np.isfinite(out)):
            return out
        logged = self._periodic_sum_logspace(x, period, ratio)
        return out if logged is None else logged

    def _periodic_sum_logspace(
        self, x: FloatArray, period: float, ratio: float
    ) -> FloatArray | None:
        """``Σ_k ρ^k c(x + kT)`` from the logs of its terms, ``k log ρ + p log|x + kT| + log w``,
        scaled by their largest before the exponential: no term overflows unless the sum does
        (then ``inf``). The log of a term is concave in ``k``, so the terms rise to one peak,
        near ``k = p/(−log ρ)``, and fall; the sum stops where they are 40 decades below the
        peak. None when that takes more than ``MAX_EXPLICIT_TERMS`` terms (a ratio near 1,
        where the binomial form serves)."""
        if not 0.0 < ratio < 1.0 or x.size == 0:
            return None
        log_ratio, t, p = math.log(ratio), abs(period), float(self._p)
        y = x if period > 0 else -x  # measured outwards
        peak = max(0.0, p / -log_ratio - float(np.min(y)) / t)
        reach = float(np.max(np.abs(y)))

        def log_term(k: float) -> float:
            return k * log_ratio + p * math.log(reach + k * t + 1.0)

        top = log_term(math.ceil(peak))
        last = math.ceil(peak) + 1
        while log_term(last) > top - 40.0 * math.log(10.0):
            last *= 2
            if last * x.size > MAX_EXPLICIT_TERMS:
                return None
        ks = np.arange(last + 1, dtype=np.float64).reshape((-1,) + (1,) * x.ndim)
        e = x + ks * period
        weight = np.where(e >= 0, self._over, self._under)
        with np.errstate(divide="ignore"):
            logs = ks * log_ratio + p * np.log(np.abs(e)) + np.log(weight)
        largest = np.max(logs, axis=0)
        finite = np.isfinite(largest)
        shift = np.where(finite, largest, 0.0)
        scaled = np.sum(np.exp(logs - shift), axis=0)
        with np.errstate(over="ignore"):
            return np.asarray(np.where(finite, np.exp(shift) * scaled, 0.0), dtype=np.float64)

    def _periodic_sum_binomial(
        self, x: FloatArray, period: float, ratio: float
    ) -> FloatArray | None:
        """``Σ_k ρ^k c(x + kT) = w Σ_i C(p, i) y^(p−i) |T|^i Σ_k k^i ρ^k`` on the far half line
        (``y = x + k₀T`` mirrored to ``y ≥ 0``): non-negative terms only. The periods before
        ``k₀`` are summed one by one."""
        if not float(self._p).is_integer():
            return None
        p, t = int(self._p), abs(period)
        y = x if period > 0 else -x
        k0 = self._far_from(y, t)
        if k0 is None:
            return None
        far = np.where(k0 > 0, y + k0 * t, y)
        total = np.zeros_like(far)
        for i in range(p + 1):
            total = total + special.comb(p, i) * far ** (p - i) * t**i * geometric_moment(i, ratio)
        head = self._head(lambda k: np.asarray(self(x + k * period)), k0, ratio)
        return head + self._outwards(period) * geometric_power(ratio, k0) * total

    def _periodic_integral_closed(
        self, a: FloatArray, b: FloatArray, period: float, ratio: float
    ) -> FloatArray | None:
        """``Σ_k ρ^k ∫_{a+kT}^{b+kT} c`` on the far half line (cells ``[y, y + w]``, ``y ≥ 0``
        after mirroring): ``w Σ_i C(p, i) |T|^i Σ_k k^i ρ^k ((y + w)^q − y^q)/q`` with
        ``q = p − i + 1``, each power gap in the cancellation-free form of
        ``power_gap``. Non-negative terms only, so the
        result keeps its relative precision however close ``ρ`` is to 1. The periods before
        ``k₀`` (cells reaching the near half line) are summed one by one."""
        if not float(self._p).is_integer():
            return None
        sign = np.where(b >= a, 1.0, -1.0)
        p, t = int(self._p), abs(period)
        low = np.minimum(a, b) if period > 0 else -np.maximum(a, b)
        k0 = self._far_from(low, t)
        if k0 is None:
            return None
        width = np.abs(b - a)
        far = np.where(k0 > 0, low + k0 * t, low)
        total = np.zeros_like(far)
        for i in range(p + 1):
            q = p - i + 1
            moment = geometric_moment(i, ratio)
            total = total + special.comb(p, i) * t**i * moment * power_gap(far, width, q) / q
        head = self._head(
            lambda k: np.asarray(self.integral(a + k * period, b + k * period)), k0, ratio
        )
        return head + sign * self._outwards(period) * geometric_power(ratio, k0) * total

    @staticmethod
    def _head(term: Callable[[FloatArray], FloatArray], k0: FloatArray, ratio: float) -> FloatArray:
        """``Σ_{k<k₀} ρ^k term(k)`` per point (the periods summed one by one)."""
        longest = int(k0.max(initial=0.0))
        if longest == 0:
            return np.zeros(k0.shape)
        ks = np.arange(longest, dtype=np.float64).reshape((-1,) + (1,) * k0.ndim)
        terms = np.where(ks < k0, geometric_power(ratio, ks) * term(ks), 0.0)
        return np.asarray(np.sum(terms, axis=0), dtype=np.float64)


class Power(_PowerLike):
    """$c(e) = |e|^p$ for ``p > 0``.

    Parameters
    ----------
    p : float
        Exponent, in (0, inf).

    Examples
    --------
    >>> Power(3)(-2.0)
    8.0
    """

    def __init__(self, p: float) -> None:
        super().__init__(check_real("p", p, low=0.0, low_open=True))

    @property
    def p(self) -> float:
        """The exponent."""
        return self._p

    @property
    def name(self) -> str:
        return f"power:{_num(self._p)}"

    def __repr__(self) -> str:
        return f"Power(p={self._p!r})"


class _FixedPower(Power):
    """A ``Power`` whose exponent and short name are fixed by the subclass.

    Subclasses set ``_exponent`` (the ``p``) and ``_label`` (the name); they take no arguments
    and print as ``ClassName()``.
    """

    _exponent: ClassVar[float]
    _label: ClassVar[str]

    def __init__(self) -> None:
        super().__init__(self._exponent)

    @property
    def name(self) -> str:
        return self._label

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Absolute(_FixedPower):
    """``c(e) = |e|`` (the ℓ¹ cost).

    Examples
    --------
    >>> from optmech.costs import Absolute
    >>> cost = Absolute()
    >>> cost([-2.0, 0.5]).tolist(), float(cost.integral(-1.0, 2.0))
    ([2.0, 0.5], 2.5)
    """

    _exponent = 1.0
    _label = "abs"


class Squared(_FixedPower):
    """$c(e) = e²$ (the ℓ² cost, i.e. the noise power).

    Examples
    --------
    >>> from optmech.costs import Squared
    >>> Squared()([-2.0, 3.0]).tolist(), round(float(Squared().integral(0.0, 3.0)), 12)
    ([4.0, 9.0], 9.0)
    """

    _exponent = 2.0
    _label = "squared"


class Asymmetric(_PowerLike):
    """$c(e) = over · e^p$ for $e ≥ 0$ (over-estimates), $under · |e|^p$ for ``e < 0``.

    Monotone in ``|e|`` but not symmetric unless ``over == under``: the costs no theorem covers.

    Parameters
    ----------
    over : float
        Weight on over-estimates, in (0, inf).
    under : float
        Weight on under-estimates, in (0, inf).
    p : float, default 1
        Exponent, in (0, inf).

    Examples
    --------
    >>> c = Asymmetric(over=3, under=1)
    >>> float(c(2.0)), float(c(-2.0)), c.symmetric
    (6.0, 2.0, False)
    """

    def __init__(self, *, over: float, under: float, p: float = 1.0) -> None:
        super().__init__(
            check_real("p", p, low=0.0, low_open=True),
            over=check_real("over", over, low=0.0, low_open=True),
            under=check_real("under", under, low=0.0, low_open=True),
        )

    @property
    def name(self) -> str:
        return f"asym:{_num(self._over)},{_num(self._under)},{_num(self._p)}"

    def __repr__(self) -> str:
        return f"Asymmetric(over={self._over!r}, under={self._under!r}, p={self._p!r})"


class ZeroOne(Cost):
    """``c(e) = 1[|e| > tolerance]``: an answer is wrong when it misses by more than the tolerance.

    Parameters
    ----------
    tolerance : float, default 0
        Non-negative, finite. With 0 on integer errors this is the 0-1 loss $1[r ≠ i]$.

    Examples
    --------
    >>> ZeroOne(0.5)([0.2, -0.7])
    array([0., 1.])
    """

    growth = 0.0

    def __init__(self, tolerance: float = 0.0) -> None:
        self._t = check_real("tolerance", tolerance, low=0.0)

    @property
    def tolerance(self) -> float:
        """Errors up to this size cost nothing."""
        return self._t

    @property
    def name(self) -> str:
        return f"zero-one:{_num(self._t)}"

    def _value(self, e: FloatArray) -> FloatArray:
        return (np.abs(e) > self._t).astype(np.float64)

    def _antiderivative(self, x: FloatArray) -> FloatArray:
        return np.sign(x) * np.maximum(np.abs(x) - self._t, 0.0)

    def _periodic_sum_closed(self, x: FloatArray, period: float, ratio: float) -> FloatArray | None:
        """``Σ_k ρ^k 1[|x + kT| > t] = (ρ^(k₊) + 1 − ρ^(k₋))/(1 − ρ)``: ``k₋`` periods below
        ``−t`` then, from ``k₊`` on, above ``t`` (walking outwards; the cost is symmetric, so
        ``period < 0`` is the mirror image). Both indices are checked against the float sums
        ``x + k·T`` that the series would evaluate."""
        if ratio == 0.0:
            return np.asarray(self._value(x), dtype=np.float64)
        y, t = (x, period) if period > 0 else (-x, -period)
        above = first_index(lambda k: y + k * t > self._t, (self._t - y) / t)
        below = first_index(lambda k: y + k * t >= -self._t, (-self._t - y) / t)
        if above is None or below is None:
            return None
        return geometric_power(ratio, above) / (1.0 - ratio) + geometric_head(ratio, below)

    def _periodic_integral_closed(
        self, a: FloatArray, b: FloatArray, period: float, ratio: float
    ) -> FloatArray | None:
        """``Σ_k ρ^k ∫_{a+kT}^{b+kT} 1[|e| > t] de``: the parts of each cell
        ``[y + kT, y + kT + w]`` beyond ``t`` and below ``−t`` are clipped ramps in ``k``
        (``ramp_series``): geometric blocks plus the few
        periods where a cell crosses ``±t``, non-negative terms only."""
        sign = np.where(b >= a, 1.0, -1.0)
        low = np.minimum(a, b) if period > 0 else -np.maximum(a, b)
        t, width = abs(period), np.abs(b - a)
        beyond = ramp_series(low + width - self._t, t, width, ratio)
        below = ramp_series(-self._t - low, -t, width, ratio)
        if beyond is None or below is None:
            return None
        return sign * (beyond + below)

    def __repr__(self) -> str:
        return f"ZeroOne(tolerance={self._t!r})"
