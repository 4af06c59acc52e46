"""A dice field swept or tuned over whole numbers tries flat numbers, and says so."""

from __future__ import annotations

import re
from pathlib import Path

import simlab
from simlab.report import tuning_terminal
from tests.support import printed_at
from tests.tuning.cases import ROOT

FIGHT = ROOT / "scenarios/benchmarks/glitters-d20-fight.yaml"  # greataxe: 1d12, Ogre's
SKIRMISH = ROOT / "scenarios/zones-3d6/skirmish.yaml"  # longsword: 1d6+3, Warden's
GREATAXE = ("greataxe.damage was 1d12; the values tried are flat numbers (to keep the "
            "dice, list them: greataxe.damage=1d12-1,1d12+1)")  # fmt: skip


def test_a_sweep_of_a_dice_field_over_a_range_says_the_values_are_flat(tmp_path: Path) -> None:
    """``--vary greataxe.damage=1:3`` on ``1d12`` still runs (flat damage may be what
    is meant: every point's greataxe deals 1, 2, 3), and its head, repr and page say
    once that the dice gave way to flat numbers."""
    scenario = simlab.load(FIGHT)
    sweep = simlab.sweep(scenario, "greataxe.damage=1:3", n=300, exact=False)
    assert sweep.notes == (GREATAXE,)
    assert [str(p.scenario.attacks["greataxe"].damage) for p in sweep.points] == ["1", "2", "3"]
    assert GREATAXE in repr(sweep)
    printed = printed_at(lambda: tuning_terminal.print_sweep(sweep), 200)
    assert printed.count(GREATAXE) == 1, printed
    written = simlab.write_sweep(sweep, tmp_path / "sweep")
    pages = [re.sub(r"<[^>]+>", "", p.read_text())  # the words as the page reads
             for p in written.values() if p.suffix in (".html", ".md")]  # fmt: skip
    assert pages and all(GREATAXE in page for page in pages)


def test_a_tune_of_a_dice_field_says_the_values_are_flat() -> None:
    tuned = simlab.tune(simlab.load(FIGHT), "greataxe.damage=1:12",
                        "mean_damage:greataxe/Knight=6", n=300)  # fmt: skip
    assert tuned.notes == (GREATAXE,)
    assert GREATAXE in repr(tuned)
    printed = printed_at(lambda: tuning_terminal.print_tune(tuned), 200)
    assert printed.count(GREATAXE) == 1, printed


def test_zones_names_the_makers_bonus_damage() -> None:
    """zones-3d6 adds a flat bonus to an attack's dice through its maker's
    ``bonus_damage``: the note names it."""
    sweep = simlab.sweep(simlab.load(SKIRMISH), "longsword.damage=4,6", n=200, exact=False)
    assert sweep.notes == (
        "longsword.damage was 1d6+3; the values tried are flat numbers (to keep the dice, "
        "list them: longsword.damage=1d6+2,1d6+4; its flat bonus: Warden.bonus_damage)",
    )


def test_no_note_for_dice_tried_as_dice_or_a_field_of_numbers() -> None:
    scenario = simlab.load(FIGHT)
    assert simlab.sweep(scenario, "greataxe.damage=1d10,1d12+1", n=200, exact=False).notes == ()
    assert simlab.sweep(scenario, "Ogre.hp=40:41", n=200, exact=False).notes == ()
