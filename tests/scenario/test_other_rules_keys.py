"""A key of another rule system, or of another place, says whose key it is.

A designer who copies a combatant or an attack from a scenario of other rules (a
glitters-d20 ``dc:`` into a zones-3d6 file) read only "unknown key 'dc'" and this
system's keys; the message now says that ``dc`` is a key of glitters-d20 and that this
scenario's rules are zones-3d6. Likewise a key written at the wrong place of its own
rules (``encounters:`` in a combatant) says where it belongs. The keys of each system
are read from its models.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from tests.support import errors_of, slipped, validate_file

ZONES = """\
scenario: t
rules: zones-3d6
encounters: 100
attacks:
  cut: {damage: 1d6+2}
sides:
  squire:
    - {name: Squire, hp: 16, attacks: [cut]}
  pell:
    - {name: Pell, hp: 30, evasion: 1}
"""

GLITTERS = """\
scenario: t
rules: glitters-d20
encounters: 100
attacks:
  club: {damage: 1d6, type: bludgeoning}
sides:
  knight:
    - {name: Knight, hp: 34, attacks: [club]}
  dummy:
    - {name: Dummy, hp: 60, dc: 8}
"""

TIERS = """\
scenario: t
rules: opposed-tiers
encounters: 100
attacks:
  sword: {modifier: 1}
sides:
  a:
    - {name: A, hp: 10, tier: novice, attacks: [sword]}
  b:
    - {name: B, hp: 10, tier: novice}
"""

ZONES_COMBATANT_KEYS = (
    "attacks, attacks_per_turn, base_defense, bonus_damage, bonus_defense, count, evasion, "
    "evasion_advantage, evasion_disadvantage, evasion_edge, evasion_pressure, hp, "
    "initiative, name, target"
)
GLITTERS_ATTACK_KEYS = (
    "advantage, attribute, bonus, critical_threshold, damage, disadvantage, hand, ranged, type"
)


@pytest.mark.parametrize(
    ("text", "old", "new", "message"),
    [
        (ZONES, "hp: 30,", "hp: 30, |dc: 12,",
         "unknown key 'dc' (a key of rules glitters-d20, but this scenario's rules are "
         f"zones-3d6); expected one of: {ZONES_COMBATANT_KEYS}"),
        (ZONES, "hp: 30,", "hp: 30, |armor: plate,",
         "unknown key 'armor' (a key of rules glitters-d20 and opposed-tiers, but this "
         f"scenario's rules are zones-3d6); expected one of: {ZONES_COMBATANT_KEYS}"),
        (GLITTERS, "1d6, type", "1d6, |edge: 1, type",
         "unknown key 'edge' (a key of rules zones-3d6, but this scenario's rules are "
         f"glitters-d20); expected one of: {GLITTERS_ATTACK_KEYS}"),
        (GLITTERS, "dc: 8}", "dc: 8, |evasion: 2}",
         "unknown key 'evasion' (a key of rules zones-3d6, but this scenario's rules are "
         "glitters-d20); expected one of: "),
        # a shattered-spirits key, on a combatant and on an attack
        (TIERS, "tier: novice}", "tier: novice, |guard: 3}",
         "unknown key 'guard' (a key of rules shattered-spirits and shattered-spirits-draft1, "
         "but this scenario's rules are opposed-tiers); expected one of: "),
        (TIERS, "{modifier: 1}", "{modifier: 1, |profile: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}",
         "unknown key 'profile' (a key of rules shattered-spirits and "
         "shattered-spirits-draft1, but this scenario's rules are opposed-tiers); expected one "
         "of: damage_modifier, modifier, ranged"),
        # a key of the document's top level
        (ZONES, "encounters: 100", "encounters: 100\n|tiers: []",
         "unknown key 'tiers' (a key of rules opposed-tiers, but this scenario's rules are "
         "zones-3d6); expected one of: "),
    ],
)  # fmt: skip
def test_a_key_of_other_rules_says_whose_it_is(text: str, old: str, new: str, message: str) -> None:
    written, where = slipped(text, old, new)
    (problem,) = errors_of(written)
    assert problem.startswith(f"s.yaml:{where}: {message}")


@pytest.mark.parametrize(
    ("text", "old", "new", "place"),
    [
        (ZONES, "hp: 30,", "hp: 30, |encounters: 10,", "the file's top level"),
        (ZONES, "encounters: 100", "encounters: 100\n|initiative_ties: listed", "'params:'"),
        (ZONES, "{damage: 1d6+2}", "{damage: 1d6+2, |hp: 3}", "a combatant under 'sides:'"),
        (ZONES, "hp: 30,", "hp: 30, |edge: 1,", "an attack under 'attacks:'"),
        # this scenario's own place first, though other rules take it here too
        (GLITTERS, "{damage: 1d6,", "{damage: 1d6, |armor: plate,",
         "a combatant under 'sides:'"),
        (TIERS, "{modifier: 1}", "{modifier: 1, |attacks_per_turn: 2}",
         "'params:' and a combatant under 'sides:'"),
    ],
)  # fmt: skip
def test_a_key_of_another_place_says_where_it_belongs(
    text: str, old: str, new: str, place: str
) -> None:
    written, where = slipped(text, old, new)
    (problem,) = errors_of(written)
    key = new.split("|")[1].split(":")[0]
    assert problem.startswith(f"s.yaml:{where}: unknown key {key!r} (a key of {place}); "
                              "expected one of: ")  # fmt: skip


def test_a_key_no_rule_system_has_is_said_as_before() -> None:
    written, where = slipped(ZONES, "hp: 30,", "hp: 30, |vitality: 4,")
    (problem,) = errors_of(written)
    assert problem == (
        f"s.yaml:{where}: unknown key 'vitality'; expected one of: {ZONES_COMBATANT_KEYS}"
    )


def test_a_key_of_other_rules_at_another_place_is_not_theirs_here() -> None:
    """``dc`` is a glitters-d20 combatant's key, not an attack's."""
    written, where = slipped(ZONES, "{damage: 1d6+2}", "{damage: 1d6+2, |dc: 12}")
    (problem,) = errors_of(written)
    assert problem.startswith(f"s.yaml:{where}: unknown key 'dc'; expected one of: ")


def test_the_examples_load() -> None:
    for text in (ZONES, GLITTERS, TIERS):
        assert simlab.loads(text).scenario == "t"


def test_the_cli_says_it_with_exit_code_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    written, where = slipped(ZONES, "hp: 30,", "hp: 30, |dc: 12,")
    result = validate_file(path, written)
    assert result.exit_code == 2
    assert result.output.startswith(
        f"{path}:{where}: unknown key 'dc' (a key of rules glitters-d20"
    )
    assert "this scenario's rules are zones-3d6" in result.output
    assert "Traceback" not in result.output
