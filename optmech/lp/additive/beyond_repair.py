"""The repair of a noise designed beyond (ε, δ) whose certificate fails, and its references.

The noise is mixed with a reference that meets the guarantee with room to spare and has the same
tails — GDP: the cheapest of several wider grid Gaussians (`optmech.lp.additive.gdp_reference`),
else the grid Gaussian if it certifies; else the geometric noise of the tails' ratio (the grid
Laplace on a finite support) — with the least weight found by bisection on the certificate
(every guarantee here is a jointly convex divergence, so mixing helps). For GDP the grid
Gaussian is also a candidate of its own, and ends the rounds when a round's lower bound shows no
noise on the grid beats it by more than the accuracy asked.

Also the certified interval of the returned noise (`_interval`; derived in
`optmech.lp.additive.beyond`).
"""

from __future__ import annotations

import dataclasses
import logging
import math
from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from optmech.certify.profiles import check_guarantee
from optmech.exceptions import PrivacyViolationError
from optmech.lp.additive.beyond_cuts import _Check, _check, _description, _Round
from optmech.lp.additive.cone_bound import cone_bound
from optmech.lp.additive.designer import grid_point
from optmech.lp.additive.divergences import pure_block
from optmech.lp.additive.gdp_reference import WiderMixture, cheapest_wider_mixture, grid_gaussian
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.additive.pairs import pair_maps
from optmech.lp.additive.repair import raise_inside
from optmech.lp.additive.rows import RowRecord
from optmech.lp.engine.interval import lp_interval
from optmech.lp.engine.mixing import MixingSearch, least_mixture
from optmech.privacy import GaussianDP, PrivacyProfile
from optmech.provenance import Repair, RepairKind

__all__: list[str] = []

_log = logging.getLogger(__name__)


def _reference(lp: AdditiveLP) -> dict[str, Any]:
    """The mixing reference: the geometric noise of the tails' ratio per period (pure
    ``tail_epsilon``-DP, so half the guarantee); on a finite support the grid Laplace at the
    profile's smallest ε, with no tails."""
    grid, ratio = lp.grid, lp.tail_ratio
    pos = grid.index + (0.0 if grid.integer else 0.5)
    if ratio > 0:
        full = np.exp(math.log(ratio) * np.abs(pos) / grid.period)
    else:
        eps = max(min(cast(PrivacyProfile, lp.privacy).epsilons), 1e-3)  # finite: a profile
        full = np.exp(-eps * np.abs(pos) / grid.period)
    return lp.noise_parts(full, 0.0)[1]


def _gaussian_reference(spec: Any, rnd: _Round) -> dict[str, Any] | None:
    """GDP: the Gaussian ``N(0, Δ²/μ²)`` on the grid (`grid_gaussian`) when it
    certifies (on ℤ the rounded Gaussian, μ-GDP by post-processing; on a grid within an
    allowance), else None: a candidate of its own, and the mixing reference of last resort."""
    if not isinstance(spec.privacy, GaussianDP):
        return None
    kwargs = grid_gaussian(lp := rnd.lp, rnd.lp.grid.sensitivity / spec.privacy.mu)
    if _check(spec, rnd.family(**kwargs), rnd.cuts).holds:
        return kwargs
    try:  # it touches δ_μ (at ε = 0 on ℤ): a hair of the geometric noise moves it inside
        geometric = _reference(lp)
        return _repair(spec, rnd._replace(kwargs=kwargs), largest=1e-3, reference=geometric)[0]
    except PrivacyViolationError:
        return None


def _reference_stop(spec: Any, rnd: _Round, accuracy: float) -> tuple[_Round | None, float]:
    """GDP: the round with the Gaussian reference (`_gaussian_reference`)
    as its noise when the reference certifies and its value is within ``accuracy`` (relative) of
    the round's lower bound — the Lagrangian bound of the LP at the cuts, a relaxation of the
    continuum, so no μ-GDP noise on this grid costs less than it; further rounds could not
    gain more than ``accuracy``; None otherwise. And the gap ``value − lower`` (nan without a
    certified reference, and for other guarantees)."""
    reference = _gaussian_reference(spec, rnd) if isinstance(spec.privacy, GaussianDP) else None
    if reference is None:
        return None, math.nan
    lower, value = _interval(spec, rnd, reference, accuracy)
    _log.info("GDP round: lower bound %.10g, Gaussian reference %.10g", lower, value)
    if not value <= lower + accuracy * abs(value):
        return None, value - lower
    chk = _check(spec, rnd.family(**reference), rnd.cuts)
    return rnd._replace(kwargs=reference, check=chk, fix=Repair(), source="reference"), 0.0


def _wider_mixture(spec: Any, rnd: _Round, kwargs: dict[str, Any]) -> WiderMixture | None:
    """GDP: the cheapest certified mixture of the noise ``kwargs`` with a wider Gaussian
    (`cheapest_wider_mixture`); None for other guarantees."""
    g = spec.privacy
    if not isinstance(g, GaussianDP):
        return None
    return cheapest_wider_mixture(
        rnd.lp,
        g.mu,
        kwargs,
        certifies=lambda kw: bool(
            check_guarantee(_description(rnd.family(**kw), rnd.lp.grid.period), g, rtol=0.0)
        ),
        value=lambda kw: _interval(spec, rnd, kw, math.inf)[1],
        mix=_mix,
    )


def _mix(a: dict[str, Any], b: dict[str, Any], lam: float) -> dict[str, Any]:
    out = dict(a)
    key = "pmf" if "pmf" in a else "densities"
    out[key] = (1.0 - lam) * np.asarray(a[key]) + lam * np.asarray(b[key])
    for side in ("left_tail", "right_tail"):
        (base_a, ratio), (base_b, _) = a[side], b[side]
        out[side] = ((1.0 - lam) * np.asarray(base_a) + lam * np.asarray(base_b), ratio)
    if "atom" in a:
        out["atom"] = (1.0 - lam) * a["atom"]
    return out


def _repair(
    spec: Any, rnd: _Round, largest: float = 1.0, reference: dict[str, Any] | None = None
) -> tuple[dict[str, Any], _Check, Repair]:
    """Mix with the reference (default for GDP a wider Gaussian, `_wider_mixture`;
    else the grid Gaussian if it certifies, else the geometric one) until the certificate holds
    (module docstring), with a weight of at most ``largest``; raise
    `PrivacyViolationError` if none certifies."""
    lp, kwargs = rnd.lp, rnd.kwargs
    if spec.tail_epsilon is not None and isinstance(spec.privacy, PrivacyProfile):
        full = lp.values_of(kwargs)
        raised = raise_inside(full, spec.tail_epsilon, lp.grid.period, lp.tail_ratio)
        kwargs = lp.noise_parts(raised, float(kwargs.get("atom", 0.0)))[1]
    wider = _wider_mixture(spec, rnd, kwargs) if reference is None and largest >= 1 else None
    if wider is not None:
        chk = _check(spec, rnd.family(**wider.kwargs), rnd.cuts)
        return wider.kwargs, chk, Repair(RepairKind.MIXTURE, weight=wider.weight)
    reference = reference or _gaussian_reference(spec, rnd) or _reference(lp)

    def certified(lam: float) -> _Check | None:
        chk = _check(spec, rnd.family(**_mix(kwargs, reference, lam)), rnd.cuts)
        return chk if chk.holds else None

    lam, chk = least_mixture(
        certified,
        1e-12,
        MixingSearch(growth=16.0, largest=largest, refine_steps=8, geometric=True),
        failure=f"the designed noise is not {spec.privacy}, and mixing it with the reference "
        f"noise (weight up to {largest:g}) did not certify either; try a finer grid, more "
        "periods or another solver.",
    )
    return _mix(kwargs, reference, lam), chk, Repair(RepairKind.MIXTURE, weight=lam)


def _interval(
    spec: Any, rnd: _Round, kwargs: dict[str, Any], accuracy: float
) -> tuple[float, float]:
    """``(lower_bound, value)`` of the returned noise (module docstring)."""
    lp = rnd.lp
    point = grid_point(lp, kwargs)[0]
    if lp.cones is not None:
        value = lp_interval(lp, point, accuracy=math.inf)[1]
        return cone_bound(lp, spec, value=value, accuracy=accuracy), value
    requested = dataclasses.replace(lp, rows=_requested_rows(spec, lp, rnd.cuts.margin))
    return lp_interval(requested, point, accuracy=accuracy)


def _requested_rows(spec: Any, lp: AdditiveLP, margin: float) -> RowRecord:
    """The LP's rows at the *requested* guarantee, for the lower bound: the sum rows read
    (terms)/(target δ) ≤ 1, at the requested δ = target/(1 − margin); a profile's pure rows
    (points with δ = 0) were written at ``ε − slack``, and are rewritten at ε. Each is a
    relaxation of the rows solved, so the solver's multipliers give a valid bound of it."""
    undo = 1.0 / (1.0 - margin)
    exact_pure = None
    if isinstance(spec.privacy, PrivacyProfile) and spec.tail_epsilon is not None:
        grid = lp.grid
        pairs = pair_maps(grid.n, grid.period, spec.tail_ratio, lp.expand, reduced=spec.reduced)
        exact_pure = pure_block(pairs, spec.tail_epsilon).a
    blocks = []
    for b in lp.rows:
        if b.name == "hockey-sum":
            b = dataclasses.replace(b, b=b.b * undo)
        elif b.name == "pure" and exact_pure is not None:
            pad = sp.csr_matrix((exact_pure.shape[0], b.a.shape[1] - exact_pure.shape[1]))
            b = dataclasses.replace(b, a=sp.hstack([exact_pure, pad], format="csr"))
        blocks.append(b)
    return RowRecord(tuple(blocks))
