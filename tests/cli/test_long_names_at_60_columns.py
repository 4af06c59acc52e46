"""The tuning commands at ``COLUMNS=60`` with names longer than a line has room for
beside what is written onto them: every line within the terminal, no name broken."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from simlab.report.tuning_terminal import TUNE_TITLE
from tests.support import piped_at

ROOT = Path(__file__).resolve().parents[2]
ATTACKER = "Bruna Ironhand the Unyielding"
ATTACK = "Greataxe of the Mountain King"
DEFENDER = "Grand Duke Ferdinand of the Sunken Keep"
NAMES = (ATTACKER, ATTACK, DEFENDER)


@pytest.fixture
def duel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The benchmark duel, its attacker, attack and defender given long names, as a file
    of the current folder (a path longer than a line stays whole on a line of its own)."""
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "scenarios/benchmarks/ss-duel.yaml").read_text(encoding="utf-8")
    for short, long in (("Attacker", ATTACKER), ("strike", ATTACK), ("Defender", DEFENDER)):
        text = text.replace(short, long)
    path = Path("long-names.yaml")
    path.write_text(text.replace("scenario: ss-duel", "scenario: long-names"), encoding="utf-8")
    return str(path)


def _assert_fits_with_names_whole(text: str, width: int) -> None:
    """Every line of ``text`` within ``width`` columns, and each of :data:`NAMES` as
    often on one line as in the words of ``text``: none broken over two lines."""
    assert all(len(line) <= width for line in text.splitlines()), text
    words = " ".join(text.split())
    for name in NAMES:
        assert text.count(name) == words.count(name), (name, text)


def _lines_from(text: str, start: str, end: str) -> str:
    """The lines of ``text`` from the one starting ``start`` up to the one starting
    ``end``."""
    lines = text.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith(start))
    last = next(k for k in range(first + 1, len(lines)) if lines[k].startswith(end))
    return "\n".join(lines[first:last])


@pytest.mark.parametrize("width", [60, 80])
def test_the_few_attacks_note_of_a_sweep_breaks_between_a_pair_s_names(
    duel: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns the note naming a pair with too few attacks kept the whole pair,
    102 columns, on one line: it breaks between the attacker, the attack and the
    defender, each whole, the arrow with the attack."""
    text = piped_at(monkeypatch, width, "sweep", duel, "--vary", f"{DEFENDER}.hp=20,30", "-n", "3")
    note = _lines_from(text, "Too few attacks", "  ")
    assert f"{ATTACK} →" in note, note
    _assert_fits_with_names_whole(note, width)


@pytest.mark.parametrize("width", [60, 80])
def test_the_how_line_of_a_tuning_folds_around_a_target_longer_than_a_line(
    duel: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``median_time_to_down:Grand Duke Ferdinand of the Sunken Keep=8`` is 61 columns,
    and with the ``8 by`` after it (read as a count, ``16 values``, kept whole) the How:
    line ran to 64 at 60 columns: the line folds after the figure's name, the target's
    value starting the next, and at 80 it stays whole."""
    target = f"median_time_to_down:{DEFENDER}=8"
    text = piped_at(monkeypatch, width, "tune", duel, "--vary", f"{DEFENDER}.hp=10:60", "--target",
               target)  # fmt: skip
    how = text[text.index("How:") :]
    _assert_fits_with_names_whole(how, width)
    assert "8 by" not in how.split("\n")[1 if width == 60 else 0], how
    assert (target in how) == (width >= len(target)), how


def test_the_heading_of_a_comparison_breaks_inside_a_part_longer_than_a_line(
    duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``B: long-names with Grand Duke Ferdinand of the Sunken Keep.hp=40,`` is one part
    of compare's heading, 67 columns, kept whole past the edge at 60: it breaks at its
    spaces, the defender's name whole."""
    text = piped_at(monkeypatch, 60, "compare", duel, "--set", f"{DEFENDER}.hp=40", "--set",
               f"{ATTACKER}.hp=31", "-n", "300")  # fmt: skip
    heading = text[text.index("A: ") : text.index("paired ranges)") + len("paired ranges)")]
    _assert_fits_with_names_whole(heading, 60)
    assert f"{DEFENDER}.hp=40," in heading, heading


@pytest.mark.parametrize("width", [60, 80])
def test_a_tuning_s_table_names_its_long_field_and_figure_above_it(
    duel: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table of the value found was headed by the field and the figure, 42 and 59
    columns: rich cut it at the terminal's edge (``median_time_to_d``). Where they do
    not fit, it is headed ``value`` and ``figure``, and a line above it names them."""
    text = piped_at(monkeypatch, width, "tune", duel, "--vary", f"{DEFENDER}.hp=10:60", "--target",
               f"median_time_to_down:{DEFENDER}=8")  # fmt: skip
    _assert_fits_with_names_whole(text, width)
    above = text[text.index("value: ") : text.index(TUNE_TITLE)]
    said = " ".join(above.split()).replace(": ", ":")  # broken at the dot: it is dropped
    assert said.replace(" · ", " ") == f"value:{DEFENDER}.hp figure:median_time_to_down:{DEFENDER}"
    assert not re.search(r"·$", above, re.M), above
    assert re.search(r"^ *value +figure +method *$", text, re.M), text


def test_exact_s_attacks_table_keeps_every_answer_beside_a_long_pair(
    duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns, beside a pair of 41 columns, rich cut the exact attacks table at
    the terminal's edge: its mean damage read ``3.``. Every answer is there as at 120
    columns, each line within 60."""
    narrow, wide = (piped_at(monkeypatch, width, "exact", duel) for width in (60, 120))
    _assert_fits_with_names_whole(narrow, 60)
    answers = re.compile(r"(?<![\d.])\d+\.\d{4}\b")
    assert sorted(answers.findall(narrow)) == sorted(answers.findall(wide)), (narrow, wide)


def _between(text: str, start: str, end: str) -> str:
    """``text`` from the first ``start`` up to the ``end`` after it."""
    first = text.index(start)
    return text[first : text.index(end, first)]


def _figures(text: str, points: Sequence[str] = ()) -> list[str]:
    """The figures of a table's lines, sorted: each number whole between spaces and
    brackets (a number cut at the edge, ``10.`` of ``10.36``, is none), ``reached`` of
    ``not reached``, and ``<`` / ``>`` of ``0 (< 0.02)``; not the independent intervals
    (``[+2.81, +3.75]``), which a narrow comparison leaves out, nor a sweep's
    ``points``, which name the rows of each table its columns are spread over."""
    text = re.sub(r"\[[+-]\S*, [+-]\S*\]", " ", text)
    tokens = re.split(r"[\s\[\](),]+", text)
    return sorted(t for t in tokens if t not in points
                  and re.fullmatch(r"[<>]|[+-]?\d+(\.\d+)?|reached", t))  # fmt: skip


def test_a_comparison_keeps_every_figure_beside_a_long_pair(
    duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns the mark, figure and ``on`` columns beside a 39-column name took
    the whole width: rich cut every number and the names (``Sunken Kee``) in table after
    table. Each figure and its pair's names head rows of their own, the figures beside
    the last, every figure as at 120 columns."""
    args = ("compare", duel, "--set", f"{DEFENDER}.hp=40", "--set", f"{ATTACKER}.hp=31",
            "-n", "300")  # fmt: skip
    narrow, wide = (_between(piped_at(monkeypatch, width, *args), "A/B on the same", "✱ changed")
                    for width in (60, 120))  # fmt: skip
    _assert_fits_with_names_whole(narrow, 60)
    assert _figures(narrow) == _figures(wide), (narrow, wide)


#: The defender's hp at the points of the sweep whose figures are read.
POINTS = ("20", "30")


def test_a_sweep_s_medians_are_whole_beside_a_long_name(
    duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns the time-to-down table's median beside a 39-column name read
    ``[1, not reac`` under a header ``me``: the name heads its points' rows, and every
    figure of the table is there as at 120 columns."""
    args = ("sweep", duel, "--vary", f"{DEFENDER}.hp={','.join(POINTS)}", "-n", "3")
    narrow, wide = (_between(piped_at(monkeypatch, width, *args), "time-to-down (", "Not listed")
                    for width in (60, 120))  # fmt: skip
    _assert_fits_with_names_whole(narrow, 60)
    assert re.search(r"\bmedian\b", narrow), narrow
    assert _figures(narrow, POINTS) == _figures(wide, POINTS), (narrow, wide)


@pytest.mark.parametrize("width", [60, 80])
def test_a_sweep_s_damage_curve_is_titled_with_its_pair_s_names_whole(
    duel: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damage curve's title, the pair and ``(± 95% interval)``, 104 columns, was
    broken by rich at any space, ``→ Grand Duke`` / ``Ferdinand of the Sunken Keep``:
    it breaks between the pair's names, each whole."""
    text = piped_at(
        monkeypatch, width, "sweep", duel, "--vary", f"{DEFENDER}.guard=0,2", "-n", "30"
    )
    title = _between(text, ATTACKER, "(± 95% interval)")
    _assert_fits_with_names_whole(title, width)
    assert DEFENDER in title, title


#: The names of 39 characters that left room for one figure beside them at 60 columns.
KAITO = "Kaito Stormrider of the Eastern Reaches"


@pytest.fixture
def long_duel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The benchmark duel, its attacker and defender given names of 39 characters."""
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "scenarios/benchmarks/ss-duel.yaml").read_text(encoding="utf-8")
    text = text.replace("name: Attacker", f"name: {KAITO}")
    Path("long-duel.yaml").write_text(text.replace("name: Defender", f"name: {DEFENDER}"),
                                      encoding="utf-8")  # fmt: skip
    return "long-duel.yaml"


def test_figures_are_side_by_side_in_one_table_where_names_leave_room_for_one(
    long_duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns names of 39 characters left room for one figure beside them: the
    attacks table came out as two tables (attempts alone, then hit rate and mean
    damage), the time-to-down table as five, a column each, the events table as three
    and ``exact``'s time-to-down table as four. The names head rows of their own, and a
    row's figures are side by side: in one table, time-to-down in two."""
    run = piped_at(monkeypatch, 60, "run", long_duel, "-n", "20000")
    exact = piped_at(monkeypatch, 60, "exact", long_duel)
    for text in (run, exact):
        assert all(len(line) <= 60 for line in text.splitlines()), text
        assert text.count(KAITO) + text.count(DEFENDER) == " ".join(text.split()).count(
            KAITO) + " ".join(text.split()).count(DEFENDER), text  # fmt: skip
    assert run.count("attacks (± 95% interval)") == 1, run
    assert re.search(r"^  at +attempts +hit rate +mean damage$", run, re.M), run
    assert run.count("time-to-down (rounds)") <= 2, run
    assert run.count("events (share of encounters)") == 1, run
    assert exact.count("time-to-down (exact, rounds)") <= 2, exact
