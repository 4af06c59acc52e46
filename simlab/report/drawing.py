"""Drawing a report's pictures on several cores: this process and a few spawned ones.

A whole report draws a few hundred PNGs at 0.2-0.3 s each, one after the other on one
core. :func:`draw_all` shares them out: this process keeps drawing from the first
picture on, while ``processes - 1`` others start (``spawn``: a fresh interpreter, never
a ``fork`` of a process whose numba threads may be running) and, once one of them says
it is ready, take pictures in order too. The simulations are done before: what goes to
a process is what it needs to draw: this process's matplotlib settings as it starts,
the report's runs (a few MB pickled) in a temporary file written once a process has
started and read at its first job, then one small job per picture.

A process pays for itself only with enough pictures to draw (:data:`PICTURES_A_PROCESS`):
starting one takes 1.5-3 s (importing matplotlib, pandas and scipy), as long as 6 to 12
pictures take. Fewer pictures are drawn here alone, and a picture a process failed on (an
error, or a process that died) is drawn again here, so that an error is the very one,
with its message and exit code, that drawing here alone raises. The pictures are the
same bytes either way: each is drawn by the same function from the same data.

Nothing is left behind when this process is stopped: a Ctrl-C, or a SIGTERM where a
handler of it raises (``simlab``'s command sets one), is taken between two pictures and
ends the drawing processes and removes the temporary folder; a process whose parent is
gone (killed with ``kill -9``, or by a SIGTERM left to its default) removes that folder
and ends on its own (:func:`_end_with_parent`). The folder is made only once a process
watches so (:func:`_write_context`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Generic, TypeVar, cast

__all__ = ["PICTURES_A_PROCESS", "draw_all", "processes_for"]

Job = TypeVar("Job")
Drawn = TypeVar("Drawn")

#: Pictures that pay for a process: one more process for every so many pictures, this
#: one's included. Starting one takes 1.5-3 s (6 to 12 pictures' time), while this
#: process draws on; two processes draw 24 pictures (three scenarios or so) or more, a
#: report of one scenario (5 to 15 pictures) is drawn here alone. See README, "Design
#: notes".
PICTURES_A_PROCESS = 12
#: Pictures handed to each drawing process ahead of what it draws, so that it never
#: waits for this process (busy with a picture of its own) to hand it the next one.
AHEAD = 2

#: How often a drawing process looks whether the process that started it is still there.
PARENT_LOOK_SECONDS = 0.2

#: The file of the temporary folder that holds what every job is drawn from.
CONTEXT_FILE = "context.pickle"

#: In a drawing process: the function that draws a job, the folder of what it draws
#: from, and that, once read (None before its first job).
_held: tuple[Callable[[Any, Any], Any], str, Any] | None = None


def processes_for(pictures: int, processes: int | None) -> int:
    """How many processes draw ``pictures`` pictures, of the ``processes`` allowed: one
    for every :data:`PICTURES_A_PROCESS` pictures (this one included), at least this one.

    Parameters
    ----------
    pictures : int
        The pictures to draw.
    processes : int or None
        The most processes allowed: the run's thread count (None: as many as numba may
        use threads, :func:`simlab.engine.runner.max_threads`, looked up only when
        there are pictures enough for two).

    Returns
    -------
    int
        1 to ``processes``; 1 draws every picture in this process.
    """
    worth = pictures // PICTURES_A_PROCESS
    if worth < 2:
        return 1
    if processes is None:
        from simlab.engine.runner import max_threads

        processes = max_threads()
    return max(1, min(processes, worth))


def draw_all(
    jobs: Sequence[Job],
    draw: Callable[[Job, Any], Drawn],
    context: Any,
    processes: int | None,
    started: Callable[[int], None] | None = None,
) -> list[Drawn]:
    """``[draw(job, context) for job in jobs]``, drawn on up to ``processes`` cores.

    Parameters
    ----------
    jobs : sequence
        What to draw, each small to pickle (it is sent to a process).
    draw : callable
        ``draw(job, context)``: a function of a module (pickled by name), which gives
        the same answer wherever it runs.
    context : object
        What every job is drawn from, pickled once for each drawing process.
    processes : int or None
        The most processes that may draw, this one included (None: as many as numba
        may use threads); :func:`processes_for` says how many do.
    started : callable, optional
        Called with a job's index as the job is taken to be drawn, in order.

    Returns
    -------
    list
        The drawings, in the order of ``jobs``.
    """
    tell = started or (lambda k: None)
    helpers = processes_for(len(jobs), processes) - 1
    with _signals_between_pictures() as stop_if_pressed:
        if helpers:
            return _Spread(jobs, draw, context, tell, stop_if_pressed).run(helpers)
        drawn = []
        for k, job in enumerate(jobs):
            tell(k)
            drawn.append(draw(job, context))
            stop_if_pressed()
        return drawn


class _Spread(Generic[Job, Drawn]):
    """One :func:`draw_all` over this process and ``helpers`` spawned ones."""

    def __init__(self, jobs: Sequence[Job], draw: Callable[[Job, Any], Drawn], context: Any,
                 tell: Callable[[int], None],
                 stop_if_pressed: Callable[[], None]) -> None:  # fmt: skip
        self.jobs, self.draw, self.context, self.tell = jobs, draw, context, tell
        self.stop_if_pressed = stop_if_pressed
        self.drawn: dict[int, Drawn] = {}
        self.todo = deque(range(len(jobs)))
        self.away: dict[Future[Drawn], int] = {}  # jobs handed to the pool
        self.broken = False  # a process died or none could start: draw here alone

    def run(self, helpers: int) -> list[Drawn]:
        import multiprocessing

        folder = _context_folder()
        pool = ProcessPoolExecutor(
            helpers, mp_context=multiprocessing.get_context("spawn"), initializer=_hold,
            initargs=(self.draw, folder, matplotlib_settings(), os.getpid()),
        )  # fmt: skip
        written = False
        try:
            with _interrupts_held():  # the processes start here, Ctrl-C left to this one
                ready = [pool.submit(_ready) for _ in range(helpers)]
            while self.todo:
                if not written and any(f.done() for f in ready):
                    written = _write_context(folder, self.context, ready)
                if written:
                    self._hand_out(pool, ready, helpers * AHEAD)
                if self.todo:
                    self._here(self.todo.popleft())
                self._collect(block=False)
                self.stop_if_pressed()
            while self.away:
                self._collect(block=True)
                self.stop_if_pressed()
        finally:
            _stop(pool)
            shutil.rmtree(folder, ignore_errors=True)
        return [self.drawn[k] for k in range(len(self.jobs))]

    def _here(self, k: int) -> None:
        self.tell(k)
        self.drawn[k] = self.draw(self.jobs[k], self.context)

    def _hand_out(self, pool: ProcessPoolExecutor, ready: list[Future[None]], most: int) -> None:
        """Keep ``most`` jobs with the pool, which has a process started (or none could)."""
        from concurrent.futures.process import BrokenProcessPool

        if all(f.done() and f.exception() is not None for f in ready):
            self.broken = True
        while not self.broken and self.todo and len(self.away) < most:
            k = self.todo[0]
            try:
                with _interrupts_held():
                    future = pool.submit(_draw_held, self.jobs[k])
            except BrokenProcessPool:  # a process died since the last look: draw here
                self.broken = True
                return
            self.away[future] = self.todo.popleft()
            self.tell(k)

    def _collect(self, block: bool) -> None:
        """Take what the pool has drawn; a job it failed on is drawn here (and raises
        here the error it raised there); after a process died, every job it had too."""
        from concurrent.futures.process import BrokenProcessPool

        if block:
            wait(self.away, timeout=0.1, return_when=FIRST_COMPLETED)
        for future in [f for f in self.away if f.done()]:
            k = self.away.pop(future)
            error = future.exception()
            if error is None:
                self.drawn[k] = future.result()
                continue
            self.broken = self.broken or isinstance(error, BrokenProcessPool)
            self.drawn[k] = self.draw(self.jobs[k], self.context)


def matplotlib_settings() -> dict[str, Any]:
    """This process's matplotlib settings (``rcParams``, but its backend), for a drawing
    process to draw as this one does: a notebook's style or its inline backend's
    transparent background are in every PNG drawn here, so they are in those drawn
    there too."""
    import matplotlib

    return {k: v for k, v in dict.items(matplotlib.rcParams) if k != "backend"}


def _context_folder() -> str:
    """A name for the temporary folder that the context goes to, in the temp dir and
    unused; the folder itself is made later (:func:`_write_context`)."""
    while True:
        folder = os.path.join(tempfile.gettempdir(), f"simlab-drawing-{secrets.token_hex(8)}")
        if not os.path.lexists(folder):
            return folder


def _write_context(folder: str, context: Any, ready: list[Future[None]]) -> bool:
    """Make ``folder`` (readable by this user alone) and write ``context`` into it, once
    a drawing process has started (one of ``ready`` done without an error); returns
    whether it is written.

    Written only then, so that a drawing process watches for this process's end before
    the folder exists (:func:`_end_with_parent`). A process that dies in its start-up
    never watches: one whose parent is killed between starting it and writing into the
    pipe what it starts with (multiprocessing does the one just after the other) fails
    as it reads that pipe. With the folder made before the processes started, the
    ``kill -9`` test once found it left in the temp dir (fresh-clone CI, December 2)."""
    if not any(f.done() and f.exception() is None for f in ready):
        return False
    os.mkdir(folder, 0o700)
    with open(os.path.join(folder, CONTEXT_FILE), "wb") as file:
        pickle.dump(context, file, protocol=pickle.HIGHEST_PROTOCOL)
    return True


def _hold(draw: Callable[[Any, Any], Any], folder: str, settings: dict[str, Any],
          parent: int) -> None:  # fmt: skip
    """Start a drawing process: matplotlib set as in the process that drew alone
    (a notebook's style, say), and the process ``parent`` that started it watched
    (:func:`_end_with_parent`); what its jobs are drawn from is read from ``folder``
    at its first job (:func:`_draw_held`), once the parent has written it there
    (:func:`_write_context`).

    What they are drawn from comes in a file, not with the process's start: Python
    writes what a spawned process starts with into a pipe that the process reads after
    it has imported the caller's main module. A script that calls ``write_report``
    without ``if __name__ == "__main__":`` has that process run the script again and
    die of it before it reads on, and this process, writing a few MB into that pipe,
    waited forever (README, "Python API"). Started with little, the process dies, this
    one sees its pool broken and draws every picture itself."""
    import matplotlib

    global _held
    _end_with_parent(parent, folder)
    cast(Any, matplotlib.rcParams).update(settings)
    _held = (draw, folder, None)


def _end_with_parent(parent: int, folder: str) -> None:
    """End this drawing process, its parent's temporary ``folder`` removed, as soon as
    the process ``parent`` is gone, from a thread that looks every
    :data:`PARENT_LOOK_SECONDS`.

    A parent killed with ``kill -9`` (or by a SIGTERM with no handler) cannot end its
    drawing processes, and they would wait for jobs forever: each holds both ends of the
    pipe its jobs come by, so it never reads an end of it. Its parent gone, a process is
    another's child (``init``'s, or a subreaper's), so its parent's id changes.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_LOOK_SECONDS)
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(0)

    threading.Thread(target=watch, name="simlab-drawing-parent", daemon=True).start()


def _ready() -> None:
    """Nothing: its answer says a drawing process has started."""


def _draw_held(job: Any) -> Any:
    """Draw ``job`` in a drawing process, from the context read at its first job."""
    global _held
    assert _held is not None
    draw, folder, context = _held
    if context is None:
        with open(os.path.join(folder, CONTEXT_FILE), "rb") as file:
            context = pickle.load(file)
        _held = (draw, folder, context)
    return draw(job, context)


@contextlib.contextmanager
def _signals_between_pictures() -> Iterator[Callable[[], None]]:
    """Take a Ctrl-C (SIGINT), or a SIGTERM that a handler raises, between two pictures,
    not inside one; yields the check to make after each.

    Raised where Python's own handler raises it, a KeyboardInterrupt could land in a
    callback that matplotlib's clean-up runs (a weak reference's, as a figure goes),
    where Python prints "Exception ignored" and drops it: the report was then drawn to
    its end and written (a third or more of the Ctrl-Cs sent while drawing). Here a
    handler only notes the signal, and the check raises it (or calls the SIGTERM
    handler noted, which raises what it raises), within a picture's time (0.2-0.3 s).
    A SIGINT handler of the caller's own (not Python's) is left as it is, and so is a
    SIGTERM with no handler of Python's (its default ends the process at once).
    """
    taken: dict[int, Callable[[int, Any], Any]] = {}
    came: list[int] = []

    def stop_if_pressed() -> None:
        while came:
            number = came.pop(0)
            taken[number](number, None)

    if threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            taken[signal.SIGINT] = signal.default_int_handler
        terminate = signal.getsignal(signal.SIGTERM)
        if callable(terminate):
            taken[signal.SIGTERM] = terminate
    for number in taken:
        signal.signal(number, lambda number, frame: came.append(number))
    try:
        yield stop_if_pressed
        stop_if_pressed()  # one that came as the last picture was being drawn
    finally:
        for number, handler in taken.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) back while processes may start: they begin with it blocked,
    so that a Ctrl-C stops this process alone, which stops them, and none of them prints
    a traceback of its own; one pressed meanwhile reaches this process after."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _stop(pool: ProcessPoolExecutor) -> None:
    """End the drawing processes now, those still starting too: waiting for them would
    hold this process's exit back by their start-up."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:  # no public way to do this before Python 3.14
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
