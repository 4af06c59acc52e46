"""Tests for simlab.scenario.source: YAML to plain data with positions, or located errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from simlab.errors import ScenarioError
from simlab.limits import MAX_DEPTH, MAX_INTEGER_DIGITS, MAX_NODES, MAX_SCENARIO_BYTES
from simlab.scenario.source import YamlSource, parse_yaml, read_yaml

TEXT = """\
sides:
  party:
    - name: Ada
      hp: 10
    - {name: Bob, hp: 7}
"""


def problems(text: str) -> list[str]:
    """Parse ``text`` expecting failure; return the problem strings."""
    with pytest.raises(ScenarioError) as caught:
        parse_yaml(text, "s.yaml")
    return [str(problem) for problem in caught.value.problems]


def test_plain_data() -> None:
    source = parse_yaml(TEXT)
    assert source.data == {
        "sides": {"party": [{"name": "Ada", "hp": 10}, {"name": "Bob", "hp": 7}]}
    }
    assert source.filename == "<string>"


def test_value_and_key_positions() -> None:
    source = parse_yaml(TEXT)
    assert source.locate(("sides", "party", 0, "hp")) == (4, 11)
    assert source.locate_key(("sides", "party", 0, "hp")) == (4, 7)
    assert source.locate(("sides", "party", 1, "hp")) == (5, 23)
    assert source.locate(("sides", "party", 1)) == (5, 7)
    assert source.locate(()) == (1, 1)


def test_locate_falls_back_to_nearest_ancestor() -> None:
    source = parse_yaml(TEXT)
    assert source.locate(("sides", "party", 1, "nope", 3)) == (5, 7)
    assert source.locate_key(("sides", "party", 0, "nope")) == (3, 7)
    assert YamlSource("x", {}).locate(("a",)) == (None, None)


def test_scalars_are_plain_python_types() -> None:
    text = "a: 1.5\nb: &t true\nc: *t\nd: 3\ne: |\n  block\nf: 2024-01-01\ng: null\n"
    data = parse_yaml(text).data
    assert data == {
        "a": 1.5,
        "b": True,
        "c": True,
        "d": 3,
        "e": "block\n",
        "f": "2024-01-01",
        "g": None,
    }
    assert [type(data[k]) for k in "abcde"] == [float, bool, bool, int, str]


def test_no_stays_a_string() -> None:
    data = parse_yaml("a: no\nb: yes\nc: off\n").data
    assert data == {"a": "no", "b": "yes", "c": "off"}


def test_underscored_integer_is_an_int() -> None:
    data = parse_yaml("trials: 1_000_000\nquoted: '1_000'\n").data
    assert data["trials"] == 1_000_000
    assert type(data["trials"]) is int
    assert data["quoted"] == "1_000"


def test_anchors_and_merge_keys_are_fine() -> None:
    text = "base: &b {hp: 5, name: x}\nboss:\n  <<: *b\n  hp: 50\nlist: &l [1, 2]\nagain: *l\n"
    data = parse_yaml(text).data
    assert data["boss"] == {"hp": 50, "name": "x"}
    assert data["again"] == [1, 2]


def test_duplicate_key_reports_second_occurrence_and_where_the_first_is() -> None:
    text = "sides:\n  party:\n    - name: Ada\n      hp: 10\n      hp: 12\n"
    assert problems(text) == ["s.yaml:5:7: expected each key once; got 'hp' twice (the first "
                              "at 4:7)"]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # in a '{…}', a long line of which the designer sees the end
        ("a:\n  - {name: Ada, hp: 10, guard: 1, hp: 12}\n",
         "s.yaml:2:35: expected each key once; got 'hp' twice (the first at 2:17)"),
        # a row key of a profile's status, written as a number; the same key elsewhere
        ("hp: 1\nx:\n  s: {8: [a], 12: [b], 8: [c]}\n",
         "s.yaml:3:24: expected each key once; got '8' twice (the first at 3:7)"),
        # the top level, after a mapping holding the same key
        ("x: {seed: 1}\nseed: 2\ny: 3\nseed: 4\n",
         "s.yaml:4:1: expected each key once; got 'seed' twice (the first at 2:1)"),
    ],
)  # fmt: skip
def test_duplicate_key_names_where_its_first_is_in_its_own_mapping(text: str, message: str) -> None:
    """The parser names only the second of a key written twice: in a long file the
    designer looks for the first, to choose which to keep."""
    assert problems(text) == [message]


def test_syntax_error_is_located() -> None:
    assert problems("sides: [1, 2\nhp: 3\n") == [
        "s.yaml:1:13: expected valid YAML syntax; got no ']' closing the '[' opened at 1:8 "
        "before the next line"
    ]


def test_tab_indentation_is_a_syntax_error() -> None:
    (message,) = problems("a: 1\n\tb: 2\n")
    assert message.startswith(
        "s.yaml:2:1: expected valid YAML syntax; got a tab (YAML "
        "indents with spaces only); the YAML parser says: found character"
    )


@pytest.mark.parametrize(
    ("text", "at", "plain"),
    [
        # the first key of a mapping indented one space more than the next
        ("attacks:\n   sword: {}\n  axe: {}\n", "3:3",
         "a line indented differently from the lines before it"),
        ("seed: 42\n  max_rounds: 20\n", "2:13", "a ':' where no key can start"),
        # a second document, and a '*' that starts a value
        ("scenario: a\n---\nscenario: b\n", "2:1", "a second document in the file (a line "
         "'---' starts one; a scenario is one document)"),
        ("seed: 42\nnote: *important*\n", "2:7", "a value starting with '*', which YAML "
         "reads as the name of an '&' anchor that the file does not define (a value "
         "starting with '*' needs quotes)"),
    ],
)  # fmt: skip
def test_common_syntax_errors_are_said_in_plain_words(text: str, at: str, plain: str) -> None:
    """A newcomer's mistakes got the parser's words alone ("expected <block end>, but
    found '<block mapping start>'"): they are said plainly first, the parser's after."""
    (message,) = problems(text)
    assert message.startswith(f"s.yaml:{at}: expected valid YAML syntax; got {plain}")
    assert "; the YAML parser says: " in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rules: [glitters-d20\n", "1:8: expected valid YAML syntax; got a '[' never closed: "
                                    "the file ends before its ']'"),
        ('{"scenario": "x", "rules": ', "1:1: expected valid YAML syntax; got a '{' never "
                                        "closed: the file ends before its '}'"),
        ("a: {b: 1,\n", "1:4: expected valid YAML syntax; got a '{' never closed: the file "
                        "ends before its '}'"),
    ],
)  # fmt: skip
def test_a_bracket_never_closed_is_located_where_it_opens(text: str, expected: str) -> None:
    """The end of the file was the place named ("2:1"), which says nothing of where the
    bracket is; where it opens is the one place known."""
    assert problems(text) == [f"s.yaml:{expected}"]


def test_a_key_with_no_space_before_a_bracket_is_said_plainly() -> None:
    """``8:[staggered]`` was "expected ',' or '}', but got '['": the ':' with no space
    after it is part of the key, and the '[' right after it is the slip."""
    assert problems("status: {8: [stun 2], 12:[staggered]}\n") == [
        "s.yaml:1:26: expected valid YAML syntax; got no space between '12:' and '[' (a key "
        "and its value are parted by ': ')"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: !foo 1\n", "s.yaml:1:4: expected plain YAML values; got the tag '!foo'"),
        (
            "a: 1\nb: !!python/object/apply:os.system [ls]\n",
            "s.yaml:2:4: expected plain YAML values; got the tag '!!python/object/apply:os.system'",
        ),
        ("a:\n  - !!str 5\n", "s.yaml:2:5: expected plain YAML values; got the tag '!!str'"),
        ("a: !m {x: 1}\n", "s.yaml:1:4: expected plain YAML values; got the tag '!m'"),
    ],
)
def test_tags_are_refused(text: str, expected: str) -> None:
    assert problems(text) == [expected]


@pytest.mark.parametrize(
    ("text", "got"),
    [
        ("- 1\n- 2\n", "a list"),
        ("hello\n", "text"),
        ("", "an empty document"),
        ("# only a comment\n", "an empty document"),
    ],
)
def test_top_level_must_be_a_mapping(text: str, got: str) -> None:
    assert problems(text) == [f"s.yaml:1:1: expected a mapping of scenario keys; got {got}"]


def test_collection_keys_are_refused_at_the_key() -> None:
    assert problems("? [1, 2]\n: 3\n") == ["s.yaml:1:3: expected a plain key; got a list as a key"]
    assert problems("a: 1\nb: 2\n? [x]\n: 3\n") == [
        "s.yaml:3:3: expected a plain key; got a list as a key"
    ]


def test_a_colon_after_a_closing_brace_is_a_slip_not_an_internal_error() -> None:
    """``- {…, attacks: [club]}:`` made the entry a key, which ruamel failed to build
    (``TypeError: unhashable type``): an internal error, exit code 3."""
    text = "sides:\n  a:\n    - {name: Ogre, attacks: [club]}:\n"
    assert problems(text) == [
        "s.yaml:3:36: expected valid YAML syntax; got a ':' after the closing '}', which "
        "makes the '{…}' a key"
    ]


def test_an_alias_of_a_collection_as_a_key_is_refused_at_the_alias() -> None:
    """Such an alias holding a list failed in ruamel as above; one without a list was
    refused at the collection it names, not where the key is written."""
    assert problems("a: &m {x: [1]}\n? *m\n: 2\n") == [
        "s.yaml:2:3: expected a plain key; got a mapping as a key"
    ]
    assert problems("a: &m [1]\nb: {*m : 2}\n") == [
        "s.yaml:2:5: expected a plain key; got a list as a key"
    ]


def test_multiple_documents_are_refused() -> None:
    (message,) = problems("a: 1\n---\nb: 2\n")
    assert message.startswith("s.yaml:2:1: expected valid YAML syntax; got ")


def test_alias_explosion_is_refused() -> None:
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    (message,) = problems("\n".join(lines) + "\n")
    assert "expected at most 1_000_000 values" in message


def test_read_yaml_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("\ufeff" + TEXT, encoding="utf-8")
    source = read_yaml(path)
    assert source.filename == str(path)
    assert source.locate(("sides", "party", 0, "hp")) == (4, 11)


def test_read_yaml_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(ScenarioError) as caught:
        read_yaml(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: expected a readable YAML file; got no such file"
    ]


def test_read_yaml_directory_and_bad_encoding(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="got a directory"):
        read_yaml(tmp_path)
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"a: 1\nname: caf\xe9\n")
    with pytest.raises(ScenarioError) as caught:
        read_yaml(path)
    assert str(caught.value) == (
        f"{path}:2:10: expected UTF-8 text; got the byte 0xe9 ('é' in Latin-1: save the file "
        "as UTF-8)"
    )


def test_a_windows_quote_is_read_as_one(tmp_path: Path) -> None:
    path = tmp_path / "quote.yaml"
    path.write_bytes(b"a: 1\nname: Ogre\x92s club\n")
    with pytest.raises(ScenarioError) as caught:
        read_yaml(path)
    assert str(caught.value) == (
        f"{path}:2:11: expected UTF-8 text; got the byte 0x92 ('’' in Windows-1252: save the "
        "file as UTF-8)"
    )


ENCODED = "scenario: t\nrules: zones-3d6\n"


@pytest.mark.parametrize(
    ("encoding", "named", "told_by"),
    [
        ("utf-16", "UTF-16", "it starts with UTF-16's byte-order mark 0xff 0xfe"),
        ("utf-32", "UTF-32", "it starts with UTF-32's byte-order mark 0xff 0xfe 0x00 0x00"),
        ("utf-16-le", "UTF-16", "zero bytes between its first characters, and no byte-order "
                                "mark"),
        ("utf-16-be", "UTF-16", "zero bytes between its first characters, and no byte-order "
                                "mark"),
        ("utf-32-be", "UTF-32", "zero bytes between its first characters, and no byte-order "
                                "mark"),
    ],
)  # fmt: skip
def test_a_file_saved_as_utf16_or_utf32_is_said_so(
    tmp_path: Path, encoding: str, named: str, told_by: str
) -> None:
    path = tmp_path / "unicode.yaml"
    path.write_bytes(ENCODED.encode(encoding))
    with pytest.raises(ScenarioError) as caught:
        read_yaml(path)
    assert str(caught.value) == (
        f"{path}:1:1: expected UTF-8 text (scenarios are read as UTF-8); got {named} text "
        f"({told_by}): save the file as UTF-8 in the editor, or convert it with "
        f"'iconv -f {named} -t UTF-8'"
    )


def test_a_utf8_file_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(("name: Écuyer\n" + ENCODED).encode("utf-8-sig"))
    source = read_yaml(path)
    assert source.data == {"name": "Écuyer", "scenario": "t", "rules": "zones-3d6"}
    assert source.key_positions[("name",)] == (1, 1)


def test_parse_errors_name_the_file_in_read_yaml(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("a: 1\na: 2\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        read_yaml(path)
    expected = f"{path}:2:1: expected each key once; got 'a' twice (the first at 1:1)"
    assert str(caught.value) == expected


@pytest.mark.parametrize(
    ("text", "where"),
    [("a: 1\nb: ab\x00c\n", "2:6"), ("a: 1\nb: \x07\n", "2:4"), ("\x1b", "1:1")],
)
def test_unprintable_characters_are_located(text: str, where: str) -> None:
    (message,) = problems(text)
    assert message.startswith(f"s.yaml:{where}: expected printable text; got the character U+")


def test_unterminated_quote_cites_where_it_opened() -> None:
    (message,) = problems("a: 1\nb: 'abc\nc: 2\nd: 3\n")
    assert message == (
        "s.yaml:2:4: expected a closing quote for the text opened here; got the end of the file"
    )


@pytest.mark.parametrize("depth", [65, 600, 100_000])
def test_deep_nesting_is_refused_where_it_passes_the_limit(depth: int) -> None:
    (message,) = problems("a: " + "[" * depth + "]" * depth + "\n")
    # The document's mapping is level 1, so the bracket at column 3 + MAX_DEPTH is one too many.
    expected = f"expected lists and mappings nested at most {MAX_DEPTH} deep; got deeper"
    assert message == f"s.yaml:1:{3 + MAX_DEPTH}: {expected}"


def test_nesting_at_the_limit_is_accepted() -> None:
    depth = MAX_DEPTH - 1  # the document's own mapping is one level
    data = parse_yaml("a: " + "[" * depth + "1" + "]" * depth + "\n", "s.yaml").data
    for _ in range(depth + 1):  # the key, then each list
        data = data["a"] if isinstance(data, dict) else data[0]
    assert data == 1


@pytest.mark.parametrize(
    ("number", "digits"),
    [
        ("9" * 4301, "4,301"),  # beyond what Python converts at all
        ("-" + "9" * 101, "101"),
        ("1_" + "0" * 100, "101"),
        ("0x" + "f" * 5000, "5,000"),  # Python converts it, but could not show it
    ],
)
def test_an_integer_of_too_many_digits_is_located(number: str, digits: str) -> None:
    """An integer longer than any field allows is refused where it is written, before
    Python converts it (a decimal of 4,301 digits was an internal ValueError)."""
    (message,) = problems(f"a: 1\nhp: {number}\n")
    assert message == (f"s.yaml:2:5: expected an integer of at most {MAX_INTEGER_DIGITS} "
                       f"digits; got a number with {digits} digits")  # fmt: skip


def test_an_integer_key_of_too_many_digits_is_located() -> None:
    (message,) = problems("status:\n  {8: [x], " + "1" * 200 + ": [y]}\n")
    assert message.startswith("s.yaml:2:12: expected an integer of at most"), message


def test_an_integer_at_the_digit_limit_is_read() -> None:
    number = "9" * MAX_INTEGER_DIGITS
    assert parse_yaml(f"a: {number}\nb: '{number}9'\n").data == {
        "a": int(number),
        "b": number + "9",
    }


def test_too_many_nodes_are_refused() -> None:
    (message,) = problems("a: [" + ", ".join(["1"] * MAX_NODES) + "]\n")
    assert f"expected at most {MAX_NODES:_} values in a scenario; got more" in message


def test_large_file_fifo_and_device_are_refused_without_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: 1\n" * (MAX_SCENARIO_BYTES // 5 + 1))
    with pytest.raises(ScenarioError, match=r"got \d[\d_]* bytes \(the limit is"):
        read_yaml(big)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match=r"got a pipe \(FIFO\)"):
        read_yaml(fifo)
    with pytest.raises(ScenarioError, match="got a device"):
        read_yaml("/dev/zero")


def test_validate_says_utf16_with_exit_code_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from simlab.cli import main

    path = tmp_path / "unicode.yaml"
    path.write_bytes(ENCODED.encode("utf-16"))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"{path}:1:1: expected UTF-8 text")
    assert "got UTF-16 text" in result.output
    assert "Traceback" not in result.output
