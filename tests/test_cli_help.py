"""What ``--help`` shows is read from each command module's docstring (summary, prose, examples,
as plain text), and error messages name the command's flags, derived from its parser."""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import shlex

import pytest

from optmech.cli import COMMANDS, build_parser, main
from optmech.cli._args import command_flags

#: A mkdocstrings cross-reference ``[`x`][y]`` (shown as x).
LINK = re.compile(r"\[`([^`]+)`\]\[[^\]]*\]")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return dict(sub.choices)  # type: ignore[attr-defined]


def _docstring(name: str) -> tuple[str, list[str], list[str]]:
    """The command's summary and prose paragraphs as plain text, and its example lines."""
    doc = inspect.cleandoc(importlib.import_module(f"optmech.cli.{name}").__doc__ or "")
    prose, _, examples = re.split(r"^(Examples?)::$", doc, maxsplit=1, flags=re.M)
    text = LINK.sub(r"\1", prose).replace("`", "")
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    summary = paragraphs[0].split(": ", 1)[1].removesuffix(".")
    assert paragraphs[0].startswith(f"optmech {name}"), paragraphs[0]
    return summary, paragraphs[1:], [line for line in examples.splitlines() if line.strip()]


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", COMMANDS)
def test_help_shows_the_docstring_as_plain_text(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    summary, paragraphs, examples = _docstring(name)
    assert examples, f"{name} has no examples"
    listing = _help([], capsys).splitlines()
    # One line of `optmech --help`, beside the command's name or under it.
    assert summary in [line.strip().removeprefix(name).strip() for line in listing]
    text = _help([name], capsys)
    flat = " ".join(text.split())
    assert f"{summary[:1].upper()}{summary[1:]}." in flat
    for paragraph in paragraphs:
        assert paragraph in flat
    lines = text.splitlines()
    for example in examples:  # verbatim, with its indentation, however wide
        assert example in lines
    prose = [line for line in lines if line not in examples]
    assert max(len(line) for line in prose) <= 80
    parser = _subparsers()[name]
    for shown in (parser.description, parser.epilog, *listing):  # ("L[input][output]" is fine)
        assert "`" not in shown and "][" not in shown
    assert "``" not in text


@pytest.mark.parametrize("name", COMMANDS)
def test_every_example_parses(name: str) -> None:
    parser = build_parser()
    for example in _docstring(name)[2]:
        words = shlex.split(example, comments=True)
        assert words[:2] == ["$", "optmech"] and words[2] == name, example
        assert parser.parse_args(words[2:]).command == name


def test_the_flags_of_a_command_are_its_options_and_the_modules_overrides() -> None:
    for name, parser in _subparsers().items():
        module = importlib.import_module(f"optmech.cli.{name}")
        overrides = getattr(module, "FLAGS", {})
        flags = parser.get_default("flags")
        options = [a for a in parser._actions if a.option_strings and a.dest != "help"]
        for action in options:
            assert action.dest not in overrides, (name, action.dest)  # FLAGS holds no identity
            long = [s for s in action.option_strings if s.startswith("--")]
            assert flags[action.dest] == long[0], (name, action.dest)
        for library_name, flag in overrides.items():
            assert flags[library_name] == flag
        assert set(flags) == {a.dest for a in options} | set(overrides)


def test_a_modules_override_wins_over_the_parser() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cost", "--loss", dest="cost")
    parser.add_argument("-m", "--max-memory-gb", type=float)
    flags = command_flags(parser, {"cost": "--loss", "max_variables": "--max-memory-gb"})
    assert flags == {
        "cost": "--loss",
        "max_memory_gb": "--max-memory-gb",
        "max_variables": "--max-memory-gb",
    }


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["staircase", "--epsilon", "1000"], "--epsilon"),
        (["user", "--n", "3", "--epsilon", "60"], "--epsilon"),
        (["design", "--privacy", "eps=1", "--resolution", "0"], "--resolution"),
    ],
)
def test_a_parameter_named_as_its_option_is_shown_as_the_flag(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"`{flag}` must be" in err and f"`{flag.removeprefix('--')}`" not in err
