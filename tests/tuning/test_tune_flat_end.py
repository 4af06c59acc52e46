"""A target the range cannot reach, over a figure flat towards the end: the value given
is where the flat stretch begins, the least change that comes as close, not the far
end of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.exact.engine import exact
from simlab.tuning.figures import exact_measure, parse_figure
from tests.tuning.cases import ROOT

#: One mace (+5) against a Defender who does not fight back: its hit rate falls with the
#: Defender's DC, to the natural 20's 0.05 from DC 25 up, exactly, whatever the dice.
DUEL = ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml"
LO, HI = 12, 44  # a grid of 12, 20, 28, 36, 44: none of them where the floor begins
TARGET = "hit_rate:mace=0.01"


@pytest.fixture(scope="module")
def duel() -> Any:
    return simlab.load(DUEL)


@pytest.fixture(scope="module")
def floor_start(duel: Any) -> tuple[int, float]:
    """The first DC from which every DC up to the range's end gives the end's hit rate,
    by the exact engine at every DC of the range, and that rate."""
    figure = parse_figure(TARGET.split("=")[0], "target")
    rates = {dc: exact_measure(exact(duel.with_({"Defender.dc": dc})), figure)
             for dc in range(LO, HI + 1)}  # fmt: skip
    floor = rates[HI]
    start = min(dc for dc in rates if all(rates[d] == floor for d in range(dc, HI + 1)))
    assert LO < start < HI - 1 and floor > 0.01  # flat over a stretch, above the target
    return start, floor


@pytest.mark.parametrize("use_exact", [True, False], ids=["exact", "simulated"])
def test_the_value_given_is_where_the_flat_end_begins(
    duel: Any, floor_start: tuple[int, float], use_exact: bool
) -> None:
    """Every DC from 25 to 44 gives the same hit rate, the closest to 0.01 the range
    reaches: the tune gave 44, as if raising the DC that far did something. Simulated
    on the same dice the floor is exactly flat too (a natural 20 hits at every DC)."""
    start, floor = floor_start
    found = simlab.tune(duel, f"Defender.dc={LO}:{HI}", TARGET, n=2000, exact=use_exact)
    assert not found.reachable and found.consistent is None
    assert found.value == start
    assert found.flat_stretch() == (start, HI)
    assert [e.value for e in found.neighbours()] == [start - 1, start + 1]
    if use_exact:
        assert found.best.figure == floor
    said = repr(found)  # one sentence, as the terminal's "Unreachable:" line says it
    assert f"for {TARGET}: unreachable, the closest figure reached is " in said, said
    stretch = f"(the same at every value tried from {start} to {HI})"
    assert f", at Defender.dc={start} {stretch}; " in said, said


def test_the_terminal_and_tune_json_say_the_same(
    tmp_path: Path, floor_start: tuple[int, float]
) -> None:
    """The terminal, ``tune.json`` and the exit code agree: not reached, the closest
    figure reached, the value where it begins, and the stretch that gives it."""
    start, floor = floor_start
    out = tmp_path / "tune"
    done = CliRunner().invoke(main, ["tune", str(DUEL), "--vary", f"Defender.dc={LO}:{HI}",
                                     "--target", TARGET, "--out", str(out)])  # fmt: skip
    assert done.exit_code == 1, done.output
    said = " ".join(done.output.split())
    assert "Unreachable" in said and f"{floor:.4f} (exact), at Defender.dc={start}" in said
    assert f"tried from {start} to {HI} gives the same figure" in said
    doc = json.loads((out / "tune.json").read_text())
    assert doc["reachable"] is False and doc["consistent"] is None
    assert doc["value"] == start and doc["figure"] == floor
    assert doc["flat_stretch"] == [start, HI]
