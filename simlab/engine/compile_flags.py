"""numba's compile flags compared without reading every option: shorter first runs
(issue 19).

numba keeps what it has typed for each overloaded function (``min``, ``int``, numpy's
functions, simlab's inline kernels) in caches keyed on the argument types and on the
compile flags in force, a ``numba.core.targetconfig.TargetConfig``. Each lookup hashes
those flags and compares them with the stored key's, and numba does both through
``values()``: a dictionary of every option (about thirty), each read through its
property. A rule system's first run makes about 10,000 such lookups; in glitters-d20's
they took 0.34-0.45 s (measured, numba 0.68, README "Design notes").

:func:`install` gives ``TargetConfig`` a hash and an equality that answer exactly as
numba's do:

- numba's hash is that of the *sorted option names* (``sorted`` of a dictionary sorts
  its keys), the same for every flags object of one class: :func:`flags_hash` works it
  out once a class;
- numba's equality compares the values of every option, each the value set or else
  the option's default. :func:`flags_eq` answers at once for the same object, or for
  two flags of one class with the same options set to the same values; otherwise it
  compares every option's value as numba does, read from the set values and the
  defaults directly rather than through the properties.
"""

from __future__ import annotations

from typing import Any

#: numba's own ``__hash__`` and ``__eq__``, once :func:`install` has replaced them.
REPLACED: list[Any] = []
_CLASS_HASH: dict[type, int] = {}
#: ``numba.core.targetconfig.TargetConfig``, once :func:`install` has looked it up.
_TARGET_CONFIG: list[Any] = []


def flags_hash(flags: Any) -> int:
    """The hash numba gives ``flags``: that of its class's option names, sorted.

    Parameters
    ----------
    flags : numba.core.targetconfig.TargetConfig
        Compile flags (or any other target configuration).
    """
    cls = type(flags)
    value = _CLASS_HASH.get(cls)
    if value is None:
        value = _CLASS_HASH[cls] = hash(tuple(sorted(cls.options)))
    return value


def flags_eq(flags: Any, other: Any) -> Any:
    """Whether ``flags`` equals ``other`` as numba decides it: every option the same.

    Parameters
    ----------
    flags : numba.core.targetconfig.TargetConfig
        Compile flags.
    other : object
        What they are compared with; ``NotImplemented`` unless a target configuration.
    """
    if flags is other:
        return True
    if not isinstance(other, _TARGET_CONFIG[0]):
        return NotImplemented
    if type(other) is type(flags) and flags._values == other._values:
        return True
    return _option_values(flags) == _option_values(other)


def _option_values(flags: Any) -> dict[str, Any]:
    """``flags.values()`` without the properties: each option's set value or default
    (what the property numba makes for every option returns)."""
    values = flags._values
    return {name: values.get(name, option.default) for name, option in flags.options.items()}


def install() -> bool:
    """Put :func:`flags_hash` and :func:`flags_eq` in the place of ``TargetConfig``'s
    own, where those are the ones they were checked against (both go through
    ``values()``, the hash through ``sorted``). Returns whether they are installed;
    installing again changes nothing. The caller checks numba's version (``jit``)."""
    from numba.core import targetconfig

    cls = targetconfig.TargetConfig
    _TARGET_CONFIG[:] = [cls]
    if cls.__hash__ is flags_hash and cls.__eq__ is flags_eq:
        return True
    hash_code = getattr(cls.__hash__, "__code__", None)
    eq_code = getattr(cls.__eq__, "__code__", None)
    if hash_code is None or eq_code is None:
        return False
    if {"sorted", "values"} - set(hash_code.co_names) or "values" not in eq_code.co_names:
        return False
    REPLACED.extend([cls.__hash__, cls.__eq__])
    cls.__hash__ = flags_hash  # type: ignore[method-assign]
    cls.__eq__ = flags_eq  # type: ignore[method-assign]
    return True
