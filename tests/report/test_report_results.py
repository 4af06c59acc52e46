"""results.json: versioned, keeps the counts the tests need, and reads back losslessly."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import simlab
from simlab import api
from simlab.errors import InputError
from simlab.limits import MAX_RESULTS_BYTES
from simlab.report.files import MANIFEST, OutputError
from simlab.report.results import (
    ScenarioRun,
    load_results,
    results_document,
    save_results,
)
from tests.report.report_synthetic import Truth, synthetic_result

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DUEL = ROOT / "scenarios/glitters-d20/training-duel.yaml"


@pytest.fixture(scope="module")
def run() -> ScenarioRun:
    return api.run_scenario(QUICKSTART, n=3000, seed=11)


def test_document_keeps_counts_and_identity(run: ScenarioRun, tmp_path: Path) -> None:
    path = save_results([run], tmp_path / "results.json")
    doc = json.loads(path.read_text())
    assert doc["format"] == 1
    entry = doc["scenarios"][0]
    assert (entry["scenario"], entry["rules"], entry["seed"], entry["encounters"]) == (
        "quickstart",
        "shattered-spirits",
        11,
        3000,
    )
    assert entry["simlab_version"] == simlab.__version__
    res = run.result
    pair = next(a for a in entry["attacks"] if a["attacker"] == "Brute")
    p = res.layout.pair(*pair["pair"])
    assert pair["attempts"] == int(res.tallies.attempts[p].sum())
    assert pair["hits"] == int(res.tallies.hits[p].sum())
    assert pair["crits"] == int(res.tallies.crits[p].sum()) > 0
    assert sum(pair["damage_counts"].values()) == pair["attempts"]
    assert len(pair["batches"]["attempts"]) == res.layout.batches
    kaito = entry["combatants"][0]
    downs = sum(kaito["down_round_counts"].values())
    assert downs + sum(kaito["censor_round_counts"].values()) == 3000
    assert kaito["capped"] == kaito["censor_round_counts"].get(str(res.layout.max_rounds), 0)
    assert sum(s["wins"] for s in entry["sides"]) + entry["draws"]["count"] == 3000
    assert [e["figure"] for e in entry["expect"]] == ["median_time_to_down", "hit_rate",
                                                      "win_rate"]  # fmt: skip
    assert entry["drift_tolerance"] == {"rate": 0.02, "pmf": 0.05, "mean": 0.05, "median": 1.0}
    assert entry["exact"]["attacks"]  # the exact answers travel with the results


def test_round_trip_is_lossless(run: ScenarioRun, tmp_path: Path) -> None:
    save_results([run], tmp_path / "results.json")
    back = load_results(tmp_path)  # a folder holding results.json works too
    assert results_document(back) == results_document([run])
    a, b = run.result, back[0].result
    for one, two in zip(a.tallies, b.tallies, strict=True):
        np.testing.assert_array_equal(one, two)
    pd.testing.assert_frame_equal(a.hit_rates(), b.hit_rates())
    pd.testing.assert_frame_equal(a.time_to_down(), b.time_to_down())
    pd.testing.assert_frame_equal(a.damage(), b.damage())


def test_tallies_it_does_not_know_by_name_are_kept(tmp_path: Path) -> None:
    res = synthetic_result(Truth(), 1000, np.random.default_rng(1))
    known = {"attempts", "hits", "crits", "damage_sum", "damage_hist", "down_round",
             "censor_round", "down_attacks", "event_round", "winner", "rounds"}  # fmt: skip
    others = [f for f in res.tallies._fields if f not in known]
    for name in others:  # e.g. a system's status_damage
        getattr(res.tallies, name).ravel()[[0, -1]] = [7, 9]
    save_results([ScenarioRun(result=res)], tmp_path / "r.json")
    back = load_results(tmp_path / "r.json")[0].result
    for name in others:
        np.testing.assert_array_equal(getattr(back.tallies, name), getattr(res.tallies, name))


@pytest.mark.parametrize(
    ("content", "words"),
    [(None, "no such file"),
     ("{not json", r"expected a results.json file; got a file that is not JSON \(line 1, "
                   "column 2: expecting property name"),
     ("scenario: quickstart\nrules: shattered-spirits\n",  # a scenario given for results
      r"got a file that is not JSON \(line 1, column 1: expecting value\); simlab report"),
     ("\udcff", "got a file that is not text"),
     ('{"format": 0, "scenarios": []}', "expected results format 1; got format 0, which"),
     # a newer simlab's: read it with that simlab, never "write it again" with this one
     ('{"format": 2, "simlab_version": "9.0", "scenarios": []}',
      r"expected results format 1; got format 2 \(written by simlab 9\.0\), newer than "
      r"this simlab \S+ reads; run it with simlab 9\.0 or later$"),
     ('{"format": 2, "scenarios": []}', r"newer .* run it with the simlab that wrote it or later$"),
     ('{"format": "1", "scenarios": []}',
      "expected results format 1; got format '1', which is no format number simlab writes$"),
     ('{"scenarios": []}', "expected results format 1; got no 'format' entry$"),
     ('{"format": 1, "scenarios": [{"scenario": "x"}]}', "expected a complete results.json"),
     ('{"format": 1}', "expected a complete results.json; got no 'scenarios' entry$"),
     # a mapping was read as 0 scenarios, a baseline with nothing to compare
     ('{"format": 1, "scenarios": {}}', "expected a list of scenarios; got a mapping$"),
     ("[1, 2]", "expected a JSON object; got a list$"),
     ('"results"', r"expected a JSON object; got a string \('results'\)$")],
)  # fmt: skip
def test_bad_results_files_are_input_errors(tmp_path: Path, content: str | None,
                                            words: str) -> None:  # fmt: skip
    path = tmp_path / "results.json"
    if content is not None:
        path.write_bytes(content.encode("utf-8", "surrogateescape"))
    with pytest.raises(InputError, match=words):
        load_results(path)


def test_a_results_file_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    """A results file is read within MAX_RESULTS_BYTES, as a scenario file is within its
    own limit (FIFOs and devices: tests/cli/test_integrity.py, in a child process)."""
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_RESULTS_BYTES + 1)  # sparse: no room taken on disk
    limit = rf"{MAX_RESULTS_BYTES + 1:_} bytes \(the limit is {MAX_RESULTS_BYTES:_}\)"
    with pytest.raises(InputError, match=rf"{big}: expected a results\.json file; got {limit}"):
        load_results(big)


@pytest.mark.slow  # writes and reads a large results folder
def test_manifest_of_a_results_folder_is_read_within_the_limit(
    run: ScenarioRun, tmp_path: Path
) -> None:
    simlab.write_report(run, tmp_path / "report")
    manifest = tmp_path / "report" / MANIFEST
    manifest.unlink()
    os.mkfifo(manifest)
    with pytest.raises(InputError, match=r"expected simlab's manifest; got a pipe \(FIFO\)"):
        load_results(tmp_path / "report")


def test_save_results_replaces_only_results_simlab_wrote(run: ScenarioRun, tmp_path: Path) -> None:
    scenario = tmp_path / "victim.yaml"
    scenario.write_text(QUICKSTART.read_text())
    with pytest.raises(OutputError, match="expected a new file or a results file simlab wrote; "
                       "got a file that is not JSON; nothing was written"):  # fmt: skip
        save_results(run, scenario)
    assert scenario.read_text() == QUICKSTART.read_text()
    saved = save_results(run, tmp_path / "results.json")
    assert save_results(run, saved) == saved  # a results file simlab wrote is replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "victim.yaml"]


@pytest.mark.slow  # writes whole reports
def test_one_path_or_one_run_is_taken_as_a_list_of_one(run: ScenarioRun, tmp_path: Path) -> None:
    """A notebook passes one scenario or one run: a path's characters were read as paths
    ("s: expected a scenario file or folder"), and one run was "not iterable"."""
    (one,) = simlab.run_scenarios(str(QUICKSTART), n=300)
    assert one.result.encounters == 300
    saved = simlab.save_results(run, tmp_path / "results.json")
    (back,) = simlab.load_results(saved)
    assert back.result.tallies.attempts.tolist() == run.result.tallies.attempts.tolist()
    written, _, _ = simlab.write_report(run, tmp_path / "report")
    assert written["html"].is_file()


@pytest.mark.parametrize("alpha", [0, 1, 2, -0.5, "0.01", True, float("nan")])
def test_an_alpha_that_is_not_a_p_value_threshold_is_an_input_error(
    run: ScenarioRun, tmp_path: Path, alpha: object
) -> None:
    with pytest.raises(InputError, match="expected alpha between 0 and 1"):
        simlab.write_report([run], tmp_path / "report", alpha=alpha)  # type: ignore[arg-type]
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize(
    ("corrupt", "where", "words"),
    [
        (lambda s: s["attacks"][0].__setitem__("damage_counts", {"0": 1}),
         "attacks[0].damage_counts",
         r"expected the damage counts of \S+'s \S+ on \S+ to add up to its \d+ attempts; got 1"),
        (lambda s: s.__setitem__("rounds_counts", {}), "rounds_counts",
         "expected rounds counts adding up to 3,000 encounters; got 0"),
        (lambda s: s["rounds_counts"].__setitem__("1", s["rounds_counts"].get("1", 0) + 1),
         "rounds_counts", "expected rounds counts adding up to 3,000 encounters; got 3001"),
        (lambda s: s["attacks"][0].__setitem__("pair", [-1, 0, -1]), "attacks[0].pair",
         r"expected an attack pair \[attacker, attack, defender\] of the 2 combatants and "
         r"\d+ attacks; got \[-1, 0, -1\]"),
        (lambda s: s["attacks"][0].__setitem__("pair", [0, 99, 1]), "attacks[0].pair",
         "expected an attack pair .*; got \\[0, 99, 1\\]"),
        (lambda s: s["attacks"][0].__setitem__("pair", [0, 0]), "attacks[0].pair",
         "expected an attack pair .*; got \\[0, 0\\]"),
        (lambda s: s["attacks"][0].__setitem__("pair", [True, 0, 1]), "attacks[0].pair",
         "expected an attack pair .*; got \\[True, 0, 1\\]"),
    ],
)  # fmt: skip
def test_results_whose_counts_disagree_are_refused(
    run: ScenarioRun, tmp_path: Path, corrupt: object, where: str, words: str
) -> None:
    """Histograms must count what they histogram, and pairs index the scenario's own
    combatants and attacks: these files were read, and a pair [-1, 0, -1] filled
    another pair's tallies. The message says where, in the file's own terms."""
    path = simlab.save_results(run, tmp_path / "results.json")
    doc = json.loads(path.read_text())
    corrupt(doc["scenarios"][0])  # type: ignore[operator]
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=_refusal(path, where, words)):
        load_results(path)


def _refusal(path: Path, where: str, words: str) -> str:
    """The pattern of a refusal at ``where`` in the quickstart entry of the file ``path``
    (one line: the tests write it with ``json.dumps``)."""
    return (
        rf"^{re.escape(str(path))}:1: scenarios\[0\]\.{re.escape(where)} \(quickstart\): "
        f"{words}"
    )


def _edited(run: ScenarioRun, tmp_path: Path, edit: object) -> Path:
    """``run``'s results file after ``edit`` of its scenario entry, as a hand would do it
    (without the run identity, which would give the edit away)."""
    path = simlab.save_results(run, tmp_path / "results.json")
    doc = json.loads(path.read_text())
    del doc["run"]
    edit(doc["scenarios"][0])  # type: ignore[operator]
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda s: s.__setitem__("expect", [{"figure": "bogus", "at_least": 1}]),
         "\\(quickstart\\): expect\\[0\\].figure: expected one of 'hit_rate', "),
        (lambda s: s.__setitem__("expect", [{"figure": "win_rate", "side": "nobody",
                                             "at_least": 0.5}]),
         "\\(quickstart\\): expect\\[0\\].side: expected a side of these results \\(party, "
         "enemies\\); got 'nobody'"),
        (lambda s: s.__setitem__("expect", [{"figure": "down_rate", "combatant": "Kaitoo",
                                             "at_least": 0.5}]),
         "expect\\[0\\].combatant: expected a combatant of these results \\(Kaito, Brute\\); "
         "got 'Kaitoo'"),
        (lambda s: s.__setitem__("drift_tolerance", {"rate": "x"}),
         "\\(quickstart\\): drift_tolerance.rate: expected a number; got 'x'"),
        (lambda s: s.__setitem__("exact", "x"), "exact: expected a mapping; got 'x'"),
        (lambda s: s.__setitem__("precision", {"x": 1}), "precision.rule: expected key 'rule'"),
        (lambda s: s.__setitem__("overrides", "Brute.hp=3"), "overrides: expected a list"),
        (lambda s: s.__setitem__("scenario", 5), ": scenario: expected text; got 5$"),
        (lambda s: s["combatants"][0].__setitem__("events", []),
         "\\(quickstart\\): expected a complete results.json; got a value of another kind"),
        (lambda s: s.__setitem__("draws", "x"),
         "\\(quickstart\\): expected a complete results.json; got a value of another kind"),
        (lambda s: s["combatants"][0].pop("events"),
         "\\(quickstart\\): expected a complete results.json; got no 'events' entry$"),
    ],
)  # fmt: skip
def test_a_hand_edited_scenario_entry_is_an_input_error(
    run: ScenarioRun, tmp_path: Path, edit: object, words: str
) -> None:
    """What a report reads beside the counts (ids, specs, tolerances, exact answers,
    precision record, overrides): these edits stopped `report --from` or `check --from`
    with an internal error, or measured a spec on nobody."""
    path = _edited(run, tmp_path, edit)
    # located: the file, the line and the scenario's entry, then what was expected
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:1: scenarios\[0\].*{words}"):
        load_results(path)


def _exact_pair(doc: dict[str, Any], attack: str = "stone-strike") -> dict[str, Any]:
    """The exact answer of ``attack``'s pair in a scenario entry."""
    return next(e for e in doc["exact"]["attacks"] if e["attack"] == attack)


@pytest.mark.parametrize(
    ("edit", "where", "words"),
    [
        (lambda e: e.__setitem__("hit_rate", 1.5), "hit_rate",
         "expected a probability from 0 to 1; got 1.5$"),
        (lambda e: e.__setitem__("crit_rate", -0.1), "crit_rate",
         "expected a probability from 0 to 1; got -0.1$"),
        (lambda e: e["damage_pmf"].__setitem__("0", -0.5), 'damage_pmf["0"]',
         "expected each probability from 0 to 1; got -0.5$"),
        (lambda e: e["damage_pmf"].__setitem__("0", e["damage_pmf"]["0"] + 0.25), "damage_pmf",
         "expected damage probabilities adding up to 1; got 1.25"),
        (lambda e: e.__setitem__("mean_damage", e["mean_damage"] + 1), "mean_damage",
         r"expected 3\.41666\d*, the mean of its damage_pmf; got 4\.41666"),
    ],
)  # fmt: skip
def test_exact_answers_no_solution_gives_are_refused(
    run: ScenarioRun, tmp_path: Path, edit: Any, where: str, words: str
) -> None:
    """A hand-edited exact answer (a hit rate of 1.5, a distribution that does not add
    up) was read as fine and shown in the report's exact column and plots as the
    answer; it is refused, named by its line and place."""
    path = _edited(run, tmp_path, lambda doc: edit(_exact_pair(doc)))
    index = [e["attack"] for e in run.exact["attacks"]].index("stone-strike")  # type: ignore[index]
    at = f"exact.attacks[{index}].{where}"
    with pytest.raises(InputError, match=_refusal(path, at, words)):
        load_results(path)


def test_exact_answers_a_last_digit_off_are_read(run: ScenarioRun, tmp_path: Path) -> None:
    """An attack that always hits solves to a hit rate of 1.0000000000000002 (a sum of
    floats), which simlab writes and must read back."""

    def off_by_a_digit(doc: dict[str, Any]) -> None:
        pair = _exact_pair(doc)
        pair["hit_rate"] = 1.0000000000000002
        pair["crit_rate"] = -1e-17

    path = _edited(run, tmp_path, off_by_a_digit)
    (back,) = load_results(path)
    assert _exact_pair({"exact": back.exact})["hit_rate"] == 1.0000000000000002


def test_a_duels_exact_time_to_down_over_1_is_refused(tmp_path: Path) -> None:
    """A duel's exact time-to-down whose probabilities add up to more than 1."""
    duel = api.run_scenario(DUEL, n=200, seed=3)
    assert duel.exact is not None and duel.exact["combatants"]
    path = simlab.save_results(duel, tmp_path / "results.json")
    doc = json.loads(path.read_text())
    del doc["run"]
    pmf = doc["scenarios"][0]["exact"]["combatants"][0]["time_to_down"]["pmf"]
    first = next(iter(pmf))
    pmf[first] += 0.5
    path.write_text(json.dumps(doc))
    with pytest.raises(
        InputError,
        match=r":1: scenarios\[0\]\.exact\.combatants\[0\]\."
        r"time_to_down\.pmf \(.*\): expected probabilities "
        r"of going down in each round adding up to at most 1",
    ):
        load_results(path)


def _drop_second_combatant(s: dict) -> None:
    s["combatants"] = s["combatants"][:1]


@pytest.mark.parametrize(
    ("edit", "where", "words"),
    [
        (_drop_second_combatant, "combatants",
         "expected 2 combatant entries, one per combatant of the layout; got 1"),
        (lambda s: s["combatants"][1]["events"]["out"].__setitem__("round_counts", {"3": 5000}),
         "combatants[1].events.out.round_counts",
         "expected Brute's out in at most 3,000 encounters; got 5000"),
        (lambda s: s["combatants"][0].__setitem__("censor_round_counts", {"4": 3000}),
         "combatants[0].censor_round_counts",
         "expected Kaito downed or left standing in at most 3,000 encounters"),
        (lambda s: s["attacks"][0]["batches"].__setitem__("damage", [2**62] * 32),
         "attacks[0].batches.damage",
         "expected the damage total of Kaito's quick-jab on Brute to be the sum of its "
         "damage counts"),
        (lambda s: s["layout"].__setitem__("combatants", [["party", "Kaito"],
                                                          ["party", "Kaito"]]),
         "layout.combatants",
         "expected each of the layout's combatant names once; got 'Kaito' more than once"),
        (lambda s: s["layout"].__setitem__("side_of", [0, 7]), "layout.side_of",
         "expected layout side_of"),
        (lambda s: s["layout"].__setitem__("first_round", 2), "layout.first_round",
         "expected layout first_round 0 or 1; got 2"),
        (lambda s: s["layout"].__setitem__("first_rounds", [1, 2]), "layout.first_rounds",
         "expected layout first_rounds, 0 or 1 for each of the 2 combatants; got \\[1, 2\\]"),
        (lambda s: s["layout"].__setitem__("first_rounds", [1]), "layout.first_rounds",
         "expected layout first_rounds, 0 or 1 for each of the 2 combatants; got \\[1\\]"),
    ],
)  # fmt: skip
def test_results_that_no_run_can_write_are_refused(
    run: ScenarioRun, tmp_path: Path, edit: object, where: str, words: str
) -> None:
    """Counts and names no simulation can produce: a combatant's entry cut away (its
    tallies read as zeros: it never went down), more events or standings than
    encounters, a damage total its damage counts do not add up to, two combatants of
    one name (the drift gate compared one of them), side indices of no side."""
    path = _edited(run, tmp_path, edit)
    with pytest.raises(InputError, match=_refusal(path, where, words)):
        load_results(path)


def test_a_results_file_with_one_scenario_twice_is_refused(run: ScenarioRun,
                                                          tmp_path: Path) -> None:  # fmt: skip
    path = simlab.save_results(run, tmp_path / "results.json")
    doc = json.loads(path.read_text())
    del doc["run"]
    doc["scenarios"].append(doc["scenarios"][0])
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="expected each scenario once; got 'quickstart' "
                       "\\(rules shattered-spirits\\) twice"):  # fmt: skip
        load_results(path)


def test_the_first_round_anyone_can_go_down_is_saved_and_read_back(tmp_path: Path) -> None:
    """A report drawn again from results.json gives the median interval the same first
    round as the run, combatant by combatant: round 0 only for the enemies of a hidden
    combatant in opposed-tiers' surprise round (the Rat, not the hidden Scout). A file
    written when the round was one for everyone is read so, for each combatant."""
    from tests.support import AMBUSH

    ambush = api.run_scenario(simlab.loads(AMBUSH, "a.yaml"), n=200)
    path = simlab.save_results(ambush, tmp_path / "results.json")
    (again,) = load_results(path)
    assert again.result.layout.first_rounds == ambush.result.layout.first_rounds == [1, 0]
    assert again.result.layout.first_round == 0

    def as_before(scenario: dict[str, Any]) -> None:
        del scenario["layout"]["first_rounds"]
        scenario["layout"]["first_round"] = 0

    (older,) = load_results(_edited(ambush, tmp_path, as_before))
    assert older.result.layout.first_rounds == [0, 0]


@pytest.mark.slow  # writes whole reports
def test_a_baseline_beside_another_is_read_alone(run: ScenarioRun, tmp_path: Path) -> None:
    """``--baseline bl/results.json`` was refused ("bl: expected the files of one run;
    got small100.json is from another run") when another baseline sat beside it, as
    ``baseline update`` writes them: a folder without a manifest is no output folder,
    and its other files are not the baseline's. An output folder's are still checked."""
    simlab.save_results(run, tmp_path / "results.json")
    other = api.run_scenario(QUICKSTART, n=300, seed=5)
    simlab.save_results(other, tmp_path / "small.json")
    (again,) = load_results(tmp_path / "results.json")
    assert again.result.encounters == run.result.encounters
    simlab.write_report(run, tmp_path / "report")
    simlab.save_results(other, tmp_path / "stray.json")
    (tmp_path / "stray.json").rename(tmp_path / "report" / "stray.json")
    with pytest.raises(InputError, match=r"expected the files of one run; got stray\.json"):
        load_results(tmp_path / "report" / "results.json")


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ('{"a": [1,\n', 1),  # wants a value
        ('{"scenarios": [{"a": 1}', 1),  # wants a ',' or a ']'
        ('{\n "a": [1,\n 2', 3),
        ('{"a": 1 x}', None),  # stops before its end: not JSON
        ('{\n"a": 1\n}\nx', None),
        ('{"a": 1}', None),
    ],
)
def test_json_that_ends_before_its_document_is_cut_short(text: str, cut: int | None) -> None:
    """``{"a": [1,`` and ``{"scenarios": [{"a": 1}`` were "not JSON (line 1, column 24:
    expecting ',' delimiter)", where a longer file so cut was "cut short": a text of
    one line said too little. The parser stopping at the text's end, wanting more, is
    what says it."""
    from simlab.report.files import cut_short_at

    assert cut_short_at(text) == cut
