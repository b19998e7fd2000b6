"""The theorem catalogue behind ``optmech verify``.

Each module of this package registers checks with :func:`optmech.theorems.catalogue.check`;
:func:`~optmech.theorems.catalogue.run_checks` imports them all and runs them.
"""

from optmech.theorems.catalogue import (
    Check,
    CheckResult,
    check,
    compare,
    load_all,
    registered_checks,
    relative_gap,
    run_checks,
    select_checks,
)

__all__ = [
    "Check",
    "CheckResult",
    "check",
    "compare",
    "load_all",
    "registered_checks",
    "relative_gap",
    "run_checks",
    "select_checks",
]
