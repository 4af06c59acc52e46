"""A simlab output given where another is expected: each reader of scenarios
(``simlab.load``, ``simlab run``, ``validate``, ``check``) and of results
(``simlab.load_results``, ``report --from``, ``report --baseline``, ``check --from``),
given each kind of output folder and each JSON file in one, names what it was given and
what to do with it, where it listed a scenario's validation errors (``unknown key
'run'``) or said ``results.json: got no such file``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import InputError, ScenarioError
from simlab.report.files import MANIFEST

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/zones-3d6/training-duel.yaml"
N = 200
ID = "(zones-training-duel)"
NEEDS_COUNTS = "a report and the drift gate need the counts behind the figures: simlab report"
TABLES = "its tables are the output folder's Parquet files, to read with pandas"
SWEEP = (f"{TABLES} (pandas.read_parquet), or run simlab.sweep again: simlab.plot_sweep "
         "draws a sweep made in the session")  # fmt: skip

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
    (f"report/{MANIFEST}", f"the {MANIFEST} (the list of files) of simlab report --out or "
     f"baseline update {ID}", "give the folder {out}/report", "simlab report --from"),
]  # fmt: skip
#: Results, which a reader of results takes and a reader of scenarios names.
RESULTS = ["report", "report/results.json", "baseline.json", "gate"]


def simlab_cli(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def _said(text: str) -> str:
    return " ".join(text.split())


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
            ("check", "--from", given)]  # fmt: skip


@pytest.mark.parametrize(("given", "what", "instead", "_"), OTHERS, ids=[o[0] for o in OTHERS])
def test_a_reader_of_results_names_the_output_it_was_given(
    out: Path, given: str, what: str, instead: str, _: str
) -> None:
    path = out / given
    said = f"{path}: expected a results.json (simlab report --out, baseline update); got {what}"
    instead = instead.format(out=out)
    with pytest.raises(InputError) as err:
        simlab.load_results(path)
    assert said in str(err.value) and instead in str(err.value), str(err.value)
    for command in _readers_of_results(out, path):
        done = simlab_cli(*command)
        assert done.exit_code == 2, (command, done.output)
        assert said in _said(done.output) and instead in _said(done.output), done.output
    assert not (out / "r").exists()


@pytest.mark.parametrize(
    ("given", "what", "instead"),
    [(g, w, i) for g, w, _, i in OTHERS]
    + [(r, "simlab report --out or baseline update", "give it to simlab report --from or "
        "simlab check --from (simlab.load_results in Python)") for r in RESULTS],
    ids=[o[0] for o in OTHERS] + RESULTS,
)  # fmt: skip
def test_a_reader_of_scenarios_names_the_output_it_was_given(
    out: Path, given: str, what: str, instead: str
) -> None:
    """A sweep.json was refused as a scenario with a validation error for each of its
    fields (``expected key 'attacks'``, ``unknown key 'run'``), a folder as ``got a
    directory`` or ``a folder with scenario files; got none``."""
    path = out / given
    said = f"{path}: expected a scenario file (YAML); got "
    instead = instead.format(out=out)
    with pytest.raises(ScenarioError) as err:
        simlab.load(path)
    assert str(err.value).startswith(said) and what in str(err.value), str(err.value)
    assert instead in str(err.value) and "unknown key" not in str(err.value)
    for command in [("run", path, "-n", N), ("validate", path), ("check", path, "-n", N)]:
        done = simlab_cli(*command)
        assert done.exit_code == 2, (command, done.output)
        assert _said(done.output).startswith(said), done.output
        assert what in _said(done.output) and instead in _said(done.output), done.output


@pytest.mark.parametrize("given", RESULTS)
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
