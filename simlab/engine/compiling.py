"""Saying that a run is about to compile kernels, which numba does without a word.

The first run of a rule system (after installing or upgrading simlab, or with a new
``NUMBA_CACHE_DIR``) compiles its kernels: 10–30 s on 2 cores, a traced run's some 7 s
more. In a notebook that looks like a hang. Only numba's cache knows whether a kernel
is about to be compiled: ``jit._KernelCache`` calls :func:`compile_starting` when a
kernel is not in it. A run that wants to be told listens (:func:`listening`); the first
compile inside calls its listener once, and a warm run, whose kernels all come from the
cache, calls nothing.

Who listens: the Python API, when its caller passed no ``progress`` of its own, logs
one line through the ``simlab`` logger (:func:`say_compiling`), which prints it on
standard error unless the program has set up logging of its own; the command line
prints its own line (``cli._compile_notice``). This module imports nothing heavy: the
command line's start-up imports it.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Listener = Callable[[], None]

#: The logger :func:`say_compiling` logs through, at INFO. Silence it with
#: ``logging.getLogger("simlab").setLevel(logging.WARNING)``.
logger = logging.getLogger("simlab")


class _ToStderr(logging.Handler):
    """Prints a record's message on standard error as it is at that moment (a notebook
    replaces it for each cell), while the program has set up no logging of its own
    (no handler on the root logger); with one, the record goes to the program's
    handlers instead, as any library's does."""

    def emit(self, record: logging.LogRecord) -> None:
        if logging.getLogger().handlers:
            return
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # logging's own rule: a message never raises
            self.handleError(record)


if logger.level == logging.NOTSET:  # INFO shows, where the root logger's WARNING would not
    logger.setLevel(logging.INFO)
if not any(isinstance(h, _ToStderr) for h in logger.handlers):
    logger.addHandler(_ToStderr())

_LISTENERS: list[Listener | None] = []


@contextmanager
def listening(listener: Listener | None) -> Iterator[None]:
    """Call ``listener`` once, when the first kernel is compiled inside the ``with``.

    Parameters
    ----------
    listener : callable or None
        Called with no arguments, just before numba starts compiling (on whichever
        thread compiles); None: say nothing (a caller showing its own progress).

    Notes
    -----
    An outer ``listening`` wins: inside one, another changes nothing, so a command or a
    sweep that runs many simulations tells of a compile once, in its own words.
    """
    if _LISTENERS:
        yield
        return
    _LISTENERS.append(listener)
    try:
        yield
    finally:
        _LISTENERS.clear()


def compile_starting() -> None:
    """Tell the listener, if any, that a kernel is about to be compiled: the first
    time only (numba compiles under one lock, so calls never overlap)."""
    if _LISTENERS and _LISTENERS[0] is not None:
        listener, _LISTENERS[0] = _LISTENERS[0], None
        listener()


def say_compiling(rules: str) -> Listener:
    """The Python API's listener: log that the kernels of ``rules`` are being compiled."""
    return lambda: logger.info(compiling_message(rules))


def compiling_message(rules: str) -> str:
    """The line that says the kernels of the rule system ``rules`` are being compiled."""
    return (f"simlab: compiling the {rules} kernels (a first run: 10–30 s; "
            "later runs load them from the cache)")  # fmt: skip
