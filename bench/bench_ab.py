"""Benchmark: two versions of simlab on the same scenarios, A-B-B-A, for a speed-up.

Run with ``python -m bench.bench_ab A B SCENARIO… [-n N] [--rounds R] [--threads T]
[--cpus LIST]`` from the repository root. ``A`` and ``B`` are folders that each hold a
checkout of simlab (``git worktree add ../before <commit>`` makes one); each scenario is
timed through ``simlab.simulate`` in two long-lived worker processes, one importing each
version, which take turns A, B, B, A for ``R`` rounds (default 8) of ``N`` encounters
(default 100,000) on ``T`` threads (default 1), pinned to the cores ``LIST`` when given
(default: the first core for one thread, all cores otherwise). For each scenario it
prints both versions' median encounters per second and A's speed over B's, the median
over the rounds of B's time over A's (above 1: A is faster), with the rounds' range.

Why this way: the machine's speed moves from minute to minute, and its two cores do not
run at one speed at the same moment, so two versions run once each, or side by side one
on each core, differ by 10-40% for no reason of their own. Turns of a fraction of a second
in the same processes, on the same cores, in A-B-B-A order (which cancels a steady drift
within a round), leave a few percent of noise; a speed-up is only taken as real when it
holds in more than one session.

Each timing worker loads its kernels from numba's cache: a first worker of each version
compiles them, when they are not cached yet, and is closed before the timing worker
starts. A kernel compiled in the process that runs it ran up to 3% slower than the same
kernel loaded from the cache: ``knight-vs-skeleton``, the same code as B under a new
cache folder, timed 0.968x and 0.972x while A compiled in its worker, 1.001x and 1.000x
once A's kernels were cached (December 2, forty-fourth session).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import IO

#: The worker: imports the simlab of its working folder (and says which), loads one
#: scenario, compiles and warms up, then times one run of ``n`` encounters for each line
#: it reads.
WORKER = """
import os, sys, time
sys.path.insert(0, os.getcwd())
import simlab
print(simlab.__file__, flush=True)
path, n, threads, cpus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
if cpus:
    os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
scenario = simlab.load(path)
simlab.simulate(scenario, n=min(n, 5_000), threads=threads)
print("ready", flush=True)
for _ in sys.stdin:
    start = time.perf_counter()
    simlab.simulate(scenario, n=n, threads=threads)
    print(time.perf_counter() - start, flush=True)
"""


class Worker:
    """One version's worker process, timing one scenario on demand."""

    def __init__(self, folder: Path, scenario: Path, n: int, threads: int, cpus: str) -> None:
        self.folder = folder
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(scenario), str(n), str(threads), cpus],
            cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        imported = Path(self._read()).resolve()
        if folder.resolve() not in imported.parents:
            self.process.kill()
            self.process.wait()
            raise SystemExit(f"expected {folder} to hold simlab; its worker imported {imported}")
        self._read()  # compiled (or loaded) and warmed up

    @classmethod
    def from_cache(cls, folder: Path, scenario: Path, n: int, threads: int, cpus: str) -> Worker:
        """A worker whose kernels are loaded from numba's cache: a first worker compiles
        them (or finds them cached) and is closed (the module docstring says why)."""
        cls(folder, scenario, n, threads, cpus).close()
        return cls(folder, scenario, n, threads, cpus)

    def _read(self) -> str:
        out: IO[str] | None = self.process.stdout
        line = out.readline() if out is not None else ""
        if not line:
            raise SystemExit(f"the worker in {self.folder} stopped; see its error above")
        return line.strip()

    def time_run(self) -> float:
        """Seconds of one run of the scenario."""
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        return float(self._read())

    def close(self) -> None:
        """End the worker."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def compare(a: Worker, b: Worker, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """Times of A and of B, and each round's time of B over A's (A's speed over B's),
    over ``rounds`` A-B-B-A rounds."""
    times_a: list[float] = []
    times_b: list[float] = []
    ratios: list[float] = []
    for _ in range(rounds):
        a1, b1, b2, a2 = a.time_run(), b.time_run(), b.time_run(), a.time_run()
        times_a += [a1, a2]
        times_b += [b1, b2]
        ratios.append((b1 + b2) / (a1 + a2))
    return times_a, times_b, ratios


def default_cpus(threads: int) -> str:
    """The cores to pin both workers to: the first one for one thread, else all."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if not cores:
        return ""
    return ",".join(str(c) for c in (cores[:1] if threads == 1 else cores))


def main() -> None:
    """Compare the two versions on every scenario named."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="folder of version A")
    parser.add_argument("b", type=Path, help="folder of version B")
    parser.add_argument("scenarios", nargs="+", type=Path)
    parser.add_argument("-n", type=int, default=100_000, help="encounters a run")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cpus", default=None, help="cores to pin to, e.g. 0,1")
    args = parser.parse_args()
    cpus = default_cpus(args.threads) if args.cpus is None else args.cpus
    print(f"{args.n:,} encounters a run, {args.threads} thread(s), cores {cpus or 'any'}, "
          f"{args.rounds} A-B-B-A rounds")  # fmt: skip
    print("A, B: thousands of encounters a second, the median of the rounds")
    print("A/B: A's speed over B's, above 1 when A is faster (the rounds' range)")
    width = max(len(scenario.name) for scenario in args.scenarios)
    for scenario in args.scenarios:
        path = scenario.resolve()
        a = Worker.from_cache(args.a, path, args.n, args.threads, cpus)
        b = Worker.from_cache(args.b, path, args.n, args.threads, cpus)
        try:
            times_a, times_b, ratios = compare(a, b, args.rounds)
        finally:
            a.close()
            b.close()
        speed_a = args.n / statistics.median(times_a) / 1e3
        speed_b = args.n / statistics.median(times_b) / 1e3
        ratio, low, high = statistics.median(ratios), min(ratios), max(ratios)
        print(f"{scenario.name:<{width}}  A {speed_a:7.0f}  B {speed_b:7.0f}  "
              f"A/B {ratio:.3f} ({low:.3f}-{high:.3f})")  # fmt: skip


if __name__ == "__main__":
    main()
