"""A misspelt name is answered with the name it is closest to ("did you mean …?").

Every message keeps its "expected …; got …" form and its place; the suggestion is added
at its end, and only when one known name is close enough (``errors.SUGGEST_CUTOFF``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import InputError, ScenarioError, did_you_mean
from tests.support import assert_one_error, errors_of, slipped, validate_file
from tests.tuning.cases import ROOT, SS_DUEL

GLITTERS = """\
scenario: t
rules: glitters-d20
encounters: 100
max_rounds: 5
attacks:
  mace: {damage: 1d8+2, type: bludgeoning, bonus: 5}
sides:
  a:
    - {name: Attacker, hp: 20, attacks: [mace]}
  b:
    - {name: Defender, hp: 40, dc: 12}
"""


@pytest.mark.parametrize(
    ("found", "known", "suggested"),
    [
        ("armour", ["armor", "armor_bc", "attacks"], "armor"),
        ("maec", ["mace", "sword"], "mace"),
        ("defender", ["Attacker", "Defender"], "Defender"),  # case ignored, shown as known
        ("hpp", ["hp", "name"], "hp"),
        ("enemy", ["party", "enemies"], "enemies"),  # the stem alike, below the cutoff
        ("kut", ["cut", "heavy-cut", "feint"], "cut"),  # one letter of three: 0.67 alike
        ("Kut", ["cut", "feint"], "cut"),
        ("xae", ["axe", "bow"], "axe"),  # two neighbours swapped
        ("bw", ["bow", "axe"], "bow"),  # a letter dropped
    ],
)
def test_a_close_name_is_suggested(found: str, known: list[str], suggested: str) -> None:
    assert did_you_mean(found, known) == f"; did you mean {suggested!r}?"


@pytest.mark.parametrize(
    ("found", "known"),
    [("zzz", ["mace", "sword"]), (3, ["3"]), ("", ["a"]),
     ("sides", ["sidearm", "sideline"]),  # two share the stem: neither is suggested
     ("ene", ["enemies"]),  # a stem of 2 letters says too little
     ("kut", ["cut", "hut"]),  # one edit from two names: neither
     ("ab", ["ax"])],  # a known name of 2 letters is not guessed at
)  # fmt: skip
def test_nothing_is_suggested_when_nothing_is_close(found: object, known: list[str]) -> None:
    assert did_you_mean(found, known) == ""


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        ("dc: 12}", "dc: 12, armour: plate}", 11, ["key 'armour'", "did you mean 'armor'?"]),
        ("bludgeoning", "bludgeonning", 6, ["got 'bludgeonning'; did you mean 'bludgeoning'?"]),
        ("rules: glitters-d20", "rules: gliters-d20", 2, ["did you mean 'glitters-d20'?"]),
        ("attacks: [mace]", "attacks: [maec]", 9, ["got 'maec'; did you mean 'mace'?"]),
    ],
)
def test_a_scenario_file_suggests_the_name(old: str, new: str, line: int, words: list[str]) -> None:
    assert_one_error(GLITTERS.replace(old, new), line, words)


def test_a_far_name_gets_no_suggestion() -> None:
    assert_one_error(GLITTERS.replace("[mace]", "[halberd]"), 9, ["got 'halberd'"])
    with pytest.raises(ScenarioError) as caught:
        simlab.loads(GLITTERS.replace("[mace]", "[halberd]"), "s.yaml")
    assert "did you mean" not in str(caught.value)


def test_an_expect_entry_suggests_the_combatant() -> None:
    text = GLITTERS + "expect:\n  - {figure: down_rate, combatant: Defendr, at_least: 0.1}\n"
    assert_one_error(text, 13, ["got 'Defendr'; did you mean 'Defender'?"])


@pytest.mark.parametrize(
    ("entry", "words"),
    [("{figure: win_rate, side: heros, at_least: 0.1}", "got 'heros'; did you mean 'heroes'?"),
     ("{figure: event_rate, combatant: Defender, event: deadd, at_most: 0.5}",
      "got 'deadd'; did you mean 'dead'?")],
)  # fmt: skip
def test_an_expect_entry_suggests_the_side_and_the_event(entry: str, words: str) -> None:
    text = GLITTERS.replace("  a:\n", "  heroes:\n") + f"expect:\n  - {entry}\n"
    assert_one_error(text, 13, [words])


def test_a_misspelt_figure_is_suggested_in_a_target() -> None:
    """``--target win_rte:party=0.5`` got no suggestion where ``expect:`` gave one."""
    with pytest.raises(InputError, match="got 'win_rte'; did you mean 'win_rate'"):
        simlab.tune(SS_DUEL, "Defender.guard=0:3", "win_rte:party=0.5", n=1000)


def test_a_tuning_target_suggests_the_event() -> None:
    with pytest.raises(InputError, match="got 'deadd'; did you mean 'dead'"):
        simlab.tune(SS_DUEL, "Defender.guard=0:3", "event_rate:Defender@deadd=0.5", n=1000)


def test_a_spirits_attack_is_suggested() -> None:
    path = ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml"
    text = path.read_text().replace("attacks: [talon-rake]", "attacks: [talon-rak]")
    with pytest.raises(ScenarioError, match="did you mean 'talon-rake'"):
        simlab.loads(text, "s.yaml")


def test_a_technique_is_suggested() -> None:
    path = ROOT / "scenarios/shattered-spirits-draft1/quickstart.yaml"
    text = path.read_text().replace("plan: [stone-strike]", "plan: [stone-strik]")
    with pytest.raises(ScenarioError, match="did you mean 'stone-strike'"):
        simlab.loads(text, "s.yaml")


def test_an_override_suggests_the_combatant() -> None:
    with pytest.raises(InputError, match=r"got 'Defendr'; did you mean 'Defender'\?$"):
        simlab.load(SS_DUEL).with_(["Defendr.guard=2"])


@pytest.mark.parametrize(
    ("target", "suggested"),
    [("median_time_to_down:defender=3", "Defender"), ("hit_rate:strik=0.5", "strike")],
)
def test_a_tuning_target_suggests_the_name(target: str, suggested: str) -> None:
    with pytest.raises(InputError, match=f"did you mean {suggested!r}"):
        simlab.tune(SS_DUEL, "Defender.guard=0:3", target, n=1000)


def test_a_choice_written_out_in_full_is_suggested() -> None:
    """'critical' for the choice 'crit': below the likeness cutoff, and longer than the
    stem rule reaches; the known name it starts with is suggested."""
    assert did_you_mean("critical", ["miss", "hit", "crit"]) == "; did you mean 'crit'?"
    assert did_you_mean("hitting", ["miss", "hit", "crit"]) == ""  # 'hit' is too short
    assert did_you_mean("criticality", ["crit"]) == ""  # more than twice as long


@pytest.mark.parametrize(
    ("old", "slip", "meant"),
    [
        ("hp: 20,", "hp: 20, attributes: {|strength: 14},", "str"),
        ("bonus: 5}", "bonus: 5, attribute: |Dexterity}", "dex"),
        ("dc: 12}", "|mitigation: 12}", "mit"),
    ],
)
def test_a_short_name_written_out_in_full_is_suggested(old: str, slip: str, meant: str) -> None:
    """glitters-d20's page writes ``str`` (strength): a designer writes the word out,
    which no likeness rule reaches from three letters ('hit' is no 'hitting')."""
    text, at = slipped(GLITTERS, old, slip)
    [problem] = errors_of(text)
    assert problem.startswith(f"s.yaml:{at}: "), problem
    assert problem.endswith(f"; did you mean {meant!r}?"), problem


@pytest.mark.parametrize(
    ("old", "slip", "meant"),
    [
        ("hp: 20,", "hp: 20, attributes: {|strenght: 14},", "str"),  # the rule page's slip
        ("bonus: 5}", "bonus: 5, attribute: |dexterty}", "dex"),
        ("dc: 12}", "|mitgation: 12}", "mit"),
    ],
)  # fmt: skip
def test_a_short_name_misspelt_in_full_is_suggested(old: str, slip: str, meant: str) -> None:
    """``attributes: {strenght: 15}``, the misspelling docs/rules/glitters-d20.md itself
    names, got no suggestion: too far from ``str`` for any likeness rule, and only
    ``strength`` written right was known to stand for it."""
    text, at = slipped(GLITTERS, old, slip)
    [problem] = errors_of(text)
    assert problem.startswith(f"s.yaml:{at}: "), problem
    assert problem.endswith(f"; did you mean {meant!r}?"), problem


SPIRITS = """\
scenario: t
rules: shattered-spirits
params: {engagement: declared}
attacks:
  blade: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], tier: {12: crit}, status: {11: [stun 1]}}
sides:
  a:
    - name: Kestrel
      hp: 20
      attacks: [blade]
      engaged_with: [Ghoul]
      stances:
        - {name: steady, speed: 3}
        - {name: frenzy, speed: 1}
      stance_policy: {switch_to: frenzy, when_hp_below: 10}
  b:
    - {name: Ghoul, hp: 30, attacks: [blade]}
"""

TIERS = """\
scenario: t
rules: opposed-tiers
tiers:
  - {name: veteran, attack: 6d6, defense: 6d6, damage: 6d6, shield: {light: 1d12}}
  - {name: journeyman, damage: 2d6+1d4}
attacks:
  sword: {}
sides:
  a:
    - {name: A, hp: 10, tier: veteran, shield: light, attacks: [sword]}
  b:
    - {name: B, hp: 10, attacks: [sword]}
"""

#: (scenario, old, new, the one problem it must give) — names refused without a
#: suggestion before, and the other name lists of the models.
NAMES = [
    (SPIRITS, "engaged_with: [Ghoul]", "engaged_with: [Ghul]",
     "s.yaml:11:22: expected an enemy entry (Ghoul); got 'Ghul'; did you mean 'Ghoul'?"),
    (SPIRITS, "switch_to: frenzy", "switch_to: frenzyy",
     "s.yaml:15:34: expected a Stance listed under 'stances:' (steady, frenzy); got "
     "'frenzyy'; did you mean 'frenzy'?"),
    (SPIRITS, "12: crit}", "12: critical}",
     "s.yaml:5:66: expected one of 'miss', 'hit', 'crit'; got 'critical'; did you mean "
     "'crit'?"),
    (SPIRITS, "[stun 1]", "[stnu 1]",
     "s.yaml:5:87: expected 'stun N', 'exposed N' or 'impaired N' (N from 1 to 999), or a "
     "one-word marker such as 'staggered'; got 'stnu 1'; did you mean 'stun 1'?"),
    (TIERS, "tier: veteran,", "tier: veterann,",
     "s.yaml:10:31: expected a tier of the tier table (novice, journeyman, adept, master, "
     "veteran); got 'veterann'; did you mean 'veteran'?"),
    (TIERS, "shield: light,", "shield: lihgt,",
     "s.yaml:10:48: expected a shield type of tier 'veteran' (light); got 'lihgt'; did you "
     "mean 'light'?"),
    (TIERS, "name: journeyman,", "name: journeymen,",
     "s.yaml:5:5: expected attack, defense and damage dice for a new tier ('journeymen'); "
     "got no attack, defense; did you mean 'journeyman'?"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "old", "new", "problem"), NAMES)
def test_a_misspelt_name_of_the_scenario_is_suggested(
    text: str, old: str, new: str, problem: str
) -> None:
    assert old in text
    assert errors_of(text.replace(old, new)) == [problem]


def test_the_cli_suggests_the_tier_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    result = validate_file(path, TIERS.replace("tier: veteran,", "tier: veterann,"))
    assert result.exit_code == 2
    assert f"{path}:10:31: expected a tier of the tier table" in result.output
    assert result.output.rstrip().endswith("got 'veterann'; did you mean 'veteran'?")


def test_an_expect_entry_of_the_earlier_draft_names_techniques() -> None:
    """An unknown attack in a draft1 ``expect:`` entry said "defined under 'attacks:'",
    a key the earlier draft refuses ("did you mean 'techniques'?"), and 'kut' got no
    suggestion."""
    path = ROOT / "scenarios/shattered-spirits-draft1/quickstart.yaml"
    entry = "{figure: hit_rate, attack: stone-strke, at_least: 0.1}"
    text = path.read_text() + f"expect:\n  - {entry}\n"
    with pytest.raises(ScenarioError) as caught:
        simlab.loads(text, "s.yaml")
    message = str(caught.value)
    assert "expected a technique defined under 'techniques:' (" in message
    assert message.endswith("got 'stone-strke'; did you mean 'stone-strike'?")


def test_another_games_word_for_hit_points_is_said_as_one_problem() -> None:
    """``health: 20`` in a zones-3d6 combatant was two problems, neither suggesting
    ``hp``: the unknown key, and ``expected key 'hp'; got nothing`` at the entry. An
    earlier-draft combatant's ``hp`` (it writes ``health``) the same."""
    from tests.support import ZONES_DUEL

    zones = ZONES_DUEL.replace("{name: A, hp: 20", "{name: A, health: 20").replace(
        "{name: B, hp: 20}", "{name: B, hit_points: 20}"
    )
    errors = errors_of(zones)
    assert len(errors) == 2 and all(e.endswith("did you mean 'hp'?") for e in errors), errors
    assert errors[0].startswith("s.yaml:6:17: unknown key 'health'")
    draft1 = """\
scenario: t
rules: shattered-spirits-draft1
techniques:
  jab: {profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6], ap: 1, speed: 2}
sides:
  a: [{name: A, endurance: 10, hp: 10, plan: [jab]}]
  b: [{name: B, endurance: 10, health: 10}]
"""
    (error,) = errors_of(draft1)
    assert error.startswith("s.yaml:6:32: unknown key 'hp'") and error.endswith(
        "did you mean 'health'?"
    )
