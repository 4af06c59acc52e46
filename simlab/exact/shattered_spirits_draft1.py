"""Exact answers for ``rules: shattered-spirits-draft1`` (docs/rules/shattered-spirits-draft1.md),
without sampling.

Computed by enumeration and by a recursion over damage totals, in float64 — an oracle
for the simulator and an instant answer where the rules allow one. The attack roll is
the later draft's (:func:`simlab.exact.shattered_spirits.roll_pmf`, with Advantage and
Disadvantage reduced to their sign, see
:func:`simlab.rules.shattered_spirits_draft1.compile.net_advantage`); the rest is the
earlier draft's own:

* :func:`attack_outcome` — hit rate, crit rate, the damage distribution, and the rates
  of rolls above 12 (row 12 and the overflow damage) and below 2 (a fumble) of one
  Technique against a fresh defender, in the earlier draft's damage order (base →
  modifiers → Glancing → Exposed → Guard).
* :func:`duel_time_to_down` — the round in which a passive defender is Downed by a lone
  attacker playing its plan every Round: damage per attack does not depend on history,
  so P(Downed by round r) = P(damage dealt in rounds 1..r ≥ Vigor + Endurance + Health).
  :func:`duel_time_to_shaken` is the same with Vigor + Endurance (Shaken).
* :func:`fight_caveats` — which figures a full fight can move away from the
  fresh-defender answer.

Whatever cannot be answered exactly raises :class:`simlab.errors.ExactUnsupported`
naming the feature.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from simlab.errors import ExactUnsupported
from simlab.exact.chain import TimeToDown, duel_roles, time_to_reach
from simlab.exact.outcome import every_reason
from simlab.exact.shattered_spirits import (
    FIGURES,
    AttackOutcome,
    check_reactions,
    rates_moved,
    reactions_paid_for,
    roll_pmf,
    status_sources,
)
from simlab.rules.shattered_spirits.model import ROWS, parse_status
from simlab.rules.shattered_spirits_draft1.compile import expand, net_advantage
from simlab.rules.shattered_spirits_draft1.model import Combatant, Scenario, Technique

__all__ = [
    "DraftAttackOutcome",
    "attack_outcome",
    "duel_time_to_down",
    "duel_time_to_shaken",
    "fight_caveats",
    "roll_damage",
    "roll_distribution",
]


@dataclass(frozen=True)
class DraftAttackOutcome(AttackOutcome):
    """:class:`simlab.exact.shattered_spirits.AttackOutcome` with the earlier draft's
    extreme rolls (docs/rules/shattered-spirits-draft1.md).

    Attributes
    ----------
    overflow_rate : float
        P(the modified roll is above 12): row 12, plus the overflow damage if it deals any.
    fumble_rate : float
        P(the modified roll is below 2): a miss that costs the attacker a token or
        Exposed.
    """

    overflow_rate: float = 0.0
    fumble_rate: float = 0.0


def _combatant(scenario: Scenario, index: int) -> Combatant:
    combatants = expand(scenario)
    if not 0 <= index < len(combatants):
        raise IndexError(f"expected a combatant index from 0 to {len(combatants) - 1}; got {index}")
    return combatants[index][1]


def roll_distribution(
    scenario: Scenario, technique: Technique, attacker: Combatant
) -> dict[int, float]:
    """Exact distribution of the modified attack roll (docs/rules/shattered-spirits-draft1.md; seed
    000, "Making Attacks", "Advantage and Disadvantage").

    2d6, or 3d6 keeping the highest (lowest) two with Advantage (Disadvantage), which do
    not stack; plus the Technique's and the attacker's roll modifiers, and the Shaken
    modifier when the attacker starts with no Endurance.

    Parameters
    ----------
    scenario : Scenario
        For its ``params``.
    technique : Technique
        The Technique's Advantage, Disadvantage and modifier.
    attacker : Combatant
        Its roll modifier and starting Endurance.

    Returns
    -------
    dict of int to float
        P(modified roll = k), unclamped (above 12 and below 2 included).
    """
    prm = scenario.params
    modifier = technique.modifier + attacker.roll_modifier
    if attacker.endurance == 0:
        modifier += prm.shaken_roll_modifier
    return roll_pmf(net_advantage(technique, prm), 0, modifier)


def roll_damage(
    scenario: Scenario,
    technique: Technique,
    roll: int,
    attacker: Combatant,
    defender: Combatant,
) -> int | None:
    """Damage of a modified ``roll`` against a fresh defender; None when it misses.

    docs/rules/shattered-spirits-draft1.md; seed 000, "Extreme Rolls" and "Calculating Damage":
    below 2 misses, above 12 reads row 12; a ``miss`` row misses. Otherwise: the row's damage, plus
    the damage modifier, minus Impaired on the attacker, plus ``overflow_damage`` when the roll is
    above 12 and the row deals any (floor 0); Glancing divides rounding up (Cover grants Glancing,
    or ``cover_guard`` Guard when already Glancing); plus Exposed on the defender; minus Guard,
    floor 0.
    """
    if roll < 2:
        return None
    row = min(roll, 12)
    if technique.row_tier(row) == "miss":
        return None
    prm = scenario.params
    base = technique.profile[row - 2]
    damage = base + technique.damage_modifier - attacker.impaired * prm.impaired_per_level
    if roll > 12 and base > 0:
        damage += prm.overflow_damage
    damage = max(damage, 0)
    guard, glancing = defender.guard, technique.glancing
    if defender.cover:
        if glancing:
            guard += prm.cover_guard
        else:
            glancing = True
    if glancing:
        damage = -(-damage // prm.glancing_divisor)
    damage += defender.exposed * prm.exposed_per_level
    return max(damage - guard, 0)


def _rate(probabilities: Iterable[float]) -> float:
    """A probability summed without rounding drift (a sure thing is exactly 1.0)."""
    return min(math.fsum(probabilities), 1.0)


def attack_outcome(
    scenario: Scenario, attacker_index: int, attack_name: str, defender_index: int
) -> DraftAttackOutcome:
    """Exact outcome of one Technique against a fresh defender
    (docs/rules/shattered-spirits-draft1.md).

    The defender has its starting Exposed, Guard and Cover; the attacker its starting
    Impaired and roll modifier. Reactions are not modelled: a defender that could react
    raises :class:`ExactUnsupported`.

    Parameters
    ----------
    scenario : Scenario
        A loaded ``shattered-spirits-draft1`` scenario.
    attacker_index, defender_index : int
        Combatant indices after ``count:`` expansion.
    attack_name : str
        A key of ``scenario.techniques``.

    Returns
    -------
    DraftAttackOutcome

    Raises
    ------
    ExactUnsupported
        When the defender has a reaction it can pay for and some reachable hit would
        trigger it.
    KeyError
        When ``attack_name`` is not a Technique of the scenario.
    """
    if attack_name not in scenario.techniques:
        raise KeyError(
            f"expected one of the techniques {sorted(scenario.techniques)}; got {attack_name!r}"
        )
    technique = scenario.techniques[attack_name]
    attacker = _combatant(scenario, attacker_index)
    defender = _combatant(scenario, defender_index)
    rows = np.zeros(13)
    outcomes: list[tuple[float, int]] = []
    hits: list[tuple[float, int]] = []
    crits: list[float] = []
    rolls = roll_distribution(scenario, technique, attacker)
    for roll, prob in rolls.items():
        rows[0 if roll < 2 else min(roll, 12)] += prob
        damage = roll_damage(scenario, technique, roll, attacker, defender)
        if damage is None:
            outcomes.append((prob, 0))
            continue
        outcomes.append((prob, damage))
        hits.append((prob, damage))
        if technique.row_tier(min(roll, 12)) == "crit":
            crits.append(prob)
    check_reactions(scenario, defender, scenario.combatant_names()[defender_index][1], hits)  # type: ignore[arg-type]
    pmf = np.zeros(max(d for _, d in outcomes) + 1)
    for prob, damage in outcomes:
        pmf[damage] += prob
    return DraftAttackOutcome(
        attacker=attacker_index,
        attack=attack_name,
        defender=defender_index,
        hit_rate=_rate(p for p, _ in hits),
        crit_rate=_rate(crits),
        damage_pmf=pmf,
        mean_damage=float(np.dot(np.arange(len(pmf)), pmf)),
        row_pmf=rows,
        overflow_rate=_rate(p for r, p in rolls.items() if r > 12),
        fumble_rate=_rate(p for r, p in rolls.items() if r < 2),
    )


def _duel(scenario: Scenario) -> tuple[int, int]:
    """(attacker, defender) of a duel, or ExactUnsupported saying why not."""
    a, d = duel_roles(scenario)
    if expand(scenario)[a][1].improvise is not None:
        who = scenario.combatant_names()[a][1]
        raise ExactUnsupported(
            "expected an attacker without an improvise policy (Improvise depends on the "
            f"Momentum left); got one on {who}"
        )
    return a, d


def _round_damage(scenario: Scenario, a: int, d: int) -> np.ndarray:
    """Distribution of the damage the attacker's whole plan deals in one Round."""
    attacker = _combatant(scenario, a)
    total = np.ones(1)
    for name in attacker.plan:
        outcome = attack_outcome(scenario, a, name, d)
        technique = scenario.techniques[name]
        for row in ROWS:
            if outcome.row_pmf[row] <= 0 or technique.row_tier(row) == "miss":
                continue
            for status in technique.status.get(row, []):
                kind, size = parse_status(status)
                if kind == "exposed" and size * scenario.params.exposed_per_level > 0:
                    raise ExactUnsupported(
                        "expected hits that inflict no status changing later damage; got "
                        f"{status!r} on row {row} of technique {name!r} (Exposed raises "
                        "the damage of later attacks)"
                    )
        total = np.convolve(total, outcome.damage_pmf)
    return total


def duel_time_to_down(scenario: Scenario) -> TimeToDown:
    """Exact distribution of the round in which a passive defender is Downed
    (docs/rules/shattered-spirits-draft1.md).

    The scenario must be a duel: one combatant with a plan (the attacker, without an
    Improvise policy), exactly one combatant on the other sides (the defender, whose
    empty plan makes it passive), no reaction that could fire and no reachable hit
    inflicting Exposed. Each Round the attacker plays its whole plan; each attack's
    damage is then independent of history (a fumble only changes the attacker's own
    tokens and Exposed), and damage takes Vigor, then Endurance, then Health, so the
    defender is Downed in the first Round whose total damage so far reaches
    Vigor + Endurance + Health.

    Parameters
    ----------
    scenario : Scenario
        A loaded ``shattered-spirits-draft1`` duel.

    Returns
    -------
    simlab.exact.chain.TimeToDown

    Raises
    ------
    ExactUnsupported
        When the scenario is not such a duel, or ``endurance_overflow`` is false (an
        attack that empties Endurance then loses its excess, so damage totals no
        longer decide).
    """
    a, d = _duel(scenario)
    defender = _combatant(scenario, d)
    if not scenario.params.endurance_overflow and defender.endurance > 0:
        raise ExactUnsupported(
            "expected endurance_overflow: true (else the damage beyond the last point of "
            "Endurance is lost, and damage totals no longer decide); got "
            "endurance_overflow: false"
        )
    need = defender.vigor + defender.endurance + defender.health
    return time_to_reach(need, [_round_damage(scenario, a, d)], scenario.max_rounds)


def duel_time_to_shaken(scenario: Scenario) -> TimeToDown:
    """Exact distribution of the round in which a duel's defender becomes Shaken.

    As :func:`duel_time_to_down`, with Vigor + Endurance to lose
    (docs/rules/shattered-spirits-draft1.md: Shaken at 0 Endurance). A defender that starts with no
    Endurance is Shaken from the start (round 0, ``pmf[0]`` is then 0 and ``mean`` 0).
    """
    a, d = _duel(scenario)
    defender = _combatant(scenario, d)
    if defender.endurance == 0:
        return time_to_reach(0, [np.ones(1)], scenario.max_rounds)
    need = defender.vigor + defender.endurance
    return time_to_reach(need, [_round_damage(scenario, a, d)], scenario.max_rounds)


def _can_fumble(scenario: Scenario, c: int) -> str | None:
    """Why combatant ``c`` may roll below 2 in the fight (and gain Exposed), naming every
    Technique it can fumble with, or None."""
    combatants = expand(scenario)
    prm = scenario.params
    side, member = combatants[c]
    blockers = any(m.react.block is not None for s, m in combatants if s != side)
    low = min(prm.shaken_roll_modifier, 0) - int(blockers)
    lowest = member.roll_modifier + low
    fumbled = [
        repr(name)
        for name in dict.fromkeys(scenario.attack_makers()[c][2])
        if 2 + scenario.techniques[name].modifier + lowest < 2
    ]  # its Improvised one too
    if not fumbled:
        return None
    who = scenario.combatant_names()[c][1]
    either = f"{', '.join(fumbled[:-1])} or {fumbled[-1]}" if len(fumbled) > 1 else fumbled[0]
    return f"{who} can fumble with {either} and gain Exposed during the fight"


def fight_caveats(scenario: Scenario, a: int, attack: str, d: int) -> dict[str, str]:
    """Figures of a pair that a full fight can move away from :func:`attack_outcome`.

    docs/rules/shattered-spirits-draft1.md: Exposed on the defender (from an opponent's profile, or
    from its own fumbles) and Impaired on the attacker change the damage; the Shaken roll modifier
    changes the attacker's rolls once it loses its Endurance; when the defender holds a reaction
    it can pay for, changed damage can also set it off. The hit and crit rates are named
    only where one of these can move a roll across the tiers they count
    (:func:`simlab.exact.shattered_spirits.rates_moved`): the crit rate of a Technique
    with no critical row in reach stays 0 whatever the fight does to its damage.

    Parameters
    ----------
    scenario : Scenario
        A loaded ``shattered-spirits-draft1`` scenario.
    a, d : int
        Attacker and defender indices after ``count:`` expansion.
    attack : str
        The Technique's name.

    Returns
    -------
    dict of str to str
        Figure name (``hit_rate``, ``crit_rate``, ``mean_damage``), in that order → every
        reason that moves it (:func:`~simlab.exact.outcome.every_reason`).
    """
    prm = scenario.params
    attacker = _combatant(scenario, a)
    technique = scenario.techniques[attack]
    rolls = roll_distribution(scenario, technique, attacker)
    reactions = reactions_paid_for(scenario, _combatant(scenario, d))
    can_be_hit = any(m.plan for s, m in expand(scenario) if s != expand(scenario)[a][0])
    moves: list[tuple[tuple[str, ...], str]] = []
    if prm.shaken_roll_modifier != 0 and attacker.endurance > 0 and can_be_hit:
        reason = "the attacker's rolls change once it is Shaken (shaken_roll_modifier)"
        moved = rates_moved(technique, rolls, reactions, prm.shaken_roll_modifier)
        moves.append(((*moved, "mean_damage"), reason))
    damaged = (*rates_moved(technique, rolls, reactions), "mean_damage")
    moves += [(damaged, reason) for reason in _damage_reasons(scenario, a, d)]
    caveats = every_reason(moves)
    return {figure: caveats[figure] for figure in FIGURES if figure in caveats}


def _damage_reasons(scenario: Scenario, a: int, d: int) -> list[str]:
    """Every reason attacker ``a``'s damage to ``d`` can change during a fight: Exposed
    the defender can gain from each opponent's profile or its own fumbles, Impaired the
    attacker can gain from each opponent's profile."""
    prm = scenario.params
    exposed = status_sources(scenario, d, "exposed") if prm.exposed_per_level else []
    fumble = _can_fumble(scenario, d) if prm.exposed_per_level and prm.fumble_exposed else None
    impaired = status_sources(scenario, a, "impaired") if prm.impaired_per_level else []
    return [*exposed, *([fumble] if fumble else []), *impaired]
