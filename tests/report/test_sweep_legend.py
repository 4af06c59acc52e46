"""A busy sweep plot (two varied fields, no attacker or attack given) on the caller's
axes: its legend names each exact line once, sits under the plot where too wide beside
it, never pushes the plot out of a figure with constrained layout, and a sweep with more
lines than a legend there can name is refused with the names that narrow it."""

from __future__ import annotations

import warnings
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import simlab
from simlab.errors import InputError
from tests.tuning.cases import SS_2V2, SS_DUEL

QUICKSTART = SS_DUEL.parents[1] / "shattered-spirits/quickstart.yaml"


@pytest.fixture(scope="module")
def busy() -> Any:
    """Kaito's guard swept, and the Brute's: each pair's line at each Brute guard."""
    scn = simlab.load(QUICKSTART)
    return simlab.sweep(scn, {"Kaito.guard": [0, 1, 2], "Brute.guard": [1, 2, 3]}, n=300, seed=3)


def _names(ax: Any) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_an_exact_line_of_every_value_is_named_once(busy: Any) -> None:
    """The hit rate's exact answer is the same at every Brute guard: its entry read
    "Brute.guard=1 · Kaito · quick-jab · Brute = Brute.guard=2 · … (exact)", 130
    characters, where the simulated lines drawn as one read "(every FIELD)"."""
    fig, ax = plt.subplots(layout="constrained")
    simlab.plot_sweep(busy, "hit_rate", ax=ax)
    names = _names(ax)
    plt.close(fig)
    assert "Kaito · quick-jab · Brute (every Brute.guard) (exact)" in names, names
    assert not [name for name in names if " = " in name], names
    fig, ax = plt.subplots(layout="constrained")
    simlab.plot_sweep(busy, "hit_rate", ax=ax, attacker="Kaito")  # one subject: not named
    names = _names(ax)
    plt.close(fig)
    assert names[0] == "Brute.guard=1" and names[-1] == "every Brute.guard (exact)", names


@pytest.mark.parametrize(("figure", "narrow", "whose"), [
    ("down_rate", {"combatant": "Brute"}, "Brute"),
    ("hit_rate", {"attacker": "Kaito"}, "Kaito · quick-jab · Brute"),
])  # fmt: skip
def test_one_subjects_plot_over_two_fields_says_whose_figure_it_is(
    busy: Any, figure: str, narrow: dict[str, str], whose: str
) -> None:
    """Its legend names the further field's values alone, so the y label names the one
    subject, as a tune's plot names what it is on: it read "down rate", nobody's."""
    fig, ax = plt.subplots(layout="constrained")
    simlab.plot_sweep(busy, figure, ax=ax, **narrow)
    label = ax.get_ylabel().replace("\u00a0", " ")
    plt.close(fig)
    assert label.startswith(f"{whose}: "), label
    one_field = simlab.sweep(simlab.load(QUICKSTART), {"Kaito.guard": [0, 1]}, n=50, seed=3)
    fig, ax = plt.subplots(layout="constrained")
    simlab.plot_sweep(one_field, figure, ax=ax, **narrow)  # its legend names the subject
    label = ax.get_ylabel().replace("\u00a0", " ")
    plt.close(fig)
    assert whose not in label, label


def test_a_busy_legend_goes_under_the_plot_and_the_layout_holds(busy: Any) -> None:
    """Beside the plot, the legend left it no width: constrained layout warned "axes
    sizes collapsed to zero" and gave up. Under it, the plot keeps most of the width."""
    fig, ax = plt.subplots(layout="constrained")
    simlab.plot_sweep(busy, "hit_rate", ax=ax)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the collapse is a warning
        fig.canvas.draw()
    legend, plot = ax.get_legend().get_window_extent(), ax.get_window_extent()
    label = ax.xaxis.label.get_window_extent()
    plt.close(fig)
    assert legend.y1 <= label.y0, (legend, label)  # under the x axis's name
    assert legend.y0 >= 0 and legend.x0 >= 0 and legend.x1 <= fig.bbox.width, legend
    assert plot.width > 0.7 * fig.bbox.width, plot


def test_a_short_legend_stays_beside_the_plot(busy: Any) -> None:
    fig, ax = plt.subplots(layout="constrained")
    simlab.plot_sweep(busy, "down_rate", ax=ax, combatant="Kaito")
    fig.canvas.draw()
    legend, plot = ax.get_legend().get_window_extent(), ax.get_window_extent()
    plt.close(fig)
    assert legend.x0 >= plot.x1, (legend, plot)


def test_too_many_lines_for_the_callers_axes_are_refused_with_the_choices() -> None:
    """Two fields of a 2-against-2 fight: over 12 lines (each pair at each HP), whose
    legend no figure of the default size holds. The refusal names what narrows them;
    without ax=, the figure of its own grows to its legend."""
    sweep = simlab.sweep(simlab.load(SS_2V2), {"Kaito.guard": [0, 1], "Mira.hp": [16, 20, 24]},
                         n=100, seed=3)  # fmt: skip
    fig, ax = plt.subplots(layout="constrained")
    with pytest.raises(InputError, match=r"\d\d lines on .*attacker= one of Kaito, Mira, Brute"):
        simlab.plot_sweep(sweep, "hit_rate", ax=ax)
    assert ax.get_lines() == []  # refused before drawing anything
    simlab.plot_sweep(sweep, "hit_rate", ax=ax, attacker="Kaito")
    assert len(ax.get_lines()) >= 3  # one a Mira.hp
    plt.close(fig)
    simlab.plot_sweep(sweep, "hit_rate")
    plt.close(plt.gcf())
