"""Sweeps: run a scenario at every value (or grid of values) of some fields, same dice.

Every point is the scenario with overrides (:mod:`simlab.tuning.overrides`), run on the
same seed and sample size, so point k is bit for bit the run of ``simlab run --set …``
for that point, and differences between points are not blurred by different dice
(common random numbers). The kernels receive a scenario's parameters as arrays, so
every point of a sweep reuses the kernels compiled for the first.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.analysis.result import Result, interval_column
from simlab.analysis.summary import summary
from simlab.arguments import describe, precision_on_argument
from simlab.binding import checked_arguments
from simlab.errors import ExactUnsupported, InputError
from simlab.exact import pair_answer
from simlab.limits import encounters_and_seed
from simlab.report.words import counted, overrides_said
from simlab.rules import has_crits
from simlab.scenario.common import ScenarioBase
from simlab.tuning.figures import (
    cannot_crit_why,
    combatant_figures,
    pair_label,
    pairs_that_can_crit,
)
from simlab.tuning.overrides import (
    Override,
    apply_overrides,
    argument_label,
    check_value,
    flat_dice_note,
    parse_value,
    plain_value,
    refuse_range_slip,
    refuse_run_changes,
    refuse_spec_changes,
    whole_numbers,
    written_value,
)

__all__ = [
    "SweepResult",
    "Variation",
    "moving_level",
    "moving_pairs",
    "pair_figures",
    "parse_vary",
    "sweep",
]

#: The figures of an attack pair a sweep follows.
PAIR_FIGURES = ("hit_rate", "crit_rate", "mean_damage")
PAIR = ["attacker", "attack", "defender"]
#: The column of :meth:`SweepResult.combatants` that holds the exact engine's mean
#: time-to-down, left out where it answers at no point.
EXACT_TIME_TO_DOWN = "exact_mean_time_to_down"
#: Exact answers closer than this are the same answer (they are sums of fractions).
EXACT_SAME = 1e-12
#: The chance that a sweep which moves none of its attack pairs draws one of them as
#: moving all the same (:func:`moving_pairs`).
FALSE_MOVE_RATE = 0.05

#: The most points a sweep may have (the product of every --vary's values).
MAX_POINTS = 10_000


@dataclass(frozen=True)
class Variation:
    """One varied field: ``target`` (``NAME.FIELD``) takes each of ``values`` in turn;
    ``keyed`` when they are Python values, from a mapping's list (:class:`Override`)."""

    target: str
    values: tuple[Any, ...]
    label: str
    keyed: bool = False


#: What a sweep varies: ``{NAME.FIELD: values}``, ``"NAME.FIELD=LO:HI"``, or a list of
#: such texts or of :class:`Variation`.
Vary = Mapping[str, Iterable[Any]] | str | Iterable[str | Variation]


def parse_vary(text: str, option: str = "--vary") -> Variation:
    """Read ``NAME.FIELD=LO:HI`` (integers, both ends included), ``NAME.FIELD=LO:HI:STEP``
    (every STEP-th integer from LO, HI included when a step lands on it) or
    ``NAME.FIELD=v1,v2,…``.

    Raises
    ------
    InputError
        Naming the argument when the form or a bound is wrong.
    """
    label = argument_label(option, text)
    target, equals, spec = text.partition("=")
    if not equals or not target.strip() or not spec.strip():
        raise InputError(f"{label}: expected NAME.FIELD=LO:HI or NAME.FIELD=v1,v2,...; "
                         f"got {text!r}")  # fmt: skip
    refuse_range_slip(target, spec, label)
    if ":" in spec and "," not in spec and not spec.lstrip().startswith(("[", "{")):
        values: tuple[Any, ...] = _integer_range(spec, label)
    else:
        parts = [part.strip() for part in _split_values(spec)]
        if "" in parts:
            raise InputError(f"{label}: expected a value between each pair of commas in "
                             f"v1,v2,...; got {spec!r}")  # fmt: skip
        values = tuple(parse_value(part, label) for part in parts)
    return Variation(target.strip(), values, label)


def _integer_range(spec: str, label: str) -> tuple[int, ...]:
    """The integers of ``LO:HI`` or ``LO:HI:STEP`` (both ends included, STEP ≥ 1)."""
    parts = [part.strip() for part in spec.split(":")]
    bounds = [parse_value(part, label) for part in parts if part]
    if len(bounds) != len(parts) or len(bounds) > 3 or not all(type(b) is int for b in bounds):
        raise InputError(f"{label}: expected LO:HI or LO:HI:STEP with integers; got {spec!r}")
    lo, hi, step = (*bounds, 1) if len(bounds) == 2 else bounds
    if lo > hi:
        raise InputError(f"{label}: expected LO:HI with integers LO ≤ HI; got {spec!r}")
    if step < 1:
        raise InputError(f"{label}: expected a STEP of at least 1 in LO:HI:STEP; got {spec!r}")
    count = (hi - lo) // step + 1
    if count > MAX_POINTS:  # before the range is made: 1:10**20 would fill the memory
        raise InputError(f"{label}: expected at most {MAX_POINTS:,} values; got {count:,}")
    return tuple(range(lo, hi + 1, step))


def _split_values(spec: str) -> list[str]:
    """Split ``v1,v2,…`` at the commas outside brackets (a value may be a list)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(spec):
        depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(spec[start:i])
            start = i + 1
    return [*parts, spec[start:]]


def _variations(vary: Vary) -> list[Variation]:
    """The varied fields of ``vary``: a mapping's values each a list, tuple, range or
    numpy array of values (:func:`~simlab.tuning.overrides.plain_value`; not a set, whose
    order changes from one session to the next), a
    ``NAME.FIELD=LO:HI`` text as ``--vary`` takes it (:func:`parse_vary`), or a list of
    such texts or :class:`Variation` objects."""
    if isinstance(vary, str):
        return [parse_vary(vary, "vary")]
    if not isinstance(vary, Mapping):
        return [_variation(item) for item in _items(vary)]
    variations = []
    for key, values in vary.items():
        label = f"vary {key}"
        if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
            text = (f" (as text, the whole goes as --vary spells it: '{key}={values}')"
                    if isinstance(values, str) else "")  # fmt: skip
            raise InputError(f"{label}: expected a list or range of values; got "
                             f"{values!r}{text}")  # fmt: skip
        if isinstance(values, AbstractSet):  # points and plot categories in no set order
            raise InputError(f"{label}: expected a list or range of values, in the order to "
                             f"sweep them; got {describe(values)}, which has no order (pass "
                             "a list, or sorted(...))")  # fmt: skip
        taken = list(itertools.islice(values, MAX_POINTS + 1))  # range(10**20) is iterable
        if len(taken) > MAX_POINTS:
            raise InputError(f"{label}: expected at most {MAX_POINTS:,} values; got more")
        values = tuple(whole_numbers(plain_value(taken)))
        for value in values:  # before _check_each_once spells one given twice
            check_value(value, label)
        variations.append(Variation(str(key), values, label, keyed=True))
    return variations


def _items(vary: Any) -> list[Any]:
    """The items of a ``vary`` that is not a mapping (nor a text)."""
    if isinstance(vary, bytes) or not isinstance(vary, Iterable):
        raise InputError(f"vary: expected a mapping of NAME.FIELD to values, a "
                         f"'NAME.FIELD=LO:HI' or a list of them; got {vary!r}")  # fmt: skip
    return list(itertools.islice(vary, MAX_POINTS + 1))


def _variation(item: Any) -> Variation:
    """One item of a list ``vary``: a :class:`Variation` or a ``NAME.FIELD=LO:HI`` text."""
    if isinstance(item, Variation):
        return item
    if isinstance(item, str):
        return parse_vary(item, "vary")
    raise InputError(f"vary: expected 'NAME.FIELD=LO:HI' or 'NAME.FIELD=v1,v2,...' in the "
                     f"list; got {item!r}")  # fmt: skip


@dataclass
class SweepPoint:
    """One point of a sweep: its overrides, scenario, simulation and exact answers."""

    set: dict[str, Any]
    scenario: ScenarioBase
    result: Result | None = None
    exact: dict[str, Any] | None = None

    def __repr__(self) -> str:
        """One line, as its scenario and result show: the exact engine's summary, every
        damage distribution of every pair, filled screens in a notebook."""
        exact = "None" if self.exact is None else "<summary dict>"
        return (f"SweepPoint(set={self.set!r}, scenario={self.scenario!r}, "
                f"result={self.result!r}, exact={exact})")  # fmt: skip


def _encounters_row(point: SweepPoint) -> pd.DataFrame:
    """One row: the encounters ``point`` ran and whether it met its precision."""
    result = _result(point)
    record = result.meta.get("precision")
    met = pd.NA if record is None else bool(record["met"])
    return pd.DataFrame({
        "encounters": [result.encounters],
        "precision_met": pd.array([met], dtype="boolean"),
        "cap_reached": pd.array([pd.NA if record is None else not met], dtype="boolean"),
    })  # fmt: skip


@dataclass
class SweepResult:
    """The points of a sweep; every table has one column per varied field.

    Attributes
    ----------
    scenario, rules : str
        The scenario's id and rules id.
    seed, encounters : int
        The seed and sample size every point ran with.
    vary : list of Variation
        The varied fields, in the order given (the first is the x axis of the plots).
    points : list of SweepPoint
        Every combination of values, the last field varying fastest.
    overrides : tuple of str
        The changes every point shares (``--set``, :func:`simlab.override`),
        ``NAME.FIELD=VALUE`` in order.
    notes : tuple of str
        What the terminal, the repr and the page say of the varied values: a dice field
        given whole numbers tries flat numbers
        (:func:`~simlab.tuning.overrides.flat_dice_note`).
    """

    scenario: str
    rules: str
    seed: int
    encounters: int
    vary: list[Variation]
    points: list[SweepPoint] = field(default_factory=list)
    overrides: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    _made: dict[str, tuple[list[tuple[Any, Any]], pd.DataFrame]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    #: The scenario swept, whose shared overrides that change nothing are worked out
    #: when first shown (:meth:`overrides_said`); None for a sweep read back from files.
    _swept: Any = field(default=None, init=False, repr=False, compare=False)

    def overrides_said(self) -> list[str]:
        """The changes every point shares as a run's heading says them, one that changes
        nothing said so (``Brute.hp=30 (changes nothing: Brute.hp is already 30)``,
        :func:`~simlab.report.words.overrides_said`), worked out the first time asked:
        :func:`sweep` does not pay for it."""
        idle = self._idle_overrides if self.overrides and self._swept is not None else ()
        return overrides_said({"overrides": self.overrides, "idle_overrides": idle})

    @functools.cached_property
    def _idle_overrides(self) -> tuple[str, ...]:
        return tuple(self._swept.idle_overrides)

    def can_crit(self, attacker: str, attack: str, defender: str) -> bool:
        """Whether an attack pair can crit at some point of the sweep, by its rules and
        profile at that point (:func:`~simlab.tuning.figures.pairs_that_can_crit`), not
        by whether a crit came up: a few attacks may see no natural 20, and a crit rate
        that vanished then would be a figure lost by luck. False under rules without
        crits, and for an attack that cannot crit (a shattered-spirits profile with no
        ``crit`` row, or an exact crit rate of 0 that no fight moves) at any point.

        Parameters
        ----------
        attacker, attack, defender : str
            The pair, as in :meth:`attacks`.

        Returns
        -------
        bool
        """
        return pair_label(attacker, attack, defender) in self._critting_pairs

    @functools.cached_property
    def _critting_pairs(self) -> frozenset[str]:
        whys = zip(self.points, self._cannot_crit_whys, strict=True)
        return frozenset().union(*(pairs_that_can_crit(p.scenario, why) for p, why in whys))

    def cannot_crit_why(self, attacker: str, attack: str, defender: str) -> list[str]:
        """Why an attack pair cannot crit, at each point of the sweep, in the words of
        :func:`~simlab.tuning.figures.cannot_crit_why` without their parentheses (``its
        profile has no crit row``, as a run's note says it); "" at a point where it can,
        or does not attack. Beside :meth:`can_crit`, which asks whether it can at any.

        Parameters
        ----------
        attacker, attack, defender : str
            The pair, as in :meth:`attacks`.

        Returns
        -------
        list of str
            One per point, in the order of :attr:`points`.
        """
        label = pair_label(attacker, attack, defender)
        return [self._why_at(k, label) for k in range(len(self.points))]

    def _why_at(self, point: int, label: str) -> str:
        """Why the pair ``label`` cannot crit at point ``point``, "" where it can."""
        return self._cannot_crit_whys[point].get(label, "").strip("()")

    @functools.cached_property
    def _cannot_crit_whys(self) -> list[dict[str, str]]:
        return [cannot_crit_why(p.scenario) for p in self.points]

    def cannot_crit_rows(self, rows: pd.DataFrame) -> list[str]:
        """Per row of ``rows`` (of :meth:`attacks`: the varied fields' columns and the
        pair's), why its pair cannot crit at its point (:meth:`cannot_crit_why`), "" where
        it can: the rows whose crit rate is exactly 0, not a measured one.

        Parameters
        ----------
        rows : pandas.DataFrame
            Rows of :meth:`attacks`.

        Returns
        -------
        list of str
            One per row, in order.
        """
        points = {_point_key(p.set.values()): k for k, p in enumerate(self.points)}
        return [self._why_at(points[_point_key(r[self.fields])], pair_label(*(r[c] for c in PAIR)))
                for _, r in rows.iterrows()]  # fmt: skip

    def _point_said(self, point: SweepPoint) -> str:
        """A point's values as the stops line names it: ``1 · 20``, ``{12: crit}``."""
        return " · ".join(self.value_said(f, value) for f, value in point.set.items())

    def value_said(self, field: str, value: Any) -> str:
        """A varied field's value as the tables, the page and the lines above them write
        it: as the scenario file would (``{12: crit}``, ``[stun 2]``, not Python's
        ``{12: 'crit'}``), but ``True`` or ``None`` given in Python as Python spells them
        (:func:`~simlab.tuning.overrides.written_value`).

        Parameters
        ----------
        field : str
            One of :attr:`fields`.
        value : Any
            One of its values.

        Returns
        -------
        str
        """
        keyed = next((v.keyed for v in self.vary if v.target == field), False)
        return written_value(plain_value(value), keyed)

    def __repr__(self) -> str:
        """One line: what was varied, over which changes shared by every point, and
        every method that gives one of its tables (the dataclass's own repr printed every
        point's scenario and tallies, some 30 kB for two points)."""
        varied = ", ".join(f"{v.target} ({counted(len(v.values), 'value')})" for v in self.vary)
        said = self.overrides_said()
        fixed = f" · with {', '.join(said)}" if said else ""
        notes = "".join(f" · {note}" for note in self.notes)
        return (f"<SweepResult {self.scenario}{fixed} · rules {self.rules} · "
                f"{counted(len(self.points), 'point')} of {varied}{notes} · {self.per_point()} · "
                f"seed {self.seed}: .attacks(), .combatants(), .sides(), .damage_pmf(), "
                ".encounters_per_point(), simlab.plot_sweep>")  # fmt: skip

    def per_point(self) -> str:
        """The encounters each point ran: ``5,000 encounters per point``; run to a
        precision, where each point stops on its own, the counts they stopped at and
        the cap: ``3,125–6,250 encounters per point (each run to precision 0.01, cap
        100,000)``, and how many reached the cap first."""
        found = [p.result.meta.get("precision") for p in self.points if p.result is not None]
        records = [r for r in found if r is not None]
        if not records or len(records) < len(found):
            return f"{counted(self.encounters, 'encounter')} per point"
        stops = [r["encounters"] for r in records]
        counts = (counted(min(stops), "encounter") if min(stops) == max(stops)
                  else f"{min(stops):,}–{max(stops):,} encounters")  # fmt: skip
        short = sum(not r["met"] for r in records)
        capped = f"; {short} reached the cap before the precision" if short else ""
        return (f"{counts} per point (each run to precision "
                f"{records[0]['half_width']:g}, cap {self.encounters:,}{capped})")  # fmt: skip

    def stops_said(self) -> str:
        """Which point stopped where, for a sweep whose points were run to a precision
        and stopped apart (the header's ``12,500–25,000 encounters per point`` does not
        say which needed more): the points grouped by their stop, fewest encounters
        first, those that reached the cap before the precision said so, e.g.
        ``Stopped at 12,500 encounters: Defender.guard = 1, 2, 3; at 25,000: 0; at
        200,000, the cap, before the precision was met: 4.`` Then each crit rate
        ``--precision-on`` names that some points cannot have, exactly 0 there, which
        held none of them back (``crit_rate:strike is exactly 0 at strike.tier = {}: it
        cannot crit there.``). "" where the points were not run to a precision, or all
        stopped alike (the header says it then) and none had such a crit rate."""
        found = [_result(point).meta.get("precision") for point in self.points]
        records = [record for record in found if record is not None]
        if len(records) < len(found):
            return ""
        stops: dict[tuple[int, bool], list[str]] = {}
        for point, record in zip(self.points, records, strict=True):
            key = (record["encounters"], not record["met"])
            stops.setdefault(key, []).append(self._point_said(point))
        fields = " · ".join(self.fields)
        groups = []
        for k, ((count, capped), names) in enumerate(sorted(stops.items())):
            cap = (", the cap, before the precision was met" if capped else
                   " (the cap)" if count == self.encounters else "")  # fmt: skip
            at = (f"Stopped at {count:,} encounters{cap}: {fields} =" if k == 0 else
                  f"at {count:,}{cap}:")  # fmt: skip
            groups.append(f"{at} {', '.join(names)}")
        said = ["; ".join(groups) + "."] if len(stops) > 1 else []
        return " ".join(said + self._cannot_crit_said(records))

    def _cannot_crit_said(self, records: list[dict[str, Any]]) -> list[str]:
        """A sentence for each crit rate of the precision rule that is exactly 0 at some
        points, which cannot crit there (:func:`~simlab.tuning.precision.precision_rule`)."""
        at: dict[str, list[str]] = {}
        for point, record in zip(self.points, records, strict=True):
            for figure in record.get("cannot_crit", []):
                at.setdefault(figure, []).append(self._point_said(point))
        fields = " · ".join(self.fields)
        return [f"{figure} is exactly 0 at {fields} = {', '.join(names)}: it cannot crit there."
                for figure, names in at.items()]  # fmt: skip

    @property
    def fields(self) -> list[str]:
        """The varied fields' names (``NAME.FIELD``), the tables' leading columns."""
        return [v.target for v in self.vary]

    def _tidy(self, name: str, table: Callable[[SweepPoint], pd.DataFrame]) -> pd.DataFrame:
        """Table ``name``: ``table`` of every point, stacked, each point's varied values
        in the leading columns.

        Made once and copied out: a sweep page draws a plot per figure and attack pair
        from these tables (:func:`simlab.report.tuning.plot_sweep`), and making them
        afresh for each took 35 of the 41 s that ``simlab sweep --out`` of a 56-point
        sweep spent writing. A point whose result or exact answers are replaced makes
        the table again.
        """
        made_from = [(point.result, point.exact) for point in self.points]
        made = self._made.get(name)
        if made is not None and _same_objects(made[0], made_from):
            return made[1].copy()
        frames = []
        for point in self.points:
            frame = table(point)
            for k, (column, value) in enumerate(point.set.items()):
                frame.insert(k, column, [value] * len(frame))
            frames.append(frame)
        tidy = pd.concat(frames, ignore_index=True)
        self._made[name] = (made_from, tidy)
        return tidy.copy()

    @checked_arguments(table=True)
    def attacks(self) -> pd.DataFrame:
        """Hit rate, crit rate and mean damage of every attack pair at every point, with
        95% intervals and, where the exact engine answers the point, ``exact_hit_rate``,
        ``exact_crit_rate``, ``exact_mean_damage`` (NaN elsewhere)."""
        return self._tidy("attacks", _attack_table)

    def attack_intervals(self, level: float) -> pd.DataFrame:
        """The intervals of hit rate, crit rate and mean damage at ``level`` of every
        attack pair at every point, in the rows and order of :meth:`attacks`
        (:func:`moving_pairs` reads them at the whole sweep's level)."""
        return self._tidy(f"attacks at {level!r}", lambda p: _interval_table(p, level))

    @checked_arguments(table=True)
    def combatants(self) -> pd.DataFrame:
        """Down rate, mean and median time-to-down of every combatant at every point
        (:func:`simlab.tuning.figures.combatant_figures`), and ``exact_mean_time_to_down``
        where the exact engine solves the duel (among the encounters downed by the round
        cap, as simulated; NaN at a point it does not solve). A sweep it solves at no
        point (a fight where both sides attack, ``quickstart``; ``exact=False``) has no
        such column, as the terminal's table has none: a column of NaN says nothing."""
        frame = self._tidy("combatants", _combatant_table)
        if frame[EXACT_TIME_TO_DOWN].isna().all():
            return frame.drop(columns=EXACT_TIME_TO_DOWN)
        return frame

    @checked_arguments(table=True)
    def sides(self) -> pd.DataFrame:
        """Win rate of every side and the draw rate at every point, with 95% intervals."""
        return self._tidy("sides", lambda p: _result(p).win_rates())

    @checked_arguments(table=True)
    def encounters_per_point(self) -> pd.DataFrame:
        """How many encounters each point ran, one row a point: run to a precision, each
        point stops on its own, and the header's ``6,250–12,500 encounters per point``
        does not say which point stopped where.

        Returns
        -------
        pandas.DataFrame
            The varied fields, ``encounters`` (the count the point ran: its stop, or
            the sample size every point ran without a precision), ``precision_met``
            and ``cap_reached`` (whether its precision held at the stop, or it reached
            the cap first; NA without a precision).
        """
        return self._tidy("encounters", _encounters_row)

    @checked_arguments(table=True)
    def damage_pmf(self) -> pd.DataFrame:
        """The damage distribution of every attack pair at every point, tidy."""
        return self._tidy("damage_pmf", lambda p: _result(p).damage_pmf())

    def document(self) -> dict[str, Any]:
        """The ``sweep.json`` document: each point's ``set`` and its ``summary.json``
        figures, plus the exact answers where there are any."""
        return {
            "scenario": self.scenario, "rules": self.rules, "seed": self.seed,
            "encounters": self.encounters,
            **({"overrides": list(self.overrides)} if self.overrides else {}),
            "vary": [{"field": v.target, "values": list(v.values)} for v in self.vary],
            "points": [{"set": p.set, **summary(_result(p)), "exact": p.exact}
                       for p in self.points],
        }  # fmt: skip


def _same_objects(a: list[tuple[Any, Any]], b: list[tuple[Any, Any]]) -> bool:
    """Whether two lists of (result, exact answers) pairs hold the very same objects."""
    return len(a) == len(b) and all(
        x is y
        for pair_a, pair_b in zip(a, b, strict=True)
        for x, y in zip(pair_a, pair_b, strict=True)
    )


def _result(point: SweepPoint) -> Result:
    assert point.result is not None, "the sweep has not been run"
    return point.result


def _attack_table(point: SweepPoint) -> pd.DataFrame:
    res = _result(point)
    frame = res.hit_rates().merge(res.damage())
    exact = {(e["attacker"], e["attack"], e["defender"]): e
             for e in (point.exact or {}).get("attacks", [])}  # fmt: skip
    keys = list(zip(frame.attacker, frame.attack, frame.defender, strict=True))
    for figure in PAIR_FIGURES:
        frame[f"exact_{figure}"] = [pair_answer(exact[k], figure) if k in exact
                                    else float("nan") for k in keys]  # fmt: skip
    return frame


def _interval_table(point: SweepPoint, level: float) -> pd.DataFrame:
    res = _result(point)
    return res.hit_rates(level).merge(res.damage(level))


def _combatant_table(point: SweepPoint) -> pd.DataFrame:
    res = _result(point)
    frame = combatant_figures(res.tallies, res.layout, res.encounters)
    exact = {e["name"]: _mean_by_the_cap(e["time_to_down"]["pmf"])
             for e in (point.exact or {}).get("combatants", [])}  # fmt: skip
    frame[EXACT_TIME_TO_DOWN] = [exact.get(name, float("nan")) for name in frame.combatant]
    return frame


def _mean_by_the_cap(pmf: dict[str, float]) -> float:
    """The exact mean round of first down among the encounters downed by the round cap,
    the figure a run measures as ``mean_time_to_down``, from an exact summary's
    P(first down in round r) up to the cap; NaN when it is never downed by then."""
    rounds = [int(r) for r in pmf]
    shares = np.zeros(max(rounds, default=-1) + 1)
    shares[rounds] = list(pmf.values())
    return stats.histogram_mean_var(shares)[0]


def _point_key(values: Iterable[Any]) -> tuple[str, ...]:
    """A point's values as a key that finds it (a map's value cannot be one)."""
    return tuple(map(str, values))


def pair_figures(sweep: SweepResult, rows: pd.DataFrame | None = None) -> list[str]:
    """The figures of :data:`PAIR_FIGURES` a sweep shows: no crit rate where its rules
    have no crits (:func:`simlab.rules.has_crits`), nor for the pairs of ``rows`` (of
    :meth:`SweepResult.attacks`: every point of one pair's curve, or of every pair) when
    none of them can crit at any point (:meth:`SweepResult.can_crit`): a flat line at 0
    that says nothing the other figures do not. A pair that can crit keeps its crit
    rate, 0 where no crit came up.

    Parameters
    ----------
    sweep : SweepResult
        The sweep.
    rows : pandas.DataFrame, optional
        With the columns of :data:`PAIR`.

    Returns
    -------
    list of str
    """
    pairs = [] if rows is None else rows[PAIR].drop_duplicates().itertuples(index=False)
    crits = has_crits(sweep.rules) and (rows is None or any(sweep.can_crit(*p) for p in pairs))
    return [f for f in PAIR_FIGURES if crits or f != "crit_rate"]


def moving_pairs(sweep: SweepResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a sweep's attack pairs into those the sweep moves and those it leaves flat.

    A pair *moves* when, for one of its figures (hit rate, crit rate where the rules
    have crits, mean damage), its intervals at the sweep's points have no value in
    common (the largest lower bound is above the smallest upper bound), or its exact
    answer differs between points; a pair measured at one point only has nothing to be
    flat against and is shown in full, as moving. Otherwise every point is consistent
    with one value: its curve would be a flat line inside its band (sweeping a
    combatant's HP leaves the hit rates of the attacks that do not depend on it where
    they are). The sweep page draws the pairs that move and names the others; the
    terminal gives each moving pair a table and the flat ones one table of their ranges.

    The intervals are those of the whole sweep at once (Bonferroni): with ``m``
    intervals compared, each is at level ``1 − FALSE_MOVE_RATE / m``
    (:func:`joint_level`). Should every interval hold its true value, a pair whose true
    value is the same at every point has intervals that all hold it, so they share it;
    hence a sweep that moves nothing draws some pair as moving with chance at most
    :data:`FALSE_MOVE_RATE`, whatever the number of pairs, points and figures. With each
    at 95%, ``party-vs-monsters`` swept over 11 values of Bruna's HP drew three of its 44
    pairs, none of them Bruna's attack or an attack at her (README, "Tuning").

    Parameters
    ----------
    sweep : SweepResult
        A sweep that has been run.

    Returns
    -------
    tuple of pandas.DataFrame
        ``(moving, flat)``: the pairs (``attacker``, ``attack``, ``defender``) in the
        order they first appear.
    """
    attacks = sweep.attacks()
    figures = pair_figures(sweep)
    level = joint_level(attacks, figures)
    bounds = sweep.attack_intervals(level)
    for figure in figures:
        for end in ("lo", "hi"):
            column = interval_column(figure, level, end)
            attacks[column] = bounds[column].to_numpy()
    return split_moving(attacks, figures, level)


def moving_level(sweep: SweepResult) -> float:
    """The level of each interval :func:`moving_pairs` compares in ``sweep``
    (:func:`joint_level`)."""
    return joint_level(sweep.attacks(), pair_figures(sweep))


def joint_level(attacks: pd.DataFrame, figures: list[str]) -> float:
    """The level of each interval :func:`moving_pairs` compares: ``1 − FALSE_MOVE_RATE /
    m``, ``m`` the intervals of ``figures`` of every pair seen at two points or more
    (``attacks``: one row per point and pair); 0.95 (any) where there are none."""
    sizes = attacks.groupby(PAIR, sort=False).size()
    compared = int(sizes[sizes >= 2].sum()) * len(figures)
    return 1 - FALSE_MOVE_RATE / compared if compared else 0.95


def split_moving(
    attacks: pd.DataFrame, figures: list[str], level: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`moving_pairs` on a table that holds each figure's interval at ``level``
    (``hit_rate_ci95_lo`` … at 0.95, :func:`~simlab.analysis.result.interval_column`)
    and, optionally, ``exact_<figure>``: the pairs whose intervals share no value or
    whose exact answer changes, then the others. A mean damage measured on fewer than
    :data:`~simlab.analysis.stats.FEW_ATTACKS` attacks at a point (``attempts``, where
    the table has it) is not compared there: two attacks dealing 4 each gave an
    interval of no width, which shared no value with the others and drew the pair as
    moved."""
    grouped = attacks.groupby(PAIR, sort=False)
    moved = grouped.size() < 2
    for figure in figures:
        lo, hi = (interval_column(figure, level, end) for end in ("lo", "hi"))
        compared = attacks.assign(**{column: _compared(attacks, figure, column)
                                     for column in (lo, hi)}).groupby(PAIR, sort=False)  # fmt: skip
        moved |= compared[lo].max() > compared[hi].min()
        if f"exact_{figure}" in attacks:
            exact = grouped[f"exact_{figure}"]
            moved |= exact.max() - exact.min() > EXACT_SAME
    pairs = moved.index.to_frame(index=False)
    moves = moved.to_numpy()
    return pairs[moves].reset_index(drop=True), pairs[~moves].reset_index(drop=True)


def _compared(attacks: pd.DataFrame, figure: str, column: str) -> pd.Series:
    """The bounds of ``column`` that :func:`split_moving` compares: a mean damage's at a
    point of fewer than :data:`~simlab.analysis.stats.FEW_ATTACKS` attacks left out (NaN,
    which a group's max and min pass over)."""
    bounds = attacks[column]
    if figure != "mean_damage" or "attempts" not in attacks:
        return bounds
    return bounds.where(attacks.attempts >= stats.FEW_ATTACKS)


def sweep_points(scenario: ScenarioBase, vary: Vary) -> SweepResult:
    """Build and validate every point of a sweep (nothing is simulated yet).

    Raises
    ------
    InputError
        Naming the ``--vary`` argument (or ``vary`` key) of the first invalid value.
    """
    variations = _variations(vary)
    if not variations:
        raise InputError("vary: expected at least one NAME.FIELD and its values; got none")
    total = 1
    for v in variations:
        if not v.values:
            raise InputError(f"{v.label}: expected at least one value; got none")
        _refuse_words_only(v)
        total *= len(v.values)
    if total > MAX_POINTS:
        counts = " × ".join(f"{len(v.values):,} ({v.label})" for v in variations)
        raise InputError(f"expected a sweep of at most {MAX_POINTS:,} points, the product of "
                         f"the values varied; got {total:,}: {counts}")  # fmt: skip
    notes = (flat_dice_note(scenario, v.target, v.values, v.label) for v in variations)
    result = SweepResult(scenario.scenario, scenario.rules, scenario.seed, scenario.encounters,
                         variations, overrides=scenario.overrides,
                         notes=tuple(note for note in notes if note))  # fmt: skip
    result._swept = scenario
    labels = ", ".join(v.label for v in variations)
    for values in itertools.product(*(v.values for v in variations)):
        changes = [Override(v.target, x, v.label, one_of=True, keyed=v.keyed)
                   for v, x in zip(variations, values, strict=True)]  # fmt: skip
        variant = apply_overrides(scenario, changes)
        refuse_run_changes(scenario, variant, labels, "sweep")
        refuse_spec_changes(scenario, variant, changes, "sweep")
        result.points.append(SweepPoint(
            {v.target: x for v, x in zip(variations, values, strict=True)}, variant))  # fmt: skip
    for v in variations:  # once every value is valid: '1,1.0' of a whole number is 1.0's slip
        _check_each_once(v)
    return result


def _refuse_words_only(variation: Variation) -> None:
    """Refuse a varied field that no figure depends on (the scenario's id, its
    description: :data:`~simlab.report.files.WORDS_ONLY`): every point would play the
    same fight, alike in every table, under labels that say otherwise."""
    from simlab.report.files import WORDS_ONLY

    if variation.target in WORDS_ONLY:
        raise InputError(f"{variation.label}: expected a change to the fight; got one to "
                         f"{variation.target!r}, words that change no figure: every point "
                         "would play the same")  # fmt: skip


def _check_each_once(variation: Variation) -> None:
    """Refuse a varied field with a value given twice: its points would be run twice,
    their rows alike in every table (a pivot on the field then fails)."""
    # true is not 1 (nor false 0) in a file, though Python finds them equal
    values = [(type(value) is bool, value) for value in variation.values]
    for k, value in enumerate(values):
        if value in values[:k]:
            count = values.count(value)
            times = "twice" if count == 2 else f"{count} times"
            said = written_value(value[1], variation.keyed)
            raise InputError(f"{variation.label}: expected each value once; got {said} {times}")


def sweep(
    scenario: ScenarioBase,
    vary: Vary,
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    exact: bool = True,
    progress: Callable[[int], None] | None = None,
    precision: float | None = None,
    precision_on: Iterable[Any] = (),
    client: Any = None,
) -> SweepResult:
    """Run ``scenario`` at every combination of the varied fields' values, same seed.

    Parameters
    ----------
    scenario : ScenarioBase
        The scenario to vary.
    vary : mapping of str to iterable, str or list of str
        ``{"Defender.guard": range(0, 5)}``: each ``NAME.FIELD`` (spelled as for
        :func:`simlab.override`) and its values; several fields make a grid. Or as
        ``--vary`` spells them: ``"Defender.guard=0:4"``, ``["Orc.hp=8:16:2",
        "claw.damage=1d6,1d8"]``.
    n, seed : int, optional
        Encounters per point and seed (default: the scenario's); every point uses both.
    threads : int, optional
        numba threads; the numbers do not depend on it.
    exact : bool
        Also ask the exact engine at every point (hit, crit, mean damage per pair; a
        duel's mean time-to-down) where it answers.
    progress : callable, optional
        Called with the encounters played since its last call, as for
        :func:`simlab.simulate` (the calls add up to the encounters of every point).
    precision, precision_on : optional
        Run every point to a precision (``n`` is then the cap; each point stops on its
        own), as for :func:`simlab.simulate`.
    client : distributed.Client, optional
        Play every point as tasks on this Dask cluster instead of ``threads``, as for
        :func:`simlab.simulate`; the numbers are the same.

    Returns
    -------
    SweepResult
        Point k equals ``simulate(override(scenario, point k's set), n, seed)``.
    """
    from simlab.exact.engine import exact as solve
    from simlab.tuning.precision import simulate_among

    result = sweep_points(scenario, vary)
    result.encounters, result.seed = encounters_and_seed(scenario, n, seed)
    given: float | None = scenario.precision if precision is None else precision
    figures = precision_on_argument(given, precision_on)  # read once, not at each point
    if client is not None and given is None:
        _play_on_the_cluster(result, client, progress)
    variants = [p.scenario for p in result.points]
    for point in result.points:
        if point.result is None:  # a crit rate run to a precision: 0 where it cannot crit
            point.result = simulate_among(point.scenario, variants, result.encounters,
                                          result.seed, given, figures, threads=threads,
                                          progress=progress, client=client)  # fmt: skip
        if exact:
            try:
                point.exact = solve(point.scenario).summary()
            except ExactUnsupported:
                point.exact = None
    return result


def _play_on_the_cluster(
    result: SweepResult, client: Any, progress: Callable[[int], None] | None
) -> None:
    """Play every point of ``result`` on the Dask cluster of ``client`` at once
    (:func:`simlab.engine.distributed.run_dask_jobs`), each point's result that of
    :func:`simlab.simulate` (not for a run to a precision, which stops point by point)."""
    from simlab.api import compile_job, simulated_result
    from simlab.engine.distributed import run_dask_jobs

    jobs = [compile_job(p.scenario, result.encounters, result.seed) for p in result.points]
    played = run_dask_jobs([(job, [(0, job.n)]) for job in jobs], client, progress=progress)
    for point, job, (tallies,) in zip(result.points, jobs, played, strict=True):
        point.result = simulated_result(point.scenario, job, tallies)
