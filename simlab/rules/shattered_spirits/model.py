"""Scenario fields of ``rules: shattered-spirits`` (RULES.md §1, seed 001).

Every [default] reading of RULES.md §1 is a field of :class:`Params` with that default,
so a designer can change it in the scenario's ``params:`` block.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from simlab.scenario.common import CombatantBase, ScenarioBase
from simlab.scenario.validation import StrictModel

ROWS = tuple(range(2, 13))
TIERS = ("miss", "hit", "crit")
# Statuses with an effect in the engine; any other single word is a marker that is
# accepted and shown in traces but changes nothing (RULES.md §1 names no effect for it).
EFFECT_STATUSES = ("stun", "exposed", "impaired")
_STATUS = re.compile(r"^([a-z][a-z-]*)(?: (\d{1,3}))?$")


def parse_status(text: str) -> tuple[str, int]:
    """Split a profile status such as ``"stun 2"`` into ``("stun", 2)``.

    Parameters
    ----------
    text : str
        ``name`` or ``name N``; ``stun``, ``exposed`` and ``impaired`` need ``N``.

    Returns
    -------
    tuple of (str, int)
        The status name and its size (1 for a marker without a number).
    """
    match = _STATUS.match(text.strip().lower())
    if match is None:
        expected = "a status like 'stun 2', 'exposed 1' or 'staggered'"
        raise ValueError(f"expected {expected}; got {text!r}")
    name, size = match.group(1), match.group(2)
    if name in EFFECT_STATUSES and size is None:
        raise ValueError(f"expected a size for {name!r}, like '{name} 2'; got {text!r}")
    return name, int(size) if size is not None else 1


class Attack(StrictModel):
    """An attack's profile chart and modifiers (RULES.md §1 "Profile", "Attack roll").

    ``profile`` is the damage on rows 2..12; ``status`` maps a row to the statuses it
    inflicts; ``tier`` maps a row to ``miss``/``hit``/``crit`` (rows not given use the
    default: no damage and no status is a miss, anything else a hit). ``modifier`` adds
    to the attack roll, ``damage_modifier`` to the damage (step 2 of the damage order).
    ``advantage``/``disadvantage`` count instances; ``glancing`` makes every hit Glancing.
    """

    profile: list[int] = Field(min_length=11, max_length=11)
    status: dict[int, list[str]] = Field(default_factory=dict)
    tier: dict[int, Literal["miss", "hit", "crit"]] = Field(default_factory=dict)
    modifier: int = Field(0, ge=-20, le=20)
    damage_modifier: int = Field(0, ge=-100, le=100)
    advantage: int = Field(0, ge=0, le=10)
    disadvantage: int = Field(0, ge=0, le=10)
    glancing: bool = False

    @field_validator("profile")
    @classmethod
    def _non_negative(cls, profile: list[int]) -> list[int]:
        for row, damage in zip(ROWS, profile, strict=True):
            if not 0 <= damage <= 999:
                raise ValueError(f"expected damage from 0 to 999 on row {row}; got {damage}")
        return profile

    @field_validator("status", "tier")
    @classmethod
    def _rows(cls, table: dict[int, object]) -> dict[int, object]:
        for row in table:
            if row not in ROWS:
                raise ValueError(f"expected rows 2 to 12 as keys; got {row}")
        return table

    @field_validator("status")
    @classmethod
    def _statuses(cls, table: dict[int, list[str]]) -> dict[int, list[str]]:
        for statuses in table.values():
            for status in statuses:
                parse_status(status)
        return table

    def row_tier(self, row: int) -> str:
        """Tier of ``row`` (2..12): the profile's own, else the RULES.md §1 default."""
        if row in self.tier:
            return self.tier[row]
        has_effect = self.profile[row - 2] > 0 or bool(self.status.get(row))
        return "hit" if has_effect else "miss"


class Reaction(StrictModel):
    """A threshold policy: react when the attack would deal at least this much damage."""

    when_damage_at_least: int = Field(ge=0, le=999)


class Reactions(StrictModel):
    """Block (paid in Grit; Deflect −1 to the roll) and Evade (paid in Reflex; reroll).

    RULES.md §1 "Reactions": one reaction per trigger. When both could fire, Evade is
    tried first (it is the stronger answer to a big hit), then Block.
    """

    block: Reaction | None = None
    evade: Reaction | None = None


class Tokens(StrictModel):
    """Starting token pools (RULES.md §1 "Reactions", "Momentum")."""

    grit: int = Field(0, ge=0, le=99)
    reflex: int = Field(0, ge=0, le=99)
    momentum: int = Field(0, ge=0, le=99)


class Combatant(CombatantBase):
    """A Shattered Spirits combatant (RULES.md §1 "Resources", "Downed", "Round").

    ``speed`` is the Phase (1–6) it acts in; ``attacks_per_turn`` how many attacks its
    Stance allows each Turn; ``downed`` is ``defeat`` (most NPCs: out at 0 HP) or
    ``wounds`` (players and powerful NPCs roll for Wounds). ``exposed``/``impaired``
    are starting status levels; ``cover`` makes attacks against it Glancing;
    ``roll_modifier`` is a flat modifier to its attack rolls (high ground, adjacency);
    ``rushing`` is the Rushing N of the terrain it stands in.
    """

    hp: int = Field(ge=1, le=100_000)
    guard: int = Field(0, ge=0, le=999)
    vigor: int = Field(0, ge=0, le=100_000)
    stun_max: int = Field(10, ge=0, le=999)
    speed: int = Field(3, ge=1, le=6)
    attacks_per_turn: int = Field(1, ge=1, le=10)
    downed: Literal["defeat", "wounds"] = "defeat"
    tokens: Tokens = Tokens()
    react: Reactions = Reactions()
    exposed: int = Field(0, ge=0, le=99)
    impaired: int = Field(0, ge=0, le=99)
    cover: bool = False
    roll_modifier: int = Field(0, ge=-20, le=20)
    rushing: int = Field(0, ge=0, le=99)


class Params(StrictModel):
    """Rule parameters: the [default] readings of RULES.md §1, each overridable.

    bonus_size
        Size of the Bonus/Penalty that each surplus Advantage/Disadvantage becomes.
    exposed_per_level, impaired_per_level
        Damage added by each level of Exposed on the target / removed by each level of
        Impaired on the attacker (step 2 of the damage order).
    glancing_divisor
        Glancing divides damage by this (halving); the rounding is always up (text rule 1).
    stun_per_level
        Stun inflicted by a profile status "stun N", per N.
    wound_roll
        ``sum``: a Downed character rolls as many d6 as its Wounds and sums them;
        ``highest``: keeps the highest die instead. With no Wounds it rolls 2d6 and keeps
        the lower (text).
    strain_meter
        Wound segments that fill the Strain Meter (death).
    reaction_cost
        Tokens paid for one Block (Grit) or Evade (Reflex).
    momentum_per_respite
        Momentum gained at each Respite (text: 2).
    cover_guard
        Guard that Cover adds when the attack is already Glancing (earlier-draft terrain
        rule, kept as an option: 0 turns it off).
    statuses_last
        How long Exposed/Impaired inflicted by a profile last: ``round`` (cleared at End
        of Round) or ``encounter``.
    """

    bonus_size: int = Field(1, ge=0, le=10)
    exposed_per_level: int = Field(1, ge=0, le=10)
    impaired_per_level: int = Field(1, ge=0, le=10)
    glancing_divisor: int = Field(2, ge=1, le=10)
    stun_per_level: int = Field(1, ge=0, le=10)
    wound_roll: Literal["sum", "highest"] = "sum"
    strain_meter: int = Field(10, ge=1, le=999)
    reaction_cost: int = Field(1, ge=0, le=10)
    momentum_per_respite: int = Field(2, ge=0, le=10)
    cover_guard: int = Field(2, ge=0, le=99)
    statuses_last: Literal["round", "encounter"] = "round"


class Scenario(ScenarioBase):
    """A scenario under ``rules: shattered-spirits``.

    Sides act in the order they are listed: list the players' side first (RULES.md §1
    "Round": within a Phase all players act, then all enemies).
    """

    rules: Literal["shattered-spirits"]
    params: Params = Params()
    attacks: dict[str, Attack]
    sides: dict[str, list[Combatant]]
