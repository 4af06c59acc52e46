"""Benchmark: the ss-duel scenario through ``simlab.simulate`` vs a plain numpy version.

Run with ``python bench/bench_ss_duel.py [n]`` from the repository root (default
``n`` = 10,000,000). The simlab kernels are compiled (or loaded from the cache) and
warmed up first; both versions then run in this process over ``n`` encounters, three
times each, alternating, and the fastest of each counts. The numpy baseline plays the
same duel vectorised over encounters: each round it rolls 2d6 for every duel still
running, looks the damage up in the profile, subtracts Guard and removes the duels whose
defender is down.

A third line shows how far the engine could go with its random numbers: a bare numba
loop, on the same threads, that plays the same duels with simlab's own dice (the same
Philox stream and batches) and counts only the round each defender goes down. It keeps no
other tally, has no rules beyond this duel, and must find exactly the down rounds that
``simlab.simulate`` finds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

import simlab
from simlab.engine import rng
from simlab.engine.jit import kernel, parallel_kernel, prange
from simlab.engine.rng import key_from_seed

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


@kernel
def _bare_duels(k0, k1, lo, hi, damage_by_dice, hp, max_rounds, state, down):
    """Play duels ``lo .. hi-1`` with simlab's dice; count in ``down`` the round each
    defender goes down (``max_rounds + 1``: still standing at the round cap)."""
    for enc in range(lo, hi):
        rng.start_encounter(state, k0, k1, enc)
        left = hp
        last = max_rounds + 1
        for rnd in range(1, max_rounds + 1):
            left -= damage_by_dice[rng.roll_dice_code(state, rng.STREAM_ATTACK, 6, 2)]
            if left <= 0:
                last = rnd
                break
        down[last] += 1


@parallel_kernel
def bare_duels(k0, k1, n, damage_by_dice, hp, max_rounds, chunks):
    """The down-round histogram of ``n`` duels played by :func:`_bare_duels` in
    ``chunks`` parallel chunks (``k0, k1``: the key from ``rng.key_from_seed``)."""
    down = np.zeros((chunks, max_rounds + 2), dtype=np.int64)
    for ch in prange(chunks):
        state = rng.new_state()
        _bare_duels(k0, k1, n * ch // chunks, n * (ch + 1) // chunks, damage_by_dice, hp,
                    max_rounds, state, down[ch])  # fmt: skip
    return down.sum(axis=0)


def damage_by_dice(profile: np.ndarray, guard: int) -> np.ndarray:
    """Damage of each 2d6 outcome ``(d1 - 1) * 6 + (d2 - 1)``: the profile row of
    ``d1 + d2`` less Guard, at least 0 (the order of ``rng.roll_dice_code``)."""
    faces = np.arange(36)
    rows = faces // 6 + faces % 6  # row index 0..10 for rolls 2..12
    return np.maximum(profile[rows] - guard, 0).astype(np.int64)


def timed(run: Callable[[], T]) -> tuple[float, T]:
    """Wall seconds one call of ``run`` takes, and its result."""
    t0 = time.perf_counter()
    result = run()
    return time.perf_counter() - t0, result


def main(argv: list[str]) -> None:
    """Time simlab, the numpy baseline and the bare loop; print encounters per second
    and the ratios to numpy.

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
    by_dice = damage_by_dice(profile, defender.guard)
    max_rounds = scn.max_rounds
    k0, k1 = key_from_seed(scn.seed)

    def bare() -> np.ndarray:
        return bare_duels(k0, k1, n, by_dice, defender.hp, max_rounds, threads)

    bare()  # compile
    simlab_s, numpy_s, bare_s = float("inf"), float("inf"), float("inf")
    for _ in range(REPEATS):  # alternate, so that all see the same machine load
        seconds, result = timed(lambda: simlab.simulate(scn, n=n, threads=threads))
        simlab_s = min(simlab_s, seconds)
        seconds, down = timed(lambda: numpy_duel(n, profile, defender.hp, defender.guard, scn.seed))
        numpy_s = min(numpy_s, seconds)
        seconds, bare_down = timed(bare)
        bare_s = min(bare_s, seconds)
    rounds = result.tallies.down_round[1]
    sim_mean = float((rounds * np.arange(rounds.size)).sum() / rounds.sum())
    np_mean = float(down.mean())
    same = np.array_equal(bare_down[1 : max_rounds + 1], rounds[1 : max_rounds + 1])

    print(f"simlab.simulate : {n / simlab_s / 1e6:8.2f} M encounters/s  "
          f"({simlab_s:.2f} s, mean time-to-down {sim_mean:.4f})")  # fmt: skip
    print(f"numpy baseline  : {n / numpy_s / 1e6:8.2f} M encounters/s  "
          f"({numpy_s:.2f} s, mean time-to-down {np_mean:.4f}, 1 thread)")  # fmt: skip
    print(f"bare numba loop : {n / bare_s / 1e6:8.2f} M encounters/s  "
          f"({bare_s:.2f} s, {numpy_s / bare_s:.2f}x numpy; down rounds "
          f"{'identical to simlab' if same else 'DIFFERENT from simlab'})")  # fmt: skip
    print(f"ratio simlab/numpy: {numpy_s / simlab_s:.2f}x")
    stderr = float(down.std()) / np.sqrt(n)
    ok = abs(np_mean - EXACT_MEAN_ROUNDS) < 5 * stderr + 1e-3
    print(f"numpy mean vs exact {EXACT_MEAN_ROUNDS}: {'ok' if ok else 'OFF'} (±{stderr:.4f} s.e.)")


if __name__ == "__main__":
    main(sys.argv)
