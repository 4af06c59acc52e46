"""A figure of going down of a combatant that no attack can ever reach is refused.

In shattered-spirits an attack listed is not always made: a Spirit with ``manifest:
never`` makes none, and under ``engagement: declared`` a Melee attack needs an Engaged
enemy. A combatant whose only attackers are such was taken as one that can go down, so
an ``expect:`` spec of its time-to-down passed ``validate`` (and ``check``, at 0), and a
``tune --target`` of it simulated every value to say "unreachable". Both are refused,
as for a combatant nobody on another side lists an attack against.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import InputError
from tests.support import validate_file

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = (ROOT / "scenarios/shattered-spirits/quickstart.yaml").read_text()
#: Kaito's quick-jab made Ranged, so that Kaito can deal damage without an engagement,
#: and the spec of the Brute's stone-strike left out (an attack never made is refused
#: first, at its own spec: tests/scenario/test_unmade_attacks.py).
RANGED = QUICKSTART.replace("    modifier: 1 ", "    range: ranged\n    modifier: 1 ").replace(
    "  - {figure: hit_rate, attack: stone-strike, defender: Kaito, at_least: 0.6}\n", ""
)
#: The Brute's one attack belongs to its Spirit, which never Manifests.
GHOST = RANGED.replace(
    "speed: 5, attacks: [stone-strike]}",
    "speed: 5, spirit: {name: Ghost, hp: 5, attacks: [stone-strike], manifest: never}}",
)
#: Engagements declared, and nobody Engaged: the Brute's Melee stone-strike is never made.
DECLARED = RANGED.replace("max_rounds: 30\n", "max_rounds: 30\nparams: {engagement: declared}\n")
SLIPS = {"ghost": GHOST, "declared": DECLARED}
#: The line of the median time-to-down spec of Kaito in each.
LINE = {"ghost": 30, "declared": 31}
WHY = {
    "ghost": "no one attacks it (nobody on another side makes an attack: the Spirit "
    "'Ghost' has manifest: never), so it never does",
    "declared": "no one attacks it (nobody on another side makes an attack: 'Brute' lists "
    "only Melee attacks and, under engagement: declared, is Engaged with nobody), so it "
    "never does",
}


def _without_specs(text: str) -> str:
    """``text`` without its ``expect:`` specs, for a figure asked of it."""
    return text[: text.index("expect:")]


def test_the_slips_are_what_they_say() -> None:
    """Each scenario loads once the Brute can attack Kaito: the refusals below are of
    the going down, nothing else."""
    assert "range: ranged" in RANGED and "hit_rate" not in RANGED
    assert "manifest: never" in GHOST
    assert "engagement: declared" in DECLARED
    simlab.loads(GHOST.replace("manifest: never", "manifest: always"), "s.yaml")
    simlab.loads(DECLARED.replace("attacks: [stone-strike]", "attacks: [stone-strike], "
                                  "engaged_with: [Kaito]"), "s.yaml")  # fmt: skip


@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_validate_refuses_a_spec_of_its_time_to_down(slip: str, tmp_path: Path) -> None:
    path = tmp_path / "quickstart.yaml"
    done = validate_file(path, SLIPS[slip])
    assert done.exit_code == 2, done.output
    assert " ".join(done.output.split()) == (
        f"{path}:{LINE[slip]}:46: expected a combatant that can go down; got 'Kaito': {WHY[slip]}"
    )


@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_the_api_refuses_a_target_of_its_going_down(slip: str) -> None:
    scenario = simlab.loads(_without_specs(SLIPS[slip]), "s.yaml")
    reason = f"expected a combatant that can go down; got 'Kaito': {WHY[slip]}"
    with pytest.raises(InputError) as err:
        simlab.tune(scenario, "Kaito.hp=10:30", "down_rate:Kaito=0.5", n=200)
    assert " ".join(str(err.value).split()) == f"target down_rate:Kaito=0.5: {reason}"
    with pytest.raises(InputError) as err:
        simlab.simulate(scenario, n=200, precision=0.1, precision_on=["down_rate:Kaito"])
    assert reason in " ".join(str(err.value).split())
    # the Brute itself can go down: Kaito's Ranged quick-jab reaches it
    assert scenario.down_problem("Brute") is None


@pytest.mark.parametrize(
    ("path", "name", "harm"),
    [("benchmarks/ss-duel.yaml", "Attacker", "rushing: 1"),
     ("glitters-d20/training-duel.yaml", "Fighter", "bleeding: 2")],
)  # fmt: skip
def test_a_spec_of_the_going_down_of_a_combatant_nobody_lists_an_attack_against(
    path: str, name: str, harm: str, tmp_path: Path
) -> None:
    """The plain case, in any rule system: nobody on another side lists an attack. A
    spec of its going down passed at 0 in ``check``; it is refused unless something else
    harms it (Rushing terrain, a starting Bleeding)."""
    text = (ROOT / "scenarios" / path).read_text()
    spec = f"expect:\n  - {{figure: down_by_round, combatant: {name}, round: 3, at_most: 0.5}}\n"
    file = tmp_path / "s.yaml"
    done = validate_file(file, text + spec)
    assert done.exit_code == 2, done.output
    line, col = text.count("\n") + 2, spec.splitlines()[1].index(name) + 1
    assert " ".join(done.output.split()) == (
        f"{file}:{line}:{col}: expected a combatant that can go down; got {name!r}: no one "
        "attacks it (nobody on another side makes an attack), so it never does"
    )
    harmed = text.replace(f"{{name: {name}, ", f"{{name: {name}, {harm}, ")
    assert harmed != text
    simlab.loads(harmed + spec, "s.yaml")
