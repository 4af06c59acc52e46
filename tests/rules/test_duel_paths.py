"""Plain-duel paths give the general path's tallies, bit for bit.

A plain duel (one combatant attacks, the other never does) is played by the rule
system's ``kernels.run_duel_block``, or in glitters-d20, zones-3d6 and opposed-tiers by
``kernels.run_one_attack_duel_block`` when the attacker makes one attack a turn
(zones-3d6, opposed-tiers, glitters-d20 and the earlier Shattered Spirits draft here;
Shattered Spirits' own in test_ss_duel_path.py):
the general path's turns, targets and Phases cut down to the one attacker's attacks,
and in most systems dice drawn as one number and looked up in tables made once per
run. Every tally must be the integer the general path ``kernels.run_block`` gives on
the same dice, whatever the chunking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.api import compile_job
from simlab.rules import rule_module
from tests.support import block_tallies

ROOT = Path(__file__).resolve().parents[2]
HEAD = "rules: {rules}\nscenario: duel\nseed: 11\nmax_rounds: {cap}\n"
ZONES = {
    # edge, Base Defense faces and Bonus Defense; one attack per turn
    "benchmark": ROOT / "scenarios/benchmarks/zones-3d6-duel.yaml",
    # two attacks in rotation, three a turn (the default), Evasion bonus
    "training": ROOT / "scenarios/zones-3d6/training-duel.yaml",
    # advantage and Evasion disadvantage (4d6 keep 3), pressure, a damage of two terms
    # (rolled die by die), the attacker listed second, random targets
    "mixed": HEAD.format(rules="zones-3d6", cap=30)
    + """
params: {advantage_dice: 1}
attacks:
  hook: {damage: 1d6+1d4, advantage: 1, pressure: 1}
  jab: {damage: 2d4, disadvantage: 1, bonus: 2}
sides:
  pell:
    - {name: Pell, hp: 25, evasion_disadvantage: 1, base_defense: [1], bonus_defense: 2}
  boxer:
    - {name: Boxer, hp: 10, attacks: [hook, jab], attacks_per_turn: 2, target: random}
""",
    # damage dice of several sizes through one cursor: tabled attacks of d4, d6 and d3
    # (rejected batches), two terms of two sizes and a d130 rolled die by die, in
    # rotation, two a turn, against Base Defense faces
    "sizes": HEAD.format(rules="zones-3d6", cap=40)
    + """
attacks:
  blade: {damage: 1d6+2, edge: 1}
  dagger: {damage: 1d4}
  flail: {damage: 1d8+1d4}
  sling: {damage: 2d3}
  ram: {damage: 1d130}
sides:
  a:
    - {name: A, hp: 5, attacks: [blade, flail, dagger, ram, sling], attacks_per_turn: 2}
  b:
    - {name: B, hp: 200, base_defense: [1, 2], bonus_defense: 1}
""",
    # one attack, three a turn (the default): the one-attack loop, its rounds worked
    # out from the attacks; a round cap that some duels reach
    "flurry": HEAD.format(rules="zones-3d6", cap=4)
    + """
attacks:
  jab: {damage: 1d4+1}
sides:
  a:
    - {name: A, hp: 5, attacks: [jab]}
  b:
    - {name: B, hp: 20, base_defense: [1], bonus_defense: 1}
""",
    # a round cap that most duels reach (draws), minimum damage 0 against heavy armor
    "capped": HEAD.format(rules="zones-3d6", cap=3)
    + """
params: {minimum_damage: 0}
attacks:
  tap: {damage: 1d4}
sides:
  a:
    - {name: A, hp: 5, attacks: [tap], attacks_per_turn: 1}
  b:
    - {name: B, hp: 12, base_defense: [1, 2, 3], bonus_defense: 4}
""",
    # damage dice with more outcomes than int64 holds (40**12 wraps around): rolled die
    # by die, never tabled
    "huge-dice": HEAD.format(rules="zones-3d6", cap=20)
    + """
attacks:
  maul: {damage: 12d40}
sides:
  a:
    - {name: A, hp: 5, attacks: [maul], attacks_per_turn: 1}
  b:
    - {name: B, hp: 600, base_defense: [1]}
""",
    # more damage dice than a table takes: rolled die by die
    "many-dice": HEAD.format(rules="zones-3d6", cap=50)
    + """
attacks:
  hail: {damage: 14d2}
sides:
  a:
    - {name: A, hp: 5, attacks: [hail], attacks_per_turn: 1}
  b:
    - {name: B, hp: 90, base_defense: [1]}
""",
    # hits past the last damage bin (4096), counted one by one
    "heavy": HEAD.format(rules="zones-3d6", cap=30)
    + """
attacks:
  ram: {damage: 1d6+5000}
sides:
  a:
    - {name: A, hp: 5, attacks: [ram], attacks_per_turn: 1}
  b:
    - {name: B, hp: 40000, base_defense: [1]}
""",
}


FIGHT_ON = (
    HEAD.format(rules="opposed-tiers", cap=30)
    + """
params: {npcs_fall_out: false, fallen_fight_on: true, target_unconscious: true}
tiers:
  - {name: brawl, attack: 2d6, defense: 2d6, damage: 1d6}
attacks:
  punch: {}
sides:
  post:
    - {name: Post, hp: 8, vigor: 10, tier: brawl}
  thug:
    - {name: Thug, hp: 10, vigor: 8, tier: brawl, attacks: [punch]}
"""
)
TIERS = {
    # novice against novice: a defense roll, no shield or armor
    "benchmark": ROOT / "scenarios/benchmarks/opposed-tiers-duel.yaml",
    # a tier of the scenario's own: kept dice, an expression of two terms (rolled die by
    # die), shield and armor, criticals from the next tier; two attacks in rotation, two a
    # turn; the attacker listed second; NPCs that fight on while falling
    "mixed": HEAD.format(rules="opposed-tiers", cap=40)
    + """
params: {npcs_fall_out: false, fallen_fight_on: true}
tiers:
  - {name: odd, attack: 3d6kh2, defense: 2d6+1d4, damage: 1d8+1,
     shield: {buckler: 1d4}, armor: {mail: 1d6-1}}
attacks:
  cut: {}
  lunge: {modifier: 2, damage_modifier: -1}
sides:
  post:
    - {name: Post, hp: 30, vigor: 10, tier: odd, defense_sl: 1, shield: buckler,
       armor: mail}
  fencer:
    - {name: Fencer, hp: 10, vigor: 8, tier: odd, weapon_sl: 2, form_sl: 1, attacks: [cut, lunge],
       attacks_per_turn: 2, target: random}
""",
    # defense and shield dice of one size (one cursor draws both), criticals from the next
    # tier with more dice of the same size, armor dice of another size
    "shielded": HEAD.format(rules="opposed-tiers", cap=60)
    + """
tiers:
  - {name: low, attack: 2d6, defense: 2d6, damage: 1d6, shield: {targe: 1d6},
     armor: {hide: 1d4}}
  - {name: high, attack: 3d6, defense: 3d6, damage: 2d6}
attacks:
  club: {}
sides:
  wall:
    - {name: Wall, hp: 40, vigor: 12, tier: low, shield: targe, armor: hide}
  brute:
    - {name: Brute, hp: 10, vigor: 8, tier: low, weapon_sl: 3, form_sl: 2, attacks: [club]}
""",
    # damage dice with more outcomes than int64 holds (40**12 wraps around): not tabled
    "huge-dice": HEAD.format(rules="opposed-tiers", cap=20)
    + """
tiers:
  - {name: giant, attack: 2d6, defense: 2d6, damage: 12d40}
attacks:
  stomp: {}
sides:
  hill:
    - {name: Hill, hp: 900, vigor: 10, tier: giant}
  giant:
    - {name: Giant, hp: 10, vigor: 8, tier: giant, attacks: [stomp]}
""",
    # a player character: its first fall ends the duel without taking it out of the
    # fight (it stays a target); falling, unconscious or dead at once by the damage; a
    # round cap that many duels reach before any fall (draws)
    "player": HEAD.format(rules="opposed-tiers", cap=4)
    + """
tiers:
  - {name: brawl, attack: 2d6, defense: 2d6, damage: 2d6}
attacks:
  punch: {}
sides:
  hero:
    - {name: Hero, hp: 6, vigor: 4, tier: brawl, player: true}
  thug:
    - {name: Thug, hp: 10, vigor: 8, tier: brawl, form_sl: 1, attacks: [punch]}
""",
    # an NPC that fights on while falling: its first fall does not end the duel, the
    # rest is played as on the general path; the unconscious stay targets
    "fight-on": FIGHT_ON,
    # rolls of other sizes, two attacks at a time: 3d6 against 2d8 + 2, 1d10 damage and a
    # 2d10 critical, an attack modifier, a damage modifier that the floor of 1 meets; an
    # odd round cap that some duels reach (its last round played alone)
    "odd-cap": HEAD.format(rules="opposed-tiers", cap=7)
    + """
params: {damage_floor: 1}
tiers:
  - {name: odd, attack: 3d6, defense: 2d8, damage: 1d10}
  - {name: next, attack: 4d6, defense: 3d8, damage: 2d10}
attacks:
  jab: {modifier: 1, damage_modifier: -3}
sides:
  post:
    - {name: Post, hp: 25, tier: odd, defense_sl: 2}
  jabber:
    - {name: Jabber, hp: 10, tier: odd, weapon_sl: 1, attacks: [jab]}
""",
    # one attack made three times a turn (not two at a time: the pair loop's rounds
    # are its attacks), against shield and armor; an odd round cap that some duels reach
    "flurry": HEAD.format(rules="opposed-tiers", cap=5)
    + """
tiers:
  - {name: quick, attack: 2d6, defense: 2d6, damage: 1d6, shield: {targe: 1d6},
     armor: {hide: 1d4}}
attacks:
  jab: {modifier: 1}
sides:
  wall:
    - {name: Wall, hp: 6, vigor: 10, tier: quick, shield: targe, armor: hide}
  jabber:
    - {name: Jabber, hp: 10, tier: quick, weapon_sl: 1, attacks: [jab], attacks_per_turn: 3}
""",
    # two a turn at an NPC that fights on while falling: falls in the middle of a turn,
    # the rest of the turn and the duel played as on the general path
    "flurry-fight-on": FIGHT_ON.replace("[punch]}", "[punch], attacks_per_turn: 2}"),
    # hits past the last damage bin (4096), counted one by one
    "heavy": HEAD.format(rules="opposed-tiers", cap=30)
    + """
tiers:
  - {name: titan, attack: 2d6, defense: 2d6, damage: 1d6+5000}
attacks:
  ram: {}
sides:
  wall:
    - {name: Wall, hp: 40000, tier: titan}
  ram:
    - {name: Ram, hp: 10, tier: titan, attacks: [ram]}
""",
}


def _tap_duel(cap: int, defender: str, profile: str = "0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3",
              params: str = "") -> str:  # fmt: skip
    """A draft1 duel of one Technique a Round, ``tap`` of ``profile``, against a defender
    of the fields ``defender``, with a round cap of ``cap``."""
    return (
        HEAD.format(rules="shattered-spirits-draft1", cap=cap)
        + params
        + f"""
techniques:
  tap: {{profile: [{profile}], speed: 1, ap: 1}}
sides:
  a:
    - {{name: A, endurance: 5, health: 5, plan: [tap]}}
  b:
    - {{name: B, {defender}}}
"""
    )


DRAFT1 = {
    # one Technique a Round against Guard 1
    "benchmark": ROOT / "scenarios/benchmarks/shattered-spirits-draft1-duel.yaml",
    # two Techniques at different Speeds, Disadvantage and fumbles, Glancing, Vigor
    "training": ROOT / "scenarios/shattered-spirits-draft1/training-dummy.yaml",
    # three Techniques out of Speed order (one played twice), Advantage, rolls above 12,
    # Cover, Exposed on the defender and Impaired on the attacker from the start, rows
    # that inflict Impaired, a reaction that costs more tokens than the defender holds
    # (an override's cost: a file must give a reaction its tokens), Endurance overflow
    # off, the attacker listed second, random targets
    "mixed": (
        HEAD.format(rules="shattered-spirits-draft1", cap=40)
        + """
params: {endurance_overflow: false, ap_per_round: 6}
techniques:
  sweep: {profile: [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6], speed: 5, ap: 1, advantage: 1,
          status: {9: [impaired 1]}}
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5], speed: 2, ap: 1, modifier: 3,
        damage_modifier: 1}
  haymaker: {profile: [0, 0, 0, 2, 3, 4, 5, 6, 8, 10, 12], speed: 4, ap: 2,
             disadvantage: 1, glancing: true}
sides:
  post:
    - {name: Post, endurance: 12, health: 18, vigor: 2, guard: 1, cover: true, exposed: 1,
       tokens: {reflex: 1, grit: 1}, react: {evade: {when_damage_at_least: 3}}}
  fighter:
    - {name: Fighter, endurance: 8, health: 8, impaired: 1, target: random,
       plan: [sweep, jab, haymaker, jab]}
""",
        {"params.reaction_cost": 2},
    ),
    # a round cap that most duels reach (draws), a defender Shaken from the start
    "capped": _tap_duel(3, "endurance: 0, health: 14"),
    # the counted Shaken of one Technique a Round (overflow on): a cap that some duels
    # reach before the defender is Shaken and most after, Vigor, nobody Downed
    "capped-shaken": _tap_duel(5, "vigor: 2, endurance: 4, health: 30"),
    # an even cap: every round in pairs of attacks; Downed in rounds 4 to 6 (the last),
    # or not at all, each after it was Shaken
    "even-cap-shaken": _tap_duel(6, "vigor: 2, endurance: 3, health: 4"),
    # one Technique a Round with Endurance overflow off: the Shaken tested for, its
    # excess lost
    "no-overflow": _tap_duel(
        30,
        "vigor: 1, endurance: 6, health: 8",
        "0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 5",
        "params: {endurance_overflow: false}\n",
    ),
}


def _spear_duel(spear: str, dc: int, params: str = "") -> str:
    """A glitters-d20 duel of one 1d8 spear a turn, of the fields ``spear`` (its to-hit,
    Advantage, critical threshold), against a defender of DC ``dc``."""
    return (
        HEAD.format(rules="glitters-d20", cap=40)
        + params
        + "attacks:\n"
        + f"  spear: {{damage: 1d8, type: piercing, {spear}}}\n"
        + "sides:\n  a:\n    - {name: A, hp: 5, attacks: [spear]}\n"
        + f"  b:\n    - {{name: B, hp: 30, dc: {dc}}}\n"
    )


GLITTERS = {
    # one main-hand attack a turn against DC 12
    "benchmark": ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml",
    # a player: two-handed and main-hand attacks in rotation, an offhand attack, armor
    "training": ROOT / "scenarios/glitters-d20/training-duel.yaml",
    # Advantage (3d20), a keen weapon, a ranged attack at a prone target, damage of two
    # terms, fire and slashing at a defender immune to fire and to Bleeding, lightning
    # against metal armor, resistance and vulnerability, rounding up, misses on a tie;
    # the attacker listed second, Blocking, and a player defender under modern death rules
    "mixed": HEAD.format(rules="glitters-d20", cap=40)
    + """
params: {advantage_dice: 3, rounding: up, hit_on_tie: false, death_rules: modern}
attacks:
  brand: {damage: 1d8+1d4+1, type: fire, bonus: 4, advantage: 1, critical_threshold: 18}
  sabre: {damage: 1d6, type: slashing, bonus: 5, attribute: dex}
  bolt: {damage: 2d4, type: lightning, bonus: 3, ranged: true}
  crossbow: {damage: 1d10, type: piercing, bonus: 2, ranged: true, hand: offhand}
sides:
  post:
    - {name: Post, player: true, hp: 45, dc: 11, armor: mail, armor_bc: 3, prone: true,
       immune: [fire], resist: [slashing], vulnerable: [lightning], status_immune: [bleeding]}
  knight:
    - {name: Knight, hp: 20, attributes: {dex: 14}, target: random,
       attacks: [brand, sabre, bolt, crossbow]}
""",
    # damage tabled (every die a d6): 2d6 + 1 and 3d6 in rotation (a 3d6 critical rolls
    # five dice), criticals from 16, a 1d6 offhand against a resistance rounded up
    "tabled": HEAD.format(rules="glitters-d20", cap=40)
    + """
params: {rounding: up}
attacks:
  maul: {damage: 2d6+1, type: bludgeoning, bonus: 3, critical_threshold: 16}
  flail: {damage: 3d6, type: bludgeoning, bonus: 2}
  knife: {damage: 1d6, type: piercing, bonus: 4, hand: offhand}
sides:
  a:
    - {name: A, hp: 20, attacks: [maul, flail, knife]}
  b:
    - {name: B, hp: 50, dc: 10, resist: [piercing]}
""",
    # damage dice of several sizes through one cursor, die by die: d8 and d4 in one
    # attack (its critical's bonus dice go on in the d8s' batch), a d3 offhand (rejected
    # batches), a two-handed d130 (a size past the looked-up ones)
    "sizes": HEAD.format(rules="glitters-d20", cap=40)
    + """
attacks:
  morningstar: {damage: 1d8+1d4+1d8, type: bludgeoning, bonus: 4, critical_threshold: 17}
  greatclub: {damage: 1d130, type: bludgeoning, bonus: 2, hand: two-handed}
  hatchet: {damage: 1d3+1, type: piercing, bonus: 3, hand: offhand}
sides:
  a:
    - {name: A, hp: 20, attacks: [morningstar, greatclub, morningstar, hatchet]}
  b:
    - {name: B, hp: 300, dc: 10}
""",
    # one attack a turn whose critical rolls too many outcomes to table (five d8): die
    # by die, each hit's dice going on in the batch of the hit before
    "big-crit": HEAD.format(rules="glitters-d20", cap=40)
    + """
attacks:
  maul: {damage: 3d8, type: bludgeoning, bonus: 3, critical_threshold: 18}
sides:
  a:
    - {name: A, hp: 5, attacks: [maul]}
  b:
    - {name: B, hp: 70, dc: 11}
""",
    # a round cap that most duels reach (draws), a knight who Blocks in place of an offhand
    "capped": HEAD.format(rules="glitters-d20", cap=3)
    + """
attacks:
  tap: {damage: 1d4, type: bludgeoning, attribute: null}
sides:
  a:
    - {name: A, hp: 5, defense: block, shield_bc: 1, attacks: [tap]}
  b:
    - {name: B, hp: 30, dc: 6}
""",
    # a d12 with criticals from 18 against a resistance rounded down, an odd round cap
    # that some duels reach (its last round played alone after the pairs)
    "odd-cap": HEAD.format(rules="glitters-d20", cap=7)
    + """
attacks:
  axe: {damage: 1d12+1, type: slashing, bonus: 4, critical_threshold: 18}
sides:
  a:
    - {name: A, hp: 5, attacks: [axe]}
  b:
    - {name: B, hp: 45, dc: 13, resist: [slashing], status_immune: [bleeding]}
""",
    # one attack a turn with Advantage (2d20 keep the higher): one attack at a time
    "keen": _spear_duel("bonus: 2, advantage: 1", dc=14),
    # Advantage with 3d20 keep the highest, a keen weapon: the one-attack loop reads the
    # three d20s as one number of 8,000
    "keen-3": _spear_duel(
        "bonus: 2, advantage: 2, critical_threshold: 19",
        dc=16,
        params="params: {advantage_dice: 3}\n",
    ),
    # Disadvantage with 4d20 keep the lowest: more d20s than the one-attack loop reads as
    # one number, so the general duel loop
    "keen-4": _spear_duel(
        "bonus: 9, disadvantage: 1", dc=10, params="params: {advantage_dice: 4}\n"
    ),
    # one ranged attack a turn at a prone target (one disadvantage): one at a time
    "prone": HEAD.format(rules="glitters-d20", cap=40)
    + """
attacks:
  sling: {damage: 1d6, type: bludgeoning, bonus: 3, ranged: true}
sides:
  a:
    - {name: A, hp: 5, attacks: [sling]}
  b:
    - {name: B, hp: 25, dc: 11, prone: true}
""",
    # hits past the last damage bin (4096), counted one by one
    "heavy": HEAD.format(rules="glitters-d20", cap=30)
    + """
attacks:
  ram: {damage: 1d4+5000, type: bludgeoning, bonus: 5, attribute: null}
sides:
  a:
    - {name: A, hp: 5, attacks: [ram]}
  b:
    - {name: B, hp: 40000, dc: 12}
""",
}
# the duels one edit away from the benchmark duels that bench/duels times
BENCH_DUELS = {
    (path.read_text().split("rules: ")[1].split()[0], path.stem): path
    for path in sorted((ROOT / "bench/duels").glob("*.yaml"))
}
DUELS = (
    # shattered-spirits' duel path has tests of its own (test_ss_duel_path.py), whose
    # "rotation, two per turn" covers its bench duel's shape
    {case: path for case, path in BENCH_DUELS.items() if case[0] != "shattered-spirits"}
    | {("zones-3d6", k): v for k, v in ZONES.items()}
    | {("opposed-tiers", k): v for k, v in TIERS.items()}
    | {("shattered-spirits-draft1", k): v for k, v in DRAFT1.items()}
    | {("glitters-d20", k): v for k, v in GLITTERS.items()}
)


def _scenario(case: tuple[str, str]) -> Any:
    """The duel of ``case``: a file, a text, or a text and the overrides it is run with."""
    duel = DUELS.get(case) or BENCH_DUELS[case]
    if isinstance(duel, tuple):
        return simlab.loads(duel[0]).with_(duel[1])
    return simlab.load(duel) if isinstance(duel, Path) else simlab.loads(duel)


def _duel_kernels(kernels: Any) -> list[Any]:
    """A system's plain-duel block kernels (all but the earlier draft have two or
    three)."""
    names = (
        "run_duel_block",
        "run_one_attack_duel_block",
        "run_pair_duel_block",
        "run_planned_duel_block",
    )
    return [getattr(kernels, name) for name in names if hasattr(kernels, name)]


@pytest.mark.parametrize("case", list(DUELS), ids=[f"{r}-{k}" for r, k in DUELS])
@pytest.mark.slow  # compiles every rule system's plain-duel kernels
def test_duel_path_equals_general_path(case: tuple[str, str]) -> None:
    key = "-".join(case)
    job = compile_job(_scenario(case), 6000, None)
    kernels = rule_module(job.rules, "kernels")
    assert kernels.duel_attacker(job.params) >= 0
    duel_kernel = kernels.block_kernel(job.params)
    assert duel_kernel in _duel_kernels(kernels)
    general = block_tallies(job, kernels.run_block, 3)
    assert general.attempts.sum() > 6000  # the duels were played
    for chunks in (1, 5):
        duel = block_tallies(job, duel_kernel, chunks)
        for name, a, b in zip(general._fields, general, duel, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"{key}: {name}, {chunks} chunks")


@pytest.mark.parametrize(
    ("case", "sides", "kernel"),
    [("benchmark", 8, "run_pair_duel_block"), ("heavy", 4, "run_pair_duel_block"),
     ("capped", 4, "run_pair_duel_block"), ("odd-cap", 12, "run_pair_duel_block"),
     ("keen", 8, "run_one_attack_duel_block"), ("prone", 6, "run_one_attack_duel_block"),
     ("keen-3", 8, "run_one_attack_duel_block"), ("keen-4", 8, "run_duel_block"),
     ("tabled", 6, "run_duel_block"), ("training", 0, "run_duel_block"),
     ("mixed", 0, "run_duel_block"), ("sizes", 0, "run_duel_block"),
     ("big-crit", 0, "run_planned_duel_block")],
)  # fmt: skip
def test_glitters_duels_take_each_duel_path(case: str, sides: int, kernel: str) -> None:
    """The glitters-d20 duels above take both damage paths, tabled (every damage die of
    one size) and die by die (mixed sizes, or a critical of too many outcomes), and the
    four duel kernels: two attacks at a time (one attack a turn of one d20), one at a
    time (Advantage of up to 3d20), one at a time with its damage die by die, and the
    general duel loop (two attacks a turn, 4d20)."""
    job = compile_job(_scenario(("glitters-d20", case)), 10, None)
    kernels = rule_module(job.rules, "kernels")
    assert kernels.duel_damage_sides(job.params) == sides
    assert kernels.block_kernel(job.params) is getattr(kernels, kernel)


@pytest.mark.parametrize(
    ("case", "kernel"),
    [("benchmark", "run_one_attack_duel_block"), ("capped", "run_one_attack_duel_block"),
     ("heavy", "run_one_attack_duel_block"), ("flurry", "run_one_attack_duel_block"),
     ("huge-dice", "run_planned_duel_block"), ("many-dice", "run_planned_duel_block"),
     ("training", "run_duel_block"), ("mixed", "run_duel_block"),
     ("sizes", "run_duel_block")],
)  # fmt: skip
def test_zones_duels_take_each_duel_kernel(case: str, kernel: str) -> None:
    """The zones-3d6 duels above take the three duel kernels: one attack (once or
    three times a turn) with tabled damage (hits past the last damage bin too), one
    attack whose damage dice are too many or too large to table (die by die), and the
    general duel loop (several attacks)."""
    job = compile_job(_scenario(("zones-3d6", case)), 10, None)
    kernels = rule_module(job.rules, "kernels")
    assert kernels.block_kernel(job.params) is getattr(kernels, kernel)


@pytest.mark.parametrize(
    ("case", "kernel"),
    [("benchmark", "run_pair_duel_block"), ("heavy", "run_pair_duel_block"),
     ("player", "run_pair_duel_block"), ("odd-cap", "run_pair_duel_block"),
     ("shielded", "run_one_attack_duel_block"), ("fight-on", "run_one_attack_duel_block"),
     ("flurry", "run_one_attack_duel_block"),
     ("flurry-fight-on", "run_one_attack_duel_block"),
     ("huge-dice", "run_duel_block"), ("mixed", "run_duel_block")],
)  # fmt: skip
def test_tiers_duels_take_each_duel_kernel(case: str, kernel: str) -> None:
    """The opposed-tiers duels above take the three duel kernels: two attacks at a time
    (one attack a turn, every stream drawn through a cursor, no shield or armor, the
    first fall ends the duel), one at a time (shield and armor; a defender that fights
    on; one attack made several times a turn), and the general duel loop (two attacks
    in rotation; damage dice too many to table)."""
    job = compile_job(_scenario(("opposed-tiers", case)), 10, None)
    kernels = rule_module(job.rules, "kernels")
    assert kernels.block_kernel(job.params) is getattr(kernels, kernel)


@pytest.mark.parametrize("case", list(BENCH_DUELS), ids=[k for _, k in BENCH_DUELS])
def test_bench_duels_take_the_kernel_their_header_names(case: tuple[str, str]) -> None:
    """Each duel of bench/duels says in its header which loop plays it: the one-attack
    loop (``run_one_attack_duel_block``; in glitters-d20 with its damage die by die,
    ``run_planned_duel_block``), or else the system's general duel loop
    (``run_duel_block``; shattered-spirits has only that one)."""
    comment = BENCH_DUELS[case].read_text().split("\nscenario:")[0]
    header = " ".join(line.lstrip("# ") for line in comment.splitlines())
    job = compile_job(_scenario(case), 10, None)
    kernels = rule_module(job.rules, "kernels")
    loops = {"one-attack loop, its damage die by die": "run_planned_duel_block",
             "one-attack loop": "run_one_attack_duel_block"}  # fmt: skip
    named = [kernel for words, kernel in loops.items() if words in header]
    expected = named[0] if named else "run_duel_block"
    assert kernels.block_kernel(job.params) is getattr(kernels, expected), header


FIGHTS = [
    "scenarios/zones-3d6/longsword-vs-plate.yaml",
    "scenarios/opposed-tiers/novice-duel.yaml",
    "scenarios/shattered-spirits-draft1/duel-both-drafts.yaml",
    "scenarios/glitters-d20/bleeding-duel.yaml",
]


@pytest.mark.parametrize("path", FIGHTS)
def test_a_fight_where_both_attack_takes_the_general_path(path: str) -> None:
    job = compile_job(simlab.load(ROOT / path), 10, None)
    kernels = rule_module(job.rules, "kernels")
    assert kernels.duel_attacker(job.params) == -1
    assert kernels.block_kernel(job.params) not in _duel_kernels(kernels)
