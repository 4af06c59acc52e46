"""Sweeps: every point is the run of its overrides on the same dice, bit for bit."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.engine import runner
from simlab.errors import InputError
from simlab.report.tuning import _combatant_rows
from simlab.tuning.sweep import parse_vary
from tests.support import K_SIGMA
from tests.tuning.cases import ROOT, SS_DUEL

matplotlib.use("Agg")


def _tallies_equal(a: Any, b: Any) -> None:
    for x, y in zip(a.tallies, b.tallies, strict=True):
        np.testing.assert_array_equal(x, y)


def test_every_point_is_its_own_run(fight: Any) -> None:
    """Point k equals simulate(override(scenario, point k)), tally for tally; a grid."""
    sw = simlab.sweep(fight, {"Brute.hp": [20, 35], "Kaito.guard": range(0, 2)}, n=3000)
    assert [p.set for p in sw.points] == [
        {"Brute.hp": h, "Kaito.guard": g} for h in (20, 35) for g in (0, 1)
    ]
    for point in sw.points:
        alone = simlab.simulate(fight.with_(point.set), 3000, fight.seed, threads=1)
        _tallies_equal(point.result, alone)
    # the variants differ, so the test is not vacuous
    assert sw.combatants().query("combatant == 'Kaito'").mean_time_to_down.nunique() == 4


def test_no_recompiles_across_points(fight: Any) -> None:
    """Parameters reach the kernels as arrays: no point compiles a new signature."""
    simlab.simulate(fight, 100)
    run_chunk = runner.kernels(fight.rules).run_chunk
    before = len(run_chunk.signatures)
    simlab.sweep(fight, {"Brute.hp": range(10, 14), "quick-jab.profile[7]": [1, 9]}, n=500,
                 exact=False)  # fmt: skip
    assert len(run_chunk.signatures) == before


def test_guard_curve_decreases_and_matches_exact(duel: Any) -> None:
    """The bar: ss-duel, Guard 0..4 at 200,000 encounters: mean damage strictly
    decreasing and within 5 standard errors of the exact answer at every point."""
    sw = simlab.sweep(duel, {"Defender.guard": range(0, 5)}, n=200_000)
    table = sw.attacks().sort_values("Defender.guard")
    assert list(table["Defender.guard"]) == [0, 1, 2, 3, 4]
    assert (np.diff(table.mean_damage) < 0).all()
    t = sps.t.ppf(0.975, 31)  # batch means over 32 batches
    se = (table.mean_damage_ci95_hi - table.mean_damage_ci95_lo) / (2 * t)
    z = (table.mean_damage - table.exact_mean_damage) / se
    assert table.exact_mean_damage.notna().all()
    assert (z.abs() < 5).all(), z.tolist()
    ttd = sw.combatants().query("combatant == 'Defender'")
    assert ttd.exact_mean_time_to_down.notna().all()
    assert (np.diff(ttd.mean_time_to_down) > 0).all()


def test_no_exact_time_to_down_column_where_the_engine_answers_at_no_point(duel: Any) -> None:
    """``quickstart`` is a fight in which both sides attack: the exact engine solves no
    time-to-down there, and the sweep's combatants had a column of NaN at every point.
    It has none, as the terminal's and the page's tables have none; nor has a sweep with
    ``exact=False``."""
    quickstart = simlab.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    fight = simlab.sweep(quickstart, {"Kaito.hp": [24, 60]}, n=300)
    assert fight.attacks().exact_hit_rate.notna().all()  # the engine answers the pairs
    assert "exact_mean_time_to_down" not in fight.combatants()
    assert list(fight.combatants().columns[-1:]) == ["median_time_to_down_ci_kind"]
    unasked = simlab.sweep(duel, {"Defender.guard": [1, 2]}, n=300, exact=False)
    assert "exact_mean_time_to_down" not in unasked.combatants()
    solved = simlab.sweep(duel, {"Defender.guard": [1, 2]}, n=300)
    assert solved.combatants().exact_mean_time_to_down.notna().any()
    header, rows = _combatant_rows(fight)  # the page's table: no exact column either
    assert rows and not any(h.startswith("exact") for h in header), header
    shown = CliRunner().invoke(main, ["sweep", str(ROOT / "scenarios/shattered-spirits/"
                                      "quickstart.yaml"), "--vary", "Kaito.hp=24,60",
                                      "-n", "300"])  # fmt: skip
    assert shown.exit_code == 0, shown.output
    table = shown.output.split("time-to-down (rounds")[1].split("Every point ran")[0]
    assert "combatant" in table and "exact" not in table, shown.output


def test_the_exact_mean_time_to_down_is_read_as_the_simulated_one(duel: Any) -> None:
    """With a round cap of 9 the Defender of ``ss-duel`` goes down in 42% of the
    encounters, around round 8, and 10.2 rounds in on average without the cap. The
    simulated mean counts the encounters downed by the cap; so does the exact column
    beside it, as ``run --check`` and ``tune`` do (it gave the mean without the cap)."""
    capped = duel.with_({"max_rounds": 9})
    sw = simlab.sweep(capped, {"Defender.guard": [1]}, n=20_000)
    row = sw.combatants().set_index("combatant").loc["Defender"]
    pmf = simlab.exact(capped).duel.pmf
    by_the_cap = sum(r * p for r, p in enumerate(pmf)) / sum(pmf)
    assert row.exact_mean_time_to_down == pytest.approx(by_the_cap, rel=1e-12)
    # the simulated mean, over the encounters downed by the cap, within K_SIGMA of its
    # standard error from the exact variance (not within its own 95% interval: that
    # misses the exact answer at one seed in twenty)
    var = sum(r * r * p for r, p in enumerate(pmf)) / sum(pmf) - by_the_cap**2
    downs = round(row.down_rate * 20_000)
    assert abs(row.mean_time_to_down - by_the_cap) <= K_SIGMA * np.sqrt(var / downs)


@pytest.mark.slow  # draws sweep pages
def test_sweep_page_gives_the_win_rates_and_says_a_median_is_not_reached(
    tmp_path: Path, fight: Any
) -> None:
    """The page's outcome part has the win and draw rates of every point as a table, as
    the terminal and the Parquet ``sides`` table do (it had only their picture); a median
    time-to-down fewer than half of the encounters reach reads "not reached", as in the
    report, where "—" beside it also stands for "no exact answer"."""
    sw = simlab.sweep(fight, {"Kaito.hp": [18, 22]}, n=3000, exact=False)
    simlab.write_sweep(sw, tmp_path)
    page = (tmp_path / "sweep.md").read_text()
    for point in sw.points:
        hp, winner = point.set["Kaito.hp"], point.result.tallies.winner
        for side, wins in zip([*point.result.layout.sides, "draw"], winner, strict=True):
            row = re.search(rf"^\| {hp} \| {side} \| {wins:,} \| ([\d.]+) \[([\d.]+), "
                            rf"([\d.]+)\] \|$", page, re.M)  # fmt: skip
            assert row, f"no win rate of {side} at Kaito.hp={hp}"
            rate = wins / point.result.encounters
            assert float(row[2]) <= rate <= float(row[3])
            shown = 0.5 * 10 ** -len(row[1].partition(".")[2])  # to its decimals
            assert float(row[1]) == pytest.approx(rate, abs=shown * (1 + 1e-9))
    never_half = point.result.tallies.down_round[2].sum() < point.result.encounters / 2
    assert never_half and re.search(r"^\| 22 \| Brute 1 \|.*\| not reached \|$", page, re.M)
    # The median plot has no height for it: it marks it in a row above, and its caption
    # says what the mark means, where the line stopped short with nothing to say why.
    html = (tmp_path / "sweep.html").read_text()
    caption = re.search(
        r"<figcaption>Median time-to-down: ([^<]*)</figcaption>", html.replace("&#39;", "'")
    )
    assert caption and caption[1].startswith(
        "In the grey row above the plot, “not reached by round 30”, a line's marker where"
    )
    assert re.search(r"Brute 1 \((at every point|1 of 2 points)\)", caption[1]), caption[1]


def test_cli_sweep_point_is_cli_run_with_set(tmp_path: Path) -> None:
    """The bar: the Guard 1 point of `simlab sweep` is `simlab run --set Defender.guard=1`."""
    cli = CliRunner()
    swept = cli.invoke(main, ["sweep", str(SS_DUEL), "--vary", "Defender.guard=0:4",
                              "-n", "20000", "--out", str(tmp_path / "sw")])  # fmt: skip
    assert swept.exit_code == 0, swept.output
    ran = cli.invoke(main, ["run", str(SS_DUEL), "--set", "Defender.guard=1", "-n", "20000",
                            "--out", str(tmp_path / "run")])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    doc = json.loads((tmp_path / "sw/sweep.json").read_text())
    assert doc["vary"] == [{"field": "Defender.guard", "values": [0, 1, 2, 3, 4]}]
    assert (doc["seed"], doc["encounters"]) == (1, 20000)
    point = next(p for p in doc["points"] if p["set"] == {"Defender.guard": 1})
    summary = json.loads((tmp_path / "run/summary.json").read_text())
    run_identity = summary.pop("run")  # the run's identity, stamped on the output unit
    assert {k: v for k, v in point.items() if k not in ("set", "exact")} == summary
    assert run_identity["scenarios"][0]["seed"] == doc["seed"]
    assert point["exact"]["attacks"][0]["mean_damage"] == pytest.approx(113 / 36)


@pytest.mark.slow  # draws sweep pages
def test_sweep_files(tmp_path: Path, duel: Any) -> None:
    sw = simlab.sweep(duel, {"Defender.guard": [0, 2]}, n=5000)
    written = simlab.write_sweep(sw, tmp_path)
    for name in ("sweep.json", "sweep.html", "sweep.md", "attacks.parquet",
                 "combatants.parquet", "sides.parquet", "damage_pmf.parquet"):  # fmt: skip
        assert (tmp_path / name).is_file(), name
    attacks = pd.read_parquet(tmp_path / "attacks.parquet")
    assert list(attacks.columns[:4]) == ["Defender.guard", "attacker", "attack", "defender"]
    assert list(attacks["Defender.guard"]) == [0, 2]
    html = (tmp_path / "sweep.html").read_text()
    assert "Damage curves" in html and "data:image/png;base64," in html
    # self-contained: no link out (looked for outside the pictures, whose base64 may
    # spell anything)
    assert "http" not in re.sub(r"data:image/[^\"']+", "", html)
    md = (tmp_path / "sweep.md").read_text()
    assert "png/damage-" in md
    assert all(p.exists() for p in written.values())
    assert "<details>" not in html  # two points: every table short enough to show
    # The exact hit rate the damage curves draw dashed has its column, as the mean has.
    header = next(line for line in md.splitlines() if line.startswith("| Defender.guard"))
    assert "| exact hit rate | exact mean damage (HP) |" in header
    # The duel's strike has no crit row: no crit panel, and so neither a crit rate in
    # the note on the curves (it listed one) nor columns of 0s in their table.
    note = next(line for line in md.splitlines() if line.endswith("common random numbers)."))
    assert note.startswith("Hit rate and mean damage (misses 0) of each attack"), note
    assert "crit" not in header
    exact = sw.attacks().exact_hit_rate.iloc[0]
    assert f"| {exact:.4f} |" in md
    # The report's stylesheet: figures on one line, a wide table scrolling in its box
    # (the page wrapped '0.543 [0.538,' over '0.548]', as it had no such rules).
    assert "td.num { white-space: nowrap; }" in html
    assert "div.scroll { overflow-x: auto;" in html and '<div class="scroll"><table>' in html
    assert "&gt;" not in html.split("</style>")[0]


@pytest.mark.slow  # draws sweep pages
def test_a_long_sweep_table_under_its_pictures_is_folded(
    tmp_path: Path, duel: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At many points the table of every figure runs to hundreds of rows: under the
    pictures that draw its figures it is folded away (the next section's pictures were
    buried under it); the page says how many rows it holds. (The fold's length lowered
    to 3 rows here, so that four points show it.)"""
    from simlab.report import tuning

    monkeypatch.setattr(tuning, "FOLDED_ROWS", 3)
    points = list(range(4))
    simlab.write_sweep(simlab.sweep(duel, {"Defender.guard": points}, n=500), tmp_path)
    html = (tmp_path / "sweep.html").read_text()
    damage, rest = html.split("<h2>Time-to-down</h2>")
    assert (
        f"<details><summary>the table: every figure at every point ({len(points)} rows)" in damage
    )
    assert "<details>" in rest.split("<h2>Outcome</h2>")[0]  # each combatant at every point


@pytest.mark.slow  # draws sweep pages
def test_sweep_page_of_a_system_without_crits_shows_no_crit_rate(tmp_path: Path) -> None:
    """zones-3d6 has no critical hits: the page's table, note and damage curves leave
    the crit rate out (it is 0 by the rules)."""
    plate = simlab.load(Path(__file__).resolve().parents[2] / "scenarios/zones-3d6/"
                        "longsword-vs-plate.yaml")  # fmt: skip
    sw = simlab.sweep(plate, {"Plate Knight.bonus_defense": [0, 2]}, n=4000)
    written = simlab.write_sweep(sw, tmp_path)
    page = (tmp_path / "sweep.md").read_text()
    assert "crit" not in page.lower()
    assert "Hit rate and mean damage (misses 0)" in page
    curves = [p for name, p in written.items() if name.startswith("damage-")]
    assert curves  # the Swordsman's longsword against the Knight moves
    from simlab.report.render import DPI

    width = matplotlib.image.imread(curves[0]).shape[1]
    assert width == pytest.approx(11.0 * 2 / 3 * DPI, abs=2)  # two panels, not three


@pytest.mark.slow  # draws sweep pages
def test_sweep_page_draws_the_pairs_the_sweep_moves(tmp_path: Path, duel: Any) -> None:
    """The Defender's Guard moves the attack's damage: drawn. The Attacker's HP changes
    nothing in a duel it is never hit in: named, not drawn, its figures in the table."""
    from simlab.tuning.sweep import moving_pairs

    moved = simlab.sweep(duel, {"Defender.guard": [0, 3]}, n=5000)
    still = simlab.sweep(duel, {"Attacker.hp": [10, 30]}, n=5000)
    pair = ["Attacker", "strike", "Defender"]
    moving, flat = moving_pairs(moved)
    assert moving.values.tolist() == [pair] and flat.empty
    moving, flat = moving_pairs(still)
    assert moving.empty and flat.values.tolist() == [pair]
    simlab.write_sweep(moved, tmp_path / "moved")
    simlab.write_sweep(still, tmp_path / "still")
    assert "png/damage-" in (tmp_path / "moved/sweep.md").read_text()
    md = (tmp_path / "still/sweep.md").read_text()
    assert "png/damage-" not in md
    assert "Not drawn, 1 of 1 pair:" in md and "Attacker strike → Defender" in md
    assert "| 30 | Attacker | strike | Defender |" in md  # the table keeps the pair


def test_moving_pairs_reads_intervals_and_exact_answers() -> None:
    """A pair moves when its intervals share no value or its exact answer changes."""
    from simlab.tuning.sweep import PAIR_FIGURES, split_moving

    def rows(pair: str, lo: list[float], hi: list[float], exact: list[float]) -> pd.DataFrame:
        frame = pd.DataFrame({"attacker": pair, "attack": "a", "defender": "d",
                              "exact_hit_rate": exact})  # fmt: skip
        for figure in ("hit_rate", "crit_rate", "mean_damage"):
            frame[f"{figure}_ci95_lo"], frame[f"{figure}_ci95_hi"] = lo, hi
        return frame

    attacks = pd.concat([rows("overlap", [0.1, 0.2], [0.3, 0.4], [0.2, 0.2]),
                         rows("apart", [0.1, 0.31], [0.3, 0.4], [0.2, 0.2]),
                         rows("touching", [0.1, 0.3], [0.3, 0.4], [0.2, 0.2]),
                         rows("exact", [0.1, 0.2], [0.3, 0.4], [0.2, 0.25]),
                         rows("one point", [0.1], [0.3], [0.2])])  # fmt: skip
    moving, flat = split_moving(attacks, list(PAIR_FIGURES), 0.95)
    assert moving.attacker.tolist() == ["apart", "exact", "one point"]  # one: shown in full
    assert flat.attacker.tolist() == ["overlap", "touching"]


def test_a_mean_damage_of_few_attacks_at_a_point_does_not_move_its_pair() -> None:
    """Two attacks dealing 4 each gave a mean damage of 4 in [4, 4], sharing no value
    with 3.6 [3.5, 3.8] at the other point: the pair was drawn as moved by a field that
    moved nothing (``ss-2v2``'s grid). From 30 attacks on, such intervals are compared."""
    from simlab.tuning.sweep import split_moving

    def rows(attempts: list[int]) -> pd.DataFrame:
        return pd.DataFrame({"attacker": f"{attempts}", "attack": "a", "defender": "d",
                             "attempts": attempts, "mean_damage_ci95_lo": [4.0, 3.5],
                             "mean_damage_ci95_hi": [4.0, 3.8]})  # fmt: skip

    attacks = pd.concat([rows([2, 500]), rows([30, 500])])
    moving, flat = split_moving(attacks, ["mean_damage"], 0.95)
    assert flat.attacker.tolist() == ["[2, 500]"] and moving.attacker.tolist() == ["[30, 500]"]


def test_plot_sweep_draws_and_returns_its_data(duel: Any) -> None:
    import matplotlib.pyplot as plt

    sw = simlab.sweep(duel, {"Defender.guard": range(0, 3)}, n=5000)
    fig, ax = plt.subplots()
    data = simlab.plot_sweep(sw, "mean_damage", ax=ax, defender="Defender")
    assert list(data["Defender.guard"]) == [0, 1, 2]
    assert {"mean_damage", "mean_damage_ci95_lo", "exact_mean_damage"} <= set(data.columns)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), data.mean_damage)
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), data.exact_mean_damage)
    plt.close(fig)


def test_round_axes_of_a_sweep_have_whole_rounds_and_every_swept_value_a_tick() -> None:
    """glitters' training duel downs the Dummy in round 6 whatever the Fighter's hp: the
    constant median was ticked 5.40, 5.55, … 6.60 rounds (the mean time-to-down too),
    and the x axis 12, 16, … 40, the first value swept (10) without a label. The median
    takes whole rounds; the mean, which takes fractions, is ticked at halves."""
    import matplotlib.pyplot as plt

    scn = simlab.load(ROOT / "scenarios/glitters-d20/training-duel.yaml")
    sw = simlab.sweep(scn, {"Fighter.hp": [10, 20, 30, 40]}, n=2000, seed=3)
    fig, axes = plt.subplots(1, 2)
    for ax, figure in zip(axes, ("median_time_to_down", "mean_time_to_down"), strict=True):
        simlab.plot_sweep(sw, figure, ax=ax)
    fig.canvas.draw()
    for ax in axes:
        low, high = ax.get_ylim()
        shown = [t for t in ax.get_yticks() if low <= t <= high]
        step = 1 if ax is axes[0] else 0.5
        assert len(shown) >= 2 and all(t / step == round(t / step) for t in shown), shown
        assert list(ax.get_xticks()) == [10, 20, 30, 40]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["10", "20", "30", "40"]
    plt.close(fig)


QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


def _where(mark: Any) -> Any:
    """Where the single point ``mark`` is drawn (display coordinates)."""
    return mark.get_transform().transform((mark.get_xdata()[0], mark.get_ydata()[0]))


def _not_reached_marks(ax: Any) -> list[Any]:
    """The single marks of a median sweep plot in the not-reached row above its top
    edge (its lines' own markers)."""
    from simlab.report.tuning import NOT_REACHED_GAP, NOT_REACHED_HEIGHT

    top, points = ax.transAxes.transform((0, 1))[1], ax.figure.dpi / 72
    row = (NOT_REACHED_GAP * points, (NOT_REACHED_GAP + NOT_REACHED_HEIGHT) * points)
    return [m for m in ax.get_lines() if len(m.get_xdata()) == 1
            and row[0] < _where(m)[1] - top < row[1]]  # fmt: skip


def test_a_median_not_reached_is_marked_on_the_sweep_plot_not_left_out() -> None:
    """The quickstart swept over Kaito's guard 0..4: Kaito goes down in fewer than half
    the encounters at guard 3 and 4, the Brute at 0..2. The median plot left those
    values out (the curves stopped, read as missing data, where the tables say "not
    reached"): each is now a mark on the top edge in its line's colour, named in the
    legend, so that every point of every line is drawn."""
    import matplotlib.pyplot as plt

    sw = simlab.sweep(simlab.load(QUICKSTART), {"Kaito.guard": range(0, 5)}, n=2000)
    fig, ax = plt.subplots()
    data = simlab.plot_sweep(sw, "median_time_to_down", ax=ax)
    missing = data[data.median_time_to_down.isna()]
    assert set(missing.combatant) == {"Kaito", "Brute"}, data  # the case this is about
    colour = {line.get_label(): line.get_color() for line in ax.get_lines()}
    marked = sorted((float(m.get_xdata()[0]), m.get_color()) for m in _not_reached_marks(ax))
    assert all(m.get_ydata()[0] == 1.0 for m in _not_reached_marks(ax))  # the row's middle
    assert marked == sorted((float(r["Kaito.guard"]), colour[r.combatant])
                            for _, r in missing.iterrows())  # fmt: skip
    drawn = sum(int(np.isfinite(line.get_ydata()).sum()) for line in ax.get_lines()
                if line.get_label() in ("Kaito", "Brute"))  # fmt: skip
    assert drawn + len(marked) == len(data)  # no point silently missing
    names = [text.get_text() for text in ax.get_legend().get_texts()]
    assert names == ["Kaito", "Brute"]  # the row above says what its marks are
    assert [t.get_text() for t in ax.texts] == ["not reached\nby round 30"]
    plt.close(fig)


def test_a_median_not_reached_is_marked_with_its_lines_marker() -> None:
    """Swept over two fields, the lines of one combatant share a colour and differ by
    their marker (Kaito at Brute.hp 20: circles; at 35: squares). A median not reached
    was a ▲ in the line's colour only, so the two Kaito lines' marks on the top edge read
    alike: each mark is its line's marker and colour, in the row above the plot."""
    import matplotlib.pyplot as plt

    scn = simlab.load(QUICKSTART)
    sw = simlab.sweep(scn, {"Kaito.guard": [0, 4], "Brute.hp": [20, 35]}, n=500)
    fig, ax = plt.subplots()
    data = simlab.plot_sweep(sw, "median_time_to_down", ax=ax)
    fig.canvas.draw()
    missing = data[data.median_time_to_down.isna()]
    style = {line.get_label(): (line.get_marker(), line.get_color()) for line in ax.get_lines()}
    wanted = sorted((float(r["Kaito.guard"]), *style[f"Brute.hp={r['Brute.hp']} · {r.combatant}"])
                    for _, r in missing.iterrows())  # fmt: skip
    assert len({(m, c) for _, m, c in wanted}) >= 3, wanted  # the case this is about
    marks = _not_reached_marks(ax)
    assert sorted((float(m.get_xdata()[0]), m.get_marker(), m.get_color()) for m in marks) == wanted
    plt.close(fig)


def test_a_median_interval_is_whole_rounds_and_an_end_not_reached_reaches_the_edge() -> None:
    """The median's 95% interval takes whole rounds: drawn as a band between the swept
    values it had sloped edges, as if it took fractional ones; it is an error bar at
    each value. An upper end not reached by the round cap (Kaito at 28 hp and guard 2,
    300 encounters: ``[13, not reached]``) was left out with its median; it is an arrow
    up to the top edge."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection

    scn = simlab.load(QUICKSTART).with_({"Kaito.guard": 2})
    sw = simlab.sweep(scn, {"Kaito.hp": [20, 24, 28]}, n=300)
    fig, ax = plt.subplots()
    data = simlab.plot_sweep(sw, "median_time_to_down", ax=ax)
    lo, hi = data.median_time_to_down_ci95_lo, data.median_time_to_down_ci95_hi
    open_ended = data[lo.notna() & hi.isna()]
    assert len(open_ended), data  # the case this is about
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]  # no band
    bars = [s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments()]
    assert sorted((s[0][0], s[0][1], s[1][1]) for s in bars) == sorted(
        (float(r["Kaito.hp"]), r.median_time_to_down_ci95_lo, r.median_time_to_down_ci95_hi)
        for _, r in data[lo.notna() & hi.notna()].iterrows())  # fmt: skip
    arrows = [(t.xyann, t.xy) for t in ax.texts if getattr(t, "arrow_patch", None)]
    assert sorted(arrows) == sorted(((float(r["Kaito.hp"]), r.median_time_to_down_ci95_lo),
                                     (float(r["Kaito.hp"]), 1.0))
                                    for _, r in open_ended.iterrows())  # fmt: skip
    plt.close(fig)


def test_a_median_sweep_plot_with_every_median_reached_has_no_marks() -> None:
    """Where every median is reached (Kaito at guard 0..2), nothing is on the top edge
    and the legend names the line only."""
    import matplotlib.pyplot as plt

    sw = simlab.sweep(simlab.load(QUICKSTART), {"Kaito.guard": range(0, 3)}, n=2000)
    fig, ax = plt.subplots()
    data = simlab.plot_sweep(sw, "median_time_to_down", ax=ax, combatant="Kaito")
    assert data.median_time_to_down.notna().all(), data
    assert not _not_reached_marks(ax) and not ax.texts
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), data.median_time_to_down)
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["Kaito"]
    plt.close(fig)


def test_plot_sweep_names_what_it_draws_and_only_that(duel: Any) -> None:
    """In ``ss-duel`` nobody attacks the Attacker: its mean time-to-down has no value at
    any point, so it gets no line and no legend entry (the legend listed it beside
    nothing). The Defender's one line is named by a legend too (a single line had none,
    so nothing said whose it was), its exact answer black where it is the only line."""
    import matplotlib.pyplot as plt

    sw = simlab.sweep(duel, {"Defender.guard": range(0, 3)}, n=5000)
    fig, ax = plt.subplots()
    simlab.plot_sweep(sw, "mean_time_to_down", ax=ax)
    names = [text.get_text() for text in ax.get_legend().get_texts()]
    assert names == ["Defender", "Defender (exact)"]
    assert ax.get_lines()[1].get_color() == "black"
    plt.close(fig)


def test_lines_that_coincide_are_drawn_once_and_named_together(duel: Any) -> None:
    """In ``ss-duel`` the defender, who does not fight back, never wins, and no duel
    reaches the round cap: its side's win rate and the draws are 0 at every point.
    Drawn one over the other, the first line hid under the second; they are one line,
    its legend naming both. (The defender's side, which makes no attack, is left out
    unless named, as on the sweep page.)"""
    import matplotlib.pyplot as plt

    sw = simlab.sweep(duel, {"Defender.guard": range(0, 3)}, n=2000)
    fig, ax = plt.subplots()
    data = simlab.plot_sweep(sw, "win_rate", ax=ax, side=["attacker", "defender", "draw"])
    zero = [side for side, rows in data.groupby("side") if (rows.win_rate == 0).all()]
    assert len(zero) == 2, data
    names = [text.get_text() for text in ax.get_legend().get_texts()]
    assert " = ".join(zero) in names, names
    drawn = [line for line in ax.get_lines() if "exact" not in line.get_label()]
    assert len(drawn) == data.side.nunique() - 1
    plt.close(fig)


def test_a_pair_that_cannot_crit_gets_no_crit_rate_panel() -> None:
    """A sweep's damage curve leaves out the crit-rate panel of a pair that cannot crit
    at any point (the quickstart's quick-jab has no crit row): an empty flat line. The
    stone-strike's keeps it, and rules without crits have none."""
    from simlab.tuning.sweep import PAIR, pair_figures

    sw = simlab.sweep(simlab.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml"),
                      {"Brute.hp": [28, 32]}, n=50, exact=False)  # fmt: skip
    rows = sw.attacks()
    jab, strike = (rows[rows.attack == name] for name in ("quick-jab", "stone-strike"))
    assert pair_figures(sw, jab) == ["hit_rate", "mean_damage"]
    assert pair_figures(sw, strike) == ["hit_rate", "crit_rate", "mean_damage"]
    assert pair_figures(sw, rows) == pair_figures(sw) == ["hit_rate", "crit_rate", "mean_damage"]
    assert [sw.can_crit(*pair) for pair in jab[PAIR].itertuples(index=False)] == [False, False]
    zones = simlab.sweep(simlab.load(ROOT / "scenarios/zones-3d6/training-duel.yaml"),
                         {"Pell.hp": [20, 21]}, n=20, exact=False)  # fmt: skip
    assert pair_figures(zones, zones.attacks()) == ["hit_rate", "mean_damage"]


def test_plot_sweep_names_what_a_mistyped_name_could_be(duel: Any) -> None:
    """``defender="Defnder"`` drew an empty plot and said nothing."""
    import matplotlib.pyplot as plt

    sw = simlab.sweep(duel, {"Defender.guard": range(0, 2)}, n=1000, exact=False)
    fig, ax = plt.subplots()
    with pytest.raises(InputError, match="expected defender= one of Defender; got 'Defnder'"):
        simlab.plot_sweep(sw, "mean_damage", ax=ax, defender="Defnder")
    with pytest.raises(InputError, match=r"expected side= one of .*draw; got 'nobody'"):
        simlab.plot_sweep(sw, "win_rate", ax=ax, side="nobody")
    assert ax.get_lines() == []
    plt.close(fig)


@pytest.mark.slow  # draws sweep pages
def test_sweep_pictures_keep_their_legends_beside_the_data(
    duel: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a second varied field, each damage-curve panel had its own legend inside it,
    six entries naming the pair again on every one ("strike.profile[9]=6 · Attacker ·
    strike · Defender (exact)"): they covered the curves, the y axis labels and the next
    panel. A picture has one legend beside its panels, naming what tells its lines apart
    (the second field's values), as the outcome curves have theirs beside the axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from simlab.report import tuning
    from simlab.tuning.sweep import moving_pairs

    drawn: list[Figure] = []

    def keep(draw: Any, size: tuple[float, float]) -> bytes:
        fig = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(fig)
        draw(fig)
        fig.canvas.draw()
        drawn.append(fig)
        return b""

    monkeypatch.setattr(tuning, "_png", keep)
    sw = simlab.sweep(duel, {"Defender.guard": [0, 1, 2], "strike.profile[9]": [6, 8]}, n=1000)
    tuning._sweep_pictures(sw, moving_pairs(sw)[0])
    damage = drawn[0]
    assert [ax.get_legend() for ax in damage.axes] == [None] * len(damage.axes)
    (legend,) = damage.legends
    names = [t.get_text() for t in legend.get_texts()]
    assert "strike.profile[9]=6" in names, names
    # the exact hit rate does not depend on profile[9]: one entry for both lines
    assert "every strike.profile[9] (exact)" in names, names
    assert not any("Attacker" in name for name in names), names
    # the simulated lines first, then the exact ones, each in its line's colour (two
    # black dashes could not be told apart), the one both lines share black
    exact = [name.endswith(" (exact)") for name in names]
    assert exact == sorted(exact), names
    colour = {name: h.get_color() for name, h in zip(names, legend.legend_handles, strict=True)}
    assert colour.pop("every strike.profile[9] (exact)") == "black", colour
    for name in colour:
        if name.endswith(" (exact)"):
            first = name.removesuffix(" (exact)").split(" = ")[0]
            assert colour[name] == colour[first], colour
    for fig in drawn:  # beside the panels, or under them where it is long
        box = (fig.legends or [fig.axes[0].get_legend()])[0].get_window_extent()
        assert all(box.x0 >= ax.get_window_extent().x1 or box.y1 <= ax.get_window_extent().y0
                   for ax in fig.axes), fig  # fmt: skip


@pytest.mark.parametrize(
    ("text", "values"),
    [("a.b=0:3", (0, 1, 2, 3)), ("a.b=5:5", (5,)), ("a.b=1,3,7", (1, 3, 7)),
     ("a.b=8:16:2", (8, 10, 12, 14, 16)), ("a.b=8:15:3", (8, 11, 14)), ("a.b=2:2:5", (2,)),
     ("a.b=1d6,2d6", ("1d6", "2d6")), ("a.b=[1, 2],[3]", ([1, 2], [3])),
     ("a.b={12: crit}", ({12: "crit"},)), ("a.b={}, {12: crit}", ({}, {12: "crit"}))],
)  # fmt: skip
def test_parse_vary(text: str, values: tuple[Any, ...]) -> None:
    assert parse_vary(text).values == values


@pytest.mark.parametrize(
    ("args", "named", "words"),
    [
        (["--vary", "Defender.guard=4:1"], "--vary Defender.guard=4:1", "LO ≤ HI"),
        (["--vary", "Defender.guard=0:x"], "--vary Defender.guard=0:x", "integers"),
        (["--vary", "Defender.guard"], "--vary Defender.guard", "NAME.FIELD=LO:HI"),
        (["--vary", "Defender.guard=0:4:0"], "--vary Defender.guard=0:4:0", "STEP of at least 1"),
        (["--vary", "Defender.guard=0:4:1:1"], "--vary Defender.guard=0:4:1:1", "LO:HI:STEP"),
        (["--vary", "Defender.guard=0:"], "--vary Defender.guard=0:", "LO:HI:STEP"),
        (["--vary", "Defender.guard=0,abc"], "--vary Defender.guard=0,abc", "expected an integer"),
        (["--vary", "Defender.guard=0,,2"], "--vary Defender.guard=0,,2",
         "expected a value between each pair of commas"),
        (["--vary", "Defender.guard=0,"], "--vary Defender.guard=0,",
         "expected a value between each pair of commas"),
        (["--vary", "Defender.gaurd=0:2"], "--vary Defender.gaurd=0:2", "unknown key 'gaurd'"),
        (["--vary", "Nobody.hp=1:2"], "--vary Nobody.hp=1:2", "expected a combatant"),
        (["--vary", "Defender.guard=0:2", "--set", "Defender.hp=x"], "--set Defender.hp=x",
         "expected an integer"),
        (["--vary", "Defender.guard=0:100000"], "--vary Defender.guard=0:100000",
         "expected at most 10,000 values; got 100,001"),
        (["--vary", "Defender.guard=0:18446744073709551615"], "--vary Defender.guard=0:1844",
         "expected at most 10,000 values; got 18,446,744,073,709,551,616"),
        (["--vary", "Defender.guard=0:1", "--vary", "Defender.guard=2:3"],
         "--vary Defender.guard=2:3", "--vary Defender.guard=0:1 changes it too"),
        (["--vary", "Defender.guard=0:2", "--set", "Defender.guard=1"],
         "--set Defender.guard=1", "varied by --vary too"),
        (["--vary", "Defender.guard=1,1"], "--vary Defender.guard=1,1",
         "expected each value once; got 1 twice"),
        (["--vary", "Defender.hp=20,30,20,20"], "--vary Defender.hp=20,30,20,20",
         "expected each value once; got 20 3 times"),
        # words no figure depends on: every point would play the same fight
        (["--vary", "description=x,y"], "--vary description=x,y", "words that change no figure"),
        (["--vary", "scenario=a,b"], "--vary scenario=a,b", "words that change no figure"),
        # 1.0 is no whole number, which is its slip, not that it is 1 again
        (["--vary", "Defender.guard=1,1.0"], "Defender.guard=1.0 from --vary Defender.guard=1,1.0",
         "expected an integer; got 1.0"),
        # the command line's values are YAML, and said so (a Python list's are not)
        (["--vary", "Defender.hp=5,true"], "Defender.hp=true from --vary Defender.hp=5,true",
         "expected an integer; got true"),
        (["--vary", "Defender.hp=1,true"], "Defender.hp=true from --vary Defender.hp=1,true",
         "expected an integer; got true"),
    ],
)  # fmt: skip
def test_bad_vary_exits_2_names_it_writes_nothing(
    tmp_path: Path, args: list[str], named: str, words: str
) -> None:
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["sweep", str(SS_DUEL), *args, "-n", "100", "--out", str(out)])
    assert done.exit_code == 2, done.output
    assert named in done.output and words in done.output
    assert "Traceback" not in done.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--vary", "Defender.guard=0-4"], "--vary Defender.guard=0-4: expected LO:HI (a colon "
         "between the ends); got '0-4' (did you mean Defender.guard=0:4?)"),
        (["--vary", "Defender.guard=0..4"], "--vary Defender.guard=0..4: expected LO:HI (a "
         "colon between the ends); got '0..4' (did you mean Defender.guard=0:4?)"),
        (["--vary", "Defender.hp=1:101", "--vary", "Defender.guard=0:99"],
         "expected a sweep of at most 10,000 points, the product of the values varied; got "
         "10,100: 101 (--vary Defender.hp=1:101) × 100 (--vary Defender.guard=0:99)"),
    ],
)  # fmt: skip
def test_a_range_slip_and_too_many_points_say_what_to_write(
    tmp_path: Path, args: list[str], said: str
) -> None:
    """``--vary Defender.guard=0-4`` said "Defender.guard=0-4 from --vary
    Defender.guard=0-4: expected an integer; got '0-4'", its argument twice and no way
    out; a sweep of too many points gave the product alone, naming no option."""
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["sweep", str(SS_DUEL), *args, "-n", "100", "--out", str(out)])
    assert done.exit_code == 2, done.output
    text = " ".join(done.output.split())
    assert text == said and not out.exists()
    if "0:4?" in said:  # tune reads its range alike
        tuned = CliRunner().invoke(main, ["tune", str(SS_DUEL), *args, "--target",
                                          "win_rate:attacker=0.5", "-n", "100"])  # fmt: skip
        assert tuned.exit_code == 2 and " ".join(tuned.output.split()) == said, tuned.output


@pytest.mark.slow  # draws sweep pages
def test_a_sweep_of_dice_and_lists_is_drawn_by_category(tmp_path: Path) -> None:
    """Values that are not numbers (a damage expression, a list of attacks) are one
    category each on the x axis, in the order given; a second varied field names its
    lines; the page is written (it failed on dividing dice by 1 for integer ticks)."""
    import matplotlib.pyplot as plt

    plate = simlab.load(Path(__file__).resolve().parents[2] / "scenarios/zones-3d6/"
                        "longsword-vs-plate.yaml")  # fmt: skip
    sw = simlab.sweep(plate, {"longsword.damage": ["1d6+3", "2d6+3"],
                              "Plate Knight.hp": [20, 30]}, n=2000)  # fmt: skip
    fig, ax = plt.subplots()
    simlab.plot_sweep(sw, "mean_damage", ax=ax, attacker="Swordsman")
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1d6+3", "2d6+3"]
    labels = [line.get_label() for line in ax.get_lines()]
    assert "Plate Knight.hp=20" in labels  # the one pair drawn is the picture's own
    plt.close(fig)
    written = simlab.write_sweep(sw, tmp_path)
    assert (tmp_path / "sweep.html").is_file() and any(k.startswith("damage-") for k in written)


def test_long_categories_are_ticked_apart() -> None:
    """Two whole profiles swept, ``[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]`` and ``[0, 0, 1, 2,
    3, 4, 5, 6, 7, 9, 12]``, were labelled as one run of text across both ticks: each
    label is broken at its spaces, clear of the next, every value still written."""
    import itertools

    import matplotlib.pyplot as plt

    profiles = [[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], [0, 0, 1, 2, 3, 4, 5, 6, 7, 9, 12]]
    sw = simlab.sweep(simlab.load(SS_DUEL), {"strike.profile": profiles}, n=200)
    fig, ax = plt.subplots(figsize=(3.5, 3))
    simlab.plot_sweep(sw, "hit_rate", ax=ax)
    fig.canvas.draw()
    labels = [(t.get_text(), t.get_window_extent()) for t in ax.get_xticklabels()]
    plt.close(fig)
    texts = [" ".join(text.split()) for text, _ in labels]
    assert texts == ["[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]", "[0, 0, 1, 2, 3, 4, 5, 6, 7, 9, 12]"]
    assert all("\n" in text for text, _ in labels), labels
    assert all(a.x1 < b.x0 for (_, a), (_, b) in itertools.pairwise(labels)), labels


@pytest.mark.slow  # a grid of sweeps, their files and curves: about 10 s
def test_grid_sweep_files_and_curves(tmp_path: Path, fight: Any) -> None:
    """A two-field grid: one line per value of the second field, in plots and files."""
    import matplotlib.pyplot as plt

    sw = simlab.sweep(fight, {"Brute.hp": [20, 30, 40], "Kaito.guard": [0, 2]}, n=2000)
    fig, ax = plt.subplots()
    data = simlab.plot_sweep(sw, "win_rate", ax=ax, side="party")
    assert len(ax.get_lines()) == 2  # Kaito.guard 0 and 2
    assert list(data.columns[:2]) == ["Brute.hp", "Kaito.guard"]
    plt.close(fig)
    simlab.write_sweep(sw, tmp_path)
    sides = pd.read_parquet(tmp_path / "sides.parquet")
    assert len(sides) == 6 * 3  # 6 points x (party, enemies, draw)
    doc = json.loads((tmp_path / "sweep.json").read_text())
    assert [p["set"] for p in doc["points"]][:2] == [
        {"Brute.hp": 20, "Kaito.guard": 0},
        {"Brute.hp": 20, "Kaito.guard": 2},
    ]
    assert doc["points"][0]["exact"] is not None  # pairs answered, time-to-down refused


def test_tables_are_made_once_and_handed_out_as_copies(
    duel: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep page asks for the attack table once per plot: it is made once, every
    caller gets a copy of its own, and replacing a point's result makes it again."""
    from simlab.tuning import sweep as sweep_module

    sw = simlab.sweep(duel, {"Defender.guard": [0, 2]}, n=2000)
    made = []
    making = sweep_module._attack_table
    monkeypatch.setattr(sweep_module, "_attack_table", lambda p: made.append(p) or making(p))
    first = sw.attacks()
    first.loc[:, "mean_damage"] = -1.0  # a caller's change stays its own
    second = sw.attacks()
    assert len(made) == 2  # one table per point, made once for both calls
    assert (second.mean_damage > 0).all()
    pd.testing.assert_frame_equal(second, sw._tidy("attacks", making))
    sw.points[1].result = simlab.simulate(duel.with_({"Defender.guard": 4}), 2000, duel.seed)
    third = sw.attacks()
    assert len(made) == 4  # made again from both points
    assert third.mean_damage.iloc[1] < second.mean_damage.iloc[1]  # guard 4 blocks more


def test_a_sweep_over_numpy_values_is_the_sweep_over_their_python_values(
    tmp_path: Path, duel: Any
) -> None:
    """A notebook sweeps over ``np.arange``: the same points and tallies as over a list,
    and its files written (``sweep.json`` takes no numpy number)."""
    as_numpy = simlab.sweep(duel, {"Defender.guard": np.arange(2)}, n=2000, exact=False)
    as_list = simlab.sweep(duel, {"Defender.guard": [0, 1]}, n=2000, exact=False)
    assert [p.set for p in as_numpy.points] == [p.set for p in as_list.points]
    assert all(type(p.set["Defender.guard"]) is int for p in as_numpy.points)
    for a, b in zip(as_numpy.points, as_list.points, strict=True):
        _tallies_equal(a.result, b.result)
    simlab.write_sweep(as_numpy, tmp_path)
    doc = json.loads((tmp_path / "sweep.json").read_text())
    assert [v["values"] for v in doc["vary"]] == [[0, 1]]


@pytest.mark.parametrize("values", [2, "12", {"a": 1}])
def test_a_vary_value_that_is_not_a_list_is_an_input_error(duel: Any, values: Any) -> None:
    with pytest.raises(simlab.api.InputError, match=r"vary Defender\.guard: expected a list or"):
        simlab.sweep(duel, {"Defender.guard": values}, n=100, exact=False)


@pytest.mark.parametrize(("values", "kind"), [({0, 1, 2}, "a set"),
                                              (frozenset({0, 1}), "a frozenset"),
                                              ({0: 1, 1: 2}.keys(), "a dict_keys")])  # fmt: skip
def test_a_set_of_vary_values_is_refused_as_unordered(duel: Any, values: Any, kind: str) -> None:
    """A set was taken, its points and plot categories in an order that changed from one
    session to the next (PYTHONHASHSEED), where an override's value refuses a set."""
    with pytest.raises(InputError) as err:
        simlab.sweep(duel, {"Defender.guard": values}, n=100, exact=False)
    assert str(err.value) == (
        "vary Defender.guard: expected a list or range of values, in the order to sweep "
        f"them; got {kind}, which has no order (pass a list, or sorted(...))"
    )


@pytest.mark.parametrize("vary", ["Defender.guard=0:1", ["Defender.guard=0,1"]])
def test_a_sweep_takes_vary_as_the_command_line_spells_it(duel: Any, vary: Any) -> None:
    """``simlab.tune`` takes ``"Defender.hp=5:60"``, so a notebook tries the same text
    in ``simlab.sweep``: it iterated over the text's characters and failed with an
    AttributeError deep inside."""
    spelled = simlab.sweep(duel, vary, n=1000, exact=False)
    mapped = simlab.sweep(duel, {"Defender.guard": [0, 1]}, n=1000, exact=False)
    assert [p.set for p in spelled.points] == [p.set for p in mapped.points]
    for a, b in zip(spelled.points, mapped.points, strict=True):
        _tallies_equal(a.result, b.result)


@pytest.mark.parametrize(
    ("vary", "message"),
    [(5, r"vary: expected a mapping of NAME\.FIELD to values, .*; got 5"),
     ([("Defender.guard", [0, 1])], r"vary: expected 'NAME\.FIELD=LO:HI' .*; got \("),
     ("Defender.guard", r"vary Defender\.guard: expected NAME\.FIELD=LO:HI")],
)  # fmt: skip
def test_a_vary_of_another_shape_is_an_input_error(duel: Any, vary: Any, message: str) -> None:
    with pytest.raises(simlab.api.InputError, match=message):
        simlab.sweep(duel, vary, n=100, exact=False)


@pytest.mark.parametrize(
    ("values", "got"), [([1, 1], "1 twice"), ([[0] * 11, [1] * 11, [0] * 11], "[0, 0")]
)
def test_a_value_given_twice_is_an_input_error(duel: Any, values: Any, got: str) -> None:
    """Its point ran twice, its rows alike in every table: a pivot on the field failed."""
    field = "Defender.guard" if values[0] == 1 else "strike.profile"
    with pytest.raises(simlab.api.InputError, match=rf"^vary {field}: expected each value "
                       rf"once; got {re.escape(got)}"):  # fmt: skip
        simlab.sweep(duel, {field: values}, n=100, exact=False)


@pytest.mark.parametrize("command", ["sweep", "tune"])
def test_an_invalid_point_is_named_with_its_values(command: str) -> None:
    """One value of a --vary makes a plan of the file cost too much: the problem names
    that value (and, in a grid, the other fields' values at the point), where it named
    only the whole --vary and left the designer to work out which point it was."""
    path = ROOT / "scenarios/shattered-spirits-draft1/techniques-3v3.yaml"
    args = (["--vary", "params.ap_per_round=3,1", "--vary", "Kaito.vigor=3,4"]
            if command == "sweep" else
            ["--vary", "params.ap_per_round=1:6", "--target", "win_rate:party=0.5"])  # fmt: skip
    done = CliRunner().invoke(main, [command, str(path), *args, "-n", "1000"])
    assert done.exit_code == 2, done.output
    first = " ".join(done.output.splitlines()[0].split())
    point = ("params.ap_per_round=1 from --vary params.ap_per_round=3,1, Kaito.vigor=3 from "
             "--vary Kaito.vigor=3,4" if command == "sweep" else
             "params.ap_per_round=1 from --vary params.ap_per_round=1:6")  # fmt: skip
    assert first.startswith(f"{path}:56:"), first
    assert first.endswith(f"expected a plan costing at most 1 AP; got 3 AP (quick-jab 1 + "
                          f"quick-jab 1 + quick-jab 1) (with {point})"), first  # fmt: skip


def test_an_invalid_value_of_a_python_sweep_is_named(duel: Any) -> None:
    with pytest.raises(simlab.api.InputError, match=r"^Defender\.guard=-1 from vary "
                       r"Defender\.guard: expected a number ≥ 0; got -1"):  # fmt: skip
        simlab.sweep(duel, {"Defender.guard": [0, -1]}, n=100, exact=False)


def test_a_huge_range_in_the_api_is_refused_before_it_is_made() -> None:
    """``range(10**20)`` is refused from its first values past the limit, not listed."""
    from simlab.errors import InputError

    duel = simlab.load(SS_DUEL)
    with pytest.raises(InputError, match="expected at most 10,000 values; got more"):
        simlab.sweep(duel, {"Defender.guard": range(10**20)}, n=100)


@pytest.mark.parametrize("field", ["seed", "encounters"])
def test_a_sweep_of_the_seed_or_the_count_is_refused(field: str) -> None:
    """Every point runs on the sweep's seed and count: varying them was ignored, under
    a column that said otherwise."""
    from simlab.errors import InputError

    duel = simlab.load(SS_DUEL)
    with pytest.raises(InputError, match=f"got one to '{field}', which a sweep keeps the same"):
        simlab.sweep(duel, {field: [100, 200]}, n=300)


def test_a_sweep_of_the_precision_exits_2_naming_the_option_to_use() -> None:
    """``--vary precision=…`` ran each point to its own precision: the points stopped at
    different counts and drew the same figures with narrower or wider bands, which no
    balance question asks. It is refused like a varied seed or count, naming
    ``--precision``, which runs every point to one precision."""
    from click.testing import CliRunner

    from simlab.cli import main

    done = CliRunner().invoke(main, ["sweep", str(SS_DUEL), "--vary", "precision=0.01,0.001",
                                     "-n", "2000"])  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "--vary precision=0.01,0.001: expected a change to the fight; got one to " \
           "'precision'" in done.output  # fmt: skip
    assert "--precision H" in done.output and "Traceback" not in done.output


def test_sweep_lines_of_several_subjects_and_fields_are_told_apart(fight: Any) -> None:
    """Every combatant at two values of a second field: sixteen lines took the ten
    colours in turn, so two lines shared one. Each combatant keeps one colour and each
    value of the second field a line style and marker."""
    import matplotlib.pyplot as plt

    from simlab.report.tuning import plot_sweep

    sw = simlab.sweep(fight, {"Kaito.hp": [12, 24], "Brute.hp": [20, 40]}, n=500)
    fig, ax = plt.subplots()
    plot_sweep(sw, "mean_time_to_down", ax=ax)
    style = {line.get_label(): (line.get_color(), line.get_linestyle(), line.get_marker())
             for line in ax.get_lines()}  # fmt: skip
    plt.close(fig)
    names = [f"Brute.hp={v} · {who}" for v in (20, 40) for who in ("Kaito", "Mira")]
    assert set(names) <= set(style), style
    colour, dash, mark = (dict(zip(names, (s[i] for s in map(style.get, names)), strict=True))
                          for i in range(3))  # fmt: skip
    for who in ("Kaito", "Mira"):
        low, high = f"Brute.hp=20 · {who}", f"Brute.hp=40 · {who}"
        assert colour[low] == colour[high] and (dash[low], mark[low]) != (dash[high], mark[high])
    assert colour[names[0]] != colour[names[1]]


def test_a_line_the_same_at_every_value_of_a_grid_is_drawn_once(duel: Any) -> None:
    """A grid's draws, 0 at every point for every value of the further field, were drawn
    once per value, each hiding the others and each named in the legend; and a pair's
    exact answer, the same for every combination, got a legend entry per combination.
    Each is drawn once, named once (the defender's side, left out unless named, named)."""
    import matplotlib.pyplot as plt

    from simlab.report.tuning import plot_sweep

    sw = simlab.sweep(duel, {"Defender.guard": [0, 1], "strike.profile[9]": [6, 8]}, n=500)
    fig, ax = plt.subplots()
    plot_sweep(sw, "win_rate", ax=ax, side=["attacker", "defender", "draw"])
    labels = [line.get_label() for line in ax.get_lines()]
    plt.close(fig)
    assert labels == ["attacker (every strike.profile[9])",
                      "defender = draw (every strike.profile[9])"], labels  # fmt: skip
    fig, ax = plt.subplots()
    plot_sweep(sw, "hit_rate", ax=ax)
    exact = [line.get_label() for line in ax.get_lines() if line.get_label().endswith("(exact)")]
    plt.close(fig)
    assert len(exact) == 1, exact  # the hit rate does not depend on profile[9]


def test_a_line_left_out_moves_no_other_line_s_colour(fight: Any) -> None:
    """On a sweep page, the median plot drew Berserker and Raider 2 as one line, and the
    palette moved along by one for every later combatant: a colour named another
    combatant than on the page's other plots. Each line keeps its subject's colour."""
    import matplotlib.pyplot as plt

    from simlab.report.tuning import plot_sweep

    sw = simlab.sweep(fight, {"Kaito.hp": [12, 24]}, n=500)
    colours = []
    for figure in ("down_rate", "median_time_to_down", "mean_time_to_down"):
        fig, ax = plt.subplots()
        plot_sweep(sw, figure, ax=ax)
        colours.append({line.get_label().split(" = ")[-1]: line.get_color()
                        for line in ax.get_lines()})  # fmt: skip
        plt.close(fig)
    for name in colours[0]:
        seen = {c[name] for c in colours if name in c}
        assert len(seen) == 1, (name, colours)


PLATE = Path(__file__).resolve().parents[2] / "scenarios/zones-3d6/longsword-vs-plate.yaml"


def test_a_sweep_of_three_fields_keeps_its_plots_wide_and_its_lines_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three varied fields name each line with two of them and its subject: the legend
    beside the down-rate plot took 70% of the picture and left the curves a strip 120 px
    wide, and 4 combinations of the further fields shared 3 line styles, two of them told
    apart by their marker only. The legend goes under the plot, which keeps the
    picture's width; each combination is a style × marker of its own, the second field's
    value the line style and the third's the marker."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from simlab.report import tuning

    fields = {"Plate Knight.hp": [20, 25, 30], "Plate Knight.bonus_defense": [0, 1],
              "longsword.damage": ["1d8", "1d6+3"]}  # fmt: skip
    sw = simlab.sweep(simlab.load(PLATE), fields, n=2000, exact=False)
    fig = Figure(figsize=(7.0, 3.6), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    tuning._outcome_curve(fig, sw, "down_rate")
    fig.canvas.draw()
    (ax,) = fig.axes
    assert ax.get_window_extent().width >= 0.75 * fig.bbox.width
    assert ax.get_window_extent().height >= 2.0 * fig.dpi  # taller by the legend's height
    lines = {line.get_label(): line for line in ax.get_lines()}
    style = {name: (line.get_color(), line.get_linestyle(), line.get_marker())
             for name, line in lines.items()}  # fmt: skip
    assert len(style) == 8 and len(set(style.values())) == 8, style
    for name, (_, dash, mark) in style.items():
        defense, damage, _ = name.split(" · ")
        assert dash == style[f"{defense} · longsword.damage=1d8 · Swordsman"][1], style
        assert mark == style[f"Plate Knight.bonus_defense=0 · {damage} · Swordsman"][2], style
    dashes = {s[1] for s in style.values()}
    marks = {s[2] for s in style.values()}
    assert len(dashes) == 2 and len(marks) == 2


def test_a_sweep_run_to_a_precision_says_where_each_point_stopped() -> None:
    """Run to a precision, each point stops on its own, and the header's range
    (``1,250–2,500 encounters per point``) did not say which point stopped where:
    ``encounters_per_point()`` gives each point's count, the one a run of that point
    alone to the same precision stops at, and the repr points to it."""
    quickstart = simlab.load(QUICKSTART)
    swept = simlab.sweep(quickstart, "Brute.hp=20:40:20", n=20_000, precision=0.02, seed=3)
    table = swept.encounters_per_point()
    for row in table.itertuples(index=False):
        alone = simlab.simulate(quickstart.with_({"Brute.hp": row[0]}), n=20_000,
                                precision=0.02, seed=3)  # fmt: skip
        assert row.encounters == alone.encounters
        assert row.precision_met == alone.meta["precision"]["met"] != row.cap_reached
    assert table.encounters.nunique() > 1  # the points did stop apart
    assert ".encounters_per_point()" in repr(swept)
    plain = simlab.sweep(quickstart, "Brute.hp=20:40:20", n=300)
    assert plain.encounters_per_point().encounters.tolist() == [300, 300]
    assert plain.encounters_per_point().precision_met.isna().all()


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ([5, True], "Defender.hp=True from vary Defender.hp: expected an integer; got True"),
        ([5, False], "Defender.hp=False from vary Defender.hp: expected an integer; got False"),
        ([5, None], "Defender.hp=None from vary Defender.hp: expected an integer; got None"),
        ([1, True], "Defender.hp=True from vary Defender.hp: expected an integer; got True"),
        # a value invalid in itself is said so first, not as given twice
        ([True, 5, True], "Defender.hp=True from vary Defender.hp: expected an integer; got True"),
    ],
)
def test_a_swept_python_value_is_said_as_the_caller_wrote_it(
    duel: Any, values: list[Any], words: str
) -> None:
    """``sweep(scn, {"Defender.hp": [5, True]})`` said "got true", YAML's spelling, to a
    caller who wrote Python's ``True``, as ``with_`` once did; and ``[1, True]`` was
    refused as one value given twice (Python finds them equal; a file does not)."""
    with pytest.raises(InputError) as refused:
        simlab.sweep(duel, {"Defender.hp": values}, n=100)
    assert str(refused.value) == words


def test_a_point_shows_its_change_and_run_not_the_exact_summary(duel: Any) -> None:
    """A point left at the end of a notebook cell printed the exact engine's whole
    summary, every damage distribution of every pair, several screens of a dict."""
    point = simlab.sweep(duel, {"Defender.guard": [1, 2]}, n=10).points[1]
    assert point.exact is not None and "damage_pmf" in str(point.exact)
    shown = repr(point)
    assert "'damage_pmf':" not in shown and "\n" not in shown
    assert shown.startswith("SweepPoint(set={'Defender.guard': 2}, scenario=<Scenario ss-duel")
    assert "result=<Result ss-duel" in shown and shown.endswith("exact=<summary dict>)")


def test_values_written_as_vary_text_say_how_the_text_goes(duel: Any) -> None:
    """``{"Defender.guard": "0:4"}`` was refused as no list of values, saying nothing of
    the text ``sweep`` takes whole, ``"Defender.guard=0:4"``."""
    words = re.escape(
        "vary Defender.guard: expected a list or range of values; got '0:4' (as text, "
        "the whole goes as --vary spells it: 'Defender.guard=0:4')"
    )
    with pytest.raises(InputError, match=words):
        simlab.sweep(duel, {"Defender.guard": "0:4"}, n=10)
    assert simlab.sweep(duel, "Defender.guard=0:4", n=10).vary[0].values == (0, 1, 2, 3, 4)


def test_a_sweep_plot_takes_a_count_entrys_base_name_for_its_copies() -> None:
    """``combatant="Raider"`` (``count: 3``) designates the three raiders in the run's
    plots, but a sweep plot refused it and suggested ``'Raider 3'``."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    skirmish = simlab.load(ROOT / "scenarios/zones-3d6/skirmish.yaml")
    swept = simlab.sweep(skirmish, {"Warden.hp": [10, 14]}, n=200, exact=False)
    fig, ax = plt.subplots()
    drawn = simlab.plot_sweep(swept, "down_rate", ax=ax, combatant="Raider")
    assert list(dict.fromkeys(drawn.combatant)) == ["Raider 1", "Raider 2", "Raider 3"]
    pairs = simlab.plot_sweep(swept, "hit_rate", ax=ax, attacker="Raider", defender="Warden")
    assert set(pairs.attacker) == {"Raider 1", "Raider 2", "Raider 3"}
    with pytest.raises(InputError, match=re.escape("got 'Raidr'; did you mean 'Raider'")):
        simlab.plot_sweep(swept, "down_rate", ax=ax, combatant="Raidr")
    plt.close(fig)


def test_values_swept_out_of_order_are_drawn_in_order(duel: Any) -> None:
    """Guard values given as 3, 0, 4, 1 were joined in that order: a zigzag line back and
    forth across the axis, its band a tangle."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    swept = simlab.sweep(duel, {"Defender.guard": [3, 0, 4, 1]}, n=200)
    fig, ax = plt.subplots()
    drawn = simlab.plot_sweep(swept, "mean_damage", ax=ax)
    assert list(drawn["Defender.guard"]) == [3, 0, 4, 1]  # the rows, as the tables give them
    for line in ax.get_lines():
        assert list(line.get_xdata()) == [0, 1, 3, 4], line.get_label()
    plt.close(fig)
