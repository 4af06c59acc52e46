"""sweep, compare, tune and report on a Dask cluster (``client=``, ``--scheduler``) give
the numbers of the same run on one machine, bit for bit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import InputError
from simlab.tuning.compare import ranges_for
from tests.engine.cluster import dask_distributed
from tests.support import assert_same_tallies

# Slow tier (make test-slow): starts Dask clusters and runs every command on them.
pytestmark = pytest.mark.slow

distributed = dask_distributed()

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
TWO_V_TWO = ROOT / "scenarios/benchmarks/ss-2v2.yaml"
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


@contextmanager
def played_on(client: Any) -> Iterator[list[Any]]:
    """The run_range tasks the cluster played inside the block: none means the work was
    done on this machine, whatever the numbers."""
    tasks: list[Any] = []
    with distributed.get_task_stream(client) as stream:
        yield tasks
    tasks += [task for task in stream.data if "run_range" in task["key"]]


#: A ``dask worker`` whose Python has no simlab on its path (nor this checkout, nor an
#: installed copy): the arguments after ``-c`` are the worker's.
NO_SIMLAB_WORKER = (
    "import sys; from pathlib import Path; "
    "sys.path[:] = [p for p in sys.path if not (Path(p or '.') / 'simlab').is_dir()]; "
    "sys.argv[0] = 'dask'; from dask.cli import run_cli; run_cli()"
)


@contextmanager
def workers_started(
    command: list[str], env: dict[str, str], cwd: Path, count: int = 1
) -> Iterator[tuple[str, Any]]:
    """The address of a scheduler (in this process) that ``count`` worker processes, each
    started by ``command`` + ``worker ADDRESS``, have joined, and a client of it."""
    import subprocess

    with (
        distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                                 dashboard_address=":0") as empty,
        distributed.Client(empty) as watching,
    ):  # fmt: skip
        address = empty.scheduler_address
        workers = [subprocess.Popen([*command, "worker", address, "--nthreads", "1",
                                     "--no-nanny", "--no-dashboard"], env=env, cwd=cwd,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for _ in range(count)]  # fmt: skip
        try:
            watching.wait_for_workers(count, timeout=60)
            yield address, watching
        finally:
            for worker in workers:
                worker.terminate()
                worker.wait(timeout=30)


def test_sweep_on_a_cluster_equals_the_local_sweep(client) -> None:  # type: ignore[no-untyped-def]
    local = simlab.sweep(DUEL, "Defender.hp=10:12", 2_000, 4, threads=1, exact=False)
    with played_on(client) as tasks:
        remote = simlab.sweep(DUEL, "Defender.hp=10:12", 2_000, 4, client=client, exact=False)
    assert tasks
    for here, there in zip(local.points, remote.points, strict=True):
        assert_same_tallies(here.result.tallies, there.result.tallies, 2_000)
    assert local.attacks().equals(remote.attacks())


def test_a_sweep_on_a_cluster_sends_every_point_before_any_is_played(client) -> None:  # type: ignore[no-untyped-def]
    """Each point was a run of its own, sent once the one before had come back: workers
    sat idle between points, and a sweep of small points paid a round trip each. Every
    point's tasks now reach the scheduler before the first of them completes."""
    import time

    seen: list[tuple[float, str, str]] = []

    class Watch(distributed.diagnostics.plugin.SchedulerPlugin):  # type: ignore[misc]
        def transition(self, key, start, finish, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            if "run_range" in str(key):
                seen.append((time.monotonic(), start, finish))

    watch = Watch()
    client.cluster.scheduler.add_plugin(watch, name="sweep-watch")
    try:
        simlab.sweep(DUEL, "Defender.hp=10:13", 20_000, 4, client=client, exact=False)
    finally:
        client.cluster.scheduler.remove_plugin(name="sweep-watch")
    sent = [t for t, start, _ in seen if start == "released"]
    done = [t for t, _, finish in seen if finish == "memory"]
    assert len(sent) == len(done) >= 4
    assert max(sent) < min(done)


def test_sweep_to_a_precision_on_a_cluster_stops_where_the_local_one_does(client) -> None:  # type: ignore[no-untyped-def]
    local = simlab.sweep(DUEL, "Defender.hp=10,30", 64_000, 4, threads=1, exact=False,
                         precision=0.03)  # fmt: skip
    with played_on(client) as tasks:
        remote = simlab.sweep(DUEL, "Defender.hp=10,30", 64_000, 4, client=client,
                              exact=False, precision=0.03)  # fmt: skip
    assert tasks
    for here, there in zip(local.points, remote.points, strict=True):
        assert here.result.encounters == there.result.encounters < 64_000
        assert here.result.meta == there.result.meta
        assert_same_tallies(here.result.tallies, there.result.tallies, here.result.encounters)


@pytest.mark.parametrize("precision", [None, 0.05])
def test_compare_on_a_cluster_equals_the_local_comparison(client, precision) -> None:  # type: ignore[no-untyped-def]
    """The same figures, paired intervals and p-values, and the same stop to a precision."""
    changes = {"Defender.hp": 14}
    local = simlab.compare(DUEL, changes=changes, n=3_000, seed=4, threads=1,
                           precision=precision)  # fmt: skip
    with played_on(client) as tasks:
        remote = simlab.compare(DUEL, changes=changes, n=3_000, seed=4, client=client,
                                precision=precision)  # fmt: skip
    # a task or more a range of each variant (to a precision, played once: while each
    # ran to it, kept by range)
    assert len(tasks) >= 2 * remote.ranges
    assert local.a.encounters == remote.a.encounters
    assert_same_tallies(local.a.tallies, remote.a.tallies, local.a.encounters)
    assert_same_tallies(local.b.tallies, remote.b.tallies, local.b.encounters)
    assert local.figures.equals(remote.figures)
    assert local.precision == remote.precision
    assert local.figures["changed"].any()  # a comparison that found something


def test_tune_on_a_cluster_equals_the_local_tune(client) -> None:  # type: ignore[no-untyped-def]
    args = (DUEL, "Defender.hp=5:40", "median_time_to_down:Defender=3", 2_000, 4)
    local = simlab.tune(*args, threads=1, exact=False)
    with played_on(client) as tasks:
        remote = simlab.tune(*args, client=client, exact=False)
    assert tasks
    assert len(local.evaluations) > 2
    assert repr(local.evaluations) == repr(remote.evaluations)
    assert local.document() == remote.document()


def test_a_flat_tune_on_a_cluster_pairs_its_values_as_the_local_one(client) -> None:  # type: ignore[no-untyped-def]
    """A hit rate does not move with the defender's HP: every value is played again in
    ranges (the paired test of a flat figure), on the cluster too, with the same ranges'
    figures."""
    args = (DUEL, "Defender.hp=20:24", "hit_rate:strike=0.9", 2_000, 4)
    local = simlab.tune(*args, threads=1, exact=False)
    with played_on(client) as tasks:
        remote = simlab.tune(*args, client=client, exact=False)
    assert local.evaluations[0].per_range  # paired: played in ranges
    # the values, then each again in its ranges: a task or more a range
    assert len(tasks) > len(local.evaluations) * ranges_for(None, 2_000)
    assert repr(local.evaluations) == repr(remote.evaluations)
    assert local.document() == remote.document()


def test_report_runs_on_a_cluster_equal_the_local_runs(client) -> None:  # type: ignore[no-untyped-def]
    local = simlab.run_scenarios([DUEL, TWO_V_TWO], 2_000, 4, threads=1)
    with played_on(client) as tasks:
        remote = simlab.run_scenarios([DUEL, TWO_V_TWO], 2_000, 4, client=client)
    assert tasks
    for here, there in zip(local, remote, strict=True):
        assert here.source == there.source
        assert_same_tallies(here.result.tallies, there.result.tallies, 2_000)


def test_the_readmes_python_on_a_cluster_runs_as_written(client) -> None:  # type: ignore[no-untyped-def]
    """The Dask section's Python block, pasted with the cluster's address and a scenario
    (and fewer encounters): it used ``simlab`` and ``scn`` without defining them."""
    import re
    import textwrap

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    dask_section = readme[readme.index("Start the cluster with:") :]
    (block,) = re.findall(r"^  ```python\n(.*?)^  ```", dask_section, re.S | re.M)[:1]
    code = textwrap.dedent(block).replace("tcp://HOST:8786", client.scheduler.address)
    code = code.replace('"SCENARIO.yaml"', repr(str(DUEL))).replace("n=100_000", "n=2_000")
    namespace: dict[str, Any] = {}
    with played_on(client) as tasks:
        exec(compile(code, "README.md", "exec"), namespace)
    assert tasks
    assert [p.set["Defender.hp"] for p in namespace["sw"].points] == list(range(20, 31))


def test_threads_beside_a_cluster_are_refused_by_every_entry_point(client) -> None:  # type: ignore[no-untyped-def]
    """As simulate refuses them: before anything runs (a tune the exact engine would
    answer without simulating included)."""
    both = r"expected threads= or client=; got both"
    with pytest.raises(InputError, match=both):
        simlab.sweep(DUEL, "Defender.hp=10:12", 100, threads=1, client=client)
    with pytest.raises(InputError, match=both):
        simlab.compare(DUEL, changes={"Defender.hp": 14}, n=100, threads=1, client=client)
    with pytest.raises(InputError, match=both):
        simlab.tune(DUEL, "Defender.hp=5:40", "hit_rate:strike=0.5", 100, threads=1,
                    client=client)  # fmt: skip
    with pytest.raises(InputError, match=both):
        simlab.run_scenarios([DUEL], 100, threads=1, client=client)
    with pytest.raises(InputError, match=r"expected a Dask distributed.Client for client"):
        simlab.sweep(DUEL, "Defender.hp=10:12", 100, client="tcp://localhost:8786")


def test_figures_without_a_precision_are_refused_on_a_cluster_as_locally(client) -> None:  # type: ignore[no-untyped-def]
    """A sweep on a cluster without a precision ran its points there and never read
    ``precision_on``: the figures were ignored without a word, where the local sweep
    refuses them."""
    alone = r"precision_on: expected precision= .*got none"
    with pytest.raises(InputError, match=alone):
        simlab.sweep(DUEL, "Defender.hp=10:12", 100, precision_on=["hit_rate:strike"])
    with pytest.raises(InputError, match=alone):
        simlab.sweep(DUEL, "Defender.hp=10:12", 100, precision_on=["hit_rate:strike"],
                     client=client)  # fmt: skip


# -- the command line ------------------------------------------------------------------------


def invoke(*args: str) -> Any:
    done = CliRunner().invoke(main, [str(a) for a in args])
    assert done.exit_code in (0, 1), done.output
    return done


def test_sweep_command_plays_on_the_scheduler_it_is_given(client) -> None:  # type: ignore[no-untyped-def]
    args = ("sweep", DUEL, "--vary", "Defender.hp=10:12", "-n", "2000", "--seed", "4")
    with played_on(client) as tasks:
        remote = invoke(*args, "--scheduler", client.scheduler.address)
    assert tasks
    assert remote.stdout == invoke(*args).stdout
    assert "2,000 encounters at each of 3 points" in remote.stdout


def test_compare_command_plays_on_the_scheduler_it_is_given(client) -> None:  # type: ignore[no-untyped-def]
    args = ("compare", DUEL, "--set", "Defender.hp=14", "-n", "3000", "--seed", "4")
    with played_on(client) as tasks:
        remote = invoke(*args, "--scheduler", client.scheduler.address)
    assert tasks
    assert remote.stdout == invoke(*args).stdout
    assert "Defender" in remote.stdout


def test_tune_command_plays_on_the_scheduler_it_is_given(client) -> None:  # type: ignore[no-untyped-def]
    args = ("tune", DUEL, "--vary", "Defender.hp=5:40", "--target",
            "median_time_to_down:Defender=3", "-n", "2000", "--seed", "4",
            "--no-exact")  # fmt: skip
    with played_on(client) as tasks:
        remote = invoke(*args, "--scheduler", client.scheduler.address)
    assert tasks
    assert remote.stdout == invoke(*args).stdout
    assert "Defender.hp" in remote.stdout


def test_report_command_plays_on_the_scheduler_it_is_given(client, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The specs' measured values, and the results saved, are the local run's. The two
    outputs are named alike and short, so that their lines wrap alike at any path."""
    monkeypatch.chdir(tmp_path)
    args = ("report", QUICKSTART, "-n", "4000", "--seed", "5")
    with played_on(client) as tasks:
        remote = invoke(*args, "--out", "away", "--scheduler", client.scheduler.address)
    assert tasks
    local = invoke(*args, "--out", "home")
    assert remote.stdout.replace("away", "home") == local.stdout
    assert "stone-strike hit rate" in remote.stdout  # the specs' table, what each measured
    saved = [simlab.load_results(tmp_path / run / "results.json") for run in ("home", "away")]
    assert_same_tallies(saved[0][0].result.tallies, saved[1][0].result.tallies, 4_000)


def test_check_command_plays_on_the_scheduler_it_is_given(client) -> None:  # type: ignore[no-untyped-def]
    """The specs' table, each spec's measured value with it, is the local run's."""
    args = ("check", QUICKSTART, "-n", "4000", "--seed", "5")
    with played_on(client) as tasks:
        remote = invoke(*args, "--scheduler", client.scheduler.address)
    assert tasks
    assert remote.stdout == invoke(*args).stdout
    assert "stone-strike hit rate" in remote.stdout


def test_baseline_update_plays_on_the_scheduler_it_is_given(client, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Of the scenarios named, and again of those the baseline records (the nightly's
    re-run of every baseline scenario): the tallies saved are the local run's."""
    here, there = tmp_path / "here.json", tmp_path / "there.json"
    named = ("baseline", "update", DUEL, TWO_V_TWO, "-n", "2000", "--seed", "4")
    invoke(*named, "--baseline", here)
    with played_on(client) as tasks:
        invoke(*named, "--baseline", there, "--scheduler", client.scheduler.address)
    assert tasks
    _assert_same_baselines(here, there, 2_000)
    again = ("baseline", "update", "--baseline", there)
    with played_on(client) as tasks:
        invoke(*again, "-n", "3000", "--scheduler", client.scheduler.address)
    assert tasks
    invoke(*again[:2], "--baseline", here, "-n", "3000")
    _assert_same_baselines(here, there, 3_000)


def _assert_same_baselines(a: Path, b: Path, encounters: int) -> None:
    """Two baselines of the same scenarios, in order, with the same tallies."""
    first, second = simlab.load_results(a), simlab.load_results(b)
    assert [r.scenario for r in first] == [r.scenario for r in second]
    assert len(first) == 2
    for x, y in zip(first, second, strict=True):
        assert_same_tallies(x.result.tallies, y.result.tallies, encounters)


@pytest.mark.parametrize("command", ["sweep", "compare", "tune", "report", "check",
                                     "baseline update"])  # fmt: skip
def test_threads_beside_a_scheduler_are_refused_by_every_command(client, command, tmp_path) -> None:  # type: ignore[no-untyped-def]
    given = {
        "sweep": ["sweep", DUEL, "--vary", "Defender.hp=10:12"],
        "compare": ["compare", DUEL, "--set", "Defender.hp=14"],
        "tune": ["tune", DUEL, "--vary", "Defender.hp=5:40", "--target", "hit_rate:strike=0.5"],
        "report": ["report", DUEL],
        "check": ["check", QUICKSTART],
        "baseline update": ["baseline", "update", DUEL, "--baseline", tmp_path / "b.json"],
    }[command]
    args = [*given, "-n", "100", "--threads", "1", "--scheduler", client.scheduler.address]
    with played_on(client) as tasks:
        done = CliRunner().invoke(main, [str(a) for a in args])
    assert done.exit_code == 2, done.output
    assert "expected --threads or --scheduler; got both" in done.output
    assert not tasks


def test_report_from_saved_results_refuses_a_scheduler(tmp_path) -> None:
    """Saved results are read as they are: a scheduler beside --from would go unused."""
    args = ["report", "--from", str(tmp_path / "results.json"), "--scheduler",
            "tcp://127.0.0.1:8786", "--out", str(tmp_path / "out")]  # fmt: skip
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert "got --from with --scheduler" in done.output


def test_workers_of_another_simlab_version_are_named_not_played_on(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two workers started from another simlab (a copy whose version says 9.9.9, without
    the module that asks the version, as an older one): the run names both versions,
    where the first other one runs and how many more there are (exit 2), and plays
    nothing."""
    import os
    import shutil
    import sys

    other = tmp_path / "other"
    shutil.copytree(ROOT / "simlab", other / "simlab",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    init = other / "simlab" / "__init__.py"
    mine = f'__version__ = "{simlab.__version__}"'
    init.write_text(init.read_text().replace(mine, '__version__ = "9.9.9"'))
    # nothing of this module's, as in a simlab older than it: the question comes by value
    (other / "simlab" / "engine" / "distributed.py").write_text('"""An older simlab."""\n')
    env = {**os.environ, "PYTHONPATH": str(other), "NUMBA_NUM_THREADS": "1"}
    # python -m reads its folder first: cwd=other
    with (
        workers_started([sys.executable, "-m", "dask"], env, other, 2) as (address, watching),
        played_on(watching) as tasks,
    ):
        done = CliRunner().invoke(main, ["run", str(DUEL), "-n", "100", "--scheduler", address])
    assert done.exit_code == 2, done.output
    assert (f"expected simlab {simlab.__version__} on the Dask cluster at {address}, as here; "
            "got simlab 9.9.9 on worker tcp://") in done.output  # fmt: skip
    assert f"(1 more of its processes: not simlab {simlab.__version__} either)" in done.output
    assert not tasks


def test_report_says_a_mistyped_scenario_before_it_connects(tmp_path: Path) -> None:
    """A path that does not exist beside a scheduler nobody answers at: the path was said
    only once the connection had timed out (10 s), and as the scheduler's fault."""
    done = CliRunner().invoke(main, ["report", str(tmp_path / "duel.yml"), "--out",
                                     str(tmp_path / "out"), "--scheduler",
                                     "tcp://127.0.0.1:9"])  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "expected a scenario file or folder; got no such file" in done.output
    assert "scheduler" not in done.output


def test_a_worker_without_simlab_is_told_what_to_install_where(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A worker whose Python cannot import simlab: the run names it, the Python it runs
    and the simlab to install into that Python, with the command (exit 2)."""
    import os
    import sys

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with workers_started([sys.executable, "-c", NO_SIMLAB_WORKER], env, tmp_path) as (address, _):
        done = CliRunner().invoke(main, ["run", str(DUEL), "-n", "100", "--scheduler", address])
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.split())
    assert (f"expected simlab {simlab.__version__} on the Dask cluster at {address}, as here; "
            "got no simlab on worker tcp://") in said  # fmt: skip
    assert (f"install simlab {simlab.__version__} into the Python that runs it "
            f"({sys.executable}, on its machine): {sys.executable} -m pip install "
            "\"simlab[dask] @ git+") in said  # fmt: skip


def test_workers_of_the_same_version_with_other_kernels_are_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A worker's simlab says the same version over a kernel source changed: its tallies
    could differ from this machine's, so the run names both kernel digests (exit 2)."""
    import os
    import shutil
    import sys

    from simlab.engine.jit import kernel_cache_dir

    other = tmp_path / "other"
    shutil.copytree(ROOT / "simlab", other / "simlab",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    with (other / "simlab" / "engine" / "runner.py").open("a") as runner:
        runner.write("# a kernel source edited, the version left as it was\n")
    mine = os.path.basename(kernel_cache_dir())
    theirs = os.path.basename(kernel_cache_dir(other / "simlab"))
    env = {**os.environ, "PYTHONPATH": str(other), "NUMBA_NUM_THREADS": "1"}
    with (
        workers_started([sys.executable, "-m", "dask"], env, other) as (address, watching),
        played_on(watching) as tasks,
    ):
        done = CliRunner().invoke(main, ["run", str(DUEL), "-n", "100", "--scheduler",
                                             address])  # fmt: skip
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.split())
    version = f"simlab {simlab.__version__} with kernel sources"
    assert (f"expected {version} {mine} on the Dask cluster at {address}, as here; got "
            f"{version} {theirs} on worker tcp://") in said  # fmt: skip
    assert "the same version number over other kernel code" in said
    assert not tasks


@pytest.mark.parametrize(
    ("address", "why"),
    [("tcp://127.0.0.1:99999", "port 99999: a port is 1 to 65535"),
     ("127.0.0.1:0", "port 0: a port is 1 to 65535"),
     ("tcp://[::1]:70000", "port 70000: a port is 1 to 65535"),
     ("tcp://10.0.300.1:8786", "host 10.0.300.1: each number of an IPv4 address is 0 to 255")],
)  # fmt: skip
def test_an_address_no_scheduler_can_have_is_refused_at_once(address, why) -> None:  # type: ignore[no-untyped-def]
    """Not after the 10 s connection timeout of an address nobody answers at."""
    import time

    start = time.monotonic()
    done = CliRunner().invoke(main, ["run", str(DUEL), "-n", "100", "--scheduler", address])
    assert done.exit_code == 2, done.output
    assert time.monotonic() - start < 5
    said = " ".join(done.output.split())
    assert ("expected --scheduler as a Dask scheduler's address such as tcp://host:8786; "
            f"got {address!r} ({why})") in said  # fmt: skip


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "host.example:8786",
                                     "tls://10.0.0.255:65535", "tcp://[::1]:1"])  # fmt: skip
def test_an_address_a_scheduler_can_have_is_left_to_the_connection(address) -> None:  # type: ignore[no-untyped-def]
    """Its 10 s timeout kept: a scheduler may be starting there."""
    from simlab.engine.distributed import refuse_impossible_address

    refuse_impossible_address(address)
