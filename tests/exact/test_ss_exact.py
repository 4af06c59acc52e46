"""Tests of the exact engine for shattered-spirits (simlab.exact.shattered_spirits).

Each exact result is checked against a second computation written here from
docs/rules/shattered-spirits.md directly (dice enumeration, icepool, a backward recursion for the
mean time-to-down) and against values worked out by hand.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction
from pathlib import Path

import icepool
import numpy as np
import pytest

import simlab
from simlab.errors import ExactUnsupported
from simlab.exact.shattered_spirits import (
    TAIL_TOLERANCE,
    attack_outcome,
    duel_time_to_down,
    fight_caveats,
    roll_pmf,
)
from simlab.rules.shattered_spirits.model import Scenario

DUEL = Path(__file__).resolve().parents[2] / "scenarios" / "benchmarks" / "ss-duel.yaml"
ROWS = range(2, 13)


# -- the attack roll -----------------------------------------------------------------------


def brute_roll(net: int, bonus: int, modifier: int) -> dict[int, Fraction]:
    """Modified roll by listing every die outcome (docs/rules/shattered-spirits.md "Attack
    roll")."""
    n_dice = 2 if net == 0 else 3
    counts: dict[int, int] = {}
    faces = list(itertools.product(range(1, 7), repeat=n_dice))
    for dice in faces:
        if net == 0:
            kept = sum(dice)
        elif net > 0:
            kept = sum(dice) - min(dice) + bonus * (net - 1)
        else:
            kept = sum(dice) - max(dice) - bonus * (-net - 1)
        counts[kept + modifier] = counts.get(kept + modifier, 0) + 1
    return {k: Fraction(v, len(faces)) for k, v in counts.items()}


def icepool_roll(net: int, bonus: int, modifier: int) -> dict[int, float]:
    if net == 0:
        die = 2 @ icepool.d(6)
    elif net > 0:
        die = icepool.d(6).highest(3, 2) + bonus * (net - 1)
    else:
        die = icepool.d(6).lowest(3, 2) - bonus * (-net - 1)
    die = die + modifier
    total = die.denominator()
    return {int(k): die.quantity(k) / total for k in die.outcomes()}


ROLL_CASES = [
    (net, bonus, modifier)
    for net in (-4, -3, -2, -1, 0, 1, 2, 3, 4)
    for bonus in (0, 1, 2)
    for modifier in (-8, -1, 0, 3)
]


@pytest.mark.parametrize(("net", "bonus", "modifier"), ROLL_CASES)
def test_roll_pmf_matches_enumeration_and_icepool(net: int, bonus: int, modifier: int) -> None:
    got = roll_pmf(net, bonus, modifier)
    brute = brute_roll(net, bonus, modifier)
    oracle = icepool_roll(net, bonus, modifier)
    assert set(got) == set(brute) == set(oracle)
    for k in got:
        assert got[k] == pytest.approx(float(brute[k]), abs=1e-15)
        assert got[k] == pytest.approx(oracle[k], abs=1e-15)
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-14)
    assert list(got) == sorted(got)


def test_roll_pmf_hand_values() -> None:
    plain = roll_pmf(0, 1, 0)
    assert plain[7] == pytest.approx(6 / 36)
    assert plain[2] == pytest.approx(1 / 36)
    advantage = roll_pmf(1, 1, 0)  # 3d6 keep highest two: 12 needs two sixes
    assert advantage[12] == pytest.approx(16 / 216)
    assert advantage[2] == pytest.approx(1 / 216)
    disadvantage = roll_pmf(-1, 1, 0)
    assert disadvantage[2] == pytest.approx(16 / 216)
    assert roll_pmf(3, 1, 0)[14] == pytest.approx(16 / 216)  # Advantage + 2 Bonuses
    assert roll_pmf(-2, 2, 1)[1] == pytest.approx(16 / 216)  # lowest pair 2, −2 penalty, +1


# -- one attack ----------------------------------------------------------------------------


def brute_attack(
    scenario: Scenario, attacker: int, attack_name: str, defender: int
) -> tuple[Fraction, Fraction, dict[int, Fraction]]:
    """(hit rate, crit rate, {damage: probability}) by listing dice outcomes."""
    people = [m for members in scenario.sides.values() for m in members for _ in range(m.count)]
    a, d = people[attacker], people[defender]
    atk = scenario.attacks[attack_name]
    prm = scenario.params
    net = atk.advantage - atk.disadvantage
    dice_count = 2 if net == 0 else 3
    faces = list(itertools.product(range(1, 7), repeat=dice_count))
    hit = crit = Fraction(0)
    damages: dict[int, Fraction] = {}
    for dice in faces:
        ordered = sorted(dice)
        if net == 0:
            roll = sum(dice)
        elif net > 0:
            roll = ordered[-1] + ordered[-2] + (net - 1) * prm.bonus_size
        else:
            roll = ordered[0] + ordered[1] + (net + 1) * prm.bonus_size
        roll += atk.modifier + a.roll_modifier
        tier, damage = "miss", 0
        if roll >= 2:
            row = min(roll, 12)
            base = atk.profile[row - 2]
            if row in atk.tier:
                tier = atk.tier[row]
            else:
                tier = "hit" if base > 0 or atk.status.get(row) else "miss"
            if tier != "miss":
                raw = base + atk.damage_modifier
                raw += d.exposed * prm.exposed_per_level - a.impaired * prm.impaired_per_level
                guard, glancing = d.guard, atk.glancing
                if d.cover and glancing:
                    guard += prm.cover_guard
                glancing = glancing or d.cover
                damage = max(raw - guard, 0)
                if glancing:
                    damage = -(-damage // prm.glancing_divisor)
        p = Fraction(1, len(faces))
        hit += p if tier != "miss" else 0
        crit += p if tier == "crit" else 0
        damages[damage] = damages.get(damage, Fraction(0)) + p
    return hit, crit, damages


HAND_SCENARIO = """
scenario: hand
rules: shattered-spirits
params: {glancing_divisor: 3, cover_guard: 1, bonus_size: 2}
attacks:
  strike: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]}
  tiered:
    profile: [0, 1, 2, 2, 3, 3, 4, 4, 5, 6, 9]
    tier: {3: miss, 11: crit, 12: crit}
    status: {2: [staggered], 10: [stun 1]}
  lucky: {profile: [0, 0, 0, 1, 1, 2, 2, 3, 4, 6, 12], advantage: 3, modifier: -2,
          damage_modifier: 1, tier: {12: crit}}
  clumsy: {profile: [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6], disadvantage: 2, modifier: 1}
  sharp: {profile: [0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 20], glancing: true, advantage: 2,
          disadvantage: 1, tier: {12: crit}}
  wild: {profile: [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9], modifier: 8, tier: {2: crit}}
  feeble: {profile: [5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 9], modifier: -8, tier: {3: crit}}
sides:
  heroes:
    - {name: Ace, hp: 20, attacks: [strike, tiered, lucky, clumsy, sharp, wild, feeble]}
    - {name: Weak, hp: 20, impaired: 2, roll_modifier: 1, attacks: [strike, sharp]}
  foes:
    - {name: Plain, hp: 30}
    - {name: Brute, hp: 30, guard: 2, exposed: 1, count: 2}
    - {name: Hidden, hp: 30, guard: 1, cover: true}
    - {name: Wary, hp: 30, tokens: {grit: 1}, react: {block: {when_damage_at_least: 1}}}
"""


def load_hand(text: str = HAND_SCENARIO) -> Scenario:
    """``text`` with Wary's Grit spent by an override: a file must give a reaction its
    token, and a Block that can never be paid for never fires, so the figures against
    Wary are those of an attack on a defender that never reacts."""
    scenario = simlab.loads(text).with_({"Wary.tokens.grit": 0})
    assert isinstance(scenario, Scenario)
    return scenario


def hand_cases() -> list[tuple[int, str, int]]:
    attacks = ["strike", "tiered", "lucky", "clumsy", "sharp", "wild", "feeble"]
    cases = [(0, name, d) for name in attacks for d in (2, 3, 4, 5, 6)]
    cases += [(1, name, d) for name in ("strike", "sharp") for d in (2, 3, 5)]
    return cases


@pytest.mark.parametrize(("attacker", "attack", "defender"), hand_cases())
def test_attack_outcome_matches_enumeration(attacker: int, attack: str, defender: int) -> None:
    scenario = load_hand()
    got = attack_outcome(scenario, attacker, attack, defender)
    hit, crit, damages = brute_attack(scenario, attacker, attack, defender)
    assert got.hit_rate == pytest.approx(float(hit), abs=1e-14)
    assert got.crit_rate == pytest.approx(float(crit), abs=1e-14)
    assert len(got.damage_pmf) == max(damages) + 1
    for dmg, prob in enumerate(got.damage_pmf):
        assert prob == pytest.approx(float(damages.get(dmg, 0)), abs=1e-14)
    mean = sum(k * v for k, v in damages.items())
    assert got.mean_damage == pytest.approx(float(mean), abs=1e-13)
    assert got.row_pmf.sum() == pytest.approx(1.0, abs=1e-14)


def test_duel_profile_against_guard_1_by_hand() -> None:
    out = attack_outcome(simlab.load(DUEL), 0, "strike", 1)
    # rows 2, 3 deal nothing (default tier miss); row 4's 1 damage is stopped by Guard 1
    assert out.damage_pmf[0] == pytest.approx(6 / 36)
    assert out.hit_rate == pytest.approx(33 / 36)  # row 4 is a hit that deals 0
    assert out.crit_rate == 0.0
    assert out.damage_pmf[8] == 0.0  # row 12 deals 10 − 1 = 9; no row deals 8
    assert out.damage_pmf[9] == pytest.approx(1 / 36)
    assert out.mean_damage == pytest.approx(113 / 36)


def test_extreme_rolls_by_hand() -> None:
    scenario = load_hand()
    wild = attack_outcome(scenario, 0, "wild", 2)  # 2d6 + 8: rows ≥ 12 from a total of 4
    assert wild.row_pmf[12] == pytest.approx(33 / 36)
    assert wild.damage_pmf[9] == pytest.approx(33 / 36)
    feeble = attack_outcome(scenario, 0, "feeble", 2)  # 2d6 − 8: below 2 misses
    assert feeble.row_pmf[0] == pytest.approx(30 / 36)  # dice below 10
    assert feeble.crit_rate == pytest.approx(2 / 36)  # dice 11 → row 3, a crit
    assert feeble.hit_rate == pytest.approx(5 / 36)  # row 4 (dice 12) deals 0: a miss
    assert feeble.damage_pmf[5] == pytest.approx(3 / 36)  # dice 10 → row 2
    assert feeble.damage_pmf[6] == pytest.approx(2 / 36)
    assert len(feeble.damage_pmf) == 7  # row 12's 9 is out of reach


def test_reactions_are_unsupported_only_when_they_can_fire() -> None:
    scenario = simlab.loads(HAND_SCENARIO)
    with pytest.raises(ExactUnsupported, match=r"reactions.*react: block on Wary"):
        attack_outcome(scenario, 0, "strike", 6)
    # no tokens: the block can never be paid for
    assert attack_outcome(load_hand(), 0, "strike", 6).hit_rate > 0
    high = HAND_SCENARIO.replace(
        "tokens: {grit: 1}, react: {block: {when_damage_at_least: 1}}",
        "tokens: {reflex: 1}, react: {evade: {when_damage_at_least: 11}}",
    )
    attack_outcome(simlab.loads(high), 0, "strike", 6)  # strike deals at most 10
    attack_outcome(simlab.loads(high), 0, "sharp", 6)  # 20 on row 12, Glancing: 10
    with pytest.raises(ExactUnsupported, match="react: evade"):
        attack_outcome(simlab.loads(high), 0, "lucky", 6)  # row 12: 12 + 1
    free = HAND_SCENARIO.replace("params: {", "params: {reaction_cost: 0, ")
    with pytest.raises(ExactUnsupported, match="react: block"):
        attack_outcome(load_hand(free), 0, "strike", 6)  # cost 0: always affordable


def test_bad_indices_and_names() -> None:
    scenario = load_hand()
    with pytest.raises(KeyError):
        attack_outcome(scenario, 0, "nope", 2)
    with pytest.raises(IndexError):
        attack_outcome(scenario, 0, "strike", 7)


# -- time to down --------------------------------------------------------------------------


def backward_mean(damage_pmfs: list[np.ndarray], per_round: int, need: int) -> float:
    """E[rounds to deal ``need`` damage] with one attack per round, by backward recursion.

    m(h) = 1 + Σ_d q(d) m(h − d) (m ≤ 0 = 0), solved for m(h) since q(0) keeps h.
    """
    assert per_round == 1 and len(damage_pmfs) == 1
    q = damage_pmfs[0]
    m = np.zeros(need + 1)
    for h in range(1, need + 1):
        rest = sum(q[d] * m[h - d] for d in range(1, min(h, len(q))))
        m[h] = (1 + rest) / (1 - q[0])
    return float(m[need])


def test_ss_duel_benchmark_mean() -> None:
    scenario = simlab.load(DUEL)
    ttd = duel_time_to_down(scenario)
    assert ttd.mean == pytest.approx(10.16650, abs=5e-6)
    assert round(ttd.mean, 5) == 10.16650
    assert ttd.error_bound < 1e-10
    assert ttd.tail < TAIL_TOLERANCE
    assert ttd.pmf[0] == 0.0
    assert ttd.pmf.sum() + ttd.tail == pytest.approx(1.0, abs=1e-13)
    assert ttd.censored < 1e-30  # cap 100 rounds
    assert ttd.capped_pmf.shape == (101,)
    assert ttd.median == 10
    # Need 30 damage at most 9 per attack: never before round 4.
    assert ttd.pmf[1:4].sum() == 0.0 and ttd.pmf[4] > 0
    q = attack_outcome(scenario, 0, "strike", 1).damage_pmf
    four = np.convolve(np.convolve(q, q), np.convolve(q, q))  # total of four attacks
    assert ttd.pmf[4] == pytest.approx(four[30:].sum(), rel=1e-12)
    assert ttd.mean == pytest.approx(backward_mean([q], 1, 30), abs=1e-11)


ROTATION = """
scenario: rotation
rules: shattered-spirits
max_rounds: 40
attacks:
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 6]}
  hook: {profile: [0, 0, 0, 2, 3, 4, 5, 6, 7, 8, 9], disadvantage: 1, tier: {12: crit}}
  kick: {profile: [0, 1, 1, 1, 1, 5, 5, 5, 5, 5, 5], glancing: true}
sides:
  a:
    - {name: A, hp: 10, attacks: [jab, hook, kick], attacks_per_turn: 2, target: random}
    - {name: Helper, hp: 10}
  b:
    - {name: D, hp: 18, vigor: 6, guard: 1, downed: wounds}
"""


def test_rotation_duel_against_direct_chain() -> None:
    scenario = simlab.loads(ROTATION)
    ttd = duel_time_to_down(scenario)
    pmfs = {k: attack_outcome(scenario, 0, k, 2).damage_pmf for k in ("jab", "hook", "kick")}
    # Direct chain on total damage dealt, capped at the 24 needed (Vigor + HP).
    dist = {0: 1.0}
    order = ["jab", "hook", "kick"]
    turn, probs = 0, [0.0]
    for _ in range(60):
        downed = 0.0
        for _ in range(2):
            q = pmfs[order[turn % 3]]
            turn += 1
            new: dict[int, float] = {}
            for dealt, p in dist.items():
                for dmg, pq in enumerate(q):
                    if dealt + dmg >= 24:
                        downed += p * pq
                    else:
                        new[dealt + dmg] = new.get(dealt + dmg, 0.0) + p * pq
            dist = new
        probs.append(downed)
    np.testing.assert_allclose(ttd.pmf[:61], probs[: len(ttd.pmf[:61])], atol=1e-14)
    assert ttd.max_rounds == 40
    assert ttd.variance > 0
    assert ttd.error_bound < 1e-10


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (("{name: Helper, hp: 10}", "{name: Helper, hp: 10, attacks: [jab]}"),
         "got 2 combatants with attacks"),
        (("{name: D, hp: 18", "{name: E, hp: 5}\n    - {name: D, hp: 18"),
         "got 2 opponents of 'A'"),
        (("downed: wounds}", "attacks: [jab]}"), "got 2 combatants with attacks"),
        (("guard: 1,", "guard: 1, rushing: 1,"), "Rushing"),
        (("kick: {profile", "kick: {status: {9: [exposed 1]}, profile"), "exposed 1"),
        (("jab: {profile", "jab: {status: {12: [stun 2]}, profile"), "Stun"),
        (("guard: 1,", "guard: 1, tokens: {grit: 1}, react: {block: {when_damage_at_least: 3}},"),
         "react: block"),
    ],
)  # fmt: skip
def test_duel_unsupported(edit: tuple[str, str], match: str) -> None:
    text = ROTATION.replace(*edit)
    assert text != ROTATION
    with pytest.raises(ExactUnsupported, match=match):
        duel_time_to_down(simlab.loads(text))


def test_duel_allows_what_cannot_matter() -> None:
    # Impaired on the passive defender, Exposed on a tier-miss row, Stun on an unreachable
    # row, a reaction without tokens: none changes the damage the defender takes.
    text = (
        ROTATION.replace("jab: {profile", "jab: {status: {5: [impaired 2]}, profile")
        .replace("kick: {profile", "kick: {tier: {2: miss}, status: {2: [exposed 3]}, profile")
        .replace("hook: {profile", "hook: {modifier: 12, status: {4: [stun 1]}, profile")
        .replace("guard: 1,", "guard: 1, tokens: {reflex: 1}, "
                 "react: {evade: {when_damage_at_least: 0}},")
    )  # fmt: skip
    scenario = simlab.loads(text).with_({"D.tokens.reflex": 0})
    assert duel_time_to_down(scenario).mean > 0


def test_duel_never_downed() -> None:
    text = ROTATION.replace("guard: 1", "guard: 50")
    ttd = duel_time_to_down(simlab.loads(text))
    assert ttd.mean == float("inf") and ttd.median is None and ttd.censored == 1.0


def test_duel_too_slow_to_chain_is_refused_quickly() -> None:
    """A defender with 100,000 HP hit for about 3 a round: refused, not hung."""
    scenario = simlab.loads(DUEL.read_text().replace("hp: 30, guard", "hp: 100000, guard"))
    start = time.perf_counter()
    with pytest.raises(ExactUnsupported, match=r"too slow to solve exactly \(about [\d,]+ "
                       r"rounds, each over 100,0\d\d amounts of damage still needed to go "
                       r"down and \d+ outcomes of a round's damage; the chain runs past "
                       r"the round cap, as the answer gives the mean without it\)"):  # fmt: skip
        duel_time_to_down(scenario)
    assert time.perf_counter() - start < 5.0


def test_fight_caveats_name_exposed_from_an_opponent() -> None:
    """Exposed inflicted by the attacker moves the defender's damage in a fight (§1)."""
    text = DUEL.read_text()
    exposing = text.replace("    profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]",
                            "    profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]\n"
                            "    status: {12: [exposed 1]}")  # fmt: skip
    assert exposing != text
    caveats = fight_caveats(simlab.loads(exposing), 0, "strike", 1)
    assert set(caveats) == {"mean_damage"}
    assert "exposed 1" in caveats["mean_damage"]
    assert fight_caveats(simlab.loads(text), 0, "strike", 1) == {}


def test_fight_caveats_name_the_rates_a_reaction_can_move_one_by_one() -> None:
    """A defender that Blocks at 10 damage never Blocks the fresh strike (9 at most after
    Guard 1), but once Exposed it can: the Block lowers a roll of 4 to row 3, a miss, so
    the hit rate moves with the damage. strike has no critical row: its crit rate stays 0
    and is not named (it was, with every figure of the pair). A crit row is; a defender
    without the Grit to pay never Blocks, leaving the damage alone."""
    exposing = DUEL.read_text().replace("    profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]",
                                        "    profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]\n"
                                        "    status: {12: [exposed 1]}")  # fmt: skip
    blocking = exposing.replace("guard: 1,", "guard: 1, tokens: {grit: 1}, "
                                "react: {block: {when_damage_at_least: 10}},")  # fmt: skip
    assert blocking != exposing != DUEL.read_text()
    scn = simlab.loads(blocking)
    assert attack_outcome(scn, 0, "strike", 1).crit_rate == 0
    assert list(fight_caveats(scn, 0, "strike", 1)) == ["hit_rate", "mean_damage"]
    critting = scn.with_({"strike.tier": {12: "crit"}})
    assert list(fight_caveats(critting, 0, "strike", 1)) == ["hit_rate", "crit_rate",
                                                              "mean_damage"]  # fmt: skip
    penniless = scn.with_({"Defender.tokens.grit": 0})
    assert list(fight_caveats(penniless, 0, "strike", 1)) == ["mean_damage"]


def test_fight_caveats_name_every_attack_that_moves_a_figure() -> None:
    """Exposed from two opponents' attacks and Impaired on the attacker: the reason named
    the first attack alone, and said nothing of the Impaired (``ss-fight``: a Thug's blade
    on the Ranger, whom both Thugs can expose and whom the Witch's hex can impair)."""
    scn = simlab.load(DUEL.with_name("ss-fight.yaml"))
    names = [name for _, name in scn.combatant_names()]
    thug, ranger = names.index("Thug 1"), names.index("Ranger")
    caveats = fight_caveats(scn, thug, "blade", ranger)
    assert list(caveats) == ["mean_damage"]
    assert caveats["mean_damage"].split("; ") == [
        "Thug 1's 'blade' and Thug 2's 'blade' can inflict 'exposed 1' on Ranger during the fight",
        "Witch's 'hex' can inflict 'impaired 1' on Thug 1 during the fight",
    ]
