"""One round of a design beyond (ε, δ): its constraints at the cut points, and the certificate
of its noise over the continuum.

The rows of `optmech.lp.additive.beyond` (its module docstring describes the method) at a
round's `Cuts`: the privacy profile's hockey-stick rows, the Gaussian DP rows at the cut ε
(Dong, Roth & Su 2022, Corollary 2.13), and the Rényi cones at the cut orders for Rényi DP
(Mironov 2017) and zCDP (Bun & Steinke 2016). A round's noise is then certified over every order
/ ε (`optmech.certify.profiles`), and the points where it is most violated are the next round's
cuts (Kelley 1960).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from optmech._floats import FloatArray
from optmech.certify.profiles import (
    certified_mu,
    certify_rho,
    check_guarantee,
    privacy_profile,
    profile_breakpoints,
    pure_epsilon,
    renyi_divergence,
)
from optmech.lp.additive.designed import BeyondCertificate
from optmech.lp.additive.divergences import RenyiCones, hockey_rows, monotone_block, pure_block
from optmech.lp.additive.grid import AdditiveGrid
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.additive.pairs import pair_maps
from optmech.lp.additive.repair import slack
from optmech.lp.additive.rows import AuxMap, RowBlock, RowRecord
from optmech.lp.additive.spec import GDP_CAP_DELTA
from optmech.lp.solve import SolveInfo
from optmech.mechanisms.description import GridDescription
from optmech.privacy import ZCDP, GaussianDP, RenyiDP, gaussian_dp_delta
from optmech.provenance import Repair

__all__ = ["CAP_DELTA", "Cuts"]

#: GDP designs cap every privacy loss at the ε where ``δ_μ(ε)`` is this small (pure rows
#: there): the profile is then 0 beyond, the LP's point has no zero facing a positive mass,
#: and the cap binds only where the masses involved are below it.
CAP_DELTA = GDP_CAP_DELTA
#: Relative accuracy of the certified ρ and μ reported.
CERT_RTOL = 1e-7
#: New cut points per round, at most.
NEW_PER_ROUND = 12


@dataclass(frozen=True)
class Cuts:
    """One round's problem: the cut points (orders for zCDP, ε for GDP), the margin, and the
    tangent point of the near-one Rényi rows (the value variables of the last round's noise;
    `RenyiCones`)."""

    points: tuple[float, ...] = ()
    margin: float = 0.0
    tangent: FloatArray | None = dataclasses.field(default=None, compare=False)

    def constraints(
        self, grid: AdditiveGrid, expand: sp.csr_matrix, spec: Any
    ) -> tuple[RowRecord, AuxMap, str, RenyiCones | None]:
        """This round's rows, auxiliaries, form name and cones, for `build_additive_lp`: the
        target tightened by `margin` (ρ, ε(α), δ_μ(ε) and δ_j times ``1 − margin``)."""
        keep = 1.0 - self.margin
        pairs = pair_maps(grid.n, grid.period, spec.tail_ratio, expand, reduced=spec.reduced)
        head: list[RowBlock] = []
        if spec.monotone:
            head.append(monotone_block(grid.index, grid.integer, spec.reduced, expand))
        g = spec.privacy
        if isinstance(g, ZCDP | RenyiDP):
            if isinstance(g, ZCDP):
                orders, rho = np.asarray(self.points, dtype=float), g.rho * keep
                budgets = (orders - 1.0) * rho * orders
                cones = RenyiCones(pairs, orders, budgets, kl=rho)
            else:
                orders = np.asarray(g.orders, dtype=float)
                budgets = (orders - 1.0) * np.asarray(g.epsilons) * keep
                cones = RenyiCones(pairs, orders, budgets, tangent=self.tangent, near_one_form=True)
            return RowRecord(tuple(head)), AuxMap(), "cones", cones
        if isinstance(g, GaussianDP):
            points = [(e, float(gaussian_dp_delta(g.mu, e)) * keep) for e in self.points]
            head.append(pure_block(pairs, g.to_approx(CAP_DELTA).epsilon))
        else:
            points = [(e, d * keep) for e, d in zip(g.epsilons, g.deltas, strict=True) if 0 < d < 1]
            if spec.tail_epsilon is not None:  # δ = 0 from some point on: pure rows there
                eps = spec.tail_epsilon
                head.append(pure_block(pairs, eps - slack(eps, np.ones(1))))
        rows, aux = hockey_rows(
            pairs, points, n_values=expand.shape[1], atom=bool(spec.atom), head=head
        )
        return rows, aux, "hockey", None


class _Check(NamedTuple):
    holds: bool
    number: float  # the certified ρ or μ (nan for profiles and Rényi DP)
    new: tuple[float, ...]  # violated points to cut
    beyond: BeyondCertificate


class _Round(NamedTuple):
    """A round: its LP, solve, noise keywords and family, certificate, cuts and repair."""

    lp: AdditiveLP
    info: SolveInfo
    kwargs: dict[str, Any]
    family: type
    check: _Check
    cuts: Cuts
    fix: Repair = Repair()
    source: str = "solver"


def _description(noise: Any, period: int) -> GridDescription:
    """The noise's masses and tails with the reach ``m`` cells (exact on ℤ; on a uniform grid
    ``Δ/h ≤ m`` and every divergence is linear between whole-cell shifts, so ``m`` is safe)."""
    return noise.grid_description().with_reach(period)


def _local_maxima(x: FloatArray, score: FloatArray, above: float) -> tuple[float, ...]:
    """Up to `NEW_PER_ROUND` points of ``x`` where ``score`` has a local maximum above
    ``above``, the largest first."""
    padded = np.concatenate([[-np.inf], score, [-np.inf]])
    peak = (score >= padded[:-2]) & (score >= padded[2:]) & (score > above)
    idx = np.flatnonzero(peak)
    idx = idx[np.argsort(-score[idx])][:NEW_PER_ROUND]
    return tuple(float(v) for v in x[idx])


def _check_zcdp(g: ZCDP, desc: GridDescription, cuts: Cuts) -> _Check:
    cert = certify_rho(desc, rtol=CERT_RTOL)
    orders = list(cuts.points)
    renyi = tuple(zip(orders, np.atleast_1d(renyi_divergence(desc, orders)).tolist(), strict=True))
    holds = cert.value <= g.rho
    new: tuple[float, ...] = ()
    if not holds and math.isfinite(cert.value):
        top = max(8.0, 2.0 * pure_epsilon(desc) / g.rho)
        alphas = 1.0 + np.geomspace(2e-2, top, 240)
        ratio = np.asarray(renyi_divergence(desc, alphas)) / alphas
        new = _local_maxima(alphas, ratio, g.rho * (1.0 - cuts.margin))
        new = tuple(a for a in new if all(abs(a / b - 1.0) > 1e-3 for b in orders))
    return _Check(holds, cert.value, new, BeyondCertificate(rho=cert.value, renyi=renyi))


def _loss_grid(desc: GridDescription, g: GaussianDP) -> FloatArray:
    """512 ε from 0 to the noise's pure ε (the cap's ε if infinite) and its breakpoints there."""
    top = pure_epsilon(desc)
    top = top if math.isfinite(top) else g.to_approx(CAP_DELTA).epsilon
    kinks = profile_breakpoints(desc)
    grid = np.linspace(0.0, top, 512)
    return np.unique(np.concatenate([grid, kinks[(kinks >= 0) & (kinks <= top)]]))


def _check_gdp(g: GaussianDP, desc: GridDescription, cuts: Cuts) -> _Check:
    holds = bool(check_guarantee(desc, g, rtol=0.0))
    mu = float(certified_mu(desc, rtol=CERT_RTOL))
    mu = min(mu, g.mu) if holds else mu  # the continuum check passed at μ itself
    eps = np.linspace(0.0, g.to_approx(1e-10).epsilon, 8)  # a summary; the check is above
    profile = tuple(
        zip(eps.tolist(), np.atleast_1d(privacy_profile(desc, eps)).tolist(), strict=True)
    )
    new: tuple[float, ...] = ()
    if not holds and math.isfinite(mu):
        grid = _loss_grid(desc, g)
        d = np.asarray(privacy_profile(desc, grid))
        bound = np.asarray(gaussian_dp_delta(g.mu, grid)) * (1.0 - cuts.margin)
        with np.errstate(divide="ignore"):
            score = np.where(d > 0, np.log(d) - np.log(np.maximum(bound, 1e-300)), -np.inf)
        new = _local_maxima(grid, score, 0.0)
        new = tuple(e for e in new if all(abs(e - c) > 1e-9 * (1 + c) for c in cuts.points))
    return _Check(holds, mu, new, BeyondCertificate(mu=mu, profile=profile))


def _check(spec: Any, noise: Any, cuts: Cuts) -> _Check:
    """Certify a noise for the spec's guarantee (and find violated points to cut)."""
    desc = _description(noise, spec.resolution)
    g = spec.privacy
    if isinstance(g, ZCDP):
        return _check_zcdp(g, desc, cuts)
    if isinstance(g, GaussianDP):
        return _check_gdp(g, desc, cuts)
    if isinstance(g, RenyiDP):
        got = np.atleast_1d(renyi_divergence(desc, list(g.orders))).tolist()
        holds = all(d <= e for d, e in zip(got, g.epsilons, strict=True))
        beyond = BeyondCertificate(renyi=tuple(zip(g.orders, got, strict=True)))
        return _Check(holds, math.nan, (), beyond)
    got = np.atleast_1d(privacy_profile(desc, list(g.epsilons))).tolist()
    holds = all(d <= t for d, t in zip(got, g.deltas, strict=True) if t > 0)
    if spec.tail_epsilon is not None:  # δ = 0 points: the pure ε, to 1e-9 as for ε-DP designs
        holds = holds and pure_epsilon(desc) <= spec.tail_epsilon * (1.0 + 1e-9)
    beyond = BeyondCertificate(profile=tuple(zip(g.epsilons, got, strict=True)))
    return _Check(holds, math.nan, (), beyond)
