"""A Spirit with ``manifest: melee`` whose character can never pay ``melee_manifest_cost``.

The kernels Manifest such a Spirit at its Source, Engaged with nobody, at every Respite
(``manifest``: Melee range only when the character holds the cost), so under
``engagement: declared`` its Melee attacks are never made and no enemy's Melee attack
reaches it. The reachability checks read ``manifest: melee`` alone as Melee range: a
spec of such an attack, or of a combatant only it could attack, loaded and could
never be measured. Refused at its line, saying why; one the character can pay stays
accepted, as a run shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from tests.support import errors_of, validate_file

#: Only the Ogre's Spirit makes the Melee ``club``, and nothing gives the Ogre Momentum.
UNPAID = """\
scenario: unpaid
rules: shattered-spirits
encounters: 2000
seed: 3
max_rounds: 4
params: {engagement: declared, momentum_per_respite: 0}
attacks:
  axe: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]}
  club: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]}
sides:
  party:
    - {name: Kaito, hp: 4, target: random, attacks: [axe]}
  enemies:
    - {name: Ogre, hp: 40, engaged_with: [Kaito],
       spirit: {name: Wraith, hp: 10, attacks: [club], manifest: melee}}
"""
WHY = (
    "'Ogre' can never pay melee_manifest_cost 1 to Manifest the Spirit 'Wraith' at Melee "
    "range (it holds at most tokens.momentum 0 + momentum_per_respite 0 × 3 Respites "
    "before the last, by max_rounds 4)"
)
HIT = "  - {figure: hit_rate, attack: club, at_least: 0.5}\n"
DOWN = "  - {figure: down_rate, combatant: Kaito, at_most: 0.5}\n"


def _messages(text: str) -> list[str]:
    return [" ".join(error.split()) for error in errors_of(text)]


def test_a_spec_of_the_spirits_melee_attack_is_refused_saying_why(tmp_path: Path) -> None:
    """At its ``attack:``, exit 2, with file, line and column."""
    path = tmp_path / "unpaid.yaml"
    done = validate_file(path, UNPAID + "expect:\n" + HIT)
    assert done.exit_code == 2, done.output
    line, col = UNPAID.count("\n") + 2, HIT.index("club") + 1
    assert " ".join(done.output.split()) == (
        f"{path}:{line}:{col}: 'club' is made by no combatant: expected an attack some "
        "combatant or Spirit lists under 'attacks:' and can make (axe); got 'club', a "
        f"Melee attack listed only by the Spirit 'Wraith', which never reaches Melee "
        f"range: {WHY}"
    )


def test_a_spec_of_a_combatant_only_the_spirit_could_attack_is_refused() -> None:
    (message,) = _messages(UNPAID + "expect:\n" + DOWN)
    assert message.endswith(
        "got 'Kaito': no one attacks it (nobody on another side makes an attack: the "
        "Spirit 'Wraith' lists only Melee attacks and, under engagement: declared, is "
        f"Engaged with nobody: {WHY}), so it never does"
    )


def test_a_spec_of_the_spirit_its_foes_never_reach_is_refused() -> None:
    """At Melee range the Wraith would take the Ogre's engagement with Kaito, and
    Kaito's (mutual) with it: at its Source his Melee axe never reaches it."""
    spec = "  - {figure: down_rate, combatant: Wraith, at_least: 0.01}\n"
    (message,) = _messages(UNPAID + "expect:\n" + spec)
    assert message.endswith(
        "got 'Wraith': no one attacks it (nobody on another side can attack it: 'Kaito' "
        f"lists only Melee attacks and is Engaged only with 'Ogre'; {WHY}), so it never does"
    )


def test_with_manifest_momentum_false_no_momentum_comes_while_manifested() -> None:
    text = UNPAID.replace("momentum_per_respite: 0", "manifest_momentum: false")
    (message,) = _messages(text + "expect:\n" + HIT)
    assert message.endswith(
        "'Ogre' can never pay melee_manifest_cost 1 to Manifest the Spirit 'Wraith' at "
        "Melee range (it holds at most tokens.momentum 0: with manifest_momentum: false "
        "it gains none at a Respite its Spirit Manifests)"
    )


#: The same fight as the kernels play it: whether the Wraith ever makes its club (and
#: so whether Kaito ever goes down), and Kaito's axe ever reaches it, as the Ogre's
#: Momentum allows.
PARAMS = [
    ("momentum_per_respite: 0", False),
    ("manifest_momentum: false", False),
    ("momentum_per_respite: 1, melee_manifest_cost: 4", False),  # 3 by round 4
    ("momentum_per_respite: 1, melee_manifest_cost: 3", True),
    ("momentum_per_respite: 0, melee_manifest_cost: 0", True),
]


@pytest.mark.parametrize(("params", "reached"), PARAMS)
@pytest.mark.kernels
def test_the_checks_say_what_the_kernels_do(params: str, reached: bool) -> None:
    scenario = simlab.loads(UNPAID.replace("momentum_per_respite: 0", params), "s.yaml")
    assert (scenario.attack_problem("club") is None) is reached
    assert (scenario.down_problem("Kaito") is None) is reached
    assert (scenario.attack_problem("axe", "Wraith") is None) is reached
    result = simlab.simulate(scenario, n=2000)
    hits = result.hit_rates()
    made = int(hits.loc[hits.attack == "club", "attempts"].sum())
    downs = result.combatants().set_index("combatant")["down_rate"]
    assert (made > 0) is reached
    at_wraith = hits.loc[(hits.attack == "axe") & (hits.defender == "Wraith"), "attempts"]
    assert (int(at_wraith.sum()) > 0) is reached
    assert bool(downs["Kaito"] > 0) is reached


def test_tokens_at_the_start_pay_for_it() -> None:
    text = UNPAID.replace("{name: Ogre, hp: 40,", "{name: Ogre, hp: 40, tokens: {momentum: 1},")
    scenario = simlab.loads(text + "expect:\n" + HIT + DOWN, "s.yaml")
    assert scenario.attack_problem("club", "Kaito") is None


#: Kaito lists the club too: the Wraith, on the other side, is the only enemy of his
#: that lists it, and never makes it.
BOTH = UNPAID.replace("attacks: [axe]}", "attacks: [axe, club]}")
NEVER_MADE = (
    f"the Spirit 'Wraith' lists 'club' but never makes it: 'club' is a Melee attack, and {WHY}"
)


def test_a_spec_at_a_defender_only_the_spirit_would_club_says_why(tmp_path: Path) -> None:
    """``club`` at Kaito: only Kaito himself makes it, and the Wraith, which lists it,
    never reaches Melee range. The message said only that Kaito is on the side of the
    club's attackers."""
    spec = "  - {figure: hit_rate, attack: club, defender: Kaito, at_least: 0.5}\n"
    path = tmp_path / "both.yaml"
    done = validate_file(path, BOTH + "expect:\n" + spec)
    assert done.exit_code == 2, done.output
    line, col = BOTH.count("\n") + 2, spec.index("Kaito") + 1
    assert " ".join(done.output.split()) == (
        f"{path}:{line}:{col}: expected a combatant that 'club' can target, on another "
        f"side than its attackers; got 'Kaito': {NEVER_MADE}"
    )


def test_a_spec_of_the_spirit_as_the_attacker_says_why() -> None:
    spec = "  - {figure: hit_rate, attack: club, attacker: Wraith, at_least: 0.5}\n"
    (message,) = _messages(BOTH + "expect:\n" + spec)
    assert message.endswith(f"expected a combatant that uses 'club'; got 'Wraith': {NEVER_MADE}")


def test_a_lister_that_makes_the_attack_elsewhere_is_not_blamed() -> None:
    """The Ogre's Spirit pays (tokens): it clubs Kaito, and a spec of the club at the
    Ogre is refused only for the Ogre's side, with no word of the Wraith."""
    text = BOTH.replace("{name: Ogre, hp: 40,", "{name: Ogre, hp: 40, tokens: {momentum: 1},")
    spec = "  - {figure: hit_rate, attack: club, defender: Kaito, at_least: 0.5}\n"
    assert simlab.loads(text + "expect:\n" + spec, "s.yaml").expect
    spec = "  - {figure: hit_rate, attack: club, attacker: Wraith, defender: Ogre, at_least: 0.5}\n"
    (message,) = _messages(text + "expect:\n" + spec)
    assert message.endswith("on another side than its attackers; got 'Ogre'"), message


def test_a_spec_of_an_attack_at_the_spirit_says_why_it_is_out_of_reach() -> None:
    """Kaito's Melee axe at the Wraith: he is Engaged only with the Ogre, and the Wraith,
    which would take the Ogre's engagements at Melee range, never reaches it. The message
    gave the first half, as the down-rate spec of the Wraith gives both."""
    spec = "  - {figure: hit_rate, attack: axe, defender: Wraith, at_least: 0.5}\n"
    (message,) = _messages(UNPAID + "expect:\n" + spec)
    assert message.endswith(
        f"got 'Wraith': 'axe' is a Melee attack, and 'Kaito' is Engaged only with 'Ogre'; {WHY}"
    ), message
