"""shattered-spirits Spirits — Harm, Suppressed, Sealed, the Momentum of Melee Manifests
— and Reinforcements against exact chains.

Spirits (docs/rules/shattered-spirits.md, "How a round is played", "Spirits",
"Momentum"). Kaito, whom the fight cannot Down, has a Spirit, Kestrel, that he Manifests at
Melee range at each Respite: paying ``melee_manifest_cost`` Momentum when he has it,
else for free; then he gains 2 Momentum (a Manifest gains it too, ``manifest_momentum``).
A Brute (``target: lowest-hp``) makes two claw attacks a Turn at Kestrel while it is
Manifested. When Kestrel's HP reaches 0 it is Spirit Downed: Kaito is Suppressed for
the rest of the Round, or Sealed if already Suppressed (Suppressed ``sealed_rounds``
more Rounds: no Manifest and no Momentum at those Respites); Kestrel rolls Harm like a
Wound (2d6 keep the lower with no Harm yet, else one d6 per Harm, summed; ceil(roll / 2)
segments), and, its meter not full, returns to full HP less the overflow, which can
Down it again; a full ``harm_meter`` Recalls it for the rest of the encounter (its
``out``). The chain's state: (Kaito's Momentum, Momentum spent, Kestrel's HP, Harms,
Harm segments, the last Round Kaito is Suppressed in, whether each event happened).

Reinforcements ("Reinforcements"): ``per_round`` copies from ``from_round``, at the
Respite, while the fight goes on; a side whose present members are all out has lost.
Until the first Whelps arrive (two at round 3) the Brute is alone on its side, so the
fight reaches round 3 only if it stands through round 2; from then on the Whelps, whom
nobody can Down, keep it going. So every Whelp arrives exactly at its round in the
encounters in which the Brute survives Kaito's attacks of rounds 1–2
(:func:`tests.chains.attacks_to_reach`), and never otherwise.

False alarms. Fixed seeds, so each test always passes or always fails. Each event's
round (plus the never cell) by a chi-square test at p > 1e-4 (cells with expected count
< 5 merged); Momentum spent, a per-encounter sum kept per batch, within k = 4.5
standard errors of the chain's mean (σ² its variance) and its 32 standardised batch
means against χ²(32) at p > 1e-4 (:func:`tests.chains.per_encounter_verdict`); the
arrivals' rate within k = 4.5 binomial standard errors. Two Spirit runs × seven
comparisons and one of Reinforcements: family-wise false-alarm rate ≲ 1.5e-3.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest

import simlab
from tests.chains import (
    P_MIN,
    State,
    assert_rounds_match,
    attack_rounds,
    attacks_to_reach,
    combatant_index,
    event_rounds,
    outcomes,
    per_encounter_verdict,
    ss_attack,
    step_all,
    wound_segments,
)
from tests.support import K_SIGMA, within

N = 40_000
SEED = 4242

SPIRIT = """
scenario: ssx-spirit-{name}
rules: shattered-spirits
max_rounds: {rounds}
params: {{harm_meter: {harm_meter}, melee_manifest_cost: {cost}, sealed_rounds: {sealed}}}
attacks:
  claw: {{profile: [0, 0, 1, 2, 2, 3, 3, 4, 5, 6, 7]}}
sides:
  party:
    - {{name: Kaito, hp: 100000, spirit: {{name: Kestrel, hp: {spirit_hp}, manifest: melee}}}}
  enemies:
    - {{name: Brute, hp: 100000, speed: 2, attacks_per_turn: 2, attacks: [claw],
       target: lowest-hp}}
"""
CLAW = [0, 0, 1, 2, 2, 3, 3, 4, 5, 6, 7]

#: case → (max_rounds, harm_meter, melee_manifest_cost, sealed_rounds, Kestrel's HP)
CASES = {
    "cost-1": (8, 6, 1, 1, 6),
    "cost-3-sealed-2": (8, 10, 3, 2, 7),
}
EVENTS = ("harm", "suppressed", "sealed", "momentum_spent", "out")

# State fields
MOMENTUM, SPENT, HP, HARMS, SEGMENTS, UNTIL, SEEN_SUPPRESSED, SEEN_SEALED, GONE, THERE = range(10)


@functools.cache
def spirit_chain(name: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """P(each event first happens in round r), and P(Kaito spends t Momentum).

    Events: ``harm`` (Kestrel's first Spirit Downed), ``suppressed`` and ``sealed``
    (Kaito's), ``momentum_spent`` (Kaito's first payment), ``out`` (Kestrel's Harm meter
    full). ``THERE`` in the state: Kestrel Manifested at this Round's Respite.
    """
    rounds, meter, cost, sealed, full = CASES[name]
    claw = outcomes(ss_attack(CLAW, 0, 0))

    def downed(s: list[int], r: int, overflow: int) -> list[tuple[float, list[int]]]:
        """Kestrel Spirit Downed in round ``r`` with ``overflow`` damage left."""
        s = list(s)
        if s[UNTIL] >= r:
            s[UNTIL], s[SEEN_SEALED] = r + sealed, 1
        else:
            s[UNTIL], s[SEEN_SUPPRESSED] = r, 1
        out: list[tuple[float, list[int]]] = []
        for q, seg in outcomes(wound_segments(s[HARMS], "sum")):
            t = list(s)
            t[HARMS] += 1
            t[SEGMENTS] += seg
            if t[SEGMENTS] >= meter:  # Recalled for good: only the spent and seen matter
                t[GONE], t[THERE], t[HP], t[HARMS], t[SEGMENTS] = 1, 0, 0, 1, 0
                t[MOMENTUM], t[UNTIL] = 0, 0
                out.append((q, t))
            elif overflow < full:
                t[HP] = full - overflow
                out.append((q, t))
            else:
                out.extend((q * q2, t2) for q2, t2 in downed(t, r, overflow - full))
        return out

    def respite(s: State, r: int) -> list[tuple[float, State]]:
        t = list(s)
        suppressed = t[UNTIL] >= r
        t[UNTIL] = t[UNTIL] if suppressed else 0  # a Suppression that is over
        t[THERE] = int(not suppressed and not t[GONE])
        if t[THERE] and t[MOMENTUM] >= cost:  # a Melee Manifest, paid
            t[MOMENTUM] -= cost
            t[SPENT] += cost
        if not suppressed:
            t[MOMENTUM] += 2
        return [(1.0, tuple(t))]

    def brute_claw(s: State, r: int) -> list[tuple[float, State]]:
        if not s[THERE]:
            return [(1.0, s)]
        out: list[tuple[float, State]] = []
        for p, d in claw:
            if d < s[HP]:
                t = list(s)
                t[HP] -= d
                out.append((p, tuple(t)))
            else:
                out.extend((p * q, tuple(t)) for q, t in downed(list(s), r, d - s[HP]))
        return out

    happened: dict[str, Callable[[State], bool]] = {
        "harm": lambda s: s[HARMS] > 0,
        "suppressed": lambda s: s[SEEN_SUPPRESSED] > 0,
        "sealed": lambda s: s[SEEN_SEALED] > 0,
        "momentum_spent": lambda s: s[SPENT] > 0,
        "out": lambda s: s[GONE] > 0,
    }
    first = {e: np.zeros(rounds + 1) for e in EVENTS}
    states: dict[State, float] = {(0, 0, full, 0, 0, 0, 0, 0, 0, 0): 1.0}
    for r in range(1, rounds + 1):
        before = {e: sum(p for s, p in states.items() if f(s)) for e, f in happened.items()}
        states = step_all(states, functools.partial(respite, r=r))
        for _ in range(2):  # the Brute's Turn: two claws at Kestrel while it is there
            states = step_all(states, functools.partial(brute_claw, r=r))
        for e, f in happened.items():
            first[e][r] = sum(p for s, p in states.items() if f(s)) - before[e]
    spent = np.zeros(max(s[SPENT] for s in states) + 1)
    for s, p in states.items():
        spent[s[SPENT]] += p
    return first, spent


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_spirit_events_and_momentum_match_the_chain(name: str) -> None:
    """Kestrel's ``harm`` (and first Spirit Downed) and ``out`` rounds, Kaito's
    ``suppressed``, ``sealed`` and ``momentum_spent`` rounds and the Momentum he spends
    per encounter match the chain; the Brute spends none."""
    rounds, meter, cost, sealed, hp = CASES[name]
    text = SPIRIT.format(name=name, rounds=rounds, harm_meter=meter, cost=cost,
                         sealed=sealed, spirit_hp=hp)  # fmt: skip
    res = simlab.simulate(simlab.loads(text, f"{name}.yaml"), n=N, seed=SEED, threads=1)
    first, spent = spirit_chain(name)
    names = [m for _, m in res.layout.combatants]
    for event, who in (("harm", "Kestrel"), ("out", "Kestrel"), ("suppressed", "Kaito"),
                       ("sealed", "Kaito"), ("momentum_spent", "Kaito")):  # fmt: skip
        assert_rounds_match(N, event_rounds(res, who, event), first[event], f"{name} {event}")
    assert np.array_equal(res.tallies.down_round[names.index("Kestrel")],
                          event_rounds(res, "Kestrel", "harm"))  # fmt: skip
    values = np.arange(len(spent))
    mean = float(values @ spent)
    var = float(((values - mean) ** 2) @ spent)
    z, p = per_encounter_verdict(res.tallies.momentum_spent[names.index("Kaito")], N, mean, var)
    assert abs(z) <= K_SIGMA and p > P_MIN, (name, z, p, mean)
    assert res.tallies.momentum_spent[names.index("Brute")].sum() == 0


def test_spirit_cases_are_not_trivial() -> None:
    """Guard: each Spirit event either has a rate away from 0 and 1 or is spread over
    several rounds, and the Momentum spent varies (its first round is near certain)."""
    for name in CASES:
        first, spent = spirit_chain(name)
        for event in ("harm", "suppressed", "sealed", "out"):
            rate, peak = first[event].sum(), first[event].max()
            assert 0.05 < rate < 0.95 or (rate > 0.95 and peak < 0.7), (name, event)
        assert spent.max() < 0.8, name


# ---------------------------------------------------------------------------------------
# Reinforcements
# ---------------------------------------------------------------------------------------

REINFORCE = """
scenario: ssx-reinforce
rules: shattered-spirits
max_rounds: 8
attacks:
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6]}
  bite: {profile: [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5]}
sides:
  party:
    - {name: Kaito, hp: 100000, attacks_per_turn: 2, attacks: [jab]}
  enemies:
    - {name: Brute, hp: 10, attacks: [bite]}
    - {name: Whelp, hp: 100000, attacks: [bite],
       reinforce: {per_round: 2, cap: 3, from_round: 3}}
"""
JAB = [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6]
#: each Whelp slot's round of arrival: two at round 3, the third at round 4
ARRIVES = {"Whelp 1": 3, "Whelp 2": 3, "Whelp 3": 4}


@pytest.mark.kernels
def test_reinforcements_arrive_on_schedule() -> None:
    """Each Whelp arrives in its round, in the encounters in which the Brute (focused by
    Kaito's two jabs a Turn, Guard 0, 10 HP) stands through round 2; else never."""
    scn = simlab.loads(REINFORCE, "reinforce.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    by_attack = attacks_to_reach(10, [ss_attack(JAB, 0, 0)], attack_rounds([2], 2))
    p_stands = 1 - by_attack.sum()
    assert 0.2 < p_stands < 0.8
    arrived = event_rounds(res, "Whelp 1", "reinforcement")
    for slot, r in ARRIVES.items():
        hist = event_rounds(res, slot, "reinforcement")
        assert hist.sum() == hist[r] == arrived.sum(), (slot, hist)
    assert within(int(arrived.sum()), N, p_stands), (arrived.sum() / N, p_stands)
    brute = combatant_index(res, "Brute")
    assert arrived.sum() == N - res.tallies.down_round[brute, 1:3].sum()
