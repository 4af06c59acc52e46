"""Statistical correctness of the glitters-d20 simulator against exact answers.

Attack cases are small scenarios whose attacks are i.i.d.: the defender has so much HP
that it is never downed, it makes no attacks, nothing it can gain changes MIT or damage
within the one round played, so every attack of a pair is an independent draw from the
distribution :func:`simlab.exact.glitters_d20.attack_outcome` computes by enumeration.
The simulated hit rate, crit rate and damage distribution (critical bonus dice
included) of every pair are compared with it. A last test compares the death-save
outcome of a downed player character with a Markov chain written here from the text.

False alarms. Seeds are fixed, so each test always passes or always fails; thresholds
bound the chance that a seed is unlucky for a correct simulator. Rates are compared
within k = 4.5 standard errors, σ = sqrt(p(1 − p)/attempts) with 60,000 attempts per
pair: P(|z| > 4.5) ≈ 6.8e-6 per comparison. Damage distributions use a chi-square test
(cells with expected count < 5 merged) at p > 1e-4. About 60 comparisons (the Parry
case included) make the family-wise false-alarm rate ≲ 5e-3. A one-point error in a
hit rate gives z ≈ 2.5 per pair here, but every case has several pairs; a wrong
critical die shifts the PMF far beyond the chi-square bound.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.analysis.result import Result
from simlab.exact.glitters_d20 import attack_outcome
from tests.support import K_SIGMA, chi_square_p, within

P_MIN = 1e-4
N_ENCOUNTERS = 60_000
SEED = 20240917

HEADER = """
scenario: gs-{name}
rules: glitters-d20
max_rounds: 1
params: {params}
"""

CASES: dict[str, tuple[str, str]] = {
    # The text's critical examples: the knight's longsword (STR 15) and the wizard's
    # 3d8; a dagger's piercing +3 against mail; a keen blade with CT 18.
    "crit": (
        "{}",
        """
attacks:
  longsword: {damage: 1d10, type: slashing, bonus: 4}
  dagger: {damage: 1d4+1, type: piercing, bonus: 2, hand: offhand, attribute: dex}
  spell: {damage: 3d8, type: fire, bonus: 3, attribute: null}
  keen: {damage: 2d6-1, type: slashing, bonus: 1, critical_threshold: 18, hand: offhand}
sides:
  a:
    - {name: Knight, hp: 10, attributes: {str: 15, dex: 12}, attacks: [longsword, dagger]}
    - {name: Wizard, hp: 10, attributes: {str: 6}, attacks: [spell, keen]}
  b:
    - {name: D, hp: 100000, dc: 9, armor: mail, armor_bc: 4, shield_bc: 2,
       status_immune: [bleeding, burning]}
""",
    ),
    # Advantage and disadvantage; vulnerability, resistance, immunity; bludgeoning +3
    # against plate; lightning through plate; a negative ASM floored at 0.
    "types": (
        "{}",
        """
attacks:
  hammer: {damage: 1d8, type: bludgeoning, bonus: 2, advantage: 1}
  torch: {damage: 1d6+2, type: fire, bonus: 3, disadvantage: 1, hand: offhand}
  bolt: {damage: 2d4, type: lightning, bonus: 0, attribute: will}
  slash: {damage: 1d6, type: slashing, bonus: 5, advantage: 2, disadvantage: 1,
          hand: offhand}
  poke: {damage: 1d4, type: poison, bonus: 6}
sides:
  a:
    - {name: A1, hp: 10, attributes: {str: 13}, attacks: [hammer, torch]}
    - {name: A2, hp: 10, attributes: {will: 14, str: 7}, attacks: [bolt, slash]}
    - {name: A3, hp: 10, attributes: {str: 6}, attacks: [poke]}
  b:
    - {name: D, hp: 100000, dc: 5, armor: plate, armor_bc: 8, vulnerable: [bludgeoning],
       resist: [fire, slashing], immune: [poison], status_immune: [burning, bleeding]}
""",
    ),
    # Every numeric [default] changed: MIT base, ties miss, 3d20 advantage, CT 19,
    # halves rounded up; a prone target (DC halved) shot at with a ranged attack.
    "params": (
        """{mit_base: 4, hit_on_tie: false, advantage_dice: 3, critical_threshold: 19,
          rounding: up}""",
        """
attacks:
  bow: {damage: 1d8+1, type: piercing, bonus: 5, ranged: true, attribute: dex}
  sword: {damage: 1d6, type: slashing, bonus: 3, advantage: 1}
  flail: {damage: 2d4+1, type: bludgeoning, bonus: 2, disadvantage: 1, hand: offhand}
sides:
  a:
    - {name: A1, hp: 10, attributes: {dex: 15}, attacks: [bow]}
    - {name: A2, hp: 10, attributes: {str: 12}, attacks: [sword, flail]}
  b:
    - {name: D, hp: 100000, dc: 9, prone: true, armor_bc: 1, resist: [slashing],
       status_immune: [bleeding]}
""",
    ),
}


@functools.cache
def run(name: str) -> tuple[Any, Result]:
    """Simulate case ``name`` once per session."""
    params, body = CASES[name]
    scn = simlab.loads(HEADER.format(name=name, params=params) + body, f"{name}.yaml")
    return scn, simlab.simulate(scn, n=N_ENCOUNTERS, seed=SEED, threads=2)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_attacks_match_exact(name: str) -> None:
    scn, res = run(name)
    layout = res.layout
    defender = len(layout.combatants) - 1
    checked = 0
    for c, (_, attacker) in enumerate(layout.combatants[:-1]):
        member = [m for _, m in scn.expanded()][c]
        for attack in member.attacks:
            pair = layout.pair(c, layout.attacks.index(attack), defender)
            attempts = int(res.tallies.attempts[pair].sum())
            assert attempts == N_ENCOUNTERS, (attacker, attack)
            exact = attack_outcome(scn, c, attack, defender)
            assert within(int(res.tallies.hits[pair].sum()), attempts, exact.hit_rate), attack
            assert within(int(res.tallies.crits[pair].sum()), attempts, exact.crit_rate), attack
            hist = res.tallies.damage_hist[pair]
            pmf = exact.damage_pmf
            assert hist[len(pmf) :].sum() == 0, f"{attack}: impossible damage seen"
            observed = hist[: len(pmf)]
            assert np.all(observed[pmf == 0] == 0), f"{attack}: impossible damage seen"
            assert chi_square_p(observed, pmf) > P_MIN, attack
            checked += 1
    assert checked >= 3


def test_exact_cases_are_not_trivial() -> None:
    """Guard against a vacuous comparison: hit rates strictly between 0 and 1 and
    varied, crit rates of 5%, 10% and more."""
    rates, crits = set(), set()
    for name in CASES:
        scn, _ = run(name)
        members = [m for _, m in scn.expanded()]
        for c, m in enumerate(members[:-1]):
            for attack in m.attacks:
                out = attack_outcome(scn, c, attack, len(members) - 1)
                assert 0 < out.hit_rate < 1
                rates.add(round(out.hit_rate, 6))
                crits.add(round(out.crit_rate, 6))
    assert len(rates) >= 8 and len(crits) >= 3


DEATH = """
scenario: gs-death
rules: glitters-d20
max_rounds: 9
attacks:
  crush: {damage: 10, type: bludgeoning, bonus: 50}
sides:
  party:
    - {name: Hero, player: true, hp: 1}
  ogre:
    - {name: Ogre, hp: 10, initiative: 50, attacks: [crush]}
"""


def death_chain() -> dict[tuple[str, int], float]:
    """P(dead / stable at the k-th death save), from the text: d20 ≥ 10 a save (a 20
    stable at once), ≤ 9 a fail; three saves stable, three fails dead."""
    out: dict[tuple[str, int], float] = {}
    states = {(0, 0): 1.0}
    for k in range(1, 6):
        nxt: dict[tuple[int, int], float] = {}
        for (s, f), p in states.items():
            out[("stable", k)] = out.get(("stable", k), 0.0) + p / 20  # natural 20
            if s + 1 == 3:  # 10..19: a save
                out[("stable", k)] += p * 10 / 20
            else:
                nxt[(s + 1, f)] = nxt.get((s + 1, f), 0.0) + p * 10 / 20
            if f + 1 == 3:  # 1..9: a fail
                out[("dead", k)] = out.get(("dead", k), 0.0) + p * 9 / 20
            else:
                nxt[(s, f + 1)] = nxt.get((s, f + 1), 0.0) + p * 9 / 20
        states = nxt
    assert not states
    return out


@pytest.mark.kernels
def test_death_saves_match_the_chain() -> None:
    """A hero downed in round 1 saves from round 2 on (the fight is over, the saves go
    on); P(dead), P(stable) and the round of each match the chain."""
    n = 40_000
    res = simlab.simulate(simlab.loads(DEATH, "death.yaml"), n=n, seed=77, threads=2)
    assert res.tallies.down_round[0, 1] == n
    chain = death_chain()
    assert sum(chain.values()) == pytest.approx(1.0)
    for e, event in enumerate(res.layout.events[:2]):  # dead, stable
        hist = res.tallies.event_round[0, e]
        expected = np.zeros(len(hist))
        for k in range(1, 6):
            expected[1 + k] = chain.get((event, k), 0.0)
        assert within(int(hist.sum()), n, float(expected.sum())), event
        rounds = hist[2:7]
        assert chi_square_p(rounds, expected[2:7] / expected.sum()) > P_MIN, event
    # The mean round of death among the encounters with a death, within K_SIGMA
    # standard errors of the chain's conditional mean (was a fixed ±0.05 window).
    times = res.events()
    dead = times[(times.combatant == "Hero") & (times.event == "dead")].iloc[0]
    deaths = {1 + k: p for (ev, k), p in chain.items() if ev == "dead"}
    p_dead = sum(deaths.values())
    mean = sum(r * p for r, p in deaths.items()) / p_dead
    var = sum(r * r * p for r, p in deaths.items()) / p_dead - mean**2
    n_dead = int(res.tallies.event_round[0, res.layout.events.index("dead")].sum())
    found = dead.mean_round_when_happened
    assert abs(found - mean) <= K_SIGMA * np.sqrt(var / n_dead), (found, mean)


# A parrying defender, one round: the attacker's main-hand sword is the first attack
# after the defender's turn (or before its first turn), so always parried; the offhand
# knife right after it in the same turn never is. Piercing adds no status.
PARRY = """
scenario: gs-parry
rules: glitters-d20
max_rounds: 1
params: {{parry_value: {value}}}
attacks:
  sword: {{damage: 1d8, type: piercing, bonus: 5}}
  knife: {{damage: 1d4, type: piercing, bonus: 5, hand: offhand}}
sides:
  a: [{{name: A, hp: 10, attacks: [sword, knife]}}]
  b: [{{name: D, hp: 100000, dc: 12, defense: parry}}]
"""
PARRY_DC, PARRY_BONUS = 12, 5


def parry_hit_rate(mit: int) -> float:
    """P(hit) of a +5 attack against ``mit``, from docs/rules/glitters-d20.md: a natural
    20 always hits, else natural + bonus ≥ MIT (ties hit by default)."""
    return sum(n == 20 or n + PARRY_BONUS >= mit for n in range(1, 21)) / 20


def parry_exact(value: int) -> dict[str, float]:
    """Each attack's exact hit rate: MIT = DC, plus ``value`` on the parried sword."""
    return {"sword": parry_hit_rate(PARRY_DC + value), "knife": parry_hit_rate(PARRY_DC)}


@pytest.mark.parametrize("value", [2, 4])
@pytest.mark.kernels
def test_parry_value_matches_exact(value: int) -> None:
    """The simulated hit and crit rates of a parried and an unparried attack match the
    enumeration above within K_SIGMA standard errors; ``simlab.exact`` agrees on the
    parried one."""
    scn = simlab.loads(PARRY.format(value=value), f"parry{value}.yaml")
    res = simlab.simulate(scn, n=N_ENCOUNTERS, seed=SEED + value, threads=2)
    layout = res.layout
    for attack, p_hit in parry_exact(value).items():
        pair = layout.pair(0, layout.attacks.index(attack), 1)
        attempts = int(res.tallies.attempts[pair].sum())
        assert attempts == N_ENCOUNTERS, attack
        assert within(int(res.tallies.hits[pair].sum()), attempts, p_hit), (attack, p_hit)
        assert within(int(res.tallies.crits[pair].sum()), attempts, 1 / 20), attack
    # simlab.exact takes the defender's Parry as ready, true of the sword only
    assert attack_outcome(scn, 0, "sword", 1).hit_rate == pytest.approx(parry_exact(value)["sword"])


def test_parry_value_changes_the_exact_hit_rate() -> None:
    """Guard against a vacuous case: parry_value 4 lowers the parried sword's exact hit
    rate below the default 2's, and leaves the unparried knife's as it is."""
    two, four = parry_exact(2), parry_exact(4)
    assert four["sword"] < two["sword"] < two["knife"]
    assert four["knife"] == two["knife"]
