"""Making a run the baseline, as the drift gate's advice says: ``baseline update --from
OUT`` after re-running one scenario updated that scenario and wrote a baseline of it
alone (the other 29 "dropped"), and adopted a run made with ``--set``, which the nightly
run never has. Now the run's scenarios replace theirs and the others are kept
(``--replace`` drops them), a run with overrides is adopted only ``--with-overrides``,
and the gate never advises a command that is refused or loses scenarios."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner, Result

import simlab
from simlab.analysis.drift import DEFAULT_ALPHA, DRIFT_COLUMNS, DriftReport
from simlab.cli import main
from simlab.report.render import drift_cells
from simlab.report.terminal import RATE_RANGE, estimate

# Slow tier (make test-slow): runs baselines and updates them end to end.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SPIRITS = ROOT / "scenarios/shattered-spirits"
QUICKSTART = SPIRITS / "quickstart.yaml"
PARTY = SPIRITS / "party-3v3.yaml"
DUELS = [SPIRITS / "duel-both-drafts.yaml",
         ROOT / "scenarios/shattered-spirits-draft1/duel-both-drafts.yaml"]  # fmt: skip
N = 2000
ROW_9 = "profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]"
ROW_9_RAISED = "profile: [0, 0, 1, 2, 3, 4, 5, 8, 8, 9, 11]"  # stone-strike.profile[9]=8


def simlab_cli(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def _said(done: Result) -> str:
    return " ".join(done.output.split())


def _entries(path: Path) -> dict[str, dict[str, Any]]:
    doc = json.loads(path.read_text())
    return {f"{e['scenario']} ({e['rules']})": e for e in doc["scenarios"]}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A baseline of the quickstart and the 3v3, and a report of the quickstart alone
    with stone-strike's row 9 raised, once in its file and once by ``--set``."""
    folder = tmp_path_factory.mktemp("adopt")
    base = folder / "baseline.json"
    done = simlab_cli("baseline", "update", QUICKSTART, PARTY, "--baseline", base, "-n", N)
    assert done.exit_code == 0, done.output
    raised = folder / "quickstart.yaml"
    raised.write_text(QUICKSTART.read_text().replace(ROW_9, ROW_9_RAISED))
    made: dict[str, Any] = {"base": base}
    overridden = [QUICKSTART, "--set", "stone-strike.profile[9]=8"]
    for run, how in (("edited", [raised]), ("overridden", overridden)):
        made[run] = folder / run
        done = simlab_cli("report", *how, "-n", N, "--baseline", base, "--out", made[run])
        assert done.exit_code == 1, done.output  # the raised row drifts
        made[f"{run} said"] = done.stdout.splitlines()[-1]  # the gate's advice
    return made


def _copy(path: Path, tmp_path: Path, name: str = "baseline.json") -> Path:
    copy = tmp_path / name
    copy.write_text(path.read_text())
    return copy


def test_adopting_a_run_of_one_scenario_keeps_the_others(made: dict[str, Any],
                                                         tmp_path: Path) -> None:  # fmt: skip
    base = _copy(made["base"], tmp_path)
    before = _entries(base)
    done = simlab_cli("baseline", "update", "--from", made["edited"], "--baseline", base)
    assert done.exit_code == 0, done.output
    after = _entries(base)
    assert list(after) == list(before) == ["quickstart (shattered-spirits)",
                                           "party-3v3 (shattered-spirits)"]  # fmt: skip
    # the 3v3 kept entry for entry; the quickstart is the run's
    assert after["party-3v3 (shattered-spirits)"] == before["party-3v3 (shattered-spirits)"]
    run = _entries(made["edited"] / "results.json")["quickstart (shattered-spirits)"]
    assert after["quickstart (shattered-spirits)"] == run
    assert [r.scenario for r in simlab.load_results(base)] == ["quickstart", "party-3v3"]
    assert done.output.splitlines() == [
        f"wrote baseline {base} (2 scenarios: 1 updated, 1 kept)",
        "updated: quickstart (shattered-spirits)",
        "kept: party-3v3 (shattered-spirits)",
    ]


def test_a_scenario_new_to_the_baseline_is_added(made: dict[str, Any], tmp_path: Path) -> None:
    base = tmp_path / "baseline.json"
    assert simlab_cli("baseline", "update", PARTY, "--baseline", base, "-n", 300).exit_code == 0
    done = simlab_cli("baseline", "update", "--from", made["edited"], "--baseline", base)
    assert done.exit_code == 0, done.output
    assert list(_entries(base)) == ["party-3v3 (shattered-spirits)",
                                    "quickstart (shattered-spirits)"]  # fmt: skip
    assert done.output.splitlines()[1:] == ["added: quickstart (shattered-spirits)",
                                            "kept: party-3v3 (shattered-spirits)"]  # fmt: skip


def test_replace_writes_the_run_alone_and_names_what_it_drops(made: dict[str, Any],
                                                              tmp_path: Path) -> None:  # fmt: skip
    base = _copy(made["base"], tmp_path)
    done = simlab_cli("baseline", "update", "--from", made["edited"], "--baseline", base,
                      "--replace")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert list(_entries(base)) == ["quickstart (shattered-spirits)"]
    assert _said(done) == (
        f"wrote baseline {base} (1 scenario: quickstart (shattered-spirits)) "
        "dropped from the baseline: party-3v3 (shattered-spirits) "
        "(--replace: the new baseline has only the scenarios given)"
    )


def test_a_run_made_with_set_is_refused_saying_why(made: dict[str, Any],
                                                   tmp_path: Path) -> None:  # fmt: skip
    base = _copy(made["base"], tmp_path)
    before = base.read_text()
    done = simlab_cli("baseline", "update", "--from", made["overridden"], "--baseline", base)
    assert done.exit_code == 2, done.output
    assert _said(done) == (
        f"--from {made['overridden']}: expected results simulated as the scenario files "
        "say, as the nightly run is; got quickstart (shattered-spirits) with --set "
        "stone-strike.profile[9]=8; nothing was written: the nightly run has no overrides, "
        "so it would drift from this baseline every night. Write the change into the "
        "scenario files and run them again, or pass --with-overrides to adopt these "
        "results as they are"
    )
    assert base.read_text() == before
    done = simlab_cli("baseline", "update", "--from", made["overridden"], "--baseline", base,
                      "--with-overrides")  # fmt: skip
    assert done.exit_code == 0, done.output
    entries = _entries(base)
    assert entries["quickstart (shattered-spirits)"]["overrides"] == ["stone-strike.profile[9]=8"]
    assert "party-3v3 (shattered-spirits)" in entries


@pytest.mark.parametrize("run", ["edited", "overridden"])
def test_the_gate_advises_a_command_that_keeps_the_baseline(
    made: dict[str, Any], tmp_path: Path, run: str
) -> None:
    """The command the gate's last line gives is run as given (on a copy of the
    baseline): it is not refused and keeps the scenario the run left out. A run made
    with --set says why it is no baseline as it is; report.md gives the same command."""
    said = made[f"{run} said"]
    command = said[said.index("simlab baseline update") :]
    assert f"`{command}`" in (made[run] / "report.md").read_text()
    if run == "overridden":
        assert said.startswith("This run was made with --set overrides, which the nightly "
                               "run does not have")  # fmt: skip
    base = _copy(made["base"], tmp_path)
    done = simlab_cli(*command.replace(str(made["base"]), str(base)).split()[1:])
    assert done.exit_code == 0, done.output
    assert list(_entries(base)) == ["quickstart (shattered-spirits)",
                                    "party-3v3 (shattered-spirits)"]  # fmt: skip


def test_baseline_update_names_the_rules_of_a_scenario_id_two_rule_systems_share(
    tmp_path: Path,
) -> None:
    """``dropped from the baseline: duel-both-drafts, quickstart, duel-both-drafts``: one
    id under two rule systems, named twice alike."""
    base = tmp_path / "baseline.json"
    done = simlab_cli("baseline", "update", *DUELS, "--baseline", base, "-n", 200)
    assert done.exit_code == 0, done.output
    assert _said(done).endswith("(2 scenarios: duel-both-drafts (shattered-spirits), "
                                "duel-both-drafts (shattered-spirits-draft1))")  # fmt: skip
    copy = _copy(base, tmp_path, "copy.json")
    done = simlab_cli("baseline", "update", QUICKSTART, "--baseline", base, "-n", 200)
    assert "kept: duel-both-drafts (shattered-spirits), duel-both-drafts " \
           "(shattered-spirits-draft1)" in _said(done)  # fmt: skip
    done = simlab_cli("baseline", "update", QUICKSTART, "--baseline", copy, "-n", 200,
                      "--replace")  # fmt: skip
    assert "dropped from the baseline: duel-both-drafts (shattered-spirits), " \
           "duel-both-drafts (shattered-spirits-draft1)" in _said(done)  # fmt: skip


def test_replace_and_with_overrides_are_refused_where_they_mean_nothing(tmp_path: Path) -> None:
    base = tmp_path / "baseline.json"
    done = simlab_cli("baseline", "update", "--baseline", base, "--replace")
    assert done.exit_code == 2 and _said(done).startswith("--replace: expected scenarios or "
                                                          "--from results")  # fmt: skip
    done = simlab_cli("baseline", "update", QUICKSTART, "--baseline", base, "--with-overrides")
    assert done.exit_code == 2 and _said(done).startswith("--with-overrides: expected --from")
    assert not base.exists()


def test_a_damaged_baseline_is_refused_before_simulating_unless_replaced(
    made: dict[str, Any], tmp_path: Path
) -> None:
    """Its other scenarios could not be kept, and they are still there to mend."""
    doc = json.loads(made["base"].read_text())
    doc["scenarios"][1]["attacks"][0]["hits"] += 1  # a hand edit
    base = tmp_path / "baseline.json"
    base.write_text(json.dumps(doc))
    done = simlab_cli("baseline", "update", QUICKSTART, "--baseline", base, "-n", 200)
    assert done.exit_code == 2, done.output
    assert "simulated 200" not in done.output
    assert _said(done).startswith(f"--baseline {base}: expected a baseline whose other "
                                  "scenarios can be kept; got ")  # fmt: skip
    assert json.loads(base.read_text()) == doc
    done = simlab_cli("baseline", "update", QUICKSTART, "--baseline", base, "-n", 200,
                      "--replace")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert list(_entries(base)) == ["quickstart (shattered-spirits)"]


# -- figures read as the figures beside them ---------------------------------------------


def _row(**cells: object) -> Any:
    row = {c: math.nan for c in DRIFT_COLUMNS}
    row.update(scenario="s", rules="r", subject="Kaito", test="z", tolerance=0.02,
               beyond_tolerance=False, significant=False, drifted=False, p_holm=1.0)  # fmt: skip
    row.update(cells)
    return next(DriftReport(pd.DataFrame([row]), DEFAULT_ALPHA, []).table.itertuples())


@pytest.mark.parametrize(
    ("figure", "kind", "baseline", "current", "cells"),
    [("crit_rate", "rate", 0.0, 0.0, ["0", "0", "0"]),
     ("mean_damage", "mean", 4.0, 5.0, ["4", "5", "+1"]),
     ("hit_rate", "rate", 1.0, 1.0, ["1", "1", "0"]),
     ("hit_rate", "rate", 0.5, 0.5, ["0.5000", "0.5000", "0.0000"])],
)  # fmt: skip
def test_a_change_between_bare_figures_is_bare(
    figure: str, kind: str, baseline: float, current: float, cells: list[str]
) -> None:
    """``0 | 0 | 0.0000``: a crit rate no attack made in either run changed by a figure
    written as if rounded, beside its bare 0s."""
    row = _row(figure=figure, kind=kind, baseline=baseline, current=current,
               change=current - baseline)  # fmt: skip
    assert drift_cells(row)[3:6] == cells


def test_a_rate_of_1_s_bound_has_no_trailing_zero() -> None:
    """``1 (> 0.999990)`` for a hit rate of 400,000 hits in as many attacks: the bound
    is ``0.99999``, as every other bound is written."""
    lo = 0.99999078  # Wilson's lower bound of 400,000 of 400,000
    assert estimate(1.0, lo, 1.0, RATE_RANGE) == "1 (> 0.99999)"
    assert estimate(1.0, lo, 1.0, RATE_RANGE, (0.6, math.inf)) == "1 (> 0.99999)"
    assert estimate(1.0, lo, 1.0, RATE_RANGE, bracketed=True) == "1 [0.99999, 1]"
    assert estimate(1.0, 0.99631792, 1.0, RATE_RANGE) == "1 (> 0.996)"  # as it was


def test_many_scenarios_kept_are_counted_not_named(tmp_path: Path) -> None:
    """Adopting one scenario into a baseline of 30 keeps 29: the output counts them
    instead of naming each (some 18 terminal lines)."""
    from simlab.report.baseline import KEPT_NAMED, NewBaseline

    names = [f"s{k} (zones-3d6)" for k in range(29)]
    said = NewBaseline(
        tmp_path / "b.json",
        ["q (shattered-spirits)", *names],
        updated=["q (shattered-spirits)"],
        kept=names,
    ).lines()
    assert said[-1] == "kept: the other 29, as they were"
    few = names[:KEPT_NAMED]
    said = NewBaseline(
        tmp_path / "b.json",
        ["q (shattered-spirits)", *few],
        updated=["q (shattered-spirits)"],
        kept=few,
    ).lines()
    assert said[-1] == f"kept: {', '.join(few)}"
