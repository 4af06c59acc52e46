"""Inverse tuning: the value found is the closest, checked against the exact engine and runs."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as sps

import simlab
import simlab.exact.shattered_spirits as ss_exact
from simlab.cli import main
from simlab.errors import InputError
from simlab.exact.engine import exact
from simlab.report.tuning import render_tune
from simlab.report.tuning_terminal import tune_sentences
from simlab.tuning.figures import exact_measure, measure, parse_figure
from simlab.tuning.tune import (
    Evaluation,
    TuneResult,
    _Evaluator,
    _monotone,
    _search,
    parse_target,
)
from tests.tuning.cases import SS_2V2, SS_DUEL


def _exact_median(duel: Any, hp: int) -> float:
    return exact(duel.with_({"Defender.hp": hp})).duel.median


def test_duel_median_is_the_closest_exact_value(tmp_path: Path, duel: Any) -> None:
    """`simlab tune` returns the HP whose exact median is closest to 5; `simlab exact --set`
    at that HP and its neighbours agrees, and the consistent range is every HP at 5."""
    out = tmp_path / "tune"
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), "--vary", "Defender.hp=5:60",
                                     "--target", "median_time_to_down:Defender=5",
                                     "--out", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    doc = json.loads((out / "tune.json").read_text())
    value = doc["value"]
    medians = {hp: _exact_median(duel, hp) for hp in range(5, 61)}
    assert abs(medians[value] - 5) == min(abs(m - 5) for m in medians.values())
    assert doc["consistent"] == [min(h for h, m in medians.items() if m == 5),
                                 max(h for h, m in medians.items() if m == 5)]  # fmt: skip
    for hp in (value - 1, value, value + 1):
        shown = CliRunner().invoke(main, ["exact", str(SS_DUEL), "--set", f"Defender.hp={hp}",
                                          "--out", str(tmp_path / f"e{hp}")])  # fmt: skip
        assert shown.exit_code == 0, shown.output
        summary = json.loads((tmp_path / f"e{hp}" / "summary.json").read_text())
        assert summary["combatants"][0]["time_to_down"]["median_time_to_down"] == medians[hp]
    assert {e["method"] for e in doc["evaluations"]} == {"exact"}
    assert doc["figure"] == 5 and doc["monotone"] and doc["reachable"]
    assert "Defender.hp=" in done.output and "exact engine" in done.output


def test_simulated_tune_agrees_with_a_run(tmp_path: Path, fight: Any) -> None:
    """On a fight the exact engine cannot solve, the tuned value's figure is within its
    interval of the target, and `simlab run --set` at that value gives the same figure
    (same seed and sample size: the same dice)."""
    target = "median_time_to_down:Brute=8"
    result = simlab.tune(fight, "Brute.hp=10:60", target, n=5000)
    best = result.best
    assert best.method == "simulated"
    assert best.lo <= 8 <= best.hi
    lo, hi = result.consistent
    assert lo <= result.value <= hi
    res = simlab.simulate(fight.with_({"Brute.hp": result.value}), 5000, threads=1)
    again = measure(res.tallies, res.layout, res.encounters, parse_figure(target[:-2], "t"))
    assert again == (best.figure, best.lo, best.hi)
    # the neighbours bracket the target from both sides (monotone: down later with more HP)
    below, above = result.neighbours()
    assert below.figure <= 8 <= above.figure and below.value < result.value < above.value


def test_simulated_tune_matches_cli_run(tmp_path: Path) -> None:
    """`simlab tune` on a simulated rate and `simlab run --set` at the value found print the
    same rate: the summary's win rate equals the tuned figure exactly."""
    out = tmp_path / "tune"
    args = ["tune", str(SS_2V2), "--vary", "Kaito.hp=5:60", "--set", "Brute.hp=20", "--target",
            "win_rate:party=0.5", "-n", "4000", "--out", str(out)]  # fmt: skip
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    doc = json.loads((out / "tune.json").read_text())
    ran = CliRunner().invoke(main, ["run", str(SS_2V2), "-n", "4000", "--set", "Brute.hp=20",
                                    "--set", f"Kaito.hp={doc['value']}",
                                    "--out", str(tmp_path / "run")])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    party = next(s for s in summary["sides"] if s["name"] == "party")
    assert party["win_rate"] == doc["figure"]
    assert party["win_rate_ci"] == doc["figure_ci"]
    assert doc["figure_ci"][0] <= 0.5 <= doc["figure_ci"][1]


def test_unreachable_target_exits_1_with_the_closest_end(tmp_path: Path) -> None:
    out = tmp_path / "tune"
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), "--vary", "Defender.hp=5:20",
                                     "--target", "median_time_to_down:Defender=40",
                                     "--out", str(out)])  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "unreachable" in done.output and "Defender.hp=20" in done.output
    doc = json.loads((out / "tune.json").read_text())
    assert doc["reachable"] is False and doc["value"] == 20 and doc["consistent"] is None


#: A Defender that cannot go down in 3 rounds of at most 10 damage each.
NEVER_DOWN = ["--set", "max_rounds=3", "--vary", "Defender.hp=40:60"]


@pytest.mark.parametrize("figure", ["mean_time_to_down", "median_time_to_down"])
def test_a_figure_no_value_gives_is_said_so_not_called_monotone(
    tmp_path: Path, figure: str
) -> None:
    """In ``ss-duel`` cut to 3 rounds, 30 HP at most, no Defender of 40 HP or more goes
    down: its time-to-down is measured at no value. The tuning says that, where it once
    reported the closest end's "—" and a bisection of a figure "monotone over the values
    tried"; and for the median, not reached at every value, where it said "closest:
    Defender.hp=5 gives not reached". (A combatant nobody attacks is refused before.)"""
    out = tmp_path / "tune"
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), *NEVER_DOWN, "--target",
                                     f"{figure}:Defender=2", "-n", "2000",
                                     "--out", str(out)])  # fmt: skip
    assert done.exit_code == 1, done.output
    text = " ".join(done.output.split())
    assert "was measured at no value of Defender.hp tried (40..60)" in text
    assert "monotone" not in text and "closest" not in text
    doc = json.loads((out / "tune.json").read_text())
    assert doc["measured"] is False and doc["reachable"] is False and doc["figure"] is None
    assert "no value gave the figure" in doc["how"]


@pytest.mark.parametrize(
    ("argument", "option", "expected"),
    [
        ("nope:Defender=5", "--target", "expected a figure"),
        ("median_time_to_down:Nobody=5", "--target", "expected a combatant"),
        ("median_time_to_down=5", "--target", "naming the combatant"),
        ("hit_rate:strike=1.5", "--target", "expected a rate between 0 and 1"),
        ("hit_rate:kick=0.5", "--target", "expected an attack"),
        ("median_time_to_down:Defender=soon", "--target", "expected a number"),
        ("median_time_to_down:Defender", "--target", "got no '='"),
        ("down_by_round:Defender=0.5", "--target", "got no '@'"),
        ("down_by_round:Defender@x=0.5", "--target",
         "expected a round in digits after '@' (such as down_by_round:Defender@3); got 'x'"),
        ("win_rate:nobody=0.5", "--target", "expected a side"),
        ("draw_rate:x=0.5", "--target", "expected nothing after draw_rate"),
        ("Defender.hp=60:5", "--vary", "LO < HI"),
        ("Defender.hp=5", "--vary", "expected NAME.FIELD=LO:HI"),
        ("Nobody.hp=5:60", "--vary", "expected a combatant"),
        ("Defender.hp=x:60", "--vary", "LO < HI"),
        ("Defender.hp=5:60:5", "--vary",
         "expected LO:HI without a STEP (tune bisects the range; simlab sweep takes a STEP); "
         "got '5:60:5'"),
        ("Defender.hp=30", "--set", "varied by --vary too"),
        ("median_time_to_down:Defender=1000", "--target",
         "expected a number of rounds from 1 to 100 (the round cap); got 1000"),
        ("mean_rounds=0.5", "--target", "expected a number of rounds from 1 to 100"),
        ("down_by_round:Defender@101=0.5", "--target",
         "expected a round from 1 to 100 (the round cap) after '@'; got 101"),
        ("down_by_round:Defender@0=0.5", "--target", "expected a round from 1 to 100"),
        ("damage_at_least:strike@4096=0.5", "--target",
         "expected a damage of at most 4,095 after '@' (the most a damage histogram counts "
         "whole); got 4096"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2_naming_them(
    tmp_path: Path, argument: str, option: str, expected: str
) -> None:
    args = {"--target": "median_time_to_down:Defender=5", "--vary": "Defender.hp=5:60"}
    args[option] = argument
    out = tmp_path / "tune"
    sets = ["--set", args["--set"]] if "--set" in args else []
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), "--vary", args["--vary"],
                                     "--target", args["--target"], *sets,
                                     "--out", str(out)])  # fmt: skip
    assert done.exit_code == 2, done.output
    assert f"{option} {argument}" in done.output and expected in done.output
    assert "Traceback" not in done.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("written", "meant"),
    [("r3", "down_by_round:Defender@3"), ("round 3", "down_by_round:Defender@3"),
     ("3rd", "down_by_round:Defender@3"), ("3.0", "down_by_round:Defender@3"),
     ("³", None), ("٣", None), ("-3", None)],
)  # fmt: skip
def test_a_round_after_at_not_in_digits_exits_2_with_the_spelling(
    written: str, meant: str | None
) -> None:
    """A round written as a designer might (``@r3``, ``@3rd``) is refused with the
    spelling it takes; a digit of another script (``³``, which ``str.isdigit`` accepts
    and ``int`` does not) is refused too, not an internal error (exit 3)."""
    target = f"down_by_round:Defender@{written}=0.5"
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), "--vary", "Defender.hp=5:60",
                                     "--target", target])  # fmt: skip
    assert done.exit_code == 2, done.output
    text = " ".join(done.output.split())
    assert f"--target {target}: expected a round in digits after '@'" in text
    assert (f"did you mean '{meant}'?" in text) if meant else "did you mean" not in text


def test_a_damage_after_at_in_a_precision_figure_is_read_alike() -> None:
    done = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "1000", "--precision", "0.1",
                                     "--precision-on", "damage_at_least:strike@≥8"])  # fmt: skip
    assert done.exit_code == 2, done.output
    assert ("--precision-on damage_at_least:strike@≥8: expected a damage in digits after "
            "'@'; got '≥8'; did you mean 'damage_at_least:strike@8'?") in " ".join(
        done.output.split()
    )  # fmt: skip


def test_a_crit_rate_target_in_rules_without_crits_exits_2() -> None:
    """zones-3d6 has no critical hits: no value reaches a crit rate, by the rules."""
    plate = Path(__file__).resolve().parents[2] / "scenarios/zones-3d6/longsword-vs-plate.yaml"
    args = ["--vary", "Plate Knight.hp=10:30", "--target", "crit_rate:longsword=0.1"]
    done = CliRunner().invoke(main, ["tune", str(plate), *args, "-n", "500"])
    assert done.exit_code == 2, done.output
    assert ("--target crit_rate:longsword=0.1: expected a figure these rules have; got "
            "'crit_rate'") in " ".join(done.output.split())  # fmt: skip


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("scenario", "target", "expected"),
    [
        # the benchmark fight defines 'bash' and nobody lists it: every value measured nothing
        ("benchmarks/glitters-d20-fight.yaml", "hit_rate:bash=0.5",
         "'bash' is made by no combatant: expected an attack some combatant lists under "
         "'attacks:' (greataxe, sword, rapier, flame, frost, claw, bite); got 'bash'"),
        # Aldric is on the side of everyone with a warhammer
        ("glitters-d20/party-vs-monsters.yaml", "hit_rate:warhammer/Aldric=0.5",
         "expected a combatant that 'warhammer' can target, on another side than its "
         "attackers; got 'Aldric'"),
        # a defender misspelt is told the warhammer's targets, not its own side's names
        ("glitters-d20/party-vs-monsters.yaml", "hit_rate:warhammer/Trol=0.5",
         "expected a defender after '/' (Troll, Imp, Ghoul 1, Ghoul 2); got 'Trol'; did "
         "you mean 'Troll'?"),
    ],
)  # fmt: skip
def test_a_target_that_can_never_be_measured_exits_2(
    scenario: str, target: str, expected: str
) -> None:
    """Such a target ran every value and printed '—' for each; ``--precision-on`` ran to
    its cap."""
    path = ROOT / "scenarios" / scenario
    for option, value in (("--target", target), ("--precision-on", target.split("=")[0])):
        args = ["--vary", "Troll.hp=30:60" if "monsters" in scenario else "Ogre.hp=30:60"]
        command = (["tune", str(path), *args, "--target", target] if option == "--target" else
                   ["run", str(path), "--precision", "0.1", option, value])  # fmt: skip
        done = CliRunner().invoke(main, [*command, "-n", "500"])
        assert done.exit_code == 2, done.output
        assert f"{option} {value}: {expected}" in " ".join(done.output.split())


def test_a_spirits_attack_is_a_target() -> None:
    """A Spirit makes the attacks under its ``spirit:`` (docs/rules/shattered-spirits.md):
    a figure of one is measured, not refused as an attack nobody makes."""
    path = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"
    found = simlab.tune(path, "Brute.hp=20:24", "hit_rate:talon-rake/Brute=0.5", n=500,
                        exact=False)  # fmt: skip
    assert all(0 < e.figure < 1 for e in found.evaluations)


def test_a_figure_the_field_does_not_move_is_said_so(tmp_path: Path) -> None:
    """The hero's vigor does not enter a novice duel's win rate: 0.515 [0.50114, 0.52884]
    at every value. The tuning printed ``0.52 ± 0.02``, an interval that holds the target
    0.5, beside "no figure's interval contains 0.5", called the figure monotone and the
    target "outside what Novice Hero.vigor = 1..30 reaches". It shows the interval that
    leaves 0.5 out and says the field does not move the figure."""
    path = ROOT / "scenarios/opposed-tiers/novice-duel.yaml"
    done = CliRunner().invoke(main, ["tune", str(path), "--vary", "Novice Hero.vigor=1:30",
                                     "--target", "win_rate:hero=0.5", "-n", "5000",
                                     "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 1, done.output
    text = " ".join(done.output.split())
    doc = json.loads((tmp_path / "tune.json").read_text())
    assert len({(e["figure"], *e["figure_ci"]) for e in doc["evaluations"]}) == 1
    # The figure is the hero's wins in a plain run of the same dice, its interval the
    # Wilson interval of that count, both worked out here; the interval leaves 0.5 out.
    wins = int(simlab.simulate(path, n=5000).win_rates().set_index("side").wins["hero"])
    wilson = sps.binomtest(wins, 5000).proportion_ci(0.95, method="wilson")
    assert doc["figure"] == wins / 5000
    assert doc["figure_ci"] == pytest.approx([wilson.low, wilson.high], rel=1e-9)
    assert not wilson.low <= 0.5 <= wilson.high
    shown = f"{wins / 5000:.3f} [{wilson.low:.3f}, {wilson.high:.3f}]"
    assert shown in text and "± 0.02" not in text
    assert (f"Unreachable: win_rate:hero is {shown} at every value of Novice "
            "Hero.vigor tried (1..30): the field does not move it") in text  # fmt: skip
    assert "by a grid (the figure is the same at every value tried)" in text
    assert "monotone" not in text and "outside what" not in text
    # tune.json said "monotone": true with no "flat"
    assert doc["flat"] is True and doc["monotone"] is None and doc["precision_on"] == []


def test_tune_json_and_the_repr_say_what_the_terminal_says(tmp_path: Path) -> None:
    """tune.json had no ``flat`` nor ``precision_on``, and called a median never reached
    monotone; the repr printed ``0.5023 [0.5023, 0.5023] (exact)`` and ``0.9133 [0.876,
    0.9402]``."""
    duel = simlab.load(SS_DUEL)
    exact = simlab.tune(duel, "Defender.hp=5:60", "down_by_round:Defender@5=0.5")
    # P(down by round 5) = P(five strikes deal at least its hp), by convolution; the hp
    # that brings it nearest 0.5 is the one tune finds
    strike = ss_exact.attack_outcome(duel, 0, "strike", 1).damage_pmf
    five = functools.reduce(np.convolve, [strike] * 5)
    by_round_5 = {hp: float(five[hp:].sum()) for hp in range(5, 61)}
    assert exact.value == min(by_round_5, key=lambda hp: abs(by_round_5[hp] - 0.5))
    assert f"gives {by_round_5[exact.value]:.4f} (exact);" in repr(exact), repr(exact)
    simulated = simlab.tune(duel, "Defender.hp=5:60", "down_by_round:Defender@5=0.5",
                            exact=False, n=2000)  # fmt: skip
    best = simulated.best
    from simlab.report.terminal import estimate

    shown = estimate(best.figure, best.lo, best.hi, (0.0, 1.0))
    assert f"gives {shown} (simulated);" in repr(simulated), repr(simulated)
    doc = simulated.document()
    assert doc["flat"] is False and doc["monotone"] is True and doc["precision_on"] == []
    out = tmp_path / "never"
    CliRunner().invoke(main, ["tune", str(SS_DUEL), *NEVER_DOWN, "--target",
                              "median_time_to_down:Defender=2", "-n", "2000",
                              "--out", str(out)])  # fmt: skip
    assert json.loads((out / "tune.json").read_text())["monotone"] is None


@pytest.mark.parametrize("seed", range(200))
def test_a_tuned_figure_shows_the_verdict_its_interval_gives(seed: int) -> None:
    """Every interval printed holds the target exactly when the figure is consistent
    with it: printed as the tables print one, an interval that leaves the target out by
    less than its rounding held it."""
    import math
    import re

    import numpy as np

    from simlab.report.tuning_terminal import tuned_figure

    rng = np.random.default_rng(seed)
    target = float(rng.uniform(0.05, 0.95))
    half = float(10 ** rng.uniform(-4, -1)) * min(target, 1 - target)  # a rate's interval
    value = target + float(rng.choice([-1, 1])) * half * float(rng.uniform(0.5, 1.5))
    lo, hi = value - half * float(rng.uniform(0.8, 1)), value + half * float(rng.uniform(0.8, 1))
    e = Evaluation(1, value, lo, hi, "simulated")
    shown = tuned_figure("win_rate", e, target)
    numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", shown)]
    if "±" in shown:
        low, high = numbers[0] - numbers[1], numbers[0] + numbers[1]
    else:
        low, high = numbers[1], numbers[2]
    assert (low <= target <= high) == e.contains(target), (shown, lo, hi, target)
    assert low <= lo + 1e-12 and hi - 1e-12 <= high and math.isfinite(high)


def test_an_exact_figure_reads_on_its_side_of_the_target() -> None:
    """An exact 0.49999 printed to 4 digits, ``0.5 (exact)``, beside "no value is
    consistent with 0.5"."""
    from simlab.report.tuning_terminal import tuned_figure

    assert tuned_figure("win_rate", Evaluation(1, 0.49999, 0.49999, 0.49999, "exact"), 0.5) == (
        "0.49999 (exact)")  # fmt: skip
    assert tuned_figure("win_rate", Evaluation(1, 0.4, 0.4, 0.4, "exact"), 0.5) == (
        "0.4000 (exact)")  # fmt: skip


def test_a_median_the_target_lies_outside_reads_in_whole_rounds() -> None:
    """A median time-to-down whose interval left the target out read ``6.0000 [6.0000,
    6.0000]`` (target 3), ``4.0000 [4.0000, 4.0000]`` (target 4.5): whole rounds, as a
    median is, already keep the target out."""
    from simlab.report.tuning_terminal import tuned_figure

    median = "median_time_to_down"
    assert tuned_figure(median, Evaluation(0, 6.0, 6.0, 6.0, "simulated"), 3) == "6 [6, 6]"
    assert tuned_figure(median, Evaluation(21, 4.0, 4.0, 4.0, "simulated"), 4.5) == "4 [4, 4]"
    assert tuned_figure(median, Evaluation(9, 7.0, 6.0, 8.0, "simulated"), 9) == "7 [6, 8]"
    assert tuned_figure(median, Evaluation(1, 5.0, 5.0, 5.0, "simulated"), 5) == "5 [5, 5]"


def test_monotonicity_is_judged_beyond_noise() -> None:
    def ev(x: float, f: float, half: float) -> Evaluation:
        return Evaluation(x, f, f - half, f + half, "simulated" if half else "exact")

    assert _monotone([ev(1, 0.2, 0.05), ev(2, 0.18, 0.05), ev(3, 0.6, 0.05)])  # a wobble
    assert not _monotone([ev(1, 0.2, 0.01), ev(2, 0.5, 0.01), ev(3, 0.3, 0.01)])
    assert not _monotone([ev(1, 2, 0), ev(2, 3, 0), ev(3, 2, 0)])
    assert _monotone([ev(1, 3, 0), ev(2, 3, 0), ev(3, 2, 0)])


def test_exact_figures_apart_by_rounding_alone_do_not_reverse(tmp_path: Path) -> None:
    """``ss-duel``'s exact down rate is 1 at every HP, summed to 0.9999999999999998 at
    one value and 0.9999999999999999 at the next: that step up by 1e-16 broke the
    monotonicity of an exact figure, whose interval has no width, and the tuning said
    "the figure is NOT monotone"."""
    exact_one = [1.0, 0.9999999999999998, 0.9999999999999999, 0.9999999999999996]
    assert _monotone([Evaluation(x, f, f, f, "exact") for x, f in enumerate(exact_one)])
    assert not _monotone([Evaluation(x, f, f, f, "exact") for x, f in enumerate([1, 1.5, 1])])
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), "--vary", "Defender.hp=5:60",
                                     "--target", "down_rate:Defender=0.5",
                                     "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "NOT monotone" not in done.output
    assert json.loads((tmp_path / "tune.json").read_text())["monotone"] is not False


def test_a_target_no_value_hits_gives_the_closest_and_no_range(duel: Any) -> None:
    """Mean damage falls with Guard in steps; 2 lies between two of them: the closest value
    is reported, and no value is consistent (exact figures have no noise)."""
    result = simlab.tune(duel, "Defender.guard=0:6", "mean_damage:strike=2")
    assert {e.method for e in result.evaluations} == {"exact"}
    damage = {g: exact(duel.with_({"Defender.guard": g})).pairs[0].mean_damage for g in range(7)}
    assert abs(damage[result.value] - 2) == min(abs(d - 2) for d in damage.values())
    assert result.monotone and result.reachable and result.consistent is None
    assert [e.value for e in result.neighbours()] == [result.value - 1, result.value + 1]


class _Parabola(_Evaluator):
    """A figure (x − 10)², exact, to test the search without a simulation."""

    def _measure(self, value: float) -> Evaluation:
        return Evaluation(value, (value - 10) ** 2, (value - 10) ** 2, (value - 10) ** 2, "exact")


class _Wobble(_Evaluator):
    """A rate rising from 0.078 at 30 to 0.2 at 90, a hair lower at 31 (noise): the
    figure of a death rate against the Troll's HP, simulated."""

    def _measure(self, value: float) -> Evaluation:
        figure = 0.077 if value == 31 else 0.078 + (value - 30) * 0.002
        return Evaluation(value, figure, figure - 0.009, figure + 0.009, "simulated")


def test_an_unreachable_target_gives_the_closest_end(duel: Any) -> None:
    """A target below every figure: the answer was the end's neighbour, 31, whose figure
    the noise put a hair closer, rather than the end of the range, 30 — as if the search
    had found something there. It is the end, the way to widen the range."""
    target = parse_target("down_rate:Defender=0.05")
    result = TuneResult("x", "r", 0, 1, "Defender.hp", 30, 90, True, target)
    _search(_Wobble(duel, "Defender.hp", target, 1, 0, lambda s: None, False), result)
    assert not result.reachable and result.consistent is None
    assert result.value == 30
    assert [e.value for e in result.neighbours()] == [31]


class _Rounds(_Evaluator):
    """A median time-to-down in whole rounds against the Guard's HP, simulated with no
    spread: 3 rounds up to 16, 4 from 17 to 24, 5 from 25 to 30, 6 beyond."""

    def _measure(self, value: float) -> Evaluation:
        figure = 3.0 if value < 17 else 4.0 if value <= 24 else 5.0 if value <= 30 else 6.0
        return Evaluation(value, figure, figure, figure, "simulated")


def test_a_tie_with_no_value_consistent_is_broken_where_the_figure_crosses(duel: Any) -> None:
    """A target of 4.5 rounds: every value from 17 to 30 is 0.5 away. The tuning gave
    the first of them evaluated, 21, beside "it lies between Guard.hp=24 and 25"; the
    value given is the one next to that crossing."""
    target = parse_target("median_time_to_down:Defender=4.5")
    result = TuneResult("x", "r", 0, 1, "Defender.hp", 5, 40, True, target)
    _search(_Rounds(duel, "Defender.hp", target, 1, 0, lambda s: None, False), result)
    assert result.reachable and result.consistent is None
    assert result.value == 24
    assert [e.value for e in result.neighbours()] == [23, 25]


def test_non_monotone_figure_is_said_and_every_crossing_found(duel: Any) -> None:
    target = parse_target("mean_rounds=16")
    result = TuneResult("x", "r", 0, 1, "Defender.hp", 0, 20, True, target)
    evaluate = _Parabola(duel, "Defender.hp", target, 1, 0, lambda s: None, False)
    _search(evaluate, result)
    assert not result.monotone
    assert {6, 14} <= {e.value for e in result.evaluations}
    assert result.value in (6, 14) and result.consistent is not None
    assert "NOT monotone" in result.how()


def test_numpy_bounds_and_a_float_count_tune_as_python_ones(duel: Any) -> None:
    """A notebook's ``np.int64`` bounds search the integers (they read as floats, and
    the first value failed: "expected an integer; got 5.0"), and ``n=2e3`` is 2000."""
    import numpy as np

    target = "median_time_to_down:Defender=5"
    as_python = simlab.tune(duel, ("Defender.hp", 5, 40), target, n=2000)
    as_numpy = simlab.tune(duel, ("Defender.hp", np.int64(5), np.int64(40)), target, n=2e3)
    assert as_numpy.integer and as_numpy.encounters == 2000
    assert as_numpy.document() == as_python.document()


@pytest.mark.parametrize(
    ("twice", "expected"),
    [
        (["--vary", "Defender.hp=5:60", "--vary", "Attacker.hp=1:3",
          "--target", "median_time_to_down:Defender=5"], "expected one --vary"),
        (["--vary", "Defender.hp=5:60", "--target", "median_time_to_down:Defender=5",
          "--target", "down_rate:Defender=0.5"], "expected one --target"),
    ],
)  # fmt: skip
def test_tune_refuses_a_second_vary_or_target(twice: list[str], expected: str) -> None:
    """click kept the last of two ``--vary`` (or ``--target``) and tuned it silently."""
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), *twice, "-n", "200"])
    assert done.exit_code == 2, done.output
    assert f"{expected} (tune searches one field for one figure" in done.output
    assert "got 2" in done.output


#: The forms of tune's ``vary``, as its message names them.
FORMS = "vary: expected 'NAME.FIELD=LO:HI', (NAME.FIELD, LO, HI) or {NAME.FIELD: (LO, HI)}; got"


@pytest.mark.parametrize(
    ("vary", "extra", "words"),
    [
        (("Defender.hp", 60, 5), {}, "vary Defender.hp=60:5: expected LO:HI with numbers"),
        (("Defender.hp", 5, 5), {}, "expected LO:HI with numbers LO < HI"),
        (("Defender.hp", 5), {}, FORMS),
        ({"Defender.hp": range(5, 61)}, {}, FORMS),
        ({"Defender.hp": (5, 60), "Attacker.hp": (5, 60)}, {}, FORMS),
        ({"Defender.hp": 5}, {}, FORMS),
        ("seed=1:100", {"exact": False}, "got one to 'seed', which a tune keeps the same"),
        ("encounters=100:1000", {}, "got one to 'encounters', which a tune keeps the same"),
        ("Defender.hp=5:60", {"threads": "x"}, "expected threads as a whole number"),
        ("Defender.hp=5:60", {"precision": 2}, "expected a half-width in (0, 1]"),
        ("Defender.hp=5:60", {"precision_on": ["hit_rate:strike"]},
         "precision_on: expected precision= (or precision: in the scenario)"),
        ("Defender.hp=5:60", {"progress": 5}, "expected a function for progress; got 5"),
    ],
)  # fmt: skip
def test_the_api_checks_every_argument_even_when_the_exact_engine_answers(
    vary: Any, extra: dict[str, Any], words: str
) -> None:
    """The duel's median time-to-down is exact: nothing is simulated, and a reversed
    range, a varied seed or a bad simulation option was taken as it came."""
    from simlab.errors import InputError

    duel = simlab.load(SS_DUEL)
    with pytest.raises(InputError) as err:
        simlab.tune(duel, vary, "median_time_to_down:Defender=5", n=200, **extra)
    assert words in str(err.value)


def test_a_mapping_of_one_field_to_its_ends_tunes_it(duel: Any) -> None:
    """``simlab.sweep`` takes ``{NAME.FIELD: values}``, so a notebook tries a mapping in
    ``simlab.tune`` too: one field to its two ends is the tuple form."""
    target = "median_time_to_down:Defender=5"
    as_tuple = simlab.tune(duel, ("Defender.hp", 5, 40), target, n=2000)
    as_mapping = simlab.tune(duel, {"Defender.hp": (5, 40)}, target, n=2000)
    assert as_mapping.document() == as_tuple.document()


def test_an_exact_median_past_the_round_cap_is_not_reached_as_in_a_run(duel: Any) -> None:
    """With a round cap of 5 the Defender of ``ss-duel`` goes down in round 10 in half of
    the fights without the cap: a run says its median is not reached, and so must the
    exact value tune reads (it read 10)."""
    capped = duel.with_({"max_rounds": 5})
    ref = parse_figure("median_time_to_down:Defender", "--target")
    answer = exact(capped)
    assert answer.duel.median == 10  # the round without the cap
    assert exact_measure(answer, ref) == float("inf")
    run = simlab.simulate(capped, n=4000)
    assert run.combatants().set_index("combatant").median_time_to_down.isna()["Defender"]
    assert exact_measure(exact(duel), ref) == answer.duel.median  # under the cap: the round


#: A hidden archer's surprise shots are undefended: the exact answer (a normal round)
#: carries a caveat for every figure of the pair.
SURPRISE = """
scenario: ambush
rules: opposed-tiers
encounters: 2000
seed: 4
max_rounds: 10
attacks: {shortbow: {ranged: true}, club: {}}
sides:
  party:
    - {name: Scout, hp: 16, tier: novice, weapon_sl: 1, defense_sl: 1, reflex: 3,
       hidden: true, attacks: [shortbow]}
  raiders:
    - {name: Raider, hp: 12, tier: novice, weapon_sl: 1, defense_sl: 1, attacks: [club]}
"""

#: The Brute's stone-strike against Kaito, who can pay for a block, has no exact answer;
#: against Mira it has one, which is not the figure pooled over both defenders.
REFUSED = """
scenario: half-solved
rules: shattered-spirits
encounters: 2000
seed: 3
max_rounds: 30
attacks:
  stone-strike: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]}
  quick-jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]}
sides:
  party:
    - {name: Kaito, hp: 24, guard: 1, attacks: [quick-jab], tokens: {grit: 3},
       react: {block: {when_damage_at_least: 4}}}
    - {name: Mira, hp: 20, attacks: [quick-jab]}
  enemies:
    - {name: Brute, hp: 40, guard: 2, attacks: [stone-strike]}
"""


@pytest.mark.parametrize(
    ("text", "vary", "target"),
    [(SURPRISE, "Raider.hp=10:12", "hit_rate:shortbow=0.4"),
     (REFUSED, "Brute.hp=38:40", "mean_damage:stone-strike=3.5")],
)  # fmt: skip
def test_a_pooled_figure_the_exact_engine_does_not_give_is_simulated(
    text: str, vary: str, target: str
) -> None:
    """Tune reads an attack's figure from the exact engine only where its answer is the
    fight's figure: not where the fight moves it (a surprise round's undefended shots),
    nor where it solves one of the pairs pooled and refuses another. It read the
    fresh-defender answer of the one solved pair instead (in party-fight: the Scout's
    shortbow hits the Raider Chief 0.152 of the time exactly, 0.29 in the fight)."""
    scenario = simlab.loads(text)
    result = simlab.tune(scenario, vary, target, n=2000)
    assert {e.method for e in result.evaluations} == {"simulated"}
    field = vary.partition("=")[0]
    run = simlab.simulate(scenario.with_({field: result.value}), n=2000)
    attack = target.partition(":")[2].partition("=")[0]
    rates, damage = run.hit_rates(), run.damage()
    mine = rates.attack == attack
    if target.startswith("hit_rate"):
        expected = rates.hits[mine].sum() / rates.attempts[mine].sum()
    else:
        total = (damage.mean_damage[mine] * damage.attempts[mine]).sum()
        expected = total / damage.attempts[mine].sum()
    assert result.best.figure == pytest.approx(expected, rel=1e-12)


def test_a_round_target_is_checked_against_the_largest_cap_a_varied_cap_gives() -> None:
    """Tuning ``max_rounds`` itself: a target of 5 rounds lies within the caps of most
    values of 1..100; it was refused against the cap of 1 at the range's low end. (The
    duel's median is 10 at every cap that reaches it, so it is unreachable, and said so,
    at the least cap that gives it, 10.)"""
    result = simlab.tune(SS_DUEL, "max_rounds=1:100", "median_time_to_down:Defender=5", n=2000)
    assert not result.reachable and result.value == 10
    assert result.flat_stretch() == (10, 100)
    with pytest.raises(InputError, match=r"from 1 to 100 \(the round cap\); got 101"):
        simlab.tune(SS_DUEL, "max_rounds=1:100", "median_time_to_down:Defender=101", n=2000)


def test_the_round_of_down_by_round_is_checked_against_the_largest_cap_too() -> None:
    """``--vary max_rounds=2:20 --target down_by_round:Defender@10=0.5`` was refused as
    ``expected a round from 1 to 2``, the cap of the range's low end, where a median's
    target is checked against the largest cap; the chance of being down by round 10
    rises with the cap up to 10 and stays there."""
    result = simlab.tune(SS_DUEL, "max_rounds=2:20", "down_by_round:Defender@10=0.5", n=2000)
    assert result.reachable and result.value in (9, 10)
    with pytest.raises(InputError, match=r"from 1 to 20 \(the round cap\) after '@'; got 21"):
        simlab.tune(SS_DUEL, "max_rounds=2:20", "down_by_round:Defender@21=0.5", n=2000)


def test_a_tune_to_a_precision_checks_its_target_figure_by_default(fight: Any) -> None:
    """``--precision`` without ``--precision-on`` held every rate and mean of the fight
    (rare pairs among them) to H, and ran most values to the cap long after the target's
    win rate was known: it now checks the target's figure, as ``precision_on`` would,
    and a ``precision_on`` given still wins."""
    target = "win_rate:party=0.5"
    found = simlab.tune(fight, "Kaito.hp=5:60", target, n=20_000, precision=0.05)
    assert all(e.encounters < 20_000 for e in found.evaluations)
    assert found.precision_on == ("win_rate:party",)
    assert "each value run to precision 0.05 on win_rate:party, cap 20,000" in found.how()
    named = simlab.tune(fight, "Kaito.hp=5:60", target, n=20_000, precision=0.05,
                        precision_on=["win_rate:party"])  # fmt: skip
    assert named.document() == found.document()
    other = simlab.tune(fight, "Kaito.hp=5:60", target, n=20_000, precision=0.05,
                        precision_on=["mean_rounds"])  # fmt: skip
    assert other.precision_on == ("mean_rounds",) and "on mean_rounds" in other.how()


def test_a_tune_to_a_precision_says_how_many_values_reached_the_cap(tmp_path: Path) -> None:
    """Every value stopped at the cap, far from the precision asked, while ``how`` (the
    terminal's ``how:`` line and ``tune.json``'s) said "each value run to precision
    1e-06"; a sweep's header and ``simlab run`` say when the cap came first."""
    out = tmp_path / "tune"
    args = ["tune", str(SS_DUEL), "--vary", "Defender.hp=5:40", "--target",
            "mean_time_to_down:Defender=5", "-n", "2000", "--precision", "1e-6",
            "--no-exact"]  # fmt: skip
    done = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert done.exit_code == 0, done.output
    doc = json.loads((out / "tune.json").read_text())
    k = len(doc["evaluations"])
    said = f"; {k} of {k} values simulated reached the cap before the precision)"
    assert doc["how"].endswith(said) and said in " ".join(done.output.split())
    assert doc["capped_values"] == k and all(e["cap_reached"] for e in doc["evaluations"])
    met = simlab.tune(SS_DUEL, "Defender.hp=5:40", "mean_time_to_down:Defender=5", n=2000,
                      exact=False, precision=0.5)  # fmt: skip
    assert "cap" in met.how() and "reached the cap" not in met.how()
    assert met.document()["capped_values"] == 0
    assert not any(e["cap_reached"] for e in met.document()["evaluations"])
    plain = simlab.tune(SS_DUEL, "Defender.hp=5:40", "mean_time_to_down:Defender=5", n=2000,
                        exact=False).document()  # fmt: skip
    assert plain["capped_values"] is None
    assert not any("cap_reached" in e for e in plain["evaluations"])


def test_a_figure_that_moves_only_by_noise_is_flat(tmp_path: Path) -> None:
    """A natural 20's crit rate does not depend on the attack bonus: 0.0490 ± 0.0012 at
    every bonus, but never the very same figure, as only an exact one is. The tuning
    called it monotone ("by bisection") and pointed to an end of the range as if a
    trend led there; on the same dice no two values' figures are significantly apart,
    and it says that the field does not move it."""
    path = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"
    done = CliRunner().invoke(main, ["tune", str(path), "--vary", "rusty-spear.bonus=0:10",
                                     "--target", "crit_rate:rusty-spear=0.06", "-n", "20000",
                                     "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 1, done.output
    text = " ".join(done.output.split())
    assert ("and within its noise at every value of rusty-spear.bonus tried (0..10), no two "
            "significantly apart on the same dice: the field does not move it measurably"
            ) in text  # fmt: skip
    assert "by a grid (no value tried moves the figure beyond its noise" in text
    assert "monotone" not in text and "outside what" not in text
    doc = json.loads((tmp_path / "tune.json").read_text())
    assert len({e["figure"] for e in doc["evaluations"]}) > 1  # not the same figure
    assert doc["flat"] is True and doc["monotone"] is None and not doc["reachable"]
    found = simlab.tune(path, "rusty-spear.bonus=0:10", "crit_rate:rusty-spear=0.06", n=20000)
    assert found.flat and found.within_noise and not found.identical
    assert found.monotone is None  # it was True, where tune.json said null, the terminal "grid"
    assert repr(found).endswith("(simulated), and no value moves it beyond its noise; 6 values "
                                "evaluated; .value, .best, .evaluated(), .evaluations, "
                                ".how()>")  # fmt: skip


def test_a_figure_run_to_a_precision_within_its_noise_is_flat(tmp_path: Path) -> None:
    """With ``precision=`` the crit rate above (values unpaired: each its own count) was
    called "monotone" and steered to an end of the range, its figures 0.04911, 0.04916,
    0.04913, …, every interval overlapping every other's: that is the rule there."""
    path = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"
    found = simlab.tune(path, "rusty-spear.bonus=0:10", "crit_rate:rusty-spear=0.06",
                        n=20000, precision=0.002)  # fmt: skip
    assert found.flat and found.within_noise and not found.identical
    assert found.monotone is None and found.document()["monotone"] is None
    assert ("by a grid (no value tried moves the figure beyond its noise: every value's 95% "
            "interval overlaps every other's)") in found.how()  # fmt: skip
    assert "monotone" not in found.how()
    done = CliRunner().invoke(main, ["tune", str(path), "--vary", "rusty-spear.bonus=0:10",
                                     "--target", "crit_rate:rusty-spear=0.06", "-n", "20000",
                                     "--precision", "0.002"])  # fmt: skip
    assert done.exit_code == 1, done.output
    assert ("within its noise at every value of rusty-spear.bonus tried (0..10), every value's "
            "95% interval overlapping every other's: the field does not move it measurably"
            ) in " ".join(done.output.split())  # fmt: skip


def test_a_small_real_move_the_pairing_tells_from_noise_is_not_flat() -> None:
    """A Brute's HP raised by one lengthens the quickstart fight by 0.03 rounds: each
    figure lies inside the other's 95% interval (±0.08), which alone would call it
    noise, but on the same dice the move is far beyond its noise (p ~ 1e-8)."""
    from simlab.tuning.tune import paired_p

    found = simlab.tune(ROOT / "scenarios/shattered-spirits/quickstart.yaml", "Brute.hp=29:30",
                        "mean_rounds=7.5", n=2000, exact=False)  # fmt: skip
    a, b = found.evaluations
    assert a.lo <= b.figure <= a.hi and b.lo <= a.figure <= b.hi
    assert paired_p(a, b) < 1e-6
    assert not found.flat and found.monotone
    assert "by bisection (the figure is monotone" in found.how()
    assert found.document()["flat"] is False and found.document()["monotone"] is True


def test_no_value_moving_a_figure_beyond_noise_is_judged_on_every_pair() -> None:
    """The ends' paired test marks a figure moving one way; a figure that rises and
    falls back, its ends alike, is marked by the pairs between (Holm-corrected). Exact
    values are flat only when they give the very same figure; values run to a precision
    (no ranges to pair) when every interval overlaps every other's."""
    import numpy as np

    base = 0.5 + 0.05 * np.cos(np.arange(32) * 2.0)  # the ranges' luck, shared

    def ev(x: int, shift: float) -> Evaluation:  # its own luck: a wobble about 0
        k = base + shift + 0.001 * np.sin(np.arange(32) + x)
        return Evaluation(x, float(k.mean()), float(k.mean()) - 0.02, float(k.mean()) + 0.02,
                          "simulated", 3200, per_range=tuple(k))  # fmt: skip

    def result(evaluations: list[Evaluation]) -> TuneResult:
        target = parse_target("win_rate:party=0.9")
        return TuneResult("x", "r", 0, 3200, "Brute.hp", 0, 4, True, target,
                          evaluations=evaluations)  # fmt: skip

    noise = result([ev(x, 0.0) for x in range(5)])
    assert noise.within_noise and noise.flat and not noise.identical
    one_way = result([ev(x, 0.002 * x) for x in range(5)])  # inside each other's ±0.02
    first, last = one_way.evaluations[0], one_way.evaluations[-1]
    assert first.lo <= last.figure <= first.hi and not one_way.flat
    rise_and_fall = result([ev(0, 0.0), ev(1, 0.01), ev(2, 0.0)])
    from simlab.tuning.tune import paired_p

    ends = rise_and_fall.evaluations
    assert paired_p(ends[0], ends[-1]) >= 0.05 and not rise_and_fall.flat
    unpaired = result([dataclasses.replace(e, per_range=()) for e in noise.evaluations])
    assert not unpaired.flat
    unpaired.precision = 0.02  # run to a precision: every interval overlaps every other's
    assert unpaired.within_noise and unpaired.flat
    apart = result([ev(0, 0.0), ev(1, 0.05)])  # intervals ±0.02, 0.05 apart
    apart.precision = 0.02
    assert not apart.flat


def test_only_a_figure_that_may_not_move_is_played_again_in_ranges() -> None:
    """Pairing the values on the dice needs each played in ranges, which took a tune of
    a small sample twice as long when every value was played so. A figure two of whose
    values' intervals do not overlap moved: it is not played again; one whose intervals
    all overlap is, and gets its figure on every range."""
    duel = ROOT / "scenarios/benchmarks/ss-duel.yaml"
    moved = simlab.tune(duel, "Defender.hp=5:40", "mean_rounds=5", n=2000,
                        exact=False)  # fmt: skip
    assert not moved.flat and all(e.per_range == () for e in moved.evaluations)
    path = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"
    flat = simlab.tune(path, "rusty-spear.bonus=0:10", "crit_rate:rusty-spear=0.06", n=20000)
    assert flat.within_noise
    assert all(len(e.per_range) == 32 for e in flat.evaluations)


GLITTERS_DUEL = Path(__file__).resolve().parents[2] / "scenarios/glitters-d20/training-duel.yaml"


def _tuned_rows(target: str) -> dict[str, str]:
    """``simlab tune``'s rows of the glitters training duel over Dummy.hp=5:60 for
    ``target``: each value's figure as printed, by value."""
    done = CliRunner().invoke(main, ["tune", str(GLITTERS_DUEL), "--vary", "Dummy.hp=5:60",
                                     "--target", target])  # fmt: skip
    assert done.exit_code in (0, 1), done.output
    rows = [line.replace("◀", "").strip().split(maxsplit=1) for line in done.output.splitlines()]
    return {row[0]: row[1].rsplit(" exact", 1)[0].strip() for row in rows
            if len(row) == 2 and row[0].isdigit() and row[1].endswith("exact")}  # fmt: skip


def test_an_exact_rate_a_hair_below_1_never_reads_as_1() -> None:
    """The Dummy's down rate, 1 − 4·10⁻¹⁶ at every HP (down by the cap of 40 rounds),
    read ``1 (exact)``, as if certain; and P(down by round 10) of 0.9999916 at HP 31,
    beside a target of 0.99999, read ``1`` where the decimals that show it below 1
    would have shown it on the target (``0.99999``)."""
    downs = _tuned_rows("down_rate:Dummy=0.5")
    assert downs and set(downs.values()) == {"> 0.99999999 (exact)"}, downs
    by_round = _tuned_rows("down_by_round:Dummy@10=0.99999")
    assert by_round["31"] == "0.999992 (exact)", by_round
    assert all(not cell.startswith(("1 ", "0.99999 ")) for cell in by_round.values()), by_round


def test_the_exact_figures_of_a_tune_read_alike_in_their_column() -> None:
    """A natural d20's hit rates are multiples of 0.05: written to 4 significant digits,
    the neighbours' column read ``0.55``, ``0.6``, ``0.65`` (``0.514`` beside ``0.5471``
    elsewhere), trailing zeros dropped. Every exact figure is written as every table
    writes an exact answer, to 4 decimals."""
    duel = ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml"
    done = CliRunner().invoke(main, ["tune", str(duel), "--vary", "mace.bonus=0:10",
                                     "--target", "hit_rate:mace=0.62", "-n", "200"])  # fmt: skip
    assert done.exit_code == 0, done.output
    figures = re.findall(r"^ \d+ .*? (\S+) \(exact\) +exact", done.output, re.M)
    assert figures == ["0.5500", "0.6000", "0.6500"], done.output
    assert "gives hit_rate:mace = 0.6000 (exact; target 0.62)" in done.output


def test_a_median_the_cap_does_not_reach_reads_not_reached_not_inf() -> None:
    """A tuning whose median time-to-down is reached at no value: its repr says why, as
    the terminal does, and its evaluations say ``not reached`` where they hold ``inf``."""

    scn = simlab.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    tuned = simlab.tune(scn, "Kaito.hp=150:160", "median_time_to_down:Kaito=8", n=500, seed=7)
    assert all(math.isinf(e.figure) for e in tuned.evaluations)
    assert "fewer than half of the encounters had the combatant down by the round cap" in repr(
        tuned
    )
    shown = repr(tuned.evaluations[0])
    assert "inf" not in shown
    assert shown.startswith("Evaluation(value=150, figure=not reached, lo=not reached, ")
    assert repr(Evaluation(3, 0.5, 0.25, 0.75, "exact")) == (
        "Evaluation(value=3, figure=0.5, lo=0.25, hi=0.75, method='exact', encounters=None, "
        "capped=False)"
    )


def test_the_values_tried_are_a_table_of_figures_and_intervals(duel: Any) -> None:
    """``evaluated()`` is the table of ``evaluations``, a column named after the field
    and after the figure, as the other results' tables; the value found and the values
    consistent with the target are marked, and a median not reached reads so."""
    tuned = simlab.tune(duel, "Defender.hp=5:60", "median_time_to_down:Defender=5", n=500)
    table = tuned.evaluated()
    done = tuned.evaluations
    assert list(table["Defender.hp"]) == [e.value for e in done]
    assert list(table.median_time_to_down) == [e.figure for e in done]
    assert list(table.median_time_to_down_ci95_lo) == [e.lo for e in done]
    assert list(table.median_time_to_down_ci95_hi) == [e.hi for e in done]
    assert list(table.method) == [e.method for e in done]
    assert list(table.loc[table.best, "Defender.hp"]) == [tuned.value]
    assert tuned.consistent is not None
    lo, hi = tuned.consistent
    assert set(table.loc[table.consistent, "Defender.hp"]) == {
        e.value for e in done if lo <= e.value <= hi
    }
    assert table.encounters.isna().all()  # exact: nothing simulated
    assert table.attrs["target"] == "median_time_to_down:Defender=5"
    scn = simlab.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    never = simlab.tune(scn, "Kaito.hp=150:151", "median_time_to_down:Kaito=8", n=500, seed=7)
    shown = never.evaluated()
    assert list(shown.measured_text) == ["not reached"] * len(never.evaluations)
    assert list(shown.encounters) == [500] * len(never.evaluations)
    assert ".evaluated()" in repr(never)


def test_a_median_not_reached_whose_interval_holds_the_target_is_consistent_everywhere(
    tmp_path: Path,
) -> None:
    """A median time-to-down the round cap does not reach, its interval from 8 rounds to
    beyond the cap, does not rule out a target of 10: the API's table called it
    consistent while ``tune.html``'s table said "no" (it also asked for a finite
    figure). One predicate, :meth:`Evaluation.contains`, answers both."""
    target = parse_target("median_time_to_down:Defender=10")
    result = TuneResult("x", "shattered-spirits", 0, 2000, "Defender.hp", 20, 30, True, target,
                        evaluations=[Evaluation(20, 10.0, 9.0, 11.0, "simulated", 2000),
                                     Evaluation(30, math.inf, 8.0, math.inf, "simulated", 2000)],
                        value=20, consistent=(20, 30))  # fmt: skip
    table = result.evaluated()
    assert table.consistent.tolist() == [True, True]
    written = render_tune(result, tmp_path)
    rows = [line for line in written["markdown"].read_text().splitlines()
            if line.startswith("| 30 ")]  # fmt: skip
    assert len(rows) == 1 and "| yes |" in rows[0], rows
    # and the row shows why: the interval that reaches down to the target
    assert "not reached [8, not reached]" in rows[0], rows
    assert table.measured_text.tolist()[1] == "not reached [8, not reached]"


@pytest.mark.parametrize(
    ("target", "table", "column"),
    [("down_by_round:Defender@3=0.002", "combatants", None),
     ("median_time_to_down:Defender=5", "combatants", "median_time_to_down_ci_kind"),
     ("mean_damage:strike=3", "damage", "mean_damage_ci_kind")],
)  # fmt: skip
def test_the_values_tried_say_the_kind_of_each_interval_as_a_run_does(
    duel: Any, target: str, table: str, column: str | None
) -> None:
    """``evaluated()`` gave a figure's interval without saying what kind it is, where a
    run's and a sweep's tables have ``*_ci_kind``: a simulated value's is the kind the
    run's table gives the same figure (a rare rate, Clopper–Pearson, not Wilson), an
    exact value's ``exact``."""
    figure = target.partition(":")[0]
    tuned = simlab.tune(duel, "Defender.hp=20:24", target, n=400, exact=False)
    kinds = tuned.evaluated().set_index("Defender.hp")[f"{figure}_ci_kind"]
    for value, kind in kinds.items():
        run = simlab.simulate(duel.with_({"Defender.hp": value}), n=400)
        if column is None:  # P(down by round 3): a rate of every encounter, rare here
            k = int(run.tallies.down_round[1, :4].sum())
            expected = "clopper-pearson" if min(k, 400 - k) < 10 else "wilson"
        else:
            expected = getattr(run, table)()[column].iloc[0]
        assert kind == expected, (value, kind, expected)
    exact_kinds = simlab.tune(duel, "Defender.hp=20:24", target).evaluated()
    assert set(exact_kinds.method) == {"exact"}
    assert set(exact_kinds[f"{figure}_ci_kind"]) == {"exact"}


@pytest.mark.parametrize(("vary", "target", "said"),
                         [("Defender.hp=5:30", 10, "end, 30: values above it"),
                          ("Defender.hp=5:60", 2, "end, 5: values below it")])  # fmt: skip
def test_a_consistent_range_cut_by_the_range_searched_says_so(
    duel: Any, vary: str, target: int, said: str
) -> None:
    """A consistent range that reaches an end of the range searched read as the whole of
    it (``Defender.hp = 29..30`` over 5..30, where HP 31 gives the median of 10 rounds
    too): the terminal, the page's sentence and the repr say that values past that end
    may be consistent too, and a range that holds the whole of it says nothing."""
    tuned = simlab.tune(duel, vary, f"median_time_to_down:Defender={target}")
    lo, hi = tuned.consistent or (None, None)
    past = hi + 1 if said.startswith(f"end, {hi:g}") else lo - 1
    assert _exact_median(duel, int(past)) == target  # the note is true: it goes on
    assert f"(it reaches the range's {said} may be consistent too)" in repr(tuned)
    done = CliRunner().invoke(main, ["tune", str(SS_DUEL), "--vary", vary, "--target",
                                     f"median_time_to_down:Defender={target}"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert f"range's {said}" in " ".join(done.output.split())
    inside = simlab.tune(duel, "Defender.hp=20:40", f"median_time_to_down:Defender={10}")
    assert inside.consistent == (29, 31)
    assert "range's" not in repr(inside) and inside.past_the_range() == ""


def test_a_time_to_down_of_a_combatant_nobody_attacks_is_refused_before_any_run() -> None:
    """``--target median_time_to_down:Attacker=5`` on a duel whose Defender never fights
    back simulated 6 values and exited 1 "unreachable": it is refused up front, exit 2,
    with the reason; ``--precision-on`` such a figure too."""
    duel = str(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    reason = ("expected a combatant that can go down; got 'Attacker': no one attacks it "
              "(nobody on another side makes an attack), so it never does")  # fmt: skip
    for option, value, command in (
        ("--target", "median_time_to_down:Attacker=5",
         ["tune", duel, "--vary", "Defender.hp=5:60"]),
        ("--target", "mean_time_to_down:Attacker=5", ["tune", duel, "--vary", "Defender.hp=5:60"]),
        ("--precision-on", "down_rate:Attacker", ["run", duel, "--precision", "0.1"]),
    ):  # fmt: skip
        done = CliRunner().invoke(main, [*command, option, value, "-n", "500"])
        assert done.exit_code == 2, done.output
        text = " ".join(done.output.split())
        assert f"{option} {value}: {reason}" in text and "simulated" not in text


def test_a_combatant_harmed_without_attacks_can_go_down() -> None:
    """Nobody attacks it, but Rushing terrain (Shattered Spirits) or a starting Bleeding
    (glitters-d20) can down it: its time-to-down is measured, not refused."""
    duel = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    assert duel.down_problem("Attacker") is not None and duel.down_problem("Defender") is None
    assert simlab.override(duel, {"Attacker.rushing": 1}).down_problem("Attacker") is None
    glitters = simlab.load(ROOT / "scenarios/glitters-d20/training-duel.yaml")
    assert glitters.down_problem("Fighter") is not None
    assert simlab.override(glitters, {"Fighter.bleeding": 2}).down_problem("Fighter") is None
    rushed = simlab.tune(simlab.override(duel, {"Attacker.rushing": 5}), "Attacker.hp=5:10",
                         "down_rate:Attacker=0.5", n=500, exact=False)  # fmt: skip
    assert all(e.figure > 0 for e in rushed.evaluations)


def test_the_repr_and_values_tried_show_a_figure_as_its_verdict_says_it() -> None:
    """A win rate of 0.515 [0.501, 0.529] against a target of 0.5: the terminal and the
    page say it so, and "no value" is consistent; the repr said "unreachable, the closest
    figure reached is 0.52 ± 0.02", and ``evaluated()``'s ``measured_text`` the same
    beside ``consistent`` False, an interval that reads as holding the target."""
    target = parse_target("win_rate:enemies=0.5")
    result = TuneResult("x", "shattered-spirits", 0, 2000, "Kaito.hp", 10, 11, True, target,
                        evaluations=[Evaluation(10, 0.515, 0.501, 0.529, "simulated", 2000),
                                     Evaluation(11, 0.6, 0.585, 0.615, "simulated", 2000)],
                        value=10, reachable=False)  # fmt: skip
    terminal = " ".join(tune_sentences(result))
    assert "the closest figure reached is 0.515 [0.501, 0.529], at Kaito.hp=10" in terminal
    said = repr(result)
    assert "the closest figure reached is 0.515 [0.501, 0.529] (simulated), at Kaito.hp=10" in said
    table = result.evaluated()
    assert table.consistent.tolist() == [False, False]
    assert table.measured_text.tolist() == ["0.515 [0.501, 0.529]", "0.60 [0.58, 0.62]"]


def test_a_tune_to_a_precision_says_its_figure_within_it_everywhere() -> None:
    """Held to 0.01 × 2.5, a mean damage of 2.4991 in [2.4751, 2.5231] read ``2.50
    [2.47, 2.53]`` in the repr and ``evaluated()``'s ``measured_text``, half its width
    0.03, past its limit: each says it as the terminal does now, within it."""
    target = parse_target("mean_damage:strike=2.2")
    result = TuneResult("x", "shattered-spirits", 1, 200_000, "Defender.guard", 0, 4, True,
                        target, evaluations=[Evaluation(1, 2.4991, 2.4751, 2.5231, "simulated",
                                                        3125)],
                        value=1, reachable=False, precision=0.01)  # fmt: skip
    assert "the closest figure reached is 2.4991 [2.4751, 2.5231]" in repr(result)
    assert result.evaluated().measured_text.tolist() == ["2.4991 [2.4751, 2.5231]"]
    assert "2.4991 [2.4751, 2.5231]" in " ".join(tune_sentences(result))


def test_the_repr_of_a_figure_the_field_does_not_move_says_unreachable(duel: Any) -> None:
    """The attacker's HP does not move its hit rate: the repr said ``Attacker.hp=5 gives
    0.9167 (exact), as every value does``, as if the target 0.5 were met there, where the
    terminal says ``Unreachable: … the field does not move it`` and ``reachable`` is
    False."""
    found = simlab.tune(duel, "Attacker.hp=5:60", "hit_rate:strike=0.5")
    assert found.identical and not found.reachable
    assert ("for hit_rate:strike=0.5: unreachable, Attacker.hp=5 gives 0.9167 (exact), as "
            "every value does; 6 values evaluated") in repr(found)  # fmt: skip
    met = simlab.tune(duel, "Attacker.hp=5:60", "hit_rate:strike=0.9166666666666666")
    assert met.identical and met.reachable and "unreachable" not in repr(met)
