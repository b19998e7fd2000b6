"""The theorem catalogue behind ``optmech verify``.

Each module of this package registers checks with :func:`optmech.theorems.catalogue.check`;
:func:`~optmech.theorems.catalogue.run_checks` imports them all and runs them. Rows backed by an
LP are decided by its certified interval (:func:`~optmech.theorems.catalogue.certificate_row`),
not by a tolerance; ``optmech verify --exact`` reproduces the small rows in exact arithmetic
(:mod:`optmech.theorems.exact`).
"""

from optmech.theorems.catalogue import (
    Check,
    CheckResult,
    agreement_row,
    bound_row,
    certificate_row,
    check,
    compare,
    exact_row,
    guarded,
    load_all,
    registered_checks,
    relative_gap,
    run_checks,
    select_checks,
)

__all__ = [
    "Check",
    "CheckResult",
    "agreement_row",
    "bound_row",
    "certificate_row",
    "check",
    "compare",
    "exact_row",
    "guarded",
    "load_all",
    "registered_checks",
    "relative_gap",
    "run_checks",
    "select_checks",
]
