"""A report's plots drawn on several cores (``simlab.report.drawing``): the bytes drawn
in one process, its error when a picture fails, no process started for a small report,
a Ctrl-C that stops the drawing, every process of it, at once, and a SIGTERM or a
``kill -9`` that leaves no process or temporary folder behind."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from click.testing import CliRunner

from simlab import api
from simlab.cli import Terminated, _terminated, main
from simlab.errors import InputError
from simlab.report import drawing
from simlab.report.render import render_report
from simlab.report.results import ScenarioRun, save_results
from tests.report import drawing_jobs
from tests.support import SIMLAB_WITH_CTRL_C

# Slow tier (make test-slow): draws reports' pictures in parallel processes.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


@pytest.fixture(scope="module")
def quick() -> ScenarioRun:
    return api.run_scenario(QUICKSTART, n=2000, seed=5)


@pytest.fixture
def every_picture_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process for every picture: two processes draw any report of two pictures."""
    monkeypatch.setattr(drawing, "PICTURES_A_PROCESS", 1)


def test_a_report_drawn_on_two_processes_is_the_bytes_drawn_in_one(
    quick: ScenarioRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every_picture_pays: None
) -> None:
    # Matplotlib set otherwise than by default, as a notebook's style or inline backend
    # does: the spawned process draws with the settings of this one.
    monkeypatch.setitem(matplotlib.rcParams, "figure.facecolor", "#f4f1e8")
    monkeypatch.setitem(matplotlib.rcParams, "lines.linewidth", 2.5)
    render_report([quick], tmp_path / "one")
    # Drawn slowly here until the spawned process has drawn a picture, so that it draws
    # some of them however slowly it starts.
    marker = tmp_path / "drawn-there"
    real = drawing.draw_all

    def paced(jobs: Any, draw: Any, context: Any, processes: Any, started: Any = None) -> Any:
        assert draw.__name__ == "draw_sketch"
        return real(jobs, drawing_jobs.paced_sketch, (context, str(marker)), processes, started)

    monkeypatch.setattr(drawing, "draw_all", paced)
    render_report([quick], tmp_path / "two", processes=2)
    assert marker.exists()  # a spawned process drew a picture
    one, two = files(tmp_path / "one"), files(tmp_path / "two")
    assert sum(name.endswith(".png") for name in one) >= 5
    assert one == two  # every PNG (its metadata too), report.html and report.md


def test_pictures_are_shared_with_a_spawned_process_and_come_back_in_order(
    tmp_path: Path, every_picture_pays: None
) -> None:
    told: list[int] = []
    jobs = list(range(100))
    drawn = drawing.draw_all(jobs, drawing_jobs.square_and_pid, str(tmp_path / "m"), 2,
                             told.append)  # fmt: skip
    assert [value for value, _ in drawn] == [k**2 for k in jobs]
    assert {pid for _, pid in drawn} - {os.getpid()}  # some drawn by another process
    assert told == jobs  # each job told as it is taken, in order


def test_an_error_in_a_drawing_process_is_the_error_drawing_alone_gives(
    tmp_path: Path, every_picture_pays: None, capfd: pytest.CaptureFixture[str]
) -> None:
    marker = str(tmp_path / "first-drawn-there")
    with pytest.raises(InputError) as there:
        drawing.draw_all(list(range(100)), drawing_jobs.fails_where_first_drawn_there, marker, 2)
    assert Path(marker).exists()  # the spawned process drew the bad job first
    with pytest.raises(InputError) as alone:
        drawing.draw_all(list(range(100)), drawing_jobs.fails_where_first_drawn_there, marker, 1)
    assert type(there.value) is type(alone.value)
    assert str(there.value) == str(alone.value)
    assert str(there.value).startswith("bad.yaml:3:7: expected a job other than")
    assert "Traceback" not in capfd.readouterr().err  # the spawned process printed none


def test_jobs_of_a_process_that_died_are_drawn_here(
    tmp_path: Path, every_picture_pays: None
) -> None:
    marker = tmp_path / "died"
    drawn = drawing.draw_all(list(range(100)), drawing_jobs.dies_there, str(marker), 2)
    assert marker.exists()  # the spawned process took a job, and died
    assert drawn == [k**2 for k in range(100)]


def test_processes_start_only_for_pictures_enough_to_pay_for_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pools: list[int] = []
    real = drawing.ProcessPoolExecutor

    def counted(helpers: int, **options: Any) -> Any:
        pools.append(helpers)
        return real(helpers, **options)

    monkeypatch.setattr(drawing, "ProcessPoolExecutor", counted)
    few = 2 * drawing.PICTURES_A_PROCESS - 1  # more than a report of one scenario has
    assert drawing.draw_all(list(range(few)), drawing_jobs.square, 1, 2) == [
        k**2 + 1 for k in range(few)
    ]
    assert pools == []
    drawing.draw_all(list(range(few + 1)), drawing_jobs.square, 1, 1)  # one process allowed
    assert pools == []
    drawn = drawing.draw_all(list(range(few + 1)), drawing_jobs.square, 1, 8)
    assert drawn == [k**2 + 1 for k in range(few + 1)]
    assert pools == [1]  # this process and one other: two processes' worth of pictures


@pytest.mark.parametrize(
    ("processes", "said"),
    [(0, "expected processes from 1 to"), (2.5, "expected processes as a whole number"),
     (True, "expected processes as a whole number"), (10**6, "expected processes from 1 to")],
)  # fmt: skip
def test_write_report_refuses_a_process_count_it_cannot_use(
    quick: ScenarioRun, tmp_path: Path, processes: Any, said: str
) -> None:
    with pytest.raises(InputError, match=said):
        api.write_report([quick], tmp_path / "r", processes=processes)
    assert not (tmp_path / "r").exists()


def test_report_draws_on_as_many_processes_as_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int | None] = []
    real = drawing.draw_all

    def spy(jobs: Any, draw: Any, context: Any, processes: Any, started: Any = None) -> Any:
        asked.append(processes)
        return real(jobs, draw, context, processes, started)

    monkeypatch.setattr(drawing, "draw_all", spy)
    for threads in (["--threads", "1"], []):
        done = CliRunner().invoke(main, ["report", str(QUICKSTART), "-n", "500", *threads,
                                         "--out", str(tmp_path / f"r{len(threads)}")])  # fmt: skip
        assert done.exit_code == 0, done.output
    assert asked == [1, None]  # None: as many as numba may use, as a run's threads
    asked.clear()  # saved results are drawn as the run would draw them
    done = CliRunner().invoke(main, ["report", "--from", str(tmp_path / "r0"), "--threads",
                                     "1", "--out", str(tmp_path / "again")])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert asked == [1]
    done = CliRunner().invoke(main, ["report", "--from", str(tmp_path / "r0"), "--threads",
                                     "0", "--out", str(tmp_path / "none")])  # fmt: skip
    assert done.exit_code == 2 and "--threads: expected a thread count from 1 to" in done.output


@pytest.mark.parametrize("processes", [1, 2])
def test_a_ctrl_c_in_a_callback_still_stops_the_drawing(
    processes: int, every_picture_pays: None, capfd: pytest.CaptureFixture[str]
) -> None:
    """Python's own handler raised KeyboardInterrupt where the Ctrl-C came: in a weak
    reference's callback (matplotlib's clean-up of a figure), Python printed "Exception
    ignored" and dropped it, and the report went on to its end and was written."""
    drawn: list[int] = []
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        with pytest.raises(KeyboardInterrupt):
            drawing.draw_all(list(range(10)), drawing_jobs.ctrl_c_in_a_callback_at_3, drawn,
                             processes)  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    assert drawn == [0, 1, 2, 3]  # stopped after the picture the Ctrl-C came in
    assert signal.getsignal(signal.SIGINT) is previous
    assert "Exception ignored" not in capfd.readouterr().err


@pytest.mark.parametrize("processes", [1, 2])
def test_a_sigterm_in_a_callback_still_stops_the_drawing(
    processes: int, every_picture_pays: None, capfd: pytest.CaptureFixture[str]
) -> None:
    """As a Ctrl-C: the command's SIGTERM handler raised where the signal came, in a
    weak reference's callback, where Python dropped it and the report went on."""
    drawn: list[int] = []
    previous = signal.signal(signal.SIGTERM, _terminated)  # as the command sets it
    try:
        with pytest.raises(Terminated):
            drawing.draw_all(list(range(10)), drawing_jobs.sigterm_in_a_callback_at_3, drawn,
                             processes)  # fmt: skip
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert drawn == [0, 1, 2, 3]
    assert "Exception ignored" not in capfd.readouterr().err


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results of a report of four scenarios: some 40 pictures, 10-20 s to draw."""
    runs = api.run_scenarios([str(ROOT / "scenarios/shattered-spirits")], n=2000, seed=3)
    results = tmp_path_factory.mktemp("four") / "results.json"
    save_results(runs, results)
    return results


@pytest.mark.parametrize(
    ("number", "moment"),
    [(signal.SIGTERM, "drawing"), (signal.SIGKILL, "drawing"), (signal.SIGKILL, "starting")],
    ids=["TERM", "KILL", "KILL-starting"],
)
def test_a_report_stopped_while_drawing_leaves_no_process_or_temporary_folder(
    number: int, moment: str, four_runs: Path, tmp_path: Path
) -> None:
    """A CI job cancelled sends SIGTERM (then SIGKILL): the drawing process and
    multiprocessing's resource tracker stayed alive for ever, reparented, and the
    temporary folder of the runs (some MB) stayed in the temp dir. Stopped while the
    other process draws (the folder written), or the moment it is spawned, before it
    watches for its parent's end (drawing._write_context)."""
    temp = tmp_path / "temp"
    temp.mkdir()
    reader, writer = os.pipe()
    child = subprocess.Popen([sys.executable, "-m", "simlab", "report", "--from",
                              str(four_runs), "--threads", "2", "--out", str(tmp_path / "out")],
                             stdout=writer, stderr=writer, cwd=tmp_path,
                             env={**os.environ, "TMPDIR": str(temp)})  # fmt: skip
    os.close(writer)
    helpers: list[int] = []
    try:
        seen = _read_until(reader, b"drawing 1/", 60)
        end = time.monotonic() + 30
        while not _at(moment, child.pid, temp) and time.monotonic() < end:
            time.sleep(0.01)
        helpers = _children(child.pid)
        assert _at(moment, child.pid, temp)
        child.send_signal(number)
        child.wait(timeout=10)
        seen += _read_until(reader, None, 5)
        # A drawing process still importing when its parent died looks for it only once
        # it has started (drawing._end_with_parent): 2-3 s idle, past 5 s on a machine
        # loaded several times over. What is checked is that none stays for ever.
        end = time.monotonic() + 30
        while (any(map(_alive, helpers)) or any(temp.iterdir())) and time.monotonic() < end:
            time.sleep(0.05)
        assert not [pid for pid in helpers if _alive(pid)]
        assert not list(temp.iterdir())
    finally:
        os.close(reader)
        if child.poll() is None:
            child.kill()
        for pid in helpers:  # left by a failure: ended here, not left to run
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    assert not (tmp_path / "out").exists()
    if number == signal.SIGTERM:
        assert child.returncode == 143
        message = "stopped (SIGTERM); every output folder is as it was or complete, never a mix"
        assert seen.decode().splitlines()[-1] == message
        assert sorted(p.name for p in tmp_path.iterdir()) == ["temp"]  # nothing staged left


@pytest.mark.slow  # a report of four scenarios in a fresh process: about 6 s
def test_ctrl_c_while_a_drawing_process_starts_stops_them_all_at_once(tmp_path: Path) -> None:
    runs = api.run_scenarios([str(ROOT / "scenarios/shattered-spirits")], n=2000, seed=3)
    save_results(runs, tmp_path / "results.json")
    leader, follower = pty.openpty()
    child = subprocess.Popen([*SIMLAB_WITH_CTRL_C, "report", "--from",
                              str(tmp_path / "results.json"), "--out", str(tmp_path / "out")],
                             stdout=follower, stderr=follower, cwd=tmp_path,
                             start_new_session=True)  # fmt: skip
    os.close(follower)
    seen = b""
    try:
        # At the first scenario the other process is starting (importing matplotlib,
        # pandas and scipy: 1.5-3 s); a Ctrl-C then neither waits for it nor lets it
        # print a traceback of its interrupted imports.
        seen = _read_until(leader, b"drawing 1/", 120)
        time.sleep(0.3)
        helpers = _spawned_children(child.pid)
        assert helpers  # the report draws on two processes
        sent = time.monotonic()
        os.killpg(child.pid, signal.SIGINT)  # Ctrl-C: to every process of the terminal's group
        child.wait(timeout=30)
        waited = time.monotonic() - sent
        seen += _read_until(leader, None, 5)
    finally:
        os.close(leader)
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, seen
    assert b"interrupted" in seen and b"Traceback" not in seen
    assert waited < 2.0
    assert not any(_alive(pid) for pid in helpers)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]  # nothing staged left


@pytest.mark.slow  # the script runs twice, once in the drawing process it starts: ~15 s
def test_a_script_without_a_main_guard_still_writes_its_report(tmp_path: Path) -> None:
    """A script calling ``write_report(processes=2)`` at its top level, with no ``if
    __name__ == "__main__":``: its drawing process runs the script again and dies of it
    before reading what it was started with. This process wrote the runs (some MB) into
    that process's pipe and waited forever (killed after 120 s, before the runs went by
    a file); now it sees the process gone and draws every picture itself."""
    script = tmp_path / "noguard.py"
    script.write_text(
        "import simlab\n"
        f"runs = simlab.run_scenarios([{str(ROOT / 'scenarios/zones-3d6')!r}], n=2000)\n"
        "simlab.write_report(runs, 'out', processes=2)\n"
        "print('done')\n"
    )  # fmt: skip
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "done"
    assert "bootstrapping phase" in done.stderr  # Python's own word on the missing guard
    assert (tmp_path / "out/report.html").is_file()


def _read_until(leader: int, word: bytes | None, seconds: float) -> bytes:
    """What the terminal shows until ``word`` (None: until it closes)."""
    seen, end = b"", time.monotonic() + seconds
    while word is None or word not in seen:
        left = end - time.monotonic()
        if left <= 0:
            assert word is None, f"no {word!r} on the terminal: {seen[-300:]!r}"
            return seen
        if select.select([leader], [], [], left)[0]:
            try:
                got = os.read(leader, 65536)
            except OSError:  # closed: every process that held it has exited
                return seen
            if not got:
                return seen
            seen += got
    return seen


def _spawned_children(pid: int) -> list[int]:
    """The drawing processes ``pid`` spawned (multiprocessing's ``spawn_main``)."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == pid and b"spawn_main" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


def _children(pid: int) -> list[int]:
    """Every process ``pid`` started: its drawing processes and multiprocessing's
    resource tracker."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _at(moment: str, pid: int, temp: Path) -> bool:
    """Whether the report of process ``pid`` is at ``moment``: a drawing process spawned
    ("starting"), or drawing with the runs' temporary folder written ("drawing")."""
    if not _spawned_children(pid):
        return False
    return moment == "starting" or any(temp.iterdir())


def _alive(pid: int) -> bool:
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return False
