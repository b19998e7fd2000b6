"""The command line's census: hundreds of bad command lines, generated systematically (each
command × each option × bad values: out of range, not a number, non-finite or beyond the
floats, negative, empty fields, malformed specs, sizes beyond any memory, flags that cannot
apply together, unwritable output paths, a damaged store), each exits with status 2 and one
line on standard error that names the option, with no traceback, and none starts the work — an
LP solve, an additive grid, a sweep task (every size and range known up front is refused before
the work). The good command lines users wrote run, and their tables fit a pipe's 100 columns.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest
from _cli_fuzz import (
    Case,
    bad_invocations,
    good_failure,
    good_invocations,
    outcome,
    run_console,
    run_in_process,
)

from optmech.cli import COMMANDS, main


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
    """Every case once, in this process; with the census's counts per subcommand: no
    traceback, no "(a bug)", no flag silently ignored, every case refused by name."""
    cases = bad_invocations(tmp_path / "files")
    assert len(cases) >= 300
    assert {case.command for case in cases} == set(COMMANDS)  # every subcommand
    assert sum(case.command == "local" for case in cases) >= 100
    monkeypatch.chdir(tmp_path)  # a default output (a sweep's store) lands here
    wrong = []
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        try:
            status = main(case.argv)
        except SystemExit as exc:  # the parser's own errors
            status = int(exc.code or 0)
        err = capsys.readouterr().err
        counts[case.command][outcome(case, status, err)] += 1
        why = _verdict(case, status, err)
        if why is not None:
            wrong.append(f"{' '.join(case.argv)}: {why}: {err.strip()[-300:]}")
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong)
    for name, row in counts.items():
        assert set(row) == {"refused by name"}, (name, row)


def test_the_outcomes_are_told_apart() -> None:
    """The census's classes, on outcomes written here."""
    case = Case(["local", "--inputs", ""], "--inputs")
    assert outcome(case, 2, "optmech local: error: `--inputs` is empty\n") == "refused by name"
    assert outcome(case, 0, "") == "ignored"
    assert outcome(case, 1, "Traceback (most recent call last):\n  ...\n") == "traceback"
    assert outcome(case, 1, "optmech local: unexpected ZeroDivisionError: x (a bug: ...)") == (
        "(a bug)"
    )
    assert outcome(case, 2, "optmech local: error: argument --outputs: bad\n") == "other"
    assert good_failure(0, "x" * 101, "") == "a line of 101 columns"
    assert good_failure(0, "ok\n", "RuntimeWarning: overflow\n") is not None


def test_a_damaged_store_is_refused_and_left_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_work: None
) -> None:
    """A real sweep store with its results page overwritten: one line naming --store, the
    file byte for byte as it was."""
    monkeypatch.chdir(tmp_path)
    case = next(
        c
        for c in bad_invocations(tmp_path / "files")
        if c.flag == "--store" and "damaged.sqlite" in " ".join(c.argv)
    )
    store = Path(case.argv[case.argv.index("--store") + 1])
    before = store.read_bytes()
    assert before == Path(f"{store}.bytes").read_bytes()
    status, _, err = run_in_process(case.argv)
    assert status == 2 and "`--store`" in err and len(err.strip().splitlines()) == 1
    assert "(a bug" not in err
    assert store.read_bytes() == before
    assert not Path(f"{store}-wal").exists() or Path(f"{store}-wal").stat().st_size == 0


@pytest.mark.slow
def test_the_good_command_lines_run_and_fit_a_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative numbers without ``=``, unbiased local designs up to ε = 50, and the rest of
    the good command lines: exit 0, nothing on standard error, no line over 100 columns."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)
    failed = []
    for argv in good_invocations():
        why = good_failure(*run_in_process(argv))
        if why is not None:
            failed.append(f"{' '.join(argv)}: {why}")
    assert not failed, "\n".join(failed)


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
    """A few of them through the interpreter's entry point, as a user runs them (numpy's
    warnings, were any printed, would show here)."""
    out = run_console(case.argv, tmp_path, timeout=300)
    assert _verdict(case, out.returncode, out.stderr) is None, out.stderr
