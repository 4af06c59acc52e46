"""The sweep page says what the terminal says: a median not reached is marked in a row
of its own above the median plot, labelled with the round cap, not on the plot's top
edge just above the data (where it read as a median of about the top round); and a
combatant no one attacks, or a side that makes no attack, is left out of the page's
pictures and tables with the terminal's note, not drawn as a line at 0."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlab import api
from simlab.report import tuning
from simlab.report.tuning_terminal import never_attacked_note, never_winning_note

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"


@pytest.fixture(scope="module")
def guarded() -> Any:
    """Kaito's guard 0..4: Kaito is down in fewer than half the encounters at guard 3
    and 4, the Brute at 0..2 (their medians are not reached)."""
    return api.sweep(QUICKSTART, {"Kaito.guard": range(0, 5)}, n=2000, seed=3)


@pytest.fixture(scope="module")
def one_sided(duel_sweep: Any) -> Any:
    """The duel whose Attacker no one attacks, and whose defender's side makes no attack."""
    return duel_sweep


def _median_plot(sweep: Any) -> Any:
    """The page's median picture, drawn: its axes."""
    fig = Figure(figsize=(7.0, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    tuning._outcome_curve(fig, sweep, "median_time_to_down")
    fig.canvas.draw()
    return fig.axes[0]


def _single_marks(ax: Any) -> list[tuple[float, float]]:
    """Where the points of ``ax``'s lines are drawn (display x, y)."""
    return [(float(x), float(y)) for m in ax.get_lines()
            for x, y in m.get_transform().transform(m.get_xydata())]  # fmt: skip


def test_a_median_not_reached_sits_in_a_labelled_row_above_the_plot(guarded: Any) -> None:
    ax = _median_plot(guarded)
    data = guarded.combatants()
    missing = int(data.median_time_to_down.isna().sum())
    assert missing >= 2  # the case this is about
    plot = ax.get_window_extent()
    gap = tuning.NOT_REACHED_GAP * ax.figure.dpi / 72
    above = [(x, y) for x, y in _single_marks(ax) if y > plot.y1]
    assert len(above) == missing
    # clear of the plot by the row's gap, every mark at one height, inside the figure
    assert all(y >= plot.y1 + gap for _, y in above), (above, plot.y1)
    assert len({round(y, 6) for _, y in above}) == 1
    assert all(y < ax.figure.bbox.height for _, y in above)
    (band,) = ax.figure.artists  # the grey row behind them, as wide as the plot
    ends = band.get_transform().transform(band.get_xydata())
    assert ends[:, 0] == pytest.approx([plot.x0, plot.x1]) and ends[0, 1] == above[0][1]
    # the row is labelled with the cap at its left, as a tick of its own, at the marks' height
    cap = guarded.points[0].result.layout.max_rounds
    (label,) = [t for t in ax.texts if t.get_text().startswith("not reached")]
    assert label.get_text() == f"not reached\nby round {cap}"
    box = label.get_window_extent()
    assert box.x1 <= plot.x0 and box.y0 < above[0][1] < box.y1
    assert box.x0 >= 0 and box.y1 <= ax.figure.bbox.height  # in the saved picture
    # the legend names the lines only: the row says what its marks are
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Kaito", "Brute"]


def test_the_caption_names_the_row_and_the_cap(guarded: Any) -> None:
    caption = tuning.median_gaps(guarded)
    cap = guarded.points[0].result.layout.max_rounds
    assert caption.startswith(f"In the grey row above the plot, “not reached by round {cap}”")


def test_a_tuned_median_not_reached_is_marked_in_the_row_too() -> None:
    """The tune plot marks a value whose median the cap does not reach as the sweep plot
    does, in the labelled row above it."""
    result = api.tune(QUICKSTART, "Kaito.guard=0:4", "median_time_to_down:Kaito=10", n=2000,
                      seed=3)  # fmt: skip
    unreached = [e.value for e in result.evaluations if np.isinf(e.figure)]
    assert unreached  # the case this is about
    fig = Figure(figsize=(7.0, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    tuning.plot_tune(result, ax=ax)
    fig.canvas.draw()
    top = ax.get_window_extent().y1 + tuning.NOT_REACHED_GAP * fig.dpi / 72
    assert len([y for _, y in _single_marks(ax) if y >= top]) == len(unreached)
    assert any(t.get_text() == "not reached\nby the round cap" for t in ax.texts)


def _legend_names(sweep: Any, figure: str) -> list[str]:
    fig = Figure(figsize=(7.0, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    tuning._outcome_curve(fig, sweep, figure)
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_the_page_leaves_out_who_no_one_attacks_as_the_terminal_does(
    one_sided: Any, duel_sweep_pages: Path
) -> None:
    """The Attacker, whom no one attacks, was drawn (a down rate of 0, medians not
    reached) and listed at every point; the defender's side, which makes no attack, was
    drawn at a win rate of 0. The terminal leaves both out and says so: so does the page."""
    for figure in ("down_rate", "mean_time_to_down", "median_time_to_down"):
        names = _legend_names(one_sided, figure)
        assert "Defender" in names and not any("Attacker" in n for n in names), figure
    assert "defender" not in " ".join(_legend_names(one_sided, "win_rate"))
    md = (duel_sweep_pages / "sweep.md").read_text()
    html = (duel_sweep_pages / "sweep.html").read_text().replace("&#39;", "'")
    assert not re.search(r"^\| \d \| Attacker \| (?!strike)", md, re.M)  # no time-to-down row
    assert re.search(r"^\| \d \| Defender \| (?!strike)", md, re.M)
    assert not re.search(r"^\| \d \| defender \| [\d,]+ \|", md, re.M)  # no outcome row
    assert re.search(r"^\| \d \| attacker \| [\d,]+ \|", md, re.M)
    for note in (never_attacked_note(["Attacker"]), never_winning_note(["defender"])):
        assert note in md and note in html, note
    assert "Attacker (" not in tuning.median_gaps(one_sided)


def test_the_caption_names_in_the_legend_order_and_no_arrow_not_drawn() -> None:
    """The 2v2 fight over Kaito's HP and the Brutes' guard: the caption named Brute 2,
    Brute 1, Kaito, Mira (the order in which their medians first went unreached), where
    the legend reads Kaito, Mira, Brute 1, Brute 2; and it explained "an arrow up to the
    plot's top edge" on a plot that drew none, no interval of a median being open at
    its upper end alone."""
    fight = api.sweep(ROOT / "scenarios/benchmarks/ss-2v2.yaml",
                      {"Kaito.hp": [10, 30], "Brute.guard": [0, 2]}, n=5000)  # fmt: skip
    frame = tuning.shown_combatants(fight)
    lo, hi = (frame[f"median_time_to_down_ci95_{end}"].to_numpy(dtype=float)
              for end in ("lo", "hi"))  # fmt: skip
    assert not (np.isfinite(lo) & ~np.isfinite(hi)).any()  # no arrow is drawn
    caption = tuning.median_gaps(fight)
    assert "arrow" not in caption, caption
    unreached = frame[~np.isfinite(frame.median_time_to_down.to_numpy(dtype=float))]
    legend = [c for c in dict.fromkeys(frame.combatant) if c in set(unreached.combatant)]
    assert len(legend) == 4 and list(unreached.combatant.unique()) != legend  # the case
    named = re.findall(r"(\w+(?: \d)?) \((?:\d+ of \d+ points|at every point)\)", caption)
    assert named == legend, caption
