"""Run encounters in blocks and merge their tallies — the engine's one entry point.

A run of ``n`` encounters is cut into blocks of ``block_size``; each block is played by
the rule system's block kernel (``kernels.block_kernel``: ``run_block``, or a shorter
path such as a plain duel's) in parallel chunks and returns integer tallies,
which are added up. Because encounter ``i`` draws its dice from the RNG keyed by
(seed, i, stream), neither the block size, nor the number of threads, nor the number
of cluster workers changes a single count.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from simlab.engine.tallies import Layout, TallyArrays, collapse, merge, new_tallies
from simlab.limits import whole_number_in

DEFAULT_BLOCK = 1 << 20
MAX_TRACE_ENCOUNTERS = 10_000
#: A kernel call aims to last about this long (s): Python notices Ctrl-C only between
#: calls, so this bounds how long an interrupt waits, whatever the block size.
CALL_SECONDS = 0.2
_FIRST_CALL = 1 << 12
#: Fewest encounters a chunk gets: handing a chunk to a thread costs tens of
#: microseconds, as long as some 2,000 encounters of a fast duel take.
MIN_CHUNK = 2048

Progress = Callable[[int], None]


@dataclass(frozen=True)
class Job:
    """A compiled scenario, ready to run: everything a worker needs, picklable."""

    rules: str
    params: Any
    layout: Layout
    seed: int
    n: int


def kernels(rules: str) -> Any:
    """The rule system's kernel module (imports numba on first use)."""
    from simlab.rules import rule_module

    return rule_module(rules, "kernels")


def blocks(first: int, count: int, block_size: int) -> Iterator[tuple[int, int]]:
    """(first, count) of consecutive blocks covering ``first .. first+count-1``."""
    end = first + count
    for lo in range(first, end, block_size):
        yield lo, min(block_size, end - lo)


def run_range(
    job: Job, first: int, count: int, chunks: int, block: Callable[..., None] | None = None
) -> TallyArrays:
    """Play encounters ``first .. first+count-1`` of ``job`` and return their tallies.

    ``block`` is the job's block kernel (:func:`block_kernel`), when the caller already
    has it: working it out reads the scenario in Python (which plain-duel kernel, if
    any), some 0.3 ms, which a fast duel's run of many short calls should pay once."""
    from simlab.engine.rng import key_from_seed

    k0, k1 = key_from_seed(job.seed)
    tallies = new_tallies(job.layout, chunks)
    trace = np.zeros((1, kernels(job.rules).N_TRACE), dtype=np.int64)
    n_trace = np.zeros(1, dtype=np.int64)
    block = block or block_kernel(job)
    block(job.params, k0, k1, first, count, job.n, tallies, trace, n_trace)
    return collapse(tallies)


def block_kernel(job: Job) -> Callable[..., None]:
    """The kernel that plays untraced blocks of ``job`` (its rule system's
    ``block_kernel``: a plain-duel kernel, or the general one)."""
    return kernels(job.rules).block_kernel(job.params)


def run_local(
    job: Job,
    threads: int | None = None,
    block_size: int = DEFAULT_BLOCK,
    progress: Progress | None = None,
) -> TallyArrays:
    """Run all of ``job`` on this machine, ``threads`` numba threads (default: all cores).

    A block is played in kernel calls of about :data:`CALL_SECONDS` each (their size
    adapts to the measured speed), so that an interrupt (Ctrl-C) is noticed promptly
    even with a large block; as every encounter draws from its own RNG counter, how the
    encounters are split changes no tally.

    Parameters
    ----------
    job : Job
        The compiled scenario, seed and sample size.
    threads : int, optional
        Number of threads; the result does not depend on it.
    block_size : int
        Encounters per block at most (memory); the result does not depend on it.
    progress : callable, optional
        Called with the number of encounters finished after each kernel call.
    """
    return run_local_range(job, 0, job.n, threads, block_size, progress)


def run_local_range(
    job: Job,
    first: int,
    count: int,
    threads: int | None = None,
    block_size: int = DEFAULT_BLOCK,
    progress: Progress | None = None,
) -> TallyArrays:
    """Run encounters ``first .. first+count-1`` of ``job`` on this machine, in blocks
    (see :func:`run_local`; batches are those of a run of ``job.n`` encounters)."""
    use_threads(threads)
    total = new_tallies(job.layout)
    block = block_kernel(job)
    step = _FIRST_CALL
    for lo, length in blocks(first, count, max(1, min(block_size, count))):
        done = 0
        while done < length:
            size = min(step, block_size, length - done)
            started = time.perf_counter()
            total = merge(total, run_range(job, lo + done, size, chunks_for(size), block))
            step = _next_step(step, size, time.perf_counter() - started)
            done += size
            if progress is not None:
                progress(size)
    return total


def chunks_for(size: int) -> int:
    """How many chunks of tallies a kernel call of ``size`` encounters adds into: one
    per thread, but fewer when there are under :data:`MIN_CHUNK` encounters a thread
    (``jit.chunked`` has each thread add the pieces it plays into a chunk of its own).
    The tallies do not depend on it."""
    import numba

    return max(1, min(numba.get_num_threads(), size // MIN_CHUNK))


def _next_step(step: int, size: int, seconds: float) -> int:
    """The next kernel call's size: ``size`` encounters took ``seconds``; aim at
    :data:`CALL_SECONDS`, growing ``step`` at most :data:`MAX_GROWTH`-fold and
    shrinking it at most 2-fold per call."""
    ideal = size * CALL_SECONDS / max(seconds, 1e-9)
    return max(1, int(min(max(ideal, step / 2), step * MAX_GROWTH)))


#: How many times larger a kernel call may be than the one before (:func:`_next_step`):
#: enough for the first call of :data:`_FIRST_CALL` encounters to be followed by one as
#: large as a default block. Encounters are alike, so the first call's speed holds for
#: the rest, and its fixed costs make it read slow, never fast. Each call costs some
#: 0.2 ms of Python (tallies, working arrays, handing pieces to threads), and a fast
#: duel's first call ran at a tenth of its speed: growing 4-fold a call, runs of 10**5
#: encounters of the benchmark duels took 1.16-1.34x as long, of 2 * 10**6 1.01-1.03x
#: (README, "Design notes").
MAX_GROWTH = 256


def run_trace(job: Job) -> tuple[TallyArrays, np.ndarray]:
    """Run ``job`` serially, also returning one row per attack with the raw dice."""
    from simlab.engine.rng import key_from_seed

    if job.n > MAX_TRACE_ENCOUNTERS:
        from simlab.errors import InputError

        raise InputError(
            f"expected at most {MAX_TRACE_ENCOUNTERS} encounters with trace=True; got {job.n}"
        )
    module = kernels(job.rules)
    k0, k1 = key_from_seed(job.seed)
    rows = max(2, job.n * job.layout.max_rounds * max(job.layout.attacks_per_round, 1) + 1)
    trace = np.zeros((rows, module.N_TRACE), dtype=np.int64)
    n_trace = np.zeros(1, dtype=np.int64)
    tallies = new_tallies(job.layout, 1)
    module.run_block(job.params, k0, k1, 0, job.n, job.n, tallies, trace, n_trace)
    return collapse(tallies), trace[: n_trace[0]]


def use_threads(threads: int | None) -> None:
    """Have numba run on ``threads`` threads, a whole number from 1 to
    :func:`max_threads` (all of them when None); an
    :class:`~simlab.errors.InputError` for anything else, where numba would raise its
    own error or, for 0, quietly use every core."""
    import numba

    top = max_threads()
    numba.set_num_threads(top if threads is None else whole_number_in(threads, "threads", 1, top))


def max_threads() -> int:
    """The most threads numba may use in this process (``NUMBA_NUM_THREADS``)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
