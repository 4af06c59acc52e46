"""An ``expect:`` entry on an attack no combatant can ever make is refused by ``validate``.

Such a spec passed ``validate`` and failed at ``check`` with "never measured: no such
attacks happened"; given a ``defender:`` it was refused as "expected a combatant that
'stone-strike' can target", a consequence, not the mistake: nobody makes the attack.
The refusal says so at the spec's ``attack:``, in every rule system. A Shattered Spirits
scenario in which only a Spirit that never Manifests has attacks is refused as one in
which nobody can deal damage.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from tests.support import errors_of

ROOT = Path(__file__).resolve().parents[2]

#: Per rule system: a combatant's own fields, its key listing attacks, the key attacks
#: are defined under and one attack's fields.
SYSTEMS = {
    "shattered-spirits": ("hp: 20", "attacks", "attacks",
                          "profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"),
    "shattered-spirits-draft1": ("endurance: 20, health: 20", "plan", "techniques",
                                 "profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ap: 1, speed: 3"),
    "zones-3d6": ("hp: 20", "attacks", "attacks", "damage: 1d6"),
    "opposed-tiers": ("hp: 20", "attacks", "attacks", "modifier: 0"),
    "glitters-d20": ("hp: 20", "attacks", "attacks", "damage: 1d6, type: slashing"),
}  # fmt: skip
#: How each system says what makes an attack.
MADE = {
    "shattered-spirits": "an attack some combatant or Spirit lists under 'attacks:' and "
                         "can make",
    "shattered-spirits-draft1": "a technique some combatant's 'plan:' or 'improvise:' plays",
    "zones-3d6": "an attack some combatant lists under 'attacks:'",
    "opposed-tiers": "an attack some combatant lists under 'attacks:'",
    "glitters-d20": "an attack some combatant lists under 'attacks:'",
}  # fmt: skip


def _duel(rules: str, brute: str, spec: str) -> str:
    """Kaito (jab) against Brute (``brute``: its list of attacks), with one ``spec``."""
    fields, uses, defined, attack = SYSTEMS[rules]
    return (f"scenario: t\nrules: {rules}\n{defined}:\n  strike: {{{attack}}}\n"
            f"  jab: {{{attack}}}\nsides:\n  party:\n"
            f"    - {{name: Kaito, {fields}, {uses}: [jab]}}\n  enemies:\n"
            f"    - {{name: Brute, {fields}, {uses}: {brute}}}\nexpect:\n"
            f"  - {{figure: hit_rate, attack: strike{spec}, at_least: 0.1}}\n")  # fmt: skip


@pytest.mark.parametrize("rules", sorted(SYSTEMS))
@pytest.mark.parametrize("spec", ["", ", defender: Kaito", ", attacker: Brute"])
def test_a_spec_of_an_attack_nobody_makes_says_so_at_its_attack(rules: str, spec: str) -> None:
    text = _duel(rules, "[]", spec)
    assert errors_of(text) == [
        f"s.yaml:12:32: 'strike' is made by no combatant: expected {MADE[rules]} (jab); "
        "got 'strike'"
    ]
    simlab.loads(_duel(rules, "[strike]", spec), "s.yaml")  # Brute makes it: a spec to check


def test_the_quickstart_without_the_brutes_attack_is_refused_at_its_spec(tmp_path: Path) -> None:
    """The slip as a designer makes it: Brute's ``attacks: []`` in the quickstart."""
    text = (ROOT / "scenarios/shattered-spirits/quickstart.yaml").read_text()
    path = tmp_path / "quickstart.yaml"
    path.write_text(text.replace("attacks: [stone-strike]", "attacks: []"))
    done = CliRunner().invoke(main, ["validate", str(path)])
    assert done.exit_code == 2, done.output
    assert " ".join(done.output.split()) == (
        f"{path}:30:32: 'stone-strike' is made by no combatant: expected an attack some "
        "combatant or Spirit lists under 'attacks:' and can make (quick-jab); got "
        "'stone-strike'"
    )


SPIRIT = "spirit: {name: Ghost, hp: 5, attacks: [strike], manifest: never}"


def test_a_spec_of_a_spirit_that_never_manifests_is_refused() -> None:
    """A Spirit with ``manifest: never`` never acts: the attacks only it lists are never
    made."""
    text = _duel("shattered-spirits", "[]", "").replace(
        "{name: Brute, hp: 20,", "{name: Brute, hp: 20, " + SPIRIT + ","
    )
    (error,) = errors_of(text)
    assert error.startswith("s.yaml:12:32: 'strike' is made by no combatant: ")
    assert error.endswith("got 'strike', listed only by the Spirit 'Ghost' (manifest: never)")
    simlab.loads(text.replace("manifest: never", "manifest: always"), "s.yaml")


def test_a_scenario_whose_only_attacker_is_a_spirit_that_never_manifests_is_refused() -> None:
    """Nobody can ever attack anyone there: every encounter was a draw at the round cap."""
    text = (
        _duel("shattered-spirits", "[]", "")
        .replace("[jab]", "[]")
        .replace("{name: Brute, hp: 20,", "{name: Brute, hp: 20, " + SPIRIT + ",")
    )
    text = text[: text.index("expect:")]
    (error,) = errors_of(text)
    assert error.startswith("s.yaml:7:3: expected a combatant or Spirit with an attack it can make")
    simlab.loads(text.replace("manifest: never", "manifest: always"), "s.yaml")


def test_a_spec_of_a_melee_attack_made_by_nobody_engaged_is_refused() -> None:
    """With ``engagement: declared`` a Melee attack needs an Engaged enemy: made only by
    combatants Engaged with nobody, it is never made."""
    text = (
        _duel("shattered-spirits", "[strike]", "")
        .replace("sides:", "params: {engagement: declared}\nsides:")
        .replace("strike: {profile", "strike: {range: melee, profile")
        .replace("jab: {profile", "jab: {range: ranged, profile")
    )
    (error,) = errors_of(text)
    assert error.startswith("s.yaml:13:32: 'strike' is made by no combatant: ")
    assert error.endswith("got 'strike', a Melee attack listed only by combatants Engaged "
                          "with nobody (engagement: declared)")  # fmt: skip
    simlab.loads(text.replace("{name: Brute, hp: 20,", "{name: Brute, hp: 20, "
                              "engaged_with: [Kaito],"), "s.yaml")  # fmt: skip


def test_a_misspelt_attack_with_declared_engagement_is_said_not_a_traceback() -> None:
    """With ``engagement: declared`` an attack listed but not defined raised a KeyError
    (a traceback) where the scenario was checked for anyone able to deal damage."""
    text = (
        _duel("shattered-spirits", "[strik]", "")
        .replace("sides:", "params: {engagement: declared}\nsides:")
        .replace("[jab]", "[]")
    )
    text = text[: text.index("expect:")]
    assert errors_of(text) == [
        "s.yaml:11:39: expected an attack defined under 'attacks:' (jab, strike); got "
        "'strik'; did you mean 'strike'?"
    ]
