"""Rule-specific events (Shaken, unconscious, dead…) are reported as a rate and a time."""

from __future__ import annotations

import math

import pytest

from simlab.analysis.result import Result
from simlab.analysis.summary import summary
from simlab.engine.tallies import Layout, new_tallies


def result_with_events() -> Result:
    layout = Layout(sides=["a", "b"], combatants=[("a", "Ann"), ("b", "Bob")], attacks=["hit"],
                    events=["shaken", "dead"], max_rounds=5, damage_bins=4)  # fmt: skip
    t = new_tallies(layout)
    # 10 encounters. Bob: shaken in round 1 (2 encounters) and round 4 (2); dead never.
    t.event_round[1, 0, 1] = 2
    t.event_round[1, 0, 4] = 2
    t.winner[0] = 10
    t.rounds[5] = 10
    t.censor_round[:, 5] = 10
    return Result(scenario="s", rules="r", encounters=10, seed=0, layout=layout, tallies=t)


def test_event_rate_and_round_statistics() -> None:
    table = result_with_events().events()
    bob = table[(table.combatant == "Bob") & (table.event == "shaken")].iloc[0]
    assert bob.occurred == 4
    assert bob.rate == pytest.approx(0.4)
    assert bob.rate_ci95_lo < 0.4 < bob.rate_ci95_hi
    assert bob.mean_round_when_happened == pytest.approx(2.5)  # rounds 1, 1, 4, 4
    # population sd 1.5 over 4 encounters: half-width 1.96 * 1.5 / 2
    half = bob.mean_round_when_happened_ci95_hi - bob.mean_round_when_happened
    assert half == pytest.approx(1.959964 * 0.75, rel=1e-6)
    assert bob.median_round_when_happened == 1.0  # rounds 1, 1 | 4, 4: the lower middle
    never = table[(table.combatant == "Bob") & (table.event == "dead")].iloc[0]
    assert never.occurred == 0 and never.rate == 0.0
    assert math.isnan(never.mean_round_when_happened)
    assert math.isnan(never.median_round_when_happened)


def test_summary_lists_each_event_with_its_time() -> None:
    bob = summary(result_with_events())["combatants"][1]
    shaken = bob["events"]["shaken"]
    assert shaken["rate"] == pytest.approx(0.4)
    assert shaken["time"]["pmf"] == {"1": 0.2, "4": 0.2}
    assert bob["events"]["dead"]["time"]["median_when_happened"] is None


def test_an_events_time_says_what_its_pmf_sums_to_and_what_its_mean_is_over() -> None:
    """Kaito's ``out`` pmf summed to the rate (0.86) while ``mean`` (7.19) was over the
    encounters it happened in: the mean worked out of the pmf (6.18) disagreed. The pmf
    is over all encounters; the mean and median are named as over only those in which
    it happened, and the mean is the pmf's mean divided by the rate."""
    shaken = summary(result_with_events())["combatants"][1]["events"]["shaken"]
    time, rate = shaken["time"], shaken["rate"]
    assert set(time) == {"unit", "pmf", "mean_when_happened", "median_when_happened"}
    assert math.fsum(time["pmf"].values()) == pytest.approx(rate)  # 0.4, not 1
    worked_out = math.fsum(int(r) * p for r, p in time["pmf"].items()) / rate
    assert time["mean_when_happened"] == pytest.approx(worked_out) == pytest.approx(2.5)
    assert time["median_when_happened"] == 1.0
