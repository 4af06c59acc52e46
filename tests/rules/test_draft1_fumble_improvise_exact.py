"""shattered-spirits-draft1: a fumble's Exposed (paid with Focus or not, lasting the
Round or the encounter), a combatant Shaken from the start, and Improvise against exact
chains.

Fumbles (docs/rules/shattered-spirits-draft1.md, "An attack", "Parameters", readings).
A wild swinger, A (0 Endurance: Shaken from the start, its event round 0; 12 Health),
swings with Disadvantage and −1 at D, whom nothing Downs; a final roll below 2 is a
fumble: A pays ``fumble_cost`` (1) Focus while it holds any, else gains Exposed
``fumble_exposed`` (2), which adds to any Exposed it has. D's jab (same Phase; A's side
takes the first Turn of every Round here, "How a Round is played") then deals its damage
+ A's Exposed. Exposed wears off at the End Phase (``statuses_last: round``) or lasts
(``encounter``). The chain's state: (A's damage taken, Exposed, Focus).

Improvise ("How a Round is played"). At each Refresh the striker gains
``momentum_per_refresh`` (1) and, holding ``improvise_cost`` (2) Momentum, pays it and
plays its lunge in place of its jab this Round. Its lunge (Disadvantage, −1) can fumble;
the fumble is paid with Focus, else Momentum (``fumble_tokens: focus-first``), else
costs Exposed (which nothing here reads), so a fumble can put off an Improvise. D (6
Endurance, 8 Health, Guard 1) is Shaken at 6 damage and Downed at 14. The chain's
state: (D's damage, the striker's Momentum, Focus).

Attack outcomes from :func:`tests.chains.draft1_attack` (written from the rules text,
sharing nothing with the kernels or ``simlab.exact``).

False alarms. Fixed seeds, so each test always passes or always fails. Round histograms
(plus the never cell) and D's damage histogram by chi-square at p > 1e-4 (cells with
expected count < 5 merged). Four runs, at most three comparisons each: family-wise
false-alarm rate ≲ 1.2e-3.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    P_MIN,
    State,
    assert_rounds_match,
    draft1_attack,
    fumbler_down_rounds,
    p_fumble,
)
from tests.support import chi_square_p

N = 40_000
SEED = 2718
ROUNDS = 12

JAB = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
WILD = [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6]
LUNGE = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]

FUMBLE = """
scenario: d1f-{name}
rules: shattered-spirits-draft1
max_rounds: 12
params: {{statuses_last: {lasts}}}
techniques:
  wild: {{profile: {wild}, disadvantage: 1, modifier: -1, ap: 2, speed: 3}}
  jab: {{profile: {jab}, ap: 2, speed: 3}}
sides:
  a: [{{name: A, endurance: 0, health: 12, tokens: {{focus: {focus}}}, plan: [wild]}}]
  b: [{{name: D, endurance: 100000, health: 100000, plan: [jab]}}]
"""

#: case → (statuses_last, A's starting Focus)
FUMBLE_CASES = {
    "round": ("round", 0),
    "encounter": ("encounter", 0),
    "encounter-focus": ("encounter", 2),
}


def fumble_text(name: str) -> str:
    """Fumble case ``name``'s scenario."""
    lasts, focus = FUMBLE_CASES[name]
    return FUMBLE.format(name=name, lasts=lasts, focus=focus, wild=WILD, jab=JAB)


@functools.cache
def fumble_chain(name: str, exposed: int = 2) -> np.ndarray:
    """P(A is Downed in round r). ``exposed`` overrides ``fumble_exposed`` (to show the
    tests would notice a fumble's Exposed going unapplied)."""
    lasts, focus = FUMBLE_CASES[name]
    return fumbler_down_rounds(p_fumble(-1), JAB, 12, focus, 1, exposed, lasts, ROUNDS)


@pytest.mark.parametrize("name", list(FUMBLE_CASES))
@pytest.mark.kernels
def test_fumble_exposed_matches_the_chain(name: str) -> None:
    """A's Down round matches the chain; A is Shaken in round 0 of every encounter and
    D never; with Exposed lasting the Round and no Focus, each of D's jabs deals the
    jab's damage + 2 in a fumble's Round (independent of the past), so the pair's damage
    histogram is that mixture."""
    res = simlab.simulate(simlab.loads(fumble_text(name), f"{name}.yaml"), n=N, seed=SEED,
                          threads=1)  # fmt: skip
    names = [m for _, m in res.layout.combatants]
    a, d = names.index("A"), names.index("D")
    assert_rounds_match(N, res.tallies.down_round[a], fumble_chain(name), f"{name} down")
    shaken = res.tallies.event_round[:, res.layout.events.index("shaken")]
    assert shaken[a, 0] == N and shaken[a].sum() == N and shaken[d].sum() == 0
    if name == "round":
        pf = p_fumble(-1)
        pmf = np.zeros(8)
        for weight, ex in ((1 - pf, 0), (pf, 2)):
            for q, damage, _ in draft1_attack(JAB, exposed=ex):
                pmf[damage] += weight * q
        hist = res.tallies.damage_hist[res.layout.pair(d, res.layout.attacks.index("jab"), a)]
        assert hist[len(pmf) :].sum() == 0
        assert chi_square_p(hist[: len(pmf)], pmf) > P_MIN, (hist, pmf * hist.sum())


def test_fumble_cases_are_not_trivial() -> None:
    """Guard: fumbles are common; A is Downed in most encounters over several rounds;
    the fumble's Exposed, its lasting and Focus paying for it each move the Down round
    by far more than the tests' resolution."""

    def mean(pmf: np.ndarray) -> float:
        return float(np.arange(len(pmf)) @ pmf) / pmf.sum()

    assert 0.05 < p_fumble(-1) < 0.2
    for name in FUMBLE_CASES:
        down = fumble_chain(name)
        assert down.sum() > 0.8 and down.max() < 0.4, name
    means = {name: mean(fumble_chain(name)) for name in FUMBLE_CASES}
    assert mean(fumble_chain("round", exposed=0)) - means["round"] > 0.1
    assert means["round"] - means["encounter"] > 0.2
    assert means["encounter-focus"] - means["encounter"] > 0.2


# ---------------------------------------------------------------------------------------
# Improvise
# ---------------------------------------------------------------------------------------

IMPROVISE = """
scenario: d1f-improvise
rules: shattered-spirits-draft1
max_rounds: 12
params: {momentum_per_refresh: 1, improvise_cost: 2}
techniques:
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5], ap: 2, speed: 3}
  lunge: {profile: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], disadvantage: 1, modifier: -1,
          ap: 2, speed: 2}
sides:
  a:
    - {name: Striker, endurance: 10, health: 10, tokens: {momentum: 3, focus: 1},
       plan: [jab], improvise: {replace: jab, use: lunge}}
  b: [{name: D, endurance: 6, health: 8, guard: 1}]
"""
SHAKEN_AT, DOWN_AT = 6, 14


@functools.cache
def improvise_chain(improvise: bool = True) -> dict[str, np.ndarray]:
    """P(D is Shaken / Downed in round r). ``improvise`` False: the Striker never
    Improvises (a perturbation)."""
    pf = p_fumble(-1)
    lunge = draft1_attack(LUNGE, modifier=-1, net_advantage=-1, guard=1)
    jab = draft1_attack(JAB, guard=1)
    out = {k: np.zeros(ROUNDS + 1) for k in ("shaken", "down")}
    states: dict[State, float] = {(0, 3, 1): 1.0}
    for r in range(1, ROUNDS + 1):
        nxt: dict[State, float] = {}
        for (taken, momentum, focus), p in states.items():
            momentum += 1
            moves: list[tuple[float, int, int, int]] = []  # (q, damage, momentum, focus)
            if improvise and momentum >= 2:
                momentum -= 2
                # a fumble deals nothing; the lunge's misses without a fumble deal 0 too
                moves.append((pf, 0, *((momentum, focus - 1) if focus else
                                       (max(momentum - 1, 0), 0))))  # fmt: skip
                moves.extend((q - (pf if dmg == 0 else 0), dmg, momentum, focus)
                             for q, dmg, _ in lunge)  # fmt: skip
            else:
                moves.extend((q, dmg, momentum, focus) for q, dmg, _ in jab)
            for q, damage, mom, fo in moves:
                t = taken + damage
                if taken < SHAKEN_AT <= t:
                    out["shaken"][r] += p * q
                if t >= DOWN_AT:
                    out["down"][r] += p * q
                else:
                    nxt[(t, mom, fo)] = nxt.get((t, mom, fo), 0.0) + p * q
        states = nxt
    return out


@pytest.mark.kernels
def test_improvise_matches_the_chain() -> None:
    """D's Down round and its ``downed`` and ``shaken`` rounds match the chain."""
    res = simlab.simulate(simlab.loads(IMPROVISE, "improvise.yaml"), n=N, seed=SEED, threads=1)
    exact = improvise_chain()
    names = [m for _, m in res.layout.combatants]
    d = names.index("D")
    assert_rounds_match(N, res.tallies.down_round[d], exact["down"], "improvise down")
    shaken = res.tallies.event_round[d, res.layout.events.index("shaken")]
    assert_rounds_match(N, shaken, exact["shaken"], "improvise shaken")
    lunges = res.tallies.attempts[
        res.layout.pair(names.index("Striker"), res.layout.attacks.index("lunge"), d)
    ]
    assert lunges.sum() > 0  # fmt: skip


def test_improvise_case_is_not_trivial() -> None:
    """Guard: D is Downed in most encounters over several rounds, and Improvising moves
    the Down round by far more than the tests' resolution."""
    exact = improvise_chain()
    assert exact["down"].sum() > 0.8 and exact["down"].max() < 0.4
    rounds = np.arange(ROUNDS + 1)
    plain = improvise_chain(improvise=False)["down"]
    assert float(rounds @ plain) / plain.sum() - float(rounds @ exact["down"]) > 0.3
