"""``optmech sweep SPEC``: run a parameter sweep into a resumable SQLite store.

Runs every unfinished task of a sweep spec (a YAML or JSON file), locally or on a Dask cluster;
the results go to an SQLite store keyed by the task parameters, so a killed sweep resumes where
it stopped, and several sweeps may share one store (each task is claimed before it is
computed, and computed once). Each distinct failure is printed with its count; exit status 1
if any task failed. Ctrl-C stops the workers and says how many tasks the store holds (exit
status 130).

Examples::

    $ optmech sweep spec.yaml --csv out.csv --progress
    $ optmech sweep spec.yaml --scheduler tcp://10.0.0.5:8786
"""

from __future__ import annotations

import argparse
import sys

from optmech.cli._args import add_json, check_output_path
from optmech.cli._output import print_json, print_table

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``sweep`` options."""
    parser.add_argument("spec", metavar="SPEC", help="sweep spec file (.yaml, .yml or .json)")
    parser.add_argument(
        "--store",
        default=None,
        help="SQLite file (default: the spec's `store`, else NAME.sqlite in this folder)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: local processes)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local worker processes (default: number of cores)",
    )
    parser.add_argument(
        "--csv",
        default=None,
        metavar="OUT.csv",
        help="export the sweep's rows as a tidy CSV in grid order (failed rows with their error)",
    )
    parser.add_argument(
        "--progress", action="store_true", help="show a progress bar with an ETA on standard error"
    )
    parser.add_argument(  # the default now; still accepted
        "--no-progress", action="store_true", help=argparse.SUPPRESS
    )
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    """Run the sweep; print a summary and each distinct failure; exit 1 if any task failed."""
    from optmech.sweep import ResultStore, load_spec, run_sweep

    csv_path = check_output_path("--csv", args.csv)
    spec = load_spec(args.spec)
    if args.store is not None and not args.store.strip():
        raise ValueError("`--store` must be a file path; got an empty string.")
    summary = run_sweep(
        spec,
        store=args.store,
        scheduler=args.scheduler,
        workers=args.workers,
        progress=args.progress and not args.no_progress,
    )
    if csv_path is not None:
        with ResultStore(summary.store) as db:
            db.to_csv(csv_path, sweep=spec.name, order=summary.keys)
    payload = {
        "sweep": spec.name,
        "tasks": summary.total,
        "already_done": summary.skipped,
        "completed": summary.completed,
        "done_elsewhere": summary.elsewhere,
        "failed": summary.failed,
        "seconds": round(summary.seconds, 3),
        "store": summary.store,
    }
    if args.json:
        print_json({**payload, "failures": summary.failures})
    else:
        print_table(("field", "value"), list(payload.items()))
    for reason, count in summary.failures.items():
        print(f"failed ×{count}: {reason}", file=sys.stderr)
    return 0 if summary.failed == 0 else 1
