"""The README's Quick start and CI stay in step: CI must run the README's test line verbatim."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.strip().splitlines() if line.strip()]


def test_quick_start_has_exactly_two_command_lines() -> None:
    lines = _quick_start_lines()
    assert len(lines) == 2
    assert "optmech verify" in lines[0]
    assert "pytest" in lines[1]


def test_ci_runs_the_readme_test_line_verbatim() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _quick_start_lines()[1] in [line.strip() for line in ci_lines]
