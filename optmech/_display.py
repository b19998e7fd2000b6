"""Compact summaries of results for notebooks (``_repr_html_``): a title and a few rows.

No third-party imports: IPython calls ``_repr_html_`` when it displays an object, and the
summary must not load a plotting or solver library to do so.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from typing import Any

__all__ = ["full", "html_summary", "short"]


def short(value: Any, digits: int = 10) -> str:
    """A number with ``digits`` significant digits (``inf``/``nan`` spelt out); other values
    as ``str``."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if not math.isfinite(value) else f"{value:.{digits}g}"
    return str(value)


def full(value: float) -> str:
    """A float at full precision (its shortest round-trip ``repr``), for parameters a reader
    may copy back into code.

    Examples
    --------
    >>> full(0.37754066879814546)
    '0.37754066879814546'
    """
    return repr(float(value))


def html_summary(title: str, rows: Iterable[tuple[str, Any]]) -> str:
    """A small HTML table: ``title`` as its caption, one ``name | value`` row each (escaped).

    Examples
    --------
    >>> html_summary("X", [("value", 1.5)])[:40]
    '<table class="optmech-summary"><caption>'
    """
    cells = "".join(
        f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
        f"<td style='text-align:left'>{html.escape(short(value))}</td></tr>"
        for name, value in rows
    )
    return f'<table class="optmech-summary"><caption>{html.escape(title)}</caption>{cells}</table>'
