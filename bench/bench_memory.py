"""Benchmark: peak memory of ``simlab.simulate`` on ss-duel at 10**5 and 10**7 encounters.

Run with ``python bench/bench_memory.py`` from the repository root. Each size runs in
its own fresh subprocess, which reports its peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``, KiB on Linux) once the run is done; a
warm-up run of 1,000 encounters is included in both, so both pay the same import and
compile cost. Tallies are histograms, so the peak should not grow with the number of
encounters.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "benchmarks" / "ss-duel.yaml"
SIZES = (10**5, 10**7)

_CHILD = """
import resource, sys
import simlab
scn = simlab.load(sys.argv[1])
simlab.simulate(scn, n=1000)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
simlab.simulate(scn, n=int(sys.argv[2]))
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_kib(n: int) -> tuple[int, int]:
    """Peak RSS (KiB) of a fresh process after warm-up and after simulating ``n``.

    Parameters
    ----------
    n : int
        Number of encounters.

    Returns
    -------
    tuple of int
        (peak after the warm-up, peak after the run).
    """
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(SCENARIO), str(n)],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    return int(out[-2]), int(out[-1])


def main() -> None:
    """Print the peak memory of each size and their ratio."""
    peaks = {}
    for n in SIZES:
        warm, peak = peak_kib(n)
        peaks[n] = peak
        print(
            f"n = {n:>12,}: peak RSS {peak / 1024:8.1f} MiB (after warm-up {warm / 1024:.1f} MiB)"
        )
    small, large = peaks[SIZES[0]], peaks[SIZES[1]]
    print(f"ratio peak(10^7) / peak(10^5): {large / small:.3f} "
          f"for {SIZES[1] // SIZES[0]}x the encounters")  # fmt: skip


if __name__ == "__main__":
    main()
