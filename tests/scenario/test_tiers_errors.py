"""Every kind of mistake in an opposed-tiers scenario is reported with its line.

Each case changes one line of a valid scenario and asserts the ``file:line`` and the
"expected …; got …" wording of the message; the tier table is validated like the rest
(a tier referenced but not defined, a shield or armor type the tier does not have, a
new tier without its dice).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.rules.opposed_tiers.model import placeholders_used
from tests.support import assert_one_error, errors_of, validate_file

VALID = """\
scenario: t
rules: opposed-tiers
encounters: 100
max_rounds: 5
params: {critical_tier: weapon}
tiers:
  - {name: journeyman, damage: 2d6+1d4}
  - {name: veteran, attack: 6d6, defense: 6d6, damage: 6d6, shield: {light: 1d12}}
attacks:
  sword: {modifier: 1}
  bow: {ranged: true}
sides:
  a:
    - {name: A, player: true, hp: 10, vigor: 8, tier: journeyman, shield: medium,
       attacks: [sword]}
  b:
    - {name: B, hp: 10, weapon_tier: veteran, armor: light, attacks: [bow]}
"""


def test_the_valid_scenario_loads() -> None:
    scn = simlab.loads(VALID, "s.yaml")
    assert scn.combatant_names() == [("a", "A"), ("b", "B")]
    names = [t.name for t in scn.tier_table()]
    assert names == ["novice", "journeyman", "adept", "master", "veteran"]
    assert str(scn.tier_table()[1].damage) == "2d6+1d4"
    assert str(scn.tier_table()[1].attack) == "3d6"  # kept from the built-in table


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        (
            "tier: journeyman, shield",
            "tier: jouneyman, shield",
            14,
            ["expected a tier of the tier table", "veteran", "'jouneyman'"],
        ),
        ("weapon_tier: veteran,", "weapon_tier: expert,", 17, ["tier table", "'expert'"]),
        (
            "shield: medium,",
            "shield: tower,",
            14,
            ["expected a shield type of tier 'journeyman'", "heavy, light, medium", "'tower'"],
        ),
        (
            "armor: light, attacks: [bow]",
            "armor: light, armor_tier: veteran, attacks: [bow]",
            17,
            ["expected an armor type of tier 'veteran'", "none defined", "'light'"],
        ),
        (
            "{name: veteran, attack: 6d6, defense: 6d6,",
            "{name: veteran, attack: 6d6,",
            8,
            ["expected attack, defense and damage dice for a new tier", "no defense"],
        ),
        (
            "{name: veteran, attack: 6d6, defense",
            "{name: journeyman, attack: 6d6, defense",
            8,
            ["expected each tier name once", "'journeyman' again"],
        ),
        ("damage: 2d6+1d4}", "damage: 2d6+1q4}", 7, ["expected a dice expression"]),
        ("{light: 1d12}", "{light: 1d1200}", 8, ["at most 1000 sides"]),
        (
            "{name: journeyman, damage",
            "{name: journeyman, dmg",
            7,
            ["unknown key 'dmg'", "damage"],
        ),
        (
            "player: true, hp: 10, vigor: 8,",
            "player: true, hp: 10,",
            14,
            ["expected key 'vigor' for a player character"],
        ),
        ("{critical_tier: weapon}", "{critical_tier: skill}", 5, ["'weapon', 'form'", "'skill'"]),
        (
            "{critical_tier: weapon}",
            "{critical_tier: weapon, npcs_out: false}",
            5,
            ["unknown key 'npcs_out'", "npcs_fall_out"],
        ),
        ("{modifier: 1}", "{modifier: one}", 10, ["expected an integer", "'one'"]),
        ("{ranged: true}", "{ranged: yes}", 11, ["expected true or false", "'yes'"]),
        ("{name: B, hp: 10,", "{name: B, hp: 0,", 17, ["≥ 1", "0"]),
        ("attacks: [bow]", "attacks: [sling]", 17, ["expected an attack defined", "'sling'"]),
    ],
)
def test_error_is_located(old: str, new: str, line: int, words: list[str]) -> None:
    assert old in VALID
    assert_one_error(VALID.replace(old, new, 1), line, words)


def test_own_table_needs_every_roll_and_knows_no_builtin_tier() -> None:
    own = VALID.replace("params:", "builtin_tiers: false\nparams:")
    problems = errors_of(own)
    assert problems[0].startswith("s.yaml:8:"), problems  # journeyman lacks attack, defense
    assert "a tier of the scenario's own table ('journeyman')" in problems[0]
    assert "no attack, defense" in problems[0]
    fixed = own.replace("{name: journeyman, damage: 2d6+1d4}",
                        "{name: journeyman, attack: 3d6, defense: 3d6, damage: 3d6}")  # fmt: skip
    problems = errors_of(fixed)
    assert problems == [  # B's default tier is now the first of the table: journeyman
        "s.yaml:15:75: expected a shield type of tier 'journeyman' (none defined); got 'medium'",
        "s.yaml:18:54: expected an armor type of tier 'journeyman' (none defined); got 'light'",
    ]


def test_an_npc_that_does_not_fall_out_needs_vigor() -> None:
    text = VALID.replace("{critical_tier: weapon}", "{npcs_fall_out: false}")
    problems = errors_of(text)
    assert len(problems) == 1 and problems[0].startswith("s.yaml:17:"), problems
    assert "an NPC that does not fall out" in problems[0]


def test_placeholders_are_reported() -> None:
    """Only the Novice attack/defense/damage, Light Shield and Light Armor come from the
    rule text; the amended Journeyman damage and the added tier are the designer's. A's
    criticals (Journeyman weapon skill) roll the Adept's placeholder damage."""
    scn = simlab.loads(VALID, "s.yaml")
    assert placeholders_used(scn) == [
        "adept.damage", "journeyman.attack", "journeyman.defense", "journeyman.shield.medium",
    ]  # fmt: skip
    novices = simlab.loads(VALID.replace("tier: journeyman, shield: medium", "shield: light")
                           .replace("weapon_tier: veteran, ", ""))  # fmt: skip
    assert placeholders_used(novices) == []


def test_cli_exit_code_2(tmp_path: Path) -> None:
    bad = VALID.replace("weapon_tier: veteran,", "weapon_tier: expert,")
    result = validate_file(tmp_path / "bad.yaml", bad)
    assert result.exit_code == 2
    assert "bad.yaml:17:" in result.output and "'expert'" in result.output
