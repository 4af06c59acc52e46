"""A/B comparisons on common random numbers, with paired intervals of every difference.

Both variants play the same encounters with the same dice (encounter i draws from the
RNG keyed by (seed, i, stream)). The run is cut into K contiguous ranges of encounters
(32 by default); each variant is played range by range
(:func:`simlab.engine.runner.run_range`, the same dice as a whole run: merged, the
ranges give the whole run's tallies bit for bit), and every figure is measured on each
range (:func:`simlab.tuning.figures.figure_values`).

For a figure with whole-run values a (variant A) and b (B), the difference is b − a.
Its **paired** 95% interval is b − a ± t · sd(d_k) / √K, where d_k = b_k − a_k is the
difference on range k and t the Student quantile with K − 1 degrees of freedom (batch
means of the paired differences). The same difference measured on two *independent*
runs would have the interval b − a ± t · sqrt(var(a_k) + var(b_k)) / √K; both are
reported, so the gain from common random numbers is visible. A difference whose paired
interval excludes 0 is a real change at the 95% level.

That level holds figure by figure. A comparison of a fight tests a hundred figures or
more, and about one in twenty of those that did not change would be marked changed by
chance alone. So every figure also gets the p-value of its paired t statistic
(``(b − a) / (sd(d_k) / √K)``, which is below 0.05 exactly when the interval excludes 0)
and its Holm adjustment over all the figures compared (``p_holm``): a change whose
adjusted p is below 0.05 holds with the chance that *any* unchanged figure is marked
kept under 5% (``changed_holm``).

**Changes that rest on few events.** The paired t treats the mean of the d_k as
normal. For a rate, and for a mean damage (whose damage comes only from hits), d_k is
made of the events (crits, hits, downs…) that happen in one variant and not in the
other, and of the change in the number of trials. When those differing events are few,
that mean is far from normal: raising one combatant's HP adds a few attacks at it in
most ranges; with a crit rate of 1e-4 they almost never crit, so the crit rate falls by
a hair in nearly every range, while the rare range where an added attack does crit
(the jump that balances the others) seldom comes up in a run. The d_k are then all
slightly negative, their sd tiny, and t large: a crit rate that cannot change was
marked changed after Holm's correction. The spread of the d_k cannot show this: the
jump that is missing is what is rare.

So the events that differ are counted first (:func:`differing_events`: on each range,
the events one variant has more than the other, the fewer of events and non-events for
a rate; a lower bound of the events that differ, since a gain and a loss in one range
cancel). Fewer than :data:`FEWEST_DIFFERING` (10, the count below which the rate
intervals, too, leave the normal approximation for Clopper–Pearson) and the figure is
tested as if A and B were independent runs, which common random numbers, correlating
the two positively, make conservative: a rate by the exact conditional test of its
whole-run counts (:func:`simlab.analysis.stats.exact_rate_difference`, on the rarer of
events and non-events, with the interval that test gives), a mean damage by the
independent interval and its t. The row's ``test`` says which (``paired``, ``exact``,
``independent``); ``changed`` and ``p`` are then that test's. A change of a few events
is thus found only when it would show between independent runs: that is the price of
not marking rare figures that did not change. A mean time-to-down and the mean rounds
are always paired: every downed encounter, or every encounter, adds to them, and none
is a rare event.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.analysis.result import Result, precision_said
from simlab.engine import runner
from simlab.engine.pieces import Pace
from simlab.engine.tallies import Layout, TallyArrays, merge, new_tallies
from simlab.errors import InputError
from simlab.limits import MAX_RANGES, encounters_and_seed, whole_number_in
from simlab.report.words import counted
from simlab.scenario.common import ScenarioBase
from simlab.tuning.figures import (
    RATES,
    Counts,
    figure_counts,
    figure_values,
    labelled_pairs,
    pairs_that_cannot_crit,
)

__all__ = ["Comparison", "compare", "differing_events", "run_ranges"]

#: Contiguous ranges of encounters a comparison is measured on (the batch-means K).
DEFAULT_RANGES = 32
LEVEL = 0.95
#: Fewer events than this that differ between A and B, and the paired t is not trusted:
#: the count at which the rate intervals, too, stop trusting a normal approximation.
FEWEST_DIFFERING = stats.RARE_EVENT_THRESHOLD
#: A paired interval less than this many times narrower than the independent one is
#: narrowed little (:meth:`Comparison.rules_note`).
BARELY_NARROWER = 1.2

#: A run's (or a range's) figures and the counts behind its rates and mean damages.
Measured = tuple[dict[tuple[str, str], float], dict[tuple[str, str], Counts]]


def range_edges(n: int, ranges: int) -> list[tuple[int, int]]:
    """(first, count) of ``ranges`` contiguous, near-equal ranges covering ``0 .. n-1``."""
    k = min(ranges, n)
    edges = [-(-i * n // k) for i in range(k + 1)]
    return [(lo, hi - lo) for lo, hi in itertools.pairwise(edges)]


def ranges_for(ranges: object, n: int) -> int:
    """K for a comparison of ``n`` encounters: ``ranges`` when given (2 to
    :data:`simlab.limits.MAX_RANGES` and at most ``n``, one range an encounter; more is
    refused, not lowered), else :data:`DEFAULT_RANGES`, or ``n`` when fewer."""
    if ranges is None:
        return min(DEFAULT_RANGES, n)
    k = whole_number_in(ranges, "ranges", 2, MAX_RANGES)
    if k > n:
        raise InputError(f"expected ranges of at most one encounter each (at most {n:,} "
                         f"ranges for {n:,} encounters); got {k:,}")  # fmt: skip
    return k


def run_ranges(
    job: runner.Job,
    ranges: int = DEFAULT_RANGES,
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    client: Any = None,
) -> list[TallyArrays]:
    """The tallies of each of ``ranges`` contiguous ranges of ``job``'s encounters.

    Merged, they equal :func:`simlab.engine.runner.run_local`'s tallies bit for bit;
    played on ``threads`` local threads, or as tasks on the Dask cluster of ``client``
    (:func:`simlab.engine.distributed.run_dask_ranges`: the same tallies).
    """
    return run_spans(job, range_edges(job.n, ranges), threads, progress, client)


def run_spans(
    job: runner.Job,
    spans: list[tuple[int, int]],
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    client: Any = None,
) -> list[TallyArrays]:
    """The tallies of each ``(first, count)`` of ``spans`` of ``job``'s encounters (the
    batches those of a run of ``job.n``): on the Dask cluster of ``client`` all sent at
    once (:func:`simlab.engine.distributed.run_dask_ranges`), else one after another on
    ``threads`` local threads, sharing the job's kernel and pace; the same tallies
    either way. ``progress`` is called with the encounters played as they go."""
    if client is not None:
        from simlab.engine.distributed import run_dask_ranges

        return run_dask_ranges(job, client, spans, progress=progress)
    runner.use_threads(threads)
    block, pace = runner.block_kernel(job), Pace()
    return [runner.run_range(job, first, count, runner.chunks_for(count), block, pace,
                             runner.DEFAULT_BLOCK, progress)
            for first, count in spans]  # fmt: skip


@dataclass
class Comparison:
    """The outcome of :func:`compare`.

    Attributes
    ----------
    a, b : Result
        The two runs (same seed, same sample size, same dice).
    labels : (str, str)
        How A and B are named: the file given, or a scenario's id with the changes it
        carries (``ss-duel with strike.profile[9]=8``), however B was asked for
        (``--set``, ``changes=`` or ``a.with_``).
    figures : pandas.DataFrame
        One row per figure both share: ``figure, on, a, b, diff`` (b − a),
        ``diff_ci_lo/hi`` (paired, or as ``test`` says), ``diff_ci_independent_lo/hi``,
        ``changed`` (that interval excludes 0), ``p`` (its test's two-sided p-value),
        ``p_holm`` and ``changed_holm`` (Holm-adjusted over all figures, below 0.05),
        ``p_text`` and ``p_holm_text`` (each p as the terminal writes it, ``0.0012``,
        ``< 0.0001``: pandas shows a column holding a tiny p as ``2.434305e-09``),
        ``test`` (``paired``; ``exact`` or ``independent`` for a rate or a mean damage
        whose change rests on too few events, see the module docstring),
        ``narrowing`` (independent width / paired width; NaN where the test is not
        paired, or B − A is the same on every range: no width to narrow); changed
        figures first, the most significant first.
    ranges : int
        K, the number of ranges the intervals are computed from.
    precision : dict or None
        How the sample size was chosen when run to a precision
        (:func:`simlab.api.compare`): the rule, and A's and B's stops.
    only_in_a, only_in_b : list of (str, str)
        The (figure, on) pairs one of the two has and the other does not (an attack
        pair, a combatant or a side of one only): not compared.
    pairs : dict of str to (str, str, str)
        The attack pairs of A and B by the ``on`` that names each
        (``Kaito quick-jab → Brute``): their attacker, attack and defender
        (:func:`~simlab.tuning.figures.labelled_pairs`), which the terminal breaks a
        long pair between.
    """

    a: Result
    b: Result
    labels: tuple[str, str]
    figures: pd.DataFrame
    ranges: int
    precision: dict[str, Any] | None = None
    only_in_a: list[tuple[str, str]] = field(default_factory=list)
    only_in_b: list[tuple[str, str]] = field(default_factory=list)
    pairs: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        """One line: what was compared (run to a precision that stopped at its cap, that
        it did) and how much changed (the dataclass's own repr printed both runs'
        tallies, some 28 kB), and, where B is A, that it is, in the terminal's words
        (``B is identical to A: Brute.hp is already 30, …``), and where A and B follow
        different rules, that they do."""
        from simlab.report.tuning_terminal import identical_note

        changed = int(self.figures.changed.sum()) if len(self.figures) else 0
        a, b = self.labels
        same = identical_note(self).removesuffix(".")
        cap = precision_said(self.precision)
        if self.a.rules != self.b.rules:  # the same dice read apart: say so, as the terminal
            same = "; ".join(x for x in (same, f"A and B follow different rules "
                                         f"({self.a.rules}, {self.b.rules})") if x)  # fmt: skip
        return (f"<Comparison {a} vs {b} · {counted(self.a.encounters, 'encounter')}{cap} on "
                f"the same dice · {counted(self.ranges, 'range')}: {changed} of "
                f"{counted(len(self.figures), 'figure')} changed"
                f" (paired 95% interval){f'; {same}' if same else ''}; .figures>")  # fmt: skip

    def precision_note(self) -> str:
        """How A and B were run to a precision, as the terminal's ``precision:`` line and
        the pages say it: the rule, the stop (or the cap reached), the widest figure and
        the variant it is of (``widest (B: duel with Brute.hp=40): …``), each variant's
        own stop (``… (A stopped at 8,000, B at 16,000; both compared at the larger)``)
        and a crit rate exactly 0 in the variant that cannot crit (``; crit_rate:strike
        is exactly 0 in A, which cannot crit there``); "" for a comparison of a set
        size."""
        if not self.precision:
            return ""
        from simlab.tuning.precision import describe_record

        a, b = self.precision["stops"]
        of = self.precision.get("widest_of")  # a record of before it was kept has none
        whose = f"{of}: {self.labels['AB'.index(of)]}" if of else ""
        zero = [f"{figure} is exactly 0 in {variant}, which cannot crit there"
                for variant, figures in zip("AB", self.precision.get("cannot_crit", ([], [])),
                                            strict=True)
                for figure in figures]  # fmt: skip
        return (f"{describe_record(self.precision, whose)} (A stopped at {a:,}, B at {b:,}; "
                f"both compared at the larger{''.join(f'; {z}' for z in zero)})")  # fmt: skip

    def rules_note(self) -> str:
        """What pairing did where A and B follow different rules ("" where they follow
        the same): both read the encounter's same random numbers, each as its own dice,
        so the pairing narrows an interval only as far as the two roll alike, from about
        1× (a d20 system against a 3d6 one) to several times (two drafts of one system);
        the ``narrowing`` of the figures compared says how far it did here."""
        if self.a.rules == self.b.rules:
            return ""
        said = (f"A and B follow different rules ({self.a.rules}, {self.b.rules}): each "
                "reads the same random numbers as its own dice, so pairing narrows an "
                "interval only as far as the two roll alike")  # fmt: skip
        paired = self.figures.get("narrowing", pd.Series(dtype=float)).dropna()
        if paired.empty:
            return f"{said}."
        least, most = float(paired.min()), float(paired.max())
        if most < BARELY_NARROWER:
            return f"{said}; here it narrowed them little (× at most {most:.1f})."
        holds = "the paired interval holds however alike they roll."
        if round(least, 1) < 1:  # "0.9 times narrower" reads as narrower: it was wider
            return (f"{said}; here it made them up to {most:.1f} times narrower (×), and "
                    f"some wider (× down to {least:.1f}); {holds}")  # fmt: skip
        return (
            f"{said}; here it made them {least:.1f} to {most:.1f} times narrower (×), and {holds}"
        )

    def document(self) -> dict[str, Any]:
        """The ``compare.json`` document."""
        changed = self.overrides()
        return {
            "a": self.labels[0], "b": self.labels[1], "scenario_a": self.a.scenario,
            "scenario_b": self.b.scenario, "rules": self.a.rules,
            **({"rules_b": self.b.rules} if self.b.rules != self.a.rules else {}),
            "seed": self.a.seed,
            "encounters": self.a.encounters, "ranges": self.ranges, "interval_level": LEVEL,
            "figures": [
                {"figure": r.figure, "on": r.on, "a": _num(r.a), "b": _num(r.b),
                 "diff": _num(r.diff), "diff_ci": [_num(r.diff_ci_lo), _num(r.diff_ci_hi)],
                 "diff_ci_independent": [_num(r.diff_ci_independent_lo),
                                         _num(r.diff_ci_independent_hi)],
                 "changed": bool(r.changed), "p": _num(r.p), "p_holm": _num(r.p_holm),
                 "changed_holm": bool(r.changed_holm), "test": r.test}
                for r in self.figures.itertuples()
            ],
            "only_in_a": [{"figure": f, "on": on} for f, on in self.only_in_a],
            "only_in_b": [{"figure": f, "on": on} for f, on in self.only_in_b],
            **({"precision": self.precision} if self.precision else {}),
            **({"overrides": changed} if any(changed.values()) else {}),
        }  # fmt: skip

    def overrides(self) -> dict[str, list[str]]:
        """The changes each variant's scenario carries (``--set``, :func:`simlab.override`,
        ``scn.with_``), ``NAME.FIELD=VALUE`` in order: ``{"a": [...], "b": [...]}``."""
        return {"a": list(self.a.meta.get("overrides", [])),
                "b": list(self.b.meta.get("overrides", []))}  # fmt: skip


def _num(x: Any) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def compare(
    a: ScenarioBase,
    b: ScenarioBase,
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    ranges: int | None = None,
    labels: tuple[str, str] = ("A", "B"),
    progress: Callable[[int], None] | None = None,
    client: Any = None,
    played: tuple[list[TallyArrays] | None, list[TallyArrays] | None] = (None, None),
) -> Comparison:
    """Run ``a`` and ``b`` on the same dice and compare every figure they share.

    Parameters
    ----------
    a, b : ScenarioBase
        The two variants (``b`` is often ``simlab.override(a, {...})``).
    n, seed : int, optional
        Encounters and seed for both (default: ``a``'s).
    threads : int, optional
        numba threads; the numbers do not depend on it.
    ranges : int, optional
        K contiguous ranges of encounters the intervals are computed from, 2 to
        :data:`simlab.limits.MAX_RANGES` and at most ``n`` (more is an InputError);
        default :data:`DEFAULT_RANGES`, or ``n`` when fewer.
    labels : (str, str)
        Names of A and B in tables.
    progress : callable, optional
        Called with the encounters played since its last call, as they are played
        (:func:`run_spans`; the calls add up to both runs' encounters: 2n in all); on a
        cluster, after each task.
    client : distributed.Client, optional
        Play both variants as tasks on this Dask cluster instead of ``threads``; the
        numbers are the same.
    played : (list of TallyArrays or None, same)
        A's and B's tallies on each range of ``n`` encounters with ``seed``, when
        already played (a run to a precision that stopped at ``n``,
        :meth:`simlab.tuning.precision.RangesKept.ranges_at`): that variant is not
        played again.

    Returns
    -------
    Comparison
        See the module docstring for the paired and independent intervals.
    """
    from simlab.api import compile_job

    if ranges is not None:
        whole_number_in(ranges, "ranges", 2, MAX_RANGES)
    n, seed = encounters_and_seed(a, n, seed)
    if n < 2:  # one range of one encounter: no interval, yet "no figure changed"
        raise InputError(f"expected at least 2 encounters for a comparison (its intervals "
                         f"come from 2 or more ranges of them); got {n}")  # fmt: skip
    ranges = ranges_for(ranges, n)
    jobs = [compile_job(scn, n, seed) for scn in (a, b)]
    per_range = [run_ranges(job, ranges, threads, progress, client) if parts is None else parts
                 for job, parts in zip(jobs, played, strict=True)]  # fmt: skip
    results = [
        _result(scn, job, parts) for scn, job, parts in zip((a, b), jobs, per_range, strict=True)
    ]
    values = [[_measured(t, job.layout, count) for t, (_, count) in
               zip(parts, range_edges(n, ranges), strict=True)]
              for job, parts in zip(jobs, per_range, strict=True)]  # fmt: skip
    whole = [_measured(r.tallies, r.layout, n) for r in results]
    no_crit = [pairs_that_cannot_crit(scn) for scn in (a, b)]
    table = _difference_table(whole, values, no_crit[0] & no_crit[1])
    only_a = _only_in(whole[0], whole[1], no_crit[0])
    only_b = _only_in(whole[1], whole[0], no_crit[1])
    pairs = {**labelled_pairs(jobs[0].layout), **labelled_pairs(jobs[1].layout)}
    return Comparison(results[0], results[1], labels, table, len(values[0]),
                      only_in_a=only_a, only_in_b=only_b, pairs=pairs)  # fmt: skip


def _only_in(mine: Measured, other: Measured, no_crit: set[str]) -> list[tuple[str, str]]:
    """The figures of ``mine`` that ``other`` does not have, but no crit rate of a pair
    in ``no_crit``, which cannot crit (:func:`~simlab.tuning.figures.pairs_that_cannot_crit`:
    a shattered-spirits profile without a ``crit`` row): its 0 is no figure the other
    variant lacks, as :func:`_difference_table` drops it from the figures both share. A
    pair that can crit keeps its crit rate, 0 where the run saw no crit."""
    return [key for key in mine[0] if key not in other[0]
            and not (key[0] == "crit_rate" and key[1] in no_crit)]  # fmt: skip


def _measured(tallies: TallyArrays, layout: Layout, n: int) -> Measured:
    """The figures of a run or a range, and the counts behind its rates and mean damages."""
    return figure_values(tallies, layout, n), figure_counts(tallies, layout, n)


def _result(scenario: ScenarioBase, job: runner.Job, parts: list[TallyArrays]) -> Result:
    total = new_tallies(job.layout)
    for part in parts:
        total = merge(total, part)
    from simlab.report.files import results_hash, scenario_hash

    overrides = {"overrides": list(scenario.overrides)} if scenario.overrides else {}
    result = Result(scenario=scenario.scenario, rules=scenario.rules, encounters=job.n,
                    seed=job.seed, layout=job.layout, tallies=total,
                    meta={"scenario_hash": scenario_hash(scenario),
                          "results_hash": results_hash(scenario), **overrides})  # fmt: skip
    result._simulated = scenario
    return result


def _difference_table(whole: list[Measured], per_range: list[list[Measured]],
                      no_crit: set[str]) -> pd.DataFrame:  # fmt: skip
    """One row per figure A and B share (:attr:`Comparison.figures`), from each
    variant's figures and counts over the whole run (``whole``) and on each range; but
    no crit rate of a pair in ``no_crit``, which can crit in neither
    (:func:`~simlab.tuning.figures.pairs_that_cannot_crit`: an attack that cannot crit
    read ``0 → 0``). A pair that can crit is compared though neither run saw a crit."""
    rows = []
    for key in [k for k in whole[0][0] if k in whole[1][0]]:
        if key[0] == "crit_rate" and key[1] in no_crit:
            continue
        a_k, b_k = (np.array([v.get(key, np.nan) for v, _ in parts]) for parts in per_range)
        diff = whole[1][0][key] - whole[0][0][key]
        spread = _spreads(diff, a_k, b_k)
        lo, hi, p, test = diff - spread.paired, diff + spread.paired, spread.p, "paired"
        counted = key in whole[0][1]
        if counted and _too_few_differ(key, per_range) and not _same_everywhere(key, per_range):
            lo, hi, p, test = _few_events_test(key, diff, whole, spread)
        ind_lo, ind_hi = diff - spread.independent, diff + spread.independent
        if counted and key[0] in RATES and not spread.independent > 0:
            # a rate with no spread between ranges (0 or 1 in both runs): two
            # independent runs could still differ, by as much as each rate's interval
            # allows (a crit rate of 0 in both: [-0.0002, +0.0002] at 20,000 attacks)
            (k1, n1, _), (k2, n2, _) = (counts[key] for _, counts in whole)
            (lo1, hi1, _), (lo2, hi2, _) = (stats.rate_interval(k, n, LEVEL)
                                            for k, n in ((k1, n1), (k2, n2)))  # fmt: skip
            ind_lo, ind_hi = float(lo2 - hi1), float(hi2 - lo1)
        rows.append({"figure": key[0], "on": key[1], "a": whole[0][0][key],
                     "b": whole[1][0][key], "diff": diff, "diff_ci_lo": lo, "diff_ci_hi": hi,
                     "diff_ci_independent_lo": ind_lo, "diff_ci_independent_hi": ind_hi,
                     "p": p, "test": test})  # fmt: skip
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    half = (frame.diff_ci_hi - frame.diff_ci_lo) / 2
    frame["changed"] = (frame.diff_ci_lo > 0) | (frame.diff_ci_hi < 0)
    frame["p_holm"] = stats.holm_adjust(frame.p.to_numpy())
    frame["changed_holm"] = frame.changed & (frame.p_holm < 1 - LEVEL)
    independent = frame.diff_ci_independent_hi - frame.diff_ci_independent_lo
    frame["narrowing"] = (independent / (2 * half)).where((frame.test == "paired") & (half > 0))
    diff, width = frame["diff"].abs().to_numpy(), half.to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        strength = np.where(width > 0, diff / width, np.where(diff > 0, np.inf, 0.0))
    order = np.lexsort((-np.nan_to_num(strength), ~frame.changed.to_numpy()))
    frame = frame.iloc[order].reset_index(drop=True)
    frame.attrs = dict(FIGURES_CI_KINDS)
    return _with_p_text(frame)


def _with_p_text(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``p_text`` after ``p`` and ``p_holm_text`` after ``p_holm``: each
    p-value as the terminal and the page write it (``0.0012``, ``< 0.0001``, ``—`` for
    none; :func:`simlab.report.words.format_p`). pandas shows a column holding a tiny p
    in scientific notation, every row of it (``2.434305e-09``, ``0.000000e+00`` for one
    below what a double resolves); the numbers stay in ``p`` and ``p_holm``."""
    from simlab.report.words import format_p

    for column in ("p", "p_holm"):
        text = pd.Series([format_p(p) for p in frame[column]], index=frame.index, dtype=str)
        frame.insert(frame.columns.get_loc(column) + 1, f"{column}_text", text)
    return frame


#: The methods of :attr:`Comparison.figures`' intervals, in its ``attrs`` (the README:
#: every interval column's method is in a ``*_ci_kind`` column or the ``attrs``).
FIGURES_CI_KINDS = {
    "level": LEVEL,
    "diff_ci_kind": "as the row's test says: paired (t on the K ranges' differences), "
                    "exact (the exact test of the rate's counts) or independent",
    "diff_ci_independent_kind": "independent (t on the K ranges of A and of B)",
}  # fmt: skip


class _Spreads(NamedTuple):
    """Half-widths of the paired and independent 95% intervals, and their t tests' p."""

    paired: float
    independent: float
    p: float
    p_independent: float


def _spreads(diff: float, a_k: np.ndarray, b_k: np.ndarray) -> _Spreads:
    """Of ``diff`` = mean(b) − mean(a) measured on ranges ``a_k``, ``b_k``: the
    half-widths of the paired and the independent 95% interval, and the two-sided
    p-values of the paired t statistic ``diff / (sd(b_k − a_k) / √K)`` (below 0.05
    exactly when the paired interval excludes 0; with no spread between ranges, 1 for
    no difference and 0 for one) and of the independent one. NaN with fewer than two
    ranges measured."""
    keep = np.isfinite(a_k) & np.isfinite(b_k)
    m = int(keep.sum())
    if m < 2:
        return _Spreads(np.nan, np.nan, np.nan, np.nan)
    t = stats.t_quantile(m - 1, LEVEL)
    sd = float(np.std(b_k[keep] - a_k[keep], ddof=1))
    sd_independent = float(np.sqrt(np.var(a_k[keep], ddof=1) + np.var(b_k[keep], ddof=1)))
    return _Spreads(t * sd / np.sqrt(m), t * sd_independent / np.sqrt(m),
                    _t_p(diff, sd, m), _t_p(diff, sd_independent, m))  # fmt: skip


def _t_p(diff: float, sd: float, m: int) -> float:
    """Two-sided p of ``diff / (sd / √m)`` with ``m − 1`` degrees of freedom."""
    if not np.isfinite(diff):
        return np.nan
    if sd == 0:
        return 1.0 if diff == 0 else 0.0
    return stats.t_two_sided_p(diff / (sd / np.sqrt(m)), m - 1)


def differing_events(a: list[Counts], b: list[Counts], rate: bool) -> int:
    """At least how many of a figure's events differ between A and B, from its counts
    on each range (``a[k]``, ``b[k]``): on each range, how many more events one variant
    has than the other (a gain and a loss in one range cancel), and for a mean damage at
    least one where the damage differs with as many hits; for a rate, the fewer of its
    events and its non-events that differ so (a rate near 1 rests on its failures)."""
    ranges = list(zip(a, b, strict=True))
    events = sum(max(abs(y.events - x.events), int(y.total != x.total)) for x, y in ranges)
    if not rate:
        return events
    others = sum(abs((y.trials - y.events) - (x.trials - x.events)) for x, y in ranges)
    return min(events, others)


def _too_few_differ(key: tuple[str, str], per_range: list[list[Measured]]) -> bool:
    """Whether fewer than :data:`FEWEST_DIFFERING` of the figure's events differ."""
    none = Counts(0, 0, 0)
    a, b = ([counts.get(key, none) for _, counts in parts] for parts in per_range)
    return differing_events(a, b, key[0] in RATES) < FEWEST_DIFFERING


def _same_everywhere(key: tuple[str, str], per_range: list[list[Measured]]) -> bool:
    """Whether A and B have the same counts of the figure on every range: B − A is 0 in
    every encounter (B identical to A on the same dice), so the paired interval, [0, 0],
    is exact, and no test of few events is needed."""
    none = Counts(0, 0, 0)
    a, b = ([counts.get(key, none) for _, counts in parts] for parts in per_range)
    return a == b


def _few_events_test(
    key: tuple[str, str], diff: float, whole: list[Measured], spread: _Spreads
) -> tuple[float, float, float, str]:
    """(lo, hi, p, test) of a figure whose change rests on too few events for the paired
    t, tested as two independent runs: a rate by the exact test of its counts
    (:func:`simlab.analysis.stats.exact_rate_difference`), a mean damage by the
    independent interval."""
    if key[0] in RATES:
        (k1, n1, _), (k2, n2, _) = (counts[key] for _, counts in whole)
        lo, hi, p = stats.exact_rate_difference(k1, n1, k2, n2, LEVEL)
        return lo, hi, p, "exact"
    return diff - spread.independent, diff + spread.independent, spread.p_independent, "independent"
