"""shattered-spirits Stun damage, Momentum spent and Wound deaths against exact chains.

Three tallies the duel tests leave out, each in a small scenario whose state is small
enough to enumerate, written from docs/rules/shattered-spirits.md alone:

* ``status_damage`` — Stun beyond ``stun_max`` becomes damage, and Stun never wears
  off, so against a defender that is never Downed an encounter's status damage is
  max(0, all Stun inflicted − ``stun_max``), all Stun being the rows' ``stun N`` times
  ``stun_per_level`` plus Rushing N at the end of each of the six Phases;
* ``momentum_spent`` and its event — Momentum gained at each Respite, spent on an
  attack priced in it (passed over when it cannot be paid) and on an Evade priced in
  it (once per Turn, for a hit whose damage reaches the threshold);
* the ``out`` and ``dead`` events and the first Wound of a ``downed: wounds``
  defender, and the ``sunder`` and ``fatigue`` events of one that Sunders Armor in place
  of a Wound — a chain over (damage taken since its last Wound, Wounds, Strain segments,
  Armor charges left).

False alarms. Fixed seeds, so each test always passes or always fails. A per-encounter
sum (status damage, Momentum spent): its mean within k = 4.5 standard errors (σ² the
exact variance) and the 32 standardised batch means against χ²(32) at p > 1e-4
(:func:`tests.chains.per_encounter_verdict`); a sum the chain says is certain must be
exactly that. An event's round (plus the never cell) by a chi-square test at p > 1e-4.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

import simlab
from tests.chains import (
    State,
    assert_rounds_match,
    assert_sum_matches,
    combatant_index,
    dice_pmf,
    event_rounds,
    outcomes,
    step_all,
    wound_segments,
)

N = 40_000
SEED = 1337


def row_probabilities(modifier: int = 0) -> np.ndarray:
    """``out[row]``, row 0..10 for results 2..12, and ``out[11]`` a miss (below 2): 2d6
    + modifier, above 12 reading row 12 (docs/rules/shattered-spirits.md, "An
    attack")."""
    out = np.zeros(12)
    for roll, p in enumerate(dice_pmf(2, 6)):
        if p:
            total = roll + modifier
            out[11 if total < 2 else min(total, 12) - 2] += p
    return out


# ---------------------------------------------------------------------------------------
# Stun beyond the maximum
# ---------------------------------------------------------------------------------------

STUN = """
scenario: sse-stun
rules: shattered-spirits
max_rounds: 5
params: {{stun_per_level: {per_level}}}
attacks:
  daze:
    profile: [0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4]
    status: {{8: [stun 1], 9: [stun 1], 10: [stun 2], 11: [stun 2], 12: [stun 3]}}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 2, attacks: [daze]}}]
  b: [{{name: D, hp: 100000, stun_max: 9, rushing: {rushing}}}]
"""

#: case → (stun_per_level, the defender's Rushing N)
STUN_CASES = {"profile-stun": (1, 0), "rushing-and-double-stun": (2, 1)}
DAZE_STUN = {8: 1, 9: 1, 10: 2, 11: 2, 12: 3}


def stun_damage_pmf(case: str, rounds: int, attacks_per_round: int) -> np.ndarray:
    """P(the defender takes t damage from Stun in an encounter): max(0, S − 9), S the
    Stun of every hit's row (rows 8..12 of the daze; N × ``stun_per_level``) plus
    Rushing N × 6 Phases × rounds (docs/rules/shattered-spirits.md, "Status
    damage")."""
    per_level, rushing = STUN_CASES[case]
    rows = row_probabilities()
    one = np.zeros(3 * per_level + 1)
    for row, p in enumerate(rows[:11]):
        one[DAZE_STUN.get(row + 2, 0) * per_level] += p
    stun = np.zeros(1 + 6 * rushing * rounds)
    stun[-1] = 1.0
    for _ in range(rounds * attacks_per_round):
        stun = np.convolve(stun, one)
    damage = np.zeros(max(len(stun) - 9, 1))
    for s, p in enumerate(stun):
        damage[max(s - 9, 0)] += p
    return damage


@pytest.mark.parametrize("case", list(STUN_CASES))
@pytest.mark.kernels
def test_stun_damage_matches_the_chain(case: str) -> None:
    per_level, rushing = STUN_CASES[case]
    scn = simlab.loads(STUN.format(per_level=per_level, rushing=rushing), f"{case}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    pmf = stun_damage_pmf(case, scn.max_rounds, 2)
    assert 0.05 < pmf[0] < 0.95 or rushing, "the maximum matters in the plain case"
    assert_sum_matches(N, res.tallies.status_damage[1], pmf, case)
    assert res.tallies.status_damage[0].sum() == 0


# ---------------------------------------------------------------------------------------
# Momentum
# ---------------------------------------------------------------------------------------

MOMENTUM = """
scenario: sse-momentum
rules: shattered-spirits
max_rounds: 6
attacks:
  lunge: {profile: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}
  power: {profile: [0, 0, 2, 4, 6, 8, 8, 9, 10, 11, 12], momentum_cost: 3}
sides:
  a: [{name: A, hp: 10, attacks_per_turn: 2, attacks: [ATTACKS]}]
  b: [{name: D, hp: 100000,
       react: {evade: {when_damage_at_least: 8, momentum_cost: 3}}}]
"""

LUNGE = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
POWER = [0, 0, 2, 4, 6, 8, 8, 9, 10, 11, 12]
MOMENTUM_CASES = {"evade": ["lunge"], "evade-and-priced-attack": ["lunge", "power"]}
COSTS = {"lunge": 0, "power": 3}
PROFILES = {"lunge": LUNGE, "power": POWER}


def p_evade_trigger(profile: Sequence[int], threshold: int) -> float:
    """P(a roll's row deals at least ``threshold``): a hit (the row deals damage; no
    status) that the defender sees coming."""
    rows = row_probabilities()
    return float(sum(p for row, p in enumerate(rows[:11]) if profile[row] >= threshold))


def momentum_chain(case: str, rounds: int) -> tuple[dict[State, float], list[dict[State, float]]]:
    """The chain of docs/rules/shattered-spirits.md, "Momentum": the state after each
    round, (A's Momentum, A's rotation position, D's Momentum, A spent, D spent).

    At each Respite both gain 2. A makes two attacks a Turn in rotation, passing over an
    attack priced beyond its Momentum (and paying for the one it makes). D Evades a hit
    whose damage reaches 8 when it holds the 3 Momentum the Evade costs, at most once
    per Turn (the reroll cannot be Evaded again). Returns the final distribution and
    the distribution after each round.
    """
    rotation = MOMENTUM_CASES[case]
    triggers = {a: p_evade_trigger(PROFILES[a], 8) for a in rotation}
    states: dict[State, float] = {(0, 0, 0, 0, 0): 1.0}
    history = []

    def attack(s: State, evaded: bool) -> list[tuple[float, State, bool]]:
        m_a, pos, m_d, spent_a, spent_d = s
        for k in range(len(rotation)):  # pass over what A cannot pay for
            name = rotation[(pos + k) % len(rotation)]
            if COSTS[name] <= m_a:
                break
        pos = (pos + k + 1) % len(rotation)
        m_a, spent_a = m_a - COSTS[name], spent_a + COSTS[name]
        q = triggers[name] if not evaded and m_d >= 3 else 0.0
        out = [(1 - q, (m_a, pos, m_d, spent_a, spent_d), evaded)]
        if q:
            out.append((q, (m_a, pos, m_d - 3, spent_a, spent_d + 3), True))
        return out

    for _ in range(rounds):
        turn = {(m_a + 2, pos, m_d + 2, sa, sd, 0): p
                for (m_a, pos, m_d, sa, sd), p in states.items()}  # fmt: skip
        for _ in range(2):
            nxt: dict[State, float] = {}
            for (*s, evaded), p in turn.items():
                for q, s2, e2 in attack(tuple(s), bool(evaded)):
                    key = (*s2, int(e2))
                    nxt[key] = nxt.get(key, 0.0) + p * q
            turn = nxt
        states = {}
        for (*s, _), p in turn.items():
            states[tuple(s)] = states.get(tuple(s), 0.0) + p
        history.append(states)
    return states, history


def spent_pmf(states: dict[State, float], who: int) -> np.ndarray:
    """P(combatant ``who`` (3: A, 4: D) spent t Momentum)."""
    pmf = np.zeros(max(s[who] for s in states) + 1)
    for s, p in states.items():
        pmf[s[who]] += p
    return pmf


def first_spent_pmf(history: list[dict[State, float]], who: int) -> np.ndarray:
    """P(combatant ``who`` first spends Momentum in round r), r = 0..R."""
    ever = [0.0] + [sum(p for s, p in states.items() if s[who] > 0) for states in history]
    return np.clip(np.diff(ever, prepend=0.0), 0.0, None)  # rounding noise below 0


@pytest.mark.parametrize("case", list(MOMENTUM_CASES))
@pytest.mark.kernels
def test_momentum_spent_matches_the_chain(case: str) -> None:
    """Each side's Momentum spent per encounter and the round it first spent some."""
    text = MOMENTUM.replace("ATTACKS", ", ".join(MOMENTUM_CASES[case]))
    scn = simlab.loads(text, f"{case}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    final, history = momentum_chain(case, scn.max_rounds)
    assert sum(final.values()) == pytest.approx(1.0)
    for who, name in ((3, "A"), (4, "D")):
        c = combatant_index(res, name)
        assert_sum_matches(
            N, res.tallies.momentum_spent[c], spent_pmf(final, who), f"{case} {name}"
        )
        assert_rounds_match(N, event_rounds(res, name, "momentum_spent"),
                            first_spent_pmf(history, who), f"{case} {name}")  # fmt: skip


def test_momentum_cases_are_not_trivial() -> None:
    """Guard: D's spending varies, and the priced attack changes it and A's."""
    plain, _ = momentum_chain("evade", 6)
    priced, _ = momentum_chain("evade-and-priced-attack", 6)
    d_plain, d_priced = spent_pmf(plain, 4), spent_pmf(priced, 4)
    assert d_plain.max() < 0.7 and d_priced.max() < 0.7
    means = [float(np.arange(len(d)) @ d) for d in (d_plain, d_priced)]
    assert abs(means[0] - means[1]) > 0.2
    assert len(spent_pmf(plain, 3)) == 1 and spent_pmf(priced, 3)[0] == 0


# ---------------------------------------------------------------------------------------
# Wounds: first Wound, death and out
# ---------------------------------------------------------------------------------------

WOUNDS = """
scenario: sse-wounds
rules: shattered-spirits
max_rounds: 6
params: {{wound_roll: {wound_roll}, strain_meter: {meter}}}
attacks:
  cut: {{profile: [0, 0, 1, 2, 2, 3, 3, 4, 5, 6, 7]}}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 2, attacks: [cut]}}]
  b:
    - {{name: D, hp: 8, downed: wounds{sunder}}}
"""

CUT = [0, 0, 1, 2, 2, 3, 3, 4, 5, 6, 7]
#: case → (wound_roll, strain_meter, Armor charges to Sunder, their segment threshold)
WOUND_CASES = {
    "sum": ("sum", 10, 0, 0),
    "highest-meter-6": ("highest", 6, 0, 0),
    "sunder-at-3": ("sum", 10, 1, 3),
}


def wounds_chain(case: str, rounds: int, hp: int = 8) -> dict[str, np.ndarray]:
    """P(first Wound / death / first Sunder in round r), r = 0..``rounds``.

    Two cuts a round; a cut's damage takes HP; at 0 HP the defender rolls a Wound
    (:func:`wound_segments`). When that Wound would add at least the Sunder threshold's
    segments and an Armor charge is left, it Sunders one and takes Fatigue instead (no
    segments, and the Wound count, which sets the next roll, does not rise); else it
    dies (and is out) once its segments fill the Strain Meter. Either way, still alive,
    it returns to full HP less the overflow (a cut deals at most 7 < 8 HP, so the
    overflow never Downs it again). State: (damage since the last Wound roll, Wounds,
    segments, Armor charges left); damage −1 once dead.
    """
    how, meter, armor, sunder_at = WOUND_CASES[case]
    cut = row_probabilities()[:11]
    damage = [(float(p), CUT[row]) for row, p in enumerate(cut)]
    first, dead, sunder = np.zeros(rounds + 1), np.zeros(rounds + 1), np.zeros(rounds + 1)

    def one_cut(s: State) -> list[tuple[float, State]]:
        taken, wounds, segments, charges = s
        out = []
        for p, d in damage:
            if taken + d < hp:
                out.append((p, (taken + d, wounds, segments, charges)))
                continue
            overflow = taken + d - hp
            for q, seg in outcomes(wound_segments(wounds, how)):
                if charges > 0 and seg >= sunder_at:
                    out.append((p * q, (overflow, wounds, segments, charges - 1)))
                elif segments + seg >= meter:
                    out.append((p * q, (-1, wounds + 1, meter, charges)))
                else:
                    out.append((p * q, (overflow, wounds + 1, segments + seg, charges)))
        return out

    def settled(s: State) -> list[tuple[float, State]]:
        return [(1.0, s)] if s[0] < 0 else one_cut(s)

    def mass(states: dict[State, float], which: Callable[[State], bool]) -> float:
        return sum(p for s, p in states.items() if which(s))

    def rolled(s: State) -> bool:  # has rolled a Wound (or Sundered in its place)
        return s[1] > 0 or s[3] < armor

    states: dict[State, float] = {(0, 0, 0, armor): 1.0}
    for r in range(1, rounds + 1):
        before = [mass(states, rolled), mass(states, lambda s: s[0] < 0),
                  mass(states, lambda s: s[3] < armor)]  # fmt: skip
        states = step_all(step_all(states, settled), settled)
        first[r] = mass(states, rolled) - before[0]
        dead[r] = mass(states, lambda s: s[0] < 0) - before[1]
        sunder[r] = mass(states, lambda s: s[3] < armor) - before[2]
    return {"first": first, "dead": dead, "sunder": sunder}


@pytest.mark.parametrize("bystander", [False, True], ids=["duel-path", "general-path"])
@pytest.mark.parametrize("case", list(WOUND_CASES))
@pytest.mark.kernels
def test_wounds_out_and_dead_match_the_chain(case: str, bystander: bool) -> None:
    """First Wound (time-to-down), ``dead`` and ``out`` of a ``wounds`` defender; a
    bystander on its side (never attacked while it stands) takes the fight off the
    plain-duel path."""
    how, meter, armor, sunder_at = WOUND_CASES[case]
    sunder = f", sunder: {{armor: {armor}, when_segments_at_least: {sunder_at}}}" if armor else ""
    text = WOUNDS.format(wound_roll=how, meter=meter, sunder=sunder)
    if bystander:
        text += "    - {name: Bystander, hp: 100000}\n"
    scn = simlab.loads(text, f"{case}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    chain = wounds_chain(case, scn.max_rounds)
    assert 0.1 < chain["dead"].sum() < 0.95, "the cap leaves some alive"
    d = combatant_index(res, "D")
    assert_rounds_match(N, res.tallies.down_round[d], chain["first"], f"{case} first Wound")
    assert_rounds_match(N, event_rounds(res, "D", "dead"), chain["dead"], f"{case} dead")
    assert_rounds_match(N, event_rounds(res, "D", "out"), chain["dead"], f"{case} out")
    if armor:
        assert 0.2 < chain["sunder"].sum() < 0.99
        for event in ("sunder", "fatigue"):
            assert_rounds_match(
                N, event_rounds(res, "D", event), chain["sunder"], f"{case} {event}"
            )
