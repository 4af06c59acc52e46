"""Exact answers for ``rules: shattered-spirits`` (docs/rules/shattered-spirits.md), without
sampling.

Three results, each computed by enumeration or by a Markov chain in float64 — an oracle
for the simulator and a fast answer where the rules allow one:

* :func:`roll_pmf` — the modified attack roll: 2d6, or 3d6 keeping the highest (lowest)
  two under net Advantage (Disadvantage), each surplus instance a Bonus (Penalty), plus
  the flat modifier (docs/rules/shattered-spirits.md "Attack roll"). All 36 or 216 dice outcomes are
  enumerated.
* :func:`attack_outcome` — hit rate, crit rate and the damage distribution of one attack
  against a fresh defender: the modified roll picks the row ("Extreme rolls": above 12 is
  row 12, below 2 a miss), then the "Damage order" (row damage, + damage modifier,
  + Exposed on the target, − Impaired on the attacker, − Guard with floor 0, Glancing
  divides rounding up; Cover grants Glancing or extra Guard).
* :func:`duel_time_to_down` — the round in which a lone, passive defender is Downed by a
  lone attacker: a Markov chain over the damage still needed (Vigor + HP,
  docs/rules/shattered-spirits.md "Resources": Vigor is lost first, Downed at 0 HP).

Whatever the engine cannot answer exactly raises :class:`simlab.errors.ExactUnsupported`
naming the feature.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from simlab.errors import ExactUnsupported
from simlab.exact.chain import (  # noqa: F401 - TimeToDown and the limits are re-exported
    MAX_CHAIN_ROUNDS,
    TAIL_TOLERANCE,
    TimeToDown,
    and_listed,
    duel_roles,
    rotation_cycle,
    time_to_reach,
)
from simlab.exact.outcome import every_reason
from simlab.rules.shattered_spirits.compile import expand
from simlab.rules.shattered_spirits.model import ROWS, Attack, Combatant, Scenario, parse_status

__all__ = [
    "AttackOutcome",
    "TimeToDown",
    "attack_outcome",
    "duel_time_to_down",
    "fight_caveats",
    "rates_moved",
    "reactions_paid_for",
    "roll_pmf",
    "roll_tier",
    "status_sources",
]


def roll_pmf(net_advantage: int, bonus_size: int = 1, modifier: int = 0) -> dict[int, float]:
    """Exact distribution of the modified attack roll (docs/rules/shattered-spirits.md "Attack
    roll").

    With ``net_advantage`` 0 the roll is 2d6. With net Advantage n ≥ 1 it is 3d6 keeping
    the highest two, plus (n − 1) Bonuses of ``bonus_size``; with net Disadvantage
    (n ≤ −1) 3d6 keeping the lowest two, minus (|n| − 1) Penalties. ``modifier`` (the
    attack's and the attacker's flat roll modifiers) is added. The value is not yet
    clamped to the chart: see "Extreme rolls".

    Parameters
    ----------
    net_advantage : int
        Advantage instances minus Disadvantage instances (they cancel 1-for-1).
    bonus_size : int
        Size of each Bonus/Penalty (``params.bonus_size``, default 1).
    modifier : int
        Flat modifier added to the kept dice.

    Returns
    -------
    dict of int to float
        P(modified roll = k) for every reachable k, in increasing k; sums to 1.
    """
    counts: dict[int, int] = {}
    if net_advantage == 0:
        outcomes = 36
        for d1, d2 in itertools.product(range(1, 7), repeat=2):
            total = d1 + d2 + modifier
            counts[total] = counts.get(total, 0) + 1
    else:
        outcomes = 216
        surplus = (abs(net_advantage) - 1) * bonus_size
        for dice in itertools.product(range(1, 7), repeat=3):
            ordered = sorted(dice)
            if net_advantage > 0:
                total = ordered[1] + ordered[2] + surplus
            else:
                total = ordered[0] + ordered[1] - surplus
            counts[total + modifier] = counts.get(total + modifier, 0) + 1
    return {k: counts[k] / outcomes for k in sorted(counts)}


@dataclass(frozen=True)
class AttackOutcome:
    """Exact outcome of one attack against a fresh defender (docs/rules/shattered-spirits.md).

    Attributes
    ----------
    attacker, defender : int
        Combatant indices after ``count:`` expansion.
    attack : str
        The attack's name.
    hit_rate : float
        P(the row's tier is hit or crit); a roll below 2 is a miss.
    crit_rate : float
        P(the row's tier is crit).
    damage_pmf : numpy.ndarray
        ``damage_pmf[d]`` = P(the attack deals d damage), misses included as 0; the last
        entry is the largest damage reachable.
    mean_damage : float
        Expected damage per attack (misses count as 0).
    row_pmf : numpy.ndarray
        Length 13: ``row_pmf[r]`` = P(the roll lands on row r) for r = 2..12 (rolls above
        12 on row 12); ``row_pmf[0]`` = P(roll below 2, a miss); ``row_pmf[1]`` is 0.
    """

    attacker: int
    attack: str
    defender: int
    hit_rate: float
    crit_rate: float
    damage_pmf: np.ndarray
    mean_damage: float
    row_pmf: np.ndarray


def _roll_pmf(scenario: Scenario, attacker: Combatant, attack: Attack) -> dict[int, float]:
    """P(modified roll = k) of ``attack`` by ``attacker``, unclamped (:func:`roll_pmf`)."""
    modifier = attack.modifier + attacker.roll_modifier
    net = attack.advantage - attack.disadvantage
    return roll_pmf(net, scenario.params.bonus_size, modifier)


def _row_pmf(scenario: Scenario, attacker: Combatant, attack: Attack) -> np.ndarray:
    """P(row) for rows 2..12 at indices 2..12, P(roll below 2) at index 0."""
    rows = np.zeros(13)
    for total, prob in _roll_pmf(scenario, attacker, attack).items():
        rows[0 if total < 2 else min(total, 12)] += prob
    return rows


def _row_damage(
    scenario: Scenario, attack: Attack, row: int, attacker: Combatant, defender: Combatant
) -> int:
    """Damage of a hit or crit ``row`` against a fresh defender (docs/rules/shattered-spirits.md
    damage order)."""
    prm = scenario.params
    damage = (
        attack.profile[row - 2]
        + attack.damage_modifier
        + defender.exposed * prm.exposed_per_level
        - attacker.impaired * prm.impaired_per_level
    )
    guard = defender.guard
    glancing = attack.glancing
    if defender.cover:  # Cover: Glancing, or more Guard when already Glancing
        if glancing:
            guard += prm.cover_guard
        else:
            glancing = True
    if damage <= guard:  # Guard: the damage less it, or a hit it stops (guard_mode)
        damage = 0
    elif prm.guard_mode == "subtract":
        damage -= guard
    if glancing:  # halving (by the divisor), rounding up: text rule 1
        damage = -(-damage // prm.glancing_divisor)
    return damage


FEATURE_REASONS = {
    "spirits": "Spirits are Manifested, Downed and Recalled during the fight, changing who "
               "fights and who is Suppressed",
    "stances": "Stances change Phase, attacks per Turn, Guard and rolls at each Respite by "
               "the combatant's HP",
    "reinforcements": "reinforcements join the fight round by round",
    "sunder": "Sunder replaces Wounds while Armor or Wielded items last",
    "engagement": "declared engagements restrict Melee targets and change with Spirits",
    "momentum": "attacks or reactions priced in Momentum depend on the Momentum gained and "
                "spent so far",
}  # fmt: skip


def check_scenario(scenario: Scenario) -> None:
    """What the exact engine refuses before looking at any pair: the later-draft features
    (:func:`check_features`), whose extra combatants (Spirits, reinforcement slots) no
    pair-by-pair answer could name."""
    check_features(scenario)


def check_features(scenario: Scenario) -> None:
    """Raise :class:`ExactUnsupported` naming the first later-draft feature (seed 001:
    Spirits, Stances, Reinforcements, Sunder) the scenario uses: each makes an attack's
    outcome or the fight depend on what happened earlier."""
    for feature in scenario.uses_features:
        found = _feature_found(scenario, feature)
        raise ExactUnsupported(f"{feature}: {FEATURE_REASONS[feature]}; expected a scenario "
                               f"without {feature}; got {found}")  # fmt: skip


#: The combatant's key of each later-draft feature a combatant holds.
FEATURE_KEYS = {"spirits": "spirit", "stances": "stances", "reinforcements": "reinforce",
                "sunder": "sunder"}  # fmt: skip


def _feature_found(scenario: Scenario, feature: str) -> str:
    """Where the scenario uses later-draft ``feature``, as written: ``spirit: on Kaito
    and Mira``, ``engagement: declared``, ``momentum_cost: on attack 'surge'``."""
    members = [m for ms in scenario.sides.values() for m in ms]
    if feature in FEATURE_KEYS:
        key = FEATURE_KEYS[feature]
        return f"{key}: on {and_listed([m.name for m in members if getattr(m, key)])}"
    if feature == "engagement":
        return "engagement: declared"
    priced = [f"attack {n!r}" for n, a in scenario.attacks.items() if a.momentum_cost > 0]
    priced += [f"{m.name}'s react: {kind}" for m in members for kind in ("block", "evade")
               if (r := getattr(m.react, kind)) is not None and r.momentum_cost > 0]  # fmt: skip
    return f"momentum_cost: on {and_listed(priced)}"


def _combatant(scenario: Scenario, index: int) -> Combatant:
    combatants = expand(scenario)
    if not 0 <= index < len(combatants):
        raise IndexError(f"expected a combatant index from 0 to {len(combatants) - 1}; got {index}")
    return combatants[index][1]


def _name(scenario: Scenario, index: int) -> str:
    return scenario.combatant_names()[index][1]


def reactions_paid_for(scenario: Any, defender: Any) -> tuple[str, ...]:
    """The reactions (``"evade"``, ``"block"``) ``defender`` holds and has the tokens to
    pay for, Evade first: Reflex for Evade, Grit for Block (docs/rules/shattered-spirits.md
    "Reactions"). Neither draft gives tokens back during a fight, so a reaction not paid
    for at the start never fires. Used by both drafts."""
    cost = scenario.params.reaction_cost
    pools = {"evade": defender.tokens.reflex, "block": defender.tokens.grit}
    return tuple(kind for kind in ("evade", "block")
                 if getattr(defender.react, kind) is not None and pools[kind] >= cost)  # fmt: skip


def check_reactions(
    scenario: Scenario, defender: Combatant, name: str, hits: list[tuple[float, int]]
) -> None:
    """Raise when one of the defender's reactions could fire on one of ``hits``.

    ``hits`` holds (probability, damage) of every reachable hit or crit outcome. A
    reaction can fire when it is set, the defender holds the tokens to pay for it and
    some reachable hit reaches its threshold (docs/rules/shattered-spirits.md "Reactions").
    """
    for kind in reactions_paid_for(scenario, defender):
        reaction = getattr(defender.react, kind)
        if any(p > 0 and dmg >= reaction.when_damage_at_least for p, dmg in hits):
            raise ExactUnsupported(
                "expected a defender without reactions it can pay for (reactions depend on "
                f"tokens spent earlier); got react: {kind} on {name}, with the tokens to pay "
                "for it"
            )


def attack_outcome(
    scenario: Scenario, attacker_index: int, attack_name: str, defender_index: int
) -> AttackOutcome:
    """Exact hit rate, crit rate and damage distribution of one attack
    (docs/rules/shattered-spirits.md).

    The defender is fresh: its starting Exposed, Guard and Cover, no statuses gained in
    the fight; the attacker has its starting Impaired and its roll modifier. Reactions are
    not modelled: a defender that could react raises :class:`ExactUnsupported`.

    Parameters
    ----------
    scenario : Scenario
        A loaded ``shattered-spirits`` scenario.
    attacker_index, defender_index : int
        Combatant indices after ``count:`` expansion, in
        :func:`simlab.rules.shattered_spirits.compile.expand` order.
    attack_name : str
        A key of ``scenario.attacks``.

    Returns
    -------
    AttackOutcome

    Raises
    ------
    ExactUnsupported
        When the defender has a reaction it can pay for and that some reachable hit
        would trigger, or the scenario uses Spirits, Stances, Reinforcements or Sunder
        (:func:`check_features`).
    KeyError
        When ``attack_name`` is not an attack of the scenario.
    """
    if attack_name not in scenario.attacks:
        raise KeyError(
            f"expected one of the attacks {sorted(scenario.attacks)}; got {attack_name!r}"
        )
    check_features(scenario)
    attack = scenario.attacks[attack_name]
    attacker = _combatant(scenario, attacker_index)
    defender = _combatant(scenario, defender_index)
    rows = _row_pmf(scenario, attacker, attack)
    hit_rate = crit_rate = 0.0
    outcomes: list[tuple[float, int]] = [(float(rows[0]), 0)]
    hits: list[tuple[float, int]] = []
    for row in ROWS:
        prob = float(rows[row])
        tier = attack.row_tier(row)
        if tier == "miss":
            outcomes.append((prob, 0))
            continue
        damage = _row_damage(scenario, attack, row, attacker, defender)
        outcomes.append((prob, damage))
        hits.append((prob, damage))
        hit_rate += prob
        if tier == "crit":
            crit_rate += prob
    check_reactions(scenario, defender, _name(scenario, defender_index), hits)
    reachable = [(p, dmg) for p, dmg in outcomes if p > 0]
    pmf = np.zeros(max(dmg for _, dmg in reachable) + 1)
    for prob, damage in reachable:
        pmf[damage] += prob
    return AttackOutcome(
        attacker=attacker_index,
        attack=attack_name,
        defender=defender_index,
        hit_rate=hit_rate,
        crit_rate=crit_rate,
        damage_pmf=pmf,
        mean_damage=float(np.dot(np.arange(len(pmf)), pmf)),
        row_pmf=rows,
    )


def _duel_roles(scenario: Scenario) -> tuple[int, int]:
    """(attacker index, defender index) of a duel, or ExactUnsupported saying why not."""
    check_features(scenario)
    a, d = duel_roles(scenario)
    for c, (_, m) in enumerate(expand(scenario)):
        if m.rushing > 0:
            raise ExactUnsupported(
                "expected no Rushing terrain (it adds Stun every Phase); got rushing: "
                f"{m.rushing} on {_name(scenario, c)}"
            )
    return a, d


def _check_statuses(scenario: Scenario, attack_name: str, rows: np.ndarray) -> None:
    """Raise when a reachable hit row inflicts a status that changes later damage.

    Exposed raises the damage of later attacks and Stun beyond the maximum becomes damage
    (docs/rules/shattered-spirits.md), so both make the chain depend on history. Impaired on the
    defender only weakens its own attacks, and a duel's defender makes none, so it is allowed.
    """
    attack = scenario.attacks[attack_name]
    prm = scenario.params
    for row in ROWS:
        if rows[row] <= 0 or attack.row_tier(row) == "miss":
            continue
        for status in attack.status.get(row, []):
            name, size = parse_status(status)
            if name == "exposed" and size * prm.exposed_per_level > 0:
                raise ExactUnsupported(
                    "expected hits that inflict no status changing later damage; got "
                    f"{status!r} on row {row} of attack {attack_name!r} (Exposed raises the "
                    "damage of later attacks)"
                )
            if name == "stun" and size * prm.stun_per_level > 0:
                raise ExactUnsupported(
                    "expected hits that inflict no Stun (it accumulates and converts to "
                    f"damage); got {status!r} on row {row} of attack {attack_name!r}"
                )


def duel_time_to_down(scenario: Scenario) -> TimeToDown:
    """Exact distribution of the round a passive defender is Downed
    (docs/rules/shattered-spirits.md).

    The scenario must be a duel: one combatant with attacks (the attacker), exactly one
    combatant on the other sides (the defender, who therefore makes no attacks), no
    reactions that could fire, no reachable hit inflicting Exposed or Stun, and no
    Rushing terrain. Each round the attacker makes ``attacks_per_turn`` attacks, taking
    its attacks in rotation across rounds; each attack's damage is independent (the
    defender's state does not change the damage), so the damage still needed to Down
    the defender — Vigor + HP, since Vigor is lost first and Downed comes at 0 HP — is a
    Markov chain. Only the first Downed matters, so ``downed: wounds`` is allowed too.

    Parameters
    ----------
    scenario : Scenario
        A loaded ``shattered-spirits`` duel scenario.

    Returns
    -------
    TimeToDown

    Raises
    ------
    ExactUnsupported
        When the scenario is not such a duel; the message names the feature.
    """
    a, d = _duel_roles(scenario)
    attacker = _combatant(scenario, a)
    defender = _combatant(scenario, d)
    outcomes = {n: attack_outcome(scenario, a, n, d) for n in dict.fromkeys(attacker.attacks)}
    for name, outcome in outcomes.items():
        _check_statuses(scenario, name, outcome.row_pmf)
    cycle = rotation_cycle(attacker.attacks, attacker.attacks_per_turn,
                           lambda n: outcomes[n].damage_pmf)  # fmt: skip
    return time_to_reach(defender.vigor + defender.hp, cycle, scenario.max_rounds)


def status_sources(scenario: Any, target: int, status: str) -> list[str]:
    """Why ``target`` may gain ``status`` from an opponent's profile during a fight: a
    reason per status it can be inflicted as, naming every opponent's attack that can
    (``Knight's 'blade' and Witch's 'blade' can inflict 'exposed 1' on Brute during the
    fight``); none where no attack can.

    Used by both Shattered Spirits drafts (docs/rules/shattered-spirits.md,
    docs/rules/shattered-spirits-draft1.md): a status counts when some combatant on another side has
    an attack it can make (``attack_makers``: the earlier draft's Improvised Technique too)
    whose non-miss row inflicts it. Every such attack is named, as a designer who takes
    one away must know of the others.
    """
    makers = scenario.attack_makers()
    names = scenario.combatant_names()
    by_text: dict[str, list[str]] = {}
    for c, (side, _, attacks) in enumerate(makers):
        if side == makers[target][0]:
            continue
        for name in dict.fromkeys(attacks):
            attack = scenario.attacks[name]
            inflicted = [text for row, statuses in attack.status.items() for text in statuses
                         if _inflicts(attack, row, text, status)]  # fmt: skip
            if inflicted:
                by_text.setdefault(inflicted[0], []).append(f"{names[c][1]}'s {name!r}")
    return [f"{and_listed(attacks)} can inflict {text!r} on {names[target][1]} during the fight"
            for text, attacks in by_text.items()]  # fmt: skip


def _inflicts(attack: Any, row: Any, text: str, status: str) -> bool:
    """Whether ``text``, a status of ``attack``'s row ``row``, inflicts ``status`` on a
    row that is not a miss."""
    kind, size = parse_status(text)
    return kind == status and size > 0 and attack.row_tier(row) != "miss"


#: The rates of an attack, each with the tiers its attacks count.
RATE_TIERS = {"hit_rate": ("hit", "crit"), "crit_rate": ("crit",)}
FIGURES = ("hit_rate", "crit_rate", "mean_damage")


def roll_tier(attack: Any, roll: int) -> str:
    """The tier of a modified roll: a miss below 2, row 12's above 12, else its row's
    ("Extreme rolls"; the earlier draft reads them alike)."""
    return "miss" if roll < 2 else str(attack.row_tier(min(roll, 12)))


def rates_moved(
    attack: Any, rolls: Iterable[int], reactions: Iterable[str], shift: int = 0
) -> list[str]:
    """The rates of ``attack`` (``hit_rate``, ``crit_rate``) that a fight can move away
    from the fresh-defender answer, in :data:`RATE_TIERS` order. Used by both drafts.

    A rate moves when something in the fight can take a roll from a tier it counts to
    one it does not, or back: the attacker's rolls shifted by ``shift`` (the earlier
    draft's Shaken modifier), an Evade's reroll (any roll the attack can land on) or a
    Block (the roll less 1), each on a hit, once changed damage sets the reaction off.
    The crit rate of an attack with no critical row among those rolls stays 0 (and a
    hit rate stays 1 where no roll can become a miss), whatever the damage does.

    Parameters
    ----------
    attack : AttackProfile
        The attack or Technique, for its rows' tiers.
    rolls : iterable of int
        The modified rolls it can land on against a fresh defender.
    reactions : iterable of str
        The defender's reactions a fight can set off (:func:`reactions_paid_for`).
    shift : int
        Added to every roll once the fight changes the attacker's rolls; 0 when it does
        not.

    Returns
    -------
    list of str
    """
    rolls = set(rolls)
    changes = [(r, r + shift) for r in rolls] if shift else []
    reachable = rolls | {r + shift for r in rolls}
    hits = [r for r in reachable if roll_tier(attack, r) != "miss"]
    if "evade" in reactions:
        changes += [(r, reroll) for r in hits for reroll in reachable]
    if "block" in reactions:
        changes += [(r, r - 1) for r in hits]
    tiers = {r: roll_tier(attack, r) for change in changes for r in change}
    return [figure for figure, counted in RATE_TIERS.items()
            if any((tiers[r] in counted) != (tiers[s] in counted) for r, s in changes)]  # fmt: skip


def fight_caveats(scenario: Scenario, a: int, attack: str, d: int) -> dict[str, str]:
    """Figures of an (attacker, attack, defender) pair that a full fight can move away
    from :func:`attack_outcome`'s fresh-defender answer (docs/rules/shattered-spirits.md "Damage
    order").

    Exposed on the defender and Impaired on the attacker change the damage; when the
    defender holds a reaction it can pay for, changed damage can also bring its
    threshold into reach and so change the hit and crit rates too — each only where a
    reaction can move a roll across its tiers (:func:`rates_moved`: not the crit rate of
    an attack that cannot crit).

    Parameters
    ----------
    scenario : Scenario
        A loaded ``shattered-spirits`` scenario.
    a, d : int
        Attacker and defender indices after ``count:`` expansion.
    attack : str
        The attack's name.

    Returns
    -------
    dict of str to str
        Figure name (``hit_rate``, ``crit_rate``, ``mean_damage``) → every reason that
        moves it, each opponent's attack that can inflict Exposed or Impaired
        (:func:`~simlab.exact.outcome.every_reason`).
    """
    prm = scenario.params
    exposed = status_sources(scenario, d, "exposed") if prm.exposed_per_level else []
    impaired = status_sources(scenario, a, "impaired") if prm.impaired_per_level else []
    reasons = [*exposed, *impaired]
    if not reasons:
        return {}
    profile = scenario.attacks[attack]
    rolls = _roll_pmf(scenario, _combatant(scenario, a), profile)
    moved = rates_moved(profile, rolls, reactions_paid_for(scenario, _combatant(scenario, d)))
    return every_reason(((*moved, "mean_damage"), reason) for reason in reasons)
