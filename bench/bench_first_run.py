"""The first run of each rule system: compile and run with an empty numba cache (issue 19).

Run: ``python -m bench.bench_first_run [--rounds R] [SYSTEM…]`` from the repository root.

For each system, ``simlab run`` of its largest example (``-n 1000``, results to a
temporary folder) in a fresh process, one system after the other sharing one numba cache
that starts empty, as a new user's first session would. It prints the wall and CPU time
(user + system) of each run and of all five, against the targets: at most 20 s for any
single system, at most 60 s for all five. With ``--rounds R`` the whole sequence is
repeated R times, each time from an empty cache, and every round is printed: this
machine's speed varies about 2x over the day, so compare rounds, not single figures.

With ``--every``, each scenario under ``scenarios/`` instead gets a first run of its own,
each from an empty cache, against the 20 s target for any single example.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LARGEST_EXAMPLE = {
    "opposed-tiers": "scenarios/opposed-tiers/party-fight.yaml",
    "zones-3d6": "scenarios/zones-3d6/skirmish.yaml",
    "shattered-spirits-draft1": "scenarios/shattered-spirits-draft1/techniques-3v3.yaml",
    "glitters-d20": "scenarios/glitters-d20/party-vs-monsters.yaml",
    "shattered-spirits": "scenarios/shattered-spirits/party-3v3.yaml",
}
TARGET_ONE, TARGET_ALL = 20.0, 60.0


def first_run(scenario: str, cache: str, out: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``simlab run SCENARIO -n 1000`` with numba cache ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simlab", "run", str(ROOT / scenario), "-n", "1000",
                    "--out", out], check=True, capture_output=True, env=env)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def one_round(systems: list[str]) -> float:
    """Run every system's first run from one empty cache; print and return the total wall."""
    total_wall = total_cpu = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for system in systems:
            wall, cpu = first_run(LARGEST_EXAMPLE[system], f"{tmp}/cache", f"{tmp}/{system}")
            total_wall, total_cpu = total_wall + wall, total_cpu + cpu
            verdict = "PASS" if wall <= TARGET_ONE else "FAIL"
            print(f"{system:<26} {wall:6.1f} s wall {cpu:6.1f} s CPU  "
                  f"(<= {TARGET_ONE:.0f} s) {verdict}", flush=True)  # fmt: skip
    verdict = "PASS" if total_wall <= TARGET_ALL else "FAIL"
    print(f"{'all of them':<26} {total_wall:6.1f} s wall {total_cpu:6.1f} s CPU  "
          f"(<= {TARGET_ALL:.0f} s) {verdict}", flush=True)  # fmt: skip
    return total_wall


def every_example() -> None:
    """Print the first run of every scenario under ``scenarios/``, each from an empty
    cache, against the single-example target."""
    slowest = 0.0
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        with tempfile.TemporaryDirectory() as tmp:
            wall, cpu = first_run(str(path.relative_to(ROOT)), f"{tmp}/cache", f"{tmp}/out")
        slowest = max(slowest, wall)
        verdict = "PASS" if wall <= TARGET_ONE else "FAIL"
        print(f"{path.relative_to(ROOT / 'scenarios')!s:<52} {wall:6.1f} s wall "
              f"{cpu:6.1f} s CPU  {verdict}", flush=True)  # fmt: skip
    verdict = "PASS" if slowest <= TARGET_ONE else "FAIL"
    print(f"{'the slowest':<52} {slowest:6.1f} s wall (<= {TARGET_ONE:.0f} s) {verdict}")


def main() -> None:
    """Print the first-run figures of the chosen systems (all five by default), or of
    every example (``--every``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("systems", nargs="*", help=f"any of {', '.join(LARGEST_EXAMPLE)}")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--every", action="store_true",
                        help="a first run of each scenario under scenarios/, alone")  # fmt: skip
    args = parser.parse_args()
    if args.every:
        every_example()
        return
    unknown = set(args.systems) - set(LARGEST_EXAMPLE)
    if unknown:
        parser.error(f"unknown system {', '.join(sorted(unknown))}")
    systems = args.systems or list(LARGEST_EXAMPLE)
    for r in range(args.rounds):
        print(f"-- round {r + 1} (empty numba cache)")
        one_round(systems)


if __name__ == "__main__":
    main()
