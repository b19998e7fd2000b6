"""The theorem catalogue (``optmech verify``: sweeps, field checks and the exact mode) passes, one
test item per registered check.

The item's id is the check's name, so ``-k``, failure reports and ``--durations`` name the check
(``pytest tests/test_verify_full.py -k "GRS and sweep"``). This is the suite's one run of the
catalogue; the CLI's tests run demo checks and single named checks only.

No tolerance is set here: each row is decided by its own rule (a certified interval against an
outward-rounded reference, a derived tolerance, or an exact fact), so the test does not depend
on the solver's tolerances, its build, or the BLAS underneath.
"""

from __future__ import annotations

import math

import pytest

from optmech.theorems.catalogue import Check, load_all, registered_checks, run_checks

load_all()
#: Every registered check, in registration order.
CHECKS: list[Check] = list(registered_checks().values())

#: Checks that take more than about a second here (``--durations``): left out of the fast
#: subset (``pytest -m "not slow"``).
SLOW = {
    "staircase LP (fine grid)",
    "staircase LP convergence",
    "discrete staircase LP (sweep)",
    "uniform+atom LP (sweep)",
    "monotone collapse",
    "window forms",
    "minimax optimality (sweep n ≤ 50)",
    "Brenner–Nissim (sweep)",
    "GRS universal optimality (sweep n ≤ 50)",
    "GRS uniqueness (sweep)",
    "optimal vertices are remaps of G (sweep n ≤ 50)",
    "field: large-ε designs",
    "field: count LPs at ε ≥ 15",
    "field: minimax n=30, ε=3, S={0, 30}",
    "query-dependent worst case (sweep)",
}

#: The kinds of rule a row may be decided by.
KINDS = {"certificate", "tolerance", "exact", "bound", "agreement"}


def test_the_catalogue_is_complete_and_the_slow_list_names_real_checks() -> None:
    names = {c.name for c in CHECKS}
    assert len(CHECKS) >= 40 and SLOW <= names
    assert {c.group for c in CHECKS} >= {"closed-form", "additive-lp", "count-lp", "field", "exact"}


@pytest.mark.parametrize(
    "check",
    [
        pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.name in SLOW else [])
        for c in CHECKS
    ],
)
def test_check_passes(check: Check) -> None:
    ((found, rows, _seconds),) = run_checks(quick=False, names=[check.name], exact=check.exact)
    assert found is check
    failed = [f"{r.check} ({r.instance}): {r.detail}" for r in rows if not r.passed]
    assert not failed, f"{len(failed)} of {len(rows)} rows fail:\n" + "\n".join(failed)
    assert rows, "a check yields at least one row"
    for row in rows:
        assert row.kind in KINDS and row.rule, row
        assert row.exact == check.exact
        if row.kind == "certificate":
            assert math.isfinite(float(row.lower_bound)), row
