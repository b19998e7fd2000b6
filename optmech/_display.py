"""One display for every result and noise family: the same labels, digits and row order in the
notebook (``_repr_html_``) and in text (``summary()``).

Numbers are shown with `DIGITS` significant digits in both; full precision stays in
``to_dict()`` and in ``repr``. No third-party imports: IPython calls ``_repr_html_`` when it
displays an object, and the summary must not load a plotting or solver library to do so.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from typing import Any

__all__ = [
    "DIGITS",
    "full",
    "html_summary",
    "interval",
    "short",
    "text_summary",
    "yes_no",
]

#: Significant digits of every number in a display (HTML and text alike).
DIGITS = 6


def short(value: Any, digits: int = DIGITS) -> str:
    """A number with ``digits`` significant digits (``inf``/``nan`` spelt out); other values
    as ``str``.

    Examples
    --------
    >>> short(0.37754066879814546), short(3), short(float("inf")), short("abs")
    ('0.377541', '3', 'inf', 'abs')
    """
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if not math.isfinite(value) else f"{value:.{digits}g}"
    return str(value)


def full(value: float) -> str:
    """A float at full precision (its shortest round-trip ``repr``), for parameters a reader
    may copy back into code (``repr`` and ``to_dict``, not the displays).

    Examples
    --------
    >>> full(0.37754066879814546)
    '0.37754066879814546'
    """
    return repr(float(value))


def interval(low: float, high: float) -> str:
    """``[low, high]`` at `DIGITS` significant digits.

    Examples
    --------
    >>> interval(0.123456789, 0.1234568)
    '[0.123457, 0.123457]'
    """
    return f"[{short(float(low))}, {short(float(high))}]"


def yes_no(flag: bool | None) -> str:
    """``"yes"``, ``"no"``, or ``"n/a"`` for None (nothing to compare with)."""
    return "n/a" if flag is None else ("yes" if flag else "no")


def html_summary(title: str, rows: Iterable[tuple[str, Any]]) -> str:
    """A small HTML table: ``title`` as its caption, one ``name | value`` row each (escaped,
    numbers at `DIGITS` significant digits).

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


def text_summary(title: str, rows: Iterable[tuple[str, Any]]) -> str:
    """The same table as `html_summary`, as text: the title, then one
    ``name  value`` line each, the names padded to one width.

    Examples
    --------
    >>> print(text_summary("X", [("value", 1.5), ("gap", 0.0)]))
    X
      value  1.5
      gap    0
    """
    pairs = [(name, short(value)) for name, value in rows]
    width = max((len(name) for name, _ in pairs), default=0)
    return "\n".join([title, *(f"  {name.ljust(width)}  {text}" for name, text in pairs)])
