"""Rule systems: one package per system, all of the same shape.

Each ``simlab/rules/<system>/`` has

- ``model.py``   the scenario fields (pydantic) and its [default] parameters — no numba;
- ``compile.py`` Scenario → flat numpy parameter arrays for the kernels;
- ``kernels.py`` the numba kernels: one encounter, ``run_block`` over many (traced
  runs use it), and ``block_kernel(params)`` naming the kernel the runner calls
  untraced (``run_block``, a copy compiled without the trace, or a shorter path the
  system has for a kind of scenario, such as a plain duel).

The engine, the tallies and the analysis layer never look inside a system: they go
through this registry.
"""

from __future__ import annotations

import importlib
from types import ModuleType

RULE_SYSTEMS: dict[str, str] = {
    "shattered-spirits": "simlab.rules.shattered_spirits",
    "shattered-spirits-draft1": "simlab.rules.shattered_spirits_draft1",
    "zones-3d6": "simlab.rules.zones_3d6",
    "glitters-d20": "simlab.rules.glitters_d20",
    "opposed-tiers": "simlab.rules.opposed_tiers",
}


def rule_module(rules: str, part: str) -> ModuleType:
    """Import ``part`` (``model``, ``compile``, ``kernels``) of the rule system ``rules``.

    Parameters
    ----------
    rules : str
        A rules id, a key of :data:`RULE_SYSTEMS`.
    part : str
        The module of the rule package to import.
    """
    return importlib.import_module(f"{RULE_SYSTEMS[rules]}.{part}")


def has_crits(rules: str) -> bool:
    """Whether the rule system ``rules`` has critical hits: its ``model`` module's
    ``CRITS`` (True when it does not say; zones-3d6 has none), so that no table shows a
    crit rate that is 0 by the rules, and no spec or target asks for one."""
    return bool(getattr(rule_module(rules, "model"), "CRITS", True))


def down_events(rules: str) -> tuple[str, ...]:
    """The events of the rule system ``rules`` that are a combatant's down itself: its
    ``model`` module's ``DOWN_EVENTS`` (none when it does not say; zones-3d6's ``out``),
    whose rate a table beside the down rate would only repeat.

    Parameters
    ----------
    rules : str
        A rules id, a key of :data:`RULE_SYSTEMS`.

    Returns
    -------
    tuple of str
    """
    return tuple(getattr(rule_module(rules, "model"), "DOWN_EVENTS", ()))
