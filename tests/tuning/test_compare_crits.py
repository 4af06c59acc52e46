"""Which crit rates a comparison lists: those of every attack that can crit, by its rules
and profile, whether or not a run happened to see one; never one of an attack that
cannot."""

from __future__ import annotations

from pathlib import Path

import simlab
from simlab.exact.engine import exact
from simlab.report.tuning_terminal import unmatched_note
from simlab.tuning.figures import figure_counts

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
#: A fighter against a dummy (glitters-d20): every attack crits on a natural 20.
FIGHTER = SCENARIOS / "glitters-d20/training-duel.yaml"
SHORTSWORD = "Fighter shortsword → Dummy"
#: Six encounters, the scenario's seed: 17 shortsword attacks, none of them a crit.
FEW = 6


def _crits_seen(run: simlab.Result, pair: str) -> int:
    counts = figure_counts(run.tallies, run.layout, run.encounters)
    return counts["crit_rate", pair].events


def test_a_crit_rate_only_a_has_is_listed_though_a_saw_no_crit() -> None:
    """Against a zones-3d6 duel (no crits, other names) every figure of the fighter's
    pairs is A's alone. The shortsword's crit rate was left out of them because its 17
    attacks in six encounters happened not to crit: a figure that vanished by luck."""
    pair = next(p for p in exact(simlab.load(FIGHTER)).pairs if p.attack == "shortsword")
    assert pair.crit_rate > 0.04  # a natural 20: 0.05 of its attacks crit, exactly
    ab = simlab.compare(FIGHTER, SCENARIOS / "zones-3d6/training-duel.yaml", n=FEW)
    assert _crits_seen(ab.a, SHORTSWORD) == 0
    assert ("crit_rate", SHORTSWORD) in ab.only_in_a
    crit_rates = [on for figure, on in ab.only_in_a if figure == "crit_rate"]
    assert len(crit_rates) == 3  # warhammer, shortsword and dagger: all can crit
    assert f"Not compared, {len(ab.only_in_a)} figures only A has" in unmatched_note(ab)


def test_a_crit_rate_seen_in_neither_run_is_compared_as_0_against_0() -> None:
    """The Dummy one HP tougher: neither run saw the shortsword crit, and its crit rate
    was dropped from the table as if the attack could not crit; it reads 0 → 0."""
    ab = simlab.compare(FIGHTER, changes={"Dummy.hp": 61}, n=FEW)
    assert _crits_seen(ab.a, SHORTSWORD) == _crits_seen(ab.b, SHORTSWORD) == 0
    row = ab.figures.query("figure == 'crit_rate' and on == @SHORTSWORD")
    assert len(row) == 1
    assert (row.a.iloc[0], row.b.iloc[0], bool(row.changed.iloc[0])) == (0.0, 0.0, False)
    assert ab.document()["figures"] and any(
        f["figure"] == "crit_rate" and f["on"] == SHORTSWORD for f in ab.document()["figures"]
    )
