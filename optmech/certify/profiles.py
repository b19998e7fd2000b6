"""Certified privacy beyond (ε, δ) of additive noise on ℤ: profiles, Rényi, zCDP and GDP.

The noise is given by its numbers: a
`GridDescription` or a pmf mapping (masses on
consecutive integers; each side a geometric tail repeating a base period of ``P`` points, times
``ratio`` per period), any noise whose self-description (``privacysource()``) has a grid
(``LatticeNoise``, a design, ``Geometric``, ``DiscreteStaircase``; a density on equal cells is read
at whole-cell shifts, where its divergences are linear in between), a closed form with an exact
profile (`optmech.certify.continuous`), or (Rényi and zCDP only)
`discrete_gaussian`. Masses are normalised by their total, tails included. All
is a supremum over the shifts ``P_s(k) = P(k + s)``, ``0 < |s| ≤ Δ``, both directions (Δ an
integer).

* **Profile** ``δ(ε) = max_s Σ_k (P(k) − e^ε P_s(k))₊``: per shift convex, piecewise linear in
  ``t = e^ε`` with breakpoints at the losses ``ℓ_k = log P(k)/P_s(k)``; with losses sorted down,
  ``δ_s = A_j − e^ε B_j`` on ``[ℓ_(j+1), ℓ_(j)]`` (``A_j``, ``B_j``: P- and P_s-mass of the ``j``
  largest). Deep in a tail a pair is a ``ratio``-scaled copy of the pair a period in: losses
  repeat, and the repeating pairs carry their geometric series ``1/(1 − ratio)``. Exact tails.
* **Rényi** ``D_α(P ‖ P_s) = log(Σ_k P^α P_s^(1−α))/(α − 1)``, α > 1 (Mironov, 2017), by
  ``logsumexp``, tails as series.
* **zCDP** (Bun & Steinke, 2016): the least ρ with ``D_α ≤ ρα`` for every α > 1, on the
  continuum: ``D_α`` is non-decreasing and ``K(α) = (α − 1)D_α`` convex (van Erven & Harremoës,
  2014, Theorems 3 and 11), so on ``[a, b]`` ``D_α/α ≤ min(D_b/a, max chord_K(α)/(α(α − 1)))``,
  on ``(1, a_0]`` ``D_α/α ≤ D_(a_0)``, beyond ``a_n`` ``D_α/α ≤ D_∞/a_n`` (``D_∞`` the largest
  loss; ρ = inf when a mass faces a zero within reach). The grid is refined to ``rtol``.
* **GDP** (Dong, Roth & Su, 2022, Corollary 2.13): μ-GDP iff ``δ(ε) ≤ δ_μ(ε)`` for all ε ≥ 0.
  On a piece ``δ_s`` is linear in ``t``, ``δ_μ`` convex with slope ``−Φ(−ε/μ − μ/2)``: the gap is
  least where that slope is ``−B_j``; it is bounded there by a tangent line (the gap being
  monotone on either side, which is checked), and μ is bisected on this check.

Pessimism (``u = 2^-53``; numpy's ``log``/``exp``/``log1p`` within two ulps): a log-mass carries
``4u(1 + |log|)``, a tail mass ``4u(1 + |m log ratio|)`` more; a loss is rounded up by its two
errors ``η``, and a pair counted above ε while its exact loss is not adds at most
``P(k)(e^(2η) − 1)``: ``A`` takes ``e^(2η)``, ``B`` is rounded down; a running ``logaddexp`` of
``n`` terms is within ``2nu(M + 2)`` (``M`` its largest size), ``logsumexp`` within ``(n + 4)u``
plus ``2u`` of its size; ``log_ndtr``/``ndtri_exp`` are taken within ``16u(1 + |value|)``
(checked against mpmath in the tests); the total mass is ``math.fsum``-ed. No returned number
is below the exact one for the given floats.

References
----------
Mironov, I. (2017). Rényi differential privacy. IEEE CSF.
Bun, M. & Steinke, T. (2016). Concentrated differential privacy: simplifications, .... TCC.
Dong, J., Roth, A. & Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1), 3–37.
Canonne, C. L., Kamath, G. & Steinke, T. (2020). The discrete Gaussian for DP. NeurIPS.
van Erven, T. & Harremoës, P. (2014). Rényi and Kullback–Leibler divergence. IEEE Trans. IT.

Examples
--------
The two-sided geometric ``P(k) ∝ e^(−|k|)`` has losses ±1 only, so ``δ(0) = tanh(1/2)``:

>>> import numpy as np
>>> b, p0 = np.exp(-1.0), np.tanh(0.5)  # P(0) = (1 − b)/(1 + b)
>>> geo = {"masses": [p0], "left_tail": ([p0 * b], b), "right_tail": ([p0 * b], b)}
>>> bool(abs(privacy_profile(geo, 0.0, sensitivity=1) - np.tanh(0.5)) < 1e-13)
True
>>> bool(certified_rho(geo, sensitivity=1) <= 0.5)  # ε-DP ⇒ ε²/2-zCDP (Bun & Steinke)
True
>>> check_guarantee(geo, ZCDP(0.5), sensitivity=1)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

import optmech.certify._lattice as lat
from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech._validation import check_flag, check_int, check_real, check_real_array, describe
from optmech.certify._gdp import curve_holds
from optmech.certify._moments import kl_bound, kl_moments
from optmech.certify.continuous import ContinuousSource
from optmech.certify.discrete_gaussian import (
    DiscreteGaussian,
    discrete_gaussian,
    renyi_discrete_gaussian,
)
from optmech.certify.report import SEARCH_RTOL, PrivacyReport, default_rtol, verdict
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PrivacyProfile, PureDP, RenyiDP

__all__ = [
    "Certificate",
    "GuaranteeReport",
    "certified_mu",
    "certified_rho",
    "certify_guarantee",
    "certify_mu",
    "certify_rho",
    "check_guarantee",
    "discrete_gaussian",
    "privacy_profile",
    "profile_breakpoints",
    "pure_epsilon",
    "renyi_divergence",
]


#: Assumed accuracy of scipy's ``log_ndtr`` / ``ndtri_exp``, relative to ``1 + |value|``.
_TAU = 16.0 * _U


@dataclass(frozen=True)
class Certificate(PrivacyReport):
    """A certified number found by a search: ``value`` (pessimistic), ``lower`` (the best a
    finite search reached from the other side: the exact value is about there or above), a
    one-line ``reason``, and the ``guarantee`` it establishes (``ZCDP(value)`` from
    `certify_rho`, ``GaussianDP(value)`` from `certify_mu`; None
    when infinite).

    Examples
    --------
    >>> from optmech import Gaussian
    >>> from optmech.certify import certify_mu
    >>> cert = certify_mu(Gaussian(epsilon=0.5, delta=1e-5))
    >>> bool(cert.lower <= cert.value), type(cert.guarantee).__name__
    (True, 'GaussianDP')
    """

    value: float
    lower: float
    reason: str
    guarantee: Any = None
    exact: bool = False


@dataclass(frozen=True)
class GuaranteeReport(PrivacyReport):
    """`certify_guarantee`: whether the claim ``guarantee`` holds, what was
    certified (``achieved``, also ``value``: ε, δ, ρ, μ, or a tuple of δ(ε_j) or D_α), and why.

    Examples
    --------
    >>> from optmech import Gaussian, ZCDP
    >>> from optmech.certify import certify_guarantee
    >>> report = certify_guarantee(Gaussian(epsilon=0.5, delta=1e-5), ZCDP(0.01))
    >>> report.holds, bool(report.achieved <= 0.01)  # the certified ρ
    (True, True)
    """

    holds: bool
    guarantee: Any
    achieved: Any
    reason: str
    exact: bool = False

    @property
    def value(self) -> Any:
        """The certified number(s), `achieved`."""
        return self.achieved


# -- privacy profile ---------------------------------------------------------------------------
def _curve_delta(c: lat.Curve, eps: FloatArray) -> FloatArray:
    """Upper bound of the normalised ``δ_s(ε)`` at each ε."""
    j = np.searchsorted(-c.loss, -eps, side="left")  # how many losses exceed ε
    out = np.full(eps.shape, c.inf_mass)
    has = j > 0
    la, lb, e = c.log_a[j[has] - 1], c.log_b[j[has] - 1], eps[has]
    y = e + lb - la - 2.0 * _U * (1.0 + np.abs(e) + np.abs(lb) + np.abs(la))
    with np.errstate(over="ignore"):
        out[has] += np.exp(la) * -np.expm1(np.minimum(y, 0.0)) * (1.0 + 4.0 * _U)
    return out * (1.0 + 2.0 * _U)


def privacy_profile(
    noise: Any, epsilons: npt.ArrayLike, *, sensitivity: float | None = None
) -> float | FloatArray:
    """Certified $δ(ε) = max_{0<|s|≤Δ} Σ_k (P(k) − e^ε P(k+s))₊$ at each ε, tails exact.

    Parameters
    ----------
    noise : mapping or noise object
        A pmf description (``masses``, ``left_tail``, ``right_tail``, optional ``atom``; see
        `optmech.certify.noise`), an object with ``grid_description()``,
        ``Geometric`` or
        ``DiscreteStaircase``. (Rényi and zCDP also take `discrete_gaussian`.)
    epsilons : array_like
        The ε values, finite reals (negative ε give the rest of the hockey-stick curve).
    sensitivity : int or float, optional
        Δ: an integer in [1, inf) on ℤ; for a density on equal cells or a closed form a real in
        (0, inf) (a density is then read at the whole cells $ceil(Δ/h)$ reaches). Default the
        description's ``reach`` or the object's sensitivity.

    Returns
    -------
    float or numpy.ndarray
        Pessimistic δ at each ε (the piecewise-linear form in $e^ε$ is exact between the
        breakpoints), at most 1.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech import Geometric
    >>> from optmech.certify import privacy_profile
    >>> delta = privacy_profile(Geometric(epsilon=1.0), [0.0, 0.5, 1.0])
    >>> bool(delta[0] > delta[1] > 0), bool(delta[2] < 1e-12)  # δ(ε) falls to 0 at the pure ε
    (True, True)
    """
    src, reach = lat.source(noise, sensitivity, "privacy_profile")
    eps = np.asarray(check_real_array("epsilons", np.atleast_1d(epsilons)), dtype=float)
    if isinstance(src, ContinuousSource):
        top = src.profile(eps.ravel())
    else:
        top = np.max([_curve_delta(c, eps.ravel()) for c in lat.curves(src, reach)], axis=0)
    out = np.minimum(np.where(top > 0, np.nextafter(top, np.inf), 0.0), 1.0).reshape(eps.shape)
    return float(out[0]) if np.ndim(epsilons) == 0 else out


def profile_breakpoints(noise: Any, *, sensitivity: float | None = None) -> FloatArray:
    """The finite privacy losses ``log P(k)/P(k+s)`` (rounded up) of all shifts, sorted, unique.

    ``δ(ε)`` of each shift is linear in ``e^ε`` between consecutive ones.
    """
    src, reach = lat.source(noise, sensitivity, "profile_breakpoints")
    if isinstance(src, ContinuousSource):
        return np.unique(src.losses)
    return np.unique(np.concatenate([c.loss for c in lat.curves(src, reach)]))


def pure_epsilon(noise: Any, *, sensitivity: float | None = None) -> float:
    """Certified pure ε, ``D_∞ = max_s max_k log P(k)/P(k+s)`` (``inf`` if a mass faces zero)."""
    src, reach = lat.source(noise, sensitivity)
    if isinstance(src, DiscreteGaussian | ContinuousSource):
        return math.inf if isinstance(src, DiscreteGaussian) else src.d_inf
    return lat.d_inf(lat.curves(src, reach))


# -- Rényi divergence --------------------------------------------------------------------------
def _up(x: FloatArray, rel: float) -> FloatArray:
    return np.nextafter(x + rel * np.abs(x), np.inf)


def _renyi_atoms(g: lat.Lattice, at: tuple[FloatArray, ...], alphas: FloatArray) -> FloatArray:
    lp, ep, lq, eq, lw, ew, log_inf = at
    if log_inf > -np.inf:
        return np.full(alphas.shape, np.inf)
    out = np.empty(alphas.shape)
    base_err = ew + 4.0 * _U * (1.0 + np.abs(lw))
    step = max(1, 2_000_000 // max(lp.size, 1))
    for i in range(0, alphas.size, step):
        a = alphas[i : i + step, None]
        x = lw + a * lp + (1.0 - a) * lq
        err = base_err + a * (ep + 4.0 * _U * np.abs(lp)) + (a - 1.0) * (eq + 4.0 * _U * np.abs(lq))
        lse = special.logsumexp(x, axis=1) - g.log_mass
        num = lse + np.max(err, axis=1) + (lp.size + 4.0) * _U + 2.0 * _U * np.abs(lse)
        out[i : i + step] = num + g.mass_err
    return _up(out / (alphas - 1.0), 4.0 * _U)


def _divergence(src: lat.Lattice | DiscreteGaussian, reach: int) -> Callable[[FloatArray], Any]:
    """``α ↦`` upper bounds of ``max_s D_α``, vectorised over α."""
    if isinstance(src, DiscreteGaussian):
        return lambda alphas: renyi_discrete_gaussian(src.sigma, reach, alphas)
    if isinstance(src, ContinuousSource):
        return src.divergence
    pairs = [(o, lat.atoms(o, abs(s))) for o, s in lat.shifts(src, reach)]
    return lambda alphas: np.max([_renyi_atoms(o, at, alphas) for o, at in pairs], axis=0)


def renyi_divergence(
    noise: Any, alpha: npt.ArrayLike, *, sensitivity: float | None = None
) -> float | FloatArray:
    """Certified $max_{0<|s|≤Δ} D_α(P ‖ P_s)$, $D_α = log(Σ P^α P_s^{1−α})/(α − 1)$.

    Parameters
    ----------
    noise, sensitivity
        As in `privacy_profile`.
    alpha : float or array_like
        Orders, each in (1, inf).

    Returns
    -------
    float or numpy.ndarray
        Pessimistic divergence at each order; ``inf`` when a positive mass faces a zero one
        within reach.

    Examples
    --------
    >>> from optmech import Geometric
    >>> from optmech.certify import renyi_divergence
    >>> d = renyi_divergence(Geometric(epsilon=1.0), [2.0, 10.0])
    >>> bool(0 < d[0] < d[1] <= 1.0)  # non-decreasing in α, at most the pure ε
    True
    """
    src, reach = lat.source(noise, sensitivity)
    orders = check_real_array("alpha", np.atleast_1d(alpha))
    if np.any(orders <= 1.0):
        bad = float(orders[orders <= 1.0][0])
        raise ValueError(f"`alpha` must be finite real numbers in (1, inf); got {bad!r}.")
    out = _divergence(src, reach)(orders.ravel()).reshape(orders.shape)
    return float(out[0]) if np.ndim(alpha) == 0 else out


# -- zCDP over the continuum of orders ---------------------------------------------------------
def _chord_max(a: FloatArray, b: FloatArray, ka: FloatArray, kb: FloatArray) -> FloatArray:
    """``max_{α∈[a,b]} chord(α)/(α(α−1))`` of the chord of ``K`` through ``(a, ka), (b, kb)``."""
    c1 = (kb - ka) / (b - a)
    c0 = ka - c1 * a
    best = np.maximum(ka / (a * (a - 1.0)), kb / (b * (b - 1.0)))
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(np.maximum(c0 * c0 + c0 * c1, 0.0))
        for sign in (1.0, -1.0):  # zeros of the derivative, −c1α² − 2c0α + c0
            x = np.clip((-c0 + sign * root) / c1, a, b)
            val = (c0 + c1 * x) / (x * (x - 1.0))
            best = np.maximum(best, np.where(np.isfinite(val), val, best))
    return best


def _rho_search(
    div: Callable[[FloatArray], Any],
    tail: Callable[[float], float],
    rtol: float,
    max_orders: int,
    near_one: Callable[[float], float] | None = None,
) -> Certificate:
    alphas = 1.0 + np.geomspace(1e-4, 63.0, 48)
    computed = np.asarray(div(alphas), dtype=float)
    while True:
        # D_α is non-decreasing: min over larger orders also bounds it (errors grow as α → 1).
        values = np.minimum.accumulate(computed[::-1])[::-1]
        ratio = values / alphas
        best = int(np.argmax(ratio))
        lower = float(ratio[best])
        target = lower * (1.0 + rtol)
        k = (alphas - 1.0) * values
        inner = np.minimum(
            values[1:] / alphas[:-1], _chord_max(alphas[:-1], alphas[1:], k[:-1], k[1:])
        )
        inner = inner * (1.0 + 1e-12)  # rounding in the rational bound (a few ops, ≤ 16u)
        last = tail(float(alphas[-1]))
        first = float(values[0])
        if near_one is not None:
            first = min(first, near_one(float(alphas[0])))
        bound = max(float(np.max(inner)), first, last)
        bad = np.flatnonzero(inner > target)
        new = list(1.0 + np.sqrt((alphas[bad] - 1.0) * (alphas[bad + 1] - 1.0)))
        if first > target:
            new.append(1.0 + (alphas[0] - 1.0) / 16.0)
        if last > target:
            new.append(1.0 + (alphas[-1] - 1.0) * 4.0)
        fresh = np.setdiff1d(np.asarray(new), alphas)  # empty: floats cannot separate further
        if bound <= target or alphas.size >= max_orders or fresh.size == 0:
            rho = float(np.nextafter(max(bound, 0.0), np.inf))
            why = f"best grid value at α = {alphas[best]:.9g}, {alphas.size} orders"
            return Certificate(rho, lower, why + ("" if bound <= target else ", not converged"))
        alphas = np.concatenate([alphas, fresh])
        computed = np.concatenate([computed, np.asarray(div(fresh), dtype=float)])
        order = np.argsort(alphas)
        alphas, computed = alphas[order], computed[order]


def certify_rho(
    noise: Any,
    *,
    sensitivity: float | None = None,
    rtol: float = SEARCH_RTOL,
    max_orders: int = 20_000,
) -> Certificate:
    """Certified zCDP ρ: an upper bound of $sup_{α>1} max_s D_α/α$ over the continuum of α,
    with the best grid value below it and how it was found.

    Parameters
    ----------
    noise, sensitivity
        As in `privacy_profile`.
    rtol : float, default 1e-6
        Target relative gap between the certified bound and the best grid value, in (0, 1)
        (``SEARCH_RTOL``, `optmech.certify.report`).
    max_orders : int, default 20000
        Largest grid; the bound stays valid if it is reached (the reason says so).

    Returns
    -------
    Certificate
        ``value`` the certified ρ, ``guarantee`` ``ZCDP(value)`` (None when infinite).

    Notes
    -----
    Near α = 1 the bound also uses the loss's mean (the Kullback–Leibler divergence) and second
    moment (`optmech.certify._moments.kl_bound`). Beyond the last order the bound is
    $D_∞/α$. The discrete Gaussian has $D_∞ = inf$; there
    $D_α ≤ αΔ²/(2σ²)$ (Canonne, Kamath & Steinke, 2020: $θ(c) ≤ θ(0)$) serves, and its
    certificate is $Δ²/(2σ²)$ within ``rtol`` (attained at every integer order).

    Examples
    --------
    >>> from optmech import Gaussian
    >>> from optmech.certify import certify_rho
    >>> noise = Gaussian(epsilon=0.5, delta=1e-5)
    >>> cert = certify_rho(noise)
    >>> cert.reason, bool(abs(cert.value * 2 * noise.sigma**2 - 1) < 1e-12)  # Δ² / (2σ²)
    ('closed form', True)
    """
    src, reach = lat.source(noise, sensitivity)
    tol = check_real("rtol", rtol, low=0.0, high=1.0, low_open=True, high_open=True)
    cap = check_int("max_orders", max_orders, low=64)
    if isinstance(src, DiscreteGaussian):
        d_inf, rho_dg = 0.0, float(_up(np.asarray(reach**2 / (2.0 * src.sigma**2)), 4.0 * _U))
        tail: Callable[[float], float] = lambda a_hi: rho_dg  # noqa: E731
    elif isinstance(src, ContinuousSource):
        d_inf, moments = (0.0, []) if src.rho is not None else (src.d_inf, [])
        tail = lambda a_hi: src.rho or d_inf / a_hi  # noqa: E731
    else:
        d_inf = lat.d_inf(lat.curves(src, reach))
        tail = lambda a_hi: d_inf / a_hi  # noqa: E731
        moments = [kl_moments(o, lat.atoms(o, abs(s))) for o, s in lat.shifts(src, reach)]
    if isinstance(src, ContinuousSource) and src.rho is not None:
        cert = Certificate(src.rho, src.rho, "closed form")
    elif math.isinf(d_inf):
        cert = Certificate(math.inf, math.inf, "a positive mass faces zero within reach")
    else:
        near = kl_bound(moments) if isinstance(src, lat.Lattice) else None
        cert = _rho_search(_divergence(src, reach), tail, tol, cap, near)
    return replace(cert, guarantee=ZCDP(cert.value) if 0 < cert.value < math.inf else None)


def certified_rho(
    noise: Any,
    *,
    sensitivity: float | None = None,
    rtol: float = SEARCH_RTOL,
    max_orders: int = 20_000,
    debug: bool = False,
) -> float:
    """Certified zCDP ρ (`certify_rho`, which also says how it was found).

    Parameters
    ----------
    noise, sensitivity, rtol, max_orders
        As in `certify_rho`.
    debug : bool
        Deprecated: return the `Certificate`; use `certify_rho`.

    Returns
    -------
    float

    Examples
    --------
    >>> from optmech import Gaussian
    >>> from optmech.certify import certified_rho
    >>> noise = Gaussian(epsilon=0.5, delta=1e-5)
    >>> rho = certified_rho(noise)  # Δ² / (2σ²) for Δ = 1
    >>> bool(1 / (2 * noise.sigma**2) <= rho * (1 + 1e-12) <= (1 + 1e-6) / (2 * noise.sigma**2))
    True
    """
    cert = certify_rho(noise, sensitivity=sensitivity, rtol=rtol, max_orders=max_orders)
    if check_flag("debug", debug):
        warn_deprecated("certified_rho(..., debug=True)", "certify_rho(...)")
        return cert  # type: ignore[return-value]
    return cert.value


# -- GDP over the continuum of ε ----------------------------------------------------------------
def _gdp_curves(noise: Any, sensitivity: Any, what: str) -> list[lat.Curve] | float:
    """The curves of lattice noise, or the closed-form μ of a continuous family that has one."""
    src, reach = lat.source(noise, sensitivity, what)
    if isinstance(src, ContinuousSource):
        if src.mu is None:
            raise TypeError(f"{what} needs lattice noise or a Gaussian; got {describe(noise)}.")
        return src.mu
    return lat.curves(src, reach)


def certify_mu(
    noise: Any, *, sensitivity: float | None = None, rtol: float = SEARCH_RTOL
) -> Certificate:
    """Certified GDP μ: the smallest μ (to ``rtol``) with $δ(ε) ≤ δ_μ(ε)$ for all ε ≥ 0.

    Parameters
    ----------
    noise, sensitivity
        As in `privacy_profile`, lattice noise only (not the discrete Gaussian).
    rtol : float, default 1e-6
        Relative width of the final bisection bracket, in (0, 1) (``SEARCH_RTOL``).

    Returns
    -------
    Certificate
        ``value`` a μ that passes the continuum check (``inf`` when a mass faces zero within
        reach), ``lower`` one that fails it, ``guarantee`` ``GaussianDP(value)``.

    Examples
    --------
    >>> from optmech import Gaussian
    >>> from optmech.certify import certify_mu
    >>> noise = Gaussian(epsilon=0.5, delta=1e-5)
    >>> cert = certify_mu(noise)
    >>> bool(cert.lower <= 1 / noise.sigma <= cert.value)  # the exact μ lies in the interval
    True
    """
    curves = _gdp_curves(noise, sensitivity, "certified_mu")
    tol = check_real("rtol", rtol, low=0.0, high=1.0, low_open=True, high_open=True)
    if isinstance(curves, float):
        return Certificate(curves, curves, "closed form", GaussianDP(curves))
    d_inf = lat.d_inf(curves)
    if math.isinf(d_inf):
        return Certificate(math.inf, math.inf, "a positive mass faces zero within reach")

    def holds(mu: float) -> bool:
        return all(curve_holds(c, mu) for c in curves)

    # ε-DP implies μ-GDP for μ = −2Φ^(−1)(1/(1 + e^ε)); a starting point, checked like any other.
    hi = max(-2.0 * float(special.ndtri(1.0 / (1.0 + math.exp(min(d_inf, 700.0))))), 1e-8)
    hi, lo = hi * 1.001, 0.0
    while math.isfinite(hi) and not holds(hi):
        lo, hi = hi, (hi * 2.0 if hi < 1e6 else math.inf)  # none up to 1e6 passes: inf
    while math.isfinite(hi) and hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    proven = GaussianDP(hi) if math.isfinite(hi) else None
    return Certificate(hi, lo, f"μ = {hi:.9g} passes, {lo:.9g} does not", proven)


def certified_mu(
    noise: Any, *, sensitivity: float | None = None, rtol: float = SEARCH_RTOL, debug: bool = False
) -> float:
    """Certified GDP μ (`certify_mu`, which also gives the μ that fails).

    Parameters
    ----------
    noise, sensitivity, rtol
        As in `certify_mu`.
    debug : bool
        Deprecated: return the `Certificate`; use `certify_mu`.

    Returns
    -------
    float
        A μ that passes the continuum check (``inf`` when a mass faces zero within reach).

    Examples
    --------
    >>> from optmech import Gaussian
    >>> from optmech.certify import certified_mu
    >>> noise = Gaussian(epsilon=0.5, delta=1e-5)
    >>> mu = certified_mu(noise)  # N(0, σ²) with Δ = 1 is exactly (1/σ)-GDP
    >>> bool(1 / noise.sigma <= mu <= (1 / noise.sigma) * (1 + 1e-6))
    True
    """
    debug = check_flag("debug", debug)
    cert = certify_mu(noise, sensitivity=sensitivity, rtol=rtol)
    if debug:
        warn_deprecated("certified_mu(..., debug=True)", "certify_mu(...)")
        return cert  # type: ignore[return-value]
    return cert.value


def _assess(noise: Any, g: Any, sensitivity: Any, tol: float, value: bool) -> GuaranteeReport:
    """Whether ``g`` holds within ``tol`` and what was certified (μ of a GaussianDP claim only
    with ``value``: its check is the direct continuum test at ``μ(1 + tol)``)."""
    kw = {"sensitivity": sensitivity}
    if isinstance(g, PureDP):
        got: Any = pure_epsilon(noise, **kw)
        pairs = [(got, g.epsilon)]
    elif isinstance(g, ApproxDP):
        got = privacy_profile(noise, g.epsilon, **kw)
        pairs = [(got, g.delta)]
    elif isinstance(g, ZCDP):
        got = certified_rho(noise, rtol=max(tol / 2, 1e-9), **kw)
        pairs = [(got, g.rho)]
    elif isinstance(g, RenyiDP):
        got = tuple(np.atleast_1d(renyi_divergence(noise, list(g.orders), **kw)).tolist())
        pairs = list(zip(got, g.epsilons, strict=True))
    elif isinstance(g, GaussianDP):  # the exact continuum check at μ(1 + rtol)
        curves = _gdp_curves(noise, sensitivity, "a GaussianDP check")
        if isinstance(curves, float):
            ok = curves <= g.mu * (1 + tol)
        else:
            ok = all(curve_holds(c, g.mu * (1 + tol)) for c in curves)
        got = certified_mu(noise, rtol=max(tol / 2, 1e-9), **kw) if value else None
        pairs = [(0.0 if ok else 1.0, 0.0)]
    elif isinstance(g, PrivacyProfile):
        got = tuple(np.asarray(privacy_profile(noise, list(g.epsilons), **kw)).tolist())
        pairs = list(zip(got, g.deltas, strict=True))
    else:
        raise TypeError(
            "`guarantee` must be PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile; "
            f"got {describe(g)}."
        )
    holds = all(x <= c * (1 + tol) for x, c in pairs)
    return GuaranteeReport(holds, g, got, f"certified {got!r} against {g} (rtol {tol:g})")


def _rtol(guarantee: Any, rtol: float | None) -> float:
    if rtol is None:
        return default_rtol(guarantee)
    return check_real("rtol", rtol, low=0.0, high=1.0, high_open=True)


def certify_guarantee(
    noise: Any, guarantee: Any, *, sensitivity: float | None = None, rtol: float | None = None
) -> GuaranteeReport:
    """What is certified about the noise under ``guarantee``, and whether it holds.

    Parameters
    ----------
    noise, sensitivity
        As in `privacy_profile`.
    guarantee : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile
        The claim. GaussianDP needs lattice noise with geometric tails (or a Gaussian).
    rtol : float, optional
        Relative slack on the claim, in [0, 1); default by the convention of
        `optmech.certify.report`: 1e-6 for ZCDP and GaussianDP (their
        numbers are found by searches run to half of it), 1e-9 for the others.

    Returns
    -------
    GuaranteeReport
        ``achieved``: the pure ε, δ at ε, ρ, μ, or the tuple of δ(ε_j) or D_α at the orders.

    Examples
    --------
    >>> from optmech import Gaussian, ZCDP
    >>> from optmech.certify import certify_guarantee
    >>> noise = Gaussian(epsilon=0.5, delta=1e-5)
    >>> certify_guarantee(noise, ZCDP(0.01)).holds, certify_guarantee(noise, ZCDP(0.001)).holds
    (True, False)
    """
    return _assess(noise, guarantee, sensitivity, _rtol(guarantee, rtol), value=True)


def check_guarantee(
    noise: Any,
    guarantee: Any,
    *,
    sensitivity: float | None = None,
    rtol: float | None = None,
    debug: bool = False,
) -> bool:
    """Whether the noise satisfies ``guarantee`` for sensitivity Δ, up to relative ``rtol``.

    Parameters
    ----------
    noise, sensitivity, guarantee, rtol
        As in `certify_guarantee`.
    debug : bool
        Return True when it holds, otherwise raise
        `PrivacyViolationError` naming what was
        certified, the `GuaranteeReport` as its ``report``. (Earlier
        versions returned the report; use `certify_guarantee` for it.)

    Returns
    -------
    bool

    Examples
    --------
    >>> from optmech import Gaussian, GaussianDP
    >>> from optmech.certify import check_guarantee
    >>> noise = Gaussian(epsilon=0.5, delta=1e-5)
    >>> check_guarantee(noise, GaussianDP(1.01 / noise.sigma))
    True
    >>> check_guarantee(noise, GaussianDP(0.99 / noise.sigma))
    False
    """
    debug = check_flag("debug", debug)
    report = _assess(noise, guarantee, sensitivity, _rtol(guarantee, rtol), value=False)
    return verdict(report.holds, report, guarantee, debug)
