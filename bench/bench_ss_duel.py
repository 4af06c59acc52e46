"""Benchmark: the ss-duel scenario through ``simlab.simulate`` vs a plain numpy version.

Run with ``python bench/bench_ss_duel.py [n]`` from the repository root (default
``n`` = 10,000,000). The simlab kernels are compiled (or loaded from the cache) and
warmed up first; both versions then run in this process over ``n`` encounters, three
times each, alternating, and the fastest of each counts. The numpy baseline plays the
same duel vectorised over encounters: each round it rolls 2d6 for every duel still
running, looks the damage up in the profile, subtracts Guard and removes the duels whose
defender is down.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

import simlab

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "benchmarks" / "ss-duel.yaml"
EXACT_MEAN_ROUNDS = 10.1665
DEFAULT_N = 10_000_000
NUMPY_CHUNK = 1_000_000
REPEATS = 3
T = TypeVar("T")


def numpy_duel(n: int, profile: np.ndarray, hp: int, guard: int, seed: int) -> np.ndarray:
    """Play ``n`` duels with numpy; return the round in which each defender went down.

    Parameters
    ----------
    n : int
        Number of duels.
    profile : numpy.ndarray
        Damage on rows 2..12 of the attacker's one attack.
    hp, guard : int
        The defender's HP and Guard.
    seed : int
        Seed of numpy's default generator (PCG64).

    Returns
    -------
    numpy.ndarray
        int64 array of length ``n``.
    """
    gen = np.random.default_rng(seed)
    damage_by_roll = np.zeros(13, dtype=np.int64)
    damage_by_roll[2:] = np.maximum(profile - guard, 0)
    down = np.empty(n, dtype=np.int64)
    for lo in range(0, n, NUMPY_CHUNK):
        alive = np.arange(lo, min(lo + NUMPY_CHUNK, n))
        left = np.full(alive.size, hp, dtype=np.int64)
        rnd = 0
        while alive.size:
            rnd += 1
            roll = gen.integers(1, 7, size=(2, alive.size)).sum(axis=0)
            left -= damage_by_roll[roll]
            done = left <= 0
            down[alive[done]] = rnd
            alive, left = alive[~done], left[~done]
    return down


def timed(run: Callable[[], T]) -> tuple[float, T]:
    """Wall seconds one call of ``run`` takes, and its result."""
    t0 = time.perf_counter()
    result = run()
    return time.perf_counter() - t0, result


def main(argv: list[str]) -> None:
    """Time simlab and the numpy baseline; print encounters per second and the ratio.

    Each version runs ``REPEATS`` times, alternating, and its shortest time counts: the
    run least disturbed by other load on the machine.
    """
    import numba

    n = int(argv[1].replace("_", "")) if len(argv) > 1 else DEFAULT_N
    scn = simlab.load(SCENARIO)
    threads = numba.get_num_threads()
    t0 = time.perf_counter()
    simlab.simulate(scn, n=10_000, threads=threads)
    print(f"compile/load + warm-up: {time.perf_counter() - t0:.1f} s")
    print(f"threads: {threads} (numba), encounters: {n:,}, best of {REPEATS} runs each")

    attack = next(iter(scn.attacks.values()))
    defender = scn.sides["defender"][0]
    profile = np.asarray(attack.profile)
    simlab_s, numpy_s = float("inf"), float("inf")
    for _ in range(REPEATS):  # alternate, so that all see the same machine load
        seconds, result = timed(lambda: simlab.simulate(scn, n=n, threads=threads))
        simlab_s = min(simlab_s, seconds)
        seconds, down = timed(lambda: numpy_duel(n, profile, defender.hp, defender.guard, scn.seed))
        numpy_s = min(numpy_s, seconds)
    rounds = result.tallies.down_round[1]
    sim_mean = float((rounds * np.arange(rounds.size)).sum() / rounds.sum())
    np_mean = float(down.mean())

    print(f"simlab.simulate : {n / simlab_s / 1e6:8.2f} M encounters/s  "
          f"({simlab_s:.2f} s, mean time-to-down {sim_mean:.4f})")  # fmt: skip
    print(f"numpy baseline  : {n / numpy_s / 1e6:8.2f} M encounters/s  "
          f"({numpy_s:.2f} s, mean time-to-down {np_mean:.4f}, 1 thread)")  # fmt: skip
    print(f"ratio simlab/numpy: {numpy_s / simlab_s:.2f}x")
    stderr = float(down.std()) / np.sqrt(n)
    ok = abs(np_mean - EXACT_MEAN_ROUNDS) < 5 * stderr + 1e-3
    print(f"numpy mean vs exact {EXACT_MEAN_ROUNDS}: {'ok' if ok else 'OFF'} (±{stderr:.4f} s.e.)")


if __name__ == "__main__":
    main(sys.argv)
