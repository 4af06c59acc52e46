"""opposed-tiers: the non-default values of ``initiative_dice`` and ``initiative_ties``
against an exact chain of a mutual duel.

docs/rules/opposed-tiers.md, "Turn order": once per encounter each combatant makes a
Reflex check, ``initiative_dice`` (2d6) + ``reflex``; the highest acts first in every
round, ties in random order (``initiative_ties: random``) or in scenario order
(``listed``). "An attack", Novices without gear: :func:`tests.chains.tiers_attack`.
"Health and conditions": an NPC is out as soon as it falls (Health ≤ 0), which ends a
duel.

X (HP 4, weapon SL 3, Reflex 1, listed first) against Y (HP 4, weapon SL 3): a hit
deals 2d6 (a critical 3d6), which fells in most cases, so who acts first decides many
duels. The chain mixes the two turn orders, P(X first) from the initiative dice, and
steps (X's damage, Y's damage) once per attack.

False alarms. Fixed seed, so each test always passes or always fails. X's and Y's
Down-round histograms, each with its never cell, by chi-square (cells expecting fewer
than 5 merged) at p > 1e-4: 8 comparisons, family-wise false-alarm rate ≲ 8e-4. The
guard shows each non-default value moves X's share of Downs by more than 0.025, where the
simulated share's standard error is below 0.0025 (N = 40,000).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    assert_rounds_match,
    dice_pmf,
    duel_down_rounds,
    outcomes,
    tiers_attack,
)

N = 40_000
SEED = 4423
ROUNDS, HP, X_REFLEX = 16, 4, 1

DUEL = """
scenario: oti-{name}
rules: opposed-tiers
max_rounds: {rounds}
params: {{initiative_dice: {dice}, initiative_ties: {ties}}}
attacks: {{axe: {{}}}}
sides:
  x: [{{name: X, hp: {hp}, weapon_sl: 3, reflex: {reflex}, attacks: [axe]}}]
  y: [{{name: Y, hp: {hp}, weapon_sl: 3, attacks: [axe]}}]
"""

#: case → (initiative_dice as (count, sides), initiative_ties)
CASES: dict[str, tuple[tuple[int, int], str]] = {
    "default": ((2, 6), "random"),
    "listed": ((2, 6), "listed"),
    "dice-1d3": ((1, 3), "random"),
    "dice-1d3-listed": ((1, 3), "listed"),
}


def text(name: str) -> str:
    (count, sides), ties = CASES[name]
    return DUEL.format(name=name, rounds=ROUNDS, dice=f"{count}d{sides}", ties=ties, hp=HP,
                       reflex=X_REFLEX)  # fmt: skip


def p_x_first(count: int, sides: int, ties: str) -> float:
    """P(X acts first): its check (the dice + Reflex 1) above Y's (the dice + 0), and a
    tie X wins with probability 1/2 (``random``) or 1 (``listed``: X is listed first)."""
    check = dice_pmf(count, sides)
    above = tie = 0.0
    for a, pa in enumerate(check):
        for b, pb in enumerate(check):
            above += pa * pb * (a + X_REFLEX > b)
            tie += pa * pb * (a + X_REFLEX == b)
    return above + tie * (0.5 if ties == "random" else 1.0)


@functools.cache
def chain(count: int, sides: int, ties: str) -> dict[str, np.ndarray]:
    """P(X / Y falls in round r), r = 0..ROUNDS."""
    axe = outcomes(tiers_attack(3, 0, 0))  # either's attack: SL 3 against defense SL 0
    first = p_x_first(count, sides, ties)
    return duel_down_rounds(first, (1, 1), (axe, axe), (HP, HP), ROUNDS)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_initiative_matches_the_chain(name: str) -> None:
    """X's and Y's Down rounds match the chain for each reading."""
    res = simlab.simulate(simlab.loads(text(name), f"{name}.yaml"), n=N, seed=SEED, threads=1)
    (count, sides), ties = CASES[name]
    exact = chain(count, sides, ties)
    names = [m for _, m in res.layout.combatants]
    for who in ("X", "Y"):
        hist = res.tallies.down_round[names.index(who)]
        assert_rounds_match(N, hist, exact[who], f"{name} {who} down")


def test_initiative_cases_are_not_trivial() -> None:
    """Guard: both fall in a good share of duels; each non-default value moves X's share
    of Downs by more than 0.025 (``listed`` against ``default``, ``dice-1d3`` against
    ``default``, ``dice-1d3-listed`` against ``dice-1d3``)."""
    base = chain(2, 6, "random")
    assert 0.2 < base["X"].sum() < 0.8 and base["X"].sum() + base["Y"].sum() > 0.999
    for name, ref in (("listed", "default"), ("dice-1d3", "default"),
                      ("dice-1d3-listed", "dice-1d3")):  # fmt: skip
        this = chain(*CASES[name][0], CASES[name][1])
        that = chain(*CASES[ref][0], CASES[ref][1])
        assert abs(this["X"].sum() - that["X"].sum()) > 0.025, name
