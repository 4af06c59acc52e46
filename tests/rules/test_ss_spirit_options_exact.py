"""shattered-spirits Spirit options — ``manifest: always`` / ``never``, ``recall_below``,
``manifest_momentum: false``, Spirits that attack, and the overflow that Downs a Spirit
again — against an exact chain.

docs/rules/shattered-spirits.md, "How a round is played", "An attack", "Spirits",
"Momentum". Kaito, whom the fight cannot Down, has a Spirit, Kestrel (Phase 4). At each
Respite Kaito Manifests or Recalls it by its ``manifest`` policy: ``always`` for free,
``melee`` paying ``melee_manifest_cost`` Momentum when he holds it (else for free),
``never`` never; with ``recall_below: X`` he Recalls it while its HP is below X (nothing
heals a Recalled Spirit, so it stays Recalled). A Suppressed Kaito may not Manifest and
gains no Momentum; otherwise he gains 2, but with ``manifest_momentum: false`` only when
he Recalls. A Brute (Phase 2, ``target: lowest-hp``) claws Kestrel while it is
Manifested. Kestrel's HP reaching 0 Spirit Downs it: Kaito is Suppressed for the Round,
or Sealed if already Suppressed (Suppressed the next Round too); Kestrel rolls Harm
like a Wound (2d6 keep the lower with no Harm yet, else one d6 per Harm summed;
ceil(roll / 2) segments, :func:`tests.chains.wound_segments`), and, its meter not full,
returns to full HP less the overflow — which Downs it again when it reaches its full HP.
A full ``harm_meter`` Recalls it for the rest of the encounter (``out``). Kestrel's jabs
(and, in one case, Kaito's, Phase 3) hit the Brute (Guard 0, ``defeat``); its Down
ends the encounter (its side has nobody left standing).

The chain's state: the Brute's damage and attacks received, Kestrel's HP, Harms and
segments, Kaito's Momentum and Momentum spent, the last Round he is Suppressed in,
whether each event happened, and whether Kestrel is Manifested this Round.

False alarms. Fixed seeds, so each test always passes or always fails. Each event's
round and the Brute's Down round and attacks received (each with its never cell) by a
chi-square test at p > 1e-4 (cells with expected count < 5 merged); the jab's damage
histogram by chi-square at p > 1e-4 and its hit rate within k = 4.5 binomial standard
errors; the jabs made and the Momentum spent, per-encounter counts kept per batch, each
within k = 4.5 standard errors of the chain's mean and its 32 batch means against
χ²(32) at p > 1e-4 (:func:`tests.chains.per_encounter_verdict`). Five runs, at most 13
comparisons each: family-wise false-alarm rate ≲ 7e-3.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import simlab
from tests.chains import (
    P_MIN,
    State,
    assert_rounds_match,
    assert_sum_matches,
    outcomes,
    ss_attack,
    step_all,
    wound_segments,
)
from tests.support import chi_square_p, within

N = 40_000
#: Seed 8081, tried first, gave p = 7.5e-5 on Kestrel's ``out`` round in ``always-attacks``
#: (its ``sealed`` round and the Brute's Down leaning the same way, as they depend on
#: it). A false alarm, not a disagreement: that case at 2x10^6 encounters on seeds 11, 12
#: and 13 gave every compared round p >= 0.11.
SEED = 7
ROUNDS = 6

CLAW = [0, 0, 1, 2, 2, 3, 3, 4, 5, 6, 7]
MAUL = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
JAB = [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6]

#: case → scenario knobs. ``brute_hp`` 0: the Brute cannot be Downed.
CASES: dict[str, dict[str, Any]] = {
    # Kestrel Manifests for free every Respite it may and jabs the Brute.
    "always-attacks": dict(manifest="always", recall_below=0, spirit_hp=8, spirit_jabs=True,
                           kaito_jabs=False, brute_hp=8, claws=2, claw=CLAW, meter=10,
                           cost=1, manifest_momentum=True, momentum=0),
    # Recalled for good once its HP is below 4 at a Respite.
    "recall-below": dict(manifest="always", recall_below=4, spirit_hp=8, spirit_jabs=True,
                         kaito_jabs=False, brute_hp=7, claws=2, claw=CLAW, meter=10,
                         cost=1, manifest_momentum=True, momentum=0),
    # Never Manifested: only Kaito's jabs reach the Brute, nobody reaches Kestrel.
    "never": dict(manifest="never", recall_below=0, spirit_hp=6, spirit_jabs=True,
                  kaito_jabs=True, brute_hp=12, claws=2, claw=CLAW, meter=6, cost=1,
                  manifest_momentum=True, momentum=0),
    # A Melee Manifest gains no Momentum: Kaito pays from his 4 starting tokens only.
    "melee-no-momentum": dict(manifest="melee", recall_below=0, spirit_hp=6, spirit_jabs=False,
                              kaito_jabs=False, brute_hp=0, claws=2, claw=CLAW, meter=8,
                              cost=1, manifest_momentum=False, momentum=4),
    # A 3-HP Spirit under a one-claw maul: the overflow often Downs it a second time in
    # the same attack, the only way Kaito can be Sealed here.
    "overflow": dict(manifest="always", recall_below=0, spirit_hp=3, spirit_jabs=False,
                     kaito_jabs=False, brute_hp=0, claws=1, claw=MAUL, meter=20, cost=1,
                     manifest_momentum=True, momentum=0),
}  # fmt: skip

SCENARIO = """
scenario: sso-{name}
rules: shattered-spirits
max_rounds: {rounds}
params: {{harm_meter: {meter}, melee_manifest_cost: {cost}, manifest_momentum: {mm}}}
attacks:
  claw: {{profile: {claw}}}
  jab: {{profile: {jab}}}
sides:
  party:
    - {{name: Kaito, hp: 100000, tokens: {{momentum: {momentum}}}, attacks: {kaito_attacks},
       spirit: {{name: Kestrel, hp: {spirit_hp}, speed: 4, attacks: {spirit_attacks},
                manifest: {manifest}, recall_below: {recall_below}}}}}
  enemies:
    - {{name: Brute, hp: {brute_hp}, speed: 2, attacks_per_turn: {claws}, attacks: [claw],
       target: lowest-hp}}
"""

EVENTS = ("harm", "suppressed", "sealed", "momentum_spent", "out")
WHO = {"harm": "Kestrel", "out": "Kestrel", "suppressed": "Kaito", "sealed": "Kaito",
       "momentum_spent": "Kaito"}  # fmt: skip

# State fields
BDMG, BATT, HP, HARMS, SEG, MOM, SPENT, UNTIL, SUPP, SEAL, GONE, THERE, OVER = range(13)


def text_of(name: str) -> str:
    """The scenario of case ``name``."""
    c = CASES[name]
    return SCENARIO.format(
        name=name, rounds=ROUNDS, meter=c["meter"], cost=c["cost"],
        mm=str(c["manifest_momentum"]).lower(), claw=c["claw"], jab=JAB,
        momentum=c["momentum"], kaito_attacks="[jab]" if c["kaito_jabs"] else "[]",
        spirit_hp=c["spirit_hp"], spirit_attacks="[jab]" if c["spirit_jabs"] else "[]",
        manifest=c["manifest"], recall_below=c["recall_below"],
        brute_hp=c["brute_hp"] or 100000, claws=c["claws"],
    )  # fmt: skip


@functools.cache
def spirit_chain(name: str, **reading: Any) -> dict[str, np.ndarray]:
    """P(each event first happens in round r), P(the Brute is Downed in round r), P(it is
    Downed by the k-th attack it receives), P(Kaito spends t Momentum), and P(Kestrel
    jabs j times in the encounter) (all jabs are Kestrel's where Kaito has none; none
    are where it never Manifests).

    ``reading`` overrides a rule reading, to show that the tests would notice it:
    ``overflow_downs`` (default True: the overflow can Down Kestrel again),
    ``manifest`` / ``recall_below`` / ``manifest_momentum`` (the case's).
    """
    c = {**CASES[name], **reading}
    overflow_downs = reading.get("overflow_downs", True)
    full, meter, cost, below = c["spirit_hp"], c["meter"], c["cost"], c["recall_below"]
    track_momentum = c["manifest"] == "melee"
    claw = outcomes(ss_attack(c["claw"], 0, 0))
    jab = outcomes(ss_attack(JAB, 0, 0))
    down_round = np.zeros(ROUNDS + 1)
    down_attack = np.zeros(2 * ROUNDS + 1)

    def downed(s: State, r: int, overflow: int) -> dict[State, float]:
        """Kestrel Spirit Downed in round ``r`` with ``overflow`` damage left: the states
        it may end in, with their probabilities (a Down the overflow brings rolls its
        own Harm, and Seals Kaito, Suppressed by the first)."""
        done: dict[State, float] = {}
        frontier: dict[State, float] = {s: 1.0}
        while frontier:
            nxt: dict[State, float] = {}
            for state, p in frontier.items():
                u = list(state)
                if u[UNTIL] >= r:
                    u[UNTIL], u[SEAL] = r + 1, 1  # sealed_rounds 1
                else:
                    u[UNTIL], u[SUPP] = r, 1
                for q, seg in harm_segments(u[HARMS]):
                    t = list(u)
                    t[HARMS] += 1
                    t[SEG] += seg
                    into = done
                    if t[SEG] >= meter:  # Recalled for good: HP, Harm, Momentum matter no more
                        t[GONE], t[THERE], t[HP], t[HARMS], t[SEG] = 1, 0, 0, 1, 0
                        t[MOM], t[UNTIL] = 0, 0
                    elif overflow < full or not overflow_downs:
                        t[HP] = full - min(overflow, full - 1)
                    else:
                        into = nxt
                    key = tuple(t)
                    into[key] = into.get(key, 0.0) + p * q
            frontier = nxt
            overflow -= full
        return done

    def respite(s: State, r: int) -> list[tuple[float, State]]:
        if s[OVER]:
            return [(1.0, s)]
        t = list(s)
        suppressed = t[UNTIL] >= r
        allowed = not suppressed and not t[GONE] and c["manifest"] != "never"
        t[THERE] = int(allowed and not (below > 0 and t[HP] < below))
        if track_momentum:
            if t[THERE] and t[MOM] >= cost:  # a Melee Manifest, paid
                t[MOM] -= cost
                t[SPENT] += cost
            if not suppressed and (not t[THERE] or c["manifest_momentum"]):
                t[MOM] += 2
        return [(1.0, tuple(t))]

    def brute_claw(s: State, r: int) -> list[tuple[float, State]]:
        if s[OVER] or not s[THERE]:
            return [(1.0, s)]  # the Brute's target is Kaito, who cannot be Downed
        out: list[tuple[float, State]] = []
        for p, d in claw:
            if d < s[HP]:
                t = list(s)
                t[HP] -= d
                out.append((p, tuple(t)))
            else:
                out.extend((p * q, t) for t, q in downed(s, r, d - s[HP]).items())
        return out

    def jab_brute(s: State, r: int, weight: float) -> list[tuple[float, State]]:
        """A jab at the Brute; its Down ends the encounter (only what is reported of it
        is kept in the state)."""
        out: list[tuple[float, State]] = []
        for p, d in jab:
            t = list(s)
            t[BATT] += 1
            t[BDMG] += d
            if c["brute_hp"] and t[BDMG] >= c["brute_hp"]:
                down_round[r] += weight * p
                down_attack[t[BATT]] += weight * p
                t[OVER], t[BDMG], t[HP], t[THERE] = 1, 0, 0, 0
            out.append((p, tuple(t)))
        return out

    def jabs_of(states: dict[State, float], r: int, who: str) -> dict[State, float]:
        out: dict[State, float] = {}
        for s, p in states.items():
            acts = not s[OVER] and (c["kaito_jabs"] if who == "Kaito" else
                                    c["spirit_jabs"] and s[THERE])  # fmt: skip
            if not acts:
                out[s] = out.get(s, 0.0) + p
                continue
            for q, t in jab_brute(s, r, p):
                out[t] = out.get(t, 0.0) + p * q
        return out

    def round_end(s: State, r: int) -> list[tuple[float, State]]:
        """A Suppression that ends with the Round is forgotten (merges states)."""
        return [(1.0, s if s[UNTIL] > r else (*s[:UNTIL], 0, *s[UNTIL + 1 :]))]

    happened: dict[str, Callable[[State], bool]] = {
        "harm": lambda s: s[HARMS] > 0,
        "suppressed": lambda s: s[SUPP] > 0,
        "sealed": lambda s: s[SEAL] > 0,
        "momentum_spent": lambda s: s[SPENT] > 0,
        "out": lambda s: s[GONE] > 0,
    }
    first = {e: np.zeros(ROUNDS + 1) for e in EVENTS}
    states: dict[State, float] = {
        (0, 0, full, 0, 0, c["momentum"] if track_momentum else 0, 0, 0, 0, 0, 0, 0, 0): 1.0
    }
    for r in range(1, ROUNDS + 1):
        before = {e: sum(p for s, p in states.items() if f(s)) for e, f in happened.items()}
        states = step_all(states, functools.partial(respite, r=r))
        for _ in range(c["claws"]):  # Phase 2: the Brute's claws
            states = step_all(states, functools.partial(brute_claw, r=r))
        states = jabs_of(states, r, "Kaito")  # Phase 3
        states = jabs_of(states, r, "Kestrel")  # Phase 4
        states = step_all(states, functools.partial(round_end, r=r))
        for e, f in happened.items():
            first[e][r] = sum(p for s, p in states.items() if f(s)) - before[e]
    spent = np.zeros(max(s[SPENT] for s in states) + 1)
    jabs = np.zeros(2 * ROUNDS + 1)
    for s, p in states.items():
        spent[s[SPENT]] += p
        jabs[s[BATT]] += p
    if c["kaito_jabs"] or not c["spirit_jabs"]:
        jabs = np.ones(1)  # Kestrel never jabs (never Manifested, or no attack)
    return {**first, "down": down_round, "attacks": down_attack, "spent": spent,
            "jabs": jabs}  # fmt: skip


@functools.cache
def harm_segments(harms: int) -> list[tuple[float, int]]:
    """(probability, segments) of a Harm roll after ``harms`` Harms."""
    return outcomes(wound_segments(harms, "sum"))


@functools.cache
def simulated(name: str) -> simlab.Result:
    """Case ``name`` simulated once."""
    return simlab.simulate(simlab.loads(text_of(name), f"{name}.yaml"), n=N, seed=SEED,
                           threads=1)  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_spirit_options_match_the_chain(name: str) -> None:
    """Kestrel's ``harm`` and ``out`` rounds, Kaito's ``suppressed``, ``sealed`` and
    ``momentum_spent`` rounds and Momentum spent per encounter, the Brute's Down round
    and attacks received, and Kestrel's jabs (hit rate, damage histogram) match the
    chain."""
    res = simulated(name)
    exact = spirit_chain(name)
    names = [m for _, m in res.layout.combatants]
    events = res.layout.events
    for event, who in WHO.items():
        hist = res.tallies.event_round[names.index(who), events.index(event)]
        assert_rounds_match(N, hist, exact[event], f"{name} {event}")
    kestrel, brute, kaito = (names.index(m) for m in ("Kestrel", "Brute", "Kaito"))
    assert np.array_equal(res.tallies.down_round[kestrel],
                          res.tallies.event_round[kestrel, events.index("harm")])  # fmt: skip
    assert_rounds_match(N, res.tallies.down_round[brute], exact["down"], f"{name} Brute down")
    attacks = res.tallies.down_attacks[brute]
    assert_rounds_match(N, attacks[: len(exact["attacks"])], exact["attacks"], f"{name} attacks")

    pair = res.layout.pair(kestrel, res.layout.attacks.index("jab"), brute)
    assert_sum_matches(N, res.tallies.attempts[pair], exact["jabs"], f"{name} jabs")
    made = int(res.tallies.attempts[pair].sum())
    if made:
        pmf = ss_attack(JAB, 0, 0)
        hist = res.tallies.damage_hist[pair, : len(pmf)]
        assert hist.sum() == made
        assert within(int(res.tallies.hits[pair].sum()), made, 1 - pmf[0])
        assert chi_square_p(hist, pmf) > P_MIN, (name, hist, pmf * made)

    assert_sum_matches(N, res.tallies.momentum_spent[kaito], exact["spent"], f"{name} spent")


def mean_of(pmf: np.ndarray) -> float:
    """Σ k · pmf[k] (over all of ``pmf``, whatever its total)."""
    return float(np.arange(len(pmf)) @ pmf)


def test_spirit_option_cases_are_not_trivial() -> None:
    """Guard: where the case makes them happen, the events and the Brute's Down have
    rates away from 0 and 1 or are spread over several rounds; the counts vary."""
    happens = {
        "always-attacks": ("harm", "sealed", "out"),
        "recall-below": ("harm",),
        "melee-no-momentum": ("harm", "sealed", "out"),
        "overflow": ("sealed", "out"),
    }
    for name, events in happens.items():
        exact = spirit_chain(name)
        for event in events:
            rate, peak = exact[event].sum(), exact[event].max()
            assert 0.05 < rate < 0.95 or (rate > 0.95 and peak < 0.75), (name, event)
    for name in ("always-attacks", "recall-below", "never"):
        down = spirit_chain(name)["down"]
        assert down.sum() > 0.2 and down.max() < 0.35, name
    for name in ("always-attacks", "recall-below"):
        assert spirit_chain(name)["jabs"].max() < 0.5, name
    assert spirit_chain("melee-no-momentum")["spent"].max() < 0.8


def test_spirit_option_readings_move_the_chain() -> None:
    """Each option's reading moves what the tests compare far beyond their tolerance:
    ``recall_below`` against none, ``never`` against ``always``, ``manifest_momentum:
    false`` against true, and an overflow that Downs again against one that cannot."""
    recall, no_recall = spirit_chain("recall-below"), spirit_chain("recall-below", recall_below=0)
    assert mean_of(no_recall["jabs"]) - mean_of(recall["jabs"]) > 1
    assert spirit_chain("never", manifest="always")["harm"].sum() > 0.9
    spent = mean_of(spirit_chain("melee-no-momentum")["spent"])
    assert mean_of(spirit_chain("melee-no-momentum", manifest_momentum=True)["spent"]) > spent + 0.3
    assert spirit_chain("overflow")["sealed"].sum() > 0.9
    assert spirit_chain("overflow", overflow_downs=False)["sealed"].sum() == 0
