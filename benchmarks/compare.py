"""``python -m benchmarks.compare --before A.json [A2.json ...] --after B.json [B2.json ...]``.

Two sets of ``benchmarks.json`` files (``python -m benchmarks --out DIR``), e.g. runs of an
older checkout and of this one, alternated so that a change in the machine's load falls on
both: for every case both sides ran, the median ``total`` seconds of each side over its files
and their ratio (after / before), largest last; then the median and geometric mean of the
ratios and the cases slower by more than ``--threshold`` (default 5%).

A case is the row's section and the parameters that name it (`ID_FIELDS`), never its
measurements, so rows of different runs meet even when their timings and statuses differ.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The fields that name a case (those a row has), in the order they are printed.
ID_FIELDS = (
    "section",
    "kind",
    "case",
    "command",
    "sampler",
    "n",
    "m",
    "periods",
    "epsilon",
    "delta",
    "mu",
    "cost",
    "norm",
    "prior",
    "method",
    "monotone",
    "window",
    "solver",
    "k",
    "eps0",
    "designer",
    "size",
    "seed",
    "objective",
    "accuracy",
)

#: Fields of `ID_FIELDS` that a section measures rather than sets (a shuffle case's ε and the
#: method `auto` chose): never part of its name.
MEASURED = {"shuffle": frozenset({"epsilon", "method"})}

Case = tuple[tuple[str, Any], ...]


def case_of(row: dict[str, Any]) -> Case:
    """The name of ``row``'s case: its `ID_FIELDS`, as (field, value) pairs."""
    measured = MEASURED.get(row.get("section", ""), frozenset())
    return tuple((key, row[key]) for key in ID_FIELDS if key in row and key not in measured)


def totals(paths: Sequence[str | Path]) -> dict[Case, list[float]]:
    """Every case's ``total`` seconds over the files (rows without a number are left out)."""
    out: dict[Case, list[float]] = {}
    for path in paths:
        for row in json.loads(Path(path).read_text(encoding="utf-8"))["rows"]:
            total = row.get("total", row.get("total_median"))
            if isinstance(total, int | float) and not isinstance(total, bool):
                out.setdefault(case_of(row), []).append(float(total))
    return out


def compare(
    before: dict[Case, list[float]], after: dict[Case, list[float]]
) -> list[tuple[Case, float, float, float]]:
    """``(case, before s, after s, after / before)`` for the cases both sides have, by ratio;
    each side's seconds are the median of its runs."""
    out = []
    for case in before.keys() & after.keys():
        b, a = statistics.median(before[case]), statistics.median(after[case])
        if b > 0:
            out.append((case, b, a, a / b))
    return sorted(out, key=lambda item: item[3])


def report(rows: list[tuple[Case, float, float, float]], threshold: float) -> str:
    """The comparison as text: one line per case, then the summary."""
    if not rows:
        return "no case appears on both sides"
    lines = [
        f"{ratio:6.3f}  after {a:9.4f} s  before {b:9.4f} s  "
        + ", ".join(f"{k}={v}" for k, v in case)
        for case, b, a, ratio in rows
    ]
    ratios = [r[3] for r in rows]
    slower = [r for r in rows if r[3] > 1.0 + threshold]
    lines += [
        "",
        f"{len(rows)} cases; ratio after / before: median {statistics.median(ratios):.3f}, "
        f"geometric mean {statistics.geometric_mean(ratios):.3f}; "
        f"{len(slower)} slower by more than {threshold:.0%}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__)
    parser.add_argument("--before", nargs="+", required=True, metavar="JSON")
    parser.add_argument("--after", nargs="+", required=True, metavar="JSON")
    parser.add_argument(
        "--threshold", type=float, default=0.05, help="a slower case: ratio above 1 + this"
    )
    args = parser.parse_args(argv)
    print(report(compare(totals(args.before), totals(args.after)), args.threshold))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
