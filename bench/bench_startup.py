"""Start-up figures of the command line (issue 2), measured in fresh processes.

- ``simlab --help`` wall time (target < 0.5 s: numba is imported only when simulating);
- time until a second ``simlab run`` of the same scenario starts simulating (target < 2 s:
  the compiled kernels come from numba's cache), measured as the whole run of a tiny
  ``-n`` so the simulation itself is negligible.

Run: ``python bench/bench_startup.py``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios/benchmarks/ss-duel.yaml"


def wall(*args: str) -> float:
    """Seconds one ``python -m simlab ARGS`` takes, start to exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simlab", *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    """Print the two start-up figures against their targets."""
    helps = sorted(wall("--help") for _ in range(5))
    print(f"simlab --help: median {helps[2]:.3f} s (target < 0.5 s)")
    wall("run", str(SCENARIO), "-n", "1000")  # compiles, or loads from cache
    runs = sorted(wall("run", str(SCENARIO), "-n", "1000") for _ in range(3))
    print(f"second simlab run (-n 1000, cached kernels): median {runs[1]:.3f} s (target < 2 s)")


if __name__ == "__main__":
    main()
