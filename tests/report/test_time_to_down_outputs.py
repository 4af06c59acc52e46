"""What a designer reads about time-to-down, in the terminal, summary.json and the report.

Time-to-down is P(downed by round r) over all encounters: at the round cap it is the down
rate, so every output must give the two figures consistently. And the terminal must fit
80 columns without cutting names.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from simlab import api
from simlab.analysis.summary import summary
from simlab.report import terminal
from simlab.report.render import render_report
from simlab.report.results import ScenarioRun
from tests.support import AMBUSH, broken_names, column_cells, printed_at

# Slow tier (make test-slow): runs and draws the time-to-down outputs of many scenarios.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SKIRMISH = ROOT / "scenarios/zones-3d6/skirmish.yaml"
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
ESTIMATE = r"(\d+(?:\.\d+)?) ± (\d+(?:\.\d+)?)"


def _terminal_text(result: object, width: int) -> str:
    return printed_at(lambda: terminal.print_result(result), width)  # type: ignore[arg-type]


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def test_skirmish_down_rate_and_down_by_the_last_round_agree_everywhere(
    skirmish_report: tuple[ScenarioRun, Path],
) -> None:
    """The bar of issue 22: report, terminal table and summary.json of the zones
    skirmish give a down rate and a P(downed by the last round) that agree within their
    intervals. (A Kaplan–Meier curve, which censors every fight the combatant's side won,
    gave the party a P(downed by round 30) far above its down rate.)"""
    run, drawn = skirmish_report  # 20,000 encounters of seed 6
    res = run.result
    cap = str(res.layout.max_rounds)
    doc = summary(res)
    text = _terminal_text(res, 80)
    markdown = (drawn / "report.md").read_text(encoding="utf-8")
    curves = res.time_to_down()
    for entry in doc["combatants"]:
        name = entry["name"]
        rate, rate_ci = entry["down_rate"], tuple(entry["down_rate_ci"])
        ttd = entry["time_to_down"]
        by_cap, by_cap_ci = ttd["down_by_round"][cap], tuple(ttd["down_by_round_ci"][cap])
        # the same count over the same encounters: equal, not merely within each other's
        # intervals
        assert (by_cap, by_cap_ci) == (rate, rate_ci), (name, rate, by_cap)
        # The plotted curve ends at the same figure.
        last = curves[curves.combatant == name].iloc[-1]
        assert last.down_by_round == pytest.approx(by_cap)
        # The terminal row: "name side 0.960 ± 0.008 …", or at 80 columns the figure
        # over its interval, "name side 0.960 …" / "± 0.008".
        figure, half = ESTIMATE.split(" ± ")
        shown = re.search(rf"^ ?{re.escape(name)}\s+\S+\s+{figure}(?: ± |\s.*\n\s+± ){half}",
                          text, re.M)  # fmt: skip
        assert shown, f"{name} not found in the terminal table:\n{text}"
        value, half = float(shown[1]), float(shown[2])
        assert _overlap((value - half, value + half), by_cap_ci)
        assert abs(value - by_cap) <= half
        # The report's row: "| name | side | 0.960 [0.957, 0.963] | …".
        row = re.search(rf"^\| {re.escape(name)} \| [^|]+ \| ([\d.]+) \[([\d.]+), ([\d.]+)\]",
                        markdown, re.M)  # fmt: skip
        assert row, f"{name} not found in report.md"
        assert _overlap((float(row[2]), float(row[3])), by_cap_ci)
    # The party wins most fights: its members are seldom downed, and their median
    # time-to-down over all encounters is not reached.
    warden = next(e for e in doc["combatants"] if e["name"] == "Warden")
    assert warden["down_rate"] < 0.2
    assert warden["time_to_down"]["median_time_to_down"] is None
    assert warden["time_to_down"]["median_time_to_down_when_downed"] is not None


def test_a_median_past_the_cap_reads_not_reached_in_run_and_sweep() -> None:
    """A median time-to-down fewer than half of the encounters reach by the round cap was
    ``> 30`` in the run's table and ``—`` in the sweep's, "not reached" on the pages: it
    reads "not reached" in both terminals too, and both notes explain it in the same
    words (:func:`~simlab.report.terminal.median_note`)."""
    import simlab
    from simlab.report.tuning_terminal import print_sweep, shown_combatants

    run = api.run_scenario(SKIRMISH, n=2000, seed=6)
    text = _terminal_text(run.result, 80)
    assert re.search(r"^ ?Warden .* not reached ", text, re.M), text
    note = terminal.median_note(run.result.combatants())
    assert "> 30" not in text and note in " ".join(text.split())
    sweep = simlab.sweep(simlab.load(SKIRMISH), {"Warden.hp": [14, 16]}, n=2000, seed=6,
                         exact=False)  # fmt: skip
    text = printed_at(lambda: print_sweep(sweep))
    lines = text.splitlines()
    first = next(k for k, line in enumerate(lines) if re.match(r"^ ?Warden +14 ", line))
    for line in lines[first : first + 2]:  # Warden's median, at both points
        assert line.rstrip().endswith(" not reached"), text
    assert terminal.median_note(shown_combatants(sweep)) in " ".join(text.split())


def test_quickstart_at_80_columns_fits_and_cuts_no_name() -> None:
    """Issue 20: `simlab run` of the quickstart with COLUMNS=80: no line over 80
    characters, every combatant, attack and side name whole, no `0` p-values."""
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "simlab", "run", str(QUICKSTART), "-n", "4000", "--check"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    assert "…" not in done.stdout
    for name in ("Kaito", "Brute", "quick-jab", "stone-strike", "party", "enemies"):
        assert re.search(rf"(^|\s){re.escape(name)}(\s|:|$)", done.stdout), name
    assert "± " in done.stdout  # intervals as ±, not [lo, hi] wrapped over lines
    # no line of the notes under the tables ends in a space
    note = lines.index(next(line for line in lines if line.startswith("Down rate: share")))
    assert not [line for line in lines[note : note + 8] if line.endswith(" ")], lines


def test_numbers_to_a_sensible_precision() -> None:
    # to the interval's precision: 0.972 ± 0.001, three decimals at most, showed a true
    # ± 0.0006 as ± 0.001
    assert terminal.estimate(0.97183, 0.97125, 0.97241) == "0.9718 ± 0.0007"
    assert terminal.estimate(3.4127, 3.397, 3.428) == "3.41 ± 0.02"
    assert terminal.estimate(10.2, 9.81, 10.6) == "10.2 ± 0.4"
    assert terminal.estimate(12.0, 9.5, 14.5) == "12 ± 3"
    assert terminal.estimate(0.0, 0.0, 3e-6) == "0 (< 3e-06)"
    assert terminal.estimate(0.0, 0.0, 1.23e-6) == "0 (< 2e-06)"  # up, never narrower
    assert terminal.estimate(0.0, 0.0, 0.0095) == "0 (< 0.01)"
    assert terminal.estimate(1.0, 0.99982, 1.0, terminal.RATE_RANGE) == "1 (> 0.9998)"
    # an interval that could not be estimated is marked, where a bare number has no spread
    assert terminal.estimate(2.0, math.nan, math.nan) == "2 (?)"
    assert terminal.estimate(5.0, 5.0, 5.0) == "5"
    assert terminal.format_p(0.0) == "< 0.0001"
    assert terminal.format_p(3e-20) == "< 0.0001"
    assert terminal.format_p(0.0123) == "0.012"


def _shown_interval(text: str) -> tuple[float, float]:
    """The interval a ``value ± half`` text stands for."""
    value, half = (float(x) for x in text.split(" ± "))
    return value - half, value + half


@pytest.mark.parametrize(
    ("value", "lo", "hi"),
    [
        (0.026463, 0.025635, 0.027317),  # Raider 4 → Warden of party-fight: 0.026 ± 0.001
        (0.0024954, 0.0018111, 0.0034376),
        (9.0552, 8.9675, 9.1428),
        (0.347, 0.337, 0.357),
    ],
)
def test_an_interval_shown_holds_the_whole_interval(value: float, lo: float, hi: float) -> None:
    """Rounding the value moves the centre of ``value ± half``: the half-width shown must
    reach both ends of the true interval from the value as printed, not from the value."""
    shown_lo, shown_hi = _shown_interval(terminal.estimate(value, lo, hi))
    assert shown_lo <= lo and hi <= shown_hi


def test_no_crit_column_for_a_system_without_crits() -> None:
    res = api.simulate(api.load(SKIRMISH), n=500, seed=1)
    assert res.layout.crits is False
    assert "crit" not in _terminal_text(res, 80)
    ss = api.simulate(api.load(QUICKSTART), n=500, seed=1)
    assert "crit rate" in _terminal_text(ss, 80)


def test_narrow_attack_table_names_each_attack_once_above_its_defenders() -> None:
    """Below 110 columns: ``attacker: attack`` on the first row of its pairings, each
    defender whole on a row of its own, every figure whole within 80 columns."""
    res = api.simulate(api.load(SKIRMISH), n=500, seed=1)
    text = _terminal_text(res, 80)
    attacks = text.split("time-to-down")[0]
    assert max(len(line) for line in attacks.splitlines()) <= 80
    rates = res.hit_rates()
    for (attacker, attack), rows in rates.groupby(["attacker", "attack"], sort=False):
        named = [line for line in attacks.splitlines() if line.startswith(f"{attacker}: {attack} ")]
        assert len(named) == 1, (attacker, attack, attacks)
        start = attacks.splitlines().index(named[0])
        for k, defender in enumerate(rows.defender):
            line = attacks.splitlines()[start + k]
            assert re.search(rf"\s{re.escape(defender)}\s+[\d,]+\s+[\d.]+ ± [\d.]+\s", line), line
            assert line.rstrip().endswith(tuple("0123456789")), line  # mean damage whole


def test_wide_terminal_gives_names_their_own_columns() -> None:
    res = api.simulate(api.load(QUICKSTART), n=500, seed=1)
    text = _terminal_text(res, 140)
    header = next(line for line in text.splitlines() if "attempts" in line)
    assert header.split()[:3] == ["attacker", "attack", "defender"]
    assert "out" in text and "rate" in text  # event rates in the time-to-down table


def test_check_p_values_are_never_printed_as_zero() -> None:
    import pandas as pd

    from simlab.exact.engine import CHECK_COLUMNS

    check = pd.DataFrame([("hit_rate", "A", "x", "B", 0.5, 0.4, 0.001, 100.0, 0.0, "normal")],
                         columns=CHECK_COLUMNS)  # fmt: skip
    console = Console(width=80, record=True)
    console.print(terminal.check_table(check))
    assert "< 1e-16" in console.export_text()


def test_check_marks_an_exact_binomial_p_and_words_its_verdict_for_it() -> None:
    """``crit_rate … +1.97  0.32``: a z that implies p = 0.049 beside an exact p, with no
    mark, and a verdict of "standard errors" only."""
    import pandas as pd

    from simlab.exact.engine import CHECK_COLUMNS, check_verdict

    check = pd.DataFrame([("crit_rate", "A", "x", "B", 1 / 15000, 0.175 / 15000, 3.4e-05, 1.97,
                           0.32, "binomial"),
                          ("hit_rate", "A", "x", "B", 0.5, 0.5, 0.004, 0.1, 0.92, "normal")],
                         columns=CHECK_COLUMNS)  # fmt: skip
    text = printed_at(lambda: terminal.print_check(check))
    assert "0.32*" in text and "0.92*" not in text, text
    assert "* exact binomial p" in text, text
    from simlab.analysis.stats import binomial_two_sided_p

    # the README's and the docstring's example: p = 0.32, not 0.31
    assert round(binomial_two_sided_p(1, 15000, 0.175 / 15000), 2) == 0.32
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "0.175 are expected is z = +1.97 but p = 0.32" in " ".join(readme.split())
    assert check_verdict(check) == ("all 2 figures within 4.5 standard errors (p ≥ 6.8e-06) "
                                    "of the exact answer")  # fmt: skip


def test_check_writes_an_exact_answer_to_4_decimals_and_never_as_1() -> None:
    """The exact column of ``run --check`` read ``0.152`` for 0.15201, ``0.05`` and, for
    an exact P(downed by round 20) of 0.9999997, ``1``. An exact answer has 4 decimals,
    trailing zeros kept, more where it would read as 0 or 1 that it is not; nor does a
    simulated rate read as 1 that is not (it has the exact answers' decimals, 4 or
    more)."""
    import pandas as pd

    from simlab.exact.engine import CHECK_COLUMNS

    check = pd.DataFrame([("hit_rate", "Guard", "cudgel", "Sellsword", 0.1523, 0.15201,
                           0.00049, 0.61, 0.54, "normal"),
                          ("crit_rate", "Guard", "cudgel", "Sellsword", 0.05164, 0.05,
                           0.00091, 1.79, 0.073, "normal"),
                          ("mean_damage", "Guard", "cudgel", "Sellsword", 6.138, 6.135015,
                           0.0066, 0.42, 0.67, "normal"),
                          ("down_by_round_cap", "Sellsword", "", "Guard", 0.99996,
                           0.9999997, 1.2e-06, 0.25, 1.0, "binomial")],
                         columns=CHECK_COLUMNS)  # fmt: skip
    console = Console(width=80, record=True)
    console.print(terminal.check_table(check))
    text = console.export_text()
    for simulated, exact in [("0.1523", "0.1520"), ("0.0516", "0.0500"), ("6.1380", "6.1350"),
                             ("0.999960", "0.9999997")]:  # fmt: skip
        assert re.search(rf"\s{simulated}\s+{exact}\s", text), (simulated, exact, text)


def test_check_table_breaks_a_pair_between_names_only() -> None:
    """A pair too long for the figure column was broken at any space: ``Novice`` /
    ``Bandit: club → Raider`` / ``Chief``. It breaks after the figure, the attacker or
    the arrow only, every name whole."""
    import pandas as pd

    from simlab.exact.engine import CHECK_COLUMNS

    check = pd.DataFrame([("mean_damage", "Novice Bandit", "club", "Raider Chief", 0.5432,
                           0.5432, 0.00012, -12.23, 1e-20, "normal")],
                         columns=CHECK_COLUMNS)  # fmt: skip
    console = Console(width=80, record=True)
    console.print(terminal.check_table(check))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert not broken_names(text, ["Novice Bandit", "Raider Chief"]), text


def test_a_listed_refusal_never_breaks_a_combatant_s_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a fight moves away from the exact answer, listed at 80 columns, was broken
    at any space: ``… Raider 4, Raider`` / ``Chief: Scout's 'shortbow' …``."""
    monkeypatch.setenv("COLUMNS", "80")
    console = Console(width=80, record=True, force_terminal=False)
    monkeypatch.setattr(terminal, "console", console)
    names = ["Raider 1", "Raider 2", "Raider 3", "Raider 4", "Raider Chief"]
    what = f"hit rate of Scout: shortbow → {', '.join(names)}"
    reason = "Scout's 'shortbow' is an undefended surprise attack in round 0"
    terminal.print_refusals([(what, reason)], "in a fight", names={"Scout", *names})
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert not broken_names(text, names), text


def test_summary_documents_time_to_down_keys() -> None:
    """Every key of summary.json's time_to_down is named in the README."""
    res = api.simulate(api.load(QUICKSTART), n=300, seed=1)
    keys = set(summary(res)["combatants"][0]["time_to_down"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [k for k in keys if f"`{k}`" not in readme and f'"{k}"' not in readme]
    assert not missing, missing
    json.dumps(summary(res), allow_nan=False)


def test_drift_table_fits_80_columns_without_cutting_a_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The drifted figures, the notes and the table within 80 columns (``COLUMNS``
    says so, as a terminal would), a note's later lines under its text."""
    import numpy as np

    from simlab.analysis.drift import compare_results, figure_name
    from tests.report.report_synthetic import Truth, synthetic_result

    rng = np.random.default_rng(4)
    base = synthetic_result(Truth(), 50_000, rng)
    cur = synthetic_result(Truth(hit=0.7, winner=[0.7, 0.25, 0.05]), 50_000, rng)
    drift = compare_results([cur], [base])
    assert not drift.ok
    note = "synthetic (synthetic): mean_damage of A strike → B not tested, its attacks " * 2
    drift.notes.append(note.strip())
    monkeypatch.setenv("COLUMNS", "80")
    text = printed_at(lambda: terminal.print_drift(drift, "base.json"))
    assert max(len(line) for line in text.splitlines()) <= 80
    lines = text.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("  note: synthetic"))
    assert lines[first + 1].startswith("        ") and lines[first + 1].strip(), lines
    for row in drift.table[drift.table.significant].itertuples():  # never folded
        assert any(figure_name(row.figure) in line for line in lines), row.figure


@pytest.mark.parametrize("width", [130, 80])
def test_drift_table_cuts_no_word_with_long_names(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    """A CI log (130 columns, no ``COLUMNS``) cut the wide drift table's words with "…"
    (``shattered-s…``, ``median_time…``): ten columns of long names do not fit. A table
    whose words do not all fit whole is laid out narrow, every name whole, at 130
    columns as at 80."""
    import numpy as np

    from simlab.analysis.drift import compare_results, figure_name
    from tests.report.report_synthetic import Truth, synthetic_result

    rng = np.random.default_rng(4)
    base = synthetic_result(Truth(), 50_000, rng)
    down = ([0.0, 0.0, 0.0, 0.05, 0.15, 0.15, 0.15, 0.1, 0.05, 0.05], Truth().down[1])
    cur = synthetic_result(Truth(hit=0.7, down=down), 50_000, rng)
    for res in (base, cur):
        res.scenario, res.rules = "draft1-techniques-3v3", "shattered-spirits-draft1"
    drift = compare_results([cur], [base])
    moved = drift.table[drift.table.significant]
    assert "median_time_to_down" in set(moved.figure)
    if width == 80:
        monkeypatch.setenv("COLUMNS", "80")
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    saved = terminal.console
    terminal.console = terminal._make_console()
    terminal.console.record, terminal.console.width = True, width
    try:
        terminal.print_drift(drift, "base.json")
        text = terminal.console.export_text()
    finally:
        terminal.console = saved
    assert "…" not in text
    table = [line for line in text.splitlines() if not line.startswith("  note: ")]
    assert max(len(line) for line in table) <= width  # a note is one line when piped
    words = {w.rstrip(":") for w in text.split()}
    for row in moved.itertuples():  # the figure's name in words, on one line
        assert {row.scenario, f"({row.rules})"} <= words, row
        assert any(figure_name(row.figure) in line for line in table), row


def test_a_fall_in_the_surprise_round_is_round_0_in_every_median(tmp_path: Path) -> None:
    """Round 0 is the surprise round: a raider that falls in it in most encounters has a
    median time-to-down of 0, as its median among the encounters it fell in says, in
    every output. The tables, summary.json, specs and the drift gate read the median
    off rounds 1..cap and said 1, while the report's contents, sweeps and tune said 0
    (and tune printed 0 with the interval [1, 1])."""
    from simlab.analysis.drift import _median
    from simlab.analysis.specs import evaluate
    from simlab.tuning.figures import measure, parse_figure

    run = api.run_scenario(api.loads(AMBUSH), n=2000)
    res = run.result
    down = [int(x) for x in res.tallies.down_round[1]]
    assert 1000 < down[0] < 2000  # most, not all, in round 0
    by_hand = next(r for r in range(len(down)) if 2 * sum(down[: r + 1]) >= 2000)
    assert by_hand == 0
    row = res.combatants().set_index("combatant").loc["Rat"]
    assert row.median_time_to_down == row.median_time_to_down_when_downed == by_hand
    assert row.median_time_to_down_ci95_lo <= by_hand <= row.median_time_to_down_ci95_hi
    entry = summary(res)["combatants"][1]["time_to_down"]
    assert entry["median_time_to_down"] == by_hand
    spec = evaluate(res, {"figure": "median_time_to_down", "combatant": "Rat", "at_most": 3})
    assert (spec.measured, spec.lo) == (by_hand, by_hand)
    tuned = measure(res.tallies, res.layout, res.encounters,
                    parse_figure("median_time_to_down:Rat", "t"))  # fmt: skip
    assert tuned[0] == by_hand and tuned[1] <= by_hand <= tuned[2]
    assert _median(res, 1) == by_hand
    render_report([run], tmp_path)
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "Rat: 0" in markdown  # the contents
    # down rate, median, mean if downed, median if downed
    assert re.search(r"^\| Rat \| raiders \| [^|]+ \| 0 \[0, 0\] \| [^|]+ \| 0 \|", markdown,
                     re.M)  # fmt: skip


def test_a_long_attacker_and_attack_at_80_columns_keep_their_rows_together() -> None:
    """`Ghoul 1: ghoul-bite` does not fit beside the figures in 80 columns: the attacker
    goes on the group's first row and the attack on its second, and every row of the
    table carries figures (a name wrapped inside its cell pushed the rows apart)."""
    result = api.simulate(ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml", n=5000, seed=3)
    text = printed_at(lambda: terminal.console.print(terminal.attacks_table(result)))
    lines = [line.rstrip() for line in text.splitlines()]
    assert max(len(line) for line in lines) <= 80, text
    rows = [line for line in lines[3:] if line.strip()]
    assert all(re.search(r"\d\s*$", line) for line in rows), text  # figures on every row
    bite = next(k for k, line in enumerate(lines) if line.startswith("Ghoul 1: "))
    assert lines[bite].split()[:3] == ["Ghoul", "1:", "Bruna"], text
    assert lines[bite + 1].startswith("  ghoul-bite ") and "Aldric" in lines[bite + 1], text


@pytest.mark.parametrize(("path", "n"), [("opposed-tiers/party-fight.yaml", 20_000),
                                         ("opposed-tiers/novice-duel.yaml", 20_000),
                                         ("opposed-tiers/novice-duel.yaml", 2000)])  # fmt: skip
def test_a_name_with_a_space_is_never_broken_in_the_run_tables(path: str, n: int) -> None:
    """`Raider Chief:` did not fit beside the figures at 80 columns: the attacks table
    printed `Raider` on one row and `Chief:` on the next, and a defender `Raider` /
    `Chief` under `at` read as a row of pooled Raiders. Each name is printed whole, every
    row of figures beside its defender's whole name; where the names do not fit beside
    the figures, each attack heads a row of its own, its defenders indented under it."""
    result = api.simulate(ROOT / "scenarios" / path, n=n, seed=3)
    text = _terminal_text(result, 80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80, text
    assert not broken_names(text, result.combatants().combatant), text
    attacks = text.split("time-to-down")[0]
    for r in result.hit_rates().itertuples():
        whole, parted = rf"{r.attacker}: {r.attack}", rf"{r.attacker}:\s.*\n  {r.attack}"
        assert re.search(rf"^({whole}|{parted})(\s|$)", attacks, re.M), (r.attack, attacks)
        row = rf"(^|  ){re.escape(r.defender)}\s+{r.attempts:,}\s+{ESTIMATE}"
        assert re.search(row, attacks, re.M), (r.defender, attacks)


def test_an_attack_named_on_a_line_of_its_own_is_indented() -> None:
    """The quickstart at 20,000 encounters: `Brute: stone-strike` does not fit beside
    the figures, `Kaito: quick-jab` does; as in a group of several defenders (`Ghoul 1:`
    / `  ghoul-bite`), the attacker goes on the row and the attack, indented, on the next
    line (it was printed at the left edge, where an attacker's name goes)."""
    result = api.simulate(QUICKSTART, n=20_000, seed=7)
    lines = _terminal_text(result, 80).split("time-to-down")[0].splitlines()
    assert max(len(line) for line in lines) <= 80, lines
    brute = next(k for k, line in enumerate(lines) if line.startswith("Brute"))
    assert lines[brute].split()[:2] == ["Brute:", "Kaito"], lines
    assert lines[brute + 1].rstrip() == "  stone-strike", lines


def test_a_table_too_wide_by_a_little_closes_up_and_cuts_no_figure() -> None:
    """At 80 columns one wide down rate (``0.9997 [0.9992, 0.9999]``) pushed the
    time-to-down table two columns past the edge: rich cropped it, the header read
    ``cappe`` and Sato's 621 capped encounters read 62. The columns close up instead,
    and every count is printed whole. Since the mean if downed, its six columns fit
    in one table, the bracketed rate over its interval (they split off a ``capped``
    table of its own, as every number column was held to its padded width)."""
    result = api.simulate(ROOT / "scenarios/shattered-spirits-draft1/techniques-3v3.yaml",
                          n=20_000, seed=1, threads=1)  # fmt: skip
    text = _terminal_text(result, 80)
    table = text[text.index("time-to-down (rounds)") : text.index("events (share")]
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= 80, table
    assert table.count("time-to-down (rounds)") == 1, table
    rows = result.combatants()
    for r in rows.itertuples():  # the count ends the row's first line
        (mine,) = [line for line in lines if line.split()[:1] == [r.combatant.split()[0]]
                   and r.combatant in line]  # fmt: skip
        assert mine.split()[-1] == f"{r.capped:,}", (mine, r.capped)
    brute = rows.set_index("combatant").loc["Brute 1"]
    rate, interval = terminal.interval_cell(brute, "down_rate").split(" ", 1)
    assert interval.startswith("["), interval  # a rate this close to 1 is bracketed
    k = next(k for k, line in enumerate(lines) if line.startswith("Brute 1 "))
    assert f" {rate} " in lines[k] and lines[k + 1].strip().startswith(interval), table


#: glitters-d20, three against three (walk 2's brawl): Iskra is down in about half the
#: fights, so that her median reads ``not reached [9, not reached]`` (-n 2000, seed 1).
BRAWL = """
scenario: cult-brawl
rules: glitters-d20
seed: 1
max_rounds: 25
params: {death_rules: permadeath, burning_decay: 1}
attacks:
  longsword: {damage: 1d8+1, type: slashing, bonus: 4}
  frost-bolt: {damage: 1d6, type: ice, bonus: 5, attribute: int, ranged: true}
  rapier: {damage: 1d6, type: piercing, bonus: 5, attribute: dex}
  torch: {damage: 1d6, type: fire, bonus: 5}
  sickle: {damage: 1d8, type: slashing, bonus: 5}
  mace: {damage: 2d8, type: bludgeoning, bonus: 6, hand: two-handed}
sides:
  heroes:
    - {name: Brenna, hp: 24, player: true, attributes: {str: 14}, dc: 10, armor: mail,
       armor_bc: 3, shield_bc: 2, defense: block, attacks: [longsword]}
    - {name: Iskra, hp: 16, player: true, attributes: {int: 15, str: 9}, dc: 11,
       attacks: [frost-bolt], target: lowest-hp}
    - {name: Tomas, hp: 18, player: true, attributes: {dex: 15}, dc: 12, defense: parry,
       parry_value: 3, attacks: [rapier]}
  cult:
    - {name: Acolyte, count: 2, hp: 18, dc: 12, attacks: [torch, sickle], target: random}
    - {name: Zealot, hp: 51, dc: 12, armor: plate, armor_bc: 2, attacks: [mace],
       status_immune: [bleeding]}
"""


def _brawl(renamed: dict[str, str]) -> object:
    """:data:`BRAWL` with ``name: X`` renamed (attacks too), simulated (2,000, seed 1)."""
    text = BRAWL
    for old, new in renamed.items():
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return api.simulate(api.loads(text), n=2000, seed=1)


def _column_cells(block: str, header: str, names: list[str]) -> dict[str, str]:
    """The cell of each of ``names`` in the column ``header`` of the table that has one
    in ``block``: the word that ends where the header ends (numbers align right)."""
    lines = block.splitlines()
    top = next(k for k, line in enumerate(lines) if re.search(rf"\b{header}\b", line))
    end = re.search(rf"\b{header}\b", lines[top]).end()  # type: ignore[union-attr]
    cells = {}
    for line in lines[top + 2 :]:
        name = next((n for n in names if line.startswith((n + "  ", " " + n + "  "))), None)
        if name and name not in cells:
            cells[name] = line[:end].split()[-1]
    return cells


@pytest.mark.parametrize(("width", "brenna", "layout"),
                         [(80, "Brenna", "broken"), (100, "Brenna", "broken"),
                          (120, "Brenna", "whole"),
                          (80, "Brother Castellan Aldemar", "split"),
                          (100, "Brother Castellan Aldemar", "broken"),
                          (130, "Brother Castellan Aldemar", "whole")])  # fmt: skip
def test_the_time_to_down_table_prints_every_column_whole(width: int, brenna: str,
                                                          layout: str) -> None:  # fmt: skip
    """Walk 2, #3: at 80 columns the table lost its last column, ``capped``, to rich's
    crop, beside ``not reached [9, not reached]`` or a name of 25 characters. A median
    breaks between its figure and its interval where the table would not fit otherwise;
    where even so it would not, the columns go on in a second table, each under the
    names: every column whole, at every width."""
    result = _brawl({"Brenna": brenna})
    text = _terminal_text(result, width)
    block = text[text.index("time-to-down (rounds)") : text.index("Down rate: share")]
    assert max(len(line) for line in block.splitlines()) <= width, block
    rows = result.combatants()  # type: ignore[attr-defined]
    names = list(rows.combatant)
    assert not broken_names(block, names), block
    capped = _column_cells(block, "capped", names)
    assert capped == {r.combatant: f"{r.capped:,}" for r in rows.itertuples()}, block
    assert terminal.median_cell(rows.set_index("combatant").loc["Iskra"]) == (
        "not reached [9, not reached]")  # fmt: skip
    lines = block.splitlines()
    header = next(line for line in lines if "combatant" in line)
    end = header.index(" median ") + len(" median")  # the median column's right edge
    k = next(k for k, line in enumerate(lines) if line.split()[:1] == ["Iskra"])
    median, below = lines[k][:end], lines[k + 1][:end]
    tables = block.count("time-to-down (rounds)")
    assert tables == (2 if layout == "split" else 1), block
    if layout == "whole":  # room for the whole table: every median on its line
        assert median.endswith("  not reached [9, not reached]"), block
        assert lines[k + 1].split()[:1] == ["Tomas"], block
    else:  # broken between the figure and its interval, under each other
        assert median.endswith("  not reached") and below.strip() == "[9, not reached]", block


@pytest.mark.parametrize("width", [80, 100])
def test_a_sweep_of_three_fields_prints_every_median_whole(width: int) -> None:
    """Walk 2, #4: a sweep of three fields printed its time-to-down medians cut at 80
    columns, ``5 [5, 5`` and ``[7, not reached``, the point's values broken over three
    lines beside them. A median goes on two lines instead, its figure over its interval,
    where the table would not fit otherwise."""
    import simlab
    from simlab.report.tuning_terminal import print_sweep

    vary = ["Zealot.hp=50:52", "mace.damage=2d8,2d6+2", "Iskra.hp=15,16"]
    sweep = simlab.sweep(api.loads(BRAWL), vary, n=1000, seed=1, exact=False)
    text = printed_at(lambda: print_sweep(sweep), width)
    block = text[text.index("time-to-down (rounds") : text.index("Every point ran")]
    assert max(len(line) for line in block.splitlines()) <= width, block
    medians = {terminal.median_cell(r) for _, r in sweep.combatants().iterrows()}
    assert any(m.endswith(", not reached]") and len(m) > 16 for m in medians), medians
    for median in medians:
        figure, _, interval = median.partition(" [")
        whole = rf"  {re.escape(median)} *$"
        broken = rf"  {re.escape(figure)} *\n +\[{re.escape(interval)} *$"
        assert re.search(whole if not interval else f"{whole}|{broken}", block, re.M), median
    assert re.search(r"^ *median *$|\bmedian *$", block, re.M), block  # the heading whole


LONG_DEFENDER = {"Acolyte": "Acolyte of the Ashen Flame"}
LONG_ATTACK = {"longsword": "bastard-sword-of-the-northern-march"}
LONG_NAMES = {**LONG_DEFENDER, **LONG_ATTACK, "Brenna": "Brother Castellan Aldemar the Younger"}


@pytest.mark.parametrize(("renamed", "width"),
                         [(LONG_DEFENDER, 80), (LONG_ATTACK, 80), (LONG_NAMES, 80),
                          (LONG_NAMES, 100), (LONG_NAMES, 130)])  # fmt: skip
def test_the_attacks_table_keeps_long_names_whole(renamed: dict[str, str], width: int) -> None:
    """Walk 2, #5: at 80 columns ``Acolyte of the Ashen Flame 1`` was broken at a space,
    ``Flame 1`` flush left where attackers stand, and ``bastard-sword-of-the-no`` /
    ``rthern-march`` inside a word. Every name is whole on its line, as ``simlab exact``
    writes them; the figures go on two lines, value over interval, to leave room."""
    result = _brawl(renamed)
    text = _terminal_text(result, width)
    block = text[: text.index("time-to-down (rounds)")]
    lines = block.splitlines()
    assert max(len(line) for line in lines) <= width, block
    rates = result.hit_rates()  # type: ignore[attr-defined]
    names = {*rates.attacker, *rates.defender}
    assert not broken_names(block, names), block
    for attack in set(rates.attack):
        assert re.search(rf"(^|\s){re.escape(attack)}(\s|$)", block, re.M), (attack, block)
    heads = ("attack", "───", *(f"{a}:" for a in rates.attacker))  # headers, an attack
    for line in lines[2:]:  # flush left (past the heading line): no name's continuation
        assert line[:1] in ("", " ") or line.startswith(heads), (line, block)
    for r in rates.itertuples():
        hit = terminal.interval_cell(r, "hit_rate").split(" ")[0]
        row = rf"(^|  ){re.escape(r.defender)}\s+{r.attempts:,}\s+{re.escape(hit)}\s"
        assert re.search(row, block, re.M), (r.attacker, r.attack, r.defender, block)


@pytest.mark.parametrize("width", [80, 100])
def test_the_events_tables_print_every_column_whole_beside_a_long_name(width: int) -> None:
    """Re-check of walk 2: beside a name of 25 characters the events table printed
    ``status`` / ``per`` / ``0.86 ±`` at 80 columns, its last column cut; it measured
    its width with rich's estimate, which the closed-up table exceeds. Its columns
    go on in another table where they would not fit."""
    result = _brawl({"Brenna": "Brother Castellan Aldemar"})
    text = _terminal_text(result, width)
    block = text[text.index("events (share of encounters)") : text.index("Down rate: share")]
    assert max(len(line) for line in block.splitlines()) <= width, block
    assert "status dmg" in block and "per enc." in block, block
    rows = result.combatants()  # type: ignore[attr-defined]
    assert not broken_names(block, list(rows.combatant)), block
    assert not any(line.rstrip().endswith(("±", "(<", "[")) for line in block.splitlines())


#: A combatant's name of 39 characters (re-check of the fixed tables: 34 and more).
GRAND_DUKE = "Grand Duke Ferdinand of the Sunken Keep"


@pytest.mark.parametrize("width", [80, 120])
def test_the_drift_table_prints_every_column_beside_a_long_name(width: int) -> None:
    """Re-check: beside a combatant of 39 characters the drift gate's table lost its
    last column, ``Holm p``, at 80 columns. Baseline and current go on two lines there,
    and where even so the table would not fit, its columns go on in a further table
    under the figures: every figure's change and Holm p is printed, no name broken."""
    from simlab.analysis.drift import compare_results
    from simlab.report.render import drift_cells

    base = _brawl({"Brenna": GRAND_DUKE})
    current = _brawl({"Brenna": GRAND_DUKE, "hp: 24": "hp: 40"})
    drift = compare_results([current], [base])  # type: ignore[list-item]
    moved = drift.table[drift.table.significant | drift.table.drifted]
    assert GRAND_DUKE in " ".join(moved.subject) and len(moved) > 3
    text = printed_at(lambda: terminal.print_drift(drift, "base.json"), width)
    assert max(len(line) for line in text.splitlines()) <= width, text
    assert not broken_names(text, [GRAND_DUKE]), text
    rows = r"^ ?(DRIFT|changed|ok) "
    cells = [drift_cells(row) for row in moved.itertuples()]
    assert column_cells(text, "change", rows) == [c[5].split()[-1] for c in cells], text
    assert column_cells(text, "p", rows) == [c[6].split()[-1] for c in cells], text


#: The first line of a row of the ``--check`` table: the figure it compares.
CHECK_ROW = r"^ ?(hit_rate|crit_rate|mean_damage|down_by_round_cap|mean_time_to_down): "

#: The glitters-d20 training duel's fighter, warhammer and dummy, renamed long.
LONG_DUEL = {"Fighter": GRAND_DUKE, "warhammer": "two-handed executioner's greatsword",
             "Dummy": "Straw Effigy of the Drowned Chapel"}  # fmt: skip


@pytest.mark.parametrize("width", [80, 120])
def test_run_check_prints_every_column_beside_long_names(width: int) -> None:
    """Re-check: ``simlab run --check`` of a duel with names of 34–39 characters lost
    its ``p`` column (and ``z``) at 80 columns. Its headers go on a line a word there,
    and where even so the table would not fit, its columns go on in a further table
    under the figures: every figure's simulated value, exact answer, z and p printed."""
    from simlab.exact.engine import BINOMIAL_P

    text = (ROOT / "scenarios/glitters-d20/training-duel.yaml").read_text(encoding="utf-8")
    for old, new in LONG_DUEL.items():
        text = text.replace(old, new)
    check = api.simulate(api.loads(text), n=2000, seed=3, check=True).check
    assert check is not None and len(check) >= 10
    printed = printed_at(lambda: terminal.print_check(check), width)
    assert max(len(line) for line in printed.splitlines()) <= width, printed
    assert not broken_names(printed, LONG_DUEL.values()), printed
    rows = check.itertuples()
    expected = {
        # the last word: "0.99999999" of "> 0.99999999", a P(down by the cap) just below 1
        "exact": [terminal.exact_number(r.exact, r.figure).split()[-1] for r in rows],
        "z": [terminal.formatted(r.z, "+.2f") for r in check.itertuples()],
        "p": [terminal.format_p(r.p_value) + ("*" if r.p_kind == BINOMIAL_P else "")
              for r in check.itertuples()],
    }  # fmt: skip
    for header, cells in expected.items():
        assert column_cells(printed, header, CHECK_ROW) == cells, (header, printed)
    simulated = column_cells(printed, "simulated", CHECK_ROW)
    assert len(simulated) == len(check) and all(simulated), printed


def test_run_check_writes_every_simulated_figure_to_the_decimals_of_the_column() -> None:
    """The simulated column of ``run --check`` dropped trailing zeros, ``6.44`` beside an
    exact ``6.4436``, ``0.75`` beside ``0.7500``, and wrote others to 4 significant
    digits (``0.08069``). A simulated figure has the exact answers' 4 decimals, or
    more where its own interval is that narrow (``0.81235`` ± 0.00004), or where it
    would read as 0 or 1 otherwise; a figure at 0, or a rate at 1, is ``0`` or ``1``."""
    import pandas as pd

    from simlab.exact.engine import CHECK_COLUMNS

    check = pd.DataFrame([("mean_time_to_down", "Fighter", "", "Dummy", 6.44, 6.4436, 0.0029,
                           -1.24, 0.21, "normal"),
                          ("hit_rate", "Fighter", "dagger", "Dummy", 0.75, 0.75, 0.00059, 0.0,
                           1.0, "normal"),
                          ("crit_rate", "Fighter", "dagger", "Dummy", 0.08069, 0.0833, 0.0016,
                           -1.65, 0.1, "normal"),
                          ("hit_rate", "Fighter", "dagger", "Dummy", 0.812346, 0.8123, 2e-05,
                           2.25, 0.024, "normal"),
                          ("crit_rate", "Fighter", "shortsword", "Dummy", 0.0, 0.0001, 0.0001,
                           -1.0, 0.37, "binomial"),
                          ("down_by_round_cap", "Fighter", "", "Dummy", 1.0, 0.9999997,
                           1.2e-06, 0.25, 1.0, "binomial")],
                         columns=CHECK_COLUMNS)  # fmt: skip
    printed = printed_at(lambda: terminal.console.print(terminal.check_table(check)), 80)
    simulated = column_cells(printed, "simulated", CHECK_ROW)
    assert simulated == ["6.4400", "0.7500", "0.0807", "0.81235", "0", "1"], printed


@pytest.mark.parametrize("width", [80, 120])
def test_simlab_exact_prints_every_column_of_the_duel_beside_a_long_name(width: int) -> None:
    """``simlab exact`` of the training duel with a dummy named with 34 characters lost
    its last column, P(down by the round cap), at 80 columns. Its columns go on in a
    further table under the defender's name where they would not fit."""
    text = (ROOT / "scenarios/glitters-d20/training-duel.yaml").read_text(encoding="utf-8")
    for old, new in LONG_DUEL.items():
        text = text.replace(old, new)
    solved = api.exact(api.loads(text))
    assert solved.duel is not None
    down, if_down, _ = solved.duel.capped_moments()
    printed = printed_at(lambda: terminal.print_exact(solved), width)
    assert max(len(line) for line in printed.splitlines()) <= width, printed
    assert not broken_names(printed, LONG_DUEL.values()), printed
    row = rf"^ ?{re.escape(LONG_DUEL['Dummy'])} "
    down_cell = terminal.exact_number(down, terminal.DOWN_BY_CAP).split()[-1]
    assert column_cells(printed, "round cap", row) == [down_cell], printed
    assert column_cells(printed, "by cap", row) == [terminal.exact_number(if_down)], printed
    cells = " ".join(line for line in printed.splitlines() if re.match(row, line)).split()
    assert terminal.exact_number(solved.duel.mean) in cells, printed
    assert str(solved.duel.median) in cells, printed


@pytest.mark.parametrize("width", [80, 160])
def test_zones_3d6_prints_no_events_table_that_repeats_the_down_rate(width: int) -> None:
    """zones-3d6's only event, ``out``, is the down itself (docs/rules/zones-3d6.md): its
    "events" table (at 80 columns; wide, columns beside the time-to-down's) had only an
    ``out rate`` column, the down rate again. It is left out of the terminal; the
    summary and the Parquet outputs keep the out rate. A system whose events are its
    own (shattered-spirits' out and dead, walk 2's brawl) keeps its table."""
    result = api.simulate(SKIRMISH, n=500, seed=1, threads=1)
    text = _terminal_text(result, width)
    assert "time-to-down (rounds)" in text and "events (share" not in text, text
    assert not re.search(r"\bout\b", text), text
    out = summary(result)["combatants"][0]
    assert out["out_rate"] == out["down_rate"]
    assert set(result.events().event) == {"out"}  # the events frame (Parquet) keeps it
    other = _terminal_text(api.simulate(QUICKSTART, n=500, seed=1, threads=1), width)
    assert re.search(r"\bout\b", other) and re.search(r"\bdead\b", other), other
