"""The staircase mechanism: the optimal ε-DP additive noise on ℝ (Geng & Viswanath 2016).

From Geng & Viswanath (2016): with ``b = e^(−ε)`` and ``γ ∈ [0, 1]`` the staircase density is
symmetric and, for ``x ≥ 0`` with ``k = floor(x/Δ)``,

    f_γ(x) = a(γ) b^k        if x − kΔ <  γΔ
           = a(γ) b^(k+1)    if x − kΔ >= γΔ,       a(γ) = (1 − b) / (2Δ(γ + (1 − γ)b)).

Geng & Viswanath (2016, Thm. 3) proves that for every cost that is symmetric and non-decreasing in
``|x|`` the best ε-DP noise is ``min_γ E_{f_γ} c(X)``; `Staircase.optimal`
finds that γ.

Everything here is exact (closed form or a convergent geometric series):

* ``cdf``/``sf`` by geometric sums over the periods, ``ppf`` by inverting them in closed form;
  for ``x ≥ 0`` with ``x/Δ = k + y``, ``P(X > x) = b^k (b/2 + a₁b(1 − max(y, γ)) + a₁(γ − y)₊)``
  (``a₁ = Δa(γ)``), positive terms only; ``logsf`` is ``−εk`` plus the log of the bracket, so it
  stays finite where ``b^k`` underflows; ``sf(x) = cdf(−x)`` by symmetry;
* ``E|X|`` and ``E X²`` by the closed forms of Geng & Viswanath (2016) (with ``u = b + (1 − b)γ``):

      E|X| = Δ (1/(e^ε − 1) + (b + γ²(1 − b)) / (2u))
      E X² = Δ² (u³ + 3bu + b + b²) / (3u(1 − b)²)

* ``P(|X| > t)`` (`ZeroOne`) as ``2·sf(t)``;
* any other cost through `periodic_integral` over the two
  steps of each period, on both sides (the mirrored cost on the negative side): exact for integer
  powers, a geometric series summed to 1e-17 relative otherwise. Both run in ``b`` held as a double,
  which limits them to about ``1e-16/ε`` relative (1e-14 at ε = 0.01; the reason for `EPSILON_MIN`).

Optimal γ (Geng & Viswanath 2016): ``γ* = 1/(1 + e^(ε/2))`` for ``|x|``; for ``x²``,
``u* = (b(1 + b)/2)^(1/3)`` and ``γ* = (u* − b)/(1 − b)``; for other costs a 1-D minimisation
of the exact cost. Differentiating the exact cost gives the stationarity condition used to
polish that minimisation,

    dE/dγ = ((1 − b)/u) · ((1 − b) Σ_k b^k c((k + γ)Δ) − E_γ c(X)),

so the optimum puts the "step-point average" ``(1 − b) Σ_k b^k c((k + γ)Δ)`` equal to the cost.

Examples
--------
>>> from optmech.costs import Absolute
>>> s = Staircase.optimal(epsilon=1.0, cost=Absolute())
>>> round(s.gamma, 12)
0.377540668798
>>> round(s.expected_cost("abs"), 12)  # Δ e^(ε/2)/(e^ε − 1)
0.959517375667
>>> round(float(laplace_staircase_ratio(10.0, "abs")), 2)
14.84
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._scipy import optimize
from optmech._validation import check_real, check_real_array
from optmech.costs import Cost, ZeroOne, as_cost
from optmech.mechanisms.base import ContinuousNoise, _keyword_repr, _SymmetricNoise
from optmech.mechanisms.description import CUT_MASS, PiecewiseDescription, PrivacySource, SourceKind
from optmech.mechanisms.laplace import (
    Laplace,
    _power_law,
    arithmetic_as_value_error,
    quiet_overflow,
)
from optmech.privacy import PureDP

__all__ = [
    "EPSILON_MAX",
    "EPSILON_MIN",
    "Staircase",
    "heuristic_gamma",
    "laplace_staircase_ratio",
    "staircase_gamma_star",
]


#: Smallest ε the staircase families accept. Costs without a closed form here are geometric
#: series in the ratio ``b = e^(−ε)`` held as a double, whose rounding costs about ``1e-16/ε``
#: relative accuracy: at most 1e-10 from this ε on.
EPSILON_MIN = 1e-6
#: Largest ε the staircase families accept: ``e^(−ε)`` must stay a normal double.
EPSILON_MAX = 700.0
_EPS_HINT = "below 1e-6 the exact-cost series lose accuracy; above 700 exp(-epsilon) underflows"

# Density values and lengths must stay inside this range of doubles.
_BIG = 1e300
_SMALL = float(np.finfo(np.float64).tiny)

# Grid of γ values scanned before the polished 1-D minimisation.
_GAMMA_GRID = np.linspace(0.0, 1.0, 65)


# -- validation helpers shared by the ε-DP staircase families ------------------------------------
def check_staircase_epsilon(epsilon: Any) -> float:
    """Validate ε for a staircase family: a finite real in [EPSILON_MIN, EPSILON_MAX]."""
    return check_real("epsilon", epsilon, low=EPSILON_MIN, high=EPSILON_MAX, hint=_EPS_HINT)


def _epsilon_values(epsilon: Any) -> tuple[FloatArray, bool]:
    """ε as a float array in [EPSILON_MIN, EPSILON_MAX] and whether it was a scalar."""
    try:
        scalar = np.ndim(epsilon) == 0
    except Exception:  # ragged sequences and the like: let check_real_array explain
        scalar = False
    if scalar:
        return np.asarray(check_staircase_epsilon(epsilon), dtype=np.float64), True
    arr = check_real_array("epsilon", epsilon, allow_empty=True)
    bad = (arr < EPSILON_MIN) | (arr > EPSILON_MAX)
    if np.any(bad):
        raise ValueError(
            f"`epsilon` must contain finite real numbers in [{EPSILON_MIN:g}, {EPSILON_MAX:g}] "
            f"({_EPS_HINT}); got {float(arr[bad].flat[0])!r}."
        )
    return arr, False


def _as_output(values: FloatArray, scalar: bool) -> FloatArray | float:
    return float(values.reshape(())) if scalar else values


# -- formulas in units of Δ (private; inputs trusted) -------------------------------------------
def _constants(eps: float, gamma: Any) -> tuple[float, float, Any, Any]:
    """``b``, ``1 − b``, ``u = b + (1 − b)γ`` and the unit-Δ height ``a₁ = (1 − b)/(2u)``."""
    b = math.exp(-eps)
    omb = -math.expm1(-eps)
    u = b + np.asarray(gamma, dtype=np.float64) * omb
    return b, omb, u, omb / (2.0 * u)


def _sf_parts(z: FloatArray, eps: float, gamma: Any) -> tuple[FloatArray, FloatArray, Any]:
    """``(k, inner, finite)`` with ``P(Y > z) = b^k · inner`` for finite ``z ≥ 0``, ``Y = X/Δ``.

    ``P(Y > k + y) = b^k (b/2 + a₁b(1 − max(y, γ)) + a₁ max(γ − y, 0))`` (Geng & Viswanath
    (2016), Thm. 3's density summed over the periods beyond ``k + y``): a sum of positive terms
    with ``inner ≥ b/2 > 0``, so the tail keeps full relative precision however small it gets.
    """
    b, _, _, a1 = _constants(eps, gamma)
    finite = np.isfinite(z)
    zf = np.where(finite, z, 0.0)
    k = np.floor(zf)
    y = np.clip(zf - k, 0.0, 1.0)
    inner = 0.5 * b + a1 * b * (1.0 - np.maximum(y, gamma)) + a1 * np.maximum(gamma - y, 0.0)
    return k, inner, finite


def _sf_unit(z: FloatArray, eps: float, gamma: Any) -> FloatArray:
    """``P(Y > z)`` for ``z ≥ 0`` (possibly +inf) and ``Y = X/Δ``: ``b^k · inner``."""
    k, inner, finite = _sf_parts(z, eps, gamma)
    return np.where(finite, np.exp(-eps * k) * inner, 0.0)


def _logsf_unit(z: FloatArray, eps: float, gamma: Any) -> FloatArray:
    """``log P(Y > z) = −εk + log(inner)`` for ``z ≥ 0`` (``−inf`` at +inf): never underflows."""
    k, inner, finite = _sf_parts(z, eps, gamma)
    return np.where(finite, -eps * k + np.log(inner), -np.inf)


def _isf_unit(t: FloatArray, eps: float, gamma: float) -> FloatArray:
    """The ``z ≥ 0`` with ``P(Y > z) = t``, for ``0 < t ≤ 1/2`` (closed form, Geng & Viswanath
    2016)."""
    b, _, _, a1 = _constants(eps, gamma)
    a1 = float(a1)
    # Period: b^k/2 ≥ t > b^(k+1)/2, first from logs, then corrected by one step either way.
    k = np.maximum(np.floor(-np.log(2.0 * t) / eps), 0.0)
    k = np.where(0.5 * np.exp(-eps * k) < t, np.maximum(k - 1.0, 0.0), k)
    k = np.where(0.5 * np.exp(-eps * (k + 1.0)) >= t, k + 1.0, k)
    rho = t / np.exp(-eps * k)  # in (b/2, 1/2]
    # Mass between kΔ and z, in units of b^k: a₁y on the high step, a₁γ + a₁b(y − γ) after it.
    # Each piece is inverted from the end it is nearest to (exact for k = 0 and t ≥ 1/4).
    mass = 0.5 - rho
    y = np.where(mass < a1 * gamma, mass / a1, 1.0 - (rho - 0.5 * b) / (a1 * b))
    return k + np.clip(y, 0.0, 1.0)


def _abs_cost(eps: Any, gamma: Any, delta: float) -> Any:
    """``E|X|`` (Geng & Viswanath 2016), vectorised over ε and γ."""
    b = np.exp(-np.asarray(eps, dtype=np.float64))
    omb = -np.expm1(-np.asarray(eps, dtype=np.float64))
    u = b + gamma * omb
    return delta * (1.0 / np.expm1(eps) + (b + gamma * gamma * omb) / (2.0 * u))


def _squared_cost(eps: Any, gamma: Any, delta: float) -> Any:
    """``E X² = Δ²(u³ + 3bu + b + b²)/(3u(1 − b)²)`` (Geng & Viswanath 2016), vectorised."""
    b = np.exp(-np.asarray(eps, dtype=np.float64))
    omb = -np.expm1(-np.asarray(eps, dtype=np.float64))
    u = b + gamma * omb
    return delta * delta * (u**3 + 3.0 * b * u + b + b * b) / (3.0 * u * omb * omb)


def _gamma_star_abs(eps: Any) -> Any:
    """``γ* = 1/(1 + e^(ε/2))`` for ``|x|`` (numpy only: the closed forms import no SciPy; an
    overflowing ``e^(ε/2)`` gives 0)."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(0.5 * np.asarray(eps, dtype=np.float64)))


def _gamma_star_squared(eps: Any) -> Any:
    """``γ* = (u* − b)/(1 − b)``, ``u* = (b(1 + b)/2)^(1/3)``, in a cancellation-free form.

    ``u*/b = exp((2ε + log1p(−(1 − b)/2))/3)``, so ``u* − b = b·expm1(...)``.
    """
    eps = np.asarray(eps, dtype=np.float64)
    b = np.exp(-eps)
    omb = -np.expm1(-eps)
    return b * np.expm1((2.0 * eps + np.log1p(-0.5 * omb)) / 3.0) / omb


def _abs_optimal_cost(eps: Any, delta: float) -> Any:
    """``V* = Δ e^(ε/2)/(e^ε − 1) = Δ/(2 sinh(ε/2))``."""
    return delta / (2.0 * np.sinh(0.5 * np.asarray(eps, dtype=np.float64)))


def _squared_optimal_cost(eps: Any, delta: float) -> Any:
    """``V* = Δ²(u*² + b)/(1 − b)²``."""
    eps = np.asarray(eps, dtype=np.float64)
    b = np.exp(-eps)
    omb = -np.expm1(-eps)
    u_star = np.exp((-eps + np.log1p(-0.5 * omb)) / 3.0)
    return delta * delta * (u_star * u_star + b) / (omb * omb)


@arithmetic_as_value_error
def _cost_vector(
    cost: Cost, eps: float, delta: float, gamma: Any, *, closed_form: bool = True
) -> FloatArray:
    """Exact ``E_γ c(X)`` for an array of γ (one ε, one Δ); see the module docstring.

    ``closed_form=False`` skips the closed forms of ``|e|``, ``e²`` and the zero-one cost and
    sums the periodic integrals instead: an independent route used by the theorem checks.
    """
    gamma = np.asarray(gamma, dtype=np.float64)
    with np.errstate(all="ignore"):
        law = _power_law(cost) if closed_form else None
        if law is not None and law[0] in (1.0, 2.0):
            p, over, under = law
            moment = _abs_cost(eps, gamma, delta) if p == 1.0 else _squared_cost(eps, gamma, delta)
            return np.asarray(0.5 * (over + under) * moment, dtype=np.float64)
        if closed_form and isinstance(cost, ZeroOne):
            tail = _sf_unit(np.asarray(cost.tolerance / delta), eps, gamma)
            return np.asarray(2.0 * tail, dtype=np.float64)
        b, _, _, a1 = _constants(eps, gamma)
        step = gamma * delta

        def one_side(c: Cost) -> FloatArray:
            first = np.asarray(c.periodic_integral(0.0, step, period=delta, ratio=b))
            second = np.asarray(c.periodic_integral(step, delta, period=delta, ratio=b))
            return first + b * second

        positive = one_side(cost)
        negative = positive if cost.symmetric else one_side(cost.mirrored())
        return np.asarray(a1 / delta * (positive + negative), dtype=np.float64)


@arithmetic_as_value_error
def _stationarity(
    cost: Cost, eps: float, delta: float, gamma: float, *, closed_form: bool = True
) -> float:
    """Sign of ``dE/dγ``: ``(1 − b) Σ_k b^k c((k + γ)Δ) − E_γ c(X)`` (symmetric cost)."""
    b = math.exp(-eps)
    omb = -math.expm1(-eps)
    with np.errstate(all="ignore"):
        if closed_form and isinstance(cost, ZeroOne):
            # (1 − b) Σ_{k ≥ k0} b^k = b^k0, k0 the first step point (k + γ)Δ beyond the tolerance
            start, t = gamma * delta, cost.tolerance
            reach = (t - start) / delta
            if reach > 1e15:  # b^k0 ≤ e^(−1000) for every admissible ε
                step_average = 0.0
            else:
                first = max(math.floor(reach), 0)
                while start + first * delta <= t:
                    first += 1
                while first > 0 and start + (first - 1) * delta > t:
                    first -= 1
                step_average = math.exp(-eps * first)
        else:
            step_average = omb * float(cost.periodic_sum(gamma * delta, period=delta, ratio=b))
    return step_average - float(_cost_vector(cost, eps, delta, gamma, closed_form=closed_form))


def _numeric_gamma(cost: Cost, eps: float, delta: float, *, closed_form: bool = True) -> float:
    """γ minimising the exact cost of a symmetric non-decreasing ``cost``.

    A scan of 65 γ values brackets the best one; inside the bracket a bounded Brent
    minimisation (``xatol`` 1e-12) and, where ``dE/dγ`` changes sign, a root of the
    stationarity condition (``brentq``, ``xtol`` 1e-15) are tried; the endpoints 0 and 1
    are candidates too. The root is preferred among candidates whose cost ties with the best
    to 1e-13 relative: the cost is flat to second order at the optimum, so only the derivative
    locates the argmin beyond ``sqrt(machine epsilon)``. ``closed_form`` as in
    `_cost_vector`.
    """
    values = _cost_vector(cost, eps, delta, _GAMMA_GRID, closed_form=closed_form)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"the staircase expected cost under {cost!r} is not finite at ε={eps!r}.")
    i = int(np.argmin(values))
    lo = float(_GAMMA_GRID[max(i - 1, 0)])
    hi = float(_GAMMA_GRID[min(i + 1, len(_GAMMA_GRID) - 1)])
    candidates = [0.0, 1.0, float(_GAMMA_GRID[i])]

    def scalar_cost(g: float) -> float:
        return float(_cost_vector(cost, eps, delta, g, closed_form=closed_form))

    def slope_sign(g: float) -> float:
        return _stationarity(cost, eps, delta, g, closed_form=closed_form)

    res = optimize.minimize_scalar(
        scalar_cost, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}
    )
    candidates.append(float(res.x))
    root = None
    if slope_sign(lo) < 0.0 < slope_sign(hi):
        # Where the slope is lost in rounding (large ε, fast-growing costs) brentq may stop
        # unconverged; its point is then only one more candidate.
        found, info = optimize.brentq(
            slope_sign, lo, hi, xtol=1e-15, maxiter=200, full_output=True, disp=False
        )
        candidates.append(float(found))
        root = float(found) if info.converged else None
    costs = np.array([scalar_cost(g) for g in candidates])
    best = float(costs.min())
    if root is not None and costs[-1] <= best + 1e-13 * abs(best):
        return root
    return candidates[int(np.argmin(costs))]


def _optimal_gamma(cost: Cost, eps: float, delta: float) -> float:
    law = _power_law(cost)
    if law is not None and law[0] == 1.0:
        return float(_gamma_star_abs(eps))
    if law is not None and law[0] == 2.0:
        return float(_gamma_star_squared(eps))
    return _numeric_gamma(cost, eps, delta)


def _require_theorem_cost(cost: Any, context: str) -> Cost:
    c = as_cost(cost)
    c.require_symmetric_nondecreasing(context)
    return c


# -- the family -----------------------------------------------------------------------------------
class Staircase(_SymmetricNoise, ContinuousNoise):
    """Staircase noise $f_γ$ (Geng & Viswanath 2016): ε-DP for queries of sensitivity Δ.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in [1e-6, 700] (see `EPSILON_MIN`, `EPSILON_MAX`).
    sensitivity : float, default 1
        Query sensitivity Δ, in (0, inf); the density's peak and its value $a(γ)b$ on
        $[γΔ, Δ)$ must be normal doubles below 1e300, and $800Δ/ε$ below 1e300.
    gamma : float
        Fraction of each period $[kΔ, (k + 1)Δ)$ on the higher step, in [0, 1]. $γ = 0$
        and $γ = 1$ give piecewise-constant geometric mixtures of uniforms.

    Attributes
    ----------
    gamma : float
    sensitivity : float

    Notes
    -----
    Sampling is Algorithm 1 of Geng, Kairouz, Oh & Viswanath (2015): $X = S·(G + Y)Δ$ with a fair
    sign ``S``, a geometric period ``G`` ($P(G = i) = (1 − b)b^i$) and the within-period offset
    ``Y`` obtained from one uniform ``V`` by inverting its piecewise-uniform cdf,
    $Y = max(uV, (uV − γ(1 − b))/b)$ — the same law as Algorithm 1's ``B`` and ``U`` drawn
    separately. The steps are classified after rounding $x/Δ$, which is exact when Δ is a
    power of two.

    Examples
    --------
    >>> s = Staircase(epsilon=1.0, gamma=0.5)
    >>> s
    Staircase(epsilon=1.0, sensitivity=1.0, gamma=0.5)
    >>> round(float(s.pdf(0.2) / s.pdf(0.7)), 12)  # one step down: a factor e^ε
    2.718281828459
    >>> float(s.cdf(s.ppf(0.9)))
    0.9
    """

    def __init__(self, *, epsilon: float, sensitivity: float = 1.0, gamma: float) -> None:
        self._epsilon = check_staircase_epsilon(epsilon)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        self.gamma = check_real("gamma", gamma, low=0.0, high=1.0)
        self._optimal_for: Cost | None = None  # the cost `optimal` minimised, if it made this
        b, _, _, a1 = _constants(self._epsilon, self.gamma)
        self._b = b
        self._a1 = float(a1)
        # log of the height of the (possibly empty) first step, in units of 1/Δ
        self._log_height = math.log(self._a1) - math.log(self.sensitivity)
        first_step = self._a1 * b / self.sensitivity  # the density on [γΔ, Δ)
        peak = self._a1 / self.sensitivity if self.gamma > 0 else first_step
        reach = 800.0 * self.sensitivity / self._epsilon
        if not (peak <= _BIG and first_step >= _SMALL and reach <= _BIG):
            raise ValueError(
                "`sensitivity` and `epsilon` give a staircase density outside the normal "
                f"double range (peak {peak:.3g}, first step {first_step:.3g}, support scale "
                f"{reach:.3g}); got sensitivity={self.sensitivity!r}, epsilon={self._epsilon!r}, "
                f"gamma={self.gamma!r}. Rescale the query."
            )

    @classmethod
    def optimal(cls, *, epsilon: float, sensitivity: float = 1.0, cost: Cost | str) -> Staircase:
        """The staircase with the γ minimising ``E c(X)`` (Geng & Viswanath 2016, Thm. 3).

        Parameters
        ----------
        epsilon, sensitivity
            As in `Staircase` (``sensitivity`` defaults to 1).
        cost : Cost or str
            Symmetric cost non-decreasing in ``|e|`` (the theorem's hypotheses; anything else
            raises `ValueError`). ``|e|`` and $e²$ use the closed-form γ*; other costs
            a 1-D minimisation of the exact expected cost over γ ∈ [0, 1].

        Examples
        --------
        >>> s = Staircase.optimal(epsilon=2.0, cost="squared")
        >>> round(s.gamma, 10)
        0.3351300297
        """
        eps = check_staircase_epsilon(epsilon)
        delta = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        c = _require_theorem_cost(cost, "Staircase.optimal (Geng & Viswanath 2016, Thm. 3)")
        # Validate the (ε, Δ) pair before any numerics: γ = 1/2 is a representative staircase.
        cls(epsilon=eps, sensitivity=delta, gamma=0.5)
        best = cls(epsilon=eps, sensitivity=delta, gamma=_optimal_gamma(c, eps, delta))
        best._optimal_for = c
        return best

    @property
    def privacy(self) -> PureDP:
        """``PureDP(epsilon)``: $f(x) ≤ e^ε f(x + d)$ for all $|d| ≤ Δ$ (Geng & Viswanath
        2016)."""
        return PureDP(self._epsilon)

    # -- self-description -------------------------------------------------------------------
    def privacy_source(self) -> PrivacySource:
        """A density constant between the edges $kΔ$ and $(k + γ)Δ$ (Geng & Viswanath 2016,
        Thm. 3), cut at the first $2^jΔ$ with mass beyond below `CUT_MASS` (that mass is
        stated; its privacy losses are at most ε): kind ``piecewise``."""
        delta = self.sensitivity
        k = 1
        while float(self.sf(k * delta)) > CUT_MASS / 2.0 and k < 10**6:
            k *= 2
        base = np.arange(k + 1, dtype=float)
        edges = np.unique(np.concatenate([base, base[:-1] + self.gamma]) * delta)
        pieces = PiecewiseDescription(
            edges, 0.0, 2.0 * float(self.sf(k * delta)), self._epsilon, self.logpdf
        )
        parameters = {"epsilon": self._epsilon, "gamma": self.gamma}
        return self._source(SourceKind.PIECEWISE, parameters=parameters, pieces=pieces)

    def __repr__(self) -> str:
        return _keyword_repr(
            self, epsilon=self._epsilon, sensitivity=self.sensitivity, gamma=self.gamma
        )

    def _repr_html_(self) -> str:
        """Notebook summary: the guarantee, Δ and γ, and for an optimum its cost and expected
        cost, at the display's six significant digits as every result (``repr`` keeps full
        precision, copyable back into code)."""
        from optmech._display import html_summary

        rows: list[tuple[str, Any]] = [
            ("guarantee", self.privacy),
            ("sensitivity Δ", float(self.sensitivity)),
            ("γ", float(self.gamma)),
        ]
        if self._optimal_for is not None:
            rows.append(("optimal for cost", repr(self._optimal_for)))
            rows.append(("expected cost", self.expected_cost(self._optimal_for)))
        return html_summary(type(self).__name__, rows)

    # -- formulas ---------------------------------------------------------------------------
    @quiet_overflow
    def _pdf(self, x: FloatArray) -> FloatArray:
        return np.exp(self._logpdf(x))  # exp(−inf) = 0 at infinite x

    @quiet_overflow
    def _logpdf(self, x: FloatArray) -> FloatArray:
        z = np.abs(x) / self.sensitivity
        finite = np.isfinite(z)
        zf = np.where(finite, z, 0.0)
        k = np.floor(zf)
        down = (zf - k) >= self.gamma  # the lower step of period k
        return np.where(finite, self._log_height - self._epsilon * (k + down), -np.inf)

    @quiet_overflow
    def _cdf(self, x: FloatArray) -> FloatArray:
        tail = _sf_unit(np.abs(x) / self.sensitivity, self._epsilon, self.gamma)
        return np.where(x < 0, tail, 1.0 - tail)

    @quiet_overflow
    def _logcdf(self, x: FloatArray) -> FloatArray:
        z = np.abs(x) / self.sensitivity
        log_tail = _logsf_unit(z, self._epsilon, self.gamma)
        upper = np.log1p(-_sf_unit(z, self._epsilon, self.gamma))
        return np.where(x < 0, log_tail, upper)

    @quiet_overflow
    def _ppf(self, q: FloatArray) -> FloatArray:
        t = np.minimum(q, 1.0 - q)  # exact for q ≥ 1/2 (Sterbenz)
        positive = t > 0
        z = _isf_unit(np.where(positive, t, 0.5), self._epsilon, self.gamma)
        z = np.where(positive, z * self.sensitivity, np.inf)
        return np.where(q < 0.5, -z, z)

    @quiet_overflow
    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        shape = (1,) if size is None else size
        b, omb, u, _ = _constants(self._epsilon, self.gamma)
        u = float(u)
        periods = rng.geometric(omb, size=shape)  # P = (1 − b) b^(i−1), i ≥ 1
        signed = rng.uniform(-1.0, 1.0, size=shape)  # sign and the within-period uniform
        x = np.abs(signed)
        x *= u
        steep = x - self.gamma * omb
        steep *= 1.0 / b
        np.maximum(x, steep, out=x)  # inverse cdf of the offset inside a period
        del steep
        x += periods
        x -= 1.0
        np.copysign(x, signed, out=x)
        if self.sensitivity != 1.0:
            x *= self.sensitivity
        return x.reshape(()) if size is None else x

    def _expected_cost(self, cost: Cost) -> float:
        return float(_cost_vector(cost, self._epsilon, self.sensitivity, self.gamma))

    # -- scipy.stats parity: exact moments and entropy ------------------------------------------
    def _even_moment(self, n: int) -> float:
        """``E X^n`` for even ``n``, from the density's geometric series (module docstring).

        Summed over the steps, ``E|X|^n = Δ^n (1 − b)² T_{n+1}(γ)/((n + 1)u)`` with
        ``T_s(γ) = Σ_k b^k (k + γ)^s``: the telescoping of Geng, Kairouz, Oh & Viswanath (2015)
        in dimension 1. ``n = 2`` is Geng & Viswanath (2016)'s closed form
        ``Δ²(u³ + 3bu + b + b²)/(3u(1 − b)²)``.
        """
        if n == 2:
            return float(_squared_cost(self._epsilon, self.gamma, self.sensitivity))
        from optmech.mechanisms.staircase_nd import _log_radial_moment  # loaded on use

        log_moment = float(_log_radial_moment(n, 1, self._epsilon, self.gamma))
        return math.exp(n * math.log(self.sensitivity) + log_moment)

    def _entropy(self) -> float:
        """``log(2uΔ/(1 − b)) + εb/(u(1 − b))``: ``−log a₁ + ε E N`` with ``N`` the step index
        of ``X`` (``P(N = j) = 2a₁b^j`` for ``j ≥ 1``, so ``E N = b/(u(1 − b))``)."""
        _, omb, u, _ = _constants(self._epsilon, self.gamma)
        u = float(u)
        return math.log(2.0 * u * self.sensitivity / omb) + self._epsilon * self._b / (u * omb)


# -- vectorised helpers ---------------------------------------------------------------------------
def staircase_gamma_star(
    epsilon: npt.ArrayLike, cost: Cost | str = "abs", sensitivity: float = 1.0
) -> FloatArray | float:
    """The optimal staircase parameter γ*(ε), vectorised over ``epsilon`` (Geng & Viswanath 2016).

    Parameters
    ----------
    epsilon : float or array_like
        Values in [1e-6, 700].
    cost : {"abs", "squared"} or Cost, default "abs"
        Closed forms for ``|e|`` ($1/(1 + e^{ε/2})$) and $e²$; any other symmetric
        non-decreasing cost is minimised numerically for each ε.
    sensitivity : float, default 1
        Δ; γ* does not depend on it for power costs.

    Examples
    --------
    >>> staircase_gamma_star([1.0, 2.0], "abs")
    array([0.37754067, 0.26894142])
    """
    eps, scalar = _epsilon_values(epsilon)
    c = _require_theorem_cost(cost, "staircase_gamma_star")
    delta = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    law = _power_law(c)
    if law is not None and law[0] == 1.0:
        out = np.asarray(_gamma_star_abs(eps), dtype=np.float64)
    elif law is not None and law[0] == 2.0:
        out = np.asarray(_gamma_star_squared(eps), dtype=np.float64)
    else:
        flat = [
            Staircase.optimal(epsilon=float(e), sensitivity=delta, cost=c).gamma
            for e in eps.reshape(-1)
        ]
        out = np.asarray(flat, dtype=np.float64).reshape(eps.shape)
    return _as_output(out, scalar)


def laplace_staircase_ratio(
    epsilon: npt.ArrayLike, cost: Cost | str = "abs", sensitivity: float = 1.0
) -> FloatArray | float:
    """Laplace cost / optimal staircase cost, vectorised over ``epsilon`` (Geng & Viswanath 2016).

    Tends to 1 as ε → 0; at ε = 10 it is about 14.84 for ``|e|`` and 23.61 for $e²$.

    Parameters
    ----------
    epsilon : float or array_like
        Values in [1e-6, 700].
    cost : {"abs", "squared"} or Cost, default "abs"
        Symmetric, non-decreasing in ``|e|``.
    sensitivity : float, default 1
        Δ (the ratio does not depend on it for power costs).

    Examples
    --------
    >>> laplace_staircase_ratio([0.01, 10.0], "squared").round(4)
    array([ 1.    , 23.6069])
    """
    eps, scalar = _epsilon_values(epsilon)
    c = _require_theorem_cost(cost, "laplace_staircase_ratio")
    delta = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    law = _power_law(c)
    with np.errstate(all="ignore"):
        if law is not None and law[0] == 1.0:
            out = 2.0 * np.sinh(0.5 * eps) / eps  # (Δ/ε) / (Δ/(2 sinh(ε/2)))
        elif law is not None and law[0] == 2.0:
            out = (2.0 / (eps * eps)) / _squared_optimal_cost(eps, 1.0)
        else:
            ratios = []
            for e in eps.reshape(-1):
                lap = Laplace(epsilon=float(e), sensitivity=delta).expected_cost(c)
                opt = Staircase.optimal(epsilon=float(e), sensitivity=delta, cost=c)
                best = opt.expected_cost(c)
                ratios.append(lap / best if best > 0 else math.inf)
            out = np.asarray(ratios, dtype=np.float64).reshape(eps.shape)
    out = np.asarray(out, dtype=np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"the Laplace/staircase cost ratio under {c!r} is not finite for some epsilon "
            "(a cost that vanishes or overflows in double precision)."
        )
    return _as_output(out, scalar)


def heuristic_gamma(epsilon: npt.ArrayLike) -> FloatArray | float:
    """The heuristic $γ̃ = 1/(1 + e^{ε/2})$ of Geng & Viswanath (2016), §V-B, vectorised over
    ``epsilon``.

    $P(|X| < γ̃Δ) → 1$ as ε → ∞; it equals γ* for the cost ``|e|``.

    Examples
    --------
    >>> heuristic_gamma(0.5)
    0.43782349911420193
    """
    eps, scalar = _epsilon_values(epsilon)
    return _as_output(np.asarray(_gamma_star_abs(eps), dtype=np.float64), scalar)
