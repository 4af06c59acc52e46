"""A key run into its value on a line of its own (``hp:24``), or a list item's '-' run
into its key (``-name: Kaito``), is said where it is.

YAML reads ``hp:24`` as text, not as a key, so the parser stopped at the line after it
("a key without its ':', or a line that goes on from the one above it"), or, for the
first key of a list item, at the ':' of the next key ("a ':' where no key can start").
Each case writes the slip with a ``|`` where the message must point: just after the
key's ':', or where its ':' belongs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from tests.support import errors_of, slipped, validate_file

ROOT = Path(__file__).resolve().parents[2]

KAITO = """\
scenario: t
rules: shattered-spirits
seed: 1
params:
  strain_meter: 8
attacks:
  jab:
    profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]
    modifier: 1
sides:
  party:
    - name: Kaito
      hp: 24
      guard: 1
      attacks: [jab]
  enemies:
    - name: Brute
      hp: 30
      attacks: [jab]
"""

PARTED = "(a key and its value are parted by ': ')"

#: (text written, the slip with '|' where the message points, the message)
SLIPS = [
    # a key between others, the last of a list item, of a mapping, of the file
    ("hp: 24", "hp:|24", f"expected 'hp: 24' {PARTED}; got 'hp:24'"),
    ("guard: 1", "guard:|1", f"expected 'guard: 1' {PARTED}; got 'guard:1'"),
    ("strain_meter: 8", "strain_meter:|8", f"expected 'strain_meter: 8' {PARTED}; got "
                                           "'strain_meter:8'"),
    ("seed: 1", "seed:|1", f"expected 'seed: 1' {PARTED}; got 'seed:1'"),
    ("scenario: t", "scenario:|t", f"expected 'scenario: t' {PARTED}; got 'scenario:t'"),
    # the first key of a list item, which YAML reads on into the next line
    ("name: Kaito", "name:|Kaito", f"expected 'name: Kaito' {PARTED}; got 'name:Kaito'"),
    ("name: Brute", "name:|Brute", f"expected 'name: Brute' {PARTED}; got 'name:Brute'"),
    # '=' for ':', and a comment after the slip
    ("hp: 24", "hp| = 24  # full", f"expected 'hp: 24' {PARTED}; got 'hp = 24'"),
    ("modifier: 1", "modifier|=1", f"expected 'modifier: 1' {PARTED}; got 'modifier=1'"),
    # a mapping of one key, which YAML reads as one text
    ("    - name: Brute\n      hp: 30\n      attacks: [jab]\n", "    - name:|Brute\n",
     f"expected 'name: Brute' {PARTED}; got 'name:Brute'"),
    ("    - name: Brute\n      hp: 30\n      attacks: [jab]\n", "    - hp|=30\n",
     f"expected 'hp: 30' {PARTED}; got 'hp=30'"),
    # no ':' at all before a number
    ("guard: 1", "guard| 1", f"expected 'guard: 1' {PARTED}; got 'guard 1'"),
    ("seed: 1", "seed|  1", f"expected 'seed: 1' {PARTED}; got 'seed  1'"),
]  # fmt: skip


def written(old: str, slip: str) -> tuple[str, str]:
    """KAITO with its first ``old`` written as ``slip``, and where the '|' stood."""
    return slipped(KAITO, old, slip)


def test_the_scenario_without_slips_loads() -> None:
    assert simlab.loads(KAITO).scenario == "t"


@pytest.mark.parametrize(("old", "slip", "message"), SLIPS)
def test_a_key_run_into_its_value_is_said_on_its_line(old: str, slip: str, message: str) -> None:
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


@pytest.mark.parametrize(
    ("old", "slip", "got"),
    [
        # a line with no ':', said at that line, not the next one
        ("guard: 1", "|guard the gate", "a key without its ':'"),
        ("seed: 1", "|one more seed", "a key without its ':'"),
        # a line indented deeper than the key above it
        ("hp: 30", "  hp|: 30", "a ':' where no key can start"),
    ],
)  # fmt: skip
def test_other_syntax_errors_are_said_as_before(old: str, slip: str, got: str) -> None:
    text, at = written(old, slip)
    [problem] = errors_of(text)
    assert problem.startswith(f"s.yaml:{at}: expected valid YAML syntax; got {got}")


@pytest.mark.parametrize(
    ("old", "slip", "got"),
    [
        ("name: Brute", "name: Brute|: the big one", "a ':' inside the value of 'name' (a value "
                                                     "holding ': ' needs quotes: name: "
                                                     '"Brute: the big one")'),
        ("name: Brute", "name: Brute the|: big one  # a title", "a ':' inside the value of "
                                                              "'name' (a value holding ': ' "
                                                              "needs quotes: name: \"Brute "
                                                              'the: big one")'),
        ("- name: Brute", "- a:b\n    - c: d|: e", "a ':' inside the value of 'c' (a value "
                                                "holding ': ' needs quotes: c: \"d: e\")"),
    ],
)  # fmt: skip
def test_a_colon_inside_a_value_says_it_needs_quotes(old: str, slip: str, got: str) -> None:
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: expected valid YAML syntax; got {got}"]


TAB = ("expected valid YAML syntax; got a tab (YAML indents with spaces only); the YAML "
       "parser says: found character '\\t' that cannot start any token")  # fmt: skip


@pytest.mark.parametrize(
    ("old", "slip"),
    [
        ("      hp: 30\n", "    |\t  hp: 30\n"),  # spaces, then a tab, in a list item
        ("      attacks: [jab]\n  enemies", "    |\tattacks: [jab]\n  enemies"),
        ("      guard: 1\n", "|\t\tguard: 1\n"),
    ],
)  # fmt: skip
def test_a_tab_in_the_indentation_is_said_as_a_tab(old: str, slip: str) -> None:
    """A tab after spaces, in the column of a list item's '-', was said as a list item
    written without its '- ' (``expected '- \t  hp: 30'``): the tab is the slip."""
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {TAB}"]


@pytest.mark.parametrize(
    ("old", "slip", "got"),
    [
        ("hp: 24", "hp:|\t24", "a tab between 'hp:' and its value (a key and its value are "
                               "parted by spaces only: hp: 24)"),
        ("seed: 1", "seed: |\t1", "a tab between 'seed:' and its value (a key and its value "
                                  "are parted by spaces only: seed: 1)"),
        ("- name: Kaito", "-|\tname: Kaito", "a tab after a list item's '-' (a list item "
                                             "starts with '- ', a space: - name: Kaito)"),
        ("guard: 1", "guard: 1|\t# high", "a tab before the '#' of a comment, after 'guard: 1' "
                                          "(a comment starts with a space and '#': guard: 1 "
                                          "# high)"),
        ("attacks:\n  jab", "attacks:|\t\n  jab", "a tab after 'attacks:' at the end of its "
                                                 "line (YAML reads no tab there)"),
        ("hp: 30", "hp|\t: 30", "a tab after 'hp' (YAML parts the words of a line with spaces "
                                "only)"),
    ],
)  # fmt: skip
def test_a_tab_inside_a_line_is_said_as_what_it_parts(old: str, slip: str, got: str) -> None:
    """``hp:<TAB>20`` was said as indentation (``a tab (YAML indents with spaces
    only)``): a tab past the indentation is said by what it stands between."""
    text, at = slipped(KAITO, old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: expected valid YAML syntax; got {got}"]


NOT_A_SPACE = ", which YAML does not read as a space (retype it as a plain space)"
NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("old", "slip", "got"),
    [
        # in the indentation: at its start, after spaces, two of them
        ("      hp: 30", f"|{NBSP}     hp: 30", "a non-breaking space (U+00A0) in the indentation"),
        ("      guard: 1", f"  |{NBSP}   guard: 1", "a non-breaking space (U+00A0) in the "
                                                   "indentation"),
        ("      hp: 30", f"|{NBSP}{NBSP}    hp: 30", "a non-breaking space (U+00A0) in the "
                                                   "indentation"),
        # after a key's ':' and a list item's '-'
        ("hp: 30", f"hp:|{NBSP}30", "a non-breaking space (U+00A0) after 'hp:'"),
        ("seed: 1", f"seed:|{NBSP}1", "a non-breaking space (U+00A0) after 'seed:'"),
        ("attacks: [jab]\n  enemies", f"attacks:|{NBSP}[jab]\n  enemies", "a non-breaking "
                                                                       "space (U+00A0) after "
                                                                       "'attacks:'"),
        ("    - name: Brute", f"    -|{NBSP}name: Brute", "a non-breaking space (U+00A0) after "
                                                         "a list item's '-'"),
        # the other Unicode spaces a word processor writes
        ("hp: 30", "hp:|\u202f30", "a narrow non-breaking space (U+202F) after 'hp:'"),
        ("hp: 30", "hp:|\u200730", "a figure space (U+2007) after 'hp:'"),
        ("      hp: 30", "|\u3000     hp: 30", "a full-width space (U+3000) in the indentation"),
    ],
)  # fmt: skip
def test_a_unicode_space_is_said_where_it_stands(old: str, slip: str, got: str) -> None:
    """A non-breaking space starting a line's indentation was "a ':' where no key can
    start" a line below, and ``hp:<NBSP>30`` "a key without its ':'" at the key: neither
    said the space that YAML reads as text, nor where it stands."""
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: expected valid YAML syntax; got {got}{NOT_A_SPACE}"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("name: Brute", f'name: "Big:{NBSP}Brute"'),  # quoted text
        ("seed: 1", f"seed: 1  # seeded:{NBSP}once\n#{NBSP} a comment of its own"),
        ("name: Brute", f"name: Big{NBSP}Brute"),  # plain text
        ("seed: 1", f"description: >\n  one\n  {NBSP}two\nseed: 1"),  # a block of text
    ],
)  # fmt: skip
def test_a_non_breaking_space_in_text_is_text(old: str, new: str) -> None:
    """Inside text or a comment a non-breaking space is YAML's text: the file loads, and
    a slip elsewhere is said as that slip."""
    assert simlab.loads(KAITO.replace(old, new), "s.yaml").scenario == "t"
    text, at = slipped(KAITO.replace(old, new), "hp: 24", "hp:|24")
    assert errors_of(text) == [f"s.yaml:{at}: expected 'hp: 24' {PARTED}; got 'hp:24'"]


def test_validate_says_a_non_breaking_space_on_its_own_line(tmp_path: Path) -> None:
    """The designer's file: a non-breaking space starting line 22 was said at 23:14."""
    lines = (ROOT / "scenarios" / "shattered-spirits" / "spirits-2v3.yaml").read_text()
    lines = lines.splitlines(keepends=True)
    assert lines[21] == "    modifier: 1\n"
    lines[21] = f"{NBSP}   modifier: 1\n"
    path = tmp_path / "bad.yaml"
    result = validate_file(path, "".join(lines))
    assert result.exit_code == 2
    assert result.output == (f"{path}:22:1: expected valid YAML syntax; got a non-breaking "
                             f"space (U+00A0) in the indentation{NOT_A_SPACE}\n")  # fmt: skip


CURLY_COLON = ("a ':' inside the value of 'name', {} in curly quotes, which YAML reads as part "
               "of the text (a value holding ': ' needs straight quotes: name: {})")  # fmt: skip


@pytest.mark.parametrize(
    ("slip", "got"),
    [
        ("name: “Sir|: the Bold”", CURLY_COLON.format("“Sir: the Bold”", '"Sir: the Bold"')),
        ("name: ‘Sir|: the Bold’", CURLY_COLON.format("‘Sir: the Bold’", '"Sir: the Bold"')),
        ("name: „Sir|: the Bold“", CURLY_COLON.format("„Sir: the Bold“", '"Sir: the Bold"')),
    ],
)  # fmt: skip
def test_a_colon_inside_curly_quotes_says_they_are_not_quotes(slip: str, got: str) -> None:
    """``name: “Sir: the Bold”`` was told to write ``name: "“Sir: the Bold”"``, keeping
    the word processor's quotes that were the slip; it is told the straight quotes."""
    text, at = written("name: Brute", slip)
    assert errors_of(text) == [f"s.yaml:{at}: expected valid YAML syntax; got {got}"]


TWO_KEYS = (
    "(the second key needs a line of its own, in the column of {!r}; or a '{{…}}' "
    "holding both, a ',' between them)"
)


@pytest.mark.parametrize(
    ("old", "slip", "message"),
    [
        ("hp: 30\n", "hp: 30 |attacks: [jab]\n",
         f"expected one key on a line; got 'attacks' after 'hp: 30' on one line "
         f"{TWO_KEYS.format('hp')}"),
        # a list item's first key, a value of two words, a misspelt second key
        ("- name: Brute", "- name: Brute the Big  |hp: 30  # the boss",
         f"expected one key on a line; got 'hp' after 'name: Brute the Big' on one line "
         f"{TWO_KEYS.format('name')}"),
        ("hp: 24", "hp: 24 |gaurd: 1",
         f"expected one key on a line; got 'gaurd' after 'hp: 24' on one line "
         f"{TWO_KEYS.format('hp')}"),
    ],
)  # fmt: skip
def test_two_keys_on_one_line_are_said_at_the_second(old: str, slip: str, message: str) -> None:
    """``hp: 7 attacks: [claw]`` was "a ':' where no key can start (a line indented
    deeper …, or a value holding ': ' that needs quotes)": neither is the slip."""
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


def test_validate_says_two_keys_on_one_line_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = written("hp: 30\n", "hp: 7 |attacks: [jab]\n")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:{at}: expected one key on a line; got 'attacks'")
    assert result.output.count("\n") == 1, result.output


ITEM = "(a list item starts with '- ')"


@pytest.mark.parametrize(
    ("old", "slip", "message"),
    [
        # the first item of a list (YAML reads it as a key), and a later one
        ("    - name: Kaito", "    -|name: Kaito", f"expected '- name: Kaito' {ITEM}; got "
                                                  "'-name: Kaito'"),
        ("    - name: Brute", "    -|name: Brute", f"expected '- name: Brute' {ITEM}; got "
                                                  "'-name: Brute'"),
        # an item written in brackets
        ("[jab]\n  enemies", "[jab]\n    -|{name: X, hp: 3, attacks: [jab]}\n  enemies",
         f"expected '- {{name: X, hp: 3, attacks: [jab]}}' {ITEM}; got "
         "'-{name: X, hp: 3, attacks: [jab]}'"),
    ],
)  # fmt: skip
def test_a_dash_run_into_its_item_is_said_on_its_line(old: str, slip: str, message: str) -> None:
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


def test_text_that_is_no_key_and_value_is_still_not_a_mapping() -> None:
    text, at = written("strain_meter: 8", "|eight")
    assert errors_of(text) == [f"s.yaml:{at}: expected a mapping; got 'eight'"]


def test_validate_says_the_slip_at_its_line_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    text, at = written("hp: 24", "hp:|24")
    result = validate_file(path, text)
    assert result.exit_code == 2
    assert result.output == f"{path}:{at}: expected 'hp: 24' {PARTED}; got 'hp:24'\n"


@pytest.mark.parametrize(
    ("old", "slip", "message"),
    [
        # 'plan' is a key of shattered-spirits-draft1's combatants, not of this file's
        ("hp: 24", "hp: 24 plan|: wait", "expected valid YAML syntax; got a ':' inside the "
                                         "value of 'hp' (a value holding ': ' needs quotes: "
                                         "hp: \"24 plan: wait\")"),
        ("- name: Brute", "- name: Brute plan|: wait", "expected valid YAML syntax; got a ':' "
                                                       "inside the value of 'name' (a value "
                                                       "holding ': ' needs quotes: name: "
                                                       '"Brute plan: wait")'),
        # 'stances' is a key of this file's combatants, as the first key of an item too
        ("hp: 24", "hp: 24 |stances: [wait]", "expected one key on a line; got 'stances' "
                                              f"after 'hp: 24' on one line "
                                              f"{TWO_KEYS.format('hp')}"),
        ("- name: Brute", "- name: Brute |stances: [wait]",
         f"expected one key on a line; got 'stances' after 'name: Brute' on one line "
         f"{TWO_KEYS.format('name')}"),
    ],
)  # fmt: skip
def test_a_word_before_a_colon_is_a_key_if_its_mapping_takes_it(
    old: str, slip: str, message: str
) -> None:
    """Any key of any rule system before a ':' was taken for a second key on the line;
    the keys the mapping may hold in the file's rule system decide."""
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


@pytest.mark.parametrize(
    ("old", "slip", "got"),
    [
        ("name: Brute", "name: 'Brute|'s boss'  # the big one",
         "a ' inside text in '…', which ends the text there (write it twice: 'Brute''s "
         "boss'; or put the text in \"…\": \"Brute's boss\")"),
        # no closing quote on the line: said without the text
        ("name: Brute", "name: 'Brute|'s boss",
         "a ' inside text in '…', which ends the text there (write it twice, or put the "
         "text in \"…\")"),
    ],
)  # fmt: skip
def test_a_quote_inside_quoted_text_is_said_on_its_line(old: str, slip: str, got: str) -> None:
    """``name: 'Brute's boss'`` was "a line indented differently from the lines before
    it": the quote that ended the text early is the slip."""
    text, at = written(old, slip)
    assert errors_of(text) == [f"s.yaml:{at}: expected valid YAML syntax; got {got}"]


ITEM = "(a list item starts with '- ', as the ones above it do)"


@pytest.mark.parametrize(
    ("slip", "message"),
    [
        # a combatant of a side, as the one above it starts and as a '{…}'; a list's word
        ("    |name: Rin  # the second\n    hp: 10\n    attacks: [jab]\n",
         f"expected '- name: Rin' {ITEM}; got 'name: Rin'"),
        ("    - {name: Rin, hp: 10, attacks: [jab]}\n\n    |{name: Sen, hp: 10, attacks: [jab]}\n",
         f"expected '- {{name: Sen, hp: 10, attacks: [j…' {ITEM}; got '{{name: Sen, hp: 10, "
         "attacks: [j…'"),
        ("    - name: Rin\n      hp: 10\n      attacks:\n        - jab\n        |jab\n",
         f"expected '- jab' {ITEM}; got 'jab'"),
    ],
)  # fmt: skip
def test_a_list_item_without_its_dash_is_said_where_it_belongs(slip: str, message: str) -> None:
    """A line in the column of the '-' of the items above it was "a key without its ':'"
    or "a line indented differently": the '- ' left off is the slip."""
    text, at = written("  enemies:\n", slip + "  enemies:\n")
    assert errors_of(text) == [f"s.yaml:{at}: {message}"]


def test_a_key_as_deep_as_a_list_is_said_as_before() -> None:
    """``hp: 4`` in the column of the '-' above it, after an item that starts with
    ``name:``: a key indented too deep as likely as an item without its '- '."""
    text, at = written("  enemies:\n", "    |hp: 4\n  enemies:\n")
    [problem] = errors_of(text)
    assert problem.startswith(f"s.yaml:{at}: expected valid YAML syntax; got a line "
                              "indented differently"), problem  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("    modifier: 1", "  modifier: 1", "9:13: expected a mapping; got 1 ('modifier' is a "
         "key of an attack, indented here as an attack of its own: indent it under its "
         "attack)"),
        ("    modifier: 1", "    modifier: 1\n  profile: [0, 0, 1]", "10:12: expected a "
         "mapping; got a list ('profile' is a key of an attack, indented here as an "
         "attack of its own: indent it under its attack)"),
    ],
)  # fmt: skip
def test_an_attacks_key_indented_as_an_attack_is_said_so(old: str, new: str, said: str) -> None:
    """``modifier: 1`` indented level with the attacks was read as an attack named
    ``modifier``: the message suggested ``modifier: {profile: 1}``, an attack whose
    profile is 1; a glitters-d20 ``bonus: 6`` so got no hint at all."""
    assert errors_of(KAITO.replace(old, new)) == [f"s.yaml:{said}"]
