"""Exact answers (enumeration, Markov chains) that need no sampling, per rule system.

Call it as ``simlab.exact(scenario)``, ``scenario`` a loaded scenario or the path of one:
it returns an :class:`~simlab.exact.engine.ExactResult` with the exact answers of every
attack pair against a fresh defender, and the duel's time-to-down where the scenario is
a duel (``.attacks()``, ``.damage_pmf()``, ``.time_to_down()``, ``.caveats()``; what it
cannot solve is in ``.refusals``, each with its reason). ``help(simlab.exact.engine.exact)``
says the rest. This package is itself callable, so that the name works however it was
first imported; what follows is for the author of a rule system's exact module.

Contract of a rule system's exact module
----------------------------------------
The engine finds a system's exact module by convention: the rule package
``simlab.rules.<package>`` (its entry in :data:`simlab.rules.RULE_SYSTEMS`) has its exact
answers in ``simlab.exact.<package>``, e.g. ``simlab.exact.shattered_spirits`` or
``simlab.exact.zones_3d6``. A system without such a module is refused as a whole (use
``simlab run``). The module provides two functions:

``attack_outcome(scenario, attacker_index, attack_name, defender_index)``
    One attack against a fresh defender (its starting state). Indices are combatant
    positions after ``count:`` expansion, in ``scenario.combatant_names()`` order.
    Returns an object with the attributes of :class:`AttackOutcomeLike` (``crit_rate``
    may be left out by a system without crits).

``duel_time_to_down(scenario)``
    The round in which the defender of a duel (exactly one combatant with attacks and
    exactly one combatant on the other sides) is first Downed. Returns an object with
    the attributes of :class:`TimeToDownLike`.

Both raise :class:`simlab.errors.ExactUnsupported` with a message naming the feature
they cannot solve, what they expected and what the scenario has (e.g. ``expected a
defender without reactions it can pay for …; got react: block on Kaito …``); the engine
records that message as a refusal and goes on with the rest of the scenario.

Optionally, the module may also provide

``fight_caveats(scenario, attacker_index, attack_name, defender_index)``
    A ``dict`` mapping the figures (``"hit_rate"``, ``"crit_rate"``, ``"mean_damage"``)
    that can drift away from the fresh-defender answer during a full fight (statuses
    gained, exposure, …) to every reason why, joined by ``"; "``
    (:func:`simlab.exact.outcome.every_reason`), figure by figure: a figure the fight cannot
    move is left out even when others of the pair move (the crit rate of an attack that
    cannot crit). ``simulate(..., check=True)`` does not compare those figures. Without
    it, every solved figure is compared.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import types
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from simlab.exact.engine import ExactResult

__all__ = ["AttackOutcomeLike", "TimeToDownLike", "pair_answer"]


def pair_answer(entry: dict[str, Any], figure: str) -> float:
    """One figure of one pair of an exact summary (an entry of ``summary.json``'s
    ``attacks``), or NaN where its ``caveats`` say a full fight moves that figure away
    from the fresh-defender answer (``fight_caveats``: a surprise round's undefended
    shots, statuses gained, ...). Pages and tables that set the exact answer beside a
    simulated figure show it only where it describes the same thing. A summary written
    before caveats were recorded has none."""
    return float("nan") if figure in entry.get("caveats", {}) else float(entry[figure])


class AttackOutcomeLike(Protocol):
    """What ``attack_outcome`` returns (any object with these attributes).

    Attributes
    ----------
    hit_rate, crit_rate : float
        P(hit or crit), P(crit).
    damage_pmf : numpy.ndarray
        ``damage_pmf[d]`` = P(the attack deals d damage), misses as 0.
    mean_damage : float
        Expected damage per attack.
    """

    hit_rate: float
    crit_rate: float
    damage_pmf: np.ndarray
    mean_damage: float


class TimeToDownLike(Protocol):
    """What ``duel_time_to_down`` returns (any object with these attributes).

    Attributes
    ----------
    max_rounds : int
        The scenario's round cap.
    capped_pmf : numpy.ndarray
        P(first Downed in round r) for r = 0..max_rounds.
    censored : float
        P(not Downed by the round cap).
    mean, variance : float
        Of the round of first down without the cap (``inf`` when never Downed).
    median : int or None
        Smallest round r with P(down by r) ≥ 1/2.
    """

    max_rounds: int
    mean: float
    variance: float
    median: int | None

    @property
    def capped_pmf(self) -> np.ndarray: ...

    @property
    def censored(self) -> float: ...


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`simlab.exact.engine.exact`."""

    @property
    def __signature__(self) -> inspect.Signature:
        """:func:`simlab.exact.engine.exact`'s, for ``inspect.signature`` and a
        notebook's tooltip (``simlab.exact?``), where this method's own said ``(*args,
        **kwargs)``."""
        from simlab.exact.engine import exact

        return inspect.signature(exact)

    def __call__(self, *args: Any, **kwargs: Any) -> ExactResult:
        # as given: exact() checks them (simlab.binding), so that exact(scenario=..., n=3)
        # is an InputError naming its own arguments, not this method's TypeError
        from simlab.exact.engine import exact

        return exact(*args, **kwargs)


def __getattr__(name: str) -> types.ModuleType:
    """A module of this package by its name, imported at its first use:
    ``simlab.exact.engine`` (named above) or a rule system's exact module
    (``simlab.exact.zones_3d6``), as after ``import simlab.exact.engine``; Python finds
    a package's modules as attributes only once something has imported them."""
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _CallableModule
