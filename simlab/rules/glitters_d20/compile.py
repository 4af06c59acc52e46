"""Scenario → flat arrays for the glitters-d20 kernels (docs/rules/glitters-d20.md; seed 003).

The kernels see only integers and integer arrays, gathered in :class:`KernelParams`.
Combatants are expanded (``count:`` copies) and numbered in scenario order; attacks are
numbered in the order of ``attacks:``; damage types and statuses by their position in
:data:`~simlab.rules.glitters_d20.model.DAMAGE_TYPES` and ``STATUSES``. What does not
change during a fight is settled here once: each combatant's DC, the attribute score
behind each of its attacks, its net affinity to each damage type.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.engine.tallies import Layout
from simlab.limits import MAX_DAMAGE_BINS
from simlab.rules.arrays import enemy_rows, field_rows, ints, records
from simlab.rules.glitters_d20.model import (
    DAMAGE_TYPES,
    METAL_ARMOR,
    Attack,
    Combatant,
    Params,
    Scenario,
)
from simlab.scenario.common import POLICY_CODE

EVENTS = ["dead", "stable", "frozen"]

TYPE_CODE = {name: code for code, name in enumerate(DAMAGE_TYPES)}
ARMOR_CODE = {"none": 0, "cloth": 0, "leather": 0, "mail": 1, "plate": 2}
DEFENSE_CODE = {"none": 0, "block": 1, "parry": 2}
HAND_CODE = {"main": 0, "offhand": 1, "two-handed": 2}
# Affinity of a combatant to a damage type: damage ×½, ×1, ×2; immunity is apart.
RESISTANT, NEUTRAL, VULNERABLE = -1, 0, 1
# Damage types whose hits add a status level, and the to-hit bonus of a type vs armor.
TYPE_BONUS = 3

# Field indices of the kernel arrays (one int64 row per field keeps argument lists short).
(A_BONUS, A_NET_ADVANTAGE, A_HAND, A_CT, A_RANGED, A_TYPE, A_FLAT, A_TERM_START,
 A_TERM_COUNT, A_DEX, A_VS_ARMOR) = range(11)  # fmt: skip
N_ATTACK_FIELDS = 11
(C_SIDE, C_HP, C_PLAYER, C_INITIATIVE, C_DC, C_ARMOR, C_METAL, C_ARMOR_BC, C_SHIELD_BC,
 C_DEFENSE, C_PARRY, C_PRONE, C_BLEEDING, C_BURNING, C_FREEZING, C_STR, C_DEX, C_WILL,
 C_NO_BLEEDING, C_NO_BURNING, C_NO_FREEZING, C_POLICY, C_MAIN_START, C_MAIN_COUNT,
 C_OFF_START, C_OFF_COUNT) = range(26)  # fmt: skip
N_COMBATANT_FIELDS = 26
T_COUNT, T_SIDES = range(2)
N_TERM_FIELDS = 2
(G_N_SIDES, G_MAX_ROUNDS, G_MIT_BASE, G_HIT_ON_TIE, G_ADVANTAGE_DICE, G_ROUND_UP,
 G_BURNING_DECAY, G_PERMADEATH, G_THAW, G_RANDOM_TIES, G_SAVES_AFTER) = range(11)  # fmt: skip
N_GLOBAL_FIELDS = 11


class KernelParams(NamedTuple):
    """Everything the encounter kernel reads.

    Attributes
    ----------
    combatant : ndarray (N_COMBATANT_FIELDS, C)
        Per-combatant values, rows named by the ``C_*`` constants.
    attack : ndarray (N_ATTACK_FIELDS, A)
        Per-attack values, rows ``A_*``.
    terms : ndarray (N_TERM_FIELDS, T)
        Damage dice terms of all attacks (count, sides), ``A_TERM_START`` onwards.
    score : ndarray (C, A)
        The attribute score behind attack ``a`` when combatant ``c`` makes it (ASM is
        score − 10; Freezing lowers it further for DEX attacks, ``A_DEX``).
    affinity : ndarray (C, Y)
        −1 resistant, 0 neither (or both), 1 vulnerable, per damage type.
    immune : ndarray (C, Y)
        1 where the combatant is immune to the damage type.
    globals_ : ndarray (N_GLOBAL_FIELDS,)
        Scenario-wide values and rule parameters (``G_*``).
    attack_list : ndarray
        Each combatant's main-hand and two-handed attacks
        (``[C_MAIN_START, +C_MAIN_COUNT)``) and offhand attacks (``C_OFF_*``).
    enemies : ndarray (C, E)
        Row ``c``: the combatants of other sides than ``c``'s, in listed order, padded
        with −1 (:func:`simlab.rules.arrays.enemy_rows`); targets are chosen among them.
    by_combatant : ndarray (C * N_COMBATANT_FIELDS,)
        ``combatant`` laid out flat by combatant (:func:`simlab.rules.arrays.records`),
        which the kernels read (``kernels.combatant_value``); ``combatant``'s rows serve
        where a kernel needs one field of every combatant, and Python reads
        ``combatant`` (a kernel called from Python is compiled apart).
    by_attack : ndarray (A * N_ATTACK_FIELDS,)
        ``attack`` laid out flat by attack, which the kernels read
        (``kernels.attack_value``).
    """

    combatant: np.ndarray
    attack: np.ndarray
    terms: np.ndarray
    score: np.ndarray
    affinity: np.ndarray
    immune: np.ndarray
    globals_: np.ndarray
    attack_list: np.ndarray
    enemies: np.ndarray
    by_combatant: np.ndarray
    by_attack: np.ndarray


def expand(scenario: Scenario) -> list[tuple[int, Combatant]]:
    """(side index, combatant) for every copy, in scenario order."""
    return scenario.expanded()


def critical_threshold(attack: Attack, params: Params) -> int:
    """CT of ``attack`` (docs/rules/glitters-d20.md "Critical"; seed 003, "Critical Hits").

    The scenario's CT, or the attack's own where it has one: the lower of the two
    (``attack_critical_threshold: lowest``) or the attack's (``replace``).
    """
    own = attack.critical_threshold
    if own is None:
        return params.critical_threshold
    if params.attack_critical_threshold == "replace":
        return own
    return min(own, params.critical_threshold)


def parry_value(member: Combatant, params: Params) -> int:
    """What ``member``'s Parry adds to MIT (docs/rules/glitters-d20.md: a parameter)."""
    return params.parry_value if member.parry_value is None else member.parry_value


def standing_dodge(member: Combatant, params: Params) -> int:
    """``member``'s DC while not Frozen: halved while Prone, rounded by ``params.rounding``
    (docs/rules/glitters-d20.md "MIT"; the kernels' ``C_DC``)."""
    dc = member.dodge(params.mit_base)
    if member.prone:
        return (dc + int(params.rounding == "up")) // 2
    return dc


def type_affinity(member: Combatant, damage_type: str) -> int:
    """−1 resistant, 0 neither or both, 1 vulnerable (docs/rules/glitters-d20.md [reading]: a
    resistance and a vulnerability to one type cancel)."""
    return int(damage_type in member.vulnerable) - int(damage_type in member.resist)


def vs_armor(attack: Attack) -> int:
    """The armor code ``attack``'s type gets +3 to hit against (docs/rules/glitters-d20.md:
    bludgeoning against plate, piercing against mail), −1 for none (the kernels'
    ``A_VS_ARMOR``)."""
    return {"bludgeoning": ARMOR_CODE["plate"], "piercing": ARMOR_CODE["mail"]}.get(attack.type, -1)


def _attack_array(attacks: list[Attack], params: Params) -> tuple[np.ndarray, np.ndarray]:
    rows: list[list[int]] = []
    terms: list[tuple[int, int]] = []
    for a in attacks:
        start = len(terms)
        terms.extend((t.count, t.sides) for t in a.damage.terms)
        rows.append([
            a.bonus, a.advantage - a.disadvantage, HAND_CODE[a.hand],
            critical_threshold(a, params), int(a.ranged), TYPE_CODE[a.type], a.damage.constant,
            start, len(terms) - start, int(a.attribute == "dex"), vs_armor(a),
        ])  # fmt: skip
    return field_rows(rows, N_ATTACK_FIELDS), field_rows(terms, N_TERM_FIELDS)


def _combatant_array(
    combatants: list[tuple[int, Combatant]],
    lists: list[tuple[int, int, int, int]],
    params: Params,
) -> np.ndarray:
    out = np.zeros((N_COMBATANT_FIELDS, len(combatants)), dtype=np.int64)
    for c, (side, m) in enumerate(combatants):
        out[:, c] = [
            side, m.hp, int(m.player), m.initiative, standing_dodge(m, params),
            ARMOR_CODE[m.armor], int(m.armor in METAL_ARMOR), m.armor_bc, m.shield_bc,
            DEFENSE_CODE[m.defense], parry_value(m, params), int(m.prone),
            m.bleeding, m.burning, m.freezing,
            m.attribute("str"), m.attribute("dex"), m.attribute("will"),
            *(int(s in m.status_immune) for s in ("bleeding", "burning", "freezing")),
            POLICY_CODE[m.target], *lists[c],
        ]  # fmt: skip
    return out


def _globals(scenario: Scenario) -> np.ndarray:
    prm = scenario.params
    return np.array([
        len(scenario.sides), scenario.max_rounds, prm.mit_base, int(prm.hit_on_tie),
        prm.advantage_dice, int(prm.rounding == "up"), prm.burning_decay,
        int(prm.death_rules == "permadeath"), int(prm.frozen_lasts == "thaw"),
        int(prm.initiative_ties == "random"), int(prm.death_saves_after_fight),
    ], dtype=np.int64)  # fmt: skip


def split_hands(member: Combatant, attacks: dict[str, Attack]) -> tuple[list[str], list[str]]:
    """A combatant's main-action attacks (main-hand and two-handed) and its offhand
    attacks, each in listed order (docs/rules/glitters-d20.md "Per turn")."""
    main = [n for n in member.attacks if attacks[n].hand != "offhand"]
    off = [n for n in member.attacks if attacks[n].hand == "offhand"]
    return main, off


def compile_scenario(scenario: Scenario) -> tuple[KernelParams, Layout]:
    """Flatten a validated scenario into kernel parameters and the tally layout.

    Parameters
    ----------
    scenario : Scenario
        A validated ``glitters-d20`` scenario (docs/rules/glitters-d20.md).

    Returns
    -------
    (KernelParams, Layout)
    """
    combatants = expand(scenario)
    side_of = [s for s, _ in combatants]
    members = [m for _, m in combatants]
    names = list(scenario.attacks)
    attacks = [scenario.attacks[n] for n in names]
    attack_list: list[int] = []
    lists = []
    for m in members:
        main, off = split_hands(m, scenario.attacks)
        start = len(attack_list)
        attack_list.extend(names.index(n) for n in main + off)
        lists.append((start, len(main), start + len(main), len(off)))
    attack, terms = _attack_array(attacks, scenario.params)
    combatant = _combatant_array(combatants, lists, scenario.params)
    params = KernelParams(
        combatant=combatant,
        attack=attack,
        terms=terms,
        score=np.array([[m.attribute(a.attribute) for a in attacks] for m in members],
                       dtype=np.int64).reshape(len(members), len(attacks)),
        affinity=np.array([[type_affinity(m, t) for t in DAMAGE_TYPES] for m in members],
                          dtype=np.int64),
        immune=np.array([[int(t in m.immune) for t in DAMAGE_TYPES] for m in members],
                        dtype=np.int64),
        globals_=_globals(scenario),
        attack_list=ints([*attack_list, -1]),  # a spare entry (kernels.hand_attack)
        enemies=enemy_rows(side_of),
        by_combatant=records(combatant),
        by_attack=records(attack),
    )  # fmt: skip
    layout = Layout(
        sides=list(scenario.sides),
        combatants=scenario.combatant_names(),
        attacks=names,
        events=EVENTS,
        max_rounds=scenario.max_rounds,
        damage_bins=_damage_bins(attacks, members),
        side_of=side_of,
        # Trace rows per round: per combatant a turn row, two status ticks or a death
        # save, and up to two attacks.
        attacks_per_round=5 * len(members),
        statuses=True,
    )
    return params, layout


def max_hit_damage(attack: Attack, score: int) -> int:
    """Largest damage of one hit before multipliers: a critical hit with every die at
    its maximum (docs/rules/glitters-d20.md "Critical": one bonus die per damage die)."""
    return max(2 * sum(t.count * t.sides for t in attack.damage.terms)
               + attack.damage.constant + score - 10, 0)  # fmt: skip


def _damage_bins(attacks: list[Attack], members: list[Combatant]) -> int:
    """Enough bins for the largest possible damage (vulnerability doubles), within a
    cap (last bin: ≥)."""
    top = max((2 * max_hit_damage(a, m.attribute(a.attribute)) for a in attacks
               for m in members), default=0)  # fmt: skip
    return min(max(64, top + 2), MAX_DAMAGE_BINS)
