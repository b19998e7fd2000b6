"""The ``optmech`` command line: a thin layer over the public API (parse, call, print).

Each subcommand lives in its own module of this package. The module's docstring, a one-sentence
summary after the command's name, prose paragraphs and an ``Examples::`` block, gives the
command's line in ``optmech --help`` and the description and examples of its own ``--help``;
``add_arguments(parser)`` adds its options and ``run(args) -> int`` does the work. Error
messages name the options: an option's ``dest`` stands for the option, and ``FLAGS``, where a
module needs it, maps the library's other parameter names (``max_variables``) to an option
(``--max-memory-gb``). The modules named in `COMMANDS` are wired up here.

Bad arguments exit with status 2 and a one-line message in the command's own terms (its flags,
never a traceback): that includes a problem too large for the memory allowed or outside what
the designers serve (refused before any work, ``optmech.cli._limits``); a failed check or
solver exits with status 1, and so does an unexpected error (one line naming it; set the
environment variable ``OPTMECH_TRACEBACK=1`` for its traceback). Ctrl-C stops a command with
one line saying what was kept, and exit status 130. Every option's default is shown in
``--help``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import types
from collections.abc import Sequence
from typing import Any, NoReturn

from optmech.cli._args import HelpFormatter, command_flags, command_text, in_cli_terms
from optmech.exceptions import OptmechError, ProblemTooLargeError

__all__ = ["COMMANDS", "INTERRUPTED", "NEGATIVE_VALUE", "ArgumentParser", "build_parser", "main"]

#: Subcommand modules, in the order ``optmech --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "staircase",
    "design",
    "user",
    "local",
    "shuffle",
    "verify",
    "sweep",
    "experiment",
)


#: Exit status of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


#: A value that starts with a minus sign and is a number or a list or range of them
#: (``-3``, ``-1e308:1e308:5``, ``-3,-1,0,2``, ``-inf``): an option's value, never an option.
NEGATIVE_VALUE = re.compile(r"^-(\d|\.\d|inf|nan)[\w.,:;+\-]*$", re.IGNORECASE)


class ArgumentParser(argparse.ArgumentParser):
    """A parser whose usage errors are one line, as every other error of the command line:
    ``optmech design: error: argument --resolution: invalid int value: 'x' (see optmech design
    --help)``, exit status 2.

    A value that begins with a minus sign and a digit (`NEGATIVE_VALUE`:
    ``--inputs -3,-1,0,2``, ``--tail -1,0.2``) is read as the option's value, as argparse
    reads a plain negative number (no option of the command line looks like a number)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_VALUE

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def _loaded_commands() -> list[types.ModuleType]:
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

    parser = ArgumentParser(
        prog="optmech",
        description=(
            "Design and verify optimal differential-privacy mechanisms by linear programming."
        ),
    )
    parser.add_argument("--version", action="version", version=f"optmech {__version__}")
    sub = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        parser_class=ArgumentParser,
    )
    for module in _loaded_commands():
        text = command_text(module.__doc__ or "")
        command = sub.add_parser(
            module.__name__.rsplit(".", 1)[-1],
            help=text.help,
            description=text.description,
            epilog=text.epilog or None,
            formatter_class=HelpFormatter,
        )
        module.add_arguments(command)  # type: ignore[attr-defined]
        command.set_defaults(
            run=module.run,  # type: ignore[attr-defined]
            flags=command_flags(command, getattr(module, "FLAGS", {})),
        )
    return parser


def _one_line(exc: BaseException, flags: dict[str, str]) -> str:
    """The exception's message on one line, in the command's terms (its flags)."""
    return " ".join(in_cli_terms(str(exc), flags).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``optmech`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    flags = args.flags
    name = f"optmech {args.command}"
    try:
        return int(args.run(args))
    except (ValueError, TypeError, ProblemTooLargeError) as exc:
        # Bad input, including a problem too large for the memory allowed: exit status 2.
        kind = "error" if isinstance(exc, ValueError | TypeError) else type(exc).__name__
        print(f"{name}: {kind}: {_one_line(exc, flags)}", file=sys.stderr)
        return 2
    except OptmechError as exc:
        print(f"{name}: {type(exc).__name__}: {_one_line(exc, flags)}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (``optmech verify | head``): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        kept = getattr(exc, "kept", None) or "nothing was written"
        print(f"{name}: interrupted: {kept}", file=sys.stderr)
        return INTERRUPTED
    except OSError as exc:  # the disk, not the input: a file that could not be written or read
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"{name}: {type(exc).__name__}: {_reason(exc)}{where}", file=sys.stderr)
        return 1
    except Exception as exc:
        if os.environ.get("OPTMECH_TRACEBACK"):
            raise
        print(
            f"{name}: unexpected {type(exc).__name__}: {_one_line(exc, flags)} (a bug: please "
            "report it with the command line; OPTMECH_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        return 1


def _reason(exc: OSError) -> str:
    return exc.strerror or " ".join(str(exc).split()) or type(exc).__name__
