"""Numba kernels of Shattered Spirits, later draft (docs/rules/shattered-spirits.md; seed 001).

Plain functions compiled in :mod:`simlab.engine.jit`. One encounter is
:func:`play_encounters`; :func:`run_block` plays a contiguous range of encounters in
chunks on threads (:func:`run_chunk` plays one), each adding into its own slice of the
tallies; untraced runs use the same, compiled without the trace
(:func:`run_untraced_chunk`). Encounter ``i`` draws every die from the counter-based RNG
keyed by (seed, i, stream), so its outcome does not depend on the chunking or the thread
count.

``p`` is a :class:`~simlab.rules.shattered_spirits.compile.KernelParams`; its arrays are
indexed by the ``C_*``, ``A_*``, ``R_*`` and ``G_*`` field constants of ``compile``.
Per-encounter state lives in one int64 array ``st[field, combatant]`` allocated once per
chunk, indexed by the constants below.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.encounter import (
    attack_in_rotation,
    batch_bounds,
    choose_target,
    chunk_range,
    clear_state,
    count_round_end,
    count_standing,
    next_in_rotation,
    record_attack,
    record_attacks,
    record_duel_ends,
    record_event,
    record_outcome,
    record_round_downs,
    sides_standing,
)
from simlab.engine.jit import chunked, inline_kernel, internal_kernel, kernel, unlikely
from simlab.engine.rng import (
    CURSOR_GROUP,
    STREAM_ATTACK,
    STREAM_WOUND,
    cursor_at,
    cursor_code,
    cursor_loaded,
    dice_source,
    first_blocks,
    new_state,
    roll_die,
    start_encounter,
)
from simlab.rules.shattered_spirits.compile import (
    A_DAMAGE_MODIFIER,
    A_GLANCING,
    A_MELEE,
    A_MODIFIER,
    A_MOMENTUM_COST,
    A_NET_ADVANTAGE,
    C_ARMOR,
    C_ARRIVES,
    C_ATTACK_COUNT,
    C_ATTACK_START,
    C_ATTACKS_PER_TURN,
    C_BLOCK_AT,
    C_BLOCK_MOMENTUM,
    C_COVER,
    C_ENGAGED,
    C_EVADE_AT,
    C_EVADE_MOMENTUM,
    C_EXPOSED,
    C_GRIT,
    C_GUARD,
    C_HP,
    C_IMPAIRED,
    C_MANIFEST,
    C_MOMENTUM,
    C_OWNER,
    C_POLICY,
    C_RECALL_BELOW,
    C_REFLEX,
    C_ROLL_MODIFIER,
    C_RUSHING,
    C_SIDE,
    C_SPEED,
    C_SPIRIT,
    C_STANCE_BELOW,
    C_STANCE_COUNT,
    C_STANCE_START,
    C_STANCE_SWITCH,
    C_STUN_MAX,
    C_SUNDER_AT,
    C_VIGOR,
    C_WIELDED,
    C_WOUNDS,
    G_ANY_ABSENT,
    G_ANY_RUSHING,
    G_BONUS_SIZE,
    G_COVER_GUARD,
    G_DECLARED,
    G_DUEL_ATTACKER,
    G_DYNAMIC_ORDER,
    G_EV_SUPPRESSED,
    G_EXPOSED_PER_LEVEL,
    G_FATIGUE_PER_SUNDER,
    G_FEATURES,
    G_GLANCING_DIVISOR,
    G_GUARD_THRESHOLD,
    G_HARM_METER,
    G_IMPAIRED_PER_LEVEL,
    G_MANIFEST_MOMENTUM,
    G_MAX_ROUNDS,
    G_MELEE_MANIFEST_COST,
    G_MOMENTUM_PER_RESPITE,
    G_N_SIDES,
    G_REACTION_COST,
    G_SEALED_ROUNDS,
    G_SOURCE_DESTROYED,
    G_STATUSES_LAST_ROUND,
    G_STRAIN_METER,
    G_STUN_PER_LEVEL,
    G_UNPAID_WAIT,
    G_WOUND_ROLL,
    NO_REACTION,
    R_DAMAGE,
    R_EXPOSED,
    R_IMPAIRED,
    R_STUN,
    R_TIER,
    S_ATTACKS_PER_TURN,
    S_GUARD_MODIFIER,
    S_ROLL_MODIFIER,
    S_SPEED,
)

# state fields
HP, VIGOR, STUN, WOUNDS, SEGMENTS, OUT, DOWN_ROUND, GRIT, REFLEX, MOMENTUM = range(10)
EXPOSED, IMPAIRED, RECEIVED, ROTATION, DOWN_RECEIVED, OUT_ROUND, DEAD_ROUND = range(10, 17)
# damage taken from Stun beyond its maximum; the Turn (numbered from 1 in the encounter)
# in which the combatant last Blocked / Evaded
STATUS_DAMAGE, BLOCKED_IN, EVADED_IN = range(17, 20)
N_BASE_FIELDS = 20  # the fields above; those below serve the later-draft features
# the Stance in force and what it sets (Phase, attacks per Turn, Guard, roll modifier)
STANCE, SPEED_NOW, PER_TURN_NOW, GUARD_NOW, ROLL_MODIFIER_NOW = range(20, 25)
# last round the character is Suppressed (0: never); a Spirit whose Harm filled its meter
# (stays Recalled); Sunder charges left; whether the attack being resolved was Blocked;
# Fatigue taken
SUPPRESSED_UNTIL, SPENT, ARMOR_LEFT, WIELDED_LEFT, BLOCKED_NOW, FATIGUE = range(25, 31)
MOMENTUM_SPENT = 38
# bit d: Engaged with combatant d (engagement: declared); scratch row for targeting
ENGAGED, UNAVAILABLE = 39, 40
# round of the first of each feature event in the encounter (0: none), in
# compile.EVENT_FIELDS order (recorded by finish, like out and dead)
EVC_SUPPRESSED, EVC_SEALED, EVC_HARM, EVC_MOMENTUM, EVC_REINFORCEMENT = range(31, 36)
EVC_SUNDER, EVC_FATIGUE = 36, 37
N_EVENT_COUNTS = 7
N_FIELDS = 41

# event_round axis 1 (compile.EVENTS)
EVENT_OUT, EVENT_DEAD = 0, 1

# plain-duel tables (play_duels): rows, and dice outcomes per attack (3d6)
TIER_OF, DAMAGE_OF, SEEN, PAIR_OF, N_DICE, SPAN, ENDS = range(7)
N_TABLES = 7
OUTCOMES = 216

# engaged_target: enemies stand, but none Engaged with the attacker
NOT_ENGAGED = -2
NO_ATTACK = -1  # no attack of the rotation can be paid for

# reactions
REACT_NONE, REACT_BLOCK, REACT_EVADE = 0, 1, 2

TRACE_COLUMNS = (
    "encounter", "round", "phase", "attacker", "attack", "defender",
    "die1", "die2", "die3", "roll", "reaction", "reroll_die1", "reroll_die2",
    "reroll_die3", "final_roll", "row", "tier", "damage", "vigor_after", "hp_after",
    "stun_after", "downed", "wound_roll",
)  # fmt: skip
N_TRACE = len(TRACE_COLUMNS)


@inline_kernel
def kept_total(d1, d2, d3, net_advantage, bonus_size):
    """The attack roll's total from its dice (docs/rules/shattered-spirits.md "Advantage and
    Disadvantage").

    2d6 (``d3`` unused) when ``net_advantage`` is 0; with net Advantage (Disadvantage)
    n ≥ 1, the highest (lowest) two of three dice, and each instance beyond the first
    becomes a Bonus (Penalty) of ``bonus_size``.
    """
    if net_advantage == 0:
        return d1 + d2
    total = d1 + d2 + d3
    if net_advantage > 0:
        return total - min(d1, min(d2, d3)) + (net_advantage - 1) * bonus_size
    return total - max(d1, max(d2, d3)) + (net_advantage + 1) * bonus_size


@inline_kernel
def coded_total(code, net_advantage, bonus_size):
    """:func:`kept_total` of the attack dice that read ``code`` in base 6 (first die most
    significant, faces 1..6 as digits 0..5): two dice when ``net_advantage`` is 0, else
    three, as :func:`attack_roll` rolls them."""
    n_dice = 2 if net_advantage == 0 else 3
    d3 = code % 6 + 1 if n_dice == 3 else 0
    d2 = code // 6 ** (n_dice - 2) % 6 + 1
    d1 = code // 6 ** (n_dice - 1) + 1
    return kept_total(d1, d2, d3, net_advantage, bonus_size)


@inline_kernel
def attack_roll(rng, net_advantage, bonus_size, trace, slot, col, traced):
    """Roll the attack dice, 2d6 or 3d6 with Advantage or Disadvantage, and return
    :func:`kept_total` (docs/rules/shattered-spirits.md).

    When ``traced``, the dice rolled are written to ``trace[slot, col:col + 3]`` (third
    die 0 when only two were rolled).
    """
    d1 = roll_die(rng, STREAM_ATTACK, 6)
    d2 = roll_die(rng, STREAM_ATTACK, 6)
    d3 = 0
    if net_advantage != 0:
        d3 = roll_die(rng, STREAM_ATTACK, 6)
    if traced:
        trace[slot, col] = d1
        trace[slot, col + 1] = d2
        trace[slot, col + 2] = d3
    return kept_total(d1, d2, d3, net_advantage, bonus_size)


@inline_kernel
def profile_row(roll):
    """Row index 0..10 (results 2..12) for a modified roll; −1 when it misses (< 2)."""
    if roll < 2:
        return -1
    if roll > 12:
        return 10
    return roll - 2


@inline_kernel
def row_tier(p, attack, row):
    """Tier code of a row: 0 miss, 1 hit, 2 crit (a roll below 2 is a miss)."""
    if row < 0:
        return 0
    return p.rows[R_TIER, attack, row]


@inline_kernel
def row_damage(p, st, attack, row, attacker, defender):
    """Damage of ``row`` against ``defender``, in the docs/rules/shattered-spirits.md damage order.

    1. the row's damage; 2. + the attack's damage modifier + Exposed on the target −
    Impaired on the attacker; 3. − Guard, floor 0 (``guard_mode: subtract``), or nothing
    when the damage is at most the Guard and the whole of it when larger
    (``threshold``); 4. Glancing divides, rounding up (text rule 1). Cover makes the
    attack Glancing, or adds ``cover_guard`` Guard when it already is. A ``miss`` row
    deals nothing.
    """
    if row_tier(p, attack, row) == 0:
        return 0
    g = p.globals_
    damage = (
        p.rows[R_DAMAGE, attack, row]
        + p.attack[A_DAMAGE_MODIFIER, attack]
        + st[EXPOSED, defender] * g[G_EXPOSED_PER_LEVEL]
        - st[IMPAIRED, attacker] * g[G_IMPAIRED_PER_LEVEL]
    )
    guard = st[GUARD_NOW, defender]
    glancing = p.attack[A_GLANCING, attack] != 0
    if p.combatant[C_COVER, defender] != 0:
        if glancing:
            guard += g[G_COVER_GUARD]
        else:
            glancing = True
    stopped = damage <= guard
    damage = damage if g[G_GUARD_THRESHOLD] != 0 else damage - guard
    damage = 0 if stopped else damage
    if glancing:
        damage = (damage + g[G_GLANCING_DIVISOR] - 1) // g[G_GLANCING_DIVISOR]
    return damage


@inline_kernel
def pick_reaction(tier, damage, evade_at, block_at, reflex, grit, cost):
    """Which reaction a defender's threshold policy makes, without paying for it.

    docs/rules/shattered-spirits.md "Reactions": only a hit (``tier`` > 0) is answered; Evade
    (Reflex) when ``damage`` reaches ``evade_at``, else Block (Grit) when it reaches ``block_at``; a
    threshold below 0 means no such reaction, and each needs ``cost`` tokens in hand. Also the
    earlier draft's reactions (docs/rules/shattered-spirits-draft1.md).
    """
    if tier == 0:
        return REACT_NONE
    if evade_at >= 0 and damage >= evade_at and reflex >= cost:
        return REACT_EVADE
    if block_at >= 0 and damage >= block_at and grit >= cost:
        return REACT_BLOCK
    return REACT_NONE


@inline_kernel
def unused_in_turn(threshold, used_in, turn):
    """A reaction's threshold, or none (−1) when it was already used in this ``turn``:
    a given Reaction only once per Turn (seed 001, "Turns in Shattered Spirits")."""
    return threshold if used_in != turn else NO_REACTION


@inline_kernel
def choose_reaction(p, st, defender, tier, damage, turn, rnd):
    """The defender's reaction to a hit it sees coming (docs/rules/shattered-spirits.md
    "Reactions").

    Evade (Reflex) when the damage reaches its evade threshold, else Block (Grit) when it
    reaches its block threshold; each costs ``reaction_cost`` tokens it must have (or,
    when the scenario prices it in Momentum, that much Momentum: ``momentum_cost``), and
    each can be used once per Turn: a reaction already used in the attacker's ``turn``
    is not available again until the next Turn (seed 001, "Turns in Shattered Spirits").
    """
    cost = p.globals_[G_REACTION_COST]
    evade_at = unused_in_turn(p.combatant[C_EVADE_AT, defender], st[EVADED_IN, defender], turn)
    block_at = unused_in_turn(p.combatant[C_BLOCK_AT, defender], st[BLOCKED_IN, defender], turn)
    evade_momentum = p.combatant[C_EVADE_MOMENTUM, defender]
    block_momentum = p.combatant[C_BLOCK_MOMENTUM, defender]
    reaction = pick_reaction(
        tier, damage, evade_at, block_at,
        can_pay(st, defender, REFLEX, cost, evade_momentum),
        can_pay(st, defender, GRIT, cost, block_momentum), 1,
    )  # fmt: skip
    if reaction == REACT_EVADE:
        pay(st, defender, REFLEX, cost, evade_momentum, rnd)
        st[EVADED_IN, defender] = turn
    elif reaction == REACT_BLOCK:
        pay(st, defender, GRIT, cost, block_momentum, rnd)
        st[BLOCKED_IN, defender] = turn
    return reaction


@inline_kernel
def can_pay(st, c, token, cost, momentum_cost):
    """1 when ``c`` can pay a reaction: ``momentum_cost`` Momentum when it is priced in
    Momentum (> 0), else ``cost`` of its ``token`` pool (Grit or Reflex); else 0."""
    if momentum_cost > 0:
        return 1 if st[MOMENTUM, c] >= momentum_cost else 0
    return 1 if st[token, c] >= cost else 0


@inline_kernel
def pay(st, c, token, cost, momentum_cost, rnd):
    """Pay for a reaction as :func:`can_pay` found it payable."""
    if momentum_cost > 0:
        spend_momentum(st, c, momentum_cost, rnd)
    else:
        st[token, c] -= cost


@inline_kernel
def spend_momentum(st, c, amount, rnd):
    """``c`` spends ``amount`` Momentum in round ``rnd``: counted in the encounter's
    Momentum spent (``momentum_spent`` tally) and as the ``momentum_spent`` event."""
    st[MOMENTUM, c] -= amount
    st[MOMENTUM_SPENT, c] += amount
    note_event(st, EVC_MOMENTUM, c, rnd)


@inline_kernel
def wound_roll(p, rng, wounds):
    """Roll for a Wound (docs/rules/shattered-spirits.md "Downed"): with no Wounds 2d6 keep the
    lower, else one d6 per Wound, summed (or the highest die, ``wound_roll: highest``)."""
    if wounds == 0:
        return min(roll_die(rng, STREAM_WOUND, 6), roll_die(rng, STREAM_WOUND, 6))
    total = 0
    for _ in range(wounds):
        die = roll_die(rng, STREAM_WOUND, 6)
        total = total + die if p.globals_[G_WOUND_ROLL] == 0 else max(total, die)
    return total


@inline_kernel
def take_out(p, st, c, rnd, standing):
    """Remove combatant ``c`` from the fight in round ``rnd``."""
    st[OUT, c] = 1
    st[OUT_ROUND, c] = rnd
    standing[p.combatant[C_SIDE, c]] -= 1
    spirit = p.combatant[C_SPIRIT, c]
    if spirit >= 0:  # a Spirit leaves with its character
        st[OUT, spirit] = 1


@inline_kernel
def note_event(st, event, c, rnd):
    """Remember round ``rnd`` for feature event ``event`` (an ``EVC_*`` field) of ``c``
    unless it already happened in this encounter: like ``out`` and ``dead``, an event's
    rate is the share of encounters in which it happens, its round the first time."""
    if st[event, c] == 0:
        st[event, c] = rnd


@inline_kernel
def suppress(p, st, owner, rnd):
    """Spirit Downed (seed 001, "Hit Points and Wounds"): its character is Suppressed for
    the rest of the Round, or Sealed when already Suppressed; Sealed is read as a
    Suppression that lasts ``sealed_rounds`` more Rounds [default 1]."""
    if st[SUPPRESSED_UNTIL, owner] >= rnd:
        st[SUPPRESSED_UNTIL, owner] = rnd + p.globals_[G_SEALED_ROUNDS]
        note_event(st, EVC_SEALED, owner, rnd)
    else:
        st[SUPPRESSED_UNTIL, owner] = rnd
        note_event(st, EVC_SUPPRESSED, owner, rnd)


@inline_kernel
def may_sunder(p, st, c, segments):
    """Whether ``c``'s Sunder policy takes Fatigue in place of the Wound just rolled
    (seed 001, "Hit Points and Wounds"): the Wound would add at least ``C_SUNDER_AT``
    segments and it has Armor left, or a Wielded item left and it Blocked the attack."""
    at = p.combatant[C_SUNDER_AT, c]
    if at == 0 or segments < at:
        return False
    return st[ARMOR_LEFT, c] > 0 or (st[BLOCKED_NOW, c] != 0 and st[WIELDED_LEFT, c] > 0)


@inline_kernel
def sunder(p, st, c, rnd):
    """Sunder Armor (or, failing that, a Wielded item) for Fatigue in place of a Wound."""
    if st[ARMOR_LEFT, c] > 0:
        st[ARMOR_LEFT, c] -= 1
    else:
        st[WIELDED_LEFT, c] -= 1
    fatigue = p.globals_[G_FATIGUE_PER_SUNDER]
    st[FATIGUE, c] += fatigue
    note_event(st, EVC_SUNDER, c, rnd)
    if fatigue > 0:
        note_event(st, EVC_FATIGUE, c, rnd)


@inline_kernel
def take_damage(p, st, rng, c, damage, rnd, standing):
    """Apply damage to ``c``: Vigor first, then HP; at 0 HP it is Downed
    (docs/rules/shattered-spirits.md).

    A ``defeat`` combatant is out. A ``wounds`` combatant rolls a Wound of
    ceil(roll / 2) segments, dies when its Strain Meter is full, else resets to full HP
    and takes the overflow (which may Down it again). Its Sunder policy may take Fatigue
    in place of the Wound (:func:`may_sunder`). A Spirit is Spirit Downed instead: its
    character is Suppressed (:func:`suppress`) and it rolls Harm the same way, staying
    Recalled when its ``harm_meter`` is full (seed 001, "Hit Points and Wounds").
    Returns the last wound roll (0 if none).
    """
    if st[VIGOR, c] > 0:
        absorbed = min(st[VIGOR, c], damage)
        st[VIGOR, c] -= absorbed
        damage -= absorbed
    hp = st[HP, c]
    if damage < hp:
        st[HP, c] = hp - damage
        return 0
    overflow = damage - st[HP, c]
    st[HP, c] = 0
    if st[DOWN_ROUND, c] == 0:
        st[DOWN_ROUND, c] = rnd
        st[DOWN_RECEIVED, c] = st[RECEIVED, c]
    if p.combatant[C_WOUNDS, c] == 0:
        take_out(p, st, c, rnd, standing)
        return 0
    return roll_wounds(p, st, rng, c, overflow, rnd, standing)


@internal_kernel
def roll_wounds(p, st, rng, c, overflow, rnd, standing):
    """The Wounds (or a Spirit's Harm) of a ``wounds`` combatant Downed with ``overflow``
    damage left, as :func:`take_damage` describes; returns the last roll. A compiled
    call of its own: it is rare, and keeping it out of the attack path keeps that short."""
    result = 0
    owner = p.combatant[C_OWNER, c]
    while True:
        if owner >= 0:
            suppress(p, st, owner, rnd)
            note_event(st, EVC_HARM, c, rnd)
        result = wound_roll(p, rng, st[WOUNDS, c])
        segments = (result + 1) // 2
        if may_sunder(p, st, c, segments):
            sunder(p, st, c, rnd)
        else:
            st[WOUNDS, c] += 1
            st[SEGMENTS, c] += segments
        if owner >= 0 and st[SEGMENTS, c] >= p.globals_[G_HARM_METER]:
            st[SPENT, c] = 1  # its Harm filled the meter: it stays Recalled
            st[OUT, c] = 1
            st[OUT_ROUND, c] = rnd
            return result
        if owner < 0 and st[SEGMENTS, c] >= p.globals_[G_STRAIN_METER]:
            st[DEAD_ROUND, c] = rnd
            take_out(p, st, c, rnd, standing)
            return result
        st[HP, c] = p.combatant[C_HP, c]
        if overflow < st[HP, c]:
            st[HP, c] -= overflow
            return result
        overflow -= st[HP, c]
        st[HP, c] = 0


@inline_kernel
def take_stun(p, st, rng, c, stun, rnd, standing):
    """Add Stun; what goes beyond the maximum becomes damage (docs/rules/shattered-spirits.md
    "Stun"), counted as ``c``'s status damage."""
    room = p.combatant[C_STUN_MAX, c] - st[STUN, c]
    if stun <= room:
        st[STUN, c] += stun
        return
    st[STUN, c] += room
    st[STATUS_DAMAGE, c] += stun - room
    take_damage(p, st, rng, c, stun - room, rnd, standing)


@inline_kernel
def trace_attack(trace, slot, n_trace, enc, rnd, phase, attacker, attack, defender):
    """Fill in who attacked whom in trace row ``slot`` and move to the next row."""
    ev = trace[slot]
    ev[0], ev[1], ev[2], ev[3], ev[4], ev[5] = enc, rnd, phase, attacker, attack, defender
    n_trace[0] += 1


@inline_kernel
def inflict_statuses(p, st, rng, attack, row, defender, rnd, standing):
    """The row's statuses, after its damage (docs/rules/shattered-spirits.md "Resolving
    Attacks")."""
    st[EXPOSED, defender] += p.rows[R_EXPOSED, attack, row]
    st[IMPAIRED, defender] += p.rows[R_IMPAIRED, attack, row]
    stun = p.rows[R_STUN, attack, row] * p.globals_[G_STUN_PER_LEVEL]
    if stun > 0:
        take_stun(p, st, rng, defender, stun, rnd, standing)


@inline_kernel
def resolve_attack(p, st, rng, attacker, attack, defender, rnd, turn, standing, trace, slot,
                   traced):  # fmt: skip
    """One attack, from the roll to its damage and statuses (docs/rules/shattered-spirits.md).

    The modified roll picks the profile row; the defender, seeing the damage, may react
    (Evade rerolls the whole attack roll, Block lowers it by 1; each once in the
    attacker's ``turn``, see :func:`choose_reaction`); then the damage is dealt
    and, after it, the row's statuses. When ``traced``, ``trace[slot]`` receives what
    happened; the return value is (tier, damage).
    """
    net = p.attack[A_NET_ADVANTAGE, attack]
    bonus = p.globals_[G_BONUS_SIZE]
    modifier = p.attack[A_MODIFIER, attack] + st[ROLL_MODIFIER_NOW, attacker]
    roll = attack_roll(rng, net, bonus, trace, slot, 6, traced) + modifier
    row = profile_row(roll)
    tier = row_tier(p, attack, row)
    damage = row_damage(p, st, attack, row, attacker, defender)
    reaction = choose_reaction(p, st, defender, tier, damage, turn, rnd)
    final = roll
    if reaction == REACT_EVADE:
        final = attack_roll(rng, net, bonus, trace, slot, 11, traced) + modifier
    elif reaction == REACT_BLOCK:
        final = roll - 1
    if reaction != REACT_NONE:
        row = profile_row(final)
        tier = row_tier(p, attack, row)
        damage = row_damage(p, st, attack, row, attacker, defender)
    st[RECEIVED, defender] += 1
    was_down = st[DOWN_ROUND, defender]
    features = p.globals_[G_FEATURES] != 0
    if features:
        st[BLOCKED_NOW, defender] = int(reaction == REACT_BLOCK)
    wound = take_damage(p, st, rng, defender, damage, rnd, standing)
    if features:
        st[BLOCKED_NOW, defender] = 0
    if tier > 0 and st[OUT, defender] == 0:
        inflict_statuses(p, st, rng, attack, row, defender, rnd, standing)
    if traced:
        ev = trace[slot]
        ev[9], ev[10], ev[14] = roll, reaction, final
        ev[15] = row + 2 if row >= 0 else 0
        ev[16], ev[17] = tier, damage
        ev[18], ev[19], ev[20] = st[VIGOR, defender], st[HP, defender], st[STUN, defender]
        ev[21] = int(was_down == 0 and st[DOWN_ROUND, defender] != 0)
        ev[22] = wound
    return tier, damage


@inline_kernel
def reset_combatant(p, st, c):
    """Combatant ``c`` as an encounter starts: full HP, its starting Vigor, tokens and
    statuses; everything else 0. The fields of the later-draft features are only reset
    when the scenario uses one (the others never read them: this keeps their encounter
    start as short as before)."""
    n_fields = N_FIELDS if p.globals_[G_FEATURES] != 0 else N_BASE_FIELDS
    for f in range(n_fields):
        st[f, c] = 0
    st[HP, c] = p.combatant[C_HP, c]
    st[VIGOR, c] = p.combatant[C_VIGOR, c]
    st[GRIT, c] = p.combatant[C_GRIT, c]
    st[REFLEX, c] = p.combatant[C_REFLEX, c]
    st[MOMENTUM, c] = p.combatant[C_MOMENTUM, c]
    st[EXPOSED, c] = p.combatant[C_EXPOSED, c]
    st[IMPAIRED, c] = p.combatant[C_IMPAIRED, c]
    st[ARMOR_LEFT, c] = p.combatant[C_ARMOR, c]
    st[WIELDED_LEFT, c] = p.combatant[C_WIELDED, c]
    st[ENGAGED, c] = p.combatant[C_ENGAGED, c]
    take_stance(p, st, c, 0)


@inline_kernel
def take_stance(p, st, c, k):
    """``c`` takes its ``k``-th Stance (seed 001, "Rounds": a Stance sets the Phase; some
    lift the one-attack limit), or its own fields when it lists none."""
    st[SPEED_NOW, c] = p.combatant[C_SPEED, c]
    st[PER_TURN_NOW, c] = p.combatant[C_ATTACKS_PER_TURN, c]
    st[GUARD_NOW, c] = p.combatant[C_GUARD, c]
    st[ROLL_MODIFIER_NOW, c] = p.combatant[C_ROLL_MODIFIER, c]
    st[STANCE, c] = k
    if p.combatant[C_STANCE_COUNT, c] > 0:
        j = p.combatant[C_STANCE_START, c] + k
        st[SPEED_NOW, c] = p.stance[S_SPEED, j]
        st[PER_TURN_NOW, c] = p.stance[S_ATTACKS_PER_TURN, j]
        st[GUARD_NOW, c] = max(st[GUARD_NOW, c] + p.stance[S_GUARD_MODIFIER, j], 0)
        st[ROLL_MODIFIER_NOW, c] += p.stance[S_ROLL_MODIFIER, j]


@inline_kernel
def reset(p, st, standing):
    """Start-of-encounter state: everyone as :func:`reset_combatant` makes them, and
    standing; Spirits (until Manifested) and reinforcements (until they arrive) are not
    in the fight and not counted as standing."""
    for c in range(st.shape[1]):
        reset_combatant(p, st, c)
    count_standing(p.combatant[C_SIDE], standing)
    if p.globals_[G_ANY_ABSENT] != 0:
        for c in range(st.shape[1]):
            if p.combatant[C_OWNER, c] >= 0 or p.combatant[C_ARRIVES, c] > 0:
                st[OUT, c] = 1
                standing[p.combatant[C_SIDE, c]] -= 1


@inline_kernel
def arrive(p, st, rnd, standing):
    """Reinforcements (seed 001, "Arenas and Movement"): the slots due in round ``rnd``
    join the fight at its start, unless the source was destroyed in an earlier round
    (``source_destroyed_round``; 0: never)."""
    destroyed = p.globals_[G_SOURCE_DESTROYED]
    if destroyed > 0 and rnd > destroyed:
        return
    for c in range(st.shape[1]):
        if p.combatant[C_ARRIVES, c] == rnd and p.combatant[C_OWNER, c] < 0:
            st[OUT, c] = 0
            standing[p.combatant[C_SIDE, c]] += 1
            note_event(st, EVC_REINFORCEMENT, c, rnd)


@inline_kernel
def change_stance(p, st, c):
    """Respite, first step: the Stance policy (seed 001, "Rounds") — the ``switch_to``
    Stance while HP is below ``when_hp_below``, else the first Stance listed."""
    k = 0
    if p.combatant[C_STANCE_SWITCH, c] >= 0 and st[HP, c] < p.combatant[C_STANCE_BELOW, c]:
        k = p.combatant[C_STANCE_SWITCH, c]
    take_stance(p, st, c, k)


@inline_kernel
def manifest(p, st, c, suppressed, rnd):
    """Respite, second step, for a character with a Spirit (seed 001, "Rounds"): whether
    it Manifests the Spirit (paying ``melee_manifest_cost`` Momentum for Melee range when
    its policy says ``melee`` and it can) or Recalls it. A Suppressed character may not
    Manifest; a Spirit whose Harm filled its meter stays Recalled; ``recall_below``
    Recalls a Spirit whose HP is below it."""
    spirit = p.combatant[C_SPIRIT, c]
    policy = p.combatant[C_MANIFEST, spirit]
    below = p.combatant[C_RECALL_BELOW, spirit]
    allowed = not suppressed and st[SPENT, spirit] == 0 and policy != 2
    if allowed and below > 0 and st[HP, spirit] < below:
        allowed = False
    st[OUT, spirit] = 0 if allowed else 1
    cost = p.globals_[G_MELEE_MANIFEST_COST]
    at_melee = allowed and policy == 1 and st[MOMENTUM, c] >= cost
    if at_melee:
        spend_momentum(st, c, cost, rnd)
    if p.globals_[G_DECLARED] != 0:
        engage_spirit(st, spirit, st[ENGAGED, c] if at_melee else 0)
    return allowed


@inline_kernel
def engage_spirit(st, spirit, mask):
    """The Spirit's engagements become ``mask`` (mutual): at Melee range it is Engaged
    with the creatures its character is Engaged with, else with none (seed 001,
    "Rounds": Manifested at Melee range, it becomes Engaged with the creatures there)."""
    bit = np.int64(1) << spirit
    for d in range(st.shape[1]):
        if (mask >> d) & 1:
            st[ENGAGED, d] |= bit
        else:
            st[ENGAGED, d] &= ~bit
    st[ENGAGED, spirit] = mask


@inline_kernel
def respite(p, st, rnd, standing):
    """Respite (docs/rules/shattered-spirits.md "Round"; seed 001, "Rounds"): reinforcements due
    arrive; then each character in the fight changes Stance by its policy, Manifests or Recalls its
    Spirit, and gains Momentum unless Suppressed (when it Manifests, only if
    ``manifest_momentum``)."""
    g = p.globals_
    if g[G_FEATURES] == 0:
        for c in range(st.shape[1]):
            if st[OUT, c] == 0:
                st[MOMENTUM, c] += g[G_MOMENTUM_PER_RESPITE]
        return
    if g[G_ANY_ABSENT] != 0:
        arrive(p, st, rnd, standing)
    for c in range(st.shape[1]):
        if st[OUT, c] != 0 or p.combatant[C_OWNER, c] >= 0:
            continue
        if g[G_DYNAMIC_ORDER] != 0:
            change_stance(p, st, c)
        suppressed = st[SUPPRESSED_UNTIL, c] >= rnd
        manifested = p.combatant[C_SPIRIT, c] >= 0 and manifest(p, st, c, suppressed, rnd)
        if not suppressed and (not manifested or g[G_MANIFEST_MOMENTUM] != 0):
            st[MOMENTUM, c] += g[G_MOMENTUM_PER_RESPITE]


@inline_kernel
def turn_attacks(p, st, c):
    """How many attacks combatant ``c`` makes in its Turn (0 if it has no attack): as
    many as its Stance allows."""
    if p.combatant[C_ATTACK_COUNT, c] == 0:
        return 0
    return st[PER_TURN_NOW, c]


@inline_kernel
def next_attack(p, st, c):
    """The attack ``c`` makes next: its attacks are used in rotation."""
    first, count = p.combatant[C_ATTACK_START, c], p.combatant[C_ATTACK_COUNT, c]
    return attack_in_rotation(p.attack_list, first, count, st, ROTATION, c)


@inline_kernel
def momentum_payer(p, c):
    """Whose Momentum pays for ``c``'s attacks: a Spirit's character's, else its own."""
    owner = p.combatant[C_OWNER, c]
    return owner if owner >= 0 else c


@inline_kernel
def affordable_attack(p, st, c):
    """The attack ``c`` makes next, by ``unpaid_attack`` when its rotation comes to one
    priced in Momentum (``momentum_cost``) beyond what its payer holds: ``next`` passes
    over it [default reading], ``NO_ATTACK`` when it can pay for none; ``wait`` gives
    ``NO_ATTACK`` and leaves the rotation on it. An attack without a price is taken at
    once, as :func:`next_attack` would."""
    payer = momentum_payer(p, c)
    count = p.combatant[C_ATTACK_COUNT, c]
    for _ in range(count):
        attack = next_attack(p, st, c)
        if p.attack[A_MOMENTUM_COST, attack] <= st[MOMENTUM, payer]:
            return attack
        if p.globals_[G_UNPAID_WAIT] != 0:  # step back: the rotation waits on it
            st[ROTATION, c] = st[ROTATION, c] - 1 if st[ROTATION, c] > 0 else count - 1
            return NO_ATTACK
    return NO_ATTACK


@inline_kernel
def pay_for_attack(p, st, c, attack, rnd):
    """Spend the Momentum ``attack`` costs, if any, from ``c``'s payer."""
    cost = p.attack[A_MOMENTUM_COST, attack]
    if cost > 0:
        spend_momentum(st, momentum_payer(p, c), cost, rnd)


@internal_kernel
def end_of_phase(p, st, rng, rnd, standing):
    """Rushing N terrain: +N Stun at the end of each Phase spent there
    (docs/rules/shattered-spirits.md)."""
    for c in range(st.shape[1]):
        if p.combatant[C_RUSHING, c] > 0 and st[OUT, c] == 0:
            take_stun(p, st, rng, c, p.combatant[C_RUSHING, c], rnd, standing)
    return sides_standing(standing) > 1


@inline_kernel
def end_of_round(p, st):
    """End of Round: Exposed and Impaired inflicted this round wear off, when they last a
    round (``statuses_last: round``)."""
    if p.globals_[G_STATUSES_LAST_ROUND] != 0:
        for c in range(st.shape[1]):
            st[EXPOSED, c] = p.combatant[C_EXPOSED, c]
            st[IMPAIRED, c] = p.combatant[C_IMPAIRED, c]


@inline_kernel
def finish(p, st, t, ch, last_round, standing):
    """Record the encounter's winner, length, and each combatant's down and events."""
    record_outcome(t, ch, last_round, standing, st[DOWN_ROUND], st[DOWN_RECEIVED], 0)
    for c in range(st.shape[1]):
        record_event(t, ch, c, EVENT_OUT, st[OUT_ROUND, c], 0)
        record_event(t, ch, c, EVENT_DEAD, st[DEAD_ROUND, c], 0)
        if p.globals_[G_FEATURES] == 0:
            continue
        for k in range(N_EVENT_COUNTS):
            e = p.globals_[G_EV_SUPPRESSED + k]
            if e >= 0:
                record_event(t, ch, c, e, st[EVC_SUPPRESSED + k, c], 0)


@inline_kernel
def record_status_damage(st, t, ch, batch):
    """Add each combatant's damage from Stun beyond its maximum (profile Stun and
    Rushing terrain) in this encounter to its status damage in ``batch``."""
    for c in range(st.shape[1]):
        t.status_damage[ch, c, batch] += st[STATUS_DAMAGE, c]


@inline_kernel
def record_momentum_spent(st, t, ch, batch):
    """Add the Momentum each combatant spent in this encounter to ``batch``."""
    for c in range(st.shape[1]):
        t.momentum_spent[ch, c, batch] += st[MOMENTUM_SPENT, c]


@inline_kernel
def declared_target(p, st, rng, c, standing):
    """``c``'s next attack and its target when engagements are declared: a Melee attack
    goes to an Engaged enemy (:func:`engaged_target`), a ranged one to any; the target is
    ``NOT_ENGAGED`` too when ``c`` can pay for none of its attacks."""
    attack = affordable_attack(p, st, c)
    if attack == NO_ATTACK:
        return attack, NOT_ENGAGED
    if p.attack[A_MELEE, attack] != 0:
        return attack, engaged_target(p, st, rng, c, standing)
    policy = p.combatant[C_POLICY, c]
    return attack, choose_target(p.enemies[c], st[OUT], st[HP], policy, rng)


@inline_kernel
def engaged_target(p, st, rng, c, standing):
    """The target of ``c``'s Melee attack when engagements are declared: an enemy it is
    Engaged with, by its policy (seed 001, "Range"); ``NOT_ENGAGED`` when enemies stand
    but none is Engaged with it (the attack is not made), −1 when no enemy stands."""
    for d in range(st.shape[1]):
        engaged = (st[ENGAGED, c] >> d) & 1
        st[UNAVAILABLE, d] = 1 if st[OUT, d] != 0 or engaged == 0 else 0
    target = choose_target(p.enemies[c], st[UNAVAILABLE], st[HP], p.combatant[C_POLICY, c], rng)
    if target < 0 and sides_standing(standing) > 1:
        return NOT_ENGAGED
    return target


@inline_kernel
def sort_turns(p, st, order, phase_start):
    """The turn order after Stances changed at Respite: by current Phase, then side and
    listed order (docs/rules/shattered-spirits.md "Round"); Phase p's turns are
    ``order[phase_start[p - 1]: phase_start[p]]``."""
    n = 0
    phase_start[0] = 0
    for phase in range(1, 7):
        for c in p.listed:
            if st[SPEED_NOW, c] == phase:
                order[n] = c
                n += 1
        phase_start[phase] = n


@inline_kernel
def play_encounters(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, trace, n_trace,
                    order, phase_start, tracing):  # fmt: skip
    """Play encounters ``lo .. hi-1`` to their end, adding them to chunk ``ch`` of ``t``.

    A Round (docs/rules/shattered-spirits.md "Round") is the Respite, Phases 1–6 and the End of
    Round. Within a Phase, combatants act in ``order`` (sides in listed order, players first, then
    listed order within a side: ``p.order``, unless Stances change Phases at Respite,
    :func:`sort_turns`); a Turn is the combatant's attacks, in rotation, each at a target chosen by
    its policy. Turns are numbered from 1 in each encounter (``turn``), so that a defender uses each
    Reaction at most once per Turn. The encounter ends as soon as at most one side is left standing,
    or after the round cap.

    Each attack fills a row of ``trace`` when ``tracing`` (a constant in each kernel that
    calls this: :func:`run_chunk`, :func:`run_untraced_chunk`).

    The encounter, Round, Phase and Turn loops live in this one function on purpose:
    numba passes every array of ``p`` and ``t`` as separate scalar arguments (≈ 225
    words), so a call per Round or per Turn cost far more than the Round itself.
    """
    g = p.globals_
    n_batches = t.attempts.shape[2]
    n_combatants = st.shape[1]
    n_attacks = p.attack.shape[1]
    dynamic = g[G_DYNAMIC_ORDER] != 0
    declared = g[G_DECLARED] != 0
    for enc in range(lo, hi):
        batch = enc * n_batches // n_total
        start_encounter(rng, k0, k1, enc)
        reset(p, st, standing)
        last = g[G_MAX_ROUNDS]
        turn = 0
        for rnd in range(1, g[G_MAX_ROUNDS] + 1):
            respite(p, st, rnd, standing)
            over = False
            if dynamic:
                sort_turns(p, st, order, phase_start)
            for phase in range(1, 7):
                for k in range(phase_start[phase - 1], phase_start[phase]):
                    c = order[k]
                    if st[OUT, c] != 0:
                        continue
                    turn += 1
                    for _ in range(turn_attacks(p, st, c)):
                        if declared:
                            attack, target = declared_target(p, st, rng, c, standing)
                            if target == NOT_ENGAGED:
                                continue
                        else:
                            target = choose_target(p.enemies[c], st[OUT], st[HP],
                                                   p.combatant[C_POLICY, c], rng)  # fmt: skip
                        if target < 0:
                            over = True
                            break
                        if not declared:
                            attack = affordable_attack(p, st, c)
                            if attack == NO_ATTACK:
                                continue
                        pay_for_attack(p, st, c, attack, rnd)
                        slot = min(n_trace[0], trace.shape[0] - 1)
                        tier, damage = resolve_attack(
                            p, st, rng, c, attack, target, rnd, turn, standing, trace, slot,
                            tracing,
                        )  # fmt: skip
                        pair = (c * n_attacks + attack) * n_combatants + target
                        record_attack(t, ch, pair, batch, tier, damage)
                        if tracing:
                            trace_attack(trace, slot, n_trace, enc, rnd, phase, c, attack, target)
                        if sides_standing(standing) <= 1:
                            over = True
                            break
                    if over:
                        break
                if over or (g[G_ANY_RUSHING] != 0 and not end_of_phase(p, st, rng, rnd, standing)):
                    over = True
                    break
            if over:
                last = rnd
                break
            end_of_round(p, st)
        finish(p, st, t, ch, last, standing)
        record_status_damage(st, t, ch, batch)
        if g[G_FEATURES] != 0:
            record_momentum_spent(st, t, ch, batch)


@inline_kernel
def damage_room(st, c):
    """Damage ``c`` can take before it is Downed: its Vigor and HP
    (docs/rules/shattered-spirits.md)."""
    return st[VIGOR, c] + st[HP, c]


@internal_kernel
def duel_outcomes(p, st, attacker, target, tables):
    """Tier and damage of every possible roll of each of the attacker's attacks, in a
    plain duel.

    In a plain duel (``compile.duel_attacker``) nothing changes the target, so an
    attack's result depends only on its dice. For the attacker's ``j``-th attack and
    d6 that read ``o`` in base 6 (first die most significant, faces 1..6 as digits
    0..5), ``tables[TIER_OF, j * 216 + o]`` and ``tables[DAMAGE_OF, j * 216 + o]``
    receive its tier and damage, by the same rules as :func:`resolve_attack`. ``st``
    must hold the start-of-encounter state.
    """
    bonus = p.globals_[G_BONUS_SIZE]
    start = p.combatant[C_ATTACK_START, attacker]
    for j in range(p.combatant[C_ATTACK_COUNT, attacker]):
        attack = p.attack_list[start + j]
        net = p.attack[A_NET_ADVANTAGE, attack]
        modifier = p.attack[A_MODIFIER, attack] + p.combatant[C_ROLL_MODIFIER, attacker]
        n_dice = 2 if net == 0 else 3
        for o in range(6**n_dice):
            row = profile_row(coded_total(o, net, bonus) + modifier)
            tables[TIER_OF, j * OUTCOMES + o] = row_tier(p, attack, row)
            tables[DAMAGE_OF, j * OUTCOMES + o] = row_damage(p, st, attack, row, attacker, target)
        tables[N_DICE, j] = n_dice
        tables[SPAN, j] = 6**n_dice
        tables[PAIR_OF, j] = (attacker * p.attack.shape[1] + attack) * 2 + target


@internal_kernel
def record_outcomes(t, ch, batch, tables):
    """Add the attacks counted in ``tables[SEEN]`` to the per-attack tallies of
    ``batch``, as :func:`record_attack` would one by one, and clear the counts."""
    for k in range(tables.shape[1]):
        if tables[SEEN, k] > 0:
            pair = tables[PAIR_OF, k // OUTCOMES]
            tier, damage = tables[TIER_OF, k], tables[DAMAGE_OF, k]
            record_attacks(t, ch, pair, batch, tier, damage, tables[SEEN, k])
            tables[SEEN, k] = 0


@internal_kernel
def start_wounded(p, st, rng, standing, k0, k1, enc, target):
    """Start encounter ``enc`` of a plain duel whose target takes Wounds: its state in
    ``st`` and the RNG of its Wound rolls."""
    start_encounter(rng, k0, k1, enc)
    reset_combatant(p, st, target)
    count_standing(p.combatant[C_SIDE], standing)


@kernel
def wound(p, st, rng, standing, target, damage, rnd, received):
    """Deal the pooled ``damage`` that reaches a Wounds target's Vigor and HP, its
    ``received``-th attack, with :func:`take_damage`; return its new damage room and
    whether it is out."""
    st[RECEIVED, target] = received
    take_damage(p, st, rng, target, damage, rnd, standing)
    return damage_room(st, target), st[OUT, target]


@internal_kernel
def finish_wounded(p, st, rng, standing, t, ch, target, damage, last, received):
    """End a plain duel against a Wounds target: deal the damage still pooled, then
    :func:`finish`."""
    st[RECEIVED, target] = received
    if damage > 0:
        take_damage(p, st, rng, target, damage, last, standing)
    finish(p, st, t, ch, last, standing)


@inline_kernel
def duel_loop(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, tables, scratch,
              per_turn, n_slots, first_dice, wounds):  # fmt: skip
    """The encounter loop of :func:`play_duels`, given the duel's shape: the attacker's
    attacks per turn, its number of attacks, the (dice count, outcomes) of the first and
    whether the target takes Wounds. The most common duel takes :func:`pair_loop`
    instead."""
    n_batches = t.attempts.shape[2]
    target = 1 - p.globals_[G_DUEL_ATTACKER]
    cap = p.globals_[G_MAX_ROUNDS]
    damage_of, seen, n_dice, span = tables[DAMAGE_OF], tables[SEEN], tables[N_DICE], tables[SPAN]
    full_room = damage_room(st, target)
    ends = tables[ENDS]
    attack_bins = t.down_attacks.shape[2]
    words, buffer = scratch[:4], scratch[4]
    source = dice_source(k0, k1, STREAM_ATTACK, 6)
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, words.shape[1]):
        first_blocks(source, first, words)
        for enc in range(first, min(first + words.shape[1], hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                record_outcomes(t, ch, batch, tables)
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            cursor = cursor_at(words, enc - first, enc, buffer)
            if wounds:
                start_wounded(p, st, rng, standing, k0, k1, enc, target)
            slot = 0
            received = 0
            taken = 0
            out = 0
            room = full_room
            rnd = 1
            in_turn = 0
            # One loop over the attacks, counting turns and rounds: nested round and turn
            # loops, left with a flag, made the whole duel 1.35x slower (measured).
            for _ in range(cap * per_turn):
                dice = first_dice if n_slots == 1 else (n_dice[slot], np.uint64(span[slot]))
                code, cursor = cursor_code(source, buffer, cursor, dice[0], dice[1])
                k = slot * OUTCOMES + code
                slot = next_in_rotation(slot, n_slots)
                seen[k] += 1
                received += 1
                taken += damage_of[k]
                if taken >= room:
                    if not wounds:
                        out = 1
                        break
                    room, out = wound(p, st, rng, standing, target, taken, rnd, received)
                    taken = 0
                    if out != 0:
                        break
                in_turn += 1
                if in_turn == per_turn:  # the turn, and so the round, is over
                    in_turn = 0
                    rnd += 1
            last = rnd if out != 0 else cap
            if wounds:
                finish_wounded(p, st, rng, standing, t, ch, target, taken, last, received)
            elif out != 0:
                ends[last] += 1
                t.down_attacks[ch, target, min(received, attack_bins - 1)] += 1
            else:
                ends[0] += 1
    record_outcomes(t, ch, batch, tables)


PAIR_OF_2D6 = np.uint64(36 * 36)  # outcomes of two attacks' 2d6
#: Values each pair of 2d6 outcomes holds in a pair loop's ``pairs`` (:func:`pair_table`):
#: the first attack's damage, the second's, the pairs counted, and one unused, so that
#: an entry never straddles two cache lines.
PAIR_ENTRY = 4


@internal_kernel
def pair_table(tables, pairs):
    """Fill ``pairs`` for a loop of one 2d6 attack a turn played two at a time: for each
    ``code`` of both attacks' 2d6 (first attack's dice most significant, as
    ``rng.cursor_code`` reads them), the damage of the first attack and of the second
    (``tables[DAMAGE_OF]`` at ``code // 36`` and ``code % 36``), and a count of such
    pairs, zero (:func:`flush_pairs` adds them to ``tables[SEEN]``)."""
    for code in range(36 * 36):
        at = PAIR_ENTRY * code
        pairs[at] = tables[DAMAGE_OF, code // 36]
        pairs[at + 1] = tables[DAMAGE_OF, code % 36]
        pairs[at + 2] = 0


@internal_kernel
def flush_pairs(tables, pairs):
    """Add the attack pairs counted in ``pairs`` (:func:`pair_table`) to
    ``tables[SEEN]``, each attack by its own outcome, and clear their counts."""
    for code in range(36 * 36):
        n = pairs[PAIR_ENTRY * code + 2]
        if n > 0:
            tables[SEEN, code // 36] += n
            tables[SEEN, code % 36] += n
            pairs[PAIR_ENTRY * code + 2] = 0


@inline_kernel
def pair_loop(t, ch, lo, hi, n_total, k0, k1, tables, scratch, pairs, target, cap, down_at,
              shaken_at, shaken, counts_shaken):  # fmt: skip
    """The encounter loop of the most common plain duel of either draft, one attack of
    2d6 a turn until the ``target`` has taken ``down_at`` damage or ``cap`` rounds have
    passed, two attacks at a time: the 2d6 of both drawn as one number
    (``rng.cursor_code``: the same dice as drawn one after the other) that reads both
    attacks' damage in ``pairs`` (:func:`pair_table`), and counts the pair there. When
    the first attack of a pair ends the duel, it is counted alone and the second's dice
    are drawn and not used: each encounter draws from a stream of its own. A round cap
    that leaves one round after the last pair plays it alone. The duel's end is counted
    by round only; the attacks the target received, one a round, are added once
    (``encounter.record_round_downs``). Half as many draws, loop steps and counts as
    :func:`duel_loop` (README, "Design notes"). The cursor starts with its first word
    drawn (``rng.cursor_loaded``; every duel attacks at least once): 1.03-1.05x on the
    development machine since November 29, 0.98x on the one before.

    ``counts_shaken`` (a constant; the earlier draft's duel, ``shattered_spirits_draft1``)
    also counts, for each duel, the attacks after which the target had taken less than
    ``shaken_at`` (0: Shaken from the start), and adds one to ``shaken`` at the round it
    was Shaken in: the round after those attacks', since the damage taken never falls.
    """
    n_batches = t.attempts.shape[2]
    damage_of, seen, ends = tables[DAMAGE_OF], tables[SEEN], tables[ENDS]
    words, buffer = scratch[:4], scratch[4]
    source = dice_source(k0, k1, STREAM_ATTACK, 6)
    one, two, span = np.uint64(1), np.uint64(2), np.uint64(36)
    pair_table(tables, pairs)
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, words.shape[1]):
        first_blocks(source, first, words)
        for enc in range(first, min(first + words.shape[1], hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                flush_pairs(tables, pairs)
                record_outcomes(t, ch, batch, tables)
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            cursor = cursor_loaded(source, words, enc - first, enc, buffer)
            taken, unshaken = 0, 0
            rnd = 1  # the round of the next attack
            while rnd < cap:  # two rounds left at least
                code, cursor = cursor_code(source, buffer, cursor, 4, PAIR_OF_2D6)
                at = np.uint64(PAIR_ENTRY) * np.uint64(code)
                taken += pairs[at]
                if counts_shaken:
                    unshaken += taken < shaken_at
                if taken >= down_at:
                    seen[np.uint64(code) // span] += 1  # the first attack alone
                    break
                rnd += 1
                taken += pairs[at + one]
                if counts_shaken:
                    unshaken += taken < shaken_at
                pairs[at + two] += 1
                if taken >= down_at:
                    break
                rnd += 1
            if taken < down_at and rnd == cap:  # an odd round left: its attack alone
                code, cursor = cursor_code(source, buffer, cursor, 2, span)
                seen[code] += 1
                taken += damage_of[code]
                if counts_shaken:
                    unshaken += taken < shaken_at
                rnd += taken < down_at  # past the cap when the target still stands
            down = taken >= down_at
            if counts_shaken:
                received = rnd if down else rnd - 1  # attacks made, one a round
                if shaken_at == 0:  # Shaken from the start
                    shaken[0] += 1
                elif unshaken < received:
                    shaken[unshaken + 1] += 1  # the round of attack unshaken + 1
            count_round_end(ends, down, rnd)
    flush_pairs(tables, pairs)
    record_outcomes(t, ch, batch, tables)
    record_round_downs(t, ch, ends, target)


@internal_kernel
def play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, tables, scratch, pairs):
    """Play plain duels ``lo .. hi-1`` (see ``compile.duel_attacker``), exactly as
    :func:`play_encounters` would, on a shorter path.

    In a plain duel only the attacker acts, always at the same target, and no attack
    changes a later one: there is no target to choose, no reaction, no status, no
    Phase to walk through and nothing at the End of Round. Momentum, which nothing
    reads, is not counted. So each attack's tier and damage depend on its dice alone:
    they are looked up in tables made once by :func:`duel_outcomes`, and the attacks are
    counted by dice outcome and added to the tallies per batch
    (:func:`record_outcomes`). Every die comes from the same stream, in the same order,
    as in :func:`play_encounters`, so every tally is the same.

    The attacker's ``j``-th attack owns columns ``j * 216 ..`` of ``tables``
    (``int64[N_TABLES, 216 × its number of attacks]``, or wider); rows ``TIER_OF`` and
    ``DAMAGE_OF`` by dice outcome, ``SEEN`` the attacks counted since the last
    flush, and in column ``j`` of ``N_DICE`` and ``SPAN`` its dice count and their
    number of outcomes, of ``PAIR_OF`` its tally pair. The attacks rotate as in
    :func:`next_attack`, with the position kept in a local variable.

    The attack dice are drawn through a cursor held in local variables
    (``rng.cursor_code``); block 0 of their stream is computed for ``CURSOR_GROUP``
    encounters at a time into ``scratch[:4]`` (``uint64[5, CURSOR_GROUP]``; row 4 is the
    cursor's buffer).

    Until the target is Downed, its Vigor and HP act as one pool (Vigor absorbs first,
    then HP, and nothing else touches either here), so dealing several attacks' damage
    at once leaves it in the same state as dealing them one by one: the damage is
    summed in a local variable until it reaches the pool. A target Defeated at 0 HP
    then leaves the fight; the duel's end is counted in ``tables[ENDS]`` by round and
    added up by ``encounter.record_duel_ends``. A target that takes Wounds goes through
    :func:`take_damage` and :func:`finish` instead, with its state in ``st``.

    The loop itself is :func:`duel_loop`. The most common duel, one attack of 2d6 per
    turn against a target Defeated at 0 HP, is played two attacks at a time by
    :func:`pair_loop`. It had been a copy of :func:`duel_loop` compiled with that shape
    as constants, about 1.5x as fast as the general loop on
    ``scenarios/benchmarks/ss-duel.yaml``; the pair loop was 1.06x that copy, and
    1.05-1.09x again once it counted pairs instead of attacks (``bench_ab``, one
    thread).
    """
    attacker = p.globals_[G_DUEL_ATTACKER]
    target = 1 - attacker
    reset(p, st, standing)
    clear_state(tables)
    duel_outcomes(p, st, attacker, target, tables)
    per_turn = p.combatant[C_ATTACKS_PER_TURN, attacker]
    n_slots = p.combatant[C_ATTACK_COUNT, attacker]
    wounds = p.combatant[C_WOUNDS, target] != 0
    if per_turn == 1 and n_slots == 1 and tables[N_DICE, 0] == 2 and not wounds:
        cap, room = p.globals_[G_MAX_ROUNDS], damage_room(st, target)
        pair_loop(t, ch, lo, hi, n_total, k0, k1, tables, scratch, pairs, target, cap, room,
                  0, tables[ENDS], False)  # fmt: skip
    else:
        first_dice = (tables[N_DICE, 0], np.uint64(tables[SPAN, 0]))
        duel_loop(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, tables, scratch,
                  per_turn, n_slots, first_dice, wounds)  # fmt: skip
    g = p.globals_
    record_duel_ends(t, ch, tables[ENDS], attacker, p.combatant[C_SIDE, attacker],
                     g[G_MAX_ROUNDS], EVENT_OUT)  # fmt: skip


@kernel
def run_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng, order,
              phase_start):  # fmt: skip
    """Play chunk ``ch`` of encounters ``first .. first+count-1``, adding into ``t[ch]``
    (there are ``t.attempts.shape[0]`` chunks, each a contiguous slice; the caller sums
    the chunk axis). ``trace`` has one row per attack when tracing (then run with one
    chunk), or a single scratch row otherwise; the rest are the chunk's working arrays
    (:func:`chunk_scratch`)."""
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    play_encounters(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, trace, n_trace, order,
                    phase_start, trace.shape[0] > 1)  # fmt: skip


@kernel
def run_untraced_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                       rng, order, phase_start):  # fmt: skip
    """:func:`run_chunk` compiled without its trace: what the runner plays untraced (as
    opposed-tiers' ``run_untraced_chunk``, which says why). ``run_chunk`` plays traced
    runs."""
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    play_encounters(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, trace, n_trace, order,
                    phase_start, False)  # fmt: skip


def chunk_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_chunk`: state, standing, RNG, and
    the turn order and Phase starts (which Stances may change)."""
    return (
        np.zeros((N_FIELDS, p.combatant.shape[1]), dtype=np.int64),
        np.zeros(p.globals_[G_N_SIDES], dtype=np.int64),
        new_state(),
        p.order.copy(),
        p.phase_start.copy(),
    )


run_block = chunked(run_chunk, chunk_scratch)
run_untraced_block = chunked(run_untraced_chunk, chunk_scratch)


@kernel
def run_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
                   tables, cursor, pairs):  # fmt: skip
    """:func:`run_chunk` for a plain duel (``compile.duel_attacker``), untraced: the chunk
    plays its slice with :func:`play_duels`. A kernel of its own, so that scenarios that
    are not plain duels never compile the duel path (``trace`` is unused)."""
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, tables, cursor, pairs)


def duel_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_duel_chunk`: those of
    :func:`chunk_scratch` but the turn order, the duel tables, the dice cursor's words
    and the pair loop's table (:func:`pair_table`)."""
    n_slots = p.combatant[C_ATTACK_COUNT, p.globals_[G_DUEL_ATTACKER]]
    width = max(n_slots * OUTCOMES, p.globals_[G_MAX_ROUNDS] + 1)
    st, standing, rng = chunk_scratch(p, t, trace)[:3]
    tables = np.zeros((N_TABLES, width), dtype=np.int64)
    cursor = np.zeros((5, CURSOR_GROUP), dtype=np.uint64)
    return st, standing, rng, tables, cursor, new_pairs()


def new_pairs():
    """The zeroed ``pairs`` array of :func:`pair_loop` (:func:`pair_table` fills it)."""
    return np.zeros(PAIR_ENTRY * 36 * 36, dtype=np.int64)


run_duel_block = chunked(run_duel_chunk, duel_scratch)


def block_kernel(p):
    """The kernel that plays untraced blocks of the compiled scenario ``p``: the plain
    duel path when the scenario is one, else ``run_untraced_block``
    (:func:`run_untraced_chunk` on threads)."""
    return run_duel_block if p.globals_[G_DUEL_ATTACKER] >= 0 else run_untraced_block
