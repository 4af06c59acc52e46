"""A reaction its defender can never pay for is refused where it is written.

A Block is paid with ``reaction_cost`` Grit, an Evade with ``reaction_cost`` Reflex, and
no token is gained during a fight (docs/rules/shattered-spirits.md, "What a fight
moves"): a defender that starts with fewer never reacts, so a ``react:`` entry without
its token loaded silently and was never used. A reaction priced in Momentum (the later
draft) needs no token; it is held to the Momentum its defender can ever hold instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import ScenarioError
from tests.support import errors_of, validate_file

LATER = """\
scenario: t
rules: shattered-spirits
attacks:
  blade: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}
sides:
  a: [{name: A, hp: 20, attacks: [blade]}]
  b:
    - name: Dummy
      hp: 20
      tokens: {reflex: 1, grit: 1}
      react: {evade: {when_damage_at_least: 5}, block: {when_damage_at_least: 3}}
"""

EARLIER = """\
scenario: t
rules: shattered-spirits-draft1
techniques:
  jab: {ap: 1, speed: 3, profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [jab]}]
  b:
    - name: Dummy
      endurance: 10
      health: 10
      tokens: {reflex: 1, grit: 1}
      react: {evade: {when_damage_at_least: 5}, block: {when_damage_at_least: 3}}
"""

EVADE_UNPAID = ("s.yaml:{line}:22: expected tokens.reflex of at least 1 (reaction_cost: the "
                "Reflex an Evade costs; none is gained during a fight){priced}; got tokens.reflex "
                "0: 'Dummy' could never evade")  # fmt: skip
BLOCK_UNPAID = ("s.yaml:{line}:56: expected tokens.grit of at least 1 (reaction_cost: the Grit "
                "a Block costs; none is gained during a fight){priced}; got tokens.grit 0: "
                "'Dummy' could never block")  # fmt: skip
MOMENTUM = " or a momentum_cost"


@pytest.mark.parametrize("text", [LATER, EARLIER])
def test_reactions_with_their_tokens_load(text: str) -> None:
    simlab.loads(text, "s.yaml")


@pytest.mark.parametrize(
    ("text", "tokens", "problem"),
    [
        (LATER, "{grit: 1}", EVADE_UNPAID.format(line=11, priced=MOMENTUM)),
        (LATER, "{reflex: 1}", BLOCK_UNPAID.format(line=11, priced=MOMENTUM)),
        (EARLIER, "{grit: 1}", EVADE_UNPAID.format(line=12, priced="")),
        (EARLIER, "{reflex: 1}", BLOCK_UNPAID.format(line=12, priced="")),
    ],
)  # fmt: skip
def test_a_reaction_without_its_token_is_refused_at_its_entry(
    text: str, tokens: str, problem: str
) -> None:
    assert errors_of(text.replace("{reflex: 1, grit: 1}", tokens)) == [problem]


@pytest.mark.parametrize(("text", "line"), [(LATER, 10), (EARLIER, 11)])
def test_a_defender_with_no_tokens_at_all_is_told_of_both(text: str, line: int) -> None:
    """The line ``tokens:`` is gone, so the ``react:`` entry moves up a line."""
    problems = errors_of(text.replace("      tokens: {reflex: 1, grit: 1}\n", ""))
    assert [p.split(": expected")[0] for p in problems] == [f"s.yaml:{line}:22",
                                                            f"s.yaml:{line}:56"]  # fmt: skip


@pytest.mark.parametrize("text", [LATER, EARLIER])
def test_fewer_tokens_than_the_reaction_cost_are_refused_none_needed_at_cost_0(
    text: str,
) -> None:
    """With ``reaction_cost: 2`` a single Reflex never pays for an Evade; at
    ``reaction_cost: 0`` a reaction is free, and fires with no token."""
    costly = text.replace("sides:\n", "params: {reaction_cost: 2}\nsides:\n")
    problems = errors_of(costly.replace("{reflex: 1, grit: 1}", "{reflex: 1, grit: 2}"))
    assert len(problems) == 1, problems
    assert "expected tokens.reflex of at least 2" in problems[0], problems
    assert "got tokens.reflex 1: 'Dummy' could never evade" in problems[0], problems
    free = text.replace("sides:\n", "params: {reaction_cost: 0}\nsides:\n")
    simlab.loads(free.replace("      tokens: {reflex: 1, grit: 1}\n", ""), "s.yaml")


def test_a_reaction_priced_in_momentum_needs_no_token() -> None:
    priced = LATER.replace(
        "{when_damage_at_least: 5}", "{when_damage_at_least: 5, momentum_cost: 2}"
    )
    simlab.loads(priced.replace("{reflex: 1, grit: 1}", "{grit: 1}"), "s.yaml")


def test_the_cli_refuses_it_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    done = validate_file(path, LATER.replace("{reflex: 1, grit: 1}", "{grit: 1}"))
    assert done.exit_code == 2, done.output
    problem = EVADE_UNPAID.format(line=11, priced=MOMENTUM).removeprefix("s.yaml:")
    assert " ".join(done.output.split()) == f"{path}:{problem}"


@pytest.mark.parametrize("text", [LATER, EARLIER])
def test_an_override_may_leave_a_reaction_unpaid(text: str) -> None:
    """A sweep of tokens from 0, or of the reaction cost, turns a reaction off at one
    point and on at the next: an override that leaves it unpaid is what was asked."""
    scn = simlab.loads(text, "s.yaml")
    assert scn.with_({"Dummy.tokens.reflex": 0}).sides["b"][0].tokens.reflex == 0
    assert scn.with_({"params.reaction_cost": 3}).params.reaction_cost == 3
    sweep = simlab.sweep(scn, {"Dummy.tokens.reflex": [0, 1]}, n=100)
    assert list(sweep.attacks()["Dummy.tokens.reflex"].unique()) == [0, 1]


def test_an_override_that_writes_an_unpaid_reaction_is_refused_naming_it() -> None:
    scn = simlab.loads(LATER.replace("{reflex: 1, grit: 1}", "{grit: 1}").replace(
        "react: {evade: {when_damage_at_least: 5}, ", "react: {"), "s.yaml")  # fmt: skip
    with pytest.raises(ScenarioError) as err:
        scn.with_({"Dummy.react.evade": {"when_damage_at_least": 4}})
    assert str(err.value).startswith("override Dummy.react.evade: expected tokens.reflex of "
                                     "at least 1"), str(err.value)  # fmt: skip
