"""Scenario fields of ``rules: opposed-tiers`` (docs/rules/opposed-tiers.md; seed 002).

Skill tiers are data: an ordered table in which each tier names its weapon-attack,
combat-defense and combat-form damage dice and the dice of each shield and armor type.
:data:`BUILTIN_TIERS` is the table a scenario starts from; only the Novice values the
rule text gives are rules, every other value is a placeholder a designer is expected
to replace (:func:`placeholders_used` lists those a scenario relies on). A scenario's
``tiers:`` list either amends that table (``builtin_tiers: true``, the default) or is
the whole table (``builtin_tiers: false``).

Every [default] reading of docs/rules/opposed-tiers.md is a field of :class:`Params` with that
default, so a designer can change it in the scenario's ``params:`` block.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core.core_schema import ValidatorFunctionWrapHandler

from simlab.dice import Dice, DiceExpr, parse_dice
from simlab.errors import did_you_mean
from simlab.limits import MAX_HP
from simlab.scenario.common import CombatantBase, ScenarioBase, located_error
from simlab.scenario.validation import StrictModel, written

ROLLS = ("attack", "defense", "damage")
GEAR = ("shield", "armor")

# The built-in tier table (docs/rules/opposed-tiers.md). Only the values listed in TEXT_VALUES come
# from the rule text (the Novice row of seed 002, "The Attack!" and "Defense!"); everything else is
# a placeholder: one more d6 per tier for the rolls, one die step per tier for shields and armor
# (light from d4, medium from d6, heavy from d8).
BUILTIN_TIERS: tuple[dict[str, Any], ...] = (
    {"name": "novice", "attack": "2d6", "defense": "2d6", "damage": "2d6",
     "shield": {"light": "1d4", "medium": "1d6", "heavy": "1d8"},
     "armor": {"light": "1d4", "medium": "1d6", "heavy": "1d8"}},
    {"name": "journeyman", "attack": "3d6", "defense": "3d6", "damage": "3d6",
     "shield": {"light": "1d6", "medium": "1d8", "heavy": "1d10"},
     "armor": {"light": "1d6", "medium": "1d8", "heavy": "1d10"}},
    {"name": "adept", "attack": "4d6", "defense": "4d6", "damage": "4d6",
     "shield": {"light": "1d8", "medium": "1d10", "heavy": "1d12"},
     "armor": {"light": "1d8", "medium": "1d10", "heavy": "1d12"}},
    {"name": "master", "attack": "5d6", "defense": "5d6", "damage": "5d6",
     "shield": {"light": "1d10", "medium": "1d12", "heavy": "2d8"},
     "armor": {"light": "1d10", "medium": "1d12", "heavy": "2d8"}},
)  # fmt: skip
BUILTIN_NAMES = tuple(t["name"] for t in BUILTIN_TIERS)
#: (tier, value) pairs of the built-in table that the rule text itself gives.
TEXT_VALUES = frozenset({("novice", "attack"), ("novice", "defense"), ("novice", "damage"),
                         ("novice", "shield.light"), ("novice", "armor.light")})  # fmt: skip


@dataclass(frozen=True)
class _TierContext:
    """What a tier entry needs to know while ``tiers:`` is validated."""

    builtin: bool
    seen: set[str]


@dataclass(frozen=True)
class _SidesContext:
    """What a combatant needs to know while ``sides:`` is validated."""

    table: dict[str, ResolvedTier] | None
    first: str | None
    npcs_fall_out: bool


_TIERS: ContextVar[_TierContext | None] = ContextVar("_TIERS", default=None)
_SIDES: ContextVar[_SidesContext | None] = ContextVar("_SIDES", default=None)


class Tier(StrictModel):
    """One row of the tier table (docs/rules/opposed-tiers.md; seed 002, "The Attack!", "Defense!").

    ``attack``, ``defense`` and ``damage`` are the dice of the weapon skill, the combat
    defense and the combat form at this tier; ``shield`` and ``armor`` map each type
    (e.g. ``light``) to its dice at this tier. Amending a built-in tier, give only the
    values to change; a new tier (or a tier of a scenario's own table) needs all three
    rolls.
    """

    name: str = Field(min_length=1, max_length=40)
    attack: DiceExpr | None = None
    defense: DiceExpr | None = None
    damage: DiceExpr | None = None
    shield: dict[str, DiceExpr] = Field(default_factory=dict)
    armor: dict[str, DiceExpr] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _complete_and_unique(self) -> Tier:
        context = _TIERS.get()
        if context is None:
            return self
        if self.name in context.seen:
            raise ValueError(f"expected each tier name once; got {self.name!r} again")
        context.seen.add(self.name)
        amends = context.builtin and self.name in BUILTIN_NAMES
        missing = [roll for roll in ROLLS if getattr(self, roll) is None]
        if missing and not amends:
            why = "a tier of the scenario's own table" if not context.builtin else "a new tier"
            meant = did_you_mean(self.name, BUILTIN_NAMES) if context.builtin else ""
            raise ValueError(
                f"expected attack, defense and damage dice for {why} ({self.name!r}); "
                f"got no {', '.join(missing)}{meant}"
            )
        return self


@dataclass(frozen=True)
class ResolvedTier:
    """A tier of the table in effect: every value known (docs/rules/opposed-tiers.md).

    Attributes
    ----------
    name : str
    attack, defense, damage : Dice
    shield, armor : dict of str to Dice
        Dice per shield (armor) type.
    placeholders : frozenset of str
        Values taken from the built-in table that the rule text does not give
        (``"attack"``, ``"shield.medium"``, …).
    """

    name: str
    attack: Dice
    defense: Dice
    damage: Dice
    shield: dict[str, Dice]
    armor: dict[str, Dice]
    placeholders: frozenset[str]


@functools.cache
def _builtin_tiers() -> tuple[ResolvedTier, ...]:
    """:data:`BUILTIN_TIERS` parsed, once a process: every compile of a scenario reads
    the tier table for each combatant, and parsing the built-in table's dice each time
    took most of an opposed-tiers run's Python (1.5-4.7 ms a compile). The tiers are
    shared, so nothing changes them in place; :func:`resolve_tiers` makes new ones."""
    return tuple(_builtin_tier(row) for row in BUILTIN_TIERS)


def _builtin_tier(row: dict[str, Any]) -> ResolvedTier:
    name = row["name"]
    values = [*ROLLS, *(f"{g}.{t}" for g in GEAR for t in row[g])]
    return ResolvedTier(
        name, parse_dice(row["attack"]), parse_dice(row["defense"]), parse_dice(row["damage"]),
        {t: parse_dice(d) for t, d in row["shield"].items()},
        {t: parse_dice(d) for t, d in row["armor"].items()},
        frozenset(v for v in values if (name, v) not in TEXT_VALUES),
    )  # fmt: skip


def resolve_tiers(builtin: bool, tiers: list[Tier]) -> list[ResolvedTier]:
    """The tier table in effect, in order (docs/rules/opposed-tiers.md "skill tiers are ordered").

    Parameters
    ----------
    builtin : bool
        Whether ``tiers`` amend :data:`BUILTIN_TIERS` (a tier with a built-in name
        replaces the values it gives, in place; other tiers follow Master, in the order
        written) or are the whole table.
    tiers : list of Tier
        The scenario's ``tiers:``, already validated.

    Returns
    -------
    list of ResolvedTier
    """
    table: dict[str, ResolvedTier] = {}
    if builtin:
        table = {tier.name: tier for tier in _builtin_tiers()}
    for tier in tiers:
        base = table.get(tier.name)
        given = {r: getattr(tier, r) for r in ROLLS if getattr(tier, r) is not None}
        if base is None:
            table[tier.name] = ResolvedTier(tier.name, given["attack"], given["defense"],
                                            given["damage"], dict(tier.shield), dict(tier.armor),
                                            frozenset())  # fmt: skip
            continue
        replaced = set(given) | {f"shield.{t}" for t in tier.shield}
        replaced |= {f"armor.{t}" for t in tier.armor}
        table[tier.name] = ResolvedTier(
            tier.name, given.get("attack", base.attack), given.get("defense", base.defense),
            given.get("damage", base.damage), {**base.shield, **tier.shield},
            {**base.armor, **tier.armor}, base.placeholders - replaced,
        )  # fmt: skip
    return list(table.values())


class Attack(StrictModel):
    """A weapon (docs/rules/opposed-tiers.md; seed 002, "Special weapons").

    ``modifier`` adds to the attack total, ``damage_modifier`` to the damage (a superbly
    balanced weapon, a superior edge). ``ranged`` attacks are the ones a hidden
    combatant's surprise round leaves undefended.
    """

    modifier: int = Field(0, ge=-50, le=50)
    damage_modifier: int = Field(0, ge=-100, le=100)
    ranged: bool = False


SKILL_TIERS = ("weapon_tier", "form_tier", "defense_tier", "shield_tier", "armor_tier")


class Combatant(CombatantBase):
    """An opposed-tiers character (docs/rules/opposed-tiers.md; seed 002).

    ``hp`` is the Health pool; ``vigor`` the Vigor attribute that sets the unconscious
    (≤ −Vigor/2, rounded up) and dead (< −Vigor) thresholds — required for ``player``
    characters (and for everyone when NPCs do not fall out). ``tier`` is the default
    tier of all its skills; ``weapon_tier``/``weapon_sl`` (attack dice and skill level),
    ``form_tier``/``form_sl`` (combat form: damage), ``defense_tier``/``defense_sl``
    (combat defense), ``shield``/``shield_tier`` and ``armor``/``armor_tier`` (a type of
    the tier table, or none) override it per skill. ``reflex`` is the Reflex skill level
    of its turn-order check; ``hidden`` gives it the surprise round;
    ``attacks_per_turn`` overrides the parameter of that name.
    """

    hp: int = Field(ge=1, le=MAX_HP)
    vigor: int | None = Field(None, ge=1, le=10_000)
    player: bool = False
    tier: str | None = None
    weapon_tier: str | None = None
    weapon_sl: int = Field(0, ge=-50, le=50)
    form_tier: str | None = None
    form_sl: int = Field(0, ge=-50, le=50)
    defense_tier: str | None = None
    defense_sl: int = Field(0, ge=-50, le=50)
    shield_tier: str | None = None
    shield: str | None = None
    armor_tier: str | None = None
    armor: str | None = None
    reflex: int = Field(0, ge=-50, le=50)
    hidden: bool = False
    attacks_per_turn: int | None = Field(None, ge=1, le=10)

    @field_validator("tier", *SKILL_TIERS)
    @classmethod
    def _known_tier(cls, name: str | None) -> str | None:
        context = _SIDES.get()
        if name is None or context is None or context.table is None:
            return name
        if name not in context.table:
            known = ", ".join(context.table)
            raise ValueError(f"expected a tier of the tier table ({known}); got {name!r}"
                             f"{did_you_mean(name, context.table)}")  # fmt: skip
        return name

    @field_validator("shield", "armor")
    @classmethod
    def _known_type(cls, kind: str | None, info: ValidationInfo) -> str | None:
        context = _SIDES.get()
        if kind is None or context is None or context.table is None:
            return kind
        gear = str(info.field_name)
        tier_key = f"{gear}_tier"
        if tier_key not in info.data or "tier" not in info.data:
            return kind  # the tier itself was wrong; that error is reported
        tier = info.data[tier_key] or info.data["tier"] or context.first
        types = getattr(context.table[str(tier)], gear)
        if kind not in types:
            known = ", ".join(sorted(types)) or "none defined"
            article = "an" if gear == "armor" else "a"
            raise ValueError(f"expected {article} {gear} type of tier {tier!r} ({known}); "
                             f"got {kind!r}{did_you_mean(kind, types)}")  # fmt: skip
        return kind

    @model_validator(mode="after")
    def _vigor_when_needed(self) -> Combatant:
        context = _SIDES.get()
        needs = self.player or (context is not None and not context.npcs_fall_out)
        if needs and self.vigor is None:
            who = "a player character" if self.player else "an NPC that does not fall out"
            raise ValueError(
                f"expected key 'vigor' for {who} (it sets the unconscious and dead "
                "thresholds); got nothing"
            )
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _gear_tier_with_gear(
        cls, data: Any, handler: ModelWrapValidatorHandler[Combatant], info: ValidationInfo
    ) -> Combatant:
        """``shield_tier`` and ``armor_tier`` set the dice of a shield or armor: without
        ``shield:`` (``armor:``) there are none, and the tier could never matter: refused
        where it is written (:func:`written`)."""
        self = handler(data)
        for gear in GEAR:
            tier = getattr(self, f"{gear}_tier")
            if (tier is not None and getattr(self, gear) is None
                    and written(info, data, (f"{gear}_tier",))):  # fmt: skip
                article = "an" if gear == "armor" else "a"
                raise located_error((f"{gear}_tier",), f"expected '{gear}: TYPE' with "
                                    f"{article} {gear}_tier (the tier of its {gear}'s dice); "
                                    f"got no {gear}", tier)  # fmt: skip
        return self

    def skill_tier(self, skill: str, first: str) -> str:
        """The tier of ``skill`` (``weapon``, ``form``, ``defense``, ``shield``, ``armor``):
        its own field, else ``tier``, else ``first`` (the table's first tier)."""
        own: str | None = getattr(self, f"{skill}_tier")
        return own or self.tier or first


class Params(StrictModel):
    """Rule parameters: the [default] readings of docs/rules/opposed-tiers.md, each overridable.

    attacks_per_turn
        Attacks a combatant makes on its turn (text reading: one standard action).
    initiative_dice
        Dice of the Reflex check rolled once per combat for turn order; the
        combatant's ``reflex`` skill level is added; highest acts first.
    initiative_ties
        ``random``: tied checks are ordered at random; ``listed``: in scenario order.
    critical_tier
        Whose next tier a critical's damage dice come from: ``weapon`` (the weapon
        skill, as seed 002 says) or ``form`` (the combat form that sets normal damage).
    top_tier_critical
        A critical at the top tier: ``own`` (its own damage dice) or ``extra_die`` (one
        more die of the first damage term, e.g. 5d6 → 6d6).
    damage_floor
        Damage after armor is never below this (0: armor cannot heal).
    npcs_fall_out
        NPCs (``player: false``) leave the fight when they fall; false: they follow the
        same rules as player characters after falling.
    fallen_fight_on
        A fallen character (Health ≤ 0, not yet unconscious) keeps taking its turns.
        The text makes it incapacitated — unable to take part in combat — so false.
    target_fallen
        Enemies may keep attacking a fallen character (it stays a target for their
        targeting policy until unconscious), so it can keep taking damage.
    target_unconscious
        Enemies keep attacking an unconscious character until it is dead.
    unconscious_rounding
        Rounding of Vigor/2 in the unconscious threshold (docs/rules/opposed-tiers.md: up).
    dead_at
        When a character with Vigor V is dead: ``below`` −V (Health < −V, the rule of
        seed 002, "Health"), or ``minus_vigor`` (Health ≤ −V, as the seed's worked
        example puts Vigor 14 dead at −14).
    surprise_round
        Hidden combatants act in a surprise round before turn order is rolled.
    surprise_armor
        Armor still applies against surprise attacks (text, "unless declared otherwise").
    """

    attacks_per_turn: int = Field(1, ge=1, le=10)
    initiative_dice: DiceExpr = parse_dice("2d6")
    initiative_ties: Literal["random", "listed"] = "random"
    critical_tier: Literal["weapon", "form"] = "weapon"
    top_tier_critical: Literal["own", "extra_die"] = "own"
    damage_floor: int = Field(0, ge=0, le=100)
    npcs_fall_out: bool = True
    fallen_fight_on: bool = False
    target_fallen: bool = True
    target_unconscious: bool = False
    unconscious_rounding: Literal["up", "down"] = "up"
    dead_at: Literal["below", "minus_vigor"] = "below"
    surprise_round: bool = True
    surprise_armor: bool = True


class Scenario(ScenarioBase):
    """A scenario under ``rules: opposed-tiers`` (docs/rules/opposed-tiers.md).

    ``tiers`` amends the built-in tier table (``builtin_tiers: true``) or replaces it.
    Turn order is rolled per encounter, so the order of sides only matters for ties
    with ``initiative_ties: listed`` and for the surprise round (listed order).
    """

    rules: Literal["opposed-tiers"]
    params: Params = Params()
    builtin_tiers: bool = True
    tiers: list[Tier] = Field(default_factory=list, max_length=50)
    attacks: dict[str, Attack]
    sides: dict[str, list[Combatant]]

    @field_validator("tiers", mode="wrap")
    @classmethod
    def _tier_context(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        """Validate the tier entries knowing whether they amend the built-in table."""
        token = _TIERS.set(_TierContext(bool(info.data.get("builtin_tiers", True)), set()))
        try:
            return handler(value)
        finally:
            _TIERS.reset(token)

    @field_validator("sides", mode="wrap")
    @classmethod
    def _sides_context(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        """Validate the sides knowing the tier table (tier names, shield and armor types)."""
        tiers = info.data.get("tiers")
        builtin = info.data.get("builtin_tiers")
        params = info.data.get("params")
        table = None
        if tiers is not None and builtin is not None:
            table = {t.name: t for t in resolve_tiers(builtin, tiers)} or None
        first = next(iter(table)) if table else None
        npcs_fall_out = True if params is None else params.npcs_fall_out
        token = _SIDES.set(_SidesContext(table, first, npcs_fall_out))
        try:
            return handler(value)
        finally:
            _SIDES.reset(token)

    @model_validator(mode="after")
    def _a_table(self) -> Scenario:
        if not self.builtin_tiers and not self.tiers:
            raise ValueError("expected at least one tier under 'tiers:' with builtin_tiers: "
                             "false; got none")  # fmt: skip
        return self

    def first_round(self) -> int:
        """0 when there is a surprise round (round 0), else 1."""
        from simlab.rules.opposed_tiers.compile import surprise_happens

        return 0 if surprise_happens(self) else 1

    def tier_table(self) -> list[ResolvedTier]:
        """The tier table in effect (see :func:`resolve_tiers`)."""
        return resolve_tiers(self.builtin_tiers, self.tiers)


def placeholders_used(scenario: Scenario) -> list[str]:
    """Placeholder values of the built-in table that the scenario's combatants use.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario.

    Returns
    -------
    list of str
        E.g. ``["journeyman.attack", "novice.shield.medium"]``: values the rule text
        does not give (docs/rules/opposed-tiers.md [default]), sorted; empty when the scenario
        relies only on the text and its own table.
    """
    table = {t.name: t for t in scenario.tier_table()}
    first = next(iter(table))
    used: set[str] = set()
    for _, m in scenario.expanded():
        weapon = table[m.skill_tier("weapon", first)]
        wanted = [(weapon.name, "attack"), (m.skill_tier("form", first), "damage"),
                  (m.skill_tier("defense", first), "defense")]  # fmt: skip
        names = list(table)
        critical = m.skill_tier(scenario.params.critical_tier, first)
        nxt = names[min(names.index(critical) + 1, len(names) - 1)]
        if m.attacks:
            wanted.append((nxt, "damage"))
        else:
            wanted = wanted[2:]
        for gear in GEAR:
            kind = getattr(m, gear)
            if kind is not None:
                wanted.append((m.skill_tier(gear, first), f"{gear}.{kind}"))
        used |= {f"{t}.{v}" for t, v in wanted if v in table[t].placeholders}
    return sorted(used)
