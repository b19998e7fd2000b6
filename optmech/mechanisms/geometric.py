"""The geometric mechanisms: two-sided geometric noise on ℤ, and its range-restricted matrix.

Two-sided geometric (Ghosh, Roughgarden & Sundararajan 2012, the geometric mechanism; the discrete
staircase with Δ = 1). For an integer query of integer sensitivity Δ the noise

    P(X = k) = (1 − β)/(1 + β) · β^|k|,        β = e^(−ε/Δ),

is ε-DP: a shift by ``|d| ≤ Δ`` changes ``|k|`` by at most Δ, hence the probability by at most
``β^(−Δ) = e^ε``. (So the ratio per unit step is ``e^(ε/Δ)``; for ``Δ > 1`` the discrete
staircase of `optmech.mechanisms.discrete_staircase` does
better, and for ``Δ = 1`` the two coincide.) Closed forms: ``P(X ≥ m) = β^m/(1 + β)`` for ``m ≥ 0``,
``E|X| = 1/sinh(ε/Δ)``, ``E X² = 1/(2 sinh²(ε/2Δ))``, ``P(|X| > t) = 2β^(floor(t)+1)/(1 + β)``.
Tails: ``sf(k) = P(X ≥ k + 1) = cdf(−k − 1)`` by symmetry; ``log P(X ≥ m) = −mε/Δ − log1p(β)``
and ``log P(X = k) = log tanh(ε/2Δ) − |k|ε/Δ`` never underflow.

Range-restricted geometric (Ghosh, Roughgarden & Sundararajan 2012): for a count query with results
``{0..n}`` and ``α = e^(−ε)``, the mechanism `truncated_geometric` folds the
tails of the geometric onto the end points 0 and n. GRS prove it universally utility-maximising:
every Bayesian user with a monotone loss does best by remapping its output.

Examples
--------
>>> g = Geometric(epsilon=1.0)
>>> round(float(g.pmf(0)), 12)  # (1 − e^−1)/(1 + e^−1) = tanh(1/2)
0.46211715726
>>> truncated_geometric(2, 1.0).sum(axis=1)
array([1., 1., 1.])
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._scipy import linalg
from optmech._validation import check_int, check_real
from optmech.costs import Cost, ZeroOne
from optmech.mechanisms._exact_moments import lerch
from optmech.mechanisms.base import DiscreteNoise, _keyword_repr, _SymmetricNoise
from optmech.mechanisms.description import GridDescription, PrivacySource, SourceKind
from optmech.mechanisms.exact_sampling import draw_many, geometric_exp, two_sided
from optmech.mechanisms.laplace import _power_law, arithmetic_as_value_error, quiet_overflow
from optmech.mechanisms.staircase import EPSILON_MAX, EPSILON_MIN
from optmech.privacy import PureDP

__all__ = ["TRUNCATED_GEOMETRIC_MAX_N", "Geometric", "truncated_geometric"]


#: Largest ``n`` for ``truncated_geometric``: the (n+1)×(n+1) float64 matrix stays below
#: about 200 MB.
TRUNCATED_GEOMETRIC_MAX_N = 5000

#: Largest sensitivity of ``Geometric``: integers up to 2**53 are exact doubles.
SENSITIVITY_MAX = 2**53


class Geometric(_SymmetricNoise, DiscreteNoise):
    """Two-sided geometric noise $P(k) = (1 − β)/(1 + β) β^{|k|}$, $β = e^{−ε/Δ}$ (Ghosh,
    Roughgarden & Sundararajan 2012).

    ε-DP for integer queries of integer sensitivity Δ.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : int, default 1
        Integer sensitivity Δ, in [1, 2**53]. The per-unit rate $ε/Δ$ must lie in
        [1e-6, 700] (see `EPSILON_MIN`).

    Attributes
    ----------
    beta : float
        $e^{−ε/Δ}$.
    sensitivity : int

    Examples
    --------
    >>> g = Geometric(epsilon=2.0, sensitivity=2)
    >>> g
    Geometric(epsilon=2.0, sensitivity=2)
    >>> round(g.expected_cost("abs"), 12)  # 1/sinh(1)
    0.850918128239
    """

    sensitivity: int

    def __init__(self, *, epsilon: float, sensitivity: int = 1) -> None:
        self._epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
        self.sensitivity = check_int("sensitivity", sensitivity, low=1, high=SENSITIVITY_MAX)
        rate = self._epsilon / self.sensitivity
        if not EPSILON_MIN <= rate <= EPSILON_MAX:
            raise ValueError(
                f"`epsilon`/`sensitivity` must be in [{EPSILON_MIN:g}, {EPSILON_MAX:g}] so that "
                f"exp(-epsilon/sensitivity) is a normal double different from 1; got "
                f"epsilon={self._epsilon!r}, sensitivity={self.sensitivity!r}."
            )
        self._rate = rate
        self.beta = math.exp(-rate)
        self._p0 = math.tanh(0.5 * rate)  # (1 − β)/(1 + β)

    @property
    def privacy(self) -> PureDP:
        """``PureDP(epsilon)`` for integer queries of sensitivity Δ."""
        return PureDP(self._epsilon)

    # -- self-description -------------------------------------------------------------------
    def grid_description(self) -> GridDescription:
        """``P(0)`` with tails of one point and ratio `beta` each side: the pmf exactly, as
        `optmech.certify` reads it."""
        return self._periodic_grid(1, self.beta)

    def privacy_source(self) -> PrivacySource:
        """The two-sided geometric law (kind ``grid``, closed form: sampled at its own law)."""
        return self._source(
            SourceKind.GRID, parameters={"beta": self.beta}, grid=self.grid_description()
        )

    def __repr__(self) -> str:
        return _keyword_repr(self, epsilon=self._epsilon, sensitivity=self.sensitivity)

    def sample_exact(self, size: Any = None, rng: Any = None) -> Any:
        """Draws by integer and rational arithmetic alone (`optmech.mechanisms.exact_sampling`).

        The law is exactly $P(k) ∝ e^{−ε|k|/Δ}$ with ε the exact value of the float given
        (Canonne, Kamath & Steinke 2020, Alg. 2): ε-DP with no rounding.

        Parameters and returns as
        `DiscreteNoise.sample_exact`.
        """
        rate = Fraction(self._epsilon) / self.sensitivity
        return draw_many(two_sided(functools.partial(geometric_exp, rate)), size, rng)

    # -- formulas ---------------------------------------------------------------------------
    def _tail(self, m: FloatArray) -> FloatArray:
        """``P(X ≥ m) = β^m/(1 + β)`` for ``m ≥ 0`` (possibly +inf)."""
        return np.exp(-self._rate * m) / (1.0 + self.beta)

    @quiet_overflow
    def _pmf(self, k: FloatArray) -> FloatArray:
        return self._p0 * np.exp(-self._rate * np.abs(k))

    @quiet_overflow
    def _logpmf(self, k: FloatArray) -> FloatArray:
        return math.log(self._p0) - self._rate * np.abs(k)

    @quiet_overflow
    def _cdf(self, x: FloatArray) -> FloatArray:
        right = 1.0 - self._tail(np.where(x >= 0, x + 1.0, 0.0))
        left = self._tail(np.where(x < 0, -x, 0.0))
        return np.where(x < 0, left, right)

    @quiet_overflow
    def _logcdf(self, x: FloatArray) -> FloatArray:
        # log P(X ≤ x) = log(β^−x/(1 + β)) = εx/Δ − log1p(β) for x < 0, log1p(−P(X > x)) else.
        log_left = self._rate * np.minimum(x, 0.0) - math.log1p(self.beta)
        right = np.log1p(-self._tail(np.where(x >= 0, x + 1.0, 0.0)))
        return np.where(x < 0, log_left, right)

    def _last_index(self, t: FloatArray, *, strict: bool) -> FloatArray:
        """Largest ``m ≥ 0`` with ``P(X ≥ m) ≥ t`` (``> t`` if strict), ``0 < t < 1/(1 + β)``."""

        def holds(m: FloatArray) -> npt.NDArray[np.bool_]:
            tail = self._tail(m)
            return tail > t if strict else tail >= t

        m = np.maximum(np.floor(-np.log(t * (1.0 + self.beta)) / self._rate), 0.0)
        for _ in range(2):
            m = np.where(~holds(m) & (m > 0), m - 1.0, m)
        for _ in range(2):
            m = np.where(holds(m + 1.0), m + 1.0, m)
        return m

    @quiet_overflow
    def _ppf(self, q: FloatArray) -> FloatArray:
        t_one = self.beta / (1.0 + self.beta)  # F(−1)
        negative = q <= t_one
        neg = -self._last_index(np.where(negative & (q > 0), q, t_one), strict=False)
        s = 1.0 - q
        pos = self._last_index(np.where(~negative & (s > 0), s, 0.5 * t_one), strict=True)
        out = np.where(negative, neg, pos)
        out = np.where(q <= 0, -np.inf, out)
        return np.where(~negative & (s <= 0), np.inf, out)

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        shape = () if size is None else size
        p = -math.expm1(-self._rate)
        # Difference of two geometrics on {1, 2, …}: the shifts cancel.
        diff = rng.geometric(p, size=shape) - rng.geometric(p, size=shape)
        return np.asarray(diff, dtype=np.float64)

    @arithmetic_as_value_error
    def _expected_cost(self, cost: Cost) -> float:
        with np.errstate(all="ignore"):
            law = _power_law(cost)
            if law is not None and law[0] in (1.0, 2.0):
                p, over, under = law
                if p == 1.0:
                    moment = 1.0 / math.sinh(self._rate)
                else:
                    moment = 0.5 / math.sinh(0.5 * self._rate) ** 2
                return 0.5 * (over + under) * moment
            if isinstance(cost, ZeroOne):
                return 2.0 * float(self._tail(np.asarray(math.floor(cost.tolerance) + 1.0)))
            up = float(cost.periodic_sum(0.0, period=1.0, ratio=self.beta))
            down = (
                up
                if cost.symmetric
                else float(cost.periodic_sum(0.0, period=-1.0, ratio=self.beta))
            )
            return self._p0 * (up + down - float(cost(0.0)))

    # -- scipy.stats parity: exact moments and entropy ------------------------------------------
    def _even_moment(self, n: int) -> float:
        """``E X^n = 2 p(0) Σ_{k≥1} β^k k^n = 2 p(0) Li₋ₙ(β)`` (even ``n``; Eulerian form)."""
        return 2.0 * self._p0 * float(lerch(n, self._rate, 0.0))

    def _entropy(self) -> float:
        """``−log p(0) + (ε/Δ) E|X| = −log tanh(ε/2Δ) + (ε/Δ)/sinh(ε/Δ)`` (as
        ``scipy.stats.dlaplace``)."""
        return -math.log(self._p0) + self._rate / math.sinh(self._rate)


def truncated_geometric(n: int, epsilon: float) -> FloatArray:
    """The range-restricted geometric mechanism ``G`` of GRS (Ghosh, Roughgarden & Sundararajan
    2012).

    ``G[i, j] = P(output j | input i)`` on ``{0..n}`` with $α = e^{−ε}$:
    $α^{|i−j|} (1 − α)/(1 + α)$ for ``0 < j < n``, $α^i/(1 + α)$ for ``j = 0`` and
    $α^{n−i}/(1 + α)$ for ``j = n``. Rows sum to 1 (the tails of the two-sided geometric
    folded onto the end points); ε-DP for neighbours ``|i − i'| = 1``.

    Parameters
    ----------
    n : int
        Largest query result, in [1, 5000] (the matrix has $(n + 1)²$ entries).
    epsilon : float
        Privacy parameter ε, in (0, inf).

    Returns
    -------
    ndarray of shape (n + 1, n + 1)

    Examples
    --------
    >>> import math
    >>> G = truncated_geometric(5, math.log(2))  # GRS (2012), Fig. 2 before the remap
    >>> [round(float(v), 6) for v in G[0]]
    [0.666667, 0.166667, 0.083333, 0.041667, 0.020833, 0.020833]
    """
    n = check_int(
        "n",
        n,
        low=1,
        high=TRUNCATED_GEOMETRIC_MAX_N,
        hint="the (n+1)x(n+1) matrix is capped to bound memory",
    )
    eps = check_real("epsilon", epsilon, low=0.0, low_open=True)
    alpha = math.exp(-eps)
    idx = np.arange(n + 1, dtype=np.float64)
    with np.errstate(over="ignore"):  # ε·|i − j| beyond the double range: α^|i−j| = 0
        powers = np.exp(-eps * idx)
    mech = linalg.toeplitz(powers * (-math.expm1(-eps) / (1.0 + alpha)))
    mech[:, 0] = powers / (1.0 + alpha)
    mech[:, n] = powers[::-1] / (1.0 + alpha)
    return mech
