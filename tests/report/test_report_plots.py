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

# Slow tier (make test-slow): draws every kind of report picture.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BLEEDING = ROOT / "scenarios/glitters-d20/bleeding-duel.yaml"
DUEL = ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml"
SPIRITS = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"


@pytest.fixture(scope="module")
def duel() -> ScenarioRun:
    return api.run_scenario(DUEL, n=2000, seed=3)


def test_the_hit_rate_legend_names_the_exact_ticks_whichever_rate_has_them() -> None:
    """bleeding-duel's exact hit rates are moved by the fight (a parry on some attacks),
    its crit rates are not: exact diamonds on the crit bars, and no "exact" in the legend,
    which named the ticks only when the hit rate had them."""
    run = api.run_scenario(BLEEDING, n=1000, seed=3)
    fig, ax = plt.subplots()
    drawn = plots.plot_hit_rates(run, ax=ax)
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(fig)
    assert drawn.exact_hit_rate.isna().all() and drawn.exact_crit_rate.notna().any()
    assert names[-1] == "exact", names


def test_an_interval_on_the_hit_rate_plot_does_not_look_like_an_exact_answer() -> None:
    """The bars' 95% whiskers were black vertical strokes, like the exact answers'
    ticks: a pair the engine does not answer seemed to have an answer. The exact answer
    is an open black diamond, as on the damage plots; the whiskers are grey."""
    run = api.run_scenario(BLEEDING, n=1000, seed=3)
    fig, ax = plt.subplots()
    plots.plot_hit_rates(run, ax=ax)
    exact = [line for line in ax.get_lines() if line.get_marker() == "D"]
    caps = [line for line in ax.get_lines() if line.get_marker() != "D"]
    whiskers = [c for c in ax.collections if c.get_segments()]  # the error bars' lines
    plt.close(fig)
    assert exact and all(line.get_markerfacecolor() == "none" for line in exact)
    assert whiskers and caps
    colors = [rgba for c in whiskers for rgba in c.get_colors()]
    colors += [matplotlib.colors.to_rgba(line.get_markeredgecolor()) for line in caps]
    assert not any(np.allclose(rgba[:3], 0) for rgba in colors), colors  # none black


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


PARTY = ROOT / "scenarios/opposed-tiers/party-fight.yaml"


def test_copies_told_apart_are_pooled_where_an_attack_hurt_them_alike() -> None:
    """party-fight's four Raiders fought differently, so each was drawn: the Warden's
    longsword drew four identical curves that hid each other under a legend naming all
    four, and 6 pt diamonds of six defenders piled over the bars. Where the damage an
    attack did to each copy is alike (the test that pools copies), they are one pool."""
    run = api.run_scenario(PARTY, n=3000, seed=3)
    assert plots.copy_groups(run) == [
        ("Raider", ["Raider 1", "Raider 2", "Raider 3", "Raider 4"], False)
    ]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6))
    plots.plot_damage_pmf(run, "Warden", "longsword", ax=left)
    drawn = plots.plot_damage_at_least(run, "Warden", "longsword", ax=right)
    names = [t.get_text() for t in right.get_legend().get_texts()]
    diamonds = [line.get_markersize() for line in left.get_lines() if line.get_marker() == "D"]
    plt.close(fig)
    assert list(dict.fromkeys(drawn.defender)) == ["Raider ×4", "Cutthroat", "Raider Chief"]
    assert "vs Raider ×4" in names and not any("Raider 1" in name for name in names), names
    assert diamonds and max(diamonds) < plots.EXACT_MARKER["markersize"], diamonds
    # Pooled for this plot only: the pool's members are said, for the caption.
    assert plots.damage_by_defender(run, "Warden", "longsword").attrs["pooled"] == {
        "Raider ×4": ["Raider 1", "Raider 2", "Raider 3", "Raider 4"]
    }


def test_a_defender_attacked_too_rarely_is_left_out_and_named(tmp_path: Path) -> None:
    """spirits-2v3's Whelps bit Mira twice in 20,000 encounters: a bar of probability 1
    and a band from 0.16 to 1 squashed the other defenders. A defender whose band would
    be wider than MAX_BAND is left out of the plot, and the caption says which and why."""
    from simlab.report.render import MAX_BAND, _damage_defenders, _widest_band, render_report

    run = api.run_scenario(SPIRITS, n=3000, seed=3)
    choice = _damage_defenders(run, "Brute", "stone-strike")
    assert choice.drawn == ["Kaito"]
    assert [(d, n) for d, n, _ in choice.rare] == [("Mira", 7)]
    assert choice.rare[0][2] > MAX_BAND
    data = plots.damage_by_defender(run, "Brute", "stone-strike")
    kaito = data[data.defender == "Kaito"]
    assert _widest_band(kaito["count"].to_numpy(), int(kaito.attempts.iloc[0])) <= MAX_BAND
    render_report([run], tmp_path)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    caption = next(c for c in html.split("<figcaption>")
                   if c.startswith("Brute · stone-strike: damage"))  # fmt: skip
    assert "against Kaito (misses" in caption
    assert "Left out, made too rarely to draw: vs Mira (n=7)" in caption, caption
    assert f"more than {MAX_BAND:g}" in caption


def test_a_defender_s_bar_and_curve_are_one_legend_entry() -> None:
    """The damage picture's legend gave each defender twice: its bar, ``vs Raider ×4
    (n=228,141)``, and its curve in the other panel, ``vs Raider ×4``. One entry now
    shows both marks, named with the count; the exact answers stay last."""
    from matplotlib.figure import Figure

    from simlab.report import plots
    from simlab.report.render import _shared_legend

    fig = Figure(layout="constrained")
    left, right = fig.subplots(1, 2)
    for name, n in (("Raider ×4", "228,141"), ("Cutthroat", "12,978")):
        left.bar([0], [1], label=f"vs {name} (n={n})")
        right.plot([0, 1], [1, 0], label=f"vs {name}")
    right.plot([0], [1], "D", label=plots.EXACT_LABEL)
    _shared_legend(fig, left, right)
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "vs Raider ×4 (n=228,141)", "vs Cutthroat (n=12,978)", plots.EXACT_LABEL]  # fmt: skip
    # each defender's entry draws both marks: a bar and a line (two artists)
    rows = legend._legend_handle_box.get_children()[0].get_children()
    assert [len(row.get_children()[0].get_children()) for row in rows] == [2, 2, 1]


KNIGHT = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"


@pytest.mark.filterwarnings("ignore:exact answers not drawn")  # said where they are tested
def test_exact_answers_of_another_scenario_are_refused(tmp_path: Path) -> None:
    """``exact=simlab.exact(scn)`` of the scenario as written, over a variant's
    simulation, drew the original's damage distribution as "exact (fresh defender)" over
    the variant's bars, and an unrelated scenario's answers were taken as quietly. The
    answers must be of the scenario simulated; a summary that does not say whose it is
    is taken as it is."""
    import json

    import simlab
    from simlab.errors import InputError

    original = simlab.load(KNIGHT)
    variant = original.with_({"longsword.damage": "2d10"})
    res = simlab.simulate(variant, n=300, seed=3)
    with pytest.raises(InputError) as err:
        plots.plot_damage_pmf(res, "Knight", "longsword", exact=simlab.exact(original))
    assert str(err.value) == (
        "expected exact= answers of the scenario simulated (knight-vs-skeleton with "
        "longsword.damage=2d10); got answers of knight-vs-skeleton with no changes; pass "
        "exact=simlab.exact(<the scenario simulated>)"
    )
    api.write_exact(simlab.exact(original), tmp_path / "exact")
    stamped = json.loads((tmp_path / "exact/summary.json").read_text(encoding="utf-8"))
    for wrong in (stamped, simlab.exact(ROOT / "scenarios/zones-3d6/training-duel.yaml")):
        with pytest.raises(InputError, match=r"^expected exact= answers of the scenario"):
            plots.plot_hit_rates(res, exact=wrong)
    drawn = plots.plot_hit_rates(res, exact=simlab.exact(variant))
    unstamped = plots.plot_hit_rates(res, exact=simlab.exact(variant).summary())
    plt.close("all")
    assert drawn.exact_hit_rate.notna().any()
    assert drawn.exact_hit_rate.equals(unstamped.exact_hit_rate)


def test_exact_summaries_of_another_scenario_are_refused() -> None:
    """An ``ExactResult.summary()`` dict of the scenario as written, over a variant's
    simulation, was drawn as "exact" unchecked (a diamond at 0.8 beside a bar at 0.5): it
    carries its scenario hash now, and a summary without one is checked by scenario id."""
    import simlab
    from simlab.errors import InputError

    original = simlab.load(KNIGHT)
    res = simlab.simulate(original.with_({"longsword.bonus": 0}), n=300, seed=3)
    other = simlab.exact(ROOT / "scenarios/zones-3d6/training-duel.yaml").summary()
    hashless = {k: v for k, v in other.items() if k != "scenario_hash"}
    for wrong in (simlab.exact(original).summary(), other, hashless):
        with pytest.raises(InputError) as err:
            plots.plot_hit_rates(res, exact=wrong)
        assert str(err.value).startswith(
            "expected exact= answers of the scenario simulated "
            "(knight-vs-skeleton with longsword.bonus=0); got"
        )
    plt.close("all")


@pytest.mark.filterwarnings("ignore:exact answers not drawn")  # said where they are tested
def test_exact_answers_are_taken_after_a_change_that_moves_none() -> None:
    """A change of the seed, the number of encounters, the precision or the description
    moves no exact answer: ``exact=simlab.exact(scn)`` over a simulation of
    ``scn.with_({"seed": 99})`` was refused as another scenario's answers, while
    ``simulate(scn, seed=99)`` was not. A change of the fight beside it is still refused."""
    import simlab
    from simlab.errors import InputError

    original = simlab.load(KNIGHT)
    solved = simlab.exact(original)
    for change in ({"seed": 99}, {"encounters": 5000}, {"precision": 0.01},
                   {"description": "another sample"}):  # fmt: skip
        res = simlab.simulate(original.with_(change), n=200, seed=3)
        assert plots.plot_hit_rates(res, exact=solved).exact_hit_rate.notna().any()
        assert plots.plot_hit_rates(res, exact=solved.summary()).exact_hit_rate.notna().any()
    variant = original.with_({"longsword.bonus": 0})
    res = simlab.simulate(variant.with_({"seed": 99}), n=200, seed=3)
    assert plots.plot_hit_rates(res, exact=simlab.exact(variant)).exact_hit_rate.notna().any()
    with pytest.raises(InputError, match=r"^expected exact= answers of the scenario"):
        plots.plot_hit_rates(res, exact=solved)
    plt.close("all")
