"""The ``simlab`` command run as the tests of the command line run it, cheaply.

A fresh ``python -m simlab`` costs 1.5-3 s of CPU before it does anything (numpy,
pandas, scipy, numba and the kernels loaded again). A test whose subject is what a
command says, exits with and writes runs it here instead: in this process
(:func:`simlab_here`), or, where a regression would hang or eat the memory of the test
process (a FIFO read, ``/dev/zero`` read to its end), several commands in one fresh
process with a timeout (:func:`simlab_in_one_process`). A test whose subject is the
process itself (signals, pipes, a terminal, start-up, exit without teardown) keeps its
own ``python -m simlab``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner, Result

ROOT = Path(__file__).resolve().parents[2]


def _completed(args: list[str], result: Result) -> subprocess.CompletedProcess[str]:
    """``result`` as ``subprocess.run`` gives a command's: an exception the command let
    out becomes the traceback a process would print on stderr, and exit status 1."""
    stderr = result.stderr
    if result.exc_info is not None and not isinstance(result.exception, SystemExit):
        stderr += "Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(*result.exc_info)
        )
    return subprocess.CompletedProcess(["simlab", *args], result.exit_code, result.stdout, stderr)


class TookTooLong(BaseException):
    """A command run by :func:`simlab_here` outlived its timeout (a ``BaseException``: the
    command's own last line of defence, ``except Exception``, lets it through)."""


def _too_long(signum: int, frame: object) -> None:
    raise TookTooLong("the simlab command outlived its timeout")


@contextlib.contextmanager
def _timed_out_after(seconds: float) -> Iterator[None]:
    """:class:`TookTooLong` raised in the block once ``seconds`` have passed, as
    ``subprocess.run``'s timeout ends a command that never stops."""
    before = signal.signal(signal.SIGALRM, _too_long)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def simlab_here(
    *args: object, cwd: Path = ROOT, timeout: float = 600, columns: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``simlab ARGS`` run in this process from folder ``cwd``, its output piped, stopped
    after ``timeout`` seconds, with ``COLUMNS`` set to ``columns`` if given (the
    terminal's console made again under it, as a fresh process makes it): its exit
    status, stdout and stderr as ``subprocess.run(..., capture_output=True, text=True,
    timeout=timeout)`` gives them."""
    from simlab.cli import main
    from simlab.report import terminal
    from tests.support import terminal_console

    words = [str(a) for a in args]
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.ExitStack() as stack:
            if columns is not None:
                stack.enter_context(terminal_console(terminal._make_console, int(columns)))
            with _timed_out_after(timeout):
                result = CliRunner().invoke(main, words)
    finally:
        os.chdir(before)
    return _completed(words, result)


#: Run in a fresh Python: each command of the JSON list in ``argv[1]`` through
#: :func:`simlab_here`, one after the other, and their results and seconds as JSON on
#: stdout.
_ONE_PROCESS = """
import json, sys, time
from tests.cli.simlab_runs import simlab_here
done = []
for args in json.loads(sys.argv[1]):
    started = time.monotonic()
    d = simlab_here(*args)
    done.append([d.returncode, d.stdout, d.stderr, time.monotonic() - started])
print(json.dumps(done))
"""


def simlab_in_one_process(
    commands: list[list[object]], timeout: float
) -> list[tuple[subprocess.CompletedProcess[str], float]]:
    """Each of ``commands`` (the arguments of one ``simlab``) run in turn in one fresh
    Python, from the checkout's root, given ``timeout`` seconds in all (a command that
    hangs or runs out of memory fails the test, not the test process): each one's result
    and the seconds it took."""
    words = [[str(a) for a in args] for args in commands]
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}  # tests.cli importable
    child = subprocess.run([sys.executable, "-c", _ONE_PROCESS, json.dumps(words)], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=timeout)  # fmt: skip
    assert child.returncode == 0, child.stderr
    return [(subprocess.CompletedProcess(["simlab", *w], code, out, err), seconds)
            for w, (code, out, err, seconds) in zip(words, json.loads(child.stdout),
                                                    strict=True)]  # fmt: skip
