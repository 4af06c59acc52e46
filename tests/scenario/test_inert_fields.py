"""A field that could never matter, for want of the field it works with, is refused.

As ``defense: block`` without a shield is refused (``expected a shield (shield_bc > 0)
to block; got shield_bc: 0``), so are a ``parry_value`` without ``defense: parry``, a
``shield_tier`` or ``armor_tier`` without a shield or armor, and ``recall_below`` on a
Spirit that never Manifests, and the others of the kind: a Sunder without
charges, Wielded charges without a Block, a combatant's ``speed`` or
``attacks_per_turn`` beside ``stances:`` (the Stance taken sets them), and a Stance that
is never taken. Each is reported at the field, ``file:line:col``, exit code 2 — in the
file as written; an override may leave such a field behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import ScenarioError
from tests.support import GLITTERS_DUEL, SPIRITS_DUEL, TIERS_DUEL, errors_of, validate_file

GLITTERS = GLITTERS_DUEL.replace("dc: 10}", "dc: 10, defense: parry, parry_value: 4}")

TIERS = TIERS_DUEL.replace("hp: 20, attacks", "hp: 20, shield: light, shield_tier: adept, attacks")
TIERS = TIERS.replace("{name: B, hp: 20}", "{name: B, hp: 20, armor: heavy, armor_tier: master}")

SPIRITS = SPIRITS_DUEL.replace(
    "  a: [{name: A, hp: 20, attacks: [blade]}]",
    """  a:
    - name: A
      hp: 20
      attacks: [blade]
      downed: wounds
      react: {block: {when_damage_at_least: 3}}
      sunder: {armor: 1, wielded: 1}
      stances:
        - {name: steady, speed: 3}
        - {name: frenzy, speed: 1, attacks_per_turn: 2}
      stance_policy: {switch_to: frenzy, when_hp_below: 10}
      spirit: {name: Hawk, hp: 8, attacks: [blade], manifest: always, recall_below: 3}
      tokens: {grit: 1}""",
).replace("{name: B, hp: 20}", "{name: B, hp: 20, attacks: [blade]}")

CASES = [
    (GLITTERS, "defense: parry, parry_value: 4", "parry_value: 4",
     "s.yaml:7:46: expected 'defense: parry' with a parry_value (what a Parry adds to MIT); "
     "got defense: none"),
    (GLITTERS, "defense: parry, parry_value: 4", "defense: block, shield_bc: 1, parry_value: 4",
     "s.yaml:7:76: expected 'defense: parry' with a parry_value (what a Parry adds to MIT); "
     "got defense: block"),
    (TIERS, "shield: light, shield_tier: adept", "shield_tier: adept",
     "s.yaml:6:38: expected 'shield: TYPE' with a shield_tier (the tier of its shield's "
     "dice); got no shield"),
    (TIERS, "armor: heavy, armor_tier: master", "armor_tier: master",
     "s.yaml:7:37: expected 'armor: TYPE' with an armor_tier (the tier of its armor's dice); "
     "got no armor"),
    (SPIRITS, "manifest: always", "manifest: never",
     "s.yaml:17:84: expected manifest: always or melee with recall_below (a Spirit never "
     "Manifested is never Recalled); got manifest: never"),
    (SPIRITS, "{armor: 1, wielded: 1}", "{armor: 0}",
     "s.yaml:12:15: expected a Sunder charge (armor or wielded above 0); got armor: 0, "
     "wielded: 0"),
    (SPIRITS, "      react: {block: {when_damage_at_least: 3}}\n", "",
     "s.yaml:11:35: expected 'react: {block: …}' with wielded charges (a Wielded item is "
     "Sundered only for an attack it Blocked); got no block"),
    (SPIRITS, "      attacks: [blade]\n", "      attacks: [blade]\n      speed: 2\n",
     "s.yaml:10:14: expected speed under each Stance, not beside 'stances:' (the Stance "
     "taken sets it); got speed: 2"),
    (SPIRITS, "      attacks: [blade]\n", "      attacks: [blade]\n      attacks_per_turn: 1\n",
     "s.yaml:10:25: expected attacks_per_turn under each Stance, not beside 'stances:' (the "
     "Stance taken sets it); got attacks_per_turn: 1"),
    (SPIRITS, "      stance_policy: {switch_to: frenzy, when_hp_below: 10}\n", "",
     "s.yaml:15:18: expected a stance_policy to take a Stance other than the first listed "
     "('steady'); got 'frenzy', which is never taken"),
    (SPIRITS, "attacks_per_turn: 2}\n", "attacks_per_turn: 2}\n        - {name: calm, speed: 5}\n",
     "s.yaml:16:18: expected only the Stances taken: the first listed ('steady') and "
     "stance_policy's switch_to ('frenzy'); got 'calm', which is never taken"),
    (SPIRITS, "switch_to: frenzy", "switch_to: steady",
     "s.yaml:16:34: expected a Stance other than the first listed ('steady', taken "
     "otherwise); got 'steady'"),
]  # fmt: skip


@pytest.mark.parametrize("text", [GLITTERS, TIERS, SPIRITS])
def test_the_fields_load_with_what_they_work_with(text: str) -> None:
    simlab.loads(text, "s.yaml")


@pytest.mark.parametrize(("text", "old", "new", "problem"), CASES)
def test_a_field_that_could_never_matter_is_refused_at_its_line(
    text: str, old: str, new: str, problem: str
) -> None:
    assert old in text
    assert errors_of(text.replace(old, new, 1)) == [problem]


def test_recall_below_0_is_no_recall_and_loads_with_manifest_never() -> None:
    simlab.loads(SPIRITS.replace("manifest: always, recall_below: 3", "manifest: never"), "s")


def test_an_override_may_leave_such_a_field_behind() -> None:
    """Written in the file, a field that works only with another is refused; left behind
    by an override it is what the designer asked for: a sweep of ``defense`` over
    ``none`` and ``parry``, or of Sunder charges from 0, turns the thing off at one
    point and on at the next. Refused there, such a sweep could not be run at all."""
    scn = simlab.loads(GLITTERS, "s.yaml")
    off = scn.with_({"B.defense": "none"})
    assert off.sides["b"][0].defense == "none" and off.sides["b"][0].parry_value == 4
    sweep = simlab.sweep(scn, {"B.defense": ["none", "parry"]}, n=200)
    assert list(sweep.attacks()["B.defense"].unique()) == ["none", "parry"]
    tiers = simlab.loads(TIERS, "t.yaml")
    assert tiers.with_({"A.shield": None}).sides["a"][0].shield_tier == "adept"
    spirits = simlab.loads(SPIRITS, "s.yaml")
    assert spirits.with_({"A.spirit.manifest": "never"}).sides["a"][0].spirit.recall_below == 3
    assert spirits.with_({"A.sunder.armor": 0, "A.sunder.wielded": 0}) is not None
    # the file as written is still checked
    with pytest.raises(ScenarioError, match="expected 'defense: parry' with a"):
        simlab.loads(GLITTERS.replace("defense: parry, ", ""), "s.yaml")


def test_the_cli_refuses_a_shield_tier_without_a_shield_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    result = validate_file(path, TIERS.replace("shield: light, shield_tier", "shield_tier"))
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:6:38: expected 'shield: TYPE' with a shield_tier")


@pytest.mark.parametrize(
    ("text", "changes", "problem"),
    [
        (GLITTERS, {"B.defense": "none", "B.parry_value": 3},
         "override B.parry_value: expected 'defense: parry' with a parry_value"),
        (TIERS, {"A.shield": None, "A.shield_tier": "master"},
         "override A.shield_tier: expected 'shield: TYPE' with a shield_tier"),
        (TIERS, {"B.armor": None, "B.armor_tier": "adept"},
         "override B.armor_tier: expected 'armor: TYPE' with an armor_tier"),
        (SPIRITS, {"A.spirit.manifest": "never", "A.spirit.recall_below": 2},
         "override A.spirit.recall_below: expected manifest: always or melee with"),
        (SPIRITS, {"A.react.block": None, "A.sunder.wielded": 2},
         "override A.sunder.wielded: expected 'react: {block: …}' with wielded charges"),
        (SPIRITS, {"A.react.block": None, "A.sunder": {"wielded": 2}},
         "override A.sunder: expected 'react: {block: …}' with wielded charges"),
    ],
)  # fmt: skip
def test_an_override_that_writes_such_a_field_is_refused(
    text: str, changes: dict[str, object], problem: str
) -> None:
    """Left behind by an override, the field is accepted; written by one while the
    field it works with is missing, it is the slip the refusal is for."""
    with pytest.raises(ScenarioError) as err:
        simlab.loads(text, "s.yaml").with_(changes)
    assert str(err.value).startswith(problem)


def test_the_cli_refuses_an_override_that_writes_such_a_field_with_exit_2(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TIERS.replace("shield: light, shield_tier: adept, ", ""), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(path), "--set", "A.shield_tier=adept"])
    assert result.exit_code == 2
    assert result.output.startswith("--set A.shield_tier=adept: expected 'shield: TYPE' with a "
                                    "shield_tier (the tier of its shield's dice); got no "
                                    "shield")  # fmt: skip
    glitters = tmp_path / "g.yaml"
    glitters.write_text(GLITTERS.replace("defense: parry, parry_value: 4", "defense: none"))
    result = CliRunner().invoke(main, ["sweep", str(glitters), "--vary", "B.parry_value=2,6"])
    assert result.exit_code == 2
    assert result.output.startswith("B.parry_value=2 from --vary B.parry_value=2,6: expected "
                                    "'defense: parry' with a parry_value")  # fmt: skip


REINFORCED = SPIRITS_DUEL.replace(
    "  b: [{name: B, hp: 20}]",
    "  b:\n    - {name: B, hp: 20}\n    - {name: Shade, hp: 5, reinforce: {cap: 2, from_round: 3}}",
)


def test_a_source_destroyed_before_the_first_arrival_is_refused_naming_the_entry() -> None:
    """``source_destroyed_round`` before an entry's ``from_round``: that entry never
    arrives. Refused at the Round's line in the file as written; an
    override may set the Round (a sweep from 1), not write an arrival after it."""
    text = REINFORCED.replace("attacks:\n", "params: {source_destroyed_round: 2}\nattacks:\n")
    assert errors_of(text) == [
        "s.yaml:3:34: expected source_destroyed_round 0 (never) or at least the from_round "
        "of 'Shade' (3: its reinforcements arrive from then); got 2, and none ever arrives"
    ]
    simlab.loads(text.replace("round: 2}", "round: 3}"), "s.yaml")
    scn = simlab.loads(REINFORCED, "s.yaml")
    assert scn.with_({"params.source_destroyed_round": 1}).params.source_destroyed_round == 1
    late = simlab.loads(text.replace("round: 2}", "round: 4}"), "s.yaml")
    with pytest.raises(ScenarioError, match=r"^override Shade.reinforce.from_round: expected "
                       r"source_destroyed_round 0 \(never\) or at least the from_round of "
                       r"'Shade' \(5"):  # fmt: skip
        late.with_({"Shade.reinforce.from_round": 5})


DRAFT1 = """\
scenario: t
rules: shattered-spirits-draft1
techniques:
  jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6], ap: 1, speed: 2}
  flick: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5], ap: 1, speed: 1}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [jab], improvise: {replace: jab, use: flick}}]
  b: [{name: B, endurance: 10, health: 10, plan: [jab]}]
"""


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (GLITTERS_DUEL.replace("dc: 10}", "dc: 10, bleeding: 2, status_immune: [bleeding]}"),
         "s.yaml:7:43: expected no starting bleeding on a combatant immune to it "
         "(status_immune: bleeding); got bleeding: 2"),
        (SPIRITS_DUEL.replace("{name: A, hp: 20,", "{name: A, hp: 20, engaged_with: [B],"),
         "s.yaml:6:39: expected 'params: {engagement: declared}' with engaged_with (under "
         "engagement: everyone, every combatant is Engaged with every enemy); got "
         "engagement: everyone"),
        (DRAFT1,
         "s.yaml:7:68: expected tokens.momentum of at least 2 (improvise_cost) or "
         "params.momentum_per_refresh above 0; got tokens.momentum 0 and "
         "momentum_per_refresh 0: 'A' could never Improvise"),
    ],
)  # fmt: skip
def test_a_setting_the_run_would_ignore_is_refused(text: str, problem: str) -> None:
    """Each was accepted and changed nothing, or went against what it says: a skeleton
    immune to Bleeding bled from its starting ``bleeding: 2``; ``engaged_with`` under
    ``engagement: everyone`` had its names checked, then ignored; an ``improvise:``
    policy with no Momentum ever to pay for it never played its Technique (the
    earlier draft's benchmark fight had one)."""
    assert errors_of(text) == [problem]


def test_what_the_refused_settings_work_with_loads() -> None:
    simlab.loads(GLITTERS_DUEL.replace("dc: 10}", "dc: 10, bleeding: 2, status_immune: [burning]}"))
    declared = SPIRITS_DUEL.replace("{name: A, hp: 20,", "{name: A, hp: 20, engaged_with: [B],")
    simlab.loads(declared.replace("attacks:\n", "params: {engagement: declared}\nattacks:\n", 1))
    simlab.loads(DRAFT1.replace("plan: [jab], improvise", "plan: [jab], tokens: {momentum: 2}, "
                                "improvise"))  # fmt: skip
    paid = simlab.loads(DRAFT1.replace("sides:", "params: {momentum_per_refresh: 1}\nsides:"))
    # an override may leave the engagement or the Momentum behind (a sweep from 0)
    assert paid.with_({"params.momentum_per_refresh": 0}) is not None
    everyone = simlab.loads(declared.replace("attacks:\n", "params: {engagement: declared}\n"
                                             "attacks:\n", 1))  # fmt: skip
    assert everyone.with_({"params.engagement": "everyone"}) is not None
