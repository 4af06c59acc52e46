"""Tests for simlab.scenario.validation: pydantic errors worded and located for designers."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import Field, field_validator

import simlab
from simlab.errors import Problem, ScenarioError
from simlab.scenario.source import parse_yaml
from simlab.scenario.validation import StrictModel, describe_value, problem_at, validate
from tests.support import errors_of, slipped


class Attack(StrictModel):
    """A named attack."""

    dice: str
    bonus: int = 0


class Combatant(StrictModel):
    """One fighter."""

    name: str
    hp: int = Field(ge=1)
    speed: float = 6.0
    guard: bool = False
    attacks: list[str] = Field(default_factory=list)


class Scenario(StrictModel):
    """A toy scenario exercising every kind of error."""

    sides: dict[str, list[Combatant]]
    attacks: dict[str, Attack] = Field(default_factory=dict)
    targeting: Literal["focus", "random", "lowest-hp"] = "focus"
    grid: list[int] = Field(default_factory=lambda: [0, 0, 0], min_length=3, max_length=3)
    tags: list[str] = Field(default_factory=list, max_length=2)
    rounds: int | Literal["unlimited"] = 10
    seed: int = 0

    @field_validator("seed")
    @classmethod
    def _seed_small(cls, value: int) -> int:
        if value > 1000:
            raise ValueError(f"expected a seed of at most 1000; got {value}")
        return value


GOOD = """\
sides:
  party:
    - name: Ada
      hp: 10
attacks:
  bite: {dice: 1d6}
"""


def messages(text: str) -> list[str]:
    """Validate ``text`` as a Scenario and return the located problem strings."""
    source = parse_yaml(text, "s.yaml")
    with pytest.raises(ScenarioError) as caught:
        validate(Scenario, source)
    return [str(problem) for problem in caught.value.problems]


def test_valid_scenario_builds_the_model() -> None:
    scenario = validate(Scenario, parse_yaml(GOOD))
    assert scenario.sides["party"][0].hp == 10
    assert scenario.attacks["bite"].dice == "1d6"


def test_unknown_key_lists_allowed_keys_at_the_key() -> None:
    text = "sides:\n  party:\n    - name: Ada\n      hpp: 10\n      hp: 3\n"
    assert messages(text) == [
        "s.yaml:4:7: unknown key 'hpp'; expected one of: attacks, guard, hp, name, speed; "
        "did you mean 'hp'?"
    ]


def test_unknown_top_level_key() -> None:
    assert messages(GOOD + "sneed: 3\n") == [
        "s.yaml:7:1: unknown key 'sneed'; expected one of: "
        "attacks, grid, rounds, seed, sides, tags, targeting; did you mean 'seed'?"
    ]


def test_unknown_key_inside_a_dict_of_models() -> None:
    text = GOOD + "  claw: {dice: 1d4, bonsu: 1}\n"
    assert messages(text) == [
        "s.yaml:7:21: unknown key 'bonsu'; expected one of: bonus, dice; did you mean 'bonus'?"
    ]


def test_wrong_type_quotes_the_text_found() -> None:
    text = "sides:\n  party:\n    - name: Ada\n      hp: ten\n"
    assert messages(text) == ["s.yaml:4:11: expected an integer; got 'ten'"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"5"', "expected an integer; got '5' (a number in quotes is text: write 5 without them)"),
        # text that a designer meant as a number: said how it is written
        ("40hp", "expected an integer; got '40hp' (a number is written without a unit: 40)"),
        ("10k", "expected an integer; got '10k' (write 10_000)"),
        ("1.5M", "expected an integer; got '1.5M' (write 1_500_000)"),
        (
            "100,000",
            "expected an integer; got '100,000' (write 100_000: a ',' does not part thousands)",
        ),
        ("2d6", "expected an integer; got '2d6'"),
        ("3d", "expected an integer; got '3d'"),  # dice begun: no unit to leave off
        ("ten", "expected an integer; got 'ten'"),
        ("true", "expected an integer; got true"),
        ("2.5", "expected an integer; got 2.5"),
        ("30.0", "expected an integer; got 30.0"),  # a fraction written, even of 0
        ("1.25e1", "expected an integer; got 12.5"),
        ("[1, 2]", "expected an integer; got a list"),
        ("{a: 1}", "expected an integer; got a mapping"),
        ("", "expected an integer; got an empty value"),
    ],
)
def test_strict_integers(value: str, message: str) -> None:
    text = f"sides:\n  party:\n    - name: Ada\n      hp: {value}\n"
    assert messages(text) == [f"s.yaml:4:{11 if value else 7}: {message}"]


@pytest.mark.parametrize(
    ("written", "read"),
    [("2e5", 200_000), ("2.5E5", 250_000), ("1_0e2", 1000), ("-3e2", -300), ("2.0", 2.0),
     ("1.25e1", 12.5), ("1e999999", float("inf"))],
)  # fmt: skip
def test_a_whole_number_in_exponent_form_is_an_integer(written: str, read: object) -> None:
    """``encounters: 2e5`` is the count 200,000, as ``-n 2e5`` is on the command line
    (it was the float 200000.0, refused as "got 200000.0"); a fraction, or a number
    written with a decimal point and no exponent, stays a float."""
    value = parse_yaml(f"value: {written}").data["value"]
    assert value == read and type(value) is type(read)


def test_integer_accepted_for_float_and_other_types_named() -> None:
    ok = validate(Scenario, parse_yaml(GOOD.replace("hp: 10", "hp: 10\n      speed: 5")))
    assert ok.sides["party"][0].speed == 5.0
    text = "sides:\n  party:\n    - {name: 7, hp: 1, speed: fast, guard: 1}\n"
    assert messages(text) == [
        "s.yaml:3:14: expected text; got 7",
        "s.yaml:3:31: expected a number; got 'fast'",
        "s.yaml:3:44: expected true or false; got 1 (write true)",
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("yes", "expected true or false; got 'yes' (YAML reads yes as text: write true)"),
        ("Off", "expected true or false; got 'Off' (YAML reads Off as text: write false)"),
        ("maybe", "expected true or false; got 'maybe'"),
        ("0", "expected true or false; got 0 (write false)"),  # cover: 0, as a sheet marks it
        ("1", "expected true or false; got 1 (write true)"),
        ("2", "expected true or false; got 2"),
    ],
)
def test_yes_and_no_for_true_and_false_say_how_they_are_written(value: str, message: str) -> None:
    """YAML 1.1 read ``yes`` and ``off`` as true and false, and designers still write
    them; simlab's YAML 1.2 reads them as text, which the message now says."""
    text = f"sides:\n  party:\n    - {{name: Ada, hp: 1, guard: {value}}}\n"
    assert messages(text) == [f"s.yaml:3:33: {message}"]


def test_list_and_mapping_types() -> None:
    text = "sides:\n  party: {name: Ada}\nattacks: [bite]\n"
    assert messages(text) == [
        "s.yaml:2:10: expected a list; got a mapping (a list's items each start with '- ', or "
        "go inside '[…]')",
        "s.yaml:3:10: expected a mapping; got a list",
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("bite", "expected a list; got 'bite' (a list is written inside '[…]': [bite])"),
        ("bite, claw", "expected a list; got 'bite, claw' (a list is written inside '[…]': "
                       "[bite, claw])"),
        ("3", "expected a list; got 3 (a list is written inside '[…]')"),
    ],
)  # fmt: skip
def test_a_list_written_without_brackets_says_how_it_is_written(value: str, message: str) -> None:
    text = f"sides:\n  party:\n    - name: Ada\n      hp: 3\n      attacks: {value}\n"
    assert messages(text) == [f"s.yaml:5:16: {message}"]


PELL = """\
scenario: t
rules: zones-3d6
attacks:
  cut: {damage: 1d6+2}
sides:
  squire:
    - {name: Squire, hp: 16, attacks: [cut]}
  pell:
    - name: Pell
      hp: 30
      base_defense: [1, 2]
"""


@pytest.mark.parametrize(
    ("value", "items"),
    [
        ("1-3", "1, 2, 3"),  # faces 1 to 3, as a rule book writes them
        ("1 – 2", "1, 2"),
        ("1 2", "1, 2"),
        ("3-1", "3-1"),  # no run: as written
    ],
)
def test_numbers_written_without_brackets_are_said_as_the_list_they_mean(
    value: str, items: str
) -> None:
    """``base_defense: 1-2`` was told to write ``[1-2]``, which is refused in turn (a
    list of one text); numbers, or a run of them, are said as the list they mean."""
    text = PELL.replace("base_defense: [1, 2]", f"base_defense: {value}")
    assert errors_of(text) == [
        f"s.yaml:11:21: expected a list; got {value!r} (a list is written inside '[…]': [{items}])"
    ]
    if items != value:
        assert simlab.loads(PELL.replace("[1, 2]", f"[{items}]"))


TIERS = """\
scenario: t
rules: opposed-tiers
params: {damage_floor: 0}
attacks:
  sword: {}
sides:
  a:
    - {name: Hero, hp: 20, attacks: [sword]}
  b:
    - {name: Bandit, hp: 15, attacks: [sword]}
"""


@pytest.mark.parametrize(
    ("old", "new", "at", "key"),
    [
        ("  sword: {}", "  sword:", "5:3", "sword"),  # the page: "An attack ... is {}"
        ("params: {damage_floor: 0}", "params:", "3:1", "params"),
    ],
)
def test_a_mapping_left_empty_says_how_an_empty_one_is_written(
    old: str, new: str, at: str, key: str
) -> None:
    """``sword:`` with nothing after it, where a mapping needing no key goes, is said
    with how the mapping with no entries is written, which loads."""
    assert errors_of(TIERS.replace(old, new)) == [
        f"s.yaml:{at}: expected a mapping; got an empty value (a mapping with no entries is "
        f"written '{{}}': {key}: {{}})"
    ]
    assert simlab.loads(TIERS.replace(old, new.replace(f"{key}:", f"{key}: {{}}")))


REACTS = """\
scenario: t
rules: shattered-spirits
attacks:
  jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]}
sides:
  a:
    - {name: Kaito, hp: 24, attacks: [jab], react: {block: {when_damage_at_least: 6}}}
  b:
    - {name: Brute, hp: 30, attacks: [jab]}
"""


@pytest.mark.parametrize(
    ("text", "old", "slip", "got", "meant"),
    [
        (REACTS, "{block: {when_damage_at_least: 6}}", "{block: |6}", "6",
         "block: {when_damage_at_least: 6}"),
        (PELL, "  cut: {damage: 1d6+2}", "  cut: |1d6+2", "'1d6+2'", "cut: {damage: 1d6+2}"),
    ],
)  # fmt: skip
def test_a_value_for_a_mapping_of_one_needed_key_says_that_mapping(
    text: str, old: str, slip: str, got: str, meant: str
) -> None:
    """``block: 6`` (a reaction's threshold without its key) said only ``expected a
    mapping; got 6``; a mapping that needs one key is told with it."""
    slipped_text, at = slipped(text, old, slip)
    assert errors_of(slipped_text) == [
        f"s.yaml:{at}: expected a mapping; got {got} (a mapping of the one key it needs: {meant})"
    ]


def test_a_value_for_a_mapping_of_more_needed_keys_is_not_told_one() -> None:
    text = GLITTERS_DUEL.replace("  cut: {damage: 1d6, type: slashing}", "  cut: 1d6")
    assert errors_of(text) == ["s.yaml:4:8: expected a mapping; got '1d6'"]


def test_a_mapping_left_empty_that_needs_keys_is_not_told_to_be_empty() -> None:
    text = GLITTERS_DUEL.replace("  cut: {damage: 1d6, type: slashing}", "  cut:")
    assert errors_of(text) == ["s.yaml:4:3: expected a mapping; got an empty value"]


GLITTERS_DUEL = """\
scenario: t
rules: glitters-d20
attacks:
  cut: {damage: 1d6, type: slashing}
sides:
  a:
    - {name: A, hp: 20, attacks: [cut]}
  b:
    - {name: B, hp: 15, attacks: [cut]}
"""


def test_missing_key_points_at_the_parent_key() -> None:
    text = "sides:\n  party:\n    - name: Ada\n"
    assert messages(text) == ["s.yaml:3:7: expected key 'hp'; got nothing"]


def test_missing_top_level_key() -> None:
    assert messages("seed: 1\n") == ["s.yaml:1:1: expected key 'sides'; got nothing"]


def test_missing_key_of_a_named_mapping() -> None:
    text = GOOD + "  claw:\n    bonus: 1\n"
    assert messages(text) == ["s.yaml:7:3: expected key 'dice'; got nothing"]


def test_literal_lists_the_choices() -> None:
    assert messages(GOOD + "targeting: weakest\n") == [
        "s.yaml:7:12: expected one of 'focus', 'random', 'lowest-hp'; got 'weakest'"
    ]


def test_bounds() -> None:
    text = "sides:\n  party:\n    - name: Ada\n      hp: 0\n"
    assert messages(text) == ["s.yaml:4:11: expected a number ≥ 1; got 0"]


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ("[1, 2]", "expected 3 items; got 2 items"),
        ("[1, 2, 3, 4]", "expected 3 items; got 4 items"),
    ],
)
def test_exact_list_length(grid: str, message: str) -> None:
    assert messages(GOOD + f"grid: {grid}\n") == [f"s.yaml:7:7: {message}"]


def test_maximum_list_length() -> None:
    assert messages(GOOD + "tags: [a, b, c]\n") == [
        "s.yaml:7:7: expected at most 2 items; got 3 items"
    ]


def test_custom_validator_message_is_used_verbatim() -> None:
    assert messages(GOOD + "seed: 5000\n") == [
        "s.yaml:7:7: expected a seed of at most 1000; got 5000"
    ]


def test_union_with_no_fitting_branch_names_both() -> None:
    assert messages(GOOD + "rounds: [1]\n") == [
        "s.yaml:7:9: expected an integer or 'unlimited'; got a list"
    ]


def test_several_errors_sorted_by_line() -> None:
    text = (
        "targeting: weakest\n"
        "sides:\n"
        "  party:\n"
        "    - name: Ada\n"
        "      hp: ten\n"
        "    - name: Bob\n"
        "      hp: 0\n"
        "seed: 5000\n"
    )
    assert messages(text) == [
        "s.yaml:1:12: expected one of 'focus', 'random', 'lowest-hp'; got 'weakest'",
        "s.yaml:5:11: expected an integer; got 'ten'",
        "s.yaml:7:11: expected a number ≥ 1; got 0",
        "s.yaml:8:7: expected a seed of at most 1000; got 5000",
    ]


def test_validate_a_part_of_the_document() -> None:
    source = parse_yaml(GOOD + "  claw: {dice: 3}\n", "s.yaml")
    with pytest.raises(ScenarioError) as caught:
        validate(Attack, source, source.data["attacks"]["claw"], ("attacks", "claw"))
    assert [str(p) for p in caught.value.problems] == ["s.yaml:7:16: expected text; got 3"]


def test_problem_at_for_meaning_checks() -> None:
    source = parse_yaml(GOOD, "s.yaml")
    path = ("sides", "party", 0, "hp")
    assert problem_at(source, path, "expected x; got y") == Problem(
        "s.yaml", 4, 11, "expected x; got y"
    )
    assert problem_at(source, path, "m", key=True) == Problem("s.yaml", 4, 7, "m")
    assert problem_at(source, (*path, "deeper"), "m").line == 4


def test_describe_value_truncates_long_text() -> None:
    shown = describe_value("x" * 100)
    assert shown.endswith("...'")
    assert len(shown) == 40


class Loadout(StrictModel):
    """A field that is either a number or a model."""

    weapon: int | Attack = 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("weapon: {dice: 3}\n", "s.yaml:1:16: expected text; got 3"),
        ("weapon: sword\n", "s.yaml:1:9: expected an integer or a mapping; got 'sword'"),
    ],
)
def test_union_reports_the_most_useful_branch(text: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        validate(Loadout, parse_yaml(text, "s.yaml"))
    assert [str(p) for p in caught.value.problems] == [expected]


@pytest.mark.parametrize(
    ("value", "ends"),
    [("2-6", "2, 6"), ("0.5 to 0.9", "0.5, 0.9"), ("0.5-0.9", "0.5, 0.9"), ("soon", None)],
)
def test_a_specs_range_written_as_text_is_said_as_its_two_ends(
    value: str, ends: str | None
) -> None:
    """``between: 2-6`` was told to write ``[2, 3, 4, 5, 6]`` (a run of numbers, as
    ``base_defense:`` takes one), which ``between:`` refuses as 5 items; ``0.5-0.9`` to
    write ``[0.5-0.9]``, refused as text. A range is its two ends, and they load."""
    figure = "mean_rounds" if value == "2-6" else "win_rate, side: squire"
    text = PELL + f"expect:\n  - {{figure: {figure}, between: {value}}}\n"
    hint = f": [{ends}]" if ends else ""
    column = 36 if value == "2-6" else 47
    assert errors_of(text) == [
        f"s.yaml:13:{column}: expected a list; got {value!r} (a range is written as its two ends "
        f"inside '[…]'{hint})"
    ]
    if ends:
        assert simlab.loads(text.replace(value, f"[{ends}]"))


def test_a_name_with_a_space_at_either_end_is_refused() -> None:
    """``name: "Raider 2 "`` beside the copy ``Raider 2`` of ``count: 2`` was another
    name: validate said ok, and the tables showed two rows named ``Raider 2``."""
    from tests.support import SPIRITS_DUEL, ZONES_DUEL

    text = ZONES_DUEL.replace("{name: A, hp: 20", "{name: Raider, count: 2, hp: 20").replace(
        "  b: [{name: B, hp: 20}]", '  b: [{name: "Raider 2 ", hp: 20}, {name: " B", hp: 5}]'
    )
    assert errors_of(text) == [
        "s.yaml:7:14: expected a name without spaces at its start or end; got 'Raider 2 '",
        "s.yaml:7:43: expected a name without spaces at its start or end; got ' B'",
    ]
    spirit = SPIRITS_DUEL.replace(
        "attacks: [blade]}]", "attacks: [blade], spirit: {name: 'Hawk ', hp: 5}}]", 1
    )
    assert errors_of(spirit) == [
        "s.yaml:6:58: expected a name without spaces at its start or end; got 'Hawk '"
    ]
    assert simlab.loads(text.replace("Raider 2 ", "Raider 3").replace('" B"', "B"))


def test_a_spec_that_could_never_fail_is_refused_at_its_bound() -> None:
    """``mean_damage`` ``at_least: -1`` passed every check, and ``damage_at_least`` at
    damage 0 (P(damage ≥ 0) is 1 on every attack) too; a rate's bound beyond 0..1 was
    refused already."""
    specs = (
        "expect:\n"
        "  - {figure: mean_damage, attack: cut, at_least: -1}\n"
        "  - {figure: damage_at_least, attack: cut, damage: 0, at_least: 0.5}\n"
        "  - {figure: mean_damage, attack: cut, between: [-2, 3]}\n"
    )
    expected = "expected a bound of 0 or more for 'mean_damage' (damage is never below 0); got "
    assert errors_of(PELL + specs) == [
        f"s.yaml:13:50: {expected}-1",
        "s.yaml:14:52: expected a number ≥ 1; got 0",
        f"s.yaml:15:50: {expected}-2",
    ]
    assert simlab.loads(PELL + specs.replace("-1", "0").replace("damage: 0", "damage: 1")
                        .replace("-2", "0"))  # fmt: skip


def test_a_damage_past_the_histograms_last_bin_is_refused_at_its_line() -> None:
    """P(damage ≥ X) is read from a histogram whose last bin (4,095) counts that damage
    and more: past it a spec read 0 whatever the attack dealt, a check that passed or
    failed on nothing. The last bin itself is measured whole."""
    spec = "expect:\n  - {figure: damage_at_least, attack: cut, damage: 4096, at_most: 0.5}\n"
    assert errors_of(PELL + spec) == ["s.yaml:13:52: expected a number ≤ 4095; got 4096"]
    assert simlab.loads(PELL + spec.replace("4096", "4095"))
