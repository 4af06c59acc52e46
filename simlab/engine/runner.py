"""Run encounters and add up their tallies — the engine's one entry point.

A run of ``n`` encounters is played by the rule system's block kernel
(``kernels.block_kernel``: ``run_block``, or a shorter path such as a plain duel's) on
threads, in pieces of at most ``block_size`` encounters (``simlab.engine.pieces``), and
returns integer tallies; on a Dask cluster each block of ``block_size`` encounters is a
task, and the blocks' tallies are added up. Because encounter ``i`` draws its dice from
the RNG keyed by (seed, i, stream), neither the block size, nor the number of threads,
nor the number of cluster workers changes a single count.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from simlab.engine.pieces import Pace
from simlab.engine.tallies import Layout, TallyArrays, collapse, new_tallies
from simlab.limits import whole_number_in

DEFAULT_BLOCK = 1 << 20
MAX_TRACE_ENCOUNTERS = 10_000
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
    job: Job,
    first: int,
    count: int,
    chunks: int,
    block: Callable[..., None] | None = None,
    pace: Pace | None = None,
    largest: int | None = None,
    progress: Progress | None = None,
) -> TallyArrays:
    """Play encounters ``first .. first+count-1`` of ``job`` and return their tallies.

    Parameters
    ----------
    job : Job
        The compiled scenario, seed and sample size.
    first, count : int
        The encounters.
    chunks : int
        Chunks of tallies the threads add into (:func:`chunks_for`); at most one thread
        a chunk.
    block : callable, optional
        The job's block kernel (:func:`block_kernel`), when the caller already has it:
        working it out reads the scenario in Python (which plain-duel kernel, if any),
        which a run of several ranges should do once.
    pace : Pace, optional
        The job's speed, learned from the pieces played before (a run of several
        ranges shares one); a new one when None.
    largest : int, optional
        The most encounters a kernel call plays (default: all ``count``).
    progress : callable, optional
        Called with the encounters played since its last call, as the run goes.
    """
    from simlab.engine.rng import key_from_seed

    k0, k1 = key_from_seed(job.seed)
    tallies = new_tallies(job.layout, chunks)
    trace = np.zeros((1, kernels(job.rules).N_TRACE), dtype=np.int64)
    n_trace = np.zeros(1, dtype=np.int64)
    block = block or block_kernel(job)
    block(job.params, k0, k1, first, count, job.n, tallies, trace, n_trace,
          pace=pace, largest=largest, progress=progress)  # fmt: skip
    return collapse(tallies)


#: Set to ``1`` to play every run on its rule system's traced kernel (``run_block``,
#: the one the roll-by-roll checks replay), whatever the scenario: untraced, it plays
#: the same encounters into the same tallies as the untraced and plain-duel kernels
#: (``tests/engine/test_determinism.py``, ``tests/rules/test_duel_paths.py``), only
#: slower, and it is one compile a rule system instead of up to six. ``make test`` sets
#: it, so that a fresh clone's fast tier compiles 5 kernels, not 22; ``make test-slow``
#: runs the checks of simulated figures against the exact engine (marked ``kernels``)
#: again with it unset (README, "Quick start").
ONE_KERNEL_VARIABLE = "SIMLAB_ONE_KERNEL"


def block_kernel(job: Job) -> Callable[..., None]:
    """The kernel that plays untraced blocks of ``job``: its rule system's
    ``block_kernel`` (a plain-duel kernel, or the untraced general one), or its traced
    ``run_block`` when :data:`ONE_KERNEL_VARIABLE` is ``1``."""
    rule_kernels = kernels(job.rules)
    if os.environ.get(ONE_KERNEL_VARIABLE) == "1":
        return rule_kernels.run_block
    return rule_kernels.block_kernel(job.params)


def run_local(
    job: Job,
    threads: int | None = None,
    block_size: int = DEFAULT_BLOCK,
    progress: Progress | None = None,
) -> TallyArrays:
    """Run all of ``job`` on this machine, ``threads`` numba threads (default: all cores).

    The threads take pieces of the run as they come free, none of more than
    ``block_size`` encounters, each sized to last at most
    :data:`~simlab.engine.pieces.PIECE_SECONDS` from the speed of the pieces before
    (``simlab.engine.pieces``), so that an interrupt (Ctrl-C) is noticed promptly; as
    every encounter draws from its own RNG counter, how the encounters are split
    changes no tally.

    Parameters
    ----------
    job : Job
        The compiled scenario, seed and sample size.
    threads : int, optional
        Number of threads; the result does not depend on it.
    block_size : int
        Encounters a kernel call plays at most; the result does not depend on it.
    progress : callable, optional
        Called with the encounters played since its last call, after each piece the
        calling thread plays.
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
    """Run encounters ``first .. first+count-1`` of ``job`` on this machine (see
    :func:`run_local`; batches are those of a run of ``job.n`` encounters)."""
    use_threads(threads)
    return run_range(job, first, count, chunks_for(count), largest=max(1, block_size),
                     progress=progress)  # fmt: skip


def chunks_for(size: int) -> int:
    """How many chunks of tallies a kernel call of ``size`` encounters adds into: one
    per thread, but fewer when there are under :data:`MIN_CHUNK` encounters a thread
    (``jit.chunked`` has each thread add the pieces it plays into a chunk of its own).
    The tallies do not depend on it."""
    import numba

    return max(1, min(numba.get_num_threads(), size // MIN_CHUNK))


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
