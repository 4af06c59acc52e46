"""The figures the tuning pages draw their pictures on, kept for a test to read."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from matplotlib.figure import Figure

from simlab.report import render, tuning
from simlab.report.wrapped import png_bytes

#: A picture's figure and the size (inches) the page asked it to be drawn at: a drawing
#: may grow its figure (a legend under the plot), so the size asked for tells the phone's.
Drawn = tuple[tuple[float, float], Figure]


def kept_figures(monkeypatch: pytest.MonkeyPatch) -> list[Drawn]:
    """Every picture the sweep and tune pages draw (``tuning._png``), drawn and saved as
    the pages do (``render._png``), its figure kept with the size asked for, in the order
    drawn; filled in as the pages are written."""
    drawn: list[Drawn] = []
    asked: list[tuple[float, float]] = []
    draw_png = render._png

    def png(draw: Callable[[Figure], None], size: tuple[float, float]) -> bytes:
        asked.append(size)
        return draw_png(draw, size)

    def keeping(fig: Figure, **options: object) -> bytes:
        drawn.append((asked[-1], fig))
        return png_bytes(fig, **options)

    monkeypatch.setattr(tuning, "_png", png)
    monkeypatch.setattr(render, "png_bytes", keeping)
    return drawn


def drawn_at(drawn: list[Drawn], phone: bool) -> list[Figure]:
    """The figures of ``drawn`` asked for at the phone's size (``tuning.PHONE_SIZE``), or
    the others."""
    return [fig for size, fig in drawn if (size == tuning.PHONE_SIZE) == phone]
