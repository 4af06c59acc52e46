"""``simlab tune`` without ``--target`` (or ``--vary``), and ``simlab sweep`` without
``--vary``: click said only "Missing option '--target'."; the error says how the option is
written, with examples that are themselves good values, and exits 2."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simlab.cli import main
from simlab.tuning.sweep import parse_vary
from simlab.tuning.tune import parse_range, parse_target

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios/benchmarks/ss-duel.yaml")


@pytest.mark.parametrize(
    ("args", "option", "form", "parse"),
    [
        (["tune", DUEL, "--vary", "Defender.hp=5:60"], "--target", "FIGURE[:ON]=VALUE",
         parse_target),
        (["tune", DUEL, "--target", "median_time_to_down:Defender=3"], "--vary",
         "NAME.FIELD=LO:HI", parse_range),
        (["sweep", DUEL], "--vary", "NAME.FIELD=LO:HI[:STEP]", parse_vary),
    ],
)  # fmt: skip
def test_a_missing_option_says_how_it_is_written(
    args: list[str], option: str, form: str, parse: Callable[[str], Any]
) -> None:
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.split())
    assert f"Missing option '{option}'. Expected {option} {form}" in said, said
    assert said.endswith("got none."), said
    listed = re.search(r"\(e\.g\. (.+)\)", said)
    assert listed, said
    examples = [e for e in re.split(rf"(?:, )?{option} ", listed[1]) if e]
    assert examples, said
    for example in examples:  # each a value the option takes
        parse(example)
