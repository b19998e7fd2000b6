"""The full theorem catalogue (``optmech verify``, sweeps included) passes, row by row.

No tolerance is set here: each row is decided by its own rule (a certified interval against an
outward-rounded reference, a derived tolerance, or an exact fact), so the test does not depend
on the solver's tolerances, its build, or the BLAS underneath. About 40 s on two shared cores.
"""

from __future__ import annotations

import pytest

from optmech.theorems.catalogue import run_checks


@pytest.mark.slow
def test_full_catalogue_passes() -> None:
    rows = [row for _chk, found, _s in run_checks(quick=False) for row in found]
    failed = [f"{r.check} ({r.instance}): {r.detail}" for r in rows if not r.passed]
    assert not failed, f"{len(failed)} of {len(rows)} rows fail:\n" + "\n".join(failed)
    assert len(rows) >= 440
