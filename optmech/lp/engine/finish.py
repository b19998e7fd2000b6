"""Finishing a solved row-block LP: read, certify, repair, compete, certify, bound, record.

Every additive designer (1-D, 2-D) turns the solver's point of its LP into a certified result
the same way; only the steps differ, and a designer supplies them (`Steps`):

1. **read** the solver's point into the designer's own description of a noise;
2. **certify** it from the numbers alone (logged as the stage ``certify`` of the solver's
   point) and take its ``value``;
3. **repair** it into an exactly feasible point of the LP — always when the designer's repair
   is unconditional (its rows strictly inside the guarantee), else only when the certificate
   failed; without ``allow_repair`` a point that fails is refused
   (`not_private`);
4. **compete**: a known point of the same LP that costs less replaces it (its ``source``);
5. **certify** the returned point again (a point that still fails is an error, never returned);
6. **bound** it: the certified interval ``[lower_bound, value]`` and the violation left;
7. **record** the provenance (`design_provenance`) and wrap the result.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from optmech.exceptions import PrivacyViolationError
from optmech.lp.engine.acceptance import not_private
from optmech.lp.engine.record import design_provenance
from optmech.lp.engine.report import stage
from optmech.lp.solve import SolveInfo
from optmech.provenance import Provenance, Repair, RepairKind

__all__ = ["Certificate", "Finished", "Steps", "finish"]

_log = logging.getLogger(__name__)

P = TypeVar("P")
R = TypeVar("R", covariant=True)


@dataclass(frozen=True)
class Certificate:
    """Whether a point meets the guarantee, what its certificate says (``shown``: the fields
    logged and the text of an error), and the fields the designer records."""

    holds: bool
    shown: str
    found: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Finished(Generic[P]):
    """What the steps hand to ``wrap``: the returned point and its certificate, the solver's
    point's certificate, where the point came from, and the provenance."""

    point: P
    certificate: Certificate
    raw: Certificate
    source: str
    provenance: Provenance


class Steps(Protocol[P, R]):
    """A designer's steps (module docstring)."""

    @property
    def always_repair(self) -> bool:
        """The repair always runs when allowed (the rows sit strictly inside the guarantee)."""

    def read(self) -> P: ...
    def certify(self, point: P) -> Certificate: ...
    def value(self, point: P) -> float: ...
    def repair(self, point: P) -> tuple[P, Repair]: ...
    def compete(self, point: P) -> tuple[P, str]: ...
    def bound(self, point: P, accuracy: float) -> tuple[float, float, float]: ...
    def wrap(self, finished: Finished[P]) -> R: ...


def finish(
    steps: Steps[P, R],
    lp: Any,
    info: SolveInfo,
    *,
    allow_repair: bool,
    accuracy: float,
    what: str = "noise",
) -> R:
    """Run the steps on the solved ``lp`` (module docstring).

    Raises
    ------
    PrivacyViolationError
        The solver's point fails its certificate and ``allow_repair`` is False, or the
        returned point fails it even after the repair (``what`` names the result).
    """
    raw = steps.read()
    with stage("certify", _log, point="solver's") as found:
        raw_cert = steps.certify(raw)
        found.update(raw_cert.found, holds=raw_cert.holds)
    raw_value = steps.value(raw)
    point, fix = raw, Repair()
    with stage("repair", _log) as found:
        if allow_repair and (steps.always_repair or not raw_cert.holds):
            point, fix = steps.repair(raw)
        elif not raw_cert.holds:
            raise not_private(lp.spec.privacy, raw_cert.shown)
        found.update(kind=str(fix.kind), weight=fix.weight)
    point, source = steps.compete(point)
    with stage("certify", _log, point="returned") as found:
        cert = steps.certify(point)
        found.update(cert.found, holds=cert.holds)
    if not cert.holds:
        raise PrivacyViolationError(
            f"the designed {what} is not {lp.spec.privacy} even after repair ({fix.kind}): "
            f"certified {cert.shown}."
        )
    lower, value, after = steps.bound(point, accuracy)
    cost = value - raw_value if fix.kind != RepairKind.NONE else 0.0
    prov = design_provenance(
        lp,
        info,
        (lower, value),
        accuracy,
        (lp.violation(lp.point()), after),
        Repair(fix.kind, fix.weight, cost),
    )
    return steps.wrap(Finished(point, cert, raw_cert, source, prov))
