"""Sweep and comparison pages (HTML + Markdown) and the sweep curve plot.

The terminal tables of ``sweep``, ``compare`` and ``tune`` are in
:mod:`simlab.report.tuning_terminal`, which imports neither matplotlib, jinja2 nor
scipy.stats, so that printing them does not wait for what only pages need.

``sweep.html`` shows the damage curves of a sweep — hit rate, crit rate and mean damage
of each attack against each defender as functions of the first varied field, with 95%
bands and the exact answer drawn where the exact engine answers a point, for the pairs
the sweep moves (:func:`moving_pairs`; the others are named) — and the down-rate,
time-to-down and win-rate curves, each part's pictures before its table.
``tune.html`` shows a tuning: the target, the value found and the range consistent with
the target, a plot of the figure at every value tried with its 95% interval and the
target's line, and the table of those values.
``compare.html`` lists every figure two variants share with A, B, the difference and
its paired and independent 95% intervals, the figures that changed beyond their
interval first. Both pages are self-contained (PNG inline); the ``.md`` twins link the
PNGs for CI job summaries.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import jinja2
import numpy as np
import pandas as pd
from markupsafe import Markup

from simlab import __version__
from simlab.arguments import instance_argument
from simlab.binding import checked_arguments
from simlab.errors import InputError, did_you_mean
from simlab.report.files import atomic_write
from simlab.report.plots import (
    EXACT_STYLE,
    FIGURE_MARGIN,
    LEGEND_FONT,
    axes_or_new,
    copy_entries,
    legend_outside,
    only_rows,
    set_ylabel,
)
from simlab.report.render import (
    EXACT_SUFFIX,
    PHONE_MEDIA,
    PHONE_WIDTH,
    PNG_DIR,
    STYLESHEET,
    Picture,
    _bytes_writer,
    _html_table,
    _legend_below_when_long,
    _md_table,
    _png,
    _shared_legend,
    _slug,
    _text_writer,
    md_picture,
    md_text,
    unbroken,
    whole_words,
)
from simlab.report.terminal import (
    NOT_REACHED,
    RATE_RANGE,
    bounds,
    decimals,
    exact_number,
    figure_range,
    format_p,
    formatted,
    held_to,
    interval_cell,
    median_cell,
    median_note,
)
from simlab.report.tuning_terminal import (
    FEW_EVENTS_NOTE,
    MEAN_TIME_TO_DOWN_NOTE,
    _number,
    compare_digits,
    consistent_values,
    crit_cells,
    few_attacks,
    few_attacks_note,
    figure_labels,
    identical_note,
    independent_bounds,
    joint_intervals_note,
    never_attacked,
    never_attacked_note,
    never_winning,
    never_winning_note,
    not_compared_note,
    point_cells,
    shown_combatants,
    shown_sides,
    sweep_crit_note,
    sweep_half_width,
    times_narrower,
    tune_sentences,
    tuned_figure,
)
from simlab.report.words import counted
from simlab.rules import has_crits
from simlab.scenario.common import DRAW
from simlab.tuning.figures import pair_label, refuse_crit_rate
from simlab.tuning.sweep import (
    PAIR,
    PAIR_FIGURES,
    SweepResult,
    moving_level,
    moving_pairs,
    pair_figures,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from simlab.tuning.compare import Comparison
    from simlab.tuning.tune import TuneResult

__all__ = ["plot_sweep", "plot_tune", "render_compare", "render_sweep", "render_tune"]

#: Which table each figure lives in, and the columns that name what it is measured on.
_TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    **{f: ("attacks", ("attacker", "attack", "defender"))
       for f in ("hit_rate", "crit_rate", "mean_damage")},
    **{f: ("combatants", ("combatant",))
       for f in ("down_rate", "mean_time_to_down", "median_time_to_down")},
    "win_rate": ("sides", ("side",)),
}  # fmt: skip


@checked_arguments()
def plot_sweep(
    sweep: SweepResult,
    figure: str = "mean_damage",
    *,
    ax: Axes | None = None,
    **on: str,
) -> pd.DataFrame:
    """Draw one figure of a sweep against the first varied field, with its 95% band.

    Parameters
    ----------
    sweep : SweepResult
        From :func:`simlab.sweep`.
    figure : str
        ``hit_rate``, ``crit_rate`` (refused where the rules have no critical hits, or
        no pair drawn can crit at any point: :meth:`SweepResult.can_crit`),
        ``mean_damage`` (per attack pair), ``down_rate``, ``mean_time_to_down``,
        ``median_time_to_down`` (per combatant) or ``win_rate`` (per side, ``draw``
        included; the y axis reads ``draw rate`` for the draws alone, ``win or draw
        rate`` for sides and draws).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    **on : str
        Narrow the lines drawn: ``attacker=``, ``attack=``, ``defender=``,
        ``combatant=``, ``side=``, each a name or a list of names (a ``count:``
        entry's base name, ``combatant="Raider"``, is each of its copies, as in a
        run's plots). As on the sweep page, a combatant no one attacks at any point
        is left out of a combatant's figure, and a side that never wins as it makes
        no attack out of the win rate (:func:`_left_out`), unless named, or all that
        the narrowing leaves. One line per remaining subject (and per value of any
        further varied field: with several subjects, each subject keeps one colour and
        each further value a line style, :func:`_line_style`); a subject's colour is
        its place among all of the sweep's subjects, whatever the narrowing
        (:func:`_line_colours`), a combatant's as on a run's plots; the exact answer, where
        there is one, dashed (in its line's colour among several lines; black where
        several lines share it, its entry after theirs, :func:`_exact_line`). The legend,
        beside the axes, names what tells the lines apart (the further fields' values,
        the subject's names that differ), or the subject of a single line; on a new
        figure (no ``ax=``), a legend too wide to sit beside the plot goes under it
        (:func:`_legend_below_when_long`).

        ``median_time_to_down`` takes whole rounds only: its interval is an error bar at
        each value, a median not reached by the round cap its line's marker, in its
        colour, in a grey row of its own above the plot, labelled ``not reached by round
        100`` (:func:`not_reached_row`), and an interval whose upper end is not reached
        an arrow up to the plot's top edge (:func:`_median_marks`).

    Returns
    -------
    pandas.DataFrame
        The rows drawn: the varied fields, the subject columns, the figure, its band
        (``*_ci95_lo/hi``) and ``exact_<figure>`` when known.

    Raises
    ------
    InputError
        With ``ax=``, where the figure has more than :data:`MOST_LINES_ON_AXES` lines
        (every attack pair at each value of a further field): their legend would not fit
        beside or under the caller's axes. The message names what ``attacker=``,
        ``attack=``, ``defender=`` (or ``combatant=``, ``side=``) take; without ``ax=``,
        the new figure grows to its legend.
    """
    return _sweep_plot(sweep, figure, ax, on, MOST_LINES_ON_AXES, None)


#: The most lines :func:`plot_sweep` draws on the caller's axes: their legend, under the
#: axes in columns (:func:`_legend_under_when_wide`), fits a figure of matplotlib's
#: default size (6.4 × 4.8 in). A sweep of two fields drew 69 lines on one, and its
#: legend pushed the plot out of the figure ("axes sizes collapsed to zero").
MOST_LINES_ON_AXES = 12


def _sweep_plot(sweep: SweepResult, figure: str, ax: Axes | None, on: dict[str, str],
                most: int | None, hidden: Sequence[str] | None = ()) -> pd.DataFrame:  # fmt: skip
    """:func:`plot_sweep`, refusing more than ``most`` lines on the caller's ``ax`` (the
    report's pictures, which make room for their legends, draw every line: None), and
    drawing none of the subjects ``hidden`` (the page's, as its tables leave them out;
    None: those the page leaves out, :func:`_left_out`, but for any ``on`` names or
    narrows the plot to alone)."""
    instance_argument(sweep, SweepResult, "simlab.sweep", "sweep")
    if figure not in _TABLES:
        raise InputError(f"expected figure= one of {', '.join(_TABLES)}; got "
                         f"{figure!r}{did_you_mean(figure, _TABLES)}")  # fmt: skip
    refuse_crit_rate(figure, has_crits(sweep.rules), "figure")
    table, subject = _TABLES[figure]
    data = getattr(sweep, table)()
    everyone = _subjects(data, subject)
    copies = _copies(sweep)
    asked: list[str] = []  # the subjects named (a count: entry's base name: its copies)
    for key, value in on.items():
        if key not in data.columns:
            narrow = ", ".join(f"{c}=" for c in subject)
            raise InputError(f"expected one of {narrow} to narrow {figure} by; got "
                             f"{key}={did_you_mean(key, subject)}")  # fmt: skip
        wanted = list(value) if isinstance(value, list | tuple) else [value]
        each_copy = [copy for name in wanted for copy in copies.get(str(name), [name])]
        data = only_rows(data, key, each_copy, copies)
        asked += each_copy if key == subject[0] else []
    if hidden is None:
        hidden = _left_out(sweep, figure, data, asked)
    data = data[~data[subject[0]].astype(str).isin(hidden)]
    if figure == "crit_rate":
        _refuse_crit_rate_nowhere(sweep, data)
    x, *others = sweep.fields
    own = ax is None
    ax = axes_or_new(ax)
    columns = [*sweep.fields, *subject, figure]
    for end in ("lo", "hi"):
        if f"{figure}_ci95_{end}" in data.columns:
            columns.append(f"{figure}_ci95_{end}")
    if f"exact_{figure}" in data.columns:
        columns.append(f"exact_{figure}")
    drawn_rows = data[columns].reset_index(drop=True)
    data = _values_said(sweep, drawn_rows, others)
    numeric = pd.api.types.is_numeric_dtype(data[x]) and not pd.api.types.is_bool_dtype(data[x])
    named = [c for c in subject if data[c].nunique() > 1] or ([] if others else subject)
    # a line with nothing to draw (a time-to-down of one never downed) gets no legend entry;
    # a median not reached is drawn (:func:`_median_marks`), so its line always is
    lines = [
        (key, line)
        for key, line in data.groupby([*others, *subject], sort=False)
        if figure == MEDIAN
        or line[[c for c in line.columns if c.endswith(figure)]].notna().any().any()
    ]
    groups = _line_groups(lines, figure)
    names = _line_names(lines, others, subject, named, figure)
    if not own and most is not None and len(names) > most:
        raise InputError(_too_many_lines(figure, len(names), data, subject, others, most))
    combinations = _combinations(lines, others, subject)
    order = [key for key, _ in data.groupby([*others, *subject], sort=False)]
    colours = _line_colours(order, others, subject, named, everyone)
    exact_drawn: dict[tuple[Any, ...], tuple[Any, list[list[dict[str, Any]]]]] = {}
    stacked: dict[float, int] = {}  # the not-reached marks drawn at each swept value
    row = functools.cache(lambda: not_reached_row(ax, not_reached_label(_round_caps(sweep))))
    for key, line in lines:
        if key not in names:  # drawn with the line it coincides with
            continue
        if numeric:  # values given out of order (3, 0, 4, 1) were joined in a zigzag
            line = line.sort_values(x, kind="stable")
        exact = line.get(f"exact_{figure}")
        keys = _keys(key, others, subject)
        name = names[key]
        # dice, lists, maps: one category each, written as the file writes them
        at = line[x] if numeric else line[x].map(functools.partial(sweep.value_said, x))
        style = {"markersize": 3, "color": colours[key],
                 **_line_style(data, others, named, keys)}  # fmt: skip
        drawn = ax.plot(at, line[figure], label=name, **style)
        if figure == MEDIAN:
            _median_marks(ax, at, line, drawn[0], row, stacked)
        elif f"{figure}_ci95_lo" in line.columns:
            ax.fill_between(at, line[f"{figure}_ci95_lo"], line[f"{figure}_ci95_hi"],
                            color=drawn[0].get_color(), alpha=0.2, linewidth=0)  # fmt: skip
        if exact is not None and exact.notna().any():
            members = [_keys(k, others, subject) for k in groups[key]]
            _exact_line(ax, at, exact, members, drawn[0].get_color() if len(lines) > 1 else None,
                        exact_drawn, lambda m: _exact_name(m, others, subject, named,
                                                           combinations))  # fmt: skip
    _after_the_curves(ax, [line for line, curves in exact_drawn.values() if len(curves) > 1])
    ax.set_xlabel(x)
    label = axis_label(figure, list(data[subject[0]].astype(str)))
    # the legend names field values: the axis says whose figure it is (the draw rate's own)
    unnamed = bool(others) and not named and len(data) > 0 and label != DRAW_RATE
    set_ylabel(ax, f"{_subject_said(data, subject)}: {label}" if unnamed else label)
    _readable_axes(ax, figure, data[x] if numeric else None)
    if not numeric and lines:  # one category a value, written as the lines drew it
        drawn = pd.concat([line[x] for _, line in lines])
        _category_ticks(ax, list(dict.fromkeys(drawn.map(functools.partial(sweep.value_said, x)))))
    if ax.get_lines():  # a single line too: the legend names its subject
        legend_outside(ax)
        if own:
            _legend_on_new_figure(ax)
        else:
            _legend_under_when_wide(ax)
    return drawn_rows


def _left_out(sweep: SweepResult, figure: str, rows: pd.DataFrame | None = None,
              named: Sequence[str] = ()) -> list[str]:  # fmt: skip
    """The subjects of ``figure`` that a sweep's page leaves out of its pictures and
    tables, as :func:`plot_sweep` does: the combatants no one attacks at any point
    (:func:`never_attacked`; a not-reached median at every point, which the sweep does
    not move) of a combatant's figure, the sides that never win (:func:`never_winning`)
    of the win rate; none of an attack pair's. Where ``rows`` (the rows a plot is
    narrowed to) are given, those ``named`` (by ``combatant=``, or ``side=`` of the win
    rate) are kept, and all of them where they are all left out: the
    caller asked for them."""
    table = _TABLES[figure][0]
    left = (never_winning(sweep) if figure == "win_rate"
            else never_attacked(sweep) if table == "combatants" else [])  # fmt: skip
    if rows is None:
        return left
    left = [name for name in left if name not in map(str, named)]
    remaining = set(rows[_TABLES[figure][1][0]].astype(str))
    return left if remaining - set(left) else []


def _subjects(data: pd.DataFrame, subject: Sequence[str]) -> list[tuple[Any, ...]]:
    """Every subject of a sweep's table ``data`` (a combatant, a side, an attack pair),
    in the table's order, before any is narrowed away or left out."""
    return list(dict.fromkeys(zip(*(data[c] for c in subject), strict=True)))


def _line_colours(keys: list[Any], others: Sequence[str], subject: Sequence[str],
                  named: Sequence[str],
                  everyone: list[tuple[Any, ...]]) -> dict[Any, str]:  # fmt: skip
    """The colour of each line of a sweep plot, by its group key: its subject's, ``Ci``
    for the subject's place among all of the sweep's (``everyone``, :func:`_subjects`),
    so that a subject keeps its colour whatever ``combatant=`` or ``side=`` narrows the
    plot to, or the page leaves out (narrowed to the defender, its line took the
    attacker's colour); a combatant's is its colour on a run's plots too
    (:func:`~simlab.report.plots.combatant_colour`). One subject's lines at the values
    of further fields (nothing else tells them apart) take the colours in turn."""
    if others and not named:
        return {key: f"C{i % 10}" for i, key in enumerate(keys)}
    place = {key: everyone.index(tuple(_keys(key, others, subject)[c] for c in subject))
             for key in keys}  # fmt: skip
    return {key: f"C{at % 10}" for key, at in place.items()}


def _copies(sweep: SweepResult) -> dict[str, list[str]]:
    """The copies of each ``count:`` entry of the sweep by its base name
    (:func:`~simlab.report.plots.copy_entries`, from its first simulated point), which
    narrows a plot to them all (``combatant="Raider"``), as a run's plots take it."""
    result = next((p.result for p in sweep.points if p.result is not None), None)
    return {} if result is None else copy_entries(result)


def _subject_said(data: pd.DataFrame, subject: Sequence[str]) -> str:
    """The one subject of a sweep plot's rows, as its legend names a subject where it
    names several (``Kaito``, ``Kaito · quick-jab · Brute``): a plot over two fields
    narrowed to one combatant named only the fields' values, and nothing said whose
    down rate it drew."""
    return " · ".join(str(data[c].iloc[0]) for c in subject)


def _values_said(sweep: SweepResult, data: pd.DataFrame, fields: Sequence[str]) -> pd.DataFrame:
    """``data`` with the values of ``fields`` (the further varied fields, which tell
    lines apart) as the sweep's tables write them (:meth:`SweepResult.value_said`): the
    legend read ``strike.tier={12: 'crit'}``, and a map could not group the lines."""
    said = {f: data[f].map(functools.partial(sweep.value_said, f)) for f in fields}
    return data.assign(**said)


MEDIAN = "median_time_to_down"


def _refuse_crit_rate_nowhere(sweep: SweepResult, rows: pd.DataFrame) -> None:
    """Refuse the crit rate of the attack pairs of ``rows`` where none of them can crit
    at any point of the sweep (:meth:`SweepResult.can_crit`): a flat line at 0, as the
    command line refuses ``--precision-on`` of such a crit rate, with the reasons
    :meth:`SweepResult.cannot_crit_why` gives at its points."""
    pairs = list(rows[list(PAIR)].drop_duplicates().itertuples(index=False, name=None))
    if not pairs or any(sweep.can_crit(*pair) for pair in pairs):
        return
    labels = [pair_label(*pair) for pair in pairs]
    said = (f"({why})" for pair in pairs for why in sweep.cannot_crit_why(*pair) if why)
    reasons = " ".join(dict.fromkeys(said))
    they = "it cannot" if len(labels) == 1 else "none of them can"
    raise InputError(f"figure: expected a pair that can crit; got 'crit_rate' of "
                     f"{', '.join(labels)}: {they} crit at any point of the sweep "
                     f"{reasons}".rstrip())  # fmt: skip


def _too_many_lines(figure: str, count: int, data: pd.DataFrame, subject: Sequence[str],
                    others: Sequence[str], most: int) -> str:  # fmt: skip
    """Why :func:`plot_sweep` refuses ``count`` lines on the caller's axes, and how to
    narrow them: each subject column with the names it takes."""
    at = f" at each {', '.join(others)}" if others else ""
    narrow = "; ".join(f"{c}= one of {_some(data[c].unique())}" for c in subject
                       if data[c].nunique() > 1)  # fmt: skip
    return (
        f"plot_sweep({figure!r}) would draw {count} lines on your axes (each "
        f"{' · '.join(subject)}{at}), more than the {most} a legend there can name; "
        f"narrow them ({narrow}), or leave out ax= for a figure of its own, which "
        f"grows to its legend"
    )


def _some(names: Sequence[Any], most: int = 6) -> str:
    """``names`` joined, the first ``most`` of them with how many more."""
    shown = ", ".join(map(str, names[:most]))
    return shown + (f", … ({len(names) - most} more)" if len(names) > most else "")


#: The row above a median sweep plot where the medians not reached by the round cap are
#: marked (its line's marker, in its colour), labelled ``not reached by round 100`` at
#: its left, as a tick of its own: on the plot's top edge, just above the data, a mark
#: read as a median of about the top round. Its gap above the plot's top edge and its
#: height, in points, and its colour.
NOT_REACHED_GAP, NOT_REACHED_HEIGHT = 8.0, 24.0
NOT_REACHED_BAND = "0.93"
NOT_REACHED_STYLE: dict[str, Any] = {"markersize": 6, "linestyle": "none"}
#: How far apart (points) the not-reached marks of several lines at one value are.
NOT_REACHED_SPACING = 8.0


def not_reached_label(caps: Sequence[int]) -> str:
    """The label of the not-reached row (:func:`not_reached_row`), over two lines: ``not
    reached`` and ``by round 100``, the round cap of every point (``caps``), or ``by the
    round cap`` where they differ or are not known."""
    said = f"by round {caps[0]}" if len(set(caps)) == 1 else "by the round cap"
    return f"{NOT_REACHED}\n{said}"


def not_reached_row(ax: Axes, label: str) -> Any:
    """Draw the row above ``ax`` where medians not reached are marked: a grey band
    :data:`NOT_REACHED_GAP` over the top edge, labelled ``label`` at its left as a y tick
    is. Returns its transform: x in data, y 1 the row's middle."""
    from matplotlib.lines import Line2D
    from matplotlib.transforms import offset_copy

    fig = cast("Figure", ax.figure)
    middle = NOT_REACHED_GAP + NOT_REACHED_HEIGHT / 2
    band = Line2D([0, 1], [1, 1], transform=offset_copy(ax.transAxes, fig=fig, y=middle,
                                                        units="points"),
                  linewidth=NOT_REACHED_HEIGHT, solid_capstyle="butt", color=NOT_REACHED_BAND,
                  clip_on=False, zorder=-1)  # fmt: skip
    fig.add_artist(band)  # the figure's: not one of the axes' lines (``ax.get_lines()``)
    tick = ax.yaxis.get_major_ticks()[0].label1
    size = float(tick.get_fontsize())
    ax.text(0, 1, label, transform=offset_copy(ax.transAxes, fig=fig, x=-size / 2, y=middle,
                                               units="points"),
            ha="right", va="center", fontsize=size, color=tick.get_color(),
            linespacing=1.1)  # fmt: skip
    return offset_copy(ax.get_xaxis_transform(), fig=fig, y=middle, units="points")


def _round_caps(sweep: SweepResult) -> list[int]:
    """The round cap of each point of ``sweep`` (``max_rounds`` may be a varied field)."""
    return [p.result.layout.max_rounds for p in sweep.points if p.result is not None]


def _median_marks(ax: Axes, at: pd.Series, line: pd.DataFrame, drawn: Any,
                  row: Callable[[], Any], stacked: dict[float, int]) -> None:  # fmt: skip
    """A median time-to-down's interval as an error bar at each swept value (it takes
    whole rounds only: a band between values suggested fractional ones), an upper end
    not reached as an arrow up to the top edge, and a median not reached as the marker
    of its line ``drawn``, in its colour, in the not-reached row above the plot
    (``row()``, its transform, :func:`not_reached_row`); ``stacked`` counts the marks at
    each value, so that several lines' marks there sit side by side, not one over
    another."""
    from matplotlib.transforms import offset_copy

    color = drawn.get_color()
    xs = np.asarray(ax.xaxis.convert_units(list(at)), dtype=float)  # categories: 0, 1, …
    lo = line[f"{MEDIAN}_ci95_lo"].to_numpy(dtype=float)
    hi = line[f"{MEDIAN}_ci95_hi"].to_numpy(dtype=float)
    bounded = np.isfinite(lo) & np.isfinite(hi)
    ax.errorbar(xs[bounded], (lo + hi)[bounded] / 2, yerr=(hi - lo)[bounded] / 2, fmt="none",
                ecolor=color, elinewidth=1, capsize=3)  # fmt: skip
    edge = ax.get_xaxis_transform()  # x in data, y in axes (1: the top edge)
    open_ended = np.isfinite(lo) & ~np.isfinite(hi)
    for x, low in zip(xs[open_ended], lo[open_ended], strict=True):
        ax.plot([x], [low], marker="_", markersize=6, color=color)  # the bar's lower cap
        ax.annotate("", xy=(x, 1), xycoords=edge, xytext=(x, low), textcoords="data",
                    arrowprops={"arrowstyle": "-|>", "color": color, "shrinkA": 0,
                                "shrinkB": 0, "linewidth": 1})  # fmt: skip
    unreached = xs[~np.isfinite(line[MEDIAN].to_numpy(dtype=float))]
    # the x range takes them in, as it does a line's points (their transform is not data's)
    ax.dataLim.update_from_data_x(unreached, ignore=False)
    for x in unreached:
        count = stacked.get(x, 0)
        stacked[x] = count + 1
        # the value's first mark on it, the next to its right, then left, …: kept near it
        # (all to the right, five marks at the last value ran past the plot's edge)
        side = (count + 1) // 2 * (1 if count % 2 else -1)
        place = offset_copy(row(), fig=cast("Figure", ax.figure), x=NOT_REACHED_SPACING * side,
                            units="points")  # fmt: skip
        ax.plot([x], [1.0], **NOT_REACHED_STYLE, marker=drawn.get_marker(), color=color,
                transform=place, clip_on=False)  # fmt: skip


def _exact_line(ax: Axes, at: pd.Series, exact: pd.Series, members: list[dict[str, Any]],
                color: Any, drawn: dict[tuple[Any, ...], tuple[Any, list[list[dict[str, Any]]]]],
                name: Callable[[list[dict[str, Any]]], str]) -> None:  # fmt: skip
    """A line's exact answer, dashed, in the line's ``color`` where there are several
    lines (two black dashes in the legend would not say which is which), black where it
    is the only one. An answer the same at every point as one drawn already (every
    combination of a grid solves the same pair alike) is not drawn again: its line's
    ``members`` (the further fields' values and subjects of the lines it is the answer
    of) join the first one's in ``drawn`` (the members of each curve it is the answer
    of, by the answer), and the entry is named by them all as the lines drawn as one are
    (``name``, :func:`_merged_name`): ``Kaito · quick-jab · Brute (every Brute.guard)
    (exact)``, where each line's name joined by ``=`` ran 130 characters wide and pushed
    the plot out of a figure with a layout. The answer of several curves is in
    :data:`SHARED_EXACT_COLOUR`: in the first one's colour, it read as that curve's
    alone."""
    same = (tuple(at), tuple(exact.round(12)))
    if same in drawn:
        first, curves = drawn[same]
        curves.append(members)
        first.set_label(name([m for curve in curves for m in curve]) + EXACT_SUFFIX)
        first.set_color(SHARED_EXACT_COLOUR)
        return
    (line,) = ax.plot(at, exact, **{**EXACT_STYLE, "color": color or EXACT_STYLE["color"],
                                    "label": name(members) + EXACT_SUFFIX})  # fmt: skip
    drawn[same] = (line, [list(members)])


#: The colour of an exact line that several curves share: none of theirs (each curve's
#: own answer is dashed in its colour), as a lone curve's answer is drawn.
SHARED_EXACT_COLOUR = EXACT_STYLE["color"]


def _after_the_curves(ax: Axes, lines: list[Any]) -> None:
    """Move ``lines`` (exact lines several curves share) after every other line of
    ``ax``, so that the legend names each after all the curves it is the answer of, not
    between the first of them and the next."""
    for line in lines:
        line.remove()
        ax.add_line(line)


def _keys(key: Any, others: Sequence[str], subject: Sequence[str]) -> dict[str, Any]:
    """The further varied fields' values and the subject of one line of
    :func:`plot_sweep`, by name."""
    return dict(zip([*others, *subject], key if isinstance(key, tuple) else (key,), strict=True))


def _line_names(
    lines: list[tuple[Any, pd.DataFrame]],
    others: Sequence[str],
    subject: Sequence[str],
    named: Sequence[str],
    figure: str,
) -> dict[Any, str]:
    """The legend name of each line :func:`plot_sweep` draws, by its group key. Lines
    whose figures are the same at every value (two sides that never win, a side and
    the draws) are drawn once, named together (``enemies = draw``): drawn one over the
    other, the first would hide under the second (:func:`_line_groups`). In a grid, one
    subject's line the same at every value of the further fields is named once for them
    all (``draw (every Plate Knight.bonus_defense)``)."""
    combinations = _combinations(lines, others, subject)
    return {first: _merged_name([_keys(k, others, subject) for k in keys], others, subject,
                                named, combinations)
            for first, keys in _line_groups(lines, figure).items()}  # fmt: skip


def _line_groups(lines: list[tuple[Any, pd.DataFrame]], figure: str) -> dict[Any, list[Any]]:
    """The keys of the lines of :func:`plot_sweep` whose figures are the same at every
    value, drawn as one, by the key of the first of them."""
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for key, line in lines:
        figures = line[[c for c in line.columns if c.endswith(figure) or "_ci95_" in c]]
        groups.setdefault(tuple(figures.round(12).itertuples(index=False)), []).append(key)
    return {keys[0]: keys for keys in groups.values()}


def _combinations(lines: list[tuple[Any, pd.DataFrame]], others: Sequence[str],
                  subject: Sequence[str]) -> int:  # fmt: skip
    """How many combinations of the further varied fields' values the lines are drawn at."""
    return len({tuple(_keys(k, others, subject)[f] for f in others) for k, _ in lines})


def _merged_name(members: list[dict[str, Any]], others: Sequence[str], subject: Sequence[str],
                 named: Sequence[str], combinations: int) -> str:  # fmt: skip
    """The legend name of the lines ``members`` (their fields' values and subjects by
    name), drawn as one: ``defender = draw (every FIELD)`` when each of their subjects
    is there at every combination of the further fields, else their names joined by
    `` = ``."""
    by_subject: dict[tuple[Any, ...], int] = {}
    for m in members:
        who = tuple(m[c] for c in (named or subject))
        by_subject[who] = by_subject.get(who, 0) + 1
    if others and combinations > 1 and set(by_subject.values()) == {combinations}:
        subjects = " = ".join(" · ".join(map(str, s)) for s in by_subject)
        return f"{subjects} (every {', '.join(others)})"
    return " = ".join(" · ".join([*(f"{f}={m[f]}" for f in others), *(str(m[c]) for c in named)])
                      for m in members)  # fmt: skip


def _exact_name(members: list[dict[str, Any]], others: Sequence[str], subject: Sequence[str],
                named: Sequence[str], combinations: int) -> str:  # fmt: skip
    """The legend name of an exact line of the lines ``members`` (before its ``(exact)``):
    ``every Brute.guard`` where the lines are one subject's at every combination of the
    further fields and the legend names no subject (its other entries read
    ``Brute.guard=1``); else as the lines drawn as one are named (:func:`_merged_name`)."""
    if not named and others and combinations > 1 and len(members) == combinations:
        return f"every {', '.join(others)}"
    return _merged_name(members, others, subject, named, combinations)


#: How :func:`plot_sweep` tells apart the values of the further varied fields when the
#: subjects already take the colours (dashes stay the exact answers'): line styles that
#: read apart at a glance, and markers.
LINE_STYLES = ("-", ":", "-.", (0, (1, 3)))
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*")
#: Their markers' size, large enough to tell a square from a circle (the lines' own: 3).
FURTHER_MARKER_SIZE = 5


def _line_style(data: pd.DataFrame, others: Sequence[str], named: Sequence[str],
                keys: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """The style of one line of :func:`plot_sweep`. With both further varied fields and
    several subjects (every combatant at two shields), colours alone repeat past ten
    lines and could not say which is which: each subject keeps one colour, and the
    further fields' values take a line style and a marker (:func:`_further_style`);
    otherwise the lines are told apart by their colours alone (:func:`_line_colours`)."""
    if not (others and named):
        return {"marker": "o"}
    return _further_style(data, others, keys)


def _further_style(data: pd.DataFrame, others: Sequence[str],
                   keys: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """The line style and marker of the further fields' values ``keys``: one further
    field, each value both of its own; two or more, the first field's value the line
    style and the rest's the marker, so that each combination is a style × marker of its
    own and each field is read off one of them (with three fields, four combinations
    shared three styles and two differed by their marker only)."""
    first, rest = others[0], list(others[1:])
    style = list(dict.fromkeys(data[first])).index(keys[first])
    if not rest:
        mark = style
    else:
        combos = list(dict.fromkeys(zip(*(data[f] for f in rest), strict=True)))
        mark = combos.index(tuple(keys[f] for f in rest)) + style // len(LINE_STYLES)
    return {"linestyle": LINE_STYLES[style % len(LINE_STYLES)],
            "marker": MARKERS[mark % len(MARKERS)],
            "markersize": FURTHER_MARKER_SIZE}  # fmt: skip


#: What a sweep plot's y axis shows, where its figure's name does not say it all.
AXIS_LABELS = {
    "mean_damage": "mean damage per attack (HP, misses 0)",
    "mean_time_to_down": "mean time-to-down if downed (rounds)",
    "median_time_to_down": "median time-to-down (rounds)",
}

#: The y label of a win rate of the draws alone (``side="draw"``), and of sides and the
#: draws together: the draw rate alone was labelled "win rate".
DRAW_RATE, WIN_OR_DRAW_RATE = "draw rate", "win or draw rate"


def axis_label(figure: str, sides: Sequence[str] = ()) -> str:
    """What the y axis of a sweep or tune plot of ``figure`` shows: its name, with its
    unit where the name does not say it (:data:`AXIS_LABELS`); for a ``win_rate`` of
    the ``sides`` drawn, :data:`DRAW_RATE` where they are the draws alone and
    :data:`WIN_OR_DRAW_RATE` where the draws are among them.

    Parameters
    ----------
    figure : str
        The figure drawn.
    sides : sequence of str
        The sides (and ``draw``) a win-rate plot draws; ignored for other figures.

    Returns
    -------
    str
    """
    if figure == "win_rate" and DRAW in sides:
        return DRAW_RATE if set(sides) == {DRAW} else WIN_OR_DRAW_RATE
    return AXIS_LABELS.get(figure, figure.replace("_", " "))


#: The narrowest y range a sweep plot shows: a rate, or a share of a mean's size. Without
#: it, a flat curve is stretched over the whole plot and its noise reads as a trend.
MIN_RATE_SPAN = 0.05
MIN_MEAN_SPAN = 0.2
#: Figures in rounds, and the narrowest y range they show (rounds): two, so that at least
#: two whole rounds are ticked (a constant median of 6 was ticked 5.40, 5.55, … 6.60).
ROUND_FIGURES = ("mean_time_to_down", "median_time_to_down")
MIN_ROUND_SPAN = 2.0
#: Figures that take whole rounds only, whose axis ticks whole rounds only. A mean takes
#: fractions: ticked at whole rounds, means from 2.4 to 3.7 read against 3 and 4 alone.
WHOLE_ROUND_FIGURES = ("median_time_to_down",)
#: At most about this many ticks on the axis of a mean in rounds (matplotlib's steps).
MEAN_ROUND_TICKS = 5
#: The most swept values a sweep plot ticks every one of (matplotlib's ticks, 12, 16,
#: …, 40, left the first of 10, 20, 30, 40 without a label).
MAX_TICKED_VALUES = 12


def _readable_axes(ax: Axes, figure: str, x: pd.Series | None, marked: float | None = None) -> None:
    """Ticks at the swept values ``x`` (:func:`_swept_ticks`, one among them ``marked``
    whatever the others; None: not numbers, one category each); whole rounds only for a
    figure that takes whole rounds
    (:data:`WHOLE_ROUND_FIGURES`), about :data:`MEAN_ROUND_TICKS` at matplotlib's steps
    (halves, quarters) for a mean in rounds; a y
    range no narrower than :data:`MIN_RATE_SPAN` for a rate (within 0..1 and the margin
    matplotlib leaves around data),
    :data:`MIN_MEAN_SPAN` × the mean's size for a mean, and :data:`MIN_ROUND_SPAN` for
    rounds."""
    from matplotlib.ticker import MaxNLocator

    if x is not None:
        _swept_ticks(ax, x, marked)
    rounds = figure in ROUND_FIGURES
    if figure in WHOLE_ROUND_FIGURES:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    elif rounds:  # halves over two rounds, not quarters: 9 labels crowded a short panel
        ax.yaxis.set_major_locator(MaxNLocator(nbins=MEAN_ROUND_TICKS, steps=[1, 2, 2.5, 5, 10]))
    lo, hi = ax.get_ylim()
    rate = figure_range(figure) == RATE_RANGE
    least = MIN_RATE_SPAN if rate else MIN_MEAN_SPAN * max(abs(lo), abs(hi), 1.0)
    least = max(least, MIN_ROUND_SPAN) if rounds else least
    if hi - lo >= least:
        return
    middle = (lo + hi) / 2
    lo, hi = middle - least / 2, middle + least / 2
    if rate:  # within 0..1, but for the margin matplotlib leaves around any data: a
        # rate of 1 at every value was drawn on the panel's top edge, an empty-looking box
        margin = ax.get_ymargin() * least
        shift = max(0.0, -margin - lo) - max(0.0, hi - 1.0 - margin)
        lo, hi = lo + shift, hi + shift
    ax.set_ylim(lo, hi)


def _swept_ticks(ax: Axes, x: pd.Series, marked: float | None = None) -> None:
    """A tick at the swept values (numbers ``x``) where there are at most
    :data:`MAX_TICKED_VALUES` of them, each whose label has room beside the last one
    ticked (:func:`_values_with_room`); else matplotlib's ticks, whole numbers where
    the values are. ``marked`` (a tuning's value found) is ticked whatever the others:
    those its label has no room beside are left unticked."""
    from matplotlib.ticker import MaxNLocator

    values = np.unique(x.dropna().to_numpy(dtype=float))
    if 0 < len(values) <= MAX_TICKED_VALUES:
        ax.set_xticks(_values_with_room(ax, values, marked))
        return
    if pd.api.types.is_integer_dtype(x) or (x.dropna() % 1 == 0).all():
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if marked is not None:
        lo, hi = sorted(ax.get_xlim())
        ticks = [t for t in ax.xaxis.get_major_locator()() if lo <= t <= hi]
        ax.set_xticks(_values_with_room(ax, np.unique([*ticks, marked]), marked))


def _category_ticks(ax: Axes, categories: Sequence[str]) -> None:
    """A tick at each of the swept values ``categories`` (not numbers: one category
    each), its label broken at its spaces into lines that leave room beside the next
    one's once the figure is laid out (:func:`_category_formatter`): two profiles swept,
    ``[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]`` and ``[0, 0, 1, …, 9, 12]``, were drawn as one
    run of text across both ticks."""
    from matplotlib.ticker import FixedLocator

    positions = [float(p) for p in ax.xaxis.convert_units(list(categories))]
    ax.xaxis.set_major_locator(FixedLocator(positions))
    ax.xaxis.set_major_formatter(
        _category_formatter(ax, dict(zip(positions, categories, strict=True)))
    )


#: The share of the room between two categories' ticks that a category's label may take:
#: the rest keeps it apart from the next one's, and the label of the last category from
#: the first of the panel beside it, its half spilling past its axes' edge.
CATEGORY_LABEL_SHARE = 0.6


def _category_formatter(ax: Axes, labels: dict[float, str]) -> Any:
    """A tick formatter writing the category ``labels`` (by their place on the x axis of
    ``ax``), each broken at its spaces to :data:`CATEGORY_LABEL_SHARE` of the room one
    category has on the axes as drawn: the layout, which places the axes, asks for the
    labels again after it, so they fit the axes' final width. A word wider than that
    room stays whole. (A class made here: matplotlib is imported by plotting only.)"""
    import textwrap

    from matplotlib.ticker import Formatter

    class CategoryLabels(Formatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            label = labels.get(float(x), "")
            lo, hi = ax.get_xlim()
            per_category = ax.get_window_extent().width / max(abs(hi - lo), 1.0)
            room = int(CATEGORY_LABEL_SHARE * per_category / _tick_character(ax))
            lines = textwrap.wrap(label, max(room, 1), break_long_words=False,
                                  break_on_hyphens=False)  # fmt: skip
            return "\n".join(lines) or label

    return CategoryLabels()


def _tick_character(ax: Axes) -> float:
    """The width (pixels) of a character of the tick labels' font on ``ax``."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    font = FontProperties(size=matplotlib.rcParams["xtick.labelsize"]).get_size_in_points()
    return CHARACTER_WIDTH * font * ax.figure.dpi / 72


#: Room between two tick labels, and a label's width, in characters of the tick font
#: (a digit is about 0.6 of the font's size wide).
TICK_GAP_CHARACTERS = 1.0
CHARACTER_WIDTH = 0.6


def _values_with_room(ax: Axes, values: np.ndarray, marked: float | None = None) -> list[float]:
    """The sorted ``values`` whose tick labels fit on the x axis as drawn now, from
    the left: a value whose label would run into the last one kept, or into that of
    ``marked`` (one of ``values``, ticked whatever the others), is left unticked, and
    the last value is ticked in place of the one before it where need be (not in place
    of ``marked``). Tried values 20, 21, 22, 23, 25, 30, 35, 40 on a plot 330 px wide
    read "20212223"; a tuning that found 25 among 24, 25, 26 ticked 24 and 26."""
    lo, hi = ax.get_xlim()
    if hi <= lo or len(values) < 2:
        return list(values)
    pixels_per_unit = ax.get_window_extent().width / (hi - lo)
    character = _tick_character(ax)

    def room(a: float, b: float) -> bool:
        half_labels = (len(f"{a:g}") + len(f"{b:g}")) / 2 + TICK_GAP_CHARACTERS
        return (b - a) * pixels_per_unit >= half_labels * character

    def fits(value: float, kept: list[float]) -> bool:
        clear = marked is None or value > marked or room(value, marked)
        return (not kept or room(kept[-1], value)) and clear

    kept: list[float] = []
    for value in map(float, values):
        if value == marked or fits(value, kept):
            kept.append(value)
    last = float(values[-1])
    if kept[-1] != last and len(kept) > 1 and kept[-1] != marked:
        kept[-1] = last
    elif kept[-1] != last and room(kept[-1], last):
        kept.append(last)
    return kept


# -- sweep page ----------------------------------------------------------------------------


def _sweep_pictures(sweep: SweepResult, moving: pd.DataFrame) -> list[Picture]:
    pictures = []
    attacks = sweep.attacks()
    for pair in moving.itertuples(index=False):
        title = f"{pair.attacker} {pair.attack} → {pair.defender}: damage curve"
        rows = attacks
        for key in PAIR:
            rows = only_rows(rows, key, getattr(pair, key))
        figures = pair_figures(sweep, rows)

        def damage_curve(fig: Figure, p: Any = pair, shown: list[str] = figures) -> None:
            axes = fig.subplots(1, len(shown), squeeze=False)[0]
            for ax, figure in zip(axes, shown, strict=True):
                _sweep_plot(sweep, figure, ax, {"attacker": p.attacker, "attack": p.attack,
                                                "defender": p.defender}, None)  # fmt: skip
            _break_wide_names(fig, axes)
            _legend_below_when_long(fig, axes, _shared_legend(fig, *axes))

        # at the page's 100 dpi, three panels as wide as the page (1,100 px): shown at
        # full size, their ticks as legible as the other pictures'
        size = (11.0 * len(figures) / len(PAIR_FIGURES), 3.4)
        pictures.append(Picture(f"damage-{_slug(title)}.png", title, _png(damage_curve, size),
                                "damage"))  # fmt: skip
    for figure, title in (("down_rate", "Down rate"), ("mean_time_to_down", "Mean time-to-down"),
                          ("median_time_to_down", "Median time-to-down"),
                          ("win_rate", "Win rate")):  # fmt: skip
        curve = functools.partial(_outcome_curve, sweep=sweep, figure=figure)
        kind = "sides" if figure == "win_rate" else "outcome"
        caption = median_gaps(sweep) if figure == "median_time_to_down" else ""
        pictures.append(Picture(f"{_slug(figure)}.png", title, _png(curve, (7.0, 3.6)), kind,
                                ": ".join(filter(None, (title, caption))),
                                _png(curve, PHONE_SIZE)))  # fmt: skip
    return pictures


def median_gaps(sweep: SweepResult) -> str:
    """What the median time-to-down plot's marks in its row above the plot mean: the
    points where a combatant's median is not reached by the round cap (fewer than half
    the encounters had it down), which have no height to draw at, and the arrows of
    intervals whose upper end is not reached, where there are any; "" where every
    median is reached. The combatants are named in the legend's order (those the page
    leaves out, :func:`shown_combatants`, not at all)."""
    frame = shown_combatants(sweep)
    missing = frame[~np.isfinite(frame.median_time_to_down.to_numpy(dtype=float))]
    if missing.empty:
        return ""
    points = len(sweep.points)
    named = []
    for name in dict.fromkeys(frame.combatant):  # in the legend's order
        rows = missing[missing.combatant == name]
        where = "at every point" if len(rows) == points else f"{len(rows)} of {points} points"
        named.extend([f"{name} ({where})"] if len(rows) else [])
    label = not_reached_label(_round_caps(sweep)).replace("\n", " ")
    lo, hi = (frame[f"{MEDIAN}_ci95_{end}"].to_numpy(dtype=float) for end in ("lo", "hi"))
    arrows = (np.isfinite(lo) & ~np.isfinite(hi)).any()  # as _median_marks draws them
    return (
        f"In the grey row above the plot, “{label}”, a line's marker where fewer than half "
        f"the encounters had the combatant down by the round cap: {', '.join(named)}"
        + ("; an arrow up to the plot's top edge: an interval whose upper end is not "
           "reached." if arrows else ".")
    )  # fmt: skip


#: A page's picture of one plot as a phone shows it (:attr:`Picture.phone_png`): as wide
#: as its page, where a legend beside the plot was off-screen; the legend goes under it.
PHONE_SIZE = (PHONE_WIDTH, 3.2)


def _outcome_curve(fig: Figure, sweep: SweepResult, figure: str) -> None:
    """The picture of one of a sweep's down-rate, time-to-down or win-rate curves, its
    legend beside the plot, or under it where too wide (a phone's, :data:`PHONE_SIZE`)."""
    ax = fig.subplots()
    _sweep_plot(sweep, figure, ax, {}, None, _left_out(sweep, figure))
    legend_outside(ax)  # beside, as the page's pictures place it (not under the axes)
    _break_wide_names(fig, [ax])  # wider than a phone's picture: broken, and made anew
    legend_outside(ax)
    _legend_below_when_long(fig, [ax], ax.get_legend())


def _legend_on_new_figure(ax: Axes) -> None:
    """The legend of a sweep plot on a figure of its own (no ``ax=``) held by it: names
    wider than the figure broken at their `` = `` joints (the lines drawn as one,
    :func:`_line_names`, :func:`_exact_line`), the legend under the plot where too wide
    beside it (:func:`_legend_below_when_long`), and the figure widened to a name that
    is still wider. Beside the plot, ``savefig`` cut the names off at the figure's edge
    and constrained layout gave up."""
    fig = cast("Figure", ax.figure)  # a new figure's
    if ax.get_legend() is None:
        return
    _break_wide_names(fig, [ax])
    legend_outside(ax)
    _legend_below_when_long(fig, [ax], ax.get_legend())
    for legend in [*fig.legends, ax.get_legend()]:
        if legend is not None:
            need = legend.get_window_extent().width / fig.dpi + FIGURE_MARGIN
            fig.set_figwidth(max(fig.get_figwidth(), need))


def _break_wide_names(fig: Figure, axes: Sequence[Axes]) -> None:
    """Break each name of the legends of ``axes`` wider than ``fig`` at its `` = ``
    joints (the lines drawn as one, :func:`_line_names`, :func:`_exact_line`), so that a
    legend made of them anew fits the figure: a grid sweep's damage picture centred
    under its panels names of 105 characters, cut off at both edges with their keys."""
    room = 0.9 * (fig.bbox.width - FIGURE_MARGIN * fig.dpi)  # a handle's width is spared
    for ax in axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        handles, names = ax.get_legend_handles_labels()
        widths = [t.get_window_extent().width for t in legend.get_texts()]
        for handle, name, width in zip(handles, names, widths, strict=True):
            if width > room:
                handle.set_label(_broken(name, max(1, int(len(name) * room / width))))


#: A legend beside a sweep plot on the caller's axes wider than this share of the axes
#: goes under them: beside, the names of a busy sweep (two varied fields, every pair)
#: squeezed the plot to a strip, and a figure with constrained layout gave up ("axes
#: sizes collapsed to zero").
WIDE_LEGEND = 0.5
#: The gap (points) between the x axis's label and a legend under the axes.
LEGEND_GAP = 4.0


def _legend_under_when_wide(ax: Axes) -> None:
    """Move the legend beside the caller's ``ax`` under its x axis's label where wider
    than :data:`WIDE_LEGEND` of the axes, in as many columns as the axes' width holds: a
    layout engine then makes the axes shorter, not narrower."""
    from matplotlib.transforms import offset_copy

    legend, fig, plot = ax.get_legend(), cast("Figure", ax.figure), ax.get_window_extent()
    room = plot.width
    if legend is None or (width := legend.get_window_extent().width) <= WIDE_LEGEND * room:
        return
    legend.remove()
    depth = plot.y0 - (ax.get_tightbbox() or plot).y0  # its ticks and x label, pixels
    handles, names = ax.get_legend_handles_labels()
    under = offset_copy(ax.transAxes, fig=fig, y=-(depth * 72 / fig.dpi + LEGEND_GAP),
                        units="points")  # fmt: skip
    ax.legend(handles, names, fontsize=LEGEND_FONT, loc="upper center", frameon=False,
              bbox_to_anchor=(0.5, 0.0), bbox_transform=under, borderaxespad=0.0,
              ncol=max(1, min(len(names), int(room // width))))  # fmt: skip


def _broken(name: str, chars: int) -> str:
    """A legend ``name`` broken onto lines of at most ``chars`` characters at its
    `` = `` joints (the lines drawn as one), and within a part longer than that at its
    `` · `` joints (a grid's fields and subject: a phone's picture is 360 px wide), each
    line but the last ending with the ``=`` or ``·`` it was broken at (a piece longer
    than ``chars`` stays whole)."""
    lines: list[str] = []
    for k, part in enumerate(name.split(" = ")):
        for j, piece in enumerate(part.split(" · ")):
            joint = " · " if j else " = " if k else ""
            if not lines or len(lines[-1]) + len(joint) + len(piece) <= chars:
                lines[-1:] = [(lines[-1] if lines else "") + joint + piece]
            else:
                lines[-1] += joint.rstrip()
                lines.append(piece)
    return "\n".join(lines)


def _flat_note(flat: pd.DataFrame, total: int, level: float) -> str:
    """What the damage-curve part says of the pairs it does not draw (:func:`moving_pairs`,
    its intervals at ``level``)."""
    if flat.empty:
        return ""
    by_attack = flat.groupby(PAIR[:2], sort=False)
    names = "; ".join(f"{attacker} {attack} → {', '.join(rows.defender)}"
                      for (attacker, attack), rows in by_attack)  # fmt: skip
    return (f" Not drawn, {len(flat)} of {counted(total, 'pair')}: the sweep did not move "
            f"them (at "
            f"every point their intervals share a value, and their exact answer, where "
            f"known, is the same); the table has their figures: {names}. "
            f"{joint_intervals_note(level)}")  # fmt: skip


def _sweep_rows(sweep: SweepResult) -> tuple[list[str], list[list[str]]]:
    frame = sweep.attacks()
    crits = "crit_rate" in pair_figures(sweep, frame)
    # every exact answer the damage curves draw dashed: the hit rate's too, which the
    # table left out
    exact = ["hit_rate", *(["crit_rate"] if crits else []), "mean_damage"]
    header = [*sweep.fields, "attacker", "attack", "defender", _column("hit_rate"),
              *([_column("crit_rate")] if crits else []), _column("mean_damage"),
              *(_column(f, exact=True) for f in exact)]  # fmt: skip
    crit = crit_cells(sweep, frame, _interval) if crits else []  # "—" where it cannot crit
    rows = [[*point_cells(r, sweep), r.attacker, r.attack, r.defender, _interval(r, "hit_rate"),
             *([crit[k]] if crits else []), _interval(r, "mean_damage"),
             *(exact_number(r[f"exact_{f}"], f) for f in exact)]
            for k, (_, r) in enumerate(frame.iterrows())]  # fmt: skip
    return header, rows


def _combatant_rows(sweep: SweepResult) -> tuple[list[str], list[list[str]]]:
    """The time-to-down table; the exact mean's column only where the exact engine gives
    one (a duel's): a fight's was a column of "—" at every point."""
    frame = shown_combatants(sweep)
    exact = "exact_mean_time_to_down" in frame  # sweep.combatants() drops it when empty
    header = [*sweep.fields, "combatant", _column("down_rate"), _column("mean_time_to_down"),
              _column("median_time_to_down"),
              *[_column("mean_time_to_down", exact=True)] * exact]  # fmt: skip
    rows = [[*point_cells(r, sweep), r.combatant, _interval(r, "down_rate"),
             _interval(r, "mean_time_to_down"), median_cell(r),
             *[exact_number(r.get("exact_mean_time_to_down"))] * exact]
            for _, r in frame.iterrows()]  # fmt: skip
    return header, rows


def _column(figure: str, exact: bool = False) -> str:
    """A sweep table's header of ``figure``, with its unit where its name does not say
    it, as the terminal names it (:func:`~simlab.report.tuning_terminal.figure_labels`):
    ``mean damage (HP) [95%]``; ``exact``, the exact answer's: ``exact mean damage
    (HP)``."""
    (name,) = figure_labels([figure])
    return f"exact {name}" if exact else f"{name} [95%]"


def _side_rows(sweep: SweepResult) -> tuple[list[str], list[list[str]]]:
    frame = shown_sides(sweep)
    header = [*sweep.fields, "side", "wins", "win rate [95%]"]
    rows = [[*point_cells(r, sweep), str(r.side), f"{r.wins:,}",
             _interval(r, "win_rate")] for _, r in frame.iterrows()]  # fmt: skip
    return header, rows


def _interval(row: Any, name: str) -> str:
    """Figure ``name`` of a table row with its 95% interval, as every page shows one."""
    return interval_cell(row, name, bracketed=True)


_PAGE = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
{{ stylesheet }}</style></head><body>
<h1>{{ title }}</h1>
<p class="note">{{ whole(identity) }}</p>
{% if lead %}<p class="note">{{ whole(lead) }}</p>
{% endif %}{% for heading, note, table, pictures, folded in parts %}<h2>{{ heading }}</h2>
{% for paragraph in note.split(paragraph_break) %}<p class="note">{{ whole(paragraph) }}</p>
{% endfor %}
{% for p in pictures %}<figure><picture>{% if p.phone_png %}<source media="{{ phone }}"
srcset="{{ p.phone_data_uri }}">{% endif %}<img alt="{{ p.title }}" src="{{ p.data_uri }}">
</picture><figcaption>{{ p.caption or p.title }}</figcaption></figure>{% endfor %}
{% if folded %}<details><summary>{{ folded }}</summary>{{ table }}</details>
{% else %}{{ table }}{% endif %}
{% endfor %}</body></html>
""",
    autoescape=True,
)

_DAMAGE_NOTE = ("{figures} (misses 0) of each attack against "
                "each defender at every point, with 95% bands; dashed: the exact answer "
                "against a fresh defender where the exact engine gives one and the fight "
                "does not move the figure away from it, in its curve's colour where a "
                "plot has several curves, black where it has one (and for the answer of "
                "several curves alike, named after them). Every point "
                "ran on the same seed (common random numbers).")  # fmt: skip
_NO_CURVE_NOTE = ("{figures} (misses 0) of each attack against each defender at every "
                  "point, in the table: no curve is drawn. Every point ran on the same seed "
                  "(common random numbers).")  # fmt: skip
_OUTCOME_NOTE = ("Down rate; mean time-to-down among the encounters in which the "
                 "combatant went down by the round cap{exact}. {median}")  # fmt: skip
#: The time-to-down note's words on the exact line, where one is drawn (a duel's).
_EXACT_TIME_NOTE = " (dashed: the exact duel's, read the same way)"
_SIDES_NOTE = "Win rate of each side, and the draw rate, at every point."
#: The comparison page's note, a paragraph each: what its columns are, what its marks
#: say, and two figures' fine print (one paragraph of 120 words was not read).
_COMPARE_NOTE = (
    ("diff = B − A. Paired: the 95% interval of the difference measured on the same dice "
     "(K contiguous ranges of encounters, t on the per-range differences). Independent: "
     "the interval the same difference would have from two independent runs of this size."),
    ("Figures whose paired interval excludes 0 come first: CHANGED when the change also "
     "holds after Holm's correction for all the figures compared (Holm p below 0.05), "
     "changed when it holds for this figure alone (about one in twenty unchanged figures "
     "is marked so by chance)."),
    FEW_EVENTS_NOTE.replace("under ×", "under narrower ×"),
    MEAN_TIME_TO_DOWN_NOTE[0].upper() + MEAN_TIME_TO_DOWN_NOTE[1:],
)  # fmt: skip
#: Where a page's note is split into paragraphs.
PARAGRAPH = "\n\n"


#: One part of a page: heading, note, (table header, rows), pictures.
PagePart = tuple[str, str, tuple[list[str], list[list[str]]], list[Picture]]


#: A page's table longer than this, under pictures that show its figures, is folded away.
FOLDED_ROWS = 24


def _folded(rows: list[list[str]], pictures: list[Picture]) -> str:
    """The summary line a long table of a page is folded under, or "" to show it: a
    table under pictures of its figures is their reference, and at every point of a
    sweep (hundreds of rows) it buried the next section's pictures."""
    if not pictures or len(rows) <= FOLDED_ROWS:
        return ""
    return f"the table: every figure at every point ({len(rows):,} rows)"


def _write_page(out: Path, stem: str, title: str, identity: str,
                parts: list[PagePart], lead: str = "") -> dict[str, Path]:  # fmt: skip
    """The page and its Markdown: ``identity`` under the title, then ``lead`` (a note
    on the whole page, as a sweep's stops), then each part."""
    written: dict[str, Path] = {}
    for _, _, _, pictures in parts:
        for p in pictures:
            written[p.file] = atomic_write(out / PNG_DIR / p.file, _bytes_writer(p.png))
    html = _PAGE.render(stylesheet=Markup(STYLESHEET), title=title, identity=identity,
                        lead=lead, paragraph_break=PARAGRAPH, whole=whole_words,
                        phone=PHONE_MEDIA, parts=[
        (h, n, _html_table(*table), pics, _folded(table[1], pics))
        for h, n, table, pics in parts])  # fmt: skip
    markdown = [f"# {md_text(title)}", "", md_text(identity), ""]
    markdown += [md_text(lead), ""] if lead else []
    for heading, note, table, pictures in parts:
        markdown += [f"## {md_text(heading)}", ""]
        markdown += [line for p in note.split(PARAGRAPH) for line in (md_text(p), "")]
        markdown += [md_picture(p) for p in pictures]
        markdown += [""] if pictures else []
        markdown += [_md_table(*table), ""]
    written["html"] = atomic_write(out / f"{stem}.html", _text_writer(html))
    written["markdown"] = atomic_write(out / f"{stem}.md", _text_writer("\n".join(markdown)))
    return written


def render_sweep(sweep: SweepResult, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``sweep.html``, ``sweep.md`` and their PNGs into ``out_dir``, atomically.

    Returns
    -------
    dict of str to Path
        What was written: ``html``, ``markdown`` and one entry per PNG.
    """
    moving, flat = moving_pairs(sweep)
    pictures = _sweep_pictures(sweep, moving)
    fixed = f" with {', '.join(sweep.overrides)}" if sweep.overrides else ""
    identity = (f"scenario {sweep.scenario} ({sweep.rules}){fixed} · seed {sweep.seed} · "
                f"{sweep.per_point()} · {counted(len(sweep.points), 'point')} · "
                f"varied: {', '.join(sweep.fields)} · simlab {__version__}")  # fmt: skip
    # no crit rate where no pair can crit (:func:`pair_figures`): no panel shows one
    named = [f.replace("_", " ") for f in pair_figures(sweep, sweep.attacks())]
    figures = f"{', '.join(named[:-1])} and {named[-1]}".capitalize()
    flat_note = _flat_note(flat, len(moving) + len(flat), moving_level(sweep))
    # the terminal's line under its table of unchanged pairs, a paragraph of its own
    few = few_attacks_note(few_attacks(sweep), len(sweep.points))
    flat_note += PARAGRAPH + few if few else ""
    crits = sweep_crit_note(sweep)  # the terminal's words on a crit rate of "—"
    flat_note += PARAGRAPH + crits if crits else ""
    curves = [p for p in pictures if p.kind == "damage"]
    damage_note = (_DAMAGE_NOTE if curves else _NO_CURVE_NOTE).format(figures=figures) + flat_note
    exact = "exact_mean_time_to_down" in sweep.combatants()  # dropped when empty
    # the rows the terminal leaves out, and its lines that say so
    unattacked, silent = (
        never_attacked_note(never_attacked(sweep)),
        never_winning_note(never_winning(sweep)),
    )
    time_note = _OUTCOME_NOTE.format(
        exact=_EXACT_TIME_NOTE if exact else "", median=median_note(shown_combatants(sweep))
    )
    with held_to(sweep_half_width(sweep)):  # a half-width within its limit reads so
        parts: list[PagePart] = [
            # no heading of curves over a table alone, where the sweep moved no pair
            ("Damage curves" if curves else "Damage", damage_note, _sweep_rows(sweep), curves),
            ("Time-to-down", PARAGRAPH.join(filter(None, (time_note, unattacked))),
             _combatant_rows(sweep), [p for p in pictures if p.kind == "outcome"]),
            ("Outcome", PARAGRAPH.join(filter(None, (_SIDES_NOTE, silent))), _side_rows(sweep),
             [p for p in pictures if p.kind == "sides"]),
        ]  # fmt: skip
    title = f"Sweep of {sweep.scenario}"
    lead = " ".join(f"{note}." for note in sweep.notes)  # flat numbers for dice
    return _write_page(Path(out_dir), "sweep", title, identity, parts,
                       " ".join(filter(None, (lead, sweep.stops_said()))))  # fmt: skip


COMPARE_HEADER = ["", "figure", "on", "A", "B", "diff (B − A)", "paired 95%",
                  "Holm\u00a0p", "independent 95%", "narrower ×"]  # fmt: skip


def compare_rows(comparison: Comparison) -> list[list[str]]:
    """One row per figure: CHANGED (after Holm's correction), changed (this figure
    alone) or same, figure, subject, A, B, diff, the paired interval, the Holm-adjusted
    p-value and the independent interval."""
    rows = []
    for r in comparison.figures.itertuples():
        # as many decimals as the paired interval needs, so that a rare figure moved a
        # little on the same dice reads 0.0000014 [...], not 0.0000 [-0.0001, -0.0000]
        # (the terminal's, and beyond its 4 decimals where the interval is that narrow)
        n = _off_0(r.diff_ci_lo, r.diff_ci_hi, compare_digits(r, most=12))
        status = "CHANGED" if r.changed_holm else "changed" if r.changed else "same"
        none = r.diff == r.diff_ci_lo == r.diff_ci_hi == 0  # B − A is 0 in every encounter
        rows.append([status, figure_labels([r.figure])[0], r.on or "—",
                     _number(r.a, n, r.figure), _number(r.b, n, r.figure),
                     "0" if none else _signed(r.diff, n),
                     "[0, 0]" if none else bounds(r.diff_ci_lo, r.diff_ci_hi, n, sign="+"),
                     unbroken(format_p(r.p_holm)), independent_bounds(r, n),
                     times_narrower(r.narrowing)])  # fmt: skip
    return rows


def _signed(diff: float, digits: int) -> str:
    """A difference with its sign, ``+0.140`` or ``-0.015``, as the terminal writes it."""
    return formatted(diff, f"+.{digits}f") if math.isfinite(diff) else decimals(diff, digits)


def _off_0(lo: float, hi: float, digits: int) -> int:
    """``digits``, or more where an interval that excludes 0 would reach it with its
    bounds rounded outwards (``[-0.000004, 0.000000]`` for a hi of -1e-07): the
    decimals of its bound nearest 0."""
    if lo > 0 or hi < 0:
        return max(digits, -math.floor(math.log10(min(abs(lo), abs(hi)))))
    return digits


def _compared_rules(comparison: Comparison) -> str:
    """The rules of a comparison's header: ``rules zones-3d6``, or both where A and B
    follow different ones (``rules shattered-spirits (A), shattered-spirits-draft1 (B)``)."""
    a, b = comparison.a.rules, comparison.b.rules
    return f"rules {a}" if a == b else f"rules {a} (A), {b} (B)"


def render_compare(comparison: Comparison, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``compare.html`` and ``compare.md`` into ``out_dir``, atomically."""
    a, b = comparison.labels
    identity = (f"A: {a} · B: {b} · {_compared_rules(comparison)} · seed {comparison.a.seed} · "
                f"{counted(comparison.a.encounters, 'encounter')} each, the same dice · "
                f"K = {comparison.ranges} ranges · simlab {__version__}")  # fmt: skip
    notes = (identical_note(comparison), comparison.rules_note(), *_COMPARE_NOTE,
             not_compared_note(comparison))  # fmt: skip
    note = PARAGRAPH.join(filter(None, notes))
    parts: list[PagePart] = [("Figures", note, (COMPARE_HEADER, compare_rows(comparison)), [])]
    stopped = comparison.precision_note()  # run to a precision: as the terminal says it
    return _write_page(Path(out_dir), "compare", "A/B comparison", identity, parts,
                       f"Precision: {stopped}." if stopped else "")  # fmt: skip


def sweep_tables(sweep: SweepResult) -> dict[str, pd.DataFrame]:
    """The tidy tables written as Parquet: one column per varied field, then the figures.
    A field whose values are maps holds them as the scenario file writes them,
    ``{12: crit}`` (Parquet has no map of integer keys: ``--out`` of such a sweep
    failed)."""
    tables = {"attacks": sweep.attacks(), "damage_pmf": sweep.damage_pmf(),
              "combatants": sweep.combatants(), "sides": sweep.sides()}  # fmt: skip
    return {name: _maps_written(sweep, table) for name, table in tables.items()}


def _maps_written(sweep: SweepResult, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each varied field whose values are maps as text, ``{12: crit}``
    (:meth:`~simlab.tuning.sweep.SweepResult.value_said`)."""
    for f in sweep.fields:
        if table[f].map(lambda value: isinstance(value, dict)).any():
            table[f] = table[f].map(functools.partial(sweep.value_said, f))
    return table


# -- tune page -------------------------------------------------------------------------------


#: How the tune plot marks the target's value and the range of values consistent with it.
TARGET_STYLE: dict[str, Any] = {"color": "C3", "linestyle": "--", "linewidth": 1.2}
CONSISTENT_STYLE: dict[str, Any] = {"color": "C2", "alpha": 0.15, "linewidth": 0}


@checked_arguments()
def plot_tune(result: TuneResult, *, ax: Axes | None = None) -> pd.DataFrame:
    """Draw a tuning's figure at every value tried, with its 95% interval, against the
    target (a dashed line) and the values consistent with it (a green band).

    Parameters
    ----------
    result : TuneResult
        From :func:`simlab.tune`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    pandas.DataFrame
        The values drawn, one row each, in increasing order (a value whose figure nobody
        reaches, NaN, has no mark and no row): the varied field's value (a column named
        after it, ``Kaito.hp``), the figure (named after it, ``win_rate``) with its 95%
        interval (``*_ci95_lo``, ``*_ci95_hi``; ``inf`` where the round cap does not
        reach it), ``method`` (``exact`` or ``simulated``) and ``best`` (the value
        found, ringed). The columns of :meth:`TuneResult.evaluated` of the same names.

    Notes
    -----
    Simulated values are dots with error bars, exact ones open black diamonds
    (:data:`~simlab.report.plots.EXACT_MARKER`), the value found (or, where the target is
    not reached, the closest) ringed; a figure the
    round cap does not reach (a median time-to-down, ``not reached``) a dot in a grey
    row above the plot, labelled ``not reached by the round cap``
    (:func:`not_reached_row`). The legend sits beside the plot.
    """
    from simlab.report.plots import EXACT_MARKER
    from simlab.tuning import tune

    instance_argument(result, tune.TuneResult, "simlab.tune")

    ax = axes_or_new(ax)
    figure = result.target.figure.figure
    done = result.evaluations
    simulated = [e for e in done if e.method != "exact" and math.isfinite(e.figure)]
    exact = [e for e in done if e.method == "exact" and math.isfinite(e.figure)]
    step = 0.5 if result.integer else 0.0  # a whole value's own width, where lo == hi
    consistent = [(c.lo, c.hi) for c in result.crossings if c.consistent]  # several: it turns
    for k, (lo, hi) in enumerate(consistent or ([result.consistent] if result.consistent else [])):
        ax.axvspan(lo - step, hi + step, **CONSISTENT_STYLE,
                   label="_" if k else "consistent with the target")  # fmt: skip
    ax.axhline(result.target.value, **TARGET_STYLE, label=f"target {result.target.value:g}")
    if simulated:
        ax.errorbar([e.value for e in simulated], [e.figure for e in simulated],
                    yerr=_tune_errors(simulated), fmt="o", color="C0", markersize=4,
                    capsize=3, elinewidth=1, label="simulated [95%]")  # fmt: skip
    if exact:
        ax.plot([e.value for e in exact], [e.figure for e in exact], **EXACT_MARKER,
                label="exact")  # fmt: skip
    best = result.best
    if result.measured and math.isfinite(best.figure):
        ax.plot([best.value], [best.figure], linestyle="none", marker="o", markersize=12,
                markerfacecolor="none", markeredgecolor="C3", markeredgewidth=1.5,
                label=f"{'found' if result.reachable else 'closest'}: {best.value:g}")  # fmt: skip
    unreached = [e.value for e in done if math.isinf(e.figure)]
    if unreached:
        ax.dataLim.update_from_data_x(np.asarray(unreached, dtype=float), ignore=False)
        ax.plot(unreached, [1.0] * len(unreached), **NOT_REACHED_STYLE, marker="o", color="C0",
                transform=not_reached_row(ax, not_reached_label([])), clip_on=False)  # fmt: skip
    ax.set_xlabel(result.field)
    on = result.target.figure.on
    label = axis_label(figure)
    set_ylabel(ax, f"{on}: {label}" if on else label)
    found = best.value if result.measured and math.isfinite(best.figure) else None
    _readable_axes(ax, figure, pd.Series([e.value for e in done]), found)
    legend_outside(ax)
    return _tune_drawn(result)


def _tune_drawn(result: TuneResult) -> pd.DataFrame:
    """What :func:`plot_tune` drew: the rows of :meth:`TuneResult.evaluated` with a mark."""
    figure = result.target.figure.figure
    table = result.evaluated()
    columns = [result.field, figure, f"{figure}_ci95_lo", f"{figure}_ci95_hi", "method", "best"]
    return table.loc[table[figure].notna(), columns].reset_index(drop=True)


def _tune_plot(fig: Figure, result: TuneResult) -> None:
    """The tune page's picture: :func:`plot_tune`, its legend under the plot where too
    wide beside it (a phone's, :data:`PHONE_SIZE`)."""
    ax = fig.subplots()
    plot_tune(result, ax=ax)
    _legend_below_when_long(fig, [ax], ax.get_legend())


def _tune_errors(done: Sequence[Any]) -> np.ndarray:
    """The error bars' lengths below and above each figure: to its interval's ends, none
    past an end the round cap does not reach."""
    figures = np.array([e.figure for e in done], dtype=float)
    lo = np.array([e.lo for e in done], dtype=float)
    hi = np.array([e.hi for e in done], dtype=float)
    below = np.where(np.isfinite(lo), figures - lo, 0.0)
    above = np.where(np.isfinite(hi), hi - figures, 0.0)
    return np.vstack([np.maximum(below, 0.0), np.maximum(above, 0.0)])


TUNE_HEADER_END = ["consistent with the target", "method", "encounters"]


def _tune_rows(result: TuneResult) -> tuple[list[str], list[list[str]]]:
    """The table of every value a tuning evaluated: the value (the one found marked ◀),
    its figure [95%], whether it is consistent with the target, how it was obtained and
    the encounters simulated for it."""
    t = result.target
    header = [result.field, f"{t.figure} [95%]", *TUNE_HEADER_END]
    rows = [[f"{e.value:g}" + (" ◀" if e.value == result.value else ""),
             tuned_figure(t.figure.figure, e, t.value, bracketed=True),
             "yes" if e.contains(t.value) else "no", e.method,
             "—" if e.encounters is None else f"{e.encounters:,}"]
            for e in result.evaluations]  # fmt: skip
    return header, rows


def _answer_row(result: TuneResult) -> tuple[list[str], list[list[str]]]:
    """The tune page's answer at a glance: the target, the value found, its figure and
    the values consistent with the target."""
    t = result.target
    found = f"{result.value:g}" + ("" if result.reachable else " (closest; not reached)")
    consistent = consistent_values(result) if result.measured else "—"
    header = ["target", f"{result.field} found", f"{t.figure} there [95%]",
              "consistent with the target"]  # fmt: skip
    figure = tuned_figure(t.figure.figure, result.best, t.value, bracketed=True)
    return header, [[str(t), found, figure, consistent.removeprefix(f"{result.field} = ")]]


_TUNE_PLOT_NOTE = ("The figure at every value tried, with its 95% interval (exact values: "
                   "open diamonds); dashed: the target; green: the values consistent with "
                   "it; ringed: the value found.")  # fmt: skip


def render_tune(result: TuneResult, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``tune.html``, ``tune.md`` and the PNG of the plot into ``out_dir``,
    atomically.

    Returns
    -------
    dict of str to Path
        What was written: ``html``, ``markdown`` and the PNG's entry.
    """
    fixed = f" with {', '.join(result.overrides)}" if result.overrides else ""
    identity = (f"scenario {result.scenario} ({result.rules}){fixed} · seed {result.seed} · "
                f"{result.field} over {result.lo:g}..{result.hi:g} · target {result.target} · "
                f"simlab {__version__}")  # fmt: skip
    title = f"{result.field} for {result.target}"
    picture = Picture("tune.png", title, _png(functools.partial(_tune_plot, result=result),
                                              (7.0, 3.6)), "tune",
                      phone_png=_png(functools.partial(_tune_plot, result=result),
                                     PHONE_SIZE))  # fmt: skip
    with held_to(result.precision):  # a half-width within its limit reads so
        parts: list[PagePart] = [
            # a paragraph a sentence: a caveat (the figure turns, a flat stretch) stands
            # out; each begins as the terminal's does: an answer begins with the field
            ("Answer", PARAGRAPH.join(f"{s}." for s in tune_sentences(result, bracketed=True)),
             _answer_row(result), []),
            ("Values tried", _TUNE_PLOT_NOTE, _tune_rows(result), [picture]),
        ]  # fmt: skip
    return _write_page(Path(out_dir), "tune", f"Tuning of {result.scenario}", identity, parts,
                       " ".join(f"{note}." for note in result.notes))  # fmt: skip
