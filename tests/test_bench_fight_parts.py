"""``bench/bench_fight_parts.py``: each benchmark fight made shorter and longer by every
combatant's pool, every field of that pool scaled (the earlier draft's two) and nothing
else changed."""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from bench.bench_duel_parts import POOL_FIELDS
from bench.bench_fight_parts import FIGHTS, scaled


def test_every_system_has_a_benchmark_fight() -> None:
    rules = {simlab.load(path).rules for path in FIGHTS}
    assert rules == {"glitters-d20", "opposed-tiers", "shattered-spirits",
                     "shattered-spirits-draft1", "zones-3d6"}  # fmt: skip


@pytest.mark.parametrize("path", FIGHTS, ids=lambda p: Path(p).stem)
def test_every_combatants_pool_is_scaled_and_nothing_else(path: Path) -> None:
    base = simlab.load(path)
    doubled = scaled(base, 2.0)
    fields = POOL_FIELDS.get(base.rules, ("hp",))
    for side, combatants in base.sides.items():
        for before, after in zip(combatants, doubled.sides[side], strict=True):
            assert [getattr(after, f) for f in fields] == [2 * getattr(before, f) for f in fields]
            assert after.model_copy(update={f: getattr(before, f) for f in fields}) == before
    assert doubled.model_dump(exclude={"sides"}) == base.model_dump(exclude={"sides"})
    assert list(doubled.sides) == list(base.sides)


def test_a_pool_never_falls_below_one() -> None:
    base = simlab.load(next(p for p in FIGHTS if p.stem == "glitters-d20-fight"))
    tiny = scaled(base, 0.001)
    assert {c.hp for combatants in tiny.sides.values() for c in combatants} == {1}
