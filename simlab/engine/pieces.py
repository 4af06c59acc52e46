"""How a run's encounters are cut into pieces for the threads that play them.

A block kernel (``jit.chunked``) plays a range of encounters on several threads. Each
thread takes the next piece nobody has taken, plays it in one kernel call, and takes
another, until none is left (:class:`Pieces`). Python gets control back only between
kernel calls, so a piece's size bounds how long a Ctrl-C waits and how often progress is
reported; and the pieces at the end of the range decide how long one thread waits for
the others. Both are matters of time, not of encounters, so pieces are sized from the
speed of the pieces played before (:class:`Pace`, :func:`piece_size`). Every encounter
draws its own dice and the tallies are sums, so no cut changes a count.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

#: How long a piece may last, in seconds, once the speed is known: a Ctrl-C waits for
#: the piece in hand, and progress moves between pieces.
PIECE_SECONDS = 0.2
#: The shortest piece, in seconds, but for the last one: the end of a range waits for
#: the piece each thread holds, and handing a piece to a kernel costs some 20-30 us.
FLOOR_SECONDS = 0.0005
#: Encounters a thread plays before the speed is known (it is measured on them).
FIRST_PIECE = 2048
#: Fewest encounters a piece gets, whatever the speed (but a range's last piece).
MIN_PIECE = 256
#: What a piece takes of the encounters left, as a divisor of the threads' number: with
#: 2, each piece is half a thread's share of what is left (guided self-scheduling).
PIECE_SHARE = 2


class Pace:
    """How fast one thread plays a job's encounters: the encounters played in pieces and
    the seconds those pieces took, summed over the threads.

    A run keeps one for all its kernel calls, so that only its first pieces are played
    before the speed is known. The first pieces run with cold caches and carry the fixed
    cost of a kernel call, so the pace can only read slow, never fast.
    """

    def __init__(self) -> None:
        self.encounters = 0
        self.seconds = 0.0

    def add(self, encounters: int, seconds: float) -> None:
        """Count a piece of ``encounters`` that took ``seconds``."""
        self.encounters += encounters
        self.seconds += seconds

    def per_second(self) -> float | None:
        """Encounters a thread plays a second, or None before any piece was timed."""
        return self.encounters / self.seconds if self.seconds > 0 else None


def piece_size(left: int, threads: int, speed: float | None, largest: int) -> int:
    """The size of the next piece.

    Parameters
    ----------
    left : int
        Encounters of the range that nobody has taken yet (> 0).
    threads : int
        Threads taking pieces.
    speed : float or None
        Encounters a thread plays a second (:meth:`Pace.per_second`), or None when
        unknown yet.
    largest : int
        The most encounters one piece may have (``--block-size``).

    Returns
    -------
    int
        Encounters in the piece, 1 to ``left``.

    Notes
    -----
    A piece lasts at most :data:`PIECE_SECONDS` (:data:`FIRST_PIECE` encounters while the
    speed is unknown). One thread takes the longest pieces allowed. Several take
    shrinking pieces (guided self-scheduling): each is half a thread's share of what is
    left, but not shorter than :data:`FLOOR_SECONDS` nor than :data:`MIN_PIECE`
    encounters. The first pieces are long, so few are handed out; the last ones short,
    so that when one thread takes the last piece the others wait little.
    """
    if speed is None:
        ceiling, floor = FIRST_PIECE, MIN_PIECE
    else:
        ceiling = max(MIN_PIECE, int(speed * PIECE_SECONDS))
        floor = max(MIN_PIECE, int(speed * FLOOR_SECONDS))
    ceiling = min(ceiling, largest)
    if threads <= 1:
        return max(1, min(left, ceiling))
    guided = max(floor, -(-left // (threads * PIECE_SHARE)))
    return max(1, min(left, ceiling, guided))


class Pieces:
    """The pieces of encounters ``first .. first+count-1``, handed out to the threads as
    they come free (iterate over it for ``(lo, hi)`` bounds; any thread may).

    Parameters
    ----------
    first, count : int
        The range.
    threads : int
        Threads that take pieces.
    pace : Pace
        The job's pace so far; each piece played is added to it (:meth:`played`).
    largest : int
        The most encounters a piece may have.
    """

    def __init__(self, first: int, count: int, threads: int, pace: Pace, largest: int) -> None:
        self.next, self.end = first, first + count
        self.threads, self.pace, self.largest = threads, pace, largest
        self.played_since_report = 0
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return self

    def __next__(self) -> tuple[int, int]:
        with self._lock:
            left = self.end - self.next
            if left <= 0:
                raise StopIteration
            lo = self.next
            self.next += piece_size(left, self.threads, self.pace.per_second(), self.largest)
            return lo, self.next

    def played(self, encounters: int, seconds: float) -> None:
        """Count a piece that was played: its ``encounters`` took ``seconds``."""
        with self._lock:
            self.pace.add(encounters, seconds)
            self.played_since_report += encounters

    def report(self) -> int:
        """The encounters played since the last report (for a progress bar)."""
        with self._lock:
            done, self.played_since_report = self.played_since_report, 0
            return done

    def drop(self) -> None:
        """Hand out no more pieces (the caller stopped: Ctrl-C, an error)."""
        with self._lock:
            self.next = self.end
