"""``optmech sweep SPEC``: run a parameter sweep into a resumable SQLite store."""

from __future__ import annotations

import argparse
from pathlib import Path

from optmech.cli._output import print_json, print_table
from optmech.sweep import ResultStore, load_spec, run_sweep

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``sweep`` subcommand."""
    parser = sub.add_parser(
        "sweep",
        help="run a parameter sweep (YAML/JSON spec) locally or on a Dask cluster",
        description="Run every unfinished task of a sweep spec; results go to an SQLite store "
        "keyed by the task parameters, so a killed sweep resumes where it stopped.",
    )
    parser.add_argument("spec", type=Path, help="sweep spec file (.yaml, .yml or .json)")
    parser.add_argument(
        "--store",
        type=Path,
        default=None,
        help="SQLite file (default: the spec's `store`, else NAME.sqlite)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: local)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local worker processes (default: number of cores)",
    )
    parser.add_argument(
        "--csv",
        type=Path,
        default=None,
        metavar="OUT.csv",
        help="export the sweep's finished rows as a tidy CSV",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the sweep; print a summary; exit 1 if any task failed."""
    spec = load_spec(args.spec)
    summary = run_sweep(
        spec,
        store=args.store,
        scheduler=args.scheduler,
        workers=args.workers,
        progress=not args.no_progress,
    )
    if args.csv is not None:
        with ResultStore(summary.store) as db:
            db.to_csv(args.csv, sweep=spec.name)
    payload = {
        "sweep": spec.name,
        "tasks": summary.total,
        "already_done": summary.skipped,
        "completed": summary.completed,
        "failed": summary.failed,
        "seconds": round(summary.seconds, 3),
        "store": summary.store,
    }
    if args.json:
        print_json(payload)
    else:
        print_table(("field", "value"), list(payload.items()))
    return 0 if summary.failed == 0 else 1
