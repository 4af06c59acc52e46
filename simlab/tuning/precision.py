"""Run to a precision: simulate in fixed stages until the figures are known well enough.

The rule (``--precision H``): every rate a run reports — hit and crit rate of each attack
pair, down rate of each combatant, win rate of each side, the draw rate — has a 95%
interval half-width of at most H, and every mean — mean damage of each pair, mean
encounter length, mean status damage — at most H × max(|mean|, 1). ``--precision-on``
restricts the rule to named figures (``FIGURE[:ON[@ARG]]``, pooled as in ``expect:``).
The sample size given (``-n`` or the scenario's ``encounters``) is a cap.

**Deterministic stopping.** The rule is checked only at fixed checkpoints that depend on
the cap alone: the cap divided by its prime factors in turn (10⁶ → 500,000 → 250,000 →
… → 15,625 → 3,125), never below :data:`MIN_CHECKPOINT` encounters. At checkpoint N the
tallies are exactly those of a run of N encounters: the encounters already played are
kept, and their batch sums (batch = encounter × B // n) are merged m at a time when the
next checkpoint is m × N, because ⌊⌊e·B/N⌋ / m⌋ = ⌊e·B/(m·N)⌋. The decision is made from
those integer tallies, so the same seed stops at the same count, with the same summary,
whatever the thread count, block size or number of Dask workers — and a run stopped at N
equals ``simlab run -n N`` bit for bit.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import numbers
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simlab.analysis import stats
from simlab.engine import runner
from simlab.engine.tallies import Layout, TallyArrays, merge
from simlab.errors import InputError
from simlab.report.words import counted
from simlab.tuning.compare import run_spans
from simlab.tuning.figures import (
    FigureRef,
    check_figure,
    crit_rate_problem,
    measure,
    pair_label,
    parse_figure,
)
from simlab.tuning.overrides import argument_label

__all__ = ["PrecisionRule", "RangesKept", "checkpoints", "coarsen", "precision_rule",
           "run_ranges_to_precision", "run_to_precision", "simulate_among",
           "stop_at_precision", "widest"]  # fmt: skip

#: The first checkpoint is never below this many encounters.
MIN_CHECKPOINT = 1000
LEVEL = 0.95
#: Tally arrays with a batch axis (the last axis), merged when batches are coarsened.
BATCHED = ("attempts", "hits", "crits", "damage_sum", "status_damage", "momentum_spent")


#: The figures the rule holds when no ``--precision-on`` names them (:func:`_reported`),
#: said so that a figure shown beside "precision met" but not held to it (a mean time to
#: down among the encounters that had it down, a rule event's rate) is not read as held.
EVERY_FIGURE_HELD = ("every hit, crit, down, win and draw rate, and every mean but the mean "
                     "time-to-down if downed")  # fmt: skip


@dataclass(frozen=True)
class PrecisionRule:
    """Stop when every checked figure's 95% half-width is at most ``half_width`` (rates)
    or ``half_width`` × max(|mean|, 1) (means); ``on`` restricts the figures checked."""

    half_width: float
    on: tuple[FigureRef, ...] = ()
    #: The crit rates of ``on`` that are exactly 0 in this variant, which cannot crit
    #: there, where another run beside it can (:func:`precision_rule`'s ``others``): no
    #: spread, so they hold no run back.
    cannot_crit: tuple[FigureRef, ...] = ()

    def describe(self) -> str:
        """The rule in words, as reports and ``summary.json`` give it."""
        what = ", ".join(map(str, self.on)) if self.on else EVERY_FIGURE_HELD
        return (f"95% half-width ≤ {self.half_width:g} for rates and ≤ {self.half_width:g} × "
                f"max(|mean|, 1) for means; on {what}")  # fmt: skip


def precision_rule(
    half_width: float,
    on: Iterable[str | FigureRef] = (),
    layout: Layout | None = None,
    scenario: Any = None,
    others: Sequence[Any] = (),
) -> PrecisionRule:
    """A :class:`PrecisionRule` from the ``precision`` and ``precision_on`` arguments
    (``--precision H`` is checked by the command line; its ``--precision-on`` figures come
    parsed, each with its label).

    ``others``: the scenarios of the variants run beside ``scenario`` (a comparison's A
    and B, a sweep's points, a tune's values), as
    :func:`~simlab.tuning.figures.check_figure` takes them: a crit rate is refused only
    where it cannot crit in any of them, and is exactly 0 where ``scenario`` cannot
    crit (:attr:`PrecisionRule.cannot_crit`).

    Raises
    ------
    InputError
        Naming the argument when H is not in (0, 1] or a figure is unknown, or (given
        ``layout``) names something the scenario does not have, or (given the
        ``scenario``) a name that would pool a combatant with copies
        (:func:`simlab.tuning.figures.check_figure`).
    """
    if isinstance(half_width, bool) or not isinstance(half_width, numbers.Real):
        raise InputError(f"expected a half-width in (0, 1] for precision; got {half_width!r}")
    if not 0 < half_width <= 1:
        raise InputError(f"expected a half-width in (0, 1] for precision; got {half_width:g}")
    refs = []
    for item in (on,) if isinstance(on, str) else on:  # one figure, written alone
        label = getattr(item, "label", "") or argument_label("precision_on", str(item))
        ref = item if isinstance(item, FigureRef) else parse_figure(str(item), label)
        if layout is not None:
            check_figure(ref, layout, label, scenario, others)
        refs.append(ref)
    nil = [ref for ref in refs if others and crit_rate_problem(ref, scenario)]
    return PrecisionRule(float(half_width), tuple(refs), tuple(nil))


def checkpoints(cap: int) -> list[int]:
    """The encounter counts at which the rule is checked, increasing, ending at ``cap``.

    Each is the next one divided by its smallest prime factor, down to
    :data:`MIN_CHECKPOINT`; a prime cap has one checkpoint (use a round ``-n``).
    """
    out = [cap]
    while True:
        factor = _smallest_factor(out[-1])
        if factor == out[-1] or out[-1] // factor < MIN_CHECKPOINT:
            return out[::-1]
        out.append(out[-1] // factor)


def _smallest_factor(n: int) -> int:
    if n % 2 == 0:
        return 2
    f = 3
    while f * f <= n:
        if n % f == 0:
            return f
        f += 2
    return n


def coarsen(tallies: TallyArrays, factor: int) -> TallyArrays:
    """The tallies of the same encounters with batches of a run ``factor`` times longer:
    batch b becomes batch b // factor (see the module docstring)."""
    changed = {}
    for name in BATCHED:
        old = getattr(tallies, name)
        new = np.zeros_like(old)
        for b in range(old.shape[-1]):
            new[..., b // factor] += old[..., b]
        changed[name] = new
    return tallies._replace(**changed)


def widest(
    tallies: TallyArrays, layout: Layout, n: int, rule: PrecisionRule
) -> list[dict[str, Any]]:
    """Every figure the rule checks with its half-width and limit, widest (relative to
    its limit) first: ``{"figure", "on", "value", "half_width", "limit"}``."""
    rows = _named_figures(tallies, layout, n, rule) if rule.on else _reported(tallies, layout, n)
    out = []
    for figure, on, is_rate, (value, lo, hi) in rows:
        if not np.isfinite(value):
            continue
        limit = rule.half_width * (1.0 if is_rate else max(abs(value), 1.0))
        half = (hi - lo) / 2 if np.isfinite(hi - lo) else np.inf
        out.append({"figure": figure, "on": on, "value": float(value), "half_width": float(half),
                    "limit": float(limit)})  # fmt: skip
    return sorted(out, key=lambda r: -r["half_width"] / r["limit"])


Measured = tuple[str, str, bool, tuple[float, float, float]]


def _named_figures(
    tallies: TallyArrays, layout: Layout, n: int, rule: PrecisionRule
) -> list[Measured]:
    return [(r.figure, r.on + (f"@{r.arg}" if r.arg else ""), r.is_rate,
             _measured(tallies, layout, n, rule, r)) for r in rule.on]  # fmt: skip


def _measured(tallies: TallyArrays, layout: Layout, n: int, rule: PrecisionRule,
              ref: FigureRef) -> tuple[float, float, float]:  # fmt: skip
    """``ref``'s value and interval; a crit rate this variant cannot have exactly 0, with
    no spread (an interval of no crit seen in k attacks is wider than 0)."""
    if ref in rule.cannot_crit:
        return 0.0, 0.0, 0.0
    return measure(tallies, layout, n, ref, LEVEL)


def _rate(k: int, trials: int) -> tuple[float, float, float]:
    lo, hi, _ = stats.rate_interval(k, trials, LEVEL)
    return k / trials, float(lo), float(hi)


def _reported(tallies: TallyArrays, layout: Layout, n: int) -> list[Measured]:
    """The rates and means ``summary.json`` reports, each with its interval."""
    rows: list[Measured] = []
    attempts = tallies.attempts.sum(axis=1)
    for p in np.flatnonzero(attempts):
        a, k, d = layout.unpair(int(p))
        on = pair_label(layout.combatants[a][1], layout.attacks[k], layout.combatants[d][1])
        total = int(attempts[p])
        rows.append(("hit_rate", on, True, _rate(int(tallies.hits[p].sum()), total)))
        rows.append(("crit_rate", on, True, _rate(int(tallies.crits[p].sum()), total)))
        damage = stats.ratio_batch_means(tallies.damage_sum[p], tallies.attempts[p], LEVEL)
        rows.append(("mean_damage", on, False, damage))
    per_batch = np.diff(-(-np.arange(layout.batches + 1) * n // layout.batches))
    for c, (_, name) in enumerate(layout.combatants):
        rows.append(("down_rate", name, True, _rate(int(tallies.down_round[c].sum()), n)))
        for tally in layout.per_encounter_tallies:
            per_encounter = stats.ratio_batch_means(getattr(tallies, tally)[c], per_batch, LEVEL)
            rows.append((f"mean_{tally}", name, False, per_encounter))
    for s, side in enumerate(layout.sides):
        rows.append(("win_rate", side, True, _rate(int(tallies.winner[s]), n)))
    rows.append(("draw_rate", "", True, _rate(int(tallies.winner[-1]), n)))
    mean, var = stats.histogram_mean_var(tallies.rounds)
    half = stats.normal_quantile(LEVEL) * np.sqrt(var / n)
    rows.append(("mean_rounds", "", False, (mean, mean - half, mean + half)))
    return rows


def met(rows: list[dict[str, Any]]) -> bool:
    """Whether every checked figure is within its limit."""
    return all(r["half_width"] <= r["limit"] for r in rows)


def unmeasured(tallies: TallyArrays, layout: Layout, n: int, rule: PrecisionRule) -> list[str]:
    """The figures ``--precision-on`` names that the tallies give no value yet (a pair
    nobody has attacked, the time-to-down of a combatant nobody has downed): no interval
    to judge, so the rule does not hold. (A median never reached is a value: infinite.)"""
    return [str(r) for r in rule.on if np.isnan(_measured(tallies, layout, n, rule, r)[0])]


def run_to_precision(
    job: runner.Job,
    rule: PrecisionRule,
    *,
    threads: int | None = None,
    block_size: int | None = None,
    progress: runner.Progress | None = None,
    client: Any = None,
) -> tuple[TallyArrays, int, dict[str, Any]]:
    """Simulate ``job`` (``job.n`` is the cap) checkpoint by checkpoint until ``rule`` holds.

    Returns
    -------
    tallies, encounters, record
        The tallies of the first ``encounters`` encounters (equal to a run of that many)
        and the record ``summary.json`` keeps under ``"precision"``: the rule, the cap,
        whether the rule was met or the cap reached, the checkpoints used and the widest
        figure relative to its limit.
    """

    def play(n_total: int, first: int, count: int) -> TallyArrays:
        stage = dataclasses.replace(job, n=n_total)
        if client is not None:
            from simlab.engine.distributed import run_dask

            return run_dask(stage, client, block_size, progress, first, count)
        return runner.run_local_range(
            stage, first, count, threads, block_size or runner.DEFAULT_BLOCK, progress
        )

    return stop_at_precision(job.n, job.layout, rule, play)


def simulate_among(
    scenario: Any,
    others: Sequence[Any],
    n: int,
    seed: int,
    precision: float | None,
    precision_on: Iterable[Any],
    *,
    threads: int | None = None,
    progress: runner.Progress | None = None,
    client: Any = None,
) -> Any:
    """:func:`simlab.simulate` of ``scenario`` (to ``precision`` on ``precision_on``,
    where given or the scenario's) as one of the variants ``others`` run side by side (a
    sweep's points, a tune's values): run to a precision, a crit rate is refused only
    where none of them can crit, and is exactly 0 where ``scenario`` cannot
    (:func:`precision_rule`). Elsewhere the same result, bit for bit: the one place a
    sweep or a tune runs a variant, with or without a precision.

    Returns
    -------
    Result
        Run to a precision, its ``meta["precision"]`` the run's record, ``cannot_crit``
        naming the crit rates that were exactly 0.

    Raises
    ------
    InputError
        ``precision_on`` without a precision (:func:`simlab.arguments.precision_on_argument`),
        or as :func:`precision_rule` refuses it.
    """
    from simlab.api import compile_job, simulate_job
    from simlab.arguments import precision_on_argument

    precision = scenario.precision if precision is None else precision
    precision_on = precision_on_argument(precision, precision_on)
    return simulate_job(scenario, compile_job(scenario, n, seed), precision, precision_on,
                        others, threads=threads, progress=progress, client=client)  # fmt: skip


Play = Callable[[int, int, int], TallyArrays]
#: The ranges of encounters a run of N is measured on: ``(first, count)`` of each.
RangesOf = Callable[[int], list[tuple[int, int]]]


@dataclass
class RangesKept:
    """A run to a precision (:func:`run_ranges_to_precision`) that keeps its tallies in
    pieces, each within one range of ``ranges_of(N)`` for every checkpoint N of its cap
    (``job.n``): ``pieces`` holds ``(first, count, n_total, tallies)``, batches those of
    a run of ``n_total``; ``stop`` and ``record`` are :func:`run_to_precision`'s."""

    job: runner.Job
    ranges_of: RangesOf
    threads: int | None = None
    progress: runner.Progress | None = None
    client: Any = None
    pieces: list[tuple[int, int, int, TallyArrays]] = dataclasses.field(default_factory=list)
    stop: int = 0
    record: dict[str, Any] = dataclasses.field(default_factory=dict)

    def play(self, n_total: int, first: int, count: int) -> TallyArrays:
        """The tallies of encounters ``first .. first+count-1`` with the batches of a run
        of ``n_total`` (:data:`Play`), played and kept in pieces cut at every
        checkpoint's range edges (on a cluster, all sent at once)."""
        stops = checkpoints(self.job.n)
        cuts = {lo for stop in stops for lo, _ in self.ranges_of(stop)} | set(stops)
        edges = [first, *sorted(c for c in cuts if first < c < first + count), first + count]
        spans = [(lo, hi - lo) for lo, hi in itertools.pairwise(edges)]
        stage = dataclasses.replace(self.job, n=n_total)
        parts = run_spans(stage, spans, self.threads, self.progress, self.client)
        self.pieces += [(lo, size, n_total, t) for (lo, size), t in zip(spans, parts, strict=True)]
        return functools.reduce(merge, parts)

    def ranges_at(self, n: int) -> list[TallyArrays] | None:
        """The tallies of each of ``ranges_of(n)`` of a run of ``n`` encounters, equal to
        playing them anew (:func:`simlab.engine.runner.run_range` with ``job.n = n``):
        from the pieces kept, with only the encounters past the stop played (when ``n``
        is above it); None when ``n`` is not a checkpoint of the cap (its pieces would
        straddle the ranges) or below the stop."""
        if n not in checkpoints(self.job.n) or n < self.stop:
            return None
        if n > self.stop:
            self.play(n, self.stop, n - self.stop)
            self.stop = n
        out = []
        for lo, count in self.ranges_of(n):
            inside = [p for p in self.pieces if lo <= p[0] and p[0] + p[1] <= lo + count]
            assert sum(p[1] for p in inside) == count, "pieces straddle the ranges"
            parts = [coarsen(t, n // n_total) if n_total != n else t
                     for _, _, n_total, t in inside]  # fmt: skip
            out.append(functools.reduce(merge, parts))
        return out


def run_ranges_to_precision(
    job: runner.Job,
    rule: PrecisionRule,
    ranges_of: RangesOf,
    *,
    threads: int | None = None,
    progress: runner.Progress | None = None,
    client: Any = None,
) -> RangesKept:
    """:func:`run_to_precision`, keeping the tallies of the ranges ``ranges_of(N)`` a run
    of N is measured on (a comparison's, :func:`simlab.tuning.compare.range_edges`),
    so that a comparison at the stop, or at a later checkpoint, need not play the
    variant again (:meth:`RangesKept.ranges_at`). The stop and record are
    :func:`run_to_precision`'s: how a run is cut changes no tally."""
    kept = RangesKept(job, ranges_of, threads, progress, client)
    _, kept.stop, kept.record = stop_at_precision(job.n, job.layout, rule, kept.play)
    return kept


def stop_at_precision(
    cap: int, layout: Layout, rule: PrecisionRule, play: Play
) -> tuple[TallyArrays, int, dict[str, Any]]:
    """The checkpoint loop of :func:`run_to_precision`, over any source of tallies.

    ``play(n_total, first, count)`` returns the tallies of encounters ``first ..
    first+count-1`` with the batches of a run of ``n_total`` (synthetic tallies in the
    tests of the rule's coverage).
    """
    total: TallyArrays | None = None
    done = 0
    used = []
    rows: list[dict[str, Any]] = []
    missing: list[str] = []
    for stop in checkpoints(cap):
        if total is not None:
            total = coarsen(total, stop // done)
        part = play(stop, done, stop - done)
        total = part if total is None else merge(total, part)
        done = stop
        used.append(stop)
        rows = widest(total, layout, done, rule)
        missing = unmeasured(total, layout, done, rule)
        if met(rows) and not missing:
            break
    assert total is not None
    ok = met(rows) and not missing
    record = {
        "rule": rule.describe(), "half_width": rule.half_width,
        "on": [str(r) for r in rule.on] or "all", "interval_level": LEVEL, "cap": cap,
        "encounters": done, "met": ok, "cap_reached": not ok, "checkpoints": used,
        "widest": rows[0] if rows else None,
        **({"unmeasured": missing} if missing else {}),
        **({"cannot_crit": [str(r) for r in rule.cannot_crit]} if rule.cannot_crit else {}),
    }  # fmt: skip
    return total, done, record


def describe_record(record: dict[str, Any], whose: str = "") -> str:
    """One sentence on how a precision-stopped run was obtained (terminal and reports);
    ``whose`` names the run its widest figure is of, among several (``widest (B: duel
    with Brute.hp=40): …``)."""
    how = (f"stopped at {counted(record['encounters'], 'encounter')} (cap {record['cap']:,}): "
           f"{record['rule']}" if record["met"] else
           f"cap of {counted(record['cap'], 'encounter')} reached before the precision was met "
           f"({record['rule']})")  # fmt: skip
    widest = record.get("widest")
    if widest:
        on = widest["on"]  # an attack pair's label (no typed spelling) is said with "of"
        on = f" of {on}" if " → " in on else f":{on}" if on else ""  # as --precision-on
        of = f" ({whose})" if whose else ""
        how += (f"; widest{of}: {widest['figure']}{on} ±{widest['half_width']:.3g} "
                f"(limit {widest['limit']:.3g})")  # fmt: skip
        if not record["met"] and not record.get("unmeasured"):
            how += _encounters_needed(record["encounters"], widest)
    if record.get("unmeasured"):
        how += f"; never measured: {', '.join(record['unmeasured'])}"
    return how


def _encounters_needed(encounters: int, widest: dict[str, Any]) -> str:
    """About how many encounters the widest figure of a run that reached its cap would
    need to meet its limit, its half-width shrinking as 1/√n, rounded up to two
    significant digits (``; about 110,000 encounters would meet it, …``); "" where its
    half-width is infinite."""
    ratio = widest["half_width"] / widest["limit"]
    if not np.isfinite(ratio):
        return ""
    needed = encounters * ratio**2
    step = 10 ** max(int(np.floor(np.log10(needed))) - 1, 0)
    about = int(np.ceil(needed / step) * step)
    return f"; about {about:,} encounters would meet it, a half-width shrinking as 1/√n"
