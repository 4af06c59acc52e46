"""Terminal tables of the tuning commands: ``sweep``, ``compare`` and ``tune``.

Kept apart from the pages (:mod:`simlab.report.tuning`) so that printing them imports
neither matplotlib, jinja2 nor scipy.stats (about 2 s together on the 2-core machine):
a command imports only what it uses (issue 19). It prints through
``terminal.console``, looked up at each print, so that a caller (or a test) that puts
another console there is followed.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from simlab.analysis.stats import FEW_ATTACKS, RARE_EVENT_THRESHOLD
from simlab.report import terminal
from simlab.report.terminal import (
    EXACT_DECIMALS,
    EXACT_MOST_DECIMALS,
    MOST_DECIDING_DIGITS,
    NO_CRIT,
    NOT_REACHED,
    RATE_RANGE,
    Parts,
    bounds,
    broken_columns,
    broken_figures,
    console_table,
    covering_half,
    decimals,
    decimals_to_decide,
    estimate,
    exact_number,
    figure_range,
    formatted,
    interval_cell,
    is_wide,
    label_parts,
    median_and_interval,
    median_cell,
    name_column,
    nonzero_decimals,
    number_column,
    numbers_table,
    open_median,
    pair_heading,
    pair_parts,
    rounded_down,
    rounded_up,
    value_and_bounds,
)
from simlab.report.width import at_separators, items, listed, packed
from simlab.report.words import already, counted, never_down_note, unattacked_among

if TYPE_CHECKING:
    from rich.console import Group
    from rich.table import Table

    from simlab.tuning.compare import Comparison
    from simlab.tuning.sweep import SweepResult
    from simlab.tuning.tune import Evaluation, TuneResult

__all__ = ["print_compare", "print_sweep", "print_tune", "times_narrower"]


def times_narrower(ratio: float) -> str:
    """How many times narrower the paired interval is; "—" where there is no ratio (a
    figure tested otherwise, or one whose B − A is the same on every range)."""
    return decimals(ratio, 1)


def sweep_simulated_line(stops: Sequence[int], precision: Any = None) -> str:
    """What a sweep simulated, said before its tables where no progress bar showed it:
    the encounters at each point, as its header says them (a total, ``simulated 40,000
    encounters of 2 points``, was read as each point's): ``simulated 20,000 encounters
    at each of 2 points``; run to a precision, each point's stop, from the fewest to
    the most where they differ, and how the points stopped
    (:func:`~simlab.report.terminal.stopped_how`): ``simulated 3,125–12,500 encounters
    at each of 3 points (precision met; cap 20,000 each)``.

    Parameters
    ----------
    stops : sequence of int
        The encounters each point ran, one per point.
    precision : dict, optional
        The sweep's precision record as :func:`~simlab.report.terminal.simulated_line`
        takes it; None for a plain sweep.

    Returns
    -------
    str
    """
    low, high = min(stops), max(stops)
    each = counted(low, "encounter") if low == high else f"{low:,}–{high:,} encounters"
    at = f"at each of {counted(len(stops), 'point')}" if len(stops) > 1 else "at 1 point"
    return f"simulated {each} {at}{terminal.stopped_how(precision)}"


def _table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    table = console_table(title)
    for k, name in enumerate(header):
        name_column(table, name, [row[k] for row in rows])
    for row in rows:
        table.add_row(*row)
    return table


def _exact_cell(value: float) -> str:
    return exact_number(value)


def sweep_attack_tables(sweep: SweepResult, stacked: bool = False) -> list[Table]:
    """The damage curves as terminal tables: one per attack pair the sweep moves
    (:func:`simlab.tuning.sweep.moving_pairs`) with one row per point, figures as
    ``value ± half-width``, no crit column for a rule system without crits, nor where
    no pair of the table can crit (:func:`~simlab.tuning.sweep.pair_figures`); then one
    table of the pairs it leaves flat, each figure as the range of its estimates.
    ``stacked``: the varied values in one ``point`` column (:func:`point_cells`)."""
    return [build(False, slice(None)) for build, _ in _attack_layouts(sweep, stacked)]


#: A sweep's table as ``build(broken, columns)`` makes it
#: (:func:`~simlab.report.terminal.tables_printed_whole`), and how many of its first
#: columns name its rows.
_Layout = tuple[Callable[[bool, slice], "Table"], int]


def _attack_layouts(sweep: SweepResult, stacked: bool) -> list[_Layout]:
    """The layouts of :func:`sweep_attack_tables`: a table per pair the sweep moves,
    its rows named by the varied fields' columns, then the table of the pairs it leaves
    flat, named by the pair."""
    from simlab.tuning.sweep import PAIR, moving_pairs, pair_figures

    frame = sweep.attacks()
    moving, flat = moving_pairs(sweep)
    curves = frame.merge(moving, on=PAIR, sort=False)
    fields = 1 if stacked else len(sweep.fields)
    layouts: list[_Layout] = [
        (functools.partial(_curve_table, sweep, pair, curve,
                           pair_figures(sweep, curve), stacked), fields)
        for pair, curve in curves.groupby(PAIR, sort=False)]  # fmt: skip
    if not flat.empty:
        pairs = frame.merge(flat, on=PAIR, sort=False)
        layouts.append((functools.partial(_flat_pairs_table, sweep.can_crit, pairs,
                                          pair_figures(sweep, pairs)), 1))  # fmt: skip
    return layouts


def _curve_table(sweep: SweepResult, pair: tuple[str, str, str], curve: pd.DataFrame,
                 figures: list[str], stacked: bool, broken: bool = False,
                 columns: slice = slice(None)) -> Table:  # fmt: skip
    """The damage curve of one attack pair (``curve``, a row per point) with the
    ``columns`` of its figures after the varied fields' (``broken``:
    :func:`~simlab.report.terminal.broken_columns`). Its crit rate reads :data:`NO_CRIT`
    at a point where the pair cannot crit, exactly 0 there (:func:`crit_cells`)."""
    crits = "crit_rate" in figures
    exact = bool(curve.exact_mean_damage.notna().any())
    headers = ["hit rate", *(["crit rate"] if crits else []), "mean damage",
               *(["exact\nmean"] if exact else [])]  # fmt: skip
    crit = crit_cells(sweep, curve, _estimate) if crits else []
    rows = [[_estimate(r, "hit_rate"), *([crit[k]] if crits else []), _estimate(r, "mean_damage"),
             *([_exact_cell(r.exact_mean_damage)] if exact else [])]
            for k, (_, r) in enumerate(curve.iterrows())]  # fmt: skip
    headers, rows = broken_columns(headers, rows) if broken else (headers, rows)
    table = console_table(_curve_title(pair))
    _field_columns(table, sweep, stacked)
    for column in headers[columns]:
        number_column(table, column)
    for (_, r), cells in zip(curve.iterrows(), rows, strict=True):
        table.add_row(*point_cells(r, sweep, stacked), *cells[columns])
    return table


def crit_cells(
    sweep: SweepResult, rows: pd.DataFrame, cell: Callable[[Any, str], str]
) -> list[str]:
    """The crit rate's cells of ``rows`` (of
    :meth:`~simlab.tuning.sweep.SweepResult.attacks`), each as ``cell(row,
    "crit_rate")`` writes it, but :data:`NO_CRIT` where the row's pair cannot crit at its
    point (:meth:`~simlab.tuning.sweep.SweepResult.cannot_crit_rows`): exactly 0 there,
    which ``0 (< 4e-06)`` read as measured.

    Parameters
    ----------
    sweep : SweepResult
        The sweep.
    rows : pandas.DataFrame
        Rows of its attacks table.
    cell : callable
        Writes a row's figure: the terminal's ``value ± half-width``, the page's
        bracketed interval.

    Returns
    -------
    list of str
        One per row, in order.
    """
    whys = sweep.cannot_crit_rows(rows)
    return [NO_CRIT if why else cell(r, "crit_rate")
            for why, (_, r) in zip(whys, rows.iterrows(), strict=True)]  # fmt: skip


def _curve_title(pair: tuple[str, str, str]) -> str:
    """A damage curve's title, ``Kaito: quick-jab → Brute (± 95% interval)``, broken
    between the pair's names (:func:`~simlab.report.terminal.pair_parts`) where longer
    than the table is at least (:func:`~simlab.report.terminal.console_table`): rich
    broke it at any space, ``→ Grand Duke`` / ``Ferdinand of the Sunken Keep``."""
    room = min(terminal.console.width, terminal.TITLE_WIDTH)
    return "\n".join(packed([*pair_parts(*pair), "(± 95% interval)"], room))


def _flat_pairs_table(can_crit: Callable[..., bool], frame: pd.DataFrame, figures: list[str],
                      broken: bool = False, columns: slice = slice(None)) -> Table:  # fmt: skip
    """The attack pairs a sweep leaves flat, one row each: every one of ``figures`` as
    the lowest and highest estimate over the points (``0.547–0.549``; one number when
    they agree to the digits shown), and the exact mean damage where known; the
    ``columns`` of these alone (``broken``: their headers on a line a word)."""
    from simlab.tuning.sweep import PAIR

    pairs = frame.groupby(PAIR, sort=False)
    names = [Parts(pair_parts(*key), indent="  ") for key, _ in pairs]
    exact = bool(frame.exact_mean_damage.notna().any())
    headers = [f.replace("_", " ") for f in figures] + (["exact\nmean"] if exact else [])
    rows = [[_flat_cell(can_crit, key, pair, f) for f in figures]
            + ([_exact_cell(pair.exact_mean_damage.iloc[0])] if exact else [])
            for key, pair in pairs]  # fmt: skip
    headers, rows = broken_columns(headers, rows) if broken else (headers, rows)
    return numbers_table("unchanged across the sweep (lowest–highest over the points)",
                         "attack", names, headers[columns], [c[columns] for c in rows])  # fmt: skip


def _flat_cell(can_crit: Callable[..., bool], key: tuple[str, str, str], pair: pd.DataFrame,
               figure: str) -> str:  # fmt: skip
    """A flat pair's cell of ``figure`` (:func:`_value_range`), but ``—`` for the crit
    rate of a pair ``key`` that cannot crit at any point, beside pairs that can
    (``can_crit``, :meth:`~simlab.tuning.sweep.SweepResult.can_crit`): an attack with
    no crit row, whose ``0.000`` would read as measured (:func:`cannot_crit_flat`). One
    that can crit reads its rate, ``0.000`` where no crit came up."""
    if figure == "crit_rate" and not can_crit(*key):
        return NO_CRIT
    return _value_range(pair[figure], figure)


def flat_pair_rows(sweep: SweepResult) -> pd.DataFrame:
    """The rows of :meth:`~simlab.tuning.sweep.SweepResult.attacks` of the pairs the
    sweep leaves flat (:func:`~simlab.tuning.sweep.moving_pairs`), every point of each:
    what the table of unchanged pairs shows."""
    from simlab.tuning.sweep import PAIR, moving_pairs

    return sweep.attacks().merge(moving_pairs(sweep)[1], on=PAIR, sort=False)


def cannot_crit_flat(sweep: SweepResult) -> bool:
    """Whether the table of a sweep's unchanged pairs marks a crit rate ``—``
    (:func:`_flat_cell`): a crit rate column, and a pair in it that cannot crit at any
    point.

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    bool
    """
    from simlab.tuning.sweep import PAIR, pair_figures

    pairs = flat_pair_rows(sweep)
    if pairs.empty or "crit_rate" not in pair_figures(sweep, pairs):
        return False
    return not all(sweep.can_crit(*key) for key in pairs[PAIR].itertuples(index=False))


def _value_range(values: pd.Series, figure: str) -> str:
    """``lo–hi`` of ``values`` of ``figure``, to 3 decimals for a rate and 2 for a mean
    (more where one would read as 0 and is not), or one number when both read the same."""
    ends = (values.min(), values.max())
    within = figure_range(figure)
    digits = max(nonzero_decimals(x, 3 if within == RATE_RANGE else 2, within) for x in ends)
    lo, hi = (formatted(x, f".{digits}f") for x in ends)
    return lo if lo == hi else f"{lo}–{hi}"


def sweep_combatants_table(sweep: SweepResult, stacked: bool = False, broken: bool = False,
                           columns: slice = slice(None)) -> Table:  # fmt: skip
    """Down rate, time-to-down and win rate at every point, as a terminal table
    (``stacked``: the varied values in one column, :func:`point_cells`; ``broken``: the
    medians broken between figure and interval where long,
    :func:`~simlab.report.terminal.broken_figures`; ``columns``: those of its figures,
    after the combatant and the varied fields, alone)."""
    frame = shown_combatants(sweep)
    table = console_table("time-to-down (rounds, ± 95% interval)")
    name_column(table, "combatant", list(frame.combatant))
    _field_columns(table, sweep, stacked)
    exact = "exact_mean_time_to_down" in frame  # a column only where the engine answers
    headers = ["down rate", "mean if\ndowned", "median", *(["exact\nmean"] if exact else [])]
    for column in headers[columns]:
        number_column(table, column)
    rows = list(_grouped(frame, "combatant"))
    medians = [median_cell(r) for _, r, _ in rows]
    for (name, r, last), median in zip(rows, broken_figures(medians) if broken else medians,
                                       strict=True):  # fmt: skip
        cells = [_estimate(r, "down_rate"), _estimate(r, "mean_time_to_down"), median,
                 *([_exact_cell(r.exact_mean_time_to_down)] if exact else [])]  # fmt: skip
        table.add_row(name, *point_cells(r, sweep, stacked), *cells[columns],
                      end_section=last)  # fmt: skip
    return table


def shown_combatants(sweep: SweepResult) -> pd.DataFrame:
    """The sweep's time-to-down table as the terminal and the page show it:
    :meth:`SweepResult.combatants` but the combatants no one attacks at any point
    (:func:`never_attacked`).

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    pandas.DataFrame
    """
    frame = sweep.combatants()
    return frame[~frame.combatant.isin(never_attacked(sweep))].reset_index(drop=True)


def shown_sides(sweep: SweepResult) -> pd.DataFrame:
    """The sweep's outcome table as the terminal and the page show it:
    :meth:`SweepResult.sides` but the sides that never win as they never attack
    (:func:`never_winning`).

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    pandas.DataFrame
    """
    frame = sweep.sides()
    return frame[~frame.side.astype(str).isin(never_winning(sweep))].reset_index(drop=True)


def never_attacked(sweep: SweepResult) -> list[str]:
    """The combatants of a sweep that no one attacks at any of its points, and so never
    go down at any (the fighter of a one-sided duel against a dummy): the time-to-down
    table leaves out their rows of ``0 (< 0.008)`` and ``not reached`` at every point,
    which say nothing the sweep moves, and :func:`never_attacked_note` names them.

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    list of str
        Their names, in the order of the sweep's combatants.
    """
    attacks, combatants = sweep.attacks(), sweep.combatants()
    attacked = attacks.defender[attacks.attempts > 0]
    downed = combatants.combatant[combatants.down_rate > 0]
    return unattacked_among(combatants.combatant, attacked, downed)


def few_attacks(sweep: SweepResult) -> list[tuple[str, int, int]]:
    """The pairs of the table of unchanged pairs with fewer than :data:`FEW_ATTACKS`
    attacks at a point they were measured at, as (``pair_heading``, the fewest attacks,
    the points measured at): their intervals share a value however far their figures
    move (``Raider Chief: club → Berserker``, 1.000 at two points on one attack each).

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    list of (str, int, int)
    """
    from simlab.tuning.sweep import PAIR

    pairs = flat_pair_rows(sweep)
    out = []
    for key, pair in pairs.groupby(PAIR, sort=False):
        fewest = int(pair.attempts.min())
        if fewest < FEW_ATTACKS:
            out.append((pair_heading(*key), fewest, len(pair)))
    return out


def pair_names(sweep: SweepResult) -> list[str]:
    """The names in the sweep's attack pairs, attackers, attacks and defenders, each
    once: the parts a pair too long for a line is broken between, never inside one.

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    list of str
    """
    from simlab.tuning.sweep import PAIR

    frame = sweep.attacks()
    return list(dict.fromkeys(str(name) for column in PAIR for name in frame[column]))


def few_attacks_note(pairs: Sequence[tuple[str, int, int]], points: int) -> str:
    """The line under the sweep's tables naming the unchanged pairs of
    :func:`few_attacks` (of a sweep of ``points`` points), with the fewest attacks and
    the points each was measured at: not shown to be unchanged; "" for none."""
    if not pairs:
        return ""
    said = ", ".join(f"{name} ({counted(fewest, 'attack')} at the fewest"
                     + (f", at {measured} of {points} points)" if measured < points else ")")
                     for name, fewest, measured in pairs)  # fmt: skip
    return (
        f"Too few attacks to call unchanged (fewer than {FEW_ATTACKS} at a point): "
        f"{said}; intervals so wide share a value whether or not the figures move "
        "(more encounters, -n, would tell)."
    )


def never_attacked_note(names: Sequence[str]) -> str:
    """The line that says which combatants :func:`never_attacked` leaves out of the
    time-to-down table: ``Not listed, Fighter: never down at any point, as no one
    attacks it.``; "" for none."""
    return never_down_note("Not listed", names, " at any point")


def never_winning(sweep: SweepResult) -> list[str]:
    """The sides of a sweep that win at none of its points because none of their
    combatants attacks at any (the dummy's side of a one-sided duel): the outcome table
    leaves out their rows of ``0 (< 0.008)`` at every point, which read as a side that
    might yet win, and :func:`never_winning_note` names them.

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    list of str
        Their names, in the order of the sweep's sides.
    """
    attacks, combatants, sides = sweep.attacks(), sweep.combatants(), sweep.sides()
    attackers = set(attacks.attacker[attacks.attempts > 0])
    attacking = set(combatants.side[combatants.combatant.isin(attackers)])
    winning = set(sides.side[sides.wins > 0])
    names = dict.fromkeys(str(side) for side in combatants.side)
    return [name for name in names if name not in attacking | winning]


def never_winning_note(names: Sequence[str]) -> str:
    """The line that says which sides :func:`never_winning` leaves out of the outcome
    table: ``Not listed, the side pell: never wins at any point, as it makes no
    attack.``; "" for none."""
    if not names:
        return ""
    if len(names) == 1:
        return f"Not listed, the side {names[0]}: never wins at any point, as it makes no attack."
    return (f"Not listed, the sides {', '.join(names)}: never win at any point, as they make "
            f"no attack.")  # fmt: skip


def sweep_sides_table(sweep: SweepResult, stacked: bool = False, broken: bool = False,
                      columns: slice = slice(None)) -> Table:  # fmt: skip
    """Win rate of each side (and the draw rate) at every point, as a terminal table,
    but the sides that never win as they never attack (:func:`never_winning`)
    (``stacked``: the varied values in one column, :func:`point_cells`; ``broken``: the
    win rates broken between figure and interval where long; ``columns``: as for
    :func:`sweep_combatants_table`)."""
    frame = shown_sides(sweep)
    table = console_table("outcome (± 95% interval)")
    name_column(table, "side", [str(s) for s in frame.side])
    _field_columns(table, sweep, stacked)
    grouped = list(_grouped(frame, "side"))
    headers, rows = ["win rate"], [[_estimate(r, "win_rate")] for _, r, _ in grouped]
    headers, rows = broken_columns(headers, rows) if broken else (headers, rows)
    for column in headers[columns]:
        number_column(table, column)
    for (name, r, last), cells in zip(grouped, rows, strict=True):
        table.add_row(name, *point_cells(r, sweep, stacked), *cells[columns],
                      end_section=last)  # fmt: skip
    return table


def _grouped(frame: pd.DataFrame, key: str) -> Iterator[tuple[str, Any, bool]]:
    """The rows of ``frame`` by ``key``, in order: (the key on a group's first row, else
    "", the row, whether it is the group's last)."""
    for _, group in frame.groupby(key, sort=False):
        for k, (_, row) in enumerate(group.iterrows()):
            yield (str(row[key]) if k == 0 else ""), row, k == len(group) - 1


def _field_columns(table: Table, sweep: SweepResult, stacked: bool = False) -> None:
    """A column per varied field, headed by its whole name (``Orc.hp``): in a table of
    combatants, ``hp`` alone beside the Hero would read as the Hero's. A long name is
    broken after its dots, underscores and hyphens (:func:`field_heading`), on lines
    half as wide when several fields share the table. ``stacked``: one column,
    ``point``, whose fields :func:`point_key` names above the tables."""
    if stacked:
        name_column(table, POINT, [])
        return
    width = FIELD_HEADING_WIDTH if len(sweep.fields) == 1 else FIELD_HEADING_WIDTH // 2
    for name in sweep.fields:
        name_column(table, field_heading(name, width), [])


#: The heading of the one column of a stacked sweep table, and what parts its values.
POINT = "point"
POINT_SEPARATOR = " · "


def point_cells(row: Any, sweep: SweepResult, stacked: bool = False) -> list[str]:
    """The varied fields' values of a table row: one cell each, or (``stacked``) one cell
    of them all in the order of ``sweep.fields``, ``20 · 1 · 1d8``."""
    cells = [sweep.value_said(f, row[f]) for f in sweep.fields]
    return [POINT_SEPARATOR.join(cells)] if stacked else cells


def point_key(sweep: SweepResult) -> list[str]:
    """The line above stacked tables that says which field each value of a point is,
    ``point: Plate Knight.hp · Swordsman.hp``, in the parts it may be broken into
    (:func:`~simlab.report.width.items`)."""
    first, *rest = items(*sweep.fields)
    return [f"{POINT}: {first}", *rest]


#: The widest line of a varied field's heading in a sweep of one field.
FIELD_HEADING_WIDTH = 12


def field_heading(name: str, width: int = FIELD_HEADING_WIDTH) -> str:
    """``name`` on lines of at most ``width`` characters, broken only after a ``.``, a
    ``_`` or a ``-`` (a part longer than ``width`` keeps its own line whole):
    ``Hero.attacks_per_turn`` → ``Hero.`` / ``attacks_per_`` / ``turn``."""
    lines = [""]
    for part in filter(None, re.findall(r"[^._-]*[._-]?", name)):
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)


def _estimate(row: Any, name: str) -> str:
    """Figure ``name`` of a table row with its 95% interval (``value ± half-width``)."""
    return interval_cell(row, name)


#: The sweep's note under its tables, part by part: always, with an exact column, and
#: with the table of the pairs the sweep leaves flat (:func:`sweep_note`).
SWEEP_NOTE = (
    "Every point ran on the same seed (common random numbers).",
    "Exact: the exact mean damage against a fresh defender, or the exact mean "
    "time-to-down of a duel (among the encounters downed by the round cap, as "
    "simulated), where the exact engine answers the point.",
    "Mean if downed: among the encounters in which the combatant went down.",
    "Unchanged across the sweep: the attack pairs whose intervals share a value at "
    "every point and whose exact answer stays the same.",
)
#: What the sweep's note adds to a run's :data:`~simlab.report.terminal.CANNOT_CRIT_NOTE`
#: (:func:`sweep_crit_note`).
SWEEP_CANNOT_CRIT_NOTE = (
    "At such a point its crit rate is exactly 0; where it can crit and no crit came up, "
    "it reads a measured 0."
)


def joint_intervals_note(level: float) -> str:
    """What the intervals that tell moving pairs from flat ones are
    (:func:`simlab.tuning.sweep.moving_pairs`): each at ``level``, all of the sweep's
    together at ``1 − FALSE_MOVE_RATE``."""
    from simlab.tuning.sweep import FALSE_MOVE_RATE

    return (f"Those intervals are each at {terminal.level_percent(level)}, so that all of "
            f"the sweep's hold at once with {terminal.level_percent(1 - FALSE_MOVE_RATE)} "
            f"confidence.")  # fmt: skip


def sweep_note(sweep: SweepResult) -> str:
    """The note under a sweep's tables: what its columns mean, the exact column's and the
    unchanged pairs' only where the tables have them, the median's by its table's
    intervals (:func:`~simlab.report.terminal.median_note`)."""
    from simlab.tuning.sweep import moving_level, moving_pairs

    always, exact, downs, flat = SWEEP_NOTE
    exact_shown = any(column in frame and frame[column].notna().any() for frame, column in (
        (sweep.attacks(), "exact_mean_damage"),
        (sweep.combatants(), "exact_mean_time_to_down")))  # fmt: skip
    flat_shown = not moving_pairs(sweep)[1].empty
    unchanged = [flat, joint_intervals_note(moving_level(sweep))] if flat_shown else []
    crits = sweep_crit_note(sweep)
    median = terminal.median_note(shown_combatants(sweep))
    return " ".join([always, *([exact] if exact_shown else []), downs, median, *unchanged,
                     *([crits] if crits else [])])  # fmt: skip


def sweep_crit_note(sweep: SweepResult) -> str:
    """What a crit rate of :data:`NO_CRIT` in a sweep's attack tables means, in a run's
    words (:data:`~simlab.report.terminal.CANNOT_CRIT_NOTE`) with only the reasons that
    apply to the pairs and points marked so (:func:`no_crit_whys`), then that it is
    exactly 0 there; "" where none is.

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    str
        ``Crit rate —: the attack cannot crit (its profile has no crit row). At such a
        point …``.
    """
    whys = no_crit_whys(sweep)
    if not whys:
        return ""
    why = terminal.crit_whys_joined(whys)
    return f"{terminal.CANNOT_CRIT_NOTE.format(why=why)} {SWEEP_CANNOT_CRIT_NOTE}"


def no_crit_whys(sweep: SweepResult) -> list[str]:
    """Why the pairs cannot crit whose crit rate a sweep's attack tables mark
    :data:`NO_CRIT`, once for each cell so marked: at a point where a pair that crits
    elsewhere cannot (:func:`crit_cells`), and every point of a pair in the table of
    unchanged pairs that cannot crit at any (:func:`cannot_crit_flat`).

    Parameters
    ----------
    sweep : SweepResult
        The sweep.

    Returns
    -------
    list of str
        ``its profile has no crit row``, in the words of
        :meth:`~simlab.tuning.sweep.SweepResult.cannot_crit_why`.
    """
    from simlab.tuning.sweep import PAIR, moving_pairs, pair_figures

    frame = sweep.attacks()
    moving, flat = moving_pairs(sweep)
    curves = frame.merge(moving, on=PAIR, sort=False).groupby(PAIR, sort=False)
    whys = [why for _, curve in curves if "crit_rate" in pair_figures(sweep, curve)
            for why in sweep.cannot_crit_rows(curve)]  # fmt: skip
    if cannot_crit_flat(sweep):
        rows = frame.merge(flat, on=PAIR, sort=False)
        whys += [why for why, key in zip(sweep.cannot_crit_rows(rows),
                                          rows[PAIR].itertuples(index=False), strict=True)
                 if not sweep.can_crit(*key)]  # fmt: skip
    return [why for why in whys if why]


def print_sweep(sweep: SweepResult) -> None:
    """Print a sweep's damage curves, time-to-down and win rates as tables that fit the
    terminal (80 columns and up). A column per varied field where every table fits so;
    else (three or more fields, long names) one ``point`` column holds each point's
    values, ``20 · 1 · 1d8``, and a line above the tables names the fields in order.
    Points run to a precision show each half-width within its limit as within it
    (:func:`~simlab.report.terminal.held_to`)."""
    with terminal.held_to(sweep_half_width(sweep)):
        _print_sweep(sweep)


def sweep_half_width(sweep: SweepResult) -> float | None:
    """The precision H a sweep's points were run to; None where they ran a set size."""
    records = (p.result.meta.get("precision") for p in sweep.points if p.result is not None)
    return terminal.held_half_width(*records)


def _print_sweep(sweep: SweepResult) -> None:
    """:func:`print_sweep`'s heading, tables and notes."""
    fixed = terminal.overrides_heading(sweep.overrides_said())
    terminal.say_items(items(sweep.scenario, *fixed, at_separators(sweep.per_point()),
                             f"seed {sweep.seed}", listed("varied:", sweep.fields)))  # fmt: skip
    for note in sweep.notes:  # a dice field given whole numbers: flat numbers tried
        terminal.say_unbroken(note, whole=sweep.fields)
    stops = sweep.stops_said()  # run to a precision: which point stopped where
    if stops:
        terminal.say_unbroken(stops, whole=sweep.fields)
    tables = _sweep_tables(sweep, stacked=False)
    if not all(_fits(table) for group in tables for table in group):
        tables = _sweep_tables(sweep, stacked=True)
        terminal.say_items(point_key(sweep))
    *attacks, combatants, sides = tables
    for table in itertools.chain(*attacks):
        terminal.console.print(table)
    few = few_attacks(sweep)
    if few:  # under the table of unchanged pairs, each pair whole where it fits a line
        terminal.say_unbroken(few_attacks_note(few, len(sweep.points)),
                              whole=[*(name for name, *_ in few), *pair_names(sweep)])  # fmt: skip
    for table in combatants:
        terminal.console.print(table)
    left_out = never_attacked(sweep)
    if left_out:  # each name whole: "Grand Duke Ferdinand of the Sunken Keep"
        terminal.say_unbroken(never_attacked_note(left_out), whole=left_out)
    terminal.say_unbroken(sweep_note(sweep), whole=[open_median(shown_combatants(sweep))])
    for table in sides:
        terminal.console.print(table)
    silent = never_winning(sweep)
    if silent:
        terminal.say_unbroken(never_winning_note(silent), whole=silent)


def _sweep_tables(sweep: SweepResult, stacked: bool) -> list[list[Table]]:
    """Every table of a sweep, in print order, each :func:`_fitted`; ``stacked``, each
    laid out to print whole (:func:`~simlab.report.terminal.tables_printed_whole`):
    where it would not otherwise, its figures broken between figure and interval (the
    time-to-down table's medians, three fields' points beside ``not reached [8, not
    reached]``), and where even so it would not (a long name), its columns spread over
    tables under its names and points."""
    fields = 1 if stacked else len(sweep.fields)
    layouts: list[_Layout] = [
        *_attack_layouts(sweep, stacked),
        (functools.partial(sweep_combatants_table, sweep, stacked), 1 + fields),
        (functools.partial(sweep_sides_table, sweep, stacked), 1 + fields),
    ]
    if not stacked:
        return [[_fitted(build(False, slice(None)))] for build, _ in layouts]
    return [terminal.tables_printed_whole(_fitted_build(build), names,
                                          terminal.headed_build(build, names))
            for build, names in layouts]  # fmt: skip


def _fitted_build(build: Callable[[bool, slice], Table]) -> Callable[[bool, slice], Table]:
    """``build``, its tables :func:`_fitted`."""
    return lambda broken, columns: _fitted(build(broken, columns))


def _fits(table: Table) -> bool:
    """Whether ``table`` prints whole in the terminal: where its columns cannot shrink to
    the terminal's width (numbers never wrap), rich lays it out wider and the terminal's
    edge cuts it, ``not reached`` printed ``not reache``
    (:func:`~simlab.report.terminal.prints_whole`)."""
    return terminal.prints_whole(table)


def _fitted(table: Table) -> Table:
    """``table``, with two spaces between columns and none at the edges where it would
    not fit the terminal otherwise (as the run's attack table): two varied fields and
    an exact column are wider than 80 columns, and rich would cut the numbers at the
    right edge short, an exact mean of ``7.2112`` printed ``7.``."""
    if _natural_width(table) > terminal.console.width:
        table.collapse_padding, table.pad_edge = True, False
    return table


def _natural_width(table: Table) -> int:
    """How wide ``table`` is laid out with room to spare: no cell broken over lines."""
    from rich.measure import Measurement

    console = terminal.console
    return Measurement.get(console, console.options.update_width(UNBOUNDED), table).maximum


#: A width no table reaches, to measure a table's natural width.
UNBOUNDED = 10_000


#: Figure names as a designer reads them.
FIGURE_LABELS = {
    "hit_rate": "hit rate", "crit_rate": "crit rate", "mean_damage": "mean damage",
    "down_rate": "down rate", "mean_time_to_down": "mean time-to-down",
    "median_time_to_down": "median time-to-down", "win_rate": "win rate",
    "draw_rate": "draw rate", "mean_rounds": "mean rounds",
}  # fmt: skip


#: The unit of a figure whose name does not say it, as ``run``'s tables name it (its
#: time-to-down table is in rounds); a rate is a share, which its name says.
FIGURE_UNITS = {"mean_damage": "HP", "mean_time_to_down": "rounds",
                "median_time_to_down": "rounds"}  # fmt: skip


def figure_labels(figures: Sequence[str], one_line: bool = True) -> list[str]:
    """The names of ``figures`` as a table of A and B gives them, each with its unit
    where its name does not say it (:data:`FIGURE_UNITS`): ``mean damage (HP)``,
    ``mean time-to-down (rounds)``, beside ``hit rate`` and ``mean rounds``, so that a
    row of rates is not read as a row of rounds. Not ``one_line`` (a narrow table), a
    unit that would make its name longer than the longest name without one goes on a
    line of its own under it, and the names' column is no wider for it.

    Parameters
    ----------
    figures : Sequence of str
        Figure names (``hit_rate``, ``mean_time_to_down``…).
    one_line : bool
        Each name and its unit on one line.

    Returns
    -------
    list of str
        The labels, in order.
    """
    bare = [FIGURE_LABELS.get(f, f.replace("_", " ")) for f in figures]
    room = max((len(label) for label in bare), default=0)
    labels = []
    for figure, label in zip(figures, bare, strict=True):
        unit = FIGURE_UNITS.get(figure)
        if unit is None:
            labels.append(label)
        elif one_line or len(f"{label} ({unit})") <= room:
            labels.append(f"{label} ({unit})")
        else:
            labels.append(f"{label}\n({unit})")
    return labels


#: Past this many unchanged figures, the terminal counts them instead of listing them.
MOST_UNCHANGED_LISTED = 12


def shown_figures(figures: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The figures the terminal lists and those it only counts: every changed one (✱),
    and the unchanged ones too unless there are more than
    :data:`MOST_UNCHANGED_LISTED` (a fight shares a hundred figures or more)."""
    unchanged = figures[~figures.changed.astype(bool)]
    if len(unchanged) <= MOST_UNCHANGED_LISTED:
        return figures, unchanged.iloc[:0]
    return figures[figures.changed.astype(bool)], unchanged


def unchanged_line(unchanged: pd.DataFrame) -> str:
    """One line for the unchanged figures the terminal does not list, by kind."""
    kinds = unchanged.figure.value_counts(sort=False)
    counts = ", ".join(f"{FIGURE_LABELS.get(f, f)} {n}" for f, n in kinds.items())
    return (
        f"Not listed, {len(unchanged)} unchanged figures (their paired intervals "
        f"contain 0): {counts}; --out writes every figure (compare.md, compare.json)."
    )


def compare_table(frame: pd.DataFrame,
                  pairs: Mapping[str, Sequence[str]] | None = None) -> Table | Group:  # fmt: skip
    """Figures of a comparison (rows of ``Comparison.figures``) as a terminal table: the
    difference with its paired 95% interval and how much narrower it is than two
    independent runs' (the independent interval itself too in a wide terminal).

    In a wide terminal, the first wide layout (:data:`COMPARE_LAYOUTS`) in which every
    pair keeps to one line; else the tight one where it fits, pairs broken after their
    arrows; else the narrow one, laid out to print whole as every table is
    (:func:`~simlab.report.terminal.tables_printed_whole`): its long pairs broken after
    their arrows first (before their attacks too where the numbers leave less room),
    and where that is not enough (a long name), its differences on two lines, value
    over interval, and where even so it would not fit, its columns go on in a further
    table under the figures' names. A layout wider than the terminal would be cut at
    its edge, ``4.0`` printed ``4.``. A pair breaks between its attacker, attack and
    defender only, as ``pairs`` (:attr:`~simlab.tuning.compare.Comparison.pairs`) name
    them, an attack named with spaces kept whole; a pair not in ``pairs``, after its
    arrow only.
    """
    pairs = pairs or {}
    if is_wide():  # a figure's unit beside its name, or where that is too wide, under it
        # each laid out only when those before it would not do: measuring is most of
        # what printing a comparison costs
        # (each at most once: the tight ones tried again below were built above)
        builds = [functools.cache(functools.partial(_compare_layout, frame, pairs, layout,
                                                    one_line=one_line))
                  for one_line in (True, False) for layout in COMPARE_LAYOUTS[:-1]]  # fmt: skip
        tables = (build() for build in builds)
        whole = next((t for t in tables if _natural_width(t) <= terminal.console.width), None)
        tights = (build() for build in builds[1::2])
        whole = whole or next((t for t in tights if _fits(t)), None)
        if whole is not None:
            return whole
    narrow = functools.partial(_compare_layout, frame, pairs, "narrow")
    headed = functools.partial(_headed_compare, frame, pairs)
    return terminal.one_renderable(terminal.tables_printed_whole(narrow, COMPARE_NAMES, headed))


#: The layouts of the comparison table, widest first: the independent interval with
#: padded columns, with one space of padding between columns, and without it.
COMPARE_LAYOUTS = ("padded", "tight", "narrow")
#: The comparison table's columns that name its rows: the mark, the figure and its pair.
COMPARE_NAMES = 3


def _compare_layout(frame: pd.DataFrame, pairs: Mapping[str, Sequence[str]], layout: str,
                    broken: bool = False, columns: slice = slice(None),
                    one_line: bool | None = None) -> Table:  # fmt: skip
    """:func:`compare_table` in one of :data:`COMPARE_LAYOUTS`, with the ``columns`` of
    its figures (after the :data:`COMPARE_NAMES`) alone; ``broken``, each difference
    on two lines where long, value over interval
    (:func:`~simlab.report.terminal.broken_columns`); ``one_line``, each figure's unit
    beside its name (:func:`figure_labels`; by default in the wide layouts only).
    The narrow layout's columns stand two spaces apart, but for the mark's one
    (:func:`_spaced`): one space read ``Raider 1 0.909`` and ``+0.22 ± 0.02 3.8`` as one
    run of numbers. The ``headed`` layout is the narrow one with the mark before the
    figure's name and no pair where there is none, for :func:`_headed_compare`."""
    headed = layout == "headed"
    one_line = layout not in ("narrow", "headed") if one_line is None else one_line
    labels = figure_labels(list(frame.figure), one_line or headed)
    marks = ["✱✱" if r.changed_holm else "✱" if r.changed else "" for r in frame.itertuples()]
    # a pair (``Bruna warhammer → Ghoul 2``) longer than the room its column has breaks
    # after its arrow, the defender's name whole (a wrap inside the column put ``Ghoul``
    # and ``2`` on two lines), and before its attack where need be
    ons = [Parts(label_parts(on or "—", pairs.get(on)) if on or not headed else [])
           for on in frame.on]  # fmt: skip
    table = console_table("A/B on the same dice (diff = B − A, ± paired 95% interval)")
    if headed:  # the mark before the figure's name, which heads the pair's lines
        labels = [f"{mark:<2} {label}" for mark, label in zip(marks, labels, strict=True)]
        name_column(table, f"{'':<2} figure", labels)
    else:
        table.add_column("", no_wrap=True)  # ✱ or ✱✱, flush left
        # a figure's name never wraps, so that a row too wide takes its room from the
        # pair alone: rich shrinks the widest columns that may wrap together, and the
        # figure's, kept whole at its longest name, then pushed the last column off
        table.add_column("figure", no_wrap=True)
    name_column(table, "on", ons)
    wide = layout in ("padded", "tight")
    if layout == "tight":
        table.collapse_padding, table.pad_edge = True, False
    # narrow: one space between columns (the rule's gap, no padding), none at the
    # edges, so that a figure and a pair keep to one line in 80 columns
    if not wide:
        table.padding, table.pad_edge = (0, 0), False
    # narrow: "×" alone, as a long pair ("Ghoul 2 ghoul-claw → Aldric") then keeps to
    # one line in 80 columns; the note below the table names it
    numbers = ("A", "B", "diff", *(["independent 95%"] if wide else []),
               "narrower\n×" if wide else "×")  # fmt: skip
    cells = []
    for r in frame.itertuples():
        digits = compare_digits(r)
        independent = [independent_bounds(r, digits)] if wide else []
        cells.append([_number(r.a, digits, r.figure), _number(r.b, digits, r.figure),
                      _diff(r.diff, r.diff_ci_lo, r.diff_ci_hi, digits), *independent,
                      times_narrower(r.narrowing)])  # fmt: skip
    headers, cells = broken_columns(numbers, cells) if broken else (list(numbers), cells)
    for k in range(len(headers))[columns]:
        number_column(table, headers[k])
    for mark, label, on, row in zip(marks, labels, ons, cells, strict=True):
        table.add_row(*([] if headed else [mark]), label, on, *row[columns])
    if layout == "narrow":
        _spaced(table)
    return table


def _headed_compare(frame: pd.DataFrame, pairs: Mapping[str, Sequence[str]],
                    broken: bool = False, columns: slice = slice(None)) -> Table:  # fmt: skip
    """The comparison table where its names beside its figures are wider than the
    terminal (a 39-column name at 60 columns): each figure's name, with its mark, heads
    a row of its own, and its pair, broken between its parts, is beside the figures
    (:func:`~simlab.report.terminal.headed_table`)."""
    table = _compare_layout(frame, pairs, "headed", broken, columns)
    return terminal.headed_table(table, 2, indent=" " * HEADED_INDENT)


#: How far a pair is indented under its figure's name in the headed comparison table:
#: under the name (after the mark's column) and two more.
HEADED_INDENT = 5


def _spaced(table: Table) -> None:
    """The narrow comparison ``table``, whose columns have no padding (one space between
    them, the rule's gap), with a space more between each two but the mark and the
    figure: its figure's column and each column of numbers a column wider than their
    widest line, the figure's space after it (flush left), a number's before it (flush
    right)."""
    for column in table.columns[1:]:
        if column.no_wrap:  # the figure's and the numbers' (a pair's column wraps)
            lines = [line for cell in (column.header, *column.cells)
                     for line in str(cell).split("\n")]  # fmt: skip
            column.min_width = 1 + max(len(line) for line in lines)


def compare_digits(r: Any, least: int = 2, most: int = 4) -> int:
    """The decimals of a comparison row ``r``'s A, B and difference: those of its paired
    interval (:func:`interval_digits`), or, where that has no width (B identical to A on
    the same dice), of its independent one: ``10.16``, not ``10.1590``."""
    width = r.diff_ci_hi - r.diff_ci_lo
    if not width > 0:
        width = r.diff_ci_independent_hi - r.diff_ci_independent_lo
    return interval_digits(width, least, most)


def independent_bounds(r: Any, digits: int) -> str:
    """A comparison row's independent 95% interval, its bounds rounded outwards to
    ``digits`` decimals, or to those of a bound that is not 0 and would read as 0
    (``[+0.0008, +0.007]``, not ``[0.000, +0.007]``)."""
    lo, hi = r.diff_ci_independent_lo, r.diff_ci_independent_hi
    if lo == hi == 0:  # a figure that cannot vary (the mean damage of 0 to an immune)
        return "[0, 0]"
    for bound, rounded in ((lo, rounded_down), (hi, rounded_up)):
        if math.isfinite(bound) and bound != 0 and rounded(bound, digits) == 0:
            digits = max(digits, -math.floor(math.log10(abs(bound))))
    return bounds(lo, hi, digits, sign="+")


def interval_digits(width: float, least: int = 2, most: int = 4) -> int:
    """Decimals that show a figure to the precision of its interval of ``width``: its
    half-width's first significant digit, at least ``least`` and at most ``most``; 4
    for an interval of no width."""
    half = width / 2
    if not math.isfinite(half) or half <= 0:
        return 4
    return min(max(-math.floor(math.log10(half)), least), most)


def _number(value: float, digits: int, figure: str) -> str:
    """A figure of A or B to ``digits`` decimals, or those it needs not to read as 0 or 1
    when it is not (:func:`~simlab.report.terminal.nonzero_decimals`); ``0`` for one
    that is 0, and ``1`` for a rate that is 1."""
    within = figure_range(figure)
    if value == 0 or (value == 1 and within == RATE_RANGE):
        return f"{value:.0f}"
    return decimals(value, digits, within)


def _diff(diff: float, lo: float, hi: float, digits: int) -> str:
    """``+0.052 ± 0.004``; ``0`` when A and B agree on every encounter, ``-1.000 ± 0``
    when B − A is the same on every range (a side that always won now never does); a difference
    finer than ``digits`` decimals (a rare figure, moved a little on the same dice) in
    powers of ten, ``-1.4e-06 ± 8e-07``, not ``-0.0000 ± 0.0001``.

    An interval that excludes 0 gets the digits it takes not to reach 0 as printed:
    ``+0.055 ± 0.051``, not ``+0.05 ± 0.06`` beside a ✱, and ``-1.56e-06 ± 1.5e-06``,
    not ``-1.6e-06 ± 2e-06``. One too lopsided for any ``±`` to keep off 0 (an exact
    test's, on few events) is written with its bounds: ``+0.050 [+0.016, +0.113]``.
    """
    half = max(diff - lo, hi - diff)
    if pd.isna(diff):
        return "—"
    if pd.isna(half):
        return formatted(diff, f"+.{digits}f")
    if half <= 0 and diff == 0:
        return "0"
    if half <= 0 and abs(diff) >= 0.5 * 10**-digits:  # the same on every range: no width
        return f"{formatted(diff, f'+.{digits}f')} ± 0"
    excludes_0 = lo > 0 or hi < 0
    if excludes_0 and half >= abs(diff):
        return _diff_and_bounds(diff, lo, hi, digits)
    if half >= 0.5 * 10**-digits:
        while excludes_0 and digits < MOST_DIFF_DIGITS and _reaches_0(diff, lo, hi, digits):
            digits += 1
        if not (excludes_0 and _reaches_0(diff, lo, hi, digits)):
            return _decimal_diff(diff, lo, hi, digits)
    # finer than the decimals shown (a rare figure), or still reaching 0 at the most
    # decimals: in powers of ten, with as many significant digits as it takes
    significant = 1
    while excludes_0 and _reaches_0_in_powers(diff, lo, hi, significant):
        if significant == MOST_SIGNIFICANT:
            return _diff_and_bounds(diff, lo, hi, digits)
        significant += 1
    return " ± ".join(_powers_of_ten(diff, lo, hi, significant))


#: The most decimals a difference is given to show that its interval excludes 0.
MOST_DIFF_DIGITS = 6
#: The most significant digits a difference in powers of ten is given to show the same.
MOST_SIGNIFICANT = 12


def _diff_and_bounds(diff: float, lo: float, hi: float, digits: int) -> str:
    """``+0.050 [+0.016, +0.113]``: the difference and its interval, to the decimals
    that keep both bounds, rounded outwards, off 0."""
    nearest = min(abs(lo), abs(hi))
    if nearest > 0:
        digits = max(digits, -math.floor(math.log10(nearest)))
    return f"{formatted(diff, f'+.{digits}f')} {bounds(lo, hi, digits, sign='+')}"


def _decimal_diff(diff: float, lo: float, hi: float, digits: int) -> str:
    """``diff ± half`` to ``digits`` decimals, the half-width rounded up to cover
    ``[lo, hi]`` from the difference as printed."""
    shown = formatted(diff, f"+.{digits}f")
    return f"{shown} ± {rounded_up(covering_half(shown, lo, hi), digits):.{digits}f}"


def _reaches_0(diff: float, lo: float, hi: float, digits: int) -> bool:
    """Whether ``diff`` printed to ``digits`` decimals with the half-width that covers
    ``[lo, hi]`` from it (:func:`~simlab.report.terminal.covering_half`, rounded up)
    reaches 0 or past it: ``+0.008 ± 0.008`` reads as an interval that holds 0."""
    shown = formatted(diff, f"+.{digits}f")
    return abs(float(shown)) <= rounded_up(covering_half(shown, lo, hi), digits)


def _powers_of_ten(diff: float, lo: float, hi: float, significant: int) -> tuple[str, str]:
    """``diff`` in powers of ten to one more significant digit than ``significant``, and
    the half-width that covers ``[lo, hi]`` from it as printed, rounded up to
    ``significant`` digits: ``-1.4e-06``, ``8e-07``."""
    shown = f"{diff:+.{significant}e}"
    covering = covering_half(shown, lo, hi)
    if covering <= 0:
        return shown, f"{0:.{significant - 1}e}"
    places = significant - 1 - math.floor(math.log10(covering))
    return shown, f"{rounded_up(covering, places):.{significant - 1}e}"


def _reaches_0_in_powers(diff: float, lo: float, hi: float, significant: int) -> bool:
    """:func:`_reaches_0` for :func:`_powers_of_ten`'s ``diff ± half``."""
    shown, half = _powers_of_ten(diff, lo, hi, significant)
    return abs(float(shown)) <= float(half)


def print_compare(comparison: Comparison) -> None:
    """Print the shared figures of A and B with the paired (and, wide, independent)
    intervals, the figures that changed first; past :data:`MOST_UNCHANGED_LISTED`
    unchanged ones, those are counted by kind instead (:func:`shown_figures`)."""
    names = {name for pair in comparison.pairs.values() for name in pair}
    for parts in compare_heading(comparison, terminal.console.width):
        terminal.say_items(parts, whole=names)
    listed, counted = shown_figures(comparison.figures)
    _notes(identical_note(comparison), "" if len(listed) else NONE_CHANGED)
    if len(listed):
        terminal.console.print(compare_table(listed, comparison.pairs))
    marked = bool(listed.changed.astype(bool).any())
    _notes(
        unchanged_line(counted) if len(counted) else "",
        MARKS_NOTE if marked else "",
        compare_terminal_note(listed) if len(listed) else "",
        unmatched_note(comparison),
        whole=names,
    )


def _notes(*lines: str, whole: Iterable[str] = ()) -> None:
    """Print each line that is not empty, as a note: broken at spaces on a terminal,
    never inside a name of ``whole`` (``Sato`` / ``Kenshiro`` of an unmatched figure's
    pair at 80 columns), whole when piped (:func:`~simlab.report.terminal.say_unbroken`)."""
    for line in filter(None, lines):
        terminal.say_unbroken(line, whole=whole)


#: What the terminal says where a comparison lists no figure.
NONE_CHANGED = "No shared figure changed: every paired interval contains 0."


def identical_note(comparison: Comparison) -> str:
    """What a comparison of B with A itself (the same scenario, by its hash) says: that
    B is A, and which of B's changes changed nothing (a ``--set`` to the value the file
    has: ``Bruna.hp is already 32``); "" for a B that is not A."""
    a, b = (run.meta for run in (comparison.a, comparison.b))
    idle = [o for o in b.get("overrides", []) if o not in a.get("overrides", [])]
    if a.get("scenario_hash") is None or a.get("scenario_hash") != b.get("scenario_hash"):
        if a.get("results_hash") is None or a.get("results_hash") != b.get("results_hash"):
            return ""
        changes = f" ({', '.join(idle)})" if idle else ""
        return (f"B is identical to A in every figure: they differ only in words{changes}, "
                "which change no result, so every difference is 0.")  # fmt: skip
    if not idle:
        return "B is identical to A (the same scenario): every difference is 0."
    unmoved = _idle_in_b(comparison, idle)
    making = [o for o in idle if o not in unmoved]
    if making:
        # B's own file differs from A's, and these changes made it A (``compare A B
        # --set``): they changed B, so saying "already" of them would be false
        verb = "makes" if len(making) == 1 else "make"
        return (f"B is identical to A: {', '.join(making)} {verb} B's file the same "
                "scenario as A, so every difference is 0.")  # fmt: skip
    said = ", ".join(already(o) for o in idle)
    return (
        f"B is identical to A: {said}, so {', '.join(idle)} "
        f"{'changes' if len(idle) == 1 else 'change'} nothing."
    )


def _idle_in_b(comparison: Comparison, overrides: Sequence[str]) -> tuple[str, ...]:
    """Those of B's ``overrides`` that change nothing in B's own file (as
    :attr:`~simlab.scenario.common.ScenarioBase.idle_overrides` works them out), or all
    of them where B's scenario is not at hand to ask."""
    meta, simulated = comparison.b.meta, comparison.b._simulated
    if "idle_overrides" in meta:
        return tuple(meta["idle_overrides"])
    return tuple(overrides) if simulated is None else tuple(simulated.idle_overrides)


def compare_heading(comparison: Comparison, width: int) -> list[list[str]]:
    """The parts (:func:`~simlab.report.width.items`) of each line compare's heading
    starts: ``A: … · B: … (20,000 encounters each, …)`` as one where that fits
    ``width`` columns; else A's and B's each, so that B starts a line at A's indent
    (it read as part of A, indented under it), what follows B after it."""
    a, b = comparison.labels
    how = at_separators(_how_compared(comparison))
    one = [*items(f"A: {a}", at_separators(f"B: {b}")), *how]
    if len(" ".join(one)) <= width:
        return [one]
    return [[f"A: {a}"], [*at_separators(f"B: {b}"), *how]]


def _how_compared(comparison: Comparison) -> str:
    """``(20,000 encounters each, the same dice; intervals from 32 paired ranges)``."""
    return (f"({counted(comparison.a.encounters, 'encounter')} each, the same dice; "
            f"intervals from {counted(comparison.ranges, 'paired range')})")  # fmt: skip


#: The most unmatched figures :func:`unmatched_note` names on each side.
NAMED_UNMATCHED = 3


def unmatched_note(comparison: Comparison) -> str:
    """What A and B do not share: their rules when they differ, and the figures only
    one of them has (not compared), a few of them named; "" when they share all."""
    return " ".join(filter(None, (comparison.rules_note(), not_compared_note(comparison))))


def not_compared_note(comparison: Comparison) -> str:
    """The figures only one of A and B has (not compared), a few of them named; "" when
    they share all (the page, which gives the rules' note first, ends with this)."""
    lines = []
    for side, only in (("A", comparison.only_in_a), ("B", comparison.only_in_b)):
        if only:
            named = [f"{FIGURE_LABELS.get(f, f)}{' of ' + on if on else ''}"
                     for f, on in only[:NAMED_UNMATCHED]]  # fmt: skip
            more = len(only) - len(named)
            lines.append(f"Not compared, {counted(len(only), 'figure')} only {side} has: "
                         f"{', '.join(named)}{f' and {more} more' if more else ''}.")  # fmt: skip
    return " ".join(lines)


#: What a comparison's mean time-to-down is the mean of (terminal and pages).
MEAN_TIME_TO_DOWN_NOTE = (
    "Mean time-to-down: among the encounters in which the combatant went down (its down "
    "rate says how many)."
)

#: How a figure whose change rests on few events is tested (terminal and page alike).
FEW_EVENTS_NOTE = (
    f"— under ×: fewer than {RARE_EVENT_THRESHOLD} of the figure's events differ between "
    "A and B (a rare crit, say), too few for the paired interval; it is tested as two "
    "independent runs would be (a rate by an exact test of its counts, a mean damage by "
    "the independent interval). Or B − A is the same on every range: its paired interval "
    "has no width to compare."
)
#: What the terminal's marks mean, printed under a table that has one.
MARKS_NOTE = (
    "✱ changed: the paired interval excludes 0 (this figure alone at the 95% level: "
    "about one in twenty unchanged figures is marked so by chance). ✱✱ changed after "
    "Holm's correction for all the figures compared (the chance that any unchanged one "
    "is marked stays under 5%)."
)
#: What the terminal's comparison table shows, printed under it.
COMPARE_TERMINAL_NOTE = (
    "The paired interval is measured on the same dice; "
    "narrower × (× in a narrow terminal): how many times narrower it is than the "
    "interval two independent runs of this size would give."
)


def compare_terminal_note(listed: pd.DataFrame) -> str:
    """What the terminal's comparison table of the figures ``listed`` shows: its ×
    column (:data:`COMPARE_TERMINAL_NOTE`), what a ``—`` under it means where one is
    (:data:`FEW_EVENTS_NOTE`), and what a mean time-to-down is the mean of where one is
    listed: a table of a mean length and a draw rate alone was told both."""
    notes = [COMPARE_TERMINAL_NOTE]
    if listed.narrowing.isna().any():
        notes.append(FEW_EVENTS_NOTE)
    if (listed.figure == "mean_time_to_down").any():
        notes.append(MEAN_TIME_TO_DOWN_NOTE)
    return " ".join(notes)


def _figure_text(figure: str, value: float, lo: float, hi: float, method: str,
                 bracketed: bool = False) -> str:  # fmt: skip
    """A tuned ``figure``: ``3 (exact)``, or ``0.497 ± 0.004`` (its 95% interval, as
    every table shows one; ``bracketed``, as a page does, ``0.497 [0.493, 0.501]``), a
    median time-to-down in rounds, ``4 [4, 5]``; a time that half of the encounters
    never reach is :data:`NOT_REACHED`, simulated with the interval that says how far it
    may be, ``not reached [14, not reached]``."""
    if method == "exact":
        return f"{NOT_REACHED if math.isinf(value) else _exact_text(value, figure)} (exact)"
    if figure == "median_time_to_down":
        return median_and_interval(value, lo, hi)
    if math.isinf(value):
        return NOT_REACHED
    return estimate(value, lo, hi, figure_range(figure), bracketed=bracketed)


def tuned_figure(figure: str, e: Evaluation, target: float, bracketed: bool = False) -> str:
    """A tuned figure shown so as to agree with its verdict, whether it is consistent
    with ``target`` (:meth:`~simlab.tuning.tune.Evaluation.contains`). An interval that
    holds the target is shown as every table shows one (never narrower than it, it
    holds the target too); one that leaves it out, as ``value [lo, hi]`` to the decimals
    that keep it out, rounded outwards: ``0.515 [0.501, 0.529]`` for a target of 0.5,
    where ``0.52 ± 0.02`` held it. An exact figure gets the decimals that put it on its
    side of the target (:func:`~simlab.report.terminal.decimals_to_decide`). A median
    time-to-down, and its interval, is in whole rounds, ``6 [6, 6]``, never ``6.0000
    [6.0000, 6.0000]``: so shown, it leaves out a target its interval leaves out. A rate
    of 0 or 1 is written bare, with its one-sided bound, ``0 (< 0.0008)``, never
    ``0.0000 [0.0000, 0.0008]``. ``figure`` names what it is (``win_rate``…), as for
    :func:`_figure_text`; ``bracketed``: every interval as ``value [lo, hi]``, as the
    pages give them, ``0 [0, 0.0008]``."""
    whole_rounds = figure == "median_time_to_down"
    if e.contains(target) or whole_rounds or not all(map(math.isfinite, (e.figure, e.lo, e.hi))):
        return _figure_text(figure, e.figure, e.lo, e.hi, e.method, bracketed)
    if e.method == "exact":
        return f"{_on_its_side(e.figure, target, figure)} (exact)"
    digits = decimals_to_decide(e.figure, target, target, _leaving_out(e.lo, e.hi, target))
    digits = terminal.precision_decimals(e.figure, e.lo, e.hi, figure_range(figure), digits)
    return _at_a_limit(e, figure_range(figure), digits, bracketed) or value_and_bounds(
        e.figure, e.lo, e.hi, digits
    )


def _at_a_limit(e: Evaluation, within: tuple[float, float], digits: int,
                bracketed: bool) -> str:  # fmt: skip
    """A figure at a limit of its values ``within`` (a rate of 0 or 1) whose interval
    reaches away from it only, bare with its bound rounded outwards to ``digits``
    (which keep the target out): ``0 (< 0.0008)``, ``1 (> 0.9992)``; ``bracketed``,
    ``0 [0, 0.0008]``, ``1 [0.9992, 1]``. "" for any other figure."""
    low, high = within
    if e.figure == e.lo == low:
        bound = _bare(rounded_up(e.hi, digits), digits)
        return f"0 [0, {bound}]" if bracketed else f"0 (< {bound})"
    if e.figure == e.hi == high:
        bound, top = _bare(rounded_down(e.lo, digits), digits), _bare(high, 0)
        return f"{top} [{bound}, {top}]" if bracketed else f"{top} (> {bound})"
    return ""


def _bare(x: float, digits: int) -> str:
    """``x`` to ``digits`` decimals without trailing zeros, below
    :data:`~simlab.report.terminal.SMALL` as powers of ten (``8e-05``)."""
    return (
        terminal.written(x, digits) if 0 < x < terminal.SMALL else terminal.plain_number(x, digits)
    )


def _off_the_limits(shown: str, value: float, figure: str, decide: float = math.nan) -> str:
    """``shown``, an exact ``value`` of ``figure`` as written, or where it reads as a
    rate's 0 or 1 that ``value`` is not, ``value`` with the decimals that show it is not
    (and, given a target ``decide``, that keep it on its side of it), as every exact
    answer is written then (:func:`~simlab.report.terminal.exact_number`: ``0.99999``,
    ``> 0.99999999``): a down rate of 1 − 4·10⁻¹⁶ read ``1 (exact)``, as if certain."""
    within = figure_range(figure)
    limits = set(within) - {value}
    if within != RATE_RANGE or float(shown) not in limits:
        return shown
    digits = EXACT_DECIMALS
    while True:
        more = nonzero_decimals(value, digits, within, EXACT_MOST_DECIMALS)
        if not math.isnan(decide):
            more = decimals_to_decide(value, decide, decide, more)
        if more == digits:
            break
        digits = more
    written = formatted(value, f".{digits}f")
    return exact_number(value, figure) if float(written) in limits else written


def _exact_text(value: float, figure: str) -> str:
    """An exact tuned ``figure`` as every table writes an exact answer
    (:func:`~simlab.report.terminal.exact_number`: 4 decimals, trailing zeros kept, so
    that the figures of a column read alike, ``0.5140`` beside ``0.5471`` where 4
    significant digits wrote ``0.514``; more where it would read as a rate's 0 or 1
    that it is not); a median time-to-down in whole rounds, ``5``."""
    if figure == "median_time_to_down":
        return f"{value:g}"
    return exact_number(value, figure)


def _on_its_side(value: float, target: float, figure: str) -> str:
    """``value`` as :func:`_exact_text` writes it, or to the decimals that keep it on its
    side of ``target`` where those would show it on the target or past it, and off a
    rate's 0 or 1 that it is not (:func:`_off_the_limits`): ``0.999992``, not ``1``,
    nor ``0.99999``, for 0.9999916 beside a target of 0.99999."""
    shown = _exact_text(value, figure)
    if not shown[0].isdigit():  # "> 0.99999999", "< 1e-08": beyond what decimals show
        return shown
    if (float(shown) > target) == (value > target) and float(shown) != target:
        return shown
    digits = decimals_to_decide(value, target, target, EXACT_DECIMALS)
    return _off_the_limits(formatted(value, f".{digits}f"), value, figure, decide=target)


def _leaving_out(lo: float, hi: float, target: float) -> int:
    """The decimals of the half-width of ``[lo, hi]``, or more, that keep ``target``
    out of it rounded outwards (at most :data:`MOST_DECIDING_DIGITS`)."""
    digits = interval_digits(hi - lo, least=0)
    while digits < MOST_DECIDING_DIGITS and rounded_down(lo, digits) <= target:
        if rounded_up(hi, digits) < target:
            break
        digits += 1
    return digits


def _unmeasured(figure: str) -> str:
    """Why a tuning's figure can have been measured at no value: what it needs."""
    if figure == "median_time_to_down":
        return ("fewer than half of the encounters had the combatant down by the round cap "
                "(a median time-to-down needs half)")  # fmt: skip
    if "time_to_down" in figure:
        return "the combatant never went down (a time-to-down needs it to)"
    return "what it is measured on never happened (no attack made, no encounter counted)"


def _noise_words(result: TuneResult) -> str:
    """Why a flat figure is within its noise, as the terminal says it: no two values
    significantly apart on the same dice, or, run to a precision (unpaired), every
    value's interval overlapping every other's."""
    if result.precision is not None:
        return "every value's 95% interval overlapping every other's"
    return "no two significantly apart on the same dice"


def tune_sentences(result: TuneResult, bracketed: bool = False) -> list[str]:
    """What a tuning found, one sentence each, as the terminal and the tune page say it:
    the answer (or why the target is not reached), the values consistent with the
    target, and how it was found; ``bracketed``: its figure as the page gives it."""
    t = result.target
    with terminal.held_to(result.precision):  # as its table says it
        figure = tuned_figure(t.figure.figure, result.best, t.value, bracketed)
    tried = f"{result.field} tried ({result.lo:g}..{result.hi:g})"
    if not result.measured:
        answer = (f"Unreachable: {t.figure} was measured at no value of {tried}: "
                  f"{_unmeasured(t.figure.figure)}")  # fmt: skip
    elif result.identical and not result.reachable:
        answer = (f"Unreachable: {t.figure} is {figure} at every value of {tried}: the field "
                  "does not move it")  # fmt: skip
    elif result.flat and not result.reachable:
        answer = (f"Unreachable: {t.figure} is {figure} at {result.field}={result.value:g} and "
                  f"within its noise at every value of {tried}, {_noise_words(result)}: the "
                  "field does not move it measurably")  # fmt: skip
    elif not result.reachable:
        answer = (f"Unreachable: {t} is outside what {result.field} = {result.lo:g}.."
                  f"{result.hi:g} reaches; the closest figure reached is {figure}, at "
                  f"{result.field}={result.value:g}")  # fmt: skip
    else:  # "3 (exact; target 3)", not "3 (exact) (target 3)"
        aimed = f"target {t.value:g}"
        said = f"{figure[:-1]}; {aimed})" if figure.endswith(" (exact)") else f"{figure} ({aimed})"
        answer = f"{result.field}={result.value:g} gives {t.figure} = {said}"
    sentences = [answer]
    if result.measured:
        sentences.append(f"Consistent with the target: {consistent_values(result)}")
    return [*sentences, *result.caveats(), f"How: {result.how()}"]


def consistent_values(result: TuneResult) -> str:
    """The values consistent with a tuning's target, ``NAME.FIELD = 12..14``, or "no
    value", why, and between which values tried the target lies."""
    t = result.target
    if result.consistent is None:
        # where the figure crosses next to the value found (of several, where it turns)
        between = [(c.lo, c.hi) for c in result.crossings if not c.consistent]
        between.sort(key=lambda c: min(abs(c[0] - result.value), abs(c[1] - result.value)))
        where = (f"; it lies between {result.field}={between[0][0]:g} and "
                 f"{between[0][1]:g}" if between else "")  # fmt: skip
        return (f"no value (no figure's interval contains {t.value:g}; an exact figure "
                f"must equal it){where}")  # fmt: skip
    lo, hi = result.consistent
    said = f"{result.field} = {lo:g}" if lo == hi else f"{result.field} = {lo:g}..{hi:g}"
    return said + result.past_the_range()


#: The title of the table of a tuning's value and its neighbours.
TUNE_TITLE = "the value found and its neighbours"


def tuned_names(result: TuneResult) -> list[str]:
    """The names a tuning's lines name: the combatant (or attack) of its field and
    what its figure is measured on (``strike/Defender``: the attack, the defender), a
    line never broken inside them where the field or the target is too long for it.

    Parameters
    ----------
    result : TuneResult
        The tuning.

    Returns
    -------
    list of str
    """
    on = result.target.figure.on
    return [result.field.rsplit(".", 1)[0], *([on, *on.split("/")] if on else [])]


def print_tune(result: TuneResult, scenario: str | None = None) -> None:
    """Print a tuning: the closest value, its neighbours, the consistent range, and how.

    ``scenario`` is the file the command line tuned: a caveat's suggested
    ``simlab sweep SCENARIO ...`` then names it, ready to copy (shell-quoted). Values
    run to a precision show each half-width within its limit as within it
    (:func:`~simlab.report.terminal.held_to`)."""
    with terminal.held_to(result.precision):
        _print_tune(result, scenario)


def _print_tune(result: TuneResult, scenario: str | None) -> None:
    """:func:`print_tune`'s table and sentences."""
    for note in result.notes:  # a dice field tuned over whole numbers: flat numbers tried
        terminal.say_unbroken(note, whole=[result.field])
    best, t = result.best, result.target
    shown = sorted([*result.neighbours(), best], key=lambda e: e.value)
    rows = [[f"{e.value:g}" + ("  ◀" if e is best else ""),
             tuned_figure(t.figure.figure, e, t.value), e.method] for e in shown]  # fmt: skip
    # a title no wider than the columns (their headers name the field and the figure;
    # the lines under it, the target): the table is as wide as what it holds, where one
    # as wide as "Defender.hp for median_time_to_down:Defender=8 (…)" spread its columns
    table = _table(TUNE_TITLE, [result.field, str(t.figure), "method"], rows)
    if not terminal.prints_whole(table):  # long names: short headers, named above
        terminal.say_items(items(f"value: {result.field}", f"figure: {t.figure}"),
                           whole=tuned_names(result))  # fmt: skip
        table = _table(TUNE_TITLE, ["value", "figure", "method"], rows)
    terminal.console.print(table)
    # each line broken at spaces, but not inside the field's or the target's names, nor
    # between a count and what it counts ("16 values")
    names = [result.field, str(t), str(t.figure), *tuned_names(result)]
    for sentence in tune_sentences(result):
        if scenario is not None:
            sentence = sentence.replace(
                "simlab sweep SCENARIO ", f"simlab sweep {shlex.quote(scenario)} "
            )
        counts = re.findall(r"(?<![\w.=])\d[\d,]* [a-z]+", sentence)  # not "=8 by"
        terminal.say_unbroken(sentence, whole=[*names, *counts])
