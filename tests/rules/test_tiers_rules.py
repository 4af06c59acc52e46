"""opposed-tiers checked roll by roll against docs/rules/opposed-tiers.md (seed 002).

Each scenario below is simulated once with ``trace=True``. A reference model written here
from docs/rules/opposed-tiers.md and the parameter readings documented in
``simlab/rules/opposed_tiers/model.py`` replays every traced attack from its recorded
dice: which dice each roll must use (the tier table is rebuilt here from
docs/rules/opposed-tiers.md, not taken from the code), the attack and defense totals, hit (ties to
the defender), critical (double the defense), the damage dice (the next tier's on a critical), armor
and its floor, Health, the condition thresholds (falling, unconscious, dead), who may act, who may
be targeted, turn order and the surprise round. Nothing but the recorded dice and the model's own
bookkeeping is used to compute an expectation.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest

import simlab
from simlab.dice import Dice, parse_dice
from simlab.engine.encounter import sort_by_initiative
from simlab.engine.rng import (
    STREAM_DAMAGE,
    STREAM_ORDER,
    key_from_seed,
    new_state,
    start_encounter,
    uniform_index,
)
from simlab.rules.opposed_tiers.compile import (
    E_ONE_DIE,
    E_WHOLE_D6,
    KernelParams,
    _Exprs,
    one_die,
    whole_d6,
)
from simlab.rules.opposed_tiers.kernels import draw_tied_places, roll_expr
from tests.rules.trace_encounters import encounters
from tests.support import combatants, first_turns, simulate_traced

K_SIGMA = 4.5

# docs/rules/opposed-tiers.md: the text's Novice row, and the built-in placeholders for the others.
RULES_TABLE: dict[str, dict[str, Any]] = {
    "novice": {"attack": "2d6", "defense": "2d6", "damage": "2d6",
               "shield": {"light": "1d4", "medium": "1d6", "heavy": "1d8"},
               "armor": {"light": "1d4", "medium": "1d6", "heavy": "1d8"}},
    "journeyman": {"attack": "3d6", "defense": "3d6", "damage": "3d6",
                   "shield": {"light": "1d6", "medium": "1d8", "heavy": "1d10"},
                   "armor": {"light": "1d6", "medium": "1d8", "heavy": "1d10"}},
    "adept": {"attack": "4d6", "defense": "4d6", "damage": "4d6",
              "shield": {"light": "1d8", "medium": "1d10", "heavy": "1d12"},
              "armor": {"light": "1d8", "medium": "1d10", "heavy": "1d12"}},
    "master": {"attack": "5d6", "defense": "5d6", "damage": "5d6",
               "shield": {"light": "1d10", "medium": "1d12", "heavy": "2d8"},
               "armor": {"light": "1d10", "medium": "1d12", "heavy": "2d8"}},
}  # fmt: skip

# Default parameters, mixed tiers, an amended and an added tier with a keep-highest
# roll, shields, armor heavy enough to reach the floor, a special weapon, a hidden
# archer and a hidden brawler (surprise round), player characters who fall and keep
# being hit, NPCs that fall out.
MIXED = """
scenario: tr-mixed
rules: opposed-tiers
max_rounds: 8
tiers:
  - {name: journeyman, damage: 2d6+1d4, armor: {light: 1d6+1}}
  - {name: champion, attack: 3d6kh2+2, defense: 2d8, damage: 1d10+1d4-1,
     shield: {buckler: 1d3}, armor: {plate: 2d4}}
attacks:
  sword: {}
  axe: {modifier: 1, damage_modifier: 2}
  bow: {ranged: true}
  jab: {modifier: -2, damage_modifier: -3}
sides:
  heroes:
    - {name: Knight, player: true, hp: 14, vigor: 14, tier: journeyman, weapon_sl: 1,
       defense_sl: 1, shield: medium, armor: heavy, armor_tier: novice, attacks: [sword, axe]}
    - {name: Archer, player: true, hp: 9, vigor: 7, weapon_sl: 2, hidden: true,
       attacks: [bow, jab], target: random}
    - {name: Brawler, player: true, hp: 10, vigor: 5, tier: master, hidden: true,
       attacks: [jab], target: lowest-hp, armor: plate, armor_tier: champion}
  foes:
    - {name: Goblin, count: 3, hp: 6, weapon_sl: 1, shield: light, attacks: [sword],
       target: random}
    - {name: Ogre, hp: 16, tier: champion, form_sl: 2, defense_sl: -1, shield: buckler,
       armor: light, armor_tier: journeyman, attacks: [axe, sword], reflex: 2,
       target: lowest-hp}
"""

# Every parameter away from its default, on the scenario's own tier table. Here
# `target_fallen: false` changes nothing: a fallen character who fights on stays a target
# (PASSED_OVER below checks it where it matters).
PARAMS = """
scenario: tr-params
rules: opposed-tiers
max_rounds: 6
builtin_tiers: false
params: {attacks_per_turn: 2, initiative_dice: 1d3, initiative_ties: listed,
         critical_tier: form, top_tier_critical: extra_die, damage_floor: 1,
         npcs_fall_out: false, fallen_fight_on: true, target_fallen: false,
         target_unconscious: true, unconscious_rounding: down, surprise_round: true,
         surprise_armor: false}
tiers:
  - {name: green, attack: 2d6, defense: 2d6, damage: 1d6, armor: {hide: 1d4}}
  - {name: hardened, attack: 2d6+1, defense: 2d6+1, damage: 2d4,
     shield: {kite: 1d6}, armor: {hide: 1d6}}
attacks:
  blade: {}
  sling: {ranged: true, damage_modifier: 1}
sides:
  a:
    - {name: A1, player: true, hp: 8, vigor: 5, weapon_tier: green, form_tier: hardened,
       armor: hide, attacks: [blade], attacks_per_turn: 1}
    - {name: A2, player: true, hp: 6, vigor: 4, tier: hardened, hidden: true,
       attacks: [sling, blade], target: random}
  b:
    - {name: B1, hp: 9, vigor: 6, tier: hardened, shield: kite, armor: hide,
       attacks: [blade], reflex: 1}
    - {name: B2, hp: 7, vigor: 3, attacks: [blade, sling], target: lowest-hp}
"""

# The thresholds of the text's example (Vigor 14: unconscious at −7, dead below −14),
# reached by hits on a character who has fallen: enemies keep hitting it to death.
THRESHOLDS = """
scenario: tr-thresholds
rules: opposed-tiers
max_rounds: 12
params: {target_unconscious: true}
attacks:
  maul: {damage_modifier: 1}
sides:
  victim:
    - {name: Victim, player: true, hp: 3, vigor: 14, defense_sl: -2}
    - {name: Friend, player: true, hp: 200, vigor: 20, armor: heavy, defense_sl: 30}
  brutes:
    - {name: Brute, count: 2, hp: 30, attacks: [maul], weapon_sl: 3}
"""

# The same fight read as the seed's example reads it: dead at −Vigor (−14), not below.
EXAMPLE_DEATH = THRESHOLDS.replace(
    "params: {target_unconscious: true}", "params: {target_unconscious: true, dead_at: minus_vigor}"
)

# The mixed fight with the optional surprise round off (docs/rules/opposed-tiers.md,
# "Parameters": `surprise_round: false`): the hidden archer and brawler take their turns
# in initiative order from round 1 like everyone else.
NO_SURPRISE = MIXED.replace(
    "max_rounds: 8\n", "max_rounds: 8\nparams: {surprise_round: false}\n", 1
)

# `target_fallen: false` with `fallen_fight_on: false`: a player character who falls is
# out at once, so the raiders must turn to another target. Scout and Sage are light and
# listed before Guard, Vigor large enough that most falls stop short of unconsciousness;
# the raiders use every policy (focus, lowest-hp, random), each of which would often pick
# a fallen character if it were still a target.
PASSED_OVER = """
scenario: tr-passed-over
rules: opposed-tiers
max_rounds: 10
params: {target_fallen: false, fallen_fight_on: false}
attacks:
  club: {damage_modifier: 1}
  knife: {}
sides:
  party:
    - {name: Scout, player: true, hp: 5, vigor: 12, defense_sl: -1, attacks: [knife]}
    - {name: Sage, player: true, hp: 7, vigor: 12, attacks: [knife], target: random}
    - {name: Guard, player: true, hp: 14, vigor: 10, defense_sl: 1, armor: light,
       attacks: [knife]}
  raiders:
    - {name: Raider, count: 2, hp: 9, weapon_sl: 1, attacks: [club]}
    - {name: Stalker, hp: 9, weapon_sl: 1, attacks: [club], target: lowest-hp}
    - {name: Slinger, hp: 7, attacks: [knife], target: random}
"""

SCENARIOS = {"mixed": (MIXED, 600, 31), "params": (PARAMS, 600, 32),
             "thresholds": (THRESHOLDS, 300, 33),
             "example_death": (EXAMPLE_DEATH, 300, 34),
             "no_surprise": (NO_SURPRISE, 600, 35),
             "passed_over": (PASSED_OVER, 600, 36)}  # fmt: skip


@functools.cache
def traced(name: str) -> tuple[Any, pd.DataFrame]:
    """The scenario ``name`` and the trace of its run (simulated once per session)."""
    return simulate_traced(name, *SCENARIOS[name])


# ---------------------------------------------------------------------------------------
# Reference model of docs/rules/opposed-tiers.md
# ---------------------------------------------------------------------------------------


def table_of(scn: Any) -> dict[str, dict[str, Any]]:
    """The tier table in effect, rebuilt from docs/rules/opposed-tiers.md and the scenario's
    ``tiers:``."""
    table: dict[str, dict[str, Any]] = {}
    if scn.builtin_tiers:
        table = {k: {**v, "shield": dict(v["shield"]), "armor": dict(v["armor"])}
                 for k, v in RULES_TABLE.items()}  # fmt: skip
    for tier in scn.tiers:
        row = table.setdefault(tier.name, {"shield": {}, "armor": {}})
        for roll in ("attack", "defense", "damage"):
            if getattr(tier, roll) is not None:
                row[roll] = str(getattr(tier, roll))
        for gear in ("shield", "armor"):
            row[gear].update({k: str(v) for k, v in getattr(tier, gear).items()})
    return table


@dataclass
class Actor:
    """A combatant's scenario values, dice, and its Health in the encounter replayed."""

    index: int
    name: str
    side: int
    spec: Any
    dice: dict[str, Dice | None]
    hp: int = 0
    level: int = 0
    seen: dict[str, int] = field(default_factory=dict)


def actor_dice(scn: Any, m: Any) -> dict[str, Dice | None]:
    table = table_of(scn)
    names = list(table)
    prm = scn.params

    def tier(skill: str) -> str:
        return getattr(m, f"{skill}_tier") or m.tier or names[0]

    def gear(kind: str) -> Dice | None:
        chosen = getattr(m, kind)
        return None if chosen is None else parse_dice(table[tier(kind)][kind][chosen])

    crit_from = tier(prm.critical_tier)
    i = names.index(crit_from)
    if i + 1 < len(names):
        critical = parse_dice(table[names[i + 1]]["damage"])
    else:
        critical = parse_dice(table[crit_from]["damage"])
        if prm.top_tier_critical == "extra_die":  # one more die of the first term
            text = table[crit_from]["damage"]
            count, rest = text.split("d", 1)
            critical = parse_dice(f"{int(count or 1) + 1}d{rest}")
    return {
        "attack": parse_dice(table[tier("weapon")]["attack"]),
        "defense": parse_dice(table[tier("defense")]["defense"]),
        "damage": parse_dice(table[tier("form")]["damage"]),
        "critical": critical,
        "shield": gear("shield"),
        "armor": gear("armor"),
    }


def all_dice(scn: Any) -> list[dict[str, Dice | None]]:
    """Each combatant's dice (:func:`actor_dice`), in the order of :func:`combatants`."""
    return [actor_dice(scn, m) for _, _, m in combatants(scn)]


def actors(scn: Any, dice: list[dict[str, Dice | None]] | None = None) -> list[Actor]:
    """The combatants at the start of an encounter; ``dice`` (:func:`all_dice`), worked
    out once for a scenario's many encounters, else worked out here."""
    dice = all_dice(scn) if dice is None else dice
    return [Actor(i, name, s, m, dice[i], m.hp) for i, (s, name, m) in enumerate(combatants(scn))]


def total_from_faces(dice: Dice | None, faces: list[int], roll: int) -> int:
    """The total of ``dice`` from its recorded faces (roll order), checked against the
    number of dice and their sides; ``roll`` is the recorded total."""
    if dice is None:
        assert all(f == 0 for f in faces) and roll == 0
        return 0
    n = sum(t.count for t in dice.terms)
    assert n <= len(faces), "every die of the test scenarios is recorded"
    assert all(f == 0 for f in faces[n:]), faces
    total = dice.constant
    i = 0
    for term in dice.terms:
        group = faces[i : i + term.count]
        i += term.count
        assert all(1 <= f <= term.sides for f in group), (dice, faces)
        if term.keep == "high":
            group = sorted(group, reverse=True)[: term.keep_n]
        elif term.keep == "low":
            group = sorted(group)[: term.keep_n]
        total += term.sign * sum(group)
    assert total == roll, (str(dice), faces, roll)
    return total


def faces(row: Any, prefix: str, n: int) -> list[int]:
    return [getattr(row, f"{prefix}{i}") for i in range(1, n + 1)]


def condition(actor: Actor, prm: Any) -> int:
    """0 standing, 1 falling (Health ≤ 0), 2 unconscious (≤ −Vigor/2), 3 dead (< −Vigor)."""
    hp, vigor = actor.hp, actor.spec.vigor
    if vigor is not None:
        half = math.ceil(vigor / 2) if prm.unconscious_rounding == "up" else vigor // 2
        dead = hp <= -vigor if prm.dead_at == "minus_vigor" else hp < -vigor
        if dead:
            return 3
        if hp <= -half:
            return 2
    return 1 if hp <= 0 else 0


def falls_out(actor: Actor, prm: Any) -> bool:
    return not actor.spec.player and prm.npcs_fall_out


def acts(actor: Actor, prm: Any) -> bool:
    if actor.level >= 1 and falls_out(actor, prm):
        return False
    return actor.level == 0 or (actor.level == 1 and prm.fallen_fight_on)


def targetable(actor: Actor, prm: Any) -> bool:
    if actor.level >= 1 and falls_out(actor, prm):
        return False
    return (actor.level == 0
            or (actor.level == 1 and (prm.target_fallen or prm.fallen_fight_on))
            or (actor.level == 2 and prm.target_unconscious))  # fmt: skip


def expected_targets(attacker: Actor, team: list[Actor], prm: Any) -> list[str]:
    enemies = [a for a in team if a.side != attacker.side and targetable(a, prm)]
    policy = attacker.spec.target
    if policy == "focus":
        return [enemies[0].name]
    if policy == "lowest-hp":
        return [min(enemies, key=lambda a: a.hp).name]
    return [a.name for a in enemies]


def check_attack(row: Any, scn: Any, by_name: dict[str, Actor], team: list[Actor],
                 cases: Counter[str]) -> None:  # fmt: skip
    """Replay one traced attack, counting in ``cases`` the situations it exercised."""
    prm = scn.params
    attacker, defender = by_name[row.attacker], by_name[row.defender]
    weapon = scn.attacks[row.attack]
    assert acts(attacker, prm), "only a combatant that still acts attacks"
    targets = expected_targets(attacker, team, prm)
    assert row.defender in targets, row
    if not prm.target_fallen:  # would the choice differ if the fallen were targets?
        as_if = prm.model_copy(update={"target_fallen": True})
        if expected_targets(attacker, team, as_if) != targets:
            cases[f"fallen passed over ({attacker.spec.target})"] += 1
    if defender.level in (1, 2):
        cases[("fallen", "unconscious")[defender.level - 1] + " attacked"] += 1
    a = attacker.dice
    atk = total_from_faces(a["attack"], faces(row, "atk_die", 6), row.atk_roll)
    assert row.atk_total == atk + attacker.spec.weapon_sl + weapon.modifier
    undefended = bool(row.surprise) and weapon.ranged
    if undefended:  # a ranged surprise attack cannot be defended against
        assert row.def_total == 0 and row.def_roll == 0 and row.shield_roll == 0
        assert not any(faces(row, "def_die", 6)) and not any(faces(row, "shield_die", 2))
    else:
        d = defender.dice
        rolled = total_from_faces(d["defense"], faces(row, "def_die", 6), row.def_roll)
        shield = total_from_faces(d["shield"], faces(row, "shield_die", 2), row.shield_roll)
        assert row.def_total == rolled + defender.spec.defense_sl + shield
    hit = row.atk_total > row.def_total  # a tie goes to the defender
    crit = hit and not undefended and row.atk_total >= 2 * row.def_total
    assert (row.hit, row.crit) == (int(hit), int(crit)), row
    dealt = 0
    if hit:
        dice = a["critical"] if crit else a["damage"]
        rolled = total_from_faces(dice, faces(row, "dmg_die", 6), row.dmg_roll)
        armored = not undefended or prm.surprise_armor
        armor_dice = defender.dice["armor"] if armored else None
        armor = total_from_faces(armor_dice, faces(row, "armor_die", 2), row.armor_roll)
        raw = rolled + attacker.spec.form_sl + weapon.damage_modifier - armor
        dealt = max(raw, prm.damage_floor)
    else:
        assert row.dmg_roll == 0 and row.armor_roll == 0 and not any(faces(row, "dmg_die", 6))
    assert row.damage == dealt, row
    defender.hp -= dealt
    defender.level = max(defender.level, condition(defender, prm))
    assert row.hp_after == defender.hp
    assert row.state_after == defender.level, row
    assert row.out == int(not acts(defender, prm) and not targetable(defender, prm))
    if defender.spec.player and defender.level == 1 and row.out:
        cases["fallen player out at once"] += 1


def per_turn(scn: Any, actor: Actor) -> int:
    return actor.spec.attacks_per_turn or scn.params.attacks_per_turn


def check_turn_order(records: list[Any], scn: Any, team: list[Actor]) -> dict[int, str]:
    """Reflex checks: rolled once, within the dice plus Reflex SL, highest first, ties in
    listed order with ``initiative_ties: listed``. Returns position → combatant name."""
    prm = scn.params
    by_name = {a.name: a for a in team}
    first = first_turns([row for row in records if row.round > 0])
    for row in first:
        rolled = row.initiative - by_name[row.attacker].spec.reflex
        assert prm.initiative_dice.min <= rolled <= prm.initiative_dice.max
    inits = [row.initiative for row in first]
    assert inits == sorted(inits, reverse=True), "the highest Reflex check acts first"
    if prm.initiative_ties == "listed":
        keys = [(-r.initiative, by_name[r.attacker].index) for r in first]
        assert keys == sorted(keys)
    return {row.turn: row.attacker for row in first}


def sides_acting(team: list[Actor], prm: Any) -> set[int]:
    return {a.side for a in team if acts(a, prm)}


def take_turn(actor: Actor, records: list[Any], i: int, rnd: int, pos: int, scn: Any,
              by_name: dict[str, Actor], team: list[Actor],
              cases: Counter[str]) -> tuple[int, bool]:  # fmt: skip
    """Replay one turn from record ``i``; returns the next record and whether it is over."""
    prm = scn.params
    for _ in range(per_turn(scn, actor)):
        if not any(a.side != actor.side and targetable(a, prm) for a in team):
            break
        assert i < len(records), f"{actor.name} should attack in round {rnd}"
        row = records[i]
        assert (row.round, row.turn, row.attacker) == (rnd, pos, actor.name), row
        assert row.surprise == int(rnd == 0)
        check_attack(row, scn, by_name, team, cases)
        i += 1
        if len(sides_acting(team, prm)) <= 1:
            return i, True
    return i, False


def replay_encounter(
    records: list[Any], scn: Any, cases: Counter[str], dice: list[dict[str, Dice | None]]
) -> None:
    """Replay one encounter: the surprise round, every turn of every round, the end;
    ``cases`` counts the situations met (:data:`COVERAGE`), ``dice`` are the
    combatants' (:func:`all_dice`)."""
    prm = scn.params
    team = actors(scn, dice)
    by_name = {a.name: a for a in team}
    i, over = 0, False
    hidden = [a for a in team if a.spec.hidden and a.spec.attacks]
    if prm.surprise_round and hidden:  # round 0, listed order
        for actor in hidden:
            if acts(actor, prm) and not over:
                i, over = take_turn(actor, records, i, 0, 0, scn, by_name, team, cases)
    else:
        assert all(row.round > 0 for row in records)
    positions = check_turn_order(records, scn, team)
    for rnd in range(1, scn.max_rounds + 1):
        for pos in range(1, len(team) + 1):
            name = positions.get(pos)
            if over or name is None or not by_name[name].spec.attacks:
                continue
            if acts(by_name[name], prm):
                i, over = take_turn(by_name[name], records, i, rnd, pos, scn, by_name, team, cases)
    assert i == len(records), "every recorded attack is accounted for"
    for actor in team:  # never seen at a position: fell first, or the fight was short
        if actor.spec.attacks and actor.name not in positions.values():
            assert (
                not acts(actor, prm)
                or len(sides_acting(team, prm)) <= 1
                or (records[-1].round <= 1)
            ), actor.name


def replay_all(scn: Any, trace: pd.DataFrame) -> Counter[str]:
    """Replay every encounter of ``trace``; the cases met, counted."""
    cases: Counter[str] = Counter()
    dice = all_dice(scn)
    for records in encounters(trace):
        replay_encounter(records, scn, cases, dice)
    return cases


@functools.cache
def replayed(name: str) -> Counter[str]:
    """The cases met replaying scenario ``name`` (replayed once per session)."""
    return replay_all(*traced(name))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_attack_replays(name: str) -> None:
    """Every traced attack of scenario ``name`` replays (the replay asserts each rule)."""
    replayed(name)


# Each case must occur many times in the scenario built for it, so that the replay above
# exercised it (a check that never fires proves nothing).
COVERAGE = [
    ("mixed", "fallen attacked", 200),
    ("params", "fallen attacked", 200),
    ("thresholds", "fallen attacked", 100),
    ("thresholds", "unconscious attacked", 200),
    ("example_death", "unconscious attacked", 200),
    ("passed_over", "fallen player out at once", 300),
    ("passed_over", "fallen passed over (focus)", 300),
    ("passed_over", "fallen passed over (lowest-hp)", 300),
    ("passed_over", "fallen passed over (random)", 300),
]


@pytest.mark.parametrize(("name", "case", "at_least"), COVERAGE)
def test_case_occurs(name: str, case: str, at_least: int) -> None:
    assert replayed(name)[case] >= at_least, dict(replayed(name))


def test_the_replay_tells_target_fallen_apart() -> None:
    """The passed-over fight simulated with ``target_fallen: true`` does not replay as
    the scenario with ``false`` (a fall there leaves the character a target, not out, and
    later attacks may pick it), yet replays as the scenario it came from. So the replay
    fails if the kernel ignores the parameter."""
    flipped = PASSED_OVER.replace("target_fallen: false", "target_fallen: true")
    _, trace = simulate_traced("passed_over_true", flipped, 200, 36)
    as_written = simlab.loads(PASSED_OVER, "passed_over.yaml")
    assert not as_written.params.target_fallen
    with pytest.raises(AssertionError):
        replay_all(as_written, trace)
    as_flipped = simlab.loads(flipped, "passed_over_true.yaml")
    assert replay_all(as_flipped, trace)["fallen attacked"] > 100, "and replays as true"


# ---------------------------------------------------------------------------------------
# Single rules, each forced to fire
# ---------------------------------------------------------------------------------------


def test_no_surprise_round_when_it_is_off() -> None:
    """``surprise_round: false``: no round 0, yet the hidden combatants do attack (the
    replay above checks that they act in initiative order from round 1)."""
    scn, trace = traced("no_surprise")
    assert not scn.params.surprise_round
    assert trace["round"].min() == 1
    assert {"Archer", "Brawler"} <= set(trace.attacker)


def test_ties_go_to_the_defender() -> None:
    _, trace = traced("mixed")
    ties = trace[trace.atk_total == trace.def_total]
    assert len(ties) > 50
    assert (ties.hit == 0).all()
    assert (trace[trace.atk_total == trace.def_total + 1].hit == 1).all()


def test_critical_when_attack_doubles_defense() -> None:
    """Seed 002's example: 12 to attack against 6 to defend is a critical; 11 is not."""
    _, trace = traced("mixed")
    normal = trace[trace.surprise == 0]
    example = normal[(normal.atk_total == 12) & (normal.def_total == 6)]
    assert len(example) > 0 and (example.crit == 1).all()
    short = normal[(normal.atk_total == 11) & (normal.def_total == 6)]
    assert len(short) > 0 and (short.crit == 0).all() and (short.hit == 1).all()
    doubled = normal[(normal.atk_total >= 2 * normal.def_total) & (normal.hit == 1)]
    assert len(doubled) > 50 and (doubled.crit == 1).all()


def test_critical_rolls_the_next_tiers_damage_dice() -> None:
    """A Novice goblin's hits roll 2d6 (two dice); its criticals roll the amended
    Journeyman damage 2d6+1d4 (three dice, the third a d4)."""
    _, trace = traced("mixed")
    goblin = trace[trace.attacker.str.startswith("Goblin") & (trace.hit == 1)]
    crits, plain = goblin[goblin.crit == 1], goblin[goblin.crit == 0]
    assert len(crits) > 10 and len(plain) > 10
    assert (plain.dmg_die3 == 0).all() and (plain.dmg_die2 > 0).all()
    assert (crits.dmg_die3.between(1, 4)).all() and (crits.dmg_die4 == 0).all()


def test_top_tier_critical() -> None:
    """The Brawler is a Master, the built-in top tier... until the scenario adds a
    champion after it: its criticals roll the champion's 1d10+1d4-1. In the params
    scenario the top tier with ``extra_die`` rolls 3d4 instead of 2d4."""
    _, trace = traced("mixed")
    brawler = trace[(trace.attacker == "Brawler") & (trace.crit == 1)]
    assert len(brawler) > 0
    assert (brawler.dmg_die1 <= 10).all() and (brawler.dmg_die2.between(1, 4)).all()
    assert (brawler.dmg_roll == brawler.dmg_die1 + brawler.dmg_die2 - 1).all()
    _, trace = traced("params")
    crits = trace[trace.attacker.isin(["A1", "A2", "B1"]) & (trace.crit == 1)]
    assert len(crits) > 0
    assert (crits.dmg_die3.between(1, 4)).all() and (crits.dmg_die4 == 0).all()


def test_armor_cannot_take_damage_below_the_floor() -> None:
    _, trace = traced("mixed")
    hits = trace[trace.hit == 1]
    weapon = {"sword": 0, "axe": 2, "bow": 0, "jab": -3}
    form_sl = {"Ogre": 2}
    raw = (hits.dmg_roll + hits.attacker.map(lambda a: form_sl.get(a, 0))
           + hits.attack.map(weapon) - hits.armor_roll)  # fmt: skip
    floored = hits[raw < 0]
    assert len(floored) > 20
    assert (floored.damage == 0).all()
    assert (hits[raw >= 0].damage == raw[raw >= 0]).all()
    _, trace = traced("params")
    hits = trace[trace.hit == 1]
    assert hits.damage.min() == 1, "damage_floor: 1"


def test_vigor_thresholds_of_the_example() -> None:
    """Vigor 14: unconscious at −7 (not at −6), dead below −14 (not at −14)."""
    _, trace = traced("thresholds")
    victim = trace[trace.defender == "Victim"]
    expected = {0: 1, -1: 1, -6: 1, -7: 2, -10: 2, -14: 2, -15: 3}
    for hp, state in expected.items():
        rows = victim[victim.hp_after == hp]
        assert len(rows) > 0, hp
        assert (rows.state_after == state).all(), hp
    assert (victim[victim.hp_after > 0].state_after == 0).all()


def test_dead_at_minus_vigor_reads_the_example() -> None:
    """``dead_at: minus_vigor`` (seed 002's example): Vigor 14 is dead at −14 itself;
    −13 is still unconscious. Each row's state is checked against the replayed Health."""
    _, trace = traced("example_death")
    victim = trace[trace.defender == "Victim"]
    expected = {-7: 2, -13: 2, -14: 3, -15: 3}
    for hp, state in expected.items():
        rows = victim[victim.hp_after == hp]
        assert len(rows) > 0, hp
        assert (rows.state_after == state).all(), hp


def test_fallen_player_characters_keep_being_hit_npcs_do_not() -> None:
    """Default readings: a fallen player character stays a target until unconscious; a
    fallen NPC is out at once and never attacked again."""
    _, trace = traced("mixed")
    players = {"Knight", "Archer", "Brawler"}
    hits_on_fallen = 0
    for rows in encounters(trace):
        state: dict[str, int] = {}
        for row in rows:
            before = state.get(row.defender, 0)
            assert before < 2, "an unconscious character is not attacked by default"
            if before == 1:
                assert row.defender in players
                hits_on_fallen += 1
            state[row.defender] = row.state_after
    assert hits_on_fallen > 20


def test_surprise_round() -> None:
    """Round 0: only hidden combatants act, in listed order; ranged attacks are
    undefended and never critical, armor still applies; melee is defended as usual."""
    _, trace = traced("mixed")
    first = trace[trace["round"] == 0]
    assert set(first.attacker) <= {"Archer", "Brawler"}
    ranged = first[first.attack == "bow"]
    assert len(ranged) > 50
    assert (ranged.def_total == 0).all() and (ranged.crit == 0).all()
    assert (ranged.hit == (ranged.atk_total > 0)).all()
    armored = ranged[(ranged.defender == "Ogre") & (ranged.hit == 1)]
    assert len(armored) > 0 and (armored.armor_die1 > 0).all()
    melee = first[first.attack == "jab"]
    assert len(melee) > 0 and (melee.def_roll > 0).all()
    _, trace = traced("params")
    ranged = trace[(trace["round"] == 0) & (trace.attack == "sling") & (trace.hit == 1)]
    assert len(ranged) > 0 and (ranged.armor_roll == 0).all(), "surprise_armor: false"


def test_attacks_per_turn() -> None:
    for name, most in (("mixed", {"Knight": 1, "Ogre": 1}), ("params", {"A1": 1, "B1": 2})):
        _, trace = traced(name)
        counts = trace.groupby(["encounter", "round", "attacker"]).size()
        for attacker, cap in most.items():
            assert counts.xs(attacker, level="attacker").max() == cap


def test_random_initiative_ties_are_fair() -> None:
    """With ties broken at random, the listed-first of two tied combatants goes first
    half the time (k·σ binomial bound)."""
    scn, trace = traced("mixed")
    order = {a.name: a.index for a in actors(scn)}
    firsts = trace[trace["round"] > 0].drop_duplicates(["encounter", "attacker"])
    wins: Counter[bool] = Counter()
    for rows in encounters(firsts):
        rows = sorted(rows, key=lambda row: row.turn)  # one attacker a turn: no ties
        for a, b in itertools.pairwise(rows):
            if a.initiative == b.initiative:
                wins[order[a.attacker] < order[b.attacker]] += 1
    n = wins[True] + wins[False]
    assert n > 100
    assert abs(wins[True] - n / 2) <= K_SIGMA * np.sqrt(n / 4)


def test_events_are_tallied() -> None:
    """Unconscious and dead are reported per combatant with their round."""
    scn = simlab.loads(THRESHOLDS, "t.yaml")
    res = simlab.simulate(scn, n=300, seed=33, trace=True)
    assert res.trace is not None
    victim = res.layout.combatants.index(("victim", "Victim"))
    events = res.layout.events
    assert events == ["out", "unconscious", "dead"]
    by_encounter = res.trace[res.trace.defender == "Victim"].groupby("encounter")
    first = {s: by_encounter.apply(lambda r, s=s: r[r.state_after >= s]["round"].min())
             for s in (1, 2, 3)}  # fmt: skip
    for s, event in ((1, None), (2, "unconscious"), (3, "dead")):
        rounds = first[s].dropna().astype(int)
        hist = np.bincount(rounds, minlength=scn.max_rounds + 1)
        tally = (res.tallies.down_round[victim] if event is None
                 else res.tallies.event_round[victim, events.index(event)])  # fmt: skip
        assert np.array_equal(tally, hist), event


def place_one_at_a_time(checks: list[int], state: np.ndarray) -> list[int]:
    """The turn order as docs/rules/opposed-tiers.md reads random ties: each place, from
    the first, goes to the highest check left, or, among several tied, to one of them
    drawn uniformly (in listed order) from ``STREAM_ORDER``."""
    left = list(range(len(checks)))
    order = []
    while left:
        best = max(checks[c] for c in left)
        tied = [c for c in left if checks[c] == best]
        pick = int(uniform_index(state, STREAM_ORDER, len(tied))) if len(tied) > 1 else 0
        order.append(tied[pick])
        left.remove(tied[pick])
    return order


def test_tied_places_draw_as_one_place_at_a_time() -> None:
    """The kernel sorts the checks once and then draws each run of ties
    (``draw_tied_places``): the same places from the same draws as filling one place at
    a time, for many runs of ties of every length (checks of 1 to 3 among 1 to 9)."""
    k0, k1 = key_from_seed(77)
    lengths: Counter[int] = Counter()
    rolls = np.random.default_rng(5)
    for encounter in range(400):
        n = int(rolls.integers(1, 10))
        checks = rolls.integers(1, 4, size=n).astype(np.int64)
        expected_state, state = new_state(), new_state()
        start_encounter(expected_state, k0, k1, encounter)
        start_encounter(state, k0, k1, encounter)
        order = np.arange(n, dtype=np.int64)
        sort_by_initiative(checks, checks, order)
        draw_tied_places(state, checks, order)
        assert list(order) == place_one_at_a_time(list(checks), expected_state)
        assert np.array_equal(state, expected_state), "the same words drawn"
        lengths.update(Counter(checks.tolist()).values())
    assert {1, 2, 3, 4, 5, 6} <= set(lengths)


@pytest.mark.parametrize(
    "text",
    [
        "3d6",
        "2d6+1",
        "1d6-2",
        "4d6",
        "5d6",
        "2d6+1d4",
        "4d6kh3",
        "-1d6+3",
        "1d8",
        "1d4+1",
        "2d8",
        "-1d10",
    ],
)
def test_an_untraced_roll_totals_what_the_trace_records(text: str) -> None:
    """A roll made untraced (``slots`` 0: the shortcuts ``E_WHOLE_D6`` and ``E_ONE_DIE``,
    other expressions die by die) and the same roll traced die by die draw the same dice:
    five rolls in a row in each of 300 encounters give the same totals and leave the same
    RNG state, batches crossed and all."""
    exprs = _Exprs()
    e = exprs.add(parse_dice(text))
    expr_array, terms = exprs.arrays()
    assert expr_array[E_WHOLE_D6, e] == whole_d6(parse_dice(text))
    assert expr_array[E_ONE_DIE, e] == one_die(parse_dice(text))
    empty = np.zeros((0, 0), dtype=np.int64)
    p = KernelParams(combatant=empty, attack=empty, exprs=expr_array, terms=terms,
                     globals_=np.zeros(1, np.int64), attack_list=np.zeros(0, np.int64),
                     enemies=empty)  # fmt: skip
    scratch, ev = np.zeros(8, np.int64), np.zeros(16, np.int64)
    k0, k1 = key_from_seed(3)
    for encounter in range(300):
        traced_state, untraced_state = new_state(), new_state()
        start_encounter(traced_state, k0, k1, encounter)
        start_encounter(untraced_state, k0, k1, encounter)
        for _ in range(5):
            recorded = roll_expr(p, traced_state, STREAM_DAMAGE, e, scratch, ev, 0, 6)
            assert ev[6] == recorded
            assert roll_expr(p, untraced_state, STREAM_DAMAGE, e, scratch, ev, 0, 0) == recorded
            assert np.array_equal(untraced_state, traced_state)


def test_the_shortcuts_name_a_few_d6_added_up_and_one_die() -> None:
    """``E_WHOLE_D6`` is the count of d6 for one term of d6 kept whole and added,
    ``E_ONE_DIE`` the faces of one die added; each is 0 for anything else."""
    expected = {"3d6": (3, 0), "2d6+1": (2, 0), "1d6-2": (1, 6), "7d6": (7, 0),
                "2d6+1d4": (0, 0), "4d6kh3": (0, 0), "-1d6+3": (0, 0), "3d8": (0, 0),
                "1d8": (0, 8), "1d4+1": (0, 4), "1d12-1": (0, 12), "-1d8": (0, 0)}  # fmt: skip
    shortcuts = {text: (whole_d6(parse_dice(text)), one_die(parse_dice(text))) for text in expected}
    assert shortcuts == expected
