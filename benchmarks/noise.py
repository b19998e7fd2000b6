"""Run-to-run noise of the benchmark figures, and whether a new run reproduces a page.

``python -m benchmarks.noise --page-runs PAGE.json OTHER.json ... --new NEW.json``

A case's figures are of two kinds. Its **computed values** (certified values, ε, gaps, sizes,
iterations, statuses: `VALUE_FIELDS`) come from deterministic code and must be equal in every
run of one commit. Its **measured figures** (`figures`: seconds and their phases, a peer's or a
solver's seconds, samples per second, memory, ratios of seconds and fitted exponents) vary with
the machine. The page's runs are the run the page is written from, then other runs of the same
command on the same machine.

The noise is measured, then modelled. Two runs of one figure differ by a ratio; over every
pair of the page's runs, the figures' ratios measure that noise (pairs of runs that computed
other values ran other code and are left out). For each class of figures (seconds by their
decade in the page's run, `CLASSES`; each other kind, `KINDS`), the **band** is the factor that
one run's figures over the page's stay within, both ways, with probability ``1 - ALPHA`` for
the whole run, all classes at once (``ALPHA / classes`` each), under this model: beyond its
`TAIL_FROM` quantile, the law of the absolute log ratio is exponential, its scale the mean
excess (peaks over a threshold, the generalised Pareto law with shape 0: Coles 2001, *An
Introduction to Statistical Modeling of Extreme Values*, §4.3). The two runs of a pair are
alike, so the law of their log ratio is symmetric and one factor serves both ways. A band
always contains every ratio it was measured from.

A new run **reproduces** the page when every case both have keeps its computed values (relative
difference at most `VALUE_RTOL`), its figures over the page's lie within their bands, and it
has every case of the page. A case stopped at its time limit ``L`` in one run only (`TIMEOUT`)
agrees when the other run's seconds times the band's factor reach ``L``; a ladder stops at its
first case stopped, so a case the page's run stopped at may be absent. Figures read off others
(`READ_OFF`) are held to nothing of their own. ``ALPHA`` is the chance that a run as noisy as
the page's runs fails this check under the model; the model is an assumption (a tail heavier
than exponential fails more often), and a run that fails says which figures did.

Why not the largest ratio seen? Of ``R`` runs alike, a new one has the largest ratio of all
with probability ``1 / (R + 1)``, and each class has two ends: such a band would fail a new
run every few tries however quiet the machine, which says nothing of the page.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.compare import ID_FIELDS, Case, case_of

#: Classes of seconds, by the figure's value in the page's run: [low, high), decades (a phase
#: of a few milliseconds varies more, relatively, than a process of seconds).
CLASSES = ((0.0, 0.01), (0.01, 0.1), (0.1, 1.0), (1.0, 10.0), (10.0, math.inf))

#: The chance that a run of the same command, as noisy as the page's runs, has a figure
#: outside its band (under the tail model; shared equally by the classes).
ALPHA = 0.05

#: The tail of a class's absolute log ratios is modelled beyond this quantile.
TAIL_FROM = 0.9

#: A class with fewer pairs of runs than this measured states no band (its figures fail).
MIN_RATIOS = 20

#: The computed figures of a row: equal in every run of one commit (where a row has them;
#: ``<field>_median`` as well, and each entry of a shuffle case's ``bounds``). A status of
#: `TIMEOUT` is no computed value: it says the case's seconds passed its limit.
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
    "truncated_laplace",
    "closed_form_value",
    "lp_value",
    "highs_value",
    "clarabel_value",
    "highs_lower_bound",
    "clarabel_lower_bound",
    "value_gap",
    "qif_gap_to_closed_form",
    "interval",
    "relative_gap",
    "relative_width",
    "variables",
    "rows",
    "cells",
    "iterations",
    "rounds",
    "columns",
    "failed",
    "objective",
    "ratio_check",
    "reduced",
    "intervals_overlap",
    "highs_status",
    "clarabel_status",
    "direct_status",
    "qif_status",
    "peer_status",
)

#: The status of a case stopped at its time limit (``timeout_s``).
TIMEOUT = "timeout"

#: Fields that are no figure: the load average around a case, how many runs and priors it
#: had, the limit it ran under.
NOT_FIGURES = frozenset({"runs", "load", "load_min", "priors", "timeout_s"})

#: Figures read off other figures: the crossover size (off the two solvers' seconds), the
#: slowest prior's seed (off the priors' seconds), the largest size a ladder solved (off its
#: seconds and time limit). They are held to nothing of their own; the figures they are read
#: off are.
READ_OFF = frozenset({"crossover_variables", "worst_seed", "largest_solved"})

#: Dimensionless figures (ratios of seconds, fitted exponents, extrapolated sizes).
RATIOS = frozenset({"compile_share", "largest_estimate"})

#: The page's run, then the runs its noise comes from, as kept in the repository (a shell glob).
PAGE_RUNS = "benchmarks/results/run/benchmarks.json benchmarks/results/noise/*.json"

#: Relative difference allowed between two runs' computed values (solvers are deterministic
#: on one machine; this only absorbs the printing of floats).
VALUE_RTOL = 1e-9


Figure = tuple[Case, str]


@dataclass(frozen=True)
class Band:
    """One class of figures (seconds of one decade, or another kind): how many figures and
    pairs of runs measured it, the largest ratio between two runs measured, and the factor a
    new run's figure may reach over the page's, both ways."""

    kind: str
    low_s: float
    high_s: float
    figures: int
    pairs: int
    largest: float
    factor: float

    def label(self) -> str:
        if self.kind != "seconds":
            return KINDS[self.kind]
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


def _loose(case: Case) -> Case:
    """A case without its solver: a case stopped at its time limit reports none."""
    return tuple(item for item in case if item[0] != "solver")


def _match(rows: dict[Case, dict[str, Any]]) -> Callable[[Case], dict[str, Any] | None]:
    """A lookup of ``rows`` by case, falling back on the case without its solver (where that
    names one row)."""
    loose: dict[Case, list[dict[str, Any]]] = {}
    for case, row in rows.items():
        loose.setdefault(_loose(case), []).append(row)

    def find(case: Case) -> dict[str, Any] | None:
        hit = rows.get(case)
        if hit is None:
            many = loose.get(_loose(case), [])
            hit = many[0] if len(many) == 1 else None
        return hit

    return find


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _base(field: str) -> tuple[str, str]:
    """A field's name without ``_median`` or ``_min``, and that suffix."""
    for suffix in ("_median", "_min"):
        if field.endswith(suffix):
            return field[: -len(suffix)], suffix
    return field, ""


#: The kinds of figure besides seconds, as the page names them.
KINDS = {
    "rate": "samples per second",
    "memory": "peak memory (MB)",
    "memory above the imports": "memory above the imports (MB)",
    "ratio": "ratios, exponents",
}


def _kind(name: str) -> str:
    """A figure's kind: its noise is measured with others of its kind (and, for seconds, of
    its decade). Memory above the imports is a difference of two peaks, relatively noisier
    than either."""
    if name == "solve_mb":
        return "memory above the imports"
    if name.endswith("_mb"):
        return "memory"
    if "samples_per_s" in name:
        return "rate"
    if "_over_" in name or name.endswith("_exponent") or name in RATIOS:
        return "ratio"
    return "seconds"


def figures(row: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """The measured figures of a row, name → (kind, value): seconds (each entry of a shuffle
    case's ``times`` too), samples per second, memory and ratios (`_kind`). A
    ``<field>_median`` beside ``<field>`` is the same figure; a ``<field>_min`` is a figure of
    its own where the case ran more than once."""
    flat, once = dict(row), row.get("runs", 1) == 1
    if isinstance(row.get("times"), dict):
        flat.update({f"times.{k}": v for k, v in row["times"].items()})
    out: dict[str, tuple[str, float]] = {}
    for field, value in flat.items():
        base, suffix = _base(field)
        skip = field in ID_FIELDS or field in NOT_FIGURES or base in READ_OFF
        if skip or base in VALUE_FIELDS or not _number(value):
            continue
        plain = base in flat and base not in NOT_FIGURES  # "load" is the load average
        if (suffix == "_median" and plain) or (suffix == "_min" and once):
            continue
        out[field if suffix == "_min" else base] = (_kind(base), float(value))
    return out


def _seconds(row: dict[str, Any]) -> float | None:
    """A case's headline seconds, its total or a whole process's wall time (they class a case
    stopped at its limit)."""
    found = figures(row)
    for key in ("total", "wall"):
        if key in found:
            return found[key][1]
    return None


def _class_of(kind: str, value: float) -> tuple[str, int]:
    if kind != "seconds":
        return kind, 0
    return kind, next(i for i, (low, high) in enumerate(CLASSES) if low <= value < high)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= VALUE_RTOL * max(abs(a), abs(b))
    return bool(a == b)


def _values(row: dict[str, Any]) -> dict[str, Any]:
    """A row's computed values (`VALUE_FIELDS`, their ``_median``, each entry of
    ``bounds``); a status of `TIMEOUT` is left out."""
    out = {f: v for f, v in row.items() if _base(f)[1] != "_min" and _base(f)[0] in VALUE_FIELDS}
    if isinstance(row.get("bounds"), dict):
        out.update({f"bounds.{k}": v for k, v in row["bounds"].items()})
    return {f: v for f, v in out.items() if v != TIMEOUT}


def _changed(mine: dict[str, Any], row: dict[str, Any]) -> list[str]:
    """The computed values that two runs of one case both have and that differ."""
    a, b = _values(mine), _values(row)
    return [f for f in a if f in b and not _same(a[f], b[f])]


def _name(case: Case) -> str:
    return ", ".join(f"{k}={v}" for k, v in case)


def values_by_figure(runs: Sequence[Any]) -> dict[Figure, list[float]]:
    """Each figure's values over ``runs`` (reports or paths; the page's run first, and only
    the cases it has), from the runs that computed the page's run's values: a run whose values
    differ ran other code and measures no noise of this page."""
    loaded = [_load(r) for r in runs]
    page = _rows(loaded[0])
    out: dict[Figure, list[float]] = {}
    for report in loaded:
        find = _match(_rows(report))
        for case, mine in page.items():
            row = find(case)
            if row is None or _changed(mine, row):
                continue
            for name, (_, value) in figures(row).items():
                out.setdefault((case, name), []).append(value)
    return out


def _pair_logs(values: list[float]) -> list[float]:
    """|log(value in one run / value in another)| over every pair of runs."""
    return [abs(math.log(a / b)) for a, b in itertools.combinations(values, 2)]


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
    """The band of each class of figures (seconds by their value in the page's run ``page``,
    memory, ratios), from ``page`` and ``others`` (reports or paths of ``benchmarks.json``); a
    class with fewer than `MIN_RATIOS` pairs measured is left out."""
    figures_here = {
        (case, name): kf for case, row in _rows(_load(page)).items()
        for name, kf in figures(row).items()
    }  # fmt: skip
    logs: dict[tuple[str, int], list[float]] = {}
    count: dict[tuple[str, int], int] = {}
    for figure, values in values_by_figure([page, *others]).items():
        if figure in figures_here:
            key = _class_of(*figures_here[figure])
            count[key] = count.get(key, 0) + 1
            logs.setdefault(key, []).extend(_pair_logs(values))
    kept = sorted(k for k, v in logs.items() if len(v) >= MIN_RATIOS)
    out = []
    for kind, k in kept:
        x = np.asarray(logs[kind, k])
        # The classes share ALPHA; a run has `count` draws in this class.
        edge = _tail_edge(x, count[kind, k] * len(kept) / ALPHA)
        low_s, high_s = CLASSES[k] if kind == "seconds" else (0.0, math.inf)
        out.append(
            Band(kind, low_s, high_s, count[kind, k], x.size, math.exp(x.max()), math.exp(edge))
        )
    return out


def _band_of(table: list[Band], kind: str, value: float) -> Band | None:
    kind, k = _class_of(kind, value)
    low = CLASSES[k][0] if kind == "seconds" else 0.0
    return next((b for b in table if b.kind == kind and b.low_s == low), None)


def value_changes(page: Any, new: Any) -> list[str]:
    """The computed values of the cases both runs have that differ, one line each."""
    find = _match(_rows(_load(new)))
    out = []
    for case, mine in _rows(_load(page)).items():
        row = find(case)
        if row is None:
            continue
        a, b = _values(mine), _values(row)
        for field in _changed(mine, row):
            out.append(f"{_name(case)}: {field} {a[field]!r} → {b[field]!r}")
    return out


def _censored(band: Band | None, here: dict[str, Any], row: dict[str, Any]) -> str | None:
    """Where one of two runs of a case stopped at its limit L: the other's seconds t agree
    with it when t × the band's factor reaches L (the stopped run took more than L). None when
    they agree (or both stopped), else why not."""
    stopped, ran = (here, row) if here.get("status") == TIMEOUT else (row, here)
    if ran.get("status") == TIMEOUT:
        return None
    limit, seconds = stopped.get("timeout_s"), _seconds(ran)
    if band is None or not _number(limit) or seconds is None:
        return "no band"
    if seconds * band.factor >= float(limit):
        return None
    return f"{seconds:.4g} s against a stop at {float(limit):g} s"


def outside(table: list[Band], page: Any, run: Any) -> tuple[list[str], int]:
    """The figures of ``run`` whose value over the page's lies outside their class's band,
    the page's cases and figures ``run`` lacks (but a case the page's run stopped at its limit,
    as a ladder stops at its first such case, and the figures of a row where a peer or a
    solver stopped at its limit), and the cases where one run stopped at its limit that the
    other's seconds cannot reach within the band; one line each. Also how many figures were
    compared."""
    find = _match(_rows(_load(run)))
    lines, compared = [], 0
    for case, here in _rows(_load(page)).items():
        row = find(case)
        if row is None:
            if here.get("status") != TIMEOUT:
                lines.append(f"missing: {_name(case)}")
            continue
        if TIMEOUT in (here.get("status"), row.get("status")):
            compared += 1
            headline = _seconds(here) or _seconds(row)
            band = None if headline is None else _band_of(table, "seconds", headline)
            why = _censored(band, here, row)
            if why:
                lines.append(f"stopped at its limit in one run only ({why}): {_name(case)}")
            continue
        mine, new = figures(here), figures(row)
        fields = {_base(f)[0] for f in row} | {f"times.{k}" for k in row.get("times") or {}}
        for name in mine.keys() - new.keys():
            # A figure of zero seconds is no figure, nor one of a peer stopped at its limit.
            if _base(name)[0] not in fields and TIMEOUT not in row.values():
                lines.append(f"missing: {name} of {_name(case)}")
        for name in mine.keys() & new.keys():
            compared += 1
            kind, value = mine[name]
            band = _band_of(table, kind, value)
            ratio = new[name][1] / value
            if band is None or not band.holds(ratio):
                where = "no band" if band is None else band.range()
                lines.append(
                    f"{ratio:6.3f} (band {where}, page {value:.4g}): {name} of {_name(case)}"
                )
    return lines, compared


def check(page: Any, others: Sequence[Any], new: Any) -> tuple[list[str], list[str], int]:
    """``(outside, changed, compared)``: the figures of ``new`` outside their class's band
    (from ``page`` and ``others``) and the page's cases it lacks (`outside`), the computed
    values that changed against ``page``, and how many figures were compared."""
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
    code), the rules for cases stopped at their limit and for figures read off others, and the
    command that checks a new run."""
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
        find = _match(_rows(other))
        for case, mine in base.items():
            row = find(case)
            if row is not None and _changed(mine, row):
                differ += 1
                sections.add(str(mine.get("section")))
    left_out = (
        f" {differ} cases computed other values in another run (sections: "
        f"{', '.join(sorted(sections))}): they ran other code, measure no noise and are left out."
        if differ
        else ""
    )
    kept = bands(page, others)
    out += [
        f"Other runs of the same command on this machine: {_runs_phrase(others)}. Every "
        "measured figure of a case (its seconds and their phases, a peer's or a solver's "
        "seconds, samples per second, memory, ratios and fitted exponents) differs between two "
        "runs by a ratio; every pair of these runs and this page's, over the cases whose "
        "computed values (certified values, ε, gaps, sizes, iterations, statuses) were this "
        f"page's, measures it.{left_out} The **band** of a class of figures (seconds by their "
        "decade here; each other kind) is the factor, either way, that a new run's figures over "
        f"this page's stay within, all at once, with probability {1 - ALPHA:.0%} (all classes "
        "together), when the law of the absolute log ratio is exponential beyond its "
        f"{TAIL_FROM:.0%} quantile, its scale the mean excess (peaks over a threshold; Coles "
        "2001, §4.3). A band contains every ratio measured. The largest ratio measured is no "
        "band: of runs alike, a new one has the largest ratio of all with probability "
        "1/(runs + 1).",
        "",
        "| class | figures | pairs of runs | largest ratio measured | band of a new run |",
        "|---|---|---|---|---|",
        *(
            f"| {b.label()} | {b.figures} | {b.pairs} | {b.largest:.2f} | {b.range()} |"
            for b in kept
        ),
        "",
        "A new run reproduces this page when its computed values are this page's, its figures "
        "lie within their bands, and it has every case of this page. A case stopped at its "
        "time limit L in one run only agrees when the other run's seconds, times the band's "
        "factor, reach L; a case this page's run stopped at need not be in the new run (a "
        "ladder stopped earlier does not reach it). The crossover size, the slowest prior's "
        "seed and the largest size a ladder solved are read off the seconds above (the "
        "solvers', the priors', the ladder's): where those are within the noise of each "
        "other or of the limit, a run can read another size or seed, and only the seconds are "
        "held to their bands.",
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
    page, *others = (_load(path) for path in args.page_runs)
    new = _load(args.new)
    table = bands(page, others)
    lines, compared = outside(table, page, new)
    changed = value_changes(page, new)
    for band in table:
        print(
            f"band {band.label():>10}: {band.range()} "
            f"(largest ratio measured {band.largest:.3f}, {band.figures} figures, "
            f"{band.pairs} pairs of runs)"
        )
    for line in lines:
        print("outside", line)
    for line in changed:
        print("changed", line)
    print(
        f"{compared} figures compared: {len(lines)} outside their band or missing, "
        f"{len(changed)} computed values changed"
    )
    return 0 if not lines and not changed else 1


if __name__ == "__main__":
    raise SystemExit(main())
