"""The tables of ``simlab run`` (time-to-down, events, ``--check``) and ``simlab exact``
at 60 columns beside a name of 48 characters, which leaves no room for a figure beside
it: each name heads a row of its own, its figures on the row under it, none cut."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from simlab.cli import main
from simlab.report import terminal
from tests.support import broken_names

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


def _at_60(monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """The output of ``simlab ARGS`` piped at ``COLUMNS=60``."""
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setattr(terminal, "console", terminal._make_console())
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return str(done.output)


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
    text = _at_60(monkeypatch, "run", duel, "-n", "2000", "--check")
    run = text[text.index("time-to-down (rounds)") : text.index("Down rate: share")]
    _assert_whole(run, ["not reached", "10 [10, 10]", "(< 0.002)", "(> 0.998)", "capped"])
    check = text[text.index("check against the exact answers") : text.index("* exact binomial")]
    _assert_whole(check, ["simulated", "0.9167", "3.1389", "> 0.99999999", "10.1665"])


def test_exact_s_duel_table_keeps_its_figures_beside_a_name_of_48(
    duel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns ``simlab exact``'s time-to-down table printed ``10.166`` and ``>
    0.999999`` beside the defender's name of 48 characters."""
    text = _at_60(monkeypatch, "exact", duel)
    _assert_whole(text[text.index("time-to-down (exact") :], ["10.1665", "> 0.99999999"])
