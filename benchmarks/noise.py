"""Run-to-run noise of the benchmark figures, and whether a new run reproduces a page.

``python -m benchmarks.noise --page-runs PAGE.json OTHER.json ... --new NEW.json``

A case's figures are of two kinds. Its **computed values** (certified values, ε, gaps, sizes,
statuses: `VALUE_FIELDS`) come from deterministic code and must be equal in every run of one
commit. Its **seconds** (``total``) vary with the machine's load. The page's noise is measured,
not assumed: the same command is run more than once on the same machine, and for each class of
duration (`CLASSES`, by the page run's seconds) the band is the smallest and largest ratio of a
case's seconds in another run to its seconds in the page's run.

A new run **reproduces** the page when every case both have keeps its computed values
(relative difference at most `VALUE_RTOL`) and its seconds, divided by the page's, lie within
the band of the case's class. A band from two runs is an estimate of the spread, not a bound:
a third run can fall outside it, and the check says which cases do.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.compare import Case, case_of

#: Classes of duration, by the page run's seconds of the case: [low, high).
CLASSES = ((0.0, 0.1), (0.1, 1.0), (1.0, 10.0), (10.0, math.inf))

#: The computed figures of a row: equal in every run of one commit (where a row has them).
VALUE_FIELDS = (
    "status",
    "value",
    "lower_bound",
    "epsilon",
    "peer_epsilon",
    "certified_epsilon",
    "certified_delta",
    "certified_mu",
    "gap_to_closed_form",
    "gap_to_staircase_nd",
    "gap_to_gaussian",
    "value_over_truncated_laplace",
    "closed_form_value",
    "lp_value",
    "highs_value",
    "clarabel_value",
    "interval",
    "relative_gap",
    "variables",
    "rows",
    "cells",
)

#: The page's run, then the runs its noise comes from, as kept in the repository (a shell glob).
PAGE_RUNS = "benchmarks/results/run/benchmarks.json benchmarks/results/noise/*.json"

#: Relative difference allowed between two runs' computed values (solvers are deterministic
#: on one machine; this only absorbs the printing of floats).
VALUE_RTOL = 1e-9


@dataclass(frozen=True)
class Band:
    """The ratios (other run / page run) of the cases of one duration class."""

    low_s: float
    high_s: float
    cases: int
    smallest: float
    largest: float

    def label(self) -> str:
        if math.isinf(self.high_s):
            return f"≥ {self.low_s:g} s"
        return f"{self.low_s:g}–{self.high_s:g} s" if self.low_s > 0 else f"< {self.high_s:g} s"

    def holds(self, ratio: float) -> bool:
        return self.smallest <= ratio <= self.largest


def _load(report: str | Path | dict[str, Any]) -> dict[str, Any]:
    if isinstance(report, dict):
        return report
    loaded: dict[str, Any] = json.loads(Path(report).read_text(encoding="utf-8"))
    return loaded


def _rows(report: dict[str, Any]) -> dict[Case, dict[str, Any]]:
    """The rows of a report by case; a case that appears twice in one run is left out (its
    rows cannot be told apart)."""
    out: dict[Case, dict[str, Any]] = {}
    twice: set[Case] = set()
    for row in report["rows"]:
        case = case_of(row)
        if case in out:
            twice.add(case)
        out[case] = row
    return {case: row for case, row in out.items() if case not in twice}


def _seconds(row: dict[str, Any]) -> float | None:
    """A case's seconds: its total (median over its runs), a whole process's wall time, or a
    sampler's seconds per draw."""
    for key in ("total", "total_median", "wall_median"):
        value = row.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value)
    rate = row.get("samples_per_s")
    if isinstance(rate, int | float) and not isinstance(rate, bool) and rate > 0:
        return 1.0 / float(rate)
    return None


def _class_of(seconds: float) -> int:
    return next(i for i, (low, high) in enumerate(CLASSES) if low <= seconds < high)


def bands(page: Any, others: Sequence[Any]) -> list[Band]:
    """The band of each duration class over the cases ``page`` shares with each of ``others``
    (reports or paths of ``benchmarks.json``); classes without a case are left out. A case
    whose computed values differ between the two runs (`_changed`: the code it runs changed)
    measures no noise and is left out."""
    base = _rows(_load(page))
    ratios: list[list[float]] = [[] for _ in CLASSES]
    for other in others:
        for case, row in _rows(_load(other)).items():
            mine = base.get(case)
            if mine is None or _changed(mine, row):
                continue
            a, b = _seconds(mine), _seconds(row)
            if a is not None and b is not None:
                ratios[_class_of(a)].append(b / a)
    return [
        Band(low, high, len(r), min(r), max(r))
        for (low, high), r in zip(CLASSES, ratios, strict=True)
        if r
    ]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= VALUE_RTOL * max(abs(a), abs(b))
    return bool(a == b)


def _changed(mine: dict[str, Any], row: dict[str, Any]) -> list[str]:
    """The `VALUE_FIELDS` that two runs of one case both have and that differ."""
    return [f for f in VALUE_FIELDS if f in mine and f in row and not _same(mine[f], row[f])]


def value_changes(page: Any, new: Any) -> list[str]:
    """The computed values (`VALUE_FIELDS`) of the cases both runs have that differ, one line
    each."""
    base = _rows(_load(page))
    out = []
    for case, row in _rows(_load(new)).items():
        mine = base.get(case)
        if mine is None:
            continue
        for field in _changed(mine, row):
            name = ", ".join(f"{k}={v}" for k, v in case)
            out.append(f"{name}: {field} {mine[field]!r} → {row[field]!r}")
    return out


def check(page: Any, others: Sequence[Any], new: Any) -> tuple[list[str], list[str], int]:
    """``(outside, changed, compared)``: the cases of ``new`` whose seconds lie outside their
    class's band (from ``page`` and ``others``), the computed values that changed, and how
    many cases were compared."""
    table = bands(page, others)
    base = _rows(_load(page))
    outside, compared = [], 0
    for case, row in _rows(_load(new)).items():
        mine = base.get(case)
        a, b = (None, None) if mine is None else (_seconds(mine), _seconds(row))
        if a is None or b is None:
            continue
        compared += 1
        low = CLASSES[_class_of(a)][0]
        band = next((x for x in table if x.low_s == low), None)
        if band is None or not band.holds(b / a):
            name = ", ".join(f"{k}={v}" for k, v in case)
            where = "no band" if band is None else f"{band.smallest:.2f}–{band.largest:.2f}"
            outside.append(f"{b / a:6.3f} (band {where}): {name}")
    return outside, value_changes(page, new), compared


def page_lines(page: dict[str, Any], others: Sequence[dict[str, Any]]) -> list[str]:
    """The page's section on its noise: the runs it was measured from, each class's band, the
    cases left out (their computed values differ: they ran other code), and the command that
    checks a new run."""
    out = ["## Run-to-run noise", ""]
    if not others:
        return [
            *out,
            "Measured from one run only: no other run of the same command was given "
            "(`--noise`), so this page states no band of noise.",
            "",
        ]
    runs = ", ".join(
        f"{o['started']} (`{o.get('command', '')}`"
        + (f", commit {o['commit'][:10]})" if o.get("commit") else ")")
        for o in others
    )
    base = _rows(page)
    same = differ = 0
    sections: set[str] = set()
    for other in others:
        for case, row in _rows(other).items():
            if case in base:
                if _changed(base[case], row):
                    differ += 1
                    sections.add(str(row.get("section")))
                else:
                    same += 1
    left_out = (
        f" {differ} cases computed other values in another run (sections: "
        f"{', '.join(sorted(sections))}): they ran other code, measure no noise and are left out."
        if differ
        else ""
    )
    out += [
        f"Other runs of the same command on this machine: {runs}. For each class of duration "
        "(the case's seconds in this page's run), the band is the smallest and largest ratio of "
        "a case's seconds in another run to its seconds here, over the cases whose computed "
        f"values (certified values, ε, gaps, sizes, statuses) were the same ({same}).{left_out} "
        "A new run reproduces this page when its cases' ratios lie within their class's band "
        "and their computed values are this page's.",
        "",
        "| duration here | cases | seconds elsewhere / seconds here |",
        "|---|---|---|",
        *(
            f"| {b.label()} | {b.cases} | {b.smallest:.2f}–{b.largest:.2f} |"
            for b in bands(page, others)
        ),
        "",
        f"Check a new run against this page: `python -m benchmarks.noise --page-runs "
        f"{PAGE_RUNS} --new benchmark-results/benchmarks.json`.",
        "",
    ]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.noise", description=__doc__)
    parser.add_argument(
        "--page-runs",
        nargs="+",
        required=True,
        metavar="JSON",
        help="the page's run first, then the other runs its bands come from",
    )
    parser.add_argument("--new", required=True, metavar="JSON", help="the run to check")
    args = parser.parse_args(argv)
    page, *others = args.page_runs
    outside, changed, compared = check(page, others, args.new)
    for band in bands(page, others):
        print(f"band {band.label():>10}: {band.smallest:.3f}–{band.largest:.3f} ({band.cases})")
    for line in outside:
        print("outside", line)
    for line in changed:
        print("changed", line)
    print(
        f"{compared} cases compared: {len(outside)} outside their band, "
        f"{len(changed)} computed values changed"
    )
    return 0 if not outside and not changed else 1


if __name__ == "__main__":
    raise SystemExit(main())
