"""Tests of the exact engine for the earlier draft (simlab.exact.shattered_spirits_draft1).

Each exact result is checked against a brute-force enumeration written here from
docs/rules/shattered-spirits-draft1.md (every die outcome listed, the earlier draft's damage order
applied outcome by outcome, in exact fractions), against an attack-by-attack recursion for the time
to Down, and against values worked out by hand.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import ExactUnsupported
from simlab.exact.shattered_spirits_draft1 import (
    attack_outcome,
    duel_time_to_down,
    duel_time_to_shaken,
    fight_caveats,
)

BASE = """
scenario: d1x
rules: shattered-spirits-draft1
max_rounds: 12
params: {params}
techniques:
  t: {technique}
  other: {{profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], ap: 0, speed: 6}}
sides:
  a: [{attacker}]
  b: [{defender}]
"""


def scenario(technique: str, attacker: str = "", defender: str = "", params: str = "{}") -> Any:
    endurance = "" if "endurance" in attacker else "endurance: 10, "
    text = BASE.format(
        technique=technique,
        params=params,
        attacker=f"{{name: A, {endurance}health: 10, plan: [t]{attacker}}}",
        defender=f"{{name: D, endurance: 30, health: 30{defender}}}",
    )
    return simlab.loads(text, "x.yaml")


def brute_pmf(scn: Any, name: str = "t") -> tuple[Fraction, Fraction, dict[int, Fraction]]:
    """Hit rate, crit rate and damage distribution of Technique ``name`` (side a's first
    combatant against side b's) by listing every dice outcome."""
    prm = scn.params
    t = scn.techniques[name]
    a, d = scn.sides["a"][0], scn.sides["b"][0]
    adv, dis = t.advantage > 0, t.disadvantage > 0
    # docs/rules/shattered-spirits-draft1.md [default]: setting both cancels them (or a parameter)
    if adv and dis:
        adv = prm.advantage_with_disadvantage == "advantage"
        dis = prm.advantage_with_disadvantage == "disadvantage"
    n = 3 if adv or dis else 2
    outcomes = list(itertools.product(range(1, 7), repeat=n))
    hit = crit = Fraction(0)
    pmf: dict[int, Fraction] = {}
    for dice in outcomes:
        p = Fraction(1, len(outcomes))
        kept = sorted(dice)[-2:] if adv else sorted(dice)[:2]
        roll = sum(kept) + t.modifier + a.roll_modifier
        if a.endurance == 0:
            roll += prm.shaken_roll_modifier
        damage = 0
        row = min(roll, 12)
        tier = t.tier.get(row) or ("hit" if t.profile[row - 2] or t.status.get(row) else "miss")
        if roll >= 2 and tier != "miss":
            hit += p
            crit += p if tier == "crit" else 0
            base = t.profile[row - 2]
            value = base + t.damage_modifier - a.impaired * prm.impaired_per_level
            if roll > 12 and base > 0:
                value += prm.overflow_damage
            value = max(value, 0)
            glancing, guard = t.glancing or d.cover, d.guard
            if t.glancing and d.cover:
                guard += prm.cover_guard
            if glancing:
                value = math.ceil(Fraction(value, prm.glancing_divisor))
            damage = max(value + d.exposed * prm.exposed_per_level - guard, 0)
        pmf[damage] = pmf.get(damage, Fraction(0)) + p
    return hit, crit, pmf


CASES = [
    ("{profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], ap: 1, speed: 1}", "", "", "{}"),
    ("{profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], modifier: 3, tier: {12: crit}, ap: 1, "
     "speed: 1}", "", ", guard: 2, exposed: 1", "{}"),
    ("{profile: [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6], modifier: -2, disadvantage: 2, ap: 1, "
     "speed: 1, glancing: true}", "", ", cover: true, exposed: 2", "{}"),
    ("{profile: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], advantage: 1, disadvantage: 1, ap: 1, "
     "speed: 1, modifier: 1}", ", roll_modifier: 1", "", "{}"),
    ("{profile: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], advantage: 1, disadvantage: 1, ap: 1, "
     "speed: 1, modifier: 1}", "", ", guard: 1",
     "{advantage_with_disadvantage: advantage, overflow_damage: 5}"),
    ("{profile: [0, 0, 0, 2, 3, 4, 5, 6, 7, 8, 10], damage_modifier: -2, ap: 1, speed: 1, "
     "tier: {10: crit, 11: crit, 12: crit}}", ", impaired: 1, endurance: 0", ", cover: true",
     "{shaken_roll_modifier: -1, glancing_divisor: 3, impaired_per_level: 2}"),
    ("{profile: [2, 2, 2, 2, 2, 2, 2, 2, 2, 9, 9], glancing: true, modifier: 6, ap: 1, "
     "speed: 1}", "", ", cover: true, guard: 1, exposed: 1",
     "{cover_guard: 3, exposed_per_level: 3}"),
]  # fmt: skip


@pytest.mark.parametrize(("technique", "attacker", "defender", "params"), CASES)
def test_attack_outcome_matches_enumeration(
    technique: str, attacker: str, defender: str, params: str
) -> None:
    scn = scenario(technique, attacker, defender, params)
    out = attack_outcome(scn, 0, "t", 1)
    hit, crit, pmf = brute_pmf(scn)
    assert out.hit_rate == pytest.approx(float(hit), abs=1e-12)
    assert out.crit_rate == pytest.approx(float(crit), abs=1e-12)
    assert max(pmf) == len(out.damage_pmf) - 1
    for d, p in enumerate(out.damage_pmf):
        assert p == pytest.approx(float(pmf.get(d, 0)), abs=1e-12)
    assert out.mean_damage == pytest.approx(float(sum(d * p for d, p in pmf.items())), abs=1e-12)


def test_extreme_rolls_by_hand() -> None:
    """+3 on 2d6 against Guard 0: rolls of 10, 11, 12 (6/36) go above 12, read row 12
    (11 damage) and add 2: 13. A roll of exactly 12 (2d6 of 9, 4/36) deals 11."""
    out = attack_outcome(scenario("{profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], modifier: 3, "
                                  "ap: 1, speed: 1}"), 0, "t", 1)  # fmt: skip
    assert out.overflow_rate == pytest.approx(6 / 36)
    assert out.damage_pmf[13] == pytest.approx(6 / 36)
    assert out.damage_pmf[11] == pytest.approx(4 / 36)
    assert out.fumble_rate == 0


def test_fumbles_by_hand() -> None:
    """−2 on 3d6 keep the lowest two: a fumble when the two lowest dice sum to 2 or 3,
    i.e. the lowest two are (1, 1) or (1, 2): 16 + 27 = 43 of 216 outcomes."""
    low = [sorted(d)[:2] for d in itertools.product(range(1, 7), repeat=3)]
    assert sum(1 for a, b in low if a + b <= 3) == 43
    out = attack_outcome(scenario("{profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], modifier: -2, "
                                  "disadvantage: 1, ap: 1, speed: 1}"), 0, "t", 1)  # fmt: skip
    assert out.fumble_rate == pytest.approx(43 / 216)
    assert out.hit_rate == pytest.approx(1 - 43 / 216)


def test_damage_order_by_hand() -> None:
    """Base 8, Glancing, Exposed 2, Guard 3: ⌈8 / 2⌉ + 2 − 3 = 3 on every roll (Exposed
    before Glancing would give 2, the later draft's order 4)."""
    eight = "{profile: [8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8], glancing: true, ap: 1, speed: 1}"
    out = attack_outcome(scenario(eight, "", ", guard: 3, exposed: 2"), 0, "t", 1)
    np.testing.assert_allclose(out.damage_pmf, [0, 0, 0, 1.0])


def brute_time_to_down(scn: Any, need: int) -> list[Fraction]:
    """P(first reaching ``need`` damage in round r), attack by attack in exact fractions."""
    attacker = scn.sides["a"][0]
    plans = [brute_pmf(scn, name)[2] for name in attacker.plan]
    alive = {0: Fraction(1)}
    out = [Fraction(0)]
    for _ in range(scn.max_rounds):
        done = Fraction(0)
        for pmf in plans:
            nxt: dict[int, Fraction] = {}
            for total, p in alive.items():
                for dmg, q in pmf.items():
                    if total + dmg >= need:
                        done += p * q
                    else:
                        nxt[total + dmg] = nxt.get(total + dmg, Fraction(0)) + p * q
            alive = nxt
        out.append(done)
    return out


DUEL = """
scenario: d1duel
rules: shattered-spirits-draft1
max_rounds: 12
techniques:
  strike: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], modifier: 1, ap: 2, speed: 4}
  jab: {profile: [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5], disadvantage: 1, ap: 1, speed: 1}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [strike, jab]}]
  b: [{name: D, vigor: 2, endurance: 8, health: 14, guard: 1}]
"""


def test_duel_time_to_down_matches_recursion() -> None:
    scn = simlab.loads(DUEL, "duel.yaml")
    for solve, need in ((duel_time_to_down, 2 + 8 + 14), (duel_time_to_shaken, 2 + 8)):
        ttd = solve(scn)
        brute = brute_time_to_down(scn, need)
        np.testing.assert_allclose(ttd.capped_pmf, [float(p) for p in brute], atol=1e-9)
        assert ttd.censored == pytest.approx(1 - float(sum(brute)), abs=1e-9)


def test_duel_by_hand() -> None:
    """Two 5-damage hits a Round against 12 Health: Downed in Round 2, surely; Shaken
    (Endurance 4) in Round 1."""
    text = DUEL.replace(
        "[0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], modifier: 1", "[5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]"
    )  # no overflow: no roll above 12
    text = text.replace("[0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]", "[5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]")
    text = text.replace("{name: D, vigor: 2, endurance: 8, health: 14, guard: 1}",
                        "{name: D, endurance: 4, health: 8}")  # fmt: skip
    scn = simlab.loads(text, "duel.yaml")
    ttd = duel_time_to_down(scn)
    assert ttd.mean == pytest.approx(2.0) and ttd.median == 2
    assert ttd.capped_pmf[2] == pytest.approx(1.0)
    assert duel_time_to_shaken(scn).capped_pmf[1] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("{name: D, vigor: 2,", "{name: D, tokens: {grit: 1}, "
         "react: {block: {when_damage_at_least: 3}}, vigor: 2,", "reactions"),
        ("speed: 1}\nsides:\n  a: [{name: A, endurance: 10, health: 10, plan: [strike, jab]}",
         "speed: 1}\n  poke: {profile: [0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5], ap: 1, speed: 1}\n"
         "sides:\n  a: [{name: A, endurance: 10, health: 10, plan: [strike, jab], "
         "tokens: {momentum: 2}, improvise: {replace: jab, use: poke}}", "Improvise"),
        ("modifier: 1, ap: 2,", "modifier: 1, status: {12: [exposed 1]}, ap: 2,", "exposed 1"),
        ("max_rounds: 12", "max_rounds: 12\nparams: {endurance_overflow: false}",
         "endurance_overflow"),
        ("b: [{name: D,", "b: [{name: E, endurance: 1, health: 1}, {name: D,", "duel"),
    ],
)  # fmt: skip
def test_time_to_down_refusals_name_the_feature(old: str, new: str, words: str) -> None:
    scn = simlab.loads(DUEL.replace(old, new), "duel.yaml")
    with pytest.raises(ExactUnsupported, match=words):
        duel_time_to_down(scn)


def test_fight_caveats() -> None:
    """Exposed from profiles or fumbles moves damage; the Shaken modifier moves rolls."""
    scn = simlab.loads(DUEL, "duel.yaml")
    assert fight_caveats(scn, 0, "strike", 1) == {}
    two_sided = DUEL.replace("health: 14, guard: 1}", "health: 14, guard: 1, plan: [jab]}")
    scn = simlab.loads(two_sided.replace("disadvantage: 1,", "disadvantage: 1, modifier: -1,"),
                       "duel.yaml")  # fmt: skip
    assert set(fight_caveats(scn, 0, "strike", 1)) == {"mean_damage"}  # D's jab fumbles
    assert "D can fumble" in fight_caveats(scn, 0, "strike", 1)["mean_damage"]
    assert set(fight_caveats(scn, 1, "jab", 0)) == {"mean_damage"}  # so does A's
    scn = simlab.loads(two_sided, "duel.yaml")
    assert fight_caveats(scn, 0, "strike", 1) == fight_caveats(scn, 1, "jab", 0) == {}
    scn = simlab.loads(two_sided.replace("max_rounds: 12",
                                         "max_rounds: 12\nparams: {shaken_roll_modifier: -1}"),
                       "duel.yaml")  # fmt: skip
    assert set(fight_caveats(scn, 0, "strike", 1)) == {"hit_rate", "mean_damage"}  # no crit row
    critting = scn.with_({"strike.tier": {12: "crit"}})
    assert set(fight_caveats(critting, 0, "strike", 1)) == {"hit_rate", "crit_rate", "mean_damage"}


# The training dummy's feint (scenarios/shattered-spirits-draft1/training-dummy.yaml), which
# has no critical row, in a fight: Mira's flame-lash can make the Dummy Exposed, which
# raises feint's damage up to the Dummy's Block threshold (3; 2 at most when fresh).
FEINT_FIGHT = """
scenario: feint-fight
rules: shattered-spirits-draft1
max_rounds: 20
techniques:
  feint: {profile: [0, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6], disadvantage: 1, modifier: -1,
          glancing: true, ap: 1, speed: 1}
  flame-lash: {profile: [0, 0, 0, 2, 3, 4, 5, 6, 7, 8, 10], tier: {12: crit},
               status: {10: [exposed 1], 11: [exposed 1], 12: [exposed 2]}, ap: 2, speed: 3}
sides:
  student:
    - {name: Student, endurance: 10, health: 10, plan: [feint], tokens: {focus: 1}}
    - {name: Mira, endurance: 10, health: 10, plan: [flame-lash]}
  dummy:
    - {name: Dummy, endurance: 20, health: 25, vigor: 3, guard: 1, tokens: {grit: 3},
       react: {block: {when_damage_at_least: 3}}}
expect:
  - {figure: crit_rate, attack: feint, defender: Dummy, at_most: 0}
"""


def _moved(text: str, overrides: dict[str, Any] | None = None) -> str:
    """The ``moved_by_fight`` of Student: feint → Dummy in ``simlab.exact``."""
    scn = simlab.loads(text, "fight.yaml").with_(overrides or {})
    table = simlab.exact(scn).attacks().set_index(["attacker", "attack", "defender"])
    return str(table.loc[("Student", "feint", "Dummy"), "moved_by_fight"])


def test_a_fight_moves_the_figures_it_can_one_by_one() -> None:
    """Exposed in the fight can push feint's damage to the Dummy's Block, which lowers
    the roll by 1 and can turn a 2 into a fumble (a miss): the hit rate and the damage
    move. Feint has no critical row, so whatever Blocks its crit rate stays 0: it is not
    marked (it was, with every figure of the pair). A crit row in reach is moved by
    the Block; a Dummy without Grit never Blocks, leaving only the damage."""
    solved = simlab.exact(simlab.loads(FEINT_FIGHT, "fight.yaml"))
    (feint,) = [p for p in solved.pairs if p.attack == "feint"]
    assert feint.crit_rate == 0 and feint.hit_rate < 1
    assert _moved(FEINT_FIGHT) == "hit_rate, mean_damage"
    caveats = solved.caveats()
    assert set(caveats[caveats.attack == "feint"].figure) == {"hit_rate", "mean_damage"}
    assert _moved(FEINT_FIGHT, {"feint.tier": {11: "crit"}}) == "hit_rate, crit_rate, mean_damage"
    assert _moved(FEINT_FIGHT, {"Dummy.tokens.grit": 0}) == "mean_damage"


@pytest.mark.kernels
def test_check_strict_passes_at_most_0_on_a_crit_rate_the_fight_cannot_move(
    tmp_path: Path,
) -> None:
    """``simlab check --strict`` of "feint's crit rate at most 0" in that fight: the exact
    engine makes it 0 and the fight does not move it, so it is 0 whatever the dice (it
    failed as borderline, the figure marked moved with the pair's hit rate)."""
    path = tmp_path / "fight.yaml"
    path.write_text(FEINT_FIGHT)
    done = CliRunner().invoke(main, ["check", str(path), "-n", "300", "--strict"])
    assert done.exit_code == 0, done.output
    assert "PASS" in done.output and "borderline" not in done.output


def test_exact_engine_solves_the_example_duel() -> None:
    """`simlab exact` on the shipped training-dummy scenario: every pair and the duel."""
    root = Path(__file__).resolve().parents[2]
    res = simlab.exact(root / "scenarios/shattered-spirits-draft1/training-dummy.yaml")
    assert len(res.pairs) == 2 and res.duel is not None and not res.refusals


IMPROVISED = DUEL.replace(
    "speed: 1}\nsides:",
    "speed: 1}\n  poke: {profile: [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 6], modifier: -3, ap: 1, "
    "speed: 1, status: {12: [exposed 1]}}\nsides:",
).replace(
    "plan: [strike, jab]}",
    "plan: [strike, jab], tokens: {momentum: 2}, improvise: {replace: jab, use: poke}}",
)


def test_an_improvised_technique_is_solved_like_any_other() -> None:
    """A Technique a combatant plays only when it Improvises (seed 000, "Rounds in
    Shattered Spirits") is one of its attacks like those of its plan: `simlab exact`
    solves its pairs (the same fresh-defender computation), the fight caveats read its
    statuses and fumbles, and an ``expect:`` may name it."""
    assert IMPROVISED != DUEL and "use: poke" in IMPROVISED
    scn = simlab.loads(IMPROVISED.replace("guard: 1}", "guard: 1, plan: [jab]}"), "d.yaml")
    solved = {(p.attacker, p.attack, p.defender): p for p in simlab.exact(scn).pairs}
    assert set(solved) == {("A", "strike", "D"), ("A", "jab", "D"), ("A", "poke", "D"),
                           ("D", "jab", "A")}  # fmt: skip
    assert solved[("A", "poke", "D")].hit_rate == attack_outcome(scn, 0, "poke", 1).hit_rate
    assert (
        "'poke' can inflict 'exposed 1' on D during the fight"
        in fight_caveats(scn, 0, "strike", 1)["mean_damage"]
    )
    assert "A can fumble with 'poke'" in fight_caveats(scn, 1, "jab", 0)["mean_damage"]
    spec = "expect:\n  - {figure: hit_rate, attacker: A, attack: poke, defender: D, at_least: 0}\n"
    assert simlab.loads(IMPROVISED + spec, "d.yaml").expect[0].attack == "poke"


def test_fight_caveats_give_every_reason_a_figure_moves() -> None:
    """The Shaken modifier, Exposed from an opponent's profile and from the defender's own
    fumbles: the damage named the Shaken modifier alone (the first reason found), and a
    designer who set it to 0 found the Exposed only on the next run."""
    root = Path(__file__).resolve().parents[2]
    scn = simlab.load(root / "scenarios/benchmarks/shattered-spirits-draft1-fight.yaml")
    names = [name for _, name in scn.combatant_names()]
    reasons = fight_caveats(scn, names.index("Knight"), "flick", names.index("Thug 1"))
    assert reasons["mean_damage"].split("; ") == [
        "the attacker's rolls change once it is Shaken (shaken_roll_modifier)",
        "Witch's 'lash' can inflict 'exposed 1' on Thug 1 during the fight",
        "Thug 1 can fumble with 'lash' or 'jab' and gain Exposed during the fight",
    ], reasons
    calm = scn.with_({"params.shaken_roll_modifier": 0})
    left = fight_caveats(calm, names.index("Knight"), "flick", names.index("Thug 1"))
    assert left["mean_damage"].split("; ") == [  # 'jab' fumbled only once Shaken
        "Witch's 'lash' can inflict 'exposed 1' on Thug 1 during the fight",
        "Thug 1 can fumble with 'lash' and gain Exposed during the fight",
    ], left
