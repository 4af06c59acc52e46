"""Numba kernels of zones-3d6 (docs/rules/zones-3d6.md; seed 004, "Combat").

Plain functions compiled in :mod:`simlab.engine.jit`. One encounter is
:func:`play_encounter`; :func:`run_block` plays a contiguous range of encounters in
parallel chunks, each chunk adding into its own slice of the tallies. Encounter ``i``
draws every die from the counter-based RNG keyed by (seed, i, stream): attack and
Evasion dice from ``STREAM_ATTACK``, damage dice from ``STREAM_DAMAGE``, initiative and
its tie-breaks from ``STREAM_ORDER``, random targets from ``STREAM_TARGET``.

``p`` is a :class:`~simlab.rules.zones_3d6.compile.KernelParams`. Per-encounter state
lives in one int64 array ``st[field, combatant]`` allocated once per chunk; its
``ORDER`` row holds the turn order (combatant at each position). Dice are written to
the attack's trace row ``ev`` (a scratch row when not tracing), which doubles as the
kernels' only working memory: nothing here allocates but :func:`run_block`.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.encounter import (
    attack_in_rotation,
    choose_target,
    chunk_range,
    clear_state,
    count_standing,
    initiative_order,
    record_attack,
    record_event,
    record_outcome,
    sides_standing,
)
from simlab.engine.jit import inline_kernel, kernel, parallel_kernel, prange
from simlab.engine.rng import (
    STREAM_ATTACK,
    STREAM_DAMAGE,
    STREAM_ORDER,
    new_state,
    roll_die,
    start_encounter,
)
from simlab.rules.zones_3d6.compile import (
    A_BONUS_DAMAGE,
    A_TERM_COUNT,
    A_TERM_START,
    C_ATTACK_COUNT,
    C_ATTACK_START,
    C_ATTACKS_PER_TURN,
    C_BONUS_DAMAGE,
    C_BONUS_DEFENSE,
    C_HP,
    C_INITIATIVE,
    C_POLICY,
    C_SIDE,
    G_ADVANTAGE_DICE,
    G_BONUS_DEFENSE_FLOOR,
    G_INITIATIVE_DIE,
    G_MAX_ROUNDS,
    G_MINIMUM_DAMAGE,
    G_N_SIDES,
    G_PRESSURE_TOTAL,
    G_RANDOM_TIES,
    ROLL_BONUS,
    ROLL_EDGE,
    ROLL_NET_ADVANTAGE,
    ROLL_PRESSURE,
    T_COUNT,
    T_SIDES,
)

# state fields
HP, OUT, DOWN_ROUND, RECEIVED, DOWN_RECEIVED, ROTATION, INIT, ORDER = range(8)
N_FIELDS = 8

# event_round axis 1 (compile.EVENTS)
EVENT_OUT = 0

MAX_ROLL_DICE = 6  # 3 kept + at most 3 advantage dice
MAX_TRACED_DAMAGE_DICE = 4

TRACE_COLUMNS = (
    "encounter", "round", "turn", "attacker", "attack", "defender", "initiative",
    "atk_die1", "atk_die2", "atk_die3", "atk_die4", "atk_die5", "atk_die6",
    "atk_kept1", "atk_kept2", "atk_kept3", "atk_total",
    "eva_die1", "eva_die2", "eva_die3", "eva_die4", "eva_die5", "eva_die6",
    "eva_kept1", "eva_kept2", "eva_kept3", "eva_total",
    "hit", "dmg_die1", "dmg_die2", "dmg_die3", "dmg_die4", "base_damage", "bonus_damage",
    "damage", "hp_after", "out",
)  # fmt: skip
N_TRACE = len(TRACE_COLUMNS)
# Columns of a roll: raw dice (6), then kept and adjusted dice (3), then the total.
COL_ATTACK = TRACE_COLUMNS.index("atk_die1")
COL_EVASION = TRACE_COLUMNS.index("eva_die1")
COL_HIT = TRACE_COLUMNS.index("hit")
COL_DAMAGE_DICE = TRACE_COLUMNS.index("dmg_die1")
COL_BASE, COL_BONUS, COL_DAMAGE, COL_HP_AFTER, COL_OUT = range(COL_DAMAGE_DICE + 4, N_TRACE)


@inline_kernel
def apply_edge(dice, start, steps):
    """Raise one die by 1 per edge, never above 6 (docs/rules/zones-3d6.md "Edge"; seed 004).

    Each step raises the highest die still below 6 (the text's example: 2, 4, 5 becomes
    2, 4, 6), so each step adds 1 to the total until every die shows 6.

    Parameters
    ----------
    dice : ndarray of int64
        Changed in place: the three dice ``dice[start:start + 3]``.
    start : int
        Index of the first die.
    steps : int
        Number of edges to apply.
    """
    for _ in range(steps):
        best = -1
        for i in range(start, start + 3):
            if dice[i] < 6 and (best < 0 or dice[i] > dice[best]):
                best = i
        if best < 0:
            return
        dice[best] += 1


@inline_kernel
def apply_pressure(dice, start, steps):
    """Lower one die by 1 per pressure, never below 1 (docs/rules/zones-3d6.md [default], mirror of
    edge): each step lowers the lowest die still above 1.

    Parameters
    ----------
    dice : ndarray of int64
        Changed in place: the three dice ``dice[start:start + 3]``.
    start : int
        Index of the first die.
    steps : int
        Number of pressures to apply.
    """
    for _ in range(steps):
        best = -1
        for i in range(start, start + 3):
            if dice[i] > 1 and (best < 0 or dice[i] < dice[best]):
                best = i
        if best < 0:
            return
        dice[best] -= 1


@inline_kernel
def keep_three(ev, col, n, net):
    """Copy three of the ``n`` dice at ``ev[col:]`` to ``ev[col + 6:col + 9]``, in roll
    order: the highest three with advantage (``net`` > 0), the lowest with disadvantage
    (docs/rules/zones-3d6.md [default]: 4d6 keep 3). Ties drop the first such die."""
    dropped = 0
    for _ in range(n - 3):
        worst = -1
        for i in range(n):
            if (dropped >> i) & 1:
                continue
            d = ev[col + i]
            if worst < 0 or (d < ev[col + worst] if net > 0 else d > ev[col + worst]):
                worst = i
        dropped |= 1 << worst
    k = col + MAX_ROLL_DICE
    for i in range(n):
        if not (dropped >> i) & 1:
            ev[k] = ev[col + i]
            k += 1


@inline_kernel
def opposed_roll(p, rng, ev, col, table, column):
    """An attack or Evasion roll: 3d6, adjusted, plus bonuses (docs/rules/zones-3d6.md; seed 004,
    "Attacking and Evading").

    ``table[:, column]`` holds the roll's edge steps, pressure steps, net advantage and
    bonus (``ROLL_*``). With net advantage or disadvantage, ``advantage_dice`` more dice
    are rolled and three kept; then the edges and pressures adjust the kept dice.
    Raw dice, adjusted dice and total go to ``ev[col:col + 10]``; returns the total.
    """
    g = p.globals_
    net = table[ROLL_NET_ADVANTAGE, column]
    n = 3 if net == 0 else 3 + g[G_ADVANTAGE_DICE]
    for i in range(MAX_ROLL_DICE):
        ev[col + i] = roll_die(rng, STREAM_ATTACK, 6) if i < n else 0
    keep_three(ev, col, n, net)
    kept = col + MAX_ROLL_DICE
    apply_edge(ev, kept, table[ROLL_EDGE, column])
    total = table[ROLL_BONUS, column]
    if g[G_PRESSURE_TOTAL] != 0:
        total -= table[ROLL_PRESSURE, column]
    else:
        apply_pressure(ev, kept, table[ROLL_PRESSURE, column])
    total += ev[kept] + ev[kept + 1] + ev[kept + 2]
    ev[kept + 3] = total
    return total


@inline_kernel
def base_damage(p, rng, ev, attack, defender):
    """Roll the base damage dice; dice showing a Base Defense face count 0 (docs/rules/zones-3d6.md
    "Armor"; seed 004, "Determining Damage Reduction"). The first four dice are traced."""
    total = 0
    k = 0
    start = p.attack[A_TERM_START, attack]
    for term in range(start, start + p.attack[A_TERM_COUNT, attack]):
        for _ in range(p.terms[T_COUNT, term]):
            face = roll_die(rng, STREAM_DAMAGE, p.terms[T_SIDES, term])
            if k < MAX_TRACED_DAMAGE_DICE:
                ev[COL_DAMAGE_DICE + k] = face
            k += 1
            if p.ignored[defender, face] == 0:
                total += face
    return total


@inline_kernel
def bonus_damage(p, attacker, attack, defender):
    """Bonus damage less Bonus Defense (docs/rules/zones-3d6.md; seed 004, "Damage and Defense").

    The weapon's constant plus the attacker's ``bonus_damage``; Bonus Defense takes at
    most the positive bonus away (``bonus_defense_floor``), or all of it may.
    """
    bonus = p.attack[A_BONUS_DAMAGE, attack] + p.combatant[C_BONUS_DAMAGE, attacker]
    defense = p.combatant[C_BONUS_DEFENSE, defender]
    if p.globals_[G_BONUS_DEFENSE_FLOOR] != 0:
        defense = min(defense, max(bonus, 0))
    return bonus - defense


@inline_kernel
def hit_damage(p, rng, ev, attacker, attack, defender):
    """Damage of a hit: base + bonus damage after armor, at least ``minimum_damage``
    (docs/rules/zones-3d6.md: "a hit always deals at least 1")."""
    base = base_damage(p, rng, ev, attack, defender)
    bonus = bonus_damage(p, attacker, attack, defender)
    ev[COL_BASE] = base
    ev[COL_BONUS] = bonus
    return max(base + bonus, p.globals_[G_MINIMUM_DAMAGE])


@inline_kernel
def take_damage(p, st, c, damage, rnd, standing):
    """Lower ``c``'s HP; below 0 it is out and down in round ``rnd`` (docs/rules/zones-3d6.md "HP":
    at exactly 0 it still acts)."""
    st[HP, c] -= damage
    if st[HP, c] < 0 and st[OUT, c] == 0:
        st[OUT, c] = 1
        st[DOWN_ROUND, c] = rnd
        st[DOWN_RECEIVED, c] = st[RECEIVED, c]
        standing[p.combatant[C_SIDE, c]] -= 1


@inline_kernel
def resolve_attack(p, st, rng, attacker, attack, defender, rnd, standing, ev):
    """One attack: attack roll vs Evasion roll, hit iff attack ≥ Evasion, then damage
    (docs/rules/zones-3d6.md; seed 004, "Attacking and Evading"). Returns (hit, damage)."""
    total = opposed_roll(p, rng, ev, COL_ATTACK, p.attack, attack)
    evasion = opposed_roll(p, rng, ev, COL_EVASION, p.combatant, defender)
    hit = int(total >= evasion)
    damage = 0
    ev[COL_BASE] = 0
    ev[COL_BONUS] = 0
    for i in range(MAX_TRACED_DAMAGE_DICE):
        ev[COL_DAMAGE_DICE + i] = 0
    if hit:
        damage = hit_damage(p, rng, ev, attacker, attack, defender)
    st[RECEIVED, defender] += 1
    take_damage(p, st, defender, damage, rnd, standing)
    ev[COL_HIT], ev[COL_DAMAGE] = hit, damage
    ev[COL_HP_AFTER], ev[COL_OUT] = st[HP, defender], st[OUT, defender]
    return hit, damage


@kernel
def roll_initiative(p, st, rng):
    """Turn order for the encounter (docs/rules/zones-3d6.md "Turn order" [default]).

    Each actor rolls the initiative die once, plus its bonus, in listed order; the
    highest acts first. Ties go in a random order (the order is shuffled before a stable
    sort), or in listed order with ``initiative_ties: listed``.
    """
    g = p.globals_
    for c in range(st.shape[1]):
        rolled = roll_die(rng, STREAM_ORDER, g[G_INITIATIVE_DIE])
        st[INIT, c] = rolled + p.combatant[C_INITIATIVE, c]
    initiative_order(rng, st[INIT], st[INIT], g[G_RANDOM_TIES], st[ORDER])


@kernel
def reset(p, st, standing):
    """Start-of-encounter state: full HP, nobody out."""
    clear_state(st)
    for c in range(st.shape[1]):
        st[HP, c] = p.combatant[C_HP, c]
    count_standing(p.combatant[C_SIDE], standing)


@kernel
def take_turn(p, st, rng, t, ch, batch, c, rnd, turn, standing, enc, trace, n_trace):
    """Actor ``c``'s turn: one attack per Major action it spends on attacking, capped by
    ``attacks_per_turn`` (compiled in), attacks in rotation (docs/rules/zones-3d6.md "Per turn").

    Returns False as soon as at most one side is left standing.
    """
    count = p.combatant[C_ATTACK_COUNT, c]
    if count == 0:
        return True
    n_combatants = st.shape[1]
    n_attacks = p.attack.shape[1]
    for _ in range(p.combatant[C_ATTACKS_PER_TURN, c]):
        target = choose_target(
            p.combatant[C_SIDE], st[OUT], st[HP], p.combatant[C_POLICY, c], rng, c
        )
        if target < 0:
            return False
        attack = attack_in_rotation(p.attack_list, p.combatant[C_ATTACK_START, c], count, st,
                                    ROTATION, c)  # fmt: skip
        slot = min(n_trace[0], trace.shape[0] - 1)
        ev = trace[slot]
        hit, damage = resolve_attack(p, st, rng, c, attack, target, rnd, standing, ev)
        record_attack(t, ch, (c * n_attacks + attack) * n_combatants + target, batch, hit, damage)
        if trace.shape[0] > 1:
            ev[0], ev[1], ev[2], ev[3], ev[4], ev[5] = enc, rnd, turn, c, attack, target
            ev[6] = st[INIT, c]
            n_trace[0] += 1
        if sides_standing(standing) <= 1:
            return False
    return True


@kernel
def play_round(p, st, rng, t, ch, batch, rnd, standing, enc, trace, n_trace):
    """Every standing actor takes its turn in initiative order; False when it is over."""
    for k in range(st.shape[1]):
        c = st[ORDER, k]
        if st[OUT, c] == 0 and not take_turn(
            p, st, rng, t, ch, batch, c, rnd, k + 1, standing, enc, trace, n_trace
        ):
            return False
    return True


@kernel
def finish(p, st, t, ch, last_round, standing):
    """Record the encounter's winner, length, and each combatant's down round."""
    record_outcome(t, ch, last_round, standing, st[DOWN_ROUND], st[DOWN_RECEIVED], 0)
    for c in range(st.shape[1]):
        record_event(t, ch, c, EVENT_OUT, st[DOWN_ROUND, c], 0)


@kernel
def play_encounter(p, st, rng, standing, k0, k1, enc, batch, t, ch, trace, n_trace):
    """Play encounter number ``enc`` to its end and add it to chunk ``ch`` of the tallies."""
    start_encounter(rng, k0, k1, enc)
    reset(p, st, standing)
    roll_initiative(p, st, rng)
    max_rounds = p.globals_[G_MAX_ROUNDS]
    last = max_rounds
    for rnd in range(1, max_rounds + 1):
        if not play_round(p, st, rng, t, ch, batch, rnd, standing, enc, trace, n_trace):
            last = rnd
            break
    finish(p, st, t, ch, last, standing)


@parallel_kernel
def run_block(p, k0, k1, first, count, n_total, t, trace, n_trace):
    """Play encounters ``first .. first+count-1`` in parallel chunks.

    Chunk ``ch`` (there are ``t.attempts.shape[0]``) plays a contiguous slice and adds
    into ``t[ch]``; the caller sums the chunk axis. ``trace`` has one row per attack when
    tracing (then run with one chunk), or a single scratch row otherwise.
    """
    chunks = t.attempts.shape[0]
    n_batches = t.attempts.shape[2]
    n_combatants = p.combatant.shape[1]
    n_sides = p.globals_[G_N_SIDES]
    for chunk in prange(chunks):
        ch = np.int64(chunk)  # one type for callees: see jit.parallel_kernel
        st = np.zeros((N_FIELDS, n_combatants), dtype=np.int64)
        standing = np.zeros(n_sides, dtype=np.int64)
        rng = new_state()
        events = trace if trace.shape[0] > 1 else np.zeros((1, N_TRACE), dtype=np.int64)
        lo, hi = chunk_range(first, count, ch, chunks)
        for enc in range(lo, hi):
            batch = enc * n_batches // n_total
            play_encounter(p, st, rng, standing, k0, k1, enc, batch, t, ch, events, n_trace)


def block_kernel(p):
    """The kernel that plays untraced blocks of the compiled scenario ``p`` (this system
    has one path: :func:`run_block`)."""
    return run_block
