"""Benchmark: a 21-point sweep against 21 separate warm runs of the same points.

Run with ``python bench/bench_sweep.py [n]`` from the repository root (default ``n`` =
100,000 encounters a point). The scenario is a 2v2 fight under the later draft (both
sides attack, so every point takes the general path); the sweep varies the enemies' HP
over 21 values. The kernels are compiled (or loaded from the cache) and warmed up first.
Then, alternating, three times each: the 21 points as separate ``simlab.simulate`` calls
(only the time inside ``simulate`` counts: the simulation time of 21 warm runs), and
one ``simlab.sweep`` call over the same 21 points without the exact engine (the whole
call counts: building and validating the 21 scenarios, compiling their jobs, running).
The shortest time of each counts. The target: the sweep costs at most 10% more. The
script also checks that the sweep compiled no new kernel signature, and times the
default sweep (with the exact engine asked at every point) once, for information.
"""

from __future__ import annotations

import sys
import time

import simlab
from simlab.engine import runner
from simlab.scenario.common import ScenarioBase

FIGHT = """
scenario: bench-2v2
rules: shattered-spirits
seed: 3
max_rounds: 30
attacks:
  stone-strike:
    profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]
    status: {8: [staggered]}
  quick-jab:
    profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]
    modifier: 1
sides:
  party:
    - {name: Kaito, hp: 24, guard: 1, speed: 2, attacks: [quick-jab], attacks_per_turn: 2}
    - {name: Mira, hp: 20, speed: 4, attacks: [quick-jab], attacks_per_turn: 2}
  enemies:
    - {name: Brute, count: 2, hp: 30, guard: 1, speed: 5, attacks: [stone-strike]}
"""
FIELD = "Brute.hp"
VALUES = range(20, 41)  # 21 points
DEFAULT_N = 100_000
REPEATS = 3


def separate_runs(scn: ScenarioBase, n: int) -> float:
    """Seconds spent inside ``simulate`` over the 21 points run one by one."""
    spent = 0.0
    for value in VALUES:
        variant = scn.with_({FIELD: value})
        t0 = time.perf_counter()
        simlab.simulate(variant, n)
        spent += time.perf_counter() - t0
    return spent


def one_sweep(scn: ScenarioBase, n: int, exact: bool = False) -> float:
    """Seconds one ``simlab.sweep`` call over the 21 points takes, start to end."""
    t0 = time.perf_counter()
    simlab.sweep(scn, {FIELD: VALUES}, n, exact=exact)
    return time.perf_counter() - t0


def main(argv: list[str]) -> None:
    """Time both ways; print the shortest of each, their ratio and the recompile check."""
    n = int(argv[1]) if len(argv) > 1 else DEFAULT_N
    scn = simlab.loads(FIGHT)
    simlab.simulate(scn, 10_000)  # compile or load the kernels, warm up
    kernel = runner.kernels(scn.rules).run_block
    signatures = len(kernel.signatures)
    separate, swept = [], []
    for _ in range(REPEATS):
        separate.append(separate_runs(scn, n))
        swept.append(one_sweep(scn, n))
    with_exact = one_sweep(scn, n, exact=True)
    ratio = min(swept) / min(separate)
    print(f"{len(VALUES)} points x {n:,} encounters ({scn.scenario}, {FIELD})")
    print(f"separate warm runs (simulate only): {min(separate):.3f} s  (all: "
          f"{', '.join(f'{t:.3f}' for t in separate)})")  # fmt: skip
    print(f"one sweep, no exact:                {min(swept):.3f} s  (all: "
          f"{', '.join(f'{t:.3f}' for t in swept)})")  # fmt: skip
    print(f"sweep / separate = {ratio:.3f}  (target <= 1.10): {'ok' if ratio <= 1.10 else 'MISSED'}")
    print(f"one sweep with the exact engine:    {with_exact:.3f} s")
    new = len(kernel.signatures) - signatures
    print(f"new kernel signatures compiled during the sweeps: {new}")


if __name__ == "__main__":
    main(sys.argv)
