"""Tests for simlab.dice: parsing, exact distributions (against icepool) and pydantic use."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import icepool
import numpy as np
import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from simlab.dice import Dice, DiceExpr, DiceTerm, parse_dice
from simlab.errors import DiceError, InputError

EXPECTED = "expected a dice expression like 2d6, 3d6kh2 or 1d10+4; got "

# Expression and an independently built icepool die with the same distribution.
ORACLES: list[tuple[str, Callable[[], Any]]] = [
    ("2d6", lambda: 2 @ icepool.d(6)),
    ("d20", lambda: icepool.d(20)),
    ("3d6kh2", lambda: icepool.d(6).highest(3, 2)),
    ("3d6kl2", lambda: icepool.d(6).lowest(3, 2)),
    ("4d6kh3", lambda: icepool.d(6).highest(4, 3)),
    ("4d6kl3", lambda: icepool.d(6).lowest(4, 3)),
    ("2d20kh1", lambda: icepool.d(20).highest(2, 1)),
    ("2d20kl1", lambda: icepool.d(20).lowest(2, 1)),
    ("1d10+4", lambda: icepool.d(10) + 4),
    ("3d8-2", lambda: 3 @ icepool.d(8) - 2),
    ("2d6+1d4+1", lambda: 2 @ icepool.d(6) + icepool.d(4) + 1),
    ("1d1", lambda: icepool.d(1)),
    ("10d10kh3", lambda: icepool.d(10).highest(10, 3)),
    ("10d10kl3", lambda: icepool.d(10).lowest(10, 3)),
    ("5d4kh5", lambda: 5 @ icepool.d(4)),
    ("3d1kh2", lambda: icepool.d(1).highest(3, 2)),
    ("-1d6", lambda: -icepool.d(6)),
    ("-2d8kh1 + 3", lambda: -icepool.d(8).highest(2, 1) + 3),
    ("1d12 - 1d4", lambda: icepool.d(12) - icepool.d(4)),
    ("4D6KH3 - 2d6kl1 + 7 - 2", lambda: icepool.d(6).highest(4, 3) - icepool.d(6).lowest(2, 1) + 5),
    ("6d12kh4+6d12kl2", lambda: icepool.d(12).highest(6, 4) + icepool.d(12).lowest(6, 2)),
    ("20d6", lambda: 20 @ icepool.d(6)),
    ("8d100kh2", lambda: icepool.d(100).highest(8, 2)),
]


def _oracle_pmf(die: Any) -> tuple[int, np.ndarray]:
    """Lowest outcome and probabilities of lowest..highest from an icepool die."""
    low, high = die.min_outcome(), die.max_outcome()
    probs = np.zeros(high - low + 1)
    for outcome, quantity in die.items():
        probs[outcome - low] = quantity / die.denominator()
    return low, probs


@pytest.mark.parametrize(("text", "factory"), ORACLES, ids=[t for t, _ in ORACLES])
def test_pmf_matches_icepool(text: str, factory: Callable[[], Any]) -> None:
    low, probs = parse_dice(text).pmf()
    want_low, want = _oracle_pmf(factory())
    assert low == want_low
    assert probs.dtype == np.float64
    np.testing.assert_allclose(probs, want, rtol=0, atol=1e-12)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(("text", "factory"), ORACLES, ids=[t for t, _ in ORACLES])
def test_min_max_mean_match_icepool(text: str, factory: Callable[[], Any]) -> None:
    dice, die = parse_dice(text), factory()
    assert (dice.min, dice.max) == (die.min_outcome(), die.max_outcome())
    assert dice.mean == pytest.approx(float(die.mean()), rel=1e-12, abs=1e-12)


def test_pmf_is_cached_and_read_only() -> None:
    first = parse_dice("4d6kh3").pmf()[1]
    assert parse_dice("4d6 kh3").pmf()[1] is first
    with pytest.raises(ValueError, match="read-only"):
        first[0] = 1.0


def test_large_keep_highest_is_polynomial_not_enumerated() -> None:
    # 100 ** 60 outcomes: only a dynamic program can answer this quickly.
    dice = parse_dice("60d100kh5")
    low, probs = dice.pmf()
    assert (low, len(probs)) == (5, 496)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(probs >= 0)
    assert dice.mean == pytest.approx(float(icepool.d(100).highest(60, 5).mean()), rel=1e-12)


@pytest.mark.parametrize(
    ("text", "terms", "constant"),
    [
        ("2d6", [(2, 6, "all", 2, 1)], 0),
        ("d20", [(1, 20, "all", 1, 1)], 0),
        ("D20", [(1, 20, "all", 1, 1)], 0),
        ("3d6kh2", [(3, 6, "high", 2, 1)], 0),
        ("4d6KL3", [(4, 6, "low", 3, 1)], 0),
        ("-1d4", [(1, 4, "all", 1, -1)], 0),
        ("  2 d 6 kh 1 + 4 - 1 ", [(2, 6, "high", 1, 1)], 3),
        ("1d10+4", [(1, 10, "all", 1, 1)], 4),
        ("7", [], 7),
        ("-7 + 2", [], -5),
        ("1d6-1d6", [(1, 6, "all", 1, 1), (1, 6, "all", 1, -1)], 0),
    ],
)
def test_parse_structure(text: str, terms: list[tuple[Any, ...]], constant: int) -> None:
    dice = parse_dice(text)
    assert dice.terms == tuple(DiceTerm(*t) for t in terms)
    assert dice.constant == constant
    assert dice.text == text


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("d20", "1d20"),
        ("2D6 + 1d4 + 1", "2d6+1d4+1"),
        ("3d6KH2", "3d6kh2"),
        ("-d6 - 2", "-1d6-2"),
        ("4d6kl3+0", "4d6kl3"),
        ("0", "0"),
        ("-3", "-3"),
        ("1 + 1d8", "1d8+1"),
    ],
)
def test_str_is_normalized_and_round_trips(text: str, normal: str) -> None:
    dice = parse_dice(text)
    assert str(dice) == normal
    assert parse_dice(str(dice)) == dice


def test_equality_ignores_spelling() -> None:
    assert parse_dice("1d10 + 4") == parse_dice("1D10+4")
    assert hash(parse_dice("1d10 + 4")) == hash(parse_dice("1D10+4"))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2x6", "unexpected 'x' at character 2"),
        ("", "empty expression"),
        ("   ", "empty expression"),
        ("2d", "unexpected end after 'd'"),
        ("1d6+", "unexpected end after '+'"),
        ("1d6 - ", "unexpected end after '-'"),
        ("+1d6", "unexpected '+' at character 1"),
        ("--3", "unexpected '-' at character 2"),
        ("1d6 2", "unexpected '2' at character 5"),
        ("2d6k2", "unexpected 'k' at character 4"),
        ("3d6kh", "unexpected end after 'h'"),
        ("3d6kx2", "unexpected 'k' at character 4"),
        ("2d+3", "unexpected '+' at character 3"),
        ("1d6*2", "unexpected '*' at character 4"),
        ("1.5", "unexpected '.' at character 2"),
        ("dd6", "unexpected 'd' at character 2"),
        ("d6kh1kh1", "unexpected 'k' at character 6"),
        ("1d6; import os", "unexpected ';' at character 4"),
        ("kh2", "unexpected 'k' at character 1"),
        ("²d6", "unexpected '²' at character 1"),
    ],
)
def test_syntax_errors_name_the_problem(text: str, reason: str) -> None:
    with pytest.raises(DiceError) as info:
        parse_dice(text)
    assert str(info.value) == f"{EXPECTED}{text!r} ({reason})"
    assert isinstance(info.value, InputError)


@pytest.mark.parametrize("value", [5, None, 1.5, b"1d6"])
def test_parse_rejects_non_strings(value: Any) -> None:
    with pytest.raises(DiceError, match="^" + re.escape(EXPECTED)):
        parse_dice(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("101d6", "expected at most 100 dice in a term; got 101 in '101d6'"),
        ("1d6 + 0d6", "expected at least 1 die in a term; got 0 in '0d6'"),
        ("1d1001", "expected at most 1000 sides on a die; got 1001 in '1d1001'"),
        ("2d0", "expected at least 1 side on a die; got 0 in '2d0'"),
        ("3d6kh4", "expected to keep 1 to 3 dice in a term; got 4 in '3d6kh4'"),
        ("3d6kl0", "expected to keep 1 to 3 dice in a term; got 0 in '3d6kl0'"),
        (
            "1d6 + 1000001",
            "expected an integer of at most 1000000 in absolute value; got 1000001 in '1000001'",
        ),
        ("+".join(["1"] * 21), "expected at most 20 terms; got 21 in "),
        ("1" * 201, "expected a dice expression of at most 200 characters; got 201 characters"),
    ],
)
def test_limits(text: str, message: str) -> None:
    with pytest.raises(DiceError) as info:
        parse_dice(text)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    ("text", "low", "high", "n_dice"),
    [
        ("100d1000", 100, 100_000, 100),
        ("1d6+" * 19 + "1", 19 + 1, 19 * 6 + 1, 19),  # 20 terms
        ("-1000000", -1_000_000, -1_000_000, 0),
        ("100d6kl100", 100, 600, 100),  # keeps all 100
        ("1000000 - 1d1000", 1_000_000 - 1000, 1_000_000 - 1, 1),
    ],
)
def test_limits_are_inclusive(text: str, low: int, high: int, n_dice: int) -> None:
    """Each limit itself is accepted, and read as written: its range worked out by hand."""
    dice = parse_dice(text)
    assert (dice.min, dice.max, dice.n_dice) == (low, high, n_dice)


def test_constant_only() -> None:
    dice = Dice.constant_only(-3)
    assert (dice.min, dice.max, dice.mean, dice.n_dice) == (-3, -3, -3.0, 0)
    low, probs = dice.pmf()
    assert low == -3
    np.testing.assert_array_equal(probs, [1.0])
    assert dice == parse_dice("-3")
    assert dice.as_array().shape == (0, 5)
    with pytest.raises(DiceError):
        Dice.constant_only(2_000_000)
    with pytest.raises(DiceError):
        Dice.constant_only(True)


def test_n_dice_counts_dropped_dice() -> None:
    assert parse_dice("4d6kh3 - 2d20kl1 + 1d4 + 3").n_dice == 7


def test_as_array_layout() -> None:
    array = parse_dice("4d6kh3 - 2d20kl1 + 1d4 + 3").as_array()
    assert array.dtype == np.int64
    np.testing.assert_array_equal(array, [[4, 6, 1, 3, 1], [2, 20, 2, 1, -1], [1, 4, 0, 1, 1]])


def test_term_checks_invariants() -> None:
    with pytest.raises(DiceError):
        DiceTerm(count=3, sides=6, keep="all", keep_n=2, sign=1)
    with pytest.raises(DiceError):
        DiceTerm(count=3, sides=6, keep="high", keep_n=2, sign=2)


class Weapon(BaseModel):
    """A strict, frozen scenario-style model with a dice field."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    damage: DiceExpr


@pytest.mark.parametrize(("value", "normal"), [("1d10+4", "1d10+4"), (5, "5"), (-2, "-2")])
def test_pydantic_accepts_text_and_ints(value: Any, normal: str) -> None:
    weapon = Weapon(damage=value)
    assert isinstance(weapon.damage, Dice)
    assert str(weapon.damage) == normal
    assert weapon.model_dump() == {"damage": normal}
    assert Weapon.model_validate_json(weapon.model_dump_json()) == weapon


def test_pydantic_accepts_dice_instances() -> None:
    dice = parse_dice("2d6")
    assert Weapon(damage=dice).damage is dice


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2x6", EXPECTED + "'2x6' (unexpected 'x' at character 2)"),
        (True, EXPECTED + "True (a bool)"),
        (1.5, EXPECTED + "1.5 (a float)"),
        (None, EXPECTED + "None (a NoneType)"),
        ("101d6", "expected at most 100 dice in a term; got 101 in '101d6'"),
    ],
)
def test_pydantic_rejects_with_the_dice_message(value: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        Weapon(damage=value)
    assert isinstance(info.value, ValidationError)
    assert info.value.errors()[0]["msg"] == message
    assert message in str(info.value)


def test_pydantic_json_schema() -> None:
    schema = Weapon.model_json_schema()["properties"]["damage"]
    assert {"type": "string", "maxLength": 200} in schema["anyOf"]
