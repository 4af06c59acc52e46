"""Tests of the exact engine for opposed-tiers (simlab.exact.opposed_tiers).

Each exact result is checked against a brute-force enumeration written here from
docs/rules/opposed-tiers.md — every face of every die listed, in exact fractions — and against
values worked out by hand.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import simlab
from simlab.dice import parse_dice
from simlab.errors import ExactUnsupported
from simlab.exact.opposed_tiers import (
    attack_outcome,
    damage_pmf,
    duel_time_to_down,
    fight_caveats,
    hit_and_critical,
    total_pmf,
)
from tests.chains import assert_rounds_match


def brute_totals(texts: list[str], bonus: int = 0) -> dict[int, Fraction]:
    """Distribution of the sum of dice expressions by listing every face of every die
    (keep-highest/lowest applied to the listed faces)."""
    dice = [parse_dice(t) for t in texts]
    groups = [(term, d) for d in dice for term in d.terms]
    axes = [range(1, term.sides + 1) for term, _ in groups for _ in range(term.count)]
    constant = sum(d.constant for d in dice) + bonus
    counts: Counter[int] = Counter()
    for faces in itertools.product(*axes):
        total, i = constant, 0
        for term, _ in groups:
            chunk = sorted(faces[i : i + term.count], reverse=term.keep == "high")
            i += term.count
            kept = chunk[: term.keep_n] if term.keep != "all" else chunk
            total += term.sign * sum(kept)
        counts[total] += 1
    n = sum(counts.values())
    return {t: Fraction(c, n) for t, c in counts.items()}


def as_pmf(brute: dict[int, Fraction]) -> tuple[int, np.ndarray]:
    low, high = min(brute), max(brute)
    return low, np.array([float(brute.get(v, 0)) for v in range(low, high + 1)])


@pytest.mark.parametrize(
    ("texts", "bonus"),
    [(["2d6"], 1), (["3d6kh2+2"], 0), (["2d6", "1d4"], -1), (["2d8", "1d3"], 2), ([], 5)],
)
def test_total_pmf_matches_enumeration(texts: list[str], bonus: int) -> None:
    low, pmf = total_pmf([parse_dice(t) for t in texts], bonus)
    brute = brute_totals(texts, bonus)
    assert low == min(brute)
    np.testing.assert_allclose(pmf, as_pmf(brute)[1], atol=1e-14)


CONTESTS = [
    (["2d6"], 1, ["2d6"], 1),  # the text's Novice against Novice
    (["2d6"], 0, ["2d6", "1d4"], 0),  # a Light Shield
    (["3d6"], 2, ["2d6", "1d8"], -1),
    (["4d6kh3"], -1, ["2d8"], 3),
    (["1d6"], 0, ["1d4"], -3),  # defense can be 0 or below
    (["1d4"], -6, ["2d4"], -7),  # and the attack too
]


@pytest.mark.parametrize(("attack", "a_bonus", "defense", "d_bonus"), CONTESTS)
def test_hit_and_critical_match_enumeration(
    attack: list[str], a_bonus: int, defense: list[str], d_bonus: int
) -> None:
    a = brute_totals(attack, a_bonus)
    d = brute_totals(defense, d_bonus)
    hit = sum(pa * pd for x, pa in a.items() for y, pd in d.items() if x > y)
    crit = sum(pa * pd for x, pa in a.items() for y, pd in d.items() if x > y and x >= 2 * y)
    got = hit_and_critical(as_pmf(a), as_pmf(d))
    assert got == pytest.approx((float(hit), float(crit)), abs=1e-13)


def test_hit_and_critical_of_large_dice_in_memory_of_their_lengths() -> None:
    """The joint table of attack and defense totals asked for 149 GiB with 100d1000
    against 100d1000 + a 100d1000 shield (an internal error); 5d1000 against 5d1000
    took 200 MB. The sums over the attack total need memory of the lengths only."""
    import tracemalloc

    total = total_pmf([parse_dice("5d1000")], 0)
    tracemalloc.start()
    p_hit, p_crit = hit_and_critical(total, total)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5_000_000, f"{peak:,} bytes"
    ties = float(np.dot(total[1], total[1]))
    assert p_hit == pytest.approx((1 - ties) / 2, abs=1e-12)  # the same dice: symmetric
    assert 0 < p_crit < p_hit


def test_novice_against_novice_by_hand() -> None:
    """2d6+1 against 2d6+1: ties (146/1296) go to the defender, the rest splits evenly."""
    p_hit, _ = hit_and_critical(
        total_pmf([parse_dice("2d6")], 1), total_pmf([parse_dice("2d6")], 1)
    )
    assert p_hit == pytest.approx((1 - Fraction(146, 1296)) / 2, abs=1e-15)
    assert float((1 - Fraction(146, 1296)) / 2) == pytest.approx(575 / 1296)


def test_undefended_attack_never_crits() -> None:
    p_hit, p_crit = hit_and_critical(total_pmf([parse_dice("1d4")], -2), None)
    assert (p_hit, p_crit) == (pytest.approx(0.5), 0.0)  # 1d4 − 2 > 0 on 3 and 4


def brute_damage(
    p_hit: Fraction, p_crit: Fraction, damage: str, critical: str, bonus: int,
    armor: str | None, floor: int,
) -> dict[int, Fraction]:  # fmt: skip
    """Damage per attack by listing every face of the damage and armor dice."""
    out: dict[int, Fraction] = {0: 1 - p_hit}
    for text, weight in ((damage, p_hit - p_crit), (critical, p_crit)):
        rolled = brute_totals([text], bonus)
        soaked = brute_totals([armor]) if armor else {0: Fraction(1)}
        for x, px in rolled.items():
            for y, py in soaked.items():
                dealt = max(x - y, floor)
                out[dealt] = out.get(dealt, Fraction(0)) + weight * px * py
    return out


@pytest.mark.parametrize(
    ("damage", "critical", "bonus", "armor", "floor"),
    [
        ("2d6", "3d6", 1, None, 0),
        ("2d6", "3d6", -3, "1d4", 0),  # the floor at 0
        ("2d6+1d4", "4d6kh3", 2, "2d4", 1),
        ("1d4", "1d6", -2, "1d8", 0),
    ],
)
def test_damage_pmf_matches_enumeration(
    damage: str, critical: str, bonus: int, armor: str | None, floor: int
) -> None:
    p_hit, p_crit = Fraction(5, 9), Fraction(1, 7)
    pmf = damage_pmf(float(p_hit), float(p_crit), parse_dice(damage), parse_dice(critical),
                     bonus, None if armor is None else parse_dice(armor), floor)  # fmt: skip
    brute = brute_damage(p_hit, p_crit, damage, critical, bonus, armor, floor)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert max(brute) == len(pmf) - 1
    for d, prob in enumerate(pmf):
        assert prob == pytest.approx(float(brute.get(d, 0)), abs=1e-13)
    assert all(pmf[1:floor] == 0), "a hit deals at least the floor; a miss deals 0"


SCENARIO = """
scenario: te
rules: opposed-tiers
max_rounds: 40
tiers:
  - {name: journeyman, damage: 2d6+1d4}
attacks:
  sword: {damage_modifier: 1}
  bow: {ranged: true, modifier: 1}
sides:
  a: [{name: A, hp: 10, weapon_sl: 1, form_sl: 1, attacks: [sword]}]
  b: [{name: B, hp: 13, defense_sl: 1, shield: light, armor: light}]
"""


def test_attack_outcome_of_a_scenario() -> None:
    """Novice (2d6+1) against a Novice with a Light Shield (2d6+1+1d4) and Light Armor:
    criticals roll the amended Journeyman damage 2d6+1d4."""
    scn = simlab.loads(SCENARIO)
    out = attack_outcome(scn, 0, "sword", 1)
    a, d = brute_totals(["2d6"], 1), brute_totals(["2d6", "1d4"], 1)
    hit = sum((pa * pd for x, pa in a.items() for y, pd in d.items() if x > y), Fraction(0))
    crit = sum(
        (pa * pd for x, pa in a.items() for y, pd in d.items() if x > y and x >= 2 * y),
        Fraction(0),
    )
    assert (out.hit_rate, out.crit_rate) == pytest.approx((float(hit), float(crit)), abs=1e-13)
    brute = brute_damage(hit, crit, "2d6", "2d6+1d4", 2, "1d4", 0)
    expected = np.array([float(brute.get(v, 0)) for v in range(len(out.damage_pmf))])
    np.testing.assert_allclose(out.damage_pmf, expected, atol=1e-13)
    assert out.mean_damage == pytest.approx(float(sum(v * p for v, p in brute.items())))


def test_duel_time_to_down() -> None:
    """B falls in the first round whose damage so far reaches its 13 Health; checked by
    summing the rounds' damage by brute force up to round 6."""
    scn = simlab.loads(SCENARIO)
    ttd = duel_time_to_down(scn)
    per_attack = {
        d: Fraction(p).limit_denominator(10**12)
        for d, p in enumerate(attack_outcome(scn, 0, "sword", 1).damage_pmf)
        if p > 0
    }
    dealt: dict[int, Fraction] = {0: Fraction(1)}
    fallen_by = [Fraction(0)]
    for _ in range(6):
        after: dict[int, Fraction] = {}
        for s, ps in dealt.items():
            for d, pd in per_attack.items():
                after[s + d] = after.get(s + d, Fraction(0)) + ps * pd
        dealt = after
        fallen_by.append(sum((p for s, p in dealt.items() if s >= 13), Fraction(0)))
    pmf = ttd.capped_pmf
    for r in range(1, 7):
        assert pmf[r] == pytest.approx(float(fallen_by[r] - fallen_by[r - 1]), abs=1e-9)
    assert pmf.sum() + ttd.censored == pytest.approx(1.0)


def test_surprise_caveats_and_refusals() -> None:
    hidden = SCENARIO.replace("attacks: [sword]}", "attacks: [bow], hidden: true}")
    scn = simlab.loads(hidden)
    assert set(fight_caveats(scn, 0, "bow", 1)) == {"hit_rate", "crit_rate", "mean_damage"}
    with pytest.raises(ExactUnsupported, match="surprise round"):
        duel_time_to_down(scn)
    off = simlab.loads(hidden.replace("max_rounds: 40", "params: {surprise_round: false}"))
    assert fight_caveats(off, 0, "bow", 1) == {}
    assert duel_time_to_down(off).capped_pmf.sum() > 0.99


def test_the_surprise_round_moves_only_the_figures_it_changes() -> None:
    """A hidden archer whose attacks cannot crit in a normal round (2d6 + 2, at most 14,
    against a defense of at least 14: 2d6 + 11 and a light shield) cannot crit in the
    surprise round either: its crit rate stays 0 and is not named, while its hit rate
    and damage move (the surprise shots are undefended). Against a defense of at most 3
    (2d6 − 9, no shield) it hits every time, in a normal round and the surprise round
    alike: its hit rate stays 1, and its crit rate (above 0, then 0) and damage move."""
    hidden = SCENARIO.replace("attacks: [sword]}", "attacks: [bow], hidden: true}")
    walled = simlab.loads(hidden.replace("defense_sl: 1,", "defense_sl: 11,"))
    assert attack_outcome(walled, 0, "bow", 1).crit_rate == 0
    assert list(fight_caveats(walled, 0, "bow", 1)) == ["hit_rate", "mean_damage"]
    open_ = simlab.loads(hidden.replace("defense_sl: 1, shield: light,", "defense_sl: -9,"))
    normal = attack_outcome(open_, 0, "bow", 1)
    assert normal.hit_rate == pytest.approx(1.0, abs=1e-15) and 0 < normal.crit_rate < 1
    assert list(fight_caveats(open_, 0, "bow", 1)) == ["crit_rate", "mean_damage"]


@pytest.mark.kernels
def test_no_surprise_round_simulated_matches_the_exact_duel() -> None:
    """``surprise_round: false`` (docs/rules/opposed-tiers.md): a hidden archer gets no
    round 0, so the simulated Down round of its target is that of the plain duel the
    exact engine answers (chi-square, ``tests.chains.assert_rounds_match``). With the
    surprise round kept, the target is Downed sooner on average (the volley of round 0
    at an undefended target), so the parameter is not idle."""
    hidden = SCENARIO.replace("attacks: [sword]}", "attacks: [bow], hidden: true}")
    off = simlab.loads(hidden.replace("max_rounds: 40", "params: {surprise_round: false}"))
    res = simlab.simulate(off, n=40_000, seed=2026, threads=1)
    b = [name for _, name in res.layout.combatants].index("B")
    pmf = duel_time_to_down(off).capped_pmf
    assert_rounds_match(40_000, res.tallies.down_round[b], pmf, "no surprise round: B down")
    on = simlab.simulate(simlab.loads(hidden.replace("max_rounds: 40", "max_rounds: 30")),
                         n=40_000, seed=2026, threads=1)  # fmt: skip
    rounds = np.arange(res.tallies.down_round[b].size)
    mean_off = rounds @ res.tallies.down_round[b] / res.tallies.down_round[b].sum()
    mean_on = rounds @ on.tallies.down_round[b] / on.tallies.down_round[b].sum()
    assert mean_on < mean_off - 0.2, (mean_on, mean_off)
