"""Every kind of mistake in a glitters-d20 scenario is reported with its line.

Each case changes one line of a valid scenario and asserts the ``file:line`` and the
"expected …; got …" wording of the message.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from tests.support import assert_one_error, errors_of, validate_file

VALID = """\
scenario: t
rules: glitters-d20
encounters: 100
max_rounds: 5
params: {critical_threshold: 19}
attacks:
  sword: {damage: 1d10, type: slashing, bonus: 5}
  spear: {damage: 1d8, type: piercing, bonus: 4, attribute: dex}
sides:
  a:
    - {name: Knight, hp: 30, player: true, attributes: {str: 15}, dc: 6, armor: plate,
       armor_bc: 6, shield_bc: 2, defense: block, attacks: [sword]}
  b:
    - {name: Skeleton, hp: 13, resist: [piercing], status_immune: [bleeding],
       burning: 2, attacks: [spear]}
"""

ARMOR_CLASS_HINT = (
    " (an armor class, as other d20 games write it); did you mean 'dc' (the dodge part of "
    "MIT) or 'mit' (all of it: mit_base + DC + BC)?"
)


def test_the_valid_scenario_loads() -> None:
    scn = simlab.loads(VALID, "s.yaml")
    assert scn.combatant_names() == [("a", "Knight"), ("b", "Skeleton")]
    assert scn.sides["a"][0].dodge(scn.params.mit_base) == 6
    assert scn.params.critical_threshold == 19


def test_mit_shortcut_sets_dc() -> None:
    """``mit: 14`` with BC 8 and ``mit_base: 2`` leaves DC 4."""
    text = VALID.replace("dc: 6,", "mit: 14,").replace("{critical_threshold: 19}",
                                                       "{mit_base: 2}")  # fmt: skip
    scn = simlab.loads(text, "s.yaml")
    assert scn.sides["a"][0].dodge(2) == 4


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        (
            "type: slashing, bonus: 5}",
            "type: slash, bonus: 5}",
            7,
            ["expected one of 'slashing'", "'corrosive'", "got 'slash'"],
        ),
        (
            "type: slashing, bonus: 5}",
            "type: slashing, bonus: 5, hand: left}",
            7,
            ["'main', 'offhand', 'two-handed'", "'left'"],
        ),
        ("{damage: 1d10", "{damage: 2d10kh1", 7, ["expected plain dice", "'2d10kh1'"]),
        ("{damage: 1d10", "{damage: 1d10-1d4", 7, ["got '1d10-1d4', which subtracts 1d4"]),
        # another d20 game's armor class, no spelling close to dc or mit: it had no hint
        ("dc: 6,", "ac: 6,", 11, ["unknown key 'ac'" + ARMOR_CLASS_HINT]),
        ("dc: 6,", "AC: 6,", 11, ["unknown key 'AC'" + ARMOR_CLASS_HINT]),
        ("dc: 6,", "armor_class: 6,", 11, ["unknown key 'armor_class'" + ARMOR_CLASS_HINT]),
        (
            "type: slashing, bonus: 5}",
            "type: slashing, bonus: 5, crit: 19}",
            7,
            ["unknown key 'crit'", "critical_threshold"],
        ),
        ("attribute: dex}", "attribute: Dex}", 8, ["expected one of 'str', 'dex'", "'Dex'"]),
        (
            "attribute: dex}",
            "attribute: luck}",
            8,
            ["expected one of 'str', 'dex', 'speed', 'int', 'will'; got 'luck'"],
        ),
        ("dc: 6,", "dc: 6, mit: 14,", 11, ["expected either 'mit' or 'dc'", "got both"]),
        ("dc: 6,", "mit: 3,", 11, ["expected mit at least", "= 8", "got 3"]),
        (
            "shield_bc: 2, defense: block",
            "shield_bc: 0, defense: block",
            11,
            ["expected a shield (shield_bc > 0) to block", "got shield_bc: 0"],
        ),
        (
            "attributes: {str: 15}",
            "attributes: {STR: 15}",
            11,
            ["expected one of 'str', 'dex'", "got 'STR'"],
        ),
        (
            "attributes: {str: 15}",
            "attributes: {str: 150}",
            11,
            ["expected attribute scores from 0 to 99", "got str: 150"],
        ),
        ("{name: Knight, hp: 30,", "{name: Knight, hp: 0,", 11, ["≥ 1", "got 0"]),
        ("player: true", "player: yes", 11, ["expected true or false", "'yes'"]),
        ("defense: block", "defense: dodge", 12, ["'none', 'block', 'parry'", "'dodge'"]),
        ("armor: plate,", "armor: scale,", 11, ["'mail', 'plate'", "'scale'"]),
        ("resist: [piercing]", "resist: [blunt]", 14, ["expected one of", "got 'blunt'"]),
        (
            "status_immune: [bleeding]",
            "status_immune: [poisoned]",
            14,
            ["'bleeding', 'burning', 'freezing'", "'poisoned'"],
        ),
        ("burning: 2", "burning: -1", 15, ["≥ 0", "got -1"]),
        (
            "attacks: [spear]",
            "attacks: [lance]",
            15,
            ["expected an attack defined under 'attacks:'", "'lance'"],
        ),
        ("{critical_threshold: 19}", "{critical_threshold: 21}", 5, ["≤ 20", "21"]),
        (
            "{critical_threshold: 19}",
            "{critical_threshold: 19, rounding: nearest}",
            5,
            ["'down', 'up'", "'nearest'"],
        ),
        (
            "{critical_threshold: 19}",
            "{critical_threshold: 19, advantage_dice: 1}",
            5,
            ["≥ 2", "got 1"],
        ),
        (
            "{critical_threshold: 19}",
            "{crit_threshold: 19}",
            5,
            ["unknown key 'crit_threshold'", "critical_threshold", "death_rules"],
        ),
        (
            "{critical_threshold: 19}",
            "{death_rules: hardcore}",
            5,
            ["'permadeath', 'modern'", "'hardcore'"],
        ),
    ],
)
def test_error_is_located(old: str, new: str, line: int, words: list[str]) -> None:
    assert old in VALID
    assert_one_error(VALID.replace(old, new, 1), line, words)


def test_an_offhand_attack_of_a_blocker_is_refused_at_its_name() -> None:
    """Block takes the offhand action, so a blocker's offhand attack was never made: the
    attack sat in its list doing nothing. It is refused where it is listed; a blocker's
    main-hand attacks and a non-blocker's offhand attack stay."""
    offhand = VALID.replace("  spear:", "  bash: {damage: 1d4, type: bludgeoning, "
                                       "hand: offhand}\n  spear:")  # fmt: skip
    blocker = offhand.replace("attacks: [sword]}", "attacks: [sword, bash]}")
    assert errors_of(blocker) == [
        "s.yaml:13:68: expected a main-hand or two-handed attack for a combatant with "
        "'defense: block' (Block takes the offhand action, so it never makes offhand "
        "attacks); got 'bash' (hand: offhand)"
    ]
    simlab.loads(blocker.replace("defense: block", "defense: parry"))
    simlab.loads(offhand.replace("attacks: [spear]}", "attacks: [spear, bash]}"))


def test_every_known_attribute_is_read() -> None:
    """docs/rules/glitters-d20.md: the attributes are the seed's STR, DEX, speed, INT and
    WILL; one not given is 10."""
    five = "attributes: {str: 15, dex: 12, speed: 14, int: 9, will: 11}"
    text = VALID.replace("attributes: {str: 15}", five)
    text = text.replace("attribute: dex}", "attribute: speed}")
    scn = simlab.loads(text, "s.yaml")
    knight, skeleton = scn.sides["a"][0], scn.sides["b"][0]
    scores = [knight.attribute(a) for a in ("str", "dex", "speed", "int", "will")]
    assert scores == [15, 12, 14, 9, 11]
    assert scn.attacks["spear"].attribute == "speed" and skeleton.attribute("speed") == 10


@pytest.mark.parametrize(
    ("attributes", "col", "got"),
    [
        ("{strenght: 14}", 57, "'strenght'; did you mean 'str'?"),
        ("{str: 15, luck: 3}", 66, "'luck'"),
        ("{7: 15}", 57, "7"),
    ],
)
def test_an_unknown_attribute_name_is_refused_at_its_key(
    attributes: str, col: int, got: str
) -> None:
    """A misspelled attribute was silently a score no rule reads (the attribute stayed 10):
    it is refused at its key, listing the attributes."""
    problems = errors_of(VALID.replace("attributes: {str: 15}", f"attributes: {attributes}"))
    assert problems == [f"s.yaml:11:{col}: expected one of 'str', 'dex', 'speed', 'int', "
                        f"'will'; got {got}"]  # fmt: skip


@pytest.mark.parametrize(
    ("written", "meant"), [('"true"', "true"), ("'False'", "false"), ("'TRUE'", "true")]
)
def test_true_in_quotes_says_the_quotes_make_it_text(written: str, meant: str) -> None:
    """``player: "true"`` was ``expected true or false; got 'true'``, no word of the
    quotes, which make it text, where a number in quotes gets that hint."""
    problems = errors_of(VALID.replace("player: true", f"player: {written}"))
    assert problems == [f"s.yaml:11:38: expected true or false; got {written[1:-1]!r} (true "
                        f"or false in quotes is text: write {meant} without them)"]  # fmt: skip


@pytest.mark.parametrize("written", ["none", "None", '"null"'])
def test_an_attribute_of_none_says_null(written: str) -> None:
    """``attribute: none`` listed the attributes, no word of ``null``, which the rule page
    gives for none (an attack that adds no attribute to its damage; left out, it is
    ``str``)."""
    problems = errors_of(VALID.replace("attribute: dex", f"attribute: {written}"))
    shown = written.strip('"')
    assert problems == [f"s.yaml:8:61: expected one of 'str', 'dex', 'speed', 'int', 'will'; "
                        f"got {shown!r} (YAML reads {shown} as text: write attribute: null "
                        "for none)"]  # fmt: skip
    assert simlab.loads(VALID.replace("attribute: dex", "attribute: null")).attacks


def test_cli_exit_code_is_2(tmp_path: Path) -> None:
    result = validate_file(tmp_path / "bad.yaml", VALID.replace("type: slashing", "type: slash"))
    assert result.exit_code == 2
    assert "bad.yaml:7:" in result.output and "got 'slash'" in result.output
