"""What a designer reads of the commands at ``COLUMNS=80``, piped: the wording of what a
walk through every command found reading wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from simlab.cli import main
from simlab.report import terminal
from tests.support import piped_at

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios/benchmarks/ss-duel.yaml")


def test_a_difference_the_same_on_every_range_reads_as_a_decimal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A defender that always went down and now never does: its down rate's difference,
    the same on every range (an interval of no width), read ``-1.0e+00 ± 0e+00``."""
    text = piped_at(monkeypatch, 80, "compare", DUEL, "--set", "Defender.hp=400", "-n", "300")
    assert re.search(r"^✱✱ down rate +Defender +1 +0 +-1\.0+ ± 0 +—$", text, re.M), text
    assert not re.search(r"\de[-+]\d", text), text


def test_a_tuned_exact_figure_and_its_target_share_one_parenthesis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``median_time_to_down:Defender = 3 (exact) (target 3)``: two parentheses in a row;
    it reads ``3 (exact; target 3)``, and a simulated figure keeps ``(target 3)``."""
    tune = ["tune", DUEL, "--vary", "Defender.hp=5:60", "--target"]
    exact = " ".join(piped_at(monkeypatch, 80, *tune, "median_time_to_down:Defender=3").split())
    assert "Defender.hp=8 gives median_time_to_down:Defender = 3 (exact; target 3)" in exact
    simulated = piped_at(monkeypatch, 80, *tune, "median_time_to_down:Defender=3", "--no-exact",
                       "-n", "500")  # fmt: skip
    assert re.search(r"= 3 \[\d, \d\] \(target 3\)", " ".join(simulated.split())), simulated


def test_a_spec_keeps_its_defender_with_the_arrow_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A spec line broke between ``(→`` and ``Kaito)`` where its column was narrow (the
    gate's table at 80 columns): the parenthesis stays whole, on whichever line."""
    import numpy as np
    from rich.console import Console

    from simlab.analysis.specs import evaluate_all
    from simlab.report.results import ScenarioRun
    from tests.report.report_synthetic import Truth, synthetic_result

    res = synthetic_result(Truth(), 2_000, np.random.default_rng(5))
    spec = {"figure": "hit_rate", "attack": "strike", "defender": "B", "at_least": 0.5}
    specs = evaluate_all([ScenarioRun(result=res, expect=[spec])])
    for width in range(40, 81):
        monkeypatch.setattr(terminal, "console", Console(width=width, force_terminal=False))
        with terminal.console.capture() as seen:
            terminal.console.print(terminal.specs_table(specs))
        assert not re.search(r"\(→ *$", seen.get(), re.M), seen.get()
        assert "(→ B)" in seen.get(), seen.get()


def test_a_specs_note_keeps_its_dash_with_the_word_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``check`` at 80 columns started a line with a note's dash: ``… at least 0.95`` /
    ``— all three copies pooled``. The dash ends the line before, at every width."""
    import numpy as np
    from rich.console import Console

    from simlab.analysis.specs import evaluate_all
    from simlab.report.results import ScenarioRun
    from tests.report.report_synthetic import Truth, synthetic_result

    res = synthetic_result(Truth(), 2_000, np.random.default_rng(5))
    spec = {"figure": "hit_rate", "attack": "strike", "defender": "B", "at_least": 0.5,
            "note": "all three copies pooled"}  # fmt: skip
    specs = evaluate_all([ScenarioRun(result=res, expect=[spec])])
    broken = 0
    for width in range(40, 81):
        monkeypatch.setattr(terminal, "console", Console(width=width, force_terminal=False))
        with terminal.console.capture() as seen:
            terminal.console.print(terminal.specs_table(specs))
        assert " — " in seen.get() or " —\n" in seen.get(), seen.get()
        assert not re.search(r"^ *—", seen.get(), re.M), seen.get()
        broken += bool(re.search(r" — *$", seen.get(), re.M))
    assert broken, "no width broke the line at the dash"


def test_every_attack_heading_of_a_table_takes_one_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 80 columns ``Bruna: warhammer`` headed its rows on one line and ``Ghoul 1:`` /
    ``ghoul-bite``, two columns longer for the copy's number, on two: a table's headings
    are all on one line, or all broken after the attacker."""
    party = str(ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml")
    text = piped_at(monkeypatch, 80, "run", party, "-n", "300")
    table = text[text.index("attacks (± 95% interval)") : text.index("time-to-down")]
    headings = [line.rstrip() for line in table.splitlines()[4:] if line[:1].strip()]
    assert "Ghoul 1:" in headings, table
    assert all(h.endswith(":") for h in headings), table


def test_the_tune_table_is_as_wide_as_what_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table of a tuning's value and its neighbours was as wide as its title (77
    columns at 80), its three short columns spread across it."""
    text = piped_at(monkeypatch, 80, "tune", DUEL, "--vary", "Defender.hp=10:60", "--target",
                  "median_time_to_down:Defender=8")  # fmt: skip
    lines = text.splitlines()
    rule = next(k for k, line in enumerate(lines) if line.startswith("─"))
    rows = [lines[rule - 1], *lines[rule + 1 : rule + 4]]  # the header and three values
    assert len(lines[rule]) <= max(len(row) for row in rows) + 1, text


def test_a_drift_table_of_distributions_alone_leaves_out_their_blank_figures() -> None:
    """Where every drifted figure was a distribution, the narrow drift table kept an empty
    ``baseline → current`` column (18 columns at 80) and broke the figure's name over
    three lines; the wide table, ``—`` under baseline and current. A column blank in
    every row is left out, and the name takes the room."""
    from simlab import api
    from simlab.analysis.drift import compare_results
    from tests.support import printed_at

    quickstart = api.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    base = api.simulate(quickstart, n=1000, seed=7)
    current = api.simulate(quickstart.with_({"stone-strike.profile[9]": 8}), n=1000, seed=3)
    drift = compare_results([current], [base])
    moved = drift.table[drift.table.significant | drift.table.drifted]
    assert set(moved.kind) == {"pmf"}, moved
    for width in (80, 130):
        text = printed_at(lambda: terminal.print_drift(drift, "base.json"), width)
        table = text.split("statistically different from the baseline")[1]
        header = next(line for line in table.splitlines() if "status" in line)
        assert "baseline" not in header and "current" not in header, (width, table)
        assert "—" not in table, (width, table)
        # the name on one line, or two where the room ends before its defender
        assert "damage distribution of Brute stone-strike →" in table or (
            "Brute stone-strike → Kaito" in table
        ), (width, table)


def test_the_columns_of_a_narrow_comparison_are_two_spaces_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Closed up to fit 80 columns, the comparison's numbers stood one space apart:
    ``+0.22 ± 0.02 3.8`` and ``0.9179 0.9179 0.0000 ± 0.0010`` read as one run of
    numbers; and a space more was given before ×, B and diff only where it broke no pair
    onto another line, so that ``Bruna warhammer → Ghoul 1 11.19 12.12`` still ran a
    pair's number into A's. Every column stands two spaces from the one before it."""
    party = str(ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml")
    number, diff = r"(?:[\d.]+|—)", r"(?:[-+]?[\d.]+(?: ± [\d.]+)?|—)"
    row = rf"^(✱✱|✱ |  ) \S.*?\S  +(?:\S.*?\S  +)?{number}  +{number}  +{diff}  +{number}$"
    for args in ((DUEL, "--set", "strike.profile[9]=8", "-n", "300"),
                 (DUEL, "--set", "strike.profile[9]=8", "-n", "2000"),
                 (party, "--set", "Ghoul.hp=30", "-n", "300")):  # fmt: skip
        text = piped_at(monkeypatch, 80, "compare", *args)
        table = re.split(r"\n(?:✱ changed|Not listed)", text.split("interval)\n")[1])[0]
        # a figure's row, not the line of its pair's defender or its unit under it
        rows = [line for line in table.splitlines()[2:]
                if line[3:4].strip() and re.search(r"[\d—]$", line)]  # fmt: skip
        assert len(rows) >= 5, table
        for line in rows:
            assert re.match(row, line), (args, line, table)
            assert not re.search(r"[\d—] [-+\d—]", line), (args, line, table)


@pytest.mark.parametrize("width", ["80", "70"])
def test_a_checked_figure_shares_its_line_with_its_pair_to_the_arrow_at_least(
    monkeypatch: pytest.MonkeyPatch, width: str
) -> None:
    """``run --check`` broke a figure's label after the attacker's colon,
    ``hit_rate: Attacker:`` / ``strike → Defender``. A figure shares its line with its
    pair only up to its arrow at least (``hit_rate: Attacker: strike →``), else stands
    alone over it (``hit_rate:`` / ``Attacker: strike → Defender``), every row of a
    table in one form (party-3v3 mixed ``hit_rate: Kaito: quick-jab → Ogre`` with
    ``hit_rate:`` / ``Kaito: quick-jab → Brute 1``)."""
    monkeypatch.setenv("COLUMNS", width)
    monkeypatch.setattr(terminal, "console", terminal._make_console())
    party = str(ROOT / "scenarios/shattered-spirits/party-3v3.yaml")
    for scenario, rows in ((DUEL, 4), (party, 15)):
        done = CliRunner().invoke(main, ["run", scenario, "--check", "-n", "300"])
        assert done.exit_code == 0, done.output
        table = done.output.split("check against the exact answers")[1].split("\n* ")[0]
        heads = [re.match(r" ?[a-z_]+:(?: (.*?))?(?:  |$)", line) for line in table.splitlines()]
        beside = [head.group(1) for head in heads if head]
        assert len(beside) >= rows, table
        for pair in filter(None, beside):
            assert "→" in pair, table
        # every row in one form: its pair beside its figure in all of them, or in none
        assert all(beside) or not any(beside), table


def test_exact_names_a_lone_refusal_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``simlab exact`` on the quickstart said ``not solved exactly: time-to-down (…):``
    and, on the line under it, ``- time-to-down: expected a one-sided duel …``: one refusal named
    twice. Its line alone names it; several are still counted in the heading."""
    quickstart = str(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    text = piped_at(monkeypatch, 80, "exact", quickstart)
    refused = text.split("not solved exactly")[1]
    assert refused.count("time-to-down") == 1, refused
    assert "- time-to-down: expected a one-sided duel" in " ".join(refused.split()), refused


@pytest.mark.parametrize("strict", [False, True])
def test_a_borderline_spec_keeps_its_room_at_80_columns(strict: bool) -> None:
    """At 80 columns ``PASS (borderline: interval reaches past the bound)`` took a column
    26 wide, and the spec beside it ran over five lines. The verdict is the word and a
    mark, said once under the table; a spec of 60 characters takes two lines, and a wide
    terminal keeps the words beside the verdict."""
    import numpy as np

    from simlab.analysis.specs import evaluate, evaluate_all
    from simlab.report.results import ScenarioRun
    from tests.report.report_synthetic import Truth, synthetic_result
    from tests.support import printed_at

    res = synthetic_result(Truth(), 2_000, np.random.default_rng(5))
    spec = {"figure": "hit_rate", "attack": "strike", "defender": "B", "at_least": 0.0}
    bound = round(evaluate(res, spec).measured - 0.003, 3)  # a pass, inside its interval
    entries = [{**spec, "at_least": bound}, {**spec, "attacker": "A", "at_least": bound}]
    specs = evaluate_all([ScenarioRun(result=res, expect=entries)], strict=strict)
    assert specs.borderline.all() and (specs.verdict == "fail").all() == strict, specs
    mark, word = ("‡", "FAIL") if strict else ("†", "PASS")
    text = printed_at(lambda: terminal.print_specs(specs), 80)
    lines = [line.rstrip() for line in text.splitlines()]
    assert max(len(line) for line in lines) <= 80, text
    rows = [k for k, line in enumerate(lines) if line.lstrip().startswith("synthetic:")]
    assert len(rows) == 2, text
    # each spec on two lines at most: the next row, or the key, two lines on
    assert rows[1] - rows[0] <= 2 and lines[rows[1] + 2].startswith(f"{mark} "), text
    for row in rows:
        assert lines[row].endswith(f"{word} {mark}"), text
    key = f"{mark} {terminal.VERDICT_MARKS[mark]}"
    assert [line for line in lines if line.startswith(mark)] == [key], text
    wide = " ".join(printed_at(lambda: terminal.print_specs(specs), 140).split())
    assert f"{word} ({terminal.VERDICT_MARKS[mark]})" in wide and mark not in wide, wide


def test_an_exact_crit_rate_of_0_reads_as_a_run_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``simlab exact`` wrote the crit rate of an attack that cannot crit ``0.00000``,
    where ``simlab run`` writes ``—`` with a note under its table; and where no pair
    can crit, a column of ``0.00000`` that the run leaves out."""
    quickstart = str(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    for args in (["exact", quickstart], ["run", quickstart, "-n", "300"]):
        text = piped_at(monkeypatch, 80, *args)
        assert "0.00000" not in text, text
        table = text.split("· attacks")[1]
        # the pair's row, then its hit rate, its crit rate and its mean damage
        assert re.search(r"^ *Kaito: quick-jab\b.* Brute .* — +\S+(?: ± \S+)?$", table, re.M), text
        assert re.search(r"^Crit rate —: ", table, re.M), text
    text = piped_at(monkeypatch, 80, "exact", DUEL)
    assert "crit rate" not in text and "0.00000" not in text, text
    assert terminal.EXACT_NO_CRIT_COLUMN_NOTE in text, text


def test_a_two_sided_duel_is_refused_with_what_exact_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``a duel needs exactly one combatant with attacks; got 2`` read oddly of a duel in
    which both fight back: the refusal says what the engine answers, what the scenario
    has and, in the heading, what to run. Where nothing is solvable (exit 2), the error
    names the file, each reason says what was expected and what was found, and the last
    line what to run."""
    from tests.support import UNSOLVABLE

    quickstart = str(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    said = " ".join(piped_at(monkeypatch, 80, "exact", quickstart).split())
    assert (
        "not solved exactly (use `simlab run` to simulate it): - time-to-down: expected a "
        "one-sided duel (one combatant with attacks, and one opponent that does not fight "
        "back); got 2 combatants with attacks, Kaito and Brute, who fight each other"
    ) in said
    bad = tmp_path / "unsolvable.yaml"
    bad.write_text(UNSOLVABLE)
    done = CliRunner().invoke(main, ["exact", str(bad)])
    assert done.exit_code == 2, done.output
    head, *reasons, hint = done.stderr.splitlines()
    assert head == f"{bad}: cannot solve scenario 'unsolvable' exactly:", done.stderr
    assert len(reasons) == 3 and hint == "use `simlab run` to simulate it", done.stderr
    for reason in reasons:
        assert re.match(r"  - .*expected .*; got ", reason), done.stderr


@pytest.mark.parametrize("width", ["60", "70"])
def test_a_checked_figure_takes_two_lines_at_most(
    monkeypatch: pytest.MonkeyPatch, width: str
) -> None:
    """``run --check`` at 60 columns broke each pair between its names, ``hit_rate:`` /
    ``Brute:`` / ``stone-strike →`` / ``Kaito``: four lines a row. A row takes two at
    most, the figures the pair leaves no room for going on in a further table, and every
    figure of every row is printed."""
    monkeypatch.setenv("COLUMNS", width)
    monkeypatch.setattr(terminal, "console", terminal._make_console())
    quickstart = str(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    done = CliRunner().invoke(main, ["run", quickstart, "--check", "-n", "300"])
    assert done.exit_code == 0, done.output
    text = done.output.split("\ncertain and")[0]
    tables = text.split("check against the exact answers\n")[1:]
    rows: list[list[str]] = []
    for table in tables:
        body = table.splitlines()[table.splitlines().index(next(
            line for line in table.splitlines() if line.startswith("─"))) + 1 :]  # fmt: skip
        for line in body:
            if re.match(r" ?[a-z_]+:", line):
                rows.append([line])
            elif line.strip():  # not the next title's indent
                rows[-1].append(line)
    assert len(rows) >= 5 and all(len(row) <= 2 for row in rows), text
    assert max(len(line) for line in text.splitlines()) <= int(width), text
    said = " ".join(text.split())
    for header in ("simulated", "exact", "z", "p"):
        assert header in said, text
    assert said.count("stone-strike → Kaito") == 3 * len(tables), text  # whole, every table


def test_the_certain_figures_keep_each_pair_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The note of ``run --check``'s certain figures (exactly 0 or 1, nothing to test)
    was broken at any space at 80 columns: ``crit_rate of Sato: war-cry →`` / ``Brute 1
    (exact 0)``, ``Brute`` / ``1``. It breaks between its figures only, each figure with
    its pair and answer on a line."""
    party = str(ROOT / "scenarios/shattered-spirits/party-3v3.yaml")
    text = piped_at(monkeypatch, 80, "run", party, "--check", "-n", "300")
    note = text.split("certain and simulated so, nothing to test:")[1].split("\nnot checked")[0]
    whole = re.findall(r"^ *crit_rate of \S+: \S+ → \S+(?: \d)? \(exact 0\);?$", note, re.M)
    assert len(whole) == note.count("(exact") >= 6, note


def test_a_comparison_s_notes_keep_each_name_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note of the figures only B has broke ``Sato`` / ``Kenshiro`` of a pair at 80
    columns: the notes under a comparison break at spaces, never inside a name."""
    from tests.support import broken_names

    names = {"Sato": "Sato Kenshiro", "Brute": "Gravelmaw the Brute"}
    text = (ROOT / "scenarios/shattered-spirits/party-3v3.yaml").read_text(encoding="utf-8")
    for old, new in names.items():
        text = text.replace(f"name: {old},", f"name: {new},")
    (tmp_path / "long.yaml").write_text(text, encoding="utf-8")
    out = piped_at(monkeypatch, 80, "compare", str(tmp_path / "long.yaml"), "--set",
                 "Gravelmaw the Brute.guard=3", "-n", "2000")  # fmt: skip
    notes = out[out.index("The paired interval") :]
    assert "only B has" in notes, notes  # pairs B's Brutes made and A's did not
    assert max(len(line) for line in notes.splitlines()) <= 80, notes
    assert not broken_names(notes, names.values()), notes


EVADE = str(ROOT / "scenarios/shattered-spirits/evade-threshold.yaml")


def _within_its_precision(cell: str, precision: float) -> bool:
    """Whether ``value ± half`` reads within the limit of ``--precision`` (H for a rate,
    H × max(|mean|, 1) for a mean)."""
    value, half = (float(x) for x in cell.split(" ± "))
    return half <= precision * max(value, 1.0)


def test_a_run_to_a_precision_shows_its_figures_within_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run --precision 0.01`` said "precision met" over ``2.50 ± 0.03``, a mean damage
    whose limit is 0.025 (its half-width, 0.024, rounded up to the decimals of its
    interval), and ``run --precision 0.001`` over ``3.416 ± 0.004``."""
    text = piped_at(monkeypatch, 80, "run", EVADE, "--precision", "0.01", "-n", "200000")
    assert "precision met" in text, text
    row = next(line for line in text.splitlines() if line.startswith("Attacker: strike"))
    cells = re.findall(r"\S+ ± \S+", row)
    assert len(cells) == 2 and all(_within_its_precision(c, 0.01) for c in cells), row
    assert max(len(line) for line in text.splitlines() if "precision:" not in line) <= 80


def test_a_sweep_to_a_precision_shows_its_figures_within_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sweep's point at the scenario's guard showed the run's ``2.50 ± 0.03``."""
    text = piped_at(monkeypatch, 80, "sweep", EVADE, "--vary", "Defender.guard=0:2",
                    "--precision", "0.01", "-n", "200000")  # fmt: skip
    attacks = text[text.index("Attacker: strike → Defender") : text.index("time-to-down")]
    cells = re.findall(r"\S+ ± \S+", attacks)
    assert len(cells) == 6 and all(_within_its_precision(c, 0.01) for c in cells), attacks


@pytest.mark.slow  # a report with its pictures: about 5 s
def test_a_report_page_to_a_precision_shows_its_figures_within_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The page's ``2.50 [2.47, 2.53]`` beside a sample size "precision met" of 0.01:
    half its width read 0.03, past the limit of 0.025."""
    piped_at(monkeypatch, 80, "report", EVADE, "--precision", "0.01", "-n", "200000",
             "--out", str(tmp_path))  # fmt: skip
    page = (tmp_path / "report.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| Attacker | strike |"))
    for value, low, high in re.findall(r"(\S+) \[(\S+), (\S+)\]", row):
        limit = 0.01 * max(float(value), 1.0)
        assert (float(high) - float(low)) / 2 <= limit, row


def test_a_tune_to_a_precision_shows_its_figures_within_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``tune --precision 0.01`` showed ``2.50 [2.47, 2.53]`` for a mean damage held to
    0.025: half its interval read 0.03."""
    text = piped_at(monkeypatch, 80, "tune", EVADE, "--vary", "Defender.guard=0:4", "--target",
                    "mean_damage:strike=2.2", "--precision", "0.01", "-n", "200000",
                    "--no-exact")  # fmt: skip
    figures = re.findall(r"^ \d\S*(?:  ◀)? +(\S+) \[(\S+), (\S+)\] +simulated$", text, re.M)
    assert len(figures) == 3, text
    for value, low, high in figures:
        assert (float(high) - float(low)) / 2 <= 0.01 * max(float(value), 1.0), text


QUICKSTART = str(ROOT / "scenarios/shattered-spirits/quickstart.yaml")


def _median_note(text: str) -> str:
    """The median's sentence of the note under a table, its lines joined."""
    joined = " ".join(text.split())
    return joined[joined.index("Median: the round") :].split(").", 1)[0]


def test_the_median_note_says_no_round_past_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``max_rounds: 5`` the note under the table said "[6, not reached]: the median
    may lie from round 6 to beyond the cap", a round past the cap, whatever the table."""
    text = piped_at(monkeypatch, 80, "run", QUICKSTART, "--set", "max_rounds=5", "-n", "2000")
    assert "not reached]" not in text, text  # no median interval reaches past the cap here
    assert "round 6" not in _median_note(text), text


def test_the_median_note_takes_its_example_from_its_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Capped at round 7, the run's and the sweep's tables show ``[7, not reached]``: the
    note explains that interval, kept whole on its line, not a fixed ``[6, …]``."""
    said = "[7, not reached]: the median may lie from round 7 to beyond the cap"
    run = piped_at(monkeypatch, 80, "run", QUICKSTART, "--set", "max_rounds=7", "-n", "2000")
    sweep = piped_at(monkeypatch, 80, "sweep", QUICKSTART, "--set", "max_rounds=7", "--vary",
                     "Kaito.hp=22:24:2", "-n", "2000")  # fmt: skip
    for text in (run, sweep):
        table = text[text.index("time-to-down (rounds") : text.index("Median: the round")]
        assert "[7, not reached]" in table, text
        assert said in _median_note(text), text
        assert any("[7, not reached]:" in line for line in text.splitlines()), text


@pytest.mark.slow  # a report with its pictures: about 5 s
def test_the_page_s_median_term_takes_its_example_from_its_table(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The page's term "Median" said ``[6, not reached]`` beside a table of ``[7, not
    reached]``, and the contents, whose medians have no interval, said it too."""
    piped_at(monkeypatch, 80, "report", QUICKSTART, "--set", "max_rounds=7", "-n", "2000",
             "--out", str(tmp_path))  # fmt: skip
    page = (tmp_path / "report.md").read_text()
    contents = page[page.index("## Contents") : page.index("| scenario |")]
    assert "Median: " in contents and "not reached]" not in contents, contents
    assert "95% interval" not in contents.split("Median: ")[1], contents
    term = next(line for line in page.splitlines() if line.startswith("- **Median**"))
    assert "[7, not reached]: the median may lie from round 7 to beyond the cap" in term, term
    assert "| 7 [7, not reached] |" in page, page


SS_FIGHT = str(ROOT / "scenarios/benchmarks/ss-fight.yaml")


@pytest.mark.parametrize("command", [["exact"], ["run", "-n", "500", "--check"]])
def test_a_figure_a_fight_moves_for_two_reasons_says_both(
    monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """A Thug's blade on the Ranger, whom both Thugs can expose and whom the Witch's hex
    can impair: ``exact`` and ``run --check`` named the first Thug's blade alone."""
    text = piped_at(monkeypatch, 80, command[0], SS_FIGHT, *command[1:])
    item = text[text.index("  - mean damage of Thug 1: blade → Ranger") :].split("\n  - ")[0]
    said = " ".join(item.split())
    assert "Thug 1's 'blade' and Thug 2's 'blade' can inflict 'exposed 1' on Ranger" in said
    assert said.endswith("; Witch's 'hex' can inflict 'impaired 1' on Thug 1 during the fight")
    assert max(len(line) for line in text.splitlines()) <= 80, text


def test_a_spec_of_a_run_to_a_precision_reads_within_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``simlab check`` of a scenario run to its own ``precision: 0.01`` printed its spec's
    mean damage ``2.50 ± 0.03``, past the limit of 0.025 its run met."""
    text = Path(EVADE).read_text(encoding="utf-8")
    spec = "expect:\n  - {figure: mean_damage, attack: strike, at_least: 2}\n"
    scenario = tmp_path / "evade.yaml"
    scenario.write_text(f"{text}precision: 0.01\n{spec}", encoding="utf-8")
    said = piped_at(monkeypatch, 80, "check", str(scenario))
    assert "precision met" in said, said
    cells = re.findall(r"\S+ ± \S+", said)
    assert len(cells) == 1 and _within_its_precision(cells[0], 0.01), said


def test_a_swept_list_of_statuses_is_printed_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep of a row's statuses, ``[stun 1]`` and ``[stun 9]``, printed its points as
    blanks: rich read each value as a style tag and dropped it."""
    sweep = ["sweep", QUICKSTART, "--vary", "stone-strike.status.12=[stun 1],[stun 9]"]
    text = piped_at(monkeypatch, 80, *sweep, "-n", "200")
    assert re.search(r"^ Kaito +\[stun 1\] +0\.\d", text, re.M), text
    assert re.search(r"^ +\[stun 9\] +0\.\d", text, re.M), text


@pytest.mark.parametrize("name", ["Brute [boss]", "Brute :skull:"])
def test_a_name_is_printed_as_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    """A combatant named ``Brute [boss]`` was ``Brute`` and a space in every table (rich
    read a style tag), and one named ``Brute :skull:`` was ``Brute 💀`` (an emoji code)."""
    scenario = Path(QUICKSTART).read_text().replace("name: Brute,", f'name: "{name}",')
    path = tmp_path / "named.yaml"
    path.write_text(scenario)
    text = piped_at(monkeypatch, 80, "run", str(path), "-n", "200")
    assert re.search(rf"^{re.escape(name)}: ", text, re.M), text
    assert re.search(rf"^{re.escape(name)} +enemies ", text, re.M), text


def test_a_comparison_of_two_rule_systems_explains_no_figure_it_does_not_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two rule systems share a mean length and a draw rate alone: the note under their
    table said what a mean time-to-down is the mean of, a figure not in it."""
    other = str(ROOT / "scenarios/glitters-d20/training-duel.yaml")
    text = piped_at(monkeypatch, 80, "compare", DUEL, other, "-n", "300")
    assert re.search(r"^✱✱ +mean rounds ", text, re.M), text
    assert "time-to-down" not in text, text
