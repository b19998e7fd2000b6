"""Tables printed to a pipe fit 100 columns: a long text column is wrapped, a wide matrix is cut
into blocks of columns; no cell is lost (every cell is found in the printed lines)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from optmech.cli._output import PIPE_WIDTH, fit_table, output_width, print_table


def test_a_pipe_is_100_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert output_width(io.StringIO()) == PIPE_WIDTH == 100


def test_a_long_value_is_wrapped_not_cut() -> None:
    words = " ".join(f"w{k}" for k in range(80))
    lines = fit_table(["quantity", "value"], [["a note", words], ["x", "1"]], 100)
    assert max(map(len, lines)) <= 100
    assert all(f"w{k}" in " ".join(lines).split() for k in range(80))


def test_a_wide_matrix_is_cut_into_blocks_repeating_the_first_column() -> None:
    rng = np.random.default_rng(0)
    cells = [[f"row{i}", *(f"{v:.4g}" for v in rng.random(25))] for i in range(5)]
    headers = ["in \\ out", *(str(j) for j in range(25))]
    lines = fit_table(headers, cells, 100)
    assert max(map(len, lines)) <= 100
    printed = " ".join(lines).split()
    for row in cells:
        assert all(cell in printed for cell in row)
    assert sum(line.startswith("in \\ out") for line in lines) >= 2


def test_print_table_to_a_pipe_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()
    print_table(["a", "b"], [["x" * 30, "y " * 120]], out=out)
    assert max(len(line) for line in out.getvalue().splitlines()) <= 100
