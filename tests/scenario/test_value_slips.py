"""A value written in the wrong shape says how it is written.

``hp: 40hp``, ``encounters: 10k``, ``encounters: 100,000``, ``at_least: 50%`` and
``hp: "16"`` read only "expected an integer; got '10k'"; the message now ends with what
to write (``(write 10_000)``), at the value. A mapping written as a list of its entries
(``[damage: 1d6]``, ``- cut: {…}`` lines) says how a mapping is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import errors_of, slipped, validate_file

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
expect:
  - {figure: win_rate, side: knight, at_least: 0.5}
"""


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("at_least: 0.5", "at_least: |50%", "expected a number; got '50%' (a share is written "
                                            "as a fraction: 0.5)"),
        ("at_least: 0.5", "at_least: |12.5 %", "expected a number; got '12.5 %' (a share is "
                                               "written as a fraction: 0.125)"),
        # a field that may also be left empty
        ("dc: 8", "dc: |8dc", "expected an integer; got '8dc' (a number is written without a "
                              "unit: 8)"),
        ("encounters: 100", "encounters: |2K", "expected an integer; got '2K' (write 2_000)"),
    ],
)  # fmt: skip
def test_a_number_written_as_text_says_how_to_write_it(old: str, new: str, message: str) -> None:
    text, where = slipped(GLITTERS, old, new)
    assert errors_of(text) == [f"s.yaml:{where}: {message}"]


def test_validate_says_it_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    result = validate_file(path, GLITTERS.replace("encounters: 100", "encounters: 10k"))
    assert result.exit_code == 2
    assert result.output == f"{path}:3:13: expected an integer; got '10k' (write 10_000)\n"


ENTRIES = (
    "expected a mapping; got a list of 'key: value' entries (a mapping's entries go inside "
    "'{…}', not '[…]', or on lines of their own without '- ')"
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("club: {damage: 1d6, type: bludgeoning}", "club: |[damage: 1d6, type: bludgeoning]"),
        ("- {name: Dummy, hp: 60, dc: 8}", "- |[name: Dummy, hp: 60, dc: 8]"),
        ("attacks:\n  club:", "attacks:\n  |- club:"),
    ],
)
def test_a_mapping_written_as_a_list_of_its_entries_says_so(old: str, new: str) -> None:
    text, where = slipped(GLITTERS, old, new)
    assert errors_of(text) == [f"s.yaml:{where}: {ENTRIES}"]


def test_another_list_for_a_mapping_is_said_as_before() -> None:
    (problem,) = errors_of(GLITTERS.replace("{damage: 1d6, type: bludgeoning}", "[1d6]"))
    assert problem == "s.yaml:5:9: expected a mapping; got a list"
