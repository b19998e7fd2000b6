"""``optmech user`` (optmech.cli.user): output checked against values computed here."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _reference import FIG2_STRINGS as FIG2

from optmech.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["user", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_worked_example_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prior = tmp_path / "prior.json"
    prior.write_text(json.dumps([0.2, 0, 0.2, 0.2, 0.2, 0.2]))
    assert (
        main(
            [
                "user",
                "--n",
                "5",
                "--epsilon",
                str(math.log(2)),
                "--prior",
                str(prior),
                "--loss",
                "abs",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "1 -> 2" in out
    fig = [[Fraction(v) for v in row] for row in FIG2]
    exact = sum(Fraction(1, 5) * fig[i][r] * abs(r - i) for i in (0, 2, 3, 4, 5) for r in range(6))
    assert f"{float(exact):.6g}" in out  # value and geometric + remap value


def test_worked_example_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prior = tmp_path / "prior.json"
    prior.write_text(json.dumps([0.2, 0, 0.2, 0.2, 0.2, 0.2]))
    data = run_json(capsys, "--n", "5", "--epsilon", str(math.log(2)), "--prior", str(prior))
    assert data["remap"] == [0, 2, 2, 3, 4, 5]
    mech = np.array(data["mechanism"])
    fig = np.array([[float(Fraction(v)) for v in row] for row in FIG2])
    assert np.max(np.abs(mech - fig)) < 1e-9
    assert data["certified_epsilon"] <= math.log(2) * (1 + 1e-9)
    assert data["value"] == pytest.approx(data["geometric_value"], rel=1e-9)


def test_binomial_prior_and_squared_loss(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, "--n", "6", "--epsilon", "1", "--prior", "binomial:0.3", "--loss", "squared"
    )
    mech = np.array(data["mechanism"])
    assert np.allclose(mech.sum(axis=1), 1.0)
    # The value is the prior-weighted loss of the printed mechanism, recomputed here.
    from scipy.stats import binom

    prior = binom.pmf(np.arange(7), 6, 0.3)
    loss = np.subtract.outer(np.arange(7), np.arange(7)).astype(float) ** 2
    assert data["value"] == pytest.approx(float(np.sum(prior[:, None] * loss * mech)), rel=1e-9)
    assert data["value"] == pytest.approx(data["geometric_value"], rel=1e-7)


def test_minimax_side_information(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, "--n", "6", "--epsilon", "0.8", "--loss", "abs", "--minimax", "--side-info", "0,3,5"
    )
    mech = np.array(data["mechanism"])
    loss = np.abs(np.subtract.outer(np.arange(7), np.arange(7)))
    worst = max(float(np.sum(loss[i] * mech[i])) for i in (0, 3, 5))
    assert data["value"] == pytest.approx(worst, rel=1e-12)
    remap = np.array(data["remap"])
    assert remap.shape == (7, 7) and np.allclose(remap.sum(axis=1), 1.0)
    assert data["value"] == pytest.approx(data["geometric_value"], rel=2e-7)
    assert main(["user", "--n", "6", "--epsilon", "0.8", "--minimax", "--side-info", "0,3,5"]) == 0
    assert "randomized remap" in capsys.readouterr().out


def test_grid_graph_has_no_geometric_reference(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--epsilon", "1", "--graph", "grid:2x3", "--loss", "abs")
    assert data["geometric_value"] is None
    assert "count query" in data["geometric_note"]
    assert len(data["mechanism"]) == 6 and len(data["outputs"]) == 6


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mech.png"
    assert main(["user", "--n", "4", "--epsilon", "1", "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "heat map written" in capsys.readouterr().out


def test_loss_matrix_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loss = tmp_path / "loss.json"
    matrix = [[0, 2, 3], [1, 0, 1], [5, 1, 0]]
    loss.write_text(json.dumps(matrix))
    data = run_json(capsys, "--epsilon", "1", "--loss", str(loss))
    assert len(data["mechanism"]) == 3
    mech = np.array(data["mechanism"])
    assert data["value"] == pytest.approx(float(np.sum(np.array(matrix) * mech) / 3), rel=1e-9)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--n", "3", "--epsilon", "0"], "`--epsilon`"),
        (["--n", "3", "--epsilon", "1", "--side-info", "1"], "--minimax"),
        (["--n", "3", "--epsilon", "1", "--prior", "missing.json"], "cannot be read"),
        (["--n", "3", "--epsilon", "1", "--prior", "beta:2"], "`--prior`"),
        (["--n", "3", "--epsilon", "1", "--prior", "binomial:2"], "p in [0, 1]"),
        (["--n", "3", "--epsilon", "1", "--loss", "cubic"], "`--cost` spec"),
        (["--n", "3", "--epsilon", "1", "--cost", "cubic"], "`--cost` spec"),
        (["--epsilon", "1"], "`--n` is needed"),
        (["--n", "0", "--epsilon", "1"], "`--n` must be an integer in [1, inf); got 0"),
        (["--n", "3", "--epsilon", "1", "--graph", "star"], "`--graph` spec"),
        (["--n", "3", "--epsilon", "1", "--minimax", "--side-info", "a,b"], "comma-separated"),
        (["--n", "300", "--epsilon", "1", "--max-memory-gb", "0.001"], "--max-memory-gb"),
    ],
)
def test_bad_arguments_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["user", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("extra", [[], ["--minimax"]])
def test_progress_goes_to_standard_error_only(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["user", "--n", "6", "--epsilon", "1", *extra, "--json"]
    runs = {}
    for shown in (False, True):
        assert main([*argv, *(["--progress"] if shown else [])]) == 0
        runs[shown] = capsys.readouterr()
    assert runs[False].err == "" and "step" in runs[True].err
    assert json.loads(runs[True].out)["mechanism"] == json.loads(runs[False].out)["mechanism"]
