"""What a notebook shows for a result left at the end of a cell: one line naming the run
and where its figures are, not the dataclass's dump of every tally array."""

from __future__ import annotations

from typing import Any

import simlab
from simlab.errors import InputError
from tests.tuning.cases import ROOT, SS_DUEL


def test_a_result_shows_one_line(duel: Any) -> None:
    res = simlab.simulate(duel, n=1000)
    text = repr(res)
    assert text == (
        "<Result ss-duel · rules shattered-spirits · 1,000 encounters · seed 1: 2 combatants, "
        "1 attack pair; .hit_rates(), .damage(), .damage_pmf(), .time_to_down(), "
        ".combatants(), .events(), .status_damage(), .win_rates()>"
    )


def test_a_result_names_its_check_and_trace_tables(duel: Any) -> None:
    """``simulate(check=True)`` and ``trace=True`` give a result a ``.check`` and a
    ``.trace`` table, which its one line did not name."""
    checked = repr(simlab.simulate(duel, n=200, check=True))
    assert checked.endswith(".win_rates(), .check>") and ".trace" not in checked
    traced = repr(simlab.simulate(duel, n=5, trace=True))
    assert traced.endswith(".win_rates(), .trace, .readable_trace()>") and ".check" not in traced


def test_a_result_says_an_override_that_changes_nothing(duel: Any) -> None:
    """The terminal's heading and the report say ``Defender.hp=30 (changes nothing:
    Defender.hp is already 30)``; the repr said ``with Defender.hp=30`` as if it had."""
    idle = simlab.simulate(duel.with_({"Defender.hp": 30, "Defender.guard": 2}), n=200)
    assert repr(idle).startswith(
        "<Result ss-duel · with Defender.hp=30 (changes nothing: Defender.hp is already 30), "
        "Defender.guard=2 · rules shattered-spirits · 200 encounters"
    )
    moved = simlab.simulate(duel.with_({"Defender.hp": 20}), n=200)
    assert repr(moved).startswith("<Result ss-duel · with Defender.hp=20 · rules")


def _count_idle_asks(monkeypatch: Any) -> list[tuple[Any, ...]]:
    """The calls to ``overrides.idle_overrides`` from now on, each one's arguments."""
    from simlab.tuning import overrides

    asked: list[tuple[Any, ...]] = []
    work_out = overrides.idle_overrides

    def counted(*args: Any) -> tuple[str, ...]:
        asked.append(args)
        return work_out(*args)

    monkeypatch.setattr(overrides, "idle_overrides", counted)
    return asked


def test_simulate_leaves_the_idle_overrides_to_the_repr(duel: Any, monkeypatch: Any) -> None:
    """Working out which overrides change nothing validates each one alone: a sweep's
    points and a tune's values must not pay for it, so ``simulate`` does not; the repr
    does, once, when shown."""
    asked = _count_idle_asks(monkeypatch)
    res = simlab.simulate(duel.with_({"Defender.hp": 30}), n=200)
    simlab.sweep(duel.with_({"Defender.hp": 30}), {"Defender.guard": [0, 1]}, n=100,
                 exact=False)  # fmt: skip
    assert asked == []
    first, again = repr(res), repr(res)
    assert len(asked) == 1 and first == again
    assert "Defender.hp=30 (changes nothing: Defender.hp is already 30)" in first


def test_a_scenario_shows_one_line_with_its_changes(duel: Any) -> None:
    """``scn.with_(...)`` left at the end of a cell showed pydantic's dump of every field
    (some 2,500 characters) and not the changes that made it; ``print(scn)`` too."""
    assert repr(duel) == (
        "<Scenario ss-duel · rules shattered-spirits · 1,000,000 encounters · seed 1 · "
        "100 rounds at most: attacker: Attacker; defender: Defender; 1 attack defined; "
        ".model_dump() for every field>"
    )
    changed = duel.with_({"Defender.hp": 30, "Defender.guard": 2}).with_({"Defender.guard": 3})
    assert str(changed) == repr(changed)
    assert repr(changed).startswith(
        "<Scenario ss-duel · with Defender.hp=30 (changes nothing: Defender.hp is already 30), "
        "Defender.guard=3 · rules shattered-spirits"
    )
    fight = simlab.load(ROOT / "scenarios/shattered-spirits-draft1/techniques-3v3.yaml")
    assert "enemies: Brute ×2, Ogre; 6 techniques defined;" in repr(fight)


def test_a_sweep_says_a_shared_override_that_changes_nothing(
    duel: Any, monkeypatch: Any, tmp_path: Any
) -> None:
    """A sweep's repr and its terminal heading said ``with Defender.hp=30`` as if it
    changed something, where a run's say so; worked out when first shown, once, not by
    :func:`simlab.sweep`."""
    from click.testing import CliRunner

    from simlab.cli import main

    asked = _count_idle_asks(monkeypatch)
    sw = simlab.sweep(duel.with_({"Defender.hp": 30}), {"Defender.guard": [0, 1]}, n=100,
                      exact=False)  # fmt: skip
    assert asked == []
    first, again = repr(sw), repr(sw)
    assert len(asked) == 1 and first == again
    assert first.startswith(
        "<SweepResult ss-duel · with Defender.hp=30 (changes nothing: Defender.hp is "
        "already 30) · rules"
    )
    done = CliRunner().invoke(main, ["sweep", str(SS_DUEL), "--set", "Defender.hp=30",
                                     "--vary", "Defender.guard=0,1", "-n", "200"])  # fmt: skip
    assert done.exit_code == 0, done.output
    head = " ".join(done.output[: done.output.index("varied")].split())
    assert "with Defender.hp=30 (changes nothing: Defender.hp is already 30)" in head


def test_a_sweep_shows_one_line(duel: Any) -> None:
    sw = simlab.sweep(duel, {"Defender.guard": [0, 1, 2]}, n=500, exact=False)
    assert repr(sw) == (
        "<SweepResult ss-duel · rules shattered-spirits · 3 points of Defender.guard (3 values)"
        " · 500 encounters per point · seed 1: .attacks(), .combatants(), .sides(),"
        " .damage_pmf(), .encounters_per_point(), simlab.plot_sweep>"
    )


def test_a_comparison_shows_one_line_with_how_many_figures_changed(duel: Any) -> None:
    ab = simlab.compare(duel, changes="Defender.guard=2", n=1000, ranges=8)
    changed = int(ab.figures.changed.sum())
    assert repr(ab) == (
        f"<Comparison ss-duel vs ss-duel with Defender.guard=2 · 1,000 encounters on the same "
        f"dice · 8 ranges:"
        f" {changed} of {len(ab.figures)} figures changed (paired 95% interval); .figures>"
    )


def test_a_comparisons_p_values_read_as_the_terminal_writes_them(duel: Any) -> None:
    """``ab.figures`` showed ``p`` as ``2.434305e-09`` or ``0.000000e+00`` (pandas writes
    a whole column in scientific notation for one tiny value); ``p_text`` and
    ``p_holm_text`` say each as the terminal does, beside the numbers, kept as they were."""
    figures = simlab.compare(duel, changes={"Defender.guard": 5}, n=3200).figures
    columns = list(figures.columns)
    assert columns[columns.index("p") + 1] == "p_text"
    assert columns[columns.index("p_holm") + 1] == "p_holm_text"
    zero = figures[figures.p == 0]
    assert len(zero) and set(zero.p_text) == set(zero.p_holm_text) == {"< 0.0001"}
    some = figures[(figures.p > 0.001) & (figures.p < 1)].iloc[0]
    assert float(some.p_text) == float(f"{some.p:.2g}") and "e" not in some.p_text
    assert figures.p.dtype == figures.p_holm.dtype == float
    text = figures[["p_text", "p_holm_text"]].to_string()
    assert "e+00" not in text and "0.000000" not in text


def test_a_comparison_of_a_b_identical_to_a_says_so(duel: Any) -> None:
    """It read "0 of 14 figures changed" only, where the terminal says "B is identical
    to A: …"."""
    ab = simlab.compare(duel, changes={"Defender.hp": 30}, n=1000, ranges=8)
    assert repr(ab) == (
        f"<Comparison ss-duel vs ss-duel with Defender.hp=30 · 1,000 encounters on the same dice · "
        f"8 ranges:"
        f" 0 of {len(ab.figures)} figures changed (paired 95% interval); B is identical to A: "
        "Defender.hp is already 30, so Defender.hp=30 changes nothing; .figures>"
    )
    itself = simlab.compare(duel, duel, n=1000, ranges=8)
    assert repr(itself).endswith("changed (paired 95% interval); B is identical to A (the same "
                                 "scenario): every difference is 0; .figures>")  # fmt: skip


def test_a_run_and_a_comparison_that_stopped_at_the_cap_say_so(duel: Any) -> None:
    """Run to a precision they did not meet, their reprs read "2,000 encounters", as if
    it had been, where ``meta["precision"]`` says ``cap_reached`` and the sweep's repr
    and ``simlab run`` say so; run to one they met, they say so, where "1,000
    encounters" read as a count asked for."""
    cap = "2,000 encounters (the cap, reached before the precision was met)"
    capped = simlab.simulate(duel, n=2000, precision=1e-6)
    assert capped.meta["precision"]["cap_reached"]
    assert f"· {cap} · seed 1:" in repr(capped)
    ab = simlab.compare(duel, changes={"Defender.guard": 2}, n=2000, precision=1e-6)
    assert repr(ab).startswith(
        f"<Comparison ss-duel vs ss-duel with Defender.guard=2 · {cap} on the same"
    )
    met = simlab.simulate(duel, n=2000, precision=0.5)
    assert "· 1,000 encounters (precision 0.5 met) · seed 1:" in repr(met)
    assert "precision" not in repr(simlab.simulate(duel, n=1000))
    ab = simlab.compare(duel, changes={"Defender.guard": 2}, n=2000, precision=0.5)
    assert "· 1,000 encounters (precision 0.5 met) on the same dice ·" in repr(ab)


def test_a_tuning_shows_one_line_with_the_value_found(duel: Any) -> None:
    """The dataclass's repr listed every evaluation (about 1.5 kB)."""
    tu = simlab.tune(duel, "Defender.hp=10:40", "median_time_to_down:Defender=5", n=1000)
    assert tu.reachable
    best = tu.best
    # by the display rule, as the terminal shows it: 5 (exact), 4 [4, 5] (simulated)
    shown = (
        f"{best.figure:.0f} (exact)"
        if best.method == "exact"
        else (f"{best.figure:.0f} [{best.lo:.0f}, {best.hi:.0f}] (simulated)")
    )
    # the exact median is 5 rounds from HP 13 to 16 (and only there): a flat stretch
    fives = [e.value for e in tu.evaluations if e.figure == 5]
    assert (fives[0], fives[-1]) == (13, 16)
    assert repr(tu) == (
        f"<TuneResult ss-duel · rules shattered-spirits · Defender.hp over 10..40 for "
        f"median_time_to_down:Defender=5: Defender.hp={tu.value} gives {shown}, as does "
        f"every value tried from 13 to 16; "
        f"{len(tu.evaluations)} values "
        f"evaluated; .value, .best, .evaluated(), .evaluations, .how()>"
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
    headers."""
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
    assert "simulated 1 encounter at 1 point" in printed
    assert "1 encounter per point" in printed
    assert "simulated 1 encounter\n" in printed and "· 1 encounter · seed 1" in printed
    for plural in ("1 points", "1 encounters", "1 values"):
        assert plural not in printed


def _tables_given(obj: Any) -> set[str]:
    """The public methods of ``obj`` that, called with no argument, give a table with
    rows; of a Result's per-encounter tables (zeros where nothing is tallied), those its
    layout tallies."""
    import pandas as pd

    names = set()
    for name in dir(obj):
        method = getattr(obj, name)
        if name.startswith("_") or not callable(method):
            continue
        try:
            table = method()
        except (TypeError, InputError):  # takes arguments, or has no table for this run
            continue
        if isinstance(table, pd.DataFrame) and len(table):
            names.add(name)
    layout = getattr(obj, "layout", None)
    if layout is not None:
        names -= {"status_damage", "momentum_spent"} - set(layout.per_encounter_tallies)
    return names


def test_a_repr_lists_every_table_method_and_the_shared_changes(duel: Any) -> None:
    """The quickstart's repr left out ``.damage_pmf()``, ``.events()`` and
    ``.status_damage()``; a sweep's ``.damage_pmf()`` and the changes every point shares
    (``scn.with_(...)``), which the terminal's heading shows."""
    import re

    res = simlab.simulate(ROOT / "scenarios/shattered-spirits/quickstart.yaml", n=500)
    listed = set(re.findall(r"\.(\w+)\(\)", repr(res)))
    assert listed == _tables_given(res), repr(res)
    traced = simlab.simulate(duel, n=5, trace=True)
    assert set(re.findall(r"\.(\w+)\(\)", repr(traced))) == _tables_given(traced), repr(traced)
    sw = simlab.sweep(duel.with_({"Defender.hp": 20}), {"Defender.guard": [0, 1]}, n=200,
                      exact=False)  # fmt: skip
    assert set(re.findall(r"\.(\w+)\(\)", repr(sw))) == _tables_given(sw), repr(sw)
    assert repr(sw).startswith("<SweepResult ss-duel · with Defender.hp=20 · rules")
    changed = simlab.simulate(duel.with_({"Defender.hp": 20}), n=200)
    assert repr(changed).startswith("<Result ss-duel · with Defender.hp=20 · rules")
