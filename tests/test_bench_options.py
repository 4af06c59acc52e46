"""``bench/bench_options.py``: which values a rule parameter is tried with, and a survey of
one scenario's parameters."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from bench.bench_options import alternatives
from simlab.dice import DiceExpr, parse_dice
from simlab.rules.zones_3d6.model import Params as ZonesParams

ROOT = Path(__file__).resolve().parents[1]


class Knobs(BaseModel):
    flag: bool = True
    choice: Literal["a", "b", "c"] = "b"
    count: int = Field(1, ge=0, le=10)
    at_top: int = Field(10, ge=0, le=10)
    pinned: int = Field(3, ge=3, le=3)
    dice: DiceExpr = parse_dice("2d6")


def tried(name: str) -> list[object]:
    return alternatives(Knobs.model_fields[name])


def test_a_yes_or_no_is_flipped() -> None:
    assert tried("flag") == [False]


def test_a_choice_takes_every_other_value_in_order() -> None:
    assert tried("choice") == ["a", "c"]


def test_a_number_goes_one_up_or_at_its_top_one_down() -> None:
    assert tried("count") == [2]
    assert tried("at_top") == [9]
    assert tried("pinned") == []


def test_dice_are_not_tried() -> None:
    assert tried("dice") == []


@pytest.mark.slow
def test_surveys_every_parameter_of_a_scenario() -> None:
    path = "scenarios/zones-3d6/training-duel.yaml"
    done = subprocess.run([sys.executable, "-m", "bench.bench_options", "2000", path], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    timed = re.findall(r"^    (\w+)=\S+ +[\d.]+ M attacks/s +[\d.]+x$", done.stdout, re.MULTILINE)
    expected = [n for n, f in ZonesParams.model_fields.items() for _ in alternatives(f)]
    assert timed == expected
    assert f"{len(expected)} variants of 1 scenarios;" in done.stdout
