"""glitters-d20 status damage and the ``frozen`` event against exact chains.

The attacker always acts first (initiative +50 against +0 on a d20) and the defender,
who has so much HP that it is never down, makes no attacks: so each round is the
attacker's turn (its main-hand attack, then its offhand attack) followed by the
defender's (statuses tick at its start, Freezing drops by 1 at its end), and the only
state that matters is the defender's status levels (docs/rules/glitters-d20.md, "A
turn", "An attack"). A Markov chain over those levels — and the status damage dealt so
far — gives the exact distribution of each encounter's status damage and of the round
the defender is first Frozen, written here from the rules text alone.

False alarms. Fixed seeds, so each test always passes or always fails. Status damage is
a per-encounter sum kept per batch: its mean within k = 4.5 standard errors (σ² the
exact variance over the encounters), and the 32 standardised batch means' sum of
squares against χ²(32) at p > 1e-4 (:func:`tests.chains.per_encounter_verdict`). The
Frozen round (plus the never-frozen cell) by a chi-square test at p > 1e-4.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    P_MIN,
    State,
    outcomes,
    per_encounter_verdict,
    step_all,
)
from tests.support import K_SIGMA, chi_square_p

N = 40_000
SEED = 8086


def d20_hits(bonus: int, mit: int) -> float:
    """P(an attack hits, a critical included): a natural 20, or natural + bonus ≥ MIT
    (docs/rules/glitters-d20.md, "An attack")."""
    return (1 + sum(1 for n in range(1, 20) if n + bonus >= mit)) / 20


# ---------------------------------------------------------------------------------------
# Bleeding and Burning
# ---------------------------------------------------------------------------------------

STATUS = """
scenario: gst-status
rules: glitters-d20
max_rounds: 6
params: {{burning_decay: {decay}}}
attacks:
  sword: {{damage: 1d6, type: slashing, bonus: 3}}
  brand: {{damage: 1d6, type: fire, bonus: 1}}
  torch: {{damage: 1d4, type: fire, bonus: 2, hand: offhand}}
sides:
  a: [{{name: A, hp: 10, initiative: 50, attacks: [sword, brand, torch]}}]
  b: [{{name: D, hp: 100000, dc: 12, defense: parry, {affinity}: [fire]}}]
"""

#: case → (burning_decay, the defender's fire affinity, what a Burning d4 does to it)
STATUS_CASES = {
    "vulnerable": (1, "vulnerable", lambda die: 2 * die),
    "resistant-decay-2": (2, "resist", lambda die: die // 2),
}


def status_damage_pmf(case: str, rounds: int) -> np.ndarray:
    """P(the defender takes t status damage in an encounter of ``rounds`` rounds).

    docs/rules/glitters-d20.md: the main-hand attacks, sword and brand in rotation, are
    parried — Parry +2 to MIT, ready again at each of the defender's turns and before
    its first, spent on the first attack after it — the offhand torch is not. A slashing
    hit adds a level of Bleeding, a fire hit one of Burning (a critical too; nothing
    freezes here), so Burning can build up in the brand's rounds. At the
    start of the defender's turn Bleeding L deals L and drops to L − 1, then Burning
    deals 1d4 fire damage (vulnerability ×2, resistance ×½ rounded down) and loses
    ``burning_decay`` levels. The chain's state: (Bleeding, Burning, damage so far).
    """
    decay, _, fire = STATUS_CASES[case]
    p_sword, p_brand, p_torch = d20_hits(3, 12 + 2), d20_hits(1, 12 + 2), d20_hits(2, 12)

    def attacker_turn(s: State, main_slashes: bool, p_main: float) -> list[tuple[float, State]]:
        bleeding, burning, total = s
        return [(pm * pt, (bleeding + hm * main_slashes, burning + hm * (not main_slashes) + ht,
                           total))
                for hm, pm in ((1, p_main), (0, 1 - p_main))
                for ht, pt in ((1, p_torch), (0, 1 - p_torch))]  # fmt: skip

    def defender_turn(s: State) -> list[tuple[float, State]]:
        bleeding, burning, total = s
        total += bleeding
        bleeding = max(bleeding - 1, 0)
        if burning == 0:
            return [(1.0, (bleeding, 0, total))]
        after = max(burning - decay, 0)
        return [(0.25, (bleeding, after, total + fire(die))) for die in range(1, 5)]

    states: dict[State, float] = {(0, 0, 0): 1.0}
    for r in range(rounds):
        sword = r % 2 == 0
        turn = functools.partial(attacker_turn, main_slashes=sword,
                                 p_main=p_sword if sword else p_brand)  # fmt: skip
        states = step_all(step_all(states, turn), defender_turn)
    pmf = np.zeros(max(s[2] for s in states) + 1)
    for (_, _, total), p in states.items():
        pmf[total] += p
    return pmf


@pytest.mark.parametrize("case", list(STATUS_CASES))
@pytest.mark.kernels
def test_bleeding_and_burning_damage_match_the_chain(case: str) -> None:
    """The defender's status damage per encounter (``status_damage``) matches the chain;
    the attacker, untouched, takes none."""
    decay, affinity, _ = STATUS_CASES[case]
    scn = simlab.loads(STATUS.format(decay=decay, affinity=affinity), f"{case}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    pmf = status_damage_pmf(case, scn.max_rounds)
    values = np.arange(len(pmf))
    mean, var = float(values @ pmf), float((values**2) @ pmf) - float(values @ pmf) ** 2
    z, p = per_encounter_verdict(res.tallies.status_damage[1], N, mean, var)
    assert abs(z) <= K_SIGMA and p > P_MIN, (case, z, p, mean)
    assert res.tallies.status_damage[0].sum() == 0
    table = res.status_damage().set_index("combatant")
    assert table.loc["D", "mean_status_damage"] == res.tallies.status_damage[1].sum() / N


def test_status_damage_cases_are_not_trivial() -> None:
    """Guard: both cases deal status damage in most encounters, with different means."""
    means = []
    for case in STATUS_CASES:
        pmf = status_damage_pmf(case, 6)
        assert pmf[0] < 0.05 and pmf.sum() == pytest.approx(1.0)
        means.append(float(np.arange(len(pmf)) @ pmf))
    assert abs(means[0] - means[1]) > 3


# ---------------------------------------------------------------------------------------
# Frozen
# ---------------------------------------------------------------------------------------

FROZEN = """
scenario: gst-frozen
rules: glitters-d20
max_rounds: 12
attacks:
  frost: {damage: 1d4, type: ice, bonus: 2}
  chill: {damage: 1d4, type: ice, bonus: 0, hand: offhand}
sides:
  a: [{name: A, hp: 10, initiative: 50, attacks: [frost, chill]}]
  b: [{name: D, hp: 100000, dc: 11, attributes: {str: 2}}]
"""


def frozen_round_pmf(rounds: int, strength: int) -> np.ndarray:
    """P(the defender is first Frozen in round r), r = 0..``rounds``.

    docs/rules/glitters-d20.md: an ice hit (a critical too) adds a level of Freezing;
    Freezing above STR makes it Frozen; Freezing drops by 1 at the end of its turn. Two
    ice attacks a round (frost, then chill), then the defender's turn. The chain's
    state: the Freezing level, until Frozen.
    """
    p_frost, p_chill = d20_hits(2, 11), d20_hits(0, 11)
    out = np.zeros(rounds + 1)
    freezing = {0: 1.0}
    for r in range(1, rounds + 1):
        for p_hit in (p_frost, p_chill):
            nxt: dict[int, float] = {}
            for level, p in freezing.items():
                for q, hit in outcomes(np.array([1 - p_hit, p_hit])):
                    if level + hit > strength:
                        out[r] += p * q
                    else:
                        nxt[level + hit] = nxt.get(level + hit, 0.0) + p * q
            freezing = nxt
        freezing_after: dict[int, float] = {}
        for level, p in freezing.items():
            freezing_after[max(level - 1, 0)] = freezing_after.get(max(level - 1, 0), 0.0) + p
        freezing = freezing_after
    return out


@pytest.mark.kernels
def test_frozen_round_matches_the_chain() -> None:
    """The round of the ``frozen`` event (and its rate) match the chain."""
    scn = simlab.loads(FROZEN, "frozen.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    pmf = frozen_round_pmf(scn.max_rounds, 2)
    assert 0.2 < pmf.sum() < 0.95, "the cap leaves some encounters unfrozen"
    hist = res.tallies.event_round[1, res.layout.events.index("frozen")]
    assert hist[0] == 0
    observed = np.append(hist[1:], N - hist.sum())
    expected = np.append(pmf[1:], 1 - pmf.sum())
    assert chi_square_p(observed, expected) > P_MIN, (observed, expected * N)
    assert res.tallies.event_round[0].sum() == 0
