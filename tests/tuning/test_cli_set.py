"""`--set` on run, exact, report and check: the override reaches every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from tests.report.report_html import words_unwrapped
from tests.support import printed_at
from tests.tuning.cases import SS_DUEL

GUARD_2_MEAN = 83 / 36  # exact mean damage of ss-duel's strike against Guard 2


def test_exact_with_set(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["exact", str(SS_DUEL), "--set", "Defender.guard=2",
                                     "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["attacks"][0]["mean_damage"] == pytest.approx(GUARD_2_MEAN)


def test_run_with_set(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "50000", "--set",
                                     "Defender.guard=2", "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    attack = json.loads((tmp_path / "summary.json").read_text())["attacks"][0]
    lo, hi = attack["mean_damage_ci"]
    assert lo - 0.01 < GUARD_2_MEAN < hi + 0.01


@pytest.mark.slow  # writes a whole report
def test_report_and_check_with_set(tmp_path: Path) -> None:
    cli = CliRunner()
    done = cli.invoke(main, ["report", str(SS_DUEL), "-n", "20000", "--set", "Defender.guard=2",
                             "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    report = (tmp_path / "report.md").read_text()
    assert "2.30" in report
    # The page says the scenario ran with an override, and so do its saved results and a
    # report drawn again from them.
    assert "Defender.guard=2" in report
    (entry,) = json.loads((tmp_path / "results.json").read_text())["scenarios"]
    assert entry["overrides"] == ["Defender.guard=2"]
    again = cli.invoke(main, ["report", "--from", str(tmp_path / "results.json"),
                              "--out", str(tmp_path / "again")])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "Defender.guard=2" in (tmp_path / "again/report.md").read_text()
    refused = cli.invoke(main, ["check", "--from", str(tmp_path), "--set", "max_rounds=3"])
    assert refused.exit_code == 2
    assert "expected either scenarios to simulate or --from" in refused.output


@pytest.mark.parametrize("command", ["run", "exact", "report", "check"])
def test_bad_set_exits_2_names_it_writes_nothing(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    args = [command, str(SS_DUEL), "--set", "Defender.guard=-1"]
    if command != "check":
        args += ["--out", str(out)]
    if command in ("run", "report", "check"):
        args += ["-n", "100"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert "--set Defender.guard=-1: expected" in done.output
    assert "Traceback" not in done.output
    assert not out.exists()


@pytest.mark.parametrize("command", ["run", "sweep", "compare", "tune"])
@pytest.mark.parametrize(
    ("target", "under"),
    [
        ("strike.profile[9].x", "'profile[9]'; got 'x' under the value 6"),
        ("params.strain_meter.x", "'strain_meter'; got 'x' under the value 10"),
    ],
)
def test_a_field_below_a_row_or_an_absent_param_exits_2_naming_it(
    command: str, target: str, under: str
) -> None:
    """A field after a ``[ROW]``, or below a scalar ``params:`` field the file leaves out,
    is refused as ``Defender.hp.x`` is: it was an internal error (a TypeError) after a row,
    and a problem at the file's line 5 (``scenario:``) below an absent param."""
    option, value = ("--vary", "1:2") if command in ("sweep", "tune") else ("--set", "8")
    args = [command, str(SS_DUEL), option, f"{target}={value}", "-n", "100"]
    if command == "tune":
        args += ["--target", "down_rate:Defender=0.5"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert (f"{option} {target}={value}: expected a field of a mapping after {under}"
            in " ".join(done.output.split()))  # fmt: skip


@pytest.mark.parametrize("command", ["run", "exact", "compare"])
def test_a_field_set_twice_exits_2_naming_both(command: str) -> None:
    """``--set Defender.guard=1 --set Defender.guard=2``: the second would silently win."""
    args = [command, str(SS_DUEL), "--set", "Defender.guard=1", "--set", "Defender.guard=2"]
    done = CliRunner().invoke(main, args + (["-n", "100"] if command != "exact" else []))
    assert done.exit_code == 2, done.output
    assert ("--set Defender.guard=2: expected each field changed once; --set "
            "Defender.guard=1 changes it too") in " ".join(done.output.split())  # fmt: skip


@pytest.mark.parametrize(
    ("option", "first", "second"),
    [
        ("--set", "strike.profile[9]=8", "strike.profile=[0,0,0,0,0,0,0,0,0,0,0]"),
        ("--set", "strike.profile=[0,0,0,0,0,0,0,0,0,0,0]", "strike.profile[9]=8"),
        ("--vary", "strike.profile=[0,0,0,0,0,0,0,0,0,0,0]", "strike.profile[9]=1:2"),
    ],
)
def test_a_field_and_a_part_of_it_changed_exit_2_naming_both(
    option: str, first: str, second: str
) -> None:
    """A whole chart and one of its rows both changed: both applied, the last winning."""
    command = "sweep" if option == "--vary" else "run"
    args = [command, str(SS_DUEL), option, first, option, second, "-n", "100"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert (f"{option} {second}: expected each field changed once; {option} {first} changes "
            "it too") in " ".join(done.output.split())  # fmt: skip


def test_run_with_set_says_so_in_the_terminal_and_summary(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "2000", "--set",
                                     "Defender.guard=2", "--set", "strike.profile[9]=8",
                                     "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "with Defender.guard=2, strike.profile[9]=8" in done.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["overrides"] == ["Defender.guard=2", "strike.profile[9]=8"]
    plain = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "2000",
                                      "--out", str(tmp_path / "plain")])  # fmt: skip
    assert plain.exit_code == 0, plain.output
    assert "overrides" not in json.loads((tmp_path / "plain/summary.json").read_text())


@pytest.mark.slow  # writes sweep and tune pages
def test_sweep_and_tune_with_set_say_so_in_the_terminal_and_files(tmp_path: Path) -> None:
    """A sweep or a tuning with ``--set`` printed and wrote its figures as if the scenario
    were the file's: ``tune.json`` kept no trace of the override its value holds for, and
    the sweep's header and pages none either."""
    cli = CliRunner()
    fixed = ["--set", "Defender.guard=2", "--set", "strike.profile[9]=8"]
    done = cli.invoke(main, ["sweep", str(SS_DUEL), "--vary", "Defender.hp=20,30", *fixed,
                             "-n", "1000", "--out", str(tmp_path / "sweep")])  # fmt: skip
    assert done.exit_code == 0, done.output
    said = "with Defender.guard=2, strike.profile[9]=8"
    assert said in " ".join(done.output.split())
    doc = json.loads((tmp_path / "sweep/sweep.json").read_text())
    assert doc["overrides"] == ["Defender.guard=2", "strike.profile[9]=8"]
    for page in ("sweep.md", "sweep.html"):
        assert said in words_unwrapped((tmp_path / "sweep" / page).read_text()), page
    done = cli.invoke(main, ["tune", str(SS_DUEL), "--vary", "Defender.hp=5:60", *fixed,
                             "--target", "median_time_to_down:Defender=5",
                             "--out", str(tmp_path / "tune")])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert said in " ".join(done.output.split())
    doc = json.loads((tmp_path / "tune/tune.json").read_text())
    assert doc["overrides"] == ["Defender.guard=2", "strike.profile[9]=8"]
    assert said in doc["how"]
    plain = cli.invoke(main, ["tune", str(SS_DUEL), "--vary", "Defender.hp=5:60", "--target",
                              "median_time_to_down:Defender=5", "--out",
                              str(tmp_path / "plain")])  # fmt: skip
    assert plain.exit_code == 0, plain.output
    assert "overrides" not in json.loads((tmp_path / "plain/tune.json").read_text())


@pytest.mark.parametrize(
    "args",
    [["--set", "Defender.hp=" + "9" * 5000], ["--vary", "Defender.hp=1:" + "9" * 5000]],
)
def test_a_set_value_of_5000_digits_exits_2_naming_it(args: list[str]) -> None:
    """A ``--set`` (or ``--vary``) value too long for Python to convert is refused as the
    file's would be, naming the argument, shortened, instead of an internal error."""
    command = "sweep" if args[0] == "--vary" else "run"
    done = CliRunner().invoke(main, [command, str(SS_DUEL), "-n", "100", *args])
    assert done.exit_code == 2, done.output
    output = " ".join(done.output.split())
    assert f"{args[0]} Defender.hp=" in output and "99..." in output
    assert "expected an integer of at most 100 digits; got a number with 5,000 digits" in output
    assert len(done.output) < 400 and "internal error" not in done.output


@pytest.mark.slow  # writes a whole report
def test_report_heads_its_page_with_the_overrides_and_where_they_change_nothing(
    tmp_path: Path,
) -> None:
    """The report (and its drift page) named ``--set Brute.hp=30`` only in each
    scenario's identity table, as a change even where Brute already had 30 hp. Its head
    names the overrides, and the scenarios they leave unchanged (as compare's "B is
    identical to A: … already …"), and so does the terminal."""
    other = tmp_path / "weaker.yaml"
    other.write_text(SS_DUEL.read_text().replace("scenario: ss-duel", "scenario: weaker")
                     .replace("{name: Defender, hp: 30", "{name: Defender, hp: 20"))  # fmt: skip
    cli = CliRunner()
    done = cli.invoke(main, ["report", str(SS_DUEL), str(other), "-n", "500",
                             "--set", "Defender.hp=30", "--out", str(tmp_path / "r")])  # fmt: skip
    assert done.exit_code == 0, done.output
    said = ("Run with --set Defender.hp=30; Defender.hp=30 changes nothing in ss-duel "
            "(Defender.hp is already 30 there)")  # fmt: skip
    md = (tmp_path / "r/report.md").read_text()
    head = md.split("## Contents")[0]
    assert said in head
    assert said in " ".join(done.output.split())  # the terminal says it too, wrapped
    assert (
        said
        in words_unwrapped((tmp_path / "r/report.html").read_text()).split("<h2>Contents</h2>")[0]
    )
    assert "Defender.hp=30 (changes nothing: Defender.hp is already 30)" in md
    entries = json.loads((tmp_path / "r/results.json").read_text())["scenarios"]
    assert [e.get("idle_overrides") for e in entries] == [["Defender.hp=30"], None]
    again = cli.invoke(main, ["report", "--from", str(tmp_path / "r/results.json"),
                              "--out", str(tmp_path / "again")])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert said in (tmp_path / "again/report.md").read_text()


def test_run_heads_its_tables_with_an_override_that_changes_nothing() -> None:
    """``simlab run --set Defender.hp=30`` on a Defender of 30 hp headed its tables
    "with Defender.hp=30", as if the run had changed something; the report says so of
    such an override, and now the terminal does too. A real change is listed alone."""
    done = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "500", "--set",
                                     "Defender.hp=30", "--set", "Defender.guard=2"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "Defender.hp=30 (changes nothing: Defender.hp is already 30)" in done.output
    assert "Defender.guard=2 (" not in done.output
    assert "Defender.guard=2" in done.output


def test_a_long_note_on_an_idle_override_is_broken_at_80_columns() -> None:
    """The note "(changes nothing: … is already …)" was one part of the heading with its
    override: beside a list value the line ran to 110 columns at 80. The note breaks
    between its words; the override itself stays whole."""
    from simlab.report import terminal

    res = simlab.simulate(simlab.load(SS_DUEL).with_(["strike.profile=[0, 0, 1, 2, 3, 4, 5, 6, "
                                                      "7, 8, 10]"]), n=200)  # fmt: skip
    res.meta["idle_overrides"] = list(res.meta["overrides"])
    text = printed_at(lambda: terminal.print_result(res))
    head = text[: text.index("attacks (")]
    assert max(len(line) for line in head.splitlines()) <= 80, head
    assert "with strike.profile=[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10] (changes" in head, head


def test_check_with_a_set_of_one_expect_spec_checks_it_changed() -> None:
    """``--set expect[2].between=…`` changes the third spec of ``expect:``, which the
    check then reads, where ``--set expect[0]…`` said ``did you mean 'expect'?``."""
    quickstart = SS_DUEL.parents[1] / "shattered-spirits/quickstart.yaml"
    done = CliRunner().invoke(main, ["check", str(quickstart), "-n", "300", "--set",
                                     "expect[2].between=[0, 0.01]"])  # fmt: skip
    assert done.exit_code == 1, done.output  # the Brute wins far more often than that
    assert "check: 1 of 3 specs failed" in done.output
    assert "Run with --set expect[2].between=[0, 0.01]." in done.output
