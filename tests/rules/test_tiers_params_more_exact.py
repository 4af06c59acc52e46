"""opposed-tiers: ``critical_tier``, ``top_tier_critical`` and ``damage_floor`` at both
values, against an exact chain of a passive defender's Down round (``simlab.exact``
solves these duels too, but from the same engine's reading; this chain is written from
the rules text, sharing nothing with the kernels or ``simlab.exact``).

docs/rules/opposed-tiers.md, "The tier table" (the built-in one: attack, defense and
damage dice one more d6 per tier from the Novice's 2d6, Novice to Master; heavy armor at
Master 2d8). "An attack": attack total = the weapon tier's attack dice + ``weapon_sl``
against the defense tier's dice + ``defense_sl``; a hit on a greater total, a critical
when the hit's total is at least twice the defense. A hit rolls the combat form's damage
dice; a critical the damage dice of the tier after the weapon skill's tier
(``critical_tier: weapon``) or after the combat form's (``form``), and at the top tier
its own (``top_tier_critical: own``) or one more die of them (``extra_die``: 5d6 →
6d6); + ``form_sl`` + the weapon's ``damage_modifier``; minus the armor's dice, never
below ``damage_floor``. "Health and conditions": the NPC defender falls, and is out, at
Health ≤ 0 (its Down round). "Parameters": one attack a turn.

The attacker S attacks the passive D once a round; D's Down round is the attack at which
S's running damage first reaches D's Health (:func:`tests.chains.attacks_to_reach`).
Three duels, each at both values of its parameter:

* ``critical``: S a Novice with ``weapon_sl: 4`` and an Adept combat form (4d6), against
  a Novice D (Health 12): its criticals roll the Journeyman's 3d6 (``weapon``) or the
  Master's 5d6 (``form``).
* ``top``: S a Master (5d6 against D's Novice 2d6 defense, so most hits are criticals),
  against D (Health 21): its criticals roll 5d6 (``own``) or 6d6 (``extra_die``).
* ``floor``: Novices, D (Health 4) in heavy armor at Master (2d8), which stops most of
  S's 2d6: a hit deals at least 0 (``damage_floor: 0``) or 2.

False alarms. Fixed seed, so each test always passes or always fails. D's Down-round
histogram, with its never cell, by chi-square (cells expecting fewer than 5 merged) at
p > 1e-4: 6 comparisons, family-wise false-alarm rate ≲ 6e-4. The guard: each
parameter's other value moves D's mean Down round by more than 0.2 rounds, where its
standard error is below 0.04 (N = 40,000).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import (
    assert_rounds_match,
    attacks_to_reach,
    dice_pmf,
    down_rounds,
    mean_round,
    mixture,
    shifted,
)

N = 40_000
SEED = 3917
ROUNDS = 30

SCENARIO = """
scenario: tpm-{name}
rules: opposed-tiers
max_rounds: {rounds}
params: {params}
attacks: {{blade: {{}}}}
sides:
  a: [{{name: S, hp: 10, attacks: [blade], {s}}}]
  b: [{{name: D, hp: {hp}, {d}}}]
"""

ADEPT_FORM = "weapon_sl: 4, form_tier: adept"

#: case → (params, S's fields, D's fields, D's Health)
CASES: dict[str, tuple[str, str, str, int]] = {
    "critical-weapon": ("{critical_tier: weapon}", ADEPT_FORM, "tier: novice", 12),
    "critical-form": ("{critical_tier: form}", ADEPT_FORM, "tier: novice", 12),
    "top-own": ("{top_tier_critical: own}", "tier: master", "tier: novice", 21),
    "top-extra": ("{top_tier_critical: extra_die}", "tier: master", "tier: novice", 21),
    "floor-0": ("{damage_floor: 0}", "tier: novice", "armor: heavy, armor_tier: master", 4),
    "floor-2": ("{damage_floor: 2}", "tier: novice", "armor: heavy, armor_tier: master", 4),
}  # fmt: skip

#: tier → the number of d6 of its attack, defense and damage dice (the built-in table)
D6 = {"novice": 2, "journeyman": 3, "adept": 4, "master": 5}


def attack(atk: np.ndarray, dfn: np.ndarray, normal: np.ndarray, crit: np.ndarray,
           armor: np.ndarray, floor: int) -> np.ndarray:  # fmt: skip
    """One attack's damage: attack total ~ ``atk`` against defense total ~ ``dfn`` (pmfs
    of totals from 0); a hit on a greater total rolls ``normal``, a critical (attack ≥
    2 × defense) ``crit``; minus the armor's roll, at least ``floor``."""
    p_hit = p_crit = 0.0
    for a, pa in enumerate(atk):
        for b, pb in enumerate(dfn):
            if pa * pb and a > b:
                p_hit += pa * pb
                p_crit += pa * pb * (a >= 2 * b)

    def after_armor(damage: np.ndarray) -> np.ndarray:
        out = np.zeros(len(damage) + floor)
        for value, p in enumerate(damage):
            for soak, q in enumerate(armor):
                out[max(value - soak, floor)] += p * q
        return out

    return mixture([(1 - p_hit, np.ones(1)), (p_hit - p_crit, after_armor(normal)),
                    (p_crit, after_armor(crit))])  # fmt: skip


def d6(tier: str) -> np.ndarray:
    """The pmf of a tier's attack, defense or damage roll (its d6s)."""
    return dice_pmf(D6[tier], 6)


def case_attack(name: str) -> np.ndarray:
    """S's attack on D in case ``name``."""
    none = np.ones(1)  # no armor
    if name.startswith("critical"):
        crit = d6("journeyman" if name == "critical-weapon" else "master")
        return attack(shifted(d6("novice"), 4), d6("novice"), d6("adept"), crit, none, 0)
    if name.startswith("top"):
        crit = dice_pmf(5 if name == "top-own" else 6, 6)  # Master is the top tier
        return attack(d6("master"), d6("novice"), d6("master"), crit, none, 0)
    floor = int(name.split("-")[1])
    # a Novice's critical: the Journeyman's 3d6; Master heavy armor: 2d8
    return attack(d6("novice"), d6("novice"), d6("novice"), d6("journeyman"),
                  dice_pmf(2, 8), floor)  # fmt: skip


@functools.cache
def chain(name: str) -> np.ndarray:
    """P(D falls in round r), r = 0..ROUNDS: one attack a round."""
    return attacks_to_reach(CASES[name][3], [case_attack(name)], ROUNDS)


def text(name: str) -> str:
    params, s, d, hp = CASES[name]
    return SCENARIO.format(name=name, rounds=ROUNDS, params=params, s=s, d=d, hp=hp)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_params_match_the_chain(name: str) -> None:
    """D's Down round matches the chain; S is never touched."""
    res = simlab.simulate(simlab.loads(text(name), f"{name}.yaml"), n=N, seed=SEED, threads=1)
    assert_rounds_match(N, down_rounds(res, "D"), chain(name), name)
    assert down_rounds(res, "S").sum() == 0


def test_tiers_params_are_not_trivial() -> None:
    """Guard: D falls in nearly every duel, and each parameter's other value moves its
    mean Down round by more than 0.2 rounds."""
    for this, that in (("critical-weapon", "critical-form"), ("top-own", "top-extra"),
                       ("floor-0", "floor-2")):  # fmt: skip
        a, b = chain(this), chain(that)
        assert a.sum() > 0.95 and b.sum() > 0.95, (this, a.sum(), b.sum())
        assert abs(mean_round(a) - mean_round(b)) > 0.2, (this, mean_round(a), mean_round(b))
