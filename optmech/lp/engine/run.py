"""How a design is solved: the settings every designer passes down unchanged."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from optmech._deprecation import warn_deprecated
from optmech._validation import check_flag
from optmech.provenance import DEFAULT_ACCURACY

__all__ = ["DesignRun", "renamed_flag"]


def renamed_flag(new: bool, old: bool | None, *, new_name: str, old_name: str) -> bool:
    """A boolean parameter renamed from ``old_name`` to ``new_name``: the old spelling, when
    given, wins and warns (`DeprecationWarning` naming the new one); both are validated."""
    if old is None:
        return check_flag(new_name, new)
    warn_deprecated(f"`{old_name}=`", f"`{new_name}=`", stacklevel=4)
    return check_flag(old_name, old)


@dataclass(frozen=True, init=False)
class DesignRun:
    """How a design is solved: the settings every designer passes down unchanged.

    Attributes
    ----------
    solver : str or None
        cvxpy solver name; None for the policy of `optmech.lp.solve.solve_robust`.
    allow_repair : bool
        Repair a point that is not exactly private (else raise `PrivacyViolationError`). The
        constructor still takes the deprecated spelling ``repair=`` (a repair is a `Repair` record
        everywhere else).
    accuracy : float
        Certified-interval width above which a warning is issued.
    options : dict or None
        Options passed to the solver.
    verbose : bool
        Log the stages at INFO to stderr (`optmech.lp.engine.report`).
    progress : bool
        Show a progress bar of the stages.
    """

    solver: str | None
    allow_repair: bool
    accuracy: float
    options: dict[str, Any] | None
    verbose: bool
    progress: bool

    def __init__(
        self,
        solver: str | None = None,
        allow_repair: bool = True,
        accuracy: float = DEFAULT_ACCURACY,
        options: dict[str, Any] | None = None,
        verbose: bool = False,
        progress: bool = False,
        *,
        repair: bool | None = None,
    ) -> None:
        if repair is not None:
            warn_deprecated("`DesignRun(repair=...)`", "`DesignRun(allow_repair=...)`")
            allow_repair = check_flag("repair", repair)
        values = (solver, allow_repair, accuracy, options, verbose, progress)
        for f, value in zip(dataclasses.fields(self), values, strict=True):
            object.__setattr__(self, f.name, value)

    @property
    def repair(self) -> bool:
        """Deprecated name of ``allow_repair``."""
        warn_deprecated("`DesignRun.repair`", "`DesignRun.allow_repair`")
        return self.allow_repair

    def with_solver(self, solver: str) -> DesignRun:
        """The same settings with another solver (a cross-check)."""
        return dataclasses.replace(self, solver=solver)
