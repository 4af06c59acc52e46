"""Benchmark: d6 rolls per second from simlab's Philox RNG vs numpy's PCG64.

Run with ``python -m bench.bench_rng [n_rolls]`` from the repository root. Everything is
single-threaded; each timing is the best of a few repeats after a warm-up call (which
also compiles the kernels).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import kernel

ROLLS_PER_ENCOUNTER = 20
REPEATS = 3


@kernel
def _roll_one_stream(k0, k1, n):
    """Roll ``n`` d6 from one long stream of one encounter; returns their sum."""
    state = rng.new_state()
    rng.start_encounter(state, k0, k1, 0)
    total = 0
    for _ in range(n):
        total += rng.roll_die(state, rng.STREAM_ATTACK, 6)
    return total


@kernel
def _roll_encounters(k0, k1, n_encounters, per_encounter):
    """Start ``n_encounters`` encounters and roll ``per_encounter`` d6 in each."""
    state = rng.new_state()
    total = 0
    for e in range(n_encounters):
        rng.start_encounter(state, k0, k1, e)
        for _ in range(per_encounter):
            total += rng.roll_die(state, rng.STREAM_ATTACK, 6)
    return total


def _best_time(fn: Callable[[], object]) -> float:
    """Return the best wall time of ``REPEATS`` calls of ``fn``.

    Parameters
    ----------
    fn : callable
        Work to time, called without arguments.

    Returns
    -------
    float
        Seconds.
    """
    fn()
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(n: int = 20_000_000) -> None:
    """Time ``n`` d6 rolls three ways and print rolls/s and the ratios to numpy.

    Parameters
    ----------
    n : int
        Number of d6 rolls per timing.
    """
    k0, k1 = rng.key_from_seed(12345)
    n_enc = n // ROLLS_PER_ENCOUNTER
    gen = np.random.Generator(np.random.PCG64(12345))
    t_numpy = _best_time(lambda: gen.integers(1, 7, size=n))
    t_stream = _best_time(lambda: _roll_one_stream(k0, k1, n))
    t_enc = _best_time(lambda: _roll_encounters(k0, k1, n_enc, ROLLS_PER_ENCOUNTER))
    numpy_rate = n / t_numpy
    print(f"numpy Generator(PCG64).integers(1, 7, size={n}): {numpy_rate / 1e6:8.1f} M d6/s")
    for label, t in [
        ("simlab roll_die, one stream", t_stream),
        (f"simlab roll_die, {ROLLS_PER_ENCOUNTER} per encounter", t_enc),
    ]:
        rate = n / t
        print(f"{label:45s}: {rate / 1e6:8.1f} M d6/s  (ratio to numpy {rate / numpy_rate:.2f})")
    print(f"=> {n / t_enc / ROLLS_PER_ENCOUNTER / 1e6:.1f} M encounters/s/core on dice alone")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000_000)
