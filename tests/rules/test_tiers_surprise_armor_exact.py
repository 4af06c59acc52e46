"""opposed-tiers: ``surprise_armor`` (armor against a surprise round's ranged attack)
against an exact chain of the defender's Down round.

docs/rules/opposed-tiers.md, "Surprise round": a hidden combatant takes one turn in
round 0; its ranged attack cannot be defended against (it always hits: a Novice's 2d6
total is above 0) and is never a critical; armor applies unless ``surprise_armor:
false``. "An attack" (Novices): then each round 2d6 against the defender's 2d6, a hit
on a greater total, a critical at twice the defense rolling the Journeyman's 3d6 instead
of 2d6; damage − the armor's dice (Light Armor: 1d4), never below 0. "Health and
conditions": the NPC defender falls, and is out, at Health ≤ 0 (its Down round; round 0
is the surprise round).

The sniper S shoots the passive D (Health 9, Light Armor) once a round. The chain:
P(D's running damage first reaches 9 at S's k-th attack, round k − 1), the first attack
the surprise shot. Written from the rules text, sharing nothing with the kernels or
``simlab.exact`` (which refuses a surprise round).

False alarms. Fixed seeds, so each test always passes or always fails. D's Down-round
histogram, with round 0 and the never cell, by chi-square (cells expecting fewer than
5 merged) at p > 1e-4, and the round-0 rate within k = 4.5 standard errors: two runs
× two comparisons, family-wise false-alarm rate ≲ 2e-4. The guard: armor on the
surprise shot moves P(Down in round 0) by more than 0.05, over 25 standard errors
(N = 40,000).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import P_MIN, attacks_to_reach, combatant_index, dice_pmf, mixture
from tests.support import chi_square_p, within

N = 40_000
SEED = 5407
ROUNDS = 15
HEALTH = 9

TEXT = """
scenario: tsa-{armor}
rules: opposed-tiers
max_rounds: {rounds}
params: {{surprise_armor: {armor}}}
attacks:
  shot: {{ranged: true}}
sides:
  a: [{{name: S, hp: 10, hidden: true, attacks: [shot]}}]
  b: [{{name: D, hp: 9, armor: light}}]
"""


def minus_armor(damage: np.ndarray, armor: bool) -> np.ndarray:
    """The pmf of max(damage − 1d4, 0) (``armor``), else ``damage``."""
    if not armor:
        return damage
    out = np.zeros(len(damage))
    for value, p in enumerate(damage):
        for a in range(1, 5):
            out[max(value - a, 0)] += p / 4
    return out


def normal_attack() -> np.ndarray:
    """A Novice's defended attack against Light Armor."""
    d = dice_pmf(2, 6)
    p_hit = p_crit = 0.0
    for a, pa in enumerate(d):
        for b, pb in enumerate(d):
            if pa * pb and a > b:
                p_hit += pa * pb
                p_crit += pa * pb * (a >= 2 * b)
    hit = minus_armor(dice_pmf(2, 6), True)
    crit = minus_armor(dice_pmf(3, 6), True)
    return mixture([(1 - p_hit, np.ones(1)), (p_hit - p_crit, hit), (p_crit, crit)])


@functools.cache
def down_rounds(armor: bool) -> np.ndarray:
    """P(D is Downed in round r), r = 0..ROUNDS."""
    surprise = minus_armor(dice_pmf(2, 6), armor)
    by_attack = attacks_to_reach(HEALTH, [surprise] + [normal_attack()] * ROUNDS, ROUNDS + 1)
    return by_attack[1:]


@pytest.mark.parametrize("armor", [True, False])
@pytest.mark.kernels
def test_surprise_armor_matches_the_chain(armor: bool) -> None:
    """D's Down round, round 0 included, matches the chain."""
    text = TEXT.format(armor=str(armor).lower(), rounds=ROUNDS)
    res = simlab.simulate(simlab.loads(text, "surprise.yaml"), n=N, seed=SEED, threads=1)
    d = combatant_index(res, "D")
    hist = res.tallies.down_round[d]
    exact = down_rounds(armor)
    assert hist[len(exact) :].sum() == 0
    assert within(int(hist[0]), N, float(exact[0])), (hist[0] / N, exact[0])
    observed = np.append(hist[: len(exact)], N - hist.sum())
    expected = np.append(exact, 1 - exact.sum())
    assert chi_square_p(observed, expected) > P_MIN, (observed, expected * N)


def test_surprise_armor_is_not_trivial() -> None:
    """Guard: without armor the surprise shot Downs D in round 0 far more often."""
    assert down_rounds(False)[0] - down_rounds(True)[0] > 0.05
    assert down_rounds(True).sum() > 0.99
