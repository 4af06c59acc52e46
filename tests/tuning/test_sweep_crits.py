"""Which crit rates a sweep shows: those of every attack that can crit at some point, by
its rules and profile, whether or not a crit came up; never one of an attack that
cannot (as a comparison decides, tests/tuning/test_compare_crits.py)."""

from __future__ import annotations

import re
from pathlib import Path

import simlab
from simlab.exact.engine import exact
from simlab.report.tuning_terminal import print_sweep
from tests.support import column_cells, printed_at

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
#: A fighter against a dummy (glitters-d20): every attack crits on a natural 20.
FIGHTER = SCENARIOS / "glitters-d20/training-duel.yaml"
#: The shortsword hitting never, then always (a curve that moves); five encounters a
#: point on seed 23: 52 attacks of three pairs at each point, not one crit.
VARY = {"shortsword.bonus": [-10, 20]}
FEW, SEED = 5, 23


def test_a_sweep_that_saw_no_crit_keeps_the_crit_rate_of_attacks_that_can_crit(
    tmp_path: Path,
) -> None:
    """No crit came up, so every crit rate was dropped: the shortsword's curve had no
    crit column nor panel, the unchanged pairs' table none, the page's table none, as
    if no attack could crit. Each reads its crit rate, 0 where none came up."""
    crit_rates = [pair.crit_rate for pair in exact(simlab.load(FIGHTER)).pairs]
    assert len(crit_rates) == 3 and min(crit_rates) > 0.04  # a natural 20: 0.05 or more
    sweep = simlab.sweep(simlab.load(FIGHTER), VARY, n=FEW, seed=SEED, exact=False)
    assert sweep.attacks().crits.sum() == 0

    text = printed_at(lambda: print_sweep(sweep))
    curve = text[: text.index("unchanged across")]
    assert "shortsword → Dummy" in curve and "crit rate" in curve, curve
    rows = [line for line in curve.splitlines() if re.match(r"^ ?(-10|20) ", line)]
    assert [row.count("0 (< 0.") for row in rows] == [2, 1], curve  # hit rate 0, crit 0
    flat = text[text.index("unchanged across") : text.index("time-to-down (rounds")]
    for attack in ("warhammer", "dagger"):
        assert column_cells(flat, "crit rate", rf"^ ?Fighter: {attack}") == ["0.000"], flat
    assert "Crit rate —" not in " ".join(text.split())

    written = simlab.write_sweep(sweep, tmp_path / "sweep")
    page = written["markdown"].read_text()
    assert "Hit rate, crit rate and mean damage" in page
    assert "| crit rate [95%] |" in page


def test_a_sweep_marks_only_the_attack_that_cannot_crit() -> None:
    """The quickstart's quick-jab has no crit row: its crit rate reads ``—`` and the note
    says it cannot crit; the stone-strike's, which can, keeps its number."""
    quickstart = simlab.load(SCENARIOS / "shattered-spirits/quickstart.yaml")
    sweep = simlab.sweep(quickstart, {"Brute.hp": [28, 32]}, n=50, exact=False)
    text = printed_at(lambda: print_sweep(sweep))
    flat = text[text.index("unchanged across") : text.index("time-to-down (rounds")]
    assert column_cells(flat, "crit rate", r"^ ?Kaito: quick-jab") == ["—"], flat
    assert column_cells(flat, "crit rate", r"^ ?Brute: stone-strike") != ["—"], flat
    said = " ".join(text.split())
    assert "Crit rate —: the attack cannot crit (its profile has no crit row)." in said
