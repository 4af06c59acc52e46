"""A report's picture drawn once: its layout made by its own engine, then its artists
drawn a single time (``savefig`` went over them twice), into the very PNG ``savefig``
writes."""

from __future__ import annotations

import io
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlab.report import render
from simlab.report.wrapped import WrappingLayout, png_bytes, wrap_to_axes

# Slow tier (make test-slow): draws report pictures to count what each draws.
pytestmark = pytest.mark.slow

LONG_TITLE = "Raider Chief · cleaver against every defender it met: damage distribution"


def _two_panels(fig: Figure) -> None:
    """Two panels, a legend beside the right one and a title broken at its axes' room,
    as a report's damage plot has."""
    left, right = fig.subplots(1, 2)
    for k, ax in enumerate((left, right)):
        ax.bar([0, 1, 2, 3], [0.1, 0.4, 0.3, 0.2], label=f"defender {k}")
        ax.set_xlabel("damage per attack (miss = 0)")
        ax.set_ylabel("probability")
    wrap_to_axes(left.set_title(LONG_TITLE), left)
    right.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle("Raider Chief · cleaver", fontsize=12)


def _figure() -> Figure:
    fig = Figure(figsize=(11.0, 3.6), dpi=render.DPI, layout=WrappingLayout())
    FigureCanvasAgg(fig)
    _two_panels(fig)
    return fig


def _saved(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


@pytest.fixture
def axes_drawn(monkeypatch: pytest.MonkeyPatch) -> list[Axes]:
    """Every axes drawn (rendered or not), in order."""
    drawn: list[Axes] = []
    draw = Axes.draw

    def counted(self: Axes, renderer: Any) -> None:
        drawn.append(self)
        draw(self, renderer)

    monkeypatch.setattr(Axes, "draw", counted)
    return drawn


def test_a_report_picture_draws_each_axes_once(axes_drawn: list[Axes]) -> None:
    render._png(_two_panels, (11.0, 3.6))
    assert len(axes_drawn) == 2
    assert len(set(map(id, axes_drawn))) == 2


def test_the_png_is_the_one_savefig_writes() -> None:
    assert png_bytes(_figure(), metadata={"Software": None}) == _saved(_figure())


def test_laid_out_at_the_resolution_savefig_draws_at() -> None:
    with matplotlib.rc_context({"savefig.dpi": 150}):
        once, saved = png_bytes(_figure(), metadata={"Software": None}), _saved(_figure())
    assert once == saved
    assert once != _saved(_figure())  # 150 dpi, not the figure's 100: another picture
