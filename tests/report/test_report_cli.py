"""`simlab report` and `simlab baseline update` as a designer and the nightly job run them."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from click.testing import CliRunner, Result

from simlab.cli import main
from tests.report.report_html import words_unwrapped

# Slow tier (make test-slow): writes whole reports through the CLI, pictures and all.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
ROW_7 = "profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]"
ROW_7_RAISED = "profile: [0, 0, 1, 2, 3, 6, 5, 7, 8, 9, 11]"


class Drifted(NamedTuple):
    """A report that drifted from the baseline: what it said, its scenario, its folder."""

    done: Result
    changed: Path
    out: Path


def simlab(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A baseline written by `simlab baseline update` for the quickstart scenario."""
    folder = tmp_path_factory.mktemp("baseline")
    scenario = folder / "quickstart.yaml"
    scenario.write_text(QUICKSTART.read_text())
    path = folder / "results.json"
    done = simlab("baseline", "update", scenario, "--baseline", path, "-n", 4000)
    assert done.exit_code == 0, done.output
    assert "wrote baseline" in done.output
    return path


def _drift(baseline: Path, folder: Path, *seed: str | int) -> Drifted:
    """``simlab report`` of the quickstart scenario with row 7 raised, 4,000 encounters,
    gated on ``baseline``: it drifts. The scenario's path is long, so that a line may
    break before it, never inside it."""
    from simlab.report import terminal

    (folder / ("deep" * 20)).mkdir()
    changed = folder / ("deep" * 20) / "quickstart.yaml"
    changed.write_text(QUICKSTART.read_text().replace(ROW_7, ROW_7_RAISED))
    out = folder / "r"
    with pytest.MonkeyPatch.context() as patch:  # as every test starts (tests/conftest.py)
        patch.delenv("COLUMNS", raising=False)
        patch.setattr(terminal, "console", terminal._make_console())
        done = simlab("report", changed, "-n", 4000, *seed, "--out", out, "--baseline", baseline)
    return Drifted(done, changed, out)


@pytest.fixture(scope="module")
def drifted(baseline: Path, tmp_path_factory: pytest.TempPathFactory) -> Drifted:
    """A drift of seed 8, not the baseline's, read by several tests (each ran it again)."""
    return _drift(baseline, tmp_path_factory.mktemp("drifted"), "--seed", 8)


@pytest.fixture(scope="module")
def drifted_same_seed(baseline: Path, tmp_path_factory: pytest.TempPathFactory) -> Drifted:
    """A drift of the baseline's seed (no note that the seeds differ), read by several
    tests."""
    return _drift(baseline, tmp_path_factory.mktemp("drifted_same_seed"))


def test_report_writes_everything(tmp_path: Path) -> None:
    done = simlab("report", QUICKSTART, "-n", 2000, "--seed", 5, "--out", tmp_path)
    assert done.exit_code == 0, done.output
    for name in ("report.html", "report.md", "results.json"):
        assert (tmp_path / name).exists()
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["scenarios"][0]["seed"] == 5 and doc["scenarios"][0]["encounters"] == 2000
    assert "3 specs pass" in done.output
    assert " ".join(done.output.split()).endswith("PNGs (1 scenario)")  # not "(1 scenarios)"


def test_what_report_and_baseline_update_wrote_keeps_one_line_when_piped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piped with ``COLUMNS=80`` (a CI job, ``| tee``), ``wrote reports/latest/report.html,
    … PNGs (1 scenario)`` and ``wrote baseline PATH (N scenarios: every id)`` are the
    lines a script reads: each stays one line, as ``simulated … of PATH`` does, where
    rich broke them at 80 columns, inside the parenthesis (``… 28 PNGs (4`` /
    ``scenarios)``). The other lines keep to 80 columns."""
    from rich.console import Console

    from simlab.report import terminal

    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    for name in ("quickstart", "party-3v3", "spirits-2v3"):
        (tmp_path / "s" / f"{name}.yaml").write_text(
            (QUICKSTART.parent / f"{name}.yaml").read_text()
        )
    report = simlab("report", "s", "-n", 500, "--out", "reports/latest")
    update = simlab("baseline", "update", "s", "--baseline", "reports/baseline/results.json",
                    "-n", 500)  # fmt: skip
    wrote = {}
    for done in (report, update):
        assert done.exit_code == 0, done.output
        lines = done.stdout.splitlines()
        wrote[done] = next(line for line in lines if line.startswith("wrote"))
        others = [line for line in lines if line != wrote[done]]
        assert max(len(line) for line in others) <= 80, done.stdout
        assert lines[-1] == wrote[done], done.stdout  # nothing of it on a line after
    assert wrote[report].startswith("wrote reports/latest/report.html, report.md, ")
    assert wrote[report].endswith(" PNGs (3 scenarios)"), wrote[report]
    assert wrote[update] == ("wrote baseline reports/baseline/results.json (3 scenarios: "
                             "party-3v3 (shattered-spirits), quickstart (shattered-spirits), "
                             "spirits-2v3 (shattered-spirits))")  # fmt: skip


class _TerminalRunner(CliRunner):
    """A runner whose standard output is a terminal, as ``simlab`` in a shell's."""

    @contextmanager
    def isolation(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        with super().isolation(*args, **kwargs) as streams:
            sys.stdout.isatty = lambda: True  # type: ignore[method-assign]
            yield streams


@pytest.mark.parametrize("command", ["report", "baseline update"])
def test_what_a_command_wrote_breaks_outside_its_count_on_a_terminal(
    baseline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """On an 80-column terminal the wrote-line is broken at a space, never between a
    count and its noun: ``… PNGs (1`` / ``scenario)``. The --out (--baseline) name is
    made as long as puts the 80th column there, as the piped line shows."""
    from rich.console import Console

    from simlab.report import terminal

    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)
    args, out = {
        "report": (["report", "--from", baseline, "--out"], "{}"),
        "baseline update": (["baseline", "update", "--from", baseline, "--baseline"],
                            "{}.json"),
    }[command]  # fmt: skip
    piped = simlab(*args, out.format("o"))
    line = piped.stdout.splitlines()[-1]
    ends = ("(1 scenario)", ": quickstart (shattered-spirits))")
    assert line.startswith("wrote") and line.endswith(ends)
    longer = "o" * (80 - line.index("(1") - 1)  # "(1" ends at the 80th column
    shown = _TerminalRunner().invoke(main, [*map(str, args), out.format(longer)])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()[-2:]
    assert max(len(each) for each in lines) <= 80, lines
    assert lines[1].startswith("(1 scenario"), lines
    assert " ".join(lines) == line.replace(f" {out.format('o')}", f" {out.format(longer)}", 1)


def test_baseline_update_of_one_scenario_says_1_scenario(tmp_path: Path) -> None:
    """``wrote baseline PATH (1 scenarios: …)``: the count agrees with its noun."""
    done = simlab("baseline", "update", QUICKSTART, "--baseline", tmp_path / "b.json", "-n", 500)
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert said.endswith("(1 scenario: quickstart (shattered-spirits))"), done.output


def test_report_from_saved_results_needs_no_simulation(baseline: Path, tmp_path: Path) -> None:
    done = simlab("report", "--from", baseline, "--out", tmp_path, "--baseline", baseline)
    assert done.exit_code == 0, done.output
    # stdout: the verdict first; stderr: one progress line per scenario drawn.
    assert done.stdout.startswith("no drift from the baseline")
    assert done.stderr.splitlines() == ["drawing 1/1: quickstart (shattered-spirits)"]
    assert (tmp_path / "results.json").read_text() == baseline.read_text()


def test_report_exits_1_on_drift_listing_it_first(drifted: Drifted) -> None:
    # A long path: the "simulated ... of PATH" line may break before the path, never
    # inside it.
    done, changed, out = drifted
    assert done.exit_code == 1, done.output
    said, _, rest = done.stdout.partition(str(changed))
    assert said.startswith("simulated 4,000 encounters of")
    lines = rest.splitlines()[1:]
    assert lines[0].startswith("DRIFT:")
    assert "damage distribution of Brute stone-strike → Kaito" in "\n".join(lines[1:12])
    markdown = (out / "report.md").read_text()
    assert "**DRIFT**" in markdown.split("## quickstart")[0]
    # The table of moved figures sends the reader to the page that lists every figure
    # compared, ok ones included (report.md lists only those that moved, and counts the
    # rest): it said "all of them: report.md".
    assert "(every figure compared: report.html)" in " ".join(done.stdout.split())
    assert "<td>ok</td>" in (out / "report.html").read_text()
    assert (
        "| ok |" not in markdown
        and "other figures not statistically different from the baseline." in markdown
    )


def test_the_pages_drift_list_names_each_scenario_once_over_its_figures(
    drifted_same_seed: Drifted,
) -> None:
    """Every line of report.html's and report.md's list of drifted figures began with
    ``quickstart (shattered-spirits):``, as the terminal's did before it headed each
    scenario's figures once."""
    done, _, out = drifted_same_seed
    assert done.exit_code == 1, done.output
    page = words_unwrapped((out / "report.html").read_text())
    html = page.split("<h2>Drift</h2>")[1].split("<h2>")[0]
    assert html.count('<span class="drifted">') > 1, html
    assert html.count("quickstart (shattered-spirits)") == 1, html
    assert ('<li><span class="drifted">damage distribution of Brute stone-strike → Kaito</span>: '
            "moved (total variation") in html  # fmt: skip
    # "Holm p < 0.0001" on one line, as the terminal keeps it: a phone broke it after "<"
    assert "Holm p" not in html and "Holm\u00a0p\u00a0&lt;\u00a00.0001</li>" in html
    markdown = (out / "report.md").read_text().split("## Drift")[1].split("\n## ")[0]
    assert markdown.count("**DRIFT** ") > 1, markdown
    assert markdown.count("quickstart (shattered-spirits)") == 1, markdown
    assert ("\n  - **DRIFT** damage distribution of Brute stone-strike → Kaito: moved "
            "(total variation") in markdown  # fmt: skip


def test_the_pages_drift_list_reds_what_drifted_and_links_each_scenario(drifted: Drifted) -> None:
    """Every line of report.html's drift list was bold red, a wall of red that said
    nothing, and its scenario headings were plain text: now what drifted is red, how
    (its numbers) in the text's colour, and each scenario links to its section."""
    done, _, out = drifted
    assert done.exit_code == 1, done.output
    page = words_unwrapped((out / "report.html").read_text())
    html = page.split("<h2>Drift</h2>")[1].split("<h2>")[0]
    assert '<li class="bad">' not in html, html  # no line bold red as a whole
    lines = re.findall(r'<li><span class="drifted">([^<]*)</span>: ([^<]*)</li>', html)
    assert len(lines) == html.count("<li><span"), html
    assert all(" → " in how or how.startswith("moved (total variation") for _, how in lines), lines
    assert "ul.drift .drifted { color: #b00; }" in page  # red, not bold
    (anchor,) = re.findall(r'<li><a href="#([^"]+)">quickstart \(shattered-spirits\)</a>', html)
    assert f'<h2 id="{anchor}">quickstart <small>(shattered-spirits)</small></h2>' in page


def test_baseline_update_without_scenarios_reruns_the_baseline(baseline: Path,
                                                               tmp_path: Path) -> None:  # fmt: skip
    copy = tmp_path / "results.json"
    copy.write_text(baseline.read_text())
    done = simlab("baseline", "update", "--baseline", copy)
    assert done.exit_code == 0, done.output
    # Same scenario file, sample size and seed: the same numbers, byte for byte.
    assert copy.read_text() == baseline.read_text()


def test_baseline_update_reruns_a_baseline_with_its_overrides(baseline: Path,
                                                              tmp_path: Path) -> None:  # fmt: skip
    """A baseline adopted from `report --set` results (``--with-overrides``) is the
    scenario with those overrides: re-running it keeps them, and reproduces it byte for
    byte."""
    scenario = baseline.parent / "quickstart.yaml"
    night = tmp_path / "night"
    done = simlab("report", scenario, "-n", 2000, "--set", "Brute.hp=60", "--out", night)
    assert done.exit_code == 0, done.output
    path = tmp_path / "results.json"
    adopt = ("baseline", "update", "--from", night, "--baseline", path, "--with-overrides")
    assert simlab(*adopt).exit_code == 0
    adopted = path.read_text()
    done = simlab("baseline", "update", "--baseline", path)
    assert done.exit_code == 0, done.output
    assert json.loads(path.read_text())["scenarios"][0]["overrides"] == ["Brute.hp=60"]
    assert path.read_text() == adopted


def test_baseline_update_names_a_recorded_override_that_no_longer_applies(
    baseline: Path, tmp_path: Path
) -> None:
    doc = json.loads(baseline.read_text())
    doc["scenarios"][0]["overrides"] = ["Brutte.hp=60"]
    del doc["run"]  # a hand-edited file: its identity no longer says which run it is
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    done = simlab("baseline", "update", "--baseline", path)
    assert done.exit_code == 2, done.output
    assert done.output.startswith(f"{path}: override Brutte.hp=60: expected a combatant")
    assert json.loads(path.read_text()) == doc


def test_baseline_update_from_another_folder_says_where_its_paths_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A baseline records its scenario files as they were named (``rep/quickstart.yaml``,
    relative to the folder it was made in). Re-run from elsewhere, the message said only
    "no such file", as if the path had been typed."""
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "quickstart.yaml").write_text(QUICKSTART.read_text())
    path = tmp_path / "results.json"
    monkeypatch.chdir(tmp_path)
    assert simlab("baseline", "update", "rep/quickstart.yaml", "--baseline", path, "-n",
                  500).exit_code == 0  # fmt: skip
    before = path.read_text()
    monkeypatch.chdir(tmp_path / "rep")
    done = simlab("baseline", "update", "--baseline", path)
    assert done.exit_code == 2, done.output
    assert done.output.startswith(f"{path}: expected the file of scenario 'quickstart', "
                                  "rep/quickstart.yaml (as it was named where the baseline "
                                  "was made"), done.output  # fmt: skip
    assert path.read_text() == before


@pytest.mark.parametrize("kind", ["scenario", "empty", "other JSON", "FIFO", "folder"])
def test_baseline_update_never_overwrites_what_simlab_did_not_write(
    tmp_path: Path, kind: str
) -> None:
    """--baseline names a new file or a baseline simlab wrote: anything else there (a
    scenario, an empty file, a FIFO standing for a device…) is refused before simulating
    and left as it was (a device such as /dev/null was replaced by a file, as root)."""
    victim = tmp_path / ("victim.yaml" if kind == "scenario" else "victim.json")
    content = {"scenario": QUICKSTART.read_text(), "empty": "", "other JSON": '{"format": 1}'}
    if kind in content:
        victim.write_text(content[kind])
    elif kind == "FIFO":
        os.mkfifo(victim)
    else:
        victim.mkdir()
    done = simlab("baseline", "update", QUICKSTART, "-n", 100, "--baseline", victim)
    assert done.exit_code == 2, done.output
    assert "simulated" not in done.output
    got = {"scenario": "got a file that is not JSON", "empty": "got an empty file",
           "other JSON": "got a JSON file that is not simlab's results (format 1)",
           "FIFO": "got a pipe (FIFO), not a regular file",
           "folder": "expected a file; got a folder"}[kind]  # fmt: skip
    assert got in done.output
    if kind != "folder":  # a folder is refused as any file path's is
        expected = "expected a new file or a results file simlab wrote"
        assert done.output.strip() == f"--baseline {victim}: {expected}; {got}; nothing was written"
    if kind in content:
        assert victim.read_text() == content[kind]
    else:
        assert stat.S_ISFIFO(victim.stat().st_mode) or victim.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == [victim.name]


def test_report_refuses_a_missing_baseline_before_simulating(tmp_path: Path) -> None:
    done = simlab("report", QUICKSTART, "--baseline", tmp_path / "nope.json")
    assert done.exit_code == 2
    assert "no such file" in done.output
    assert "simulated" not in done.output


def test_report_needs_scenarios_or_results(tmp_path: Path) -> None:
    assert simlab("report", "--out", tmp_path).exit_code == 2
    both = simlab("report", QUICKSTART, "--from", tmp_path)
    assert both.exit_code == 2 and "got --from with scenarios" in both.output


@pytest.mark.parametrize(
    ("command", "options", "named"),
    [("check", ["-n", "5000"], "-n"), ("check", ["--set", "Kaito.hp=5"], "--set"),
     ("report", ["--seed", "3"], "--seed"), ("check", ["--threads", "1"], "--threads")],
)  # fmt: skip
def test_what_only_a_simulation_uses_is_named_beside_from(
    tmp_path: Path, command: str, options: list[str], named: str
) -> None:
    """Saved results are read as they are: ``-n``, ``--seed``, ``--set`` or ``--threads``
    beside ``--from`` is refused, naming it (the message said "got both" of scenarios
    and results where no scenario was given; ``--threads`` passed unsaid). ``report``
    takes ``--threads`` beside ``--from``: it draws on that many cores."""
    done = simlab(command, "--from", ROOT / "reports/baseline/results.json", *options,
                  *(["--out", tmp_path / "out"] if command == "report" else []))  # fmt: skip
    assert done.exit_code == 2
    assert f"got --from with {named}" in done.output and not (tmp_path / "out").exists()


def test_report_takes_folders(tmp_path: Path) -> None:
    folder = tmp_path / "scn"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep/q.yaml").write_text(QUICKSTART.read_text())
    (folder / "q2.yaml").write_text(QUICKSTART.read_text())  # same id and rules: refused
    done = simlab("report", folder, "-n", 500, "--out", tmp_path / "out")
    assert done.exit_code == 2
    assert "expected a scenario id not used by" in done.output


def test_a_baseline_whose_scenarios_are_a_mapping_is_refused_with_exit_2(
    tmp_path: Path,
) -> None:
    """It was read as 0 scenarios: "no drift … (0 figures compared)", exit 0."""
    fake = tmp_path / "fake.json"
    fake.write_text('{"format": 1, "scenarios": {}}')
    done = simlab("report", QUICKSTART, "-n", 200, "--baseline", fake, "--out", tmp_path / "r")
    assert done.exit_code == 2, done.output
    assert f"{fake}: expected a list of scenarios; got a mapping" in done.output
    fake.write_text("[1, 2]")
    done = simlab("report", "--from", fake, "--out", tmp_path / "r")
    assert done.exit_code == 2, done.output
    assert f"{fake}: expected a JSON object; got a list" in done.output


def test_baseline_update_of_some_scenarios_names_those_it_drops(tmp_path: Path) -> None:
    """``baseline update SCENARIO --replace --baseline EXISTING`` writes a new baseline
    of SCENARIO alone, as documented; it dropped the others without a word. (Without
    ``--replace`` the others are kept: test_drift_baseline_update.py.)"""
    base = tmp_path / "b.json"
    party = QUICKSTART.parent / "party-3v3.yaml"
    first = simlab("baseline", "update", QUICKSTART, party, "--baseline", base, "-n", 300)
    assert first.exit_code == 0, first.output
    assert "dropped" not in first.output
    done = simlab("baseline", "update", QUICKSTART, "--baseline", base, "-n", 300, "--replace")
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert (
        "(1 scenario: quickstart (shattered-spirits)) dropped from the baseline: party-3v3 "
        "(shattered-spirits) (--replace: the new baseline has only the scenarios given)" in said
    ), said
    assert [s["scenario"] for s in json.loads(base.read_text())["scenarios"]] == ["quickstart"]


#: An attack named with spaces, whose last word the drift gate took for the attack.
GREATSWORD = "two-handed executioner's greatsword"


def test_the_drift_gate_breaks_a_subject_between_its_names_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough: the drift gate's table broke a subject before the last word ahead of
    its arrow, taken for the attack: ``Brute two-handed executioner's`` / ``greatsword
    → Kaito``. At 80 columns the attack's name stays whole, the subject broken between
    its attacker, attack and defender only."""
    from rich.console import Console

    from simlab.report import terminal

    monkeypatch.chdir(tmp_path)  # short paths: a path is one word, which no width breaks
    Path("duel.yaml").write_text(QUICKSTART.read_text().replace("stone-strike", GREATSWORD))
    assert simlab("baseline", "update", "duel.yaml", "--baseline", "base.json", "-n",
                  2000).exit_code == 0  # fmt: skip
    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    monkeypatch.setenv("COLUMNS", "80")
    done = simlab("report", "duel.yaml", "--set", "Kaito.guard=3", "-n", 2000, "--out", "r",
                  "--baseline", "base.json")  # fmt: skip
    assert done.exit_code == 1, done.output
    drift = done.output[: done.output.index("balance specs")]
    table = drift[drift.index("statistically different from") :]
    assert GREATSWORD in table, drift
    assert max(len(line) for line in drift.splitlines()) <= 80, drift
    named = [line for line in drift.splitlines() if "two-handed" in line or "greatsword" in line]
    assert named and all(GREATSWORD in line for line in named), drift


def test_a_drift_says_its_verdict_and_what_to_do_at_the_end_and_in_report_md(
    baseline: Path, drifted: Drifted
) -> None:
    """A CI log is read from its end and report.md is the job's summary: both say how
    many figures drifted of how many, from which baseline, and the command that adopts
    a deliberate change (the verdict was only a screen or more above, the summary's
    Drift section a bare list, neither said what to do)."""
    done, _, out = drifted
    assert done.exit_code == 1, done.output
    end = " ".join(done.stdout.split()[-120:])  # the verdict says the seeds differ too
    assert "drift gate failed (exit code 1):" in end
    assert f"drifted from the baseline {baseline}" in end
    adopt = f"simlab baseline update --from {out} --baseline {baseline}"
    assert end.endswith(adopt)
    drift = (out / "report.md").read_text().split("## Drift")[1].split("\n## ")[0]
    assert drift.lstrip().startswith("**DRIFT:** ")
    assert "figures drifted from the baseline" in drift.splitlines()[2]
    assert f"`{adopt}`" in drift


def test_report_md_names_the_scenarios_the_gate_did_not_compare(
    baseline: Path, tmp_path: Path
) -> None:
    """A scenario renamed since the baseline escapes the gate: the run's new name has no
    baseline and the old one is not run. The terminal noted both; the job summary
    (report.md) said only "No figure drifted". (The baseline's other scenario, party-3v3,
    is run too: a run that shares none with its baseline is refused, below.)"""
    renamed = tmp_path / "quickstart.yaml"
    renamed.write_text(QUICKSTART.read_text().replace("scenario: quickstart", "scenario: qs2"))
    shared = tmp_path / "party-3v3.yaml"
    shared.write_text((QUICKSTART.parent / "party-3v3.yaml").read_text())
    with_party = tmp_path / "b.json"
    with_party.write_bytes(baseline.read_bytes())
    add = simlab("baseline", "update", shared, "-n", 500, "--baseline", with_party)
    assert add.exit_code == 0, add.output
    out = tmp_path / "r"
    done = simlab("report", renamed, shared, "-n", 500, "--out", out, "--baseline", with_party)
    assert done.exit_code == 0, done.output
    drift = (out / "report.md").read_text().split("## Drift")[1].split("\n## ")[0]
    assert "**OK:** No figure drifted" in drift
    said = " ".join(drift.split())
    assert "Not compared: qs2 (shattered-spirits), with no baseline yet;" in said
    assert "quickstart (shattered-spirits), in the baseline but not run" in said
    # qs2's own section says why it has no figures compared, not "All 0 figures …"
    qs2 = (out / "report.md").read_text().split("## qs2 (shattered-spirits)")[1]
    compared = qs2.split("### Compared with the baseline")[1].split("\n### ")[0]
    assert "no baseline yet" in compared and "All 0 figures" not in compared, compared


def test_a_baseline_that_shares_no_scenario_with_the_run_is_refused(
    baseline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A baseline of other scenarios (another project's, or this one's before its only
    scenario was renamed) compared nothing, and the gate passed: "no drift … (0 figures
    compared)", exit 0, every night. It is refused (exit 2, nothing written), naming
    both runs' scenarios and the command that adds these to the baseline; before any
    kernel plays an encounter (it was refused once every scenario had been simulated:
    a nightly's whole run spent, then exit 2)."""
    from simlab.engine import runner

    played: list[int] = []
    run_local = runner.run_local

    def counted(job: Any, *args: Any, **kwargs: Any) -> Any:
        played.append(job.n)
        return run_local(job, *args, **kwargs)

    monkeypatch.setattr(runner, "run_local", counted)
    renamed = tmp_path / "quickstart.yaml"
    renamed.write_text(QUICKSTART.read_text().replace("scenario: quickstart", "scenario: qs2"))
    out = tmp_path / "r"
    done = simlab("report", renamed, "-n", 200, "--out", out, "--baseline", baseline)
    assert done.exit_code == 2, done.output
    assert played == []
    said = " ".join(done.output.split())
    assert (
        f"{baseline}: expected the baseline of a scenario run (qs2 (shattered-spirits)); "
        "got one of quickstart (shattered-spirits) only, so the drift gate would compare "
        "nothing." in said
    )
    assert f"simlab baseline update {renamed.as_posix()} --baseline {baseline}" in said
    assert "Traceback" not in done.output
    assert not out.exists()


def test_a_baseline_of_another_results_format_is_replaced_and_said_so(
    baseline: Path, tmp_path: Path
) -> None:
    """A baseline an older simlab wrote (another ``format``) was refused by ``baseline
    update`` as "not simlab's results", so it could not be replaced but by deleting it,
    and the gate said only ``expected results format 1; got 0``."""
    doc = json.loads(baseline.read_text())
    old = tmp_path / "results.json"
    old.write_text(json.dumps(doc | {"format": 0, "simlab_version": "0.0.9"}))
    gate = simlab("report", "--from", baseline, "--out", tmp_path / "r", "--baseline", old)
    assert gate.exit_code == 2
    said = " ".join(gate.output.split())
    assert "got format 0 (written by simlab 0.0.9), which this simlab does not read" in said
    assert f"simlab baseline update --baseline {old} re-runs the scenarios it records" in said
    update = simlab("baseline", "update", QUICKSTART, "--baseline", old, "-n", 500)
    assert update.exit_code == 0, update.output
    assert json.loads(old.read_text())["format"] == doc["format"]


def test_the_gate_s_verdict_and_its_command_keep_one_line_each_piped(
    baseline: Path, drifted_same_seed: Drifted
) -> None:
    """Piped at 80 columns, as a CI log is, the verdict and the adopting command broke at
    the width: ``… commit it: simlab`` / ``baseline update --from …``, a command no
    longer copied whole, and a verdict a ``grep`` found in part."""
    done, _, out = drifted_same_seed
    assert done.exit_code == 1, done.output
    *_, verdict, hint = done.stdout.splitlines()
    assert verdict.startswith("drift gate failed (exit code 1):")
    assert verdict.endswith("beyond the scenario's tolerance).")
    assert hint.endswith(f"simlab baseline update --from {out} --baseline {baseline}")
