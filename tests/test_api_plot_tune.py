"""``simlab.plot_tune`` draws a tuning and, as ``simlab.plot_sweep`` and the result
plots do, returns what it drew: one row per value drawn."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest

import simlab

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"


@pytest.fixture
def ax() -> Any:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


def _expected_rows(result: Any) -> list[tuple[Any, ...]]:
    """The evaluations drawn (a figure nobody reaches, NaN, has no mark), as rows."""
    return [(e.value, e.figure, e.lo, e.hi, e.method, e.value == result.value)
            for e in result.evaluations if not math.isnan(e.figure)]  # fmt: skip


def _rows(drawn: Any, field: str, figure: str) -> list[tuple[Any, ...]]:
    columns = [field, figure, f"{figure}_ci95_lo", f"{figure}_ci95_hi", "method", "best"]
    assert list(drawn.columns) == columns
    return list(drawn.itertuples(index=False, name=None))


@pytest.mark.parametrize("case", [
    (QUICKSTART, "Kaito.guard=0:4", "median_time_to_down:Kaito=10", {"n": 2000, "seed": 3}),
    (DUEL, "Defender.hp=5:60", "down_by_round:Defender@5=0.5", {}),
    (DUEL, "Defender.hp=5:60", "mean_time_to_down:Defender=2",
     {"n": 2000, "exact": False, "changes": {"max_rounds": 3}}),
], ids=["simulated, medians not reached", "exact", "never downed at some values"])  # fmt: skip
def test_plot_tune_returns_the_evaluations_it_drew(case: tuple[Any, ...], ax: Any) -> None:
    path, vary, target, extra = case
    scenario = simlab.override(path, extra.pop("changes", {}))
    result = simlab.tune(scenario, vary, target, **extra)
    drawn = simlab.plot_tune(result, ax=ax)
    figure = result.target.figure.figure
    assert _rows(drawn, result.field, figure) == _expected_rows(result)
    assert drawn["best"].sum() == (1 if not math.isnan(result.best.figure) else 0)
    # the frame is the marks: the simulated dots (the error bar's line) at its rows
    marks = [line for line in ax.get_lines() if line.get_marker() == "o"
             and line.get_linestyle() == "None" and len(line.get_xdata()) > 1]  # fmt: skip
    finite = drawn[(drawn["method"] == "simulated") & np.isfinite(drawn[figure])]
    if len(finite) > 1:
        assert any(list(m.get_xdata()) == list(finite[result.field]) for m in marks)


def test_plot_tune_is_simlab_s_own() -> None:
    from simlab.report.tuning import plot_tune

    assert simlab.plot_tune is plot_tune
    assert "plot_tune" in simlab.__all__ and "plot_tune" in dir(simlab)
