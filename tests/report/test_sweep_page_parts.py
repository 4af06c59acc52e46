"""The sweep page says what it shows: no heading of curves over a table alone, no dashed
exact line named where none is drawn, and the median plot's legend beside it as the
other plots have theirs."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlab import api
from simlab.report import render, tuning

# Slow tier (make test-slow): runs and draws sweep pages.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FIGHT = ROOT / "scenarios/benchmarks/ss-2v2.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"


@pytest.fixture(scope="module")
def fight_sweep() -> object:
    """A fight swept over Kaito's HP: HP moves no attack's damage (no curve is drawn),
    the exact engine solves no fight's time-to-down, and Brute 2 is not downed by half
    the encounters (its median is not reached)."""
    return api.sweep(FIGHT, {"Kaito.hp": [10, 40]}, n=300, seed=1)


@pytest.fixture(scope="module")
def fight_page(fight_sweep: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder ``fight_sweep``'s page is written to, once for the tests that read it."""
    folder = tmp_path_factory.mktemp("fight")
    tuning.render_sweep(fight_sweep, folder)  # type: ignore[arg-type]
    return folder


@pytest.fixture(scope="module")
def moved_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the page of a duel swept over its defender's guard, which moves its
    hits (curves are drawn) and every pair of which has many attacks."""
    folder = tmp_path_factory.mktemp("moved")
    tuning.render_sweep(api.sweep(DUEL, {"Defender.guard": [0, 2]}, n=200, seed=1), folder)
    return folder


def _sections(html: str) -> dict[str, str]:
    """Each ``<h2>`` heading of a page and what follows it up to the next."""
    parts = re.split(r"<h2>(.*?)</h2>", html)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_no_damage_curves_heading_where_no_curve_is_drawn(
    fight_page: Path, moved_page: Path
) -> None:
    """Every pair flat: the page still said "Damage curves", "with 95% bands; dashed: the
    exact answer", over a table alone."""
    sections = _sections((fight_page / "sweep.html").read_text(encoding="utf-8"))
    assert "Damage curves" not in sections and "Damage" in sections, list(sections)
    damage = sections["Damage"]
    assert "<img" not in damage and "no curve is drawn" in damage
    assert "dashed" not in damage and "bands" not in damage, damage[:600]
    assert "## Damage\n" in (fight_page / "sweep.md").read_text(encoding="utf-8")
    curves = _sections((moved_page / "sweep.html").read_text(encoding="utf-8"))
    assert "<img" in curves["Damage curves"] and "dashed" in curves["Damage curves"]


def test_a_fights_time_to_down_note_names_no_exact_line(fight_page: Path, moved_page: Path) -> None:
    """A fight's time-to-down note said "(dashed: the exact duel's …)": no exact line is
    drawn there; a duel's note still names it, drawn."""
    fight = _sections((fight_page / "sweep.html").read_text(encoding="utf-8"))
    assert "dashed" not in fight["Time-to-down"].split("<figure>")[0]
    pages = _sections((moved_page / "sweep.html").read_text(encoding="utf-8"))
    assert "dashed: the exact duel" in pages["Time-to-down"].split("<figure>")[0]


def test_the_median_plots_legend_is_beside_it_as_the_others_are(fight_sweep: object) -> None:
    """The median time-to-down plot's legend, with its ``not reached`` entry on one long
    line, went under the plot, where the down-rate and mean plots have theirs beside
    (``not reached`` is now the label of its row above the plot, not a legend entry)."""
    for figure in ("down_rate", "median_time_to_down"):
        with matplotlib.rc_context(render.FONT):  # type: ignore[arg-type]
            fig = Figure(figsize=(7.0, 3.6), dpi=render.DPI, layout="constrained")
            FigureCanvasAgg(fig)
            tuning._outcome_curve(fig, fight_sweep, figure)  # type: ignore[arg-type]
            fig.canvas.draw()
        (ax,) = fig.axes
        legend = ax.get_legend()
        assert not fig.legends and legend is not None, figure  # not moved under the plot
        names = " ".join(t.get_text() for t in legend.get_texts())
        beside = legend.get_window_extent().x0 >= ax.get_window_extent().x1
        assert beside, (figure, names)
        if figure == "median_time_to_down":
            assert any(t.get_text().startswith("not reached") for t in ax.texts), names


def test_the_page_says_which_unchanged_pairs_rest_on_too_few_attacks(
    tmp_path: Path, moved_page: Path
) -> None:
    """party-fight's Raider Chief reaches the Berserker on one attack at two of four
    points: the terminal says under its table of unchanged pairs that such a pair is not
    shown to be unchanged, and the page listed it among the pairs the sweep "did not
    move" without that word. The page says it in the terminal's words, in the Damage
    part; a sweep whose pairs all have many attacks says nothing of it."""
    from simlab.report.tuning_terminal import few_attacks, few_attacks_note

    fight = ROOT / "scenarios/opposed-tiers/party-fight.yaml"
    sweep = api.sweep(fight, ["Warden.hp=20,30", "Raider Chief.hp=10,14"], n=500)
    tuning.render_sweep(sweep, tmp_path)
    html = (tmp_path / "sweep.html").read_text(encoding="utf-8")
    damage = next(text for heading, text in _sections(html).items() if "Damage" in heading)
    said = " ".join(re.sub(r"<[^>]+>", " ", damage).replace("&gt;", ">").split())
    assert "Too few attacks to call unchanged (fewer than 30 at a point): " in said, said
    assert "Raider Chief: club → Berserker (1 attack at the fewest, at 2 of 4 points)" in said
    terminal = few_attacks_note(few_attacks(sweep), 4)
    assert " ".join(terminal.split()) in said
    assert "Too few attacks" in (tmp_path / "sweep.md").read_text(encoding="utf-8")

    assert "Too few attacks" not in (moved_page / "sweep.html").read_text(encoding="utf-8")
