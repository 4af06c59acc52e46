"""The slips of a designer writing a first scenario file, each said in one message that
names its place and what to write instead."""

from __future__ import annotations

import re

import pytest

import simlab
from tests.support import GLITTERS_DUEL, SPIRITS_DUEL, ZONES_DUEL, errors_of

DRAFT1_DUEL = """\
scenario: t
rules: shattered-spirits-draft1
techniques:
  jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6], ap: 1, speed: 2}
  swing: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ap: 2, speed: 4}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [jab, swing]}]
  b: [{name: B, endurance: 10, health: 10}]
"""
ZONES_TWO = ZONES_DUEL.replace("  spear: {damage: 1d6}\n",
                               "  spear: {damage: 1d6}\n  dagger: {damage: 1d4}\n")  # fmt: skip
GLITTERS_IMMUNE = GLITTERS_DUEL.replace("dc: 10}", "dc: 10, status_immune: [bleeding]}")
_MEANT = re.compile(r"a list is written inside '\[…\]': (\[.*\])\)$")


@pytest.mark.parametrize(
    ("text", "old", "slip", "meant"),
    [
        (ZONES_TWO, "[spear]", "spear dagger", "[spear, dagger]"),
        (DRAFT1_DUEL, "[jab, swing]", "jab swing", "[jab, swing]"),
        (GLITTERS_IMMUNE, "[bleeding]", "bleeding burning", "[bleeding, burning]"),
    ],
)
def test_a_list_of_names_without_brackets_is_said_with_its_commas(
    text: str, old: str, slip: str, meant: str
) -> None:
    """``attacks: dagger longsword`` was told to write ``[dagger longsword]``, which was
    then refused as one attack's name, to be told of the ',': one message says the list
    as it must be written, and that list loads."""
    written = text.replace(old, slip, 1)
    (error,) = errors_of(written)
    assert error.endswith(f"got {slip!r} (a list is written inside '[…]': {meant})")
    found = _MEANT.search(error)
    assert found is not None
    assert simlab.loads(written.replace(slip, found[1], 1))


def test_words_that_are_not_names_stay_one_item() -> None:
    """A status of two words (``stun 2``) is one item of the list, not two."""
    text = SPIRITS_DUEL.replace("blade: {profile", "blade: {status: {12: stun 2}, profile")
    (error,) = errors_of(text)
    assert error.endswith("got 'stun 2' (a list is written inside '[…]': [stun 2])")


ROWS = "the damage on each 2d6 total from 2 to 12, in that order"


@pytest.mark.parametrize(
    ("text", "old", "slip", "got"),
    [
        (SPIRITS_DUEL, "[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", 10),
        (SPIRITS_DUEL, "[0, 0, 1,", "[0, 0, 0, 1,", 12),
        (DRAFT1_DUEL, "[0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]", "[1, 2, 2, 3, 3, 4, 4, 5, 6]", 9),
    ],
)
def test_a_profile_of_the_wrong_length_says_what_its_rows_are(
    text: str, old: str, slip: str, got: int
) -> None:
    """``expected 11 items; got 10 items`` did not say that the rows stand for the 2d6
    totals 2..12, which tells a designer which row is missing."""
    (error,) = errors_of(text.replace(old, slip, 1))
    assert error.endswith(f": expected 11 items ({ROWS}); got {got} items")


def test_a_list_of_another_length_says_no_rows() -> None:
    """Only a profile's items are rows: a list of another key is counted alone."""
    spec = "expect: [{figure: win_rate, side: a, between: [0.5]}]\n"
    assert errors_of(SPIRITS_DUEL + spec) == ["s.yaml:8:47: expected 2 items; got 1 item"]


GLITTERS_BLOCK = """\
scenario: t
rules: glitters-d20
attacks:
  mace: {damage: 1d6, type: bludgeoning}
sides:
  a:
    - name: A
      hp: twenty
      ac: 14
      attacks: [mace]
      resist: [fier]
  b: [{name: B, hp: 20, dc: 10}]
"""
ARMOR_CLASS = (
    "unknown key 'ac' (an armor class, as other d20 games write it); did you mean 'dc' (the "
    "dodge part of MIT) or 'mit' (all of it: mit_base + DC + BC)?"
)


def test_an_armor_class_hides_no_other_mistake_of_its_combatant() -> None:
    """glitters-d20's ``ac:`` hint ran before the combatant's other checks: the
    ``hp: twenty`` above it, and the ``fier`` below, were said only once it was mended.
    Every mistake is said, in file order, the ``ac:`` at its key as a misspelt key is."""
    first, armor_class, resist = errors_of(GLITTERS_BLOCK)
    assert first == "s.yaml:8:11: expected an integer; got 'twenty'"
    assert armor_class == f"s.yaml:9:7: {ARMOR_CLASS}"
    assert resist.startswith("s.yaml:11:16: expected one of 'slashing'")
    assert resist.endswith("got 'fier'; did you mean 'fire'?")


def test_two_armor_classes_are_both_said() -> None:
    """A key refused on sight hides the next one too: each round of them is taken away."""
    text = GLITTERS_BLOCK.replace("      ac: 14\n", "      ac: 14\n      armor_class: 14\n")
    assert errors_of(text)[:3] == [
        "s.yaml:8:11: expected an integer; got 'twenty'",
        f"s.yaml:9:7: {ARMOR_CLASS}",
        "s.yaml:10:7: " + ARMOR_CLASS.replace("'ac'", "'armor_class'"),
    ]


def test_attacks_in_an_earlier_draft_combatant_hide_no_other_mistake() -> None:
    """The earlier draft's ``attacks:`` (its combatants write ``plan:``) was said at the
    combatant's first line, and alone: it is said at its key, beside the others."""
    text = DRAFT1_DUEL.replace(
        "  a: [{name: A, endurance: 10, health: 10, plan: [jab, swing]}]",
        "  a:\n    - name: A\n      endurance: ten\n      health: 10\n      attacks: [jab]",
    )
    assert errors_of(text) == [
        "s.yaml:9:18: expected an integer; got 'ten'",
        "s.yaml:11:7: expected 'plan' (the earlier draft plots Techniques each Round); got "
        "'attacks'",
    ]
