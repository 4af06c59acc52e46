"""Start-up figures of the command line (issues 2 and 19), measured in fresh processes.

- ``simlab --help`` (target < 0.5 s: numba is imported only when simulating);
- ``simlab validate`` of a scenario (target <= 0.5 s: no pandas, scipy or numba);
- a second ``simlab run`` of the same scenario, tables printed (target <= 1.5 s: the
  compiled kernels come from numba's cache), measured as the whole run of a tiny ``-n``
  so the simulation itself is negligible;
- the tuning commands on the benchmark 2v2 fight, as cached runs too: ``simlab compare``
  of a ``--set``, a 5-point ``simlab sweep`` and a ``simlab tune``, each at ``-n 1000``
  (no target of their own: for comparison with ``run``; they print tables, not pages).

Each is run ``REPEATS`` times; the median wall time counts, and the CPU time (user +
system) of the same runs is printed beside it: on a machine shared with other work the
wall time grows with the load, the CPU time much less.

Run: ``python bench/bench_startup.py``.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios/benchmarks/ss-duel.yaml"
FIGHT = str(ROOT / "scenarios/benchmarks/ss-2v2.yaml")
TUNING = {
    "compare": ("compare", FIGHT, "--set", "Kaito.hp=30"),
    "sweep": ("sweep", FIGHT, "--vary", "Kaito.hp=20:24"),
    "tune": ("tune", FIGHT, "--vary", "Kaito.hp=5:60", "--target", "win_rate:party=0.5"),
}
REPEATS = 5


def wall_and_cpu(*args: str) -> tuple[float, float]:
    """Seconds one ``python -m simlab ARGS`` takes, start to exit: wall and CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simlab", *args], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def median_figure(label: str, target: float | None, *args: str) -> None:
    """Print the median wall and CPU time of ``REPEATS`` runs against ``target``."""
    runs = sorted(wall_and_cpu(*args) for _ in range(REPEATS))
    wall, cpu = runs[REPEATS // 2]
    verdict = "(no target)" if target is None else (
        f"(target <= {target} s) {'PASS' if wall <= target else 'FAIL'}")  # fmt: skip
    print(f"{label:<48} median {wall:6.3f} s wall, {cpu:6.3f} s CPU {verdict}")


def main() -> None:
    """Print the three start-up figures against their targets, then the tuning
    commands'."""
    median_figure("simlab --help", 0.5, "--help")
    median_figure("simlab validate", 0.5, "validate", str(SCENARIO))
    wall_and_cpu("run", str(SCENARIO), "-n", "1000")  # compiles, or loads from cache
    median_figure("second simlab run (-n 1000, cached kernels)", 1.5,
                  "run", str(SCENARIO), "-n", "1000")  # fmt: skip
    wall_and_cpu("run", FIGHT, "-n", "1000")
    for name, args in TUNING.items():
        median_figure(f"simlab {name} (-n 1000, cached kernels)", None, *args, "-n", "1000")


if __name__ == "__main__":
    main()
