"""How long a balance report takes, its plots drawn in one process or on every core.

In one process: the scenarios (default: every example under ``scenarios/``) are
simulated once, at their own sample sizes, and their report is then written ``--rounds``
times each way, in turns (one process, every core, one process, every core, …), so that
a load from other work on the machine falls on both alike. The same for one scenario's
report (quickstart), whose few plots are drawn in one process by default; it is also
drawn on two processes forced (``drawing.PICTURES_A_PROCESS`` set to 1), which shows
what starting a process costs a small report. Every turn's files are compared with the
first's, byte for byte.

Also printed: the pickled size of the runs each drawing process is sent, and the time a
drawing process takes to start (spawned, to its first job's answer, the runs read).

Run: ``python -m bench.bench_report [--rounds R] [SCENARIO|DIR...]``.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import pickle
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from simlab import api
from simlab.report import drawing, render
from simlab.report.render import Sketch

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


@contextlib.contextmanager
def forced() -> Iterator[None]:
    """Every picture counted worth a process of its own: two processes draw any report."""
    was = drawing.PICTURES_A_PROCESS
    drawing.PICTURES_A_PROCESS = 1
    try:
        yield
    finally:
        drawing.PICTURES_A_PROCESS = was


def timed(write: Callable[[], Any]) -> tuple[float, float]:
    """Seconds ``write()`` takes: wall, and CPU of this process and those it started."""

    def cpu() -> float:
        used = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        return sum(u.ru_utime + u.ru_stime for u in used)

    start, used = time.perf_counter(), cpu()
    write()
    return time.perf_counter() - start, cpu() - used


def turns(runs: list[Any], ways: dict[str, Callable[[Path], None]], rounds: int,
          folder: Path) -> dict[str, list[tuple[float, float, float]]]:  # fmt: skip
    """Each way of writing the report of ``runs``, ``rounds`` times in turns; the seconds
    of each, wall and CPU, and the machine's load (1-minute average) after it. Every
    file written must be the bytes of the first way's."""
    seconds: dict[str, list[tuple[float, float, float]]] = {name: [] for name in ways}
    first: dict[str, bytes] | None = None
    for r in range(rounds):
        for name, write in ways.items():
            out = folder / f"{name}-{r}"
            wall, cpu = timed(lambda: write(out))  # noqa: B023 (called at once)
            seconds[name].append((wall, cpu, os.getloadavg()[0]))
            written = files(out)
            first = first or written
            assert written == first, f"{name} wrote other bytes than the first way"
    return seconds


def say(what: str, seconds: dict[str, list[tuple[float, float, float]]], pictures: int) -> None:
    print(f"{what} ({pictures} PNGs), median of {len(next(iter(seconds.values())))} turns, "
          "wall (CPU of every process), each turn's wall [the load after it]:")  # fmt: skip
    for name, times in seconds.items():
        each = ", ".join(f"{wall:.1f} [{load:.1f}]" for wall, _, load in times)
        wall, cpu = (statistics.median(t[i] for t in times) for i in (0, 1))
        print(f"  {name:<24} {wall:6.2f} s ({cpu:6.2f} s CPU)   turns: {each}")


def start_up(runs: list[Any]) -> float:
    """Seconds from asking for a drawing process to its first picture's answer: its
    start-up, then ``runs`` written for it and read at its first job, as
    ``drawing._Spread.run`` does."""
    settings = drawing.matplotlib_settings()
    folder = drawing._context_folder()
    start = time.perf_counter()
    try:
        started = (draw_nothing, folder, settings, os.getpid())
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=drawing._hold, initargs=started) as pool:  # fmt: skip
            ready = [pool.submit(drawing._ready)]
            ready[0].result()
            drawing._write_context(folder, runs, ready)
            pool.submit(drawing._draw_held, None).result()
            return time.perf_counter() - start
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def draw_nothing(job: Any, context: Any) -> None:
    """A drawing function that draws nothing: what :func:`start_up` times is the rest."""


def main() -> None:
    """Print the report's times, drawn in one process and on every core, and the cost of
    a drawing process: what it is sent and its start-up."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", default=[str(ROOT / "scenarios")])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    start = time.perf_counter()
    runs = api.run_scenarios(args.scenarios)
    simulated = time.perf_counter() - start
    quick = [api.run_scenario(QUICKSTART)]
    print(f"simulated {len(runs)} scenarios in {simulated:.1f} s (before any drawing)")

    start = time.perf_counter()
    sent = pickle.dumps(runs, protocol=pickle.HIGHEST_PROTOCOL)
    pickled = time.perf_counter() - start
    job = len(pickle.dumps(Sketch(render._damage_png, 12, ("Brute", "stone-strike"))))
    print(f"each drawing process is sent the runs: {len(sent) / 1e6:.1f} MB pickled in "
          f"{pickled * 1e3:.0f} ms; a picture's job: {job} bytes")  # fmt: skip
    print(
        "a drawing process starts in "
        + ", ".join(f"{start_up(runs):.2f}" for _ in range(3))
        + " s (spawned, matplotlib, pandas and scipy imported, runs unpickled)"
    )

    def one_process(rs: list[Any]) -> Callable[[Path], None]:
        def write(out: Path) -> None:
            api.write_report(rs, out, processes=1)

        return write

    def every_core(rs: list[Any]) -> Callable[[Path], None]:
        def write(out: Path) -> None:
            api.write_report(rs, out, processes=None)

        return write

    def two_forced(rs: list[Any]) -> Callable[[Path], None]:
        def write(out: Path) -> None:
            with forced():
                api.write_report(rs, out, processes=2)

        return write

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        whole = turns(runs, {"one process": one_process(runs), "every core": every_core(runs)},
                      args.rounds, folder / "whole")  # fmt: skip
        pngs = len(list((folder / "whole/one process-0/png").iterdir()))
        say(f"whole report of {len(runs)} scenarios, writing only", whole, pngs)
        for name, times in whole.items():
            wall = simulated + statistics.median(t[0] for t in times)
            print(f"  {name:<24} {wall:6.2f} s with the simulation: the designer's wait")
        one = turns(quick, {"one process": one_process(quick), "every core": every_core(quick),
                            "two processes, forced": two_forced(quick)},
                    args.rounds * 2, folder / "one")  # fmt: skip
        pngs = len(list((folder / "one/one process-0/png").iterdir()))
        say("one scenario's report (quickstart)", one, pngs)


if __name__ == "__main__":
    main()
