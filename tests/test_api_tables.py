"""A result's tables from a notebook: each built once per result and level, however often
a cell, a plot or a summary asks for it, and never edited by the caller's edits."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import simlab
from simlab.analysis import result as result_module
from simlab.analysis.result import Result

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


@pytest.fixture()
def res() -> Result:
    return simlab.simulate(simlab.load(QUICKSTART), n=1000, seed=3)


def test_the_time_to_down_curves_are_built_once_for_a_table_and_a_plot(
    res: Result, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    built = []
    curve = result_module.stats.cumulative_incidence

    def counted(*args: object, **kwargs: object) -> pd.DataFrame:
        built.append(args)
        return curve(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(result_module.stats, "cumulative_incidence", counted)
    table = res.time_to_down()
    shown = simlab.plot_time_to_down(res)
    plt.close("all")
    assert len(built) == len(res.layout.combatants)  # one curve each, for both
    pd.testing.assert_frame_equal(shown, table[table.combatant.isin(shown.combatant)])
    res.time_to_down(0.95)  # the default level, given: the same table
    assert len(built) == len(res.layout.combatants)
    res.time_to_down(0.9)  # another level: another table
    assert len(built) == 2 * len(res.layout.combatants)


@pytest.mark.parametrize("method", ["hit_rates", "damage", "damage_pmf", "time_to_down",
                                    "combatants", "events", "win_rates"])  # fmt: skip
def test_a_table_asked_again_has_the_same_values_and_is_a_copy(res: Result, method: str) -> None:
    first = getattr(res, method)()
    again = getattr(res, method)()
    assert again is not first
    pd.testing.assert_frame_equal(again, first)
    assert again.attrs == first.attrs
    first.iloc[0, 0] = "edited"  # a caller's edit of its table
    first.attrs["edited"] = True
    pd.testing.assert_frame_equal(getattr(res, method)(), again)
    assert "edited" not in getattr(res, method)().attrs


def test_per_encounter_tables_are_kept_by_name(res: Result) -> None:
    spent = res.per_encounter("momentum_spent")
    assert list(res.status_damage().columns)[2] == "mean_status_damage"
    assert list(res.momentum_spent().columns)[2] == "mean_momentum_spent"
    pd.testing.assert_frame_equal(res.momentum_spent(), spent)


def test_the_readme_says_what_each_column_of_both_combatants_tables_is(res: Result) -> None:
    """A run's ``combatants()`` and a sweep's differ in columns
    (``median_time_to_down_when_downed``, ``mean_attacks_to_down`` against
    ``mean_time_to_down``): the README's Python API section names every one of both,
    its interval and kind columns aside (named alike in every table)."""
    readme = (ROOT / "README.md").read_text()
    said = readme[readme.index("A run's `combatants()` and a sweep's") :]
    said = said[: said.index("A result builds each table once")]
    duel = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    swept = simlab.sweep(duel, {"Defender.guard": [1]}, n=200).combatants()
    events = {f"{event}_rate": "<event>_rate" for event in res.layout.events}
    columns = {*res.combatants().columns, *swept.columns} - {"Defender.guard"}
    unsaid = [c for c in columns if "_ci95_" not in c and not c.endswith("_ci_kind")
              and f"`{events.get(c, c)}`" not in said]  # fmt: skip
    assert "exact_mean_time_to_down" in swept and res.layout.events
    assert not unsaid, unsaid
