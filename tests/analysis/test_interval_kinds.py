"""Every interval column the API returns or writes has its method.

README: "Interval columns carry their level in the name (``_ci95_``); the method is in
the ``*_ci_kind`` column or ``DataFrame.attrs``." A sweep's ``combatants()`` (and its
``combatants.parquet``), ``res.events()`` (and ``events.parquet``) and a run's median
time-to-down had interval columns and neither.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import simlab
from simlab.errors import InputError
from simlab.report import plots

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
INTERVAL = re.compile(r"^(?P<name>.+?)_ci(?:[\d.]+)?_(?:independent_)?(?:lo|hi)$")


def _without_kind(table: pd.DataFrame) -> set[str]:
    """The figures of ``table`` with interval columns whose method is neither in a
    ``<figure>_ci_kind`` column nor in ``attrs``."""
    named = {m["name"] for c in table.columns if (m := INTERVAL.match(str(c)))}
    stated = {str(c).removesuffix("_ci_kind") for c in table.columns if str(c).endswith("_ci_kind")}
    in_attrs = {str(k).removesuffix("_ci_kind") for k in table.attrs}
    if "interval" in table.attrs:  # time_to_down's: one kind for its one band
        in_attrs |= named
    return named - stated - in_attrs


def _tables(obj: Any, label: str) -> dict[str, pd.DataFrame]:
    """Every table a result object's public methods and attributes give."""
    out = {}
    for name in dir(obj):
        if name.startswith("_"):
            continue
        value = getattr(obj, name)
        if callable(value):
            try:
                value = value()
            except TypeError:  # takes arguments: not a table method
                continue
            except InputError:  # refuses this run (readable_trace of a run untraced)
                continue
        if isinstance(value, pd.DataFrame):
            out[f"{label}.{name}"] = value
    return out


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    scn, duel = simlab.load(QUICKSTART), simlab.load(DUEL)
    res = simlab.simulate(scn, n=2000)
    sweep = simlab.sweep(duel, {"Defender.guard": [0, 1]}, n=1000)
    out = {**_tables(res, "Result"), **_tables(sweep, "SweepResult"),
           **_tables(simlab.compare(duel, changes={"Defender.guard": 2}, n=1000), "Comparison"),
           **_tables(simlab.exact(duel), "ExactResult"),
           "plots.pooled_hit_rates": plots.pooled_hit_rates(res),
           "SweepResult.attack_intervals": sweep.attack_intervals(0.99)}  # fmt: skip
    for what, written in (
        ("results", simlab.write_results(res, tmp_path_factory.mktemp("r"))),
        ("sweep", simlab.write_sweep(sweep, tmp_path_factory.mktemp("s"))),
    ):
        for name, path in written.items():
            if str(path).endswith(".parquet"):
                out[f"{what} {name}.parquet"] = pd.read_parquet(path)
    return out


def test_every_interval_column_names_its_method(tables: dict[str, pd.DataFrame]) -> None:
    assert {"Result.events", "SweepResult.combatants", "results events.parquet",
            "sweep combatants.parquet"} <= set(tables)  # fmt: skip
    missing = {label: sorted(_without_kind(t)) for label, t in tables.items() if _without_kind(t)}
    assert missing == {}


def test_the_kinds_say_what_the_intervals_are(tables: dict[str, pd.DataFrame]) -> None:
    combatants = tables["SweepResult.combatants"]
    assert set(combatants.down_rate_ci_kind) <= {"wilson", "clopper-pearson"}
    assert set(combatants.mean_time_to_down_ci_kind) == {"normal"}
    assert set(tables["Result.events"].mean_round_when_happened_ci_kind) == {"normal"}
    assert set(tables["Result.combatants"].median_time_to_down_ci_kind) == {"band-crossing"}
