"""A run's events table at the terminal: its headers name each event's rate in the words
the rest of the output gives it, and its figures are printed whole at 80 and 60 columns
beside long names."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from simlab import api
from simlab.analysis.drift import event_rate_name
from simlab.report import terminal
from tests.support import broken_names, printed_at, terminal_console

ROOT = Path(__file__).resolve().parents[2]
SPIRITS = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"
#: Names of 39 and 48 characters: the first left the events table's figures no room at
#: 60 columns, the second leaves even one figure beside it none.
LONG = "Kaito Stormrider of the Eastern Reaches"
LONGER = "Grand Duke Ferdinand Aurelius of the Sunken Keep"


@pytest.fixture(scope="module")
def spirits() -> object:
    """spirits-2v3 (nine events, Momentum spent per encounter), a few encounters, its
    Kaito and its Brute named long."""
    text = SPIRITS.read_text(encoding="utf-8")
    text = text.replace("name: Kaito", f"name: {LONG}").replace("name: Brute", f"name: {LONGER}")
    text = text.replace("combatant: Kaito,", f"combatant: {LONG},")
    return api.simulate(api.loads(text), n=200, seed=3)


def _events_block(text: str) -> str:
    """The events tables of a run's printed ``text``."""
    return text[text.index("events (share of encounters)") : text.index("Down rate: share")]


def _header_words(block: str) -> str:
    """The words of the header lines of every table in ``block`` (above each rule)."""
    lines = block.splitlines()
    return " ".join(line for k, line in enumerate(lines[1:], 1)
                    if "─" not in line and "─" in "".join(lines[k:k + 4]))  # fmt: skip


def test_the_events_headers_name_each_rate_as_the_rest_of_the_output_does(
    spirits: object,
) -> None:
    """The headers read ``momentum_spent`` / ``rate`` and ``reinforcement`` / ``rate``,
    the events' ids, where a spec line, the drift gate and the page say "rate of
    spending Momentum" and "arrival rate (reinforcement)"; each is said so, broken
    between its words."""
    headers, _ = terminal._event_cells(spirits, spirits.combatants())  # type: ignore[attr-defined]
    said = [" ".join(header.split()) for header in headers]
    events = terminal.shown_events(spirits)  # type: ignore[arg-type]
    assert said[: len(events)] == [event_rate_name(event) for event in events]
    assert "rate of spending Momentum" in said and "arrival rate (reinforcement)" in said
    block = _events_block(printed_at(lambda: terminal.print_result(spirits), 80))
    assert "momentum_spent" not in block, block
    words = _header_words(block)
    for word in ("spending", "Momentum", "(reinforcement)"):
        assert word in words.split(), (word, block)


@pytest.mark.parametrize("width", [60, 80])
def test_the_events_figures_are_whole_beside_a_long_name(spirits: object, width: int) -> None:
    """At 60 columns beside a name of 39 characters the events table printed ``0.001
    [2e-05, 0.006`` and its header ``ou`` / ``rat``, cut at the terminal's edge: it
    spread its columns over tables, but never broke a figure over its interval. Each
    table prints whole (``0.001`` / ``[2e-05, 0.006]``), no name broken."""
    with terminal_console(Console(width=width, record=True, force_terminal=False), width):
        tables = terminal.events_tables(spirits)  # type: ignore[arg-type]
        assert tables and all(terminal.prints_whole(table) for table in tables)
    block = _events_block(printed_at(lambda: terminal.print_result(spirits), width))
    for line in block.splitlines():
        assert line.count("[") == line.count("]") and line.count("(") == line.count(")"), block
    assert not broken_names(block, [LONG, LONGER]), block
