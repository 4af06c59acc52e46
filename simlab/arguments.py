"""Checks of the Python API's arguments (README "Python API (notebooks)").

Every argument of a public function is checked before anything runs: one of the wrong
type raises :class:`~simlab.errors.InputError` naming it, ``expected X; got Y``, rather
than a ``TypeError`` or ``AttributeError`` from deep inside (or a wrong file written).
Counts are checked by :func:`simlab.limits.whole_number_in`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from simlab.errors import InputError

#: The longest text or number shown as found in a message.
_MAX_SHOWN = 60


def describe(value: object) -> str:
    """Show a found value in a message: None, numbers and short texts as written, anything
    else by its type with an article (``a dict``, ``a SweepResult``, ``bytes``)."""
    if value is None or isinstance(value, bool | int | float | str):
        shown = repr(value)
        return shown if len(shown) <= _MAX_SHOWN else shown[: _MAX_SHOWN - 4] + "...'"
    if isinstance(value, bytes | bytearray):
        return type(value).__name__
    return _with_article(type(value).__name__)


def _with_article(name: str) -> str:
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"


def is_path(value: object) -> bool:
    """Whether ``value`` names a file: a str, or an ``os.PathLike`` of one (not bytes)."""
    return isinstance(value, str | os.PathLike) and isinstance(os.fspath(value), str)


def names_an_entry(text: str | os.PathLike[str], kind: str = "any") -> bool:
    """Whether ``text``, read as a path, names something on disk: ``kind`` ``"file"`` a
    file, ``"folder"`` a folder, else anything. False, not an error, for text no path can
    be (longer than the system allows a name, or holding a NUL byte): a scenario's text
    (:func:`simlab.loads`, :func:`simlab.compare`'s ``b``) or a mistyped path, which is
    then refused where it is read, saying why."""
    path = Path(text)
    try:
        return {"file": path.is_file, "folder": path.is_dir}.get(kind, path.exists)()
    except (OSError, ValueError):
        return False


def path_argument(value: object, what: str, name: str) -> str | os.PathLike[str]:
    """``value`` when it is a path (a str or an ``os.PathLike`` of one, not empty, no NUL
    byte).

    Parameters
    ----------
    value : object
        The argument as given.
    what : str
        What the path must name, for the message (``"a folder path"``).
    name : str
        The argument's name (``"out_dir"``).

    Raises
    ------
    simlab.errors.InputError
        ``expected a folder path for out_dir; got None``.
    """
    if not is_path(value):
        raise InputError(f"expected {what} for {name}; got {describe(value)}")
    text = os.fspath(value)  # type: ignore[call-overload]
    if "\0" in text:
        raise InputError(f"expected {what} for {name}; got a path with a NUL byte {text!r}")
    if text == "":  # Path("") is the current folder, which was not asked for
        raise InputError(f"expected {what} for {name}; got an empty path ''")
    too_long = path_too_long(text)
    if too_long:
        raise InputError(f"expected {what} for {name}; got {too_long}")
    return value  # type: ignore[return-value]


def path_too_long(text: str) -> str | None:
    """What is wrong with ``text`` as a path if the system could hold no such path: a
    name in it longer than a file's name may be, or the whole longer than a path may be
    (Linux: 255 and 4,096 bytes); None for a path of a length the system takes.

    Asking the system of such a path raised ``OSError: File name too long`` wherever it
    was first looked at (an internal error of a command); a path within the lengths is
    refused, if it must be, where it is read or written, saying why.
    """
    name_max, path_max = _path_limits()
    encoded = os.fsencode(text)
    longest = max(encoded.split(b"/"), key=len)
    if len(longest) > name_max:
        shown = os.fsdecode(longest)
        return (f"a name of {len(longest):,} bytes ({shown[:20]!r}…), longer than the "
                f"{name_max} a file's name may have")  # fmt: skip
    if len(encoded) >= path_max:
        return f"a path of {len(encoded):,} bytes, longer than the {path_max - 1:,} a path may have"
    return None


def _path_limits() -> tuple[int, int]:
    """The most bytes of a file's name and of a whole path (with its final NUL)."""
    try:
        return os.pathconf("/", "PC_NAME_MAX"), os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError):  # a system that does not say: the common limits
        return 255, 4096


def function_argument(value: object, name: str) -> None:
    """Refuse ``value`` unless it is None or callable (a ``progress`` callback).

    Raises
    ------
    simlab.errors.InputError
        ``expected a function for progress; got 5``.
    """
    if value is not None and not callable(value):
        raise InputError(f"expected a function for {name}; got {describe(value)}")


def instance_argument(value: object, kind: type | tuple[type, ...],
                      made_by: str | tuple[str, ...], name: str = "") -> None:  # fmt: skip
    """Refuse ``value`` unless it is a ``kind`` (what a writer writes, what a plot draws).

    Parameters
    ----------
    value : object
        The argument as given.
    kind : type or tuple of types
        The class expected, or the classes.
    made_by : str or tuple of str
        The function that makes one (of each), for the message (``"simlab.tune"``).
    name : str, optional
        The argument's name, for the message (``"result"``).

    Raises
    ------
    simlab.errors.InputError
        ``expected a TuneResult (simlab.tune); got a SweepResult``; with ``name``,
        ``expected a SweepResult (simlab.sweep) for sweep; got a Result``.
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    makers = made_by if isinstance(made_by, tuple) else (made_by,)
    if not isinstance(value, kinds):
        expected = " or ".join(f"{_with_article(k.__name__)} ({m})"
                               for k, m in zip(kinds, makers, strict=True))  # fmt: skip
        raise InputError(f"expected {expected}{f' for {name}' if name else ''}; "
                         f"got {describe(value)}")  # fmt: skip


def client_argument(value: Any) -> None:
    """Refuse ``value`` unless it is None or looks like a Dask ``distributed.Client``
    (it has ``scheduler_info``).

    Raises
    ------
    simlab.errors.InputError
        ``expected a Dask distributed.Client for client; got 'localhost:8786'``.
    """
    if value is not None and not callable(getattr(value, "scheduler_info", None)):
        raise InputError(f"expected a Dask distributed.Client for client; got {describe(value)}")


def threads_or_client(threads: object, client: Any) -> None:
    """Refuse a ``client`` that is not a Dask client (:func:`client_argument`), and
    ``threads`` beside one: a cluster's workers play on threads of their own.

    Raises
    ------
    simlab.errors.InputError
        ``expected threads= or client=; got both (…)``.
    """
    client_argument(client)
    if client is not None and threads is not None:  # a cluster's workers set their own
        raise InputError("expected threads= or client=; got both (on a cluster each worker "
                         "plays on its own threads: NUMBA_NUM_THREADS, --nthreads)")  # fmt: skip


def spelled_as(label: str, python: str, command_line: str) -> str:
    """``command_line`` where ``label`` names a command-line argument, else ``python``:
    how a message points to another argument in the words its reader typed. A label
    names its argument as given (``--set Defender.guard=2``, ``vary Defender.guard``),
    and only the command line's start with ``--``."""
    return command_line if label.startswith("--") else python


def figures_argument(precision_on: Any) -> tuple[Any, ...]:
    """``precision_on`` as a tuple, read once: one figure written alone (a str) is one
    figure, not its letters; any other iterable (a generator) is read here, where a
    second reading would find it empty."""
    return (precision_on,) if isinstance(precision_on, str) else tuple(precision_on)


def precision_on_argument(precision: object, precision_on: Any) -> tuple[Any, ...]:
    """Refuse ``precision_on`` without a ``precision`` (given, or the scenario's): the
    figures it names would go unread. Figures the command line parsed carry its label
    (:class:`~simlab.tuning.figures.FigureRef`): its message names ``--precision-on``.

    Returns
    -------
    tuple
        The figures, read once (:func:`figures_argument`).

    Raises
    ------
    simlab.errors.InputError
        ``precision_on: expected precision= (or precision: in the scenario) to go with
        it; got none``; from the command line ``--precision-on: expected --precision H
        …``.
    """
    figures = figures_argument(precision_on)
    if precision is None and figures:
        label = spelled_as(getattr(figures[0], "label", ""), "precision_on", "--precision-on")
        raise InputError(f"{label}: expected {spelled_as(label, 'precision=', '--precision H')} "
                         "(or precision: in the scenario) to go with it; got none")  # fmt: skip
    return figures


def flag_argument(value: object, name: str) -> bool:
    """``value`` as True or False: a bool, or numpy's (``np.True_``, a comparison of
    arrays' items); anything else is refused (``trace="yes"`` read as true, and
    ``exact="no"`` too).

    Raises
    ------
    simlab.errors.InputError
        ``expected True or False for trace; got 'yes'``.
    """
    numpy_bool = hasattr(value, "dtype") and getattr(value.dtype, "kind", None) == "b"
    if not isinstance(value, bool) and not (numpy_bool and getattr(value, "ndim", 1) == 0):
        raise InputError(f"expected True or False for {name}; got {describe(value)}")
    return bool(value)
