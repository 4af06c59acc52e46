"""The same seed gives the same result, bit for bit, whatever the threads or block size.

Encounter i draws its dice from the RNG keyed by (seed, i, stream), and blocks return
integer tallies merged by addition, so nothing about how the work is split may show in
the output — not even in the last digit of ``summary.json``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numba
import numpy as np
import pytest

import simlab
from simlab.analysis.summary import summary
from simlab.api import compile_job
from simlab.engine import runner
from simlab.engine.runner import ONE_KERNEL_VARIABLE
from simlab.scenario.common import ScenarioBase
from tests.support import assert_same_tallies

# Slow tier (make test-slow): runs every example at several thread counts and block sizes.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [
    ROOT / "scenarios/benchmarks/ss-duel.yaml",
    ROOT / "scenarios/shattered-spirits/party-3v3.yaml",
    ROOT / "scenarios/shattered-spirits-draft1/techniques-3v3.yaml",
    ROOT / "scenarios/zones-3d6/skirmish.yaml",
    ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml",
    ROOT / "scenarios/opposed-tiers/party-fight.yaml",
    # the other systems' plain-duel paths
    ROOT / "scenarios/zones-3d6/training-duel.yaml",
    ROOT / "scenarios/benchmarks/opposed-tiers-duel.yaml",
    ROOT / "scenarios/shattered-spirits-draft1/training-dummy.yaml",
    ROOT / "scenarios/glitters-d20/training-duel.yaml",
]
EXAMPLES = sorted((ROOT / "scenarios").rglob("*.yaml"))
THREADS = sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)})


@functools.cache
def loaded(path: Path) -> ScenarioBase:
    """The scenario at ``path``, read once: the runs compared differ in their threads and
    blocks alone (reading the file again cost about what a run did)."""
    return simlab.load(path)


def summary_text(path: Path, **options: int) -> str:
    res = simlab.simulate(loaded(path), n=20_000, seed=5, **options)
    return json.dumps(summary(res), sort_keys=True)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_summary_identical_across_threads_and_block_sizes(path: Path) -> None:
    reference = summary_text(path, threads=1)
    for threads in THREADS:
        for block_size in (997, 4096, 1 << 20):
            assert summary_text(path, threads=threads, block_size=block_size) == reference


def test_different_seeds_differ() -> None:
    path = SCENARIOS[1]
    assert summary_text(path, threads=1) != json.dumps(
        summary(simlab.simulate(loaded(path), n=20_000, seed=6)), sort_keys=True
    )


def test_tallies_of_two_halves_add_up_to_the_whole() -> None:
    """A run is the sum of its parts: encounters 0..n-1 split anywhere merge exactly."""
    from simlab.api import compile_job
    from simlab.engine.runner import run_range
    from simlab.engine.tallies import merge

    job = compile_job(loaded(SCENARIOS[1]), n=6000, seed=3)
    whole = run_range(job, 0, 6000, 3)
    parts = merge(run_range(job, 0, 2500, 1), run_range(job, 2500, 3500, 5))
    assert_same_tallies(whole, parts, 6000)


@pytest.mark.parametrize("path", [SCENARIOS[1], SCENARIOS[9]], ids=lambda p: p.stem)
def test_threads_taking_pieces_as_they_come_free_change_no_tally(path: Path) -> None:
    """A kernel call cut into more pieces than threads (``jit.chunked``): each thread adds
    the pieces it happens to take into its own chunk of tallies, and the chunks' sum is
    the one-thread, one-piece result whatever the split."""
    from simlab.api import compile_job
    from simlab.engine.pieces import MIN_PIECE
    from simlab.engine.runner import run_range

    threads = max(THREADS)
    count = 20 * MIN_PIECE  # 20 pieces of MIN_PIECE: more than the threads take at once
    job = compile_job(loaded(path), n=count, seed=4)
    numba.set_num_threads(1)
    alone = run_range(job, 0, count, 1)
    numba.set_num_threads(threads)
    shared = run_range(job, 0, count, threads, largest=MIN_PIECE)
    for a, b in zip(alone, shared, strict=True):
        assert np.array_equal(a, b)
    assert alone.attempts.sum() > 0


@pytest.mark.parametrize("path", SCENARIOS[1:6], ids=lambda p: p.stem)
def test_trace_mode_plays_the_same_encounters(path: Path) -> None:
    """The traced (serial) run tallies exactly what the parallel run tallies, in every
    system (opposed-tiers plays untraced runs with a kernel of their own)."""
    scn = loaded(path)
    traced = simlab.simulate(scn, n=300, seed=9, trace=True)
    plain = simlab.simulate(scn, n=300, seed=9, threads=max(THREADS))
    for a, b in zip(traced.tallies, plain.tallies, strict=True):
        assert np.array_equal(a, b)
    assert traced.trace is not None
    rows = traced.trace
    if "kind" in rows:  # glitters-d20 traces turns, saves and statuses too
        from simlab.rules.glitters_d20.kernels import KIND_ATTACK

        rows = rows[rows["kind"] == KIND_ATTACK]
    assert len(rows) == int(traced.tallies.attempts.sum())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_traced_kernel_played_untraced_tallies_what_a_run_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make test`` plays every run on its rule system's traced kernel
    (``SIMLAB_ONE_KERNEL=1``): for every example and benchmark scenario, that kernel
    tallies exactly what the kernel a run normally takes (untraced, or a plain duel's)
    tallies."""
    n = 3000
    monkeypatch.delenv(ONE_KERNEL_VARIABLE, raising=False)
    usual = simlab.simulate(loaded(path), n=n, seed=11, threads=max(THREADS))
    monkeypatch.setenv(ONE_KERNEL_VARIABLE, "1")
    job = compile_job(loaded(path), n, 11)
    assert runner.block_kernel(job) is runner.kernels(job.rules).run_block
    traced_kernel = simlab.simulate(loaded(path), n=n, seed=11, threads=max(THREADS))
    assert_same_tallies(traced_kernel.tallies, usual.tallies, n)
