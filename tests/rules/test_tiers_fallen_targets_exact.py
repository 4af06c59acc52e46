"""opposed-tiers ``target_fallen: false`` and ``npcs_fall_out: false`` against an exact
chain.

docs/rules/opposed-tiers.md, "Health and conditions": at Health ≤ 0 a combatant is
falling (down), at ≤ −⌈Vigor/2⌉ unconscious, below −Vigor dead. By default an NPC is out
as soon as it falls; a fallen player character stops taking turns but stays a target
until it is unconscious, then it is out. "Parameters": ``target_fallen: false`` — enemies
no longer attack a fallen character, so it is out when it falls; ``npcs_fall_out:
false`` — NPCs follow the player-character rules. An encounter ends as soon as at most
one side has anyone still taking turns. "An attack", Novices without gear:
:func:`tests.chains.tiers_attack`.

A (weapon SL 1, an axe with damage modifier +1, ``focus``) attacks once a round; side b
has D (HP 8, Vigor 7, defense SL 2) listed first and a Bystander (HP 6, Vigor 7,
defense SL 2), neither with attacks. A attacks D while D is a target, then the
Bystander, whose fall ends the encounter. Either D *stays* a target after falling (a
player by default; an NPC under ``npcs_fall_out: false``) and leaves when unconscious,
or it *leaves* when it falls (an NPC by default; a player under ``target_fallen:
false``; an NPC with both false). D's unconscious and dead events past the threshold
that takes it out come only from the attack that takes it out overshooting. The
Bystander falls at the attack D's leaving needs plus the attacks its own fall needs.

False alarms. Fixed seed, so each test always passes or always fails. Per case, five
round histograms (D's down, out, unconscious and dead, the Bystander's down), each with
its never cell, by chi-square (cells expecting fewer than 5 merged) at p > 1e-4: 15
comparisons, family-wise false-alarm rate ≲ 1.5e-3. The guard shows each non-default
value moves D's unconscious rate by more than 0.3 (standard error below 0.0025 at N =
40,000) and the Bystander's mean down round by more than 1.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import simlab
from tests.chains import (
    assert_rounds_match,
    attacks_to_reach,
    event_rounds,
    mean_round,
    tiers_attack,
)

N = 40_000
SEED = 3907
ROUNDS, HP, VIGOR, BYSTANDER_HP = 14, 8, 7, 6

SCENARIO = """
scenario: otf-{name}
rules: opposed-tiers
max_rounds: {rounds}
params: {params}
attacks: {{axe: {{damage_modifier: 1}}}}
sides:
  a: [{{name: A, hp: 10, vigor: 7, weapon_sl: 1, attacks: [axe]}}]
  b:
    - {{name: D, player: {player}, hp: {hp}, vigor: {vigor}, defense_sl: 2}}
    - {{name: Bystander, hp: {bystander}, vigor: 7, defense_sl: 2}}
"""

#: case → (params, D a player, whether D stays a target after falling)
CASES: dict[str, tuple[str, bool, bool]] = {
    "player-default": ("{}", True, True),
    "player-target-fallen-false": ("{target_fallen: false}", True, False),
    "npc-default": ("{}", False, False),
    "npc-fall-out-false": ("{npcs_fall_out: false}", False, True),
    "npc-both-false": ("{npcs_fall_out: false, target_fallen: false}", False, False),
}


def text(name: str) -> str:
    params, player, _ = CASES[name]
    return SCENARIO.format(name=name, rounds=ROUNDS, params=params, player=str(player).lower(),
                           hp=HP, vigor=VIGOR, bystander=BYSTANDER_HP)  # fmt: skip


@functools.cache
def chain(stays: bool) -> dict[str, np.ndarray]:
    """P(each event first happens in round r), r = 0..ROUNDS (one attack a round, so
    attack k is in round k)."""
    axe = tiers_attack(1, 2, 1)
    need = {"down": HP, "unconscious": HP + math.ceil(VIGOR / 2), "dead": HP + VIGOR + 1}
    leave = need["unconscious"] if stays else need["down"]
    out = {event: attacks_to_reach(leave, [axe], ROUNDS, overshoot_to=n) if n >= leave
           else attacks_to_reach(n, [axe], ROUNDS) for event, n in need.items()}  # fmt: skip
    out["out"] = out["unconscious"] if stays else out["down"]
    bystander = attacks_to_reach(BYSTANDER_HP, [axe], ROUNDS)
    out["bystander"] = np.convolve(out["out"], bystander)[: ROUNDS + 1]
    return out


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_fallen_targets_match_the_chain(name: str) -> None:
    """D's down, out, unconscious and dead rounds and the Bystander's down round match
    the chain; A is never touched."""
    res = simlab.simulate(simlab.loads(text(name), f"{name}.yaml"), n=N, seed=SEED, threads=1)
    exact = chain(CASES[name][2])
    names = [m for _, m in res.layout.combatants]
    tallied = {e: event_rounds(res, "D", e) for e in ("out", "unconscious", "dead")}
    tallied["down"] = res.tallies.down_round[names.index("D")]
    tallied["bystander"] = res.tallies.down_round[names.index("Bystander")]
    for what, pmf in exact.items():
        assert_rounds_match(N, tallied[what], pmf, f"{name} {what}")
    assert res.tallies.down_round[names.index("A")].sum() == 0


def test_fallen_targets_are_not_trivial() -> None:
    """Guard: every event happens in some encounters; staying a target after falling
    (the player default, ``npcs_fall_out: false``) against leaving at the fall (the NPC
    default, ``target_fallen: false``) moves D's unconscious rate by more than 0.3 and
    the Bystander's mean down round by more than 1."""
    stays, leaves = chain(True), chain(False)
    for exact in (stays, leaves):
        for pmf in exact.values():
            assert 0.01 < pmf.sum() < 1
        assert exact["bystander"].sum() > 0.5
    assert stays["unconscious"].sum() - leaves["unconscious"].sum() > 0.3
    assert mean_round(stays["bystander"]) - mean_round(leaves["bystander"]) > 1
