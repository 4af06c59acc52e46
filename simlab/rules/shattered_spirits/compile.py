"""Scenario → flat arrays for the Shattered Spirits kernels (RULES.md §1).

The kernels see only integers and integer arrays, gathered in :class:`KernelParams`.
Combatants are expanded (``count:`` copies) and numbered in scenario order; attacks are
numbered in the order of ``attacks:``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.engine.tallies import Layout
from simlab.rules.arrays import attack_lists, field_rows, ints
from simlab.rules.shattered_spirits.model import ROWS, Attack, Combatant, Scenario, parse_status
from simlab.scenario.common import POLICY_CODE

EVENTS = ["out", "dead"]
TIER_CODE = {"miss": 0, "hit": 1, "crit": 2}
WOUND_ROLL_CODE = {"sum": 0, "highest": 1}
NO_REACTION = -1


# Field indices of the kernel arrays: one int64 row per field keeps the kernels' argument
# lists short (numba compiles and calls them much faster than with dozens of arrays).
(C_SIDE, C_HP, C_GUARD, C_VIGOR, C_STUN_MAX, C_SPEED, C_ATTACKS_PER_TURN, C_WOUNDS, C_GRIT,
 C_REFLEX, C_MOMENTUM, C_BLOCK_AT, C_EVADE_AT, C_EXPOSED, C_IMPAIRED, C_COVER, C_ROLL_MODIFIER,
 C_RUSHING, C_POLICY, C_ATTACK_START, C_ATTACK_COUNT) = range(21)  # fmt: skip
N_COMBATANT_FIELDS = 21
A_MODIFIER, A_DAMAGE_MODIFIER, A_NET_ADVANTAGE, A_GLANCING = range(4)
N_ATTACK_FIELDS = 4
R_DAMAGE, R_TIER, R_STUN, R_EXPOSED, R_IMPAIRED = range(5)
N_ROW_FIELDS = 5
(G_N_SIDES, G_MAX_ROUNDS, G_BONUS_SIZE, G_EXPOSED_PER_LEVEL, G_IMPAIRED_PER_LEVEL,
 G_GLANCING_DIVISOR, G_STUN_PER_LEVEL, G_WOUND_ROLL, G_STRAIN_METER, G_REACTION_COST,
 G_MOMENTUM_PER_RESPITE, G_COVER_GUARD, G_STATUSES_LAST_ROUND, G_ANY_RUSHING,
 G_DUEL_ATTACKER) = range(15)  # fmt: skip
N_GLOBAL_FIELDS = 15


class KernelParams(NamedTuple):
    """Everything the encounter kernel reads.

    Attributes
    ----------
    combatant : ndarray (N_COMBATANT_FIELDS, C)
        Per-combatant values, rows named by the ``C_*`` constants.
    attack : ndarray (N_ATTACK_FIELDS, A)
        Per-attack values, rows ``A_*``.
    rows : ndarray (N_ROW_FIELDS, A, 11)
        Per profile row 2..12: damage, tier code, Stun, Exposed, Impaired (``R_*``).
    globals_ : ndarray (N_GLOBAL_FIELDS,)
        Scenario-wide values and rule parameters (``G_*``).
    order : ndarray (C,)
        Combatants sorted by (speed, side, listed order).
    phase_start : ndarray (7,)
        Phase p's turns are ``order[phase_start[p - 1]:phase_start[p]]``.
    attack_list : ndarray
        Each combatant's attacks, ``attack_list[start:start + count]``.
    """

    combatant: np.ndarray
    attack: np.ndarray
    rows: np.ndarray
    globals_: np.ndarray
    order: np.ndarray
    phase_start: np.ndarray
    attack_list: np.ndarray


def expand(scenario: Scenario) -> list[tuple[int, Combatant]]:
    """(side index, combatant) for every copy, in scenario order."""
    return scenario.expanded()


def attack_rows(attack: Attack) -> dict[str, list[int]]:
    """Per profile row 2..12: tier code and the sizes of Stun, Exposed and Impaired."""
    rows: dict[str, list[int]] = {"tier": [], "stun": [], "exposed": [], "impaired": []}
    for row in ROWS:
        rows["tier"].append(TIER_CODE[attack.row_tier(row)])
        sizes = {"stun": 0, "exposed": 0, "impaired": 0}
        for status in attack.status.get(row, []):
            name, size = parse_status(status)
            if name in sizes:
                sizes[name] += size
        for name, size in sizes.items():
            rows[name].append(size)
    return rows


def _turn_order(speeds: list[int], sides: list[int]) -> tuple[np.ndarray, np.ndarray]:
    order = sorted(range(len(speeds)), key=lambda c: (speeds[c], sides[c], c))
    phase_start = [0] * 7
    for p in range(1, 7):
        phase_start[p] = sum(1 for c in order if speeds[c] <= p)
    return ints(order), ints(phase_start)


def compile_scenario(scenario: Scenario) -> tuple[KernelParams, Layout]:
    """Flatten a validated scenario into kernel parameters and the tally layout.

    Parameters
    ----------
    scenario : Scenario
        A validated ``shattered-spirits`` scenario.

    Returns
    -------
    (KernelParams, Layout)
    """
    combatants = expand(scenario)
    attack_names = list(scenario.attacks)
    attacks = [scenario.attacks[n] for n in attack_names]
    rows = [attack_rows(a) for a in attacks]
    members = [m for _, m in combatants]
    sides = [s for s, _ in combatants]
    attack_list, starts = attack_lists((m.attacks for m in members), attack_names)
    order, phase_start = _turn_order([m.speed for m in members], sides)
    prm = scenario.params
    combatant = np.zeros((N_COMBATANT_FIELDS, len(members)), dtype=np.int64)
    for c, m in enumerate(members):
        combatant[:, c] = [
            sides[c], m.hp, m.guard, m.vigor, m.stun_max, m.speed, m.attacks_per_turn,
            int(m.downed == "wounds"), m.tokens.grit, m.tokens.reflex, m.tokens.momentum,
            _threshold(m.react.block), _threshold(m.react.evade), m.exposed, m.impaired,
            int(m.cover), m.roll_modifier, m.rushing, POLICY_CODE[m.target], starts[c],
            len(m.attacks),
        ]  # fmt: skip
    attack = field_rows(
        [[a.modifier, a.damage_modifier, a.advantage - a.disadvantage, int(a.glancing)]
         for a in attacks], N_ATTACK_FIELDS,
    )  # fmt: skip
    profile_rows = np.zeros((N_ROW_FIELDS, len(attacks), 11), dtype=np.int64)
    for k, (a, r) in enumerate(zip(attacks, rows, strict=True)):
        profile_rows[:, k, :] = [a.profile, r["tier"], r["stun"], r["exposed"], r["impaired"]]
    globals_ = ints([
        len(scenario.sides), scenario.max_rounds, prm.bonus_size, prm.exposed_per_level,
        prm.impaired_per_level, prm.glancing_divisor, prm.stun_per_level,
        WOUND_ROLL_CODE[prm.wound_roll], prm.strain_meter, prm.reaction_cost,
        prm.momentum_per_respite, prm.cover_guard, int(prm.statuses_last == "round"),
        int(any(m.rushing > 0 for m in members)),
        duel_attacker(members, sides, dict(zip(attack_names, rows, strict=True)),
                      prm.reaction_cost),
    ])  # fmt: skip
    params = KernelParams(
        combatant=combatant,
        attack=attack,
        rows=profile_rows,
        globals_=globals_,
        order=order,
        phase_start=phase_start,
        attack_list=attack_list,
    )
    layout = Layout(
        sides=list(scenario.sides),
        combatants=scenario.combatant_names(),
        attacks=attack_names,
        events=EVENTS,
        max_rounds=scenario.max_rounds,
        damage_bins=_damage_bins(attacks, members, prm.exposed_per_level),
        side_of=sides,
        attacks_per_round=sum(m.attacks_per_turn for m in members if m.attacks),
        statuses=True,
    )
    return params, layout


def duel_attacker(
    members: list[Combatant], sides: list[int], rows: dict[str, dict[str, list[int]]], cost: int
) -> int:
    """The attacker of a *plain duel*, or −1 when the encounter is not one.

    A plain duel is one attacker against one target that never fights back, in which
    nothing that happens changes a later attack: two combatants on two sides, only one
    of them with attacks, none of its rows inflicting Stun, Exposed or Impaired, no
    Rushing terrain, and a target that can never react (each reaction is switched off or
    costs more tokens than it starts with; tokens are never regained). Such an encounter
    is the usual way to measure an attack profile (``scenarios/benchmarks/ss-duel.yaml``)
    and the kernels play it on a shorter path (:func:`kernels.play_duels`) that gives
    exactly the same results as the general one.

    Parameters
    ----------
    members : list of Combatant
        The combatants after expanding copies.
    sides : list of int
        Side index of each.
    rows : dict
        :func:`attack_rows` of each attack, by attack name.
    cost : int
        Tokens a reaction costs.

    Returns
    -------
    int
        Index of the attacker in ``members``, or −1.
    """
    armed = [c for c, m in enumerate(members) if m.attacks]
    if len(members) != 2 or sides[0] == sides[1] or len(armed) != 1:
        return -1
    target = members[1 - armed[0]]
    static = not any(
        any(rows[attack][status]) for attack in members[armed[0]].attacks
        for status in ("stun", "exposed", "impaired")
    )  # fmt: skip
    can_react = (target.react.evade is not None and target.tokens.reflex >= cost) or (
        target.react.block is not None and target.tokens.grit >= cost
    )
    if not static or can_react or any(m.rushing > 0 for m in members):
        return -1
    return armed[0]


def _threshold(reaction: object) -> int:
    return NO_REACTION if reaction is None else reaction.when_damage_at_least  # type: ignore[attr-defined]


def _damage_bins(attacks: list[Attack], members: list[Combatant], exposed_per_level: int) -> int:
    """Enough bins for any damage short of pathological Exposed stacking (last bin: ≥)."""
    top = max((max(a.profile) + max(a.damage_modifier, 0) for a in attacks), default=0)
    exposure = max((m.exposed for m in members), default=0) * exposed_per_level
    return max(64, top + exposure + 32)
