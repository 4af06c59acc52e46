"""The one place that owns numba options.

Kernels everywhere in simlab are plain Python functions; they are compiled here, with the
same options, so that a newcomer can read and step through them in plain Python (set
``NUMBA_DISABLE_JIT=1``) and so that caching and threading are decided once.
Importing this module imports numba: only the engine and rule kernels import it, never
the CLI start-up or scenario validation.

Why two serial decorators: numba reference-counts every array passed into a function
that LLVM does not inline, an atomic increment and decrement per array per call. Our
kernels pass a tuple of parameter arrays down a chain of small rule functions, and that
bookkeeping cost 20–50× the work itself (measured: 48 ns against 1.4 ns per target
choice). Functions that never allocate are compiled without the runtime (``_nrt=False``),
which removes it; the few that allocate (state buffers, result arrays) use
:func:`allocating_kernel`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial numba kernel that allocates no arrays (hot paths)."""
    return _one_version_per_type(numba.njit(_nrt=False, **_OPTIONS)(fn))  # type: ignore[call-overload]


def _one_version_per_type(dispatcher: Any) -> Any:
    """Make ``dispatcher`` compile one version per argument *type*, not per constant.

    Called from compiled code with a constant argument (``roll_die(rng, STREAM_ATTACK,
    6)``), numba types that argument as a literal and compiles the callee once per
    distinct constant: measured, 15 versions of one RNG helper and 4 of a rule system's
    turn, and the first run of a scenario took up to twice as long (opposed-tiers
    party-fight: 44 s, 19 s without). Typing the arguments as their plain types gives one
    version; kernels that need a constant for typing are :func:`inline_kernel` ones,
    which numba inlines before they are compiled on their own.
    """
    from numba.core import types

    template = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        return template(tuple(types.unliteral(a) for a in args),
                        {k: types.unliteral(v) for k, v in kws.items()})  # fmt: skip

    dispatcher.get_call_template = get_call_template
    return dispatcher


def inline_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a small, hot, non-allocating kernel that numba inlines into its callers.

    Inlining removes the call, whose cost is copying every array of the parameter tuples
    (numba passes each as several machine words). Use it for the per-attack path; the
    per-encounter loop stays a normal kernel, or compile time explodes (measured: all
    inlined 390 s; per-attack path inlined 27 s, 2.5x faster than not inlined).
    """
    return numba.njit(inline="always", _nrt=False, **_OPTIONS)(fn)  # type: ignore[call-overload]


def allocating_kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial numba kernel that may allocate arrays."""
    return _one_version_per_type(numba.njit(**_OPTIONS)(fn))


def parallel_kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a numba kernel whose ``prange`` loops run on threads.

    numba types the body of a ``prange`` loop twice, first with an ``int64`` index and
    then, once the loop is turned into a threaded function, with a ``uint64`` one; every
    kernel the body calls with the index would be compiled for both. So a body starts by
    converting its index, ``ch = np.int64(chunk)``, and uses only ``ch``.
    """
    return numba.njit(parallel=True, **_OPTIONS)(fn)


prange = numba.prange
