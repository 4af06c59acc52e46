"""Benchmark: every scenario under ``scenarios/`` through ``simlab.simulate``.

Run with ``python -m bench.bench_scenarios [n] [--threads T] [--rounds R] [PATH…]`` from
the repository root (default ``n`` = 200,000 encounters each, 2 threads, one round, every
``*.yaml`` under ``scenarios/``; a folder among the paths stands for every ``*.yaml``
under it; ``n``, a whole number, may stand anywhere among the paths).
Each scenario is compiled (or loaded from numba's cache) and warmed up on 1,000
encounters, then run ``REPEATS`` times; the fastest run counts (the least disturbed by
other load on a shared machine). It prints encounters per second and attacks resolved
per second (every attack made, hit or miss), against the issue-19 target of 20 M
attacks/s. With ``--rounds R`` the whole list is run ``R`` times over, and each
scenario's attacks/s summarised: its median, its range, and in how many rounds it reached
the target (``bench/rounds.py``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import simlab
from bench.rounds import add_rounds, every_round, parse_with_rounds, split_count, summary

ROOT = Path(__file__).resolve().parent.parent
REPEATS = 3
TARGET_ATTACKS = 20e6
DEFAULT_N = 200_000


def bench(path: Path, n: int, threads: int) -> tuple[float, float]:
    """Best (encounters/s, attacks/s) of ``REPEATS`` runs of the scenario at ``path``."""
    scn = simlab.load(path)
    simlab.simulate(scn, n=1_000, threads=threads)
    return best_speeds(scn, n, threads, REPEATS)


def best_speeds(scenario: Any, n: int, threads: int, repeats: int) -> tuple[float, float]:
    """(encounters/s, attacks/s) of the fastest of ``repeats`` runs of ``n`` encounters
    of a scenario already compiled (or loaded) and warmed up."""
    best = float("inf")
    attacks = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = simlab.simulate(scenario, n=n, threads=threads)
        best = min(best, time.perf_counter() - t0)
        attacks = int(result.tallies.attempts.sum())
    return n / best, attacks / best


def scenarios_in(path: Path) -> list[Path]:
    """The scenario at ``path``, or every ``*.yaml`` under it when it is a folder."""
    return sorted(path.rglob("*.yaml")) if path.is_dir() else [path]


def main() -> None:
    """Print one line per scenario and how many reach the target, ``--rounds`` times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("given", nargs="*", metavar="[n] [PATH ...]",
                        help=f"encounters each (default {DEFAULT_N:,}), then scenarios or "
                             "folders (default: scenarios/)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=2)
    add_rounds(parser, "the whole list")
    args = parse_with_rounds(parser)
    n, given = split_count(args.given, DEFAULT_N)
    folders = [Path(g) for g in given] or [ROOT / "scenarios"]
    paths = [path for folder in folders for path in scenarios_in(folder)]
    print(f"{n:,} encounters each, {args.threads} threads, best of {REPEATS}")
    speeds: dict[str, list[float]] = {shown_path(path): [] for path in paths}
    for r in range(args.rounds):
        if args.rounds > 1:
            print(f"round {r + 1} of {args.rounds}")
        met = 0
        for path in paths:
            per_s, attacks_per_s = bench(path, n, args.threads)
            ok = attacks_per_s >= TARGET_ATTACKS
            met += ok
            name = shown_path(path)
            speeds[name].append(attacks_per_s)
            print(f"{name:<58} {per_s / 1e6:8.3f} M enc/s {attacks_per_s / 1e6:8.2f} M "
                  f"attacks/s  {'ok' if ok else 'below 20 M'}")  # fmt: skip
        print(f"{met}/{len(paths)} scenarios at >= {TARGET_ATTACKS / 1e6:.0f} M attacks/s")
    if args.rounds > 1:
        print(f"M attacks/s over {args.rounds} rounds (target {TARGET_ATTACKS / 1e6:.0f} M)")
        for name, each in speeds.items():
            print(summary(name, each, TARGET_ATTACKS, lambda speed: f"{speed / 1e6:7.2f}"))
        print(f"{every_round(speeds, TARGET_ATTACKS)}/{len(paths)} scenarios at >= "
              f"{TARGET_ATTACKS / 1e6:.0f} M attacks/s in every round")  # fmt: skip


def shown_path(path: Path) -> str:
    """``path`` as printed: relative to the repository when it lies inside it."""
    full = path.resolve()
    return (full.relative_to(ROOT) if full.is_relative_to(ROOT) else full).as_posix()


if __name__ == "__main__":
    main()
