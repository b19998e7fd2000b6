"""Tests of ``optmech staircase`` (the CLI layer over the staircase and Laplace families).

Expected numbers come from Geng & Viswanath 2016 (closed forms, the ε = 10 reference ratios),
computed here, not from the command's own code.
"""

from __future__ import annotations

import json
import math

import pytest

from optmech.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["staircase", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_abs_cost_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "--epsilon", "2", "--sensitivity", "3")
    assert out["gamma_star"] == pytest.approx(1 / (1 + math.exp(1.0)), rel=1e-14)
    assert out["staircase_cost"] == pytest.approx(
        3 * math.exp(1.0) / (math.exp(2.0) - 1), rel=1e-13
    )
    assert out["laplace_cost"] == pytest.approx(1.5, rel=1e-15)
    assert out["ratio"] == pytest.approx(out["laplace_cost"] / out["staircase_cost"], rel=1e-15)
    assert out["cost"] == "abs" and out["epsilon"] == 2.0 and out["sensitivity"] == 3.0


def test_reference_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    assert round(run_json(capsys, "--epsilon", "10")["ratio"], 2) == 14.84
    out = run_json(capsys, "--epsilon", "10", "--cost", "squared")
    assert round(out["ratio"], 2) == 23.61
    b = math.exp(-10.0)
    u = (b * (1 + b) / 2) ** (1 / 3)
    assert out["gamma_star"] == pytest.approx((u - b) / (1 - b), rel=1e-12)
    assert out["staircase_cost"] == pytest.approx((u * u + b) / (1 - b) ** 2, rel=1e-12)


def test_power_cost_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "--epsilon", "1", "--cost", "power:3")
    assert out["laplace_cost"] == pytest.approx(6.0, rel=1e-14)  # Γ(4) (Δ/ε)³
    assert 1.0 < out["ratio"] < 1.2
    assert main(["staircase", "--epsilon", "1", "--cost", "power:3"]) == 0
    table = capsys.readouterr().out
    assert "gamma*" in table and "ratio Laplace/staircase" in table
    assert f"{out['gamma_star']:.6g}" in table


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--epsilon", "-1"], "`--epsilon`"),
        (["--epsilon", "nan"], "`--epsilon`"),
        (["--epsilon", "1", "--sensitivity", "0"], "`--sensitivity`"),
        (["--epsilon", "1", "--cost", "asym:3,1"], "symmetric"),
        (["--epsilon", "1", "--cost", "cubic"], "`--cost` spec"),
    ],
)
def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], args, message) -> None:
    assert main(["staircase", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_missing_epsilon_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["staircase"])
    assert exc.value.code == 2
    assert "--epsilon" in capsys.readouterr().err
