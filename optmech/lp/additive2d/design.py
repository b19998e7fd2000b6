"""Design certified 2-D additive noise: solve, read, repair, certify, bound, record.

`design_noise_2d` takes a validated `AdditiveSpec2D`, builds its LP (`build_additive_lp_2d`) and
solves it through optmech's one solver path (`optmech.lp.solve.solve_robust`). The LP is feasible by
construction (each gauge tail shape, continued into the box, is a point of it), so a failed status
is numerical trouble and is retried.

`finish_design_2d` reads the noise off the solver's point (clipped at 0), raises it to the least
envelope whose window and band ratios are at most ``e^ε`` (`envelope_2d`), certifies it from the
numbers alone (`optmech.certify.noise2d.noise2d_epsilon`) and returns it with a certified interval
``[lower_bound, value]`` containing the LP's optimum:

* ``value`` — the LP objective at the returned point with the *upper* ends of the cells' cost
  averages and the tails' cost series, divided by its mass, rounded up: at least the exact
  expected cost of the returned noise;
* ``lower_bound`` — weak duality with the solver's multipliers
  (`lp_interval`, the engine's, as in 1-D: values and tail scales in one simplex block, auxiliaries
  in boxes) with the *lower* ends of the costs, divided by ``1 + r`` where ``r`` bounds the relative
  rest of the tails' mass series (a point of the LP with the exact masses, rescaled to this LP's
  masses, costs at most ``1 + r`` times more).
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass

import numpy as np

from optmech._floats import FloatArray
from optmech.certify.noise2d import noise2d_epsilon, row_half_widths
from optmech.lp.additive2d.designed import DesignedNoise2D, DesignRecord2D
from optmech.lp.additive2d.lp import AdditiveLP2D, build_additive_lp_2d
from optmech.lp.additive2d.repair import envelope_2d
from optmech.lp.additive2d.spec import AdditiveSpec2D
from optmech.lp.engine.acceptance import not_private, within_privacy
from optmech.lp.engine.certified import Outcome, Policy, certified_solve
from optmech.lp.engine.interval import lp_interval, lp_value
from optmech.lp.engine.report import reporting, stage
from optmech.lp.engine.run import DesignRun, renamed_flag
from optmech.lp.engine.solving import BuiltSolve
from optmech.lp.solve import SolveInfo
from optmech.mechanisms.piecewise2d import PiecewiseConstantNoise2D
from optmech.provenance import DEFAULT_ACCURACY, Repair, RepairKind, warn_if_uncertified

__all__ = ["design_noise_2d", "finish_design_2d"]

_log = logging.getLogger(__name__)


def design_noise_2d(spec: AdditiveSpec2D, run: DesignRun | None = None) -> DesignedNoise2D:
    """Design optimal ε-DP noise in ℝ² for shifts in a norm ball, by LP, certified.

    Called by `optmech.design_noise` with ``dimension=2``, which
    validates the arguments into ``spec``.

    Parameters
    ----------
    spec : AdditiveSpec2D
        The validated design: guarantee, Δ, the norm of the ball of shifts, the vector cost,
        the grid and the tails.
    run : DesignRun, optional
        Solver, repair, accuracy, solver options and verbosity, as for the 1-D
        `optmech.design_noise` (default: its defaults).

    Returns
    -------
    DesignedNoise2D
        Certified noise with ``value``, ``lower_bound``, ``certified_epsilon``, ``pdf``,
        ``rvs``, ``expected_cost``, ``plot`` and ``provenance``.

    Raises
    ------
    ProblemTooLargeError
        The LP's estimated memory exceeds ``max_memory_gb`` (before anything is built).
    SolverError
        Every solver attempt failed.
    PrivacyViolationError
        The solver's point is not private and ``repair=False``.

    Examples
    --------
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="l1",
    ...                              dimension=2, sensitivity_norm="linf", resolution=2,
    ...                              periods=2)
    >>> noise.certified_epsilon <= 1.0 + 1e-9, noise.lower_bound <= noise.value
    (True, True)
    """
    run = DesignRun() if run is None else run
    with reporting(verbose=run.verbose, progress=run.progress, what="design_noise (2-D)"):
        with stage("build", _log) as found:
            lp = build_additive_lp_2d(spec)
            found.update(lp.counts())
        return _designed(Design2DSolve(lp, run), stacklevel=4)


def _designed(hooks: Design2DSolve, stacklevel: int) -> DesignedNoise2D:
    """The certified loop of `Design2DSolve` (no cross-check: one LP, one solve); a wide interval
    is warned about at the caller's ``stacklevel``."""
    policy = Policy(solver=hooks.run.solver, accuracy=hooks.run.accuracy, cross_check=False)
    noise = hooks.design(certified_solve(hooks, policy))
    warn_if_uncertified(noise.provenance, stacklevel=stacklevel + 1)
    return noise


def _noise(lp: AdditiveLP2D, values: FloatArray) -> PiecewiseConstantNoise2D:
    """The noise with value and tail variables ``values`` (zero-scale tails dropped)."""
    k, delta = lp.num_reps, lp.spec.sensitivity
    scales = values[k : k + len(lp.tails)]
    keep = [i for i, t in enumerate(scales.tolist()) if t > 0]
    return PiecewiseConstantNoise2D(
        lp.box(values) / delta**2,
        width=lp.width,
        sensitivity=delta,
        norm=lp.spec.sensitivity_norm,
        tails=[(lp.tails[i], float(scales[i]) / delta**2) for i in keep],
        epsilon=lp.spec.epsilon,
        tail_masses=[lp.sums[i].mass for i in keep],
    )


def _repaired(lp: AdditiveLP2D, values: FloatArray) -> tuple[FloatArray, bool]:
    """Values and tail scales raised to the envelope at ε, symmetric again.

    Unlike the 1-D window, the 2-D band rows cannot be kept strictly inside ε: a box cell
    whose tail neighbours span two levels of a gauge tail (``e^(2ε)``) is pinned to the level
    between them from both sides, exactly at ``e^ε``. So every ratio is raised to at most
    ``e^ε`` (in the log domain, to rounding); the certificate then exceeds ε by its rounding
    margin only (`PRIVACY_RTOL`), as the 1-D tails do.
    """
    k, spec = lp.num_reps, lp.spec
    widths = row_half_widths(spec.sensitivity_norm, spec.resolution)
    box, scales, changed = envelope_2d(lp.box(values), values[k:], lp.tails, widths, spec.epsilon)
    reps = np.zeros(k)
    np.maximum.at(reps, lp.orbit, box.ravel())  # the max over the group of ε-DP images
    return np.concatenate([reps, scales]), changed


@dataclass
class _Candidate:
    """Values and tail scales of a point, its repair, where it came from and its certified ε."""

    values: FloatArray
    fix: Repair = dataclasses.field(default_factory=Repair)
    source: str = "solver"
    epsilon: float = math.inf


@dataclass
class _Read:
    """The solver's point (clipped at 0), its certified ε and value, and its repair once made."""

    values: FloatArray
    epsilon: float
    value: float
    violation: float
    candidate: _Candidate | None = None


class Design2DSolve(BuiltSolve[AdditiveLP2D, _Read, _Candidate]):
    """A 2-D design as hooks of `certified_solve` (module docstring): the solver's point read
    and certified, raised to the envelope at ε, compared with the gauge staircase, certified
    again and bounded by weak duality with the costs' lower ends.

    Unlike the 1-D window, the band rows hold at ``e^ε`` exactly (`_repaired`): the envelope
    always runs when allowed, and the certificate is accepted to its rounding margin.
    """

    def __init__(
        self, lp: AdditiveLP2D, run: DesignRun, solved: tuple[AdditiveLP2D, SolveInfo] | None = None
    ) -> None:
        super().__init__(lp, run, kind="additive2d", feasible=True, solved=solved)
        self.high = dataclasses.replace(lp, weights=lp.weights_high)  # a point's value

    def _epsilon(self, values: FloatArray, point: str) -> float:
        with stage("certify", _log, point=point) as found:
            eps = float(noise2d_epsilon(**_noise(self.lp, values).description()))
            found.update(certified_epsilon=eps)
        return eps

    def read(self, built: AdditiveLP2D) -> _Read:
        x = built.point()
        raw = np.maximum(x[: built.num_reps + len(built.tails)], 0.0)
        eps = self._epsilon(raw, "solver's")
        return _Read(raw, eps, lp_value(self.high, raw), built.violation(x))

    def repair(self, point: _Read) -> _Candidate:
        candidate = _Candidate(point.values)
        if self.run.allow_repair:
            with stage("repair", _log) as found:
                values, changed = _repaired(self.lp, point.values)
                kind = RepairKind.ENVELOPE if changed else RepairKind.NONE
                candidate = _Candidate(values, Repair(kind))
                found.update(kind=str(candidate.fix.kind))
        elif not within_privacy(point.epsilon, self.lp.spec.epsilon):
            raise not_private(self.lp.spec.privacy, f"ε = {point.epsilon:.12g}")
        reference = self.lp.reference
        if lp_value(self.high, reference) < lp_value(self.high, candidate.values):
            candidate = _Candidate(reference.copy(), candidate.fix, "reference")
        point.candidate = candidate
        return candidate

    def certify(self, candidate: _Candidate) -> float | None:
        candidate.epsilon = self._epsilon(candidate.values, "returned")
        if not within_privacy(candidate.epsilon, self.lp.spec.epsilon):
            return None
        return lp_value(self.high, candidate.values)

    def bound(self, built: AdditiveLP2D, point: _Read) -> float:
        if point.candidate is None:
            return -math.inf
        values = built.complete(point.candidate.values)
        lower = lp_interval(built, values, accuracy=self.run.accuracy)[0]
        return lower / (1.0 + built.mass_rtol) if lower > 0 else lower * (1.0 + built.mass_rtol)

    def design(self, out: Outcome[AdditiveLP2D, _Read, _Candidate]) -> DesignedNoise2D:
        """The designed noise of the loop's outcome, with its record."""
        lp, read, best = self.lp, out.used.point, out.best.candidate
        value, fix = out.best.value, best.fix
        prov = out.provenance(
            accuracy=self.run.accuracy,
            violation_before=read.violation,
            violation_after=0.0,
            repair=Repair(fix.kind, 0.0, value - read.value if fix.kind != RepairKind.NONE else 0),
        )
        record = DesignRecord2D(
            spec=lp.spec,
            provenance=prov,
            certified_epsilon=best.epsilon,
            raw_certified_epsilon=read.epsilon,
            window=lp.window.method,
            lp_objective=float(out.used.info.objective) * lp.objective_factor,
            source=best.source,
            reduced=lp.spec.group,
            cost_error=max(value - lp_value(lp, best.values), 0.0),
            staircase_value=lp_value(self.high, lp.reference),
        )
        noise = _noise(lp, best.values)
        return DesignedNoise2D(
            record=record,
            densities=noise.description()["densities"],
            width=noise.width,
            sensitivity=noise.sensitivity,
            norm=noise.norm,
            tails=list(noise.tails),
            epsilon=lp.spec.epsilon,
            tail_masses=noise._tail_mass,
        )


def finish_design_2d(
    lp: AdditiveLP2D,
    info: SolveInfo,
    *,
    allow_repair: bool = True,
    accuracy: float = DEFAULT_ACCURACY,
    stacklevel: int = 3,
    repair: bool | None = None,
) -> DesignedNoise2D:
    """Read, repair, certify, bound and wrap the solution of a solved 2-D LP (module text).

    ``allow_repair`` and ``accuracy`` are those of `optmech.design_noise` (``repair`` is the
    deprecated spelling of ``allow_repair``); ``stacklevel`` that of the warning of a wide interval.
    """
    allow_repair = renamed_flag(allow_repair, repair, new_name="allow_repair", old_name="repair")
    run = DesignRun(allow_repair=allow_repair, accuracy=accuracy)
    return _designed(Design2DSolve(lp, run, solved=(lp, info)), stacklevel)
