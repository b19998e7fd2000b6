"""The d-dimensional staircase: ε-DP additive noise on ℝ^d for a norm ball of shifts.

Geng, Kairouz, Oh & Viswanath (2015), *The Staircase Mechanism in Differential Privacy*, IEEE
JSTSP, define the multi-dimensional staircase; Kulesza, Suresh & Wang (2025), *General
Staircase Mechanisms for Optimal Differential Privacy*, AISTATS, extend it to any norm and
dimension. With ``b = e^(−ε)``, ``γ ∈ [0, 1]``, sensitivity Δ and a norm ``‖·‖`` (ℓ1, ℓ2 or
ℓ∞ here), the density is constant on norm shells:

    f(x) = a b^k        on  kΔ ≤ ‖x‖ < (k + γ)Δ,
         = a b^(k+1)    on  (k + γ)Δ ≤ ‖x‖ < (k + 1)Δ,        k = 0, 1, ...

For ``d = 1`` every norm is ``|x|`` and this is the staircase of Geng & Viswanath (2016).

**Shell volumes.** The unit ball has volume ``c_d``: ``2^d/d!`` (ℓ1, the cross-polytope is
``2^d`` simplices), ``2^d`` (ℓ∞, the cube) and ``π^(d/2)/Γ(d/2 + 1)`` (ℓ2). By homogeneity the
ball of radius ``r`` has volume ``c_d r^d`` and a shell ``c_d(r₂^d − r₁^d)``.

**The series.** Write ``T_s(γ) = Σ_{k≥0} b^k (k + γ)^s`` (a Lerch transcendent). Summing the
shells and telescoping, ``Σ_k b^k[(k+γ)^s − k^s] + b^(k+1)[(k+1)^s − (k+γ)^s] = (1 − b) T_s(γ)``
for ``s > 0``, so with ``R = ‖X‖``:

    1        = a c_d Δ^d (1 − b) T_d(γ)                       (normalisation)
    E R^p    = Δ^p · d/(d + p) · T_{d+p}(γ) / T_d(γ)           (ring integral of r^p d(c_d r^d))

For ``d = 1``, ``p = 1`` this is the 1-D ``E|X|``. For integer ``s`` the series is a finite sum
of polylogarithms of negative order, ``T_s = Σ_j C(s, j) γ^(s−j) Li_{−j}(b)`` with
``Li_{−j}(b) = b A_j(b)/(1 − b)^(j+1)`` (Eulerian polynomials ``A_j``): positive terms, no
cancellation. Other ``s`` sum 4096 terms directly and the rest by the Euler–Maclaurin formula
(8 Bernoulli terms, the integral an upper incomplete gamma function), relative error below
``1e-15`` (the tests compare both routes at integer ``s``).

**Other norms' costs.** In polar coordinates of the family's norm, ``x = rθ``, the volume
element is ``d c_d r^(d−1) dr dμ(θ)`` with ``μ`` the cone probability measure on the unit
sphere, so ``E ‖X‖_q^p = E R^p · E_μ ‖θ‖_q^p``. In 2-D the cone measure is uniform in angle
(ℓ2) and uniform along the edges (ℓ1, ℓ∞), and ``E_μ ‖θ‖_q^p`` is a 1-D integral of an
analytic function, by Gauss–Legendre (64 nodes, checked against 128 to 1e-13 relative).

**Mixture of balls (the sampler).** The steps of ``f`` fall only at the radii ``(m + γ)Δ``,
where the density drops by ``a b^m (1 − b)``, so ``f = Σ_m a(1 − b)b^m 1[‖x‖ < (m + γ)Δ]``: a
mixture of uniform laws on balls with weights ``P(K = m) ∝ b^m (m + γ)^d`` (they sum to 1 by the
normalisation). Expanding ``(m + γ)^d = Σ_i c_i C(m, i)`` with
``c_i = Σ_j C(d, j) γ^(d−j) S(j, i) i! ≥ 0`` (Stirling numbers of the second kind) makes ``K``
itself a mixture: ``I = i`` with probability ``∝ c_i b^i/(1 − b)^(i+1)``, then ``K − I`` is
negative binomial with ``I + 1`` successes of probability ``1 − b``. Given ``K``, ``X`` is
uniform in the ball of radius ``(K + γ)Δ``: radius ``(K + γ)Δ U^(1/d)`` (the inverse cdf of
``r^(d−1)``) times a direction from the cone measure: normalised Gaussians (ℓ2), normalised
Laplace vectors (ℓ1), a uniform point of the cube's surface (ℓ∞).

Examples
--------
>>> from optmech.costs.norm import Norm
>>> s = StaircaseND.optimal(epsilon=1.0, cost=Norm(1), norm="l1", dimension=2)
>>> round(s.gamma, 6)
0.667084
>>> round(s.expected_cost(Norm(1)), 6)
1.986153
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._scipy import optimize, special
from optmech._validation import (
    check_int,
    check_real,
    check_rng,
    check_size,
    check_vectors,
    describe,
)
from optmech.costs.norm import Norm
from optmech.costs.vector import VectorCustom, as_vector_cost
from optmech.mechanisms.description import PrivacySource, SourceKind
from optmech.mechanisms.vector import VectorNoise, keyword_epsilon
from optmech.privacy import PureDP

__all__ = ["NORMS", "StaircaseND", "log_unit_ball_volume"]


#: The norms of the family and their orders.
NORMS = {"l1": 1.0, "l2": 2.0, "linf": math.inf}
#: ε range, as for the 1-D staircase: the series run in ``b = e^(−ε)`` held as a double.
EPSILON_MIN, EPSILON_MAX = 1e-6, 700.0
#: Largest dimension.
MAX_DIMENSION = 64
#: Largest ``d + p``: the Eulerian numbers of the closed form stay below the double range.
MAX_DEGREE = 170.0
#: Largest number of floats one call of ``rvs`` returns.
MAX_VALUES = 500_000_000

_DIRECT_TERMS = 4096  # terms summed directly before the Euler–Maclaurin tail
_EM_BERNOULLI = 8  # Bernoulli terms of that tail
_EM_EPS_MAX = 0.5  # from this ε on the tail beyond 4096 terms is below e^(−600) relative
_GAMMA_GRID = np.linspace(0.0, 1.0, 65)
_GL_ANGLE = (np.polynomial.legendre.leggauss(64), np.polynomial.legendre.leggauss(128))
_BIG, _SMALL = 1e300, float(np.finfo(np.float64).tiny)


def _check_norm(norm: Any) -> str:
    if not isinstance(norm, str) or norm not in NORMS:
        raise ValueError(f"`norm` must be one of 'l1', 'l2', 'linf'; got {describe(norm)}.")
    return norm


def _check_dimension(dimension: Any) -> int:
    return check_int("dimension", dimension, low=1, high=MAX_DIMENSION)


def _check_epsilon(epsilon: Any) -> float:
    return check_real(
        "epsilon",
        epsilon,
        low=EPSILON_MIN,
        high=EPSILON_MAX,
        hint="below 1e-6 the series lose accuracy; above 700 exp(-epsilon) underflows",
    )


def _check_cost(cost: Any, dimension: int) -> Norm:
    if not isinstance(cost, Norm):
        raise TypeError(
            "`cost` must be an optmech.costs.norm.Norm (a power of a vector norm); "
            f"got {describe(cost)}."
        )
    if dimension + cost.power > MAX_DEGREE:
        raise ValueError(
            f"`cost` power plus `dimension` must be at most {MAX_DEGREE:g}; got power "
            f"{cost.power!r} with dimension {dimension}."
        )
    return cost


def log_unit_ball_volume(norm: str, dimension: int) -> float:
    """``log c_d``: ℓ1 ``2^d/d!``, ℓ2 ``π^(d/2)/Γ(d/2 + 1)``, ℓ∞ ``2^d``.

    Examples
    --------
    >>> round(math.exp(log_unit_ball_volume("l2", 2)), 12)  # π
    3.14159265359
    """
    norm, d = _check_norm(norm), _check_dimension(dimension)
    if norm == "l1":
        return d * math.log(2.0) - math.lgamma(d + 1.0)
    if norm == "linf":
        return d * math.log(2.0)
    return 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d + 1.0)


# -- the series T_s(γ) = Σ_k b^k (k + γ)^s, in logs (private; inputs trusted) -----------------
@functools.lru_cache(maxsize=256)
def _eulerian_row(n: int) -> tuple[int, ...]:
    """Eulerian numbers ``A(n, m)``, ``m = 0 … n − 1`` (``n ≥ 1``), as exact integers.

    ``A(n, m) = (n − m)A(n − 1, m − 1) + (m + 1)A(n − 1, m)``.
    """
    row = [1]
    for k in range(2, n + 1):
        row = [
            (k - m) * (row[m - 1] if m >= 1 else 0) + (m + 1) * (row[m] if m < k - 1 else 0)
            for m in range(k)
        ]
    return tuple(row)


def _log_polylog_negative(j: int, eps: float) -> float:
    """``log Li_{−j}(b) = log Σ_k k^j b^k`` for ``b = e^(−ε)``."""
    log_omb = math.log(-math.expm1(-eps))
    if j == 0:
        return -log_omb
    b = math.exp(-eps)
    poly = 0.0
    for coefficient in reversed(_eulerian_row(j)):  # Horner: A_j(b), positive terms
        poly = poly * b + float(coefficient)
    return -eps + math.log(poly) - (j + 1) * log_omb


def _log_series_closed(s: int, eps: float, gamma: FloatArray) -> FloatArray:
    """``log T_s(γ)`` for integer ``s ≥ 0``: ``Σ_j C(s, j) γ^(s−j) Li_{−j}(b)``."""
    terms = [
        math.log(math.comb(s, j)) + special.xlogy(s - j, gamma) + _log_polylog_negative(j, eps)
        for j in range(s + 1)
    ]
    return special.logsumexp(np.stack(terms), axis=0)


def _log_series_em(s: float, eps: float, gamma: FloatArray) -> FloatArray:
    """``log T_s(γ)`` for real ``s > 0``: 4096 terms, then an Euler–Maclaurin tail.

    The tail ``Σ_{k≥K} h(k)``, ``h(t) = e^(−εt)(t + γ)^s``, is
    ``∫_K^∞ h + h(K)/2 − Σ_j B_2j/(2j)! h^(2j−1)(K)`` with
    ``∫_K^∞ h = e^(εγ) ε^(−s−1) Γ(s + 1, ε(K + γ))`` and, by Leibniz,
    ``h^(m)/h = Σ_i C(m, i)(−ε)^(m−i) s(s−1)…(s−i+1) (t + γ)^(−i)``. Its remainder is below
    ``2((ε + s/K)/(2π))^16`` of the tail: under 1e-16 for ``ε < 0.5`` and ``s ≤ 170``, and far
    smaller where the tail matters (small ε). From ``ε = 0.5`` on the tail is dropped.
    """
    k = np.arange(_DIRECT_TERMS, dtype=np.float64)[:, None]
    base = k + gamma[None, :]
    with np.errstate(divide="ignore"):  # (0 + 0)^s = 0 at γ = 0: a −inf log term
        log_terms = -eps * k + s * np.log(base)
    head = special.logsumexp(log_terms, axis=0)
    if eps >= _EM_EPS_MAX:
        return head
    t0 = _DIRECT_TERMS + gamma
    log_h = -eps * _DIRECT_TERMS + s * np.log(t0)
    with np.errstate(divide="ignore"):
        log_int = (
            eps * gamma
            - (s + 1.0) * math.log(eps)
            + special.gammaln(s + 1.0)
            + np.log(special.gammaincc(s + 1.0, eps * t0))
        )
    ratio = np.exp(log_int - log_h) + 0.5
    bernoulli = special.bernoulli(2 * _EM_BERNOULLI)
    for j in range(1, _EM_BERNOULLI + 1):
        m = 2 * j - 1
        falling, derivative = 1.0, np.zeros_like(t0)
        for i in range(m + 1):
            derivative = derivative + math.comb(m, i) * (-eps) ** (m - i) * falling * t0**-i
            falling *= s - i
        ratio = ratio - bernoulli[2 * j] / math.factorial(2 * j) * derivative
    return np.logaddexp(head, log_h + np.log(ratio))


def _log_series(s: float, eps: float, gamma: Any) -> FloatArray:
    """``log T_s(γ)``, vectorised over ``γ``: closed form for integer ``s``, else EM."""
    g = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    if float(s).is_integer() and s >= 0:
        out = _log_series_closed(int(s), eps, g)
    else:
        out = _log_series_em(float(s), eps, g)
    return out.reshape(np.shape(gamma))


def _log_radial_moment(p: float, d: int, eps: float, gamma: Any) -> FloatArray:
    """``log E (R/Δ)^p = log(d/(d + p)) + log T_{d+p}(γ) − log T_d(γ)``."""
    return math.log(d / (d + p)) + _log_series(d + p, eps, gamma) - _log_series(d, eps, gamma)


def _angular_mean(norm: str, order: float, power: float) -> float:
    """``E_μ ‖θ‖_q^p`` over the cone measure of the 2-D unit sphere of ``norm``.

    Parametrised by symmetry: ℓ2 ``θ = (cos t, sin t)``, ``t ∈ [0, π/4]``; ℓ1 ``θ = (t, 1 − t)``,
    ``t ∈ [1/2, 1]``; ℓ∞ ``θ = (1, t)``, ``t ∈ [0, 1]``; each uniform. Closed forms where the
    integrand is a power of ``t``; otherwise Gauss–Legendre of an analytic integrand.
    """
    p = power
    if NORMS[norm] == order:
        return 1.0
    if norm == "l1" and order == math.inf:  # max(t, 1 − t)^p
        return 2.0 * (1.0 - 2.0 ** (-p - 1.0)) / (p + 1.0)
    if norm == "linf" and order == 1.0:  # (1 + t)^p
        return (2.0 ** (p + 1.0) - 1.0) / (p + 1.0)
    integrands = {
        ("l2", 1.0): (lambda t: (np.cos(t) + np.sin(t)) ** p, 0.0, math.pi / 4),
        ("l2", math.inf): (lambda t: np.cos(t) ** p, 0.0, math.pi / 4),
        ("l1", 2.0): (lambda t: (t * t + (1.0 - t) ** 2) ** (0.5 * p), 0.5, 1.0),
        ("linf", 2.0): (lambda t: (1.0 + t * t) ** (0.5 * p), 0.0, 1.0),
    }
    fn, lo, hi = integrands[(norm, order)]
    coarse, fine = (
        0.5 * float(np.sum(w * fn(0.5 * (lo + hi) + 0.5 * (hi - lo) * x))) for x, w in _GL_ANGLE
    )
    if abs(fine - coarse) > 1e-13 * abs(fine):  # not expected for these analytic integrands
        raise ArithmeticError(f"angular quadrature did not converge ({coarse!r} vs {fine!r}).")
    return fine


def _optimal_gamma(p: float, d: int, eps: float) -> float:
    """γ minimising ``log T_{d+p}(γ) − log T_d(γ)``, as the 1-D staircase does it.

    A 65-point scan brackets the minimum, refined by a bounded Brent minimisation (``xatol``
    1e-12). The slope ``(d + p)T_{d+p−1}/T_{d+p} − d T_{d−1}/T_d`` (from ``dT_s/dγ = sT_{s−1}``)
    is scanned on the same grid and each − to + sign change gives a root (``brentq``, ``xtol``
    1e-15). A root wins among candidates whose log-cost ties with the best to 1e-13: the cost
    is flat to second order at the optimum, and at small ε its whole variation in γ is
    ``O(ε²)`` relative, below the rounding of the scan, where only the slope locates γ*.
    (``T_s(1) = T_s(0)/b``, so the cost is the same at γ = 0 and γ = 1.)
    """
    s = d + p

    def objective(g: Any) -> Any:
        return _log_series(s, eps, g) - _log_series(d, eps, g)

    def slope(g: Any) -> Any:
        up = s * np.exp(_log_series(s - 1.0, eps, g) - _log_series(s, eps, g))
        return up - d * np.exp(_log_series(d - 1, eps, g) - _log_series(d, eps, g))

    values = objective(_GAMMA_GRID)
    i = int(np.argmin(values))
    lo = float(_GAMMA_GRID[max(i - 1, 0)])
    hi = float(_GAMMA_GRID[min(i + 1, _GAMMA_GRID.size - 1)])
    res = optimize.minimize_scalar(
        lambda g: float(objective(g)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}
    )
    candidates = [0.0, 1.0, float(_GAMMA_GRID[i]), float(res.x)]
    with np.errstate(over="ignore", invalid="ignore"):
        slopes = slope(_GAMMA_GRID)
    roots = []
    for j in np.nonzero((slopes[:-1] < 0.0) & (slopes[1:] > 0.0))[0]:
        a, b = float(_GAMMA_GRID[j]), float(_GAMMA_GRID[j + 1])
        if not float(slope(a)) < 0.0 < float(slope(b)):  # a sign lost in rounding
            candidates.append(a if abs(slopes[j]) < abs(slopes[j + 1]) else b)
            continue
        found, info = optimize.brentq(
            lambda g: float(slope(g)), a, b, xtol=1e-15, maxiter=200, full_output=True, disp=False
        )
        candidates.append(float(found))
        if info.converged:
            roots.append(float(found))
    costs = {g: float(objective(g)) for g in candidates}
    best = min(costs.values())
    tied_roots = [g for g in roots if costs[g] <= best + 1e-13]
    return (
        min(tied_roots, key=costs.__getitem__) if tied_roots else min(costs, key=costs.__getitem__)
    )


# -- sampling (private) ---------------------------------------------------------------------------
def _unit_directions(norm: str, d: int, n: int, rng: np.random.Generator) -> FloatArray:
    """``n`` points of the unit sphere of ``norm`` in ℝ^d, from its cone measure."""
    if norm == "l2":
        g = rng.standard_normal((n, d))
        return g / np.sqrt(np.sum(g * g, axis=1, keepdims=True))
    if norm == "l1":
        lap = rng.laplace(size=(n, d))
        return lap / np.sum(np.abs(lap), axis=1, keepdims=True)
    cube = rng.uniform(-1.0, 1.0, size=(n, d))  # then one coordinate pushed to a face
    face = rng.integers(0, d, size=n)
    rows = np.arange(n)
    cube[rows, face] = np.copysign(1.0, cube[rows, face])
    return cube


@functools.lru_cache(maxsize=64)
def _ordered_stirling(d: int) -> tuple[tuple[int, ...], ...]:
    """``S(j, i) i!`` for ``0 ≤ i ≤ j ≤ d``, so that ``m^j = Σ_i S(j, i) i! C(m, i)``.

    Stirling numbers of the second kind: ``S(j, i) = i S(j − 1, i) + S(j − 1, i − 1)``.
    """
    table = [[1]]
    for j in range(1, d + 1):
        prev = table[-1]
        table.append([0] + [i * (prev[i] if i < j else 0) + prev[i - 1] for i in range(1, j + 1)])
    return tuple(tuple(row[i] * math.factorial(i) for i in range(len(row))) for row in table)


def _ball_index_log_weights(d: int, eps: float, gamma: float) -> FloatArray:
    """``log`` of ``c_i b^i/(1 − b)^(i+1)``, ``i = 0 … d`` (module docstring; sum ``T_d(γ)``)."""
    stirling = _ordered_stirling(d)
    coefficients = [
        sum(math.comb(d, j) * gamma ** (d - j) * stirling[j][i] for j in range(i, d + 1))
        for i in range(d + 1)
    ]
    log_omb = math.log(-math.expm1(-eps))
    with np.errstate(divide="ignore"):
        log_c = np.log(np.asarray(coefficients, dtype=np.float64))
    i = np.arange(d + 1, dtype=np.float64)
    return log_c - eps * i - (i + 1.0) * log_omb


# -- the family -----------------------------------------------------------------------------------
class StaircaseND(VectorNoise):
    """The d-dimensional staircase noise for shifts in a norm ball (module docstring).

    Geng, Kairouz, Oh & Viswanath (2015) and Kulesza, Suresh & Wang (2025): density $a b^k$
    on $kΔ ≤ ‖x‖ < (k + γ)Δ$ and $a b^{k+1}$ on $(k + γ)Δ ≤ ‖x‖ < (k + 1)Δ$,
    $a = 1/(c_d Δ^d (1 − b) T_d(γ))$.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in [1e-6, 700].
    gamma : float
        Fraction of each period on the higher step, in [0, 1].
    sensitivity : float, default 1
        Δ, in (0, inf): the radius of the ball of shifts, measured in ``norm``. The density's
        peak and smallest step must be normal doubles below 1e300.
    norm : {'l1', 'l2', 'linf'}, default 'l1'
        The norm of the shells and of the sensitivity ball.
    dimension : int, default 2
        ``d``, in [1, 64].

    Examples
    --------
    >>> s = StaircaseND(epsilon=1.0, gamma=0.5, norm="l2", dimension=2)
    >>> s
    StaircaseND(epsilon=1.0, gamma=0.5, sensitivity=1.0, norm='l2', dimension=2)
    >>> r = s.pdf([[0.2, 0.0], [0.0, 0.7]])  # one step down across ‖x‖ = γΔ
    >>> round(float(r[0] / r[1]), 12)
    2.718281828459
    """

    @keyword_epsilon("StaircaseND")
    def __init__(
        self,
        *,
        epsilon: float,
        gamma: float,
        sensitivity: float = 1.0,
        norm: str = "l1",
        dimension: int = 2,
    ) -> None:
        self.epsilon = _check_epsilon(epsilon)
        self.gamma = check_real("gamma", gamma, low=0.0, high=1.0)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        self.norm = _check_norm(norm)
        self.dimension = _check_dimension(dimension)
        d, delta = self.dimension, self.sensitivity
        self._log_a = float(
            -log_unit_ball_volume(self.norm, d)
            - d * math.log(delta)
            - math.log(-math.expm1(-self.epsilon))
            - _log_series(d, self.epsilon, self.gamma)
        )
        log_peak = self._log_a - (self.epsilon if self.gamma == 0.0 else 0.0)
        log_first = self._log_a - self.epsilon  # the density on the first lower step
        if not (log_peak <= math.log(_BIG) and log_first >= math.log(_SMALL)):
            raise ValueError(
                "`sensitivity`, `epsilon` and `dimension` give a staircase density outside the "
                f"normal double range (log peak {log_peak:.4g}, log first step {log_first:.4g});"
                f" got sensitivity={delta!r}, epsilon={self.epsilon!r}, dimension={d}. "
                "Rescale the query."
            )

    @classmethod
    @keyword_epsilon("StaircaseND.optimal")
    def optimal(
        cls,
        *,
        epsilon: float,
        sensitivity: float = 1.0,
        cost: Norm,
        norm: str = "l1",
        dimension: int = 2,
    ) -> StaircaseND:
        """The staircase with the γ minimising ``E cost(X)``.

        $E ‖X‖_q^p = Δ^p (d/(d + p)) E_μ‖θ‖_q^p T_{d+p}(γ)/T_d(γ)$ (module docstring): γ*
        depends on the power ``p`` only, and is found by a 1-D minimisation of the exact
        $log T_{d+p} − log T_d$ (bounded Brent, ``xatol`` 1e-12, polished by the root of its
        derivative), as `optmech.Staircase.optimal` does for costs without a closed form.

        As ε → 0 the cost depends on γ only at relative order $ε^{d+1}$: the expansion of the
        Lerch transcendent in powers of ε, ``T_s(γ) = Γ(s + 1)e^(εγ)ε^(−s−1)
        + Σ_n ζ(−s − n, γ)(−ε)^n/n!`` with $ζ(−m, γ) = −B_{m+1}(γ)/(m + 1)$, gives
        $log T_{d+p} − log T_d = const + B_{d+1}(γ) ε^{d+1}/(d + 1)! + …$ (Bernoulli
        polynomials), so γ* tends to the minimiser of ``B_{d+1}`` on [0, 1]: 1/2 for d = 1,
        $(1 + 1/√3)/2$ for d = 2, 1 (equivalently 0) for d = 3. Where $ε^{d+1}$ falls below
        double rounding (e.g. ε ≲ 1e-3 for d = 5) every γ gives the optimal cost to machine
        precision and the γ returned is one of them, not a well-determined γ*.

        Parameters
        ----------
        epsilon : float
            In [1e-6, 700].
        sensitivity : float, default 1
            Δ, in (0, inf).
        cost : Norm
            $‖x‖_q^p$, any order, $d + p ≤ 170$.
        norm : {'l1', 'l2', 'linf'}, default 'l1'
        dimension : int, default 2
            In [1, 64].

        Examples
        --------
        >>> from optmech.costs.norm import Norm
        >>> s = StaircaseND.optimal(epsilon=1.0, cost=Norm(2), norm="l2", dimension=1)
        >>> round(s.gamma, 12)
        0.377540668798
        """
        eps = _check_epsilon(epsilon)
        d = _check_dimension(dimension)
        c = _check_cost(cost, d)
        cls(epsilon=eps, gamma=0.5, sensitivity=sensitivity, norm=norm, dimension=d)  # validate
        gamma = _optimal_gamma(c.power, d, eps)
        return cls(epsilon=eps, gamma=gamma, sensitivity=sensitivity, norm=norm, dimension=d)

    def __repr__(self) -> str:
        return (
            f"StaircaseND(epsilon={self.epsilon!r}, gamma={self.gamma!r}, "
            f"sensitivity={self.sensitivity!r}, norm={self.norm!r}, dimension={self.dimension})"
        )

    # -- privacy ---------------------------------------------------------------------------------
    @property
    def certified_epsilon(self) -> float:
        """ε: $f(x) ≤ e^ε f(x + s)$ for every ``x`` and every $‖s‖ ≤ Δ$ (in `norm`).

        Proof. With $t = ‖x‖/Δ$, $f(x) = a b^{n(t)}$ where
        ``n(t) = #{m ≥ 0 : m + γ ≤ t}`` counts the step radii $(m + γ)Δ$ inside the ball of
        radius $‖x‖$ (for ``t`` in $[k, k + γ)$ it is ``k``, in $[k + γ, k + 1)$ it is
        ``k + 1``). The step radii are spaced Δ apart, so a half-open interval of radii of
        length at most Δ contains at most one: ``|n(t) − n(t')| ≤ 1`` when ``|t − t'| ≤ 1``. The
        triangle inequality of the norm gives $|‖x + s‖ − ‖x‖| ≤ ‖s‖ ≤ Δ$, hence
        ``f(x)/f(x + s) = b^(n(t) − n(t')) ≤ b^(−1) = e^ε``. The density is positive everywhere,
        so no ratio is infinite. This holds for every γ in [0, 1] and every norm, because the
        shells are shells of the same norm that measures the shift.
        """
        return self.epsilon

    @property
    def privacy(self) -> PureDP:
        """``PureDP(epsilon)`` for shifts in the ball of radius Δ of `norm`."""
        return PureDP(self.certified_epsilon)

    # -- self-description (certification reads it) -------------------------------------------
    def privacy_source(self) -> PrivacySource:
        """Known by its theorem: the ratio bound of `certified_epsilon` is
        a proof from the formula, with no float in it (kind ``theorem``)."""
        parameters = {
            "epsilon": self.epsilon,
            "gamma": self.gamma,
            "norm": self.norm,
            "dimension": self.dimension,
        }
        return PrivacySource(
            kind=SourceKind.THEOREM,
            family=type(self).__name__,
            guarantee=self.privacy,
            sensitivity=self.sensitivity,
            dimension=self.dimension,
            parameters=parameters,
            sample_float=self.rvs,
            proof=(
                "the density is a·b^n(‖x‖/Δ) with step radii Δ apart, so |n(t) − n(t')| ≤ 1 "
                "for every shift in the ball: ratio ≤ e^ε (Geng, Kairouz, Oh & Viswanath 2015; "
                "StaircaseND.certified_epsilon)"
            ),
        )

    # -- density -----------------------------------------------------------------------------
    def _norm_of(self, x: FloatArray) -> FloatArray:
        if self.norm == "l1":
            return np.sum(np.abs(x), axis=-1)
        if self.norm == "l2":
            return np.sqrt(np.sum(x * x, axis=-1))
        return np.max(np.abs(x), axis=-1)

    def logpdf(self, points: npt.ArrayLike) -> FloatArray | float:
        """``log f`` at points of shape (..., d) (a float for one point of shape (d,))."""
        x = check_vectors("points", points, self.dimension)
        with np.errstate(over="ignore", invalid="ignore"):
            t = self._norm_of(x) / self.sensitivity
            finite = np.isfinite(t)
            tf = np.where(finite, t, 0.0)
            k = np.floor(tf)
            lower_step = (tf - k) >= self.gamma
            out = np.where(finite, self._log_a - self.epsilon * (k + lower_step), -np.inf)
        return float(out) if out.ndim == 0 else out

    def pdf(self, points: npt.ArrayLike) -> FloatArray | float:
        """The density at points of shape (..., d) (a float for one point of shape (d,))."""
        out = np.exp(self.logpdf(points))
        return float(out) if np.ndim(out) == 0 else out

    # -- sampling ----------------------------------------------------------------------------
    def rvs(self, size: Any = None, *, rng: Any = None) -> FloatArray:
        """Exact samples: an array of shape ``(*size, d)`` (``(d,)`` for ``size=None``).

        A ball index ``K`` with $P(K = m) ∝ b^m (m + γ)^d$ (a finite mixture of shifted
        negative binomials), then a uniform point of the ball of radius $(K + γ)Δ$: radius
        $(K + γ)Δ U^{1/d}$, direction from the cone measure (module docstring). Randomness
        only through ``rng``, normalised by `numpy.random.default_rng`.

        Parameters
        ----------
        size : int or tuple of ints, optional
            Number (shape) of samples.
        rng : None, int, SeedSequence, BitGenerator or Generator
        """
        shape = check_size(size)
        n = 1 if shape is None else math.prod(shape)
        if n * self.dimension > MAX_VALUES:
            raise ValueError(
                f"`size` times the dimension must be at most {MAX_VALUES:.0e} values; got "
                f"size={size!r} with dimension {self.dimension}. Draw in batches."
            )
        gen = check_rng(rng)
        d, eps = self.dimension, self.epsilon
        log_w = _ball_index_log_weights(d, eps, self.gamma)
        weights = np.exp(log_w - special.logsumexp(log_w))
        index = gen.choice(d + 1, size=n, p=weights / weights.sum())
        balls = index + gen.negative_binomial(index + 1, -math.expm1(-eps))
        radius = (balls + self.gamma) * self.sensitivity * gen.random(n) ** (1.0 / d)
        x = radius[:, None] * _unit_directions(self.norm, d, n, gen)
        return x.reshape((d,) if shape is None else (*shape, d))

    # -- costs -------------------------------------------------------------------------------
    def expected_cost(self, cost: Norm | VectorCustom | str) -> float:
        """$E ‖X‖_q^p$ for ``cost = Norm(q, power=p)`` (module docstring), or a name
        (``"l1"``, ``"l2"``, ``"linf"``: power 1).

        Exact (a closed-form or Euler–Maclaurin series, relative error below 1e-15 for
        ``s = d + p``) for the family's own norm in any dimension and for every norm in
        $d ≤ 2$ (times an angular mean: closed form or Gauss–Legendre to 1e-13).

        Raises
        ------
        TypeError
            ``cost`` is not a `Norm`.
        NotImplementedError
            Another norm than the family's in $d ≥ 3$.
        """
        return self._expected_cost(as_vector_cost(cost))

    def _expected_cost(self, cost: Norm | VectorCustom) -> float:
        c = _check_cost(cost, self.dimension)
        d, p = self.dimension, c.power
        if d == 1 or c.order == NORMS[self.norm]:
            angular = 1.0
        elif d == 2:
            angular = _angular_mean(self.norm, c.order, p)
        else:
            raise NotImplementedError(
                f"StaircaseND.expected_cost supports Norm(order={NORMS[self.norm]:g}) (the "
                f"family's norm) in any dimension and every order in dimension ≤ 2; got "
                f"{c!r} in dimension {d}."
            )
        log_moment = float(_log_radial_moment(p, d, self.epsilon, self.gamma))
        value = math.exp(p * math.log(self.sensitivity) + log_moment) * angular
        if not math.isfinite(value):
            raise ValueError(f"the expected cost of {self!r} under {c!r} is not finite.")
        return value
