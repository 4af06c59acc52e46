"""How a run is cut into pieces for its threads (``simlab.engine.pieces``).

A piece is sized from the speed of the pieces before it: it lasts at most
``PIECE_SECONDS`` (Ctrl-C and progress wait for the piece in hand), pieces shrink as a
range runs out (the threads finish together), and none is larger than the block size.
The size only changes when Python gets control back, never a tally.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import simlab
from simlab.engine import pieces, runner
from simlab.engine.pieces import Pace, Pieces, piece_size

DUEL = Path(__file__).resolve().parents[2] / "scenarios" / "benchmarks" / "ss-duel.yaml"
BIG = 1 << 40  # no bound from the block size


def test_before_the_speed_is_known_a_piece_is_the_first_pieces_size() -> None:
    """Nothing timed yet: a thread plays ``FIRST_PIECE`` encounters (fewer when fewer
    are left), on which the speed is measured."""
    assert Pace().per_second() is None
    assert piece_size(10**9, 1, None, BIG) == pieces.FIRST_PIECE
    assert piece_size(10**9, 2, None, BIG) == pieces.FIRST_PIECE
    assert piece_size(100, 1, None, BIG) == 100


@pytest.mark.parametrize("speed", [1e3, 3e5, 5e7])
def test_one_thread_takes_pieces_that_last_the_piece_time(speed: float) -> None:
    """One thread: each piece is what the measured speed plays in ``PIECE_SECONDS``
    (at least ``MIN_PIECE``), so Ctrl-C waits no longer than that."""
    expected = max(pieces.MIN_PIECE, int(speed * pieces.PIECE_SECONDS))
    assert piece_size(10**12, 1, speed, BIG) == expected


def test_no_piece_is_larger_than_the_block_size() -> None:
    """``largest`` (``--block-size``) bounds every piece, known speed or not."""
    for speed in (None, 1e3, 5e7):
        for threads in (1, 2, 8):
            assert piece_size(10**9, threads, speed, 777) <= 777


@pytest.mark.parametrize("threads", [2, 3, 8])
@pytest.mark.parametrize("speed", [2e3, 3e5, 5e7])
def test_several_threads_take_shrinking_pieces_down_to_a_floor(threads: int, speed: float) -> None:
    """With several threads, each piece is half a thread's share of what is left, but
    no longer than ``PIECE_SECONDS`` and no shorter than ``FLOOR_SECONDS`` (nor than
    ``MIN_PIECE`` encounters): sizes never grow as the range runs out, and the last
    ones are short, so that no thread waits long for the others."""
    ceiling = max(pieces.MIN_PIECE, int(speed * pieces.PIECE_SECONDS))
    floor = max(pieces.MIN_PIECE, int(speed * pieces.FLOOR_SECONDS))
    left, sizes = 3 * 10**7, []
    while left > 0:
        size = piece_size(left, threads, speed, BIG)
        guided = -(-left // (threads * pieces.PIECE_SHARE))
        assert size == min(left, ceiling, max(floor, guided))
        sizes.append(size)
        left -= size
    assert (np.diff(sizes[:-1]) <= 0).all()
    assert sizes[-2] == min(ceiling, floor)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_pieces_cover_the_range_once_in_order(threads: int) -> None:
    """Taken one after the other, the pieces of a range are consecutive, cover it
    exactly, and none exceeds ``largest``; each piece played adds to the pace."""
    pace = Pace()
    taken = []
    cut = Pieces(7, 100_003, threads, pace, largest=5000)
    for lo, hi in cut:
        taken.append((lo, hi))
        cut.played(hi - lo, (hi - lo) / 1e6)  # a million encounters a second
    assert taken[0][0] == 7 and taken[-1][1] == 7 + 100_003
    assert all(a[1] == b[0] for a, b in itertools.pairwise(taken))
    assert all(0 < hi - lo <= 5000 for lo, hi in taken)
    assert pace.encounters == 100_003 and pace.per_second() == pytest.approx(1e6)
    assert cut.report() == 100_003 and cut.report() == 0


def test_dropped_pieces_are_not_handed_out() -> None:
    """After ``drop`` (Ctrl-C or an error on the calling thread), no thread gets a piece."""
    cut = Pieces(0, 10**6, 2, Pace(), largest=1000)
    assert next(cut) == (0, 1000)
    cut.drop()
    assert list(cut) == []


def test_the_pieces_of_a_run_cover_it_within_the_block_size() -> None:
    """However the pieces grow, a run plays every encounter once, none in a piece
    larger than the block, and the tallies are those of the same run in one piece
    (one thread: progress is told of every piece)."""
    scn = simlab.load(DUEL)
    n, block = 60_000, 2_500
    whole = simlab.simulate(scn, n=n, seed=3, threads=1, block_size=n)
    sizes: list[int] = []
    parts = simlab.simulate(scn, n=n, seed=3, threads=1, block_size=block, progress=sizes.append)
    assert sum(sizes) == n and max(sizes) <= block and len(sizes) >= n // block
    for a, b in zip(whole.tallies, parts.tallies, strict=True):
        assert np.array_equal(a, b)


def test_a_run_shares_its_pace_between_kernel_calls() -> None:
    """A range played in several kernel calls with one pace (a comparison's ranges)
    measures the speed once: only the first call starts with ``FIRST_PIECE``."""
    from simlab.api import compile_job

    job = compile_job(simlab.load(DUEL), n=40_000, seed=5)
    pace = Pace()
    runner.run_range(job, 0, 20_000, 1, pace=pace)
    assert pace.encounters == 20_000 and pace.per_second() is not None
    shared: list[int] = []
    runner.run_range(job, 20_000, 20_000, 1, pace=pace, progress=shared.append)
    fresh: list[int] = []
    runner.run_range(job, 20_000, 20_000, 1, progress=fresh.append)
    assert shared == [20_000]  # well under PIECE_SECONDS at the pace measured
    assert fresh[0] == pieces.FIRST_PIECE and sum(fresh) == 20_000
