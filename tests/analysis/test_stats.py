"""Tests for simlab.analysis.stats."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pytest
from scipy import special
from scipy import stats as sps

import simlab
from simlab.analysis.stats import (
    clopper_pearson_interval,
    cumulative_incidence,
    first_round_reaching,
    histogram_mean_var,
    histogram_median,
    holm_adjust,
    normal_quantile,
    rate_interval,
    ratio_batch_means,
    ratio_batch_means_many,
    t_quantile,
    t_two_sided_p,
    two_proportion_z,
    wilson_interval,
    z_test,
)
from simlab.errors import InputError
from tests.support import AMBUSH, GLITTERS_DUEL, TIERS_DUEL

CASES = [(0, 1), (0, 10), (10, 10), (1, 10), (3, 10), (9, 10), (0, 250), (17, 250), (500, 1000)]


# --- binomial intervals ------------------------------------------------------------


@pytest.mark.parametrize("level", [0.95, 0.8])
@pytest.mark.parametrize(("k", "n"), CASES)
def test_wilson_matches_scipy(k: int, n: int, level: float) -> None:
    ref = sps.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    lo, hi = wilson_interval(k, n, level)
    assert float(lo) == pytest.approx(ref.low, abs=1e-12)
    assert float(hi) == pytest.approx(ref.high, abs=1e-12)


def test_wilson_direct_formula() -> None:
    k, n, z = 7, 40, sps.norm.ppf(0.975)
    p = k / n
    center = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    lo, hi = wilson_interval(k, n)
    assert float(lo) == pytest.approx(center - half, rel=1e-12)
    assert float(hi) == pytest.approx(center + half, rel=1e-12)


@pytest.mark.parametrize("level", [0.95, 0.99])
@pytest.mark.parametrize(("k", "n"), CASES)
def test_clopper_pearson_matches_scipy(k: int, n: int, level: float) -> None:
    ref = sps.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    lo, hi = clopper_pearson_interval(k, n, level)
    assert float(lo) == pytest.approx(ref.low, abs=1e-12)
    assert float(hi) == pytest.approx(ref.high, abs=1e-12)


# Counts within 10 of either end, as rate_interval gives them (bisection, no scipy).
RARE_CASES = [(1, 2), (5, 19), (9, 100), (1, 10**5), (2, 10**6), (9, 10**8)]


def exact_binomial_cdf(k: int, n: int, p: float) -> Decimal:
    """P(X <= k) for X ~ Binomial(n, p), summed in 60-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 60
        p_ = Decimal(p)
        term = (1 - p_) ** n
        total = term
        for j in range(k):
            term = term * (n - j) / (j + 1) * p_ / (1 - p_)
            total += term
        return +total


@pytest.mark.parametrize("level", [0.95, 0.99])
@pytest.mark.parametrize(("k", "n"), RARE_CASES)
def test_clopper_pearson_rare_bounds_solve_the_binomial_tails(k: int, n: int, level: float) -> None:
    lo, hi = (float(b) for b in clopper_pearson_interval(k, n, level))
    half_alpha = Decimal((1 - level) / 2)
    # The definition: P(X >= k) = alpha/2 at the lower bound, P(X <= k) = alpha/2 at the
    # upper one. scipy's own tails lose up to 1e-9 at n = 10**8, hence the exact sums.
    assert float((1 - exact_binomial_cdf(k - 1, n, lo)) / half_alpha) == pytest.approx(1, abs=1e-12)
    assert float(exact_binomial_cdf(k, n, hi) / half_alpha) == pytest.approx(1, abs=1e-12)
    assert float(special.betaincinv(k, n - k + 1, float(half_alpha))) == pytest.approx(lo, rel=1e-7)
    hi_scipy = float(special.betaincinv(k + 1, n - k, 1 - float(half_alpha)))
    assert hi_scipy == pytest.approx(hi, rel=1e-7)
    # A count near n has the mirrored interval (k successes are n - k failures).
    m_lo, m_hi = (float(b) for b in clopper_pearson_interval(n - k, n, level))
    assert (m_lo, m_hi) == pytest.approx((1 - hi, 1 - lo), abs=1e-15)


def test_clopper_pearson_closed_form_at_zero() -> None:
    lo, hi = clopper_pearson_interval(0, 20)
    assert float(lo) == 0.0
    assert float(hi) == pytest.approx(1 - 0.025 ** (1 / 20), rel=1e-12)


@pytest.mark.parametrize("func", [wilson_interval, clopper_pearson_interval])
def test_intervals_vectorised_and_empty(func: Callable[..., tuple[np.ndarray, np.ndarray]]) -> None:
    k = np.array([k for k, _ in CASES] + [0])
    n = np.array([n for _, n in CASES] + [0])
    lo, hi = func(k, n)
    assert lo.shape == hi.shape == k.shape
    for i in range(len(CASES)):
        one_lo, one_hi = func(k[i], n[i])
        assert lo[i] == float(one_lo) and hi[i] == float(one_hi)
        assert 0.0 <= lo[i] <= k[i] / n[i] <= hi[i] <= 1.0
    assert np.isnan(lo[-1]) and np.isnan(hi[-1])


def test_intervals_reject_bad_counts() -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(5, 3)
    with pytest.raises(InputError, match="level"):
        wilson_interval(1, 3, level=1.0)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.95, 0.99, 0.999])
def test_normal_quantile_matches_scipy(level: float) -> None:
    assert normal_quantile(level) == pytest.approx(sps.norm.ppf(0.5 + level / 2), rel=1e-14)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_t_quantile_matches_scipy(level: float) -> None:
    for df in [*range(1, 65), 100, 255, 1000, 1001, 10**6]:
        expected = float(special.stdtrit(df, 0.5 + level / 2))
        assert t_quantile(df, level) == pytest.approx(expected, rel=1e-11), df


def test_t_quantile_known_values_and_bad_input() -> None:
    assert t_quantile(1, 0.5) == pytest.approx(1.0, rel=1e-14)  # Cauchy: tan(pi/4)
    two_df = math.sqrt(2) * 0.95 / math.sqrt(1 - 0.95**2)  # closed form for 2 degrees
    assert t_quantile(2, 0.95) == pytest.approx(two_df, rel=1e-14)
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_quantile(0, 0.95)
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_quantile(2.5, 0.95)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="level"):
        t_quantile(3, 1.0)


def test_t_two_sided_p_matches_scipy_and_the_quantile() -> None:
    """p = 2 stdtr(df, -|t|), to a relative 1e-8 down to p = 1e-6; and at the quantile
    of a level, the p-value is one minus that level."""
    for df in [1, 2, 3, 4, 5, 10, 31, 64, 255, 1000, 1001, 10**6]:
        for t in [0.0, 0.3, 1.0, 1.96, 2.5, 4.0, -2.5]:
            expected = float(2 * special.stdtr(df, -abs(t)))
            if expected > 1e-6:
                assert t_two_sided_p(t, df) == pytest.approx(expected, rel=1e-8), (df, t)
        assert t_two_sided_p(t_quantile(df, 0.95), df) == pytest.approx(0.05, rel=1e-8)
    assert t_two_sided_p(math.inf, 5) == 0.0 and math.isnan(t_two_sided_p(math.nan, 5))
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_two_sided_p(1.0, 0)


def test_rate_interval_switches_on_rare_events() -> None:
    k = np.array([0, 9, 10, 50, 90, 91, 0])
    n = np.array([100, 100, 100, 100, 100, 100, 0])
    lo, hi, kind = rate_interval(k, n)
    expected = ["clopper-pearson"] * 2 + ["wilson"] * 3 + ["clopper-pearson"] * 2
    assert not np.isnan(lo[:-1]).any() and np.isnan(lo[-1])
    assert kind.tolist() == expected
    w_lo, w_hi = wilson_interval(k, n)
    c_lo, c_hi = clopper_pearson_interval(k, n)
    rare = np.array([e == "clopper-pearson" for e in expected])
    np.testing.assert_array_equal(lo, np.where(rare, c_lo, w_lo))
    np.testing.assert_array_equal(hi, np.where(rare, c_hi, w_hi))


# --- two-proportion test and Holm --------------------------------------------------


def test_two_proportion_z_hand_value() -> None:
    # p1 = 0.6, p2 = 0.4, pooled 0.5: se = sqrt(0.25 * (2/100)) = sqrt(0.005)
    z, p = two_proportion_z(60, 100, 40, 100)
    assert float(z) == pytest.approx(0.2 / math.sqrt(0.005), rel=1e-12)
    assert float(z) == pytest.approx(2.8284271247461903, rel=1e-12)
    assert float(p) == pytest.approx(math.erfc(float(z) / math.sqrt(2)), rel=1e-12)
    z2, p2 = two_proportion_z(40, 100, 60, 100)
    assert float(z2) == -float(z) and float(p2) == float(p)


def test_two_proportion_z_degenerate() -> None:
    z, p = two_proportion_z([0, 5, 0], [10, 10, 0], [0, 5, 1], [20, 10, 5])
    assert z[0] == 0.0 and p[0] == 1.0
    assert z[1] == 0.0 and p[1] == 1.0
    assert np.isnan(z[2]) and np.isnan(p[2])


def test_holm_hand_example() -> None:
    # sorted: 0.01*4=0.04, 0.02*3=0.06, 0.03*2=0.06, 0.04*1=0.04 -> cummax 0.04,0.06,0.06,0.06
    adj = holm_adjust([0.03, 0.01, 0.04, 0.02])
    np.testing.assert_allclose(adj, [0.06, 0.04, 0.06, 0.06], rtol=1e-12)
    np.testing.assert_allclose(holm_adjust([0.5, 0.4]), [0.8, 0.8])
    np.testing.assert_allclose(holm_adjust([0.9, 0.6]), [1.0, 1.0])


def test_holm_monotone_and_nan() -> None:
    rng = np.random.default_rng(7)
    p = rng.uniform(size=50) ** 3
    adj = holm_adjust(p)
    order = np.argsort(p)
    assert np.all(np.diff(adj[order]) >= 0)
    assert np.all(adj >= p) and np.all(adj <= 1.0)
    with_nan = holm_adjust([0.01, np.nan, 0.02])
    assert np.isnan(with_nan[1])
    np.testing.assert_allclose(with_nan[[0, 2]], [0.02, 0.02])
    assert holm_adjust([]).size == 0


# --- batch means -------------------------------------------------------------------


def _simulate_batches(
    rng: np.random.Generator, reps: int, tau: float, mu: float = 3.0, sigma: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    """Batch sums of per-unit values mu + u_b + noise, with a shared batch effect u_b."""
    counts = rng.poisson(40, size=(reps, 32))
    effect = rng.normal(0.0, tau, size=(reps, 32))
    noise = rng.normal(size=(reps, 32)) * sigma * np.sqrt(counts)
    return counts * (mu + effect) + noise, counts


@pytest.mark.parametrize("tau", [0.0, 1.0])
def test_ratio_batch_means_coverage(tau: float) -> None:
    rng = np.random.default_rng(20240611 + int(tau))
    reps = 2000
    sums, counts = _simulate_batches(rng, reps, tau)
    _, lo, hi = ratio_batch_means_many(sums, counts)
    coverage = np.mean((lo <= 3.0) & (hi >= 3.0))
    sigma = math.sqrt(0.95 * 0.05 / reps)
    assert abs(coverage - 0.95) < 4 * sigma


def test_ratio_batch_means_wider_than_naive_with_batch_effect() -> None:
    rng = np.random.default_rng(99)
    counts = rng.poisson(40, size=32)
    effect = rng.normal(0.0, 1.0, size=32)
    values = [3.0 + effect[b] + rng.normal(0.0, 1.0, size=counts[b]) for b in range(32)]
    flat = np.concatenate(values)
    sums = np.array([v.sum() for v in values])
    mean, lo, hi = ratio_batch_means(sums, counts)
    assert mean == pytest.approx(flat.mean(), rel=1e-12)
    naive_half = sps.norm.ppf(0.975) * flat.std(ddof=1) / math.sqrt(flat.size)
    assert (hi - lo) / 2 > 3 * naive_half


def test_ratio_batch_means_hand_value_and_empty_batches() -> None:
    sums = np.array([2.0, 6.0, 4.0, 0.0])
    counts = np.array([1, 2, 1, 0])
    mean, lo, hi = ratio_batch_means(sums, counts)
    assert mean == 3.0
    # residuals -1, 0, 1 over 3 used batches: se = sqrt(3/2 * 2) / 4
    half = sps.t.ppf(0.975, 2) * math.sqrt(3.0) / 4.0
    assert lo == pytest.approx(3.0 - half) and hi == pytest.approx(3.0 + half)
    assert ratio_batch_means(sums[:3], counts[:3]) == (mean, lo, hi)


def test_ratio_batch_means_too_few_batches() -> None:
    mean, lo, hi = ratio_batch_means([5.0, 0.0, 0.0], [2, 0, 0])
    assert mean == 2.5 and math.isnan(lo) and math.isnan(hi)
    mean, lo, hi = ratio_batch_means([0.0, 0.0], [0, 0])
    assert math.isnan(mean) and math.isnan(lo) and math.isnan(hi)


def test_ratio_batch_means_many_matches_single() -> None:
    rng = np.random.default_rng(3)
    sums, counts = _simulate_batches(rng, 5, tau=0.5)
    counts[2, :31] = 0
    mean, lo, hi = ratio_batch_means_many(sums, counts, level=0.9)
    for p in range(5):
        one = ratio_batch_means(sums[p], counts[p], level=0.9)
        np.testing.assert_array_equal([mean[p], lo[p], hi[p]], one)
    with pytest.raises(ValueError, match="same shape"):
        ratio_batch_means_many(sums, counts[:, :3])


# --- histograms ---------------------------------------------------------------------


def test_histogram_mean_var() -> None:
    hist = np.array([0, 3, 0, 1, 6])
    values = np.repeat(np.arange(hist.size) - 2, hist)
    mean, var = histogram_mean_var(hist, offset=-2)
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    assert var == pytest.approx(values.var(), rel=1e-12)
    assert all(math.isnan(x) for x in histogram_mean_var([0, 0]))


# --- time-to-down: cumulative incidence ---------------------------------------------


def test_cumulative_incidence_counts_every_encounter() -> None:
    """P(by round r) divides by all encounters: the never-downed ones (whatever round
    their encounter ended) stay in the denominator. Kaplan–Meier would give 1 − (1/2)(…)
    here; the right answer is simply cumulative counts / n."""
    n = 1000
    counts = np.array([0, 100, 150, 0, 50])  # 300 downed; 700 never (their side won)
    curve = cumulative_incidence(counts, n)
    assert list(curve["round"]) == [1, 2, 3, 4]
    np.testing.assert_allclose(curve.by_round, [0.1, 0.25, 0.25, 0.3], rtol=0, atol=1e-15)
    for row in curve.itertuples():
        ref = sps.binomtest(round(row.by_round * n), n).proportion_ci(method="wilson")
        assert row.by_round_lo == pytest.approx(ref.low, abs=1e-12)
        assert row.by_round_hi == pytest.approx(ref.high, abs=1e-12)
    assert curve.attrs["interval"] == "wilson-pointwise"


def test_cumulative_incidence_rare_rounds_use_clopper_pearson() -> None:
    curve = cumulative_incidence([0, 3, 0, 997], 1000)
    first = curve.iloc[0]
    ref = sps.binomtest(3, 1000).proportion_ci(method="exact")
    assert first.ci_kind == "clopper-pearson"
    assert (first.by_round_lo, first.by_round_hi) == pytest.approx((ref.low, ref.high))
    assert curve.by_round.iloc[-1] == 1.0 and curve.ci_kind.iloc[-1] == "clopper-pearson"


def test_cumulative_incidence_rejects_more_events_than_encounters() -> None:
    with pytest.raises(ValueError, match="at most 10"):
        cumulative_incidence([0, 6, 6], 10)


def test_first_round_reaching_is_the_median_over_all_encounters() -> None:
    rounds = np.arange(1, 6)
    assert first_round_reaching(rounds, [0.1, 0.3, 0.5, 0.7, 0.8]) == 3.0
    assert first_round_reaching(rounds, [0.1, 0.3, 0.4, 0.45, 0.49]) is None
    # A share of one half computed as 0.49999999999999994 still counts as one half.
    assert first_round_reaching(rounds, [0.1, 0.2, 0.3, 0.4, 0.5 - 5e-17]) == 5.0


def test_histogram_median() -> None:
    assert histogram_median([0, 1, 1, 1, 1]) == 2.0  # values 1..4: first reaching half
    assert histogram_median([0, 0, 5, 1]) == 2.0
    assert histogram_median([0, 0, 0]) is None


def test_z_test_reads_rounding_as_no_difference_relative_to_the_figure() -> None:
    """The check against the exact engine and the drift gate's mean test share it: float
    rounding of a large figure (an ulp of 1e6 is 1e-10) is no difference, and a certain
    figure's rounding error is no spread, while a real change of it is infinitely
    unlikely."""
    assert z_test(1.2e-10, 0.0, 1e6)[:2] == (0.0, 1.0)
    assert z_test(1e-13, 5e-15, 999.0) == (0.0, 1.0, 0.0)
    assert z_test(-1.0, 5e-15, 999.0) == (-math.inf, 0.0, 0.0)
    z, p, se = z_test(0.3, 0.1, 5.0)
    assert (z, se) == (pytest.approx(3.0), 0.1)
    assert p == pytest.approx(2 * sps.norm.sf(3.0))


@pytest.mark.parametrize(
    ("text", "earliest"),
    [(GLITTERS_DUEL, [1, 1]), (TIERS_DUEL, [1, 1]), (AMBUSH, [1, 0])],
)
def test_a_median_interval_starts_at_the_first_round_anyone_can_go_down(
    text: str, earliest: list[int]
) -> None:
    """After one encounter every median read ``3 [0, not reached]``: the band of one
    encounter reaches one half at round 0, a round that exists only as opposed-tiers'
    surprise round. The interval starts at the first round the combatant can go down
    (``Layout.first_rounds``): round 1, or round 0 for the enemies of a hidden combatant
    in a surprise round — not the hidden Scout itself, whom nobody attacks in round 0."""
    res = simlab.simulate(simlab.loads(text, "t.yaml"), n=1, seed=3)
    assert res.layout.first_round == min(earliest)
    lows = res.combatants()["median_time_to_down_ci95_lo"]
    assert list(lows) == earliest


def test_only_the_surprised_side_can_go_down_in_round_0() -> None:
    """party-fight's hidden Scout shoots in the surprise round at the raiders; the party
    is attacked from round 1. After a few encounters every median interval started at
    round 0, the party's too; it starts at round 1 for the party and at round 0 for the
    raiders, in the tables and in the specs: a party member's "median time-to-down at
    least 1" no longer reaches past its bound, and passes ``--strict``."""
    from simlab.analysis.specs import evaluate, evaluate_all
    from simlab.report.results import ScenarioRun

    root = Path(__file__).resolve().parents[2]
    res = simlab.simulate(simlab.load(root / "scenarios/opposed-tiers/party-fight.yaml"), n=3,
                          seed=1)  # fmt: skip
    lows = res.combatants().set_index("side")["median_time_to_down_ci95_lo"]
    assert set(lows["party"]) == {1.0} and set(lows["raiders"]) == {0.0}
    spec = {"figure": "median_time_to_down", "combatant": "Warden", "at_least": 1}
    warden = evaluate(res, spec)
    assert warden.lo == 1 and warden.passed and not warden.borderline
    checked = evaluate_all([ScenarioRun(result=res, expect=[spec])], strict=True)
    assert list(checked.verdict) == ["pass"]
