"""Overrides: applied to the scenario document and validated exactly like the file."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.api import compile_job
from simlab.errors import InputError
from simlab.tuning.overrides import parse_assignment
from tests.tuning.cases import ROOT, SS_2V2, SS_DUEL


def _same_job(a: Any, b: Any) -> None:
    ja, jb = compile_job(a, 10, 1), compile_job(b, 10, 1)
    assert ja.layout == jb.layout
    for x, y in zip(ja.params, jb.params, strict=True):
        np.testing.assert_array_equal(x, y)


def test_override_equals_the_edited_file(duel: Any) -> None:
    """Each spelling lands where editing the YAML by hand would put it."""
    text = SS_DUEL.read_text()
    edited = (text.replace("hp: 30, guard: 1", "hp: 30, guard: 3")
              .replace("[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]", "[0, 0, 1, 2, 3, 4, 5, 8, 7, 8, 10]")
              .replace("max_rounds: 100", "max_rounds: 40"))  # fmt: skip
    assert edited.count("guard: 3") == 1 and "5, 8, 7" in edited
    by_hand = simlab.loads(edited)
    changes = {"Defender.guard": 3, "strike.profile[9]": 8, "max_rounds": 40}
    _same_job(simlab.override(duel, changes), by_hand)
    _same_job(duel.with_(changes), by_hand)
    _same_job(duel.with_(["Defender.guard=3", "strike.profile[9]=8", "max_rounds=40"]), by_hand)
    _same_job(duel.with_({"Defender.guard": 3, "strike.profile[9]": 8}, max_rounds=40), by_hand)


def test_override_leaves_the_original_alone(duel: Any) -> None:
    changed = duel.with_({"Defender.guard": 4, "params.strain_meter": 5})
    assert changed.sides["defender"][0].guard == 4
    assert changed.params.strain_meter == 5  # params: absent from the file, created
    assert duel.sides["defender"][0].guard == 1
    assert duel.params.strain_meter != 5


def test_profile_row_is_the_designers_row(duel: Any) -> None:
    """profile[R] is row R of the 2..12 chart: row 2 is the first entry, row 12 the last."""
    for row in range(2, 13):
        changed = duel.with_({f"strike.profile[{row}]": 99})
        profile = changed.attacks["strike"].profile
        assert profile[row - 2] == 99
        assert sum(p == 99 for p in profile) == 1


def test_nested_fields_and_row_keys(fight: Any) -> None:
    """Deeper fields by more dots; a number in a status map is its row."""
    changed = fight.with_(["Kaito.tokens.grit=2", "stone-strike.status.12=[stun 2]"])
    assert changed.sides["party"][0].tokens.grit == 2
    assert changed.attacks["stone-strike"].status[12] == ["stun 2"]
    assert changed.attacks["stone-strike"].status[8] == ["staggered"]


def test_yaml_values_from_the_command_line() -> None:
    assert parse_assignment("a.b=2").value == 2
    assert parse_assignment("a.b=1d8+3").value == "1d8+3"
    assert parse_assignment("a.b=[0, 1]").value == [0, 1]
    assert parse_assignment("a.b=true").value is True
    assert parse_assignment(" a.b = no ").value == "no"  # YAML 1.2: a string


QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


def test_an_expect_spec_is_changed_by_its_place_from_0() -> None:
    """``--set expect[0].at_least=2`` said ``did you mean 'expect'?``, which led only to
    writing the whole list again; ``expect[N]`` is spec N counted from 0, as editing
    that line of the file would change it, the others left alone."""
    text = QUICKSTART.read_text(encoding="utf-8")
    edited = text.replace("between: [0.75, 0.95], note: the Brute should usually win",
                          "between: [0.5, 0.7], note: closer")  # fmt: skip
    assert edited != text
    by_hand = simlab.loads(edited)
    scenario = simlab.load(QUICKSTART)
    changed = scenario.with_(["expect[2].between=[0.5, 0.7]", "expect[2].note=closer"])
    assert changed.expect == by_hand.expect
    assert changed.overrides == ("expect[2].between=[0.5, 0.7]", "expect[2].note=closer")
    whole = scenario.with_({"expect[0]": {"figure": "win_rate", "side": "party", "at_most": 0.3}})
    assert whole.expect[0].side == "party" and whole.expect[1:] == scenario.expect[1:]


def test_an_item_set_whole_at_the_next_index_is_added() -> None:
    """``--set 'Kaito.attacks[1]=stone-strike'`` (the README's own spelling) said
    "expected an item of 'attacks', attacks[0] to attacks[0]" with no hint: the next
    index adds the item, to any list, ``expect:`` too, as editing the file would."""
    scenario = simlab.load(QUICKSTART)
    both = scenario.with_(["Kaito.attacks[1]=stone-strike"])
    assert both.sides["party"][0].attacks == ["quick-jab", "stone-strike"]
    assert both.overrides == ("Kaito.attacks[1]=stone-strike",)
    spec = {"figure": "win_rate", "side": "party", "at_most": 0.3}
    more = scenario.with_({"expect[3]": spec})
    assert more.expect[:3] == scenario.expect and more.expect[3].at_most == 0.3
    duel = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")  # no expect: at all
    assert [e.side for e in duel.with_({"expect[0]": {**spec, "side": "attacker"}}).expect] == [
        "attacker"
    ]
    both_again = scenario.with_(["Kaito.attacks[1]=stone-strike", "Kaito.attacks[2]=quick-jab"])
    assert both_again.sides["party"][0].attacks == ["quick-jab", "stone-strike", "quick-jab"]


@pytest.mark.parametrize(
    ("arg", "words"),
    [
        ("expect[3].at_least=0.5", "expected an item of 'expect', expect[0] to expect[2] "
                                   "(counted from 0); got expect[3] (to add one, set it "
                                   "whole: expect[3]=…)"),
        ("Kaito.attacks[2]=stone-strike", "expected an item of 'attacks', attacks[0] to "
                                          "attacks[0] (counted from 0); got attacks[2] (to "
                                          "add one, set it whole: attacks[1]=…)"),
        ("expect.0.at_least=0.5", "expected a field of a mapping after 'expect'; got '0' "
                                  "under a list (an item of a list is named by its place "
                                  "from 0: expect[0])"),
        ("expect[1].at_lest=0.5", "unknown key 'at_lest'"),
        ("expect[1].side=party", "expected only an attack (narrowed by attacker or "
                                 "defender) for 'hit_rate' (it is a figure of one "
                                 "attack's rolls); got side: party"),
    ],
)  # fmt: skip
def test_a_bad_expect_override_names_the_argument(arg: str, words: str) -> None:
    with pytest.raises(InputError) as err:
        simlab.load(QUICKSTART).with_([arg])
    message = str(err.value)
    assert message.startswith(f"override {arg}: "), message
    assert words in message, message


@pytest.mark.parametrize(
    ("arg", "words"),
    [
        ("Defender.guard=x", "expected an integer; got 'x'"),
        ("Defender.gaurd=2", "unknown key 'gaurd'; expected one of: "),
        ("Nobody.hp=3", "expected a combatant (Attacker, Defender), an attack (strike)"),
        # a field without its combatant or attack is told whose it may be
        ("hp=20", "got 'hp'; did you mean 'Attacker.hp' or 'Defender.hp'?"),
        ("guard=2", "got 'guard'; did you mean 'Defender.guard'?"),
        ("profile[9]=8", "got 'profile'; did you mean 'strike.profile[9]'?"),
        ("strike.profile[13]=2", "expected a row of the profile chart, 2 to 12; got 13"),
        ("strike.profile[9]=-1", "expected damage from 0 to 999 on row 9; got -1"),
        (
            "Defender.hp[2]=1",
            "expected [N] only after a list (profile[9] is row 9 of a "
            "profile chart, expect[0] the first spec); got hp[2]",
        ),
        (
            "expect[0].at_least=0.5",
            "expected an item of 'expect'; got expect[0], and 'expect' has none (to add "
            "one, set it whole: expect[0]=…, or set the whole list: expect=[…])",
        ),
        (
            "max_rounds.x=3",
            "expected a field of a mapping after 'max_rounds'; got 'x' under the value 100",
        ),
        ("Defender.guard", "expected NAME.FIELD=VALUE; got no '='"),
        ("Defender.guard=", "expected a value after '='"),
        ("=3", "expected NAME.FIELD=VALUE; got no name before '='"),
        ("Defender=3", "expected NAME.FIELD (a field of 'Defender'); got only the name"),
        ("rules=zones-3d6", "expected a field other than 'rules'"),
        (
            "Attacker.attacks=[bite]",
            "expected an attack defined under 'attacks:' (strike); got 'bite'",
        ),
        ("params.strain_meterr=3", "unknown key 'strain_meterr'"),
        ("max_rounds=0", "expected a number ≥ 1; got 0"),
        ("Defender.guard=[1", "expected a YAML value after '='"),
        ("Defender..hp=3", "expected NAME.FIELD with a field between each pair of dots"),
        ("Defender.hp.x=3", "expected a field of a mapping after 'hp'; got 'x' under the value"),
        ("strike.profile[9].x=3", "after 'profile[9]'; got 'x' under the value 6"),
        ("params.strain_meter.x=3", "after 'strain_meter'; got 'x' under the value 10"),
        ("strike.profil[9]=8", "got profil[9]; did you mean 'profile'?"),
        ("Defender.name=Attacker", "expected a field other than 'name'"),
    ],
)
def test_bad_override_names_the_argument(duel: Any, arg: str, words: str) -> None:
    with pytest.raises(InputError) as err:
        duel.with_([arg])
    message = str(err.value)
    assert message.startswith(f"override {arg}: "), message
    assert words in message
    assert "ss-duel.yaml" not in message  # located at the argument, not in the file


@pytest.mark.parametrize(
    ("arg", "words"),
    [
        ("Defender.name=Sir: the Bold", "expected a YAML value after '='; got a ':' inside the "
         "value (a value holding ': ' needs quotes: Defender.name=\"Sir: the Bold\")"),
        ("Defender.name=“Sir: the Bold”", "expected a YAML value after '='; got a ':' inside "
         "the value, “Sir: the Bold” in curly quotes, which YAML reads as part of the text (a "
         "value holding ': ' needs straight quotes: Defender.name=\"Sir: the Bold\")"),
        ("Defender.name='Sir", "expected a YAML value after '='; expected a closing quote for "
         "the text opened here; got the end of the value"),
        ("Defender.guard=[1", "expected a YAML value after '='; expected valid YAML syntax; "
         "got a '[' never closed: the value ends before its ']'"),
    ],
)  # fmt: skip
def test_a_value_that_is_no_yaml_is_said_as_the_override_was_typed(
    duel: Any, arg: str, words: str
) -> None:
    """The text is read as the YAML line ``value: TEXT``: the messages named that key
    (``a ':' inside the value of 'value' (… needs quotes: value: "Sir: the Bold")``) and
    called the text a file."""
    with pytest.raises(InputError) as in_python:
        duel.with_([arg])
    assert str(in_python.value) == f"override {arg}: {words}"
    with pytest.raises(InputError) as on_the_command_line:
        parse_assignment(arg)
    assert str(on_the_command_line.value) == f"--set {arg}: {words}"


def test_python_override_names_its_key(duel: Any) -> None:
    with pytest.raises(InputError, match=r"^override Defender.guard: expected an integer"):
        simlab.override(duel, {"Defender.guard": "two"})


@pytest.mark.parametrize(
    "value", [10**5000, [0, -(10**100)], {10**300: ["stun 1"]}], ids=["int", "list", "key"]
)
def test_python_override_of_too_many_digits_names_its_key(duel: Any, value: Any) -> None:
    """A Python integer longer than a file may write is refused like the file's, naming
    the override (Python cannot show a decimal of 5,001 digits at all)."""
    with pytest.raises(InputError, match=r"^override Defender.hp: expected an integer of "
                       r"at most 100 digits; got a number with [\d,]+ digits$"):  # fmt: skip
        simlab.override(duel, {"Defender.hp": value})


@pytest.mark.parametrize(
    ("value", "got"),
    [({0, 1, 2}, "a set"), (b"3", "bytes"), (object(), "an object"), ([1, {2}], "a set"),
     ({(12, 1): ["stun 1"]}, "a tuple")],
    ids=["set", "bytes", "object", "in-a-list", "key"],
)  # fmt: skip
def test_python_override_no_file_could_write_names_its_key(duel: Any, value: Any, got: str) -> None:
    """A set, bytes or any object raised ``TypeError: Object of type set is not JSON
    serializable`` (the record of overrides spells each value as JSON); in a sweep too."""
    words = re.escape("expected a value a scenario file can hold (a number, a text, true or "
                      f"false, or a list or mapping of them); got {got}")  # fmt: skip
    with pytest.raises(InputError, match=rf"^override strike.profile: {words}$"):
        duel.with_({"strike.profile": value})
    for values in ([value], [value, value]):  # a value given twice is spelled in its message
        with pytest.raises(InputError, match=r"^vary strike.profile: "):
            simlab.sweep(duel, {"strike.profile": values}, n=10)


def test_names_with_dots_and_ambiguity() -> None:
    text = SS_2V2.read_text().replace("name: Kaito", "name: Dr. K")
    scn = simlab.loads(text)
    assert scn.with_({"Dr. K.hp": 9}).sides["party"][0].hp == 9
    both = simlab.loads(SS_2V2.read_text().replace("name: Mira", "name: quick-jab"))
    with pytest.raises(InputError, match="which is both"):
        both.with_({"quick-jab.hp": 3})


def test_chained_overrides_name_the_right_argument(duel: Any) -> None:
    once = duel.with_({"Defender.guard": 2})
    with pytest.raises(InputError, match=r"^override Attacker.hp=x: expected an integer"):
        once.with_(["Attacker.hp=x"])
    assert once.with_({"Attacker.hp": 5}).sides["defender"][0].guard == 2


def test_numpy_values_are_taken_as_python_values(duel: Any) -> None:
    """A notebook's numpy numbers and arrays: the same scenario as Python's, spelled the
    same in its record of overrides."""
    as_numpy = duel.with_({"Defender.guard": np.int64(2), "strike.profile": np.arange(11)})
    as_python = duel.with_({"Defender.guard": 2, "strike.profile": list(range(11))})
    assert as_numpy == as_python
    assert as_numpy.source.overrides == ("Defender.guard=2", "strike.profile=[0, 1, 2, 3, 4, 5, "
                                         "6, 7, 8, 9, 10]")  # fmt: skip


def test_one_assignment_string_is_one_override(duel: Any) -> None:
    """``scn.with_("Defender.guard=2")``: the string is one override, not its characters
    (it read "--set D: expected NAME.FIELD=VALUE")."""
    assert duel.with_("Defender.guard=2") == duel.with_({"Defender.guard": 2})
    assert duel.with_("Defender.guard=2").source.overrides == ("Defender.guard=2",)


def test_several_variants_at_once_are_refused_saying_to_make_one_call_each(duel: Any) -> None:
    """``changes=[{...}, {...}]`` (a designer comparing several changes at once) read
    "override {'Defender.guard': 2}: expected NAME.FIELD=VALUE; got no '='"; it says
    now that one call makes one variant, before anything runs."""
    several = [{"Defender.guard": 2}, {"Defender.hp": 40}]
    for make in (lambda: duel.with_(several),
                 lambda: simlab.compare(duel, changes=several, n=100)):  # fmt: skip
        with pytest.raises(InputError) as info:
            make()
        said = str(info.value)
        assert said.startswith("changes: expected one mapping of every change, or a list of "
                               "'NAME.FIELD=VALUE' texts; got a list holding the mapping "
                               "{'Defender.guard': 2}")  # fmt: skip
        assert "one call makes one variant" in said and "got no '='" not in said


def test_a_file_problem_an_override_brings_names_the_override() -> None:
    """An override may break a line of the file it does not touch (a draft1 plan that
    costs more AP than ``--set params.ap_per_round`` leaves): the problem is located at
    that line, and says which override brought it, since the file alone is valid."""
    path = ROOT / "scenarios/shattered-spirits-draft1/techniques-3v3.yaml"
    with pytest.raises(InputError) as err:
        simlab.load(path).with_(["params.ap_per_round=1"])
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{path}:56:"), first
    plan = "(quick-jab 1 + quick-jab 1 + quick-jab 1)"
    assert first.endswith(f"expected a plan costing at most 1 AP; got 3 AP {plan} "
                          "(with override params.ap_per_round=1)"), first  # fmt: skip


def test_a_file_problem_a_python_mapping_brings_names_its_value() -> None:
    """A Python mapping's override is named by its key alone where the problem is its
    own value (``override Brute.guard: expected an integer``); a problem of the file it
    brings read ``(with override params.ap_per_round)``, without the value that broke the
    line, where the command line's reads ``(with --set params.ap_per_round=1)``."""
    path = ROOT / "scenarios/shattered-spirits-draft1/techniques-3v3.yaml"
    with pytest.raises(InputError) as err:
        simlab.load(path).with_({"params.ap_per_round": 1, "max_rounds": 40})
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{path}:56:"), first
    assert first.endswith("got 3 AP (quick-jab 1 + quick-jab 1 + quick-jab 1) (with override "
                          "params.ap_per_round=1, override max_rounds=40)"), first  # fmt: skip
    with pytest.raises(InputError, match=r"\(with override Brute.attacks=\[\]\)$"):
        simlab.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml").with_(
            {"Brute.attacks": []}
        )


def test_a_field_changed_again_in_a_chain_is_recorded_once_with_the_value_in_effect(
    duel: Any,
) -> None:
    """``with_({"Defender.guard": 3}).with_({"Defender.guard": 4})`` recorded both,
    ``Defender.guard=3, Defender.guard=4`` in the repr and ``meta["overrides"]``, though
    only 4 is in effect (and the pair, given again as ``--set``, is refused)."""
    from simlab.report.files import scenario_hash

    chained = duel.with_({"Defender.guard": 3, "Attacker.hp": 20}).with_({"Defender.guard": 4})
    assert chained.overrides == ("Attacker.hp=20", "Defender.guard=4")
    assert chained.source.written == (("sides", "attacker", 0, "hp"),
                                       ("sides", "defender", 0, "guard"))  # fmt: skip
    result = simlab.simulate(chained, n=10)
    assert result.meta["overrides"] == ["Attacker.hp=20", "Defender.guard=4"]
    assert "· with Attacker.hp=20, Defender.guard=4 ·" in repr(result)
    row_then_whole = duel.with_({"strike.profile[9]": 8}).with_({"strike.profile": [0] * 11})
    assert row_then_whole.overrides == ("strike.profile=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]",)
    whole_then_row = duel.with_({"strike.profile": [0] * 11}).with_({"strike.profile[9]": 8})
    assert whole_then_row.overrides == ("strike.profile=[0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0]",)
    for scn in (chained, whole_then_row):  # the record makes the same scenario, given again
        assert scenario_hash(duel.with_(list(scn.overrides))) == scenario_hash(scn)


def test_a_field_changed_again_is_idle_when_the_file_has_its_value(duel: Any) -> None:
    """Whether the one entry changes nothing is asked of the file, not of the earlier
    change: ``Defender.hp=30`` after ``Defender.hp=20`` is the file's 30."""
    assert duel.with_({"Defender.hp": 20}).with_({"Defender.hp": 30}).idle_overrides == (
        "Defender.hp=30",
    )
    assert duel.with_({"Defender.hp": 30}).with_({"Defender.hp": 20}).idle_overrides == ()
    twice = duel.with_({"Defender.guard": 2}).with_({"Defender.guard": 2})
    assert twice.overrides == ("Defender.guard=2",) and twice.idle_overrides == ()
    kept = duel.with_({"Defender.hp": 30}).with_({"Defender.guard": 2})
    assert kept.idle_overrides == ("Defender.hp=30",)


def test_a_python_float_with_no_fraction_is_taken_as_a_whole_number() -> None:
    """``np.linspace(20, 40, 3)`` as a sweep's values, ``{"Brute.hp": 30.0}`` or
    ``{"seed": 1e3}`` were refused "expected an integer; got 30.0", where ``simulate``
    takes ``seed=1e3``. A Python float with no fraction is the whole number it is; a
    fraction is still refused, and so is a text's ``30.0`` (a fraction written)."""
    q = simlab.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
    assert q.with_({"Brute.hp": 30.0, "seed": 1e3}).overrides == ("Brute.hp=30", "seed=1000")
    assert q.with_({"seed": 1e3}).seed == 1000
    sweep = simlab.sweep(q, {"Brute.hp": np.linspace(20, 40, 3)}, n=50)
    assert list(sweep.vary[0].values) == [20, 30, 40]
    refused = "override Brute.hp: expected an integer; got 30.5"
    with pytest.raises(InputError, match=re.escape(refused)):
        q.with_({"Brute.hp": 30.5})
    with pytest.raises(InputError, match=re.escape("expected an integer; got 30.0")):
        q.with_(["Brute.hp=30.0"])


@pytest.mark.parametrize(
    ("changes", "spelled"),
    [
        (['stone-strike.status.12=["stun 2"]'], "stone-strike.status.12=[stun 2]"),
        ({"stone-strike.status.12": ["stun 2", "staggered"]},
         "stone-strike.status.12=[stun 2, staggered]"),
        ({"expect[0]": {"figure": "win_rate", "side": "party", "at_least": 0.5}},
         "expect[0]={figure: win_rate, side: party, at_least: 0.5}"),
        (["expect[1]={figure: hit_rate, attack: stone-strike, defender: Kaito, at_least: 0.6, "
          "note: 'x: y, z'}"],
         "expect[1]={figure: hit_rate, attack: stone-strike, defender: Kaito, at_least: 0.6, "
         "note: 'x: y, z'}"),
        (["Brute.hp=31"], "Brute.hp=31"),
    ],
)  # fmt: skip
def test_a_change_is_echoed_as_the_designer_types_it(changes: Any, spelled: str) -> None:
    """``stone-strike.status.12=["stun 2"]`` and ``Run with --set expect[0]={"figure":
    "win_rate", …}``: changes were echoed in JSON. They read as a file's YAML does, and
    typed back, set the same value."""
    scenario = simlab.load(QUICKSTART)
    changed = scenario.with_(changes)
    assert changed.overrides == (spelled,)
    again = scenario.with_([spelled])
    assert again.overrides == (spelled,) and again.model_dump() == changed.model_dump()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["run", "--set", "Defender.hp", "40"],
         "--set Defender.hp: expected NAME.FIELD=VALUE; got no '=' ('40' after it was read "
         "as one more argument: write --set Defender.hp=40)"),
        (["sweep", "--vary", "Defender.guard", "0:3"],
         "--vary Defender.guard: expected NAME.FIELD=LO:HI[:STEP]|v1,v2; got no '=' ('0:3' "
         "after it was read as one more argument: write --vary Defender.guard=0:3)"),
        (["tune", "--vary", "Defender.hp=5:30", "--target", "win_rate:attacker", "0.5"],
         "--target win_rate:attacker: expected FIGURE[:ON]=VALUE; got no '=' ('0.5' after it "
         "was read as one more argument: write --target win_rate:attacker=0.5)"),
    ],
)  # fmt: skip
def test_a_space_for_an_options_equals_sign_is_said(args: list[str], said: str) -> None:
    """``--set Defender.hp 40`` was click's ``Got unexpected extra argument (40)``, which
    named neither the option nor its '='; an argument too many that follows no such
    option is still click's."""
    from click.testing import CliRunner

    from simlab.cli import main

    command, *options = args
    done = CliRunner().invoke(main, [command, str(SS_DUEL), *options])
    assert (done.exit_code, done.output.strip()) == (2, said)
    other = CliRunner().invoke(main, ["run", str(SS_DUEL), "extra"])
    assert other.exit_code == 2 and "Got unexpected extra argument (extra)" in other.output
