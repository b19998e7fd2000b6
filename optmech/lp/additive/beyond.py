"""Design certified additive noise under zCDP, Rényi DP, Gaussian DP and privacy profiles.

The noise lives on a uniform grid or on ℤ (``m`` cells or points per Δ, ``K`` periods each
side) and continues beyond it with geometric tails
([`AdditiveSpec.tail_ratio`][AdditiveSpec.tail_ratio]); the constraints are sums over the pairs of
every shift ``1..m`` and direction ([`pairs`][optmech.lp.additive.pairs]), exact for every real
shift ``|d| ≤ Δ``:

* **privacy profile** — an LP: hockey-stick rows at each ``(ε_j, δ_j)``; a finite support when
  every ``δ_j > 0``, else the pure rows at the first ``ε_j`` with ``δ_j = 0`` and tails;
* **Gaussian DP** — ``δ(ε) ≤ δ_μ(ε)`` for every ε ≥ 0 (Dong, Roth & Su 2022, Corollary 2.13),
  by **cutting planes**: the LP at finitely many ε; the noise certified over the continuum
  ([`optmech.certify.profiles.check_guarantee`][optmech.certify.profiles.check_guarantee], exact
  tails); the ε where it is most violated (the local maxima of ``log δ(ε)/δ_μ(ε)`` on a fine grid
  and at the profile's breakpoints) join the cuts, until the certificate holds — or until a
  round's lower bound is within the accuracy of the grid Gaussian's value, which is then
  returned; the result records the Gaussian's own cost (``gaussian_cost``);
* **Rényi DP** — a conic problem (power cones, [`divergences`][optmech.lp.additive.divergences])
  at the given orders (Mironov 2017);
* **zCDP** — ``D_α ≤ ρα`` for every α > 1 (Bun & Steinke 2016) by cutting planes over the
  orders: the Kullback–Leibler bound (the limit α → 1, exponential cones) and the Rényi bound
  at the cut orders; the noise certified over every α > 1
  ([`optmech.certify.profiles.certified_rho`][optmech.certify.profiles.certified_rho]); the local
  maxima of ``D_α/α`` above the target join the cuts.

Each round solves with the target tightened by a relative ``margin`` (from 1e-5), so that the
solver's tolerance and the gaps between cuts stay inside the request; a round without new
violated points but without a certificate multiplies the margin by ten. After
`MAX_ROUNDS` rounds — or at once for profiles and Rényi DP — a noise whose certificate
still fails is **repaired** by mixing with a reference noise that meets the guarantee with room
to spare and has the same tails (GDP: the cheapest of several wider grid Gaussians,
[`optmech.lp.additive.gdp_reference`][optmech.lp.additive.gdp_reference]; else the geometric
noise of the tails' ratio; the grid Laplace on a finite support), the least weight found by
bisection on the certificate (every guarantee here is a jointly convex divergence, so mixing
helps); never is an uncertified noise returned.

**The interval.** ``value`` is the exact expected cost of the returned noise, rounded up.
``lower_bound``: for the LPs, the Lagrangian bound of
[`lp_interval`][optmech.lp.engine.interval.lp_interval] on the LP at the *requested* guarantee (the
cuts' right-hand sides undone: a relaxation of the continuum, so its bound holds for it); for
the cones, a tangent-plane bound: the constraint
functions ``g`` are convex and 1-homogeneous, so for multipliers ``λ ≥ 0`` and any point ``z̄``,
``c·z + Σλ(g(z) − 1) ≥ (c + Σλ∇g(z̄))·z − Σλ`` (Euler's identity ``∇g(z̄)·z̄ = g(z̄)``), and
its minimum over the normalised noises is read off the simplex — rounded down with the error
of every gradient entry. Either bound is of the problem on this grid, support and tail ratio
with the finitely many orders / ε solved, which the continuum only restricts further.

References
----------
Mironov, I. (2017). Rényi differential privacy. IEEE CSF.
Bun, M. & Steinke, T. (2016). Concentrated differential privacy. TCC.
Dong, J., Roth, A. & Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1).
Kelley, J. E. (1960). The cutting-plane method for solving convex programs. J. SIAM 8(4).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

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
from optmech.exceptions import PrivacyViolationError, SolverError
from optmech.lp.additive.cone_bound import cone_bound, reliable_envelope
from optmech.lp.additive.designed import (
    BeyondCertificate,
    DesignedNoise,
    DesignRecord,
    designed_class,
)
from optmech.lp.additive.divergences import (
    NEAR_ONE_BUDGET,
    NEAR_ONE_ORDER,
    RenyiCones,
    hockey_rows,
    monotone_block,
    pure_block,
)
from optmech.lp.additive.gdp_reference import (
    WiderMixture,
    cheapest_wider_mixture,
    gaussian_cost,
    grid_gaussian,
)
from optmech.lp.additive.grid import AdditiveGrid
from optmech.lp.additive.lp import AdditiveLP, build_additive_lp
from optmech.lp.additive.pairs import pair_maps
from optmech.lp.additive.repair import envelope_raise, slack
from optmech.lp.additive.rows import AuxMap, RowBlock, RowRecord
from optmech.lp.additive.solving import solve_additive
from optmech.lp.additive.spec import GDP_CAP_DELTA, default_periods
from optmech.lp.engine.interval import lp_interval
from optmech.lp.engine.mixing import MixingSearch, least_mixture
from optmech.lp.engine.record import design_provenance
from optmech.lp.engine.report import reporting, stage
from optmech.lp.engine.run import DesignRun
from optmech.lp.solve import ProblemKind, SolveInfo
from optmech.mechanisms.description import GridDescription
from optmech.privacy import (
    ZCDP,
    ApproxDP,
    GaussianDP,
    PrivacyProfile,
    RenyiDP,
    gaussian_dp_delta,
)
from optmech.provenance import CutRound, Repair, RepairKind, warn_if_uncertified

__all__ = [
    "INITIAL_CUTS",
    "MARGIN",
    "MAX_ROUNDS",
    "Cuts",
    "constraints_for",
    "design_beyond",
    "gaussian_cost",
]

_log = logging.getLogger(__name__)


#: Orders of the first zCDP round (besides the Kullback–Leibler bound, always present).
INITIAL_ORDERS = (2.0,)
#: ε of the first GDP round: this many from 0 to where ``δ_μ`` is 1e-10, quadratically (dense
#: where δ is large; μ = 1, |x|, m = 8: 0.99 % below N(0, 1), interval 0.34 %; even 0.67, 0.86 %).
INITIAL_CUTS = 24
#: Largest number of rounds before the repair.
MAX_ROUNDS = 12
#: First relative tightening of the target; grows tenfold (up to [`MAX_MARGIN`][MAX_MARGIN]) when a
#: round finds no new violated point yet fails its certificate.
MARGIN = 1e-6
MAX_MARGIN = 1e-2
#: First margin of GDP designs, on δ_μ(ε) itself: the profile of a grid noise bends between
#: its breakpoints, so a relative 1e-4 below δ_μ at the cuts keeps the gaps between cuts inside
#: it after a few rounds, at a cost of about 1e-5 relative.
GDP_MARGIN = 1e-6
#: GDP designs cap every privacy loss at the ε where ``δ_μ(ε)`` is this small (pure rows
#: there): the profile is then 0 beyond, the LP's point has no zero facing a positive mass,
#: and the cap binds only where the masses involved are below it.
CAP_DELTA = GDP_CAP_DELTA
#: Relative accuracy of the certified ρ and μ reported.
CERT_RTOL = 1e-7
#: Largest mixing weight applied inside a round to a point with zero masses.
ZERO_REPAIR = 1e-6
#: The accuracy asked of a design is at least this many times its last round's margin (the
#: target was tightened by the margin, so the certified interval is about as wide).
MARGIN_ACCURACY = 10.0
#: New cut points per round, at most.
NEW_PER_ROUND = 12
#: GDP rounds stop when one closed less than this part of the gap from its lower bound to the
#: grid Gaussian (μ = 1, m = 8: rounds 2-3 took 75% of the time for 0.01% of the value).
STALL = 0.05


@dataclass(frozen=True)
class Cuts:
    """One round's problem: the cut points (orders for zCDP, ε for GDP), the margin, and the
    tangent point of the near-one Rényi rows (the value variables of the last round's noise;
    [`RenyiCones`][optmech.lp.additive.divergences.RenyiCones])."""

    points: tuple[float, ...] = ()
    margin: float = 0.0
    tangent: FloatArray | None = dataclasses.field(default=None, compare=False)

    def constraints(
        self, grid: AdditiveGrid, expand: sp.csr_matrix, spec: Any
    ) -> tuple[RowRecord, AuxMap, str, RenyiCones | None]:
        """This round's rows ([`constraints_for`][constraints_for]), for
        [`build_additive_lp`][optmech.lp.additive.lp.build_additive_lp]."""
        return constraints_for(grid, expand, spec, self)


# -- the constraints --------------------------------------------------------------------------
def constraints_for(
    grid: AdditiveGrid, expand: sp.csr_matrix, spec: Any, cuts: Cuts | None
) -> tuple[RowRecord, AuxMap, str, RenyiCones | None]:
    """Rows, auxiliaries, the form name and the cones of a design beyond (ε, δ).

    With the target tightened by ``cuts.margin``: ρ, ε(α), δ_μ(ε) and δ_j times ``1 − margin``.
    """
    cuts = cuts or Cuts()
    keep = 1.0 - cuts.margin
    pairs = pair_maps(grid.n, grid.period, spec.tail_ratio, expand, reduced=spec.reduced)
    head: list[RowBlock] = []
    if spec.monotone:
        head.append(monotone_block(grid.index, grid.integer, spec.reduced, expand))
    g = spec.privacy
    if isinstance(g, ZCDP | RenyiDP):
        if isinstance(g, ZCDP):
            orders, rho = np.asarray(cuts.points, dtype=float), g.rho * keep
            budgets = (orders - 1.0) * rho * orders
            cones = RenyiCones(pairs, orders, budgets, kl=rho)
        else:
            orders = np.asarray(g.orders, dtype=float)
            budgets = (orders - 1.0) * np.asarray(g.epsilons) * keep
            cones = RenyiCones(pairs, orders, budgets, tangent=cuts.tangent, near_one_form=True)
        return RowRecord(tuple(head)), AuxMap(), "cones", cones
    if isinstance(g, GaussianDP):
        points = [(e, float(gaussian_dp_delta(g.mu, e)) * keep) for e in cuts.points]
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


# -- certification ----------------------------------------------------------------------------
class _Check(NamedTuple):
    holds: bool
    number: float  # the certified ρ or μ (nan for profiles and Rényi DP)
    new: tuple[float, ...]  # violated points to cut
    beyond: BeyondCertificate


def _description(noise: Any, period: int) -> GridDescription:
    """The noise's masses and tails with the reach ``m`` cells (exact on ℤ; on a uniform grid
    ``Δ/h ≤ m`` and every divergence is linear between whole-cell shifts, so ``m`` is safe)."""
    return noise.grid_description().with_reach(period)


def _local_maxima(x: FloatArray, score: FloatArray, above: float) -> tuple[float, ...]:
    """Up to [`NEW_PER_ROUND`][NEW_PER_ROUND] points of ``x`` where ``score`` has a local maximum
    above
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


# -- rounds -------------------------------------------------------------------------------------
def _initial(spec: Any) -> tuple[float, ...]:
    g = spec.privacy
    if isinstance(g, ZCDP):
        return INITIAL_ORDERS
    if isinstance(g, GaussianDP):
        top = g.to_approx(1e-10).epsilon
        return tuple((top * np.linspace(0.0, 1.0, INITIAL_CUTS) ** 2).tolist())
    return ()


class _Round(NamedTuple):
    lp: AdditiveLP
    info: SolveInfo
    kwargs: dict[str, Any]
    family: type
    check: _Check
    cuts: Cuts
    fix: Repair = Repair()
    source: str = "solver"


def _solve_round(spec: Any, cuts: Cuts, solve: Callable[..., Any]) -> _Round:
    """Build, solve, read and certify one round. A point with zero masses facing positive ones
    (the solver's tolerance in the deep tail: an infinite divergence) is mixed at once with the
    reference, by at most [`ZERO_REPAIR`][ZERO_REPAIR] ([`_repair`][_repair])."""
    lp = build_additive_lp(spec, cuts=cuts)
    solved, info = solve(lp)
    full, atom = solved.full_values(solved.point())
    raised = reliable_envelope(solved, full) if solved.cones is not None else full
    family, kwargs = solved.noise_parts(raised, atom)
    fix = Repair(RepairKind.ENVELOPE if not np.array_equal(raised, full) else RepairKind.NONE)
    rnd = _Round(solved, info, kwargs, family, _check(spec, family(**kwargs), cuts), cuts, fix)
    if not rnd.check.holds and not math.isfinite(rnd.check.number):
        try:
            kwargs, chk, fix = _repair(spec, rnd, largest=ZERO_REPAIR)
        except PrivacyViolationError:
            return rnd
        return rnd._replace(kwargs=kwargs, check=chk, fix=fix)
    return rnd


def _near_one(spec: Any) -> bool:
    """Whether a Rényi DP spec has orders solved in the near-one form (linearised at a tangent
    point that the rounds move)."""
    g = spec.privacy
    if not isinstance(g, RenyiDP):
        return False
    orders = np.asarray(g.orders)
    budgets = (orders - 1.0) * np.asarray(g.epsilons)
    return bool(np.any((budgets < NEAR_ONE_BUDGET) & (orders <= NEAR_ONE_ORDER)))


def _tangent(rnd: _Round) -> FloatArray:
    """The value variables of a round's noise: the next round's tangent point."""
    lp = rnd.lp
    full = _values(lp, rnd.kwargs)
    return lp.variables_of(full, float(rnd.kwargs.get("atom", 0.0)))[: lp.num_values]


def _excess(spec: Any, rnd: _Round) -> float:
    """How far a Rényi DP round's certificate is from the requested guarantee: the largest
    ``D_α/ε(α)`` over the orders (at most 1 when it holds)."""
    got = rnd.check.beyond.renyi
    ratios = [d / e for (_, d), e in zip(got, spec.privacy.epsilons, strict=True)]
    return max(ratios) if ratios and all(math.isfinite(r) for r in ratios) else math.inf


def _rounds(
    spec: Any, solve: Callable[..., Any], accuracy: float = 0.0
) -> tuple[_Round, tuple[CutRound, ...]]:
    """Solve, certify, cut, until the certificate holds (or `MAX_ROUNDS`), or — GDP — until the
    round's lower bound shows that no noise on this grid beats the Gaussian reference by more
    than ``accuracy`` ([`_reference_stop`][_reference_stop]), or until a round
    closed less than `STALL` of the gap (then the repair, as after `MAX_ROUNDS`).

    Near-one Rényi orders are linearised at the first round's noise; after that, each round
    that still fails multiplies the margin by ten and moves the tangent point to the best
    round's noise so far (the one nearest the guarantee), which is also returned for the
    repair if none certifies."""
    near = _near_one(spec)
    cutting = isinstance(spec.privacy, ZCDP | GaussianDP) or near
    cuts = Cuts(_initial(spec), MARGIN if isinstance(spec.privacy, ZCDP) else GDP_MARGIN)
    log: list[CutRound] = []
    best: _Round | None = None
    gaps: list[float] = []
    while True:
        start = time.perf_counter()
        rnd = _solve_round(spec, cuts, solve)
        chk = rnd.check
        stop, gap = (None, math.nan) if chk.holds else _reference_stop(spec, rnd, accuracy)
        if stop is not None:
            rnd, chk = stop, stop.check
        log.append(CutRound(cuts.points, chk.number, chk.holds, time.perf_counter() - start))
        gaps.append(gap)
        stalled = len(gaps) >= 2 and gaps[-1] > (1.0 - STALL) * gaps[-2]  # False with a nan
        if near and (best is None or _excess(spec, rnd) <= _excess(spec, best)):
            best = rnd
        if chk.holds or not cutting or len(log) >= MAX_ROUNDS or stalled:
            return (rnd if chk.holds or best is None else best), tuple(log)
        if near:
            if cuts.tangent is not None and cuts.margin >= MAX_MARGIN:
                return best or rnd, tuple(log)
            margin = cuts.margin if cuts.tangent is None else min(cuts.margin * 10.0, MAX_MARGIN)
            cuts = Cuts(cuts.points, margin, _tangent(best or rnd))
        elif chk.new:
            cuts = Cuts(tuple(sorted(set(cuts.points) | set(chk.new))), cuts.margin)
        elif cuts.margin < MAX_MARGIN and math.isfinite(chk.number):
            cuts = Cuts(cuts.points, min(cuts.margin * 10.0, MAX_MARGIN))
        else:
            return rnd, tuple(log)


# -- repair -----------------------------------------------------------------------------------
def _values(lp: AdditiveLP, kwargs: dict[str, Any]) -> FloatArray:
    """The full grid values ``x`` (``Δ·f``, or ``Δ·pmf`` on ℤ) of a noise's keywords."""
    if "pmf" in kwargs:
        return np.asarray(kwargs["pmf"], dtype=float) * lp.grid.period
    return np.asarray(kwargs["densities"], dtype=float) * lp.grid.sensitivity


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
    """GDP: the Gaussian ``N(0, Δ²/μ²)`` on the grid ([`grid_gaussian`][grid_gaussian]) when it
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
    """GDP: the round with the Gaussian reference ([`_gaussian_reference`][_gaussian_reference])
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
    ([`cheapest_wider_mixture`][cheapest_wider_mixture]); None for other guarantees."""
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
    """Mix with the reference (default for GDP a wider Gaussian, [`_wider_mixture`][_wider_mixture];
    else the grid Gaussian if it certifies, else the geometric one) until the certificate holds
    (module docstring), with a weight of at most ``largest``; raise
    [`PrivacyViolationError`][PrivacyViolationError] if none certifies."""
    lp, kwargs = rnd.lp, rnd.kwargs
    if spec.tail_epsilon is not None and isinstance(spec.privacy, PrivacyProfile):
        eps = spec.tail_epsilon
        full = _values(lp, kwargs)
        bound = eps - slack(eps, full)
        raised = envelope_raise(
            full,
            reach=lp.grid.period,
            period=lp.grid.period,
            bound=bound,
            tail_log_ratio=min(-math.log(lp.tail_ratio), bound),
        )
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


# -- the interval -----------------------------------------------------------------------------
def _interval(
    spec: Any, rnd: _Round, kwargs: dict[str, Any], accuracy: float
) -> tuple[float, float]:
    """``(lower_bound, value)`` of the returned noise (module docstring)."""
    lp = rnd.lp
    point = lp.variables_of(_values(lp, kwargs), float(kwargs.get("atom", 0.0)))
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


def _longest_support(spec: Any) -> int | None:
    """Periods of a support long enough for every point of a profile with a derived finite
    support: the truncated Laplace's at the profile's smallest ε and smallest δ (Geng, Ding, Guo
    & Kumar 2020) is (ε_min, δ_min)-DP, so δ(ε_j) ≤ δ_min ≤ δ_j at every point. None when the
    support was given, or is infinite."""
    g = spec.privacy
    if not (spec.periods_defaulted and isinstance(g, PrivacyProfile)) or spec.tail_ratio > 0:
        return None
    points = [(e, d) for e, d in zip(g.epsilons, g.deltas, strict=True) if 0.0 < d < 1.0]
    if not points:
        return None
    return default_periods(ApproxDP(min(e for e, _ in points), min(d for _, d in points)))


def _rounds_on_a_long_enough_support(
    spec: Any, solve: Callable[..., Any], accuracy: float = 0.0
) -> tuple[Any, _Round, tuple[CutRound, ...]]:
    """[`_rounds`][_rounds] and the spec it solved. A profile's derived support is the longest of
    its points' own, which their joint constraints can make too short: when it is infeasible,
    it is doubled (each time refused up front if too large) up to
    [`_longest_support`][_longest_support]."""
    longest = _longest_support(spec)
    while True:
        try:
            return (spec, *_rounds(spec, solve, accuracy))
        except SolverError as exc:
            if exc.status != "infeasible" or spec.tail_ratio > 0:
                raise
            if longest is None or spec.periods >= longest:
                raise SolverError(
                    exc.solver,
                    exc.status,
                    f"no noise on [-{spec.periods}Δ, {spec.periods}Δ] meets {spec.privacy}: the "
                    "support is too short for these δ; raise `periods`",
                    attempts=exc.attempts,
                ) from exc
            spec = spec.replace(periods=min(2 * spec.periods, longest))


def design_beyond(spec: Any, run: DesignRun) -> DesignedNoise:
    """Design certified noise for a guarantee beyond (ε, δ) (module docstring).

    Parameters
    ----------
    spec : AdditiveSpec
        A validated spec whose privacy is ZCDP, RenyiDP, GaussianDP or PrivacyProfile.
    run : DesignRun
        The settings of [`optmech.design_noise`][optmech.lp.design.design_noise];
        ``accuracy`` is raised to `MARGIN_ACCURACY` times the last round's margin (recorded in the
        provenance).
    """
    conic, gdp = isinstance(spec.privacy, ZCDP | RenyiDP), isinstance(spec.privacy, GaussianDP)

    numbers = itertools.count(1)

    def solve(lp: AdditiveLP) -> tuple[AdditiveLP, SolveInfo]:
        kind: ProblemKind = "conic" if conic else "gdp" if gdp else "additive"
        with stage("round", _log, round=next(numbers), **lp.counts()):
            return solve_additive(lp, run, fresh=True, kind=kind, feasible=spec.tail_ratio > 0)

    with reporting(verbose=run.verbose, progress=run.progress, what="design_noise"):
        stop_at = max(run.accuracy, MARGIN_ACCURACY * GDP_MARGIN)
        spec, rnd, log = _rounds_on_a_long_enough_support(spec, solve, stop_at)
    kwargs, chk, fix = rnd.kwargs, rnd.check, rnd.fix
    if not chk.holds:
        if not run.allow_repair:
            raise PrivacyViolationError(
                f"the solver's point is not {spec.privacy} (certified {chk.beyond}); pass "
                "allow_repair=True, tighten the solver tolerances or try another solver."
            )
        kwargs, chk, fix = _repair(spec, rnd)
    # The target was tightened by the margin: the interval is about that wide by design.
    accuracy = max(run.accuracy, MARGIN_ACCURACY * rnd.cuts.margin)
    lower, value = _interval(spec, rnd, kwargs, accuracy)
    source = "reference" if rnd.source == "reference" or fix.weight >= 1.0 else "solver"
    alone = None if source == "reference" else _gaussian_reference(spec, rnd)
    if alone is not None and _interval(spec, rnd, alone, math.inf)[1] < value:
        kwargs, source, fix = alone, "reference", Repair()  # the grid Gaussian, unmixed
        chk = _check(spec, rnd.family(**alone), rnd.cuts)
        lower, value = _interval(spec, rnd, kwargs, accuracy)
    raw = rnd.lp.noise_parts(*rnd.lp.full_values(rnd.lp.point()))[1]
    raw_value = _interval(spec, rnd, raw, math.inf)[1] if fix.weight else value
    desc = _description(rnd.family(**kwargs), spec.resolution)
    eps = pure_epsilon(desc)
    last = spec.privacy.epsilons[-1] if isinstance(spec.privacy, PrivacyProfile) else 0.0
    delta = 0.0 if math.isfinite(eps) else float(privacy_profile(desc, last))
    info = rnd.info
    violation = rnd.lp.violation(rnd.lp.point())
    fix = dataclasses.replace(fix, cost=value - raw_value)
    prov = design_provenance(
        rnd.lp, info, (min(lower, value), value), accuracy, (violation, 0.0), fix
    )
    cutting = len(log) > 1 or isinstance(spec.privacy, ZCDP | GaussianDP)
    prov = prov.replace(total_time=sum(r.seconds for r in log), rounds=log if cutting else ())
    record = DesignRecord(
        spec=spec,
        provenance=prov,
        certified_epsilon=eps,
        certified_delta=delta,
        raw_certified_epsilon=pure_epsilon(_description(rnd.family(**raw), spec.resolution)),
        raw_certified_delta=None,
        cells_per_period=rnd.lp.grid.period,
        window=rnd.lp.window,
        lp_objective=float(info.objective) * rnd.lp.objective_factor,
        source=source,
        beyond=dataclasses.replace(chk.beyond, gaussian_cost=gaussian_cost(spec)),
    )
    warn_if_uncertified(prov, stacklevel=4)
    return designed_class(rnd.family)(record=record, **kwargs)
