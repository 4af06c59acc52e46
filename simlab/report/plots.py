"""Plots of a simulation for notebooks and reports (matplotlib).

Every function draws on the ``ax=`` it is given (or a new figure's axes), and returns the
pandas DataFrame it drew, so a notebook can both look at a curve and use its numbers::

    from simlab import plots
    res = simlab.simulate(scn, n=100_000)
    df = plots.plot_damage_pmf(res, "Brute", "stone-strike", exact=simlab.exact(scn))

``result`` is a :class:`simlab.analysis.result.Result` or a report's
:class:`simlab.report.results.ScenarioRun` (whose saved exact answers are used by
default). ``exact`` is an :class:`simlab.exact.engine.ExactResult` or its summary
document, of the scenario simulated (another's is refused); where it answers a pair,
the exact damage distribution is drawn over the simulated one (open black diamonds,
"exact" in the legend; a thin black line where there are too many damage values for
diamonds); for a duel, the exact time-to-down curve too. Copies of one
``count:`` entry are pooled under one label (``Ogre ×2``, see :func:`copy_labels`);
``pool=False`` draws each copy.
Without ``ax=``, a new pyplot figure is made (the notebook's backend); reports draw on
figures of their own, rendered with the Agg backend (:mod:`simlab.report.render`). A
figure without a layout engine is given constrained layout (:func:`axes_or_new`), so that
a legend beside one panel does not cover the next.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar, cast

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.analysis.result import Result
from simlab.arguments import flag_argument
from simlab.binding import attacks_made, checked_arguments
from simlab.exact import pair_answer
from simlab.report.width import packed

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from simlab.report.results import ScenarioRun

__all__ = [
    "at_least",
    "axes_or_new",
    "combatant_colour",
    "copies_differ",
    "copy_groups",
    "copy_labels",
    "damage_by_defender",
    "legend_outside",
    "plot_before_after",
    "plot_damage_at_least",
    "plot_damage_pmf",
    "plot_hit_rates",
    "plot_survival",
    "plot_time_to_down",
    "plot_win_rates",
    "pooled_damage_pmf",
    "pooled_hit_rates",
]

LEVEL = 0.95
EXACT_STYLE: dict[str, Any] = {"color": "black", "linestyle": "--", "linewidth": 1.2,
                               "marker": "x", "markersize": 4}  # fmt: skip
#: The exact answer drawn over simulated bars and steps: open black diamonds.
EXACT_MARKER: dict[str, Any] = {"linestyle": "none", "marker": "D", "markersize": 6,
                                "markerfacecolor": "none", "markeredgecolor": "black",
                                "markeredgewidth": 1.3, "zorder": 5}  # fmt: skip
EXACT_LABEL = "exact (fresh defender)"
#: The exact damage answer where a whole damage value is narrower than
#: :data:`MIN_VALUE_WIDTH` points on the plot (hundreds of damage values): a thin black
#: line through the bars' tops, as steps, named ``exact (fresh defender, line)``;
#: hundreds of diamonds merged into a black band over the bars.
EXACT_STEPS: dict[str, Any] = {"color": "black", "linewidth": 1.0, "zorder": 5}
EXACT_STEPS_LABEL = "exact (fresh defender, line)"
MIN_VALUE_WIDTH = 4.0
#: The smallest exact diamond (points), where bars side by side are narrower.
MIN_DIAMOND = 3.0
#: A simulated rate's 95% interval on the hit-rate plot: grey, unlike the exact marks.
INTERVAL_WHISKERS: dict[str, Any] = {"ecolor": "0.45", "elinewidth": 1.0, "capthick": 1.0}
#: How a time-to-down legend names a combatant's exact curve: ``Defender: exact``.
EXACT_CURVE_SUFFIX = ": exact"
LEGEND_FONT = 9
_COPY = re.compile(r"(.+) (\d+)")

#: What the plots have worked out of each result alive (:func:`_once_per_result`), by
#: the result's ``id``: beside it, not on it, so that a result pickled for a drawing
#: process does not carry it; each entry is dropped with its result.
_WORKED_OUT: dict[int, dict[Any, Any]] = {}

_Function = TypeVar("_Function", bound=Callable[..., Any])


def _worked_out(res: Result) -> dict[Any, Any]:
    """What the plots have worked out of ``res`` so far, by function and arguments."""
    key = id(res)
    found = _WORKED_OUT.get(key)
    if found is None:
        found = _WORKED_OUT[key] = {}
        # dropped with the result: its id may be another object's then
        weakref.finalize(res, _WORKED_OUT.pop, key, None)
    return found


def _once_per_result(function: _Function) -> _Function:
    """``function(res, *args)`` worked out once per :class:`Result` and arguments: a
    report's damage picture read the pooled damage table, the copies' χ² tests and the
    pooling of one attack's rows three times each (to choose its defenders, then for
    each of its two panels). The tallies of a result are not changed once it is made.
    The value is shared by every caller: they read it, never change it (the public
    functions give copies)."""

    @functools.wraps(function)
    def once(res: Result, *args: Any) -> Any:
        key = (function.__name__, *args)
        try:
            hash(key)
        except TypeError:  # an argument that cannot be a key: the function refuses it
            return function(res, *args)
        memo = _worked_out(res)
        if key not in memo:
            memo[key] = function(res, *args)
        return memo[key]

    return cast("_Function", once)


def _damage_histograms(res: Result, copies: list[int]) -> list[list[np.ndarray]]:
    """Per comparison (same attack, same other combatant, copy as attacker or defender),
    the damage histogram of each copy."""
    layout, hist = res.layout, res.tallies.damage_hist
    others = [c for c in range(len(layout.combatants)) if c not in copies]
    out = []
    for k in range(len(layout.attacks)):
        for o in others:
            as_attacker = [hist[layout.pair(c, k, o)] for c in copies]
            as_defender = [hist[layout.pair(o, k, c)] for c in copies]
            out += [rows for rows in (as_attacker, as_defender) if all(r.sum() > 0 for r in rows)]
    return out


def _down_histograms(res: Result, copies: list[int]) -> list[list[np.ndarray]]:
    """Each copy's first-down round counts, rounds 1..R, and a bin for never downed."""
    down = res.tallies.down_round
    return [[np.append(down[c, 1:], res.encounters - down[c].sum()) for c in copies]]


#: What :func:`copies_differ` compares, by figure.
COPY_FIGURES = {"damage": _damage_histograms, "time_to_down": _down_histograms}


def copies_differ(res: Result, copies: list[int], figure: str = "damage") -> bool:
    """Whether copies of one entry fought differently enough not to be pooled in a figure.

    ``figure="damage"``: some damage distribution (an attack of theirs against one
    combatant, or one combatant's attack against them) of a copy differs from the first
    copy's; ``"time_to_down"``: the round a copy first went down does. "Differs" is what
    the drift gate calls drift: χ² of homogeneity significant at
    :data:`~simlab.analysis.drift.DEFAULT_ALPHA` (Bonferroni over the comparisons) and a
    total variation distance of at least the default distribution tolerance. Copies act
    in turn and are targeted in turn, so the second one can meet weakened defenders, or
    be attacked only once the first is down.
    """
    return _any_differ(COPY_FIGURES[figure](res, copies))


def _any_differ(comparisons: list[list[np.ndarray]]) -> bool:
    """Whether, in any of ``comparisons`` (histograms of copies), a copy's histogram
    differs from the first's as the drift gate calls drift (:func:`copies_differ`)."""
    from simlab.analysis.drift import DEFAULT_ALPHA, DEFAULT_TOLERANCE, chi2_homogeneity
    from simlab.analysis.drift import total_variation as tv

    tests = [(rows[0], other) for rows in comparisons for other in rows[1:]]
    return any(chi2_homogeneity(first, other)[2] < DEFAULT_ALPHA / len(tests)
               and tv(first, other) >= DEFAULT_TOLERANCE["pmf"]
               for first, other in tests)  # fmt: skip


def copy_groups(result: Result | ScenarioRun,
                figure: str = "damage") -> list[tuple[str, list[str], bool]]:  # fmt: skip
    """Copies of each ``count:`` entry: ``(entry name, copy names, pooled)``.

    A scenario's ``count: n`` entry becomes combatants ``Ogre 1`` … ``Ogre n`` on one side
    with one profile; in ``figure`` (``damage`` or ``time_to_down``) they are pooled
    unless they differ there (:func:`copies_differ`). The entries are those the run
    recorded (``Result.meta["copies"]``, :meth:`ScenarioBase.copy_groups`), so a
    combatant listed apart whose name reads as one more copy (``Ogre 3`` beside ``Ogre``,
    count: 2) is never pooled with them; a result that records none (a results file
    written before simlab recorded them) is grouped by the names, as it was then.
    """
    return [(entry, list(members), pooled)
            for entry, members, pooled in _copy_groups(result_of(result), figure)]  # fmt: skip


@_once_per_result
def _copy_groups(res: Result, figure: str) -> tuple[tuple[str, tuple[str, ...], bool], ...]:
    """:func:`copy_groups`, worked out once per result (shared: read only)."""
    names = [name for _, name in res.layout.combatants]
    return tuple((entry, tuple(members),
                  not copies_differ(res, [names.index(m) for m in members], figure))
                 for entry, members in copy_entries(res).items())  # fmt: skip


def copy_entries(res: Result) -> dict[str, list[str]]:
    """The copies of each ``count:`` entry of two or more, by the entry's (base) name:
    ``{"Ogre": ["Ogre 1", "Ogre 2"]}``, pooled or not (:func:`copy_groups`)."""
    groups = res.meta.get("copies")
    if groups is None:
        groups = _groups_by_name(res)
    return {entry: list(members) for entry, members in groups.items() if len(members) > 1}


def _groups_by_name(res: Result) -> dict[str, list[str]]:
    """Copies told by their names alone (``Ogre 1``, ``Ogre 2`` on one side): how results
    that do not record their entries are grouped."""
    groups: dict[tuple[str, str], list[str]] = {}
    for side, name in res.layout.combatants:
        match = _COPY.fullmatch(name)
        if match:
            groups.setdefault((side, match.group(1)), []).append(name)
    return {base: members for (_, base), members in groups.items()}


def copy_labels(result: Result | ScenarioRun, figure: str = "damage") -> dict[str, str]:
    """How plots name each combatant: copies of one ``count:`` entry pooled as ``Ogre ×2``.

    Copies (:func:`copy_groups`) that do not differ in ``figure`` are pooled, as the specs
    pool them, under the label ``Ogre ×n``; every other combatant keeps its name.

    Returns
    -------
    dict of str to str
        Combatant name → the label plots use.
    """
    res = result_of(result)
    labels = {name: name for _, name in res.layout.combatants}
    for base, names, pooled in copy_groups(res, figure):
        if pooled:
            labels.update({n: pool_label(base, names) for n in names})
    return labels


def _designated(name: str, labels: dict[str, str], entries: dict[str, list[str]]) -> list[str]:
    """The labels a user's ``name`` designates: a combatant's (its pool's, where it is
    pooled); for the base name of a ``count:`` entry (``entries``, :func:`copy_entries`),
    its pool's, or each copy's where they are not pooled (they fought differently, which
    a larger sample tells: the base name failed then); any other name as it is (a pool's
    label, or a name in no row, which the caller refuses)."""
    if name in labels:
        return [labels[name]]
    if name in entries:
        return list(dict.fromkeys(labels.get(m, m) for m in entries[name]))
    return [name]


def _meant(found: object, known: Any, entries: dict[str, list[str]] | None = None) -> str:
    """The end of a message suggesting the name meant (:func:`simlab.errors.did_you_mean`)
    among the ``known`` ones and the base names of their ``count:`` copies
    (``entries``). A base name, or a copy, is suggested as the base name with its copies
    (``'Raider' (Raider 1, Raider 2)``): one copy of several alike names was an
    arbitrary one ('Raider 4' for 'Raider')."""
    from simlab.errors import closest_name, suggestion

    known = [str(k) for k in known]
    base_of = {m: base for base, members in (entries or {}).items()
               for m in [*members, pool_label(base, members)]
               if set(members) & set(known) or pool_label(base, members) in known}  # fmt: skip
    close = closest_name(found, [*known, *dict.fromkeys(base_of.values())])
    base = base_of.get(str(close), close)
    if entries and base in entries and base not in known:
        return f"; did you mean {base!r} ({', '.join(entries[base])})?"
    return suggestion(close)


def pool_label(base: str, members: list[str]) -> str:
    """The label of copies of a ``count:`` entry pooled (:func:`copy_labels`; on a damage
    plot, those it draws alike): ``Ogre ×2``."""
    return f"{base} ×{len(members)}"


def only_rows(table: pd.DataFrame, column: str, wanted: Any,
              copies: dict[str, list[str]] | None = None) -> pd.DataFrame:  # fmt: skip
    """The rows of ``table`` whose ``column`` is ``wanted`` (a name, or a list of names).

    ``copies`` (:func:`copy_entries`) are suggested by their base name where it is the
    name meant.

    Raises
    ------
    simlab.errors.InputError
        Naming the names there are, and the one meant where it is close to one, when one
        wanted is in no row: a mistyped name (``defender="Defnder"``) drew an empty plot
        and said nothing.
    """
    from simlab.errors import InputError

    names = [wanted] if isinstance(wanted, str) else list(wanted)
    there = list(dict.fromkeys(table[column].map(str)))
    missing = [name for name in names if str(name) not in there]
    if missing:
        raise InputError(f"expected {column}= one of {', '.join(there)}; got "
                         f"{missing[0]!r}{_meant(missing[0], there, copies)}")  # fmt: skip
    return table[table[column].map(str).isin([str(name) for name in names])]


def result_of(result: object) -> Result:
    """The :class:`Result` a plot draws: ``result``, or a ScenarioRun's.

    Raises
    ------
    simlab.errors.InputError
        For anything else: ``expected a Result (simlab.simulate) or a ScenarioRun
        (simlab.run_scenarios) for result; got a SweepResult`` (it was an
        AttributeError).
    """
    from simlab.arguments import instance_argument
    from simlab.report.results import ScenarioRun

    instance_argument(result, (Result, ScenarioRun), ("simlab.simulate", "simlab.run_scenarios"),
                      "result")  # fmt: skip
    return result if isinstance(result, Result) else cast("ScenarioRun", result).result


def _unpack(result: Result | ScenarioRun, exact: Any) -> tuple[Result, dict[str, Any] | None]:
    """The Result, and the exact answers as a summary document (or None): ``exact``, or
    a ScenarioRun's own where it is None.

    Raises
    ------
    simlab.errors.InputError
        When ``exact`` is not an ExactResult or a summary, or answers another scenario
        than the one simulated (:func:`_same_scenario`).
    """
    res = result_of(result)
    if exact is None:
        return res, None if isinstance(result, Result) else result.exact
    if isinstance(exact, dict):
        solved = exact.get("scenario_hash")
        solved = solved if isinstance(solved, str) else _stamped_hash(exact)
        _same_scenario(solved, exact.get("scenario"), exact.get("overrides"), res)
        return res, exact
    from simlab.arguments import instance_argument
    from simlab.exact.engine import ExactResult

    instance_argument(exact, (ExactResult, dict), ("simlab.exact", "ExactResult.summary"),
                      "exact")  # fmt: skip
    _same_scenario(exact.scenario_hash, exact.scenario, exact.overrides, res)
    return res, exact.summary()


def _stamped_hash(summary: dict[str, Any]) -> str | None:
    """The scenario hash of the run stamp of a ``summary.json`` that ``simlab exact
    --out`` wrote (:func:`simlab.report.files.run_identity`), or None: a summary of an
    earlier version (without its own ``scenario_hash``) that was not written has none."""
    stamp = summary.get("run")
    scenarios = stamp.get("scenarios") if isinstance(stamp, dict) else None
    if not isinstance(scenarios, list) or len(scenarios) != 1:
        return None
    found = scenarios[0].get("scenario_hash") if isinstance(scenarios[0], dict) else None
    return found if isinstance(found, str) else None


def _same_scenario(solved: str | None, scenario: Any, overrides: Any, res: Result) -> None:
    """Refuse exact answers of the scenario of hash ``solved`` (named ``scenario``, made
    with ``overrides``) for the simulation ``res`` of another: drawn as "exact", the
    answers of the scenario as written made a variant's simulation look wrong. Answers
    or a simulation whose scenario hash is unknown (None) are checked by scenario id
    only. Overrides that differ only in fields no exact answer reads
    (:func:`_apart_in_runs_only`) are no other scenario.

    Raises
    ------
    simlab.errors.InputError
        ``expected exact= answers of the scenario simulated (knight-vs-skeleton with
        longsword.damage=2d10); got answers of knight-vs-skeleton with no changes; pass
        exact=simlab.exact(<the scenario simulated>)``.
    """
    from simlab.errors import InputError

    simulated = res.meta.get("scenario_hash")
    if solved is None or simulated is None:
        if scenario is None or scenario == res.scenario:
            return
    elif solved == simulated or _apart_in_runs_only(overrides, res.meta.get("overrides")):
        return
    ran = _scenario_words(res.scenario, res.meta.get("overrides"))
    theirs = _scenario_words(scenario, overrides)
    if theirs == ran:  # the file was edited between the two, or changed and changed back
        theirs = f"another version of {ran} (its fields differ)"
    raise InputError(f"expected exact= answers of the scenario simulated ({ran}); got answers "
                     f"of {theirs}; pass exact=simlab.exact(<the scenario simulated>)")  # fmt: skip


def _apart_in_runs_only(solved: Any, simulated: Any) -> bool:
    """Whether the overrides ``solved`` (of the exact answers) and ``simulated`` (of the
    run) differ, but only in changes of fields that set how a run is played or describe
    it (``seed``, ``encounters``, ``precision``, ``description``), which move no exact
    answer: the scenario hashes differ, the answers do not. Comparing overrides, not a
    hash of the fields the answers read, costs a simulation nothing."""
    from simlab.report.files import WORDS_ONLY
    from simlab.tuning.overrides import RUN_FIELDS

    run_only = {*RUN_FIELDS, *WORDS_ONLY}

    def of_the_fight(overrides: Any) -> list[str]:
        return sorted(o for o in map(str, overrides or []) if o.partition("=")[0] not in run_only)

    everything = sorted(map(str, solved or [])), sorted(map(str, simulated or []))
    return everything[0] != everything[1] and of_the_fight(solved) == of_the_fight(simulated)


def _scenario_words(scenario: Any, overrides: Any) -> str:
    """A scenario as a message names it: ``knight-vs-skeleton with longsword.damage=2d10``,
    or ``… with no changes``."""
    changed = ", ".join(map(str, overrides or [])) or "no changes"
    return f"{scenario} with {changed}"


def _label_argument(label: object) -> str | None:
    """``label=`` of a plot: None or a text.

    Raises
    ------
    simlab.errors.InputError
        For anything else: ``expected a text for label; got the int 3``.
    """
    from simlab.arguments import describe
    from simlab.errors import InputError

    if label is None or isinstance(label, str):
        return label
    raise InputError(f"expected a text for label; got {describe(label)}")


def _named(label: str | None, name: str) -> str:
    """A series' legend name after the caller's ``label``, where given:
    ``guard 3 · Kaito``."""
    return name if label is None else f"{label} · {name}"


def _in_legend(ax: Axes, name: str) -> bool:
    """Whether ``ax`` already has a legend entry ``name`` (an earlier call drew it)."""
    return name in ax.get_legend_handles_labels()[1]


def _series_before(ax: Axes) -> int:
    """How many series earlier calls drew on ``ax`` (their legend entries but the shared
    ones): the colours a damage or hit-rate plot's own series start after, so that a
    second run drawn on the same axes does not take the first one's colours."""
    shared = (
        "exact",
        EXACT_LABEL,
        EXACT_STEPS_LABEL,
        MEDIAN_LINE_LABEL,
    )  # one entry whichever call drew it
    return sum(name not in shared for name in ax.get_legend_handles_labels()[1])


def _bar_sets_before(ax: Axes) -> int:
    """How many sets of bars earlier calls drew on ``ax``: where there are any, bars of
    the same positions drawn over them would hide them, so later ones are outlines
    (:data:`OVER_BARS`); a win-rate plot's colour starts after them, whether or not they
    had a ``label=`` to count in the legend."""
    from matplotlib.container import BarContainer

    return sum(isinstance(c, BarContainer) for c in ax.containers)


#: Bars drawn over the bars of an earlier call on the same axes: outlines in their own
#: colour, through which the earlier bars show.
OVER_BARS: dict[str, Any] = {"fill": False, "linewidth": 1.5}


def _warn_exact_not_drawn(missing: dict[str, str]) -> None:
    """Say which exact answers asked for (``exact=``) a plot did not draw, and why
    (``missing``: subject → reason), as a :class:`UserWarning` at the caller's line: an
    answer refused, or moved by the fight, drew nothing and said nothing."""
    import warnings

    if missing:
        said = "; ".join(f"{subject}: {reason}" for subject, reason in missing.items())
        warnings.warn(f"exact answers not drawn: {said}", UserWarning, stacklevel=4)


def _pair_reason(exact: dict[str, Any], key: tuple[str, str, str], labels: Labels,
                 figure: str) -> str:  # fmt: skip
    """Why the exact answers hold no ``figure`` (``mean_damage``, ``hit_rate``) for the
    pair ``key`` (labels, as drawn): the fight moves it (its caveat), the exact engine
    refused the pair, or they hold nothing of it."""

    def same(entry: dict[str, Any]) -> bool:
        found = (labels.get(entry["attacker"], entry["attacker"]), entry["attack"],
                 labels.get(entry["defender"], entry["defender"]))  # fmt: skip
        return found == key

    for entry in exact.get("attacks", []):
        if same(entry) and figure in entry.get("caveats", {}):
            return f"the fight moves it away from the exact answer ({entry['caveats'][figure]})"
    for refusal in exact.get("refusals", []):
        if refusal.get("figure") == "attack" and same(refusal):
            return f"the exact engine refused it ({refusal['reason']})"
    return "the exact answers hold none for it"


def _rates_not_drawn(exact: dict[str, Any], keys: list[tuple[str, str, str]],
                     rates: pd.DataFrame, labels: Labels) -> dict[str, str]:  # fmt: skip
    """The exact rates a hit-rate plot leaves out, and why (:func:`_pair_reason`): a
    pair's, where it draws none of them, else each rate left out, named (``hit rate of
    Skeleton ×2 · rusty-spear → Knight``): a fight that moved the hit rate alone was said
    to leave out the pair's answers, beside its crit rate's diamond."""
    shown = ["hit_rate", "crit_rate"] if rates.crits.any() else ["hit_rate"]
    missing = {}
    for key, (_, row) in zip(keys, rates.iterrows(), strict=True):
        lacking = [figure for figure in shown if np.isnan(row[f"exact_{figure}"])]
        if lacking == shown:
            missing[pair_name(*key)] = _pair_reason(exact, key, labels, "hit_rate")
            continue
        for figure in lacking:
            subject = f"{figure.replace('_', ' ')} of {pair_name(*key)}"
            missing[subject] = _pair_reason(exact, key, labels, figure)
    return missing


def _down_reason(exact: dict[str, Any]) -> str:
    """Why the exact answers hold no time-to-down curve of the combatants drawn."""
    for refusal in exact.get("refusals", []):
        if refusal.get("figure") == "time_to_down":
            return f"the exact engine refused it ({refusal['reason']})"
    solved = [str(c["name"]) for c in exact.get("combatants", [])]
    return f"the exact answers hold only {', '.join(solved)}'s" if solved else "none solved"


def axes_or_new(ax: Axes | None, size: tuple[float, float] = (6.0, 3.5)) -> Axes:
    """``ax``, or the axes of a new figure of ``size`` inches when it is ``None``.

    A figure without a layout engine (``plt.subplots``' default) gets matplotlib's
    constrained layout (:class:`simlab.report.wrapped.WrappingLayout`, which also keeps
    the titles within their axes): it makes room for the legends drawn beside the axes and for long
    tick labels, which would otherwise cover the next panel or be cut off when saved.
    """
    if ax is None:
        import matplotlib.pyplot as plt  # the notebook's backend; reports draw on Agg figures

        _, ax = plt.subplots(figsize=size)
    from matplotlib.axes import Axes as AxesClass

    from simlab.arguments import instance_argument

    instance_argument(ax, AxesClass, "matplotlib.pyplot.subplots", "ax")
    root = ax.figure.figure  # a subfigure's figure is the whole figure
    if root.get_layout_engine() is None:
        from simlab.report.wrapped import WrappingLayout

        root.set_layout_engine(WrappingLayout())
    return ax


def set_title(ax: Axes, parts: list[str], fontsize: float) -> None:
    """The title of ``ax``, its ``parts`` joined by spaces: broken between two parts
    where it would run past the figure's edge (the last of three panels side by side in
    a notebook cut it off) or be wider than the axes (over a legend beside them, or the
    next panel), each part whole (a name, ``(95% band)``)."""
    _over_axes(ax.set_title(_unbroken(parts), fontsize=fontsize), ax)


def set_ylabel(ax: Axes, label: str) -> None:
    """The y label of ``ax``, broken at its spaces where longer than the axes are tall
    (:func:`simlab.report.wrapped.wrap_to_axes`; a part in brackets, ``(HP, misses 0)``,
    whole): on a short plot of a 1×2 grid, its legend under it, ``mean damage per
    attack (HP, misses 0)`` ran past the figure's top and bottom and was cut.

    Parameters
    ----------
    ax : matplotlib Axes
        Its axes.
    label : str
        The label.
    """
    whole = _BRACKETS.sub(lambda part: part.group(0).replace(" ", NO_BREAK), label)
    _over_axes(ax.set_ylabel(whole), ax)


#: A part of an axis label in brackets, kept on one line.
_BRACKETS = re.compile(r"\([^)]*\)")


def _unbroken(parts: list[str]) -> str:
    """``parts`` joined by spaces, to be broken between two of them only."""
    return " ".join(part.replace(" ", NO_BREAK) for part in parts)


def _over_axes(text: Any, ax: Axes) -> None:
    """Keep ``text`` (a title or axis label) broken into lines no wider than ``ax``
    (:func:`simlab.report.wrapped.wrap_to_axes`): matplotlib's ``wrap=True`` breaks at
    the figure's edges only, and a title wider than its axes ran over the legend beside
    them or the next panel."""
    from simlab.report.wrapped import wrap_to_axes

    wrap_to_axes(text, ax)


#: A space a title is not broken at (:func:`simlab.report.wrapped.broken` breaks at spaces
#: only).
NO_BREAK = "\u00a0"


def _exact_pmfs(
    exact: dict[str, Any] | None, labels: dict[str, str]
) -> dict[tuple[str, str, str], dict[int, float]]:
    """Exact damage distributions by (attacker, attack, defender) label, where the
    fight does not move the pair's damage away from them (its ``mean_damage`` caveat).

    Copies share one profile, so the first copy's answer is the pool's.
    """
    out: dict[tuple[str, str, str], dict[int, float]] = {}
    for e in (exact or {}).get("attacks", []):
        if math.isnan(pair_answer(e, "mean_damage")):  # a caveat: the fight moves it
            continue
        key = (labels.get(e["attacker"], e["attacker"]), e["attack"],
               labels.get(e["defender"], e["defender"]))  # fmt: skip
        out.setdefault(key, {int(d): float(p) for d, p in e["damage_pmf"].items()})
    return out


def pooled_damage_pmf(result: Result | ScenarioRun, pool: bool = True) -> pd.DataFrame:
    """:meth:`Result.damage_pmf` with copies pooled (see :func:`copy_labels`).

    Returns
    -------
    pandas.DataFrame
        ``attacker, attack, defender, damage, count`` (names are labels when pooled).
    """
    return _pooled_pmf(result_of(result), flag_argument(pool, "pool")).copy()


@_once_per_result
def _pooled_pmf(res: Result, pool: bool) -> pd.DataFrame:
    """:func:`pooled_damage_pmf`, worked out once per result (shared: read only)."""
    pmf = res.damage_pmf()[["attacker", "attack", "defender", "damage", "count"]]
    if not pool:
        return pmf
    labels = copy_labels(res)
    pmf = pmf.assign(attacker=pmf.attacker.map(labels), defender=pmf.defender.map(labels))
    keys = ["attacker", "attack", "defender", "damage"]
    return pmf.groupby(keys, sort=False, as_index=False)["count"].sum()


Labels = dict[str, str]


def _pool_alike_defenders(res: Result, mine: pd.DataFrame,
                          labels: Labels) -> tuple[pd.DataFrame, Labels]:  # fmt: skip
    """One attack's damage (``mine``) with copies that the whole fight tells apart
    (:func:`copy_groups`) pooled as its defenders all the same, where the damage this
    attack did to each copy is alike (:func:`copies_differ`'s test): identical curves of
    ``Raider 1`` … ``Raider 4`` hid each other. Returns the rows and the labels."""
    labels = dict(labels)
    there = set(mine.defender)
    for entry, members, pooled in copy_groups(res):
        present = [m for m in members if m in there and labels.get(m) == m]
        if pooled or len(present) < 2:
            continue
        top = int(mine.damage.max()) + 1
        hists = [_histogram(mine[mine.defender == m], top) for m in present]
        if not _any_differ([hists]):
            labels.update({m: pool_label(entry, present) for m in present})
    return _relabelled(mine, labels), labels


def _pool_alike_attackers(mine: pd.DataFrame, labels: Labels,
                          entry: str) -> tuple[pd.DataFrame, Labels]:  # fmt: skip
    """One attack's damage (``mine``) by the copies of ``entry`` that the whole fight
    tells apart, pooled as its attackers where the damage each did to every defender
    they all attacked is alike (:func:`_pool_alike_defenders`' test): the same copies
    drawn each, one curve per copy and defender, hid each other. Returns the rows and
    the labels."""
    copies = list(dict.fromkeys(mine.attacker))
    top = int(mine.damage.max()) + 1
    comparisons = []
    for _, rows in mine.groupby("defender", sort=False):
        hists = [_histogram(rows[rows.attacker == c], top) for c in copies]
        if all(h.sum() > 0 for h in hists):
            comparisons.append(hists)
    if len(copies) < 2 or not comparisons or _any_differ(comparisons):
        return mine, labels
    labels = {**labels, **{c: pool_label(entry, copies) for c in copies}}
    return _relabelled(mine, labels), labels


def _histogram(rows: pd.DataFrame, top: int) -> np.ndarray:
    """The counts of ``rows`` (of a damage distribution) over damage 0..top−1."""
    hist = np.zeros(top, dtype=np.int64)
    hist[rows.damage.to_numpy()] = rows["count"].to_numpy()
    return hist


def _relabelled(mine: pd.DataFrame, labels: Labels) -> pd.DataFrame:
    """``mine`` (damage rows) with its attackers and defenders named by ``labels``, the
    rows of one label summed."""
    named = mine.assign(attacker=mine.attacker.map(lambda a: labels.get(a, a)),
                        defender=mine.defender.map(lambda d: labels.get(d, d)))  # fmt: skip
    if named[["attacker", "defender"]].equals(mine[["attacker", "defender"]]):
        return mine
    keys = ["attacker", "attack", "defender", "damage"]
    return named.groupby(keys, sort=False, as_index=False)["count"].sum()


@dataclass(frozen=True)
class _AttackDamage:
    """One attacker's attack's simulated damage as its plots draw it, every defender's
    (:func:`_attack_damage`; shared: read only)."""

    #: The labels the attacker's name designates (:func:`_designated`).
    attackers: list[str]
    #: Each combatant's label in this attack's plots, and in the whole fight's
    #: (:func:`copy_labels`): copies the fight tells apart may be pooled here.
    labels: Labels
    fought_alike: Labels
    #: Each curve's attacker and defender label, and its rows: ``attacker, defender,
    #: source, damage, count, attempts, probability``.
    series: list[tuple[Any, Any, pd.DataFrame]]


@_once_per_result
def _attack_damage(res: Result, attacker: str, attack: str, pool: bool) -> _AttackDamage:
    """The simulated damage of ``attacker``'s ``attack`` against every defender, copies
    pooled where they fought alike in the fight or in this attack
    (:func:`_pool_alike_attackers`, :func:`_pool_alike_defenders`)."""
    labels = copy_labels(res) if pool else {n: n for _, n in res.layout.combatants}
    pmf = _pooled_pmf(res, pool)
    attackers = _designated(attacker, labels, copy_entries(res))
    mine = pmf[pmf.attacker.isin(attackers) & (pmf.attack == attack)]
    fought_alike = labels
    if pool and len(attackers) > 1 and not mine.empty:
        mine, labels = _pool_alike_attackers(mine, labels, attacker)
    if pool and not mine.empty:
        mine, labels = _pool_alike_defenders(res, mine, labels)
    series = []
    for (a, d), group in mine.groupby(["attacker", "defender"], sort=False):
        attempts = int(group["count"].sum())
        top = int(group.damage.max())
        counts = _histogram(group, top + 1)
        series.append((a, d, pd.DataFrame({"attacker": a, "defender": d, "source": "simulated",
                                           "damage": np.arange(top + 1), "count": counts,
                                           "attempts": attempts,
                                           "probability": counts / attempts})))  # fmt: skip
    return _AttackDamage(attackers, labels, fought_alike, series)


def _pair_frames(res: Result, attacker: str, attack: str, defender: str | list[str] | None,
                 exact: dict[str, Any] | None, pool: bool) -> pd.DataFrame:  # fmt: skip
    """Simulated (and exact) damage distribution of one attacker's attack, per defender
    (per copy and defender where ``attacker``, a base name, designates copies drawn
    each)."""
    pool = flag_argument(pool, "pool")
    damage = _attack_damage(res, attacker, attack, pool)
    labels, entries, series = damage.labels, copy_entries(res), damage.series
    if defender is not None:
        wanted = [defender] if isinstance(defender, str) else defender
        chosen = [lab for d in wanted for lab in _designated(d, labels, entries)]
        series = [(a, d, rows) for a, d, rows in series if d in chosen]
    if not series:
        _never_made(_pooled_pmf(res, pool), attacker, damage.attackers, attack, defender,
                    entries)  # fmt: skip
    answers = _exact_pmfs(exact, labels)
    frames = []
    missing: dict[str, str] = {}
    for a, d, simulated in series:
        frames.append(simulated)
        known = answers.get((str(a), attack, str(d)))
        if known:
            values = np.arange(max(known) + 1)
            frames.append(pd.DataFrame({"attacker": a, "defender": d, "source": "exact",
                                        "damage": values, "count": 0, "attempts": 0,
                                        "probability": [known.get(int(v), 0.0)
                                                        for v in values]}))  # fmt: skip
        elif exact is not None:
            key = (str(a), attack, str(d))
            missing[pair_name(*key)] = _pair_reason(exact, key, labels, "mean_damage")
    data = pd.concat(frames, ignore_index=True)
    drawn = list(dict.fromkeys(data.attacker))
    data.attrs["attacker"] = drawn[0] if len(drawn) == 1 else attacker
    # copies pooled in this plot only, where the whole fight tells them apart
    data.attrs["pooled"] = {lab: [n for n, to in labels.items() if to == lab]
                            for lab in dict.fromkeys([*data.attacker, *data.defender])
                            if lab not in damage.fought_alike.values()}  # fmt: skip
    if exact is not None:  # the pairs given exact answers that have none to draw, and why
        data.attrs["exact_not_drawn"] = missing
    return data


def _never_made(pmf: pd.DataFrame, attacker: str, attackers: list[str], attack: str,
                defender: str | list[str] | None,
                entries: dict[str, list[str]]) -> NoReturn:  # fmt: skip
    """Refuse an attacker's attack that has no damage to draw (``attackers``: the labels
    ``attacker`` designates), naming those made and the one meant where a name is close
    to one (``'Kaitoo'`` for ``'Kaito'``; a ``count:`` entry's base name with its copies,
    ``entries``)."""
    from simlab.errors import InputError, did_you_mean

    pairs = list(pmf[["attacker", "attack"]].drop_duplicates().itertuples(index=False))
    made = ", ".join(f"{a} {k}" for a, k in pairs)
    at = "" if defender is None else f" at {defender}"
    attacks = list(dict.fromkeys(k for a, k in pairs if a in attackers))  # the attack's wrong
    meant = (did_you_mean(attack, attacks) if attacks
             else _meant(attacker, dict.fromkeys(a for a, _ in pairs), entries))  # fmt: skip
    if attack in attacks and defender is not None:  # made, but not at that defender
        made_at = set(pmf[pmf.attacker.isin(attackers) & (pmf.attack == attack)].defender)
        wrong = [d for d in ([defender] if isinstance(defender, str) else defender)
                 if d not in made_at]  # fmt: skip
        named = wrong[0] if wrong else defender
        raise InputError(f"expected a defender of {attacker} {attack} "
                         f"({', '.join(sorted(map(str, made_at)))}); got {named!r}, never "
                         f"attacked{_meant(str(named), made_at, entries)}")  # fmt: skip
    raise InputError(f"expected an attacker and attack that happened ({made}); got "
                     f"{attacker!r} {attack!r}{at}, never made{meant}")  # fmt: skip


def damage_by_defender(result: Result | ScenarioRun, attacker: str, attack: str,
                       pool: bool = True) -> pd.DataFrame:  # fmt: skip
    """The simulated damage distribution of ``attacker``'s ``attack`` against each
    defender, as the damage plots draw it (copies pooled where they took alike damage).

    Returns
    -------
    pandas.DataFrame
        ``attacker, defender, damage, count, attempts, probability``;
        ``attrs["pooled"]``: the copies pooled in this plot only (the fight tells them
        apart, this attack's damage by or to each does not), by label.
    """
    res, _ = _unpack(result, None)
    data = _pair_frames(res, attacker, attack, None, None, pool)
    sim = data[data.source == "simulated"].drop(columns="source").reset_index(drop=True)
    sim.attrs = dict(data.attrs)
    return sim


def legend_outside(ax: Axes, ncol: int = 1) -> None:
    """A legible legend (9 pt) beside the axes' data, never over it."""
    handles, names = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, names, fontsize=LEGEND_FONT, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False,
                  ncol=ncol)  # fmt: skip


@checked_arguments(attacks_made)
def plot_damage_pmf(
    result: Result | ScenarioRun,
    attacker: str,
    attack: str,
    defender: str | list[str] | None = None,
    ax: Axes | None = None,
    exact: Any = None,
    pool: bool = True,
    label: str | None = None,
) -> pd.DataFrame:
    """Damage distribution of ``attacker``'s ``attack`` against each defender, as bars.

    Damage is a whole number, so the simulated distribution is drawn as bars (side by side
    for several defenders) and the exact one, where the exact engine has it, as open black
    diamonds on top of them, no wider than a bar; where a whole damage value is narrower
    than :data:`MIN_VALUE_WIDTH` points (hundreds of them: the diamonds merged into a
    black band), as a thin black line of steps over the bars' tops, named ``exact (fresh
    defender, line)`` in the legend.

    Parameters
    ----------
    result : Result or ScenarioRun
        The simulation.
    attacker, attack : str
        Whose attack (a copy's name, its base name or its pool's label). A base name
        designates every copy: their pool, or where the fight tells them apart, the
        copies pooled for this plot where the damage each did is alike, else each copy
        (as with ``pool=False``), named in the legend.
    defender : str or list of str, optional
        One defender or several; default every defender it was used against (one colour
        each).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    exact : ExactResult or dict, optional
        Exact answers to overlay where they exist.
    pool : bool, default True
        Pool copies of one ``count:`` entry (see :func:`copy_labels`).
    label : str, optional
        Put before each series' name in the legend (``"guard 3 · vs Kaito (n=…)"``),
        to tell two runs drawn on the same axes apart. Bars drawn where an earlier call
        drew bars are outlines in colours after its, so that both show.

    Returns
    -------
    pandas.DataFrame
        ``attacker, defender, source ('simulated'/'exact'), damage, count, attempts,
        probability``: what was drawn (misses count as damage 0); ``attrs``
        ``["exact_not_drawn"]``, where exact answers are given, the pairs drawn without
        one and why (also a ``UserWarning`` when ``exact=`` is passed).
    """
    asked = exact is not None
    label = _label_argument(label)
    res, exact = _unpack(result, exact)
    data = _pair_frames(res, attacker, attack, defender, exact, pool)
    ax = axes_or_new(ax)
    earlier = _x_range_before(ax)
    groups = _series(data)
    width = 0.8 / len(groups)
    before, over = _series_before(ax), _bar_sets_before(ax) > 0
    # A diamond no wider than its bar (at least MIN_DIAMOND): 6 pt diamonds of six
    # defenders' bars side by side piled over one another.
    points = max(_diamond_points(ax, data.damage, width), MIN_DIAMOND)
    as_line = _too_many_values(ax, data.damage)
    colours = _series_colours(res, data, groups, before)
    for i, (d, group) in enumerate(groups):
        shift = (i - (len(groups) - 1) / 2) * width
        sim = group[group.source == "simulated"]
        colour = colours[i]
        ax.bar(sim.damage + shift, sim.probability, width=width * 0.95,
               **({**OVER_BARS, "edgecolor": colour} if over else {"color": colour}),
               label=_named(label, f"{d} (n={int(sim.attempts.iloc[0]):,})"))  # fmt: skip
        ex = group[group.source == "exact"]
        # A diamond at 0 where neither answer has anything would only clutter the axis.
        seen = set(sim.damage[sim.probability > 0])
        shown = ex if as_line else ex[(ex.probability > 0) | ex.damage.isin(seen)]
        if not shown.empty:
            _draw_exact(ax, shown.damage + shift, shown.probability, points, as_line, "mid")
    _integer_axis(ax, data.damage, earlier)
    ax.set_xlabel("damage per attack (miss = 0)")
    ax.set_ylabel("probability")
    set_title(ax, [f"{data.attrs['attacker']} ·", f"{attack}:", "damage distribution"], 11)
    legend_outside(ax)
    ax.grid(alpha=0.3, axis="y")
    if asked:
        _warn_exact_not_drawn(data.attrs["exact_not_drawn"])
    return data


def _series_colours(res: Result, data: pd.DataFrame, series: list[tuple[str, pd.DataFrame]],
                    before: int) -> list[Any]:  # fmt: skip
    """The colour of each of a damage plot's ``series`` (of ``data``, :func:`_pair_frames`):
    its defender's (:func:`combatant_colour`; copies pooled in this plot only, their
    first copy's), so that ``defender=`` does not move it; where copies are drawn each
    as attackers (one curve per copy and defender), the colours in turn."""
    if data.attacker.nunique() > 1:
        return [_colour(before + i, before + len(series)) for i in range(len(series))]
    pooled = data.attrs.get("pooled", {})
    defenders = [str(group.defender.iloc[0]) for _, group in series]
    return [combatant_colour(res, pooled.get(d, [d])[0], before) for d in defenders]


def _diamond_points(ax: Axes, damage: pd.Series, width: float) -> float:
    """The size (points) of an exact answer's diamond no wider than a bar ``width`` of a
    whole damage value wide, on ``ax`` when its x axis spans ``damage``."""
    top = float(damage.max()) + 1.2
    return float(ax.get_window_extent().width * 72.0 / ax.figure.dpi * width / top)


def _too_many_values(ax: Axes, damage: pd.Series) -> bool:
    """Whether a damage plot on ``ax`` spanning ``damage`` has too many values for a
    diamond or dot at each: a whole value narrower than :data:`MIN_VALUE_WIDTH`."""
    return _diamond_points(ax, damage, 1.0) < MIN_VALUE_WIDTH


def _draw_exact(ax: Axes, x: pd.Series, y: pd.Series, points: float, as_line: bool,
                where: Literal["pre", "mid"]) -> None:  # fmt: skip
    """An exact damage answer over the simulated one: open black diamonds of ``points``
    (at most :data:`EXACT_MARKER`'s size), or, ``as_line`` (too many values,
    :func:`_too_many_values`), a thin black step line (``where`` as
    :meth:`matplotlib.axes.Axes.step`), each named once in the legend."""
    if as_line:
        label = EXACT_STEPS_LABEL
        ax.step(x, y, where=where, **EXACT_STEPS, label=None if _in_legend(ax, label) else label)
        return
    size = min(points, EXACT_MARKER["markersize"])
    edge = 1.0 if points < 6.0 else EXACT_MARKER["markeredgewidth"]
    marker = {**EXACT_MARKER, "markersize": size, "markeredgewidth": edge}
    ax.plot(x, y, **marker, label=None if _in_legend(ax, EXACT_LABEL) else EXACT_LABEL)


def _series(data: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The rows of each curve of a damage plot (``data``, :func:`_pair_frames`) and its
    legend name: ``vs Kaito``, or ``Raider 1 vs Kaito`` where several attackers (copies
    drawn each) are drawn."""
    several = data.attacker.nunique() > 1
    return [(f"{a} vs {d}" if several else f"vs {d}", group)
            for (a, d), group in data.groupby(["attacker", "defender"], sort=False)]  # fmt: skip


def combatant_colour(result: Result | ScenarioRun, name: str, before: int = 0) -> Any:
    """The colour of a combatant's series on a run's plots: ``Ci`` for its place ``i``
    among the run's combatants (one of twenty past ten), whatever ``combatant=``,
    ``side=`` or ``defender=`` narrows a plot to, so that plots side by side agree
    (narrowed to the Defender, its curve took the Attacker's colour); a sweep's plots
    give a combatant the same (:func:`simlab.report.tuning.plot_sweep`).

    Parameters
    ----------
    result : Result or ScenarioRun
        The run.
    name : str
        A combatant's name, or the label of copies pooled (``Ogre ×2``: its first
        copy's place).
    before : int, default 0
        How many series earlier calls drew on the same axes: the colours start after
        theirs, so that a second run's series are told apart.

    Returns
    -------
    matplotlib colour
    """
    res = result_of(result)
    names = [n for _, n in res.layout.combatants]
    labels = copy_labels(res)
    place = next((i for i, n in enumerate(names) if name in (n, labels.get(n))), len(names))
    return _colour(before + place, before + len(names))


def _colour(i: int, count: int) -> Any:
    """The colour of curve ``i`` of ``count`` on a damage plot: ``Ci``, or, past the ten
    colours of the cycle (every copy against every defender), one of twenty, so that no
    two curves share one before the twenty-first."""
    if count <= 10:
        return f"C{i}"
    from matplotlib import colormaps

    return colormaps["tab20"](i % 20)


def _integer_axis(ax: Axes, values: pd.Series,
                  earlier: tuple[float, float] | None = None) -> None:  # fmt: skip
    """Whole-number ticks on the x axis, which spans ``values`` and, where an earlier
    call drew on ``ax`` (:func:`_x_range_before`), the range it showed: a second run
    drawn on the same axes set it to its own damage, cutting off the first run's
    highest bars."""
    from matplotlib.ticker import MaxNLocator

    lo, hi = -0.6, float(values.max()) + 0.6
    # up to 10 ticks, but for damage of three digits or more as many as the axis has room
    # for: 10 ran them together ("100150200") on a report's panel
    ax.xaxis.set_major_locator(MaxNLocator(nbins="auto" if hi >= 100 else 10, integer=True))
    if earlier is not None:
        lo, hi = min(lo, earlier[0]), max(hi, earlier[1])
    ax.set_xlim(lo, hi)


def _x_range_before(ax: Axes) -> tuple[float, float] | None:
    """The x range ``ax`` shows where something is drawn on it already (an earlier
    call's series, the caller's own lines), else None: a fresh axes' range is
    matplotlib's placeholder, 0 to 1."""
    drawn = ax.lines or ax.patches or ax.collections
    return tuple(sorted(ax.get_xlim())) if drawn else None  # type: ignore[return-value]


@checked_arguments(attacks_made)
def plot_damage_at_least(
    result: Result | ScenarioRun,
    attacker: str,
    attack: str,
    defender: str | list[str] | None = None,
    ax: Axes | None = None,
    exact: Any = None,
    pool: bool = True,
    label: str | None = None,
) -> pd.DataFrame:
    """P(damage ≥ x) of ``attacker``'s ``attack`` against each defender, with 95% bands.

    A step curve: between two whole damage values x−1 < t ≤ x, P(damage ≥ t) is
    P(damage ≥ x). Dots mark the simulated value at each whole x, open black diamonds the
    exact one; where there are too many values for them (:func:`_too_many_values`), the
    curve has no dots and the exact answer is a thin black step line.

    Parameters
    ----------
    result : Result or ScenarioRun
        The simulation.
    attacker, attack : str
        Whose attack, as :func:`plot_damage_pmf` takes them (a copy's name, its base
        name or its pool's label).
    defender : str or list of str, optional
        One defender or several; default every defender it was used against (one colour
        each, the colour it has on :func:`plot_damage_pmf`).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    exact : ExactResult or dict, optional
        Exact answers to overlay where they exist.
    pool : bool, default True
        Pool copies of one ``count:`` entry (see :func:`copy_labels`).
    label : str, optional
        Put before each curve's name in the legend (``"guard 3 · vs Kaito"``), to tell
        two runs drawn on the same axes apart (their curves take the next colours).

    Returns
    -------
    pandas.DataFrame
        ``attacker, defender, source, damage, at_least, at_least_ci95_lo,
        at_least_ci95_hi`` (intervals: Wilson, Clopper–Pearson when rare; NaN for the
        exact rows); ``attrs["exact_not_drawn"]`` as :func:`plot_damage_pmf`'s.
    """
    asked = exact is not None
    label = _label_argument(label)
    res, exact = _unpack(result, exact)
    data = _pair_frames(res, attacker, attack, defender, exact, pool)
    frames = []
    for (a, d, source), group in data.groupby(["attacker", "defender", "source"], sort=False):
        frame = pd.DataFrame({"attacker": a, "defender": d, "source": source,
                              "damage": group.damage,
                              "at_least": at_least(group.probability.to_numpy())})  # fmt: skip
        if source == "simulated":
            counts = group["count"].to_numpy()[::-1].cumsum()[::-1]
            lo, hi, _ = stats.rate_interval(counts, int(group.attempts.iloc[0]), LEVEL)
        else:
            lo = hi = np.full(len(group), np.nan)
        frame["at_least_ci95_lo"], frame["at_least_ci95_hi"] = lo, hi
        frames.append(frame)
    drawn = pd.concat(frames, ignore_index=True)
    drawn.attrs = {k: v for k, v in data.attrs.items() if k == "exact_not_drawn"}
    ax = axes_or_new(ax)
    earlier = _x_range_before(ax)
    points, as_line = _diamond_points(ax, drawn.damage, 1.0), _too_many_values(ax, drawn.damage)
    # A defender has its colour here and in plot_damage_pmf, so panels side by side
    # agree; after the colours of the series an earlier call drew on these axes.
    series, before = _series(drawn), _series_before(ax)
    colours = _series_colours(res, data, series, before)
    for i, (d, group) in enumerate(series):
        sim = group[group.source == "simulated"]
        colour = colours[i]
        # no dots where they would merge into a band, as the exact diamonds would
        dots: dict[str, Any] = {} if as_line else {"marker": "o", "markersize": 4}
        ax.step(sim.damage, sim.at_least, where="pre", **dots, color=colour,
                label=_named(label, d))  # fmt: skip
        ax.fill_between(sim.damage, sim.at_least_ci95_lo, sim.at_least_ci95_hi, step="pre",
                        alpha=0.25, color=colour)  # fmt: skip
        ex = group[group.source == "exact"]
        if not ex.empty:
            _draw_exact(ax, ex.damage, ex.at_least, points, as_line, "pre")
    _integer_axis(ax, drawn.damage, earlier)
    ax.set_xlabel("damage x")
    ax.set_ylabel("P(damage ≥ x)")
    ax.set_ylim(0, 1.02)
    title = [f"{data.attrs['attacker']} ·", f"{attack}:", "at least x damage", "(95% band)"]
    set_title(ax, title, fontsize=11)
    legend_outside(ax)
    ax.grid(alpha=0.3)
    if asked:
        _warn_exact_not_drawn(drawn.attrs["exact_not_drawn"])
    return drawn


def _exact_down_by_round(exact: dict[str, Any] | None, name: str) -> pd.DataFrame | None:
    """A duel's exact P(downed by round r), from the exact summary's P(first down in r)."""
    for entry in (exact or {}).get("combatants", []):
        if entry["name"] == name:
            pmf = {int(r): float(p) for r, p in entry["time_to_down"]["pmf"].items()}
            rounds = np.arange(0, max(pmf, default=0) + 1)
            down = np.cumsum([pmf.get(int(r), 0.0) for r in rounds])
            return pd.DataFrame({"round": rounds, "down_by_round": np.clip(down, 0, 1)})
    return None


@checked_arguments()
def plot_time_to_down(
    result: Result | ScenarioRun,
    combatant: str | list[str] | None = None,
    ax: Axes | None = None,
    side: str | None = None,
    exact: Any = None,
    label: str | None = None,
) -> pd.DataFrame:
    """P(downed by round r) over all encounters, per combatant, with 95% bands.

    Each curve rises from 0 to the combatant's down rate at the round cap; an encounter
    its side won counts as one it was never downed in (see
    :meth:`simlab.analysis.result.Result.time_to_down`). The band is pointwise (Wilson,
    each round on its own). A dotted line marks one half: where a curve crosses it is
    the median time-to-down.

    Parameters
    ----------
    result : Result or ScenarioRun
        The simulation.
    combatant : str or list of str, optional
        Which combatants (default: all, or all of ``side``); a ``count:`` entry's base
        name is each of its copies.
    ax : matplotlib Axes, optional
        Where to draw.
    side : str, optional
        Only this side's combatants.
    exact : ExactResult or dict, optional
        A duel's exact curve is drawn over its simulated one; where none of the curves
        drawn has one (the exact engine refused the time-to-down), a ``UserWarning``
        says why.
    label : str, optional
        Put before each curve's name in the legend (``"guard 3 · Kaito"``), to tell two
        runs drawn on the same axes apart (their curves take the next colours).

    Returns
    -------
    pandas.DataFrame
        The rows of :meth:`Result.time_to_down` that were drawn (``round, downed,
        down_by_round`` and its band).
    """
    from matplotlib.ticker import MaxNLocator

    asked = exact is not None
    label = _label_argument(label)
    res, exact = _unpack(result, exact)
    table = res.time_to_down(LEVEL)
    if side is not None:
        table = only_rows(table, "side", side)
    if combatant is not None:  # a count: entry's base name is each of its copies
        entries = copy_entries(res)
        wanted = [combatant] if isinstance(combatant, str) else list(combatant)
        named = [copy for name in wanted for copy in entries.get(str(name), [name])]
        table = only_rows(table, "combatant", named, entries)
    ax = axes_or_new(ax)
    # the last round in which any curve drawn rises, an earlier call's on these axes too
    last, earlier_cap = _ROUNDS_DRAWN.get(ax, (0, 0)) if ax.lines else (0, 0)
    never = never_downed(table)
    exact_curves = 0
    before = _series_before(ax)
    for name, group in table.groupby("combatant", sort=False):
        rounds = np.append(0, group["round"])
        suffix = NEVER_DOWNED_SUFFIX if name in never else ""
        line = ax.step(rounds, np.append(0.0, group.down_by_round), where="post",
                       color=combatant_colour(res, str(name), before),
                       label=_named(label, f"{name}{suffix}"))  # fmt: skip
        ax.fill_between(rounds, np.append(0.0, group.down_by_round_ci95_lo),
                        np.append(0.0, group.down_by_round_ci95_hi), step="post", alpha=0.2,
                        color=line[0].get_color())  # fmt: skip
        rises = group["round"][group.downed > 0]
        last = max(last, int(rises.max()) if len(rises) else 0)
        known = _exact_down_by_round(exact, str(name))
        if known is not None:
            # On top of the simulated curve it matches, thin and black, so that both show.
            ax.step(known["round"], known.down_by_round, where="post",
                    **EXACT_CURVE_STYLE,
                    label=_named(label, f"{name}{EXACT_CURVE_SUFFIX}"))  # fmt: skip
            exact_curves += 1
            short = known.down_by_round.iloc[-1] - known.down_by_round
            last = max(last, int(known["round"][short > EXACT_TAIL].min()) + 1
                       if (short > EXACT_TAIL).any() else 0)  # fmt: skip
    drawn = list(dict.fromkeys(table.combatant))
    cap = max(int(table["round"].max()) if len(table) else 0, earlier_cap)
    _ROUNDS_DRAWN[ax] = (last, cap)
    rising = set(drawn) - set(never)  # where a rising curve crosses one half: its median
    if rising and not _in_legend(ax, MEDIAN_LINE_LABEL):
        ax.axhline(0.5, color="grey", linestyle=":", linewidth=0.8, label=MEDIAN_LINE_LABEL)
    shown = _rounds_shown(last, cap)
    ax.set_xlim(-0.3, shown + 0.3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
    x_label = (
        ["round r"]
        if shown >= cap or last == 0  # none rises: the title says that none is downed
        else ["round r", f"(round cap {cap}:", f"no curve rises after round {last})"]
    )
    _over_axes(ax.set_xlabel(_unbroken(x_label)), ax)
    ax.set_ylabel("P(downed by round r)")
    ax.set_ylim(-0.02, 1.02)
    whose = [f"{side}:"] if side else []
    if drawn and set(drawn) <= set(never):  # a flat line at 0: say why, not "after round 0"
        title = [*whose, "time-to-down:", f"{', '.join(map(str, drawn))} never downed",
                 f"(round cap {cap})"]  # fmt: skip
    else:
        title = [*whose, "time-to-down", "over all encounters", "(95% band)"]
    set_title(ax, title, fontsize=10)
    legend_outside(ax)
    ax.grid(alpha=0.3)
    if asked and exact is not None and drawn and not exact_curves:
        _warn_exact_not_drawn(
            {f"time-to-down of {', '.join(map(str, drawn))}": _down_reason(exact)}
        )
    return table.reset_index(drop=True)


#: Per axes a time-to-down plot drew on, the last round any of its curves rises in and
#: the round cap: a second run drawn on them keeps the first's curves in view (it cut
#: the axis at its own rounds and said no curve rose after them).
_ROUNDS_DRAWN: weakref.WeakKeyDictionary[Axes, tuple[int, int]] = weakref.WeakKeyDictionary()

#: The legend entry of the time-to-down plots' dotted line at one half.
MEDIAN_LINE_LABEL = "median: where a curve crosses 0.5"
#: A time-to-down curve's legend entry, after its name, where it is never downed.
NEVER_DOWNED_SUFFIX = " (never downed)"


def never_downed(table: pd.DataFrame) -> list[str]:
    """The combatants of a :meth:`Result.time_to_down` table never downed in any
    encounter (their curve a flat line at 0)."""
    downs = table.groupby("combatant", sort=False).downed.sum()
    return [str(name) for name, n in downs.items() if n == 0]


#: A duel's exact time-to-down curve: black, thin and dashed, drawn over the simulated
#: curve it matches (in that curve's colour it lay hidden under it).
EXACT_CURVE_STYLE: dict[str, Any] = {"color": "black", "linestyle": (0, (4, 3)),
                                     "linewidth": 1.0, "zorder": 4}  # fmt: skip
#: The exact curve's rise left after a round (of P(downed)) below which the axis may end:
#: a quarter of a pixel of a 3-inch-high axis at 100 dpi.
EXACT_TAIL = 1e-3


def _rounds_shown(last: int, cap: int) -> int:
    """The last round a time-to-down axis shows: the round cap, or, where every curve
    has stopped rising well before it, the last round any rises in (``last``) and a
    margin of a fifth of that (at least 2 rounds), so the flat end is still seen."""
    return min(cap, last + max(2, math.ceil(last / 5)))


def pooled_hit_rates(result: Result | ScenarioRun, pool: bool = True) -> pd.DataFrame:
    """:meth:`Result.hit_rates` with copies pooled (see :func:`copy_labels`), intervals redone.

    Returns
    -------
    pandas.DataFrame
        ``attacker, attack, defender, attempts, hits, crits`` and ``hit_rate``,
        ``crit_rate`` with their 95% intervals (Wilson, Clopper–Pearson when rare, as
        ``*_ci_kind`` says).
    """
    return _pooled_rates(result_of(result), flag_argument(pool, "pool")).copy()


@_once_per_result
def _pooled_rates(res: Result, pool: bool) -> pd.DataFrame:
    """:func:`pooled_hit_rates`, worked out once per result (shared: read only)."""
    rates = res.hit_rates(LEVEL)
    if not pool:
        return rates
    labels = copy_labels(res)
    rates = rates.assign(attacker=rates.attacker.map(labels),
                         defender=rates.defender.map(labels))  # fmt: skip
    keys = ["attacker", "attack", "defender"]
    sums = rates.groupby(keys, sort=False, as_index=False)[["attempts", "hits", "crits"]].sum()
    for name in ("hit", "crit"):
        k, n = sums[f"{name}s"].to_numpy(), sums.attempts.to_numpy()
        lo, hi, kind = stats.rate_interval(k, n, LEVEL)
        sums[f"{name}_rate"] = k / n
        sums[f"{name}_rate_ci95_lo"], sums[f"{name}_rate_ci95_hi"] = lo, hi
        sums[f"{name}_rate_ci_kind"] = kind
    return sums


#: The earlier name of :func:`plot_time_to_down` (it drew a survival curve).
plot_survival = plot_time_to_down


@checked_arguments()
def plot_hit_rates(
    result: Result | ScenarioRun,
    ax: Axes | None = None,
    attacker: str | None = None,
    exact: Any = None,
    pool: bool = True,
    label: str | None = None,
) -> pd.DataFrame:
    """Hit and crit rate of every pair (or one attacker's), with 95% intervals.

    Copies are pooled unless ``pool=False``; ``attacker=`` a ``count:`` entry's base
    name is its pool, or each of its copies where they are not pooled. A rule system
    without crits (no crit in any pair) shows hit rates only. The exact rate is an open
    black diamond (as on the damage plots); the simulated rate's interval, grey
    whiskers. Where ``exact=`` is passed, a ``UserWarning`` names the pairs drawn
    without an exact hit rate and why (refused, or moved by the fight).

    Parameters
    ----------
    result : Result or ScenarioRun
        The simulation.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    attacker : str, optional
        Only this attacker's pairs (default: every pair).
    exact : ExactResult or dict, optional
        Exact rates to overlay where they exist.
    pool : bool, default True
        Pool copies of one ``count:`` entry (see :func:`copy_labels`).
    label : str, optional
        Put before each series' name in the legend (``"guard 3 · hit rate …"``), to
        tell two runs drawn on the same axes apart: bars drawn where an earlier call
        drew bars are outlines in the next colours, so that both show.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`pooled_hit_rates` drawn, plus ``exact_hit_rate`` and
        ``exact_crit_rate`` (NaN where the exact engine has no answer).
    """
    asked = exact is not None
    label = _label_argument(label)
    res, exact = _unpack(result, exact)
    pool = flag_argument(pool, "pool")
    labels = copy_labels(res) if pool else {n: n for _, n in res.layout.combatants}
    rates = pooled_hit_rates(res, pool)
    if attacker is not None:
        entries = copy_entries(res)
        rates = only_rows(rates, "attacker", _designated(attacker, labels, entries), entries)
    answers: dict[tuple[str, str, str], dict[str, Any]] = {}
    for e in (exact or {}).get("attacks", []):
        answers.setdefault((labels.get(e["attacker"], e["attacker"]), e["attack"],
                            labels.get(e["defender"], e["defender"])), e)  # fmt: skip
    keys = list(zip(rates.attacker, rates.attack, rates.defender, strict=True))
    rates = rates.assign(
        exact_hit_rate=[pair_answer(answers[k], "hit_rate") if k in answers else np.nan
                        for k in keys],
        exact_crit_rate=[pair_answer(answers[k], "crit_rate") if k in answers else np.nan
                         for k in keys],
    ).reset_index(drop=True)  # fmt: skip
    if asked and exact is not None:
        _warn_exact_not_drawn(_rates_not_drawn(exact, keys, rates, labels))
    own = ax is None
    ax = axes_or_new(ax, (6.0, 0.9 + 0.32 * max(len(rates), 1)))
    before, over = _series_before(ax), _bar_sets_before(ax) > 0
    y = np.arange(len(rates))
    drawn = [("hit_rate", "hit")] + ([("crit_rate", "crit")] if rates.crits.any() else [])
    height = 0.8 / len(drawn)
    for i, (column, name) in enumerate(drawn):
        offset = (i - (len(drawn) - 1) / 2) * height
        value = rates[column].to_numpy(dtype=float)
        err = np.vstack([value - rates[f"{column}_ci95_lo"], rates[f"{column}_ci95_hi"] - value])
        # grey whiskers, so that no interval reads as an exact answer's mark
        ax.barh(y + offset, value, height=height * 0.95, xerr=err, capsize=2,
                error_kw=INTERVAL_WHISKERS,
                **({**OVER_BARS, "edgecolor": f"C{before + i}"} if over else {}),
                label=_named(label, f"{name} rate (simulated, 95% interval)"))  # fmt: skip
        ex = rates[f"exact_{column}"].to_numpy(dtype=float)
        if np.isfinite(ex).any():  # named once, by whichever rate has diamonds first
            named = "exact" in ax.get_legend_handles_labels()[1]
            # drawn whole over the axes' edge: a rate of 0 or 1 was half a diamond
            ax.plot(ex, y + offset, **{**EXACT_MARKER, "markersize": min(6.0, 40 * height)},
                    label=None if named else "exact", clip_on=False)  # fmt: skip
    ax.set_yticks(y, [pair_name(*key) for key in keys], fontsize=LEGEND_FONT)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("rate (95% interval)")
    handles, names = ax.get_legend_handles_labels()
    order = sorted(range(len(names)), key=lambda i: names[i] == "exact")  # exact last
    handles, names = [handles[i] for i in order], [names[i] for i in order]
    if own:
        _legend_over_new_figure(ax, handles, names)
    else:
        _legend_over_given_axes(ax, handles, names, keys)
    ax.grid(alpha=0.3, axis="x")
    return rates


#: The narrowest (inches) the bars of a hit-rate plot on a new figure are drawn beside
#: the pairs' names.
MIN_BARS_WIDTH = 3.0
#: What a new figure keeps free of a legend at its edges (inches).
FIGURE_MARGIN = 0.2


def _legend_over_new_figure(ax: Axes, handles: list[Any], names: list[str]) -> None:
    """The legend of a hit-rate plot on a figure of its own: above the plot from the
    figure's left edge, in as many columns as the figure's width holds, the figure made
    taller by its height, and wider where the pairs' names leave the bars less than
    :data:`MIN_BARS_WIDTH`. Three columns over the bars, 6 inches wide beside long
    names, ran past the figure's edge: ``savefig`` cut the ``exact`` entry off, and
    constrained layout gave up ("axes sizes collapsed to zero")."""
    fig = cast("Figure", ax.figure)  # a new figure's, not a subfigure's
    labels = max((t.get_window_extent().width for t in ax.get_yticklabels()), default=0.0)
    fig.set_figwidth(max(fig.get_figwidth(), labels / fig.dpi + MIN_BARS_WIDTH + FIGURE_MARGIN))
    for ncol in range(len(names), 0, -1):
        legend = fig.legend(handles, names, loc="outside upper left", ncol=ncol,
                            fontsize=LEGEND_FONT, frameon=False)  # fmt: skip
        if ncol == 1 or legend.get_window_extent().width / fig.dpi <= (
            fig.get_figwidth() - FIGURE_MARGIN
        ):
            break
        legend.remove()
    fig.set_figheight(fig.get_figheight() + legend.get_window_extent().height / fig.dpi)


#: The least share of a given figure's width that the pairs' names of a hit-rate plot
#: are left beside its bars, above which its legend takes fewer columns.
MIN_NAMES_SHARE = 0.25


def _legend_over_given_axes(ax: Axes, handles: list[Any], names: list[str],
                            pairs: list[tuple[str, str, str]]) -> None:  # fmt: skip
    """The legend of a hit-rate plot on given axes: above them from their left edge, in
    three columns, or fewer where three leave the pairs' names less than
    :data:`MIN_NAMES_SHARE` of the figure's width; the names too wide for the room left
    broken between their parts (:func:`pair_name`), and the figure's height is the
    caller's to fit them (:func:`pair_name_lines`). Names of 34 to 37 characters pushed
    the bars off a report's figure: constrained layout gave up ("axes sizes collapsed
    to zero"), and the legend ran past the figure's edge."""
    fig = ax.figure
    whole, margin = fig.bbox.width, FIGURE_MARGIN * fig.dpi
    for ncol in range(3, 0, -1):
        legend = ax.legend(handles, names, fontsize=LEGEND_FONT, loc="lower left",
                           bbox_to_anchor=(0.0, 1.0), ncol=ncol, frameon=False)  # fmt: skip
        room = whole - legend.get_window_extent().width - 2 * margin
        if ncol == 1 or room >= MIN_NAMES_SHARE * whole:
            break
    labels = ax.get_yticklabels()
    widest = max(labels, key=lambda t: t.get_window_extent().width, default=None)
    if widest is None or widest.get_window_extent().width <= room:
        return
    chars = int(len(widest.get_text()) * room / widest.get_window_extent().width)
    ax.set_yticks(ax.get_yticks(), [pair_name(*pair, chars) for pair in pairs])


def pair_name(attacker: str, attack: str, defender: str, chars: int | None = None) -> str:
    """The name of a pair on a hit-rate plot, ``Kaito · quick-jab → Brute``, broken
    between its parts onto lines of at most ``chars`` characters where given (a part
    longer than that stays whole).

    Parameters
    ----------
    attacker, attack, defender : str
        The pair.
    chars : int, optional
        The most characters a line holds; default one line.

    Returns
    -------
    str
        The name, its lines joined by newlines.
    """
    parts = [f"{attacker} ·", f"{attack} →", defender]
    return " ".join(parts) if chars is None else "\n".join(packed(parts, chars))


def pair_name_lines(ax: Axes) -> int:
    """The most lines a pair's name takes on a hit-rate plot drawn on ``ax``
    (:func:`pair_name`): a figure sized by its pairs makes each row as tall.

    Parameters
    ----------
    ax : matplotlib Axes
        The axes :func:`plot_hit_rates` drew on.

    Returns
    -------
    int
        1 for names on one line.
    """
    return max((t.get_text().count("\n") + 1 for t in ax.get_yticklabels()), default=1)


def at_least(pmf: np.ndarray) -> np.ndarray:
    """P(X ≥ x) for x = 0..len−1 from the probabilities of X = 0..len−1."""
    return np.clip(np.asarray(pmf, dtype=float)[::-1].cumsum()[::-1], 0.0, 1.0)


def plot_before_after(ax: Axes, before: np.ndarray, after: np.ndarray, xlabel: str,
                      ylabel: str, bars: bool = False,
                      where: Literal["pre", "post"] = "post") -> pd.DataFrame:  # fmt: skip
    """A figure of a baseline run (grey) and this run (colour) over whole numbers 0, 1, …

    Bars side by side for a distribution (``bars=True``), else step curves with dots
    (``where`` as :meth:`matplotlib.axes.Axes.step`: ``"pre"`` for P(X ≥ x)); the drift
    report draws one for every distribution and curve that drifted.

    Returns
    -------
    pandas.DataFrame
        ``x, baseline, current`` (a shorter series is padded: 0 for a distribution, its
        last value for a curve).

    Raises
    ------
    simlab.errors.InputError
        Naming the argument, when ``ax`` is not a matplotlib Axes, ``before`` or
        ``after`` not an array of numbers, ``bars`` not True or False or ``where``
        neither ``"pre"`` nor ``"post"``.
    """
    from matplotlib.axes import Axes as AxesClass

    from simlab.arguments import describe, flag_argument, instance_argument
    from simlab.errors import InputError

    instance_argument(ax, AxesClass, "matplotlib.pyplot.subplots", "ax")
    before, after = _numbers_argument(before, "before"), _numbers_argument(after, "after")
    bars = flag_argument(bars, "bars")
    if where not in ("pre", "post"):
        raise InputError(f"expected 'pre' or 'post' for where; got {describe(where)}")
    size = max(len(before), len(after))

    def pad(v: np.ndarray) -> np.ndarray:
        fill = 0.0 if bars or not len(v) else v[-1]
        return np.concatenate([v, np.full(size - len(v), fill)])

    x = np.arange(size)
    data = pd.DataFrame({"x": x, "baseline": pad(before), "current": pad(after)})
    style = (("baseline", "tab:gray", -0.2), ("current", "tab:red", 0.2))
    for column, color, shift in style:
        name = "baseline" if column == "baseline" else "this run"
        if bars:
            ax.bar(x + shift, data[column], width=0.38, color=color, label=name)
        else:
            ax.step(x, data[column], where=where, marker="o", markersize=3, color=color,
                    label=name)  # fmt: skip
    _integer_axis(ax, data.x)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return data


def _numbers_argument(value: object, name: str) -> np.ndarray:
    """``value``, an argument of :func:`plot_before_after` named ``name``, as a 1-D
    array of floats.

    Raises
    ------
    simlab.errors.InputError
        When it is not one: a text, a number alone, a nested list, an item that is not a
        number (``"x"`` raised numpy's ValueError from inside the plot), or an empty one.
    """
    from simlab.arguments import describe
    from simlab.errors import InputError

    try:
        series = None if isinstance(value, str | bytes) else np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        series = None
    if series is None or series.ndim != 1:
        got = describe(value)
        if isinstance(value, list | tuple):  # the first item that is not a number
            item = next((x for x in value if not isinstance(x, numbers.Real)), None)
            got += "" if item is None else f" holding {describe(item)}"
        raise InputError(f"expected an array of numbers over 0, 1, … for {name}; got {got}")
    if not len(series):  # matplotlib's "Axis limits cannot be NaN or Inf"
        raise InputError(f"expected an array of numbers over 0, 1, … for {name}; got an "
                         f"empty {type(value).__name__}")  # fmt: skip
    return series


@checked_arguments()
def plot_win_rates(
    result: Result | ScenarioRun, ax: Axes | None = None, label: str | None = None
) -> pd.DataFrame:
    """Win rate of each side and the draw rate, with 95% intervals.

    Parameters
    ----------
    result : Result or ScenarioRun
        The simulation.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    label : str, optional
        Names the run's bars in a legend (``"guard 3"``), to tell two runs drawn on the
        same axes apart, as on the damage and hit-rate plots: bars drawn where an
        earlier call drew bars are outlines in the next colour, so that both show. The
        sides are those of the first run drawn.

    Returns
    -------
    pandas.DataFrame
        :meth:`Result.win_rates`, as drawn.
    """
    label = _label_argument(label)
    res, _ = _unpack(result, None)
    wins = res.win_rates(LEVEL)
    ax = axes_or_new(ax, (4.5, 0.9 + 0.35 * len(wins)))
    before = _bar_sets_before(ax)
    over = before > 0
    colour = WIN_COLOURS[before % len(WIN_COLOURS)]
    value = wins.win_rate.to_numpy(dtype=float)
    err = np.vstack([value - wins.win_rate_ci95_lo, wins.win_rate_ci95_hi - value])
    # an outline's whiskers in its colour, so that each run's interval is told apart
    # one run: the draw's bar grey, as it is no side's win (every bar was green)
    colours = [DRAW_COLOUR if side == "draw" else colour for side in wins.side]
    ax.barh(np.arange(len(wins)), value, xerr=err, capsize=3, label=label,
            **({**OVER_BARS, "edgecolor": colour, "error_kw": {"ecolor": colour}}
               if over else {"color": colours}))  # fmt: skip
    if not over:
        ax.set_yticks(np.arange(len(wins)), list(wins.side), fontsize=LEGEND_FONT)
        ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of encounters (95% interval)")
    ax.set_title("outcome", fontsize=10)
    ax.grid(alpha=0.3, axis="x")
    if ax.get_legend_handles_labels()[1]:
        ax.legend(fontsize=LEGEND_FONT, frameon=False)
    return wins


#: The draw's bar on a win-rate plot of one run: no side won.
DRAW_COLOUR = "0.6"

#: The colours of the runs' bars on a win-rate plot: green first, as it always was, then
#: matplotlib's cycle without its green.
WIN_COLOURS = ("tab:green", *(f"C{k}" for k in range(10) if k != 2))
