"""The x axis of a sweep's or a tuning's plot ticks the values tried, each label clear of
the next: tried values 20, 21, 22 and 23 beside 25 … 40 read "20212223"."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from simlab.report import tuning

TRIED = [20, 21, 22, 23, 25, 30, 35, 40]


def _labels(values: list[float], width: float) -> list[tuple[str, float, float]]:
    """The x tick labels drawn for ``values`` on a plot ``width`` inches wide:
    (text, left, right) in pixels, left to right."""
    fig, ax = plt.subplots(figsize=(width, 3))
    ax.plot(values, np.linspace(0.4, 1.0, len(values)), "o")
    tuning._swept_ticks(ax, pd.Series(values))
    fig.canvas.draw()
    drawn = [(t.get_text(), t.get_window_extent()) for t in ax.get_xticklabels()]
    plt.close(fig)
    return [(text, box.x0, box.x1) for text, box in drawn if text]


@pytest.mark.parametrize("width", [4.5, 6.4, 12.0])
def test_no_two_tick_labels_run_into_each_other(width: float) -> None:
    labels = _labels(TRIED, width)
    assert all(a[2] < b[1] for a, b in itertools.pairwise(labels)), labels
    texts = [text for text, _, _ in labels]
    assert texts[0] == "20" and texts[-1] == "40", texts  # both ends are ticked
    assert set(texts) <= {f"{v:g}" for v in TRIED}, texts  # only values tried


def test_a_wide_plot_ticks_every_value_tried() -> None:
    assert [text for text, _, _ in _labels(TRIED, 12.0)] == [f"{v:g}" for v in TRIED]
