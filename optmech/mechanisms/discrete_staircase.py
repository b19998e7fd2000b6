"""The discrete staircase: the optimal ε-DP integer noise for integer queries (Geng & Viswanath
2016).

Geng & Viswanath (2016), discrete setting. For an integer query of integer sensitivity Δ, noise on
ℤ, and
``r ∈ {1, …, Δ}``, the pmf is symmetric and, for ``i ≥ 0`` with ``k = floor(i/Δ)``,

    p_r(i) = a(r) b^k        if i − kΔ < r
           = a(r) b^(k+1)    otherwise,          a(r) = (1 − b) / (2r + 2b(Δ − r) − (1 − b)),

with ``b = e^(−ε)``. The optimum over all ε-DP pmfs on ℤ for a symmetric cost non-decreasing in
``|i|`` is ``min_r`` over this family (Geng & Viswanath 2016, discrete setting);
`DiscreteStaircase.optimal` evaluates the exact cost of every ``r`` at
once. ``Δ = 1`` gives the two-sided geometric ``P(i) = (1 − b)/(1 + b) b^|i|``
(`Geometric`).

Exact formulas used:

* tail ``T(m) = P(X ≥ m) = b^k (a((r − j)₊ + b(Δ − max(j, r))) + bC)`` for ``m = kΔ + j``,
  ``0 ≤ j < Δ``, where ``C = T(0) = (r + b(Δ − r))/(2r + 2b(Δ − r) − (1 − b))`` — positive terms
  only, so tails keep their relative precision; ``cdf`` and ``ppf`` follow from it;
* ``E c(X) = Σ_{i≥0} p(i) c(i) + Σ_{i≥0} p(i) c(−i) − p(0)c(0)`` with
  ``Σ_{i≥0} p(i) c(±i) = a (Σ_{j<r} W±_j + b Σ_{j≥r} W±_j)``,
  ``W±_j = Σ_k b^k c(±(kΔ + j))`` from `periodic_sum` (closed
  form for integer powers, a geometric series summed to 1e-17 relative otherwise);
* ``P(|X| > t) = 2 T(floor(t) + 1)`` for `ZeroOne`;
* ``sf(k) = T(k + 1) = cdf(−k − 1)`` by symmetry, ``log T(m) = −εk + log(…)`` (the bracket
  above), finite where ``b^k`` underflows; ``log p(i) = log a − ε(k + [i − kΔ ≥ r])``.

Examples
--------
>>> from optmech.costs import Absolute
>>> d = DiscreteStaircase.optimal(epsilon=1.0, sensitivity=5, cost=Absolute())
>>> d.r, round(d.expected_cost("abs"), 5)
(2, 4.78628)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._validation import check_int
from optmech.costs import Cost, ZeroOne, as_cost
from optmech.mechanisms._exact_moments import lerch
from optmech.mechanisms.base import DiscreteNoise, _keyword_repr, _SymmetricNoise
from optmech.mechanisms.description import GridDescription, PrivacySource, SourceKind
from optmech.mechanisms.exact_sampling import (
    bernoulli,
    bernoulli_exp,
    draw_many,
    geometric_exp,
    two_sided,
    uniform_below,
)
from optmech.mechanisms.laplace import _power_law, arithmetic_as_value_error, quiet_overflow
from optmech.mechanisms.staircase import check_staircase_epsilon
from optmech.privacy import PureDP

__all__ = ["SENSITIVITY_MAX", "DiscreteStaircase"]


#: Largest integer sensitivity accepted: costs and the search over ``r`` use arrays of length Δ.
SENSITIVITY_MAX = 10**6

# Offsets per call of a cost's periodic series when no closed form exists (bounds the memory
# of the block-wise series to about 8 MB).
_CHUNK = 256


def _constants(
    eps: float, delta: int, r: npt.ArrayLike
) -> tuple[float, float, FloatArray, FloatArray]:
    """``b``, ``1 − b``, ``a(r)`` and ``C = T(0)``, broadcast over ``r``."""
    b = math.exp(-eps)
    omb = -math.expm1(-eps)
    r = np.asarray(r, dtype=np.float64)
    body = r + b * (delta - r)
    den = 2.0 * body - omb
    return b, omb, omb / den, body / den


def _tail_parts(
    m: FloatArray, eps: float, delta: int, r: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, Any]:
    """``(k, inner, finite)`` with ``T(m) = b^k · inner`` for finite integer-valued ``m ≥ 0``.

    ``inner = a((r − j)₊ + b(Δ − max(j, r))) + bC ≥ bC > 0`` sums the pmf of Geng & Viswanath
    (2016), discrete setting, over the rest of period ``k`` and the periods beyond it.
    """
    b, _, a, c0 = _constants(eps, delta, r)
    r = np.asarray(r, dtype=np.float64)
    finite = np.isfinite(m)
    mf = np.where(finite, m, 0.0)
    k = np.floor(mf / delta)
    j = np.clip(mf - k * delta, 0.0, delta - 1.0)
    inner = a * (np.maximum(r - j, 0.0) + b * (delta - np.maximum(j, r))) + b * c0
    return k, inner, finite


def _tail(m: FloatArray, eps: float, delta: int, r: npt.ArrayLike) -> FloatArray:
    """``T(m) = P(X ≥ m)`` for integer-valued ``m ≥ 0`` (possibly +inf), broadcast over ``r``."""
    k, inner, finite = _tail_parts(m, eps, delta, r)
    return np.where(finite, np.exp(-eps * k) * inner, 0.0)


def _log_tail(m: FloatArray, eps: float, delta: int, r: npt.ArrayLike) -> FloatArray:
    """``log T(m) = −εk + log(inner)`` (``−inf`` at +inf): finite however far out ``m`` is."""
    k, inner, finite = _tail_parts(m, eps, delta, r)
    return np.where(finite, -eps * k + np.log(inner), -np.inf)


def _last_index(t: FloatArray, eps: float, delta: int, r: int, *, strict: bool) -> FloatArray:
    """Largest integer ``m ≥ 0`` with ``T(m) ≥ t`` (``> t`` if ``strict``), for ``0 < t < T(0)``.

    Closed form: the period from logs, the offset from the linear pieces of ``T`` inside it,
    then a few exact comparisons with ``T`` absorb rounding in both.
    """
    b, _, a_arr, c_arr = _constants(eps, delta, r)
    a, c0 = float(a_arr), float(c_arr)

    def holds(m: FloatArray) -> npt.NDArray[np.bool_]:
        tail = _tail(m, eps, delta, r)
        return tail > t if strict else tail >= t

    k = np.maximum(np.floor(np.log(c0 / t) / eps), 0.0)
    k = np.where(holds(k * delta) | (k == 0), k, k - 1.0)
    k = np.where(holds((k + 1.0) * delta), k + 1.0, k)
    rho = t / np.exp(-eps * k)  # in (bC, C]
    at_r = a * b * (delta - r) + b * c0  # T inside the period at offset r
    j = np.where(rho > at_r, r - (rho - at_r) / a, delta - (rho - b * c0) / (a * b))
    m = k * delta + np.clip(np.floor(j), 0.0, delta - 1.0)
    for _ in range(3):
        m = np.where(~holds(m) & (m > 0), m - 1.0, m)
    for _ in range(3):
        m = np.where(holds(m + 1.0), m + 1.0, m)
    return m


def _offset_sums(cost: Cost, eps: float, delta: int, sign: float) -> FloatArray:
    """``W_j = Σ_k b^k c(sign·(kΔ + j))`` for ``j = 0 … Δ−1``."""
    b = math.exp(-eps)
    offsets = sign * np.arange(delta, dtype=np.float64)
    law = _power_law(cost)
    if law is not None and float(law[0]).is_integer():
        return np.asarray(cost.periodic_sum(offsets, period=sign * delta, ratio=b))
    parts = [
        np.asarray(
            cost.periodic_sum(offsets[i : i + _CHUNK], period=sign * delta, ratio=b),
            dtype=np.float64,
        ).reshape(-1)
        for i in range(0, delta, _CHUNK)
    ]
    return np.concatenate(parts)


@arithmetic_as_value_error
def _costs_over_r(cost: Cost, eps: float, delta: int, r: npt.ArrayLike) -> FloatArray:
    """Exact ``E c(X)`` for each ``r`` in ``r`` (an array of integers in 1..Δ)."""
    r = np.asarray(r, dtype=np.int64)
    b, _, a, _ = _constants(eps, delta, r)
    with np.errstate(all="ignore"):
        if isinstance(cost, ZeroOne):
            m = np.floor(np.asarray(cost.tolerance)) + 1.0
            return np.asarray(2.0 * _tail(m, eps, delta, r), dtype=np.float64)
        total = np.zeros(r.shape)
        sides = (1.0,) if cost.symmetric else (1.0, -1.0)
        for sign in sides:
            w = _offset_sums(cost, eps, delta, sign)
            below = np.concatenate([[0.0], np.cumsum(w)])  # below[r] = Σ_{j<r} W_j
            above = np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])  # above[r] = Σ_{j≥r} W_j
            total = total + below[r] + b * above[r]
        if cost.symmetric:
            total = 2.0 * total
        return np.asarray(a * (total - float(cost(0.0))), dtype=np.float64)


class DiscreteStaircase(_SymmetricNoise, DiscreteNoise):
    """Discrete staircase noise on ℤ (Geng & Viswanath 2016, discrete setting).

    ε-DP for integer queries of sensitivity Δ: $p(i) ≤ e^ε p(i + d)$ for $|d| ≤ Δ$.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in [1e-6, 700].
    sensitivity : int
        Integer sensitivity Δ, in [1, 10**6].
    r : int
        Number of integers per period on the higher step, in [1, Δ].

    Attributes
    ----------
    r : int
    sensitivity : int

    Notes
    -----
    Sampling: with probability ``p(0)`` the noise is 0; otherwise ``|X| − 1 = G'Δ + J'`` with
    ``G'`` geometric (``P(G' = i) = (1 − b)b^i``) and ``J' ∈ {0 … Δ−1}`` independent of it,
    ``P(J' = j) ∝ 1`` for $j < r − 1$ and $∝ b$ otherwise (shifting by one turns the
    pattern of ``p`` on $i ≥ 1$ into a product form), and a fair sign. ``J'`` comes from one
    uniform through the inverse cdf of its piecewise-uniform relaxation.

    Examples
    --------
    >>> d = DiscreteStaircase(epsilon=1.0, sensitivity=3, r=2)
    >>> d
    DiscreteStaircase(epsilon=1.0, sensitivity=3, r=2)
    >>> [round(float(p), 6) for p in d.pmf([0, 1, 2, 3, 4])]
    [0.154039, 0.154039, 0.056668, 0.056668, 0.056668]
    """

    sensitivity: int

    def __init__(self, *, epsilon: float, sensitivity: int, r: int) -> None:
        self._epsilon = check_staircase_epsilon(epsilon)
        self.sensitivity = check_int("sensitivity", sensitivity, low=1, high=SENSITIVITY_MAX)
        self.r = check_int("r", r, low=1, high=self.sensitivity)
        b, omb, a, c0 = _constants(self._epsilon, self.sensitivity, self.r)
        self._b = b
        self._omb = omb
        self._a = float(a)
        self._c0 = float(c0)

    @classmethod
    def optimal(cls, *, epsilon: float, sensitivity: int, cost: Cost | str) -> DiscreteStaircase:
        """The ``r ∈ {1..Δ}`` minimising the exact ``E c(X)`` (all r evaluated at once).

        Parameters
        ----------
        epsilon, sensitivity
            As in `DiscreteStaircase`.
        cost : Cost or str
            Symmetric and non-decreasing in ``|e|`` (the theorem's hypotheses; otherwise
            `ValueError`). Ties go to the smallest ``r``.

        Examples
        --------
        >>> DiscreteStaircase.optimal(epsilon=5.0, sensitivity=10, cost="abs").r
        1
        """
        eps = check_staircase_epsilon(epsilon)
        delta = check_int("sensitivity", sensitivity, low=1, high=SENSITIVITY_MAX)
        c = as_cost(cost)
        c.require_symmetric_nondecreasing("DiscreteStaircase.optimal (Geng & Viswanath 2016)")
        values = _costs_over_r(c, eps, delta, np.arange(1, delta + 1))
        if not np.all(np.isfinite(values)):
            raise ValueError(
                f"the discrete staircase expected cost under {c!r} is not finite for "
                f"epsilon={eps!r}, sensitivity={delta!r}."
            )
        return cls(epsilon=eps, sensitivity=delta, r=int(np.argmin(values)) + 1)

    @property
    def privacy(self) -> PureDP:
        """``PureDP(epsilon)`` for integer queries of sensitivity Δ."""
        return PureDP(self._epsilon)

    # -- self-description -------------------------------------------------------------------
    def grid_description(self) -> GridDescription:
        """$P(0..Δ−1)$ with tails repeating a period of Δ points times $e^{−ε}$: the pmf
        exactly, as `optmech.certify` reads it."""
        return self._periodic_grid(int(self.sensitivity), math.exp(-self._epsilon))

    def privacy_source(self) -> PrivacySource:
        """The discrete staircase (kind ``grid``, closed form: sampled at its own law)."""
        parameters = {"epsilon": self._epsilon, "r": self.r}
        return self._source(SourceKind.GRID, parameters=parameters, grid=self.grid_description())

    def sample_exact(self, size: Any = None, rng: Any = None) -> Any:
        """Draws by integer and rational arithmetic alone (`optmech.mechanisms.exact_sampling`).

        On $i ≥ 0$ the pmf is a product: $i = GΔ + M$ with $P(G = k) ∝ b^k$ (``b =
        e^(−ε)``, drawn exactly by `geometric_exp`) and ``P(M =
        m) ∝ 1`` for ``m < r``, $∝ b$ otherwise. ``M`` is low with probability
        $r/(r + (Δ − r)b)$: repeat "low with probability r/Δ, else high with probability b"
        until one answers (at most $Δ/r$ rounds on average). A fair sign with $(−, 0)$
        rejected makes it two-sided. ε is the exact value of the float given: the law sampled
        is exactly the family's, ε-DP with no rounding.

        Parameters and returns as
        `DiscreteNoise.sample_exact`.
        """
        eps, delta, r = Fraction(self._epsilon), self.sensitivity, self.r
        low = Fraction(r, delta)

        def position(bits: Any) -> int:
            while r < delta:
                if bernoulli(low, bits):
                    break
                if bernoulli_exp(eps, bits):
                    return r + uniform_below(delta - r, bits)
            return uniform_below(r, bits)

        def magnitude(bits: Any) -> int:
            return geometric_exp(eps, bits) * delta + position(bits)

        return draw_many(two_sided(magnitude), size, rng)

    def __repr__(self) -> str:
        return _keyword_repr(self, epsilon=self._epsilon, sensitivity=self.sensitivity, r=self.r)

    # -- formulas ---------------------------------------------------------------------------
    @quiet_overflow
    def _pmf(self, k: FloatArray) -> FloatArray:
        i = np.abs(k)
        finite = np.isfinite(i)
        fi = np.where(finite, i, 0.0)
        period = np.floor(fi / self.sensitivity)
        down = (fi - period * self.sensitivity) >= self.r
        return np.where(finite, self._a * np.exp(-self._epsilon * (period + down)), 0.0)

    @quiet_overflow
    def _cdf(self, x: FloatArray) -> FloatArray:
        # x is integral (floored by NoiseDistribution.cdf) or ±inf.
        with np.errstate(invalid="ignore"):
            right = 1.0 - _tail(
                np.where(x >= 0, x + 1.0, 0.0), self._epsilon, self.sensitivity, self.r
            )
        left = _tail(np.where(x < 0, -x, 0.0), self._epsilon, self.sensitivity, self.r)
        return np.where(x < 0, left, right)

    @quiet_overflow
    def _logpmf(self, k: FloatArray) -> FloatArray:
        i = np.abs(k)  # k integral (checked by DiscreteNoise.logpmf)
        period = np.floor(i / self.sensitivity)
        down = (i - period * self.sensitivity) >= self.r
        return math.log(self._a) - self._epsilon * (period + down)

    @quiet_overflow
    def _logcdf(self, x: FloatArray) -> FloatArray:
        eps, delta, r = self._epsilon, self.sensitivity, self.r
        left = _log_tail(np.where(x < 0, -x, 0.0), eps, delta, r)  # P(X ≤ x) = T(−x), x < 0
        right = np.log1p(-_tail(np.where(x >= 0, x + 1.0, 0.0), eps, delta, r))
        return np.where(x < 0, left, right)

    @quiet_overflow
    def _ppf(self, q: FloatArray) -> FloatArray:
        eps, delta, r = self._epsilon, self.sensitivity, self.r
        t_one = float(_tail(np.asarray(1.0), eps, delta, r))  # F(−1) = T(1)
        negative = q <= t_one
        tq = np.where(negative & (q > 0), q, t_one)
        neg = -_last_index(tq, eps, delta, r, strict=False)
        s = 1.0 - q
        positive = ~negative & (s > 0)
        ts = np.where(positive, s, 0.5 * t_one)
        pos = _last_index(ts, eps, delta, r, strict=True)  # x = (min{m: T(m) ≤ s}) − 1
        out = np.where(negative, neg, pos)
        out = np.where(q <= 0, -np.inf, out)
        return np.where(~negative & (s <= 0), np.inf, out)

    @quiet_overflow
    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        shape = (1,) if size is None else size
        delta, r, b, omb = self.sensitivity, self.r, self._b, self._omb
        which = rng.random(shape)  # zero: [0, a); positive: [a, (1+a)/2); negative: the rest
        periods = rng.geometric(omb, size=shape)  # G' + 1
        if delta == 1:
            v = periods.astype(np.float64)  # J' = 0: |X| = G' + 1
        else:
            v = rng.random(shape)
            weight = (r - 1) + b * (delta - r + 1)
            v *= weight
            steep = v - (r - 1) * omb
            steep *= 1.0 / b
            np.maximum(v, steep, out=v)
            del steep
            np.floor(v, out=v)
            np.minimum(v, delta - 1.0, out=v)  # J'
            v += 1.0 - delta
            v += periods * float(delta)  # |X| = 1 + G'Δ + J'
        v *= which >= self._a
        np.subtract(0.5 * (1.0 + self._a), which, out=which)
        np.copysign(v, which, out=v)  # the zeros had which < a, so they keep a + sign
        return v.reshape(()) if size is None else v

    def _expected_cost(self, cost: Cost) -> float:
        return float(_costs_over_r(cost, self._epsilon, self.sensitivity, [self.r])[0])

    # -- scipy.stats parity: exact moments and entropy ------------------------------------------
    def _even_moment(self, n: int) -> float:
        """``E X^n = 2a(Σ_{j<r} W_j + b Σ_{j≥r} W_j)`` for even ``n``, where
        ``W_j = Σ_k b^k (kΔ + j)^n = Δ^n T_n(j/Δ)`` (Lerch sums in Eulerian form)."""
        delta, r = self.sensitivity, self.r
        w = lerch(n, self._epsilon, np.arange(delta, dtype=np.float64) / delta)
        inner = math.fsum(w[:r].tolist()) + self._b * math.fsum(w[r:].tolist())
        return 2.0 * self._a * math.exp(n * math.log(delta)) * inner

    def _entropy(self) -> float:
        """``−log a + ε E N = −log a + 2εaΔ b/(1 − b)²`` with ``N`` the step index of ``X``
        (``r`` points per period on the level ``b^k``, ``Δ − r`` on ``b^(k+1)``)."""
        geometric = 0.25 / math.sinh(0.5 * self._epsilon) ** 2  # b/(1 − b)²
        return -math.log(self._a) + 2.0 * self._epsilon * self._a * self.sensitivity * geometric
