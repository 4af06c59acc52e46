"""A spec given apart from the scenario file gets the checks of one written in it.

``simlab.analysis.specs.evaluate(res, {...})`` and ``simlab.check`` of a run whose
``expect`` holds a plain dict validated the dict alone: a bound in rounds no encounter
can reach, a combatant the scenario does not have or an attack at a defender it never
reaches was measured (passing, or failing as "never measured") where the same spec in
the file is refused at its line. Each is refused as an ``InputError`` naming the spec,
its key, what was expected and what was found; a spec of the scenario's own is left as
it was checked when the scenario loaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.analysis.specs import evaluate
from simlab.api import run_scenario
from simlab.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"

#: Under declared engagements the Ogre's Melee club reaches Kaito alone, never Mira.
APART = """\
scenario: apart
rules: shattered-spirits
max_rounds: 20
params: {engagement: declared}
attacks:
  club: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]}
  bow: {range: ranged, profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]}
sides:
  party:
    - {name: Kaito, hp: 24, guard: 1, attacks: [club]}
    - {name: Mira, hp: 12, attacks: [bow]}
  enemies:
    - {name: Ogre, hp: 40, guard: 2, attacks: [club], engaged_with: [Kaito]}
expect:
  - {figure: mean_rounds, at_most: 18}
"""


@pytest.fixture(scope="module")
def apart() -> simlab.Result:
    return simlab.simulate(simlab.loads(APART, "apart.yaml"), n=300, seed=1)


REFUSED = [
    ({"figure": "mean_rounds", "at_least": -3},
     "spec {figure: mean_rounds, at_least: -3}.at_least: expected a bound from 1 to 20 "
     "rounds for 'mean_rounds' (an encounter lasts from round 1 to the round cap, 20); "
     "got -3"),
    ({"figure": "median_time_to_down", "combatant": "Kaito", "at_most": 0},
     "spec {figure: median_time_to_down, combatant: Kaito, at_most: 0}.at_most: expected "
     "a bound of 1 round or more for 'median_time_to_down' (nobody goes down before "
     "round 1; past the round cap, 20, it holds a median the cap does not reach); got 0"),
    ({"figure": "down_by_round", "combatant": "Kaito", "round": 25, "at_least": 0.5},
     "spec {figure: down_by_round, combatant: Kaito, round: 25, at_least: 0.5}.round: "
     "expected a round from 1 to 20 (the round cap); got 25"),
    ({"figure": "down_rate", "combatant": "Kaitou", "at_most": 0.5},
     "spec {figure: down_rate, combatant: Kaitou, at_most: 0.5}.combatant: expected a "
     "combatant of this scenario (Kaito, Mira, Ogre); got 'Kaitou'; did you mean "
     "'Kaito'?"),
    ({"figure": "win_rate", "side": "heroes", "at_least": 0.5},
     "spec {figure: win_rate, side: heroes, at_least: 0.5}.side: expected a side of this "
     "scenario (party, enemies); got 'heroes'"),
    ({"figure": "hit_rate", "attack": "club", "defender": "Mira", "at_least": 0.5},
     "spec {figure: hit_rate, attack: club, defender: Mira, at_least: 0.5}.defender: "
     "expected a combatant that 'club' can target; got 'Mira': 'club' is a Melee attack, "
     "and 'Ogre' is Engaged only with 'Kaito'"),
    ({"figure": "down_rate", "combatant": "Mira", "at_most": 0.1},
     "spec {figure: down_rate, combatant: Mira, at_most: 0.1}.combatant: expected a "
     "combatant that can go down; got 'Mira': no one attacks it (nobody on another side "
     "can attack it: 'Ogre' lists only Melee attacks and is Engaged only with 'Kaito'), "
     "so it never does"),
    ({"figure": "hit_rate", "attack": "bow", "at_least": 5},
     "spec {figure: hit_rate, attack: bow, at_least: 5}.at_least: expected a bound from 0 "
     "to 1 for the rate 'hit_rate' (0.6 for 60%); got 5"),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "message"), REFUSED)
def test_evaluate_refuses_a_dict_the_file_would_refuse(
    apart: simlab.Result, spec: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError) as err:
        evaluate(apart, spec)
    assert " ".join(str(err.value).split()) == message


@pytest.mark.parametrize(("spec", "message"), REFUSED[:1] + REFUSED[5:6])
def test_check_refuses_a_run_with_such_a_dict(
    apart: simlab.Result, spec: dict[str, object], message: str
) -> None:
    """A run whose ``expect`` a notebook filled by hand: the spec named by its place."""
    run = run_scenario(simlab.loads(APART, "apart.yaml"), n=300, seed=1)
    run.expect = [*run.expect, spec]
    with pytest.raises(InputError) as err:
        simlab.check(run)
    key_and_words = message.split("}.", 1)[1]
    assert " ".join(str(err.value).split()) == f"apart: expect[1].{key_and_words}"


def test_a_spec_the_file_would_take_is_measured(apart: simlab.Result) -> None:
    verdict = evaluate(apart, {"figure": "hit_rate", "attack": "club", "defender": "Kaito",
                               "at_least": 0.5})  # fmt: skip
    assert verdict.n > 0 and verdict.passed


def test_the_scenarios_own_spec_is_kept_where_an_override_leaves_it_behind() -> None:
    """``mean_rounds`` at most 18, checked as written at a cap of 20, is measured at a
    cap of 10 (a sweep of ``max_rounds``), as ``check`` of such a point measures it;
    the same bound given apart at that cap is refused."""
    scenario = simlab.loads(APART, "apart.yaml").with_(max_rounds=10)
    res = simlab.simulate(scenario, n=300, seed=1)
    own = {"figure": "mean_rounds", "at_most": 18}
    assert evaluate(res, own).passed
    assert simlab.check(res).verdict.tolist() == ["pass"]
    with pytest.raises(InputError, match="expected a bound from 1 to 10 rounds"):
        evaluate(res, {"figure": "mean_rounds", "at_most": 11})


def test_a_shipped_scenarios_specs_still_load_and_measure() -> None:
    scenario = simlab.load(QUICKSTART)
    res = simlab.simulate(scenario, n=300, seed=1)
    for spec in scenario.expect:
        evaluate(res, spec.model_dump(exclude_defaults=True))
