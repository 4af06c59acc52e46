"""The words of a report page and ``report.md`` where the gate has compared a run with its
baseline: a moved distribution says "distribution" once, a figure of the whole encounter
has a subject in the drift table, the time-to-down note is a list of terms, and an
event's column is named from the gate's one table of figure names."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import numpy as np
import pytest

from simlab.analysis import drift
from simlab.analysis.drift import compare_results
from simlab.report import render
from simlab.report.results import ScenarioRun
from tests.report.report_synthetic import ROUNDS, Truth, synthetic_result

N = 3000
#: More damage per attack than the baseline's, and longer encounters.
MORE_DAMAGE = [0.2, 0.0, 0.1, 0.2, 0.2, 0.2, 0.05, 0.05]
LONGER = np.linspace(1, 3, ROUNDS)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A run whose damage and encounter length moved, rendered against its baseline."""
    rng = np.random.default_rng(1)
    base = synthetic_result(Truth(), N, rng)
    cur = synthetic_result(Truth(damage=MORE_DAMAGE), N, rng)
    cur.tallies.rounds[1:] = rng.multinomial(N, LONGER / LONGER.sum())
    base.rules = cur.rules = "shattered-spirits"  # a rule system the page knows
    report = compare_results([cur], [base])
    assert {"damage_pmf", "rounds_pmf", "mean_rounds"} <= set(report.drifted.figure)
    out = tmp_path_factory.mktemp("words")
    render.render_report([ScenarioRun(cur)], out, drift=report, baseline="base/results.json",
                         write_results=False)  # fmt: skip
    return {"html": (out / "report.html").read_text(encoding="utf-8"),
            "md": (out / "report.md").read_text(encoding="utf-8")}  # fmt: skip


def _drift_table(html: str) -> list[list[str]]:
    """The rows of the page's table of the figures compared, as cell texts."""
    table = html.split("Compared with the baseline")[1].split("</table>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    return [[re.sub("<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
            for r in rows]  # fmt: skip


def test_a_moved_distribution_says_distribution_once(pages: dict[str, str]) -> None:
    """The drift list read "damage distribution of …: distribution moved (…)"."""
    for said in (pages["html"], pages["md"]):
        text = said.replace("\u00a0", " ").replace("\u2011", "-")
        assert "damage distribution of A strike → B</span>: moved (total variation" in text or (
            "damage distribution of A strike → B: moved (total variation" in text
        ), text
        assert "encounter length</span>: moved (total variation" in text or (
            "encounter length: moved (total variation" in text
        )
        assert "distribution moved" not in text


def test_a_figure_of_the_whole_encounter_has_a_subject(pages: dict[str, str]) -> None:
    """The drift table's subject cell of encounter length and mean encounter length was
    empty on the page and in report.md, where every other row names its subject."""
    rows = _drift_table(pages["html"])
    subjects = {row[1]: row[2] for row in rows}
    assert subjects["encounter length"] == subjects["mean encounter length"] == "the encounter"
    assert all(row[2] for row in rows), rows
    md = [line.split(" | ") for line in pages["md"].splitlines() if line.startswith("| DRIFT |")]
    assert {cells[1]: cells[2] for cells in md}["encounter length"] == "the encounter"
    assert all(cells[2].strip() for cells in md), md


def test_the_time_to_down_note_is_a_list_of_terms(pages: dict[str, str]) -> None:
    """The note above the time-to-down table was one grey paragraph of six definitions:
    it is a list, each term with its meaning, on the page and in report.md."""
    html = pages["html"]
    after = html.split("<h3>Time-to-down</h3>")[1]
    assert after.startswith('<dl class="note">'), after[:200]
    terms = re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", unescape(after.split("</dl>")[0]))
    named = [term for term, _ in terms]
    assert named == ["Down rate", "Median", "Mean if downed", "Median if downed",
                     "Capped", "Curves"]  # fmt: skip
    assert all(len(meaning) > 20 and meaning.endswith(".") for _, meaning in terms), terms
    events = html.split("<h3>Events (share of encounters)</h3>")[1]  # the synthetic "out"
    assert re.match(r'<dl class="note"><dt>An event&#39;s rate</dt><dd>the share', events)
    md = pages["md"].split("### Time-to-down\n\n")[1].split("\n\n")[0].splitlines()
    assert md[0].startswith("- **Down rate**: the share of all encounters"), md
    assert [re.match(r"- \*\*(.*?)\*\*: ", line)[1] for line in md] == named  # type: ignore[index]
    md_events = pages["md"].split("### Events (share of encounters)\n\n")[1]
    assert md_events.startswith("- **An event's rate**: the share"), md_events[:200]


def test_an_events_column_is_named_by_the_gates_table(monkeypatch: Any) -> None:
    """The events table's header of an event's rate came from a table of its own
    beside the gate's (``drift.FIGURE_NAMES``): a name given there is the page's too."""
    res = synthetic_result(Truth(), 200, np.random.default_rng(2))
    res.rules = "shattered-spirits"
    monkeypatch.setitem(drift.FIGURE_NAMES, "out_rate", "rate of going out")
    ((header, _),) = render.event_tables(res)
    assert "rate of going out [95%]" in header, header
    monkeypatch.setitem(drift.FIGURE_NAMES, "momentum_spent_rate", "Momentum spending rate")
    assert render.event_header("momentum_spent") == "Momentum spending rate"
