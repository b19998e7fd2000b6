"""Shared printing helpers of the CLI: aligned tables, JSON, number formatting."""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

__all__ = [
    "LIFTED_PROVENANCE",
    "PIPE_WIDTH",
    "certified_value_rows",
    "fit_table",
    "fmt",
    "output_width",
    "print_fields",
    "print_json",
    "print_mechanism",
    "print_table",
    "print_wrapped",
    "result_json",
    "save_plot_then_json",
]

#: The provenance fields that earlier versions printed at the top level of the JSON, and still
#: do (scripts read them): the solver, its status, the timings and the LP's size.
LIFTED_PROVENANCE = (
    "solver",
    "status",
    "solve_time",
    "compile_time",
    "build_time",
    "num_variables",
    "num_constraints",
)


def fmt(value: Any, digits: int = 6) -> str:
    """Format a number for a table: ``g`` with ``digits`` significant digits, ``-`` for None."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "PASS" if value else "FAIL"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}g}"
    return str(value)


#: Width of the printed tables and prose when standard output is not a terminal (a pipe, a
#: file): the full values are in ``--json``.
PIPE_WIDTH = 100
#: Narrowest column a wrapped cell is given.
_NARROWEST = 12


def output_width(stream: TextIO | None = None) -> int:
    """The width printed text must fit: ``COLUMNS`` when set, else the terminal's when
    ``stream`` (standard output by default) is one, else `PIPE_WIDTH`."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(40, int(columns))
    stream = sys.stdout if stream is None else stream
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal:
        return max(40, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)
    return PIPE_WIDTH


def print_wrapped(text: str, *, out: TextIO | None = None, indent: str = "") -> None:
    """``text`` filled to `output_width`, continuation lines indented by
    ``indent``."""
    stream = sys.stdout if out is None else out
    width = output_width(stream)
    print(
        "\n".join(
            textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]
        ),
        file=stream,
    )


def _table_lines(headers: Sequence[str], cells: list[list[str]]) -> list[str]:
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    return lines


def _clipped(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def fit_table(headers: Sequence[str], cells: list[list[str]], width: int) -> list[str]:
    """The lines of an aligned table of ``cells`` under ``headers``, at most ``width`` wide.

    A table that is too wide has its widest column wrapped onto continuation lines when the
    other columns leave it at least 12 characters (a single word longer than that, such as a
    path, is kept whole on its line); otherwise (a matrix of numbers) it is cut into blocks of
    columns, each repeating the first column, one under the other. Whatever still does not fit
    is cut with an ellipsis (``--json`` carries the full values).
    """
    lines = _table_lines(headers, cells)
    if max(map(len, lines)) <= width or not cells:
        return lines
    count = len(headers)
    widths = [max(len(headers[k]), *(len(row[k]) for row in cells)) for k in range(count)]
    widest = int(np.argmax(widths))
    room = width - (sum(widths) - widths[widest]) - 2 * (count - 1)
    if room >= max(_NARROWEST, len(headers[widest])):
        wrapped: list[list[str]] = []
        for row in cells:
            parts = textwrap.wrap(
                row[widest], room, break_long_words=False, break_on_hyphens=False
            ) or [""]
            wrapped.append([*row[:widest], parts[0], *row[widest + 1 :]])
            for part in parts[1:]:
                wrapped.append([*([""] * widest), part, *([""] * (count - widest - 1))])
        return _table_lines(headers, wrapped)  # a word longer than the room (a path) is whole
    if count > 2:
        blocks: list[str] = []
        first, k = widths[0], 1
        while k < count:
            used, end = first, k
            while end < count and (end == k or used + 2 + widths[end] <= width):
                used += 2 + widths[end]
                end += 1
            block = [0, *range(k, end)]
            if blocks:
                blocks.append("")
            blocks += _table_lines(
                [headers[j] for j in block], [[row[j] for j in block] for row in cells]
            )
            k = end
        return [_clipped(line, width) for line in blocks]
    return [_clipped(line, width) for line in lines]


def print_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, out: TextIO | None = None
) -> None:
    """Print ``rows`` under ``headers`` as an aligned plain-text table that fits
    `output_width` (`fit_table`)."""
    stream = sys.stdout if out is None else out
    cells = [[fmt(c) for c in row] for row in rows]
    for line in fit_table(headers, cells, output_width(stream)):
        print(line, file=stream)


def print_mechanism(
    mechanism: Any,
    rows: Sequence[str],
    columns: Sequence[str],
    *,
    corner: str,
    title: str,
    max_columns: int,
    too_wide: str,
) -> None:
    """After a blank line, ``title`` and the mechanism ``P(column | row)`` as a table (entries to
    4 digits) under ``corner`` and the ``columns``' labels; or, with more than ``max_columns``
    columns, the line ``too_wide``."""
    print()
    if len(columns) > max_columns:
        print(too_wide)
        return
    print(title)
    table = [
        [label, *(fmt(float(q), 4) for q in row)]
        for label, row in zip(rows, mechanism, strict=True)
    ]
    print_table([corner, *columns], table)


def _default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    return str(obj)


def _clean(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj


def print_json(payload: Any, *, out: TextIO | None = None) -> None:
    """Print ``payload`` as strict JSON (NaN/inf become strings; numpy values become lists)."""
    stream = sys.stdout if out is None else out
    text = json.dumps(
        _clean(json.loads(json.dumps(payload, default=_default, allow_nan=True))), indent=2
    )
    print(text, file=stream)


def result_json(result: Any, extras: dict[str, Any]) -> dict[str, Any]:
    """What ``--json`` prints for an LP result: the result's own dictionary
    (`LPResult.to_dict`), then the provenance fields of
    `LIFTED_PROVENANCE` at the top level, then the command's ``extras``
    (its comparisons and references, JSON-safe). An extra never replaces a key of the result's
    own dictionary.
    """
    from optmech.results import json_safe

    out: dict[str, Any] = result.to_dict()
    prov = out["provenance"]
    lifted = {key: prov[key] for key in LIFTED_PROVENANCE if key in prov and key not in out}
    clash = sorted(set(extras) & (set(out) | set(lifted)))
    if clash:
        raise AssertionError(f"CLI extras {clash} would replace the result's own keys.")
    return {**out, **lifted, **json_safe(extras)}


def certified_value_rows(out: dict[str, Any]) -> list[tuple[str, Any]]:
    """The table rows of an LP's certified optimum: its value (the interval's upper end) and
    the interval ``[lower_bound, value]`` it is certified to lie in."""
    return [
        ("optimal value (LP, certified)", out["value"]),
        (
            "optimum certified to lie in",
            f"[{fmt(out['lower_bound'], 10)}, {fmt(out['value'], 10)}]",
        ),
    ]


def print_fields(result: dict[str, Any], labels: dict[str, str] | None = None) -> None:
    """``result`` as a two-column table: its scalar and list entries (yes/no for flags;
    ``labels`` rename keys), without the nested dictionaries (the provenance: see ``--json``)."""
    labels = labels or {}
    rows = [
        (labels.get(k, k), ("yes" if v else "no") if isinstance(v, bool) else v)
        for k, v in result.items()
        if not isinstance(v, dict)
    ]
    print_table(("quantity", "value"), rows)


def save_plot(draw: Callable[[], Any], path: Path, out: dict[str, Any]) -> None:
    """Draw with ``draw()`` (returns the Axes) on the non-interactive backend, save the figure
    to ``path`` and record it in ``out["plot"]``."""
    import matplotlib

    matplotlib.use("Agg")
    from optmech.plotting import save_figure

    save_figure(draw(), path)
    out["plot"] = str(path)


def save_plot_then_json(
    out: dict[str, Any], draw: Callable[[], Any], plot: Path | None, as_json: bool
) -> bool:
    """Save the figure ``draw()`` makes to ``plot`` (when one is given; see
    `save_plot`), then print ``out`` as JSON when ``as_json``. Returns
    ``as_json``: whether the command's output is complete."""
    if plot is not None:
        save_plot(draw, plot, out)
    if as_json:
        print_json(out)
    return as_json
