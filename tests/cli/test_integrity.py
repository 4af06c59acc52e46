"""Output folders are one unit; hostile input and the machine's limits give exit 2.

Through the command line, as a designer (or a shell script) would run it: an interrupted
rewrite and concurrent writers leave a folder whose every file carries one run identity;
hostile scenario files are refused with exit 2 within 5 s and 1 GB; a read-only or full
output folder, a corrupted baseline or an absurd -n exit 2 and write nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from simlab.limits import MAX_RESULTS_BYTES
from simlab.report.files import MANIFEST, check_unit, read_identity
from tests.cli.simlab_runs import simlab_here, simlab_in_one_process
from tests.support import SIMLAB_WITH_CTRL_C

# Slow tier (make test-slow): runs commands in fresh processes against hostile and concurrent input.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
SIMLAB = [sys.executable, "-m", "simlab"]


def simlab_process(
    *args: str, cwd: Path = ROOT, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``simlab ARGS`` in a fresh ``python -m simlab``."""
    return subprocess.run([*SIMLAB, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)  # fmt: skip


#: What a command says, exits with and writes, in this process (tests.cli.simlab_runs).
simlab = simlab_here


def identity_seed(folder: Path) -> int:
    """The seed of the one run every file of ``folder`` comes from (checked)."""
    identity = check_unit(folder)
    assert identity is not None
    stamped = {p.name: read_identity(p) for p in folder.rglob("*") if p.is_file()}
    stamped.pop(MANIFEST)
    assert stamped and all(found == identity for found in stamped.values()), stamped
    (scenario,) = identity["scenarios"]
    return int(scenario["seed"])


def no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stdout + done.stderr


# -- one unit --------------------------------------------------------------------------------


def start_on_a_terminal(args: list[str], cwd: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Start simlab with its output on a pseudo-terminal (so it shows progress)."""
    leader, follower = pty.openpty()
    child = subprocess.Popen([*SIMLAB_WITH_CTRL_C, *args], stdout=follower,
                             stderr=subprocess.PIPE, cwd=cwd)  # fmt: skip
    os.close(follower)
    return child, leader


def wait_for(leader: int, word: bytes, seconds: float) -> None:
    seen, end = b"", time.monotonic() + seconds
    while word not in seen:
        left = end - time.monotonic()
        assert left > 0, f"no {word!r} on the terminal: {seen[-300:]!r}"
        if select.select([leader], [], [], left)[0]:
            with contextlib.suppress(OSError):
                seen += os.read(leader, 65536)


@pytest.mark.slow  # two runs in fresh processes, one compiling from an empty cache: 20-25 s
def test_interrupted_rewrite_keeps_the_old_unit_and_exits_130_promptly(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert (
        simlab_process(
            "run", str(QUICKSTART), "-n", "2000", "--seed", "1", "--out", str(out)
        ).returncode
        == 0
    )
    assert identity_seed(out) == 1
    big = str(10**10)
    child, leader = start_on_a_terminal(
        ["run", str(QUICKSTART), "-n", big, "--block-size", big, "--seed", "2", "--out", str(out)],
        tmp_path,
    )
    try:
        wait_for(leader, b"simulating", 300)  # the kernels are running
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
        waited = time.monotonic() - sent
    finally:
        os.close(leader)
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130
    assert b"interrupted" in err and b"Traceback" not in err
    assert waited < 2.0  # "about a second" (kernel calls last about 0.2 s)
    assert identity_seed(out) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing staged is left


def test_a_killed_writer_leaves_the_old_unit_and_its_staging_is_cleaned_next_time(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    assert (
        simlab("run", str(QUICKSTART), "-n", "2000", "--seed", "1", "--out", str(out)).returncode
        == 0
    )
    # A writer killed (SIGKILL) half-way through writing its files.
    code = (
        "import os, signal, sys; from pathlib import Path\n"
        "from simlab.report.files import output_unit\n"
        "with output_unit(sys.argv[1], {'scenarios': []}) as d:\n"
        "    (d / 'summary.json').write_text('{}')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run([sys.executable, "-c", code, str(out)], timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert any(".simlab-tmp-" in p.name for p in tmp_path.iterdir())
    assert identity_seed(out) == 1
    done = simlab("run", str(QUICKSTART), "-n", "2000", "--seed", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert identity_seed(out) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.slow  # three rounds of concurrent runs in fresh processes: about 9 s
def test_concurrent_writers_leave_one_whole_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for trial in range(3):
        children = [
            subprocess.Popen(
                [
                    *SIMLAB,
                    "run",
                    str(QUICKSTART),
                    "-n",
                    "3000",
                    "--seed",
                    str(seed),
                    "--out",
                    str(out),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for seed in (10 + trial, 20 + trial)
        ]
        for child in children:
            _, err = child.communicate(timeout=600)
            assert child.returncode == 0, err
        assert identity_seed(out) in (10 + trial, 20 + trial)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.slow  # five reports in fresh processes: about 20 s
def test_report_from_refuses_a_folder_whose_files_disagree(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, seed in ((one, "1"), (two, "2")):
        done = simlab_process(
            "report", str(QUICKSTART), "-n", "2000", "--seed", seed, "--out", str(folder)
        )
        assert done.returncode == 0, done.stderr
    assert (
        simlab_process("report", "--from", str(one), "--out", str(tmp_path / "again")).returncode
        == 0
    )
    shutil.copy(two / "report.md", one / "report.md")  # a mix, as an old interrupted run left
    done = simlab_process("report", "--from", str(one), "--out", str(tmp_path / "mixed"))
    assert done.returncode == 2
    assert "expected the files of one run" in done.stderr and "report.md" in done.stderr
    assert not (tmp_path / "mixed").exists()
    done = simlab_process(
        "report", "--from", str(two), "--baseline", str(one), "--out", str(tmp_path / "x")
    )
    assert done.returncode == 2 and "report.md" in done.stderr
    no_traceback(done)


@pytest.mark.slow  # a report and a check in fresh processes: about 8 s
def test_a_results_file_whose_run_field_disagrees_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    assert (
        simlab_process("report", str(QUICKSTART), "-n", "2000", "--out", str(out)).returncode == 0
    )
    doc = json.loads((out / "results.json").read_text())
    doc["run"]["scenarios"][0]["seed"] += 1
    lone = tmp_path / "results.json"
    lone.write_text(json.dumps(doc))
    done = simlab_process("check", "--from", str(lone))
    assert done.returncode == 2 and "'run' field disagrees" in done.stderr


# -- hostile input ---------------------------------------------------------------------------


def hostile_files(folder: Path) -> dict[str, Path]:
    head = "scenario: x\nrules: shattered-spirits\n"
    files = {}
    for depth in (600, 100_000):
        files[f"nested {depth}"] = folder / f"deep{depth}.yaml"
        files[f"nested {depth}"].write_text(head + "d: " + "[" * depth + "]" * depth + "\n")
    big = folder / "big.yaml"
    with big.open("w") as handle:
        handle.write(head)
        handle.writelines(f"k{i}: {i}\n" for i in range(3_500_000))  # about 50 MB
    files["50 MB"] = big
    files["/dev/zero"] = Path("/dev/zero")
    fifo = folder / "fifo.yaml"
    os.mkfifo(fifo)
    files["FIFO"] = fifo
    files["5,000 unknown attacks"] = many_unknown_attacks(folder)
    return files


def many_unknown_attacks(folder: Path) -> Path:
    """The quickstart scenario with 5,000 attacks no rule defines, written in ``folder``."""
    many = QUICKSTART.read_text().replace(
        "attacks: [quick-jab]",
        "attacks: [quick-jab, " + ", ".join(f"x{i}" for i in range(5000)) + "]",
    )
    path = folder / "many.yaml"
    path.write_text(many)
    return path


def run_measured(args: list[str]) -> tuple[int, str, float, float, int]:
    """Exit code, stderr, wall seconds, CPU seconds (user + system) and peak memory (kB)
    of a simlab command."""
    started = time.monotonic()
    child = subprocess.Popen([*SIMLAB, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()  # small: the messages are capped
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return child.returncode, err.decode(), time.monotonic() - started, cpu, usage.ru_maxrss


@pytest.mark.slow  # seven hostile files, each in a fresh process: 6-11 s a command
@pytest.mark.parametrize("command", ["validate", "run"])
def test_hostile_input_is_refused_with_exit_2_within_5_s_and_1_gb(
    tmp_path: Path, command: str
) -> None:
    for what, path in hostile_files(tmp_path).items():
        code, err, seconds, cpu, peak_kb = run_measured([command, str(path)])
        assert code == 2, (what, err)
        assert err.startswith(str(path)) and "expected" in err, (what, err)
        assert "Traceback" not in err
        # The work is measured in CPU seconds, which another job on the machine does not
        # stretch (this test ran 6-8 s of wall time on a machine loaded 4x over); a file
        # that blocked the read (the FIFO) would take little CPU and hang: the wall
        # bound catches that.
        assert cpu < 5, (what, cpu)
        assert seconds < 30, (what, seconds)
        assert peak_kb < 1_000_000, (what, peak_kb)


def test_many_problems_are_cut_short_with_a_count(tmp_path: Path) -> None:
    path = many_unknown_attacks(tmp_path)  # not the other hostile files: 50 MB written
    done = simlab("validate", str(path))
    lines = done.stderr.splitlines()
    assert done.returncode == 2
    assert len(lines) == 51
    # 5,000 unknown attacks, and a list of 5,001 where a rotation holds at most 20
    assert lines[-1] == "... and 4,951 more problems (only the first 50 shown)"


def test_expect_names_an_unknown_event_at_load(tmp_path: Path) -> None:
    text = QUICKSTART.read_text().replace(
        "expect:\n",
        "expect:\n  - {figure: event_rate, combatant: Kaito, event: shakn, at_most: 1}\n",
    )
    path = tmp_path / "ev.yaml"
    path.write_text(text)
    lines = text.splitlines()
    line = next(i for i, t in enumerate(lines, 1) if "shakn" in t)
    col = lines[line - 1].index("shakn") + 1
    for command in ("validate", "run"):
        done = simlab(command, str(path))
        assert done.returncode == 2
        assert done.stderr.strip() == (
            f"{path}:{line}:{col}: expected an event of rules shattered-spirits (out, dead); "
            "got 'shakn'"
        )


# -- the user's and the machine's limits -----------------------------------------------------


@contextlib.contextmanager
def mounted_tmpfs(where: Path, options: str) -> Iterator[Path]:
    """A small tmpfs at ``where`` (root only); skips the test where mounting is impossible."""
    where.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr!r}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


@pytest.mark.parametrize("command", [["run"], ["exact"], ["report"]])
def test_read_only_out_exits_2_before_simulating(tmp_path: Path, command: list[str]) -> None:
    with mounted_tmpfs(tmp_path / "ro", "size=1m,ro") as ro:
        out = ro / "out"
        started = time.monotonic()
        sample = [] if command == ["exact"] else ["-n", "10000000000"]
        done = simlab(*command, str(QUICKSTART), *sample, "--out", str(out))
        assert done.returncode == 2, done.stderr
        assert "expected a folder we can write; got read-only file system" in done.stderr
        assert time.monotonic() - started < 60  # 10^10 encounters were not simulated
        assert list(ro.iterdir()) == []
        no_traceback(done)


def test_a_full_disk_exits_2_and_leaves_nothing(tmp_path: Path) -> None:
    with mounted_tmpfs(tmp_path / "full", "size=48k") as small:
        out = small / "out"
        done = simlab("report", str(QUICKSTART), "-n", "2000", "--out", str(out))
        assert done.returncode == 2, done.stderr
        assert "no space left on device" in done.stderr and "nothing was changed" in done.stderr
        assert list(small.iterdir()) == []
        no_traceback(done)


def fill_up(path: Path) -> None:
    """Write to ``path`` until its file system is full."""
    with contextlib.suppress(OSError), path.open("wb", buffering=0) as handle:
        while True:
            handle.write(b"\0" * 4096)


def test_a_full_disk_keeps_the_previous_unit(tmp_path: Path) -> None:
    with mounted_tmpfs(tmp_path / "full", "size=160k") as small:
        out = small / "out"
        done = simlab("run", str(QUICKSTART), "-n", "2000", "--seed", "1", "--out", str(out))
        assert done.returncode == 0, done.stderr
        fill_up(small / "filler")
        done = simlab("run", str(QUICKSTART), "-n", "2000", "--seed", "2", "--out", str(out))
        assert done.returncode == 2, done.stderr
        assert "no space left on device" in done.stderr
        assert identity_seed(out) == 1
        assert sorted(p.name for p in small.iterdir()) == ["filler", "out"]


def test_out_on_a_file_or_over_other_files_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    for out, words in [
        (a_file, f"--out {a_file}: expected a folder; got a file"),
        (a_file / "out", "expected a folder path; got the file"),
        (tmp_path, "expected a new or empty folder, or one simlab wrote"),
        ("", "--out: expected a folder path; got an empty one"),  # not the current folder
    ]:
        done = simlab("run", str(QUICKSTART), "-n", "10000000000", "--out", str(out))
        assert done.returncode == 2, done.stderr
        assert words in done.stderr
        no_traceback(done)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert a_file.read_text() == "mine"


@pytest.mark.parametrize(
    "command",
    [["report", str(QUICKSTART), "-n", "100"], ["exact", str(QUICKSTART)],
     ["sweep", str(QUICKSTART), "--vary", "Brute.guard=0:1", "-n", "100"],
     ["compare", str(QUICKSTART), "--set", "Brute.guard=1", "-n", "100"],
     ["tune", str(QUICKSTART), "--vary", "Brute.hp=20:40", "--target", "win_rate:party=0.5",
      "-n", "100"]],
)  # fmt: skip
def test_every_command_refuses_out_on_a_file_before_it_starts(
    tmp_path: Path, command: list[str]
) -> None:
    """``--out`` on a file is refused in the "expected …; got …" form before anything is
    simulated or printed, by every command that writes (``tune`` once printed its whole
    search first)."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    done = simlab(*command, "--out", str(a_file))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"--out {a_file}: expected a folder; got a file"
    assert done.stdout == "" and a_file.read_text() == "mine"
    no_traceback(done)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("1e20", "expected a count from 1 to 100,000,000,000 (1e11); got 1e20"),
        (str(10**20), "expected a count from 1 to 100,000,000,000 (1e11); got 1000000000"),
        (str(2**63), "expected a count from 1 to 100,000,000,000 (1e11); got 922337"),
        ("1e999999999", "expected a count from 1 to 100,000,000,000 (1e11); got 1e999999999"),
        ("1e9999999999999999999", "expected a count from 1 to 100,000,000,000 (1e11); got 1e99"),
        ("0", "expected a count from 1"),
        ("1,000", "expected a whole number such as 200000, 200_000 or 2e5; got '1,000'"),
    ],
)
def test_absurd_encounter_counts_exit_2(tmp_path: Path, value: str, words: str) -> None:
    done = simlab("run", str(QUICKSTART), "-n", value, "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert words in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("corrupt", "words"),
    [
        (lambda a: a["batches"]["hits"].__setitem__(0, a["batches"]["attempts"][0] + 5),
         "batches.hits[0] (glitters-d20-duel): expected the hits and crits of batch 0 of "),
        (lambda a: a["batches"]["attempts"].__setitem__(0, -3),
         "expected each attempt count as a whole number from 0"),
        (lambda a: a["batches"]["damage"].__setitem__(0, 1e300),
         "got 1e+300"),
        (lambda a: a["damage_counts"].__setitem__("0", 1e300), "got 1e+300"),
    ],
)  # fmt: skip
def test_a_corrupted_baseline_exits_2_before_simulating(
    tmp_path: Path, corrupt: object, words: str
) -> None:
    baseline = tmp_path / "baseline.json"
    doc = json.loads((ROOT / "reports/baseline/results.json").read_text())
    corrupt(doc["scenarios"][0]["attacks"][0])  # type: ignore[operator]
    baseline.write_text(json.dumps(doc))
    out = tmp_path / "out"
    done = simlab("report", str(QUICKSTART), "-n", "10000000000", "--baseline", str(baseline),
                  "--out", str(out))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert words in done.stderr and str(baseline) in done.stderr
    assert not out.exists()
    no_traceback(done)
    done = simlab("baseline", "update", "--baseline", str(baseline))
    assert done.returncode == 2 and words in done.stderr


def test_an_out_folder_simlab_wrote_is_not_replaced_over_the_users_files(tmp_path: Path) -> None:
    """Files of the user's put into a folder simlab wrote are never deleted: the run (and
    a sweep) is refused before simulating, naming them, and nothing changes."""
    out = tmp_path / "o2"
    assert (
        simlab("run", str(QUICKSTART), "-n", "2000", "--seed", "1", "--out", str(out)).returncode
        == 0
    )
    (out / "notes.txt").write_text("x\n")
    (out / "mine").mkdir()
    (out / "mine" / "data.csv").write_text("x\n")
    for command in (["run"], ["sweep", "--vary", "Brute.guard=0:1"]):
        done = simlab(command[0], str(QUICKSTART), *command[1:], "-n", "10000000000", "--out",
                      str(out), timeout=120)  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            f"--out {out}: expected a new or empty folder, or one simlab wrote holding only its "
            f"own files; got {out / 'mine'}, {out / 'notes.txt'}, which simlab did not write "
            "there; nothing was written"
        )
        no_traceback(done)
    assert (out / "notes.txt").read_text() == "x\n"
    assert (out / "mine" / "data.csv").read_text() == "x\n"
    (out / "notes.txt").unlink()
    shutil.rmtree(out / "mine")
    assert identity_seed(out) == 1  # the run's own files are as they were
    done = simlab("run", str(QUICKSTART), "-n", "2000", "--seed", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr  # its own files alone: replaced as before
    assert identity_seed(out) == 2


def big_sparse_file(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no room on disk."""
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


NOT_RESULTS = ["/dev/zero", "FIFO", "too large"]


def not_results_file(folder: Path, kind: str) -> tuple[Path, str]:
    """A path of ``kind`` in ``folder`` (``/dev/zero`` itself) that --from and
    --baseline must refuse, and what the refusal says it got."""
    if kind == "FIFO":
        path = folder / "f.json"
        os.mkfifo(path)
    elif kind == "too large":
        path = big_sparse_file(folder / "big.json", MAX_RESULTS_BYTES + 1)
    else:
        path = Path(kind)  # read, never written: no command below writes to it
    got = {"/dev/zero": "got a device, not a regular file",
           "FIFO": "got a pipe (FIFO), not a regular file",
           "too large": f"got {MAX_RESULTS_BYTES + 1:_} bytes (the limit is "
                        f"{MAX_RESULTS_BYTES:_})"}[kind]  # fmt: skip
    return path, got


@pytest.fixture(scope="module")
def refusals_of_not_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """For each of :data:`NOT_RESULTS`: its folder, path, what its refusal says it got,
    and the four commands given it with their results and seconds, all twelve run in
    one fresh process (a hang or a read to no end fails the tests, not pytest)."""
    kinds: dict[str, Any] = {}
    for kind in NOT_RESULTS:
        folder = tmp_path_factory.mktemp("not-results")
        path, got = not_results_file(folder, kind)
        out, new = folder / "out", folder / "new.json"
        commands: list[list[object]] = [
            ["report", "--from", path, "--out", out],
            ["check", "--from", path],
            ["baseline", "update", "--from", path, "--baseline", new],
            ["report", QUICKSTART, "-n", "10000000000", "--baseline", path, "--out", out],
        ]
        kinds[kind] = {"path": path, "got": got, "out": out, "new": new, "commands": commands}
    every = [args for kind in NOT_RESULTS for args in kinds[kind]["commands"]]
    done = iter(simlab_in_one_process(every, timeout=240))
    for kind in NOT_RESULTS:
        kinds[kind]["done"] = [next(done) for _ in kinds[kind]["commands"]]
    return kinds


@pytest.mark.parametrize("kind", NOT_RESULTS)
def test_results_files_that_are_not_regular_or_too_large_are_refused_unread(
    refusals_of_not_results: dict[str, Any], kind: str
) -> None:
    """--from and --baseline read results as scenarios are read: /dev/zero, a FIFO or a
    file over the limit exit 2 at once (the first ran out of memory, the second hung)."""
    given = refusals_of_not_results[kind]
    path, out, new = given["path"], given["out"], given["new"]
    for args, (done, seconds) in zip(given["commands"], given["done"], strict=True):
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.strip() == f"{path}: expected a results.json file; {given['got']}", args
        assert seconds < 30, args
        no_traceback(done)
    assert not out.exists() and not new.exists()
