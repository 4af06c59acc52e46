"""Counts in the words simlab prints: ``1 attack``, ``2 attacks``; an override that
changes nothing: ``Brute.hp is already 30``.

Imports nothing, as ``simlab validate`` imports only what it uses (README "Targets")."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` and ``noun`` agreeing with it: ``1 scenario``, ``4 scenarios``, ``1,000
    encounters``; ``plural`` where an added ``s`` is not the plural (``1 copy``, ``2
    copies``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def already(override: str) -> str:
    """``Brute.hp is already 30``: why the override ``Brute.hp=30`` changes nothing."""
    field, value = override.split("=", 1)
    return f"{field} is already {value}"
