"""Statistical correctness of the earlier-draft simulator against the exact engine.

Attack cases: the defender is passive and has so much Endurance and Health that it is
never Downed, and the fight lasts one Round, so every attack of a pair is an independent
draw from the distribution that
:func:`simlab.exact.shattered_spirits_draft1.attack_outcome` computes by enumeration.
Duel cases: a passive defender that is Downed in a few Rounds, compared with
:func:`~simlab.exact.shattered_spirits_draft1.duel_time_to_down` and
:func:`~simlab.exact.shattered_spirits_draft1.duel_time_to_shaken`.

False alarms. The seeds are fixed, so each test always passes or always fails; the
thresholds bound the chance that a seed is unlucky for a correct simulator. Rates are
compared within k = 4.5 standard errors, σ = sqrt(p(1 − p)/n): P(|z| > 4.5) ≈ 6.8e-6 per
comparison. Distributions use a chi-square test (cells expecting fewer than 5 merged) at
p > 1e-4. With about 40 comparisons the family-wise false-alarm rate is ≲ 4e-3.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.analysis.result import Result
from simlab.exact.shattered_spirits_draft1 import (
    attack_outcome,
    duel_time_to_down,
    duel_time_to_shaken,
)
from tests.support import chi_square_p

K_SIGMA = 4.5
P_MIN = 1e-4
N_ENCOUNTERS = 60_000
SEED = 20240905

HEADER = """
scenario: d1s-{name}
rules: shattered-spirits-draft1
max_rounds: {rounds}
params: {params}
"""

ATTACK_CASES: dict[str, tuple[str, str]] = {
    # Overflow (+2 on rolls above 12), crits, Advantage; a fumbling Technique; Guard,
    # Exposed and Glancing in the earlier draft's order.
    "extremes": (
        "{}",
        """
techniques:
  high: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], modifier: 3, tier: {11: crit, 12: crit},
         ap: 1, speed: 1}
  lucky: {profile: [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6], advantage: 2, modifier: 1, ap: 1,
          speed: 2}
  clumsy: {profile: [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6], disadvantage: 1, modifier: -2,
           glancing: true, ap: 1, speed: 3}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [high, lucky, clumsy]}]
  b: [{name: D, endurance: 100000, health: 100000, guard: 2, exposed: 1}]
""",
    ),
    # Cover (Glancing, or more Guard when already Glancing); Advantage with Disadvantage;
    # the attacker's Impaired and roll modifier; a Shaken attacker (no Endurance).
    "cover": (
        "{shaken_roll_modifier: -1}",
        """
techniques:
  both: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], advantage: 1, disadvantage: 1,
         damage_modifier: 2, ap: 1, speed: 1}
  graze: {profile: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], glancing: true, ap: 1, speed: 1}
  heavy: {profile: [0, 0, 0, 3, 4, 6, 7, 9, 10, 12, 14], tier: {12: crit}, ap: 1, speed: 4}
sides:
  a: [{name: A, endurance: 0, health: 10, impaired: 1, roll_modifier: 2,
       plan: [both, graze, heavy]}]
  b: [{name: D, endurance: 100000, health: 100000, guard: 1, cover: true, exposed: 2}]
""",
    ),
    # Every damage parameter changed, and both of a roll's advantages kept as Disadvantage.
    "params": (
        """{advantage_with_disadvantage: disadvantage, overflow_damage: 4, exposed_per_level: 2,
          impaired_per_level: 3, glancing_divisor: 3, cover_guard: 3}""",
        """
techniques:
  mixed: {profile: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], advantage: 1, disadvantage: 1,
          modifier: 4, ap: 1, speed: 1}
  slice: {profile: [2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 12], glancing: true, modifier: 2, ap: 1,
          speed: 2}
  dull: {profile: [0, 0, 0, 0, 0, 2, 3, 4, 6, 8, 10], damage_modifier: 5, ap: 1, speed: 2}
sides:
  a: [{name: A, endurance: 5, health: 10, impaired: 1, plan: [mixed, slice, dull]}]
  b: [{name: D, endurance: 100000, health: 100000, guard: 2, cover: true, exposed: 1}]
""",
    ),
}

DUEL_CASES: dict[str, tuple[str, str]] = {
    "plain": (
        "{}",
        """
techniques:
  strike: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], modifier: 1, ap: 2, speed: 4}
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5], disadvantage: 1, modifier: -1, ap: 1,
        speed: 1}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [strike, jab]}]
  b: [{name: D, vigor: 3, endurance: 12, health: 15, guard: 1}]
""",
    ),
    "glancing": (
        "{glancing_divisor: 2}",
        """
techniques:
  sweep: {profile: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12], advantage: 1, ap: 3, speed: 2}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [sweep]}]
  b: [{name: D, endurance: 9, health: 20, cover: true, exposed: 1}]
""",
    ),
}


@functools.cache
def run(kind: str, name: str) -> tuple[Any, Result]:
    """Simulate a case once per session."""
    cases = ATTACK_CASES if kind == "attack" else DUEL_CASES
    params, body = cases[name]
    rounds = 1 if kind == "attack" else 30
    text = HEADER.format(name=name, rounds=rounds, params=params) + body
    scn = simlab.loads(text, f"{name}.yaml")
    return scn, simlab.simulate(scn, n=N_ENCOUNTERS, seed=SEED, threads=2)


@pytest.mark.parametrize("name", list(ATTACK_CASES))
@pytest.mark.kernels
def test_attacks_match_exact(name: str) -> None:
    scn, res = run("attack", name)
    layout = res.layout
    for k, technique in enumerate(layout.attacks):
        pair = layout.pair(0, k, 1)
        attempts = int(res.tallies.attempts[pair].sum())
        assert attempts == N_ENCOUNTERS  # each Technique once per Round, one Round
        exact = attack_outcome(scn, 0, technique, 1)
        for tally, rate in ((res.tallies.hits, exact.hit_rate),
                            (res.tallies.crits, exact.crit_rate)):  # fmt: skip
            observed = int(tally[pair].sum()) / attempts
            sigma = np.sqrt(rate * (1 - rate) / attempts)
            assert abs(observed - rate) <= K_SIGMA * sigma + 1e-12, (technique, observed, rate)
        hist = res.tallies.damage_hist[pair]
        pmf = exact.damage_pmf
        assert hist[len(pmf) :].sum() == 0, f"{technique}: impossible damage seen"
        observed = hist[: len(pmf)]
        assert np.all(observed[pmf == 0] == 0), f"{technique}: impossible damage seen"
        assert chi_square_p(observed, pmf) > P_MIN, technique


def test_the_attack_cases_reach_the_extreme_rolls() -> None:
    """Guard against a vacuous comparison: overflow and fumbles are likely in the cases,
    and the exact answers differ."""
    scn, _ = run("attack", "extremes")
    assert attack_outcome(scn, 0, "high", 1).overflow_rate == pytest.approx(6 / 36)  # 2d6 ≥ 10
    assert attack_outcome(scn, 0, "clumsy", 1).fumble_rate > 0.05
    rates = {round(attack_outcome(run("attack", n)[0], 0, t, 1).mean_damage, 6)
             for n in ATTACK_CASES for t in run("attack", n)[0].techniques}  # fmt: skip
    assert len(rates) == 9


@pytest.mark.parametrize("name", list(DUEL_CASES))
@pytest.mark.kernels
def test_duel_time_to_down_and_shaken_match_exact(name: str) -> None:
    scn, res = run("duel", name)
    cap = scn.max_rounds
    events = res.layout.events
    for observed, exact in (
        (res.tallies.down_round[1], duel_time_to_down(scn)),
        (res.tallies.event_round[1, events.index("downed")], duel_time_to_down(scn)),
        (res.tallies.event_round[1, events.index("shaken")], duel_time_to_shaken(scn)),
    ):
        pmf = exact.capped_pmf
        assert exact.censored < 1e-9 and observed[cap:].sum() == 0
        assert observed.sum() == N_ENCOUNTERS
        assert np.all(observed[: cap + 1][pmf == 0] == 0)
        assert chi_square_p(observed[: cap + 1], pmf) > P_MIN, name
        mean = float(np.dot(np.arange(cap + 1), observed[: cap + 1])) / N_ENCOUNTERS
        assert abs(mean - exact.mean) <= K_SIGMA * np.sqrt(exact.variance / N_ENCOUNTERS)
