"""``python -m benchmarks [--quick] [--out DIR] [--only SECTION ...] [--timeout S]``.

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

SECTIONS = ("grs", "additive", "crossover", "samplers", "closedform", "additive2d")


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


def _table(
    title: str, header: str, rows: list[dict[str, Any]], cells: Callable[[dict[str, Any]], list]
) -> list[str]:
    """A markdown table (nothing when there are no rows): ``header`` is ``"a | b | …"``."""
    if not rows:
        return []
    columns = header.count("|") + 1
    out = [f"### {title}", "", f"| {header} |", "|" + "---|" * columns]
    out += ["| " + " | ".join(str(c) for c in cells(r)) + " |" for r in rows]
    return [*out, ""]


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown tables (one per section)."""
    rows = report["rows"]
    lines = [
        f"Run {report['started']} ({report['mode']} mode), load average at start "
        f"{report['load_start']:.2f}, at end {report['load_end']:.2f}; "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        "",
    ]
    grs = [r for r in rows if r["section"] == "grs"]
    lines += _table(
        "GRS user LP (uniform prior, |e|, ε = 0.5)",
        "n | solver | status | total s | build | compile | solve | certify | gap to G+remap | "
        "pipeline / direct | pipeline / qif | peak RSS MB | load",
        grs,
        lambda r: [
            r["n"],
            r["solver"],
            r["status"],
            *_cells(r, "total", "build", "compile", "solve", "certify"),
            _fmt(r.get("gap_to_closed_form"), "+.1e"),
            _fmt(r.get("pipeline_over_direct")),
            _fmt(r.get("pipeline_over_qif"), ".2g")
            if "pipeline_over_qif" in r
            else r.get("qif_status", "–"),
            _fmt(r.get("peak_rss_mb"), ".0f"),
            _fmt(r.get("load"), ".2f"),
        ],
    )
    add = [r for r in rows if r["section"] == "additive" and r.get("kind") != "scaling"]
    lines += _table(
        "Additive ε-DP noise LP (|e|, ε = 1, Δ = 1)",
        "m | periods | class | solver | status | cells | variables | total s | build | compile | "
        "solve | certify | gap to staircase | pipeline / direct | peak RSS MB | load",
        add,
        lambda r: [
            r["m"],
            r["periods"],
            "monotone" if r["monotone"] else "all",
            r["solver"],
            r["status"],
            *_cells(r, "cells", "variables", "total", "build", "compile", "solve", "certify"),
            _fmt(r.get("gap_to_closed_form"), "+.1e"),
            _fmt(r.get("pipeline_over_direct")),
            _fmt(r.get("peak_rss_mb"), ".0f"),
            _fmt(r.get("load"), ".2f"),
        ],
    )
    scaling = [r for r in rows if r["section"] == "additive" and r.get("kind") == "scaling"]
    lines += [
        f"Scaling, {r['solver']}: solve time ∝ cells^{_fmt(r['solve_exponent'], '.2f')}, "
        f"total ∝ cells^{_fmt(r['total_exponent'], '.2f')} (cells {r['cells']})."
        for r in scaling
    ] + ([""] if scaling and add else [])
    lines += _table(
        "2-D additive ε-DP noise LP (ℓ1 cost, ε = 1, Δ = 1)",
        "case | ball | m | periods | status | cells | variables | rows | total s | build | "
        "compile | solve | certify | gap to StaircaseND | peak RSS MB | load",
        [r for r in rows if r["section"] == "additive2d"],
        lambda r: [
            *_cells(r, "kind", "norm", "m", "periods", "status", "cells", "variables", "rows"),
            *_cells(r, "total", "build", "compile", "solve", "certify"),
            _fmt(r.get("gap_to_staircase_nd"), "+.1e"),
            _fmt(r.get("peak_rss_mb"), ".0f"),
            _fmt(r.get("load"), ".2f"),
        ],
    )
    lines += _table(
        "Samplers (samples/s)",
        "sampler | ε | samples/s | limit | time / limit | vs diffprivlib | load",
        [r for r in rows if r["section"] == "samplers"],
        lambda r: [
            r["sampler"],
            f"{r['epsilon']:g}",
            f"{r['samples_per_s']:.3g}",
            r["limit"],
            f"{r['ours_over_limit_time']:.2f}",
            f"{r['ours_over_peer_rate']:.0f}x faster"
            if "ours_over_peer_rate" in r
            else r.get("peer_status", "–"),
            f"{r['load']:.2f}",
        ],
    )
    lines += _table(
        "Closed form vs LP",
        "case | closed form ms | LP s | LP / closed form | value gap | load",
        [r for r in rows if r["section"] == "closedform"],
        lambda r: [
            r["case"],
            f"{r['closed_form_s'] * 1e3:.3g}",
            f"{r['lp_s']:.3g}",
            f"{r['lp_over_closed_form']:.3g}",
            f"{r['relative_gap']:+.1e}",
            f"{r['load']:.2f}",
        ],
    )
    return "\n".join(lines)


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
        "--timeout", type=float, default=None, help="seconds per case (default 120 quick, 600 full)"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of every case, alternated (default 3)"
    )
    args = parser.parse_args(argv)
    timeout = args.timeout or (120.0 if args.quick else 600.0)
    set_repeats(args.repeat)
    report: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "mode": "quick" if args.quick else "full",
        "load_start": load(),
        "versions": _versions(),
        "timeout_s": timeout,
        "repeat": args.repeat,
        "command": "python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv),
        "rows": [],
    }
    for name in args.only or SECTIONS:
        module = importlib.import_module(f"benchmarks.{name}")
        report["rows"] += module.run(args.quick, timeout)
    report["load_end"] = load()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "benchmarks.json"), "w") as fh:
        json.dump(report, fh, indent=2, default=str)
    with open(os.path.join(args.out, "benchmarks.md"), "w") as fh:
        fh.write(markdown(report))
    print(f"wrote {args.out}/benchmarks.json and {args.out}/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
