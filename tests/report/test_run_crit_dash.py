"""A run's attacks table, in the terminal and on the pages, reads ``—`` for the crit
rate of a pair that cannot crit, and ``0 (< x)`` for one that can but saw no crit in the
run, where the scenario or the exact answers tell which; results read back with neither
keep the run's own rule (no crit seen: ``—``) and its note."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import simlab
from simlab.api import run_scenario
from simlab.report import render, terminal
from simlab.report.results import ScenarioRun
from simlab.tuning.figures import figure_counts
from tests.support import printed_at

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
#: glitters-d20: every attack crits on a natural 20; 3 encounters on seed 3 see none.
FIGHTER = SCENARIOS / "glitters-d20/training-duel.yaml"
SS_DUEL = SCENARIOS / "benchmarks/ss-duel.yaml"
QUICKSTART = SCENARIOS / "shattered-spirits/quickstart.yaml"
#: Why a pair cannot crit, as the notes say it.
PROFILE = "its profile has no crit row"
EXACT = "its exact crit rate is 0 whatever the fight"


def _fighter_without_crits() -> ScenarioRun:
    run = run_scenario(simlab.load(FIGHTER), n=3, seed=3)
    counts = figure_counts(run.result.tallies, run.result.layout, 3)
    crits = {on: c.events for (figure, on), c in counts.items() if figure == "crit_rate"}
    assert len(crits) == 3 and not any(crits.values()), crits  # three pairs, no crit seen
    return run


def _crit_cells(text: str) -> list[str]:
    """The crit rate cells of the fighter's rows of a terminal attacks table."""
    rows = [line for line in text.splitlines() if line.startswith("Fighter:")]
    return [re.split(r"\s{2,}", row.strip())[4] for row in rows]


def test_a_run_that_saw_no_crit_of_attacks_that_can_crit_shows_their_zeros() -> None:
    """The crit column was left out, "no attack made a crit in the run", of attacks
    that crit one time in twenty."""
    run = _fighter_without_crits()
    text = printed_at(lambda: terminal.print_result(run.result), 80)
    cells = _crit_cells(text)
    assert len(cells) == 3 and all(cell.startswith("0 (< 0.") for cell in cells), text
    assert "Crit rate left out" not in text and "Crit rate —" not in text
    header, rows, note = render._attack_rows(run)
    crit = header.index("crit rate [95%]")
    assert all(row[crit].startswith("0 [0, 0.") for row in rows), rows  # no crit, an interval
    assert note == ""


def test_a_run_of_attacks_that_cannot_crit_says_they_cannot() -> None:
    """ss-duel's strike has no crit row: the column is left out, saying no attack can
    crit; quick-jab beside stone-strike reads — with a note in those words."""
    alone = simlab.simulate(simlab.load(SS_DUEL), n=50)
    said = " ".join(printed_at(lambda: terminal.print_result(alone), 80).split())
    assert terminal.CANNOT_CRIT_COLUMN_NOTE.format(why=PROFILE) in said
    assert "crit rate" not in said.split("Attacker:")[0]  # no column in the header
    quickstart = run_scenario(simlab.load(QUICKSTART), n=50)
    said = " ".join(printed_at(lambda: terminal.print_result(quickstart.result), 80).split())
    assert (
        terminal.CANNOT_CRIT_NOTE.format(why=PROFILE) in said and terminal.NO_CRIT_NOTE not in said
    )
    header, rows, note = render._attack_rows(quickstart)
    crit = header.index("crit rate [95%]")
    assert {row[1]: row[crit] for row in rows}["quick-jab"] == terminal.NO_CRIT
    assert note == terminal.CANNOT_CRIT_NOTE.format(why=PROFILE)


def test_results_read_back_decide_by_their_exact_answers_else_by_the_run() -> None:
    """A results file keeps no scenario, but keeps the exact answers: the fighter's
    exact crit rate of 0.05 says the attack can crit. Without exact answers the run
    alone tells: no crit seen reads —, under today's note."""
    run = _fighter_without_crits()
    read_back = dataclasses.replace(run, result=dataclasses.replace(run.result))
    assert read_back.result._simulated is None
    header, rows, note = render._attack_rows(read_back)
    crit = header.index("crit rate [95%]")
    assert all(row[crit].startswith("0 [0, 0.") for row in rows) and note == "", rows
    bare = dataclasses.replace(read_back, exact=None)
    header, _, note = render._attack_rows(bare)
    assert "crit rate [95%]" not in header and note == terminal.NO_CRIT_COLUMN_NOTE


#: The Ogre's crushing-blow has a crit row, at 12, which its Disadvantage and -1 never
#: reach against Sato's Guard and Cover: its exact crit rate is 0 whatever the fight.
EXACT_ZERO = """\
scenario: exact-zero
rules: shattered-spirits-draft1
encounters: 2000
seed: 3
max_rounds: 30
techniques:
  stone-strike: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], tier: {11: crit, 12: crit},
                 ap: 3, speed: 4}
  crushing-blow: {profile: [0, 0, 0, 1, 3, 5, 6, 8, 9, 11, 13], disadvantage: 1,
                  modifier: -1, tier: {12: crit}, ap: 3, speed: 6}
sides:
  party:
    - {name: Sato, endurance: 11, health: 11, guard: 2, cover: true, plan: [stone-strike]}
  enemies:
    - {name: Ogre, endurance: 20, health: 25, guard: 1, plan: [crushing-blow]}
"""


def _notes(run: ScenarioRun) -> tuple[str, str]:
    """The note under a run's attacks table in the terminal and on the page."""
    text = printed_at(lambda: terminal.print_result(run.result), 80)
    said = " ".join(text.split())
    (terminal_note,) = re.findall(r"Crit rate [^.]*\.", said)
    return terminal_note, render._attack_rows(run)[2]


def test_the_note_gives_only_the_reason_that_applies() -> None:
    """Each note said both reasons a pair may not crit, ``(its profile has no crit
    row, or its exact crit rate is 0 whatever the fight)``, where one applied: the
    quickstart's quick-jab has no crit row, the crushing-blow's row is out of reach."""
    quickstart = run_scenario(simlab.load(QUICKSTART), n=50)
    for note in _notes(quickstart):
        assert note == f"Crit rate —: the attack cannot crit ({PROFILE}).", note
    exact_zero = run_scenario(simlab.loads(EXACT_ZERO), n=50)
    for note in _notes(exact_zero):
        assert note == f"Crit rate —: the attack cannot crit ({EXACT}).", note
    alone = run_scenario(simlab.load(SS_DUEL), n=50)
    for note in _notes(alone):
        assert note == f"Crit rate left out: no attack can crit ({PROFILE}).", note


def test_a_table_with_both_reasons_gives_both() -> None:
    """Sato's quick-jab, without a crit row, against the crushing-blow, whose row is out
    of reach: no attack can crit, each for its own reason, and the note gives both."""
    text = EXACT_ZERO.replace("plan: [stone-strike]}", "plan: [quick-jab]}")
    text = text.replace("sides:", "  quick-jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6], "
                        "ap: 1, speed: 2}\nsides:")  # fmt: skip
    run = run_scenario(simlab.loads(text), n=50)
    for note in _notes(run):
        assert note == f"Crit rate left out: no attack can crit ({PROFILE}, or {EXACT}).", note


def test_the_exact_column_leaves_the_crit_out_with_the_crit_column() -> None:
    """ss-duel's strike cannot crit: the crit rate column is left out, and the exact
    column beside it still read ``exact hit / crit / mean``, ``0.9167 / 0.0000 / 3.1389``.
    Where the column is shown (the quickstart's stone-strike crits), so is the crit."""
    header, rows, _ = render._attack_rows(run_scenario(simlab.load(SS_DUEL), n=50))
    assert "crit rate [95%]" not in header and header[-1] == "exact hit / mean", header
    assert all(len(row[-1].split(" / ")) == 2 for row in rows), rows
    header, rows, _ = render._attack_rows(run_scenario(simlab.load(QUICKSTART), n=50))
    assert header[-1] == "exact hit / crit / mean", header
    assert all(len(row[-1].split(" / ")) == 3 for row in rows), rows


SPIRITS = SCENARIOS / "shattered-spirits/spirits-2v3.yaml"


def test_results_read_back_say_of_pairs_that_cannot_crit_what_the_run_said(
    tmp_path: Path,
) -> None:
    """spirits-2v3's quick-jab has no crit row, and the exact engine refuses the fight:
    read back from its results.json, the report said "no crit in the run (the attack
    cannot crit, or crits too rarely …)" where the fresh run said "cannot crit (its
    profile has no crit row)". The file keeps the pairs that cannot crit and why."""
    import json

    from simlab.report.results import load_results, results_document, write_results_file

    fresh = run_scenario(simlab.load(SPIRITS), n=200)
    path = write_results_file(tmp_path / "results.json", results_document([fresh]), "results")
    kept = json.loads(path.read_text())["scenarios"][0]["cannot_crit"]
    assert kept and set(kept.values()) == {PROFILE}
    assert "Kaito quick-jab → Brute" in kept, kept
    (read_back,) = load_results(path)
    assert read_back.result._simulated is None
    assert _notes(read_back) == _notes(fresh)
    assert _notes(read_back)[0] == f"Crit rate —: the attack cannot crit ({PROFILE})."
