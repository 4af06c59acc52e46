"""The drift gate on a small run against a large baseline of the same scenario.

A designer's smoke test (``simlab report … -n 100 --baseline …``) compares a few
encounters with the nightly's tens of thousands. Nothing changed, so nothing may drift:
a mean whose few values happen to agree (three attacks that all missed, one encounter)
once had an error of 0 and drifted at p < 1e-16, and the encounter length of a few
encounters that all ended early had its error from their own narrow spread. A real
change must still be found.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from simlab import api
from simlab.analysis.drift import DEFAULT_ALPHA, FEWEST_VALUES, DriftReport, compare_results
from simlab.analysis.result import Result
from simlab.report import terminal
from tests.report.report_synthetic import DAMAGE, Truth, synthetic_result
from tests.support import printed_at

ROOT = Path(__file__).resolve().parents[2]
#: Scenarios with status damage (glitters-d20), Momentum (shattered-spirits), an
#: encounter length with a long tail (zones-3d6), and copies in all three.
SCENARIOS = ["glitters-d20/party-vs-monsters", "shattered-spirits/spirits-2v3",
             "zones-3d6/skirmish"]  # fmt: skip
BASELINE = 50_000


def _row(report: DriftReport, figure: str, subject: str) -> object:
    table = report.table
    return table[(table.figure == figure) & (table.subject == subject)].iloc[0]


def _misses(result: Result, attempts: int) -> None:
    """Leave A's attacks on B in ``result`` as ``attempts`` misses, one in each batch."""
    t, pair = result.tallies, result.layout.pair(0, 0, 1)
    for tally in (t.attempts, t.hits, t.crits, t.damage_sum, t.damage_hist):
        tally[pair] = 0
    t.attempts[pair, :attempts] = 1
    t.damage_hist[pair, 0] = attempts


def test_three_misses_are_not_a_mean_damage_of_zero_for_certain() -> None:
    """Three attacks, all misses, in three batches: their batch means agree, so their own
    error was 0 and 2.2 → 0 drifted at p < 1e-16 (three misses at a hit rate of 0.6
    happen 6% of the time). Three values are too few for a normal test: not tested."""
    rng = np.random.default_rng(41)
    base = synthetic_result(Truth(), BASELINE, rng)
    cur = synthetic_result(Truth(), BASELINE, rng)
    _misses(cur, 3)
    report = compare_results([cur], [base])
    row = _row(report, "mean_damage", "A strike → B")
    assert row.test == "none" and math.isnan(row.p_value) and not row.drifted
    assert row.current == 0 and row.baseline > 2
    note = next(n for n in report.notes if "mean damage of A strike → B" in n)
    assert "too few attacks that dealt damage in this run" in note
    assert f"0 in this run; a mean's test needs {FEWEST_VALUES} in each" in note
    assert report.ok


def test_one_encounter_has_no_error_of_its_encounter_length() -> None:
    """``-n 1``: one encounter's length has a spread of 0, and 5.5 → 3 rounds drifted at
    p < 1e-16. One encounter is too few for a normal test of the mean: not tested."""
    rng = np.random.default_rng(42)
    base = synthetic_result(Truth(), BASELINE, rng)
    cur = synthetic_result(Truth(), 1, rng)
    report = compare_results([cur], [base])
    row = _row(report, "mean_rounds", "encounter length")
    assert row.test == "none" and not row.drifted
    assert any("mean encounter length not tested: too few encounters in this run"
               in n for n in report.notes)  # fmt: skip
    assert report.ok


def _batch_mean_se(sums: np.ndarray, counts: np.ndarray) -> tuple[float, float, int]:
    """Mean per unit, its batch-means standard error and df, written out."""
    s, c = sums.astype(float), counts.astype(float)
    b = len(s)
    mean = s.sum() / c.sum()
    return mean, math.sqrt(b / (b - 1) * float(np.sum((s - mean * c) ** 2))) / c.sum(), b - 1


def test_a_small_run_is_tested_with_the_runs_pooled_spread() -> None:
    """A run of 40 encounters (200 attacks a pair) against 50,000: its mean damage is
    tested with the spread per attack the two runs share when nothing changed (each
    run's se² · attacks, weighted by its attacks), not with the 40 encounters' own,
    and its df are Welch–Satterthwaite's for that weighted sum. With as many attacks in
    both runs this is sqrt(se1² + se0²) with Welch's df (tests/report/test_drift_power.py)."""
    rng = np.random.default_rng(43)
    base = synthetic_result(Truth(), BASELINE, rng)
    cur = synthetic_result(Truth(), 40, rng)
    row = _row(compare_results([cur], [base]), "mean_damage", "A strike → B")
    pair = base.layout.pair(0, 0, 1)
    (m1, se1, df1), (m0, se0, df0) = (
        _batch_mean_se(r.tallies.damage_sum[pair], r.tallies.attempts[pair]) for r in (cur, base)
    )
    u1, u0 = (int(r.tallies.attempts[pair].sum()) for r in (cur, base))
    parts = (u1 * u1 * se1**2 / (u1 + u0), u0 * u0 * se0**2 / (u1 + u0))
    se = math.sqrt(sum(parts) * (1 / u1 + 1 / u0))
    df = sum(parts) ** 2 / (parts[0] ** 2 / df1 + parts[1] ** 2 / df0)
    assert row.test == "t" and u1 == 200
    assert row.statistic == pytest.approx((m1 - m0) / se, rel=1e-9)
    assert row.p_value == pytest.approx(2 * sps.t.sf(abs(row.statistic), df), rel=1e-6)
    assert abs(row.statistic) < 3 and not row.drifted


def test_a_real_change_of_mean_damage_in_a_small_run_still_drifts() -> None:
    """Every damaging attack's damage up by 1 (mean +0.7, five tolerances), 100
    encounters against 50,000: drifted."""
    rng = np.random.default_rng(44)
    base = synthetic_result(Truth(), BASELINE, rng)
    cur = synthetic_result(Truth(damage=[DAMAGE[0], 0.0, *DAMAGE[1:]]), 100, rng)
    row = _row(compare_results([cur], [base]), "mean_damage", "A strike → B")
    assert row.test == "t" and row.change > 0.5
    assert row.p_holm < DEFAULT_ALPHA and row.drifted


@pytest.fixture(scope="module")
def baselines() -> list[Result]:
    """The example scenarios at 50,000 encounters, each on its own seed."""
    return [api.simulate(api.load(ROOT / f"scenarios/{name}.yaml"), BASELINE)
            for name in SCENARIOS]  # fmt: skip


def _smoke(n: int, seed: int) -> list[Result]:
    return [api.simulate(api.load(ROOT / f"scenarios/{name}.yaml"), n, seed)
            for name in SCENARIOS]  # fmt: skip


@pytest.mark.parametrize("n", [1, 2, 10, 100])
def test_a_smoke_run_of_an_unchanged_scenario_does_not_drift(
    baselines: list[Result], n: int
) -> None:
    """The walkthrough's ``-n 1``, ``-n 2``, ``-n 10`` and ``-n 100`` against the
    nightly's baseline: mean rounds (one encounter), mean status damage (two without
    any), mean damage of pairs attacked a few times and rare crit rates all drifted,
    with Holm p < 1e-16 or 3e-11."""
    report = compare_results(_smoke(n, seed=3), baselines)
    assert report.ok, report.drifted[["scenario", "figure", "subject", "p_holm"]].to_string()
    assert (report.table.test == "none").any()  # and what could not be tested is said
    assert any("not tested: too few" in note for note in report.notes)


def test_a_smoke_run_of_a_changed_scenario_drifts(baselines: list[Result]) -> None:
    """The Troll's claw a die larger (3d6 for 2d6): 300 encounters find its mean damage
    moved."""
    path = ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml"
    claw = "troll-claw: {damage: 2d6,"
    text = path.read_text()
    assert text.count(claw) == 1
    changed = api.loads(text.replace(claw, "troll-claw: {damage: 3d6,"), path.name)
    report = compare_results([api.simulate(changed, 300, 3)], baselines[:1])
    drifted = set(zip(report.drifted.figure, report.drifted.subject, strict=True))
    assert any(figure == "mean_damage" and subject.startswith("Troll troll-claw")
               for figure, subject in drifted)  # fmt: skip


@pytest.mark.slow
def test_smoke_runs_of_unchanged_scenarios_raise_false_alarms_at_the_holm_level(
    baselines: list[Result],
) -> None:
    """100 smoke runs (20 seeds at 1, 3, 10, 30 and 100 encounters) of three unchanged
    scenarios: the family-wise false-alarm rate stays at Holm's 0.01 (one-sided binomial
    test at the 0.001 level): one drifts. With a mean's error from its own run's spread
    and the z on rare counts, 72 did, every run of 1 or 3 encounters among them."""
    runs = [(n, seed) for n in (1, 3, 10, 30, 100) for seed in range(100, 120)]
    alarms = sum(not compare_results(_smoke(n, seed), baselines).ok for n, seed in runs)
    test = sps.binomtest(alarms, len(runs), DEFAULT_ALPHA, alternative="greater")
    assert test.pvalue > 1e-3, f"{alarms} of {len(runs)} smoke runs drifted"


def _smoke_and_baseline(scenario: str, n: int, baseline: int, seed: int) -> tuple[Result, Result]:
    """A synthetic scenario ``scenario``: a run of ``n`` encounters and its baseline."""
    rng = np.random.default_rng(seed)
    runs = synthetic_result(Truth(), n, rng), synthetic_result(Truth(), baseline, rng)
    for res in runs:
        res.scenario = scenario
    return runs


def test_means_not_tested_for_one_reason_are_one_note_at_80_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A smoke run of a few encounters against the nightly's baseline printed a note of
    three or four lines for each mean not tested (48 to 58 notes for the example
    scenarios at 10 to 100 encounters), nearly all for one reason. The terminal says
    each reason once, with how many means and the first three, within 80 columns; a
    reason of one mean keeps its note, counts and all. ``DriftReport.notes`` (what the
    pages list) keeps a note for every one."""
    pairs = [_smoke_and_baseline(f"smoke-{k}", 3, BASELINE, 60 + k) for k in range(4)]
    pairs.append(_smoke_and_baseline("tiny", 3, 3, 70))
    report = compare_results([cur for cur, _ in pairs], [base for _, base in pairs])
    untested = [n for n in report.notes if " not tested: " in n]
    assert len(untested) == 4 * 3 + 3  # mean damage both ways and mean rounds, each
    sizes, *notes = _printed_notes(report, monkeypatch)
    # first the sample sizes (3 encounters against 50,000; tiny's are alike), then the rest
    assert sizes.startswith("Sample sizes differ: 3 encounters in this run, 50,000 in the "
                            "baseline (smoke-0 (synthetic), smoke-1 (synthetic), smoke-2 "
                            "(synthetic) and 1 more).")  # fmt: skip
    assert len(notes) == 4, notes
    assert notes[0] == (
        "8 means not tested in 4 scenarios: too few attacks that dealt damage in this run "
        f"(a mean's test needs {FEWEST_VALUES} in each): smoke-0 (synthetic): mean damage "
        "of A strike → B, B strike → A; smoke-1 (synthetic): mean damage of A strike → B "
        "and 5 more; every one in report.md"
    )
    assert notes[1].startswith("4 means not tested in 4 scenarios: too few encounters in "
                               "this run (a mean's test needs 30 in each): smoke-0 "
                               "(synthetic): mean encounter length; smoke-1")  # fmt: skip
    assert notes[2] == (
        "2 means not tested: too few attacks that dealt damage in the baseline and in this "
        "run (a mean's test needs 30 in each): tiny (synthetic): mean damage of "
        "A strike → B, B strike → A; every one in report.md"
    )
    (alone,) = [n for n in untested if n.startswith("tiny") and "mean encounter length" in n]
    assert notes[3] == alone and "(3 in the baseline, 3 in this run;" in alone
    groups = report.untested_by_reason()
    assert {reason: len(entries) for reason, entries in groups.items()} == {
        "too few attacks that dealt damage in this run": 8,
        "too few encounters in this run": 4,
        "too few attacks that dealt damage in the baseline and in this run": 2,
        "too few encounters in the baseline and in this run": 1,
    }


def _printed_notes(report: DriftReport, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The notes :func:`terminal.print_drift` prints at 80 columns, each on one line, but
    those on rates left out as repeats (a synthetic scenario's out is its down)."""
    monkeypatch.setenv("COLUMNS", "80")
    text = printed_at(lambda: terminal.print_drift(report, "base.json"))
    assert max(len(line) for line in text.splitlines()) <= 80, text
    notes = [" ".join(note.split()) for note in text.split("  note: ")[1:]]
    return [note for note in notes if " not compared again, " not in note]


def test_baseline_scenarios_left_out_are_one_note(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of one scenario against a nightly baseline of 29 printed a note for each of
    the 28 it left out. The terminal says them in one note, with how many and the first
    three; ``DriftReport.notes`` keeps one each, and one left out keeps its own note."""
    pairs = [_smoke_and_baseline(f"scn-{k}", BASELINE, BASELINE, 80 + k) for k in range(6)]
    report = compare_results([pairs[0][0]], [base for _, base in pairs])
    assert report.not_run == [f"scn-{k} (synthetic)" for k in range(1, 6)]
    assert sum(n.endswith(": in the baseline but not run (not compared)")
               for n in report.notes) == 5  # fmt: skip
    assert _printed_notes(report, monkeypatch) == [
        "5 scenarios in the baseline but not run (not compared): scn-1 (synthetic), "
        "scn-2 (synthetic), scn-3 (synthetic) and 2 more"
    ]
    alone = compare_results([pairs[0][0]], [pairs[0][1], pairs[1][1]])
    assert _printed_notes(alone, monkeypatch) == [
        "scn-1 (synthetic): in the baseline but not run (not compared)"
    ]
