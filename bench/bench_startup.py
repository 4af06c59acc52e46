"""Start-up figures of the command line (issues 2 and 19), measured in fresh processes.

- ``simlab --help`` (target < 0.5 s: numba is imported only when simulating);
- ``simlab validate`` of a scenario (target <= 0.5 s: no pandas, scipy or numba);
- a second ``simlab run`` of the same scenario, tables printed (target <= 1.5 s: the
  compiled kernels come from numba's cache), measured as the whole run of a tiny ``-n``
  so the simulation itself is negligible.

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
REPEATS = 5


def wall_and_cpu(*args: str) -> tuple[float, float]:
    """Seconds one ``python -m simlab ARGS`` takes, start to exit: wall and CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simlab", *args], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def median_figure(label: str, target: float, *args: str) -> None:
    """Print the median wall and CPU time of ``REPEATS`` runs against ``target``."""
    runs = sorted(wall_and_cpu(*args) for _ in range(REPEATS))
    wall, cpu = runs[REPEATS // 2]
    verdict = "PASS" if wall <= target else "FAIL"
    print(f"{label:<48} median {wall:6.3f} s wall, {cpu:6.3f} s CPU "
          f"(target <= {target} s) {verdict}")  # fmt: skip


def main() -> None:
    """Print the three start-up figures against their targets."""
    median_figure("simlab --help", 0.5, "--help")
    median_figure("simlab validate", 0.5, "validate", str(SCENARIO))
    wall_and_cpu("run", str(SCENARIO), "-n", "1000")  # compiles, or loads from cache
    median_figure("second simlab run (-n 1000, cached kernels)", 1.5,
                  "run", str(SCENARIO), "-n", "1000")  # fmt: skip


if __name__ == "__main__":
    main()
