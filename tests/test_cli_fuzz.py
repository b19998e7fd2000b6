"""Hundreds of bad command lines, generated systematically (each command × each option × bad
values: out of range, not a number, non-finite, malformed specs, sizes beyond any memory,
unwritable output paths): each exits with status 2 and one line on standard error that names
the option, with no traceback, and none starts the work — an LP solve, an additive grid, a sweep
task (every size and range that is known up front is refused before the work)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _cli_fuzz import Case, bad_invocations, run_console

from optmech.cli import main


def _verdict(case: Case, status: int, err: str) -> str | None:
    """Why the outcome is wrong, or None."""
    lines = [line for line in err.splitlines() if line.strip()]
    if "Traceback" in err:
        return "traceback"
    if status != 2:
        return f"exit status {status}"
    if len(lines) != 1:
        return f"{len(lines)} lines"
    if not case.named_in(err):
        return f"no mention of {case.flag}"
    return None


def test_bad_command_lines_are_one_line_errors_naming_the_option(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_work: None,
) -> None:
    cases = bad_invocations(tmp_path / "files")
    assert len(cases) >= 100
    monkeypatch.chdir(tmp_path)  # a default output (a sweep's store) lands here
    wrong = []
    for case in cases:
        try:
            status = main(case.argv)
        except SystemExit as exc:  # the parser's own errors
            status = int(exc.code or 0)
        err = capsys.readouterr().err
        why = _verdict(case, status, err)
        if why is not None:
            wrong.append(f"{' '.join(case.argv)}: {why}: {err.strip()[-300:]}")
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong)


SUBPROCESS_CASES = [
    Case(["design", "--privacy", "gdp=100", "--integer"], "--privacy"),
    Case(["design", "--privacy", "delta=1e-9"], "--max-memory-gb"),
    Case(["staircase", "--epsilon", "1", "--cost", "power:1000"], "--cost"),
    Case(["staircase", "--epsilon", "abc"], "--epsilon"),
    Case(["user", "--n", "10", "--epsilon", "1", "--graph", "grid:2x2"], "--n"),
    Case(["verify", "--group", "exact"], "--exact"),
]


@pytest.mark.parametrize("case", SUBPROCESS_CASES, ids=lambda c: " ".join(c.argv))
def test_the_console_command_fails_as_cleanly(case: Case, tmp_path: Path) -> None:
    """A few of them through the interpreter's entry point, as a user runs them."""
    out = run_console(case.argv, tmp_path, timeout=300)
    assert _verdict(case, out.returncode, out.stderr) is None, out.stderr
