"""zones-3d6's plain-duel path gives the general path's tallies, bit for bit.

A plain duel (one combatant attacks, the other never does) is played by
``kernels.run_duel_block``: roll tables, damage tables and counts per batch instead of
one attack at a time (docs/rules/zones-3d6.md). Every tally must be the integer the
general path ``kernels.run_block`` gives on the same dice, whatever the chunking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.api import compile_job
from simlab.engine.rng import key_from_seed
from simlab.engine.tallies import TallyArrays, collapse, new_tallies
from simlab.rules import rule_module

ROOT = Path(__file__).resolve().parents[2]
KERNELS = rule_module("zones-3d6", "kernels")

HEAD = "rules: zones-3d6\nscenario: duel\nseed: 11\nmax_rounds: {cap}\n"
DUELS = {
    # edge, Base Defense faces and Bonus Defense; one attack per turn
    "benchmark": ROOT / "scenarios/benchmarks/zones-3d6-duel.yaml",
    # two attacks in rotation, three a turn (the default), Evasion bonus
    "training": ROOT / "scenarios/zones-3d6/training-duel.yaml",
    # advantage and Evasion disadvantage (4d6 keep 3), pressure, a damage of two terms
    # (rolled die by die), the attacker listed second, random targets
    "mixed": HEAD.format(cap=30)
    + """
params: {advantage_dice: 1}
attacks:
  hook: {damage: 1d6+1d4, advantage: 1, pressure: 1}
  jab: {damage: 2d4, disadvantage: 1, bonus: 2}
sides:
  pell:
    - {name: Pell, hp: 25, evasion_disadvantage: 1, base_defense: [1], bonus_defense: 2}
  boxer:
    - {name: Boxer, hp: 10, attacks: [hook, jab], attacks_per_turn: 2, target: random}
""",
    # a round cap that most duels reach (draws), minimum damage 0 against heavy armor
    "capped": HEAD.format(cap=3)
    + """
params: {minimum_damage: 0}
attacks:
  tap: {damage: 1d4}
sides:
  a:
    - {name: A, hp: 5, attacks: [tap], attacks_per_turn: 1}
  b:
    - {name: B, hp: 12, base_defense: [1, 2, 3], bonus_defense: 4}
""",
}


def _scenario(key: str) -> Any:
    duel = DUELS[key]
    return simlab.load(duel) if isinstance(duel, Path) else simlab.loads(duel)


def _tallies(job: Any, kernel: Any, chunks: int) -> TallyArrays:
    k0, k1 = key_from_seed(job.seed)
    tallies = new_tallies(job.layout, chunks)
    trace = np.zeros((1, KERNELS.N_TRACE), dtype=np.int64)
    n_trace = np.zeros(1, dtype=np.int64)
    kernel(job.params, k0, k1, 0, job.n, job.n, tallies, trace, n_trace)
    return collapse(tallies)


@pytest.mark.parametrize("key", list(DUELS))
def test_duel_path_equals_general_path(key: str) -> None:
    job = compile_job(_scenario(key), 6000, None)
    assert KERNELS.duel_attacker(job.params) >= 0
    assert KERNELS.block_kernel(job.params) is KERNELS.run_duel_block
    general = _tallies(job, KERNELS.run_block, 3)
    assert general.attempts.sum() > 6000  # the duels were played
    for chunks in (1, 5):
        duel = _tallies(job, KERNELS.run_duel_block, chunks)
        for name, a, b in zip(general._fields, general, duel, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"{key}: {name}, {chunks} chunks")


def test_a_fight_where_both_attack_takes_the_general_path() -> None:
    fight = simlab.load(ROOT / "scenarios/zones-3d6/longsword-vs-plate.yaml")
    job = compile_job(fight, 10, None)
    assert KERNELS.duel_attacker(job.params) == -1
    assert KERNELS.block_kernel(job.params) is KERNELS.run_block
