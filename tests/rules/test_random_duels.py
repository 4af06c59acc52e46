"""Plain duels drawn at random take a duel path and give the general path's tallies.

``test_duel_paths.py`` picks its duels by hand, one for each rule a duel loop applies.
Here a seeded generator writes duels of every shape a designer might: damage of one or
two dice terms of any of several sizes (so tabled, drawn as one number, or die by die),
one to three attacks (main-hand, offhand, two-handed in glitters-d20), one to three a
turn, Advantage and Disadvantage of several d20s, round caps that some duels reach.
Each must take one of its system's duel kernels, and every tally must be the integer the
general path (``kernels.run_block``) gives on the same dice.
"""

from __future__ import annotations

import numpy as np
import pytest

import simlab
from simlab.api import compile_job
from simlab.rules import rule_module
from tests.support import block_tallies

N = 3000  # encounters a duel
DUELS_A_SYSTEM = 12
FACES = (3, 4, 6, 8, 10, 12, 20, 130)  # 3: rejected batches; 130: past the tabled sizes


def _damage(pick: np.random.Generator, faces: tuple[int, ...] = FACES) -> str:
    """A damage expression of one or two dice terms and maybe a constant."""
    terms = [f"{pick.integers(1, 4)}d{pick.choice(faces)}" for _ in range(pick.integers(1, 3))]
    flat = int(pick.integers(0, 4))
    return "+".join(terms) + (f"+{flat}" if flat else "")


def _glitters(pick: np.random.Generator) -> str:
    hands = ["main", "two-handed", "main", "offhand"]
    plain = pick.random() < 0.4  # one attack of one die: the pair or one-attack loop
    n_attacks = 1 if plain else int(pick.integers(1, 4))
    attacks = []
    for k in range(n_attacks):
        hand = "main" if k == 0 else str(pick.choice(hands))
        damage = f"1d{pick.choice([4, 6, 8, 12])}+1" if plain else _damage(pick)
        fields = [f"damage: {damage}", f"type: {pick.choice(['bludgeoning', 'piercing'])}",
                  f"bonus: {pick.integers(0, 7)}", f"hand: {hand}", "attribute: null"]  # fmt: skip
        if pick.random() < 0.4:
            fields.append(f"advantage: {pick.integers(1, 3)}")
        if not plain and pick.random() < 0.2:
            fields.append("disadvantage: 1")
        if pick.random() < 0.3:
            fields.append(f"critical_threshold: {pick.integers(17, 21)}")
        attacks.append(f"  a{k}: {{{', '.join(fields)}}}")
    rounding = pick.choice(["up", "down"])
    params = (f"params: {{advantage_dice: {pick.integers(2, 5)}, rounding: {rounding}, "
              f"hit_on_tie: {str(bool(pick.random() < 0.5)).lower()}}}")  # fmt: skip
    names = ", ".join(f"a{k}" for k in range(n_attacks))
    resist = "resist: [piercing], " if pick.random() < 0.3 else ""
    return "\n".join([
        params, "attacks:", *attacks, "sides:", "  a:",
        f"    - {{name: A, hp: 5, attacks: [{names}]}}", "  b:",
        f"    - {{name: B, hp: {pick.integers(15, 120)}, {resist}dc: {pick.integers(8, 17)}}}",
    ])  # fmt: skip


def _zones(pick: np.random.Generator) -> str:
    n_attacks = int(pick.integers(1, 4))
    attacks = []
    for k in range(n_attacks):
        fields = [f"damage: {_damage(pick, (3, 4, 6, 8, 130))}"]
        if pick.random() < 0.4:
            fields.append(f"edge: {pick.integers(1, 3)}")
        if pick.random() < 0.2:
            fields.append(f"bonus: {pick.integers(-1, 3)}")
        attacks.append(f"  a{k}: {{{', '.join(fields)}}}")
    names = ", ".join(f"a{k}" for k in range(n_attacks))
    faces = sorted({int(f) for f in pick.integers(1, 4, pick.integers(0, 3))})  # d3 at least
    return "\n".join([
        "attacks:", *attacks, "sides:", "  a:",
        f"    - {{name: A, hp: 5, attacks: [{names}], attacks_per_turn: {pick.integers(1, 4)}}}",
        "  b:",
        f"    - {{name: B, hp: {pick.integers(15, 90)}, base_defense: {faces}, "
        f"bonus_defense: {pick.integers(0, 3)}}}",
    ])  # fmt: skip


def _tiers(pick: np.random.Generator) -> str:
    def dice() -> str:
        return f"{pick.integers(1, 4)}d{pick.choice([4, 6, 8, 10])}"

    shield = f", shield: {{buckler: {dice()}}}" if pick.random() < 0.4 else ""
    armor = f", armor: {{mail: {dice()}}}" if pick.random() < 0.4 else ""
    n_attacks = int(pick.integers(1, 3))
    attacks = [f"  a{k}: {{modifier: {pick.integers(-1, 3)}, "
               f"damage_modifier: {pick.integers(-1, 3)}}}" for k in range(n_attacks)]  # fmt: skip
    names = ", ".join(f"a{k}" for k in range(n_attacks))
    gear = (", shield: buckler" if shield else "") + (", armor: mail" if armor else "")
    fight_on = str(bool(pick.random() < 0.3)).lower()
    return "\n".join([
        f"params: {{npcs_fall_out: {str(fight_on == 'false').lower()}, "
        f"fallen_fight_on: {fight_on}}}",
        "tiers:", f"  - {{name: t, attack: {dice()}, defense: {dice()}, damage: {dice()}"
        f"{shield}{armor}}}",
        "attacks:", *attacks, "sides:", "  post:",
        f"    - {{name: Post, hp: {pick.integers(8, 40)}, vigor: {pick.integers(4, 12)}, "
        f"tier: t, defense_sl: {pick.integers(0, 3)}{gear}}}",
        "  striker:",
        f"    - {{name: Striker, hp: 10, vigor: 8, tier: t, weapon_sl: {pick.integers(0, 3)}, "
        f"form_sl: {pick.integers(0, 3)}, attacks: [{names}], "
        f"attacks_per_turn: {pick.integers(1, 4)}}}",
    ])  # fmt: skip


MAKERS = {"glitters-d20": _glitters, "zones-3d6": _zones, "opposed-tiers": _tiers}
CASES = [(rules, k) for rules in MAKERS for k in range(DUELS_A_SYSTEM)]


def _duel(rules: str, k: int) -> str:
    """Duel ``k`` of ``rules``: the same text at every run (a generator of its own)."""
    pick = np.random.default_rng([sorted(MAKERS).index(rules), k])
    cap = int(pick.integers(3, 60))
    return (f"rules: {rules}\nscenario: random-duel\nseed: {k + 1}\nmax_rounds: {cap}\n"
            + MAKERS[rules](pick) + "\n")  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{r}-{k}" for r, k in CASES])
@pytest.mark.slow  # compiles every rule system's plain-duel kernels
def test_a_random_duel_gives_the_general_tallies(case: tuple[str, int]) -> None:
    text = _duel(*case)
    job = compile_job(simlab.loads(text), N, None)
    kernels = rule_module(job.rules, "kernels")
    assert kernels.duel_attacker(job.params) >= 0, text
    duel_kernel = kernels.block_kernel(job.params)
    assert duel_kernel is not kernels.run_untraced_block, text
    general = block_tallies(job, kernels.run_block, 2)
    assert general.attempts.sum() >= N  # the duels were played
    duel = block_tallies(job, duel_kernel, 3)
    for name, a, b in zip(general._fields, general, duel, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=f"{name}\n{text}")


def test_the_random_duels_take_every_duel_kernel() -> None:
    """Between them, the random duels reach each duel kernel of the three systems."""
    taken = set()
    for rules, k in CASES:
        job = compile_job(simlab.loads(_duel(rules, k)), 10, None)
        kernels = rule_module(rules, "kernels")
        block = kernels.block_kernel(job.params)
        taken |= {(rules, name) for name in dir(kernels)
                  if name.endswith("duel_block") and getattr(kernels, name) is block}  # fmt: skip
    expected = {(rules, name) for rules in MAKERS for name in dir(rule_module(rules, "kernels"))
                if name.endswith("duel_block")}  # fmt: skip
    assert taken == expected, sorted(expected - taken)
