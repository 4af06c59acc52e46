"""What a designer sees of the pages on a phone and in their captions: every page lays
out at the device's width, a comparison's intervals each stay on one line, and the
hit-rate caption names only what its plot draws."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pytest

from simlab import api

ROOT = Path(__file__).resolve().parents[2]
SS_DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
SKELETONS = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"  # Skeleton ×2, pooled
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"  # no copies
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    runs = [api.run_scenario(path, n=400, seed=3) for path in (SKELETONS, QUICKSTART)]
    out = tmp_path_factory.mktemp("report")
    api.write_report(runs, out)
    return (out / "report.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def compare_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("compare")
    api.write_compare(api.compare(SS_DUEL, changes=["strike.profile[9]=8"], n=600), out)
    return (out / "compare.html").read_text(encoding="utf-8")


def _head(html: str) -> str:
    return html.split("</head>")[0]


def test_every_page_lays_out_at_the_phones_width(
    report: str, compare_page: str, tmp_path: Path
) -> None:
    """Without a viewport, a phone's browser laid every page out 980 px wide and shrank it
    to the screen: at 420 px the text was a third of its size, and a table that would
    have scrolled in its box was shrunk with the rest."""
    api.write_sweep(api.sweep(SS_DUEL, "Defender.guard=0,1", n=300), tmp_path / "sweep")
    sweep_page = (tmp_path / "sweep/sweep.html").read_text(encoding="utf-8")
    for name, page in (("report", report), ("compare", compare_page), ("sweep", sweep_page)):
        assert VIEWPORT in _head(page), name


def test_a_comparisons_intervals_each_stay_on_one_line(compare_page: str) -> None:
    """The paired and independent 95% columns (``[-0.60, -0.55]``) were not read as
    figures: at a narrow window each broke after its comma, ``[-0.0009,`` over
    ``+0.0002]``, where the report's intervals stay whole and the table scrolls."""
    rows = re.findall(r"<tr>(<td.*?)</tr>", compare_page, re.S)
    assert rows
    for row in rows:
        cells = re.findall(r"<td([^>]*)>([^<]*)</td>", row)
        intervals = [attrs for attrs, text in cells if text.startswith("[")]
        assert len(intervals) == 2, row  # paired, independent
        assert all(attrs == ' class="num"' for attrs in intervals), row


def _rates_caption(report: str, scenario: str) -> str:
    section = report.split(f">{scenario} <small>")[1].split("<h2 ")[0]
    found = re.search(r'alt="hit and crit rates[^"]*".*?<figcaption>(.*?)</figcaption>',
                      section, re.S)  # fmt: skip
    assert found, section[:800]
    return found.group(1)


def test_the_hit_rate_caption_names_only_what_its_plot_draws(report: str) -> None:
    """Every hit-rate plot read "Bars: simulated rate with its 95% interval, grey (copies
    that fought alike pooled)": grey bars for pooled copies, where the grey was the
    whiskers and most scenarios have no copies at all."""
    alone = _rates_caption(report, "quickstart")
    pooled = _rates_caption(report, "knight-vs-skeleton")
    for caption in (alone, pooled):
        assert "grey whiskers: their 95% intervals" in caption and "grey (" not in caption
    assert "pooled" not in alone
    assert "Copies that fought alike are pooled: Skeleton ×2." in pooled


def test_the_text_keeps_a_margin_on_a_phone(report: str, compare_page: str) -> None:
    """The body's margin was ``auto`` beside a width of at most 1100 px: below that width
    it is 0, and at 420 px every line of text touched the screen's edges."""
    for name, page in (("report", report), ("compare", compare_page)):
        body = re.search(r"body \{([^}]*)\}", _head(page))
        assert body, name
        assert re.search(r"padding: 0 [\d.]+em;", body.group(1)), (name, body.group(1))


def _phone_copies(page: str) -> dict[str, bytes]:
    """Each picture of a page that a phone gets in a copy of its own, by its alt text:
    the copy's PNG."""
    source = r'<picture><source media="\(max-width: 760px\)" srcset="data:image/png;base64,'
    found = re.findall(source + r'([^"]+)"><img alt="([^"]*)"', page)
    return {alt: base64.b64decode(data) for data, alt in found}


def test_a_phone_sees_a_plots_legend_under_it(report: str, tmp_path: Path) -> None:
    """A plot keeps 720 px and scrolls in its box on a phone: the legend beside it (the
    time-to-down curves' names, the damage picture's defenders) was off-screen, right of
    the scrolled plot. A phone gets a copy of each such picture with the legend under
    the plots, at the left, taller by it; a picture with no legend (the outcome bars)
    gets none."""
    from PIL import Image

    copies = _phone_copies(report)
    names = set(copies)
    assert {"time-to-down · party", "time-to-down · enemies"} <= names, names
    assert any(alt.endswith(": damage") for alt in names), names
    assert "outcome" not in names
    desktop = dict(re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,([^"]+)"', report))
    for alt, png in copies.items():
        wide = Image.open(io.BytesIO(base64.b64decode(desktop[alt])))
        narrow = Image.open(io.BytesIO(png))
        assert narrow.width == wide.width and narrow.height > wide.height, alt
    api.write_sweep(api.sweep(SS_DUEL, "Defender.guard=0,2", n=300), tmp_path / "sweep")
    sweep_page = (tmp_path / "sweep/sweep.html").read_text(encoding="utf-8")
    assert "Down rate" in _phone_copies(sweep_page), list(_phone_copies(sweep_page))


def test_the_phones_copy_has_its_legends_and_titles_in_view() -> None:
    """What :func:`render._legends_below` leaves of a picture whose legend stands beside
    its plot, and of one whose legend is centred under its plots: every legend under
    the plots within the first 370 px, where a phone shows it, and every title beginning
    at its left edge, where a centred one began off-screen."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from simlab.report import plots, render

    def drawn(below: bool) -> Figure:
        fig = Figure(figsize=(8.5, 3.4), dpi=render.DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, 2)
        for ax, name in zip(axes, ("Kaito", "a defender of a long name"), strict=True):
            ax.plot([0, 1], [0, 1], label=name)
            ax.set_title("time-to-down over all encounters")
        fig.suptitle("Kaito · quick-jab")
        if below:
            fig.legend(loc="outside lower center")
        else:
            plots.legend_outside(axes[1])
        return fig

    for below in (False, True):
        fig = drawn(below)
        assert render._legends_below(fig), below
        fig.canvas.draw()
        bottom = min(ax.bbox.y0 for ax in fig.axes)
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
        (legend,) = legends
        box = legend.get_window_extent()
        assert box.x1 <= render.PHONE_VIEW and box.y1 <= bottom, (below, box)
        assert [t.get_text() for t in legend.get_texts()][-1] == "a defender of a long name"
        for ax in fig.axes:
            assert ax.get_title(loc="left") and not ax.get_title(), below
        assert fig.get_suptitle() and fig._suptitle.get_horizontalalignment() == "left"  # type: ignore[attr-defined]
