"""The drift gate's figures recomputed by hand, and its power to find a real change.

Each comparison row's statistic is recomputed here from the two runs' tallies with
numpy/scipy (a mean difference in units of ``sqrt(se1² + se0²)``, a pooled
two-proportion z, a χ² of homogeneity from ``scipy.stats.chi2_contingency``), so an error
in how the gate combines the two runs' errors fails here. The power tests plant changes
of a stated size in synthetic runs of the nightly's sample size (200,000 encounters) and
require the gate to flag them in a stated share of runs, while a planted null change (the
same probabilities, other dice) is almost never flagged.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from simlab.analysis.drift import compare_results
from simlab.analysis.result import Result
from tests.report.report_synthetic import DAMAGE, Truth, synthetic_result

NIGHTLY = 200_000  # encounters per scenario in the nightly job (README, "Nightly job")
RUNS = 200  # runs per planted change (slow tier)
ZERO = {"rate": 0.0, "pmf": 0.0, "mean": 0.0, "median": 0.0}


def _batch_mean_se(sums: np.ndarray, counts: np.ndarray) -> tuple[float, float, int]:
    """Mean per unit and its batch-means standard error, written out; and its df."""
    s, c = sums.astype(float), counts.astype(float)
    b = len(s)
    mean = s.sum() / c.sum()
    se = math.sqrt(b / (b - 1) * float(np.sum((s - mean * c) ** 2))) / c.sum()
    return mean, se, b - 1


def _row(report: object, figure: str, subject: str) -> object:
    table = report.table  # type: ignore[attr-defined]
    rows = table[(table.figure == figure) & (table.subject == subject)]
    assert len(rows) == 1, (figure, subject)
    return rows.iloc[0]


@pytest.fixture(scope="module")
def pair() -> tuple[Result, Result]:
    rng = np.random.default_rng(5)
    shifted = [0.25, 0.0, 0.1, 0.2, 0.2, 0.15, 0.05, 0.05]  # mean damage up by 0.3
    return (synthetic_result(Truth(damage=shifted), 20_000, rng),
            synthetic_result(Truth(), 20_000, rng))  # fmt: skip


def test_mean_difference_uses_the_root_of_the_summed_variances(pair: tuple) -> None:
    """z = (m1 − m0) / sqrt(se1² + se0²), p from Student t with Welch's df. An error of
    ``se1 + se0`` would shrink z by up to a factor √2 (here about 0.71) and fail."""
    cur, base = pair
    report = compare_results([cur], [base], tolerances={("synthetic", "synthetic"): ZERO})
    p = cur.layout.pair(0, 0, 1)
    m1, se1, df1 = _batch_mean_se(cur.tallies.damage_sum[p], cur.tallies.attempts[p])
    m0, se0, df0 = _batch_mean_se(base.tallies.damage_sum[p], base.tallies.attempts[p])
    row = _row(report, "mean_damage", "A strike → B")
    z = (m1 - m0) / math.sqrt(se1**2 + se0**2)
    assert row.statistic == pytest.approx(z, rel=1e-9)
    assert row.statistic > 3  # a real change: the two errors matter
    welch = (se1**2 + se0**2) ** 2 / (se1**4 / df1 + se0**4 / df0)
    assert row.p_value == pytest.approx(2 * sps.t.sf(abs(z), welch), rel=1e-6)
    assert (row.baseline, row.current) == pytest.approx((m0, m1))


def test_mean_rounds_difference_by_hand(pair: tuple) -> None:
    cur, base = pair
    report = compare_results([cur], [base])
    values = [np.repeat(np.arange(r.tallies.rounds.size), r.tallies.rounds) for r in pair]
    se = math.sqrt(sum(v.var() / v.size for v in values))
    row = _row(report, "mean_rounds", "encounter length")
    assert row.statistic == pytest.approx((values[0].mean() - values[1].mean()) / se, rel=1e-9)


def test_rate_and_distribution_rows_by_hand(pair: tuple) -> None:
    cur, base = pair
    report = compare_results([cur], [base])
    p = cur.layout.pair(0, 0, 1)
    k1, n1 = cur.tallies.hits[p].sum(), cur.tallies.attempts[p].sum()
    k0, n0 = base.tallies.hits[p].sum(), base.tallies.attempts[p].sum()
    pooled = (k1 + k0) / (n1 + n0)
    z = (k1 / n1 - k0 / n0) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n0))
    assert _row(report, "hit_rate", "A strike → B").statistic == pytest.approx(z, rel=1e-9)
    # Time-to-down: rounds 1..R and "never downed" as one more column; all cells dense.
    tables = [np.append(r.tallies.down_round[0, 1:], r.encounters - r.tallies.down_round[0].sum())
              for r in pair]  # fmt: skip
    dense = np.vstack(tables)[:, (tables[0] + tables[1]) > 0]
    assert dense.min() >= 50
    ref = sps.chi2_contingency(dense, correction=False)
    row = _row(report, "time_to_down", "A")
    assert row.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert row.p_value == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-300)


def _flag_share(changed: Truth, figure: str, subject: str, seed: int) -> float:
    """Share of RUNS runs at the nightly's size in which the gate flags the figure."""
    flagged = 0
    for run in range(RUNS):
        rng = np.random.default_rng([seed, run])
        base = synthetic_result(Truth(), NIGHTLY, rng)
        cur = synthetic_result(changed, NIGHTLY, rng)
        drifted = compare_results([cur], [base]).drifted
        flagged += bool(((drifted.figure == figure) & (drifted.subject == subject)).any())
    return flagged / RUNS


# Planted changes, each 1.5 times the default practical tolerance of its kind.
_DOWN_SHIFTED = ([0.0, 0.05, 0.1, 0.15, 0.15, 0.1, 0.05, 0.05, 0.03, 0.0],
                 Truth().down[1])  # down rate +0.03 (tolerance 0.02)  # fmt: skip
_DAMAGE_UP = [x * 1.075 for x in DAMAGE[1:]]
PLANTED = [
    pytest.param(Truth(hit=0.63), "hit_rate", "A strike → B", id="hit-rate+0.03"),
    pytest.param(Truth(down=_DOWN_SHIFTED), "down_rate", "A", id="down-rate+0.03"),
    # Mean damage ×1.075 (tolerance 5%): the distribution is rescaled towards high damage.
    pytest.param(
        Truth(damage=[DAMAGE[0] - (sum(_DAMAGE_UP) - sum(DAMAGE[1:])), *_DAMAGE_UP]),
        "mean_damage",
        "A strike → B",
        id="mean-damage+7.5%",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("changed", "figure", "subject"), PLANTED)
def test_a_planted_change_of_one_and_a_half_tolerances_is_flagged(
    changed: Truth, figure: str, subject: str
) -> None:
    """Power: at 200,000 encounters a change of 1.5× the tolerance is flagged in at least
    95% of runs (here in every run: the change is many standard errors wide, and the
    observed change falls short of the tolerance with probability < 1e-6)."""
    share = _flag_share(changed, figure, subject, seed=1)
    assert share >= 0.95, f"{figure} flagged in only {share:.0%} of runs"


@pytest.mark.slow
def test_a_planted_null_change_is_almost_never_flagged() -> None:
    """The same probabilities on other dice, 200 runs at the nightly's size: no alarm in
    any run (the gate's false-alarm rate on noise is far below 1/200)."""
    alarms = 0
    for run in range(RUNS):
        rng = np.random.default_rng([2, run])
        base = synthetic_result(Truth(), NIGHTLY, rng)
        cur = synthetic_result(Truth(), NIGHTLY, rng)
        alarms += not compare_results([cur], [base]).ok
    assert alarms == 0


def test_a_change_of_one_tolerance_is_flagged_about_half_the_time_not_never() -> None:
    """Significance is not the limit at the nightly's size: a hit-rate change of exactly
    the tolerance (0.02) is significant every time and drifts when the observed change
    reaches 0.02, which happens in about half of the runs."""
    flagged = 0
    runs = 30
    for run in range(runs):
        rng = np.random.default_rng([3, run])
        base = synthetic_result(Truth(), NIGHTLY, rng)
        cur = synthetic_result(Truth(hit=0.62), NIGHTLY, rng)
        report = compare_results([cur], [base])
        row = _row(report, "hit_rate", "A strike → B")
        assert row.significant
        flagged += bool(row.drifted)
    assert 0.15 * runs <= flagged <= 0.85 * runs
