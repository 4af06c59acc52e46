"""zones-3d6: the non-default values of ``initiative_die``, ``initiative_ties``,
``attack_cost`` and ``major_actions`` against an exact chain of a mutual duel.

docs/rules/zones-3d6.md, "Turn order": once per encounter each actor rolls the
initiative die (``initiative_die``, d20) + its ``initiative``; the higher acts first in
every round, ties in random order (``initiative_ties: random``) or in scenario order
(``listed``). "Combatant fields", "Parameters": an actor makes ``attacks_per_turn``
attacks a turn, at most ``major_actions`` ÷ ``attack_cost``. "An attack": 3d6 + bonus
against the defender's 3d6 Evasion, ties hit; a hit deals its 1d6 base die (no Base
Defense), at least 1. An actor whose HP drops below 0 is out and the encounter ends.

X (HP 3, initiative +1, a 1d6 stab at +4) against Y (HP 3, a 1d6+1 maul at +4, one
attack a turn): most hits put the defender out, so who acts first decides many duels and
the initiative die's size and the tie rule move who goes down; with X allowed three
attacks a turn (``attacks_per_turn: 3``) so does the number its actions allow. The chain
mixes the two turn orders, P(X first) from the dice, and steps (X's damage, Y's damage)
once per attack, with each attack's outcomes from :func:`tests.chains.zones_attack`
(written from the rules text, sharing nothing with the kernels or ``simlab.exact``).

False alarms. Fixed seeds, so each test always passes or always fails. X's and Y's
Down-round histograms, each with its never cell, by chi-square (cells expecting fewer
than 5 merged) at p > 1e-4: 12 comparisons, family-wise false-alarm rate ≲ 1.2e-3. The
guard shows each non-default reading moves X's share of Downs by more than 0.03, where
the simulated share's standard error is below 0.0025 (N = 40,000), or a mean Down round
by more than 0.15, where its standard error is below 0.02.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    assert_rounds_match,
    down_rounds,
    duel_down_rounds,
    mean_round,
    outcomes,
    zones_attack,
)

N = 40_000
SEED = 6151
ROUNDS = 20
X_HP, Y_HP, X_INIT = 3, 3, 1

DUEL = """
scenario: zt-{name}
rules: zones-3d6
max_rounds: {rounds}
params: {params}
attacks:
  stab: {{damage: 1d6, bonus: 4}}
  maul: {{damage: 1d6+1, bonus: 4}}
sides:
  x: [{{name: X, hp: 3, initiative: 1, attacks: [stab], attacks_per_turn: {x_apt}}}]
  y: [{{name: Y, hp: 3, evasion: 1, attacks: [maul], attacks_per_turn: 1}}]
"""

#: case → (initiative_die, initiative_ties, major_actions, attack_cost, X's
#: attacks_per_turn): one attack a turn where the turn order is compared
CASES: dict[str, tuple[int, str, int, int, int]] = {
    "default": (20, "random", 3, 1, 1),
    "die-3": (3, "random", 3, 1, 1),
    "die-3-listed": (3, "listed", 3, 1, 1),
    "three": (20, "random", 3, 1, 3),
    "cost-2": (20, "random", 3, 2, 3),
    "major-2": (20, "random", 2, 1, 3),
}


def text(name: str) -> str:
    die, ties, major, cost, x_apt = CASES[name]
    params = (
        f"{{initiative_die: {die}, initiative_ties: {ties}, major_actions: {major}, "
        f"attack_cost: {cost}}}"
    )
    return DUEL.format(name=name, rounds=ROUNDS, params=params, x_apt=x_apt)


def p_x_first(die: int, ties: str) -> float:
    """P(X acts first): d``die`` + 1 above Y's d``die``, and a tie X wins with
    probability 1/2 (``random``) or 1 (``listed``: X is listed first)."""
    above = tie = 0
    for a in range(1, die + 1):
        for b in range(1, die + 1):
            above += a + X_INIT > b
            tie += a + X_INIT == b
    return (above + tie * (0.5 if ties == "random" else 1.0)) / die**2


@functools.cache
def chain(die: int, ties: str, major: int, cost: int, x_apt: int) -> dict[str, np.ndarray]:
    """P(X / Y is out in round r)."""
    x_attacks = min(x_apt, major // cost)
    y_attacks = min(1, major // cost)
    stab = outcomes(zones_attack(4, 1, 6, 0, set()))  # X's 1d6, +4, against Y's Evasion +1
    maul = outcomes(zones_attack(4, 0, 6, 1, set()))  # Y's 1d6+1, +4, against X
    # out once damage taken exceeds HP
    return duel_down_rounds(p_x_first(die, ties), (x_attacks, y_attacks), (stab, maul),
                            (X_HP + 1, Y_HP + 1), ROUNDS)  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_turns_match_the_chain(name: str) -> None:
    """X's and Y's Down rounds match the chain for each reading."""
    res = simlab.simulate(simlab.loads(text(name), f"{name}.yaml"), n=N, seed=SEED, threads=1)
    exact = chain(*CASES[name])
    for who in ("X", "Y"):
        assert_rounds_match(N, down_rounds(res, who), exact[who], f"{name} {who} down")


def test_turn_cases_are_not_trivial() -> None:
    """Guard: both sides go down in a good share of duels; each non-default reading
    moves X's share of Downs or a mean Down round by more than the tests' resolution
    (die-3-listed measured against die-3, where only the ties differ)."""
    base = chain(*CASES["default"])
    assert 0.2 < base["X"].sum() < 0.8 and base["X"].sum() + base["Y"].sum() > 0.999
    for name, ref in (("die-3", "default"), ("die-3-listed", "die-3"),
                      ("cost-2", "three"), ("major-2", "three")):  # fmt: skip
        this, that = chain(*CASES[name]), chain(*CASES[ref])
        share = abs(this["X"].sum() - that["X"].sum())
        moved = max(abs(mean_round(this[w]) - mean_round(that[w])) for w in ("X", "Y"))
        assert share > 0.03 or moved > 0.15, (name, share, moved)
