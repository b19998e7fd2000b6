"""Solvers print nothing on standard output unless asked (``verbose=True``): HiGHS's licence
banner, printed by highspy to C's stdout the first time a ``Highs`` object is built, would
corrupt machine-readable output such as ``optmech verify --json``. Checked in a fresh
interpreter, where the banner has not been printed yet."""

from __future__ import annotations

import json
import subprocess
import sys


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


def test_a_highs_solve_prints_nothing() -> None:
    code = (
        "import optmech\n"
        "r = optmech.bayesian_mechanism([0.5, 0.5], optmech.costs.Absolute(), 1.0,"
        " solver='HIGHS')\n"
    )
    assert _run(code) == ""


def test_verify_json_is_valid_json() -> None:
    out = _run(
        "from optmech.cli import main\n"
        "raise SystemExit(main(['verify', '--check', 'field: zero optimum', '--json']))\n"
    )
    assert json.loads(out)["passed"] is True
