"""(ε, δ) designs that weigh the ε-DP design too.

Every ε-DP noise is (ε, δ)-DP for every δ ≥ 0, so the ε-DP design is a candidate for any
(ε, δ) request. Two things make it worth weighing:

* **Tiny δ.** Below ``DELTA_MIN`` of `optmech.lp.additive.spec`
  the hockey-stick rows weigh densities beneath the solvers' tolerances and no solver resolves
  the LP. The optimum is non-increasing in δ, so the LP at ``δ' = DELTA_MIN`` still bounds it
  from below on the same grid, but its point is not private at δ: the ε-DP design is
  returned. As δ → 0 the (ε, δ) optimum tends to the ε-DP one (the staircase of Geng &
  Viswanath 2016), so the interval stays narrow where the LP at δ' resolves its grid.
* **Large ε.** The (ε, δ) LP's default grid (20 cells per Δ) cannot resolve the staircase's
  top step (``γ*Δ`` with ``γ* → e^(−ε/2)``), while the ε-DP designer sizes its cells from that
  step (``20(1 + e^(ε/2))`` per Δ, graded beyond 400). At ε = 5, δ = 1e-11 the (ε, δ) design
  costs 10% (|x|) to 97% (x²) more than the ε-DP design.

`design_approx` designs both (with the grid's defaults: a caller who names
``resolution`` or ``periods`` gets the (ε, δ) LP of that grid alone, unless δ is tiny) and
returns the cheaper certified noise. When the ε-DP design is returned its record says so
(``source = "pure"``), its δ is certified at the requested ε, and its interval's lower bound is
the smaller of the two LPs' lower bounds: the interval then contains the optimum over both
grids' noises. That δ is certified in rational arithmetic: the ε-DP design's window lies
strictly inside ε, so it is exactly 0, and any δ > 0 is served.
"""

from __future__ import annotations

import dataclasses
import logging
import warnings
from collections.abc import Callable
from typing import Any

import optmech.lp.additive.spec as _spec
from optmech.certify.noise_certificate import certify_noise
from optmech.exceptions import OptmechError, PrivacyViolationError, SolverError
from optmech.lp.additive.designed import DesignedNoise
from optmech.lp.additive.designer import design_additive
from optmech.lp.additive.spec import AdditiveSpec
from optmech.lp.engine.run import DesignRun
from optmech.privacy import ApproxDP, PureDP

__all__ = ["design_approx", "solvable_privacy", "weighs_pure"]

_log = logging.getLogger(__name__)


def weighs_pure(privacy: Any, options: dict[str, Any], constrained: bool) -> bool:
    """Whether a 1-D ``design_noise`` call for ``privacy`` weighs the ε-DP design: (ε, δ) with
    ε, δ > 0 and no constraints of the caller's, and either δ below ``DELTA_MIN`` of
    `optmech.lp.additive.spec` (read at each call) or the grid
    left to its defaults (neither ``resolution`` nor ``periods`` given)."""
    if type(privacy) is not ApproxDP or constrained:
        return False
    if not (privacy.epsilon > 0.0 and privacy.delta > 0.0):
        return False
    defaulted = all(options.get(name) is None for name in ("resolution", "periods"))
    return privacy.delta < _spec.DELTA_MIN or defaulted


def solvable_privacy(privacy: ApproxDP) -> ApproxDP:
    """The (ε, δ') whose LP is solved for ``privacy``: ``δ' = max(δ, DELTA_MIN)``.

    Examples
    --------
    >>> from optmech.privacy import ApproxDP
    >>> solvable_privacy(ApproxDP(1.0, 1e-300))
    ApproxDP(epsilon=1.0, delta=1e-11)
    """
    if privacy.delta >= _spec.DELTA_MIN:
        return privacy
    return ApproxDP(privacy.epsilon, _spec.DELTA_MIN)


def _solved_privacy(spec: AdditiveSpec) -> ApproxDP:
    """The (ε, δ') of a spec of this module: every spec it is given is (ε, δ')."""
    privacy = spec.privacy
    assert isinstance(privacy, ApproxDP)
    return privacy


def _pure_spec(spec: AdditiveSpec) -> AdditiveSpec:
    """The ε-DP spec of the same query and cost, with the ε-DP designer's default grid."""
    return AdditiveSpec(
        PureDP(_solved_privacy(spec).epsilon),
        spec.sensitivity,
        spec.cost,
        integer=spec.integer,
        symmetric=spec.symmetric,
        monotone=spec.monotone,
        reduce_symmetric=spec.reduce_symmetric,
        max_memory_gb=spec.max_memory_gb,
    )


def _designed(spec: AdditiveSpec, run: DesignRun) -> tuple[DesignedNoise, list[Any]]:
    """A design and the warnings it raised (re-issued only if it is the one returned)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noise = design_additive(spec, run)
    return noise, list(caught)


def _reissue(caught: list[Any]) -> None:
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


#: The δ' tried, in turn, for the lower bound of a tiny δ when the LP at ``DELTA_MIN`` fails
#: (as on ℤ, where its hockey-stick rows are harder to resolve): each bounds the optimum at δ
#: from below, more loosely the larger it is.
BOUND_DELTAS = (1e-9, 1e-7)


def _bounding_design(
    spec: AdditiveSpec, run: DesignRun, respec: Callable[[ApproxDP], AdditiveSpec]
) -> tuple[DesignedNoise, list[Any]]:
    """The (ε, δ') design of a tiny δ, at the first δ' (`DELTA_MIN`, then `BOUND_DELTAS`)
    whose LP solves."""
    epsilon = _solved_privacy(spec).epsilon
    try:
        return _designed(spec, run)
    except SolverError as first:
        failure = first
    for delta in BOUND_DELTAS:
        _log.info("the (ε, δ') LP failed (%s); its lower bound is taken at δ' = %g", failure, delta)
        try:
            return _designed(respec(ApproxDP(epsilon, delta)), run)
        except SolverError as exc:
            failure = exc
    raise failure


def design_approx(
    spec: AdditiveSpec,
    run: DesignRun,
    requested: ApproxDP,
    respec: Callable[[ApproxDP], AdditiveSpec],
) -> DesignedNoise:
    """The cheaper of the (ε, δ) design of ``spec`` (validated at ``δ' =`` `solvable_privacy`
    ``(requested).delta``) and the ε-DP design, certified for ``requested`` (module docstring).
    ``respec`` gives the spec of the same call at another (ε, δ'): for a tiny δ whose LP at
    ``DELTA_MIN`` fails, the lower bound is taken at the next of `BOUND_DELTAS` that solves.

    Raises
    ------
    SolverError
        The (ε, δ') LP failed (for a tiny δ: at every δ' tried), or, for a tiny δ, the ε-DP
        design failed (for a larger δ its failure leaves the (ε, δ) design to be returned).
    PrivacyViolationError
        δ is below ``DELTA_MIN`` and the ε-DP design does not certify (ε, δ) at the requested ε.
    """
    tiny = requested.delta < _solved_privacy(spec).delta
    if tiny:
        approx, approx_warnings = _bounding_design(spec, run, respec)
    else:
        approx, approx_warnings = _designed(spec, run)
    try:
        pure, pure_warnings = _designed(_pure_spec(spec), run)
    except OptmechError as exc:
        if tiny:
            raise
        _log.info("the ε-DP candidate failed (%s): the (ε, δ) design is returned", exc)
        _reissue(approx_warnings)
        return approx
    if not tiny and approx.value <= pure.value:
        _reissue(approx_warnings)
        return approx
    # In rational arithmetic: the ε-DP design's window is strictly inside ε, so its δ at ε is
    # exactly 0, where a float certificate rounds outward to about 1e-14.
    certificate = certify_noise(pure, epsilon=requested.epsilon, guarantee=requested, exact=True)
    if not certificate.holds or certificate.delta is None:
        if not tiny:
            _reissue(approx_warnings)
            return approx
        raise PrivacyViolationError(
            f"the ε-DP design is not {requested}: certified δ = {certificate.delta} at "
            f"ε = {requested.epsilon:g}."
        )
    _log.info(
        "the ε-DP design (value %.10g) answers %s: the (ε, %g) design costs %.10g",
        pure.value,
        requested,
        approx.record.privacy.delta,
        approx.value,
    )
    _reissue(pure_warnings)
    prov = pure.provenance
    provenance = dataclasses.replace(
        prov,
        lower_bound=min(prov.lower_bound, approx.provenance.lower_bound),
        total_time=prov.total_time + approx.provenance.total_time,
    )
    record = dataclasses.replace(
        pure.record, provenance=provenance, certified_delta=float(certificate.delta), source="pure"
    )
    return pure._with_record(record)
