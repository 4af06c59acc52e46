"""The drift gate: its tests, its false-alarm rate on pure noise, and real changes caught."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from simlab import api
from simlab.analysis.drift import (
    DEFAULT_ALPHA,
    DRIFT_COLUMNS,
    DriftReport,
    chi2_homogeneity,
    compare,
    compare_results,
    figure_name,
)
from simlab.analysis.drift import total_variation as tv
from simlab.analysis.result import Result
from simlab.report.render import drift_cells, drift_change, drift_lines, drift_status
from simlab.report.results import ScenarioRun
from tests.report.report_synthetic import Truth, synthetic_result
from tests.support import AMBUSH

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
ROW_7 = "profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]"
# stone-strike's row 7 (the most likely 2d6 total) raised from 4 to 6 damage.
ROW_7_RAISED = "profile: [0, 0, 1, 2, 3, 6, 5, 7, 8, 9, 11]"
ZERO = {"rate": 0.0, "pmf": 0.0, "mean": 0.0, "median": 0.0}
SYNTHETIC = ("synthetic", "synthetic")


def test_chi2_matches_scipy_on_a_dense_table() -> None:
    a, b = np.array([30, 50, 20, 40]), np.array([25, 60, 30, 35])
    stat, df, p = chi2_homogeneity(a, b)
    ref = sps.chi2_contingency(np.vstack([a, b]), correction=False)
    assert stat == pytest.approx(ref.statistic)
    assert df == ref.dof == 3
    assert p == pytest.approx(ref.pvalue)


def test_chi2_merges_sparse_bins_in_order() -> None:
    # The last two bins are sparse (their pooled counts, 3 and 5, give expected counts
    # below 5 in either sample), so they are merged, and the remainder joins bin 1.
    a, b = np.array([40, 40, 1, 2]), np.array([40, 40, 2, 3])
    stat, df, p = chi2_homogeneity(a, b)
    ref = sps.chi2_contingency(np.array([[40, 43], [40, 45]]), correction=False)
    assert df == 1
    assert stat == pytest.approx(ref.statistic)
    assert p == pytest.approx(sps.chi2.sf(ref.statistic, 1))


def test_chi2_degenerate_cases() -> None:
    assert chi2_homogeneity([5, 0], [7, 0])[1:] == (0, 1.0)  # one bin left: nothing to test
    assert math.isnan(chi2_homogeneity([0, 0], [3, 4])[2])


def test_total_variation_by_hand() -> None:
    assert tv([1, 1, 2], [2, 1, 1]) == pytest.approx(0.5 * (0.25 + 0 + 0.25))
    assert tv([3, 0], [6, 0]) == 0.0


def _noise_pairs(seeds: int, n: int = 50_000) -> list[tuple]:
    truth = Truth()
    out = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        out.append((synthetic_result(truth, n, rng), synthetic_result(truth, n, rng)))
    return out


@pytest.fixture(scope="module")
def noise() -> list[tuple]:
    """500 pairs of results drawn from the same probabilities: nothing changed."""
    return _noise_pairs(500)


@pytest.mark.slow
def test_false_alarm_rate_on_noise_is_below_one_percent(noise: list[tuple]) -> None:
    """The gate as shipped (Holm at 0.01 and the default tolerances) on pure noise."""
    alarms = sum(not compare_results([a], [b]).ok for a, b in noise)
    # One-sided 95% Clopper–Pearson upper bound of the false-alarm rate.
    upper = sps.beta.ppf(0.95, alarms + 1, len(noise) - alarms)
    assert upper < 0.01, f"{alarms} false alarms in {len(noise)} runs (bound {upper:.4f})"


@pytest.mark.slow
def test_significance_alone_holds_its_level(noise: list[tuple]) -> None:
    """Without tolerances the tests and Holm alone keep the family-wise rate near alpha."""
    figures = len(compare_results([noise[0][0]], [noise[0][1]]).table)
    assert figures >= 15  # a family for Holm, repeats of a rate left out (drift.Repeats)
    alarms = sum(not compare_results([a], [b], tolerances={SYNTHETIC: ZERO}).ok
                 for a, b in noise)  # fmt: skip
    test = sps.binomtest(alarms, len(noise), DEFAULT_ALPHA, alternative="greater")
    assert test.pvalue > 1e-3, f"{alarms} of {len(noise)} runs flagged at alpha 0.01"


def test_a_changed_hit_rate_is_caught_and_only_what_follows_from_it() -> None:
    rng = np.random.default_rng(11)
    base = synthetic_result(Truth(), 50_000, rng)
    cur = synthetic_result(Truth(hit=0.66), 50_000, rng)
    report = compare_results([cur], [base])
    drifted = set(zip(report.drifted.figure, report.drifted.subject, strict=True))
    assert drifted == {("hit_rate", "A strike → B"), ("hit_rate", "B strike → A")}
    row = report.drifted.iloc[0]
    assert row.change == pytest.approx(0.06, abs=0.01)
    assert row.p_holm < DEFAULT_ALPHA and row.beyond_tolerance


def _one_attack(result: Result, damage: int) -> None:
    """Leave A's attacks on B in ``result`` as one hit of ``damage``, in one batch."""
    t, pair = result.tallies, result.layout.pair(0, 0, 1)
    for tally in (t.attempts, t.hits, t.crits, t.damage_sum, t.damage_hist):
        tally[pair] = 0
    t.attempts[pair, 3], t.hits[pair, 3], t.damage_sum[pair, 3] = 1, 1, damage
    t.damage_hist[pair, damage] = 1


def test_a_mean_of_one_attack_a_run_is_noted_untested_not_drifted() -> None:
    """A pair attacked once in each run (a fight's rare pairing) has no error to test
    its mean damage against: one batch has attacks. It is listed as not tested, with a
    note, where its 5 -> 2 once drifted at p = 0 as if both means were certain."""
    rng = np.random.default_rng(13)
    base, cur = (synthetic_result(Truth(), 50_000, rng) for _ in range(2))
    _one_attack(base, 5)
    _one_attack(cur, 2)
    report = compare_results([cur], [base])
    row = report.table[(report.table.figure == "mean_damage")
                       & (report.table.subject == "A strike → B")].iloc[0]  # fmt: skip
    assert row.test == "none" and math.isnan(row.p_value) and not row.drifted
    assert row.change == -3 and row.beyond_tolerance
    assert any("mean damage of A strike → B not tested" in note for note in report.notes)
    assert drift_status(row) == "not tested"
    other = report.table[report.table.subject == "B strike → A"]
    assert (other[other.figure == "mean_damage"].test == "t").all()
    assert report.ok


def _crit_row(report: DriftReport) -> pd.Series:
    table = report.table
    return table[(table.figure == "crit_rate") & (table.subject == "A strike → B")].iloc[0]


def test_a_rare_rate_of_a_small_run_is_tested_exactly() -> None:
    """1 crit in 20 attacks against a baseline's crit rate of 0.001: the two-proportion z
    read it as p < 1e-6, and the gate drifted (the walkthrough's 1 in 18 against 87 in
    89,594, Holm p = 3.3e-11). Fewer than 10 crits are expected in the small run, so
    the exact test of compare's rare events decides: p = 2 P(X >= 1), X binomial over
    the crits of both runs with the small run's share of the attacks."""
    rng = np.random.default_rng(31)
    base = synthetic_result(Truth(crit=0.0016), 50_000, rng)
    cur = synthetic_result(Truth(crit=0.0016), 4, rng)
    t, pair = cur.tallies, cur.layout.pair(0, 0, 1)
    t.crits[pair] = 0
    t.crits[pair, np.flatnonzero(t.hits[pair])[0]] = 1
    row = _crit_row(compare_results([cur], [base]))
    k0, n0 = base.tallies.crits[pair].sum(), base.tallies.attempts[pair].sum()
    n1 = t.attempts[pair].sum()
    share = n1 / (n0 + n1)
    assert row.test == "exact" and n1 * (k0 + 1) / (n0 + n1) < 10
    assert row.p_value == pytest.approx(2 * (1 - (1 - share) ** (k0 + 1)), rel=1e-9)
    assert 0.01 < row.p_value < 0.1
    assert 2 * sps.norm.sf(abs(row.statistic)) < 1e-6  # what the z said
    assert not row.significant and not row.drifted


def test_a_rare_rate_that_changed_in_a_small_run_still_drifts() -> None:
    """Every hit a crit in the small run (about 12 crits in 20 attacks) against a crit
    rate of 0.001: the exact test finds it."""
    rng = np.random.default_rng(32)
    base = synthetic_result(Truth(crit=0.0016), 50_000, rng)
    cur = synthetic_result(Truth(crit=1.0), 4, rng)
    row = _crit_row(compare_results([cur], [base]))
    assert row.test == "exact" and row.current > 0.3
    assert row.p_holm < DEFAULT_ALPHA and row.drifted


def test_a_change_within_tolerance_is_reported_but_does_not_drift() -> None:
    rng = np.random.default_rng(12)
    base = synthetic_result(Truth(), 400_000, rng)
    cur = synthetic_result(Truth(hit=0.61), 400_000, rng)  # significant, but 0.01 < 0.02
    report = compare_results([cur], [base])
    hits = report.table[report.table.figure == "hit_rate"]
    assert hits.significant.all() and not hits.drifted.any()
    assert report.ok


def _quickstart_run(text: str, seed: int, n: int = 20_000) -> ScenarioRun:
    return api.run_scenario(api.loads(text, "quickstart.yaml"), n, seed)


@pytest.fixture(scope="module")
def quickstart_baseline() -> ScenarioRun:
    return _quickstart_run(QUICKSTART.read_text(), seed=1)


def test_raising_one_profile_row_is_caught(quickstart_baseline: ScenarioRun) -> None:
    text = QUICKSTART.read_text()
    assert ROW_7 in text
    changed = _quickstart_run(text.replace(ROW_7, ROW_7_RAISED), seed=2)
    report = compare([changed], [quickstart_baseline])
    assert not report.ok
    drifted = set(zip(report.drifted.figure, report.drifted.subject, strict=True))
    assert ("damage_pmf", "Brute stone-strike → Kaito") in drifted
    assert ("mean_damage", "Brute stone-strike → Kaito") in drifted
    # Kaito's quick-jab is untouched by the change.
    assert not any(subject.startswith("Kaito quick-jab") for _, subject in drifted)


def test_the_same_scenario_on_other_dice_does_not_drift(
    quickstart_baseline: ScenarioRun,
) -> None:
    again = _quickstart_run(QUICKSTART.read_text(), seed=3)
    report = compare([again], [quickstart_baseline])
    assert report.ok, report.drifted.to_string()
    assert len(report.table) > 15


def test_scenario_tolerances_override_the_defaults(quickstart_baseline: ScenarioRun) -> None:
    text = QUICKSTART.read_text().replace(ROW_7, ROW_7_RAISED)
    text += "\ndrift_tolerance: {rate: 0.5, pmf: 0.5, mean: 1.0, median: 50}\n"
    changed = _quickstart_run(text, seed=2)
    report = compare([changed], [quickstart_baseline])
    assert report.ok
    assert report.table.significant.any()  # it changed, but within the designer's tolerance


def test_unmatched_scenarios_are_noted_not_drifted(quickstart_baseline: ScenarioRun) -> None:
    rng = np.random.default_rng(0)
    report = compare_results([synthetic_result(Truth(), 1000, rng)], [quickstart_baseline.result])
    assert report.ok and report.table.empty
    assert any("no baseline yet" in n for n in report.notes)
    assert any("in the baseline but not run" in n for n in report.notes)


def test_time_to_down_under_another_round_cap_compares_round_with_round() -> None:
    """A changed max_rounds: "never downed" is compared with "never downed", each round
    with the same round. On the same dice the first 12 rounds are the same encounters,
    so the distance is exactly the baseline's share downed after round 12."""
    text = (ROOT / "scenarios/benchmarks/ss-duel.yaml").read_text()
    base = api.run_scenario(api.loads(text, "ss-duel.yaml"), 2000, 1)
    capped = api.run_scenario(api.loads(text.replace("max_rounds: 100", "max_rounds: 12"),
                                        "ss-duel.yaml"), 2000, 1)  # fmt: skip
    table = compare([capped], [base]).table.set_index(["figure", "subject"])
    assert table.loc[("time_to_down", "Attacker"), "change"] == 0.0  # never downed in both
    down = base.result.tallies.down_round[1]
    later = down[13:].sum() / base.result.encounters
    assert later > 0.05
    assert table.loc[("time_to_down", "Defender"), "change"] == pytest.approx(later)


def test_time_to_down_counts_the_falls_of_the_surprise_round() -> None:
    """Without its surprise round the raider falls in round 1 or later instead of round
    0: its time-to-down moved by the share that fell in round 0, and drifts. The gate's
    histogram started at round 1, so those falls were left out of both runs (the
    baseline's time-to-down was a quarter of its encounters)."""
    scenario = api.loads(AMBUSH, "ambush.yaml")
    base = api.run_scenario(scenario, 2000, 4)
    later = api.run_scenario(scenario.with_({"params.surprise_round": False}), 2000, 4)
    rows = compare([later], [base]).table.set_index(["figure", "subject"])
    row = rows.loc[("time_to_down", "Rat")]

    def shares(run: ScenarioRun) -> np.ndarray:
        down = run.result.tallies.down_round[1]
        return np.append(down, run.result.encounters - down.sum()) / run.result.encounters

    assert base.result.tallies.down_round[1][0] > 1000
    assert row.change == pytest.approx(0.5 * np.abs(shares(later) - shares(base)).sum())
    assert row.drifted


def test_a_median_that_did_not_move_is_not_listed_as_changed() -> None:
    """The median row borrows its time-to-down's χ² p: Kaito's median read 7 → 7,
    change 0, "changed, within tolerance" at Holm p < 0.0001. Only a median that moved is
    significant; the time-to-down row still says the distribution changed."""
    rng = np.random.default_rng(21)
    base = synthetic_result(Truth(), 50_000, rng)
    # A's falls in rounds 2 and 3 move to round 3: the curve changes, the median (round
    # 6, by which 55% of encounters had it down) does not.
    down = ([0.0, 0.0, 0.15, 0.15, 0.15, 0.1, 0.05, 0.05, 0.0, 0.0], Truth().down[1])
    cur = synthetic_result(Truth(down=down), 50_000, rng)
    report = compare_results([cur], [base])
    rows = report.table[report.table.subject == "A"].set_index("figure")
    assert rows.loc["time_to_down"].significant
    median = rows.loc["median_time_to_down"]
    assert median.baseline == median.current == 6 and median.change == 0
    assert median.p_holm < DEFAULT_ALPHA  # the distribution's p, still shown
    assert not median.significant and drift_status(median) == "ok"


def test_the_note_of_an_untested_mean_names_the_run_with_too_few_attacks() -> None:
    """The note read "its attacks too few … (1 in the baseline, 20,059 now)", as if the
    20,059 were too few too: it names the run whose attacks are too few."""
    rng = np.random.default_rng(13)
    base, cur = (synthetic_result(Truth(), 50_000, rng) for _ in range(2))
    _one_attack(base, 5)
    report = compare_results([cur], [base])
    note = next(n for n in report.notes if "mean damage of A strike → B" in n)
    assert "too few attacks that dealt damage in the baseline (1 in the baseline" in note
    assert "in this run (" not in note and "and in" not in note
    _one_attack(cur, 2)
    both = compare_results([cur], [base]).notes
    assert any("too few attacks that dealt damage in the baseline and in this run (1 in" in n
               for n in both)  # fmt: skip


def _drift_report(**row: object) -> DriftReport:
    cells = {c: math.nan for c in DRIFT_COLUMNS}
    cells.update(scenario="s", rules="r", subject="Kaito", test="chi2", tolerance=1.0,
                 beyond_tolerance=True, significant=True, drifted=True, p_holm=1e-20)  # fmt: skip
    cells.update(row)
    return DriftReport(pd.DataFrame([cells]), DEFAULT_ALPHA, [])


def test_a_median_no_longer_reached_reads_not_reached_never_inf() -> None:
    """``median_time_to_down Kaito: 6 → not reached (+inf)``: the change of a median one
    run does not reach is said in words, in the table and in the list."""
    report = _drift_report(figure="median_time_to_down", kind="median", baseline=6.0,
                           current=math.nan, change=math.inf)  # fmt: skip
    row = next(report.table.itertuples())
    assert drift_change(row) == "not reached now"
    assert "inf" not in " ".join(drift_cells(row))
    (line,) = drift_lines(report)
    assert "Kaito: 6 → not reached, Holm p" in line and "inf" not in line
    back = _drift_report(figure="median_time_to_down", kind="median", baseline=math.nan,
                         current=6.0, change=math.inf)  # fmt: skip
    assert drift_change(next(back.table.itertuples())) == "reached now"


def test_a_change_has_the_decimals_of_its_figures() -> None:
    """``0.0649 → 0.0122 (-0.05262)`` and ``12.3948 → 5.2325 (-7.162)``: the change is
    written to the figures' four decimals."""
    report = _drift_report(figure="hit_rate", kind="rate", baseline=0.0649, current=0.0122,
                           change=0.0122 - 0.0649)  # fmt: skip
    row = next(report.table.itertuples())
    assert drift_cells(row)[3:6] == ["0.0649", "0.0122", "-0.0527"]
    assert "0.0649 → 0.0122 (-0.0527)" in drift_lines(report)[0]
    mean = _drift_report(figure="mean_damage", kind="mean", baseline=12.3948, current=5.2325,
                         change=5.2325 - 12.3948)  # fmt: skip
    assert drift_cells(next(mean.table.itertuples()))[5] == "-7.1623"


def test_a_figure_below_0_0001_never_reads_as_0() -> None:
    """2 deaths in 50,000 against 5 read ``0.0001 | 0.0000 | -0.0001`` on the page (and in
    report.md and the terminal's drift lines), as if deaths were gone, and a real 0
    read the same: below 0.0001 a figure and its change are written as powers of ten,
    as every figure is (README, "Output files"); a 0 stays 0, a rate just under 1 does
    not read as 1 (:func:`test_a_whole_figure_reads_bare_as_in_the_tables`)."""
    report = _drift_report(figure="dead_rate", kind="rate", baseline=5 / 50_000,
                           current=2 / 50_000, change=2 / 50_000 - 5 / 50_000)  # fmt: skip
    row = next(report.table.itertuples())
    assert drift_cells(row)[3:6] == ["0.0001", "4e-05", "-6e-05"]
    assert "dead rate of Kaito: 0.0001 → 4e-05 (-6e-05), Holm p" in drift_lines(report)[0]
    zero = _drift_report(figure="dead_rate", kind="rate", baseline=0.0, current=2 / 50_000,
                         change=2 / 50_000)  # fmt: skip
    assert drift_cells(next(zero.table.itertuples()))[3:6] == ["0", "4e-05", "+4e-05"]
    high = _drift_report(figure="hit_rate", kind="rate", baseline=0.99996, current=1.0,
                         change=1.0 - 0.99996)  # fmt: skip
    assert drift_cells(next(high.table.itertuples()))[3:6] == ["0.99996", "1", "+4e-05"]


@pytest.mark.parametrize(
    ("figure", "kind", "baseline", "current", "line"),
    [("hit_rate", "rate", 1.0, 0.9494, "hit rate of Kaito: 1 → 0.9494 (-0.0506)"),
     ("crit_rate", "rate", 0.0, 0.0289, "crit rate of Kaito: 0 → 0.0289 (+0.0289)"),
     ("mean_damage", "mean", 4.0, 2.7164, "mean damage of Kaito: 4 → 2.7164 (-1.2836)"),
     ("mean_damage", "mean", 2.7164, 4.0, "mean damage of Kaito: 2.7164 → 4 (+1.2836)")],
)  # fmt: skip
def test_a_whole_figure_reads_bare_as_in_the_tables(
    figure: str, kind: str, baseline: float, current: float, line: str
) -> None:
    """A baseline whose attack always hit, or hit for 4 every time, read ``1.0000 →
    0.9494`` and ``4.0000 → 2.7164``, as if rounded; the tables write such a figure
    bare (``1 (> 0.998)``, ``4``: no spread), and so does the drift line now."""
    report = _drift_report(figure=figure, kind=kind, baseline=baseline, current=current,
                           change=current - baseline)  # fmt: skip
    assert line + ", Holm p" in drift_lines(report)[0]
    cells = drift_cells(next(report.table.itertuples()))
    assert cells[3:5] == line.split(": ")[1].split(" (")[0].split(" → ")


def test_a_median_that_did_not_move_shows_no_p() -> None:
    """``ok | median_time_to_down | Guard | 3 | 3 | 0 | < 0.0001``: the p of an unmoved
    median is its time-to-down's, listed on that row; an ok row shows ``—`` there. A
    median that moved shows its p."""
    still = _drift_report(figure="median_time_to_down", kind="median", baseline=3.0,
                          current=3.0, change=0.0, significant=False, drifted=False)  # fmt: skip
    cells = drift_cells(next(still.table.itertuples()))
    assert cells[0] == "ok" and cells[5] == "0" and cells[6] == "—"
    moved = _drift_report(figure="median_time_to_down", kind="median", baseline=3.0,
                          current=4.0, change=1.0)  # fmt: skip
    assert drift_cells(next(moved.table.itertuples()))[6] == "< 0.0001"


@pytest.mark.parametrize(
    ("scenario", "event", "change"),
    [("zones-3d6/training-duel.yaml", "out", {"Pell.hp": 20}),
     ("shattered-spirits-draft1/quickstart.yaml", "downed", {"Brute.health": 3})],
)  # fmt: skip
def test_an_event_that_is_the_down_itself_is_not_compared_twice(
    scenario: str, event: str, change: dict[str, int]
) -> None:
    """zones-3d6's ``out`` and shattered-spirits-draft1's ``downed`` are the down itself
    (Downed is out; the kernels tally both from one round): their rate beside the down
    rate counted one drift twice and gave Holm's correction one more figure."""
    duel = api.load(ROOT / "scenarios" / scenario)
    baseline = api.simulate(duel, n=2000, seed=1)
    current = api.simulate(duel.with_(change), n=2000, seed=2)
    assert event in current.layout.events
    figures = set(compare_results([current], [baseline]).table.figure)
    assert "down_rate" in figures and f"{event}_rate" not in figures, figures


def test_shattered_spirits_compares_out_beside_the_down_where_they_differ() -> None:
    """shattered-spirits' ``out`` is not the down itself in every case: a ``downed:
    wounds`` character is Downed at its first Wound and out only when its Strain Meter
    fills, so both rates are compared (README, "Balance reports"); a ``defeat``
    combatant's out is its down, the same counts, compared once."""
    party = api.load(ROOT / "scenarios/shattered-spirits/party-3v3.yaml")
    drift = compare_results([api.simulate(party, n=500, seed=2)],
                            [api.simulate(party, n=500, seed=1)])  # fmt: skip
    table = drift.table
    rates = table[table.figure.isin(["down_rate", "out_rate"])].pivot(
        index="subject", columns="figure", values="baseline"
    )
    assert rates.loc["Kaito", "down_rate"] > 0.5 > rates.loc["Kaito", "out_rate"], rates  # wounds
    assert rates.loc["Ogre", "down_rate"] > 0.5 and math.isnan(rates.loc["Ogre", "out_rate"])
    assert any("out rate of Ogre as down rate of Ogre" in note for note in drift.notes)


def test_the_narrow_drift_table_names_each_scenario_once_over_its_figures() -> None:
    """At 80 columns every row began with ``quickstart (shattered-spirits):``, two of its
    three or four lines, before its figure; so did every line of the list of drifted
    figures above it, whose ``Holm p < 1e-16`` broke after its ``<``."""
    from simlab.report import terminal
    from tests.support import printed_at

    quickstart = api.load(QUICKSTART)
    base = api.simulate(quickstart, n=4000, seed=3)
    raised = quickstart.with_({"stone-strike.profile": [0, 0, 1, 2, 3, 6, 5, 7, 8, 9, 11]})
    cur = api.simulate(raised, n=4000, seed=3)
    drift = compare_results([cur], [base])
    moved = drift.table[drift.table.significant | drift.table.drifted]
    assert len(moved) > 2
    text = printed_at(lambda: terminal.print_drift(drift, "baseline.json"), 80)
    listed, _, table = text.partition("statistically different from the baseline")
    listed = listed.split("\n  note: ")[0]  # a note names the scenario of its rates
    assert table.count("quickstart") == 1, table
    assert listed.count("quickstart") == 1, listed  # the list of drifted figures: once too
    assert "Holm p <\n" not in listed and "Holm\n" not in listed, listed  # a p kept whole
    for figure in moved.figure:  # in words, each on one line
        assert any(figure_name(figure) in line for line in table.splitlines()), figure


def test_what_is_gone_since_the_baseline_is_noted_in_the_baselines_order() -> None:
    """The notes on combatants and attack pairs in the baseline only came in the order of
    a set difference, which Python's string hashing draws anew in each process: two
    nights of the same runs wrote report.md and drift.json's notes in other orders. A gone
    pair and a gone combatant were worded apart: ``(in the baseline, not in this run)``
    and ``(in the baseline only)``."""
    text = (ROOT / "scenarios/zones-3d6/skirmish.yaml").read_text().split("\nexpect:")[0]
    renamed = text.replace("name: Raider", "name: Reaver").replace("Cutthroat", "Knifer")
    baseline = api.simulate(api.loads(text), n=300, seed=1)
    current = api.simulate(api.loads(renamed), n=300, seed=1)
    notes = compare_results([current], [baseline]).notes
    gone = [note.split(": ", 1)[1] for note in notes if " is gone " in note]
    names = [name for _, name in baseline.layout.combatants]
    gone_names = [n for n in names if "Raider" in n or n == "Cutthroat"]
    assert [g for g in gone if g.startswith("combatant ")] == [
        f"combatant {name} is gone (in the baseline, not in this run)" for name in gone_names
    ]
    assert all(g.endswith(" is gone (in the baseline, not in this run)") for g in gone), gone
    pairs = [g.split(" is gone ")[0] for g in gone if not g.startswith("combatant ")]
    attacked = np.flatnonzero(baseline.tallies.attempts.sum(axis=1))
    in_baseline = [f"{names[a]} {baseline.layout.attacks[k]} → {names[d]}"
                   for a, k, d in (baseline.layout.unpair(int(p)) for p in attacked)]  # fmt: skip
    assert len(pairs) > 5 and pairs == [p for p in in_baseline if p in pairs], pairs


def test_a_rate_with_the_counts_of_one_compared_is_compared_once() -> None:
    """In a duel fought to defeat (the quickstart), a combatant's out_rate is its down
    rate and a side's win rate the other's down rate: the same counts in both runs. With
    stone-strike's row 7 raised, 12 figures drifted, about 7 changes, and Holm's
    correction counted each repeat as a figure. Each is left out, and a note names it
    with the rate it repeats; where out is not the down (wounds characters of
    party-3v3), out_rate is still compared, and so is a rate no run saw (dead_rate)."""
    text = QUICKSTART.read_text()
    base = api.simulate(api.loads(text), n=4000, seed=3)
    cur = api.simulate(api.loads(text.replace(ROW_7, ROW_7_RAISED)), n=4000, seed=3)
    drift = compare_results([cur], [base])
    rates = drift.table[drift.table.kind == "rate"]
    assert not rates.figure.isin(["out_rate", "win_rate"]).any(), rates
    assert (rates.figure == "down_rate").sum() == 2
    # no one died in either run: two rates of 0 are no repeat of each other
    assert (rates[rates.figure == "dead_rate"].current == 0).sum() == 2
    assert set(drift.drifted.figure) >= {"down_rate", "damage_pmf"}
    (note,) = [n for n in drift.notes if "not compared again" in n]
    names = [name for _, name in cur.layout.combatants]
    out = cur.layout.events.index("out")
    for res in (cur, base):  # the claim the note makes, from the tallies
        t = res.tallies
        for c in range(len(names)):
            assert t.event_round[c, out].sum() == t.down_round[c].sum()
        for side, winner in zip(res.layout.sides, t.winner, strict=False):
            loser = next(i for i, (s, _) in enumerate(res.layout.combatants) if s != side)
            assert winner == t.down_round[loser].sum()
    for c, name in enumerate(names):
        assert f"out rate of {name} as down rate of {name}" in note
        loser = names[1 - c]
        assert f"win rate of {cur.layout.combatants[c][0]} as down rate of {loser}" in note
    assert note.startswith("quickstart (shattered-spirits): 4 rates not compared again")

    party = (ROOT / "scenarios/shattered-spirits/party-3v3.yaml").read_text()
    party = party.split("\nexpect:")[0]
    base = api.simulate(api.loads(party), n=300, seed=1)
    cur = api.simulate(api.loads(party), n=300, seed=2)
    drift = compare_results([cur], [base])
    assert (drift.table.figure == "out_rate").sum() >= 3, drift.notes
