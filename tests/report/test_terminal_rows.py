"""What the terminal's tables leave out or name, so that a designer does not misread them:
a crit rate of a pair that cannot crit, the unit of a compared figure, a combatant a
sweep cannot down."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import simlab
from simlab.report import terminal
from tests.support import printed_at

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
#: Why quick-jab cannot crit, as the notes say it.
NO_ROW = "its profile has no crit row"


def _row(text: str, start: str) -> list[str]:
    """The cells of the row of ``text`` that starts with ``start``, two or more spaces
    apart."""
    line = next(line for line in text.splitlines() if line.strip().startswith(start))
    return re.split(r"\s{2,}", line.strip())


def test_a_run_shows_no_simulated_crit_rate_for_a_pair_that_never_crits() -> None:
    """quick-jab has no crit row: its crit rate read ``0 (< 0.0002)`` beside the
    stone-strike's, a simulated zero with an interval for an attack that cannot crit."""
    res = simlab.simulate(simlab.load(QUICKSTART), n=300)
    text = printed_at(lambda: terminal.print_result(res))
    header = next(line for line in text.splitlines() if "hit rate" in line)
    assert "crit rate" in header
    jab, strike = _row(text, "Kaito: quick-jab"), _row(text, "Brute:")
    assert jab[4] == terminal.NO_CRIT and "(<" not in " ".join(jab), jab
    assert "±" in strike[4], strike  # the stone-strike crits: its rate with its interval
    assert terminal.CANNOT_CRIT_NOTE.format(why=NO_ROW) in " ".join(text.split())


def test_a_run_in_which_no_pair_crits_has_no_crit_rate_column() -> None:
    res = simlab.simulate(simlab.load(QUICKSTART).with_({"stone-strike.tier": {}}), n=300)
    text = printed_at(lambda: terminal.print_result(res))
    assert "crit rate" not in text.split("Kaito: quick-jab")[0]  # no column in the header
    assert terminal.CANNOT_CRIT_COLUMN_NOTE.format(why=NO_ROW) in " ".join(text.split())  # and why


def test_compare_names_the_unit_of_each_figure_that_is_not_a_rate() -> None:
    """A and B of rates, rounds and HP side by side read alike: ``0.86 0.93`` beside
    ``7.20 7.40`` under one header. Each name now says its unit, at 80 columns under it
    where beside it the names' column would be wider, and from 110 beside it."""
    from simlab.report.tuning_terminal import compare_table

    quickstart = simlab.load(QUICKSTART)
    ab = simlab.compare(quickstart, changes={"Brute.hp": 34}, n=300)
    for width in (80, 140):
        text = printed_at(lambda ab=ab: terminal.console.print(compare_table(ab.figures, ab.pairs)),
                          width)  # fmt: skip
        assert max(len(line) for line in text.splitlines()) <= width
        lines = text.splitlines()
        downs = [k for k, line in enumerate(lines) if "mean time-to-down" in line]
        damages = [line for line in lines if "mean damage" in line]
        assert downs and damages, text
        for k in downs:  # its unit beside it, or alone on the next line
            assert "mean time-to-down (rounds)" in lines[k] or lines[k + 1].strip() == "(rounds)"
        assert all("mean damage (HP)" in line for line in damages), text
        assert all("(" not in line.split("rate")[0] for line in lines if " rate " in line)
    assert "mean time-to-down (rounds)" in text  # 140 columns: beside its name


def test_a_sweep_leaves_out_a_combatant_no_one_attacks_and_says_so() -> None:
    """A one-sided duel listed the fighter, whom the dummy never attacks, at every
    point: ``0 (< 0.008)``, ``not reached``. A two-sided fight keeps both."""
    from simlab.report.tuning_terminal import print_sweep

    duel = simlab.load(ROOT / "scenarios/glitters-d20/training-duel.yaml")
    sweep = simlab.sweep(duel, {"Dummy.hp": [10, 14]}, n=100, exact=False)
    text = printed_at(lambda: print_sweep(sweep))
    downs = text[text.index("time-to-down") : text.index("Every point")]
    assert "Dummy" in downs and "Fighter" not in downs.split("Not listed")[0], downs
    assert "Not listed, Fighter: never down at any point, as no one attacks it." in text
    both = simlab.sweep(simlab.load(QUICKSTART), {"Brute.hp": [30, 32]}, n=100, exact=False)
    text = printed_at(lambda: print_sweep(both))
    downs = text[text.index("time-to-down") : text.index("Every point")]
    assert "Kaito" in downs and "Brute" in downs and "Not listed" not in text


def test_a_sweep_leaves_out_a_side_that_cannot_win_and_says_so() -> None:
    """A one-sided duel's outcome table listed the dummy's side, which never attacks,
    at every point as ``0 (< 0.008)``: a side that might yet win, rarely. It is left
    out with a line that says why; a side that fights keeps its rows, and the draws
    theirs."""
    from simlab.report.tuning_terminal import print_sweep

    duel = simlab.load(ROOT / "scenarios/glitters-d20/training-duel.yaml")
    sweep = simlab.sweep(duel, {"Dummy.hp": [10, 14]}, n=100, exact=False)
    text = printed_at(lambda: print_sweep(sweep))
    outcome = text[text.index("outcome (") :]
    sides = [line.split()[0] for line in outcome.splitlines()[3:] if line[:2].strip()]
    assert sides[:2] == ["fighter", "draw"], outcome
    assert "Not listed, the side dummy: never wins at any point, as it makes no attack." in outcome
    both = simlab.sweep(simlab.load(QUICKSTART), {"Brute.hp": [30, 32]}, n=100, exact=False)
    outcome = printed_at(lambda: print_sweep(both))
    outcome = outcome[outcome.index("outcome (") :]
    assert " party " in outcome and " enemies " in outcome and "Not listed" not in outcome


def _drift(current: Any) -> Any:
    """The drift report of synthetic results of ``current`` (a ``Truth``) against a
    baseline of the default ones."""
    import numpy as np

    from simlab.analysis.drift import compare_results
    from tests.report.report_synthetic import Truth, synthetic_result

    rng = np.random.default_rng(4)
    base = synthetic_result(Truth(), 50_000, rng)
    return compare_results([synthetic_result(current, 50_000, rng)], [base])


def test_the_drift_heading_keeps_its_threshold_whole_at_80_columns() -> None:
    """``DRIFT: 9 figures moved from the baseline PATH (Holm p`` / ``< 0.01 and beyond
    tolerance):``: the threshold was split from its p where the path put the line's end
    there. It goes whole to the next line, whatever the path's length."""
    from tests.report.report_synthetic import Truth

    drift = _drift(Truth(winner=[0.7, 0.25, 0.05]))
    for length in range(1, 40):
        path = f"{'b' * length}/results.json"
        text = printed_at(lambda path=path: terminal.print_drift(drift, path))
        heading = " ".join(text[: text.index("tolerance):")].split())
        assert heading.startswith(f"DRIFT: 2 figures moved from the baseline {path}"), text
        assert max(len(line) for line in text.splitlines()) <= 80, text
        assert any("(Holm p < 0.01" in line for line in text.splitlines()), text


def test_the_drift_table_explains_a_changed_status_only_when_it_lists_one() -> None:
    """At 80 columns the drift table ended with ``status "changed": statistically
    different, within tolerance.`` under a table of DRIFT rows only."""
    from tests.report.report_synthetic import Truth

    for current, listed in [(Truth(winner=[0.7, 0.25, 0.05]), False), (Truth(hit=0.7), True)]:
        text = printed_at(lambda current=current: terminal.print_drift(_drift(current), "b.json"))
        rows = text[text.index("statistically different from") :]
        assert ("\n changed " in rows) is listed, rows
        assert ('status "changed": statistically different' in text) is listed, text


def test_a_nightly_of_duels_says_its_repeated_rates_in_one_note() -> None:
    """Each duel fought to defeat of a nightly report printed its own note that rates
    repeat others (out_rate as down_rate, win_rate as the other's down_rate): eleven
    notes of four lines for one fact. The terminal says them in one note at the place
    of the first, with how many rates in how many scenarios and the first three; the
    report keeps one note a scenario. One scenario's note is printed as it is."""
    from simlab.analysis.drift import compare_results

    duels = [ROOT / "scenarios" / path for path in (
        "shattered-spirits/quickstart.yaml", "shattered-spirits/duel-both-drafts.yaml",
        "zones-3d6/longsword-vs-plate.yaml")]  # fmt: skip
    runs = {seed: [simlab.simulate(simlab.load(p), n=300, seed=seed) for p in duels]
            for seed in (1, 2)}  # fmt: skip
    drift = compare_results(runs[2], runs[1])
    counts = [re.search(r": (\d+) rates not compared again, each with", note)
              for note in drift.notes]  # fmt: skip
    counts = [found for found in counts if found]
    assert len(counts) == 3, drift.notes  # the report's: one a scenario

    text = printed_at(lambda: terminal.print_drift(drift, "base.json"))
    notes = [" ".join(note.split()) for note in text.split("  note: ")[1:]]
    (said,) = [note for note in notes if "not compared again" in note]
    total = sum(int(found[1]) for found in counts)
    assert said.startswith(
        f"{total} rates in 3 scenarios not compared again, each with the "
        "counts of a rate compared, in both runs: quickstart "
        "(shattered-spirits): out rate of Kaito as down rate of Kaito, "
    )
    assert said.endswith(f" and {total - 3} more; every one in report.md"), said
    assert max(len(line) for line in text.splitlines()) <= 80, text

    alone = compare_results(runs[2][:1], runs[1][:1])
    text = printed_at(lambda: terminal.print_drift(alone, "base.json"))
    assert " ".join(text.split()).count("not compared again") == 1
    assert "note: quickstart (shattered-spirits): 4 rates not compared again" in text


def test_a_sweep_does_not_call_a_pair_of_a_few_attacks_unchanged_unsaid() -> None:
    """party-fight's Raider Chief reaches the Berserker at two of four points, on one
    attack each: its intervals share a value whatever the figures do, and the table of
    unchanged pairs listed it at ``1.000`` without a word. A line under that table names
    the pairs of fewer than 30 attacks at a point, with their fewest and the points they
    were measured at; a sweep whose pairs all have many attacks has no such line."""
    from simlab.report.tuning_terminal import FEW_ATTACKS, print_sweep
    from simlab.tuning.sweep import PAIR, moving_pairs

    fight = simlab.load(ROOT / "scenarios/opposed-tiers/party-fight.yaml")
    sweep = simlab.sweep(fight, ["Warden.hp=20,30", "Raider Chief.hp=10,14"], n=500)
    flat = sweep.attacks().merge(moving_pairs(sweep)[1], on=PAIR, sort=False)
    fewest = flat.groupby(PAIR, sort=False).attempts.min()
    few = [terminal.pair_heading(*key) for key in fewest[fewest < FEW_ATTACKS].index]
    assert "Raider Chief: club → Berserker" in few, fewest
    text = " ".join(printed_at(lambda: print_sweep(sweep)).split())
    table = text[text.index("unchanged across the sweep") : text.index("time-to-down (rounds")]
    (said,) = re.findall(r"Too few attacks to call unchanged \(fewer than 30 at a point\): "
                         r"(.*?); intervals so wide share a value", table)  # fmt: skip
    assert re.findall(r"(?:^|\), )([^(]+) \(\d+ attacks? at the fewest", said) == few, said
    assert "Raider Chief: club → Berserker (1 attack at the fewest, at 2 of 4 points)" in said

    duel = simlab.sweep(simlab.load(QUICKSTART), ["Brute.hp=28,32"], n=500)
    assert "Too few attacks" not in printed_at(lambda: print_sweep(duel))
