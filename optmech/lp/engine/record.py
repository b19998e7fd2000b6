"""Assembling the `Provenance` of a designed result.

Every designer (1-D, beyond (ε, δ), 2-D) records the same things about its solve: the
attempts, timings and sizes of the successful solve
(`provenance_of`), the build time, the certified interval,
the accuracy asked for, the violations of the solver's point before and of the returned point
after the repair, and the repair itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from optmech._floats import FloatArray
from optmech.lp.solve import SolveInfo, provenance_of
from optmech.provenance import Provenance, Repair

__all__ = ["Solved", "design_provenance"]


@dataclass(frozen=True)
class Solved:
    """What a matrix LP's engine (the user LPs, the local model) hands back to its public
    function: the certified mechanism, the solver's point before the repair and its value, the
    certified ε, the provenance and the solve's record."""

    mechanism: FloatArray
    raw_mechanism: FloatArray
    raw_value: float
    certified_epsilon: float
    provenance: Provenance
    info: SolveInfo


def design_provenance(
    lp: Any,
    info: SolveInfo,
    interval: tuple[float, float],
    accuracy: float,
    violations: tuple[float, float],
    fix: Repair,
) -> Provenance:
    """The solve's record: attempts, timings, violations, the repair and the interval.

    Parameters
    ----------
    lp : LPReadout
        The LP solved (its ``build_time`` is recorded).
    info : SolveInfo
        The successful solve.
    interval : (float, float)
        ``(lower_bound, value)``.
    accuracy : float
        The accuracy asked for.
    violations : (float, float)
        Largest violation of the solver's point, and of the returned point.
    fix : Repair
        What made the point exactly private, and at what cost.
    """
    lower, value = interval
    return provenance_of(
        info,
        value=value,
        lower_bound=lower,
        build_time=lp.build_time,
        accuracy=accuracy,
        violation_before=violations[0],
        violation_after=violations[1],
        repair=fix,
    )
