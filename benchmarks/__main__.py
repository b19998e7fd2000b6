"""``python -m benchmarks [--quick] [--out DIR] [--only SECTION ...] [--timeout S] [--repeat N]
[--page PATH [--noise JSON ...]]``.

Writes ``DIR/benchmarks.json`` (every row, with the machine load) and ``DIR/benchmarks.md``
(the tables of docs/performance.md). ``--quick`` uses small sizes (a couple of minutes);
the full mode runs the sizes of the project's performance targets and may take much longer.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks._common import load, set_repeats

SECTIONS = (
    "grs",
    "additive",
    "approx",
    "crossover",
    "startup",
    "samplers",
    "closedform",
    "additive2d",
    "gdp",
    "scaling",
    "shuffle",
)


def _versions() -> dict[str, str]:
    out = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": str(os.cpu_count()),
    }
    for name in ("optmech", "numpy", "scipy", "cvxpy", "clarabel", "highspy", "qif", "diffprivlib"):
        try:
            mod = importlib.import_module(name)
            out[name] = str(getattr(mod, "__version__", "installed"))
        except Exception:  # not installed or broken: say so
            out[name] = "not available"
    return out


def _fmt(val: Any, fmt: str = ".3g") -> str:
    if val is None:
        return "–"
    if isinstance(val, float):
        return format(val, fmt)
    return str(val)


def _cells(row: dict[str, Any], *keys: str) -> list[str]:
    return [_fmt(row.get(key)) for key in keys]


def _mm(row: dict[str, Any], key: str, fmt: str = ".3g") -> str:
    """``median (min)`` of a repeated figure, or the one value of a single run."""
    med = row.get(f"{key}_median", row.get(key))
    low = row.get(f"{key}_min")
    if low is None or med is None:
        return _fmt(med, fmt)
    return f"{_fmt(med, fmt)} ({_fmt(low, fmt)})"


def _load(row: dict[str, Any]) -> str:
    low, high = row.get("load_min"), row.get("load")
    if high is None:
        return "–"
    return f"{high:.2f}" if low is None or abs(high - low) < 0.005 else f"{low:.2f}–{high:.2f}"


def _stages(row: dict[str, Any]) -> list[str]:
    """The cells ``total s | build | compile | solve | certify`` of a design in process."""
    return [_mm(row, "total"), *_cells(row, "build", "compile", "solve", "certify")]


def _table(
    title: str,
    header: str,
    rows: list[dict[str, Any]],
    cells: Callable[[dict[str, Any]], list],
    *,
    memory: bool = True,
) -> list[str]:
    """A markdown table (nothing when there are no rows): ``header`` is ``"a | b | …"``.

    Every table ends with the machine's load (``load``), after the peak memory of the case
    (``peak RSS MB``) where ``memory``: neither is in ``header`` or ``cells``.
    """
    if not rows:
        return []
    header += " | peak RSS MB | load" if memory else " | load"

    def tail(row: dict[str, Any]) -> list:
        return [_fmt(row.get("peak_rss_mb"), ".0f"), _load(row)] if memory else [_load(row)]

    columns = header.count("|") + 1
    out = [f"### {title}", "", f"| {header} |", "|" + "---|" * columns]
    out += ["| " + " | ".join(str(c) for c in [*cells(r), *tail(r)]) + " |" for r in rows]
    return [*out, ""]


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown tables (one per section)."""
    rows = report["rows"]
    lines = [
        f"Run {report['started']} ({report['mode']} mode"
        + (
            f"; full sizes for {', '.join(report['full_sections'])}"
            if report.get("full_sections")
            else ""
        )
        + f", `{report.get('command', '')}`"
        + (f" at commit {report['commit'][:10]}" if report.get("commit") else "")
        + f"; {runs_phrase(rows)}, each alternated with the "
        f"case it is compared with), load average at start {report['load_start']:.2f}, at end "
        f"{report['load_end']:.2f}; "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        "",
    ]
    grs = [r for r in rows if r["section"] == "grs"]
    lines += _table(
        "GRS user LP (uniform prior, |e|, ε = 0.5)",
        "n | solver | status | runs | total s | build | compile | solve | certify | "
        "gap to G+remap | pipeline / direct | pipeline / qif",
        grs,
        lambda r: [
            r["n"],
            r["solver"],
            r["status"],
            r.get("runs", 1),
            *_stages(r),
            _fmt(r.get("gap_to_closed_form"), "+.1e"),
            _fmt(r.get("pipeline_over_direct")),
            _fmt(r.get("pipeline_over_qif"), ".2g")
            if "pipeline_over_qif" in r
            else r.get("qif_status", "–"),
        ],
    )
    scaling_rows = [r for r in rows if r["section"] == "grs-scaling"]
    if scaling_rows:
        from benchmarks.grs_scaling import markdown as scaling_markdown

        lines += [
            "### GRS user LP, general prior (Dirichlet(1), |e|, ε = 0.5), by method",
            "",
            scaling_markdown(scaling_rows),
            "",
        ]
    add = [r for r in rows if r["section"] == "additive" and r.get("kind") != "scaling"]
    lines += _table(
        "Additive ε-DP noise LP (|e|, ε = 1, Δ = 1)",
        "m | periods | class | solver | status | runs | cells | variables | total s | build | "
        "compile | solve | certify | gap to staircase | pipeline / direct",
        add,
        lambda r: [
            r["m"],
            r["periods"],
            "monotone" if r["monotone"] else "all",
            r["solver"],
            r["status"],
            r.get("runs", 1),
            *_cells(r, "cells", "variables"),
            *_stages(r),
            _fmt(r.get("gap_to_closed_form"), "+.1e"),
            _fmt(r.get("pipeline_over_direct")),
        ],
    )
    scaling = [r for r in rows if r["section"] == "additive" and r.get("kind") == "scaling"]
    lines += [
        f"Scaling, {r['solver']}: solve time ∝ cells^{_fmt(r['solve_exponent'], '.2f')}, "
        f"total ∝ cells^{_fmt(r['total_exponent'], '.2f')} (cells {r['cells']})."
        for r in scaling
    ] + ([""] if scaling and add else [])
    lines += _table(
        "Additive (ε, δ) noise at the default settings (Δ = 1), against the truncated Laplace",
        "ε | δ | cost | status | runs | m | cells | total s | interval | value / truncated "
        "Laplace | certified δ | design",
        [r for r in rows if r["section"] == "approx"],
        lambda r: [
            f"{r['epsilon']:g}",
            f"{r['delta']:g}",
            r["cost"],
            r["status"],
            r.get("runs", 1),
            *_cells(r, "m", "cells"),
            _mm(r, "total"),
            _fmt(r.get("interval"), ".1e"),
            _fmt(r.get("value_over_truncated_laplace"), ".4f"),
            _fmt(r.get("certified_delta"), ".3g"),
            r.get("source", "solver"),
        ],
    )
    lines += _table(
        "2-D additive ε-DP noise LP (ℓ1 cost, ε = 1, Δ = 1)",
        "case | ball | m | periods | status | runs | cells | variables | rows | total s | build | "
        "compile | solve | certify | gap to StaircaseND",
        [r for r in rows if r["section"] == "additive2d"],
        lambda r: [
            *_cells(r, "kind", "norm", "m", "periods", "status", "runs"),
            *_cells(r, "cells", "variables", "rows"),
            *_stages(r),
            _fmt(r.get("gap_to_staircase_nd"), "+.1e"),
        ],
    )
    lines += _table(
        "Gaussian-DP designs (|e|, Δ = 1) against the Gaussian mechanism",
        "μ | m | accuracy | solver | status | runs | rounds | total s | value | interval | "
        "gap to Gaussian | source | certified μ",
        [r for r in rows if r["section"] == "gdp"],
        lambda r: [
            *_cells(r, "mu", "m", "accuracy", "solver", "status", "runs", "rounds"),
            _mm(r, "total"),
            _fmt(r.get("value"), ".7g"),
            _fmt(r.get("interval"), ".1e"),
            _fmt(r.get("gap_to_gaussian"), "+.2e"),
            *_cells(r, "source", "certified_mu"),
        ],
    )
    lines += _crossover_tables(rows)
    lines += _table(
        "Whole processes of small problems (seconds from launch to exit)",
        "command | runs | wall s, median (min) | imports: numpy, cvxpy, optmech + solvers | "
        "LP work in process",
        [r for r in rows if r["section"] == "startup"],
        lambda r: [
            r["command"],
            r.get("runs", "–"),
            _mm(r, "wall", ".3g"),
            _split_imports(r),
            _split_work(r),
        ],
    )
    lines += _table(
        "Samplers (samples/s)",
        "sampler | ε | runs | samples/s, median (best) | limit | time / limit | vs diffprivlib",
        [r for r in rows if r["section"] == "samplers"],
        lambda r: [
            r["sampler"],
            f"{r['epsilon']:g}",
            r.get("runs", "–"),
            f"{r['samples_per_s']:.3g} ({r.get('samples_per_s_best', r['samples_per_s']):.3g})",
            r["limit"],
            f"{r['ours_over_limit_time']:.2f}",
            f"{r['ours_over_peer_rate']:.0f}x faster"
            if "ours_over_peer_rate" in r
            else r.get("peer_status", "–"),
        ],
        memory=False,
    )
    lines += _scaling_tables(rows)
    shuffle_rows = [r for r in rows if r["section"] == "shuffle"]
    if shuffle_rows:
        from benchmarks.shuffle import markdown as shuffle_markdown

        lines += [
            "### Shuffle model: central ε of n shuffled k-RR reports (δ = 1e-6), by method",
            "",
            shuffle_markdown(shuffle_rows),
            "",
        ]
    lines += _table(
        "Closed form vs LP",
        "case | runs | closed form ms, median (min) | LP s, median (min) | LP / closed form | "
        "value gap",
        [r for r in rows if r["section"] == "closedform"],
        lambda r: [
            r["case"],
            r.get("runs", "–"),
            f"{r['closed_form_s'] * 1e3:.3g} ({r.get('closed_form_s_min', 0) * 1e3:.3g})",
            f"{r['lp_s']:.3g} ({r.get('lp_s_min', r['lp_s']):.3g})",
            f"{r['lp_over_closed_form']:.3g}",
            f"{r['relative_gap']:+.1e}",
        ],
        memory=False,
    )
    return "\n".join(lines)


def runs_phrase(rows: list[dict[str, Any]]) -> str:
    """How many times the cases ran, read off the rows (``runs``), by section.

    Examples
    --------
    >>> runs_phrase([{"section": "grs", "runs": 1}, {"section": "samplers", "runs": 3},
    ...              {"section": "startup", "runs": 3}, {"section": "scaling"}])
    'runs per case: 1 (grs), 3 (samplers, startup); scaling: each size once'
    """
    by_runs: dict[int, list[str]] = {}
    once: list[str] = []
    for section in dict.fromkeys(r["section"] for r in rows):
        counts = {r["runs"] for r in rows if r["section"] == section and r.get("runs")}
        if not counts:
            once.append(section)
        for count in counts:
            by_runs.setdefault(int(count), []).append(section)
    parts = [f"{count} ({', '.join(names)})" for count, names in sorted(by_runs.items())]
    text = "runs per case: " + ", ".join(parts) if parts else "runs per case not recorded"
    if once:
        text += f"; {', '.join(once)}: each size once"
    return text


def _split_imports(row: dict[str, Any]) -> str:
    keys = ("numpy_median", "cvxpy_median", "optmech_median")
    if "imports_median" in row:
        return f"numpy, scipy.sparse, highspy {row['imports_median']:.3g}"
    if all(k in row for k in keys):
        return " + ".join(f"{row[k]:.3g}" for k in keys)
    return "–"


def _split_work(row: dict[str, Any]) -> str:
    parts = [
        (name, row.get(f"{name}_median"))
        for name in ("build", "load", "compile", "solve", "certify", "build_certify", "check")
    ]
    text = ", ".join(f"{name.replace('_', ' + ')} {val:.2g}" for name, val in parts if val)
    return text or "–"


def _scaling_tables(rows: list[dict[str, Any]]) -> list[str]:
    """Each designer's ladder, then its fitted growth and the largest instance expected within
    10 minutes and 8 GB (an extrapolation, benchmarks/scaling.py)."""
    cases = [r for r in rows if r["section"] == "scaling" and r.get("kind") == "case"]
    out = _table(
        "Scaling of each designer: the ladders",
        "designer | size | prior | status | total s | solve memory MB | interval",
        cases,
        lambda r: [
            r["designer"],
            _fmt(r.get("size")),
            _prior(r.get("seed")),
            r["status"],
            _fmt(r.get("total")),
            _fmt(r.get("solve_mb"), ".0f"),
            _fmt(r.get("interval"), ".1e"),
        ],
    )
    out += _table(
        "Scaling of each designer: the priors of each size (median and worst)",
        "designer | size | priors | median s | worst s | worst prior | worst / median | within 10x",
        [r for r in rows if r["section"] == "scaling" and r.get("kind") == "spread"],
        lambda r: [
            r["designer"],
            _fmt(r.get("size")),
            r["priors"],
            _fmt(r.get("median")),
            _fmt(r.get("worst")),
            _prior(r.get("worst_seed")),
            _fmt(r.get("worst_over_median"), ".2g"),
            "yes" if r.get("within") else "NO",
        ],
        memory=False,
    )
    out += _table(
        "Scaling of each designer: growth, and the largest instance in 10 minutes and 8 GB",
        "designer | size | time ∝ size^b | memory ∝ size^c | fitted over | largest solved | "
        "largest within 10 min and 8 GB (extrapolated) | limited by",
        [_refit(r, rows) for r in rows if r["section"] == "scaling" and r.get("kind") == "summary"],
        lambda r: [
            r["designer"],
            r["unit"],
            _fmt(r.get("time_exponent"), ".2f"),
            _fmt(r.get("memory_exponent"), ".2f"),
            r.get("fitted_over", "–"),
            _fmt(r.get("largest_solved"), ".0f"),
            _fmt(r.get("largest_estimate"), ".2g"),
            r.get("limited_by", "–"),
        ],
        memory=False,
    )
    return out


def _refit(summary: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A scaling summary fitted within one solver
    ([`one_solver`][benchmarks.scaling.one_solver]): reports written before the fits said so
    are refitted from their cases."""
    if "fitted_over" in summary:
        return summary
    from benchmarks.scaling import _summary

    designer = summary["designer"]
    seeded = [r for r in rows if r.get("kind") == "spread" and r.get("designer") == designer]
    cases = seeded or [
        r
        for r in rows
        if r["section"] == "scaling" and r.get("kind") == "case" and r["designer"] == designer
    ]
    return {**summary, **_summary(designer, summary["unit"], cases)}


def _prior(seed: Any) -> str:
    """``Dirichlet(α), loss, seed s`` of a prior of `benchmarks.scaling.PRIOR_SEEDS` (or –)."""
    if seed is None:
        return "–"
    from benchmarks.scaling import PRIOR_SEEDS

    draw, concentration, loss = PRIOR_SEEDS[int(seed)]
    return f"Dirichlet({concentration:g}), {loss}, seed {draw}"


def _crossover_tables(rows: list[dict[str, Any]]) -> list[str]:
    cases = [r for r in rows if r["section"] == "crossover" and r.get("kind") == "case"]
    out = _table(
        "Additive LP: HiGHS against Clarabel (design seconds in process, median (min))",
        "cost | ε | periods | m | variables | default | runs | HiGHS s | Clarabel s | "
        "Clarabel / HiGHS | whole process s, HiGHS / Clarabel | value gap | intervals overlap",
        cases,
        lambda r: [
            r["cost"],
            f"{r['epsilon']:g}",
            r.get("periods", "–"),
            r["m"],
            r.get("variables", "–"),
            r.get("default_solver", "–"),
            r.get("runs", "–"),
            f"{_fmt(r.get('highs_total_median'))} ({_fmt(r.get('highs_total_min'))})",
            f"{_fmt(r.get('clarabel_total_median'))} ({_fmt(r.get('clarabel_total_min'))})",
            _fmt(r.get("clarabel_over_highs"), ".2f"),
            f"{_fmt(r.get('highs_wall_median'))} / {_fmt(r.get('clarabel_wall_median'))}",
            _fmt(r.get("value_gap"), "+.1e"),
            "yes" if r.get("intervals_overlap") else "NO",
        ],
        memory=False,
    )
    cuts = [r for r in rows if r["section"] == "crossover" and r.get("kind") == "crossover"]
    out += [
        f"- {r['cost']}, ε = {r['epsilon']:g}, periods {r.get('periods')}: Clarabel faster from "
        f"{r['crossover_variables']} variables on (every larger size measured)."
        for r in cuts
    ]
    return [*out, ""] if cuts else out


def _commit() -> str:
    """The checkout's commit (``git rev-parse HEAD``), or "not a git checkout"."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            cwd=os.path.dirname(os.path.abspath(__file__)),
        )
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return out.stdout.strip() or "not a git checkout"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="optmech benchmarks (docs/performance.md)"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes (a couple of minutes)")
    parser.add_argument(
        "--out", default="benchmark-results", help="directory for benchmarks.json and benchmarks.md"
    )
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=None)
    parser.add_argument(
        "--full",
        nargs="+",
        choices=SECTIONS,
        default=(),
        help="with --quick: sections run at their full sizes all the same (timeout 600 s)",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds per case (default 120 quick, 600 full)"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of every case, alternated (default 3)"
    )
    parser.add_argument(
        "--page", default=None, help="also write the performance page (docs/performance.md)"
    )
    parser.add_argument(
        "--noise",
        nargs="+",
        default=(),
        metavar="JSON",
        help="with --page: other runs of the same command, whose spread the page states",
    )
    args = parser.parse_args(argv)
    timeout = args.timeout or (120.0 if args.quick else 600.0)
    set_repeats(args.repeat)
    report: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "mode": "quick" if args.quick else "full",
        "full_sections": sorted(args.full) if args.quick else [],
        "load_start": load(),
        "versions": _versions(),
        "timeout_s": timeout,
        "repeat": args.repeat,
        "command": "python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv),
        "commit": _commit(),
        "rows": [],
    }
    for name in args.only or SECTIONS:
        module = importlib.import_module(f"benchmarks.{name}")
        quick = args.quick and name not in args.full
        report["rows"] += module.run(quick, timeout if quick else args.timeout or 600.0)
    report["load_end"] = load()
    report["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "benchmarks.json"), "w") as fh:
        json.dump(report, fh, indent=2, default=str)
    with open(os.path.join(args.out, "benchmarks.md"), "w") as fh:
        fh.write(markdown(report))
    print(f"wrote {args.out}/benchmarks.json and {args.out}/benchmarks.md")
    if args.page:
        from benchmarks.page import write_page

        others = [json.loads(open(p, encoding="utf-8").read()) for p in args.noise]
        write_page(report, args.page, others)
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
