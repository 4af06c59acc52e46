"""Titles and axis labels kept within their axes: a y label no longer than its axes are
tall on a short plot, and a figure whose layout engine the user chose keeps that engine
while its texts are broken at the room each of its layouts leaves them."""

from __future__ import annotations

import io
import pickle
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import simlab
from tests.tuning.cases import SS_DUEL

PARTY = SS_DUEL.parents[1] / "shattered-spirits/party-3v3.yaml"  # three curves a side


@pytest.fixture(scope="module")
def sweep() -> Any:
    return simlab.sweep(simlab.load(SS_DUEL), {"Defender.guard": [0, 1, 2, 3]}, n=200, seed=1)


@pytest.fixture(scope="module")
def party() -> Any:
    return simlab.simulate(simlab.load(PARTY), n=300, seed=2)


def _saved(fig: Any) -> None:
    fig.savefig(io.BytesIO(), format="png")


def _within(inner: Any, outer: Any, axis: str) -> bool:
    """Whether box ``inner`` lies within ``outer`` along ``axis`` (half a pixel spare)."""
    lo, hi = ("x0", "x1") if axis == "x" else ("y0", "y1")
    return bool(getattr(outer, lo) - 0.5 <= getattr(inner, lo)
                and getattr(inner, hi) <= getattr(outer, hi) + 0.5)  # fmt: skip


@pytest.mark.parametrize("height", [2.5, 2.0])
def test_a_long_y_label_fits_a_short_plot(sweep: Any, height: float) -> None:
    """A 1×2 grid 2.5 inches tall, each legend under its plot: ``mean damage per attack
    (HP, misses 0)``, longer than the plot is tall, ran past the figure's top and bottom
    and was cut. It is broken to the axes' height, its bracket whole where that fits
    (at 2 inches, the bracket alone is taller than the axes, and broken too)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, height))
    simlab.plot_sweep(sweep, "hit_rate", ax=left)
    simlab.plot_sweep(sweep, "mean_damage", ax=right)
    _saved(fig)
    label, axes, whole = right.yaxis.label, right.get_window_extent(), fig.bbox
    box, lines = label.get_window_extent(), label.get_text().split("\n")
    plt.close(fig)
    assert len(lines) > 1 and _within(box, axes, "y") and _within(box, whole, "y"), (lines, box)
    if height == 2.5:
        assert any(line.endswith("(HP,\u00a0misses\u00a00)") for line in lines), lines


def test_a_y_label_that_fits_is_left_whole(sweep: Any) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    simlab.plot_sweep(sweep, "mean_damage", ax=ax)
    _saved(fig)
    plt.close(fig)
    assert ax.get_ylabel().replace("\u00a0", " ") == "mean damage per attack (HP, misses 0)"


@pytest.mark.parametrize("layout", ["tight", "constrained"])
def test_the_users_layout_engine_is_kept_and_the_title_fits_its_layout(
    party: Any, layout: str
) -> None:
    """A figure of the user's with ``layout="tight"`` (or constrained) got its title
    broken once, before any layout, at the width its axes had then: it fitted, and ran
    past the figure's left edge once the engine had made room for the legend beside the
    axes. The user's engine lays the figure out, the same engine with its settings, and
    the title and x label are broken at the width its layout leaves the axes, at each
    drawing: on a wider figure the title is one line again."""
    fig, ax = plt.subplots(figsize=(5.5, 3), layout=layout)
    engine = fig.get_layout_engine()
    settings = engine.get()
    simlab.plot_time_to_down(party, side="party", ax=ax)
    _saved(fig)
    axes = ax.get_window_extent().frozen()
    narrow = [(t.get_text(), t.get_window_extent()) for t in (ax.title, ax.xaxis.label)]
    fig.set_size_inches(15, 3)
    _saved(fig)
    wide = ax.title.get_text()
    copy = pickle.loads(pickle.dumps(fig))  # a figure can still be pickled
    plt.close(fig)
    plt.close(copy)
    assert fig.get_layout_engine() is engine and type(engine).__name__.lower().startswith(layout)
    assert engine.get() == settings
    for text, box in narrow:
        assert "\n" in text and _within(box, axes, "x"), (text, box, axes)
    assert "\n" not in wide, wide
    assert type(copy.get_layout_engine()) is type(engine)
