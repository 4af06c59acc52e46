"""Jobs for ``simlab.report.drawing.draw_all`` in the tests, importable by name in a
spawned drawing process (a test module's functions would import pytest there too).

Each takes a marker file as its context. The process that calls ``draw_all`` draws a
job in :data:`HERE_SECONDS` until the marker exists, a spawned process at once, and a
spawned process writes the marker (the job it drew) at its first job: so a spawned
process, however slow to start, finds jobs left to take, and the test ends soon after.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import weakref
from pathlib import Path
from typing import Any

from simlab.errors import Problem, ScenarioError

#: How long the calling process takes over a job before a spawned one has drawn any.
HERE_SECONDS = 0.1


def _first_drawn_there(marker: str, job: int, pace: float = HERE_SECONDS) -> int | None:
    """The first job a spawned process drew (written by it); None before, after ``pace``
    seconds in the calling process."""
    path = Path(marker)
    if multiprocessing.parent_process() is not None and not path.exists():
        written = path.with_suffix(".tmp")
        written.write_text(str(job))
        os.replace(written, path)  # whole: never read half-written
    if path.exists():
        return int(path.read_text())
    time.sleep(pace)
    return None


def square_and_pid(job: int, marker: str) -> tuple[int, int]:
    """``job ** 2`` and the process that worked it out."""
    _first_drawn_there(marker, job)
    return job**2, os.getpid()


def fails_where_first_drawn_there(job: int, marker: str) -> int:
    """Bad input at the first job a spawned process drew, wherever it is drawn: a
    :class:`ScenarioError`, whose problems a pickle does not carry whole."""
    if _first_drawn_there(marker, job) == job:
        raise ScenarioError([Problem("bad.yaml", 3, 7, f"expected a job other than {job}; got it")])
    return job


def dies_there(job: int, marker: str) -> int:
    """A spawned process dies at its first job, as one killed would."""
    _first_drawn_there(marker, job)
    if multiprocessing.parent_process() is not None:
        os._exit(1)
    return job**2


def square(job: int, context: int) -> int:
    """``job ** 2 + context``, at once."""
    return job**2 + context


def paced_sketch(sketch: Any, context: tuple[Any, str]) -> Any:
    """A report's picture (``render.draw_sketch``), drawn in 0.5 s more in the calling
    process until a spawned one has drawn one: a small report shared out too."""
    from simlab.report.render import draw_sketch

    runs, marker = context
    _first_drawn_there(marker, 0, pace=0.5)
    return draw_sketch(sketch, runs)


def ctrl_c_in_a_callback_at_3(job: int, drawn: list[int]) -> int:
    """Job 3 gets a Ctrl-C in a weak reference's callback, as one can land in
    matplotlib's clean-up of a figure; each job is noted in ``drawn``."""
    return _signal_in_a_callback_at_3(job, drawn, signal.SIGINT)


def sigterm_in_a_callback_at_3(job: int, drawn: list[int]) -> int:
    """:func:`ctrl_c_in_a_callback_at_3` with a SIGTERM (a CI job cancelled)."""
    return _signal_in_a_callback_at_3(job, drawn, signal.SIGTERM)


def _signal_in_a_callback_at_3(job: int, drawn: list[int], number: int) -> int:
    if job == 3:

        class Figure:
            pass

        figure = Figure()
        gone = weakref.ref(figure, lambda _: signal.raise_signal(number))
        del figure  # the callback runs here: Python's own handler raises inside it
        assert gone() is None
    drawn.append(job)
    return job
