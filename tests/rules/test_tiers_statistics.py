"""Statistical correctness of the opposed-tiers simulator against the exact engine.

Each case is a small scenario whose attacks are i.i.d.: the defender has so much Health
that it never falls, makes no attacks, and the fight lasts one round, so every attack of
a pair is an independent draw from the distribution that
:func:`simlab.exact.opposed_tiers.attack_outcome` computes from the exact dice
distributions. The simulated hit rate, crit rate and damage distribution of every pair
are compared with it.

False alarms. The seed is fixed, so each test always passes or always fails; the
thresholds bound the chance that the seed is unlucky for a correct simulator. Rates are
compared within k = 4.5 standard errors, σ = sqrt(p(1 − p)/attempts), with 100,000
attempts per pair: P(|z| > 4.5) ≈ 6.8e-6 per comparison. The damage distribution uses
a chi-square test (cells with expected count < 5 merged) at p > 1e-4. About 36
comparisons make the family-wise false-alarm rate ≲ 4e-3. A bug of one percentage
point in a rate of 0.4 gives z ≈ 6.5 at this sample size.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.analysis.result import Result
from simlab.exact.opposed_tiers import attack_outcome
from tests.support import chi_square_p, within

P_MIN = 1e-4
N_ENCOUNTERS = 100_000
SEED = 20240905

HEADER = """
scenario: ts-{name}
rules: opposed-tiers
max_rounds: 1
params: {params}
"""

CASES: dict[str, tuple[str, str]] = {
    # Novice against Novice, the text's own values: ties to the defender, crits into
    # the Journeyman's 3d6, special weapons.
    "plain": (
        "{}",
        """
attacks:
  sword: {}
  axe: {modifier: 1, damage_modifier: 2}
  jab: {modifier: -2, damage_modifier: -3}
sides:
  a: [{name: A, hp: 10, weapon_sl: 1, form_sl: 1, attacks: [sword, axe, jab],
       attacks_per_turn: 3}]
  b: [{name: D, hp: 100000, defense_sl: 1}]
""",
    ),
    # The same against a Light Shield and Light Armor: the armor floor matters.
    "gear": (
        "{}",
        """
attacks:
  sword: {}
  axe: {modifier: 1, damage_modifier: 2}
  jab: {modifier: -2, damage_modifier: -3}
sides:
  a: [{name: A, hp: 10, weapon_sl: 1, form_sl: 1, attacks: [sword, axe, jab],
       attacks_per_turn: 3}]
  b: [{name: D, hp: 100000, defense_sl: 1, shield: light, armor: light}]
""",
    ),
    # Higher tiers, an amended table with keep-highest dice, a top-tier critical with
    # an extra die, crits read from the form skill, a damage floor of 1.
    "tiers": (
        "{critical_tier: form, top_tier_critical: extra_die, damage_floor: 1}",
        """
tiers:
  - {name: adept, attack: 4d6kh3, shield: {heavy: 1d10+1}}
attacks:
  spear: {modifier: 2}
  maul: {damage_modifier: 4}
  dart: {modifier: -1, damage_modifier: -2}
sides:
  a: [{name: A, hp: 10, tier: adept, form_tier: master, weapon_sl: 2, form_sl: 1,
       attacks: [spear, maul, dart], attacks_per_turn: 3}]
  b: [{name: D, hp: 100000, tier: novice, defense_sl: -1, shield: heavy, shield_tier: adept,
       armor: medium, armor_tier: journeyman}]
""",
    ),
    # A Master against a clumsy Novice: criticals are common.
    "crits": (
        "{}",
        """
attacks:
  blade: {}
  hook: {modifier: 3, damage_modifier: -1}
  flail: {modifier: -4, damage_modifier: 3}
sides:
  a: [{name: A, hp: 10, tier: master, weapon_tier: adept, attacks: [blade, hook, flail],
       attacks_per_turn: 3}]
  b: [{name: D, hp: 100000, defense_sl: -2, armor: heavy}]
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
    for k, attack in enumerate(layout.attacks):
        pair = layout.pair(0, k, 1)
        attempts = int(res.tallies.attempts[pair].sum())
        assert attempts == N_ENCOUNTERS  # one attack of each per turn, one turn
        exact = attack_outcome(scn, 0, attack, 1)
        assert within(int(res.tallies.hits[pair].sum()), attempts, exact.hit_rate), attack
        assert within(int(res.tallies.crits[pair].sum()), attempts, exact.crit_rate), attack
        hist = res.tallies.damage_hist[pair]
        pmf = exact.damage_pmf
        assert hist[len(pmf) :].sum() == 0, f"{attack}: impossible damage seen"
        observed = hist[: len(pmf)]
        assert np.all(observed[pmf == 0] == 0), f"{attack}: impossible damage seen"
        assert chi_square_p(observed, pmf) > P_MIN, attack


def test_exact_differs_between_cases() -> None:
    """Guard against a vacuous comparison: the cases' exact answers are not all alike,
    and criticals are frequent enough to be tested."""
    outcomes = [attack_outcome(run(n)[0], 0, a, 1) for n in CASES for a in run(n)[0].attacks]
    assert len({round(o.hit_rate, 6) for o in outcomes}) >= 10
    assert sum(o.crit_rate > 0.05 for o in outcomes) >= 6
