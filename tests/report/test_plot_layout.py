"""Plots in a notebook's own figures: a legend beside a panel neither covers the next
panel nor is cut off when the figure is saved."""

from __future__ import annotations

import io
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import simlab
from tests.tuning.cases import SS_DUEL

# Slow tier (make test-slow): draws pictures to measure their layout.
pytestmark = pytest.mark.slow

QUICKSTART = SS_DUEL.parents[1] / "shattered-spirits/quickstart.yaml"
PARTY = SS_DUEL.parents[1] / "shattered-spirits/party-3v3.yaml"  # three curves a side


@pytest.fixture(scope="module")
def res() -> Any:
    return simlab.simulate(simlab.load(SS_DUEL), n=2000, seed=3)


def _legend_box(ax: Any) -> Any:
    ax.figure.canvas.draw()
    return ax.get_legend().get_window_extent()


def test_a_legend_beside_the_left_panel_leaves_the_right_panel_clear(res: Any) -> None:
    """``plt.subplots(1, 2)`` has no layout engine: the damage legend, placed beside the
    left axes, was drawn over the right panel's y axis and curves."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    simlab.plot_damage_pmf(res, "Attacker", "strike", ax=left)
    simlab.plot_time_to_down(res, ax=right)
    box, neighbour = _legend_box(left), right.get_tightbbox()
    plt.close(fig)
    assert box.x1 <= neighbour.x0, (box, neighbour)


def test_a_new_figure_keeps_its_legend_when_saved(res: Any) -> None:
    """Without ``ax=``, the legend beside the axes lay outside the figure: savefig cut it."""
    simlab.plot_damage_pmf(res, "Attacker", "strike")
    fig = plt.gcf()
    fig.savefig(io.BytesIO(), format="png")
    box, width = _legend_box(fig.axes[0]), fig.bbox.width
    plt.close(fig)
    assert box.x0 >= 0 and box.x1 <= width, (box, width)


def test_a_figure_with_its_own_layout_keeps_it(res: Any) -> None:
    fig, ax = plt.subplots(layout="tight")
    engine = fig.get_layout_engine()
    simlab.plot_damage_pmf(res, "Attacker", "strike", ax=ax)
    plt.close(fig)
    assert fig.get_layout_engine() is engine


def test_three_panels_in_a_row_keep_every_title_within_the_figure() -> None:
    """README's snippet (damage, at least x damage and time-to-down side by side,
    ``figsize=(15, 4)``): the third panel's title ran past the figure's right edge and
    ``savefig`` cut it, ``time-to-down over all encounters (95% band) · par``. A title
    that does not fit is broken between its parts, each whole: a name, ``(95% band)``."""
    scn = simlab.load(QUICKSTART)
    res = simlab.simulate(scn, n=2000, seed=7)
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(15, 4))
    simlab.plot_damage_pmf(res, "Brute", "stone-strike", "Kaito", ax=a, exact=simlab.exact(scn))
    simlab.plot_damage_at_least(res, "Brute", "stone-strike", ax=b)
    simlab.plot_time_to_down(res, side="party", ax=c)
    fig.savefig(io.BytesIO(), format="png")
    boxes = [ax.title.get_window_extent() for ax in (a, b, c)]
    width = fig.bbox.width
    lines = c.title.get_text().split("\n")  # what was drawn
    plt.close(fig)
    assert all(box.x0 >= 0 and box.x1 <= width for box in boxes), (boxes, width)
    # (the legend beside it names the median line too, so the axes are narrower)
    assert [line.replace("\u00a0", " ") for line in lines] == [
        "party: time-to-down",
        "over all encounters (95% band)",
    ], lines


def test_a_long_title_stays_within_its_axes_without_private_matplotlib(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The title was kept to its axes through matplotlib's private
    ``Text._get_wrap_line_width``, which any release may drop; without it the title ran
    past its axes, over the legend beside them. It is broken between its parts by simlab
    itself."""
    monkeypatch.delattr(matplotlib.text.Text, "_get_wrap_line_width", raising=False)
    res = simlab.simulate(simlab.load(PARTY), n=300, seed=2)
    fig, ax = plt.subplots(figsize=(5.5, 3))
    simlab.plot_time_to_down(res, side="party", ax=ax)
    fig.savefig(io.BytesIO(), format="png")
    title, axes = ax.title.get_window_extent(), ax.get_window_extent()
    lines = ax.title.get_text().split("\n")
    plt.close(fig)
    assert len(lines) > 1, lines
    assert axes.x0 - 0.5 <= title.x0 and title.x1 <= axes.x1 + 0.5, (title, axes)


def _legend_inside(fig: Any) -> tuple[list[str], bool]:
    """The names of a figure's legend (its own or its one axes') and whether the whole
    legend is within the figure, as saved."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied …"
        fig.savefig(io.BytesIO(), format="png")
    (legend,) = fig.legends or [ax.get_legend() for ax in fig.axes]
    box, whole = legend.get_window_extent(), fig.bbox
    inside = box.x0 >= 0 and box.y0 >= 0 and box.x1 <= whole.width and box.y1 <= whole.height
    return [t.get_text() for t in legend.get_texts()], inside


SKELETONS = SS_DUEL.parents[1] / "glitters-d20/knight-vs-skeleton.yaml"


@pytest.mark.filterwarnings("ignore:exact answers not drawn")  # said where they are tested
def test_a_new_hit_rate_figure_keeps_its_legend_when_saved() -> None:
    """On its 6-inch default figure, the hit-rate legend ran in three columns from the
    axes' left edge, past long pair names, off the figure: savefig cut "crit rate
    (simulated, …" and lost the "exact" entry, and constrained layout gave up ("axes
    sizes collapsed to zero")."""
    scn = simlab.load(SKELETONS)
    simlab.plot_hit_rates(simlab.simulate(scn, n=2000, seed=3), exact=simlab.exact(scn))
    fig = plt.gcf()
    names, inside = _legend_inside(fig)
    plt.close(fig)
    assert inside and names[-1] == "exact", names


def test_a_new_sweep_figure_keeps_its_legend_when_saved() -> None:
    """A sweep of party-fight draws a line per pair: the legend beside the plot, names
    of four pairs drawn as one among them, was cut at the figure's right edge."""
    scn = simlab.load(SS_DUEL.parents[1] / "opposed-tiers/party-fight.yaml")
    sweep = simlab.sweep(scn, {"Warden.hp": [16, 32]}, n=300, seed=3)
    simlab.plot_sweep(sweep, "hit_rate")
    fig = plt.gcf()
    names, inside = _legend_inside(fig)
    plt.close(fig)
    assert inside and len(names) > 30, names
