"""Markdown tables render as tables: every row has as many cells as its header."""

from __future__ import annotations

import re
from pathlib import Path

from optmech.experiments._common import markdown_table

ROOT = Path(__file__).resolve().parents[1]


def _columns(row: str) -> int:
    """Cells of a markdown table row: unescaped pipes outside code spans, less one."""
    row = re.sub(r"`[^`]*`", "", row)
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def test_markdown_tables_are_rectangular() -> None:
    """Every table in the docs and the README is rectangular (an unescaped ``|e|`` in a cell
    splits it), and so are the experiments' generated tables."""
    generated = markdown_table(["γ* |e|", "cost"], [["|e|^0.5", 1.0]]).splitlines()
    assert [_columns(r) for r in generated] == [2, 2, 2]
    bad = []
    for path in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        table: list[str] = []
        for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
            if line.startswith("|"):
                table.append(line)
                continue
            if table and len({_columns(r) for r in table}) > 1:
                bad.append(f"{path.relative_to(ROOT)}: {table[0]}")
            table = []
    assert not bad, "\n".join(bad)
