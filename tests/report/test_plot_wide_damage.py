"""An attack with hundreds of damage values (``20d12``) keeps its exact answer readable:
its diamonds, each under a bar's width, merged into a black band over the bars."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import simlab
from simlab import plots
from simlab.report.render import EXACT_CAPTION, EXACT_LINE_CAPTION, exact_caption

DUEL = Path(__file__).resolve().parents[2] / "scenarios/benchmarks/glitters-d20-duel.yaml"


def _drawn(changes: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The duel's damage plots, both panels, with the exact answer, on a report-sized
    figure laid out as saved."""
    scn = simlab.load(DUEL).with_(changes)
    res = simlab.simulate(scn, n=2000, seed=1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6))
    plots.plot_damage_pmf(res, "Attacker", "mace", ax=left, exact=simlab.exact(scn))
    plots.plot_damage_at_least(res, "Attacker", "mace", ax=right, exact=simlab.exact(scn))
    fig.canvas.draw()
    return fig, left, right


def _exact_marks(ax: Any) -> list[Any]:
    return [line for line in ax.get_lines() if line.get_label().startswith("exact")]


@pytest.fixture(scope="module")
def wide() -> Any:
    fig, left, right = _drawn({"mace.damage": "20d12"})
    yield left, right
    plt.close(fig)


def test_hundreds_of_damage_values_draw_the_exact_answer_as_a_line(wide: Any) -> None:
    """One black step line per panel, no diamond, named as a line in the legend."""
    for ax in wide:
        (line,) = _exact_marks(ax)
        assert line.get_marker() in ("None", "none", None) and line.get_linestyle() == "-"
        assert line.get_drawstyle().startswith("steps")
        assert len(line.get_xdata()) > 200
        assert matplotlib.colors.to_hex(line.get_color()) == "#000000"
        assert plots.EXACT_STEPS_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]
        assert not [line for line in ax.get_lines() if line.get_marker() == "D"]
    # the simulated "at least" curve has no dots either: they merged into a band too
    assert all(line.get_marker() in ("None", "none") for line in wide[1].get_lines())
    assert exact_caption(*wide) == EXACT_LINE_CAPTION


def test_damage_of_three_digits_gets_tick_labels_apart(wide: Any) -> None:
    """Ten ticks ran three-digit damages together on a report's panel ("100150200")."""
    for ax in wide:
        renderer = ax.figure.canvas.get_renderer()
        shown = [t for t in ax.get_xticklabels() if t.get_text() and t.get_visible()
                 and ax.get_xlim()[0] <= t.get_position()[0] <= ax.get_xlim()[1]]  # fmt: skip
        boxes = sorted((t.get_window_extent(renderer) for t in shown), key=lambda b: b.x0)
        assert len(boxes) >= 3
        # a space between two labels: ran together, each ended where the next began
        assert all(left.x1 + 5 < right.x0 for left, right in itertools.pairwise(boxes))


def test_a_few_damage_values_keep_their_diamonds() -> None:
    """1d8+2: eleven values, a diamond on each bar, as before."""
    fig, left, right = _drawn({})
    marks = [_exact_marks(ax) for ax in (left, right)]
    caption = exact_caption(left, right)
    plt.close(fig)
    for (line,) in marks:
        assert line.get_marker() == "D" and line.get_label() == plots.EXACT_LABEL
    assert caption == EXACT_CAPTION


@pytest.mark.slow
def test_the_report_page_says_a_line_where_a_plot_drew_one(tmp_path: Path) -> None:
    """The scenario's "exact engine" line and its Damage note said "open black
    diamonds" of a damage plot that drew the exact answer as a line; a duel of a few
    damage values says diamonds alone, as before."""
    from simlab.report.render import EXACT_LINE_ASIDE

    for name, changes in (("wide", {"mace.damage": "20d12"}), ("narrow", {})):
        run = simlab.run_scenario(simlab.load(DUEL).with_(changes), n=2000)
        simlab.write_report([run], tmp_path / name)
    for name, aside in (("wide", True), ("narrow", False)):
        page = " ".join((tmp_path / name / "report.html").read_text().split())
        assert ("open black diamonds on 1 damage plot" in page) is not aside
        assert (f"open black diamonds{EXACT_LINE_ASIDE} on 1 damage plot" in page) is aside
        assert (f"open black diamonds{EXACT_LINE_ASIDE}: the exact answer" in page) is aside
