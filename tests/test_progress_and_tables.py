"""Progress bars (off by default, on standard error only) on the theorem catalogue and on sweeps,
and results as tables: the sweep CSV keeps the full task key and never repeats a column name;
``ResultStore.to_dataframe()`` and ``ExperimentResult.to_dataframe()`` give the same table as
their CSV files, and say which extra to install when pandas is missing."""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from optmech.cli import main
from optmech.sweep import ResultStore, SweepSpec, run_sweep
from optmech.theorems.catalogue import run_checks

CHECK = "staircase γ* closed form"  # a closed-form check: milliseconds


def test_the_catalogue_shows_progress_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(list(run_checks(names=[CHECK]))) == 1
    assert capsys.readouterr().err == ""
    assert len(list(run_checks(names=[CHECK], progress=True))) == 1
    err = capsys.readouterr().err
    assert "verify" in err and "1/1" in err


def test_verify_progress_goes_to_standard_error_never_into_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", "--check", CHECK, "--json"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert main(["verify", "--check", CHECK, "--json", "--progress"]) == 0
    shown = capsys.readouterr()
    assert "1/1" in shown.err

    def rows(out: str) -> list[dict[str, object]]:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(out)["rows"]]

    assert rows(shown.out) == rows(quiet.out)


def test_design_progress_goes_to_standard_error_only(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["design", "--privacy", "eps=1", "--resolution", "6", "--periods", "2", "--json"]
    assert main(argv) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert main([*argv, "--progress"]) == 0
    shown = capsys.readouterr()
    assert "step" in shown.err
    assert json.loads(shown.out)["lp_value"] == json.loads(quiet.out)["lp_value"]


def test_a_sweep_shows_progress_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = SweepSpec(task="staircase", grid={"epsilon": [1.0, 2.0]}, name="bar")
    run_sweep(spec, store=tmp_path / "a.sqlite", workers=1)
    assert capsys.readouterr().err == ""
    run_sweep(spec, store=tmp_path / "b.sqlite", workers=1, progress=True)
    err = capsys.readouterr().err
    assert "bar" in err and "2/2" in err


# -- tables ------------------------------------------------------------------------------------
def _key(task: str, params: dict[str, object]) -> str:
    """The task's identity, recomputed here: SHA-256 of the canonical JSON."""
    text = json.dumps({"task": task, "params": params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _uniform_atom_store(tmp_path: Path) -> tuple[Path, SweepSpec]:
    spec = SweepSpec(task="uniform-atom", grid={"delta": [0.8, 0.3]}, fixed={"cost": "abs"})
    store = tmp_path / "u.sqlite"
    run_sweep(spec, store=store, workers=1)
    return store, spec


def test_the_csv_keeps_the_full_key_and_names_each_column_once(tmp_path: Path) -> None:
    """``uniform-atom`` has a parameter ``cost`` and a result ``cost``: both kept, told apart."""
    store, spec = _uniform_atom_store(tmp_path)
    out = tmp_path / "u.csv"
    with ResultStore(store) as db:
        assert db.to_csv(out, order=[k for k, _ in spec.tasks()]) == 2
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    assert header == ["key", "cost", "delta", "alpha", "result.cost", "status", "error", "seconds"]
    assert len(set(header)) == len(header)
    for row, delta in zip(rows[1:], (0.8, 0.3), strict=True):
        assert row[0] == _key("uniform-atom", {"cost": "abs", "delta": delta})
        assert (row[1], float(row[2]), row[5]) == ("abs", delta, "ok")
    assert float(rows[1][3]) == pytest.approx(0.6, rel=1e-12)  # α* = 2δ − 1 for δ ≥ 1/2


def test_the_dataframe_is_the_csv(tmp_path: Path) -> None:
    import pandas

    store, spec = _uniform_atom_store(tmp_path)
    order = [k for k, _ in spec.tasks()]
    with ResultStore(store) as db:
        frame = db.to_dataframe(order=order)
        db.to_csv(tmp_path / "u.csv", order=order)
    from_csv = pandas.read_csv(tmp_path / "u.csv", keep_default_na=False)
    assert list(frame.columns) == list(from_csv.columns)
    assert frame["key"].tolist() == from_csv["key"].tolist()
    for column in ("delta", "alpha", "result.cost", "seconds"):
        assert frame[column].tolist() == from_csv[column].tolist()
    assert frame["cost"].tolist() == ["abs", "abs"]


def test_without_pandas_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from optmech.experiments import ExperimentResult

    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with (
        ResultStore(tmp_path / "s.sqlite") as db,
        pytest.raises(ImportError, match=r"optmech\[pandas\]"),
    ):
        db.to_dataframe()
    result = ExperimentResult("x", tmp_path, tmp_path / "r.csv", tmp_path / "f", tmp_path / "s")
    with pytest.raises(ImportError, match=r"optmech\[pandas\]"):
        result.to_dataframe()


def test_an_experiment_result_as_a_dataframe_is_its_csv(tmp_path: Path) -> None:
    from optmech.experiments import run_experiment

    result = run_experiment("gamma-star", tmp_path / "g", quick=True)
    frame = result.to_dataframe()
    with result.csv.open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert list(frame.columns) == rows[0]
    assert len(frame) == len(rows) - 1
    numeric = [j for j, name in enumerate(rows[0]) if frame[name].dtype.kind == "f"]
    assert numeric
    for j in numeric:  # the same numbers, NaN where the CSV says nan
        np.testing.assert_array_equal(frame[rows[0][j]], [float(r[j]) for r in rows[1:]])
