"""Every bad item of a list (or entry of a mapping) is said, each at its own place.

A check of a whole list or mapping (a profile's damage, Base Defense faces, the rows of
``status:``/``tier:``, glitters-d20 attribute scores, the ends of a rate's ``between:``)
raised one error for the first bad item, located at the list itself: ``profile: [0, -1,
…, -6]`` was said at its ``[`` and never of the ``-6``, and a list written one item a
line was said at the line of its first item, lines above the bad one. Each bad item is
now said, in file order, at its own line and column.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import ScenarioError
from tests.support import errors_of, validate_file

SHATTERED = """\
scenario: t
rules: shattered-spirits
encounters: 100
max_rounds: 5
attacks:
  jab:
    profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]
    status: {8: [staggered]}
    tier: {12: crit}
sides:
  a:
    - {name: A, hp: 10, attacks: [jab]}
  b:
    - {name: B, hp: 10, guard: 1}
expect:
  - {figure: hit_rate, attack: jab, between: [0.2, 0.8]}
"""

ZONES = """\
scenario: t
rules: zones-3d6
encounters: 100
max_rounds: 5
attacks:
  bow: {damage: 1d8, bonus: 1}
sides:
  a:
    - {name: A, hp: 10, attacks: [bow]}
  b:
    - {name: B, hp: 10, base_defense: [3, 4], attacks: [bow]}
"""

GLITTERS = """\
scenario: t
rules: glitters-d20
encounters: 100
attacks:
  club: {damage: 1d6, type: bludgeoning}
sides:
  knight:
    - {name: Knight, hp: 34, attributes: {str: 15, dex: 11}, attacks: [club]}
  dummy:
    - {name: Dummy, hp: 60, dc: 8}
"""

PROFILE = "expected damage from 0 to 999 on row {}; got {}"
FACES = "expected die faces from 1 to 8 (the largest damage die is a d8); got {}"
ROWS = "expected rows 2 to 12 as keys; got {}"
SCORES = "expected attribute scores from 0 to 99; got {}"
RATE = "expected a bound from 0 to 1 for the rate 'hit_rate' (0.6 for 60%); got {}"


def marked(text: str, old: str, slip: str) -> tuple[str, list[str]]:
    """``text`` with its first ``old`` written as ``slip``, and where each '|' in
    ``slip`` stood (``line:col``, 1-based, in file order), which the text returned is
    without: several slips and the places their messages must name, written together."""
    assert old in text
    rest = text.replace(old, slip, 1)
    places = []
    while "|" in rest:
        before = rest[: rest.index("|")]
        places.append(f"{before.count(chr(10)) + 1}:{len(before) - before.rfind(chr(10))}")
        rest = rest.replace("|", "", 1)
    return rest, places


def said(places: list[str], messages: list[str]) -> list[str]:
    """The problems of ``s.yaml`` expected: each message at its place."""
    return [f"s.yaml:{at}: {message}" for at, message in zip(places, messages, strict=True)]


def test_every_bad_row_of_a_profile_is_said_at_its_own_item() -> None:
    """Was: only row 3, at the profile's '[' (column 14); row 12's -6 never said."""
    text, places = marked(SHATTERED, "[0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]",
                          "[0, |-1, 1, 2, 2, 3, 3, 4, 4, 5, |-6]")  # fmt: skip
    assert places == ["7:18", "7:46"]
    assert errors_of(text) == said(places, [PROFILE.format(3, -1), PROFILE.format(12, -6)])


def test_a_profile_written_one_row_a_line_is_said_at_the_bad_rows_lines() -> None:
    """Was: the line of the profile's first item (row 2), for a bad row lines below."""
    damage = ["0", "0", "1", "|1000", "2", "3", "3", "4", "4", "|-5", "6"]  # rows 2..12
    rows = "".join(f"\n      - {d}" for d in damage)
    text, places = marked(SHATTERED, " [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]", rows)
    assert places == ["11:9", "17:9"]
    messages = [PROFILE.format(5, 1000), PROFILE.format(11, -5)]
    assert errors_of(text) == said(places, messages)


@pytest.mark.parametrize(
    ("slip", "faces"),
    [
        ("[1, 2, |9]", [9]),  # the designer's case: said at the '[', not the 9
        ("[|0, 2, |9, |12]", [0, 9, 12]),
    ],
)
def test_every_bad_base_defense_face_is_said_at_its_own_item(slip: str, faces: list[int]) -> None:
    """Was: only the first bad face, at the list's '['."""
    text, places = marked(ZONES, "[3, 4]", slip)
    assert errors_of(text) == said(places, [FACES.format(face) for face in faces])


def test_base_defense_written_one_face_a_line_is_said_at_the_bad_faces_lines() -> None:
    """Was: ``12:9 … got 9``, the line of the ``- 1`` two lines above the 9; the 12 unsaid."""
    block = "name: B\n      hp: 10\n      base_defense:\n        - 1\n        - 2\n" \
            "        - |9\n        - |12\n      attacks: [bow]"  # fmt: skip
    text, places = marked(ZONES, "{name: B, hp: 10, base_defense: [3, 4], attacks: [bow]}", block)
    assert places == ["16:11", "17:11"]
    assert errors_of(text) == said(places, [FACES.format(9), FACES.format(12)])


@pytest.mark.parametrize(
    ("old", "slip", "rows"),
    [
        ("status: {8: [staggered]}", "status: {8: [staggered], |13: [stun 1], |1: [stun 2]}",
         [13, 1]),
        ("tier: {12: crit}", "tier:\n      |0: hit\n      12: crit\n      |14: crit", [0, 14]),
    ],
)  # fmt: skip
def test_every_row_key_beyond_the_chart_is_said_at_its_key(
    old: str, slip: str, rows: list[int]
) -> None:
    """Was: only the first such row, at the mapping (the '{', or its first key's line)."""
    text, places = marked(SHATTERED, old, slip)
    assert errors_of(text) == said(places, [ROWS.format(row) for row in rows])


KNIGHT = "{name: Knight, hp: 34, attributes: {str: 15, dex: 11}, attacks: [club]}"


@pytest.mark.parametrize(
    "slip",
    [
        "{name: Knight, hp: 34, attributes: {str: |150, dex: |-1}, attacks: [club]}",
        "name: Knight\n      hp: 34\n      attributes:\n        str: |150\n        dex: |-1\n"
        "      attacks: [club]",
    ],
)
def test_every_attribute_score_out_of_range_is_said_at_its_value(slip: str) -> None:
    """Was: only the first score, at the attributes' mapping."""
    text, places = marked(GLITTERS, KNIGHT, slip)
    messages = [SCORES.format("str: 150"), SCORES.format("dex: -1")]
    assert errors_of(text) == said(places, messages)


@pytest.mark.parametrize(
    ("slip", "bounds"),
    [
        ("between: [|-0.5, |1.2]", ["-0.5", "1.2"]),
        ("between: [0.2, |60]", ["60"]),
    ],
)
def test_every_rate_bound_beyond_0_to_1_is_said_at_its_own_end(
    slip: str, bounds: list[str]
) -> None:
    """Was: only the first end, at the between's '['."""
    text, places = marked(SHATTERED, "between: [0.2, 0.8]", slip)
    assert errors_of(text) == said(places, [RATE.format(bound) for bound in bounds])


def test_rate_bounds_written_one_a_line_are_said_at_their_lines() -> None:
    """Was: the line of the first end, for a bad second end a line below."""
    spec = "  - figure: hit_rate\n    attack: jab\n    between:\n      - 0.2\n      - |60\n"
    text, places = marked(SHATTERED, "  - {figure: hit_rate, attack: jab, between: [0.2, 0.8]}\n",
                          spec)  # fmt: skip
    assert places == ["20:9"]
    assert errors_of(text) == said(places, [RATE.format(60)])


def test_validate_lists_every_bad_item_and_exits_2(tmp_path: Path) -> None:
    """Was: one line, at the profile's '['."""
    path = tmp_path / "bad.yaml"
    text, places = marked(SHATTERED, "[0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]",
                          "[0, |-1, 1, 2, 2, 3, 3, 4, 4, 5, |-6]")  # fmt: skip
    result = validate_file(path, text)
    assert result.exit_code == 2
    messages = [PROFILE.format(3, -1), PROFILE.format(12, -6)]
    lines = zip(places, messages, strict=True)
    assert result.output == "".join(f"{path}:{at}: {message}\n" for at, message in lines)


def test_a_whole_profile_set_by_an_override_says_every_bad_row() -> None:
    """Was: only its first bad row."""
    scn = simlab.loads(SHATTERED, "s.yaml")
    with pytest.raises(ScenarioError) as caught:
        scn.with_(["jab.profile=[0, -1, 1, 2, 2, 3, 3, 4, 4, 5, -6]"])
    messages = [p.message for p in caught.value.problems]
    assert messages == [PROFILE.format(3, -1), PROFILE.format(12, -6)]
