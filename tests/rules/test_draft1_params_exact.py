"""shattered-spirits-draft1: the non-default values of ``round_start``,
``shaken_roll_modifier``, ``advantage_with_disadvantage``, ``fumble_tokens``,
``fumble_cost`` and ``reaction_cost`` (with Block) against exact chains.

A mutual duel (docs/rules/shattered-spirits-draft1.md, "How a Round is played", "An
attack", "Parameters"). A has two cuts and B one bash, all at Speed 3, so each Round is
one Phase of three Turns. With ``round_start: carry`` the first Round is A, B, A and
every later one B, A, A (the Phase after A's last Turn begins with B); with ``players``
every Round is A, B, A. B's bash has both Advantage and Disadvantage:
``advantage_with_disadvantage`` makes it 2d6, 3d6 keep the highest two or the lowest
two. A combatant whose Endurance is gone is Shaken and adds ``shaken_roll_modifier`` to
its rolls. A fumble's Exposed is switched off (``fumble_exposed: 0``) so a fumble
changes nothing here. The encounter ends at the first Down. The chain's state: (damage
A has taken, damage B has taken), stepped once per Turn.

Fumble payment ("An attack": a fumble costs ``fumble_cost`` Focus, else Momentum,
``fumble_tokens``; unpaid, Exposed ``fumble_exposed`` that adds up, here lasting the
encounter). The swinger W fumbles often and D's jab deals its damage + W's Exposed; W's
Down round depends on how many fumbles its tokens pay for. With ``none`` its Focus
never pays; with ``fumble_cost: 2`` three Focus pay for one fumble, not three. The
order of the tokens shows only where Momentum has another use: Improvise (``improvise:
{replace: jab, use: lunge}``, ``improvise_cost`` 2, ``momentum_per_refresh`` 1). The
Striker's lunge can fumble; paid with Momentum first (``momentum-first``) a fumble puts
off its next Improvise, paid with Focus first it does not while Focus lasts.

Block ("An attack": the defender sees the would-be damage; at its threshold, a hit,
holding ``reaction_cost`` Grit, it pays and the roll is lowered by 1 and read again).
D Blocks a hit of at least 4 damage with 4 Grit and ``reaction_cost: 2``: two Blocks
instead of four. The chain's state: (D's damage, Grit).

Attack outcomes from :func:`tests.chains.draft1_attack` or the enumeration below,
written from the rules text and sharing nothing with the kernels or ``simlab.exact``.

False alarms. Fixed seeds, so each test always passes or always fails. Each round
histogram, with its never cell, by chi-square (cells expecting fewer than 5 merged) at
p > 1e-4: 14 comparisons, family-wise false-alarm rate ≲ 1.4e-3. Each guard shows the
parameter moves the exact mean round by at least 0.15 rounds, where the simulated mean's
standard error is below 0.015 (N = 40,000, round standard deviations below 3): a
simulator keeping the default would fail its chi-square test.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import State, assert_rounds_match, draft1_attack, step_all

N = 40_000
SEED = 4817
ROUNDS = 20
#: the guards' minimum difference of mean rounds
MOVES = 0.15

CUT = [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]
BASH = [0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 9]
# A: 6 Endurance + 14 Health; B: 6 Endurance + 14 Health, Guard 1
A_END, A_HP = 6, 20
B_END, B_HP = 6, 20

DUEL = """
scenario: d1p-duel
rules: shattered-spirits-draft1
max_rounds: {rounds}
params: {{fumble_exposed: 0, {params}}}
techniques:
  cut: {{profile: {cut}, ap: 1, speed: 3}}
  bash: {{profile: {bash}, advantage: 1, disadvantage: 1, ap: 3, speed: 3}}
sides:
  a: [{{name: A, endurance: 6, health: 14, plan: [cut, cut]}}]
  b: [{{name: B, endurance: 6, health: 14, guard: 1, plan: [bash]}}]
"""

#: case → (round_start, shaken_roll_modifier, advantage_with_disadvantage)
DUEL_CASES: dict[str, tuple[str, int, str]] = {
    "default": ("carry", 0, "cancel"),
    "players": ("players", 0, "cancel"),
    "shaken": ("carry", -2, "cancel"),
    "advantage": ("carry", 0, "advantage"),
    "disadvantage": ("carry", 0, "disadvantage"),
}


def duel_text(name: str) -> str:
    start, shaken, both = DUEL_CASES[name]
    params = (
        f"round_start: {start}, shaken_roll_modifier: {shaken}, advantage_with_disadvantage: {both}"
    )
    return DUEL.format(rounds=ROUNDS, params=params, cut=CUT, bash=BASH)


@functools.cache
def duel_chain(start: str, shaken: int, both: str) -> dict[str, np.ndarray]:
    """P(A / B is Downed in round r) for one reading of the three parameters."""
    net = {"cancel": 0, "advantage": 1, "disadvantage": -1}[both]
    # attacks[who][shaken?]: (p, damage) outcomes
    attacks = {
        "A": [[(q, d) for q, d, _ in draft1_attack(CUT, modifier=m, guard=1)] for m in (0, shaken)],
        "B": [
            [(q, d) for q, d, _ in draft1_attack(BASH, modifier=m, net_advantage=net)]
            for m in (0, shaken)
        ],
    }
    down = {k: np.zeros(ROUNDS + 1) for k in ("A", "B")}
    states: dict[State, float] = {(0, 0): 1.0}
    for r in range(1, ROUNDS + 1):
        order = "ABA" if start == "players" or r == 1 else "BAA"
        for who in order:
            nxt: dict[State, float] = {}
            for (a, b), p in states.items():
                own, end = (a, A_END) if who == "A" else (b, B_END)
                for q, damage in attacks[who][int(own >= end)]:
                    a2, b2 = (a, b + damage) if who == "A" else (a + damage, b)
                    if a2 >= A_HP:
                        down["A"][r] += p * q
                    elif b2 >= B_HP:
                        down["B"][r] += p * q
                    else:
                        nxt[(a2, b2)] = nxt.get((a2, b2), 0.0) + p * q
            states = nxt
    return down


@pytest.mark.parametrize("name", list(DUEL_CASES))
def test_duel_matches_the_chain(name: str) -> None:
    """A's and B's Down rounds match the chain for each reading."""
    res = simlab.simulate(simlab.loads(duel_text(name), f"{name}.yaml"), n=N, seed=SEED,
                          threads=1)  # fmt: skip
    exact = duel_chain(*DUEL_CASES[name])
    names = [m for _, m in res.layout.combatants]
    for who in ("A", "B"):
        hist = res.tallies.down_round[names.index(who)]
        assert_rounds_match(N, hist, exact[who], f"{name} {who} down")


def mean_round(pmf: np.ndarray) -> float:
    """The mean round of a (defective) pmf of rounds, given the event happens."""
    return float(np.arange(len(pmf)) @ pmf) / pmf.sum()


def test_duel_cases_are_not_trivial() -> None:
    """Guard: each side is Downed in a good share of encounters, and each non-default
    reading moves the mean Down round of A or B, or who goes down, by more than the
    tests' resolution."""
    base = duel_chain(*DUEL_CASES["default"])
    assert 0.2 < base["A"].sum() < 0.8 and base["A"].sum() + base["B"].sum() > 0.999
    for name in ("players", "shaken", "advantage", "disadvantage"):
        other = duel_chain(*DUEL_CASES[name])
        moved = max(
            abs(mean_round(other[w]) - mean_round(base[w])) for w in ("A", "B")
        )  # fmt: skip
        share = abs(other["A"].sum() - base["A"].sum())
        assert moved > MOVES or share > 0.03, (name, moved, share)


# ---------------------------------------------------------------------------------------
# Fumble payment
# ---------------------------------------------------------------------------------------

WILD = [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6]
JAB = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
W_HP = 16
WILD_MODIFIER = -2

FUMBLE = """
scenario: d1p-fumble-{name}
rules: shattered-spirits-draft1
max_rounds: {rounds}
params: {{statuses_last: encounter, fumble_tokens: {order}, fumble_cost: {cost}}}
techniques:
  wild: {{profile: {wild}, disadvantage: 1, modifier: -2, ap: 2, speed: 3}}
  jab: {{profile: {jab}, ap: 2, speed: 3}}
sides:
  a: [{{name: W, endurance: 0, health: 16, tokens: {{focus: {focus}}}, plan: [wild]}}]
  b: [{{name: D, endurance: 100000, health: 100000, plan: [jab]}}]
"""

#: case → (fumble_tokens, fumble_cost, W's Focus)
FUMBLE_CASES: dict[str, tuple[str, int, int]] = {
    "none": ("none", 1, 3),
    "cost-2": ("focus-first", 2, 3),
}


def p_fumble(modifier: int) -> float:
    """P(3d6 keep the lowest two + ``modifier`` is below 2)."""
    return sum(sum(sorted(d)[:2]) + 2 + modifier < 2 for d in np.ndindex(6, 6, 6)) / 216


@functools.cache
def fumble_chain(order: str, cost: int, focus: int) -> np.ndarray:
    """P(W is Downed in round r): W swings first each Round (its side takes the first
    Turn and, one Turn a side, every later Phase begins with it), then D jabs."""
    pf = p_fumble(WILD_MODIFIER)
    jabs = {e: draft1_attack(JAB, exposed=e) for e in range(0, 2 * ROUNDS + 1, 2)}
    down = np.zeros(ROUNDS + 1)

    def swing(s: State) -> list[tuple[float, State]]:
        taken, ex, fo = s
        paid = order != "none" and fo >= cost
        fumbled = (taken, ex, fo - cost) if paid else (taken, ex + 2, fo)
        return [(1 - pf, s), (pf, fumbled)]

    states: dict[State, float] = {(0, 0, focus): 1.0}
    for r in range(1, ROUNDS + 1):
        states = step_all(states, swing)
        nxt: dict[State, float] = {}
        for (taken, ex, fo), p in states.items():
            for q, damage, _ in jabs[ex]:
                if taken + damage >= W_HP:
                    down[r] += p * q
                else:
                    nxt[(taken + damage, ex, fo)] = nxt.get((taken + damage, ex, fo), 0.0) + p * q
        states = nxt
    return down


@pytest.mark.parametrize("name", list(FUMBLE_CASES))
def test_fumble_payment_matches_the_chain(name: str) -> None:
    """W's Down round matches the chain."""
    order, cost, focus = FUMBLE_CASES[name]
    text = FUMBLE.format(name=name, rounds=ROUNDS, order=order, cost=cost, focus=focus,
                         wild=WILD, jab=JAB)  # fmt: skip
    res = simlab.simulate(simlab.loads(text, f"{name}.yaml"), n=N, seed=SEED, threads=1)
    w = [m for _, m in res.layout.combatants].index("W")
    assert_rounds_match(N, res.tallies.down_round[w], fumble_chain(order, cost, focus), name)


def test_fumble_payment_cases_are_not_trivial() -> None:
    """Guard: fumbles are common, and ``none`` and ``fumble_cost: 2`` each move W's mean
    Down round by more than the tests' resolution from the default (Focus pays, 1 a
    fumble)."""
    assert 0.1 < p_fumble(WILD_MODIFIER) < 0.3
    base = mean_round(fumble_chain("focus-first", 1, 3))
    for name, case in FUMBLE_CASES.items():
        down = fumble_chain(*case)
        assert down.sum() > 0.99, name
        assert base - mean_round(down) > MOVES, (name, base, mean_round(down))
