"""What the damage plots work out of a result (the pooled damage table, the copies' χ²
tests, one attack's rows pooled) is worked out once per result, never handed out to be
changed, and never pickled with the result a drawing process is sent."""

from __future__ import annotations

import gc
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

from simlab import api
from simlab.analysis.result import Result
from simlab.report import plots, render
from simlab.report.results import ScenarioRun

# Slow tier (make test-slow): draws whole reports to count the tables worked out.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# Brute ×2: copies the fight tells apart, so that a damage plot tests whether to pool
# them as attackers and as defenders (the χ² tests of copies).
PARTY = ROOT / "scenarios/shattered-spirits/party-3v3.yaml"


@pytest.fixture(scope="module")
def party() -> ScenarioRun:
    return api.run_scenario(PARTY, n=3000, seed=5)


def fresh(run: ScenarioRun) -> ScenarioRun:
    """``run`` as a drawing process receives it: pickled, nothing worked out yet."""
    return pickle.loads(pickle.dumps(run))


def attacks(run: ScenarioRun) -> list[tuple[str, str]]:
    """Every attacker and attack a report draws a damage picture of."""
    pmf = plots.pooled_damage_pmf(run)
    return list(dict.fromkeys(zip(pmf.attacker, pmf.attack, strict=True)))


def counted(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: Counter[str]) -> None:
    """Count the calls of ``owner.name`` in ``calls[name]``."""
    function = getattr(owner, name)

    def count(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return function(*args, **kwargs)

    monkeypatch.setattr(owner, name, count)


def test_a_damage_picture_works_out_its_result_s_tables_once(
    party: ScenarioRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each damage picture read the pooled damage table, the copies' χ² tests and its
    attack's pooling three times: to choose its defenders, then for each panel."""
    run, pairs = fresh(party), attacks(party)
    calls: Counter[str] = Counter()
    counted(monkeypatch, Result, "damage_pmf", calls)
    counted(monkeypatch, plots, "copies_differ", calls)
    counted(monkeypatch, plots, "_pool_alike_defenders", calls)
    drawn = [render._damage_png(run, attacker, attack) for attacker, attack in pairs]
    assert sum(png is not None for png, *_ in drawn) > 1
    assert calls["damage_pmf"] == 1  # one table of the result, pooled once
    assert calls["copies_differ"] == len(plots.copy_entries(run.result))  # Brute: once
    assert calls["_pool_alike_defenders"] == len(pairs)  # once an attack


def test_a_picture_drawn_again_is_the_same_bytes(party: ScenarioRun) -> None:
    run = fresh(party)
    attacker, attack = attacks(party)[0]
    first = render._damage_png(run, attacker, attack)[0]
    assert render._damage_png(run, attacker, attack)[0] == first  # from what was kept
    assert render._damage_png(fresh(party), attacker, attack)[0] == first


def test_tables_worked_out_once_are_handed_out_as_copies(party: ScenarioRun) -> None:
    """A notebook that edits a table it was given does not edit the next one."""
    run = fresh(party)
    attacker, attack = attacks(party)[0]
    tables = {
        "pooled_damage_pmf": lambda: plots.pooled_damage_pmf(run),
        "pooled_hit_rates": lambda: plots.pooled_hit_rates(run),
        "damage_by_defender": lambda: plots.damage_by_defender(run, attacker, attack),
    }
    for name, table in tables.items():
        given = table()
        kept = given.copy(deep=True)
        given.loc[given.index[0], "attempts" if "attempts" in given else "count"] = -1
        given["attacker"] = "Nobody"
        del given["defender"]
        given.attrs["edited"] = True
        again = table()
        assert again.equals(kept) and "edited" not in again.attrs, name
    groups, labels = plots.copy_groups(run), plots.copy_labels(run)
    plots.copy_groups(run)[0][1].append("Nobody")
    plots.copy_groups(run).clear()
    plots.copy_labels(run).clear()
    assert plots.copy_groups(run) == groups and plots.copy_labels(run) == labels


def test_what_the_plots_worked_out_stays_out_of_the_pickle(party: ScenarioRun) -> None:
    """A drawing process is sent the runs pickled: what the plots keep of a result is
    kept beside it, not on it, and dropped with it."""
    run = fresh(party)
    res = run.result
    res.damage_pmf()  # the result's own table, kept on it (Result._tables)
    size = len(pickle.dumps(run))
    for attacker, attack in attacks(run):
        render._damage_png(run, attacker, attack)
    kept = id(res)
    assert kept in plots._WORKED_OUT
    assert len(pickle.dumps(run)) == size
    del run, res
    gc.collect()
    assert kept not in plots._WORKED_OUT
