"""tests/rules/trace_encounters.py reads a trace's encounters as groupby and rows_of would."""

from __future__ import annotations

from pathlib import Path

import simlab
from tests.rules.trace_encounters import encounters
from tests.support import rows_of

SCENARIO = Path(__file__).parents[2] / "scenarios" / "glitters-d20" / "knight-vs-skeleton.yaml"


def test_encounters_are_the_groupby_rows_in_order() -> None:
    """The same rows, encounter by encounter, also when the frame's rows are not in
    encounter order (each encounter's rows then keep their order in the frame)."""
    trace = simlab.simulate(simlab.load(SCENARIO), n=30, seed=5, trace=True).trace
    assert trace is not None
    shuffled = trace.sample(frac=1, random_state=1)
    for frame in (trace, shuffled, trace[trace["round"] > 1]):
        expected = [rows_of(rows) for _, rows in frame.groupby("encounter", sort=True)]
        assert len(expected) > 1
        assert encounters(frame) == expected
