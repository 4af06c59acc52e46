"""What a designer sees of a report page at a laptop's and a phone's width: the
time-to-down table's header row is at most two lines, every table of the example
scenarios fits a 1280 px page, a time-to-down picture is as wide as what it holds,
nothing but a table or a plot in its own box scrolls sideways on a 390 px phone, and an
outcome picture drawn wider than the phone is shrunk to it."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlab import api
from simlab.report import render
from simlab.report.wrapped import WrappingLayout
from tests.report.report_browser import PHONE, measured_all

# Slow tier (make test-slow): draws pages' pictures to measure them.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SKELETONS = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"  # ten columns
ZONES_DUEL = ROOT / "scenarios/zones-3d6/training-duel.yaml"  # one curve a side
PARTY = ROOT / "scenarios/shattered-spirits/party-3v3.yaml"  # three curves a side
#: The example scenarios whose time-to-down table was widest with its events beside it:
#: party-vs-monsters' eleven columns, spirits-2v3's eighteen.
WIDE_TABLES = [ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml",
               ROOT / "scenarios/shattered-spirits-draft1/techniques-3v3.yaml",
               ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"]  # fmt: skip


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    render.render_report([api.run_scenario(SKELETONS, n=400, seed=3)], out, write_results=False)
    return out / "report.html"


@pytest.fixture(scope="module")
def wide_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of :data:`WIDE_TABLES`, without pictures (its tables are measured)."""
    out = tmp_path_factory.mktemp("wide-tables")
    runs = [api.run_scenario(path, n=400, seed=3) for path in WIDE_TABLES]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render, "_planned_pictures", lambda *_: [])
        render.render_report(runs, out, write_results=False)
    return out / "report.html"


#: Each table's box, under the heading above it: the heading, the box's width and what
#: it holds.
TABLE_BOXES = ('[...d.querySelectorAll("div.scroll")].map(b => {'
               " let h = b.previousElementSibling;"
               ' while (h && h.tagName !== "H3") h = h.previousElementSibling;'
               ' return [h ? h.textContent : "", b.clientWidth, b.scrollWidth]; })')  # fmt: skip

#: The time-to-down table's header row and first row: their heights.
HEADER_ROWS = ('[...d.querySelectorAll("tr:first-child")]'
               '.filter(r => r.textContent.includes("capped"))'
               '.map(r => [r.getBoundingClientRect().height,'
               " r.nextElementSibling.getBoundingClientRect().height])")  # fmt: skip
#: The page's width, the window's, and each outcome plot's box: what it holds and its width.
SIDEWAYS = ('{page: d.documentElement.scrollWidth, '
            'window: d.documentElement.clientWidth, outcome: [...d.querySelectorAll('
            '"figure.outcome")].map(f => [f.scrollWidth, f.clientWidth])}')  # fmt: skip


#: The skeletons' side named so long that the outcome picture, which keeps its bars'
#: room beside the sides' names, is drawn wider than a phone's page.
LONG_SIDE = "skeletons-of-the-barrow-under-the-hill"


@pytest.fixture(scope="module")
def wide_outcome(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of knight-vs-skeleton with the skeletons' side named :data:`LONG_SIDE`."""
    out = tmp_path_factory.mktemp("wide-outcome")
    text = SKELETONS.read_text(encoding="utf-8").replace("  skeletons:\n", f"  {LONG_SIDE}:\n")
    assert LONG_SIDE in text
    (out / "scenario.yaml").write_text(text, encoding="utf-8")
    run = api.run_scenario(out / "scenario.yaml", n=200, seed=3)
    render.render_report([run], out, write_results=False)
    return out / "report.html"


#: The outcome picture: its box's width, what the box holds, and the picture's shown and
#: natural widths.
OUTCOME = ('[...d.querySelectorAll("figure.outcome")].map(f => ({'
           "box: f.getBoundingClientRect().width, inside: f.scrollWidth, "
           'shown: f.querySelector("img").getBoundingClientRect().width, '
           'natural: f.querySelector("img").naturalWidth}))')  # fmt: skip


@pytest.fixture(scope="module")
def seen(
    page: Path, wide_outcome: Path, wide_tables: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """What the tests' scripts find in the pages at a laptop's width and a phone's, read
    in one launch of Chromium."""
    shown = {"desk": (page, 1280, HEADER_ROWS), "phone": (page, PHONE, SIDEWAYS),
             "wide outcome": (wide_outcome, PHONE, OUTCOME),
             "wide tables": (wide_tables, 1280, TABLE_BOXES),
             "wide tables phone": (wide_tables, PHONE, SIDEWAYS)}  # fmt: skip
    found = measured_all(list(shown.values()), tmp_path_factory.mktemp("profile"))
    return dict(zip(shown, found, strict=True))


def test_the_time_to_down_header_row_is_at_most_two_lines(page: Path, seen: dict[str, Any]) -> None:
    """The "capped (standing at the end of the round cap's round)" header, beside nine
    other columns, made the header row four lines tall at a laptop's width: the headers
    are short, and the note above the table says what each means."""
    rows = seen["desk"]
    assert len(rows) == 1, rows
    ((header, first_row),) = rows
    assert header < 2 * first_row, rows  # one line: a row of figures; two: less than twice
    html = page.read_text(encoding="utf-8")
    assert "<dt>Capped</dt><dd>the number of encounters" in html
    assert "<dt>Status damage</dt><dd>the mean" in html


def test_every_table_of_the_examples_fits_a_laptops_page(seen: dict[str, Any]) -> None:
    """party-vs-monsters' time-to-down table, the events' rates and means per encounter
    beside its figures, was some 1190 px wide: at 1280 px its last column scrolled out of
    view (spirits-2v3's, eighteen columns, half the table). The events are tables of
    their own, as at the terminal, each fitting the page."""
    boxes = seen["wide tables"]
    headings = [heading for heading, _, _ in boxes]
    events = [heading for heading in headings if heading.startswith("Events (share of")]
    assert len(events) == 5, boxes  # spirits-2v3's eleven columns in three tables
    assert "Events (share of encounters) and means per encounter" in events, events
    assert all(inside <= box for _, box, inside in boxes), boxes
    found = seen["wide tables phone"]
    assert found["window"] == PHONE and found["page"] <= PHONE, found


def test_nothing_but_a_box_scrolls_sideways_on_a_phone(seen: dict[str, Any]) -> None:
    """On a 390 px phone the outcome plot (500 px) scrolled in its box, and the scenario
    file's path, one unbreakable word, made the whole page scroll sideways."""
    found = seen["phone"]
    assert found["window"] == PHONE and found["page"] <= PHONE, found
    assert found["outcome"], found
    assert all(scroll <= box for scroll, box in found["outcome"]), found


def test_an_outcome_picture_wider_than_a_phone_is_shrunk_to_its_page(seen: dict[str, Any]) -> None:
    """The outcome picture is drawn as wide as a phone's page, and wider where the
    sides' names need it; the page shrinks it to the phone's width (``figure.outcome
    img``), where another plot keeps 720 px and scrolls in its box: a picture of bars is
    read whole, and shrunk it keeps its names' and bars' proportions."""
    (found,) = seen["wide outcome"]
    assert found["natural"] > found["box"], found  # drawn wider than the phone's page
    assert found["shown"] <= found["box"] and found["inside"] <= found["box"], found


def _drawn_survival(run: Any, side: str, monkeypatch: pytest.MonkeyPatch) -> Figure:
    """The figure of ``side``'s time-to-down picture, as saved."""
    drawn: list[Figure] = []

    def keep(draw: Callable[[Figure], None], size: tuple[float, float]) -> bytes:
        with matplotlib.rc_context(render.FONT):
            fig = Figure(figsize=size, dpi=render.DPI, layout=WrappingLayout())
            FigureCanvasAgg(fig)
            draw(fig)
            fig.savefig(io.BytesIO(), format="png")
        drawn.append(fig)
        return b""

    monkeypatch.setattr(render, "_png", keep)
    render._time_to_down_png(run, side)
    return drawn[0]


def test_a_time_to_down_picture_is_as_wide_as_its_plot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A duel's picture of one curve was 850 px wide, its legend beside the plot leaving
    a third of the picture empty; then a party's of three curves stayed 850 px wide, as
    wide as its legend's longest entry, ``median: where a curve crosses 0.5``, beside the
    plot. Every time-to-down picture is as wide as its plot, its legend under it in as
    many columns as the plot's width holds, within the picture."""
    duel = api.run_scenario(ZONES_DUEL, n=300, seed=2)
    party = api.run_scenario(PARTY, n=300, seed=2)
    one = _drawn_survival(duel, duel.result.layout.sides[0], monkeypatch)
    three = _drawn_survival(party, "party", monkeypatch)
    assert one.bbox.width == three.bbox.width <= 600, (one.bbox, three.bbox)
    for fig in (one, three):
        (legend,) = fig.legends
        (ax,) = fig.axes
        box, plot = legend.get_window_extent(), ax.get_window_extent()
        assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y0 >= 0, (box, fig.bbox)
        assert box.y1 <= (ax.get_tightbbox() or plot).y0 and box.width <= plot.width, (box, plot)
    names = [t.get_text() for t in three.legends[0].get_texts()]
    assert names == ["Kaito", "Mira", "Sato", "median: where a curve crosses 0.5"], names
