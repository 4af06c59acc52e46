"""A grid sweep's pictures read: every legend entry of a damage curve, key and name, is
in the saved picture (its names of 105 characters were centred under the panels and cut
off at both edges, keys and all), and a mean time-to-down axis is ticked finer than
whole rounds (means from 2.4 to 3.7 were ticked at 3 and 4 alone)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlab import api
from simlab.report import tuning
from tests.report.drawn_figures import drawn_at, kept_figures

# Slow tier (make test-slow): draws sweep pictures of many points.
pytestmark = pytest.mark.slow

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
PLATE = ROOT / "scenarios/zones-3d6/longsword-vs-plate.yaml"
GRID = {"Plate Knight.hp": [20, 24], "Plate Knight.bonus_defense": [0, 1],
        "longsword.damage": ["1d8", "1d10"]}  # fmt: skip


def _drawn_pictures(sweep: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Figure]:
    """The sweep page's pictures as their figures, each drawn and saved as the page's
    (not their phone drawings)."""
    drawn = kept_figures(monkeypatch)
    pictures = tuning._sweep_pictures(sweep, tuning.moving_pairs(sweep)[0])
    figures = drawn_at(drawn, phone=False)
    return {p.file: fig for p, fig in zip(pictures, figures, strict=True)}


def test_every_legend_entry_of_a_grid_damage_curve_is_in_the_picture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sweep = api.sweep(PLATE, GRID, n=1000, seed=2)
    drawn = _drawn_pictures(sweep, monkeypatch)
    curves = [f for name, f in drawn.items() if name.startswith("damage-")]
    assert curves
    longest = 0
    for fig in curves:
        (legend,) = fig.legends
        names = [t.get_text() for t in legend.get_texts()]
        longest = max(longest, *(len(n.replace("\n", "")) for n in names))
        page = fig.bbox
        for artist in [*legend.get_texts(), *legend.legend_handles]:
            box = artist.get_window_extent()
            assert page.x0 <= box.x0 and box.x1 <= page.x1, (artist, box, page)
            assert page.y0 <= box.y0 and box.y1 <= page.y1, (artist, box, page)
    assert longest > 100  # the case this is about: a name of two lines drawn as one


def _ticks(figure: str, values: list[float]) -> list[float]:
    fig = Figure(figsize=(7.0, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.plot([0, 1, 2], values)
    tuning._readable_axes(ax, figure, None)
    fig.canvas.draw()
    lo, hi = ax.get_ylim()
    return [float(t) for t in ax.get_yticks() if lo <= t <= hi]


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_a_constant_rate_at_0_or_1_is_drawn_inside_the_panel(rate: float) -> None:
    """A sweep's down rate of 1 at every value was drawn on the top edge of a 0.95..1
    axis, which read as an empty panel; matplotlib's own margin keeps it inside."""
    fig = Figure(figsize=(7.0, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    near = abs(rate - 1e-4)  # a band's bound a little inside 0..1, as a sweep draws
    ax.plot([0, 1, 2], [rate, rate, near])
    tuning._readable_axes(ax, "down_rate", None)
    lo, hi = ax.get_ylim()
    assert hi - lo == pytest.approx(tuning.MIN_RATE_SPAN)
    inside = (rate - lo) / (hi - lo)
    assert inside == pytest.approx(0.05 if rate == 0 else 0.95)
    assert lo < min(rate, near) and max(rate, near) < hi


def test_a_mean_time_to_down_axis_is_ticked_finer_than_whole_rounds() -> None:
    ticks = _ticks("mean_time_to_down", [2.4, 3.0, 3.7])
    inside = [t for t in ticks if 2.4 <= t <= 3.7]
    assert len(inside) >= 3 and any(t % 1 for t in inside), ticks


def test_a_median_axis_still_ticks_whole_rounds_only() -> None:
    ticks = _ticks("median_time_to_down", [2.0, 3.0, 4.0])
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    assert np.all(np.diff(ticks) > 0)
