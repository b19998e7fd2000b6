"""What the command line says, across commands: bad input exits 2 with one line in the
command's own terms (its flags, no traceback), output paths are checked before any solve,
every default is in ``--help``, and the tables fit the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from optmech.cli import build_parser, main


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_a_bad_plot_path_is_refused_before_the_lp_is_solved(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import optmech.lp.design as design

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("the LP was solved before the output path was checked")

    monkeypatch.setattr(design, "design_noise", boom)
    err = _fails(["design", "--privacy", "eps=1", "--plot", "/nonexistent/dir/x.png"], capsys)
    assert "`--plot`" in err and "/nonexistent/dir" in err


def test_too_large_a_problem_is_bad_input_naming_the_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["design", "--privacy", "eps=1", "--resolution", "100000", "--periods", "100"]
    err = _fails(argv, capsys)
    assert "ProblemTooLargeError" in err and "--max-memory-gb" in err
    assert "max_memory_gb" not in err and "symmetric=True" not in err


def _user_prior_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], prior_text: str
) -> tuple[list[str], str]:
    """Run ``user`` (n = 3, ε = 1) on a prior file holding ``prior_text``, which must fail.

    Returns the command line and the error line (checked by :func:`_fails`).
    """
    prior = tmp_path / "p.json"
    prior.write_text(prior_text, encoding="utf-8")
    argv = ["user", "--n", "3", "--epsilon", "1", "--prior", str(prior)]
    return argv, _fails(argv, capsys)


def test_remedies_name_flags_not_keyword_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, err = _user_prior_fails(tmp_path, capsys, "[0.3, 0.3, 0.3, 0.3]")
    assert "--normalize-prior" in err and "normalize=True" not in err
    assert main([*argv, "--normalize-prior"]) == 0


def test_a_prior_file_holding_an_object_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, err = _user_prior_fails(tmp_path, capsys, '{"a": 1}')
    assert "`--prior`" in err and "list of probabilities" in err


def test_cost_and_loss_are_one_option(capsys: pytest.CaptureFixture[str]) -> None:
    from optmech.costs import parse_cost

    for command, written in (
        (["design", "--privacy", "eps=1", "--resolution", "6"], repr(parse_cost("squared"))),
        (["user", "--n", "3", "--epsilon", "1"], "squared"),
    ):
        for flag in ("--cost", "--loss"):
            assert main([*command, flag, "squared", "--json"]) == 0
            assert json.loads(capsys.readouterr().out)["cost"] == written


def test_approximate_designs_lead_with_the_certified_delta(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["design", "--privacy", "eps=1,delta=1e-3", "--resolution", "8"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3].startswith("certified δ at ε = 1")
    assert lines[4].startswith("pure-ε bound (δ = 0)")
    assert main(["design", "--privacy", "eps=1", "--resolution", "8"]) == 0
    out = capsys.readouterr().out
    assert "certified ε" in out and "δ" not in out.split("sensitivity")[0]


def _options(parser: object) -> list[object]:
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]  # type: ignore[attr-defined]


def test_every_default_is_shown_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, parser in sub.choices.items():  # type: ignore[attr-defined]
        text = " ".join(parser.format_help().split())
        for action in _options(parser):
            if action.default in (None, False) or isinstance(action.default, bool):
                continue
            shown = str(action.default)
            assert f"default: {shown}" in text or f"default {shown}" in text, (name, action.dest)


def test_memory_defaults_are_the_librarys() -> None:
    """Each command's ``--max-memory-gb`` defaults to the memory budget of the library call
    it makes (read off the call's signature), and ``--help`` loads no LP to state it."""
    import inspect
    import subprocess
    import sys

    import optmech
    from optmech.lp.additive.spec import AdditiveSpec

    calls = {
        "design": AdditiveSpec,
        "user": optmech.bayesian_mechanism,
        "local": optmech.local_mechanism,
    }
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, call in calls.items():
        parser = sub.choices[name]  # type: ignore[attr-defined]
        action = next(a for a in parser._actions if a.dest == "max_memory_gb")
        default = inspect.signature(call).parameters["max_memory_gb"].default
        assert action.default == default, (name, action.default, default)
    code = (
        "import sys\nfrom optmech.cli import main\ntry:\n    main(['user', '--help'])\n"
        "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m in "
        "('cvxpy', 'optmech.lp.matrix.setting', 'optmech.lp.matrix.envelope_setting')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_verify_table_fits_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["verify", "--check", "staircase density ratio"]) == 0
    out = capsys.readouterr().out
    table = out.split("\n\n")[0].splitlines()
    assert table[0].split()[-2:] == ["time/s", "result"]
    assert max(len(line.rstrip()) for line in table) <= 100
    legend = out.split("pass if:")[1]
    assert re.search(r"^  R1: ", legend, re.M)


def test_an_overflowing_power_cost_names_the_flag_and_the_exponent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _fails(["staircase", "--epsilon", "1", "--cost", "power:1000"], capsys)
    assert "`--cost` 'power:1000'" in err and "`power` must be in (0, " in err
    assert "got 1000." in err
