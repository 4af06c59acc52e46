"""Kernels of the shared model that every rule system uses (README, "Scenarios" and "Output files").

Targeting policies, the end-of-encounter test, the per-attack and per-encounter tallies,
the start-of-encounter head count and the split of a block into chunks are the same in
all five systems; the rule modules call these with 1-D views of their own arrays (side
of each combatant, out flags, current HP, down rounds), so the state layouts stay their
own. Each system keeps its own ``run_block``: numba cannot cache a kernel that takes
another compiled function as an argument.

Targeting policy codes: 0 ``focus``, 1 ``random``, 2 ``lowest-hp``
(``simlab.scenario.common.POLICY_CODE``).
"""

from __future__ import annotations

import numpy as np

from simlab.engine.jit import inline_kernel, internal_kernel
from simlab.engine.rng import STREAM_ORDER, STREAM_TARGET, roll_die_short, uniform_index

FOCUS, RANDOM, LOWEST_HP = 0, 1, 2
_NO_HP = 1 << 62  # above any HP: the first standing enemy is lower


@inline_kernel
def record_field(records, width, item, field):
    """Field ``field`` of combatant or attack ``item`` in a table laid out flat by
    record, ``width`` fields a record (``simlab.rules.arrays.records``).

    ``width`` is a constant of the rule system (``N_COMBATANT_FIELDS``,
    ``N_ATTACK_FIELDS``) and the index unsigned: the read needs the array's start alone,
    where a two-dimensional table is read through its width held at run time (one more
    value to keep in a register or reload, per table) and a signed index through a test
    for wraparound. glitters-d20 reads its combatant and attack tables so: its fights
    ran 1.04-1.06x as fast. opposed-tiers' fights ran 0.93x as fast read so, and
    zones-3d6's gained too little (1.01-1.02x, its duels 0.99x): they read their tables
    as they did (README, "Design notes").
    """
    return records[np.uint64(item) * np.uint64(width) + np.uint64(field)]


@inline_kernel
def choose_target(enemies, out, hp, policy, rng):
    """A standing enemy chosen by the attacker's policy; −1 if none (README, "Scenarios" and "Output
    files").

    ``enemies`` is the attacker's row of the rule system's enemy table
    (:func:`simlab.rules.arrays.enemy_rows`): the combatants of other sides in listed
    order, padded with −1. ``focus``: the first standing; ``random``: uniform, drawn
    from ``STREAM_TARGET``; ``lowest-hp``: the lowest current HP, ties to the first
    listed. Only enemies are looked at, not every combatant's side: opposed-tiers'
    fights ran 1.00-1.06x as fast, the others' within the noise (``bench_ab``; README,
    "Design notes").

    ``random`` and ``lowest-hp`` are worked out with no branch on which enemies stand,
    which nothing foresees in a fight: each enemy adds 0 or 1 to the count, and the
    choice moves to it by a product with 0 or 1. Against loops that branched on it, the
    zones-3d6 fights ran 1.11-1.12x as fast, glitters-d20's 1.01-1.07x, ``spirits-2v3``
    1.09x, ``ss-fight`` 0.76-0.96x, the others 0.96-1.02x (README, "Design notes"). The
    lowest HP is worked out only under ``lowest-hp`` and the standing enemies counted
    only under ``random``: instructions an attack (callgrind) of glitters-d20's benchmark
    fight 744.4 -> 726.3, ``party-vs-monsters`` 661.6 -> 649.3; the zones-3d6 fight 530.9
    -> 518.4 and ``party-fight`` 621.5 -> 594.8 (with the turn order's change), ``ss-fight``
    553.6 -> 567.7. Timed (``bench_ab``, two threads, eight rounds) the last three and
    ``spirits-2v3`` within 0.97-1.04x, inside the noise.
    """
    if policy == FOCUS:
        for k in range(enemies.shape[0]):
            d = enemies[k]
            if d < 0:
                break
            if out[d] == 0:
                return d
        return -1
    if policy == LOWEST_HP:
        lowest, lowest_hp = np.int64(-1), np.int64(_NO_HP)
        for k in range(enemies.shape[0]):
            d = enemies[k]
            if d < 0:
                break
            take = int(out[d] == 0) * int(hp[d] < lowest_hp)
            lowest += take * (d - lowest)
            lowest_hp += take * (hp[d] - lowest_hp)
        return lowest
    count = 0
    for k in range(enemies.shape[0]):
        d = enemies[k]
        if d < 0:
            break
        count += int(out[d] == 0)
    if count == 0:
        return -1
    pick = uniform_index(rng, STREAM_TARGET, count)
    chosen = -1
    seen = 0
    for k in range(enemies.shape[0]):
        d = enemies[k]
        if d < 0:
            break
        up = int(out[d] == 0)
        take = up * int(seen == pick)
        chosen += take * (d - chosen)
        seen += up
    return chosen


@inline_kernel
def record_attacks(t, ch, pair, batch, tier, damage, count):
    """Add ``count`` attacks with the same outcome to chunk ``ch`` of the tallies;
    ``tier`` 0 miss, 1 hit, 2 crit."""
    t.attempts[ch, pair, batch] += count
    t.damage_sum[ch, pair, batch] += count * damage
    t.damage_hist[ch, pair, min(damage, t.damage_hist.shape[2] - 1)] += count
    if tier > 0:
        t.hits[ch, pair, batch] += count
        if tier == 2:
            t.crits[ch, pair, batch] += count


@inline_kernel
def duel_pair(attacker, attack, n_attacks):
    """The tally pair of ``attack`` made by ``attacker`` (combatant 0 or 1) at the other
    combatant of a plain duel, of ``n_attacks`` attacks in the scenario."""
    return (attacker * n_attacks + attack) * 2 + 1 - attacker


@inline_kernel
def count_duel_attack(t, ch, batch, attacker, seen, attack, tier, damage):
    """Count one plain-duel attack in ``seen[attack, tier, damage]`` (added to the tallies
    by :func:`flush_attack_counts`), or record it at once when its damage is past the
    last bin of ``seen``."""
    count_duel_attacks(t, ch, batch, attacker, seen, attack, tier, damage, 1)


@inline_kernel
def count_duel_attacks(t, ch, batch, attacker, seen, attack, tier, damage, n):
    """:func:`count_duel_attack` for ``n`` attacks with the same outcome."""
    if damage < seen.shape[2]:
        seen[attack, tier, damage] += n
    else:
        record_attacks(t, ch, duel_pair(attacker, attack, seen.shape[0]), batch, tier, damage, n)


@inline_kernel
def count_duel_end(t, ch, ends, defender, down, rnd, received):
    """Count the end of one plain duel in ``ends`` (added up by :func:`record_duel_ends`):
    in round ``rnd`` when the defender is ``down``, with the attacks it received in
    ``t.down_attacks``; else as a duel that reached the round cap (``ends[0]``)."""
    if down:
        ends[rnd] += 1
        t.down_attacks[ch, defender, min(received, t.down_attacks.shape[2] - 1)] += 1
    else:
        ends[0] += 1


@inline_kernel
def count_round_end(ends, down, rnd):
    """:func:`count_duel_end` for a plain duel of one attack a round, whose defender has
    received as many attacks as rounds have begun: only ``ends`` is counted, and the
    attacks each downed defender received are added from it once
    (:func:`record_round_downs`)."""
    ends[rnd if down else 0] += 1


@internal_kernel
def record_round_downs(t, ch, ends, defender):
    """Add to chunk ``ch`` of ``t.down_attacks`` the attacks that the defenders counted
    in ``ends`` by :func:`count_round_end` received before they went down: as many as
    the round (one attack a round). Call before ``ends`` is cleared
    (:func:`record_duel_ends`)."""
    last = t.down_attacks.shape[2] - 1
    for rnd in range(1, ends.shape[0]):
        t.down_attacks[ch, defender, min(rnd, last)] += ends[rnd]


@internal_kernel
def flush_attack_counts(t, ch, batch, attacker, seen):
    """Add the plain-duel attacks counted in ``seen[attack, tier, damage]`` to chunk
    ``ch`` of the tallies of ``batch``, as :func:`record_attack` would one by one, and
    clear the counts. ``attacker`` (combatant 0 or 1) made them all, at the other."""
    n_attacks = seen.shape[0]
    for attack in range(n_attacks):
        pair = duel_pair(attacker, attack, n_attacks)
        for tier in range(3):
            for damage in range(seen.shape[2]):
                if seen[attack, tier, damage] > 0:
                    record_attacks(t, ch, pair, batch, tier, damage, seen[attack, tier, damage])
                    seen[attack, tier, damage] = 0


@inline_kernel
def record_attack(t, ch, pair, batch, tier, damage):
    """Add one attack to chunk ``ch`` of the tallies; ``tier`` 0 miss, 1 hit, 2 crit."""
    record_attacks(t, ch, pair, batch, tier, damage, 1)


@inline_kernel
def next_in_rotation(i, n):
    """The position after ``i`` in a rotation of ``n`` items (a compare, not a slow
    modulo)."""
    return i + 1 if i + 1 < n else 0


@inline_kernel
def attack_in_rotation(attack_list, first, count, st, position, c):
    """The attack combatant ``c`` makes next, its ``count`` attacks (listed in
    ``attack_list`` from ``first``) being used in rotation; ``st[position, c]`` is where
    ``c`` stands in the rotation, and moves on (README, "Scenarios" and "Output files")."""
    attack = attack_list[first + st[position, c]]
    st[position, c] = next_in_rotation(st[position, c], count)
    return attack


@inline_kernel
def sides_standing(standing):
    """How many sides still have someone standing (the encounter goes on while ≥ 2)."""
    n = 0
    for s in range(standing.shape[0]):
        if standing[s] > 0:
            n += 1
    return n


@inline_kernel
def clear_state(st):
    """Zero a 2-D state array (explicit loops: numba's ``st[:, :] = 0`` and ``st.fill(0)``
    go through a generic path that measured 2-3x slower on these small arrays)."""
    for f in range(st.shape[0]):
        for c in range(st.shape[1]):
            st[f, c] = 0


@inline_kernel
def count_standing(side, standing):
    """Start of an encounter: everyone stands; ``standing[s]`` is the head count of side
    ``s`` (``side[c]`` is combatant ``c``'s side)."""
    for s in range(standing.shape[0]):
        standing[s] = 0
    for c in range(side.shape[0]):
        standing[side[c]] += 1


@inline_kernel
def winner_of(standing):
    """The only side with someone standing, or ``standing.shape[0]`` (a draw: no side, or
    the round cap reached with several) (README, "Scenarios" and "Output files")."""
    n_sides = standing.shape[0]
    winner = n_sides
    if sides_standing(standing) == 1:
        for s in range(n_sides):
            if standing[s] > 0:
                winner = s
    return winner


@inline_kernel
def record_outcome(t, ch, last_round, standing, down_round, down_received, never):
    """Add the finished encounter to chunk ``ch`` of the tallies (README, "Scenarios" and "Output
    files").

    Parameters
    ----------
    t : TallyArrays
        The tallies, with their leading chunk axis.
    ch : int
        The chunk this encounter belongs to.
    last_round : int
        The round the encounter ended in (the round cap when nobody won before it).
    standing : ndarray (S,)
        Combatants still standing on each side; gives the winner (or a draw).
    down_round : ndarray (C,)
        Round each combatant first went down, ``never`` if it did not (it is then
        censored at ``last_round``).
    down_received : ndarray (C,)
        Attacks each combatant had received when it first went down.
    never : int
        The ``down_round`` of a combatant that never went down.
    """
    record_end(t, ch, last_round, standing)
    for c in range(down_round.shape[0]):
        record_down(t, ch, c, last_round, down_round[c], down_received[c], never)


@inline_kernel
def record_end(t, ch, last_round, standing):
    """:func:`record_outcome`'s winner (or draw) and length of the encounter."""
    t.winner[ch, winner_of(standing)] += 1
    t.rounds[ch, last_round] += 1


@inline_kernel
def record_down(t, ch, c, last_round, down, received, never):
    """:func:`record_outcome` for combatant ``c``: its down round ``down`` (``never`` if
    it did not go down, then censored at ``last_round``) and the attacks it had
    ``received`` then. Returns whether it went down, so that a caller can branch once
    on it for its own work too (glitters-d20's ``finish``)."""
    if down != never:
        t.down_round[ch, c, down] += 1
        t.down_attacks[ch, c, min(received, t.down_attacks.shape[2] - 1)] += 1
        return True
    t.censor_round[ch, c, last_round] += 1
    return False


@inline_kernel
def record_event(t, ch, c, event, rnd, never):
    """Count ``event`` (a rule system's ``EVENT_*`` code) of combatant ``c`` in round
    ``rnd`` in chunk ``ch`` of the tallies, unless ``rnd`` is ``never`` (it did not
    happen)."""
    if rnd != never:
        t.event_round[ch, c, event, rnd] += 1


@internal_kernel
def record_duel_ends(t, ch, ends, attacker, side, cap, event):
    """Add the plain duels counted in ``ends`` to chunk ``ch`` of the per-encounter
    tallies, as :func:`record_outcome` and :func:`record_event` would one by one, and
    clear the counts.

    In a plain duel only ``attacker`` (on side ``side``) attacks, so only its target can
    go down. ``ends[r]`` counts the duels whose target went down in round ``r`` (also
    counted as its ``event``, unless that is −1), the attacker's side winning; ``ends[0]``
    those that reached the round cap ``cap`` with both standing (a draw).
    """
    target = 1 - attacker
    for rnd in range(cap + 1):
        n = ends[rnd]
        last = rnd if rnd > 0 else cap
        if rnd > 0:
            t.winner[ch, side] += n
            t.down_round[ch, target, rnd] += n
            if event >= 0:
                t.event_round[ch, target, event, rnd] += n
        else:
            t.winner[ch, t.winner.shape[1] - 1] += n
            t.censor_round[ch, target, cap] += n
        t.rounds[ch, last] += n
        t.censor_round[ch, attacker, last] += n
        ends[rnd] = 0


@inline_kernel
def batch_bounds(enc, n_batches, n_total):
    """The tally batch of encounter ``enc`` and the first encounter of the next batch (a
    compare per encounter then finds where a batch ends, instead of a division)."""
    batch = enc * n_batches // n_total
    return batch, -(-(batch + 1) * n_total // n_batches)


@inline_kernel
def chunk_range(first, count, ch, chunks):
    """Encounters ``lo .. hi-1`` of chunk ``ch`` when encounters ``first ..
    first+count-1`` are split into ``chunks`` contiguous chunks; returns (lo, hi)."""
    return first + count * ch // chunks, first + count * (ch + 1) // chunks


@internal_kernel
def initiative_order(rng, init, tie, random_ties, order):
    """Turn order from initiative totals already rolled (docs/rules/glitters-d20.md "Initiative",
    docs/rules/zones-3d6.md "Turn order").

    ``order`` becomes the combatants by ``init`` highest first, then by ``tie`` highest
    first (pass ``init`` again for no tie-break); remaining ties in random order (the
    listed order is shuffled, from ``STREAM_ORDER``, before a stable sort) when
    ``random_ties`` is non-zero, else in listed order.

    Without remaining ties the order is the same whatever the shuffle, so it is skipped
    and its words are not drawn. That leaves every result as it was only because nothing
    draws from ``STREAM_ORDER`` after the turn order in the systems that call this
    (glitters-d20 and zones-3d6 roll initiative once, first): a caller that did would
    see its later draws move. The turn order took 6% of glitters-d20's benchmark fight
    (about 570 instructions a call, counted; 1 call in 4 shuffles). Its dice are
    :func:`~simlab.engine.rng.roll_die_short`'s, which computes the one block the
    shuffle reaches past block 0, not two. The work is :func:`turn_order`'s.
    """
    turn_order(rng, init, tie, random_ties, order)


@inline_kernel
def turn_order(rng, init, tie, random_ties, order):
    """:func:`initiative_order` in line, for a caller whose encounter loop it is part
    of (glitters-d20: its call passed five arrays; the benchmark fight took about 100
    instructions an encounter fewer in line, with its death saves also in line,
    callgrind).

    The order is sorted first; only when two neighbours tie (:func:`sorted_ties`) is
    it made again from the shuffled listed order, the same order as shuffling first:
    the tie test compares 5 neighbours instead of 15 pairs, and 3 encounters in 4 of
    glitters-d20's benchmark fight have no tie (42 instructions an encounter fewer,
    callgrind).
    """
    n = order.shape[0]
    for c in range(n):
        order[c] = c
    sort_by_initiative(init, tie, order)
    if random_ties != 0 and sorted_ties(init, tie, order):
        for c in range(n):
            order[c] = c
        for i in range(n - 1, 0, -1):
            j = roll_die_short(rng, STREAM_ORDER, i + 1) - 1
            order[i], order[j] = order[j], order[i]
        sort_by_initiative(init, tie, order)


@inline_kernel
def sort_by_initiative(init, tie, order):
    """Stable insertion sort of ``order`` by ``init``, then ``tie``, highest first.

    The combatants read from ``order`` are unsigned, so that numba adds no wraparound
    for a negative index to the lookups they make: glitters-d20's benchmark fight
    10,003 -> 9,850 instructions an encounter (callgrind, one thread).
    """
    for i in range(1, order.shape[0]):
        c = np.uint64(order[i])
        k = i
        while k > 0:
            before = np.uint64(order[k - 1])
            if init[before] > init[c] or (init[before] == init[c] and tie[before] >= tie[c]):
                break
            order[k] = before
            k -= 1
        order[k] = c


@inline_kernel
def sorted_ties(init, tie, order):
    """Whether two combatants have the same ``init`` and the same ``tie``, ``order``
    sorted by them (:func:`sort_by_initiative`): neighbours are compared, read as
    unsigned (with glitters-d20's :func:`aftermath` so, its benchmark fight 9,850 ->
    9,738 instructions an encounter, callgrind)."""
    for k in range(1, order.shape[0]):
        a, b = np.uint64(order[k - 1]), np.uint64(order[k])
        if init[a] == init[b] and tie[a] == tie[b]:
            return True
    return False
