"""GRS user LPs with a general prior: time and memory against n, by method, and the fitted growth.

``python -m benchmarks.grs_scaling [--quick] [--max-n N] [--timeout S] [--repeat K] [--out PATH]``
writes the table (default ``benchmarks/results/grs_scaling.json``) that the size model of
``optmech.lp.matrix.size_model`` is fitted to, and prints it as markdown.

Cases (each in a fresh interpreter, ``benchmarks._common.run_case``): a Dirichlet(1) prior drawn
with ``np.random.default_rng(n)``, |e|, ε = 0.5, on ``{0..n}``:

* ``column-generation`` — ``bayesian_mechanism(..., method="column-generation")`` and the
  minimax user (``minimax_mechanism``, S = all inputs), n = 100 … until a case exceeds the
  time limit or 8 GB;
* ``full`` — the same Bayesian LP solved whole (``method="full"``, today's default before column
  generation), n ≤ 1000 (``max_memory_gb=4`` so that n = 1000 runs); and the uniform prior, whose
  full LP is mirror-reduced.

Memory is read inside the child from ``/proc/self/status``: ``VmRSS`` after the imports
(``baseline``) and ``VmHWM`` at the end (``peak``); ``VmHWM`` belongs to the child's own address
space (created at ``exec``), so nothing of the parent's peak is inherited. ``solve memory`` is
``peak − baseline``: what the size model predicts. Growth exponents are least-squares slopes of
log(time) against log(n) over the cases with n ≥ 400.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

from benchmarks._common import load, run_case

MODULE = "benchmarks.grs_scaling"
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "grs_scaling.json")
EPSILON = 0.5
#: The memory allowed to a case (the question asked: what solves in 10 minutes and 8 GB).
MAX_MEMORY_GB = 8.0


def _status_mb(field: str) -> float:
    """``VmRSS`` / ``VmHWM`` of this process, MB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return float(line.split()[1]) / 1024.0
    return float("nan")  # pragma: no cover - not Linux


def memory_probe() -> dict[str, Any]:
    """The child's own ``VmHWM`` and ``VmRSS`` after importing nothing more (for a test that the
    measurement inherits nothing from the parent)."""
    return {"peak_mb": _status_mb("VmHWM"), "baseline_mb": _status_mb("VmRSS")}


def _rounds_columns(res: Any) -> tuple[int | None, int | None]:
    for attempt in res.provenance.attempts:
        if attempt.variant.startswith("column generation:"):
            words = attempt.variant.split()
            return int(words[2]), int(words[4])
    return None, None


def scaling_case(
    n: int, method: str, objective: str, prior: str, max_memory_gb: float
) -> dict[str, Any]:
    """One solve, timed, with its memory (runs in a child process)."""
    import optmech.lp.user as user_lp

    p = (
        np.random.default_rng(n).dirichlet(np.ones(n + 1))
        if prior == "dirichlet"
        else np.full(n + 1, 1.0 / (n + 1))
    )
    baseline = _status_mb("VmRSS")
    start = time.perf_counter()
    if objective == "bayesian":
        res = user_lp.bayesian_mechanism(
            p, "abs", EPSILON, method=method, max_memory_gb=max_memory_gb
        )
    else:
        res = user_lp.minimax_mechanism(
            "abs", EPSILON, n=n, method=method, max_memory_gb=max_memory_gb
        )
    total = time.perf_counter() - start
    peak = _status_mb("VmHWM")
    rounds, columns = _rounds_columns(res)
    return {
        "total": total,
        "peak_mb": peak,
        "baseline_mb": baseline,
        "solve_mb": peak - baseline,
        "status": res.status,
        "solver": res.solver,
        "rounds": rounds,
        "columns": columns,
        "value": res.value,
        "lower_bound": res.lower_bound,
        "relative_width": (res.value - res.lower_bound) / res.value,
        "certified_epsilon": res.certified_epsilon,
        "reduced": res.symmetry_reduced,
    }


def _plan(quick: bool, max_n: int) -> list[tuple[str, str, str, list[int]]]:
    """``(method, objective, prior, sizes)`` in order."""
    if quick:
        return [
            ("column-generation", "bayesian", "dirichlet", [100, 200, 400]),
            ("full", "bayesian", "dirichlet", [100, 200]),
        ]
    grid = [100, 200, 400, 800, 1000, 1600, 2000, 3000, 4000, 6000, 8000, 10000, 12000]
    return [
        ("column-generation", "bayesian", "dirichlet", [n for n in grid if n <= max_n]),
        ("column-generation", "minimax", "dirichlet", [n for n in grid if n <= min(max_n, 2000)]),
        ("full", "bayesian", "dirichlet", [100, 200, 400, 800, 1000]),
        ("full", "bayesian", "uniform", [200, 400, 800, 1000]),
    ]


def exponent(ns: list[int], seconds: list[float]) -> float | None:
    """Least-squares slope of log(seconds) against log(n) (None with fewer than 2 points)."""
    pts = [(n, s) for n, s in zip(ns, seconds, strict=True) if s and s > 0]
    if len(pts) < 2:
        return None
    return float(np.polyfit(np.log([p[0] for p in pts]), np.log([p[1] for p in pts]), 1)[0])


def _one(n: int, method: str, objective: str, prior: str, timeout: float, repeat: int) -> dict:
    runs = []
    for _ in range(repeat):
        out = run_case(
            MODULE,
            "scaling_case",
            timeout,
            n=n,
            method=method,
            objective=objective,
            prior=prior,
            max_memory_gb=4.0 if method == "full" else MAX_MEMORY_GB,
        )
        runs.append(out)
        if out.get("status") not in ("optimal", "optimal_inaccurate"):
            break
    good = [r for r in runs if r.get("status") in ("optimal", "optimal_inaccurate")]
    row: dict[str, Any] = {"section": "grs-scaling", "n": n, "method": method}
    row.update({"objective": objective, "prior": prior, "epsilon": EPSILON, "runs": len(runs)})
    if not good:
        row.update(status=runs[-1].get("status"), load=runs[-1].get("load"))
        return row
    times = sorted(r["total"] for r in good)
    row.update(
        {k: v for k, v in good[0].items() if k not in ("total", "wall_with_startup", "peak_rss_mb")}
    )
    row.update(
        total_min=times[0],
        total_median=float(np.median(times)),
        solve_mb=max(r["solve_mb"] for r in good),
        peak_mb=max(r["peak_mb"] for r in good),
        load=max(r["load"] for r in good),
    )
    return row


def run(
    quick: bool,
    timeout: float,
    max_n: int = 16000,
    repeat: int = 1,
    methods: tuple[str, ...] = ("column-generation", "full"),
) -> list[dict[str, Any]]:
    """Rows of the general-prior section, then one exponent row per series."""
    rows: list[dict[str, Any]] = []
    for method, objective, prior, sizes in _plan(quick, max_n):
        if method not in methods:
            continue
        series = []
        for n in sizes:
            runs = repeat if method == "column-generation" and n <= 4000 else 1
            row = _one(n, method, objective, prior, timeout, runs)
            print(line(row), flush=True)
            rows.append(row)
            if "total_median" not in row:
                break  # larger n will not fit either
            series.append(row)
        rows.append(fit_series(method, objective, prior, series))
        print(line(rows[-1]), flush=True)
    return rows


def fit_series(method: str, objective: str, prior: str, series: list[dict[str, Any]]) -> dict:
    """The exponent row of one series: the slope of log(time) on log(n) over its solved sizes
    n ≥ 400 (where the solve dominates), or over every solved size when fewer than two reach
    400 (a quick run), the row saying which (``over``).

    Examples
    --------
    >>> rows = [{"n": n, "total_median": 1e-4 * n**2} for n in (100, 200, 400)]
    >>> row = fit_series("full", "bayesian", "dirichlet", rows)
    >>> round(row["time_exponent"], 9), row["sizes"], row["over"]
    (2.0, [100, 200, 400], 'every size solved (fewer than two with n ≥ 400)')
    """
    solved = [r for r in series if "total_median" in r]
    big = [r for r in solved if r["n"] >= 400]
    over = "n ≥ 400"
    if len(big) < 2:
        big, over = solved, "every size solved (fewer than two with n ≥ 400)"
    return {
        "section": "grs-scaling",
        "kind": "exponent",
        "method": method,
        "objective": objective,
        "prior": prior,
        "sizes": [r["n"] for r in big],
        "over": over,
        "time_exponent": exponent([r["n"] for r in big], [r["total_median"] for r in big]),
        "largest_solved": max((r["n"] for r in solved), default=None),
    }


def line(row: dict[str, Any]) -> str:
    """One printed line per row."""
    what = f"{row['method']} {row['objective']} {row['prior']}"
    if row.get("kind") == "exponent":
        return (
            f"[grs-scaling] {what}: time ∝ n^{_f(row['time_exponent'], '.2f')} over n = "
            f"{row['sizes']} ({row.get('over', 'n ≥ 400')}); largest solved n = "
            f"{row['largest_solved']}"
        )
    if "total_median" not in row:
        return f"[grs-scaling] n={row['n']} {what}: {row.get('status')}"
    return (
        f"[grs-scaling] n={row['n']} {what}: {row['status']} median {row['total_median']:.3g} s "
        f"(min {row['total_min']:.3g}, {row['runs']} runs), solve memory "
        f"{row['solve_mb']:.0f} MB (peak {row['peak_mb']:.0f}), rounds {row.get('rounds')}, "
        f"columns {row.get('columns')}, width {row['relative_width']:.1e}, load {row['load']:.2f}"
    )


def _f(value: Any, fmt: str) -> str:
    return "–" if value is None else format(value, fmt)


def markdown(rows: list[dict[str, Any]]) -> str:
    """The table of the rows, and the exponents."""
    out = [
        "| n | method | user | prior | time s (median) | min | solve MB | peak MB | rounds | "
        "columns | relative width | load |",
        "|" + "---|" * 12,
    ]
    for r in rows:
        if r.get("kind") == "exponent" or "total_median" not in r:
            continue
        out.append(
            f"| {r['n']} | {r['method']} | {r['objective']} | {r['prior']} | "
            f"{r['total_median']:.3g} | {r['total_min']:.3g} | {r['solve_mb']:.0f} | "
            f"{r['peak_mb']:.0f} | {_f(r.get('rounds'), 'd')} | {_f(r.get('columns'), 'd')} | "
            f"{r['relative_width']:.1e} | {r['load']:.2f} |"
        )
    out.append("")
    fits = []
    for r in rows:  # refitted from the table: reports written before the fallback had none
        if r.get("kind") == "exponent":
            keys = (r["method"], r["objective"], r["prior"])
            series = [
                x
                for x in rows
                if x.get("kind") != "exponent"
                and (x.get("method"), x.get("objective"), x.get("prior")) == keys
            ]
            fits.append(fit_series(*keys, series) if r.get("time_exponent") is None else r)
    out += [line(r)[len("[grs-scaling] ") :] for r in fits]
    out += [
        line(r)[len("[grs-scaling] ") :]
        for r in rows
        if r.get("kind") != "exponent" and "total_median" not in r
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.grs_scaling")
    parser.add_argument("--quick", action="store_true", help="small sizes (a minute)")
    parser.add_argument("--max-n", type=int, default=16000, help="largest n tried")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per case")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per column-generation case (n ≤ 4000)"
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        choices=("column-generation", "full"),
        default=("column-generation", "full"),
        help="which series to run",
    )
    parser.add_argument("--out", default=RESULTS, help="where the JSON goes")
    args = parser.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    load_start = load()
    rows = run(args.quick, args.timeout, args.max_n, args.repeat, tuple(args.methods))
    report = {
        "command": " ".join(
            ["python -m benchmarks.grs_scaling", *(sys.argv[1:] if argv is None else argv)]
        ),
        "started": started,
        "load_start": load_start,
        "load_end": load(),
        "timeout_s": args.timeout,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2, default=float)
    print(markdown(rows))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
