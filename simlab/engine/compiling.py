"""Saying that a run is about to compile kernels, which numba does without a word.

The first run of a rule system (after installing or upgrading simlab, or with a new
``NUMBA_CACHE_DIR``) compiles its kernels: 5–15 s on 2 cores, a traced run's some 2 s
more. In a notebook that looks like a hang. Only numba's cache knows whether a kernel
is about to be compiled: ``jit._KernelCache`` calls :func:`compile_starting` when a
kernel is not in it. A run that wants to be told listens (:func:`listening`), naming its
rule system; the first compile of each rule system inside calls the listener once, with
that name, and a warm run, whose kernels all come from the cache, calls nothing.

Who listens: the Python API, when its caller passed no ``progress`` of its own, logs
one line through the ``simlab`` logger (:func:`say_compiling`), which prints it on
standard error unless the program has set up logging of its own; the command line
says it in its own way (``cli._compile_notice``: on a terminal, its progress bar).
This module imports nothing heavy: the command line's start-up imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

#: A listener is called with the name of the rule system whose kernels compile ("" when
#: no run inside named one).
Listener = Callable[[str], None]

#: The name of the logger :func:`say_compiling` logs through, at INFO. Silence it with
#: ``logging.getLogger("simlab").setLevel(logging.WARNING)``.
LOGGER = "simlab"


def _logger() -> logging.Logger:
    """The ``simlab`` logger, made ready at its first use (``logging`` is imported only
    by a run that has something to say, not by ``simlab validate``): at INFO unless the
    program set its level, with a handler that prints on standard error while the
    program has set up no logging of its own (no handler on the root logger); with one,
    the record goes to the program's handlers instead, as any library's does."""
    import logging

    class ToStderr(logging.Handler):
        """Prints a record on standard error as it is at that moment (a notebook
        replaces it for each cell), unless the root logger has handlers."""

        def emit(self, record: logging.LogRecord) -> None:
            if logging.getLogger().handlers:
                return
            try:
                sys.stderr.write(self.format(record) + "\n")
                sys.stderr.flush()
            except Exception:  # logging's own rule: a message never raises
                self.handleError(record)

    logger = logging.getLogger(LOGGER)
    if not getattr(logger, "_simlab_ready", False):
        if logger.level == logging.NOTSET:  # INFO shows, where the root's WARNING would not
            logger.setLevel(logging.INFO)
        logger.addHandler(ToStderr())
        logger._simlab_ready = True  # type: ignore[attr-defined]
    return logger


@dataclass
class _Listening:
    """The outer :func:`listening`: its listener, the rule systems of the runs inside it
    (innermost last) and those whose compile it has told of."""

    listener: Listener | None
    runs: list[str] = field(default_factory=list)
    told: set[str] = field(default_factory=set)


_LISTENING: list[_Listening] = []


@contextmanager
def listening(listener: Listener | None, rules: str = "") -> Iterator[None]:
    """Call ``listener`` once for each rule system whose kernels start compiling inside
    the ``with``.

    Parameters
    ----------
    listener : callable or None
        Called with the rule system's name, just before numba starts compiling its first
        kernel (on whichever thread compiles); None: say nothing (a caller showing its
        own progress).
    rules : str, optional
        The rule system run inside. A ``listening`` inside another names the rule system
        of its own run (each of a report's scenarios) and changes nothing else.

    Notes
    -----
    An outer ``listening`` wins: inside one, another's listener is not called, so a
    command or a sweep that runs many simulations tells of a rule system's compile once,
    in its own words.
    """
    if _LISTENING:
        _LISTENING[0].runs.append(rules)
        try:
            yield
        finally:
            _LISTENING[0].runs.pop()
        return
    _LISTENING.append(_Listening(listener, [rules]))
    try:
        yield
    finally:
        _LISTENING.clear()


def compile_starting() -> None:
    """Tell the listener, if any, that a kernel is about to be compiled: the first time
    for each rule system (numba compiles under one lock, so calls never overlap)."""
    if not _LISTENING or (listener := _LISTENING[0].listener) is None:
        return
    now = _LISTENING[0]
    rules = next((name for name in reversed(now.runs) if name), "")
    if rules not in now.told:
        now.told.add(rules)
        listener(rules)


#: The rule systems whose compile :func:`say_compiling` has told of in this process.
_TOLD_IN_PROCESS: set[str] = set()


def say_compiling(rules: str) -> None:
    """The Python API's listener: log that the kernels of ``rules`` are being compiled;
    in the words of a later compile when this process said so of ``rules`` before (a
    notebook's traced run, or another kind of run of the same rules, compiles kernels
    of its own)."""
    again = rules in _TOLD_IN_PROCESS
    _TOLD_IN_PROCESS.add(rules)
    _logger().info(compiling_message(rules, again))


def compiling_message(rules: str, again: bool = False) -> str:
    """The line that says the kernels of the rule system ``rules`` are being compiled
    (``again``: more of them, after a first compile in the same process)."""
    if again:
        return (f"simlab: compiling more of {kernels_of(rules)}, for a kind of run not "
                "played yet in this session (a few seconds; later runs load them from the "
                "cache)")  # fmt: skip
    return f"simlab: {compile_notice(rules)}"


#: How long a rule system's first compile takes on 2 cores (``bench/bench_first_run.py``),
#: as every notice of a compile says it.
FIRST_COMPILE = "5–15 s"


def compile_notice(rules: str) -> str:
    """``compiling the RULES kernels (a first run: 5–15 s; later runs load them from the
    cache)``, the words of :func:`compiling_message` and of the command line's line."""
    return (f"compiling {kernels_of(rules)} (a first run: {FIRST_COMPILE}; "
            "later runs load them from the cache)")  # fmt: skip


def kernels_of(rules: str) -> str:
    """``the RULES kernels``; ``the kernels`` when ``rules`` is empty (not named)."""
    return f"the {rules} kernels" if rules else "the kernels"
