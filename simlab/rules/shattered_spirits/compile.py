"""Scenario → flat arrays for the Shattered Spirits kernels (docs/rules/shattered-spirits.md).

The kernels see only integers and integer arrays, gathered in :class:`KernelParams`.
Combatants are expanded (``count:`` copies) and numbered in scenario order; attacks are
numbered in the order of ``attacks:``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.engine.tallies import Layout
from simlab.limits import MAX_DAMAGE_BINS
from simlab.rules.arrays import attack_lists, enemy_rows, field_rows, ints
from simlab.rules.shattered_spirits.model import (
    ROWS,
    Attack,
    AttackProfile,
    Combatant,
    Reaction,
    Scenario,
    Slot,
    parse_status,
)
from simlab.scenario.common import POLICY_CODE

EVENTS = ["out", "dead"]
# Events of the later-draft features, in the layout only when the scenario uses the
# feature (so scenarios without them keep their tallies): per feature, its events.
FEATURE_EVENTS = {
    "spirits": ["suppressed", "sealed", "harm", "momentum_spent"],
    "reinforcements": ["reinforcement"],
    "sunder": ["sunder", "fatigue"],
    "momentum": ["momentum_spent"],
}


def scenario_events(scenario: Scenario) -> list[str]:
    """The events tallied for ``scenario``: :data:`EVENTS`, then those of each later-draft
    feature it uses (:data:`FEATURE_EVENTS`)."""
    events = EVENTS + [e for f in scenario.uses_features for e in FEATURE_EVENTS.get(f, [])]
    return list(dict.fromkeys(events))  # Spirits and priced attacks share momentum_spent


MANIFEST_CODE = {"always": 0, "melee": 1, "never": 2}
TIER_CODE = {"miss": 0, "hit": 1, "crit": 2}
WOUND_ROLL_CODE = {"sum": 0, "highest": 1}
NO_REACTION = -1


# Field indices of the kernel arrays: one int64 row per field keeps the kernels' argument
# lists short (numba compiles and calls them much faster than with dozens of arrays).
(C_SIDE, C_HP, C_GUARD, C_VIGOR, C_STUN_MAX, C_SPEED, C_ATTACKS_PER_TURN, C_WOUNDS, C_GRIT,
 C_REFLEX, C_MOMENTUM, C_BLOCK_AT, C_EVADE_AT, C_EXPOSED, C_IMPAIRED, C_COVER, C_ROLL_MODIFIER,
 C_RUSHING, C_POLICY, C_ATTACK_START, C_ATTACK_COUNT, C_OWNER, C_SPIRIT, C_MANIFEST,
 C_RECALL_BELOW, C_ARRIVES, C_STANCE_START, C_STANCE_COUNT, C_STANCE_SWITCH, C_STANCE_BELOW,
 C_ARMOR, C_WIELDED, C_SUNDER_AT, C_ENGAGED, C_BLOCK_MOMENTUM,
 C_EVADE_MOMENTUM) = range(36)  # fmt: skip
N_COMBATANT_FIELDS = 36
S_SPEED, S_ATTACKS_PER_TURN, S_GUARD_MODIFIER, S_ROLL_MODIFIER = range(4)
N_STANCE_FIELDS = 4
A_MODIFIER, A_DAMAGE_MODIFIER, A_NET_ADVANTAGE, A_GLANCING, A_MELEE, A_MOMENTUM_COST = range(6)
N_ATTACK_FIELDS = 6
R_DAMAGE, R_TIER, R_STUN, R_EXPOSED, R_IMPAIRED = range(5)
N_ROW_FIELDS = 5
(G_N_SIDES, G_MAX_ROUNDS, G_BONUS_SIZE, G_EXPOSED_PER_LEVEL, G_IMPAIRED_PER_LEVEL,
 G_GLANCING_DIVISOR, G_STUN_PER_LEVEL, G_WOUND_ROLL, G_STRAIN_METER, G_REACTION_COST,
 G_MOMENTUM_PER_RESPITE, G_COVER_GUARD, G_STATUSES_LAST_ROUND, G_ANY_RUSHING,
 G_DUEL_ATTACKER, G_DYNAMIC_ORDER, G_ANY_ABSENT, G_MELEE_MANIFEST_COST, G_MANIFEST_MOMENTUM,
 G_HARM_METER, G_SEALED_ROUNDS, G_FATIGUE_PER_SUNDER, G_EV_SUPPRESSED, G_EV_SEALED, G_EV_HARM,
 G_EV_MOMENTUM, G_EV_REINFORCEMENT, G_EV_SUNDER, G_EV_FATIGUE, G_FEATURES,
 G_DECLARED, G_GUARD_THRESHOLD, G_UNPAID_WAIT, G_SOURCE_DESTROYED) = range(34)  # fmt: skip
N_GLOBAL_FIELDS = 34
# the feature events' G_EV_* fields, in FEATURE_EVENTS order (−1 when not in the layout)
EVENT_FIELDS = {"suppressed": G_EV_SUPPRESSED, "sealed": G_EV_SEALED, "harm": G_EV_HARM,
                "momentum_spent": G_EV_MOMENTUM, "reinforcement": G_EV_REINFORCEMENT,
                "sunder": G_EV_SUNDER, "fatigue": G_EV_FATIGUE}  # fmt: skip


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
    stance : ndarray (N_STANCE_FIELDS, K)
        Every Stance of every combatant (rows ``S_*``); combatant ``c``'s are columns
        ``C_STANCE_START .. + C_STANCE_COUNT``.
    listed : ndarray (C,)
        Combatants sorted by (side, listed order): the turn order within a Phase when
        Stances change speeds during the encounter.
    enemies : ndarray (C, E)
        Row ``c``: the combatants of other sides than ``c``'s, in listed order, padded
        with −1 (:func:`simlab.rules.arrays.enemy_rows`); targets are chosen among them.
    """

    combatant: np.ndarray
    attack: np.ndarray
    rows: np.ndarray
    globals_: np.ndarray
    order: np.ndarray
    phase_start: np.ndarray
    attack_list: np.ndarray
    stance: np.ndarray
    listed: np.ndarray
    enemies: np.ndarray


def expand(scenario: Scenario) -> list[tuple[int, Combatant]]:
    """(side index, combatant) for every copy, in scenario order."""
    return scenario.expanded()


def attack_rows(attack: AttackProfile) -> dict[str, list[int]]:
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
    slots = scenario.slots()
    attack_names = list(scenario.attacks)
    attacks = [scenario.attacks[n] for n in attack_names]
    rows = [attack_rows(a) for a in attacks]
    members = [_as_combatant(slot) for slot in slots]
    sides = [slot.side for slot in slots]
    attack_list, starts = attack_lists((m.attacks for m in members), attack_names)
    speeds = [m.stances[0].speed if m.stances else m.speed for m in members]
    order, phase_start = _turn_order(speeds, sides)
    stance, stance_starts = _stances(members)
    prm = scenario.params
    combatant = np.zeros((N_COMBATANT_FIELDS, len(members)), dtype=np.int64)
    for c, m in enumerate(members):
        combatant[:, c] = [
            sides[c], m.hp, m.guard, m.vigor, m.stun_max, m.speed, m.attacks_per_turn,
            int(m.downed == "wounds"), m.tokens.grit, m.tokens.reflex, m.tokens.momentum,
            _threshold(m.react.block), _threshold(m.react.evade), m.exposed, m.impaired,
            int(m.cover), m.roll_modifier, m.rushing, POLICY_CODE[m.target], starts[c],
            len(m.attacks), *_feature_fields(slots, c, stance_starts[c]),
            _engaged_mask(slots, c), _momentum_cost(m.react.block),
            _momentum_cost(m.react.evade),
        ]  # fmt: skip
    attack = field_rows(
        [[a.modifier, a.damage_modifier, a.advantage - a.disadvantage, int(a.glancing),
          int(a.range == "melee"), a.momentum_cost] for a in attacks], N_ATTACK_FIELDS,
    )  # fmt: skip
    profile_rows = np.zeros((N_ROW_FIELDS, len(attacks), 11), dtype=np.int64)
    for k, (a, r) in enumerate(zip(attacks, rows, strict=True)):
        profile_rows[:, k, :] = [a.profile, r["tier"], r["stun"], r["exposed"], r["impaired"]]
    features = scenario.uses_features
    events = scenario_events(scenario)
    event_codes = [events.index(e) if e in events else -1 for e in EVENT_FIELDS]
    by_name = dict(zip(attack_names, rows, strict=True))
    duel = -1 if features else duel_attacker(members, sides, by_name, prm.reaction_cost)
    globals_ = ints([
        len(scenario.sides), scenario.max_rounds, prm.bonus_size, prm.exposed_per_level,
        prm.impaired_per_level, prm.glancing_divisor, prm.stun_per_level,
        WOUND_ROLL_CODE[prm.wound_roll], prm.strain_meter, prm.reaction_cost,
        prm.momentum_per_respite, prm.cover_guard, int(prm.statuses_last == "round"),
        int(any(m.rushing > 0 for m in members)), duel, int("stances" in features),
        int(any(slot.spirit is not None or slot.arrives > 0 for slot in slots)),
        prm.melee_manifest_cost, int(prm.manifest_momentum), prm.harm_meter,
        prm.sealed_rounds, prm.fatigue_per_sunder, *event_codes, int(bool(features)),
        int(prm.engagement == "declared"), int(prm.guard_mode == "threshold"),
        int(prm.unpaid_attack == "wait"), prm.source_destroyed_round,
    ])  # fmt: skip
    params = KernelParams(
        combatant=combatant,
        attack=attack,
        rows=profile_rows,
        globals_=globals_,
        order=order,
        phase_start=phase_start,
        attack_list=attack_list,
        stance=stance,
        listed=ints(sorted(range(len(members)), key=lambda c: (sides[c], c))),
        enemies=enemy_rows(sides),
    )
    per_turn = [max([m.attacks_per_turn] + [s.attacks_per_turn for s in m.stances])
                for m in members if m.attacks]  # fmt: skip
    layout = Layout(
        sides=list(scenario.sides),
        combatants=scenario.combatant_names(),
        attacks=attack_names,
        events=events,
        max_rounds=scenario.max_rounds,
        damage_bins=_damage_bins(attacks, members, prm.exposed_per_level),
        side_of=sides,
        attacks_per_round=sum(per_turn),
        statuses=True,
        momentum=bool({"spirits", "momentum"} & set(features)),
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


def _as_combatant(slot: Slot) -> Combatant:
    """The slot's combatant; a Spirit becomes a ``wounds`` combatant (its Harm is rolled
    like Wounds) with its own HP, Guard, Speed, attacks and target policy, no tokens."""
    if slot.spirit is None:
        return slot.member
    s = slot.spirit
    return Combatant(name=s.name, hp=s.hp, guard=s.guard, speed=s.speed, attacks=s.attacks,
                     attacks_per_turn=s.attacks_per_turn, target=s.target,
                     downed="wounds")  # fmt: skip


def _stances(members: list[Combatant]) -> tuple[np.ndarray, list[int]]:
    """Every combatant's Stances laid end to end (``S_*`` rows), and where each starts."""
    columns: list[list[int]] = []
    starts: list[int] = []
    for m in members:
        starts.append(len(columns))
        columns.extend([s.speed, s.attacks_per_turn, s.guard_modifier, s.roll_modifier]
                       for s in m.stances)  # fmt: skip
    return field_rows(columns, N_STANCE_FIELDS), starts


def _feature_fields(slots: list[Slot], c: int, stance_start: int) -> list[int]:
    """Slot ``c``'s ``C_OWNER`` .. ``C_SUNDER_AT`` values (Spirits, arrival, Stances,
    Sunder charges)."""
    slot = slots[c]
    m = slot.member
    spirit = next((k for k, s in enumerate(slots) if s.owner == c), -1)
    own = slot.spirit is None
    policy = m.stance_policy if own else None
    switch = [s.name for s in m.stances].index(policy.switch_to) if policy else -1
    sunder = m.sunder if own else None
    return [
        slot.owner, spirit, MANIFEST_CODE[slot.spirit.manifest] if slot.spirit else 0,
        slot.spirit.recall_below if slot.spirit else 0, slot.arrives, stance_start,
        len(m.stances) if own else 0, switch, policy.when_hp_below if policy else 0,
        sunder.armor if sunder else 0, sunder.wielded if sunder else 0,
        sunder.when_segments_at_least if sunder else 0,
    ]  # fmt: skip


def _momentum_cost(reaction: Reaction | None) -> int:
    """Momentum a reaction costs in place of its token (0: paid with its token)."""
    return reaction.momentum_cost if reaction is not None else 0


def _engaged_mask(slots: list[Slot], c: int) -> int:
    """Bit ``d`` set when slot ``c`` starts Engaged with slot ``d``: engagements are
    mutual, an entry's ``engaged_with`` covers every copy of the enemy entries it names,
    and Spirits start with none (as int64: bit 63 is the sign bit)."""
    mine = slots[c]

    def names(a: Slot, b: Slot) -> bool:
        return a.spirit is None and b.spirit is None and b.member.name in a.member.engaged_with

    foes = [d for d, other in enumerate(slots) if other.side != mine.side]
    mask = sum(1 << d for d in foes if names(mine, slots[d]) or names(slots[d], mine))
    return mask - (1 << 64) if mask >= 1 << 63 else mask


def _threshold(reaction: object) -> int:
    return NO_REACTION if reaction is None else reaction.when_damage_at_least  # type: ignore[attr-defined]


def _damage_bins(attacks: list[Attack], members: list[Combatant], exposed_per_level: int) -> int:
    """Enough bins for any damage short of pathological Exposed stacking, within a cap
    (last bin: ≥)."""
    top = max((max(a.profile) + max(a.damage_modifier, 0) for a in attacks), default=0)
    exposure = max((m.exposed for m in members), default=0) * exposed_per_level
    return min(max(64, top + exposure + 32), MAX_DAMAGE_BINS)
