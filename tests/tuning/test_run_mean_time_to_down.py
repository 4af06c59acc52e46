"""``simlab run`` shows the mean time-to-down that tune, compare and sweep target."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import simlab
from simlab.report import terminal
from simlab.tuning.figures import FigureRef, exact_measure, measure
from tests.support import K_SIGMA, printed_at
from tests.tuning.cases import ROOT

PARTY = ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml"
N = 20_000


def _row(frame: pd.DataFrame, name: str) -> Any:
    return frame.set_index("combatant").loc[name]


def test_the_runs_mean_if_downed_is_the_sweeps_figure(duel: Any, tmp_path: Path) -> None:
    """The run's "mean if downed" is, digit for digit, the ``mean_time_to_down`` a sweep
    (and tune, :func:`measure`) gives the same scenario on the same seed: in the
    run's tables, on its terminal and in its results files."""
    res = simlab.simulate(duel, N, duel.seed)
    point = simlab.sweep(duel, {"Defender.guard": [1]}, n=N, exact=False)
    swept = _row(point.combatants(), "Defender")
    mine = _row(res.combatants(), "Defender")
    for column in ("mean_time_to_down", "mean_time_to_down_ci95_lo", "mean_time_to_down_ci95_hi"):
        assert mine[column] == swept[column]
    tuned = measure(res.tallies, res.layout, N, FigureRef("mean_time_to_down", "Defender"))
    assert tuned == (swept.mean_time_to_down, swept.mean_time_to_down_ci95_lo,
                     swept.mean_time_to_down_ci95_hi)  # fmt: skip
    cell = terminal.interval_cell(swept, "mean_time_to_down")
    printed = printed_at(lambda: terminal.print_result(res), 200)
    assert "mean if" in printed
    defender = next(line for line in printed.splitlines() if line.startswith(" Defender "))
    assert f"  {cell}  " in defender, printed
    simlab.write_results(res, tmp_path)
    written = _row(pd.read_parquet(tmp_path / "combatants.parquet"), "Defender")
    assert written.mean_time_to_down == swept.mean_time_to_down
    ttd = json.loads((tmp_path / "summary.json").read_text())["combatants"][1]["time_to_down"]
    assert ttd["mean_time_to_down"] == swept.mean_time_to_down
    assert ttd["mean_time_to_down_ci"] == [swept.mean_time_to_down_ci95_lo,
                                           swept.mean_time_to_down_ci95_hi]  # fmt: skip


def test_an_exact_duels_mean_if_downed_is_the_exact_engines(duel: Any) -> None:
    """ss-duel's run: its mean if downed within K_SIGMA standard errors of the exact
    engine's (10.1665 rounds, ``simlab exact``), the interval a normal one of that error."""
    res = simlab.simulate(duel, N, duel.seed)
    row = _row(res.combatants(), "Defender")
    answer = exact_measure(simlab.exact(duel), FigureRef("mean_time_to_down", "Defender"))
    assert answer == pytest.approx(10.1665, abs=1e-4)
    sigma = (row.mean_time_to_down_ci95_hi - row.mean_time_to_down_ci95_lo) / (2 * 1.959964)
    assert 0 < sigma < 0.1
    assert abs(row.mean_time_to_down - answer) <= K_SIGMA * sigma
    assert row.mean_time_to_down_ci_kind == "normal"


def test_never_downed_has_no_mean(duel: Any) -> None:
    """The attacker nobody attacks: no mean, no interval, ``—`` on the terminal."""
    row = _row(simlab.simulate(duel, 2000, 3).combatants(), "Attacker")
    assert math.isnan(row.mean_time_to_down) and math.isnan(row.mean_time_to_down_ci95_lo)
    assert terminal.interval_cell(row, "mean_time_to_down") == "—"


@pytest.mark.parametrize("path", [PARTY, ROOT / "scenarios/benchmarks/ss-duel.yaml"])
def test_the_time_to_down_table_at_80_columns_names_every_combatant(path: Path) -> None:
    """At 80 columns the wider table folds (figures over intervals, headers a word a
    line) or spreads its columns over tables, never squeezing the names to nothing:
    every table headed "time-to-down" has a row starting with each combatant's name,
    and "mean if downed" and "capped" are printed."""
    scenario = simlab.load(path)
    res = simlab.simulate(scenario, 4000, 5)
    printed = "\n".join(line.rstrip() for line in printed_at(
        lambda: terminal.print_result(res), 80).splitlines())  # fmt: skip
    assert max(map(len, printed.splitlines())) <= 80
    names = [name for _, name in res.layout.combatants]
    tables = re.split(r"\n *time-to-down \(rounds\)\n", printed)[1:]
    assert tables
    for table in tables:
        table = re.split(r"\n *events \(|\nDown rate", table)[0]  # what follows it
        rows = table.split("\n─")[1].split("\n")[1:]  # the lines under the rule
        starts = [line.lstrip(" ") for line in rows]
        assert all(any(line.startswith(f"{name} ") for line in starts) for name in names), table
    assert re.search(r"mean\s.*\n.*if\s.*\n.*downed|mean if.*\n.*downed", printed), printed
    assert "capped" in printed
