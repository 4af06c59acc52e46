"""Scenario → flat arrays for the zones-3d6 kernels (docs/rules/zones-3d6.md; seed 004).

The kernels see only integers and integer arrays, gathered in :class:`KernelParams`.
Combatants are expanded (``count:`` copies) and numbered in scenario order; attacks are
numbered in the order of ``attacks:``. The [default] readings that only change how many
die steps or dice a roll gets (stacking, cancelling) are settled here, once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.engine.tallies import Layout
from simlab.limits import MAX_DAMAGE_BINS
from simlab.rules.arrays import attack_lists, enemy_rows, field_rows
from simlab.rules.zones_3d6.model import CRITS, Attack, Combatant, Params, Scenario, largest_die
from simlab.scenario.common import POLICY_CODE

EVENTS = ["out"]

# Field indices of the kernel arrays (one int64 row per field keeps argument lists short).
# The "roll" fields come in the same order for an attack (A_*) and an evasion (C_EVA_*):
# edge steps, pressure steps, net advantage, bonus.
ROLL_EDGE, ROLL_PRESSURE, ROLL_NET_ADVANTAGE, ROLL_BONUS = range(4)
N_ROLL_FIELDS = 4
(A_EDGE, A_PRESSURE, A_NET_ADVANTAGE, A_BONUS, A_BONUS_DAMAGE, A_TERM_START, A_TERM_COUNT) = range(
    7
)
N_ATTACK_FIELDS = 7
(
    C_EVA_EDGE,
    C_EVA_PRESSURE,
    C_EVA_NET_ADVANTAGE,
    C_EVA_BONUS,
    C_SIDE,
    C_HP,
    C_INITIATIVE,
    C_ATTACKS_PER_TURN,
    C_BONUS_DAMAGE,
    C_BONUS_DEFENSE,
    C_POLICY,
    C_ATTACK_START,
    C_ATTACK_COUNT,
) = range(13)
N_COMBATANT_FIELDS = 13
T_COUNT, T_SIDES = range(2)
N_TERM_FIELDS = 2
(
    G_N_SIDES,
    G_MAX_ROUNDS,
    G_PRESSURE_TOTAL,
    G_ADVANTAGE_DICE,
    G_BONUS_DEFENSE_FLOOR,
    G_MINIMUM_DAMAGE,
    G_INITIATIVE_DIE,
    G_RANDOM_TIES,
) = range(8)
N_GLOBAL_FIELDS = 8


class KernelParams(NamedTuple):
    """Everything the encounter kernel reads.

    Attributes
    ----------
    combatant : ndarray (N_COMBATANT_FIELDS, C)
        Per-combatant values, rows named by the ``C_*`` constants.
    attack : ndarray (N_ATTACK_FIELDS, A)
        Per-attack values, rows ``A_*``.
    terms : ndarray (N_TERM_FIELDS, T)
        Base damage dice terms of all attacks (count, sides), ``A_TERM_START`` onwards.
    ignored : ndarray (C, F)
        1 where a base-damage die face (column) counts 0 against the combatant (its
        armor's Base Defense); F is one more than the largest damage die.
    globals_ : ndarray (N_GLOBAL_FIELDS,)
        Scenario-wide values and rule parameters (``G_*``).
    attack_list : ndarray
        Each combatant's attacks, ``attack_list[start:start + count]``.
    enemies : ndarray (C, E)
        Row ``c``: the combatants of other sides than ``c``'s, in listed order, padded
        with −1 (:func:`simlab.rules.arrays.enemy_rows`); targets are chosen among them.
    """

    combatant: np.ndarray
    attack: np.ndarray
    terms: np.ndarray
    ignored: np.ndarray
    globals_: np.ndarray
    attack_list: np.ndarray
    enemies: np.ndarray


def expand(scenario: Scenario) -> list[tuple[int, Combatant]]:
    """(side index, combatant) for every copy, in scenario order."""
    return scenario.expanded()


def roll_steps(
    edge: int, pressure: int, advantage: int, disadvantage: int, params: Params
) -> tuple[int, int, int]:
    """Die steps and net advantage of one roll (docs/rules/zones-3d6.md "Edge", [default] readings).

    Parameters
    ----------
    edge, pressure, advantage, disadvantage : int
        Instances of each on the roll.
    params : Params
        ``edges_stack`` (else at most one edge and one pressure count) and
        ``edge_pressure_cancel`` (edges and pressures cancel one for one).

    Returns
    -------
    (int, int, int)
        Edge steps, pressure steps and net advantage (advantage − disadvantage).
    """
    if not params.edges_stack:
        edge, pressure = min(edge, 1), min(pressure, 1)
    if params.edge_pressure_cancel:
        edge, pressure = max(edge - pressure, 0), max(pressure - edge, 0)
    return edge, pressure, advantage - disadvantage


def attacks_per_turn(member: Combatant, params: Params) -> int:
    """Attacks an actor makes per turn: its own number, capped by its Major actions."""
    return min(member.attacks_per_turn, params.major_actions // params.attack_cost)


def _attack_array(attacks: list[Attack], params: Params) -> tuple[np.ndarray, np.ndarray]:
    rows: list[list[int]] = []
    terms: list[tuple[int, int]] = []
    for a in attacks:
        steps = roll_steps(a.edge, a.pressure, a.advantage, a.disadvantage, params)
        start = len(terms)
        terms.extend((t.count, t.sides) for t in a.damage.terms)
        rows.append([*steps, a.bonus, a.damage.constant, start, len(terms) - start])
    return field_rows(rows, N_ATTACK_FIELDS), field_rows(terms, N_TERM_FIELDS)


def _combatant_array(
    combatants: list[tuple[int, Combatant]], starts: list[int], params: Params
) -> np.ndarray:
    out = np.zeros((N_COMBATANT_FIELDS, len(combatants)), dtype=np.int64)
    for c, (side, m) in enumerate(combatants):
        steps = roll_steps(m.evasion_edge, m.evasion_pressure, m.evasion_advantage,
                           m.evasion_disadvantage, params)  # fmt: skip
        out[:, c] = [
            *steps, m.evasion, side, m.hp, m.initiative, attacks_per_turn(m, params),
            m.bonus_damage, m.bonus_defense, POLICY_CODE[m.target], starts[c], len(m.attacks),
        ]  # fmt: skip
    return out


def _ignored_faces(members: list[Combatant], sides: int) -> np.ndarray:
    ignored = np.zeros((len(members), sides + 1), dtype=np.int64)
    for c, m in enumerate(members):
        for face in m.base_defense:
            if face <= sides:
                ignored[c, face] = 1
    return ignored


def _globals(scenario: Scenario) -> np.ndarray:
    prm = scenario.params
    return np.array([
        len(scenario.sides), scenario.max_rounds, int(prm.pressure == "total"),
        prm.advantage_dice, int(prm.bonus_defense_floor), prm.minimum_damage,
        prm.initiative_die, int(prm.initiative_ties == "random"),
    ], dtype=np.int64)  # fmt: skip


def compile_scenario(scenario: Scenario) -> tuple[KernelParams, Layout]:
    """Flatten a validated scenario into kernel parameters and the tally layout.

    Parameters
    ----------
    scenario : Scenario
        A validated ``zones-3d6`` scenario (docs/rules/zones-3d6.md).

    Returns
    -------
    (KernelParams, Layout)
    """
    combatants = expand(scenario)
    side_of = [s for s, _ in combatants]
    members = [m for _, m in combatants]
    attack_names = list(scenario.attacks)
    attacks = [scenario.attacks[n] for n in attack_names]
    attack_list, starts = attack_lists((m.attacks for m in members), attack_names)
    attack, terms = _attack_array(attacks, scenario.params)
    params = KernelParams(
        combatant=_combatant_array(combatants, starts, scenario.params),
        attack=attack,
        terms=terms,
        ignored=_ignored_faces(members, largest_die([a.damage for a in attacks])),
        globals_=_globals(scenario),
        attack_list=attack_list,
        enemies=enemy_rows(side_of),
    )
    layout = Layout(
        sides=list(scenario.sides),
        combatants=scenario.combatant_names(),
        attacks=attack_names,
        events=EVENTS,
        max_rounds=scenario.max_rounds,
        damage_bins=_damage_bins(attacks, members, scenario.params),
        side_of=side_of,
        attacks_per_round=sum(attacks_per_turn(m, scenario.params) for m in members if m.attacks),
        crits=CRITS,
    )
    return params, layout


def _damage_bins(attacks: list[Attack], members: list[Combatant], params: Params) -> int:
    """Enough bins for the largest possible damage, within a cap (last bin: ≥)."""
    bonus = max((m.bonus_damage for m in members), default=0)
    weakest_armor = max((-m.bonus_defense for m in members), default=0)
    top = max((a.damage.max for a in attacks), default=0) + max(bonus, 0) + max(weakest_armor, 0)
    return min(max(64, top + params.minimum_damage + 2), MAX_DAMAGE_BINS)
