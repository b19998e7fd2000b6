"""Privacy accounting of optmech noise with Google's ``dp_accounting``: PLDs, composition, RDP.

The privacy loss distribution (PLD) of a mechanism pair ``(P, Q)`` is the law of
``log P(X)/Q(X)``, ``X ~ P``; composition convolves PLDs and $δ(ε) = E[(1 − e^{ε − L})₊]$
(plus the mass at $L = ∞$) reads the composed profile off the result (Meiser & Mohammadi,
2018; Koskela, Jälkö & Honkela, 2020; implemented by ``dp_accounting.pld``).

Supported noise:

* **lattice noise** — a pmf description (a
  `GridDescription` or the mapping of
  `optmech.certify.noise`: masses and geometric tails), a noise whose
  self-description (``privacy_source()``) has a grid (`LatticeNoise`, designs; a piecewise-constant
  density is read at whole-cell shifts, where its divergences are, and they are linear between
  them), `Geometric` and
  `DiscreteStaircase`. The PLD dominates
  *every* shift $0 < |s| ≤ Δ$ in both directions at once: the largest of their hockey-stick curves
  (`optmech.certify.profiles.privacy_profile`, exact
  tails, rounded up) is itself the hockey-stick curve of a pair of distributions, which dominates
  each shift, so its composition bounds any adaptive mix of shifts (Zhu, Dong & Wang, 2022,
  dominating pairs). With ``pessimistic=True`` that curve is evaluated at the multiples of
  ``discretization`` just below and above each of its breakpoints (every shift's losses, and the
  points where two shifts' curves cross, where the end segments' lines meet) and turned into a PLD
  by the pessimistic connect-the-dots construction (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi,
  2022; ``pld_pmf.create_pmf_pessimistic_connect_dots``): its curve is the chord interpolation of
  the exact one, never below it. ``pessimistic=False`` rounds the exact losses down instead.
* `Laplace` and
  `Gaussian` — dp_accounting's own
  ``from_laplace_mechanism`` / ``from_gaussian_mechanism``, which are exactly these densities;
  `renyi_curve` uses its RDP accountant (Mironov, 2017, Proposition 6 for Laplace;
  $αΔ²/(2σ²)$ for Gaussian).
* `optmech.certify.profiles.discrete_gaussian` —
  `renyi_curve` only (its losses are unbounded, so it has no finite PLD from the
  profile).
* `Staircase`,
  `UniformAtom` and
  `PiecewiseConstantNoise` (any reach: whole
  cells, rounded up) — their exact profiles
  (`optmech.certify.continuous`), as for lattice noise.

* `optmech.PrivacyProfile` — points $δ(ε_j) ≤ δ_j$ of any mechanism's curve (a shuffled
  guarantee's ``to_profile()``, for one). A hockey-stick curve is convex and non-increasing in
  $e^ε$, so between two points it lies below their chord in $e^ε$, and past the last point below
  its δ; below ε = 0 it is the other direction's, $1 − e^ε + e^ε δ(−ε)$. Those bounds, made
  non-increasing, are the curve turned into a PLD, and it bounds the mechanism's curve wherever
  the points do (a single point δ(ε) = 0 gives randomized response's curve, the pure-DP one).

Not supported (``TypeError``): ``TruncatedLaplace`` and graded densities.

References
----------
Meiser, S. & Mohammadi, E. (2018). Tight on budget? Tight bounds for r-fold approximate
differential privacy. ACM CCS.
Koskela, A., Jälkö, J. & Honkela, A. (2020). Computing tight differential privacy guarantees
using FFT. AISTATS.
Doroshenko, V., Ghazi, B., Kamath, P., Kumar, R. & Manurangsi, P. (2022). Connect the dots:
tighter discrete approximations of privacy loss distributions. PoPETs.
Zhu, Y., Dong, J. & Wang, Y.-X. (2022). Optimal accounting of differential privacy via
characteristic function. AISTATS.
Mironov, I. (2017). Rényi differential privacy. IEEE CSF.

Examples
--------
>>> from optmech.mechanisms import Geometric
>>> g = Geometric(epsilon=1.0)
>>> d1 = compose(g, 1, 0.5)  # one use: (1/(1 + e^-1))(1 − e^(0.5 − 1)) = 0.2876491
>>> bool(0.2876491 <= d1 < 0.2876492)
True
>>> bool(compose(g, 10, 2.0) < compose(g, 10, 1.0))
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech._validation import check_flag, check_int, check_real, check_real_array, describe
from optmech.certify.profiles import privacy_profile, profile_breakpoints, renyi_divergence
from optmech.mechanisms.description import SourceKind, grid_of, source_of
from optmech.privacy import PrivacyProfile

try:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld import privacy_loss_distribution as pld_lib
    from dp_accounting.rdp import rdp_privacy_accountant
except ImportError as exc:  # pragma: no cover - a declared dependency
    raise ImportError(
        "optmech.accounting needs Google's dp-accounting (pip install 'dp-accounting>=0.4')."
    ) from exc

__all__ = ["compose", "privacy_loss_distribution", "renyi_curve"]


_SUPPORTED = (
    "a pmf description (mapping with 'masses' and tails), a GridDescription, LatticeNoise, "
    "PiecewiseConstantNoise (any noise whose privacy_source() has a grid of equal cells), "
    "Geometric, DiscreteStaircase, Laplace, Gaussian, Staircase, UniformAtom or a PrivacyProfile"
)


def _density(noise: Any, sensitivity: Any) -> tuple[str, float, float] | None:
    """``(kind, scale, Δ)`` for the densities dp_accounting knows exactly (the noise describes
    itself as Laplace or Gaussian), else None."""
    src = source_of(noise)
    if src is None or src.kind not in (SourceKind.LAPLACE, SourceKind.GAUSSIAN):
        return None
    delta = src.sensitivity if sensitivity is None else sensitivity
    delta = check_real("sensitivity", delta, low=0.0, low_open=True)
    if src.kind == SourceKind.LAPLACE:
        return "laplace", float(src.parameters["scale"]), delta
    return "gaussian", float(src.parameters["sigma"]), delta


def _check_lattice(noise: Any) -> bool:
    """Whether the noise is on ℤ; a noise needs an exact profile: a grid of equal cells, or a
    closed form of `optmech.certify.continuous` (the staircase,
    the uniform + atom). Descriptions that are not a noise (pmf mappings, the discrete
    Gaussian) are checked where they are read."""
    src = source_of(noise)
    if src is None:
        grid = None if isinstance(noise, Mapping) else grid_of(noise)
        return grid is None or grid.discrete or grid.width is None
    readable = (src.grid is not None and src.grid.equal_cells) or src.kind == SourceKind.PIECEWISE
    if not readable:
        raise TypeError(f"`noise` must be {_SUPPORTED}; got {describe(noise)}.")
    return src.discrete


def _connect_dots_masses(losses: FloatArray, deltas: FloatArray) -> FloatArray:
    """PLD masses at ``losses`` whose hockey-stick curve interpolates ``deltas`` there.

    Doroshenko et al. (2022), Algorithm 1: with ``δ_0 = 1`` below the first loss, the mass at
    ``ε_i`` is ``(δ_i − δ_(i−1))/(e^(ε_(i−1) − ε_i) − 1)``
    ``+ (δ_(i+1) − δ_i)/(e^(ε_(i+1) − ε_i) − 1)``.
    """
    diffs = np.diff(deltas)
    gaps = np.diff(losses)
    below = np.append(1.0 - deltas[0], diffs / np.expm1(-gaps))
    above = np.append(diffs / np.expm1(gaps), 0.0)
    return np.maximum(below + above, 0.0)


def _profile_curve(profile: PrivacyProfile) -> Any:
    """An upper bound on the hockey-stick curve whose points ``profile`` bounds, at every ε: the
    chords in $t = e^ε$ between the points (from $(t, δ) = (1, 1)$ when the first ε is positive),
    the last δ after them, the other direction's curve below ε = 0 (module docstring)."""
    eps = np.asarray(profile.epsilons, dtype=np.float64)
    dlt = np.asarray(profile.deltas, dtype=np.float64)
    if eps[0] > 0.0:
        eps, dlt = np.append(0.0, eps), np.append(1.0, dlt)
    top = eps[-1]  # chords in t scaled by e^(−top): the same lines, no overflow

    def chords(e: FloatArray) -> FloatArray:  # e ≥ 0
        return np.interp(np.exp(np.minimum(e, top) - top), np.exp(eps - top), dlt)

    def curve(e: Any) -> FloatArray:
        # Below ε = 0 the curve is the other direction's, $1 − e^ε + e^ε δ(−ε)$, which the
        # profile bounds too (it is the worst over both orders of the neighbours).
        e = np.asarray(e, dtype=np.float64)
        t = np.exp(np.minimum(e, 0.0))
        return np.where(e < 0.0, 1.0 - t + t * chords(np.abs(e)), chords(np.maximum(e, 0.0)))

    return curve


def _kinks(profile: Any, points: FloatArray) -> FloatArray:
    """Breakpoints of the largest curve: each shift's losses, plus where two shifts' curves cross.

    Between consecutive points every curve is linear in ``t = e^ε``, so their maximum is convex
    with a kink only where two cross. An interval whose midpoint (in ``t``) lies below the chord
    has one; it is placed where the end segments' lines meet (one-sided slopes), and the check
    repeats. Missed kinks only make the connect-the-dots curve a little more pessimistic.
    """
    pts = np.union1d(points, [0.0])  # a shift and its mirror cross at ε = 0
    for _ in range(12):
        pts = pts[np.append(np.diff(pts) > 1e-9, True)]  # merge near-equal points
        if pts.size < 2:
            break
        a, w = pts[:-1], np.minimum(np.diff(pts), 700.0)  # s = e^(ε − a) ∈ [1, e^w]
        va, vb = profile(a), profile(a + w)
        vm = profile(a + np.logaddexp(0.0, w) - math.log(2.0))
        bad = (va + vb) / 2 - vm > 1e-12
        if not np.any(bad):
            break
        a, w, va, vb = a[bad], w[bad], va[bad], vb[bad]
        end = np.exp(w)
        h = 1e-6 * (end - 1.0)
        left = (profile(a + np.log1p(h)) - va) / h  # slopes in s
        right = (vb - profile(a + np.log(end - h))) / h
        with np.errstate(divide="ignore", invalid="ignore"):
            cross = (vb - va + left - right * end) / (left - right)
        cross = np.where(np.isfinite(cross) & (cross > 1) & (cross < end), cross, (1 + end) / 2)
        pts = np.union1d(pts, a + np.log(cross))
    return pts


def privacy_loss_distribution(
    noise: Any,
    *,
    sensitivity: float | None = None,
    pessimistic: bool = True,
    discretization: float = 1e-4,
) -> Any:
    """A ``dp_accounting`` PLD of additive noise for shifts up to Δ, both directions.

    Parameters
    ----------
    noise : mapping or noise object
        One of the supported families (module docstring).
    sensitivity : float, optional
        Δ, in (0, inf); an integer for lattice noise. Default: the noise's own (or the
        description's ``reach``).
    pessimistic : bool, default True
        Round towards more privacy loss, so every δ read from the PLD or its compositions is
        an upper bound (up to dp_accounting's floating point).
    discretization : float, default 1e-4
        Spacing of the privacy-loss grid, in (0, 1].

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution

    Examples
    --------
    >>> from optmech import Geometric
    >>> from optmech.accounting import privacy_loss_distribution
    >>> pld = privacy_loss_distribution(Geometric(epsilon=1.0))
    >>> round(pld.get_epsilon_for_delta(0.0), 3)  # the largest privacy loss is ε
    1.0
    """
    pess = check_flag("pessimistic", pessimistic)
    d = check_real("discretization", discretization, low=0.0, high=1.0, low_open=True)
    if isinstance(noise, PrivacyProfile):
        if sensitivity is not None:
            raise ValueError(
                "`sensitivity` must be None for a PrivacyProfile (its points already bound the "
                f"neighbours' curve); got {sensitivity!r}."
            )
        points = np.asarray(noise.epsilons, dtype=np.float64)
        return _pld_of_curve(_profile_curve(noise), np.union1d(points, -points), pess, d)
    found = _density(noise, sensitivity)
    if found is not None:
        kind, scale, delta = found
        build = (
            pld_lib.from_laplace_mechanism if kind == "laplace" else pld_lib.from_gaussian_mechanism
        )
        return build(scale, sensitivity=delta, pessimistic_estimate=pess,
                     value_discretization_interval=d)  # fmt: skip
    lattice = _check_lattice(noise)
    if sensitivity is None:
        kw: dict[str, Any] = {"sensitivity": None}
    elif lattice:
        kw = {"sensitivity": check_int("sensitivity", sensitivity, low=1)}
    else:
        kw = {"sensitivity": check_real("sensitivity", sensitivity, low=0.0, low_open=True)}

    def curve(e: Any) -> FloatArray:
        return np.asarray(privacy_profile(noise, e, **kw))

    return _pld_of_curve(curve, _kinks(curve, profile_breakpoints(noise, **kw)), pess, d)


def _pld_of_curve(curve: Any, losses: FloatArray, pess: bool, d: float) -> Any:
    """The connect-the-dots PLD of the hockey-stick ``curve`` (linear in $e^ε$ between the
    ``losses``): its points at the multiples of ``d`` around each loss when ``pess``, else the
    losses rounded down."""
    if pess:
        grid = np.unique(np.concatenate([np.floor(losses / d), np.ceil(losses / d)]))
        grid = grid.astype(np.int64)
        # The largest curve is non-increasing: a running minimum keeps every value an upper bound.
        deltas = np.minimum.accumulate(np.asarray(curve(grid * d)))
        pmf = pld_pmf.create_pmf_pessimistic_connect_dots(d, grid, deltas)
    else:
        deltas = np.minimum.accumulate(np.asarray(curve(losses)))
        masses = _connect_dots_masses(losses, deltas)
        rounded: dict[int, float] = {}
        for key, mass in zip(np.floor(losses / d).astype(np.int64).tolist(), masses, strict=True):
            rounded[key] = rounded.get(key, 0.0) + float(mass)
        pmf = pld_pmf.create_pmf(rounded, d, float(deltas[-1]), pessimistic_estimate=False)
    return pld_lib.PrivacyLossDistribution(pmf)


def compose(
    noise: Any,
    k: int,
    epsilons: npt.ArrayLike,
    *,
    sensitivity: float | None = None,
    pessimistic: bool = True,
    discretization: float = 1e-4,
) -> float | FloatArray:
    """δ(ε) after ``k``-fold (adaptive) composition of the noise, from its PLD.

    Parameters
    ----------
    noise : mapping or noise object
        One of the supported families (module docstring).
    k : int
        Number of compositions, in [1, 10**6].
    epsilons : float or array_like
        The ε values, finite reals.
    sensitivity, pessimistic, discretization
        As in `privacy_loss_distribution`.

    Returns
    -------
    float or numpy.ndarray
        δ at each ε (pessimistic by default), plus $4(k + 64)·2^{-53}$ for the floating-point
        error of the FFT composition (measured errors stay below a tenth of it).

    Examples
    --------
    >>> from optmech import Laplace
    >>> from optmech.accounting import compose
    >>> delta = compose(Laplace(epsilon=1.0), 2, [1.0, 2.0])  # δ(ε) after two releases
    >>> bool(0 < delta[1] < delta[0]), bool(delta[1] < 1e-9)
    (True, True)

    Any mechanism's points of its curve compose too: here ten uses of a profile.

    >>> from optmech import PrivacyProfile
    >>> profile = PrivacyProfile([0.0, 0.5, 1.0], [0.39, 0.22, 0.0])
    >>> bool(compose(profile, 10, 3.0) < compose(profile, 10, 2.0) < 1)
    True
    """
    times = check_int("k", k, low=1, high=10**6)
    eps = check_real_array("epsilons", np.atleast_1d(epsilons))
    pld = privacy_loss_distribution(
        noise, sensitivity=sensitivity, pessimistic=pessimistic, discretization=discretization
    )
    composed = pld.self_compose(times) if times > 1 else pld
    out = np.asarray(composed.get_delta_for_epsilon(eps.ravel()), dtype=float)
    # dp_accounting composes by FFT (the k-th power of the transform): each output entry is
    # within about (k + log₂ n)u of exact; the allowance 4(k + 64)u covers it for n < 2^64.
    out = np.minimum(out + 4.0 * (times + 64.0) * _U, 1.0)
    return float(out[0]) if np.ndim(epsilons) == 0 else out.reshape(eps.shape)


def renyi_curve(
    noise: Any, orders: npt.ArrayLike, *, sensitivity: float | None = None
) -> FloatArray:
    """ε(α) of the noise at each order, for RDP accountants (``dp_accounting.rdp``).

    Lattice noise and `discrete_gaussian` use the
    certified `renyi_divergence` (largest over all
    shifts, both directions); Laplace and Gaussian use ``dp_accounting``'s RDP accountant. Compose
    by adding curves and convert with ``rdp_privacy_accountant.compute_epsilon(orders, k * curve,
    δ)``.

    Parameters
    ----------
    noise : mapping or noise object
        A supported family (module docstring) or ``discrete_gaussian(σ)``.
    orders : array_like
        Orders α, each in (1, inf).
    sensitivity : float, optional
        Δ, in (0, inf) (an integer for lattice noise).

    Returns
    -------
    numpy.ndarray
        One ε per order.

    Examples
    --------
    >>> from optmech import Gaussian
    >>> from optmech.accounting import renyi_curve
    >>> noise = Gaussian(epsilon=0.5, delta=1e-5)
    >>> curve = renyi_curve(noise, [2.0, 4.0])  # α Δ² / (2σ²) for Δ = 1
    >>> [round(float(e * 2 * noise.sigma**2), 6) for e in curve]
    [2.0, 4.0]
    """
    alphas = check_real_array("orders", np.atleast_1d(orders), ndim=1)
    if np.any(alphas <= 1.0):
        raise ValueError(
            f"`orders` must be finite real numbers in (1, inf); got {float(alphas.min())!r}."
        )
    found = _density(noise, sensitivity)
    if found is None:
        _check_lattice(noise)
        return np.atleast_1d(np.asarray(renyi_divergence(noise, alphas, sensitivity=sensitivity)))
    kind, scale, delta = found
    if kind == "laplace":
        event = dp_event.LaplaceDpEvent(noise_multiplier=scale / delta)
    else:
        event = dp_event.GaussianDpEvent(noise_multiplier=scale / delta)
    accountant = rdp_privacy_accountant.RdpAccountant(orders=list(alphas))
    accountant.compose(event)
    return np.asarray(accountant.rdp, dtype=float)
