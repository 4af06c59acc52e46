"""On a 390 px phone the sweep and tune pages show each plot drawn as wide as the
phone's page, its legend in the picture (under the plot where too wide beside it): the
desktop's picture, 700 px wide with the legend beside the plot, had it off-screen."""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

import matplotlib
import pytest
from matplotlib.figure import Figure

from simlab import api
from simlab.report import tuning
from tests.report.drawn_figures import drawn_at, kept_figures

# Slow tier (make test-slow): draws report pictures at a phone's width.
pytestmark = pytest.mark.slow

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
PLATE = ROOT / "scenarios/zones-3d6/longsword-vs-plate.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
PHONE_PX = 390


def _png_width(data_uri: str) -> int:
    png = base64.b64decode(data_uri.split(",", 1)[1])
    return int(struct.unpack(">I", png[16:20])[0])


def _phone_sources(html: str) -> list[str]:
    return re.findall(r'<source media="\(max-width: 40em\)"\s+srcset="([^"]+)">', html)


def _legend_inside(fig: Figure) -> None:
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    assert legends
    for legend in legends:
        box, page = legend.get_window_extent(), fig.bbox
        assert page.x0 <= box.x0 and box.x1 <= page.x1, (box, page)
        assert page.y0 <= box.y0 and box.y1 <= page.y1, (box, page)


def test_the_sweep_page_shows_a_phone_its_own_pictures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    drawn = kept_figures(monkeypatch)
    sweep = api.sweep(PLATE, {"Plate Knight.hp": [20, 24], "longsword.damage": ["1d8", "1d10"]},
                      n=1000, seed=2)  # fmt: skip
    tuning.render_sweep(sweep, tmp_path)
    html = (tmp_path / "sweep.html").read_text()
    sources = _phone_sources(html)
    assert len(sources) == 4  # down rate, mean and median time-to-down, win rate
    assert all(_png_width(s) <= PHONE_PX for s in sources), [_png_width(s) for s in sources]
    figures = drawn_at(drawn, phone=True)
    assert len(figures) == 4
    for fig in figures:
        _legend_inside(fig)


def test_the_tune_page_shows_a_phone_its_own_picture(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    drawn = kept_figures(monkeypatch)
    result = api.tune(DUEL, "strike.profile[9]=2:12", "mean_damage:strike/Defender=4.5",
                      n=2000, seed=2)  # fmt: skip
    tuning.render_tune(result, tmp_path)
    (source,) = _phone_sources((tmp_path / "tune.html").read_text())
    assert _png_width(source) <= PHONE_PX
    (fig,) = drawn_at(drawn, phone=True)
    _legend_inside(fig)
    (ax,) = fig.axes
    assert fig.legends or ax.get_legend().get_window_extent().y1 < ax.get_window_extent().y0
