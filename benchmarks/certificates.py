"""Dual certificates of GRS optimality: time and peak memory against n, no LP solved.

``python -m benchmarks.certificates [--sizes N ...] [--epsilon E] [--timeout S] [--out PATH]``
prints one line per case and writes the rows (default
``benchmarks/results/certificates.json``).

Cases (each in a fresh interpreter, ``benchmarks._common.run_case``, so that the peak memory is
the case's own): ``optmech.theorems.certificates.grs_certificate`` on ``{0..n}`` for the uniform
prior and a Dirichlet(0.2) prior (``np.random.default_rng(0)``), with ``|e|`` and ``e²``, at
ε = 0.5 and n = 10³, 10⁴ by default. Each row has the wall time and the CPU time of the call
(``time.process_time``; the wall time on a shared machine depends on its load, which the row
records), the child's peak resident memory (``VmHWM``), the certified relative gap and the
verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np

from benchmarks._common import run_case

MODULE = "benchmarks.certificates"
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "certificates.json")
PRIORS = ("uniform", "dirichlet-0.2")
LOSSES = ("abs", "squared")


def certificate_case(n: int, prior: str, loss: str, epsilon: float) -> dict[str, Any]:
    """One certificate, timed (runs in a child process)."""
    from optmech.theorems.certificates import grs_certificate

    p = (
        np.full(n + 1, 1.0 / (n + 1))
        if prior == "uniform"
        else np.random.default_rng(0).dirichlet(np.full(n + 1, 0.2))
    )
    wall, cpu = time.perf_counter(), time.process_time()
    cert = grs_certificate(p, loss, epsilon)
    return {
        "total": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "value": cert.value,
        "lower_bound": cert.lower_bound,
        "relative_gap": cert.relative_gap,
        "certified": cert.certified,
        "worst_violation": cert.worst_violation,
    }


def line(row: dict[str, Any]) -> str:
    """One printed line per row."""
    what = f"n={row['n']} {row['prior']} {row['loss']} eps={row['epsilon']:g}"
    if "total" not in row:
        return f"[certificates] {what}: {row.get('status')}"
    return (
        f"[certificates] {what}: {'certified' if row['certified'] else 'NOT certified'}, "
        f"relative gap {row['relative_gap']:.2e}, {row['total']:.1f} s wall, {row['cpu']:.1f} s "
        f"CPU, peak {row['peak_rss_mb']:.0f} MB, load {row['load']:.1f}"
    )


def run(sizes: list[int], epsilon: float, timeout: float) -> list[dict[str, Any]]:
    """Every (n, prior, loss) case, smallest n first."""
    rows = []
    for n in sizes:
        for prior in PRIORS:
            for loss in LOSSES:
                out = run_case(
                    MODULE,
                    "certificate_case",
                    timeout,
                    n=n,
                    prior=prior,
                    loss=loss,
                    epsilon=epsilon,
                )
                row = {"section": "certificates", "n": n, "prior": prior, "loss": loss}
                row.update(epsilon=epsilon, **out)
                print(line(row), flush=True)
                rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.certificates")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="the n")
    parser.add_argument("--epsilon", type=float, default=0.5)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per case")
    parser.add_argument("--out", default=RESULTS, help="JSON file of the rows")
    args = parser.parse_args(argv)
    rows = run(args.sizes, args.epsilon, args.timeout)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
