"""Counts in the words simlab prints: ``1 attack``, ``2 attacks``; an override that
changes nothing: ``Brute.hp is already 30``.

Also who no one attacks, and the words that say so, for a run and a sweep alike.

Imports nothing, as ``simlab validate`` imports only what it uses (README "Targets")."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` and ``noun`` agreeing with it: ``1 scenario``, ``4 scenarios``, ``1,000
    encounters``; ``plural`` where an added ``s`` is not the plural (``1 copy``, ``2
    copies``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def already(override: str) -> str:
    """``Brute.hp is already 30``: why the override ``Brute.hp=30`` changes nothing."""
    field, value = override.split("=", 1)
    return f"{field} is already {value}"


def overrides_said(meta: dict[str, Any]) -> list[str]:
    """A run's ``--set`` overrides (``meta["overrides"]``) as written, each one that
    changes nothing (``meta["idle_overrides"]``) said so: ``Brute.hp=30 (changes
    nothing: Brute.hp is already 30)``."""
    idle = meta.get("idle_overrides", ())
    return [f"{o} (changes nothing: {already(o)})" if o in idle else o
            for o in meta.get("overrides", ())]  # fmt: skip


#: p-values below this are shown as "< 0.0001", the convention of statistics reports:
#: a smaller one says no more to a designer (a change this clear is no chance) and would
#: be written in powers of ten (``3.0e-13``), which simlab's tables never are.
SMALLEST_P = 1e-4


def format_p(p: float, smallest: float = SMALLEST_P) -> str:
    """A p-value to two significant digits, trailing zeros kept so that a column of them
    reads alike (``0.10`` beside ``0.23``, ``1.0``; not ``0.1``, ``1``; ``0.00023``);
    ``< 0.0001`` below :data:`SMALLEST_P`; "—" for none (NaN). ``smallest``: another
    floor, for a test whose threshold lies below it (the exact check's 4.5 standard
    errors, p 6.8e-06, written as the exact check writes it: ``2.3e-07``, ``< 1e-16``)."""
    if p != p:  # NaN
        return "—"
    return f"< {smallest:g}" if p < smallest else f"{p:#.2g}"


def unattacked_among(names: Iterable[str], attacked: Iterable[str],
                     downed: Iterable[str]) -> list[str]:  # fmt: skip
    """The ``names`` (each once, in order) that no attack was made at and that never
    went down: who no one attacks, for a sweep
    (:func:`simlab.report.tuning_terminal.never_attacked`) and a run
    (:func:`simlab.report.render.never_attacked_in`) alike. One downed unattacked (by
    Rushing terrain, a starting Bleeding) is not among them: its going down is measured.

    Parameters
    ----------
    names : iterable of str
        The combatants, in order (a sweep's repeat at every point).
    attacked : iterable of str
        Those some attack was made at.
    downed : iterable of str
        Those that went down.

    Returns
    -------
    list of str
    """
    left_out = set(attacked) | set(downed)
    return [name for name in dict.fromkeys(names) if name not in left_out]


def never_down_note(shown: str, names: Sequence[str], when: str = "") -> str:
    """``{shown}, Fighter: never down{when}, as no one attacks it.``: the words in which
    a sweep's table (:func:`simlab.report.tuning_terminal.never_attacked_note`) and a
    run's pictures (:func:`simlab.report.render.never_attacked_note`) say whom no one
    attacks and what they left out; "" for no ``names``."""
    if not names:
        return ""
    them = "it" if len(names) == 1 else "them"
    return f"{shown}, {', '.join(names)}: never down{when}, as no one attacks {them}."
