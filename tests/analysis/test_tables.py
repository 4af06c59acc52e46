"""Every table a designer reads, checked value by value against an independent computation.

The tables (``Result.hit_rates``, ``damage``, ``damage_pmf``, ``combatants``,
``time_to_down``, ``win_rates``, ``events``, ``status_damage``) are recomputed here from
the raw integer tallies with numpy and scipy only — intervals from
``scipy.stats.binomtest(...).proportion_ci`` (Wilson; exact Clopper–Pearson when fewer
than 10 successes or failures), batch means and t quantiles written out — never through
``simlab.analysis.stats``. A table that reads the wrong count (a down-rate interval from
the number of encounters it was *not* downed in, say) fails here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import simlab
from simlab.analysis.result import Result

ROOT = Path(__file__).resolve().parents[2]
SKIRMISH = ROOT / "scenarios/zones-3d6/skirmish.yaml"
MONSTERS = ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml"
TOL = 1e-9


@pytest.fixture(scope="module")
def skirmish() -> Result:
    return simlab.simulate(simlab.load(SKIRMISH), n=6_000, seed=21)


@pytest.fixture(scope="module")
def monsters() -> Result:
    return simlab.simulate(simlab.load(MONSTERS), n=4_000, seed=22)


def binomial_ci(k: int, n: int) -> tuple[float, float]:
    """95% interval of k successes in n: Wilson, exact when either side has < 10."""
    method = "exact" if min(k, n - k) < 10 else "wilson"
    ci = sps.binomtest(int(k), int(n)).proportion_ci(0.95, method=method)
    return float(ci.low), float(ci.high)


def batch_means(sums: np.ndarray, counts: np.ndarray) -> tuple[float, float, float]:
    """Ratio mean Σsums/Σcounts with a 95% t interval over the batches that have units."""
    used = counts > 0
    s, c = sums[used].astype(float), counts[used].astype(float)
    b = len(s)
    mean = s.sum() / c.sum()
    se = np.sqrt(b / (b - 1) * np.sum((s - mean * c) ** 2)) / c.sum()
    half = sps.t.ppf(0.975, b - 1) * se
    return mean, mean - half, mean + half


def assert_interval(lo: float, hi: float, ref: tuple[float, float]) -> None:
    assert (lo, hi) == pytest.approx(ref, abs=TOL)


def _pair_tallies(res: Result, row: pd.Series) -> int:
    names = [name for _, name in res.layout.combatants]
    k = res.layout.attacks.index(row.attack)
    return res.layout.pair(names.index(row.attacker), k, names.index(row.defender))


def test_hit_rates_from_the_tallies(skirmish: Result) -> None:
    t = skirmish.tallies
    table = skirmish.hit_rates()
    assert len(table) == int((t.attempts.sum(axis=1) > 0).sum())
    for _, row in table.iterrows():
        p = _pair_tallies(skirmish, row)
        n, hits, crits = int(t.attempts[p].sum()), int(t.hits[p].sum()), int(t.crits[p].sum())
        assert row.attempts == n
        assert row.hit_rate == pytest.approx(hits / n, abs=TOL)
        assert_interval(row.hit_rate_ci95_lo, row.hit_rate_ci95_hi, binomial_ci(hits, n))
        assert row.crit_rate == crits / n == 0.0  # zones-3d6 has no crits
        assert_interval(row.crit_rate_ci95_lo, row.crit_rate_ci95_hi, binomial_ci(crits, n))


def test_damage_and_its_distribution_from_the_tallies(skirmish: Result) -> None:
    t = skirmish.tallies
    pmf = skirmish.damage_pmf()
    table = skirmish.damage()
    assert len(table) == int((t.attempts.sum(axis=1) > 0).sum()) > 0  # a row for every pair
    for _, row in table.iterrows():
        p = _pair_tallies(skirmish, row)
        mean, lo, hi = batch_means(t.damage_sum[p], t.attempts[p])
        assert row.mean_damage == pytest.approx(mean, abs=TOL)
        assert_interval(row.mean_damage_ci95_lo, row.mean_damage_ci95_hi, (lo, hi))
        mine = pmf[(pmf.attacker == row.attacker) & (pmf.attack == row.attack)
                   & (pmf.defender == row.defender)]  # fmt: skip
        hist = t.damage_hist[p]
        assert list(mine.damage) == list(np.flatnonzero(hist))
        # or_more marks the histogram's last bin ("that damage or more") alone
        assert list(mine.or_more) == [d == len(hist) - 1 for d in mine.damage]
        np.testing.assert_allclose(mine.probability, hist[hist > 0] / row.attempts, atol=TOL)
        # The histogram and the batch sums describe the same attacks.
        assert np.dot(np.arange(len(hist)), hist) == t.damage_sum[p].sum()


def _median_over_all(counts: np.ndarray, n: int) -> float:
    """First round by which at least half of all n encounters had it down, by a loop."""
    total = 0
    for r, k in enumerate(counts):
        total += k
        if 2 * total >= n:
            return float(r)
    return float("nan")


def test_combatants_from_the_tallies(skirmish: Result) -> None:
    t, n = skirmish.tallies, skirmish.encounters
    table = skirmish.combatants()
    assert list(table.combatant) == [name for _, name in skirmish.layout.combatants]
    for c, row in table.iterrows():
        downs = int(t.down_round[c].sum())
        assert row.downed == downs and row.down_rate == pytest.approx(downs / n, abs=TOL)
        assert_interval(row.down_rate_ci95_lo, row.down_rate_ci95_hi, binomial_ci(downs, n))
        assert row.capped == t.censor_round[c, -1]
        expected = _median_over_all(t.down_round[c], n)
        assert row.median_time_to_down == pytest.approx(expected, nan_ok=True)
        when = _median_over_all(t.down_round[c], downs) if downs else float("nan")
        assert row.median_time_to_down_when_downed == pytest.approx(when, nan_ok=True)
        assert row.out_rate == pytest.approx(t.event_round[c, 0].sum() / n, abs=TOL)
    # Both kinds occur: some combatants go down in most fights, some in few.
    assert table.median_time_to_down.isna().any() and table.median_time_to_down.notna().any()


def test_time_to_down_from_the_tallies(skirmish: Result) -> None:
    t, n = skirmish.tallies, skirmish.encounters
    table = skirmish.time_to_down()
    rounds = skirmish.layout.max_rounds
    assert len(table) == rounds * len(skirmish.layout.combatants)
    for c, (_, name) in enumerate(skirmish.layout.combatants):
        mine = table[table.combatant == name]
        assert list(mine["round"]) == list(range(1, rounds + 1))
        assert list(mine.downed) == list(t.down_round[c, 1:])
        for r, row in zip(range(1, rounds + 1), mine.itertuples(), strict=True):
            k = int(t.down_round[c, : r + 1].sum())
            assert row.down_by_round == pytest.approx(k / n, abs=TOL)
            assert_interval(row.down_by_round_ci95_lo, row.down_by_round_ci95_hi,
                            binomial_ci(k, n))  # fmt: skip
    assert table.attrs["interval"] == "wilson-pointwise"


def test_win_rates_from_the_tallies(skirmish: Result) -> None:
    t, n = skirmish.tallies, skirmish.encounters
    table = skirmish.win_rates()
    assert list(table.side) == [*skirmish.layout.sides, "draw"]
    assert table.wins.sum() == n
    for row, wins in zip(table.itertuples(), t.winner, strict=True):
        assert row.wins == wins and row.win_rate == pytest.approx(wins / n, abs=TOL)
        assert_interval(row.win_rate_ci95_lo, row.win_rate_ci95_hi, binomial_ci(wins, n))


def test_events_from_the_tallies(monsters: Result) -> None:
    t, n = monsters.tallies, monsters.encounters
    table = monsters.events()
    names = [name for _, name in monsters.layout.combatants]
    assert len(table) == len(names) * len(monsters.layout.events) > 0
    checked = 0
    for row in table.itertuples():
        hist = t.event_round[names.index(row.combatant), monsters.layout.events.index(row.event)]
        k = int(hist.sum())
        assert row.occurred == k and row.rate == pytest.approx(k / n, abs=TOL)
        assert_interval(row.rate_ci95_lo, row.rate_ci95_hi, binomial_ci(k, n))
        if k > 1:
            rounds = np.repeat(np.arange(len(hist)), hist)  # one value per encounter
            half = sps.norm.ppf(0.975) * rounds.std() / np.sqrt(k)
            assert row.mean_round_when_happened == pytest.approx(rounds.mean(), abs=TOL)
            assert_interval(row.mean_round_when_happened_ci95_lo,
                            row.mean_round_when_happened_ci95_hi,
                            (rounds.mean() - half, rounds.mean() + half))  # fmt: skip
            assert row.median_round_when_happened == np.sort(rounds)[(k - 1) // 2]
            checked += 1
    assert checked >= 3


def test_status_damage_from_the_tallies(monsters: Result) -> None:
    t, n = monsters.tallies, monsters.encounters
    batches = t.status_damage.shape[1]
    # Encounter i is in batch i * B // n: count the encounters of each batch one by one.
    per_batch = np.bincount(np.arange(n) * batches // n, minlength=batches)
    table = monsters.status_damage()
    assert (table.mean_status_damage > 0).sum() >= 3
    for c, row in table.iterrows():
        mean, lo, hi = batch_means(t.status_damage[c], per_batch)
        assert row.mean_status_damage == pytest.approx(mean, abs=TOL)
        assert_interval(row.mean_status_damage_ci95_lo, row.mean_status_damage_ci95_hi, (lo, hi))


def test_summary_json_carries_the_same_figures(skirmish: Result) -> None:
    from simlab.analysis.summary import summary

    doc = summary(skirmish)
    combatants = skirmish.combatants()
    curves = skirmish.time_to_down()
    for entry, row in zip(doc["combatants"], combatants.itertuples(), strict=True):
        assert entry["down_rate_ci"] == [row.down_rate_ci95_lo, row.down_rate_ci95_hi]
        ttd = entry["time_to_down"]
        mine = curves[curves.combatant == row.combatant]
        assert ttd["down_by_round"] == {str(r.round): r.down_by_round for r in mine.itertuples()}
        assert ttd["capped"] == row.capped
        median = ttd["median_time_to_down"]
        assert (median is None) == pd.isna(row.median_time_to_down)
    hit = doc["attacks"][0]
    first = skirmish.hit_rates().iloc[0]
    assert hit["hit_rate_ci"] == [first.hit_rate_ci95_lo, first.hit_rate_ci95_hi]


def test_summary_json_event_times_add_up(monsters: Result) -> None:
    """Each event's ``pmf`` sums to its ``rate`` (over all encounters) and its
    ``mean_when_happened`` is that pmf's mean over the rate, from the tallies."""
    from simlab.analysis.summary import summary

    checked = 0
    for c, entry in enumerate(summary(monsters)["combatants"]):
        for e, event in enumerate(monsters.layout.events):
            hist = monsters.tallies.event_round[c, e]
            time = entry["events"][event]["time"]
            assert time["pmf"] == {str(r): hist[r] / monsters.encounters
                                   for r in np.flatnonzero(hist)}  # fmt: skip
            total = sum(time["pmf"].values())
            assert total == pytest.approx(entry["events"][event]["rate"], abs=TOL)
            if hist.sum():
                rounds = sum(int(r) * p for r, p in time["pmf"].items())
                assert time["mean_when_happened"] == pytest.approx(rounds / total, abs=TOL)
                checked += 1
    assert checked >= 3


@pytest.mark.parametrize("level", [0, 1, 1.5, 95, float("nan"), -0.5, True, "0.9", None])
def test_a_bad_level_is_refused_by_every_table(skirmish: Result, level: object) -> None:
    """A notebook's ``level=95`` or ``level="0.9"``: simlab's error, naming the level."""
    from simlab.errors import InputError

    for table in (skirmish.hit_rates, skirmish.damage, skirmish.time_to_down,
                  skirmish.combatants, skirmish.events, skirmish.win_rates):  # fmt: skip
        with pytest.raises(InputError, match="expected a confidence level strictly between"):
            table(level)  # type: ignore[arg-type]


def test_interval_columns_are_named_after_their_own_level(skirmish: Result) -> None:
    """0.951 was named ``ci95`` like 0.95, and 0.999 ``ci100``."""
    columns = {level: set(skirmish.hit_rates(level).columns) for level in (0.95, 0.951, 0.999)}
    assert "hit_rate_ci95_lo" in columns[0.95]
    assert "hit_rate_ci95.1_lo" in columns[0.951] and "hit_rate_ci95_lo" not in columns[0.951]
    assert "hit_rate_ci99.9_hi" in columns[0.999]


@pytest.mark.parametrize("index", [-1, 99, 1.5, "Kaito", True])
def test_a_combatant_index_out_of_range_is_refused(skirmish: Result, index: object) -> None:
    """``down_pmf(-1)`` counted from the end, silently."""
    from simlab.errors import InputError

    said = r"expected a combatant \(Warden, Lancer, .*\) or its index from 0 to 6; got "
    with pytest.raises(InputError, match=said):
        skirmish.down_pmf(index)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=said):
        skirmish.event_pmf(index, 0)  # type: ignore[arg-type]
    assert skirmish.down_pmf(np.int64(0)) == skirmish.down_pmf(0)


def test_a_combatant_and_an_event_are_named_as_every_table_names_them(skirmish: Result) -> None:
    """``down_pmf("Kaito")`` was refused as no index, where every table and plot takes
    the name; a misspelt event is said with the name it is closest to."""
    from simlab.errors import InputError

    names = [name for _, name in skirmish.layout.combatants]
    t = skirmish.tallies
    for c, name in enumerate(names):
        down = skirmish.down_pmf(name)
        assert down == skirmish.down_pmf(c)
        rounds = np.flatnonzero(t.down_round[c])
        assert list(down) == list(rounds)
        assert list(down.values()) == pytest.approx(t.down_round[c][rounds] / skirmish.encounters)
        assert skirmish.event_pmf(name, "out") == skirmish.event_pmf(c, 0)
    with pytest.raises(InputError, match=r"expected an event \(out\) .*; got 'outt'; did you "
                                         r"mean 'out'\?"):  # fmt: skip
        skirmish.event_pmf("Warden", "outt")
    with pytest.raises(InputError, match=r"down_pmf\(\): expected combatant="):
        skirmish.down_pmf()  # type: ignore[call-arg]


def test_per_encounter_names_the_tallies_it_reads(skirmish: Result) -> None:
    from simlab.errors import InputError

    with pytest.raises(InputError, match="expected a per-encounter tally"):
        skirmish.per_encounter("nope")
