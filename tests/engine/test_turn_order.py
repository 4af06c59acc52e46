"""The turn order by initiative (README, "Design notes"): the sort by packed keys that
zones-3d6's ``initiative_order`` uses against the insertion sort of glitters-d20's
``turn_order``, and against the order written out in Python (highest initiative
first, then the highest tie-break, then the earlier place)."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.engine import rng
from simlab.engine.encounter import (
    initiative_order,
    sort_by_initiative,
    sort_turns,
    sorted_ties,
    turn_order,
)
from simlab.engine.jit import kernel
from simlab.scenario.common import MAX_COMBATANTS

#: The largest initiative any rule system can make: an opposed-tiers Reflex check of 20
#: terms of 100d1000 and a constant of 10**6, plus a skill level (dice.py's limits).
LARGEST = 20 * 100 * 1000 + 1_000_000 + 50


def written_out(init: np.ndarray, tie: np.ndarray, order: np.ndarray) -> list[int]:
    """``order`` sorted as the README states it, by Python's stable sort."""
    return sorted(order.tolist(), key=lambda c: (-init[c], -tie[c]))


def random_case(gen: np.random.Generator, n: int, spread: int) -> tuple[np.ndarray, ...]:
    """Initiatives and tie-breaks of ``n`` combatants, within ``±spread`` (a small
    spread makes ties), and a shuffled listed order."""
    init = gen.integers(-spread, spread + 1, n).astype(np.int64)
    tie = gen.integers(-spread, spread + 1, n).astype(np.int64)
    return init, tie, gen.permutation(n).astype(np.int64)


@pytest.mark.parametrize("spread", [1, 3, 20, LARGEST])
def test_sort_turns_gives_the_order_written_out_and_says_whether_two_tie(spread: int) -> None:
    gen = np.random.default_rng(spread)
    for n in [1, 2, 3, 6, 7, 17, MAX_COMBATANTS]:
        for _ in range(40):
            init, tie, order = random_case(gen, n, spread)
            expected = written_out(init, tie, order)
            ties = sort_turns(init, tie, order)
            assert order.tolist() == expected
            pairs = {(int(init[c]), int(tie[c])) for c in range(n)}
            assert ties == (len(pairs) < n)


def test_sort_turns_sorts_as_the_insertion_sort_does() -> None:
    gen = np.random.default_rng(7)
    for _ in range(300):
        init, tie, order = random_case(gen, int(gen.integers(1, 12)), 4)
        by_keys, by_insertion = order.copy(), order.copy()
        ties = sort_turns(init, tie, by_keys)
        sort_by_initiative(init, tie, by_insertion)
        assert by_keys.tolist() == by_insertion.tolist()
        assert ties == sorted_ties(init, tie, by_insertion)


@kernel
def _both_orders(state, init, tie, random_ties, by_keys, by_insertion, k0, k1, encounter, words):
    """The order of ``initiative_order`` and of ``turn_order``, each on a state started
    at ``encounter``; ``words`` gets the next word of ``STREAM_ORDER`` after each."""
    rng.start_encounter(state, k0, k1, encounter)
    initiative_order(state, init, tie, random_ties, by_keys)
    words[0] = rng.next_u32(state, rng.STREAM_ORDER)
    rng.start_encounter(state, k0, k1, encounter)
    turn_order(state, init, tie, random_ties, by_insertion)
    words[1] = rng.next_u32(state, rng.STREAM_ORDER)


@pytest.mark.parametrize("random_ties", [0, 1])
def test_initiative_order_and_turn_order_give_the_same_order_and_dice(random_ties: int) -> None:
    """The same order, shuffled ties included, from the same dice: the next word of
    the stream is the same after both."""
    gen = np.random.default_rng(11)
    k0, k1 = rng.key_from_seed(5)
    shuffled = 0
    for encounter in range(200):
        init, tie, _ = random_case(gen, int(gen.integers(2, 9)), 2)
        by_keys, by_insertion = np.zeros_like(init), np.zeros_like(init)
        words = np.zeros(2, dtype=np.uint64)
        _both_orders(
            rng.new_state(), init, tie, random_ties, by_keys, by_insertion, k0, k1, encounter, words
        )
        assert by_keys.tolist() == by_insertion.tolist()
        assert words[0] == words[1]
        listed = written_out(init, tie, np.arange(init.size))
        shuffled += by_keys.tolist() != listed
    assert (shuffled > 0) == (random_ties != 0)
