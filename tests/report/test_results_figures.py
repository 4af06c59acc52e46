"""results.json's totals and figures beside the counts: refused where a hand changed them.

A results file keeps an attack's ``attempts``, ``hits``, ``hit_rate``…, a combatant's
``downed``, medians and event rates, the sides' win rates and more beside the per-batch
counts they are computed from. The readers (``report --from``, ``check --from``, the
drift gate) compute every figure from the counts: an edited total was read without a
word and had no effect. Now a figure that is not the counts' is refused, naming its
line and place in the file; every file simlab writes still reads back.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import simlab
from simlab import api
from simlab.cli import main
from simlab.errors import InputError
from simlab.report.results import load_results, results_document

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
EXAMPLES = sorted((ROOT / "scenarios").rglob("*.yaml"))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The results document simlab writes for a quickstart run, as read from the file."""
    run = api.run_scenario(QUICKSTART, n=3000, seed=11)
    path = simlab.save_results(run, tmp_path_factory.mktemp("written") / "results.json")
    return json.loads(path.read_text())


def _at(doc: Any, where: tuple[str | int, ...]) -> Any:
    for step in where:
        doc = doc[step]
    return doc


def _write(doc: dict[str, Any], path: Path) -> Path:
    """``doc`` written as simlab writes it: indented, a value a line."""
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def _line(doc: dict[str, Any], where: tuple[str | int, ...]) -> int:
    """The line the value at ``where`` is written on, found by writing a mark there."""
    marked = copy.deepcopy(doc)
    _at(marked, where[:-1])[where[-1]] = "@@here@@"
    lines = json.dumps(marked, indent=2).splitlines()
    return next(i for i, line in enumerate(lines, 1) if "@@here@@" in line)


def _set(doc: dict[str, Any], where: tuple[str | int, ...], value: Any) -> None:
    _at(doc, where[:-1])[where[-1]] = value


ATTACK = ("scenarios", 0, "attacks", 0)
KAITO = ("scenarios", 0, "combatants", 0)
BRUTE = ("scenarios", 0, "combatants", 1)
PAIR = "Kaito's quick-jab on Brute"


def _was(doc: dict[str, Any], where: tuple[str | int, ...]) -> Any:
    """The figure as simlab wrote it (the reader must ask for just that)."""
    return _at(doc, where)


@pytest.mark.parametrize(
    ("where", "value", "what"),
    [
        # the walkthrough's edits of the first attack entry
        ((*ATTACK, "hits"), lambda d: sum(_at(d, ATTACK)["batches"]["attempts"]) + 5,
         f"the hits of {PAIR} added up over its batches"),
        ((*ATTACK, "crits"), lambda d: sum(_at(d, ATTACK)["batches"]["attempts"]) + 1,
         f"the crits of {PAIR} added up over its batches"),
        ((*ATTACK, "attempts"), 10, f"the attempts of {PAIR} added up over its batches"),
        ((*ATTACK, "hit_rate"), 0.5, f"the share of the attempts of {PAIR} that hit"),
        ((*ATTACK, "hits"), -3, f"the hits of {PAIR} added up over its batches"),
        ((*ATTACK, "attempts"), 1.5, f"the attempts of {PAIR} added up over its batches"),
        # a count with a fraction written, or true for a rate of 1: not what simlab writes
        ((*ATTACK, "attempts"), lambda d: float(sum(_at(d, ATTACK)["batches"]["attempts"])),
         f"the attempts of {PAIR} added up over its batches"),
        ((*ATTACK, "hit_rate"), True, f"the share of the attempts of {PAIR} that hit"),
        ((*ATTACK, "damage_total"), 7, f"the damage of {PAIR} added up over its batches"),
        ((*ATTACK, "crit_rate"), 0.25, f"the share of the attempts of {PAIR} that crit"),
        ((*ATTACK, "hit_rate_ci"), [0.5, 0.6], f"the interval of the hit rate of {PAIR}"),
        ((*ATTACK, "crit_rate_ci"), [0.0], f"the interval of the crit rate of {PAIR}"),
        ((*ATTACK, "mean_damage"), 9.5, f"the damage of {PAIR} over its attempts"),
        ((*ATTACK, "mean_damage_ci"), [0.0, None],
         f"the batch-means interval of the mean damage of {PAIR}"),
        ((*ATTACK, "defender"), "Kaito", "the defender its pair names"),
        # time-to-down and outcomes of a combatant
        ((*KAITO, "downed"), 5, "the encounters Kaito went down in, its down_round_counts "
                                "added up"),
        ((*KAITO, "down_rate"), 0.01, "the share of all encounters Kaito went down in"),
        ((*KAITO, "down_rate_ci"), [0.0, 1.0], "the interval of the down rate of Kaito"),
        ((*KAITO, "median_time_to_down"), 3.0, "read from the down_round_counts of Kaito"),
        ((*KAITO, "median_time_to_down"), None, "read from the down_round_counts of Kaito"),
        ((*KAITO, "median_time_to_down_ci"), [1.0, 2.0],
         "its interval, read from the down_round_counts of Kaito"),
        ((*KAITO, "median_time_to_down_when_downed"), 2.0,
         "read from the down_round_counts of Kaito"),
        ((*KAITO, "capped"), 99, "the censor_round_counts of Kaito at the round cap"),
        ((*KAITO, "name"), "Kaitoo", "combatant 0 of the layout"),
        ((*KAITO, "side"), "enemies", "the side of Kaito in the layout"),
        # rule events
        ((*BRUTE, "events", "out", "rate"), 0.1,
         "the share of all encounters with Brute's out event, its round_counts added up"),
        # sides, draws, encounter length
        (("scenarios", 0, "sides", 0, "win_rate"), 0.9, "the share of all encounters party won"),
        (("scenarios", 0, "sides", 1, "win_rate_ci"), [0.1, 0.2],
         "the interval of the win rate of enemies"),
        (("scenarios", 0, "sides", 1, "name"), "monsters", "side 1 of the layout"),
        (("scenarios", 0, "draws", "rate"), 0.5, "the share of all encounters drawn"),
        (("scenarios", 0, "draws", "ci"), [0.0, 0.5], "the interval of the draw rate"),
        (("scenarios", 0, "mean_rounds"), 3, "the mean of rounds_counts"),
    ],
)  # fmt: skip
def test_a_figure_that_is_not_its_counts_is_refused_where_it_is(
    written: dict[str, Any], tmp_path: Path, where: tuple[str | int, ...], value: Any,
    what: str,
) -> None:  # fmt: skip
    """Each edit was read without a word, and the figure shown was the counts' anyway.
    The refusal names the file, the line, the JSON path, what simlab wrote there (the
    counts' figure) and what was found."""
    doc = copy.deepcopy(written)
    was = _was(doc, where)
    got = value(doc) if callable(value) else value
    assert got != was or type(got) is not type(was)
    _set(doc, where, got)
    path = _write(doc, tmp_path / "results.json")
    place = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in where).lstrip(".")
    expected = (
        f"{path}:{_line(doc, where)}: {place} (quickstart): expected "
        f"{json.dumps(was)}, {what}; got {json.dumps(got)}"
    )
    with pytest.raises(InputError) as refused:
        load_results(path)
    assert str(refused.value) == expected


def test_a_figure_that_is_missing_is_refused_at_its_entry(
    written: dict[str, Any], tmp_path: Path
) -> None:
    doc = copy.deepcopy(written)
    hits = _at(doc, ATTACK).pop("hits")
    path = _write(doc, tmp_path / "results.json")
    with pytest.raises(InputError) as refused:
        load_results(path)
    assert str(refused.value) == (
        f"{path}:{_line(doc, ATTACK)}: scenarios[0].attacks[0] (quickstart): expected "
        f"{hits}, the hits of {PAIR} added up over its batches; got no 'hits' entry"
    )


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        (("scenarios", 0, "precision"), {"rule": "±0.05", "cap": 5000, "encounters": 30,
                                          "met": True},
         "precision.encounters (quickstart): expected 3000, the encounters of the run; got 30"),
        (("scenarios", 0, "precision"), {"rule": "±0.05", "cap": 300, "encounters": 3000,
                                          "met": False},
         "precision.cap (quickstart): expected a cap of at least the 3,000 encounters of the "
         "run; got 300"),
        (("interval_level",), 0.9,
         "interval_level: expected 0.95, the level of every interval the file holds; got 0.9"),
    ],
)  # fmt: skip
def test_a_record_that_disagrees_with_the_run_is_refused(
    written: dict[str, Any], tmp_path: Path, where: tuple[str | int, ...], value: Any,
    words: str,
) -> None:  # fmt: skip
    """The report says "stopped at N encounters (cap C)" from the precision record, and
    the file's intervals are at its interval level: neither was checked."""
    doc = copy.deepcopy(written)
    _set(doc, where, value)
    path = _write(doc, tmp_path / "results.json")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:\d+: (scenarios\[0\]\.)?"
                                         f"{re.escape(words)}$"):  # fmt: skip
        load_results(path)


def test_an_impossible_batch_is_named_with_its_own_counts(
    written: dict[str, Any], tmp_path: Path
) -> None:
    """The message quoted the pair's totals (``got 145657 hits, 0 crits, 149806
    attempts``, which look valid) and not the batch that holds the impossible count."""
    doc = copy.deepcopy(written)
    batches = _at(doc, ATTACK)["batches"]
    attempts, crits = batches["attempts"][3], batches["crits"][3]
    batches["hits"][3] = attempts + 10
    path = _write(doc, tmp_path / "results.json")
    with pytest.raises(InputError) as refused:
        load_results(path)
    assert str(refused.value) == (
        f"{path}:{_line(doc, (*ATTACK, 'batches', 'hits', 3))}: "
        f"scenarios[0].attacks[0].batches.hits[3] (quickstart): expected the hits and "
        f"crits of batch 3 of {PAIR} at most its {attempts} attempts; got {attempts + 10} "
        f"hits and {crits} crits"
    )


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda s: s["attacks"].append(copy.deepcopy(s["attacks"][0])),
         r"attacks\[\d+\]\.pair \(quickstart\): expected each attack pair once; got "
         r"\[0, 1, 1\] again \(attacks\[0\]\)"),
        (lambda s: s["attacks"][0].update(
            {"batches": {k: [0] * 32 for k in ("attempts", "hits", "crits", "damage")},
             "damage_counts": {}}),
         r"attacks\[0\]\.batches\.attempts \(quickstart\): expected attempts of Kaito's "
         r"quick-jab on Brute in some batch \(an entry is written for each attack made\); "
         "got none"),
    ],
)  # fmt: skip
def test_an_attack_entry_simlab_does_not_write_is_refused(
    written: dict[str, Any], tmp_path: Path, edit: Any, words: str
) -> None:
    """A pair's entry twice (the second silently replaced the first's counts) or an
    entry of no attempts (read as a pair never attempted)."""
    doc = copy.deepcopy(written)
    edit(doc["scenarios"][0])
    path = _write(doc, tmp_path / "results.json")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:\d+: scenarios\[0\]\.{words}$"):
        load_results(path)


@pytest.mark.parametrize("scenario", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_results_of_every_example_read_back(scenario: Path, tmp_path: Path) -> None:
    """Every file simlab writes is read: a small run (intervals of few successes,
    medians not reached) of each example scenario of every rule system."""
    run = api.run_scenario(scenario, n=200, seed=3)
    path = simlab.save_results(run, tmp_path / "results.json")
    again = json.dumps(results_document(load_results(path)), indent=2) + "\n"
    assert again == path.read_text()


def test_a_precision_run_and_the_committed_baseline_read_back(tmp_path: Path) -> None:
    """A run stopped by a precision (its record checked against it) and the baseline in
    the repository, written by an earlier simlab: its figures agree with its counts to
    the last digits another version's arithmetic may change."""
    run = api.run_scenario(QUICKSTART, n=20_000, seed=5, precision=0.05)
    assert run.result.meta["precision"]["encounters"] < 20_000
    path = simlab.save_results(run, tmp_path / "results.json")
    (back,) = load_results(path)
    assert back.result.meta["precision"] == run.result.meta["precision"]
    baseline = load_results(ROOT / "reports/baseline/results.json")
    assert len(baseline) == 30


def test_check_and_report_from_an_edited_file_exit_2(
    written: dict[str, Any], tmp_path: Path
) -> None:
    """``simlab check --from`` passed all specs (exit 0) and ``report --from`` drew the
    counts' figures over an edited ``hits``."""
    doc = copy.deepcopy(written)
    del doc["run"]
    _at(doc, ATTACK)["hits"] += 7
    path = _write(doc, tmp_path / "bad.json")
    line = _line(doc, (*ATTACK, "hits"))
    for args in (["check", "--from", path], ["report", "--from", path, "--out", tmp_path / "r"]):
        done = CliRunner().invoke(main, [str(a) for a in args])
        assert done.exit_code == 2, done.output
        assert done.output.startswith(f"{path}:{line}: scenarios[0].attacks[0].hits "
                                      "(quickstart): expected ")  # fmt: skip
    assert not (tmp_path / "r").exists()
