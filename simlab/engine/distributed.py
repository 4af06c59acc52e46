"""Running a job on a Dask cluster, for when one machine is not enough.

Each task plays one block of encounters with :func:`simlab.engine.runner.run_range` — a
plain module-level function, so workers need only simlab installed, not any jitted
object — and returns integer tallies; the client adds them up. Encounter ``i`` is keyed
by (seed, i), so a cluster run equals a local run bit for bit, whatever the number of
workers. Start workers with ``NUMBA_NUM_THREADS=1``: Dask already gives each worker
process its own core. Unless told otherwise, a run is cut into ``TASKS_PER_WORKER``
blocks per worker (at most :data:`~simlab.engine.runner.DEFAULT_BLOCK` encounters each),
so that every worker gets work and a slow one holds up the end little.

A cluster that cannot play the run ends it with an
:class:`~simlab.errors.InputError` that says what happened, never a hang: no worker
connected within :data:`WORKERS_WAIT` seconds (at the start, or after the last one
left), a scheduler or worker that runs another simlab version than the client
(:func:`refuse_other_versions`, asked at the start of every run), a task that killed
worker after worker, or the scheduler gone. The job goes to the
cluster as a task of its own rather than scattered data, so a worker that dies takes
nothing with it that the scheduler cannot make again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from typing import Any

from simlab.engine.runner import DEFAULT_BLOCK, Job, Progress, blocks, run_range
from simlab.engine.tallies import TallyArrays, merge, new_tallies
from simlab.errors import InputError

TASKS_PER_WORKER = 4
#: Seconds a run waits for a worker when the scheduler has none: at the start, or once
#: the last one has left mid-run (a nanny restarts a killed worker within seconds).
WORKERS_WAIT = 30.0
#: Seconds between looks at the workers while no task completes.
_LOOK_EVERY = 1.0


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

    Raises
    ------
    InputError
        When no worker is connected for :data:`WORKERS_WAIT` seconds (at the start or
        mid-run), a task kills worker after worker, or the scheduler is lost.
    """
    if count is None:
        count = job.n - first
    (tallies,) = run_dask_ranges(job, client, [(first, count)], block_size, progress)
    return tallies


def run_dask_ranges(
    job: Job,
    client: Any,
    ranges: Sequence[tuple[int, int]],
    block_size: int | None = None,
    progress: Progress | None = None,
) -> list[TallyArrays]:
    """The tallies of each of ``ranges`` of ``job``'s encounters, played on a Dask
    cluster: every range's blocks are sent at once, so that the workers play the ranges
    side by side (a comparison's, :func:`simlab.tuning.compare.run_ranges`).

    Parameters
    ----------
    job : Job
        The compiled scenario, seed and sample size.
    client : distributed.Client
        A connected client.
    ranges : sequence of (int, int)
        ``(first, count)`` of each range of encounters.
    block_size : int, optional
        Encounters per task at most (default: :func:`cluster_block_size` for the
        encounters of every range and the workers connected now); a range is one task
        or more. The tallies do not depend on it.
    progress : callable, optional
        Called with the encounters of each task as it completes (an increment).

    Returns
    -------
    list of TallyArrays
        One per range, in the order given; each equals a local run of that range.

    Raises
    ------
    InputError
        As :func:`run_dask`.
    """
    (tallies,) = run_dask_jobs([(job, ranges)], client, block_size, progress)
    return tallies


def run_dask_jobs(
    jobs: Sequence[tuple[Job, Sequence[tuple[int, int]]]],
    client: Any,
    block_size: int | None = None,
    progress: Progress | None = None,
) -> list[list[TallyArrays]]:
    """:func:`run_dask_ranges` of several jobs at once (a sweep's points): every job's
    blocks are sent before any is gathered, so the workers play the jobs side by side
    rather than one after another with a round trip between.

    Parameters
    ----------
    jobs : sequence of (Job, sequence of (int, int))
        Each job with the ``(first, count)`` of each of its ranges.
    client, block_size, progress
        As for :func:`run_dask_ranges` (the default block size is worked out for the
        encounters of every job's ranges).

    Returns
    -------
    list of list of TallyArrays
        For each job, one per range, in the order given; each equals a local run.
    """
    address = client.scheduler.address
    _wait_for_a_worker(client, address, "at the start of the run")
    refuse_other_versions(client, address)
    if block_size is None:
        total = sum(count for _, ranges in jobs for _, count in ranges)
        block_size = cluster_block_size(total, len(client.scheduler_info()["workers"]))
    from dask import delayed

    tasks, where = [], []
    for j, (job, ranges) in enumerate(jobs):
        job_task = delayed(_the_job, pure=False)(job)
        for k, (first, count) in enumerate(ranges):
            for lo, size in blocks(first, count, block_size):
                tasks.append(delayed(run_range, pure=False)(job_task, lo, size, 1))
                where.append((j, k, size))
    # one graph: the scheduler has every task before the first completes
    futures = dict(zip(client.compute(tasks), where, strict=True))
    totals = [[new_tallies(job.layout) for _ in ranges] for job, ranges in jobs]
    for future in _as_they_complete(client, address, futures):
        j, k, size = futures[future]
        totals[j][k] = merge(totals[j][k], _tallies_of(client, address, future))
        if progress is not None:
            progress(size)
    return totals


def version_question() -> Callable[[], str]:
    """A function that gives the version of the simlab of the process that runs it.

    A closure, which Dask's pickle sends by value where it sends a module's function by
    name: a process with any simlab can run it, even one whose
    :mod:`simlab.engine.distributed` has no such function (an older one).
    """
    return lambda: __import__("simlab").__version__


def refuse_other_versions(client: Any, address: str) -> None:
    """Refuse a cluster whose scheduler or a worker runs another simlab version than
    this process, or none: its tasks would be read by another simlab's code (or not at
    all, and dropped).

    Raises
    ------
    InputError
        ``expected simlab 0.2.0 on the Dask cluster at ADDRESS, as here; got simlab
        0.1.0 on worker tcp://…``, naming the first other version and where it runs.
    """
    mine = _version_said(version_question()())
    try:
        found = {"the scheduler": _version_said(_answer_of_scheduler(client))}
        workers = client.run(version_question(), on_error="return")
    except (OSError, CancelledError) as err:
        raise _tasks_lost(address, err) from err
    found.update({f"worker {name}": _version_said(v) for name, v in sorted(workers.items())})
    other = [(where, version) for where, version in found.items() if version != mine]
    if other:
        (where, version), *rest = other
        more = f" ({len(rest)} more of its processes: not {mine} either)" if rest else ""
        raise InputError(
            f"expected {mine} on the Dask cluster at {address}, as here; got {version} on "
            f"{where}{more}: install the same simlab on the scheduler and every worker, "
            "and restart them"
        )


def _answer_of_scheduler(client: Any) -> object:
    """:func:`version_question` run on the scheduler, or the error it gave (a scheduler
    without simlab cannot import it)."""
    try:
        return client.run_on_scheduler(version_question())
    except (OSError, CancelledError):
        raise
    except Exception as err:  # the scheduler's own error, whatever it is
        return err


def _version_said(answer: object) -> str:
    """``simlab 0.1.0``, or ``no simlab`` for an answer that is an error (a process
    without simlab cannot answer :func:`version_question`)."""
    return "no simlab" if isinstance(answer, BaseException) else f"simlab {answer}"


def _the_job(job: Job) -> Job:
    """``job`` itself: as a task, the job is made again if the worker holding it dies."""
    return job


def _as_they_complete(client: Any, address: str, futures: Any) -> Any:
    """Yield ``futures`` as they complete; while none does, see that a worker is there
    to play them (:func:`_a_worker_is_left`)."""
    from distributed import wait

    pending = set(futures)
    while pending:
        try:
            done, pending = wait(pending, timeout=_LOOK_EVERY, return_when="FIRST_COMPLETED")
        except TimeoutError:  # an OSError: caught before them
            _a_worker_is_left(client, address)
            continue
        except (OSError, CancelledError) as err:
            raise _tasks_lost(address, err) from err
        yield from done


def _wait_for_a_worker(client: Any, address: str, when: str) -> None:
    """Return once a worker is connected to the scheduler; an
    :class:`~simlab.errors.InputError` when none is within :data:`WORKERS_WAIT` s."""
    try:
        client.wait_for_workers(1, timeout=WORKERS_WAIT)
    except TimeoutError:
        raise InputError(
            f"expected a Dask worker connected to the scheduler at {address} {when}; got "
            f"none within {WORKERS_WAIT:g} s (start some: NUMBA_NUM_THREADS=1 dask worker "
            f"{address} --nworkers CORES --nthreads 1)"
        ) from None
    except (OSError, CancelledError) as err:
        raise _tasks_lost(address, err) from err


def _a_worker_is_left(client: Any, address: str) -> None:
    """Return at once while a worker is connected, else wait for one (an
    :class:`~simlab.errors.InputError` when none comes)."""
    if not client.scheduler_info()["workers"]:
        _wait_for_a_worker(client, address, "after its last worker left, mid-run")


def _tallies_of(client: Any, address: str, future: Any) -> TallyArrays:
    """The tallies a task returned; an :class:`~simlab.errors.InputError` for a task the
    cluster could not play. A completed task whose worker left before its tallies came
    is played again, so this too sees that a worker is there."""
    from distributed import KilledWorker

    while True:
        try:
            return future.result(timeout=_LOOK_EVERY)
        except TimeoutError:  # an OSError: caught before them
            _a_worker_is_left(client, address)
            continue
        except KilledWorker as err:
            raise InputError(
                f"expected the Dask workers at {address} to play the run; got a task that "
                f"killed one worker after another ({err}): out of memory, or a worker "
                "without simlab's kernels? See the workers' logs"
            ) from err
        except (OSError, CancelledError) as err:
            raise _tasks_lost(address, err) from err


def _tasks_lost(address: str, err: BaseException) -> InputError:
    """The error for tasks the cluster dropped: ``err`` says why (Dask's reason, such as
    ``scheduler-connection-lost`` or ``lost dependencies``, when it gives one)."""
    text = str(err)
    reason = re.search(r"reason: ([^.\n]+)", text)
    why = reason.group(1) if reason else (text.splitlines() or [type(err).__name__])[0]
    return InputError(
        f"expected the Dask cluster at {address} to play the run to its end; got its "
        f"tasks dropped ({why}): the scheduler stopped or the connection to it broke, or "
        "the scheduler or a worker runs another simlab version (see their logs); nothing "
        "was written"
    )
