"""The balance report: ``report.html`` (self-contained), ``report.md`` and the PNGs.

Per scenario: its identity (seed, sample size, simlab version, rules id), the balance
specs' verdicts, the comparison with the baseline, the hit- and crit-rate table with
intervals, damage curves (distribution and "at least x", per attack against each
defender, the exact answer overlaid where there is one), time-to-down curves per side
(P(downed by round r) over all encounters, with their bands), and the win and draw
rates.

``report.html`` inlines every image as base64 PNG and its style sheet, and refers to
nothing outside itself (no scripts, fonts or links to the web), so it opens offline.
``report.md`` has the same tables with links to the PNG files, for CI job summaries.
Plots are drawn on Agg figures of their own, whatever pyplot's backend.
"""

from __future__ import annotations

import base64
import functools
import itertools
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import jinja2
import pandas as pd
from markupsafe import Markup
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlab import __version__
from simlab.analysis.drift import (
    DriftReport,
    event_rate_name,
    figure_name,
    figure_said,
    key,
    label,
    subject_said,
)
from simlab.analysis.result import Result
from simlab.exact import pair_answer
from simlab.report import plots
from simlab.report.files import atomic_write
from simlab.report.gate import write_drift_json
from simlab.report.results import ScenarioRun, save_results
from simlab.report.terminal import (
    EVENT_COLUMNS_PER_TABLE,
    MEDIAN_NOTE,
    NO_CRIT,
    NOT_REACHED,
    crit_note,
    crit_rate_said,
    decimals,
    event_rate_cells,
    exact_number,
    figure_number,
    figure_range,
    format_p,
    formatted,
    held_half_width,
    held_to,
    interval_cell,
    measured_cell,
    median_and_interval,
    median_note,
    percent,
    plain_number,
    rounds_label,
    shown_events,
)
from simlab.report.terminal import events_title as terminal_events_title
from simlab.report.words import (
    already,
    counted,
    never_down_note,
    overrides_said,
    unattacked_among,
)
from simlab.report.wrapped import WrappingLayout, png_bytes

__all__ = ["render_report"]

PNG_DIR = "png"
#: 100 dpi: a 10-inch figure is 1000 px, shown at 100% in the page (max 1100 px wide), so
#: its 10-11 pt text is 14-15 px, legible on a laptop without zooming.
DPI = 100
FONT: dict[str, Any] = {"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10,
                        "xtick.labelsize": 9, "ytick.labelsize": 9,
                        "legend.fontsize": 9}  # fmt: skip
#: The screens a picture's phone drawing is shown on (:attr:`Picture.phone_png`), and its
#: width (inches at :data:`DPI`): a 390 px phone's page less its margins, 364 px.
PHONE_MEDIA = "(max-width: 40em)"
PHONE_WIDTH = 3.6
#: At most this many defenders per damage plot (the rest are in the tables, and its
#: caption names them).
MAX_DEFENDERS = 6


@dataclass
class Picture:
    """One PNG of the report."""

    file: str
    title: str
    png: bytes
    kind: str = "rates"
    caption: str = ""
    #: The picture drawn as wide as a phone's page, its legend under the plot, which a
    #: page shows in its place on a narrow screen (:data:`PHONE_MEDIA`); None: none.
    phone_png: bytes | None = None

    @property
    def phone_data_uri(self) -> str:
        """The phone's PNG inline, for ``<source srcset=…>`` ("" without one)."""
        if self.phone_png is None:
            return ""
        return "data:image/png;base64," + base64.b64encode(self.phone_png).decode("ascii")

    @property
    def data_uri(self) -> str:
        """The PNG inline, for ``<img src=…>``."""
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


@dataclass(frozen=True)
class Prose:
    """A line of the report with code spans in it (a command: ``simlab exact``): in
    ``<code>`` on the HTML page, a code span in ``report.md``, between backticks as
    plain text. Only the report's own words are code; names are always plain text."""

    parts: tuple[tuple[str, bool], ...]

    @classmethod
    def of(cls, *parts: str | tuple[str]) -> Prose:
        """``Prose.of("see ", ("simlab exact",), " for why")``: a 1-tuple is code."""
        return cls(tuple((p[0], True) if isinstance(p, tuple) else (p, False) for p in parts))

    def __str__(self) -> str:
        return "".join(f"`{text}`" if code else text for text, code in self.parts)

    def html(self) -> Any:
        """The line for the HTML page, escaped, code spans in ``<code>``."""
        from markupsafe import Markup, escape

        return Markup("").join(Markup("<code>{}</code>").format(text) if code else escape(text)
                               for text, code in self.parts)  # fmt: skip

    def md(self) -> str:
        """The line for ``report.md``: names escaped (:func:`md_text`), code spans kept."""
        return "".join(f"`{text}`" if code else md_text(text) for text, code in self.parts)


def _html_text(value: str | Prose) -> Any:
    """A table cell or line for the HTML page: escaped, a :class:`Prose`'s code in
    ``<code>``, a hyphenated word kept whole (:func:`whole_words`)."""
    return value.html() if isinstance(value, Prose) else whole_words(value)


#: A word with a hyphen inside it: ``stone-strike``, ``shattered-spirits``, ``1e-16``; or
#: at its start: an option, ``--baseline`` (a phone broke it as ``--`` over ``baseline``);
#: or a slash, colon or equals sign inside it, where it may break (:data:`_BREAK_AFTER`).
_HYPHENATED = re.compile(r"\S*\w[-/:=]\w\S*|(?<!\S)-+[A-Za-z]\S*")
#: Where such a word may break on a narrow screen: after a slash, colon or equals sign
#: inside it (``mean_damage:`` ``strike/`` ``Defender=4.5``, a tune page's target).
_BREAK_AFTER = re.compile(r"(?<=\w[/:=])(?=\w)")


def whole_words(text: str) -> Any:
    """``text`` escaped for the HTML page, each word with a hyphen inside it in a span
    the browser does not break (``span.word``): on a phone, names broke at their
    hyphens, ``stone-`` over ``strike``, ``rules shattered-`` over ``spirits``, and an
    option after its dashes, ``--`` over ``baseline`` (:data:`_HYPHENATED`). The
    hyphens stay ``-``, so that a search of the page for the name still finds it (a
    non-breaking hyphen would not). A path may break after a slash (``<wbr>``), each of
    its parts whole: ``scenarios/glitters-d20/knight-vs-skeleton.yaml`` in one span made
    a 390 px phone's page scroll sideways; so may a word after a colon or an equals sign
    inside it: a tune page's target, ``mean_damage:strike/Defender=4.5``, was as wide
    as its column on a phone."""
    from markupsafe import Markup, escape

    def kept(word: re.Match[str]) -> str:
        parts = _BREAK_AFTER.split(word.group(0))
        return "<wbr>".join(f'<span class="word">{part}</span>' for part in parts)

    return Markup(_HYPHENATED.sub(kept, str(escape(text))))


def _md_value(value: str | Prose) -> str:
    return value.md() if isinstance(value, Prose) else md_text(value)


@dataclass
class ExactDrawn:
    """What of the exact answers one scenario's plots drew, for its "exact engine" line."""

    damage_plots: int = 0  # damage plots with the exact answer: diamonds, a line or both
    hit_rate_marks: bool = False  # open black diamonds on the hit-rate plot
    curves: int = 0  # exact time-to-down curves (a duel's)
    damage_lines: int = 0  # of the damage plots, those where it is a line (too many values)


@dataclass
class Section:
    """What the report shows for one scenario."""

    run: ScenarioRun
    anchor: str
    identity: list[tuple[str, str | Prose]]
    attack_header: list[str]
    attacks: list[list[str]]
    combatant_header: list[str]
    combatants: list[list[str]]
    events: list[tuple[list[str], list[list[str]]]]  # each events table's header and rows
    outcome: list[list[str]]
    specs: list[list[str]]
    drift: list[list[str]]
    notes: list[str]
    pictures: list[Picture] = field(default_factory=list)
    headline: list[str] = field(default_factory=list)
    copies_apart: list[str] = field(default_factory=list)
    copies_pooled: list[str] = field(default_factory=list)
    damage_skipped: list[str] = field(default_factory=list)
    attack_note: str = ""  # under the attacks table: a crit rate of "—", or none
    time_to_down_note: str = ""  # under its pictures: the sides none of whom is attacked
    damage_diamonds: bool = False  # a damage plot draws exact answers: the note names them
    damage_lines: bool = False  # one draws them as a line: the note says so too

    @property
    def time_to_down_terms(self) -> list[tuple[str, str]]:
        """What the time-to-down table and curves show, term by term
        (:data:`TIME_TO_DOWN_TERMS`), the median's by the intervals of this table
        (:func:`~simlab.report.terminal.median_note`)."""
        median = median_note(self.run.result.combatants()).removeprefix("Median: ")
        return [(term, median if term == "Median" else meaning)
                for term, meaning in TIME_TO_DOWN_TERMS]  # fmt: skip

    @property
    def events_title(self) -> str:
        """The heading of the events tables, the terminal's title (:func:`events_title`)."""
        return events_title(self.run.result)

    @property
    def events_terms(self) -> list[tuple[str, str]]:
        """What the events tables show, term by term: what an event's rate is where they
        show one (zones-3d6's show none: its one event is the down itself), and what
        the per-encounter means are where they show any."""
        res = self.run.result
        means = [MEAN_NAMES[name] for name in res.layout.per_encounter_tallies]
        said = [(" and ".join(means).capitalize(), MEANS_MEANING)] if means else []
        return [*([EVENTS_TERM] if shown_events(res) else []), *said]


# -- formatting --------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text.replace("×", "x")).strip("-").lower() or "x"


def _png(draw: Callable[[Figure], None], size: tuple[float, float]) -> bytes:
    import matplotlib

    with matplotlib.rc_context(FONT):  # type: ignore[arg-type]
        fig = Figure(figsize=size, dpi=DPI, layout=WrappingLayout())
        FigureCanvasAgg(fig)
        draw(fig)
        # No metadata: no software string (with its web address) or date inside the PNG.
        return png_bytes(fig, metadata={"Software": None})


# -- tables ------------------------------------------------------------------------------


#: The tables' headers, each figure whose name does not say its unit with it, as the
#: terminal's comparison names them: ``mean damage (HP)``, ``… time-to-down (rounds)``.
ATTACK_HEADER = ["attacker", "attack", "defender", "attempts", "hit rate [95%]",
                 "crit rate [95%]", "mean damage (HP) [95%]",
                 "exact hit / crit / mean"]  # fmt: skip
#: The time-to-down table's columns are the terminal's, by its names (``mean if downed``,
#: ``median if downed``): the page gave no mean and called the median "when downed".
COMBATANT_HEADER = ["combatant", "side", "down rate [95%]",
                    "median (rounds) [95%]", "mean if downed (rounds) [95%]",
                    "median if downed (rounds)", "capped"]  # fmt: skip
OUTCOME_HEADER = ["side", "wins", "win rate [95%]"]
SPEC_HEADER = ["spec", "measured [95%]", "n", "verdict"]
DRIFT_HEADER = ["status", "figure", "subject", "baseline", "current", "change", "Holm p",
                "tolerance"]  # fmt: skip


def _exact_attacks(run: ScenarioRun) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(e["attacker"], e["attack"], e["defender"]): e
            for e in (run.exact or {}).get("attacks", [])}  # fmt: skip


def _attack_rows(run: ScenarioRun) -> tuple[list[str], list[list[str]], str]:
    """The attacks table's header, rows and the note under it. A pair that cannot crit
    reads :data:`~simlab.report.terminal.NO_CRIT` in the crit rate's column, not
    ``0 [0, 0.0002]`` beside its exact 0, and the column is left out where no pair says
    one, as the terminal decides (:func:`~simlab.report.terminal.crit_rate_said`: by
    the scenario simulated, else by the run's exact answers, else by whether the run saw
    a crit) and notes it; no crit rate in a rule system without crits (``Layout.crits``),
    where it is 0 by the rules. The exact column gives a crit rate only beside the crit
    rate's column (``exact hit / mean`` where it is left out)."""
    res = run.result
    rates, damage = res.hit_rates(), res.damage()
    answers = _exact_attacks(run)
    exact_crits = {pair: pair_answer(entry, "crit_rate") for pair, entry in answers.items()}
    said, why = crit_rate_said(res, rates, exact_crits)
    crits = any(said)
    exact_digits = [(f, n) for f, n in EXACT_DIGITS if crits or f != "crit_rate"]
    header = [h for h in ATTACK_HEADER if crits or h != "crit rate [95%]"]
    header[-1] = "exact " + " / ".join(EXACT_LABELS[f] for f, _ in exact_digits)
    rows = []
    for r, d, says in zip(rates.itertuples(), damage.itertuples(), said, strict=True):
        ex = answers.get((r.attacker, r.attack, r.defender))
        figures = [] if ex is None else [_exact_figure(ex, f, n) for f, n in exact_digits]
        if all(f == NO_EXACT for f in figures):  # no exact figure at all: one mark
            figures = []
        crit = [interval_cell(r, "crit_rate", bracketed=True) if says else NO_CRIT]
        rows.append([r.attacker, r.attack, r.defender, f"{r.attempts:,}",
                     interval_cell(r, "hit_rate", bracketed=True), *(crit if crits else []),
                     interval_cell(d, "mean_damage", bracketed=True),
                     " / ".join(figures) or NO_EXACT])  # fmt: skip
    return header, rows, crit_note(said, res.layout.crits, why=why)


#: An exact figure the page does not give (not solved, or moved by the fight), and a row's
#: exact cell with none of its figures: one mark, which the "exact engine" line explains.
NO_EXACT = "—"
#: The exact figures of an attack row, in order, with their decimals.
EXACT_DIGITS = (("hit_rate", 4), ("crit_rate", 4), ("mean_damage", 4))
#: Their names in the exact column's header.
EXACT_LABELS = {"hit_rate": "hit", "crit_rate": "crit", "mean_damage": "mean"}


def _exact_figure(entry: dict[str, Any], figure: str, digits: int) -> str:
    """An exact figure of an attack row, or "—" where the fight moves it (its caveat)."""
    value = pair_answer(entry, figure)
    return NO_EXACT if math.isnan(value) else exact_number(value, figure)


def event_header(event: str) -> str:
    """The combatant table's header of an event's rate: the name the drift gate and the
    spec lines give that rate (:func:`simlab.analysis.names.event_rate_name`: ``rate of
    spending Momentum``), so that a figure reads alike in the table and in a drift or
    spec line."""
    return event_rate_name(event)


#: The combatant table's headers of the per-encounter means, short (the header row was
#: three lines tall at the page's width); the note above the table says they are means
#: per encounter (:data:`MEANS_MEANING`).
MEAN_HEADERS = {
    "status_damage": "status damage (HP) [95%]",
    "momentum_spent": "Momentum spent [95%]",
}
#: Their names in the note above the table (:data:`MEANS_MEANING`).
MEAN_NAMES = {"status_damage": "status damage", "momentum_spent": "Momentum spent"}


def _combatant_rows(res: Result) -> tuple[list[str], list[list[str]]]:
    """The time-to-down table: down rate, median, mean and median if downed, capped.
    The events are tables of their own (:func:`event_tables`), as at the terminal."""
    rows = [[row.combatant, row.side, interval_cell(row, "down_rate", bracketed=True),
             _median_cell(row), interval_cell(row, "mean_time_to_down", bracketed=True),
             decimals(row.median_time_to_down_when_downed, 0), f"{row.capped:,}"]
            for row in res.combatants().itertuples()]  # fmt: skip
    return list(COMBATANT_HEADER), rows


def events_title(res: Result) -> str:
    """The heading of a run's events tables, the terminal's title
    (:func:`~simlab.report.terminal.events_title`) as a heading: ``Events (share of
    encounters) and means per encounter``."""
    title = terminal_events_title(res)
    return title[:1].upper() + title[1:]


def event_tables(res: Result) -> list[tuple[list[str], list[list[str]]]]:
    """The events tables of a run, each a header and rows, each row a combatant's: the
    rates of the events the terminal shows too (:func:`shown_events`: not zones-3d6's
    ``out``, the down itself, whose column repeated the down rate), then the
    per-encounter means; at most :data:`EVENT_COLUMNS_PER_TABLE` figures a table, as at
    the terminal, spread evenly (eleven: 4, 4 and 3), so that each fits a laptop's
    page (beside the time-to-down figures, party-vs-monsters' scrolled at 1280 px). None
    where there is no such figure.

    Parameters
    ----------
    res : Result
        The run.

    Returns
    -------
    list of (list of str, list of list of str)
        Each table's header (``combatant`` first) and rows.
    """
    means = [(name, res.per_encounter(name)) for name in res.layout.per_encounter_tallies]
    header = [f"{event_header(e)} [95%]" for e in shown_events(res)]
    header += [MEAN_HEADERS[name] for name, _ in means]
    cells = event_rate_cells(res, bracketed=True)
    for c, row in enumerate(cells):
        row += [interval_cell(m.iloc[c], f"mean_{name}", bracketed=True) for name, m in means]
    if not header:
        return []
    names = [name for _, name in res.layout.combatants]
    bounds = [0, *itertools.accumulate(_spread(len(header), EVENT_COLUMNS_PER_TABLE))]
    return [(["combatant", *header[a:b]],
             [[name, *row[a:b]] for name, row in zip(names, cells, strict=True)])
            for a, b in itertools.pairwise(bounds)]  # fmt: skip


def _spread(count: int, most: int) -> list[int]:
    """``count`` columns over as few tables of at most ``most`` as hold them, as evenly
    as can be, the first ones wider: 11 over 5 is 4, 4, 3."""
    tables = -(-count // most)
    even, rest = divmod(count, tables)
    return [even + 1] * rest + [even] * (tables - rest)


def _median_cell(row: Any) -> str:
    """The median time-to-down with its interval (:func:`median_and_interval`)."""
    return median_and_interval(row.median_time_to_down, row.median_time_to_down_ci95_lo,
                               row.median_time_to_down_ci95_hi)  # fmt: skip


def _outcome_rows(res: Result) -> list[list[str]]:
    wins = res.win_rates()
    return [[r.side, f"{r.wins:,}",
             interval_cell(r, "win_rate", bracketed=True)]
            for r in wins.itertuples()]  # fmt: skip


def _spec_rows(specs: pd.DataFrame | None, run: ScenarioRun) -> list[list[str]]:
    if specs is None or specs.empty:
        return []
    rows = []
    for s in specs[(specs.scenario == run.scenario) & (specs.rules == run.rules)].itertuples():
        verdict = s.verdict.upper() + _borderline_said(s)
        spec = s.spec + (f" — {s.note}" if s.note else "")
        measured = _measured(s)
        rows.append([spec, measured, f"{s.n:,}", verdict])
    return rows


def _borderline_said(spec: Any) -> str:
    """What a spec's verdict adds when its interval reaches past the bound: that it is a
    pass failed only by ``strict`` (its measured value is within the bound), in the
    terminal's words (:func:`~simlab.report.terminal.specs_table`), or that it is
    borderline; "" otherwise."""
    if getattr(spec, "failed_by_strict", False):
        return " (--strict: a borderline pass, its interval reaching past the bound)"
    return " (borderline: the interval reaches past the bound)" if spec.borderline else ""


def _measured(spec: Any) -> str:
    """A spec's measured figure with its 95% interval, as the pages show one."""
    return measured_cell(spec, bracketed=True)


def _p_is(p: float) -> str:
    text = format_p(p)
    return text if text.startswith("<") else f"= {text}"


def drift_status(row: Any) -> str:
    """``DRIFT``, ``changed, within tolerance``, ``ok``, or ``not tested`` (a mean one
    run has too few values for, :mod:`simlab.analysis.drift`) for one drift-table row."""
    if row.drifted:
        return "DRIFT"
    if row.test == "none":
        return "not tested"
    return "changed, within tolerance" if row.significant else "ok"


#: The subject cell, on the page and in ``report.md``, of a drift-table row of a figure
#: of the whole encounter (encounter length, draw rate): empty, it read as a missing value.
#: (The terminal's narrow table names the figure alone, "encounter length", as its lines do.)
WHOLE_ENCOUNTER = "the encounter"


def drift_cells(row: Any) -> list[str]:
    """The displayed cells of one drift-table row (see :data:`DRIFT_HEADER`). A median
    that did not move has ``—`` for its Holm p: that p is its time-to-down's, on that
    figure's row, and beside ``ok`` it read ``< 1e-16``."""
    change = drift_change(row)
    tol = (
        f"TV {row.tolerance:g}"
        if row.kind == "pmf"
        else (f"{row.tolerance:g} × max(|base|, 1)" if row.kind == "mean" else f"{row.tolerance:g}")
    )
    unmoved = row.kind == "median" and row.change == 0
    return [drift_status(row), figure_name(row.figure), subject_said(row.figure, row.subject),
            _drift_value(row, row.baseline),
            _drift_value(row, row.current), change, "—" if unmoved else format_p(row.p_holm),
            tol]  # fmt: skip


def drift_change(row: Any) -> str:
    """A drift row's change as the tables and lists show it: ``TV 0.115`` for a
    distribution; for a median that one of the runs does not reach by the round cap
    (its change is infinite), ``not reached now`` or ``reached now``, never ``+inf``;
    else signed, to the decimals of the figures it is the change of (``0.0649 → 0.0122``
    changed by ``-0.0527``, not ``-0.05262``), a change that is not 0 never reading as
    one (``0.0001 → 4e-05`` changed by ``-6e-05``, :func:`figure_number`); between two
    whole figures, written bare, bare too (``0 → 0`` by ``0``, ``4 → 5`` by ``+1``)."""
    if row.kind == "pmf":
        return f"TV {formatted(row.change, '.3f')}"
    if row.kind == "median":
        if math.isinf(row.change) or math.isnan(row.change):
            return f"{'not reached' if pd.isna(row.current) else 'reached'} now"
        return formatted(row.change, "+.0f")
    whole = float(row.baseline).is_integer() and float(row.current).is_integer()
    change = plain_number(row.change) if whole else figure_number(row.change, 4)  # 0 → 0: "0"
    return f"+{change}" if row.change > 0 and float(change) else change  # "0.0000" unsigned


def _drift_value(row: Any, value: float) -> str:
    """A drift row's baseline or current figure: a median in whole rounds, NaN there
    being a median the round cap does not reach (:data:`NOT_REACHED`); a whole number
    (a rate of exactly 0 or 1, a mean of the same damage on every attack) bare, as the
    tables write a rate at its limit and a figure with no spread (``1 (> 0.998)``,
    ``4``), where ``1.0000`` read as a rate rounded to 1; any other to 4 decimals, never
    reading as 0 or a rate's 1 that it is not (``4e-05``, not ``0.0000``:
    :func:`figure_number`, the rule of every figure on the pages)."""
    if row.kind == "median":
        return rounds_label(value)
    if float(value).is_integer():
        return plain_number(value)
    return figure_number(value, 4, figure_range(row.figure))


def _drift_rows(drift: DriftReport | None, run: ScenarioRun) -> list[list[str]]:
    """The drift table of ``run``'s section, on the page and in ``report.md``
    (:func:`drift_cells`), a figure of the whole encounter's subject filled in
    (:data:`WHOLE_ENCOUNTER`)."""
    if drift is None:
        return []
    t = drift.table
    mine = t[(t.scenario == run.scenario) & (t.rules == run.rules)].itertuples()
    return [[*c[:2], c[2] or WHOLE_ENCOUNTER, *c[3:]] for c in map(drift_cells, mine)]


# -- pictures ----------------------------------------------------------------------------


#: How a sweep's legend names the exact answer of one of its lines (``report.tuning``).
EXACT_SUFFIX = " (exact)"
EXACT_CAPTION = "Open black diamonds: the exact answer against a fresh defender."
#: The caption of a damage plot whose exact answer is drawn as a line, in one panel or
#: both (:data:`~simlab.report.plots.EXACT_STEPS_LABEL`): too many damage values for
#: diamonds.
EXACT_LINE_CAPTION = ("Thin black line: the exact answer against a fresh defender (too many "
                      "damage values for diamonds).")  # fmt: skip
#: Where a damage plot drew the exact answer as a line: said after "open black diamonds"
#: in the scenario's "exact engine" line and its Damage note.
EXACT_LINE_ASIDE = " (a thin black line on a plot with too many damage values for them)"
EXACT_BOTH_CAPTION = ("Open black diamonds, and a thin black line where there are too "
                      "many damage values for them: the exact answer against a fresh "
                      "defender.")  # fmt: skip


def exact_caption(*axes: Any) -> str:
    """What a damage picture's caption says of the exact answer drawn on ``axes``:
    diamonds (:data:`EXACT_CAPTION`), a line, both, or nothing ("")."""
    names = {name for ax in axes for name in ax.get_legend_handles_labels()[1]}
    diamonds, line = plots.EXACT_LABEL in names, plots.EXACT_STEPS_LABEL in names
    if diamonds and line:
        return EXACT_BOTH_CAPTION
    return EXACT_LINE_CAPTION if line else EXACT_CAPTION if diamonds else ""


def _shared_legend(fig: Figure, *axes: Any, below: bool = False, ncol: int = 1) -> Any:
    """One legend for side-by-side panels, beside them (right; ``below``: under them, in
    ``ncol`` columns), instead of one per panel: every name any panel gives a line,
    once. A defender's bar (``vs Raider ×4 (n=228,141)``) and its curve (``vs Raider
    ×4``) are one entry, both marks side by side: the legend listed every defender
    twice. Returns the legend."""
    from matplotlib.legend_handler import HandlerTuple

    named: dict[str, Any] = {}
    for ax in axes:
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True):
            named.setdefault(name, handle)
    marks: dict[str, list[tuple[str, Any]]] = {}  # by name without its count
    for name, handle in named.items():
        marks.setdefault(_COUNT.sub("", name), []).append((name, handle))
    pairs: list[tuple[Any, str]] = [
        (tuple(h for _, h in mark) if len(mark) > 1 else mark[0][1],
         max((n for n, _ in mark), key=len))
        for mark in marks.values()
    ]  # fmt: skip
    # the simulated lines first, the exact answers last
    pairs.sort(
        key=lambda hn: (
            hn[1] in (plots.EXACT_LABEL, plots.EXACT_STEPS_LABEL) or hn[1].endswith(EXACT_SUFFIX)
        )
    )
    handles, names = [h for h, _ in pairs], [n for _, n in pairs]
    for ax in axes:
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    where: Literal["outside lower center", "outside right upper"]
    where = "outside lower center" if below else "outside right upper"
    return fig.legend(handles, names, loc=where, frameon=False, ncol=ncol,
                      handler_map={tuple: HandlerTuple(ndivide=None)})  # fmt: skip


#: The count a legend name ends with (``vs Raider ×4 (n=228,141)``), which its other mark
#: in another panel does not carry.
_COUNT = re.compile(r" \(n=[\d,]+\)$")


#: A legend beside a picture's plots wider than this share of the picture goes under them
#: instead: a sweep's line named by three varied fields and its subject
#: (``Plate Knight.bonus_defense=0 · longsword.damage=1d6+3 · Plate Knight``) took 70% of
#: the picture and left the curves a strip 120 px wide.
LONG_LEGEND = 0.3


def _legend_below_when_long(fig: Figure, axes: Sequence[Any], legend: Any,
                            title: Any = None) -> None:  # fmt: skip
    """Move ``legend``, beside ``axes`` at the picture's upper right, under them where it
    is wider than :data:`LONG_LEGEND` of the picture or would reach the picture's
    ``title`` (centred over it: a damage picture's attacker and attack), in as many
    columns as the picture's width holds, and make the picture taller by its height: the
    plots keep the picture's width, unless one column of it is wider, which widens the
    picture to it. Beside a damage picture's plots, the names of defenders of 37
    characters ran over its title."""
    if legend is None:
        return
    width, whole = legend.get_window_extent().width, fig.bbox.width
    title_end = 0.0 if title is None else (whole + title.get_window_extent().width) / 2
    if width <= LONG_LEGEND * whole and title_end + plots.FIGURE_MARGIN * fig.dpi <= whole - width:
        return
    legend.remove()
    below = _shared_legend(fig, *axes, below=True, ncol=max(1, int(whole // width)))
    box = below.get_window_extent()
    fig.set_figheight(fig.get_figheight() + box.height / fig.dpi)
    # an entry wider than the picture widens it: cut off at its edges, it lost its key
    fig.set_figwidth(max(fig.get_figwidth(), box.width / fig.dpi + plots.FIGURE_MARGIN))


#: A defender's damage is drawn only where its bars say something: the 95% band of its
#: "at least x" curve is nowhere wider than this, a quarter of the probability axis. The
#: widest band, at P = 0.5, is about 1.96 / √n wide, so about 60 attacks are needed; a
#: pair of 2 attacks drew a bar of probability 1 and a band from 0.16 to 1 that squashed
#: the other defenders' bars.
MAX_BAND = 0.25


@dataclass
class DamageDefenders:
    """The defenders one attack's damage plot draws, and those it leaves out."""

    drawn: list[str]
    rare: list[tuple[str, int, float]]  # (defender, attacks, widest band) left out
    beyond: list[str]  # past MAX_DEFENDERS: in the attacks table only
    pooled: dict[str, list[str]]  # a pooled label: its copies

    def left_out_text(self) -> str:
        """What the caption says of the defenders left out (empty when none)."""
        said = []
        if self.rare:
            pairs = ", ".join(f"{d} (n={n:,})" for d, n, _ in self.rare)
            its = "its" if len(self.rare) == 1 else "their"
            widest = max(w for *_, w in self.rare)
            said.append(f"Left out, made too rarely to draw: vs {pairs} — the 95% band of "
                        f"{its} damage would be up to {widest:.2f} wide, more than "
                        f"{MAX_BAND:g}; the attacks table has {its} figures.")  # fmt: skip
        if self.beyond:
            said.append(f"Not drawn (at most {MAX_DEFENDERS} defenders a plot): vs "
                        f"{', '.join(self.beyond)}; the attacks table has them.")  # fmt: skip
        return " ".join(said)


def _widest_band(counts: Any, attempts: int) -> float:
    """The widest 95% interval of P(damage ≥ x) over x, from the damage counts."""
    import numpy as np

    from simlab.analysis import stats

    at_least = np.asarray(counts)[::-1].cumsum()[::-1]
    lo, hi, _ = stats.rate_interval(at_least, attempts, plots.LEVEL)
    return float(np.max(np.asarray(hi) - np.asarray(lo)))


def _damage_defenders(run: ScenarioRun, attacker: str, attack: str) -> DamageDefenders:
    """Which defenders ``attacker``'s ``attack`` plot draws (:data:`MAX_BAND`,
    :data:`MAX_DEFENDERS`), copies pooled where its damage to each was alike."""
    data = plots.damage_by_defender(run, attacker, attack)
    drawn, rare = [], []
    for d, group in data.groupby("defender", sort=False):
        attempts = int(group.attempts.iloc[0])
        widest = _widest_band(group["count"].to_numpy(), attempts)
        if widest > MAX_BAND:
            rare.append((str(d), attempts, widest))
        else:
            drawn.append(str(d))
    return DamageDefenders(drawn[:MAX_DEFENDERS], rare, drawn[MAX_DEFENDERS:],
                           dict(data.attrs.get("pooled", {})))  # fmt: skip


#: What a damage plot's drawing tells its caption: the PNG (None: no defender to draw),
#: the defenders drawn and left out, what its caption says of the exact answer on it
#: ("" where there is none, :func:`exact_caption`), and the defenders that took no damage.
DamageDrawn = tuple[bytes | None, DamageDefenders, str, list[str]]


def _damage_png(run: ScenarioRun, attacker: str, attack: str) -> DamageDrawn:
    """``attacker``'s ``attack`` damage plot (:func:`_damage_defenders` says against
    whom), drawn in any process (:func:`draw_sketch`)."""
    choice = _damage_defenders(run, attacker, attack)
    defenders = choice.drawn
    exact_drawn = ""
    unharmed: list[str] = []
    if not defenders:
        return None, choice, exact_drawn, unharmed

    def draw(fig: Figure) -> None:
        nonlocal exact_drawn
        left, right = fig.subplots(1, 2)
        drawn = plots.plot_damage_pmf(run, attacker, attack, defenders, ax=left)
        unharmed[:] = no_damage(drawn)
        plots.plot_damage_at_least(run, attacker, attack, defenders, ax=right)
        exact_drawn = exact_caption(left, right) if (drawn.source == "exact").any() else ""
        left.set_title("damage distribution")
        right.set_title("at least x damage (95% band)")
        title = fig.suptitle(f"{attacker} · {attack}", fontsize=12)
        _legend_below_when_long(fig, [left, right], _shared_legend(fig, left, right), title)

    return _png(draw, (11.0, 3.6)), choice, exact_drawn, unharmed


def _damage_picture(slug: str, attacker: str, attack: str, seen: set[str],
                    drawn_exact: ExactDrawn, skipped: list[str],
                    drawn: DamageDrawn) -> Picture | None:  # fmt: skip
    """The damage plot's :class:`Picture`, named and captioned; None, and a line in
    ``skipped``, where every defender was attacked too rarely to draw."""
    png, choice, exact_drawn, unharmed = drawn
    if png is None:
        skipped.append(f"{attacker} · {attack}: {choice.left_out_text()}")
        return None
    defenders = choice.drawn
    name = _unique(f"{slug}-damage-{_slug(attacker)}-{_slug(attack)}.png", seen)
    drawn_exact.damage_plots += bool(exact_drawn)
    drawn_exact.damage_lines += exact_drawn in (EXACT_LINE_CAPTION, EXACT_BOTH_CAPTION)
    # The exact answer is named only where it was drawn: a fight moves most pairs' damage.
    pooled = [f"{label} pools {', '.join(names)}: the damage this attack did to each is alike."
              for label, names in choice.pooled.items() if label in defenders]  # fmt: skip
    caption = " ".join([f"{attacker} · {attack}: damage per attack against "
                        f"{', '.join(defenders)} (misses count as 0). Bars and dots: simulated.",
                        *([exact_drawn] if exact_drawn else []), *pooled,
                        *(_no_damage_text(unharmed, attack) if unharmed else []),
                        choice.left_out_text()]).strip()  # fmt: skip
    return Picture(name, f"{attacker} · {attack}: damage", png, "damage", caption)


def no_damage(drawn: pd.DataFrame) -> list[str]:
    """The defenders of a damage plot (what :func:`simlab.plots.plot_damage_pmf` drew)
    that took 0 from every attack simulated: their bar is a line at 0 against the axis
    and their "at least x" curve lies under the others at (0, 1)."""
    sim = drawn[drawn.source == "simulated"]
    hurt = sim[(sim.damage > 0) & (sim["count"] > 0)].defender
    return [str(d) for d in dict.fromkeys(sim.defender) if d not in set(hurt)]


def _no_damage_text(unharmed: list[str], attack: str) -> list[str]:
    """The caption's words for the defenders :func:`no_damage` found: their legend
    entries point at nothing to be seen."""
    who = ", ".join(unharmed[:-1]) + " and " * (len(unharmed) > 1) + unharmed[-1]
    return [f"{who} {'take' if len(unharmed) > 1 else 'takes'} no damage from {attack} "
            "(0 from every attack): a bar of height 1 at 0, and a curve hidden under "
            "the others."]  # fmt: skip


@dataclass(frozen=True)
class Sketch:
    """One picture of the report to draw, small to send to a drawing process
    (:mod:`simlab.report.drawing`): a function of this module (sent by its name), the
    place of its scenario among the report's runs (None: ``args`` are all it needs) and
    its other arguments. The function gives the PNG, with what the caption needs to
    know of what it drew."""

    draw: Callable[..., Any]
    run: int | None = None
    args: tuple[Any, ...] = ()


def draw_sketch(sketch: Sketch, runs: Sequence[ScenarioRun]) -> Any:
    """Draw one picture of the report, in this process or another.

    Parameters
    ----------
    sketch : Sketch
        The picture.
    runs : sequence of ScenarioRun
        The report's runs, which ``sketch.run`` is the place of one of.

    Returns
    -------
    object
        What ``sketch.draw`` gives: the PNG's bytes, or them and what its caption needs.
    """
    where = () if sketch.run is None else (runs[sketch.run],)
    return sketch.draw(*where, *sketch.args)


#: A planned picture: what to draw, and what makes its :class:`Picture` of the drawing
#: (None: nothing to show).
Planned = tuple[Sketch, Callable[[Any], Picture | None]]


def _rates_png(run: ScenarioRun) -> tuple[bytes, bool]:
    """The hit-rate plot, and whether an exact rate is marked on it."""
    rates_drawn = plots.pooled_hit_rates(run)
    rows = max(len(rates_drawn), 1)
    marked = False

    def rates(fig: Figure) -> None:
        nonlocal marked
        ax = fig.add_subplot()
        drawn = plots.plot_hit_rates(run, ax=ax)
        marked = bool(drawn[["exact_hit_rate", "exact_crit_rate"]].notna().to_numpy().any())
        fig.set_figheight(1.4 + _row_height(plots.pair_name_lines(ax)) * rows)

    png = _png(rates, (10.0, 1.4 + _row_height(1) * rows))
    return png, marked


def _time_to_down_png(run: ScenarioRun, side: str) -> tuple[bytes, list[str], int]:
    """A side's time-to-down plot, its members never downed and its exact curves."""
    never: list[str] = []
    curves = 0

    def time_to_down(fig: Figure) -> None:
        nonlocal curves
        ax = fig.add_subplot()
        never[:] = plots.never_downed(plots.plot_time_to_down(run, side=side, ax=ax))
        curves = sum(name.endswith(plots.EXACT_CURVE_SUFFIX)
                     for name in ax.get_legend_handles_labels()[1])  # fmt: skip
        _fit_time_to_down(fig, ax)

    png = _png(time_to_down, (TIME_TO_DOWN_WIDTH, TIME_TO_DOWN_HEIGHT))
    return png, never, curves


#: A time-to-down picture's height, and its width before it is fitted to its plot
#: (:func:`_fit_time_to_down`), in inches.
TIME_TO_DOWN_WIDTH, TIME_TO_DOWN_HEIGHT = 8.5, 3.4
#: The width of a time-to-down picture's plot (inches), and what the picture keeps
#: beside it: its y axis's ticks and label at its left, a margin at its right.
TIME_TO_DOWN_PLOT, TIME_TO_DOWN_LEFT, TIME_TO_DOWN_RIGHT = 5.0, 0.6, 0.2


def _fit_time_to_down(fig: Figure, ax: Any) -> None:
    """Make a time-to-down picture as wide as its plot (:data:`TIME_TO_DOWN_PLOT`), its
    legend under the plot in as many columns as the plot's width holds
    (:func:`_legend_under`), the picture taller by it (wider only where one column of it
    is wider than the plot). Every picture was 850 px wide: a duel's one curve beside a
    third of the picture left empty, and a party's as wide as its legend beside the
    plot, whose widest entry was ``median: where a curve crosses 0.5``."""
    legend = ax.get_legend()
    if legend is None:
        return
    handles, names = ax.get_legend_handles_labels()
    legend.remove()
    under = _legend_under(fig, handles, names, TIME_TO_DOWN_PLOT * fig.dpi).get_window_extent()
    plot = TIME_TO_DOWN_LEFT + TIME_TO_DOWN_PLOT + TIME_TO_DOWN_RIGHT
    fig.set_figwidth(max(plot, under.width / fig.dpi + plots.FIGURE_MARGIN))
    fig.set_figheight(fig.get_figheight() + under.height / fig.dpi)


def _legend_under(fig: Figure, handles: list[Any], names: list[str], room: float) -> Any:
    """A legend of ``names`` under ``fig``'s plots, in as many columns as fit within
    ``room`` pixels (one row where all do; one column where even two do not)."""

    def legend(columns: int) -> Any:
        return fig.legend(handles, names, loc="outside lower center", ncol=columns,
                          frameon=False, fontsize=plots.LEGEND_FONT)  # fmt: skip

    columns = len(names)
    drawn = legend(columns)
    while columns > 1 and drawn.get_window_extent().width > room:
        drawn.remove()
        columns -= 1
        drawn = legend(columns)
    return drawn


def _outcome_png(run: ScenarioRun) -> bytes:
    """The win and draw rates."""

    def outcome(fig: Figure) -> None:
        ax = fig.add_subplot()
        plots.plot_win_rates(run, ax=ax)
        names = max((t.get_window_extent().width for t in ax.get_yticklabels()), default=0.0)
        fig.set_figwidth(max(OUTCOME_WIDTH, names / fig.dpi + OUTCOME_BARS))

    size = (OUTCOME_WIDTH, 1.2 + 0.35 * (len(run.result.layout.sides) + 1))
    return _png(outcome, size)


#: The outcome picture's width (inches), as wide as a phone's page (390 px, less its
#: margins: 364 px) at 100 dpi: at 500 px it scrolled there. Where the sides' names are
#: wider than its room beside the bars, it is wider, to keep :data:`OUTCOME_BARS` for the
#: bars, and the page shrinks it to the phone's width (``figure.outcome``).
OUTCOME_WIDTH = 3.6
#: What an outcome picture keeps beside the sides' names (inches): its bars and margins.
OUTCOME_BARS = 3.0


#: The hit-rate plot's caption: its whiskers are grey, so that none reads as an exact mark.
RATES_CAPTION = "Bars: simulated rates; grey whiskers: their 95% intervals."
RATES_EXACT = " Open black diamond: the exact rate against a fresh defender."


def _pooled_note(res: Result) -> str:
    """The hit-rate caption's sentence on pooled copies, or "" when no copies are pooled:
    it used to read "grey (copies that fought alike pooled)" under every plot, as if grey
    bars were pooled copies, where there were neither."""
    pools = sorted({label for name, label in plots.copy_labels(res).items() if label != name})
    if not pools:
        return ""
    return f" Copies that fought alike are pooled: {', '.join(pools)}."


def _planned_pictures(run: ScenarioRun, at: int, drawn_exact: ExactDrawn,
                      skipped: list[str]) -> list[Planned]:  # fmt: skip
    """The scenario's plots, ``at`` its place among the report's runs; as they are
    made into pictures, in order, ``drawn_exact`` learns what they drew of the exact
    answers and ``skipped`` gets a line for each attack whose damage plot would show
    only defenders it was made on too rarely to draw."""
    res = run.result
    slug = f"{_slug(run.rules)}-{_slug(run.scenario)}"
    seen: set[str] = set()

    def rates(drawn: tuple[bytes, bool]) -> Picture:
        png, marked = drawn
        drawn_exact.hit_rate_marks = marked
        return Picture(
            f"{slug}-hit-rates.png",
            f"hit{' and crit' if res.layout.crits else ''} rates (95% intervals)",
            png,
            caption=RATES_CAPTION + _pooled_note(res) + (RATES_EXACT if marked else ""),
        )

    def time_to_down(side: str, drawn: tuple[bytes, list[str], int]) -> Picture:
        png, never, curves = drawn
        drawn_exact.curves += curves
        name = _unique(f"{slug}-time-to-down-{_slug(side)}.png", seen)
        return Picture(name, f"time-to-down · {side}", png, "time-to-down",
                       time_to_down_caption(side, never, res))  # fmt: skip

    def outcome(png: bytes) -> Picture:
        return Picture(f"{slug}-outcome.png", "outcome", png, "outcome",
                       OUTCOME_CAPTION.format(cap=res.layout.max_rounds))  # fmt: skip

    out: list[Planned] = [(Sketch(_rates_png, at), rates)]
    pmf = plots.pooled_damage_pmf(run)
    for attacker, attack in dict.fromkeys(zip(pmf.attacker, pmf.attack, strict=True)):
        out.append((Sketch(_damage_png, at, (attacker, attack)),
                    functools.partial(_damage_picture, slug, attacker, attack, seen,
                                      drawn_exact, skipped)))  # fmt: skip
    unattacked = never_attacked_in(res)
    for side in res.layout.sides:
        if not set(members(res, side)) <= set(unattacked):  # else a flat line at 0
            out.append((Sketch(_time_to_down_png, at, (side,)),
                        functools.partial(time_to_down, side)))  # fmt: skip
    out.append((Sketch(_outcome_png, at), outcome))
    return out


def _row_height(lines: int) -> float:
    """The height (inches) of a row of the hit-rate picture whose pairs' names take
    ``lines`` lines (:func:`simlab.plots.pair_name`): 0.32 for one, and 0.16 (a line of
    9 pt text) for each further line."""
    return 0.32 + 0.16 * (lines - 1)


def _pictures(run: ScenarioRun, drawn_exact: ExactDrawn, skipped: list[str]) -> list[Picture]:
    """The scenario's plots, drawn in this process one after the other (a report draws
    every scenario's at once, :func:`_draw`); ``drawn_exact`` and ``skipped`` as
    :func:`_planned_pictures` fills them."""
    drawn = [finish(draw_sketch(sketch, [run]))
             for sketch, finish in _planned_pictures(run, 0, drawn_exact, skipped)]  # fmt: skip
    return [p for p in drawn if p is not None]


#: The caption of a scenario's outcome plot (its round cap filled in).
OUTCOME_CAPTION = ("Bars: the share of encounters each side won (green), with its 95% "
                   "interval; draw (grey): no side won (still fighting at the round cap, "
                   "round {cap}, or every side down at once).")  # fmt: skip


def members(res: Result, side: str) -> list[str]:
    """The names of the combatants of ``side`` in the run ``res``."""
    return [name for s, name in res.layout.combatants if s == side]


def never_attacked_in(res: Result) -> list[str]:
    """The combatants of a run that no one attacks, and so never go down (the fighter of
    a one-sided duel against a dummy), as the sweep's terminal table finds them
    (:func:`~simlab.report.tuning_terminal.never_attacked`): a side of none but them has
    no time-to-down picture (its curve a flat line at 0, its axis 0 to 2 rounds), and
    :func:`never_attacked_note` names them.

    Parameters
    ----------
    res : Result
        The run.

    Returns
    -------
    list of str
        Their names, in the order of the run's combatants.
    """
    pairs = res.hit_rates()
    names = [name for _, name in res.layout.combatants]
    downs = res.tallies.down_round.sum(axis=1)
    downed = [name for name, down in zip(names, downs, strict=True) if down]
    return unattacked_among(names, pairs.defender[pairs.attempts > 0], downed)


def never_attacked_note(res: Result) -> str:
    """The line under a run's time-to-down pictures naming the combatants of the sides
    left without one (:func:`never_attacked_in`), in the words of the sweep's terminal
    table: ``Not drawn, Attacker: never down, as no one attacks it.``; "" for none."""
    unattacked = never_attacked_in(res)
    names = [name for side in res.layout.sides if set(members(res, side)) <= set(unattacked)
             for name in members(res, side)]  # fmt: skip
    return never_down_note("Not drawn", names)


def time_to_down_caption(side: str, never: list[str], res: Result) -> str:
    """The caption of a side's time-to-down plot: what its curves and its dotted line
    are, and who of the side is never downed (a flat line at 0, which the axis label
    once called "no curve rises after round 0")."""
    if never and len(never) == len(members(res, side)):
        return (f"{side}: {', '.join(never)} never downed in "
                f"{counted(res.encounters, 'encounter')} (round cap "
                f"{res.layout.max_rounds}): no curve rises.")  # fmt: skip
    said = (
        f"{side}: P(downed by round r) over all encounters, with 95% bands. Dotted "
        "line at 0.5: the median time-to-down is the round where a curve crosses it."
    )
    if never:
        said += f" {', '.join(never)} never downed (a flat line at 0)."
    return said


def _unique(name: str, seen: set[str]) -> str:
    stem, k = name[:-4], 2
    while name in seen:
        name = f"{stem}-{k}.png"
        k += 1
    seen.add(name)
    return name


# -- table of contents -------------------------------------------------------------------

TOC_HEADER = ["scenario", "rules", "specs", "win rate", "hit rate per attack",
              "median time-to-down (rounds)"]  # fmt: skip
#: What the table of contents shows, said above it on both pages.
TOC_NOTE = ("One row per scenario: its specs (— when it has none), win rates, hit rate "
            "of each attack (all defenders together) and median time-to-down per "
            "combatant. " + median_note(None) + " Copies of one entry are pooled, named with "
            "their number (×2).")  # fmt: skip
#: What the time-to-down table and curves show, said above them on both pages as a list
#: of terms, each with its meaning (one grey paragraph of six definitions read as a wall).
TIME_TO_DOWN_TERMS: tuple[tuple[str, str], ...] = (
    ("Down rate", "the share of all encounters in which the combatant went down "
                  "(= P(downed by the round cap))."),
    ("Median", MEDIAN_NOTE.removeprefix("Median: ")),  # a section's: its own (median_note)
    ("Mean if downed", "the mean round it went down in, among the encounters in which it "
                       "went down, with its 95% interval (—: it never did)."),
    ("Median if downed", "the round by which half of the encounters in which it went "
                         "down had it down (—: it never did)."),
    ("Capped", "the number of encounters that reached the round cap with it standing at "
               "their end, stopped by the cap or won in that round."),
    ("Curves", "P(downed by round r) over all encounters, with a pointwise 95% band "
               "(Wilson); an encounter its side won counts as one it was never downed in."),
)  # fmt: skip
#: Added to :data:`TIME_TO_DOWN_TERMS` where the table shows an event's rate.
EVENTS_TERM = ("An event's rate", "the share of all encounters in which it happened at least once.")
#: The meaning of the per-encounter means, where the table shows any (their names the term).
MEANS_MEANING = "the mean per encounter, with its 95% interval."
#: At most this many attacks and combatants named in a table-of-contents row.
TOC_ITEMS = 8


def _median_round(down_round: Any, encounters: int) -> int | None:
    """Round by which half of all encounters had it downed (None: never half of them)."""
    import numpy as np

    from simlab.analysis.stats import first_round_reaching

    m = first_round_reaching(np.arange(len(down_round)), np.cumsum(down_round) / encounters)
    return None if m is None else int(m)


#: What separates the items of a table-of-contents cell (``Kaito: 6 · Mira: not reached``).
TOC_SEPARATOR = " · "


def _few(items: list[str]) -> str:
    more = len(items) - TOC_ITEMS
    shown = items[:TOC_ITEMS] + ([f"(+{more} more)"] if more > 0 else [])
    return TOC_SEPARATOR.join(shown)


def _toc_items(cell: str) -> Any:
    """A table-of-contents cell for the HTML page, each of its items (``Kaito
    quick-jab: 97%``) kept on one line where it fits (``span.item``), the separator
    after it: a narrow column or a phone's card broke inside an item, ``Kaito: not``
    over ``reached``."""
    from markupsafe import Markup

    items = cell.split(TOC_SEPARATOR)
    ends = [TOC_SEPARATOR.rstrip()] * (len(items) - 1) + [""]
    return Markup(" ").join(Markup('<span class="item">{}</span>').format(whole_words(item + end))
                            for item, end in zip(items, ends, strict=True))  # fmt: skip


def _headline(run: ScenarioRun, specs: pd.DataFrame | None) -> list[str]:
    """One table-of-contents row: the scenario's headline figures."""
    res = run.result
    wins = res.win_rates()
    outcome = TOC_SEPARATOR.join(f"{r.side}: {percent(r.win_rate)}" for r in wins.itertuples())
    rates = plots.pooled_hit_rates(run)
    by_attack = rates.groupby(["attacker", "attack"], sort=False)[["hits", "attempts"]].sum()
    hits = [f"{a} {k}: {percent(h / n)}" for (a, k), (h, n) in by_attack.iterrows()]
    labels = plots.copy_labels(run, "time_to_down")
    pools: dict[str, list[int]] = {}
    for c, (_, name) in enumerate(res.layout.combatants):
        pools.setdefault(labels[name], []).append(c)
    medians = []
    for lab, members in pools.items():
        down = res.tallies.down_round[members].sum(axis=0)
        m = _median_round(down, res.encounters * len(members))
        medians.append(f"{lab}: {NOT_REACHED if m is None else m}")
    verdicts = _spec_rows(specs, run)
    failed = sum(row[-1].startswith("FAIL") for row in verdicts)
    spec = "—" if not verdicts else (f"{failed} FAIL" if failed else f"{len(verdicts)} pass")
    return [run.scenario, run.rules, spec, outcome, _few(hits), _few(medians)]


# -- before/after pictures of drifted figures ---------------------------------------------


def _pair_pmf(res: Result, subject: str) -> Any:
    """Damage probabilities 0..max of the pair named ``attacker attack → defender``."""
    import numpy as np

    pmf = res.damage_pmf()
    mine = pmf[(pmf.attacker + " " + pmf.attack + " → " + pmf.defender) == subject]
    out = np.zeros(int(mine.damage.max()) + 1 if len(mine) else 1)
    out[mine.damage.to_numpy()] = mine.probability.to_numpy()
    return out


def _down_by_round(res: Result, name: str) -> Any:
    """P(downed by round r), r = 0..R, over all encounters."""
    import numpy as np

    c = [n for _, n in res.layout.combatants].index(name)
    down = res.tallies.down_round[c]
    last = int(np.flatnonzero(down)[-1]) if down.any() else 0
    # Up to the last round anyone went down (and one more): the flat tail says nothing.
    return np.cumsum(down[: last + 2]) / res.encounters


def _trimmed(hist: Any) -> Any:
    """A histogram up to its last non-empty bin."""
    import numpy as np

    return hist[: int(np.flatnonzero(hist)[-1]) + 1] if hist.any() else hist[:1]


def _damage_drift(before: Result, after: Result, subject: str) -> tuple[str, Sketch]:
    old, new = _pair_pmf(before, subject), _pair_pmf(after, subject)
    return f"{subject}: damage per attack", Sketch(_damage_drift_png, None, (old, new, subject))


def _damage_drift_png(old: Any, new: Any, subject: str) -> bytes:
    def draw(fig: Figure) -> None:
        left, right = fig.subplots(1, 2)
        plots.plot_before_after(left, old, new, "damage per attack (miss = 0)", "probability",
                                bars=True)  # fmt: skip
        plots.plot_before_after(right, plots.at_least(old), plots.at_least(new), "damage x",
                                "P(damage ≥ x)", where="pre")  # fmt: skip
        left.set_title("damage distribution")
        right.set_title("at least x damage")
        _shared_legend(fig, left, right)
        fig.suptitle(subject, fontsize=12)

    return _png(draw, (11.0, 3.6))


def _down_drift(before: Result, after: Result, name: str) -> tuple[str, Sketch]:
    old, new = _down_by_round(before, name), _down_by_round(after, name)
    return f"{name}: P(downed by round r)", Sketch(_down_drift_png, None, (old, new, name))


def _down_drift_png(old: Any, new: Any, name: str) -> bytes:
    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        plots.plot_before_after(ax, old, new, "round r", f"P({name} downed by round r)")
        ax.set_title(f"{name}: downed by round r, over all encounters")

    return _png(draw, (8.0, 3.4))


def _rounds_drift(before: Result, after: Result, _: str) -> tuple[str, Sketch]:
    old, new = (_trimmed(r.tallies.rounds) for r in (before, after))
    return "encounter length", Sketch(_rounds_drift_png, None, (old, new))


def _rounds_drift_png(old: Any, new: Any) -> bytes:
    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        plots.plot_before_after(ax, old / old.sum(), new / new.sum(), "rounds",
                                "share of encounters", bars=True)  # fmt: skip
        ax.set_title("encounter length")

    return _png(draw, (8.0, 3.4))


#: Which picture shows a drifted figure: the attack's damage, a combatant's time-to-down or
#: the encounter length.
_DRIFT_PICTURE: dict[str, Callable[[Result, Result, str], tuple[str, Sketch]]] = {
    "damage_pmf": _damage_drift, "mean_damage": _damage_drift, "hit_rate": _damage_drift,
    "crit_rate": _damage_drift, "time_to_down": _down_drift, "down_rate": _down_drift,
    "median_time_to_down": _down_drift, "rounds_pmf": _rounds_drift,
    "mean_rounds": _rounds_drift,
}  # fmt: skip


def _drift_pictures(run: ScenarioRun, before: ScenarioRun, drift: DriftReport) -> list[Planned]:
    """A before/after plot of each drifted distribution and curve of ``run``."""
    t = drift.drifted
    t = t[(t.scenario == run.scenario) & (t.rules == run.rules)]
    slug = f"{_slug(run.rules)}-{_slug(run.scenario)}-drift"
    wanted = dict.fromkeys((_DRIFT_PICTURE[f], s) for f, s in zip(t.figure, t.subject,
                                                                  strict=True)
                           if f in _DRIFT_PICTURE)  # fmt: skip
    out: list[Planned] = []
    seen: set[str] = set()
    for picture, subject in wanted:
        what, sketch = picture(before.result, run.result, subject)
        name = _unique(f"{slug}-{_slug(what)}.png", seen)
        out.append((sketch, functools.partial(_drift_picture, name, what)))
    return out


def _drift_picture(name: str, what: str, png: bytes) -> Picture:
    return Picture(name, f"drift · {what}", png, "drift",
                   f"{what}: grey, the baseline; colour, this run.")  # fmt: skip


# -- the document ------------------------------------------------------------------------


@dataclass
class Plan:
    """One scenario's part of the report before its pictures are drawn: the pictures,
    and what their drawings tell the section as they are made into pictures."""

    run: ScenarioRun
    pictures: list[Planned]
    drawn_exact: ExactDrawn = field(default_factory=ExactDrawn)
    skipped: list[str] = field(default_factory=list)


def _plan(run: ScenarioRun, at: int, drift: DriftReport | None,
          before: ScenarioRun | None) -> Plan:  # fmt: skip
    """The pictures of ``run``, ``at`` its place among the report's runs: its plots, and
    a before/after plot of each figure that drifted from ``before``."""
    plan = Plan(run, [])
    plan.pictures = _planned_pictures(run, at, plan.drawn_exact, plan.skipped)
    if drift is not None and before is not None:
        plan.pictures += _drift_pictures(run, before, drift)
    return plan


def _section(plan: Plan, pictures: list[Picture], specs: pd.DataFrame | None,
             drift: DriftReport | None, anchors: set[str]) -> Section:  # fmt: skip
    run, drawn_exact, skipped = plan.run, plan.drawn_exact, plan.skipped
    res = run.result
    identity: list[tuple[str, str | Prose]]
    identity = [("rules", run.rules), ("encounters", f"{res.encounters:,}"),
                ("seed", str(res.seed)), ("simlab version", run.simlab_version),
                ("round cap", str(res.layout.max_rounds)),
                ("scenario file", run.source or "—"),
                ("mean encounter length", f"{res.mean_rounds():.2f} rounds"),
                ("exact engine", _exact_note(run, drawn_exact))]  # fmt: skip
    if "precision" in res.meta:
        from simlab.tuning.precision import describe_record

        identity.insert(2, ("sample size", describe_record(res.meta["precision"])))
    if res.meta.get("overrides"):
        identity.insert(0, ("overrides (--set)", ", ".join(overrides_said(res.meta))))
    with held_to(held_half_width(res.meta.get("precision"))):  # as the terminal's tables
        attack_header, attacks, attack_note = _attack_rows(run)
        header, combatants = _combatant_rows(res)
        events, outcome, spec_rows = event_tables(res), _outcome_rows(res), _spec_rows(specs, run)
    notes = [n for n in (drift.notes if drift else []) if n.startswith(f"{label(run)}:")]
    apart = [f"{', '.join(names)} fought differently (a damage distribution differs by "
             "more than the drift tolerance), so the damage plots show each copy, pooled only "
             "as defenders of an attack whose damage to each was alike "
             f"({plots.pool_label(entry, names)})"
             for entry, names, pooled in plots.copy_groups(run) if not pooled]  # fmt: skip
    pooled = [plots.pool_label(entry, names) for entry, names, alike in plots.copy_groups(run)
              if alike]  # fmt: skip
    anchor = _anchor(f"{run.rules}-{run.scenario}", anchors)
    return Section(run, anchor, identity, attack_header, attacks, header, combatants,
                   events, outcome, spec_rows,
                   _drift_rows(drift, run), notes, pictures, _headline(run, specs), apart,
                   pooled, skipped, attack_note, never_attacked_note(res),
                   damage_diamonds=drawn_exact.damage_plots > 0,
                   damage_lines=drawn_exact.damage_lines > 0)  # fmt: skip


def _anchor(scenario: str, seen: set[str]) -> str:
    anchor, k = _slug(scenario), 2
    while anchor in seen:
        anchor = f"{_slug(scenario)}-{k}"
        k += 1
    seen.add(anchor)
    return anchor


def _first_reason(refusal: str) -> str:
    """What a refusal of a whole scenario by the exact engine gives as its first reason:
    its first ``- `` item under ``cannot solve scenario … exactly:``, without the
    engine's hint; the text after ``exactly:`` where it lists none."""
    from simlab.exact.engine import scenario_refusal

    head, reasons = scenario_refusal(refusal)
    first = reasons[0] if reasons else head.split(" exactly:", 1)[-1].strip()
    return first.split("; expected")[0]


def _exact_note(run: ScenarioRun, drawn: ExactDrawn) -> str | Prose:
    """The "exact engine" line: what was solved, what the fight moves away from its
    answer, and what the plots draw of it; nothing is said to be drawn that was not."""
    if run.exact is None:
        return "no exact answers for these rules"
    pairs = run.exact.get("attacks", [])
    duel = " and the duel's time-to-down" if run.exact.get("combatants") else ""
    why = ("— in the exact column: no exact figure (not solved, or one the fight moves away "
           "from the answer; ", ("simlab exact",), " says why)")  # fmt: skip
    if not pairs and not duel:
        reasons = [_first_reason(r["reason"]) for r in run.exact.get("refusals", [])
                   if r.get("figure") == "scenario"]  # fmt: skip
        reason = reasons[0] if reasons else ""
        return Prose.of(f"no pair solved exactly{f' ({reason})' if reason else ''}, so nothing "
                        "is drawn on the plots; ", *why)  # fmt: skip
    solved = f"{counted(len(pairs), 'pair')}{duel} solved exactly"
    moved = sum(bool(p.get("caveats")) for p in pairs)
    if moved:
        every = moved == len(pairs) > 1
        have = "has" if moved == 1 or every else "have"
        who = "every one" if every else counted(moved, "pair")
        solved += f"; {who} {have} figures a fight moves away from the answer"
    # the diamonds named once over the plots they are on: "open black diamonds on 1
    # damage plot and the hit-rate plot", not "… and open black diamonds on the …"
    on = [counted(drawn.damage_plots, "damage plot")] * bool(drawn.damage_plots)
    on += ["the hit-rate plot"] * bool(drawn.hit_rate_marks)
    marks = f"open black diamonds{EXACT_LINE_ASIDE * bool(drawn.damage_lines)}"
    shown = [f"{marks} on {' and '.join(on)}"] * bool(on)
    shown += ["a thin black dashed time-to-down curve"] * bool(drawn.curves)
    if shown:
        said = f"drawn as {', and '.join(shown)}"
    elif moved == len(pairs):
        said = ", so nothing is drawn on the plots"
    else:
        said = "; none of them is on a plot"
    if shown:
        said = f"; {said}"
    return Prose.of(f"{solved}{said}; ", *why)


#: The stylesheet of every page simlab writes (report, drift, sweep, compare, tune): a
#: figure stays on one line (``td.num``) and a table wider than the page scrolls in its
#: own box (``div.scroll``), on every page alike; the contents' win rates, hit rates and
#: medians keep a width to read (a column one word wide ran a screen tall), and on a
#: screen narrower than their table (56em, 896 px: its six columns need some 870) each
#: scenario's row is a card of its own, its scenario and rules on the first line as the
#: section's heading has them, then each figure after its column's name (scrolled
#: sideways, a row ran eight lines tall and a phone showed three of its six columns). A
#: plot keeps at least 720 px on a phone and scrolls in its box, save the outcome plot,
#: drawn as wide as a phone's page, which the page shrinks to it where it is wider. On a
#: phone (36em, 576 px) each balance spec is a card too: its verdict first, the spec's
#: words beside it, then its measured figure and n (as a table, the verdict, last, was
#: pushed out of the phone's view and each spec ran six or seven lines tall).
STYLESHEET = """\
body { font-family: sans-serif; margin: 1.5em auto; padding: 0 0.8em; max-width: 1100px;
       color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
div.scroll { overflow-x: auto; max-width: 100%; }
div.scroll > table { margin: 0; } td.num { white-space: nowrap; }
code { font-size: 0.95em; background: #f3f3f3; padding: 0 0.2em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; }
th { background: #f3f3f3; }
.bad { color: #b00; font-weight: bold; } .pass { color: #070; }
.note { color: #666; font-size: 0.9em; } img { max-width: 100%; display: block; }
figure { margin: 0.8em 0 1.4em; overflow-x: auto; }
figcaption { font-size: 0.9em; color: #444; }
figure img { max-width: max(100%, 720px); } figure.outcome img { max-width: 100%; }
table.toc td { vertical-align: top; } table.toc td:nth-child(-n+2) { white-space: nowrap; }
table.toc td:nth-child(n+4) { min-width: 13em; }
@media (max-width: 56em) {
  table.toc, table.toc tbody, table.toc tr, table.toc td:nth-child(n) { display: block; }
  table.toc tr:first-child { display: none; }
  table.toc tr { border: 1px solid #ddd; margin: 0 0 0.5em; padding: 0.3em 0.5em; }
  table.toc td:nth-child(n) { border: 0; padding: 0.1em 0; min-width: 0; white-space: normal; }
  table.toc td:nth-child(-n+2) { display: inline; }
  table.toc td:first-child { font-weight: bold; margin-right: 0.3em; }
  table.toc td:nth-child(2) { color: #666; }
  table.toc td:nth-child(2)::before { content: "("; }
  table.toc td:nth-child(2)::after { content: ")"; }
  table.toc td:nth-child(n+3)::before { content: attr(data-label) ": "; color: #666; }
}
ul.drift .drifted { color: #b00; } span.word { white-space: nowrap; }
table.toc span.item { display: inline-block; }
dl.note { display: grid; grid-template-columns: max-content 1fr; gap: 0.15em 0.8em; }
dl.note dt { font-weight: bold; } dl.note dd { margin: 0; }
@media (max-width: 36em) { dl.note { display: block; } dl.note dd { margin: 0 0 0.3em 1em; } }
@media (max-width: 36em) {
  table.specs, table.specs tbody { display: block; } table.specs tr:first-child { display: none; }
  table.specs tr { display: flex; flex-wrap: wrap; column-gap: 0.5em; border: 1px solid #ddd;
                   margin: 0 0 0.5em; padding: 0.3em 0.5em; }
  table.specs td { border: 0; padding: 0.1em 0; }
  table.specs td:nth-child(4) { order: -1; font-weight: bold; }
  table.specs td:first-child { flex: 1 1 60%; }
  table.specs td:nth-child(3) { margin-left: 0.5em; }
  table.specs td:nth-child(2)::before, table.specs td:nth-child(3)::before {
    content: attr(data-label) ": "; color: #666; }
}
"""

_HTML = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
{{ stylesheet }}</style></head>
<body>
<h1>{{ title }}</h1>
<p class="note">simlab {{ version }} · {{ scenarios }}{% if baseline %}
 · compared with baseline {{ whole(baseline) }} (Holm-adjusted p &lt; {{ alpha }} and beyond
 tolerance){% endif %}</p>{% if overrides %}
<p class="note">{{ whole(overrides) }}</p>{% endif %}
{% if drift_list %}<h2>Drift</h2><p class="bad">{{ whole(drift_verdict) }}</p>
<p class="note">Each scenario's "Compared with the
baseline" shows the drifted distributions and curves before (grey) and after (colour).</p>
<ul class="drift">{% for scenario, anchor, lines in drift_list %}<li><a href="#{{ anchor }}">{{
whole(scenario) }}</a><ul>{% for name, what in lines %}
<li><span class="drifted">{{ whole(name) }}</span>: {{ p_kept_whole(what) }}</li>{% endfor %}
</ul></li>
{% endfor %}</ul>
<p class="note">{{ whole(baseline_hint) }}</p>
{% elif baseline %}<p class="pass">{{ whole(drift_verdict) }}</p>{% endif %}
{% if not_compared %}<p class="note">{{ whole(not_compared) }}</p>{% endif %}
{% if spec_failures %}<h2>Failed specs</h2><ul>{% for line in spec_failures %}
<li class="bad">{{ whole(line) }}</li>{% endfor %}</ul>{% endif %}
<h2>Contents</h2>
<p class="note">{{ whole(toc_note) }}</p>
<div class="scroll"><table class="toc">
<tr>{% for h in TOC_HEADER %}<th>{{ h }}</th>{% endfor %}</tr>
{% for s in sections %}<tr><td><a href="#{{ s.anchor }}">{{ whole(s.headline[0]) }}</a></td>
{% for c in s.headline[1:] %}<td data-label="{{ TOC_HEADER[loop.index] }}"{% if 'FAIL' in c
%} class="bad"{% endif %}>{{ toc_items(c) }}</td>
{% endfor %}</tr>{% endfor %}</table></div>
{% for s in sections %}
<h2 id="{{ s.anchor }}">{{ whole(s.run.scenario) }} <small>({{ whole(s.run.rules) }})</small></h2>
<table>{% for k, v in s.identity %}<tr><th>{{ whole(k) }}</th><td>{{ show(v) }}</td></tr>
{% endfor %}</table>
{% if s.specs %}<h3>Balance specs</h3>{{ table(SPEC_HEADER, s.specs, "specs") }}{% endif %}
{% if s.drift or s.notes %}<h3>Compared with the baseline</h3>
{% for n in s.notes %}<p class="note">{{ whole(n) }}</p>{% endfor %}
{{ pictures(s, 'drift') }}
{% if s.drift %}<details{% if s.drift[0][0] == 'DRIFT' %} open{% endif %}>
<summary>{{ counted(s.drift|length, "figure") }}</summary>
{{ table(DRIFT_HEADER, s.drift) }}</details>
{% endif %}{% endif %}
<h3>Attacks</h3>{{ table(s.attack_header, s.attacks) }}
{% if s.attack_note %}<p class="note">{{ whole(s.attack_note) }}</p>{% endif %}
{{ pictures(s, 'rates') }}
<h3>Damage</h3><p class="note">Misses count as 0 damage. Bars and dots: simulated{% if
s.damage_diamonds %}; open black diamonds{% if s.damage_lines %}{{ line_aside }}{% endif
%}: the exact answer against a fresh defender, where
the exact engine gives one{% endif %}.
{% if s.copies_pooled %}Copies of one entry are pooled ({{ whole(s.copies_pooled|join(', ')) }});
the tables list each copy.{% endif %}</p>
{% for n in s.copies_apart %}<p class="note">{{ whole(n) }}.</p>{% endfor %}
{% if s.damage_skipped %}<p class="note">No damage plot, every defender attacked too rarely
to draw:</p><ul class="note">{% for n in s.damage_skipped %}<li>{{ whole(n) }}</li>{% endfor %}</ul>
{% endif %}
{{ pictures(s, 'damage') }}
<h3>Time-to-down</h3><dl class="note">{% for term, meaning in s.time_to_down_terms %}
<dt>{{ whole(term) }}</dt><dd>{{ whole(meaning) }}</dd>{% endfor %}</dl>
{{ table(s.combatant_header, s.combatants) }}
{{ pictures(s, 'time-to-down') }}
{% if s.time_to_down_note %}<p class="note">{{ whole(s.time_to_down_note) }}</p>{% endif %}
{% if s.events %}<h3>{{ s.events_title }}</h3><dl class="note">{% for term, meaning in
s.events_terms %}<dt>{{ whole(term) }}</dt><dd>{{ whole(meaning) }}</dd>{% endfor %}</dl>
{% for header, rows in s.events %}{{ table(header, rows) }}
{% endfor %}{% endif %}<h3>Outcome</h3>{{ table(OUTCOME_HEADER, s.outcome) }}
{{ pictures(s, 'outcome') }}
{% endfor %}
</body></html>
""",
    autoescape=True,
)

_PICTURES = jinja2.Template(
    """{% for p in pictures %}<figure class="{{ p.kind }}">
<img alt="{{ p.title }}" src="{{ p.data_uri }}">
<figcaption>{{ p.caption or p.title }}</figcaption></figure>
{% endfor %}""",
    autoescape=True,
)

_TABLE = jinja2.Template(
    """<div class="scroll"><table{% if kind %} class="{{ kind }}"{% endif %}><tr>{%
for h in header %}<th>{{ whole(h) }}</th>{% endfor %}</tr>
{% for row in rows %}<tr>{% for c in row %}<td{% if kind %} data-label="{{ header[loop.index0]
}}"{% endif %}{% if c in ('DRIFT', 'CHANGED')
or c.startswith('FAIL') %} class="bad"{% elif c.startswith('PASS') %} class="pass"{%
elif number(c) %} class="num"{% endif %}>{{ whole(c) }}</td>{% endfor %}</tr>
{% endfor %}</table></div>""",
    autoescape=True,
)


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], kind: str = "") -> Any:
    """A table of the pages; with ``kind``, that class on it and each cell's column name
    as its ``data-label``, for the stylesheet to lay it out as cards on a phone (the
    spec table: :data:`STYLESHEET`)."""
    from markupsafe import Markup

    return Markup(_TABLE.render(header=header, rows=rows, kind=kind, number=_is_figure,
                                whole=whole_words))  # fmt: skip


#: A cell that is a figure (``0.979 [0.976, 0.981]``, ``6 [6, 6]``, ``not reached``,
#: ``not reached [6, not reached]``, ``TV 0.115``, a comparison's ``[-0.60, -0.55]``, an
#: exact column's ``— / 0.0000 / —``): kept on one line, as a wide table scrolls in its
#: own box.
_FIGURE = re.compile(r"[-+<≥]?\s?[0-9.,]+(e-?\d+)?( \[[^\]]*\])?|\[[-+0-9.,e ]+\]|—( \[—, —\])?|"
                     r"not reached( \[[0-9,]+, not reached\])?|"
                     r"TV [0-9.]+|< 1e-16|([-+]?[0-9.,]+|—)( / ([0-9.]+|—))+")  # fmt: skip


def _is_figure(cell: str) -> bool:
    return bool(_FIGURE.fullmatch(cell))


def _html_pictures(section: Section, kind: str) -> Any:
    from markupsafe import Markup

    return Markup(_PICTURES.render(pictures=[p for p in section.pictures if p.kind == kind]))


#: What Markdown reads as markup in a name or a note: a backslash, a code span, emphasis
#: (``*``, and ``_`` unless inside a word: ``great_axe`` stays as typed), a table's cell
#: border, and ``<`` where it would open an HTML tag (``<friends>`` vanished on GitHub).
_MD_MARKUP = re.compile(r"[\\`*|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|<(?=[A-Za-z/!?])")


def md_text(text: object) -> str:
    """``text`` (a scenario's, combatant's or attack's name, a note) for a Markdown page:
    its markup characters escaped with a backslash, so that it reads as typed, and on one
    line.

    Parameters
    ----------
    text : object
        What to write; ``str()`` of it.

    Returns
    -------
    str
        The text, escaped (CommonMark escapes any ASCII punctuation so).
    """
    return _MD_MARKUP.sub(lambda m: "\\" + m.group(0), str(text)).replace("\n", " ")


def md_link(title: str, target: str, caption: str = "") -> str:
    """A Markdown list item linking ``title`` (escaped, brackets too) to ``target``, and
    after it the picture's ``caption``, as the HTML page gives it under the picture (its
    leading ``title: `` once, beside the link)."""
    text = md_text(title).replace("[", "\\[").replace("]", "\\]")
    said = caption.removeprefix(f"{title}: ") if caption != title else ""
    return f"- [{text}]({target})" + (f": {md_text(said)}" if said else "")


def md_picture(picture: Picture) -> str:
    """A picture's line of a Markdown page: its link and its caption (:func:`md_link`)."""
    return md_link(picture.title, f"{PNG_DIR}/{picture.file}", picture.caption)


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(md_text(h) for h in header) + " |",
             "|" + "---|" * len(header)]  # fmt: skip
    lines += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def drift_verdict(drift: DriftReport, baseline: str) -> str:
    """The drift gate's verdict in one sentence, for the head of a report (a CI job's
    summary): how many figures drifted of how many compared, from which baseline, and
    by what rule (``14 of 480 figures drifted from the baseline …``)."""
    compared = counted(len(drift.table), "figure")
    drifted = len(drift.drifted)
    sizes = "".join(f" {said}" for said in [sample_sizes_note(drift), *drift.caveats()] if said)
    if not drifted:
        return f"No figure drifted from the baseline {baseline} ({compared} compared).{sizes}"
    return (f"{drifted} of {compared} drifted from the baseline {baseline} (Holm-adjusted "
            f"p < {drift.alpha:g} and beyond the scenario's tolerance).{sizes}")  # fmt: skip


#: The scenarios a note on sample sizes names for one pair of sizes; the rest are counted.
SIZES_NAMED = 3


def sample_sizes_note(drift: DriftReport) -> str:
    """What the verdict says when the baseline and this run differ in sample size ("" when
    they do not): both sizes, the scenarios at each pair of them, and what it means
    (``Sample sizes differ: 50,000 encounters in this run, 200,000 in the baseline
    (quickstart (shattered-spirits), …). A test's power follows the smaller sample:
    fewer encounters detect only larger changes.``)."""
    groups: dict[tuple[int, int], list[str]] = {}
    for s in drift.sizes_differ():
        groups.setdefault((s.current, s.baseline), []).append(f"{s.scenario} ({s.rules})")
    if not groups:
        return ""
    parts = []
    for (current, base), names in groups.items():
        more = len(names) - SIZES_NAMED
        where = ", ".join(names[:SIZES_NAMED]) + (f" and {more} more" if more > 0 else "")
        parts.append(f"{counted(current, 'encounter')} in this run, {base:,} in the baseline "
                     f"({where})")  # fmt: skip
    return (f"Sample sizes differ: {'; '.join(parts)}. A test's power follows the smaller "
            "sample: fewer encounters detect only larger changes.")  # fmt: skip


def not_compared(drift: DriftReport) -> str:
    """The scenarios the drift gate did not compare, in one sentence ("" when it compared
    every one): new since the baseline, and the baseline's that were not run; a scenario
    renamed since the baseline is in both, and a run that leaves one out is not gated
    on it."""
    parts = []
    if drift.no_baseline:
        parts.append(f"{', '.join(drift.no_baseline)}, with no baseline yet")
    if drift.not_run:
        parts.append(f"{', '.join(drift.not_run)}, in the baseline but not run")
    if not parts:
        return ""
    renamed = " (a scenario renamed since the baseline is in both)" if len(parts) == 2 else ""
    return f"Not compared: {'; '.join(parts)}{renamed}."


def baseline_hint(out_dir: str | os.PathLike[str], baseline: str,
                  drift: DriftReport | None = None) -> str:  # fmt: skip
    """What to do when a drift is meant (a deliberate rules change): adopt the run just
    written as the baseline, and commit it (``baseline update --from``, which keeps the
    baseline's scenarios the run left out). A run made with ``--set`` is no baseline for
    the nightly run, which has no overrides: ``baseline update`` refuses it but with
    ``--with-overrides``, and the hint says so."""
    from simlab.report.results import results_path

    command = (f"simlab baseline update --from {os.fspath(out_dir)} --baseline "
               f"{results_path(baseline)}")  # fmt: skip
    if drift is not None and drift.overridden:
        return ("This run was made with --set overrides, which the nightly run does not "
                "have, so every night would drift from it as the baseline. If the change "
                "is intended, write it into the scenario files and run the report again; "
                f"to adopt this run as it is anyway: {command} --with-overrides")  # fmt: skip
    return f"If the change is intended, make this run the baseline and commit it: {command}"


def drift_lines(drift: DriftReport | None) -> list[str]:
    """One line per drifted figure: ``scenario: figure subject: base → current (…)``."""
    if drift is None:
        return []
    return [
        ": ".join([f"{r.scenario} ({r.rules})", *_drifted_parts(r)])
        for r in drift.drifted.itertuples()
    ]


def unbroken(text: str) -> str:
    """``text`` with no place a browser breaks a line: a p-value such as ``< 1e-16`` or
    ``3.3e-07`` kept on one line of its narrow column, ``Holm p < 0.0001`` at the end of
    a drift line (no-break spaces and hyphens)."""
    return text.replace(" ", "\u00a0").replace("-", "\u2011")


def _p_kept_whole(line: str) -> str:
    """How a figure drifted (:func:`drift_list`) with its ``Holm p < 0.0001`` on one line
    of the page, as the terminal keeps it: a phone broke it after ``<``."""
    head, comma, p = line.rpartition(", Holm p ")
    return f"{head}, {unbroken('Holm p ' + p)}" if comma else line


#: A scenario of the page's drift list: its name, its section's anchor and its figures,
#: each as what drifted and how.
DriftGroup = tuple[str, str, list[tuple[str, str]]]


def drift_list(drift: DriftReport | None, sections: Sequence[Section]) -> list[DriftGroup]:
    """The page's list of drifted figures: each scenario (:func:`drift_groups`) with the
    anchor of its section, to link to, over its figures, each split into what drifted
    (``median_time_to_down Kaito``, in red on the page) and how (``12 → 10 (-2), Holm p
    < 1e-16``, in the text's colour): every line bold red was a wall in which red said
    nothing."""
    anchors: dict[str, str] = {}
    for s in sections:
        anchors.setdefault(f"{s.run.scenario} ({s.run.rules})", s.anchor)
    return [(scenario, anchors.get(scenario, ""), lines)
            for scenario, lines in _drifted_by_scenario(drift).items()]  # fmt: skip


def drift_groups(drift: DriftReport | None) -> list[tuple[str, list[str]]]:
    """The drifted figures by scenario, as the pages list them: each scenario with its
    rules once (``quickstart (shattered-spirits)``) over its figures (``figure subject:
    base → current (…)``), in the order of its first figure, as the terminal prints them
    (every line began with its scenario's name)."""
    return [(scenario, [": ".join(parts) for parts in lines])
            for scenario, lines in _drifted_by_scenario(drift).items()]  # fmt: skip


def _drifted_by_scenario(drift: DriftReport | None) -> dict[str, list[tuple[str, str]]]:
    """The drifted figures (:func:`_drifted_parts`) by scenario, ``quickstart
    (shattered-spirits)``, in the order of each scenario's first figure."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for r in [] if drift is None else drift.drifted.itertuples():
        groups.setdefault(f"{r.scenario} ({r.rules})", []).append(_drifted_parts(r))
    return groups


def _drifted_parts(r: Any) -> tuple[str, str]:
    """A drifted figure of a drift list, its scenario left out: what drifted, ``figure
    subject``, and how, ``base → current (change), Holm p …``."""
    if r.kind == "pmf":
        what = f"moved (total variation {r.change:.3f})"  # its name says "distribution"
    else:
        what = f"{_drift_value(r, r.baseline)} → {_drift_value(r, r.current)}"
        if math.isfinite(r.change):  # "6 → not reached" says the change itself
            what += f" ({drift_change(r)})"
    return figure_said(r.figure, r.subject), f"{what}, Holm p {_p_is(r.p_holm)}"


def overrides_note(runs: Sequence[ScenarioRun]) -> str:
    """What the head of a report says of the ``--set`` overrides its scenarios ran with:
    which they are, and in which scenarios one changes nothing (the field already has
    that value, as compare says "B is identical to A: … already …"); "" without any.

    ``Run with --set Brute.hp=30; Brute.hp=30 changes nothing in party-3v3 and
    quickstart (Brute.hp is already 30 there)``."""
    every: list[str] = []
    for run in runs:
        every += [o for o in run.result.meta.get("overrides", ()) if o not in every]
    if not every:
        return ""
    some = "" if all(run.result.meta.get("overrides") for run in runs) else " (some scenarios)"
    said = [f"Run with --set {', '.join(every)}{some}"]
    for item in every:
        idle = [run.result.scenario for run in runs
                if item in run.result.meta.get("idle_overrides", ())]  # fmt: skip
        if idle:
            where = ", ".join(idle[:-1]) + " and " * (len(idle) > 1) + idle[-1]
            if len(idle) == len(runs) > 1:
                where = "every scenario"
            said.append(f"{item} changes nothing in {where} ({already(item)} there)")
    return "; ".join(said)


def spec_failures(specs: pd.DataFrame | None) -> list[str]:
    """One line per failed spec."""
    if specs is None or specs.empty:
        return []
    strict = " (a borderline pass, failed by --strict)"
    return [f"{s.scenario} ({s.rules}): {s.spec}: measured {_measured(s)}"
            f"{strict * bool(getattr(s, 'failed_by_strict', False))}"
            for s in specs[specs.verdict == "fail"].itertuples()]  # fmt: skip


def _md_drift(drift: DriftReport, baseline: str,
              out_dir: str | os.PathLike[str]) -> list[str]:  # fmt: skip
    """report.md's Drift section, read at a glance in a CI job's summary: the verdict in
    bold, the scenarios not compared, the drifted figures and what to do with a drift
    that was meant."""
    said = [f"**{'DRIFT' if not drift.ok else 'OK'}:** {md_text(drift_verdict(drift, baseline))}"]
    if skipped := not_compared(drift):
        said += ["", md_text(skipped)]
    if not drift.ok:
        said += [""]
        for scenario, lines in drift_groups(drift):  # each scenario once, over its figures
            said += [f"- {md_text(scenario)}:", *(f"  - **DRIFT** {md_text(x)}" for x in lines)]
        hint, command = baseline_hint(out_dir, baseline, drift).split(": ", 1)
        said += ["", f"{md_text(hint)}: `{command}`"]
    return said


def _markdown(sections: list[Section], title: str, drift: DriftReport | None,
              specs: pd.DataFrame | None, baseline: str | None,
              overrides: str = "", out_dir: str | os.PathLike[str] = ".") -> str:  # fmt: skip
    out = [f"# {md_text(title)}", "",
           f"simlab {__version__} · {counted(len(sections), 'scenario')} · full report with inline "
           "plots: `report.html`"]  # fmt: skip
    if overrides:
        out += ["", md_text(overrides)]
    if baseline is not None and drift is not None:
        out += ["", "## Drift", "", *_md_drift(drift, baseline, out_dir)]
    failures = spec_failures(specs)
    if failures:
        out += ["", "## Failed specs", "", *(f"- **FAIL** {md_text(line)}" for line in failures)]
    toc = _md_table(TOC_HEADER, [s.headline for s in sections])
    out += ["", "## Contents", "", md_text(TOC_NOTE), "", toc]
    for s in sections:
        # a row a line: one joined by " · " buried a capped run's sample size, itself
        # a sentence with ";" and parentheses, between the encounters and the seed
        out += ["", f"## {md_text(s.run.scenario)} ({s.run.rules})", "",
                *(f"- **{md_text(k)}**: {_md_value(v)}" for k, v in s.identity), ""]  # fmt: skip
        if s.specs:
            out += ["### Balance specs", "", _md_table(SPEC_HEADER, s.specs), ""]
        if s.drift or s.notes:
            notes = [f"- {md_text(n)}" for n in s.notes]
            out += ["### Compared with the baseline", "", *notes, *[""] * bool(notes)]
            changed = [r for r in s.drift if r[0] not in ("ok", "not tested")]
            if changed:
                out += [_md_table(DRIFT_HEADER, changed), ""]
            untested = sum(r[0] == "not tested" for r in s.drift)
            unchanged = len(s.drift) - len(changed) - untested
            untested_note = f"; {untested} not tested (see the notes)" if untested else ""
            if s.drift:  # none compared (no baseline yet): its note says so, not "All 0 …"
                out += [f"{_unchanged(unchanged, bool(changed), bool(untested))}"
                        f"{untested_note}.", ""]  # fmt: skip
        out += ["### Attacks", "", _md_table(s.attack_header, s.attacks), ""]
        out += [md_text(s.attack_note), ""] if s.attack_note else []
        out += ["### Time-to-down", "",
                *(f"- **{md_text(t)}**: {md_text(m)}" for t, m in s.time_to_down_terms), "",
                _md_table(s.combatant_header, s.combatants), ""]  # fmt: skip
        out += [md_text(s.time_to_down_note), ""] if s.time_to_down_note else []
        if s.events:
            terms = [f"- **{md_text(t)}**: {md_text(m)}" for t, m in s.events_terms]
            out += [f"### {s.events_title}", "", *terms, ""]
            out += [line for header, rows in s.events for line in (_md_table(header, rows), "")]
        out += ["### Outcome", "", _md_table(OUTCOME_HEADER, s.outcome), ""]
        out += ["### Plots", "", *map(md_picture, s.pictures)]
    return "\n".join(out) + "\n"


def _unchanged(n: int, changed: bool, untested: bool) -> str:
    """``20 other figures not statistically different from the baseline`` under a table
    of changed ones; ``All 20 figures …`` with none above it (and every figure tested).
    Not "unchanged": every figure of a new run moves a little."""
    if changed:
        return f"{counted(n, 'other figure')} not statistically different from the baseline"
    if untested or n == 1:
        return f"{counted(n, 'figure')} not statistically different from the baseline"
    return f"All {n} figures not statistically different from the baseline"


def _draw(
    plans: list[Plan],
    runs: list[ScenarioRun],
    processes: int | None,
    progress: Callable[[int, int, str], None] | None,
) -> list[Any]:
    """Every planned picture drawn (:func:`simlab.report.drawing.draw_all`), in order;
    ``progress`` told of each scenario as its first picture is taken to be drawn."""
    from simlab.report.drawing import draw_all

    owners = [at for at, plan in enumerate(plans) for _ in plan.pictures]
    told = 0

    def tell(up_to: int) -> None:
        nonlocal told
        while told < up_to:
            told += 1
            if progress is not None:
                progress(told, len(runs), label(runs[told - 1]))

    sketches = [sketch for plan in plans for sketch, _ in plan.pictures]
    drawn = draw_all(sketches, draw_sketch, runs, processes, lambda k: tell(owners[k] + 1))
    tell(len(runs))
    return drawn


def _text_writer(text: str) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return write


def _bytes_writer(data: bytes) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        tmp.write_bytes(data)

    return write


def render_report(
    runs: list[ScenarioRun],
    out_dir: str | os.PathLike[str],
    *,
    specs: pd.DataFrame | None = None,
    drift: DriftReport | None = None,
    baseline: str | None = None,
    title: str = "simlab balance report",
    write_results: bool = True,
    baseline_runs: Sequence[ScenarioRun] = (),
    progress: Callable[[int, int, str], None] | None = None,
    processes: int | None = 1,
    shown_out: str | None = None,
) -> dict[str, Path]:
    """Write ``report.html``, ``report.md``, the PNGs, ``results.json`` and, with a
    baseline, ``drift.json`` (:mod:`simlab.report.gate`) into ``out_dir``.

    Parameters
    ----------
    runs : list of ScenarioRun
        The scenarios, simulated or read back from a ``results.json``.
    out_dir : path-like
        The folder to write into (created); every file is written atomically.
    specs : pandas.DataFrame, optional
        Verdicts of the scenarios' ``expect:`` entries
        (:func:`simlab.analysis.specs.evaluate_all`).
    drift : DriftReport, optional
        The comparison with a baseline (:func:`simlab.analysis.drift.compare`).
    baseline : str, optional
        The baseline's path, as shown on the page.
    title : str
        The page title.
    write_results : bool
        Also write ``results.json``.
    baseline_runs : sequence of ScenarioRun
        The baseline's runs: each drifted distribution and curve gets a before/after plot.
    progress : callable, optional
        Called as ``progress(i, total, "scenario (rules)")`` before scenario ``i`` (from 1)
        is drawn, so a long report shows that it is moving.
    processes : int or None
        The most processes that draw the plots, this one included (None: as many as
        numba may use threads); others start only for a report with pictures enough
        to pay for their start-up (:mod:`simlab.report.drawing`). The files are the
        same bytes either way.
    shown_out : str, optional
        The report's folder as the user named it (``out_dir`` may be a temporary folder
        renamed into place), in the command that adopts a drifted run as the baseline.

    Returns
    -------
    dict of str to Path
        What was written: ``html``, ``markdown``, ``results``, ``drift`` (``drift.json``,
        with a ``drift`` and a ``baseline``) and one entry per PNG.
    """
    out = Path(out_dir)
    shown_out = os.fspath(out_dir) if shown_out is None else shown_out
    before = {key(r): r for r in baseline_runs}
    plans = [_plan(run, at, drift, before.get(key(run))) for at, run in enumerate(runs)]
    drawn = iter(_draw(plans, runs, processes, progress))
    anchors: set[str] = set()
    sections = []
    for plan in plans:
        pictures = [p for _, finish in plan.pictures if (p := finish(next(drawn))) is not None]
        sections.append(_section(plan, pictures, specs, drift, anchors))
    written: dict[str, Path] = {}
    for s in sections:
        for p in s.pictures:
            written[p.file] = atomic_write(out / PNG_DIR / p.file, _bytes_writer(p.png))
    html = _HTML.render(
        stylesheet=Markup(STYLESHEET), title=title, version=__version__, sections=sections,
        baseline=baseline, overrides=overrides_note(runs),
        scenarios=counted(len(sections), "scenario"), counted=counted, show=_html_text,
        alpha=None if drift is None else f"{drift.alpha:g}",
        drift_list=drift_list(drift, sections),
        p_kept_whole=_p_kept_whole, whole=whole_words,
        drift_verdict=drift_verdict(drift, baseline) if drift and baseline else "",
        not_compared=not_compared(drift) if drift else "",
        baseline_hint=baseline_hint(shown_out, baseline, drift) if baseline else "",
        spec_failures=spec_failures(specs), table=_html_table, pictures=_html_pictures,
        SPEC_HEADER=SPEC_HEADER, TOC_HEADER=TOC_HEADER, toc_note=TOC_NOTE, toc_items=_toc_items,
        DRIFT_HEADER=DRIFT_HEADER, OUTCOME_HEADER=OUTCOME_HEADER, line_aside=EXACT_LINE_ASIDE,
    )  # fmt: skip
    markdown = _markdown(sections, title, drift, specs, baseline, overrides_note(runs),
                         shown_out)  # fmt: skip
    written["html"] = atomic_write(out / "report.html", _text_writer(html))
    written["markdown"] = atomic_write(out / "report.md", _text_writer(markdown))
    if drift is not None and baseline is not None:
        written["drift"] = write_drift_json(out, drift, baseline, runs, baseline_runs)
    if write_results:
        written["results"] = save_results(runs, out / "results.json")
    return written
