"""The suite's own configuration: every test named slow in ``conftest.py`` exists.

A renamed or deleted test would otherwise leave a stale name behind and its successor unmarked;
the names are read from the test files themselves (their ``def test_…`` and the doctests'
modules), not from a collection that ``-k`` or ``-m`` may have narrowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import conftest

ROOT = Path(__file__).resolve().parents[1]


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def test_every_slow_test_named_exists() -> None:
    stale = []
    for name in conftest.SLOW_TESTS:
        path, _, function = name.split("[", 1)[0].partition("::")
        file = ROOT / path
        if not file.is_file():
            stale.append(name)
        elif path.startswith("optmech/"):  # a doctest: the module's dotted name
            if function != path.removesuffix(".py").replace("/", "."):
                stale.append(name)
        elif function not in _functions(file):
            stale.append(name)
    assert not stale, f"no such test (update tests/conftest.py): {stale}"


def test_every_slow_fixture_named_exists() -> None:
    fixtures = set().union(*(_functions(p) for p in (ROOT / "tests").glob("test_*.py")))
    assert conftest.SLOW_FIXTURES <= fixtures


def test_a_stale_name_is_found(tmp_path: Path) -> None:
    """The scan can fail: a name that is no function of its file is not found."""
    file = tmp_path / "test_x.py"
    file.write_text("def test_a():\n    pass\n", encoding="utf-8")
    assert _functions(file) == {"test_a"}
