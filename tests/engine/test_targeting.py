"""Target choice (README, "Scenarios" and "Output files"): the enemy table every rule
system builds (``rules.arrays.enemy_rows``) and the shared ``encounter.choose_target``
that reads it, against the policies written out over all combatants and their sides."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.engine import rng
from simlab.engine.encounter import FOCUS, LOWEST_HP, RANDOM, choose_target
from simlab.rules.arrays import enemy_rows
from simlab.scenario.common import POLICY_CODE


def test_the_scenario_codes_of_policies_are_those_the_kernel_reads() -> None:
    # The scenario side (no numba import, for a quick validate) and the kernel each
    # name the codes; a reordered list on one side would target by the wrong policy.
    assert POLICY_CODE == {"focus": FOCUS, "random": RANDOM, "lowest-hp": LOWEST_HP}


def test_enemy_rows_list_other_sides_in_listed_order_then_minus_one() -> None:
    rows = enemy_rows([0, 1, 0, 2, 1])
    assert rows.tolist() == [
        [1, 3, 4, -1],
        [0, 2, 3, -1],
        [1, 3, 4, -1],
        [0, 1, 2, 4],
        [0, 2, 3, -1],
    ]


def test_enemy_rows_of_one_side_are_empty() -> None:
    assert enemy_rows([0, 0]).shape == (2, 0)


def standing_enemies(side: list[int], out: np.ndarray, attacker: int) -> list[int]:
    """The policy's candidates as the README states them: every combatant of another
    side than the attacker's, standing, in listed order."""
    return [d for d in range(len(side)) if side[d] != side[attacker] and out[d] == 0]


@pytest.mark.parametrize("seed", range(4))
def test_choose_target_is_the_policy_over_every_side(seed: int) -> None:
    gen = np.random.default_rng(seed)
    k0, k1 = rng.key_from_seed(seed)
    for encounter in range(400):
        n = int(gen.integers(2, 10))
        side = gen.integers(0, int(gen.integers(2, 5)), size=n).tolist()
        out = (gen.random(n) < 0.4).astype(np.int64)
        hp = gen.integers(-3, 6, size=n).astype(np.int64)
        enemies = enemy_rows(side)
        attacker = int(gen.integers(0, n))
        candidates = standing_enemies(side, out, attacker)
        state, expected_state = rng.new_state(), rng.new_state()
        rng.start_encounter(state, k0, k1, encounter)
        rng.start_encounter(expected_state, k0, k1, encounter)
        focus = choose_target(enemies[attacker], out, hp, FOCUS, state)
        lowest = choose_target(enemies[attacker], out, hp, LOWEST_HP, state)
        chosen = choose_target(enemies[attacker], out, hp, RANDOM, state)
        if not candidates:
            assert focus == lowest == chosen == -1
            continue
        assert focus == candidates[0]
        assert lowest == min(candidates, key=lambda d: (hp[d], d))
        pick = rng.uniform_index(expected_state, rng.STREAM_TARGET, len(candidates))
        assert chosen == candidates[pick]
        assert np.array_equal(state, expected_state)
