"""What a notebook shows for a result left at the end of a cell: one line naming the run
and where its figures are, not the dataclass's dump of every tally array."""

from __future__ import annotations

from typing import Any

import simlab
from tests.tuning.cases import SS_DUEL


def test_a_result_shows_one_line(duel: Any) -> None:
    res = simlab.simulate(duel, n=1000)
    text = repr(res)
    assert text == (
        "<Result ss-duel · rules shattered-spirits · 1,000 encounters · seed 1: 2 combatants, "
        "1 attack pair; .hit_rates(), .damage(), .time_to_down(), .combatants(), .win_rates()>"
    )


def test_a_sweep_shows_one_line(duel: Any) -> None:
    sw = simlab.sweep(duel, {"Defender.guard": [0, 1, 2]}, n=500, exact=False)
    assert repr(sw) == (
        "<SweepResult ss-duel · rules shattered-spirits · 3 points of Defender.guard (3 values)"
        " · 500 encounters per point · seed 1: .attacks(), .combatants(), .sides(),"
        " simlab.plot_sweep>"
    )


def test_a_comparison_shows_one_line_with_how_many_figures_changed(duel: Any) -> None:
    ab = simlab.compare(duel, changes="Defender.guard=2", n=1000, ranges=8)
    changed = int(ab.figures.changed.sum())
    assert repr(ab) == (
        f"<Comparison ss-duel vs Defender.guard=2 · 1,000 encounters on the same dice · 8 ranges:"
        f" {changed} of {len(ab.figures)} figures changed (paired 95% interval); .figures>"
    )


def test_a_tuning_shows_one_line_with_the_value_found(duel: Any) -> None:
    """The dataclass's repr listed every evaluation (about 1.5 kB)."""
    tu = simlab.tune(duel, "Defender.hp=10:40", "median_time_to_down:Defender=5", n=1000)
    assert tu.reachable
    best = tu.best
    assert repr(tu) == (
        f"<TuneResult ss-duel · rules shattered-spirits · Defender.hp over 10..40 for "
        f"median_time_to_down:Defender=5: Defender.hp={tu.value} gives {best.figure:.4g} "
        f"[{best.lo:.4g}, {best.hi:.4g}] ({best.method}); {len(tu.evaluations)} values "
        f"evaluated; .value, .best, .evaluations, .how()>"
    )


def test_an_exact_answer_shows_one_line(duel: Any) -> None:
    """The dataclass's repr printed every pair's damage distribution as an array."""
    ex = simlab.exact(duel)
    assert ex.duel is not None and not ex.refusals
    assert repr(ex) == (
        "<ExactResult ss-duel · rules shattered-spirits: 1 pair and the duel's time-to-down "
        "solved, 0 refused; .attacks(), .damage_pmf(), .time_to_down(), .refusals>"
    )


def test_a_count_of_one_is_singular_in_reprs_and_headers(
    duel: Any, monkeypatch: Any, capsys: Any
) -> None:
    """``1 points``, ``1 encounters``, ``(1 values)`` in the reprs and the terminal's
    headers (A.md 21)."""
    from click.testing import CliRunner
    from rich.console import Console

    from simlab.cli import main
    from simlab.report import terminal

    sw = simlab.sweep(duel, {"Defender.guard": [1]}, n=1, exact=False)
    assert "· 1 point of Defender.guard (1 value) · 1 encounter per point ·" in repr(sw)
    assert "· 1 encounter · seed 1:" in repr(simlab.simulate(duel, n=1))
    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    monkeypatch.setenv("COLUMNS", "80")
    sweep = CliRunner().invoke(main, ["sweep", str(SS_DUEL), "--vary", "Defender.guard=1",
                                      "-n", "1", "--no-exact"])  # fmt: skip
    run = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "1"])
    printed = sweep.output + run.output + capsys.readouterr().out
    assert "simulated 1 encounter of 1 point" in printed
    assert "1 encounter per point" in printed
    assert "simulated 1 encounter\n" in printed and "· 1 encounter · seed 1" in printed
    for plural in ("1 points", "1 encounters", "1 values"):
        assert plural not in printed
