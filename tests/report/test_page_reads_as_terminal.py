"""What a designer reading the report page beside the terminal saw disagree or mislead:
figures that broke over lines in their cell, the time-to-down table naming and giving less
than the terminal's, the events beside the time-to-down figures where the terminal gives
them a table of their own, and a damage note about diamonds no damage plot drew."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from simlab import api
from simlab.report import render, terminal
from simlab.report.results import ScenarioRun
from simlab.report.terminal import event_rate_cells, interval_cell, shown_events
from tests.report.report_synthetic import Truth, synthetic_result

N = 2000
ROOT = Path(__file__).resolve().parents[2]
#: Nine events, status damage and Momentum spent per encounter.
SPIRITS = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"


@pytest.fixture(scope="module")
def run() -> ScenarioRun:
    """A synthetic run with no exact answers (``exact`` is None)."""
    res = synthetic_result(Truth(), N, np.random.default_rng(5))
    res.rules = "shattered-spirits"  # a rule system the page knows
    return ScenarioRun(res)


@pytest.mark.parametrize("cell", ["— / 0.0000 / —", "— / 0.0500 / —", "0.6500 / 0.0500 / —",
                                  "not reached [6, not reached]", "not reached"])  # fmt: skip
def test_a_figure_cell_stays_on_one_line(cell: str) -> None:
    """techniques-3v3's exact column ``— / 0.0000 / —`` (hit and mean moved by the fight,
    the crit rate 0 whatever it does) was not read as a figure: on a phone it broke over
    three lines and made its row three times as tall as the rest; party-vs-monsters'
    median ``not reached [6, not reached]`` broke after ``[6,`` at 1280 px."""
    html = str(render._html_table(["figure"], [[cell]]))
    assert f'<td class="num">{render.whole_words(cell)}</td>' in html, html


def test_the_time_to_down_table_gives_the_terminals_figures_by_its_names(
    run: ScenarioRun,
) -> None:
    """The terminal's time-to-down table gives the mean if downed (with its interval) and
    the median if downed; the page's gave no mean and named the median "median when
    downed", the terms above it the same."""
    res = run.result
    header, rows = render._combatant_rows(res)
    assert "median when downed (rounds)" not in header
    mean_at = header.index("mean if downed (rounds) [95%]")
    assert header.index("median if downed (rounds)") == mean_at + 1
    table = res.combatants()
    for row, cells in zip(table.itertuples(), rows, strict=True):
        assert cells[mean_at] == interval_cell(row, "mean_time_to_down", bracketed=True)
    terms = [term for term, _ in render.TIME_TO_DOWN_TERMS]
    assert "Mean if downed" in terms and "Median if downed" in terms, terms
    assert "Median when downed" not in terms


def test_the_events_are_tables_of_their_own_named_as_the_terminals() -> None:
    """The time-to-down table carried the events' rates and the means per encounter
    beside its figures: party-vs-monsters' was some 1190 px wide, its last column out of
    view at 1280 px, spirits-2v3's eighteen columns. The terminal gives them tables of
    their own, "events (share of encounters) and means per encounter", at most
    :data:`~simlab.report.terminal.EVENT_COLUMNS_PER_TABLE` columns a table: so does the
    page, under the same names, its columns spread evenly (eleven: 4, 4 and 3)."""
    res = api.run_scenario(SPIRITS, n=200, seed=1).result
    header, rows = render._combatant_rows(res)
    assert header == render.COMBATANT_HEADER
    assert all(len(row) == len(header) for row in rows), rows
    title = terminal.events_tables(res)[0].title
    assert render.events_title(res) == title[0].upper() + title[1:]
    tables = render.event_tables(res)
    assert [len(shown) - 1 for shown, _ in tables] == [4, 4, 3], tables
    names = [name for _, name in res.layout.combatants]
    means = [render.MEAN_HEADERS[name] for name in res.layout.per_encounter_tallies]
    events = [f"{render.event_header(e)} [95%]" for e in shown_events(res)]
    assert [h for shown, _ in tables for h in shown[1:]] == events + means
    assert all(shown[0] == "combatant" for shown, _ in tables)
    assert all([row[0] for row in cells] == names for _, cells in tables)
    rates = event_rate_cells(res, bracketed=True)
    joined = [[c for _, cells in tables for c in cells[k][1:]] for k in range(len(names))]
    assert [row[: len(events)] for row in joined] == rates


def test_a_run_without_events_has_no_events_table() -> None:
    """zones-3d6's one event is the down itself, which no table shows: no events table,
    and no heading over nothing."""
    res = synthetic_result(Truth(), 200, np.random.default_rng(1))
    res.rules = "zones-3d6"  # its one event, "out", is the down itself
    assert not shown_events(res) and not res.layout.per_encounter_tallies
    assert render.event_tables(res) == []


def test_the_damage_note_names_diamonds_only_where_a_damage_plot_draws_them(
    run: ScenarioRun, tmp_path: Path
) -> None:
    """techniques-3v3's damage note said "open black diamonds: the exact answer against a
    fresh defender, where the exact engine gives one" where no damage plot drew one (every
    pair's damage moved by the fight; the exact line above says so)."""
    render.render_report([run], tmp_path, write_results=False)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    note = re.search(r"<h3>Damage</h3><p class=\"note\">(.*?)</p>", html, re.S)
    assert note, html[:500]
    assert "Misses count as 0 damage" in note.group(1)
    assert "diamond" not in note.group(1), note.group(1)
