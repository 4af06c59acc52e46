"""Shattered Spirits later-draft features (seed 001): field validation with file:line,
the exact engine's refusal, and the shipped spirits-2v3 scenario.

The rules themselves are checked roll by roll in ``test_ss_rules.py`` (scenario
``spirits``)."""

from __future__ import annotations

import pytest

import simlab
from simlab.analysis.specs import evaluate
from simlab.errors import ExactUnsupported
from simlab.exact.engine import exact
from simlab.exact.shattered_spirits import attack_outcome, duel_time_to_down
from simlab.scenario.validation import ScenarioError

BASE = """\
scenario: features
rules: shattered-spirits
attacks:
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]}
sides:
  a:
    - name: Aki
      hp: 10
      downed: wounds
      attacks: [jab]
{extra}
  b:
    - {name: Ogre, hp: 20, attacks: [jab]}
"""

BAD = [
    ("      spirit: {name: Wisp, hp: 0, attacks: [jab]}", "11:32", "expected a number ≥ 1"),
    (
        "      spirit: {name: Wisp, hp: 5, attacks: [bite]}",
        "11:45",
        "expected an attack defined under 'attacks:' (jab); got 'bite'",
    ),
    (
        "      spirit: {name: Wisp, hp: 5, manifest: sometimes}",
        "11:45",
        "expected one of 'always', 'melee', 'never'; got 'sometimes'",
    ),
    ("      spirit: {name: Wisp, hp: 5, recall_below: -1}", "11:49", "expected a number ≥ 0"),
    ("      stances: [{name: Swift, speed: 7}]", "11:38", "expected a number ≤ 6; got 7"),
    ("      stances: [{name: Swift}]", "11:17", "expected key 'speed'"),
    (
        "      stances: [{name: Swift, speed: 2}]\n      stance_policy: {switch_to: Braced, "
        "when_hp_below: 5}",
        "12:34",
        "expected a Stance listed under 'stances:' (Swift)",
    ),
    (
        "      stance_policy: {switch_to: Braced, when_hp_below: 0}",
        "11:57",
        "expected a number ≥ 1",
    ),
    ("      reinforce: {cap: 0}", "11:24", "expected a number ≥ 1; got 0"),
    ("      reinforce: {cap: 2, from_round: 1}", "11:39", "expected a number ≥ 2; got 1"),
    ("      count: 2\n      reinforce: {cap: 2}", "11:14", "expected no count with 'reinforce:'"),
    ("      sunder: {armor: -1}", "11:23", "expected a number ≥ 0; got -1"),
    ("      engaged_with: [Aki]", "11:22", "expected an enemy entry (Ogre); got 'Aki'"),
    ("      engaged_with: [Troll]", "11:22", "expected an enemy entry (Ogre); got 'Troll'"),
    ("      sunder: {armor: 1, when_segments_at_least: 0}", "11:50", "expected a number ≥ 1"),
    (
        "      react: {block: {when_damage_at_least: 3, momentum_cost: -1}}",
        "11:63",
        "expected a number ≥ 0; got -1",
    ),
    (
        "      react: {evade: {when_damage_at_least: 3, momentum_cost: 10100}}",
        "11:63",
        "expected a number ≤ 10099; got 10100",
    ),
]


@pytest.mark.parametrize(("extra", "where", "message"), BAD)
def test_bad_feature_fields_are_located(extra: str, where: str, message: str) -> None:
    """Every new field rejects a bad value with the file:line of the offending key."""
    with pytest.raises(ScenarioError) as caught:
        simlab.loads(BASE.replace("{extra}", extra), "features.yaml")
    text = str(caught.value)
    assert text.startswith(f"features.yaml:{where}: {message}"), text


def test_sunder_needs_wounds() -> None:
    text = BASE.replace("{extra}", "      sunder: {armor: 1}")
    text = text.replace("downed: wounds", "downed: defeat")
    expected = r"features.yaml:11:15: expected 'downed: wounds' with 'sunder:'"
    with pytest.raises(ScenarioError, match=expected):
        simlab.loads(text, "features.yaml")


@pytest.mark.parametrize(
    ("extra", "feature"),
    [
        ("      spirit: {name: Wisp, hp: 5, attacks: [jab]}", "spirits"),
        ("      stances: [{name: Swift, speed: 2}]", "stances"),
        ("      sunder: {armor: 1}", "sunder"),
        ("      react: {evade: {when_damage_at_least: 3, momentum_cost: 1}}", "momentum"),
    ],
)
def test_exact_engine_names_the_feature(extra: str, feature: str) -> None:
    scenario = simlab.loads(BASE.replace("{extra}", extra))
    with pytest.raises(ExactUnsupported, match=feature):
        attack_outcome(scenario, 0, "jab", len(scenario.combatant_names()) - 1)
    with pytest.raises(ExactUnsupported, match=feature):
        duel_time_to_down(scenario)


def test_attack_momentum_cost_is_located_and_named_by_the_exact_engine() -> None:
    """An attack's ``momentum_cost`` rejects a bad value at its file:line:col; a priced
    attack makes the scenario one the exact engine refuses, naming the feature."""
    priced = "jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5], momentum_cost: %s}"
    plain = "jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]}"
    text = BASE.replace("{extra}", "").replace(plain, priced % -2)
    with pytest.raises(ScenarioError, match=r"^features.yaml:4:68: expected a number ≥ 0; got -2"):
        simlab.loads(text, "features.yaml")
    scenario = simlab.loads(BASE.replace("{extra}", "").replace(plain, priced % 1))
    assert scenario.uses_features == ["momentum"]
    with pytest.raises(ExactUnsupported, match="momentum: attacks or reactions priced"):
        exact(scenario)


def test_reinforcement_slots_are_preallocated() -> None:
    text = BASE.replace("{extra}", "").replace(
        "{name: Ogre, hp: 20, attacks: [jab]}",
        "{name: Ogre, hp: 20, attacks: [jab]}\n    - {name: Imp, hp: 3, attacks: [jab], "
        "reinforce: {per_round: 2, cap: 3}}",
    )
    scenario = simlab.loads(text)
    names = [name for _, name in scenario.combatant_names()]
    assert names == ["Aki", "Ogre", "Imp 1", "Imp 2", "Imp 3"]
    assert [s.arrives for s in scenario.slots()] == [0, 0, 2, 2, 3]
    with pytest.raises(ExactUnsupported, match="reinforcements"):
        attack_outcome(scenario, 0, "jab", 1)


@pytest.mark.kernels
def test_spirits_2v3_runs_and_meets_its_specs() -> None:
    """The shipped scenario validates, runs, and its ``expect:`` specs hold."""
    scenario = simlab.load("scenarios/shattered-spirits/spirits-2v3.yaml")
    result = simlab.simulate(scenario, n=20_000, seed=scenario.seed)
    for event in ("suppressed", "sealed", "harm", "momentum_spent", "reinforcement",
                  "sunder", "fatigue"):  # fmt: skip
        assert event in result.layout.events
    verdicts = [evaluate(result, spec) for spec in scenario.expect]
    assert len(verdicts) == 8
    assert all(v.passed for v in verdicts), verdicts


def test_exact_engine_refuses_the_whole_scenario() -> None:
    """``simlab.exact`` refuses a scenario with Spirits in one message naming the feature
    (its Spirit slots have no pair-by-pair answer), as an item under its heading, as
    the reasons of a scenario refused pair by pair are (not ``exactly: spirits: …``)."""
    scenario = simlab.loads(BASE.replace("{extra}", "      spirit: {name: Wisp, hp: 5}"))
    with pytest.raises(ExactUnsupported, match="exactly:\n  - spirits: Spirits are Manifested"):
        exact(scenario)


def test_attack_range_and_engagement_values() -> None:
    """``range`` and ``params.engagement`` reject unknown readings, located."""
    bad_range = BASE.replace("{extra}", "").replace("5]}", "5], range: far}", 1)
    with pytest.raises(ScenarioError, match=r"features.yaml:4:\d+: expected one of 'melee', "
                       r"'ranged'; got 'far'"):  # fmt: skip
        simlab.loads(bad_range, "features.yaml")
    bad_mode = BASE.replace("{extra}", "").replace("attacks:\n", "params: {engagement: some}\n"
                                                    "attacks:\n", 1)  # fmt: skip
    with pytest.raises(ScenarioError, match=r"features.yaml:3:\d+: expected one of 'everyone', "
                       r"'declared'; got 'some'"):  # fmt: skip
        simlab.loads(bad_mode, "features.yaml")


def test_exact_engine_refuses_declared_engagement() -> None:
    text = BASE.replace("{extra}", "      engaged_with: [Ogre]")
    scenario = simlab.loads(text.replace("attacks:\n", "params: {engagement: declared}\n"
                                                       "attacks:\n", 1))  # fmt: skip
    with pytest.raises(ExactUnsupported, match="engagement: declared engagements"):
        attack_outcome(scenario, 0, "jab", 1)


def test_spirits_and_reinforcements_count_toward_the_combatant_limit() -> None:
    text = BASE.replace("{extra}", "      spirit: {name: Wisp, hp: 5}").replace(
        "{name: Ogre, hp: 20, attacks: [jab]}",
        "{name: Ogre, hp: 20, attacks: [jab]}\n    - {name: Imp, hp: 3, reinforce: {cap: 63}}",
    )
    with pytest.raises(ScenarioError, match=r"features.yaml:6:3: expected at most 64 "
                       r"combatants with Spirits and reinforcement slots; got 66"):  # fmt: skip
        simlab.loads(text, "features.yaml")


DECLARED = BASE.replace("attacks:\n", "params: {engagement: declared}\nattacks:\n", 1)


@pytest.mark.parametrize(
    ("extra", "jab", "fights"),
    [
        ("", "", False),  # Melee attacks, nobody Engaged: nobody can ever attack
        ("      engaged_with: [Ogre]", "", True),
        ("", ", range: ranged", True),
        ("      spirit: {name: Wisp, hp: 5, attacks: [jab], manifest: melee}", "", False),
        ("      engaged_with: [Ogre]\n      spirit: {name: Wisp, hp: 5, attacks: [jab]}", "",
         True),
    ],
)  # fmt: skip
def test_declared_engagement_without_an_attack_anyone_can_make_is_refused(
    extra: str, jab: str, fights: bool
) -> None:
    """With ``engagement: declared`` a Melee attack needs an Engaged enemy: with none
    declared (and no ranged attack, no Rushing) every encounter was a draw, every figure 0."""
    text = DECLARED.replace("{extra}", extra).replace("5]}", "5]" + jab + "}", 1)
    if fights:
        simlab.loads(text)
        return
    with pytest.raises(ScenarioError) as caught:
        simlab.loads(text, "features.yaml")
    assert str(caught.value).startswith(
        "features.yaml:7:3: expected a combatant or Spirit with an attack it can make (with "
        "engagement: declared, a Melee attack needs an Engaged enemy), or Rushing terrain "
        "(without, nobody can deal damage and every encounter is a draw); got none"
    ), caught.value


def test_a_side_of_reinforcements_alone_is_refused() -> None:
    """A side whose present members are all out has lost: one made only of
    reinforcements lost every encounter in Round 1, before anyone acted."""
    only = BASE.replace("{extra}", "").replace(
        "{name: Ogre, hp: 20, attacks: [jab]}",
        "{name: Imp, hp: 3, attacks: [jab], reinforce: {cap: 3}}",
    )
    with pytest.raises(ScenarioError) as caught:
        simlab.loads(only, "features.yaml")
    assert str(caught.value) == (
        "features.yaml:13:5: expected a combatant without 'reinforce:' on side 'b' "
        "(reinforcements alone have lost before they arrive); got only reinforcements"
    )
    with_ogre = only.replace("  b:\n", "  b:\n    - {name: Ogre, hp: 20}\n")
    assert len(simlab.loads(with_ogre).combatant_names()) == 5
