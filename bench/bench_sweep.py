"""Benchmark: a 21-point sweep against 21 separate warm runs of the same points.

Run with ``python bench/bench_sweep.py [n]`` from the repository root (default ``n`` =
100,000 encounters a point). The scenario is ``scenarios/benchmarks/ss-2v2.yaml``, a 2v2
fight under the later draft (both sides attack, so every point takes the general path);
the sweep varies the Brutes' HP over 21 values. The kernels are compiled (or loaded from
the cache) and warmed up first. Then, alternating, ``REPEATS`` times each: the 21 points
as separate ``simlab.simulate`` calls (only the time inside ``simulate`` counts: the
simulation time of 21 warm runs), and one ``simlab.sweep`` call over the same 21 points
without the exact engine (the whole call counts: building and validating the 21
scenarios, compiling their jobs, running). Printed: the shortest time of each, their
ratio, and the median of the ratios of each alternating pair (the machine may be shared:
both are noisy). The target: the sweep costs at most 10% more. The script also times
building and validating the 21 points alone (the sweep's own work), checks that the
sweep compiled no new kernel signature, and times the default sweep (the exact engine
asked at every point) once, for information, and then writing its outputs
(``simlab.write_sweep``: ``sweep.json``, the Parquet tables, the page and its pictures),
each part on its own, as ``simlab sweep --out`` does after the run.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import simlab
from simlab.engine import runner
from simlab.scenario.common import ScenarioBase
from simlab.tuning.sweep import SweepResult, sweep_points

FIGHT = Path(__file__).resolve().parent.parent / "scenarios" / "benchmarks" / "ss-2v2.yaml"
FIELD = "Brute.hp"
VALUES = range(20, 41)  # 21 points
DEFAULT_N = 100_000
REPEATS = 5


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


def writing(sweep: SweepResult) -> None:
    """Print the seconds each part of writing ``sweep``'s outputs takes, in the order
    ``write_sweep`` makes them (its tables are made by the first part that needs them,
    then reused), and the whole of ``write_sweep`` on a fresh copy of the same sweep."""
    from simlab.report.tuning import render_sweep, sweep_tables

    parts = {"sweep.json document": sweep.document, "Parquet tables": lambda: sweep_tables(sweep)}
    with tempfile.TemporaryDirectory() as tmp:
        parts["page and pictures"] = lambda: render_sweep(sweep, tmp)
        for name, part in parts.items():
            t0 = time.perf_counter()
            part()
            print(f"  {name + ':':<22} {time.perf_counter() - t0:6.3f} s")
        fresh = SweepResult(sweep.scenario, sweep.rules, sweep.seed, sweep.encounters,
                            sweep.vary, sweep.points)  # fmt: skip
        t0 = time.perf_counter()
        simlab.write_sweep(fresh, f"{tmp}/out")
        print(f"  {'write_sweep, whole:':<22} {time.perf_counter() - t0:6.3f} s")


def main(argv: list[str]) -> None:
    """Time both ways; print the shortest of each, their ratios and the recompile check."""
    n = int(argv[1]) if len(argv) > 1 else DEFAULT_N
    scn = simlab.load(FIGHT)
    simlab.simulate(scn, 10_000)  # compile or load the kernels, warm up
    kernel = runner.kernels(scn.rules).run_chunk
    signatures = len(kernel.signatures)
    separate, swept = [], []
    for _ in range(REPEATS):
        separate.append(separate_runs(scn, n))
        swept.append(one_sweep(scn, n))
    with_exact = one_sweep(scn, n, exact=True)
    t0 = time.perf_counter()
    sweep_points(scn, {FIELD: VALUES})
    building = time.perf_counter() - t0
    ratio = min(swept) / min(separate)
    paired = statistics.median(s / p for s, p in zip(swept, separate, strict=True))
    print(f"{len(VALUES)} points x {n:,} encounters ({scn.scenario}, {FIELD})")
    print(f"separate warm runs (simulate only): {min(separate):.3f} s  (all: "
          f"{', '.join(f'{t:.3f}' for t in separate)})")  # fmt: skip
    print(f"one sweep, no exact:                {min(swept):.3f} s  (all: "
          f"{', '.join(f'{t:.3f}' for t in swept)})")  # fmt: skip
    print(f"sweep / separate: shortest {ratio:.3f}, median of pairs {paired:.3f} "
          f"(target <= 1.10)")  # fmt: skip
    print(f"building and validating the 21 points alone: {building:.3f} s")
    print(f"one sweep with the exact engine:    {with_exact:.3f} s")
    new = len(kernel.signatures) - signatures
    print(f"new kernel signatures compiled during the sweeps: {new}")
    print("writing the sweep with the exact engine's answers (simlab sweep --out):")
    writing(simlab.sweep(scn, {FIELD: VALUES}, n))


if __name__ == "__main__":
    main(sys.argv)
