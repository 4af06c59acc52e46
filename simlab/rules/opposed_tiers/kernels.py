"""Numba kernels of opposed-tiers (docs/rules/opposed-tiers.md; seed 002, "The Attack!" to "Order").

Plain functions compiled in :mod:`simlab.engine.jit`. One encounter is
:func:`play_encounter`; :func:`run_block` plays a contiguous range of encounters in
chunks on threads (:func:`run_chunk` plays one), each adding into its own slice of the
tallies; untraced runs use the same, compiled without the trace
(:func:`run_untraced_chunk`).

Encounter ``i`` draws every die from the counter-based RNG keyed by (seed, i, stream):
attack dice from ``STREAM_ATTACK``, defense and shield dice from ``STREAM_REACTION``
(the defender's answer to the attack), damage dice from ``STREAM_DAMAGE``, armor dice
from ``STREAM_SAVE`` (a mitigation roll), the Reflex checks of turn order and their
tie-breaks from ``STREAM_ORDER``, random targets from ``STREAM_TARGET``. Giving the
defender's and the armor's dice streams of their own means adding a shield or armor to
a scenario does not shift the attack or damage dice (common random numbers).

``p`` is a :class:`~simlab.rules.opposed_tiers.compile.KernelParams`. Per-encounter
state lives in one int64 array ``st[field, combatant]`` allocated once per chunk; its
``ORDER`` row holds the turn order. Traced, dice faces are written to the attack's
trace row ``ev``; ``scratch`` holds the dice of one term while its kept dice are
summed. Nothing here allocates but :func:`run_block`.

A combatant's condition (``LEVEL``) follows its Health: 0 standing, 1 falling
(Health ≤ 0: down), 2 unconscious (≤ −Vigor/2), 3 dead (< −Vigor). Whether it still
takes turns (``ACTS``) and whether enemies may still pick it (``UNTARGETABLE``) follow
from that condition and the [default] parameters; a side counts as standing while one
of its combatants still acts.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.encounter import (
    attack_in_rotation,
    batch_bounds,
    choose_target,
    chunk_range,
    clear_state,
    count_duel_attack,
    count_duel_attacks,
    count_duel_end,
    count_round_end,
    count_standing,
    flush_attack_counts,
    next_in_rotation,
    record_attack,
    record_duel_ends,
    record_event,
    record_outcome,
    record_round_downs,
    sides_standing,
    sort_by_initiative,
)
from simlab.engine.jit import chunked, inline_kernel, internal_kernel, kernel, unlikely
from simlab.engine.rng import (
    CURSOR_GROUP,
    MAX_SUMMED_D6,
    STREAM_ATTACK,
    STREAM_DAMAGE,
    STREAM_ORDER,
    STREAM_REACTION,
    STREAM_SAVE,
    cursor_at,
    cursor_code,
    cursor_fresh,
    cursor_loaded,
    dice_source,
    faces_of_code,
    first_blocks,
    new_state,
    outcomes_within,
    roll_d6_sum,
    roll_dice_code,
    roll_die,
    split_code,
    split_magic,
    start_encounter,
    sum_kept,
    uniform_index,
)
from simlab.rules.opposed_tiers.compile import (
    A_DAMAGE_MODIFIER,
    A_MODIFIER,
    A_RANGED,
    C_ARMOR_DICE,
    C_ATTACK_COUNT,
    C_ATTACK_DICE,
    C_ATTACK_START,
    C_ATTACKS_PER_TURN,
    C_CRITICAL_DICE,
    C_DAMAGE_DICE,
    C_DEAD_BELOW,
    C_DEFENSE_DICE,
    C_DEFENSE_SL,
    C_FALLS_OUT,
    C_FORM_SL,
    C_HIDDEN,
    C_HP,
    C_POLICY,
    C_REFLEX,
    C_SHIELD_DICE,
    C_SIDE,
    C_UNCONSCIOUS_AT,
    C_WEAPON_SL,
    E_CONSTANT,
    E_COUNT,
    E_ONE_DIE,
    E_START,
    E_WHOLE_D6,
    G_DAMAGE_FLOOR,
    G_FALLEN_FIGHT_ON,
    G_INITIATIVE_DICE,
    G_MAX_ROUNDS,
    G_N_SIDES,
    G_RANDOM_TIES,
    G_SCRATCH,
    G_SURPRISE,
    G_SURPRISE_ARMOR,
    G_TARGET_FALLEN,
    G_TARGET_UNCONSCIOUS,
    NO_DICE,
)

# state fields
(HP, LEVEL, ACTS, UNTARGETABLE, DOWN_ROUND, UNCONSCIOUS_ROUND, DEAD_ROUND, OUT_ROUND,
 RECEIVED, DOWN_RECEIVED, ROTATION, INIT, ORDER, NEXT, PREV, FIRST) = range(16)  # fmt: skip
N_FIELDS = 16
NOT_YET = -1  # round of an event that has not happened (round 0 is the surprise round)
# the round's list of those who take turns (NEXT, PREV; its first in FIRST[0]): link_turns
NOBODY = -1  # the end of the list
UNLINKED = -2  # the PREV of a combatant not in the list

# conditions (LEVEL)
STANDING, FALLING, UNCONSCIOUS, DEAD = range(4)

# event_round axis 1 (compile.EVENTS)
EVENT_OUT, EVENT_UNCONSCIOUS, EVENT_DEAD = range(3)

ROLL_SLOTS = 6  # traced dice of an attack, defense or damage roll
GEAR_SLOTS = 2  # traced dice of a shield or armor roll

TRACE_COLUMNS = (
    "encounter", "round", "turn", "attacker", "attack", "defender", "surprise",
    "initiative",
    "atk_die1", "atk_die2", "atk_die3", "atk_die4", "atk_die5", "atk_die6", "atk_roll",
    "atk_total",
    "def_die1", "def_die2", "def_die3", "def_die4", "def_die5", "def_die6", "def_roll",
    "shield_die1", "shield_die2", "shield_roll", "def_total",
    "hit", "crit",
    "dmg_die1", "dmg_die2", "dmg_die3", "dmg_die4", "dmg_die5", "dmg_die6", "dmg_roll",
    "armor_die1", "armor_die2", "armor_roll",
    "damage", "hp_after", "state_after", "out",
)  # fmt: skip
N_TRACE = len(TRACE_COLUMNS)
COL_ATTACK = TRACE_COLUMNS.index("atk_die1")
COL_ATTACK_TOTAL = TRACE_COLUMNS.index("atk_total")
COL_DEFENSE = TRACE_COLUMNS.index("def_die1")
COL_SHIELD = TRACE_COLUMNS.index("shield_die1")
COL_DEFENSE_TOTAL = TRACE_COLUMNS.index("def_total")
COL_HIT = TRACE_COLUMNS.index("hit")
COL_DAMAGE_DICE = TRACE_COLUMNS.index("dmg_die1")
COL_ARMOR = TRACE_COLUMNS.index("armor_die1")
COL_DAMAGE, COL_HP_AFTER, COL_STATE, COL_OUT = range(TRACE_COLUMNS.index("damage"), N_TRACE)


@inline_kernel
def roll_expr(p, rng, stream, e, scratch, ev, col, slots):
    """Roll dice expression ``e`` (an index into ``p.exprs``) and return its total.

    Every die comes from ``stream``, term by term, in order; keep-highest/lowest terms
    sum their kept dice. The first ``slots`` faces, in roll order, go to
    ``ev[col:col + slots]`` (0 for dice not rolled) and the total to
    ``ev[col + slots]``. ``slots`` = 0 records nothing, and then an expression that is a
    few d6 added up (``E_WHOLE_D6``, the tiers' rolls) is one :func:`roll_d6_sum`, one
    of a single die (``E_ONE_DIE``, shields and armor) one :func:`roll_die`: the same
    dice, without the walk over its terms and dice. Other expressions (``2d6+1d4``) roll
    die by die. ``e`` = ``NO_DICE`` (no shield or armor) rolls nothing and totals 0.

    Inlined: each call site's stream, trace columns and slots are constants there, and
    the fights ran 1.34-1.38x as fast as with a call (four alternated rounds of
    ``bench_scenarios`` on one thread), for 1.4 s more compile on the first run.
    """
    total = 0
    k = 0
    if e != NO_DICE:
        total = p.exprs[E_CONSTANT, e]
        whole, one = p.exprs[E_WHOLE_D6, e], p.exprs[E_ONE_DIE, e]
        if slots == 0 and 1 <= whole <= MAX_SUMMED_D6:  # the usual tiers' roll: 3d6, 2d6
            return total + roll_d6_sum(rng, stream, whole)
        if slots == 0 and one > 0:  # a shield's or armor's 1d8
            return total + roll_die(rng, stream, one)
        start = p.exprs[E_START, e]
        for term in range(start, start + p.exprs[E_COUNT, e]):
            count = p.terms[term, 0]
            faces = 0
            for i in range(count):
                face = roll_die(rng, stream, p.terms[term, 1])
                scratch[i] = face
                faces += face
                if k < slots:
                    ev[col + k] = face
                k += 1
            if p.terms[term, 2] != 0:  # keeps some of its dice (sum_kept's keep_mode)
                faces = sum_kept(scratch, count, p.terms[term, 2], p.terms[term, 3])
            total += p.terms[term, 4] * faces
    if slots > 0:
        for i in range(k, slots):
            ev[col + i] = 0
        ev[col + slots] = total
    return total


@inline_kernel
def clear(ev, col, n):
    """Zero ``ev[col:col + n]``: a roll that was not made."""
    for i in range(col, col + n):
        ev[i] = 0


@inline_kernel
def traced_slots(traced, slots):
    """The dice of a roll written to its trace row: ``slots`` when ``traced``, else none
    (see :func:`run_untraced_chunk`)."""
    return slots if traced else 0


@inline_kernel
def defense_total(p, rng, defender, scratch, ev, traced):
    """Defense = combat-defense dice + defense SL + the shield's dice, no SL
    (docs/rules/opposed-tiers.md; seed 002, "Defense!", "Shield")."""
    cb = p.combatant
    rolled = roll_expr(p, rng, STREAM_REACTION, cb[C_DEFENSE_DICE, defender], scratch, ev,
                       COL_DEFENSE, traced_slots(traced, ROLL_SLOTS))  # fmt: skip
    shield = roll_expr(p, rng, STREAM_REACTION, cb[C_SHIELD_DICE, defender], scratch, ev,
                       COL_SHIELD, traced_slots(traced, GEAR_SLOTS))  # fmt: skip
    return defense_of(p, defender, rolled, shield)


@inline_kernel
def defense_of(p, defender, rolled, shield):
    """Defense from its rolled dice and the shield's: + defense SL (the shield has none;
    docs/rules/opposed-tiers.md; seed 002, "Defense!", "Shield")."""
    return rolled + defense_bonus(p, defender) + shield


@inline_kernel
def defense_bonus(p, defender):
    """What :func:`defense_of` adds to the dice: the defender's defense SL."""
    return p.combatant[C_DEFENSE_SL, defender]


@inline_kernel
def attack_total(p, attacker, attack, rolled):
    """Attack from its rolled weapon dice: + weapon SL + the weapon's modifier
    (docs/rules/opposed-tiers.md; seed 002, "The Attack!")."""
    return rolled + attack_bonus(p, attacker, attack)


@inline_kernel
def attack_bonus(p, attacker, attack):
    """What :func:`attack_total` adds to the dice: weapon SL + the weapon's modifier."""
    return p.combatant[C_WEAPON_SL, attacker] + p.attack[A_MODIFIER, attack]


@inline_kernel
def defended_outcome(total, defense):
    """(hit, critical) of a defended attack: it hits iff it beats the defense (a tie goes
    to the defender), and is a critical iff it is at least twice the defense
    (docs/rules/opposed-tiers.md; seed 002, "Defense!", "Critical")."""
    hit = total > defense
    return hit, hit and total >= 2 * defense


@inline_kernel
def damage_of(p, attacker, attack, rolled, armor):
    """Damage from the rolled combat-form dice and armor dice: + form SL + the weapon's
    damage modifier − armor, never below ``damage_floor`` (docs/rules/opposed-tiers.md;
    seed 002, "Combat form skills", "Armor")."""
    return floored_damage(rolled, armor, damage_bonus(p, attacker, attack),
                          p.globals_[G_DAMAGE_FLOOR])  # fmt: skip


@inline_kernel
def damage_bonus(p, attacker, attack):
    """What :func:`damage_of` adds to the dice: form SL + the weapon's damage modifier."""
    return p.combatant[C_FORM_SL, attacker] + p.attack[A_DAMAGE_MODIFIER, attack]


@inline_kernel
def floored_damage(rolled, armor, bonus, floor):
    """:func:`damage_of` given its ``bonus`` (:func:`damage_bonus`) and ``floor``
    (``damage_floor``): ``rolled + bonus - armor``, never below ``floor``."""
    return max(rolled + bonus - armor, floor)


@inline_kernel
def hit_damage(p, rng, attacker, attack, defender, critical, armored, scratch, ev, traced):
    """Damage of a hit: combat-form dice (a critical: the next tier's, ``C_CRITICAL_DICE``)
    + form SL + the weapon's damage modifier − the armor's dice, never below
    ``damage_floor`` (docs/rules/opposed-tiers.md; seed 002, "Combat form skills", "Critical",
    "Armor")."""
    cb = p.combatant
    dice = cb[C_CRITICAL_DICE, attacker] if critical else cb[C_DAMAGE_DICE, attacker]
    rolled = roll_expr(p, rng, STREAM_DAMAGE, dice, scratch, ev, COL_DAMAGE_DICE,
                       traced_slots(traced, ROLL_SLOTS))  # fmt: skip
    armor = 0
    if armored:
        armor = roll_expr(p, rng, STREAM_SAVE, cb[C_ARMOR_DICE, defender], scratch, ev,
                          COL_ARMOR, traced_slots(traced, GEAR_SLOTS))  # fmt: skip
    elif traced:
        clear(ev, COL_ARMOR, GEAR_SLOTS + 1)
    return damage_of(p, attacker, attack, rolled, armor)


@inline_kernel
def condition(p, c, hp):
    """Condition at Health ``hp`` (docs/rules/opposed-tiers.md; seed 002, "falling", "unconscious"):
    dead below −Vigor, unconscious at or below −Vigor/2, falling at or below 0."""
    if hp < p.combatant[C_DEAD_BELOW, c]:
        return DEAD
    if hp <= p.combatant[C_UNCONSCIOUS_AT, c]:
        return UNCONSCIOUS
    if hp <= 0:
        return FALLING
    return STANDING


@inline_kernel
def update_role(p, st, c, rnd, standing, linked):
    """Whether ``c`` still takes turns and may still be attacked, from its condition.

    NPCs that fall out (``npcs_fall_out``) leave at falling. Otherwise a falling
    character acts only with ``fallen_fight_on`` and stays a target with
    ``target_fallen`` (or while it fights on); an unconscious one stays a target only
    with ``target_unconscious``; the dead leave. Once it neither acts nor is a target
    it is out of the fight (the ``out`` event). When it stops taking turns it leaves
    the round's list of turns if ``linked`` (:func:`link_turns`; the plain duels keep
    none).
    """
    g = p.globals_
    level = st[LEVEL, c]
    if p.combatant[C_FALLS_OUT, c] != 0 and level >= FALLING:
        acts = 0
        target = 0
    else:
        fight_on = g[G_FALLEN_FIGHT_ON] != 0
        acts = int(level == STANDING or (level == FALLING and fight_on))
        target = int(level == STANDING
                     or (level == FALLING and (g[G_TARGET_FALLEN] != 0 or fight_on))
                     or (level == UNCONSCIOUS and g[G_TARGET_UNCONSCIOUS] != 0))  # fmt: skip
    if st[ACTS, c] != 0 and acts == 0:
        standing[p.combatant[C_SIDE, c]] -= 1
        if linked:
            leave_turns(st, c)
    st[ACTS, c] = acts
    st[UNTARGETABLE, c] = 1 - target
    if acts == 0 and target == 0 and st[OUT_ROUND, c] == NOT_YET:
        st[OUT_ROUND, c] = rnd


@inline_kernel
def take_damage(p, st, c, damage, rnd, standing, linked):
    """Take ``damage`` off ``c``'s Health and record the thresholds it crosses: falling
    (down, time-to-down), unconscious, dead (docs/rules/opposed-tiers.md).

    Above 0 Health its condition is standing, which leaves its condition and role as
    they were: the usual hit returns at once. Returns whether the encounter is over (at
    most one side has anyone standing), which only a fall can change: asked only here,
    on the fall's branch, instead of after every attack (a loop over the sides), the
    end of the encounter costs no branch of its own on the usual attack: instructions
    and mispredicted branches an attack (callgrind's branch model, one thread) of
    ``party-fight`` 582.5 / 4.82 -> 566.0 / 4.43, of the benchmark fight 532.4 / 4.29
    -> 513.3 / 4.08.
    """
    st[HP, c] -= damage
    if st[HP, c] > 0:
        return False
    level = max(condition(p, c, st[HP, c]), st[LEVEL, c])
    st[LEVEL, c] = level
    if level >= FALLING and st[DOWN_ROUND, c] == NOT_YET:
        st[DOWN_ROUND, c] = rnd
        st[DOWN_RECEIVED, c] = st[RECEIVED, c]
    if level >= UNCONSCIOUS and st[UNCONSCIOUS_ROUND, c] == NOT_YET:
        st[UNCONSCIOUS_ROUND, c] = rnd
    if level >= DEAD and st[DEAD_ROUND, c] == NOT_YET:
        st[DEAD_ROUND, c] = rnd
    update_role(p, st, c, rnd, standing, linked)
    return sides_standing(standing) <= 1


@inline_kernel
def resolve_attack(p, st, rng, attacker, attack, defender, rnd, surprise, standing, scratch, ev,
                   traced):  # fmt: skip
    """One attack (docs/rules/opposed-tiers.md; seed 002, "The Attack!", "Defense!"). Returns the
    tier (0 miss, 1 hit, 2 critical), the damage and whether the encounter is over
    (:func:`take_damage`).

    Attack = weapon dice + weapon SL + the weapon's modifier; it hits iff it beats the
    defense (a tie goes to the defender) and is a critical iff it is at least twice the
    defense. In the surprise round a ranged attack is not defended against (defense 0)
    and cannot be a critical; armor still applies unless ``surprise_armor`` is false.
    """
    cb = p.combatant
    rolled = roll_expr(p, rng, STREAM_ATTACK, cb[C_ATTACK_DICE, attacker], scratch, ev,
                       COL_ATTACK, traced_slots(traced, ROLL_SLOTS))  # fmt: skip
    total = attack_total(p, attacker, attack, rolled)
    undefended = surprise != 0 and p.attack[A_RANGED, attack] != 0
    defense = 0
    if not undefended:
        defense = defense_total(p, rng, defender, scratch, ev, traced)
    elif traced:
        clear(ev, COL_DEFENSE, COL_DEFENSE_TOTAL - COL_DEFENSE)
    hit, critical = defended_outcome(total, defense)
    critical = critical and not undefended
    damage = 0
    if hit:
        armored = not undefended or p.globals_[G_SURPRISE_ARMOR] != 0
        damage = hit_damage(p, rng, attacker, attack, defender, critical, armored, scratch, ev,
                            traced)  # fmt: skip
    elif traced:
        clear(ev, COL_DAMAGE_DICE, COL_DAMAGE - COL_DAMAGE_DICE)
    st[RECEIVED, defender] += 1
    over = take_damage(p, st, defender, damage, rnd, standing, True)
    tier = 2 if critical else int(hit)
    if traced:
        ev[COL_ATTACK_TOTAL], ev[COL_DEFENSE_TOTAL] = total, defense
        ev[COL_HIT], ev[COL_HIT + 1], ev[COL_DAMAGE] = int(hit), int(critical), damage
        ev[COL_HP_AFTER], ev[COL_STATE] = st[HP, defender], st[LEVEL, defender]
        ev[COL_OUT] = int(st[OUT_ROUND, defender] != NOT_YET)
    return tier, damage, over


@internal_kernel
def roll_initiative(p, st, rng, scratch, ev):
    """Turn order, once per combat (docs/rules/opposed-tiers.md [default]; seed 002, "Order").

    Each combatant makes a Reflex check — ``initiative_dice`` + its ``reflex`` SL — in
    listed order; positions are filled from the highest check down. Among tied checks
    the next position goes to one of them drawn uniformly (``initiative_ties: random``)
    or to the first listed.

    The checks are sorted once, ties in listed order (the first listed wins with fixed
    ties), and then :func:`draw_tied_places` fills the places of each run of equal
    checks with the same draws as taking the highest check left, one place at a time.
    """
    n = st.shape[1]
    for c in range(n):
        rolled = roll_expr(p, rng, STREAM_ORDER, p.globals_[G_INITIATIVE_DICE], scratch, ev,
                           0, 0)  # fmt: skip
        st[INIT, c] = rolled + p.combatant[C_REFLEX, c]
        st[ORDER, c] = c
    sort_by_initiative(st[INIT], st[INIT], st[ORDER])
    if p.globals_[G_RANDOM_TIES] != 0:
        draw_tied_places(rng, st[INIT], st[ORDER])


@inline_kernel
def draw_tied_places(rng, init, order):
    """Shuffle each run of equal ``init`` in ``order`` (sorted, runs in listed order) as
    :func:`roll_initiative` reads random ties: place ``k`` (from 0) of a run of ``m`` goes
    to one of the ``m - k`` combatants left, drawn from ``STREAM_ORDER``, and the others
    keep their listed order; the last one left takes the last place without a draw."""
    n = order.shape[0]
    start = 0
    while start < n:
        end = start + 1
        while end < n and init[order[end]] == init[order[start]]:
            end += 1
        for place in range(start, end - 1):
            pick = uniform_index(rng, STREAM_ORDER, end - place)
            chosen = order[place + pick]
            for i in range(place + pick, place, -1):
                order[i] = order[i - 1]
            order[place] = chosen
        start = end


@inline_kernel
def reset(p, st, standing):
    """Start-of-encounter state: full Health, everyone standing and a target."""
    clear_state(st)
    for c in range(st.shape[1]):
        st[HP, c] = p.combatant[C_HP, c]
        st[ACTS, c] = 1
        for field in (DOWN_ROUND, UNCONSCIOUS_ROUND, DEAD_ROUND, OUT_ROUND):
            st[field, c] = NOT_YET
    count_standing(p.combatant[C_SIDE], standing)


@inline_kernel
def take_turn(p, st, rng, t, ch, batch, c, rnd, turn, surprise, standing, enc, trace, n_trace,
              scratch, traced):  # fmt: skip
    """Combatant ``c``'s turn: ``attacks_per_turn`` attacks (one by default), its attacks
    in rotation, each at a target its policy picks among the enemies still targetable
    (docs/rules/opposed-tiers.md "One attack per turn"). Returns False as soon as at most one side
    has anyone standing. Each attack fills a row of ``trace`` when ``traced``.
    """
    count = p.combatant[C_ATTACK_COUNT, c]
    if count == 0:
        return True
    n_combatants = st.shape[1]
    n_attacks = p.attack.shape[1]
    for _ in range(p.combatant[C_ATTACKS_PER_TURN, c]):
        target = choose_target(p.enemies[c], st[UNTARGETABLE], st[HP], p.combatant[C_POLICY, c],
                               rng)  # fmt: skip
        if target < 0:
            return True
        attack = attack_in_rotation(p.attack_list, p.combatant[C_ATTACK_START, c], count, st,
                                    ROTATION, c)  # fmt: skip
        slot = min(n_trace[0], trace.shape[0] - 1)
        ev = trace[slot]
        tier, damage, over = resolve_attack(p, st, rng, c, attack, target, rnd, surprise,
                                            standing, scratch, ev, traced)  # fmt: skip
        record_attack(t, ch, (c * n_attacks + attack) * n_combatants + target, batch, tier, damage)
        if traced:
            ev[0], ev[1], ev[2], ev[3], ev[4], ev[5] = enc, rnd, turn, c, attack, target
            ev[6], ev[7] = surprise, st[INIT, c]
            n_trace[0] += 1
        if over:
            return False
    return True


@inline_kernel
def play_round(p, st, rng, t, ch, batch, rnd, standing, enc, trace, n_trace, scratch, traced):
    """Every combatant that still acts takes its turn in turn order; False when over.

    Round 0 is the surprise round: each hidden combatant, in listed order, takes a turn
    before turn order is rolled (docs/rules/opposed-tiers.md "Surprise round"; seed 002,
    "Subsequent Attacks – Surprise!"). The round walks the list of those who still take
    turns (:func:`link_turns`), which a combatant leaves when it stops acting
    (:func:`leave_turns`), instead of every place in the turn order with a branch on
    whether its combatant still acts, which follows from the dice: instructions and
    mispredicted branches an attack (callgrind's branch model, one thread) of
    ``party-fight`` 595.5 / 5.40 -> 582.5 / 4.82, of the benchmark fight 530.0 / 4.63
    -> 532.4 / 4.29. One call of :func:`take_turn` for both kinds of round, and one
    call of this function in :func:`play_encounter`: both are compiled inline once.
    """
    surprise = int(rnd == 0)
    c = st[FIRST, 0]
    while c != NOBODY:
        turn = turn_of(st, c, surprise) if traced else 0
        if not take_turn(
            p, st, rng, t, ch, batch, c, rnd, turn, surprise, standing, enc, trace, n_trace,
            scratch, traced,
        ):  # fmt: skip
            return False
        c = st[NEXT, c]
    return True


@inline_kernel
def link_turns(p, st, surprise):
    """Make the list of those who take turns this round, a round's order: in the
    surprise round the hidden combatants in listed order, after it the turn order
    (``ORDER``), each only while it still acts. ``st[FIRST, 0]`` is the first, then
    ``st[NEXT, c]`` the one after ``c`` (``NOBODY`` after the last) and ``st[PREV, c]``
    the one before (``UNLINKED`` for a combatant not in the list). Made before round 0
    and again before round 1; :func:`leave_turns` takes a combatant out."""
    last = np.int64(NOBODY)
    st[FIRST, 0] = NOBODY
    for k in range(st.shape[1]):
        c = np.int64(k) if surprise else st[ORDER, k]
        st[PREV, c] = UNLINKED
        if st[ACTS, c] == 0 or (surprise and p.combatant[C_HIDDEN, c] == 0):
            continue
        st[PREV, c] = last
        st[NEXT, c] = NOBODY
        if last == NOBODY:
            st[FIRST, 0] = c
        else:
            st[NEXT, last] = c
        last = c


@inline_kernel
def leave_turns(st, c):
    """Take ``c``, which no longer acts, out of the round's list of turns
    (:func:`link_turns`), if it is in it. The combatant taking its turn is never the one
    that leaves (only its target is hit), so its ``NEXT`` stays the one after it."""
    before, after = st[PREV, c], st[NEXT, c]
    if before == UNLINKED:
        return
    if before == NOBODY:
        st[FIRST, 0] = after
    else:
        st[NEXT, before] = after
    if after != NOBODY:
        st[PREV, after] = before
    st[PREV, c] = UNLINKED


@inline_kernel
def turn_of(st, c, surprise):
    """The trace's ``turn`` of ``c``: its place in the turn order from 1, 0 in the
    surprise round."""
    if surprise:
        return 0
    for k in range(st.shape[1]):
        if st[ORDER, k] == c:
            return k + 1
    return 0


@inline_kernel
def finish(st, t, ch, last_round, standing):
    """Record the winner, the length, and each combatant's down round and events."""
    record_outcome(t, ch, last_round, standing, st[DOWN_ROUND], st[DOWN_RECEIVED], NOT_YET)
    for c in range(st.shape[1]):
        for event, field in ((EVENT_OUT, OUT_ROUND), (EVENT_UNCONSCIOUS, UNCONSCIOUS_ROUND),
                             (EVENT_DEAD, DEAD_ROUND)):  # fmt: skip
            record_event(t, ch, c, event, st[field, c], NOT_YET)


@inline_kernel
def play_encounter(p, st, rng, standing, k0, k1, enc, batch, t, ch, trace, n_trace, scratch,
                   traced):  # fmt: skip
    """Play encounter number ``enc`` to its end and add it to chunk ``ch`` of the tallies:
    the surprise round (round 0) when there is one, turn order, then rounds up to the
    cap. Every round is the one inlined call of :func:`play_round` (turn order rolled
    before round 1, after the surprise round; the list of turns made before the first
    round and again before round 1, :func:`link_turns`)."""
    start_encounter(rng, k0, k1, enc)
    reset(p, st, standing)
    max_rounds = p.globals_[G_MAX_ROUNDS]
    last = max_rounds
    for rnd in range(0 if p.globals_[G_SURPRISE] != 0 else 1, max_rounds + 1):
        if rnd <= 1:
            if rnd == 1:
                roll_initiative(p, st, rng, scratch, trace[0])
            link_turns(p, st, rnd == 0)
        if not play_round(p, st, rng, t, ch, batch, rnd, standing, enc, trace, n_trace,
                          scratch, traced):  # fmt: skip
            last = rnd
            break
    finish(st, t, ch, last, standing)


@inline_kernel
def play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               scratch, traced):  # fmt: skip
    """Play chunk ``ch`` of encounters ``first .. first+count-1``, adding into ``t[ch]``
    (there are ``t.attempts.shape[0]`` chunks, each a contiguous slice; the caller sums
    the chunk axis). ``trace`` has one row per attack when ``traced`` (then run with one
    chunk), or a single scratch row otherwise; the rest are the chunk's working arrays
    (:func:`chunk_scratch`)."""
    n_batches = t.attempts.shape[2]
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    for enc in range(lo, hi):
        batch = enc * n_batches // n_total
        play_encounter(p, st, rng, standing, k0, k1, enc, batch, t, ch, trace, n_trace,
                       scratch, traced)  # fmt: skip


@kernel
def run_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
              scratch):  # fmt: skip
    """:func:`play_chunk`, traced when ``trace`` has more than one row."""
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               scratch, trace.shape[0] > 1)  # fmt: skip


@kernel
def run_untraced_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                       rng, scratch):  # fmt: skip
    """:func:`play_chunk` compiled without its trace: what the runner plays untraced.

    Its attacks write nothing to the trace row. Written to, that row, which might be
    any array of the state for all numba knows, makes the compiled attack read back
    what it had read before each write. Without the writes (:func:`take_turn` calls
    :func:`resolve_attack` with ``traced`` a constant), ``bench_scenarios`` on 2
    threads, three alternated rounds, M attacks/s: ``novice-duel`` 21.2 -> 21.8,
    ``novice-shield-armor`` 19.6 -> 20.7, ``party-fight`` 13.2 -> 14.4, the benchmark
    fight 14.8 -> 16.4; the first run compiles only this kernel, in about the time
    ``run_chunk`` took before (11.3 s against 12.0). Passing ``traced`` down as a
    variable ran no faster than the writes. ``run_chunk`` plays traced runs.
    """
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               scratch, False)  # fmt: skip


def chunk_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_chunk`: state, standing, RNG and
    the dice scratch."""
    g = p.globals_
    return (
        np.zeros((N_FIELDS, p.combatant.shape[1]), dtype=np.int64),
        np.zeros(g[G_N_SIDES], dtype=np.int64),
        new_state(),
        np.zeros(max(int(g[G_SCRATCH]), 16), dtype=np.int64),
    )


run_block = chunked(run_chunk, chunk_scratch)
run_untraced_block = chunked(run_untraced_chunk, chunk_scratch)


#: A plain duel looks up the total of a dice expression of one term of at most this many
#: outcomes (3d6: 216, 4d10: 10,000); other expressions are rolled die by die.
MAX_EXPR_OUTCOMES = 10_000
MAX_TABLED_DICE = 13  # 13d2 = 8192 outcomes; also bounds the faces written to the 16-die scratch
#: Rows of a plain duel's expression tables.
(DUEL_ATTACK, DUEL_DEFENSE, DUEL_SHIELD, DUEL_DAMAGE, DUEL_CRITICAL, DUEL_ARMOR) = range(6)
N_DUEL_ROWS = 6


@internal_kernel
def expression_tables(p, attacker, defender, exprs, totals, dice, sides, spans, scratch):
    """The expressions a plain duel rolls, and the total of every possible roll of each
    that is one dice term of at most :data:`MAX_EXPR_OUTCOMES` outcomes.

    ``exprs[row]`` is the expression of row ``DUEL_*``; ``totals[row, o]`` its total when
    its ``dice[row]`` dice of ``sides[row]`` faces read ``o`` in base ``sides[row]``
    (first die most significant), summed as :func:`roll_expr` sums them, and
    ``spans[row]`` their number of outcomes; ``dice[row]`` is 0 (and ``spans[row]`` 1)
    for an expression rolled die by die, or that rolls nothing (``NO_DICE``).
    """
    cb = p.combatant
    exprs[DUEL_ATTACK] = cb[C_ATTACK_DICE, attacker]
    exprs[DUEL_DEFENSE] = cb[C_DEFENSE_DICE, defender]
    exprs[DUEL_SHIELD] = cb[C_SHIELD_DICE, defender]
    exprs[DUEL_DAMAGE] = cb[C_DAMAGE_DICE, attacker]
    exprs[DUEL_CRITICAL] = cb[C_CRITICAL_DICE, attacker]
    exprs[DUEL_ARMOR] = cb[C_ARMOR_DICE, defender]
    for row in range(N_DUEL_ROWS):
        e = exprs[row]
        dice[row] = 0
        spans[row] = 1
        if e == NO_DICE or p.exprs[E_COUNT, e] != 1:
            continue
        term = p.exprs[E_START, e]
        n, faces = p.terms[term, 0], p.terms[term, 1]
        outcomes = outcomes_within(faces, n, totals.shape[1])
        if not 1 <= n <= MAX_TABLED_DICE or faces < 2 or outcomes > totals.shape[1]:
            continue
        for o in range(outcomes):
            faces_of_code(o, faces, n, scratch)
            kept = sum_kept(scratch, n, p.terms[term, 2], p.terms[term, 3])
            totals[row, o] = p.exprs[E_CONSTANT, e] + p.terms[term, 4] * kept
        dice[row] = n
        sides[row] = faces
        spans[row] = outcomes


@internal_kernel
def roll_untabled(p, rng, stream, e, scratch, ev):
    """:func:`roll_expr` of expression ``e``, untraced, as a call: a plain duel's roll of
    an expression without a table. Inlined at each of the duel's six rolls it made the
    duel's first run 21-22 s; the tabled rolls, the usual ones, stay inline."""
    return roll_expr(p, rng, stream, e, scratch, ev, 0, 0)


@inline_kernel
def duel_roll(p, rng, stream, row, exprs, totals, dice, sides, scratch, ev):
    """Roll row ``row`` of a plain duel's expressions (:func:`expression_tables`): one
    number and a lookup where it has a table, else :func:`roll_untabled` (the same dice)."""
    if dice[row] > 0:
        return totals[row, roll_dice_code(rng, stream, sides[row], dice[row])]
    return roll_untabled(p, rng, stream, exprs[row], scratch, ev)


# The rows of a plain duel's expressions (``DUEL_*``) each stream rolls, first and last.
ATTACK_ROWS = (DUEL_ATTACK, DUEL_ATTACK)
REACTION_ROWS = (DUEL_DEFENSE, DUEL_SHIELD)
DAMAGE_ROWS = (DUEL_DAMAGE, DUEL_CRITICAL)
SAVE_ROWS = (DUEL_ARMOR, DUEL_ARMOR)


@inline_kernel
def cursor_sides(exprs, dice, sides, rows):
    """The faces of every die a stream rolls in a plain duel, when a cursor can draw them
    (each of its ``rows`` is tabled or rolls nothing, and all dice have the same faces),
    else 0; −1 when none of its rows rolls any dice, so that the stream is never drawn
    (the save stream of a defender without armor)."""
    common = -1
    for row in range(rows[0], rows[1] + 1):
        if exprs[row] == NO_DICE:
            continue
        if dice[row] == 0 or (common > 0 and sides[row] != common):
            return 0
        common = sides[row]
    return common


@inline_kernel
def duel_stream(k0, k1, stream, rows, tables, buffer):
    """How a plain duel draws the dice of ``stream`` (whose expressions are ``rows``):
    (stream, its cursor's source, the cursor's ``buffer``, whether the cursor draws
    them, see :func:`cursor_sides`)."""
    exprs, dice, sides = tables[0], tables[2], tables[3]
    common = cursor_sides(exprs, dice, sides, rows)
    return stream, dice_source(k0, k1, stream, max(common, 2)), buffer, common != 0


@inline_kernel
def tabled_total(source, buffer, cursor, totals, row, n_dice, span):
    """The total of row ``row`` of a plain duel's expressions (:func:`expression_tables`)
    drawn through a cursor (``rng.cursor_code``): 0 for a row that rolls no dice
    (``n_dice`` 0). Returns the total and the cursor."""
    if n_dice == 0:
        return 0, cursor
    code, cursor = cursor_code(source, buffer, cursor, n_dice, span)
    return totals[row, code], cursor


@inline_kernel
def flat_total(source, buffer, cursor, flat, start, n_dice, span):
    """:func:`tabled_total` from the expression tables made flat (``totals.reshape(-1)``),
    the row starting at ``start`` (unsigned), without a branch: a row that rolls no dice
    draws none and reads its first total, 0 (the one-attack duel tables every row or
    rolls nothing in it, :func:`one_attack_duel`). Returns the total and the cursor."""
    code, cursor = cursor_code(source, buffer, cursor, n_dice, span)
    return flat[start + np.uint64(code)], cursor


@inline_kernel
def duel_draw(p, rng, row, tables, how, cursor):
    """:func:`duel_roll` from stream ``how`` (:func:`duel_stream`), or when its cursor
    draws the stream the same dice through the cursor (``rng.cursor_code``; a row that
    rolls nothing totals 0). ``tables`` is (exprs, totals, dice, sides, spans, scratch,
    ev); returns the total and the cursor."""
    exprs, totals, dice, sides, spans, scratch, ev = tables
    stream, source, buffer, by_cursor = how
    if not by_cursor:
        return duel_roll(p, rng, stream, row, exprs, totals, dice, sides, scratch, ev), cursor
    # drawn by the cursor, a row has dice unless it rolls nothing (cursor_sides)
    return tabled_total(source, buffer, cursor, totals, row, dice[row], np.uint64(spans[row]))


@internal_kernel
def play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, attacker, tables, seen,
               buffers):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` (see :func:`duel_attacker`) exactly as
    :func:`play_encounter` would, on a shorter path.

    The attacker's target is always the defender, so no target is chosen (random
    targets draw from a stream nothing else uses), and no turn order is rolled (the
    defender's turn does nothing; the order stream feeds nothing else). Each attack
    rolls the dice :func:`resolve_attack` rolls, from the same streams in the same order,
    but draws a dice expression as one number and looks its total up
    (:func:`duel_draw`); the rules that turn the totals into an outcome are the general
    path's own (:func:`attack_total`, :func:`defended_outcome`, :func:`damage_of`,
    :func:`take_damage`, :func:`finish`). A stream whose dice all have the same faces
    is drawn through a cursor held in local variables (:func:`duel_stream`; its block
    is computed at its first die, its buffer is a row of ``buffers``), the others from
    the RNG state ``rng``. Attacks are counted by attack, tier and damage in ``seen``
    and added to the tallies once per batch (``encounter.flush_attack_counts``).
    """
    defender = 1 - attacker
    n_batches = t.attempts.shape[2]
    start = p.combatant[C_ATTACK_START, attacker]
    count = p.combatant[C_ATTACK_COUNT, attacker]
    per_turn = p.combatant[C_ATTACKS_PER_TURN, attacker]
    cap = p.globals_[G_MAX_ROUNDS]
    attack_dice = duel_stream(k0, k1, STREAM_ATTACK, ATTACK_ROWS, tables, buffers[0])
    reaction_dice = duel_stream(k0, k1, STREAM_REACTION, REACTION_ROWS, tables, buffers[1])
    damage_dice = duel_stream(k0, k1, STREAM_DAMAGE, DAMAGE_ROWS, tables, buffers[2])
    save_dice = duel_stream(k0, k1, STREAM_SAVE, SAVE_ROWS, tables, buffers[3])
    any_state = not (attack_dice[3] and reaction_dice[3] and damage_dice[3] and save_dice[3])
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for enc in range(lo, hi):
        if unlikely(enc >= next_batch):  # a new batch of tallies: rare
            flush_attack_counts(t, ch, batch, attacker, seen)
            batch, next_batch = batch_bounds(enc, n_batches, n_total)
        if any_state:
            start_encounter(rng, k0, k1, enc)
        a_cursor, r_cursor = cursor_fresh(enc, buffers[0]), cursor_fresh(enc, buffers[1])
        d_cursor, s_cursor = cursor_fresh(enc, buffers[2]), cursor_fresh(enc, buffers[3])
        reset(p, st, standing)
        slot = 0
        last = cap
        over = False
        for rnd in range(1, cap + 1):
            for _ in range(per_turn):
                attack = p.attack_list[start + slot]
                slot = next_in_rotation(slot, count)
                rolled, a_cursor = duel_draw(p, rng, DUEL_ATTACK, tables, attack_dice, a_cursor)
                total = attack_total(p, attacker, attack, rolled)
                rolled, r_cursor = duel_draw(p, rng, DUEL_DEFENSE, tables, reaction_dice, r_cursor)
                shield, r_cursor = duel_draw(p, rng, DUEL_SHIELD, tables, reaction_dice, r_cursor)
                hit, critical = defended_outcome(total, defense_of(p, defender, rolled, shield))
                damage = 0
                if hit:
                    row = DUEL_CRITICAL if critical else DUEL_DAMAGE
                    rolled, d_cursor = duel_draw(p, rng, row, tables, damage_dice, d_cursor)
                    armor, s_cursor = duel_draw(p, rng, DUEL_ARMOR, tables, save_dice, s_cursor)
                    damage = damage_of(p, attacker, attack, rolled, armor)
                st[RECEIVED, defender] += 1
                take_damage(p, st, defender, damage, rnd, standing, False)
                tier = 2 if critical else int(hit)
                count_duel_attack(t, ch, batch, attacker, seen, attack, tier, damage)
                if st[HP, defender] <= 0 and sides_standing(standing) <= 1:
                    over = True
                    break
            if over:
                last = rnd
                break
        finish(st, t, ch, last, standing)
    flush_attack_counts(t, ch, batch, attacker, seen)


@inline_kernel
def one_attack_duels(p, t, ch, lo, hi, n_total, k0, k1, st, standing, attacker, tables, seen,
                     buffers, ends):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` whose attacker has one attack, made once or
    more a turn, and whose every stream is drawn through a cursor
    (:func:`one_attack_duel`), as
    :func:`play_duels` would, on a shorter loop: each row's dice count and outcomes in
    local variables, block 0 of each stream that rolls dice computed ``CURSOR_GROUP``
    encounters at a time (four rows each of ``buffers[4:]``; the cursors' buffers are
    ``buffers[:4]``; the damage cursor starts with its first word drawn,
    ``rng.cursor_loaded``), the defender's Health and received attacks in local variables
    until a hit takes it to 0 or below, the tables read flat (:func:`flat_total`), and a
    hit's damage and armor dice drawn without a branch on whether it hit (a miss draws
    none). If that first fall ends the duel
    (:func:`first_fall`), as it does unless the defender fights on, the duel is counted
    in ``ends`` by the defender's condition and the round (:func:`record_first_falls`);
    otherwise ``st`` is reset then, and :func:`take_damage` and :func:`finish` play the
    rest as on the general path (:func:`fall_in_state`, :func:`finish_in_state`).
    ``tables`` is (exprs, totals, dice, sides, spans)."""
    defender = 1 - attacker
    n_batches = t.attempts.shape[2]
    cap = p.globals_[G_MAX_ROUNDS]
    attack = p.attack_list[p.combatant[C_ATTACK_START, attacker]]
    per_turn = p.combatant[C_ATTACKS_PER_TURN, attacker]
    ends_falling = first_fall(p, st, standing, defender, FALLING)[0]
    ends_unconscious = first_fall(p, st, standing, defender, UNCONSCIOUS)[0]
    ends_dead = first_fall(p, st, standing, defender, DEAD)[0]
    totals, dice, spans = tables[1], tables[2], tables[4]
    n_attack, span_attack = dice[DUEL_ATTACK], np.uint64(spans[DUEL_ATTACK])
    n_defense, span_defense = dice[DUEL_DEFENSE], np.uint64(spans[DUEL_DEFENSE])
    n_shield, span_shield = dice[DUEL_SHIELD], np.uint64(spans[DUEL_SHIELD])
    n_armor, span_armor = dice[DUEL_ARMOR], np.uint64(spans[DUEL_ARMOR])
    n_damage, span_damage = dice[DUEL_DAMAGE], np.uint64(spans[DUEL_DAMAGE])
    n_critical, span_critical = dice[DUEL_CRITICAL], np.uint64(spans[DUEL_CRITICAL])
    one = np.uint64(1)
    # the tables flat and indexed by unsigned numbers: numba then computes no strides and
    # no wraparound for a negative index (see glitters-d20's one_attack_duels)
    flat, counted = totals.reshape(-1), seen[attack].reshape(-1)
    width, bins = np.uint64(totals.shape[1]), seen.shape[2]
    bins_row = np.uint64(bins)
    at_attack, at_defense = np.uint64(DUEL_ATTACK) * width, np.uint64(DUEL_DEFENSE) * width
    at_shield, at_armor = np.uint64(DUEL_SHIELD) * width, np.uint64(DUEL_ARMOR) * width
    at_damage, at_critical = np.uint64(DUEL_DAMAGE) * width, np.uint64(DUEL_CRITICAL) * width
    a_buf, r_buf, d_buf, s_buf = buffers[0], buffers[1], buffers[2], buffers[3]
    sources = (  # each stream's cursor source, as play_duels makes it (duel_stream)
        duel_stream(k0, k1, STREAM_ATTACK, ATTACK_ROWS, tables, a_buf)[1],
        duel_stream(k0, k1, STREAM_REACTION, REACTION_ROWS, tables, r_buf)[1],
        duel_stream(k0, k1, STREAM_DAMAGE, DAMAGE_ROWS, tables, d_buf)[1],
        duel_stream(k0, k1, STREAM_SAVE, SAVE_ROWS, tables, s_buf)[1],
    )
    drawn = (n_attack > 0, n_defense + n_shield > 0, n_damage + n_critical > 0, n_armor > 0)
    words = buffers[4:]
    group = words.shape[1]
    full_hp = p.combatant[C_HP, defender]
    # what the rules add to the dice, read from p once instead of at every attack (the
    # compiler may not move a read of p past the loop's writes to the counts): 1.06x
    attack_plus, defense_plus = attack_bonus(p, attacker, attack), defense_bonus(p, defender)
    damage_plus, floor = damage_bonus(p, attacker, attack), p.globals_[G_DAMAGE_FLOOR]
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, group):
        for k in range(4):
            if drawn[k]:
                first_blocks(sources[k], first, words[4 * k : 4 * k + 4])
        for enc in range(first, min(first + group, hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                flush_attack_counts(t, ch, batch, attacker, seen)
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            i = enc - first
            # a stream that rolls no dice is never drawn: its cursor stays fresh
            if drawn[0]:
                a_cursor = cursor_at(words[0:4], i, enc, a_buf)
            else:
                a_cursor = cursor_fresh(enc, a_buf)
            if drawn[1]:
                r_cursor = cursor_at(words[4:8], i, enc, r_buf)
            else:
                r_cursor = cursor_fresh(enc, r_buf)
            if drawn[2]:
                d_cursor = cursor_loaded(sources[2], words[8:12], i, enc, d_buf)
            else:
                d_cursor = cursor_fresh(enc, d_buf)
            if drawn[3]:
                s_cursor = cursor_at(words[12:16], i, enc, s_buf)
            else:
                s_cursor = cursor_fresh(enc, s_buf)
            hp = full_hp
            received = 0
            last = cap
            in_state = False  # the defender's fall is played in st, as the general path does
            fell = False  # its first fall ended the duel
            for i in range(cap * per_turn):
                rolled, a_cursor = flat_total(sources[0], a_buf, a_cursor, flat, at_attack,
                                              n_attack, span_attack)  # fmt: skip
                total = rolled + attack_plus  # attack_total
                rolled, r_cursor = flat_total(sources[1], r_buf, r_cursor, flat,
                                              at_defense, n_defense, span_defense)  # fmt: skip
                # a shield or armor without dice (most duels) is skipped by a branch that
                # goes the same way at every attack: the same dice, 1.08x
                shield = 0
                if n_shield > 0:
                    shield, r_cursor = flat_total(sources[1], r_buf, r_cursor, flat, at_shield,
                                                  n_shield, span_shield)  # fmt: skip
                defense = rolled + defense_plus + shield  # defense_of
                hit, critical = defended_outcome(total, defense)
                # a miss draws no damage or armor dice (a count of 0) and deals 0: worked out
                # without a branch on whether it hit, which nothing can foresee
                h, c = np.uint64(hit), np.uint64(critical)
                rolled, d_cursor = flat_total(
                    sources[2], d_buf, d_cursor, flat, at_damage + (at_critical - at_damage) * c,
                    n_damage * hit + (n_critical - n_damage) * critical,
                    one + (span_damage - one) * h + (span_critical - span_damage) * c,
                )  # fmt: skip
                armor = 0
                if n_armor > 0:
                    armor, s_cursor = flat_total(sources[3], s_buf, s_cursor, flat, at_armor,
                                                 n_armor * hit,
                                                 one + (span_armor - one) * h)  # fmt: skip
                damage = floored_damage(rolled, armor, damage_plus, floor) * hit
                received += 1
                tier = h + c
                if damage < bins:  # damage is never negative (damage_of)
                    counted[tier * bins_row + np.uint64(damage)] += 1
                else:
                    count_duel_attack(t, ch, batch, attacker, seen, attack, np.int64(tier), damage)
                if hp - damage > 0:  # still standing: nothing else changes
                    hp -= damage
                    continue
                rnd = 1 + i // per_turn  # worked out only at a fall: a counter cost 1.05x
                if not in_state:
                    level = condition(p, defender, hp - damage)
                    if ((level == FALLING and ends_falling)
                            or (level == UNCONSCIOUS and ends_unconscious)
                            or (level == DEAD and ends_dead)):  # fmt: skip
                        # its first fall ends the duel: counted by condition and round
                        count_duel_end(t, ch, ends[level], defender, True, rnd, received)
                        fell = True
                        break
                hp, over = fall_in_state(p, st, standing, defender, hp, received, damage, rnd,
                                         not in_state)  # fmt: skip
                in_state = True
                if over:
                    last = rnd
                    break
            if in_state:
                finish_in_state(st, t, ch, last, standing)
            elif not fell:  # the round cap, both standing: a draw
                count_duel_end(t, ch, ends[STANDING], defender, False, cap, received)
    flush_attack_counts(t, ch, batch, attacker, seen)
    record_first_falls(p, t, ch, st, standing, attacker, ends)


#: Outcomes of one roll a plain duel's pair loop splits two rolls' number into, at most
#: (:func:`pair_duel`, :func:`split_code`): 4d6, a d1000 or 2d40 at most.
MAX_PAIR_SPAN = 1600
#: Attack rolls times defense rolls whose tier a plain duel's pair loop tables, at most
#: (:func:`pair_duel`): 3d6 against 3d6.
MAX_TIER_CODES = 216 * 216


@internal_kernel
def pair_tables(totals, dice, spans, bonuses, floor, tier_at, damage_at, pair_rolls):
    """The tables of :func:`pair_duels`: ``tier_at[a * spans[DUEL_DEFENSE] + d]`` the tier
    (0 miss, 1 hit, 2 critical, :func:`defended_outcome`) of an attack whose attack dice
    read ``a`` and defense dice ``d``; ``damage_at[tier * width + code]`` the damage of an
    attack of ``tier`` whose damage dice read ``code`` (a miss rolls none and deals 0;
    :func:`floored_damage` with no armor); and ``pair_rolls[:, both]``, for two attacks
    of tiers ``both = 3 * first + second``, the number of damage dice both roll, their
    outcomes, the second's outcomes and :func:`split_magic` of them. ``bonuses`` is what
    the rules add to the attack, defense and damage dice (:func:`attack_bonus`,
    :func:`defense_bonus`, :func:`damage_bonus`)."""
    attack_plus, defense_plus, damage_plus = bonuses
    width = damage_at.shape[0] // 3
    for a in range(spans[DUEL_ATTACK]):
        for d in range(spans[DUEL_DEFENSE]):
            hit, critical = defended_outcome(totals[DUEL_ATTACK, a] + attack_plus,
                                             totals[DUEL_DEFENSE, d] + defense_plus)  # fmt: skip
            tier_at[a * spans[DUEL_DEFENSE] + d] = int(hit) + int(critical)
    tier_dice = (0, dice[DUEL_DAMAGE], dice[DUEL_CRITICAL])
    tier_span = (1, spans[DUEL_DAMAGE], spans[DUEL_CRITICAL])
    damage_at[0] = 0
    for code in range(tier_span[1]):
        damage_at[width + code] = floored_damage(totals[DUEL_DAMAGE, code], 0, damage_plus, floor)
    for code in range(tier_span[2]):
        damage_at[2 * width + code] = floored_damage(totals[DUEL_CRITICAL, code], 0,
                                                     damage_plus, floor)  # fmt: skip
    for first in range(3):
        for second in range(3):
            both = 3 * first + second
            pair_rolls[0, both] = tier_dice[first] + tier_dice[second]
            pair_rolls[1, both] = tier_span[first] * tier_span[second]
            pair_rolls[2, both] = tier_span[second]
            pair_rolls[3, both] = np.int64(split_magic(tier_span[second]))


@internal_kernel
def flush_code_counts(t, ch, batch, attacker, seen, attack, code_seen, damage_at, width):
    """Add the attacks :func:`pair_duels` counted by tier and damage dice in
    ``code_seen[tier * width + code]`` to ``seen[attack]`` by tier and damage
    (``damage_at``, :func:`pair_tables`), and clear them; then add ``seen`` to
    the tallies of ``batch`` (``encounter.flush_attack_counts``)."""
    for k in range(code_seen.shape[0]):
        n = code_seen[k]
        if n > 0:
            count_duel_attacks(t, ch, batch, attacker, seen, attack, k // width, damage_at[k], n)
            code_seen[k] = 0
    flush_attack_counts(t, ch, batch, attacker, seen)


@inline_kernel
def pair_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tables, seen, buffers, ends,
               pairs):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` that :func:`pair_duel` admits as
    :func:`one_attack_duels` would, two attacks at a time: the attack dice of both drawn
    as one number and split into each attack's (:func:`split_code`), then the defense
    dice of both, then the damage dice of both (a miss rolls none), each attack's tier
    and damage looked up (:func:`pair_tables`). The dice are the same, in the same
    order: two rolls of a stream read at once are the two read one after the other
    (``rng.cursor_code``). When the first attack fells the defender, the second's dice
    are drawn and not used: each encounter draws from streams of its own. The defender
    has no shield or armor, and its first fall ends the duel, so the duel is over at
    the first attack that takes its Health to 0 or below, counted in ``ends`` by its
    condition and the round (:func:`record_first_falls`; the attacks it received, one a
    round, added once by ``encounter.record_round_downs``). A round cap that leaves one
    round after the last pair plays it alone. The attacks are counted by tier and damage
    dice in ``code_seen`` and added to the tallies once per batch
    (:func:`flush_code_counts`). All three cursors start with their first word drawn
    (``rng.cursor_loaded``): every duel rolls attack and defense at once, so the same
    dice; with the attack and defense cursors so, the benchmark duel ran 1.06x as fast
    (README, "Design notes"). ``tables`` is (exprs, totals, dice, sides, spans);
    ``pairs`` (``tier_at``, ``damage_at``, ``pair_rolls``, ``code_seen``), made by
    :func:`pair_tables`."""
    defender = 1 - attacker
    n_batches = t.attempts.shape[2]
    cap = p.globals_[G_MAX_ROUNDS]
    attack = p.attack_list[p.combatant[C_ATTACK_START, attacker]]
    dice, spans = tables[2], tables[4]
    tier_at, damage_at, pair_rolls, code_seen = pairs
    width = np.uint64(damage_at.shape[0] // 3)
    n_attack, span_attack = dice[DUEL_ATTACK], np.uint64(spans[DUEL_ATTACK])
    n_defense, span_defense = dice[DUEL_DEFENSE], np.uint64(spans[DUEL_DEFENSE])
    magic_attack, magic_defense = split_magic(span_attack), split_magic(span_defense)
    tier_dice = (0, dice[DUEL_DAMAGE], dice[DUEL_CRITICAL])
    tier_span = (1, spans[DUEL_DAMAGE], spans[DUEL_CRITICAL])
    pair_dice, pair_span = pair_rolls[0], pair_rolls[1]
    second_span, pair_magic = pair_rolls[2], pair_rolls[3]
    a_buf, r_buf, d_buf = buffers[0], buffers[1], buffers[2]
    a_source = duel_stream(k0, k1, STREAM_ATTACK, ATTACK_ROWS, tables, a_buf)[1]
    r_source = duel_stream(k0, k1, STREAM_REACTION, REACTION_ROWS, tables, r_buf)[1]
    d_source = duel_stream(k0, k1, STREAM_DAMAGE, DAMAGE_ROWS, tables, d_buf)[1]
    a_words, r_words, d_words = buffers[4:8], buffers[8:12], buffers[12:16]
    group = a_words.shape[1]
    full_hp = p.combatant[C_HP, defender]
    three = np.uint64(3)
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, group):
        first_blocks(a_source, first, a_words)
        first_blocks(r_source, first, r_words)
        first_blocks(d_source, first, d_words)
        for enc in range(first, min(first + group, hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                flush_code_counts(t, ch, batch, attacker, seen, attack, code_seen, damage_at,
                                  width)  # fmt: skip
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            i = enc - first
            a_cursor = cursor_loaded(a_source, a_words, i, enc, a_buf)
            r_cursor = cursor_loaded(r_source, r_words, i, enc, r_buf)
            d_cursor = cursor_loaded(d_source, d_words, i, enc, d_buf)
            hp = full_hp
            rnd = 0
            while hp > 0 and rnd + 2 <= cap:
                code, a_cursor = cursor_code(a_source, a_buf, a_cursor, 2 * n_attack,
                                             span_attack * span_attack)  # fmt: skip
                a1, a2 = split_code(np.uint64(code), span_attack, magic_attack)
                code, r_cursor = cursor_code(r_source, r_buf, r_cursor, 2 * n_defense,
                                             span_defense * span_defense)  # fmt: skip
                r1, r2 = split_code(np.uint64(code), span_defense, magic_defense)
                tier1 = np.uint64(tier_at[a1 * span_defense + r1])
                tier2 = np.uint64(tier_at[a2 * span_defense + r2])
                both = three * tier1 + tier2
                code, d_cursor = cursor_code(d_source, d_buf, d_cursor, pair_dice[both],
                                             np.uint64(pair_span[both]))  # fmt: skip
                d1, d2 = split_code(np.uint64(code), np.uint64(second_span[both]),
                                    np.uint64(pair_magic[both]))  # fmt: skip
                k = tier1 * width + d1
                code_seen[k] += 1
                hp -= damage_at[k]
                rnd += 1
                if hp <= 0:
                    break
                k = tier2 * width + d2
                code_seen[k] += 1
                hp -= damage_at[k]
                rnd += 1
            if hp > 0 and rnd < cap:  # an odd round cap: the last round alone
                a, a_cursor = cursor_code(a_source, a_buf, a_cursor, n_attack, span_attack)
                code, r_cursor = cursor_code(r_source, r_buf, r_cursor, n_defense, span_defense)
                tier = np.uint64(tier_at[np.uint64(a) * span_defense + np.uint64(code)])
                code, d_cursor = cursor_code(d_source, d_buf, d_cursor, tier_dice[tier],
                                             np.uint64(tier_span[tier]))  # fmt: skip
                k = tier * width + np.uint64(code)
                code_seen[k] += 1
                hp -= damage_at[k]
                rnd += 1
            # the first fall ends the duel (pair_duel); else the round cap, a draw
            level = condition(p, defender, hp) if hp <= 0 else STANDING
            count_round_end(ends[level], hp <= 0, rnd)
    flush_code_counts(t, ch, batch, attacker, seen, attack, code_seen, damage_at, width)


@internal_kernel
def fall_in_state(p, st, standing, defender, hp, received, damage, rnd, fresh):
    """A hit on the defender of a plain duel at or below 0 Health, played in ``st`` by
    :func:`take_damage` as on the general path (``st`` reset first when ``fresh``:
    nothing in it has changed before). Returns its Health after the hit and whether the
    duel is over. A call: it is rare, and inlined it made the loop slower to compile."""
    if fresh:
        reset(p, st, standing)
    st[HP, defender] = hp
    st[RECEIVED, defender] = received
    take_damage(p, st, defender, damage, rnd, standing, False)
    return st[HP, defender], sides_standing(standing) <= 1


@internal_kernel
def finish_in_state(st, t, ch, last_round, standing):
    """:func:`finish`, called: for the rare plain duel played in ``st``."""
    finish(st, t, ch, last_round, standing)


@internal_kernel
def first_fall(p, st, standing, defender, level):
    """What happens when the defender of a plain duel first falls to ``level`` (FALLING
    or worse), by the general path's :func:`update_role`: (whether the duel ends there,
    no side but one standing; whether the defender is out of the fight, the ``out``
    event). ``st`` and ``standing`` are scratch."""
    reset(p, st, standing)
    st[LEVEL, defender] = level
    update_role(p, st, defender, 1, standing, False)
    return sides_standing(standing) <= 1, st[OUT_ROUND, defender] != NOT_YET


@internal_kernel
def record_first_falls(p, t, ch, st, standing, attacker, ends):
    """Add the plain duels counted in ``ends`` to chunk ``ch`` of the tallies, as
    :func:`finish` would one by one, and clear the counts. ``ends[level, r]`` counts the
    duels that ended in round ``r`` at the defender's first fall, to ``level``: it went
    down then (:func:`take_damage`), unconscious and dead if ``level`` is, and out of the
    fight if :func:`first_fall` says so; ``ends[STANDING, 0]`` the duels that reached
    the round cap with both standing."""
    defender = 1 - attacker
    side = p.combatant[C_SIDE, attacker]
    cap = p.globals_[G_MAX_ROUNDS]
    for level in (FALLING, UNCONSCIOUS, DEAD):
        out = first_fall(p, st, standing, defender, level)[1]
        for rnd in range(1, cap + 1):
            n = ends[level, rnd]
            if out:
                t.event_round[ch, defender, EVENT_OUT, rnd] += n
            if level >= UNCONSCIOUS:
                t.event_round[ch, defender, EVENT_UNCONSCIOUS, rnd] += n
            if level >= DEAD:
                t.event_round[ch, defender, EVENT_DEAD, rnd] += n
        record_duel_ends(t, ch, ends[level], attacker, side, cap, -1)
    record_duel_ends(t, ch, ends[STANDING], attacker, side, cap, -1)


@inline_kernel
def duel_tables(p, exprs, totals, dice, sides, spans, scratch):
    """Build a plain duel's expression tables (:func:`expression_tables`) and return its
    attacker, the combatant with attacks."""
    c = p.combatant
    attacker = 0 if c[C_ATTACK_COUNT, 0] > 0 and c[C_ATTACKS_PER_TURN, 0] > 0 else 1
    expression_tables(p, attacker, 1 - attacker, exprs, totals, dice, sides, spans, scratch)
    return attacker


@kernel
def run_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
                   scratch, ev, exprs, totals, dice, sides, spans, seen, buffers,
                   ends):  # fmt: skip
    """:func:`run_chunk` for a plain duel (:func:`duel_attacker`), untraced: the chunk
    builds the expression tables once and plays its slice with :func:`play_duels`. A
    kernel of its own, so that other scenarios never compile the duel path."""
    attacker = duel_tables(p, exprs, totals, dice, sides, spans, scratch)
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    tables = (exprs, totals, dice, sides, spans, scratch, ev)
    play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, rng, standing, attacker, tables, seen,
               buffers)  # fmt: skip


@kernel
def run_one_attack_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st,
                              standing, rng, scratch, ev, exprs, totals, dice, sides, spans, seen,
                              buffers, ends):  # fmt: skip
    """:func:`run_duel_chunk` for a plain duel of one attack (once or more a turn) whose
    every stream is drawn through a cursor (:func:`one_attack_duel`): the same working arrays
    (:func:`duel_scratch`), played by :func:`one_attack_duels`. A kernel of its own, so
    that it compiles neither the general duel loop nor the dice rolled from the RNG
    state."""
    attacker = duel_tables(p, exprs, totals, dice, sides, spans, scratch)
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    one_attack_duels(p, t, ch, lo, hi, n_total, k0, k1, st, standing, attacker,
                     (exprs, totals, dice, sides, spans), seen, buffers, ends)  # fmt: skip


@kernel
def run_pair_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                        rng, scratch, ev, exprs, totals, dice, sides, spans, seen, buffers, ends,
                        tier_at, damage_at, pair_rolls, code_seen):  # fmt: skip
    """:func:`run_one_attack_duel_chunk` for a duel that :func:`pair_duel` admits: the
    working arrays of :func:`pair_scratch`, its slice played by :func:`pair_duels`."""
    attacker = duel_tables(p, exprs, totals, dice, sides, spans, scratch)
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    attack = p.attack_list[p.combatant[C_ATTACK_START, attacker]]
    bonuses = (attack_bonus(p, attacker, attack), defense_bonus(p, 1 - attacker),
               damage_bonus(p, attacker, attack))  # fmt: skip
    pair_tables(totals, dice, spans, bonuses, p.globals_[G_DAMAGE_FLOOR], tier_at, damage_at,
                pair_rolls)  # fmt: skip
    pair_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, (exprs, totals, dice, sides, spans),
               seen, buffers, ends, (tier_at, damage_at, pair_rolls, code_seen))  # fmt: skip
    for level in range(ends.shape[0]):
        record_round_downs(t, ch, ends[level], 1 - attacker)
    record_first_falls(p, t, ch, st, standing, attacker, ends)


def pair_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_pair_duel_chunk`: those of
    :func:`duel_scratch`, then the tables of :func:`pair_tables` and the attack
    counts of :func:`pair_duels`."""
    attack, defense, damage, critical = pair_outcomes(p)
    width = max(damage, critical)
    return (
        *duel_scratch(p, t, trace),
        np.zeros(attack * defense, dtype=np.uint8),
        np.zeros(3 * width, dtype=np.int64),
        np.zeros((4, 9), dtype=np.int64),
        np.zeros(3 * width, dtype=np.int64),
    )


def duel_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_duel_chunk`: those of
    :func:`chunk_scratch`, a trace row, the expression tables with their dice and
    outcomes, attack counts, the dice cursors' buffers (rows 0-3) and words (rows 4-19,
    four a stream), and the duel ends by condition and round (the last two for
    :func:`run_one_attack_duel_chunk`)."""
    n_attacks = p.attack.shape[1]
    return (
        *chunk_scratch(p, t, trace),
        np.zeros(N_TRACE, dtype=np.int64),
        np.zeros(N_DUEL_ROWS, dtype=np.int64),
        np.zeros((N_DUEL_ROWS, table_width(p)), dtype=np.int64),
        np.zeros(N_DUEL_ROWS, dtype=np.int64),
        np.zeros(N_DUEL_ROWS, dtype=np.int64),
        np.zeros(N_DUEL_ROWS, dtype=np.int64),
        np.zeros((n_attacks, 3, t.damage_hist.shape[2]), dtype=np.int64),
        np.zeros((4 + 16, CURSOR_GROUP), dtype=np.uint64),
        np.zeros((DEAD + 1, p.globals_[G_MAX_ROUNDS] + 1), dtype=np.int64),
    )


run_duel_block = chunked(run_duel_chunk, duel_scratch)
run_one_attack_duel_block = chunked(run_one_attack_duel_chunk, duel_scratch)
run_pair_duel_block = chunked(run_pair_duel_chunk, pair_scratch)


def duel_attacker(p):
    """The attacker of a *plain duel*, or −1 when the encounter is not one.

    A plain duel is two combatants on two sides of which only one ever attacks (the
    other has no attacks), without a surprise round: the usual way to measure an attack
    (``scenarios/benchmarks/opposed-tiers-duel.yaml``). It is played by
    :func:`run_duel_block`.
    """
    c = p.combatant
    if c.shape[1] != 2 or c[C_SIDE, 0] == c[C_SIDE, 1] or p.globals_[G_SURPRISE] != 0:
        return -1
    armed = [k for k in range(2) if c[C_ATTACK_COUNT, k] > 0 and c[C_ATTACKS_PER_TURN, k] > 0]
    return armed[0] if len(armed) == 1 else -1


def one_attack_duel(p):
    """Whether the plain duel of ``p`` (:func:`duel_attacker`) is one
    :func:`run_one_attack_duel_block` plays: its attacker has one attack (made once or
    more a turn), and every stream's dice are drawn through a cursor, that is each of
    the duel's expressions (:func:`expression_tables`) rolls no dice or is tabled, with
    one die size a stream (:func:`cursor_sides`, the same test in the kernel)."""
    cb, attacker = p.combatant, duel_attacker(p)
    if cb[C_ATTACK_COUNT, attacker] != 1:
        return False
    rows = duel_rows(p)
    for first, last in (ATTACK_ROWS, REACTION_ROWS, DAMAGE_ROWS, SAVE_ROWS):
        faces = {tabled_faces(p, rows[r]) for r in range(first, last + 1) if rows[r] != NO_DICE}
        if 0 in faces or len(faces) > 1:
            return False
    return True


def pair_duel(p):
    """Whether :func:`run_pair_duel_block` plays the plain duel of ``p``: a one-attack
    duel (:func:`one_attack_duel`) of one attack a turn against a defender with no
    shield or armor dice whose
    first fall ends the duel (an NPC that falls out, or no ``fallen_fight_on``:
    :func:`update_role`), and whose attack, defense, damage and critical rolls each have
    at most :data:`MAX_PAIR_SPAN` outcomes."""
    if not one_attack_duel(p) or p.combatant[C_ATTACKS_PER_TURN, duel_attacker(p)] != 1:
        return False
    rows = duel_rows(p)
    if rows[DUEL_SHIELD] != NO_DICE or rows[DUEL_ARMOR] != NO_DICE:
        return False
    defender = 1 - duel_attacker(p)
    if p.combatant[C_FALLS_OUT, defender] == 0 and p.globals_[G_FALLEN_FIGHT_ON] != 0:
        return False
    outcomes = pair_outcomes(p)
    return max(outcomes) <= MAX_PAIR_SPAN and outcomes[0] * outcomes[1] <= MAX_TIER_CODES


def pair_outcomes(p):
    """The outcomes of the attack, defense, damage and critical rolls of the one-attack
    duel of ``p`` (:func:`one_attack_duel`: each tabled or rolling nothing, 1)."""
    rows = duel_rows(p)
    rolls = (rows[DUEL_ATTACK], rows[DUEL_DEFENSE], rows[DUEL_DAMAGE], rows[DUEL_CRITICAL])
    return [1 if e == NO_DICE else tabled_outcomes(p, e) for e in rolls]


def duel_rows(p):
    """The expressions of a plain duel (:func:`duel_attacker`), by row ``DUEL_*``
    (:func:`expression_tables`)."""
    cb, attacker = p.combatant, duel_attacker(p)
    defender = 1 - attacker
    return [cb[C_ATTACK_DICE, attacker], cb[C_DEFENSE_DICE, defender],
            cb[C_SHIELD_DICE, defender], cb[C_DAMAGE_DICE, attacker],
            cb[C_CRITICAL_DICE, attacker], cb[C_ARMOR_DICE, defender]]  # fmt: skip


def table_width(p):
    """The outcomes of the plain duel's expression that :func:`expression_tables` tables
    with the most (at most :data:`MAX_EXPR_OUTCOMES`), at least 1: the width of its
    tables."""
    rows = [e for e in duel_rows(p) if e != NO_DICE and tabled_faces(p, e) > 0]
    return max([tabled_outcomes(p, e) for e in rows], default=1)


def tabled_outcomes(p, e):
    """The outcomes of expression ``e``'s dice, which :func:`tabled_faces` says are
    tabled."""
    term = p.exprs[E_START, e]
    return int(p.terms[term, 1]) ** int(p.terms[term, 0])


def tabled_faces(p, e):
    """The faces of expression ``e``'s dice when :func:`expression_tables` tables it (one
    term of 1 to ``MAX_TABLED_DICE`` dice, at most ``MAX_EXPR_OUTCOMES`` outcomes), else
    0."""
    if p.exprs[E_COUNT, e] != 1:
        return 0
    term = p.exprs[E_START, e]
    n, faces = int(p.terms[term, 0]), int(p.terms[term, 1])
    tabled = 1 <= n <= MAX_TABLED_DICE and faces >= 2 and faces**n <= MAX_EXPR_OUTCOMES
    return faces if tabled else 0


def block_kernel(p):
    """The kernel that plays untraced blocks of the compiled scenario ``p``: when the
    scenario is a plain duel (:func:`duel_attacker`), ``run_pair_duel_block`` for one
    attack a turn played two at a time (:func:`pair_duel`), ``run_one_attack_duel_block``
    for the other duels of one attack (:func:`one_attack_duel`) or else
    ``run_duel_block``; otherwise ``run_untraced_block`` (:func:`run_untraced_chunk` on
    threads)."""
    if duel_attacker(p) < 0:
        return run_untraced_block
    if pair_duel(p):
        return run_pair_duel_block
    return run_one_attack_duel_block if one_attack_duel(p) else run_duel_block
