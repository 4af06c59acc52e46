"""The report's plots as a designer reads them: legends that name what is drawn, round
axes in whole rounds over the rounds where something happens, exact answers visible."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from simlab import api, plots
from simlab.report.results import ScenarioRun

ROOT = Path(__file__).resolve().parents[2]
BLEEDING = ROOT / "scenarios/glitters-d20/bleeding-duel.yaml"
DUEL = ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml"
SPIRITS = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"


@pytest.fixture(scope="module")
def duel() -> ScenarioRun:
    return api.run_scenario(DUEL, n=2000, seed=3)


def test_the_hit_rate_legend_names_the_exact_ticks_whichever_rate_has_them() -> None:
    """bleeding-duel's exact hit rates are moved by the fight (a parry on some attacks),
    its crit rates are not: black ticks on the crit bars, and no "exact" in the legend,
    which named the ticks only when the hit rate had them."""
    run = api.run_scenario(BLEEDING, n=1000, seed=3)
    fig, ax = plt.subplots()
    drawn = plots.plot_hit_rates(run, ax=ax)
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(fig)
    assert drawn.exact_hit_rate.isna().all() and drawn.exact_crit_rate.notna().any()
    assert names[-1] == "exact", names


def _time_to_down(run: ScenarioRun, side: str) -> tuple[object, object]:
    """A side's time-to-down on a figure of the report's size, laid out as saved."""
    fig, ax = plt.subplots(figsize=(8.5, 3.4), layout="constrained")
    plots.plot_time_to_down(run, side=side, ax=ax)
    fig.canvas.draw()
    return fig, ax


def test_round_axes_have_whole_rounds_only() -> None:
    """spirits-2v3 (round cap 20) had ticks at 0.0, 2.5, 5.0 … rounds."""
    run = api.run_scenario(SPIRITS, n=500, seed=3)
    fig, ax = _time_to_down(run, "party")
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    plt.close(fig)
    assert ticks and all(t == round(t) for t in ticks), ticks


def test_a_time_to_down_axis_ends_where_the_curves_stop_rising(duel: ScenarioRun) -> None:
    """The duel's curves rise by round ~20 of a round cap of 100: drawn to 100, they were
    squashed into the left sixth. The axis ends a little after the last round anything
    changed in, and says that the cap is further."""
    table = duel.result.time_to_down()
    last = int(table["round"][table.downed > 0].max())
    fig, ax = _time_to_down(duel, "defender")
    right, label = ax.get_xlim()[1], ax.get_xlabel().replace("\u00a0", " ")
    plt.close(fig)
    assert last < right < 100 and right <= last + max(2, np.ceil(last / 5)) + 1, (last, right)
    assert "round cap 100" in label and f"after round {last}" in label, label


def test_the_exact_curve_is_drawn_visibly_over_the_simulated_one(duel: ScenarioRun) -> None:
    """The exact curve ("Defender: exact", dashed, in the simulated curve's colour) lay under
    it: its legend entry pointed at nothing visible."""
    fig, ax = _time_to_down(duel, "defender")
    lines = {line.get_label(): line for line in ax.get_lines()}
    simulated, exact = lines["Defender"], lines["Defender: exact"]
    colours = [matplotlib.colors.to_hex(line.get_color()) for line in (simulated, exact)]
    plt.close(fig)
    assert colours[1] == "#000000" != colours[0]
    assert exact.get_zorder() > simulated.get_zorder()
    assert exact.get_linewidth() < simulated.get_linewidth()


def test_a_time_to_down_legend_is_legible_and_beside_the_data(duel: ScenarioRun) -> None:
    """Its legend was 7 pt, smaller than the tick labels, inside the axes; the README
    promises 9–11 pt text and legends beside the data, as the other plots have them."""
    fig, ax = _time_to_down(duel, "defender")
    legend = ax.get_legend()
    sizes = [t.get_fontsize() for t in legend.get_texts()]
    box, axes_box = legend.get_window_extent(), ax.get_window_extent()
    plt.close(fig)
    assert min(sizes) >= 9, sizes
    assert box.x0 >= axes_box.x1, (box, axes_box)
