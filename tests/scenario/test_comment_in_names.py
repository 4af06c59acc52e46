"""A name cut short by a ' #', which YAML reads as the start of a comment, is said so.

``- name: Goblin #1`` on a line of its own names the combatant ``Goblin``: YAML ends a
plain value at a space and a '#'. Two such entries clashed as ``Goblin`` with no word
of the comment; an attack listed as ``- bite #2`` was an unknown ``bite``. Each message
at such a value now says that the '#' began a comment and how to write the name (in
quotes). A key cut so (``claw #1: {…}``, a side ``team #2:``) is a syntax error, said at
its '#'. A comment that is a note (``# the boss``, a space after the '#') is no slip.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import ScenarioError
from tests.scenario.test_scenario_errors import ATTACK, FIELDS, NAMES_ONCE
from tests.support import errors_of, validate_file


def _block(rules: str, first: str, second: str) -> str:
    """A scenario of ``rules`` in block style whose side ``party`` holds two combatants
    whose ``name:`` lines are ``first`` and ``second`` (with what follows them there),
    the first on line 6 (the second: :func:`_second_line`); side ``enemies`` holds
    ``Brute``."""
    attacks = "techniques" if rules == "shattered-spirits-draft1" else "attacks"
    uses = "plan" if rules == "shattered-spirits-draft1" else "attacks"
    fields = "".join(f"      {field}\n" for field in FIELDS[rules].split(", "))
    entry = "    - name: {}\n" + fields + f"      {uses}: [a]\n"
    return (f"scenario: t\nrules: {rules}\n{attacks}: {ATTACK[rules]}\nsides:\n  party:\n"
            + entry.format(first) + entry.format(second)
            + f"  enemies:\n    - {{name: Brute, {FIELDS[rules]}, {uses}: [a]}}\n")  # fmt: skip


def _second_line(rules: str) -> int:
    """The line of the second entry's ``name:`` in :func:`_block`."""
    return 6 + 2 + len(FIELDS[rules].split(", "))


def _hint(value: str, comment: str, key: str = "name") -> str:
    return (f"the ' #' after {value!r} began a comment ({comment!r}), which YAML leaves "
            f"out (a value holding ' #' needs quotes: {key}: \"{value} {comment}\")")  # fmt: skip


@pytest.mark.parametrize("rules", sorted(FIELDS))
def test_two_names_cut_by_a_comment_say_the_comment(rules: str) -> None:
    """In every rule system's shape: the clash is said, and the '#' of the clashing
    name with it."""
    line = _second_line(rules)
    assert errors_of(_block(rules, "Goblin #1", "Goblin #2")) == [
        f"s.yaml:{line}:13: {NAMES_ONCE}the combatant 'Goblin' on side 'party' twice (the "
        f"first at 6:13); {_hint('Goblin', '#2')}"
    ]


@pytest.mark.parametrize("rules", sorted(FIELDS))
def test_a_first_name_cut_by_a_comment_is_said_where_the_first_is(rules: str) -> None:
    line = _second_line(rules)
    assert errors_of(_block(rules, "Goblin #1", "Goblin")) == [
        f"s.yaml:{line}:13: {NAMES_ONCE}the combatant 'Goblin' on side 'party' twice (the "
        f"first at 6:13; {_hint('Goblin', '#1')})"
    ]


@pytest.mark.parametrize("rules", sorted(FIELDS))
def test_names_in_quotes_keep_their_hash(rules: str) -> None:
    scenario = simlab.loads(_block(rules, '"Goblin #1"', "'Goblin #2'"))
    names = [c.name for c in scenario.sides["party"]]  # type: ignore[attr-defined]
    assert names == ["Goblin #1", "Goblin #2"]


def test_a_note_after_a_name_is_no_slip() -> None:
    """A comment with a space after its '#' is a note: the clash is said without a hint."""
    assert errors_of(_block("zones-3d6", "Goblin  # the weak one", "Goblin # the boss")) == [
        f"s.yaml:9:13: {NAMES_ONCE}the combatant 'Goblin' on side 'party' twice (the first at 6:13)"
    ]


def test_an_attack_listed_with_a_hash_is_said_as_cut() -> None:
    text = _block("glitters-d20", "Kaito", "Mira").replace("attacks: [a]\n", "attacks:\n"
                                                           "        - bite #2\n", 1)  # fmt: skip
    assert errors_of(text) == [
        "s.yaml:9:11: expected an attack defined under 'attacks:' (a); got 'bite'; "
        + _hint("bite", "#2").replace('name: "', '- "')
    ]


def _with_stances(switch_to: str) -> str:
    """A shattered-spirits scenario whose first combatant (Kaito) has two Stances, Calm
    and Rooted, and a stance_policy whose ``switch_to:`` line is ``switch_to`` (line 13)."""
    return _block("shattered-spirits", "Kaito", "Mira").replace(
        "      attacks: [a]\n",
        "      attacks: [a]\n      stances:\n"
        "        - {name: Calm, speed: 2}\n        - {name: Rooted, speed: 4}\n"
        f"      stance_policy:\n        switch_to: {switch_to}\n        when_hp_below: 3\n",
        1,
    )


def test_a_spirit_and_a_stance_cut_by_a_comment_are_said_so() -> None:
    """Names of other kinds: a Spirit's (a clash with its owner) and a Stance named by
    ``switch_to``."""
    spirit = _block("shattered-spirits", "Kaito", "Mira").replace(
        "      attacks: [a]\n", "      attacks: [a]\n      spirit:\n        name: Kaito #2\n"
        "        hp: 5\n", 1)  # fmt: skip
    assert errors_of(spirit) == [
        f"s.yaml:10:15: {NAMES_ONCE}'Kaito' for the Spirit 'Kaito' of 'Kaito' on side "
        f"'party', already the name of the combatant 'Kaito' on side 'party' (at 6:13); "
        f"{_hint('Kaito', '#2')}"
    ]
    stances = _with_stances("Calm #2")
    assert errors_of(stances) == [
        "s.yaml:13:20: expected a Stance other than the first listed ('Calm', taken "
        f"otherwise); got 'Calm'; {_hint('Calm', '#2', 'switch_to')}"
    ]


KEY_CUT = ("expected valid YAML syntax; got a ' #' inside the key {0!r}, which starts a "
           "comment: YAML reads {1!r} with no ':' after it (a key holding ' #' needs quotes: "
           "\"{0}\":)")  # fmt: skip


def test_an_attack_key_cut_by_a_comment_is_said_at_its_hash() -> None:
    text = _block("shattered-spirits", "Kaito", "Mira").replace(
        "attacks: {a: {profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}}",
        "attacks:\n  claw #1:\n    profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]", 1)  # fmt: skip
    assert errors_of(text) == [f"s.yaml:4:8: {KEY_CUT.format('claw #1', 'claw')}"]
    one_line = text.replace("claw #1:\n    profile", "claw #1: {profile", 1).replace(
        "1]\n", "1]}\n", 1)  # fmt: skip
    assert errors_of(one_line) == [
        "s.yaml:4:3: expected a mapping; got 'claw'; "
        + KEY_CUT.format("claw #1", "claw").split("got ", 1)[1]
    ]


def test_validate_says_a_side_cut_by_a_comment_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    result = validate_file(path, _block("opposed-tiers", "Kaito", "Mira").replace(
        "  enemies:", "  team #2:"))  # fmt: skip
    assert result.exit_code == 2
    assert result.output == f"{path}:12:8: {KEY_CUT.format('team #2', 'team')}\n"


def test_an_override_of_a_cut_name_is_not_said_as_cut() -> None:
    """The value an override wrote is no longer the file's: no word of the file's
    comment after the value it replaced."""
    text = _with_stances("Rooted #2")
    scenario = simlab.loads(text)
    with pytest.raises(ScenarioError) as caught:
        simlab.override(scenario, {"Kaito.stance_policy.switch_to": "Calm"})
    assert "a Stance other than the first listed" in str(caught.value)
    assert "began a comment" not in str(caught.value)
