"""Every kind of mistake in a shattered-spirits-draft1 scenario is reported with its line.

Each case changes one line of a valid scenario and asserts the ``file:line`` and the
"expected …; got …" wording of the message (docs/rules/shattered-spirits-draft1.md: plans of
Techniques within an AP budget, Improvise with the same AP and no slower Speed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from tests.support import assert_one_error, errors_of, validate_file

VALID = """\
scenario: t
rules: shattered-spirits-draft1
encounters: 100
max_rounds: 5
params: {ap_per_round: 3}
techniques:
  strike: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11], ap: 2, speed: 4}
  jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6], ap: 1, speed: 2, status: {12: [exposed 1]}}
  kick: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5], ap: 1, speed: 1}
sides:
  a:
    - {name: A, endurance: 10, health: 10, plan: [strike, jab], tokens: {momentum: 2},
       improvise: {replace: jab, use: kick}}
  b:
    - {name: B, endurance: 12, health: 8, plan: [jab, jab, kick]}
    - name: C
      endurance: 5
      health: 5
      plan:
        - strike
        - kick
"""


def test_the_valid_scenario_loads() -> None:
    scn = simlab.loads(VALID, "s.yaml")
    assert scn.combatant_names() == [("a", "A"), ("b", "B"), ("b", "C")]
    assert scn.sides["a"][0].attacks == ["strike", "jab"]  # the plan is its attacks
    assert list(scn.attacks) == ["strike", "jab", "kick"]


ERROR_CASES: list[tuple[str, str, int | None, list[str]]] = [
    # a plan over its AP budget: at the plan
    (
        "plan: [jab, jab, kick]",
        "plan: [jab, strike, kick]",
        15,
        ["expected a plan costing at most 3 AP; got 4 AP", "strike 2"],
    ),
    ("name: B, endurance: 12,", "name: B, ap: 4, endurance: 12,", None, []),
    ("name: A, endurance: 10,", "name: A, ap: 1, endurance: 10,", 12,
     ["at most 1 AP; got 3 AP"]),
    # an unknown technique: at the item, listing the known ones
    ("plan: [jab, jab, kick]", "plan: [jab, jabb, kick]", 15,
     ["expected a technique defined under 'techniques:' (jab, kick, strike)", "'jabb'"]),
    ("        - kick\n", "        - kik\n", 21, ["(jab, kick, strike)", "got 'kik'"]),
    ("improvise: {replace: jab, use: kick}", "improvise: {replace: jab, use: punch}", 13,
     ["expected a technique defined", "'punch'"]),
    # Improvise: the replaced Technique is planned; same AP, no slower
    ("improvise: {replace: jab, use: kick}", "improvise: {replace: kick, use: jab}", 13,
     ["expected a technique of the plan (strike, jab) to replace; got 'kick'"]),
    ("improvise: {replace: jab, use: kick}", "improvise: {replace: jab, use: strike}", 13,
     ["expected a technique costing 1 AP with speed 2 or faster", "'strike' (2 AP"]),
    # replacing a Technique with itself would only spend Momentum
    ("improvise: {replace: jab, use: kick}", "improvise: {replace: jab, use: jab}", 13,
     ["expected a technique other than 'jab' to use in its place; got 'jab'"]),
    ("status: {12: [exposed 1]}", "status: {12: [stun 1]}", 8,
     ["earlier draft has no Stun", "'stun 1'"]),
    ("status: {12: [exposed 1]}", "status: {12: [exposd 1]}", 8,
     ["expected 'exposed N' or 'impaired N' (N from 1 to 999), or a one-word marker",
      "got 'exposd 1'"]),
    ("status: {12: [exposed 1]}", "status: {12: [bleeding 2]}", 8,
     ["expected 'exposed N' or 'impaired N'", "got 'bleeding 2'"]),
    ("status: {12: [exposed 1]}", "status: {12: [exposed 0]}", 8,
     ["expected a size from 1 to 999 for 'exposed', like 'exposed 2'; got 'exposed 0'"]),
    ("ap: 2, speed: 4}", "ap: 2, speed: 7}", 7, ["≤ 6", "7"]),
    ("ap: 2, speed: 4}", "speed: 4}", 7, ["expected key 'ap'"]),
    ("name: A, endurance: 10,", "name: A, endurance: ten,", 12,
     ["expected an integer; got 'ten'"]),
    ("name: A, endurance: 10,", "name: A, endurance: 10, hp: 3,", 12,
     ["unknown key 'hp'", "endurance"]),
    ("name: A, endurance: 10,", "name: A, endurance: 10, attacks: [jab],", 12,
     ["expected 'plan'", "got 'attacks'"]),
    ("params: {ap_per_round: 3}", "params: {round_start: first}", 5,
     ["'carry', 'players'", "'first'"]),
    ("params: {ap_per_round: 3}", "params: {fumble_tokens: grit}", 5,
     ["'focus-first', 'momentum-first', 'none'", "'grit'"]),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "line", "words"), ERROR_CASES)
def test_error_is_located(old: str, new: str, line: int | None, words: list[str]) -> None:
    assert old in VALID
    text = VALID.replace(old, new, 1)
    if line is None:  # a larger budget of its own makes the plan fit
        simlab.loads(text, "s.yaml")
        return
    assert_one_error(text, line, words)


def test_a_smaller_budget_reports_every_plan_over_it() -> None:
    problems = errors_of(VALID.replace("{ap_per_round: 3}", "{ap_per_round: 2}"))
    assert [p.split(":")[1] for p in problems] == ["12", "15", "20"]
    assert all("expected a plan costing at most 2 AP; got 3 AP" in p for p in problems)


def test_cli_exits_2_with_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    text = VALID.replace("plan: [jab, jab, kick]", "plan: [jab, strike, kick]")
    result = validate_file(bad, text)
    assert result.exit_code == 2
    assert f"{bad}:15:" in result.output
    assert "expected a plan costing at most 3 AP; got 4 AP" in result.output


#: What the earlier draft's compiler reads of a Technique and of a reaction: nothing the
#: later draft added (`range` and `momentum_cost` were accepted and ignored).
TECHNIQUE_KEYS = ("advantage, ap, damage_modifier, disadvantage, glancing, modifier, "
                  "profile, speed, status, tier")  # fmt: skip
#: What an unknown key of the later draft says besides: whose key it is.
LATER = "(a key of rules shattered-spirits, but this scenario's rules are shattered-spirits-draft1)"


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("ap: 2, speed: 4}", "ap: 2, speed: 4, momentum_cost: 1}",
         f"s.yaml:7:74: unknown key 'momentum_cost' {LATER}; expected one of: {TECHNIQUE_KEYS}"),
        ("ap: 2, speed: 4}", "ap: 2, speed: 4, range: ranged}",
         f"s.yaml:7:74: unknown key 'range' {LATER}; expected one of: {TECHNIQUE_KEYS}"),
        ("plan: [jab, jab, kick]}",
         "plan: [jab, jab, kick],\n       react: {evade: {when_damage_at_least: 3, "
         "momentum_cost: 1}}}",
         f"s.yaml:16:49: unknown key 'momentum_cost' {LATER}; expected one of: "
         "when_damage_at_least"),
    ],
)  # fmt: skip
def test_the_later_drafts_keys_are_refused(old: str, new: str, problem: str) -> None:
    assert old in VALID
    assert errors_of(VALID.replace(old, new, 1)) == [problem]


def test_the_models_accept_only_what_the_compiler_reads() -> None:
    from simlab.rules.shattered_spirits_draft1.model import Combatant, Technique

    assert ", ".join(sorted(Technique.model_fields)) == TECHNIQUE_KEYS
    reaction = Combatant.model_fields["react"].annotation
    assert sorted(reaction.model_fields) == ["block", "evade"]  # type: ignore[union-attr]
    evade = reaction.model_fields["evade"].annotation  # type: ignore[union-attr]
    assert sorted(evade.__args__[0].model_fields) == ["when_damage_at_least"]


def test_cli_refuses_a_techniques_momentum_cost_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    text = VALID.replace("ap: 2, speed: 4}", "ap: 2, speed: 4, momentum_cost: 50}")
    result = validate_file(bad, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"{bad}:7:74: unknown key 'momentum_cost' {LATER}; expected")
