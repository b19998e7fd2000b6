"""Run-to-run noise of the benchmark figures, and whether a new run reproduces a page.

``python -m benchmarks.noise --page-runs PAGE.json OTHER.json ... --new NEW.json``

A case's figures are of two kinds. Its **computed values** (certified values, ε, gaps, sizes,
statuses: `VALUE_FIELDS`) come from deterministic code and must be equal in every run of one
commit. Its **seconds** (``total``) vary with the machine. The page's runs are the run the
page is written from, then other runs of the same command on the same machine.

The noise is measured, then modelled. Two runs of one case differ by a ratio; over every pair of
the page's runs, a case's ratios measure that noise (pairs of runs that computed other values
ran other code and are left out). For each class of duration (`CLASSES`, by the seconds of the
page's run), the **band** is the factor that one run's ratios to the page's figures stay within,
both ways, with probability ``1 - ALPHA`` for the whole run, all classes at once (``ALPHA /
classes`` each), under this model: beyond its `TAIL_FROM` quantile, the law of the absolute log
ratio is exponential, its scale the mean excess (peaks over a threshold, the generalised Pareto
law with shape 0: Coles 2001, *An Introduction to Statistical Modeling of Extreme Values*,
§4.3). The two runs of a pair are alike, so the law of their log ratio is symmetric and one
factor serves both ways. A band always contains every ratio it was measured from.

A new run **reproduces** the page when every case both have keeps its computed values
(relative difference at most `VALUE_RTOL`) and its seconds, divided by the page's, lie within
the band of the case's class. ``ALPHA`` is the chance that a run as noisy as the page's runs
fails this check under the model; the model is an assumption (a tail heavier than exponential
fails more often), and a run that fails says which cases did.

Why not the largest ratio seen? Of ``R`` runs alike, a new one has the largest ratio of all
with probability ``1 / (R + 1)``, and each class has two ends: such a band would fail a new
run every few tries however quiet the machine, which says nothing of the page.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.compare import Case, case_of

#: Classes of duration, by the case's seconds in the page's run: [low, high).
CLASSES = ((0.0, 0.1), (0.1, 1.0), (1.0, 10.0), (10.0, math.inf))

#: The chance that a run of the same command, as noisy as the page's runs, has a case outside
#: its band (under the tail model; shared equally by the classes).
ALPHA = 0.05

#: The tail of a class's absolute log ratios is modelled beyond this quantile.
TAIL_FROM = 0.9

#: A class with fewer pairs of runs than this measured states no band (its cases fail).
MIN_RATIOS = 20

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
    """One duration class: how many cases and pairs of runs measured it, the largest ratio
    between two runs measured, and the factor a new run's ratio to the page may reach both
    ways."""

    low_s: float
    high_s: float
    cases: int
    pairs: int
    largest: float
    factor: float

    def label(self) -> str:
        if math.isinf(self.high_s):
            return f"≥ {self.low_s:g} s"
        return f"{self.low_s:g}–{self.high_s:g} s" if self.low_s > 0 else f"< {self.high_s:g} s"

    def range(self) -> str:
        return f"{1 / self.factor:.2f}–{self.factor:.2f}"

    def holds(self, ratio: float) -> bool:
        return 1.0 / self.factor <= ratio <= self.factor


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


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= VALUE_RTOL * max(abs(a), abs(b))
    return bool(a == b)


def _changed(mine: dict[str, Any], row: dict[str, Any]) -> list[str]:
    """The `VALUE_FIELDS` that two runs of one case both have and that differ."""
    return [f for f in VALUE_FIELDS if f in mine and f in row and not _same(mine[f], row[f])]


def _name(case: Case) -> str:
    return ", ".join(f"{k}={v}" for k, v in case)


def seconds_by_case(runs: Sequence[Any]) -> dict[Case, list[float]]:
    """Each case's seconds over ``runs`` (reports or paths; the page's run first, and only
    the cases it has), from the runs that computed the page's run's values: a run whose values
    differ ran other code and measures no noise of this page."""
    loaded = [_load(r) for r in runs]
    page = _rows(loaded[0])
    out: dict[Case, list[float]] = {}
    for report in loaded:
        for case, row in _rows(report).items():
            mine = page.get(case)
            seconds = _seconds(row)
            if mine is not None and seconds is not None and not _changed(mine, row):
                out.setdefault(case, []).append(seconds)
    return out


def _pair_logs(seconds: list[float]) -> list[float]:
    """|log(seconds in one run / seconds in another)| over every pair of runs."""
    return [abs(math.log(a / b)) for a, b in itertools.combinations(seconds, 2)]


def _tail_edge(logs: np.ndarray, trials: float) -> float:
    """The edge that ``trials`` draws of the law of ``logs`` cross once on average: beyond the
    `TAIL_FROM` quantile ``u`` the tail is exponential with the mean excess ``beta`` as its
    scale, P(X > u + t) = p_u exp(-t / beta), so the edge is u + beta log(trials p_u). Never
    below the largest value measured."""
    u = float(np.quantile(logs, TAIL_FROM))
    excess = logs[logs > u] - u
    if excess.size == 0:
        return float(logs.max())
    p_u = excess.size / logs.size
    return max(float(logs.max()), u + float(excess.mean()) * math.log(max(trials * p_u, 1.0)))


def bands(page: Any, others: Sequence[Any]) -> list[Band]:
    """The band of each duration class (by the seconds of the page's run ``page``), from
    ``page`` and ``others`` (reports or paths of ``benchmarks.json``); a class with fewer than
    `MIN_RATIOS` pairs measured is left out."""
    by_case = seconds_by_case([page, *others])
    figures = _rows(_load(page))
    logs: list[list[float]] = [[] for _ in CLASSES]
    cases = [0 for _ in CLASSES]
    for case, seconds in by_case.items():
        k = _class_of(_seconds(figures[case]) or seconds[0])
        cases[k] += 1
        logs[k] += _pair_logs(seconds)
    kept = [k for k in range(len(CLASSES)) if len(logs[k]) >= MIN_RATIOS]
    out = []
    for k in kept:
        x = np.asarray(logs[k])
        # The classes share ALPHA; a run has `cases[k]` draws in this class.
        edge = _tail_edge(x, cases[k] * len(kept) / ALPHA)
        low_s, high_s = CLASSES[k]
        out.append(Band(low_s, high_s, cases[k], x.size, math.exp(x.max()), math.exp(edge)))
    return out


def _band_of(table: list[Band], seconds: float) -> Band | None:
    low = CLASSES[_class_of(seconds)][0]
    return next((b for b in table if b.low_s == low), None)


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
            out.append(f"{_name(case)}: {field} {mine[field]!r} → {row[field]!r}")
    return out


def outside(table: list[Band], page: Any, run: Any) -> tuple[list[str], int]:
    """The cases of ``run`` whose seconds over the page's lie outside their class's band (one
    line each), and how many cases were compared."""
    figures = _rows(_load(page))
    lines, compared = [], 0
    for case, row in _rows(_load(run)).items():
        mine = figures.get(case)
        here, seconds = (None, None) if mine is None else (_seconds(mine), _seconds(row))
        if here is None or seconds is None:
            continue
        compared += 1
        band = _band_of(table, here)
        if band is None or not band.holds(seconds / here):
            where = "no band" if band is None else band.range()
            lines.append(f"{seconds / here:6.3f} (band {where}, page {here:.4g} s): {_name(case)}")
    return lines, compared


def check(page: Any, others: Sequence[Any], new: Any) -> tuple[list[str], list[str], int]:
    """``(outside, changed, compared)``: the cases of ``new`` whose seconds over the page's lie
    outside their class's band (from ``page`` and ``others``), the computed values that
    changed against ``page``, and how many cases were compared."""
    lines, compared = outside(bands(page, others), page, new)
    return lines, value_changes(page, new), compared


def _runs_phrase(others: Sequence[dict[str, Any]]) -> str:
    return ", ".join(
        f"{o['started']} (`{o.get('command', '')}`"
        + (f", commit {o['commit'][:10]})" if o.get("commit") else ")")
        for o in others
    )


def page_lines(page: dict[str, Any], others: Sequence[dict[str, Any]]) -> list[str]:
    """The page's section on its noise: the runs it was measured from, each class's largest
    ratio measured and band, the cases left out (their computed values differ: they ran other
    code), and the command that checks a new run."""
    out = ["## Run-to-run noise", ""]
    if not others:
        return [
            *out,
            "Measured from one run only: no other run of the same command was given "
            "(`--noise`), so this page states no band of noise.",
            "",
        ]
    base = _rows(page)
    differ, sections = 0, set()
    for other in others:
        for case, row in _rows(other).items():
            if case in base and _changed(base[case], row):
                differ += 1
                sections.add(str(row.get("section")))
    left_out = (
        f" {differ} cases computed other values in another run (sections: "
        f"{', '.join(sorted(sections))}): they ran other code, measure no noise and are left out."
        if differ
        else ""
    )
    kept = bands(page, others)
    out += [
        f"Other runs of the same command on this machine: {_runs_phrase(others)}. Two runs of "
        "a case differ by a ratio of seconds; every pair of these runs and this page's, over "
        "the cases whose computed values (certified values, ε, gaps, sizes, statuses) were "
        f"this page's, measures it.{left_out} The **band** of a class (by the seconds here) is "
        "the factor, either way, that a new run's seconds over this page's stay within for all "
        f"its cases at once with probability {1 - ALPHA:.0%} (all classes together), when the "
        f"law of the absolute log ratio is exponential beyond its {TAIL_FROM:.0%} quantile, "
        "its scale the mean excess (peaks over a threshold; Coles 2001, §4.3). A band contains "
        "every ratio measured. The largest ratio measured is no band: of runs alike, a new one "
        "has the largest ratio of all with probability 1/(runs + 1). A new run reproduces this "
        "page when its seconds lie within the band of their class and its computed values are "
        "this page's.",
        "",
        "| seconds here | cases | pairs of runs | largest ratio measured | band of a new run |",
        "|---|---|---|---|---|",
        *(
            f"| {b.label()} | {b.cases} | {b.pairs} | {b.largest:.2f} | {b.range()} |"
            for b in kept
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
        help="the page's run first, then the other runs its noise comes from",
    )
    parser.add_argument("--new", required=True, metavar="JSON", help="the run to check")
    args = parser.parse_args(argv)
    page, *others = args.page_runs
    lines, changed, compared = check(page, others, args.new)
    for band in bands(page, others):
        print(
            f"band {band.label():>10}: {band.range()} "
            f"(largest ratio measured {band.largest:.3f}, {band.pairs} pairs of runs)"
        )
    for line in lines:
        print("outside", line)
    for line in changed:
        print("changed", line)
    print(
        f"{compared} cases compared: {len(lines)} outside their band, "
        f"{len(changed)} computed values changed"
    )
    return 0 if not lines and not changed else 1


if __name__ == "__main__":
    raise SystemExit(main())
