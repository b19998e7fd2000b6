"""``python -m benchmarks.compare``: two sets of benchmark files, matched case by case.

Independent truth: files written here with known seconds, so each ratio and summary is known
in advance (after / before of the medians)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmarks import compare


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps({"rows": rows}), encoding="utf-8")
    return path


def test_cases_meet_by_their_parameters_and_ratios_are_of_medians(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = {"section": "additive", "m": 10, "solver": "HIGHS"}
    b = {"section": "grs", "n": 50, "solver": "HIGHS"}
    before = [
        _write(tmp_path / "b1.json", [{**a, "total": 1.0}, {**b, "total": 2.0, "status": "ok"}]),
        _write(tmp_path / "b2.json", [{**a, "total": 3.0}, {**b, "total": 2.0}]),
    ]
    after = [
        _write(tmp_path / "a1.json", [{**a, "total": 2.2}, {**b, "total": 1.0, "status": "x"}]),
        _write(tmp_path / "a2.json", [{**a, "total": 2.2}, {"section": "only", "total": 5.0}]),
    ]
    rows = compare.compare(compare.totals(before), compare.totals(after))
    assert [(dict(case)["section"], b_s, a_s) for case, b_s, a_s, _ in rows] == [
        ("grs", 2.0, 1.0),
        ("additive", 2.0, 2.2),
    ]
    assert compare.main(["--before", *map(str, before), "--after", *map(str, after)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    ratios = (0.5, 1.1)
    assert f"median {sum(ratios) / 2:.3f}" in last
    assert f"geometric mean {math.sqrt(ratios[0] * ratios[1]):.3f}" in last
    assert last.endswith("1 slower by more than 5%")


def test_rows_without_a_time_are_left_out(tmp_path: Path) -> None:
    rows = [
        {"section": "s", "m": 1, "status": "timeout"},
        {"section": "s", "m": 2, "total": True},
        {"section": "s", "m": 3, "total": 0.5},
    ]
    found = compare.totals([_write(tmp_path / "r.json", rows)])
    assert found == {(("section", "s"), ("m", 3)): [0.5]}
    assert compare.report([], 0.05) == "no case appears on both sides"
