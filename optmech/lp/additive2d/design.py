"""Design certified 2-D additive noise: solve, read, repair, certify, bound, record.

`design_noise_2d` takes a validated
`AdditiveSpec2D`, builds its LP
(`build_additive_lp_2d`) and solves it through
optmech's one solver path (`optmech.lp.solve.solve_robust`). The LP
is feasible by construction (each gauge tail shape, continued into the box, is a point of it), so a
failed status is numerical trouble and is retried.

`finish_design_2d` reads the noise off the solver's point (clipped at 0), raises
it to the least envelope whose window and band ratios are at most ``e^ε``
(`envelope_2d`), certifies it from the numbers alone
(`optmech.certify.noise2d.noise2d_epsilon`) and returns
it with a certified interval
``[lower_bound, value]`` containing the LP's optimum:

* ``value`` — the LP objective at the returned point with the *upper* ends of the cells' cost
  averages and the tails' cost series, divided by its mass, rounded up: at least the exact
  expected cost of the returned noise;
* ``lower_bound`` — weak duality with the solver's multipliers
  (`lp_interval`, the engine's, as in 1-D: values and
  tail scales in one simplex block, auxiliaries in boxes) with the *lower*
  ends of the costs, divided by
  ``1 + r`` where ``r`` bounds the relative rest of the tails' mass series (a point of the LP
  with the exact masses, rescaled to this LP's masses, costs at most ``1 + r`` times more).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

import numpy as np

from optmech._floats import FloatArray
from optmech.certify.noise2d import noise2d_epsilon, row_half_widths
from optmech.lp.additive2d.designed import DesignedNoise2D, DesignRecord2D
from optmech.lp.additive2d.lp import AdditiveLP2D, build_additive_lp_2d
from optmech.lp.additive2d.repair import envelope_2d
from optmech.lp.additive2d.spec import AdditiveSpec2D
from optmech.lp.engine.acceptance import within_privacy
from optmech.lp.engine.finish import Certificate, Finished, finish
from optmech.lp.engine.interval import lp_interval, lp_value
from optmech.lp.engine.report import reporting, stage
from optmech.lp.engine.run import DesignRun, renamed_flag
from optmech.lp.engine.solving import solve_built
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
        solved, info = solve_built(lp, run, kind="additive2d", feasible=True, fresh=True)
        return finish_design_2d(
            solved, info, allow_repair=run.allow_repair, accuracy=run.accuracy, stacklevel=5
        )


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
    k = lp.num_reps
    box = lp.box(values)
    bound = lp.spec.epsilon
    widths = row_half_widths(lp.spec.sensitivity_norm, lp.spec.resolution)
    box, scales, changed = envelope_2d(box, values[k:], lp.tails, widths, bound)
    reps = np.zeros(k)
    np.maximum.at(reps, lp.orbit, box.ravel())  # the max over the group of ε-DP images
    return np.concatenate([reps, scales]), changed


@dataclass
class _Steps:
    """The 2-D steps of `optmech.lp.engine.finish.finish` on value and tail-scale variables."""

    lp: AdditiveLP2D
    info: SolveInfo
    #: Unlike the 1-D window, the band rows hold at ``e^ε`` exactly (`_repaired`): the
    #: envelope always runs, and the certificate is accepted to its rounding margin.
    always_repair = True

    @property
    def high(self) -> AdditiveLP2D:
        """The LP with the upper ends of the costs (the value of a point)."""
        return dataclasses.replace(self.lp, weights=self.lp.weights_high)

    def read(self) -> FloatArray:
        return np.maximum(self.lp.point()[: self.lp.num_reps + len(self.lp.tails)], 0.0)

    def certify(self, values: FloatArray) -> Certificate:
        eps = float(noise2d_epsilon(**_noise(self.lp, values).description()))
        ok = within_privacy(eps, self.lp.spec.epsilon)
        return Certificate(ok, f"ε = {eps:.12g}", {"certified_epsilon": eps})

    def value(self, values: FloatArray) -> float:
        return lp_value(self.high, values)

    def repair(self, values: FloatArray) -> tuple[FloatArray, Repair]:
        values, changed = _repaired(self.lp, values)
        return values, Repair(RepairKind.ENVELOPE if changed else RepairKind.NONE)

    def compete(self, values: FloatArray) -> tuple[FloatArray, str]:
        if self.value(self.lp.reference) < self.value(values):
            return self.lp.reference.copy(), "reference"
        return values, "solver"

    def bound(self, values: FloatArray, accuracy: float) -> tuple[float, float, float]:
        lp = self.lp
        lower = lp_interval(lp, lp.complete(values), accuracy=accuracy)[0]
        lower = lower / (1.0 + lp.mass_rtol) if lower > 0 else lower * (1.0 + lp.mass_rtol)
        return lower, self.value(values), 0.0

    def wrap(self, done: Finished[FloatArray]) -> DesignedNoise2D:
        lp, values = self.lp, done.point
        noise = _noise(lp, values)
        record = DesignRecord2D(
            spec=lp.spec,
            provenance=done.provenance,
            certified_epsilon=done.certificate.found["certified_epsilon"],
            raw_certified_epsilon=done.raw.found["certified_epsilon"],
            window=lp.window.method,
            lp_objective=float(self.info.objective) * lp.objective_factor,
            source=done.source,
            reduced=lp.spec.group,
            cost_error=max(self.value(values) - lp_value(lp, values), 0.0),
            staircase_value=self.value(lp.reference),
        )
        desc = noise.description()
        return DesignedNoise2D(
            record=record,
            densities=desc["densities"],
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

    ``allow_repair`` and ``accuracy`` are those of
    `optmech.design_noise` (``repair`` is the deprecated
    spelling of ``allow_repair``); ``stacklevel`` that of the warning of a wide interval.
    """
    allow_repair = renamed_flag(allow_repair, repair, new_name="allow_repair", old_name="repair")
    steps = _Steps(lp, info)
    noise = finish(steps, lp, info, allow_repair=allow_repair, accuracy=accuracy, what="2-D noise")
    warn_if_uncertified(noise.provenance, stacklevel=stacklevel)
    return noise
