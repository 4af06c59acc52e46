"""The report renders for a scenario of every rule system, self-contained; the plot API."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from tests.report.report_html import external_references

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import simlab
from simlab import api
from simlab.errors import InputError
from simlab.report.render import render_report
from simlab.report.results import ScenarioRun
from simlab.rules import RULE_SYSTEMS

# Slow tier (make test-slow): renders every rule system's report, pictures and all.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


def smallest_scenario(rules: str) -> Path:
    """The shortest scenario file of a rule system (every system must have one)."""
    found = sorted((ROOT / "scenarios" / rules).glob("*.yaml"), key=lambda p: p.stat().st_size)
    assert found, f"rule system {rules} has no scenario under scenarios/{rules}/"
    return found[0]


#: A report of one scenario: its run, the files written and their folder.
Drawn = tuple[ScenarioRun, dict[str, Path], Path]


@pytest.fixture(scope="module")
def smallest_report(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Drawn]:
    """The report of a rule system's :func:`smallest_scenario` (1,500 encounters of seed
    3), drawn the first time a test asks for it; a test reads its folder, never writes
    there."""
    drawn: dict[str, Drawn] = {}

    def report(rules: str) -> Drawn:
        if rules not in drawn:
            run = api.run_scenario(smallest_scenario(rules), n=1500, seed=3)
            out = tmp_path_factory.mktemp(rules)
            drawn[rules] = (run, render_report([run], out), out)
        return drawn[rules]

    return report


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_report_renders_for_every_rule_system(
    rules: str, smallest_report: Callable[[str], Drawn]
) -> None:
    run, written, folder = smallest_report(rules)
    assert run.rules == rules
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert external_references(html) == []
    images = re.findall(r"<img [^>]*src=\"([^\"]+)\"", html)
    pngs = sorted((folder / "png").glob("*.png"))
    # hit rates, one damage figure per attacker's attack, one survival per side, outcome
    assert len(images) == len(pngs) >= 3 + len(run.result.layout.sides) - 1
    assert all(src.startswith("data:image/png;base64,iVBOR") for src in images)
    for needle in (run.scenario, rules, f"{run.result.encounters:,}", "simlab version",
                   simlab.__version__, "seed"):  # fmt: skip
        assert needle in html
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((png/[^)]+)\)", markdown)
    assert sorted(links) == sorted(f"png/{p.name}" for p in pngs)
    assert "| attacker | attack | defender |" in markdown
    # A crit rate only where the rules have crits (zones-3d6 has none: a column of zeros),
    # and always where a pair crit in the run (one that cannot crit, a shattered-spirits
    # profile without a crit row, leaves it out where no pair can).
    crits = run.result.layout.crits
    shown = "crit rate [95%]" in markdown
    assert shown == ("crit rate [95%]" in html)
    assert shown if (run.result.hit_rates().crits > 0).any() else shown <= crits
    assert ("| exact hit / crit / mean |" if shown else "| exact hit / mean |") in markdown
    assert written["results"].exists()


def test_report_shows_specs_drift_and_exact_overlay(tmp_path: Path) -> None:
    run = api.run_scenario(QUICKSTART, n=3000)
    written, specs, drift = api.write_report([run], tmp_path / "a")
    assert drift is None and len(specs) == 3
    _, _, drift = api.write_report([run], tmp_path / "b", baseline=written["results"])
    assert drift is not None and drift.ok  # same numbers: nothing moved
    html = (tmp_path / "b/report.html").read_text(encoding="utf-8")
    assert "Balance specs" in html and "Compared with the baseline" in html
    assert "No figure drifted" in html
    assert "solved exactly" in html
    assert external_references(html) == []


def test_both_pages_write_a_median_past_the_cap_as_not_reached(
    skirmish_report: tuple[ScenarioRun, Path],
) -> None:
    """A median time-to-down fewer than half of the encounters reach by the round cap
    reads "not reached" in the contents as in the table below (the contents wrote "—",
    which there also means "no specs"), and both pages say what it means, in the words
    of the terminal's note."""
    from simlab.report.terminal import median_note

    run, drawn = skirmish_report  # zones-3d6's skirmish, 20,000 encounters
    median = run.result.combatants().set_index("combatant").median_time_to_down
    assert median.isna()["Warden"]
    for page in ("report.md", "report.html"):
        text = (drawn / page).read_text(encoding="utf-8")
        assert "Warden: not reached" in text, page
        assert "Warden: —" not in text and "&gt; " not in text, page
        # above the contents (which show no interval), and its meaning in the list of
        # terms above the table, by the intervals the table shows
        term = median_note(run.result.combatants()).removeprefix("Median: ")
        assert median_note(None) in text and text.count(term) == 1, page


def test_zones_3d6_pages_show_no_out_rate_that_repeats_the_down_rate(
    smallest_report: Callable[[str], Drawn],
) -> None:
    """zones-3d6's only event, ``out``, is the down itself: the report's combatant table
    (HTML and Markdown) had an ``out rate [95%]`` column beside the down rate, the same
    figure again, which the terminal had already left out. The pages leave it out too;
    results.json keeps the out rate, and a system whose events are its own
    (shattered-spirits' out and dead) keeps their columns."""
    import json

    from simlab.report.render import _combatant_rows, event_tables

    run, written, folder = smallest_report("zones-3d6")
    for page in ("report.md", "report.html"):
        text = (folder / page).read_text(encoding="utf-8")
        assert "down rate [95%]" in text, page
        assert "out rate" not in text, page
        assert "An event's rate" not in text, page  # the note of a column not shown
        assert "Events (share of encounters)" not in text, page  # nor a table of none
    header, rows = _combatant_rows(run.result)
    assert len(rows) == len(run.result.layout.combatants), rows  # a row for each
    assert all(len(row) == len(header) for row in rows), (header, rows)
    saved = json.loads(written["results"].read_text(encoding="utf-8"))["scenarios"][0]
    first = saved["combatants"][0]
    assert first["events"]["out"]["rate"] == first["down_rate"]
    quickstart = simlab.simulate(QUICKSTART, n=300, seed=6)
    _, _, spirits = smallest_report("shattered-spirits")
    assert "An event's rate" in (spirits / "report.md").read_text(encoding="utf-8")
    ((header, rows),) = event_tables(quickstart)
    assert {"out rate [95%]", "dead rate [95%]"} <= set(header)
    assert len(rows) == len(quickstart.layout.combatants), rows
    assert all(len(row) == len(header) for row in rows)


def test_html_check_catches_external_references() -> None:
    bad = [
        '<img src="https://example.org/a.png">',
        '<link rel="stylesheet" href="a.css">',
        "<style>@import 'x.css';</style>",
        '<script src="//cdn.example/x.js"></script>',
        '<a href="other.html">x</a>',
        '<div style="background: url(a.png)"></div>',
    ]
    for html in bad:
        assert external_references(html), html
    assert external_references('<a href="#top">top</a><img src="data:image/png;base64,iV">') == []


@pytest.fixture(scope="module")
def run() -> ScenarioRun:
    return api.run_scenario(QUICKSTART, n=4000)


def test_plot_damage_pmf_draws_on_ax_and_returns_what_it_drew(run: ScenarioRun) -> None:
    fig, ax = plt.subplots()
    data = simlab.plot_damage_pmf(run.result, "Brute", "stone-strike", "Kaito", ax=ax,
                                  exact=run.exact)  # fmt: skip
    sim = data[data.source == "simulated"]
    assert sim.probability.sum() == pytest.approx(1.0)
    assert sim["count"].sum() == sim.attempts.iloc[0]
    ex = data[data.source == "exact"]
    assert ex.probability.sum() == pytest.approx(1.0)
    assert len(ax.patches) == len(sim)  # one bar per whole damage value
    assert len(ax.lines) == 1  # the exact answer: markers only, no line under the bars
    # Damage neither answer can reach (5 and 9 on this profile) gets no diamond.
    assert (ex.probability == 0).any()
    assert list(ax.lines[0].get_ydata()) == pytest.approx(list(ex.probability[ex.probability > 0]))
    assert any("exact" in t.get_text() for t in ax.get_legend().get_texts())
    plt.close(fig)


def test_plot_damage_at_least_starts_at_one(run: ScenarioRun) -> None:
    fig, ax = plt.subplots()
    data = simlab.plots.plot_damage_at_least(run, "Kaito", "quick-jab", ax=ax)
    sim = data[data.source == "simulated"]
    assert sim.at_least.iloc[0] == pytest.approx(1.0)
    assert (sim.at_least.diff().dropna() <= 1e-12).all()
    assert (sim.at_least_ci95_lo <= sim.at_least + 1e-12).all()
    plt.close(fig)


def test_plot_time_to_down_and_rates(run: ScenarioRun) -> None:
    fig, axes = plt.subplots(1, 3)
    curve = simlab.plot_time_to_down(run, combatant="Kaito", ax=axes[0])
    assert set(curve.combatant) == {"Kaito"}
    assert (curve.down_by_round.diff().dropna() >= 0).all()
    assert axes[0].get_ylabel() == "P(downed by round r)"
    # "round r", and where the curves stop rising well before the cap, where and which cap
    assert axes[0].get_xlabel().replace("\u00a0", " ").startswith("round r")
    rates = simlab.plot_hit_rates(run, ax=axes[1])
    assert len(rates) == 2 and rates.exact_hit_rate.notna().all()
    # exact diamonds drawn whole at the axes' edges (a rate of 1 was half clipped)
    diamonds = [line for line in axes[1].get_lines() if line.get_marker() == "D"]
    assert diamonds and not any(line.get_clip_on() for line in diamonds)
    assert len(axes[1].patches) == 2 * len(rates)  # hit and crit bars: the quickstart has crits
    wins = simlab.plots.plot_win_rates(run, ax=axes[2])
    assert list(wins.side) == ["party", "enemies", "draw"]
    plt.close(fig)


def test_plot_refuses_an_attack_that_never_happened(run: ScenarioRun) -> None:
    """The message names the attacks there are, as the other plots name their choices."""
    made = run.result.damage_pmf()[["attacker", "attack"]].drop_duplicates()
    listed = ", ".join(f"{a} {k}" for a, k in made.itertuples(index=False))
    for draw, got in ((lambda: simlab.plot_damage_pmf(run, "Kaito", "stone-strike"),
                       "got 'Kaito' 'stone-strike', never made"),
                      (lambda: simlab.plot_damage_at_least(run, "Nobody", "quick-jab",
                                                           defender="Brute"),
                       "got 'Nobody' 'quick-jab' at Brute, never made")):  # fmt: skip
        with pytest.raises(InputError) as info:
            draw()
        assert str(info.value) == f"expected an attacker and attack that happened ({listed}); {got}"
    plt.close("all")


@pytest.mark.parametrize(
    ("draw", "words"),
    [
        (lambda run: simlab.plot_time_to_down(run, combatant="Kaitoo"),
         "expected combatant= one of Kaito, Brute; got 'Kaitoo'"),
        (lambda run: simlab.plot_time_to_down(run, combatant=["Kaito", "Brutte"]),
         "expected combatant= one of Kaito, Brute; got 'Brutte'"),
        (lambda run: simlab.plot_time_to_down(run, side="heroes"),
         "expected side= one of party, enemies; got 'heroes'"),
        (lambda run: simlab.plot_hit_rates(run, attacker="Kaitoo"),
         "expected attacker= one of Kaito, Brute; got 'Kaitoo'"),
        # the attack spelt right, the defender not: the defender is the one meant
        (lambda run: simlab.plot_damage_pmf(run, "Kaito", "quick-jab", defender="Brutte"),
         "expected a defender of Kaito quick-jab (Brute); got 'Brutte', never attacked; "
         "did you mean 'Brute'?"),
        # of the wrong type: named, where each was an AttributeError
        (lambda run: simlab.plot_damage_pmf(run, "Kaito", "quick-jab", exact=5),
         "expected an ExactResult (simlab.exact) or a dict (ExactResult.summary) for exact; "
         "got 5"),
        (lambda run: simlab.plot_damage_at_least(run, "Kaito", "quick-jab", exact=run.result),
         "for exact; got a Result"),
        (lambda run: simlab.plot_hit_rates(run, ax=5),
         "expected an Axes (matplotlib.pyplot.subplots) for ax; got 5"),
        (lambda run: simlab.plot_damage_pmf(run, "Kaito", "quick-jab", ax="left"),
         "for ax; got"),
    ],
)  # fmt: skip
def test_plot_names_the_choices_for_a_mistyped_name(
    run: ScenarioRun, draw: Any, words: str
) -> None:
    """A name in no row drew an empty plot and said nothing."""
    with pytest.raises(InputError, match=re.escape(words)):
        draw(run)
    plt.close("all")


def test_report_intervals_are_rounded_outwards() -> None:
    from simlab.report.terminal import value_and_bounds

    # a crit rate of 0 whose bound is 1.2e-06 must not read [0.000, 0.000]
    assert value_and_bounds(0.0, 0.0, 1.23e-6) == "0.000 [0.000, 0.001]"
    assert value_and_bounds(0.97183, 0.97125, 0.97241) == "0.972 [0.971, 0.973]"
    assert value_and_bounds(3.41, 3.397, 3.428, 2) == "3.41 [3.39, 3.43]"
    assert value_and_bounds(0.25, 0.25, 0.25) == "0.250 [0.250, 0.250]"
    assert value_and_bounds(float("nan"), float("nan"), float("nan")) == "— [—, —]"


def test_a_bound_beside_one_not_reached_is_still_rounded_outwards_and_signed() -> None:
    from simlab.report.terminal import bounds

    inf = float("inf")
    # a median time-to-down whose upper bound is never reached, and a signed difference
    assert bounds(2.0016, inf) == "[2.001, not reached]"
    assert bounds(1.2345, inf, 2) == "[1.23, not reached]"
    assert bounds(float("nan"), 0.0421, 2) == "[—, 0.05]"
    assert bounds(0.0101, float("nan"), 2, sign="+") == "[+0.01, —]"
    assert bounds(-0.0119, 0.0101, 2, sign="+") == "[-0.02, +0.02]"


WEIRD_NAMES = """\
scenario: "<b>Odd</b> *names*"
rules: glitters-d20
attacks:
  "great_axe": {damage: 1d8, type: slashing, bonus: 5}
  "<script>x</script>": {damage: 1d6, type: fire, bonus: 4}
sides:
  "heroes & <friends>":
    - {name: "Ann|Lee", hp: 20, dc: 8, attacks: [great_axe]}
    - {name: "_Bo_ `tick`", hp: 25, dc: 7, attacks: ["<script>x</script>"]}
  foes:
    - {name: "Ogre", hp: 30, dc: 6, attacks: [great_axe]}
"""


def test_markdown_report_shows_names_as_typed(tmp_path: Path) -> None:
    """Names with Markdown's markup in them read as typed once the page is rendered:
    ``<friends>`` was swallowed as an HTML tag, ``|`` split a table cell, ``*`` and
    ``_`` turned into emphasis."""
    from markdown_it import MarkdownIt

    path = tmp_path / "odd.yaml"
    path.write_text(WEIRD_NAMES, encoding="utf-8")
    render_report([api.run_scenario(path, n=500, seed=1)], tmp_path / "out")
    page = MarkdownIt("commonmark").enable("table").render(
        (tmp_path / "out/report.md").read_text(encoding="utf-8"))  # fmt: skip
    for name in ("&lt;b&gt;Odd&lt;/b&gt; *names*", "heroes &amp; &lt;friends&gt;", "Ann|Lee",
                 "_Bo_ `tick`", "&lt;script&gt;x&lt;/script&gt;", "great_axe"):  # fmt: skip
        assert name in page
    assert "<em>" not in page and "<code>tick" not in page and "<b>" not in page
    tables = re.findall(r"<table>.*?</table>", page, flags=re.S)
    assert len(tables) >= 3, page  # attacks, combatants, time-to-down at least
    for table in tables:
        widths = {
            row.count("<td>") + row.count("<th>")
            for row in re.findall(r"<tr>.*?</tr>", table, re.S)
        }
        assert len(widths) == 1  # every row as wide as the header: no cell split
    links = re.findall(r'<a href="(png/[^"]+)">', page)
    assert links, page
    assert sorted(links) == sorted(f"png/{p.name}" for p in (tmp_path / "out/png").glob("*.png"))


@pytest.mark.parametrize(("text", "escaped"), [
    ("great_axe", "great_axe"), ("_Bo_", "\\_Bo\\_"), ("a|b", "a\\|b"), ("<b>", "\\<b>"),
    ("0 (< 0.0002)", "0 (< 0.0002)"), ("2 * 3", "2 \\* 3"), ("`x`", "\\`x\\`"),
    ("a\\b", "a\\\\b"), ("two\nlines", "two lines"),
])  # fmt: skip
def test_md_text_escapes_only_markup(text: str, escaped: str) -> None:
    from simlab.report.render import md_text

    assert md_text(text) == escaped


@pytest.fixture(scope="module")
def glitters_duel() -> ScenarioRun:
    """A duel whose Attacker no one attacks, 2,000 encounters."""
    return api.run_scenario(ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml", n=2000)


def test_time_to_down_plot_names_its_median_line_and_a_combatant_never_downed(
    glitters_duel: ScenarioRun,
) -> None:
    """The dotted line at 0.5 was in no legend or caption; the plot of a combatant never
    downed was a flat line at 0 labelled "no curve rises after round 0". The line is
    named in the legend, and the never-downed plot says so in its title, legend and
    caption (the report's)."""
    from simlab.report import plots
    from simlab.report.render import time_to_down_caption

    duel = glitters_duel
    fig, (left, right) = plt.subplots(1, 2)
    plots.plot_time_to_down(duel, side="defender", ax=left)
    names = [t.get_text() for t in left.get_legend().get_texts()]
    assert names[-1] == "median: where a curve crosses 0.5"
    (dotted,) = [line for line in left.get_lines() if line.get_label() == names[-1]]
    assert list(dotted.get_ydata()) == [0.5, 0.5] and dotted.get_linestyle() == ":"
    drawn = plots.plot_time_to_down(duel, side="attacker", ax=right)
    assert plots.never_downed(drawn) == ["Attacker"]
    assert "Attacker never downed" in right.get_title().replace("\u00a0", " ")
    assert "rises" not in right.get_xlabel() and "median" not in str(
        right.get_legend_handles_labels()
    )
    assert [t.get_text() for t in right.get_legend().get_texts()] == ["Attacker (never downed)"]
    caption = time_to_down_caption("attacker", ["Attacker"], duel.result)
    assert caption.startswith("attacker: Attacker never downed in 2,000 encounters")
    assert "Dotted line at 0.5: the median" in time_to_down_caption("defender", [], duel.result)
    plt.close(fig)


def test_a_damage_plot_says_which_defender_takes_no_damage() -> None:
    """Ysolde's firebolt does the Imp no damage: its legend entry ``vs Imp (n=…)``
    pointed at a bar hidden against the axis and a curve under the others, and the
    caption said nothing. The caption names it."""
    from simlab.report import render

    party = api.run_scenario(ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml", n=2000)
    fig, ax = plt.subplots()
    drawn = simlab.plot_damage_pmf(party, "Ysolde", "firebolt", ax=ax)
    assert render.no_damage(drawn) == ["Imp"]
    plt.close(fig)
    pictures = render._pictures(party, render.ExactDrawn(), [])
    (firebolt,) = [p for p in pictures if p.title.startswith("Ysolde · firebolt")]
    assert "Imp takes no damage from firebolt (0 from every attack)" in firebolt.caption
    unharmed = [p for p in pictures if p.kind == "damage" and "takes no damage" in p.caption]
    assert unharmed == [firebolt]  # every other attack hurts every defender it is drawn on


def test_the_outcome_plot_has_a_caption_saying_what_a_draw_is(
    glitters_duel: ScenarioRun,
) -> None:
    """Every plot of the report had a caption saying what it draws but the outcome plot,
    captioned "outcome": what a draw counts (the round cap, or every side down) was said
    nowhere near it."""
    from simlab.report.render import ExactDrawn, _pictures

    duel = glitters_duel
    (outcome,) = [p for p in _pictures(duel, ExactDrawn(), []) if p.kind == "outcome"]
    assert outcome.caption.startswith("Bars: the share of encounters each side won")
    assert "round cap, round 100" in outcome.caption
