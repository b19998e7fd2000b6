"""``benchmarks.noise``: the page's band of run-to-run noise and the check of a new run.

Independent truth: reports written here with known seconds and values, so each band, each case
outside it and each changed value is known in advance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import compare, noise, page


def _report(rows: list[dict[str, Any]], started: str = "2026-01-01 00:00:00") -> dict[str, Any]:
    return {"rows": rows, "started": started, "command": "python -m benchmarks --repeat 1"}


def _case(m: int, total: float, value: float = 1.0) -> dict[str, Any]:
    return {"section": "additive", "m": m, "solver": "HIGHS", "total": total, "value": value}


def test_bands_are_the_ratio_range_of_each_duration_class() -> None:
    here = _report([_case(1, 0.05), _case(2, 0.5), _case(3, 0.8), _case(4, 20.0)])
    other = _report([_case(1, 0.06), _case(2, 0.4), _case(3, 1.2), _case(4, 18.0)])
    found = {
        (b.low_s, b.high_s): (b.cases, b.smallest, b.largest) for b in noise.bands(here, [other])
    }
    assert found[(0.0, 0.1)] == (1, pytest.approx(1.2), pytest.approx(1.2))
    assert found[(0.1, 1.0)] == (2, pytest.approx(0.8), pytest.approx(1.5))
    assert found[(10.0, float("inf"))] == (1, pytest.approx(0.9), pytest.approx(0.9))
    assert (1.0, 10.0) not in found  # no case of that class


def test_a_new_run_is_checked_against_the_bands_and_its_values(tmp_path: Path) -> None:
    here = _report([_case(2, 0.5), _case(3, 0.8, value=2.0)])
    other = _report([_case(2, 0.4), _case(3, 1.2, value=2.0)])
    # m = 2: 0.5 → 0.70 is a ratio of 1.4, inside [0.8, 1.5]; m = 3: 0.8 → 1.6 is 2.0, outside.
    new = _report([_case(2, 0.70), _case(3, 1.6, value=2.0 * (1 + 1e-6))])
    outside, changed, compared = noise.check(here, [other], new)
    assert compared == 2
    assert len(outside) == 1 and "m=3" in outside[0] and outside[0].startswith(" 2.000")
    assert len(changed) == 1 and "m=3" in changed[0] and "value" in changed[0]
    paths = []
    for name, rep in (("here", here), ("other", other), ("new", new)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(rep), encoding="utf-8")
    assert noise.main(["--page-runs", str(paths[0]), str(paths[1]), "--new", str(paths[2])]) == 1
    assert noise.main(["--page-runs", str(paths[0]), str(paths[1]), "--new", str(paths[1])]) == 0


def test_a_shuffle_case_is_named_by_its_parameters_not_its_result() -> None:
    row = {"section": "shuffle", "k": 32, "eps0": 4.0, "n": 10_000, "epsilon": 0.32,
           "method": "variation-ratio", "total": 0.3}  # fmt: skip
    again = {**row, "epsilon": 0.31, "method": "blanket"}
    assert compare.case_of(row) == compare.case_of(again)
    assert dict(compare.case_of(row)) == {"section": "shuffle", "k": 32, "eps0": 4.0, "n": 10_000}


def test_the_page_states_its_noise_and_how_to_check_a_rerun() -> None:
    rows = [_case(2, 0.5), _case(3, 2.0)]
    here = _report(rows)
    here.update(mode="full", load_start=1.0, load_end=1.0, versions={}, repeat=1)
    other = _report([_case(2, 0.6), _case(3, 1.8)], started="2026-01-02 00:00:00")
    text = "\n".join(noise.page_lines(here, [other]))
    assert "2026-01-02 00:00:00" in text
    assert "| 0.1–1 s | 1 | 1.20–1.20 |" in text and "| 1–10 s | 1 | 0.90–0.90 |" in text
    assert "were the same (2)." in text and "left out" not in text
    # A case whose computed value changed ran other code: it is left out of the bands.
    moved = _report([_case(2, 0.6, value=3.0), _case(3, 1.8)], started="2026-01-03 00:00:00")
    again = "\n".join(noise.page_lines(here, [moved]))
    assert "| 0.1–1 s |" not in again and "| 1–10 s | 1 | 0.90–0.90 |" in again
    assert "1 cases computed other values in another run (sections: additive)" in again
    assert (
        page.rerun_command(
            {"command": "python -m benchmarks --repeat 1 --out r --page docs/p.md --noise a.json"}
        )
        == "python -m benchmarks --repeat 1 --out benchmark-results"
    )
