"""The tune plot ticks the value found on its x axis, whatever the values tried around it,
each tick label clear of the next."""

from __future__ import annotations

import itertools
from typing import Any

import matplotlib
import pandas as pd
import pytest

import simlab
from simlab.report import tuning
from tests.tuning.cases import ROOT

matplotlib.use("Agg")

import matplotlib.pyplot as plt

#: The mace's hit rate against a DC of 12 to 44 (the exact engine): out of reach, the
#: closest at 25, beside 24 and 26 tried too.
DUEL = ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml"


@pytest.fixture(scope="module")
def found() -> Any:
    result = simlab.tune(simlab.load(DUEL), "Defender.dc=12:44", "hit_rate:mace=0.01")
    tried = [e.value for e in result.evaluations]
    assert result.value == 25 and {24, 26} <= set(tried), tried
    return result


def _labels(ax: Any) -> list[tuple[str, float, float]]:
    """The x tick labels drawn: (text, left, right) in pixels, left to right."""
    ax.figure.canvas.draw()
    boxes = [(t.get_text(), t.get_window_extent()) for t in ax.get_xticklabels()]
    return [(text, box.x0, box.x1) for text, box in boxes if text]


@pytest.mark.parametrize("size", [(7.0, 3.6), tuning.PHONE_SIZE], ids=["page", "phone"])
def test_the_tune_plot_ticks_the_value_found(found: Any, size: tuple[float, float]) -> None:
    """Tried 24, 25 and 26 side by side, the plot ticked 24 and 26 (each first with room)
    and left the value found, 25, unticked."""
    fig, ax = plt.subplots(figsize=size)
    simlab.plot_tune(found, ax=ax)
    labels = _labels(ax)
    plt.close(fig)
    texts = [text for text, _, _ in labels]
    assert "25" in texts and "24" not in texts and "26" not in texts, texts
    assert all(a[2] < b[1] for a, b in itertools.pairwise(labels)), labels
    assert texts[0] == "12", texts


def test_more_values_than_ticked_one_by_one_still_tick_the_value_found() -> None:
    """Past :data:`~simlab.report.tuning.MAX_TICKED_VALUES` values matplotlib places the
    ticks (0, 5, 10, …); the value found among them, 23, is ticked and 25 gives way."""
    fig, ax = plt.subplots(figsize=(6.4, 3))
    values = list(range(41))
    ax.plot(values, values, "o")
    tuning._swept_ticks(ax, pd.Series(values), marked=23)
    labels = _labels(ax)
    plt.close(fig)
    texts = [text for text, _, _ in labels]
    assert "23" in texts and "25" not in texts and "20" in texts, texts
    assert all(a[2] < b[1] for a, b in itertools.pairwise(labels)), labels
