"""Inverse tuning: the value of one field that brings a figure to a target.

``tune(scenario, "Defender.hp", 5, 60, "median_time_to_down:Defender", 5)`` answers
"what HP gives a median time-to-down of 5 rounds?". Every value is the scenario with an
override (:mod:`simlab.tuning.overrides`), measured by the exact engine where it gives
the figure and otherwise simulated on the **same seed and sample size** (common random
numbers: neighbouring values play the same dice, so the figure moves with the field, not
with the luck).

The search: a coarse grid of :data:`GRID` values (both ends included), then bisection
inside every pair of neighbouring grid values whose figures bracket the target, until the
bracket is two neighbouring integers (integer fields) or narrower than 1/1024 of the
range. The value reported is the evaluated one whose figure is closest to the target; its
neighbours are evaluated too. The **consistent range** is the set of values whose
figure's 95% interval contains the target (an exact figure: equals it); it is null when
the reported value itself is not consistent.

Bisection assumes the figure moves one way as the value grows. That is checked on every
value evaluated: a move beyond noise (beyond either value's interval, and beyond
rounding) followed by one the other way is a **turn** (:meth:`TuneResult.turns`).
Where there is none, the search is plain bisection and the consistent range is bisected
from the reported value towards each end. Where the figure turns, that would step over
values that are not consistent (a figure that meets the target at both ends and dips
between read as consistent over the whole range) and keep one crossing of several, so
(:func:`_search_turning`) every place where the figure meets the target among the values
evaluated (:attr:`TuneResult.crossings`) is narrowed on its own, the consistent range is
the place of the reported value alone, and where no value meets the target the values
round the closest figure inside the range are narrowed towards it (a peak between grid
values may reach the target, and is closer than an end). The result says all of it
(:meth:`TuneResult.caveats`: where it turns, every place, what to do). A turn between
two values tried that both lie on one side of the target cannot be seen: the figure is
assumed monotone between the values evaluated. A **flat stretch** round the reported
value, values tried with the very same figure (:meth:`TuneResult.flat_stretch`), makes
the answer that range where it is consistent with the target, and is said so too. A
target no value reaches is given the closest end, or, where the figure is flat from that
end inwards (a hit rate at a natural 20's floor from some DC up), the value where that
stretch begins, bisected to neighbouring values (:func:`_start_of_flat_end`): the least
change that comes as close, not the far end of a stretch that changes nothing.

**A figure the field does not move** (:attr:`TuneResult.flat`) is searched by a grid and
said so, not called monotone: the same figure at every value (an exact one, or a field
the rules do not read for it), or, simulated, one that no value moves beyond its noise.
Values run to a precision stop at counts of their own and cannot be paired: their figure
is flat when every value's 95% interval overlaps every other's. Where every simulated
value's interval overlaps every other's (and none was run to a precision), each value is
played again in the contiguous ranges of encounters a comparison pairs (the same tallies
as one run, bit for bit), so the figures at two values are paired on the same dice,
range by range, as ``simlab compare`` pairs A and B: the figure is flat when the ends
are not significantly apart (paired 95% interval of the difference), nor any two values
after Holm's correction over the pairs. A figure two of whose values' intervals do not
overlap moved, and is not played again: played in ranges from the start, every tune of a
small sample took twice as long (``ss-2v2`` at 2×10⁴ encounters a value, 0.28 s against
0.59 s). Common random numbers make a real move, however small, stand out of that
pairing where it stays inside each figure's own interval (a Brute's HP raised by one
moves the mean length by 0.03 rounds, ±0.008 paired, inside intervals of ±0.08); the
ends' test, the most telling for a figure that moves one way, keeps it from reading as
flat.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from simlab.arguments import figures_argument
from simlab.binding import checked_arguments
from simlab.errors import ExactUnsupported, InputError
from simlab.limits import encounters_and_seed
from simlab.report.words import counted
from simlab.scenario.common import ScenarioBase
from simlab.tuning.figures import (
    FigureRef,
    check_figure,
    exact_measure,
    measure,
    measure_with_kind,
    parse_figure,
)
from simlab.tuning.overrides import (
    Override,
    apply_overrides,
    argument_label,
    flat_dice_note,
    parse_value,
    plain_value,
    refuse_range_slip,
    refuse_run_changes,
    refuse_spec_changes,
)

__all__ = ["Evaluation", "Range", "Target", "TuneResult", "parse_range", "parse_target", "tune"]

#: Values of the coarse grid the search starts from (both ends included).
GRID = 5
#: A real-valued field is bisected until the bracket is this fraction of the range.
RESOLUTION = 1 / 1024
#: Exact figures equal the target within this (relative) tolerance.
EXACT_TOLERANCE = 1e-9
#: Two figures closer than this (relative to the larger) differ by rounding alone: the
#: exact engine sums hundreds of terms, each rounded to half an ulp (1.1e-16 relative),
#: so one figure may come out 1e-16 apart at two values (a down rate of 1 read as
#: 0.9999999999999998); 1e-12 is some ten thousand ulps, and a figure a field moves
#: moves by far more than that.
ROUNDING = 1e-12
#: Two values' figures are significantly apart below this p-value (:func:`paired_p`).
SIGNIFICANCE = 0.05
#: How a tuning says that no value moved the figure beyond its noise.
WITHIN_NOISE = "no value tried moves the figure beyond its noise: "
#: Why a figure is within its noise, for values paired on the same dice and for values
#: run to a precision (their own sample sizes: unpaired).
NOISE_RULE = {"paired": "on the same dice, no two values' figures are significantly apart",
              "unpaired": "every value's 95% interval overlaps every other's"}  # fmt: skip


@dataclass(frozen=True)
class Target:
    """A figure and the value it should have: ``median_time_to_down:Defender=5``."""

    figure: FigureRef
    value: float
    label: str

    def __str__(self) -> str:
        return f"{self.figure}={self.value:g}"


def parse_target(text: str, option: str = "--target") -> Target:
    """Read ``FIGURE[:ON[@ARG]]=VALUE``.

    Raises
    ------
    InputError
        Naming the argument when the form, the figure or the value is wrong (a rate
        outside [0, 1], a negative round or length).
    """
    label = argument_label(option, text)
    figure_text, equals, value_text = text.rpartition("=")
    if not equals or not figure_text.strip():
        raise InputError(f"{label}: expected FIGURE[:ON]=VALUE (e.g. "
                         f"median_time_to_down:Brute=3); got no '='")  # fmt: skip
    ref = parse_figure(figure_text, label)
    value = parse_value(value_text.strip(), label)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{label}: expected a number after '='; got {value_text.strip()!r}")
    if ref.is_rate and not 0 <= value <= 1:
        raise InputError(f"{label}: expected a rate between 0 and 1; got {value:g}")
    if not ref.is_rate and ref.figure != "mean_damage" and value < 0:
        raise InputError(f"{label}: expected a value of at least 0; got {value:g}")
    return Target(ref, float(value), label)


#: Figures counted in rounds: a run never measures one past its round cap.
ROUND_FIGURES = ("median_time_to_down", "mean_time_to_down", "mean_rounds")


def check_rounds(target: Target, cap: int) -> None:
    """Refuse a target in rounds that no run with round cap ``cap`` can show: a median or
    mean time-to-down, or a mean length, above the cap (or below round 1).

    Raises
    ------
    InputError
        Naming the target.
    """
    if target.figure.figure in ROUND_FIGURES and not 1 <= target.value <= cap:
        raise InputError(f"{target.label}: expected a number of rounds from 1 to {cap} (the "
                         f"round cap); got {target.value:g}")  # fmt: skip


class Range(NamedTuple):
    """The field a tune searches and the ends of its range; ``label`` names it in
    messages as it was given (``--vary Defender.hp=5:60``)."""

    field: str
    lo: Any
    hi: Any
    label: str


def parse_range(text: str, option: str = "--vary") -> Range:
    """Read ``NAME.FIELD=LO:HI`` (integers for an integer field; numbers otherwise).

    Raises
    ------
    InputError
        Naming the argument when the form is wrong (a STEP too) or LO ≥ HI.
    """
    label = argument_label(option, text)
    name, equals, spec = text.partition("=")
    lo_text, colon, hi_text = spec.partition(":")
    if equals and name.strip():
        refuse_range_slip(name, spec, label)
    if not equals or not name.strip() or not colon:
        raise InputError(f"{label}: expected NAME.FIELD=LO:HI (e.g. Defender.hp=5:60); "
                         f"got {text!r}")  # fmt: skip
    if ":" in hi_text:  # sweep's LO:HI:STEP
        sweep = "simlab sweep" if option.startswith("--") else "simlab.sweep"
        raise InputError(f"{label}: expected LO:HI without a STEP (tune bisects the range; "
                         f"{sweep} takes a STEP); got {spec!r}")  # fmt: skip
    lo, hi = (parse_value(part.strip(), label) for part in (lo_text, hi_text))
    _check_range(lo, hi, label, repr(spec))
    return Range(name.strip(), lo, hi, label)


@dataclass(frozen=True)
class Evaluation:
    """The figure at one value: ``lo``/``hi`` its 95% interval (equal to it when exact);
    ``encounters`` the encounters simulated for it (None when exact), which differ from
    value to value when each runs to a precision; ``capped`` whether that run reached
    its cap before the precision was met; ``per_range`` the figure on each of the
    contiguous ranges of encounters the run was played in again where the figure may not
    move beyond its noise (:func:`_may_be_flat`), which pair it with another value's on
    the same dice (:func:`paired_p`); ``ci_kind`` the kind of a simulated figure's
    interval, as a sweep's ``*_ci_kind`` columns name it (``wilson``,
    ``clopper-pearson``, ``batch-means``, ``normal``, ``band-crossing``;
    :func:`~simlab.tuning.figures.measure_with_kind`)."""

    value: float
    figure: float
    lo: float
    hi: float
    method: str  # "exact" or "simulated"
    encounters: int | None = None
    capped: bool = False
    per_range: tuple[float, ...] = dataclasses.field(default=(), repr=False)
    ci_kind: str = dataclasses.field(default="", repr=False)

    def __repr__(self) -> str:
        """The dataclass's repr, a figure or interval end that the round cap does not
        reach (a median time-to-down, ``inf`` in the numbers) said as the terminal says
        it, ``not reached``, where ``figure=inf`` read as a figure of its own."""
        fields = [f"{f.name}={_said(getattr(self, f.name))}"
                  for f in dataclasses.fields(self) if f.repr]  # fmt: skip
        return f"Evaluation({', '.join(fields)})"

    def contains(self, target: float) -> bool:
        """Whether the target is consistent with this figure: inside its 95% interval
        (an exact figure: equal to it, to :data:`EXACT_TOLERANCE`). The one rule of
        every "consistent" a tuning says (the consistent range, :meth:`TuneResult.evaluated`,
        ``tune.html``'s table): a median time-to-down the round cap does not reach,
        ``not reached [8, —]``, is consistent with a target of 10 rounds, which its
        interval does not rule out."""
        if self.method == "exact":
            return abs(self.figure - target) <= EXACT_TOLERANCE * max(1.0, abs(target))
        return self.lo <= target <= self.hi


def _said(value: Any) -> str:
    """A field of an :class:`Evaluation` in its repr: an infinite figure (a median
    time-to-down the round cap does not reach) as the terminal's ``not reached``."""
    from simlab.report.terminal import NOT_REACHED

    return NOT_REACHED if isinstance(value, float) and math.isinf(value) else repr(value)


@dataclass
class TuneResult:
    """The outcome of :func:`tune`.

    Attributes
    ----------
    field : str
        The varied field (``NAME.FIELD``); ``lo``, ``hi`` its range; ``integer`` whether
        it was searched as integers.
    target : Target
        The figure and the value wanted.
    value : float
        The evaluated value whose figure is closest to the target.
    best : Evaluation
        The figure there, with its interval and how it was obtained.
    consistent : (float, float) or None
        The range of values whose figure is consistent with the target.
    reachable : bool
        False when the target is outside the figures reached over the range (``value``
        is then the closest end, or where a stretch of the very same figure running to
        it begins: the least change that comes as close).
    monotone : bool or None
        Whether the figure was monotone over the values evaluated; None, as in
        ``tune.json``, where it did not move with the field (:attr:`searched`: the field
        does not move it, :attr:`flat`, or no value gave it), as the terminal then says
        "by a grid".
    evaluations : list of Evaluation
        Every value evaluated, in increasing order (as a table: :meth:`evaluated`).
    overrides : tuple of str
        The changes every value shares (``--set``, :func:`simlab.override`),
        ``NAME.FIELD=VALUE`` in order.
    precision, precision_on : float or None, tuple of str
        The precision each simulated value ran to, and the figures it was checked on.
    crossings : list of Crossing
        Where the figure meets the target among the values evaluated: one place where
        it is monotone (the consistent range, or the neighbours the target lies
        between), every place where it turns (:meth:`turns`); none where no value
        reaches the target.
    notes : tuple of str
        What the terminal, the repr and the page say of the values tried: a dice field
        tuned over whole numbers tries flat numbers
        (:func:`~simlab.tuning.overrides.flat_dice_note`).
    """

    scenario: str
    rules: str
    seed: int
    encounters: int
    field: str
    lo: float
    hi: float
    integer: bool
    target: Target
    evaluations: list[Evaluation] = dataclasses.field(default_factory=list)
    value: float = math.nan
    consistent: tuple[float, float] | None = None
    reachable: bool = True
    monotone: bool | None = True
    precision: float | None = None
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)
    overrides: tuple[str, ...] = ()
    precision_on: tuple[str, ...] = ()
    crossings: list[Crossing] = dataclasses.field(default_factory=list)
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        """One line: the value found, its figure and where the rest is (the dataclass's
        own repr listed every evaluation, some 1.5 kB for a short search)."""
        found = next((e for e in self.evaluations if e.value == self.value), None)
        answer = "nothing evaluated"
        if found is not None:  # as the terminal shows it: agreeing with its verdict
            from simlab.report.terminal import held_to
            from simlab.report.tuning_terminal import tuned_figure

            with held_to(self.precision):  # its half-width within its limit reads so
                shown = tuned_figure(self.target.figure.figure, found, self.target.value)
            if found.method != "exact":
                shown += f" ({found.method})"
            answer = f"{self.field}={_show(self.value)} gives {shown}"
        if not self.measured:  # why, as the terminal says (not reached, for a median)
            from simlab.report.tuning_terminal import _unmeasured

            answer = f"no value gave the figure: {_unmeasured(self.target.figure.figure)}"
        elif self.flat:  # unreachable where the figure the field leaves is not the target's
            unreachable = "" if self.reachable else "unreachable, "
            moved = (
                "as every value does"
                if self.identical
                else "and no value moves it beyond its noise"
            )
            answer = f"{unreachable}{answer}, {moved}"
        elif not self.reachable:  # as the terminal's "Unreachable:" line says it
            answer = (f"unreachable, the closest figure reached is {shown}, at "
                      f"{self.field}={_show(self.value)}")  # fmt: skip
        elif past := self.past_the_range():  # the range searched cut the consistent one
            lo, hi = (_show(x) for x in self.consistent or ())
            answer += f", consistent with the target at {lo}..{hi}{past}"
        if self.turns():  # the figure turns: where else it meets the target, if anywhere
            answer += f", NOT monotone: it turns near {_listed(self.turns())}"
            if len(self.crossings) > 1:
                places = ", ".join(c.said() for c in self.crossings)
                answer += f" and meets the target at {len(self.crossings)} places ({places})"
        if (stretch := self.flat_stretch()) is not None:
            span = f"every value tried from {_show(stretch[0])} to {_show(stretch[1])}"
            answer += f", as does {span}" if self.reachable else f" (the same at {span})"
        notes = "".join(f" ({note})" for note in self.notes)
        return (f"<TuneResult {self.scenario} · rules {self.rules} · {self.field} over "
                f"{_show(self.lo)}..{_show(self.hi)}{notes} for {self.target}: {answer}; "
                f"{counted(len(self.evaluations), 'value')} evaluated; .value, .best, "
                ".evaluated(), .evaluations, .how()>")  # fmt: skip

    @property
    def measured(self) -> bool:
        """Whether some value evaluated gave the figure a value: a mean time-to-down of a
        combatant nobody downs gives none (NaN), and a median time-to-down that the
        round cap does not reach (``inf``, ``not reached``) at every value gives nothing
        a target in rounds can be held against either."""
        return any(math.isfinite(e.figure) for e in self.evaluations)

    @property
    def flat(self) -> bool:
        """Whether the field does not move the figure over the values tried: every value
        gave the same figure (:attr:`identical`), or, simulated on the same dice, no
        value moved it beyond its noise (:attr:`within_noise`). Nothing is tuned then:
        the search was a grid, whatever order the noise put the figures in."""
        return self.identical or self.within_noise

    @property
    def identical(self) -> bool:
        """Whether every value evaluated gave the same figure with the same interval (to
        rounding, :data:`ROUNDING`): on the same dice, the field changed nothing the
        figure counts, over the values tried (a field the rules do not read for it)."""
        first, *rest = self.evaluations
        return bool(rest) and all(
            math.isclose(getattr(e, x), getattr(first, x), rel_tol=ROUNDING)
            for e in rest
            for x in ("figure", "lo", "hi")
        )

    @property
    def within_noise(self) -> bool:
        """Whether, simulated on the same dice, no value moved the figure beyond its
        noise: the ends' figures are not significantly apart (paired 95% interval of
        their difference, :func:`paired_p`), nor, after Holm's correction over all the
        pairs, any two values' (a figure that rises and falls back). A real move,
        however small, that the pairing tells from noise is not flat: the ends' test
        alone, the most telling for a figure that moves one way, marks it. Values run
        to a precision (each its own sample size: nothing to pair with) are within
        their noise when every value's 95% interval overlaps every other's
        (:func:`_may_be_flat`). False where a value is exact, or a figure was not
        measured."""
        done = self.evaluations
        if self.precision is not None:
            return _may_be_flat(done)
        if len(done) < 2 or not all(e.per_range and math.isfinite(e.figure) for e in done):
            return False
        from simlab.analysis.stats import holm_adjust

        pairs = [paired_p(a, b) for a, b in itertools.combinations(done, 2)]
        return paired_p(done[0], done[-1]) >= SIGNIFICANCE and bool(
            np.nanmin(holm_adjust(pairs), initial=1.0) >= SIGNIFICANCE
        )

    @property
    def noise_rule(self) -> str:
        """Why :attr:`within_noise` holds, in words (:data:`NOISE_RULE`): paired on the
        same dice, or, for values run to a precision, intervals that all overlap."""
        return NOISE_RULE["unpaired" if self.precision is not None else "paired"]

    @property
    def searched(self) -> bool:
        """Whether the figure moved with the field, so that :attr:`monotone` says
        something: not where no value gave it (:attr:`measured`), nor where the field
        does not move it (:attr:`flat`). ``tune.json``'s ``monotone`` is null then, as the
        terminal says "by a grid", not "monotone"."""
        return self.measured and not self.flat

    def past_the_range(self) -> str:
        """Where the consistent range reaches an end of the range searched, that values
        beyond it may be consistent too, since none was tried there: `` (it reaches the
        range's end, 30: values above it may be consistent too)``; "" where it stops
        inside the range, or there is none. The value found, nearest the middle of the
        consistent values tried, may then lie off the middle of them all."""
        if self.consistent is None:
            return ""
        ends = [(_show(end), side) for end, reached, side in
                zip((self.lo, self.hi), self.consistent, ("below", "above"), strict=True)
                if math.isclose(end, reached, rel_tol=ROUNDING, abs_tol=ROUNDING)]  # fmt: skip
        if not ends:
            return ""
        if len(ends) == 2:
            return (f" (it reaches both ends of the range, {ends[0][0]} and {ends[1][0]}: "
                    "values outside it may be consistent too)")  # fmt: skip
        ((end, side),) = ends
        return f" (it reaches the range's end, {end}: values {side} it may be consistent too)"

    def turns(self) -> list[float]:
        """The values tried near which the figure turns beyond its noise (rises, then
        falls, or the reverse), in increasing order: empty where it is monotone over
        the values tried, or does not move with the field (:attr:`searched`)."""
        return _turns(self.evaluations) if self.searched else []

    def flat_stretch(self) -> tuple[float, float] | None:
        """The values tried round the value found that give the very same figure and
        interval (to rounding, :data:`ROUNDING`): where that figure is consistent with
        the target, the answer is that range, not one value; where the target is not
        reached, every value of it is as close. None where the stretch is the value
        found alone, the figure is neither consistent nor the closest of an unreached
        target, or the field does not move it at all (:attr:`flat`)."""
        if not self.searched or (self.reachable and not self.best.contains(self.target.value)):
            return None
        done, best = self.evaluations, self.best
        k = done.index(best)
        lo, hi = k, k
        while lo > 0 and _same_figure(done[lo - 1], best):
            lo -= 1
        while hi < len(done) - 1 and _same_figure(done[hi + 1], best):
            hi += 1
        return None if lo == hi else (done[lo].value, done[hi].value)

    def caveats(self) -> list[str]:
        """What to know before taking the value found, one sentence each (the terminal
        and the tune page say them after the consistent values): that the figure is not
        monotone, where it turns, every place where it meets the target and what to do
        (narrow the range, sweep the field to see the curve); that it is flat round the
        value found, unless that stretch is the consistent range, which the answer gives
        already (an exact median of whole rounds is flat over it). Empty where none
        holds."""
        said = []
        if self.turns():
            said.append(self._turning_words())
        stretch = self.flat_stretch()
        if stretch is not None and stretch != self.consistent:
            lo, hi = stretch
            same = f"every value of {self.field} tried from {_show(lo)} to {_show(hi)}"
            said.append(f"Flat: {same} gives the same figure{self._flat_meaning(stretch)}")
        return said

    def _turning_words(self) -> str:
        """The caveat of a figure that turns (:meth:`caveats`)."""
        turns, places = self.turns(), self.crossings
        said = (f"NOT monotone over the values of {self.field} tried: {self.target.figure} "
                f"turns near {_listed(turns)}")  # fmt: skip
        sweep = f"see the curve: simlab sweep SCENARIO --vary {self._sweep_range()}"
        if not places:
            return (f"{said} and meets the target at none of them; it may come closer to it "
                    f"between them than at {_show(self.value)}, the closest: {sweep}")  # fmt: skip
        if len(places) == 1:
            return (f"{said}, so it may meet the target where the search did not look too. "
                    f"Narrow the range to one side of the turn "
                    f"({self._narrower(turns, places)}), or {sweep}")  # fmt: skip
        return (f"{said}, and meets the target at {len(places)} places "
                f"({'; '.join(c.said() for c in places)}); {_show(self.value)} is the one "
                f"closest to it. Narrow the range to one place "
                f"({self._narrower(turns, places)}), or {sweep}")  # fmt: skip

    def _narrower(self, turns: list[float], places: list[Crossing]) -> str:
        """The ranges between the ends and the turns that hold a place where the figure
        meets the target (all of them where it meets it once), as ``--vary`` spells
        them: ``--vary Kaito.hp=5:20 or --vary Kaito.hp=20:60``."""
        ends = [self.lo, *turns, self.hi]
        pieces = [(a, b) for a, b in itertools.pairwise(ends)
                  if len(places) == 1 or any(a <= c.lo and c.hi <= b for c in places)]  # fmt: skip
        return " or ".join(f"--vary {self.field}={_show(a)}:{_show(b)}" for a, b in pieces)

    def _sweep_range(self) -> str:
        """A sweep of the range searched, as ``--vary`` spells it, of some ten values:
        ``Kaito.hp=5:60:6``, or the values listed for a real-valued field."""
        if self.integer:
            step = max(1, math.ceil((self.hi - self.lo) / 10))
            every = f":{step}" if step > 1 else ""
            return f"{self.field}={_show(self.lo)}:{_show(self.hi)}{every}"
        values = (self.lo + (self.hi - self.lo) * k / 10 for k in range(11))
        return f"{self.field}=" + ",".join(f"{x:.4g}" for x in values)

    def _flat_meaning(self, stretch: tuple[float, float]) -> str:
        """What a flat stretch round the value found means for the answer."""
        if self.best.contains(self.target.value):
            return ", consistent with the target: the answer is that range, not one value"
        end = self.hi if stretch[1] == self.hi else self.lo if stretch[0] == self.lo else None
        if end is None:
            return ", as close to the target"
        start, end_said = _show(self.value), _show(end)
        return (f", as close to the target: going from {start} to {end_said} changes nothing, "
                f"and a range past {end_said} may not reach it either")  # fmt: skip

    @property
    def best(self) -> Evaluation:
        """The evaluation at :attr:`value`."""
        return next(e for e in self.evaluations if e.value == self.value)

    def neighbours(self) -> list[Evaluation]:
        """The evaluated values next to :attr:`value` on each side."""
        values = [e.value for e in self.evaluations]
        i = values.index(self.value)
        return [self.evaluations[j] for j in (i - 1, i + 1) if 0 <= j < len(values)]

    @checked_arguments(table=True)
    def evaluated(self) -> pd.DataFrame:
        """Every value evaluated, in increasing order, one row each: the table of
        :attr:`evaluations`.

        Returns
        -------
        pandas.DataFrame
            The varied field's value (a column named after it, ``Kaito.hp``, as a
            sweep's tables have), the target's figure (named after it,
            ``median_time_to_down``) with its 95% interval (``*_ci95_lo``,
            ``*_ci95_hi``: the figure itself where exact; ``inf`` for a median
            time-to-down the round cap does not reach) and its kind (``*_ci_kind``, as a
            sweep's tables name it: ``exact``, ``wilson``, ``clopper-pearson``,
            ``batch-means``, ``normal``, ``band-crossing``), ``measured_text`` (the figure as
            the terminal says it: ``7 [7, 8]``, ``0.497 ± 0.004``, ``3 (exact)``, ``not
            reached``; where its interval leaves the target out, to the decimals that
            show it does, ``0.515 [0.501, 0.529]`` for a target of 0.5), ``method``
            (``exact`` or ``simulated``), ``encounters`` (none where exact) and
            ``capped`` (a run to a precision that reached its cap first), ``consistent``
            (its interval holds the target) and ``best`` (the value found,
            :attr:`value`). ``attrs["target"]`` says the target.
        """
        from simlab.report.terminal import held_to
        from simlab.report.tuning_terminal import tuned_figure

        figure = self.target.figure.figure
        with held_to(self.precision):  # as the terminal says it
            measured = [tuned_figure(figure, e, self.target.value) for e in self.evaluations]
        frame = pd.DataFrame({
            self.field: [e.value for e in self.evaluations],
            figure: [e.figure for e in self.evaluations],
            f"{figure}_ci95_lo": [e.lo for e in self.evaluations],
            f"{figure}_ci95_hi": [e.hi for e in self.evaluations],
            f"{figure}_ci_kind": [_interval_kind(e) for e in self.evaluations],
            "measured_text": measured,
            "method": [e.method for e in self.evaluations],
            "encounters": pd.array([e.encounters for e in self.evaluations], dtype="Int64"),
            "capped": [e.capped for e in self.evaluations],
            "consistent": [e.contains(self.target.value) for e in self.evaluations],
            "best": [e.value == self.value for e in self.evaluations],
        })  # fmt: skip
        frame.attrs["target"] = str(self.target)
        return frame

    def how(self) -> str:
        """How the value was obtained, in one sentence (reports and ``tune.json``)."""
        methods = {e.method for e in self.evaluations}
        on = f" on {', '.join(self.precision_on)}" if self.precision_on else ""
        size = (
            f"{counted(self.encounters, 'encounter')} a value"
            if self.precision is None
            else f"each value run to precision {self.precision:g}{on}, cap {self.encounters:,}"
        )
        capped = self._capped()
        source = ("the exact engine" if methods == {"exact"} else
                  f"simulation ({size}, seed {self.seed}, the same dice at every "
                  f"value{capped})" if methods == {"simulated"} else
                  f"the exact engine where it answers and simulation elsewhere "
                  f"({size}, seed {self.seed}{capped})")  # fmt: skip
        search = ("a grid (no value gave the figure)" if not self.measured else
                  "a grid (the figure is the same at every value tried)" if self.identical else
                  f"a grid ({WITHIN_NOISE}{self.noise_rule})" if self.within_noise else
                  "bisection (the figure is monotone in the field over the values tried)"
                  if self.monotone else
                  "a grid and bisection of every crossing (the figure is NOT monotone in "
                  "the field over the values tried)")  # fmt: skip
        kind = "integers" if self.integer else "numbers"
        fixed = f" with {', '.join(self.overrides)}" if self.overrides else ""
        return (f"tuned {self.field} over {_show(self.lo)}..{_show(self.hi)} ({kind}){fixed} "
                f"for {self.target} by {search}, {counted(len(self.evaluations), 'value')} "
                f"evaluated by {source}")  # fmt: skip

    def capped_values(self) -> int | None:
        """How many values simulated to the precision reached the cap before it was met;
        None when the values were not run to a precision."""
        if self.precision is None:
            return None
        return sum(e.capped for e in self.evaluations)

    def _capped(self) -> str:
        """``; 15 of 15 values simulated reached the cap before the precision`` for
        :meth:`how`, as a sweep's header says it of its points; "" where none did."""
        capped = self.capped_values()
        if not capped:
            return ""
        simulated = sum(e.method == "simulated" for e in self.evaluations)
        return (f"; {capped} of {counted(simulated, 'value')} simulated reached the cap "
                "before the precision")  # fmt: skip

    def document(self) -> dict[str, Any]:
        """The ``tune.json`` document."""
        best = self.best
        return {
            "scenario": self.scenario, "rules": self.rules,
            **({"overrides": list(self.overrides)} if self.overrides else {}),
            "field": self.field, "range": [_json(self.lo), _json(self.hi)],
            "integer": self.integer,
            "target": {"figure": self.target.figure.figure, "on": self.target.figure.on,
                       "arg": self.target.figure.arg or None, "value": self.target.value},
            "seed": self.seed, "encounters": self.encounters,
            "value": _json(self.value), "figure": _num(best.figure),
            "figure_ci": [_num(best.lo), _num(best.hi)], "method": best.method,
            "consistent": None if self.consistent is None else [_json(x) for x in self.consistent],
            "reachable": self.reachable, "measured": self.measured,
            "flat": self.flat, "monotone": self.monotone if self.searched else None,
            "turns": [_json(x) for x in self.turns()],
            "crossings": [{"range": [_json(c.lo), _json(c.hi)], "consistent": c.consistent}
                          for c in self.crossings],
            "flat_stretch": (None if (stretch := self.flat_stretch()) is None
                             else [_json(x) for x in stretch]),
            "caveats": self.caveats(),
            "how": self.how(), "precision": self.precision,
            "precision_on": list(self.precision_on), "capped_values": self.capped_values(),
            "evaluations": [{"set": {self.field: _json(e.value)}, "figure": _num(e.figure),
                             "figure_ci": [_num(e.lo), _num(e.hi)], "method": e.method,
                             **({"encounters": e.encounters} if e.encounters else {}),
                             **({"cap_reached": e.capped} if e.encounters and
                                self.precision is not None else {})}
                            for e in self.evaluations],
        }  # fmt: skip


def _interval_kind(e: Evaluation) -> str:
    """The kind of an evaluation's interval: ``exact`` (the figure alone) where exact."""
    return "exact" if e.method == "exact" else e.ci_kind


def _json(x: float) -> float | int:
    return int(x) if float(x).is_integer() and abs(x) < 2**53 else float(x)


def _num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _show(x: float) -> str:
    return f"{x:g}"


def _listed(items: Sequence[Any]) -> str:
    """``5``, ``5 and 9``, ``2, 5 and 9``: numbers as :func:`_show` writes them."""
    said = [item if isinstance(item, str) else _show(item) for item in items]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


def _same_figure(a: Evaluation, b: Evaluation) -> bool:
    """Whether two values gave the very same figure and interval (to rounding)."""
    return all(math.isclose(getattr(a, x), getattr(b, x), rel_tol=ROUNDING)
               for x in ("figure", "lo", "hi"))  # fmt: skip


def paired_p(a: Evaluation, b: Evaluation) -> float:
    """The two-sided p-value of the difference between the figures at two simulated
    values, paired on the same dice: b − a over the whole runs, against the spread of
    the differences range by range (``per_range``, the ranges of encounters both
    played), by Student's t, as :func:`simlab.compare` pairs A and B (batch means of
    the paired differences). 1 for figures that differ on no range; NaN with fewer than
    two ranges measured at both values."""
    from simlab.tuning.compare import _t_p

    a_k, b_k = np.array(a.per_range), np.array(b.per_range)
    keep = np.isfinite(a_k) & np.isfinite(b_k)
    m = int(keep.sum())
    if m < 2:
        return math.nan
    sd = float(np.std(b_k[keep] - a_k[keep], ddof=1))
    return float(_t_p(b.figure - a.figure, sd, m))


#: A simulated value played in ranges (:func:`_in_ranges`): its layout, and the tallies
#: and size of each range of encounters.
Played = tuple[Any, list[tuple[Any, int]]]


def _in_ranges(scenario: ScenarioBase, n: int, seed: int, threads: int | None,
               client: Any = None) -> Played:  # fmt: skip
    """``simlab.simulate(scenario, n, seed)``, played in the contiguous ranges of
    encounters a comparison pairs (:func:`simlab.tuning.compare.run_ranges`; merged,
    their tallies are the whole run's bit for bit): the layout, and each range's tallies
    with its size, which pair the figure with another value's on the same dice
    (:func:`paired_p`)."""
    from simlab.api import compile_job
    from simlab.tuning.compare import range_edges, ranges_for, run_ranges

    job = compile_job(scenario, n, seed)
    ranges = ranges_for(None, job.n)
    parts = run_ranges(job, ranges, threads, None, client)
    sizes = [count for _, count in range_edges(job.n, ranges)]
    return job.layout, list(zip(parts, sizes, strict=True))


class _Evaluator:
    """Measures the target's figure at a value of the field, once per value."""

    def __init__(self, scenario: ScenarioBase, name: str, target: Target, n: int, seed: int,
                 simulate: Callable[[ScenarioBase], Any], exact: bool) -> None:  # fmt: skip
        self.scenario, self.name, self.target = scenario, name, target
        self.n, self.seed, self.simulate, self.exact = n, seed, simulate, exact
        self.done: dict[float, Evaluation] = {}
        self.label = argument_label("vary", name)

    def change(self, value: float) -> Override:
        """The field set to ``value``, named by the range's label."""
        return Override(self.name, value, self.label, one_of=True)

    def variant(self, value: float) -> ScenarioBase:
        return apply_overrides(self.scenario, [self.change(value)])

    def __call__(self, value: float) -> Evaluation:
        if value not in self.done:
            self.done[value] = self._measure(value)
        return self.done[value]

    def _measure(self, value: float) -> Evaluation:
        scn = self.variant(value)
        figure = self._exact(scn)
        if figure is not None:
            return Evaluation(value, figure, figure, figure, "exact")
        res = self.simulate(scn)
        x, lo, hi, kind = measure_with_kind(res.tallies, res.layout, res.encounters,
                                            self.target.figure)  # fmt: skip
        capped = res.meta.get("precision", {}).get("cap_reached", False)
        return Evaluation(value, x, lo, hi, "simulated", res.encounters, capped, ci_kind=kind)

    def pair(self, play: Callable[[ScenarioBase], Played]) -> None:
        """Play every value evaluated again in ranges (:func:`_in_ranges`: the same
        tallies, bit for bit) and keep each range's figure (``per_range``), which pairs
        it with another value's on the same dice (:func:`paired_p`)."""
        ref = self.target.figure
        for value, e in self.done.items():
            layout, ranges = play(self.variant(value))
            per_range = tuple(measure(part, layout, count, ref)[0] for part, count in ranges)
            self.done[value] = dataclasses.replace(e, per_range=per_range)

    def _exact(self, scn: ScenarioBase) -> float | None:
        if not self.exact:
            return None
        from simlab.exact.engine import exact

        try:
            return exact_measure(exact(scn), self.target.figure)
        except ExactUnsupported:
            return None


def tune(
    scenario: ScenarioBase,
    name: str,
    lo: float,
    hi: float,
    target: Target | str,
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    exact: bool = True,
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
    progress: Callable[[int], None] | None = None,
    label: str | None = None,
    client: Any = None,
) -> TuneResult:
    """Search ``name`` over ``lo..hi`` for the value whose figure is closest to ``target``.

    Parameters
    ----------
    scenario : ScenarioBase
        The scenario to tune.
    name : str
        ``NAME.FIELD`` as for :func:`simlab.override` (``Defender.hp``,
        ``strike.profile[9]``).
    lo, hi : int or float
        The range; two integers search the integers between them.
    target : Target or str
        ``FIGURE[:ON[@ARG]]=VALUE`` or a parsed :class:`Target`.
    n, seed : int, optional
        Encounters per simulated value and the seed (default: the scenario's); every
        value plays the same dice.
    threads : int, optional
        numba threads; the numbers do not depend on it.
    exact : bool
        Use the exact engine where it gives the figure.
    precision, precision_on : optional
        Run each simulated value to this precision (``n`` is the cap), as for
        :func:`simlab.simulate`; checked on ``precision_on``, by default on the target's
        figure (:func:`_precision_on`).
    progress : callable, optional
        Called with the encounters played since its last call, as for
        :func:`simlab.simulate` (the calls add up to the encounters of every value
        simulated).
    label : str, optional
        How messages name the range (:class:`Range`); by default as the Python argument
        ``vary``: ``vary Defender.hp=5:60``.
    client : distributed.Client, optional
        Simulate every value as tasks on this Dask cluster instead of ``threads``, as
        for :func:`simlab.simulate`; the numbers are the same.

    Returns
    -------
    TuneResult
        See the module docstring for the search; ``reachable`` is False when no value
        reaches the target.

    Raises
    ------
    InputError
        Naming the argument for a bad target or range, or a value the field rejects.
    """
    from simlab.api import compile_job
    from simlab.tuning.precision import simulate_among

    if isinstance(target, str):
        target = parse_target(target, "target")
    if not isinstance(target, Target):
        raise InputError(f"target: expected FIGURE[:ON]=VALUE (e.g. 'win_rate:party=0.5'); "
                         f"got {target!r}")  # fmt: skip
    n, seed = encounters_and_seed(scenario, n, seed)
    precision = scenario.precision if precision is None else precision
    precision_on = _precision_on(precision, figures_argument(precision_on), target)
    lo, hi = plain_value(lo), plain_value(hi)  # numpy's numbers, made Python's
    label = label or argument_label("vary", f"{name}={lo}:{hi}")
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{label}: expected NAME.FIELD (e.g. 'Defender.hp'); got {name!r}")
    _check_range(lo, hi, label, f"{lo!r}:{hi!r}")
    _check_run_options(threads, precision, precision_on, client)
    integer = all(isinstance(x, int) and not isinstance(x, bool) for x in (lo, hi))

    def play(scn: ScenarioBase) -> Any:
        # to a precision, a crit rate one end can have is exactly 0 where the value cannot crit
        return simulate_among(scn, ends, n, seed, precision, precision_on, threads=threads,
                              progress=progress, client=client)  # fmt: skip

    evaluate = _Evaluator(scenario, name, target, n, seed, play, exact)
    evaluate.label = label
    ends = [evaluate.variant(end) for end in (lo, hi)]  # a crit rate may crit at one only
    layouts = [compile_job(variant, n, seed).layout for variant in ends]
    cap = max(layout.max_rounds for layout in layouts)  # max_rounds may be the field
    for end, variant, layout in zip((lo, hi), ends, layouts, strict=True):  # before any run
        refuse_run_changes(scenario, variant, evaluate.label, "tune")
        refuse_spec_changes(scenario, variant, [evaluate.change(end)], "tune")
        check_figure(target.figure, layout, target.label, variant, ends, cap)
        _check_precision_on(precision, precision_on, layout, variant, ends)
    check_rounds(target, cap)  # within some value's cap
    result = TuneResult(scenario.scenario, scenario.rules, seed, n, name, lo, hi, integer, target,
                        overrides=scenario.overrides, precision=precision,
                        precision_on=tuple(map(str, precision_on)))  # fmt: skip
    note = flat_dice_note(scenario, name, (lo, hi), label) if integer else None
    result.notes = (note,) if note else ()
    _search(evaluate, result)
    if precision is None and not result.identical and _may_be_flat(result.evaluations):
        evaluate.pair(lambda scn: _in_ranges(scn, n, seed, threads, client))
        result.evaluations = sorted(evaluate.done.values(), key=lambda e: e.value)
    if not result.searched:  # flat, or measured nowhere: nothing was monotone or not
        result.monotone = None
    return result


def _may_be_flat(evaluations: list[Evaluation]) -> bool:
    """Whether the paired test of :attr:`TuneResult.within_noise` is needed: every value
    simulated and measured, and every value's interval overlapping every other's (on a
    line, the highest lower end at most the lowest upper end). Two intervals apart are
    a move no pairing takes back."""
    simulated = [e for e in evaluations if e.method == "simulated" and math.isfinite(e.figure)]
    return (len(simulated) == len(evaluations) >= 2
            and bool(max(e.lo for e in simulated) <= min(e.hi for e in simulated)))  # fmt: skip


def _precision_on(precision: float | None, precision_on: Sequence[Any], target: Target) -> Any:
    """The figures each simulated value is run to ``precision`` on: those named, else the
    target's. A tune asks for that figure known well enough to tell the values apart; the
    rule on every rate and mean of the fight (a rare pair's among them) ran most values to
    the cap long after it was."""
    if precision is None or precision_on:
        return precision_on
    return (target.figure,)


def _check_range(lo: Any, hi: Any, label: str, got: str) -> None:
    """Refuse a range that is not two finite numbers ``lo < hi``, written
    ``NAME.FIELD=LO:HI`` (:func:`parse_range`) or passed apart from a notebook."""
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (lo, hi))
    if not numbers or not math.isfinite(lo) or not math.isfinite(hi) or not lo < hi:
        raise InputError(f"{label}: expected LO:HI with numbers LO < HI; got {got}")


def _check_run_options(threads: Any, precision: Any, precision_on: Any, client: Any) -> None:
    """Check what only a simulated value uses before the search, which the exact engine
    may answer without simulating anything (``progress`` is checked by
    :func:`simlab.tune`, as every API function checks it)."""
    from simlab.arguments import precision_on_argument, threads_or_client
    from simlab.engine.runner import max_threads
    from simlab.limits import whole_number_in
    from simlab.tuning.precision import precision_rule

    threads_or_client(threads, client)
    if threads is not None:
        whole_number_in(threads, "threads", 1, max_threads())
    precision_on_argument(precision, precision_on)
    if precision is not None:
        precision_rule(precision, precision_on)


def _check_precision_on(precision: float | None, precision_on: Sequence[Any], layout: Any,
                        variant: ScenarioBase, ends: Sequence[ScenarioBase]) -> None:  # fmt: skip
    """Refuse a ``precision_on`` figure on something the scenario lacks (a side
    ``party``) before the search, as the target is: a simulated value checks it, but the
    exact engine may answer every value and the name would pass without a word. A crit
    rate is refused only where neither end of the range can crit (as the target's)."""
    from simlab.tuning.precision import precision_rule

    if precision is not None:
        precision_rule(precision, precision_on, layout, variant, ends)


def _midpoint(a: float, b: float, integer: bool) -> float | None:
    """The value halfway between ``a`` and ``b``; None when the bracket is resolved."""
    if integer:
        return (int(a) + int(b)) // 2 if b - a > 1 else None
    return (a + b) / 2 if b - a > 0 else None


def _grid(lo: float, hi: float, integer: bool) -> list[float]:
    if integer:
        return sorted({round(lo + (hi - lo) * k / (GRID - 1)) for k in range(GRID)})
    return [lo + (hi - lo) * k / (GRID - 1) for k in range(GRID)]


def _search(evaluate: _Evaluator, result: TuneResult) -> None:
    """The grid, bisection of its crossings, the consistent range and the value found
    (see the module docstring); :func:`_search_turning` where the figure turns."""
    t = result.target.value
    integer = result.integer
    resolution = 0.0 if integer else (result.hi - result.lo) * RESOLUTION
    points = [evaluate(x) for x in _grid(result.lo, result.hi, integer)]
    for a, b in itertools.pairwise(points):
        if _brackets(a, b, t):
            _bisect(evaluate, a, b, t, integer, resolution)
    done = _done(evaluate)
    if not _monotone(done):
        _search_turning(evaluate, result, resolution)
        return
    best = _closest(evaluate, t, None)
    result.reachable = any(_brackets(a, b, t) for a, b in itertools.pairwise(done)) or any(
        e.contains(t) for e in done
    )
    if best.contains(t):
        result.consistent = (
            _edge(evaluate, best, result.lo, t, integer, resolution),
            _edge(evaluate, best, result.hi, t, integer, resolution),
        )
    best = _closest(evaluate, t, result.consistent)
    if not result.reachable:  # the closest end, or where a flat stretch to it begins
        best = min((done[0], done[-1]), key=lambda e: _distance(e, t))
        best = _start_of_flat_end(evaluate, best, integer, resolution)
    if integer:  # the neighbours of the value reported
        _neighbours(evaluate, best, result)
    if result.reachable:  # a neighbour may be closer still
        best = _closest(evaluate, t, result.consistent)
    result.value = best.value
    result.evaluations = _done(evaluate)
    result.monotone = _monotone(result.evaluations)
    if not result.monotone:  # the values evaluated since the grid turn it
        result.consistent = None
        _search_turning(evaluate, result, resolution)
        return
    result.crossings = _nearest_place(_places(result.evaluations, t), result)


def _done(evaluate: _Evaluator) -> list[Evaluation]:
    """Every value evaluated so far, in increasing order."""
    return sorted(evaluate.done.values(), key=lambda e: e.value)


def _neighbours(evaluate: _Evaluator, best: Evaluation, result: TuneResult) -> None:
    """Evaluate the integers next to ``best`` inside the range."""
    for x in (best.value - 1, best.value + 1):
        if result.lo <= x <= result.hi:
            evaluate(int(x))


def _search_turning(evaluate: _Evaluator, result: TuneResult, resolution: float) -> None:
    """The search where the figure turns over the values evaluated (not monotone, so
    bisecting from the value found towards an end may step over values that are not
    consistent, or miss another crossing): every place where the figure meets the
    target among the values evaluated is narrowed on its own (:func:`_refine_places`);
    where there is none, the values round the figure closest to the target, a turn
    inside the range, are narrowed towards it (:func:`_approach_turn`), and the value
    found is that closest value, not an end. The consistent range is the place of the
    value found alone, bounded by values evaluated that are not consistent."""
    t, integer = result.target.value, result.integer
    if not _places(_done(evaluate), t):
        _approach_turn(evaluate, t, integer, resolution)
    _refine_places(evaluate, t, integer, resolution)
    if integer:
        _neighbours(evaluate, _closest(evaluate, t, None), result)
        _refine_places(evaluate, t, integer, resolution)
    result.evaluations = _done(evaluate)
    result.crossings = _places(result.evaluations, t)
    result.reachable = bool(result.crossings)
    best = _closest(evaluate, t, None)
    result.consistent = _place_of(best, result.crossings) if best.contains(t) else None
    best = _closest(evaluate, t, result.consistent)
    if not result.reachable:  # of values as close, an end: the way to widen the range
        ends = (result.lo, result.hi)
        best = min(result.evaluations,
                   key=lambda e: (_distance(e, t), e.value not in ends, e.value))  # fmt: skip
        best = _start_of_flat_end(evaluate, best, integer, resolution)
        if integer:
            _neighbours(evaluate, best, result)
        result.evaluations = _done(evaluate)
    result.value = best.value
    result.monotone = False


class Crossing(NamedTuple):
    """Where the figure meets the target among the values evaluated: the values ``lo``
    to ``hi`` are consistent with it (``consistent``), or (not ``consistent``) the
    figure passes the target between the neighbouring values ``lo`` and ``hi``, neither
    consistent with it."""

    lo: float
    hi: float
    consistent: bool

    def said(self) -> str:
        """``12``, ``12..14``, or ``between 12 and 13``."""
        if not self.consistent:
            return f"between {_show(self.lo)} and {_show(self.hi)}"
        return _show(self.lo) if self.lo == self.hi else f"{_show(self.lo)}..{_show(self.hi)}"


def _side(e: Evaluation, t: float) -> int | None:
    """0 where ``e`` is consistent with ``t``, 1 (-1) where its figure is above (below)
    it; None where it has no figure."""
    if math.isnan(e.figure):
        return None
    if e.contains(t):
        return 0
    return 1 if e.figure > t else -1


def _places(done: list[Evaluation], t: float) -> list[Crossing]:
    """Every place where the figure meets ``t`` among ``done`` (in increasing order): a
    run of consistent values, or two neighbours on either side of it."""
    places: list[Crossing] = []
    run: list[float] = []
    last: int | None = None
    previous = math.nan
    for e in done:
        side = _side(e, t)
        if side is None:
            continue
        if side == 0:
            run = [run[0] if run else e.value, e.value]
        elif run:
            places.append(Crossing(run[0], run[1], True))
            run = []
        elif last == -side:
            places.append(Crossing(previous, e.value, False))
        last, previous = side, e.value
    if run:
        places.append(Crossing(run[0], run[1], True))
    return places


def _place_of(e: Evaluation, places: list[Crossing]) -> tuple[float, float] | None:
    """The consistent range of ``places`` that holds the value of ``e``."""
    return next(((c.lo, c.hi) for c in places if c.consistent and c.lo <= e.value <= c.hi),
                None)  # fmt: skip


def _nearest_place(places: list[Crossing], result: TuneResult) -> list[Crossing]:
    """The one place of a figure monotone over the values evaluated: its consistent
    range, else the place nearest the value found (noise may make a second run of a
    value or two that the consistent range, bisected from the value found, covers)."""
    if result.consistent is not None:
        return [Crossing(*result.consistent, True)]
    if not places:
        return []
    return [min(places, key=lambda c: min(abs(c.lo - result.value), abs(c.hi - result.value)))]


#: The most rounds of narrowing :func:`_refine_places` and :func:`_approach_turn` make:
#: each halves the gaps it narrows, so an integer range of 2**30 values or a real one
#: at :data:`RESOLUTION` is narrowed well before.
MOST_ROUNDS = 32


def _refine_places(evaluate: _Evaluator, t: float, integer: bool, resolution: float) -> None:
    """Narrow every place where the figure meets ``t`` among the values evaluated (a
    figure that turns is bisected place by place): two neighbours on either side of
    ``t`` by bisection, a run of consistent values by bisecting each of its edges
    towards the value evaluated next to it; again while that finds new places."""
    for _ in range(MOST_ROUNDS):
        before = len(evaluate.done)
        done = _done(evaluate)
        for a, b in itertools.pairwise(done):
            sides = (_side(a, t), _side(b, t))
            if None in sides or sides[0] == sides[1]:
                continue
            if 0 in sides:  # an edge of a consistent run
                inside, outside = (a, b) if sides[0] == 0 else (b, a)
                _narrow_edge(evaluate, inside, outside, t, integer, resolution)
            else:
                _bisect(evaluate, a, b, t, integer, resolution)
        if len(evaluate.done) == before:
            return


def _approach_turn(evaluate: _Evaluator, t: float, integer: bool, resolution: float) -> None:
    """Where no value evaluated meets ``t``, narrow the values round the one whose figure
    is closest to it, while that is inside the range (a turn: the figure may come
    closer, or meet ``t``, between its neighbours), until a place is found or the
    neighbours are next to it."""
    for _ in range(MOST_ROUNDS):
        done = _done(evaluate)
        if _places(done, t):
            return
        k = done.index(_closest(evaluate, t, None))
        if k in (0, len(done) - 1):
            return
        halves = [m for a, b in ((done[k - 1], done[k]), (done[k], done[k + 1]))
                  if b.value - a.value > resolution
                  and (m := _midpoint(a.value, b.value, integer)) is not None
                  and m not in (a.value, b.value)]  # fmt: skip
        if not halves:
            return
        for m in halves:
            evaluate(m)


def _closest(evaluate: _Evaluator, t: float, consistent: tuple[float, float] | None) -> Evaluation:
    """The evaluated value whose figure is closest to ``t``; among ties (a median is a
    whole round), the one nearest the middle of the consistent range, or, with none (a
    target of 4.5 rounds, which every value from 4 to 5 rounds is as close to), nearest
    where the figure crosses ``t``, as the terminal says "it lies between" them."""
    done = sorted(evaluate.done.values(), key=lambda e: e.value)
    middles = ([sum(consistent) / 2] if consistent else
               [(a.value + b.value) / 2 for a, b in itertools.pairwise(done)
                if _brackets(a, b, t)])  # fmt: skip

    def key(e: Evaluation) -> tuple[float, float, float]:
        return (_distance(e, t), min((abs(e.value - m) for m in middles), default=0), e.value)

    return min(done, key=key)


def _distance(e: Evaluation, t: float) -> float:
    """How far the figure at ``e`` is from ``t`` (infinitely far when it has none)."""
    return abs(e.figure - t) if math.isfinite(e.figure) else math.inf


def _brackets(a: Evaluation, b: Evaluation, t: float) -> bool:
    """Whether the target lies between the figures at two values."""
    if not (math.isfinite(a.figure) or math.isfinite(b.figure)):
        return False
    return min(a.figure, b.figure) <= t <= max(a.figure, b.figure)


def _bisect(evaluate: _Evaluator, a: Evaluation, b: Evaluation, t: float, integer: bool,
            resolution: float) -> None:  # fmt: skip
    """Narrow [a, b], whose figures bracket ``t``, to neighbouring values."""
    rising = a.figure <= b.figure
    while (m := _midpoint(a.value, b.value, integer)) is not None:
        if m in (a.value, b.value) or b.value - a.value <= resolution:
            return
        mid = evaluate(m)
        if (mid.figure <= t) == rising:
            a = mid
        else:
            b = mid


def _edge(evaluate: _Evaluator, best: Evaluation, end: float, t: float, integer: bool,
          resolution: float) -> float:  # fmt: skip
    """The last value from ``best`` towards ``end`` whose figure is consistent with ``t``."""
    far = evaluate(int(end) if integer else end)
    if far.contains(t):
        return far.value
    return _narrow_edge(evaluate, best, far, t, integer, resolution)


def _narrow_edge(evaluate: _Evaluator, inside: Evaluation, outside: Evaluation, t: float,
                 integer: bool, resolution: float) -> float:  # fmt: skip
    """The last value from ``inside`` (consistent with ``t``) towards ``outside`` (not)
    whose figure is consistent with ``t``, by bisection."""
    return _last_keeping(evaluate, inside, outside, lambda e: e.contains(t), integer,
                         resolution).value  # fmt: skip


def _last_keeping(evaluate: _Evaluator, inside: Evaluation, outside: Evaluation,
                  keeps: Callable[[Evaluation], bool], integer: bool,
                  resolution: float) -> Evaluation:  # fmt: skip
    """The last value from ``inside`` (which ``keeps``) towards ``outside`` (which does
    not) that ``keeps``, by bisection: to neighbouring integers, or ``resolution``."""
    while (m := _midpoint(min(inside.value, outside.value), max(inside.value, outside.value),
                          integer)) is not None:  # fmt: skip
        if abs(outside.value - inside.value) <= max(resolution, 1 if integer else 0):
            break
        mid = evaluate(m)
        if keeps(mid):
            inside = mid
        else:
            outside = mid
    return inside


def _start_of_flat_end(evaluate: _Evaluator, end: Evaluation, integer: bool,
                       resolution: float) -> Evaluation:  # fmt: skip
    """Where the values from ``end``, an end of the range, that give its very same
    figure begin (``end`` itself where its neighbour evaluated differs), by bisection
    towards the first value evaluated that differs. A target the range does not reach
    is then given the least change that comes as close to it: raising a DC from 25 to
    44 when every DC from 25 up gives a natural 20's hit rate changes nothing. Where
    every value evaluated gives the same figure the field does not move it, and
    ``end`` is kept."""
    done = _done(evaluate)
    inward = done[::-1] if end.value == done[-1].value else done
    if inward[0].value != end.value:  # not an end: a turn's closest value, kept
        return end
    differs = next((e for e in inward if not _same_figure(e, end)), None)
    if differs is None:
        return end
    flat = inward[inward.index(differs) - 1]
    return _last_keeping(evaluate, flat, differs, lambda e: _same_figure(e, end), integer,
                         resolution)  # fmt: skip


def _monotone(done: list[Evaluation]) -> bool:
    """Whether the figures never reverse beyond an earlier value's interval."""
    return not _turns(done)


def _turns(done: list[Evaluation]) -> list[float]:
    """The values near which the figure turns over ``done`` (in increasing order): where
    a move beyond noise (:func:`_reverses`) between neighbours is followed, past any
    moves within it, by one the other way, the value between them whose figure is
    the extreme of that stretch (the top of a rise that then falls)."""
    moves = [(k, sign) for k, (a, b) in enumerate(itertools.pairwise(done))
             for sign in (1, -1) if _reverses(a, b, -sign)]  # fmt: skip
    turns = []
    for (i, sign), (j, other) in itertools.pairwise(moves):
        if sign != other:
            stretch = done[i + 1 : j + 1]
            turns.append((max if sign > 0 else min)(stretch, key=lambda e: e.figure).value)
    return turns


def _reverses(a: Evaluation, b: Evaluation, sign: int) -> bool:
    """Whether going from ``a`` to ``b`` the figure moves against ``sign`` beyond noise
    (either interval) and beyond rounding (:data:`ROUNDING`: an exact interval has none)."""
    if sign * (b.figure - a.figure) >= 0 or math.isnan(a.figure - b.figure):
        return False
    if math.isclose(a.figure, b.figure, rel_tol=ROUNDING):
        return False
    return not (a.lo <= b.figure <= a.hi or b.lo <= a.figure <= b.hi)
