"""Scenario fields of ``rules: zones-3d6`` (docs/rules/zones-3d6.md; seed 004).

Every [default] reading of docs/rules/zones-3d6.md is a field of :class:`Params` with that default,
so a designer can change it in the scenario's ``params:`` block.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator, model_validator
from pydantic_core.core_schema import ValidatorFunctionWrapHandler

from simlab.dice import Dice, dice_coercer
from simlab.limits import MAX_HP
from simlab.scenario.common import CombatantBase, ScenarioBase, located_error, located_errors
from simlab.scenario.validation import StrictModel

DEFAULT_SIDES = 6
#: A hit is a hit: zones-3d6 has no critical hits (``simlab.rules.has_crits``).
CRITS = False
#: Its ``out`` event is the down itself (no separate death rule): its rate is the down
#: rate (``simlab.rules.down_events``).
DOWN_EVENTS = ("out",)
MAX_FACE = 1000
# Largest damage die among the scenario's attacks, while its sides are being validated.
_DAMAGE_SIDES: ContextVar[int | None] = ContextVar("_DAMAGE_SIDES", default=None)

#: A damage of plain dice (:func:`base_dice_problem`): a message for text that is no dice
#: expression gives examples it takes, none with ``kh``.
PlainDice = Annotated[Dice, BeforeValidator(dice_coercer("1d6, 2d6+3 or 1d10+4"))]


def base_dice_problem(dice: Dice) -> str | None:
    """Why ``dice`` cannot be an attack's damage, or None (docs/rules/zones-3d6.md "Damage").

    Parameters
    ----------
    dice : Dice
        A parsed damage expression.

    Returns
    -------
    str or None
        Base damage is plain rolled dice, each compared with the armor's Base Defense
        faces, so keep-highest/lowest and subtracted dice terms are refused; a
        subtracted one is said with the damage as written (``1-d6``), not as the dice
        read it (``-1d6+1``).
    """
    for term in dice.terms:
        if term.keep != "all":
            return f"expected plain dice such as 1d6 or 2d6+3 for damage; got {str(term)!r}"
        if term.sign < 0:
            return f"expected added dice for damage; got {dice.text!r}, which subtracts {term}"
    return None


def largest_die(dice: list[Dice]) -> int:
    """Most sides of any die in ``dice``; a d6 when there are no dice at all."""
    return max((t.sides for d in dice for t in d.terms), default=DEFAULT_SIDES)


class Attack(StrictModel):
    """An attack (docs/rules/zones-3d6.md "Attacking and Evading", "Damage and Defense").

    ``damage`` is the weapon's damage: its dice are the base damage, its constant is the
    weapon's bonus damage (``1d6+3``: base 1d6, bonus +3). ``bonus`` adds to the attack
    total; ``edge``/``pressure`` count instances of each (one die step each);
    ``advantage``/``disadvantage`` count instances (they cancel one for one).
    """

    damage: PlainDice
    bonus: int = Field(0, ge=-50, le=50)
    edge: int = Field(0, ge=0, le=10)
    pressure: int = Field(0, ge=0, le=10)
    advantage: int = Field(0, ge=0, le=10)
    disadvantage: int = Field(0, ge=0, le=10)

    @field_validator("damage")
    @classmethod
    def _plain_dice(cls, dice: Dice) -> Dice:
        problem = base_dice_problem(dice)
        if problem is not None:
            raise ValueError(problem)
        return dice


class Combatant(CombatantBase):
    """A zones-3d6 actor (docs/rules/zones-3d6.md; seed 004, "Turn Order", "Damage and Defense").

    ``hp`` may start at 0 (an actor is out only below 0). ``initiative`` adds to its d20
    turn-order roll. ``attacks_per_turn`` is capped by its Major actions.
    ``bonus_damage`` adds to every attack's bonus damage (Vigor, skills).
    ``evasion`` adds to its Evasion total; ``evasion_edge``, ``evasion_pressure``,
    ``evasion_advantage``, ``evasion_disadvantage`` adjust its Evasion dice like an
    attack's. ``base_defense`` lists the armor's Base Defense faces: base-damage dice
    showing one count 0. ``bonus_defense`` reduces bonus damage.
    """

    hp: int = Field(ge=0, le=MAX_HP)
    initiative: int = Field(0, ge=-50, le=50)
    attacks_per_turn: int = Field(3, ge=1, le=10)
    bonus_damage: int = Field(0, ge=-100, le=100)
    evasion: int = Field(0, ge=-50, le=50)
    evasion_edge: int = Field(0, ge=0, le=10)
    evasion_pressure: int = Field(0, ge=0, le=10)
    evasion_advantage: int = Field(0, ge=0, le=10)
    evasion_disadvantage: int = Field(0, ge=0, le=10)
    base_defense: list[int] = Field(default_factory=list, max_length=MAX_FACE)
    bonus_defense: int = Field(0, ge=-100, le=100)

    @field_validator("base_defense")
    @classmethod
    def _faces(cls, faces: list[int]) -> list[int]:
        """Every Base Defense face is one the largest damage die can show. Each other one
        is refused at its own item, so that all of them are told, each where it is written."""
        known = _DAMAGE_SIDES.get()
        sides = known or MAX_FACE
        where = "" if known is None else f" (the largest damage die is a d{sides})"
        bad = [
            ((i,), f"expected die faces from 1 to {sides}{where}; got {face}", face)
            for i, face in enumerate(faces)
            if not 1 <= face <= sides
        ]
        if bad:
            raise located_errors(bad)
        return faces


class Params(StrictModel):
    """Rule parameters: the [default] readings of docs/rules/zones-3d6.md, each overridable.

    edges_stack
        Several edges (pressures) stack, one die step each; false: at most one counts.
    edge_pressure_cancel
        Edges and pressures on the same roll cancel one for one before they are applied;
        false: all edges are applied, then all pressures.
    pressure
        ``die``: a pressure lowers one die by 1, never below 1 (mirror of edge);
        ``total``: it takes 1 from the total instead.
    advantage_dice
        Extra dice rolled with (net) advantage or disadvantage; the highest (lowest) 3
        are kept. 1: 4d6 keep 3.
    bonus_defense_floor
        Bonus Defense removes at most the (positive) bonus damage; false: it may also
        eat into base damage.
    minimum_damage
        Damage of a hit whose damage is all blocked (text: 1).
    initiative_die
        Sides of the die rolled once per combat for turn order (highest acts first).
    initiative_ties
        ``random``: tied actors are ordered at random; ``listed``: in scenario order.
    major_actions
        Major actions per turn (text: 3); at least ``attack_cost``, so that a turn holds
        an attack.
    attack_cost
        Major actions an attack costs (1 [default]: the seed text does not price an
        attack in Major actions).
    """

    edges_stack: bool = True
    edge_pressure_cancel: bool = True
    pressure: Literal["die", "total"] = "die"
    advantage_dice: int = Field(1, ge=1, le=3)
    bonus_defense_floor: bool = True
    minimum_damage: int = Field(1, ge=0, le=100)
    initiative_die: int = Field(20, ge=1, le=1000)
    initiative_ties: Literal["random", "listed"] = "random"
    major_actions: int = Field(3, ge=1, le=10)
    attack_cost: int = Field(1, ge=1, le=10)

    @model_validator(mode="after")
    def _a_turn_holds_an_attack(self) -> Params:
        if self.major_actions < self.attack_cost:
            raise located_error(
                ("major_actions",),
                f"expected at least attack_cost ({self.attack_cost}) Major actions a turn, "
                f"or nobody could attack; got {self.major_actions}", self.major_actions,
            )  # fmt: skip
        return self


class Scenario(ScenarioBase):
    """A scenario under ``rules: zones-3d6``.

    Turn order is rolled per encounter (docs/rules/zones-3d6.md), so side order does not matter.
    """

    rules: Literal["zones-3d6"]
    params: Params = Params()
    attacks: dict[str, Attack]
    sides: dict[str, list[Combatant]]

    @field_validator("sides", mode="wrap")
    @classmethod
    def _faces_of_damage_dice(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        """Validate the sides knowing the largest damage die, to check Base Defense faces."""
        attacks = info.data.get("attacks")
        sides = None if attacks is None else largest_die([a.damage for a in attacks.values()])
        token = _DAMAGE_SIDES.set(sides)
        try:
            return handler(value)
        finally:
            _DAMAGE_SIDES.reset(token)
