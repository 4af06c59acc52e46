"""Tests for simlab.analysis.stats."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from simlab.analysis.stats import (
    clopper_pearson_interval,
    histogram_mean_var,
    holm_adjust,
    kaplan_meier,
    km_median,
    rate_interval,
    ratio_batch_means,
    ratio_batch_means_many,
    two_proportion_z,
    wilson_interval,
)

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
    with pytest.raises(ValueError, match="level"):
        wilson_interval(1, 3, level=1.0)


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


# --- Kaplan–Meier -------------------------------------------------------------------


def _scipy_km(events: np.ndarray, censored: np.ndarray, level: float) -> pd.DataFrame:
    t = np.arange(events.size)
    data = sps.CensoredData(uncensored=np.repeat(t, events), right=np.repeat(t, censored))
    sf = sps.ecdf(data).sf
    with warnings.catch_warnings():
        # scipy warns where the band is undefined (survival 1 or 0); we skip those rows
        warnings.filterwarnings("ignore", "The confidence interval is undefined")
        ci = sf.confidence_interval(level, method="log-log")
    return pd.DataFrame(
        {
            "time": sf.quantiles,
            "survival": sf.probabilities,
            "lo": ci.low.probabilities,
            "hi": ci.high.probabilities,
        }
    )


@pytest.mark.parametrize("seed", range(6))
def test_kaplan_meier_matches_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(3, 12))
    events = rng.integers(0, 6, size=size)
    censored = rng.integers(0, 3, size=size) * (rng.uniform(size=size) < 0.6)
    events[0] += 1
    level = 0.95 if seed % 2 else 0.9
    km = kaplan_meier(events, censored, level)
    ref = _scipy_km(events, censored, level).set_index("time")
    row = km.set_index("time").loc[ref.index]
    np.testing.assert_allclose(row["survival"], ref["survival"], rtol=0, atol=1e-10)
    inner = (ref["survival"] > 0) & (ref["survival"] < 1)
    np.testing.assert_allclose(row["survival_lo"][inner], ref["lo"][inner], rtol=0, atol=1e-10)
    np.testing.assert_allclose(row["survival_hi"][inner], ref["hi"][inner], rtol=0, atol=1e-10)
    assert km.attrs == {"interval": "greenwood-loglog", "level": level}


def test_kaplan_meier_table_columns() -> None:
    km = kaplan_meier([0, 2, 1, 0, 0], [0, 1, 0, 2, 0])
    assert list(km.columns) == [
        "time",
        "at_risk",
        "events",
        "censored",
        "survival",
        "survival_lo",
        "survival_hi",
    ]
    assert km["time"].tolist() == [0, 1, 2, 3]
    assert km["at_risk"].tolist() == [6, 6, 3, 2]
    np.testing.assert_allclose(km["survival"], [1.0, 4 / 6, 4 / 6 * 2 / 3, 4 / 9])
    assert km.loc[0, "survival_lo"] == km.loc[0, "survival_hi"] == 1.0
    assert np.all(km["survival_lo"] <= km["survival"])
    assert np.all(km["survival"] <= km["survival_hi"])


def test_kaplan_meier_no_censoring() -> None:
    events = np.array([1, 3, 0, 4, 2])
    km = kaplan_meier(events, np.zeros_like(events))
    expected = 1.0 - np.cumsum(events) / events.sum()
    np.testing.assert_allclose(km["survival"], expected, atol=1e-12)
    assert km["survival"].iloc[-1] == 0.0
    assert km["survival_lo"].iloc[-1] == km["survival_hi"].iloc[-1] == 0.0
    ref = _scipy_km(events, np.zeros_like(events), 0.95)
    inner = ref[(ref["survival"] > 0) & (ref["survival"] < 1)]
    got = km.set_index("time").loc[inner["time"]]
    np.testing.assert_allclose(got["survival_lo"], inner["lo"], atol=1e-10)
    np.testing.assert_allclose(got["survival_hi"], inner["hi"], atol=1e-10)
    assert km_median(km) == 3.0


def test_kaplan_meier_all_censored() -> None:
    km = kaplan_meier([0, 0, 0], [2, 0, 5])
    assert km["at_risk"].tolist() == [7, 5, 5]
    assert np.all(km["survival"] == 1.0)
    assert np.all(km["survival_lo"] == 1.0) and np.all(km["survival_hi"] == 1.0)
    assert km_median(km) is None


def test_kaplan_meier_large_counts_and_median() -> None:
    km = kaplan_meier([0, 5_000_000, 5_000_000, 0], [0, 0, 3_000_000, 7_000_000])
    np.testing.assert_allclose(km["survival"], [1.0, 0.75, 0.5, 0.5], rtol=1e-14)
    assert km_median(km) == 2.0
    assert np.all(np.diff(km["survival_hi"] - km["survival_lo"]) >= -1e-15)


def test_kaplan_meier_median_exact_half() -> None:
    km = kaplan_meier([1, 1, 1, 1], [0, 0, 0, 0])
    assert km_median(km) == 1.0
    km = kaplan_meier([0, 1, 0, 0], [1, 0, 0, 2])
    assert km_median(km) is None
