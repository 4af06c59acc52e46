"""Numba kernels of Shattered Spirits, earlier draft (docs/rules/shattered-spirits-draft1.md; seed
000).

Plain functions compiled in :mod:`simlab.engine.jit`. One encounter is
:func:`play_encounter`; :func:`run_block` plays a contiguous range of encounters in
chunks on threads (:func:`run_chunk` plays one), each adding into its own slice of the
tallies; untraced runs use the same, compiled without the trace
(:func:`run_untraced_chunk`). Encounter ``i`` draws every die from the counter-based
RNG keyed by (seed, i, stream): attack rolls and Evade rerolls from ``STREAM_ATTACK``
(as in the later draft), random targets from ``STREAM_TARGET``.

The rules the two drafts share are the later draft's own kernels, imported: the attack
roll (2d6, or 3d6 keeping two) and the choice of a reaction. ``p`` is a
:class:`~simlab.rules.shattered_spirits_draft1.compile.KernelParams`; per-encounter state
lives in one int64 array ``st[field, combatant]`` allocated once per chunk, indexed by
the constants below, ``cursor[side]`` is the next plan slot a side may play in the
current Phase, and ``planned[slot]`` the Phase of each plan slot this Round.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.encounter import (
    batch_bounds,
    choose_target,
    chunk_range,
    clear_state,
    count_round_end,
    count_standing,
    next_in_rotation,
    record_attack,
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
    cursor_at,
    cursor_code,
    dice_source,
    first_blocks,
    new_state,
    start_encounter,
)
from simlab.rules.shattered_spirits.kernels import (
    DAMAGE_OF,
    ENDS,
    N_DICE,
    N_TABLES,
    OUTCOMES,
    PAIR_OF,
    REACT_BLOCK,
    REACT_EVADE,
    REACT_NONE,
    SEEN,
    SPAN,
    TIER_OF,
    attack_roll,
    coded_total,
    new_pairs,
    pair_loop,
    pick_reaction,
    record_outcomes,
)
from simlab.rules.shattered_spirits_draft1.compile import (
    A_DAMAGE_MODIFIER,
    A_GLANCING,
    A_MODIFIER,
    A_NET_ADVANTAGE,
    A_SPEED,
    C_BLOCK_AT,
    C_COVER,
    C_ENDURANCE,
    C_EVADE_AT,
    C_EXPOSED,
    C_FOCUS,
    C_GRIT,
    C_GUARD,
    C_HEALTH,
    C_IMPAIRED,
    C_IMPROVISE_SLOT,
    C_IMPROVISE_USE,
    C_MOMENTUM,
    C_POLICY,
    C_REFLEX,
    C_ROLL_MODIFIER,
    C_SIDE,
    C_VIGOR,
    G_COVER_GUARD,
    G_ENDURANCE_OVERFLOW,
    G_EXPOSED_PER_LEVEL,
    G_FUMBLE_COST,
    G_FUMBLE_EXPOSED,
    G_FUMBLE_TOKENS,
    G_GLANCING_DIVISOR,
    G_IMPAIRED_PER_LEVEL,
    G_IMPROVISE_COST,
    G_MAX_ROUNDS,
    G_MOMENTUM_PER_REFRESH,
    G_N_SIDES,
    G_OVERFLOW_DAMAGE,
    G_REACTION_COST,
    G_ROUND_START_PLAYERS,
    G_SHAKEN_ROLL_MODIFIER,
    G_STATUSES_LAST_ROUND,
    NO_REACTION,
    NONE,
    R_DAMAGE,
    R_EXPOSED,
    R_IMPAIRED,
    R_TIER,
    S_OWNER,
    S_TECHNIQUE,
)

# state fields
(VIGOR, ENDURANCE, HEALTH, LIFE, OUT, SHAKEN, SHAKEN_ROUND, DOWN_ROUND, RECEIVED, DOWN_RECEIVED,
 GRIT, REFLEX, MOMENTUM, FOCUS, EXPOSED, IMPAIRED, IMPROVISED) = range(17)  # fmt: skip
N_FIELDS = 17

# event_round axis 1 (compile.EVENTS)
EVENT_SHAKEN, EVENT_DOWNED = 0, 1

# the plain-duel tables' row counting the round the defender was Shaken in
# (shattered_spirits.kernels: TIER_OF .. ENDS come first)
SHAKEN_IN = N_TABLES

# how a fumble was settled (trace column "fumble")
FUMBLE_NONE, FUMBLE_FOCUS, FUMBLE_MOMENTUM, FUMBLE_EXPOSED = 0, 1, 2, 3
FOCUS_FIRST, MOMENTUM_FIRST = 0, 1

TRACE_COLUMNS = (
    "encounter", "round", "phase", "turn", "attacker", "attack", "defender", "improvised",
    "die1", "die2", "die3", "roll", "reaction", "reroll_die1", "reroll_die2", "reroll_die3",
    "final_roll", "row", "overflow", "tier", "damage", "fumble", "attacker_exposed",
    "attacker_focus", "attacker_momentum", "defender_exposed", "vigor_after",
    "endurance_after", "health_after", "shaken", "downed",
)  # fmt: skip
N_TRACE = len(TRACE_COLUMNS)
COL_DICE = TRACE_COLUMNS.index("die1")
COL_REROLL = TRACE_COLUMNS.index("reroll_die1")
COL_ROLL = TRACE_COLUMNS.index("roll")
COL_FINAL = TRACE_COLUMNS.index("final_roll")
COL_ROW = TRACE_COLUMNS.index("row")
COL_FUMBLE = TRACE_COLUMNS.index("fumble")
COL_VIGOR = TRACE_COLUMNS.index("vigor_after")


@inline_kernel
def result_row(roll):
    """Row index 0..10 (results 2..12) of a modified roll, −1 below 2 (a miss).

    docs/rules/shattered-spirits-draft1.md; seed 000, "Extreme Rolls": above 12 reads the 12 row.
    """
    if roll < 2:
        return -1
    return min(roll, 12) - 2


@inline_kernel
def row_tier(p, technique, row):
    """Tier code of a row: 0 miss, 1 hit, 2 crit (a roll below 2 is a miss)."""
    if row < 0:
        return 0
    return p.rows[R_TIER, technique, row]


@inline_kernel
def technique_damage(p, st, technique, roll, attacker, defender):
    """Damage of a modified ``roll`` against ``defender`` in the earlier draft's order.

    docs/rules/shattered-spirits-draft1.md; seed 000, "Calculating Damage" and "Extreme Rolls": 1.
    the row's damage; 2. + the Technique's damage modifier − Impaired on the attacker, + the
    overflow damage when the roll is above 12 and the row deals any, floor 0;
    3. Glancing divides, rounding up (Cover grants Glancing, or extra Guard when the
    attack already is); 4. + Exposed on the target; 5. − Guard, floor 0. A ``miss`` row
    and a roll below 2 deal nothing.
    """
    row = result_row(roll)
    if row_tier(p, technique, row) == 0:
        return 0
    g = p.globals_
    base = p.rows[R_DAMAGE, technique, row]
    damage = base + p.attack[A_DAMAGE_MODIFIER, technique]
    damage -= st[IMPAIRED, attacker] * g[G_IMPAIRED_PER_LEVEL]
    if roll > 12 and base > 0:
        damage += g[G_OVERFLOW_DAMAGE]
    damage = max(damage, 0)
    guard = p.combatant[C_GUARD, defender]
    glancing = p.attack[A_GLANCING, technique] != 0
    if p.combatant[C_COVER, defender] != 0:
        if glancing:
            guard += g[G_COVER_GUARD]
        else:
            glancing = True
    if glancing:
        damage = (damage + g[G_GLANCING_DIVISOR] - 1) // g[G_GLANCING_DIVISOR]
    damage += st[EXPOSED, defender] * g[G_EXPOSED_PER_LEVEL]
    return max(damage - guard, 0)


@inline_kernel
def react(p, st, defender, tier, damage):
    """The defender's reaction, paid for (docs/rules/shattered-spirits-draft1.md: Block and Evade as
    in §1)."""
    cost = p.globals_[G_REACTION_COST]
    reaction = pick_reaction(
        tier, damage, p.combatant[C_EVADE_AT, defender], p.combatant[C_BLOCK_AT, defender],
        st[REFLEX, defender], st[GRIT, defender], cost,
    )  # fmt: skip
    if reaction == REACT_EVADE:
        st[REFLEX, defender] -= cost
    elif reaction == REACT_BLOCK:
        st[GRIT, defender] -= cost
    return reaction


@inline_kernel
def pay(st, c, field, cost):
    """Pay ``cost`` from token ``field`` of ``c`` if it can; whether it did."""
    if st[field, c] < cost:
        return False
    st[field, c] -= cost
    return True


@inline_kernel
def fumble(p, st, attacker):
    """A modified roll below 2 (docs/rules/shattered-spirits-draft1.md; seed 000, "Extreme Rolls").

    The attacker pays ``fumble_cost`` Focus or Momentum (``fumble_tokens`` says which it
    tries first, or that it never pays), else gains ``fumble_exposed`` Exposed.
    Returns how it was settled (``FUMBLE_*``).
    """
    g = p.globals_
    cost = g[G_FUMBLE_COST]
    order = g[G_FUMBLE_TOKENS]
    if order == FOCUS_FIRST:
        if pay(st, attacker, FOCUS, cost):
            return FUMBLE_FOCUS
        if pay(st, attacker, MOMENTUM, cost):
            return FUMBLE_MOMENTUM
    elif order == MOMENTUM_FIRST:
        if pay(st, attacker, MOMENTUM, cost):
            return FUMBLE_MOMENTUM
        if pay(st, attacker, FOCUS, cost):
            return FUMBLE_FOCUS
    st[EXPOSED, attacker] += g[G_FUMBLE_EXPOSED]
    return FUMBLE_EXPOSED


@inline_kernel
def take_damage(p, st, c, damage, rnd, standing):
    """Vigor, then Endurance, then Health (docs/rules/shattered-spirits-draft1.md; seed 000, "Health
    and Healing").

    Endurance reaching 0 makes ``c`` Shaken (recorded); with ``endurance_overflow``
    false, what an attack deals beyond the last point of Endurance is lost. Health
    reaching 0 Downs ``c``: it is out of the fight.
    """
    absorbed = min(st[VIGOR, c], damage)
    st[VIGOR, c] -= absorbed
    damage -= absorbed
    if st[ENDURANCE, c] > 0 and damage > 0:
        lost = min(st[ENDURANCE, c], damage)
        st[ENDURANCE, c] -= lost
        damage -= lost
        if st[ENDURANCE, c] == 0:
            st[SHAKEN, c] = 1
            st[SHAKEN_ROUND, c] = rnd
            if p.globals_[G_ENDURANCE_OVERFLOW] == 0:
                damage = 0
    st[HEALTH, c] -= min(st[HEALTH, c], damage)
    st[LIFE, c] = st[ENDURANCE, c] + st[HEALTH, c]
    if st[HEALTH, c] == 0 and st[OUT, c] == 0:
        st[OUT, c] = 1
        st[DOWN_ROUND, c] = rnd
        st[DOWN_RECEIVED, c] = st[RECEIVED, c]
        standing[p.combatant[C_SIDE, c]] -= 1


@inline_kernel
def resolve_attack(p, st, rng, attacker, technique, defender, rnd, standing, trace, slot,
                   traced):  # fmt: skip
    """One Technique's attack, from the roll to its damage and statuses
    (docs/rules/shattered-spirits-draft1.md).

    The modified roll (Technique and attacker modifiers, and the Shaken modifier) picks
    the row; the defender, seeing the damage, may react (Evade rerolls the whole attack
    roll, Block lowers it by 1); the final roll decides: below 2 a fumble, else the damage
    goes to Vigor, Endurance and Health and, on a hit, the row's statuses apply. When
    ``traced``, the dice and the outcome go to ``trace[slot]``; returns (tier, damage).

    Inlined into its two call sites: the fights ran 1.22-1.35x as fast as with a call
    (alternated rounds of ``bench_scenarios`` on one thread), for 1.5 s more compile on
    the first run of ``techniques-3v3`` (7.3 -> 8.8 s, three alternated rounds).
    """
    g = p.globals_
    net = p.attack[A_NET_ADVANTAGE, technique]
    modifier = p.attack[A_MODIFIER, technique] + p.combatant[C_ROLL_MODIFIER, attacker]
    if st[SHAKEN, attacker] != 0:
        modifier += g[G_SHAKEN_ROLL_MODIFIER]
    roll = attack_roll(rng, net, 0, trace, slot, COL_DICE, traced) + modifier
    tier = row_tier(p, technique, result_row(roll))
    damage = technique_damage(p, st, technique, roll, attacker, defender)
    reaction = react(p, st, defender, tier, damage)
    final = roll
    if traced:
        for k in range(3):
            trace[slot, COL_REROLL + k] = 0
    if reaction == REACT_EVADE:
        final = attack_roll(rng, net, 0, trace, slot, COL_REROLL, traced) + modifier
    elif reaction == REACT_BLOCK:
        final = roll - 1
    if reaction != REACT_NONE:
        tier = row_tier(p, technique, result_row(final))
        damage = technique_damage(p, st, technique, final, attacker, defender)
    # typed, since fumble returns other constants (see jit.compile_without_ssa)
    settled = np.int64(FUMBLE_NONE)
    if final < 2:
        settled = fumble(p, st, attacker)
    st[RECEIVED, defender] += 1
    was_shaken = st[SHAKEN, defender]
    take_damage(p, st, defender, damage, rnd, standing)
    row = result_row(final)
    if tier > 0 and st[OUT, defender] == 0:
        st[EXPOSED, defender] += p.rows[R_EXPOSED, technique, row]
        st[IMPAIRED, defender] += p.rows[R_IMPAIRED, technique, row]
    if traced:
        ev = trace[slot]
        ev[COL_ROLL], ev[COL_ROLL + 1], ev[COL_FINAL] = roll, reaction, final
        ev[COL_ROW] = row + 2 if row >= 0 else 0
        ev[COL_ROW + 1], ev[COL_ROW + 2] = int(final > 12), tier
        ev[COL_ROW + 3], ev[COL_FUMBLE] = damage, settled
        ev[COL_FUMBLE + 1], ev[COL_FUMBLE + 2] = st[EXPOSED, attacker], st[FOCUS, attacker]
        ev[COL_FUMBLE + 3], ev[COL_FUMBLE + 4] = st[MOMENTUM, attacker], st[EXPOSED, defender]
        ev[COL_VIGOR], ev[COL_VIGOR + 1] = st[VIGOR, defender], st[ENDURANCE, defender]
        ev[COL_VIGOR + 2] = st[HEALTH, defender]
        ev[COL_VIGOR + 3] = int(was_shaken == 0 and st[SHAKEN, defender] != 0)
        ev[COL_VIGOR + 4] = st[OUT, defender]
    return tier, damage


@internal_kernel
def reset(p, st, standing):
    """Start-of-encounter state: full Vigor, Endurance and Health, starting tokens and
    statuses. A combatant that starts with no Endurance is Shaken from the start."""
    clear_state(st)
    for c in range(st.shape[1]):
        st[VIGOR, c] = p.combatant[C_VIGOR, c]
        st[ENDURANCE, c] = p.combatant[C_ENDURANCE, c]
        st[HEALTH, c] = p.combatant[C_HEALTH, c]
        st[LIFE, c] = st[ENDURANCE, c] + st[HEALTH, c]
        st[SHAKEN, c] = int(st[ENDURANCE, c] == 0)
        st[GRIT, c] = p.combatant[C_GRIT, c]
        st[REFLEX, c] = p.combatant[C_REFLEX, c]
        st[MOMENTUM, c] = p.combatant[C_MOMENTUM, c]
        st[FOCUS, c] = p.combatant[C_FOCUS, c]
        st[EXPOSED, c] = p.combatant[C_EXPOSED, c]
        st[IMPAIRED, c] = p.combatant[C_IMPAIRED, c]
    count_standing(p.combatant[C_SIDE], standing)


@inline_kernel
def refresh(p, st):
    """Refresh and Plotting (docs/rules/shattered-spirits-draft1.md; seed 000, "Rounds in Shattered
    Spirits").

    Every combatant still in the fight gains ``momentum_per_refresh`` Momentum; then one
    with an Improvise policy that can pay ``improvise_cost`` Momentum does, and plays the
    policy's Technique in place of the replaced one this Round.
    """
    g = p.globals_
    for c in range(st.shape[1]):
        st[IMPROVISED, c] = 0
        if st[OUT, c] != 0:
            continue
        st[MOMENTUM, c] += g[G_MOMENTUM_PER_REFRESH]
        if p.combatant[C_IMPROVISE_SLOT, c] >= 0 and pay(st, c, MOMENTUM, g[G_IMPROVISE_COST]):
            st[IMPROVISED, c] = 1


@inline_kernel
def slot_technique(p, st, slot):
    """The Technique plan slot ``slot`` plays this Round (its owner may have Improvised)."""
    owner = p.slots[S_OWNER, slot]
    if st[IMPROVISED, owner] != 0 and p.combatant[C_IMPROVISE_SLOT, owner] == slot:
        return p.combatant[C_IMPROVISE_USE, owner]
    return p.slots[S_TECHNIQUE, slot]


@inline_kernel
def slot_phase(p, st, slot):
    """The Phase (1–6, its Technique's speed) in which slot ``slot`` plays this Round, or
    0 when its owner is out of the fight."""
    if st[OUT, p.slots[S_OWNER, slot]] != 0:
        return 0
    return p.attack[A_SPEED, slot_technique(p, st, slot)]


@inline_kernel
def phases_planned(p, st, planned):
    """The Phases in which a Technique is planned this Round by someone still in the
    fight, as a bit mask (bit ``phase`` set); decided at the Refresh, as Improvising is.
    Each slot's Phase this Round (:func:`slot_phase`) goes to ``planned[slot]``."""
    phases = 0
    for slot in range(p.slots.shape[1]):
        planned[slot] = slot_phase(p, st, slot)
        phases |= 1 << planned[slot]
    return phases


@inline_kernel
def next_turn(p, st, planned, cursor, side, phase):
    """The next slot ``side`` plays in ``phase``, from ``cursor[side]`` on, skipping
    combatants out of the fight; −1 when the side has no Turn left in this Phase.

    A slot's Phase is read from ``planned`` (:func:`phases_planned`): it is fixed from
    the Refresh on but for its owner leaving the fight, which is tested live. Working it
    out again for every slot at every Turn (owner, Improvise, Technique, Speed) took a
    third of ``techniques-3v3``'s time."""
    for slot in range(cursor[side], p.side_slots[side + 1]):
        if planned[slot] == phase and st[OUT, p.slots[S_OWNER, slot]] == 0:
            return slot
    return -1


@inline_kernel
def play_phase(p, st, rng, t, ch, batch, rnd, phase, starter, standing, cursor, planned, enc,
               trace, n_trace, traced):  # fmt: skip
    """Every Turn of one Phase (docs/rules/shattered-spirits-draft1.md; seed 000, "Rounds in
    Shattered Spirits").

    Sides alternate Turn by Turn, starting with ``starter``: each Turn goes to the next
    side (in listed order, cyclically) that still has a Technique of this Speed to play;
    a side's Turns are its combatants' slots in listed order. One Technique per Turn,
    each an attack at a target chosen by the combatant's policy, filling a row of
    ``trace`` when ``traced``.

    Returns
    -------
    (int, bool)
        The side that took the last Turn (−1 if nobody acted) and whether the encounter
        is over (at most one side standing).
    """
    n_sides = cursor.shape[0]
    n_combatants = st.shape[1]
    n_techniques = p.attack.shape[1]
    for s in range(n_sides):
        cursor[s] = p.side_slots[s]
    side, last, turn = starter, -1, 0
    while True:
        slot = -1
        s = side
        for _ in range(n_sides):
            slot = next_turn(p, st, planned, cursor, s, phase)
            if slot >= 0:
                side = s
                break
            # No Turn left for this side in this Phase, and none will come: combatants only
            # leave the fight, and plans change only at the Refresh. Skip it from now on.
            cursor[s] = p.side_slots[s + 1]
            s = next_in_rotation(s, n_sides)
        if slot < 0:
            return last, False
        cursor[side] = slot + 1
        c = p.slots[S_OWNER, slot]
        target = choose_target(p.enemies[c], st[OUT], st[LIFE], p.combatant[C_POLICY, c], rng)
        if target < 0:
            return last, True
        turn += 1
        technique = slot_technique(p, st, slot)
        row = min(n_trace[0], trace.shape[0] - 1)
        tier, damage = resolve_attack(p, st, rng, c, technique, target, rnd, standing, trace,
                                      row, traced)  # fmt: skip
        pair = (c * n_techniques + technique) * n_combatants + target
        record_attack(t, ch, pair, batch, tier, damage)
        if traced:
            ev = trace[row]
            ev[0], ev[1], ev[2], ev[3], ev[4], ev[5], ev[6] = (
                enc, rnd, phase, turn, c, technique, target)  # fmt: skip
            ev[7] = int(technique != p.slots[S_TECHNIQUE, slot])
            n_trace[0] += 1
        last = side
        side = next_in_rotation(side, n_sides)
        if sides_standing(standing) <= 1:
            return last, True


@inline_kernel
def end_of_round(p, st):
    """End Phase: Exposed and Impaired gained this Round wear off, when they last a Round
    (``statuses_last: round``)."""
    if p.globals_[G_STATUSES_LAST_ROUND] != 0:
        for c in range(st.shape[1]):
            st[EXPOSED, c] = p.combatant[C_EXPOSED, c]
            st[IMPAIRED, c] = p.combatant[C_IMPAIRED, c]


@internal_kernel
def finish(st, t, ch, last_round, standing):
    """Record the encounter's winner, length, and each combatant's Downed and Shaken."""
    record_outcome(t, ch, last_round, standing, st[DOWN_ROUND], st[DOWN_RECEIVED], 0)
    for c in range(st.shape[1]):
        record_event(t, ch, c, EVENT_DOWNED, st[DOWN_ROUND, c], 0)
        if st[SHAKEN, c] != 0:
            t.event_round[ch, c, EVENT_SHAKEN, st[SHAKEN_ROUND, c]] += 1


@inline_kernel
def play_encounter(p, st, rng, standing, cursor, planned, k0, k1, enc, batch, t, ch, trace,
                   n_trace, traced):  # fmt: skip
    """Play encounter ``enc`` to its end and add it to chunk ``ch`` of the tallies.

    A Round (docs/rules/shattered-spirits-draft1.md) is the Refresh (with Plotting: plans are fixed
    by the scenario), Phases 1–6 and the End Phase. The first listed side (the players) takes the
    fight's first Turn; every later Phase with Turns starts with the side after the one that took
    the previous Phase's last Turn (``round_start: players``: the first listed side starts every
    Round). The encounter ends as soon as at most one side is standing, or after the round cap.
    """
    g = p.globals_
    start_encounter(rng, k0, k1, enc)
    reset(p, st, standing)
    n_sides = cursor.shape[0]
    starter = 0
    last_round = g[G_MAX_ROUNDS]
    for rnd in range(1, g[G_MAX_ROUNDS] + 1):
        refresh(p, st)
        phases = phases_planned(p, st, planned)
        if g[G_ROUND_START_PLAYERS] != 0:
            starter = 0
        over = False
        for phase in range(1, 7):
            if (phases >> phase) & 1 == 0:
                continue  # no Turn in this Phase: play_phase would do nothing
            last, over = play_phase(p, st, rng, t, ch, batch, rnd, phase, starter, standing,
                                    cursor, planned, enc, trace, n_trace, traced)  # fmt: skip
            if last >= 0:
                starter = next_in_rotation(last, n_sides)
            if over:
                break
        if over:
            last_round = rnd
            break
        end_of_round(p, st)
    finish(st, t, ch, last_round, standing)


@inline_kernel
def play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               cursor, planned, traced):  # fmt: skip
    """Play chunk ``ch`` of encounters ``first .. first+count-1``, adding into ``t[ch]``
    (there are ``t.attempts.shape[0]`` chunks, each a contiguous slice; the caller sums
    the chunk axis). ``trace`` has one row per attack when ``traced`` (then run with one
    chunk), or a single scratch row otherwise; the rest are the chunk's working arrays
    (:func:`chunk_scratch`)."""
    n_batches = t.attempts.shape[2]
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    for enc in range(lo, hi):
        batch = enc * n_batches // n_total
        play_encounter(p, st, rng, standing, cursor, planned, k0, k1, enc, batch, t, ch,
                       trace, n_trace, traced)  # fmt: skip


@kernel
def run_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
              cursor, planned):  # fmt: skip
    """:func:`play_chunk`, traced when ``trace`` has more than one row."""
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               cursor, planned, trace.shape[0] > 1)  # fmt: skip


@kernel
def run_untraced_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                       rng, cursor, planned):  # fmt: skip
    """:func:`play_chunk` compiled without its trace: what the runner plays untraced (as
    opposed-tiers' ``run_untraced_chunk``, which says why). ``run_chunk`` plays traced
    runs."""
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               cursor, planned, False)  # fmt: skip


def chunk_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_chunk`: state, standing, RNG, each
    side's plan cursor and each plan slot's Phase this Round."""
    n_sides = p.globals_[G_N_SIDES]
    st = np.zeros((N_FIELDS, p.combatant.shape[1]), dtype=np.int64)
    cursor, planned = np.zeros(n_sides, dtype=np.int64), np.zeros(p.slots.shape[1], np.int64)
    return st, np.zeros(n_sides, dtype=np.int64), new_state(), cursor, planned


run_block = chunked(run_chunk, chunk_scratch)
run_untraced_block = chunked(run_untraced_chunk, chunk_scratch)


@inline_kernel
def duel_attacker_in(p):
    """The attacker of a plain duel: the one of the two combatants that has a plan."""
    return p.slots[S_OWNER, 0] if p.slots.shape[1] > 0 else 0


@internal_kernel
def round_techniques(p, attacker, out):
    """The Techniques a lone attacker plays in one Round, in order, into ``out``; returns
    how many.

    With nobody else acting, every Phase's Turns are the attacker's: its slots of that
    Speed, in plan order (docs/rules/shattered-spirits-draft1.md; seed 000, "Rounds in
    Shattered Spirits"), Phase 1 to 6.
    """
    n = 0
    for phase in range(1, 7):
        for slot in range(p.slots.shape[1]):
            technique = p.slots[S_TECHNIQUE, slot]
            if p.slots[S_OWNER, slot] == attacker and p.attack[A_SPEED, technique] == phase:
                out[n] = technique
                n += 1
    return n


@internal_kernel
def duel_outcomes(p, st, attacker, techniques, tables):
    """Tier and damage of every possible roll of each Technique the attacker plays in a
    Round, in a plain duel (:func:`duel_attacker`).

    The ``j``-th Technique of the Round owns columns ``j * 216 ..`` of ``tables`` (the
    later draft's duel tables, ``shattered_spirits.kernels.play_duels``): its tier and
    damage by dice outcome, by the rules :func:`resolve_attack` applies, and in column
    ``j`` its dice count, their number of outcomes and its tally pair. ``st`` holds the
    start-of-encounter state, which nothing in a plain duel changes but the defender's
    Vigor, Endurance and Health.
    """
    defender = 1 - attacker
    modifier = p.combatant[C_ROLL_MODIFIER, attacker]
    if st[SHAKEN, attacker] != 0:
        modifier += p.globals_[G_SHAKEN_ROLL_MODIFIER]
    for j in range(techniques.shape[0]):
        technique = techniques[j]
        net = p.attack[A_NET_ADVANTAGE, technique]
        n_dice = 2 if net == 0 else 3
        for o in range(6**n_dice):
            roll = coded_total(o, net, 0) + p.attack[A_MODIFIER, technique] + modifier
            tables[TIER_OF, j * OUTCOMES + o] = row_tier(p, technique, result_row(roll))
            damage = technique_damage(p, st, technique, roll, attacker, defender)
            tables[DAMAGE_OF, j * OUTCOMES + o] = damage
        tables[N_DICE, j] = n_dice
        tables[SPAN, j] = 6**n_dice
        tables[PAIR_OF, j] = (attacker * p.attack.shape[1] + technique) * 2 + defender


@inline_kernel
def duel_loop(p, t, ch, lo, hi, n_total, k0, k1, tables, scratch, shaken_at, down_at,
              per_round, first_dice):  # fmt: skip
    """The encounter loop of :func:`play_duels`, given the Techniques a Round and the
    (dice count, outcomes) of the first. Inlined, so that a call with constants compiles
    to a loop without the rotation and its table lookups. The most common duel takes
    the later draft's ``pair_loop`` instead."""
    defender = 1 - duel_attacker_in(p)
    n_batches = t.attempts.shape[2]
    cap = p.globals_[G_MAX_ROUNDS]
    overflow = p.globals_[G_ENDURANCE_OVERFLOW] != 0
    damage_of, seen, n_dice, span = tables[DAMAGE_OF], tables[SEEN], tables[N_DICE], tables[SPAN]
    ends, shaken = tables[ENDS], tables[SHAKEN_IN]
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
            shaken_in = 0 if shaken_at == 0 else -1
            room = down_at if shaken_at == 0 else shaken_at
            j, received, taken, out, rnd = 0, 0, 0, False, 1
            for _ in range(cap * per_round):
                dice = first_dice if per_round == 1 else (n_dice[j], np.uint64(span[j]))
                code, cursor = cursor_code(source, buffer, cursor, dice[0], dice[1])
                k = j * OUTCOMES + code
                seen[k] += 1
                received += 1
                taken += damage_of[k]
                if taken >= room:
                    if shaken_in < 0:
                        shaken_in, room = rnd, down_at
                        taken = taken if overflow else shaken_at
                    if taken >= room:
                        out = True
                        break
                j += 1
                if j == per_round:
                    j = 0
                    rnd += 1
            if shaken_in >= 0:
                shaken[shaken_in] += 1
            if per_round == 1:  # received = rnd: the attacks added once, below
                count_round_end(ends, out, rnd)
            elif out:
                ends[rnd] += 1
                t.down_attacks[ch, defender, min(received, attack_bins - 1)] += 1
            else:
                ends[0] += 1
    record_outcomes(t, ch, batch, tables)
    if per_round == 1:
        record_round_downs(t, ch, ends, defender)


@internal_kernel
def play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, standing, techniques, tables, scratch,
               pairs):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` (:func:`duel_attacker`) exactly as
    :func:`play_encounter` would, on a shorter path.

    Only the attacker acts, always at the defender, and no attack changes a later one's
    tier or damage: no reaction, no status the attacker's rows inflict, no Improvise.
    So there is no target to choose and no Phase to walk through: the attacker plays
    the Round's Techniques (:func:`round_techniques`) in turn, each attack's tier and
    damage is looked up by its dice in tables made once (:func:`duel_outcomes`), and
    attacks are counted by dice outcome and added to the tallies per batch. The dice are
    drawn through a cursor (``rng.cursor_code``): the same dice, from the same stream,
    as the general path rolls. Momentum gained at each Refresh and a fumble's cost
    change nothing a later attack reads, so they are not kept.

    Only the defender's Vigor, Endurance and Health change, so the damage it has taken
    is one local sum (:func:`take_damage` read as totals): it is Shaken when the sum
    reaches its Vigor and Endurance (the excess lost with ``endurance_overflow`` off),
    Downed when it reaches all three. Each duel's end is counted in ``tables[ENDS]`` by
    round and the round it was Shaken in ``tables[SHAKEN_IN]``; both are added to the
    tallies once, by :func:`record_duel_ends`. ``st`` and ``standing`` are scratch for
    the start-of-encounter state.

    The loop itself is :func:`duel_loop`. The most common duel, one Technique of 2d6 a
    Round with ``endurance_overflow`` on (the default), is played two attacks at a time
    by the later draft's ``pair_loop``, which counts the Shaken instead of testing for
    it: with ``endurance_overflow``, becoming Shaken changes nothing the loop reads, so
    each duel is played to the defender's Downing alone (a test of the Shaken inside
    the loop, whose outcome nothing can foresee, made the benchmark duel 1.19-1.37x as
    long, ``bench_ab``, both orders). The pair loop ran 1.06x the copy of
    :func:`duel_loop` it replaced (``bench_ab``, one thread). With
    ``endurance_overflow`` off the Shaken's lost excess changes the damage taken, so it
    is tested for, in a copy of :func:`duel_loop` compiled with that shape as constants:
    the one-copy alternatives measured 0.77x (the general loop) and 0.92x (the count
    behind a flag).
    """
    attacker = duel_attacker_in(p)
    defender = 1 - attacker
    cap = p.globals_[G_MAX_ROUNDS]
    c = p.combatant
    reset(p, st, standing)
    duel_outcomes(p, st, attacker, techniques, tables)
    # damage taken when Shaken (0: Shaken from the start) and when Downed
    shaken_at = c[C_VIGOR, defender] + c[C_ENDURANCE, defender] if st[SHAKEN, defender] == 0 else 0
    down_at = c[C_VIGOR, defender] + c[C_ENDURANCE, defender] + c[C_HEALTH, defender]
    one_of_2d6 = techniques.shape[0] == 1 and tables[N_DICE, 0] == 2
    if one_of_2d6 and p.globals_[G_ENDURANCE_OVERFLOW] != 0:
        pair_loop(t, ch, lo, hi, n_total, k0, k1, tables, scratch, pairs, defender, cap,
                  down_at, shaken_at, tables[SHAKEN_IN], True)  # fmt: skip
    elif one_of_2d6:  # the Shaken's excess is lost: tested for, as it changes the damage
        duel_loop(p, t, ch, lo, hi, n_total, k0, k1, tables, scratch, shaken_at, down_at,
                  1, (2, np.uint64(36)))  # fmt: skip
    else:
        first_dice = (tables[N_DICE, 0], np.uint64(tables[SPAN, 0]))
        duel_loop(p, t, ch, lo, hi, n_total, k0, k1, tables, scratch, shaken_at, down_at,
                  techniques.shape[0], first_dice)  # fmt: skip
    record_duel_ends(t, ch, tables[ENDS], attacker, c[C_SIDE, attacker], cap, EVENT_DOWNED)
    for rnd in range(cap + 1):
        t.event_round[ch, defender, EVENT_SHAKEN, rnd] += tables[SHAKEN_IN, rnd]
    if st[SHAKEN, attacker] != 0:  # Shaken from the start, in every duel
        t.event_round[ch, attacker, EVENT_SHAKEN, 0] += hi - lo


@kernel
def run_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                   techniques, tables, cursor, pairs):  # fmt: skip
    """:func:`run_chunk` for a plain duel (:func:`duel_attacker`), untraced: the chunk
    plays its slice with :func:`play_duels`. A kernel of its own, so that other
    scenarios never compile the duel path (``trace`` is unused)."""
    n = round_techniques(p, duel_attacker_in(p), techniques)
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, standing, techniques[:n], tables, cursor,
               pairs)  # fmt: skip


def duel_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_duel_chunk`: state, standing, the
    Round's Techniques, the duel tables, the dice cursor's words and the pair loop's
    table (``shattered_spirits.kernels.pair_table``)."""
    n_slots = p.slots.shape[1]  # in a plain duel, all the attacker's
    width = max(n_slots * OUTCOMES, p.globals_[G_MAX_ROUNDS] + 1)
    st, standing = chunk_scratch(p, t, trace)[:2]
    techniques = np.zeros(n_slots, dtype=np.int64)
    tables = np.zeros((N_TABLES + 1, width), dtype=np.int64)
    cursor = np.zeros((5, CURSOR_GROUP), dtype=np.uint64)
    return st, standing, techniques, tables, cursor, new_pairs()


run_duel_block = chunked(run_duel_chunk, duel_scratch)


def duel_attacker(p):
    """The attacker of a *plain duel*, or −1 when the encounter is not one.

    A plain duel is one attacker against one defender that never fights back, in which
    nothing that happens changes a later attack's tier or damage: two combatants on two
    sides, only one with a plan, no Improvise, none of its Techniques' rows inflicting
    Exposed (Impaired on the defender changes only the defender's attacks), a defender
    that can never react (each reaction is switched off or costs more tokens than it
    starts with; tokens are never regained). It is the usual way to measure a Technique
    (``scenarios/benchmarks/shattered-spirits-draft1-duel.yaml``); :func:`run_duel_block`
    plays it, with exactly the same results as :func:`run_block`.
    """
    c = p.combatant
    owners = set(p.slots[S_OWNER].tolist())
    if c.shape[1] != 2 or c[C_SIDE, 0] == c[C_SIDE, 1] or len(owners) != 1:
        return -1
    attacker = owners.pop()
    defender = 1 - attacker
    cost = p.globals_[G_REACTION_COST]
    reacts = any(
        c[at, defender] != NO_REACTION and c[tokens, defender] >= cost
        for at, tokens in ((C_EVADE_AT, C_REFLEX), (C_BLOCK_AT, C_GRIT))
    )
    exposing = bool(p.rows[R_EXPOSED, p.slots[S_TECHNIQUE]].any())
    improvises = c[C_IMPROVISE_SLOT, attacker] != NONE
    if reacts or exposing or improvises:
        return -1
    return attacker


def block_kernel(p):
    """The kernel that plays untraced blocks of the compiled scenario ``p``: the plain
    duel path when the scenario is one (:func:`duel_attacker`), else
    ``run_untraced_block`` (:func:`run_untraced_chunk` on threads)."""
    return run_duel_block if duel_attacker(p) >= 0 else run_untraced_block
