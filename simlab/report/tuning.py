"""Sweep and comparison pages (HTML + Markdown) and the sweep curve plot.

``sweep.html`` shows the damage curves of a sweep — hit rate, crit rate and mean damage
of each attack against each defender as functions of the first varied field, with 95%
bands and the exact answer drawn where the exact engine answers a point — and the
down-rate, time-to-down and win-rate curves. ``compare.html`` lists every figure two
variants share with A, B, the difference and its paired and independent 95% intervals,
the figures that changed beyond their interval first. Both pages are self-contained
(PNG inline); the ``.md`` twins link the PNGs for CI job summaries.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import pandas as pd

from simlab import __version__
from simlab.report.files import atomic_write
from simlab.report.plots import EXACT_STYLE, _axes
from simlab.report.render import (
    PNG_DIR,
    Picture,
    _bounds,
    _bytes_writer,
    _ci,
    _f,
    _html_table,
    _md_table,
    _png,
    _slug,
    _text_writer,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from rich.table import Table

    from simlab.tuning.compare import Comparison
    from simlab.tuning.sweep import SweepResult
    from simlab.tuning.tune import TuneResult

__all__ = ["plot_sweep", "print_tune", "render_compare", "render_sweep"]

#: Which table each figure lives in, and the columns that name what it is measured on.
_TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    **{f: ("attacks", ("attacker", "attack", "defender"))
       for f in ("hit_rate", "crit_rate", "mean_damage")},
    **{f: ("combatants", ("combatant",))
       for f in ("down_rate", "mean_time_to_down", "median_time_to_down")},
    "win_rate": ("sides", ("side",)),
}  # fmt: skip


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
        ``hit_rate``, ``crit_rate``, ``mean_damage`` (per attack pair), ``down_rate``,
        ``mean_time_to_down``, ``median_time_to_down`` (per combatant) or ``win_rate``
        (per side, ``draw`` included).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    **on : str
        Narrow the lines drawn: ``attacker=``, ``attack=``, ``defender=``,
        ``combatant=``, ``side=``. One line per remaining subject (and per value of any
        further varied field); the exact answer, where there is one, dashed.

    Returns
    -------
    pandas.DataFrame
        The rows drawn: the varied fields, the subject columns, the figure, its band
        (``*_ci95_lo/hi``) and ``exact_<figure>`` when known.
    """
    if figure not in _TABLES:
        raise ValueError(f"expected one of {', '.join(_TABLES)}; got {figure!r}")
    table, subject = _TABLES[figure]
    data = getattr(sweep, table)()
    for key, value in on.items():
        if key not in data.columns:
            raise ValueError(f"expected one of {', '.join(subject)} to narrow by; got {key!r}")
        data = data[data[key] == value]
    x, *others = sweep.fields
    ax = _axes(ax)
    columns = [*sweep.fields, *subject, figure]
    for end in ("lo", "hi"):
        if f"{figure}_ci95_{end}" in data.columns:
            columns.append(f"{figure}_ci95_{end}")
    if f"exact_{figure}" in data.columns:
        columns.append(f"exact_{figure}")
    data = data[columns].reset_index(drop=True)
    for key, line in data.groupby([*others, *subject], sort=False):
        name = " · ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        drawn = ax.plot(line[x], line[figure], marker="o", markersize=3, label=name)
        if f"{figure}_ci95_lo" in line.columns:
            ax.fill_between(line[x], line[f"{figure}_ci95_lo"], line[f"{figure}_ci95_hi"],
                            color=drawn[0].get_color(), alpha=0.2, linewidth=0)  # fmt: skip
        exact = line.get(f"exact_{figure}")
        if exact is not None and exact.notna().any():
            ax.plot(line[x], exact, **{**EXACT_STYLE, "label": f"{name} (exact)"})
    ax.set_xlabel(x)
    ax.set_ylabel(AXIS_LABELS.get(figure, figure.replace("_", " ")))
    _readable_axes(ax, figure, data[x])
    if len(ax.get_lines()) > 1:
        ax.legend(fontsize="small")
    return data


#: What a sweep plot's y axis shows, where its figure's name does not say it all.
AXIS_LABELS = {
    "mean_damage": "mean damage per attack (misses 0)",
    "mean_time_to_down": "mean time-to-down if downed (rounds)",
    "median_time_to_down": "median time-to-down (rounds)",
}

#: The narrowest y range a sweep plot shows: a rate, or a share of a mean's size. Without
#: it, a flat curve is stretched over the whole plot and its noise reads as a trend.
MIN_RATE_SPAN = 0.05
MIN_MEAN_SPAN = 0.2


def _readable_axes(ax: Axes, figure: str, x: pd.Series) -> None:
    """Integer ticks where the values are integers; a y range no narrower than
    :data:`MIN_RATE_SPAN` for a rate (within 0..1) or :data:`MIN_MEAN_SPAN` × the mean's
    size for a mean."""
    from matplotlib.ticker import MaxNLocator

    if pd.api.types.is_integer_dtype(x) or (x.dropna() % 1 == 0).all():
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if figure == "median_time_to_down":
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    lo, hi = ax.get_ylim()
    rate = figure.endswith("_rate")
    least = MIN_RATE_SPAN if rate else MIN_MEAN_SPAN * max(abs(lo), abs(hi), 1.0)
    if hi - lo >= least:
        return
    middle = (lo + hi) / 2
    lo, hi = middle - least / 2, middle + least / 2
    if rate:
        shift = max(0.0, -lo) - max(0.0, hi - 1.0)
        lo, hi = lo + shift, hi + shift
    ax.set_ylim(lo, hi)


# -- sweep page ----------------------------------------------------------------------------


def _sweep_pictures(sweep: SweepResult) -> list[Picture]:
    pictures = []
    pairs = sweep.attacks()[["attacker", "attack", "defender"]].drop_duplicates()
    for pair in pairs.itertuples(index=False):
        title = f"{pair.attacker} {pair.attack} → {pair.defender}: damage curve"

        def damage_curve(fig: Figure, p: Any = pair) -> None:
            axes = fig.subplots(1, 3)
            for ax, figure in zip(axes, ("hit_rate", "crit_rate", "mean_damage"), strict=True):
                plot_sweep(sweep, figure, ax=ax, attacker=p.attacker, attack=p.attack,
                           defender=p.defender)  # fmt: skip

        pictures.append(Picture(f"damage-{_slug(title)}.png", title,
                                _png(damage_curve, (13.0, 3.4)), "damage"))  # fmt: skip
    for figure, title in (("down_rate", "Down rate"), ("mean_time_to_down", "Mean time-to-down"),
                          ("median_time_to_down", "Median time-to-down"),
                          ("win_rate", "Win rate")):  # fmt: skip

        def curve(fig: Figure, f: str = figure) -> None:
            plot_sweep(sweep, f, ax=fig.subplots())

        pictures.append(Picture(f"{_slug(figure)}.png", title, _png(curve, (7.0, 3.6)), "outcome"))
    return pictures


def _sweep_rows(sweep: SweepResult) -> tuple[list[str], list[list[str]]]:
    frame = sweep.attacks()
    header = [*sweep.fields, "attacker", "attack", "defender", "hit rate [95%]",
              "crit rate [95%]", "mean damage [95%]", "exact mean damage"]  # fmt: skip
    rows = [[*(str(r[f]) for f in sweep.fields), r.attacker, r.attack, r.defender,
             _interval(r, "hit_rate"), _interval(r, "crit_rate"), _interval(r, "mean_damage"),
             _f(r.exact_mean_damage, 4)] for _, r in frame.iterrows()]  # fmt: skip
    return header, rows


def _combatant_rows(sweep: SweepResult) -> tuple[list[str], list[list[str]]]:
    frame = sweep.combatants()
    header = [*sweep.fields, "combatant", "down rate [95%]", "mean time-to-down [95%]",
              "median time-to-down", "exact mean time-to-down"]  # fmt: skip
    rows = [[*(str(r[f]) for f in sweep.fields), r.combatant, _interval(r, "down_rate"),
             _interval(r, "mean_time_to_down", 2), _f(r.median_time_to_down, 0),
             _f(r.exact_mean_time_to_down, 3)] for _, r in frame.iterrows()]  # fmt: skip
    return header, rows


def _interval(row: Any, name: str, digits: int = 4) -> str:
    """Figure ``name`` of a table row with its 95% interval, rounded outwards."""
    return _ci(row[name], row[f"{name}_ci95_lo"], row[f"{name}_ci95_hi"], digits)


_PAGE = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; }
th { background: #f3f3f3; } .note { color: #666; font-size: 0.85em; }
.bad { color: #b00; font-weight: bold; } .pass { color: #070; }
img { max-width: 100%; display: block; } figcaption { font-size: 0.8em; color: #555; }
</style></head><body>
<h1>{{ title }}</h1>
<p class="note">{{ identity }}</p>
{% for heading, note, table, pictures in parts %}<h2>{{ heading }}</h2>
<p class="note">{{ note }}</p>{{ table }}
{% for p in pictures %}<figure><img alt="{{ p.title }}" src="{{ p.data_uri }}">
<figcaption>{{ p.title }}</figcaption></figure>{% endfor %}
{% endfor %}</body></html>
""",
    autoescape=True,
)

_DAMAGE_NOTE = ("Hit rate, crit rate and mean damage (misses 0) of each attack against "
                "each defender at every point, with 95% bands; dashed: the exact answer "
                "against a fresh defender where the exact engine gives one. Every point "
                "ran on the same seed (common random numbers).")  # fmt: skip
_OUTCOME_NOTE = ("Down rate; mean time-to-down among the encounters in which the "
                 "combatant went down (dashed: the exact duel mean, without the round "
                 "cap); median time-to-down, the round by which half of all encounters "
                 "had it down; win rate per side and draws.")  # fmt: skip
_COMPARE_NOTE = ("diff = B − A. Paired: the 95% interval of the difference measured on the "
                 "same dice (K contiguous ranges of encounters, t on the per-range "
                 "differences). Independent: the interval the same difference would have "
                 "from two independent runs of this size. Figures whose paired interval "
                 "excludes 0 come first (CHANGED).")  # fmt: skip


#: One part of a page: heading, note, (table header, rows), pictures.
PagePart = tuple[str, str, tuple[list[str], list[list[str]]], list[Picture]]


def _write_page(out: Path, stem: str, title: str, identity: str,
                parts: list[PagePart]) -> dict[str, Path]:  # fmt: skip
    written: dict[str, Path] = {}
    for _, _, _, pictures in parts:
        for p in pictures:
            written[p.file] = atomic_write(out / PNG_DIR / p.file, _bytes_writer(p.png))
    html = _PAGE.render(title=title, identity=identity, parts=[
        (h, n, _html_table(*table), pics) for h, n, table, pics in parts])  # fmt: skip
    markdown = [f"# {title}", "", identity, ""]
    for heading, note, table, pictures in parts:
        markdown += [f"## {heading}", "", note, "", _md_table(*table), ""]
        markdown += [f"- [{p.title}]({PNG_DIR}/{p.file})" for p in pictures]
        markdown += [""] if pictures else []
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
    pictures = _sweep_pictures(sweep)
    identity = (f"scenario {sweep.scenario} ({sweep.rules}) · seed {sweep.seed} · "
                f"{sweep.encounters:,} encounters per point · {len(sweep.points)} points · "
                f"varied: {', '.join(sweep.fields)} · simlab {__version__}")  # fmt: skip
    parts: list[PagePart] = [
        ("Damage curves", _DAMAGE_NOTE, _sweep_rows(sweep),
         [p for p in pictures if p.kind == "damage"]),
        ("Time-to-down and outcome", _OUTCOME_NOTE, _combatant_rows(sweep),
         [p for p in pictures if p.kind == "outcome"]),
    ]  # fmt: skip
    return _write_page(Path(out_dir), "sweep", f"Sweep of {sweep.scenario}", identity, parts)


COMPARE_HEADER = ["", "figure", "on", "A", "B", "diff (B − A)", "paired 95%",
                  "independent 95%", "narrower ×"]  # fmt: skip


def compare_rows(comparison: Comparison) -> list[list[str]]:
    """One row per figure: CHANGED/same, figure, subject, A, B, diff and both intervals."""
    rows = []
    for r in comparison.figures.itertuples():
        rows.append(["CHANGED" if r.changed else "same", r.figure, r.on or "—", _f(r.a, 4),
                     _f(r.b, 4), _f(r.diff, 4), _bounds(r.diff_ci_lo, r.diff_ci_hi, 4),
                     _bounds(r.diff_ci_independent_lo, r.diff_ci_independent_hi, 4),
                     _times(r.narrowing)])  # fmt: skip
    return rows


def _times(ratio: float) -> str:
    """How many times narrower the paired interval is (∞ when it has no width at all)."""
    return "∞" if ratio == float("inf") else _f(ratio, 1)


def render_compare(comparison: Comparison, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``compare.html`` and ``compare.md`` into ``out_dir``, atomically."""
    a, b = comparison.labels
    identity = (f"A: {a} · B: {b} · rules {comparison.a.rules} · seed {comparison.a.seed} · "
                f"{comparison.a.encounters:,} encounters each, the same dice · "
                f"K = {comparison.ranges} ranges · simlab {__version__}")  # fmt: skip
    parts: list[PagePart] = [
        ("Figures", _COMPARE_NOTE, (COMPARE_HEADER, compare_rows(comparison)), [])
    ]
    return _write_page(Path(out_dir), "compare", "A/B comparison", identity, parts)


def sweep_tables(sweep: SweepResult) -> dict[str, pd.DataFrame]:
    """The tidy tables written as Parquet: one column per varied field, then the figures."""
    return {"attacks": sweep.attacks(), "damage_pmf": sweep.damage_pmf(),
            "combatants": sweep.combatants(), "sides": sweep.sides()}  # fmt: skip


# -- terminal ------------------------------------------------------------------------------


def _print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    from simlab.report.terminal import _name_column, _table, console

    table = _table(title)
    for k, name in enumerate(header):
        _name_column(table, name, [row[k] for row in rows])
    for row in rows:
        table.add_row(*row)
    console.print(table)


def _exact_cell(value: float) -> str:
    from simlab.report.terminal import _plain

    return "—" if pd.isna(value) else _plain(value, 4)


def sweep_attack_tables(sweep: SweepResult) -> list[Table]:
    """The damage curves as terminal tables, one per attack pair with one row per point;
    figures as ``value ± half-width``, no crit column for a rule system without crits."""
    from simlab.report.terminal import _number_column, _pair, _table

    frame = sweep.attacks()
    crits = _has_crits(sweep)
    tables = []
    for (attacker, attack, defender), curve in frame.groupby(
        ["attacker", "attack", "defender"], sort=False
    ):
        table = _table(f"{_pair(attacker, attack, defender)} (± 95% interval)")
        _field_columns(table, sweep)
        exact = bool(curve.exact_mean_damage.notna().any())
        for column in ("hit rate", *(["crit rate"] if crits else []), "mean damage",
                       *(["exact\nmean"] if exact else [])):  # fmt: skip
            _number_column(table, column)
        for _, r in curve.iterrows():
            crit = [_estimate(r, "crit_rate")] if crits else []
            table.add_row(*(str(r[f]) for f in sweep.fields), _estimate(r, "hit_rate"),
                          *crit, _estimate(r, "mean_damage"),
                          *([_exact_cell(r.exact_mean_damage)] if exact else []))  # fmt: skip
        tables.append(table)
    return tables


def sweep_combatants_table(sweep: SweepResult) -> Table:
    """Down rate, time-to-down and win rate at every point, as a terminal table."""
    from simlab.report.terminal import _name_column, _number_column, _rounds, _table

    frame = sweep.combatants()
    table = _table("time-to-down (rounds, ± 95% interval)")
    _name_column(table, "combatant", list(frame.combatant))
    _field_columns(table, sweep)
    exact = bool(frame.exact_mean_time_to_down.notna().any())
    for column in ("down rate", "mean if\ndowned", "median", *(["exact\nmean"] if exact else [])):
        _number_column(table, column)
    for name, r, last in _grouped(frame, "combatant"):
        median = "—" if pd.isna(r.median_time_to_down) else _rounds(r.median_time_to_down)
        table.add_row(name, *(str(r[f]) for f in sweep.fields), _estimate(r, "down_rate"),
                      _estimate(r, "mean_time_to_down"), median,
                      *([_exact_cell(r.exact_mean_time_to_down)] if exact else []),
                      end_section=last)  # fmt: skip
    return table


def sweep_sides_table(sweep: SweepResult) -> Table:
    """Win rate of each side (and the draw rate) at every point, as a terminal table."""
    from simlab.report.terminal import _name_column, _number_column, _table

    frame = sweep.sides()
    table = _table("outcome (± 95% interval)")
    _name_column(table, "side", [str(s) for s in frame.side])
    _field_columns(table, sweep)
    _number_column(table, "win rate")
    for name, r, last in _grouped(frame, "side"):
        table.add_row(name, *(str(r[f]) for f in sweep.fields), _estimate(r, "win_rate"),
                      end_section=last)  # fmt: skip
    return table


def _grouped(frame: pd.DataFrame, key: str) -> Iterator[tuple[str, Any, bool]]:
    """The rows of ``frame`` by ``key``, in order: (the key on a group's first row, else
    "", the row, whether it is the group's last)."""
    for _, group in frame.groupby(key, sort=False):
        for k, (_, row) in enumerate(group.iterrows()):
            yield (str(row[key]) if k == 0 else ""), row, k == len(group) - 1


def _field_columns(table: Table, sweep: SweepResult) -> None:
    """A column per varied field, headed by the field alone (``guard``) where that names
    it unambiguously (the heading line above the tables gives ``NAME.FIELD``)."""
    from simlab.report.terminal import _name_column

    short = [name.rpartition(".")[2] for name in sweep.fields]
    unique = len(set(short)) == len(short)
    for name, field in zip(sweep.fields, short, strict=True):
        _name_column(table, field if unique else name, [])


def _estimate(row: Any, name: str) -> str:
    """Figure ``name`` of a table row as ``value ± half-width`` (its 95% interval)."""
    from simlab.report.terminal import estimate

    return estimate(row[name], row[f"{name}_ci95_lo"], row[f"{name}_ci95_hi"])


def _has_crits(sweep: SweepResult) -> bool:
    for point in sweep.points:
        if point.result is not None:
            return bool(getattr(point.result.layout, "crits", True))
    return True


SWEEP_NOTE = (
    "Every point ran on the same seed (common random numbers). exact: the exact mean "
    "damage against a fresh defender, or the exact mean time-to-down of a duel (no "
    "round cap), where the exact engine answers the point. mean if downed: among the "
    "encounters in which the combatant went down; median: the round by which half of all "
    "encounters had it down (—: fewer than half did)."
)


def print_sweep(sweep: SweepResult) -> None:
    """Print a sweep's damage curves, time-to-down and win rates as tables that fit the
    terminal (80 columns and up)."""
    from simlab.report.terminal import console

    console.print(f"{sweep.scenario} · {sweep.encounters:,} encounters per point · seed "
                  f"{sweep.seed} · varied: {', '.join(sweep.fields)}", markup=False,
                  highlight=False)  # fmt: skip
    for table in sweep_attack_tables(sweep):
        console.print(table)
    console.print(sweep_combatants_table(sweep))
    console.print(SWEEP_NOTE, markup=False, highlight=False)
    console.print(sweep_sides_table(sweep))


#: Figure names as a designer reads them.
FIGURE_LABELS = {
    "hit_rate": "hit rate", "crit_rate": "crit rate", "mean_damage": "mean damage",
    "down_rate": "down rate", "mean_time_to_down": "mean time-to-down",
    "median_time_to_down": "median time-to-down", "win_rate": "win rate",
    "draw_rate": "draw rate", "mean_rounds": "mean rounds",
}  # fmt: skip


def compare_table(comparison: Comparison) -> Table:
    """Every shared figure of A and B as a terminal table: the difference with its paired
    95% interval and how much narrower it is than two independent runs' (the
    independent interval itself too in a wide terminal)."""
    from simlab.report.terminal import _name_column, _number_column, _table, _wide

    frame = comparison.figures
    labels = [FIGURE_LABELS.get(f, f.replace("_", " ")) for f in frame.figure]
    ons = [on or "—" for on in frame.on]
    table = _table("A/B on the same dice (diff = B − A, ± paired 95% interval)")
    _number_column(table, "")
    _name_column(table, "figure", labels)
    _name_column(table, "on", ons)
    wide = _wide()
    for column in ("A", "B", "diff", *(["independent 95%"] if wide else []), "narrower\n×"):
        _number_column(table, column)
    for r, label, on in zip(frame.itertuples(), labels, ons, strict=True):
        digits = _digits(r.diff_ci_hi - r.diff_ci_lo)
        independent = ([_bounds(r.diff_ci_independent_lo, r.diff_ci_independent_hi, digits,
                                sign="+")] if wide else [])  # fmt: skip
        table.add_row("✱" if r.changed else "", label, on, _number(r.a, digits),
                      _number(r.b, digits), _diff(r.diff, r.diff_ci_lo, r.diff_ci_hi, digits),
                      *independent, _times(r.narrowing))  # fmt: skip
    return table


def _digits(width: float) -> int:
    """Decimals that show a figure to its paired interval's precision (2 to 4)."""
    import math

    half = width / 2
    if not math.isfinite(half) or half <= 0:
        return 4
    return min(max(-math.floor(math.log10(half)), 2), 4)


def _number(value: float, digits: int, sign: str = "") -> str:
    return "—" if pd.isna(value) else f"{value:{sign}.{digits}f}"


def _diff(diff: float, lo: float, hi: float, digits: int) -> str:
    """``+0.052 ± 0.004``; ``0`` when A and B agree on every encounter."""
    from simlab.report.terminal import rounded_up

    half = max(diff - lo, hi - diff)
    if pd.isna(diff):
        return "—"
    if pd.isna(half):
        return f"{diff:+.{digits}f}"
    if half <= 0 and diff == 0:
        return "0"
    return f"{diff:+.{digits}f} ± {rounded_up(half, digits):.{digits}f}"


def print_compare(comparison: Comparison) -> None:
    """Print every shared figure of A and B with the paired (and, wide, independent)
    intervals, the figures that changed first."""
    from simlab.report.terminal import console

    a, b = comparison.labels
    console.print(f"A: {a}  ·  B: {b}  ({comparison.a.encounters:,} encounters each, the "
                  f"same dice; intervals from {comparison.ranges} paired ranges)",
                  markup=False, highlight=False)  # fmt: skip
    console.print(compare_table(comparison))
    console.print(COMPARE_TERMINAL_NOTE, markup=False, highlight=False)


#: What the terminal's comparison table shows, printed under it.
COMPARE_TERMINAL_NOTE = (
    "✱ changed: the paired interval excludes 0. The paired interval is measured on the "
    "same dice; narrower ×: how many times narrower it is than the interval two "
    "independent runs of this size would give."
)


def _figure_text(value: float, lo: float, hi: float, method: str) -> str:
    """A tuned figure: ``3 (exact)``, or ``0.497 ± 0.004`` (its 95% interval)."""
    from simlab.report.terminal import estimate

    if method == "exact":
        return f"{value:.4g} (exact)"
    return estimate(value, lo, hi)


def print_tune(result: TuneResult) -> None:
    """Print a tuning: the closest value, its neighbours, the consistent range, and how."""
    from simlab.report.terminal import console

    best, t = result.best, result.target
    shown = sorted([*result.neighbours(), best], key=lambda e: e.value)
    rows = [[f"{e.value:g}" + ("  ◀" if e is best else ""),
             _figure_text(e.figure, e.lo, e.hi, e.method), e.method] for e in shown]  # fmt: skip
    _print_table(f"{result.field} for {t} (the value and its neighbours)",
                 [result.field, str(t.figure), "method"], rows)  # fmt: skip
    say = functools.partial(console.print, markup=False, highlight=False)
    figure = _figure_text(best.figure, best.lo, best.hi, best.method)
    if not result.reachable:
        say(f"unreachable: {t} is outside what {result.field} = {result.lo:g}..{result.hi:g} "
            f"reaches; closest: {result.field}={result.value:g} gives {figure}")  # fmt: skip
    else:
        say(f"{result.field}={result.value:g} gives {t.figure} = {figure} (target {t.value:g})")
    if result.consistent is None:
        between = [(a, b) for a, b in itertools.pairwise(result.evaluations)
                   if min(a.figure, b.figure) <= t.value <= max(a.figure, b.figure)]  # fmt: skip
        where = (f"; it lies between {result.field}={between[0][0].value:g} and "
                 f"{between[0][1].value:g}" if between else "")  # fmt: skip
        say(f"consistent with the target: no value (no figure's interval contains "
            f"{t.value:g}; an exact figure must equal it){where}")  # fmt: skip
    else:
        lo, hi = result.consistent
        values = f"{lo:g}" if lo == hi else f"{lo:g}..{hi:g}"
        say(f"consistent with the target: {result.field} = {values}")
    say(f"how: {result.how()}")
