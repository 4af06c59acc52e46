"""glitters-d20 ``initiative_ties: listed`` against the default (``random``) in a mutual
duel, against an exact chain.

docs/rules/glitters-d20.md, "Turn order": every combatant rolls d20 + ``initiative``
once per encounter; highest first; on a tie a player character goes before a monster;
further ties in random order (``random``) or listed order (``listed``). "An attack": a
natural 20 is a critical hit and always hits, else natural + bonus ≥ MIT = DC hits
(:func:`tests.chains.glitters_attack`). "HP 0" is down; a monster is out, and a duel
ends as soon as at most one side has anyone standing.

X (listed first, a monster) against Y, both HP 1, initiative +0, a 1d4 bludgeoning
attack at +8 against DC 10: every attack but a natural 1 hits and fells, so who acts
first decides almost every duel. A tie (1 in 20) goes to X under ``listed``, to either
under ``random``; with Y a player character it goes to Y under both. The chain mixes the
two turn orders and steps (X's damage, Y's damage) once per attack.

False alarms. Fixed seed, so each test always passes or always fails. X's and Y's
Down-round histograms, each with its never cell, by chi-square (cells expecting fewer
than 5 merged) at p > 1e-4: 8 comparisons, family-wise false-alarm rate ≲ 8e-4. The
guard shows ``listed`` moves X's share of Downs by more than 0.02 (and a player Y by as
much the other way), where the simulated share's standard error is below 0.0025 (N =
40,000).
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
    glitters_attack,
    outcomes,
)

N = 40_000
SEED = 7717
ROUNDS, HP, BONUS, DC = 10, 1, 8, 10

DUEL = """
scenario: gti-{name}
rules: glitters-d20
max_rounds: {rounds}
params: {{initiative_ties: {ties}}}
attacks: {{mace: {{damage: 1d4, type: bludgeoning, bonus: {bonus}}}}}
sides:
  x: [{{name: X, hp: {hp}, dc: {dc}, attacks: [mace]}}]
  y: [{{name: Y, player: {player}, hp: {hp}, dc: {dc}, attacks: [mace]}}]
"""

#: case → (initiative_ties, Y a player character)
CASES: dict[str, tuple[str, bool]] = {
    "random": ("random", False),
    "listed": ("listed", False),
    "player-random": ("random", True),
    "player-listed": ("listed", True),
}


def text(name: str) -> str:
    ties, player = CASES[name]
    return DUEL.format(name=name, rounds=ROUNDS, ties=ties, bonus=BONUS, hp=HP, dc=DC,
                       player=str(player).lower())  # fmt: skip


def p_x_first(ties: str, y_player: bool) -> float:
    """P(X acts first): its d20 above Y's (both +0), and a tie X wins with probability
    0 (Y a player), else 1/2 (``random``) or 1 (``listed``: X is listed first)."""
    above = sum(a > b for a in range(1, 21) for b in range(1, 21)) / 400
    tie = 20 / 400
    wins_tie = 0.0 if y_player else 0.5 if ties == "random" else 1.0
    return above + tie * wins_tie


@functools.cache
def chain(ties: str, y_player: bool) -> dict[str, np.ndarray]:
    """P(X / Y is down in round r), r = 0..ROUNDS."""
    mace = outcomes(glitters_attack(BONUS, DC, 1, 4, 0))  # either's attack
    return duel_down_rounds(p_x_first(ties, y_player), (1, 1), (mace, mace), (HP, HP), ROUNDS)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_initiative_ties_match_the_chain(name: str) -> None:
    """X's and Y's Down rounds match the chain for each reading."""
    res = simlab.simulate(simlab.loads(text(name), f"{name}.yaml"), n=N, seed=SEED, threads=1)
    exact = chain(*CASES[name])
    for who in ("X", "Y"):
        assert_rounds_match(N, down_rounds(res, who), exact[who], f"{name} {who} down")


def test_initiative_ties_are_not_trivial() -> None:
    """Guard: each duel has a Down; ``listed`` moves X's share of Downs by more than
    0.02 against ``random``, a player Y by more than 0.02 the other way, and under a
    player Y the tie rule changes nothing."""
    shares = {name: chain(*case)["X"].sum() for name, case in CASES.items()}
    for name, case in CASES.items():
        assert chain(*case)["X"].sum() + chain(*case)["Y"].sum() > 0.999, name
    assert shares["random"] - shares["listed"] > 0.02
    assert shares["player-random"] - shares["random"] > 0.02
    assert shares["player-random"] == shares["player-listed"]
