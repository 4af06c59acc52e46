"""The nightly gate names a drifted figure in words (``damage distribution of Kaito
quick-jab → Brute``), as the report's tables do, wherever a person reads it: the terminal
of a CI log, ``report.md`` and the page; ``drift.json`` keeps the ids tools read, with
the words beside them. Walked through as a CI job: a baseline, an attack bonus raised by
1, the gate run piped at 80 columns."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simlab.analysis.drift import FIGURE_NAMES, figure_name, figure_said
from simlab.cli import main
from simlab.report import terminal
from tests.support import terminal_console

# Slow tier (make test-slow): runs and renders drift pages.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
BONUS = "    modifier: 1 "
RAISED = "    modifier: 2 "
N = 2000
#: A figure id as the gate's rows have them: ``damage_pmf``, ``median_time_to_down``.
AN_ID = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The CI job: a baseline of the quickstart, then its quick-jab's attack bonus raised
    by 1 and the gate run, piped (no terminal) at 80 columns."""
    folder = tmp_path_factory.mktemp("words")
    scenario = folder / QUICKSTART.name
    scenario.write_text(QUICKSTART.read_text())
    runner = CliRunner()
    made = runner.invoke(main, ["baseline", "update", str(scenario), "--baseline",
                                str(folder / "baseline.json"), "-n", str(N)])  # fmt: skip
    assert made.exit_code == 0, made.output
    assert BONUS in scenario.read_text()
    scenario.write_text(scenario.read_text().replace(BONUS, RAISED))
    out = folder / "nightly"
    # piped, as a CI job's log (the console made once COLUMNS is set)
    with terminal_console(terminal._make_console, 80):
        ran = runner.invoke(main, ["report", str(scenario), "-n", str(N), "--baseline",
                                   str(folder / "baseline.json"), "--out", str(out)])  # fmt: skip
    doc = json.loads((out / "drift.json").read_text())
    return {"exit": ran.exit_code, "terminal": ran.output, "doc": doc,
            "md": (out / "report.md").read_text(),
            "html": (out / "report.html").read_text()}  # fmt: skip


def _drifted(gate: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in gate["doc"]["figures"] if f["drifted"]]


def test_the_gate_fails_on_the_raised_bonus(gate: dict[str, Any]) -> None:
    figures = {f["figure"] for f in _drifted(gate)}
    assert gate["exit"] == gate["doc"]["exit_code"] == 1
    assert {"hit_rate", "damage_pmf", "time_to_down", "rounds_pmf"} <= figures, figures


def test_the_terminal_names_the_drifted_figures_in_words(gate: dict[str, Any]) -> None:
    """The CI log said ``damage_pmf Kaito quick-jab → Brute``; it says ``damage
    distribution of Kaito quick-jab → Brute``, each name on one line of 80 columns, in
    the list of drifted figures and in the table under it."""
    text = gate["terminal"]
    listed, _, table = text.partition("statistically different from the baseline")
    table = table.split("balance specs")[0]
    assert not AN_ID.findall(listed.split("\n  note: ")[0]), listed
    assert not AN_ID.findall(table), table
    assert "- damage distribution of Kaito quick-jab → Brute:" in listed
    lines = table.splitlines()
    for f in _drifted(gate):
        assert any(figure_name(f["figure"]) in line for line in lines), (f, table)
    assert " hit rate of Kaito " in table  # as the list above names it
    notes = listed.split("\n  note: ")[1]
    assert "out rate of Kaito as" in " ".join(notes.split())
    assert not re.search(r"\b(out|down|win)\n", notes), notes  # "out" / "rate of Kaito"


def test_a_figure_of_the_whole_encounter_is_not_named_twice(gate: dict[str, Any]) -> None:
    """``rounds_pmf encounter length`` and ``mean_rounds encounter length`` read, in
    words, as "encounter length encounter length": their subject is their name."""
    text = " ".join(gate["terminal"].split())
    md = gate["md"]
    assert "- encounter length: moved (total variation" in text
    assert "**DRIFT** encounter length: moved (total variation" in md
    for said in (text, md, gate["html"]):
        assert "encounter length encounter length" not in said
        assert "encounter length of encounter length" not in said


def test_report_md_names_the_drifted_figures_in_words(gate: dict[str, Any]) -> None:
    drift = gate["md"].split("## Drift")[1].split("\n## ")[0]
    listed = [line for line in drift.splitlines() if line.startswith("  - **DRIFT** ")]
    assert len(listed) == len(_drifted(gate))
    for f, line in zip(_drifted(gate), listed, strict=True):
        assert line.startswith(f"  - **DRIFT** {figure_said(f['figure'], f['subject'])}: ")
        assert f["figure"] not in line


def test_the_page_names_the_drifted_figures_in_words(gate: dict[str, Any]) -> None:
    """The page's drift list and its table of the figures compared: words, not ids."""
    html = gate["html"].replace("\u00a0", " ").replace("\u2011", "-")
    drift_list = html.split("<h2>Drift</h2>")[1].split("</ul></li>")[0]
    listed = [re.sub("<[^>]+>", "", item) for item in drift_list.split("<li>")[2:]]
    assert len(listed) == len(_drifted(gate))
    assert "damage distribution of Kaito quick-jab → Brute: moved (total variation" in listed[0]
    assert "damage_pmf" not in drift_list and "rounds_pmf" not in drift_list
    compared = html.split("Compared with the baseline")[1].split("</table>")[0]
    assert "<td>damage distribution</td>" in compared
    assert "<td>damage_pmf</td>" not in compared


def test_drift_json_keeps_the_ids_with_the_words_beside(gate: dict[str, Any]) -> None:
    figures = gate["doc"]["figures"]
    assert all(f["figure_name"] == figure_name(f["figure"]) for f in figures)
    by_id = {f["figure"]: f["figure_name"] for f in figures}
    assert by_id["damage_pmf"] == "damage distribution"
    assert by_id["rounds_pmf"] == "encounter length"
    assert by_id["down_rate"] == "down rate"


def test_every_figure_the_gate_compares_has_a_name_in_words() -> None:
    """The names in :data:`FIGURE_NAMES` and an event's rate: none keeps an id's
    underscore, and no two figures share a name."""
    from simlab import api
    from simlab.analysis.drift import compare_results

    figures: set[str] = set()
    for path in ("shattered-spirits/spirits-2v3.yaml", "glitters-d20/bleeding-duel.yaml",
                 "opposed-tiers/party-fight.yaml"):  # fmt: skip
        result = api.simulate(api.load(ROOT / "scenarios" / path), n=200)
        figures |= set(compare_results([result], [result]).table.figure)
    names = {figure: figure_name(figure) for figure in figures | set(FIGURE_NAMES)}
    assert all("_" not in name for name in names.values()), names
    assert len(set(names.values())) == len(names), names
    assert names["momentum_spent_rate"] == "rate of spending Momentum"
    assert names["unconscious_rate"] == "unconscious rate"


def test_a_rate_left_out_as_a_repeat_is_named_whole_at_any_width() -> None:
    """The note on repeated rates named them in words the terminal broke at any space:
    ``… in both runs: out`` / ``rate of Kaito``. Each is kept whole, as names are."""
    from simlab import api
    from simlab.analysis.drift import compare_results
    from tests.support import printed_at

    quickstart = api.load(QUICKSTART)
    run = api.simulate(quickstart, n=500, seed=3)
    drift = compare_results([run], [run])
    rates = [said for each in drift.repeats for pair in each.rates for said in pair]
    assert "out rate of Kaito" in rates
    for width in range(60, 121):
        text = printed_at(lambda: terminal.print_drift(drift, "base.json"), width)
        (note,) = [n for n in text.split("note: ") if "not compared again" in " ".join(n.split())]
        lines = note.splitlines()
        for said in rates:  # each on one line, never broken inside
            assert any(said in line for line in lines), (width, said, note)


def test_the_wide_drift_table_keeps_each_figures_name_whole() -> None:
    """A CI log's wide drift table (130 columns) folded ``median_time_to_do`` / ``wn``;
    in words it broke ``median`` / ``time-to-down`` at a space. Each name is whole, on
    one line, at every width the wide table is laid out at."""
    from simlab import api
    from simlab.analysis.drift import compare_results
    from tests.support import printed_at

    quickstart = api.load(QUICKSTART)
    base = api.simulate(quickstart, n=N, seed=7)
    drift = compare_results([api.simulate(quickstart.with_({"quick-jab.modifier": 2}), n=N,
                                          seed=7)], [base])  # fmt: skip
    names = {figure_name(f) for f in drift.table[drift.table.significant].figure}
    assert "median time-to-down" in names
    wide = 0
    for width in range(terminal.WIDE, 171):  # laid out wide from about 150 columns
        text = printed_at(lambda: terminal.print_drift(drift, "base.json"), width)
        table = text.split("statistically different from the baseline")[1].splitlines()
        if any(line.split()[:2] == ["scenario", "status"] for line in table):
            wide += 1
            for name in names:
                assert any(name in line for line in table), (width, name, text)
    assert wide, "the wide table was never laid out"
