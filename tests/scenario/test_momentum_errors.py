"""Prices in Momentum no combatant can ever pay are refused where they are written.

Momentum comes from ``tokens.momentum`` and ``momentum_per_respite`` at each Respite,
one a round, and nothing else (docs/rules/shattered-spirits.md, "Momentum"): an attack
priced above what its maker can hold by ``max_rounds`` was silently never made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import ScenarioError
from tests.support import assert_one_error, validate_file

PRICED = """\
scenario: priced
rules: shattered-spirits
encounters: 400
seed: 3
max_rounds: 5
params: {momentum_per_respite: 2}
attacks:
  strike: {profile: [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]}
  haymaker:
    profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    momentum_cost: %s
sides:
  a:
    - {name: Brawler, hp: 500, attacks: [strike, haymaker], tokens: {momentum: 1}}
  b:
    - {name: Dummy, hp: 500, attacks: [strike]}
"""


def test_an_attack_priced_at_the_most_momentum_held_is_made_in_the_last_round() -> None:
    """1 from the tokens + 2 at each of 5 Respites: 11 is paid once, in round 5, so the
    bound refused above it is the most Momentum there is, not a guess below it."""
    res = simlab.simulate(simlab.loads(PRICED % 11, "s.yaml"), n=400, seed=3)
    rates = res.hit_rates().set_index("attack")
    assert rates.loc["haymaker", "attempts"] == 400  # once an encounter
    assert res.momentum_spent().set_index("combatant").loc["Brawler", "mean_momentum_spent"] == 11


def test_an_attack_priced_above_it_is_refused_at_its_cost(tmp_path: Path) -> None:
    assert_one_error(PRICED % 12, 11, [
        "expected a momentum_cost of at most 11", "got 12",
        "tokens.momentum 1 + momentum_per_respite 2 × 5 Respites by max_rounds 5",
        "'Brawler' could never make 'haymaker'"])  # fmt: skip
    done = validate_file(tmp_path / "s.yaml", PRICED % 12)
    assert done.exit_code == 2 and "s.yaml:11:20: expected" in done.output, done.output
    assert "Traceback" not in done.output


def test_an_override_that_makes_a_price_unpayable_is_refused_naming_it() -> None:
    scn = simlab.loads(PRICED % 11, "s.yaml")
    with pytest.raises(ScenarioError) as caught:
        scn.with_({"max_rounds": 4})
    assert "s.yaml:11:20: expected a momentum_cost of at most 9" in str(caught.value)
    assert "max_rounds" in str(caught.value).split("could never make")[1]


def test_a_spirit_and_a_reaction_priced_beyond_it_are_refused() -> None:
    """A Spirit pays from its character's Momentum; a reaction priced in Momentum is
    paid in place of its token: both are held to the character's most."""
    spirit = PRICED.replace(
        "attacks: [strike, haymaker], tokens: {momentum: 1}}",
        "attacks: [strike], tokens: {momentum: 1},\n"
        "       spirit: {name: Wisp, hp: 5, attacks: [haymaker]}}",
    )
    assert_one_error(spirit % 12, 11, ["the Spirit 'Wisp' of 'Brawler'", "got 12"])
    reaction = PRICED.replace(
        "{name: Dummy, hp: 500, attacks: [strike]}",
        "{name: Dummy, hp: 500, attacks: [strike],\n"
        "       react: {evade: {when_damage_at_least: 1, momentum_cost: 11}}}",
    )
    assert_one_error(reaction % 11, 17, ["at most 10", "tokens.momentum 0", "got 11",
                                         "'Dummy' could never evade"])  # fmt: skip


def test_a_reinforcement_holds_what_it_gains_from_its_arrival() -> None:
    """A reinforcement arriving from round 3 is in the fight for 3 of the 5 Respites."""
    late = PRICED.replace(
        "{name: Dummy, hp: 500, attacks: [strike]}",
        "{name: Dummy, hp: 500, attacks: [strike]}\n"
        "    - {name: Late, hp: 5, attacks: [haymaker],\n"
        "       reinforce: {cap: 1, from_round: 3}}",
    )
    assert_one_error(late % 7, 11, ["at most 6", "3 Respites from round 3", "'Late'"])
    simlab.loads(late % 6, "s.yaml")
