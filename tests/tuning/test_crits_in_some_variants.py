"""A crit rate run to a precision where only some of the variants run side by side can
crit (B's ``--set`` adds a crit row, one point of a sweep, one end of a tune): refused
only where none of them can; a variant that cannot crit has a crit rate of exactly 0,
with no spread, which holds no run back, and the command says so. Also: ``plot_sweep``
of a crit rate no pair of the sweep can have, and which variant a comparison's widest
figure is of."""

from __future__ import annotations

import re
from typing import Any

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import InputError
from tests.tuning.cases import ROOT, SS_DUEL

NOVICE_DUEL = ROOT / "scenarios/opposed-tiers/novice-duel.yaml"
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
#: strike's profile has no crit row in ss-duel; this gives it one.
CRIT_ROW = {"strike.tier": {12: "crit"}}
CANNOT = "it cannot crit (its profile has no crit row)"


def test_compare_to_a_precision_on_a_crit_rate_only_b_can_have() -> None:
    """It was refused: A's pairs were checked alone."""
    done = CliRunner().invoke(main, [
        "compare", str(SS_DUEL), "--set", "strike.tier={12: crit}", "-n", "100000",
        "--precision", "0.001", "--precision-on", "crit_rate:strike"])  # fmt: skip
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert "crit_rate:strike is exactly 0 in A, which cannot crit there" in said, said
    assert "widest (B: ss-duel with strike.tier={12: crit}): crit_rate:strike ±" in said, said


def test_a_variant_that_cannot_crit_holds_no_run_back(duel: Any) -> None:
    """A stops at the first checkpoint, B runs on to its own stop; both compared there."""
    ab = simlab.compare(duel, changes=CRIT_ROW, n=100_000, precision=0.001,
                        precision_on=["crit_rate:strike"])  # fmt: skip
    a_stop, b_stop = ab.precision["stops"]
    assert a_stop == 3125 < b_stop == ab.a.encounters
    assert ab.precision["cannot_crit"] == [["crit_rate:strike"], []]
    assert ab.precision["widest_of"] == "B"


def test_compare_still_refuses_a_crit_rate_neither_variant_can_have(duel: Any) -> None:
    with pytest.raises(InputError, match=re.escape(f"got 'strike': {CANNOT}")):
        simlab.compare(duel, changes={"Defender.guard": 2}, n=2000, precision=0.01,
                       precision_on=["crit_rate:strike"])  # fmt: skip


def test_sweep_to_a_precision_on_a_crit_rate_one_point_can_have(duel: Any) -> None:
    """The point without a crit row has a crit rate of exactly 0, its half-width 0 (an
    interval of 0 crits seen was Clopper-Pearson's, wider than 0), and the sweep's line
    of stops says why it stopped first."""
    sw = simlab.sweep(duel, {"strike.tier": [{}, {12: "crit"}]}, n=100_000, precision=0.001,
                      precision_on=["crit_rate:strike"])  # fmt: skip
    none, crit = (p.result.meta["precision"] for p in sw.points)
    assert none["encounters"] == 3125 < crit["encounters"]
    assert none["widest"]["half_width"] == 0.0 and none["widest"]["value"] == 0.0
    assert none["cannot_crit"] == ["crit_rate:strike"] and "cannot_crit" not in crit
    assert "crit_rate:strike is exactly 0 at strike.tier = {}: it cannot crit there" in (
        sw.stops_said()
    )


def test_sweep_still_refuses_a_crit_rate_no_point_can_have(duel: Any) -> None:
    with pytest.raises(InputError, match=re.escape(CANNOT)):
        simlab.sweep(duel, {"Defender.guard": [1, 2]}, n=2000, precision=0.01,
                     precision_on=["crit_rate:strike"])  # fmt: skip


def test_tune_to_a_precision_on_a_crit_rate_one_end_can_have() -> None:
    """Its target was checked at both ends, its --precision-on (by default the target's
    figure) at each end alone: refused at the end whose defense no attack can double."""
    found = simlab.tune(NOVICE_DUEL, "Novice Bandit.defense_sl=1:40",
                        "crit_rate:sword/Novice Bandit=0.02", n=4000, precision=0.05,
                        exact=False)  # fmt: skip
    assert found.evaluations, found


def test_plot_sweep_refuses_a_crit_rate_no_pair_can_have(duel: Any) -> None:
    """It drew a flat line at 0."""
    sw = simlab.sweep(duel, {"Defender.guard": [1, 2]}, n=1000, exact=False)
    said = (
        "figure: expected a pair that can crit; got 'crit_rate' of Attacker strike → "
        "Defender: it cannot crit at any point of the sweep (its profile has no crit row)"
    )
    with pytest.raises(InputError, match=re.escape(said)):
        simlab.plot_sweep(sw, "crit_rate")


def test_plot_sweep_refuses_a_crit_rate_of_pairs_chosen_that_cannot_crit() -> None:
    import matplotlib.pyplot as plt

    sw = simlab.sweep(simlab.load(QUICKSTART), {"Kaito.guard": [1, 2]}, n=1000, exact=False)
    with pytest.raises(InputError, match="of Kaito quick-jab → Brute: it cannot crit"):
        simlab.plot_sweep(sw, "crit_rate", attack="quick-jab")
    drawn = simlab.plot_sweep(sw, "crit_rate", attack="stone-strike")
    assert len(drawn) == 2
    plt.close("all")


def test_a_comparisons_widest_figure_names_its_variant() -> None:
    """``widest: down_rate:Kaito ±…`` did not say whether A's or B's it was."""
    ab = simlab.compare(QUICKSTART, changes={"Kaito.guard": 2}, n=20_000, precision=0.02)
    of = ab.precision["widest_of"]
    widest = ab.precision["widest"]
    label = {"A": str(QUICKSTART), "B": "quickstart with Kaito.guard=2"}[of]
    assert f"; widest ({of}: {label}): {widest['figure']}:{widest['on']} ±" in (
        ab.precision_note()
    ), ab.precision_note()
