"""Every kind of mistake in a Shattered Spirits scenario is reported with its line.

Each case changes one line of a valid scenario and asserts the ``file:line`` and the
"expected …; got …" wording of the message.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from simlab.errors import InputError, ScenarioError
from tests.support import errors_of, validate_file

ROOT = Path(__file__).resolve().parents[2]

VALID = """\
scenario: t
rules: shattered-spirits
encounters: 100
max_rounds: 5
attacks:
  jab:
    profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]
    tier: {12: crit}
sides:
  a:
    - {name: A, hp: 10, attacks: [jab]}
  b:
    - {name: B, hp: 10, guard: 1}
"""


def test_the_valid_scenario_loads() -> None:
    scn = simlab.loads(VALID, "s.yaml")
    assert scn.combatant_names() == [("a", "A"), ("b", "B")]


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        ("hp: 10, guard: 1}", "hp: 10, gaurd: 1}", 13, ["unknown key 'gaurd'", "guard"]),
        ("hp: 10, guard: 1}", "hp: ten, guard: 1}", 13, ["expected an integer", "'ten'"]),
        ("{name: B, hp: 10, guard: 1}", "{name: B, guard: 1}", 13, ["expected key 'hp'"]),
        ("guard: 1}", "guard: -1}", 13, ["expected a number ≥ 0", "-1"]),
        (
            "[0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]",
            "[0, 1, 2, 2, 3, 3, 4, 4, 5, 6]",
            7,
            ["expected 11 items", "10 items"],
        ),
        ("{12: crit}", "{12: critical}", 8, ["'miss', 'hit', 'crit'", "'critical'"]),
        ("{12: crit}", "{13: crit}", 8, ["expected rows 2 to 12", "13"]),
        ("attacks: [jab]", "attacks: [jabb]", 11, ["expected an attack defined", "'jabb'"]),
        ("rules: shattered-spirits", "rules: shattered", 2, ["expected one of", "'shattered'"]),
        ("encounters: 100", "encounters: 0", 3, ["expected a number ≥ 1", "0"]),
        (
            "{name: A, hp: 10,",
            "{name: A, hp: 10, target: weakest,",
            11,
            ["'focus', 'random', 'lowest-hp'", "'weakest'"],
        ),
        ("{name: A, hp: 10,", "{name: A, hp: 10, speed: 7,", 11, ["≤ 6", "7"]),
        (
            "{name: A, hp: 10,",
            "{name: A, hp: 10, downed: dead,",
            11,
            ["'defeat', 'wounds'", "'dead'"],
        ),
        (
            "max_rounds: 5",
            "max_rounds: 5\nparams: {wound_roll: max}",
            5,
            ["'sum', 'highest'", "'max'"],
        ),
        ("max_rounds: 5", "max_rounds: 5\nparams: {strain: 4}", 5, ["unknown key 'strain'"]),
        (
            "tier: {12: crit}",
            "tier: {12: crit}\n    status: {8: [stun]}",
            9,
            ["expected a size for 'stun'"],
        ),
        ("  b:\n    - {name: B, hp: 10, guard: 1}\n", "", 10, ["expected at least 2 sides"]),
        (
            "  b:\n    - {name: B, hp: 10, guard: 1}\n",
            "  b: []\n",
            12,
            ["expected at least 1 combatant on side 'b'", "got none"],
        ),
        ("max_rounds: 5", "max_rounds: 5\nmax_rounds: 6", 5, ["expected each key once"]),
        (
            "hp: 10, guard: 1}",
            "hp: !!python/object:os.system 10}",
            13,
            ["expected plain YAML values"],
        ),
        ("hp: 10, guard: 1}", "hp: [10, guard: 1}", 13, ["expected valid YAML syntax"]),
        # a key that is not text, at its own line (it was placed at the mapping above it)
        (
            "max_rounds: 5",
            "max_rounds: 5\nnull: 3",
            5,
            ["expected a key written as text; got an empty value"],
        ),
        (
            "hp: 10, guard: 1}",
            "hp: 10, guard: 1, 7: x}",
            13,
            ["expected a key written as text; got 7"],
        ),
    ],
)
def test_mistake_is_located(old: str, new: str, line: int, words: list[str]) -> None:
    assert old in VALID
    problems = errors_of(VALID.replace(old, new, 1))
    first = problems[0]
    assert first.startswith(f"s.yaml:{line}:"), problems
    for word in words:
        assert word in first, problems


def test_several_mistakes_are_all_reported_in_line_order() -> None:
    text = VALID.replace("hp: 10, attacks", "hp: x, attacks").replace("guard: 1}", "guard: y}")
    problems = errors_of(text)
    assert [p.split(":")[1] for p in problems] == ["11", "13"]


def test_missing_file_is_an_input_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ScenarioError) as caught:
        simlab.load(tmp_path / "nope.yaml")
    assert "expected a readable YAML file" in str(caught.value)


@pytest.mark.parametrize("rules", ["zones-3d6", "opposed-tiers", "glitters-d20",
                                   "shattered-spirits-draft1"])  # fmt: skip
def test_a_side_with_no_combatants_is_rejected_in_every_system(tmp_path, rules: str) -> None:  # type: ignore[no-untyped-def]
    """An empty side (`q: []`) would lose every encounter before it starts: `validate`
    names its line and column and exits 2, whatever the rule system."""
    attacks = "techniques" if rules == "shattered-spirits-draft1" else "attacks"
    text = f"""scenario: t
rules: {rules}
{attacks}: {{}}
sides:
  p: []
  q: []
"""
    done = validate_file(tmp_path / "empty.yaml", text)
    assert done.exit_code == 2, done.output
    assert "empty.yaml:5:6: expected at least 1 combatant on side 'p'; got none" in done.output
    assert "Traceback" not in done.output


#: An attack each rule system accepts, written on one line.
ONE_ATTACK = {
    "shattered-spirits": "{profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]}",
    "zones-3d6": "{damage: 1d6}",
    "opposed-tiers": "{}",
    "glitters-d20": "{damage: 1d6, type: piercing}",
}


@pytest.mark.parametrize("rules", sorted(ONE_ATTACK))
def test_a_side_named_draw_is_refused(tmp_path, rules: str) -> None:  # type: ignore[no-untyped-def]
    """The outcome tables (terminal, Parquet, report, sweep) name their row of draws
    "draw": a side of that name gave two "draw" rows, and summary.json, which dropped
    the rows named "draw" to keep the draw rate apart, lost the side's win rate."""
    text = f"""scenario: t
rules: {rules}
attacks: {{hit: {ONE_ATTACK[rules]}}}
sides:
  party: [{{name: A, hp: 10, attacks: [hit]}}]
  draw: [{{name: B, hp: 10}}]
"""
    done = validate_file(tmp_path / "draw.yaml", text)
    assert done.exit_code == 2, done.output
    assert ("draw.yaml:6:9: expected a side name other than 'draw' (the outcome tables' row "
            "of draws); got 'draw'") in done.output  # fmt: skip


@pytest.mark.parametrize(
    ("rules", "got"),
    [
        ("[shattered-spirits]", "got a list"),
        ("{shattered-spirits: 1}", "got a mapping"),
        ("3", "got 3"),
        ("true", "got true"),
    ],
)
def test_rules_that_are_not_text_are_located(tmp_path, rules: str, got: str) -> None:  # type: ignore[no-untyped-def]
    """``rules:`` written as a list or a mapping (unhashable) is refused like a misspelled
    name, at its value, listing the rule systems; the CLI exits 2."""
    text = f"scenario: x\nrules: {rules}\nsides: {{}}\n"
    problems = errors_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith("s.yaml:2:8: expected one of 'shattered-spirits'"), problems
    assert "'glitters-d20'" in problems[0] and problems[0].endswith(got), problems
    done = validate_file(tmp_path / "rules.yaml", text)
    assert done.exit_code == 2, done.output
    assert "rules.yaml:2:8: expected one of" in done.output


def test_an_integer_of_4301_digits_exits_2_located(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``hp:`` followed by 4,301 nines was an internal error (Python's limit on converting
    long decimals); it is an input error at the number, saying how long it is."""
    text = VALID.replace("guard: 1}", "guard: " + "9" * 4301 + "}")
    problems = errors_of(text)
    assert problems == ["s.yaml:13:32: expected an integer of at most 100 digits; got a "
                        "number with 4,301 digits"]  # fmt: skip
    done = validate_file(tmp_path / "long.yaml", text)
    assert done.exit_code == 2, done.output
    assert "long.yaml:13:32: expected an integer of at most 100 digits" in done.output
    assert "internal error" not in done.output


@pytest.mark.parametrize(
    ("written", "said"),
    [("1_000_000_000_000", "got 1_000_000_000_000"), ("1e99", "got 1e+99")],
)
def test_a_large_number_is_said_as_a_scenario_writes_it(written: str, said: str) -> None:
    """``encounters: 1e99`` was said as 100 digits beside a limit of 12
    (``expected a number ≤ 100000000000; got 1000…0``): thousands are parted by ``_`` as
    the examples write them, and a number beyond reading by its size."""
    problems = errors_of(VALID.replace("encounters: 100", f"encounters: {written}", 1))
    assert problems == [f"s.yaml:3:13: expected a number ≤ 100_000_000_000; {said}"]


SHAPES = "expected 'stun N', 'exposed N' or 'impaired N' (N from 1 to 999), or a one-word marker"


@pytest.mark.parametrize(
    ("statuses", "col", "words"),
    [
        ("[stunn 2]", 19, [SHAPES, "got 'stunn 2'"]),
        ("[exposd 1]", 19, [SHAPES, "got 'exposd 1'"]),
        ("[bleeding 2]", 19, [SHAPES, "got 'bleeding 2'"]),
        ("[stun2]", 19, [SHAPES, "got 'stun2'; did you mean 'stun 2'?"]),
        ("[exposed10]", 19, [SHAPES, "got 'exposed10'; did you mean 'exposed 10'?"]),
        ("[staggered, staggered 2]", 30, [SHAPES, "got 'staggered 2'"]),
        ("[stun 0]", 19, ["expected a size from 1 to 999 for 'stun', like 'stun 2'; got 'stun 0'"]),
        ("[exposed 2, impaired 0]", 30, ["a size from 1 to 999 for 'impaired'", "'impaired 0'"]),
    ],
)
def test_a_status_that_is_not_a_known_one_is_located(
    statuses: str, col: int, words: list[str]
) -> None:
    """A word with a number is a sized status: a misspelled or unknown one (which was
    taken as a marker that does nothing) and a size of 0 are refused at the entry,
    listing the statuses (docs/rules/shattered-spirits.md, "Attack fields")."""
    text = VALID.replace("tier: {12: crit}", f"tier: {{12: crit}}\n    status: {{12: {statuses}}}")
    problems = errors_of(text)
    assert len(problems) == 1 and problems[0].startswith(f"s.yaml:9:{col}: "), problems
    for word in words:
        assert word in problems[0], problems


def test_one_word_markers_and_sized_statuses_still_load() -> None:
    status = "status: {8: [staggered, knocked-down], 12: [stun 2, Exposed 1, impaired 999]}"
    scn = simlab.loads(VALID.replace("tier: {12: crit}", f"tier: {{12: crit}}\n    {status}"))
    assert scn.attacks["jab"].status == {
        8: ["staggered", "knocked-down"],
        12: ["stun 2", "Exposed 1", "impaired 999"],
    }


def test_a_misspelled_status_exits_2_from_the_file_and_from_set(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = VALID.replace("tier: {12: crit}", "tier: {12: crit}\n    status: {12: [stunn 2]}")
    done = validate_file(tmp_path / "status.yaml", text)
    assert done.exit_code == 2, done.output
    assert "status.yaml:9:19: expected 'stun N'" in done.output
    scn = simlab.loads(VALID)
    with pytest.raises(
        ScenarioError, match=r"^override jab.status.12=\[stunn 2\]: expected 'stun N'"
    ):
        scn.with_(["jab.status.12=[stunn 2]"])


FIELDS = {
    "shattered-spirits": "hp: 5",
    "shattered-spirits-draft1": "endurance: 5, health: 5",
    "zones-3d6": "hp: 5",
    "opposed-tiers": "hp: 5",
    "glitters-d20": "hp: 5",
}
# One attack `a` of each system, and how a combatant uses it.
ATTACK = {
    "shattered-spirits": "{a: {profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}}",
    "shattered-spirits-draft1": "{a: {profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], ap: 1, "
                                "speed: 3}}",
    "zones-3d6": "{a: {damage: 1d6}}",
    "opposed-tiers": "{a: {}}",
    "glitters-d20": "{a: {damage: 1d6, type: slashing}}",
}  # fmt: skip
NAMES_ONCE = "expected every combatant name once (copies of count: included); got "


def _two_sides(rules: str, party: list[str], enemies: list[str], armed: bool = True) -> str:
    """A scenario of ``rules`` whose sides hold combatants of the given names (each item
    ``NAME`` or ``NAME, count: N``), each making attack ``a`` unless not ``armed``."""
    attacks = "techniques" if rules == "shattered-spirits-draft1" else "attacks"
    uses = ("plan" if rules == "shattered-spirits-draft1" else "attacks") if armed else ""
    fields = FIELDS[rules] + (f", {uses}: [a]" if armed else "")
    rows = {side: "".join(f"    - {{name: {n}, {fields}}}\n" for n in names)
            for side, names in (("party", party), ("enemies", enemies))}  # fmt: skip
    return (f"scenario: t\nrules: {rules}\n{attacks}: {ATTACK[rules]}\nsides:\n  party:\n"
            f"{rows['party']}  enemies:\n{rows['enemies']}")  # fmt: skip


NO_DAMAGE = {
    "shattered-spirits": "a combatant or Spirit with an attack it can make (with engagement: "
    "declared, a Melee attack needs an Engaged enemy), or Rushing terrain",
    "shattered-spirits-draft1": "a combatant with a plan of Techniques",
    "zones-3d6": "a combatant with attacks",
    "opposed-tiers": "a combatant with attacks",
    "glitters-d20": "a combatant with attacks, or starting Bleeding or Burning",
}


@pytest.mark.parametrize("rules", sorted(FIELDS))
def test_a_scenario_in_which_nobody_can_deal_damage_is_refused(rules: str) -> None:
    """With no attack anywhere every encounter ran to the round cap as a draw, every
    figure 0: refused at ``sides:``, saying what would deal damage."""
    text = _two_sides(rules, ["Kaito"], ["Brute, count: 2"], armed=False)
    refusal = (f"s.yaml:5:3: expected {NO_DAMAGE[rules]} (without, nobody can deal damage "
               "and every encounter is a draw); got none")  # fmt: skip
    assert errors_of(text) == [refusal]
    simlab.loads(_two_sides(rules, ["Kaito"], ["Brute, count: 2"]))  # one side armed: a fight


@pytest.mark.parametrize(
    ("rules", "field"),
    [("shattered-spirits", "rushing: 2"),
     ("shattered-spirits", "spirit: {name: Ember, hp: 3, attacks: [a]}"),
     ("glitters-d20", "bleeding: 3"), ("glitters-d20", "burning: 3")],
)  # fmt: skip
def test_harm_without_attacks_is_a_fight(rules: str, field: str) -> None:
    """Rushing terrain, a Spirit's attacks and starting Bleeding or Burning deal damage
    with no combatant's attack: such a scenario is a fight to measure."""
    text = _two_sides(rules, ["Kaito"], ["Brute"], armed=False)
    simlab.loads(text.replace("{name: Kaito, hp: 5", "{name: Kaito, hp: 5, " + field))
    with pytest.raises(ScenarioError, match="nobody can deal damage"):
        simlab.loads(_two_sides(rules, ["Kaito"], ["Brute"], armed=False))


@pytest.mark.parametrize("rules", sorted(FIELDS))
def test_a_name_on_both_sides_is_refused_in_every_system(tmp_path, rules: str) -> None:  # type: ignore[no-untyped-def]
    """``Kaito`` on both sides gave tables of "Kaito → Kaito" and an ambiguous ``--set
    Kaito.hp``: refused at the second ``name:``, naming the first."""
    text = _two_sides(rules, ["Kaito"], ["Kaito"])
    done = validate_file(tmp_path / "names.yaml", text)
    assert done.exit_code == 2, done.output
    assert (f"names.yaml:8:14: {NAMES_ONCE}'Kaito' for the combatant 'Kaito' on side "
            "'enemies', already the name of the combatant 'Kaito' on side 'party' (at 6:14)"
            ) in " ".join(done.output.split())  # fmt: skip


@pytest.mark.parametrize("rules", sorted(FIELDS))
def test_two_entries_of_one_name_on_a_side_are_refused_naming_the_first(rules: str) -> None:
    """Two entries alike read "got the combatant 'Kaito' on side 'party' twice", not
    "'Kaito' for the combatant 'Kaito' on side 'party', already the name of the combatant
    'Kaito' on side 'party'", and say where the first is, as a key written twice does."""
    twice = "the combatant 'Kaito' on side 'party' twice (the first at 6:14)"
    assert errors_of(_two_sides(rules, ["Kaito", "Kaito"], ["Brute"])) == [
        f"s.yaml:7:14: {NAMES_ONCE}{twice}"
    ]
    counted = _two_sides(rules, ["Brute"], ["Goblin, count: 2", "Goblin, count: 2"])
    assert errors_of(counted) == [
        f"s.yaml:9:14: {NAMES_ONCE}the combatant entry 'Goblin' (count: 2) on side 'enemies' "
        "twice (the first at 8:14)"
    ]


@pytest.mark.parametrize(
    ("party", "enemies", "where", "words"),
    [
        # count: 2 names its copies 'Kaito 1', 'Kaito 2'
        (["Kaito, count: 2", "Kaito 1"], ["Brute"], "7:14",
         "'Kaito 1' for the combatant 'Kaito 1' on side 'party', already the name of copy 1 "
         "of 'Kaito' (count: 2) on side 'party' (at 6:14)"),
        (["Kaito 2"], ["Kaito, count: 2"], "8:14",
         "'Kaito 2' for copy 2 of 'Kaito' (count: 2) on side 'enemies', already the name of "
         "the combatant 'Kaito 2' on side 'party' (at 6:14)"),
        # two entries of one name, even when their copies' names differ
        (["Goblin, count: 2"], ["Goblin"], "8:14",
         "'Goblin' for the combatant 'Goblin' on side 'enemies', already the name of the "
         "combatant entry 'Goblin' (count: 2) on side 'party' (at 6:14)"),
    ],
)  # fmt: skip
def test_names_clash_after_count_copies_are_named(
    party: list[str], enemies: list[str], where: str, words: str
) -> None:
    for rules in ("zones-3d6", "glitters-d20"):
        problems = errors_of(_two_sides(rules, party, enemies))
        assert problems == [f"s.yaml:{where}: {NAMES_ONCE}{words}"]


def test_copies_and_names_that_do_not_clash_load() -> None:
    scn = simlab.loads(_two_sides("zones-3d6", ["Kaito, count: 2", "Kaito 3"], ["Kaito 1a"]))
    names = [name for _, name in scn.combatant_names()]
    assert names == ["Kaito 1", "Kaito 2", "Kaito 3", "Kaito 1a"]


SPIRITS = """\
scenario: t
rules: shattered-spirits
attacks: {a: {profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}}
sides:
  a:
    - {name: Kaito, count: 2, hp: 10, spirit: {name: Ember, hp: 3}}
  b:
    - {name: Brute, hp: 10, reinforce: {cap: 3}, attacks: [a]}
    - {name: Ogre, hp: 10}
"""


@pytest.mark.parametrize(
    ("line", "where", "words"),
    [
        ("    - {name: Ember 2, hp: 1}\n", "7:14",
         "'Ember 2' for the combatant 'Ember 2' on side 'a', already the name of copy 2 of "
         "'Ember' (count: 2) of 'Kaito' on side 'a' (at 6:54)"),
        ("    - {name: Brute 3, hp: 1}\n", "9:14",
         "'Brute 3' for copy 3 of 'Brute' (reinforce cap: 3) on side 'b', already the name "
         "of the combatant 'Brute 3' on side 'a' (at 7:14)"),
    ],
)  # fmt: skip
def test_spirits_and_reinforcements_have_names_of_their_own(
    line: str, where: str, words: str
) -> None:
    """shattered-spirits: a Spirit and each reinforcement is a combatant with a name
    (one per copy of its entry), which no other combatant may have."""
    simlab.loads(SPIRITS)
    text = SPIRITS.replace("  b:\n", line + "  b:\n")
    assert errors_of(text) == [f"s.yaml:{where}: {NAMES_ONCE}{words}"]
    same = SPIRITS.replace("name: Ember", "name: Kaito")
    assert errors_of(same)[0].startswith("s.yaml:6:54: " + NAMES_ONCE + "'Kaito' for the Spirit")


def test_an_override_of_a_name_is_refused() -> None:
    """A combatant's name is how --set, --vary and expect: find it: an override may not
    change it (to a taken name or any other)."""
    scn = simlab.loads(_two_sides("zones-3d6", ["Kaito"], ["Brute"]))
    for change in ("Brute.name=Kaito", "Brute.name=Ogre"):
        with pytest.raises(InputError, match=rf"^override {change}: expected a field other than "
                                             "'name'"):  # fmt: skip
            scn.with_([change])


@pytest.mark.parametrize(
    ("path", "attack"),
    [("scenarios/shattered-spirits/quickstart.yaml", "stone-strike"),
     ("scenarios/zones-3d6/skirmish.yaml", "longsword")],
)  # fmt: skip
def test_a_misspelt_attack_in_a_list_is_named_before_what_expect_makes_of_it(
    tmp_path, path: str, attack: str
) -> None:  # type: ignore[no-untyped-def]
    """A combatant's ``attacks: [stone-strik]`` is reported where it is, with the name it
    was close to. It once hid behind its ``expect:`` entry's message (no one could make
    ``stone-strike`` at Kaito any more), which pointed at the wrong line."""
    text = (ROOT / path).read_text().replace(f"attacks: [{attack}", f"attacks: [{attack[:-1]}")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if f"[{attack[:-1]}]" in t
                or f"[{attack[:-1]}," in t)  # fmt: skip
    done = validate_file(tmp_path / "typo.yaml", text)
    assert done.exit_code == 2, done.output
    assert f"typo.yaml:{line}:" in done.output
    assert f"got {attack[:-1]!r}; did you mean {attack!r}?" in done.output
    assert "can target" not in done.output
