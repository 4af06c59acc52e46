"""A designer compares plots side by side: a combatant or side keeps its colour however a
plot is narrowed, a sweep plot's y axis says what it draws, and ``plot_sweep`` leaves
out what the sweep page leaves out."""

from __future__ import annotations

from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.colors import to_hex

import simlab
from simlab import plots
from simlab.report.tuning import _outcome_curve
from tests.tuning.cases import SS_DUEL

QUICKSTART = SS_DUEL.parents[1] / "shattered-spirits/quickstart.yaml"
PARTY = SS_DUEL.parents[1] / "opposed-tiers/party-fight.yaml"


@pytest.fixture(scope="module")
def fight() -> Any:
    """Kaito and the Brute attack each other, at three of Kaito's guards."""
    return simlab.sweep(simlab.load(QUICKSTART), {"Kaito.guard": [0, 1, 2]}, n=300, seed=3)


@pytest.fixture(scope="module")
def duel() -> Any:
    """ss-duel: no one attacks the Attacker, whose side never wins."""
    return simlab.sweep(simlab.load(SS_DUEL), {"Defender.guard": [0, 1, 2]}, n=300, seed=3)


def _colours(draw: Any) -> dict[str, str]:
    """Each simulated line's colour on a new axes ``draw(ax)`` draws on (an exact line
    is black where it is the only one)."""
    fig, ax = plt.subplots()
    draw(ax)
    found = {line.get_label(): to_hex(line.get_color()) for line in ax.get_lines()
             if not line.get_label().startswith("_")
             and not line.get_label().endswith(("(exact)", ": exact"))}  # fmt: skip
    plt.close(fig)
    return found


@pytest.mark.parametrize(("figure", "narrow"), [
    ("down_rate", {"combatant": "Brute"}),
    ("down_rate", {"side": "enemies"}),
    ("win_rate", {"side": "enemies"}),
    ("hit_rate", {"defender": "Kaito"}),
])  # fmt: skip
def test_a_sweep_subject_keeps_its_colour_however_narrowed(
    fight: Any, figure: str, narrow: dict[str, str]
) -> None:
    """Narrowed to the Brute, his line took Kaito's colour, C0."""
    whole = _colours(lambda ax: simlab.plot_sweep(fight, figure, ax=ax))
    narrowed = _colours(lambda ax: simlab.plot_sweep(fight, figure, ax=ax, **narrow))
    assert narrowed and len(narrowed) < len(whole), (narrowed, whole)
    assert all(whole[name] == colour for name, colour in narrowed.items()), (narrowed, whole)


def test_a_combatant_has_one_colour_on_a_run_and_a_sweep(fight: Any) -> None:
    """The run's time-to-down narrowed to the Brute drew him in C0, its whole plot in C1."""
    res = simlab.simulate(simlab.load(QUICKSTART), n=300, seed=3)
    whole = _colours(lambda ax: plots.plot_time_to_down(res, ax=ax))
    brute = _colours(lambda ax: plots.plot_time_to_down(res, ax=ax, combatant="Brute"))
    swept = _colours(lambda ax: simlab.plot_sweep(fight, "down_rate", ax=ax, combatant="Brute"))
    assert brute["Brute"] == whole["Brute"] == swept["Brute"] != whole["Kaito"]
    assert brute["Brute"] == to_hex(plots.combatant_colour(res, "Brute"))


def test_a_defender_keeps_its_bars_colour_on_a_narrowed_damage_plot() -> None:
    """party-fight's Warden hits three defenders: narrowed to the Raider Chief, his bars
    took the first defender's colour."""
    run = simlab.simulate(simlab.load(PARTY), n=1000, seed=3)

    def bars(**narrow: Any) -> dict[str, str]:
        fig, ax = plt.subplots()
        plots.plot_damage_pmf(run, "Warden", "longsword", ax=ax, **narrow)
        found = {c.get_label().split(" (n=")[0]: to_hex(c.patches[0].get_facecolor())
                 for c in ax.containers}  # fmt: skip
        plt.close(fig)
        return found

    whole, chief = bars(), bars(defender="Raider Chief")
    assert len(whole) > 1 and list(chief) == ["vs Raider Chief"]
    assert chief["vs Raider Chief"] == whole["vs Raider Chief"]


@pytest.mark.parametrize(("narrow", "label"), [
    ({"side": "draw"}, "draw rate"),
    ({"side": "enemies"}, "win rate"),
    ({}, "win or draw rate"),
])  # fmt: skip
def test_the_win_rate_axis_names_the_draws_where_they_are_drawn(
    fight: Any, narrow: dict[str, str], label: str
) -> None:
    """side="draw" drew the draw rate alone under the label "win rate"."""
    fig, ax = plt.subplots()
    simlab.plot_sweep(fight, "win_rate", ax=ax, **narrow)
    drawn = ax.get_ylabel().replace("\u00a0", " ")
    plt.close(fig)
    assert drawn == label


@pytest.mark.parametrize("figure", ["median_time_to_down", "down_rate", "win_rate"])
def test_plot_sweep_leaves_out_what_the_sweep_page_leaves_out(duel: Any, figure: str) -> None:
    """The Attacker, whom no one attacks, sat in the median's "not reached" row of every
    point in Python, and the attacker side's line at 0 on the win rate; the page leaves
    both out and says so."""
    fig, ax = plt.subplots()
    drawn = simlab.plot_sweep(duel, figure, ax=ax)
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    page = plt.figure()
    _outcome_curve(page, duel, figure)
    on_page = [t.get_text() for t in page.axes[0].get_legend().get_texts()]
    plt.close(fig)
    plt.close(page)
    assert names == on_page
    assert "Attacker" not in names and "Attacker" not in set(drawn.get("combatant", []))
    assert not [n for n in names if n.startswith("defender")], names


def test_a_combatant_left_out_is_drawn_where_it_is_named(duel: Any) -> None:
    fig, ax = plt.subplots()
    drawn = simlab.plot_sweep(duel, "down_rate", ax=ax, combatant=["Attacker", "Defender"])
    plt.close(fig)
    assert set(drawn.combatant) == {"Attacker", "Defender"}
