"""Scenario fields of ``rules: glitters-d20`` (docs/rules/glitters-d20.md; seed 003, "All That
Glitters").

Every [default] reading of docs/rules/glitters-d20.md is a field of :class:`Params` with that
default, so a designer can change it in the scenario's ``params:`` block.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, ClassVar, Literal

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core.core_schema import ValidatorFunctionWrapHandler

from simlab.dice import Dice
from simlab.limits import MAX_HP, MAX_STATUS_SIZE
from simlab.rules.zones_3d6.model import PlainDice, base_dice_problem
from simlab.scenario.common import (
    CombatantBase,
    ScenarioBase,
    copies_of,
    located_error,
    located_errors,
)
from simlab.scenario.validation import StrictModel, written

DamageType = Literal[
    "slashing", "bludgeoning", "piercing", "fire", "poison", "force",
    "ice", "lightning", "corrosive", "holy", "profane",
]  # fmt: skip
DAMAGE_TYPES: tuple[str, ...] = DamageType.__args__  # type: ignore[attr-defined]
Status = Literal["bleeding", "burning", "freezing"]
STATUSES: tuple[str, ...] = Status.__args__  # type: ignore[attr-defined]
ArmorKind = Literal["none", "cloth", "leather", "mail", "plate"]
METAL_ARMOR = ("mail", "plate")
Hand = Literal["main", "offhand", "two-handed"]
# The attributes seed 003 names ("Actions": speed; "Damage": strength; "Status Effects":
# DEX, INT, WILL, STR); any other name would be a score no rule reads.
Attribute = Literal["str", "dex", "speed", "int", "will"]
ATTRIBUTES: tuple[str, ...] = Attribute.__args__  # type: ignore[attr-defined]

DEFAULT_ATTRIBUTE = 10
MAX_ATTRIBUTE = 99
# MIT's constant term while a scenario's sides are validated (to check ``mit:``).
_MIT_BASE: ContextVar[int] = ContextVar("_MIT_BASE", default=0)


class Attack(StrictModel):
    """An attack (docs/rules/glitters-d20.md; seed 003, "Attacking", "Damage", "Damage Types").

    ``damage`` is the weapon's dice plus a flat bonus (``1d10+2``); the attacker's ASM
    for ``attribute`` (one of :data:`ATTRIBUTES`; attribute − 10; none when
    ``attribute`` is null) is added on a hit.
    ``type`` is the damage type. ``bonus`` adds to the d20 attack roll;
    ``advantage``/``disadvantage`` count instances (they cancel one for one).
    ``hand`` is the action it takes: ``main``, ``offhand`` or ``two-handed`` (both).
    ``critical_threshold`` is this attack's own CT (a keen weapon); how it combines with
    the scenario's is ``Params.attack_critical_threshold``;
    ``ranged`` attacks have disadvantage against a prone target.
    """

    damage: PlainDice
    type: DamageType
    bonus: int = Field(0, ge=-50, le=50)
    attribute: Attribute | None = "str"
    advantage: int = Field(0, ge=0, le=10)
    disadvantage: int = Field(0, ge=0, le=10)
    hand: Hand = "main"
    critical_threshold: int | None = Field(None, ge=1, le=20)
    ranged: bool = False

    @field_validator("damage")
    @classmethod
    def _plain_dice(cls, dice: Dice) -> Dice:
        problem = base_dice_problem(dice)
        if problem is not None:
            raise ValueError(problem)
        return dice


class Combatant(CombatantBase):
    """A combatant of ``glitters-d20`` (docs/rules/glitters-d20.md; seed 003).

    ``player`` marks a player character: it wins initiative ties and, under permadeath,
    rolls death saves when down. ``initiative`` adds to its d20 initiative roll.
    ``attributes`` maps attribute names (:data:`ATTRIBUTES`: ``str``, ``dex``,
    ``speed``, ``int``, ``will``; any other is refused) to scores (10 when not given):
    attacks add ``attribute − 10`` (ASM) to damage, Freezing lowers ``dex`` by 1 per level
    (seed 003, "Status Effects"), Frozen comes when Freezing exceeds ``str``, Burning above
    ``will`` incapacitates. Mitigation: ``dc`` (its dodge part), ``armor_bc`` (the armor's
    BC) and ``shield_bc``, and ``armor``, the armor's kind, which gives no BC: it decides
    only that ``mail`` and ``plate`` are metal (lightning ignores their BC) and that
    bludgeoning (piercing) gets +3 to hit against plate (mail) (seed 003, "Damage Types");
    or ``mit`` as a shortcut that sets DC to ``mit`` less
    the BCs (and less ``params.mit_base``). ``defense`` is its policy: ``block`` (offhand
    action, doubles the shield's BC until its next turn) or ``parry`` (reaction:
    ``parry_value``, default ``params.parry_value``, added to MIT against the first attack
    after each of its turns). ``resist``, ``vulnerable``, ``immune`` list damage types;
    ``status_immune`` lists statuses it never gains (a skeleton does not bleed). ``prone``
    halves its DC for the whole encounter; ``bleeding``, ``burning``, ``freezing`` are
    starting levels.
    """

    hp: int = Field(ge=1, le=MAX_HP)
    player: bool = False
    initiative: int = Field(0, ge=-50, le=50)
    attributes: dict[Attribute, int] = Field(default_factory=dict)
    dc: int | None = Field(None, ge=0, le=200)
    mit: int | None = Field(None, ge=0, le=400)
    armor: ArmorKind = "none"
    armor_bc: int = Field(0, ge=0, le=100)
    shield_bc: int = Field(0, ge=0, le=100)
    defense: Literal["none", "block", "parry"] = "none"
    parry_value: int | None = Field(None, ge=0, le=100)
    resist: list[DamageType] = Field(default_factory=list)
    vulnerable: list[DamageType] = Field(default_factory=list)
    immune: list[DamageType] = Field(default_factory=list)
    status_immune: list[Status] = Field(default_factory=list)
    prone: bool = False
    bleeding: int = Field(0, ge=0, le=MAX_STATUS_SIZE)
    burning: int = Field(0, ge=0, le=MAX_STATUS_SIZE)
    freezing: int = Field(0, ge=0, le=MAX_STATUS_SIZE)

    @field_validator("attributes")
    @classmethod
    def _attributes(cls, scores: dict[str, int]) -> dict[str, int]:
        """Every attribute score lies from 0 to MAX_ATTRIBUTE. Each other one is refused at
        its own value, so that all of them are told, each where it is written."""
        expected = f"expected attribute scores from 0 to {MAX_ATTRIBUTE}"
        bad = [
            ((name,), f"{expected}; got {name}: {score}", score)
            for name, score in scores.items()
            if not 0 <= score <= MAX_ATTRIBUTE
        ]
        if bad:
            raise located_errors(bad)
        return scores

    @model_validator(mode="after")
    def _mitigation(self) -> Combatant:
        if self.mit is not None and self.dc is not None:
            raise ValueError(f"expected either 'mit' or 'dc'; got both (mit: {self.mit}, "
                             f"dc: {self.dc})")  # fmt: skip
        if self.mit is not None and self.mit - _MIT_BASE.get() - self.bc < 0:
            raise ValueError(
                f"expected mit at least mit_base + armor_bc + shield_bc = "
                f"{_MIT_BASE.get() + self.bc}; got {self.mit}"
            )
        if self.defense == "block" and self.shield_bc == 0:
            raise ValueError("expected a shield (shield_bc > 0) to block; got shield_bc: 0")
        return self

    @model_validator(mode="after")
    def _no_starting_status_it_is_immune_to(self) -> Combatant:
        """A starting level of a status in ``status_immune`` is refused: the combatant
        never gains that status, yet a starting level ticked all the same (an immune
        skeleton bled from ``bleeding: 2``)."""
        for status in self.status_immune:
            level = getattr(self, status)
            if level > 0:
                raise located_error((status,), f"expected no starting {status} on a combatant "
                                    f"immune to it (status_immune: {status}); got {status}: "
                                    f"{level}", level)  # fmt: skip
        return self

    #: Keys other d20 games write for an armor class, which these rules split into DC
    #: and BC: a combatant writes ``dc`` (the dodge part) or ``mit`` (all of it).
    ARMOR_CLASS_KEYS: ClassVar[tuple[str, ...]] = ("ac", "AC", "armor_class")

    @model_validator(mode="wrap")
    @classmethod
    def _no_armor_class(
        cls, data: Any, handler: ModelWrapValidatorHandler[Combatant], info: ValidationInfo
    ) -> Combatant:
        """``ac: 8``, as other d20 games write it, is an unknown key answered with the
        keys meant, ``dc`` or ``mit``, as a misspelt key is answered with the one meant
        (no spelling of ``ac`` is close to either)."""
        keys = data if isinstance(data, dict) else {}
        key = next((key for key in cls.ARMOR_CLASS_KEYS if key in keys), None)
        if key is not None:
            raise located_error((key,), f"unknown key {key!r} (an armor class, as other d20 "
                                "games write it); did you mean 'dc' (the dodge part of MIT) "
                                "or 'mit' (all of it: mit_base + DC + BC)?", keys[key])  # fmt: skip
        return handler(data)

    @model_validator(mode="wrap")
    @classmethod
    def _parry_value_with_parry(
        cls, data: Any, handler: ModelWrapValidatorHandler[Combatant], info: ValidationInfo
    ) -> Combatant:
        """``parry_value`` is read only by a Parry: without ``defense: parry`` it could
        never matter, so it is refused where it is written (:func:`written`)."""
        self = handler(data)
        if (self.parry_value is not None and self.defense != "parry"
                and written(info, data, ("parry_value",))):  # fmt: skip
            raise located_error(("parry_value",), "expected 'defense: parry' with a "
                                "parry_value (what a Parry adds to MIT); got defense: "
                                f"{self.defense}", self.parry_value)  # fmt: skip
        return self

    @property
    def bc(self) -> int:
        """Starting BC: armor plus shield (docs/rules/glitters-d20.md, MIT = DC + BC)."""
        return self.armor_bc + self.shield_bc

    def attribute(self, name: Attribute | None) -> int:
        """Score of attribute ``name`` (10 when not given; 10 for no attribute)."""
        if name is None:
            return DEFAULT_ATTRIBUTE
        return self.attributes.get(name, DEFAULT_ATTRIBUTE)

    def dodge(self, mit_base: int) -> int:
        """Its DC: ``dc``, or what ``mit`` leaves after ``mit_base`` and the BCs."""
        if self.mit is not None:
            return self.mit - mit_base - self.bc
        return self.dc or 0


class Params(StrictModel):
    """Rule parameters: the [default] readings of docs/rules/glitters-d20.md, each overridable.

    mit_base
        Constant term of mitigation: MIT = ``mit_base`` + DC + BC ([default] reading 0).
    hit_on_tie
        An attack whose total equals MIT hits ([default]: hit on ≥); false: it misses.
    advantage_dice
        d20s rolled with (net) advantage or disadvantage, keeping the highest (lowest)
        one ([default] 2: 2d20).
    critical_threshold
        CT: a natural die at least this is a critical hit (text: 20).
    attack_critical_threshold
        How an attack's own ``critical_threshold`` combines with the scenario's:
        ``lowest`` (the lower of the two: seed 003, "Critical Hits", has bonuses only
        lower the CT, so an attack's never raises it) or ``replace`` (the attack's own
        CT stands, even above the scenario's).
    rounding
        How every halving rounds — resistance and Prone's DC ([default] ``down``).
    parry_value
        What a Parry adds to MIT (the text gives no number; default 2). A combatant's
        ``parry_value`` replaces it.
    burning_decay
        Burning levels lost at each of the burning combatant's turns ([default] 1).
    death_rules
        ``permadeath``: a player character at 0 HP rolls death saves; ``modern``: it is
        simply out (both are text; the default is the first the text gives).
    death_saves_after_fight
        When the fight is over, dying player characters go on rolling one death save a
        round — nobody heals them — until stable or dead or the round cap ([default]
        reading, so that a lone character's death rate is not 0); false: the saves stop
        with the fight and the unresolved are neither dead nor stable.
    frozen_lasts
        ``encounter``: Frozen ends only with a short rest, so it lasts the fight
        ([default]); ``thaw``: it ends once Freezing no longer exceeds STR.
    initiative_ties
        Order of tied initiatives after players-first (text): ``random`` (players roll
        off; the DM picks for monsters) or ``listed`` (scenario order).
    """

    mit_base: int = Field(0, ge=-50, le=100)
    hit_on_tie: bool = True
    advantage_dice: int = Field(2, ge=2, le=5)
    critical_threshold: int = Field(20, ge=1, le=20)
    attack_critical_threshold: Literal["lowest", "replace"] = "lowest"
    rounding: Literal["down", "up"] = "down"
    parry_value: int = Field(2, ge=0, le=100)
    burning_decay: int = Field(1, ge=0, le=99)
    death_rules: Literal["permadeath", "modern"] = "permadeath"
    death_saves_after_fight: bool = True
    frozen_lasts: Literal["encounter", "thaw"] = "encounter"
    initiative_ties: Literal["random", "listed"] = "random"


class Scenario(ScenarioBase):
    """A scenario under ``rules: glitters-d20``.

    Turn order is rolled per encounter (docs/rules/glitters-d20.md "Initiative"), so the order of
    the sides does not matter; mark player characters with ``player: true``.
    """

    rules: Literal["glitters-d20"]
    params: Params = Params()
    attacks: dict[str, Attack]
    sides: dict[str, list[Combatant]]

    DAMAGE_SOURCES: ClassVar[str] = "a combatant with attacks, or starting Bleeding or Burning"

    def can_deal_damage(self) -> bool:
        """An attack, or Bleeding and Burning from the start, which tick without one."""
        members = [m for ms in self.sides.values() for m in ms]
        return super().can_deal_damage() or any(m.bleeding or m.burning for m in members)

    def harmed_without_attacks(self, name: str) -> bool:
        """Whether ``name`` (or a copy) starts Bleeding or Burning, which harm unattacked."""
        harmed = [m for ms in self.sides.values() for m in ms if m.bleeding or m.burning]
        return any(copies_of(name, [m.name, *(f"{m.name} {k + 1}" for k in range(m.count))])
                   for m in harmed)  # fmt: skip

    @model_validator(mode="after")
    def _blockers_make_no_offhand_attacks(self) -> Scenario:
        """Block takes the offhand action (docs/rules/glitters-d20.md, "A turn"), so a
        blocker's offhand attack would never be made: refused where it is listed, as a
        name read as something that does nothing."""
        for side, members in self.sides.items():
            for i, m in enumerate(members):
                for j, name in enumerate(m.attacks):
                    attack = self.attacks.get(name)
                    if m.defense == "block" and attack is not None and attack.hand == "offhand":
                        raise located_error(("sides", side, i, "attacks", j), "expected a main-"
                                            "hand or two-handed attack for a combatant with "
                                            "'defense: block' (Block takes the offhand action, "
                                            f"so it never makes offhand attacks); got {name!r} "
                                            "(hand: offhand)", name)  # fmt: skip
        return self

    @field_validator("sides", mode="wrap")
    @classmethod
    def _with_mit_base(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        """Validate the sides knowing ``params.mit_base``, to check ``mit:`` shortcuts."""
        params = info.data.get("params")
        token = _MIT_BASE.set(params.mit_base if isinstance(params, Params) else 0)
        try:
            return handler(value)
        finally:
            _MIT_BASE.reset(token)
