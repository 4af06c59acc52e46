"""The one place that owns numba options.

Kernels everywhere in simlab are plain Python functions; they are compiled here, with the
same options, so that a newcomer can read and step through them in plain Python (set
``NUMBA_DISABLE_JIT=1``) and so that caching and threading are decided once.
Importing this module imports numba: only the engine and rule kernels import it, never
the CLI start-up or scenario validation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial numba kernel with simlab's options."""
    return numba.njit(**_OPTIONS)(fn)


def parallel_kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a numba kernel whose ``prange`` loops run on threads."""
    return numba.njit(parallel=True, **_OPTIONS)(fn)


prange = numba.prange
