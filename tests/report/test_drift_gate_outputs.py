"""What the nightly drift gate gives a CI system: ``drift.json`` beside ``report.md``, the
sample sizes of the two runs when they differ, ``check --strict``'s borderline passes
named, and ``baseline update`` of an older simlab's baseline."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simlab import __version__, api
from simlab.cli import main
from simlab.report.files import MANIFEST
from tests.report.report_html import words_unwrapped

# Slow tier (make test-slow): runs the drift gate end to end, baselines and reports included.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DUEL = ROOT / "scenarios/zones-3d6/training-duel.yaml"
ROW_7 = "profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]"
ROW_7_RAISED = "profile: [0, 0, 1, 2, 3, 6, 5, 7, 8, 9, 11]"
N = 2000
DRIFTED = ("quickstart", "damage_pmf", "Brute stone-strike → Kaito")


def simlab(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def _said(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quickstart and the zones-3d6 training duel, and a baseline of both at N."""
    folder = tmp_path_factory.mktemp("gate")
    for source in (QUICKSTART, DUEL):
        (folder / source.name).write_text(source.read_text())
    done = simlab("baseline", "update", folder / QUICKSTART.name, folder / DUEL.name,
                  "--baseline", folder / "baseline.json", "-n", N)  # fmt: skip
    assert done.exit_code == 0, done.output
    return folder


def _changed(scenarios: Path, tmp_path: Path) -> Path:
    """The quickstart with stone-strike's row 7 raised (4 → 6): its damage drifts."""
    changed = tmp_path / QUICKSTART.name
    changed.write_text((scenarios / QUICKSTART.name).read_text().replace(ROW_7, ROW_7_RAISED))
    return changed


def _row(drift: Any, scenario: str, figure: str, subject: str) -> Any:
    t = drift.table
    (row,) = t[
        (t.scenario == scenario) & (t.figure == figure) & (t.subject == subject)
    ].itertuples()
    return row


def _same(saved: float | None, value: float) -> bool:
    """A figure of drift.json against the DriftReport's: null where it is NaN or ±inf."""
    return saved is None if not math.isfinite(value) else saved == pytest.approx(value, rel=1e-12)


def test_drift_json_holds_the_verdict_and_every_figure_of_the_drift_report(
    scenarios: Path, tmp_path: Path
) -> None:
    """A CI system had only the exit code and report.md's prose. drift.json has the
    verdict, its exit code, the rule, and each figure as the DriftReport it came from
    has it: the changed scenario's damage marked drifted, the same-seed duel's figures
    (the same dice, changed by nothing) not."""
    runs = api.run_scenarios([_changed(scenarios, tmp_path), scenarios / DUEL.name], n=N)
    out = tmp_path / "r"
    _, _, drift = api.write_report(runs, out, baseline=scenarios / "baseline.json")
    doc = json.loads((out / "drift.json").read_text())
    assert (doc["verdict"], doc["exit_code"], doc["alpha"]) == ("drift", 1, drift.alpha)
    assert doc["counts"]["compared"] == len(drift.table) == len(doc["figures"])
    assert doc["counts"]["drifted"] == len(drift.drifted) > 0
    for entry, row in zip(doc["figures"], drift.table.itertuples(), strict=True):
        assert (entry["scenario"], entry["figure"], entry["subject"], entry["test"]) == (
            row.scenario, row.figure, row.subject, row.test)  # fmt: skip
        assert (entry["drifted"], entry["significant"]) == (row.drifted, row.significant)
        for name in ("baseline", "current", "change", "statistic", "p_value", "p_holm"):
            assert _same(entry[name], getattr(row, name)), (name, entry)
        # the change a figure must reach: the tolerance, × max(|baseline|, 1) for a mean
        scale = max(abs(row.baseline), 1.0) if row.kind == "mean" else 1.0
        assert entry["threshold"] == pytest.approx(row.tolerance * scale), entry
        if entry["change"] is not None and row.test != "none":
            assert entry["beyond_tolerance"] == (abs(entry["change"]) >= entry["threshold"])
    by_figure = {(e["scenario"], e["figure"], e["subject"]): e for e in doc["figures"]}
    assert _row(drift, *DRIFTED).drifted and by_figure[DRIFTED]["drifted"]
    assert (
        by_figure[DRIFTED]["status"] == "DRIFT" and by_figure[DRIFTED]["statistic_name"] == "chi2"
    )
    duel = [e for e in doc["figures"] if e["scenario"] == "zones-training-duel"]
    assert duel and all(not e["drifted"] and not e["borderline"] for e in duel)
    assert all(e["change"] == 0 for e in duel if e["kind"] == "rate")
    assert not doc["sample_sizes_differ"] and doc["not_compared"] == []
    # stamped and listed as every file of the report is
    results = json.loads((out / "results.json").read_text())
    assert doc["run"] == results["run"]
    assert "drift.json" in json.loads((out / MANIFEST).read_text())["files"]
    markdown = (out / "report.md").read_text()
    assert "Sample sizes differ" not in markdown
    # a section with no notes on its comparison had two blank lines under its heading
    assert "### Compared with the baseline\n\n" in markdown and "\n\n\n" not in markdown


def test_the_report_command_exits_with_the_code_drift_json_says(
    scenarios: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    done = simlab("report", _changed(scenarios, tmp_path), "-n", N, "--out", out,
                  "--baseline", scenarios / "baseline.json")  # fmt: skip
    doc = json.loads((out / "drift.json").read_text())
    assert done.exit_code == doc["exit_code"] == 1, done.output
    assert "results.json, drift.json and" in _said(done.stdout)
    assert doc["not_compared"] == [{"scenario": "zones-training-duel", "rules": "zones-3d6",
                                    "reason": "in the baseline but not run"}]  # fmt: skip


def test_a_run_smaller_than_the_baseline_says_both_sample_sizes(
    scenarios: Path, tmp_path: Path
) -> None:
    """Tonight at 1,000 encounters against a baseline of 2,000: "no figure drifted" at
    half the sample says less, and nothing said so."""
    out = tmp_path / "r"
    done = simlab("report", scenarios / DUEL.name, "-n", N // 2, "--out", out,
                  "--baseline", scenarios / "baseline.json")  # fmt: skip
    assert done.exit_code == 0, done.output
    sizes = ("Sample sizes differ: 1,000 encounters in this run, 2,000 in the baseline "
             "(zones-training-duel (zones-3d6)).")  # fmt: skip
    assert sizes in _said(done.stdout)
    drift = (out / "report.md").read_text().split("## Drift")[1].split("\n## ")[0]
    assert "**OK:** No figure drifted" in drift and sizes in _said(drift)
    assert sizes in _said(words_unwrapped((out / "report.html").read_text()))
    doc = json.loads((out / "drift.json").read_text())
    assert doc["sample_sizes_differ"] is True and doc["verdict"] == "ok"
    assert doc["sample_sizes"] == [{"scenario": "zones-training-duel", "rules": "zones-3d6",
                                    "baseline_encounters": N, "encounters": N // 2}]  # fmt: skip


def test_strict_names_a_borderline_pass_it_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check --strict`` printed a borderline pass it failed as ``FAIL (borderline: …)``,
    the words of a real failure whose interval reaches back over the bound, and counted
    both alike: ``check: 2 of 2 specs failed``."""
    from rich.console import Console

    from simlab.report import terminal

    # wide enough that each verdict is on one line, not read interleaved with its row's
    monkeypatch.setattr(terminal, "console", Console(width=250, force_terminal=False))
    base = QUICKSTART.read_text().split("\nexpect:")[0]
    res = api.simulate(api.loads(base), n=N)
    rate = res.hit_rates().set_index(["attack", "defender"]).loc[("stone-strike", "Kaito")]
    inside = (rate.hit_rate_ci95_lo + rate.hit_rate) / 2  # below the measured: a pass
    above = (rate.hit_rate + rate.hit_rate_ci95_hi) / 2  # above it: a failure
    scenario = tmp_path / "quickstart.yaml"
    spec = "  - {{figure: hit_rate, attack: stone-strike, at_least: {}}}\n"
    scenario.write_text(base + "\nexpect:\n" + spec.format(inside) + spec.format(above))
    done = simlab("check", scenario, "-n", N, "--strict")
    assert done.exit_code == 1, done.output
    said = _said(done.stdout)
    assert said.count("--strict: a borderline pass, its interval reaching past the bound") == 1
    assert said.count("(borderline: interval reaches past the bound)") == 1
    assert said.endswith("check: 2 of 2 specs failed (1 of them a borderline pass, failed by "
                         "--strict)")  # fmt: skip
    lenient = simlab("check", scenario, "-n", N)
    assert _said(lenient.stdout).endswith("check: 1 of 2 specs failed")
    assert "--strict" not in lenient.stdout
    # report.md's failed specs, from Python with strict=True
    runs = api.run_scenarios(scenario, n=N)
    api.write_report(runs, tmp_path / "r", strict=True)
    failed = (tmp_path / "r/report.md").read_text().split("## Failed specs")[1].split("\n## ")[0]
    assert _said(failed).count("(a borderline pass, failed by --strict)") == 1


def _older(baseline: Path, folder: Path, **changes: object) -> Path:
    """The baseline as an older simlab wrote it (format 0), its entries changed."""
    doc = json.loads(baseline.read_text())
    doc |= {"format": 0, "simlab_version": "0.0.9"}
    for entry in doc["scenarios"]:
        for name, value in changes.items():
            entry.pop(name) if value is None else entry.update({name: value})
    old = folder / "old.json"
    old.write_text(json.dumps(doc))
    return old


def test_baseline_update_reruns_an_older_format_baseline(
    scenarios: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``baseline update`` without scenarios could not rewrite an older simlab's
    baseline (``expected results format 1; got format 0``): it runs its scenarios again,
    as recorded there, into this format: the baseline they make here, byte for byte."""
    monkeypatch.chdir(scenarios)  # where the baseline was made: its files are relative
    old = _older(scenarios / "baseline.json", tmp_path)
    done = simlab("baseline", "update", "--baseline", old)
    assert done.exit_code == 0, done.output
    assert old.read_text() == (scenarios / "baseline.json").read_text()


def test_an_older_baseline_without_its_recipe_names_the_command_to_run(
    scenarios: Path, tmp_path: Path
) -> None:
    old = _older(scenarios / "baseline.json", tmp_path, seed=None)
    before = old.read_text()
    done = simlab("baseline", "update", "--baseline", old)
    assert done.exit_code == 2
    files = " ".join(e["source"] for e in json.loads(before)["scenarios"])
    assert (f"write it again from the scenario files: simlab baseline update {files} -n {N} "
            f"--baseline {old}") in _said(done.output)  # fmt: skip
    assert old.read_text() == before


def test_the_gate_refuses_a_newer_simlabs_baseline_without_rewriting_it(
    scenarios: Path, tmp_path: Path
) -> None:
    """A baseline of a format newer than this simlab's (the team upgraded; this job did
    not) was refused with "write it again (simlab baseline update --baseline FILE …)",
    which in a CI job would put this older simlab's results over the team's baseline:
    the gate says to run it with the newer simlab, and names no such command."""
    newer = json.loads((scenarios / "baseline.json").read_text())
    newer |= {"format": 2, "simlab_version": "9.1.0", "a_field_of_format_2": {}}
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(newer))
    gate = simlab("report", "--from", scenarios / "baseline.json", "--out", tmp_path / "r",
                  "--baseline", path)  # fmt: skip
    assert gate.exit_code == 2
    said = _said(gate.output)
    assert (f"{path}: expected results format 1; got format 2 (written by simlab 9.1.0), "
            f"newer than this simlab {__version__} reads; run it with simlab 9.1.0 or "
            "later") in said, said  # fmt: skip
    assert "baseline update" not in said
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("command", "what"),
    [(("exact",), "simlab exact (quickstart), exact answers, without the counts a run is "
                  "tested against"),
     (("run", "-n", 50), "simlab run (quickstart), figures, without the counts they come from")],
)  # fmt: skip
def test_the_gate_says_what_a_summary_given_as_the_baseline_is(
    scenarios: Path, tmp_path: Path, command: tuple[object, ...], what: str
) -> None:
    """``simlab exact``'s or ``simlab run``'s output given as the baseline was refused
    as ``got no 'format' entry`` (its summary.json) or ``results.json: got no such file``
    (its folder), which did not say that neither can be a baseline."""
    out = tmp_path / "out"
    assert simlab(*command, scenarios / QUICKSTART.name, "--out", out).exit_code == 0
    for baseline, said in [
        (out / "summary.json", f"{out / 'summary.json'}: expected a results.json (simlab "
                               f"report --out, baseline update); got the summary.json of {what}"),
        (out, f"{out}: expected a results.json (simlab report --out, baseline update); "
              f"got an output folder of {what}"),
    ]:  # fmt: skip
        gate = simlab("report", "--from", scenarios / "baseline.json", "--out",
                      tmp_path / "r", "--baseline", baseline)  # fmt: skip
        assert gate.exit_code == 2
        assert said in _said(gate.output), gate.output
    assert not (tmp_path / "r").exists()


def test_the_gate_refusing_an_older_baseline_names_the_shortest_command_that_works(
    scenarios: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate's refusal of an older simlab's baseline named ``simlab baseline update
    SCENARIO|DIR... --baseline FILE`` where ``simlab baseline update --baseline FILE``
    alone re-runs the scenarios the baseline records; that longer one only where it
    does not record them."""
    monkeypatch.chdir(scenarios)  # where the baseline was made: its files are relative
    old = _older(scenarios / "baseline.json", tmp_path)
    gate = simlab("report", "--from", scenarios / "baseline.json", "--out", tmp_path / "r",
                  "--baseline", old)  # fmt: skip
    assert gate.exit_code == 2
    said = _said(gate.output)
    assert "got format 0 (written by simlab 0.0.9), which this simlab does not read" in said
    command = f"simlab baseline update --baseline {old}"
    assert f"({command} re-runs the scenarios it records)" in said, said
    assert "SCENARIO|DIR" not in said
    assert simlab(*command.split()[1:]).exit_code == 0  # the command named works
    unrecorded = _older(scenarios / "baseline.json", tmp_path, seed=None)
    gate = simlab("report", "--from", scenarios / "baseline.json", "--out", tmp_path / "s",
                  "--baseline", unrecorded)  # fmt: skip
    assert gate.exit_code == 2
    assert f"simlab baseline update SCENARIO|DIR... --baseline {unrecorded}" in _said(gate.output)


def test_a_baseline_of_another_version_or_seed_is_said_with_both(
    scenarios: Path, tmp_path: Path
) -> None:
    """A baseline another simlab simulated (same format) was compared with no word, so a
    drift simlab caused read as a rules change; so was a run of another seed, which
    does not share the baseline's dice. The verdict (terminal, report.md, drift.json)
    says each with both values, and drift.json has them per scenario."""
    doc = json.loads((scenarios / "baseline.json").read_text())
    for entry in doc["scenarios"]:
        entry["simlab_version"] = "0.0.8"
    older = tmp_path / "older.json"
    older.write_text(json.dumps(doc))
    out = tmp_path / "r"
    done = simlab("report", scenarios / QUICKSTART.name, "-n", N, "--seed", 99, "--out", out,
                  "--baseline", older)  # fmt: skip
    assert done.exit_code == 0, done.output
    said = _said(done.output)
    version = (f"The baseline is of another simlab version: simlab {__version__} in this run, "
               "0.0.8 in the baseline")  # fmt: skip
    seed = "Seeds differ: seed 99 in this run, 7 in the baseline (quickstart (shattered-spirits))"
    assert version in said and seed in said, said
    drift = json.loads((out / "drift.json").read_text())
    assert version in drift["summary"] and seed in drift["summary"]
    assert drift["simlab_versions_differ"] and drift["seeds_differ"]
    tolerance = {"rate": 0.02, "pmf": 0.05, "mean": 0.05, "median": 1.0}
    assert drift["provenance"] == [
        {"scenario": "quickstart", "rules": "shattered-spirits", "baseline_seed": 7,
         "seed": 99, "baseline_simlab_version": "0.0.8", "simlab_version": __version__,
         "baseline_tolerance": tolerance, "tolerance": tolerance}
    ]  # fmt: skip
    assert not drift["tolerances_differ"] and drift["passed_by_tolerance"] == 0
    assert "Tolerances differ" not in said
    head = _said((out / "report.md").read_text().split("## Drift")[1].split("\n## ")[0])
    assert version in head and seed in head
    same = tmp_path / "s"
    done = simlab("report", scenarios / QUICKSTART.name, "-n", N, "--out", same,
                  "--baseline", scenarios / "baseline.json")  # fmt: skip
    drift = json.loads((same / "drift.json").read_text())
    assert not drift["seeds_differ"] and not drift["simlab_versions_differ"]
    assert "Seeds differ" not in done.output and "another simlab" not in done.output


def test_tolerances_loosened_with_the_rules_are_said_with_what_they_let_pass(
    scenarios: Path, tmp_path: Path
) -> None:
    """A commit that raised stone-strike's row 7 and loosened the quickstart's
    ``drift_tolerance:`` passed the gate with no word: the gate applies the run's
    tolerances, and nothing compared them with the baseline's. It still passes (the
    tolerances are the scenario's to set), but the verdict names each tolerance changed
    and the figures that would have drifted under the baseline's."""
    changed = _changed(scenarios, tmp_path)
    loose = "drift_tolerance: {rate: 0.5, pmf: 0.5, mean: 0.5, median: 5}\n"
    changed.write_text(changed.read_text() + loose)
    out = tmp_path / "r"
    done = simlab("report", changed, "-n", N, "--out", out,
                  "--baseline", scenarios / "baseline.json")  # fmt: skip
    assert done.exit_code == 0, done.output
    said = _said(done.output)
    assert ("Tolerances differ from the baseline's: quickstart (shattered-spirits) rate 0.5 "
            "(baseline 0.02), pmf 0.5 (baseline 0.05), mean 0.5 (baseline 0.05), median 5 "
            "(baseline 1). The gate applies this run's; ") in said, said  # fmt: skip
    assert "damage distribution of Brute stone-strike → Kaito (quickstart)" in said, said
    doc = json.loads((out / "drift.json").read_text())
    assert doc["verdict"] == "ok" and doc["tolerances_differ"]
    assert doc["passed_by_tolerance"] > 0
    assert "Tolerances differ" in doc["summary"]
    (entry,) = doc["provenance"]
    assert entry["tolerance"] == {"rate": 0.5, "pmf": 0.5, "mean": 0.5, "median": 5.0}
    assert entry["baseline_tolerance"] == {"rate": 0.02, "pmf": 0.05, "mean": 0.05,
                                           "median": 1.0}  # fmt: skip
    assert "Tolerances differ" in _said((out / "report.md").read_text())
