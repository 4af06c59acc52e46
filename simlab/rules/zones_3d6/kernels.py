"""Numba kernels of zones-3d6 (docs/rules/zones-3d6.md; seed 004, "Combat").

Plain functions compiled in :mod:`simlab.engine.jit`. One encounter is
:func:`play_encounter`; :func:`run_block` plays a contiguous range of encounters in
chunks on threads (:func:`run_chunk` plays one), each adding into its own slice of the
tallies; untraced runs use the same, compiled without the trace
(:func:`run_untraced_chunk`). Encounter ``i`` draws every die from the counter-based
RNG keyed by (seed, i, stream): attack and Evasion dice from ``STREAM_ATTACK``, damage
dice from ``STREAM_DAMAGE``, initiative and its tie-breaks from ``STREAM_ORDER``,
random targets from ``STREAM_TARGET``.

``p`` is a :class:`~simlab.rules.zones_3d6.compile.KernelParams`. Per-encounter state
lives in one int64 array ``st[field, combatant]`` allocated once per chunk; its
``ORDER`` row holds the turn order (combatant at each position), and ``turns`` the
round's attacks in that order (:func:`plan_turns`). Traced, dice are
written to the attack's trace row ``ev``, which the traced rolls also use as working
memory (untraced, :func:`untraced_roll` keeps them in local variables): nothing here
allocates but :func:`run_block`.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.encounter import (
    attack_in_rotation,
    batch_bounds,
    choose_target,
    chunk_range,
    clear_state,
    count_duel_end,
    count_round_end,
    count_standing,
    initiative_order,
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
    STREAM_DAMAGE,
    STREAM_ORDER,
    cursor_at,
    cursor_code,
    cursor_code_if,
    cursor_dice,
    cursor_fresh,
    cursor_loaded,
    dice_source,
    faces_of_code,
    first_blocks,
    forget_batch,
    new_state,
    outcomes_within,
    roll_d6_sum,
    roll_die,
    roll_die_in_line,
    roll_die_marked,
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
    n = roll_dice_count(p, table, column)
    for i in range(MAX_ROLL_DICE):
        ev[col + i] = roll_die(rng, STREAM_ATTACK, 6) if i < n else 0
    return roll_total(p, ev, col, table, column, n)


@inline_kernel
def untraced_roll(p, rng, table, column):
    """:func:`opposed_roll`'s total without writing its dice anywhere (docs/rules/zones-3d6.md;
    seed 004, "Attacking and Evading"): the kept three held in local variables (without
    advantage, drawn at once and summed by ``rng.roll_d6_sum``; with it, one by one by
    ``rng.roll_die_in_line``: ``edge-vs-no-edge`` 1.08x as fast as with ``roll_die``,
    the other fights 1.00-1.02x, and kept by :func:`keep_best_three`), and the edges
    and pressures applied to their sum.
    Each edge raises a die below 6 by 1, so it adds 1 until the three show 18
    (:func:`apply_edge`, "Edge"); each pressure takes 1 off until they show 3
    (:func:`apply_pressure`, [default]). Draws the same dice, in the same order;
    ``tests/rules/test_zones_rules.py`` checks it against the traced rolls."""
    net = table[ROLL_NET_ADVANTAGE, column]
    if net == 0:  # all three kept: drawn at once, their sum looked up
        three = roll_d6_sum(rng, STREAM_ATTACK, 3)
    else:
        three = keep_best_three(rng, roll_dice_count(p, table, column), net)
    kept = min(three + max(table[ROLL_EDGE, column], 0), 18)
    pressure = max(table[ROLL_PRESSURE, column], 0)
    if p.globals_[G_PRESSURE_TOTAL] != 0:
        return table[ROLL_BONUS, column] - table[ROLL_PRESSURE, column] + kept
    return table[ROLL_BONUS, column] + max(kept - pressure, 3)


@inline_kernel
def keep_best_three(rng, n, net):
    """The sum of the three dice kept of ``n`` d6 rolled one by one with net advantage
    (``net`` > 0: the highest three) or disadvantage (the lowest three)
    (docs/rules/zones-3d6.md [default]: 4d6 keep 3).

    The dice are taken times ``sign`` (+1, or -1 with disadvantage, so that the lowest
    are the highest). The first three are drawn one after the other, not in a loop, and
    put in order (``a`` >= ``b`` >= ``c``) by ``min`` and ``max``; each further die goes
    into place the same way, with no branch on the dice or on which die is drawn. Ties
    do not matter: only the sum is used. Against a loop over all ``n`` dice that
    branched on the die's place and on whether it beat the third (the same dice),
    callgrind, one thread, per attack: the zones-3d6 benchmark fight 512.5 -> 507.3
    instructions, 5.91 -> 5.10 mispredicted branches; ``skirmish`` 503.9 -> 507.3,
    6.04 -> 5.67. All ``n`` in one such loop: 527.7 and 5.52, 518.9 and 5.96 (the loop's exit, four
    dice a roll, then a guess of its own).
    """
    sign = 1 if net > 0 else -1
    x = sign * roll_die_in_line(rng, STREAM_ATTACK, 6)
    y = sign * roll_die_in_line(rng, STREAM_ATTACK, 6)
    z = sign * roll_die_in_line(rng, STREAM_ATTACK, 6)
    a, c = max(max(x, y), z), min(min(x, y), z)
    b = x + y + z - a - c
    for _ in range(n - 3):
        d = sign * roll_die_in_line(rng, STREAM_ATTACK, 6)
        a, b, c = max(a, d), max(b, min(a, d)), max(c, min(b, d))
    return sign * (a + b + c)


@inline_kernel
def roll_dice_count(p, table, column):
    """How many d6 the roll ``table[:, column]`` throws: 3, or 3 + ``advantage_dice``
    with net advantage or disadvantage (docs/rules/zones-3d6.md [default])."""
    return 3 if table[ROLL_NET_ADVANTAGE, column] == 0 else 3 + p.globals_[G_ADVANTAGE_DICE]


@inline_kernel
def roll_total(p, ev, col, table, column, n):
    """The total of a roll whose ``n`` raw dice are at ``ev[col:]``: three kept, edges and
    pressures applied, bonus added (see :func:`opposed_roll`). Writes the adjusted dice
    and the total to ``ev[col + 6:col + 10]``."""
    g = p.globals_
    net = table[ROLL_NET_ADVANTAGE, column]
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
def base_damage(p, rng, ev, attack, defender, traced):
    """Roll the base damage dice; dice showing a Base Defense face count 0 (docs/rules/zones-3d6.md
    "Armor"; seed 004, "Determining Damage Reduction"). When ``traced``, the first four
    dice go to ``ev``.

    The dice are ``rng.roll_die_marked``'s (the same as ``roll_die``'s; the damage stream
    is drawn through this alone, its mark set at the encounter's start,
    :func:`play_encounter`): one compare finds a new batch, where the die's size changes
    with the attack. With :func:`make_attack` tallying a hit and a miss apart, against
    ``roll_die`` and one tally, callgrind, one thread, per attack: the zones-3d6 benchmark
    fight 517.2 -> 502.1 instructions, 4.68 -> 4.38 mispredicted branches;
    ``skirmish`` 514.0 -> 499.8, 5.18 -> 5.10. Each alone: the marked dice 524.2 and
    4.53, 521.4 and 5.14 (more instructions, and as many guesses on ``skirmish``); the
    tallies apart 502.0 and 4.67, 499.1 and 5.24 (fewer instructions, the guesses moved
    to the die's size).
    """
    total = 0
    k = 0
    start = p.attack[A_TERM_START, attack]
    for term in range(start, start + p.attack[A_TERM_COUNT, attack]):
        for _ in range(p.terms[T_COUNT, term]):
            face = roll_die_marked(rng, STREAM_DAMAGE, p.terms[T_SIDES, term])
            if traced and k < MAX_TRACED_DAMAGE_DICE:
                ev[COL_DAMAGE_DICE + k] = face
            k += 1
            total += face_value(p, defender, face)
    return total


@inline_kernel
def cursor_base_damage(p, source, buffer, cursor, attack, defender):
    """:func:`base_damage` of a plain duel, untraced, its dice drawn one by one through a
    cursor of the damage stream whose dice change size (``rng.cursor_dice``: the same
    dice as the RNG state's). Returns the base damage and the cursor."""
    total = 0
    start = p.attack[A_TERM_START, attack]
    for term in range(start, start + p.attack[A_TERM_COUNT, attack]):
        sides = p.terms[T_SIDES, term]
        for _ in range(p.terms[T_COUNT, term]):
            code, cursor = cursor_dice(source, buffer, cursor, 1, sides, np.uint64(sides))
            total += face_value(p, defender, code + 1)
    return total, cursor


@inline_kernel
def face_value(p, defender, face):
    """What a base-damage die showing ``face`` adds: 0 on one of the defender's Base
    Defense faces (docs/rules/zones-3d6.md "Armor"), else the face."""
    return face if p.ignored[defender, face] == 0 else 0


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
def hit_damage(p, rng, ev, attacker, attack, defender, traced):
    """Damage of a hit: base + bonus damage after armor, at least ``minimum_damage``
    (docs/rules/zones-3d6.md: "a hit always deals at least 1"); traced to ``ev`` when
    ``traced``."""
    base = base_damage(p, rng, ev, attack, defender, traced)
    bonus = bonus_damage(p, attacker, attack, defender)
    if traced:
        ev[COL_BASE] = base
        ev[COL_BONUS] = bonus
    return damage_after(p, base, bonus)


@inline_kernel
def damage_after(p, base, bonus):
    """Base plus bonus damage, at least ``minimum_damage`` (docs/rules/zones-3d6.md: "a
    hit always deals at least 1")."""
    return max(base + bonus, p.globals_[G_MINIMUM_DAMAGE])


#: A plain duel looks up the damage of an attack whose base damage is one dice term of at
#: most this many outcomes (1d6: 6, 3d8: 512); other attacks roll it die by die.
MAX_DAMAGE_OUTCOMES = 4096
MAX_TABLED_DICE = 12  # 12d2 = 4096 outcomes; also bounds the faces written to the trace row


@inline_kernel
def damage_is_tabled(n, sides, outcomes, width):
    """Whether the base damage of an attack with one dice term, ``n`` dice of ``sides``
    faces (``outcomes`` rolls), is looked up in a plain duel's damage table ``width``
    rolls wide (:func:`damage_tables`) rather than rolled die by die. The one rule for
    the kernel that fills the table and for :func:`one_attack_duel`, which Python runs."""
    return 1 <= n <= MAX_TABLED_DICE and sides >= 2 and outcomes <= width


@internal_kernel
def damage_tables(p, attacker, defender, damage, damage_dice, damage_sides, damage_spans,
                  ev):  # fmt: skip
    """The damage of every possible base-damage roll of each of the attacker's attacks
    that has a single dice term, for a plain duel.

    ``damage[j, o]`` is the damage of a hit of the attacker's ``j``-th attack when its
    ``damage_dice[j]`` dice of ``damage_sides[j]`` faces read ``o`` in base
    ``damage_sides[j]`` (first die most significant), by the rules of
    :func:`hit_damage`, and ``damage_spans[j]`` their number of outcomes;
    ``damage_dice[j]`` is 0 (and ``damage_spans[j]`` 1) for an attack that rolls
    otherwise. ``ev`` is scratch.
    """
    start = p.combatant[C_ATTACK_START, attacker]
    for j in range(p.combatant[C_ATTACK_COUNT, attacker]):
        attack = p.attack_list[start + j]
        damage_dice[j] = 0
        damage_spans[j] = 1
        if p.attack[A_TERM_COUNT, attack] != 1:
            continue
        term = p.attack[A_TERM_START, attack]
        n, sides = p.terms[T_COUNT, term], p.terms[T_SIDES, term]
        outcomes = outcomes_within(sides, n, damage.shape[1])
        if not damage_is_tabled(n, sides, outcomes, damage.shape[1]):
            continue
        bonus = bonus_damage(p, attacker, attack, defender)
        for o in range(outcomes):
            faces_of_code(o, sides, n, ev)
            base = 0
            for i in range(n):
                base += face_value(p, defender, ev[i])
            damage[j, o] = damage_after(p, base, bonus)
        damage_dice[j] = n
        damage_sides[j] = sides
        damage_spans[j] = outcomes


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
def resolve_attack(p, st, rng, attacker, attack, defender, rnd, standing, ev, traced):
    """One attack: attack roll vs Evasion roll, hit iff attack ≥ Evasion, then damage
    (docs/rules/zones-3d6.md; seed 004, "Attacking and Evading"). Returns (hit, damage).
    Traced to ``ev`` when ``traced``."""
    if traced:
        total = opposed_roll(p, rng, ev, COL_ATTACK, p.attack, attack)
        evasion = opposed_roll(p, rng, ev, COL_EVASION, p.combatant, defender)
    else:
        total = untraced_roll(p, rng, p.attack, attack)
        evasion = untraced_roll(p, rng, p.combatant, defender)
    hit = int(total >= evasion)
    damage = 0
    if traced:
        ev[COL_BASE] = 0
        ev[COL_BONUS] = 0
        for i in range(MAX_TRACED_DAMAGE_DICE):
            ev[COL_DAMAGE_DICE + i] = 0
    st[RECEIVED, defender] += 1
    if hit:  # a miss takes no HP (HP never starts below 0)
        damage = hit_damage(p, rng, ev, attacker, attack, defender, traced)
        take_damage(p, st, defender, damage, rnd, standing)
    if traced:
        ev[COL_HIT], ev[COL_DAMAGE] = hit, damage
        ev[COL_HP_AFTER], ev[COL_OUT] = st[HP, defender], st[OUT, defender]
    return hit, damage


@inline_kernel
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


@inline_kernel
def reset(p, st, standing):
    """Start-of-encounter state: full HP, nobody out."""
    clear_state(st)
    for c in range(st.shape[1]):
        st[HP, c] = p.combatant[C_HP, c]
    count_standing(p.combatant[C_SIDE], standing)


@inline_kernel
def plan_turns(p, st, turns):
    """The round's attacks in the order :func:`play_round` makes them, once an encounter
    (the turn order holds for every round): ``turns[0, j]`` is the actor making the
    round's ``j``-th attack and ``turns[1, j]`` its turn (place in the initiative order,
    from 1). Each actor with attacks makes its ``attacks_per_turn`` (compiled in) in its
    turn, one after the other; actors without attacks have none (docs/rules/zones-3d6.md
    "Per turn")."""
    j = 0
    for k in range(st.shape[1]):
        c = st[ORDER, k]
        if p.combatant[C_ATTACK_COUNT, c] > 0:
            for _ in range(p.combatant[C_ATTACKS_PER_TURN, c]):
                turns[0, j] = c
                turns[1, j] = k + 1
                j += 1


@inline_kernel
def make_attack(p, st, rng, t, ch, batch, c, rnd, turn, standing, enc, trace, n_trace, traced):
    """One attack of actor ``c``'s turn: a target by its policy, its next attack in
    rotation (docs/rules/zones-3d6.md "Per turn").

    Returns False as soon as at most one side is left standing. A hit and a miss are
    tallied apart, the outcome a constant on each side, so that the compiled code
    branches on the hit once (:func:`resolve_attack` takes no HP on a miss); counted
    with :func:`base_damage`'s marked dice (see there).
    """
    n_combatants = st.shape[1]
    n_attacks = p.attack.shape[1]
    target = choose_target(p.enemies[c], st[OUT], st[HP], p.combatant[C_POLICY, c], rng)
    if target < 0:
        return False
    attack = attack_in_rotation(p.attack_list, p.combatant[C_ATTACK_START, c],
                                p.combatant[C_ATTACK_COUNT, c], st, ROTATION, c)  # fmt: skip
    slot = min(n_trace[0], trace.shape[0] - 1)
    ev = trace[slot]
    hit, damage = resolve_attack(p, st, rng, c, attack, target, rnd, standing, ev, traced)
    pair = (c * n_attacks + attack) * n_combatants + target
    if hit:  # the outcome a constant on each side: no second branch on the hit
        record_attack(t, ch, pair, batch, 1, damage)
    else:
        record_attack(t, ch, pair, batch, 0, 0)
    if traced:
        ev[0], ev[1], ev[2], ev[3], ev[4], ev[5] = enc, rnd, turn, c, attack, target
        ev[6] = st[INIT, c]
        n_trace[0] += 1
    return sides_standing(standing) > 1


@inline_kernel
def play_round(p, st, rng, t, ch, batch, rnd, standing, enc, trace, n_trace, traced, turns):
    """Every standing actor takes its turn in initiative order, its attacks one after
    the other; False when the encounter is over.

    The round is one loop over its attacks (:func:`plan_turns`): an actor standing at
    its turn's first attack stands at its last, as only its enemies take damage in it.
    Against a loop over the turns, each a loop over its attacks (the same attacks),
    callgrind, one thread, per attack: the zones-3d6 benchmark fight 507.3 -> 517.2
    instructions, 5.10 -> 4.68 mispredicted branches; ``skirmish`` 507.3 -> 514.0,
    5.67 -> 5.18 (the turn's loop had guessed its end at each turn).
    """
    for j in range(turns.shape[1]):
        c = turns[0, j]
        if st[OUT, c] == 0 and not make_attack(
            p, st, rng, t, ch, batch, c, rnd, turns[1, j], standing, enc, trace, n_trace, traced
        ):
            return False
    return True


@inline_kernel
def finish(st, t, ch, last_round, standing):
    """Record the encounter's winner, length, and each combatant's down round."""
    record_outcome(t, ch, last_round, standing, st[DOWN_ROUND], st[DOWN_RECEIVED], 0)
    for c in range(st.shape[1]):
        record_event(t, ch, c, EVENT_OUT, st[DOWN_ROUND, c], 0)


@inline_kernel
def play_encounter(p, st, rng, standing, turns, k0, k1, enc, batch, t, ch, trace, n_trace,
                   traced):  # fmt: skip
    """Play encounter number ``enc`` to its end and add it to chunk ``ch`` of the tallies."""
    start_encounter(rng, k0, k1, enc)
    forget_batch(rng, STREAM_DAMAGE)  # roll_die_marked's mark (base_damage)
    reset(p, st, standing)
    roll_initiative(p, st, rng)
    plan_turns(p, st, turns)
    max_rounds = p.globals_[G_MAX_ROUNDS]
    last = max_rounds
    for rnd in range(1, max_rounds + 1):
        if not play_round(p, st, rng, t, ch, batch, rnd, standing, enc, trace, n_trace,
                          traced, turns):  # fmt: skip
            last = rnd
            break
    finish(st, t, ch, last, standing)


@inline_kernel
def play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               turns, traced):  # fmt: skip
    """Play chunk ``ch`` of encounters ``first .. first+count-1``, adding into ``t[ch]``
    (there are ``t.attempts.shape[0]`` chunks, each a contiguous slice; the caller sums
    the chunk axis). ``trace`` has one row per attack when ``traced`` (then run with one
    chunk), or a single scratch row otherwise; ``st``, ``standing``, ``rng`` and
    ``turns`` are the chunk's working arrays (:func:`chunk_scratch`)."""
    n_batches = t.attempts.shape[2]
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    for enc in range(lo, hi):
        batch = enc * n_batches // n_total
        play_encounter(p, st, rng, standing, turns, k0, k1, enc, batch, t, ch, trace, n_trace,
                       traced)  # fmt: skip


@kernel
def run_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
              turns):  # fmt: skip
    """:func:`play_chunk`, traced when ``trace`` has more than one row."""
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               turns, trace.shape[0] > 1)  # fmt: skip


@kernel
def run_untraced_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                       rng, turns):  # fmt: skip
    """:func:`play_chunk` compiled without its trace, for untraced runs: the rolls keep
    their dice in local variables (:func:`untraced_roll`) and nothing is written to a
    trace row (opposed-tiers' ``run_untraced_chunk`` says why such writes cost)."""
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               turns, False)  # fmt: skip


def state_scratch(p):
    """An encounter's state, the head count of each side and the RNG state."""
    st = np.zeros((N_FIELDS, p.combatant.shape[1]), dtype=np.int64)
    return st, np.zeros(p.globals_[G_N_SIDES], dtype=np.int64), new_state()


def chunk_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_chunk`: those of
    :func:`state_scratch` and the round's attacks (:func:`plan_turns`), as many as the
    actors with attacks make in a round."""
    c = p.combatant
    armed = c[C_ATTACK_COUNT] > 0
    return (*state_scratch(p), np.zeros((2, int(c[C_ATTACKS_PER_TURN][armed].sum())), np.int64))


run_block = chunked(run_chunk, chunk_scratch)
run_untraced_block = chunked(run_untraced_chunk, chunk_scratch)


@internal_kernel
def roll_tables(p, attacker, defender, tables, dice, spans, ev):
    """The total of every possible attack roll of each of the attacker's attacks, and of
    every possible Evasion roll of the defender, for a plain duel.

    ``tables[j, o]`` is the total of the attacker's ``j``-th attack when its ``dice[j]``
    d6 read ``o`` in base 6 (first die most significant, faces 1..6 as digits 0..5);
    row ``count`` (its number of attacks) holds the defender's Evasion, and ``spans[j]``
    the number of outcomes, ``6 ** dice[j]``. The totals come from :func:`roll_total`,
    the rule the general path applies; ``ev`` is scratch.
    """
    start = p.combatant[C_ATTACK_START, attacker]
    count = p.combatant[C_ATTACK_COUNT, attacker]
    for j in range(count + 1):
        table = p.attack if j < count else p.combatant
        column = p.attack_list[start + j] if j < count else defender
        n = roll_dice_count(p, table, column)
        for i in range(n, MAX_ROLL_DICE):
            ev[i] = 0
        for o in range(6**n):
            faces_of_code(o, 6, n, ev)
            tables[j, o] = roll_total(p, ev, 0, table, column, n)
        dice[j] = n
        spans[j] = 6**n


@internal_kernel
def flush_duel_attacks(p, t, ch, batch, attacker, defender, seen):
    """Add the attacks counted in ``seen`` to the tallies of ``batch``, as
    :func:`record_attack` would one by one, and clear the counts. ``seen[j, 0]`` counts
    the misses of the attacker's ``j``-th attack, ``seen[j, 1 + d]`` its hits dealing
    ``d``."""
    start = p.combatant[C_ATTACK_START, attacker]
    n_attacks = p.attack.shape[1]
    for j in range(p.combatant[C_ATTACK_COUNT, attacker]):
        pair = (attacker * n_attacks + p.attack_list[start + j]) * 2 + defender
        for k in range(seen.shape[1]):
            if seen[j, k] > 0:
                record_attacks(t, ch, pair, batch, int(k > 0), max(k - 1, 0), seen[j, k])
                seen[j, k] = 0


@inline_kernel
def common_damage_sides(dice, count):
    """The faces shared by the damage dice of all ``count`` attacks of a plain duel when
    every attack's damage is tabled (``dice`` rows 1 and 2, see :func:`play_duels`), else
    0: only then can one cursor draw every damage die as the state array would."""
    sides = dice[2, 0]
    for j in range(count):
        if dice[1, j] == 0 or dice[2, j] != sides:
            return 0
    return sides


@inline_kernel
def duel_loop(p, t, ch, lo, hi, n_total, k0, k1, attacker, tables, dice, damage, seen, ends,
              scratch, count, per_turn, damage_sides):  # fmt: skip
    """The encounter loop of :func:`play_duels`, given the attacker's number of attacks
    (``count``), its attacks a turn and the faces of its damage dice when a cursor
    draws them (``damage_sides``, else 0), all known only at run time: the duels of
    one attack a turn with tabled damage, which it once played with those as constants,
    have :func:`one_attack_duels`."""
    defender = 1 - attacker
    n_batches = t.attempts.shape[2]
    start = p.combatant[C_ATTACK_START, attacker]
    cap = p.globals_[G_MAX_ROUNDS]
    hp = p.combatant[C_HP, defender]
    evasion_dice = dice[0, count]
    evasion_span = np.uint64(dice[3, count])
    bins = seen.shape[1]
    # the tables flat and indexed by unsigned numbers: numba then computes no strides and
    # no wraparound for a negative index (see glitters-d20's one_attack_duels)
    flat_tables, flat_damage, counted = tables.reshape(-1), damage.reshape(-1), seen.reshape(-1)
    width, damage_width = np.uint64(tables.shape[1]), np.uint64(damage.shape[1])
    at_evasion, bins_row = np.uint64(count) * width, np.uint64(bins)
    words, buffer, damage_buffer, damage_words = scratch[:4], scratch[4], scratch[5], scratch[6:]
    source = dice_source(k0, k1, STREAM_ATTACK, 6)
    damage_source = dice_source(k0, k1, STREAM_DAMAGE, max(damage_sides, 2))
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, words.shape[1]):
        first_blocks(source, first, words)
        if damage_sides > 0:
            first_blocks(damage_source, first, damage_words)
        for enc in range(first, min(first + words.shape[1], hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                flush_duel_attacks(p, t, ch, batch, attacker, defender, seen)
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            cursor = cursor_at(words, enc - first, enc, buffer)
            if damage_sides > 0:
                damage_cursor = cursor_at(damage_words, enc - first, enc, damage_buffer)
            else:
                damage_cursor = cursor_fresh(enc, damage_buffer)
            # the damage dice when their faces differ: no dice in hand at the start
            mixed_cursor = (damage_cursor[0], damage_cursor[1], np.int64(0))
            slot = 0
            received = 0
            taken = 0
            last = 0
            rnd = 1
            in_turn = 0
            # one loop over the attacks, counting turns and rounds, as shattered-spirits'
            # duel does: nested round and turn loops left by a second test ran 0.93x
            for _ in range(cap * per_turn):
                roll_dice, roll_span = dice[0, slot], np.uint64(dice[3, slot])
                damage_dice, damage_span = dice[1, slot], np.uint64(dice[4, slot])
                code, cursor = cursor_code(source, buffer, cursor, roll_dice, roll_span)
                total = flat_tables[np.uint64(slot) * width + np.uint64(code)]
                code, cursor = cursor_code(source, buffer, cursor, evasion_dice, evasion_span)
                evasion = flat_tables[at_evasion + np.uint64(code)]
                dealt = 0
                hit = total >= evasion
                if damage_sides > 0:  # a hit's damage dice, without a branch on the hit
                    code, damage_cursor = cursor_code_if(damage_source, damage_buffer,
                                                         damage_cursor, damage_dice,
                                                         damage_span, hit)  # fmt: skip
                    dealt = flat_damage[np.uint64(slot) * damage_width + np.uint64(code)] * hit
                    outcome = (1 + dealt) * hit
                elif hit:
                    if dice[1, slot] > 0:
                        code, mixed_cursor = cursor_dice(damage_source, damage_buffer,
                                                         mixed_cursor, dice[1, slot],
                                                         dice[2, slot], damage_span)  # fmt: skip
                        dealt = damage[slot, code]
                    else:
                        attack = p.attack_list[start + slot]
                        base, mixed_cursor = cursor_base_damage(p, damage_source, damage_buffer,
                                                                mixed_cursor, attack,
                                                                defender)  # fmt: skip
                        dealt = damage_after(p, base, bonus_damage(p, attacker, attack, defender))
                    outcome = 1 + dealt
                else:
                    outcome = 0
                if outcome < bins:  # never negative: dealt is at least minimum_damage
                    counted[np.uint64(slot) * bins_row + np.uint64(outcome)] += 1
                else:  # more damage than the tally has bins for: counted on its own
                    pair = (attacker * p.attack.shape[1] + p.attack_list[start + slot]) * 2
                    record_attacks(t, ch, pair + defender, batch, 1, dealt, 1)
                slot = next_in_rotation(slot, count)
                received += 1
                taken += dealt
                if taken > hp:
                    last = rnd
                    break
                in_turn += 1
                if in_turn == per_turn:  # the turn, and so the round, is over
                    in_turn = 0
                    rnd += 1
            count_duel_end(t, ch, ends, defender, last > 0, last, received)
    flush_duel_attacks(p, t, ch, batch, attacker, defender, seen)
    record_duel_ends(t, ch, ends, attacker, p.combatant[C_SIDE, attacker], cap, EVENT_OUT)


@internal_kernel
def play_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tables, dice, damage, seen, ends,
               scratch):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` (see :func:`duel_attacker`) exactly as
    :func:`play_encounter` would, on a shorter path.

    In a plain duel the attacker's target is always the defender, so no target is chosen
    (random targets draw from a stream nothing else uses) and no initiative is rolled
    (the defender's turn does nothing and the order stream feeds nothing else). Each
    attack roll, Evasion roll and base-damage roll is drawn as one number through a
    cursor (:func:`~simlab.engine.rng.cursor_code`: the same dice as one die at a time)
    and looked up in tables made once per run (:func:`roll_tables`,
    :func:`damage_tables`); an attack whose damage has no table rolls it die by die, as
    :func:`hit_damage` does. Only HP
    changes between attacks, so the damage is summed in a local variable until it
    exceeds the defender's HP (:func:`take_damage`); attacks are counted by outcome in
    ``seen`` and added to the tallies once per batch (:func:`flush_duel_attacks`), and
    the duels' ends by round in ``ends`` (``engine.encounter.record_duel_ends``).

    ``dice`` holds, per attack slot, the roll's dice (row 0; column ``count`` the
    Evasion's), the damage dice and their faces (rows 1 and 2, 0 dice: no table), the
    roll's number of outcomes (row 3) and the damage roll's (row 4). The attack and
    Evasion dice are drawn through a cursor held in local variables (block 0 of
    ``CURSOR_GROUP`` encounters at a time into ``scratch[:4]``, its buffer
    ``scratch[4]``), and so are the damage dice when every attack's damage is tabled
    with dice of the same faces (block 0 also a group at a time, into ``scratch[6:]``,
    its buffer ``scratch[5]``). That cursor reads a hit's damage dice for every attack
    and moves past them only on a hit (:func:`~simlab.engine.rng.cursor_code_if`), so
    that no branch waits on the hit. Otherwise a hit's damage dice come through a cursor
    whose dice change size (:func:`~simlab.engine.rng.cursor_dice`, the same buffer), as
    one number for a tabled attack and die by die for the others
    (:func:`cursor_base_damage`): no RNG state is used.

    The loop is :func:`duel_loop`. The most common duel, one attack a turn whose damage
    is tabled, is played by a kernel of its own with a shorter loop
    (:func:`run_one_attack_duel_chunk`, :func:`one_attack_duels`).
    """
    count = p.combatant[C_ATTACK_COUNT, attacker]
    per_turn = p.combatant[C_ATTACKS_PER_TURN, attacker]
    damage_sides = common_damage_sides(dice, count)
    duel_loop(p, t, ch, lo, hi, n_total, k0, k1, attacker, tables, dice, damage, seen, ends,
              scratch, count, per_turn, damage_sides)  # fmt: skip


@inline_kernel
def duel_tables(p, ev, tables, dice, damage):
    """Build a plain duel's roll and damage tables (:func:`roll_tables`,
    :func:`damage_tables`) and return its attacker, the combatant with attacks."""
    c = p.combatant
    attacker = 0 if c[C_ATTACK_COUNT, 0] > 0 and c[C_ATTACKS_PER_TURN, 0] > 0 else 1
    roll_tables(p, attacker, 1 - attacker, tables, dice[0], dice[3], ev)
    damage_tables(p, attacker, 1 - attacker, damage, dice[1], dice[2], dice[4], ev)
    return attacker


@kernel
def run_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
                   ev, tables, dice, damage, seen, ends, cursor):  # fmt: skip
    """:func:`run_chunk` for a plain duel (:func:`duel_attacker`), untraced: the chunk
    builds the tables once and plays its slice with :func:`play_duels`. A kernel of its
    own, so that other scenarios never compile the duel path."""
    attacker = duel_tables(p, ev, tables, dice, damage)
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    play_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tables, dice, damage, seen, ends,
               cursor)  # fmt: skip


@kernel
def run_one_attack_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st,
                              standing, rng, ev, tables, dice, damage, seen, ends,
                              cursor):  # fmt: skip
    """:func:`run_duel_chunk` for a plain duel whose attacker has one attack, with tabled
    damage (:func:`one_attack_duel`): the same working arrays (:func:`duel_scratch`),
    played by :func:`one_attack_duels`; its duels' ends are counted by the attacks the
    defender received, and those turned into rounds.
    A kernel of its own, so that neither duel compiles the other's loop (one kernel with
    both compiled 8-10 s longer)."""
    play_one_attack_chunk(p, k0, k1, first, count, n_total, t, ch, ev, tables, dice, damage,
                          seen, ends, cursor, False)  # fmt: skip


@kernel
def run_planned_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st,
                           standing, rng, ev, tables, dice, damage, seen, ends,
                           cursor):  # fmt: skip
    """:func:`run_one_attack_duel_chunk` for a duel of one attack whose damage is not
    tabled (:func:`planned_duel`: two dice terms, or too many outcomes): a hit's dice
    drawn die by die. A kernel of its own, so that the tabled loop compiles without this
    one."""
    play_one_attack_chunk(p, k0, k1, first, count, n_total, t, ch, ev, tables, dice, damage,
                          seen, ends, cursor, True)  # fmt: skip


@inline_kernel
def play_one_attack_chunk(p, k0, k1, first, count, n_total, t, ch, ev, tables, dice, damage,
                          seen, ends, cursor, planned):  # fmt: skip
    """Build a one-attack duel's tables and play chunk ``ch`` of it with
    :func:`one_attack_duels` (its damage tabled, or die by die when ``planned``), then
    add its duels' ends to the tallies."""
    attacker = duel_tables(p, ev, tables, dice, damage)
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    one_attack_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tables, dice, damage, seen,
                     ends, cursor, planned)  # fmt: skip
    defender = 1 - attacker
    record_round_downs(t, ch, ends, defender)
    rounds_of_attacks(ends, p.combatant[C_ATTACKS_PER_TURN, attacker])
    record_duel_ends(t, ch, ends, attacker, p.combatant[C_SIDE, attacker],
                     p.globals_[G_MAX_ROUNDS], EVENT_OUT)  # fmt: skip


@inline_kernel
def one_attack_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tables, dice, damage, seen,
                     ends, scratch, planned):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` of one attack, made once or more a turn, with
    tabled damage (:func:`one_attack_duel`) as :func:`duel_loop` would, on a shorter
    loop: the same
    dice in the same order (the roll and Evasion from one cursor, the damage from
    another, started with its first word drawn by :func:`~simlab.engine.rng.cursor_loaded`
    and read only on a hit by :func:`~simlab.engine.rng.cursor_code_if`), the same
    tables (:func:`duel_tables`) and counts, with what :func:`duel_loop` keeps for any
    number of attacks a turn left out. Each downed defender is counted by the attacks
    it received (``count_round_end``, ``ends`` ``cap * per_turn + 1`` long); the caller
    adds those to the tallies (``record_round_downs``) and turns them into rounds
    (:func:`rounds_of_attacks`). Counting the round instead, when a turn has several
    attacks, made ``zones-3d6-duel`` 0.98x as fast.
    Fewer values live across the loop, which :func:`duel_loop` with the same shape as
    constants kept on the stack: ``zones-3d6-duel`` 1.07x as fast (``bench_ab``), its
    first run about 1.4 s shorter.

    When ``planned`` (a constant of the calling kernel, :func:`run_planned_duel_chunk`)
    the damage is not tabled: a hit's dice come die by die through a cursor whose dice
    change size (:func:`cursor_base_damage`), after a branch on the hit."""
    defender = 1 - attacker
    n_batches = t.attempts.shape[2]
    cap = p.globals_[G_MAX_ROUNDS]
    per_turn = p.combatant[C_ATTACKS_PER_TURN, attacker]
    most = cap * per_turn  # attacks before the round cap
    hp = p.combatant[C_HP, defender]
    roll_dice, roll_span = dice[0, 0], np.uint64(dice[3, 0])
    evasion_dice, evasion_span = dice[0, 1], np.uint64(dice[3, 1])
    damage_dice, damage_span = dice[1, 0], np.uint64(dice[4, 0])
    bins = seen.shape[1]
    totals, evasions, damage_of, counted = tables[0], tables[1], damage[0], seen[0]
    words, buffer, damage_buffer, damage_words = scratch[:4], scratch[4], scratch[5], scratch[6:]
    source = dice_source(k0, k1, STREAM_ATTACK, 6)
    damage_source = dice_source(k0, k1, STREAM_DAMAGE, max(dice[2, 0], 2))
    attack = p.attack_list[p.combatant[C_ATTACK_START, attacker]]
    pair = (attacker * p.attack.shape[1] + attack) * 2 + defender
    bonus = bonus_damage(p, attacker, attack, defender)
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, words.shape[1]):
        first_blocks(source, first, words)
        if not planned:
            first_blocks(damage_source, first, damage_words)
        for enc in range(first, min(first + words.shape[1], hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                flush_duel_attacks(p, t, ch, batch, attacker, defender, seen)
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            cursor = cursor_at(words, enc - first, enc, buffer)
            if planned:
                x, left = cursor_fresh(enc, damage_buffer)
                damage_cursor = (np.uint64(0), np.int64(0))
                mixed_cursor = (x, left, np.int64(0))  # no dice in hand
            else:
                damage_cursor = cursor_loaded(damage_source, damage_words, enc - first, enc,
                                              damage_buffer)  # fmt: skip
                mixed_cursor = (np.uint64(0), np.int64(0), np.int64(0))
            taken = 0
            made = 0
            while taken <= hp and made < most:
                made += 1
                code, cursor = cursor_code(source, buffer, cursor, roll_dice, roll_span)
                total = totals[np.uint64(code)]
                code, cursor = cursor_code(source, buffer, cursor, evasion_dice, evasion_span)
                hit = total >= evasions[np.uint64(code)]
                if planned:
                    dealt = 0
                    if hit:
                        base, mixed_cursor = cursor_base_damage(p, damage_source, damage_buffer,
                                                                mixed_cursor, attack,
                                                                defender)  # fmt: skip
                        dealt = damage_after(p, base, bonus)
                else:
                    code, damage_cursor = cursor_code_if(damage_source, damage_buffer,
                                                         damage_cursor, damage_dice, damage_span,
                                                         hit)  # fmt: skip
                    dealt = damage_of[np.uint64(code)] * hit
                outcome = (1 + dealt) * hit
                if outcome < bins:  # never negative: dealt is at least minimum_damage
                    counted[np.uint64(outcome)] += 1
                else:  # more damage than the tally has bins for: counted on its own
                    record_attacks(t, ch, pair, batch, 1, dealt, 1)
                taken += dealt
            count_round_end(ends, taken > hp, made)  # by attacks made (rounds_of_attacks)
    flush_duel_attacks(p, t, ch, batch, attacker, defender, seen)


@internal_kernel
def rounds_of_attacks(ends, per_turn):
    """Turn the duels that :func:`one_attack_duels` counted in ``ends`` by the attacks
    their defender received before going down (``ends[m]``, ``m`` from 1) into duels by
    round, ``per_turn`` attacks a round: attack ``m`` is made in round
    ``ceil(m / per_turn)``. In place, from the first: each round's count lands where a
    count of attacks has already been moved. ``ends[0]``, the draws, stays."""
    if per_turn == 1:
        return
    for made in range(1, ends.shape[0]):
        rnd = (made + per_turn - 1) // per_turn
        n = ends[made]
        ends[made] = 0
        ends[rnd] += n


def duel_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_duel_chunk`: those of
    :func:`state_scratch`, a trace row, the roll and damage tables with their dice,
    attack counts, duel ends by round (or by attacks made) and the dice cursors' words
    and buffers."""
    c, attacker = p.combatant, duel_attacker(p)
    n_slots = c[C_ATTACK_COUNT, attacker] + 1
    width = 6 ** (3 + int(p.globals_[G_ADVANTAGE_DICE]))
    # duel ends by attacks made, at most the round cap's (one_attack_duels)
    most_attacks = p.globals_[G_MAX_ROUNDS] * int(c[C_ATTACKS_PER_TURN, attacker])
    return (
        *state_scratch(p),
        np.zeros(N_TRACE, dtype=np.int64),
        np.zeros((n_slots, width), dtype=np.int64),
        np.zeros((5, n_slots), dtype=np.int64),
        np.zeros((n_slots, MAX_DAMAGE_OUTCOMES), dtype=np.int64),
        np.zeros((n_slots, t.damage_hist.shape[2] + 1), dtype=np.int64),
        np.zeros(most_attacks + 1, dtype=np.int64),
        np.zeros((10, CURSOR_GROUP), dtype=np.uint64),
    )


run_duel_block = chunked(run_duel_chunk, duel_scratch)
run_one_attack_duel_block = chunked(run_one_attack_duel_chunk, duel_scratch)
run_planned_duel_block = chunked(run_planned_duel_chunk, duel_scratch)


def duel_attacker(p):
    """The attacker of a *plain duel*, or −1 when the encounter is not one.

    A plain duel is two combatants on two sides of which only one ever attacks (the
    other has no attacks or no attacks per turn): the usual way to measure an attack
    (``scenarios/benchmarks/zones-3d6-duel.yaml``). Nothing in zones-3d6 changes a later
    attack but HP, so such a duel is played by :func:`run_duel_block`.
    """
    c = p.combatant
    if c.shape[1] != 2 or c[C_SIDE, 0] == c[C_SIDE, 1]:
        return -1
    armed = [k for k in range(2) if c[C_ATTACK_COUNT, k] > 0 and c[C_ATTACKS_PER_TURN, k] > 0]
    return armed[0] if len(armed) == 1 else -1


def planned_duel(p):
    """Whether the plain duel of ``p`` (:func:`duel_attacker`) is one whose attacker has
    one attack (made once or more a turn) whose damage is not tabled
    (:func:`one_attack_duel`): :func:`run_planned_duel_block` plays it."""
    c, attacker = p.combatant, duel_attacker(p)
    return bool(c[C_ATTACK_COUNT, attacker] == 1 and not one_attack_duel(p))


def one_attack_duel(p):
    """Whether the plain duel of ``p`` (:func:`duel_attacker`) is one whose attacker has
    one attack (made once or more a turn) whose damage is tabled (one dice term,
    :func:`damage_is_tabled`): :func:`run_one_attack_duel_block` plays it."""
    c, attacker = p.combatant, duel_attacker(p)
    if c[C_ATTACK_COUNT, attacker] != 1:
        return False
    attack = p.attack_list[c[C_ATTACK_START, attacker]]
    if p.attack[A_TERM_COUNT, attack] != 1:
        return False
    term = p.attack[A_TERM_START, attack]
    n, sides = int(p.terms[T_COUNT, term]), int(p.terms[T_SIDES, term])
    tabled = getattr(damage_is_tabled, "py_func", damage_is_tabled)  # the kernel's rule
    return bool(tabled(n, sides, sides**n, MAX_DAMAGE_OUTCOMES))


def block_kernel(p):
    """The kernel that plays untraced blocks of the compiled scenario ``p``: when the
    scenario is a plain duel (:func:`duel_attacker`), ``run_one_attack_duel_block`` for
    one attack with tabled damage (:func:`one_attack_duel`), ``run_planned_duel_block``
    for one attack whose damage is not (:func:`planned_duel`), or else
    ``run_duel_block``; otherwise ``run_untraced_block`` (:func:`run_untraced_chunk` on
    threads)."""
    if duel_attacker(p) < 0:
        return run_untraced_block
    if one_attack_duel(p):
        return run_one_attack_duel_block
    return run_planned_duel_block if planned_duel(p) else run_duel_block
