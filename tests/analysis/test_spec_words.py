"""A balance spec's line names its figure in the words the drift gate and the report's
tables name it (``drift.FIGURE_NAMES``), on the terminal, in ``report.md`` and on the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import simlab
from simlab.analysis.drift import figure_name
from simlab.analysis.specs import describe
from simlab.report import render, terminal
from simlab.scenario.common import Expectation
from tests.support import printed_at

ROOT = Path(__file__).resolve().parents[2]
SPIRITS = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"


@pytest.fixture(scope="module")
def spirits() -> pd.DataFrame:
    """spirits-2v3's specs (Momentum spent, reinforcements, death) on a few encounters."""
    return simlab.check(SPIRITS, n=40, seed=3)


def test_an_event_rate_is_named_as_the_combatant_table_names_it(spirits: pd.DataFrame) -> None:
    """The spec "Kaito's momentum_spent rate at least 0.99" named the figure by its tally's id,
    where the combatant table and the drift gate say "rate of spending Momentum"."""
    specs = list(spirits.spec)
    assert "Kaito's rate of spending Momentum at least 0.99" in specs
    assert "Whelp's arrival rate (reinforcement) at least 0.99" in specs
    assert "Kaito's dead rate at most 0.03" in specs
    assert not [s for s in specs if "_" in s], specs


def test_a_figure_in_rounds_says_so_at_its_bound(spirits: pd.DataFrame) -> None:
    """The median time-to-down was "(rounds)" in the middle of the spec, a name the gate
    does not give it; the rounds are said at the bound now."""
    assert "mean encounter length at most 15 rounds" in list(spirits.spec)
    cases = {
        "between": ([6, 9], "Kaito's median time-to-down between 6 and 9 rounds"),
        "at_least": (1, "Kaito's median time-to-down at least 1 round"),
        "at_most": (12, "Kaito's median time-to-down at most 12 rounds"),
    }
    for bound, (value, said) in cases.items():
        spec = {"figure": "median_time_to_down", "combatant": "Kaito", bound: value}
        assert describe(Expectation.model_validate(spec)) == said


SHARED: list[dict[str, Any]] = [
    {"figure": "hit_rate", "attack": "strike", "at_least": 0.5},
    {"figure": "crit_rate", "attack": "strike", "at_most": 0.1},
    {"figure": "mean_damage", "attack": "strike", "at_least": 2},
    {"figure": "down_rate", "combatant": "Kaito", "at_most": 0.5},
    {"figure": "median_time_to_down", "combatant": "Kaito", "at_least": 3},
    {"figure": "win_rate", "side": "party", "at_least": 0.5},
    {"figure": "draw_rate", "at_most": 0.1},
    {"figure": "mean_rounds", "at_most": 15},
    {"figure": "event_rate", "combatant": "Kaito", "event": "momentum_spent", "at_least": 0.5},
    {"figure": "event_rate", "combatant": "Kaito", "event": "out_of_breath", "at_least": 0.5},
]


@pytest.mark.parametrize("entry", SHARED, ids=lambda e: e.get("event", e["figure"]))
def test_a_figure_the_gate_compares_is_named_as_the_gate_names_it(entry: dict[str, Any]) -> None:
    """One table of names for the figures both have: a spec line holds the name the
    drift gate gives its figure (an event's rate is the gate's ``<event>_rate``)."""
    figure = entry["figure"] if "event" not in entry else f"{entry['event']}_rate"
    assert figure_name(figure) in describe(Expectation.model_validate(entry))


def test_the_terminal_report_md_and_page_say_the_words(spirits: pd.DataFrame) -> None:
    """The spec table at 80 columns, the page's and ``report.md``'s rows: every one
    names Momentum in words and none says the tally's id."""
    text = printed_at(lambda: terminal.print_specs(spirits))
    assert max(len(line) for line in text.splitlines()) <= 80, text
    # the spec column: each line's first cell, where it starts at the table's edge
    cells = [line.split("  ")[0] for line in text.splitlines() if line[1:2].strip()]
    flat = " ".join(" ".join(cells).split())
    assert "Kaito's rate of spending Momentum at least 0.99" in flat, text
    run = simlab.api.run_scenario(SPIRITS, n=40, seed=3)
    rows = render._spec_rows(spirits, run)
    said = [row[0] for row in rows]
    assert any(s.startswith("Kaito's rate of spending Momentum at least 0.99") for s in said)
    for shown in (flat, *said):
        assert "momentum_spent" not in shown and "reinforcement rate" not in shown


def test_the_earlier_drafts_shaken_is_named_as_its_rules_name_it() -> None:
    """``shaken`` (Endurance reached 0) read "Kaito's shaken rate": the rule's state
    in lower case, as if Kaito did the shaking. The rules say a combatant becomes
    Shaken; the table of names (``drift.FIGURE_NAMES``) says so, for spec lines, the
    drift gate and the page's combatant table alike."""
    spec = {"figure": "event_rate", "combatant": "Kaito", "event": "shaken", "at_least": 0.5}
    assert describe(Expectation.model_validate(spec)) == (
        "Kaito's rate of becoming Shaken at least 0.5"
    )
    assert figure_name("shaken_rate") == "rate of becoming Shaken"
    assert render.event_header("shaken") == "rate of becoming Shaken"


def test_the_earlier_drafts_downed_is_said_in_words_as_shaken_is() -> None:
    """``downed`` (the earlier draft's down itself) read "Kaito's downed rate" in a
    spec line, the event's id with "rate" after it, beside "Kaito's rate of becoming
    Shaken": the rules say a combatant becomes Downed, and the line says so."""
    spec = {"figure": "event_rate", "combatant": "Kaito", "event": "downed", "at_most": 0.6}
    assert describe(Expectation.model_validate(spec)) == (
        "Kaito's rate of becoming Downed at most 0.6"
    )
    assert figure_name("downed_rate") == "rate of becoming Downed"
