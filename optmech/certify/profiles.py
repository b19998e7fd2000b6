"""Certified privacy beyond (ε, δ) of additive noise on ℤ: profiles, Rényi, zCDP and GDP.

The noise is given by its numbers: the description of
[`optmech.certify.noise`][optmech.certify.noise] (masses on consecutive integers; each side a
geometric tail repeating a base period of ``P`` points, times
``ratio`` per period), an object with ``grid_description()`` (``LatticeNoise``), ``Geometric``,
``DiscreteStaircase``, or (Rényi and zCDP only) [`discrete_gaussian`][discrete_gaussian]. Masses are
normalised by their total, tails included. All is a supremum over the shifts ``P_s(k) = P(k + s)``,
``0 < |s| ≤ Δ``, both directions (Δ an integer).

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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech._validation import (
    check_flag,
    check_int,
    check_real,
    check_real_array,
    check_tail,
    describe,
)
from optmech.certify._gdp import curve_holds
from optmech.certify._moments import kl_bound, kl_moments
from optmech.certify.continuous import ContinuousSource, continuous_source
from optmech.certify.discrete_gaussian import (
    DiscreteGaussian,
    discrete_gaussian,
    renyi_discrete_gaussian,
)
from optmech.certify.noise import cells_within_reach
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PrivacyProfile, PureDP, RenyiDP

__all__ = [
    "Certificate",
    "GuaranteeReport",
    "certified_mu",
    "certified_rho",
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
class Certificate:
    """A certified number: ``value`` (pessimistic), ``lower`` (the best a finite search reached
    from the other side: the exact value is about there or above) and a one-line ``reason``."""

    value: float
    lower: float
    reason: str


@dataclass(frozen=True)
class GuaranteeReport:
    """[`check_guarantee`][check_guarantee]: whether it holds, what was certified, and why."""

    holds: bool
    guarantee: Any
    achieved: Any
    reason: str


# -- input --------------------------------------------------------------------------------------
class _Lattice(NamedTuple):
    """Log masses (and error bounds) on the grid plus ``V`` tail periods each side."""

    logs: FloatArray
    errs: FloatArray
    period: int
    virtual: int  # V, enough for every shift up to Δ: 2 + ceil(Δ/P)
    log_w: tuple[float, float]  # log 1/(1 − ratio), left and right
    log_atom: float
    log_mass: float
    mass_err: float


def _logs(x: Any) -> tuple[FloatArray, FloatArray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(x)
    return out, np.where(np.isfinite(out), 4.0 * _U * (1.0 + np.abs(out)), 0.0)


def _periods(base: FloatArray, ratio: float, count: int) -> tuple[FloatArray, FloatArray]:
    """Logs and errors of ``count`` tail periods, nearest first: ``log base + m log ratio``."""
    (lb, eb), (lr, _) = _logs(base), _logs(ratio)
    m = np.arange(count, dtype=float)[:, None]
    with np.errstate(invalid="ignore"):
        step = np.where(m == 0, 0.0, m * lr)
    extra = np.where(np.isfinite(step), 4.0 * _U * (1.0 + np.abs(step)), 0.0)
    return lb[None, :] + step, eb[None, :] + extra


def _lattice(desc: Mapping[str, Any], reach: int) -> _Lattice:
    p = check_real_array("masses", desc["masses"], ndim=1, nonnegative=True)
    left, right = desc.get("left_tail"), desc.get("right_tail")
    (lb, lr), (rb, rr) = check_tail("left_tail", left), check_tail("right_tail", right)
    lb = np.zeros(rb.size) if left is None else lb  # a zero tail of the other one's period
    rb = np.zeros(lb.size) if right is None else rb
    if lb.size != rb.size:
        raise ValueError(f"the tails' base periods differ in length: {lb.size} and {rb.size}.")
    atom = check_real("atom", desc.get("atom", 0.0), low=0.0)
    mass = math.fsum(p) + math.fsum(lb) / (1.0 - lr) + math.fsum(rb) / (1.0 - rr) + atom
    if not 0.0 < mass < math.inf:
        raise ValueError(f"the masses must have a positive finite total; got {mass!r}.")
    virtual = 2 + -(-reach // lb.size)
    ll, el = _periods(lb, lr, virtual)
    rl, er = _periods(rb, rr, virtual)
    lp, ep = _logs(p)
    logs = np.concatenate([ll[::-1].ravel(), lp, rl.ravel()])  # farthest left period first
    errs = np.concatenate([el[::-1].ravel(), ep, er.ravel()])
    log_mass = math.log(mass)
    log_w = (-math.log1p(-lr), -math.log1p(-rr))
    return _Lattice(
        logs,
        errs,
        lb.size,
        virtual,
        log_w,
        float(_logs(atom)[0]),
        log_mass,
        8.0 * _U * (2.0 + abs(log_mass)),
    )


def _reversed(g: _Lattice) -> _Lattice:
    return g._replace(logs=g.logs[::-1], errs=g.errs[::-1], log_w=g.log_w[::-1])


def _family(noise: Any) -> tuple[dict[str, Any], int] | None:
    """Geometric and DiscreteStaircase as descriptions with their exact geometric tails."""
    from optmech.mechanisms.discrete_staircase import DiscreteStaircase
    from optmech.mechanisms.geometric import Geometric

    if isinstance(noise, Geometric):
        d, b = 1, noise.beta
    elif isinstance(noise, DiscreteStaircase):
        d, b = int(noise.sensitivity), math.exp(-noise.privacy.epsilon)
    else:
        return None
    p = np.asarray(noise.pmf(np.arange(-d, 2 * d)), dtype=float)  # periods of d points
    desc = {"masses": p[d : 2 * d], "left_tail": (p[:d], b), "right_tail": (p[2 * d :], b)}
    return desc, int(noise.sensitivity)


def _source(noise: Any, sensitivity: Any, lattice: str = "") -> tuple[Any, int]:
    """The noise as a validated lattice (or the discrete Gaussian) and the integer Δ."""
    if isinstance(noise, DiscreteGaussian):
        if lattice:
            raise TypeError(f"{lattice} needs a pmf with geometric tails, not a discrete Gaussian.")
        if sensitivity is None:
            raise TypeError("`sensitivity` is required for the discrete Gaussian; got None.")
        return noise, check_int("sensitivity", sensitivity, low=1)
    if (cont := continuous_source(noise, sensitivity)) is not None:
        return cont, 0
    if isinstance(noise, Mapping):
        desc, default = noise, noise.get("reach")
    elif hasattr(noise, "grid_description"):
        desc = noise.grid_description()
        default = desc.get("reach", getattr(noise, "sensitivity", None))
        if not getattr(noise, "discrete", True):  # a density: whole cells reached, exactly
            default = cells_within_reach(noise.sensitivity, noise.width)
    elif (found := _family(noise)) is not None:
        desc, default = found
    else:
        raise TypeError(
            "`noise` must be a pmf description (a mapping with 'masses' and optional "
            "'left_tail', 'right_tail', 'atom'), an object with grid_description(), Geometric, "
            "DiscreteStaircase, discrete_gaussian(sigma), Laplace, Gaussian, Staircase or "
            f"UniformAtom; got {describe(noise)}."
        )
    if "masses" not in desc:
        raise TypeError(f"a pmf description needs the key 'masses'; got keys {sorted(desc)}.")
    hint = "shifts on ℤ; for a fractional reach in cells use optmech.certify.noise"
    reach = check_int(
        "sensitivity", default if sensitivity is None else sensitivity, low=1, hint=hint
    )
    return _lattice(desc, reach), reach


# -- the pairs of one shift ------------------------------------------------------------------
def _atoms(g: _Lattice, s: int) -> tuple[FloatArray, ...]:
    """Logs and errors of ``P``, ``P_s``, weight ``w`` over pairs with both masses positive, and
    the log mass facing zero (atom included), ``s > 0``. The farthest left period stands for all
    beyond it (``w = 1/(1 − ratio)``), the first right one for those after it (the rest: 0)."""
    lw = np.zeros(g.logs.size)
    lw[: g.period] = g.log_w[0]
    start = g.logs.size - g.virtual * g.period
    lw[start : start + g.period] = g.log_w[1]
    lw[start + g.period :] = -np.inf
    lp, lq, ep, eq, w = g.logs[:-s], g.logs[s:], g.errs[:-s], g.errs[s:], lw[:-s]
    live = np.isfinite(lp) & np.isfinite(w)
    both, lost = live & np.isfinite(lq), live & ~np.isfinite(lq)
    log_inf = g.log_atom
    if np.any(lost):
        x = special.logsumexp(w[lost] + lp[lost]) + float(np.max(ep[lost])) + 8.0 * _U
        log_inf = float(np.logaddexp(log_inf, x))
    ew = 4.0 * _U * (1.0 + np.abs(w[both]))
    return lp[both], ep[both], lq[both], eq[both], w[both], ew, np.asarray(log_inf)


class _Curve(NamedTuple):
    """One shift's profile: losses (rounded up, descending), ``log A⁺_j``, ``log B⁻_j``."""

    loss: FloatArray
    log_a: FloatArray
    log_b: FloatArray
    inf_mass: float  # normalised, rounded up
    shift: int


def _curve(g: _Lattice, at: tuple[FloatArray, ...], shift: int) -> _Curve:
    lp, ep, lq, eq, lw, ew, log_inf = at
    ell = lp - lq
    eta = ep + eq + 2.0 * _U * (1.0 + np.abs(ell))
    loss = ell + eta
    la = lw + lp + ew + ep + 2.0 * eta - g.log_mass + g.mass_err
    lb = lw + lq - ew - eq - g.log_mass - g.mass_err
    la, lb = la + 4.0 * _U * (1.0 + np.abs(la)), lb - 4.0 * _U * (1.0 + np.abs(lb))
    order = np.argsort(-loss, kind="stable")
    acc_a, acc_b = np.logaddexp.accumulate(la[order]), np.logaddexp.accumulate(lb[order])
    big = float(np.max(np.abs(np.concatenate([acc_a, acc_b])), initial=0.0))
    gamma = 2.0 * _U * (big + 2.0) * np.arange(1, loss.size + 1)
    inf_mass = 0.0
    if log_inf > -np.inf:
        inf_mass = math.exp(float(log_inf) - g.log_mass + g.mass_err) * (1.0 + 8.0 * _U)
    return _Curve(loss[order], acc_a + gamma, acc_b - gamma, inf_mass, shift)


def _shifts(g: _Lattice, reach: int) -> list[tuple[_Lattice, int]]:
    """Oriented lattices and shifts: ``s = 1..Δ``, and ``−s`` (the mirror) unless symmetric."""
    r = _reversed(g)
    mirror = not (np.array_equal(g.logs, r.logs) and g.log_w[0] == g.log_w[1])
    return [
        (o, sign * s) for o, sign in ((g, 1), (r, -1))[: 1 + mirror] for s in range(1, reach + 1)
    ]


def _curves(g: _Lattice, reach: int) -> list[_Curve]:
    return [_curve(o, _atoms(o, abs(s)), s) for o, s in _shifts(g, reach)]


# -- privacy profile ---------------------------------------------------------------------------
def _curve_delta(c: _Curve, eps: FloatArray) -> FloatArray:
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
    noise: Any, epsilons: npt.ArrayLike, *, sensitivity: int | None = None
) -> float | FloatArray:
    """Certified ``δ(ε) = max_{0<|s|≤Δ} Σ_k (P(k) − e^ε P(k+s))₊`` at each ε, tails exact.

    Parameters
    ----------
    noise : mapping or noise object
        A pmf description (``masses``, ``left_tail``, ``right_tail``, optional ``atom``; see
        [`optmech.certify.noise`][optmech.certify.noise]), an object with ``grid_description()``,
        ``Geometric`` or
        ``DiscreteStaircase``. (Rényi and zCDP also take [`discrete_gaussian`][discrete_gaussian].)
    epsilons : array_like
        The ε values, finite reals (negative ε give the rest of the hockey-stick curve).
    sensitivity : int, optional
        Δ in [1, inf); default the description's ``reach`` or the object's sensitivity.

    Returns
    -------
    float or numpy.ndarray
        Pessimistic δ at each ε (the piecewise-linear form in ``e^ε`` is exact between the
        breakpoints), at most 1.
    """
    src, reach = _source(noise, sensitivity, "privacy_profile")
    eps = np.asarray(check_real_array("epsilons", np.atleast_1d(epsilons)), dtype=float)
    if isinstance(src, ContinuousSource):
        top = src.profile(eps.ravel())
    else:
        top = np.max([_curve_delta(c, eps.ravel()) for c in _curves(src, reach)], axis=0)
    out = np.minimum(np.where(top > 0, np.nextafter(top, np.inf), 0.0), 1.0).reshape(eps.shape)
    return float(out[0]) if np.ndim(epsilons) == 0 else out


def profile_breakpoints(noise: Any, *, sensitivity: int | None = None) -> FloatArray:
    """The finite privacy losses ``log P(k)/P(k+s)`` (rounded up) of all shifts, sorted, unique.

    ``δ(ε)`` of each shift is linear in ``e^ε`` between consecutive ones.
    """
    src, reach = _source(noise, sensitivity, "profile_breakpoints")
    if isinstance(src, ContinuousSource):
        return np.unique(src.losses)
    return np.unique(np.concatenate([c.loss for c in _curves(src, reach)]))


def pure_epsilon(noise: Any, *, sensitivity: int | None = None) -> float:
    """Certified pure ε, ``D_∞ = max_s max_k log P(k)/P(k+s)`` (``inf`` if a mass faces zero)."""
    src, reach = _source(noise, sensitivity)
    if isinstance(src, DiscreteGaussian | ContinuousSource):
        return math.inf if isinstance(src, DiscreteGaussian) else src.d_inf
    return _d_inf(_curves(src, reach))


def _d_inf(curves: list[_Curve]) -> float:
    if any(c.inf_mass > 0 for c in curves):
        return math.inf
    top = max((float(c.loss[0]) for c in curves if c.loss.size), default=0.0)
    return math.nextafter(max(top, 0.0), math.inf)


# -- Rényi divergence --------------------------------------------------------------------------
def _up(x: FloatArray, rel: float) -> FloatArray:
    return np.nextafter(x + rel * np.abs(x), np.inf)


def _renyi_atoms(g: _Lattice, at: tuple[FloatArray, ...], alphas: FloatArray) -> FloatArray:
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


def _divergence(src: _Lattice | DiscreteGaussian, reach: int) -> Callable[[FloatArray], Any]:
    """``α ↦`` upper bounds of ``max_s D_α``, vectorised over α."""
    if isinstance(src, DiscreteGaussian):
        return lambda alphas: renyi_discrete_gaussian(src.sigma, reach, alphas)
    if isinstance(src, ContinuousSource):
        return src.divergence
    pairs = [(o, _atoms(o, abs(s))) for o, s in _shifts(src, reach)]
    return lambda alphas: np.max([_renyi_atoms(o, at, alphas) for o, at in pairs], axis=0)


def renyi_divergence(
    noise: Any, alpha: npt.ArrayLike, *, sensitivity: int | None = None
) -> float | FloatArray:
    """Certified ``max_{0<|s|≤Δ} D_α(P ‖ P_s)``, ``D_α = log(Σ P^α P_s^(1−α))/(α − 1)``.

    Parameters
    ----------
    noise, sensitivity
        As in [`privacy_profile`][privacy_profile].
    alpha : float or array_like
        Orders, each in (1, inf).

    Returns
    -------
    float or numpy.ndarray
        Pessimistic divergence at each order; ``inf`` when a positive mass faces a zero one
        within reach.
    """
    src, reach = _source(noise, sensitivity)
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


def certified_rho(
    noise: Any,
    *,
    sensitivity: int | None = None,
    rtol: float = 1e-6,
    max_orders: int = 20_000,
    debug: bool = False,
) -> float | Certificate:
    """Certified zCDP ρ: an upper bound of ``sup_{α>1} max_s D_α/α`` over the continuum of α.

    Parameters
    ----------
    noise, sensitivity
        As in [`privacy_profile`][privacy_profile].
    rtol : float, default 1e-6
        Target relative gap between the certified bound and the best grid value, in (0, 1).
    max_orders : int, default 20000
        Largest grid; the bound stays valid if it is reached (the reason says so).
    debug : bool
        Return a [`Certificate`][Certificate] instead of the float.

    Notes
    -----
    Near α = 1 the bound also uses the loss's mean (the Kullback–Leibler divergence) and second
    moment (`optmech.certify._moments.kl_bound`). Beyond the last order the bound is
    ``D_∞/α``. The discrete Gaussian has ``D_∞ = inf``; there
    ``D_α ≤ αΔ²/(2σ²)`` (Canonne, Kamath & Steinke, 2020: ``θ(c) ≤ θ(0)``) serves, and its
    certificate is ``Δ²/(2σ²)`` within ``rtol`` (attained at every integer order).
    """
    src, reach = _source(noise, sensitivity)
    tol = check_real("rtol", rtol, low=0.0, high=1.0, low_open=True, high_open=True)
    cap = check_int("max_orders", max_orders, low=64)
    if isinstance(src, DiscreteGaussian):
        d_inf, rho_dg = 0.0, float(_up(np.asarray(reach**2 / (2.0 * src.sigma**2)), 4.0 * _U))
        tail: Callable[[float], float] = lambda a_hi: rho_dg  # noqa: E731
    elif isinstance(src, ContinuousSource):
        d_inf, moments = (0.0, []) if src.rho is not None else (src.d_inf, [])
        tail = lambda a_hi: src.rho or d_inf / a_hi  # noqa: E731
    else:
        d_inf = _d_inf(_curves(src, reach))
        tail = lambda a_hi: d_inf / a_hi  # noqa: E731
        moments = [kl_moments(o, _atoms(o, abs(s))) for o, s in _shifts(src, reach)]
    if isinstance(src, ContinuousSource) and src.rho is not None:
        cert = Certificate(src.rho, src.rho, "closed form")
    elif math.isinf(d_inf):
        cert = Certificate(math.inf, math.inf, "a positive mass faces zero within reach")
    else:
        near = kl_bound(moments) if isinstance(src, _Lattice) else None
        cert = _rho_search(_divergence(src, reach), tail, tol, cap, near)
    return cert if check_flag("debug", debug) else cert.value


# -- GDP over the continuum of ε ----------------------------------------------------------------
def _gdp_curves(noise: Any, sensitivity: Any, what: str) -> list[_Curve] | float:
    """The curves of lattice noise, or the closed-form μ of a continuous family that has one."""
    src, reach = _source(noise, sensitivity, what)
    if isinstance(src, ContinuousSource):
        if src.mu is None:
            raise TypeError(f"{what} needs lattice noise or a Gaussian; got {describe(noise)}.")
        return src.mu
    return _curves(src, reach)


def certified_mu(
    noise: Any, *, sensitivity: int | None = None, rtol: float = 1e-6, debug: bool = False
) -> float | Certificate:
    """Certified GDP μ: the smallest μ (to ``rtol``) with ``δ(ε) ≤ δ_μ(ε)`` for all ε ≥ 0.

    Parameters
    ----------
    noise, sensitivity
        As in [`privacy_profile`][privacy_profile], lattice noise only (not the discrete Gaussian).
    rtol : float, default 1e-6
        Relative width of the final bisection bracket, in (0, 1).
    debug : bool
        Return a [`Certificate`][Certificate] (``value`` passes the check, ``lower`` fails it).

    Returns
    -------
    float or Certificate
        A μ that passes the continuum check (``inf`` when a mass faces zero within reach).
    """
    curves = _gdp_curves(noise, sensitivity, "certified_mu")
    tol = check_real("rtol", rtol, low=0.0, high=1.0, low_open=True, high_open=True)
    debug = check_flag("debug", debug)
    if isinstance(curves, float):
        return Certificate(curves, curves, "closed form") if debug else curves
    d_inf = _d_inf(curves)
    if math.isinf(d_inf):
        cert = Certificate(math.inf, math.inf, "a positive mass faces zero within reach")
        return cert if debug else cert.value

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
    cert = Certificate(hi, lo, f"μ = {hi:.9g} passes, {lo:.9g} does not")
    return cert if debug else cert.value


def check_guarantee(
    noise: Any,
    guarantee: Any,
    *,
    sensitivity: int | None = None,
    rtol: float = 1e-6,
    debug: bool = False,
) -> bool | GuaranteeReport:
    """Whether the noise satisfies ``guarantee`` for sensitivity Δ, up to relative ``rtol``.

    Parameters
    ----------
    noise, sensitivity
        As in [`privacy_profile`][privacy_profile].
    guarantee : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile
        The claim. GaussianDP needs lattice noise with geometric tails.
    rtol : float, default 1e-6
        Relative slack on the claim, in [0, 1) (it covers the continuum certificates'
        accuracy; every certified number is already pessimistic).
    debug : bool
        Return a [`GuaranteeReport`][GuaranteeReport] naming what was certified.
    """
    tol = check_real("rtol", rtol, low=0.0, high=1.0, high_open=True)
    g, kw = guarantee, {"sensitivity": sensitivity}
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
            got = curves <= g.mu * (1 + tol)
        else:
            got = all(curve_holds(c, g.mu * (1 + tol)) for c in curves)
        pairs = [(0.0 if got else 1.0, 0.0)]
    elif isinstance(g, PrivacyProfile):
        got = tuple(np.asarray(privacy_profile(noise, list(g.epsilons), **kw)).tolist())
        pairs = list(zip(got, g.deltas, strict=True))
    else:
        raise TypeError(
            "`guarantee` must be PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile; "
            f"got {describe(guarantee)}."
        )
    holds = all(x <= c * (1 + tol) for x, c in pairs)
    if not check_flag("debug", debug):
        return holds
    return GuaranteeReport(holds, g, got, f"certified {got!r} against {g} (rtol {tol:g})")
