"""The command lines the README and the docs show are real: every one parses with the real
parser, the README's cheap ones run as written, and the sweep how-to documents every built-in
task with its parameters and defaults as the registry has them."""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from optmech.cli import COMMANDS, build_parser, main
from optmech.sweep.tasks import available_tasks, task_options, task_parameters

ROOT = Path(__file__).resolve().parents[1]


def _readme_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Command line", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.splitlines() if line.strip()]


def _docs_lines() -> list[str]:
    """Every ``optmech ...`` line of a code block of docs/cli.md and the sweep how-to."""
    lines = []
    for page in ("cli.md", "howto/sweeps.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
            lines += [ln.strip() for ln in block.splitlines() if ln.strip().startswith("optmech ")]
    return lines


def _argv(line: str) -> list[str]:
    words = shlex.split(line, comments=True)
    assert words[0] == "optmech", line
    return words[1:]


@pytest.mark.parametrize("line", [*_readme_lines(), *_docs_lines()])
def test_each_command_line_shown_parses(line: str) -> None:
    if not line.startswith("optmech "):
        assert line.startswith("printf "), line  # the one shell helper: writes a sweep spec
        return
    args = build_parser().parse_args(_argv(line))
    assert callable(args.run)


def test_the_readme_has_a_command_for_each_command() -> None:
    shown = {_argv(line)[0] for line in _readme_lines() if line.startswith("optmech ")}
    assert shown == set(COMMANDS)


#: The README's lines that run in seconds (the others solve larger LPs or run the catalogue).
CHEAP = ("optmech staircase", "optmech user", "optmech sweep", "optmech experiment --list")


def test_the_readmes_cheap_command_lines_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = []
    for line in _readme_lines():
        if line.startswith("printf "):
            subprocess.run(line, shell=True, check=True, cwd=tmp_path)
        elif line.startswith(CHEAP):
            assert main(_argv(line)) == 0, (line, capsys.readouterr().err)
            ran.append(line)
    assert len(ran) == len(CHEAP)
    assert (tmp_path / "gain.csv").read_text(encoding="utf-8").count("\n") == 4  # header + 3


def _task_section(text: str, name: str) -> str:
    match = re.search(rf"^### `{re.escape(name)}`\n(.*?)(?=^##|\Z)", text, re.S | re.M)
    assert match, f"docs/howto/sweeps.md has no section for the task {name!r}"
    return match.group(1)


def test_every_builtin_sweep_task_is_documented_with_its_parameters() -> None:
    text = (ROOT / "docs" / "howto" / "sweeps.md").read_text(encoding="utf-8")
    documented = re.findall(r"^### `([^`]+)`", text, re.M)
    assert sorted(documented) == available_tasks()
    for name in available_tasks():
        section = _task_section(text, name)
        rows = dict(re.findall(r"^\| `(\w+)` \| (.+?) \|$", section, re.M))
        params = task_parameters(name)
        assert list(rows) == list(params), name
        for param, default in params.items():
            shown = rows[param]
            if default is inspect.Parameter.empty:
                assert shown == "required", (name, param)
            else:
                assert shown.split(" ")[0] == f"`{default}`", (name, param, shown)
        for option in task_options(name):
            assert f"`{option}`" in section, (name, option)
