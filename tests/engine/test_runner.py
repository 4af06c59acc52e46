"""How the runner sizes its kernel calls (``runner._next_step``, ``run_local_range``).

A call is sized to last ``CALL_SECONDS`` from the speed of the one before; its size only
changes how often Python gets control back (Ctrl-C, progress), never a tally.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simlab
from simlab.engine import runner

DUEL = Path(__file__).resolve().parents[2] / "scenarios" / "benchmarks" / "ss-duel.yaml"


def test_a_fast_first_call_is_followed_by_one_as_large_as_a_block() -> None:
    """The first call's encounters took a thousandth of the target time: the next call
    may be as large as a default block at once (``MAX_GROWTH``), not 4-fold larger."""
    first = runner._FIRST_CALL
    seconds = runner.CALL_SECONDS / 1000
    assert runner._next_step(first, first, seconds) == first * runner.MAX_GROWTH
    assert first * runner.MAX_GROWTH >= runner.DEFAULT_BLOCK


@pytest.mark.parametrize("ratio", [0.5, 1.0, 2.0])
def test_a_call_is_sized_to_last_the_target_time(ratio: float) -> None:
    """Within the growth bounds, the next call is what the measured speed plays in
    ``CALL_SECONDS``."""
    size = 100_000
    seconds = runner.CALL_SECONDS * ratio
    assert runner._next_step(size, size, seconds) == int(size / ratio)


def test_a_slow_call_halves_the_next_one_at_most() -> None:
    """A call that took far longer than the target (a busy machine) shrinks the next
    call 2-fold, not to what that one reading says."""
    assert runner._next_step(80_000, 80_000, runner.CALL_SECONDS * 100) == 40_000


def test_the_calls_of_a_run_cover_it_within_its_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """However the calls grow, they play every encounter once, none larger than the
    block, and the tallies are those of the same run in default blocks."""
    calls: list[tuple[int, int]] = []
    play = runner.run_range

    def recorded(job: runner.Job, first: int, count: int, *rest: object) -> object:
        calls.append((first, count))
        return play(job, first, count, *rest)  # type: ignore[arg-type]

    scn = simlab.load(DUEL)
    n, block = 60_000, 25_000
    whole = simlab.simulate(scn, n=n, seed=3, threads=1)
    monkeypatch.setattr(runner, "run_range", recorded)
    parts = simlab.simulate(scn, n=n, seed=3, threads=1, block_size=block)
    starts = [first for first, _ in calls]
    assert starts == sorted(starts) and starts[0] == 0
    assert all(a + size == b for (a, size), b in zip(calls, starts[1:], strict=False))
    assert sum(size for _, size in calls) == n
    assert max(size for _, size in calls) <= block
    assert len(calls) >= n // block + 1
    for a, b in zip(whole.tallies, parts.tallies, strict=True):
        assert np.array_equal(a, b)
