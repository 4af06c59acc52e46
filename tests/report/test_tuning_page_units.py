"""The figures of the sweep and comparison pages carry their units, as the terminal's."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from simlab import api
from simlab.report import tuning
from tests.report.report_html import words_unwrapped

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
FIGHT = ROOT / "scenarios/benchmarks/ss-2v2.yaml"


def test_the_comparison_page_names_each_figure_with_its_unit(tmp_path: Path) -> None:
    """compare.html and compare.md read ``mean damage`` and ``mean time-to-down`` beside
    the rates, with no unit; the terminal says ``mean damage (HP)``, ``mean time-to-down
    (rounds)``."""
    comparison = api.compare(DUEL, changes={"Defender.guard": 2}, n=400, seed=1)
    tuning.render_compare(comparison, tmp_path)
    html = words_unwrapped((tmp_path / "compare.html").read_text(encoding="utf-8"))
    figures = {re.findall(r"<td[^>]*>([^<]*)</td>", row)[1]
               for row in html.split("<tr>")[2:]}  # fmt: skip
    assert {"mean damage (HP)", "mean time-to-down (rounds)", "hit rate"} <= figures, figures
    assert "mean damage" not in figures and "mean time-to-down" not in figures, figures
    assert "| mean damage (HP) |" in (tmp_path / "compare.md").read_text(encoding="utf-8")


def test_the_sweep_tables_name_each_figure_with_its_unit() -> None:
    """sweep.html's tables were headed ``mean damage [95%]``, ``exact mean damage``,
    ``mean time-to-down [95%]``: an amount of what, the terminal says (HP, rounds)."""
    sweep = api.sweep(DUEL, {"Defender.guard": [0, 2]}, n=200, seed=1)
    attacks, _ = tuning._sweep_rows(sweep)
    combatants, _ = tuning._combatant_rows(sweep)
    assert "mean damage (HP) [95%]" in attacks and "exact mean damage (HP)" in attacks
    assert "hit rate [95%]" in attacks, attacks  # a rate's name says what it is
    for header in ("mean time-to-down (rounds) [95%]", "median time-to-down (rounds) [95%]",
                   "exact mean time-to-down (rounds)"):  # fmt: skip
        assert header in combatants, combatants
    fig, ax = plt.subplots()
    tuning.plot_sweep(sweep, "mean_damage", ax=ax)
    label = ax.get_ylabel().replace("\u00a0", " ")  # kept on one line by no-break spaces
    assert "(HP, misses 0)" in label, label  # the pictures' axis too
    plt.close(fig)


def test_a_fights_sweep_has_no_column_of_exact_means_it_never_has() -> None:
    """ss-2v2's time-to-down table ended in ``exact mean time-to-down``, "—" on every
    row: the exact engine solves a duel's time-to-down only."""
    fight, _ = tuning._combatant_rows(api.sweep(FIGHT, {"Kaito.hp": [10, 20]}, n=200, seed=1))
    assert not any(h.startswith("exact") for h in fight), fight
    duel, rows = tuning._combatant_rows(api.sweep(DUEL, {"Defender.hp": [10, 20]}, n=200))
    defender = next(r for r in rows if r[1] == "Defender")
    assert duel[-1] == "exact mean time-to-down (rounds)" and defender[-1] != "—", rows
