"""A p-value as a designer reads it: two significant digits, and ``< 0.0001`` below that,
as statistics reports write it, never in powers of ten (``3.0e-13``); the same in the
terminal (a drift's Holm p) and in a notebook (a comparison's ``p_text``). The exact
check, whose threshold lies below 0.0001, keeps its finer p."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

import simlab
from simlab.analysis.drift import DEFAULT_ALPHA, DRIFT_COLUMNS, DriftReport
from simlab.report import terminal
from tests.support import printed_at

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
POWERS_OF_TEN = re.compile(r"\d[eE][-+]?\d")


def _drifted(p_holm: float) -> DriftReport:
    """A drift report of one figure that drifted, at Holm p ``p_holm``."""
    cells = {c: math.nan for c in DRIFT_COLUMNS}
    cells.update(scenario="duel", rules="shattered-spirits", figure="hit_rate", kind="rate",
                 subject="Kaito", baseline=0.60, current=0.70, change=0.10, test="chi2",
                 tolerance=0.01, beyond_tolerance=True, significant=True, drifted=True,
                 p_holm=p_holm)  # fmt: skip
    return DriftReport(pd.DataFrame([cells]), DEFAULT_ALPHA, [])


def test_a_tiny_p_of_a_drift_reads_below_0_0001_in_the_terminal() -> None:
    """``Holm p = 3.0e-13`` read as a number to decode; it reads ``Holm p < 0.0001``,
    and a p of 0.00023 in plain decimals."""
    tiny = " ".join(printed_at(lambda: terminal.print_drift(_drifted(3e-13), "b.json")).split())
    assert "< 0.0001" in tiny and not POWERS_OF_TEN.search(tiny), tiny
    small = " ".join(printed_at(lambda: terminal.print_drift(_drifted(2.3e-4), "b.json")).split())
    assert "0.00023" in small and not POWERS_OF_TEN.search(small), small


def test_a_comparisons_p_text_reads_as_the_terminal_writes_a_p() -> None:
    """A notebook shows ``ab.figures``' ``p_text``: a change far beyond chance reads ``<
    0.0001`` there too, and no p in powers of ten."""
    figures = simlab.compare(DUEL, changes={"Defender.guard": 5}, n=2000).figures
    tiny = figures[figures.p < 1e-4]
    assert len(tiny) and set(tiny.p_text) == {"< 0.0001"}
    for text in [*figures.p_text, *figures.p_holm_text]:
        assert not POWERS_OF_TEN.search(text), text
