"""``Result.readable_trace()``: the trace read roll by roll, its codes named and each
roll's dice in one column, while ``Result.trace`` keeps its numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import simlab
from simlab.analysis.result import TRACE_CODES
from simlab.errors import InputError

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
#: The quickstart with both reactions on Kaito, so that its trace has Blocks and Evades.
REACTING = {"Kaito.react": {"block": {"when_damage_at_least": 6},
                            "evade": {"when_damage_at_least": 3}},
            "Kaito.tokens": {"grit": 2, "reflex": 2}}  # fmt: skip


@pytest.fixture(scope="module")
def reacting() -> Any:
    scn = simlab.load(SCENARIOS / "shattered-spirits/quickstart.yaml").with_(REACTING)
    return simlab.simulate(scn, n=20, seed=1, trace=True)


def test_codes_are_named_and_the_numbers_kept(reacting: Any) -> None:
    """tier and reaction read 0, 1, 2: a designer had to look their meaning up."""
    table, raw = reacting.readable_trace(), reacting.trace
    assert list(table.tier.cat.categories) == ["miss", "hit", "crit"] and table.tier.cat.ordered
    assert list(table.reaction.cat.categories) == ["none", "Block", "Evade"]
    assert {"Block", "Evade"} <= set(table.reaction)  # both reactions occur here
    names = {"miss": 0, "hit": 1, "crit": 2}
    assert (table.tier.map(names).astype(int) == raw.tier).all()
    assert (table.tier[raw.tier == 0] < "hit").all()  # ordered: compared by the rules' order
    assert raw.tier.dtype.kind == "i" and raw.reaction.dtype.kind == "i"  # trace unchanged
    assert list(table.phase) == list(raw.phase)  # a Phase is a number in the rules


def test_a_notebook_shows_every_column_reaction_and_final_roll_among_them(reacting: Any) -> None:
    """23 columns: a notebook's 20 (pandas' display.max_columns in a notebook) left out
    the middle ones, reaction among them."""
    table = reacting.readable_trace()
    with pd.option_context("display.max_columns", 20, "display.width", 10_000):
        shown = repr(table.head(3))
    header = shown.splitlines()[0].split()
    assert {"reaction", "reroll_dice", "final_roll", "tier", "dice"} <= set(header)
    assert "..." not in header


def test_each_rolls_dice_are_one_column_of_the_dice_rolled(reacting: Any) -> None:
    table, raw = reacting.readable_trace(), reacting.trace
    for i in range(len(raw)):
        rolled = [raw[f"die{k}"].iloc[i] for k in (1, 2, 3) if raw[f"die{k}"].iloc[i]]
        assert table.dice.iloc[i] == " ".join(map(str, rolled))
    evaded = raw.reaction == 2
    assert (table.reroll_dice[evaded] != "").all() and (table.reroll_dice[~evaded] == "").all()
    assert table.columns.get_loc("dice") == raw.columns.get_loc("die1")


@pytest.mark.parametrize("rules", sorted(TRACE_CODES))
def test_every_rule_systems_codes_are_those_its_kernels_write(rules: str) -> None:
    """The names follow the rules pages; glitters-d20's kinds are its kernels' own."""
    from simlab.engine import runner

    columns = runner.kernels(rules).TRACE_COLUMNS
    assert set(TRACE_CODES[rules]) <= set(columns)
    if rules == "glitters-d20":
        assert TRACE_CODES[rules]["kind"] == runner.kernels(rules).KIND_NAMES


def test_a_run_without_a_trace_is_refused() -> None:
    res = simlab.simulate(SCENARIOS / "shattered-spirits/quickstart.yaml", n=10, seed=1)
    with pytest.raises(InputError, match="trace=True"):
        res.readable_trace()


def test_glitters_d20s_hit_crit_parry_and_affinity_are_named() -> None:
    """They read 0, 1 (and −1 for a resistance), where the other systems' traces give
    words; a turn's start read hit 0, as if it missed."""
    scn = simlab.load(SCENARIOS / "glitters-d20/knight-vs-skeleton.yaml")
    res = simlab.simulate(scn, n=20, seed=1, trace=True)
    table, raw = res.readable_trace(), res.trace
    attack = raw.kind == 1
    assert list(table.hit.cat.categories) == ["miss", "hit"]
    assert (table.hit[attack & (raw.hit == 1)] == "hit").all()
    assert (table.crit[attack].map({"none": 0, "crit": 1}).astype(int) == raw.crit[attack]).all()
    assert (table.parried[attack].map({"none": 0, "Parry": 1}).astype(int)
            == raw.parried[attack]).all()  # fmt: skip
    affinity = {"resistant": -1, "none": 0, "vulnerable": 1}
    assert (table.affinity[attack].map(affinity).astype(int) == raw.affinity[attack]).all()
    assert {"resistant", "vulnerable"} <= set(table.affinity[attack])  # both occur here
    turns = raw.kind == 0
    assert (
        turns.any() and table.loc[turns, ["hit", "crit", "parried", "affinity"]].isna().all().all()
    )
