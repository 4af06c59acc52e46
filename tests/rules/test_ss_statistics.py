"""Statistical correctness of the shattered-spirits simulator against the exact engine.

Each case is a small scenario whose attacks are i.i.d.: the defender has so much HP that
it is never Downed, no hit row inflicts Exposed or Stun, no reaction can fire and the
fight lasts one round, so every attack of a pair is an independent draw from the
distribution that :func:`simlab.exact.shattered_spirits.attack_outcome` computes. The
simulated hit rate, crit rate, mean damage and damage distribution are compared with it.

False alarms. The seeds are fixed, so each test always passes or always fails; the
thresholds bound the chance that the chosen seeds are unlucky for a correct simulator.
A rate is compared within k = 4.5 standard errors, σ = sqrt(p(1 − p)/attempts): by the
normal approximation (each pair has ≥ 100,000 attempts and p·attempts ≫ 100 for every
p not exactly 0 or 1), P(|z| > 4.5) ≈ 6.8e-6 per comparison. The cases below make about
60 pairs × 3 such comparisons (hit, crit, mean damage), so the family-wise false-alarm
rate is ≲ 180 × 6.8e-6 ≈ 1.2e-3. The chi-square tests use p > 1e-4 each, about 60 of
them: ≲ 6e-3 together. A real bug of one percentage point in a rate gives z ≈ 7 at these
sample sizes, far outside the band.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.analysis.result import Result
from simlab.exact.shattered_spirits import attack_outcome, duel_time_to_down
from tests.support import chi_square_p

K_SIGMA = 4.5
P_MIN = 1e-4
N_ATTACKS = 100_000
SEED = 20240611
DUEL = Path(__file__).resolve().parents[2] / "scenarios" / "benchmarks" / "ss-duel.yaml"

HEADER = """
scenario: {name}
rules: shattered-spirits
max_rounds: 1
params: {params}
"""

# Profiles used by several cases: explicit tiers with crit rows, zero-damage hit rows, a
# damaging row marked miss, and one profile relying only on the default tiers.
PROFILES = """
  plain: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]}
  tiered:
    profile: [0, 1, 2, 2, 3, 3, 4, 4, 5, 6, 9]
    tier: {3: miss, 4: hit, 11: crit, 12: crit}
    status: {2: [staggered], 10: [impaired 1]}
  spiky: {profile: [9, 0, 0, 1, 1, 1, 2, 2, 3, 12, 20], tier: {2: crit, 12: crit}}
  flat: {profile: [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3], tier: {7: miss, 12: crit}}
"""

CASES: dict[str, str] = {
    # Several profiles against an unprotected defender.
    "profiles": """
attacks:
{profiles}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 4, attacks: [plain, tiered, spiky, flat]}}]
  b: [{{name: D, hp: 100000}}]
""",
    # Advantage 1/2/3, Disadvantage 1/2, cancelling pairs.
    "advantage": """
attacks:
  adv1: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], advantage: 1, tier: {{12: crit}}}}
  adv2: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], advantage: 2, tier: {{12: crit}}}}
  adv3: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], advantage: 3, tier: {{12: crit}}}}
  dis1: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], disadvantage: 1, tier: {{12: crit}}}}
  dis2: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], disadvantage: 2, tier: {{2: crit}}}}
  even: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], advantage: 2, disadvantage: 2,
          tier: {{12: crit}}}}
  net2: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], advantage: 3, disadvantage: 1,
          tier: {{12: crit}}}}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 7,
        attacks: [adv1, adv2, adv3, dis1, dis2, even, net2]}}]
  b: [{{name: D, hp: 100000, guard: 1}}]
""",
    # Bonus/Penalty of size 2.
    "bonus-size": """
attacks:
  up: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], advantage: 3, tier: {{12: crit}}}}
  down: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], disadvantage: 3}}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 2, attacks: [up, down]}}]
  b: [{{name: D, hp: 100000}}]
""",
    # Extreme roll modifiers: row 12 or misses dominate; the attacker's own modifier adds.
    "extremes": """
attacks:
  high: {{profile: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15], modifier: 8, tier: {{12: crit}}}}
  low: {{profile: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15], modifier: -8, tier: {{2: crit}}}}
  lowadv: {{profile: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15], modifier: -9, advantage: 2}}
  highdis: {{profile: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15], modifier: 7, disadvantage: 2,
            tier: {{12: crit}}}}
sides:
  a: [{{name: A, hp: 10, roll_modifier: 1, attacks_per_turn: 4,
        attacks: [high, low, lowadv, highdis]}}]
  b: [{{name: D, hp: 100000}}]
""",
    # Guard, Exposed on the target, Impaired on the attacker, damage modifiers.
    "guard-exposed-impaired": """
attacks:
{profiles}
  boosted: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], damage_modifier: 2}}
  weak: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], damage_modifier: -3}}
sides:
  a: [{{name: A, hp: 10, impaired: 1, attacks_per_turn: 6,
        attacks: [plain, tiered, spiky, flat, boosted, weak]}}]
  b: [{{name: D, hp: 100000, guard: 2, exposed: 2}}]
""",
    # Cover on a Guarded defender: Glancing, or +cover_guard when already Glancing.
    "cover": """
attacks:
{profiles}
  graze: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], glancing: true, tier: {{12: crit}}}}
  graze2: {{profile: [2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 21], glancing: true, advantage: 1}}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 6,
        attacks: [plain, tiered, spiky, flat, graze, graze2]}}]
  b: [{{name: D, hp: 100000, guard: 1, cover: true}}]
""",
    # Glancing divisor 3, Cover Guard 3, Exposed and Guard together.
    "divisor": """
attacks:
{profiles}
  graze: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], glancing: true, damage_modifier: 1}}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 5, attacks: [plain, tiered, spiky, flat, graze]}}]
  b: [{{name: D, hp: 100000, guard: 1, exposed: 1, cover: true}}]
""",
    # Guard read as a threshold (guard_mode): hits of at most 3 stopped, larger ones whole;
    # Exposed and a Glancing attack on top.
    "guard-threshold": """
attacks:
{profiles}
  graze: {{profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], glancing: true, damage_modifier: 1}}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 5, attacks: [plain, tiered, spiky, flat, graze]}}]
  b: [{{name: D, hp: 100000, guard: 3, exposed: 1}}]
""",
    # Reactions that cannot fire (no tokens, its Reflex spent by an override as a file
    # must give it one: OVERRIDES; threshold out of reach) leave attacks alone.
    "idle-reactions": """
attacks:
{profiles}
sides:
  a: [{{name: A, hp: 10, attacks_per_turn: 4, attacks: [plain, tiered, spiky, flat]}}]
  b: [{{name: D, hp: 100000, tokens: {{grit: 3, reflex: 1}},
        react: {{block: {{when_damage_at_least: 30}}, evade: {{when_damage_at_least: 1}}}}}}]
""",
}
#: Overrides a case is run with.
OVERRIDES = {"idle-reactions": {"D.tokens.reflex": 0}}
PARAMS = {
    "bonus-size": "{bonus_size: 2}",
    "guard-exposed-impaired": "{exposed_per_level: 2, impaired_per_level: 2}",
    "cover": "{cover_guard: 1}",
    "divisor": "{glancing_divisor: 3, cover_guard: 3}",
    "guard-threshold": "{guard_mode: threshold}",
}


def scenario_text(name: str) -> str:
    head = HEADER.format(name=name, params=PARAMS.get(name, "{}"))
    return head + CASES[name].format(profiles=PROFILES.rstrip("\n"))


def run(name: str) -> tuple[Any, Result]:
    scenario = simlab.loads(scenario_text(name))
    if name in OVERRIDES:
        scenario = scenario.with_(OVERRIDES[name])
    return scenario, simlab.simulate(scenario, n=N_ATTACKS, seed=SEED)


def assert_rate(k: int, attempts: int, p: float, what: str) -> None:
    if p in (0.0, 1.0):
        assert k == p * attempts, f"{what}: {k}/{attempts}, exact {p}"
        return
    sigma = np.sqrt(p * (1 - p) / attempts)
    z = (k / attempts - p) / sigma
    assert abs(z) < K_SIGMA, f"{what}: {k / attempts:.5f} vs exact {p:.5f} (z = {z:.2f})"


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_attacks_match_exact(name: str) -> None:
    scenario, res = run(name)
    layout = res.layout
    hits = res.hit_rates()
    means = res.damage()
    t = res.tallies
    checked = 0
    for a, (_, attacker) in enumerate(layout.combatants):
        for d, (_, defender) in enumerate(layout.combatants):
            for k, attack in enumerate(layout.attacks):
                pair = layout.pair(a, k, d)
                attempts = int(t.attempts[pair].sum())
                if attempts == 0:
                    continue
                what = f"{name}: {attacker} {attack} -> {defender}"
                exact = attack_outcome(scenario, a, attack, d)  # type: ignore[arg-type]
                assert attempts == N_ATTACKS, what
                row = hits[(hits.attack == attack) & (hits.defender == defender)].iloc[0]
                assert_rate(int(row.hits), attempts, exact.hit_rate, what + " hit rate")
                assert_rate(int(row.crits), attempts, exact.crit_rate, what + " crit rate")
                # Mean damage within K_SIGMA standard errors of the exact mean.
                values = np.arange(len(exact.damage_pmf))
                var = float(np.dot((values - exact.mean_damage) ** 2, exact.damage_pmf))
                same = (means.attack == attack) & (means.defender == defender)
                mean = float(means[same].mean_damage.iloc[0])
                if var == 0:
                    assert mean == exact.mean_damage, what
                else:
                    z = (mean - exact.mean_damage) / np.sqrt(var / attempts)
                    assert abs(z) < K_SIGMA, f"{what} mean damage {mean} (z = {z:.2f})"
                # Damage distribution: impossible damages never occur; chi-square on the rest.
                hist = t.damage_hist[pair].astype(float)
                assert len(exact.damage_pmf) < len(hist), what
                assert hist[len(exact.damage_pmf) :].sum() == 0, what + " damage out of reach"
                observed = hist[: len(exact.damage_pmf)]
                assert observed[exact.damage_pmf == 0].sum() == 0, what + " impossible damage"
                p = chi_square_p(observed, exact.damage_pmf)
                assert p > P_MIN, f"{what} damage pmf: chi-square p = {p:.2e}"
                checked += 1
    assert checked == len(scenario.sides["a"][0].attacks)  # type: ignore[attr-defined]


ROTATION = """
scenario: rotation
rules: shattered-spirits
max_rounds: 60
seed: 5
attacks:
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 6]}
  hook: {profile: [0, 0, 0, 2, 3, 4, 5, 6, 7, 8, 9], disadvantage: 1, tier: {12: crit}}
  kick: {profile: [0, 1, 1, 1, 1, 5, 5, 5, 5, 5, 5], glancing: true, modifier: 1}
sides:
  a:
    - {name: A, hp: 10, attacks: [jab, hook, kick], attacks_per_turn: 2}
  b:
    - {name: D, hp: 30, vigor: 9, guard: 1}
"""


@pytest.mark.parametrize(
    ("source", "n"),
    [("ss-duel", 200_000), ("rotation", 100_000)],
)
@pytest.mark.kernels
def test_time_to_down_matches_exact(source: str, n: int) -> None:
    scenario = simlab.load(DUEL) if source == "ss-duel" else simlab.loads(ROTATION)
    exact = duel_time_to_down(scenario)  # type: ignore[arg-type]
    if source == "ss-duel":
        assert exact.mean == pytest.approx(10.16650, abs=5e-6)
    res = simlab.simulate(scenario, n=n, seed=SEED)
    defender = 1
    downs = res.tallies.down_round[defender].astype(float)
    censored = float(res.tallies.censor_round[defender].sum())
    expected = exact.capped_pmf
    assert downs.sum() + censored == n
    assert downs[expected == 0].sum() == 0, "downed in an impossible round"
    # Mean round of down, within K_SIGMA standard errors (the censored mass is < 1e-12).
    assert exact.censored < 1e-12
    rounds = np.arange(len(downs))
    mean = float(np.dot(rounds, downs) / downs.sum())
    sigma = np.sqrt(exact.variance / n)
    z = (mean - exact.mean) / sigma
    assert abs(z) < K_SIGMA, f"{source}: mean round {mean:.4f} vs {exact.mean:.5f} (z={z:.2f})"
    # Down-round PMF, censored encounters as one more cell.
    observed = np.append(downs, censored)
    prob = np.append(expected, exact.censored)
    p = chi_square_p(observed, prob)
    assert p > P_MIN, f"{source}: down-round pmf chi-square p = {p:.2e}"
