"""Each command's ``--help`` as a new designer reads it beside the README's synopsis
(its "Command line" section): the same options, each default said."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from simlab.cli import main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = sorted(main.commands)


def _command(name: str) -> click.Command:
    """The command the synopsis's ``simlab NAME`` line gives: ``baseline``'s is ``update``."""
    command = main.commands[name]
    return command.commands["update"] if isinstance(command, click.Group) else command


def _synopsis() -> str:
    """The README's synopsis: the first ``sh`` block of its "Command line" section."""
    section = ROOT.joinpath("README.md").read_text(encoding="utf-8").split("## Command line")[1]
    return section.split("```sh\n")[1].split("```")[0]


def _said_in_synopsis(command: str) -> set[str]:
    """The options the synopsis gives ``command`` (``-n``, ``--out``), on its lines (one ``simlab
    COMMAND`` line and the indented lines under it, however many forms it has)."""
    said: set[str] = set()
    current = ""
    for line in _synopsis().splitlines():
        if line.startswith("simlab "):
            current = line.split()[1]
        elif not line.startswith(" "):
            current = ""
        if current == command:
            said |= set(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", line.split("#")[0]))
    return said


def _in_help(command: str) -> list[tuple[str, ...]]:
    """The options ``simlab COMMAND --help`` lists, each by its names (``-n``,
    ``--encounters``), but --help."""
    options = [p for p in _command(command).params if isinstance(p, click.Option)]
    return [tuple(p.opts) for p in options if p.name != "help"]


@pytest.mark.parametrize("command", COMMANDS)
def test_the_synopsis_gives_each_command_the_options_its_help_lists(command: str) -> None:
    """The synopsis left out options ``--help`` lists (``--threads`` of compare, tune,
    report and check; ``--precision`` and ``--scheduler`` in a comment few read as a
    command's own), and gave none that ``--help`` does not."""
    said, listed = _said_in_synopsis(command), _in_help(command)
    assert [names for names in listed if not said & set(names)] == []
    assert said - {name for names in listed for name in names} == set()


@pytest.mark.parametrize("command", [c for c in COMMANDS if ("-n", "--encounters") in _in_help(c)])
def test_every_count_of_encounters_says_its_default(command: str) -> None:
    """``simlab run --help`` said ``Encounters to run (200000, 200_000 or 2e5)``, not
    what it runs without ``-n``, where every other command says it."""
    (option,) = [p for p in _command(command).params if p.name == "encounters"]
    assert isinstance(option, click.Option) and "(default: " in (option.help or ""), option.help


def test_the_main_help_says_the_exit_codes() -> None:
    """``simlab --help`` listed the commands only: a designer scripting them (CI) had
    to find the exit codes in the README."""
    said = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    for code in ("0 ok", "1 ", "2 invalid input", "3 internal error", "130 ", "143 "):
        assert code in said, said
