"""A sweep plot's exact line that several curves share: drawn in a colour of its own, not
the first curve's, and named after their simulated lines in the legend."""

from __future__ import annotations

from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.colors import same_color

import simlab
from simlab.report.plots import EXACT_STYLE
from tests.tuning.cases import SS_DUEL

QUICKSTART = SS_DUEL.parents[1] / "shattered-spirits/quickstart.yaml"
SHARED = "every Brute.guard (exact)"


@pytest.fixture(scope="module")
def grid() -> Any:
    """Kaito's guard swept at two Brute guards: Kaito's hit rate on the Brute is the same
    at both, so its two exact lines are drawn as one."""
    scn = simlab.load(QUICKSTART)
    return simlab.sweep(scn, {"Kaito.guard": [0, 1], "Brute.guard": [1, 2]}, n=200, seed=3)


def _entries(ax: Any) -> list[tuple[str, Any]]:
    """Each legend entry's name and colour, in the legend's order."""
    legend = ax.get_legend()
    return [
        (text.get_text(), handle.get_color())
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)
    ]


def test_an_exact_line_of_several_curves_has_a_colour_of_its_own(grid: Any) -> None:
    """The exact hit rate, the same at every Brute guard, was drawn once in the first
    curve's blue: it read as the answer of ``Brute.guard=1`` alone. It is black, the
    colour of no curve, and its entry follows the simulated lines'."""
    fig, ax = plt.subplots()
    simlab.plot_sweep(grid, "hit_rate", ax=ax, attacker="Kaito")
    entries = _entries(ax)
    plt.close(fig)
    names = [name for name, _ in entries]
    assert names[-1] == SHARED, names
    curves = [colour for name, colour in entries if not name.endswith("(exact)")]
    shared = entries[-1][1]
    assert len(curves) == 2 and same_color(shared, EXACT_STYLE["color"]), entries
    assert not any(same_color(shared, colour) for colour in curves), entries


def test_an_exact_line_of_one_curve_keeps_its_colour(grid: Any) -> None:
    """Mean damage differs at each Brute guard: each curve's exact line is dashed in the
    curve's own colour, right after it, as before."""
    fig, ax = plt.subplots()
    simlab.plot_sweep(grid, "mean_damage", ax=ax, attacker="Kaito")
    entries = _entries(ax)
    plt.close(fig)
    for (name, colour), (exact, its) in zip(entries[::2], entries[1::2], strict=True):
        assert exact == f"{name} (exact)" and same_color(colour, its), entries
