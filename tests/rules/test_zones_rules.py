"""zones-3d6 checked roll by roll against docs/rules/zones-3d6.md (seed 004, "Combat").

Each scenario below is simulated once with ``trace=True``. A reference model written
here from docs/rules/zones-3d6.md and the parameter readings documented in
``simlab/rules/zones_3d6/model.py`` replays every traced attack from its recorded dice
(attack, Evasion and damage dice, initiative): it predicts the kept and adjusted dice,
both totals, hit or miss, base and bonus damage, damage, the defender's HP and whether
it is out, the targets, the number of attacks per turn and the turn order, and compares
each with what the simulator recorded. Nothing but the recorded dice and the model's
own bookkeeping is used to compute an expectation.

The worked examples of the rule text are checked on rows whose dice match them.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest

import simlab
from simlab.rules.zones_3d6.kernels import apply_edge, apply_pressure
from tests.rules.trace_encounters import encounters
from tests.support import combatants, first_turns, rows_of, simulate_traced

K_SIGMA = 4.5

MIXED = """
scenario: zr-mixed
rules: zones-3d6
max_rounds: 6
attacks:
  longsword: {damage: 1d6+3, bonus: 1, edge: 1}
  jab: {damage: 1d4, pressure: 1}
  lucky: {damage: 2d6+1d4-1, advantage: 1, edge: 2, pressure: 1}
  clumsy: {damage: 1d6, disadvantage: 1, bonus: 2}
  even: {damage: 1d4, advantage: 1, disadvantage: 1, edge: 1, pressure: 1}
sides:
  heroes:
    - {name: Fighter, hp: 12, initiative: 2, bonus_damage: 1, attacks: [longsword, jab],
       attacks_per_turn: 2, base_defense: [3, 4], bonus_defense: 1}
    - {name: Rogue, hp: 6, attacks: [lucky, clumsy], target: lowest-hp, evasion: 1,
       evasion_edge: 1}
  foes:
    - {name: Goblin, count: 3, hp: 4, attacks: [jab, even], target: random,
       evasion_advantage: 1, evasion_pressure: 2}
    - {name: Ogre, hp: 15, attacks: [clumsy], initiative: -2, evasion_disadvantage: 1,
       bonus_defense: 2, base_defense: [1], attacks_per_turn: 1}
"""

# Every parameter away from its default; a small initiative die makes ties common.
PARAMS = """
scenario: zr-params
rules: zones-3d6
max_rounds: 5
params: {edges_stack: false, edge_pressure_cancel: false, pressure: total, advantage_dice: 3,
         bonus_defense_floor: false, minimum_damage: 0, initiative_die: 3,
         initiative_ties: listed, major_actions: 5, attack_cost: 2}
attacks:
  stab: {damage: 1d6+1, edge: 2, pressure: 1, advantage: 1}
  bash: {damage: 2d4-1, disadvantage: 2, pressure: 3}
  zap: {damage: 3, edge: 1}
sides:
  a:
    - {name: A1, hp: 9, attacks: [stab, bash], attacks_per_turn: 3, base_defense: [2, 6],
       bonus_defense: 3}
    - {name: A2, hp: 0, attacks: [zap], evasion_edge: 3, evasion_pressure: 1}
  b:
    - {name: B1, hp: 8, initiative: 1, attacks: [bash], evasion_advantage: 2,
       bonus_defense: -1}
    - {name: B2, hp: 5, attacks: [stab, zap], target: lowest-hp, evasion: -2,
       evasion_pressure: 2, base_defense: [1, 2, 3, 4]}
  c:
    - {name: C1, count: 2, hp: 3, attacks: [zap], target: random}
"""

# The text's worked examples: edge on 2, 4, 5 (+1 bonus), and the longsword (1d6+3,
# +1 Vigor) against Base Defense 3, 4 with +1 Bonus Defense; plus minimum damage.
WORKED = """
scenario: zr-worked
rules: zones-3d6
max_rounds: 3
attacks:
  regular: {damage: 1d6+3, bonus: 1, edge: 1}
  tickle: {damage: 1d4}
sides:
  fighter:
    - {name: Fighter, hp: 100000, bonus_damage: 1, attacks: [regular]}
  knight:
    - {name: Knight, hp: 100000, base_defense: [3, 4], bonus_defense: 1}
  turtle:
    - {name: Turtle, hp: 100000, attacks: [tickle], target: lowest-hp}
  shell:
    - {name: Shell, hp: 99, base_defense: [1, 2, 3, 4], bonus_defense: 5}
"""

SCENARIOS = {"mixed": (MIXED, 800, 11), "params": (PARAMS, 800, 12), "worked": (WORKED, 400, 13)}


@functools.cache
def traced(name: str) -> tuple[Any, pd.DataFrame]:
    """The scenario ``name`` and the trace of its run (simulated once per session)."""
    return simulate_traced(name, *SCENARIOS[name])


@pytest.fixture(scope="module", params=list(SCENARIOS))
def run(request: pytest.FixtureRequest) -> tuple[Any, pd.DataFrame]:
    return traced(request.param)


# ---------------------------------------------------------------------------------------
# Reference model of docs/rules/zones-3d6.md
# ---------------------------------------------------------------------------------------


@dataclass
class Actor:
    """A combatant's scenario values and its HP in the encounter being replayed."""

    index: int
    name: str
    side: int
    spec: Any
    hp: int = 0


def actors(scn: Any) -> list[Actor]:
    return [Actor(i, name, s, m, m.hp) for i, (s, name, m) in enumerate(combatants(scn))]


def steps(edge: int, pressure: int, prm: Any) -> tuple[int, int]:
    """Edge and pressure steps after the stacking and cancelling readings."""
    if not prm.edges_stack:
        edge, pressure = min(edge, 1), min(pressure, 1)
    if prm.edge_pressure_cancel:
        return max(edge - pressure, 0), max(pressure - edge, 0)
    return edge, pressure


def roll(raw: list[int], edge: int, pressure: int, net: int, bonus: int, prm: Any):
    """Kept, adjusted dice and total of a roll from its raw dice (docs/rules/zones-3d6.md)."""
    n = 3 if net == 0 else 3 + prm.advantage_dice
    assert all(1 <= d <= 6 for d in raw[:n]) and all(d == 0 for d in raw[n:]), raw
    dice = raw[:n]
    kept = dice if net == 0 else sorted(dice)[-3:] if net > 0 else sorted(dice)[:3]
    kept = list(kept)
    for _ in range(edge):  # raise the highest die below 6
        below = [i for i, d in enumerate(kept) if d < 6]
        if below:
            kept[max(below, key=lambda i: kept[i])] += 1
    total = bonus
    if prm.pressure == "total":
        total -= pressure
    else:
        for _ in range(pressure):
            above = [i for i, d in enumerate(kept) if d > 1]
            if above:
                kept[min(above, key=lambda i: kept[i])] -= 1
    return kept, total + sum(kept)


def damage(row: Any, attack: Any, attacker: Actor, defender: Actor, prm: Any) -> tuple[int, int]:
    """(base, bonus) damage of a hit from the recorded base dice (docs/rules/zones-3d6.md
    "Armor")."""
    n_dice = sum(t.count for t in attack.damage.terms)
    dice = [getattr(row, f"dmg_die{i}") for i in range(1, 5)]
    assert all(d > 0 for d in dice[: min(n_dice, 4)]) and all(d == 0 for d in dice[n_dice:])
    assert n_dice <= 4  # every die is recorded
    sides = [t.sides for t in attack.damage.terms for _ in range(t.count)]
    assert all(d <= s for d, s in zip(dice, sides, strict=False))
    base = sum(d for d in dice[:n_dice] if d not in defender.spec.base_defense)
    bonus = attack.damage.constant + attacker.spec.bonus_damage
    defense = defender.spec.bonus_defense
    if prm.bonus_defense_floor:
        defense = min(defense, max(bonus, 0))
    return base, bonus - defense


def expected_target(policy: str, attacker: Actor, team: list[Actor]) -> list[str]:
    """Names the policy may pick among standing enemies (shared model)."""
    enemies = [a for a in team if a.side != attacker.side and a.hp >= 0]
    if policy == "focus":
        return [enemies[0].name]
    if policy == "lowest-hp":
        return [min(enemies, key=lambda a: a.hp).name]
    return [a.name for a in enemies]


def check_attack(row: Any, scn: Any, by_name: dict[str, Actor], team: list[Actor]) -> None:
    prm = scn.params
    attacker, defender = by_name[row.attacker], by_name[row.defender]
    attack = scn.attacks[row.attack]
    assert attacker.hp >= 0, "an actor below 0 HP does not act"
    assert row.defender in expected_target(attacker.spec.target, attacker, team)
    e, p = steps(attack.edge, attack.pressure, prm)
    raw = [getattr(row, f"atk_die{i}") for i in range(1, 7)]
    kept, total = roll(raw, e, p, attack.advantage - attack.disadvantage, attack.bonus, prm)
    assert sorted(kept) == sorted([row.atk_kept1, row.atk_kept2, row.atk_kept3])
    assert total == row.atk_total
    d = defender.spec
    e, p = steps(d.evasion_edge, d.evasion_pressure, prm)
    raw = [getattr(row, f"eva_die{i}") for i in range(1, 7)]
    net = d.evasion_advantage - d.evasion_disadvantage
    kept, total = roll(raw, e, p, net, d.evasion, prm)
    assert sorted(kept) == sorted([row.eva_kept1, row.eva_kept2, row.eva_kept3])
    assert total == row.eva_total
    assert row.hit == int(row.atk_total >= row.eva_total), "hit iff attack ≥ Evasion"
    dealt = 0
    if row.hit:
        base, bonus = damage(row, attack, attacker, defender, prm)
        assert (row.base_damage, row.bonus_damage) == (base, bonus)
        dealt = max(base + bonus, prm.minimum_damage)
    assert row.damage == dealt
    defender.hp -= dealt
    assert row.hp_after == defender.hp
    assert row.out == int(defender.hp < 0), "out only below 0 HP"


def per_turn(scn: Any, actor: Actor) -> int:
    prm = scn.params
    return min(actor.spec.attacks_per_turn, prm.major_actions // prm.attack_cost)


def check_turn_order(records: list[Any], scn: Any, team: list[Actor]) -> dict[int, str]:
    """Initiative: rolled once, within the die, highest first, ties in listed order when
    ``initiative_ties: listed``. Returns position → actor name."""
    prm = scn.params
    by_name = {a.name: a for a in team}
    first = first_turns(records)
    for row in first:
        rolled = row.initiative - by_name[row.attacker].spec.initiative
        assert 1 <= rolled <= prm.initiative_die
    inits = [row.initiative for row in first]
    assert inits == sorted(inits, reverse=True), "the highest initiative acts first"
    if prm.initiative_ties == "listed":
        keys = [(-r.initiative, by_name[r.attacker].index) for r in first]
        assert keys == sorted(keys)
    return {row.turn: row.attacker for row in first}


def replay_encounter(records: list[Any], scn: Any) -> None:
    """Replay one encounter (its rows, as :func:`rows_of` reads them): every attack,
    every turn, the end."""
    team = actors(scn)
    by_name = {a.name: a for a in team}
    positions = check_turn_order(records, scn, team)
    i = 0
    for rnd in range(1, scn.max_rounds + 1):
        for pos in range(1, len(team) + 1):
            if i == len(records):
                break
            name = positions.get(pos)
            if name is None:
                continue
            actor = by_name[name]
            if actor.hp < 0:
                continue
            for _ in range(per_turn(scn, actor)):
                if i == len(records):
                    break
                row = records[i]
                assert (row.round, row.turn, row.attacker) == (rnd, pos, name), row
                check_attack(row, scn, by_name, team)
                i += 1
                if len({a.side for a in team if a.hp >= 0}) <= 1:
                    break
    assert i == len(records), "every recorded attack is accounted for"
    standing_sides = {a.side for a in team if a.hp >= 0}
    last = records[-1]
    assert len(standing_sides) <= 1 or last.round == scn.max_rounds
    for actor in team:  # never attacked: out before its first turn, or the fight was over
        if actor.name not in positions.values() and actor.spec.attacks and per_turn(scn, actor) > 0:
            assert actor.hp < 0 or (last.round == 1 and len(standing_sides) <= 1)


def test_every_attack_replays(run: tuple[Any, pd.DataFrame]) -> None:
    scn, trace = run
    for records in encounters(trace):
        replay_encounter(records, scn)


# ---------------------------------------------------------------------------------------
# The text's worked examples and single rules
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "extra"),
    [("mixed", ""), ("mixed", "params: {advantage_dice: 2}\n"), ("params", ""), ("worked", "")],
)
@pytest.mark.kernels
def test_untraced_runs_tally_what_traced_runs_replay(name: str, extra: str) -> None:
    """Untraced runs keep a roll's dice in local variables (``untraced_roll``: the kept
    three, then edges and pressures on their sum); they tally exactly what the traced
    runs above replay die by die, with 1, 2 or 3 advantage dice and either pressure."""
    text, _, seed = SCENARIOS[name]
    scn = simlab.loads(text + extra, f"{name}.yaml")
    traced_run = simlab.simulate(scn, n=3000, seed=seed, trace=True)
    untraced_run = simlab.simulate(scn, n=3000, seed=seed)
    assert int(untraced_run.tallies.attempts.sum()) > 3000
    for field, a, b in zip(traced_run.tallies._fields, traced_run.tallies,
                           untraced_run.tallies, strict=True):  # fmt: skip
        assert np.array_equal(a, b), field


def test_edge_example_on_the_pure_function() -> None:
    dice = np.array([2, 4, 5], dtype=np.int64)
    apply_edge(dice, 0, 1)
    assert dice.tolist() == [2, 4, 6]
    assert int(dice.sum()) + 1 == 13


@pytest.mark.parametrize(
    ("dice", "edges", "pressures", "expected"),
    [
        ([6, 6, 6], 1, 0, [6, 6, 6]),
        ([5, 6, 5], 3, 0, [6, 6, 6]),
        ([1, 3, 1], 2, 0, [1, 5, 1]),
        ([1, 1, 1], 0, 2, [1, 1, 1]),
        ([2, 4, 5], 0, 1, [1, 4, 5]),
        ([2, 1, 3], 0, 4, [1, 1, 1]),
    ],
)
def test_edge_and_pressure_steps(
    dice: list[int], edges: int, pressures: int, expected: list[int]
) -> None:
    work = np.array([9, *dice, 9], dtype=np.int64)  # only the three dice may change
    apply_edge(work, 1, edges)
    apply_pressure(work, 1, pressures)
    assert work.tolist() == [9, *expected, 9]
    assert sum(expected) == max(min(sum(dice) + edges, 18) - pressures, 3)


def test_worked_edge_example_in_the_simulator() -> None:
    _, trace = traced("worked")
    regular = trace[trace.attack == "regular"]
    rows = regular[(regular.atk_die1 == 2) & (regular.atk_die2 == 4) & (regular.atk_die3 == 5)]
    assert len(rows) > 0
    for row in rows_of(rows):
        assert [row.atk_kept1, row.atk_kept2, row.atk_kept3] == [2, 4, 6]
        assert row.atk_total == 13


@pytest.mark.parametrize(("die", "dealt"), [(3, 3), (4, 3), (5, 8), (1, 4), (6, 9)])
def test_worked_longsword_example(die: int, dealt: int) -> None:
    _, trace = traced("worked")
    hits = trace[(trace.attack == "regular") & (trace.hit == 1) & (trace.dmg_die1 == die)]
    assert len(hits) > 0
    assert (hits.damage == dealt).all()
    assert (hits.bonus_damage == 3).all()


def test_minimum_damage_is_one() -> None:
    _, trace = traced("worked")
    blocked = trace[(trace.attack == "tickle") & (trace.defender == "Shell") & (trace.hit == 1)]
    assert len(blocked) > 0
    assert (blocked.base_damage == 0).all() and (blocked.bonus_damage == 0).all()
    assert (blocked.damage == 1).all()


def test_ties_hit() -> None:
    _, trace = traced("mixed")
    ties = trace[trace.atk_total == trace.eva_total]
    assert len(ties) > 20
    assert (ties.hit == 1).all()
    assert (trace[trace.atk_total < trace.eva_total].hit == 0).all()


def test_an_actor_at_exactly_zero_still_acts() -> None:
    _, trace = traced("mixed")
    acted_at_zero = 0
    for rows in encounters(trace):
        for row in (row for row in rows if row.hp_after == 0):
            later = [r for r in rows if r.Index > row.Index and r.attacker == row.defender]
            acted_at_zero += int(len(later) > 0)
    assert acted_at_zero > 0
    scn, params_trace = traced("params")
    assert scn.sides["a"][1].hp == 0
    assert (params_trace.attacker == "A2").any()


def test_attacks_per_turn_are_capped_by_major_actions() -> None:
    for name, cap in (("mixed", {"Fighter": 2, "Rogue": 3, "Ogre": 1}), ("params", {"A1": 2})):
        _, trace = traced(name)
        counts = trace.groupby(["encounter", "round", "attacker"]).size()
        for attacker, most in cap.items():
            assert counts.xs(attacker, level="attacker").max() == most


def test_random_tie_break_is_fair() -> None:
    """With ties broken at random, the listed-first of two tied actors goes first half
    the time (k·σ binomial bound)."""
    scn, trace = traced("mixed")
    order = {a.name: a.index for a in actors(scn)}
    firsts = trace.drop_duplicates(["encounter", "attacker"])
    wins = Counter[bool]()
    for rows in encounters(firsts):
        for a, b in itertools.pairwise(rows):
            if a.initiative == b.initiative:
                wins[order[a.attacker] < order[b.attacker]] += 1
    n = wins[True] + wins[False]
    assert n > 100
    assert abs(wins[True] - n / 2) <= K_SIGMA * np.sqrt(n / 4)


def test_random_targets_are_uniform() -> None:
    """A Goblin's first attack, while both heroes stand, picks each half the time."""
    _, trace = traced("mixed")
    counts: Counter[str] = Counter()
    for rows in encounters(trace):
        goblin = [i for i, row in enumerate(rows) if row.attacker.startswith("Goblin")]
        if not goblin:
            continue
        first = goblin[0]
        if sum(row.out for row in rows[:first]) == 0:
            counts[rows[first].defender] += 1
    n = sum(counts.values())
    assert set(counts) == {"Fighter", "Rogue"} and n > 200
    assert abs(counts["Fighter"] - n / 2) <= K_SIGMA * np.sqrt(n / 4)
