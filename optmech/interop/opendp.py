"""optmech noise and count mechanisms as OpenDP measurements.

OpenDP (``opendp.prelude``) composes measurements into pipelines and accounts their privacy.
[`to_opendp`][to_opendp] wraps an optmech result as a ``Measurement`` built by OpenDP's
``make_user_measurement``:

* **function** — releases ``x + noise`` (additive noise) or a row of the mechanism (a count
  mechanism). Lattice noise and count mechanisms use optmech's exact samplers
  ([`optmech.mechanisms.exact_sampling`][optmech.mechanisms.exact_sampling]: integer arithmetic,
  no floating point).
  Continuous noise can only be sampled in floating point, which leaks through its rounding (Mironov
  2012); it is wrapped only when asked with ``float_sampling=True``.
* **privacy map** — the *certified* guarantee, never the requested one: for pure ε-DP,
  ``d_in ↦ ε·⌈d_in/Δ⌉`` (a shift of ``d_in ≤ kΔ`` is ``k`` shifts within the certified
  sensitivity ``Δ``; group privacy); for (ε, δ), ``(ε, δ)`` for ``d_in ≤ Δ`` and an error
  beyond (no group-privacy bound is claimed).

OpenDP asks for its ``contrib`` and ``honest-but-curious`` features to build a measurement from
Python callbacks: [`to_opendp`][to_opendp] enables both (the map is optmech's certificate, the
function has no side effects).

Examples
--------
>>> import optmech
>>> m = optmech.Geometric(epsilon=1.0).to_opendp()
>>> m.map(1)
1.0
>>> isinstance(m(10), int)
True
"""

from __future__ import annotations

import math
import secrets
from fractions import Fraction
from typing import Any

from optmech._validation import check_flag, describe

__all__ = ["to_opendp"]


def _opendp() -> Any:
    try:
        import opendp.prelude as dp
    except ImportError as exc:  # an optional extra
        raise ImportError("to_opendp() needs OpenDP: pip install 'optmech[opendp]'.") from exc
    dp.enable_features("contrib", "honest-but-curious")
    return dp


def _certified(noise: Any) -> tuple[float, float]:
    """``(ε, δ)`` of the law the measurement samples, at the noise's sensitivity.

    Tabulated noise (a design, or any ``LatticeNoise``) is certified from its stored numbers by
    the independent certifier ([`optmech.certify.certify_noise`][optmech.certify.certify_noise]):
    pure ε, or δ at the claimed ε for an (ε, δ) noise. Its exact sampler draws the stored
    numbers divided by their exact sum ``T`` (1 up to float rounding): ratios, hence ε, are
    unchanged, and δ is divided by ``T`` (rounded up). A closed-form lattice family is sampled
    exactly at its own law, so its theorem's guarantee (``noise.privacy``) holds as it is.
    """
    from optmech.privacy import ApproxDP

    if not callable(getattr(noise, "grid_description", None)):
        return float(noise.privacy.epsilon), float(noise.privacy.delta)
    from optmech.certify import certify_noise

    certificate = certify_noise(noise)
    if not isinstance(noise.privacy, ApproxDP):
        return float(certificate.epsilon), 0.0
    total = getattr(noise, "exact_total", None)
    delta = float(certificate.delta)
    if total is not None and delta > 0:
        scaled = Fraction(delta) / total
        delta = float(scaled)
        if Fraction(delta) < scaled:
            delta = math.nextafter(delta, math.inf)
    return float(noise.privacy.epsilon), delta


def _pure_map(epsilon: float, sensitivity: float) -> Any:
    def privacy_map(d_in: Any) -> float:
        d = float(d_in)
        if not d >= 0:
            raise ValueError(f"d_in must be a distance ≥ 0; got {d_in!r}.")
        return epsilon * math.ceil(d / sensitivity)

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


def _noise_measurement(noise: Any, float_sampling: bool) -> Any:
    dp = _opendp()
    lattice = callable(getattr(noise, "sample_exact", None))
    if not lattice and not float_sampling:
        raise ValueError(
            f"{type(noise).__name__} is continuous noise: it can only be sampled in floating "
            "point, whose rounding leaks (Mironov 2012). Pass float_sampling=True to wrap it "
            "anyway, or design lattice noise (design_noise(..., integer=True))."
        )
    epsilon, delta = _certified(noise)
    sensitivity = float(noise.sensitivity)
    system = secrets.SystemRandom()
    if lattice:
        space = (dp.atom_domain(T="i64"), dp.absolute_distance(T="i64"))

        def release(x: int) -> int:
            return int(x) + int(noise.sample_exact(rng=system))

        kind: Any = "i64"
    else:
        space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))

        def release(x: float) -> float:
            return float(x) + float(noise.rvs())

        kind = float
    if delta == 0.0:
        measure, privacy_map = dp.max_divergence(), _pure_map(epsilon, sensitivity)
    else:
        measure = dp.approximate(dp.max_divergence())
        privacy_map = _approx_map(epsilon, delta, sensitivity)
    return dp.m.make_user_measurement(*space, measure, release, privacy_map, TO=kind)


def _mechanism_measurement(user: Any) -> Any:
    from optmech.graphs import is_path_graph

    if not (is_path_graph(user.setting.graph) and user.setting.is_count_query):
        raise ValueError(
            "to_opendp() wraps count-query mechanisms (the path graph, outputs 0..n): OpenDP's "
            "absolute distance between answers is then the neighbour relation."
        )
    dp = _opendp()
    system = secrets.SystemRandom()
    n = user.mechanism.shape[0] - 1

    def release(x: int) -> int:
        if not 0 <= int(x) <= n:
            raise ValueError(f"the count must be in 0..{n}; got {x!r}.")
        return int(user.sample(int(x), rng=system))

    return dp.m.make_user_measurement(
        dp.atom_domain(T="i64"),
        dp.absolute_distance(T="i64"),
        dp.max_divergence(),
        release,
        _pure_map(user.sampled_epsilon(), 1.0),
        TO="i64",
    )


def to_opendp(obj: Any, *, float_sampling: bool = False) -> Any:
    """An OpenDP ``Measurement`` releasing with ``obj`` (module docstring).

    Parameters
    ----------
    obj : NoiseDistribution or UserMechanism
        Additive noise (closed-form or designed), or a count mechanism of a user LP.
    float_sampling : bool
        Allow continuous noise, sampled in floating point (see the module docstring).

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
    """
    float_sampling = check_flag("float_sampling", float_sampling)
    from optmech.lp.user.result import UserMechanism
    from optmech.mechanisms.base import NoiseDistribution

    if isinstance(obj, UserMechanism):
        return _mechanism_measurement(obj)
    if isinstance(obj, NoiseDistribution):
        return _noise_measurement(obj, float_sampling)
    raise TypeError(f"`obj` must be an optmech noise or a UserMechanism; got {describe(obj)}.")
