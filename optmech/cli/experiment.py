"""``optmech experiment``: run a research experiment reproducing a paper's figure.

Runs one of the experiments of `optmech.experiments`: writes a tidy
``results.csv``, the figure ``figure.png`` and ``summary.md`` (the paper's numbers and the
measured ones) into ``--out`` (default ``./results/NAME``) and prints the paths and the headline
numbers.

Examples::

    $ optmech experiment staircase-gain --quick --out /tmp/gain
    $ optmech experiment --list
"""

from __future__ import annotations

import argparse
from pathlib import Path

from optmech.cli._args import check_output_path
from optmech.cli._output import print_table

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``experiment`` options (the experiments' names are appended to the description)."""
    from optmech.experiments import EXPERIMENTS

    parser.description = f"{parser.description}\n\nNames: {', '.join(EXPERIMENTS)}."
    parser.add_argument("name", nargs="?", metavar="NAME", help="experiment to run")
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="output folder, created if missing (default: ./results/NAME)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed, ≥ 0")
    parser.add_argument("--quick", action="store_true", help="run a small version")
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the experiments (or NAME only), what each shows and its typical run time, "
        "and exit",
    )


def run(args: argparse.Namespace) -> int:
    """Run the experiment; an unknown or missing name raises ValueError (exit status 2)."""
    from optmech.experiments import ABOUT, EXPERIMENTS, run_experiment

    if args.list:
        if args.name is not None and args.name not in EXPERIMENTS:
            raise ValueError(
                f"`NAME` {args.name!r} is not an experiment (with --list, NAME lists that one "
                f"only); one of {', '.join(EXPERIMENTS)}."
            )
        print_table(
            ("experiment", "what it shows", "--quick", "full"),
            [(name, *ABOUT[name]) for name in EXPERIMENTS if args.name in (None, name)],
        )
        return 0
    if args.name is None:
        raise ValueError(f"an experiment NAME is required, one of {', '.join(EXPERIMENTS)}.")
    if args.out is not None:
        if not args.out.strip():
            raise ValueError("`--out` must be a folder path; got an empty string.")
        if Path(args.out).exists() and not Path(args.out).is_dir():
            raise ValueError(f"`--out` must be a folder; got the file {args.out!r}.")
        check_output_path("--out", Path(args.out) / "summary.md", create=True)
    try:
        result = run_experiment(args.name, args.out, seed=args.seed, quick=args.quick)
    except KeyboardInterrupt:
        folder = args.out if args.out is not None else str(Path("results") / args.name)
        stopped = KeyboardInterrupt()
        stopped.kept = (  # type: ignore[attr-defined]
            f"the run is incomplete: {folder} holds no summary.md (files written before the "
            "interruption are left there)"
        )
        raise stopped from None
    rows = [
        ("csv", str(result.csv)),
        ("figure", str(result.figure)),
        ("summary", str(result.summary)),
    ]
    rows += [(key, value) for key, value in result.headline.items()]
    print_table(("output", "value"), rows)
    return 0
