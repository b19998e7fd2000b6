"""The 1-D designer: solve, read, certify, repair, bound, record.

`design_additive` takes a validated `AdditiveSpec` of ε-DP or (ε, δ) noise (the dispatcher
`optmech.lp.design.design_noise` validates it), builds its LP once (`build_additive_lp`) and
solves it through optmech's one solver path (`optmech.lp.solve.solve_robust`: as built,
rescaled, then the other solver). An ε-DP LP is feasible by construction — a grid Laplace
density satisfies every row — so an "infeasible" or failed status there is numerical trouble and
is retried; for (ε, δ) an infeasible LP is genuine (the support is too short) and is reported as
such at once.

`finish_design` then reads the noise off the solver's point (clipped at 0, tails attached,
renormalised), certifies its privacy from the numbers alone (`optmech.certify.noise`, on
densities with the exact cell reach ``m``), repairs it when it falls short
(`optmech.lp.additive.repair`: raising cells to a hair *inside* ε, or mixing for δ) and
certifies again, so the returned point is exactly feasible for the LP. It returns the noise with
a certified interval ``[lower_bound, value]`` containing the LP's optimum:

* ``value`` — the exact expected cost of the returned noise (the LP objective at its point,
  divided by its normalisation), rounded up
  (`optmech.lp.bounds.upper_dot`);
* ``lower_bound`` — weak duality with the solver's multipliers, read by name from the LP's row
  record (`optmech.lp.engine.interval`): the normalisation row's
  variables form one simplex block (``a_j`` = mass per unit, total 1); each auxiliary (window
  minimum or hockey-stick term) a box ``[0, ū]`` with ``ū = max_j 1/a_j`` — valid because at an
  optimum the auxiliaries can take their canonical values (block minima, ``max(0, x_j −
  e^ε x_{j+s})``), which never exceed the largest value variable, itself at most ``1/a_j``;
  ``coefficient_rtol`` covers the rounded ``e^ε``, and the objective's scale is undone by scaling
  the multipliers.

When that interval is wider than ``accuracy`` relative to the value, the same LP is solved by
the other main solver (`optmech.lp.engine.crosscheck`) and the larger bound kept; what is still
wide is then reported (`optmech.lp.additive.diagnostics`).
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from optmech._floats import FloatArray
from optmech.certify.noise import noise_epsilon
from optmech.exceptions import SolverError
from optmech.lp.additive.constraint_rows import centred
from optmech.lp.additive.designed import DesignedNoise, DesignRecord, designed_class
from optmech.lp.additive.diagnostics import warn_about
from optmech.lp.additive.grid import GridKind
from optmech.lp.additive.lp import AdditiveLP, GridNoise, build_additive_lp
from optmech.lp.additive.repair import equal_cells, hockey_delta, mixture_repair, raise_inside
from optmech.lp.additive.spec import AdditiveSpec, default_periods
from optmech.lp.engine.acceptance import not_private, within_privacy
from optmech.lp.engine.certified import Outcome, Policy, certified_solve
from optmech.lp.engine.interval import interval_value, lp_interval
from optmech.lp.engine.report import reporting, stage
from optmech.lp.engine.run import DesignRun, renamed_flag
from optmech.lp.engine.solving import BuiltSolve
from optmech.lp.solve import SolveInfo
from optmech.privacy import ApproxDP, PureDP
from optmech.provenance import DEFAULT_ACCURACY, Repair, RepairKind

__all__ = ["design_additive", "finish_design"]

_log = logging.getLogger(__name__)


def design_additive(spec: AdditiveSpec, run: DesignRun) -> DesignedNoise:
    """Design certified ε-DP or (ε, δ) noise for a validated ``spec`` (module docstring; guarantees
    beyond (ε, δ) are designed by `optmech.lp.additive.beyond.design_beyond`); ``run`` holds the
    solver, repair, accuracy, solver options, verbosity and progress.

    Raises
    ------
    SolverError
        Every attempt failed (each is named), or an (ε, δ) support is too short.
    PrivacyViolationError
        The solver's point is not private and ``run.allow_repair`` is False.
    """
    with reporting(verbose=run.verbose, progress=run.progress, what="design_noise"):
        with stage("build", _log) as found:
            lp = build_additive_lp(spec)
            found.update(lp.counts())
        hooks = AdditiveSolve(lp, run)
        try:
            out = certified_solve(hooks, Policy(solver=run.solver, accuracy=run.accuracy))
        except SolverError as exc:
            if exc.status != "infeasible" or spec.pure:
                raise
            need = default_periods(spec.privacy)
            raise SolverError(
                exc.solver,
                exc.status,
                f"no noise on [-{spec.periods}Δ, {spec.periods}Δ] is {spec.privacy}: the "
                f"support is too short for this δ (the truncated Laplace needs about {need} "
                "periods); raise `periods`",
                attempts=exc.attempts,
            ) from exc
        noise = hooks.design(out)
        warn_about(noise, lp, stacklevel=4)
        return noise


# -- certification ------------------------------------------------------------------------------
def _certify(noise: GridNoise, lp: AdditiveLP) -> tuple[float, float | None, bool]:
    """(pure ε, δ at the requested ε or None, whether ``lp.privacy`` holds exactly).

    The cell reach is the grid's ``m`` cells per Δ, exact: a shift by Δ moves a point at most
    ``m`` cells on a Δ-periodic grid (`optmech.lp.additive.grid`).
    """
    # The noise's own description: masses on a uniform grid or ℤ, densities on a graded grid (on
    # unequal cells only densities have the ratios ε-DP constrains, optmech.mechanisms.graded).
    reach = lp.grid.period
    eps = noise_epsilon(noise.grid_description().with_reach(reach))
    privacy = lp.privacy
    if isinstance(privacy, PureDP):
        # The tails' pairs one period apart sit at exactly e^ε (their ratio is e^−ε rounded
        # up), so the pessimistic certificate exceeds ε by its own rounding margin only.
        ok = within_privacy(eps, privacy.epsilon)
        # Every ratio within reach is ≤ e^ε, so every hockey-stick term at ε is ≤ 0: δ = 0.
        return eps, (0.0 if ok else None), bool(ok)
    assert isinstance(privacy, ApproxDP)  # guarantees beyond (ε, δ) are certified in `beyond`
    delta = hockey_delta(equal_cells(noise), privacy.epsilon, reach)  # (ε, δ): uniform grids
    return eps, delta, bool(delta <= privacy.delta)


def _certified(noise: GridNoise, lp: AdditiveLP, point: str) -> tuple[float, float | None, bool]:
    """`_certify`, logged as the stage ``certify`` of the solver's or the returned point."""
    with stage("certify", _log, point=point) as found:
        cert = _certify(noise, lp)
        found.update(certified_epsilon=cert[0], certified_delta=cert[1], holds=cert[2])
    return cert


def _monotone_raise(lp: AdditiveLP, full: FloatArray) -> FloatArray:
    """The least raise of ``full`` non-increasing in ``|x|``, across the tails too.

    Each cell is raised to the largest cell outwards of it (a running maximum from each end);
    the outermost cells to the tail ratio times the first cells of their period (the virtual
    cell beyond them). Raising a cell to an outer neighbour's value keeps every window ratio
    within the bound the neighbour already met.
    """
    out = full.copy()
    ratio, p = lp.tail_ratio, lp.grid.period
    index = lp.grid.index
    right = index >= 0
    left = index <= (0 if lp.grid.integer else -1)
    out[-1] = max(out[-1], ratio * out[-p])
    out[0] = max(out[0], ratio * out[p - 1])
    out[right] = np.maximum.accumulate(out[right][::-1])[::-1]
    out[left] = np.maximum.accumulate(out[left])
    return out


def _envelope(lp: AdditiveLP, full: FloatArray) -> tuple[type, dict[str, Any], bool]:
    """The ε-DP raise (`raise_inside`; in the monotone class also non-increasing in ``|x|``):
    the family and keywords of the result, and whether anything was raised."""
    privacy = lp.privacy
    assert isinstance(privacy, PureDP)  # the envelope repair is the ε-DP one
    monotone = functools.partial(_monotone_raise, lp) if lp.monotone else None
    raised = raise_inside(full, privacy.epsilon, lp.grid.period, lp.tail_ratio, monotone)
    family, kwargs = lp.noise_parts(raised, 0.0)
    return family, kwargs, not np.array_equal(raised, full)


# -- the certified interval -----------------------------------------------------------------------
def grid_point(lp: AdditiveLP, kwargs: dict[str, Any]) -> tuple[FloatArray, float, float]:
    """The LP's value and atom variables of a noise's keywords (``x = Δ·f``, or ``Δ·pmf`` on
    ℤ), its atom, and the mass it puts beyond the grid where the LP allows none ((ε, δ): a
    finite support)."""
    full, atom = lp.values_of(kwargs), float(kwargs.get("atom", 0.0))
    scale = lp.grid.width if lp.grid.kind == GridKind.UNIFORM else 1.0
    outside = 0.0
    if lp.tail_ratio == 0.0:
        for base, ratio in (kwargs["left_tail"], kwargs["right_tail"]):
            outside += float(np.sum(base)) * scale / (1.0 - ratio)
    return lp.variables_of(full, atom), atom, outside


# -- finishing a solve --------------------------------------------------------------------------
def _reference_point(lp: AdditiveLP) -> tuple[type, dict[str, Any], float] | None:
    """The reference staircase of a graded grid as a certified noise: (family, keywords,
    value), or None. It is an exactly feasible point of the LP (its step ratio and
    tails are ``e^(ε − 2·slack)``), so it may stand in for a solver point that costs more —
    unless the caller's constraints are among the rows (None then: it meets none of them)."""
    if lp.profile is None or lp.declared or lp.custom is not None:
        return None
    full = np.asarray(lp.expand @ lp.profile, dtype=np.float64)
    family, kwargs = lp.noise_parts(full, 0.0)
    if not _certify(family(**kwargs), lp)[2]:
        return None
    return family, kwargs, interval_value(lp, grid_point(lp, kwargs)[0])


def _repaired(lp: AdditiveLP, raw: GridNoise, full: FloatArray) -> tuple[type, dict, Repair]:
    privacy = lp.privacy
    if isinstance(privacy, PureDP):
        family, kwargs, changed = _envelope(lp, full)
        return family, kwargs, Repair(RepairKind.ENVELOPE if changed else RepairKind.NONE)
    assert isinstance(privacy, ApproxDP)  # guarantees beyond (ε, δ) are repaired in `beyond`
    family, kwargs, lam = mixture_repair(
        equal_cells(raw), privacy.epsilon, privacy.delta, reach=lp.grid.period
    )
    return family, kwargs, Repair(RepairKind.MIXTURE, weight=lam)


@dataclass
class SolverPoint:
    """The solver's point of a solved LP variant: its noise (family, keywords, grid values),
    its certificate (pure ε, δ or None, whether it holds) and its value; ``candidate`` is the
    repaired point, once `AdditiveSolve.repair` has made it."""

    lp: AdditiveLP
    family: type
    kwargs: dict[str, Any]
    full: FloatArray
    certificate: tuple[float, float | None, bool]
    value: float
    candidate: Candidate | None = None


@dataclass
class Candidate:
    """A repaired point, where it came from, and (once certified) its certificate, its value
    and the mass it puts beyond the grid."""

    lp: AdditiveLP
    family: type
    kwargs: dict[str, Any]
    fix: Repair
    source: str = "solver"
    certificate: tuple[float, float | None, bool] = (math.inf, None, False)
    value: float = math.inf
    outside: float = 0.0


class AdditiveSolve(BuiltSolve[AdditiveLP, SolverPoint, Candidate]):
    """A 1-D design as hooks of `certified_solve`: the solver's point read and certified,
    repaired (the envelope inside ε, the (ε, δ) mixture, a zero mean for `Unbiased`), compared
    with the reference staircase, certified again and bounded by weak duality (module
    docstring). ``feasible`` defaults to the spec being ε-DP; ``solved``, a solve already made,
    is finished instead of solving."""

    def __init__(
        self,
        lp: AdditiveLP,
        run: DesignRun,
        feasible: bool | None = None,
        solved: tuple[AdditiveLP, SolveInfo] | None = None,
    ) -> None:
        feasible = lp.spec.pure if feasible is None else feasible
        super().__init__(lp, run, kind="additive", feasible=feasible, solved=solved)

    def read(self, built: AdditiveLP) -> SolverPoint:
        full, atom = built.full_values(built.point())
        family, kwargs = built.noise_parts(full, atom)
        cert = _certified(family(**kwargs), built, "solver's")
        value = interval_value(built, grid_point(built, kwargs)[0])
        return SolverPoint(built, family, kwargs, full, cert, value)

    def repair(self, point: SolverPoint) -> Candidate:
        lp, (eps, delta, ok) = point.lp, point.certificate
        fix, family, kwargs = Repair(), point.family, point.kwargs
        with stage("repair", _log) as found:
            # ε-DP: always, the window strictly inside ε makes the point exactly feasible.
            if self.run.allow_repair and (lp.spec.pure or not ok):
                family, kwargs, fix = _repaired(lp, family(**kwargs), point.full)
            elif not ok:
                privacy = lp.privacy
                raise not_private(
                    privacy,
                    f"ε = {eps:.12g}"
                    if isinstance(privacy, PureDP)
                    else f"δ = {delta:.6g} at ε = {cast(ApproxDP, privacy).epsilon:g}",
                )
            found.update(kind=str(fix.kind), weight=fix.weight)
        candidate = Candidate(lp, family, kwargs, fix)
        if lp.declared and self.run.allow_repair:  # an exact zero mean for Unbiased, if certified
            mixed = centred(lp, kwargs)
            if mixed is not None and _certify(mixed[0](**mixed[1]), lp)[2]:
                candidate = Candidate(lp, *mixed, fix)
        reference = _reference_point(lp)
        value = interval_value(lp, grid_point(lp, candidate.kwargs)[0])
        if reference is not None and reference[2] < value:
            candidate = Candidate(lp, reference[0], reference[1], fix, "reference")
        point.candidate = candidate
        return candidate

    def certify(self, candidate: Candidate) -> float | None:
        lp = candidate.lp
        cert = _certified(candidate.family(**candidate.kwargs), lp, "returned")
        if not cert[2] or cert[1] is None:
            return None
        point, _, outside = grid_point(lp, candidate.kwargs)
        value = interval_value(lp, point)
        if outside > 0 and candidate.source == "solver":  # a mixture that left the support
            value = candidate.family(**candidate.kwargs).expected_cost(lp.cost) * (1.0 + 1e-12)
        candidate.certificate, candidate.value, candidate.outside = cert, value, outside
        return value

    def bound(self, built: AdditiveLP, point: SolverPoint) -> float:
        candidate = point.candidate
        if candidate is None or not math.isfinite(candidate.value):
            return -math.inf
        z = grid_point(point.lp, candidate.kwargs)[0]
        return lp_interval(point.lp, z, accuracy=self.run.accuracy)[0]

    def design(
        self, out: Outcome[AdditiveLP, SolverPoint, Candidate], **fields: Any
    ) -> DesignedNoise:
        """The designed noise of the loop's outcome, with its record (and the provenance's
        further ``fields``)."""
        read, info, best = out.used.point, out.used.info, out.best.candidate
        lp, fix = read.lp, best.fix
        prov = out.provenance(
            accuracy=self.run.accuracy,
            violation_before=lp.violation(lp.point()),
            violation_after=best.outside,
            repair=Repair(
                fix.kind, fix.weight, best.value - read.value if fix.kind != RepairKind.NONE else 0
            ),
            **fields,
        )
        eps, delta, _ = best.certificate
        raw_eps, raw_delta, _ = read.certificate
        record = DesignRecord(
            spec=lp.spec,
            provenance=prov,
            certified_epsilon=eps,
            certified_delta=float(cast(float, delta)),
            raw_certified_epsilon=raw_eps,
            raw_certified_delta=None if lp.spec.pure else raw_delta,
            cells_per_period=lp.grid.period,
            window=lp.window,
            lp_objective=float(info.objective) * lp.objective_factor,
            source=best.source,
        )
        return designed_class(best.family)(record=record, **best.kwargs)


def finish_design(
    lp: AdditiveLP,
    info: SolveInfo,
    *,
    allow_repair: bool = True,
    accuracy: float = DEFAULT_ACCURACY,
    warn: bool = True,
    stacklevel: int = 2,
    repair: bool | None = None,
) -> DesignedNoise:
    """Read, certify, repair if needed, bound and wrap the solution of a solved LP: ``lp``'s
    ``problem`` holds the solution, ``info`` the solve's provenance; ``allow_repair`` and
    ``accuracy`` as in `design_noise` (``repair``: deprecated spelling of ``allow_repair``).
    ``warn``: issue the warnings of `warn_about` at ``stacklevel`` (`design_additive` issues them
    itself, after its cross-check).
    """
    allow_repair = renamed_flag(allow_repair, repair, new_name="allow_repair", old_name="repair")
    run = DesignRun(allow_repair=allow_repair, accuracy=accuracy)
    hooks = AdditiveSolve(lp, run, solved=(lp, info))
    out = certified_solve(hooks, Policy(accuracy=accuracy, cross_check=False))
    noise = hooks.design(out)
    if warn:
        warn_about(noise, lp, stacklevel=stacklevel + 1)
    return noise
