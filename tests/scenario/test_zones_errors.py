"""Every kind of mistake in a zones-3d6 scenario is reported with its line.

Each case changes one line of a valid scenario and asserts the ``file:line`` and the
"expected …; got …" wording of the message.
"""

from __future__ import annotations

import pytest

import simlab
from tests.support import assert_one_error, errors_of

VALID = """\
scenario: t
rules: zones-3d6
encounters: 100
max_rounds: 5
params: {pressure: die}
attacks:
  longsword: {damage: 1d6+3, edge: 1}
  bow: {damage: 1d8, bonus: 1}
sides:
  a:
    - {name: A, hp: 10, bonus_damage: 1, attacks: [longsword]}
  b:
    - {name: B, hp: 10, base_defense: [3, 4], bonus_defense: 1, attacks: [bow]}
"""


def test_the_valid_scenario_loads() -> None:
    scn = simlab.loads(VALID, "s.yaml")
    assert scn.combatant_names() == [("a", "A"), ("b", "B")]
    assert scn.sides["b"][0].base_defense == [3, 4]


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        (
            "bonus_defense: 1,",
            "bonus_defence: 1,",
            13,
            ["unknown key 'bonus_defence'", "bonus_defense"],
        ),
        (
            "base_defense: [3, 4]",
            "base_defense: [3, 9]",
            13,
            ["expected die faces from 1 to 8", "d8", "got 9"],
        ),
        ("base_defense: [3, 4]", "base_defense: [0, 4]", 13, ["from 1 to 8", "got 0"]),
        (
            "{damage: 1d6+3, edge: 1}",
            "{damage: 2d6kh1+3, edge: 1}",
            7,
            ["expected plain dice", "'2d6kh1'"],
        ),
        (
            "{damage: 1d8, bonus: 1}",
            "{damage: 1d8-1d4, bonus: 1}",
            8,
            ["expected added dice for damage; got '1d8-1d4', which subtracts 1d4"],
        ),
        # as typed: the dice read it as -1d6+1, which the message said ('-1d6')
        (
            "{damage: 1d8, bonus: 1}",
            "{damage: 1-d6, bonus: 1}",
            8,
            ["expected added dice for damage; got '1-d6', which subtracts 1d6"],
        ),
        ("{damage: 1d8, bonus: 1}", "{damage: 1q8, bonus: 1}", 8, ["expected a dice expression"]),
        ("{damage: 1d6+3, edge: 1}", "{damage: 1d6+3, edge: -1}", 7, ["≥ 0", "-1"]),
        (
            "{damage: 1d6+3, edge: 1}",
            "{damage: 1d6+3, edge: 1, crit: 2}",
            7,
            ["unknown key 'crit'", "pressure"],
        ),
        ("{name: A, hp: 10,", "{name: A, hp: -1,", 11, ["expected a number ≥ 0", "-1"]),
        (
            "{name: A, hp: 10,",
            "{name: A, hp: 10, target: weakest,",
            11,
            ["'focus', 'random', 'lowest-hp'", "'weakest'"],
        ),
        ("{name: A, hp: 10,", "{name: A, hp: 10, attacks_per_turn: 0,", 11, ["≥ 1", "0"]),
        ("{pressure: die}", "{pressure: dice}", 5, ["'die', 'total'", "'dice'"]),
        ("{pressure: die}", "{pressure: die, advantage_dice: 4}", 5, ["≤ 3", "4"]),
        (
            "{pressure: die}",
            "{pressure: die, edge_stack: true}",
            5,
            ["unknown key 'edge_stack'", "edges_stack"],
        ),
        ("attacks: [longsword]", "attacks: [sword]", 11, ["expected an attack defined", "'sword'"]),
        ("{pressure: die}", "{pressure: die, major_actions: 0}", 5, ["≥ 1", "got 0"]),
        (
            "{pressure: die}",
            "{pressure: die, major_actions: 1, attack_cost: 2}",
            5,
            ["expected at least attack_cost (2) Major actions", "nobody could attack", "got 1"],
        ),
    ],
)
def test_error_is_located(old: str, new: str, line: int, words: list[str]) -> None:
    assert old in VALID
    assert_one_error(VALID.replace(old, new, 1), line, words)


def test_faces_allowed_follow_the_largest_damage_die() -> None:
    """With only d6 damage a 7 is refused, naming the faces; a d8 attack allows it."""
    d6_only = VALID.replace("{damage: 1d8, bonus: 1}", "{damage: 1d6, bonus: 1}")
    problems = errors_of(d6_only.replace("[3, 4]", "[3, 7]"))
    assert problems[0].startswith("s.yaml:13:")
    assert "expected die faces from 1 to 6 (the largest damage die is a d6); got 7" in problems[0]
    simlab.loads(VALID.replace("[3, 4]", "[3, 7]"), "s.yaml")
