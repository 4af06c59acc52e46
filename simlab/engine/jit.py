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
    return numba.njit(_nrt=False, **_OPTIONS)(fn)  # type: ignore[call-overload]


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
    return numba.njit(**_OPTIONS)(fn)


def parallel_kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a numba kernel whose ``prange`` loops run on threads."""
    return numba.njit(parallel=True, **_OPTIONS)(fn)


prange = numba.prange
