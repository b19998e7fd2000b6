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
from typing import Any

from benchmarks._common import load

SECTIONS = ("grs", "additive", "samplers", "closedform", "additive2d")


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
    if grs:
        lines += [
            "### GRS user LP (uniform prior, |e|, ε = 0.5)",
            "",
            "| n | solver | status | total s | build | compile | solve | certify | "
            "gap to G+remap | pipeline / direct | pipeline / qif | peak RSS MB | load |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in grs:
            qif = (
                _fmt(r.get("pipeline_over_qif"), ".2g")
                if "pipeline_over_qif" in r
                else (r.get("qif_status", "–"))
            )
            lines.append(
                f"| {r['n']} | {r['solver']} | {r['status']} | {_fmt(r.get('total'))} | "
                f"{_fmt(r.get('build'))} | {_fmt(r.get('compile'))} | {_fmt(r.get('solve'))} | "
                f"{_fmt(r.get('certify'))} | {_fmt(r.get('gap_to_closed_form'), '+.1e')} | "
                f"{_fmt(r.get('pipeline_over_direct'))} | {qif} | "
                f"{_fmt(r.get('peak_rss_mb'), '.0f')} | {_fmt(r.get('load'), '.2f')} |"
            )
        lines.append("")
    add = [r for r in rows if r["section"] == "additive" and r.get("kind") != "scaling"]
    if add:
        lines += [
            "### Additive ε-DP noise LP (|e|, ε = 1, Δ = 1)",
            "",
            "| m | periods | class | solver | status | cells | variables | total s | build | "
            "compile | solve | certify | gap to staircase | pipeline / direct | "
            "peak RSS MB | load |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in add:
            lines.append(
                f"| {r['m']} | {r['periods']} | {'monotone' if r['monotone'] else 'all'} | "
                f"{r['solver']} | {r['status']} | {_fmt(r.get('cells'))} | "
                f"{_fmt(r.get('variables'))} | {_fmt(r.get('total'))} | {_fmt(r.get('build'))} | "
                f"{_fmt(r.get('compile'))} | {_fmt(r.get('solve'))} | {_fmt(r.get('certify'))} | "
                f"{_fmt(r.get('gap_to_closed_form'), '+.1e')} | "
                f"{_fmt(r.get('pipeline_over_direct'))} | {_fmt(r.get('peak_rss_mb'), '.0f')} | "
                f"{_fmt(r.get('load'), '.2f')} |"
            )
        lines.append("")
        for r in rows:
            if r["section"] == "additive" and r.get("kind") == "scaling":
                lines.append(
                    f"Scaling, {r['solver']}: solve time ∝ cells^"
                    f"{_fmt(r['solve_exponent'], '.2f')}, total ∝ cells^"
                    f"{_fmt(r['total_exponent'], '.2f')} (cells {r['cells']})."
                )
        lines.append("")
    two = [r for r in rows if r["section"] == "additive2d"]
    if two:
        columns = [
            ("case", "kind", ""), ("ball", "norm", ""), ("m", "m", ""), ("periods", "periods", ""),
            ("status", "status", ""), ("cells", "cells", ""), ("variables", "variables", ""),
            ("rows", "rows", ""), ("total s", "total", ".3g"), ("build", "build", ".3g"),
            ("compile", "compile", ".3g"), ("solve", "solve", ".3g"), ("certify", "certify", ".3g"),
            ("gap to StaircaseND", "gap_to_staircase_nd", "+.1e"),
            ("peak RSS MB", "peak_rss_mb", ".0f"), ("load", "load", ".2f"),
        ]  # fmt: skip
        lines += [
            "### 2-D additive ε-DP noise LP (ℓ1 cost, ε = 1, Δ = 1)",
            "",
            "| " + " | ".join(title for title, _, _ in columns) + " |",
            "|" + "---|" * len(columns),
        ]
        lines += [
            "| " + " | ".join(_fmt(r.get(key), f or ".3g") for _, key, f in columns) + " |"
            for r in two
        ]
        lines.append("")
    smp = [r for r in rows if r["section"] == "samplers"]
    if smp:
        lines += [
            "### Samplers (samples/s)",
            "",
            "| sampler | ε | samples/s | limit | time / limit | vs diffprivlib | load |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in smp:
            peer = (
                f"{r['ours_over_peer_rate']:.0f}x faster"
                if "ours_over_peer_rate" in r
                else r.get("peer_status", "–")
            )
            lines.append(
                f"| {r['sampler']} | {r['epsilon']:g} | {r['samples_per_s']:.3g} | "
                f"{r['limit']} | {r['ours_over_limit_time']:.2f} | {peer} | "
                f"{r['load']:.2f} |"
            )
        lines.append("")
    cf = [r for r in rows if r["section"] == "closedform"]
    if cf:
        lines += [
            "### Closed form vs LP",
            "",
            "| case | closed form ms | LP s | LP / closed form | value gap | load |",
            "|---|---|---|---|---|---|",
        ]
        for r in cf:
            lines.append(
                f"| {r['case']} | {r['closed_form_s'] * 1e3:.3g} | {r['lp_s']:.3g} | "
                f"{r['lp_over_closed_form']:.3g} | {r['relative_gap']:+.1e} | "
                f"{r['load']:.2f} |"
            )
        lines.append("")
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
    args = parser.parse_args(argv)
    timeout = args.timeout or (120.0 if args.quick else 600.0)
    report: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "mode": "quick" if args.quick else "full",
        "load_start": load(),
        "versions": _versions(),
        "timeout_s": timeout,
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
