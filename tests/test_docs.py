"""The documentation builds strictly, its code runs, and it covers every command."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from optmech.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "api" / "index.html").exists()


@pytest.mark.parametrize(
    "page", ["docs/howto/custom-loss.md", "docs/howto/exact-sampling.md", "README.md"]
)
def test_code_blocks_run(page: str) -> None:
    blocks = _python_blocks(ROOT / page)
    assert blocks, f"{page} has no python blocks"
    namespace: dict[str, object] = {}
    for block in blocks:  # blocks of a page share one namespace, as a reader's session would
        exec(compile(block, page, "exec"), namespace)


def test_every_command_is_documented() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"## optmech {command}" in text, command
