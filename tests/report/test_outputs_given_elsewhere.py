"""A simlab output given where another is expected: each reader of scenarios
(``simlab.load``, ``simlab run``, ``validate``, ``check``), of results
(``simlab.load_results``, ``report --from``, ``report --baseline``, ``check --from``,
``baseline update --from``) and ``baseline update``'s file to write, given each kind of
output folder and each file in one (JSON, pages, tables, plots), names what it was given
and what to do with it, where it listed a scenario's validation errors (``unknown key
'run'``), a YAML parser's (``found character '`'``), a decoder's (``can't decode byte
0x89``), said ``results.json: got no such file`` or ``a JSON file that is not simlab's
results``. So does each of them given one damaged (emptied, cut short) or a folder
without its main file: exit 2, no traceback, nothing written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

import simlab
from simlab import __version__
from simlab.cli import main
from simlab.errors import InputError, ScenarioError
from simlab.report.files import MANIFEST, check_unit, simlab_output

# Slow tier (make test-slow): writes every output of report, check and baseline into given places.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/zones-3d6/training-duel.yaml"
N = 200
ID = "(zones-training-duel)"
REPORT_PNG = "png/zones-3d6-zones-training-duel-hit-rates.png"
NEEDS_COUNTS = "a report and the drift gate need the counts behind the figures: simlab report"
TABLES = "its tables are the output folder's Parquet files, to read with pandas"
SWEEP = (f"{TABLES} (pandas.read_parquet), or run simlab.sweep again: simlab.plot_sweep "
         "draws a sweep made in the session")  # fmt: skip
PANDAS = "read it with pandas (pandas.read_parquet); "
PAGE, MARKDOWN, PLOT = ("its page, to open in a browser", "its page in Markdown, to read",
                        "a plot drawn on its page")  # fmt: skip
REPORT_FOLDER = "give its folder, {out}/report"
GATE_FOLDER = "give its folder, {out}/gate"

#: Each output given (relative to the outputs' folder), what it is said to be, and what
#: to do with it where results are expected and where a scenario is.
OTHERS = [
    ("run", f"an output folder of simlab run {ID}", NEEDS_COUNTS, TABLES),
    ("run/summary.json", f"the summary.json of simlab run {ID}", NEEDS_COUNTS, TABLES),
    (f"run/{MANIFEST}", f"the {MANIFEST} (the list of files) of simlab run {ID}",
     NEEDS_COUNTS, TABLES),
    ("exact", f"an output folder of simlab exact {ID}", NEEDS_COUNTS, TABLES),
    ("exact/summary.json", f"the summary.json of simlab exact {ID}", NEEDS_COUNTS, TABLES),
    ("sweep", f"an output folder of simlab sweep {ID}", SWEEP, SWEEP),
    ("sweep/sweep.json", f"the sweep.json of simlab sweep {ID}", SWEEP, SWEEP),
    ("compare", f"an output folder of simlab compare {ID}", "read compare.json as JSON",
     "or run simlab.compare again"),
    ("compare/compare.json", f"the compare.json of simlab compare {ID}",
     "read compare.json as JSON", "or run simlab.compare again"),
    ("tune", f"an output folder of simlab tune {ID}", "read tune.json as JSON",
     "or run simlab.tune again"),
    ("tune/tune.json", f"the tune.json of simlab tune {ID}", "read tune.json as JSON",
     "or run simlab.tune again"),
    ("gate/drift.json", f"the drift.json of simlab report --baseline {ID}",
     "the run's results are the results.json beside it: give its folder, {out}/gate",
     "simlab report --from reads the run's results in its folder, {out}/gate"),
    (f"report/{MANIFEST}", f"the {MANIFEST} (the list of files) of simlab report --out {ID}",
     "give the folder {out}/report", "simlab report --from"),
    # the files that are not JSON, told by the run identity stamped in each
    ("report/report.html", f"the report.html of simlab report --out {ID}, {PAGE}",
     REPORT_FOLDER, f"{REPORT_FOLDER}, to simlab report --from or simlab check --from"),
    ("report/report.md", f"the report.md of simlab report --out {ID}, {MARKDOWN}",
     REPORT_FOLDER, f"{REPORT_FOLDER}, to simlab report --from or simlab check --from"),
    (f"report/{REPORT_PNG}", f"the {REPORT_PNG} of simlab report --out {ID}, {PLOT}",
     REPORT_FOLDER, f"{REPORT_FOLDER}, to simlab report --from or simlab check --from"),
    ("gate/report.md", f"the report.md of simlab report --baseline {ID}, {MARKDOWN}",
     GATE_FOLDER, f"{GATE_FOLDER}, to simlab report --from or simlab check --from"),
    (f"gate/{REPORT_PNG}", f"the {REPORT_PNG} of simlab report --baseline {ID}, {PLOT}",
     GATE_FOLDER, f"{GATE_FOLDER}, to simlab report --from or simlab check --from"),
    ("run/attacks.parquet", f"the attacks.parquet of simlab run {ID}, one of its tables "
     "(Parquet)", PANDAS + NEEDS_COUNTS, f"{PANDAS}simlab run takes the scenario's YAML"),
    ("exact/time_to_down.parquet", f"the time_to_down.parquet of simlab exact {ID}, one of "
     "its tables (Parquet)", PANDAS + NEEDS_COUNTS, PANDAS),
    ("sweep/sides.parquet", f"the sides.parquet of simlab sweep {ID}, one of its tables "
     "(Parquet)", PANDAS + NEEDS_COUNTS, PANDAS),
    ("sweep/sweep.html", f"the sweep.html of simlab sweep {ID}, {PAGE}", SWEEP, SWEEP),
    ("sweep/sweep.md", f"the sweep.md of simlab sweep {ID}, {MARKDOWN}", SWEEP, SWEEP),
    ("sweep/png/win-rate.png", f"the png/win-rate.png of simlab sweep {ID}, {PLOT}", SWEEP,
     SWEEP),
    ("compare/compare.html", f"the compare.html of simlab compare {ID}, {PAGE}",
     "read compare.json as JSON", "or run simlab.compare again"),
    ("compare/compare.md", f"the compare.md of simlab compare {ID}, {MARKDOWN}",
     "read compare.json as JSON", "or run simlab.compare again"),
    ("tune/tune.html", f"the tune.html of simlab tune {ID}, {PAGE}", "read tune.json as JSON",
     "or run simlab.tune again"),
    ("tune/tune.md", f"the tune.md of simlab tune {ID}, {MARKDOWN}", "read tune.json as JSON",
     "or run simlab.tune again"),
    ("tune/png/tune.png", f"the png/tune.png of simlab tune {ID}, {PLOT}",
     "read tune.json as JSON", "or run simlab.tune again"),
]  # fmt: skip
#: Results, which a reader of results takes and a reader of scenarios names.
RESULTS = [("report", f"an output folder of simlab report --out {ID}"),
           ("report/results.json", f"the results.json of simlab report --out or baseline "
                                   f"update {ID}"),
           ("baseline.json", f"the results.json of simlab report --out or baseline update {ID}"),
           ("gate", f"an output folder of simlab report --baseline {ID}")]  # fmt: skip
NAME_THE_BASELINE = ("nothing was written: name the baseline file to write "
                     "(reports/baseline/results.json by default) or a new file")  # fmt: skip


def simlab_cli(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def _said(text: str) -> str:
    return " ".join(text.split())


def _refused(done: Result, *words: str) -> str:
    """The words of a refusal, after checking that it is one: exit 2, no traceback, and
    each of ``words`` said."""
    said = _said(done.output)
    assert done.exit_code == 2, done.output
    assert isinstance(done.exception, SystemExit) and "Traceback" not in done.output, said
    for word in words:
        assert word in said, (word, said)
    return said


def _contents(path: Path) -> dict[str, bytes]:
    """Every file at or under ``path``, with its bytes."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {p.as_posix(): p.read_bytes() for p in files}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every kind of output simlab writes, each of a tiny run of one duel."""
    folder = tmp_path_factory.mktemp("outputs")
    for command in [
        ("run", DUEL, "-n", N, "--out", folder / "run"),
        ("exact", DUEL, "--out", folder / "exact"),
        ("report", DUEL, "-n", N, "--out", folder / "report"),
        ("baseline", "update", DUEL, "-n", N, "--baseline", folder / "baseline.json"),
        ("report", "--from", folder / "report", "--baseline", folder / "baseline.json",
         "--out", folder / "gate"),
        ("sweep", DUEL, "--vary", "Pell.hp=20,30", "-n", N, "--out", folder / "sweep"),
        ("compare", DUEL, "--set", "Pell.hp=20", "-n", N, "--out", folder / "compare"),
        ("tune", DUEL, "--vary", "Pell.hp=10:40", "--target", "median_time_to_down:Pell=4",
         "-n", N, "--out", folder / "tune"),
    ]:  # fmt: skip
        done = simlab_cli(*command)
        assert done.exit_code in (0, 1), done.output  # tune: 1 when its target is not reached
    return folder


def _readers_of_results(out: Path, given: Path) -> list[tuple[object, ...]]:
    return [("report", "--from", given, "--out", out / "r"),
            ("report", "--from", out / "report", "--baseline", given, "--out", out / "r"),
            ("check", "--from", given),
            ("baseline", "update", "--from", given, "--baseline", out / "b.json")]  # fmt: skip


def _readers_of_scenarios(given: Path) -> list[tuple[object, ...]]:
    return [("run", given, "-n", N), ("validate", given), ("check", given, "-n", N)]


@pytest.mark.parametrize(("given", "what", "instead", "_"), OTHERS, ids=[o[0] for o in OTHERS])
def test_a_reader_of_results_names_the_output_it_was_given(
    out: Path, given: str, what: str, instead: str, _: str
) -> None:
    """A page, a table or a plot was refused as ``expected a results.json file; got a
    file that is not JSON`` or ``… not text ('utf-8' codec can't decode byte 0x89 …)``."""
    path = out / given
    said = f"{path}: expected a results.json (simlab report --out, baseline update); got {what}"
    instead = instead.format(out=out)
    with pytest.raises(InputError) as err:
        simlab.load_results(path)
    assert said in str(err.value) and instead in str(err.value), str(err.value)
    for command in _readers_of_results(out, path):
        _refused(simlab_cli(*command), said, instead)
    assert not (out / "r").exists() and not (out / "b.json").exists()


@pytest.mark.parametrize(
    ("given", "what", "instead"),
    [(g, w, i) for g, w, _, i in OTHERS]
    + [(r, w, "give it to simlab report --from or simlab check --from (simlab.load_results "
        "in Python)") for r, w in RESULTS],
    ids=[o[0] for o in OTHERS] + [r for r, _ in RESULTS],
)  # fmt: skip
def test_a_reader_of_scenarios_names_the_output_it_was_given(
    out: Path, given: str, what: str, instead: str
) -> None:
    """A sweep.json was refused as a scenario with a validation error for each of its
    fields (``expected key 'attacks'``, ``unknown key 'run'``), a folder as ``got a
    directory`` or ``a folder with scenario files; got none``, a page as YAML that does
    not parse, a table or a plot as ``expected UTF-8 text``."""
    path = out / given
    said = f"{path}: expected a scenario file (YAML); got {what}"
    instead = instead.format(out=out)
    with pytest.raises(ScenarioError) as err:
        simlab.load(path)
    assert str(err.value).startswith(said) and instead in str(err.value), str(err.value)
    assert "unknown key" not in str(err.value)
    for command in _readers_of_scenarios(path):
        assert _refused(simlab_cli(*command), instead).startswith(said)


@pytest.mark.parametrize("given", [r for r, _ in RESULTS])
def test_results_are_still_read_where_results_are_expected(out: Path, given: str) -> None:
    assert [r.scenario for r in simlab.load_results(out / given)] == ["zones-training-duel"]
    assert simlab_cli("check", "--from", out / given).exit_code == 0


def test_a_scenario_file_is_still_checked_as_one(tmp_path: Path) -> None:
    """JSON that is no simlab output, given as a scenario, is a scenario's mistakes."""
    path = tmp_path / "mine.json"
    path.write_text('{"scenario": "x", "rules": "zones-3d6", "run": 1}')
    with pytest.raises(ScenarioError) as err:
        simlab.load(path)
    assert "unknown key 'run'" in str(err.value)


@pytest.mark.parametrize("name", ["notes.md", "report.md", "report.html", "t.parquet", "p.png"])
def test_a_designers_own_file_is_not_taken_for_simlabs(tmp_path: Path, name: str) -> None:
    """Told by the run identity stamped in it, not by its name or suffix: a designer's
    own notes, or a page named as simlab names its own, is no output of simlab's."""
    path = tmp_path / name
    if name.endswith(".parquet"):
        pd.DataFrame({"x": [1, 2]}).to_parquet(path)
    elif name.endswith(".png"):
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    else:
        path.write_text("# Pell is too weak\n\nGive him 5 more hp.\n")
    assert simlab_output(path) is None
    with pytest.raises(InputError, match=f"{path}: expected a results.json file; got a file"):
        simlab.load_results(path)
    with pytest.raises(ScenarioError) as err:
        simlab.load(path)
    assert "expected a scenario file (YAML)" not in str(err.value), str(err.value)


def _emptied(folder: Path, name: str) -> None:
    (folder / name).write_text("")


def _cut(folder: Path, name: str) -> None:
    text = (folder / name).read_text()
    (folder / name).write_text(text[: len(text) // 2])


def _lost(folder: Path, name: str) -> None:
    (folder / name).unlink()


def _stray(folder: Path, name: str) -> None:
    shutil.copy(folder.parent / "baseline.json", folder / name)
    doc = json.loads((folder / name).read_text())
    doc["run"]["scenarios"][0]["seed"] += 1  # another run's
    doc["scenarios"][0]["seed"] += 1
    (folder / name).write_text(json.dumps(doc))


AGAIN = "write the folder again with"
AS_SCENARIO = "simlab run and validate take the scenario's YAML file;"
#: A damaged output: (its folder, what is done to which file of it, which path is given,
#: what a reader of results says, what a reader of scenarios says; None: a reader of
#: scenarios reads it as a whole output).
DAMAGED = {
    "results emptied": ("report", _emptied, "results.json", "",
                        [f"{{given}}/results.json: expected a results.json (simlab report "
                         f"--out, baseline update); got the results.json of simlab report "
                         f"--out {ID}, empty: write it again with simlab report --out"],
                        [f"{{given}}: expected a scenario file (YAML); got an output folder "
                         f"of simlab report --out {ID} whose results.json is empty: "
                         f"{AS_SCENARIO} {AGAIN} simlab report --out"]),
    "results cut short": ("report", _cut, "results.json", "",
                          [f"got the results.json of simlab report --out {ID}, cut short "
                           "at line ", "(the file ends before its JSON does): write it again "
                           "with simlab report --out"],
                          [f"got an output folder of simlab report --out {ID} whose "
                           f"results.json is cut short at line ", f"{AGAIN} simlab report"]),
    "baseline cut short": (".", _cut, "baseline.json", "baseline.json",
                           [f"{{given}}: expected a results.json (simlab report --out, "
                            f"baseline update); got the results.json of simlab report --out "
                            f"or baseline update {ID}, cut short at line ", "write it again "
                            "from its scenarios (simlab baseline update SCENARIO|DIR... "
                            "--baseline {given}), or restore a committed one from version "
                            "control"],
                           [f"{{given}}: expected a scenario file (YAML); got the results.json "
                            f"of simlab report --out or baseline update {ID}, cut short at "
                            "line "]),
    "sweep.json cut short": ("sweep", _cut, "sweep.json", "sweep.json",
                             [f"got the sweep.json of simlab sweep {ID}, cut short at line ",
                              "write it again with simlab sweep"],
                             [f"got the sweep.json of simlab sweep {ID}, cut short at line "]),
    "gate without drift.json": ("gate", _lost, "drift.json", "",
                                ["{given}: expected the files of one run; got drift.json is "
                                 f"missing: {AGAIN} simlab report --baseline"], None),
    "report with another run's": ("report", _stray, "stray.json", "",
                                  ["{given}: expected the files of one run; got stray.json is "
                                   "from another run", "take stray.json out of the folder"],
                                  None),
    **{f"{kind} without {main}": (kind, _lost, main, "",
                                  [f"{{given}}: expected a results.json (simlab report --out, "
                                   f"baseline update); got an output folder of {writer} {ID} "
                                   f"without its {main}: {AGAIN} {writer}"],
                                  [f"{{given}}: expected a scenario file (YAML); got an "
                                   f"output folder of {writer} {ID} without its {main}: "
                                   f"{AS_SCENARIO} {AGAIN} {writer}"])
       for kind, main, writer in [("report", "results.json", "simlab report --out"),
                                  ("gate", "results.json", "simlab report --baseline"),
                                  ("run", "summary.json", "simlab run"),
                                  ("exact", "summary.json", "simlab exact"),
                                  ("sweep", "sweep.json", "simlab sweep"),
                                  ("compare", "compare.json", "simlab compare"),
                                  ("tune", "tune.json", "simlab tune")]},
}  # fmt: skip


@pytest.mark.parametrize("case", DAMAGED)
def test_a_damaged_output_is_said_so_with_how_to_write_it_again(
    out: Path, tmp_path: Path, case: str
) -> None:
    """A results.json emptied or cut short was ``a file that is not JSON (line 1, column
    1: expecting value)``, as a scenario ``a '[' never closed``; a folder without its main
    file ``results.json: got no such file`` or ``got a directory``; a folder whose files
    disagree said so without what mends it."""
    kind, damage, name, given_name, results_said, scenario_said = DAMAGED[case]
    folder = tmp_path / "o" / kind
    shutil.copytree(out, tmp_path / "o")
    damage(folder, name)
    given = folder / given_name if given_name else folder
    with pytest.raises(InputError) as err:
        simlab.load_results(given)
    for words in (w.format(given=given) for w in results_said):
        assert words in _said(str(err.value)), (words, str(err.value))
    for command in _readers_of_results(tmp_path, given):
        _refused(simlab_cli(*command), *(w.format(given=given) for w in results_said))
    assert not (tmp_path / "r").exists() and not (tmp_path / "b.json").exists()
    if scenario_said is None:
        return
    with pytest.raises(ScenarioError) as err:
        simlab.load(given)
    for words in (w.format(given=given) for w in scenario_said):
        assert words in _said(str(err.value)), (words, str(err.value))
    for command in _readers_of_scenarios(given):
        _refused(simlab_cli(*command), *(w.format(given=given) for w in scenario_said))


@pytest.mark.parametrize(
    ("text", "got"),
    [("", "got an empty file; simlab report --out and baseline update write one"),
     ('{\n  "format": 1,\n  "scenarios": [\n    {"scenario": "duel"',
      "got JSON cut short at line 4 (the file ends before its document does)")],
    ids=["empty", "cut short"],
)  # fmt: skip
def test_an_empty_or_cut_short_file_of_no_output_is_said_so(
    tmp_path: Path, text: str, got: str
) -> None:
    """Both were ``a file that is not JSON (line 1, column 1: expecting value)``."""
    path = tmp_path / "results.json"
    path.write_text(text)
    with pytest.raises(InputError, match="^" + re.escape(f"{path}: expected a results.json "
                                                          f"file; {got}")):  # fmt: skip
        simlab.load_results(path)


#: Each output given as the baseline to write, what it is said to be, and what to do.
BASELINE_TARGETS = [
    *[(g, w, NAME_THE_BASELINE) for g, w, _, _ in OTHERS],
    ("report", f"an output folder of simlab report --out {ID}, a run's counts and figures",
     "nothing was written: a baseline is one file: simlab baseline update --from {path} "
     "--baseline FILE makes one of its results"),
    ("gate/results.json", f"its results.json in an output folder of simlab report --baseline "
     f"{ID}, which its command writes whole (its {MANIFEST} lists its files)",
     f"{NAME_THE_BASELINE} outside that folder"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("given", "what", "instead"), BASELINE_TARGETS, ids=[t[0] for t in BASELINE_TARGETS]
)
@pytest.mark.parametrize("scenarios", [(DUEL, "-n", N), ()], ids=["new", "recorded"])
def test_baseline_update_names_the_output_given_as_the_baseline(
    out: Path, given: str, what: str, instead: str, scenarios: tuple[object, ...]
) -> None:
    """``baseline update --baseline sweep.json`` (and every other output) was refused
    as ``a JSON file that is not simlab's results (format 1)`` or ``a file that is not
    JSON``, a folder as click's ``File 'sweep' is a directory``, and an output folder's
    own results.json was replaced alone, its pages left of another run beside it."""
    path = out / given
    before = _contents(out)
    done = simlab_cli("baseline", "update", *scenarios, "--baseline", path)
    said = f"--baseline {path}: expected a new file or a results file simlab wrote; got {what}"
    assert _refused(done, instead.format(path=path)).startswith(said)
    assert "simulated" not in done.output
    assert _contents(out) == before
    check_unit(path if path.is_dir() else path.parent)


@pytest.mark.parametrize("scenarios", [(DUEL, "-n", N), ()], ids=["new", "recorded"])
def test_a_newer_simlabs_baseline_is_not_written_over(
    out: Path, tmp_path: Path, scenarios: tuple[object, ...]
) -> None:
    """A baseline of a newer format was replaced by this simlab's older one: a team's
    baseline taken back by one machine not yet upgraded."""
    doc = json.loads((out / "baseline.json").read_text())
    doc |= {"format": 2, "simlab_version": "9.1.0"}
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(doc))
    done = simlab_cli("baseline", "update", *scenarios, "--baseline", path)
    _refused(done, f"--baseline {path}: expected a new file or a results file simlab wrote; "
                   f"got results of format 2 (written by simlab 9.1.0), newer than this "
                   f"simlab {__version__} writes; nothing was written: update it with simlab "
                   "9.1.0 or later")  # fmt: skip
    assert json.loads(path.read_text()) == doc


def test_a_baseline_cut_short_is_written_again(out: Path, tmp_path: Path) -> None:
    """What its refusal says to do: ``baseline update SCENARIO --baseline FILE`` refused
    it as ``a file that is not JSON``."""
    path = tmp_path / "baseline.json"
    path.write_text((out / "baseline.json").read_text()[:5000])
    done = simlab_cli("baseline", "update", DUEL, "-n", N, "--baseline", path)
    assert done.exit_code == 0, done.output
    assert [r.scenario for r in simlab.load_results(path)] == ["zones-training-duel"]


def test_a_drift_json_copied_away_from_its_report_names_no_folder(
    out: Path, tmp_path: Path
) -> None:
    """A drift.json copied out of its report's folder was told to give "its folder, .",
    which holds no results.json: the hint named a folder that does not work."""
    copy = tmp_path / "drift.json"
    shutil.copy(out / "gate/drift.json", copy)
    with pytest.raises(InputError) as err:
        simlab.load_results(copy)
    said = str(err.value)
    assert (
        "the run's results are the results.json the report wrote beside it, and none is "
        "beside this one (copied or moved away): give the folder of that report"
    ) in said
    assert "give its folder" not in said, said
    with pytest.raises(ScenarioError) as as_scenario:
        simlab.load(copy)
    assert "in the folder of the report that wrote it (no results.json is beside this one)" in (
        str(as_scenario.value)
    )
