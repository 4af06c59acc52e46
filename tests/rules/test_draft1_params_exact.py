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
{replace: tap, use: lunge}``, ``improvise_cost`` 2, ``momentum_per_refresh`` 1). The
Striker's lunge can fumble; paid with Momentum first (``momentum-first``) a fumble puts
off its next Improvise, paid with Focus first it does not while Focus lasts. With
``improvise_cost: 3`` it lunges less often.

Block ("An attack": the defender sees the would-be damage; at its threshold, a hit,
holding ``reaction_cost`` Grit, it pays and the roll is lowered by 1 and read again).
T Blocks a hit of at least 5 damage with 6 Grit and ``reaction_cost: 2``: three Blocks
instead of six. The chain's state: (T's damage, Grit).

One reaction per attack ("An attack"): a defender who Evades and Blocks at the same
threshold, with tokens for every strike, does not Block an Evade's reroll; each
strike's damage is compared with the chain of one reaction.

Attack outcomes from :func:`tests.chains.draft1_attack` or the enumeration below,
written from the rules text and sharing nothing with the kernels or ``simlab.exact``.

False alarms. Fixed seeds, so each test always passes or always fails. Each round
histogram, with its never cell, by chi-square (cells expecting fewer than 5 merged) at
p > 1e-4: 16 comparisons, family-wise false-alarm rate ≲ 1.6e-3. Each guard shows the
parameter moves the exact mean round (Block: the mean attack at the Down) by more than
0.15, or the share of encounters A loses by more than 0.03, where the simulated mean's
standard error is below 0.025 (N = 40,000, standard deviations below 5) and the
share's below 0.0025: a simulator keeping the default would fail its chi-square test.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import simlab
from tests.chains import (
    State,
    assert_damage_matches,
    assert_rounds_match,
    blocked_down,
    combatant_index,
    draft1_attack,
    duel_attack,
    fumbler_down_rounds,
    mean_round,
    p_fumble,
    reacted_damage,
)

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
    # an attacker past its Endurance is Shaken: its attack then takes the modifier
    shaken_or_not = {
        "A": lambda s: attacks["A"][int(s[0] >= A_END)],
        "B": lambda s: attacks["B"][int(s[1] >= B_END)],
    }
    down = {k: np.zeros(ROUNDS + 1) for k in ("A", "B")}
    states: dict[State, float] = {(0, 0): 1.0}
    for r in range(1, ROUNDS + 1):
        order = "ABA" if start == "players" or r == 1 else "BAA"
        for who in order:
            states = duel_attack(states, who == "A", shaken_or_not[who], (A_HP, B_HP),
                                 (down["A"], down["B"]), r)  # fmt: skip
    return down


@pytest.mark.parametrize("name", list(DUEL_CASES))
@pytest.mark.kernels
def test_duel_matches_the_chain(name: str) -> None:
    """A's and B's Down rounds match the chain for each reading."""
    res = simlab.simulate(simlab.loads(duel_text(name), f"{name}.yaml"), n=N, seed=SEED,
                          threads=1)  # fmt: skip
    exact = duel_chain(*DUEL_CASES[name])
    names = [m for _, m in res.layout.combatants]
    for who in ("A", "B"):
        hist = res.tallies.down_round[names.index(who)]
        assert_rounds_match(N, hist, exact[who], f"{name} {who} down")


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


@functools.cache
def fumble_chain(order: str, cost: int, focus: int) -> np.ndarray:
    """P(W is Downed in round r): W swings first each Round (its side takes the first
    Turn and, one Turn a side, every later Phase begins with it), then D jabs."""
    paid = None if order == "none" else cost
    return fumbler_down_rounds(p_fumble(WILD_MODIFIER), JAB, W_HP, focus, paid, 2, "encounter",
                               ROUNDS)  # fmt: skip


@pytest.mark.parametrize("name", list(FUMBLE_CASES))
@pytest.mark.kernels
def test_fumble_payment_matches_the_chain(name: str) -> None:
    """W's Down round matches the chain."""
    order, cost, focus = FUMBLE_CASES[name]
    text = FUMBLE.format(name=name, rounds=ROUNDS, order=order, cost=cost, focus=focus,
                         wild=WILD, jab=JAB)  # fmt: skip
    res = simlab.simulate(simlab.loads(text, f"{name}.yaml"), n=N, seed=SEED, threads=1)
    w = combatant_index(res, "W")
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


# ---------------------------------------------------------------------------------------
# The order of a fumble's tokens, through Improvise
# ---------------------------------------------------------------------------------------

LUNGE = [0, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21]
LUNGE_MODIFIER = -2
TAP = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
D_HP = 20  # D: 8 Endurance + 12 Health, Guard 1

IMPROVISE = """
scenario: d1p-improvise-{order}-{cost}
rules: shattered-spirits-draft1
max_rounds: {rounds}
params: {{momentum_per_refresh: 1, improvise_cost: {cost}, fumble_tokens: {order}}}
techniques:
  tap: {{profile: {tap}, ap: 2, speed: 3}}
  lunge: {{profile: {lunge}, disadvantage: 1, modifier: -2, ap: 2, speed: 2}}
sides:
  a:
    - {{name: Striker, endurance: 10, health: 10, tokens: {{momentum: 3, focus: 3}},
       plan: [tap], improvise: {{replace: tap, use: lunge}}}}
  b: [{{name: D, endurance: 8, health: 12, guard: 1}}]
"""


@functools.cache
def improvise_chain(order: str, cost: int = 2) -> np.ndarray:
    """P(D is Downed in round r). At each Refresh the Striker gains 1 Momentum and,
    holding ``cost``, pays them and lunges; a lunge's fumble (no damage) is paid with 1 token,
    in ``order``'s order, else costs Exposed, which nothing here reads; otherwise it
    taps. The chain's state: (D's damage, Momentum, Focus)."""
    pf = p_fumble(LUNGE_MODIFIER)
    lunge = draft1_attack(LUNGE, modifier=LUNGE_MODIFIER, net_advantage=-1, guard=1)
    tap = draft1_attack(TAP, guard=1)
    down = np.zeros(ROUNDS + 1)
    states: dict[State, float] = {(0, 3, 3): 1.0}
    for r in range(1, ROUNDS + 1):
        nxt: dict[State, float] = {}
        for (taken, momentum, focus), p in states.items():
            momentum += 1
            moves: list[tuple[float, int, int, int]] = []  # (q, damage, momentum, focus)
            if momentum >= cost:
                momentum -= cost
                tokens = {"momentum": momentum, "focus": focus}
                first = (
                    ("momentum", "focus") if order == "momentum-first" else ("focus", "momentum")
                )
                payer = next((t for t in first if tokens[t] >= 1), None)
                if payer is not None:
                    tokens[payer] -= 1
                moves.append((pf, 0, tokens["momentum"], tokens["focus"]))
                # the lunge's other outcomes: a miss without a fumble deals 0 too
                moves.extend(
                    (q - (pf if dmg == 0 else 0), dmg, momentum, focus) for q, dmg, _ in lunge
                )
            else:
                moves.extend((q, dmg, momentum, focus) for q, dmg, _ in tap)
            for q, damage, mom, fo in moves:
                if taken + damage >= D_HP:
                    down[r] += p * q
                else:
                    key = (taken + damage, mom, fo)
                    nxt[key] = nxt.get(key, 0.0) + p * q
        states = nxt
    return down


@pytest.mark.parametrize("cost", [2, 3])
@pytest.mark.kernels
def test_momentum_first_matches_the_chain(cost: int) -> None:
    """D's Down round matches the chain with ``fumble_tokens: momentum-first``, at the
    default ``improvise_cost`` 2 and at 3."""
    text = IMPROVISE.format(order="momentum-first", cost=cost, rounds=ROUNDS, tap=TAP,
                            lunge=LUNGE)  # fmt: skip
    res = simlab.simulate(simlab.loads(text, "improvise.yaml"), n=N, seed=SEED, threads=1)
    d = combatant_index(res, "D")
    exact = improvise_chain("momentum-first", cost)
    assert_rounds_match(N, res.tallies.down_round[d], exact, f"cost {cost} down")


def test_momentum_first_is_not_trivial() -> None:
    """Guard: D is Downed in most encounters, and paying a fumble with Momentum
    first moves its mean Down round by more than the tests' resolution."""
    assert p_fumble(LUNGE_MODIFIER) > 0.1
    first = improvise_chain("momentum-first")
    assert first.sum() > 0.95
    moved = mean_round(first) - mean_round(improvise_chain("focus-first"))
    assert moved > MOVES, moved


def test_improvise_cost_is_not_trivial() -> None:
    """Guard: ``improvise_cost: 3`` (fewer lunges) moves D's exact mean Down round from
    the default 2's by more than the tests' resolution; D is still Downed in most
    encounters (about 78% by the round cap)."""
    three = improvise_chain("momentum-first", 3)
    assert three.sum() > 0.5
    moved = mean_round(three) - mean_round(improvise_chain("momentum-first", 2))
    assert abs(moved) > MOVES, moved


# ---------------------------------------------------------------------------------------
# Block with reaction_cost
# ---------------------------------------------------------------------------------------

STRIKE = [0, 0, 1, 1, 2, 3, 5, 7, 9, 11, 13]
BLOCK_AT, GRIT, T_HP = 5, 6, 40  # T: 10 Endurance + 30 Health

BLOCK = """
scenario: d1p-block-{cost}
rules: shattered-spirits-draft1
max_rounds: {rounds}
params: {{reaction_cost: {cost}}}
techniques:
  strike: {{profile: {strike}, ap: 1, speed: 2}}
sides:
  a: [{{name: A, endurance: 10, health: 10, plan: [strike, strike, strike]}}]
  b:
    - {{name: T, endurance: 10, health: 30, tokens: {{grit: {grit}}},
       react: {{block: {{when_damage_at_least: {block_at}}}}}}}
"""


@functools.cache
def block_chain(cost: int) -> np.ndarray:
    """P(T is Downed at its k-th attack received), ``cost`` Grit a Block
    (:func:`tests.chains.blocked_down`; Blocked rolls are 7 or more here, so the row read
    stays a row)."""
    return blocked_down(STRIKE, BLOCK_AT, GRIT, T_HP, cost, 3 * ROUNDS)


@pytest.mark.kernels
def test_block_cost_matches_the_chain() -> None:
    """T's attacks received at its Down (three a Round, so its Down round follows)
    match the chain with ``reaction_cost: 2``."""
    text = BLOCK.format(cost=2, rounds=ROUNDS, strike=STRIKE, grit=GRIT, block_at=BLOCK_AT)
    res = simlab.simulate(simlab.loads(text, "block.yaml"), n=N, seed=SEED, threads=1)
    t = combatant_index(res, "T")
    exact = block_chain(2)
    assert_rounds_match(N, res.tallies.down_attacks[t], exact, "block down_attacks")
    rounds = np.zeros(ROUNDS + 1)
    for k, p in enumerate(exact):
        rounds[(k + 2) // 3] += p
    assert_rounds_match(N, res.tallies.down_round[t], rounds, "block down round")


def test_block_cost_is_not_trivial() -> None:
    """Guard: T is Downed in almost every encounter, and two Grit a Block moves the
    attack that Downs it by more than the tests' resolution."""
    two = block_chain(2)
    assert two.sum() > 0.99
    moved = mean_round(block_chain(1)) - mean_round(two)
    assert moved > 3 * MOVES, moved


# ---------------------------------------------------------------------------------------
# One reaction per attack: an Evade's reroll is not Blocked
# ---------------------------------------------------------------------------------------

REACT_AT = 5  # both reactions' threshold
BOTH = """
scenario: d1p-evade-then-block
rules: shattered-spirits-draft1
max_rounds: {rounds}
techniques:
  strike: {{profile: {strike}, ap: 1, speed: 2}}
sides:
  a: [{{name: A, endurance: 10, health: 10, plan: [strike, strike, strike]}}]
  b:
    - {{name: T, endurance: 500, health: 500, tokens: {{grit: 99, reflex: 99}},
       react: {{evade: {{when_damage_at_least: {at}}}, block: {{when_damage_at_least: {at}}}}}}}
"""


@pytest.mark.kernels
def test_an_evade_s_reroll_is_not_blocked() -> None:
    """T holds enough Reflex and Grit for every strike of the encounter (three a Round
    for ``ROUNDS`` Rounds, against 99 of each) and never goes down, so every strike's
    damage is drawn alike: its histogram matches one reaction per attack
    (:func:`tests.chains.reacted_damage`)."""
    text = BOTH.format(rounds=ROUNDS, strike=STRIKE, at=REACT_AT)
    res = simlab.simulate(simlab.loads(text, "both.yaml"), n=N, seed=SEED, threads=1)
    names = [m for _, m in res.layout.combatants]
    pair = res.layout.pair(names.index("A"), res.layout.attacks.index("strike"), names.index("T"))
    hist = res.tallies.damage_hist[pair]
    assert hist.sum() == 3 * ROUNDS * N
    assert_damage_matches(hist, reacted_damage(STRIKE, REACT_AT, False), "strike at T")


def test_block_after_evade_would_be_seen() -> None:
    """Guard: the other reading moves the mean damage of a strike by many times its
    standard error over the test's 3 × ``ROUNDS`` × N strikes."""
    one, both = reacted_damage(STRIKE, REACT_AT, False), reacted_damage(STRIKE, REACT_AT, True)
    values = np.arange(len(one))
    sd = math.sqrt(float((values - values @ one) ** 2 @ one))
    assert (values @ one - values @ both) > 20 * sd / math.sqrt(3 * ROUNDS * N)
