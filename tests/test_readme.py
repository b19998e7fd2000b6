"""The README stays true: CI runs its test line verbatim, and its library example runs."""

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


def test_the_library_example_runs_as_written() -> None:
    """The README's Python example runs and its own assertions hold (warnings are errors)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = text.split("## Using the library", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
