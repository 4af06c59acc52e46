"""Two runs drawn on one axes can be told apart (``label=``, colours after the first
call's), and exact answers asked for but not drawn are said (a UserWarning)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.colors import to_rgba
from matplotlib.container import BarContainer

import simlab
from simlab.errors import InputError
from tests.tuning.cases import SS_DUEL

QUICKSTART = SS_DUEL.parents[1] / "shattered-spirits/quickstart.yaml"
#: The quickstart with a block reaction on Kaito: the exact engine refuses the Brute's
#: stone-strike against him (reactions depend on tokens spent earlier).
BLOCK = {"Kaito.react": {"block": {"when_damage_at_least": 6}}, "Kaito.tokens": {"grit": 2}}


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    scn = simlab.load(QUICKSTART)
    blk = scn.with_(BLOCK)
    return {"scn": scn, "blk": blk, "base": simlab.simulate(scn, n=1000, seed=3),
            "block": simlab.simulate(blk, n=1000, seed=3)}  # fmt: skip


@pytest.fixture
def ax() -> Any:
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def _names(ax: Any) -> list[str]:
    return ax.get_legend_handles_labels()[1]


def _bar_faces(ax: Any) -> list[tuple[bool, Any]]:
    """Per bar series drawn, whether it is filled and its colour (face or edge)."""
    out = []
    for c in ax.containers:
        if isinstance(c, BarContainer):
            patch = c.patches[0]
            filled = patch.get_fill()
            out.append((filled, patch.get_facecolor() if filled else patch.get_edgecolor()))
    return out


def test_two_runs_time_to_down_are_named_by_their_labels(runs: dict[str, Any], ax: Any) -> None:
    """Both curves were named "Kaito", and the median line was listed twice."""
    simlab.plot_time_to_down(runs["base"], combatant="Kaito", ax=ax, label="base")
    simlab.plot_time_to_down(runs["block"], combatant="Kaito", ax=ax, label="guard 3")
    assert _names(ax) == ["base · Kaito", "median: where a curve crosses 0.5", "guard 3 · Kaito"]
    lines = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert lines["base · Kaito"] != lines["guard 3 · Kaito"]


def test_two_runs_damage_bars_take_other_colours_and_show_through(
    runs: dict[str, Any], ax: Any
) -> None:
    """The second run's bars were drawn in the first's blue at the same places, over them."""
    simlab.plot_damage_pmf(runs["base"], "Brute", "stone-strike", ax=ax, label="base")
    simlab.plot_damage_pmf(runs["block"], "Brute", "stone-strike", ax=ax, label="block")
    names = _names(ax)
    assert [n.split(" (n=")[0] for n in names] == ["base · vs Kaito", "block · vs Kaito"]
    (first_filled, first), (second_filled, second) = _bar_faces(ax)
    assert first_filled and not second_filled  # the first run's bars show through
    assert to_rgba(first) != to_rgba(second)


def test_two_runs_at_least_curves_take_other_colours(runs: dict[str, Any], ax: Any) -> None:
    simlab.plot_damage_at_least(runs["base"], "Brute", "stone-strike", ax=ax, label="base")
    simlab.plot_damage_at_least(runs["block"], "Brute", "stone-strike", ax=ax, label="block")
    lines = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert set(lines) == {"base · vs Kaito", "block · vs Kaito"}
    assert to_rgba(lines["base · vs Kaito"]) != to_rgba(lines["block · vs Kaito"])


def test_two_runs_hit_rates_are_labelled_and_both_show(runs: dict[str, Any], ax: Any) -> None:
    simlab.plot_hit_rates(runs["base"], ax=ax, label="base")
    simlab.plot_hit_rates(runs["block"], ax=ax, label="block")
    assert sum(n.startswith("base · ") for n in _names(ax)) == 2
    assert sum(n.startswith("block · ") for n in _names(ax)) == 2
    faces = _bar_faces(ax)
    assert [filled for filled, _ in faces] == [True, True, False, False]
    assert len({to_rgba(colour) for _, colour in faces}) == 4


def test_two_runs_win_rates_are_labelled_and_both_show(runs: dict[str, Any], ax: Any) -> None:
    """plot_win_rates took no label=, and a second call drew its bars in the same green
    over the first's."""
    simlab.plot_win_rates(runs["base"], ax=ax, label="base")
    simlab.plot_win_rates(runs["block"], ax=ax, label="block")
    assert _names(ax) == ["base", "block"]
    assert ax.get_legend() is not None
    (first_filled, first), (second_filled, second) = _bar_faces(ax)
    assert first_filled and not second_filled  # the first run's bars show through
    assert to_rgba(first) == to_rgba("tab:green") and to_rgba(second) != to_rgba(first)
    sides = [t.get_text() for t in ax.get_yticklabels()]
    assert sides == list(runs["base"].win_rates().side)


def test_win_rates_without_a_label_are_drawn_as_before(runs: dict[str, Any], ax: Any) -> None:
    simlab.plot_win_rates(runs["base"], ax=ax)
    assert _names(ax) == [] and ax.get_legend() is None
    assert _bar_faces(ax) == [(True, to_rgba("tab:green"))]
    simlab.plot_win_rates(runs["block"], ax=ax)  # unlabelled too: another colour
    assert to_rgba(_bar_faces(ax)[1][1]) != to_rgba("tab:green")


def test_without_a_label_a_fresh_axes_is_drawn_as_before(runs: dict[str, Any], ax: Any) -> None:
    simlab.plot_damage_pmf(runs["base"], "Brute", "stone-strike", ax=ax)
    assert [n.split(" (n=")[0] for n in _names(ax)] == ["vs Kaito"]
    assert _bar_faces(ax) == [(True, to_rgba("C0"))]


def test_a_label_that_is_no_text_is_refused(runs: dict[str, Any], ax: Any) -> None:
    with pytest.raises(InputError, match="expected a text for label; got"):
        simlab.plot_time_to_down(runs["base"], ax=ax, label=3)
    with pytest.raises(InputError, match="expected a text for label; got"):
        simlab.plot_win_rates(runs["base"], ax=ax, label=3)


def test_a_refused_time_to_down_says_why(runs: dict[str, Any], ax: Any) -> None:
    """The quickstart's time-to-down is refused (both attack): nothing was drawn and
    nothing said why."""
    with pytest.warns(UserWarning, match="exact answers not drawn: time-to-down of Kaito, "
                      "Brute: the exact engine refused it .expected a one-sided duel"):  # fmt: skip
        simlab.plot_time_to_down(runs["base"], ax=ax, exact=simlab.exact(runs["scn"]))


@pytest.mark.parametrize("plot", [simlab.plot_damage_pmf, simlab.plot_damage_at_least])
def test_a_refused_pair_says_why(runs: dict[str, Any], ax: Any, plot: Any) -> None:
    exact = simlab.exact(runs["blk"])
    with pytest.warns(UserWarning, match="Brute · stone-strike → Kaito: the exact engine "
                      "refused it .expected a defender without reactions"):  # fmt: skip
        drawn = plot(runs["block"], "Brute", "stone-strike", "Kaito", ax=ax, exact=exact)
    assert list(drawn.attrs["exact_not_drawn"]) == ["Brute · stone-strike → Kaito"]


def test_exact_answers_drawn_say_nothing(runs: dict[str, Any], ax: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawn = simlab.plot_damage_pmf(runs["base"], "Brute", "stone-strike", ax=ax,
                                       exact=simlab.exact(runs["scn"]))  # fmt: skip
        simlab.plot_hit_rates(runs["base"], ax=ax, exact=simlab.exact(runs["scn"]))
    assert (drawn.source == "exact").any()


def test_the_draws_bar_is_told_from_the_sides_wins(runs: dict[str, Any], ax: Any) -> None:
    """Every bar of a run's outcome plot was green: the draw's read as one more side's
    wins. Each side's bar stays green; the draw's is grey."""
    simlab.plot_win_rates(runs["base"], ax=ax)
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    sides = [t.get_text() for t in ax.get_yticklabels()]
    faces = dict(zip(sides, (to_rgba(bar.get_facecolor()) for bar in bars), strict=True))
    assert sides[-1] == "draw", sides
    assert {faces[side] for side in sides[:-1]} == {to_rgba("tab:green")}, faces
    assert faces["draw"] == to_rgba("0.6"), faces


@pytest.fixture(scope="module")
def guarded(runs: dict[str, Any]) -> Any:
    """The quickstart with Kaito at Guard 3: the stone-strike deals him at most 8 (10
    at Guard 1), and he goes down later, if at all."""
    return simlab.simulate(runs["scn"].with_({"Kaito.guard": 3}), n=1000, seed=3)


@pytest.mark.parametrize("plot", [simlab.plot_damage_pmf, simlab.plot_damage_at_least])
def test_a_second_run_keeps_the_first_runs_damage_in_view(
    runs: dict[str, Any], guarded: Any, ax: Any, plot: Any
) -> None:
    """The second call set the x axis to its own damage, 0 to 8: the first run's bar at 10
    was cut off the plot."""
    first = plot(runs["base"], "Brute", "stone-strike", ax=ax, label="guard 1")
    second = plot(guarded, "Brute", "stone-strike", ax=ax, label="guard 3")
    assert first.damage.max() > second.damage.max()
    assert ax.get_xlim()[1] > first.damage.max()


def test_a_second_run_keeps_the_first_runs_rounds_in_view(
    runs: dict[str, Any], guarded: Any, ax: Any
) -> None:
    """Kaito at Guard 3 goes down as late as round 13 or later; the base run drawn after it
    cut the axis at its own rounds and said that no curve rose after its last one."""
    first = simlab.plot_time_to_down(guarded, combatant="Kaito", ax=ax, label="guard 3")
    second = simlab.plot_time_to_down(runs["base"], combatant="Kaito", ax=ax, label="base")
    last = int(first["round"][first.downed > 0].max())
    assert last > int(second["round"][second.downed > 0].max())
    assert ax.get_xlim()[1] > last
    assert f"no curve rises after round {last})" in " ".join(ax.get_xlabel().split())


def test_a_hit_rate_moved_by_the_fight_is_named_as_the_one_not_drawn(ax: Any) -> None:
    """The Knight blocks only some attacks, which moves the skeletons' hit rate, not
    their crit rate: the plot drew the crit rate's diamond and warned that the pair's
    exact answers were not drawn, as if none were."""
    knight = simlab.load(SS_DUEL.parents[1] / "glitters-d20/knight-vs-skeleton.yaml")
    run = simlab.simulate(knight, n=300, seed=3)
    with pytest.warns(UserWarning) as said:
        drawn = simlab.plot_hit_rates(run, ax=ax, exact=simlab.exact(knight))
    spear = drawn[drawn.attack == "rusty-spear"].iloc[0]
    assert math.isnan(spear.exact_hit_rate) and not math.isnan(spear.exact_crit_rate)
    assert [str(w.message) for w in said] == [
        "exact answers not drawn: hit rate of Skeleton ×2 · rusty-spear → Knight: the fight "
        "moves it away from the exact answer (Knight blocks on only some attacks)"
    ]
