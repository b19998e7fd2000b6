"""Provenance of every LP-backed result: what was solved, how, and how far it can be trusted.

Every result optmech builds from an LP (designed noise, a user's mechanism, a remap, the
query-dependent noise, a common mechanism) holds one frozen `Provenance` as
``.provenance``. It records the solver and its status, the timings, every solver attempt (a
failed attempt is retried with rescaled data or another solver, see
`optmech.lp.solve.solve_robust`), the largest constraint violation
of the solver's point before and of the returned point after the privacy repair, the repair itself
(`Repair`), and the optimality interval ``[lower_bound, value]`` that contains the LP's
optimum: ``value`` is the objective at a primal point that satisfies every constraint (rounded up),
``lower_bound`` a Lagrangian bound from the solver's multipliers (rounded down), so the interval
holds whatever the solver's tolerances were.

A result is *within accuracy* when that interval is at most `Provenance.accuracy` wide
(relative to the value); only then is a solver's "inaccurate" status harmless, and only
otherwise does optmech warn (`warn_if_uncertified`). The word
"certified" is kept for privacy (a certified ε, δ, ρ or μ); the interval's width is
``within_accuracy`` (``Provenance.certified`` is its deprecated name).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from optmech._deprecation import warn_deprecated
from optmech.exceptions import InaccurateSolutionWarning

__all__ = [
    "DEFAULT_ACCURACY",
    "Attempt",
    "ConstraintRecord",
    "CutRound",
    "Provenance",
    "ProvenanceBounds",
    "ProvenanceFields",
    "Repair",
    "RepairKind",
    "warn_if_uncertified",
]

#: Default requested accuracy: the optimality interval ``[lower_bound, value]`` may be this wide
#: relative to ``|value|`` (or absolutely, when the value is below 1) before optmech warns.
DEFAULT_ACCURACY = 1e-6


class RepairKind(StrEnum):
    """How a solver's nearly private point was made exactly private."""

    #: The solver's point was private as it was (after clipping and normalisation).
    NONE = "none"
    #: Additive ε-DP noise: cells raised to the least ε-DP envelope above them.
    ENVELOPE = "envelope"
    #: Additive (ε, δ) noise: mixed with a private reference density.
    MIXTURE = "mixture"
    #: Mechanism matrix: entries raised to the lower closure along the neighbour graph.
    LOWER_CLOSURE = "lower-closure"
    #: Mechanism matrix: mixed with the uniform (0-DP) mechanism.
    UNIFORM_MIXTURE = "uniform-mixture"


@dataclass(frozen=True)
class Repair:
    """What exact privacy cost.

    Attributes
    ----------
    kind : RepairKind
        The repair applied.
    weight : float
        The mixing weight of a mixture repair (0 otherwise).
    cost : float
        Objective of the returned point minus that of the solver's (clipped, normalised) point.
    """

    kind: RepairKind = RepairKind.NONE
    weight: float = 0.0
    cost: float = 0.0

    def __str__(self) -> str:
        """The kind, as `RepairKind` prints (``"envelope"``, ``"mixture"``, ...)."""
        return str(self.kind)

    def __eq__(self, other: object) -> bool:
        """Equal records; comparing with a kind (a string or a
        `RepairKind`) compares the kind, with a `DeprecationWarning`: earlier
        versions gave the kind alone on design records."""
        if isinstance(other, str):
            warn_deprecated("comparing a `Repair` with a repair kind", "`repair.kind == ...`")
            return bool(self.kind == other)
        if not isinstance(other, Repair):
            return NotImplemented
        return (self.kind, self.weight, self.cost) == (other.kind, other.weight, other.cost)

    def __hash__(self) -> int:
        return hash((self.kind, self.weight, self.cost))


@dataclass(frozen=True)
class Attempt:
    """One solver attempt.

    Attributes
    ----------
    solver : str
        The solver's name as cvxpy knows it.
    variant : str
        How the LP was built for it (``"as built"``, ``"rescaled"``, ...).
    status : str
        The status it ended with (``"optimal"``, ``"infeasible"``, ``"solver_error"``, ...).
    seconds : float
        Wall time of the attempt.
    message : str
        The solver's error message, when it raised one.
    """

    solver: str
    variant: str
    status: str
    seconds: float
    message: str = ""

    def __str__(self) -> str:
        text = f"{self.solver} ({self.variant}): {self.status}"
        return f"{text} [{self.message}]" if self.message else text


@dataclass(frozen=True)
class ConstraintRecord:
    """A constraint of the caller's own, as the returned point meets it.

    Attributes
    ----------
    name : str
        The constraint as given (its ``repr``, e.g. ``"MaxRisk(bound=0.5)"``).
    kind : str
        ``"equality"``, ``"inequality"`` or ``"custom"`` (a callable's cvxpy constraints).
    residual : float
        Largest violation at the returned point, relative to `scale` (0 when it holds with
        slack).
    scale : float
        The magnitude the residual is relative to (the bound, the largest output, 1 for a
        probability).
    """

    name: str
    kind: str
    residual: float
    scale: float = 1.0


@dataclass(frozen=True)
class CutRound:
    """One round of a cutting-plane design (guarantees over a continuum: zCDP, GDP).

    Attributes
    ----------
    points : tuple of float
        The orders α (zCDP) or ε (GDP) constrained in this round's problem.
    certified : float
        The certified ρ or μ of the round's noise (over the whole continuum).
    holds : bool
        Whether the requested guarantee was certified after this round.
    seconds : float
        Wall time of the round: build, solve, certify.
    """

    points: tuple[float, ...]
    certified: float
    holds: bool
    seconds: float


@dataclass(frozen=True)
class Provenance:
    """Where an LP-backed result comes from and the interval its optimum is certified in.

    Attributes
    ----------
    solver, status : str
        The solver whose point was used and its status (``optimal`` or ``optimal_inaccurate``).
    attempts : tuple of Attempt
        Every attempt, in order, the successful one last.
    value : float
        Objective at the returned (exactly feasible) point, rounded up: an upper bound on the
        LP's optimum.
    lower_bound : float
        A rigorous lower bound on the LP's optimum (Lagrangian, from the solver's multipliers,
        rounded down); ``-inf`` when the solver gave none.
    accuracy : float
        The requested relative accuracy of the interval (see
        `within_accuracy`).
    violation_before : float
        Largest constraint violation of the solver's raw point (absolute, the LP's units).
    violation_after : float
        Largest violation of the returned point (0 for a point that was certified feasible).
    repair : Repair
        How the solver's point was made exactly private, and at what cost.
    build_time, compile_time, solve_time, total_time : float
        Seconds: building the LP, cvxpy's canonicalisation, inside the solver (as the solver
        reports it), and the whole solve including failed attempts.
    iterations : int or None
        Solver iterations of the successful attempt, when reported.
    num_variables, num_constraints : int
        Scalar variables and constraints of the LP solved.
    options : Mapping
        The options the successful attempt passed to the solver.
    rounds : tuple of CutRound
        The rounds of a cutting-plane design, in order (empty for a single solve); the
        solver fields and timings are those of the last round.
    constraints : tuple of ConstraintRecord
        The caller's own constraints and their residuals at the returned point (empty when
        none were given).

    Examples
    --------
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                              resolution=4, periods=2, symmetric=True)
    >>> p = noise.provenance
    >>> p.status, p.within_accuracy, p.solver in p.solvers_tried
    ('optimal', True, True)
    >>> bool(p.lower_bound <= p.value and p.gap == p.value - p.lower_bound)
    True
    """

    solver: str
    status: str
    attempts: tuple[Attempt, ...]
    value: float
    lower_bound: float
    accuracy: float = DEFAULT_ACCURACY
    violation_before: float = 0.0
    violation_after: float = 0.0
    repair: Repair = field(default_factory=Repair)
    build_time: float = 0.0
    compile_time: float = 0.0
    solve_time: float = 0.0
    total_time: float = 0.0
    iterations: int | None = None
    num_variables: int = 0
    num_constraints: int = 0
    options: Mapping[str, Any] = field(default_factory=dict, repr=False)
    rounds: tuple[CutRound, ...] = ()
    constraints: tuple[ConstraintRecord, ...] = ()

    @property
    def solvers_tried(self) -> tuple[str, ...]:
        """The solvers of `attempts`, in order (repeated when retried)."""
        return tuple(a.solver for a in self.attempts)

    @property
    def gap(self) -> float:
        """``value − lower_bound``: how far, at most, `value` is above the optimum."""
        return self.value - self.lower_bound

    @property
    def relative_gap(self) -> float:
        """`gap` relative to ``max(|value|, 1)`` (absolute for values below 1)."""
        return self.gap / max(abs(self.value), 1.0)

    @property
    def within_accuracy(self) -> bool:
        """Whether the optimality interval ``[lower_bound, value]`` is at most `accuracy` wide
        (relative): the value is as close to the optimum as asked. It says nothing about
        privacy, which is certified whatever the interval's width."""
        return bool(self.relative_gap <= self.accuracy)

    @property
    def certified(self) -> bool:
        """Deprecated name of `within_accuracy` (the word "certified" is
        kept for privacy)."""
        warn_deprecated("`Provenance.certified`", "`Provenance.within_accuracy`")
        return self.within_accuracy

    def replace(self, **changes: Any) -> Provenance:
        """A copy with some fields changed (`dataclasses.replace`)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (enums as strings, non-finite floats as strings), with ``gap``
        and ``within_accuracy``; the key ``certified`` repeats ``within_accuracy`` under its
        deprecated name, for readers of earlier versions' JSON."""
        out = asdict(self)
        out["repair"]["kind"] = str(self.repair.kind)
        out["options"] = {k: repr(v) for k, v in self.options.items()}
        out["gap"] = self.gap
        out["within_accuracy"] = self.within_accuracy
        out["certified"] = self.within_accuracy
        for row in out["rounds"]:
            if not math.isfinite(row["certified"]):
                row["certified"] = str(row["certified"])
        for key, val in list(out.items()):
            if isinstance(val, float) and not math.isfinite(val):
                out[key] = str(val)
        return out

    def _repr_html_(self) -> str:
        from optmech._display import html_summary, interval, short, yes_no

        return html_summary(
            "Provenance",
            [
                ("optimality interval", interval(self.lower_bound, self.value)),
                ("gap", self.gap),
                (
                    "interval within accuracy",
                    f"{yes_no(self.within_accuracy)} (asked {short(self.accuracy)})",
                ),
                ("solver, status", f"{self.solver}, {self.status}"),
                ("attempts", " → ".join(str(a) for a in self.attempts) or "none"),
                ("repair", f"{self.repair.kind} (cost {self.repair.cost:.3g})"),
                ("violation before repair", self.violation_before),
                (
                    "seconds (build, compile, solve)",
                    f"{self.build_time:.3g}, {self.compile_time:.3g}, {self.solve_time:.3g}",
                ),
            ],
        )

    def summary(self) -> str:
        """One line: solver, status, interval and repair."""
        tried = " -> ".join(str(a) for a in self.attempts[:-1])
        return (
            f"{self.solver} {self.status}; optimum in [{self.lower_bound:.6g}, "
            f"{self.value:.6g}] (gap {self.gap:.3g}); repair {self.repair.kind}"
            + (f" (cost {self.repair.cost:.3g})" if self.repair.kind != RepairKind.NONE else "")
            + (f"; after {tried}" if tried else "")
        )


class ProvenanceBounds:
    """The optimality interval of ``self.provenance`` as read-only attributes (a mixin)."""

    provenance: Provenance

    @property
    def lower_bound(self) -> float:
        """A rigorous lower bound on the LP's optimum (rounded down): it lies in
        ``[lower_bound, value]``."""
        return self.provenance.lower_bound

    @property
    def gap(self) -> float:
        """``value − lower_bound``: how far, at most, `value` is above the optimum."""
        return self.provenance.gap

    @property
    def optimality_gap(self) -> float:
        """Deprecated name of `gap`."""
        warn_deprecated(f"`{type(self).__name__}.optimality_gap`", "`.gap`")
        return self.provenance.gap

    def _summary_rows(self) -> list[tuple[str, object]]:
        """Rows of the notebook summary (``_repr_html_``); results add their own."""
        from optmech._display import interval

        prov = self.provenance
        return [
            ("value", prov.value),
            ("optimality interval", interval(prov.lower_bound, prov.value)),
            ("gap", prov.gap),
            ("solver, status", f"{prov.solver}, {prov.status}"),
            ("repair", f"{prov.repair.kind} (cost {prov.repair.cost:.3g})"),
        ]

    def _repr_html_(self) -> str:
        from optmech._display import html_summary

        return html_summary(type(self).__name__, self._summary_rows())


class ProvenanceFields(ProvenanceBounds):
    """The flat attributes of an LP-backed result, read-only views of ``self.provenance``.

    The one mixin behind ``value``, ``lower_bound``, ``gap``, ``repair``, ``solver``,
    ``status``, the timings and sizes, ``max_violation`` and ``repair_cost`` of every LP result
    (`optmech.results.LPResult`) and of the design records.
    """

    @property
    def value(self) -> float:
        """The objective at the returned (exactly feasible) point, rounded up: an upper bound
        on the optimum (for a designed noise, its exact expected cost)."""
        return self.provenance.value

    @property
    def repair(self) -> Repair:
        """How the solver's point was made exactly private, and at what cost."""
        return self.provenance.repair

    @property
    def solver(self) -> str:
        """The solver whose point was used (``"none"`` for a result computed exactly)."""
        return self.provenance.solver

    @property
    def status(self) -> str:
        """Its status (``optimal`` or ``optimal_inaccurate``; ``exact`` without an LP)."""
        return self.provenance.status

    @property
    def solve_time(self) -> float:
        """Seconds inside the solver (of the successful attempt)."""
        return self.provenance.solve_time

    @property
    def max_violation(self) -> float:
        """Largest constraint violation of the solver's raw point (absolute, the LP's units)."""
        return self.provenance.violation_before

    @property
    def repair_cost(self) -> float:
        """``value`` minus the objective at the solver's (clipped, normalised) point: what
        exact privacy cost."""
        return self.provenance.repair.cost

    @property
    def build_time(self) -> float:
        """Seconds building the LP."""
        return self.provenance.build_time

    @property
    def compile_time(self) -> float:
        """Seconds in cvxpy's canonicalisation."""
        return self.provenance.compile_time

    @property
    def total_time(self) -> float:
        """Seconds of the whole solve, failed attempts included."""
        return self.provenance.total_time

    @property
    def iterations(self) -> int | None:
        """Solver iterations (of the successful attempt)."""
        return self.provenance.iterations

    @property
    def num_variables(self) -> int:
        """Variables of the LP solved."""
        return self.provenance.num_variables

    @property
    def num_constraints(self) -> int:
        """Scalar constraints of the LP solved."""
        return self.provenance.num_constraints


def warn_if_uncertified(provenance: Provenance, *, stacklevel: int = 3) -> None:
    """Warn (`InaccurateSolutionWarning`) when the
    interval is wide.

    A solver's ``optimal_inaccurate`` status alone is no reason to warn: the interval
    ``[lower_bound, value]`` is certified independently of the solver, and when it is within
    the requested accuracy the result is as good as asked for.
    """
    if provenance.within_accuracy:
        return
    warnings.warn(
        f"the optimality interval [{provenance.lower_bound:.10g}, {provenance.value:.10g}] is "
        f"wider than the requested accuracy {provenance.accuracy:g} (relative gap "
        f"{provenance.relative_gap:.3g}; solver {provenance.solver}, status "
        f"{provenance.status}): the value is an upper bound on the optimum, but may be above "
        "it by that much. Try another solver or raise `accuracy`.",
        InaccurateSolutionWarning,
        stacklevel=stacklevel,
    )
