"""The tables of ``simlab run`` (time-to-down, events, ``--check``) and ``simlab exact``
at 60 columns beside a name of 48 characters, which leaves no room for a figure beside
it: each name heads a row of its own, its figures on the row under it, none cut."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from simlab import api
from simlab.analysis.result import Result
from simlab.report import terminal
from simlab.scenario.load import loads
from tests.support import broken_names, piped_at, printed_at, terminal_console

ROOT = Path(__file__).resolve().parents[2]
ATTACKER = "Bruna Ironhand the Unyielding"
DEFENDER = "Grand Duke Ferdinand Aurelius of the Sunken Keep"


@pytest.fixture
def duel(tmp_path: Path) -> str:
    """The benchmark duel, its attacker and defender named long."""
    text = (ROOT / "scenarios/benchmarks/ss-duel.yaml").read_text(encoding="utf-8")
    text = text.replace("Attacker", ATTACKER).replace("Defender", DEFENDER)
    path = tmp_path / "longest-names.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _assert_whole(text: str, figures: list[str]) -> None:
    """Every line within 60 columns, each of ``figures`` whole on a line (its figure and
    interval, or its figure over its interval), no name broken."""
    assert all(len(line) <= 60 for line in text.splitlines()), text
    for figure in figures:
        assert re.search(rf"(?<!\S){re.escape(figure)}(?!\S)", text), (figure, text)
    assert not broken_names(text, [ATTACKER, DEFENDER]), text


def test_a_run_s_tables_keep_their_figures_beside_a_name_of_48(
    duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns the time-to-down table printed ``not reache`` and ``10 [10, 10``,
    the events table ``0 (< 0.000``, and the ``--check`` table ``simulate`` / ``0.917``:
    a name of 48 characters left no room for a figure beside it."""
    text = piped_at(monkeypatch, 60, "run", duel, "-n", "2000", "--check")
    run = text[text.index("time-to-down (rounds)") : text.index("Down rate: share")]
    _assert_whole(run, ["not reached", "10 [10, 10]", "(< 0.002)", "(> 0.998)", "capped"])
    check = text[text.index("check against the exact answers") : text.index("* exact binomial")]
    _assert_whole(check, ["simulated", "0.9167", "3.1389", "> 0.99999999", "10.1665"])


def test_exact_s_duel_table_keeps_its_figures_beside_a_name_of_48(
    duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns ``simlab exact``'s time-to-down table printed ``10.166`` and ``>
    0.999999`` beside the defender's name of 48 characters."""
    text = piped_at(monkeypatch, 60, "exact", duel)
    _assert_whole(text[text.index("time-to-down (exact") :], ["10.1665", "> 0.99999999"])


BOSS = "Brute"


@pytest.fixture(scope="module")
def spirits() -> Result:
    """The Spirits party fight, its Brute named with 48 characters, over 5,000
    encounters (a million attempts on the boss took more room than 5,000 do: the
    figures cut then are those of a 1 (> 0.1) or an interval [0.7, 0.99])."""
    text = (ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml").read_text(encoding="utf-8")
    scenario = loads(text.replace(f"name: {BOSS},", f"name: {DEFENDER},"), "spirits.yaml")
    return api.simulate(scenario, n=5000)


def test_the_attacks_table_keeps_its_figures_beside_a_name_of_48(spirits: Result) -> None:
    """At 60 columns the attacks table headed each attack by a row of its own, but each
    defender's name stayed beside the figures, and beside the boss's 48 characters they
    were cut at the edge: ``[0.7, 0``, ``1 (>``, ``0 (<``. Each figure is whole."""
    rates, damage = spirits.hit_rates(), spirits.damage()
    figures = [f"{r.attempts:,}" for r in rates.itertuples()]
    figures += [terminal.interval_cell(r, "hit_rate") for r in rates.itertuples()]
    figures += [terminal.interval_cell(d, "mean_damage") for d in damage.itertuples()]
    text = printed_at(lambda: terminal.console.print(terminal.attacks_table(spirits)), 60)
    parts = [part for figure in figures for part in terminal._figure_parts(figure)]
    _assert_whole(text, parts)


def test_a_heading_stays_within_its_table_s_rule(spirits: Result) -> None:
    """A name heading a row of its own ran past the rule under the header of a table
    narrower than it (the time-to-down table's second, 25 columns beside a name of 48):
    each table is at least as wide as its headings."""
    with terminal_console(Console(width=60, record=True, force_terminal=False), 60) as out:
        for table in terminal.time_to_down_tables(spirits) + terminal.events_tables(spirits):
            out.print(table)
            lines = out.export_text().splitlines()  # this table's lines alone
            rule = next(line for line in lines if line.startswith("─"))
            assert max(len(line.rstrip()) for line in lines) <= len(rule), lines
            assert DEFENDER in lines, lines


def _cut(line: str) -> bool:
    """Whether ``line`` ends in a figure cut at the terminal's edge (``± ``, ``[0.7,``,
    ``1 (>``): an interval or a sign with nothing after it."""
    text = line.rstrip()
    return text.endswith(("±", "-", ",", "(>", "(<")) or text.count("[") > text.count("]")


def test_compare_s_table_keeps_its_figures_under_a_name_of_48(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns ``simlab compare``'s table kept a pair's defender of 48 characters
    beside its figures and spread them over four tables, each cut at the edge (``-`` /
    ``± ``): the figures go on the row under the name, in one table."""
    text = (ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml").read_text(encoding="utf-8")
    path = tmp_path / "spirits.yaml"
    path.write_text(text.replace(f"name: {BOSS},", f"name: {DEFENDER},"), encoding="utf-8")
    out = piped_at(
        monkeypatch, 60, "compare", str(path), "--set", f"{DEFENDER}.hp=80", "-n", "2000"
    )
    table = out[out.index("A/B on the same dice") : out.index("Not listed")]
    assert out.count("A/B on the same dice") == 1, out
    assert not [line for line in table.splitlines() if _cut(line)], table
    _assert_whole(table, ["-1.17 ± 0.04", "12.38", "11.21"])


def test_a_heading_wider_than_the_terminal_breaks_between_its_words() -> None:
    """A name heading a row of its own printed whole on a line of 70 characters at 60
    columns, which the terminal wraps mid-word: it breaks between its words."""
    name = "The Most Serene Grand Duke Ferdinand Aurelius of the Sunken Keep Again"

    def build(broken: bool, columns: slice) -> Table:
        return terminal.numbers_table("t", "combatant", [name, "B"], ["down rate", "capped"],
                                      [["0.5 ± 0.1", "3"], ["1", "0"]])  # fmt: skip

    def print_() -> None:
        headed = terminal.headed_build(build)
        terminal.console.print(*terminal.tables_printed_whole(build, headed=headed))

    text = printed_at(print_, 60)
    assert all(len(line) <= 60 for line in text.splitlines()), text
    assert " ".join(text.split()).count(name) == 1, text
