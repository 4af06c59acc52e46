"""The fit check every terminal table relies on (``terminal.prints_whole``): a table whose
lines all fit but whose names rich squeezed below their longest word, or to nothing, does
not print whole, and the table is laid out again (folded, or split) instead."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.table import Table

from simlab.cli import main
from simlab.report import terminal
from tests.support import broken_names, printed_at

ROOT = Path(__file__).resolve().parents[2]

#: Walk 2's brawl at 80 columns, its number columns without the minimum widths the
#: time-to-down table held them to (as any other table's are): rich squeezed the
#: combatant and side columns to nothing, every line within 80 columns.
NAMES = ["Brenna", "Iskra", "Tomas", "Acolyte 1", "Acolyte 2", "Zealot"]
SIDES = ["heroes"] * 3 + ["cult"] * 3
HEADERS = ["down rate", "median", "mean if downed", "median if downed", "capped"]
ROWS = [
    ["0.66 ± 0.03", "5 [5, 5]", "3.75 ± 0.09", "4", "0"],
    ["0.48 ± 0.03", "not reached [9, not reached]", "4.89 ± 0.11", "5", "0"],
    ["0.34 ± 0.03", "not reached", "6.95 ± 0.17", "7", "0"],
    ["0.996 [0.991, 0.998]", "1 [1, 1]", "1.43 ± 0.03", "1", "0"],
    ["0.957 ± 0.011", "3 [3, 3]", "2.69 ± 0.04", "3", "0"],
    ["0.66 ± 0.03", "7 [7, 7]", "6.26 ± 0.10", "6", "0"],
]


def _brawl_table(broken: bool, columns: slice) -> Table:
    """The brawl's figures beside its names, ``broken`` as the run's tables break them."""
    headers, rows = terminal.broken_columns(HEADERS, ROWS) if broken else (HEADERS, ROWS)
    table = terminal.console_table("time-to-down (rounds)")
    terminal.name_column(table, "combatant", NAMES)
    terminal.name_column(table, "side", SIDES)
    for header in headers[columns]:
        terminal.number_column(table, header)
    for name, side, cells in zip(NAMES, SIDES, rows, strict=True):
        table.add_row(name, side, *cells[columns])
    return table


def _rows_named(text: str) -> list[str]:
    """The names that start a row of printed ``text`` whole, with their side after them."""
    return [name for name, side in zip(NAMES, SIDES, strict=True)
            if re.search(rf"^ ?{name} +{side} ", text, re.M)]  # fmt: skip


def test_a_table_whose_lines_fit_but_whose_names_are_squeezed_does_not_print_whole() -> None:
    """Every line of the brawl's table fits 80 columns as it is, its names squeezed
    out: not whole. Laid out by the rule every table follows, each row starts with its
    name and side, and no figure is cut (``capp…``, ``3.75 ± 0.…``)."""
    as_is = printed_at(lambda: terminal.console.print(_brawl_table(False, slice(None))))
    assert max(len(line) for line in as_is.splitlines()) <= 80, as_is  # the lines fit…
    assert not _rows_named(as_is), as_is  # …and no name is there to read

    def laid_out() -> None:
        tables = terminal.tables_printed_whole(_brawl_table)
        assert not terminal.prints_whole(_brawl_table(False, slice(None)))
        terminal.console.print(terminal.one_renderable(tables))

    text = printed_at(laid_out)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert _rows_named(text) == NAMES, text
    assert "…" not in text, text
    for figure in ["not reached", "[9, not reached]", "0.996", "[0.991, 0.998]", "± 0.17"]:
        assert figure in text, text
    assert all(re.search(rf"(?<!\S){re.escape(h)}(?!\S)", text) for h in ("capped", "rate"))


@pytest.mark.parametrize("width", [60, 80])
def test_a_name_in_a_spec_stays_whole_beside_a_wide_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    """``simlab check`` at 80 columns: beside ``0.9998 [0.998, 0.999994]`` rich squeezed
    the spec column to 37 columns, and ``Mirabel Ashenveil of the Lantern Court's`` (40)
    broke over two lines while every line fit. The figures go over their intervals and
    the name keeps its line."""
    mirabel, brute = "Mirabel Ashenveil of the Lantern Court", "Gravelmaw the Brute"
    text = (ROOT / "scenarios/shattered-spirits/party-3v3.yaml").read_text(encoding="utf-8")
    text = text.replace("name: Mira,", f"name: {mirabel},").replace("Brute", brute)
    text += (f"\nexpect:\n  - {{figure: median_time_to_down, combatant: {mirabel}, "
             f"between: [2, 9]}}\n  - {{figure: down_rate, combatant: {brute}, "
             "at_least: 0.5, note: both copies pooled}\n")  # fmt: skip
    (tmp_path / "long.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(terminal, "console", terminal._make_console())
    done = CliRunner().invoke(main, ["check", str(tmp_path / "long.yaml"), "-n", "2000"])
    assert done.exit_code == 1, done.output  # Mirabel's median is not reached: a failure
    table = done.output[done.output.index("balance specs") :]
    assert "0.9998" in table, table  # the pooled down rate, bracketed, so wide
    assert max(len(line) for line in table.splitlines()) <= width, table
    assert any(f"{mirabel}'s" in line for line in table.splitlines()), table
    assert not broken_names(table, [mirabel, brute]), table
