"""Simulation results: tallies → tidy pandas tables with their intervals.

A :class:`Result` keeps the merged integer tallies of a run and its layout; every table
is computed from them on request. Interval columns are named after their level, e.g.
``hit_rate_ci95_lo``, and a ``*_ci_kind`` column (or the DataFrame's ``attrs``) names
the method: Wilson (Clopper–Pearson for rare events) for rates, batch means for mean
damage, Wilson per round for P(downed by round r).
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.arguments import describe
from simlab.binding import checked_arguments
from simlab.engine.tallies import Layout, TallyArrays
from simlab.errors import InputError, closest_name
from simlab.report.words import counted, overrides_said

#: The ``*_ci_kind`` of a mean over independent encounters (a mean time-to-down, an
#: event's mean round): mean ± z · sd / √n.
NORMAL_CI_KIND = "normal"
#: The ``*_ci_kind`` of a median time-to-down: the rounds at which the pointwise band of
#: P(downed by round r) (Wilson, Clopper–Pearson when rare) reaches one half.
MEDIAN_CI_KIND = "band-crossing"
#: The columns of :meth:`Result.events` over only the encounters in which the event
#: happened (its pmf, over all encounters, sums to the rate instead).
MEAN_WHEN = "mean_round_when_happened"
MEDIAN_WHEN = "median_round_when_happened"


def interval_column(name: str, level: float, end: str) -> str:
    """The column of an interval's ``end`` at ``level``: ``hit_rate_ci95_lo``, and
    ``hit_rate_ci99.9_lo`` at 0.999 (never the name of another level)."""
    return f"{name}_ci{level * 100:g}_{end}"


#: The per-combatant (C, B) tallies :meth:`Result.per_encounter` reads (zero where the
#: rules have none: ``Layout.per_encounter_tallies`` says which a scenario reports).
PER_ENCOUNTER = ("status_damage", "momentum_spent")


_Table = TypeVar("_Table", bound=Callable[..., pd.DataFrame])


def _kept(method: _Table) -> _Table:
    """A table method whose table is built once per result and level, and given as a
    copy each time: a notebook that shows ``res.time_to_down()`` and plots it (the plot
    reads the same table), or a summary that reads ``combatants()`` per row, builds it
    once, and a caller that edits the table it got does not edit the next."""

    signature = inspect.signature(method)

    @functools.wraps(method)
    def kept(self: Result, *args: Any, **kwargs: Any) -> pd.DataFrame:
        given = signature.bind(self, *args, **kwargs)
        given.apply_defaults()  # time_to_down() and time_to_down(0.95): one table
        key = (method.__name__, *list(given.arguments.values())[1:])
        try:
            table = self._tables.get(key)
        except TypeError:  # an argument that cannot be a key: the method says what is wrong
            return method(self, *args, **kwargs)
        if table is None:
            table = self._tables[key] = method(self, *args, **kwargs)
        return table.copy()

    # arguments that do not fit are said as every table method says them:
    # hit_rates(attacker="Kaito") is .hit_rates().query(...)
    return checked_arguments(table=True)(kept)  # type: ignore[return-value]


def precision_said(precision: dict[str, Any] | None) -> str:
    """How a run to a precision stopped, after its count of encounters in a repr: ``
    (precision 0.01 met)``, or `` (the cap, reached before the precision was met)``; ""
    for a run of a set size (``precision`` None: no record)."""
    if not precision:
        return ""
    if precision.get("cap_reached", False):
        return " (the cap, reached before the precision was met)"
    return f" (precision {precision['half_width']:g} met)"


def _index(value: Any, names: Sequence[str], what: str) -> int:
    """``value``, the name among ``names`` of ``what`` (``"a combatant"``) or its index in
    them (a numpy integer too), as that index; :class:`~simlab.errors.InputError` for
    anything else, a negative index included (it would count from the end)."""
    if isinstance(value, str) and value in names:
        return list(names).index(value)
    count = len(names)
    if isinstance(value, Integral) and not isinstance(value, bool) and 0 <= int(value) < count:
        return int(value)
    close = closest_name(value, names)
    hint = f"; did you mean {close!r}?" if close else ""
    listed = ", ".join(names[:_NAMES_LISTED]) + (", …" if count > _NAMES_LISTED else "")
    raise InputError(f"expected {what} ({listed}) or its index from 0 to {count - 1}; got "
                     f"{describe(value)}{hint}")  # fmt: skip


#: The most names a refused name or index lists of those it could be.
_NAMES_LISTED = 8


def _round_pmf(hist: np.ndarray, encounters: int) -> dict[int, float]:
    """Round → share of all ``encounters`` of a histogram by round, rounds with any."""
    return {int(r): float(hist[r] / encounters) for r in np.flatnonzero(hist)}


@dataclass
class Result:
    """The outcome of ``simlab.simulate``: tallies plus what they mean.

    Attributes
    ----------
    scenario, rules : str
        Scenario id and rules id.
    encounters, seed : int
        Sample size and seed of the run.
    layout : Layout
        Names and sizes of the tally arrays.
    tallies : TallyArrays
        The merged integer tallies.
    trace : pandas.DataFrame or None
        One row per attack with the raw dice, when run with ``trace=True``: every code a
        number, as the rules pages list them; :meth:`readable_trace` names them.
    check : pandas.DataFrame or None
        The simulation compared with the exact answers, when run with ``check=True``
        (see :func:`simlab.exact.engine.check_simulation`).
    """

    scenario: str
    rules: str
    encounters: int
    seed: int
    layout: Layout
    tallies: TallyArrays
    trace: pd.DataFrame | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    check: pd.DataFrame | None = None
    #: The scenario simulated, whose overrides that change nothing the repr works out
    #: when first shown (:meth:`_overrides_said`); None for a run read back from files.
    _simulated: Any = field(default=None, init=False, repr=False, compare=False)
    #: The tables built so far, by method and arguments (:func:`_kept`); the tallies of
    #: a result are not changed once it is made.
    _tables: dict[Any, pd.DataFrame] = field(default_factory=dict, init=False, repr=False,
                                             compare=False)  # fmt: skip

    def __repr__(self) -> str:
        """One line: what was run (with the changes it was run with, one that changes
        nothing said so; a run to a precision that stopped at its cap says so, as
        ``simlab run`` does) and every method that gives one of its tables, and its
        ``.check`` and ``.trace`` tables where it has them, the trace's readable form
        too (a notebook shows this for
        ``res``; the dataclass's own repr printed every tally array, some 14 kB)."""
        pairs = int(np.count_nonzero(self.tallies.attempts.sum(axis=1)))
        changed = self._overrides_said()
        fixed = f" · with {', '.join(changed)}" if changed else ""
        methods = ", ".join([*(f".{name}()" for name in self._table_methods()),
                             *(f".{name}" for name in ("check", "trace")
                               if getattr(self, name) is not None),
                             *([".readable_trace()"] if self.trace is not None else [])
                             ])  # fmt: skip
        cap = precision_said(self.meta.get("precision"))
        return (f"<Result {self.scenario}{fixed} · rules {self.rules} · "
                f"{counted(self.encounters, 'encounter')}{cap} · seed {self.seed}: "
                f"{counted(len(self.layout.combatants), 'combatant')}, "
                f"{counted(pairs, 'attack pair')}; {methods}>")  # fmt: skip

    def _overrides_said(self) -> list[str]:
        """The run's overrides as the terminal's heading says them, one that changes
        nothing said so (:func:`~simlab.report.words.overrides_said`): as a report's run
        recorded them (``meta["idle_overrides"]``), else worked out from the scenario
        simulated the first time they are shown. :func:`simlab.simulate` does not: it
        costs a validation an override, which every point of a sweep would pay."""
        meta = self.meta
        if meta.get("overrides") and "idle_overrides" not in meta and self._simulated is not None:
            meta = {**meta, "idle_overrides": self._idle_overrides}
        return overrides_said(meta)

    @functools.cached_property
    def _idle_overrides(self) -> tuple[str, ...]:
        """The overrides of the scenario simulated that change nothing, worked out once
        (:attr:`~simlab.scenario.common.ScenarioBase.idle_overrides`)."""
        return tuple(self._simulated.idle_overrides)

    def _table_methods(self) -> list[str]:
        """The methods that give this run's tables: every table a run has, and
        ``events``, ``status_damage`` and ``momentum_spent`` where the rule system or the
        scenario has them (``Layout.events``, ``Layout.per_encounter_tallies``)."""
        return ["hit_rates", "damage", "damage_pmf", "time_to_down", "combatants",
                *(["events"] if self.layout.events else []),
                *self.layout.per_encounter_tallies, "win_rates"]  # fmt: skip

    # -- trace -------------------------------------------------------------------------

    @checked_arguments(table=True)
    def readable_trace(self) -> pd.DataFrame:
        """:attr:`trace` to be read roll by roll: each code named, each roll's dice in
        one column.

        A code column (a tier, a reaction, a fumble, a row's kind, a state; see
        :data:`TRACE_CODES` and the rule system's page under ``docs/rules/``) becomes an
        ordered categorical of its names (``miss < hit < crit``), and numbered dice
        (``die1..3``, ``reroll_die1..3``, ``atk_die1..6``…) one text column of the dice
        rolled (``dice``: ``"6 3"``; a die not rolled, traced as 0, left out). Numbers
        that are numbers in the rules (``phase``, the round, rolls and totals) stay so.
        Shattered Spirits' trace thus fits the 20 columns a notebook shows, ``reaction``
        and ``final_roll`` among them. A code that says nothing on some kinds of rows
        (glitters-d20's ``hit`` on a turn's start) is blank there
        (:data:`TRACE_CODE_KINDS`). :attr:`trace` itself keeps the numbers.

        Raises
        ------
        InputError
            When the run has no trace (run it with ``trace=True``).
        """
        if self.trace is None:
            raise InputError("expected a run with a trace; got none (simulate with trace=True)")
        table = _named_codes(self.trace, self.rules)
        for name, columns in _dice_groups(list(table.columns)).items():
            dice = table[columns].to_numpy()
            at = table.columns.get_loc(columns[0])
            table = table.drop(columns=columns)
            table.insert(at, name, [" ".join(str(d) for d in row if d) for row in dice])
        return table

    # -- attacks -----------------------------------------------------------------------

    def _pairs(self) -> tuple[np.ndarray, pd.DataFrame]:
        attempts = self.tallies.attempts.sum(axis=1)
        used = np.flatnonzero(attempts)
        names = [self.layout.unpair(int(i)) for i in used]
        frame = pd.DataFrame(
            {
                "attacker": [self.layout.combatants[a][1] for a, _, _ in names],
                "attack": [self.layout.attacks[k] for _, k, _ in names],
                "defender": [self.layout.combatants[d][1] for _, _, d in names],
                "attempts": attempts[used],
            }
        )
        return used, frame

    @_kept
    def hit_rates(self, level: float = 0.95) -> pd.DataFrame:
        """Hit and crit rate of every (attacker, attack, defender) that occurred.

        Hit rate is P(tier hit or crit), crit rate P(crit) (README, "Scenarios" and "Output files"),
        each with a ``level`` interval: Wilson, or Clopper–Pearson when fewer than 10 successes or
        failures (named in ``*_ci_kind``).
        """
        used, frame = self._pairs()
        for name, counts in (("hit", self.tallies.hits), ("crit", self.tallies.crits)):
            k = counts.sum(axis=1)[used]
            lo, hi, kind = stats.rate_interval(k, frame["attempts"].to_numpy(), level)
            frame[f"{name}s"] = k
            frame[f"{name}_rate"] = k / frame["attempts"].to_numpy()
            frame[interval_column(f"{name}_rate", level, "lo")] = lo
            frame[interval_column(f"{name}_rate", level, "hi")] = hi
            frame[f"{name}_rate_ci_kind"] = kind
        return frame

    @_kept
    def damage(self, level: float = 0.95) -> pd.DataFrame:
        """Mean damage per attack (misses count as 0) with a batch-means interval."""
        used, frame = self._pairs()
        mean, lo, hi = stats.ratio_batch_means_many(
            self.tallies.damage_sum[used], self.tallies.attempts[used], level
        )
        frame["mean_damage"] = mean
        frame[interval_column("mean_damage", level, "lo")] = lo
        frame[interval_column("mean_damage", level, "hi")] = hi
        frame["mean_damage_ci_kind"] = "batch-means"
        return frame

    @_kept
    def damage_pmf(self) -> pd.DataFrame:
        """Distribution of damage per attack, one row per (pair, damage) seen.

        Columns: ``attacker, attack, defender, damage, count, probability`` (of that
        damage, misses counted as damage 0) and ``or_more``: True on the histogram's
        last bin, whose row counts that damage or more (only extreme Exposed stacking
        reaches it). P(damage ≥ x) is ``simlab.plot_damage_at_least``'s table
        (column ``at_least``).
        """
        used, frame = self._pairs()
        rows = []
        last = self.layout.damage_bins - 1
        for i, pair in enumerate(frame.itertuples(index=False)):
            hist = self.tallies.damage_hist[used[i]]
            for dmg in np.flatnonzero(hist):
                rows.append(
                    (pair.attacker, pair.attack, pair.defender, int(dmg), int(hist[dmg]),
                     hist[dmg] / pair.attempts, bool(dmg == last))
                )  # fmt: skip
        columns = ["attacker", "attack", "defender", "damage", "count", "probability", "or_more"]
        return pd.DataFrame(rows, columns=columns)

    # -- combatants --------------------------------------------------------------------

    def _down_curve(self, c: int, level: float) -> pd.DataFrame:
        """Combatant ``c``'s P(downed by round r) with its band (see stats)."""
        return stats.cumulative_incidence(self.tallies.down_round[c], self.encounters, level)

    @_kept
    def time_to_down(self, level: float = 0.95) -> pd.DataFrame:
        """P(downed by round r) for every combatant, over all encounters.

        Time-to-down is a cumulative incidence: an encounter that ended with the
        combatant standing (its side won) is a fight it was never downed in, not an
        unfinished one, so every encounter counts in every round's denominator; only the
        round cap ends observation (README, "Scenarios" and "Output files"). Columns: ``combatant,
        side, round`` (1..max_rounds), ``downed`` (encounters in which it first went down
        in that round), ``down_by_round`` and its pointwise interval
        ``down_by_round_ci95_lo/hi`` (Wilson; Clopper–Pearson when fewer than 10
        encounters on either side; kind in ``down_by_round_ci_kind`` and ``attrs``).
        At the last round ``down_by_round`` is the down rate.
        """
        frames = []
        for c, (side, name) in enumerate(self.layout.combatants):
            curve = self._down_curve(c, level).rename(
                columns={
                    "events": "downed",
                    "by_round": "down_by_round",
                    "by_round_lo": interval_column("down_by_round", level, "lo"),
                    "by_round_hi": interval_column("down_by_round", level, "hi"),
                    "ci_kind": "down_by_round_ci_kind",
                }
            )
            curve.insert(0, "side", side)
            curve.insert(0, "combatant", name)
            frames.append(curve)
        out = pd.concat(frames, ignore_index=True)
        out.attrs = {"interval": "wilson-pointwise", "level": level}
        return out

    @_kept
    def combatants(self, level: float = 0.95) -> pd.DataFrame:
        """Per combatant: down rate with its interval, median time-to-down, encounters
        capped with it standing, mean attacks received until down, each event's rate.

        ``median_time_to_down`` is the round by which half of all encounters had it
        downed (NaN when its down rate is below one half) with the interval read off the
        band of :meth:`time_to_down` (kind :data:`MEDIAN_CI_KIND`);
        ``median_time_to_down_when_downed`` is the median round among the encounters in
        which it went down, ``mean_time_to_down`` the mean round among them with its
        normal interval (:func:`mean_time_to_down`, the figure the tuning commands
        target). ``capped`` counts the
        encounters that reached the round cap with it never downed: those the cap
        stopped, and those its side won in that last round.
        """
        n = self.encounters
        rows = []
        for c, (side, name) in enumerate(self.layout.combatants):
            downs = int(self.tallies.down_round[c].sum())
            lo, hi, kind = stats.rate_interval(downs, n, level)
            median, m_lo, m_hi = median_time_to_down(
                self.tallies.down_round[c], n, level, self.layout.first_round_of([c])
            )
            mean, t_lo, t_hi = mean_time_to_down(self.tallies.down_round[c], level)
            row: dict[str, Any] = {
                "combatant": name, "side": side, "downed": downs, "down_rate": downs / n,
                interval_column("down_rate", level, "lo"): float(lo),
                interval_column("down_rate", level, "hi"): float(hi),
                "down_rate_ci_kind": str(kind),
                "median_time_to_down": median,
                interval_column("median_time_to_down", level, "lo"): m_lo,
                interval_column("median_time_to_down", level, "hi"): m_hi,
                "median_time_to_down_ci_kind": MEDIAN_CI_KIND,
                "median_time_to_down_when_downed": _nan(
                    stats.histogram_median(self.tallies.down_round[c])),
                "mean_time_to_down": mean,
                interval_column("mean_time_to_down", level, "lo"): t_lo,
                interval_column("mean_time_to_down", level, "hi"): t_hi,
                "mean_time_to_down_ci_kind": NORMAL_CI_KIND,
                "capped": int(self.tallies.censor_round[c, self.layout.max_rounds]),
                "mean_attacks_to_down": stats.histogram_mean_var(self.tallies.down_attacks[c])[0]
                if downs else None,
            }  # fmt: skip
            for e, event in enumerate(self.layout.events):
                row[f"{event}_rate"] = self.tallies.event_round[c, e].sum() / n
            rows.append(row)
        return pd.DataFrame(rows)

    @_kept
    def events(self, level: float = 0.95) -> pd.DataFrame:
        """Rate and time of each rule-specific event (``Layout.events``) per combatant.

        Events are the states a rule system reports beside going down: Shattered Spirits'
        death at a full Strain Meter, the earlier draft's Shaken, opposed-tiers'
        unconscious and dead, glitters' death after failed saves. Each is tallied by the
        round it first happened in; an encounter in which it never happened counts
        toward the rate only. Columns: ``combatant, side, event, occurred, rate`` with its
        interval, and, over only the ``occurred`` encounters in which it happened,
        ``mean_round_when_happened`` with a normal interval (encounters are independent;
        kind :data:`NORMAL_CI_KIND`) and ``median_round_when_happened``. The round's
        distribution over all encounters is :meth:`event_pmf`, which sums to ``rate``:
        the mean when happened is ``sum(r * p) / rate`` over it.
        """
        n = self.encounters
        rows = []
        for c, (side, name) in enumerate(self.layout.combatants):
            for e, event in enumerate(self.layout.events):
                hist = self.tallies.event_round[c, e]
                k = int(hist.sum())
                lo, hi, kind = stats.rate_interval(k, n, level)
                mean, var = stats.histogram_mean_var(hist)
                half = stats.normal_quantile(level) * np.sqrt(var / k) if k > 1 else np.nan
                rows.append({
                    "combatant": name, "side": side, "event": event, "occurred": k,
                    "rate": k / n, interval_column("rate", level, "lo"): float(lo),
                    interval_column("rate", level, "hi"): float(hi), "rate_ci_kind": str(kind),
                    MEAN_WHEN: mean if k else np.nan,
                    interval_column(MEAN_WHEN, level, "lo"): mean - half,
                    interval_column(MEAN_WHEN, level, "hi"): mean + half,
                    f"{MEAN_WHEN}_ci_kind": NORMAL_CI_KIND,
                    MEDIAN_WHEN: stats.histogram_median(hist),
                })  # fmt: skip
        columns = ["combatant", "side", "event", "occurred", "rate",
                   interval_column("rate", level, "lo"), interval_column("rate", level, "hi"),
                   "rate_ci_kind", MEAN_WHEN, interval_column(MEAN_WHEN, level, "lo"),
                   interval_column(MEAN_WHEN, level, "hi"), f"{MEAN_WHEN}_ci_kind",
                   MEDIAN_WHEN]  # fmt: skip
        return pd.DataFrame(rows, columns=columns)

    @checked_arguments()
    def event_pmf(self, combatant: int | str, event: int | str) -> dict[int, float]:
        """P(the event first happens in round r) over all encounters, for each round r
        with any: it sums to the event's rate, not to 1 (:meth:`events`).

        Parameters
        ----------
        combatant : str or int
            A combatant's name (after ``count:`` expansion, as :meth:`combatants` lists
            them), or its index in ``layout.combatants``.
        event : str or int
            An event's name (``dead``, ``out``…: ``layout.events``), or its index there.

        Returns
        -------
        dict of int to float
            Round → probability, the rounds in which it ever happened.
        """
        c = _index(combatant, self._combatant_names(), "a combatant")
        e = _index(event, list(self.layout.events), "an event")
        return _round_pmf(self.tallies.event_round[c, e], self.encounters)

    @checked_arguments()
    def down_pmf(self, combatant: int | str) -> dict[int, float]:
        """P(first down in round r) over all encounters, for each round r with any, for
        one combatant: it sums to the down rate. The same figures as
        :meth:`time_to_down`'s ``downed`` column over the encounters.

        Parameters
        ----------
        combatant : str or int
            A combatant's name (after ``count:`` expansion), or its index in
            ``layout.combatants``.

        Returns
        -------
        dict of int to float
            Round → probability, the rounds in which it ever went down.
        """
        c = _index(combatant, self._combatant_names(), "a combatant")
        return _round_pmf(self.tallies.down_round[c], self.encounters)

    def _combatant_names(self) -> list[str]:
        return [name for _, name in self.layout.combatants]

    def status_damage(self, level: float = 0.95) -> pd.DataFrame:
        """Mean damage each combatant took from statuses per encounter (bleeding,
        burning…; not counted in attack damage), with a batch-means interval.

        Zero for rule systems without statuses. Columns: ``combatant, side,
        mean_status_damage`` and its interval (``*_ci95_lo/hi``, ``*_ci_kind``).
        """
        return self.per_encounter("status_damage", level)

    def momentum_spent(self, level: float = 0.95) -> pd.DataFrame:
        """Mean Momentum each combatant spent per encounter (Shattered Spirits: Manifesting
        at Melee range, attacks and reactions priced in Momentum; docs/rules/
        shattered-spirits.md), with a batch-means interval.

        Zero in scenarios that spend none (``layout.momentum`` false). Columns:
        ``combatant, side, mean_momentum_spent`` and its interval (``*_ci95_lo/hi``,
        ``*_ci_kind``).
        """
        return self.per_encounter("momentum_spent", level)

    @_kept
    def per_encounter(self, name: str, level: float = 0.95) -> pd.DataFrame:
        """Per-combatant mean per encounter of the (C, B) tally ``name`` (one of
        ``layout.per_encounter_tallies``), with a batch-means interval, as column
        ``mean_<name>``."""
        if name not in PER_ENCOUNTER:
            raise InputError(f"expected a per-encounter tally ({', '.join(PER_ENCOUNTER)}); "
                             f"got {name!r}")  # fmt: skip
        sums = getattr(self.tallies, name)
        batches = sums.shape[1]
        edges = -(-np.arange(batches + 1, dtype=np.int64) * self.encounters // batches)
        per_batch = np.diff(edges)  # encounters in each batch (encounter * B // n)
        counts = np.broadcast_to(per_batch, sums.shape)
        mean, lo, hi = stats.ratio_batch_means_many(sums, counts, level)
        column = f"mean_{name}"
        return pd.DataFrame({
            "combatant": [c for _, c in self.layout.combatants],
            "side": [side for side, _ in self.layout.combatants],
            column: mean,
            interval_column(column, level, "lo"): lo,
            interval_column(column, level, "hi"): hi,
            f"{column}_ci_kind": "batch-means",
        })  # fmt: skip

    # -- sides -------------------------------------------------------------------------

    @_kept
    def win_rates(self, level: float = 0.95) -> pd.DataFrame:
        """Win rate of each side and the draw rate (round cap or mutual defeat)."""
        wins = self.tallies.winner
        names = [*self.layout.sides, "draw"]
        lo, hi, kind = stats.rate_interval(wins, np.full(len(wins), self.encounters), level)
        return pd.DataFrame(
            {
                "side": names,
                "wins": wins,
                "win_rate": wins / self.encounters,
                interval_column("win_rate", level, "lo"): lo,
                interval_column("win_rate", level, "hi"): hi,
                "win_rate_ci_kind": kind,
            }
        )

    def mean_rounds(self) -> float:
        """Mean encounter length in rounds."""
        return stats.histogram_mean_var(self.tallies.rounds)[0]


#: The names of each rule system's coded trace columns, code 0 first (the rules pages
#: under ``docs/rules/`` list them; glitters-d20's kinds are its ``KIND_NAMES``).
TRACE_CODES: dict[str, dict[str, tuple[str, ...]]] = {
    "shattered-spirits": {"reaction": ("none", "Block", "Evade"),
                          "tier": ("miss", "hit", "crit")},
    "shattered-spirits-draft1": {"reaction": ("none", "Block", "Evade"),
                                 "tier": ("miss", "hit", "crit"),
                                 "fumble": ("none", "Focus", "Momentum", "Exposed")},
    "opposed-tiers": {"state_after": ("standing", "falling", "unconscious", "dead")},
    "glitters-d20": {"kind": ("turn", "attack", "bleeding", "burning", "save"),
                     "parried": ("none", "Parry"), "crit": ("none", "crit"),
                     "hit": ("miss", "hit"),
                     "affinity": ("resistant", "none", "vulnerable")},
}  # fmt: skip
#: The code of the first name of a coded trace column, where it is not 0 (glitters-d20's
#: affinity is −1 resistant, 0, 1 vulnerable).
TRACE_CODE_FIRST: dict[str, dict[str, int]] = {"glitters-d20": {"affinity": -1}}
#: The kinds of rows (glitters-d20's ``kind``) a coded column says something on; on the
#: others it is blank: a turn's start has no hit, and reads no ``miss``.
TRACE_CODE_KINDS: dict[str, dict[str, tuple[str, ...]]] = {
    "glitters-d20": {"parried": ("attack",), "crit": ("attack",), "hit": ("attack",),
                     "affinity": ("attack", "burning")},
}  # fmt: skip


def _named_codes(trace: pd.DataFrame, rules: str) -> pd.DataFrame:
    """``trace`` with each coded column of ``rules`` (:data:`TRACE_CODES`) an ordered
    categorical of its names, blank on the kinds of rows it says nothing on
    (:data:`TRACE_CODE_KINDS`)."""
    table = trace.copy()
    codes, first = TRACE_CODES.get(rules, {}), TRACE_CODE_FIRST.get(rules, {})
    on_kinds = TRACE_CODE_KINDS.get(rules, {})
    for column, names in codes.items():
        code = trace[column].to_numpy() - first.get(column, 0)
        if column in on_kinds:
            kinds = np.asarray(codes["kind"])[trace["kind"].to_numpy()]
            code = np.where(np.isin(kinds, on_kinds[column]), code, -1)  # -1: blank
        table[column] = pd.Categorical.from_codes(code, names, ordered=True)
    return table


_NUMBERED_DIE = re.compile(r"(.*(?:die|d20_))(\d+)")


def _dice_groups(columns: list[str]) -> dict[str, list[str]]:
    """The trace's numbered dice columns by the one column that holds them: ``die1..3``
    as ``dice``, ``atk_die1..6`` as ``atk_dice``, ``d20_1..5`` as ``d20s``."""
    groups: dict[str, list[str]] = {}
    for column in columns:
        found = _NUMBERED_DIE.fullmatch(column)
        if found:
            stem = found.group(1)
            name = stem[:-1] + "s" if stem.endswith("_") else stem[: -len("die")] + "dice"
            groups.setdefault(name, []).append(column)
    return groups


def _nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


def mean_time_to_down(first_round: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean time-to-down among the encounters downed by the round cap, and its interval:
    the figure ``tune``, ``compare``, ``sweep`` and ``--precision-on`` call
    ``mean_time_to_down``, and a run's "mean if downed".

    Parameters
    ----------
    first_round : numpy.ndarray
        Encounters in which it first went down in round r, r = 0..max_rounds, of one
        combatant or of several pooled.
    level : float
        The interval's level.

    Returns
    -------
    mean, lo, hi : float
        The mean round of first down and its normal interval (encounters are
        independent; kind :data:`NORMAL_CI_KIND`): mean ± z · sd / √downs. The mean is
        NaN where it never went down, the interval where it went down once or never.
    """
    downs = int(np.sum(first_round))
    if not downs:
        return np.nan, np.nan, np.nan
    mean, var = stats.histogram_mean_var(first_round)
    half = stats.normal_quantile(level) * np.sqrt(var / downs) if downs > 1 else np.nan
    return mean, mean - half, mean + half


def median_time_to_down(
    first_round: np.ndarray, encounters: int, level: float = 0.95, earliest: int = 0
) -> tuple[float, float, float]:
    """Median time-to-down over all encounters and its interval.

    Parameters
    ----------
    first_round : numpy.ndarray
        Encounters in which it first went down in round r, r = 0..max_rounds (round 0:
        opposed-tiers' surprise round), of one combatant or of several pooled.
    encounters : int
        All encounters (times the combatants pooled).
    level : float
        The interval's level.
    earliest : int
        The first round in which it (any of those pooled) can go down
        (``Layout.first_round_of``): the interval starts there at the earliest. Before it
        the chance is 0 by the rules, though the band of a few encounters reaches one
        half there.

    Returns
    -------
    median, lo, hi : float
        The first round by which half of all encounters had it downed, round 0 included;
        the interval's ends are the first rounds from ``earliest`` where the upper and
        lower edge of the pointwise band of P(downed by round r)
        (:func:`simlab.analysis.stats.rate_interval`, as in
        :func:`~simlab.analysis.stats.cumulative_incidence`) reach one half. NaN where
        the curve (or that edge) never reaches one half by the round cap.
    """
    rounds = np.arange(len(first_round))
    by_round = np.cumsum(first_round)
    lo, hi, _ = stats.rate_interval(by_round, encounters, level)
    possible = rounds >= earliest
    return (_nan(stats.first_round_reaching(rounds, by_round / encounters)),
            _nan(stats.first_round_reaching(rounds[possible], hi[possible])),
            _nan(stats.first_round_reaching(rounds, lo)))  # fmt: skip
