"""Shared pieces of the subcommands' parsers: help with defaults, common options, output paths,
and the translation of the library's parameter names into the command's flags."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "HelpFormatter",
    "add_cost",
    "add_json",
    "add_max_memory",
    "add_plot",
    "add_solver",
    "check_output_path",
    "in_cli_terms",
]


class HelpFormatter(argparse.HelpFormatter):
    """Help that states every default: ``(default: …)`` after each option that has one and
    does not already say it (flags that are off by default say nothing)."""

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


def add_json(parser: argparse.ArgumentParser) -> None:
    """``--json``."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def add_plot(parser: argparse.ArgumentParser, what: str) -> None:
    """``--plot OUT.png``."""
    parser.add_argument("--plot", default=None, metavar="OUT.png", help=f"save {what} (PNG)")


def check_output_path(
    flag: str, path: str | os.PathLike[str] | None, *, create: bool = False
) -> Path | None:
    """``path`` as a Path if a file can be written there, else ValueError naming ``flag``.

    Checked before any work is done, so a long solve never ends in an unwritable path. With
    ``create`` the missing folders will be made when the file is written: the nearest existing
    one must be writable; otherwise the folder must exist.
    """
    if path is None:
        return None
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"`{flag}` must be a file path; got the folder {str(target)!r}.")
    folder = target.parent
    if create:
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"`{flag}`: the folder {str(folder)!r} does not exist; got {str(path)!r}.")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"`{flag}`: the folder {str(folder)!r} is not writable.")
    return target


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
