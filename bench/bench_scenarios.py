"""Benchmark: every scenario under ``scenarios/`` through ``simlab.simulate``.

Run with ``python -m bench.bench_scenarios [n] [--threads T] [PATH…]`` from the
repository root (default ``n`` = 200,000 encounters each, 2 threads, every ``*.yaml``
under ``scenarios/``; a folder among the paths stands for every ``*.yaml`` under it;
``n``, a whole number, may stand anywhere among the paths).
Each scenario is compiled (or loaded from numba's cache) and warmed up on 1,000
encounters, then run ``REPEATS`` times; the fastest run counts (the least disturbed by
other load on a shared machine). It prints encounters per second and attacks resolved
per second (every attack made, hit or miss), against the issue-19 target of 20 M
attacks/s.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import simlab

ROOT = Path(__file__).resolve().parent.parent
REPEATS = 3
TARGET_ATTACKS = 20e6
DEFAULT_N = 200_000


def bench(path: Path, n: int, threads: int) -> tuple[float, float]:
    """Best (encounters/s, attacks/s) of ``REPEATS`` runs of the scenario at ``path``."""
    scn = simlab.load(path)
    simlab.simulate(scn, n=1_000, threads=threads)
    best = float("inf")
    attacks = 0
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        result = simlab.simulate(scn, n=n, threads=threads)
        best = min(best, time.perf_counter() - t0)
        attacks = int(result.tallies.attempts.sum())
    return n / best, attacks / best


def scenarios_in(path: Path) -> list[Path]:
    """The scenario at ``path``, or every ``*.yaml`` under it when it is a folder."""
    return sorted(path.rglob("*.yaml")) if path.is_dir() else [path]


def count_and_paths(given: list[str]) -> tuple[int, list[Path]]:
    """The encounters per scenario and the paths from the positional arguments: a whole
    number among them (``200_000`` allowed), wherever it stands, is the count, the rest
    are paths."""
    counts = [int(g) for g in given if g.replace("_", "").isdigit()]
    paths = [Path(g) for g in given if not g.replace("_", "").isdigit()]
    return (counts[-1] if counts else DEFAULT_N), paths


def main() -> None:
    """Print one line per scenario and how many reach the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("given", nargs="*", metavar="[n] [PATH ...]",
                        help=f"encounters each (default {DEFAULT_N:,}), then scenarios or "
                             "folders (default: scenarios/)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_intermixed_args()  # --threads anywhere
    n, given = count_and_paths(args.given)
    paths = [path for folder in given or [ROOT / "scenarios"] for path in scenarios_in(folder)]
    print(f"{n:,} encounters each, {args.threads} threads, best of {REPEATS}")
    met = 0
    for path in paths:
        per_s, attacks_per_s = bench(path, n, args.threads)
        ok = attacks_per_s >= TARGET_ATTACKS
        met += ok
        full = path.resolve()
        name = (full.relative_to(ROOT) if full.is_relative_to(ROOT) else full).as_posix()
        print(f"{name:<58} {per_s / 1e6:8.3f} M enc/s {attacks_per_s / 1e6:8.2f} M attacks/s"
              f"  {'ok' if ok else 'below 20 M'}")  # fmt: skip
    print(f"{met}/{len(paths)} scenarios at >= {TARGET_ATTACKS / 1e6:.0f} M attacks/s")


if __name__ == "__main__":
    main()
