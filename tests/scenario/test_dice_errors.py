"""A bad dice expression in a scenario is reported with one "expected …; got …".

The dice parser's own message is the message, at the dice's line and column: it was
wrapped in a second one (``expected a valid value (expected at least 1 die in a term;
got 0 in '0d6'); got '0d6'``), pydantic's wording of a custom error leaking through.
Every dice field of the three rule systems that have dice is covered.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simlab
from tests.support import GLITTERS_DUEL, ZONES_DUEL, errors_of, validate_file

GLITTERS = GLITTERS_DUEL.replace("damage: 1d6", "damage: DICE")

ZONES = ZONES_DUEL.replace("damage: 1d6", "damage: DICE")

TIERS = """\
scenario: t
rules: opposed-tiers
params: {initiative_dice: INITIATIVE}
tiers:
  - name: veteran
    attack: ATTACK
    defense: DEFENSE
    damage: DAMAGE
    shield: {light: SHIELD}
    armor: {light: ARMOR}
attacks:
  sword: {}
sides:
  a: [{name: A, hp: 20, attacks: [sword]}]
  b: [{name: B, hp: 20}]
"""

#: Where each dice field's value starts: (template, placeholder, line, column).
FIELDS = [
    (GLITTERS, "DICE", 4, 18),
    (ZONES, "DICE", 4, 19),
    (TIERS, "INITIATIVE", 3, 27),
    (TIERS, "ATTACK", 6, 13),
    (TIERS, "DEFENSE", 7, 14),
    (TIERS, "DAMAGE", 8, 13),
    (TIERS, "SHIELD", 9, 21),
    (TIERS, "ARMOR", 10, 20),
]
GOOD = {"INITIATIVE": "2d6", "ATTACK": "6d6", "DEFENSE": "6d6", "DAMAGE": "6d6",
        "SHIELD": "1d12", "ARMOR": "1d12", "DICE": "1d6"}  # fmt: skip
#: A bad expression and the one message it must give (``EXAMPLES``: the field's own).
BAD = [
    ("2d", "expected a dice expression like EXAMPLES; got '2d' (unexpected end after 'd')"),
    ("d0", "expected at least 1 side on a die; got 0 in 'd0'"),
    ("0d6", "expected at least 1 die in a term; got 0 in '0d6'"),
    ("1d6+", "expected a dice expression like EXAMPLES; got '1d6+' (unexpected end after "
             "'+')"),
    ("3d6kh5", "expected to keep 1 to 3 dice in a term; got 5 in '3d6kh5'"),
]  # fmt: skip


def _with(template: str, placeholder: str, dice: str) -> str:
    """``template`` with ``dice`` at ``placeholder`` and good dice everywhere else."""
    text = template.replace(placeholder, dice)
    for name, good in GOOD.items():
        text = text.replace(name, good)
    return text


@pytest.mark.parametrize(("template", "placeholder", "line", "col"), FIELDS)
@pytest.mark.parametrize(("dice", "message"), BAD)
def test_a_bad_dice_expression_gives_one_expected_and_one_got(
    template: str, placeholder: str, line: int, col: int, dice: str, message: str
) -> None:
    text = _with(template, placeholder, dice)
    examples = "1d6, 2d6+3 or 1d10+4" if template in (GLITTERS, ZONES) else "2d6, 3d6kh2 or 1d10+4"
    message = message.replace("EXAMPLES", examples)
    assert errors_of(text) == [f"s.yaml:{line}:{col}: {message}"]


@pytest.mark.parametrize(("template", "placeholder", "line", "col"), FIELDS)
@pytest.mark.parametrize("slip", ["1d6x2", "2x1d6", "1d6*2", "d", "1d6 fire"])
def test_the_examples_a_dice_message_gives_are_ones_its_field_accepts(
    template: str, placeholder: str, line: int, col: int, slip: str
) -> None:
    """zones-3d6 (and glitters-d20) take damage of plain dice: the message for a slip gave
    ``3d6kh2`` as an example, which the same field then refused ("expected plain dice")."""
    (error,) = errors_of(_with(template, placeholder, slip))
    listed = error.split("expected a dice expression like ", 1)[1].split(";")[0]
    examples = listed.replace(" or ", ", ").split(", ")
    assert len(examples) == 3, error
    for example in examples:
        simlab.loads(_with(template, placeholder, example), "s.yaml")


@pytest.mark.parametrize(("template", "placeholder", "line", "col"), FIELDS)
def test_the_good_dice_load(template: str, placeholder: str, line: int, col: int) -> None:
    simlab.loads(_with(template, placeholder, "1d6"), "s.yaml")


def test_the_cli_prints_the_dice_message_alone_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    result = validate_file(path, _with(GLITTERS, "DICE", "0d6"))
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"{path}:4:18: expected at least 1 die in a term; got 0 in '0d6'"
    )


@pytest.mark.parametrize(("template", "placeholder", "line", "col"), FIELDS)
@pytest.mark.parametrize("written", ["1D6 + 2", "1d6 +2", " 1 d6+2", "1D6+2"])
def test_spaces_and_a_capital_d_read_as_the_plain_dice(
    template: str, placeholder: str, line: int, col: int, written: str
) -> None:
    """README, "Scenarios": a dice expression may have spaces between its parts and a
    capital D, as a rule book prints it; it plays as the plain spelling."""
    plain = simlab.loads(_with(template, placeholder, "1d6+2")).model_dump()
    assert simlab.loads(_with(template, placeholder, written)).model_dump() == plain
