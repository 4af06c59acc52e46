"""The drift gate: which figures of a run moved away from a saved baseline.

Every figure two runs share is compared with a test suited to its kind:

========  ==========================================  =====================================
kind      figures                                     test
========  ==========================================  =====================================
rate      hit, crit, down, event, win and draw rates  pooled two-proportion z; where a run
                                                      expects fewer than 10 events (or
                                                      non-events), the exact test of
                                                      ``simlab compare``'s rare events
pmf       damage per attack, time-to-down per         χ² of homogeneity (2 × K, adjacent
          combatant (never downed is a bin),          sparse bins merged until every
          encounter length                            expected count is ≥ 5)
mean      mean damage per attack, mean rounds,        t from the two runs' batch-means
          mean damage from statuses per encounter     errors pooled (the spread they share
          (systems that tally it)                     if nothing changed), z from the
                                                      histogram variance for rounds; none
                                                      (noted) when a run's mean rests on
                                                      fewer than 30 values that are not
                                                      0, or neither run's values fall in
                                                      2 batches, unless the means are
                                                      the same
median    median time-to-down (round by which half    the χ² of its time-to-down, and only
          of all encounters had it downed)            if the median itself moved: a median
                                                      that did not move is never listed
                                                      as changed, whatever the p
========  ==========================================  =====================================

A rate whose counts are, in both runs, those of a rate compared before it in its
scenario is left out, with a note (in a duel fought to defeat, ``out_rate`` is the down
rate and a side's win rate the other's down rate): one change is one figure, to the
reader and to Holm's correction. A rate of 0, or of 1, in both runs repeats nothing.

The p-values of all figures of a run (every scenario together) are Holm-adjusted. A
figure **drifts** only when its adjusted p is below ``alpha`` (default 0.01) *and* its
change reaches the practical tolerance of its kind (the scenario's ``drift_tolerance:``,
see :class:`simlab.scenario.common.DriftTolerance`): absolute change for rates, total
variation distance for distributions, change relative to max(|baseline|, 1) for means,
rounds for medians. A figure is **significant** (``changed, within tolerance`` on the
pages when it does not drift) when its adjusted p is below ``alpha``; a median
time-to-down only when, besides, the median itself moved (baseline and current differ):
its p is its time-to-down distribution's, and a distribution that changed around an
unmoved median is not a changed median. Monte Carlo noise alone therefore almost never
raises an alarm (Holm keeps the chance of any false significance below ``alpha``), and a
tiny real change that does not matter to a designer does not either.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats as sps

from simlab.analysis import stats
from simlab.analysis.names import (  # re-exported: the drift table's names
    FIGURE_NAMES,
    OF_THE_ENCOUNTER,
    event_rate,
    event_rate_name,
    figure_name,
)
from simlab.analysis.result import Result, median_time_to_down
from simlab.report.words import counted
from simlab.rules import RULE_SYSTEMS, down_events

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_TOLERANCE",
    "DRIFT_COLUMNS",
    "FIGURE_NAMES",
    "DriftReport",
    "Provenance",
    "Repeats",
    "SampleSizes",
    "Untested",
    "chi2_homogeneity",
    "compare",
    "compare_results",
    "event_rate",
    "event_rate_name",
    "figure_name",
    "figure_said",
    "subject_said",
    "total_variation",
]

DEFAULT_ALPHA = 0.01
#: Practical tolerances by figure kind (see the module docstring).
DEFAULT_TOLERANCE: dict[str, float] = {"rate": 0.02, "pmf": 0.05, "mean": 0.05, "median": 1.0}
#: Smallest expected count of a χ² cell; sparser adjacent bins are merged.
MIN_EXPECTED = 5.0
DRIFT_COLUMNS = ["scenario", "rules", "figure", "subject", "kind", "test", "baseline", "current",
                 "change", "statistic", "p_value", "tolerance", "beyond_tolerance",
                 "p_holm", "significant", "drifted"]  # fmt: skip


def subject_said(figure: str, subject: str) -> str:
    """A drift row's subject as a table shows it beside the figure's name: "" for a
    figure of the whole encounter, whose name says it (:data:`OF_THE_ENCOUNTER`)."""
    return "" if figure in OF_THE_ENCOUNTER else subject


def figure_said(figure: str, subject: str) -> str:
    """A drift figure with its subject in words, as lines and notes name it: ``damage
    distribution of Kaito quick-jab → Brute``, ``down rate of Kaito``; ``encounter
    length`` alone (:func:`subject_said`)."""
    of = subject_said(figure, subject)
    return f"{figure_name(figure)} of {of}" if of else figure_name(figure)


def total_variation(a: np.ndarray, b: np.ndarray) -> float:
    """Total variation distance between two histograms, each normalised to 1."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.sum() == 0 or b.sum() == 0:
        return math.nan
    return float(0.5 * np.abs(a / a.sum() - b / b.sum()).sum())


def _merge_sparse(a: np.ndarray, b: np.ndarray, min_expected: float) -> tuple[list, list]:
    """Merge adjacent bins until each merged bin's smaller expected count is ≥ the minimum."""
    na, nb = a.sum(), b.sum()
    share = min(na, nb) / (na + nb)
    out_a: list[float] = []
    out_b: list[float] = []
    acc_a = acc_b = 0.0
    for x, y in zip(a, b, strict=True):
        acc_a += x
        acc_b += y
        if (acc_a + acc_b) * share >= min_expected:
            out_a.append(acc_a)
            out_b.append(acc_b)
            acc_a = acc_b = 0.0
    if acc_a + acc_b > 0:
        if out_a:
            out_a[-1] += acc_a
            out_b[-1] += acc_b
        else:
            out_a.append(acc_a)
            out_b.append(acc_b)
    return out_a, out_b


def chi2_homogeneity(
    a: np.ndarray, b: np.ndarray, min_expected: float = MIN_EXPECTED
) -> tuple[float, int, float]:
    """χ² test that two histograms over the same bins come from one distribution.

    Parameters
    ----------
    a, b : array_like of int
        Counts per bin of the two samples.
    min_expected : float
        Adjacent bins are merged (in bin order) until the smaller sample's expected
        count in every merged bin is at least this; a remainder joins the last bin.

    Returns
    -------
    statistic, df, p : float, int, float
        Pearson's statistic over the 2 × K table, its K − 1 degrees of freedom and
        the p-value; ``(0, 0, 1)`` when fewer than two bins remain, NaNs when a sample
        is empty.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    na, nb = a.sum(), b.sum()
    if na == 0 or nb == 0:
        return math.nan, 0, math.nan
    keep = (a + b) > 0
    ma, mb = (np.asarray(x) for x in _merge_sparse(a[keep], b[keep], min_expected))
    if ma.size < 2:
        return 0.0, 0, 1.0
    total = ma + mb
    ea, eb = na * total / (na + nb), nb * total / (na + nb)
    statistic = float(((ma - ea) ** 2 / ea).sum() + ((mb - eb) ** 2 / eb).sum())
    df = int(ma.size - 1)
    return statistic, df, float(sps.chi2.sf(statistic, df))


def _batch_se(sums: np.ndarray, counts: np.ndarray) -> tuple[float, float, int]:
    """Mean per unit, its batch-means standard error (see stats.ratio_batch_means) and
    the degrees of freedom of that error (batches used − 1)."""
    level = 0.95
    mean, lo, hi = stats.ratio_batch_means(sums, counts, level)
    used = int((np.asarray(counts) > 0).sum())
    if used < 2 or not math.isfinite(lo):
        return mean, math.nan, 0
    # the quantile that made the interval (stats.t_quantile), so the error comes back exact
    return mean, (hi - lo) / (2.0 * stats.t_quantile(used - 1, level)), used - 1


#: The fewest values that are not 0 a run's mean must rest on to be tested (attacks that
#: dealt damage; batches with status damage or Momentum spent; encounters, for the
#: encounter length): the usual count for a mean's normal approximation. A mean of fewer,
#: mostly 0 and the rest skewed, is far from normal in the tails Holm's correction
#: reads: one attack that crits for 30 against a mean of 3 is no 9-sigma event.
FEWEST_VALUES = 30


class _Mean(NamedTuple):
    """One run's mean of a figure, for :meth:`_Rows.mean`.

    Attributes
    ----------
    mean, se, df : float
        The mean, its standard error (NaN where none can be computed: its units fall
        in fewer than 2 batches) and that error's degrees of freedom (``inf`` for an
        error from every unit).
    units : int
        The attacks or encounters averaged.
    values : int
        Of those, the values that are not 0, which the mean rests on
        (:data:`FEWEST_VALUES`).
    """

    mean: float
    se: float
    df: float
    units: int
    values: int


class Untested(NamedTuple):
    """A mean the gate did not test (:data:`FEWEST_VALUES`), as its note says it.

    Attributes
    ----------
    scenario : str
        ``scenario (rules)``, as notes name it.
    figure, subject : str
        The figure (``mean_damage``) and what it is of (``Kaito quick-jab → Ogre``).
    reason : str
        Why, in words every mean untested for that reason shares (``too few attacks
        that dealt damage in this run``), without the counts of values.
    note : str
        The whole note, counts of values included (``DriftReport.notes`` has it too).
    """

    scenario: str
    figure: str
    subject: str
    reason: str
    note: str


class SampleSizes(NamedTuple):
    """The encounters of one scenario compared, in the baseline and in this run.

    A test's power follows the smaller of the two: a run of fewer encounters than the
    baseline's detects only larger changes, which a reader of "no figure drifted"
    should know (:meth:`DriftReport.sizes_differ`).

    Attributes
    ----------
    scenario, rules : str
        The scenario compared.
    baseline, current : int
        Its encounters in the baseline and in this run.
    """

    scenario: str
    rules: str
    baseline: int
    current: int


class Provenance(NamedTuple):
    """What one scenario compared was run with, in the baseline and in this run.

    A baseline simulated by another simlab may differ by simlab's own changes, not the
    rules'; one of another seed does not share this run's dice (:meth:`DriftReport.caveats`).

    Attributes
    ----------
    scenario, rules : str
        The scenario compared.
    baseline_seed, seed : int
        Its seed in the baseline and in this run.
    baseline_version, version : str
        The simlab versions that simulated it (``""`` where not known: results from
        Python, not a file).
    baseline_tolerance, tolerance : dict or None
        Its practical tolerances by kind (``drift_tolerance:``, defaults filled in) in
        the baseline and in this run; None where not known. The gate applies this run's.
    """

    scenario: str
    rules: str
    baseline_seed: int
    seed: int
    baseline_version: str = ""
    version: str = ""
    baseline_tolerance: dict[str, float] | None = None
    tolerance: dict[str, float] | None = None


class Repeats(NamedTuple):
    """One scenario's rates left out as repeats of a rate compared before them.

    Attributes
    ----------
    label : str
        The scenario, ``quickstart (shattered-spirits)``.
    rates : list of (str, str)
        Each rate left out (``out rate of Kaito``, :func:`figure_said`) with the rate
        compared whose counts it has in both runs (``down rate of Kaito``).
    note : str
        The scenario's note on them, as ``DriftReport.notes`` holds it.
    """

    label: str
    rates: list[tuple[str, str]]
    note: str


def _pooled_error(cur: _Mean, base: _Mean) -> tuple[float, float]:
    """Standard error of the difference of two runs' means, and its degrees of freedom.

    What the gate tests is that nothing changed, and then the two runs' values share
    one spread, as the rate test shares one rate: its variance per unit is the
    unit-weighted mean of each run's ``se² · units`` (over the runs whose error could
    be computed), and the error of the difference is ``sqrt(var · (1/units₁ +
    1/units₀))``, with Welch–Satterthwaite's degrees of freedom for that weighted sum.
    For two runs of as many units this is ``sqrt(se₁² + se₀²)`` with Welch's df. A
    small run's own spread is no estimate of its error: three attacks that all missed
    have none, and a few encounters that all ended early miss the long ones that make
    the spread (the encounter length of 30 skirmishes read as p = 2e-6 from their own
    spread; at the baseline's, 0.008). NaN when neither run's error was computed.

    Parameters
    ----------
    cur, base : _Mean
        This run's and the baseline's mean.
    """
    used = [m for m in (cur, base) if math.isfinite(m.se)]
    if not used:
        return math.nan, math.inf
    units = sum(m.units for m in used)
    parts = [m.units * m.units * m.se**2 / units for m in used]  # weight × variance per unit
    var = sum(parts)
    den = sum(part**2 / m.df for part, m in zip(parts, used, strict=True))
    return math.sqrt(var * (1 / cur.units + 1 / base.units)), var**2 / den if den > 0 else math.inf


# -- figures of one scenario ---------------------------------------------------------------


def threshold(kind: str, tolerance: float, baseline: float) -> float:
    """The change a figure of ``kind`` must reach to be beyond its ``tolerance``: the
    tolerance itself, relative for a mean (× max(|baseline|, 1))."""
    return tolerance * max(abs(baseline), 1.0) if kind == "mean" else tolerance


def full_tolerance(given: dict[str, float] | None) -> dict[str, float]:
    """Tolerances by kind as the gate applies them: ``given`` over
    :data:`DEFAULT_TOLERANCE`."""
    return {**DEFAULT_TOLERANCE, **(given or {})}


@dataclass
class _Rows:
    scenario: str
    rules: str
    tolerance: dict[str, float]
    rows: list[dict[str, Any]] = field(default_factory=list)
    pending: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    untested: list[Untested] = field(default_factory=list)
    pairs: dict[tuple[str, str, str], tuple[str, str, str]] = field(default_factory=dict)
    #: The rates compared, by their counts in both runs (this run's k of n, the baseline's).
    counted: dict[tuple[int, int, int, int], str] = field(default_factory=dict)
    #: The rates left out as repeats: each with the rate compared whose counts it has.
    repeats: list[tuple[str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``scenario (rules)``, for notes."""
        return f"{self.scenario} ({self.rules})"

    def add(self, figure: str, subject: str, kind: str, test: str, baseline: float,
            current: float, change: float, statistic: float, p: float) -> None:  # fmt: skip
        tol = self.tolerance[kind]
        beyond = abs(change) >= threshold(kind, tol, baseline)
        self.rows.append({"scenario": self.scenario, "rules": self.rules, "figure": figure,
                          "subject": subject, "kind": kind, "test": test, "baseline": baseline,
                          "current": current, "change": change, "statistic": statistic,
                          "p_value": p, "tolerance": tol,
                          "beyond_tolerance": bool(beyond)})  # fmt: skip

    def rate(self, figure: str, subject: str, k1: int, n1: int, k0: int, n0: int) -> None:
        """Queue a two-proportion z test; :meth:`run_rates` does them all at once. A rate
        whose counts are, in both runs, those of a rate already queued is left out and
        recorded in ``repeats`` (:meth:`repeats_note`)."""
        counts, named = (k1, n1, k0, n0), figure_said(figure, subject)
        if counts in self.counted:
            self.repeats.append((named, self.counted[counts]))
            return
        # a rate neither run saw (or that always happened) repeats nothing: that two
        # events never happened says nothing of their being one
        if 0 < k1 + k0 < n1 + n0:
            self.counted[counts] = named
        r1, r0 = k1 / n1, k0 / n0
        self.add(figure, subject, "rate", "z", r0, r1, r1 - r0, math.nan, math.nan)
        self.pending.append((len(self.rows) - 1, k1, n1, k0, n0))

    def run_rates(self) -> None:
        """The queued rate tests: the pooled two-proportion z, or where a run expects
        few events (:func:`_few_expected`) the exact test of ``simlab compare``'s rare
        events (:func:`simlab.analysis.stats.exact_rate_difference`); the row keeps
        its z as the statistic, for scale."""
        if not self.pending:
            return
        _, k1, n1, k0, n0 = (np.asarray(x) for x in zip(*self.pending, strict=True))
        z, p = stats.two_proportion_z(k1, n1, k0, n0)
        for (i, *counts), zi, pi in zip(self.pending, z, p, strict=True):
            row = self.rows[i]
            row["statistic"], row["p_value"] = float(zi), float(pi)
            if _few_expected(*counts):
                a, m, b, n = counts  # this run's a of m, the baseline's b of n
                row["test"], row["p_value"] = "exact", stats.exact_rate_difference(b, n, a, m)[2]
        self.pending.clear()

    def repeats_note(self) -> str | None:
        """The note on the rates left out as repeats (None when none was): in a duel
        fought to defeat, a combatant's ``out_rate`` is its down rate and a side's win
        rate the other's, the same counts in both runs, which would say one change two
        or three times and count it so in Holm's correction."""
        if not self.repeats:
            return None
        said = ", ".join(f"{named} as {compared}" for named, compared in self.repeats)
        return (f"{self.label}: {counted(len(self.repeats), 'rate')} not compared again, each "
                f"with the counts of a rate compared, in both runs: {said}")  # fmt: skip

    def pmf(self, figure: str, subject: str, h1: np.ndarray, h0: np.ndarray) -> float:
        size = max(len(h1), len(h0))
        a = np.pad(np.asarray(h1), (0, size - len(h1)))
        b = np.pad(np.asarray(h0), (0, size - len(h0)))
        statistic, _, p = chi2_homogeneity(a, b)
        self.add(figure, subject, "pmf", "chi2", math.nan, math.nan, total_variation(a, b),
                 statistic, p)  # fmt: skip
        return p

    def mean(self, figure: str, subject: str, cur: _Mean, base: _Mean) -> bool:
        """Difference of two means in standard errors of the runs' pooled spread
        (:func:`_pooled_error`); Student t with its df when the errors are themselves
        estimated from few batches. A mean that one run has fewer than
        :data:`FEWEST_VALUES` values for, or that neither run can estimate an error of,
        is listed untested (test ``none``, no p-value, never drifted) unless the two
        means are the same; returns whether it was tested."""
        m1, m0 = cur.mean, base.mean
        se, df = _pooled_error(cur, base)
        same = abs(m1 - m0) <= stats.ROUNDING * max(1.0, abs(m1), abs(m0))
        enough = min(cur.values, base.values) >= FEWEST_VALUES and math.isfinite(se)
        if not (same or enough):
            self.add(figure, subject, "mean", "none", m0, m1, m1 - m0, math.nan, math.nan)
            return False
        z, p, _ = stats.z_test(m1 - m0, se, max(abs(m1), abs(m0)))
        if math.isfinite(df) and math.isfinite(z):
            p = float(2.0 * sps.t.sf(abs(z), df))
        self.add(figure, subject, "mean", "t" if math.isfinite(df) else "z", m0, m1,
                 m1 - m0, z, p)  # fmt: skip
        return True


def _few_expected(k1: int, n1: int, k0: int, n0: int) -> bool:
    """Whether a run expects fewer than :data:`~simlab.analysis.stats.RARE_EVENT_THRESHOLD`
    events, or non-events, at the two runs' pooled rate: the count below which the rate
    intervals and ``run --check`` leave the normal approximation, and below which the
    two-proportion z is far from normal (1 crit in 18 attacks against 87 in 89,594 read
    as p = 1.4e-13; the exact test gives 0.035)."""
    return stats.few_expected(min(n1, n0), (k1 + k0) / (n1 + n0))


#: The note on a combatant or an attack pair of the baseline's that this run lacks, after
#: its name (as ``is new (not in the baseline)`` is the note on one the baseline lacks).
GONE = "is gone (in the baseline, not in this run)"


def _pairs(res: Result) -> dict[tuple[str, str, str], int]:
    names = [name for _, name in res.layout.combatants]
    out = {}
    for p in np.flatnonzero(res.tallies.attempts.sum(axis=1)):
        a, k, d = res.layout.unpair(int(p))
        out[(names[a], res.layout.attacks[k], names[d])] = int(p)
    return out


def _attack_rows(rows: _Rows, cur: Result, base: Result, notes: list[str]) -> None:
    c_pairs, b_pairs = _pairs(cur), _pairs(base)
    tc, tb = cur.tallies, base.tallies
    for pair, pc in c_pairs.items():
        subject = f"{pair[0]} {pair[1]} → {pair[2]}"
        rows.pairs[rows.scenario, rows.rules, subject] = pair
        pb = b_pairs.get(pair)
        if pb is None:
            notes.append(f"{rows.label}: {subject} is new (not in the baseline)")
            continue
        n1, n0 = int(tc.attempts[pc].sum()), int(tb.attempts[pb].sum())
        rows.rate("hit_rate", subject, int(tc.hits[pc].sum()), n1, int(tb.hits[pb].sum()), n0)
        k1, k0 = int(tc.crits[pc].sum()), int(tb.crits[pb].sum())
        if k1 or k0:
            rows.rate("crit_rate", subject, k1, n1, k0, n0)
        m1, m0 = _damage_mean(cur, pc), _damage_mean(base, pb)
        if not rows.mean("mean_damage", subject, m1, m0):
            notes.append(_untested(rows, "mean_damage", subject, m1, m0,
                                   "attacks that dealt damage"))  # fmt: skip
        rows.pmf("damage_pmf", subject, tc.damage_hist[pc], tb.damage_hist[pb])
    for pair in [pair for pair in b_pairs if pair not in c_pairs]:  # the baseline's order
        notes.append(f"{rows.label}: {pair[0]} {pair[1]} → {pair[2]} {GONE}")


def _damage_mean(res: Result, p: int) -> _Mean:
    """Mean damage per attack of pair ``p``, its batch-means error, and its attacks, of
    which those that dealt damage are what it rests on."""
    t = res.tallies
    mean, se, df = _batch_se(t.damage_sum[p], t.attempts[p])
    return _Mean(mean, se, df, int(t.attempts[p].sum()), int(t.damage_hist[p, 1:].sum()))


def _untested(rows: _Rows, figure: str, subject: str, cur: _Mean, base: _Mean,
              values: str) -> str:  # fmt: skip
    """The note on a mean not tested: which run has too few ``values`` (that are not 0)
    for a normal test, and how many each has; or that neither could estimate an error.
    Recorded in ``rows.untested`` with its reason, for notes grouped by reason."""
    runs = [run for run, m in (("the baseline", base), ("this run", cur))
            if m.values < FEWEST_VALUES]  # fmt: skip
    if not runs:
        reason = ("no error can be estimated (in each run, its values fall in fewer than 2 "
                  "batches)")  # fmt: skip
        note = f"{rows.label}: {figure_said(figure, subject)} not tested: {reason}"
    else:
        reason = f"too few {values} in {' and in '.join(runs)}"
        note = (f"{rows.label}: {figure_said(figure, subject)} not tested: {reason} "
                f"({base.values:,} in the baseline, {cur.values:,} in this run; a mean's "
                f"test needs {FEWEST_VALUES} in each)")  # fmt: skip
    rows.untested.append(Untested(rows.label, figure, subject, reason, note))
    return note


def _ttd_hist(res: Result, c: int, rounds: int) -> np.ndarray:
    """First-down round counts, rounds 0..``rounds`` (round 0: opposed-tiers' surprise
    round; 0 past the run's round cap), then one bin for never downed."""
    down = res.tallies.down_round[c]
    by_round = np.zeros(rounds + 1, dtype=down.dtype)
    by_round[: len(down)] = down
    return np.append(by_round, res.encounters - down.sum())


def _median(res: Result, c: int) -> float | None:
    """Round by which half of all encounters had combatant ``c`` downed (None: never)."""
    median = median_time_to_down(res.tallies.down_round[c], res.encounters)[0]
    return None if math.isnan(median) else median


def _combatant_rows(rows: _Rows, cur: Result, base: Result, notes: list[str]) -> None:
    b_index = {name: c for c, (_, name) in enumerate(base.layout.combatants)}
    n1, n0 = cur.encounters, base.encounters
    seen = set()
    # an event that is the down itself (zones-3d6's out, draft1's downed; not
    # shattered-spirits' out, README) would be the down rate again: one drift counted
    # twice, and one more figure for Holm's correction
    repeats_down = down_events(cur.rules) if cur.rules in RULE_SYSTEMS else ()  # or synthetic
    for c, (_, name) in enumerate(cur.layout.combatants):
        cb = b_index.get(name)
        if cb is None:
            notes.append(f"{rows.label}: combatant {name} is new (not in the baseline)")
            continue
        seen.add(name)
        d1, d0 = int(cur.tallies.down_round[c].sum()), int(base.tallies.down_round[cb].sum())
        rows.rate("down_rate", name, d1, n1, d0, n0)
        # Both on the same rounds, so that "never downed" meets "never downed" when the
        # round caps differ (a changed max_rounds).
        rounds = max(cur.layout.max_rounds, base.layout.max_rounds)
        p = rows.pmf("time_to_down", name, _ttd_hist(cur, c, rounds), _ttd_hist(base, cb, rounds))
        med1, med0 = _median(cur, c), _median(base, cb)
        if med1 is not None or med0 is not None:
            change = math.inf if med1 is None or med0 is None else med1 - med0
            rows.add("median_time_to_down", name, "median", "chi2", _nan(med0), _nan(med1),
                     change, rows.rows[-1]["statistic"], p)  # fmt: skip
        for e, event in enumerate(cur.layout.events):
            if event in base.layout.events and event not in repeats_down:
                e0 = base.layout.events.index(event)
                k1 = int(cur.tallies.event_round[c, e].sum())
                k0 = int(base.tallies.event_round[cb, e0].sum())
                rows.rate(event_rate(event), name, k1, n1, k0, n0)
    for name in [name for name in b_index if name not in seen]:  # the baseline's order
        notes.append(f"{rows.label}: combatant {name} {GONE}")
    for tally in cur.layout.per_encounter_tallies:
        if tally in base.layout.per_encounter_tallies:
            _per_encounter_rows(rows, cur, base, b_index, tally, notes)


def _per_encounter(res: Result, c: int, tally: str) -> _Mean:
    """Mean per encounter of combatant ``c``'s (C, B) ``tally``, its error and df, resting
    on the batches with any (a batch's encounters are not told apart)."""
    sums = getattr(res.tallies, tally)[c]
    batches = len(sums)
    # Encounter i is in batch i * B // n, so batch b holds ceil((b+1)n/B) − ceil(bn/B).
    encounters = np.diff(-(-np.arange(batches + 1, dtype=np.int64) * res.encounters // batches))
    return _Mean(*_batch_se(sums, encounters), res.encounters, int(np.count_nonzero(sums)))


def _per_encounter_rows(rows: _Rows, cur: Result, base: Result, b_index: dict[str, int],
                        tally: str, notes: list[str]) -> None:  # fmt: skip
    """Mean per encounter of a per-combatant batch tally (damage from statuses, Momentum
    spent), for scenarios that tally it in both runs."""
    values = f"batches with {tally.replace('_', ' ')}"
    for c, (_, name) in enumerate(cur.layout.combatants):
        if name in b_index:
            m1, m0 = _per_encounter(cur, c, tally), _per_encounter(base, b_index[name], tally)
            if (m1.mean or m0.mean) and not rows.mean(f"mean_{tally}", name, m1, m0):
                notes.append(_untested(rows, f"mean_{tally}", name, m1, m0, values))


def _nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


def _outcome_rows(rows: _Rows, cur: Result, base: Result, notes: list[str]) -> None:
    n1, n0 = cur.encounters, base.encounters
    b_sides = {s: i for i, s in enumerate(base.layout.sides)}
    for i, side in enumerate(cur.layout.sides):
        if side in b_sides:
            rows.rate("win_rate", side, int(cur.tallies.winner[i]), n1,
                      int(base.tallies.winner[b_sides[side]]), n0)  # fmt: skip
    rows.rate("draw_rate", "draw", int(cur.tallies.winner[-1]), n1,
              int(base.tallies.winner[-1]), n0)  # fmt: skip
    rows.pmf("rounds_pmf", "encounter length", cur.tallies.rounds, base.tallies.rounds)
    m1, m0 = _rounds_mean(cur), _rounds_mean(base)
    if not rows.mean("mean_rounds", "encounter length", m1, m0):
        notes.append(_untested(rows, "mean_rounds", "encounter length", m1, m0, "encounters"))


def _rounds_mean(res: Result) -> _Mean:
    """Mean encounter length and its normal error, from the histogram of rounds."""
    mean, var = stats.histogram_mean_var(res.tallies.rounds)
    return _Mean(mean, math.sqrt(var / res.encounters), math.inf, res.encounters,
                 res.encounters)  # fmt: skip


def key(res: Any) -> tuple[str, str]:
    """What identifies a scenario across runs: (rules id, scenario id)."""
    return (res.rules, res.scenario)


#: The note on a baseline scenario the run left out, after its label.
NOT_RUN = "in the baseline but not run (not compared)"


def label(res: Any) -> str:
    """``scenario (rules)``: how notes and lists name a scenario."""
    return f"{res.scenario} ({res.rules})"


def scenario_rows(
    cur: Result, base: Result, tolerance: dict[str, float] | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Unadjusted comparison rows of one scenario and notes on what could not be compared.

    Parameters
    ----------
    cur, base : Result
        This run and the baseline of the same scenario.
    tolerance : dict, optional
        Tolerance per kind (``rate``, ``pmf``, ``mean``, ``median``); defaults fill gaps.
    """
    rows, notes = _compared(cur, base, tolerance)
    return rows.rows, notes


def _compared(
    cur: Result, base: Result, tolerance: dict[str, float] | None
) -> tuple[_Rows, list[str]]:
    """:func:`scenario_rows`, its rows kept with the means it did not test."""
    rows = _Rows(cur.scenario, cur.rules, full_tolerance(tolerance))
    notes: list[str] = []
    _attack_rows(rows, cur, base, notes)
    _combatant_rows(rows, cur, base, notes)
    _outcome_rows(rows, cur, base, notes)
    rows.run_rates()
    notes += [note for note in [rows.repeats_note()] if note]
    return rows, notes


# -- a whole run ---------------------------------------------------------------------------


@dataclass
class DriftReport:
    """All figures of a run compared with the baseline.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per figure, columns :data:`DRIFT_COLUMNS`, drifted figures first, then
        by adjusted p-value.
    alpha : float
        The threshold on Holm-adjusted p-values.
    notes : list of str
        What could not be compared (scenarios or figures in only one of the runs) or
        tested (a mean on too few values), one note each.
    untested : list of Untested
        The means not tested, each with its reason (their notes are in ``notes`` too),
        for :meth:`untested_by_reason`.
    not_run : list of str
        The baseline's scenarios the run left out, as :func:`label` names them (their
        notes are in ``notes`` too): a run of one scenario against a nightly baseline
        leaves out all the others.
    no_baseline : list of str
        The run's scenarios the baseline does not hold, as :func:`label` names them
        (their notes are in ``notes`` too): new since the baseline, or renamed (then the
        old name is in ``not_run``).
    pairs : dict of (str, str, str) to (str, str, str)
        The attack pairs compared, by the ``scenario``, ``rules`` and ``subject`` of
        their rows (``Kaito quick-jab → Brute``): their attacker, attack and defender,
        which the terminal breaks a long subject between.
    sizes : list of SampleSizes
        The encounters of each scenario compared, in the baseline and in this run.
    provenance : list of Provenance
        The seeds and simlab versions of each scenario compared, in both runs.
    repeats : list of Repeats
        The rates each scenario left out as repeats (their notes are in ``notes`` too).
    overridden : list of str
        The run's scenarios simulated with ``--set`` overrides, as :func:`label` names
        them: the nightly run has none, so this run is no baseline for it as it is.
    """

    table: pd.DataFrame
    alpha: float
    notes: list[str]
    untested: list[Untested] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)
    pairs: dict[tuple[str, str, str], tuple[str, str, str]] = field(default_factory=dict)
    no_baseline: list[str] = field(default_factory=list)
    sizes: list[SampleSizes] = field(default_factory=list)
    provenance: list[Provenance] = field(default_factory=list)
    repeats: list[Repeats] = field(default_factory=list)
    overridden: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> pd.DataFrame:
        """The rows of the figures that drifted."""
        return self.table[self.table.drifted]

    @property
    def ok(self) -> bool:
        """True when nothing drifted."""
        return not bool(self.table.drifted.any())

    @property
    def borderline(self) -> pd.Series:
        """Per row of :attr:`table`, whether the figure met one of drift's two conditions
        but not the other: statistically different within its tolerance (``changed``),
        or changed beyond its tolerance by a difference its samples cannot tell from
        noise (a smaller run's power). A figure not tested is not borderline."""
        t = self.table
        one = t.significant != t.beyond_tolerance
        return one & ~t.drifted & (t.test != "none")

    def sizes_differ(self) -> list[SampleSizes]:
        """The scenarios compared whose baseline and run differ in sample size (the
        baseline at 200,000 encounters, tonight's run at 50,000), in the run's order."""
        return [s for s in self.sizes if s.baseline != s.current]

    def seeds_differ(self) -> list[Provenance]:
        """The scenarios compared whose baseline and run differ in seed, in the run's order."""
        return [p for p in self.provenance if p.seed != p.baseline_seed]

    def tolerances_differ(self) -> list[Provenance]:
        """The scenarios compared whose tolerances differ from the baseline's (where
        both are known), in the run's order."""
        return [p for p in self.provenance if p.baseline_tolerance is not None
                and p.tolerance is not None and p.tolerance != p.baseline_tolerance]  # fmt: skip

    def passed_by_tolerance(self) -> pd.DataFrame:
        """The rows of figures that did not drift under this run's tolerances but would
        have under the baseline's (:meth:`tolerances_differ`): statistically different,
        and beyond the baseline's tolerance for their kind."""
        then = {(p.scenario, p.rules): p.baseline_tolerance or {}
                for p in self.tolerances_differ()}  # fmt: skip
        t = self.table
        beyond = [
            (row.scenario, row.rules) in then
            and abs(row.change) >= threshold(row.kind, then[row.scenario, row.rules][row.kind],
                                             row.baseline)
            for row in t.itertuples()
        ]  # fmt: skip
        return t[t.significant & ~t.drifted & np.asarray(beyond, dtype=bool)]

    def versions_differ(self) -> list[Provenance]:
        """The scenarios compared whose baseline and run another simlab simulated."""
        known = [p for p in self.provenance if p.version and p.baseline_version]
        return [p for p in known if p.version != p.baseline_version]

    def caveats(self) -> list[str]:
        """What the verdict adds when the two runs were not made alike, one sentence
        each: another simlab version (a figure may have moved with simlab, not the
        rules), other seeds (the runs do not share dice)."""
        out = []
        versions = _grouped(self.versions_differ(), "version", "baseline_version")
        if versions:
            out.append(
                f"The baseline is of another simlab version: simlab {versions}. A "
                "figure may have moved with simlab's own changes, not the rules'."
            )
        tolerances = self.tolerances_differ()
        if tolerances:
            out.append(self._tolerances_caveat(tolerances))
        seeds = _grouped(self.seeds_differ(), "seed", "baseline_seed")
        if seeds:
            out.append(
                f"Seeds differ: seed {seeds}. The runs do not share dice: with no "
                "rules change their figures still differ by Monte Carlo noise, where "
                "the baseline's seeds reproduce it exactly (the tests take the runs "
                "as independent samples either way)."
            )
        return out

    def _tolerances_caveat(self, differ: list[Provenance]) -> str:
        """The caveat on tolerances that differ from the baseline's: each changed one,
        and the figures that pass under this run's but would have drifted under the
        baseline's (a commit that loosens ``drift_tolerance:`` with the rules it
        changes passes the gate; this says so)."""
        changed = "; ".join(f"{p.scenario} ({p.rules}) {_tolerance_changes(p)}" for p in differ)
        passed = self.passed_by_tolerance()
        said = [f"{figure_said(r.figure, r.subject)} ({r.scenario})" for r in passed.itertuples()]
        what = (f"{counted(len(said), 'figure')} that would have drifted under the "
                f"baseline's pass under this run's: {_first_few(said)}" if said
                else "no figure that would have drifted under the baseline's passes "
                "under this run's")  # fmt: skip
        return (f"Tolerances differ from the baseline's: {changed}. The gate applies this "
                f"run's; {what}.")  # fmt: skip

    def untested_by_reason(self) -> dict[str, list[Untested]]:
        """The means not tested, grouped by their reason (``too few attacks that dealt
        damage in this run``), reasons in the order they first come.

        A smoke run of a few encounters against a large baseline leaves dozens of means
        untested for one or two reasons; the terminal says each reason once.
        """
        groups: dict[str, list[Untested]] = {}
        for entry in self.untested:
            groups.setdefault(entry.reason, []).append(entry)
        return groups


#: The scenarios a caveat names for one pair of values; the rest are counted.
NAMED = 3


def _tolerance_changes(p: Provenance) -> str:
    """``rate 0.1 (baseline 0.02), mean 0.2 (baseline 0.05)``: the tolerances of ``p``
    that differ from its baseline's."""
    now, then = p.tolerance or {}, p.baseline_tolerance or {}
    return ", ".join(f"{kind} {now[kind]:g} (baseline {then[kind]:g})"
                     for kind in DEFAULT_TOLERANCE if now[kind] != then[kind])  # fmt: skip


def _grouped(entries: list[Provenance], current: str, baseline: str) -> str:
    """``99 in this run, 7 in the baseline (quickstart (shattered-spirits), …)``: the
    entries' pairs of values, each with the scenarios that have it; "" for none."""
    groups: dict[tuple[Any, Any], list[str]] = {}
    for p in entries:
        pair = (getattr(p, current), getattr(p, baseline))
        groups.setdefault(pair, []).append(f"{p.scenario} ({p.rules})")
    parts = []
    for (now, then), names in groups.items():
        parts.append(f"{now} in this run, {then} in the baseline ({_first_few(names)})")
    return "; ".join(parts)


def _finish(rows: list[dict[str, Any]], notes: list[str], alpha: float,
            untested: list[Untested], not_run: list[str],
            pairs: dict[tuple[str, str, str], tuple[str, str, str]],
            no_baseline: list[str], sizes: list[SampleSizes],
            provenance: list[Provenance], repeats: list[Repeats]) -> DriftReport:  # fmt: skip
    table = pd.DataFrame({c: [r[c] for r in rows] for c in DRIFT_COLUMNS[:-3]})
    p = table.p_value.to_numpy(dtype=float)
    table["p_holm"] = stats.holm_adjust(p) if len(p) else p
    # A median row borrows its time-to-down's χ² p: the distribution moved, which its
    # own row says; the median is statistically different only if it moved too.
    unmoved_median = (table.kind == "median") & (table.change == 0)
    table["significant"] = (table.p_holm < alpha) & ~unmoved_median
    table["drifted"] = table.significant & table.beyond_tolerance
    table = table.sort_values(["drifted", "p_holm"], ascending=[False, True], kind="stable")
    return DriftReport(table.reset_index(drop=True), alpha, notes, untested, not_run, pairs,
                       no_baseline, sizes, provenance, repeats)  # fmt: skip


def compare_results(
    current: Sequence[Result],
    baseline: Sequence[Result],
    alpha: float = DEFAULT_ALPHA,
    tolerances: dict[tuple[str, str], dict[str, float]] | None = None,
    versions: dict[tuple[str, str], tuple[str, str]] | None = None,
    baseline_tolerances: dict[tuple[str, str], dict[str, float]] | None = None,
) -> DriftReport:
    """Compare simulation results with baseline results, scenario by scenario.

    Parameters
    ----------
    current, baseline : sequence of Result
        Matched by (rules id, scenario id); scenarios in only one list are noted, not
        compared.
    alpha : float
        Threshold on the Holm-adjusted p-values (over all figures of all scenarios).
    tolerances : dict, optional
        Per (rules id, scenario id), the tolerances by kind (defaults: :data:`DEFAULT_TOLERANCE`).
    versions : dict, optional
        Per (rules id, scenario id), the simlab versions that simulated this run and the
        baseline, for :meth:`DriftReport.caveats`.
    baseline_tolerances : dict, optional
        Per (rules id, scenario id), the tolerances the baseline was written with, for
        :meth:`DriftReport.caveats` (this run's are applied).

    Returns
    -------
    DriftReport
    """
    by_key = {key(r): r for r in baseline}
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    untested: list[Untested] = []
    pairs: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    no_baseline: list[str] = []
    sizes: list[SampleSizes] = []
    provenance: list[Provenance] = []
    repeats: list[Repeats] = []
    for res in current:
        base = by_key.get(key(res))
        if base is None:
            no_baseline.append(label(res))
            notes.append(f"{label(res)}: no baseline yet (not compared)")
            continue
        sizes.append(SampleSizes(res.scenario, res.rules, base.encounters, res.encounters))
        version, base_version = (versions or {}).get(key(res), ("", ""))
        tolerance = (tolerances or {}).get(key(res))
        then = None if baseline_tolerances is None else baseline_tolerances.get(key(res))
        provenance.append(Provenance(res.scenario, res.rules, base.seed, res.seed,
                                     base_version, version,
                                     None if then is None else full_tolerance(then),
                                     full_tolerance(tolerance)))  # fmt: skip
        compared, said = _compared(res, base, tolerance)
        rows += compared.rows
        notes += said
        untested += compared.untested
        pairs.update(compared.pairs)
        note = compared.repeats_note()
        if note:
            repeats.append(Repeats(compared.label, compared.repeats, note))
    seen = {key(r) for r in current}
    not_run = [label(r) for k, r in by_key.items() if k not in seen]
    notes += [f"{name}: {NOT_RUN}" for name in not_run]
    report = _finish(rows, notes, alpha, untested, not_run, pairs, no_baseline, sizes,
                     provenance, repeats)  # fmt: skip
    report.overridden = [label(r) for r in current if r.meta.get("overrides")]
    return report


def compare(current: Sequence[Any], baseline: Sequence[Any], alpha: float = DEFAULT_ALPHA,
            shown: str = "the baseline") -> DriftReport:  # fmt: skip
    """Compare report runs (:class:`simlab.report.results.ScenarioRun`) with a baseline.

    Each scenario's tolerances are those of the current run (its ``drift_tolerance:``);
    where they differ from the baseline's, :meth:`DriftReport.caveats` says so.

    Raises
    ------
    InputError
        When the baseline holds none of the scenarios run (``shown``: its path, which
        the message names): the gate would compare nothing and pass.
    """
    refuse_nothing_shared(current, baseline, shown)
    tolerances = {key(r): r.drift_tolerance for r in current}
    simulated_by = {key(r): r.simlab_version for r in baseline}
    versions = {key(r): (r.simlab_version, simulated_by.get(key(r), "")) for r in current}
    return compare_results([r.result for r in current], [r.result for r in baseline], alpha,
                           tolerances, versions,
                           {key(r): r.drift_tolerance for r in baseline})  # fmt: skip


class Planned(NamedTuple):
    """A scenario loaded to be run, as :func:`refuse_nothing_shared` reads it: the
    baseline can be refused before anything is simulated."""

    rules: str
    scenario: str
    source: str | None


def refuse_nothing_shared(current: Sequence[Any], baseline: Sequence[Any], shown: str) -> None:
    """Refuse a baseline that holds none of the scenarios run, naming both and the
    command that adds the run's scenarios to it.

    A scenario with no baseline yet is noted and passes the gate, as it should when a
    new one lands; when no scenario has one, no figure is compared and the gate would
    pass every night, whatever the rules did: the baseline given is another's.

    Parameters
    ----------
    current, baseline : sequence of ScenarioRun
        The runs (or the :class:`Planned` ones) and the baseline's, matched by
        (rules id, scenario id).
    shown : str
        The baseline as the message names it (its path).

    Raises
    ------
    InputError
        When no scenario run is in the baseline.
    """
    from simlab.errors import InputError

    if {key(r) for r in current} & {key(r) for r in baseline}:
        return
    held = _first_few([label(r) for r in baseline]) if baseline else "no scenario"
    sources = [r.source for r in current]
    files = " ".join(sources) if all(sources) else "SCENARIO…"
    raise InputError(f"{shown}: expected the baseline of a scenario run "
                     f"({_first_few([label(r) for r in current])}); got one of {held} "
                     "only, so the drift gate would compare nothing. Give the baseline "
                     "these scenarios were run against, or add them to this one: "
                     f"simlab baseline update {files} --baseline {shown}")  # fmt: skip


def _first_few(names: list[str]) -> str:
    """The first :data:`NAMED` names and how many more: ``a, b, c and 2 more``."""
    more = len(names) - NAMED
    return ", ".join(names[:NAMED]) + (f" and {more} more" if more > 0 else "")
