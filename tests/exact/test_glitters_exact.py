"""Tests of the exact engine for glitters-d20 (simlab.exact.glitters_d20).

Each exact result is checked against a brute-force enumeration written here from
docs/rules/glitters-d20.md — every d20 outcome and every damage-die outcome listed, the critical
bonus dice added die by die — and against the text's worked examples.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import simlab
from simlab.errors import ExactUnsupported
from simlab.exact import engine
from simlab.exact.glitters_d20 import (
    attack_outcome,
    duel_time_to_down,
    fight_caveats,
    hit_crit,
    hit_damage_pmf,
    natural_pmf,
)


def brute_attack(net: int, k: int, to_hit: int, mit: int, ct: int, tie: bool,
                 dice: list[int], flat: int, multiply: str, round_up: bool = False,
                 ) -> tuple[Fraction, Fraction, dict[int, Fraction]]:  # fmt: skip
    """(P(hit), P(crit), damage distribution) by listing every die."""
    rolls = list(itertools.product(range(1, 21), repeat=1 if net == 0 else k))
    hit_p = crit_p = Fraction(0)
    damage: dict[int, Fraction] = {}
    faces = list(itertools.product(*(range(1, s + 1) for s in dice)))
    bonus_faces = list(itertools.product(*(range(1, s + 1) for s in dice[1:])))
    for roll in rolls:
        natural = roll[0] if net == 0 else max(roll) if net > 0 else min(roll)
        crit = natural >= ct
        total = natural + to_hit
        hit = crit or total > mit or (tie and total == mit)
        weight = Fraction(1, len(rolls))
        if not hit:
            damage[0] = damage.get(0, Fraction(0)) + weight
            continue
        hit_p += weight
        crit_p += weight if crit else 0
        outcomes = [(sum(f), Fraction(1, len(faces))) for f in faces]
        if crit and dice:  # one bonus die per die, the first at its maximum
            outcomes = [(s + dice[0] + sum(b), w / len(bonus_faces))
                        for s, w in outcomes for b in bonus_faces]  # fmt: skip
        for value, w in outcomes:
            raw = max(value + flat, 0)
            if multiply == "immune":
                dealt = 0
            elif multiply == "vulnerable":
                dealt = 2 * raw
            elif multiply == "resistant":
                dealt = (raw + int(round_up)) // 2
            else:
                dealt = raw
            damage[dealt] = damage.get(dealt, Fraction(0)) + weight * w
    return hit_p, crit_p, damage


AFFINITY = {"neutral": (0, False), "vulnerable": (1, False), "resistant": (-1, False),
            "immune": (0, True)}  # fmt: skip


@pytest.mark.parametrize(
    ("net", "k", "to_hit", "mit", "ct", "tie", "dice", "flat", "multiply", "round_up"),
    [
        (0, 2, 5, 15, 20, True, [10], 5, "neutral", False),
        (0, 2, 5, 15, 20, False, [8, 8, 8], 0, "neutral", False),
        (1, 2, 3, 14, 19, True, [6, 4], -2, "vulnerable", False),
        (-1, 2, 7, 12, 18, True, [8], 1, "resistant", False),
        (-1, 3, 2, 20, 20, False, [4, 4], 3, "resistant", True),
        (1, 3, 0, 30, 15, True, [12], -8, "neutral", False),
        (0, 2, 40, 5, 20, True, [6], 0, "immune", False),
        (0, 2, 3, 10, 20, True, [], 4, "neutral", False),
    ],
)
def test_attack_matches_enumeration(
    net: int, k: int, to_hit: int, mit: int, ct: int, tie: bool, dice: list[int],
    flat: int, multiply: str, round_up: bool,
) -> None:  # fmt: skip
    p_hit, p_crit, brute = brute_attack(net, k, to_hit, mit, ct, tie, dice, flat, multiply,
                                        round_up)  # fmt: skip
    natural = natural_pmf(net, k)
    assert natural.sum() == pytest.approx(1.0, abs=1e-15)
    hit, crit = hit_crit(natural, to_hit, mit, ct, tie)
    assert hit == pytest.approx(float(p_hit), abs=1e-14)
    assert crit == pytest.approx(float(p_crit), abs=1e-14)
    affinity, immune = AFFINITY[multiply]
    terms = [(1, s) for s in dice]
    plain = hit_damage_pmf(terms, flat, False, affinity, immune, round_up)
    critical = hit_damage_pmf(terms, flat, True, affinity, immune, round_up)
    pmf = np.zeros(max(len(plain), len(critical)))
    pmf[: len(plain)] += (hit - crit) * plain
    pmf[: len(critical)] += crit * critical
    pmf[0] += 1 - hit
    assert max(brute) < len(pmf)
    for d, prob in enumerate(pmf):
        assert prob == pytest.approx(float(brute.get(d, 0)), abs=1e-14), d


def test_natural_die_with_advantage_by_hand() -> None:
    """2d20 keep highest: P(20) = 39/400, P(1) = 1/400; keep lowest the mirror."""
    high, low = natural_pmf(1), natural_pmf(-1)
    assert high[20] == pytest.approx(39 / 400) and high[1] == pytest.approx(1 / 400)
    assert low[1] == pytest.approx(39 / 400) and low[20] == pytest.approx(1 / 400)


def test_worked_critical_examples() -> None:
    """Seed 003: a 15-STR knight's longsword crit is 15 + 1d10 (16..25 uniform); a 3d8
    spell crit is 8 + 5d8 (13..48)."""
    knight = hit_damage_pmf([(1, 10)], 5, True)
    expected = np.zeros(26)
    expected[16:26] = 0.1
    np.testing.assert_allclose(knight, expected, atol=1e-15)
    wizard = hit_damage_pmf([(3, 8)], 0, True)
    assert np.flatnonzero(wizard).min() == 13 and len(wizard) - 1 == 48
    assert np.arange(len(wizard)) @ wizard == pytest.approx(8 + 5 * 4.5)


SCENARIO = """
scenario: ge
rules: glitters-d20
params: {mit_base: 2}
attacks:
  club: {damage: 1d6, type: bludgeoning, bonus: 3}
  zap: {damage: 1d8, type: lightning, bonus: 2, attribute: null, ranged: true}
  acid: {damage: 1d4, type: corrosive, bonus: 1, attribute: dex}
  frost: {damage: 1d4, type: ice, bonus: 1}
sides:
  a:
    - {name: A, hp: 10, attributes: {str: 14, dex: 16}, attacks: [club, zap, acid]}
  b:
    - {name: Knight, hp: 10, dc: 4, armor: plate, armor_bc: 6, shield_bc: 1,
       defense: block, prone: true}
    - {name: Fencer, hp: 10, mit: 13, defense: parry, parry_value: 3, attacks: [frost]}
"""


def test_attack_outcome_reads_the_scenario() -> None:
    """MIT from the starting state: the prone knight's DC 4 → 2, +2 base, plate 6
    (none against lightning), shield 1 not yet doubled; the fencer's Parry (+3) is
    ready. Bludgeoning gets +3 against plate; a ranged attack at a prone target rolls
    with disadvantage."""
    scn = simlab.loads(SCENARIO, "ge.yaml")
    club = attack_outcome(scn, 0, "club", 1)  # MIT 2 + 2 + 6 + 1 = 11; +3 +3 to hit
    assert club.hit_rate == pytest.approx(16 / 20)  # natural ≥ 5
    assert club.crit_rate == pytest.approx(1 / 20)
    zap = attack_outcome(scn, 0, "zap", 1)  # MIT 2 + 2 + 0 + 1 = 5, +2, disadvantage
    low = natural_pmf(-1)
    assert zap.hit_rate == pytest.approx(low[3:].sum())
    fencer = attack_outcome(scn, 0, "club", 2)  # mit 13 + parry 3 = 16, no plate bonus
    assert fencer.hit_rate == pytest.approx(8 / 20)  # natural ≥ 13 (16 − 3)
    assert fencer.mean_damage == pytest.approx((7 / 20) * (3.5 + 4) + (1 / 20) * (6 + 3.5 + 4))


def test_caveats_and_engine() -> None:
    """A blocking or parrying defender, corrosion and Freezing move figures in a fight;
    the crit rate never moves. The engine solves every pair, and refuses time-to-down."""
    scn = simlab.loads(SCENARIO, "ge.yaml")
    assert set(fight_caveats(scn, 0, "club", 1)) == {"hit_rate", "mean_damage"}  # Block
    parry = fight_caveats(scn, 0, "zap", 2)
    assert set(parry) == {"hit_rate", "mean_damage"}
    assert parry["hit_rate"] == "Fencer parries on only some attacks"
    frost = fight_caveats(scn, 2, "frost", 0)  # the fencer's frost can freeze A
    assert set(frost) == {"hit_rate", "mean_damage"} and "freeze" in frost["hit_rate"]
    solved = engine.exact(scn)
    assert len(solved.pairs) == 3 * 2 + 1
    assert [s for s, _ in solved.refusals] == ["time_to_down"]
    knight = ("    - {name: Knight, hp: 10, dc: 4, armor: plate, armor_bc: 6, shield_bc: 1,\n"
              "       defense: block, prone: true}\n")  # fmt: skip
    without_knight = simlab.loads(SCENARIO.replace(knight, ""), "ge.yaml")

    def variant(attacks: list[str], fencer_attacks: list[str]) -> object:
        """A against the fencer alone, both attacks changed, the fencer not parrying."""
        return without_knight.with_({"A.attacks": attacks, "Fencer.attacks": fencer_attacks,
                                     "Fencer.defense": "none"})  # fmt: skip

    assert fight_caveats(variant(["club"], []), 0, "club", 1) == {}
    dex = fight_caveats(variant(["acid"], ["frost"]), 0, "acid", 1)
    assert set(dex) == {"mean_damage"} and "Freezing" in dex["mean_damage"]
    duel = engine.exact(variant(["club"], []))  # a duel with a club: history-free, solved
    assert duel.duel is not None and duel.refusals == []


def test_caveats_name_a_combatant_once_quoted() -> None:
    """A possessive is written on the bare name (``A's DEX``), as the attacker's is
    (``A's 'acid'``): a quoted name and then ``'s`` read ``'A''s``."""
    scn = simlab.loads(SCENARIO, "ge.yaml")
    corroded = scn.with_({"Fencer.defense": "none", "Fencer.attacks": ["frost", "acid"]})
    corrodes = fight_caveats(corroded, 0, "club", 1)["hit_rate"]
    assert corrodes.endswith("; A's 'acid' corrodes Knight's BC"), corrodes
    dex = fight_caveats(scn.with_({"Fencer.defense": "none"}), 0, "acid", 2)
    assert dex["mean_damage"] == "Freezing lowers A's DEX"
    fencer = SCENARIO[SCENARIO.index("    - {name: Fencer") :]
    duel = simlab.loads(SCENARIO.replace(fencer, ""), "ge.yaml").with_(
        {"A.attacks": ["acid"], "Knight.defense": "none"}
    )
    assert [r for s, r in engine.exact(duel).refusals if s == "time_to_down"] == [
        "expected attacks that leave the defender's BC as it is; got 'acid', which corrodes "
        "Knight's BC hit by hit"
    ]


@pytest.mark.parametrize(
    ("armor", "attack", "natural_at_least"),
    [
        ("none", "cut", 11),  # MIT = DC 8 + armor_bc 2 + shield_bc 1, whatever the kind
        ("plate", "cut", 11),
        ("plate", "club", 8),  # +3 to hit: bludgeoning against plate
        ("mail", "stab", 8),  # +3 to hit: piercing against mail
        ("mail", "zap", 9),  # lightning ignores metal armor's BC: MIT 8 + 1
        ("leather", "zap", 11),  # not metal: its BC counts
    ],
)
def test_armor_kind_sets_no_bc(armor: str, attack: str, natural_at_least: int) -> None:
    """``armor_bc`` is the armor's BC; the kind only makes mail and plate metal and gives
    bludgeoning (piercing) +3 to hit against plate (mail) (seed 003, "Damage Types";
    docs/rules/glitters-d20.md, "Armor")."""
    text = f"""
scenario: armor
rules: glitters-d20
attacks:
  cut: {{damage: 1d6, type: slashing}}
  club: {{damage: 1d6, type: bludgeoning}}
  stab: {{damage: 1d6, type: piercing}}
  zap: {{damage: 1d6, type: lightning}}
sides:
  a: [{{name: A, hp: 10, attacks: [{attack}]}}]
  b: [{{name: B, hp: 10, dc: 8, armor: {armor}, armor_bc: 2, shield_bc: 1}}]
"""
    bare = text.replace(", armor_bc: 2", "")
    assert attack_outcome(simlab.loads(text, "a.yaml"), 0, attack, 1).hit_rate == pytest.approx(
        (21 - natural_at_least) / 20
    )
    without_bc = attack_outcome(simlab.loads(bare, "a.yaml"), 0, attack, 1).hit_rate
    lightning_on_metal = attack == "zap" and armor == "mail"
    shift = 0 if lightning_on_metal else 2
    assert without_bc == pytest.approx((21 - natural_at_least + shift) / 20)


# -- duel time-to-down ---------------------------------------------------------------------

TRAINING = Path(__file__).resolve().parents[2] / "scenarios" / "glitters-d20" / "training-duel.yaml"


def test_duel_turns_alternate_two_handed_and_paired_attacks() -> None:
    """Turn 1 is the two-handed warhammer alone; turn 2 shortsword + dagger (§4 "Actions").

    With 1 HP to take, the dummy is down in round 1 unless the warhammer deals 0, and in
    round 2 unless both paired attacks deal 0 as well.
    """
    text = TRAINING.read_text().replace("hp: 60, dc: 8", "hp: 1, dc: 8")
    scenario = simlab.loads(text)
    zero = {n: attack_outcome(scenario, 0, n, 1).damage_pmf[0]
            for n in ("warhammer", "shortsword", "dagger")}  # fmt: skip
    ttd = duel_time_to_down(scenario)
    assert ttd.pmf[1] == pytest.approx(1 - zero["warhammer"], abs=1e-14)
    assert ttd.pmf[2] == pytest.approx(
        zero["warhammer"] * (1 - zero["shortsword"] * zero["dagger"]), abs=1e-14
    )


@pytest.mark.kernels
def test_duel_time_to_down_agrees_with_simulation() -> None:
    """Simulated mean round of down within 4.5 standard errors of the exact chain."""
    scenario = simlab.load(TRAINING)
    ttd = duel_time_to_down(scenario)
    n = 20_000
    res = simlab.simulate(scenario, n=n, seed=3)
    rounds = res.tallies.down_round[1]
    assert rounds.sum() == n  # always down well before the cap
    mean = float(np.dot(np.arange(len(rounds)), rounds)) / n
    assert abs(mean - ttd.mean) < 4.5 * np.sqrt(ttd.variance / n)


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (("type: piercing, bonus: 5", "type: slashing, bonus: 5"), "no, the dummy never bleeds"),
        (("    - {name: Dummy, hp: 60, dc: 8,", "    - {name: Dummy, hp: 60, dc: 8, burning: 1,"),
         "statuses that act every turn"),
        (("type: piercing, bonus: 4", "type: fire, bonus: 4"), "adds burning"),
        (("status_immune: [bleeding]}", "status_immune: [bleeding], shield_bc: 1,\n"
          "       defense: parry}"), "defense policy"),
    ],
)  # fmt: skip
def test_duel_time_to_down_refuses_history(edit: tuple[str, str], reason: str) -> None:
    text = TRAINING.read_text()
    assert edit[0] in text
    scenario = simlab.loads(text.replace(*edit))
    if reason.startswith("no,"):
        assert duel_time_to_down(scenario).mean > 0  # slashing, but no Bleeding to gain
        return
    with pytest.raises(ExactUnsupported, match=reason):
        duel_time_to_down(scenario)


def test_a_defender_that_starts_frozen_and_thaws_is_a_caveat() -> None:
    """With ``frozen_lasts: thaw`` a defender that starts Frozen (Freezing 11 above STR
    10) thaws as its Freezing drops, but its hit rate and mean damage were answered for
    the Frozen start with no caveat, and ``--check`` compared them: a z of −1811. Under
    ``frozen_lasts: encounter`` it stays Frozen, and the answer holds."""
    from pathlib import Path

    duel = simlab.load(Path(__file__).resolve().parents[2] / "scenarios/benchmarks/"
                       "glitters-d20-duel.yaml")  # fmt: skip
    frozen = duel.with_({"Defender.freezing": 11})
    assert fight_caveats(frozen, 0, "mace", 1) == {}
    thawing = frozen.with_({"params.frozen_lasts": "thaw"})
    caveats = fight_caveats(thawing, 0, "mace", 1)
    assert set(caveats) == {"hit_rate", "mean_damage"}
    assert caveats["hit_rate"] == ("Defender starts Frozen and thaws during the fight "
                                   "(frozen_lasts: thaw)")  # fmt: skip


def test_caveats_give_every_reason_a_figure_moves() -> None:
    """A Knight that blocks and whose BC an acid corrodes: the hit rate of the club on it
    gave the last reason alone ("A's 'acid' corrodes Knight's BC"), so a designer who
    took the acid away found the Block only on the next run; an attacker frozen beside a
    parrying defender, its DEX attack's damage the parry's reason alone."""
    scn = simlab.loads(SCENARIO, "ge.yaml")
    corroded = scn.with_({"Fencer.defense": "none", "Fencer.attacks": ["frost", "acid"]})
    caveats = fight_caveats(corroded, 0, "club", 1)
    assert caveats == dict.fromkeys(["hit_rate", "mean_damage"], "Knight blocks on only some "
                                    "attacks; A's 'acid' corrodes Knight's BC")  # fmt: skip
    dex = fight_caveats(scn, 0, "acid", 2)["mean_damage"]
    assert dex == "Fencer parries on only some attacks; Freezing lowers A's DEX", dex
    table = engine.exact(corroded).caveats()
    row = table[(table.attack == "club") & (table.figure == "hit_rate")]
    assert row.reason.tolist() == [caveats["hit_rate"]]
