"""The `Cost` base class: values, exact interval integrals, geometric tail sums, and
the quadrature fallback for costs without an antiderivative (see `optmech.costs`).
"""

from __future__ import annotations

import math
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._scipy import integrate
from optmech._validation import check_real, describe

#: The largest finite float64.
_FLOAT_MAX = float(np.finfo(np.float64).max)

__all__ = ["Cost"]

ArrayLike = npt.ArrayLike

#: Relative accuracy promised by the quadrature fallback of ``Cost.integral``.
QUADRATURE_RTOL = 1e-10

_GL_NODES_LO, _GL_WEIGHTS_LO = np.polynomial.legendre.leggauss(24)
_GL_NODES_HI, _GL_WEIGHTS_HI = np.polynomial.legendre.leggauss(48)

#: Most terms of a geometric series summed term by term (costs without a closed-form tail).
_MAX_SERIES_TERMS = 2_000_000
#: The series stops when its remainder is below ``10^−17`` of the sum.
_SERIES_DECADES = 17.0

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
    """Shortest text that `parse_cost` reads back as exactly ``x``."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def _column(k: FloatArray, like: FloatArray) -> FloatArray:
    """``k`` shaped ``(len(k), 1, ..., 1)`` to broadcast against an array like ``like``."""
    return k.reshape((-1,) + (1,) * like.ndim)


def _check_period_ratio(period: float, ratio: float) -> tuple[float, float]:
    """The validated ``period`` (non-zero) and ``ratio`` (in ``[0, 1)``) of a geometric tail.

    Parameters
    ----------
    period : float
        Shift from one block to the next; its sign gives the direction.
    ratio : float
        Weight factor from one block to the next.

    Returns
    -------
    tuple of float
        ``(period, ratio)`` as floats.

    Raises
    ------
    TypeError, ValueError
        As ``check_real`` does, or for ``period == 0``.
    """
    period = check_real("period", period)
    ratio = check_real("ratio", ratio, low=0.0, high=1.0, high_open=True)
    if period == 0:
        raise ValueError("`period` must be non-zero; got 0.0.")
    return period, ratio


def _no_nan(out: FloatArray, what: str) -> FloatArray:
    """Raise instead of returning NaN (e.g. ``inf − inf`` after an overflow)."""
    if np.any(np.isnan(out)):
        raise ValueError(f"{what} is not a number: the arguments overflow float64.")
    return out


class Cost(ABC):
    """A vectorised cost of the error $e = released − true$.

    Subclasses implement `_value`, and `_antiderivative` when one exists in closed
    form; the public methods broadcast, validate and fall back to quadrature.

    Examples
    --------
    >>> from optmech.costs import Cost, as_cost
    >>> cost = as_cost("squared")
    >>> isinstance(cost, Cost), cost.symmetric, float(cost.cell_average(0.0, 1.0))
    (True, True, 0.3333333333333333)
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
        """Short name, as accepted by `parse_cost`."""
        return type(self).__name__.lower()

    @property
    def power_law(self) -> tuple[float, float, float] | None:
        """``(p, over, under)`` if $c(e) = over·e^p$ (e ≥ 0), $under·|e|^p$ (e < 0); else None.

        Lets closed-form families recognise the power-law costs (Absolute, Squared, Power,
        Asymmetric) without inspecting their classes.
        """
        return None

    @property
    def has_exact_integral(self) -> bool:
        """Whether `integral` uses a closed-form antiderivative (no quadrature)."""
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
        """$∫_a^b c(e) de$, broadcast over ``a`` and ``b`` (``b < a`` gives the negative).

        Exact when `has_exact_integral`; otherwise Gauss–Legendre quadrature
        checked against a rule of twice the order, with adaptive `scipy.integrate.quad` for
        intervals where the two disagree by more than `QUADRATURE_RTOL` (relative).
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
        """$(1/(b − a)) ∫_a^b c$: the cost of a uniform density on ``[a, b]`` (the exact
        discretisation of the theory pages)."""
        a_arr, b_arr = np.broadcast_arrays(_as_errors("a", a), _as_errors("b", b))
        if np.any(b_arr <= a_arr):
            raise ValueError("cell_average needs b > a for every cell.")
        return _scalar_or_array(np.asarray(self.integral(a_arr, b_arr)) / (b_arr - a_arr))

    def periodic_integral(
        self, a: ArrayLike, b: ArrayLike, *, period: float, ratio: float
    ) -> FloatArray | float:
        """$Σ_{k≥0} ratio^k ∫_{a+k·period}^{b+k·period} c(e) de$, broadcast over a, b.

        ``period > 0`` walks the cells towards +∞, ``period < 0`` towards −∞; $0 ≤ ratio < 1$.
        This is the exact cost of a density that repeats a block geometrically (a staircase
        tail, or the tail that closes a finite LP grid). Raises `ValueError` when the
        series does not converge (a cost growing faster than $ratio^{−k}$).
        """
        period, ratio = _check_period_ratio(period, ratio)
        a_arr, b_arr = np.broadcast_arrays(_as_errors("a", a), _as_errors("b", b))
        return self._closed_or_series(
            "the periodic integral",
            lambda: self._periodic_integral_closed(a_arr, b_arr, period, ratio),
            lambda k: np.asarray(
                self.integral(
                    a_arr + _column(k, a_arr) * period, b_arr + _column(k, b_arr) * period
                )
            ),
            ratio,
            a_arr.shape,
            period=period,
        )

    def periodic_sum(self, x: ArrayLike, *, period: float, ratio: float) -> FloatArray | float:
        """$Σ_{k≥0} ratio^k c(x + k·period)$: discrete analogue of
        `periodic_integral`."""
        period, ratio = _check_period_ratio(period, ratio)
        x_arr = _as_errors("x", x)
        return self._closed_or_series(
            "the periodic sum",
            lambda: self._periodic_sum_closed(x_arr, period, ratio),
            lambda k: np.asarray(self(x_arr + _column(k, x_arr) * period)),
            ratio,
            x_arr.shape,
            period=period,
        )

    def loss_matrix(self, inputs: ArrayLike, outputs: ArrayLike) -> FloatArray:
        """$L[i, r] = c(outputs[r] − inputs[i])$: loss of answer ``r`` when the truth is ``i``."""
        i = _as_errors("inputs", inputs).reshape(-1, 1)
        r = _as_errors("outputs", outputs).reshape(1, -1)
        with np.errstate(over="ignore", invalid="ignore"):
            return _no_nan(np.asarray(self._value(r - i), dtype=np.float64), "the loss matrix")

    def require_symmetric_nondecreasing(self, context: str) -> None:
        """Raise `ValueError` unless the cost meets the theorems' hypotheses."""
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
        """The cost $e ↦ c(−e)$ (itself when symmetric)."""
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

    def _overflow_message(self, what: str, period: float, ratio: float) -> str:
        """The error of a tail sum beyond the largest float (a cost with a parameter that
        sets its growth names it)."""
        return f"{what} of {self!r} overflows float64 (largest finite {_FLOAT_MAX:.4g})."

    def _closed_or_series(
        self,
        what: str,
        closed: Callable[[], FloatArray | None],
        term: Callable[[FloatArray], FloatArray],
        ratio: float,
        shape: tuple[int, ...],
        *,
        period: float,
    ) -> FloatArray | float:
        """A geometric tail sum: its closed form when the cost has one, else the series.

        Parameters
        ----------
        what : str
            What is summed, for the error messages (e.g. ``'the periodic sum'``).
        closed : callable
            Returns the closed form, or None when the cost has none.
        term : callable
            The series term, as ``_series`` takes it.
        ratio : float
            The geometric ratio, in ``[0, 1)``.
        shape : tuple of int
            Shape of the result.
        period : float
            The period walked (for the error messages).

        Returns
        -------
        FloatArray or float
            The sum (a float for a 0-d result).

        Raises
        ------
        ValueError
            When the closed form overflows float64 or is NaN, or the series diverges.
        """
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                out = closed()
        except OverflowError as exc:  # Python float powers of a huge period
            if ratio > 0.0:
                raise ValueError(self._overflow_message(what, period, ratio)) from exc
            out = None
        if out is not None and ratio == 0.0 and not np.all(np.isfinite(out)):
            # At ratio 0 the sum is its k = 0 term alone: the series takes it directly where
            # the closed form's binomial expansion overflows (large exponents).
            out = None
        if out is not None:
            if np.any(np.isinf(out)):
                raise ValueError(self._overflow_message(what, period, ratio))
            return _scalar_or_array(_no_nan(out, what))
        return _scalar_or_array(self._series(term, ratio, shape))

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
        max_terms = _MAX_SERIES_TERMS
        if -log_ratio * max_terms < _SERIES_DECADES * math.log(10.0):
            # ratio^max_terms alone is above 1e-17: the remainder cannot get small enough.
            raise ValueError(
                f"the geometric tail of {self!r} with ratio {ratio!r} converges too slowly to sum "
                f"as a series (it needs more than {max_terms} terms); the built-in costs with "
                "integer powers, 'abs', 'squared' and 'zero-one', have closed forms without "
                "this limit."
            )
        size = max(int(np.prod(shape)), 1)
        cap = max(2, 200_000 // size)
        block = min(64, cap)
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


class _Mirrored(Cost):
    """``e ↦ c(−e)``: what ``Cost.mirrored`` returns for an asymmetric cost."""

    def __init__(self, base: Cost) -> None:
        self._base = base
        self.symmetric = base.symmetric
        self.nondecreasing = base.nondecreasing
        self.growth = base.growth

    def _value(self, e: FloatArray) -> FloatArray:
        return self._base._value(-e)

    def _periodic_integral_closed(
        self, a: FloatArray, b: FloatArray, period: float, ratio: float
    ) -> FloatArray | None:
        # ∫_{a+kT}^{b+kT} c(−e) de = ∫_{−b−kT}^{−a−kT} c(u) du.
        return self._base._periodic_integral_closed(-b, -a, -period, ratio)

    def _periodic_sum_closed(self, x: FloatArray, period: float, ratio: float) -> FloatArray | None:
        return self._base._periodic_sum_closed(-x, -period, ratio)

    def _antiderivative(self, x: FloatArray) -> FloatArray | None:
        f = self._base._antiderivative(-x)
        return None if f is None else -f

    def __repr__(self) -> str:
        return f"{self._base!r}.mirrored()"
