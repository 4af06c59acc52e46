"""A report of combatants and attacks named in 34 to 37 characters: every plot holds its
names, with no warning printed and no legend over a title.

The hit-rate picture's pair names (``Kaito the Quick Duellist of the East ·
quick-jab-of-the-nimble-duellist-x → Brute the Mountain Giant of Stonehold``) left its
bars no room: constrained layout gave up with a ``UserWarning`` ("axes sizes collapsed
to zero") printed to the terminal, and the legend ran past the picture's edge. Beside a
damage picture's plots, the legend of such defenders ran over the picture's title.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure

from simlab import api
from simlab.report.render import render_report
from simlab.report.results import ScenarioRun

LONG = """\
scenario: long-names
rules: shattered-spirits
seed: 7
attacks:
  stone-strike-of-the-mountain-giant:
    profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]
    tier: {11: crit, 12: crit}
  quick-jab-of-the-nimble-duellist-x:
    profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]
sides:
  the-party-of-heroes-from-the-north:
    - {name: Kaito the Quick Duellist of the East, hp: 24, guard: 1, speed: 2,
       attacks: [quick-jab-of-the-nimble-duellist-x]}
    - {name: Aiko the Patient Swordswoman Senior, hp: 20, guard: 1, speed: 3,
       attacks: [quick-jab-of-the-nimble-duellist-x]}
  the-enemies-from-the-southern-hills:
    - {name: Brute the Mountain Giant of Stonehold, hp: 40, guard: 2, speed: 5,
       attacks: [stone-strike-of-the-mountain-giant]}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> ScenarioRun:
    path = tmp_path_factory.mktemp("long") / "long.yaml"
    path.write_text(LONG)
    return api.run_scenario(path, n=600, seed=3)


@dataclass
class Saved:
    """The figures the report saved, as saved, and the warnings drawing them gave."""

    figures: list[Figure]
    warned: list[str]


@pytest.fixture(scope="module")
def saved(run: ScenarioRun, tmp_path_factory: pytest.TempPathFactory) -> Saved:
    figures: list[Figure] = []
    savefig = Figure.savefig

    def keep(fig: Figure, *args: Any, **kwargs: Any) -> None:
        savefig(fig, *args, **kwargs)
        figures.append(fig)

    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        patch.setattr(Figure, "savefig", keep)
        render_report([run], tmp_path_factory.mktemp("report"), write_results=False)
    return Saved(figures, [str(w.message) for w in caught])


@pytest.fixture(scope="module")
def pictures(saved: Saved) -> list[Figure]:
    return saved.figures


def test_the_names_are_as_long_as_the_report_must_hold(run: ScenarioRun) -> None:
    names = [name for _, name in run.result.layout.combatants] + list(run.result.layout.attacks)
    assert all(34 <= len(name) <= 37 for name in names), names


@pytest.mark.slow  # draws a whole report's pictures
def test_every_picture_is_saved_without_a_warning(saved: Saved) -> None:
    # hit rates, a damage picture per attacker's attack, a survival picture per side, outcome
    assert len(saved.figures) == 1 + 3 + 2 + 1
    assert saved.warned == []


def _legends(fig: Figure) -> list[Any]:
    return [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]


def _titles(fig: Figure) -> list[Any]:
    titles = [ax.title for ax in fig.axes if ax.title.get_text()]
    suptitle = getattr(fig, "_suptitle", None)
    return titles + ([suptitle] if suptitle is not None and suptitle.get_text() else [])


def test_no_legend_covers_a_title(pictures: list[Figure]) -> None:
    renderer = pictures[0].canvas.get_renderer()
    covered = [
        (title.get_text(), [t.get_text() for t in legend.get_texts()])
        for fig in pictures
        for legend in _legends(fig)
        for title in _titles(fig)
        if legend.get_window_extent(renderer).overlaps(title.get_window_extent(renderer))
    ]
    assert covered == []


def test_every_legend_and_pair_name_lies_within_its_picture(pictures: list[Figure]) -> None:
    outside = []
    pair_names = pictures[0].axes[0].get_yticklabels()  # the hit-rate picture's
    for fig in pictures:
        renderer, whole = fig.canvas.get_renderer(), fig.bbox
        for text in [*_legends(fig), *(pair_names if fig is pictures[0] else [])]:
            box = text.get_window_extent(renderer)
            if box.x0 < 0 or box.y0 < 0 or box.x1 > whole.width or box.y1 > whole.height:
                outside.append(getattr(text, "get_text", lambda: "a legend")())
    assert outside == []


def test_the_hit_rate_bars_keep_their_room(pictures: list[Figure]) -> None:
    """The pair names are broken between their parts, and the bars take most of the
    picture's width (they had collapsed to nothing)."""
    (ax,) = pictures[0].axes
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names[0] == (
        "Kaito the Quick Duellist of the East ·\nquick-jab-of-the-nimble-duellist-x →\n"
        "Brute the Mountain Giant of Stonehold"
    )
    assert ax.get_window_extent().width > 0.5 * pictures[0].bbox.width
