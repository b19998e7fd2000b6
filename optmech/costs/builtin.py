"""The built-in costs: powers of the error (symmetric or not) and the 0-1 (threshold) cost."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from optmech._scipy import special
from optmech._validation import check_real
from optmech.costs.base import Cost, FloatArray, _eulerian_polylog, _num

__all__ = ["Absolute", "Asymmetric", "Power", "Squared", "ZeroOne"]


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

    def _half_line_series(
        self,
        x: FloatArray,
        period: float,
        ratio: float,
        power: int,
        weight_pos: float,
        weight_neg: float,
    ) -> FloatArray | None:
        """``Σ_k ρ^k g(x + kT)`` for ``g(y) = w·|y|^power``, every point on one side of 0."""
        if not float(self._p).is_integer():
            return None
        if period > 0 and np.all(x >= 0):
            y, w = x, weight_pos
        elif period < 0 and np.all(x <= 0):
            y, w = -x, weight_neg
        else:
            return None
        t = abs(period)
        total = np.zeros_like(y)
        for i in range(power + 1):
            total = total + special.comb(power, i) * y ** (power - i) * t**i * _eulerian_polylog(
                i, ratio
            )
        return w * total

    def _periodic_sum_closed(self, x: FloatArray, period: float, ratio: float) -> FloatArray | None:
        if not float(self._p).is_integer():
            return None
        return self._half_line_series(x, period, ratio, int(self._p), self._over, self._under)

    def _periodic_integral_closed(
        self, a: FloatArray, b: FloatArray, period: float, ratio: float
    ) -> FloatArray | None:
        if not float(self._p).is_integer():
            return None
        q = int(self._p) + 1
        # ∫_a^b c = F(b) − F(a) with F(y) = ±w y^q / q on each half line.
        fb = self._half_line_series(b, period, ratio, q, self._over / q, self._under / q)
        fa = self._half_line_series(a, period, ratio, q, self._over / q, self._under / q)
        if fb is None or fa is None:
            return None
        # On the negative half line F(y) = −w|y|^q/q, so the signed integral is fa − fb there.
        return fb - fa if period > 0 else fa - fb


class Power(_PowerLike):
    """``c(e) = |e|^p`` for ``p > 0``.

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
    """``c(e) = |e|`` (the ℓ¹ cost)."""

    _exponent = 1.0
    _label = "abs"


class Squared(_FixedPower):
    """``c(e) = e²`` (the ℓ² cost, i.e. the noise power)."""

    _exponent = 2.0
    _label = "squared"


class Asymmetric(_PowerLike):
    """``c(e) = over · e^p`` for ``e ≥ 0`` (over-estimates), ``under · |e|^p`` for ``e < 0``.

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
        Non-negative, finite. With 0 on integer errors this is the 0-1 loss ``1[r ≠ i]``.

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

    def __repr__(self) -> str:
        return f"ZeroOne(tolerance={self._t!r})"
