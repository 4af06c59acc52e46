"""glitters-d20: ``hit_on_tie: false`` and ``frozen_lasts: thaw`` with Burning involved,
each against an exact chain written from the rules text, sharing nothing with the
kernels or ``simlab.exact`` (which solves the first duel from the engine's own reading,
and refuses the second: two attackers, hits that add statuses).

docs/rules/glitters-d20.md. "A turn": the attacker (initiative +50 on a d20, against +0)
acts first every round, its main-hand attack then its offhand attack; a second attacker
(+25: its d20 + 25 lies between the others') acts next; then the defender's turn:
Burning deals 1d4 fire damage and loses a level (not while Frozen), and at its end
Freezing drops by 1. "An attack": a natural 20 is a critical hit (1d6 → 6 + 1d6) and
always hits, else natural + bonus ≥ MIT = DC hits (``hit_on_tie: false``: natural +
bonus > MIT); DC is 0 while Frozen. A hit that leaves the defender standing adds a level
of Burning (fire) or Freezing (ice), one Burning and one Freezing cancelling each other
(fire first removes Freezing, ice Burning); Freezing above STR makes it Frozen, and its
Burning ends (a Frozen combatant has none: a fire hit on it with no Freezing left to
remove adds nothing). "Parameters": Frozen lasts the encounter (``encounter``) or ends
once Freezing ≤ STR, checked at the end of its own turn after Freezing drops (``thaw``).

* ``tie``: A's two 1d6 bludgeoning clubs at +0 against D (HP 6, DC 19, no attacks): a
  natural 19 is a tie, so ``hit_on_tie: false`` leaves only the critical, halving the
  hit rate. D's Down round from :func:`tests.chains.attacks_to_reach`, two attacks a
  round.
* ``burn``: A's 1d4 ice ``frost`` then offhand 1d4 fire ``torch``, then B's 1d4 fire
  ``brand``, all at +0, against D (HP 500, never down; DC 12, STR 0). Under ``thaw``
  D thaws at the end of every turn it is Frozen in, and its Burning, gained from
  unfrozen fire hits, ticks again; under ``encounter`` it never ticks after the first
  freeze. The chain's state: (Burning, Freezing, Frozen, status damage so far), the
  ``frozen`` round recorded when first Frozen.

False alarms. Fixed seed, so each test always passes or always fails. ``tie``: D's Down
round (with its never cell) by chi-square (cells expecting fewer than 5 merged) at
p > 1e-4, 2 readings. ``burn``: the ``frozen`` round the same way, and D's status damage
(a per-encounter sum kept per batch) within k = 4.5 standard errors with batch means
that fit at p > 1e-4 (:func:`tests.chains.assert_sum_matches`), 2 readings: family-wise
false-alarm rate ≲ 1e-3. The guard: ``hit_on_tie: false`` moves D's mean Down round by
more than 1.5 rounds and ``thaw`` D's mean status damage by more than 2, where their
standard errors are below 0.05 and 0.03 (N = 40,000), as would a Frozen D gaining
Burning; the ``frozen`` round is the same under both readings.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    State,
    assert_rounds_match,
    assert_sum_matches,
    attacks_to_reach,
    dice_pmf,
    event_rounds,
    mixture,
    shifted,
)

N = 40_000
SEED = 7243


def d20_attack(bonus: int, mit: int, sides: int, tie_hits: bool) -> np.ndarray:
    """One 1d``sides`` attack's damage: a natural 20 is a critical (``sides`` + 1d``sides``)
    and always hits; else natural + ``bonus`` ≥ MIT hits (> MIT unless ``tie_hits``)."""
    hits = sum(1 for n in range(1, 20) if n + bonus > mit or (tie_hits and n + bonus == mit))
    normal = dice_pmf(1, sides)
    crit = shifted(dice_pmf(1, sides), sides)
    return mixture([(1 - (hits + 1) / 20, np.ones(1)), (hits / 20, normal), (1 / 20, crit)])


# ---------------------------------------------------------------------------------------
# hit_on_tie
# ---------------------------------------------------------------------------------------

TIE_ROUNDS, TIE_HP, TIE_DC = 40, 6, 19

TIE = """
scenario: gpm-tie-{tie}
rules: glitters-d20
max_rounds: {rounds}
params: {{hit_on_tie: {tie}}}
attacks:
  club: {{damage: 1d6, type: bludgeoning, bonus: 0}}
  cudgel: {{damage: 1d6, type: bludgeoning, bonus: 0, hand: offhand}}
sides:
  a: [{{name: A, hp: 10, initiative: 50, attacks: [club, cudgel]}}]
  b: [{{name: D, hp: {hp}, dc: {dc}}}]
"""


@functools.cache
def tie_down_rounds(tie_hits: bool) -> np.ndarray:
    """P(D is down in round r), r = 0..TIE_ROUNDS: the attack at which A's running
    damage first reaches D's HP, two attacks a round."""
    club = d20_attack(0, TIE_DC, 6, tie_hits)
    by_attack = attacks_to_reach(TIE_HP, [club], 2 * TIE_ROUNDS)
    rounds = np.zeros(TIE_ROUNDS + 1)
    for k in range(1, len(by_attack)):
        rounds[(k + 1) // 2] += by_attack[k]
    return rounds


@pytest.mark.parametrize("tie_hits", [True, False])
@pytest.mark.kernels
def test_hit_on_tie_matches_the_chain(tie_hits: bool) -> None:
    """D's Down round matches the chain under either reading; A is never touched."""
    tie = str(tie_hits).lower()
    text = TIE.format(tie=tie, rounds=TIE_ROUNDS, hp=TIE_HP, dc=TIE_DC)
    res = simlab.simulate(simlab.loads(text, f"tie-{tie}.yaml"), n=N, seed=SEED, threads=1)
    names = [m for _, m in res.layout.combatants]
    hist = res.tallies.down_round[names.index("D")]
    assert_rounds_match(N, hist, tie_down_rounds(tie_hits), f"hit_on_tie {tie}")
    assert res.tallies.down_round[names.index("A")].sum() == 0


# ---------------------------------------------------------------------------------------
# frozen_lasts: thaw, with Burning
# ---------------------------------------------------------------------------------------

BURN_ROUNDS, BURN_HP, BURN_DC, BURN_STR = 10, 500, 12, 0

BURN = """
scenario: gpm-burn-{lasts}
rules: glitters-d20
max_rounds: {rounds}
params: {{frozen_lasts: {lasts}}}
attacks:
  frost: {{damage: 1d4, type: ice, bonus: 0}}
  torch: {{damage: 1d4, type: fire, bonus: 0, hand: offhand}}
  brand: {{damage: 1d4, type: fire, bonus: 0}}
sides:
  a:
    - {{name: A, hp: 10, initiative: 50, attacks: [frost, torch]}}
    - {{name: B, hp: 10, initiative: 25, attacks: [brand]}}
  b: [{{name: D, hp: {hp}, dc: {dc}, attributes: {{str: {str_}}}}}]
"""

#: the attacks of a round, in turn order: True for ice, False for fire
ROUND_ATTACKS = (True, False, False)


def p_hit(frozen: int) -> float:
    """P(a 1d4 attack at +0 hits D): DC 12, or 0 while Frozen (a critical included)."""
    return 1 - float(d20_attack(0, 0 if frozen else BURN_DC, 4, True)[0])


def a_hit(s: State, ice: bool, frozen_burns: bool = False) -> State:
    """A hit's status on D (state: Burning, Freezing, Frozen, status damage);
    ``frozen_burns``: the other reading, in which a Frozen D gains Burning (the guard's)."""
    burning, freezing, frozen, dealt = s
    if ice:
        if burning:
            return (burning - 1, freezing, frozen, dealt)
        freezing += 1
        if not frozen and freezing > BURN_STR:  # Frozen: its Burning ends (it is 0 here)
            return (0, freezing, 1, dealt)
        return (burning, freezing, frozen, dealt)
    if freezing:
        return (burning, freezing - 1, frozen, dealt)
    return (burning + (frozen_burns or not frozen), freezing, frozen, dealt)


def d_turn(s: State, lasts: str) -> list[tuple[float, State]]:
    """D's turn: Burning ticks 1d4 and drops a level unless Frozen; Freezing drops by 1
    at the end, and under ``thaw`` Frozen ends once Freezing ≤ STR."""
    burning, freezing, frozen, dealt = s
    freezing = max(freezing - 1, 0)
    still = int(frozen and not (lasts == "thaw" and freezing <= BURN_STR))
    if frozen or not burning:
        return [(1.0, (burning, freezing, still, dealt))]
    return [(0.25, (burning - 1, freezing, 0, dealt + d)) for d in range(1, 5)]


@functools.cache
def burn_chain(lasts: str, frozen_burns: bool = False) -> dict[str, np.ndarray]:
    """P(D is first Frozen in round r), r = 0..BURN_ROUNDS, and the pmf of D's status
    damage over the encounter (all rounds are played: D is never down)."""
    frozen_round = np.zeros(BURN_ROUNDS + 1)
    states: dict[State, float] = {(0, 0, 0, 0): 1.0}
    ever: dict[State, float] = {}  # the states of encounters in which D was Frozen
    for r in range(1, BURN_ROUNDS + 1):
        for ice in ROUND_ATTACKS:
            nxt: dict[State, float] = {}
            nxt_ever: dict[State, float] = {}
            for pool, out in ((states, nxt), (ever, nxt_ever)):
                for s, p in pool.items():
                    q = p_hit(s[2])
                    hit = a_hit(s, ice, frozen_burns)
                    first = out is nxt and hit[2] and not s[2]
                    if first:
                        frozen_round[r] += p * q
                    target = nxt_ever if first else out
                    target[hit] = target.get(hit, 0.0) + p * q
                    out[s] = out.get(s, 0.0) + p * (1 - q)
            states, ever = nxt, nxt_ever
        for pool in (states, ever):
            turned: dict[State, float] = {}
            for s, p in pool.items():
                for q, t in d_turn(s, lasts):
                    turned[t] = turned.get(t, 0.0) + p * q
            pool.clear()
            pool.update(turned)
    damage = np.zeros(4 * BURN_ROUNDS + 1)
    for pool in (states, ever):
        for s, p in pool.items():
            damage[s[3]] += p
    return {"frozen": frozen_round, "status": damage}


@pytest.mark.parametrize("lasts", ["encounter", "thaw"])
@pytest.mark.kernels
def test_thaw_with_burning_matches_the_chain(lasts: str) -> None:
    """The ``frozen`` round and D's status damage match the chain; nobody is down."""
    text = BURN.format(lasts=lasts, rounds=BURN_ROUNDS, hp=BURN_HP, dc=BURN_DC, str_=BURN_STR)
    res = simlab.simulate(simlab.loads(text, f"burn-{lasts}.yaml"), n=N, seed=SEED, threads=1)
    exact = burn_chain(lasts)
    assert_rounds_match(N, event_rounds(res, "D", "frozen"), exact["frozen"], f"{lasts} frozen")
    names = [m for _, m in res.layout.combatants]
    d = names.index("D")
    assert_sum_matches(N, res.tallies.status_damage[d], exact["status"], f"{lasts} status")
    assert res.tallies.down_round.sum() == 0


def mean(pmf: np.ndarray) -> float:
    """The mean of a (defective) pmf, given the event happens."""
    return float(np.arange(len(pmf)) @ pmf) / pmf.sum()


def test_glitters_params_are_not_trivial() -> None:
    """Guard: D is down in nearly every ``tie`` duel under both readings, and
    ``hit_on_tie: false`` delays it by more than 1.5 rounds; under ``thaw`` D takes more
    than 2 more status damage on average, its first Frozen round unchanged, and a Frozen D
    that gained Burning would take more than 2 more again."""
    ties, strict = tie_down_rounds(True), tie_down_rounds(False)
    assert ties.sum() > 0.99 and strict.sum() > 0.95
    assert mean(strict) - mean(ties) > 1.5
    stays, thaws = burn_chain("encounter"), burn_chain("thaw")
    assert np.allclose(stays["frozen"], thaws["frozen"]) and stays["frozen"].sum() > 0.9
    for exact in (stays, thaws):
        assert abs(exact["status"].sum() - 1) < 1e-9
    assert mean(thaws["status"]) - mean(stays["status"]) > 2
    assert mean(burn_chain("thaw", True)["status"]) - mean(thaws["status"]) > 2
