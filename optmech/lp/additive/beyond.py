"""Design certified additive noise under zCDP, Rényi DP, Gaussian DP and privacy profiles.

The noise lives on a uniform grid or on ℤ (``m`` cells or points per Δ, ``K`` periods each side)
and continues beyond it with geometric tails (`AdditiveSpec.tail_ratio`); the constraints are
sums over the pairs of every shift ``1..m`` and direction (`pairs`), exact for every real shift
``|d| ≤ Δ``:

* **privacy profile** — an LP: hockey-stick rows at each ``(ε_j, δ_j)``; a finite support when
  every ``δ_j > 0``, else the pure rows at the first ``ε_j`` with ``δ_j = 0`` and tails;
* **Gaussian DP** — ``δ(ε) ≤ δ_μ(ε)`` for every ε ≥ 0 (Dong, Roth & Su 2022, Corollary 2.13),
  by **cutting planes**: the LP at finitely many ε; the noise certified over the continuum
  (`optmech.certify.profiles.check_guarantee`, exact
  tails); the ε where it is most violated (the local maxima of ``log δ(ε)/δ_μ(ε)`` on a fine grid
  and at the profile's breakpoints) join the cuts, until the certificate holds — or until a
  round's lower bound is within the accuracy of the grid Gaussian's value, which is then
  returned; the result records the Gaussian's own cost (``gaussian_cost``);
* **Rényi DP** — a conic problem (power cones, `divergences`)
  at the given orders (Mironov 2017);
* **zCDP** — ``D_α ≤ ρα`` for every α > 1 (Bun & Steinke 2016) by cutting planes over the
  orders: the Kullback–Leibler bound (the limit α → 1, exponential cones) and the Rényi bound
  at the cut orders; the noise certified over every α > 1
  (`optmech.certify.profiles.certified_rho`); the local
  maxima of ``D_α/α`` above the target join the cuts.

Each round solves with the target tightened by a relative ``margin`` (from 1e-5), so that the
solver's tolerance and the gaps between cuts stay inside the request; a round without new
violated points but without a certificate multiplies the margin by ten. After
`MAX_ROUNDS` rounds — or at once for profiles and Rényi DP — a noise whose certificate
still fails is **repaired** by mixing with a reference noise that meets the guarantee with room
to spare and has the same tails (GDP: the cheapest of several wider grid Gaussians,
`optmech.lp.additive.gdp_reference`; else the geometric
noise of the tails' ratio; the grid Laplace on a finite support), the least weight found by
bisection on the certificate (every guarantee here is a jointly convex divergence, so mixing
helps); never is an uncertified noise returned.

**The interval.** ``value`` is the exact expected cost of the returned noise, rounded up.
``lower_bound``: for the LPs, the Lagrangian bound of `lp_interval` on the LP at the *requested*
guarantee (the cuts' right-hand sides undone: a relaxation of the continuum, so its bound holds
for it); for the cones, the tangent-plane bound of `optmech.lp.additive.cone_bound` (the
constraint functions are convex and 1-homogeneous: Euler's identity). Either bound is of the
problem on this grid, support and tail ratio with the finitely many orders / ε solved, which the
continuum only restricts further.

A round's constraints and the certificate of its noise are in ``optmech.lp.additive.beyond_cuts``,
the repair, its references and the interval in ``optmech.lp.additive.beyond_repair``.

References
----------
Mironov, I. (2017). Rényi differential privacy. IEEE CSF.
Bun, M. & Steinke, T. (2016). Concentrated differential privacy. TCC.
Dong, J., Roth, A. & Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1).
Kelley, J. E. (1960). The cutting-plane method for solving convex programs. J. SIAM 8(4).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from optmech._floats import FloatArray
from optmech.certify.profiles import privacy_profile, pure_epsilon
from optmech.exceptions import PrivacyViolationError, SolverError
from optmech.lp.additive.beyond_cuts import Cuts, _check, _description, _Round
from optmech.lp.additive.beyond_repair import (
    _gaussian_reference,
    _interval,
    _reference_stop,
    _repair,
)
from optmech.lp.additive.cone_bound import reliable_envelope
from optmech.lp.additive.designed import DesignedNoise, DesignRecord, designed_class
from optmech.lp.additive.designer import grid_point
from optmech.lp.additive.divergences import NEAR_ONE_BUDGET, NEAR_ONE_ORDER
from optmech.lp.additive.gdp_reference import gaussian_cost
from optmech.lp.additive.lp import AdditiveLP, build_additive_lp
from optmech.lp.additive.spec import default_periods
from optmech.lp.engine.acceptance import not_private
from optmech.lp.engine.certified import Outcome, Policy, certified_solve
from optmech.lp.engine.report import reporting, stage
from optmech.lp.engine.run import DesignRun
from optmech.lp.engine.solving import BuiltSolve
from optmech.lp.solve import ProblemKind, SolveInfo
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, PrivacyProfile, RenyiDP
from optmech.provenance import CutRound, Repair, RepairKind, warn_if_uncertified

__all__ = ["INITIAL_CUTS", "MARGIN", "MAX_ROUNDS", "design_beyond", "gaussian_cost"]

_log = logging.getLogger(__name__)


#: Orders of the first zCDP round (besides the Kullback–Leibler bound, always present).
INITIAL_ORDERS = (2.0,)
#: ε of the first GDP round: this many from 0 to where ``δ_μ`` is 1e-10, quadratically (dense
#: where δ is large; μ = 1, |x|, m = 8: 0.99 % below N(0, 1), interval 0.34 %; even 0.67, 0.86 %).
INITIAL_CUTS = 24
#: Largest number of rounds before the repair.
MAX_ROUNDS = 12
#: First relative tightening of the target; grows tenfold (up to `MAX_MARGIN`) when a
#: round finds no new violated point yet fails its certificate.
MARGIN = 1e-6
MAX_MARGIN = 1e-2
#: First margin of GDP designs, on δ_μ(ε) itself: the profile of a grid noise bends between
#: its breakpoints, so a relative 1e-4 below δ_μ at the cuts keeps the gaps between cuts inside
#: it after a few rounds, at a cost of about 1e-5 relative.
GDP_MARGIN = 1e-6
#: Largest mixing weight applied inside a round to a point with zero masses.
ZERO_REPAIR = 1e-6
#: The accuracy asked of a design is at least this many times its last round's margin (the
#: target was tightened by the margin, so the certified interval is about as wide).
MARGIN_ACCURACY = 10.0
#: GDP rounds stop when one closed less than this part of the gap from its lower bound to the
#: grid Gaussian (μ = 1, m = 8: rounds 2-3 took 75% of the time for 0.01% of the value).
STALL = 0.05


# -- rounds -------------------------------------------------------------------------------------
def _initial(spec: Any) -> tuple[float, ...]:
    g = spec.privacy
    if isinstance(g, ZCDP):
        return INITIAL_ORDERS
    if isinstance(g, GaussianDP):
        top = g.to_approx(1e-10).epsilon
        return tuple((top * np.linspace(0.0, 1.0, INITIAL_CUTS) ** 2).tolist())
    return ()


def _read_round(spec: Any, cuts: Cuts, solved: AdditiveLP, info: SolveInfo) -> _Round:
    """Read and certify one solved round. A point with zero masses facing positive ones (the
    solver's tolerance in the deep tail: an infinite divergence) is mixed at once with the
    reference, by at most `ZERO_REPAIR` (`_repair`)."""
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


def _tangent(rnd: _Round) -> FloatArray:
    """The value variables of a round's noise: the next round's tangent point."""
    return grid_point(rnd.lp, rnd.kwargs)[0][: rnd.lp.num_values]


def _excess(spec: Any, rnd: _Round) -> float:
    """How far a Rényi DP round's certificate is from the requested guarantee: the largest
    ``D_α/ε(α)`` over the orders (at most 1 when it holds)."""
    got = rnd.check.beyond.renyi
    ratios = [d / e for (_, d), e in zip(got, spec.privacy.epsilons, strict=True)]
    return max(ratios) if ratios and all(math.isfinite(r) for r in ratios) else math.inf


@dataclass
class _Rounds:
    """What the rounds of one design share: the spec and settings, whether they cut (and
    linearise near-one orders), the log, the best near-one round and the GDP gaps."""

    spec: Any
    run: DesignRun
    stop_at: float
    log: list[CutRound] = field(default_factory=list)
    best: _Round | None = None
    gaps: list[float] = field(default_factory=list)

    @property
    def near(self) -> bool:
        """Whether a Rényi DP spec has orders solved in the near-one form (linearised at a
        tangent point that the rounds move)."""
        g = self.spec.privacy
        if not isinstance(g, RenyiDP):
            return False
        orders = np.asarray(g.orders)
        budgets = (orders - 1.0) * np.asarray(g.epsilons)
        return bool(np.any((budgets < NEAR_ONE_BUDGET) & (orders <= NEAR_ONE_ORDER)))


class _Final(NamedTuple):
    """The returned noise: its round, keywords, certificate, repair, source and interval."""

    rnd: _Round
    kwargs: dict[str, Any]
    check: Any
    fix: Repair
    source: str
    lower: float
    value: float
    accuracy: float


class _CutRound(BuiltSolve[AdditiveLP, _Round, _Final]):
    """One round of a design beyond (ε, δ) as hooks of `certified_solve` (module docstring):
    its LP at ``cuts``, its noise read and certified over the continuum; then either the next
    round's cuts, or — the certificate holds, or the rounds stop — the noise returned,
    repaired if it must be and bounded.

    The rounds stop when the certificate holds (or after `MAX_ROUNDS`), or — GDP — when the
    round's lower bound shows that no noise on this grid beats the Gaussian reference by more
    than ``stop_at`` (`_reference_stop`), or when a round closed less than `STALL` of the gap
    (then the repair, as after `MAX_ROUNDS`). Near-one Rényi orders are linearised at the first
    round's noise; after that, each round that still fails multiplies the margin by ten and
    moves the tangent point to the best round's noise so far (the one nearest the guarantee),
    which is also returned for the repair if none certifies.
    """

    def __init__(self, rounds: _Rounds, cuts: Cuts) -> None:
        self.start = time.perf_counter()
        self.rounds, self.cuts, spec = rounds, cuts, rounds.spec
        g = spec.privacy
        kind: ProblemKind = "conic" if isinstance(g, ZCDP | RenyiDP) else "additive"
        if isinstance(g, GaussianDP):
            kind = "gdp"
        lp = build_additive_lp(spec, cuts=cuts)
        super().__init__(lp, rounds.run, kind=kind, feasible=spec.tail_ratio > 0)
        self.following: Cuts | None = None
        self.final: _Final | None = None

    def solve(self, solver: str | None, vertex: bool) -> tuple[AdditiveLP, SolveInfo, float]:
        with stage("round", _log, round=len(self.rounds.log) + 1, **self.lp.counts()):
            built, self.info, seconds = super().solve(solver, vertex)
        return built, self.info, seconds

    def read(self, built: AdditiveLP) -> _Round:
        rounds, spec, cuts = self.rounds, self.rounds.spec, self.cuts
        rnd = _read_round(spec, cuts, built, self.info)
        chk = rnd.check
        stop, gap = (None, math.nan) if chk.holds else _reference_stop(spec, rnd, rounds.stop_at)
        if stop is not None:
            rnd, chk = stop, stop.check
        log, gaps, near = rounds.log, rounds.gaps, rounds.near
        log.append(CutRound(cuts.points, chk.number, chk.holds, time.perf_counter() - self.start))
        gaps.append(gap)
        stalled = len(gaps) >= 2 and gaps[-1] > (1.0 - STALL) * gaps[-2]  # False with a nan
        if near and (rounds.best is None or _excess(spec, rnd) <= _excess(spec, rounds.best)):
            rounds.best = rnd
        best = rounds.best
        cutting = isinstance(spec.privacy, ZCDP | GaussianDP) or near
        if chk.holds or not cutting or len(log) >= MAX_ROUNDS or stalled:
            self.final = self._finished(rnd if chk.holds or best is None else best)
        elif near:
            if cuts.tangent is not None and cuts.margin >= MAX_MARGIN:
                self.final = self._finished(best or rnd)
            else:
                margin = (
                    cuts.margin if cuts.tangent is None else min(cuts.margin * 10.0, MAX_MARGIN)
                )
                self.following = Cuts(cuts.points, margin, _tangent(best or rnd))
        elif chk.new:
            self.following = Cuts(tuple(sorted(set(cuts.points) | set(chk.new))), cuts.margin)
        elif cuts.margin < MAX_MARGIN and math.isfinite(chk.number):
            self.following = Cuts(cuts.points, min(cuts.margin * 10.0, MAX_MARGIN))
        else:
            self.final = self._finished(rnd)
        return rnd

    def _finished(self, rnd: _Round) -> _Final:
        """The returned noise of the last round: repaired by mixing if its certificate still
        fails, bounded, and replaced by the grid Gaussian alone when that costs less."""
        spec = self.rounds.spec
        kwargs, chk, fix = rnd.kwargs, rnd.check, rnd.fix
        if not chk.holds:
            if not self.run.allow_repair:
                raise not_private(spec.privacy, str(chk.beyond))
            kwargs, chk, fix = _repair(spec, rnd)
        # The target was tightened by the margin: the interval is about that wide by design.
        accuracy = max(self.run.accuracy, MARGIN_ACCURACY * rnd.cuts.margin)
        lower, value = _interval(spec, rnd, kwargs, accuracy)
        source = "reference" if rnd.source == "reference" or fix.weight >= 1.0 else "solver"
        alone = None if source == "reference" else _gaussian_reference(spec, rnd)
        if alone is not None and _interval(spec, rnd, alone, math.inf)[1] < value:
            kwargs, source, fix = alone, "reference", Repair()  # the grid Gaussian, unmixed
            chk = _check(spec, rnd.family(**alone), rnd.cuts)
            lower, value = _interval(spec, rnd, kwargs, accuracy)
        return _Final(rnd, kwargs, chk, fix, source, lower, value, accuracy)

    def next_round(self, solve: Any) -> _CutRound | None:
        return None if self.following is None else _CutRound(self.rounds, self.following)

    def repair(self, point: _Round) -> _Final | None:
        return self.final

    def certify(self, candidate: _Final) -> float:
        return candidate.value

    def bound(self, built: AdditiveLP, point: _Round) -> float:
        return -math.inf if self.final is None else self.final.lower


# -- support ------------------------------------------------------------------------------------
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
    spec: Any, run: DesignRun, stop_at: float
) -> tuple[_Rounds, Outcome[AdditiveLP, _Round, _Final]]:
    """The rounds (`_CutRound`) and what they shared. A profile's derived support is the longest
    of its points' own, which their joint constraints can make too short: when it is infeasible,
    it is doubled (each time refused up front if too large) up to `_longest_support`."""
    longest = _longest_support(spec)
    while True:
        rounds = _Rounds(spec, run, stop_at)
        first = Cuts(_initial(spec), MARGIN if isinstance(spec.privacy, ZCDP) else GDP_MARGIN)
        try:
            policy = Policy(solver=run.solver, accuracy=run.accuracy, cross_check=False)
            return rounds, certified_solve(_CutRound(rounds, first), policy)
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
    """Design certified noise for a ``spec`` of ZCDP, RenyiDP, GaussianDP or PrivacyProfile
    (module docstring); ``run.accuracy`` is raised to `MARGIN_ACCURACY` times the last round's
    margin (recorded in the provenance).
    """
    with reporting(verbose=run.verbose, progress=run.progress, what="design_noise"):
        stop_at = max(run.accuracy, MARGIN_ACCURACY * GDP_MARGIN)
        rounds, out = _rounds_on_a_long_enough_support(spec, run, stop_at)
    spec, log, final = rounds.spec, tuple(rounds.log), out.best.candidate
    rnd, kwargs, fix, value = final.rnd, final.kwargs, final.fix, final.value
    raw = rnd.lp.noise_parts(*rnd.lp.full_values(rnd.lp.point()))[1]
    raw_value = _interval(spec, rnd, raw, math.inf)[1] if fix.weight else value
    desc = _description(rnd.family(**kwargs), spec.resolution)
    eps = pure_epsilon(desc)
    last = spec.privacy.epsilons[-1] if isinstance(spec.privacy, PrivacyProfile) else 0.0
    delta = 0.0 if math.isfinite(eps) else float(privacy_profile(desc, last))
    cutting = len(log) > 1 or isinstance(spec.privacy, ZCDP | GaussianDP)
    prov = out.provenance(
        accuracy=final.accuracy,
        violation_before=rnd.lp.violation(rnd.lp.point()),
        violation_after=0.0,
        repair=dataclasses.replace(fix, cost=value - raw_value),
    ).replace(total_time=sum(r.seconds for r in log), rounds=log if cutting else ())
    record = DesignRecord(
        spec=spec,
        provenance=prov,
        certified_epsilon=eps,
        certified_delta=delta,
        raw_certified_epsilon=pure_epsilon(_description(rnd.family(**raw), spec.resolution)),
        raw_certified_delta=None,
        cells_per_period=rnd.lp.grid.period,
        window=rnd.lp.window,
        lp_objective=float(rnd.info.objective) * rnd.lp.objective_factor,
        source=final.source,
        beyond=dataclasses.replace(final.check.beyond, gaussian_cost=gaussian_cost(spec)),
    )
    warn_if_uncertified(prov, stacklevel=4)
    return designed_class(rnd.family)(record=record, **kwargs)
