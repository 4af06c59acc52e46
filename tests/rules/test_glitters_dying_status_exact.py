"""glitters-d20: a player character that goes down while Bleeding and Burning — its
status damage, its Down round and its ``stable`` and ``dead`` rounds — against an exact
chain.

An Ogre attacks the Hero, a player character (no attacks of its own), with a slashing
axe (main hand) and a fire torch (offhand) each turn, until it is down; a hit that
leaves the Hero standing adds a level of Bleeding (the axe) or Burning (the torch)
(docs/rules/glitters-d20.md, "A turn", "An attack"). At the start of the Hero's turn,
while it stands, Bleeding L deals L and drops to L − 1, then Burning deals 1d4 fire
damage and loses 1 level (``burning_decay``); either tick can Down it. Once down the
statuses stop ticking (the readings: statuses "stop once it is down"): under
``permadeath`` the dying Hero only rolls its death save on each of its turns — a natural
20 stable at once, 10–19 a save, 1–9 a fail; three saves stable, three fails dead ("HP
0"). A Squire on the Hero's side (never attacking, hit only on a natural 20) keeps the
fight going to the round cap. Turn order is fixed for the encounter ("Turn order"); both
orders are played. Status damage is what the ticks deal, counted toward time-to-down
("Time-to-down"); a tick that takes the Hero past 0 HP counts in full (HP stop at 0,
the damage dealt does not).

The chain's state: (standing: damage taken, Bleeding, Burning; or dying: saves, fails;
or stable / dead) and the status damage so far.

False alarms. Fixed seeds, so each test always passes or always fails. The Down round
and each event's round (plus the never cell) by a chi-square test at p > 1e-4 (cells
with expected count < 5 merged); status damage, a per-encounter sum kept per batch,
within k = 4.5 standard errors of the chain's mean (σ² its variance) and its 32
standardised batch means against χ²(32) at p > 1e-4
(:func:`tests.chains.per_encounter_verdict`). Two runs, five comparisons each:
family-wise false-alarm rate ≲ 1e-3.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    P_MIN,
    State,
    assert_rounds_match,
    combatant_index,
    dice_pmf,
    glitters_attack,
    outcomes,
    per_encounter_verdict,
    step_all,
)
from tests.support import K_SIGMA

N = 40_000
SEED = 3141
ROUNDS = 10
HERO_HP = 14

SCENARIO = """
scenario: gds-{name}
rules: glitters-d20
max_rounds: 10
attacks:
  axe: {{damage: 1d4, type: slashing, bonus: 3}}
  torch: {{damage: 1d4, type: fire, bonus: 2, hand: offhand}}
sides:
  party:
    - {{name: Hero, player: true, hp: 14, dc: 12, initiative: {hero_init}}}
    - {{name: Squire, hp: 100000, dc: 30}}
  ogre:
    - {{name: Ogre, hp: 100000, initiative: {ogre_init}, attacks: [axe, torch]}}
"""

#: case → the Hero acts first
CASES = {"ogre-first": False, "hero-first": True}

UP, DYING, STABLE, DEAD = range(4)
#: a death save: (probability, saves added, fails added, stable at once)
SAVES = ((1 / 20, 1, 0, True), (10 / 20, 1, 0, False), (9 / 20, 0, 1, False))


def text_of(name: str) -> str:
    """Case ``name``'s scenario: initiative +50 against +0 on a d20 decides who is
    first in every encounter."""
    hero_first = CASES[name]
    return SCENARIO.format(name=name, hero_init=50 if hero_first else 0,
                           ogre_init=0 if hero_first else 50)  # fmt: skip


@functools.cache
def chain(name: str, tick_while_down: bool = False) -> dict[str, np.ndarray]:
    """P(the Hero is down / stable / dead in round r), and P(it takes t status damage).

    States: (UP, damage, Bleeding, Burning, status damage), (DYING, saves, fails, status
    damage), (STABLE or DEAD, round, status damage). ``tick_while_down`` (not the rules:
    a perturbation the tests must notice) lets the statuses of a dying Hero go on
    ticking.
    """
    hero_first = CASES[name]
    # the axe and torch against MIT 12 (no Parry, no armor); STR 10: ASM 0
    axe = outcomes(glitters_attack(3, 12, 1, 4, 0))
    torch = outcomes(glitters_attack(2, 12, 1, 4, 0))
    d4 = outcomes(dice_pmf(1, 4))
    out = {k: np.zeros(ROUNDS + 1) for k in ("down", "stable", "dead")}

    def hit(s: State, attack: list[tuple[float, int]], level: int) -> list[tuple[float, State]]:
        """An Ogre attack at the standing Hero; ``level``: the status field it adds to."""
        if s[0] != UP:
            return [(1.0, s)]
        moves: list[tuple[float, State]] = []
        for p, d in attack:
            if s[1] + d >= HERO_HP:
                moves.append((p, (DYING, 0, 0, s[4], s[2], s[3])))
            else:
                t = list(s)
                t[1] += d
                t[level] += d > 0
                moves.append((p, tuple(t)))
        return moves

    def ticks(s: State) -> list[tuple[float, State]]:
        """Bleeding, then Burning, at the start of a standing Hero's turn."""
        kind, taken, bleeding, burning, status = s[:5]
        if bleeding:
            taken, status, bleeding = taken + bleeding, status + bleeding, bleeding - 1
            if taken >= HERO_HP:
                return [(1.0, (DYING, 0, 0, status, bleeding, burning))]
        if not burning:
            return [(1.0, (kind, taken, bleeding, burning, status))]
        moves: list[tuple[float, State]] = []
        for p, d in d4:
            if taken + d >= HERO_HP:
                moves.append((p, (DYING, 0, 0, status + d, bleeding, burning - 1)))
            else:
                moves.append((p, (kind, taken + d, bleeding, burning - 1, status + d)))
        return moves

    def dying_ticks(s: State) -> list[tuple[float, State]]:
        """The perturbation: a dying Hero's statuses tick too (no effect on its HP)."""
        _, saves, fails, status, bleeding, burning = s
        status, bleeding = status + bleeding, max(bleeding - 1, 0)
        if not burning:
            return [(1.0, (DYING, saves, fails, status, bleeding, burning))]
        return [(p, (DYING, saves, fails, status + d, bleeding, burning - 1)) for p, d in d4]

    def hero(s: State, r: int) -> list[tuple[float, State]]:
        if s[0] == UP:
            return ticks(s)
        if s[0] != DYING:
            return [(1.0, s)]
        moves: list[tuple[float, State]] = []
        for q, t in dying_ticks(s) if tick_while_down else [(1.0, s)]:
            for p, save, fail, at_once in SAVES:
                saves, fails = t[1] + save, t[2] + fail
                if at_once or saves == 3:
                    moves.append((p * q, (STABLE, r, t[3])))
                elif fails == 3:
                    moves.append((p * q, (DEAD, r, t[3])))
                else:
                    moves.append((p * q, (DYING, saves, fails, *t[3:])))
        return moves

    def ogre(s: State) -> list[tuple[float, State]]:
        return [(p * q, u) for p, t in hit(s, axe, 2) for q, u in hit(t, torch, 3)]

    states: dict[State, float] = {(UP, 0, 0, 0, 0): 1.0}
    for r in range(1, ROUNDS + 1):
        standing = sum(p for s, p in states.items() if s[0] == UP)
        turns = [functools.partial(hero, r=r), ogre]
        for turn in turns if hero_first else turns[::-1]:
            states = step_all(states, turn)
        out["down"][r] = standing - sum(p for s, p in states.items() if s[0] == UP)
        for event, kind in (("stable", STABLE), ("dead", DEAD)):
            out[event][r] = sum(p for s, p in states.items() if s[:2] == (kind, r))
    status = np.zeros(ROUNDS * ROUNDS)
    for s, p in states.items():
        status[s[4] if s[0] == UP else s[3] if s[0] == DYING else s[2]] += p
    out["status"] = status
    return out


def moments(pmf: np.ndarray) -> tuple[float, float]:
    """Mean and variance of ``pmf`` (values 0, 1, …)."""
    values = np.arange(len(pmf))
    mean = float(values @ pmf)
    return mean, float(((values - mean) ** 2) @ pmf)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_dying_hero_statuses_match_the_chain(name: str) -> None:
    """The Hero's status damage per encounter, its Down round and its ``stable`` and
    ``dead`` rounds match the chain."""
    scn = simlab.loads(text_of(name), f"{name}.yaml")
    assert scn.max_rounds == ROUNDS
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    exact = chain(name)
    h = combatant_index(res, "Hero")
    assert_rounds_match(N, res.tallies.down_round[h], exact["down"], f"{name} down")
    for event in ("stable", "dead"):
        hist = res.tallies.event_round[h, res.layout.events.index(event)]
        assert_rounds_match(N, hist, exact[event], f"{name} {event}")
    mean, var = moments(exact["status"])
    z, p = per_encounter_verdict(res.tallies.status_damage[h], N, mean, var)
    assert abs(z) <= K_SIGMA and p > P_MIN, (name, z, p, mean)


def test_dying_status_cases_are_not_trivial() -> None:
    """Guard: the Hero is down in most encounters after a few rounds, both events are
    common, status damage varies; and statuses ticking on while it is down would raise
    the status damage by many standard errors."""
    for name in CASES:
        exact = chain(name)
        assert exact["down"].sum() > 0.9 and exact["down"].max() < 0.5
        assert 0.2 < exact["stable"].sum() < 0.8 and 0.1 < exact["dead"].sum() < 0.6
        mean, var = moments(exact["status"])
        assert exact["status"].max() < 0.5 and var > 1
        ticking, _ = moments(chain(name, tick_while_down=True)["status"])
        assert ticking - mean > 20 * np.sqrt(var / N), (name, ticking, mean)
