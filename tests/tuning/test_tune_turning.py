"""Tuning a figure that is not monotone in the field: every crossing said, never one
range over values that are not consistent, a peak rather than an end, a flat stretch."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pytest
from click.testing import CliRunner
from rich.console import Console

import simlab
from simlab.cli import main
from simlab.report.tuning import plot_tune
from simlab.report.tuning_terminal import tune_sentences
from simlab.tuning.tune import Evaluation, TuneResult, _Evaluator, _search, parse_target
from tests.support import terminal_console
from tests.tuning.cases import ROOT

EVADE = ROOT / "scenarios/shattered-spirits/evade-threshold.yaml"
THRESHOLD = "Defender.react.evade.when_damage_at_least"


class _Exact(_Evaluator):
    """An exact figure ``shape(value)``, to test the search without a simulation."""

    shape: Callable[[float], float] = staticmethod(lambda x: x)

    def _measure(self, value: float) -> Evaluation:
        y = self.shape(value)
        return Evaluation(value, y, y, y, "exact")


def _tuned(duel: Any, shape: Callable[[float], float], target: str, lo: float,
           hi: float) -> TuneResult:  # fmt: skip
    """The search of ``shape`` over ``lo..hi`` (integers) for ``target``."""
    goal = parse_target(target)
    result = TuneResult("x", "r", 0, 1, "Orc.hp", lo, hi, True, goal)
    evaluate = _Exact(duel, "Orc.hp", goal, 1, 0, lambda s: None, False)
    evaluate.shape = shape
    _search(evaluate, result)
    return result


def _said(result: TuneResult) -> str:
    return " ".join(tune_sentences(result))


def test_a_dip_between_two_consistent_ends_is_not_one_consistent_range(duel: Any) -> None:
    """(x − 10)² is 100 at both ends of 0..20 and 0 at 10: the consistent range was
    bisected from the value found towards the far end, which held the target, and came
    out as 0..20, the dip to 0 inside it."""
    result = _tuned(duel, lambda x: (x - 10) ** 2, "mean_rounds=100", 0, 20)
    assert result.consistent in ((0, 0), (20, 20))
    assert [tuple(c) for c in result.crossings] == [(0, 0, True), (20, 20, True)]
    assert result.turns() == [10] and result.monotone is False
    said = _said(result)
    assert "meets the target at 2 places (0; 20)" in said
    assert "--vary Orc.hp=0:10 or --vary Orc.hp=10:20" in said


def test_a_figure_that_rises_then_falls_gives_both_crossings(duel: Any) -> None:
    """A hump, 10 at 30 falling by 1 every 3 either side, crosses 5 at 15 and at 45: the
    tune gave one of them, and no word of the other."""
    result = _tuned(duel, lambda x: 10 - abs(x - 30) / 3, "mean_rounds=5", 0, 60)
    assert [tuple(c) for c in result.crossings] == [(15, 15, True), (45, 45, True)]
    assert result.value in (15, 45) and result.reachable
    assert result.consistent == (result.value, result.value)
    said = _said(result)
    assert "NOT monotone over the values of Orc.hp tried: mean_rounds turns near 30" in said
    assert "meets the target at 2 places (15; 45)" in said
    assert "--vary Orc.hp=0:30 or --vary Orc.hp=30:60" in said
    assert "simlab sweep SCENARIO --vary Orc.hp=0:60:6" in said
    assert "NOT monotone" in repr(result) and "2 places (15, 45)" in repr(result)
    doc = result.document()
    assert doc["turns"] == [30] and doc["monotone"] is False
    assert doc["crossings"] == [{"range": [15, 15], "consistent": True},
                                {"range": [45, 45], "consistent": True}]  # fmt: skip


def test_a_peak_the_grid_steps_over_is_found(duel: Any) -> None:
    """The hump peaks at 33, between the grid's 30 and 45, at 10: a target of 9.5 lies
    on it (from 31.5 to 34.5), but no grid value brackets it, and the tune said it was
    unreachable, closest at an end."""
    result = _tuned(duel, lambda x: 10 - abs(x - 33) / 3, "mean_rounds=9.5", 0, 60)
    assert result.reachable
    assert [tuple(c) for c in result.crossings] == [(31, 32, False), (34, 35, False)]
    assert result.value in (31, 32, 34, 35)
    assert "lies between Orc.hp=31 and 32" in _said(result) or "34 and 35" in _said(result)


def test_a_target_beyond_a_peak_gives_the_peak_not_an_end(duel: Any) -> None:
    """Above the hump's peak (10 at 33), the closest value is the peak: the tune gave
    the closer end, 60 (a figure of 1 against the peak's 10)."""
    result = _tuned(duel, lambda x: 10 - abs(x - 33) / 3, "mean_rounds=11", 0, 60)
    assert result.value == 33 and not result.reachable
    assert result.crossings == []
    said = _said(result)
    assert "meets the target at none of them" in said and "33, the closest" in said
    assert "unreachable, the closest figure reached is 10" in repr(result)
    assert "(exact), at Orc.hp=33" in repr(result)


def test_a_flat_stretch_that_is_the_consistent_range_is_said_once(duel: Any) -> None:
    """A figure capped at 10 from 10 up (a defense that caps damage): every value from
    10 to 20 gives the target, and the value found is only the middle of them. The
    answer's consistent range says so; a "Flat:" sentence would say it again."""
    result = _tuned(duel, lambda x: min(x, 10), "mean_rounds=10", 0, 20)
    assert result.monotone and result.consistent == (10, 20)
    assert result.flat_stretch() == (10, 20)
    assert "Flat:" not in _said(result) and result.caveats() == []
    assert result.document()["flat_stretch"] == [10, 20]


def test_a_flat_stretch_at_the_closest_end_says_a_wider_range_may_not_help(
    duel: Any,
) -> None:
    """Capped at 10, the figure never reaches 12: the closest end is 20, and widening
    the range past it, as "unreachable" invites, would change nothing. The value given
    is 10, where the cap begins: every value from 10 to 20 is as close."""
    result = _tuned(duel, lambda x: min(x, 10), "mean_rounds=12", 0, 20)
    assert not result.reachable and result.value == 10
    assert result.flat_stretch() == (10, 20)
    said = _said(result)
    assert "going from 10 to 20 changes nothing" in said
    assert "a range past 20 may not reach it either" in said


def test_a_flat_stretch_at_the_low_end_gives_where_it_begins(duel: Any) -> None:
    """A floor of 12 from 0 to 12, the figure rising beyond (the grid's 10 and 20
    bisected to where it starts to move): a target of 5 is given 12, not 0."""
    result = _tuned(duel, lambda x: max(x, 12), "mean_rounds=5", 0, 40)
    assert not result.reachable and result.value == 12
    assert result.flat_stretch() == (0, 12)
    assert "going from 12 to 0 changes nothing" in _said(result)


def test_a_turning_figure_flat_at_its_closest_end_gives_where_the_flat_begins(
    duel: Any,
) -> None:
    """Falling to 3 at 10, rising to 6 at 20, falling to 1 at 27 and flat from there to
    40: no value reaches 0, and of the values as close, 27 is the least change, where
    the tune gave the end, 40."""

    def zigzag(x: float) -> float:
        if x <= 10:
            return 10 - 0.7 * x
        if x <= 20:
            return 3 + 0.3 * (x - 10)
        return max(1.0, 6 - 5 * (x - 20) / 7)

    result = _tuned(duel, zigzag, "mean_rounds=0", 0, 40)
    assert result.turns() and not result.reachable
    assert result.value == 27 and result.flat_stretch() == (27, 40)


def test_a_monotone_figure_says_no_caveat(duel: Any) -> None:
    """A line rising without a turn: nothing to add to the answer."""
    result = _tuned(duel, lambda x: 2 * x + 1, "mean_rounds=21", 0, 20)
    assert result.monotone and result.caveats() == [] and result.turns() == []
    assert result.crossings and result.crossings[0].lo == 10


def test_the_plot_bands_every_place_consistent_with_the_target(duel: Any) -> None:
    """Only the consistent range of the value found was banded green: the other place
    where the figure meets the target was drawn as if it did not."""
    result = _tuned(duel, lambda x: 10 - abs(x - 30) / 3, "mean_rounds=5", 0, 60)
    fig, ax = plt.subplots()
    plot_tune(result, ax=ax)
    bands = sorted(p.get_x() for p in ax.patches)  # axvspan: a rectangle each
    plt.close(fig)
    assert bands == [14.5, 44.5]


@pytest.fixture(scope="module")
def evade() -> Any:
    return simlab.load(EVADE)


def test_the_evade_threshold_meets_a_time_to_down_twice_as_a_sweep_shows(evade: Any) -> None:
    """The Defender's time-to-down rises, then falls with its Evade threshold (spent on
    small hits, then on none): 11.5 rounds is met twice. The places the tune gives are
    where a sweep of every threshold, on the same dice, crosses 11.5."""
    n = 20_000
    found = simlab.tune(evade, f"{THRESHOLD}=1:11", "mean_time_to_down:Defender=11.5", n=n)
    swept = simlab.sweep(evade, {THRESHOLD: range(1, 12)}, n=n, exact=False)
    times = swept.combatants().query("combatant == 'Defender'")
    below = dict(zip(times[THRESHOLD], times.mean_time_to_down < 11.5, strict=True))
    crossings = [(x, x + 1) for x in range(1, 11) if below[x] != below[x + 1]]
    assert len(crossings) == 2
    nearest = min(crossings, key=lambda c: min(abs(c[0] - found.value), abs(c[1] - found.value)))
    said = _said(found)
    assert f"it lies between {THRESHOLD}={nearest[0]} and {nearest[1]}" in said
    assert [(c.lo, c.hi) for c in found.crossings] == crossings
    assert not any(c.consistent for c in found.crossings)
    assert "meets the target at 2 places" in said


def test_the_terminal_and_the_page_say_the_figure_turns(tmp_path: Path) -> None:
    """``simlab tune`` at 80 columns, ``tune.md`` and ``tune.json`` say it, with what to
    do, where they said only "NOT monotone" in the how line."""
    out = tmp_path / "out"
    with terminal_console(Console(width=80, record=True, force_terminal=False), 80) as shown:
        done = CliRunner().invoke(main, ["tune", str(EVADE), "--vary", f"{THRESHOLD}=1:11",
                                         "--target", "mean_time_to_down:Defender=11.5",
                                         "-n", "20000", "--out", str(out)])  # fmt: skip
        printed = shown.export_text()
    assert done.exit_code == 0, done.output
    text = " ".join(printed.split())
    assert "meets the target at 2 places" in text
    # the terminal names the file tuned, ready to copy; the page and the API, which may
    # not know it, say SCENARIO
    assert f"see the curve: simlab sweep {EVADE} --vary {THRESHOLD}=1:11" in text
    said = [line for line in printed.splitlines() if not line.startswith("wrote")]  # a path
    assert max(map(len, said)) <= 80
    page = " ".join((out / "tune.md").read_text().split())
    assert "meets the target at 2 places" in page
    assert f"simlab sweep SCENARIO --vary {THRESHOLD}=1:11" in page
    doc = json.loads((out / "tune.json").read_text())
    assert len(doc["crossings"]) == 2 and doc["turns"] and doc["caveats"]
