"""The shared time-to-down chain (simlab.exact.chain) against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simlab.errors import ExactUnsupported
from simlab.exact.chain import rotation_cycle, time_to_reach


def test_coin_flip_damage_is_negative_binomial() -> None:
    """1 damage with probability 1/2 a round, 2 to take: down in round r w.p. (r−1)/2^r."""
    ttd = time_to_reach(2, [np.array([0.5, 0.5])], max_rounds=10)
    for r in range(1, 30):
        assert ttd.pmf[r] == pytest.approx((r - 1) / 2**r, abs=1e-15)
    assert ttd.mean == pytest.approx(4.0, abs=1e-12)  # 2 successes at p = 1/2
    assert ttd.median == 3  # P(by 2) = 1/4, P(by 3) = 1/2


def test_alternating_rounds_follow_the_cycle() -> None:
    """Round 1 always hits for 1, round 2 never does: 2 to take means round 3, always."""
    ttd = time_to_reach(2, [np.array([0.0, 1.0]), np.array([1.0])], max_rounds=5)
    assert ttd.pmf[3] == 1.0 and ttd.mean == 3.0


def test_no_damage_at_all_is_never_down_even_with_rounding() -> None:
    ttd = time_to_reach(100_000, [np.array([1.0 - 1e-16])], max_rounds=4)
    assert ttd.censored == 1.0 and math.isinf(ttd.mean) and ttd.median is None


def test_huge_chains_are_refused_quickly() -> None:
    with pytest.raises(ExactUnsupported, match="too slow"):
        time_to_reach(100_000, [np.array([0.5, 0.5])], max_rounds=4)


def test_rotation_cycle_pairs_attacks_across_rounds() -> None:
    """Three attacks in rotation, two a round: rounds (a, b), (c, a), (b, c), then again."""
    pmfs = {"a": np.array([0.0, 1.0]), "b": np.array([0.0, 0.0, 1.0]),
            "c": np.array([0.0, 0.0, 0.0, 1.0])}  # fmt: skip
    cycle = rotation_cycle(["a", "b", "c"], 2, pmfs.__getitem__)
    assert [int(np.argmax(pmf)) for pmf in cycle] == [3, 4, 5]
