"""Exact answers for ``rules: glitters-d20`` (docs/rules/glitters-d20.md; seed 003), without
sampling.

One attack against a defender in its starting state, computed by enumeration in
float64 — an oracle for the simulator and a fast answer for balance questions:

* :func:`natural_pmf` — the natural d20: one die, or ``advantage_dice`` dice keeping the
  highest (lowest) under net advantage (disadvantage).
* :func:`hit_crit` — P(hit) and P(critical hit): a natural die ≥ CT always hits and is
  critical; otherwise the total (natural + bonus + the +3 of bludgeoning against plate or
  piercing against mail) must reach MIT (``hit_on_tie``) (seed 003, "Attacking",
  "Critical Hits").
* :func:`hit_damage_pmf` — damage of a hit, plain or critical: the weapon dice (on a
  critical hit one bonus die per die, the first at its maximum) + ASM + flat, floor 0,
  then vulnerability ×2, resistance ×½ or immunity ×0 (seed 003, "Damage", "Damage
  Types").
* :func:`attack_outcome` — all of the above for an (attacker, attack, defender) of a
  scenario, with the defender's MIT from its starting state (DC halved when Prone, 0 when
  Frozen; BC without the metal armor's against lightning; a parrying defender's Parry is
  ready, a blocking defender has not blocked yet).

:func:`duel_time_to_down` — the round in which a passive defender reaches 0 HP, when
no hit changes what later hits do (no statuses, no corrosion, no Block or Parry): the
shared Markov chain of :mod:`simlab.exact.chain` over the attacker's turns.

:func:`fight_caveats` names the figures that a fight can move away from that starting
state (Block, Parry, corrosion, Freezing), which ``simlab run --check`` leaves out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from simlab.errors import ExactUnsupported
from simlab.exact.chain import TimeToDown, duel_roles, round_damage, time_to_reach
from simlab.exact.outcome import AttackOutcome, every_reason
from simlab.exact.zones_3d6 import base_damage_pmf
from simlab.rules.glitters_d20.compile import (
    TYPE_BONUS,
    critical_threshold,
    expand,
    parry_value,
    split_hands,
    type_affinity,
)
from simlab.rules.glitters_d20.model import METAL_ARMOR, Attack, Combatant, Params, Scenario

__all__ = ["AttackOutcome", "attack_outcome", "duel_time_to_down", "fight_caveats", "hit_crit",
           "hit_damage_pmf", "natural_pmf", "starting_mit"]  # fmt: skip

# The status each damage type's hit adds (docs/rules/glitters-d20.md "Status effects").
STATUS_OF_TYPE = {"slashing": "bleeding", "fire": "burning", "ice": "freezing"}

D20 = 20


def natural_pmf(net_advantage: int, advantage_dice: int = 2) -> np.ndarray:
    """P(natural die = v), v = 0..20 (index 0 unused) (docs/rules/glitters-d20.md [default]).

    Parameters
    ----------
    net_advantage : int
        Advantage minus disadvantage instances; only its sign matters.
    advantage_dice : int
        d20s rolled under net advantage or disadvantage, one kept.
    """
    v = np.arange(D20 + 1, dtype=float)
    if net_advantage == 0:
        out = np.full(D20 + 1, 1.0 / D20)
    elif net_advantage > 0:  # the highest of k: P(max ≤ v) − P(max ≤ v − 1)
        out = (v / D20) ** advantage_dice - ((v - 1) / D20) ** advantage_dice
    else:  # the lowest of k: P(min ≥ v) − P(min ≥ v + 1)
        out = ((D20 + 1 - v) / D20) ** advantage_dice - ((D20 - v) / D20) ** advantage_dice
    out[0] = 0.0
    return out


def hit_crit(natural: np.ndarray, to_hit: int, mit: int, ct: int,
             hit_on_tie: bool = True) -> tuple[float, float]:  # fmt: skip
    """(P(hit or crit), P(crit)) of an attack (docs/rules/glitters-d20.md "Attack roll",
    "Critical").

    Parameters
    ----------
    natural : ndarray
        P(natural die = v), v = 0..20, from :func:`natural_pmf`.
    to_hit : int
        Everything added to the natural die.
    mit : int
        The defender's MIT for this attack.
    ct : int
        Critical threshold: a natural die ≥ ``ct`` always hits.
    hit_on_tie : bool
        Whether a total equal to MIT hits.
    """
    v = np.arange(D20 + 1)
    crit = v >= ct
    total = v + to_hit
    hit = crit | (total > mit) | ((total == mit) & hit_on_tie)
    # fsum: twenty plain float additions of 0.05 give 1.0000000000000002, not a probability
    return math.fsum(natural[hit]), math.fsum(natural[crit])


def typed_damage(raw: int, affinity: int, immune: bool, round_up: bool = False) -> int:
    """Damage after the type's multiplier: ×2 vulnerable (``affinity`` 1), ×½ resistant
    (−1, rounded down unless ``round_up``), ×0 immune (docs/rules/glitters-d20.md)."""
    if immune:
        return 0
    if affinity > 0:
        return 2 * raw
    if affinity < 0:
        return (raw + int(round_up)) // 2
    return raw


def hit_damage_pmf(terms: Sequence[tuple[int, int]], flat: int, crit: bool, affinity: int = 0,
                   immune: bool = False, round_up: bool = False) -> np.ndarray:  # fmt: skip
    """PMF over 0.. of the damage of one hit (docs/rules/glitters-d20.md "Damage", "Critical").

    Parameters
    ----------
    terms : sequence of (count, sides)
        The weapon's damage dice.
    flat : int
        ASM plus the expression's constant.
    crit : bool
        A critical hit adds one bonus die per damage die; the first takes its maximum.
    affinity, immune, round_up
        The defender's type multiplier (see :func:`typed_damage`).
    """
    dice = [(count, sides) for count, sides in terms if count > 0]
    pmf = base_damage_pmf(dice, ())
    low = flat
    if crit and dice:
        rest = [(c - 1 if i == 0 else c, s) for i, (c, s) in enumerate(dice)]
        pmf = np.convolve(pmf, base_damage_pmf(rest, ()))
        low += dice[0][1]
    values = np.maximum(np.arange(len(pmf)) + low, 0)
    values = np.array([typed_damage(int(x), affinity, immune, round_up) for x in values])
    out = np.zeros(int(values.max()) + 1)
    np.add.at(out, values, pmf)
    return out


def starting_mit(defender: Combatant, attack: Attack, params: Params) -> int:
    """MIT of a defender in its starting state against ``attack``, Parry included when
    it parries (docs/rules/glitters-d20.md "MIT"): ``mit_base`` + DC (0 when Frozen, halved when
    Prone) + BC (no metal armor BC against lightning; the shield not doubled)."""
    dc = defender.dodge(params.mit_base)
    if _starts_frozen(defender):
        dc = 0
    elif defender.prone:
        dc = (dc + int(params.rounding == "up")) // 2
    armor = defender.armor_bc
    if attack.type == "lightning" and defender.armor in METAL_ARMOR:
        armor = 0
    mit = params.mit_base + dc + armor + defender.shield_bc
    if defender.defense == "parry":
        mit += parry_value(defender, params)
    return mit


def _starts_frozen(member: Combatant) -> bool:
    freezing = member.freezing - min(member.burning, member.freezing)
    return freezing > member.attribute("str")


def _affinity(defender: Combatant, damage_type: str) -> int:
    affinity = type_affinity(defender, damage_type)
    if _starts_frozen(defender):
        affinity += 1 if damage_type in ("force", "bludgeoning") else -1
    return max(-1, min(1, affinity))


def attack_outcome(scenario: Scenario, attacker: int, attack: str, defender: int) -> AttackOutcome:
    """Exact outcome of ``attack`` by combatant ``attacker`` on ``defender`` in its
    starting state (docs/rules/glitters-d20.md).

    Parameters
    ----------
    scenario : Scenario
        A ``glitters-d20`` scenario.
    attacker, defender : int
        Combatant indices after expanding ``count:`` copies.
    attack : str
        An attack name from ``attacks:``.
    """
    prm = scenario.params
    members = [m for _, m in expand(scenario)]
    a, atk, dfd = scenario.attacks[attack], members[attacker], members[defender]
    net = a.advantage - a.disadvantage - int(a.ranged and dfd.prone)
    natural = natural_pmf(net, prm.advantage_dice)
    bonus = TYPE_BONUS if (a.type, dfd.armor) in (("bludgeoning", "plate"),
                                                   ("piercing", "mail")) else 0  # fmt: skip
    p_hit, p_crit = hit_crit(natural, a.bonus + bonus, starting_mit(dfd, a, prm),
                             critical_threshold(a, prm), prm.hit_on_tie)  # fmt: skip
    asm = atk.attribute(a.attribute) - 10 if a.attribute is not None else 0
    if a.attribute == "dex":
        asm -= atk.freezing - min(atk.burning, atk.freezing)
    terms = [(t.count, t.sides) for t in a.damage.terms]
    shape = (_affinity(dfd, a.type), a.type in dfd.immune, prm.rounding == "up")
    flat = asm + a.damage.constant
    plain = hit_damage_pmf(terms, flat, False, *shape)
    crit = hit_damage_pmf(terms, flat, True, *shape)
    pmf = np.zeros(max(len(plain), len(crit)))
    pmf[: len(plain)] += (p_hit - p_crit) * plain
    pmf[: len(crit)] += p_crit * crit
    pmf[0] += 1.0 - p_hit
    return AttackOutcome.from_pmf(p_hit, p_crit, pmf)


def fight_caveats(scenario: Scenario, attacker: int, attack: str, defender: int) -> dict[str, str]:
    """Figures of a pair that a fight can move away from the starting state.

    Block doubles the shield only after the defender's first turn and Parry covers one
    attack per turn; corrosive hits wear BC down; Freezing can freeze the defender (DC 0,
    new multipliers) or, on the attacker, lower the ASM of a DEX attack; a defender that
    starts Frozen under ``frozen_lasts: thaw`` loses its Frozen state as its Freezing
    drops (the answer is of the Frozen start). The critical rate depends on the natural
    die only and never moves. Each figure maps to every reason that moves it
    (:func:`~simlab.exact.outcome.every_reason`).
    """
    members = expand(scenario)
    names = scenario.combatant_names()
    a = scenario.attacks[attack]
    moved: tuple[str, ...] = ("hit_rate", "mean_damage")
    moves = [(moved, why) for why in _defender_changes(scenario, defender)]
    if a.attribute == "dex":
        atk = members[attacker][1]
        if atk.freezing > 0 or any(
            scenario.attacks[n].type == "ice" for s, m in members if s != members[attacker][0]
            for n in m.attacks
        ):  # fmt: skip
            moves.append((("mean_damage",), f"Freezing lowers {names[attacker][1]}'s DEX"))
    return every_reason(moves)


def _defender_changes(scenario: Scenario, defender: int) -> list[str]:
    """Every way ``defender`` changes during a fight that moves the hit rate and damage
    of the attacks on it (:func:`fight_caveats`), each said once."""
    members = expand(scenario)
    names = scenario.combatant_names()
    dfd, whom = members[defender][1], names[defender][1]
    out = []
    if dfd.defense != "none":
        verb = {"block": "blocks", "parry": "parries"}[dfd.defense]
        out.append(f"{whom} {verb} on only some attacks")
    if _starts_frozen(dfd) and scenario.params.frozen_lasts == "thaw":
        out.append(f"{whom} starts Frozen and thaws during the fight (frozen_lasts: thaw)")
    for c, (side, member) in enumerate(members):
        if side == members[defender][0]:
            continue
        for name in dict.fromkeys(member.attacks):
            kind = scenario.attacks[name].type
            if kind == "corrosive" and dfd.bc > 0:
                out.append(f"{names[c][1]}'s {name!r} corrodes {whom}'s BC")
            if kind == "ice" and "freezing" not in dfd.status_immune and "ice" not in dfd.immune:
                out.append(f"{names[c][1]}'s {name!r} can freeze {whom}")
    return out


def _history_problem(scenario: Scenario, a: int, d: int) -> str | None:
    """What makes a duel's damage depend on earlier hits or turns, or None
    (docs/rules/glitters-d20.md)."""
    members = [m for _, m in expand(scenario)]
    attacker, defender = members[a], members[d]
    names = [n for _, n in scenario.combatant_names()]
    if defender.defense != "none":
        return ("expected a defender without a defense policy (it defends on some attacks "
                f"only); got defense: {defender.defense} on {names[d]}")  # fmt: skip
    for who, member in ((a, attacker), (d, defender)):
        statuses = [s for s in ("bleeding", "burning", "freezing") if getattr(member, s)]
        if statuses:
            return ("expected no statuses at the start (statuses that act every turn); got "
                    f"{' and '.join(statuses)} on {names[who]}")  # fmt: skip
    for name in dict.fromkeys(attacker.attacks):
        kind = scenario.attacks[name].type
        if kind == "corrosive" and defender.bc > 0:
            return ("expected attacks that leave the defender's BC as it is; got "
                    f"{name!r}, which corrodes {names[d]}'s BC hit by hit")  # fmt: skip
        status = STATUS_OF_TYPE.get(kind)
        if status and kind not in defender.immune and status not in defender.status_immune:
            return ("expected attacks that add no status acting every turn; got "
                    f"{name!r} ({kind}), which adds {status} to {names[d]}")  # fmt: skip
    return None


def _turn_cycle(scenario: Scenario, a: int, d: int) -> list[np.ndarray]:
    """Damage distribution of each of the attacker's turns until its rotations repeat.

    A turn is the main-hand attack (main and two-handed attacks in rotation) and, unless
    that attack was two-handed or the attacker blocks, the offhand attack (offhand
    attacks in their own rotation) — the turn of the kernel's ``take_turn``.
    """
    attacker = expand(scenario)[a][1]
    main, off = split_hands(attacker, scenario.attacks)
    pmf = {n: attack_outcome(scenario, a, n, d).damage_pmf for n in dict.fromkeys(attacker.attacks)}
    use_off = bool(off) and attacker.defense != "block"
    cycle, seen, rot = [], set(), (0, 0)
    while rot not in seen:
        seen.add(rot)
        main_rot, off_rot = rot
        first = main[main_rot % len(main)] if main else None
        turn = [pmf[first]] if first else []
        two_handed = first is not None and scenario.attacks[first].hand == "two-handed"
        if use_off and not two_handed:
            turn.append(pmf[off[off_rot % len(off)]])
            off_rot = (off_rot + 1) % len(off)
        cycle.append(round_damage(turn))
        rot = ((main_rot + 1) % max(len(main), 1), off_rot)
    return cycle


def duel_time_to_down(scenario: Scenario) -> TimeToDown:
    """Exact distribution of the round in which a duel's defender reaches 0 HP
    (docs/rules/glitters-d20.md).

    The scenario must be a duel (one combatant with attacks, one opponent who makes
    none) in which no hit changes later ones: no defense policy on the defender, no
    statuses at the start, no attack that adds a status the defender can gain, no
    corrosion of a BC. Each turn of the attacker then deals independent damage, and the
    defender is down in the first round whose total reaches its HP. Turn order within a
    round does not matter: the defender does nothing.

    Raises
    ------
    ExactUnsupported
        When the scenario is not such a duel; the message names the feature.
    """
    a, d = duel_roles(scenario)
    problem = _history_problem(scenario, a, d)
    if problem is not None:
        raise ExactUnsupported(problem)
    need = expand(scenario)[d][1].hp
    return time_to_reach(need, _turn_cycle(scenario, a, d), scenario.max_rounds)
