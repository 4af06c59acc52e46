"""What the report's pages say about a scenario: the exact engine's line, the exact
column's mark, the combatant table's headers, copies, counts and the drift summary."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from simlab import api
from simlab.report import render
from simlab.report.results import ScenarioRun
from tests.report.report_html import words_unwrapped

# Slow tier (make test-slow): renders and reads back whole report pages.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# No pair solved (Spirits); every solved pair moved by the fight (Shaken: all but the crit
# rates of Techniques that cannot crit); copies pooled
# (Skeleton ×2); a duel whose exact answers are drawn, without copies.
SPIRITS = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"
DRAFT1_FIGHT = ROOT / "scenarios/benchmarks/shattered-spirits-draft1-fight.yaml"
SKELETONS = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


@pytest.fixture(scope="module")
def runs() -> list[ScenarioRun]:
    return [api.run_scenario(path, n=1500, seed=3)
            for path in (SPIRITS, DRAFT1_FIGHT, SKELETONS, QUICKSTART)]  # fmt: skip


@pytest.fixture(scope="module")
def pages(runs: list[ScenarioRun], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("pages")
    # The baseline is these runs' results file alone: drawing a first report for it
    # cost as much as the report the tests read.
    baseline = api.save_results(runs, out / "baseline.json")
    api.write_report(runs, out / "again", baseline=baseline)
    return {name: (out / "again" / name).read_text(encoding="utf-8")
            for name in ("report.html", "report.md")}  # fmt: skip


def _sections(page: str, marker: str) -> dict[str, str]:
    """Each scenario's part of a page, by scenario id (``marker``: how a section starts)."""
    parts = re.split(marker, page)
    return {m: text for m, text in zip(parts[1::2], parts[2::2], strict=True)}


def _html_sections(html: str) -> dict[str, str]:
    return _sections(html, r'<h2 id="[^"]*">(?:<span class="word">)?([^<]+)(?:</span>)? <small>')


def _exact_line(section: str) -> str:
    found = re.search(r"<th>exact engine</th><td>(.*?)</td>", section, re.S)
    assert found, section[:500]
    return found.group(1)


def test_the_exact_line_says_drawn_only_for_what_is_drawn(
    runs: list[ScenarioRun], pages: dict[str, str]
) -> None:
    """spirits-2v3 read "0 pairs solved exactly; drawn as open black diamonds on the
    plots"; draft1-fight, every solved pair moved away by the fight, said they were drawn
    too. Where nothing is drawn the line says so, and why. draft1-fight's fight moves
    the hit rate and damage of every pair, but not the crit rate of its Techniques
    without a critical row (0 whatever the fight does): those answers alone are drawn,
    on the hit-rate plot; were every figure moved, nothing would be."""
    html = _html_sections(pages["report.html"])
    spirits, draft1 = _exact_line(html["spirits-2v3"]), _exact_line(html["draft1-fight"])
    assert "drawn as" not in spirits and "nothing is drawn on the plots" in spirits, spirits
    assert spirits.startswith("no pair solved exactly (spirits:"), spirits
    assert "every one has figures a fight moves away from the answer" in draft1, draft1
    assert "drawn as open black diamonds on the hit-rate plot;" in draft1, draft1
    assert "damage plot" not in draft1, draft1
    run = next(r for r in runs if r.scenario == "draft1-fight")
    assert run.exact is not None
    every = dict.fromkeys(("hit_rate", "crit_rate", "mean_damage"), "a status")
    all_moved = [{**p, "caveats": every} for p in run.exact["attacks"]]
    note = str(render._exact_note(replace(run, exact={**run.exact, "attacks": all_moved}),
                                  render.ExactDrawn()))  # fmt: skip
    assert "every one has figures a fight moves away from the answer, so nothing is drawn" in note
    quickstart = _exact_line(html["quickstart"])
    assert "drawn as open black diamonds on 2 damage plots" in quickstart, quickstart


def test_a_code_span_is_code_on_both_pages(pages: dict[str, str]) -> None:
    """The HTML showed Markdown's backticks raw ("`simlab exact` says why") and report.md
    escaped them (\\`simlab exact\\`)."""
    html, md = pages["report.html"], pages["report.md"]
    assert "<code>simlab exact</code> says why" in html
    assert "`simlab exact`" not in html
    assert "`simlab exact` says why" in md and "\\`" not in md


def test_the_exact_column_has_one_mark_for_no_answer(pages: dict[str, str]) -> None:
    """The exact column showed "—" for a pair not solved and "— / — / —" for one whose
    every figure the fight moves; the line above explains "—" only."""
    for name, page in pages.items():
        assert "— / — / —" not in page and "— / —" not in page.replace("— / — ", ""), name
        assert "— in the exact column: no exact figure" in page, name
    draft1 = _sections(pages["report.md"], r"\n## ([^\n(]+) \(")["draft1-fight"]
    rows = [line for line in draft1.split("### Attacks")[1].split("###")[0].splitlines()
            if line.startswith("| ") and "attacker" not in line]  # fmt: skip
    # no figure, or only the crit rate of 0 of a Technique that cannot crit
    ends = ("| —", "| — / 0.0000 / —")
    assert rows and all(line.rstrip(" |").endswith(ends) for line in rows), rows
    assert any(line.rstrip(" |").endswith(ends[1]) for line in rows), rows


def test_event_columns_have_readable_headers(pages: dict[str, str]) -> None:
    """``momentum_spent rate`` and ``reinforcement rate`` were the tallies' raw names."""
    headers = {
        "report.html": re.findall(r"<th>([^<]*)</th>", pages["report.html"]),
        "report.md": [cell.strip() for line in pages["report.md"].splitlines()
                      if line.startswith("| combatant |") for cell in line.split("|")],
    }  # fmt: skip
    for name, found in headers.items():
        assert "momentum_spent rate" not in found and "reinforcement rate" not in found, name
        wanted = {"rate of spending Momentum [95%]", "arrival rate (reinforcement) [95%]"}
        assert wanted <= set(found), name


def test_every_table_scrolls_in_its_own_box(pages: dict[str, str]) -> None:
    """spirits-2v3's time-to-down table made the page 1342 px wide at a 1280 px window,
    its last column cut: a wide table scrolls within its box; its figures stay on one
    line."""
    html = pages["report.html"]
    spirits = _html_sections(html)["spirits-2v3"].split("<h3>Time-to-down</h3>")[1]
    assert re.match(r'<dl class="note">.*?</dl>\s*<div class="scroll"><table><tr><th>combatant',
                    spirits, re.S), spirits[:600]  # fmt: skip
    assert '<div class="scroll"><table class="toc">\n<tr>' in html
    assert "div.scroll { overflow-x: auto;" in html
    assert re.search(r'<td class="num">0 \[0, [\d.e-]+\]</td>', html)  # a rate of 0, one cell


def test_counts_copies_and_the_drift_summary_in_words(pages: dict[str, str]) -> None:
    html, md = pages["report.html"], pages["report.md"]
    assert "4 scenarios" in html and "scenario(s)" not in html
    # Nothing moved: no table of changed figures above, so no "other".
    assert re.search(r"\nAll \d+ figures not statistically different from the baseline\.\n", md), md
    assert "other figures" not in md
    sections = _html_sections(html)
    skeletons = sections["knight-vs-skeleton"].split("<h3>Damage</h3>")[1].split("<h3>")[0]
    assert "Copies of one entry are pooled (Skeleton ×2)" in skeletons
    for scenario in ("quickstart", "draft1-fight"):
        assert "Copies of one entry are pooled" not in sections[scenario], scenario
    # in the page's text; its pictures' base64 may spell anything
    assert "Ogre" not in re.sub(r"data:image/[^\"']+", "", html)


def _attack_rows(section: str) -> dict[tuple[str, ...], list[str]]:
    """An HTML section's attacks table: its cells by attacker, attack and defender."""
    table = words_unwrapped(section.split("<h3>Attacks</h3>")[1].split("</table>")[0])
    rows = [re.findall(r"<t[dh][^>]*>([^<]*)</t[dh]>", row) for row in table.split("<tr>")[1:]]
    header = rows[0]
    return {tuple(r[:3]): dict(zip(header, r, strict=True)) for r in rows[1:]}  # type: ignore[misc]


def test_a_pair_that_never_crits_reads_a_dash_with_the_terminals_note(
    pages: dict[str, str], tmp_path: Path
) -> None:
    """Kaito's quick-jab, which has no crit row, read ``0 [0, 0.003]`` beside its exact
    0 on both pages; the terminal says ``—`` and what it means under the table, and
    leaves the column out where no attack can crit."""
    from simlab.report.terminal import CANNOT_CRIT_COLUMN_NOTE, CANNOT_CRIT_NOTE

    no_row = CANNOT_CRIT_NOTE.format(why="its profile has no crit row")
    none_can = CANNOT_CRIT_COLUMN_NOTE.format(why="its profile has no crit row")

    rows = _attack_rows(_html_sections(pages["report.html"])["quickstart"])
    assert rows[("Kaito", "quick-jab", "Brute")]["crit rate [95%]"] == "—", rows
    assert rows[("Brute", "stone-strike", "Kaito")]["crit rate [95%]"].startswith("0.0"), rows
    md = _sections(pages["report.md"], r"\n## ([^\n(]+) \(")["quickstart"]
    assert no_row in _html_sections(pages["report.html"])["quickstart"]
    assert no_row in md
    assert "| Kaito | quick-jab | Brute | " in md and "| — |" in md.split("### Attacks")[1], md
    no_crits = QUICKSTART.read_text().replace("    tier: {11: crit, 12: crit}\n", "")
    run = api.run_scenario(api.loads(no_crits), n=300, seed=3)
    render.render_report([run], tmp_path, write_results=False)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "crit rate [95%]" not in html and none_can in html
    assert none_can in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_the_report_tables_say_the_units_of_their_figures(pages: dict[str, str]) -> None:
    """The attacks table's ``mean damage [95%]`` and the time-to-down table's ``median
    time-to-down [95%]`` gave an amount of nothing named, where the comparison in the
    terminal says ``mean damage (HP)`` and ``(rounds)``; a rate's name says what it is."""
    for name, page in pages.items():
        for header in ("mean damage (HP) [95%]", "median (rounds) [95%]",
                       "median if downed (rounds)", "mean if downed (rounds) [95%]",
                       "hit rate [95%]"):  # fmt: skip
            assert header in page, (name, header)
        assert "mean damage [95%]" not in page and "time-to-down [95%]" not in page, name
        assert "status damage (HP) [95%]" in page, name  # shattered-spirits'
        said = re.sub(r"</dt><dd>|\*\*: ", ": ", page.replace("<dt>", "").replace("- **", ""))
        assert "Status damage: the mean per encounter" in said, name  # the note's list of terms


def test_the_exact_line_names_the_diamonds_once(runs: list[ScenarioRun]) -> None:
    """duel-both-drafts' line read "drawn as open black diamonds on 1 damage plot and
    open black diamonds on the hit-rate plot"."""
    run = next(r for r in runs if r.scenario == "quickstart")
    both = str(render._exact_note(run, render.ExactDrawn(1, True)))
    assert "drawn as open black diamonds on 1 damage plot and the hit-rate plot;" in both, both
    assert both.count("open black diamonds") == 1, both
    every = str(render._exact_note(run, render.ExactDrawn(2, True, 1)))
    assert ("drawn as open black diamonds on 2 damage plots and the hit-rate plot, and a thin "
            "black dashed time-to-down curve;") in every, every  # fmt: skip
