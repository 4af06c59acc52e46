"""Tests of the exact engine for zones-3d6 (simlab.exact.zones_3d6).

Each exact result is checked against a brute-force enumeration written here from
docs/rules/zones-3d6.md (every die outcome listed, edges and pressures applied die by die) and
against values worked out by hand.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import simlab
from simlab.exact.engine import CHECK_Z, exact
from simlab.exact.zones_3d6 import (
    RollSpec,
    damage_pmf,
    duel_time_to_down,
    hit_probability,
    roll_pmf,
)
from simlab.rules.zones_3d6.model import Params

ROOT = Path(__file__).resolve().parents[2]
TRAINING_DUEL = ROOT / "scenarios/zones-3d6/training-duel.yaml"


def brute_roll(spec: RollSpec, params: Params) -> dict[int, Fraction]:
    """Every outcome of 3d6 (or 3 + k d6 keeping 3), adjusted one die step at a time."""
    n = 3 if spec.net_advantage == 0 else 3 + params.advantage_dice
    outcomes = list(itertools.product(range(1, 7), repeat=n))
    counts: dict[int, int] = {}
    for dice in outcomes:
        kept = sorted(dice)
        kept = kept[-3:] if spec.net_advantage > 0 else kept[:3]
        for _ in range(spec.edge):
            low = [i for i in range(3) if kept[i] < 6]
            if low:
                kept[low[0]] += 1
        total = spec.bonus
        for _ in range(spec.pressure):
            high = [i for i in range(3) if kept[i] > 1]
            if params.pressure == "total":
                total -= 1
            elif high:
                kept[high[0]] -= 1
        total += sum(kept)
        counts[total] = counts.get(total, 0) + 1
    return {t: Fraction(c, len(outcomes)) for t, c in counts.items()}


SPECS = [
    RollSpec(),
    RollSpec(edge=1, bonus=1),
    RollSpec(edge=4),
    RollSpec(pressure=2, bonus=-3),
    RollSpec(edge=2, pressure=3),
    RollSpec(net_advantage=1),
    RollSpec(net_advantage=-2, edge=1),
    RollSpec(net_advantage=3, pressure=1, bonus=2),
]
PARAMS = [Params(), Params(pressure="total", advantage_dice=2)]


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("spec", SPECS)
def test_roll_pmf_matches_enumeration(spec: RollSpec, params: Params) -> None:
    low, pmf = roll_pmf(spec, params)
    brute = brute_roll(spec, params)
    assert pytest.approx(1.0, abs=1e-12) == pmf.sum()
    for i, prob in enumerate(pmf):
        assert prob == pytest.approx(float(brute.get(low + i, 0)), abs=1e-12)
    assert set(brute) <= set(range(low, low + len(pmf)))


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize(
    ("attack", "evasion"),
    [(SPECS[0], SPECS[0]), (SPECS[1], SPECS[3]), (SPECS[5], SPECS[6]), (SPECS[7], SPECS[4])],
)
def test_hit_probability_matches_enumeration(
    attack: RollSpec, evasion: RollSpec, params: Params
) -> None:
    a, e = brute_roll(attack, params), brute_roll(evasion, params)
    expected = sum(pa * pe for ta, pa in a.items() for te, pe in e.items() if ta >= te)
    assert hit_probability(attack, evasion, params) == pytest.approx(float(expected), abs=1e-12)


def test_plain_3d6_against_3d6() -> None:
    """Ties hit: P(A ≥ E) = (1 + P(A = E)) / 2 by symmetry."""
    p_tie = sum(Fraction(c, 216) ** 2 for c in np.bincount(
        [sum(d) for d in itertools.product(range(1, 7), repeat=3)]))  # fmt: skip
    assert hit_probability(RollSpec(), RollSpec()) == pytest.approx(float((1 + p_tie) / 2))


def brute_damage(
    p_hit: Fraction,
    terms: list[tuple[int, int]],
    ignored: list[int],
    bonus: int,
    defense: int,
    params: Params,
) -> dict[int, Fraction]:
    """Damage per attack by listing every base-dice outcome (docs/rules/zones-3d6.md "Armor")."""
    dice = [sides for count, sides in terms for _ in range(count)]
    outcomes = list(itertools.product(*(range(1, s + 1) for s in dice)))
    out: dict[int, Fraction] = {0: 1 - p_hit}
    for faces in outcomes:
        base = sum(f for f in faces if f not in ignored)
        cut = min(defense, max(bonus, 0)) if params.bonus_defense_floor else defense
        dealt = max(base + bonus - cut, params.minimum_damage)
        out[dealt] = out.get(dealt, 0) + p_hit / len(outcomes)
    return out


@pytest.mark.parametrize(
    ("terms", "ignored", "bonus", "defense", "params"),
    [
        ([(1, 6)], [3, 4], 4, 1, Params()),
        ([(2, 6), (1, 4)], [1, 6], -1, 2, Params()),
        ([(1, 8)], [1, 2, 3, 4, 5, 6, 7, 8], 0, 3, Params()),
        ([(2, 4)], [2], 1, 3, Params(bonus_defense_floor=False, minimum_damage=0)),
        ([], [], 3, -2, Params(minimum_damage=2)),
    ],
)
def test_damage_pmf_matches_enumeration(
    terms: list[tuple[int, int]], ignored: list[int], bonus: int, defense: int, params: Params
) -> None:
    p_hit = Fraction(3, 7)
    pmf = damage_pmf(float(p_hit), terms, ignored, bonus, defense, params)
    brute = brute_damage(p_hit, terms, ignored, bonus, defense, params)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    for d, prob in enumerate(pmf):
        assert prob == pytest.approx(float(brute.get(d, 0)), abs=1e-12)
    assert max(brute) < len(pmf)


def test_longsword_worked_example() -> None:
    """Seed 004: 1d6 + 4 against Base Defense 3, 4 and +1 Bonus Defense, always hitting:
    faces 1, 2, 5, 6 deal 4, 5, 8, 9; faces 3, 4 deal 3."""
    pmf = damage_pmf(1.0, [(1, 6)], [3, 4], 4, 1)
    expected = np.zeros(10)
    expected[[4, 5, 8, 9]] = 1 / 6
    expected[3] = 2 / 6
    np.testing.assert_allclose(pmf, expected, atol=1e-15)


def brute_time_to_down(
    attacks: list[dict[int, Fraction]], per_turn: int, need: int, rounds: int
) -> list[Fraction]:
    """P(first down in round r), r = 0..rounds, by carrying every running damage total
    (capped at ``need``: down) attack by attack, the attacks taken in rotation."""
    dealt: dict[int, Fraction] = {0: Fraction(1)}
    down_by = [Fraction(0)]
    made = 0
    for _ in range(rounds):
        for _ in range(per_turn):
            after: dict[int, Fraction] = {}
            for total, p_total in dealt.items():
                for dmg, p_dmg in attacks[made % len(attacks)].items():
                    key = min(total + dmg, need)
                    after[key] = after.get(key, Fraction(0)) + p_total * p_dmg
            dealt = after
            made += 1
        down_by.append(dealt.get(need, Fraction(0)))
    return [Fraction(0)] + [down_by[r] - down_by[r - 1] for r in range(1, rounds + 1)]


def test_duel_time_to_down_matches_enumeration() -> None:
    """The training duel, solved by brute force from docs/rules/zones-3d6.md: each attack's hit
    chance from every 3d6 outcome of attack and Evasion (edge applied die by die), its
    damage from every base die against the mail's faces 1 and 2 and Bonus Defense 1,
    three attacks a turn alternating cut and thrust; the Pell (HP 30) is down once 31
    damage is dealt (HP below 0)."""
    scn = simlab.load(TRAINING_DUEL)
    prm = scn.params
    evasion = brute_roll(RollSpec(bonus=1), prm)

    def attack(spec: RollSpec, terms: list[tuple[int, int]], bonus: int) -> dict[int, Fraction]:
        rolled = brute_roll(spec, prm)
        p_hit = sum(pa * pe for ta, pa in rolled.items() for te, pe in evasion.items() if ta >= te)
        return brute_damage(p_hit, terms, [1, 2], bonus, 1, prm)

    cut = attack(RollSpec(), [(1, 6)], 2 + 1)
    thrust = attack(RollSpec(edge=1), [(1, 8)], 0 + 1)
    rounds = 9
    brute = brute_time_to_down([cut, thrust], 3, 31, rounds)
    pmf = duel_time_to_down(scn).capped_pmf
    assert float(sum(brute)) > 0.5  # the rounds compared hold most of the answer
    for r in range(rounds + 1):
        assert pmf[r] == pytest.approx(float(brute[r]), abs=1e-9), r


def test_duel_hp_zero_goes_down_only_below_zero() -> None:
    """An actor at exactly 0 HP still stands (seed 004): against a sure 1 damage a round
    (every base die ignored, minimum damage 1) HP 2 goes down in round 3, HP 0 in
    round 1."""
    text = """
scenario: z
rules: zones-3d6
max_rounds: 5
attacks:
  tap: {damage: 1d4, bonus: 50}
sides:
  a: [{name: A, attacks: [tap], attacks_per_turn: 1, hp: 5}]
  b: [{name: B, hp: 2, base_defense: [1, 2, 3, 4]}]
"""
    ttd = duel_time_to_down(simlab.loads(text))
    np.testing.assert_allclose(ttd.capped_pmf, [0, 0, 0, 1, 0, 0], atol=1e-15)
    ttd = duel_time_to_down(simlab.loads(text.replace("hp: 2,", "hp: 0,")))
    np.testing.assert_allclose(ttd.capped_pmf, [0, 1, 0, 0, 0, 0], atol=1e-15)


@pytest.mark.kernels
def test_simulated_duel_agrees_with_exact() -> None:
    """The simulator's round of first down, round by round, within 4.5 binomial σ of the
    exact P(first down in round r) (fixed seed: a correct simulator fails with chance
    ≲ 1e-4 over the 20 rounds); and ``simulate(check=True)`` — what ``simlab run
    --check`` prints — compares the mean time-to-down."""
    n = 20_000
    res = simlab.simulate(TRAINING_DUEL, n=n, seed=77, threads=1, check=True)
    solved = exact(TRAINING_DUEL)
    assert solved.duel is not None and solved.duel.defender == "Pell"
    hist = res.tallies.down_round[res.layout.combatants.index(("pell", "Pell"))]
    for r, p in enumerate(solved.duel.pmf):
        sigma = math.sqrt(n * p * (1 - p))
        assert abs(hist[r] - n * p) <= CHECK_Z * sigma + 1e-9, (r, hist[r], n * p)
    assert res.check is not None
    row = res.check[res.check.figure == "mean_time_to_down"]
    assert len(row) == 1 and abs(row.z.iloc[0]) < CHECK_Z
    assert row.exact.iloc[0] == pytest.approx(solved.duel.capped_moments()[1])
