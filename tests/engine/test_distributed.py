"""A run on a Dask cluster equals the local run bit for bit."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import simlab
from tests.engine.cluster import dask_distributed

# Slow tier (make test-slow): starts Dask clusters of worker processes.
pytestmark = pytest.mark.slow

distributed = dask_distributed()

ROOT = Path(__file__).resolve().parents[2]


def test_cluster_run_equals_local_run(client) -> None:  # type: ignore[no-untyped-def]
    scn = simlab.load(ROOT / "scenarios/shattered-spirits/party-3v3.yaml")
    local = simlab.simulate(scn, n=9_000, seed=21, threads=1)
    remote = simlab.simulate(scn, n=9_000, seed=21, client=client, block_size=2_000)
    for a, b in zip(local.tallies, remote.tallies, strict=True):
        assert np.array_equal(a, b)


def test_cluster_precision_stop_equals_local(client) -> None:  # type: ignore[no-untyped-def]
    """A run to a precision stops at the same count on a cluster as on one thread."""
    scn = simlab.load(ROOT / "scenarios/benchmarks/ss-2v2.yaml")
    local = simlab.simulate(scn, n=64_000, seed=3, threads=1, precision=0.02)
    remote = simlab.simulate(scn, n=64_000, seed=3, client=client, block_size=5_000,
                             precision=0.02)  # fmt: skip
    assert local.encounters == remote.encounters < 64_000
    assert local.meta == remote.meta
    for a, b in zip(local.tallies, remote.tallies, strict=True):
        assert np.array_equal(a, b)


def test_default_block_size_spreads_a_run_over_every_worker(client) -> None:  # type: ignore[no-untyped-def]
    """A 10**6-encounter run is cut into several tasks by default, and both workers of
    the cluster play some of them."""
    from distributed import get_task_stream

    scn = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    simlab.simulate(scn, n=1_000, client=client)  # each worker loads the kernels first
    with get_task_stream(client) as stream:
        remote = simlab.simulate(scn, n=1_000_000, client=client)
    workers = {task["worker"] for task in stream.data if "run_range" in task["key"]}
    assert len(workers) == 2
    assert int(remote.tallies.rounds.sum()) == 1_000_000


def test_cluster_block_size() -> None:
    from simlab.engine.distributed import TASKS_PER_WORKER, cluster_block_size
    from simlab.engine.runner import DEFAULT_BLOCK

    assert cluster_block_size(1_000_000, 2) == 1_000_000 // (2 * TASKS_PER_WORKER)
    assert cluster_block_size(10**9, 2) == DEFAULT_BLOCK
    assert cluster_block_size(3, 8) == 1
    assert cluster_block_size(1_000, 0) == 1_000 // TASKS_PER_WORKER


def test_run_command_plays_on_the_scheduler_it_is_given(client) -> None:  # type: ignore[no-untyped-def]
    """``simlab run --scheduler ADDRESS`` (README, "Command line") prints the tables a
    local run of the same seed prints."""
    from click.testing import CliRunner, Result
    from distributed import get_task_stream

    from simlab.cli import main

    def run(*extra: str) -> Result:
        args = ["run", str(ROOT / "scenarios/shattered-spirits/quickstart.yaml"), "-n", "4000",
                "--seed", "5"]  # fmt: skip
        return CliRunner().invoke(main, [*args, *extra])

    with get_task_stream(client) as stream:
        remote = run("--scheduler", client.scheduler.address)
    local = run()
    assert remote.exit_code == local.exit_code == 0, remote.output + local.output
    assert any("run_range" in task["key"] for task in stream.data)
    assert remote.stdout == local.stdout
    assert "4,000 encounters" in remote.stdout


def test_threads_beside_a_cluster_are_refused(client) -> None:  # type: ignore[no-untyped-def]
    """A cluster's workers play on their own threads: ``threads`` beside it would go
    unread. Refused, in Python and on the command line (exit 2), before anything runs."""
    from click.testing import CliRunner

    from simlab.cli import main
    from simlab.errors import InputError

    duel = simlab.load(ROOT / "scenarios" / "benchmarks" / "ss-duel.yaml")
    with pytest.raises(InputError, match=r"expected threads= or client=; got both"):
        simlab.simulate(duel, n=1000, threads=1, client=client)
    args = ["run", str(ROOT / "scenarios/benchmarks/ss-duel.yaml"), "-n", "1000", "--threads",
            "1", "--scheduler", client.scheduler.address]  # fmt: skip
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert "expected --threads or --scheduler; got both" in done.output


@pytest.fixture
def workers_wait(monkeypatch):  # type: ignore[no-untyped-def]
    """A run waits half a second, not half a minute, for a worker."""
    from simlab.engine import distributed as on_dask

    monkeypatch.setattr(on_dask, "WORKERS_WAIT", 0.5)


def test_a_scheduler_without_workers_is_said_not_waited_on(workers_wait) -> None:  # type: ignore[no-untyped-def]
    """A scheduler no worker has joined: ``run --scheduler`` says it waits, for how long,
    then that none came and how to start one (exit 2), not an internal error."""
    from click.testing import CliRunner

    from simlab.cli import main

    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty:
        address = empty.scheduler_address
        args = ["run", str(ROOT / "scenarios/benchmarks/ss-duel.yaml"), "-n", "100",
                "--scheduler", address]  # fmt: skip
        done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert f"no Dask worker connected to {address} yet; waiting up to 0.5 s" in done.output
    assert (f"expected a Dask worker connected to the scheduler at {address} at the start of "
            "the run; got none within 0.5 s (start some: NUMBA_NUM_THREADS=1 dask worker "
            f"{address}") in done.output  # fmt: skip


def _kills_workers_once(kill) -> object:  # type: ignore[no-untyped-def]
    """A progress callback that calls ``kill`` when the first task completes."""
    killed: list[bool] = []

    def progress(_: int) -> None:
        if not killed:
            killed.append(True)
            kill()

    return progress


def test_workers_that_all_leave_mid_run_end_it_with_a_message(workers_wait) -> None:  # type: ignore[no-untyped-def]
    """The last worker leaves mid-run and none comes back: the run ends with an
    InputError saying so, not a hang nor Dask's 'cancelled' internal error."""
    from simlab.errors import InputError

    duel = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as lone,
        distributed.Client(lone) as c,
        pytest.raises(InputError, match=r"after its last worker left, mid-run; got none"),
    ):
        simlab.simulate(duel, n=400, client=c, block_size=1,
                        progress=_kills_workers_once(lambda: lone.scale(0)))  # fmt: skip


def test_workers_restarted_mid_run_finish_it_with_the_same_numbers(client) -> None:  # type: ignore[no-untyped-def]
    """Every worker process dies mid-run and its nanny starts a new one: the run goes on
    (the job is a task the scheduler makes again, not scattered data lost with the
    workers) and gives the local run's tallies."""
    import signal

    def kill_every_worker() -> None:
        for pid in client.run(os.getpid).values():
            os.kill(pid, signal.SIGKILL)

    scn = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    local = simlab.simulate(scn, n=6_000, seed=8, threads=1)
    remote = simlab.simulate(scn, n=6_000, seed=8, client=client, block_size=500,
                             progress=_kills_workers_once(kill_every_worker))  # fmt: skip
    for a, b in zip(local.tallies, remote.tallies, strict=True):
        assert np.array_equal(a, b)


def test_a_scheduler_lost_mid_run_ends_it_with_a_message() -> None:
    """The scheduler goes away mid-run: an InputError naming it and Dask's reason."""
    from simlab.errors import InputError

    duel = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    cluster = distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0")
    address = cluster.scheduler_address
    dropped = rf"expected the Dask cluster at {address} to play the run to its end; got its tasks"
    with distributed.Client(cluster) as c, pytest.raises(InputError, match=dropped):
        simlab.simulate(duel, n=400, client=c, block_size=1,
                        progress=_kills_workers_once(cluster.close))  # fmt: skip


def test_a_task_that_kills_its_workers_is_said_with_its_encounters_and_what_to_check(
    client, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Worker processes die while playing a task, as many times as Dask allows (here
    once: ``allowed-failures`` 0): the run ends with an InputError (exit 2) naming the
    encounters, seed and scenario, and what to look at, not Dask's KilledWorker."""
    import signal

    from simlab.errors import InputError

    def kill_every_worker() -> None:
        for pid in client.run(os.getpid).values():
            os.kill(pid, signal.SIGKILL)

    monkeypatch.setattr(client.cluster.scheduler, "allowed_failures", 0)
    duel = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    with pytest.raises(InputError) as raised:
        simlab.simulate(duel, n=400, seed=6, client=client, block_size=1,
                        progress=_kills_workers_once(kill_every_worker))  # fmt: skip
    said = str(raised.value)
    address = client.scheduler.address
    assert re.search(
        rf"expected the Dask workers at {address} to play encounter \d+ \(seed 6\) of the "
        r"shattered-spirits scenario of attacker v defender; got the worker playing them dead "
        r"once, last tcp://[\d.:]+: a worker process died mid-task, most often out of memory",
        said,
    ), said
    assert "dask worker --memory-limit" in said
