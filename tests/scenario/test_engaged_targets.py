"""Under declared engagements, a combatant no enemy can ever attack is said so.

With ``engagement: declared`` a Melee attack may only target an enemy its maker is
Engaged with, and the only engagements are the declared ``engaged_with`` pairs and those
a Spirit Manifested at Melee range takes from its character. The checks of going down
and of an attack's defender asked only whether a maker was Engaged with *someone*, so a
``down_rate`` of a combatant every enemy's Melee attacks pass by measured 0 and passed
``check`` whatever the rules said, and a ``hit_rate`` at it was never measured. Both are
refused at their line; whatever can be reached stays accepted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import InputError
from tests.support import errors_of, validate_file

#: Mira, whose bow is Ranged, stands apart: the Ogre's one attack is Melee, and the Ogre
#: is Engaged only with Kaito.
APART = """\
scenario: apart
rules: shattered-spirits
encounters: 200
seed: 7
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
  - {figure: down_rate, combatant: Kaito, at_most: 0.9}
"""
DOWN = "  - {figure: down_rate, combatant: Mira, at_most: 0.1}\n"
HIT = "  - {figure: hit_rate, attack: club, defender: Mira, at_least: 0.5}\n"
UNREACHED = (
    "expected a combatant that can go down; got 'Mira': no one attacks it (nobody on "
    "another side can attack it: 'Ogre' lists only Melee attacks and is Engaged only "
    "with 'Kaito'), so it never does"
)
UNTARGETED = (
    "expected a combatant that 'club' can target; got 'Mira': 'club' is a Melee attack, "
    "and 'Ogre' is Engaged only with 'Kaito'"
)


def _without_specs(text: str) -> str:
    """``text`` without its ``expect:`` specs, for a figure asked of it."""
    return text[: text.index("expect:")]


def test_the_scenario_runs_and_mira_is_never_attacked() -> None:
    """What the refusals stand on: run, Kaito goes down at times, Mira never does."""
    scenario = simlab.loads(APART, "s.yaml")
    downs = simlab.simulate(scenario).combatants().set_index("combatant")["down_rate"]
    assert downs["Kaito"] > 0 and downs["Mira"] == 0


@pytest.mark.parametrize(("spec", "message"), [(DOWN, UNREACHED), (HIT, UNTARGETED)])
def test_validate_refuses_a_spec_of_a_combatant_no_enemy_can_attack(
    spec: str, message: str, tmp_path: Path
) -> None:
    """At the spec's ``combatant:`` or ``defender:`` (Mira's name), exit 2."""
    path = tmp_path / "apart.yaml"
    done = validate_file(path, APART + spec)
    assert done.exit_code == 2, done.output
    line, col = APART.count("\n") + 1, spec.index("Mira") + 1
    assert " ".join(done.output.split()) == f"{path}:{line}:{col}: {message}"


def test_the_api_refuses_the_same() -> None:
    line = APART.count("\n") + 1
    assert errors_of(APART + DOWN) == [f"s.yaml:{line}:{DOWN.index('Mira') + 1}: {UNREACHED}"]
    scenario = simlab.loads(_without_specs(APART), "s.yaml")
    assert scenario.down_problem("Mira") == UNREACHED
    assert scenario.attack_problem("club", "Mira") == UNTARGETED
    with pytest.raises(InputError) as err:
        simlab.tune(scenario, "Ogre.hp=20:60", "median_time_to_down:Mira=5", n=200)
    assert " ".join(str(err.value).split()) == f"target median_time_to_down:Mira=5: {UNREACHED}"
    with pytest.raises(InputError) as err:
        simlab.tune(scenario, "Ogre.hp=20:60", "win_rate:enemies=0.5", n=200)
    assert "and 'Mira' never is: no one attacks it (nobody on another side can" in " ".join(
        str(err.value).split()
    )


def test_under_everyone_or_with_mira_engaged_she_can_go_down() -> None:
    """The same specs load once the Ogre can reach Mira: every enemy is Engaged with
    everyone, Mira declares the engagement herself (engagements are mutual), or the Ogre
    has a Ranged attack too."""
    specs = APART + DOWN + HIT
    everyone = specs.replace("engagement: declared", "engagement: everyone")
    simlab.loads(everyone.replace(", engaged_with: [Kaito]", ""), "s.yaml")
    simlab.loads(specs.replace("attacks: [bow]}", "attacks: [bow], engaged_with: [Ogre]}"),
                 "s.yaml")  # fmt: skip
    ranged = specs.replace("attacks: [club], engaged", "attacks: [club, bow], engaged")
    scenario = simlab.loads(ranged.replace(HIT, ""), "s.yaml")
    assert scenario.attack_problem("bow", "Mira") is None
    assert scenario.attack_problem("club", "Mira") == UNTARGETED


#: The Ogre's claws are its Spirit's, Manifested at Melee range: the Wraith takes the
#: Ogre's engagement with Kaito, and reaches Kaito through it alone.
WRAITH = APART.replace(
    "attacks: [club], engaged_with",
    "spirit: {name: Wraith, hp: 10, attacks: [club], manifest: melee}, engaged_with",
)
KAITO = "  - {figure: median_time_to_down, combatant: Kaito, at_least: 2}\n"
WRAITH_HIT = "  - {figure: hit_rate, attack: club, defender: Kaito, at_least: 0.1}\n"


def test_a_combatant_reached_only_by_a_spirit_at_melee_range_is_accepted() -> None:
    scenario = simlab.loads(WRAITH + KAITO + WRAITH_HIT, "s.yaml")
    assert scenario.down_problem("Kaito") is None
    assert scenario.attack_problem("club", "Kaito") is None
    # Mira the Wraith never reaches, and a Wraith at its Source reaches nobody
    assert scenario.down_problem("Mira") == (
        "expected a combatant that can go down; got 'Mira': no one attacks it (nobody on "
        "another side can attack it: the Spirit 'Wraith' lists only Melee attacks and is "
        "Engaged only with 'Kaito'), so it never does"
    )
    at_source = WRAITH.replace("manifest: melee", "manifest: always")
    (error,) = errors_of(at_source + KAITO)
    assert error.endswith(
        "got 'Kaito': no one attacks it (nobody on another side makes an attack: the "
        "Spirit 'Wraith' lists only Melee attacks and, under engagement: declared, is "
        "Engaged with nobody), so it never does"
    )


def test_a_spirit_at_melee_range_is_attacked_by_its_characters_foes() -> None:
    """Kaito's Spirit at Melee range takes his engagement with the Ogre, and the Ogre's
    (mutual) with it; at its Source it is Engaged with nobody, and the Ogre's Melee club
    never reaches it."""
    text = APART.replace(
        "{name: Kaito, hp: 24, guard: 1, attacks: [club]}",
        "{name: Kaito, hp: 24, guard: 1, attacks: [club], spirit: {name: Kestrel, hp: 8, "
        "attacks: [club], manifest: melee}}",
    )
    spec = "  - {figure: down_rate, combatant: Kestrel, at_least: 0.01}\n"
    scenario = simlab.loads(text + spec, "s.yaml")
    assert scenario.attack_problem("club", "Kestrel") is None
    at_source = text.replace("manifest: melee", "manifest: always") + spec
    (error,) = errors_of(at_source)
    assert error.endswith(
        "got 'Kestrel': no one attacks it (nobody on another side can attack it: 'Ogre' "
        "lists only Melee attacks and is Engaged only with 'Kaito'), so it never does"
    )


def test_copies_and_reinforcements_are_engaged_as_their_entry() -> None:
    """An entry's ``engaged_with`` covers every copy of the entries it names, and a
    reinforcement's slots as any copies: a spec of each copy, or of the entry, loads."""
    text = APART.replace("{name: Mira, hp: 12, attacks: [bow]}",
                         "{name: Mira, hp: 12, count: 2, attacks: [bow]}").replace(
        "engaged_with: [Kaito]}",
        "engaged_with: [Kaito, Mira]}\n"
        "    - {name: Imp, hp: 5, attacks: [club], engaged_with: [Mira],\n"
        "       reinforce: {per_round: 1, cap: 2}}",
    )  # fmt: skip
    specs = "".join(f"  - {{figure: down_rate, combatant: {name}, at_least: 0.0}}\n"
                    for name in ("Mira", "Mira 2", "Imp", "Imp 2"))  # fmt: skip
    scenario = simlab.loads(text + specs, "s.yaml")
    assert scenario.attack_problem("club", "Mira 2") is None  # the Imps' club
    assert scenario.attack_problem("bow", "Imp 2") is None
    assert scenario.down_problem("Imp") is None
    # Kaito's club reaches the Ogre alone
    assert scenario.attack_problem("club", "Imp 2") == (
        "expected a combatant that 'club' can target; got 'Imp 2': 'club' is a Melee "
        "attack, and 'Kaito' is Engaged only with 'Ogre'"
    )


def test_a_spirit_that_never_manifests_is_never_attacked() -> None:
    """A Spirit with ``manifest: never`` is never in the fight: not even a Ranged
    attack reaches it, under any engagement."""
    text = APART.replace(
        "{name: Mira, hp: 12, attacks: [bow]}",
        "{name: Mira, hp: 12, attacks: [bow], spirit: {name: Shade, hp: 6, manifest: never}}",
    ).replace("engagement: declared", "engagement: everyone")
    spec = "  - {figure: down_rate, combatant: Shade, at_most: 0.1}\n"
    (error,) = errors_of(text.replace("[club], engaged", "[club, bow], engaged") + spec)
    assert error.endswith(
        "got 'Shade': no one attacks it (the Spirit 'Shade' has manifest: never and is "
        "never in the fight), so it never does"
    )


#: Every engagement the kernels can make, with random targets so that each one is tried:
#: copies (``count:``), a reinforcement, a Spirit at Melee range on each side (the two
#: Engaged through their characters), one at its Source, and Mira apart.
EVERY_WAY = """\
scenario: every-way
rules: shattered-spirits
encounters: 3000
seed: 11
max_rounds: 12
params: {engagement: declared, melee_manifest_cost: 0}
attacks:
  club: {profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]}
  bow: {range: ranged, profile: [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5]}
sides:
  party:
    - {name: Kaito, hp: 30, target: random, attacks: [club], engaged_with: [Ogre],
       spirit: {name: Kestrel, hp: 8, target: random, attacks: [club], manifest: melee}}
    - {name: Sora, hp: 30, target: random, attacks: [club], engaged_with: [Imp],
       spirit: {name: Wisp, hp: 8, target: random, attacks: [club]}}
    - {name: Mira, hp: 12, target: random, attacks: [bow]}
  enemies:
    - {name: Ogre, hp: 20, count: 2, target: random, attacks: [club],
       spirit: {name: Wraith, hp: 8, target: random, attacks: [club], manifest: melee}}
    - {name: Imp, hp: 6, target: random, attacks: [club],
       reinforce: {per_round: 1, cap: 2}}
"""


def test_the_checks_say_what_the_kernels_do() -> None:
    """A combatant the checks say no enemy can attack is never attacked in a run, and
    every one they say can be is, by every attack they say reaches it: the reading of
    the engagements is the kernels' own."""
    scenario = simlab.loads(EVERY_WAY, "s.yaml")
    result = simlab.simulate(scenario)
    hits = result.hit_rates()
    made = {(row.attack, row.defender) for row in hits.itertuples() if row.attempts > 0}
    names = [name for _, name, _ in scenario.attack_makers()]
    for defender in names:
        for attack in ("club", "bow"):
            reached = scenario.attack_problem(attack, defender) is None
            assert reached == ((attack, defender) in made), (attack, defender)
        attacked = any(d == defender for _, d in made)
        assert (scenario.down_problem(defender) is None) == attacked, defender
    assert {"Mira", "Wisp", "Kestrel", "Wraith 2", "Imp 2"} <= set(names)
    assert scenario.down_problem("Mira") is not None
    assert scenario.down_problem("Wisp") is not None
    assert ("club", "Kestrel") in made and ("club", "Wraith 1") in made
