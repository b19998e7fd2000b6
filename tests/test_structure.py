"""The package keeps the shape its architecture promises: small modules, short functions, and
solver names in one place."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "optmech"
SOURCES = sorted(PACKAGE.rglob("*.py"))

#: Largest module, in lines.
MAX_MODULE_LINES = 700
#: Largest function, in lines of code (no blank lines, comments or docstrings).
MAX_FUNCTION_CODE_LINES = 100


def _code_lines(node: ast.AST, source_lines: list[str]) -> int:
    """Lines of code of a function: its span less blank, comment and docstring lines."""
    doc_lines: set[int] = set()
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (
            isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            doc_lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    count = 0
    for number in range(node.lineno, node.end_lineno + 1):
        text = source_lines[number - 1].strip()
        if text and not text.startswith("#") and number not in doc_lines:
            count += 1
    return count


def test_no_module_is_too_long() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in SOURCES
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_too_long() -> None:
    long = {}
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = _code_lines(node, lines)
                if n > MAX_FUNCTION_CODE_LINES:
                    long[f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}"] = n
    assert not long, f"functions over {MAX_FUNCTION_CODE_LINES} lines of code: {long}"


@pytest.mark.parametrize("name", ["HIGHS", "CLARABEL", "SCS", "ECOS", "GLPK", "MOSEK"])
def test_solver_names_live_in_lp_solve_only(name: str) -> None:
    """Only optmech/lp/solve.py names a solver in code (a quoted string); prose may mention one."""
    pattern = re.compile(rf"""["']{name}["']""")
    found = [
        f"{p.relative_to(PACKAGE)}:{k}"
        for p in SOURCES
        if p.relative_to(PACKAGE).as_posix() != "lp/solve.py"
        for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert not found, f"{name!r} named outside lp/solve.py: {found}"
