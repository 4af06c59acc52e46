"""Counts in the words simlab prints: ``1 attack``, ``2 attacks``; an override that
changes nothing: ``Brute.hp is already 30``.

Imports nothing, as ``simlab validate`` imports only what it uses (README "Targets")."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
