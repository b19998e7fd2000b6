"""Costs (losses) of the error ``e = released − true``.

A cost is a vectorised function ``c(e) ≥ 0`` that knows

* whether it is **symmetric**, ``c(e) = c(−e)``, and **non-decreasing in |e|** — the hypotheses
  of the staircase theorem (Geng & Viswanath, seed 000, Thm. 4) and of GRS universal optimality
  (seed 003, where a loss must be non-decreasing in ``|i − r|``);
* its exact integral over an interval, :meth:`Cost.integral`, when an antiderivative exists in
  closed form, and a Gauss–Legendre / adaptive quadrature otherwise. The LP designers need
  cell-averaged costs ``(1/h) ∫_cell c`` (THEORY.md §4), which make the LP value an exact upper
  bound for the continuous problem;
* geometric sums over periods, :meth:`Cost.periodic_integral` and :meth:`Cost.periodic_sum`,
  ``Σ_{k≥0} ρ^k ∫_{a+kT}^{b+kT} c`` and ``Σ_{k≥0} ρ^k c(x + kT)``: the exact cost of a staircase
  tail or of the geometric tail that closes an LP's finite grid.

Examples
--------
>>> from optmech.costs import Absolute, Squared
>>> float(Absolute().integral(-1.0, 2.0))
2.5
>>> float(Squared().cell_average(0.0, 1.0))
0.3333333333333333
"""

from __future__ import annotations

import math
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import integrate, special

from optmech._validation import check_callable, check_real, describe

__all__ = [
    "Absolute",
    "Asymmetric",
    "Cost",
    "Custom",
    "Power",
    "Squared",
    "ZeroOne",
    "as_cost",
    "parse_cost",
]

ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]

#: Relative accuracy promised by the quadrature fallback of :meth:`Cost.integral`.
QUADRATURE_RTOL = 1e-10

_GL_NODES_LO, _GL_WEIGHTS_LO = np.polynomial.legendre.leggauss(24)
_GL_NODES_HI, _GL_WEIGHTS_HI = np.polynomial.legendre.leggauss(48)

# Probe points used to infer / check the shape of a user cost.
_PROBE = np.concatenate([[0.0], np.logspace(-6, 6, 601)])


def _scalar_or_array(x: FloatArray) -> FloatArray | float:
    return float(x) if x.ndim == 0 else x


def _as_errors(name: str, x: ArrayLike) -> FloatArray:
    """``x`` as a float array: non-numeric input raises TypeError, NaN raises ValueError."""
    try:
        arr = np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        raise TypeError(f"`{name}` must be real numbers; got {describe(x)}.") from exc
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"`{name}` must be real numbers; got {describe(x)} of dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    if np.any(np.isnan(arr)):
        raise ValueError(f"`{name}` must not contain NaN; got {describe(x)}.")
    return arr


def _num(x: float) -> str:
    """Shortest text that :func:`parse_cost` reads back as exactly ``x``."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def _column(k: FloatArray, like: FloatArray) -> FloatArray:
    """``k`` shaped ``(len(k), 1, ..., 1)`` to broadcast against an array like ``like``."""
    return k.reshape((-1,) + (1,) * like.ndim)


def _no_nan(out: FloatArray, what: str) -> FloatArray:
    """Raise instead of returning NaN (e.g. ``inf − inf`` after an overflow)."""
    if np.any(np.isnan(out)):
        raise ValueError(f"{what} is not a number: the arguments overflow float64.")
    return out


def _eulerian_polylog(order: int, ratio: float) -> float:
    """``Σ_{k≥0} k^order ρ^k`` for integer order ≥ 0, 0 ≤ ρ < 1 (Li_{−n}, Eulerian numbers)."""
    if order == 0:
        return 1.0 / (1.0 - ratio)
    # Eulerian numbers A(n, m) by the standard recurrence.
    row = [1]
    for n in range(2, order + 1):
        new = [1] * n
        for m in range(1, n - 1):
            new[m] = (m + 1) * row[m] + (n - m) * row[m - 1]
        row = new
    poly = sum(a * ratio**m for m, a in enumerate(row))
    return ratio * poly / (1.0 - ratio) ** (order + 1)


class Cost(ABC):
    """A vectorised cost of the error ``e = released − true``.

    Subclasses implement :meth:`_value`, and :meth:`_antiderivative` when one exists in closed
    form; the public methods broadcast, validate and fall back to quadrature.
    """

    #: ``c(e) = c(−e)`` for all ``e``.
    symmetric: bool = True
    #: ``c`` is non-increasing on ``(−∞, 0]`` and non-decreasing on ``[0, ∞)``.
    nondecreasing: bool = True
    #: Degree of polynomial growth (``c(e) = O(|e|^p)``), used to bound tail series;
    #: ``None`` when unknown.
    growth: float | None = None

    # -- formulas (private) -------------------------------------------------------------
    @abstractmethod
    def _value(self, e: FloatArray) -> FloatArray:
        """The cost at each error; ``e`` is a float array."""

    def _antiderivative(self, x: FloatArray) -> FloatArray | None:
        """A closed-form antiderivative ``F`` with ``F(0) = 0``, or ``None``."""
        return None

    # -- public API -----------------------------------------------------------------------
    @property
    def name(self) -> str:
        """Short name, as accepted by :func:`parse_cost`."""
        return type(self).__name__.lower()

    @property
    def power_law(self) -> tuple[float, float, float] | None:
        """``(p, over, under)`` if ``c(e) = over·e^p`` (e ≥ 0), ``under·|e|^p`` (e < 0); else None.

        Lets closed-form families recognise the power-law costs (Absolute, Squared, Power,
        Asymmetric) without inspecting their classes.
        """
        return None

    @property
    def has_exact_integral(self) -> bool:
        """Whether :meth:`integral` uses a closed-form antiderivative (no quadrature)."""
        return self._antiderivative(np.zeros(1)) is not None

    @property
    def is_symmetric_nondecreasing(self) -> bool:
        """Both theorem hypotheses: symmetric and non-decreasing in ``|e|``."""
        return bool(self.symmetric and self.nondecreasing)

    def __call__(self, e: ArrayLike) -> FloatArray | float:
        """Evaluate the cost at ``e`` (any shape); a scalar in gives a float out."""
        arr = _as_errors("e", e)
        with np.errstate(over="ignore"):
            return _scalar_or_array(np.asarray(self._value(arr), dtype=np.float64))

    def integral(self, a: ArrayLike, b: ArrayLike) -> FloatArray | float:
        """``∫_a^b c(e) de``, broadcast over ``a`` and ``b`` (``b < a`` gives the negative).

        Exact when :attr:`has_exact_integral`; otherwise Gauss–Legendre quadrature checked
        against a rule of twice the order, with adaptive :func:`scipy.integrate.quad` for
        intervals where the two disagree by more than :data:`QUADRATURE_RTOL` (relative).
        """
        a_arr, b_arr = np.broadcast_arrays(_as_errors("a", a), _as_errors("b", b))
        if not (np.all(np.isfinite(a_arr)) and np.all(np.isfinite(b_arr))):
            raise ValueError("integration limits `a` and `b` must be finite.")
        with np.errstate(over="ignore", invalid="ignore"):
            exact = self._antiderivative(b_arr)
            if exact is not None:
                out = np.asarray(exact - self._antiderivative(a_arr), dtype=np.float64)
            else:
                out = self._quadrature(a_arr, b_arr)
        return _scalar_or_array(_no_nan(out, "the integral"))

    def cell_average(self, a: ArrayLike, b: ArrayLike) -> FloatArray | float:
        """``(1/(b − a)) ∫_a^b c``: the cost of a uniform density on ``[a, b]`` (THEORY.md §4)."""
        a_arr, b_arr = np.broadcast_arrays(_as_errors("a", a), _as_errors("b", b))
        if np.any(b_arr <= a_arr):
            raise ValueError("cell_average needs b > a for every cell.")
        return _scalar_or_array(np.asarray(self.integral(a_arr, b_arr)) / (b_arr - a_arr))

    def periodic_integral(
        self, a: ArrayLike, b: ArrayLike, *, period: float, ratio: float
    ) -> FloatArray | float:
        """``Σ_{k≥0} ratio^k ∫_{a+k·period}^{b+k·period} c(e) de``, broadcast over a, b.

        ``period > 0`` walks the cells towards +∞, ``period < 0`` towards −∞; ``0 ≤ ratio < 1``.
        This is the exact cost of a density that repeats a block geometrically (a staircase
        tail, or the tail that closes a finite LP grid). Raises :class:`ValueError` when the
        series does not converge (a cost growing faster than ``ratio^(−k)``).
        """
        period = check_real("period", period)
        ratio = check_real("ratio", ratio, low=0.0, high=1.0, high_open=True)
        if period == 0:
            raise ValueError("`period` must be non-zero; got 0.0.")
        a_arr, b_arr = np.broadcast_arrays(_as_errors("a", a), _as_errors("b", b))
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                closed = self._periodic_integral_closed(a_arr, b_arr, period, ratio)
        except OverflowError as exc:  # Python float powers of a huge period
            raise ValueError("the periodic integral overflows float64.") from exc
        if closed is not None:
            return _scalar_or_array(_no_nan(closed, "the periodic integral"))
        return _scalar_or_array(
            self._series(
                lambda k: np.asarray(
                    self.integral(
                        a_arr + _column(k, a_arr) * period, b_arr + _column(k, b_arr) * period
                    )
                ),
                ratio,
                a_arr.shape,
            )
        )

    def periodic_sum(self, x: ArrayLike, *, period: float, ratio: float) -> FloatArray | float:
        """``Σ_{k≥0} ratio^k c(x + k·period)``: discrete analogue of :meth:`periodic_integral`."""
        period = check_real("period", period)
        ratio = check_real("ratio", ratio, low=0.0, high=1.0, high_open=True)
        if period == 0:
            raise ValueError("`period` must be non-zero; got 0.0.")
        x_arr = _as_errors("x", x)
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                closed = self._periodic_sum_closed(x_arr, period, ratio)
        except OverflowError as exc:  # Python float powers of a huge period
            raise ValueError("the periodic sum overflows float64.") from exc
        if closed is not None:
            return _scalar_or_array(_no_nan(closed, "the periodic sum"))
        return _scalar_or_array(
            self._series(
                lambda k: np.asarray(self(x_arr + _column(k, x_arr) * period)), ratio, x_arr.shape
            )
        )

    def loss_matrix(self, inputs: ArrayLike, outputs: ArrayLike) -> FloatArray:
        """``L[i, r] = c(outputs[r] − inputs[i])``: loss of answer ``r`` when the truth is ``i``."""
        i = _as_errors("inputs", inputs).reshape(-1, 1)
        r = _as_errors("outputs", outputs).reshape(1, -1)
        with np.errstate(over="ignore", invalid="ignore"):
            return _no_nan(np.asarray(self._value(r - i), dtype=np.float64), "the loss matrix")

    def require_symmetric_nondecreasing(self, context: str) -> None:
        """Raise :class:`ValueError` unless the cost meets the theorems' hypotheses."""
        if not self.is_symmetric_nondecreasing:
            missing = [
                w
                for w, ok in (
                    ("symmetric", self.symmetric),
                    ("non-decreasing in |e|", self.nondecreasing),
                )
                if not ok
            ]
            raise ValueError(
                f"`cost` must be symmetric and non-decreasing in |e| for {context}; "
                f"got {self!r}, which is not {' and not '.join(missing)}. "
                "Use the LP designer (optmech.design_noise) for other costs."
            )

    def mirrored(self) -> Cost:
        """The cost ``e ↦ c(−e)`` (itself when symmetric)."""
        if self.symmetric:
            return self
        return _Mirrored(self)

    # -- helpers ----------------------------------------------------------------------------
    def _periodic_integral_closed(
        self, a: FloatArray, b: FloatArray, period: float, ratio: float
    ) -> FloatArray | None:
        return None

    def _periodic_sum_closed(self, x: FloatArray, period: float, ratio: float) -> FloatArray | None:
        return None

    def _series(
        self, term: Callable[[FloatArray], FloatArray], ratio: float, shape: tuple[int, ...]
    ) -> FloatArray:
        """Sum ``Σ_k ratio^k term(k)`` block by block until the remainder is < 1e-17 relative.

        ``term`` maps a 1-d array of ``k`` values to an array of shape ``(len(k), *shape)``, so
        each block is one vectorised call; blocks are capped at about 2·10⁵ elements.
        """
        if ratio == 0.0:
            return np.asarray(term(np.zeros(1)), dtype=np.float64)[0]
        total = np.zeros(shape)
        log_ratio = math.log(ratio)
        size = max(int(np.prod(shape)), 1)
        cap = max(2, 200_000 // size)
        block = min(64, cap)
        max_terms = 2_000_000
        k0 = 0
        while k0 < max_terms:
            ks = np.arange(k0, k0 + block, dtype=np.float64)
            weights = np.exp(ks * log_ratio).reshape((-1,) + (1,) * len(shape))
            terms = weights * np.asarray(term(ks), dtype=np.float64)
            if not np.all(np.isfinite(terms)):
                break
            total = total + terms.sum(axis=0)
            last = np.abs(terms[-1])
            # Terms of a convergent series with polynomial growth decrease once k exceeds
            # growth/|log ratio|; stop when the last block's tail bound is negligible.
            tail_bound = last / (1.0 - ratio) * 4.0
            decreasing = np.all(np.abs(terms[-1]) <= np.abs(terms[-2]) + 1e-300)
            if decreasing and np.all(tail_bound <= 1e-17 * np.maximum(np.abs(total), 1e-300)):
                return total
            k0 += block
            block = min(block * 2, 4096, cap)
        raise ValueError(
            f"the expected cost diverges or converges too slowly: {self!r} grows too fast for a "
            f"geometric tail with ratio {ratio:g} (try a cost with polynomial growth)."
        )

    def _quadrature(self, a: FloatArray, b: FloatArray) -> FloatArray:
        shape = a.shape
        a, b = a.reshape(-1), b.reshape(-1)  # np.nonzero below needs at least 1-d
        mid = (a + b)[..., None] / 2.0
        half = (b - a)[..., None] / 2.0
        lo = np.sum(_GL_WEIGHTS_LO * self._value(mid + half * _GL_NODES_LO), axis=-1) * half[..., 0]
        hi = np.sum(_GL_WEIGHTS_HI * self._value(mid + half * _GL_NODES_HI), axis=-1) * half[..., 0]
        if not np.all(np.isfinite(hi)):
            raise ValueError(f"cost {self!r} returned a non-finite value inside [a, b].")
        out = np.array(hi, dtype=np.float64)
        scale = np.maximum(np.abs(hi), np.abs(half[..., 0]) * 1e-300)
        bad = np.abs(hi - lo) > QUADRATURE_RTOL * scale
        if np.any(bad):
            fn = lambda t: float(self._value(np.asarray(t, dtype=np.float64)))  # noqa: E731
            for idx in zip(*np.nonzero(bad), strict=True):
                lo_i, hi_i = float(a[idx]), float(b[idx])
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", integrate.IntegrationWarning)
                    val, _err = integrate.quad(
                        fn,
                        lo_i,
                        hi_i,
                        epsabs=0.0,
                        epsrel=QUADRATURE_RTOL,
                        limit=500,
                        points=[0.0] if lo_i < 0.0 < hi_i else None,
                    )
                out[idx] = val
        return out.reshape(shape)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))


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


class Absolute(Power):
    """``c(e) = |e|`` (the ℓ¹ cost)."""

    def __init__(self) -> None:
        super().__init__(1.0)

    @property
    def name(self) -> str:
        return "abs"

    def __repr__(self) -> str:
        return "Absolute()"


class Squared(Power):
    """``c(e) = e²`` (the ℓ² cost, i.e. the noise power)."""

    def __init__(self) -> None:
        super().__init__(2.0)

    @property
    def name(self) -> str:
        return "squared"

    def __repr__(self) -> str:
        return "Squared()"


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


class Custom(Cost):
    """A user cost from a vectorised callable, possibly asymmetric.

    The shape flags are inferred by probing ``fn`` at ±10⁻⁶ … ±10⁶ unless given; a flag given as
    ``True`` that the probe contradicts raises :class:`ValueError`.

    Parameters
    ----------
    fn : callable
        ``fn(e)`` for a float array ``e`` returns an array of the same shape of finite, real
        costs. Called with arrays, so it must be vectorised (use numpy functions).
    symmetric, nondecreasing : bool, optional
        The cost's shape; inferred when omitted.
    antiderivative : callable, optional
        ``F`` with ``F' = fn``; makes :meth:`integral` exact instead of quadrature.
    growth : float, optional
        Polynomial degree of growth, for documentation of tail convergence.
    name : str, optional
        Label used in tables.

    Examples
    --------
    >>> import numpy as np
    >>> c = Custom(lambda e: np.where(e > 0, 3 * e, -e))
    >>> c.symmetric, c.nondecreasing
    (False, True)
    """

    def __init__(
        self,
        fn: Callable[[FloatArray], ArrayLike],
        *,
        symmetric: bool | None = None,
        nondecreasing: bool | None = None,
        antiderivative: Callable[[FloatArray], ArrayLike] | None = None,
        growth: float | None = None,
        name: str | None = None,
    ) -> None:
        self._fn = check_callable("fn", fn)
        self._anti = (
            None if antiderivative is None else check_callable("antiderivative", antiderivative)
        )
        self._label = "custom" if name is None else str(name)
        self.growth = None if growth is None else check_real("growth", growth, low=0.0)
        probe = np.concatenate([-_PROBE[::-1], _PROBE])
        values = self._checked(probe, "fn")
        pos = values[len(_PROBE) :]
        neg = values[: len(_PROBE)][::-1]  # neg[k] = c(−_PROBE[k])
        # Pointwise relative comparisons, so a large cost far out cannot hide a small asymmetry.
        sym_scale = 1e-12 * (1.0 + np.maximum(np.abs(pos), np.abs(neg)))
        is_sym = bool(np.all(np.abs(pos - neg) <= sym_scale))
        is_mono = bool(
            np.all(np.diff(pos) >= -1e-12 * (1.0 + np.abs(pos[1:])))
            and np.all(np.diff(neg) >= -1e-12 * (1.0 + np.abs(neg[1:])))
        )
        self.symmetric = self._flag("symmetric", symmetric, is_sym)
        self.nondecreasing = self._flag("nondecreasing", nondecreasing, is_mono)

    def _flag(self, name: str, given: bool | None, probed: bool) -> bool:
        if given is None:
            return probed
        if not isinstance(given, bool | np.bool_):
            raise TypeError(f"`{name}` must be True, False or None; got {describe(given)}.")
        if given and not probed:
            raise ValueError(
                f"`{name}=True` was declared but the cost is not {name} on the probe "
                "points ±1e-6 … ±1e6."
            )
        return bool(given)

    def _checked(self, e: FloatArray, what: str) -> FloatArray:
        try:
            # The result is checked for NaN/inf below, so numpy's warnings add nothing.
            with np.errstate(all="ignore"):
                raw = np.asarray(self._fn(e) if what == "fn" else self._anti(e))  # type: ignore[misc]
            if raw.dtype.kind not in "biuf":
                raise TypeError(f"it returned dtype {raw.dtype}")
            out = raw.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"`{what}` must accept a float array and return real numbers; calling it "
                f"raised {type(exc).__name__}: {exc}"
            ) from exc
        if out.shape != e.shape:
            try:
                out = np.broadcast_to(out, e.shape).astype(np.float64)
            except ValueError as exc:
                raise ValueError(
                    f"`{what}` must be vectorised: for an input of shape {e.shape} it returned "
                    f"shape {out.shape}."
                ) from exc
        if not np.all(np.isfinite(out)):
            raise ValueError(
                f"`{what}` returned NaN or inf for a finite error; costs must be finite."
            )
        return out

    @property
    def name(self) -> str:
        return self._label

    def _value(self, e: FloatArray) -> FloatArray:
        flat = e.reshape(-1)
        return self._checked(flat, "fn").reshape(e.shape)

    def _antiderivative(self, x: FloatArray) -> FloatArray | None:
        if self._anti is None:
            return None
        flat = x.reshape(-1)
        return self._checked(flat, "antiderivative").reshape(x.shape) - float(
            self._checked(np.zeros(1), "antiderivative")[0]
        )

    def __repr__(self) -> str:
        return (
            f"Custom(name={self._label!r}, symmetric={self.symmetric}, "
            f"nondecreasing={self.nondecreasing})"
        )


class _Mirrored(Cost):
    """``e ↦ c(−e)``."""

    def __init__(self, base: Cost) -> None:
        self._base = base
        self.symmetric = base.symmetric
        self.nondecreasing = base.nondecreasing
        self.growth = base.growth

    def _value(self, e: FloatArray) -> FloatArray:
        return self._base._value(-e)

    def _antiderivative(self, x: FloatArray) -> FloatArray | None:
        f = self._base._antiderivative(-x)
        return None if f is None else -f

    def __repr__(self) -> str:
        return f"{self._base!r}.mirrored()"


def as_cost(cost: Any) -> Cost:
    """Coerce ``cost`` to a :class:`Cost`: a Cost, a spec (see :func:`parse_cost`) or a callable.

    Examples
    --------
    >>> as_cost("abs")
    Absolute()
    """
    if isinstance(cost, Cost):
        return cost
    if isinstance(cost, str):
        return parse_cost(cost)
    if callable(cost):
        return Custom(cost)
    raise TypeError(
        "`cost` must be an optmech.costs.Cost, a spec string such as 'abs', 'squared', "
        f"'power:3', 'zero-one:0.5', 'asym:3,1', or a vectorised callable; got {describe(cost)}."
    )


def parse_cost(spec: str) -> Cost:
    """Parse a cost spec as used by the CLI.

    ``abs``, ``squared``, ``power:P``, ``zero-one[:T]``, ``asym:OVER,UNDER[,P]``.

    Examples
    --------
    >>> parse_cost("power:3")
    Power(p=3.0)
    >>> parse_cost("asym:3,1")
    Asymmetric(over=3.0, under=1.0, p=1.0)
    """
    if not isinstance(spec, str):
        raise TypeError(f"`cost` spec must be a string; got {describe(spec)}.")
    name, _, arg = spec.strip().lower().partition(":")
    valid = "'abs', 'squared', 'power:P', 'zero-one[:T]', 'asym:OVER,UNDER[,P]'"
    try:
        if name in ("abs", "absolute", "l1") and not arg:
            return Absolute()
        if name in ("squared", "square", "l2", "sq") and not arg:
            return Squared()
        if name in ("power", "pow") and arg:
            return Power(float(arg))
        if name in ("zero-one", "zeroone", "01", "0-1"):
            return ZeroOne(float(arg) if arg else 0.0)
        if name in ("asym", "asymmetric") and arg:
            parts = [float(x) for x in arg.split(",")]
            if len(parts) not in (2, 3):
                raise ValueError("asym takes OVER,UNDER or OVER,UNDER,P")
            return Asymmetric(over=parts[0], under=parts[1], p=parts[2] if len(parts) == 3 else 1.0)
    except ValueError as exc:
        raise ValueError(
            f"`cost` spec {spec!r} is malformed ({exc}); valid specs: {valid}."
        ) from exc
    raise ValueError(f"`cost` spec must be one of {valid}; got {spec!r}.")
