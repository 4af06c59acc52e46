"""A slip inside a one-line ``{…}`` or ``[…]`` is said in plain words, where it is.

The YAML parser said "expected ',' or '}', but got ':'" for a comma left off, at the
colon of the next key, and the same a line below for a '}' left off; a missing space
after a colon made an unknown key ``'damage:1d8+2'``. Each case here writes the slip
with a ``|`` where the message must point: where the missing ',' or bracket belongs, or
where the stray one stands.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from tests.support import errors_of, slipped, validate_file

KNIGHT = """\
scenario: t
rules: glitters-d20
attacks:
  club: {damage: 1d6, type: bludgeoning}
  mace: {damage: 1d8+2, type: bludgeoning, bonus: 5}
  spear: {damage: 1d8, type: piercing}
sides:
  knight:
    - {name: Knight, hp: 34, armor: plate, armor_bc: 7,
       attacks: [club, mace]}
  skeletons:
    - {name: Skeleton, count: 2, hp: 13, resist: [slashing], attacks: [spear]}
expect:
  - {figure: win_rate, side: knight, at_least: 0.5}
"""

SYNTAX = "expected valid YAML syntax; got "
COMMAS = "(the entries inside '{…}' are parted by commas"
COMMENT = (
    "which starts a comment: the rest of its line is not read (a value holding ' #' needs quotes)"
)

#: (text written, the slip with '|' where the message points, the message after "got")
SLIPS = [
    # a ',' left off between two entries, on one line and at a line's end
    ("1d8+2, type", "1d8+2| type",
     f"no ',' between '1d8+2' and 'type' {COMMAS}; a value holding ': ' needs quotes)"),
    ("type: piercing}", "type: piercing| bonus: 4}",
     f"no ',' between 'piercing' and 'bonus' {COMMAS}; a value holding ': ' needs quotes)"),
    ("armor_bc: 7,", "armor_bc: 7|",
     f"no ',' between '7' and 'attacks' {COMMAS}; a value holding ': ' needs quotes)"),
    ("[slashing], attacks", "[slashing]| attacks",
     f"no ',' between '[slashing]' and 'attacks' {COMMAS})"),
    # a closing bracket left off, or the wrong one
    ("bonus: 5}", "bonus: 5|", "no '}' closing the '{' opened at 5:9 before the next line"),
    ("[club, mace]}", "[club, mace]|", "no '}' closing the '{' opened at 9:7 before the "
                                       "next line"),
    ("bonus: 5}", "bonus: 5|]", "a ']' closing the '{' opened at 5:9 (a '{' closes with '}')"),
    ("1d8+2, type", "1d8+2, |]type", "a stray ']' inside the '{' opened at 5:9 (a '{' closes "
                                     "with '}')"),
    ("[club, mace]}", "[club, mace|}", "a '}' closing the '[' opened at 10:17 (a '[' closes "
                                       "with ']')"),
    ("{figure: win_rate, side: knight, at_least: 0.5}",
     "|{figure: win_rate, side: knight, at_least: 0.5",
     "a '{' never closed: the file ends before its '}'"),
    # a ',' or a bracket too many, or more after the entry's end
    ("1d8+2, type", "1d8+2,|, type", "two ',' in a row (an entry left out between them, or "
                                     "a ',' too many)"),
    ("{damage: 1d6,", "{|, damage: 1d6,", "a ',' before the first entry of the '{'"),
    ("bonus: 5}", "bonus: 5}|,", "a ',' after the closing '}' (a ',' parts the entries "
                                 "inside '{…}' or '[…]' only)"),
    ("bonus: 5}", "bonus: 5}|}", "a '}' with no '[' or '{' open to close"),
    ("bonus: 5}", "bonus: 5} |hand: off", "'hand' after the closing '}' of the '{' opened "
                                          "at 5:9 (only a comment may follow it on its line)"),
    # a ':' inside a value, which YAML reads as a key's, said with the value quoted
    ("bludgeoning,", "bludgeoning|: blunt,", "a ':' inside the value of 'type' (a value "
                                             "holding ': ' needs quotes: type: "
                                             "\"bludgeoning: blunt\")"),
    ("name: Knight,", "name: Sir Knight|: Scout,", "a ':' inside the value of 'name' (a value "
                                                  "holding ': ' needs quotes: name: \"Sir "
                                                  "Knight: Scout\")"),
    ("count: 2,", "count: 2, note: the ogre|: wait,", "a ':' inside the value of 'note' (a "
                                                      "value holding ': ' needs quotes: "
                                                      "note: \"the ogre: wait\")"),
    ("bonus: 5}", "bonus: 5, note: Ogre|: \"big\"}", "a ':' inside the value of 'note' (a "
                                                   "value holding ': ' needs quotes: note: "
                                                   "'Ogre: \"big\"')"),
    # a misspelt key after a ',' left off is still the ',' left off
    ("1d8+2, type", "1d8+2| tpye", f"no ',' between '1d8+2' and 'tpye' {COMMAS}; a value "
                                   "holding ': ' needs quotes)"),
    ("1d8+2, type", "1d8+2| Type", f"no ',' between '1d8+2' and 'Type' {COMMAS}; a value "
                                   "holding ': ' needs quotes)"),
    # a ':' after a quoted value
    ("bludgeoning,", "\"bludgeoning\"|: blunt,", "a second ':' in one entry of the '{' "
                                               "opened at 5:9 (a value holding ': ' needs "
                                               "quotes)"),
    # a ' #' in a value, which starts a comment that hides the rest of the line
    ("name: Knight,", "name: Knight |#1,", f"a '#' inside the '{{' opened at 9:7, {COMMENT}"),
    ("name: Knight,", "name: Sir Knight |#1,", f"a '#' inside the '{{' opened at 9:7, {COMMENT}"),
    ("{damage: 1d8+2,", "{damage: 1d8+2 |#avg 6.5,", f"a '#' inside the '{{' opened at 5:9, "
                                                      f"{COMMENT}"),
    ("[slashing], attacks", "[slashing |#none], attacks", f"a '#' inside the '[' opened at "
                                                          f"12:50, {COMMENT}"),
    ("bonus: 5}", "bonus: 5 |#max}", f"a '#' inside the '{{' opened at 5:9, {COMMENT}"),
    # on the file's last line, where the file ended inside the bracket ("never closed")
    ("side: knight,", "side: knight |#1,", f"a '#' inside the '{{' opened at 14:5, {COMMENT}"),
    # a closing bracket left off before a note, or before a comment line: the bracket's
    # slip, not the comment's (the comment line was blamed, the quickstart's layout)
    ("bonus: 5}", "bonus: 5|  # the heavy one", "no '}' closing the '{' opened at 5:9 before "
                                                "the next line"),
    ("bonus: 5}", "bonus: 5|\n\n# spears below", "no '}' closing the '{' opened at 5:9 "
                                                  "before the next line"),
    ("attacks: [spear]}", "attacks: [spear]|\n# specs", "no '}' closing the '{' opened at "
                                                        "12:7 before the next line"),
]  # fmt: skip


def written(old: str, slip: str) -> tuple[str, str]:
    """KNIGHT with its first ``old`` written as ``slip``, and where the '|' stood."""
    return slipped(KNIGHT, old, slip)


def test_the_scenario_without_slips_loads() -> None:
    assert simlab.loads(KNIGHT).scenario == "t"


def test_a_comment_after_a_comma_inside_brackets_still_loads() -> None:
    text = KNIGHT.replace("armor_bc: 7,", "armor_bc: 7,  # plate and shield")
    text = text.replace("[club, mace]", "[club,  # the first\n       mace]")
    assert simlab.loads(text).scenario == "t"


@pytest.mark.parametrize(("old", "slip", "got"), SLIPS)
def test_a_slip_in_brackets_is_said_plainly_where_it_is(old: str, slip: str, got: str) -> None:
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {SYNTAX}{got}"]


#: (text written, the slip with '|', the message): a key and its value written together,
#: which YAML reads as one key with no value.
RUN_TOGETHER = [
    ("{damage: 1d8+2,", "{damage:|1d8+2,", "expected 'damage: 1d8+2' (a key and its value are "
                                           "parted by ': '); got 'damage:1d8+2', a key with "
                                           "no value"),
    ("{damage: 1d8+2,", "{damage| 1d8+2,", "expected 'damage: 1d8+2' (a key and its value are "
                                           "parted by ': '); got 'damage 1d8+2', a key with "
                                           "no value"),
    # a required key written so is not also missing
    ("hp: 34,", "hp|=34,", "expected 'hp: 34' (a key and its value are parted by ': '); got "
                           "'hp=34', a key with no value"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "slip", "message"), RUN_TOGETHER)
def test_a_key_run_into_its_value_is_said_plainly(old: str, slip: str, message: str) -> None:
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


@pytest.mark.parametrize(
    ("old", "slip", "message"),
    [
        ("[club, mace]", "[|club mace]", "expected an attack defined under 'attacks:' (club, "
         "mace, spear); got 'club mace'; did you mean 'club, mace'? (the items of a list are "
         "parted by commas)"),
        ("[slashing]", "[|slashing piercing]", "expected one of 'slashing', 'bludgeoning', "
         "'piercing', 'fire', 'poison', 'force', 'ice', 'lightning', 'corrosive', 'holy', "
         "'profane'; got 'slashing piercing'; did you mean 'slashing, piercing'? (the items "
         "of a list are parted by commas)"),
    ],
)  # fmt: skip
def test_list_items_with_no_comma_between_are_named(old: str, slip: str, message: str) -> None:
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


def test_validate_says_the_slip_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = written("1d8+2, type", "1d8+2| type")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:{at}: {SYNTAX}no ',' between '1d8+2' and 'type'")
    assert "Traceback" not in result.output


def test_validate_says_a_colon_in_a_name_needs_quotes(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = written("{name: Skeleton, count: 2,", "{name: Goblin|: Scout, count: 2,")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:{at}: {SYNTAX}a ':' inside the value of 'name' "
                                    "(a value holding ': ' needs quotes: name: "
                                    '"Goblin: Scout")')  # fmt: skip
    assert "Traceback" not in result.output


def test_validate_says_a_colon_in_a_name_in_curly_quotes_needs_straight_ones(
    tmp_path: Path,
) -> None:
    """The curly quotes are the slip, so the quotes the message writes are straight."""
    path = tmp_path / "bad.yaml"
    text, at = written("{name: Skeleton,", "{name: “Sir|: the Bold”,")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:{at}: {SYNTAX}a ':' inside the value of 'name', "
                                    "“Sir: the Bold” in curly quotes, which YAML reads as part "
                                    "of the text (a value holding ': ' needs straight quotes: "
                                    'name: "Sir: the Bold")')  # fmt: skip
    assert "Traceback" not in result.output


PELL = """\
scenario: t
rules: zones-3d6
attacks:
  cut: {damage: 1d6+2}
sides:
  squire:
    - {name: Squire, hp: 16, attacks: [cut]}
  pell:
    - {name: Pell, hp: 30, evasion: 1, base_defense: [1, 2], bonus_defense: 1}
"""

ONE_VALUE = "expected one value for {!r} (a ',' parts the entries of '{{…}}'); got "


def pell_written(old: str, slip: str) -> tuple[str, str]:
    """PELL with ``old`` written as ``slip``, and where the '|' stood."""
    return slipped(PELL, old, slip)


@pytest.mark.parametrize(
    ("old", "slip", "message"),
    [
        ("base_defense: [1, 2]", "base_defense: |1, 2",
         ONE_VALUE.format("base_defense") + "'1, 2' (a list is written inside '[…]': "
                                            "base_defense: [1, 2])"),
        # the last entry, and three parts
        ("bonus_defense: 1}", "bonus_defense: |1, 2, 3}",
         ONE_VALUE.format("bonus_defense") + "'1, 2, 3' (a list is written inside '[…]': "
                                             "bonus_defense: [1, 2, 3])"),
        # text: quotes too
        ("{name: Pell,", "{name: |Pell, the Pell,",
         ONE_VALUE.format("name") + "'Pell, the Pell' (a list is written inside '[…]': "
                                    "name: [Pell, the Pell]; text holding ',' inside "
                                    "quotes: name: \"Pell, the Pell\")"),
    ],
)  # fmt: skip
def test_a_comma_inside_a_value_is_said_once(old: str, slip: str, message: str) -> None:
    """``base_defense: 1, 2`` inside '{…}': YAML reads ``2`` as a key of its own, and
    validation said the value is no list and then again ``expected a key written as
    text; got 2``; one message now, at the value, with the value as it is meant."""
    text, at = pell_written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


def test_a_key_without_its_value_is_not_a_comma_inside_a_value() -> None:
    """``{…, hp: 30, evasion}``: a key whose value was left out, not more of ``30``."""
    text, _ = pell_written("evasion: 1,", "|evasion,")
    [problem] = errors_of(text)
    assert "a ',' parts the entries" not in problem, problem
    assert problem.startswith("s.yaml:9:"), problem


def test_validate_says_a_comma_inside_a_value_once_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = pell_written("base_defense: [1, 2]", "base_defense: |1, 2")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:{at}: {ONE_VALUE.format('base_defense')}'1, 2' ")
    assert result.output.count("\n") == 1, result.output


def test_a_comma_inside_a_value_keeps_the_value_whole_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``got 1, 2 (a list …`` broke between ``1,`` and ``2`` (at 59 and 60 columns, for this
    file's name), which read as two values; the value is quoted, as other messages
    quote theirs, and the CLI moves a quoted value whole to the next line: at every
    width from 40 to 80, one line holds ``'1, 2'`` and none ends in ``1,``."""
    text, _ = pell_written("base_defense: [1, 2]", "base_defense: |1, 2")
    monkeypatch.chdir(tmp_path)  # a short path: the lines' widths are the message's
    Path("pell-defense.yaml").write_text(text, encoding="utf-8")
    for width in range(40, 81):
        monkeypatch.setenv("COLUMNS", str(width))
        with CliRunner().isolation() as (_, err, _):
            sys.stderr.isatty = lambda: True  # type: ignore[method-assign]
            with pytest.raises(SystemExit) as done:
                main(["validate", "pell-defense.yaml"])
        lines = err.getvalue().decode().splitlines()
        assert done.value.code == 2
        assert not any(line.endswith("1,") for line in lines), (width, lines)
        assert any("'1, 2'" in line for line in lines), (width, lines)


def test_a_comma_left_off_at_a_line_s_end_is_said_so_whatever_word_follows() -> None:
    """A word on the next line is a key, whether or not any rule system has it: the
    value and the next line read as one value holding a ':' (``hp: "30\\n zebra:"``)."""
    text, where = pell_written("hp: 30, evasion: 1", "hp: 30|\n      zebra: 1")
    (problem,) = errors_of(text)
    assert problem.startswith(f"s.yaml:{where}: expected valid YAML syntax; got no ',' "
                              "between '30' and 'zebra'"), problem  # fmt: skip


DRAFT1 = """\
scenario: t
rules: shattered-spirits-draft1
techniques:
  jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6], ap: 1, speed: 2}
sides:
  a:
    - {name: Kaito, endurance: 12, health: 12, plan: [jab]}
  b:
    - {name: Brute, endurance: 15, health: 15, plan: [jab]}
expect:
  - {figure: win_rate, side: a, at_least: 0.5}
"""

QUOTED = "a ':' inside the value of {!r} (a value holding ': ' needs quotes: {}: \"{}\")"


@pytest.mark.parametrize(
    ("text", "old", "slip", "got"),
    [
        # 'plan' is a key of a draft1 combatant: a ',' left off before it
        (DRAFT1, "Brute, endurance: 15, health: 15, plan", "Brute| plan",
         f"no ',' between 'Brute' and 'plan' {COMMAS}; a value holding ': ' needs quotes)"),
        # the same words where the mapping takes no 'plan': a ':' inside the value
        (KNIGHT, "Knight, hp", "Brute plan|: wait, hp",
         QUOTED.format("name", "name", "Brute plan: wait")),
        (DRAFT1, "at_least: 0.5}", "at_least: 0.5, note: the plan|: wait}",
         QUOTED.format("note", "note", "the plan: wait")),
        (KNIGHT, "at_least: 0.5}", "at_least: 0.5, note: the plan|: wait}",
         QUOTED.format("note", "note", "the plan: wait")),
        # a key of that place misspelt is still a ',' left off before it
        (DRAFT1, "Brute, endurance: 15, health: 15, plan", "Brute| plna",
         f"no ',' between 'Brute' and 'plna' {COMMAS}; a value holding ': ' needs quotes)"),
    ],
)  # fmt: skip
def test_a_word_before_a_colon_is_a_key_if_its_mapping_takes_it(
    text: str, old: str, slip: str, got: str
) -> None:
    """``{note: the plan: wait}``: ``plan`` is a key of draft1's combatants, and any key
    of any rule system was taken for one, so a ':' inside a ``note`` read as a ',' left
    off; the keys the mapping may hold in the file's rule system decide."""
    written_text, at = slipped(text, old, slip)
    assert errors_of(written_text) == [f"s.yaml:{at}: {SYNTAX}{got}"]


def test_validate_says_a_colon_in_a_note_needs_quotes(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = written("at_least: 0.5}", "at_least: 0.5, note: the plan|: wait}")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:{at}: {SYNTAX}a ':' inside the value of 'note'")
    assert "Traceback" not in result.output


SINGLE = ("a ' inside text in '…', which ends the text there (write it twice: {}; or put the "
          "text in \"…\": {})")  # fmt: skip
DOUBLE = ("a \" inside text in \"…\", which ends the text there (write it as \\\": {}; or put "
          "the text in '…': {})")  # fmt: skip


@pytest.mark.parametrize(
    ("old", "slip", "got"),
    [
        ("at_least: 0.5}", "at_least: 0.5, note: 'the Knight|'s win'}",
         SINGLE.format("'the Knight''s win'", "\"the Knight's win\"")),
        ("[slashing]", "['slashing|'s', piercing]",
         SINGLE.format("'slashing''s'", "\"slashing's\"")),
        ("{name: Knight,", "{name: \"Sir |\"Ed\" Knight\",",
         DOUBLE.format('"Sir \\"Ed\\" Knight"', "'Sir \"Ed\" Knight'")),
    ],
)  # fmt: skip
def test_a_quote_inside_quoted_text_is_said_with_the_text_as_meant(
    old: str, slip: str, got: str
) -> None:
    """``note: 'the Knight's win'`` was "no ',' between "'the Knight'" and 's'": the
    quote that ended the text early is the slip."""
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {SYNTAX}{got}"]


def test_validate_says_a_quote_inside_quoted_text_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = written("at_least: 0.5}", "at_least: 0.5, note: 'the Knight|'s win'}")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:{at}: {SYNTAX}a ' inside text in '…'")
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("text", "old", "slip", "got"),
    [
        # 'plan' is no key of a glitters-d20 combatant: more of the value before it
        (KNIGHT, "resist: [slashing]", "resist: |slashing, plan",
         ONE_VALUE.format("resist") + "'slashing, plan' (a list is written inside '[…]': "
                                      "resist: [slashing, plan]; text holding ',' inside "
                                      "quotes: resist: \"slashing, plan\")"),
        # nor of an expect: spec, in the rule system that has it elsewhere
        (DRAFT1, "at_least: 0.5}", "at_least: 0.5, note: |wait, plan}",
         ONE_VALUE.format("note") + "'wait, plan' (a list is written inside '[…]': note: "
                                    "[wait, plan]; text holding ',' inside quotes: note: "
                                    "\"wait, plan\")"),
    ],
)  # fmt: skip
def test_a_word_after_a_comma_is_more_of_the_value_unless_its_mapping_takes_it(
    text: str, old: str, slip: str, got: str
) -> None:
    """``{resist: slashing, plan}``: ``plan`` is a key of draft1's combatants, and any
    key of any rule system was taken for one, so the ',' inside the value read as a key
    with no value (``unknown key 'plan' (a key of rules shattered-spirits-draft1, …)``);
    the keys the mapping may hold in the file's rule system decide, as for a ':'."""
    written_text, at = slipped(text, old, slip)
    assert errors_of(written_text) == [f"s.yaml:{at}: {got}"]


@pytest.mark.parametrize(
    ("text", "old", "slip", "key"),
    [
        (DRAFT1, "endurance: 15,", "endurance: 15, plan,", "plan"),
        (KNIGHT, "at_least: 0.5}", "at_least: 0.5, note: wait, side}", "side"),
    ],
)  # fmt: skip
def test_a_key_its_mapping_takes_after_a_comma_is_not_more_of_the_value(
    text: str, old: str, slip: str, key: str
) -> None:
    """A key the mapping holds, written a second time without its value, is said as
    that key (validation: written twice), not as more of the value before it."""
    [problem] = errors_of(text.replace(old, slip, 1))
    assert "a ',' parts the entries" not in problem, problem
    assert f"got {key!r} twice" in problem, problem


CURLY = ("expected text in straight quotes or none ({}); got {} in curly quotes, which YAML "
         "reads as part of the text (to keep them in it, write {})")  # fmt: skip


@pytest.mark.parametrize(
    ("old", "slip", "got"),
    [
        ("name: Knight,", "name: |“Knight”,", CURLY.format('"Knight"', "“Knight”", '"“Knight”"')),
        ("name: Knight,", "name: |‘Knight’,", CURLY.format('"Knight"', "‘Knight’", '"‘Knight’"')),
        ("[club, mace]", "[|“club”, mace]", CURLY.format('"club"', "“club”", '"“club”"')),
        ("at_least: 0.5}", "at_least: 0.5, note: |“the knight wins”}",
         CURLY.format('"the knight wins"', "“the knight wins”", '"“the knight wins”"')),
    ],
)  # fmt: skip
def test_text_in_curly_quotes_is_refused_with_the_straight_ones(
    old: str, slip: str, got: str
) -> None:
    """``name: “Knight”`` (a word processor's quotes) was a name with the quotes in it,
    which ``--set Knight.hp=3`` and ``expect:`` then did not find; a value wholly in
    curly quotes, a name or a note, is said with the straight quotes YAML reads."""
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {got}"]


@pytest.mark.parametrize(
    ("note", "kept"),
    [
        ("the “Knight” wins", "the “Knight” wins"),  # quotes inside the text
        ("'“the knight wins”'", "“the knight wins”"),  # kept on purpose, in straight ones
    ],
)
def test_curly_quotes_inside_text_or_inside_straight_ones_are_text(note: str, kept: str) -> None:
    text = KNIGHT.replace("at_least: 0.5}", f"at_least: 0.5, note: {note}}}")
    assert simlab.loads(text).expect[0].note == kept


def test_validate_refuses_a_name_in_curly_quotes_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = written("name: Knight,", "name: |“Knight”,")
    result = validate_file(path, text)
    assert result.exit_code == 2
    expected = f'{path}:{at}: expected text in straight quotes or none ("Knight"); got “Knight”'
    assert result.output.startswith(expected), result.output
