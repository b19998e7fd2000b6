"""Shared printing helpers of the CLI: aligned tables, JSON, number formatting."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

__all__ = [
    "LIFTED_PROVENANCE",
    "certified_value_rows",
    "fmt",
    "print_fields",
    "print_json",
    "print_mechanism",
    "print_table",
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


def print_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, out: TextIO | None = None
) -> None:
    """Print ``rows`` under ``headers`` as an aligned plain-text table."""
    stream = sys.stdout if out is None else out
    cells = [[fmt(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line, file=stream)
    print("  ".join("-" * w for w in widths), file=stream)
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)), file=stream)


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
    ([`LPResult.to_dict`][optmech.results.LPResult.to_dict]), then the provenance fields of
    [`LIFTED_PROVENANCE`][LIFTED_PROVENANCE] at the top level, then the command's ``extras``
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
    [`save_plot`][save_plot]), then print ``out`` as JSON when ``as_json``. Returns
    ``as_json``: whether the command's output is complete."""
    if plot is not None:
        save_plot(draw, plot, out)
    if as_json:
        print_json(out)
    return as_json
