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
left), a scheduler or worker that runs another simlab version than the client, or
none, or a worker with other kernel sources (:func:`refuse_other_versions`, asked at
the start of every run), a task that killed worker after worker, or the scheduler
gone. The job goes to the
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
#: What a process says of its simlab: version, kernel digest, Python (:func:`version_question`).
Answer = tuple[str | None, str | None, str | None]


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


def refuse_impossible_address(address: str) -> None:
    """Refuse at once a TCP scheduler address that no scheduler can have: a port outside
    1-65535 (``tcp://host:99999``) or an IPv4 address with a number above 255. Dask
    would try it until its connection timeout, as an address nobody answers at.

    An address Dask cannot read (no port: ``127.0.0.1``; a scheme it has no transport
    for: ``http://``) is refused in Dask's words, before the command says it connects.

    Raises
    ------
    InputError
        ``expected --scheduler as a Dask scheduler's address such as tcp://host:8786;
        got 'tcp://127.0.0.1:99999' (port 99999: a port is 1 to 65535)``.
    """
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, where = parse_address(address)
        get_backend(scheme)  # a scheme Dask has no transport for (http://)
        if scheme not in ("tcp", "tls"):
            return
        host, port = parse_host_port(where)  # no port (127.0.0.1)
    except (ValueError, TypeError) as err:
        raise _not_an_address(address, str(err)) from None
    numbers = host.split(".")
    if not 1 <= port <= 65535:
        why = f"port {port}: a port is 1 to 65535"
    elif len(numbers) == 4 and all(n.isdigit() for n in numbers) and max(map(int, numbers)) > 255:
        why = f"host {host}: each number of an IPv4 address is 0 to 255"
    else:
        why = None
    if why:
        raise _not_an_address(address, why)


def _not_an_address(address: str, why: str) -> InputError:
    """The refusal of an ``address`` no scheduler can have, for the reason ``why``."""
    return InputError(
        "expected --scheduler as a Dask scheduler's address such as tcp://host:8786; "
        f"got {address!r} ({why})"
    )


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
                where.append((j, k, lo, size))
    # one graph: the scheduler has every task before the first completes
    futures = dict(zip(client.compute(tasks), where, strict=True))
    totals = [[new_tallies(job.layout) for _ in ranges] for job, ranges in jobs]
    for future in _as_they_complete(client, address, futures):
        j, k, lo, size = futures[future]
        tallies = _tallies_of(client, address, future, jobs[j][0], lo, size)
        totals[j][k] = merge(totals[j][k], tallies)
        if progress is not None:
            progress(size)
    return totals


def version_question() -> Callable[[bool], Answer]:
    """A function that says which simlab the process that runs it has, and where.

    Called with ``kernels=True`` it gives the digest of its kernel sources too (the name
    :func:`simlab.engine.jit.kernel_cache_dir` gives their numba cache, which imports
    numba: asked of the workers, which play the kernels, not of the scheduler). It
    returns ``(version, digest, python)``: ``None`` for what that process has not (no
    simlab, or one without the digest), and the Python it runs, for the message.

    A closure, which Dask's pickle sends by value where it sends a module's function by
    name: a process with any simlab, or none, can run it, even one whose
    :mod:`simlab.engine.distributed` has no such function (an older one).
    """

    def ask(kernels: bool = False) -> Answer:
        import os
        import sys

        try:
            simlab = __import__("simlab")
        except ImportError:
            return None, None, sys.executable
        digest = None
        if kernels:
            try:
                from simlab.engine.jit import kernel_cache_dir

                digest = os.path.basename(kernel_cache_dir())
            except Exception:  # an older simlab, without the digest: other code
                digest = None
        return str(simlab.__version__), digest, sys.executable

    return ask


def refuse_other_versions(client: Any, address: str) -> None:
    """Refuse a cluster whose scheduler runs another simlab version than this process,
    or a worker another version or other kernel sources, or either none: its tasks would
    be read by another simlab's code (or not at all, and dropped), and played by other
    kernels, whose tallies may differ.

    Raises
    ------
    InputError
        ``expected simlab 0.2.0 on the Dask cluster at ADDRESS, as here; got simlab
        0.1.0 on worker tcp://…``, naming the first other simlab and where it runs, and
        what to install there.
    """
    mine = version_question()(True)
    try:
        found = {"the scheduler": _answer_of_scheduler(client)}
        workers = client.run(version_question(), True, on_error="return")
    except (OSError, CancelledError) as err:
        raise _tasks_lost(address, err) from err
    found.update({f"worker {name}": _answer(v) for name, v in sorted(workers.items())})
    other = [(where, theirs) for where, theirs in found.items() if _other(where, theirs, mine)]
    if other:
        (where, theirs), *rest = other
        same_version = theirs[0] == mine[0]
        expected, got = _said(mine, same_version), _said(theirs, same_version)
        more = f" ({len(rest)} more of its processes: not {expected} either)" if rest else ""
        raise InputError(
            f"expected {expected} on the Dask cluster at {address}, as here; got {got} on "
            f"{where}{more}: {_what_to_install(mine, theirs)}"
        )


def _other(where: str, theirs: Answer, mine: Answer) -> bool:
    """Whether the process at ``where`` runs another simlab than ``mine``: another
    version, or on a worker other kernel sources (the scheduler plays no kernel)."""
    if where == "the scheduler":
        return theirs[0] != mine[0]
    return theirs[:2] != mine[:2]


def _answer_of_scheduler(client: Any) -> Answer:
    """:func:`version_question` run on the scheduler (a scheduler whose Python cannot
    run it at all counts as one without simlab)."""
    try:
        return _answer(client.run_on_scheduler(version_question()))
    except (OSError, CancelledError):
        raise
    except Exception as err:  # the scheduler's own error, whatever it is
        return _answer(err)


def _answer(answer: object) -> Answer:
    """A process's :data:`Answer`, or one of no simlab for an error it gave instead."""
    if isinstance(answer, tuple):
        return answer
    return None, None, None


def _said(answer: Answer, with_kernels: bool) -> str:
    """``simlab 0.1.0``, with its kernel sources' digest when ``with_kernels``, or ``no
    simlab``."""
    version, digest, _ = answer
    if version is None:
        return "no simlab"
    if not with_kernels:
        return f"simlab {version}"
    return f"simlab {version} with kernel sources {digest or 'of an older simlab'}"


def _what_to_install(mine: Answer, theirs: Answer) -> str:
    """The end of the message of a process with another simlab than ``mine``, or none."""
    if theirs[0] is None:
        python = theirs[2] or "python"
        return (
            f"install simlab {mine[0]} into the Python that runs it ({python}, on its "
            f'machine): {python} -m pip install "simlab[dask] @ git+<your clone\'s URL>" '
            '(or pip install -e ".[dask]" in a clone there), then restart it'
        )
    if theirs[0] == mine[0]:
        return (
            "the same version number over other kernel code, whose tallies may differ: "
            "install the same simlab commit on the scheduler and every worker, and "
            "restart them"
        )
    return "install the same simlab on the scheduler and every worker, and restart them"


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


def _tallies_of(
    client: Any, address: str, future: Any, job: Job, first: int, size: int
) -> TallyArrays:
    """The tallies a task returned (of ``size`` of ``job``'s encounters from ``first``);
    an :class:`~simlab.errors.InputError` for a task the cluster could not play. A
    completed task whose worker left before its tallies came is played again, so this
    too sees that a worker is there."""
    from distributed import KilledWorker

    while True:
        try:
            return future.result(timeout=_LOOK_EVERY)
        except TimeoutError:  # an OSError: caught before them
            _a_worker_is_left(client, address)
            continue
        except KilledWorker as err:
            raise _worker_killed(address, job, first, size, err) from err
        except (OSError, CancelledError) as err:
            raise _tasks_lost(address, err) from err


def _worker_killed(address: str, job: Job, first: int, size: int, err: Any) -> InputError:
    """The error for a task whose worker died each time it was played (Dask's
    ``KilledWorker``, ``err``): which encounters of which scenario, what to look at."""
    sides = " v ".join(job.layout.sides)
    last_one = first + size - 1
    encounters = f"encounter {first:,}" if size == 1 else f"encounters {first:,} to {last_one:,}"
    last = getattr(err, "last_worker", None)
    tries = getattr(err, "allowed_failures", None)
    deaths = tries + 1 if isinstance(tries, int) else None
    times = "once" if deaths == 1 else f"{deaths} times" if deaths else "again and again"
    at = f", last {getattr(last, 'address', last)}" if last else ""
    return InputError(
        f"expected the Dask workers at {address} to play {encounters} (seed {job.seed}) of "
        f"the {job.rules} scenario of {sides}; got "
        f"the worker playing them dead {times}{at}: a worker process died mid-task, most "
        "often out of memory (see the workers' logs, the machine's for the OOM killer, "
        "and dask worker --memory-limit) or a crash of its Python or numba (run the "
        "scenario without --scheduler on that machine); nothing was written"
    )


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
