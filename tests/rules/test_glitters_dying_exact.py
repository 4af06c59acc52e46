"""glitters-d20: a player character dying during the fight — its Down round and the
``stable`` and ``dead`` events — against an exact chain.

An Ogre (one club attack a turn, no status) attacks the Hero, a player character, until
it is down; the Hero makes no attacks. Under ``permadeath`` the downed Hero is dying:
it rolls a death save on each of its own turns — a natural 20 stable at once, 10–19 a
save, 1–9 a fail; three saves stable, three fails dead — and does nothing else
(docs/rules/glitters-d20.md, "A turn", "HP 0"). Turn order is fixed for the encounter
("Turn order"), so the Hero's first save falls in the round of its Down when the Ogre
acts first and in the next round when the Hero does.

With a Squire on the Hero's side (never attacking, and hit only on a natural 20), the
party still stands and the fight goes on while the Hero saves, to the round cap. Alone,
the Hero's Down ends the fight at once, and the saves go on after it, one a round from
the next round (``death_saves_after_fight``; docs/rules/glitters-d20.md, the readings:
"the death save after the fight starts the round after the fight's last round") — or
not at all when that parameter is off. Under ``death_rules: modern`` a downed player
character is simply out: no saves, no events. The chain's state: (damage taken while
standing; saves and fails while dying), stepped by turns in order.

False alarms. Fixed seeds, so each test always passes or always fails. The Down round
and each event's round (plus the never cell) by a chi-square test at p > 1e-4 (cells
with expected count < 5 merged); an event the rules rule out must never be counted.
Five runs, 15 comparisons: family-wise false-alarm rate ≲ 1.5e-3.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    State,
    assert_rounds_match,
    combatant_index,
    dice_pmf,
    outcomes,
    shifted,
    step_all,
)

N = 40_000
SEED = 6502
ROUNDS = 12
HERO_HP = 9

SCENARIO = """
scenario: gdx-{name}
rules: glitters-d20
max_rounds: 12
params: {params}
attacks:
  club: {{damage: 1d6, type: bludgeoning, bonus: 3}}
sides:
  party:
    - {{name: Hero, player: true, hp: 9, dc: 12, initiative: {hero_init}}}
{squire}  ogre:
    - {{name: Ogre, hp: 100000, initiative: {ogre_init}, attacks: [club]}}
"""
SQUIRE = "    - {name: Squire, hp: 100000, dc: 30}\n"

#: case → (params, the Hero acts first, a Squire stands with it)
CASES = {
    "ogre-first": ("{}", False, True),
    "hero-first": ("{}", True, True),
    "alone": ("{}", False, False),
    "alone-no-saves-after": ("{death_saves_after_fight: false}", False, False),
    "modern": ("{death_rules: modern}", False, True),
}


def text_of(name: str) -> str:
    """Case ``name``'s scenario: initiative +50 against +0 on a d20 decides who is
    first in every encounter."""
    params, hero_first, squire = CASES[name]
    return SCENARIO.format(name=name, params=params, squire=SQUIRE if squire else "",
                           hero_init=50 if hero_first else 0,
                           ogre_init=0 if hero_first else 50)  # fmt: skip


def club() -> np.ndarray:
    """The club's damage against the Hero (docs/rules/glitters-d20.md, "An attack"): a
    natural 20 a critical (6 + 1d6), else natural + 3 ≥ MIT 12 hits for 1d6; STR 10,
    ASM 0."""
    p_hit = sum(1 for n in range(1, 20) if n + 3 >= 12) / 20
    out = np.zeros(13)
    out[0] = 1 - p_hit - 1 / 20
    out[:7] += p_hit * dice_pmf(1, 6)
    out += shifted(dice_pmf(1, 6), 6)[:13] / 20
    return out


UP, DYING, STABLE, DEAD, OUT = range(5)
#: a death save: (probability, saves added, fails added, stable at once)
SAVES = ((1 / 20, 1, 0, True), (10 / 20, 1, 0, False), (9 / 20, 0, 1, False))


@functools.cache
def chain(name: str) -> dict[str, np.ndarray]:
    """P(the Hero is down / stable / dead in round r), r = 0..12.

    State: (UP, damage taken), (DYING, saves, fails, round of the Down), (STABLE or
    DEAD, round) or (OUT,). Each round, the two turns in initiative order: the Ogre's
    club while the Hero stands; the Hero's death save while it is dying — during the
    fight when a Squire holds the field, else (the Down ended the fight) from the round
    after the Down, and only if saves go on after the fight.
    """
    params, hero_first, squire = CASES[name]
    permadeath = "modern" not in params
    saves_after = "death_saves_after_fight: false" not in params
    hits = outcomes(club())
    out = {k: np.zeros(ROUNDS + 1) for k in ("down", "stable", "dead")}
    states: dict[State, float] = {(UP, 0): 1.0}
    for r in range(1, ROUNDS + 1):

        def ogre(s: State, r: int = r) -> list[tuple[float, State]]:
            if s[0] != UP:
                return [(1.0, s)]
            return [(p, (UP, s[1] + d) if s[1] + d < HERO_HP
                     else (DYING, 0, 0, r) if permadeath else (OUT,))
                    for p, d in hits]  # fmt: skip

        def hero(s: State, r: int = r) -> list[tuple[float, State]]:
            if s[0] != DYING or not (squire or (saves_after and s[3] < r)):
                return [(1.0, s)]
            moves: list[tuple[float, State]] = []
            for p, save, fail, at_once in SAVES:
                saves, fails = s[1] + save, s[2] + fail
                if at_once or saves == 3:
                    moves.append((p, (STABLE, r)))
                elif fails == 3:
                    moves.append((p, (DEAD, r)))
                else:
                    moves.append((p, (DYING, saves, fails, s[3])))
            return moves

        standing = sum(p for s, p in states.items() if s[0] == UP)
        for turn in (hero, ogre) if hero_first else (ogre, hero):
            states = step_all(states, turn)
        out["down"][r] = standing - sum(p for s, p in states.items() if s[0] == UP)
        for event, kind in (("stable", STABLE), ("dead", DEAD)):
            out[event][r] = states.get((kind, r), 0.0)
    return out


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_dying_hero_matches_the_chain(name: str) -> None:
    """The Hero's Down round and its ``stable`` and ``dead`` rounds match the chain."""
    scn = simlab.loads(text_of(name), f"{name}.yaml")
    assert scn.max_rounds == ROUNDS
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    exact = chain(name)
    h = combatant_index(res, "Hero")
    assert_rounds_match(N, res.tallies.down_round[h], exact["down"], f"{name} down")
    for event in ("stable", "dead"):
        hist = res.tallies.event_round[h, res.layout.events.index(event)]
        assert_rounds_match(N, hist, exact[event], f"{name} {event}")


def test_dying_cases_are_not_trivial() -> None:
    """Guard: the Hero is down in most encounters after a few rounds; with saves both
    events are common yet some Heroes are still dying at the cap; the order of turns,
    and whether the fight goes on, move the events' rounds."""

    def mean(pmf: np.ndarray) -> float:
        return float(np.arange(len(pmf)) @ pmf) / pmf.sum()

    for name in CASES:
        exact = chain(name)
        assert exact["down"].sum() > 0.95 and exact["down"].max() < 0.5
        assert 2 < mean(exact["down"]) < 8
    for name in ("ogre-first", "hero-first", "alone"):
        exact = chain(name)
        assert 0.3 < exact["stable"].sum() < 0.7 and 0.15 < exact["dead"].sum() < 0.5
        assert exact["stable"].sum() + exact["dead"].sum() < 0.99
    ogre_first, hero_first, alone = (
        mean(chain(n)["dead"]) for n in ("ogre-first", "hero-first", "alone")
    )
    assert hero_first - ogre_first > 0.5 and alone - ogre_first > 0.5
    for name in ("alone-no-saves-after", "modern"):
        assert chain(name)["stable"].sum() == chain(name)["dead"].sum() == 0
