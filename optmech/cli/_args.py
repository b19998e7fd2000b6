"""Shared pieces of the subcommands' parsers: the help texts read from a command module's
docstring, help with defaults, common options, output paths, and the translation of the
library's parameter names into the command's flags."""

from __future__ import annotations

import argparse
import inspect
import os
import re
import tempfile
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")

__all__ = [
    "CommandText",
    "HelpFormatter",
    "add_cost",
    "add_epsilon",
    "add_json",
    "add_max_memory",
    "add_output_constraints",
    "add_plot",
    "add_progress",
    "add_sensitivity",
    "add_solver",
    "check_output_path",
    "check_plot_path",
    "check_solver",
    "command_flags",
    "command_text",
    "flagged",
    "in_cli_terms",
    "options_of",
    "plain",
]

#: ``[`name`][target]`` (a mkdocstrings cross-reference), ````name```` (literal text) or ```name```
#: (a name).
_MARKUP = re.compile(r"\[`([^`]+)`\]\[[^\]]*\]|``(.+?)``|`([^`\n]+)`")
#: The summary's lead: the command's name and its positional arguments in double backquotes, and
#: a colon.
_LEAD = re.compile(r"^``optmech [^`]+``:\s*")
#: The line that opens the examples block, ``Example::`` or ``Examples::``.
_EXAMPLES = re.compile(r"^(Examples?)::$", re.M)


def plain(text: str) -> str:
    """``text`` without its markup, as a terminal shows it: ````x````, ```x``` and ``[`x`][y]``
    become x.

    Examples
    --------
    >>> plain("the ``--out`` folder ([`optmech.experiments`][optmech.experiments])")
    'the --out folder (optmech.experiments)'
    >>> plain("the ``--out`` folder (`optmech.experiments`)")
    'the --out folder (optmech.experiments)'

    """
    return _MARKUP.sub(lambda m: m.group(1) or m.group(2) or m.group(3), text)


class CommandText(NamedTuple):
    """What a command's parser shows, read from its module's docstring by `command_text`."""

    #: One line for ``optmech --help``: the summary, without its lead and final period.
    help: str
    #: The ``optmech NAME --help`` description: the summary and the prose paragraphs.
    description: str
    #: The examples block, verbatim under its heading ("" when there is none).
    epilog: str


def command_text(doc: str) -> CommandText:
    r"""The help, description and epilog of a command whose module docstring is ``doc``.

    The docstring is a one-sentence summary after the command's name in double backquotes and a
    colon, prose paragraphs, then optionally an ``Examples::`` line and the indented command
    lines; the markup goes (see `plain`).

    Examples
    --------
    >>> text = command_text(
    ...     "``optmech x``: do a thing.\n\nWith ``--y``.\n\nExamples::\n\n    $ optmech x --y\n"
    ... )
    >>> text.help, text.description, text.epilog
    ('do a thing', 'Do a thing.\n\nWith --y.', 'Examples:\n    $ optmech x --y')

    """
    parts = _EXAMPLES.split(_LEAD.sub("", inspect.cleandoc(doc)), maxsplit=1)
    paragraphs = [" ".join(plain(p).split()) for p in parts[0].split("\n\n") if p.strip()]
    summary = paragraphs[0] if paragraphs else ""  # none under ``python -OO``
    epilog = ""
    if len(parts) == 3:  # the heading, then the block as written
        epilog = parts[1] + ":\n" + plain(parts[2].strip("\n"))
    return CommandText(
        help=summary.removesuffix("."),
        description="\n\n".join([summary[:1].upper() + summary[1:], *paragraphs[1:]]),
        epilog=epilog,
    )


class HelpFormatter(argparse.HelpFormatter):
    """Help that states every default: ``(default: …)`` after each option that has one and
    does not already say it (flags that are off by default say nothing). Descriptions and
    epilogs keep their paragraphs: prose is filled to the terminal, indented lines (examples)
    are shown as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for paragraph in text.split("\n\n"):
            lines: list[str] = []
            prose: list[str] = []
            for line in [*paragraph.splitlines(), ""]:  # "" ends the last run of prose
                if line.strip() and not line[0].isspace():
                    prose.append(line)
                    continue
                if prose:
                    lines += textwrap.wrap(
                        " ".join(prose),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_long_words=False,
                        break_on_hyphens=False,
                    )
                    prose = []
                if line.strip():
                    lines.append(indent + line)
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default in (None, False, argparse.SUPPRESS)
            or action.option_strings == []
        ):
            return text
        return f"{text} (default: {default})"


def add_cost(
    parser: argparse.ArgumentParser, *, default: str = "abs", matrix: bool = False
) -> None:
    """``--cost SPEC`` (also spelt ``--loss``): the cost of the error; with ``matrix``, a JSON
    file holding a loss matrix is accepted too."""
    parser.add_argument(
        "--cost",
        "--loss",
        dest="cost",
        default=default,
        metavar="SPEC",
        help="cost of the error (answer − truth): abs, squared, power:P, zero-one[:T], "
        "asym:OVER,UNDER[,P]"
        + ("; or a JSON file holding a loss matrix L[input][output]" if matrix else "")
        + "; --loss is the same option",
    )


def add_epsilon(parser: argparse.ArgumentParser, valid: str) -> None:
    """``--epsilon E`` (required); ``valid`` says its range and why."""
    parser.add_argument(
        "--epsilon", type=float, required=True, metavar="E", help=f"privacy parameter, in {valid}"
    )


def add_sensitivity(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--sensitivity D`` (default 1); ``note`` adds to the help."""
    parser.add_argument(
        "--sensitivity",
        type=float,
        default=1.0,
        metavar="D",
        help="query sensitivity, > 0" + (f" ({note})" if note else ""),
    )


def add_solver(parser: argparse.ArgumentParser) -> None:
    """``--solver NAME``."""
    parser.add_argument(
        "--solver",
        default=None,
        metavar="NAME",
        help="LP solver (HIGHS, CLARABEL, ...); by default chosen by problem size",
    )


def add_max_memory(parser: argparse.ArgumentParser, default: float) -> None:
    """``--max-memory-gb GB``: the size limit of the LP, estimated before it is built."""
    parser.add_argument(
        "--max-memory-gb",
        type=float,
        default=default,
        metavar="GB",
        help="refuse LPs whose estimated memory exceeds this many GB",
    )


def add_output_constraints(parser: argparse.ArgumentParser, item: str, unbiased: str) -> None:
    """``--unbiased`` (``unbiased`` is its help), ``--monotone`` and ``--max-risk B``: the
    constraints on a mechanism's output, for every ``item`` (``"label"``, ``"input"``)."""
    parser.add_argument("--unbiased", action="store_true", help=unbiased)
    parser.add_argument(
        "--monotone", action="store_true", help="the output is stochastically increasing"
    )
    parser.add_argument(
        "--max-risk",
        type=float,
        default=None,
        metavar="B",
        help=f"every {item}'s expected loss at most B",
    )


def add_json(parser: argparse.ArgumentParser) -> None:
    """``--json``."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def add_progress(parser: argparse.ArgumentParser, what: str) -> None:
    """``--progress``: a progress bar of ``what`` on standard error (never in ``--json``)."""
    parser.add_argument(
        "--progress", action="store_true", help=f"show a progress bar of {what} on standard error"
    )


def add_plot(parser: argparse.ArgumentParser, what: str) -> None:
    """``--plot OUT.png``."""
    parser.add_argument("--plot", default=None, metavar="OUT.png", help=f"save {what} (PNG)")


def check_output_path(
    flag: str, path: str | os.PathLike[str] | None, *, create: bool = False
) -> Path | None:
    """``path`` as a Path if a file can be written there, else ValueError naming ``flag``.

    Checked before any work is done, so a long solve never ends in an unwritable path, and
    checked by writing, not by reading permissions (which say nothing under ``/proc``, on a
    read-only mount, or to root): an existing file is opened for appending (nothing is
    changed), and a probe file is created and removed beside it (the outputs are written
    through a temporary file there and renamed into place). With ``create`` the missing
    folders are made now; otherwise the folder must exist.
    """
    if path is None:
        return None
    text = os.fspath(path)
    if not str(text).strip():
        raise ValueError(f"`{flag}` must be a file path; got an empty string.")
    target = Path(text)
    if target.is_dir():
        raise ValueError(f"`{flag}` must be a file path; got the folder {str(target)!r}.")
    if target.exists() and not target.is_file():
        raise ValueError(f"`{flag}` must be a regular file; got {str(target)!r}, which is not one.")
    folder = target.parent
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(
                f"`{flag}`: the folder {str(folder)!r} cannot be created ({_reason(exc)}); "
                f"got {str(target)!r}."
            ) from None
    if not folder.is_dir():
        raise ValueError(
            f"`{flag}`: the folder {str(folder)!r} does not exist; got {str(target)!r}."
        )
    try:
        if target.exists():
            with target.open("ab"):
                pass
        handle, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".probe", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"`{flag}`: {str(target)!r} cannot be written ({_reason(exc)}).") from None
    return target


def check_plot_path(flag: str, path: str | os.PathLike[str] | None) -> Path | None:
    """`check_output_path` for a figure: also refuses a suffix that
    matplotlib cannot write (``out.x``), before any work. No suffix means PNG."""
    target = check_output_path(flag, path)
    if target is None or not target.suffix:
        return target
    from matplotlib.backend_bases import FigureCanvasBase

    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    if target.suffix[1:].lower() not in formats:
        raise ValueError(
            f"`{flag}` must end in a figure format matplotlib writes ({', '.join(formats)}); "
            f"got {str(target)!r}."
        )
    return target


def _reason(exc: OSError) -> str:
    """An OSError's reason in words (``Permission denied``), without the path."""
    return exc.strerror or type(exc).__name__


def flagged(flag: str, value: Any, parse: Callable[[Any], T]) -> T:
    """``parse(value)``, its ValueError, TypeError or ArithmeticError (as a ValueError) prefixed
    with ``flag`` and the value when its message names neither the flag nor the parameter the
    flag stands for (```cost``` for ``--cost``).

    Examples
    --------
    >>> flagged("--cost", "nope", lambda s: float(s))
    Traceback (most recent call last):
    ...
    ValueError: `--cost` 'nope': could not convert string to float: 'nope'
    """
    try:
        return parse(value)
    except (ValueError, TypeError, ArithmeticError) as exc:
        message = " ".join(str(exc).split())
        if flag in message or f"`{flag.lstrip('-').replace('-', '_')}`" in message:
            raise  # named already (the library's name becomes the flag in the final message)
        raise ValueError(f"`{flag}` {value!r}: {message}") from None


def options_of(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Any]:
    """The parsed options ``names`` as keyword arguments (the ``dest`` of each)."""
    return {name: getattr(args, name) for name in names}


def check_solver(solver: str | None) -> None:
    """Refuse a ``--solver`` name that is not an installed LP solver, before any work."""
    if solver is None:
        return
    from optmech.lp.solve import available_solvers

    solvers = available_solvers()
    if not isinstance(solver, str) or solver.upper() not in solvers:
        raise ValueError(
            f"`--solver` must be one of {solvers} (installed LP solvers); got {solver!r}."
        )


def command_flags(parser: argparse.ArgumentParser, overrides: Mapping[str, str]) -> dict[str, str]:
    """The command's flags by parameter name, for `in_cli_terms`.

    Every option's ``dest`` maps to its first long option string (``max_memory_gb`` to
    ``--max-memory-gb``); ``overrides`` adds the library's names that differ from a ``dest``
    (``normalize`` for ``--normalize-prior``) and wins over the parser.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--cost", "--loss", dest="cost")
    >>> _ = parser.add_argument("-w", "--max-memory-gb")
    >>> command_flags(parser, {"loss": "--cost"})
    {'cost': '--cost', 'max_memory_gb': '--max-memory-gb', 'loss': '--cost'}

    """
    derived = {
        action.dest: next(s for s in action.option_strings if s.startswith("--"))
        for action in parser._actions
        if any(s.startswith("--") for s in action.option_strings) and action.dest != "help"
    }
    return {**derived, **overrides}


def in_cli_terms(message: str, flags: Mapping[str, str]) -> str:
    """``message`` with the library's parameter names replaced by the command's flags.

    ``flags`` maps a parameter (``"max_memory_gb"``) to its flag (``"--max-memory-gb"``).
    Replaced: ```name```, ``name=True`` (a remedy such as ``pass normalize=True`` becomes
    ``pass --normalize-prior``), ``name=value``, and bare names with an underscore (never an
    English word, unlike ``grid`` or ``cost``).

    Examples
    --------
    >>> in_cli_terms("raise max_memory_gb; the grid is `grid`", {"max_memory_gb": "--max-memory-gb",
    ...     "grid": "--grid"})
    'raise --max-memory-gb; the grid is `--grid`'

    """
    out = message
    for name, flag in flags.items():
        word = re.escape(name)
        out = re.sub(rf"(?<![\w-]){word}=True\b", flag, out)
        out = re.sub(rf"`{word}`", f"`{flag}`", out)
        out = re.sub(rf"(?<![\w`-]){word}(?==)", flag, out)  # name=value
        if "_" in name:  # an identifier, never an English word: replaced wherever it stands
            out = re.sub(rf"(?<![\w`-]){word}(?![\w`])", flag, out)
    return out
