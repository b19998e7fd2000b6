"""Summary statistics of a 1-D noise with the ``scipy.stats`` interface.

Every 1-D noise of ``optmech.mechanisms`` has ``mean``, ``var``, ``std``,
``median``, ``isf``, ``interval``, ``support``, ``moment``, ``entropy`` and ``stats`` with the
signatures and meanings of `scipy.stats.rv_continuous` / `scipy.stats.rv_discrete`, except that
bad input raises instead of returning NaN:

* ``median()`` is ``ppf(0.5)`` and ``interval(c)`` is ``(ppf((1 − c)/2), ppf((1 + c)/2))``, as in
  scipy, so both agree with ``ppf`` exactly;
* ``isf(q)`` is the smallest ``x`` with ``sf(x) ≤ q`` (on ℤ the smallest integer), scipy's
  definition; ``isf(0)`` is the upper end of the support and ``isf(1)`` the lower one (one below
  it on ℤ, as scipy);
* ``support()`` is the smallest closed interval holding all the mass;
* ``moment(n)`` is the raw moment ``E Xⁿ`` of integer order ``n ≥ 0``; ``stats("mvsk")`` gives
  the mean, the variance, the skewness and the excess kurtosis; ``entropy()`` the differential
  entropy (nats) of a density, the Shannon entropy of a pmf.

The families override the hooks (``_moment``, ``_central_moment``, ``_entropy``, ``_isf``,
``_support``) with exact forms: closed forms for the closed-form families, exact sums over cells
and geometric tails for the tabulated ones (the private module ``_exact_moments``). The
defaults here, for a noise that has none:

* ``_isf``: steps doubling outwards from the median bracket ``sf(x) ≤ q``, then bisection over
  the ordered doubles (at most 64 steps) finds the crossing, so it inherits the accuracy of the
  family's exact tail ``sf`` (it never forms ``ppf(1 − q)``, which loses ``q`` below 1e-16);
* ``_moment`` and ``_entropy`` of a density: adaptive quadrature (`scipy.integrate.quad`,
  ``epsrel`` 1e-12) on the pieces between the quantiles ``10^-k`` and ``1 − 10^-k``
  (``k = 1, 2, 4, 8, 16``) and the two infinite ends; accepted only when the summed error
  estimates are below `QUAD_RTOL` relative, else `ValueError`;
* ``_moment`` and ``_entropy`` of a pmf: a direct sum over the integers between the points
  where ``cdf`` and ``sf`` fall below 1e-300 (at most `MAX_TERMS` of them, else `ValueError`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import check_int, describe
from optmech.mechanisms._exact_moments import MAX_TERMS, QUAD_RTOL, numeric_expectation
from optmech.mechanisms._points import ArrayInput, Scalar, _as_points, _out, pointwise

__all__ = ["MAX_ORDER", "MAX_TERMS", "QUAD_RTOL", "NoiseStatistics"]

#: Largest moment order: the series coefficients (Eulerian numbers) stay inside the double range.
MAX_ORDER = 100
_MOMENT_CODES = "mvsk"
_SIGN = np.int64(-0x8000000000000000)


def _ordered(x: FloatArray) -> npt.NDArray[np.int64]:
    """Integers in the order of the doubles ``x`` (``−0.0`` and ``0.0`` both map to 0)."""
    bits = np.asarray(x, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, _SIGN - bits, bits)


def _unordered(keys: npt.NDArray[np.int64]) -> FloatArray:
    bits = np.where(keys < 0, _SIGN - keys, keys)
    return np.asarray(bits, dtype=np.int64).view(np.float64)


def smallest_point(predicate: Any, start: FloatArray, scale: float) -> FloatArray:
    """The smallest double ``x`` with ``predicate(x)`` true, elementwise.

    ``predicate`` maps an array of points to booleans, monotone (false, then true) along the
    doubles and true at ``+inf``. From ``start``, steps of ``scale·2^j`` outwards bracket the
    crossing (so points far beyond it are never evaluated); bisection on the ordered integer
    representation of the doubles then finds it exactly (at most 64 more steps).
    """
    x0 = np.asarray(start, dtype=np.float64)
    at_start = np.asarray(predicate(x0), dtype=bool)
    lo, hi = x0.copy(), x0.copy()
    pending = np.ones(x0.shape, dtype=bool)
    with np.errstate(over="ignore"):
        for j in range(2100):  # 2^2100·scale exceeds the double range: ±inf is reached
            if not np.any(pending):
                break
            probe = np.where(at_start, x0 - scale * 2.0**j, x0 + scale * 2.0**j)
            found = np.asarray(predicate(probe), dtype=bool) != at_start
            hi = np.where(pending & ~at_start, probe, hi)
            lo = np.where(pending & at_start, probe, lo)
            lo = np.where(pending & ~at_start & ~found, probe, lo)
            hi = np.where(pending & at_start & ~found, probe, hi)
            pending &= ~found
    low, high = _ordered(lo), _ordered(hi)
    while True:
        open_ = high > low + 1
        if not np.any(open_):
            break
        mid = (low >> 1) + (high >> 1) + (low & high & 1)  # floor of the mean, no overflow
        true = np.asarray(predicate(_unordered(mid)), dtype=bool)
        high = np.where(open_ & true, mid, high)
        low = np.where(open_ & ~true, mid, low)
    return _unordered(high)


def _finite(compute: Any, what: str, noise: object) -> float:
    """``float(compute())``, raising ``ValueError`` when it is not finite (or overflows)."""
    try:
        value = float(compute())
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise ValueError(f"the {what} of {noise!r} is not finite ({value!r}).")
    return value


def _check_probabilities(name: str, q: npt.ArrayLike) -> FloatArray:
    arr = _as_points(name, q)
    if np.any((arr < 0) | (arr > 1)):
        bad = float(arr[(arr < 0) | (arr > 1)].flat[0])
        raise ValueError(f"`{name}` must be in [0, 1]; got {bad!r}.")
    return arr


class NoiseStatistics:
    """The ``scipy.stats`` summary methods of a 1-D noise (module docstring), with defaults.

    A mix-in of `NoiseDistribution`; the hooks
    below are overridden by every family with its exact forms.
    """

    if TYPE_CHECKING:  # provided by NoiseDistribution and its subclasses
        discrete: bool

        def _cdf(self, x: FloatArray) -> FloatArray: ...
        def _sf(self, x: FloatArray) -> FloatArray: ...
        @pointwise
        def ppf(self, q: npt.ArrayLike) -> FloatArray | float: ...

    # -- hooks ------------------------------------------------------------------------------
    def _moment(self, n: int) -> float:
        """``E Xⁿ`` for ``n ≥ 1`` (default: quadrature or a direct sum, module docstring)."""
        return self._numeric_expectation(lambda x: x**n, f"moment of order {n}")

    def _mean(self) -> float:
        return self._moment(1)

    def _central_moment(self, n: int) -> float:
        """``E (X − μ)ⁿ`` from the raw moments (families with exact central forms override)."""
        mu = self._mean()
        return math.fsum(
            math.comb(n, j) * (self._moment(j) if j else 1.0) * (-mu) ** (n - j)
            for j in range(n + 1)
        )

    def _entropy(self) -> float:
        """Entropy in nats (default: quadrature of ``−f log f`` or a direct sum)."""
        return self._numeric_expectation(None, "entropy")

    def _isf(self, q: FloatArray) -> FloatArray:
        """Smallest ``x`` with ``sf(x) ≤ q`` for ``0 < q < 1`` (bisection on the exact ``sf``)."""
        sf = self._sf_at
        median = float(self.ppf(0.5))
        spread = float(self.ppf(0.75)) - float(self.ppf(0.25))
        scale = spread if math.isfinite(spread) and spread > 0 else 1.0

        def reached(x: FloatArray) -> Any:
            return sf(x) <= q

        start = np.full(q.shape, median if math.isfinite(median) else 0.0)
        return smallest_point(reached, start, scale)

    def _support(self) -> tuple[float, float]:
        """Ends of the support: ``ppf(0)`` and ``ppf(1)`` (one above ``ppf(0)`` on ℤ)."""
        low = float(self.ppf(0.0))
        return (low + 1.0 if self.discrete else low), float(self.ppf(1.0))

    # -- helpers ------------------------------------------------------------------------------
    def _sf_at(self, x: FloatArray) -> FloatArray:
        return self._sf(np.floor(x) if self.discrete else x)

    def _numeric_expectation(self, fn: Any, what: str) -> float:
        return numeric_expectation(self, fn, what)

    def _shape(self, n: int) -> float:
        """Skewness (``n = 3``) or excess kurtosis (``n = 4``) from the central moments."""
        var = self.var()

        def value() -> float:
            central = float(self._central_moment(n))
            return central / var**1.5 if n == 3 else central / (var * var) - 3.0

        return _finite(value, "skewness" if n == 3 else "kurtosis", self)

    # -- public API ---------------------------------------------------------------------------
    def moment(self, order: int) -> float:
        """The raw moment ``E X^order``, as ``scipy.stats``' ``moment`` (exact where the family
        has a closed form or an exact series).

        Parameters
        ----------
        order : int
            In [0, 100]; ``moment(0)`` is 1.

        Returns
        -------
        float
        """
        n = check_int("order", order, low=0, high=MAX_ORDER)
        if n == 0:
            return 1.0
        return _finite(lambda: self._moment(n), f"moment of order {n}", self)

    def mean(self) -> float:
        """``E X``."""
        return _finite(self._mean, "mean", self)

    def var(self) -> float:
        """``Var X = E (X − E X)²``."""
        return _finite(lambda: max(self._central_moment(2), 0.0), "variance", self)

    def std(self) -> float:
        """The standard deviation, ``sqrt(var())``."""
        return math.sqrt(self.var())

    def median(self) -> float:
        """``ppf(0.5)``, as ``scipy.stats``."""
        return float(self.ppf(0.5))

    def entropy(self) -> float:
        """Entropy in nats: differential (``−∫ f log f``) for a density, Shannon for a pmf.

        Raises
        ------
        ValueError
            For a law with an atom beside its density (no differential entropy exists).
        """
        return _finite(self._entropy, "entropy", self)

    def support(self) -> tuple[float, float]:
        """``(a, b)``: the smallest closed interval holding all the mass (``±inf`` when
        unbounded)."""
        a, b = self._support()
        return float(a), float(b)

    @pointwise
    def isf(self, q: npt.ArrayLike) -> FloatArray | float:
        """Inverse survival function: the smallest ``x`` with ``sf(x) ≤ q`` (scipy's ``isf``).

        Computed from the exact upper tail, so it keeps its accuracy for ``q`` far below 1e-16,
        where ``ppf(1 − q)`` cannot.

        Parameters
        ----------
        q : array_like
            Probabilities in [0, 1].

        Returns
        -------
        float or ndarray
            A float for a scalar ``q``; ``isf(0)`` is the upper end of the support, ``isf(1)``
            the lower one (one below it on ℤ, as scipy).
        """
        arr = _check_probabilities("q", q)
        a, b = self.support()
        inner = (arr > 0) & (arr < 1)
        out = np.where(arr <= 0, b, a - 1.0 if self.discrete else a)
        if np.any(inner):
            out = np.asarray(out, dtype=np.float64)
            out[inner] = self._isf(arr[inner])
        return _out(np.asarray(out, dtype=np.float64))

    @overload
    def interval(self, confidence: Scalar) -> tuple[float, float]: ...
    @overload
    def interval(self, confidence: ArrayInput) -> tuple[FloatArray, FloatArray]: ...
    @overload
    def interval(self, confidence: npt.ArrayLike) -> tuple[Any, Any]: ...
    def interval(self, confidence: npt.ArrayLike) -> tuple[Any, Any]:
        """The central interval ``(ppf((1 − c)/2), ppf((1 + c)/2))`` holding mass ``c``, as
        ``scipy.stats``' ``interval``.

        Parameters
        ----------
        confidence : array_like
            In [0, 1].
        """
        c = _check_probabilities("confidence", confidence)
        return self.ppf((1.0 - c) / 2.0), self.ppf((1.0 + c) / 2.0)

    def stats(self, moments: str = "mv") -> Any:
        """Mean (``m``), variance (``v``), skewness (``s``) and excess kurtosis (``k``).

        Parameters
        ----------
        moments : str, default "mv"
            Any of the letters ``m``, ``v``, ``s``, ``k``, in this order.

        Returns
        -------
        float or tuple of float
            A float for one letter, a tuple otherwise (as ``scipy.stats``).
        """
        if not isinstance(moments, str) or not moments or set(moments) - set(_MOMENT_CODES):
            raise ValueError(
                f"`moments` must be a non-empty string of the letters 'm', 'v', 's', 'k'; got "
                f"{describe(moments)}."
            )
        out: list[float] = []
        for code in _MOMENT_CODES:
            if code not in moments:
                continue
            if code == "m":
                out.append(self.mean())
            elif code == "v":
                out.append(self.var())
            else:
                out.append(self._shape(3 if code == "s" else 4))
        return out[0] if len(out) == 1 else tuple(out)
