"""``optmech local``: output, JSON, constraints and clean errors.

The printed numbers are the library's (the CLI is a thin layer): the JSON is checked against a
direct call, and RR-on-Bins' value against the closed form of two equally likely labels
(``ε = ln 3``: bins {0} and {1}, outputs 1/4 and 3/4, value 3/16, written out here).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import optmech
from optmech.cli import main


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        ["local", "--inputs", "0,1,2,5", "--prior", "4,3,2,1", "--epsilon", "1", "--cost", "abs"],
        capsys,
    )
    direct = optmech.local_mechanism(
        [0.4, 0.3, 0.2, 0.1], "abs", 1.0, inputs=[0, 1, 2, 5], outputs=[0, 1, 2, 5]
    )
    assert out["value"] == pytest.approx(direct.value, rel=1e-9)
    assert out["certified_epsilon"] <= 1.0
    assert np.allclose(out["mechanism"], direct.mechanism, atol=1e-9)


def test_rr_on_bins_closed_form(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        ["local", "--inputs", "0,1", "--epsilon", str(math.log(3.0)), "--rr-on-bins"], capsys
    )
    rr = out["rr_on_bins"]
    assert rr["bins"] == [[0.0], [1.0]]
    assert rr["outputs"] == pytest.approx([0.25, 0.75], abs=1e-12)
    assert rr["value"] == pytest.approx(3 / 16, rel=1e-12)
    assert out["value"] >= rr["value"]  # the grid {0, 1} lacks 1/4 and 3/4


def test_unbiased_default_grid_and_residuals(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(["local", "--inputs", "0,1,2", "--epsilon", "1.5", "--unbiased"], capsys)
    assert len(out["outputs"]) == 121 and out["outputs"][0] == -4.0 and out["outputs"][-1] == 6.0
    (record,) = out["constraints"]
    assert record["name"] == "Unbiased()" and record["residual"] <= 1e-9
    mechanism = np.asarray(out["mechanism"])
    assert np.allclose(mechanism @ np.asarray(out["outputs"]), [0.0, 1.0, 2.0], atol=1e-9)


def test_table_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    import matplotlib

    matplotlib.use("Agg")
    path = tmp_path / "local.png"  # type: ignore[operator]
    argv = ["local", "--inputs", "0,1,2,5", "--epsilon", "2", "--cost", "abs", "--max-risk", "1.5"]
    assert main([*argv, "--monotone", "--minimax", "--plot", str(path)]) == 0
    text = capsys.readouterr().out
    assert "MaxRisk(bound=1.5)" in text and "Monotone()" in text and "minimax" in text
    assert path.exists()


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--inputs", "0,2,1", "--epsilon", "1"], 2, "`--inputs` must be strictly increasing"),
        (["--inputs", "0,1", "--epsilon", "0"], 2, "`--epsilon` must be"),
        (["--inputs", "0,1", "--epsilon", "1", "--prior", "1,2,3"], 2, "`--prior` must have"),
        (["--inputs", "0,1", "--epsilon", "1", "--outputs", "3:1:5"], 2, "`--outputs` A:B:N"),
        (["--inputs", "0,1", "--epsilon", "1", "--max-risk", "-1"], 2, "`--max-risk` must be"),
        (["--inputs", "0,1", "--epsilon", "1", "--unbiased", "--outputs", "0,1"], 2, "`--outputs`"),
        (["--inputs", "0,1", "--epsilon", "1", "--max-risk", "1e-4"], 1, "InfeasibleConstraints"),
        (
            ["--inputs", "0,1", "--epsilon", "1", "--cost", "zero-one", "--rr-on-bins"],
            2,
            "`--cost`",
        ),
    ],
)
def test_errors_exit_cleanly(
    argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["local", *argv]) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_error_about_default_outputs_says_they_were_the_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error naming the outputs when --outputs was not given says the default was used
    (never blames a flag that was not given)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise ValueError("`outputs` must be wider; got [0, 5].")

    monkeypatch.setattr(optmech, "local_mechanism", refuse)
    assert main(["local", "--inputs", "0,1,2,5", "--epsilon", "1", "--unbiased"]) == 2
    err = capsys.readouterr().err
    assert "--outputs was not given: its default" in err and len(err.strip().splitlines()) == 1
    argv = ["local", "--inputs", "0,1,2,5", "--epsilon", "1", "--outputs", "0,5"]
    assert main(argv) == 2
    assert "not given" not in capsys.readouterr().err


def test_negative_values_parse_without_equals() -> None:
    """A value that starts with a minus sign and a digit is the option's value, not an
    option: lists, ranges, exponents and ``-inf`` (refused later, by name)."""
    from optmech.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(
        ["local", "--inputs", "-3,-1,0,2", "--epsilon", "1", "--outputs", "-1e308:1e308:5"]
    )
    assert (args.inputs, args.outputs) == ("-3,-1,0,2", "-1e308:1e308:5")
    args = parser.parse_args(["design", "--privacy", "eps=1", "--tail", "-1,0.2"])
    assert args.tail == "-1,0.2"
    args = parser.parse_args(["staircase", "--epsilon", "-inf"])
    assert args.epsilon == float("-inf")
    with pytest.raises(SystemExit):  # an option is still an option
        parser.parse_args(["local", "--inputs", "--epsilon", "1"])
