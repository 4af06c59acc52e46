"""Exact answers for ``rules: opposed-tiers`` (docs/rules/opposed-tiers.md; seed 002), without
sampling.

One attack against a fresh defender, from the exact distributions of its dice
expressions (:meth:`simlab.dice.Dice.pmf`) — an oracle for the simulator and a fast
answer for balance questions:

* :func:`total_pmf` — a roll's total: its dice plus a flat bonus, or the sum of several
  independent rolls (defense dice and a shield's dice).
* :func:`hit_and_critical` — P(attack > defense) (a tie goes to the defender) and
  P(attack > defense and attack ≥ 2 × defense), the critical of "The Attack!".
* :func:`damage_pmf` — damage per attack, misses as 0: the combat-form dice (on a
  critical the next tier's) plus bonus, minus the armor's dice, never below the floor.
* :func:`attack_outcome` — all of the above for an (attacker, attack, defender) of a
  scenario.
* :func:`duel_time_to_down` — in a duel, the round in which the defender falls
  (Health ≤ 0), by a Markov chain over the damage dealt so far.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simlab.dice import Dice
from simlab.errors import ExactUnsupported
from simlab.exact.chain import TimeToDown, duel_roles, rotation_cycle, time_to_reach
from simlab.exact.outcome import AttackOutcome
from simlab.rules.opposed_tiers.compile import (
    attacks_per_turn,
    combatant_dice,
    expand,
    surprise_happens,
)
from simlab.rules.opposed_tiers.model import Scenario

__all__ = ["AttackOutcome", "attack_outcome", "damage_pmf", "duel_time_to_down",
           "fight_caveats", "hit_and_critical", "total_pmf"]  # fmt: skip

Pmf = tuple[int, np.ndarray]


def total_pmf(rolls: Sequence[Dice | None], bonus: int = 0) -> Pmf:
    """Exact distribution of the sum of independent rolls plus ``bonus``.

    Parameters
    ----------
    rolls : sequence of Dice or None
        The dice rolled (None: a shield or armor not carried, which adds 0).
    bonus : int
        Added to the total (skill level, weapon modifier).

    Returns
    -------
    (int, ndarray)
        The lowest total and the probabilities of lowest..highest.
    """
    low, probs = bonus, np.ones(1)
    for dice in rolls:
        if dice is None:
            continue
        d_low, d_probs = dice.pmf()
        low, probs = low + d_low, np.convolve(probs, d_probs)
    return low, probs


def hit_and_critical(attack: Pmf, defense: Pmf | None) -> tuple[float, float]:
    """P(hit) and P(critical) of an attack total against a defense total.

    A hit needs attack > defense — a tie goes to the defender; a critical is a hit with
    attack ≥ 2 × defense (docs/rules/opposed-tiers.md; seed 002, "Defense!", "Critical").

    Parameters
    ----------
    attack : (int, ndarray)
        Distribution of the attack total.
    defense : (int, ndarray) or None
        Distribution of the defense total; None for an undefended surprise attack
        (defense 0, no critical).
    """
    a_low, a_probs = attack
    a_values = a_low + np.arange(len(a_probs))
    if defense is None:
        return float(a_probs[a_values > 0].sum()), 0.0
    d_low, d_probs = defense
    cdf = np.concatenate(([0.0], np.cumsum(d_probs)))  # cdf[i] = P(defense < d_low + i)

    def at_most(values: np.ndarray) -> np.ndarray:
        """P(defense ≤ v) for each v of ``values``."""
        return cdf[np.clip(values - d_low + 1, 0, len(d_probs))]

    # Summed over the attack total a (memory of the two lengths, not their product: a
    # 100d1000 against 200d1000 would have asked for 149 GiB): a hit needs defense ≤ a − 1,
    # a critical also 2 × defense ≤ a, i.e. defense ≤ ⌊a/2⌋.
    hit = at_most(a_values - 1)
    critical = at_most(np.minimum(a_values - 1, np.floor_divide(a_values, 2)))
    return float(np.dot(a_probs, hit)), float(np.dot(a_probs, critical))


def _damage_given(dice: Dice, bonus: int, armor: Dice | None, floor: int) -> np.ndarray:
    """PMF over 0.. of one hit's damage: dice + bonus − armor, at least ``floor``."""
    low, probs = total_pmf([dice], bonus)
    if armor is not None:
        a_low, a_probs = armor.pmf()
        low, probs = low - (a_low + len(a_probs) - 1), np.convolve(probs, a_probs[::-1])
    values = np.maximum(low + np.arange(len(probs)), floor)
    out = np.zeros(int(values.max()) + 1)
    np.add.at(out, values, probs)
    return out


def damage_pmf(
    p_hit: float,
    p_critical: float,
    damage: Dice,
    critical: Dice,
    bonus: int,
    armor: Dice | None,
    floor: int = 0,
) -> np.ndarray:
    """Damage per attack, misses as 0 (docs/rules/opposed-tiers.md; seed 002, "Combat form skills",
    "Critical", "Armor").

    Parameters
    ----------
    p_hit, p_critical : float
        P(hit, critical included) and P(critical).
    damage, critical : Dice
        The combat-form damage dice of a plain hit and of a critical.
    bonus : int
        Form skill level + the weapon's damage modifier.
    armor : Dice or None
        The defender's armor dice (None: no armor, or armor that does not apply).
    floor : int
        ``damage_floor``: damage after armor is never below it.

    Returns
    -------
    ndarray
        ``pmf[d]`` = P(damage = d), d = 0, 1, …
    """
    plain = _damage_given(damage, bonus, armor, floor) * (p_hit - p_critical)
    crit = _damage_given(critical, bonus, armor, floor) * p_critical
    out = np.zeros(max(len(plain), len(crit)))
    out[: len(plain)] += plain
    out[: len(crit)] += crit
    out[0] += 1.0 - p_hit
    return out


def attack_outcome(scenario: Scenario, attacker: int, attack: str, defender: int) -> AttackOutcome:
    """Exact outcome of ``attack`` by combatant ``attacker`` on a fresh ``defender``.

    An attack outside the surprise round: defended, able to crit, armor applies
    (docs/rules/opposed-tiers.md). :func:`fight_caveats` names the figures the surprise round moves.

    Parameters
    ----------
    scenario : Scenario
        An ``opposed-tiers`` scenario.
    attacker, defender : int
        Combatant indices after expanding ``count:`` copies.
    attack : str
        An attack name from ``attacks:``.
    """
    return _outcome(scenario, attacker, attack, defender, surprise=False)


def _outcome(scenario: Scenario, attacker: int, attack: str, defender: int,
             surprise: bool) -> AttackOutcome:  # fmt: skip
    """:func:`attack_outcome`, or with ``surprise`` that of a ranged attack in the surprise
    round: undefended (it hits on any total above 0), never a critical, armor only with
    ``surprise_armor``."""
    members = [m for _, m in expand(scenario)]
    atk, dfd, weapon = members[attacker], members[defender], scenario.attacks[attack]
    a_dice, d_dice = combatant_dice(scenario, atk), combatant_dice(scenario, dfd)
    attack_total = total_pmf([a_dice.attack], atk.weapon_sl + weapon.modifier)
    defense_total = None if surprise else total_pmf([d_dice.defense, d_dice.shield],
                                                    dfd.defense_sl)  # fmt: skip
    p_hit, p_crit = hit_and_critical(attack_total, defense_total)
    bonus = atk.form_sl + weapon.damage_modifier
    armor = None if surprise and not scenario.params.surprise_armor else d_dice.armor
    pmf = damage_pmf(p_hit, p_crit, a_dice.damage, a_dice.critical, bonus, armor,
                     scenario.params.damage_floor)  # fmt: skip
    return AttackOutcome.from_pmf(p_hit, p_crit, pmf)


#: Below this, two exact answers are the same (float sums of one set of probabilities in
#: another order differ by some 1e-16; no simulation could tell 1e-12 apart).
SAME = 1e-12


def _same_damage(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two damage distributions are the same, whatever their lengths."""
    size = max(len(a), len(b))
    return bool(np.allclose(np.pad(a, (0, size - len(a))), np.pad(b, (0, size - len(b))),
                            rtol=0.0, atol=SAME))  # fmt: skip


def fight_caveats(scenario: Scenario, attacker: int, attack: str, defender: int) -> dict[str, str]:
    """Figures of a pair that the surprise round moves away from :func:`attack_outcome`.

    In the surprise round a hidden combatant's ranged attacks are not defended against
    and cannot crit (docs/rules/opposed-tiers.md), so its pooled hit rate, crit rate and
    damage differ from those of a normal round — each where its surprise value differs:
    the crit rate of an attack that cannot crit in a normal round either stays 0, and a
    hit rate of 1 stays 1. Nothing else in a fight changes an attack's odds.
    """
    member = expand(scenario)[attacker][1]
    if not (surprise_happens(scenario) and member.hidden and scenario.attacks[attack].ranged):
        return {}
    reason = (f"{scenario.combatant_names()[attacker][1]}'s {attack!r} is an undefended "
              "surprise attack in round 0")  # fmt: skip
    normal = _outcome(scenario, attacker, attack, defender, surprise=False)
    surprise = _outcome(scenario, attacker, attack, defender, surprise=True)
    same = {"hit_rate": abs(normal.hit_rate - surprise.hit_rate) <= SAME,
            "crit_rate": abs(normal.crit_rate - surprise.crit_rate) <= SAME,
            "mean_damage": _same_damage(normal.damage_pmf, surprise.damage_pmf)}  # fmt: skip
    return {figure: reason for figure, kept in same.items() if not kept}


def _duel(scenario: Scenario) -> tuple[int, int]:
    """(attacker, defender) of a duel, or ExactUnsupported saying why not."""
    a, d = duel_roles(scenario)
    if surprise_happens(scenario):
        who = scenario.combatant_names()[a][1]
        raise ExactUnsupported("expected a duel without a surprise round (its round 0 of "
                               "different attacks breaks the round-by-round chain); got "
                               f"{who} hidden, with surprise_round on")  # fmt: skip
    return a, d


def duel_time_to_down(scenario: Scenario) -> TimeToDown:
    """Exact distribution of the round in which a duel's defender falls
    (docs/rules/opposed-tiers.md).

    The scenario must be a duel: one combatant with attacks, exactly one opponent (who
    therefore makes none) and no surprise round. Each round then deals independent
    damage — the attacker's turn of attacks, in rotation, on a defender whose odds never
    change — and the defender falls (down) in the first round whose total damage
    reaches its Health.

    Returns
    -------
    simlab.exact.chain.TimeToDown

    Raises
    ------
    ExactUnsupported
        When the scenario is not such a duel; the message names the feature.
    """
    a, d = _duel(scenario)
    attacker = expand(scenario)[a][1]
    cycle = rotation_cycle(attacker.attacks, attacks_per_turn(attacker, scenario.params),
                           lambda n: attack_outcome(scenario, a, n, d).damage_pmf)  # fmt: skip
    return time_to_reach(expand(scenario)[d][1].hp, cycle, scenario.max_rounds)
