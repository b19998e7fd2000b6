"""The searches of `optmech.shuffle_mechanism` along its frontier lines: a blanket line's LP at
its bracket's ends, and a variation line's bisection on its LP's own certificate."""

from __future__ import annotations

import math
from typing import Any

from optmech._floats import FloatArray
from optmech.certify.shuffle import ShuffleGuarantee, shuffle_epsilon
from optmech.constraints import Constraint
from optmech.exceptions import InfeasibleConstraintsError, OptmechError, SolverError
from optmech.lp.matrix.envelope import Objective
from optmech.lp.matrix.envelope_engine import solve_local
from optmech.lp.matrix.envelope_setting import LocalSetting
from optmech.lp.shuffle.frontier import (
    Bracket,
    blanket_rows,
    clone_probability,
    largest_certified,
    variation_cap,
    variation_rows,
)
from optmech.lp.shuffle.result import FrontierPoint, VariationPoint
from optmech.provenance import Provenance

__all__ = ["Line", "Variation", "search_line", "search_variation"]

#: Relative steps down in ε₀ when an LP's matrix misses the target by its own certificate.
_SHRINK = (0.0, 1e-4, 1e-3, 1e-2)


def _objective(setting: LocalSetting) -> Objective:
    if setting.prior is None:
        return Objective(forms=setting.loss)
    return Objective(weights=setting.prior[:, None] * setting.loss)


class Line:
    """One θ of the frontier: its bracket, its LP at the certified end and its bound."""

    def __init__(self, theta: float) -> None:
        self.theta = theta
        self.matrix: FloatArray | None = None
        self.guarantee: ShuffleGuarantee | None = None
        self.provenance: Provenance | None = None
        self.point: FrontierPoint | None = None


def _solve_with(
    setting: LocalSetting,
    epsilon0: float,
    rows: tuple[Constraint, ...],
    solver: str | None,
    accuracy: float,
) -> Any:
    """The envelope LP at ``epsilon0`` with the constraints ``rows`` (the caller's and a
    line's own)."""
    return solve_local(
        setting,
        epsilon0,
        _objective(setting),
        rows,
        solver=solver,
        accuracy=accuracy,
        designer="shuffle_mechanism",
    )


def _solve_at(
    setting: LocalSetting,
    epsilon0: float,
    theta: float,
    items: tuple[Constraint, ...],
    solver: str | None,
    accuracy: float,
) -> Any:
    p = clone_probability(epsilon0, theta)
    extra = (blanket_rows(setting.num_inputs, setting.num_outputs, p),) if theta > 0 else ()
    return _solve_with(setting, epsilon0, (*items, *extra), solver, accuracy)


def search_line(
    line: Line,
    bracket: Bracket,
    setting: LocalSetting,
    items: tuple[Constraint, ...],
    target: tuple[float, float, int],
    solver: str | None,
    accuracy: float,
) -> None:
    """Solve the LP of ``line`` at the bracket's certified end (stepping down while its matrix
    misses the target by its own certificate) and at the excluded end (for the bound)."""
    epsilon, delta, n = target
    value = central = None
    accepted = False
    eps0 = bracket.certified
    lower = 0.0
    for shrink in _SHRINK:
        eps0 = bracket.certified * (1.0 - shrink)
        solved = _solve_at(setting, eps0, line.theta, items, solver, accuracy)
        if shrink == 0.0 and bracket.excluded is None:  # nothing excluded up to ε₀ = 50
            lower = solved.provenance.lower_bound
        guarantee = shuffle_epsilon(solved.mechanism, n, delta)
        value, central = solved.provenance.value, guarantee.epsilon
        if guarantee.epsilon <= epsilon:
            accepted = True
            line.matrix, line.guarantee = solved.mechanism, guarantee
            line.provenance = solved.provenance
            break
    if bracket.excluded is not None:
        try:
            relaxed = _solve_at(setting, bracket.excluded, line.theta, items, solver, accuracy)
            lower = relaxed.provenance.lower_bound
        except OptmechError:  # no bound known: the trivial one
            lower = 0.0
    line.point = FrontierPoint(
        theta=line.theta,
        local_epsilon=eps0,
        excluded_epsilon=bracket.excluded,
        clone_probability=clone_probability(eps0, line.theta),
        value=value,
        central_epsilon=central,
        accepted=accepted,
        lower_bound=max(0.0, float(lower)),
    )


class Variation:
    """One variation line: its point and the certified LP at its largest certified ε₀."""

    def __init__(
        self,
        point: VariationPoint,
        matrix: FloatArray,
        guarantee: ShuffleGuarantee,
        provenance: Provenance,
    ) -> None:
        self.point, self.matrix, self.guarantee = point, matrix, guarantee
        self.provenance = provenance


def search_variation(
    b: float,
    setting: LocalSetting,
    items: tuple[Constraint, ...],
    target: tuple[float, float, int],
    options: tuple[str | None, float, float],
    start: float | None,
) -> Variation | None:
    """The line ``b``: the largest ε₀ whose LP (with the variation row ``β_b(ε₀)``; none for
    ``b = 1``) gives a matrix certified at the target by its own certificate, found by
    `largest_certified` on that certificate (a failed LP counts as not certified)."""
    epsilon, delta, n = target
    solver, accuracy, tolerance = options
    seen: dict[float, tuple[Any, ShuffleGuarantee]] = {}

    def central(eps0: float) -> float:
        extra = (variation_rows(variation_cap(eps0, b)),) if b > 1.0 else ()
        try:
            solved = _solve_with(setting, eps0, (*items, *extra), solver, accuracy)
        except (SolverError, InfeasibleConstraintsError):
            return math.inf
        guarantee = shuffle_epsilon(solved.mechanism, n, delta)
        seen[eps0] = (solved, guarantee)
        return guarantee.epsilon

    bracket = largest_certified(central, epsilon, tolerance, start)
    if bracket is None:
        return None
    solved, guarantee = seen[bracket.certified]
    top = bracket.certified if bracket.excluded is None else bracket.excluded
    lower = seen[top][0].provenance.lower_bound if top in seen else 0.0
    point = VariationPoint(
        outputs_count=b,
        local_epsilon=bracket.certified,
        excluded_epsilon=bracket.excluded,
        variation=variation_cap(bracket.certified, b),
        value=solved.provenance.value,
        central_epsilon=guarantee.epsilon,
        lower_bound=max(0.0, float(lower)),
    )
    return Variation(point, solved.mechanism, guarantee, solved.provenance)
