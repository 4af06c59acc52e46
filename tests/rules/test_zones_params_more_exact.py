"""zones-3d6: ``edges_stack`` and ``edge_pressure_cancel`` at both values, against an
exact chain of a passive defender's Down round (``simlab.exact`` solves these duels
too, but from the engine's own reading; this chain is written from the rules text,
sharing nothing with the kernels or ``simlab.exact``).

docs/rules/zones-3d6.md, "An attack": the attacker rolls 3d6; each edge raises the
highest die still below 6 by one and each pressure lowers the lowest die still above 1
by one; the dice plus ``bonus`` make the total. The defender's Evasion is 3d6 +
``evasion``. The attack hits if its total is at least the Evasion total; a hit deals its
1d6 (no Base Defense), at least 1. An actor whose HP drops below 0 is out (its Down
round). "Parameters": ``edges_stack: false``, at most one edge (and one pressure)
counts; ``edge_pressure_cancel``: edges and pressures cancel one for one (``true``),
or all edges apply, then all pressures (``false``); "Readings": with ``edges_stack:
false`` each kind is capped at one before cancelling.

X attacks the passive Y (HP 4, out once it has taken 5) once a round; Y's Down round is
the attack at which X's running damage first reaches 5
(:func:`tests.chains.attacks_to_reach`). Two duels, each at both values of its
parameter:

* ``stack``: X's stab has three edges against Y's Evasion + 3: the total rises by up to
  3 (``edges_stack: true``) or by up to 1 (``false``).
* ``cancel``: X's stab has ten edges and six pressures against Y's Evasion + 2: they
  cancel to four edges (``true``), or the ten edges push the dice up to the sixes, the
  rest wasted, and the six pressures then take six steps off (``false``), pulling the
  total down.

False alarms. Fixed seed, so each test always passes or always fails. Y's Down-round
histogram, with its never cell, by chi-square (cells expecting fewer than 5 merged) at
p > 1e-4: 4 comparisons, family-wise false-alarm rate ≲ 4e-4. The guard: each
parameter's other value moves X's hit rate by more than 0.1 and Y's mean Down round by
more than 0.5 rounds, where its standard error is below 0.03 (N = 40,000).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import simlab
from tests.chains import (
    assert_rounds_match,
    attacks_to_reach,
    dice_pmf,
    down_rounds,
    mean_round,
    mixture,
    shifted,
)

N = 40_000
SEED = 4463
ROUNDS = 20
HP = 4

SCENARIO = """
scenario: zpm-{name}
rules: zones-3d6
max_rounds: {rounds}
params: {params}
attacks:
  stab: {{damage: 1d6, edge: {edge}, pressure: {pressure}}}
sides:
  x: [{{name: X, hp: 10, attacks: [stab], attacks_per_turn: 1}}]
  y: [{{name: Y, hp: {hp}, evasion: {evasion}}}]
"""

#: case → (edges_stack, edge_pressure_cancel, X's edges, X's pressures, Y's evasion)
CASES: dict[str, tuple[bool, bool, int, int, int]] = {
    "stack-true": (True, True, 3, 0, 3),
    "stack-false": (False, True, 3, 0, 3),
    "cancel-true": (True, True, 10, 6, 2),
    "cancel-false": (True, False, 10, 6, 2),
}


def adjusted_total(dice: tuple[int, ...], edges: int, pressures: int,
                   stack: bool, cancel: bool) -> int:  # fmt: skip
    """The total of ``dice`` after the edges and pressures, die by die."""
    if not stack:
        edges, pressures = min(edges, 1), min(pressures, 1)
    if cancel:
        edges, pressures = max(edges - pressures, 0), max(pressures - edges, 0)
    kept = list(dice)
    for _ in range(edges):
        below = [d for d in kept if d < 6]
        if below:
            kept[kept.index(max(below))] += 1
    for _ in range(pressures):
        above = [d for d in kept if d > 1]
        if above:
            kept[kept.index(min(above))] -= 1
    return sum(kept)


def attack_total(edges: int, pressures: int, stack: bool, cancel: bool) -> np.ndarray:
    """P(X's attack total = t): every 3d6 outcome, adjusted."""
    out = np.zeros(19)
    for dice in itertools.product(range(1, 7), repeat=3):
        out[adjusted_total(dice, edges, pressures, stack, cancel)] += 1 / 216
    return out


def p_hit(name: str) -> float:
    """P(X's total ≥ Y's 3d6 + evasion): ties hit."""
    stack, cancel, edges, pressures, evasion = CASES[name]
    attack = attack_total(edges, pressures, stack, cancel)
    evade = shifted(dice_pmf(3, 6), evasion)
    return float(sum(pa * evade[: a + 1].sum() for a, pa in enumerate(attack)))


@functools.cache
def chain(name: str) -> np.ndarray:
    """P(Y is out in round r), r = 0..ROUNDS: a hit deals 1d6 (at least 1 already)."""
    hit = p_hit(name)
    stab = mixture([(1 - hit, np.ones(1)), (hit, dice_pmf(1, 6))])
    return attacks_to_reach(HP + 1, [stab], ROUNDS)


def text(name: str) -> str:
    stack, cancel, edge, pressure, evasion = CASES[name]
    params = f"{{edges_stack: {str(stack).lower()}, edge_pressure_cancel: {str(cancel).lower()}}}"
    return SCENARIO.format(name=name, rounds=ROUNDS, params=params, edge=edge,
                           pressure=pressure, hp=HP, evasion=evasion)  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_edges_match_the_chain(name: str) -> None:
    """Y's Down round matches the chain; X is never touched."""
    res = simlab.simulate(simlab.loads(text(name), f"{name}.yaml"), n=N, seed=SEED, threads=1)
    assert_rounds_match(N, down_rounds(res, "Y"), chain(name), name)
    assert down_rounds(res, "X").sum() == 0


def test_edge_params_are_not_trivial() -> None:
    """Guard: Y is out in nearly every duel, and each parameter's other value moves X's
    hit rate by more than 0.1 and Y's mean Down round by more than 0.5 rounds."""
    for this, that in (("stack-true", "stack-false"), ("cancel-true", "cancel-false")):
        a, b = chain(this), chain(that)
        assert a.sum() > 0.95 and b.sum() > 0.95, (this, a.sum(), b.sum())
        assert abs(p_hit(this) - p_hit(that)) > 0.1, (this, p_hit(this), p_hit(that))
        assert abs(mean_round(a) - mean_round(b)) > 0.5, (this, mean_round(a), mean_round(b))
