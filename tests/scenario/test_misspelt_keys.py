"""A misspelt required key is one problem: the unknown key, with the key it was meant to be.

It was two: ``expected key 'endurance'; got nothing`` at the entry, and
``unknown key 'endurence'; …; did you mean 'endurance'?`` at the key. The missing key is
not reported when an unknown key beside it is a likely misspelling of it, in every rule
system; a key that does not stand for the missing one leaves both problems.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import (
    GLITTERS_DUEL,
    SPIRITS_DUEL,
    TIERS_DUEL,
    ZONES_DUEL,
    errors_of,
    validate_file,
)

GLITTERS = GLITTERS_DUEL

ZONES = ZONES_DUEL

TIERS = TIERS_DUEL

SPIRITS = SPIRITS_DUEL

DRAFT1 = """\
scenario: t
rules: shattered-spirits-draft1
techniques:
  jab: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ap: 1, speed: 2}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [jab]}]
  b: [{name: B, endurance: 10, health: 10}]
"""

#: (scenario, old, new, where, unknown key, the key it was meant to be)
CASES = [
    (GLITTERS, "hp: 20, attacks", "hpp: 20, attacks", "6:17", "hpp", "hp"),
    (GLITTERS, "{damage: 1d6,", "{damge: 1d6,", "4:10", "damge", "damage"),
    (GLITTERS, "scenario: t", "scenaro: t", "1:1", "scenaro", "scenario"),
    (ZONES, "{damage: 1d6}", "{dmage: 1d6}", "4:11", "dmage", "damage"),
    (ZONES, "hp: 20, attacks", "hpp: 20, attacks", "6:17", "hpp", "hp"),
    (TIERS, "hp: 20, attacks", "hpp: 20, attacks", "6:17", "hpp", "hp"),
    (TIERS, "sides:", "side:", "5:1", "side", "sides"),
    (SPIRITS, "{profile:", "{profil:", "4:11", "profil", "profile"),
    (SPIRITS, "attacks:\n", "atacks:\n", "3:1", "atacks", "attacks"),
    (DRAFT1, "endurance: 10, health: 10, plan", "endurence: 10, health: 10, plan", "6:17",
     "endurence", "endurance"),
    (DRAFT1, "ap: 1, speed: 2}", "ap: 1, sped: 2}", "4:60", "sped", "speed"),
    # a key of the later draft that stands for the earlier draft's
    (DRAFT1, "techniques:", "attacks:", "3:1", "attacks", "techniques"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "old", "new", "where", "key", "meant"), CASES)
def test_a_misspelt_required_key_is_one_problem(
    text: str, old: str, new: str, where: str, key: str, meant: str
) -> None:
    assert old in text
    problems = errors_of(text.replace(old, new, 1))
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"s.yaml:{where}: unknown key {key!r}")
    assert "; expected one of: " in problems[0]
    assert problems[0].endswith(f"; did you mean {meant!r}?")


def test_draft1_does_not_list_attacks_among_its_combatant_keys() -> None:
    """``attacks`` is set from the plan, and refused when written."""
    (problem,) = errors_of(DRAFT1.replace("plan: [jab]", "plan: [jab], speed: 2"))
    assert problem == (
        "s.yaml:6:57: unknown key 'speed' (a key of an attack under 'techniques:'); "
        "expected one of: ap, count, cover, "
        "endurance, exposed, guard, health, impaired, improvise, name, plan, react, roll_modifier, "
        "target, tokens, vigor"
    )


def test_an_unknown_key_that_is_no_misspelling_leaves_the_missing_key() -> None:
    problems = errors_of(GLITTERS.replace("hp: 20, attacks", "vitality: 20, attacks"))
    assert [p.split(": ", 1)[0] for p in problems] == ["s.yaml:6:7", "s.yaml:6:17"]
    assert problems[0].endswith("expected key 'hp'; got nothing")
    assert "unknown key 'vitality'" in problems[1]


def test_the_cli_prints_one_problem_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text = DRAFT1.replace("endurance: 10, health: 10, plan", "endurence: 10, health: 10, plan")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith(f"{path}:6:17: unknown key 'endurence'")
    assert result.output.rstrip().endswith("did you mean 'endurance'?")


@pytest.mark.parametrize("text", [GLITTERS, ZONES, TIERS, SPIRITS])
def test_an_unknown_attack_is_said_beside_other_problems(text: str) -> None:
    """An entry with a misspelt key and a misspelt attack said the key only; the attack
    came once the key was mended, a second round of fixes for one entry."""
    attack = text.split("attacks: [")[1].split("]")[0]
    broken = text.replace("hp: 20, attacks: [", "hpp: 20, attacks: [x").replace(
        "b: [{name: B, hp: 20", "b: [{name: B, hp: twenty"
    )
    problems = errors_of(broken)
    assert len(problems) == 3, problems
    assert "unknown key 'hpp'" in problems[0]
    assert problems[1].startswith("s.yaml:6:") and problems[1].endswith(
        f"expected an attack defined under 'attacks:' ({attack}); got 'x{attack}'; "
        f"did you mean '{attack}'?"
    )
    assert problems[2].startswith("s.yaml:7:") and "got 'twenty'" in problems[2]
