"""Numba kernels of glitters-d20 (docs/rules/glitters-d20.md; seed 003, "All That Glitters").

Plain functions compiled in :mod:`simlab.engine.jit`. One encounter is
:func:`play_encounter`; :func:`run_block` plays a contiguous range of encounters in
chunks on threads (:func:`run_chunk` plays one), each adding into its own slice of the
tallies; untraced runs use the same, compiled without the trace
(:func:`run_untraced_chunk`). Encounter ``i`` draws every die from the counter-based
RNG keyed by (seed, i, stream): attack d20s from ``STREAM_ATTACK``, damage dice from
``STREAM_DAMAGE``, initiative and its tie-breaks from ``STREAM_ORDER``, Burning's d4
from ``STREAM_STATUS``, death saves from ``STREAM_SAVE``, random targets from
``STREAM_TARGET``.

``p`` is a :class:`~simlab.rules.glitters_d20.compile.KernelParams`. Per-encounter state
lives in one int64 array ``st[field, combatant]`` allocated once per chunk; its
``ORDER`` row holds the turn order (and ``QUEUE`` the dying after the fight,
:func:`aftermath`). When tracing, every turn, status tick, death save
and attack writes one row of ``trace`` (see :data:`TRACE_COLUMNS`); otherwise nothing
is written. Nothing here allocates but :func:`run_block`.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.encounter import (
    batch_bounds,
    choose_target,
    chunk_range,
    count_duel_attack,
    count_duel_attacks,
    count_duel_end,
    count_round_end,
    count_standing,
    flush_attack_counts,
    next_in_rotation,
    record_down,
    record_duel_ends,
    record_end,
    record_event,
    record_field,
    record_round_downs,
    sides_standing,
    turn_order,
)
from simlab.engine.jit import chunked, inline_kernel, internal_kernel, kernel, unlikely
from simlab.engine.rng import (
    CURSOR_GROUP,
    STREAM_ATTACK,
    STREAM_DAMAGE,
    STREAM_ORDER,
    STREAM_SAVE,
    STREAM_STATUS,
    cursor_at,
    cursor_code,
    cursor_dice,
    cursor_fresh,
    cursor_loaded,
    dice_source,
    first_blocks,
    forget_batch,
    new_state,
    outcomes_within,
    roll_die,
    roll_die_in_line,
    roll_die_marked,
    roll_die_short,
    start_encounter,
)
from simlab.rules.arrays import per_params
from simlab.rules.glitters_d20.compile import (
    A_BONUS,
    A_CT,
    A_DEX,
    A_FLAT,
    A_HAND,
    A_NET_ADVANTAGE,
    A_RANGED,
    A_TERM_COUNT,
    A_TERM_START,
    A_TYPE,
    A_VS_ARMOR,
    C_ARMOR,
    C_ARMOR_BC,
    C_BLEEDING,
    C_BURNING,
    C_DC,
    C_DEFENSE,
    C_FREEZING,
    C_HP,
    C_INITIATIVE,
    C_MAIN_COUNT,
    C_MAIN_START,
    C_METAL,
    C_NO_BLEEDING,
    C_NO_BURNING,
    C_NO_FREEZING,
    C_OFF_COUNT,
    C_OFF_START,
    C_PARRY,
    C_PLAYER,
    C_POLICY,
    C_PRONE,
    C_SHIELD_BC,
    C_SIDE,
    C_STR,
    C_WILL,
    G_ADVANTAGE_DICE,
    G_BURNING_DECAY,
    G_HIT_ON_TIE,
    G_MAX_ROUNDS,
    G_MIT_BASE,
    G_N_SIDES,
    G_PERMADEATH,
    G_RANDOM_TIES,
    G_ROUND_UP,
    G_SAVES_AFTER,
    G_THAW,
    HAND_CODE,
    N_ATTACK_FIELDS,
    N_COMBATANT_FIELDS,
    T_COUNT,
    T_SIDES,
    TYPE_BONUS,
    TYPE_CODE,
)

# state fields
(HP, DOWN, DOWN_ROUND, RECEIVED, DOWN_RECEIVED, MAIN_ROT, OFF_ROT, INIT, ORDER, ARMOR_BC,
 SHIELD_BC, BLOCKING, PARRY_READY, BLEEDING, BURNING, FREEZING, FROZEN, FROZEN_ROUND,
 DYING, SAVES, FAILS, STABLE_ROUND, DEAD_ROUND, QUEUE) = range(24)  # fmt: skip
N_FIELDS = 24

TIER_ROW = 21  # a row of a duel's tiers by natural die (duel_tiers): 1..20, 0 unused
# a row of duel_dice_plan: the dice rolled, the damage added unrolled, then each die's faces
PLAN_COUNT, PLAN_FIXED, PLAN_DICE = 0, 1, 2

# event_round axis 1 (compile.EVENTS)
EVENT_DEAD, EVENT_STABLE, EVENT_FROZEN = 0, 1, 2

# trace row kinds
KIND_TURN, KIND_ATTACK, KIND_BLEEDING, KIND_BURNING, KIND_SAVE = range(5)

MAX_ROLL_DICE = 5  # params.advantage_dice ≤ 5
MAX_TRACED_DAMAGE_DICE = 8
DEATH_SAVE_DT = 10  # text: ≥ 10 a save, ≤ 9 a fail
DEATH_SAVES_NEEDED = 3
DEATH_FAILS_NEEDED = 3
BURNING_DIE = 4  # text: 1d4 fire damage each turn
TWO_HANDED = HAND_CODE["two-handed"]
SLASHING, BLUDGEONING = TYPE_CODE["slashing"], TYPE_CODE["bludgeoning"]
FIRE, ICE, FORCE = TYPE_CODE["fire"], TYPE_CODE["ice"], TYPE_CODE["force"]
LIGHTNING, CORROSIVE = TYPE_CODE["lightning"], TYPE_CODE["corrosive"]
DEFENSE_BLOCK, DEFENSE_PARRY = 1, 2  # compile.DEFENSE_CODE

TRACE_COLUMNS = (
    "encounter", "round", "turn", "kind", "attacker", "attack", "defender", "initiative",
    "d20_1", "d20_2", "d20_3", "d20_4", "d20_5", "natural", "roll_total", "mit", "parried",
    "blocking", "crit", "hit",
    "dmg_die1", "dmg_die2", "dmg_die3", "dmg_die4", "dmg_die5", "dmg_die6", "dmg_die7",
    "dmg_die8", "asm", "raw_damage", "affinity", "immune", "damage", "hp_after", "down",
    "bleeding", "burning", "freezing", "frozen", "armor_bc", "shield_bc", "pain",
    "save_die", "saves", "fails", "stable", "dead",
)  # fmt: skip
N_TRACE = len(TRACE_COLUMNS)
KIND_NAMES = ("turn", "attack", "bleeding", "burning", "save")
(COL_ENCOUNTER, COL_ROUND, COL_TURN, COL_KIND, COL_ATTACKER, COL_ATTACK, COL_DEFENDER,
 COL_INITIATIVE) = range(8)  # fmt: skip
COL_D20 = TRACE_COLUMNS.index("d20_1")
(COL_NATURAL, COL_TOTAL, COL_MIT, COL_PARRIED, COL_BLOCKING, COL_CRIT,
 COL_HIT) = range(COL_D20 + MAX_ROLL_DICE, COL_D20 + MAX_ROLL_DICE + 7)  # fmt: skip
COL_DAMAGE_DICE = TRACE_COLUMNS.index("dmg_die1")
(COL_ASM, COL_RAW, COL_AFFINITY, COL_IMMUNE, COL_DAMAGE, COL_HP_AFTER, COL_DOWN, COL_BLEEDING,
 COL_BURNING, COL_FREEZING, COL_FROZEN, COL_ARMOR_BC, COL_SHIELD_BC, COL_PAIN, COL_SAVE_DIE,
 COL_SAVES, COL_FAILS, COL_STABLE, COL_DEAD) = range(
    COL_DAMAGE_DICE + MAX_TRACED_DAMAGE_DICE, N_TRACE)  # fmt: skip


# -- parameters -----------------------------------------------------------------------


@inline_kernel
def combatant_value(p, field, c):
    """``p.combatant[field, c]``, read from ``p.by_combatant``, its copy flat by
    combatant (``encounter.record_field``). With :func:`attack_value` so, against the
    two-dimensional tables (``bench_ab``, one thread, six rounds): the benchmark fight
    1.054x (1.049-1.061), ``party-vs-monsters`` 1.036x, ``knight-vs-skeleton`` 1.059x.
    The damage terms, immunities and affinities read so as well made the fights slower
    again (1.040x, 1.019x and 1.009x)."""
    return record_field(p.by_combatant, N_COMBATANT_FIELDS, c, field)


@inline_kernel
def attack_value(p, field, a):
    """``p.attack[field, a]``, read from ``p.by_attack``, its copy flat by attack
    (``encounter.record_field``)."""
    return record_field(p.by_attack, N_ATTACK_FIELDS, a, field)


# -- trace ----------------------------------------------------------------------------


@internal_kernel
def open_row(trace, n_trace, enc, rnd, turn, kind, actor, attack, defender, init):
    """Start a trace row (zeroed) and return its index; −1 when not tracing."""
    if trace.shape[0] <= 1:
        return -1
    slot = min(n_trace[0], trace.shape[0] - 1)
    n_trace[0] += 1
    trace[slot, :] = 0
    trace[slot, COL_ENCOUNTER], trace[slot, COL_ROUND], trace[slot, COL_TURN] = enc, rnd, turn
    trace[slot, COL_KIND], trace[slot, COL_ATTACKER] = kind, actor
    trace[slot, COL_ATTACK], trace[slot, COL_DEFENDER] = attack, defender
    trace[slot, COL_INITIATIVE] = init
    return slot


@inline_kernel
def traced_row(traced, trace, n_trace, enc, rnd, turn, kind, actor, attack, defender, init):
    """:func:`open_row` when ``traced``, else −1 (no row) without a call."""
    if not traced:
        return -1
    return open_row(trace, n_trace, enc, rnd, turn, kind, actor, attack, defender, init)


@internal_kernel
def close_row(st, trace, slot, c):
    """Record combatant ``c``'s HP and statuses after the event of row ``slot``."""
    if slot < 0:
        return
    row = trace[slot]
    row[COL_HP_AFTER], row[COL_DOWN] = st[HP, c], st[DOWN, c]
    row[COL_BLEEDING], row[COL_BURNING], row[COL_FREEZING] = (
        st[BLEEDING, c], st[BURNING, c], st[FREEZING, c])  # fmt: skip
    row[COL_FROZEN], row[COL_ARMOR_BC], row[COL_SHIELD_BC] = (
        st[FROZEN, c], st[ARMOR_BC, c], st[SHIELD_BC, c])  # fmt: skip
    row[COL_SAVES], row[COL_FAILS] = st[SAVES, c], st[FAILS, c]
    row[COL_STABLE], row[COL_DEAD] = int(st[STABLE_ROUND, c] > 0), int(st[DEAD_ROUND, c] > 0)


# -- rules ----------------------------------------------------------------------------


@inline_kernel
def halve(p, value):
    """Half of ``value``, rounded by ``params.rounding`` (docs/rules/glitters-d20.md [default]:
    down)."""
    return (value + p.globals_[G_ROUND_UP]) // 2


@inline_kernel
def effective_affinity(p, st, c, damage_type):
    """−1 resistant, 0 neither, 1 vulnerable to ``damage_type`` right now.

    Frozen makes a combatant vulnerable to force and bludgeoning and resistant to all
    else (seed 003, "Status Effects"), adding to its own affinity; ×2 and ×½ do not
    stack (a vulnerable combatant frozen stays ×2).
    """
    affinity = p.affinity[c, damage_type]
    if st[FROZEN, c] != 0:
        affinity += 1 if damage_type == FORCE or damage_type == BLUDGEONING else -1  # noqa: SIM109
    return max(-1, min(1, affinity))


@inline_kernel
def type_damage(p, st, c, damage_type, amount):
    """Damage ``c`` takes from ``amount`` of ``damage_type``: vulnerability ×2,
    resistance ×½ (rounded by ``params.rounding``), immunity ×0 (docs/rules/glitters-d20.md).

    Vulnerability doubles by a shift, not a branch (the defender and the damage type
    follow the turn order; resistance, rare in the fights, keeps its branch): with
    :func:`hit_damage`'s Freezing by a product, per attack (callgrind, instructions and
    mispredicted conditional branches): the benchmark fight 633.9 -> 637.8 and 6.50 ->
    6.35, ``party-vs-monsters`` 563.0 -> 566.2 and 6.71 -> 6.62."""
    if p.immune[c, damage_type] != 0:
        return 0
    affinity = effective_affinity(p, st, c, damage_type)
    doubled = amount << int(affinity > 0)
    return halve(p, amount) if affinity < 0 else doubled


@inline_kernel
def mitigation(p, st, defender, damage_type):
    """The defender's MIT against one attack before any Parry (docs/rules/glitters-d20.md).

    MIT = ``mit_base`` + DC + BC. DC is 0 while Frozen (incapacitated), halved while
    Prone (``C_DC`` holds the DC so halved, :mod:`.compile`). BC is the armor's
    (corroded) BC — none against lightning when the armor is metal — plus the shield's,
    doubled while blocking (a shift by ``BLOCKING``, 0 or 1). With the halving worked
    out once a scenario and the shift, instructions an attack (callgrind): the
    benchmark fight 662.5 -> 656.7, ``party-vs-monsters`` 590.2 -> 586.0.
    """
    dc = 0 if st[FROZEN, defender] != 0 else combatant_value(p, C_DC, defender)
    armor = st[ARMOR_BC, defender]
    if damage_type == LIGHTNING and combatant_value(p, C_METAL, defender) != 0:
        armor = 0
    shield = st[SHIELD_BC, defender] << st[BLOCKING, defender]
    return p.globals_[G_MIT_BASE] + dc + armor + shield


@inline_kernel
def type_to_hit(p, attack, defender):
    """+3 to hit for bludgeoning against plate and piercing against mail
    (docs/rules/glitters-d20.md): the attack's ``A_VS_ARMOR`` (:mod:`.compile`) is the
    defender's armor. One compare, not the type's and the armor's (with the turn's
    status ticks skipped when there is none, :func:`take_turn`), instructions an attack
    (callgrind): the benchmark fight 652.3 -> 644.9, ``party-vs-monsters`` 578.4 ->
    571.3."""
    return (
        TYPE_BONUS
        if combatant_value(p, C_ARMOR, defender) == attack_value(p, A_VS_ARMOR, attack)
        else 0
    )


@inline_kernel
def natural_die(p, rng, net, trace, slot):
    """The natural d20 of an attack: one d20, or ``advantage_dice`` d20s keeping the
    highest (net advantage > 0) or lowest (< 0) (docs/rules/glitters-d20.md [default]: 2d20)."""
    n = 1 if net == 0 else p.globals_[G_ADVANTAGE_DICE]
    kept = 0
    for i in range(n):
        die = roll_die_in_line(rng, STREAM_ATTACK, 20)
        if slot >= 0:
            trace[slot, COL_D20 + i] = die
        kept = kept_die(net, i, die, kept)
    return kept


@inline_kernel
def kept_die(net, i, die, kept):
    """The natural die once the ``i``-th of its d20s (from 0) shows ``die``, ``kept``
    before it: the highest with net advantage, the lowest with net disadvantage
    (:func:`natural_die`)."""
    if i == 0 or (net > 0 and die > kept) or (net < 0 and die < kept):
        return die
    return kept


@inline_kernel
def attack_d20s(p, net):
    """How many d20s an attack of net advantage ``net`` (:func:`attack_net`) rolls for
    its natural die: one, or ``advantage_dice`` with net advantage or disadvantage
    (:func:`natural_die`)."""
    return 1 if net == 0 else p.globals_[G_ADVANTAGE_DICE]


@internal_kernel
def duel_code_tiers(p, attack, defender, tiers, code_tiers):
    """The tier of ``attack`` at ``defender`` in a plain duel by the number its d20s
    read as one (``rng.cursor_code``: the first die most significant):
    ``code_tiers[code]`` is ``tiers[attack, natural]`` (:func:`duel_tiers`) for the
    natural die :func:`natural_die` keeps of those d20s (:func:`attack_d20s` of them)."""
    net = attack_net(p, attack, defender)
    d20s = attack_d20s(p, net)
    for code in range(20**d20s):
        kept = 0
        for i in range(d20s):
            die = (code // 20 ** (d20s - 1 - i)) % 20 + 1
            kept = kept_die(net, i, die, kept)
        code_tiers[code] = tiers[attack, kept]


@inline_kernel
def natural_from_cursor(p, source, buffer, cursor, net):
    """:func:`natural_die` drawn through a cursor of the attack stream's d20s
    (``rng.cursor_code``, the same dice); returns the natural die and the cursor."""
    n = 1 if net == 0 else p.globals_[G_ADVANTAGE_DICE]
    kept = 0
    for i in range(n):
        code, cursor = cursor_code(source, buffer, cursor, 1, np.uint64(20))
        kept = kept_die(net, i, code + 1, kept)
    return kept, cursor


@inline_kernel
def damage_dice(p, rng, attack, crit, trace, slot):
    """The attack's damage dice; on a critical hit one bonus die per damage die, the
    first bonus die at its maximum (docs/rules/glitters-d20.md "Critical"; 1d10 → 10 + 1d10).

    The dice are traced in order (base dice, then bonus dice), the first eight. The bonus
    dice in a second loop of their own, only on a critical hit, rather than one loop
    over both that tests each die: instructions an attack (callgrind) the benchmark
    fight 770.8 -> 744.4, ``party-vs-monsters`` 685.9 -> 661.6.
    """
    start = attack_value(p, A_TERM_START, attack)
    stop = start + attack_value(p, A_TERM_COUNT, attack)
    total, k = term_dice(p, rng, start, stop, False, trace, slot, 0)
    if crit:
        bonus, k = term_dice(p, rng, start, stop, True, trace, slot, k)
        total += bonus
    return total


@inline_kernel
def term_dice(p, rng, start, stop, bonus, trace, slot, k):
    """The dice of terms ``start .. stop-1`` (:func:`damage_dice`), the bonus dice when
    ``bonus`` (the first at its maximum); ``k`` dice traced before them. Returns their
    total and ``k`` after them. The dice are ``rng.roll_die_marked``'s (the same dice as
    ``roll_die``'s; nothing else draws from the damage stream in a fight): a new batch
    is found by one compare of the die's size, which changes with the attack from roll
    to roll. Per attack (callgrind, instructions and mispredicted conditional
    branches): the benchmark fight 624.3 -> 628.7 and 5.77 -> 5.52,
    ``party-vs-monsters`` 556.6 -> 561.6 and 6.06 -> 5.84."""
    total = 0
    for term in range(start, stop):
        sides = p.terms[T_SIDES, term]
        for i in range(p.terms[T_COUNT, term]):
            if bonus and term == start and i == 0:
                face = sides  # the first bonus die takes its maximum
            else:
                face = roll_die_marked(rng, STREAM_DAMAGE, sides)
            if slot >= 0 and k < MAX_TRACED_DAMAGE_DICE:
                trace[slot, COL_DAMAGE_DICE + k] = face
            k += 1
            total += face
    return total, k


@inline_kernel
def go_down(p, st, c, rnd, standing):
    """``c`` reaches 0 HP: unconscious, out of the fight (docs/rules/glitters-d20.md "HP 0").

    A player character under permadeath starts dying (death saves on its turns); its
    statuses end (reading: nothing ticks on an unconscious body).
    """
    st[HP, c] = 0
    st[DOWN, c] = 1
    st[DOWN_ROUND, c] = rnd
    st[DOWN_RECEIVED, c] = st[RECEIVED, c]
    standing[combatant_value(p, C_SIDE, c)] -= 1
    st[BLEEDING, c], st[BURNING, c], st[FREEZING, c], st[FROZEN, c] = 0, 0, 0, 0
    st[BLOCKING, c], st[PARRY_READY, c] = 0, 0
    if combatant_value(p, C_PLAYER, c) != 0 and p.globals_[G_PERMADEATH] != 0:
        st[DYING, c] = 1


@inline_kernel
def lose_hp(p, st, c, damage, rnd, standing):
    """Take ``damage`` off ``c``'s HP; at 0 it is down."""
    st[HP, c] -= damage
    if st[HP, c] <= 0 and st[DOWN, c] == 0:
        go_down(p, st, c, rnd, standing)


@inline_kernel
def freeze_check(p, st, c, rnd):
    """Freezing above STR makes ``c`` Frozen: incapacitated, Burning ends, no Block or
    Parry (seed 003, "Status Effects")."""
    if st[FROZEN, c] == 0 and st[FREEZING, c] > combatant_value(p, C_STR, c):
        st[FROZEN, c] = 1
        if st[FROZEN_ROUND, c] == 0:
            st[FROZEN_ROUND, c] = rnd
        st[BURNING, c] = 0
        st[BLOCKING, c] = 0
        st[PARRY_READY, c] = 0


@inline_kernel
def inflict_status(p, st, c, damage_type, rnd):
    """What a hit of ``damage_type`` does besides damage (docs/rules/glitters-d20.md).

    Slashing +1 Bleeding, fire +1 Burning, ice +1 Freezing — none against immunity to
    the type or to the status; one Burning and one Freezing cancel each other, so fire
    first removes a Freezing level and ice a Burning level. A Frozen combatant gains no
    Burning. Corrosive lowers BC by 1, the armor's first, then the shield's, not below 0.

    Immunity to the type is read only for the three types that inflict a status (no
    read for a piercing or bludgeoning hit): instructions an attack (callgrind) the
    benchmark fight 644.0 -> 638.5, ``party-vs-monsters`` 569.7 -> 562.9.
    """
    if damage_type == CORROSIVE:
        if st[ARMOR_BC, c] > 0:
            st[ARMOR_BC, c] -= 1
        elif st[SHIELD_BC, c] > 0:
            st[SHIELD_BC, c] -= 1
        return
    if damage_type == SLASHING:
        if combatant_value(p, C_NO_BLEEDING, c) == 0 and p.immune[c, SLASHING] == 0:
            st[BLEEDING, c] += 1
    elif damage_type == FIRE:
        if p.immune[c, FIRE] != 0:
            return
        if st[FREEZING, c] > 0:
            st[FREEZING, c] -= 1
        elif combatant_value(p, C_NO_BURNING, c) == 0 and st[FROZEN, c] == 0:
            st[BURNING, c] += 1
    elif damage_type == ICE:
        if p.immune[c, ICE] != 0:
            return
        if st[BURNING, c] > 0:
            st[BURNING, c] -= 1
        elif combatant_value(p, C_NO_FREEZING, c) == 0:
            st[FREEZING, c] += 1
            freeze_check(p, st, c, rnd)


@inline_kernel
def attack_net(p, attack, defender):
    """The attack's net advantage: its own, less one for a ranged attack at a prone
    target (docs/rules/glitters-d20.md)."""
    net = attack_value(p, A_NET_ADVANTAGE, attack)
    if attack_value(p, A_RANGED, attack) != 0 and combatant_value(p, C_PRONE, defender) != 0:
        net -= 1
    return net


@inline_kernel
def attack_outcome(p, attack, defender, natural, mit):
    """(total, crit, hit) of an attack whose natural die shows ``natural`` against MIT
    ``mit`` (seed 003, "Attacking", "Critical Hits"): a natural die at least CT always
    hits and is critical; otherwise it hits when its total reaches MIT
    (``hit_on_tie``)."""
    total = natural + attack_value(p, A_BONUS, attack) + type_to_hit(p, attack, defender)
    crit = natural >= attack_value(p, A_CT, attack)
    hit = crit or total > mit or (total == mit and p.globals_[G_HIT_ON_TIE] != 0)
    return total, crit, hit


@inline_kernel
def hit_damage(p, st, attacker, attack, defender, dice):
    """(ASM, raw damage, damage) of a hit whose damage dice total ``dice`` (seed 003,
    "Damage", "Damage Types"): dice + ASM + flat (floor 0), then the type's
    multiplier. Freezing lowers a DEX attack's ASM by a product with ``A_DEX``, not a
    branch on the attack (counted with :func:`type_damage`'s shift)."""
    # Freezing: −1 DEX per level; A_DEX is 0 or 1
    asm = p.score[attacker, attack] - 10 - st[FREEZING, attacker] * attack_value(p, A_DEX, attack)
    raw = max(dice + asm + attack_value(p, A_FLAT, attack), 0)
    return asm, raw, type_damage(p, st, defender, attack_value(p, A_TYPE, attack), raw)


@inline_kernel
def resolve_attack(p, st, rng, attacker, attack, defender, rnd, standing, trace, slot):
    """One attack: d20 + bonus against MIT, then damage and statuses (docs/rules/glitters-d20.md;
    seed 003, "Attacking", "Critical Hits", "Damage", "Damage Types").

    A defender that parries and has not parried since its last turn parries this attack
    (chosen before the roll). The natural die (:func:`attack_net`) decides the hit
    (:func:`attack_outcome`), the damage dice the damage (:func:`hit_damage`). Returns
    (tier, damage). A miss takes no HP (no :func:`lose_hp`); with the tally's index
    unsigned in :func:`attack_actions`, instructions an attack (callgrind) the benchmark
    fight 644.9 -> 641.8, ``party-vs-monsters`` 571.3 -> 569.6.
    """
    damage_type = attack_value(p, A_TYPE, attack)
    mit = mitigation(p, st, defender, damage_type)
    parried = st[PARRY_READY, defender]
    if parried != 0:
        st[PARRY_READY, defender] = 0
        mit += combatant_value(p, C_PARRY, defender)
    natural = natural_die(p, rng, attack_net(p, attack, defender), trace, slot)
    total, crit, hit = attack_outcome(p, attack, defender, natural, mit)
    damage = 0
    asm = 0
    raw = 0
    if hit:
        dice = damage_dice(p, rng, attack, crit, trace, slot)
        asm, raw, damage = hit_damage(p, st, attacker, attack, defender, dice)
    if slot >= 0:
        row = trace[slot]
        row[COL_NATURAL], row[COL_TOTAL], row[COL_MIT] = natural, total, mit
        row[COL_PARRIED], row[COL_BLOCKING] = parried, st[BLOCKING, defender]
        row[COL_CRIT], row[COL_HIT], row[COL_ASM], row[COL_RAW] = int(crit), int(hit), asm, raw
        row[COL_AFFINITY] = effective_affinity(p, st, defender, damage_type)
        row[COL_IMMUNE], row[COL_DAMAGE] = p.immune[defender, damage_type], damage
    st[RECEIVED, defender] += 1
    if hit:
        lose_hp(p, st, defender, damage, rnd, standing)
        if st[DOWN, defender] == 0:
            inflict_status(p, st, defender, damage_type, rnd)
    if slot >= 0:
        close_row(st, trace, slot, defender)
    tier = 0
    if hit:
        tier = 2 if crit else 1
    return tier, damage


@inline_kernel
def trace_save(st, trace, slot, c, die):
    """Record a death save's die and ``c``'s state after it in trace row ``slot`` (none
    when −1)."""
    if slot >= 0:
        trace[slot, COL_SAVE_DIE] = die
        close_row(st, trace, slot, c)


@inline_kernel
def save_roll(st, rng, c, rnd):
    """A dying player character's death save (docs/rules/glitters-d20.md "HP 0"); returns
    the die.

    d20: a natural 20 stabilises at once; ≥ 10 is a save, ≤ 9 a fail; three saves make
    it stable, three fails dead.

    In line, in the turn and in :func:`aftermath`, with the trace row closed apart
    (:func:`trace_save`): as a kernel called for every save (``death_save``), each call
    passed the state, RNG and trace arrays and, untraced, called :func:`close_row` for
    nothing. Counted (callgrind, one thread): 72 instructions a save in the called
    kernel, 50 more to call it; the benchmark fight 10,144 -> 10,045 instructions an
    encounter with this, :func:`~simlab.engine.encounter.turn_order` in line and the
    tally batch found by a compare (:func:`play_chunk`). Timed before (``bench_ab``), in
    line in the turn gave 0.99-1.06x.
    """
    die = roll_die(rng, STREAM_SAVE, 20)
    if die == 20:
        st[SAVES, c] += 1
        st[STABLE_ROUND, c] = rnd
    elif die >= DEATH_SAVE_DT:
        st[SAVES, c] += 1
        if st[SAVES, c] >= DEATH_SAVES_NEEDED:
            st[STABLE_ROUND, c] = rnd
    else:
        st[FAILS, c] += 1
        if st[FAILS, c] >= DEATH_FAILS_NEEDED:
            st[DEAD_ROUND, c] = rnd
    if st[STABLE_ROUND, c] > 0 or st[DEAD_ROUND, c] > 0:
        st[DYING, c] = 0
    return die


@internal_kernel
def status_tick(p, st, rng, c, rnd, standing, trace, slot, kind):
    """One status's damage at the start of ``c``'s turn (docs/rules/glitters-d20.md "Status
    effects"); returns the damage, which the caller tallies as status damage.

    Bleeding L deals L, then drops to L − 1. Burning deals 1d4 fire damage (fire
    resistance, vulnerability and immunity apply), then loses ``burning_decay`` levels.
    The damage counts toward time-to-down.

    Burning's d4 is :func:`~simlab.engine.rng.roll_die_short`'s (the stream draws a
    word or two an encounter): 9,700 -> 9,614 instructions an encounter of the
    benchmark fight (callgrind). The death save's d20 so drawn gave 9,881 and the
    damage dice 10,015 against 10,003, left as they were.
    """
    if kind == KIND_BLEEDING:
        damage = st[BLEEDING, c]
        st[BLEEDING, c] -= 1
        raw = damage
    else:
        raw = roll_die_short(rng, STREAM_STATUS, BURNING_DIE)
        damage = type_damage(p, st, c, FIRE, raw)
        st[BURNING, c] = max(st[BURNING, c] - p.globals_[G_BURNING_DECAY], 0)
        if slot >= 0:
            trace[slot, COL_DAMAGE_DICE] = raw
            trace[slot, COL_AFFINITY] = effective_affinity(p, st, c, FIRE)
            trace[slot, COL_IMMUNE] = p.immune[c, FIRE]
    if slot >= 0:
        trace[slot, COL_RAW], trace[slot, COL_DAMAGE] = raw, damage
    lose_hp(p, st, c, damage, rnd, standing)
    close_row(st, trace, slot, c)
    return damage


@inline_kernel
def hand_attack(p, st, c, start, count, position):
    """The next of ``c``'s attacks for one hand, listed from its combatant field
    ``start`` (field ``count`` of them), in rotation, ``st[position, c]`` marking where
    it stands; −1 if none. No branch on the count (which combatant acts is the turn
    order's, which no predictor foresees): the entry at the rotation's place is read
    (``attack_list`` ends with a spare entry, :mod:`.compile`, so that a hand without
    attacks reads in bounds), the rotation moves on by a compare (one attack: it stays
    at 0), and a hand without attacks gives −1 by a select."""
    n = combatant_value(p, count, c)
    at = st[position, c]
    attack = p.attack_list[np.uint64(combatant_value(p, start, c) + at)]
    st[position, c] = next_in_rotation(at, n)
    return attack if n > 0 else -1


@inline_kernel
def strike(p, st, rng, c, attack, rnd, turn, standing, enc, trace, n_trace, traced):
    """``c`` makes ``attack`` at a target chosen by its policy (:func:`resolve_attack`).

    Returns (target, tier, damage), the target −1 when no enemy is left standing; the
    caller records the attack. Inlined into the turn: the fights ran 1.26-1.35x as fast
    as with a call (four alternated rounds of ``bench_scenarios`` on one thread), for
    2.6 s more compile on the first run of ``party-vs-monsters`` (10.5 -> 13.0 s).
    The target is passed on unsigned (:func:`play_round` says why).
    """
    target = choose_target(p.enemies[c], st[DOWN], st[HP], combatant_value(p, C_POLICY, c), rng)
    if target < 0:
        return target, 0, 0
    defender = np.uint64(target)
    slot = traced_row(traced, trace, n_trace, enc, rnd, turn, KIND_ATTACK, c, attack, defender,
                      st[INIT, c])  # fmt: skip
    tier, damage = resolve_attack(p, st, rng, c, attack, defender, rnd, standing, trace, slot)
    return target, tier, damage


@inline_kernel
def attack_actions(p, st, rng, t, tallies, ch, batch, c, rnd, turn, standing, enc, trace,
                   n_trace, traced):  # fmt: skip
    """``c``'s actions (seed 003, "Actions"): its main-hand attack, in rotation — or a
    two-handed one, which also takes the offhand action — then it Blocks (``defense:
    block``) or makes its offhand attack. One call of :func:`strike` for both hands,
    so that it is compiled once. False when the encounter is over: the sides are counted
    only when the target went down, the one way an attack ends it (instructions an
    attack, callgrind: the benchmark fight 811.1 -> 796.6, ``party-vs-monsters`` 716.6
    -> 702.8).

    After the main-hand attack one branch decides whether an offhand attack follows
    (none after a two-handed attack, none for a blocker, none without offhand attacks),
    and a blocker's Block is written by arithmetic, where the loop had a branch on each
    of those; with :func:`hand_attack` free of its branch on the count, per attack
    (callgrind, one thread, instructions and mispredicted conditional branches in its
    branch model): the benchmark fight 638.5 -> 633.9 and 7.12 -> 6.50,
    ``party-vs-monsters`` 562.5 -> 563.0 and 7.01 -> 6.71. Which combatant acts follows
    the shuffled turn order, so a branch on its attacks or defence is a guess. The
    offhand action as data (:func:`offhand_action`), so that the loop over a turn's
    attacks branches only on whether one more follows (not on the hand as well): 637.3
    -> 624.3 and 5.72 -> 5.77, 564.6 -> 556.6 and 6.12 -> 6.06."""
    attack = hand_attack(p, st, c, C_MAIN_START, C_MAIN_COUNT, MAIN_ROT)
    more = 1  # the offhand action is still to come
    if attack < 0:  # no main-hand attack: the offhand action alone
        attack = offhand_action(p, st, c, 0, 1)
        more = 0
    while attack >= 0:
        target, tier, damage = strike(p, st, rng, c, attack, rnd, turn, standing, enc, trace,
                                      n_trace, traced)  # fmt: skip
        if target < 0:
            return False
        defender = np.uint64(target)
        pair = (c * np.uint64(p.attack.shape[1]) + np.uint64(attack)) * np.uint64(
            st.shape[1]
        ) + defender
        tally_attack(tallies, t, pair, batch, tier, damage)
        if st[DOWN, defender] != 0 and sides_standing(standing) <= 1:
            return False
        attack = offhand_action(p, st, c, int(attack_value(p, A_HAND, attack) == TWO_HANDED), more)
        more = 0
    return True


@inline_kernel
def offhand_action(p, st, c, two, more):
    """``c``'s offhand action after its main action (``two`` 1 when that was a
    two-handed attack, which takes the offhand action too), when ``more`` is 1 (0 once
    it is taken): a blocker Blocks, anyone else with offhand attacks makes the next in
    rotation (:func:`hand_attack`, its rotation moved only then), returned; −1 when no
    offhand attack follows. Without a branch: the caller's loop branches once, on the
    attack returned."""
    blocks = int(combatant_value(p, C_DEFENSE, c) == DEFENSE_BLOCK)
    st[BLOCKING, c] |= more & blocks & (1 - two)
    n = combatant_value(p, C_OFF_COUNT, c)
    go = more & (1 - blocks) & (1 - two) & int(n > 0)
    at = st[OFF_ROT, c]
    attack = p.attack_list[np.uint64(combatant_value(p, C_OFF_START, c) + at)]
    st[OFF_ROT, c] = next_in_rotation(at, n) if go != 0 else at
    return attack if go != 0 else -1


@inline_kernel
def attack_tallies(t, ch):
    """Chunk ``ch``'s per-attack tallies as flat views (:func:`tally_attack`): attempts,
    hits, crits, damage sums, damage histogram."""
    return (
        t.attempts[ch].reshape(t.attempts[ch].size),
        t.hits[ch].reshape(t.hits[ch].size),
        t.crits[ch].reshape(t.crits[ch].size),
        t.damage_sum[ch].reshape(t.damage_sum[ch].size),
        t.damage_hist[ch].reshape(t.damage_hist[ch].size),
    )


@inline_kernel
def tally_attack(tallies, t, pair, batch, tier, damage):
    """:func:`encounter.record_attack` through the flat views of
    :func:`attack_tallies`, by one unsigned index (no code for a negative index, one
    offset for the four tallies of the same shape). Instructions an attack (callgrind,
    one thread): the benchmark fight 796.6 -> 770.8, ``party-vs-monsters`` 702.8 ->
    685.9; with views of the chunk's own slice (no chunk in the index) 724.2 -> 713.2
    and 646.2 -> 637.7."""
    attempts, hits, crits, damage_sum, damage_hist = tallies
    row = np.uint64(pair)
    i = row * np.uint64(t.attempts.shape[2]) + np.uint64(batch)
    attempts[i] += 1
    damage_sum[i] += damage
    bins = t.damage_hist.shape[2]
    damage_hist[row * np.uint64(bins) + np.uint64(min(damage, bins - 1))] += 1
    if tier > 0:
        hits[i] += 1
        if tier == 2:
            crits[i] += 1


@inline_kernel
def take_turn(p, st, rng, t, tallies, ch, batch, c, rnd, turn, standing, enc, trace, n_trace,
              traced):  # fmt: skip
    """Combatant ``c``'s turn (docs/rules/glitters-d20.md; seed 003, "Actions", "Status Effects").

    A dying player character rolls its death save. Anyone else standing: its Parry is
    ready again and its Block ends; Bleeding, then Burning deal their damage (not while
    Frozen); unless Frozen or in pain (Burning above WILL at the start of the turn), it
    takes its :func:`attack_actions`. Freezing drops
    by 1 at the end of the turn. The ticks' loop is skipped when neither status is on
    (counted with :func:`type_to_hit`'s change). Returns False as soon as at most one
    side is standing.
    """
    init = st[INIT, c]
    if st[DOWN, c] != 0:
        if st[DYING, c] != 0:
            slot = traced_row(traced, trace, n_trace, enc, rnd, turn, KIND_SAVE, c, -1, c, init)
            trace_save(st, trace, slot, c, save_roll(st, rng, c, rnd))
        return True
    slot = traced_row(traced, trace, n_trace, enc, rnd, turn, KIND_TURN, c, -1, c, init)
    frozen = st[FROZEN, c] != 0
    pain = st[BURNING, c] > combatant_value(p, C_WILL, c)
    st[BLOCKING, c] = 0
    st[PARRY_READY, c] = int(combatant_value(p, C_DEFENSE, c) == DEFENSE_PARRY and not frozen)
    if slot >= 0:
        trace[slot, COL_PAIN] = int(pain)
        close_row(st, trace, slot, c)
    if not traced and not frozen and not bleed(p, st, t, ch, batch, c, rnd, standing):
        return sides_standing(standing) > 1
    if not frozen and ((st[BLEEDING, c] * int(traced)) | st[BURNING, c]) != 0:
        for kind in (KIND_BLEEDING, KIND_BURNING):
            # untraced, Bleeding has ticked (bleed)
            level = st[BLEEDING, c] * int(traced) if kind == KIND_BLEEDING else st[BURNING, c]
            if level > 0:
                slot = traced_row(traced, trace, n_trace, enc, rnd, turn, kind, c, -1, c, init)
                damage = status_tick(p, st, rng, c, rnd, standing, trace, slot, kind)
                t.status_damage[ch, c, batch] += damage
                if st[DOWN, c] != 0:
                    return sides_standing(standing) > 1
    acts = not frozen and not pain
    if acts and not attack_actions(p, st, rng, t, tallies, ch, batch, c, rnd, turn, standing, enc,
                                   trace, n_trace, traced):  # fmt: skip
        return False
    if st[FREEZING, c] > 0:
        st[FREEZING, c] -= 1
    if frozen and p.globals_[G_THAW] != 0 and st[FREEZING, c] <= combatant_value(p, C_STR, c):
        st[FROZEN, c] = 0
    return True


@inline_kernel
def bleed(p, st, t, ch, batch, c, rnd, standing):
    """Bleeding's damage at the start of ``c``'s turn, untraced (:func:`status_tick`:
    level L deals L, then drops to L - 1), without a branch on whether ``c`` bleeds:
    which combatant acts follows the shuffled turn order, and slashing hits make
    Bleeding come and go, so that branch was a guess. Level 0 deals 0. Returns False
    when ``c`` went down. Against the branch (``bench_ab``, one thread, six rounds): the
    benchmark fight 1.024x (1.017-1.030), ``party-vs-monsters`` 1.015x,
    ``bleeding-duel`` 1.029x; ``knight-vs-skeleton``, where nobody bleeds, 0.988x."""
    level = st[BLEEDING, c]
    st[BLEEDING, c] = level - int(level > 0)
    t.status_damage[ch, c, batch] += level
    # lose_hp in place of these lines (its test of DOWN, which a standing c passes)
    # ran the fights 0.96-0.97x as fast
    st[HP, c] -= level
    if st[HP, c] <= 0:
        go_down(p, st, c, rnd, standing)
        return False
    return True


@inline_kernel
def roll_initiative(p, st, rng):
    """Turn order for the encounter (docs/rules/glitters-d20.md "Initiative").

    Each combatant rolls d20 + its initiative bonus once, in listed order; highest
    first, and on a tie a player character goes before a monster (text). Remaining
    ties go in random order (shuffled before a stable sort), or in listed order with
    ``initiative_ties: listed``. The d20s are :func:`~simlab.engine.rng.roll_die_short`'s,
    like the shuffle's (the stream draws a few words): 9,738 -> 9,700 instructions an
    encounter of the benchmark fight (callgrind).
    """
    for c in range(st.shape[1]):
        st[INIT, c] = roll_die_short(rng, STREAM_ORDER, 20) + combatant_value(p, C_INITIATIVE, c)
    turn_order(rng, st[INIT], p.combatant[C_PLAYER], p.globals_[G_RANDOM_TIES], st[ORDER])


@inline_kernel
def reset(p, st, standing):
    """Start-of-encounter state: full HP, starting statuses (Burning and Freezing
    cancelled one for one; Frozen if Freezing already exceeds STR), Parry ready.

    Only the fields this leaves at 0 are zeroed, in the loop that sets the others
    (``INIT`` and ``ORDER`` are written by :func:`roll_initiative`): the whole state
    zeroed first was a ``memset`` call per field, 23 an encounter, about 260
    instructions of the benchmark fight's 10,600 in ``memset`` alone (callgrind). The
    fields only a downed combatant sets (``go_down`` and the death saves) are zeroed
    only for those down, as nothing sets ``DOWN`` back to 0 in an encounter: 9,614 ->
    9,524 instructions an encounter. That is done at the end of the encounter before
    (:func:`finish`, the chunk's state starting at zero), under the branch on whether
    the combatant went down that its tally takes anyway, instead of a second branch on
    it here that no predictor foresees: per attack (callgrind, instructions and
    mispredicted conditional branches) the benchmark fight 633.2 -> 637.3 and 5.98 ->
    5.72, ``party-vs-monsters`` 558.7 -> 564.6 and 6.25 -> 6.12. Tried and left out
    (callgrind): a copy of a start state worked out once a chunk (its flat view a call
    to numba's reshape, then its rows copied one by one: 10,645); the zeroed rows
    through a flat view made once a chunk, one ``memset`` after reordering the fields
    (10,517) or three in this order (10,584), against 10,003 then."""
    for c in range(st.shape[1]):
        st[RECEIVED, c], st[MAIN_ROT, c], st[OFF_ROT, c], st[BLOCKING, c] = 0, 0, 0, 0
        st[FROZEN, c], st[FROZEN_ROUND, c] = 0, 0
        st[HP, c] = combatant_value(p, C_HP, c)
        st[ARMOR_BC, c] = combatant_value(p, C_ARMOR_BC, c)
        st[SHIELD_BC, c] = combatant_value(p, C_SHIELD_BC, c)
        st[BLEEDING, c] = combatant_value(p, C_BLEEDING, c)
        both = min(combatant_value(p, C_BURNING, c), combatant_value(p, C_FREEZING, c))
        st[BURNING, c] = combatant_value(p, C_BURNING, c) - both
        st[FREEZING, c] = combatant_value(p, C_FREEZING, c) - both
        st[PARRY_READY, c] = int(combatant_value(p, C_DEFENSE, c) == DEFENSE_PARRY)
        freeze_check(p, st, c, 1)
    count_standing(p.combatant[C_SIDE], standing)


@inline_kernel
def play_round(p, st, rng, t, tallies, ch, batch, rnd, standing, enc, trace, n_trace, traced):
    """Every combatant not out takes its turn in initiative order; False when it is over.

    The combatant is read from the turn order unsigned, so that no index by it in the
    turn checks for a negative one (as :func:`aftermath`); :func:`strike` does the same
    for the target. Instructions an attack (callgrind, one thread): the benchmark fight
    674.7 -> 664.5 (the turn's) -> 662.5 (both), ``party-vs-monsters`` 599.5 -> 590.2."""
    for k in range(st.shape[1]):
        c = np.uint64(st[ORDER, k])
        if not take_turn(p, st, rng, t, tallies, ch, batch, c, rnd, k + 1, standing, enc, trace,
                         n_trace, traced):  # fmt: skip
            return False
    return True


@inline_kernel
def finish(st, t, ch, last_round, standing):
    """Record the encounter's winner, length, each combatant's down round and events
    (``encounter.record_outcome``, its parts), then zero the fields only a downed
    combatant sets, for the next encounter (:func:`reset`), under the same branch on
    whether it went down as its down round's tally."""
    record_end(t, ch, last_round, standing)
    happened = 0
    for c in range(st.shape[1]):
        happened |= st[DEAD_ROUND, c] | st[STABLE_ROUND, c] | st[FROZEN_ROUND, c]
    if happened != 0:
        for c in range(st.shape[1]):
            record_event(t, ch, c, EVENT_DEAD, st[DEAD_ROUND, c], 0)
            record_event(t, ch, c, EVENT_STABLE, st[STABLE_ROUND, c], 0)
            record_event(t, ch, c, EVENT_FROZEN, st[FROZEN_ROUND, c], 0)
    for c in range(st.shape[1]):
        if record_down(t, ch, c, last_round, st[DOWN_ROUND, c], st[DOWN_RECEIVED, c], 0):
            st[DOWN, c], st[DOWN_ROUND, c], st[DOWN_RECEIVED, c], st[DYING, c] = 0, 0, 0, 0
            st[SAVES, c], st[FAILS, c], st[STABLE_ROUND, c], st[DEAD_ROUND, c] = 0, 0, 0, 0


@inline_kernel
def anyone_dying(st):
    """Whether a player character is dying: the fight's :func:`aftermath` only has work
    then (a check in line, as most fights end with nobody dying and a call passes the
    whole parameter tuple)."""
    dying = 0
    for c in range(st.shape[1]):
        dying |= st[DYING, c]
    return dying != 0


@inline_kernel
def aftermath(max_rounds, st, rng, last, enc, trace, n_trace, traced):
    """After the fight (round ``last``), dying player characters go on rolling one
    death save a round, in turn order, until stable or dead or the round cap
    ``max_rounds`` (``death_saves_after_fight``: nobody is there to heal them).

    In line, its saves too (:func:`save_roll`; a row is traced only when ``traced``):
    the benchmark fight took 10,421 instructions an encounter with it a call that
    called a ``death_save`` kernel for each save (the trace arrays passed every time),
    10,144 in line (callgrind, one thread). The combatant read from the turn order
    is unsigned (no wraparound for a negative index,
    :func:`~simlab.engine.encounter.sorted_ties`).

    The dying are listed once, in turn order, by their place in it (the ``QUEUE`` row,
    which only this uses; the list made without a branch), and each round goes through
    that list and keeps those still dying, instead of asking every combatant every round
    whether it is dying, a branch on who went down that no predictor foresees. Per
    attack (callgrind, instructions and mispredicted conditional branches): the
    benchmark fight 637.8 -> 633.2 and 6.35 -> 5.98, ``party-vs-monsters`` 566.2 ->
    558.7 and 6.62 -> 6.25."""
    n = 0
    for k in range(st.shape[1]):
        st[QUEUE, n] = k
        n += int(st[DYING, np.uint64(st[ORDER, k])] != 0)
    for rnd in range(last + 1, max_rounds + 1):
        if n == 0:
            return
        left = 0
        for j in range(n):
            k = st[QUEUE, j]
            c = np.uint64(st[ORDER, k])
            slot = traced_row(traced, trace, n_trace, enc, rnd, k + 1, KIND_SAVE, c, -1, c,
                              st[INIT, c])  # fmt: skip
            trace_save(st, trace, slot, c, save_roll(st, rng, c, rnd))
            st[QUEUE, left] = k
            left += int(st[DYING, c] != 0)
        n = left


@inline_kernel
def play_encounter(p, st, rng, standing, k0, k1, enc, batch, t, tallies, ch, trace, n_trace,
                   traced):  # fmt: skip
    """Play encounter number ``enc`` to its end and add it to chunk ``ch`` of the tallies."""
    start_encounter(rng, k0, k1, enc)
    forget_batch(rng, STREAM_DAMAGE)  # damage dice: roll_die_marked
    reset(p, st, standing)
    roll_initiative(p, st, rng)
    max_rounds = p.globals_[G_MAX_ROUNDS]
    last = max_rounds
    if sides_standing(standing) > 1:
        for rnd in range(1, max_rounds + 1):
            if not play_round(p, st, rng, t, tallies, ch, batch, rnd, standing, enc, trace,
                              n_trace, traced):  # fmt: skip
                last = rnd
                break
    if p.globals_[G_SAVES_AFTER] != 0 and anyone_dying(st):
        aftermath(max_rounds, st, rng, last, enc, trace, n_trace, traced)
    finish(st, t, ch, last, standing)


@inline_kernel
def play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               traced):  # fmt: skip
    """Play chunk ``ch`` of encounters ``first .. first+count-1``, adding into ``t[ch]``
    (there are ``t.attempts.shape[0]`` chunks, each a contiguous slice; the caller sums
    the chunk axis). ``trace`` has one row per traced event when ``traced`` (then run
    with one chunk), or a single unused row otherwise; ``st``, ``standing`` and ``rng``
    are the chunk's working arrays (:func:`chunk_scratch`). An encounter's tally batch
    is found by a compare, not a division (:func:`~simlab.engine.encounter.batch_bounds`;
    counted with :func:`save_roll`'s change)."""
    n_batches = t.attempts.shape[2]
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    tallies = attack_tallies(t, ch)
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for enc in range(lo, hi):
        if unlikely(enc >= next_batch):  # a new batch of tallies: rare
            batch, next_batch = batch_bounds(enc, n_batches, n_total)
        play_encounter(p, st, rng, standing, k0, k1, enc, batch, t, tallies, ch, trace, n_trace,
                       traced)  # fmt: skip


@kernel
def run_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng):
    """:func:`play_chunk`, traced when ``trace`` has more than one row."""
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               trace.shape[0] > 1)  # fmt: skip


@kernel
def run_untraced_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                       rng):  # fmt: skip
    """:func:`play_chunk` compiled without its trace: no trace row is opened
    (:func:`traced_row`), so every write to one drops out, and so do the calls that
    open and close rows (opposed-tiers' ``run_untraced_chunk`` says why the writes
    cost). ``bench_scenarios``, 2 threads, three alternated rounds, M attacks/s:
    ``knight-vs-skeleton`` 15.5 -> 21.3, ``bleeding-duel`` 20.7 -> 24.5,
    ``party-vs-monsters`` 14.1 -> 16.0, the benchmark fight 12.9 -> 14.2; the first
    run of ``party-vs-monsters`` 11.8 -> 12.2 s. ``run_chunk`` plays traced runs."""
    play_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
               False)  # fmt: skip


def chunk_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_chunk`: state, standing, RNG."""
    st = np.zeros((N_FIELDS, p.combatant.shape[1]), dtype=np.int64)
    return st, np.zeros(p.globals_[G_N_SIDES], dtype=np.int64), new_state()


run_block = chunked(run_chunk, chunk_scratch)
run_untraced_block = chunked(run_untraced_chunk, chunk_scratch)


@internal_kernel
def duel_tiers(p, st, attacker, tiers):
    """The tier (0 miss, 1 hit, 2 critical) of each of the attacker's attacks at the
    defender by natural die, ``tiers[attack, natural]``, in a plain duel
    (:func:`duel_attacker`), by :func:`attack_outcome`; ``st`` holds the
    start-of-encounter state, which nothing in a plain duel changes but the defender's
    HP."""
    defender = 1 - attacker
    for attack in range(tiers.shape[0]):
        mit = mitigation(p, st, defender, attack_value(p, A_TYPE, attack))
        for natural in range(1, 21):
            _, crit, hit = attack_outcome(p, attack, defender, natural, mit)
            tiers[attack, natural] = (2 if crit else 1) if hit else 0


@inline_kernel
def duel_attack(p, st, t, ch, batch, attacker, attack, tiers, seen, counted, source, buffer,
                cursor, damage_how, d_cursor):  # fmt: skip
    """One attack of a plain duel at the defender, counted in ``seen`` (through
    ``counted``, its flat view): its natural die (:func:`natural_from_cursor`), its tier
    (:func:`duel_tiers`, ``tiers`` flat) and on a hit its damage
    (:func:`hit_damage`), the dice :func:`resolve_attack` rolls. The damage dice come
    through the damage cursor ``d_cursor``: where the damage is tabled
    (:func:`duel_damage_sides`), drawn as one number and the damage looked up
    (:func:`duel_damage`); otherwise die by die as :func:`damage_dice` rolls them
    (:func:`planned_dice`). The tables are read flat at unsigned indices, as the
    one-attack loop reads them (:func:`one_attack_tables`): 1.05-1.25x. Returns the
    damage and both cursors."""
    defender = 1 - attacker
    natural, cursor = natural_from_cursor(p, source, buffer, cursor,
                                          attack_net(p, attack, defender))  # fmt: skip
    row = np.uint64(attack)
    tier = tiers[row * np.uint64(TIER_ROW) + np.uint64(natural)]
    damage = 0
    if damage_how[5]:  # a miss draws no dice from its table row (duel_damage_tables)
        damage, d_cursor = duel_damage(damage_how, d_cursor, attack, tier)
    elif tier > 0:
        plan, plan_row = damage_how[6]
        at = (row * np.uint64(3) + np.uint64(tier)) * plan_row
        dice, d_cursor = planned_dice(damage_how[0], damage_how[1], d_cursor, plan, at)
        damage = hit_damage(p, st, attacker, attack, defender, dice)[2]
    if damage < seen.shape[2]:  # damage is never negative (hit_damage)
        bins = np.uint64(seen.shape[2])
        counted[(row * np.uint64(3) + np.uint64(tier)) * bins + np.uint64(damage)] += 1
    else:
        count_duel_attack(t, ch, batch, attacker, seen, attack, tier, damage)
    return damage, cursor, d_cursor


@inline_kernel
def duel_damage(damage_how, d_cursor, attack, tier):
    """The damage of an attack of ``tier`` (0 miss, 1 hit, 2 critical hit) of ``attack``
    in a plain duel whose damage is tabled: its rolled dice drawn as one number from the
    damage cursor (``rng.cursor_code``: the dice :func:`damage_dice` rolls; a miss rolls
    none and deals 0) and looked up in the table of :func:`duel_damage_tables`. Returns
    the damage and the cursor."""
    d_source, d_buffer, counts, spans, table = damage_how[:5]  # flat (play_duels)
    x, left, held = d_cursor
    at = np.uint64(attack) * np.uint64(3) + np.uint64(tier)
    code, (x, left) = cursor_code(d_source, d_buffer, (x, left), counts[at],
                                  np.uint64(spans[at]))  # fmt: skip
    return table[at * damage_how[7] + np.uint64(code)], (x, left, held)


@inline_kernel
def planned_dice(d_source, d_buffer, d_cursor, plan, at):
    """The total of the damage dice of a hit in a plain duel whose damage is not
    tabled: the dice :func:`damage_dice` rolls, in its order, drawn through the damage
    cursor one by one (``rng.cursor_dice``: a die of another size than the one before
    starts a batch, as in the RNG state), their faces listed by :func:`duel_dice_plan`
    in the row of the flat ``plan`` that starts at ``at`` (unsigned: the attack's and
    tier's; a miss's row rolls none and totals 0). Returns the total and the cursor."""
    total = plan[at + np.uint64(PLAN_FIXED)]
    for j in range(plan[at + np.uint64(PLAN_COUNT)]):
        faces = plan[at + np.uint64(PLAN_DICE + j)]
        code, d_cursor = cursor_dice(d_source, d_buffer, d_cursor, 1, faces, np.uint64(faces))
        total += code + 1
    return total, d_cursor


@internal_kernel
def duel_damage_tables(p, st, attacker, sides, counts, spans, table):
    """The damage of every roll of the plain-duel attacker's damage dice, all of
    ``sides`` faces (:func:`duel_damage_sides`), by attack and tier (1 hit, 2 critical):
    ``counts[attack, tier]`` dice are rolled (a critical's first bonus die takes its
    maximum unrolled, :func:`damage_dice`), ``spans`` their number of outcomes, and
    ``table[attack, tier, code]`` the damage (:func:`hit_damage`) when they read
    ``code`` (``rng.faces_of_code``). Tier 0, a miss, keeps the row it is given: no dice,
    one outcome (a span of 1), 0 damage. So a duel loop draws and looks up every
    attack's damage the same way, without a branch on its tier. Attacks whose rolls do
    not fit ``table`` are left out: the attacker makes none of them."""
    defender = 1 - attacker
    for attack in range(counts.shape[0]):
        start = attack_value(p, A_TERM_START, attack)
        n = 0
        for term in range(start, start + attack_value(p, A_TERM_COUNT, attack)):
            n += p.terms[T_COUNT, term]
        for crit in range(2):
            rolled = max(2 * n - 1, 0) if crit else n
            bonus = sides if crit and n > 0 else 0
            span = outcomes_within(sides, rolled, table.shape[2])
            if span > table.shape[2]:
                continue
            tier = crit + 1
            counts[attack, tier] = rolled
            spans[attack, tier] = span
            for code in range(span):
                total = bonus
                rest = code
                for _ in range(rolled):
                    total += rest % sides + 1
                    rest //= sides
                table[attack, tier, code] = hit_damage(p, st, attacker, attack, defender,
                                                       total)[2]  # fmt: skip


@internal_kernel
def play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, standing, tiers, seen, ends, scratch,
               damage_sides, damage_tables):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` (:func:`duel_attacker`) exactly as
    :func:`play_encounter` would, on a shorter path.

    In a plain duel the defender's turns change nothing (it has no attacks, statuses or
    defense) and no attack changes a later one but through the defender's HP. So only
    the attacker's turns are played, as in :func:`take_turn` (its main-hand attack, then
    its offhand attack unless the first was two-handed or it Blocks; each hand's attacks
    in rotation), each attack by :func:`duel_attack`. No initiative is rolled and no
    target chosen: their streams feed nothing else. The defender's HP is a local count;
    attacks are added to the tallies once per batch (``encounter.flush_attack_counts``), and
    each duel's end is counted in ``ends`` by round and added once
    (``encounter.record_duel_ends``). The d20s are drawn through a cursor held in local
    variables (``rng.cursor_code``), block 0 of their stream computed for
    ``CURSOR_GROUP`` encounters at a time into ``scratch[:4]`` (``scratch[4]`` is the
    cursor's buffer). When all the attacker's damage dice have the same faces,
    ``damage_sides[0]`` (:func:`duel_damage_sides`, else 0), the damage is tabled
    (``damage_tables``, :func:`duel_damage_tables`) and its dice drawn through a second
    cursor (buffer ``scratch[5]``, block 0 computed at its first die); otherwise they
    come through the same cursor die by die, in the order :func:`damage_dice` rolls
    them (:func:`planned_dice`): no RNG state is used.
    """
    attacker = duel_attacker_in(p)
    defender = 1 - attacker
    c = p.combatant
    n_batches = t.attempts.shape[2]
    cap = p.globals_[G_MAX_ROUNDS]
    reset(p, st, standing)
    duel_tiers(p, st, attacker, tiers)
    main_start, main_count = c[C_MAIN_START, attacker], c[C_MAIN_COUNT, attacker]
    off_start, off_count = c[C_OFF_START, attacker], c[C_OFF_COUNT, attacker]
    blocks = c[C_DEFENSE, attacker] == DEFENSE_BLOCK
    words, buffer = scratch[:4], scratch[4]
    source = dice_source(k0, k1, STREAM_ATTACK, 20)
    counts, spans, table, plan = damage_tables
    sides = damage_sides[0]
    tabled = sides > 0
    if tabled:
        duel_damage_tables(p, st, attacker, sides, counts, spans, table)
    # the tables flat: ``(attack, tier)`` rows of counts, spans, table and plan, with the
    # widths of the last two
    damage_how = (dice_source(k0, k1, STREAM_DAMAGE, max(sides, 2)), scratch[5],
                  counts.reshape(-1), spans.reshape(-1), table.reshape(-1), tabled,
                  (plan.reshape(-1), np.uint64(plan.shape[2])),
                  np.uint64(table.shape[2]))  # fmt: skip
    flat_tiers, counted = tiers.reshape(-1), seen.reshape(-1)
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for enc in range(lo, hi):
        if unlikely(enc >= next_batch):  # a new batch of tallies: rare
            flush_attack_counts(t, ch, batch, attacker, seen)
            batch, next_batch = batch_bounds(enc, n_batches, n_total)
        group = (enc - lo) % words.shape[1]
        if group == 0:
            first_blocks(source, enc, words)
        cursor = cursor_at(words, group, enc, buffer)
        x, left = cursor_fresh(enc, scratch[5])
        d_cursor = (x, left, np.int64(0))  # no dice in hand: the first starts a batch
        hp = c[C_HP, defender]
        main, off, received, rnd = 0, 0, 0, 0
        while hp > 0 and rnd < cap:
            rnd += 1
            two_handed = False
            if main_count > 0:
                attack = p.attack_list[main_start + main]
                main = next_in_rotation(main, main_count)
                damage, cursor, d_cursor = duel_attack(
                    p, st, t, ch, batch, attacker, attack, flat_tiers, seen, counted, source,
                    buffer, cursor, damage_how, d_cursor,
                )  # fmt: skip
                hp -= damage
                received += 1
                two_handed = attack_value(p, A_HAND, attack) == TWO_HANDED
            if hp > 0 and off_count > 0 and not two_handed and not blocks:
                attack = p.attack_list[off_start + off]
                off = next_in_rotation(off, off_count)
                damage, cursor, d_cursor = duel_attack(
                    p, st, t, ch, batch, attacker, attack, flat_tiers, seen, counted, source,
                    buffer, cursor, damage_how, d_cursor,
                )  # fmt: skip
                hp -= damage
                received += 1
        count_duel_end(t, ch, ends, defender, hp <= 0, rnd, received)
    flush_attack_counts(t, ch, batch, attacker, seen)
    record_duel_ends(t, ch, ends, attacker, c[C_SIDE, attacker], cap, -1)


@kernel
def run_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing, rng,
                   tiers, seen, ends, cursor, damage_sides, counts, spans, table,
                   plan):  # fmt: skip
    """:func:`run_chunk` for a plain duel (:func:`duel_attacker`), untraced: chunk ``ch``
    plays its slice with :func:`play_duels` (the working arrays of
    :func:`general_duel_scratch`). A kernel of its own, so that other scenarios never
    compile the duel path."""
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    play_duels(p, t, ch, lo, hi, n_total, k0, k1, st, standing, tiers, seen, ends, cursor,
               damage_sides, (counts, spans, table, plan))  # fmt: skip


@inline_kernel
def count_tiered(t, ch, batch, attacker, seen, counted, attack, tier, damage):
    """Count one attack of a one-attack duel's loop in ``counted`` (``seen[attack]``
    flat, indexed by unsigned numbers), as :func:`count_duel_attack` would."""
    bins = seen.shape[2]
    if damage < bins:  # damage is never negative (hit_damage)
        counted[tier * np.uint64(bins) + np.uint64(damage)] += 1
    else:
        count_duel_attack(t, ch, batch, attacker, seen, attack, np.int64(tier), damage)


@inline_kernel
def one_attack_tables(p, k0, k1, attacker, tiers, damage_tables):
    """What the loops of a plain duel of one attack a turn read once
    (:func:`one_attack_duels`, :func:`pair_duels`): the attack, the defender's HP, the
    cursor sources of the d20s and of the damage dice, and the attack's tiers by natural
    die, dice and outcomes by tier, and damage by tier and roll (flat: a tier's row is
    ``row`` wide). Read flat and at unsigned indices, numba computes no strides and no
    wraparound for a negative index (1.2x as fast as ``table[attack][tier, code]``)."""
    counts, spans, table, sides = damage_tables
    attack = p.attack_list[combatant_value(p, C_MAIN_START, attacker)]
    return (
        attack, combatant_value(p, C_HP, 1 - attacker), dice_source(k0, k1, STREAM_ATTACK, 20),
        dice_source(k0, k1, STREAM_DAMAGE, max(sides, 2)), tiers[attack], counts[attack],
        spans[attack], table[attack].reshape(-1), np.uint64(table.shape[2]),
    )  # fmt: skip


@inline_kernel
def one_attack_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tiers, seen, ends, scratch,
                     damage_tables, code_tiers, planned, by_plan):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` whose attacker makes one attack a turn
    (:func:`one_attack_duel`), as :func:`play_duels` would, on a shorter loop:
    the attack's d20s drawn as one number and its tier looked up by it (one d20 by its
    natural die; Advantage's d20s in ``code_tiers``, :func:`duel_code_tiers`), the
    attack's damage tables held in local variables, its attacks counted in
    ``seen[attack]``, every attack's damage drawn and looked up without a branch on
    its tier (a miss through a table row that rolls no dice, :func:`duel_damage_tables`),
    and block 0 of both the d20 and the damage stream computed
    ``CURSOR_GROUP`` encounters at a time (into ``scratch[:4]`` and ``scratch[6:10]``;
    the cursors' buffers are ``scratch[4]`` and ``scratch[5]``), each cursor started
    with its first word drawn (``rng.cursor_loaded``; the d20s' so, the benchmark duel
    1.05-1.06x as fast). The same dice, in the same order, as :func:`play_duels` draws.

    When ``planned`` (a constant of the calling kernel, :func:`run_planned_duel_chunk`)
    the damage is not tabled: a hit's dice come die by die through a cursor whose dice
    change size, as :func:`planned_dice` draws them (``by_plan[0]``, the attack's rows of
    :func:`duel_dice_plan`), and the damage is looked up by their total (``by_plan[1]``,
    :func:`damage_by_total`)."""
    defender = 1 - attacker
    n_batches = t.attempts.shape[2]
    cap = p.globals_[G_MAX_ROUNDS]
    words, buffer, d_buffer, d_words = scratch[:4], scratch[4], scratch[5], scratch[6:10]
    attack, full_hp, source, d_source, tier_of, dice_of, span_of, damage_of, row = (
        one_attack_tables(p, k0, k1, attacker, tiers, damage_tables)
    )  # fmt: skip
    d20s = attack_d20s(p, attack_net(p, attack, defender))
    d20_span = np.uint64(20**d20s)
    counted = seen[attack].reshape(-1)
    plan, by_total = by_plan[0][attack].reshape(-1), by_plan[1]
    plan_row = np.uint64(by_plan[0].shape[2])
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, words.shape[1]):
        first_blocks(source, first, words)
        if not planned:
            first_blocks(d_source, first, d_words)
        for enc in range(first, min(first + words.shape[1], hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                flush_attack_counts(t, ch, batch, attacker, seen)
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            cursor = cursor_loaded(source, words, enc - first, enc, buffer)
            if planned:
                x, left = cursor_fresh(enc, d_buffer)
                d_cursor = (np.uint64(0), np.int64(0))
                m_cursor = (x, left, np.int64(0))  # no dice in hand
            else:
                d_cursor = cursor_loaded(d_source, d_words, enc - first, enc, d_buffer)
                m_cursor = (np.uint64(0), np.int64(0), np.int64(0))
            hp = full_hp
            rnd = 0
            while hp > 0 and rnd < cap:
                rnd += 1
                if d20s == 1:  # by its natural die: through code_tiers, 0.94x as fast
                    code, cursor = cursor_code(source, buffer, cursor, 1, np.uint64(20))
                    tier = np.uint64(tier_of[np.uint64(code + 1)])
                else:
                    code, cursor = cursor_code(source, buffer, cursor, d20s, d20_span)
                    tier = np.uint64(code_tiers[np.uint64(code)])
                if planned:  # a miss's row rolls no dice: no test of the tier of its own
                    total, m_cursor = planned_dice(d_source, d_buffer, m_cursor, plan,
                                                   tier * plan_row)  # fmt: skip
                    damage = by_total[np.uint64(total)] * (tier > 0)
                else:
                    code, d_cursor = cursor_code(d_source, d_buffer, d_cursor, dice_of[tier],
                                                 np.uint64(span_of[tier]))  # fmt: skip
                    damage = damage_of[tier * row + np.uint64(code)]
                count_tiered(t, ch, batch, attacker, seen, counted, attack, tier, damage)
                hp -= damage
            count_duel_end(t, ch, ends, defender, hp <= 0, rnd, rnd)  # one attack a round
    flush_attack_counts(t, ch, batch, attacker, seen)


@inline_kernel
def play_one_attack_chunk(p, k0, k1, first, count, n_total, t, ch, st, standing, tiers, seen,
                          ends, cursor, damage_sides, counts, spans, table, code_tiers, plan,
                          by_total, planned):  # fmt: skip
    """Build the tables of a one-attack duel and play chunk ``ch`` of it with
    :func:`one_attack_duels`, its damage tabled or, when ``planned``, drawn die by die."""
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    attacker = duel_attacker_in(p)
    sides = damage_sides[0]
    reset(p, st, standing)
    duel_tiers(p, st, attacker, tiers)
    attack = p.attack_list[combatant_value(p, C_MAIN_START, attacker)]
    if planned:
        damage_by_total(p, st, attacker, attack, by_total)
    else:
        duel_damage_tables(p, st, attacker, sides, counts, spans, table)
    duel_code_tiers(p, attack, 1 - attacker, tiers, code_tiers)
    one_attack_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tiers, seen, ends, cursor,
                     (counts, spans, table, sides), code_tiers, planned,
                     (plan, by_total))  # fmt: skip
    record_duel_ends(t, ch, ends, attacker, combatant_value(p, C_SIDE, attacker),
                     p.globals_[G_MAX_ROUNDS], -1)  # fmt: skip


@kernel
def run_one_attack_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st,
                              standing, rng, tiers, seen, ends, cursor, damage_sides, counts,
                              spans, table, code_tiers, plan, by_total):  # fmt: skip
    """:func:`run_duel_chunk` for a plain duel whose attacker makes one attack a turn
    with tabled damage (:func:`one_attack_duel`): the working arrays of
    :func:`one_attack_scratch`, its slice played by :func:`one_attack_duels`. A kernel of its
    own, so that neither duel compiles the other's loop: with the one-attack loop inside
    :func:`play_duels`, the other duels ran 25% slower and both compiled 3-5 s longer."""
    play_one_attack_chunk(p, k0, k1, first, count, n_total, t, ch, st, standing, tiers, seen,
                          ends, cursor, damage_sides, counts, spans, table, code_tiers, plan,
                          by_total, False)  # fmt: skip


@kernel
def run_planned_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st,
                           standing, rng, tiers, seen, ends, cursor, damage_sides, counts, spans,
                           table, code_tiers, plan, by_total):  # fmt: skip
    """:func:`run_one_attack_duel_chunk` for a one-attack duel whose damage is not tabled
    (:func:`planned_duel`): its dice drawn die by die and the damage looked up by their
    total. A kernel of its own, so that the tabled loop compiles without this one."""
    play_one_attack_chunk(p, k0, k1, first, count, n_total, t, ch, st, standing, tiers, seen,
                          ends, cursor, damage_sides, counts, spans, table, code_tiers, plan,
                          by_total, True)  # fmt: skip


@internal_kernel
def damage_by_total(p, st, attacker, attack, by_total):
    """The damage of a hit of ``attack`` in a plain duel by the total of its damage dice
    (:func:`hit_damage`; ``st`` the start-of-encounter state, which nothing in a plain
    duel changes but the defender's HP): ``by_total[total]``."""
    for total in range(by_total.shape[0]):
        by_total[total] = hit_damage(p, st, attacker, attack, 1 - attacker, total)[2]


#: Rolls of two attacks' damage dice a plain duel's pair loop tables, over every pair of
#: tiers together, at most (:func:`pair_duel`): one damage die of up to 20 faces (a d20
#: makes 41² of them, a miss 1, a hit 20 and a critical 20 each).
MAX_PAIR_CODES = 2048
PAIR_D20S = 400  # outcomes of two d20s
# where pair_index holds, by the two d20s' number, their damage dice, outcomes and entry
BY_D20S = 3
# and by pair of tiers, their damage dice, outcomes and first entry
PAIR_DICE, PAIR_SPAN, PAIR_START = (BY_D20S * PAIR_D20S + 9 * i for i in range(3))


@internal_kernel
def duel_pair_tables(tier_of, dice_of, span_of, damage_of, row, pair_index, pair_entries):
    """The tables of :func:`pair_duels`: two attacks of one attack's tiers and damage
    (:func:`duel_tiers`, :func:`duel_damage_tables`; ``row`` is the width of a tier's
    row of ``damage_of``) made one after the other.

    The two natural d20s read as one number ``code`` (first die most significant,
    ``rng.cursor_code``) make the tiers ``both = 3 * first + second``. Both attacks roll
    ``pair_index[PAIR_DICE + both]`` damage dice, the first attack's then the second's,
    of ``pair_index[PAIR_SPAN + both]`` outcomes. When those read ``d`` (the first
    attack's dice most significant), the four entries of ``pair_entries`` from
    ``4 * (pair_index[PAIR_START + both] + d)`` are the first attack's damage, the
    attacks counted with it, the second attack's damage and the attacks counted with it
    (zero as made, :func:`pair_scratch`; :func:`pair_duels` counts,
    :func:`flush_pair_counts` adds them to the tallies and clears them). The loop reads
    the dice, outcomes and first entry (times 4) of ``both`` by ``code``, from
    ``pair_index[BY_D20S * code]`` on: one lookup fewer an attack pair. One array for
    the lookups by the d20s and another for the damage, so that the pair loop keeps two
    table addresses in registers instead of six (1.03x; README, "Design notes")."""
    start = 0
    for first in range(3):
        for second in range(3):
            both = 3 * first + second
            span = span_of[first] * span_of[second]
            pair_index[PAIR_DICE + both] = dice_of[first] + dice_of[second]
            pair_index[PAIR_SPAN + both] = span
            pair_index[PAIR_START + both] = start
            for code in range(span):
                at = 4 * (start + code)
                pair_entries[at] = damage_of[first * row + code // span_of[second]]
                pair_entries[at + 2] = damage_of[second * row + code % span_of[second]]
            start += span
    for code in range(PAIR_D20S):
        both = 3 * tier_of[code // 20 + 1] + tier_of[code % 20 + 1]
        at = BY_D20S * code
        pair_index[at] = pair_index[PAIR_DICE + both]
        pair_index[at + 1] = pair_index[PAIR_SPAN + both]
        pair_index[at + 2] = 4 * pair_index[PAIR_START + both]


@internal_kernel
def flush_pair_counts(t, ch, batch, attacker, seen, attack, pair_index, pair_entries):
    """Add the attacks :func:`pair_duels` counted in ``pair_entries`` (beside each
    damage, :func:`duel_pair_tables`) to ``seen[attack]`` by tier and damage, and clear
    them; then add ``seen`` to the tallies of ``batch``
    (``encounter.flush_attack_counts``)."""
    for both in range(9):
        start = pair_index[PAIR_START + both]
        for code in range(pair_index[PAIR_SPAN + both]):
            for i in range(2):
                at = 4 * (start + code) + 2 * i
                n = pair_entries[at + 1]
                if n > 0:
                    tier = both // 3 if i == 0 else both % 3
                    count_duel_attacks(t, ch, batch, attacker, seen, attack, tier,
                                       pair_entries[at], n)  # fmt: skip
                    pair_entries[at + 1] = 0
    flush_attack_counts(t, ch, batch, attacker, seen)


@inline_kernel
def pair_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tiers, seen, ends, scratch,
               damage_tables, pair_index, pair_entries):  # fmt: skip
    """Play plain duels ``lo .. hi-1`` whose attacker makes one attack a turn, of one
    d20, with tabled damage (:func:`pair_duel`), as :func:`one_attack_duels` would, two
    attacks at a time: their two d20s drawn as one number and their tiers looked up
    (:func:`duel_pair_tables`), then both attacks' damage dice as one number and both
    damages looked up. The dice are the same, in the same order: two dice of a stream
    read at once are the two read one after the other (``rng.cursor_code``). When the
    first attack takes the defender down, the second's dice are drawn and not used:
    each encounter draws from streams of its own, so no other encounter's dice move.
    A round cap that leaves one round after the last pair plays it alone. The attacks
    are counted beside the damage they read in ``pair_entries``, and added to ``seen``
    and the tallies once per batch (:func:`flush_pair_counts`). Half as many draws and
    loop steps as one attack at a time, and no branch on the damage: the benchmark duel
    1.3-1.5x as fast (README, "Design notes")."""
    n_batches = t.attempts.shape[2]
    cap = p.globals_[G_MAX_ROUNDS]
    words, buffer, d_buffer, d_words = scratch[:4], scratch[4], scratch[5], scratch[6:10]
    attack, full_hp, source, d_source, tier_of, dice_of, span_of, damage_of, row = (
        one_attack_tables(p, k0, k1, attacker, tiers, damage_tables)
    )  # fmt: skip
    counted = seen[attack].reshape(-1)
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    batch, next_batch = batch_bounds(lo, n_batches, n_total)
    for first in range(lo, hi, words.shape[1]):
        first_blocks(source, first, words)
        first_blocks(d_source, first, d_words)
        for enc in range(first, min(first + words.shape[1], hi)):
            if unlikely(enc >= next_batch):  # a new batch of tallies: rare
                flush_pair_counts(t, ch, batch, attacker, seen, attack, pair_index,
                                  pair_entries)  # fmt: skip
                batch, next_batch = batch_bounds(enc, n_batches, n_total)
            cursor = cursor_loaded(source, words, enc - first, enc, buffer)
            d_cursor = cursor_loaded(d_source, d_words, enc - first, enc, d_buffer)
            hp = full_hp
            rnd = 0
            while hp > 0 and rnd + 2 <= cap:
                code, cursor = cursor_code(source, buffer, cursor, 2, np.uint64(PAIR_D20S))
                by = np.uint64(BY_D20S) * np.uint64(code)
                code, d_cursor = cursor_code(d_source, d_buffer, d_cursor, pair_index[by],
                                             np.uint64(pair_index[by + one]))  # fmt: skip
                at = np.uint64(pair_index[by + two]) + four * np.uint64(code)
                hp -= pair_entries[at]
                pair_entries[at + one] += 1
                rnd += 1
                if hp <= 0:
                    break
                hp -= pair_entries[at + two]
                pair_entries[at + three] += 1
                rnd += 1
            if hp > 0 and rnd < cap:  # an odd round cap: the last round alone
                code, cursor = cursor_code(source, buffer, cursor, 1, np.uint64(20))
                tier = np.uint64(tier_of[code + 1])
                code, d_cursor = cursor_code(d_source, d_buffer, d_cursor, dice_of[tier],
                                             np.uint64(span_of[tier]))  # fmt: skip
                damage = damage_of[tier * row + np.uint64(code)]
                count_tiered(t, ch, batch, attacker, seen, counted, attack, tier, damage)
                hp -= damage
                rnd += 1
            count_round_end(ends, hp <= 0, rnd)
    flush_pair_counts(t, ch, batch, attacker, seen, attack, pair_index, pair_entries)


@kernel
def run_pair_duel_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, st, standing,
                        rng, tiers, seen, ends, cursor, damage_sides, counts, spans, table,
                        pair_index, pair_entries):  # fmt: skip
    """:func:`run_one_attack_duel_chunk` for a duel that :func:`pair_duel` admits: the
    working arrays of :func:`pair_scratch`, its slice played by :func:`pair_duels`."""
    lo, hi = chunk_range(first, count, ch, t.attempts.shape[0])
    attacker = duel_attacker_in(p)
    sides = damage_sides[0]
    reset(p, st, standing)
    duel_tiers(p, st, attacker, tiers)
    duel_damage_tables(p, st, attacker, sides, counts, spans, table)
    attack = p.attack_list[combatant_value(p, C_MAIN_START, attacker)]
    duel_pair_tables(tiers[attack], counts[attack], spans[attack], table[attack].reshape(-1),
                     table.shape[2], pair_index, pair_entries)  # fmt: skip
    pair_duels(p, t, ch, lo, hi, n_total, k0, k1, attacker, tiers, seen, ends, cursor,
               (counts, spans, table, sides), pair_index, pair_entries)  # fmt: skip
    record_round_downs(t, ch, ends, 1 - attacker)
    record_duel_ends(t, ch, ends, attacker, combatant_value(p, C_SIDE, attacker),
                     p.globals_[G_MAX_ROUNDS], -1)  # fmt: skip


def pair_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_pair_duel_chunk`: those of
    :func:`duel_scratch`, then the two tables of :func:`duel_pair_tables`."""
    return (*duel_scratch(p, t, trace), np.zeros(PAIR_START + 9, dtype=np.int64),
            np.zeros(4 * pair_codes(p), dtype=np.int64))  # fmt: skip


def duel_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_duel_chunk`: those of
    :func:`chunk_scratch`, the tier table, attack counts, duel ends, the d20 cursor's
    words and buffer with the damage cursor's buffer and words (rows 0-3, 4, 5 and 6-9
    of ``cursors``), and the damage tables
    (:func:`duel_damage_sides`, :func:`duel_damage_tables`)."""
    n_attacks = p.attack.shape[1]
    st, standing, rng = chunk_scratch(p, t, trace)
    tiers = np.zeros((n_attacks, TIER_ROW), dtype=np.int64)
    seen = np.zeros((n_attacks, 3, t.damage_hist.shape[2]), dtype=np.int64)
    ends = np.zeros(p.globals_[G_MAX_ROUNDS] + 1, dtype=np.int64)
    cursors = np.zeros((10, CURSOR_GROUP), dtype=np.uint64)
    sides, width = duel_damage_shape(p)
    return (st, standing, rng, tiers, seen, ends, cursors, np.array([sides], dtype=np.int64),
            np.zeros((n_attacks, 3), dtype=np.int64),  # by tier: a miss rolls no dice,
            np.ones((n_attacks, 3), dtype=np.int64),  # has one outcome
            np.zeros((n_attacks, 3, width), dtype=np.int64))  # fmt: skip


def one_attack_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_one_attack_duel_chunk` and
    :func:`run_planned_duel_chunk`: those of :func:`duel_scratch`, then the attack's tiers
    by the number its d20s read (:func:`duel_code_tiers`), the attacks' damage dice
    (:func:`duel_dice_plan`) and the damage by their total (:func:`damage_by_total`:
    as long as the largest total, one entry for tabled damage)."""
    plan = duel_dice_plan(p)
    planned = duel_damage_sides(p) == 0
    attack = p.attack_list[p.combatant[C_MAIN_START, duel_attacker(p)]]
    most = plan[attack, 2, PLAN_FIXED] + sum(plan[attack, 2, PLAN_DICE:]) if planned else 0
    return (*duel_scratch(p, t, trace), np.zeros(20 ** one_attack_d20s(p), dtype=np.uint8),
            plan, np.zeros(int(most) + 1, dtype=np.int64))  # fmt: skip


def one_attack_d20s(p):
    """The d20s the attack of a one-attack duel rolls (:func:`attack_d20s`), by Python."""
    attacker = duel_attacker(p)
    attack = p.attack_list[p.combatant[C_MAIN_START, attacker]]
    net = getattr(attack_net, "py_func", attack_net)(p, attack, 1 - attacker)  # the kernels'
    return int(getattr(attack_d20s, "py_func", attack_d20s)(p, net))  # rules, run by Python


def general_duel_scratch(p, t, trace):
    """The working arrays of one chunk of :func:`run_duel_chunk`: those of
    :func:`duel_scratch`, then the attacks' damage dice by tier (:func:`duel_dice_plan`)."""
    return (*duel_scratch(p, t, trace), duel_dice_plan(p))


def duel_dice_plan(p):
    """The damage dice of every attack by tier, as :func:`damage_dice` rolls them, for a
    plain duel whose damage is not tabled (:func:`planned_dice`).

    ``plan[attack, tier]`` lists, for a hit (tier 1) and a critical hit (tier 2), how
    many dice are rolled (``PLAN_COUNT``), what is added without a roll (``PLAN_FIXED``:
    a critical's first bonus die, at its maximum; docs/rules/glitters-d20.md "Critical")
    and the faces of each rolled die in order (from ``PLAN_DICE``): the base dice, then
    a critical's bonus dice but the first. A miss (tier 0) rolls none.
    """
    faces = []
    for attack in range(p.attack.shape[1]):
        start = p.attack[A_TERM_START, attack]
        terms = range(start, start + p.attack[A_TERM_COUNT, attack])
        faces.append([int(p.terms[T_SIDES, k]) for k in terms for _ in range(p.terms[T_COUNT, k])])
    width = PLAN_DICE + max((2 * len(dice) for dice in faces), default=0)
    plan = np.zeros((len(faces), 3, width), dtype=np.int64)
    for attack, dice in enumerate(faces):
        rolls = ((1, dice, 0), (2, dice + dice[1:], dice[0] if dice else 0))
        for tier, rolled, fixed in rolls:
            plan[attack, tier, PLAN_COUNT] = len(rolled)
            plan[attack, tier, PLAN_FIXED] = fixed
            plan[attack, tier, PLAN_DICE : PLAN_DICE + len(rolled)] = rolled
    return plan


MAX_DAMAGE_CODES = 8192  # rolls of one attack's damage dice a plain duel tables, at most
MAX_CODED_D20S = 3  # d20s of one attack the one-attack loop reads as one number (8,000)


def duel_damage_sides(p):
    """The faces of every damage die the attacker of a plain duel rolls, when its damage
    can be tabled (:func:`duel_damage_tables`): all its attacks' dice have the same
    faces, and each attack's critical rolls at most ``MAX_DAMAGE_CODES`` outcomes; else 0.
    """
    return duel_damage_shape(p)[0]


@per_params
def duel_damage_shape(p):
    """(:func:`duel_damage_sides`, the most outcomes one of the attacker's rolls of
    damage has, a critical's): the faces and width of a plain duel's damage tables,
    (0, 1) when they are not tabled."""
    c, attacker = p.combatant, duel_attacker(p)
    hands = [(c[C_MAIN_START, attacker], c[C_MAIN_COUNT, attacker]),
             (c[C_OFF_START, attacker], c[C_OFF_COUNT, attacker])]  # fmt: skip
    attacks = {int(a) for start, n in hands for a in p.attack_list[start : start + n]}
    terms = [p.terms[:, p.attack[A_TERM_START, a] : p.attack[A_TERM_START, a]
                     + p.attack[A_TERM_COUNT, a]] for a in attacks]  # fmt: skip
    faces = {int(f) for dice in terms for f in dice[T_SIDES]}
    if len(faces) != 1 or any((dice[T_COUNT] < 1).any() for dice in terms):
        return 0, 1
    sides = faces.pop()
    most = max(2 * int(dice[T_COUNT].sum()) - 1 for dice in terms)  # a critical's dice
    return (sides, sides**most) if sides**most <= MAX_DAMAGE_CODES else (0, 1)


run_duel_block = chunked(run_duel_chunk, general_duel_scratch)
run_one_attack_duel_block = chunked(run_one_attack_duel_chunk, one_attack_scratch)
run_planned_duel_block = chunked(run_planned_duel_chunk, one_attack_scratch)
run_pair_duel_block = chunked(run_pair_duel_chunk, pair_scratch)


@inline_kernel
def duel_attacker_in(p):
    """The attacker of a plain duel: the one of the two combatants with attacks."""
    c = p.combatant
    return 0 if c[C_MAIN_COUNT, 0] + c[C_OFF_COUNT, 0] > 0 else 1


# a hit of this type gives this status, unless the target is immune to either
STATUS_OF_TYPE = {SLASHING: C_NO_BLEEDING, FIRE: C_NO_BURNING, ICE: C_NO_FREEZING}


@per_params
def duel_attacker(p):
    """The attacker of a *plain duel*, or −1 when the encounter is not one.

    A plain duel is one attacker against one defender that never fights back and whose
    turns change nothing: two combatants on two sides, only one with attacks; neither
    starts with Bleeding, Burning or Freezing; the defender has no Block or Parry, is
    not a player character who would make death saves (``death_rules: permadeath``),
    and takes no status and no corrosion from the attacker's hits (each attack's type
    gives none, or the defender is immune to it). It is the usual way to measure an
    attack (``scenarios/benchmarks/glitters-d20-duel.yaml``); :func:`run_duel_block`
    plays it, with exactly the same results as :func:`run_block`.
    """
    c = p.combatant
    armed = [k for k in range(c.shape[1]) if c[C_MAIN_COUNT, k] + c[C_OFF_COUNT, k] > 0]
    if c.shape[1] != 2 or c[C_SIDE, 0] == c[C_SIDE, 1] or len(armed) != 1:
        return -1
    attacker, defender = armed[0], 1 - armed[0]
    statuses = c[[C_BLEEDING, C_BURNING, C_FREEZING]].any()
    dying = c[C_PLAYER, defender] != 0 and p.globals_[G_PERMADEATH] != 0
    if statuses or dying or c[C_DEFENSE, defender] != 0:
        return -1
    for hand_start, hand_count in ((C_MAIN_START, C_MAIN_COUNT), (C_OFF_START, C_OFF_COUNT)):
        start = c[hand_start, attacker]
        for attack in p.attack_list[start : start + c[hand_count, attacker]]:
            kind = p.attack[A_TYPE, attack]
            immune = p.immune[defender, kind] != 0
            if kind == CORROSIVE or (kind in STATUS_OF_TYPE and not immune
                                     and c[STATUS_OF_TYPE[kind], defender] == 0):  # fmt: skip
                return -1
    return attacker


def one_attack_duel(p):
    """Whether the plain duel of ``p`` (:func:`duel_attacker`) is one whose attacker makes
    one attack a turn, a main-hand attack with no offhand one, whose damage is tabled
    (:func:`duel_damage_sides`) and which rolls at most :data:`MAX_CODED_D20S` d20s
    (:func:`attack_d20s`): :func:`run_one_attack_duel_block` plays it."""
    return single_attack(p) and duel_damage_sides(p) > 0


def planned_duel(p):
    """Whether the plain duel of ``p`` is one of one attack a turn, as
    :func:`one_attack_duel` says but for its damage, which is not tabled (dice of
    several sizes, or a critical of too many outcomes): :func:`run_planned_duel_block`
    plays it."""
    return single_attack(p) and duel_damage_sides(p) == 0


def single_attack(p):
    """Whether the attacker of the plain duel of ``p`` makes one attack a turn, a
    main-hand attack with no offhand one, of at most :data:`MAX_CODED_D20S` d20s."""
    c, attacker = p.combatant, duel_attacker(p)
    single = c[C_MAIN_COUNT, attacker] == 1 and c[C_OFF_COUNT, attacker] == 0
    return bool(single and one_attack_d20s(p) <= MAX_CODED_D20S)


def pair_duel(p):
    """Whether :func:`run_pair_duel_block` plays the plain duel of ``p``: a one-attack
    duel (:func:`one_attack_duel`) whose attack rolls one d20, neither advantage nor
    disadvantage (:func:`attack_net`), and whose damage rolls of two attacks, over every
    pair of tiers, number at most :data:`MAX_PAIR_CODES`."""
    if not one_attack_duel(p):
        return False
    attacker = duel_attacker(p)
    attack = p.attack_list[p.combatant[C_MAIN_START, attacker]]
    net = getattr(attack_net, "py_func", attack_net)  # the kernel's rule, run by Python
    if net(p, attack, 1 - attacker) != 0:
        return False
    return pair_codes(p) <= MAX_PAIR_CODES


def pair_codes(p):
    """The rolls of two attacks' damage dice, over every pair of tiers together, of the
    one-attack duel of ``p`` (:func:`one_attack_duel`; :func:`duel_pair_tables`)."""
    attack = p.attack_list[p.combatant[C_MAIN_START, duel_attacker(p)]]
    start = p.attack[A_TERM_START, attack]
    n = int(p.terms[T_COUNT, start : start + p.attack[A_TERM_COUNT, attack]].sum())
    sides = duel_damage_sides(p)
    return (1 + sides**n + sides ** (2 * n - 1)) ** 2


def block_kernel(p):
    """The kernel that plays untraced blocks of the compiled scenario ``p``: when the
    scenario is a plain duel (:func:`duel_attacker`), ``run_pair_duel_block`` for one
    attack a turn played two at a time (:func:`pair_duel`), ``run_planned_duel_block``
    for one attack a turn whose damage is not tabled (:func:`planned_duel`),
    ``run_one_attack_duel_block`` for the other duels of one attack a turn
    (:func:`one_attack_duel`) or else ``run_duel_block``; otherwise
    ``run_untraced_block`` (:func:`run_untraced_chunk` on threads)."""
    if duel_attacker(p) < 0:
        return run_untraced_block
    if pair_duel(p):
        return run_pair_duel_block
    if planned_duel(p):
        return run_planned_duel_block
    return run_one_attack_duel_block if one_attack_duel(p) else run_duel_block
