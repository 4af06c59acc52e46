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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.analysis.result import Result
from simlab.engine import runner
from simlab.engine.pieces import Pace
from simlab.engine.tallies import TallyArrays, merge, new_tallies
from simlab.errors import InputError
from simlab.limits import MAX_RANGES, encounters_and_seed, whole_number_in
from simlab.scenario.common import ScenarioBase
from simlab.tuning.figures import figure_values

__all__ = ["Comparison", "compare", "run_ranges"]

#: Contiguous ranges of encounters a comparison is measured on (the batch-means K).
DEFAULT_RANGES = 32
LEVEL = 0.95


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
) -> list[TallyArrays]:
    """The tallies of each of ``ranges`` contiguous ranges of ``job``'s encounters.

    Merged, they equal :func:`simlab.engine.runner.run_local`'s tallies bit for bit.
    """
    runner.use_threads(threads)
    block, pace = runner.block_kernel(job), Pace()
    out = []
    for first, count in range_edges(job.n, ranges):
        out.append(runner.run_range(job, first, count, runner.chunks_for(count), block, pace))
        if progress is not None:
            progress(count)
    return out


@dataclass
class Comparison:
    """The outcome of :func:`compare`.

    Attributes
    ----------
    a, b : Result
        The two runs (same seed, same sample size, same dice).
    labels : (str, str)
        How A and B are named (file names, or the overrides).
    figures : pandas.DataFrame
        One row per figure both share: ``figure, on, a, b, diff`` (b − a),
        ``diff_ci_lo/hi`` (paired), ``diff_ci_independent_lo/hi``, ``changed`` (the
        paired interval excludes 0), ``p`` (the paired t test's two-sided p-value),
        ``p_holm`` and ``changed_holm`` (Holm-adjusted over all figures, below 0.05),
        ``narrowing`` (independent width / paired width); changed figures first, the
        most significant first.
    ranges : int
        K, the number of ranges the intervals are computed from.
    precision : dict or None
        How the sample size was chosen when run to a precision
        (:func:`simlab.api.compare`): the rule, and A's and B's stops.
    only_in_a, only_in_b : list of (str, str)
        The (figure, on) pairs one of the two has and the other does not (an attack
        pair, a combatant or a side of one only): not compared.
    """

    a: Result
    b: Result
    labels: tuple[str, str]
    figures: pd.DataFrame
    ranges: int
    precision: dict[str, Any] | None = None
    only_in_a: list[tuple[str, str]] = field(default_factory=list)
    only_in_b: list[tuple[str, str]] = field(default_factory=list)

    def __repr__(self) -> str:
        """One line: what was compared and how much changed (the dataclass's own repr
        printed both runs' tallies, some 28 kB)."""
        changed = int(self.figures.changed.sum()) if len(self.figures) else 0
        a, b = self.labels
        return (f"<Comparison {a} vs {b} · {self.a.encounters:,} encounters on the same dice"
                f" · {self.ranges} ranges: {changed} of {len(self.figures)} figures changed"
                f" (paired 95% interval); .figures>")  # fmt: skip

    def document(self) -> dict[str, Any]:
        """The ``compare.json`` document."""
        return {
            "a": self.labels[0], "b": self.labels[1], "scenario_a": self.a.scenario,
            "scenario_b": self.b.scenario, "rules": self.a.rules, "seed": self.a.seed,
            "encounters": self.a.encounters, "ranges": self.ranges, "interval_level": LEVEL,
            "figures": [
                {"figure": r.figure, "on": r.on, "a": _num(r.a), "b": _num(r.b),
                 "diff": _num(r.diff), "diff_ci": [_num(r.diff_ci_lo), _num(r.diff_ci_hi)],
                 "diff_ci_independent": [_num(r.diff_ci_independent_lo),
                                         _num(r.diff_ci_independent_hi)],
                 "changed": bool(r.changed), "p": _num(r.p), "p_holm": _num(r.p_holm),
                 "changed_holm": bool(r.changed_holm)}
                for r in self.figures.itertuples()
            ],
            "only_in_a": [{"figure": f, "on": on} for f, on in self.only_in_a],
            "only_in_b": [{"figure": f, "on": on} for f, on in self.only_in_b],
            **({"precision": self.precision} if self.precision else {}),
        }  # fmt: skip


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
        Called with the number of encounters finished (of both runs: 2n in all).

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
    per_range = [run_ranges(job, ranges, threads, progress) for job in jobs]
    results = [
        _result(scn, job, parts) for scn, job, parts in zip((a, b), jobs, per_range, strict=True)
    ]
    values = [[figure_values(t, job.layout, count) for t, (_, count) in
               zip(parts, range_edges(n, ranges), strict=True)]
              for job, parts in zip(jobs, per_range, strict=True)]  # fmt: skip
    whole = [figure_values(r.tallies, r.layout, n) for r in results]
    table = _difference_table(whole, values)
    only_a = [k for k in whole[0] if k not in whole[1]]
    only_b = [k for k in whole[1] if k not in whole[0]]
    return Comparison(results[0], results[1], labels, table, len(values[0]),
                      only_in_a=only_a, only_in_b=only_b)  # fmt: skip


def _result(scenario: ScenarioBase, job: runner.Job, parts: list[TallyArrays]) -> Result:
    total = new_tallies(job.layout)
    for part in parts:
        total = merge(total, part)
    from simlab.report.files import scenario_hash

    return Result(scenario=scenario.scenario, rules=scenario.rules, encounters=job.n,
                  seed=job.seed, layout=job.layout, tallies=total,
                  meta={"scenario_hash": scenario_hash(scenario)})  # fmt: skip


def _difference_table(
    whole: list[dict[tuple[str, str], float]], per_range: list[list[dict[tuple[str, str], float]]]
) -> pd.DataFrame:
    rows = []
    for key in [k for k in whole[0] if k in whole[1]]:
        a_k = np.array([v.get(key, np.nan) for v in per_range[0]])
        b_k = np.array([v.get(key, np.nan) for v in per_range[1]])
        diff = whole[1][key] - whole[0][key]
        paired, independent, p = _paired_stats(diff, a_k, b_k)
        rows.append({"figure": key[0], "on": key[1], "a": whole[0][key], "b": whole[1][key],
                     "diff": diff, "diff_ci_lo": diff - paired, "diff_ci_hi": diff + paired,
                     "diff_ci_independent_lo": diff - independent,
                     "diff_ci_independent_hi": diff + independent,
                     "p": p})  # fmt: skip
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    half = (frame.diff_ci_hi - frame.diff_ci_lo) / 2
    frame["changed"] = (frame.diff_ci_lo > 0) | (frame.diff_ci_hi < 0)
    frame["p_holm"] = stats.holm_adjust(frame.p.to_numpy())
    frame["changed_holm"] = frame.changed & (frame.p_holm < 1 - LEVEL)
    frame["narrowing"] = (frame.diff_ci_independent_hi - frame.diff_ci_independent_lo) / (2 * half)
    diff, width = frame["diff"].abs().to_numpy(), half.to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        strength = np.where(width > 0, diff / width, np.where(diff > 0, np.inf, 0.0))
    order = np.lexsort((-np.nan_to_num(strength), ~frame.changed.to_numpy()))
    return frame.iloc[order].reset_index(drop=True)


def _paired_stats(diff: float, a_k: np.ndarray, b_k: np.ndarray) -> tuple[float, float, float]:
    """Of ``diff`` = mean(b) − mean(a) measured on ranges ``a_k``, ``b_k``: the
    half-widths of the paired and the independent 95% interval, and the two-sided
    p-value of the paired t statistic ``diff / (sd(b_k − a_k) / √K)`` (below 0.05
    exactly when the paired interval excludes 0; with no spread between ranges, 1 for
    no difference and 0 for one). NaN with fewer than two ranges measured."""
    keep = np.isfinite(a_k) & np.isfinite(b_k)
    m = int(keep.sum())
    if m < 2:
        return np.nan, np.nan, np.nan
    t = stats.t_quantile(m - 1, LEVEL)
    sd = float(np.std(b_k[keep] - a_k[keep], ddof=1))
    paired = t * sd / np.sqrt(m)
    independent = t * np.sqrt(np.var(a_k[keep], ddof=1) + np.var(b_k[keep], ddof=1)) / np.sqrt(m)
    if not np.isfinite(diff):
        p = np.nan
    elif sd == 0:
        p = 1.0 if diff == 0 else 0.0
    else:
        p = stats.t_two_sided_p(diff / (sd / np.sqrt(m)), m - 1)
    return float(paired), float(independent), p
