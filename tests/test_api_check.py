"""``simlab.check``: a scenario's ``expect:`` specs checked from Python, on what a notebook
has (a result, a variant, a path), and a report run's one-line repr."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

import simlab
from simlab.errors import InputError, ScenarioError
from simlab.report.results import ScenarioRun

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
BASE = QUICKSTART.read_text().split("\nexpect:")[0]  # the scenario without its own specs
N = 2000


def _with_specs(*entries: str) -> simlab.api.ScenarioBase:
    return simlab.loads(BASE + "\nexpect:\n" + "".join(f"  - {e}\n" for e in entries))


def test_a_result_is_checked_against_the_specs_of_the_scenario_it_simulated() -> None:
    scn = _with_specs("{figure: win_rate, side: enemies, at_least: 0.5}",
                      "{figure: win_rate, side: party, at_least: 0.9}")  # fmt: skip
    res = simlab.simulate(scn, n=N)
    specs = simlab.check(res)
    wins = res.win_rates().set_index("side").win_rate
    assert list(specs.spec) == ["enemies' win rate at least 0.5", "party's win rate at least 0.9"]
    assert list(specs.verdict) == ["pass", "fail"]
    assert list(specs.measured) == [wins["enemies"], wins["party"]]
    assert list(specs.n) == [N, N]


def test_a_variant_is_checked_against_its_own_numbers() -> None:
    """A comparison's ``b`` (or ``scn.with_``) is measured as changed: here Kaito with
    far more hp is no longer downed in 6 to 9 rounds."""
    scn = simlab.load(QUICKSTART)
    ab = simlab.compare(scn, changes={"Kaito.hp": 80}, n=N)
    before, after = simlab.check(ab.a), simlab.check(ab.b)
    assert before.set_index("figure").verdict["median_time_to_down"] == "pass"
    assert after.set_index("figure").verdict["median_time_to_down"] == "fail"


def test_a_scenario_or_its_path_is_simulated_first() -> None:
    by_path = simlab.check(QUICKSTART, n=N, seed=3)
    by_result = simlab.check(simlab.simulate(QUICKSTART, n=N, seed=3))
    assert len(by_path) == 3
    assert by_path.equals(by_result)
    run = simlab.api.run_scenario(QUICKSTART, n=N)
    assert simlab.check(run).equals(simlab.check(run.result))


def test_strict_fails_a_borderline_pass() -> None:
    """A bound inside the interval of the measured figure: a pass, borderline; a failure
    with ``strict=True``, as ``simlab check --strict``."""
    first = simlab.simulate(simlab.loads(BASE), n=N)
    rates = first.hit_rates().set_index(["attack", "defender"]).loc[("stone-strike", "Kaito")]
    bound = (rates.hit_rate_ci95_lo + rates.hit_rate) / 2
    scn = _with_specs(f"{{figure: hit_rate, attack: stone-strike, at_least: {bound}}}")
    res = simlab.simulate(scn, n=N)  # the same seed: the same dice as the first run
    lenient, strict = simlab.check(res), simlab.check(res, strict=True)
    assert lenient.borderline.tolist() == [True]
    assert lenient.verdict.tolist() == ["pass"]
    assert strict.verdict.tolist() == ["fail"]


def test_the_exact_answers_settle_a_rate_that_cannot_happen() -> None:
    """quick-jab has no critical tier: "at most 0" passes even strict, as on the command
    line (the exact engine's answer, which the check works out for the result)."""
    res = simlab.simulate(_with_specs("{figure: crit_rate, attack: quick-jab, at_most: 0}"), n=N)
    specs = simlab.check(res, strict=True)
    assert specs.verdict.tolist() == ["pass"]
    assert specs.borderline.tolist() == [False]


@pytest.mark.parametrize(
    ("args", "kwargs", "words"),
    [
        ((None,), {}, "for subject; got None"),
        (
            ({"scenario": "quickstart"},),
            {},
            "a scenario (simlab.load), the path of a scenario file or folder, or a list of "
            "them, for subject; got a dict",
        ),
        (("result",), {"n": 100}, "n: expected none with a Result, already simulated"),
        (("result",), {"seed": 3}, "seed: expected none with a Result"),
        (("result",), {"strict": "yes"}, "expected True or False for strict; got 'yes'"),
        (("saved",), {}, "subject: expected a Result that knows the scenario it simulated"),
    ],
)
def test_bad_arguments_are_named(args: tuple[object, ...], kwargs: dict[str, object],
                                 words: str, tmp_path: Path) -> None:  # fmt: skip
    res = simlab.simulate(QUICKSTART, n=200)
    saved = simlab.save_results([simlab.api.run_scenario(QUICKSTART, n=200)], tmp_path / "r")
    made = {"result": res, "saved": simlab.load_results(saved)[0].result}
    given = [made.get(a, a) if isinstance(a, str) else a for a in args]
    with pytest.raises(InputError) as info:
        simlab.check(*given, **kwargs)
    assert words in str(info.value)


def test_a_report_run_shows_as_one_line() -> None:
    run = simlab.api.run_scenario(simlab.load(QUICKSTART).with_({"Brute.hp": 31}), n=N)
    shown = repr(run)
    assert shown == ("<ScenarioRun quickstart · with Brute.hp=31 · rules shattered-spirits · "
                     "2,000 encounters · seed 7: 3 specs (simlab.check); .result, .exact, "
                     ".expect>")  # fmt: skip
    bare = ScenarioRun(result=run.result)
    assert "\n" not in repr(bare) and repr(bare).endswith(": no specs; .result, .exact, .expect>")


def test_a_median_not_reached_reads_as_the_terminal_says_it() -> None:
    """Kaito with 200 hp is downed in none of the encounters: the numbers hold ``inf``
    for the verdict, and ``measured_text`` reads as ``simlab check`` prints it."""
    res = simlab.simulate(simlab.load(QUICKSTART).with_({"Kaito.hp": 200}), n=N)
    specs = simlab.check(res).set_index("figure")
    median = specs.loc["median_time_to_down"]
    assert median.measured == float("inf") and median.verdict == "fail"
    assert median.measured_text == "not reached"
    assert re.fullmatch(r"0\.9\d\d ± 0\.0\d\d", specs.loc["hit_rate"].measured_text)
    assert list(specs.columns).index("measured_text") == list(specs.columns).index("ci_hi") + 1
    assert "inf" not in median.measured_text
    with pytest.warns(UserWarning, match="no expect: entries"):
        assert simlab.check(simlab.loads(BASE), n=N).measured_text.tolist() == []


def test_several_subjects_are_checked_in_one_table_in_the_order_given(tmp_path: Path) -> None:
    """Results, a scenario and paths in a list: as ``simlab check A B`` checks them."""
    scn = simlab.load(QUICKSTART)
    res = simlab.simulate(scn, n=N)
    tougher = simlab.simulate(scn.with_({"Kaito.hp": 200}), n=N)
    other = tmp_path / "other.yaml"
    other.write_text(QUICKSTART.read_text().replace("scenario: quickstart", "scenario: other")
                     .replace("encounters: 200_000", f"encounters: {N}"))  # fmt: skip
    specs = simlab.check([res, tougher, other], strict=True)
    one_by_one = [simlab.check(res, strict=True), simlab.check(tougher, strict=True),
                  simlab.check(other, strict=True)]  # fmt: skip
    assert list(specs.scenario) == ["quickstart"] * 6 + ["other"] * 3
    pd.testing.assert_frame_equal(specs, pd.concat(one_by_one, ignore_index=True),
                                  check_like=False)  # fmt: skip
    assert list(simlab.check((res,)).verdict) == list(one_by_one[0].verdict)


def test_a_variants_rows_name_the_changes_it_was_run_with() -> None:
    """A result and its variant checked in one table: both rows read ``scenario
    quickstart``; ``overrides`` tells them apart, as the terminal's heading names the
    changes (one that changes nothing said so)."""
    scn = simlab.load(QUICKSTART)
    res = simlab.simulate(scn, n=N)
    tougher = simlab.simulate(scn.with_({"Kaito.hp": 200}), n=N)
    idle = simlab.simulate(scn.with_({"Brute.hp": 30}), n=N)
    specs = simlab.check([res, tougher, idle])
    idle_said = "Brute.hp=30 (changes nothing: Brute.hp is already 30)"
    assert list(specs.overrides) == [""] * 3 + ["Kaito.hp=200"] * 3 + [idle_said] * 3
    assert list(specs.columns[:3]) == ["scenario", "overrides", "rules"]
    ran = simlab.api.run_scenario(scn.with_({"Kaito.hp": 200}), n=N)
    assert list(simlab.check(ran).overrides) == ["Kaito.hp=200"] * 3


def test_a_folder_is_every_scenario_in_it_with_specs(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        QUICKSTART.read_text().replace("scenario: quickstart", "scenario: a")
    )
    (tmp_path / "none.yaml").write_text(BASE.replace("scenario: quickstart", "scenario: none"))
    specs = simlab.check(tmp_path, n=N)
    assert list(specs.scenario) == ["a"] * 3
    assert list(specs.measured) == list(simlab.check(tmp_path / "a.yaml", n=N).measured)


def test_a_wrong_file_among_several_stops_the_check_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BASE.replace("hp: 24", "hp: -3"))
    ran = []
    monkeypatch.setattr(simlab.api, "simulate", lambda *a, **k: ran.append(a))
    with pytest.raises(ScenarioError):
        simlab.check([QUICKSTART, bad], n=N)
    assert ran == []


@pytest.mark.parametrize(
    ("subject", "words"),
    [([], "expected something to check for subject; got an empty list"),
     ([QUICKSTART, 5], "a scenario file or folder, or a list of them, for subject; got 5")],
)  # fmt: skip
def test_a_list_that_checks_nothing_is_refused(subject: object, words: str) -> None:
    with pytest.raises(InputError) as info:
        simlab.check(subject)
    assert words in str(info.value)


def test_a_median_not_reached_is_judged_against_a_bound_past_the_round_cap_as_borderline() -> None:
    """Kaito at 40 HP is downed in fewer than half of the encounters by round 30: the
    median is past the cap, 31 or later. Against ``at most 40`` or ``between 20 and 40``
    the run cannot tell, but the row read a plain ``fail``, not borderline, with no word
    why; against ``at most 12`` it is a plain fail, against ``at least 10`` a plain pass."""
    bounds = [{"at_most": 40}, {"between": [20, 40]}, {"at_least": 40}, {"at_most": 12},
              {"at_least": 10}, {"at_least": 31}]  # fmt: skip
    scn = simlab.load(QUICKSTART).with_({"Kaito.hp": 40, "expect": [
        {"figure": "median_time_to_down", "combatant": "Kaito", **b} for b in bounds]})  # fmt: skip
    rows = simlab.check(scn, n=300, seed=7)
    assert set(rows.measured_text) == {"not reached"}
    assert rows.verdict.tolist() == ["fail", "fail", "pass", "fail", "pass", "pass"]
    assert rows.borderline.tolist() == [True, True, True, False, False, False]
    said = rows.note.str.contains("round cap (30)", regex=False).tolist()
    assert said == [True, True, True, False, False, False]


def test_the_readmes_folder_to_check_has_scenarios_with_specs() -> None:
    """The README's examples checked a result with ``scenarios/glitters-d20`` or
    ``scenarios/opposed-tiers``, folders no scenario of which has ``expect:``: the folder
    added no row, and the table said nothing of it. Every folder the README checks from
    Python adds rows."""
    readme = (ROOT / "README.md").read_text()
    lists = re.findall(r"simlab\.check\(\[([^\]]*)\]", readme)
    folders = {f for entries in lists for f in re.findall(r'"(scenarios/[\w-]+)"', entries)}
    assert len(folders) >= 2, folders
    for folder in folders:
        assert not simlab.check(ROOT / folder, n=100).empty, folder


def test_a_subject_without_specs_is_said_to_add_no_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder with no ``expect:`` gave an empty table with no word, where ``simlab
    check`` says "no expect: entries"; in a list, it added no row, silently. Each subject
    that adds none is now named in a warning (and, as on the command line, a scenario
    without specs is not simulated); one with specs is not."""
    (tmp_path / "none.yaml").write_text(BASE.replace("scenario: quickstart", "scenario: none"))
    no_specs = simlab.simulate(simlab.loads(BASE), n=N)
    with pytest.warns(UserWarning) as told:
        alone = simlab.check(tmp_path, n=N)
        mixed = simlab.check([simlab.simulate(QUICKSTART, n=N), no_specs])
    said = [str(w.message) for w in told]
    assert said == [
        f"check: no expect: entries in {tmp_path} (a folder: in none of its scenarios), so "
        "it adds no row to the table",
        "check: no expect: entries in the scenario quickstart (a Result), so it adds no row "
        "to the table",
    ]
    assert told[0].filename == __file__
    assert alone.empty and "verdict" in alone.columns
    assert len(mixed) == 3
    ran: list[object] = []
    with monkeypatch.context() as patched:
        patched.setattr(simlab.api, "simulate", lambda *a, **k: ran.append(a))
        with pytest.warns(UserWarning, match=r"in .*none\.yaml, so it adds no row"):
            simlab.check(tmp_path / "none.yaml", n=N)
    assert ran == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(simlab.check(simlab.simulate(QUICKSTART, n=N))) == 3


def test_a_sweep_and_a_comparison_are_checked_result_by_result() -> None:
    """``simlab.check(sweep)`` and ``simlab.check(comparison)`` were refused ("got a
    SweepResult"), where a designer asks whether each point, or B, still meets the
    specs: each of their results is checked, in order, its changes in ``overrides``."""
    scn = simlab.load(QUICKSTART)
    swept = simlab.sweep(scn, {"Kaito.hp": [20, 80]}, n=200, exact=False)
    specs = simlab.check(swept)
    assert list(specs.overrides) == ["Kaito.hp=20"] * 3 + ["Kaito.hp=80"] * 3
    by_point = simlab.check([point.result for point in swept.points])
    pd.testing.assert_frame_equal(specs, by_point)
    ab = simlab.compare(scn, changes={"Kaito.hp": 80}, n=200)
    pd.testing.assert_frame_equal(simlab.check(ab), simlab.check([ab.a, ab.b]))
    with pytest.raises(InputError, match="n: expected none with a Comparison, already simulated"):
        simlab.check(ab, n=100)


def test_a_tuning_is_refused_saying_what_to_check() -> None:
    """A tuning keeps no simulation: its refusal says to check the scenario at the value
    found, where it named only the types it takes."""
    tuned = simlab.tune(simlab.load(QUICKSTART), "Kaito.hp=10:60", "down_rate:Kaito=0.5", n=200)
    with pytest.raises(InputError) as info:
        simlab.check(tuned)
    said = str(info.value)
    assert "got a TuneResult, which keeps no simulation" in said
    assert f"simlab.check(scn.with_({{'Kaito.hp': {tuned.value:g}}}))" in said


def test_a_sweeps_point_is_checked_as_its_result() -> None:
    """The README and ``help(simlab.check)`` take "a sweep's point", but
    ``simlab.check(sw.points[1])`` was refused: ``got a SweepPoint``."""
    swept = simlab.sweep(simlab.load(QUICKSTART), {"Kaito.hp": [20, 80]}, n=200, exact=False)
    point = swept.points[1]
    specs = simlab.check(point)
    pd.testing.assert_frame_equal(specs, simlab.check(point.result))
    assert list(specs.overrides) == ["Kaito.hp=80"] * 3
    with pytest.raises(InputError, match="seed: expected none with a SweepPoint, already"):
        simlab.check(point, seed=3)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [({"n": 2.5}, "expected encounters as a whole number; got 2.5"),
     ({"n": 0}, "expected encounters from 1 to"),
     ({"seed": "x"}, "expected a seed as a whole number; got 'x'")],
)  # fmt: skip
def test_a_bad_count_or_seed_is_refused_with_a_scenario_without_specs(
    kwargs: dict[str, object], words: str
) -> None:
    """A scenario with no ``expect:`` is not simulated, and ``n=2.5`` with it passed
    unremarked, where the same call with specs refuses it."""
    with pytest.raises(InputError, match=re.escape(words)):
        simlab.check(simlab.loads(BASE), **kwargs)
