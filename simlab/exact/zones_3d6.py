"""Exact answers for ``rules: zones-3d6`` (docs/rules/zones-3d6.md; seed 004), without sampling.

One attack against a fresh defender, computed by enumeration in float64 — an oracle for
the simulator and a fast answer for balance questions:

* :func:`roll_pmf` — an attack or Evasion roll before its bonus: 3d6, or 3 + k d6
  keeping the highest (lowest) 3 under net advantage (disadvantage), then edges raise
  and pressures lower the kept dice one step each. Every dice outcome is enumerated
  (at most 6**6). A step only fails once every die is at its limit, so k edges give
  min(total + k, 18) and k pressures max(total − k, 3) (or total − k with
  ``pressure: total``).
* :func:`hit_probability` — P(attack total ≥ Evasion total), ties hit (docs/rules/zones-3d6.md).
* :func:`damage_pmf` — damage per attack, misses included as 0: base dice with the
  armor's Base Defense faces counting 0, bonus damage less Bonus Defense (floor 0 by
  default), at least ``minimum_damage`` on a hit (seed 004, "Damage and Defense").
* :func:`attack_outcome` — all of the above for an (attacker, attack, defender) of a
  scenario.
* :func:`duel_time_to_down` — in a duel, the round in which the defender's HP first
  drops below 0, by the shared Markov chain (:mod:`simlab.exact.chain`): nothing in a
  zones fight changes an attack's odds, so each round's damage is independent.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from simlab.exact.chain import TimeToDown, duel_roles, rotation_cycle, time_to_reach
from simlab.rules.zones_3d6.compile import attacks_per_turn, expand, roll_steps
from simlab.rules.zones_3d6.model import Params, Scenario

__all__ = ["AttackOutcome", "RollSpec", "attack_outcome", "damage_pmf", "duel_time_to_down",
           "hit_probability", "roll_pmf"]  # fmt: skip


@dataclass(frozen=True)
class RollSpec:
    """What shapes one attack or Evasion roll (docs/rules/zones-3d6.md "Attack", "Edge").

    Attributes
    ----------
    edge, pressure : int
        Die steps actually applied (after stacking and cancelling, see
        :func:`simlab.rules.zones_3d6.compile.roll_steps`).
    net_advantage : int
        Advantage minus disadvantage; only its sign matters.
    bonus : int
        Flat bonus added to the total.
    """

    edge: int = 0
    pressure: int = 0
    net_advantage: int = 0
    bonus: int = 0


def _kept_totals(net_advantage: int, advantage_dice: int) -> np.ndarray:
    """Sum of the three kept dice for every equally likely outcome of the roll."""
    n = 3 if net_advantage == 0 else 3 + advantage_dice
    faces = np.array(list(itertools.product(range(1, 7), repeat=n)), dtype=np.int64)
    faces.sort(axis=1)
    kept = faces[:, -3:] if net_advantage > 0 else faces[:, :3]
    return kept.sum(axis=1)


def roll_pmf(spec: RollSpec, params: Params | None = None) -> tuple[int, np.ndarray]:
    """Exact distribution of a roll's total, bonus included (docs/rules/zones-3d6.md "Attack").

    Parameters
    ----------
    spec : RollSpec
        Edges, pressures, net advantage and bonus of the roll.
    params : Params, optional
        ``advantage_dice`` and ``pressure`` (``die`` or ``total``); defaults otherwise.

    Returns
    -------
    (int, ndarray)
        The lowest total and the probabilities of lowest..highest.
    """
    params = params or Params()
    totals = _kept_totals(spec.net_advantage, params.advantage_dice)
    totals = np.minimum(totals + spec.edge, 18)
    totals = totals - spec.pressure
    if params.pressure == "die":
        totals = np.maximum(totals, 3)
    totals = totals + spec.bonus
    low = int(totals.min())
    counts = np.bincount(totals - low)
    return low, counts / counts.sum()


def hit_probability(attack: RollSpec, evasion: RollSpec, params: Params | None = None) -> float:
    """P(attack total ≥ Evasion total): ties hit (docs/rules/zones-3d6.md; seed 004).

    Parameters
    ----------
    attack, evasion : RollSpec
        The two opposed rolls.
    params : Params, optional
        Rule parameters (defaults otherwise).
    """
    a_low, a_pmf = roll_pmf(attack, params)
    e_low, e_pmf = roll_pmf(evasion, params)
    e_cdf = np.cumsum(e_pmf)  # P(E ≤ e_low + i)
    a_values = a_low + np.arange(len(a_pmf))
    index = np.clip(a_values - e_low, -1, len(e_pmf) - 1)
    at_most = np.where(index >= 0, e_cdf[np.maximum(index, 0)], 0.0)
    return float(a_pmf @ at_most)


def _counted_die(sides: int, ignored: Iterable[int]) -> np.ndarray:
    """PMF over 0..sides of one base-damage die against Base Defense ``ignored``."""
    pmf = np.zeros(sides + 1)
    skip = set(ignored)
    for face in range(1, sides + 1):
        pmf[0 if face in skip else face] += 1.0 / sides
    return pmf


def base_damage_pmf(terms: Sequence[tuple[int, int]], ignored: Iterable[int]) -> np.ndarray:
    """PMF over 0.. of the base damage (docs/rules/zones-3d6.md "Armor"): each (count, sides) die,
    a face in ``ignored`` counting 0."""
    faces = list(ignored)
    pmf = np.ones(1)
    for count, sides in terms:
        for _ in range(count):
            pmf = np.convolve(pmf, _counted_die(sides, faces))
    return pmf


def damage_pmf(
    p_hit: float,
    terms: Sequence[tuple[int, int]],
    ignored: Iterable[int],
    bonus: int,
    bonus_defense: int,
    params: Params | None = None,
) -> np.ndarray:
    """Damage per attack, misses as 0 (docs/rules/zones-3d6.md "Damage", "Armor"; seed 004).

    Parameters
    ----------
    p_hit : float
        Hit probability.
    terms : sequence of (count, sides)
        The base damage dice.
    ignored : iterable of int
        The defender's Base Defense faces.
    bonus, bonus_defense : int
        Bonus damage (weapon constant + attacker) and the defender's Bonus Defense.
    params : Params, optional
        ``bonus_defense_floor`` and ``minimum_damage`` (defaults otherwise).

    Returns
    -------
    ndarray
        ``pmf[d]`` = P(damage = d), d = 0, 1, …
    """
    params = params or Params()
    defense = min(bonus_defense, max(bonus, 0)) if params.bonus_defense_floor else bonus_defense
    base = base_damage_pmf(terms, ignored)
    values = np.maximum(np.arange(len(base)) + bonus - defense, params.minimum_damage)
    out = np.zeros(int(values.max()) + 1)
    np.add.at(out, values, base * p_hit)
    out[0] += 1.0 - p_hit
    return out


@dataclass(frozen=True)
class AttackOutcome:
    """Exact outcome of one attack (zones-3d6 has no crits).

    Attributes
    ----------
    hit_rate : float
        P(attack total ≥ Evasion total).
    damage_pmf : numpy.ndarray
        ``damage_pmf[d]`` = P(d damage), misses as 0.
    mean_damage : float
        Expected damage per attack.
    """

    hit_rate: float
    damage_pmf: np.ndarray
    mean_damage: float


def attack_outcome(scenario: Scenario, attacker: int, attack: str, defender: int) -> AttackOutcome:
    """Exact outcome of ``attack`` by combatant ``attacker`` on a fresh ``defender``.

    Parameters
    ----------
    scenario : Scenario
        A ``zones-3d6`` scenario (docs/rules/zones-3d6.md).
    attacker, defender : int
        Combatant indices after expanding ``count:`` copies.
    attack : str
        An attack name from ``attacks:``.
    """
    prm = scenario.params
    members = [m for _, m in expand(scenario)]
    a, atk, dfd = scenario.attacks[attack], members[attacker], members[defender]
    edge, pressure, net = roll_steps(a.edge, a.pressure, a.advantage, a.disadvantage, prm)
    e_edge, e_pressure, e_net = roll_steps(
        dfd.evasion_edge, dfd.evasion_pressure, dfd.evasion_advantage, dfd.evasion_disadvantage, prm
    )
    attack_roll = RollSpec(edge, pressure, net, a.bonus)
    p_hit = hit_probability(attack_roll, RollSpec(e_edge, e_pressure, e_net, dfd.evasion), prm)
    terms = [(t.count, t.sides) for t in a.damage.terms]
    bonus = a.damage.constant + atk.bonus_damage
    pmf = damage_pmf(p_hit, terms, dfd.base_defense, bonus, dfd.bonus_defense, prm)
    return AttackOutcome(p_hit, pmf, float(np.arange(len(pmf)) @ pmf))


def duel_time_to_down(scenario: Scenario) -> TimeToDown:
    """Exact distribution of the round in which a duel's defender goes down
    (docs/rules/zones-3d6.md).

    The scenario must be a duel: one combatant with attacks and exactly one opponent
    (who therefore makes none). Its damage is history-free — no status, resource or
    position changes an attack's odds (seed 004, "Combat") — so each round deals
    independent damage: the attacker's ``attacks_per_turn`` (capped by its Major
    actions) attacks, taken from its list in rotation. The defender is down in the
    first round whose total damage takes its HP **below** 0, i.e. reaches HP + 1.

    Returns
    -------
    simlab.exact.chain.TimeToDown

    Raises
    ------
    ExactUnsupported
        When the scenario is not a duel; the message says why.
    """
    a, d = duel_roles(scenario)
    attacker, defender = expand(scenario)[a][1], expand(scenario)[d][1]

    def damage(name: str) -> np.ndarray:
        return attack_outcome(scenario, a, name, d).damage_pmf

    cycle = rotation_cycle(attacker.attacks, attacks_per_turn(attacker, scenario.params), damage)
    return time_to_reach(defender.hp + 1, cycle, scenario.max_rounds)
