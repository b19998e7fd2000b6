"""optmech noise and count mechanisms as OpenDP measurements.

OpenDP (``opendp.prelude``) composes measurements into pipelines and accounts their privacy.
`to_opendp` wraps an optmech result as a ``Measurement`` built by OpenDP's
``make_user_measurement``:

* **function** — releases ``x + noise`` (additive noise) or a row of the mechanism (a count
  mechanism). Lattice noise and count mechanisms use optmech's exact samplers
  (`optmech.mechanisms.exact_sampling`: integer arithmetic,
  no floating point).
  Continuous noise can only be sampled in floating point, which leaks through its rounding (Mironov
  2012); it is wrapped only when asked with ``float_sampling=True``.
* **privacy map** — the *certified* guarantee, never the requested one: for pure ε-DP,
  ``d_in ↦ ε·⌈d_in/Δ⌉`` (a shift of ``d_in ≤ kΔ`` is ``k`` shifts within the certified
  sensitivity ``Δ``; group privacy); for (ε, δ), ``(ε, δ)`` for ``d_in ≤ Δ`` and an error
  beyond (no group-privacy bound is claimed); for ρ-zCDP, OpenDP's
  ``zero_concentrated_divergence`` with ``d_in ↦ ρ·⌈d_in/Δ⌉²`` (the group privacy of zCDP,
  Bun & Steinke 2016). Guarantees OpenDP has no measure for here (μ-GDP, Rényi DP at given
  orders, a privacy profile) become an approximate-DP measurement at the certified profile:
  the map is ``(ε, δ)`` for ``d_in ≤ Δ``, with ``δ`` the ``delta`` asked for (default: a
  profile's smallest positive δ_j, else ``DEFAULT_DELTA``) and ``ε`` the least ε
  at which the certified profile of the noise
  (`privacy_profile`) is at most ``δ``, found on a
  grid to about 1e-6 of its range and rounded up.

The measurement is built from the object's self-description
(`PrivacySource`): its kind, samplers and claim.
The families' ``to_opendp()`` methods reach this function through the registry of
``optmech._bridges`` (this module registers it on import), so they return the same measurement.

OpenDP asks for its ``contrib`` and ``honest-but-curious`` features to build a measurement from
Python callbacks: `to_opendp` enables both (the map is optmech's certificate, the
function has no side effects).

Examples
--------
>>> import optmech
>>> m = optmech.Geometric(epsilon=1.0).to_opendp()
>>> m.map(1)
1.0
>>> to_opendp(optmech.Geometric(epsilon=1.0)).map(2)
2.0
>>> isinstance(m(10), int)
True
"""

from __future__ import annotations

import math
import secrets
from fractions import Fraction
from typing import Any

import numpy as np

from optmech._bridges import register
from optmech._validation import check_flag, check_real, describe
from optmech.certify.noise_certificate import certify_noise
from optmech.certify.profiles import privacy_profile
from optmech.mechanisms.description import PrivacySource, SourceKind, source_of
from optmech.privacy import ZCDP, ApproxDP, PrivacyProfile, PureDP

__all__ = ["DEFAULT_DELTA", "to_opendp"]

#: The δ of the approximate-DP measurement of a μ-GDP or Rényi-DP noise, unless asked otherwise.
DEFAULT_DELTA = 1e-6

_ONE_D = (
    SourceKind.LAPLACE,
    SourceKind.GAUSSIAN,
    SourceKind.PIECEWISE,
    SourceKind.GRID,
    SourceKind.THEOREM,
)


def _opendp() -> Any:
    try:
        import opendp.prelude as dp
    except ImportError as exc:  # an optional extra
        raise ImportError("to_opendp() needs OpenDP: pip install 'optmech[opendp]'.") from exc
    dp.enable_features("contrib", "honest-but-curious")
    return dp


def _scaled_delta(noise: Any, delta: float) -> float:
    """δ of the law the exact sampler draws: the stored numbers divided by their exact sum
    ``T`` (1 up to float rounding), so δ/T, rounded up."""
    total = getattr(noise, "exact_total", None)
    if total is None or delta == 0:
        return delta
    scaled = Fraction(delta) / total
    out = float(scaled)
    return math.nextafter(out, math.inf) if Fraction(out) < scaled else out


def _epsilon_at(noise: Any, delta: float) -> float:
    """The least ε (to about 1e-6 of the search range, rounded up) whose certified δ(ε) is at
    most ``delta``: the profile is non-increasing, and each grid value is certified."""

    def profile(eps: Any) -> Any:
        return np.asarray(privacy_profile(noise, eps), dtype=float)

    if float(profile(0.0)) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while float(profile(hi)) > delta:
        lo, hi = hi, 2.0 * hi
        if hi > 2.0**14:
            raise ValueError(
                f"no ε up to {2.0**14:g} has a certified δ(ε) ≤ {delta:g}: the noise is not "
                f"(ε, {delta:g})-DP (e.g. a finite support); pass a larger `delta`."
            )
    for _ in range(4):
        grid = np.linspace(lo, hi, 33)
        k = int(np.argmax(profile(grid) <= delta))  # the first grid point that passes
        lo, hi = float(grid[k - 1]), float(grid[k])
    return hi


def _certified(noise: Any, src: PrivacySource, delta: float | None) -> tuple[str, tuple]:
    """The certified guarantee of the law the measurement samples, as (measure, numbers).

    A closed form is sampled exactly at its own law: its theorem's guarantee holds as it is.
    Stored numbers are certified by
    `certify_noise` under the guarantee they claim.
    """
    claim = src.guarantee
    if not src.tabulated:
        if isinstance(claim, PureDP):
            return "pure", (claim.epsilon,)
        return "approx", (claim.epsilon, claim.delta)
    if isinstance(claim, PureDP):
        return "pure", (certify_noise(noise).epsilon,)
    if isinstance(claim, ApproxDP):
        found = certify_noise(noise).delta
        assert found is not None
        return "approx", (claim.epsilon, _scaled_delta(noise, float(found)))
    if isinstance(claim, ZCDP):
        return "zcdp", (float(certify_noise(noise).value),)
    if delta is None:
        positive = [d for d in getattr(claim, "deltas", ()) if d > 0]
        delta = min(positive) if isinstance(claim, PrivacyProfile) and positive else DEFAULT_DELTA
    return "approx", (_epsilon_at(noise, delta), delta)


def _pure_map(epsilon: float, sensitivity: float) -> Any:
    def privacy_map(d_in: Any) -> float:
        d = float(d_in)
        if not d >= 0:
            raise ValueError(f"d_in must be a distance ≥ 0; got {d_in!r}.")
        return epsilon * math.ceil(d / sensitivity)

    return privacy_map


def _zcdp_map(rho: float, sensitivity: float) -> Any:
    def privacy_map(d_in: Any) -> float:
        d = float(d_in)
        if not d >= 0:
            raise ValueError(f"d_in must be a distance ≥ 0; got {d_in!r}.")
        return rho * math.ceil(d / sensitivity) ** 2

    return privacy_map


def _approx_map(epsilon: float, delta: float, sensitivity: float) -> Any:
    def privacy_map(d_in: Any) -> tuple[float, float]:
        d = float(d_in)
        if not 0 <= d <= sensitivity:
            raise ValueError(
                f"(ε, δ) is certified for shifts up to the sensitivity {sensitivity:g}; got "
                f"d_in = {d_in!r}."
            )
        return (epsilon, delta) if d > 0 else (0.0, 0.0)

    return privacy_map


def _measure(dp: Any, kind: str, numbers: tuple, sensitivity: float) -> tuple[Any, Any]:
    if kind == "pure":
        return dp.max_divergence(), _pure_map(numbers[0], sensitivity)
    if kind == "zcdp":
        return dp.zero_concentrated_divergence(), _zcdp_map(numbers[0], sensitivity)
    epsilon, delta = numbers
    if delta == 0.0:
        return dp.max_divergence(), _pure_map(epsilon, sensitivity)
    return dp.approximate(dp.max_divergence()), _approx_map(epsilon, delta, sensitivity)


def _noise_measurement(noise: Any, src: PrivacySource, float_sampling: bool, delta: Any) -> Any:
    dp = _opendp()
    exact = src.sample_exact
    if exact is None and not float_sampling:
        raise ValueError(
            f"{src.family} is continuous noise: it can only be sampled in floating "
            "point, whose rounding leaks (Mironov 2012). Pass float_sampling=True to wrap it "
            "anyway, or design lattice noise (design_noise(..., integer=True))."
        )
    kind, numbers = _certified(noise, src, delta)
    system = secrets.SystemRandom()
    release: Any
    out: Any
    if exact is not None:
        space = (dp.atom_domain(T="i64"), dp.absolute_distance(T="i64"))

        def release_int(x: int) -> int:
            return int(x) + int(exact(rng=system))

        release, out = release_int, "i64"
    else:
        space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
        draw = src.sample_float
        assert draw is not None

        def release_float(x: float) -> float:
            return float(x) + float(draw())

        release, out = release_float, float
    measure, privacy_map = _measure(dp, kind, numbers, src.sensitivity)
    return dp.m.make_user_measurement(*space, measure, release, privacy_map, TO=out)


def _mechanism_measurement(src: PrivacySource) -> Any:
    matrix = src.matrix
    assert matrix is not None
    if not matrix.count_query:
        raise ValueError(
            "to_opendp() wraps count-query mechanisms (the path graph, outputs 0..n): OpenDP's "
            "absolute distance between answers is then the neighbour relation."
        )
    dp = _opendp()
    system = secrets.SystemRandom()
    n = matrix.mechanism.shape[0] - 1

    def release(x: int) -> int:
        if not 0 <= int(x) <= n:
            raise ValueError(f"the count must be in 0..{n}; got {x!r}.")
        return int(matrix.sample(int(x), system))

    return dp.m.make_user_measurement(
        dp.atom_domain(T="i64"),
        dp.absolute_distance(T="i64"),
        dp.max_divergence(),
        release,
        _pure_map(matrix.sampled_epsilon(), 1.0),
        TO="i64",
    )


def to_opendp(obj: Any, *, float_sampling: bool = False, delta: float | None = None) -> Any:
    """An OpenDP ``Measurement`` releasing with ``obj`` (module docstring).

    Parameters
    ----------
    obj : noise or mechanism result
        Anything that describes itself (``privacy_source()``): 1-D additive noise (closed-form
        or designed, under any guarantee), or a count mechanism of a user LP.
    float_sampling : bool
        Allow continuous noise, sampled in floating point (see the module docstring).
    delta : float, optional
        The δ of the approximate-DP measurement of a μ-GDP, Rényi-DP or profile noise, in
        (0, 1) (module docstring); ignored otherwise.

    Returns
    -------
    opendp.mod.Measurement
        ``m(x)`` releases; ``m.map(d_in)`` is the certified guarantee.

    Raises
    ------
    ImportError
        OpenDP is not installed (``pip install 'optmech[opendp]'``).
    ValueError
        Continuous noise without ``float_sampling=True``, or a mechanism that is not a count
        query's.
    TypeError
        An object that does not describe itself, or noise in more than one dimension.

    Examples
    --------
    >>> import optmech
    >>> from optmech.interop import to_opendp
    >>> meas = to_opendp(optmech.Geometric(epsilon=1.0))  # an OpenDP Measurement on integers
    >>> meas.map(1)  # its privacy map: the certified ε for a d_in of 1
    1.0
    >>> isinstance(meas(10), int)
    True
    """
    float_sampling = check_flag("float_sampling", float_sampling)
    if delta is not None:
        delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    src = source_of(obj)
    if src is not None and src.kind == SourceKind.MATRIX:
        return _mechanism_measurement(src)
    if src is not None and src.kind in _ONE_D and src.dimension == 1:
        return _noise_measurement(obj, src, float_sampling, delta)
    raise TypeError(
        "`obj` must be an optmech noise on the line or a UserMechanism (an object whose "
        f"privacy_source() describes it); got {describe(obj)}."
    )


register("to_opendp", to_opendp)
