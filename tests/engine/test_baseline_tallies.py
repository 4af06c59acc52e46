"""Every tally of every scenario in the committed baseline is the same integer today.

``reports/baseline/results.json`` holds, losslessly, the integer tallies of each example
scenario at its recorded sample size and seed. Simulating them again must give the same
integers, whatever the threads: a speed-up that changes any count changes the dice or
the rules, not just the speed. After a deliberate rules change the baseline is written
again (``simlab baseline update``, see the README) and this test follows it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simlab
from simlab.engine.tallies import TallyArrays

ROOT = Path(__file__).resolve().parents[2]
BASELINE = simlab.load_results(ROOT / "reports/baseline/results.json")


@pytest.mark.slow
@pytest.mark.parametrize("run", BASELINE, ids=lambda run: run.source)
def test_baseline_tallies_are_reproduced(run) -> None:  # type: ignore[no-untyped-def]
    result = simlab.simulate(ROOT / run.source, n=run.result.encounters, seed=run.result.seed)
    for name, stored, simulated in zip(
        TallyArrays._fields, run.result.tallies, result.tallies, strict=True
    ):
        assert np.array_equal(stored, simulated), f"{run.source}: tally {name} differs"
