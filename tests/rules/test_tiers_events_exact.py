"""opposed-tiers events — ``out``, ``unconscious``, ``dead`` — against an exact chain.

A player character's conditions are thresholds of the damage it has taken
(docs/rules/opposed-tiers.md, "Health and conditions"): falling at Health ≤ 0,
unconscious at Health ≤ −⌈Vigor/2⌉, dead below −Vigor. When the attacks it receives
are independent of one another and it stays a target until it leaves the fight, the
running damage is a Markov chain stepped once per attack (:func:`tests.chains.
attacks_to_reach`), and each event's round is the round of the attack at which the
running total first reaches its threshold, provided that attack is still made. Two
cases, each with Novices and no gear (attack damage: :func:`tests.chains.tiers_attack`),
and each again with one threshold parameter away from its default:

* ``fight-on`` (``fallen_fight_on: true``), a duel: the fallen character keeps taking
  turns, so the fight goes on and it is attacked until it is unconscious, which takes
  it out and ends the encounter; it is dead only when that same attack overshoots.
* ``finish-off`` (``target_unconscious: true``, two attacks a turn), with an idle
  bystander on its side to keep the fight going: the attacker's focus stays on it while
  it is a target, through falling and unconsciousness, until it is dead, which is when
  it is out.
* ``fight-on-round-down`` (``unconscious_rounding: down``): the duel again; Vigor 7 is
  odd, so unconsciousness comes at −⌊7/2⌋ = −3 instead of −4, one damage sooner.
* ``finish-off-minus-vigor`` (``dead_at: minus_vigor``): finished off again; dead at
  Health −7 itself instead of below it, one damage sooner.

False alarms. Fixed seed, so each test always passes or always fails. Each event's
round histogram (plus the never cell) by a chi-square test (cells with expected count
< 5 merged) at p > 1e-4; four events × four cases. A guard shows each non-default reading
moves its event's rate by many standard errors, so its case is not the default's again.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import simlab
from tests.chains import (
    P_MIN,
    attack_rounds,
    attacks_to_reach,
    tiers_attack,
)
from tests.support import chi_square_p

N = 40_000
SEED = 2718

HP, VIGOR = 8, 7

SCENARIO = """
scenario: ote-{name}
rules: opposed-tiers
max_rounds: {cap}
params: {params}
attacks: {{axe: {{damage_modifier: 1}}}}
sides:
  a: [{{name: A, hp: 10, weapon_sl: 1, attacks: [axe]}}]
  b:
    - {{name: D, player: true, hp: {hp}, vigor: {vigor}, defense_sl: 2}}
"""

#: case → (params, round cap, attacks per turn, a bystander on D's side, the event that
#: takes D out, (unconscious_rounding, dead_at) as the chain reads them)
CASES = {
    "fight-on": ("{fallen_fight_on: true}", 5, 1, False, "unconscious", ("up", "below")),
    "finish-off": ("{target_unconscious: true, attacks_per_turn: 2}", 4, 2, True, "dead",
                   ("up", "below")),
    "fight-on-round-down": ("{fallen_fight_on: true, unconscious_rounding: down}", 5, 1, False,
                            "unconscious", ("down", "below")),
    "finish-off-minus-vigor": ("{target_unconscious: true, attacks_per_turn: 2, "
                               "dead_at: minus_vigor}", 4, 2, True, "dead", ("up", "minus_vigor")),
}  # fmt: skip


def thresholds(rounding: str, dead_at: str) -> dict[str, int]:
    """Damage taken at which each condition is reached: Health ≤ 0 falling; unconscious at
    ≤ −⌈V/2⌉ (``rounding`` up) or ≤ −⌊V/2⌋ (down); dead at < −V (``dead_at`` below) or
    ≤ −V (minus_vigor)."""
    half = math.ceil(VIGOR / 2) if rounding == "up" else math.floor(VIGOR / 2)
    dead = VIGOR + 1 if dead_at == "below" else VIGOR
    return {"down": HP, "unconscious": HP + half, "dead": HP + dead}


def event_rounds(case: str) -> dict[str, np.ndarray]:
    """P(each of down, unconscious, dead, out first happens in round r), r = 0..cap.

    An event whose threshold lies beyond the one that takes the defender out happens
    only when the attack that takes it out reaches it too (no attack follows)."""
    _, cap, per_turn, _, out_event, readings = CASES[case]
    axe = tiers_attack(1, 2, 1)
    steps = attack_rounds([per_turn], cap)
    need_for = thresholds(*readings)
    limit = need_for[out_event]
    out: dict[str, np.ndarray] = {}
    for event, need in need_for.items():
        by_attack = attacks_to_reach(need, [axe], steps)
        if need > limit:  # reached only by the attack that takes it out: the joint chain
            by_attack = attacks_to_reach(limit, [axe], steps, overshoot_to=need)
        out[event] = by_attack_to_rounds(by_attack, per_turn, cap)
    out["out"] = out[out_event]
    return out


def by_attack_to_rounds(by_attack: np.ndarray, per_turn: int, cap: int) -> np.ndarray:
    """Sum a per-attack pmf into rounds of ``per_turn`` attacks: index 0..cap."""
    rounds = np.zeros(cap + 1)
    for k in range(1, len(by_attack)):
        rounds[(k - 1) // per_turn + 1] += by_attack[k]
    return rounds


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.kernels
def test_fall_unconscious_dead_and_out_match_the_chain(case: str) -> None:
    """The defender's time-to-down and each event's round match the chain."""
    params, cap, _, bystander, _, _ = CASES[case]
    text = SCENARIO.format(name=case, cap=cap, params=params, hp=HP, vigor=VIGOR)
    if bystander:
        text += "    - {name: Bystander, hp: 100000}\n"
    res = simlab.simulate(simlab.loads(text, f"{case}.yaml"), n=N, seed=SEED, threads=1)
    exact = event_rounds(case)
    events = res.layout.events
    tallied = {e: res.tallies.event_round[1, events.index(e)] for e in events}
    tallied["down"] = res.tallies.down_round[1]
    for event, pmf in exact.items():
        hist = tallied[event]
        assert hist[0] == 0, (case, event)
        observed = np.append(hist[1:], N - hist.sum())
        expected = np.append(pmf[1:], 1 - pmf.sum())
        assert np.all(observed[expected == 0] == 0), (case, event, observed)
        assert chi_square_p(observed, expected) > P_MIN, (case, event, observed, expected * N)


def test_event_cases_are_not_trivial() -> None:
    """Guard: every event happens in some but not all encounters, and dead is rare in
    the duel (only by overshooting) but common when the defender is finished off."""
    duel, finish = event_rounds("fight-on"), event_rounds("finish-off")
    for rounds in (duel, finish):
        for pmf in rounds.values():
            assert 0.01 < pmf.sum() < 0.99
    assert duel["dead"].sum() < duel["unconscious"].sum() - 0.2 < finish["dead"].sum()


@pytest.mark.parametrize(
    ("reading", "default", "event"),
    [("fight-on-round-down", "fight-on", "unconscious"),
     ("finish-off-minus-vigor", "finish-off", "dead")],
)  # fmt: skip
def test_threshold_readings_change_the_answer(reading: str, default: str, event: str) -> None:
    """Guard: the non-default reading makes its event more likely than the default does,
    by more than 10 standard errors of a rate at N encounters (σ ≤ 0.5/√N), and by at
    least as much in each round so far (the threshold is one damage sooner)."""
    new, old = event_rounds(reading)[event], event_rounds(default)[event]
    assert new.sum() - old.sum() > 10 * 0.5 / math.sqrt(N), (new.sum(), old.sum())
    assert np.all(np.cumsum(new) >= np.cumsum(old) - 1e-12)
