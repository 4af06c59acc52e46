"""Terminal output: rich tables of a result and a progress bar for long runs.

When standard output is not a terminal (CI logs, pipes), no live bar is drawn: one plain
line is printed when the run finishes.
"""

from __future__ import annotations

import functools
import math
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import pandas as pd
from rich import box
from rich.console import (
    Console,
    ConsoleOptions,
    ConsoleRenderable,
    Group,
    RenderableType,
    RenderHook,
    RenderResult,
)
from rich.markup import escape
from rich.measure import Measurement
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.segment import Segment
from rich.style import Style
from rich.table import Column, Table
from rich.text import Text

from simlab.analysis.result import Result
from simlab.analysis.stats import normal_quantile
from simlab.engine.compiling import FIRST_COMPILE, compile_notice, kernels_of
from simlab.report.width import (
    NARROWEST,
    broken_at_spaces,
    fits_a_width,
    items,
    items_packed,
    listed,
    packed,
    words_keeping,
    wrapped,
)
from simlab.report.words import counted, format_p, overrides_said
from simlab.scenario.common import RATE_FIGURES

if TYPE_CHECKING:
    from simlab.analysis.drift import DriftReport, Repeats
    from simlab.exact.engine import DuelExact, ExactResult

#: From this many columns on, tables give attacker, attack and defender columns of their own.
WIDE = 110


class _Console(Console):
    """rich's console, whose lines, piped, end at their last character
    (:class:`_Unpadding`). It prints to ``sys.stdout`` as it is at each print: in the
    ``simlab`` command, a stream that outlives its reader (``simlab sweep --out DIR |
    head``: ``cli.entry``), so that rich's own answer to a closed pipe, ending the
    program before the command has written its output files, never comes.

    It reads no markup and no emoji codes in what it prints: a table's cells, titles and
    headers hold names and values as the scenario writes them, and rich read a swept
    ``stone-strike.status.12=[stun 2]`` or a combatant named ``Brute [boss]`` as a
    style tag and printed nothing in its place, and one named ``:skull:`` as 💀. A style
    is given as a ``Text``'s."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)
        self.push_render_hook(_Unpadding(self))


class _Unpadding(RenderHook):
    """What ``console`` prints, piped or sent to a file, with no space at the end of a
    line: rich pads a table's rows and a centred title to the table's width, which a CI
    log or a diff of two runs' output shows. Through rich's public render hooks (a
    private method overridden could go in any rich release); on a terminal, as rich
    prints it."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        """Each of ``renderables`` unpadded (:class:`_Unpadded`), unless on a terminal."""
        if self.console.is_terminal:
            return renderables
        return [_Unpadded(renderable) for renderable in renderables]


class _Unpadded:
    """A renderable as rich renders it, without the spaces that end its lines."""

    def __init__(self, renderable: ConsoleRenderable) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from _unpadded(console.render(self.renderable, options))


def _unpadded(segments: Iterable[Segment]) -> Iterator[Segment]:
    """``segments`` with the spaces that end each line left out (a control segment, a
    cursor move, is kept where it is)."""
    held: list[Segment] = []  # spaces not yet known to end their line
    for segment in segments:
        if segment.control:
            yield segment
            continue
        lines = segment.text.split("\n")
        for k, text in enumerate(lines):
            if k:
                held.clear()
                yield Segment("\n")
            kept = text.rstrip(" ")
            if kept:
                yield from held
                held.clear()
                yield Segment(kept, segment.style)
            if text != kept:
                held.append(Segment(text[len(kept) :], segment.style))
    yield from held


def _make_console() -> _Console:
    """A terminal, or ``COLUMNS`` set: its width, at least :data:`NARROWEST`. Otherwise
    (CI logs, pipes) a fixed width wide enough for the wide tables."""
    if not fits_a_width():
        return _Console(width=WIDE + 20)
    made = _Console()
    made.width = max(made.width, NARROWEST)
    return made


console = _make_console()


def say_unbroken(line: str, indent: str = "", whole: Iterable[str] = ()) -> None:
    """Print ``line`` as plain text, broken at spaces to the console's width
    (:func:`~simlab.report.width.broken_at_spaces`: a path never split, nor a name of
    ``whole``, the lines after the first starting with ``indent``)."""
    console.print(broken_at_spaces(line, console.width, indent, whole), markup=False,
                  highlight=False, soft_wrap=True)  # fmt: skip


def say_for_tools(line: str, whole: Iterable[str] = ()) -> None:
    """Print a line a tool or a CI job reads (a :func:`simulated_line`, ``grep
    'simulated .* of PATH'``; what a command wrote; the drift gate's verdict): on a
    terminal broken at spaces as every note is, never inside a path nor a part of
    ``whole`` (:func:`say_unbroken`); piped or sent to a file, on one line whatever
    ``COLUMNS`` says, as an error keeps one line there: at 80 columns a long path put
    the path on a line of its own, and how the run stopped on a third."""
    if sys.stdout.isatty():
        say_unbroken(line, whole=whole)
        return
    console.print(line, markup=False, highlight=False, soft_wrap=True)


def say_items(parts: list[str], bold: str = "", whole: Iterable[str] = ()) -> None:
    """Print a heading line of items (:func:`~simlab.report.width.items`) broken only
    between two parts at the console's width, never inside ``label value`` or a name,
    its later lines indented by two spaces, a line broken at a separator ending without
    it (:func:`~simlab.report.width.items_packed`); a part longer than a line broken at
    its spaces, but not inside a name of ``whole``; ``bold``: what it starts with, in
    bold."""
    text = Text("\n".join(items_packed(parts, console.width, "  ", whole)))
    if bold:
        text.stylize("bold", 0, len(bold))
    console.print(text, soft_wrap=True)


#: While a progress bar shows, the function that makes it say that a rule system's
#: kernels are compiling (:func:`say_compiling`).
_LIVE_BAR: list[Callable[[str], None]] = []


@contextmanager
def progress(total: int | None, what: str = "", done: str = "") -> Iterator[Callable[[int], None]]:
    """A progress bar over ``total`` encounters (of ``what``, when named); yields the
    function that advances it. ``total`` None: runs whose count is not known ahead
    (``compare --precision`` runs A, then B, each to the precision, and the one that
    stopped first on to the other's stop), a bar that says the encounters simulated so
    far (``12,000 encounters so far``).

    Until the first block is done the bar says ``starting``, and ``compiling the RULES
    kernels (a first run: 5–15 s)`` from when the run starts compiling them
    (:func:`say_compiling`, which the command line's compile listener calls): the first
    run of a rule system after installing simlab compiles them, which would otherwise
    look like a hang. A warm run, which compiles nothing, never says it. Where numba
    has no hook that tells of a compile (``jit.LIGHT_CACHE_LOADS`` false), ``starting``
    says that a first run compiles.

    Where standard output is not a terminal, no bar: a line when done, ``done`` where
    given (a comparison's ``simulated 1,250 encounters of A and of B``, whose bar counts
    both variants), else :func:`simulated_line` of ``total`` and ``what``.
    """
    of = f" of {what}" if what else ""
    if not sys.stdout.isatty():
        yield lambda _done: None
        if total is not None:  # else the command says it, which knows the count
            say_for_tools(done or simulated_line(total, what))
        return
    of = f" of {_in_the_bar(what, total)}" if what else ""
    simulating = f"simulating{of}"
    count = TextColumn("{task.completed:,}/{task.total:,}" if total is not None
                       else "{task.completed:,} encounters so far")  # fmt: skip
    columns = (TextColumn("{task.description}"), BarColumn(), count,
               *([TimeRemainingColumn()] if total is not None else []))  # fmt: skip
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(escape(_starting(of)), total=total)

        def compiling(rules: str) -> None:
            said = _compiling_in_the_bar(rules, total)
            bar.update(task, description=escape(said), refresh=True)

        _LIVE_BAR.append(compiling)
        try:
            yield lambda done: bar.update(task, advance=done, description=escape(simulating))
        finally:
            _LIVE_BAR.remove(compiling)


#: The columns a progress bar keeps for its bar (at least), the time left and the spaces
#: between its columns, beside its words and count.
BAR_ROOM = 10 + len("0:00:00") + 3


def _in_the_bar(what: str, total: int | None) -> str:
    """``what`` as a progress bar names it: a path (``check``'s, ``report``'s scenario)
    whose whole would leave the bar no room for its count and the time left in the
    terminal (rich cut ``0:00:00`` to ``0:0…`` at 80 columns) by its file name."""
    if len(f"simulating of {what}") <= _words_room(total):
        return what
    return PurePath(what).name or what


def _words_room(total: int | None) -> int:
    """The columns a progress bar of ``total`` encounters leaves its words, beside its
    count, its bar (:data:`BAR_ROOM`) and the time left, in the terminal."""
    count = f"{total:,}/{total:,}" if total is not None else f"{10**7:,} encounters so far"
    return console.width - len(count) - BAR_ROOM


def _compiling_in_the_bar(rules: str, total: int | None) -> str:
    """What a progress bar says while the kernels of ``rules`` compile: the longest of
    ``compiling the RULES kernels (a first run: 5–15 s)``, without ``a first run``, and
    ``compiling kernels (5–15 s)`` that leaves room for the count and the time left (at
    80 columns the first squeezed the bar to ``━━━`` and cut the time to ``-:-…``)."""
    said = [f"compiling {kernels_of(rules)} (a first run: {FIRST_COMPILE})",
            f"compiling {kernels_of(rules)} ({FIRST_COMPILE})",
            f"compiling kernels ({FIRST_COMPILE})"]  # fmt: skip
    return next((line for line in said if len(line) <= _words_room(total)), said[-1])


def _starting(of: str) -> str:
    """What a progress bar says before its first block: ``starting``; without numba's
    hook that tells of a compile, that a first run compiles the kernels too."""
    from simlab.engine import jit

    if jit.LIGHT_CACHE_LOADS:
        return f"starting{of}"
    return f"starting{of} (a first run compiles the kernels: {FIRST_COMPILE})"


def say_compiling(rules: str) -> None:
    """Say on the terminal that the kernels of the rule system ``rules`` are compiling:
    in the progress bar that shows; with none (``simlab tune``), a line
    (:func:`~simlab.engine.compiling.compile_notice`)."""
    if _LIVE_BAR:
        _LIVE_BAR[-1](rules)
        return
    console.print(compile_notice(rules), markup=False, highlight=False)


def simulated_line(encounters: int, what: str = "", precision: Any = None) -> str:
    """What a run simulated, said before its tables where no progress bar showed it
    (standard output not a terminal): ``simulated 2,000 encounters``, ``of`` ``what``
    when named. A run to a precision (its record, ``Result.meta["precision"]``) adds
    how it stopped: ``(precision met; cap 200,000)`` (``cap 200,000 each`` where the
    record says the cap is ``each`` run's: a sweep's points, a comparison's A and B) or
    ``(cap reached before the precision was met)``; a sweep's (``capped`` of its
    ``points`` reached the cap) says at how many points, where not at every one: ``(cap
    reached at 1 of 3 points before the precision was met)``."""
    of = f" of {what}" if what else ""
    return f"simulated {counted(encounters, 'encounter')}{of}{stopped_how(precision)}"


def stopped_how(precision: Any) -> str:
    """How a run to a precision stopped, as :func:`simulated_line` ends (``" (precision
    met; cap 200,000)"``); "" for a plain run (``precision`` None)."""
    if precision is None:
        return ""
    if precision["met"]:
        each = " each" if precision.get("each") else ""  # a point's, a variant's cap
        return f" (precision met; cap {precision['cap']:,}{each})"
    capped, points = precision.get("capped", 1), precision.get("points", 1)
    where = f" at {capped} of {points} points" if capped < points else ""
    return f" (cap reached{where} before the precision was met)"


def formatted(value: float, spec: str) -> str:
    """``format(value, spec)`` for people: a number that rounds to zero as written is
    written without a sign, ``0.000`` and not ``-0.000`` (a difference of -0.0003 to three
    decimals) nor ``+0.000``. Python 3.10, which simlab supports, has no ``z`` option
    that would say so in ``spec``; every table and page formats its numbers through here.

    Parameters
    ----------
    value : float
        The number.
    spec : str
        A format specification, such as ``"+.3f"`` or ``".4g"``.

    Returns
    -------
    str
        The number as ``spec`` writes it, unsigned where it reads as zero.
    """
    text = format(value, spec)
    if text[:1] in "+-" and float(text) == 0:
        return text[1:]
    return text


def level_percent(level: float) -> str:
    """A confidence level as a percentage, with the decimals it takes to tell it from
    100% to a tenth of what it falls short: 0.95 as ``95%``, 1 − 1.26·10⁻⁴ as
    ``99.987%``."""
    percent, short = level * 100, (1 - level) * 100
    decimals = 0
    while abs(round(percent, decimals) - percent) > short / 10 and decimals < 12:
        decimals += 1
    return f"{percent:.{decimals}f}%"


#: The values a rate can take, and those of every other figure simlab shows with an
#: interval (a mean damage, a time-to-down in rounds, a count per encounter): an
#: interval shown never reaches beyond them (:func:`estimate`).
RATE_RANGE = (0.0, 1.0)
NON_NEGATIVE = (0.0, math.inf)
#: The most decimals a figure is shown to (an interval of float noise around it).
MOST_DECIMALS = 12


def figure_range(figure: str) -> tuple[float, float]:
    """The values figure ``figure`` (``hit_rate``, ``mean_damage``…) can take: a rate's
    [0, 1] (:data:`RATE_RANGE`), any other's [0, ∞) (:data:`NON_NEGATIVE`). A rate is
    any share of attacks or encounters, ``down_by_round`` and ``damage_at_least`` too
    (:data:`~simlab.scenario.common.RATE_FIGURES`, and ``--check``'s
    :data:`DOWN_BY_CAP`), not only a name ending in ``_rate``."""
    rate = figure in RATE_FIGURES or figure.endswith("_rate") or figure == DOWN_BY_CAP
    return RATE_RANGE if rate else NON_NEGATIVE


#: ``simlab run --check``'s P(downed by the round cap), a rate too.
DOWN_BY_CAP = "down_by_round_cap"


def estimate(
    value: float,
    lo: float,
    hi: float,
    within: tuple[float, float] = NON_NEGATIVE,
    against: tuple[float, float] = (-math.inf, math.inf),
    bracketed: bool = False,
) -> str:
    """A figure with its 95% interval, as every table and page shows one (README,
    "Output files").

    The decimals are :func:`interval_decimals`'. The figure is ``value ± half-width``,
    the half-width measured from the value as shown and rounded up, so that the
    interval shown is never narrower than the true one: ``0.547 ± 0.009``, ``3.41 ±
    0.02``, ``0.9167 ± 0.0010``. Where that would reach beyond the values the figure
    can take (``within``, :func:`figure_range`), or onto one of their limits that the
    interval stays off, it is ``value [lo, hi]``, the bounds rounded outwards
    (:func:`value_and_bounds`): ``0.3 [0.008, 0.91]``, not ``0.3 ± 0.7``; ``8 [0,
    104]``, not ``8 ± 96``. ``bracketed``: always so (the pages, whose headers say
    [95%]).

    A rate at 0 or 1 has a one-sided interval, shown as its bound (``0 (< 3e-06)``,
    ``1 (> 0.9998)``; bracketed, ``0 [0, 0.0007]``). A figure whose interval
    could not be estimated (a mean of attacks that fall in a single batch of the run)
    is marked ``2 (?)``, where a bare number is one with no spread at all. A figure
    held against bounds ``against`` (a spec's) gets the decimals it needs to read on
    the side of each where it lies (:func:`decimals_to_decide`); one of a run to a
    precision (:func:`held_to`), those its half-width needs to read within its limit
    where it is within it (:func:`precision_decimals`).
    """
    if pd.isna(value):
        return "—"
    if pd.isna(lo) or pd.isna(hi):
        return f"{plain_number(value, nonzero_decimals(value, 3))} (?)"
    lo, hi = max(lo, within[0]), min(hi, within[1])  # the figure lies within them
    half = max(value - lo, hi - value)
    if not math.isfinite(half) or half <= 0:
        return plain_number(value, nonzero_decimals(value, 3))
    one_sided = _one_sided(value, lo, hi, within, bracketed)
    if one_sided:
        return one_sided
    more = decimals_to_decide(value, *against, interval_decimals(value, lo, hi))
    more = precision_decimals(value, lo, hi, within, more)
    shown, covering = _plus_minus(value, lo, hi, more)
    if not _strays(shown, covering, lo, hi, within):
        if not bracketed:
            return f"{shown} ± {covering}"
        digits = more  # the page's decimals are the terminal's: 0.062 [0.053, 0.073]
    else:
        least = decimals_to_decide(value, *against, half_decimals(half))
        digits = _bracket_decimals(value, lo, hi, least, within)
    return value_and_bounds(value, lo, hi, digits, within)


def _bracket_decimals(value: float, lo: float, hi: float, digits: int,
                      within: tuple[float, float]) -> int:  # fmt: skip
    """``digits``, or one more where ``value [lo, hi]`` to ``digits`` decimals (its
    bounds rounded outwards) would show an interval more than half as wide again as
    the true one: rule (b) for the bracketed form."""
    text = value_and_bounds(value, lo, hi, digits, within)
    low, high = (float(x) for x in text[text.rindex("[") + 1 : -1].split(", "))
    return min(digits + (high - low > 1.5 * (hi - lo)), MOST_DECIMALS)


def interval_cell(row: Any, name: str, bracketed: bool = False) -> str:
    """Figure ``name`` of a table's row (a Series, or a tuple of ``itertuples``) with
    its 95% interval (``<name>_ci95_lo/hi``), by :func:`estimate`, within the values
    it can take (:func:`figure_range`)."""
    cells = [f"{name}{end}" for end in ("", "_ci95_lo", "_ci95_hi")]
    value, lo, hi = (row[c] if isinstance(row, pd.Series) else getattr(row, c) for c in cells)
    return estimate(value, lo, hi, figure_range(name), bracketed=bracketed)


def interval_decimals(value: float, lo: float, hi: float) -> int:
    """The decimals a figure with its interval ``[lo, hi]`` is shown to: those of its
    half-width's first significant digit, and one more where rounding the figure to
    them would show an interval more than half as wide again as the true one
    (``0.9167 ± 0.0010``, not ``0.917 ± 0.002``, for 0.91667 in [0.91571, 0.91763]).
    At most :data:`MOST_DECIMALS`."""
    half = max(value - lo, hi - value)
    digits = half_decimals(half)
    shown_half = float(_plus_minus(value, lo, hi, digits)[1])
    return min(digits + (shown_half - half > half / 2), MOST_DECIMALS)


#: The half-width a run to a precision held its figures to (``--precision H``) while
#: its tables and pages are written (:func:`held_to`); None for a run of a set size.
_HELD_TO: ContextVar[float | None] = ContextVar("held_to", default=None)


@contextmanager
def held_to(half_width: float | None) -> Iterator[None]:
    """While the tables (or pages) of a run to a precision are written, show every
    figure's half-width so that one within its limit reads within it
    (:func:`precision_decimals`).

    Parameters
    ----------
    half_width : float or None
        The precision H the figures were run to (:func:`held_half_width` reads it from
        a run's record); None, for a run of a set size, changes nothing.
    """
    token = _HELD_TO.set(half_width)
    try:
        yield
    finally:
        _HELD_TO.reset(token)


def held_half_width(*records: Mapping[str, Any] | None) -> float | None:
    """The precision H of the first of ``records`` (a run's ``Result.meta["precision"]``,
    a comparison's ``precision``) that is one; None where none is (a run of a set
    size)."""
    return next((float(r["half_width"]) for r in records if r), None)


#: The most decimals :func:`precision_decimals` adds to those of a figure's interval.
MORE_FOR_PRECISION = 3


def precision_decimals(value: float, lo: float, hi: float, within: tuple[float, float],
                       digits: int) -> int:  # fmt: skip
    """``digits``, or more where a run to a precision (:func:`held_to`) holds the figure
    to a half-width limit (H for a rate, H × max(|mean|, 1) for a mean) that its
    interval keeps within (half its width, as the rule measures it) but its ``±``,
    rounded up to ``digits`` from the value as shown, reads beyond:
    ``3.4164 ± 0.0030``, not ``3.416 ± 0.004``, for a mean damage of 3.41637 in
    [3.41342, 3.41933] held to 0.001 × 3.416. A half-width beyond its limit reads beyond
    it already, rounded up; at most :data:`MORE_FOR_PRECISION` decimals are added.

    Parameters
    ----------
    value, lo, hi : float
        The figure and its 95% interval.
    within : tuple of float
        The values the figure can take (:func:`figure_range`): a rate's are
        :data:`RATE_RANGE`.
    digits : int
        The decimals it would be shown to otherwise.

    Returns
    -------
    int
        The decimals it is shown to.
    """
    held = _HELD_TO.get()
    if held is None:
        return digits
    limit = held * (1.0 if within == RATE_RANGE else max(abs(value), 1.0))
    if (hi - lo) / 2 > limit:  # beyond it, as the rule measures it: rounded up, it reads so
        return digits
    most = min(digits + MORE_FOR_PRECISION, MOST_DECIMALS)
    while digits < most and float(_plus_minus(value, lo, hi, digits)[1]) > limit:
        digits += 1
    return digits


def half_decimals(half: float) -> int:
    """The decimals of a half-width's first significant digit (none for one of 1 or
    more), at most :data:`MOST_DECIMALS`."""
    return min(max(-math.floor(math.log10(half)), 0), MOST_DECIMALS)


def _plus_minus(value: float, lo: float, hi: float, digits: int) -> tuple[str, str]:
    """``value`` to ``digits`` decimals and the half-width, rounded up to them, that
    reaches both ends of ``[lo, hi]`` from it as printed, each :func:`written` so:
    ``0.547``, ``0.009``; ``8e-05``, ``5e-05``."""
    shown = written(value, digits)
    return shown, written(rounded_up(covering_half(shown, lo, hi), digits), digits)


def written(x: float, digits: int) -> str:
    """``x`` to ``digits`` decimals, as a figure, its half-width and its bounds are
    written in every table and page: below :data:`SMALL` (``0.0000`` as decimals), in
    powers of ten to the same last decimal, its trailing zeros kept as decimals keep
    them (``8e-05``, not ``0.00008``; ``1.0e-05`` for ``0.000010``).

    Parameters
    ----------
    x : float
        The number, rounded to ``digits`` decimals here (bounds come rounded outwards).
    digits : int
        The decimals it is written to.

    Returns
    -------
    str
        The number, unsigned where it reads as zero (:func:`formatted`).
    """
    text = formatted(x, f".{digits}f")
    shown = float(text)
    if not 0 < abs(shown) < SMALL:
        return text
    significant = digits + math.floor(math.log10(abs(shown))) + 1
    return f"{shown:.{max(significant, 1) - 1}e}"


def _strays(shown: str, half: str, lo: float, hi: float, within: tuple[float, float]) -> bool:
    """Whether ``shown ± half`` reaches beyond the values ``within``, or onto a limit of
    them that ``[lo, hi]`` stays off (``0.003 ± 0.003`` for a rate that is not 0)."""
    from decimal import Decimal  # exact: 0.7 + 0.3 is 1, not 0.9999999999999999

    low, high = within
    below, above = Decimal(shown) - Decimal(half), Decimal(shown) + Decimal(half)
    return below < low or above > high or below == low < lo or above == high > hi


def _one_sided(value: float, lo: float, hi: float, within: tuple[float, float],
               bracketed: bool = False) -> str:  # fmt: skip
    """A figure at a limit of its values ``within`` with an interval that reaches away
    from it only, as that bound rounded outwards, ``0 (< 3e-06)`` or ``1 (> 0.9998)``
    (``bracketed``: ``0 [0, 3e-06]``, ``1 [0.9998, 1]``); "" for any other."""
    low, high = within
    if value == lo == low == 0 < hi:
        first = -math.floor(math.log10(hi))
        digits = _off_the_limit(high - hi, first)  # 0 (< 0.96), not 0 (< 1), for a rate
        up = rounded_up(hi, digits)
        bound = f"{up:.1g}" if digits == first else plain_number(up, digits)
        return f"0 [0, {bound}]" if bracketed else f"0 (< {bound})"
    if value == hi == high > lo:
        digits = _off_the_limit(lo - low, _off_the_limit(high - lo, 0))
        bound = plain_number(rounded_down(lo, digits), digits)  # 0.99999, not 0.999990
        top = plain_number(high)
        return f"{top} [{bound}, {top}]" if bracketed else f"{top} (> {bound})"
    return ""


def nonzero_decimals(x: float, digits: int, within: tuple[float, float] = (0, 0),
                     most: int = MOST_DECIMALS) -> int:  # fmt: skip
    """``digits``, or more for a number that would read as 0 to them, or as a limit of
    ``within`` (a rate's 1), that it is not: the decimals of its first significant digit
    (``0.0003``, never ``0.000``, for a rate that happened; ``0.9995``, never
    ``1.000``, for one that did not always), at most ``most``."""
    limits = _limits(x, within)
    while digits < most and float(formatted(x, f".{digits}f")) in limits:
        digits += 1
    return digits


def _limits(x: float, within: tuple[float, float]) -> set[float]:
    """0 and the finite limits of ``within``, but ``x`` itself: what ``x`` must not
    read as when it is not that."""
    return {0.0, *(limit for limit in within if math.isfinite(limit))} - {x}


#: The most decimals a figure is given to read on its side of a bound or target.
MOST_DECIDING_DIGITS = 9


def decimals_to_decide(value: float, low: float, high: float, least: int) -> int:
    """The decimals, ``least`` or more, that ``value`` needs to read on the side of
    each bound (``low``, ``high``; ``±inf`` for none) where it lies: a spec measured at
    0.91664 against "at least 0.9167" fails, and printed as ``0.917`` it would read as
    passing (at most :data:`MOST_DECIDING_DIGITS`)."""
    digits = least
    while digits < MOST_DECIDING_DIGITS and any(
        _side_shown(value, bound, digits) for bound in (low, high)
    ):
        digits += 1
    return digits


def _side_shown(value: float, bound: float, digits: int) -> int:
    """1 when ``value`` rounded to ``digits`` decimals lies on another side of
    ``bound`` than ``value`` (or on it, where ``value`` is not), else 0."""
    if not (math.isfinite(value) and math.isfinite(bound)):
        return 0
    shown = round(value, digits)
    return int((shown > bound) - (shown < bound) != (value > bound) - (value < bound))


def covering_half(shown: str, lo: float, hi: float) -> float:
    """The half-width that a value printed as ``shown`` (rounded) needs for ``shown ±
    half`` to hold the whole interval ``[lo, hi]``: rounding the value moves the centre,
    so the true interval's own half-width can fall short on one side."""
    centre = float(shown)
    return max(centre - lo, hi - centre)


def rounded_up(half: float, digits: int) -> float:
    """A half-width (or an upper bound) rounded *up* to ``digits`` decimals, so that the
    interval shown is never narrower than the true one."""
    return math.ceil(half * 10**digits - 1e-9) / 10**digits


def rounded_down(bound: float, digits: int) -> float:
    """A lower bound rounded *down* to ``digits`` decimals (:func:`rounded_up`'s twin)."""
    return math.floor(bound * 10**digits + 1e-9) / 10**digits


def decimals(x: Any, digits: int = 3, within: tuple[float, float] | None = None) -> str:
    """``x`` to ``digits`` decimals for pages and interval tables: "—" for a missing
    value, :data:`NOT_REACHED` for an infinite one (a median no round reaches).
    ``within``: the values of a figure ``x`` is, which it is shown with the decimals it
    needs not to read as a limit of them, or as 0, that it is not
    (:func:`nonzero_decimals`)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return NOT_REACHED
    if within is not None:
        digits = nonzero_decimals(x, digits, within)
    return formatted(x, f".{digits}f")


def value_and_bounds(value: Any, lo: Any, hi: Any, digits: int = 3,
                     within: tuple[float, float] = (-math.inf, math.inf)) -> str:  # fmt: skip
    """``value [lo, hi]`` to ``digits`` decimals, the bounds rounded outwards as in
    :func:`bounds`. The value, where it is not 0, gets the decimals it needs not to read
    as 0 or as a limit of ``within`` (:func:`nonzero_decimals`); a lower bound that
    would read as the limit of ``within`` it stays off is its first significant digit
    (``0.003 [0.0008, 0.007]``); an upper bound gets the decimals it needs to stay off
    the upper limit. A value below 0.0001 gets its first significant digit at least,
    and it and its bounds below 0.0001 are written as powers of ten (:func:`written`):
    ``4e-05 [8e-06, 0.00013]``, ``9e-05 [4e-05, 0.00018]``, as ``0 (< 3e-06)``."""
    low, high = within
    upper = _written_bound(hi, rounded_up, _off_the_limit(high - hi, digits))
    return f"{figure_number(value, digits, within)} [{_lower_bound(lo, digits, low)}, {upper}]"


def figure_number(value: Any, digits: int = 3,
                  within: tuple[float, float] = (-math.inf, math.inf)) -> str:  # fmt: skip
    """A figure as :func:`value_and_bounds` writes it: to ``digits`` decimals, or those it
    needs not to read as 0 or as a limit of ``within`` that it is not
    (:func:`decimals`); below :data:`SMALL`, where they would start ``0.0000``, as powers
    of ten, to the significant digits those decimals give, at least one (``4e-05``)."""
    if isinstance(value, float | int) and 0 < abs(value) < SMALL:
        first = -math.floor(math.log10(float(f"{abs(value):.0e}")))  # 9.7e-05: 0.0001
        return written(value, max(digits, first))
    return decimals(value, digits, within)


#: Below this a figure or a bound is written as powers of ten (``8e-06``): as decimals it
#: would start with ``0.0000``.
SMALL = 1e-4


def _lower_bound(lo: Any, digits: int, low: float) -> str:
    """A lower bound rounded down to ``digits`` decimals; where that would read as 0, the
    lower limit ``low`` of a figure's values that it stays off, rounded down to its first
    significant digit (``0.0008``, ``8e-06``)."""
    if isinstance(lo, float | int) and low == 0 < lo and rounded_down(lo, digits) == 0:
        return f"{rounded_down(lo, -math.floor(math.log10(lo))):.1g}"
    return _written_bound(lo, rounded_down, digits)


def _written_bound(x: Any, rounded: Callable[[float, int], float], digits: int) -> str:
    """A bound of a figure's interval rounded by ``rounded`` to ``digits`` decimals and
    :func:`written` as the figure is (``4e-05``, not ``0.00004``); one that is not a
    finite number as :func:`decimals` gives it."""
    if not (isinstance(x, float | int) and math.isfinite(x)):
        return decimals(x, digits)
    return written(rounded(x, digits), digits)


def _off_the_limit(gap: Any, digits: int) -> int:
    """``digits``, or the decimals of ``gap``'s first significant digit where more: a
    bound ``gap`` off a limit, rounded outwards to them, stays off it."""
    if not (isinstance(gap, float | int) and 0 < gap < math.inf):
        return digits
    return max(digits, -math.floor(math.log10(gap)))


def bounds(lo: Any, hi: Any, digits: int = 3, sign: str = "") -> str:
    """``[lo, hi]`` to ``digits`` decimals, rounded outwards so that the interval shown is
    never narrower than the true one (as in the terminal); ``sign="+"`` signs both. A
    bound that is not a finite number reads as :func:`decimals` gives it ("not reached", "—"),
    and the other is still rounded outwards and signed."""
    return (f"[{_bound(lo, rounded_down, digits, sign)}, "
            f"{_bound(hi, rounded_up, digits, sign)}]")  # fmt: skip


def _bound(x: Any, rounded: Callable[[float, int], float], digits: int, sign: str) -> str:
    """One bound of :func:`bounds`, rounded by ``rounded`` when it is a finite number."""
    if not (isinstance(x, float | int) and math.isfinite(x)):
        return decimals(x, digits)
    return formatted(rounded(x, digits), f"{sign}.{digits}f")


#: The decimals of an exact answer, in every table and page, ``simlab exact``'s too;
#: beside a simulated figure whose precision calls for more, its (:func:`check_decimals`).
EXACT_DECIMALS = 4


#: The most decimals an exact answer is written to; one closer to 0 or to a rate's 1 than
#: they show is written as beyond them (:func:`exact_number`).
EXACT_MOST_DECIMALS = 8


def exact_number(value: Any, figure: str = "", digits: int = EXACT_DECIMALS) -> str:
    """An exact answer (of figure ``figure``) as every table and page writes it: to
    ``digits`` decimals (:data:`EXACT_DECIMALS`), trailing zeros kept, more where it
    would read as 0 or as a rate's 1 that it is not (``0.00005``, ``0.99999999``); "—"
    where there is none. One that would still read so at
    :data:`EXACT_MOST_DECIMALS` is written as beyond it, ``> 0.99999999`` or ``<
    1e-08``: a P(down by the round cap) of 1 − 4·10⁻¹⁶ is not certain (nor is one
    that a sum of floats puts at 1 + 9·10⁻¹⁶), and ``1.000000`` read as if it were."""
    if value is None or pd.isna(value):
        return "—"
    x, within = float(value), figure_range(figure) if figure else (0.0, 0.0)
    digits = nonzero_decimals(x, digits, within, max(digits, EXACT_MOST_DECIMALS))
    shown = float(formatted(x, f".{digits}f"))
    if shown not in _limits(x, within):
        return formatted(x, f".{digits}f")
    if shown == 0:
        return f"< {10.0**-digits:.0e}"
    return f"> {formatted(shown - 10.0**-digits, f'.{digits}f')}"


def percent(rate: float) -> str:
    """A rate as a whole percentage, with the decimals it needs not to read as 0% or
    100% that it is not: ``62%``, ``99.8%`` for 0.9984, ``0.2%`` for 0.0016, ``100%``
    only for 1."""
    return f"{formatted(rate * 100, f'.{nonzero_decimals(rate * 100, 0, (0, 100))}f')}%"


def plain_number(value: float, digits: int = 3) -> str:
    """A number without trailing zeros: ``10``, ``10.2``, ``0.125``."""
    text = formatted(value, f".{digits}f")
    return text.rstrip("0").rstrip(".") if "." in text else text


#: How every table and page writes a median time-to-down that fewer than half of the
#: encounters reach by the round cap (README, "Output files"): one phrase, everywhere.
NOT_REACHED = "not reached"

#: What a median time-to-down is, said the same way under every table and on every page
#: that shows one (the run's, the sweep's and the report's): :func:`median_note` adds the
#: open interval of the table it stands under.
_MEDIAN_IS, _MEDIAN_INTERVAL, _MEDIAN_UNREACHED = (
    "Median: the round by which half of all encounters had it down",
    ", with its 95% interval",
    "not reached: fewer than half did by the round cap",
)
MEDIAN_NOTE = f"{_MEDIAN_IS}{_MEDIAN_INTERVAL} ({_MEDIAN_UNREACHED})."


def median_note(rows: pd.DataFrame | None) -> str:
    """:data:`MEDIAN_NOTE` for the table of ``rows``, with the first of its intervals that
    reach beyond the round cap as the example of one (:func:`open_median`): ``(not
    reached: fewer than half did by the round cap; [9, not reached]: the median may lie
    from round 9 to beyond the cap)``, a round the table shows (a fixed ``[6, not
    reached]`` read as a round past a cap of 5); none where no interval does.

    Parameters
    ----------
    rows : pandas.DataFrame or None
        The table's ``median_time_to_down`` and its ``_ci95_lo/hi``; None for medians
        shown without their intervals (the report's contents), which the note says
        without them.

    Returns
    -------
    str
        The note, a sentence.
    """
    if rows is None:
        return f"{_MEDIAN_IS} ({_MEDIAN_UNREACHED})."
    low = _open_median_low(rows)
    example = (f"; [{low}, {NOT_REACHED}]: the median may lie from round {low} to beyond "
               "the cap") if low else ""  # fmt: skip
    return f"{_MEDIAN_IS}{_MEDIAN_INTERVAL} ({_MEDIAN_UNREACHED}{example})."


def open_median(rows: pd.DataFrame) -> str:
    """The first median interval of ``rows`` (``median_time_to_down_ci95_lo/hi``) that
    reaches beyond the round cap from a round the cap reaches, as every table shows it,
    ``[9, not reached]``; "" where none does. A note keeps it whole on its line."""
    low = _open_median_low(rows)
    return f"[{low}, {NOT_REACHED}]" if low else ""


def _open_median_low(rows: pd.DataFrame) -> str:
    """The low end of :func:`open_median`'s interval, as shown (``9``); "" for none."""
    ends = zip(rows.median_time_to_down_ci95_lo, rows.median_time_to_down_ci95_hi, strict=True)
    for lo, hi in ends:
        if rounds_label(hi) == NOT_REACHED != rounds_label(lo):
            return rounds_label(lo)
    return ""


def rounds_label(value: float) -> str:
    """A round: ``7``; a median no round reaches by the cap (NaN or inf) is
    :data:`NOT_REACHED`."""
    if pd.isna(value) or value == math.inf:
        return NOT_REACHED
    return f"{value:.0f}"


def median_and_interval(median: float, lo: float, hi: float) -> str:
    """A median time-to-down with its 95% interval, ``7 [6, 8]`` or ``30 [28, not
    reached]``; :data:`NOT_REACHED` alone when neither it nor its interval is reached."""
    cells = [rounds_label(x) for x in (median, lo, hi)]
    if all(cell == NOT_REACHED for cell in cells):
        return NOT_REACHED
    return f"{cells[0]} [{cells[1]}, {cells[2]}]"


def median_cell(row: Any) -> str:
    """A table row's median time-to-down with its interval (``median_time_to_down`` and
    its ``_ci95_lo/hi``), by :func:`median_and_interval`."""
    names = ("median_time_to_down", "median_time_to_down_ci95_lo", "median_time_to_down_ci95_hi")
    cells = (row[c] if isinstance(row, pd.Series) else getattr(row, c) for c in names)
    return median_and_interval(*cells)


def broken_figures(cells: Sequence[str]) -> list[str]:
    """A column of figures with their intervals (:func:`estimate`,
    :func:`median_and_interval`) in the fewest columns that keep every figure whole: a
    cell longer than the longest figure or interval among them broken between the two,
    ``not reached`` / ``[9, not reached]``, ``0.655`` / ``± 0.007``, where ``5 [5, 5]``
    keeps to its line beside ``not reached [9, not reached]``. A figure moved from
    another (the drift gate's ``0.8593 → 0.7779``) breaks after its arrow."""
    parts = [_figure_parts(cell) for cell in cells]
    width = max((len(part) for cell in parts for part in cell), default=0)
    return [cell if len(cell) <= width else "\n".join(cell_parts)
            for cell, cell_parts in zip(cells, parts, strict=True)]  # fmt: skip


def broken_columns(headers: Sequence[str],
                   rows: Sequence[Sequence[str]]) -> tuple[list[str], list[list[str]]]:  # fmt: skip
    """Columns of figures (``rows`` of cells under ``headers``) in fewer columns of the
    console: each header on a line a word (``mean`` / ``damage``), each column's
    figures broken between value and interval where long (:func:`broken_figures`).

    Parameters
    ----------
    headers : Sequence[str]
        The columns' headers.
    rows : Sequence[Sequence[str]]
        The cells of each row, a cell per header.

    Returns
    -------
    tuple of (list of str, list of list of str)
        The headers and rows, broken.
    """
    columns = [broken_figures([row[k] for row in rows]) for k in range(len(headers))]
    broken = [list(row) for row in zip(*columns, strict=True)] if rows else []
    return [header.replace(" ", "\n") for header in headers], broken


def _figure_parts(cell: str) -> list[str]:
    """A cell's figure and its interval, ``["30", "[28, not reached]"]``, ``["0.655",
    "± 0.007"]``, ``["0", "(< 0.002)"]``, or a figure and the one it moved to,
    ``["0.8593 →", "0.7779"]``; the cell alone where it has none."""
    match = re.search(r" (?=[±\[(])|(?<= →) ", cell)
    return [cell[: match.start()], cell[match.end() :]] if match else [cell]


def is_wide() -> bool:
    """Whether the console is wide enough for the tables' extra columns."""
    return console.width >= WIDE


class _FittingTable(Table):
    """A table that closes up its columns, one space between them instead of two, where
    its figures would not fit the console otherwise: rich crops a table wider than the
    console at its right edge, and a count of 621 read as 62 (figures never wrap,
    :func:`number_column`). A table laid out closer already (compare's narrow layout,
    no padding) is left as it is: closed up so, it would be wider."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self._padded() and self._unbroken_width(console, options) > options.max_width:
            self.padding = (0, 1, 0, 0)
        return super().__rich_console__(console, options)

    def _padded(self) -> bool:
        """Whether its columns have a space each side (rich's padding), which closing
        up narrows."""
        _, right, _, left = self.padding
        return bool(left and right)

    def _unbroken_width(self, console: Console, options: ConsoleOptions) -> int:
        """The width the table needs without breaking any figure or name: a column that
        never wraps as wide as its widest cell, a column of names as its ``min_width``,
        and a column that may wrap (a spec, a pair broken at its arrow) 1, with their
        padding (a space each side) and the blank rule between two of them."""
        width = 3 * len(self.columns) - 1
        for column in self.columns:
            if column.no_wrap:
                cells = [column.header, *column.cells]
                width += max(Measurement.get(console, options, c).maximum for c in cells)
            else:
                width += column.min_width or 1
        return width


def console_table(title: str, kind: type[_FittingTable] = _FittingTable) -> Table:
    """A table that fits the console: no vertical rules, a line under the header, its
    columns closed up where its figures would not fit otherwise (:class:`_FittingTable`,
    or ``kind``, a table of that kind)."""
    return kind(title=title, box=box.SIMPLE_HEAD, show_edge=False,
                min_width=min(len(title), TITLE_WIDTH))  # fmt: skip


#: The least width of a table whose title is as long: a longer title is broken to it.
TITLE_WIDTH = 80


def numbers_table(title: str, header: str, names: Sequence[str | Parts],
                  headers: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:  # fmt: skip
    """A table of a column of names (headed ``header``) and columns of figures
    (``headers``), a row of cells in ``rows`` for each name."""
    table = console_table(title)
    name_column(table, header, names)
    for column in headers:
        number_column(table, column)
    for name, cells in zip(names, rows, strict=True):
        table.add_row(name, *cells)
    return table


def name_column(table: Table, header: str, names: Sequence[str | Parts]) -> None:
    """A column of names, each kept whole: at least as wide as the longest (or the
    longest part of a :class:`Parts` cell, which breaks between its parts only) and as
    the header's longest line. A name is never broken at a space inside it (``Raider
    Chief`` split over two rows read as ``Raider`` and a row of its own)."""
    widths = [n.narrowest if isinstance(n, Parts) else len(str(n)) for n in names]
    longest = max([*(len(line) for line in header.split("\n")), *widths], default=1)
    table.add_column(header, overflow="fold", min_width=max(longest, 1))


class Parts:
    """A table cell of several names (``Raider Chief: club → Warden``) that is broken
    only between its parts, each kept whole (:func:`~simlab.report.width.packed`), its
    later lines starting with ``indent``; rich would break it at any space.

    Where ``forms`` gives ways to lay it out (each its lines, ``hit_rate:`` /
    ``Attacker: strike → Defender``), the first that every cell of its ``column`` (the
    cells set to share one form, itself alone by default) fits is taken, so that it
    breaks where it reads and as the rows beside it do; where none fits, its first part
    stands alone over the rest, broken between its parts. ``as_form``: never narrower
    than its narrowest form (a table that cannot give it that room spreads its other
    columns over further tables, :func:`check_table`)."""

    def __init__(self, parts: Sequence[str], indent: str = "",
                 forms: Sequence[Sequence[str]] = (), as_form: bool = False) -> None:  # fmt: skip
        self.parts, self.indent = [p for p in parts if p] or [""], indent
        self.forms = [list(form) for form in forms]
        self.as_form = as_form and bool(self.forms)
        self.column: Sequence[Parts] = [self]

    def __str__(self) -> str:
        return " ".join(self.parts)

    @property
    def narrowest(self) -> int:
        """The width of its longest part, on a line of its own (``as_form``: of its
        narrowest form's longest line)."""
        if self.as_form:
            return min(self._longest(form) for form in self.forms)
        return self._longest(self.parts)

    def _longest(self, lines: Sequence[str]) -> int:
        """The width of the longest of ``lines``, those after the first indented."""
        return max([len(lines[0]), *(len(self.indent + line) for line in lines[1:])])

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.narrowest, len(str(self)))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(self.lines(options.max_width)), overflow="fold", end="")

    def lines(self, width: int) -> list[str]:
        """Its lines in ``width`` columns: in the first of its forms every cell of its
        column fits, else broken between its parts."""
        for k, form in enumerate(self.forms):
            if all(len(cell.forms) > k and cell._longest(cell.forms[k]) <= width
                   for cell in self.column):  # fmt: skip
                return [form[0], *(self.indent + line for line in form[1:])]
        if not self.forms or len(self.parts) == 1:
            return packed(self.parts, width, self.indent)
        head, first, *rest = self.parts
        return [head, *packed([self.indent + first, *rest], width, self.indent)]


def pair_parts(attacker: str, attack: str, defender: str) -> list[str]:
    """The parts of :func:`pair_heading`, broken after the attacker and after the arrow
    only: ``Raider Chief:`` / ``club →`` / ``Warden``."""
    if not attack:
        return [f"{attacker} →", defender]
    return [f"{attacker}:", f"{attack} →", defender]


def label_parts(label: str, names: Sequence[str] | None = None) -> list[str]:
    """A pair written as one text (``Raider Chief club → Warden``, the drift gate's
    subject and compare's ``on``) in the parts a narrow column breaks it between, each
    kept whole: its attacker, its attack with the arrow and its defender, ``Raider
    Chief`` / ``club →`` / ``Warden``, where ``names`` gives those three (the text
    cannot say where an attack named with spaces, ``two-handed greatsword``, starts);
    else before and after its arrow only; the text alone where it is not a pair.

    Parameters
    ----------
    label : str
        The pair as written, or a combatant's or a side's name.
    names : Sequence of str, optional
        The pair's attacker, attack and defender, as the table's rows were made from.

    Returns
    -------
    list of str
        The parts, which joined with spaces give ``label``.
    """
    if names is not None:
        attacker, attack, defender = names
        return [attacker, f"{attack} →", defender]
    before, arrow, after = label.partition(" → ")
    return [f"{before} →", after] if arrow else [label]


def number_column(table: Table, header: str) -> None:
    """A right-aligned column of numbers that never wraps."""
    table.add_column(header, justify="right", no_wrap=True)


def pair_heading(attacker: str, attack: str, defender: str) -> str:
    """``Kaito: quick-jab → Brute`` (``Kaito → Brute`` without an attack)."""
    who = f"{attacker}: {attack}" if attack else attacker
    return f"{who} → {defender}"


def attacks_table(result: Result, rates: pd.DataFrame | None = None,
                  said: Sequence[bool] | None = None) -> Table | Group:  # fmt: skip
    """Hit rate, crit rate and mean damage of every attack pairing, with 95% intervals.

    From :data:`WIDE` columns on, attacker, attack and defender have columns of their
    own, where those print whole. Narrower, attacker and attack share one column, named
    on the first row of their pairings, and the defender has its own (``at``); where a
    name does not fit beside the figures whole, each attack heads a row of its own with
    its defenders indented under it (:func:`_headed_tables`). A pair that cannot crit
    (:func:`crit_rate_said`; where that is not known, one with no crit in the run) reads
    :data:`NO_CRIT` in the crit rate's column, not a simulated 0 with its interval; the
    column is left out where no pair of the table says one (a rule system without crits
    too). ``rates``: the run's
    :meth:`~Result.hit_rates`, and ``said``, its :func:`crit_rate_said`, when the caller
    has them.
    """
    rates = result.hit_rates() if rates is None else rates
    damage = result.damage()
    said = crit_rate_said(result, rates).said if said is None else said
    crits = any(said)
    title = f"{result.scenario} · attacks (± 95% interval)"
    headers = ["attempts", "hit rate", *(["crit rate"] if crits else []), "mean damage"]
    figures = [_attack_figures(r, d, crits, says)
               for r, d, says in zip(rates.itertuples(), damage.itertuples(), said,
                                     strict=True)]  # fmt: skip
    if is_wide():
        table = console_table(title)
        for column in ("attacker", "attack", "defender"):
            name_column(table, column, list(rates[column]))
        for column in headers:
            number_column(table, column)
        for r, cells in zip(rates.itertuples(), figures, strict=True):
            table.add_row(r.attacker, r.attack, r.defender, *cells)
        if prints_whole(table):  # else long names: laid out as in a narrow terminal
            return table
    groups = _attack_groups(rates)
    beside = [[r.defender, *cells] for r, cells in zip(rates.itertuples(), figures, strict=True)]
    room = _label_room(["at", *headers], beside)
    labels = _labels(groups, room)
    if not all(labels):
        return _headed_tables(title, groups, list(rates.defender), headers, figures)
    table = _narrow_table(title)
    name_column(table, "attack", [line for lines in labels if lines for line in lines])
    name_column(table, "at", list(rates.defender))
    for column in headers:
        number_column(table, column)
    _add_rows(table, _beside_rows(groups, labels, beside))
    return table


def _narrow_table(title: str, kind: type[_FittingTable] = _FittingTable) -> Table:
    """A table with two spaces between columns (padding collapsed, and the rule's gap)
    and none at the edges: the numbers and an attacker's name with its attack fit in
    80 (a table of ``kind``, :func:`console_table`)."""
    table = console_table(title, kind)
    table.collapse_padding, table.pad_edge = True, False
    return table


def _add_rows(table: Table, rows: list[list[Any]]) -> None:
    """Add ``rows`` (their cells, then whether each ends a section) to ``table``, the
    cells a row lacks blank."""
    blank = [""] * (len(table.columns) - 1)
    for *names, end in rows:
        table.add_row(*names, *blank[len(names) - 1 :], end_section=end)


#: The crit rate's cell of a pair whose crit rate says nothing (:func:`says_a_crit_rate`).
NO_CRIT = "—"
#: What :data:`NO_CRIT` means, under an attacks table that shows it: of a run, of
#: ``simlab exact`` (``exact``).
NO_CRIT_NOTE = (
    "Crit rate —: no crit in the run (the attack cannot crit, or crits too rarely for "
    "this many encounters)."
)
EXACT_NO_CRIT_NOTE = "Crit rate —: exactly 0 (the attack cannot crit a fresh defender)."
#: What :data:`NO_CRIT` means under a run's table whose every ``—`` is of a pair known
#: to be unable to crit (:func:`cannot_crit_known`), with why (:attr:`CritSaid.why`).
CANNOT_CRIT_NOTE = "Crit rate —: the attack cannot crit ({why})."
#: Why an attacks table of a rule system with crits has no crit rate column.
NO_CRIT_COLUMN_NOTE = "Crit rate left out: no attack made a crit in the run."
CANNOT_CRIT_COLUMN_NOTE = "Crit rate left out: no attack can crit ({why})."
EXACT_NO_CRIT_COLUMN_NOTE = "Crit rate left out: no attack can crit (every answer is exactly 0)."


def says_a_crit_rate(simulated: Any = (), exact: Any = None) -> bool:
    """Whether a pair's crit rate says something, the one rule of every table of a run
    and of ``simlab exact``: not where it is 0 in every run ``simulated`` (rates or
    crit counts) and every exact answer ``exact`` known
    (:func:`~simlab.tuning.figures.never_crits`), which reads :data:`NO_CRIT`, not a
    ``0 (< 2e-05)`` nor a ``0.00000`` beside pairs that crit: an attack that cannot crit
    (a shattered-spirits profile with no ``crit`` row).

    Parameters
    ----------
    simulated : array-like of float, optional
        The pair's simulated crit rates or crit counts (none: an exact answer alone).
    exact : array-like of float, optional
        Its exact crit rates, NaN where unknown.

    Returns
    -------
    bool
    """
    from simlab.tuning.figures import never_crits

    return not never_crits(simulated, exact)


def crit_note(said: Sequence[bool], crits: bool, exact: bool = False, why: str = "") -> str:
    """The line under an attacks table whose pairs' crit rates say something where
    ``said`` (:func:`says_a_crit_rate`): what :data:`NO_CRIT` means where some read it,
    why the column is left out where all would; "" where every one says something, or
    the rule system has no crits (not ``crits``). ``exact``: under ``simlab exact``'s
    table, in the words of an exact 0; ``why``: under a run's table whose every
    :data:`NO_CRIT` is of a pair known to be unable to crit, why they cannot
    (:attr:`CritSaid.why`: ``its profile has no crit row``), in those words, not "no
    crit in the run"."""
    if not crits or all(said):
        return ""
    if any(said):
        if exact:
            return EXACT_NO_CRIT_NOTE
        return CANNOT_CRIT_NOTE.format(why=why) if why else NO_CRIT_NOTE
    if exact:
        return EXACT_NO_CRIT_COLUMN_NOTE
    return CANNOT_CRIT_COLUMN_NOTE.format(why=why) if why else NO_CRIT_COLUMN_NOTE


class CritSaid(NamedTuple):
    """What an attacks table says of its pairs' crit rates (:func:`crit_rate_said`)."""

    #: Per pair, in the rows' order, whether its crit rate says something.
    said: list[bool]
    #: Where every pair whose crit rate says nothing is known to be unable to crit, why
    #: (``its profile has no crit row``; the reasons of several, ``, or ``-joined): the
    #: note under the table then says so, not "no crit in the run" (:func:`crit_note`);
    #: "" where one of them may crit, or none says nothing.
    why: str


def crit_rate_said(
    result: Result,
    rates: pd.DataFrame | None = None,
    exact: Mapping[tuple[str, str, str], float] | None = None,
) -> CritSaid:
    """Per attack pair (the rows of ``rates``, :meth:`Result.hit_rates`), whether its
    crit rate says something: not in a rule system without crits (``Layout.crits``),
    nor for a pair that cannot crit (:func:`cannot_crit_known`), whose rate would read
    ``0 (< 2e-05)`` beside pairs that crit; a pair that can reads its 0 where no crit came
    up, as in the sweep's and the comparison's tables. Where neither the scenario nor
    an exact answer tells (results read back without exact answers), a pair with no crit
    in the run says nothing (:func:`says_a_crit_rate`, the rule of ``simlab exact``'s
    table).

    Parameters
    ----------
    result : Result
        The run.
    rates : pandas.DataFrame, optional
        Its :meth:`~Result.hit_rates` (computed here when not given).
    exact : mapping, optional
        Exact crit rates by (attacker, attack, defender), NaN where a fight moves it, for
        a run read back from files (:func:`cannot_crit_known`).

    Returns
    -------
    CritSaid
        Whether each pair's crit rate says something, and why those that say nothing
        cannot crit, where every one is known to be unable to; whether a pair can crit
        is worked out once, and only where some pair saw no crit.
    """
    rates = result.hit_rates() if rates is None else rates
    if not result.layout.crits:
        return CritSaid([False] * len(rates), "")
    if (rates.crits > 0).all():  # each pair crit: nothing to decide (no exact engine)
        return CritSaid([True] * len(rates), "")
    known = cannot_crit_known(result, rates, exact)
    said = [says_a_crit_rate([crits]) if why is None else not why
            for why, crits in zip(known, rates.crits, strict=True)]  # fmt: skip
    whys = [why or "" for says, why in zip(said, known, strict=True) if not says]
    return CritSaid(said, crit_whys_joined(whys) if all(whys) else "")


def crit_whys_joined(whys: Iterable[str]) -> str:
    """The reasons ``whys`` that pairs cannot crit as one note gives them, each once, in
    order: ``its profile has no crit row, or its exact crit rate is 0 whatever the
    fight`` (:attr:`CritSaid.why`).

    Parameters
    ----------
    whys : iterable of str
        A reason per pair, repeated as often as pairs give it.

    Returns
    -------
    str
    """
    return ", or ".join(dict.fromkeys(whys))


#: Why a pair read back from files cannot crit, by its exact answer
#: (:func:`cannot_crit_known`), as :func:`~simlab.tuning.figures.cannot_crit_why` says it.
EXACT_ZERO_WHY = "its exact crit rate is 0 whatever the fight"


def cannot_crit_known(
    result: Result,
    rates: pd.DataFrame,
    exact: Mapping[tuple[str, str, str], float] | None = None,
) -> list[str | None]:
    """Per attack pair (the rows of ``rates``), why it cannot crit, where whether it can
    is known: from the scenario the run simulated, or what a results file kept of it
    (:func:`~simlab.tuning.figures.known_cannot_crit`: ``its profile has no crit row``),
    else from its exact crit rate in ``exact`` (0: cannot, :data:`EXACT_ZERO_WHY`; more:
    can; NaN, where a fight moves it, or none: not known): results written before
    ``cannot_crit`` was kept have only their exact answers.

    Parameters
    ----------
    result : Result
        The run.
    rates : pandas.DataFrame
        Its :meth:`~Result.hit_rates`.
    exact : mapping, optional
        Exact crit rates by (attacker, attack, defender).

    Returns
    -------
    list of str or None
        One per pair, in the rows' order: why it cannot crit, "" where it can, None
        where that is not known.
    """
    from simlab.tuning.figures import known_cannot_crit, pair_label

    pairs = list(zip(rates.attacker, rates.attack, rates.defender, strict=True))
    known = known_cannot_crit(result)
    if known is not None:
        return [known.get(pair_label(*pair), "") for pair in pairs]
    answers = [(exact or {}).get(pair, math.nan) for pair in pairs]
    return [None if math.isnan(answer) else "" if answer > 0 else EXACT_ZERO_WHY
            for answer in answers]  # fmt: skip


def _attack_figures(r: Any, d: Any, crits: bool, says: bool = True) -> list[str]:
    """A row of the attacks table's figures: attempts, hit rate, crit rate (``crits``;
    :data:`NO_CRIT` where it says nothing, ``says`` false) and mean damage, with their
    95% intervals."""
    crit = [interval_cell(r, "crit_rate") if says else NO_CRIT] if crits else []
    return [f"{r.attempts:,}", interval_cell(r, "hit_rate"), *crit,
            interval_cell(d, "mean_damage")]  # fmt: skip


def _label_room(headers: list[str], rows: list[list[str]]) -> int:
    """The columns left for the narrow attacks table's first column beside the columns
    of ``headers`` and their cells (``rows``; a cell, or a header, of several lines as
    wide as its longest) at the console's width, two spaces between columns."""
    widths = [max(len(line) for cell in [h, *(row[i] for row in rows)]
                  for line in cell.split("\n"))
              for i, h in enumerate(headers)]  # fmt: skip
    return console.width - sum(widths) - 2 * len(widths)


#: The narrow attacks table's name column where each attack heads its own row
#: (:func:`_headed_rows`): the attack, and under it, indented, the defenders.
HEADED_HEADER = "attack\n  at"


def _attack_groups(rates: pd.DataFrame) -> list[tuple[str, str, list[int]]]:
    """The attacks table's groups of rows, in order: (attacker, attack, row numbers) of
    each run of rows of one attacker's attack."""
    groups: list[tuple[str, str, list[int]]] = []
    for k, r in enumerate(rates.itertuples()):
        if groups and groups[-1][:2] == (r.attacker, r.attack):
            groups[-1][2].append(k)
        else:
            groups.append((r.attacker, r.attack, [k]))
    return groups


def _labels(groups: list[tuple[str, str, list[int]]], room: int) -> list[list[str] | None]:
    """The attacks' names (:func:`_label_lines`) of a narrow table's ``groups`` in its
    first column of ``room`` columns, all in one form: each on one line where every one
    fits so, else each broken after its attacker, where ``Bruna: warhammer`` kept a line
    and ``Ghoul 1:`` / ``ghoul-bite``, two columns longer (a copy's number), took two."""
    broken = any(len(_label(attacker, attack)) > room for attacker, attack, _ in groups)
    return [_label_lines(attacker, attack, room, broken) for attacker, attack, _ in groups]


def _label(attacker: str, attack: str) -> str:
    """``attacker: attack``, the attacker alone where the attack has no name."""
    return f"{attacker}: {attack}" if attack else attacker


def _label_lines(attacker: str, attack: str, room: int,
                 broken: bool = False) -> list[str] | None:  # fmt: skip
    """An attack's name in the narrow table's first column of ``room`` columns:
    ``attacker: attack`` on one line; or, where that does not fit or ``broken`` says
    so, the attacker on one and the attack, indented, on the next; None where a name
    does not fit whole."""
    label = _label(attacker, attack)
    if len(label) <= room and not (broken and attack):
        return [label]
    if attack and len(attacker) + 1 <= room and len(attack) + 2 <= room:
        return [f"{attacker}:", f"  {attack}"]
    return None


def _beside_rows(groups: list[tuple[str, str, list[int]]], labels: list[list[str] | None],
                 beside: list[list[str]]) -> list[list[Any]]:  # fmt: skip
    """The narrow attacks table's rows where every name fits beside the figures: the
    attack's name (:func:`_label_lines`) on the first rows of its group, the defender
    and the figures beside; an attack named on two lines and with one defender gets a
    row of its own for the second. A blank line follows a group of more than one line,
    as each row then ends with whether it ends such a group."""
    rows: list[list[Any]] = []
    for g, ((_, _, ks), lines) in enumerate(zip(groups, labels, strict=True)):
        lines = lines or []
        height = max(len(ks), len(lines))
        for i in range(height):
            label = lines[i] if i < len(lines) else ""
            cells = beside[ks[i]] if i < len(ks) else []
            end = i == height - 1 and height > 1 and g + 1 < len(groups)
            rows.append([label, *cells, end])
    return rows


def _headed_tables(title: str, groups: list[tuple[str, str, list[int]]],
                   defenders: list[str], headers: list[str],
                   figures: list[list[str]]) -> Table | Group:  # fmt: skip
    """The narrow attacks table where a name does not fit beside the figures whole:
    each attack heads a row of its own, its defenders indented under it
    (:func:`_headed_rows`), every name whole on its line, as ``simlab exact`` writes
    them. Where those lines and the figures are wider than the console, each figure
    goes on two lines, its value over its interval (``0.655`` / ``± 0.007``,
    :func:`broken_figures`), and so does each header (``mean`` / ``damage``); where
    even so they are, the figures' columns are spread over tables
    (:func:`tables_printed_whole`)."""
    laid_out = {False: (headers, figures), True: broken_columns(headers, figures)}

    def build(broken: bool, columns: slice) -> Table:
        shown, cells = laid_out[broken]
        return _headed_table(title, groups, defenders, shown[columns],
                             [row[columns] for row in cells])  # fmt: skip

    return one_renderable(tables_printed_whole(build))


def _headed_table(title: str, groups: list[tuple[str, str, list[int]]],
                  defenders: list[str], headers: list[str], figures: list[list[str]],
                  under: bool = False) -> Table:  # fmt: skip
    """The attacks table of :func:`_headed_tables` with the figures ``figures`` under
    ``headers``: its first column as wide as its longest line, no name broken in it;
    ``under``, each defender's name too on a row of its own, the figures on the row
    under it (:func:`_headed_rows`), as a table laid out by :func:`tables_printed_whole`
    is where its last name leaves them no room."""
    table = _HeadedTable.narrow(title)
    room = console.width if under else _label_room(headers, figures)
    rows = _headed_rows(groups, defenders, figures, room, under)
    name_column(table, HEADED_HEADER, [row[0] for row in rows if not isinstance(row[0], _Heading)])
    for column in headers:
        number_column(table, column)
    _add_rows(table, rows)
    if not under:
        table.figures_under = functools.partial(_headed_table, title, groups, defenders,
                                                headers, figures, True)  # fmt: skip
    return table


def _headed_rows(groups: list[tuple[str, str, list[int]]], defenders: list[str],
                 figures: list[list[str]], room: int,
                 under: bool = False) -> list[list[Any]]:  # fmt: skip
    """The narrow attacks table's rows where a name does not fit beside the figures
    whole (``Raider Chief:`` beside ``Raider Chief`` under ``at``): each attack on a row
    of its own (:func:`_label_lines`, in the ``room`` of the one name column), then a
    row per defender, its name indented, with the figures; ``under``, every name on a
    row of its own drawn across it (:class:`_Heading`) and each defender's figures on
    the row under its name."""
    rows: list[list[Any]] = []
    for (attacker, attack, ks), lines in zip(groups, _labels(groups, room), strict=True):
        heading = lines or [f"{attacker}:", f"  {attack}"]
        rows += [[_Heading(line) if under else line, False] for line in heading]
        for k in ks:
            name = f"  {defenders[k]}"
            rows += [[_Heading(name), False], ["", *figures[k], False]] if under else [
                [name, *figures[k], False]]  # fmt: skip
    return rows


#: What the time-to-down table's figures mean, printed under it (:func:`time_to_down_note`).
TIME_TO_DOWN_NOTE = (
    "Down rate: share of all encounters in which it went down = P(downed by round {cap}, "
    "the round cap). {median} Mean if downed (with its 95% interval) and "
    "median if downed: among the encounters in which the combatant went down (—: it "
    "never did). Capped: encounters that reached round {cap} (the cap) "
    "with it standing at their end: stopped by the cap, or won in that round."
)


def time_to_down_note(result: Result) -> str:
    """:data:`TIME_TO_DOWN_NOTE` under a run's time-to-down table: its round cap, and the
    median note of its rows (:func:`median_note`)."""
    median = median_note(result.combatants())
    return TIME_TO_DOWN_NOTE.format(cap=result.layout.max_rounds, median=median)


def _event_cells(result: Result, rows: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Headers and per-combatant cells of the event rates (:func:`shown_events`), status
    damage and Momentum spent per encounter; an event's rate headed by its name
    (:func:`event_rate_header`)."""
    cells = event_rate_cells(result)
    headers = [event_rate_header(event, [row[k] for row in cells])
               for k, event in enumerate(shown_events(result))]  # fmt: skip
    for name in result.layout.per_encounter_tallies:
        headers.append(MEAN_HEADERS[name])
        column = f"mean_{name}"
        for extra, (_, s) in zip(cells, result.per_encounter(name).iterrows(), strict=True):
            extra.append(interval_cell(s, column))
    return headers, cells


def event_rate_header(event: str, cells: Sequence[str]) -> str:
    """The header of an event's rate over its column's ``cells``: the name the rest of
    the output gives it (:func:`simlab.analysis.names.event_rate_name`: ``rate of
    spending Momentum``, not ``momentum_spent``), broken between its words into lines no
    wider than its widest cell (or word), so that it does not widen the column."""
    from simlab.analysis.names import event_rate_name

    name = event_rate_name(event)
    width = max([len(cell) for cell in cells] + [len(word) for word in name.split()])
    return textwrap.fill(name, width, break_long_words=False, break_on_hyphens=False)


def event_rate_cells(result: Result, bracketed: bool = False) -> list[list[str]]:
    """Per combatant (in the layout's order), the rate of each event a table shows
    (:func:`shown_events`) with its 95% interval (:meth:`Result.events`) by the display
    rule: never ``0.000`` for a rate that is not 0, nor ``1.000`` for one that is not 1."""
    events = list(result.layout.events)
    shown = [events.index(e) for e in shown_events(result)]
    n = len(events)
    cells = [estimate(r.rate, r.rate_ci95_lo, r.rate_ci95_hi, RATE_RANGE, bracketed=bracketed)
             for r in result.events().itertuples()]  # fmt: skip
    return [[cells[c * n + i] for i in shown] for c in range(len(result.layout.combatants))]


def shown_events(result: Result) -> list[str]:
    """The events of ``result`` whose rates the terminal and the report's combatant
    table (HTML and Markdown) show: not one that is the down itself
    (:func:`simlab.rules.down_events`: zones-3d6's ``out``), whose column only repeated
    the down rate. The JSON and Parquet outputs keep every event."""
    from simlab.rules import down_events

    down = down_events(result.rules)
    return [e for e in result.layout.events if e not in down]


#: Headers of the per-encounter means (``Layout.per_encounter_tallies``).
MEAN_HEADERS = {"status_damage": "status dmg\nper enc.", "momentum_spent": "momentum\nper enc."}


def combatants_table(result: Result, with_events: bool = True, broken: bool = False,
                     columns: slice = slice(None)) -> Table:  # fmt: skip
    """Per combatant: down rate (= P(downed by the round cap)), median time-to-down over
    all encounters, mean (with its interval: the tuning commands' ``mean_time_to_down``)
    and median among those it was downed in, encounters capped with it standing,
    and (``with_events``) event rates and, where statuses deal damage, status damage per
    encounter. ``broken``: its headers a word a line and the down rates, medians and
    means broken between figure and interval where long (:func:`broken_columns`);
    ``columns``: those of the columns after the combatant's name (side, down rate…)
    alone (:func:`time_to_down_tables`)."""
    table = console_table("time-to-down (rounds)")
    rows = result.combatants()
    headers, extra = _event_cells(result, rows) if with_events else ([], [[]] * len(rows))
    estimated = ["down rate", "median", "mean if\ndowned"]
    headers = ["median\nif downed", "capped", *headers]
    figures = [[interval_cell(row, "down_rate"), median_cell(row),
                interval_cell(row, "mean_time_to_down")] for row in rows.itertuples()]  # fmt: skip
    if broken:  # as the attacks table: a header a word a line, a figure over its interval
        estimated, figures = broken_columns(estimated, figures)
        headers = [header.replace(" ", "\n") for header in headers]
    headers = ["side", *estimated, *headers]
    cells = [[row.side, *shown, _when_downed_cell(row), f"{row.capped:,}", *more]
             for row, shown, more in zip(rows.itertuples(), figures, extra,
                                         strict=True)]  # fmt: skip
    name_column(table, "combatant", list(rows.combatant))
    for header in headers[columns]:
        if header == "side":
            name_column(table, header, list(rows.side))
        else:
            number_column(table, header)
    for name, row_cells in zip(rows.combatant, cells, strict=True):
        table.add_row(name, *row_cells[columns])
    return table


def _when_downed_cell(row: Any) -> str:
    """A combatants row's median round when downed, ``—`` for one never downed."""
    median = row.median_time_to_down_when_downed
    return "—" if pd.isna(median) else rounds_label(median)


#: What makes a table of names and figures as ``build(broken, columns)``
#: (:func:`tables_printed_whole`).
Builder = Callable[[bool, slice], Table]


def time_to_down_tables(result: Result, with_events: bool = False) -> list[Table]:
    """The time-to-down table (:func:`combatants_table`) laid out to print whole in the
    console's width (:func:`tables_printed_whole`): where it would not, its medians
    broken between figure and interval (``not reached`` / ``[9, not reached]``); where
    even so it would not (a long name), its columns spread over as few tables as print
    whole, each headed by the combatants' names."""
    build = functools.partial(combatants_table, result, with_events)
    return tables_printed_whole(build, headed=headed_build(build))


def tables_printed_whole(build: Builder, names: int = 1, headed: Builder | None = None,
                         most: int | None = None) -> list[Table]:  # fmt: skip
    """A table laid out to print whole at the console's width (:func:`prints_whole`), as
    every table of names and figures is: as it is, where it prints so; else broken
    (``build(True, ...)``: its figures on two lines, value over interval, where long,
    :func:`broken_figures`, and its headers as the table breaks them); where even so it
    would not (a long name), its columns after the ``names`` first spread over as few
    tables as print whole, each beside those (:func:`fitted_tables`). Where even one
    column beside the names does not print whole (the names alone fill the width), the
    ``headed`` layout is laid out so, its names in one column (:func:`headed_table`);
    and where even so one column beside its last names does not (a defender's name of
    48 characters at 60 columns), with those names too each on a row of its own, the
    figures on the row under it (:attr:`_HeadedTable.figures_under`), as a table of one
    name a row is headed. Where the columns print whole but spread thin (:func:`_spread_thin`:
    names of 39 characters at 60 columns leaving room for one figure), those headed
    layouts are taken where they print them in fewer tables (:func:`_fewest_tables`).

    Parameters
    ----------
    build : Callable[[bool, slice], Table]
        ``build(broken, columns)`` makes the table, broken or not, with the slice
        ``columns`` of its columns after its names (``slice(None)``: all).
    names : int
        How many of its first columns name its rows (and are in every table).
    headed : Callable[[bool, slice], Table], optional
        Makes the table as ``build`` does, its names in its first column, each on a
        row of its own above the figures (:func:`headed_table`).
    most : int, optional
        The most columns beside the names a table has (the events tables'
        :data:`EVENT_COLUMNS_PER_TABLE`): its columns spread over tables of as many as
        print whole, up to that, broken only where those do not all print whole.

    Returns
    -------
    list of Table
        One table, or the tables its columns are spread over, in order.
    """
    tables = _laid_out_whole(build, names, most)
    if _all_whole(tables) and _spread_thin(tables, names):
        return _fewest_tables(tables, _headed_layouts(build, headed, most))
    if headed is not None and not _all_whole(tables):
        tables = _laid_out_whole(headed, 1, most)
    if _all_whole(tables) or _figures_under(tables[0]) is None:
        return tables
    return _laid_out_whole(_with_figures_under(headed or build), 1, most)


def _spread_thin(tables: Sequence[Table], names: int) -> bool:
    """Whether ``tables``, a table's columns spread over several beside its ``names``,
    are spread so thin that a row's figures are hard to read together: over more than
    two tables, or over two whose first has room for only one figure beside the names
    (names of 39 characters at 60 columns put a duel's attempts alone beside them, its
    hit rate and mean damage in a second table, and its time-to-down figures a column
    a table)."""
    return len(tables) > 2 or (len(tables) == 2 and len(tables[0].columns) - names == 1)


def _headed_layouts(build: Builder, headed: Builder | None,
                    most: int | None) -> Iterator[list[Table]]:  # fmt: skip
    """The tables of ``build``'s headed layouts (:func:`tables_printed_whole`), each
    laid out whole as its plain layout is: ``headed``, and the headed table with the
    figures under its last name too (:func:`_figures_under`), where ``headed`` or
    ``build`` makes one."""
    if headed is not None:
        yield _laid_out_whole(headed, 1, most)
    if _figures_under((headed or build)(False, slice(None))) is not None:
        yield _laid_out_whole(_with_figures_under(headed or build), 1, most)


def _fewest_tables(tables: list[Table], layouts: Iterable[list[Table]]) -> list[Table]:
    """Of ``tables`` and the ``layouts`` of the same table that print whole, the one
    over the fewest tables, the first of those: a headed layout where it puts a row's
    figures side by side in fewer tables than the names' room beside them does."""
    whole = [layout for layout in layouts if _all_whole(layout)]
    return min([tables, *whole], key=len)


def _all_whole(tables: Sequence[Table]) -> bool:
    """Whether every one of ``tables`` prints whole (:func:`prints_whole`)."""
    return all(prints_whole(table) for table in tables)


def _figures_under(table: Table) -> Table | None:
    """``table``, a headed table (:class:`_HeadedTable`) whose last name is beside its
    figures, laid out with that name too on a row of its own and the figures on the row
    under it; None where it is not such a table."""
    make = getattr(table, "figures_under", None)
    return make() if make is not None else None


def _with_figures_under(build: Builder) -> Builder:
    """``build`` of a headed table, laid out with the figures under its last names
    (:func:`_figures_under`)."""

    def under(broken: bool, columns: slice) -> Table:
        table = build(broken, columns)
        return _figures_under(table) or table

    return under


def headed_build(build: Builder, names: int = 1) -> Builder:
    """``build`` laid out as :func:`headed_table` lays a table out, its ``names`` first
    columns' names each heading a row of its own: the ``headed`` layout of
    :func:`tables_printed_whole` for a table of names too long to leave its figures
    room beside them (a name of 48 characters at 60 columns)."""
    return lambda broken, columns: headed_table(build(broken, columns), names)


def _laid_out_whole(build: Builder, names: int, most: int | None = None) -> list[Table]:
    """The tables of :func:`tables_printed_whole` before its headed layout is tried:
    where the names alone are too wide, they do not all print whole."""
    whole = build(False, slice(None))
    count = len(whole.columns) - names
    for broken in (False, True):
        if most is None:
            tables = [build(True, slice(None)) if broken else whole]
        else:
            tables = fitted_tables(_broken_where_needed(build) if broken
                                   else functools.partial(build, False), count, most)  # fmt: skip
        if _all_whole(tables):
            return tables
    return fitted_tables(lambda columns: build(True, columns), count, most)


def _broken_where_needed(build: Builder) -> Callable[[slice], Table]:
    """``build`` of a slice of columns as it is where that prints whole, else broken: of
    tables of a few columns each, only those that need it broken."""

    def either(columns: slice) -> Table:
        table = build(False, columns)
        return table if prints_whole(table) else build(True, columns)

    return either


def headed_table(table: Table, names: int, indent: str = "  ", under: bool = False) -> Table:
    """``table`` with the names of its rows, its ``names`` first columns, in one, each on
    a row of its own (as the attacks table names an attack, :func:`_headed_tables`):
    a row's names head the rows above its figures, each indented under the one before
    it, the last beside the figures (a pair broken between its parts, its defender
    beside them); a table of one name a column, or ``under``, has its figures on the
    row under its last name. A blank name (the same combatant as the row above) is
    left out. A name that heads a row of its own is drawn across it
    (:class:`_Heading`): the figures take the width that the names beside them leave,
    not the longest name's.

    Parameters
    ----------
    table : Table
        A table of names and figures, its columns after the names' copied as they are.
    names : int
        How many of its first columns name its rows.
    indent : str
        What each name is indented by under the one it is named under.
    under : bool
        Whether the last name too heads a row of its own, the figures under it.

    Returns
    -------
    Table
        A table of one column of names, headed by theirs each indented so, and the
        figures' columns.
    """
    columns = table.columns
    cells = [list(column.cells) for column in columns]
    named = [[_indented(cells[depth][k], indent * depth) for depth in range(names)
              if str(cells[depth][k])] for k in range(table.row_count)]  # fmt: skip
    room = max((_narrowest(name) for row in named for name in row), default=1)
    rows: list[list[Any]] = []
    for k, (row, lines) in enumerate(zip(table.rows, named, strict=True)):
        lines = [line for name in lines for line in _name_lines(name, room)] or [""]
        *above, last = lines if names > 1 and not under else [*lines, ""]
        rows += [[_Heading(line), False] for line in above]
        rows.append([last, *(cells[c][k] for c in range(names, len(columns))), row.end_section])
    header = "\n".join(indent * k + str(c.header) for k, c in enumerate(columns[:names])
                       if str(c.header))  # fmt: skip
    headed = _HeadedTable.narrow(str(table.title or ""))
    name_column(headed, header, [row[0] for row in rows if not isinstance(row[0], _Heading)])
    for column in columns[names:]:
        headed.add_column(column.header, justify=column.justify, no_wrap=column.no_wrap)
    _add_rows(headed, rows)
    if names > 1 and not under:
        headed.figures_under = functools.partial(headed_table, table, names, indent, True)
    return headed


#: The key of a :class:`_Heading`'s text in the style of what it draws.
_HEADING = "simlab_heading"


class _Heading:
    """A name that heads a row of its own in a :func:`headed_table`: one column wide to
    the table's layout, so that it does not widen the column of names, and drawn across
    its row (:class:`_HeadedTable`), whose figures' cells are blank."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, 1)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Segment(self.text[: options.max_width], Style(meta={_HEADING: self.text}))


class _HeadedTable(_FittingTable):
    """A table laid out as the narrow attacks table is (:func:`_narrow_table`) whose rows
    headed by a :class:`_Heading` are each that name, drawn across the row: the table at
    least as wide as its longest heading, where the console is; a heading wider than
    the console broken between its words.

    ``figures_under`` makes it again with its last name beside the figures on a row of
    its own too (:func:`tables_printed_whole`), where it has such a name."""

    figures_under: Callable[[], Table] | None = None

    @classmethod
    def narrow(cls, title: str) -> _HeadedTable:
        """An empty one, laid out as :func:`_narrow_table` lays a table out."""
        return cast("_HeadedTable", _narrow_table(title, cls))

    def add_row(self, *cells: Any, **kwargs: Any) -> None:
        """A row, the table widened to its heading where it has one (:class:`_Heading`)."""
        for cell in cells:
            if isinstance(cell, _Heading):
                self.min_width = max(self.min_width or 0, len(cell.text))
        super().add_row(*cells, **kwargs)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        drawn = cast("Iterable[Segment]", super().__rich_console__(console, options))
        for line in Segment.split_lines(drawn):  # a Table draws only segments
            heading = next((s.style.meta[_HEADING] for s in line
                            if s.style is not None and _HEADING in s.style.meta), None)  # fmt: skip
            lines = [line] if heading is None else [
                [Segment(text)] for text in _heading_lines(heading, options.max_width)]  # fmt: skip
            for segments in lines:
                yield from [*segments, Segment.line()]


def _heading_lines(heading: str, width: int) -> list[str]:
    """A heading's lines in ``width`` columns: itself where it fits, else broken between
    its words, the lines after the first indented as it is."""
    if len(heading) <= width:
        return [heading]
    indent = heading[: len(heading) - len(heading.lstrip())]
    return wrapped(heading, width, indent).split("\n")


def _indented(name: Any, indent: str) -> Any:
    """A name cell of :func:`headed_table` indented by ``indent``, a :class:`Parts`
    cell each of its lines."""
    if isinstance(name, Parts):
        first, *rest = name.parts
        return Parts([indent + first, *rest], indent + name.indent)
    return "\n".join(indent + line for line in str(name).split("\n"))


def _narrowest(name: Any) -> int:
    """The fewest columns the name cell ``name`` keeps each of its parts whole in."""
    if isinstance(name, Parts):
        return name.narrowest
    return max(len(line) for line in str(name).split("\n"))


def _name_lines(name: Any, room: int) -> list[str]:
    """The lines of the name cell ``name`` in ``room`` columns: a :class:`Parts` cell
    broken between its parts."""
    return name.lines(room) if isinstance(name, Parts) else str(name).split("\n")


def one_renderable(tables: Sequence[Table]) -> Table | Group:
    """The table of ``tables`` where there is one, else a group of them that prints them
    one under the other (:func:`tables_printed_whole`)."""
    return tables[0] if len(tables) == 1 else Group(*tables)


def fitted_tables(build: Callable[[slice], Table], count: int,
                  most: int | None = None) -> list[Table]:  # fmt: skip
    """The tables of ``count`` columns beside a table's names, as many a table as print
    whole (:func:`prints_whole`), one at least and ``most`` at most (None: no bound);
    ``build(columns)`` makes the table of a slice of them."""
    tables: list[Table] = []
    lo = 0
    while lo < count:
        hi = count if most is None else min(lo + most, count)
        while hi - lo > 1 and not prints_whole(build(slice(lo, hi))):
            hi -= 1
        tables.append(build(slice(lo, hi)))
        lo = hi
    return tables


def prints_whole(table: Table) -> bool:
    """Whether ``table`` prints whole at the console's width: every line within it and
    every column as wide as its cells need (:func:`_needed_width`). Where its columns
    cannot shrink to the width (numbers never wrap, names are kept whole), rich lays it
    out wider and the terminal's edge cuts it, ``capped`` printed ``capp``; or it
    squeezes columns below what they need, a name folded mid-word or its column left
    empty (the time-to-down table's names at 80 columns, a spec's name), where every
    line fits."""
    probes = [_WidthProbe(column.header) for column in table.columns]
    for column, probe in zip(table.columns, probes, strict=True):
        column.header = probe
    try:
        lines = Segment.split_lines(console.render(table, console.options))
        fits = all(Segment.get_line_length(line) <= console.width for line in lines)
    finally:
        for column, probe in zip(table.columns, probes, strict=True):
            column.header = probe.header
    return fits and all(probe.width >= _needed_width(column)
                        for column, probe in zip(table.columns, probes, strict=True))  # fmt: skip


class _WidthProbe:
    """A column's header, rendered as it is, that notes the width rich gives its column
    (the room inside the column's padding; 0 where rich squeezes it to nothing and
    renders none of its cells): through rich's public measure and render protocols,
    not its private layout."""

    def __init__(self, header: RenderableType) -> None:
        self.header, self.width = header, 0

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.header)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.width = options.max_width
        yield from console.render(self.header, options)


def _needed_width(column: Column) -> int:
    """The fewest columns ``column``'s cells and header print whole in: the widest of
    them where it never wraps (a figure), else its longest word or part (a
    :class:`Parts` cell's), and its ``min_width`` (a name kept whole,
    :func:`name_column`)."""
    wide = console.options.update_width(10_000)
    sizes = [Measurement.get(console, wide, cell) for cell in (column.header, *column.cells)]
    needed = max(size.maximum if column.no_wrap else size.minimum for size in sizes)
    return max(needed, column.min_width or 0)


#: Event and per-encounter columns that fit beside the time-to-down columns of a wide
#: terminal, and in one events table of 80 columns.
INLINE_EVENT_COLUMNS = 3
EVENT_COLUMNS_PER_TABLE = 5


def events_title(result: Result) -> str:
    """The title of a run's events tables: ``events (share of encounters) and means per
    encounter``, without its second part where the rules count nothing per encounter."""
    title = "events (share of encounters)"
    return title + " and means per encounter" if result.layout.per_encounter_tallies else title


def events_tables(result: Result) -> list[Table]:
    """Event rates, status damage and Momentum spent per encounter of every combatant,
    at most :data:`EVENT_COLUMNS_PER_TABLE` columns a table and as many as print whole
    (none: no such column), laid out to print whole (:func:`tables_printed_whole`):
    where they would not (a long name at 60 columns cut ``0.001 [2e-05, 0.006]`` at
    the edge), each figure over its interval."""
    rows = result.combatants()
    headers, cells = _event_cells(result, rows)
    laid_out = {False: (headers, cells), True: broken_columns(headers, cells)}
    title = events_title(result)

    def build(broken: bool, columns: slice) -> Table:
        shown, figures = laid_out[broken]
        return numbers_table(title, "combatant", list(rows.combatant), shown[columns],
                             [row[columns] for row in figures])  # fmt: skip

    return tables_printed_whole(build, headed=headed_build(build), most=EVENT_COLUMNS_PER_TABLE)


def fits_console(table: Table) -> bool:
    """Whether ``table`` fits :data:`console`'s width uncut, each cell on one line."""
    return console.measure(table).maximum <= console.width


def sides_table(result: Result) -> Table:
    """Win rate of each side and the draw rate."""
    table = console_table(f"outcome (mean length {plain_number(result.mean_rounds(), 2)} rounds)")
    name_column(table, "side", list(result.layout.sides))
    number_column(table, "wins")
    number_column(table, "win rate")
    for _, row in result.win_rates().iterrows():
        table.add_row(
            row.side,
            f"{row.wins:,}",
            interval_cell(row, "win_rate"),
        )
    return table


def _notes_breakable(parts: list[str]) -> list[str]:
    """The heading's parts of its overrides (:func:`~simlab.report.width.listed`), the
    note of one that changes nothing (:func:`~simlab.report.words.overrides_said`)
    breakable between its words, the override itself whole: at 80 columns the note
    beside a long name made one part of 88 columns and more."""
    out: list[str] = []
    for part in parts:
        head, note, rest = part.partition(" (changes nothing:")
        out += [head, *f"{note.strip()}{rest}".split(" ")] if note else [part]
    return out


def overrides_heading(said: list[str]) -> list[list[str]]:
    """The parts of a heading that name a run's overrides, ``said`` as
    :func:`~simlab.report.words.overrides_said` says them (none: no part), the note of
    one that changes nothing breakable between its words."""
    return [_notes_breakable(listed("with", said))] if said else []


def print_result(result: Result) -> None:
    """Print the three tables of a run, headed by its identity (seed, n, rules); a run to
    a precision's half-widths each read within its limit where within it
    (:func:`held_to`)."""
    with held_to(held_half_width(result.meta.get("precision"))):
        _print_tables(result)


def _print_tables(result: Result) -> None:
    """:func:`print_result`'s heading and tables."""
    changed = overrides_heading(overrides_said(result.meta))
    say_items(items(result.scenario, *changed, f"rules {result.rules}",
                    counted(result.encounters, "encounter"), f"seed {result.seed}"),
              bold=result.scenario)  # fmt: skip
    rates = result.hit_rates()
    said, why = crit_rate_said(result, rates)
    console.print(attacks_table(result, rates, said))
    no_crit = crit_note(said, result.layout.crits, why=why)
    if no_crit:
        say_unbroken(no_crit)
    n_extra = len(shown_events(result)) + len(result.layout.per_encounter_tallies)
    inline = is_wide() and n_extra <= INLINE_EVENT_COLUMNS
    if inline and not fits_console(combatants_table(result)):  # the events take more room
        inline = False
    for table in time_to_down_tables(result, with_events=inline):
        console.print(table)
    for table in [] if inline else events_tables(result):
        console.print(table)
    say_unbroken(time_to_down_note(result), whole=[open_median(result.combatants())])
    console.print(sides_table(result))


# -- exact answers and the --check comparison ---------------------------------------------


def exact_attacks_table(solved: ExactResult) -> Table | Group:
    """Exact hit rate, crit rate (where the rules have crits) and mean damage of every
    solved pair (fresh defender), each as every table writes an exact answer, never
    reading as 0 or 1 that it is not (:func:`exact_number`). A crit rate of exactly 0
    reads :data:`NO_CRIT`, and the column is left out where every one would, as in a
    run's table (:func:`exact_crit_said`). Laid out to print whole
    (:func:`tables_printed_whole`): beside a long pair at 60 columns, its headers a
    word a line, and where even so it would not, its columns go on in a further table
    under the pairs (rich cut ``mean damage`` at the edge, ``3.``)."""
    pairs = [Parts(pair_parts(*p.key), indent="  ") for p in solved.pairs]
    said = exact_crit_said(solved)
    crits = any(said)
    rows = [[exact_number(p.hit_rate, "hit_rate"),
             *([exact_number(p.crit_rate, "crit_rate") if says else NO_CRIT] if crits else []),
             exact_number(p.mean_damage)]
            for p, says in zip(solved.pairs, said, strict=True)]  # fmt: skip
    headers = ["hit rate", *(["crit rate"] if crits else []), "mean damage"]

    def build(broken: bool, columns: slice) -> Table:
        shown = [h.replace(" ", "\n") for h in headers] if broken else headers
        title = f"{solved.scenario} · attacks (exact, against a fresh defender)"
        return numbers_table(title, "attack", pairs, shown[columns],
                             [row[columns] for row in rows])  # fmt: skip

    return one_renderable(tables_printed_whole(build))


def exact_crit_said(solved: ExactResult) -> list[bool]:
    """Per solved pair, whether its exact crit rate says something
    (:func:`says_a_crit_rate`): not under rules without crits, nor where it is exactly
    0."""
    from simlab.rules import has_crits

    if not has_crits(solved.rules):
        return [False] * len(solved.pairs)
    return [says_a_crit_rate(exact=[p.crit_rate]) for p in solved.pairs]


def exact_duel_table(duel: DuelExact) -> Table | Group:
    """The duel defender's exact time-to-down: mean, sd and median without the round
    cap, the mean among the fights it is down by the cap (what a simulation measures as
    ``mean_time_to_down`` and ``--check`` compares), and P(down by the cap); laid out to
    print whole (:func:`tables_printed_whole`), its columns going on in a further table
    under the defender's name where a long name leaves them too little room."""
    from simlab.exact.engine import capped_median

    headers = ["mean\nno cap", "sd\nno cap", "median\nno cap", "mean if\ndown by cap",
               "down by\nround cap"]  # fmt: skip
    median = NOT_REACHED if duel.median is None else str(duel.median)
    if duel.median is not None and capped_median(duel) is None:
        median += f" (> cap {len(duel.pmf) - 1})"
    down, if_down, _ = duel.capped_moments()
    if_down_said = exact_number(if_down) if down > 0 else "—"
    cells = [exact_number(duel.mean), exact_number(duel.variance**0.5), median, if_down_said,
             exact_number(down, DOWN_BY_CAP)]  # fmt: skip

    def build(broken: bool, columns: slice) -> Table:
        table = console_table("time-to-down (exact, rounds)")
        name_column(table, "combatant", [duel.defender])
        for column in headers[columns]:
            number_column(table, column)
        table.add_row(duel.defender, *cells[columns])
        return table

    return one_renderable(tables_printed_whole(build, headed=headed_build(build)))


def print_refusals(refusals: list[tuple[str, str]], title: str, hint: str = "",
                   names: Iterable[str] = ()) -> None:  # fmt: skip
    """List what has no exact answer, each with the feature that prevents it, under
    ``title`` (``hint`` after it in parentheses), never breaking one of ``names`` (the
    combatants') at a space inside it; the duel's ``time_to_down`` is said in words."""
    if not refusals:
        return
    line = f"{title}{f' ({hint})' if hint else ''}:"
    commands = re.findall(r"`[^`]*`", line)  # `simlab run --check`, never split
    text = Text(broken_at_spaces(line, console.width, whole=commands))  # a space, a newline
    text.stylize("bold", 0, len(title))
    console.print(text, soft_wrap=True)
    for what, reason in refusals:
        say_unbroken(f"  - {_subject_words(what)}: {reason}", indent="    ", whole=names)


def _subject_words(what: str) -> str:
    """A refusal's subject as a reader says it: ``time-to-down`` for the duel's
    ``time_to_down`` (the subject's id), a pair or figure as it is."""
    from simlab.exact.engine import TIME_TO_DOWN

    return "time-to-down" if what == TIME_TO_DOWN else what


def refused_said(subjects: Sequence[Any]) -> str:
    """What ``simlab exact`` did not solve, in words: ``6 pairs and time-to-down``,
    ``1 pair``, ``time-to-down`` (a subject is a pair, or the duel's ``time_to_down``)."""
    pairs = sum(not isinstance(s, str) for s in subjects)
    said = [counted(pairs, "pair")] if pairs else []
    return " and ".join(said + [_subject_words(s) for s in subjects if isinstance(s, str)])


def fight_caveats(solved: ExactResult) -> list[tuple[str, str]]:
    """The figures a full fight moves away from the fresh-defender answers (each pair's
    ``caveats``), as (what, why): the pairs of one attack with the same figures and the
    same reason on one line, ``hit rate, mean damage of Scout: shortbow → Raider 1,
    Raider 2``."""
    grouped: dict[tuple[str, str, tuple[str, ...], str], list[str]] = {}
    for p in solved.pairs:
        by_reason: dict[str, list[str]] = {}
        for figure, reason in p.caveats.items():
            by_reason.setdefault(reason, []).append(figure.replace("_", " "))
        for reason, moved in by_reason.items():
            key = (p.attacker, p.attack, tuple(moved), reason)
            grouped.setdefault(key, []).append(p.defender)
    out = []
    for (attacker, attack, figures, reason), defenders in grouped.items():
        pairs = pair_heading(attacker, attack, ", ".join(defenders))
        out.append((f"{', '.join(figures)} of {pairs}", reason))
    return out


def print_exact(solved: ExactResult) -> None:
    """Print an exact answer: attacks, the duel's time-to-down, and what was refused."""
    from simlab.exact.engine import describe
    from simlab.rules import has_crits

    changed = overrides_heading(list(solved.overrides))
    say_items(items(solved.scenario, *changed, f"rules {solved.rules}", "exact"),
              bold=solved.scenario)  # fmt: skip
    if solved.pairs:
        console.print(exact_attacks_table(solved))
        no_crit = crit_note(exact_crit_said(solved), has_crits(solved.rules), exact=True)
        if no_crit:
            say_unbroken(no_crit)
    if solved.duel is not None:
        console.print(exact_duel_table(solved.duel))
    names = {name for p in solved.pairs for name in (p.attacker, p.defender)}
    moved = counted(sum(bool(p.caveats) for p in solved.pairs), "pair")
    print_refusals(fight_caveats(solved),
                   f"in a fight, figures of {moved} move away from the answers above",
                   "`simlab run --check` does not compare them", names)  # fmt: skip
    subjects = [s for s, _ in solved.refusals]
    several = len(subjects) > 1  # one is named on its line alone, never twice over
    print_refusals([(describe(s), r) for s, r in solved.refusals],
                   f"not solved exactly{f': {refused_said(subjects)}' if several else ''}",
                   f"use `simlab run` to simulate {'them' if several else 'it'}",
                   names)  # fmt: skip


def check_decimals(value: float, figure: str, std_error: float) -> int:
    """The decimals of a ``--check`` row, its simulated figure and the exact answer
    beside it alike: those of every exact answer (:data:`EXACT_DECIMALS`), or those
    the simulated figure's own precision calls for where more (its 95% interval, ``±
    1.96`` standard errors, as :func:`interval_decimals` gives them): ``0.97225``
    beside ``0.97222``, never beside ``0.9722``. A simulated figure at 0, or a rate at
    1, calls for none (it is written ``0`` or ``1``)."""
    half = normal_quantile(0.95) * std_error
    if pd.isna(value) or value in figure_range(figure) or not half > 0:
        return EXACT_DECIMALS
    return max(EXACT_DECIMALS, interval_decimals(value, value - half, value + half))


def _simulated_cell(value: float, figure: str, digits: int) -> str:
    """A simulated figure of the ``--check`` table to its row's ``digits``
    (:func:`check_decimals`), trailing zeros kept so that a column reads alike
    (``6.4400`` beside ``6.4436``, never ``6.44``); more where it would read as 0 or as
    a rate's 1 that it is not (``0.99996``). A figure at 0, or a rate at 1, is ``0`` or
    ``1`` (every attempt missed, every encounter downed); "—" where there is none."""
    if pd.isna(value):
        return "—"
    within = figure_range(figure)
    if value in within:
        return plain_number(value)
    return decimals(value, digits, within)


def format_std_error(se: float) -> str:
    """A standard error of the ``--check`` table to two significant digits, trailing
    zeros kept as the p column keeps them (:func:`format_p`), so that a column reads
    alike (``0.00030`` beside ``0.00072``, not ``0.0003``); one of 10 or more is whole
    (``12``, not ``12.``), one of a certain figure ``0``."""
    if pd.isna(se):
        return "—"
    if se == 0:
        return "0"
    return f"{se:.0f}" if se >= 10 else f"{se:#.2g}"


def check_table(check: pd.DataFrame) -> Table | Group:
    """Simulated vs exact, per figure, in standard errors; the exact answer as every
    table writes one (:func:`exact_number`: ``0.1520``, ``0.9999997``), to the decimals
    of the simulated figure beside it where that has more (:func:`check_decimals`), a
    standard error as :func:`format_std_error` does. Laid out to
    print whole at the console's width (:func:`tables_printed_whole`): beside a long
    name its headers go on a line a word, and where even so it would not fit, its
    columns go on in a further table under the figures' names, each on two lines at
    most (:func:`_check_labels`): at 60 columns a pair broken between its names took
    four. Only names too long for two lines beside any column of figures break
    between their names."""
    from simlab.exact.engine import BINOMIAL_P, CHECK_SMALLEST_P

    labels = [(r.figure, pair_parts(r.attacker, r.attack, r.defender))
              for r in check.itertuples()]  # fmt: skip
    headers = ["simulated", "exact", "std error", "z", "p"]
    digits = [check_decimals(r.simulated, r.figure, r.std_error) for r in check.itertuples()]
    rows = [[_simulated_cell(r.simulated, r.figure, d), exact_number(r.exact, r.figure, d),
             format_std_error(r.std_error), formatted(r.z, "+.2f"),
             format_p(r.p_value, CHECK_SMALLEST_P)
             + (BINOMIAL_MARK if getattr(r, "p_kind", "") == BINOMIAL_P else "")]
            for r, d in zip(check.itertuples(), digits, strict=True)]  # fmt: skip
    laid_out = {False: (headers, rows), True: broken_columns(headers, rows)}

    def build(two_lines: bool, broken: bool, columns: slice) -> Table:
        shown, cells = laid_out[broken]
        figures = _check_labels(labels, as_form=two_lines or not broken)
        return numbers_table("check against the exact answers", "figure", figures,
                             shown[columns], [row[columns] for row in cells])  # fmt: skip

    tables = tables_printed_whole(functools.partial(build, True))
    if not _all_whole(tables):  # a name too long for two lines
        narrowest = functools.partial(build, False)
        tables = tables_printed_whole(narrowest, headed=headed_build(narrowest))
    return one_renderable(tables)


def _check_labels(labels: Sequence[tuple[str, list[str]]], as_form: bool) -> list[Parts]:
    """The ``--check`` rows' figures with their pairs (:func:`pair_parts`), all broken
    one way, where they read: each on one line; else the figure over its pair
    (``hit_rate:`` / ``Attacker: strike → Defender``); else the figure with its pair to
    the arrow, over the defender; never ``hit_rate: Attacker:`` / ``strike →
    Defender``. ``as_form``: each asks the table for the room of one of those forms, so
    that a table too narrow for them puts its figures in further tables
    (:func:`check_table`); else, where even one column of figures leaves it less (names
    of 40 characters), it is the figure alone over its pair, broken between its
    names."""
    cells = []
    for figure, pair in labels:
        head, said = f"{figure}:", " ".join(pair)
        forms = [[f"{head} {said}"], [head, said], [" ".join([head, *pair[:-1]]), pair[-1]]]
        cells.append(Parts([head, *pair], "  ", forms, as_form))
    for cell in cells:
        cell.column = cells
    return cells


#: The mark of a ``--check`` row whose p is the exact binomial one, and its footnote.
BINOMIAL_MARK = "*"
BINOMIAL_NOTE = (
    "* exact binomial p: fewer than 10 events (or non-events) are expected, so the count "
    "is far from normal; z is shown for scale, and the verdict reads this p."
)


def print_check(check: pd.DataFrame) -> None:
    """Print the ``--check`` table, the figures certain and simulated so (no row: they
    test nothing, :func:`certain_note`), the figures not compared, and the verdict
    line."""
    from simlab.exact.engine import BINOMIAL_P, check_verdict

    if len(check):
        console.print(check_table(check))
        if (check.get("p_kind", pd.Series(dtype=str)) == BINOMIAL_P).any():
            say_unbroken(BINOMIAL_NOTE)
    certain = list(check.attrs.get("certain", []))
    names = {*check.get("attacker", []), *check.get("defender", []),
             *(c[1] for c in certain), *(c[3] for c in certain)}  # fmt: skip
    if certain:
        _say_certain(certain)
    skipped = list(check.attrs.get("skipped", []))
    whole = [reason for what, reason in skipped if what == "scenario"]
    print_refusals([s for s in skipped if s[0] != "scenario"], "not checked", names=names)
    for reason in whole:
        print_scenario_refused(reason, names)
    say_unbroken(f"check: {check_verdict(check)}")


def print_scenario_refused(message: str, names: Iterable[str] = ()) -> None:
    """Print the exact engine's refusal of a whole scenario under ``--check``: its first
    line (``cannot solve scenario 'duel' exactly:``) after ``not checked:``, then each
    reason it lists as an item of its own, without the hint to simulate (the run has)."""
    from simlab.exact.engine import scenario_refusal  # a --check's: its engine is loaded

    head, reasons = scenario_refusal(message)
    title = "not checked"
    text = Text(broken_at_spaces(f"{title}: {head}", console.width, "  ", whole=names))
    text.stylize("bold", 0, len(title))
    console.print(text, soft_wrap=True)
    for reason in reasons:
        say_unbroken(f"  - {reason}", indent="    ", whole=names)


def certain_note(certain: list[tuple[str, str, str, str, float]]) -> str:
    """The line under the ``--check`` table naming the figures whose exact answer is
    certain (a rate of exactly 0 or 1, the same damage on every attack) and which the
    simulation matched (``check.attrs["certain"]``: figure, attacker, attack, defender,
    exact): such a figure has nothing to test (a z of 0 over a standard error of 0), so
    it is no row of the table nor a figure of the verdict.

    Parameters
    ----------
    certain : list of tuple
        (figure, attacker, attack, defender, exact answer), as
        :func:`simlab.exact.engine.check_simulation` lists them.

    Returns
    -------
    str
        ``certain and simulated so, nothing to test: crit_rate of Kaito: quick-jab →
        Brute (exact 0)``, the figures separated by ``; ``.
    """
    from simlab.exact.engine import figure_of  # a check table's: its engine is loaded

    figures = "; ".join(f"{figure_of(figure, (attacker, attack, defender))} "
                        f"(exact {plain_number(exact, EXACT_DECIMALS)})"
                        for figure, attacker, attack, defender, exact in certain)  # fmt: skip
    return f"certain and simulated so, nothing to test: {figures}"


def _say_certain(certain: list[tuple[str, str, str, str, float]]) -> None:
    """Print :func:`certain_note`, on a terminal broken between its figures only, each
    figure with its pair and its answer whole on its line (``crit_rate of Kaito:
    quick-jab → Brute 1 (exact 0);``): broken at any space, at 80 columns it put ``Brute
    1`` on two lines, and ``quick-jab`` / ``→ Brute 2``. A figure longer than a line
    breaks before its pair, and a pair longer than a line between its names only
    (:func:`pair_parts`)."""
    if not fits_a_width():
        console.print(certain_note(certain), markup=False, highlight=False, soft_wrap=True)
        return
    from simlab.exact.engine import figure_of

    indent = "  "
    parts = ["certain and simulated so, nothing to test:"]
    for k, (figure, attacker, attack, defender, exact) in enumerate(certain):
        end = f" (exact {plain_number(exact, EXACT_DECIMALS)}){';' * (k + 1 < len(certain))}"
        pair = figure_of(figure, (attacker, attack, defender)).removeprefix(f"{figure} of ")
        if len(f"{indent}{figure} of {pair}{end}") <= console.width:
            parts.append(f"{figure} of {pair}{end}")
        elif len(indent + pair + end) <= console.width:
            parts += [f"{figure} of", pair + end]
        else:
            *names, last = pair_parts(attacker, attack, defender)
            parts += [f"{figure} of", *names, last + end]
    console.print("\n".join(packed(parts, console.width, indent)), markup=False,
                  highlight=False, soft_wrap=True)  # fmt: skip


# -- balance specs and the drift gate (simlab check / report) ------------------------------


def specs_table(specs: pd.DataFrame) -> Table | Group:
    """Each spec with its measured figure, 95% interval, sample size and verdict.

    From :data:`WIDE` columns on, a verdict whose interval reaches past the bound says
    so beside it (``PASS (borderline: interval reaches past the bound)``); narrower, it
    is the word and a mark (``PASS †``), which :func:`verdict_key` explains under the
    table, so that the spec keeps the room (at 80 columns those words took 26 columns
    and put a spec on five lines). Laid out to print whole (:func:`tables_printed_whole`):
    where a name in a spec would not beside the figures, each figure broken over its
    interval and the headers a word a line (at 80 columns ``0.9998 [0.998, 0.999994]``
    squeezed ``Mirabel Ashenveil of the Lantern Court's`` over two lines); where even
    so it would not (60 columns), the figures go on in a further table beside the specs.
    """
    names = 3 if is_wide() else 1  # scenario, rules and spec; or the spec alone
    build = functools.partial(_specs_table, specs)
    return one_renderable(tables_printed_whole(build, names))


def _specs_table(specs: pd.DataFrame, broken: bool, columns: slice = slice(None)) -> Table:
    """:func:`specs_table`'s table, its figures and headers ``broken`` or not, with the
    slice ``columns`` of its columns after the specs."""
    wide = is_wide()
    title = "balance specs (expect:)"
    table = console_table(title) if wide else _narrow_table(title)
    names = [s.spec + (f" — {s.note}" if s.note else "") for s in specs.itertuples()]
    if wide:
        for column in ("scenario", "rules"):
            name_column(table, column, list(specs[column]))
    else:
        names = [f"{s.scenario}: {n}" for s, n in zip(specs.itertuples(), names, strict=True)]
    headers = ["measured [95%]", "n"]
    figures = [[measured_cell(s), f"{s.n:,}"] for s in specs.itertuples()]
    if broken:
        headers, figures = broken_columns(headers, figures)
    table.add_column("spec", overflow="fold", ratio=1)
    for header in [*headers, "verdict"][columns]:
        if header == "verdict":  # PASS (borderline: …) broken at its spaces where wide
            table.add_column(header, no_wrap=not wide)
        else:
            number_column(table, header)
    names_whole = specs.attrs.get("names", ())
    for name, s, cells in zip(names, specs.itertuples(), figures, strict=True):
        where = [s.scenario, s.rules] if wide else []
        # broken between words, a name whole: "Grand Duke Ferdinand of the Sunken Keep's"
        words = _arrow_kept(words_keeping(name, names_whole))
        row: list[str | Text] = [*cells, _verdict_cell(s, wide)]
        shown = row[columns]
        table.add_row(*where, Parts(words), *shown)
    return table


#: What a spec's verdict adds when its interval reaches past the bound, by the mark a
#: narrow table gives it instead (:func:`specs_table`): a pass or a failure that more
#: encounters would settle, and a pass that ``--strict`` fails.
VERDICT_MARKS = {
    "†": "borderline: interval reaches past the bound",
    "‡": "--strict: a borderline pass, its interval reaching past the bound",
}


def _verdict_mark(spec: Any) -> str:
    """The mark of ``spec``'s verdict in :data:`VERDICT_MARKS`; "" where its interval
    stays on one side of the bound."""
    if getattr(spec, "failed_by_strict", False):  # within its bound: only --strict fails it
        return "‡"
    return "†" if spec.borderline else ""


def _verdict_cell(spec: Any, wide: bool) -> Text:
    """``PASS`` or ``FAIL``, in colour, with what :func:`_verdict_mark` adds: its words
    (``wide``), else its mark."""
    passed = spec.verdict == "pass"
    verdict = Text("PASS", style="green") if passed else Text("FAIL", style="bold red")
    mark = _verdict_mark(spec)
    if not mark:
        return verdict
    return verdict + (f" ({VERDICT_MARKS[mark]})" if wide else f" {mark}")


def verdict_key(specs: pd.DataFrame) -> list[str]:
    """The lines under a narrow spec table (:func:`specs_table`) that say what each of
    its verdicts' marks stands for, those it uses only; none from :data:`WIDE` columns
    on, where the verdicts say it in words.

    Parameters
    ----------
    specs : pandas.DataFrame
        The specs as :func:`simlab.analysis.specs.evaluate_all` gives them.

    Returns
    -------
    list of str
        ``† borderline: interval reaches past the bound``, and the like.
    """
    if is_wide():
        return []
    used = {_verdict_mark(s) for s in specs.itertuples()}
    return [f"{mark} {words}" for mark, words in VERDICT_MARKS.items() if mark in used]


def _arrow_kept(words: list[str]) -> list[str]:
    """A spec line's ``words`` with an attack's arrow kept with its defender, ``(→ Kaito)``
    one word, where the spec column broke it between ``(→`` and ``Kaito)``; not where
    that word would be longer than the line's longest other one (a defender named in 39
    characters): the column, no wider, would break the name inside."""
    longest = max((len(word) for word in words), default=0)
    kept: list[str] = []
    for word in words:
        if kept and kept[-1] == "(→" and len(f"(→ {word}") <= longest:
            kept[-1] = f"(→ {word}"
        else:
            kept.append(word)
    return kept


def measured_cell(spec: Any, bracketed: bool = False) -> str:
    """A spec's measured figure with its 95% interval (:func:`estimate`, with the
    decimals it needs to read on its own side of the spec's bounds); a median
    time-to-down in rounds (:func:`median_and_interval`)."""
    if spec.figure == "median_time_to_down":
        return median_and_interval(spec.measured, spec.ci_lo, spec.ci_hi)
    return estimate(spec.measured, spec.ci_lo, spec.ci_hi, figure_range(spec.figure),
                    (spec.low, spec.high), bracketed)  # fmt: skip


def print_specs(specs: pd.DataFrame) -> None:
    """Print the spec table and a one-line verdict."""
    if specs.empty:
        console.print("check: no expect: entries in these scenarios")
        return
    console.print(specs_table(specs))
    for line in verdict_key(specs):
        say_unbroken(line, indent="  ")
    failed = int((specs.verdict == "fail").sum())
    n = len(specs)
    line = (f"check: {failed} of {n} specs failed" if failed and n > 1
            else "check: the spec failed" if failed
            else "check: the spec passes" if n == 1 else f"check: all {n} specs pass")  # fmt: skip
    console.print(line + strict_failures(specs), markup=False, highlight=False)


def strict_failures(specs: pd.DataFrame) -> str:
    """What a verdict's count adds for the failures that are borderline passes counted
    as failures by ``--strict`` ("" without any): `` (1 of them a borderline pass,
    failed by --strict)``; `` (a borderline pass, failed by --strict)`` when every
    failure is one."""
    strict = int(specs.failed_by_strict.sum()) if "failed_by_strict" in specs else 0
    if not strict:
        return ""
    passes = "a borderline pass" if strict == 1 else "borderline passes"
    if strict == int((specs.verdict == "fail").sum()):
        return f" ({'all ' * (strict > 1)}{passes}, failed by --strict)"
    return f" ({strict} of them {passes}, failed by --strict)"


def _subject_names(drift: DriftReport) -> set[str]:
    """The combatant and attack names a drift report's notes may hold, to keep whole:
    every name of a subject compared (``Raider Chief``, ``stone-strike``, ``two-handed
    greatsword``; ``Brute 1 stone-strike`` where the report does not name its parts),
    of a figure compared (``damage distribution``) and of a rate left out as a repeat
    (``out rate of Kaito``)."""
    from simlab.analysis.names import figure_name

    paired = {subject for _, _, subject in drift.pairs}
    names = {name for pair in drift.pairs.values() for name in pair}
    words = {figure_name(figure) for figure in drift.table.figure}  # "damage distribution"
    words |= {said for each in drift.repeats for pair in each.rates for said in pair}
    return names | words | {part for s in drift.table.subject if s not in paired
                            for part in str(s).split(" → ")}  # fmt: skip


#: The means a grouped "not tested" note names; report.md and report.html name them all.
UNTESTED_NAMED = 3


def drift_notes(drift: DriftReport) -> list[str]:
    """The drift report's notes as the terminal says them: the means not tested for one
    reason in one note, where more than one is (a smoke run of a few encounters left
    some fifty, one note each, mostly for one reason), and the baseline's scenarios the
    run left out in one note (a run of one scenario against a nightly baseline leaves
    out all the others), each at the place of the first; every other note as it is. The
    pages keep a note for each untested mean."""
    from simlab.analysis.drift import NOT_RUN

    groups = {reason: entries for reason, entries in drift.untested_by_reason().items()
              if len(entries) > 1}  # fmt: skip
    reason_of = {e.note: reason for reason, entries in groups.items() for e in entries}
    if len(drift.not_run) > 1:
        reason_of.update((f"{name}: {NOT_RUN}", NOT_RUN) for name in drift.not_run)
        groups[NOT_RUN] = []
    if len(drift.repeats) > 1:  # a nightly of duels fought to defeat: one note each
        reason_of.update((each.note, _REPEATED) for each in drift.repeats)
        groups[_REPEATED] = []
    out: list[str] = []
    for note in drift.notes:
        reason = reason_of.get(note)
        if reason == NOT_RUN:
            if groups.pop(NOT_RUN, None) is not None:
                out.append(not_run_note(drift.not_run))
        elif reason == _REPEATED:
            if groups.pop(_REPEATED, None) is not None:
                out.append(repeats_note(drift.repeats))
        elif reason is None:
            out.append(note)
        elif reason in groups:
            out.append(untested_note(reason, groups.pop(reason)))
    return out


#: The group key of the repeat notes in :func:`drift_notes` (no reason of an untested mean).
_REPEATED = "repeats"


def repeats_note(repeats: Sequence[Repeats]) -> str:
    """One note for the rates left out as repeats in several scenarios (each scenario's
    :class:`~simlab.analysis.drift.Repeats`): how many, in how many scenarios, and the
    first :data:`UNTESTED_NAMED` of them by scenario (``33 rates in 11 scenarios not
    compared again, each with the counts of a rate compared, in both runs:
    duel-both-drafts (shattered-spirits): out rate of Kaito as down rate of Kaito, …
    and 30 more; every one in report.md``)."""
    total = sum(len(each.rates) for each in repeats)
    shown, left = [], UNTESTED_NAMED
    for each in repeats:
        if left > 0:
            rates = [f"{named} as {compared}" for named, compared in each.rates[:left]]
            shown.append(f"{each.label}: {', '.join(rates)}")
            left -= len(rates)
    more = total - UNTESTED_NAMED
    rest = f" and {more} more" if more > 0 else ""
    return (f"{counted(total, 'rate')} in {counted(len(repeats), 'scenario')} not compared "
            f"again, each with the counts of a rate compared, in both runs: "
            f"{'; '.join(shown)}{rest}; every one in report.md")  # fmt: skip


def not_run_note(names: Sequence[str]) -> str:
    """One note for the baseline's scenarios a run left out: how many, and the first
    :data:`UNTESTED_NAMED` (``28 scenarios in the baseline but not run (not compared):
    bleeding-duel (glitters-d20), … and 25 more``)."""
    more = len(names) - UNTESTED_NAMED
    rest = f" and {more} more" if more > 0 else ""
    return (f"{counted(len(names), 'scenario')} in the baseline but not run (not compared): "
            f"{', '.join(names[:UNTESTED_NAMED])}{rest}")  # fmt: skip


def untested_note(reason: str, entries: Sequence[Any]) -> str:
    """One note for the means not tested for one ``reason``
    (:class:`~simlab.analysis.drift.Untested`): how many, why, and the first
    :data:`UNTESTED_NAMED` of them by scenario and figure (``22 means not tested: too
    few attacks that dealt damage in this run (a mean's test needs 30 in each):
    skirmish (zones-3d6): mean damage of Warden longsword → Cutthroat, Lancer spear →
    Raider 2 … and 20 more; every one in report.md``)."""
    from simlab.analysis.drift import FEWEST_VALUES, figure_said

    scenarios = list(dict.fromkeys(e.scenario for e in entries))
    where = f" in {counted(len(scenarios), 'scenario')}" if len(scenarios) > 1 else ""
    too_few = reason.startswith("too few")
    needs = f" (a mean's test needs {FEWEST_VALUES} in each)" if too_few else ""
    named: dict[str, dict[str, list[str]]] = {}
    for e in entries[:UNTESTED_NAMED]:
        named.setdefault(e.scenario, {}).setdefault(e.figure, []).append(e.subject)
    shown = "; ".join(
        f"{scenario}: " + "; ".join(figure_said(figure, ", ".join(subjects))
                                    for figure, subjects in figures.items())
        for scenario, figures in named.items()
    )  # fmt: skip
    more = len(entries) - UNTESTED_NAMED
    rest = f" and {more} more" if more > 0 else ""
    return (f"{len(entries)} means not tested{where}: {reason}{needs}: {shown}{rest}; every "
            "one in report.md")  # fmt: skip


def print_drift(drift: DriftReport, baseline: str) -> None:
    """The drift gate's output: the drifted figures first, then a table of the figures that
    are statistically different (drifted, or changed within tolerance); every figure
    compared is in the report files."""
    from simlab.report.render import drift_lines, sample_sizes_note

    lines = drift_lines(drift)
    names = _subject_names(drift)
    if lines:
        below = f"Holm p < {drift.alpha:g}"  # on one line: "Holm p" / "< 0.01" read apart
        heading = broken_at_spaces(f"DRIFT: {counted(len(lines), 'figure')} moved from the "
                                   f"baseline {baseline} ({below} and beyond tolerance):",
                                   console.width, whole=(below,))  # fmt: skip
        text = Text(heading)
        text.stylize("bold red", 0, len("DRIFT"))
        console.print(text, soft_wrap=True)
        # each scenario once, over its figures; the names of the figures' subjects
        # whole: "Raider Chief", "Scout shortbow"
        scenario = ""
        for row, line in zip(drift.drifted.itertuples(), lines, strict=True):
            head = f"{row.scenario} ({row.rules}): "
            if head != scenario:
                scenario = head
                say_unbroken(f"  {head.rstrip()}", indent="    ", whole=names)
            held = [*names, line.rsplit(", ", 1)[-1]]  # and "Holm p < 0.0001" on one line
            say_unbroken(f"    - {line.removeprefix(head)}", indent="      ", whole=held)
    else:
        console.print(
            f"no drift from the baseline {baseline} ({counted(len(drift.table), 'figure')} "
            "compared)",
            markup=False,
            highlight=False,
        )
    sizes = sample_sizes_note(drift)  # the power differs: "no drift" says less
    for note in [sizes] * bool(sizes) + drift.caveats() + drift_notes(drift):  # names whole
        say_unbroken(f"  note: {note}", indent="        ", whole=names)
    moved = drift.table[drift.table.significant | drift.table.drifted]
    if moved.empty:
        return
    title = (f"{len(moved)} of {counted(len(drift.table), 'figure')} statistically different "
             "from the baseline (every figure compared: report.html)")  # fmt: skip
    table = _wide_drift_table(title, moved, drift.pairs) if is_wide() else None
    wide = table is not None and prints_whole(table)
    narrow = functools.partial(_narrow_drift_table, title, moved, drift.pairs)
    tables = [table] if wide else tables_printed_whole(narrow, names=2)
    for table in tables:
        console.print(table)
    if not wide and _lists_changed(moved):
        console.print('status "changed": statistically different, within tolerance.',
                      markup=False, highlight=False)  # fmt: skip


def _lists_changed(moved: pd.DataFrame) -> bool:
    """Whether a drift table of the rows ``moved`` has a ``changed`` status to explain
    (a figure statistically different within its tolerance), not only ``DRIFT``."""
    from simlab.report.render import drift_status

    return any(drift_status(row).startswith("changed") for row in moved.itertuples())


def _scenario_parts(row: Any) -> list[str]:
    """``quickstart (shattered-spirits)``, broken between the two only."""
    return [row.scenario, f"({row.rules})"]


#: The attack pairs of a drift report by scenario, rules and subject (DriftReport.pairs).
SubjectPairs = Mapping[tuple[str, str, str], Sequence[str]]


def _subject_parts(pairs: SubjectPairs, row: Any) -> list[str]:
    """A drift row's subject in the parts a narrow column breaks it between: an attack
    pair's attacker, attack and defender (``pairs``, :func:`label_parts`)."""
    from simlab.analysis.drift import subject_said

    said = subject_said(row.figure, row.subject)  # "" where the figure's name says it
    return label_parts(said, pairs.get((row.scenario, row.rules, row.subject)))


def _wide_drift_table(title: str, moved: pd.DataFrame, pairs: SubjectPairs) -> Table:
    """Every column of the report's drift table, a scenario with its rules in one column;
    no cell narrower than its longest word or name (:func:`print_drift` lays the table
    out narrow where these do not fit, rather than cut a word); a subject broken
    between its names only (``pairs``, :func:`_subject_parts`)."""
    from simlab.report.render import DRIFT_HEADER, drift_cells

    table = console_table(title)
    rows = list(moved.itertuples())
    cells = [drift_cells(row) for row in rows]
    scenarios = [Parts(_scenario_parts(row)) for row in rows]
    subjects = [Parts(_subject_parts(pairs, row), "  ") for row in rows]
    said = _columns_said(cells)
    name_column(table, "scenario", scenarios)
    for header in (h for h, says in zip(DRIFT_HEADER, said, strict=True) if says):
        if header == "subject":
            name_column(table, header, subjects)
        elif header == "figure":  # "damage distribution" whole
            name_column(table, header, [c[1] for c in cells])
        elif header == "Holm p":
            number_column(table, header)
        else:  # a cell broken at its spaces, never narrower than its longest word
            table.add_column(header, overflow="fold")
    for scenario, subject, c in zip(scenarios, subjects, cells, strict=True):
        row: list[str | Parts] = [*c[:2], subject, *c[3:]]
        table.add_row(scenario, *(cell for cell, says in zip(row, said, strict=True) if says))
    return table


def _columns_said(cells: Sequence[Sequence[str]]) -> list[bool]:
    """Which columns of drift rows' ``cells`` (``DRIFT_HEADER``) say something in
    some row: a subject blank in every row (figures of the whole encounter) and a
    baseline and a current that are ``—`` in every row (distributions, whose change is
    their total variation) are left out, their room given to the names."""
    subject, baseline, current = 2, 3, 4
    said = [True] * len(cells[0])  # moved figures: one row at least
    said[subject] = any(c[subject] for c in cells)
    said[baseline] = said[current] = any(not c[baseline] == c[current] == "—" for c in cells)
    return said


def _narrow_drift_table(title: str, moved: pd.DataFrame, pairs: SubjectPairs, broken: bool = False,
                        columns: slice = slice(None)) -> Table:  # fmt: skip
    """Status, what (figure and subject, broken between names only, an attack pair's
    between its attacker, attack and defender, ``pairs``; each scenario, with its rules,
    on a row of its own over its figures),
    baseline → current, change and Holm p: the ``columns`` of these three alone;
    ``broken``, baseline and current on two lines where long (``0.8593 →`` /
    ``0.7779``, :func:`broken_figures`), and the header too, where a long name leaves
    them too little room (:func:`print_drift`)."""
    from simlab.report.render import drift_cells

    table = console_table(title)
    rows = list(moved.itertuples())
    cells = [drift_cells(row) for row in rows]
    # "hit rate of Kaito quick-jab → Brute", as the drifted lines name it
    what = [Parts([c[1] + " of" * bool(c[2]), *_subject_parts(pairs, row)], "  ")
            for row, c in zip(rows, cells, strict=True)]  # fmt: skip
    headings = [Parts([row.scenario, f"({row.rules})"], "  ") for row in rows]
    table.add_column("status", no_wrap=True)
    name_column(table, "figure", what + headings)
    moves = ["" if c[3] == c[4] == "—" else f"{c[3]} → {c[4]}" for c in cells]
    moves = broken_figures(moves) if broken else moves
    headers = ["baseline →\ncurrent" if broken else "baseline → current", "change", "Holm p"]
    said = [any(moves), True, True]  # no figure moved from another: no column for one
    headers = [h for h, says in zip(headers, said, strict=True) if says]
    for column in headers[columns]:
        number_column(table, column)
    scenario = None
    for row, c, name, moved_from, heading in zip(rows, cells, what, moves, headings,
                                                  strict=True):  # fmt: skip
        if (row.scenario, row.rules) != scenario:  # the scenario heads its rows, once
            scenario = (row.scenario, row.rules)
            table.add_row("", heading, *[""] * len(headers[columns]))
        status = "changed" if c[0].startswith("changed") else c[0]
        figures = [f for f, says in zip([moved_from, c[5], c[6]], said, strict=True) if says]
        table.add_row(status, name, *figures[columns])
    return table
