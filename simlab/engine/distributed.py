"""Running a job on a Dask cluster, for when one machine is not enough.

Each task plays one block of encounters with :func:`simlab.engine.runner.run_range` — a
plain module-level function, so workers need only simlab installed, not any jitted
object — and returns integer tallies; the client adds them up. Encounter ``i`` is keyed
by (seed, i), so a cluster run equals a local run bit for bit, whatever the number of
workers. Start workers with ``NUMBA_NUM_THREADS=1``: Dask already gives each worker
process its own core. Unless told otherwise, a run is cut into ``TASKS_PER_WORKER``
blocks per worker (at most :data:`~simlab.engine.runner.DEFAULT_BLOCK` encounters each),
so that every worker gets work and a slow one holds up the end little.
"""

from __future__ import annotations

from typing import Any

from simlab.engine.runner import DEFAULT_BLOCK, Job, Progress, blocks, run_range
from simlab.engine.tallies import TallyArrays, merge, new_tallies

TASKS_PER_WORKER = 4


def cluster_block_size(n: int, workers: int) -> int:
    """Encounters per task that give each of ``workers`` about ``TASKS_PER_WORKER`` tasks.

    Parameters
    ----------
    n : int
        Encounters in the run.
    workers : int
        Workers connected to the scheduler (at least 1 is assumed).
    """
    tasks = TASKS_PER_WORKER * max(workers, 1)
    return max(1, min(DEFAULT_BLOCK, -(-n // tasks)))


def run_dask(
    job: Job,
    client: Any,
    block_size: int | None = None,
    progress: Progress | None = None,
    first: int = 0,
    count: int | None = None,
) -> TallyArrays:
    """Run ``job`` on a ``dask.distributed.Client``, one task per block.

    Parameters
    ----------
    job : Job
        The compiled scenario, seed and sample size.
    client : distributed.Client
        A connected client (``Client("tcp://scheduler:8786")`` or a ``LocalCluster``).
    block_size : int, optional
        Encounters per task (default: :func:`cluster_block_size` for the workers
        connected now). The result does not depend on it.
    progress : callable, optional
        Called with the encounters of each task as it completes (an increment).
    first, count : int, optional
        Run only encounters ``first .. first+count-1`` (default: all of them).
    """
    from distributed import as_completed

    if count is None:
        count = job.n - first
    if block_size is None:
        block_size = cluster_block_size(count, len(client.scheduler_info()["workers"]))
    job_future = client.scatter(job, broadcast=True)
    futures = {
        client.submit(run_range, job_future, lo, size, 1, pure=False): size
        for lo, size in blocks(first, count, block_size)
    }
    total = new_tallies(job.layout)
    for future in as_completed(futures):
        total = merge(total, future.result())
        if progress is not None:
            progress(futures[future])
    return total
