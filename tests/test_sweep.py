"""Sweeps: spec validation, resumable SQLite store, SIGKILL recovery, Dask path = local path."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from optmech.cli import main
from optmech.sweep import ResultStore, SweepSpec, load_spec, run_sweep, task_key

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _helpers_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))


def _spec(n: int = 6, delay: float = 0.0, name: str = "sq") -> SweepSpec:
    return SweepSpec(
        task="_sweep_helpers:slow_square",
        grid={"x": list(range(n))},
        fixed={"delay": delay},
        name=name,
    )


def test_expansion_is_cartesian_and_keys_are_order_free() -> None:
    spec = SweepSpec(
        task="staircase",
        grid={"epsilon": [1, 2], "cost": ["abs", "squared"]},
        fixed={"sensitivity": 1},
    )
    tasks = spec.tasks()
    assert len(tasks) == 4
    assert {p["cost"] for _, p in tasks} == {"abs", "squared"}
    assert tasks[0][0] == task_key("staircase", {"cost": "abs", "sensitivity": 1, "epsilon": 1})


def test_run_then_rerun_recomputes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first = run_sweep(_spec(), store=store, workers=1, progress=False)
    assert (first.completed, first.skipped, first.failed) == (6, 0, 0)
    second = run_sweep(_spec(), store=store, workers=1, progress=False)
    assert (second.completed, second.skipped) == (0, 6)
    with ResultStore(store) as db:
        rows = db.rows()
    assert sorted(r["result"]["square"] for r in rows) == [float(x * x) for x in range(6)]


def test_failed_tasks_are_recorded_and_retried(tmp_path: Path) -> None:
    spec = SweepSpec(task="_sweep_helpers:fails_on_three", grid={"x": [1, 2, 3]}, name="f")
    summary = run_sweep(spec, store=tmp_path / "f.sqlite", workers=1, progress=False)
    assert (summary.completed, summary.failed) == (2, 1)
    with ResultStore(tmp_path / "f.sqlite") as db:
        errors = [r for r in db.rows() if r["status"] == "error"]
    assert len(errors) == 1 and "three is unlucky" in errors[0]["error"]
    again = run_sweep(spec, store=tmp_path / "f.sqlite", workers=1, progress=False)
    assert (again.skipped, again.failed) == (2, 1)  # only the failed task ran again
    with ResultStore(tmp_path / "f.sqlite") as db:
        assert len(db.rows()) == 3


def test_nan_results_are_errors_not_numbers(tmp_path: Path) -> None:
    spec = SweepSpec(task="_sweep_helpers:returns_nan", grid={"x": [1.0]}, name="n")
    summary = run_sweep(spec, store=tmp_path / "n.sqlite", workers=1, progress=False)
    assert summary.failed == 1


def test_process_pool_matches_in_process(tmp_path: Path) -> None:
    run_sweep(_spec(), store=tmp_path / "a.sqlite", workers=1, progress=False)
    run_sweep(_spec(), store=tmp_path / "b.sqlite", workers=2, progress=False)
    with ResultStore(tmp_path / "a.sqlite") as a, ResultStore(tmp_path / "b.sqlite") as b:
        ra = {r["key"]: r["result"] for r in a.rows()}
        rb = {r["key"]: r["result"] for r in b.rows()}
    assert ra == rb and len(ra) == 6


def test_sigkill_mid_sweep_then_resume_gives_one_row_per_task(tmp_path: Path) -> None:
    spec_file = tmp_path / "spec.json"
    n = 12
    spec_file.write_text(
        json.dumps(
            {
                "name": "killme",
                "task": "_sweep_helpers:slow_square",
                "grid": {"x": list(range(n))},
                "fixed": {"delay": 0.25},
            }
        )
    )
    store = tmp_path / "k.sqlite"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "optmech",
            "sweep",
            str(spec_file),
            "--store",
            str(store),
            "--workers",
            "2",
            "--no-progress",
        ],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    finished_before: dict[str, float] = {}
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if store.exists():
            with sqlite3.connect(store) as con:
                try:
                    count = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
                except sqlite3.OperationalError:
                    continue
            if count >= 3:
                break
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and its worker processes
    proc.wait(timeout=30)
    with sqlite3.connect(store) as con:
        finished_before = dict(con.execute("SELECT key, finished_at FROM results"))
    assert 3 <= len(finished_before) < n, "the kill must land mid-sweep"

    summary = run_sweep(load_spec(spec_file), store=store, workers=2, progress=False)
    assert summary.skipped == len(finished_before)
    with sqlite3.connect(store) as con:
        rows = con.execute("SELECT key, finished_at, result FROM results").fetchall()
    assert len(rows) == n and len({k for k, _, _ in rows}) == n
    for key, finished_at, _ in rows:
        if key in finished_before:  # a finished task is never recomputed
            assert finished_at == finished_before[key]
    assert sorted(json.loads(r)["square"] for _, _, r in rows) == [float(x * x) for x in range(n)]


def test_dask_path_gives_the_same_results_as_the_local_path(tmp_path: Path) -> None:
    import distributed

    spec = SweepSpec(
        task="staircase", grid={"epsilon": [0.5, 1.0, 5.0], "cost": ["abs", "squared"]}, name="dask"
    )
    local_run = run_sweep(spec, store=tmp_path / "local.sqlite", workers=1, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        dask_run = run_sweep(
            spec,
            store=tmp_path / "dask.sqlite",
            scheduler=cluster.scheduler_address,
            progress=False,
        )
    assert (local_run.completed, local_run.failed) == (6, 0)
    assert (dask_run.completed, dask_run.failed) == (6, 0)
    with ResultStore(tmp_path / "local.sqlite") as a, ResultStore(tmp_path / "dask.sqlite") as b:
        local = {r["key"]: r["result"] for r in a.rows()}
        remote = {r["key"]: r["result"] for r in b.rows()}
    assert local == remote and len(local) == 6


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("task: staircase\n", "`task` and `grid` are required"),
        ("task: staircase\ngrid: {epsilon: []}\n", "grid.epsilon must be a non-empty list"),
        ("task: staircase\ngrid: {epsilon: [1]}\nbogus: 1\n", "unknown keys \\['bogus'\\]"),
        ("task: staircase\ngrid: {epsilon: [1]}\nfixed: {epsilon: 2}\n", "both `grid` and `fixed`"),
        ("task: nope\ngrid: {epsilon: [1]}\n", "`task` must be one of"),
        ("task: staircase\ngrid: [1, 2\n", "not valid YAML/JSON"),
        ("- just a list\n", "must be a mapping at the top level"),
    ],
)
def test_malformed_specs_are_clear_errors(
    tmp_path: Path, content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec_file = tmp_path / "bad.yaml"
    spec_file.write_text(content)
    assert main(["sweep", str(spec_file), "--store", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    import re

    assert re.search(message, err), err


def test_missing_spec_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", str(tmp_path / "nope.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_csv_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec_file = tmp_path / "s.yaml"
    spec_file.write_text("name: sq\ntask: _sweep_helpers:slow_square\ngrid: {x: [1, 2, 3]}\n")
    out = tmp_path / "out.csv"
    assert (
        main(
            [
                "sweep",
                str(spec_file),
                "--store",
                str(tmp_path / "s.sqlite"),
                "--workers",
                "1",
                "--csv",
                str(out),
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["completed"] == 3
    lines = out.read_text().splitlines()
    header = ["key", "x", "square", "status", "error", "seconds"]
    assert lines[0].split(",") == header and len(lines) == 4


def test_builtin_lp_tasks_agree_with_the_theorems() -> None:
    """Each LP task's value matches its closed-form/GRS reference (solver accuracy 1e-7 rel)."""
    from optmech.sweep import available_tasks
    from optmech.sweep.tasks import run_task

    assert {"staircase", "uniform-atom", "design-noise", "bayesian", "minimax"} <= set(
        available_tasks()
    )
    stair = run_task("staircase", {"epsilon": 10.0, "cost": "abs"})
    assert round(stair["ratio"], 2) == 14.84
    atom = run_task("uniform-atom", {"delta": 0.8, "cost": "abs"})  # α* = 2δ − 1 above 1/2
    assert atom["alpha"] == pytest.approx(0.6, rel=1e-9)
    design = run_task(
        "design-noise", {"privacy": "eps=1", "cost": "abs", "integer": True, "sensitivity": 1}
    )
    b = np.exp(-1.0)
    assert design["value"] == pytest.approx(2 * b / (1 - b * b), rel=1e-7)  # geometric E|X|
    bayes = run_task("bayesian", {"n": 8, "epsilon": 0.7, "prior": "dirichlet:1", "loss": "abs"})
    assert abs(bayes["relative_gap"]) <= 1e-7
    minimax = run_task("minimax", {"n": 6, "epsilon": 1.0, "side_information": [0, 2, 5]})
    assert abs(minimax["relative_gap"]) <= 1e-7


def test_unknown_prior_spec_is_a_clear_error() -> None:
    from optmech.sweep.tasks import run_task

    with pytest.raises(ValueError, match="`prior` must be 'uniform'"):
        run_task("bayesian", {"n": 3, "epsilon": 1.0, "prior": "zipf"})


# -- what the command says when tasks fail ------------------------------------------------------
def _write(path: Path, spec: dict) -> Path:
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def test_a_misspelt_grid_key_is_named_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(
        tmp_path / "s.json", {"task": "staircase", "grid": {"epsilom": [1, 2]}, "name": "typo"}
    )
    store = tmp_path / "typo.sqlite"
    assert main(["sweep", str(spec), "--store", str(store), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'epsilom'" in err and "epsilon, cost, sensitivity" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not store.exists()


def test_failures_are_summarised_and_exported_in_grid_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(
        tmp_path / "s.json",
        {"task": "_sweep_helpers:fails_on_three", "grid": {"x": [3, 1, 3.0, 2]}, "name": "f"},
    )
    out = tmp_path / "f.csv"
    argv = ["sweep", str(spec), "--store", str(tmp_path / "f.sqlite"), "--workers", "2"]
    assert main([*argv, "--csv", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "failed ×2: RuntimeError: three is unlucky" in err
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "key,x,result.x,status,error,seconds"  # the parameter x, the result x
    xs = [line.split(",")[1] for line in lines[1:]]
    assert xs == ["3", "1", "3.0", "2"]  # grid order, not completion order
    status = [line.split(",")[-3] for line in lines[1:]]
    assert status == ["error", "ok", "error", "ok"]
    assert all("three is unlucky" in line for line in lines[1:] if ",error," in line)


def test_an_unreachable_scheduler_is_one_line_naming_the_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import optmech.sweep.runner as runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", "1s")
    spec = _write(tmp_path / "s.json", {"task": "staircase", "grid": {"epsilon": [1]}, "name": "d"})
    argv = ["sweep", str(spec), "--store", str(tmp_path / "d.sqlite"), "--no-progress"]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "tcp://127.0.0.1:9" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_csv_path_is_checked_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path / "s.json", {"task": "staircase", "grid": {"epsilon": [1]}, "name": "c"})
    store = tmp_path / "c.sqlite"
    argv = ["sweep", str(spec), "--store", str(store), "--no-progress"]
    assert main([*argv, "--csv", str(tmp_path / "missing" / "out.csv")]) == 2
    assert "`--csv`" in capsys.readouterr().err
    assert not store.exists()
