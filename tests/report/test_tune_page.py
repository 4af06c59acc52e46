"""``simlab tune --out DIR`` writes a page, as sweep and compare do: the target, the value
found and the values consistent with it, a plot of the figure at every value tried with
its interval and the target's line, and the table of those values."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from click.testing import CliRunner

from simlab import api
from simlab.cli import main
from simlab.report import tuning
from tests.report.report_html import words_unwrapped

ROOT = Path(__file__).resolve().parents[2]
FIGHT = ROOT / "scenarios/benchmarks/ss-2v2.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"


def test_tune_out_writes_a_page_listed_in_the_manifest_and_the_wrote_line(
    tmp_path: Path,
) -> None:
    """``--out`` wrote ``tune.json`` only: a designer who solved for a value could not see
    it. Now ``tune.html``, ``tune.md`` and the plot's PNG too, each in the folder's
    manifest and counted in the closing ``wrote`` line."""
    out = tmp_path / "tune"
    done = CliRunner().invoke(main, [
        "tune", str(DUEL), "--vary", "Defender.hp=5:60",
        "--target", "median_time_to_down:Defender=5", "--out", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    listed = set(json.loads((out / ".simlab-run.json").read_text())["files"])
    assert {"tune.json", "tune.html", "tune.md", "png/tune.png"} <= listed, listed
    assert f"wrote {len(listed)} files to {out}" in " ".join(done.output.split())
    doc = json.loads((out / "tune.json").read_text())
    html = words_unwrapped((out / "tune.html").read_text(encoding="utf-8"))
    lo, hi = doc["consistent"]
    # the answer at a glance: the target, the value found, the values consistent with it
    answer = re.findall(r"<td[^>]*>([^<]*)</td>", html.split("<h2>")[1])
    assert answer[:2] == ["median_time_to_down:Defender=5", f"{doc['value']:g}"], answer
    assert answer[-1] == f"{lo:g}..{hi:g}", answer
    assert f"Defender.hp={doc['value']:g} gives median_time_to_down:Defender" in html
    assert html.count("<img") == 1 and 'src="data:image/png;base64,' in html
    values = re.findall(r"<tr><td[^>]*>([^<]*)</td>", html.split("<h2>")[2])
    assert [v.removesuffix(" ◀") for v in values] == [
        f"{e['set']['Defender.hp']:g}" for e in doc["evaluations"]], values  # fmt: skip
    assert f"{doc['value']:g} ◀" in values
    assert "](png/tune.png)" in (out / "tune.md").read_text(encoding="utf-8")


def test_the_tune_plot_draws_every_value_its_interval_and_the_target() -> None:
    """The plot: a point and its 95% error bar at each value tried, the target as a
    horizontal line at its value, the values consistent with it as a band over them."""
    found = api.tune(FIGHT, "Kaito.hp=5:60", "win_rate:party=0.5", n=400, seed=1)
    fig, ax = plt.subplots()
    tuning.plot_tune(found, ax=ax)
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "target 0.5" in names and "simulated [95%]" in names, names
    target = next(line for line in ax.get_lines() if line.get_label() == "target 0.5")
    assert set(target.get_ydata()) == {0.5}
    points = next(c for c in ax.containers if c.get_label() == "simulated [95%]")
    xs, ys = points.lines[0].get_data()
    assert list(xs) == [e.value for e in found.evaluations]
    assert np.allclose(ys, [e.figure for e in found.evaluations])
    bars = points.lines[2][0].get_segments()  # each bar from its interval's low to high end
    assert np.allclose([s[:, 1] for s in bars],
                       [[e.lo, e.hi] for e in found.evaluations])  # fmt: skip
    assert found.consistent is not None
    band = next(p for p in ax.patches if p.get_label() == "consistent with the target")
    left, right = band.get_x(), band.get_x() + band.get_width()
    assert left < found.consistent[0] <= found.consistent[1] < right
    assert ax.get_ylabel() == "party: win rate", ax.get_ylabel()
    plt.close(fig)


def test_the_tune_plot_rings_the_closest_value_where_the_target_is_not_reached() -> None:
    """A target outside what the range reaches: the ringed value is the closest end, not
    a value found for the target, and the legend says so."""
    found = api.tune(DUEL, "Defender.hp=5:8", "median_time_to_down:Defender=30", n=300,
                     seed=1, exact=False)  # fmt: skip
    assert not found.reachable
    fig, ax = plt.subplots()
    tuning.plot_tune(found, ax=ax)
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"closest: {found.value:g}" in names and not any("found" in n for n in names)
    plt.close(fig)


def _tune_cli(out: Path, vary: str, target: str) -> tuple[str, dict, str, str]:
    """Run ``simlab tune`` on the 2v2 fight at 5,000 encounters a value, writing ``out``:
    its terminal output, ``tune.json``, and the page's text in HTML and Markdown."""
    done = CliRunner().invoke(main, ["tune", str(FIGHT), "--vary", vary, "--target", target,
                                     "-n", "5000", "--out", str(out)])  # fmt: skip
    assert done.exit_code in (0, 1), done.output
    doc = json.loads((out / "tune.json").read_text())
    pages = [words_unwrapped((out / page).read_text(encoding="utf-8"))
             for page in ("tune.html", "tune.md")]  # fmt: skip
    return " ".join(done.output.split()), doc, *pages


def test_a_rate_of_0_that_leaves_the_target_out_is_written_bare(tmp_path: Path) -> None:
    """The party never wins with Kaito at 5 to 8 HP: its win rate, 0 with its one-sided
    interval, read ``0.0000 [0.0000, 0.0008]`` in the terminal, on the page and in the
    Markdown, where every other table writes a rate of 0 bare, ``0 (< 0.0008)``, and a
    page ``0 [0, 0.0008]``."""
    said, doc, html, markdown = _tune_cli(tmp_path, "Kaito.hp=5:8", "win_rate:party=0.9")
    assert doc["figure"] == 0 and not doc["reachable"], doc
    # the one-sided bound rounded up to the decimals that keep the target 0.9 out
    bound = f"{math.ceil(doc['figure_ci'][1] * 1e4) / 1e4:g}"
    assert f"win_rate:party is 0 (< {bound}) at every value" in said, said
    for page in (html, markdown):
        assert "0.0000" not in page
        assert f"win_rate:party is 0 [0, {bound}] at every value" in page
        assert (
            page.count(f"| 0 [0, {bound}] |" if page is markdown else f">0 [0, {bound}]<") == 5
        )  # the answer's row and 4 values tried


def test_the_page_gives_every_figure_with_its_bounds(tmp_path: Path) -> None:
    """Every page gives an interval as ``value [lo, hi]`` (README, "Output files"), and
    the tune page did so only where the interval left the target out: the value found
    read ``0.50 ± 0.02`` in its answer, its row and the table of values tried."""
    said, doc, html, markdown = _tune_cli(tmp_path, "Kaito.hp=40:46", "win_rate:party=0.5")
    assert doc["consistent"] is not None, doc
    assert "±" in said  # the terminal keeps its own form
    for page in (html, markdown):
        assert "±" not in page
        found = next(e for e in doc["evaluations"] if e["set"]["Kaito.hp"] == doc["value"])
        assert f"gives win_rate:party = {found['figure']:.2f} [" in page, page
