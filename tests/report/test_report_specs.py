"""Balance specs (`expect:`): validation with locations, measured verdicts, `simlab check`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console
from rich.table import Table
from scipy import stats as sps

import simlab
from simlab.analysis.specs import evaluate, evaluate_all
from simlab.cli import main
from simlab.errors import ScenarioError
from simlab.report import render, terminal
from simlab.report.results import ScenarioRun
from simlab.scenario.load import loads
from tests.report.report_synthetic import Truth, synthetic_result
from tests.support import AMBUSH, errors_of, slipped, terminal_console

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
BASE = QUICKSTART.read_text().split("\nexpect:")[0]  # the scenario without its own specs


def _located(expect: str) -> tuple[int, str]:
    """Load the quickstart with an ``expect:`` block; return (line, message) of the error."""
    text = BASE + "\nexpect:\n" + expect
    with pytest.raises(ScenarioError) as info:
        loads(text, "q.yaml")
    problem = info.value.problems[0]
    assert problem.file == "q.yaml"
    assert problem.line is not None
    return problem.line - len(BASE.splitlines()) - 1, problem.message  # line within the block


@pytest.mark.parametrize(
    ("expect", "line", "words"),
    [
        ("  - {figure: hit_rate, attack: stone-strike, at_least: 0.6}\n"
         "  - {figure: median_time_to_down, combatant: Brutus, between: [3, 5]}\n",
         2, "expected a combatant of this scenario (Kaito, Brute); got 'Brutus'"),
        ("  - {figure: hit_rate, attack: stone-strik, at_least: 0.6}\n",
         1, "expected an attack defined under 'attacks:' (stone-strike, quick-jab)"),
        ("  - {figure: hit_rate, attack: stone-strike, attacker: Kaito, at_least: 0.6}\n",
         1, "expected a combatant that uses 'stone-strike'; got 'Kaito'"),
        ("  - {figure: win_rate, side: heroes, at_least: 0.5}\n",
         1, "expected a side of this scenario (party, enemies); got 'heroes'"),
        ("  - {figure: down_rate, combatant: Brute}\n",
         1, "expected exactly one of at_least, at_most, between; got none"),
        ("  - {figure: down_rate, combatant: Brute, between: [0.9, 0.1]}\n",
         1, "expected [low, high] with low ≤ high"),
        ("  - {figure: damage_at_least, attack: stone-strike, at_least: 0.2}\n",
         1, "expected key 'damage' for figure 'damage_at_least'"),
        ("  - {figure: hit_rate, attack: quick-jab, combatant: Brute, at_least: 0.6}\n",
         1, "expected only an attack (narrowed by attacker or defender) for 'hit_rate' (it "
            "is a figure of one attack's rolls); got combatant: Brute (for the attacks "
            "Brute makes or takes, write attacker: or defender:)"),
        ("  - figure: hitrate\n    attack: quick-jab\n    at_least: 0.6\n",
         1, "expected one of 'hit_rate', 'crit_rate'"),
        ("  - {figure: hit_rate, attack: quick-jab, at_least: high}\n",
         1, "expected a number; got 'high'"),
        ("  - {figure: hit_rate, attack: quick-jab, defender: Kaito, at_least: 0.5}\n",
         1, "expected a combatant that 'quick-jab' can target, on another side than its "
            "attackers; got 'Kaito'"),
        ("  - {figure: hit_rate, attack: quick-jab, at_least: .nan}\n",
         1, "expected a finite number; got nan"),
        ("  - {figure: down_rate, combatant: Brute, between: [0, .inf]}\n",
         1, "expected a finite number; got inf"),
        # a rate's bound beyond 0..1 would pass (or fail) whatever was measured
        ("  - {figure: win_rate, side: enemies, at_most: 60}\n",
         1, "expected a bound from 0 to 1 for the rate 'win_rate' (0.6 for 60%); got 60"),
        ("  - {figure: hit_rate, attack: quick-jab, between: [0.5, 1.2]}\n",
         1, "expected a bound from 0 to 1 for the rate 'hit_rate' (0.6 for 60%); got 1.2"),
        ("  - {figure: down_by_round, combatant: Kaito, round: 3, at_least: -0.1}\n",
         1, "expected a bound from 0 to 1 for the rate 'down_by_round' (0.6 for 60%); got -0.1"),
        # past the round cap nobody is observed (tune refuses such a target too)
        ("  - {figure: down_by_round, combatant: Kaito, round: 31, at_least: 0.1}\n",
         1, "expected a round from 1 to 30 (the round cap); got 31"),
        # an encounter lasts from round 1 to the round cap: beyond, a bound in rounds is
        # one every run passes (at_least: -3) or none can
        ("  - {figure: mean_rounds, at_least: -3}\n",
         1, "expected a bound from 1 to 30 rounds for 'mean_rounds' (an encounter lasts "
            "from round 1 to the round cap, 30); got -3"),
        ("  - {figure: win_rate, side: enemies, at_least: 0.5}\n"
         "  - {figure: mean_rounds, between: [5, 31]}\n",
         2, "expected a bound from 1 to 30 rounds for 'mean_rounds' (an encounter lasts "
            "from round 1 to the round cap, 30); got 31"),
        ("  - {figure: median_time_to_down, combatant: Kaito, at_least: 0.5}\n",
         1, "expected a bound of 1 round or more for 'median_time_to_down' (nobody goes "
            "down before round 1; past the round cap, 30, it holds a median the cap does "
            "not reach); got 0.5"),
    ],
)  # fmt: skip
def test_bad_expect_entries_are_located(expect: str, line: int, words: str) -> None:
    got_line, message = _located(expect)
    assert got_line == line
    assert words in message


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("{figure: draw_rate, at_most: 0.1, side: hero}",
         "expected no subject for 'draw_rate' (it is one figure of the whole fight); got "
         "side: hero"),
        ("{figure: mean_rounds, round: 3, at_most: 9}",
         "expected no subject for 'mean_rounds' (it is one figure of the whole fight); got "
         "round: 3"),
        ("{figure: win_rate, side: enemies, attack: quick-jab, at_least: 0.5}",
         "expected only a side for 'win_rate' (it is a figure of one side); got attack: "
         "quick-jab"),
        ("{figure: down_by_round, combatant: Kaito, round: 3, side: party, at_least: 0.1}",
         "expected only a combatant and a round for 'down_by_round' (it is a figure of "
         "one combatant); got side: party"),
        ("{figure: damage_at_least, attack: quick-jab, damage: 3, side: party, at_most: 1}",
         "expected only an attack and a damage threshold (narrowed by attacker or "
         "defender) for 'damage_at_least' (it is a figure of one attack's rolls); got "
         "side: party"),
    ],
)  # fmt: skip
def test_a_subject_the_figure_does_not_take_is_refused_at_its_key(spec: str, words: str) -> None:
    """``side: hero`` on draw_rate read "expected only no subject with figure 'draw_rate';
    got 'side'"; each wrong subject now says what the figure takes and why, at its key."""
    with pytest.raises(ScenarioError) as info:
        loads(f"{BASE}\nexpect:\n  - {spec}\n", "q.yaml")
    problem = info.value.problems[0]
    key = words.split("got ")[-1].split(":")[0]
    at_key = len("  - ") + spec.index(f" {key}:") + 2  # the column of the key's first letter
    assert (problem.line, problem.col) == (len(BASE.splitlines()) + 2, at_key)
    assert problem.message == words


SPIRITS = (ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml").read_text()


def test_a_spirits_attack_is_one_its_spirit_makes() -> None:
    """A Spirit makes the attacks under its ``spirit:``: a spec of Kestrel's talon-rake was
    refused as an attack Kestrel does not use, and one at its own party is still refused."""
    spec = (
        "  - {figure: hit_rate, attacker: Kestrel, attack: talon-rake, defender: %s, "
        "at_least: 0.1}\n"
    )
    loads(SPIRITS.replace("expect:\n", "expect:\n" + spec % "Brute", 1), "s.yaml")
    with pytest.raises(ScenarioError) as info:
        loads(SPIRITS.replace("expect:\n", "expect:\n" + spec % "Mira", 1), "s.yaml")
    assert ("expected a combatant that 'talon-rake' can target, on another side than its "
            "attackers; got 'Mira'") in info.value.problems[0].message  # fmt: skip


BRUTES = "    - {name: Brute, hp: 30, guard: 2, speed: 5, attacks: [stone-strike]}\n"
TWO_BRUTES_AND_A_THIRD = BRUTES.replace("name: Brute,", "name: Brute, count: 2,") + (
    "    - {name: Brute 3, hp: 90, guard: 4, speed: 5, attacks: [stone-strike]}\n"
)


@pytest.mark.parametrize("key", ["combatant", "defender"])
def test_a_name_that_would_pool_a_lookalike_with_the_copies_is_refused(key: str) -> None:
    """'Brute' (count: 2) beside a 'Brute 3' of its own: 'Brute' pooled all three, so a
    spec measured the copies and a stronger combatant together, silently."""
    text = BASE.replace(BRUTES, TWO_BRUTES_AND_A_THIRD)
    assert TWO_BRUTES_AND_A_THIRD in text
    loads(text, "q.yaml")  # the names themselves are fine
    spec = {"combatant": "{figure: down_rate, combatant: Brute, at_least: 0.5}",
            "defender": "{figure: hit_rate, attack: quick-jab, defender: Brute, "
                        "at_least: 0.5}"}[key]  # fmt: skip
    with pytest.raises(ScenarioError) as info:
        loads(text + f"\nexpect:\n  - {spec}\n", "q.yaml")
    assert info.value.problems[0].message == (
        "expected a name that designates only the copies of the combatant entry 'Brute' "
        "(count: 2) on side 'enemies'; got 'Brute', which would pool the combatant 'Brute 3' "
        "on side 'enemies' with them (rename 'Brute 3': 'Brute N' reads as a copy)"
    )
    loads(text + "\nexpect:\n  - {figure: down_rate, combatant: Brute 3, at_least: 0.5}\n")


@pytest.mark.parametrize(
    "figure", ["down_rate:Brute", "median_time_to_down:Brute", "hit_rate:quick-jab/Brute"]
)
def test_tune_and_precision_refuse_a_name_that_would_pool_a_lookalike(figure: str) -> None:
    """What ``expect:`` refuses, ``tune --target`` and ``--precision-on`` refuse too: they
    measured 'Brute' as the two copies and the stronger 'Brute 3' pooled."""
    from simlab.errors import InputError

    scn = loads(BASE.replace(BRUTES, TWO_BRUTES_AND_A_THIRD), "q.yaml")
    pooled = "expected a name that designates only the copies of the combatant entry 'Brute'"
    with pytest.raises(InputError, match=f"^target {figure}=0.5: {pooled}"):
        simlab.tune(scn, "Kaito.hp=10:20", f"{figure}=0.5", n=1000, exact=False)
    with pytest.raises(InputError, match=f"^precision_on {figure}: {pooled}"):
        simlab.simulate(scn, n=1000, precision=0.1, precision_on=[figure])
    simlab.simulate(scn, n=1000, precision=0.1, precision_on=["down_rate:Brute 3"])


def test_rate_bounds_at_the_ends_and_other_figures_beyond_one_load() -> None:
    """A rate's bounds 0 and 1 are accepted; figures that are not rates take bounds beyond
    1, kept as written; a bound in rounds at the ends of the rounds an encounter can
    last (1 and the round cap, 30) too, and a median's past the cap (README: a median the
    cap does not reach is borderline against it)."""
    scn = loads(BASE + "\nexpect:\n  - {figure: draw_rate, between: [0, 1]}\n"
                "  - {figure: mean_rounds, at_least: 12}\n"
                "  - {figure: mean_damage, attack: quick-jab, at_least: 1.5}\n"
                "  - {figure: mean_rounds, between: [1, 30]}\n"
                "  - {figure: median_time_to_down, combatant: Kaito, between: [1, 40]}\n"
                )  # fmt: skip
    assert [(e.figure, e.bounds) for e in scn.expect] == [
        ("draw_rate", (0.0, 1.0)),
        ("mean_rounds", (12.0, float("inf"))),
        ("mean_damage", (1.5, float("inf"))),
        ("mean_rounds", (1.0, 30.0)),
        ("median_time_to_down", (1.0, 40.0)),
    ]


def test_a_bound_in_rounds_below_round_1_holds_a_surprise_round() -> None:
    """Under opposed-tiers a hidden combatant's surprise round is round 0: the raider
    falls in it in most encounters, so a mean encounter length below 1 round can be
    measured, and its bound is kept; without a hidden attacker, refused."""
    text = AMBUSH + "expect:\n  - {figure: mean_rounds, at_most: 0.5}\n"
    scn = loads(text, "a.yaml")
    assert scn.expect[0].bounds == (float("-inf"), 0.5)
    assert simlab.simulate(scn, n=2000).mean_rounds() < 0.5
    (problem,) = errors_of(text.replace("hidden: true", "hidden: false"))
    assert problem == (
        "s.yaml:15:36: expected a bound from 1 to 10 rounds for 'mean_rounds' (an encounter "
        "lasts from round 1 to the round cap, 10); got 0.5"
    )
    surprised = AMBUSH + "expect:\n  - {figure: mean_rounds, at_least: -3}\n"
    (problem,) = errors_of(surprised)
    assert problem.endswith("expected a bound from 0 to 10 rounds for 'mean_rounds' (an "
                            "encounter lasts from round 0, the surprise round, to the round "
                            "cap, 10); got -3")  # fmt: skip


def test_check_refuses_a_spec_that_can_never_fail_at_its_bound(tmp_path: Path) -> None:
    """``{figure: mean_rounds, at_least: -3}`` passed whatever happened: ``simlab check``
    refuses it before simulating, at its bound, exit 2."""
    path = tmp_path / "q.yaml"
    text, where = slipped(BASE + "\nexpect:\n  - {figure: mean_rounds, at_least: 5}\n",
                          "at_least: 5", "at_least: |-3")  # fmt: skip
    path.write_text(text)
    done = CliRunner().invoke(main, ["check", str(path), "-n", "100"])
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.split())
    assert f"{path}:{where}: expected a bound from 1 to 30 rounds for 'mean_rounds'" in said
    assert "Traceback" not in done.output


def test_an_override_of_the_round_cap_may_leave_a_rounds_bound_behind() -> None:
    """A sweep of ``max_rounds`` from 2 on a scenario whose ``mean_rounds`` bound is 15
    is what the designer asked for (the spec merely fails at 2), as an override may
    leave a field behind; the same cap written in the file is refused at the bound."""
    text = BASE + "\nexpect:\n  - {figure: mean_rounds, at_most: 15}\n"
    short = simlab.override(loads(text, "q.yaml"), {"max_rounds": 2})
    assert short.max_rounds == 2 and short.expect[0].bounds == (float("-inf"), 15)
    (problem,) = errors_of(text.replace("max_rounds: 30", "max_rounds: 2"))
    said = "(an encounter lasts from round 1 to the round cap, 2); got 15"
    assert problem.endswith(f"expected a bound from 1 to 2 rounds for 'mean_rounds' {said}")


def test_bad_drift_tolerance_is_located() -> None:
    text = BASE + "\ndrift_tolerance:\n  rate: 0.05\n  pmf: 2\n"
    with pytest.raises(ScenarioError) as info:
        loads(text, "q.yaml")
    problem = info.value.problems[0]
    assert problem.line == len(BASE.splitlines()) + 3
    assert "expected a number ≤ 1.0; got 2" in problem.message


def _result():
    return synthetic_result(Truth(), 20_000, np.random.default_rng(5))


def test_rate_spec_is_the_pooled_count_with_a_wilson_interval() -> None:
    res = _result()
    t = res.tallies
    hits, attempts = int(t.hits.sum()), int(t.attempts.sum())  # both pairs use 'strike'
    v = evaluate(res, {"figure": "hit_rate", "attack": "strike", "at_least": 0.5})
    assert v.n == attempts
    assert v.measured == hits / attempts
    ci = sps.binomtest(hits, attempts).proportion_ci(0.95, method="wilson")
    assert (v.lo, v.hi) == pytest.approx((ci.low, ci.high))
    assert v.passed and not v.borderline
    narrow = evaluate(res, {"figure": "hit_rate", "attack": "strike", "defender": "B",
                            "at_most": 0.5})  # fmt: skip
    assert narrow.n == int(t.attempts[res.layout.pair(0, 0, 1)].sum())
    assert not narrow.passed


def test_borderline_and_strict() -> None:
    res = _result()
    v = evaluate(res, {"figure": "hit_rate", "attack": "strike", "at_least": 0.6})
    measured = v.measured
    # A bound inside the interval is borderline whichever side the estimate falls on.
    inside = evaluate(res, {"figure": "hit_rate", "attack": "strike",
                            "at_least": (v.lo + measured) / 2})  # fmt: skip
    assert inside.passed and inside.borderline
    spec = {"figure": "hit_rate", "attack": "strike", "at_least": (v.lo + measured) / 2}
    run = ScenarioRun(result=res, expect=[spec])
    assert list(evaluate_all([run]).verdict) == ["pass"]
    assert list(evaluate_all([run], strict=True).verdict) == ["fail"]


def _answer(attacker: str, defender: str, **caveats: str) -> dict[str, object]:
    return {"attacker": attacker, "attack": "strike", "defender": defender, "hit_rate": 0.6,
            "crit_rate": 0.0, "mean_damage": 2.0, "damage_pmf": {}, "caveats": caveats}  # fmt: skip


def test_a_rate_the_exact_engine_makes_0_passes_at_most_0_even_strict() -> None:
    """A crit rate of 0 in 40,000 attacks has the interval [0, 9e-05], which reaches past
    "at most 0", so ``--strict`` failed it at any sample size, "borderline: interval
    crosses the bound" though it only starts there. When the exact engine answers 0 for
    every pair the spec covers, and the fight does not move that figure, the rate is 0
    whatever the dice: its interval is [0, 0], and the spec passes."""
    res = synthetic_result(Truth(crit=0.0), 4_000, np.random.default_rng(6))
    spec = {"figure": "crit_rate", "attack": "strike", "at_most": 0}
    alone = evaluate(res, spec)
    assert alone.measured == 0 and alone.lo == 0 < alone.hi and alone.borderline
    both = {"attacks": [_answer("A", "B"), _answer("B", "A")]}
    certain = evaluate(res, spec, both)
    assert (certain.measured, certain.lo, certain.hi) == (0, 0, 0)
    assert certain.passed and not certain.borderline
    run = ScenarioRun(result=res, exact=both, expect=[spec])
    assert list(evaluate_all([run], strict=True).verdict) == ["pass"]
    # one pair the fight moves (a caveat), or one not solved: the simulation decides
    moved = {"attacks": [_answer("A", "B"), _answer("B", "A", crit_rate="a status")]}
    assert evaluate(res, spec, moved).borderline
    assert evaluate(res, spec, {"attacks": [_answer("A", "B")]}).borderline
    assert not evaluate(res, {**spec, "attacker": "A"}, moved).borderline


def test_a_borderline_verdict_says_its_interval_reaches_past_the_bound() -> None:
    """The verdict read "interval crosses the bound", untrue of an interval that starts
    at the bound (a rate of 0 against "at most 0")."""
    res = synthetic_result(Truth(crit=0.0), 4_000, np.random.default_rng(6))
    spec = {"figure": "crit_rate", "attack": "strike", "at_most": 0}
    specs = evaluate_all([ScenarioRun(result=res, expect=[spec])], strict=True)
    with terminal_console(Console(width=140, record=True, force_terminal=False), 140) as wide:
        table = terminal.specs_table(specs)  # a wide terminal's words (a narrow one: ‡)
        assert isinstance(table, Table), table  # one table, at 140 columns
        wide.print(table)
        printed = wide.export_text()
    # a pass (0 is at most 0) that strict fails, which it says (test_drift_gate_outputs)
    said = " ".join(printed.split())
    assert "reaching past the bound" in said
    assert "crosses" not in printed
    # the pages in the terminal's words: "--strict: … its interval", not "strict: … the"
    (row,) = render._spec_rows(specs, ScenarioRun(result=res))
    assert row[-1] == "FAIL (--strict: a borderline pass, its interval reaching past the bound)"
    (verdict,) = table.columns[-1].cells  # the terminal's cell, however it wraps
    assert row[-1].removeprefix("FAIL ") in " ".join(str(verdict).split())
    (failure,) = render.spec_failures(specs)
    assert failure.endswith(" (a borderline pass, failed by --strict)"), failure


@pytest.mark.parametrize("between", [0, 0.5])
def test_a_figure_beside_its_bound_is_shown_on_its_side_of_it(between: float) -> None:
    """A bound where the measured figure's three decimals (what its interval asks for)
    round it to, or between it and there: so rounded, the figure would read as on the
    bound or past it."""
    res = _result()
    measured = evaluate(res, {"figure": "hit_rate", "attack": "strike", "at_least": 0}).measured
    rounded = round(measured, 3)
    assert rounded != measured
    bound = rounded + between * (measured - rounded)
    spec = {"figure": "hit_rate", "attack": "strike", "at_least": bound}
    specs = evaluate_all([ScenarioRun(result=res, expect=[spec])])
    s = next(specs.itertuples())
    assert s.verdict == ("pass" if measured >= bound else "fail")
    with terminal.console.capture() as seen:
        terminal.console.print(terminal.specs_table(specs))
    html = render._measured(s)
    for text in (seen.get(), html):
        shown = float(re.search(r"(0\.\d+) [±[]", text).group(1))  # type: ignore[union-attr]
        assert (shown >= bound) == (measured >= bound), (text, measured, bound)
        assert shown != bound


def _wilson(k: int, n: int) -> tuple[float, float]:
    ci = sps.binomtest(int(k), int(n)).proportion_ci(0.95, method="wilson")
    return float(ci.low), float(ci.high)


def test_time_to_down_specs_by_hand() -> None:
    """``down_by_round`` is the share of *all* encounters downed by round r (encounters
    that ended with it standing stay in the denominator), with its Wilson interval;
    ``median_time_to_down`` the first round where that share reaches one half, its
    interval the rounds where the interval's ends reach it."""
    res = _result()
    n, down = res.encounters, res.tallies.down_round[0]
    upto = np.cumsum(down)
    for r in (3, 5, 8):
        v = evaluate(res, {"figure": "down_by_round", "combatant": "A", "round": r,
                           "at_least": 0})  # fmt: skip
        assert v.measured == pytest.approx(upto[r] / n)
        assert (v.lo, v.hi) == pytest.approx(_wilson(upto[r], n))
        assert v.n == n
    bands = np.array([_wilson(k, n) for k in upto])
    first = [int(np.argmax(x >= n / 2 if x.dtype.kind == "i" else x >= 0.5))
             for x in (upto, bands[:, 1], bands[:, 0])]  # fmt: skip
    assert upto[-1] / n > 0.55  # the median is reached
    v = evaluate(res, {"figure": "median_time_to_down", "combatant": "A", "between": [0, 99]})
    assert (v.measured, v.lo, v.hi) == tuple(float(r) for r in first)
    # Combatant B is downed in only 40% of the encounters: no median.
    v = evaluate(res, {"figure": "median_time_to_down", "combatant": "B", "at_most": 10})
    assert v.measured == float("inf") and not v.passed


def test_an_attack_that_never_happened_fails_with_a_note() -> None:
    res = _result()
    v = evaluate(res, {"figure": "hit_rate", "attack": "strike", "attacker": "A",
                       "defender": "A", "at_least": 0.1})  # fmt: skip
    assert not v.passed and v.n == 0
    assert "never measured" in v.note


def _scenario(tmp_path: Path, expect: str) -> Path:
    path = tmp_path / "q.yaml"
    path.write_text(BASE + ("\nexpect:\n" + expect if expect else ""))
    return path


def test_check_passes_with_exit_0(tmp_path: Path) -> None:
    path = _scenario(
        tmp_path,
        "  - {figure: hit_rate, attack: stone-strike, at_least: 0.6}\n"
        "  - {figure: crit_rate, attack: quick-jab, at_most: 0.001}\n",
    )
    done = CliRunner().invoke(main, ["check", str(path), "-n", "2000"])
    assert done.exit_code == 0, done.output
    assert "all 2 specs pass" in done.output
    assert "PASS" in done.output and "FAIL" not in done.output


def test_check_fails_with_exit_1_and_shows_the_measured_figure(tmp_path: Path) -> None:
    path = _scenario(
        tmp_path,
        "  - {figure: win_rate, side: party, at_least: 0.9}\n"
        "  - {figure: hit_rate, attack: stone-strike, at_least: 0.6}\n",
    )
    done = CliRunner().invoke(main, ["check", str(path), "-n", "2000"])
    assert done.exit_code == 1, done.output
    assert "1 of 2 specs failed" in done.output
    assert "party's win rate at least 0.9" in done.output
    assert "FAIL" in done.output


def test_check_strict_passes_a_crit_rate_at_most_0_of_an_attack_without_crits(
    tmp_path: Path,
) -> None:
    """quick-jab has no critical tier, and the exact engine says so: "at most 0" passes
    under --strict, its measured figure a bare 0."""
    path = _scenario(tmp_path, "  - {figure: crit_rate, attack: quick-jab, at_most: 0}\n")
    done = CliRunner().invoke(main, ["check", str(path), "-n", "2000", "--strict"])
    assert done.exit_code == 0, done.output
    assert "PASS" in done.output and "borderline" not in done.output


def test_check_without_specs_says_so(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["check", str(_scenario(tmp_path, "")), "-n", "500"])
    assert done.exit_code == 0
    assert "no expect: entries" in done.output
    assert "simulated" not in done.output  # said before any simulation, not after one


def test_check_simulates_only_the_scenarios_with_specs(tmp_path: Path) -> None:
    """A folder of two scenarios, one with specs: only that one is run."""
    _scenario(tmp_path, "  - {figure: hit_rate, attack: stone-strike, at_least: 0.6}\n")
    (tmp_path / "plain.yaml").write_text(BASE.replace("scenario: quickstart", "scenario: plain"))
    done = CliRunner().invoke(main, ["check", str(tmp_path), "-n", "500"])
    assert done.exit_code == 0, done.output
    assert "check: the spec passes" in done.output
    assert done.output.count("simulated") == 1 and "plain.yaml" not in done.output


def test_check_bad_spec_exits_2_with_its_line(tmp_path: Path) -> None:
    path = _scenario(tmp_path, "  - {figure: down_rate, combatant: Bruet, at_least: 0.1}\n")
    done = CliRunner().invoke(main, ["check", str(path)])
    assert done.exit_code == 2
    assert f"q.yaml:{len(BASE.splitlines()) + 2}:" in done.output
    assert "got 'Bruet'" in done.output


def test_a_crit_rate_spec_in_rules_without_crits_is_an_error_at_its_line(tmp_path: Path) -> None:
    """zones-3d6 has no critical hits: a crit-rate spec would pass forever (its rate is 0
    by the rules), so it is refused where it is written."""
    plate = (ROOT / "scenarios/zones-3d6/longsword-vs-plate.yaml").read_text()
    plate = plate.split("\nexpect:")[0]
    path = tmp_path / "plate.yaml"
    path.write_text(plate + "\nexpect:\n  - {figure: crit_rate, attack: longsword, at_most: 0.1}\n")
    done = CliRunner().invoke(main, ["validate", str(path)])
    assert done.exit_code == 2
    line = path.read_text().splitlines().index("expect:") + 2
    assert f"plate.yaml:{line}:14: expected a figure these rules have; got 'crit_rate': " \
           "zones-3d6 has no critical hits" in done.output  # fmt: skip


def test_the_specs_table_keeps_names_whole_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-check: the spec's text was broken at any space, a name of 39 characters across
    two lines (``Grand Duke Ferdinand of the`` / ``Sunken Keep's …``) and an attack named
    with spaces too. It breaks between words; each name stays on one line."""
    from rich.console import Console

    from tests.support import broken_names

    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    monkeypatch.setenv("COLUMNS", "80")
    duke, sword = "Grand Duke Ferdinand of the Sunken Keep", "two-handed executioner's greatsword"
    text = QUICKSTART.read_text().replace("Kaito", duke).replace("stone-strike", sword)
    (tmp_path / "long.yaml").write_text(text)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "long.yaml"), "-n", "2000"])
    assert result.exit_code == 0, result.output
    table = result.output[result.output.index("balance specs") :]
    assert max(len(line) for line in table.splitlines()) <= 80, table
    lines = [line.strip() for line in table.splitlines()]
    assert sum(duke in line for line in lines) == 2, table  # both specs that name it
    assert any(sword in line for line in lines), table
    assert not broken_names(table, [duke, sword]), table
