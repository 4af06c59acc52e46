"""Limits on what simlab accepts, in one place (README "Limits").

They keep hostile or mistaken input from hanging or exhausting the machine: each is
checked before the expensive work starts, and going over one is an input error (exit
code 2) that names the limit.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Any

#: The largest seed: the Philox key is its two 32-bit halves (``rng.key_from_seed``).
MAX_SEED = 2**64 - 1
#: The most encounters one run may simulate (scenario ``encounters:`` and ``-n``).
MAX_ENCOUNTERS = 10**11
#: The largest scenario file read, in bytes (the examples are 1–3 kB).
MAX_SCENARIO_BYTES = 250_000
#: The largest results file read (``--from``, ``--baseline``, ``load_results``), in bytes:
#: the committed baseline of 30 scenarios is 2 MB, a scenario takes 7–100 kB.
MAX_RESULTS_BYTES = 50_000_000
#: The deepest nesting of lists and mappings in a scenario file.
MAX_DEPTH = 64
#: The most YAML nodes (keys, values, items) in a scenario file (the examples have ~300).
MAX_NODES = 10_000
#: The most digits of an integer written in a scenario (or a ``--set`` value): every
#: field's bound has at most 20 (``MAX_SEED``), and Python refuses to convert a decimal
#: of more than 4,300 digits at all.
MAX_INTEGER_DIGITS = 100
#: The most problems reported for one file; the rest are counted.
MAX_PROBLEMS = 50

# -- A scenario's fields: one bound for each kind of quantity, in every rule system -------
# (README "Scenarios", Limits, and each rule page's Limits table). The kernels hold every
# one of these in int64 arrays; what keeps them this small is memory and sense.

#: The most rounds an encounter lasts (``max_rounds``), and the latest round a field names
#: (an ``expect:`` round, a reinforcement's ``from_round``).
MAX_ROUNDS = 1000
#: The most combatants in a scenario, ``count:`` copies (and shattered-spirits' Spirits
#: and reinforcement slots) included: the kernels' engagement masks hold 64 bits.
MAX_COMBATANTS = 64
#: The largest pool a combatant starts with that damage wears down: ``hp``, and
#: shattered-spirits' ``vigor``, ``endurance`` and ``health``.
MAX_HP = 100_000
#: The largest size of a status, wherever it is written: a profile's ``exposed N``, a
#: combatant's starting ``exposed:``/``impaired:``, glitters-d20's starting
#: ``bleeding:``, Rushing N terrain, draft1's ``fumble_exposed``.
MAX_STATUS_SIZE = 999
#: The largest Guard, wherever it is written: a combatant's or a Spirit's ``guard``, a
#: Stance's ``guard_modifier`` (either way), the ``cover_guard`` that Cover adds.
MAX_GUARD = 999
#: The most of a token (Grit, Reflex, Momentum, Focus) a combatant starts with.
MAX_TOKENS = 99
#: The most Momentum a combatant gains in a round (``momentum_per_respite``, draft1's
#: ``momentum_per_refresh``).
MAX_MOMENTUM_PER_ROUND = 10
#: The most Momentum a combatant can ever hold: its most tokens and the most gained in
#: each of the most rounds. A price in Momentum (``momentum_cost``) goes up to it; the
#: scenario's own most (``Scenario.most_momentum``) is checked apart.
MAX_MOMENTUM = MAX_TOKENS + MAX_MOMENTUM_PER_ROUND * MAX_ROUNDS
#: The most attacks in a combatant's (or a Spirit's) ``attacks:`` rotation, and the most
#: Techniques in a draft1 ``plan:``.
MAX_ROTATION = 20
#: The most bins of a damage histogram; the last one counts that damage and more.
MAX_DAMAGE_BINS = 4096
#: The most damage X that P(damage ≥ X) is asked of (an ``expect:`` spec's ``damage``,
#: ``damage_at_least:ATTACK@X``): the last bin's, the highest that a histogram capped
#: at :data:`MAX_DAMAGE_BINS` still counts whole.
MAX_DAMAGE_AT_LEAST = MAX_DAMAGE_BINS - 1

#: The most ranges a comparison measures its intervals on (``compare(ranges=K)``): each
#: is a kernel call and a set of tallies of its own.
MAX_RANGES = 1000


def whole_number_in(value: object, what: str, lo: int, hi: int) -> int:
    """``value`` as an int, when it is a whole number from ``lo`` to ``hi``.

    Parameters
    ----------
    value : object
        An int, a numpy integer, or a float with no fraction (``1e6``, as a notebook
        writes a large count). ``True`` and ``False`` are not numbers here.
    what : str
        What the number counts, for the message (``"encounters"``).
    lo, hi : int
        The range, both included.

    Raises
    ------
    simlab.errors.InputError
        Saying what was expected and what was given: a fraction (``2.5``), a text, a
        bool, or a number out of range. Checked before anything runs, so that no such
        value reaches a loop it would stall (a negative block size did).
    """
    import math
    import numbers

    from simlab.errors import InputError

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"expected {what} as a whole number; got {value!r}")
    if isinstance(value, numbers.Integral):
        number = int(value)
    elif math.isfinite(float(value)) and float(value).is_integer():
        number = int(float(value))
    else:
        raise InputError(f"expected {what} as a whole number; got {value!r}")
    if not lo <= number <= hi:
        raise InputError(f"expected {what} from {lo:,} to {hi:,}; got {value!r}")
    return number


def seed_value(seed: object) -> int:
    """``seed`` as a Python int, when it is a whole number from 0 to :data:`MAX_SEED`:
    an int, a numpy integer (a run's seed is written to JSON, which takes no numpy
    number) or a float with no fraction (``seed=1e3``, taken as ``n=1e3`` is, and as
    ``--seed 1e3`` and a file's ``seed: 1e3`` are).

    Raises
    ------
    simlab.errors.InputError
        ``expected a seed as a whole number; got 1.5`` for a fraction, a bool, a text or
        None; ``expected a seed between 0 and 2**64-1; got -1`` for one out of range.
    """
    import math
    import numbers
    import operator

    from simlab.errors import InputError

    try:
        value = None if isinstance(seed, bool) else operator.index(seed)  # type: ignore[arg-type]
    except TypeError:
        value = None
    if value is None and isinstance(seed, numbers.Real) and not isinstance(seed, bool):
        whole = math.isfinite(float(seed)) and float(seed).is_integer()
        value = int(float(seed)) if whole else None
    if value is None:
        raise InputError(f"expected a seed as a whole number; got {seed!r}")
    if not 0 <= value <= MAX_SEED:
        raise InputError(f"expected a seed between 0 and 2**64-1; got {seed!r}")
    return int(value)


def encounters_and_seed(scenario: Any, n: object, seed: object) -> tuple[int, int]:
    """A run's sample size and seed as Python ints: ``n`` and ``seed`` when given
    (:func:`whole_number_in`, :func:`seed_value`), else the scenario's own."""
    count = (
        scenario.encounters if n is None else whole_number_in(n, "encounters", 1, MAX_ENCOUNTERS)
    )
    return count, scenario.seed if seed is None else seed_value(seed)


def too_many_digits(digits: int) -> str | None:
    """The message for an integer written with ``digits`` digits when that is more than
    :data:`MAX_INTEGER_DIGITS` (in a scenario file or an override), else None."""
    if digits <= MAX_INTEGER_DIGITS:
        return None
    return (f"expected an integer of at most {MAX_INTEGER_DIGITS} digits; got a number "
            f"with {digits:,} digits")  # fmt: skip


def read_bounded(filename: str, limit: int, refuse: Callable[[str], Exception]) -> bytes:
    """The bytes of the regular file ``filename``, refusing anything else or anything larger.

    The file is opened without blocking and checked before it is read, so that a FIFO, a
    device (``/dev/zero``) or a huge file is refused at once rather than read (README
    "Limits"): scenario files (:data:`MAX_SCENARIO_BYTES`) and results files
    (:data:`MAX_RESULTS_BYTES`) are all read through here.

    Parameters
    ----------
    filename : str
        The file, as the user named it.
    limit : int
        The most bytes accepted.
    refuse : callable
        Makes the exception to raise from what was found instead (the "got" of an
        ``expected X; got Y`` message), e.g. ``"a pipe (FIFO), not a regular file"``.

    Raises
    ------
    Exception
        ``refuse(got)``: the file is missing, unreadable, not a regular file or larger
        than ``limit`` bytes, or its name holds a NUL byte (no file can).
    """
    if "\0" in filename:
        raise refuse("a path with a NUL byte")
    try:
        fd = os.open(filename, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise refuse(_describe_read_error(exc)) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise refuse(_file_kind(info.st_mode))
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise refuse(_describe_read_error(exc)) from None
    size = max(len(data), info.st_size)
    if size > limit:
        raise refuse(f"{size:_} bytes (the limit is {limit:_})")
    return data


def _file_kind(mode: int) -> str:
    """Name what a path is when it is not a regular file."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    return "something that is not a regular file"


def _describe_read_error(exc: OSError) -> str:
    """Say in plain words why a file could not be read."""
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "a directory"
    if isinstance(exc, PermissionError):
        return "a file we are not permitted to read"
    return (exc.strerror or type(exc).__name__).lower()
