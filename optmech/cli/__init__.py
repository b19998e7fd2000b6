"""The ``optmech`` command line: a thin layer over the public API (parse, call, print).

Each subcommand lives in its own module of this package with two functions,
``register(subparsers)`` adding its parser and ``run(args) -> int`` doing the work; the modules
named in :data:`COMMANDS` are wired up here. Bad arguments exit with status 2 and a one-line
message (never a traceback); a failed check or solver exits with status 1.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from optmech.exceptions import OptmechError

__all__ = ["COMMANDS", "build_parser", "main"]

#: Subcommand modules, in the order ``optmech --help`` lists them.
COMMANDS: tuple[str, ...] = ("staircase", "design", "user", "verify", "sweep", "experiment")


def _loaded_commands() -> list[object]:
    modules = []
    for name in COMMANDS:
        try:
            modules.append(importlib.import_module(f"optmech.cli.{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"optmech.cli.{name}":
                raise
    return modules


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for the docs and the tests)."""
    from optmech import __version__

    parser = argparse.ArgumentParser(
        prog="optmech",
        description=(
            "Design and verify optimal differential-privacy mechanisms by linear programming."
        ),
    )
    parser.add_argument("--version", action="version", version=f"optmech {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _loaded_commands():
        module.register(sub)  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``optmech`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except (ValueError, TypeError) as exc:
        print(f"optmech {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OptmechError as exc:
        print(f"optmech {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (``optmech verify | head``): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
