"""A crit rate named of an attack that cannot crit is refused wherever it is named, as
one of rules without crits is: ``--precision-on``, ``tune --target``, an ``expect:``
entry of a file and a spec given apart; a crit rate of an attack that can crit is kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.analysis.specs import evaluate
from simlab.api import compile_job
from simlab.cli import main
from simlab.errors import InputError, ScenarioError
from simlab.tuning.figures import check_figure, parse_figure
from simlab.tuning.precision import precision_rule

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
#: Shattered-spirits: strike's profile has no crit row.
SS_DUEL = SCENARIOS / "benchmarks/ss-duel.yaml"
#: Shattered-spirits: stone-strike has crit rows, quick-jab none.
QUICKSTART = SCENARIOS / "shattered-spirits/quickstart.yaml"
CANNOT = (
    "expected an attack that can crit; got 'strike': it cannot crit (its profile has no crit row)"
)


def _refused(args: list[str]) -> str:
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output
    return " ".join(done.output.split())


def test_precision_on_the_crit_rate_of_an_attack_without_a_crit_row_is_refused() -> None:
    """It was accepted, and "met" at the first checkpoint: a rate that is 0 whatever the
    dice has an interval of no width."""
    said = _refused(["compare", str(SS_DUEL), "--set", "Defender.guard=2", "-n", "200",
                     "--precision", "0.01", "--precision-on", "crit_rate:strike"])  # fmt: skip
    assert f"--precision-on crit_rate:strike: {CANNOT}" in said, said
    said = _refused(["run", str(SS_DUEL), "-n", "200", "--precision", "0.01",
                     "--precision-on", "crit_rate:strike/Defender"])  # fmt: skip
    assert "got 'strike' at 'Defender': it cannot crit (its profile has no crit row)" in said


def test_tune_refuses_a_crit_rate_target_of_an_attack_without_a_crit_row() -> None:
    """It searched, and said "the field does not move it" with exit code 1."""
    said = _refused(["tune", str(SS_DUEL), "--target", "crit_rate:strike=0.1",
                     "--vary", "Defender.guard=0:5", "-n", "200"])  # fmt: skip
    assert f"--target crit_rate:strike=0.1: {CANNOT}" in said, said


def test_a_crit_rate_of_an_attack_that_can_crit_is_kept() -> None:
    """stone-strike crits on rows 11 and 12; quick-jab, beside it, cannot."""
    scenario = simlab.load(QUICKSTART)
    layout = compile_job(scenario, 100, 1).layout
    rule = precision_rule(0.01, ["crit_rate:stone-strike", "crit_rate:stone-strike/Kaito"],
                          layout, scenario)  # fmt: skip
    assert [str(ref) for ref in rule.on] == ["crit_rate:stone-strike",
                                             "crit_rate:stone-strike/Kaito"]  # fmt: skip
    with pytest.raises(InputError, match="got 'quick-jab': it cannot crit"):
        precision_rule(0.01, ["crit_rate:quick-jab"], layout, scenario)


def test_a_crit_rate_that_one_of_a_tunes_values_can_crit_at_is_kept() -> None:
    """A tune asks of both ends of its range: the figure moves where one end crits."""
    scenario = simlab.load(SS_DUEL)
    critting = scenario.with_({"strike.tier": {12: "crit"}})
    layout = compile_job(scenario, 100, 1).layout
    ref = parse_figure("crit_rate:strike", "--target crit_rate:strike=0.1")
    check_figure(ref, layout, ref.label, scenario, [scenario, critting])
    with pytest.raises(InputError, match="it cannot crit"):
        check_figure(ref, layout, ref.label, scenario, [scenario])


def test_an_expect_entry_of_a_crit_rate_that_cannot_crit_is_refused_where_written() -> None:
    text = SS_DUEL.read_text() + (
        "expect:\n"
        "  - {figure: hit_rate, attack: strike, at_least: 0.5}\n"
        "  - {figure: crit_rate, attack: strike, at_least: 0.1}\n"
    )
    with pytest.raises(ScenarioError) as info:
        simlab.loads(text, "duel.yaml")
    problem = info.value.problems[0]
    assert (problem.file, problem.line, problem.col) == ("duel.yaml", len(text.splitlines()), 33)
    assert problem.message == CANNOT


@pytest.mark.parametrize(
    "bound", ["at_most: 0", "at_most: 0.1", "at_least: 0", "between: [0, 0.2]"]
)
def test_an_expect_entry_a_crit_rate_of_0_meets_is_kept_as_a_guard(bound: str) -> None:
    """ "strike never crits" guards the profile: it fails once a crit row is added."""
    text = SS_DUEL.read_text() + f"expect:\n  - {{figure: crit_rate, attack: strike, {bound}}}\n"
    assert simlab.loads(text, "duel.yaml").expect[0].figure == "crit_rate"


def test_a_spec_given_apart_of_a_crit_rate_that_cannot_crit_is_refused() -> None:
    res = simlab.simulate(simlab.load(QUICKSTART), n=20)
    spec = {"figure": "crit_rate", "attack": "quick-jab", "between": [0.1, 0.2]}
    with pytest.raises(InputError, match=r"\.attack: expected an attack that can crit; got "
                       r"'quick-jab': it cannot crit \(its profile has no crit row\)"):  # fmt: skip
        evaluate(res, spec)
    assert evaluate(res, {**spec, "between": [0, 0.2]}).passed  # a guard it never crits
    kept = evaluate(res, {"figure": "crit_rate", "attack": "stone-strike", "at_most": 0.5})
    assert kept.passed
