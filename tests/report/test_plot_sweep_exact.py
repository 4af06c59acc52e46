"""A sweep plot's exact line that several curves share: drawn in a colour of its own, not
the first curve's, and named after their simulated lines in the legend."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.colors import same_color

import simlab
from simlab.report.plots import EXACT_STYLE
from tests.report.report_html import words_unwrapped
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


def test_the_page_says_the_exact_line_of_a_lone_curve_is_black(tmp_path: Path) -> None:
    """A sweep of one field draws one curve a panel, its exact answer dashed in black;
    the page's note said the answer was dashed "in its curve's colour (black: the answer
    of several curves alike …)", which the plot above it did not do."""
    swept = simlab.sweep(simlab.load(SS_DUEL), "Defender.guard=0:1", n=200, seed=1)
    fig, ax = plt.subplots()
    simlab.plot_sweep(swept, "mean_damage", ax=ax)
    (curve, curve_colour), (exact, exact_colour) = _entries(ax)
    plt.close(fig)
    assert exact == f"{curve} (exact)" and same_color(exact_colour, EXACT_STYLE["color"])
    assert not same_color(curve_colour, EXACT_STYLE["color"])
    simlab.write_sweep(swept, tmp_path)
    for page in ("sweep.html", "sweep.md"):
        text = html.unescape(words_unwrapped((tmp_path / page).read_text(encoding="utf-8")))
        assert "in its curve's colour (black: the answer of several" not in text, page
        assert "black where it has one" in text, page
