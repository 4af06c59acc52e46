"""Statistical correctness of the zones-3d6 simulator against the exact engine.

Each case is a small scenario whose attacks are i.i.d.: the defender has so much HP that
it is never out, it makes no attacks, and the fight lasts one round, so every attack of
a pair is an independent draw from the distribution that
:func:`simlab.exact.zones_3d6.attack_outcome` computes by enumeration. The simulated hit
rate and damage distribution of every pair are compared with it.

False alarms. The seed is fixed, so each test always passes or always fails; the
thresholds bound the chance that the seed is unlucky for a correct simulator. A hit rate
is compared within k = 4.5 standard errors, σ = sqrt(p(1 − p)/attempts), each pair
having 100,000 attempts: P(|z| > 4.5) ≈ 6.8e-6 per comparison. The damage distribution
uses a chi-square test (cells with expected count < 5 merged) at p > 1e-4. About 15
pairs make the family-wise false-alarm rate ≲ 2e-3. A bug of one percentage point in a
hit rate gives z ≈ 6 at this sample size.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.analysis.result import Result
from simlab.exact.zones_3d6 import attack_outcome
from tests.support import chi_square_p

K_SIGMA = 4.5
P_MIN = 1e-4
N_ENCOUNTERS = 100_000
SEED = 20240904

HEADER = """
scenario: zs-{name}
rules: zones-3d6
max_rounds: 1
params: {params}
"""

CASES: dict[str, tuple[str, str]] = {
    # The worked example's armor; edge with a bonus; pressure on 2d6.
    "armor": (
        "{}",
        """
attacks:
  longsword: {damage: 1d6+3}
  keen: {damage: 1d6+3, edge: 1, bonus: 1}
  pressed: {damage: 2d6, pressure: 2}
sides:
  a: [{name: A, hp: 10, bonus_damage: 1, attacks: [longsword, keen, pressed]}]
  b: [{name: D, hp: 100000, base_defense: [3, 4], bonus_defense: 1}]
""",
    ),
    # Advantage, disadvantage, their cancelling, edge against pressure; an Evasion with
    # its own edge and bonus.
    "advantage": (
        "{}",
        """
attacks:
  adv: {damage: 1d8+1, advantage: 1}
  dis: {damage: 1d6, disadvantage: 1, edge: 1}
  both: {damage: 1d4+2, advantage: 2, disadvantage: 1, pressure: 3, edge: 1}
sides:
  a: [{name: A, hp: 10, attacks: [adv, dis, both]}]
  b: [{name: D, hp: 100000, evasion: 1, evasion_edge: 1, base_defense: [1]}]
""",
    ),
    # A defender with advantage and pressure on Evasion, and armor that blocks every face:
    # the minimum damage decides.
    "minimum": (
        "{}",
        """
attacks:
  plain: {damage: 1d6+1}
  strong: {damage: 2d6+3, edge: 2, bonus: 2}
  weak: {damage: 1d6-2, disadvantage: 1}
sides:
  a: [{name: A, hp: 10, attacks: [plain, strong, weak]}]
  b: [{name: D, hp: 100000, evasion_advantage: 1, evasion_pressure: 2,
       base_defense: [1, 2, 3, 4, 5, 6], bonus_defense: 2}]
""",
    ),
    # Every [default] parameter changed.
    "params": (
        """{pressure: total, advantage_dice: 2, edges_stack: false,
          edge_pressure_cancel: false, bonus_defense_floor: false, minimum_damage: 0}""",
        """
attacks:
  stacked: {damage: 1d6+2, edge: 3, pressure: 1, advantage: 1}
  pressed: {damage: 2d4, pressure: 2, disadvantage: 1}
  mixed: {damage: 1d10+1, edge: 1, pressure: 1}
sides:
  a: [{name: A, hp: 10, attacks: [stacked, pressed, mixed]}]
  b: [{name: D, hp: 100000, evasion_disadvantage: 1, evasion_edge: 2,
       bonus_defense: 3, base_defense: [2]}]
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
    checked = 0
    for k, attack in enumerate(layout.attacks):
        pair = layout.pair(0, k, 1)
        attempts = int(res.tallies.attempts[pair].sum())
        assert attempts == N_ENCOUNTERS  # one attack of each per turn, one turn
        exact = attack_outcome(scn, 0, attack, 1)
        hits = int(res.tallies.hits[pair].sum())
        sigma = np.sqrt(exact.hit_rate * (1 - exact.hit_rate) / attempts)
        assert abs(hits / attempts - exact.hit_rate) <= K_SIGMA * sigma, attack
        hist = res.tallies.damage_hist[pair]
        assert hist[len(exact.damage_pmf) :].sum() == 0, f"{attack}: impossible damage seen"
        observed = hist[: len(exact.damage_pmf)]
        assert np.all(observed[exact.damage_pmf == 0] == 0), f"{attack}: impossible damage seen"
        assert chi_square_p(observed, exact.damage_pmf) > P_MIN, attack
        checked += 1
    assert checked == 3


def test_exact_differs_between_cases() -> None:
    """Guard against a vacuous comparison: the cases' exact answers are not all alike."""
    rates = {round(attack_outcome(run(n)[0], 0, a, 1).hit_rate, 6)
             for n in CASES for a in run(n)[0].attacks}  # fmt: skip
    assert len(rates) >= 8
