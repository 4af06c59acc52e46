"""What a designer sees of the pages on a phone and in their captions: every page lays
out at the device's width, a comparison's intervals each stay on one line, and the
hit-rate caption names only what its plot draws."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simlab import api

# Slow tier (make test-slow): renders report pages at a phone's width.
pytestmark = pytest.mark.slow

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
    report: str, compare_page: str, duel_sweep_pages: Path
) -> None:
    """Without a viewport, a phone's browser laid every page out 980 px wide and shrank it
    to the screen: at 420 px the text was a third of its size, and a table that would
    have scrolled in its box was shrunk with the rest."""
    sweep_page = (duel_sweep_pages / "sweep.html").read_text(encoding="utf-8")
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
    heading = rf'>(?:<span class="word">)?{re.escape(scenario)}(?:</span>)? <small>'
    section = re.split(heading, report)[1].split("<h2 ")[0]
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
