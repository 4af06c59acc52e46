"""``bench/bench_duel_parts.py``: each system's benchmark duel made shorter and longer
by its defender's pool, every field of that pool scaled (the earlier draft's two)."""

from __future__ import annotations

import pytest

import simlab
from bench.bench_duel_parts import POOL_FIELDS, scaled
from bench.bench_duels import BENCH, DUELS


@pytest.mark.parametrize("rules", sorted(DUELS))
def test_the_defenders_pool_is_scaled_and_nothing_else(rules: str) -> None:
    base = simlab.load(BENCH / DUELS[rules].scenario)
    half = scaled(base, rules, 0.5)
    before, after = base.sides["defender"][0], half.sides["defender"][0]
    fields = POOL_FIELDS.get(rules, ("hp",))
    assert [getattr(after, f) for f in fields] == [round(getattr(before, f) / 2) for f in fields]
    assert after.model_copy(update={f: getattr(before, f) for f in fields}) == before
    assert half.sides["attacker"] == base.sides["attacker"]


def test_a_pool_never_falls_below_one() -> None:
    base = simlab.load(BENCH / DUELS["glitters-d20"].scenario)
    assert scaled(base, "glitters-d20", 0.001).sides["defender"][0].hp == 1
