"""The command line: exit codes, messages, outputs — run as a designer would run it."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from simlab.cli import BEYOND_ANY_RANGE, whole_number
from simlab.report import terminal
from tests.cli.simlab_runs import simlab_here
from tests.support import UNSOLVABLE

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


#: What a command says, exits with and writes, run in this process: a test of the
#: process itself (pipes, a terminal, start-up, the exit) starts ``python -m simlab``.
simlab = simlab_here


def test_help_does_not_import_the_engine() -> None:
    """``simlab --help`` must stay fast: numba and pandas load only when simulating."""
    code = (
        "import sys; from click.testing import CliRunner; from simlab.cli import main; "
        "r = CliRunner().invoke(main, ['--help']); assert r.exit_code == 0; "
        "print(sorted(m for m in ('numba', 'pandas', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_validate_ok() -> None:
    done = simlab("validate", str(QUICKSTART))
    assert done.returncode == 0
    assert "ok:" in done.stdout


def test_validate_counts_in_words() -> None:
    """A duel of one attack printed ``2 combatants, 1 attacks``."""
    done = simlab("validate", "scenarios/benchmarks/ss-duel.yaml")
    assert done.returncode == 0, done.stderr
    assert " ".join(done.stdout.split()).endswith("rules shattered-spirits, 2 combatants, 1 attack")


def _validated_on_a_terminal(path: str, columns: int, monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``simlab validate PATH``, which must pass, prints where stdout is a terminal
    ``columns`` wide (``COLUMNS``)."""
    from click.testing import CliRunner

    from simlab.cli import main

    monkeypatch.setenv("COLUMNS", str(columns))
    with CliRunner().isolation() as (out, _, _):
        sys.stdout.isatty = lambda: True  # type: ignore[method-assign]
        with pytest.raises(SystemExit) as done:
            main(["validate", path])
    assert done.value.code == 0
    return str(out.getvalue().decode())


def test_validate_ok_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ok: PATH: scenario …, rules …, N combatants, M attacks`` (125 columns for the
    glitters party) is broken at a space on a terminal at ``COLUMNS=80``, and whole in a
    pipe."""
    fight = "scenarios/glitters-d20/party-vs-monsters.yaml"
    piped = simlab("validate", fight)  # no COLUMNS: the conftest's
    assert piped.returncode == 0, piped.stderr
    assert len(piped.stdout.splitlines()) == 1
    lines = _validated_on_a_terminal(fight, 80, monkeypatch).splitlines()
    assert len(lines) == 2 and max(len(line) for line in lines) <= 80, lines
    assert " ".join(lines) == piped.stdout.strip()


def test_validate_ok_keeps_one_line_in_a_pipe_whatever_columns_says(tmp_path: Path) -> None:
    """In a pipe with ``COLUMNS=60`` the ``ok:`` line of a long path was broken as on a
    terminal (``…, 3 combatants,`` / ``2 attacks``, not indented), where a problem keeps
    one line for ``grep``: the ok line keeps one too."""
    from click.testing import CliRunner

    from simlab.cli import main

    folder = tmp_path / "a-folder-of-scenarios-named-at-length" / "glitters-d20"
    folder.mkdir(parents=True)
    path = folder / "training-duel.yaml"
    path.write_text((ROOT / "scenarios/glitters-d20/training-duel.yaml").read_text())
    done = CliRunner().invoke(main, ["validate", str(path)], env={"COLUMNS": "60"})
    assert done.exit_code == 0, done.output
    assert done.output == (f"ok: {path}: scenario 'training-duel', rules glitters-d20, "
                           "2 combatants, 3 attacks\n")  # fmt: skip


def _stderr_in_a_terminal(args: list[str], env: dict[str, str], cwd: Path) -> str:
    """What ``simlab ARGS`` writes to stderr when stderr is an 80-column terminal (a
    pseudo-terminal) and stdout a pipe, as the terminal shows it."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    subprocess.run([sys.executable, "-m", "simlab", *args], env=env, stdout=subprocess.PIPE,
                   stderr=follower, cwd=cwd, timeout=600)  # fmt: skip
    os.close(follower)
    shown = b""
    with contextlib.suppress(OSError):  # EIO once everything written has been read
        while chunk := os.read(leader, 4096):
            shown += chunk
    os.close(leader)
    return shown.decode().replace("\r\n", "\n")


@pytest.mark.slow  # runs commands in fresh processes on a pseudo-terminal
def test_an_error_is_broken_at_spaces_in_a_terminal_and_one_line_in_a_pipe(
    tmp_path: Path,
) -> None:
    """A long message (a misspelt key, listing every key it could be) is broken at
    spaces to the terminal's width, its later lines indented, where stderr is a
    terminal; in a pipe (a CI log) each problem stays on one line for ``grep``, even
    where ``COLUMNS`` is set."""
    (tmp_path / "bad.yaml").write_text(
        QUICKSTART.read_text().replace("hp: 30", "hp: 30, hpp: 30", 1)
    )
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    command = [sys.executable, "-m", "simlab", "validate", "bad.yaml"]
    piped = [
        subprocess.run(
            command, env=given, capture_output=True, text=True, cwd=tmp_path, timeout=600
        )
        for given in (env, {**env, "COLUMNS": "80"})
    ]
    assert [done.returncode for done in piped] == [2, 2]
    problem = piped[0].stderr.strip()
    assert piped[1].stderr.strip() == problem
    assert "\n" not in problem and len(problem) > 160 and "did you mean 'hp'?" in problem
    lines = _stderr_in_a_terminal(["validate", "bad.yaml"], env, tmp_path).strip().splitlines()
    assert len(lines) >= 3 and max(len(line) for line in lines) <= 80, lines
    assert all(line.startswith("  ") for line in lines[1:]), lines
    assert " ".join(line.strip() for line in lines) == problem


def test_a_quoted_colon_and_space_is_not_broken_in_a_terminal(tmp_path: Path) -> None:
    """The hint "a value holding ': ' needs quotes" was broken at the space inside the quotes,
    ending one line with ``':`` and starting the next with ``'``. The file is named so
    that a plain break at spaces would fall there."""
    import textwrap

    text = QUICKSTART.read_text().replace("guard: 1, speed", "guard: 1 speed", 1)
    (tmp_path / "bad.yaml").write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    problem = simlab("validate", "bad.yaml", cwd=tmp_path).stderr.strip()
    assert "holding ': ' needs quotes" in problem

    def plainly_broken(name: str) -> list[str]:
        shown = problem.replace("bad.yaml", name, 1)
        return textwrap.wrap(shown, 80, subsequent_indent="  ", break_long_words=False,
                             break_on_hyphens=False)  # fmt: skip

    names = (f"{'b' * n}.yaml" for n in range(1, 80))
    name = next(n for n in names if any(line.endswith("':") for line in plainly_broken(n)))
    (tmp_path / name).write_text(text)
    lines = _stderr_in_a_terminal(["validate", name], env, tmp_path).strip().splitlines()
    assert max(len(line) for line in lines) <= 80, lines
    assert not any(line.endswith("':") for line in lines), lines
    assert " ".join(line.strip() for line in lines) == problem.replace("bad.yaml", name, 1)


@pytest.mark.parametrize("command", ["validate", "run"])
def test_bad_scenario_exits_2_with_location_and_no_traceback(tmp_path: Path, command: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(QUICKSTART.read_text().replace("hp: 30", "hp: thirty"))
    line = next(i for i, t in enumerate(bad.read_text().splitlines(), 1) if "thirty" in t)
    done = simlab(command, str(bad))
    assert done.returncode == 2
    assert f"bad.yaml:{line}:" in done.stderr
    assert "expected an integer; got 'thirty'" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-n", "0"], "Invalid value for '-n'"),
        (["--threads", "4096"], "--threads: expected a thread count from 1 to"),
        (["--threads", "0"], "--threads: expected a thread count from 1 to"),
        (["--threads", "two"], "'--threads': expected a whole number such as 2; got 'two'"),
        (["--seed", "-1"], "'--seed': expected a seed from 0 to 18446744073709551615 "
                           "(2**64 - 1); got -1"),
        (["--seed", "x"], "'--seed': expected a whole number such as 7; got 'x'"),
        (["--seed", "18446744073709551616"], "'--seed': expected a seed from 0 to "
                                             "18446744073709551615 (2**64 - 1); got "
                                             "18446744073709551616"),
        (["--seed", "1e30"], "'--seed': expected a seed from 0 to 18446744073709551615 "
                             "(2**64 - 1); got 1e30"),
        (["--scheduler", "foo"], "expected --scheduler as a Dask scheduler's address such as "
                                 "tcp://host:8786; got 'foo'"),
        (["--scheduler", "http://x:8786"], "got 'http://x:8786' (unknown address scheme"),
    ],
)  # fmt: skip
def test_bad_options_exit_2(args: list[str], words: str) -> None:
    done = simlab("run", str(QUICKSTART), *args)
    assert done.returncode == 2
    assert words in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("200000", 200_000), ("200_000", 200_000), ("2e5", 200_000), ("2.5E5", 250_000),
        (" 7 ", 7), ("+5", 5), ("-3", -3), ("2.50e5", 250_000), ("1e20", 10**20),
        ("12345678901234567890", 12345678901234567890), ("-1e20", -(10**20)),
        ("999999999999999999999", 10**21 - 1), ("1e21", BEYOND_ANY_RANGE),
        ("1e999999999", BEYOND_ANY_RANGE), ("-1e21", -BEYOND_ANY_RANGE), ("0e25", 0),
        ("1e9999999999999999999", BEYOND_ANY_RANGE), ("0e9999999999999999999", 0),
        ("2.5e99999999999999999999", BEYOND_ANY_RANGE),
        ("1.5", None), ("1.25e1", None), ("1,000", None), ("1e-2", None), ("_1", None),
        ("1__0", None), ("0x10", None), ("nan", None), ("inf", None), ("", None),
        # a fraction written, as a scenario file and --set read it (1.0 ran 1 encounter)
        ("1.0", None), ("200000.0", None), ("2.", None), ("1_000.0", None),
    ],
)  # fmt: skip
def test_a_count_is_written_in_digits_or_scientific_notation(text: str, count: int | None) -> None:
    assert whole_number(text) == count


def test_a_seed_of_twenty_digits_is_the_seed_used() -> None:
    """A seed up to 2**64 - 1 is taken as written: the run says so and plays as the
    same seed given through ``--set``. (Numbers past 10**18 were once all read as
    10**18 + 1, a valid seed: another run, without a word.)"""
    seed = "12345678901234567890"
    done = simlab("run", str(QUICKSTART), "-n", "500", "--seed", seed)
    as_set = simlab("run", str(QUICKSTART), "-n", "500", "--set", f"seed={seed}")
    assert done.returncode == as_set.returncode == 0, done.stderr + as_set.stderr
    assert f"seed {seed}" in " ".join(done.stdout.split())  # however the line is broken
    tables = [text.stdout.split(" attacks (± 95% interval)")[1] for text in (done, as_set)]
    assert tables[0] == tables[1]


WHOLE_NUMBER_OPTIONS = [
    ["run", QUICKSTART, "-n"], ["run", QUICKSTART, "--seed"], ["run", QUICKSTART, "--threads"],
    ["run", QUICKSTART, "--block-size"], ["report", QUICKSTART, "-n"],
    ["check", QUICKSTART, "--seed"], ["baseline", "update", QUICKSTART, "--threads"],
    ["sweep", QUICKSTART, "--vary", "Brute.hp=20:30", "-n"],
    ["compare", QUICKSTART, "--set", "Brute.hp=20", "--seed"],
    ["tune", QUICKSTART, "--vary", "Brute.hp=5:60", "--target", "win_rate:party=0.5", "-n"],
]  # fmt: skip


@pytest.mark.parametrize("command", WHOLE_NUMBER_OPTIONS, ids=lambda c: f"{c[0]} {c[-1]}")
@pytest.mark.parametrize("value", ["1.0", "20000.0", "1.5"])
def test_a_fraction_written_is_refused_by_every_whole_number_option(
    command: list[object], value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-n 1.0`` ran 1 encounter and ``--seed 1.0`` seed 1, where ``encounters: 1.0``
    in the file and ``--set encounters=1.0`` are refused: the README's one rule, a
    fraction written is a number with a fraction, in the file's and --set's words."""
    from click.testing import CliRunner

    from simlab.cli import main

    here = tmp_path / "here"  # where reports and baselines would go
    here.mkdir()
    monkeypatch.chdir(here)
    small = [] if command[-1] == "-n" else ["-n", "100"]  # were it read, a quick run
    done = CliRunner().invoke(main, [*map(str, command[:-1]), *small, str(command[-1]), value])
    assert done.exit_code == 2, done.output
    option = {"-n": "'-n' / '--encounters'"}.get(str(command[-1]), f"'{command[-1]}'")
    refusal = f"Error: Invalid value for {option}: expected an integer; got {value}\n"
    assert refusal in done.output
    assert not any(here.rglob("*.*")), "nothing is written"
    scenario = tmp_path / "q.yaml"
    scenario.write_text(re.sub(r"(?m)^encounters: .*$", f"encounters: {value}",
                               QUICKSTART.read_text()))  # fmt: skip
    in_file = CliRunner().invoke(main, ["validate", str(scenario)])
    as_set = CliRunner().invoke(main, ["run", str(QUICKSTART), "--set", f"seed={value}"])
    assert in_file.exit_code == as_set.exit_code == 2
    for refused in (in_file, as_set):
        assert refused.output.rstrip().endswith(f": expected an integer; got {value}")


def test_run_takes_a_count_in_scientific_notation() -> None:
    done = simlab("run", str(QUICKSTART), "-n", "2e3", "--block-size", "1_000")
    assert done.returncode == 0, done.stderr
    assert "2,000 encounters" in done.stdout


@pytest.mark.parametrize("args", [["-n", "100"], ["-n", "100", "--threads", "4096"]])
def test_run_pauses_the_cycle_collector_and_restores_it(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run pauses Python's cycle collector (start-up speed) and turns it back on after,
    when it succeeds and when it fails (``--threads 4096`` exits 2)."""
    import gc

    from click.testing import CliRunner

    from simlab import cli

    seen = []
    check_threads = cli._check_threads

    def watched(threads: int | None) -> None:  # the real check, noting the collector
        seen.append(gc.isenabled())
        check_threads(threads)

    monkeypatch.setattr(cli, "_check_threads", watched)
    result = CliRunner().invoke(
        cli.main, ["run", str(ROOT / "scenarios/benchmarks/ss-duel.yaml"), *args]
    )
    assert seen == [False]
    assert gc.isenabled()
    assert result.exit_code == (2 if "--threads" in args else 0)


def test_missing_file_exits_2() -> None:
    done = simlab("run", "no-such-file.yaml")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [["run", "{folder}"], ["exact", "{folder}"], ["sweep", "{folder}", "--vary", "A.hp=1,2"],
     ["compare", "{folder}", "--set", "A.hp=1"], ["compare", str(QUICKSTART), "{folder}"]],
)  # fmt: skip
def test_a_folder_where_one_file_is_read_is_said_in_simlabs_words(
    tmp_path: Path, args: list[str]
) -> None:
    """A command that reads one scenario, given a folder, says so as it says a missing
    file (``FOLDER: expected a readable YAML file; got a directory``), where click's own
    usage error spoke of 'SCENARIO' and a 'File'."""
    from click.testing import CliRunner

    from simlab.cli import main

    result = CliRunner().invoke(main, [a.format(folder=tmp_path) for a in args])
    assert result.exit_code == 2
    assert result.output == f"{tmp_path}: expected a readable YAML file; got a directory\n"


def test_run_prints_tables_and_writes_outputs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = simlab("run", str(QUICKSTART), "-n", "3000", "--seed", "4", "--out", str(out))
    assert done.returncode == 0, done.stderr
    for words in ("hit rate", "crit rate", "mean damage", "median", "capped", "win rate"):
        assert words in done.stdout
    doc = json.loads((out / "summary.json").read_text())
    assert (doc["scenario"], doc["rules"], doc["encounters"], doc["seed"]) == (
        "quickstart", "shattered-spirits", 3000, 4)  # fmt: skip
    assert doc["simlab_version"]
    attack = doc["attacks"][0]
    for key in ("attacker", "attack", "defender", "attempts", "hit_rate", "hit_rate_ci",
                "crit_rate", "mean_damage", "mean_damage_ci", "damage_pmf"):  # fmt: skip
        assert key in attack
    assert abs(sum(attack["damage_pmf"].values()) - 1) < 1e-12
    fighter = doc["combatants"][0]
    assert set(fighter["time_to_down"]) == {
        "unit",
        "median_time_to_down",
        "median_time_to_down_ci",
        "median_time_to_down_when_downed",
        "mean_time_to_down",
        "mean_time_to_down_ci",
        "pmf",
        "down_by_round",
        "down_by_round_ci",
        "capped",
    }
    assert {s["name"] for s in doc["sides"]} == {"party", "enemies"}
    total = sum(s["win_rate"] for s in doc["sides"]) + doc["draw_rate"]
    assert abs(total - 1) < 1e-12
    for table in ("attacks", "damage_pmf", "combatants", "time_to_down", "sides"):
        assert len(pd.read_parquet(out / f"{table}.parquet")) > 0
    assert not list(out.glob(".*tmp"))


@pytest.mark.parametrize("command", [["run"], ["sweep", "--vary", "Brute.guard=0:1"]])
@pytest.mark.slow  # runs commands in fresh processes piped into readers
def test_a_reader_that_stops_reading_stops_the_printing_only(
    tmp_path: Path, command: list[str]
) -> None:
    """``simlab run … --out DIR | head``: the reader goes before the tables are printed
    (here, before anything is: the pipe's reading end is closed at once); the command
    still writes its files and ends as usual, with no message."""
    out = tmp_path / "out"
    args = [command[0], str(QUICKSTART), *command[1:], "-n", "2000", "--out", str(out)]
    env = {**os.environ, "COLUMNS": "80"}
    child = subprocess.Popen([sys.executable, "-m", "simlab", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT, env=env)  # fmt: skip
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    errors = child.stderr.read().decode()
    assert child.wait(timeout=600) == 0, errors
    assert "Error" not in errors and "Traceback" not in errors
    assert (out / ("summary.json" if command[0] == "run" else "sweep.json")).exists()


@pytest.mark.parametrize(
    "args",
    [["validate", "scenarios"], ["--help"], ["--version"], ["validate", "--help"],
     ["exact", "scenarios/benchmarks/ss-duel.yaml"]],
    ids=["validate", "--help", "--version", "validate --help", "exact"],
)  # fmt: skip
@pytest.mark.slow  # runs commands in fresh processes piped into readers
def test_every_command_piped_into_a_reader_that_stops_exits_as_it_would_have(
    args: list[str],
) -> None:
    """``simlab validate scenarios/ | head -1`` ended with ``internal error:
    BrokenPipeError`` and exit 3, and ``simlab --help | head -0`` with exit 1 (click's
    answer to a closed pipe), where ``run`` and the others exit 0: the reader gone (the
    pipe's reading end closed at once), every command exits 0, silently."""
    child = subprocess.Popen([sys.executable, "-m", "simlab", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT)  # fmt: skip
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    errors = child.stderr.read().decode()
    assert child.wait(timeout=600) == 0, errors
    assert errors == "", errors


@pytest.mark.parametrize(("args", "status"), [(["-n", "1.5"], 2), (["--set", "Brute.hp=x"], 2)])
@pytest.mark.slow  # runs commands in fresh processes piped into readers
def test_a_reader_of_errors_that_stops_reading_leaves_the_exit_status(
    args: list[str], status: int
) -> None:
    """``simlab run … 2>&1 | head -1``: the reader of standard error goes before the
    message is written (the pipe's reading end closed at once); the command still exits
    with its status, 2 for invalid input, where the closed pipe made it 1."""
    command = [sys.executable, "-m", "simlab", "run", str(QUICKSTART), *args]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    assert child.stderr is not None
    child.stderr.close()
    assert child.wait(timeout=600) == status


def test_run_writes_event_and_status_tables_of_systems_that_have_them(tmp_path: Path) -> None:
    """A system with events and damaging statuses (glitters-d20) adds their Parquet
    tables, equal to the Python API's on the same seed, and a terminal column."""
    import simlab as api

    scenario = ROOT / "scenarios/glitters-d20/bleeding-duel.yaml"
    out = tmp_path / "out"
    done = simlab("run", str(scenario), "-n", "2000", "--seed", "9", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "status dmg" in done.stdout
    res = api.simulate(api.load(scenario), n=2000, seed=9)
    assert res.status_damage().mean_status_damage.sum() > 0
    pd.testing.assert_frame_equal(pd.read_parquet(out / "events.parquet"), res.events())
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "status_damage.parquet"), res.status_damage()
    )


def test_atomic_write_leaves_old_file_when_interrupted(tmp_path: Path) -> None:
    from simlab.report.files import atomic_write

    target = tmp_path / "summary.json"
    target.write_text("old")

    def crash(tmp: Path) -> None:
        tmp.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, crash)
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


@pytest.fixture
def on_a_terminal(monkeypatch) -> Console:
    """Standard output a terminal (a fake one: the returned console records what it
    draws), on a numba whose cache tells of a compile."""
    from simlab.engine import jit

    screen = Console(file=io.StringIO(), force_terminal=True, width=200)
    monkeypatch.setattr(terminal, "console", screen)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(jit, "LIGHT_CACHE_LOADS", True)
    return screen


def test_a_warm_progress_bar_says_starting_and_never_compiling(on_a_terminal) -> None:
    from simlab import cli
    from simlab.engine import compiling

    with compiling.listening(cli._compile_notice()), terminal.progress(10, "duel [a]") as advance:
        before = on_a_terminal.file.getvalue()
        advance(10)
    frames = on_a_terminal.file.getvalue()
    assert "starting of duel [a]" in before
    assert frames.rfind("simulating of duel [a]") > frames.rfind("starting of duel [a]")
    assert "compil" not in frames


def test_the_progress_bar_says_compiling_when_a_compile_begins(on_a_terminal) -> None:
    """The bar names the rule system its run compiles (the run's own ``listening``
    names it, as the API's runs do), once, and says nothing else of it: no line."""
    from simlab import cli
    from simlab.engine import compiling

    with (
        compiling.listening(cli._compile_notice()),
        terminal.progress(10, "duel [a]") as advance,
        compiling.listening(None, "shattered-spirits"),
    ):
        compiling.compile_starting()
        said = on_a_terminal.file.getvalue()
        compiling.compile_starting()
        advance(10)
    frames = on_a_terminal.file.getvalue()
    assert "compiling the shattered-spirits kernels (a first run: 5–15 s)" in said
    assert frames.rfind("simulating of duel [a]") > frames.rfind("compiling the")
    assert "later runs load them" not in frames  # the bar says it: no line above it


def test_a_command_on_a_terminal_with_no_bar_says_a_compile_in_a_line(on_a_terminal) -> None:
    """``simlab tune`` shows no bar: the compile is said in a line on the terminal."""
    from simlab import cli
    from simlab.engine import compiling

    with compiling.listening(cli._compile_notice(), "glitters-d20"):
        compiling.compile_starting()
    assert on_a_terminal.file.getvalue() == (
        "compiling the glitters-d20 kernels (a first run: 5–15 s; "
        "later runs load them from the cache)\n"
    )


_ENTRY = """
import atexit, sys, threading, time
from simlab.cli import entry

atexit.register(lambda: print("exit functions ran", flush=True))
if sys.argv[1] == "thread":
    def work():
        time.sleep(0.5)
        print("the thread finished its work", flush=True)
    threading.Thread(target=work).start()
entry(sys.argv[2:])
"""


@pytest.mark.parametrize(
    ("args", "status", "stream", "text"),
    [(["validate", str(QUICKSTART)], 0, "stdout", "scenario 'quickstart'"),
     (["validate", "no-such-file.yaml"], 2, "stderr", "expected a scenario file or folder"),
     (["run", str(QUICKSTART), "-n", "2000"], 0, "stdout", "win rate")],
    ids=["ok", "bad input", "run"],
)  # fmt: skip
@pytest.mark.slow  # runs commands in fresh processes
def test_the_command_ends_quickly_yet_loses_nothing(
    args: list[str], status: int, stream: str, text: str
) -> None:
    """``entry`` (the ``simlab`` command) skips Python's teardown, but its status, every
    line printed and the exit functions still come through."""
    done = subprocess.run([sys.executable, "-c", _ENTRY, "plain", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)  # fmt: skip
    assert done.returncode == status, done.stderr
    assert done.stdout.rstrip().endswith("exit functions ran")
    # whatever the width it was wrapped at: pytest-xdist's workers set COLUMNS=80
    assert text in " ".join(getattr(done, stream).split())


def test_the_command_waits_for_a_thread_at_work() -> None:
    done = subprocess.run([sys.executable, "-c", _ENTRY, "thread", "validate", str(QUICKSTART)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "the thread finished its work" in done.stdout


@pytest.mark.parametrize("columns", ["0", "1", "5"])
def test_a_terminal_too_narrow_for_tables_gets_them_at_the_narrowest_width(columns: str) -> None:
    """``COLUMNS`` of 1-5 made rich fail (an internal error) and 0 printed no table at
    all; the tables are laid out at ``terminal.NARROWEST`` columns instead."""
    from simlab.report.terminal import NARROWEST

    done = simlab("run", str(QUICKSTART), "-n", "200", columns=columns)
    assert done.returncode == 0, done.stderr
    for title in ("attacks (± 95% interval)", "time-to-down (rounds)", "win rate"):
        assert title in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) == NARROWEST


@pytest.mark.parametrize("alpha", ["nan", "0", "1.5"])
def test_report_refuses_a_bad_alpha_before_simulating(tmp_path: Path, alpha: str) -> None:
    """click's open range let ``nan`` through, and the report simulated before the
    drift test refused it."""
    out = tmp_path / "report"
    done = simlab("report", str(QUICKSTART), "-n", "100", "--alpha", alpha, "--out", str(out))
    assert done.returncode == 2
    assert f"'--alpha': expected a threshold in (0, 1), such as 0.01; got {alpha}" in done.stderr
    assert "simulated" not in done.stdout + done.stderr and not out.exists()


@pytest.mark.parametrize("command", ["report", "check"])
def test_every_broken_file_of_a_folder_is_listed_at_once(tmp_path: Path, command: str) -> None:
    """A folder of scenarios with mistakes in two files lists both files' problems before
    anything runs, where only the first file's were shown, one round trip each."""
    # an id of its own each: two files of one id are refused too (test_id_clash.py)
    text = QUICKSTART.read_text()
    for name, old, new in (("a", "hp: 30", "hp: thirty"), ("b", "hp: 24", "hpp: 24"),
                           ("c", "", "")):  # fmt: skip
        own = text.replace("scenario: quickstart", f"scenario: {name}", 1).replace(old, new, 1)
        (tmp_path / f"{name}.yaml").write_text(own)
    out = ["-n", "100", "--out", str(tmp_path / "out")] if command == "report" else []
    done = simlab(command, str(tmp_path), *out)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "a.yaml:" in done.stderr and "got 'thirty'" in done.stderr
    assert "b.yaml:" in done.stderr and "unknown key 'hpp'" in done.stderr
    assert "c.yaml" not in done.stderr and not (tmp_path / "out").exists()


def test_validate_takes_several_files_and_folders_and_lists_every_problem(tmp_path: Path) -> None:
    """``simlab validate scenarios/`` checks every scenario under the folder, as
    ``report`` and ``check`` take them: one ``ok`` line a good file, every problem of
    every bad one, exit 2 when there is one (a folder was refused as "a directory")."""
    # ids of their own: QUICKSTART's with it would be refused too (test_id_clash.py)
    text = QUICKSTART.read_text().replace("scenario: quickstart", "scenario: copy", 1)
    (tmp_path / "bad.yaml").write_text(text.replace("hp: 30", "hp: thirty", 1))
    (tmp_path / "also-bad.yaml").write_text(
        text.replace("hp: 24", "hpp: 24", 1).replace("scenario: copy", "scenario: other-copy", 1)
    )
    done = simlab("validate", "scenarios/zones-3d6", str(tmp_path), str(QUICKSTART))
    assert done.returncode == 2, done.stderr
    assert re.findall(r"^ok: (\S+):", done.stdout, re.M) == [
        *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "scenarios/zones-3d6").glob("*.yaml"))),
        str(QUICKSTART),
    ]
    assert "bad.yaml:" in done.stderr and "got 'thirty'" in done.stderr
    assert "also-bad.yaml:" in done.stderr and "unknown key 'hpp'" in done.stderr
    assert simlab("validate", "scenarios/zones-3d6").returncode == 0


def test_validate_refuses_two_files_of_one_id_as_report_does(tmp_path: Path) -> None:
    """A folder whose files share a scenario id under the same rules passed ``validate``
    and was then refused by ``report``, ``check`` and ``baseline update`` with no line:
    both refuse it now, at the later file's ``scenario:`` value."""
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(QUICKSTART.read_text())
    zones = (ROOT / "scenarios/zones-3d6/training-duel.yaml").read_text()
    (tmp_path / "c.yaml").write_text(zones.replace("zones-training-duel", "quickstart", 1))
    problem = (f"{tmp_path}/b.yaml:5:11: expected a scenario id not used by {tmp_path}/a.yaml "
               "under the same rules; got 'quickstart' again")  # fmt: skip
    done = simlab("validate", str(tmp_path))  # no COLUMNS (the conftest's): ok lines unbroken
    assert done.returncode == 2
    assert re.findall(r"^ok: (\S+):", done.stdout, re.M) == [
        f"{tmp_path}/{name}" for name in ("a.yaml", "c.yaml")
    ]
    assert done.stderr.strip() == problem
    baseline = ["baseline", "update", "--baseline", str(tmp_path / "base.json")]
    for command in (["report", "--out", str(tmp_path / "out")], ["check"], baseline):
        refused = simlab(*command, str(tmp_path), "-n", "100")
        assert refused.returncode == 2
        assert refused.stderr.strip() == problem


def test_a_set_that_does_not_fit_a_file_of_a_folder_names_the_file(tmp_path: Path) -> None:
    """``report DIR --set Warden.hp=30`` where one file has no Warden: the message says
    which file, where it named only the combatants that file has."""
    done = simlab("report", "scenarios/opposed-tiers", "--set", "Warden.hp=30", "-n", "100",
                  "--out", str(tmp_path / "out"))  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("--set Warden.hp=30: expected a combatant")
    assert done.stderr.strip().endswith("(in scenarios/opposed-tiers/novice-duel.yaml)")
    assert not (tmp_path / "out").exists()


#: Every command that takes --threads, with what else it needs to start.
THREADED = {
    "run": ["run", str(QUICKSTART)],
    "sweep": ["sweep", str(QUICKSTART), "--vary", "Brute.guard=0:1"],
    "compare": ["compare", str(QUICKSTART), "--set", "Brute.guard=1"],
    "tune": ["tune", str(QUICKSTART), "--vary", "Brute.hp=5:30", "--target",
             "win_rate:party=0.5"],
    "report": ["report", str(QUICKSTART)],
    "check": ["check", str(QUICKSTART)],
    "baseline update": ["baseline", "update", str(QUICKSTART), "--baseline", "base.json"],
}  # fmt: skip


@pytest.mark.parametrize("command", THREADED)
def test_every_command_refuses_a_thread_count_out_of_range_in_one_message(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--threads 0`` gave click's usage error, "expected a thread count of at least 1",
    which implied that 3 would do on a 2-core machine; ``--threads 3`` gave "expected
    --threads from 1 to 2". Both ends now give one message, in simlab's form."""
    from click.testing import CliRunner

    from simlab.cli import main
    from simlab.engine.runner import max_threads

    monkeypatch.chdir(tmp_path)
    top = max_threads()
    expected = f"--threads: expected a thread count from 1 to {top}; got"
    for threads in (0, top + 1):
        done = CliRunner().invoke(main, [*THREADED[command], "-n", "100", "--threads",
                                         str(threads)])  # fmt: skip
        assert done.exit_code == 2, done.output
        assert done.output.strip() == f"{expected} {threads}", done.output


def test_tune_help_says_precision_is_on_the_target_figure() -> None:
    """tune runs each value until the target's figure is known to ±H, not every reported
    rate, which ``run``'s shared option text said in ``tune --help``."""
    from click.testing import CliRunner

    from simlab.cli import main

    def option_text(command: str) -> str:
        shown = CliRunner().invoke(main, [command, "--help"], terminal_width=200).output
        return next(line for line in shown.splitlines() if "--precision H" in line
                    and "  " in line.strip())  # fmt: skip

    assert "until the target's figure has a 95% half-width of at most H" in option_text("tune")
    assert "every reported rate" not in option_text("tune")
    assert "every reported rate's 95% half-width is at most H" in option_text("run")


def test_one_file_named_by_two_spellings_is_one_scenario(tmp_path: Path) -> None:
    """``one/duel.yaml`` and ``wb/../one/duel.yaml`` (or a symbolic link to it) are one
    file: it was refused as clashing with itself. Two files of one id
    still clash."""
    from simlab.scenario.load import id_clash, load, scenario_paths

    (tmp_path / "one").mkdir()
    (tmp_path / "wb").mkdir()
    (tmp_path / "one" / "duel.yaml").write_text(QUICKSTART.read_text())
    (tmp_path / "link.yaml").symlink_to(tmp_path / "one" / "duel.yaml")
    names = ["one/duel.yaml", "wb/../one/duel.yaml", "link.yaml"]
    done = simlab("validate", *names, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.findall(r"^ok: (\S+):", done.stdout, re.M) == ["one/duel.yaml"]
    assert scenario_paths([tmp_path / n for n in names]) == [tmp_path / "one/duel.yaml"]
    scn, seen = load(tmp_path / "one/duel.yaml"), {}
    assert id_clash(tmp_path / "one/duel.yaml", scn, seen) is None
    assert id_clash(tmp_path / "wb/../one/duel.yaml", scn, seen) is None
    (tmp_path / "copy.yaml").write_text(QUICKSTART.read_text())
    clash = id_clash(tmp_path / "copy.yaml", scn, seen)
    assert clash is not None and clash.message.startswith("expected a scenario id not used by")


SS_DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"


@pytest.mark.parametrize(
    ("args", "how"),
    [(["-n", "200000", "--precision", "0.01"], "(precision met; cap 200,000)"),
     (["-n", "2000", "--precision", "0.001"], "(cap reached before the precision was met)")],
    ids=["met", "cap"],
)  # fmt: skip
def test_a_run_to_a_precision_says_what_it_simulated_before_its_tables(
    args: list[str], how: str
) -> None:
    """Piped, a plain run says ``simulated N encounters`` before its tables; a run to a
    precision says it too, with its stop and how it stopped, not the cap it was given."""
    from click.testing import CliRunner

    from simlab.cli import main

    plain = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "2000"])
    done = CliRunner().invoke(main, ["run", str(SS_DUEL), *args])
    assert done.exit_code == 0, done.output
    assert plain.stdout.splitlines()[0] == "simulated 2,000 encounters"
    first, head = done.stdout.splitlines()[:2]
    stop = int(re.search(r"· ([\d,]+) encounters ·", head)[1].replace(",", ""))  # type: ignore[index]
    assert first == f"simulated {stop:,} encounters {how}"


def _stop(scenario: Path, n: int, precision: float, **changes: int) -> int:
    """Where a run of ``scenario`` (``changes`` made) to ``precision`` under the cap ``n``
    stops, by the Python API."""
    import simlab

    scn = simlab.load(scenario)
    if changes:
        scn = scn.with_(changes)
    return simlab.simulate(scn, n, precision=precision).encounters


@pytest.mark.parametrize(
    ("precision", "how"),
    [(0.02, "(precision met; cap 20,000 each)"),
     (0.001, "(cap reached before the precision was met)"),
     (0.005, "(cap reached at 1 of 3 points before the precision was met)")],
    ids=["met", "cap", "cap-at-some"],
)  # fmt: skip
def test_a_sweep_to_a_precision_says_what_it_simulated_before_its_tables(
    precision: float, how: str
) -> None:
    """As a plain sweep says ``simulated N encounters at each of K points``: N each
    point's stop, from the fewest to the most, not the cap; where only some points
    reached the cap, how many (it read 'cap reached' as if every one had)."""
    from click.testing import CliRunner

    from simlab.cli import main

    args = ["sweep", str(SS_DUEL), "--vary", "Defender.hp=5,20,30", "-n", "20000"]
    done = CliRunner().invoke(main, [*args, "--precision", str(precision)], terminal_width=80)
    assert done.exit_code == 0, done.output
    stops = [_stop(SS_DUEL, 20000, precision, **{"Defender.hp": hp}) for hp in (5, 20, 30)]
    each = (f"{min(stops):,} encounters" if min(stops) == max(stops) else
            f"{min(stops):,}–{max(stops):,} encounters")  # fmt: skip
    assert done.stdout.splitlines()[0] == f"simulated {each} at each of 3 points {how}"


@pytest.mark.parametrize("columns", [80, 60])
def test_a_sweep_says_the_encounters_it_simulated_at_each_point(columns: int) -> None:
    """``simulated 40,000 encounters of 2 points`` above ``20,000 encounters per point``
    was a total a designer read as each point's: it says each point's, as a comparison
    says each variant's, on one line piped whatever the width."""
    from click.testing import CliRunner

    from simlab.cli import main

    args = ["sweep", str(SS_DUEL), "--vary", "Defender.hp=5,20", "-n", "1000", "--no-exact"]
    done = CliRunner().invoke(main, args, terminal_width=columns, env={"COLUMNS": str(columns)})
    assert done.exit_code == 0, done.output
    first, head = done.stdout.splitlines()[:2]
    assert first == "simulated 1,000 encounters at each of 2 points", done.stdout
    assert "1,000 encounters per point" in head


def test_a_comparison_to_a_precision_says_what_it_simulated_before_its_tables() -> None:
    """Both variants at the larger stop, as a plain comparison says its 2n; the cap is
    each variant's (``cap 20,000`` beside 40,000 simulated read as the cap reached)."""
    from click.testing import CliRunner

    from simlab.cli import main

    args = ["compare", str(SS_DUEL), "--set", "Defender.hp=20", "-n", "20000"]
    done = CliRunner().invoke(main, [*args, "--precision", "0.02"])
    assert done.exit_code == 0, done.output
    stop = max(_stop(SS_DUEL, 20000, 0.02), _stop(SS_DUEL, 20000, 0.02, **{"Defender.hp": 20}))
    assert done.stdout.splitlines()[0] == (
        f"simulated {stop:,} encounters of A and of B (precision met; cap 20,000 each)"
    )


def test_a_comparison_says_the_encounters_of_each_variant_it_simulated() -> None:
    """``simulated 2,500 encounters of A and B`` beside ``1,250 encounters each`` read
    as two counts of one thing: it says each variant's, as the header does."""
    from click.testing import CliRunner

    from simlab.cli import main

    args = ["compare", str(SS_DUEL), "--set", "Defender.hp=20", "-n", "1250"]
    done = CliRunner().invoke(main, args, terminal_width=80)
    assert done.exit_code == 0, done.output
    first, *_ = done.stdout.splitlines()
    assert first == "simulated 1,250 encounters of A and of B", done.stdout
    assert "(1,250 encounters each," in done.stdout


def test_a_report_says_what_each_run_to_a_precision_simulated(tmp_path: Path) -> None:
    """``report --precision``; and a scenario's own ``precision:`` (whose cap a bar's
    closing line gave), beside a plain scenario, in every command that runs scenarios
    (``baseline update`` here: the quickest, no pictures)."""
    from click.testing import CliRunner

    from simlab.cli import main

    stop = _stop(SS_DUEL, 20000, 0.02)
    done = CliRunner().invoke(main, ["report", str(SS_DUEL), "-n", "20000", "--precision",
                                     "0.02", "--out", str(tmp_path / "report")])  # fmt: skip
    assert done.exit_code == 0, done.output
    # the lines wrap at 80 columns where the paths are long: read them unwrapped
    assert " ".join(done.stdout.split()).startswith(
        f"simulated {stop:,} encounters of {SS_DUEL.as_posix()} (precision met; cap 20,000) "
    )
    own = tmp_path / "own.yaml"
    text = SS_DUEL.read_text().replace("scenario: ss-duel", "scenario: own-precision")
    own.write_text(text + "precision: 0.02\n")
    done = CliRunner().invoke(main, ["baseline", "update", str(SS_DUEL), str(own), "-n",
                                     "20000", "--baseline", str(tmp_path / "b.json")])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert " ".join(done.stdout.split()).startswith(
        f"simulated 20,000 encounters of {SS_DUEL.as_posix()} "
        f"simulated {stop:,} encounters of {own.as_posix()} (precision met; cap 20,000) "
    )


def test_a_piped_simulated_line_keeps_to_one_line_at_80_columns(tmp_path: Path,
                                                                monkeypatch) -> None:  # fmt: skip
    """Piped, the ``simulated N encounters of PATH`` line is what a tool reads: at
    ``COLUMNS=80`` a long path went on a line of its own and how the run stopped on a
    third, and ``grep 'simulated .* of PATH'`` found neither."""
    from click.testing import CliRunner

    from simlab.cli import main

    folder = tmp_path / "a-rather-long-folder-name-for-scenarios" / "and-one-more-level"
    folder.mkdir(parents=True)
    duel = folder / "ss-duel.yaml"
    duel.write_text(SS_DUEL.read_text() + "precision: 0.2\n")  # the longest line
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(terminal, "console", Console(width=80))  # writes to the runner's
    done = CliRunner().invoke(main, ["baseline", "update", str(duel), "-n", "300",
                                     "--baseline", str(tmp_path / "b.json")])  # fmt: skip
    assert done.exit_code == 0, done.output
    first = done.stdout.splitlines()[0]
    assert first == f"simulated 300 encounters of {duel.as_posix()} (precision met; cap 300)"


def test_compare_to_a_precision_moves_its_bar_through_a_and_b(on_a_terminal) -> None:
    """``compare --precision``'s bar sat at "starting" while A, then B, ran to the
    precision: their runs did not advance it, and its total (twice the cap) was no count
    they would reach. Each of them advances it now, and the bar counts the encounters
    so far: A's and B's, each played once (the one stopped first plays on to the later
    stop; neither is played again for the comparison)."""
    from simlab import api

    calls: list[int] = []
    ab = api.compare(SS_DUEL, changes={"Defender.hp": 20}, n=4000, precision=0.1,
                     progress=calls.append)  # fmt: skip
    stops = ab.precision["stops"]
    assert sum(calls) == 2 * max(stops), (calls, stops)
    with terminal.progress(None, "A, then B, to the precision") as advance:
        before = on_a_terminal.file.getvalue()
        advance(1500)
    frames = on_a_terminal.file.getvalue()
    assert "starting of A, then B, to the precision" in before
    assert "1,500 encounters so far" in frames
    assert frames.rfind("simulating of A, then B") > frames.rfind("starting of A")


def test_a_command_says_a_compile_in_its_own_words_only(monkeypatch, caplog) -> None:
    """A command's run that compiles says so on standard error when it is a terminal
    (a run piped to a file too), never through the Python API's logger; into a test's
    or a log's captured output, nothing."""
    from click.testing import CliRunner

    from simlab import cli
    from simlab.engine import compiling, runner

    play = runner.run_range

    def compiles_first(*args, **kwargs):
        compiling.compile_starting()
        return play(*args, **kwargs)

    monkeypatch.setattr(runner, "run_range", compiles_first)
    caplog.set_level("INFO", logger="simlab")
    # piped, a run to a precision shows no progress: the API alone would say it
    done = CliRunner().invoke(cli.main, ["run", str(SS_DUEL), "-n", "2000", "--precision", "0.1"])
    assert done.exit_code == 0, done.output
    assert "compiling" not in done.output and not caplog.records

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    listener = cli._compile_notice()  # standard output piped, standard error a terminal
    assert listener is not None
    listener("shattered-spirits")
    assert sys.stderr.getvalue() == (
        "compiling the shattered-spirits kernels (a first run: 5–15 s; "
        "later runs load them from the cache)\n"
    )


@pytest.mark.slow  # compiles a rule system's kernel afresh in a fresh process
def test_a_run_on_a_terminal_says_in_its_bar_that_it_compiles(on_a_terminal, monkeypatch) -> None:
    """Through the Python API's run, which names its rule system to the command's
    listener; and a second rule system's first compile is said too (a report's)."""
    from simlab import api, cli
    from simlab.engine import compiling, runner

    play = runner.run_range

    def compiles_first(*args, **kwargs):
        compiling.compile_starting()
        return play(*args, **kwargs)

    monkeypatch.setattr(runner, "run_range", compiles_first)
    with compiling.listening(cli._compile_notice()):
        with terminal.progress(2000, "ss-duel") as advance:
            api.simulate(SS_DUEL, 2000, progress=advance)
        first = on_a_terminal.file.getvalue()
        with terminal.progress(2000, "zones") as advance:
            api.simulate(ROOT / "scenarios/benchmarks/zones-3d6-duel.yaml", 2000,
                         progress=advance)  # fmt: skip
    assert "compiling the shattered-spirits kernels (a first run: 5–15 s)" in first
    assert "compiling the zones-3d6 kernels" in on_a_terminal.file.getvalue()[len(first) :]


@pytest.mark.parametrize("on_a_terminal", [False, True])
def test_notes_a_ci_log_reads_are_whole_when_piped_and_broken_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, on_a_terminal: bool
) -> None:
    """The precision record and the --set overrides of a report or a check were
    wrapped at ``COLUMNS`` when piped (pytest-xdist's workers and CI runners set it):
    ``grep '^precision:'`` found half a record. Piped they keep one line; on an
    80-column terminal they break at spaces, within 80 columns."""
    from click.testing import CliRunner

    from simlab.cli import main

    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    monkeypatch.setenv("COLUMNS", "80")
    changes = ["--set", "Brute.hp=31", "--set", "Kaito.speed=2"]
    runs = [["run", str(QUICKSTART), "--precision", "0.05", *changes],
            ["check", str(QUICKSTART), "-n", "300", *changes]]  # fmt: skip
    notes = {"precision: stopped at ": "widest: down_rate", "Run with --set ": "already 2 there"}
    for args in runs:
        with CliRunner().isolation() as (out, _, _):
            sys.stdout.isatty = lambda: on_a_terminal  # type: ignore[method-assign]
            with pytest.raises(SystemExit) as done:
                main(args)
        assert done.value.code == 0
        lines = out.getvalue().decode().splitlines()
        start = next(k for k, line in enumerate(lines) if line.startswith(tuple(notes)))
        end = notes[next(n for n in notes if lines[start].startswith(n))]
        if on_a_terminal:
            assert end not in lines[start] and end in " ".join(
                x.strip() for x in lines[start : start + 4]
            )
            assert max(len(line) for line in lines[start : start + 4]) <= 80, lines
        else:
            assert end in lines[start], lines


@pytest.mark.slow  # runs commands in fresh processes on a pseudo-terminal
def test_an_error_on_a_terminal_keeps_each_suggested_fix_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error broken at spaces to the terminal's width split what it quotes and
    suggests over two lines (``'warhammer`` / ``shortsword'``, ``[1,`` / ``2]``) at
    70 columns: a value to copy into the file. Each goes whole to the next line, at every
    width from 40 to 80."""
    from click.testing import CliRunner

    from simlab.cli import main

    duel = (ROOT / "scenarios/glitters-d20/training-duel.yaml").read_text(encoding="utf-8")
    pell = (ROOT / "scenarios/zones-3d6/training-duel.yaml").read_text(encoding="utf-8")
    slips = {
        "list.yaml": (duel.replace("[warhammer, shortsword", "[warhammer shortsword"),
                      ["'warhammer shortsword'", "'warhammer, shortsword'"]),
        "defense.yaml": (pell.replace("base_defense: [1, 2]", "base_defense: 1, 2"),
                         ["'base_defense'", "base_defense: [1, 2]"]),
    }  # fmt: skip
    monkeypatch.chdir(tmp_path)  # a short path: the lines' widths are the message's
    for name, (text, fixes) in slips.items():
        Path(name).write_text(text, encoding="utf-8")
        for width in range(40, 81):
            monkeypatch.setenv("COLUMNS", str(width))
            with CliRunner().isolation() as (_, err, _):
                sys.stderr.isatty = lambda: True  # type: ignore[method-assign]
                with pytest.raises(SystemExit):
                    main(["validate", name])
            lines = err.getvalue().decode().splitlines()
            assert len(lines) > 1 and max(len(line) for line in lines) <= width, lines
            for fix in fixes:
                assert any(fix in line for line in lines), (width, fix, lines)


def test_validate_keeps_a_count_with_its_noun_at_80_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ok: scenarios/zones-3d6/skirmish.yaml: …, rules zones-3d6, 7`` / ``combatants,
    6 attacks``: on a terminal the line broke between a count and what it counts."""
    said = _validated_on_a_terminal("scenarios/zones-3d6/skirmish.yaml", 80, monkeypatch)
    lines = said.splitlines()
    assert len(lines) == 2 and max(len(line) for line in lines) <= 80, lines
    assert not any(re.search(r"\d$", line) for line in lines), lines
    assert "7 combatants, 6 attacks" in said, lines


@pytest.mark.parametrize("group", [[], ["baseline"]])
def test_the_command_lists_of_help_end_no_sentence_in_dots_at_80_columns(
    group: list[str],
) -> None:
    """``simlab --help`` at 80 columns cut six of its commands' summaries short, some
    mid-clause (``check … of scenarios; exit...``); ``baseline --help`` its one.
    Each summary is whole, on one line."""
    from click.testing import CliRunner

    from simlab.cli import main

    done = CliRunner().invoke(main, [*group, "--help"], terminal_width=80)
    assert done.exit_code == 0, done.output
    listed = done.output.split("Commands:\n")[1].splitlines()
    assert listed and all(re.match(r"  [a-z]+ +[A-Z].*[^.]\.$", line) for line in listed), listed
    assert max(len(line) for line in done.output.splitlines()) <= 80, done.output


def test_no_help_breaks_a_hyphenated_word_at_80_columns() -> None:
    """``exact --help`` broke ``time-to-`` / ``down`` at its line's end."""
    from click.testing import CliRunner

    from simlab.cli import main

    for command in main.list_commands(None):  # type: ignore[arg-type]
        done = CliRunner().invoke(main, [command, "--help"], terminal_width=80)
        assert done.exit_code == 0, done.output
        assert not re.search(r"[a-z]-\n", done.output), done.output


def test_a_progress_bar_of_a_long_path_keeps_its_count_and_time_at_80_columns(
    on_a_terminal: Console, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``simulating of scenarios/shattered-spirits/spirits-2v3.yaml ━━━━ 1,000/1,000
    0:0…``: on an 80-column terminal a check's or a report's bar cut its time left.
    A path that long is named by its file; a short one keeps its folders."""
    screen = Console(file=io.StringIO(), force_terminal=True, width=80)
    monkeypatch.setattr(terminal, "console", screen)
    for what, named in [("scenarios/shattered-spirits/spirits-2v3.yaml", "spirits-2v3.yaml"),
                        ("scenarios/a/duel.yaml", "scenarios/a/duel.yaml")]:  # fmt: skip
        with terminal.progress(1000, what) as advance:
            advance(1000)
        frames = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", screen.file.getvalue())
        last = [f for f in re.split(r"[\r\n]", frames) if f.startswith("simulating")][-1]
        assert last.startswith(f"simulating of {named} ━"), last
        assert last.rstrip().endswith("1,000/1,000 0:00:00") and "…" not in last, last
        screen.file.seek(0), screen.file.truncate()


def test_validate_takes_set_and_says_the_overrides_it_checked() -> None:
    """``validate --set`` was a usage error: a designer checks an override before a long
    run. The ok line says which overrides the file passed with, and one that changes
    nothing (Brute's hp is 30 in the quickstart) is said so."""
    done = simlab("validate", str(QUICKSTART), "--set", "Kaito.hp=31", "--set", "Brute.hp=30")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert said.startswith("ok: ") and "2 combatants" in said
    assert said.endswith(
        "; with --set Kaito.hp=31, Brute.hp=30 (changes nothing: Brute.hp is already 30)"
    )
    moved = simlab("validate", str(QUICKSTART), "--set", "Kaito.guard=3")
    assert " ".join(moved.stdout.split()).endswith("2 attacks; with --set Kaito.guard=3")


@pytest.mark.parametrize("bad", ["Brute.hp=x", "Brute.hp=-1", "Brute.hp", "Brut.hp=3"])
def test_validate_refuses_a_bad_set_as_run_does(bad: str) -> None:
    """A bad override: exit 2 and run's own message, nothing said ok."""
    checked = simlab("validate", str(QUICKSTART), "--set", bad)
    ran = simlab("run", str(QUICKSTART), "-n", "100", "--set", bad)
    assert checked.returncode == ran.returncode == 2
    assert checked.stdout == ""
    assert checked.stderr.startswith(f"--set {bad}: expected ")
    assert ran.stderr.strip() in checked.stderr


def test_validate_goes_on_past_a_file_an_override_does_not_fit(tmp_path: Path) -> None:
    """``validate A B C --set Kaito.hp=31`` stopped at the first file without a Kaito:
    the problems of the files before it went unsaid, and the files after it unchecked,
    where the README says every file's problems are listed at once."""
    bad = tmp_path / "bad.yaml"
    text = QUICKSTART.read_text().replace("scenario: quickstart", "scenario: bad")
    bad.write_text(text.replace("hp: 24", "hp: thirty"))
    skirmish = ROOT / "scenarios/zones-3d6/skirmish.yaml"
    done = simlab("validate", str(bad), str(skirmish), str(QUICKSTART), "--set", "Kaito.hp=31")
    assert done.returncode == 2
    said = done.stderr.splitlines()
    assert said[0].startswith(f"{bad}:") and "got 'thirty'" in said[0], said
    assert said[1].startswith("--set Kaito.hp=31: expected a combatant (Warden, ") and said[
        1
    ].endswith(f"got 'Kaito' (in {skirmish})"), said
    assert done.stdout.startswith(f"ok: {QUICKSTART}: scenario 'quickstart'"), done.stdout
    # a key the file has not: the same line came once a file, none saying whose
    party = ROOT / "scenarios/shattered-spirits/party-3v3.yaml"
    keyed = simlab("validate", str(QUICKSTART), str(party), "--set", "Kaito.hpp=31")
    lines = keyed.stderr.splitlines()
    assert [line.startswith("--set Kaito.hpp=31: unknown key 'hpp'") for line in lines] == [
        True,
        True,
    ], lines
    assert [line.rsplit(" (in ", 1)[1] for line in lines] == [f"{QUICKSTART})", f"{party})"]


def test_scheduler_says_it_is_connecting_before_it_waits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--scheduler ADDRESS`` of an address nobody answers at waited 10 s with nothing
    printed: the line saying where it connects, and for how long at most, is on stderr
    before the connection is tried (a stand-in for Dask's client, which would wait)."""
    import distributed

    from simlab import cli
    from simlab.errors import InputError

    said_before: list[str] = []

    def nobody_answers(address: str, timeout: float) -> None:
        said_before.append(capsys.readouterr().err)
        raise OSError(f"Timed out trying to connect to {address} after {timeout:g} s")

    monkeypatch.setattr(distributed, "Client", nobody_answers)
    with pytest.raises(InputError, match="after 10 s"):
        cli._connect("tcp://127.0.0.1:9", None)
    assert said_before == ["connecting to tcp://127.0.0.1:9 (waits up to 10 s)…\n"]


@pytest.mark.parametrize(
    ("address", "why"),
    [("http://127.0.0.1:8786", "unknown address scheme 'http' (known schemes: "),
     ("127.0.0.1", "missing port number in address '127.0.0.1'"),
     ("tcp://host.example", "missing port number in address 'host.example'")],
)  # fmt: skip
def test_an_address_dask_cannot_read_is_refused_before_connecting_is_said(
    address: str, why: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--scheduler http://127.0.0.1:8786`` and ``--scheduler 127.0.0.1`` printed
    ``connecting to … (waits up to 10 s)…``, then Dask's refusal at once: the address is
    refused, in the same words, before anything says it connects (Dask's client, a
    stand-in here, is never asked)."""
    import distributed

    from simlab import cli
    from simlab.errors import InputError

    def never_asked(address: str, timeout: float) -> None:
        raise AssertionError(f"Dask's client asked to connect to {address}")

    monkeypatch.setattr(distributed, "Client", never_asked)
    with pytest.raises(InputError) as refused:
        cli._connect(address, None)
    assert str(refused.value).startswith(
        "expected --scheduler as a Dask scheduler's address such as tcp://host:8786; "
        f"got {address!r} ({why}"
    ), refused.value
    assert capsys.readouterr().err == ""


def test_exact_says_what_it_did_not_solve_in_words_at_80_columns() -> None:
    """``not solved exactly (7; use …)`` gave a bare count, and ``time_to_down:`` the
    figure's id; at 80 columns a heading broke ``simlab run`` / ``--check`` in two."""
    party = "scenarios/shattered-spirits/party-3v3.yaml"
    done = simlab("exact", party, columns="80")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, lines
    assert all(line.count("`") % 2 == 0 for line in lines), lines  # no command split
    said = " ".join(done.stdout.split())
    assert "in a fight, figures of 15 pairs move away from the answers above" in said
    assert "not solved exactly: 6 pairs and time-to-down (use `simlab run`" in said
    assert "- time-to-down: expected a one-sided duel" in said and "time_to_down" not in said


@pytest.mark.parametrize(("width", "total"), [(80, 20_000), (80, 1_000_000), (80, None),
                                             (120, 20_000)])  # fmt: skip
def test_a_compiling_bar_keeps_its_count_and_time(
    on_a_terminal: Console, monkeypatch: pytest.MonkeyPatch, width: int, total: int | None
) -> None:
    """On a cold kernel cache the bar said ``compiling the shattered-spirits kernels (a
    first run: 5–15 s) ━━━ 0/20,000 -:-…`` at 80 columns: the notice squeezed the bar
    and cut the time left. It says less where it must (``compiling kernels (5–15 s)``),
    all of it where there is room."""
    screen = Console(file=io.StringIO(), force_terminal=True, width=width)
    monkeypatch.setattr(terminal, "console", screen)
    with terminal.progress(total) as advance:
        terminal.say_compiling("shattered-spirits")
        advance(10)
    frames = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", screen.file.getvalue())
    said = [f for f in re.split(r"[\r\n]", frames) if f.startswith("compiling")]
    assert said, frames
    line = said[-1].rstrip()
    assert "…" not in line and re.search(r"━{10,}", line), line
    assert re.search(r"(\d/[\d,]+ -:--:--|0 encounters so far)$", line), line
    assert "(5–15 s)" in line or "(a first run: 5–15 s)" in line, line
    full = "compiling the shattered-spirits kernels (a first run: 5–15 s) "
    assert line.startswith(full) == (width == 120), line


def test_exact_refusing_everything_lists_its_reasons_in_words_in_a_terminal(
    tmp_path: Path,
) -> None:
    """``simlab exact`` on a scenario it cannot solve at all said ``time_to_down: a duel
    needs…`` (the figure's id), and a terminal continued each reason under the ``-``."""
    (tmp_path / "unsolvable.yaml").write_text(UNSOLVABLE)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    lines = _stderr_in_a_terminal(["exact", "unsolvable.yaml"], env, tmp_path).splitlines()
    assert lines[0] == "unsolvable.yaml: cannot solve scenario 'unsolvable' exactly:", lines
    assert "time_to_down" not in "\n".join(lines), lines
    items = [k for k, line in enumerate(lines) if line.startswith("  - ")]
    assert [lines[k][4:].split(":")[0] for k in items] == ["A", "B", "time-to-down"], lines
    continued = [line for line in lines[1:-1] if not line.startswith("  - ")]
    assert continued and all(line.startswith("    ") for line in continued), lines
    assert lines[-1] == "use `simlab run` to simulate it" and max(map(len, lines)) <= 80


def test_run_check_of_a_scenario_nothing_solves_lists_each_reason(tmp_path: Path) -> None:
    """``run --check`` ran the exact engine's refusal into one item (``scenario: cannot
    solve … exactly:   A: hit → B: … time_to_down: …``), ending in the hint to simulate
    with ``simlab run``, which it had just done. Each reason is an item of its own."""
    (tmp_path / "unsolvable.yaml").write_text(UNSOLVABLE)
    done = simlab("run", "unsolvable.yaml", "-n", "200", "--check", cwd=tmp_path, columns="80")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("not checked: cannot solve scenario 'unsolvable' exactly:")
    items = [line[4:].split(":")[0] for line in lines[start:] if line.startswith("  - ")]
    assert items == ["A", "B", "time-to-down"], lines
    assert lines[-1] == "check: no figure could be checked against an exact answer", lines
    assert "simlab run" not in done.stdout and "time_to_down" not in done.stdout
    assert max(map(len, lines)) <= 80 and not any("  " in x.strip() for x in lines[start:])


#: The scenario of README's "Tuning", whose names the options' examples use.
SS_DUEL_ARG = str(SS_DUEL)


def _help_examples(command: str, option: str) -> list[str]:
    """The examples ``simlab COMMAND --help`` gives of ``option`` at 80 columns, as a
    designer copies them: the ``NAME.FIELD=…``, ``FIGURE:ON=…`` or ``FIGURE:ON`` words of
    its text after its first ':'."""
    from click.testing import CliRunner

    from simlab.cli import main

    shown = CliRunner().invoke(main, [command, "--help"], terminal_width=80).output
    first, *rest = shown.split("\nOptions:\n")[1].split(f"  {option} ")[1].splitlines()
    said = [first, *itertools.takewhile(lambda x: x.startswith(" " * 20), rest)]
    text = " ".join(said).split(None, 1)[1]  # after the metavar
    examples = text.split(":", 1)[1].split("[required]")[0].split("See README")[0]
    return [w.rstrip(".,;") for w in examples.split() if re.search(r"[\w\]][=:]\w", w)]


@pytest.mark.parametrize(("command", "option", "accepted"), [
    ("validate", "--set", ["validate", SS_DUEL_ARG, "--set"]),
    ("run", "--precision-on", ["run", SS_DUEL_ARG, "-n", "100", "--precision", "0.5",
                               "--precision-on"]),
    ("tune", "--precision-on", ["tune", SS_DUEL_ARG, "--vary", "Defender.hp=10:60", "--target",
                                "win_rate:attacker=0.5", "-n", "100", "--no-exact",
                                "--precision", "0.5", "--precision-on"]),
    ("sweep", "--vary", ["sweep", SS_DUEL_ARG, "-n", "100", "--no-exact", "--vary"]),
    ("tune", "--vary", ["tune", SS_DUEL_ARG, "--target", "hit_rate:strike=0.6", "-n", "100",
                        "--vary"]),
    ("tune", "--target", ["tune", SS_DUEL_ARG, "--vary", "Defender.hp=10:60", "-n", "100",
                          "--target"]),
])  # fmt: skip
def test_every_example_of_the_help_is_one_the_command_accepts(
    command: str, option: str, accepted: list[str]
) -> None:
    """``--set params.FIELD=V`` (a pattern, which ``--set`` refuses), and
    ``win_rate:party`` and ``median_time_to_down:Brute`` beside ``hit_rate:strike`` (no
    scenario has all three): each example of the help, typed as written, runs on the
    scenario of README's "Tuning" (exit 0, or 1 for a target out of reach)."""
    from click.testing import CliRunner

    from simlab.cli import main

    examples = _help_examples(command, option)
    assert len(examples) >= 2, examples
    for example in examples:
        done = CliRunner().invoke(main, [*accepted, example])
        assert done.exit_code in (0, 1), (example, done.output)


def test_the_help_of_set_is_the_same_on_every_command() -> None:
    """The examples of ``--set`` tried under ``validate`` (by
    :func:`test_every_example_of_the_help_is_one_the_command_accepts`) are those of every
    command that takes it."""
    said = {c: _help_examples(c, "--set") for c in ("run", "sweep", "compare", "tune", "validate")}
    assert len({tuple(v) for v in said.values()}) == 1 and len(said["run"]) == 4, said


def test_no_help_says_dots_for_what_it_leaves_out_at_80_columns() -> None:
    """``compare --help`` said ``Compare A with B (or with A --set ...)``: every help reads
    whole, its ``...`` only the usage line's, click's mark of an argument given many times."""
    from click.testing import CliRunner

    from simlab.cli import main

    for command in main.list_commands(None):  # type: ignore[arg-type]
        done = CliRunner().invoke(main, [command, "--help"], terminal_width=80)
        said = done.output.split("\n", 1)[1]
        assert "..." not in said and "…" not in said, done.output


@pytest.mark.parametrize("args", [
    ["run", str(QUICKSTART), "-n", "2000"],
    ["sweep", str(QUICKSTART), "--vary", "Brute.hp=20:40:10", "-n", "2000"],
    ["compare", str(QUICKSTART), "--set", "Brute.hp=20", "-n", "2000"],
    ["tune", str(QUICKSTART), "--vary", "Brute.hp=5:60", "--target",
     "median_time_to_down:Kaito=7", "-n", "2000"],
    ["tune", SS_DUEL_ARG, "--vary", "Defender.guard=0:4", "--target", "hit_rate:strike=0.6",
     "-n", "200"],
])  # fmt: skip
def test_every_sentence_of_a_command_begins_with_a_capital(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes under the tables said ``… by the round cap). median: the round …``,
    ``… went down. capped: …``, ``exact: the exact mean …``; the lines of a tuning
    ``consistent with the target: …``, ``how: tuned …``, ``unreachable: …``. A sentence
    begins with a capital, after a full stop as on a line of its own (but a name's:
    ``Brute.hp=43 gives …``)."""
    from click.testing import CliRunner

    from simlab.cli import main

    screen = Console(file=io.StringIO(), width=1000)  # each note on a line of its own
    monkeypatch.setattr(terminal, "console", screen)
    done = CliRunner().invoke(main, args)
    assert done.exit_code in (0, 1), done.output
    shown = screen.file.getvalue()  # type: ignore[attr-defined]
    lines = [line.strip() for line in shown.splitlines()]
    after_a_stop = [m for line in lines for m in re.findall(r".{0,20}[a-z)]\. +[a-z]\S*", line)]
    assert not after_a_stop, after_a_stop
    notes = [line for line in lines if line.endswith(".") and "   " not in line]  # no table's
    assert not [line for line in notes if line[0].islower()], notes
    if args[0] == "tune":
        said = shown.split("the value found and its neighbours")[1].splitlines()
        sentences = [line for line in said if ": " in line and not line.startswith(" ")]
        assert sentences and all(s[0].isupper() for s in sentences[-2:]), said


def test_a_tuning_keeps_a_count_with_its_noun_at_80_columns() -> None:
    """``… over the values tried), 16`` / ``values evaluated by simulation``: the tuning's
    how line broke between a count and what it counts at 80 columns."""
    done = simlab("tune", SS_DUEL_ARG, "--vary", "Defender.hp=10:60", "--target",
                  "median_time_to_down:Defender=8", "-n", "3000", "--no-exact",
                  columns="80")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    how = lines[next(k for k, line in enumerate(lines) if line.startswith("How: ")) :]
    assert len(how) > 1 and max(len(line) for line in how) <= 80, how
    # a count ends no line (the target's value, ``…:Defender=8``, may)
    assert not any(re.search(r"(?<![=\d,])\d[\d,]*$", line) for line in how), how
