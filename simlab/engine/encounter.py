"""Kernels of the shared model that every rule system uses (RULES.md, "Shared model").

Targeting policies, the end-of-encounter test and the per-attack tally are the same in
all five systems; the rule modules call these with 1-D views of their own arrays (side
of each combatant, out flags, current HP), so the state layouts stay their own.

Targeting policy codes: 0 ``focus``, 1 ``random``, 2 ``lowest-hp``
(``simlab.scenario.common.POLICY_CODE``).
"""

from __future__ import annotations

from simlab.engine.jit import inline_kernel
from simlab.engine.rng import STREAM_TARGET, uniform_index

FOCUS, RANDOM, LOWEST_HP = 0, 1, 2


@inline_kernel
def is_standing_enemy(side, out, attacker, d):
    """Whether combatant ``d`` is on another side than ``attacker`` and still standing."""
    return side[d] != side[attacker] and out[d] == 0


@inline_kernel
def choose_target(side, out, hp, policy, rng, attacker):
    """A standing enemy chosen by the attacker's policy; −1 if none (RULES.md, shared).

    ``focus``: the first in listed order; ``random``: uniform, drawn from
    ``STREAM_TARGET``; ``lowest-hp``: the lowest current HP, ties to the first listed.
    """
    chosen = -1
    count = 0
    for d in range(side.shape[0]):
        if not is_standing_enemy(side, out, attacker, d):
            continue
        if policy == FOCUS:
            return d
        count += 1
        if policy == LOWEST_HP and (chosen < 0 or hp[d] < hp[chosen]):
            chosen = d
    if policy != RANDOM or count == 0:
        return chosen
    pick = uniform_index(rng, STREAM_TARGET, count)
    for d in range(side.shape[0]):
        if is_standing_enemy(side, out, attacker, d):
            if pick == 0:
                return d
            pick -= 1
    return -1


@inline_kernel
def record_attack(t, ch, pair, batch, tier, damage):
    """Add one attack to chunk ``ch`` of the tallies; ``tier`` 0 miss, 1 hit, 2 crit."""
    t.attempts[ch, pair, batch] += 1
    t.damage_sum[ch, pair, batch] += damage
    t.damage_hist[ch, pair, min(damage, t.damage_hist.shape[2] - 1)] += 1
    if tier > 0:
        t.hits[ch, pair, batch] += 1
        if tier == 2:
            t.crits[ch, pair, batch] += 1


@inline_kernel
def sides_standing(standing):
    """How many sides still have someone standing (the encounter goes on while ≥ 2)."""
    n = 0
    for s in range(standing.shape[0]):
        if standing[s] > 0:
            n += 1
    return n
