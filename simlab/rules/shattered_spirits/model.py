"""Scenario fields of ``rules: shattered-spirits`` (docs/rules/shattered-spirits.md, seed 001).

Every [default] reading of docs/rules/shattered-spirits.md is a field of :class:`Params` with that
default, so a designer can change it in the scenario's ``params:`` block.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

from pydantic import (
    AfterValidator,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from simlab.errors import did_you_mean, did_you_mean_items
from simlab.limits import (
    MAX_GUARD,
    MAX_HP,
    MAX_MOMENTUM,
    MAX_MOMENTUM_PER_ROUND,
    MAX_ROTATION,
    MAX_ROUNDS,
    MAX_STATUS_SIZE,
    MAX_TOKENS,
)
from simlab.scenario.common import (
    MAX_COMBATANTS,
    CombatantBase,
    Maker,
    Name,
    NameClaim,
    ScenarioBase,
    TargetPolicy,
    copies_of,
    entry_claims,
    located_error,
    located_errors,
)
from simlab.scenario.validation import StrictModel, as_written, written

ROWS = tuple(range(2, 13))
TIERS = ("miss", "hit", "crit")
# Statuses with an effect in the engine, each with its size N; any other single word is a
# marker that is accepted and shown in traces but changes nothing
# (docs/rules/shattered-spirits.md names no effect for it).
EFFECT_STATUSES = ("stun", "exposed", "impaired")
_STATUS = re.compile(r"^([a-z][a-z-]*)(?: (\d{1,3}))?$")


def parse_status(
    text: str, sized: tuple[str, ...] = EFFECT_STATUSES, note: str = ""
) -> tuple[str, int]:
    """Split a profile status such as ``"stun 2"`` into ``("stun", 2)``.

    docs/rules/shattered-spirits.md, "Attack fields": a status is a status of ``sized``
    with its size N, from 1 to :data:`MAX_STATUS_SIZE`, or a one-word marker with no
    number (``staggered``). A word with a number is a sized status or a mistake: a
    misspelled ``stunn 2`` or an unknown ``bleeding 2`` would otherwise be a marker that
    does nothing, and a size of 0 inflicts nothing but makes its row a hit.

    Parameters
    ----------
    text : str
        ``name N`` or ``marker``.
    sized : tuple of str, optional
        The statuses these rules give a size (the earlier draft has no Stun).
    note : str, optional
        Why a status of :data:`EFFECT_STATUSES` that is not in ``sized`` is refused.

    Returns
    -------
    tuple of (str, int)
        The status name and its size (1 for a marker).

    Raises
    ------
    ValueError
        Saying what was expected, for any other shape.
    """
    match = _STATUS.match(text.strip().lower())
    name, size = match.groups() if match else _run_together_status(text)
    marker = size is None and name not in EFFECT_STATUSES
    if match is None or (name not in sized and not marker):
        why = note if name in EFFECT_STATUSES else ""
        meant = "" if why else _misspelt_status(name, size, sized)
        raise ValueError(f"expected {_status_shapes(sized)}{why}; got {text!r}{meant}")
    if size is None and name in sized:
        raise ValueError(f"expected a size for {name!r}, like '{name} 2'; got {text!r}")
    if size is not None and int(size) < 1:
        raise ValueError(f"expected a size from 1 to {MAX_STATUS_SIZE} for {name!r}, like "
                         f"'{name} 2'; got {text!r}")  # fmt: skip
    return name, int(size) if size is not None else 1


#: A status and its size with no space between them: ``stun2``.
_RUN_TOGETHER_STATUS = re.compile(r"^([a-z][a-z-]*?)(\d{1,3})$")


def _run_together_status(text: str) -> tuple[str, str | None]:
    """The name and size of a status written without the space between them (``stun2``,
    refused, then answered "did you mean 'stun 2'?" by :func:`_misspelt_status`); else
    no name and no size."""
    found = _RUN_TOGETHER_STATUS.match(text.strip().lower())
    return (found[1], found[2]) if found else ("", None)


def _misspelt_status(name: str, size: str | None, sized: tuple[str, ...]) -> str:
    """``; did you mean 'exposed 1'?`` for ``exposd 1``: the sized status of these rules
    that a refused word with a number is close to, written with its number."""
    if size is None:
        return ""
    return did_you_mean(f"{name} {size}", [f"{status} {size}" for status in sized])


def _status_shapes(sized: tuple[str, ...]) -> str:
    """``'stun N', 'exposed N' or 'impaired N' (N from 1 to 999), or a one-word marker
    such as 'staggered'``."""
    shapes = [f"'{name} N'" for name in sized]
    listed = ", ".join(shapes[:-1]) + " or " + shapes[-1] if len(shapes) > 1 else shapes[0]
    return f"{listed} (N from 1 to {MAX_STATUS_SIZE}), or a one-word marker such as 'staggered'"


def _checked_status(text: str) -> str:
    """A profile status of the later draft, as written (see :func:`parse_status`)."""
    parse_status(text)
    return text


#: One status of a profile row, checked where it is written.
StatusText = Annotated[str, AfterValidator(_checked_status)]


class AttackProfile(StrictModel):
    """An attack's profile chart and roll modifiers, read alike by both drafts
    (docs/rules/shattered-spirits.md "Profile", "Attack roll").

    ``profile`` is the damage on rows 2..12; ``status`` maps a row to the statuses it
    inflicts; ``tier`` maps a row to ``miss``/``hit``/``crit`` (rows not given use the
    default: no damage and no status is a miss, anything else a hit). ``modifier`` adds
    to the attack roll, ``damage_modifier`` to the damage (step 2 of the damage order).
    ``advantage``/``disadvantage`` count instances; ``glancing`` makes every hit Glancing.
    """

    profile: list[int] = Field(min_length=11, max_length=11)
    status: dict[int, list[StatusText]] = Field(default_factory=dict)
    tier: dict[int, Literal["miss", "hit", "crit"]] = Field(default_factory=dict)
    modifier: int = Field(0, ge=-20, le=20)
    damage_modifier: int = Field(0, ge=-100, le=100)
    advantage: int = Field(0, ge=0, le=10)
    disadvantage: int = Field(0, ge=0, le=10)
    glancing: bool = False

    @field_validator("profile")
    @classmethod
    def _damage_in_range(cls, profile: list[int]) -> list[int]:
        """Every row's damage lies from 0 to 999. Each one outside is refused at its own
        item, so that a chart with several is told of all of them, each where it is
        written; the message names its row (2 to 12), not its index."""
        bad = [
            ((i,), f"expected damage from 0 to 999 on row {row}; got {damage}", damage)
            for i, (row, damage) in enumerate(zip(ROWS, profile, strict=True))
            if not 0 <= damage <= 999
        ]
        if bad:
            raise located_errors(bad)
        return profile

    @field_validator("status", "tier")
    @classmethod
    def _rows(cls, table: dict[int, object]) -> dict[int, object]:
        """Every key is a row of the chart, 2 to 12. Each other one is refused at the key
        itself (pydantic's ``[key]`` mark), every one of them."""
        bad = [
            ((row, "[key]"), f"expected rows 2 to 12 as keys; got {row}", row)
            for row in table
            if row not in ROWS
        ]
        if bad:
            raise located_errors(bad)
        return table

    def row_tier(self, row: int) -> str:
        """Tier of ``row`` (2..12): the profile's own, else the docs/rules/shattered-spirits.md
        default."""
        if row in self.tier:
            return self.tier[row]
        has_effect = self.profile[row - 2] > 0 or bool(self.status.get(row))
        return "hit" if has_effect else "miss"


class Attack(AttackProfile):
    """An attack of the later draft: its profile (:class:`AttackProfile`), its range and
    its price.

    ``range`` is ``melee`` (only at creatures the attacker is Engaged with, when the
    scenario declares engagements) or ``ranged`` (any enemy; seed 001, "Range").
    ``momentum_cost`` prices the attack in Momentum (seed 001, "Resources in Combat" names
    Momentum as a resource without saying what it buys, so what costs Momentum is the
    scenario's to say); a Spirit pays from its character's Momentum. What an attacker does
    when it cannot pay is ``Params.unpaid_attack``.
    """

    range: Literal["melee", "ranged"] = "melee"
    momentum_cost: int = Field(0, ge=0, le=MAX_MOMENTUM)


class Threshold(StrictModel):
    """A threshold policy: react when the attack would deal at least this much damage."""

    when_damage_at_least: int = Field(ge=0, le=999)


class Reaction(Threshold):
    """A reaction of the later draft: its threshold, and its price.

    ``momentum_cost`` > 0 pays the reaction with that much Momentum in place of its
    token (Grit for Block, Reflex for Evade): a scenario may price reactions in Momentum
    (seed 001, "Resources in Combat", leaves what Momentum buys open).
    """

    momentum_cost: int = Field(0, ge=0, le=MAX_MOMENTUM)


class ThresholdReactions(StrictModel):
    """Block (paid in Grit; Deflect −1 to the roll) and Evade (paid in Reflex; reroll),
    each a threshold policy, as both drafts read them.

    docs/rules/shattered-spirits.md "Reactions": one reaction per trigger. When both could fire,
    Evade is tried first (it is the stronger answer to a big hit), then Block.
    """

    block: Threshold | None = None
    evade: Threshold | None = None


class Reactions(ThresholdReactions):
    """The later draft's reactions, which a scenario may price in Momentum
    (:class:`Reaction`)."""

    block: Reaction | None = None
    evade: Reaction | None = None


#: Each reaction, the token it is paid with, and the reaction in a message
#: (docs/rules/shattered-spirits.md "Reactions": Evade costs Reflex, Block Grit).
REACTION_TOKENS = (("evade", "reflex", "Reflex an Evade"), ("block", "grit", "Grit a Block"))


def refuse_unpaid_reactions(scenario: Any, data: Any, info: ValidationInfo) -> None:
    """Refuse each reaction its combatant can never pay for, where it is written.

    A reaction is paid with ``reaction_cost`` of its token, or, priced in Momentum (the
    later draft's ``momentum_cost``), with Momentum, which :meth:`Scenario.most_momentum`
    bounds apart. No token is gained during a fight (the kernels set each pool once, from
    ``tokens:``, and only spend it), so a combatant that starts with fewer than
    ``reaction_cost`` never makes the reaction: its ``react:`` entry was silently never
    used. Refused in the file as written and where an override writes the entry; an
    override of the tokens or of the cost may leave it unpaid (a sweep of Reflex from 0),
    as :func:`written` says.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario of either draft: its ``params.reaction_cost``, and each
        combatant's ``tokens`` and ``react``.
    data : Any
        The raw mapping ``scenario`` was validated from.
    info : ValidationInfo
        That validation's.

    Raises
    ------
    ValidationError
        At each such reaction's entry under ``react:``, naming the combatant, the
        reaction and the token it lacks.
    """
    cost = scenario.params.reaction_cost
    unpaid = []
    for side, members in scenario.sides.items():
        for i, member in enumerate(members):
            for kind, token, what in REACTION_TOKENS:
                reaction = getattr(member.react, kind)
                held = getattr(member.tokens, token)
                where = ("sides", side, i, "react", kind)
                if (reaction is None or getattr(reaction, "momentum_cost", 0) > 0
                        or held >= cost or not written(info, data, where)):  # fmt: skip
                    continue
                priced = " or a momentum_cost" if isinstance(reaction, Reaction) else ""
                unpaid.append((where, f"expected tokens.{token} of at least {cost} "
                               f"(reaction_cost: the {what} costs; none is gained during a "
                               f"fight){priced}; got tokens.{token} {held}: {member.name!r} "
                               f"could never {kind}", held))  # fmt: skip
    if unpaid:
        raise located_errors(unpaid)


class Tokens(StrictModel):
    """Starting token pools (docs/rules/shattered-spirits.md "Reactions", "Momentum")."""

    grit: int = Field(0, ge=0, le=MAX_TOKENS)
    reflex: int = Field(0, ge=0, le=MAX_TOKENS)
    momentum: int = Field(0, ge=0, le=MAX_TOKENS)


class Stance(StrictModel):
    """A named Stance (seed 001, "Rounds in Shattered Spirits": a Stance sets the Phase a
    character acts in; "Turns": some Stances lift the one-attack limit).

    ``speed`` is the Phase it acts in; ``attacks_per_turn`` the attacks it allows each
    Turn; ``guard_modifier`` and ``roll_modifier`` add to the combatant's Guard (floor 0)
    and attack rolls while it holds this Stance.
    """

    name: Name
    speed: int = Field(ge=1, le=6)
    attacks_per_turn: int = Field(1, ge=1, le=10)
    guard_modifier: int = Field(0, ge=-MAX_GUARD, le=MAX_GUARD)
    roll_modifier: int = Field(0, ge=-20, le=20)


class StancePolicy(StrictModel):
    """When to change Stance at Respite: take ``switch_to`` while HP is below
    ``when_hp_below``, else the first Stance listed. The form of a policy the scenario
    writes (the text leaves the choice to whoever plays), not a reading of a rule."""

    switch_to: str = Field(min_length=1, max_length=60)
    when_hp_below: int = Field(ge=1, le=MAX_HP)


class Spirit(StrictModel):
    """A character's Spirit: a combatant bound to its owner (seed 001, "Rounds": Manifest
    or Recall at Respite; "Hit Points and Wounds": Spirit Downed, Harm).

    It has its own ``hp``, ``guard``, ``speed`` (the Phase it acts in while Manifested),
    ``attacks``, ``attacks_per_turn`` and ``target`` policy. ``manifest`` is the owner's
    policy at each Respite: ``always`` (Manifest at its Source, free), ``melee`` (pay
    Momentum to Manifest at Melee range when the owner has it, else as ``always``) or
    ``never``; ``recall_below`` Recalls it instead while its HP is below that (0: never).
    """

    name: Name
    hp: int = Field(ge=1, le=MAX_HP)
    guard: int = Field(0, ge=0, le=MAX_GUARD)
    speed: int = Field(3, ge=1, le=6)
    attacks: list[str] = Field(default_factory=list, max_length=MAX_ROTATION)
    attacks_per_turn: int = Field(1, ge=1, le=10)
    target: TargetPolicy = "focus"
    manifest: Literal["always", "melee", "never"] = "always"
    recall_below: int = Field(0, ge=0, le=MAX_HP)

    @model_validator(mode="wrap")
    @classmethod
    def _recalled_only_if_manifested(
        cls, data: Any, handler: ModelWrapValidatorHandler[Spirit], info: ValidationInfo
    ) -> Spirit:
        """Refused where it is written (:func:`written`)."""
        self = handler(data)
        if (self.manifest == "never" and self.recall_below > 0
                and written(info, data, ("recall_below",))):  # fmt: skip
            raise located_error(("recall_below",), "expected manifest: always or melee with "
                                "recall_below (a Spirit never Manifested is never Recalled); "
                                "got manifest: never", self.recall_below)  # fmt: skip
        return self


class Reinforce(StrictModel):
    """Reinforcements (seed 001, "Arenas and Movement": a Reinforcements source creates new
    enemies at the start of each Round after the first). The entry is not present at the
    start: ``per_round`` copies arrive at the start of each Round from ``from_round``,
    until ``cap`` have arrived, or until the source is destroyed
    (``Params.source_destroyed_round``)."""

    per_round: int = Field(1, ge=1, le=64)
    cap: int = Field(ge=1, le=64)
    from_round: int = Field(2, ge=2, le=MAX_ROUNDS)


class Sunder(StrictModel):
    """Armor and Wielded items as Sunder charges (seed 001, "Hit Points and Wounds": a
    Downed character may Sunder Armor to take Fatigue in place of a Wound; having Blocked
    the triggering attack, it may Sunder a Wielded item as if it were Armor).

    ``armor`` and ``wielded`` count the charges; the policy Sunders when the Wound just
    rolled would add at least ``when_segments_at_least`` segments [default 1: always].
    """

    armor: int = Field(0, ge=0, le=99)
    wielded: int = Field(0, ge=0, le=99)
    when_segments_at_least: int = Field(1, ge=1, le=99)

    @model_validator(mode="after")
    def _a_charge(self, info: ValidationInfo) -> Sunder:
        """Refused in the file as written (:func:`as_written`); an override may give 0
        charges (a sweep of charges from 0)."""
        if self.armor == 0 and self.wielded == 0 and as_written(info):
            raise located_error((), "expected a Sunder charge (armor or wielded above 0); "
                                "got armor: 0, wielded: 0", None)  # fmt: skip
        return self


class Combatant(CombatantBase):
    """A Shattered Spirits combatant (docs/rules/shattered-spirits.md "Resources", "Downed",
    "Round").

    ``speed`` is the Phase (1–6) it acts in; ``attacks_per_turn`` how many attacks its
    Stance allows each Turn; ``downed`` is ``defeat`` (most NPCs: out at 0 HP) or
    ``wounds`` (players and powerful NPCs roll for Wounds). ``exposed``/``impaired``
    are starting status levels; ``cover`` makes attacks against it Glancing;
    ``roll_modifier`` is a flat modifier to its attack rolls (high ground, adjacency);
    ``rushing`` is the Rushing N of the terrain it stands in.
    """

    hp: int = Field(ge=1, le=MAX_HP)
    guard: int = Field(0, ge=0, le=MAX_GUARD)
    vigor: int = Field(0, ge=0, le=MAX_HP)
    stun_max: int = Field(10, ge=0, le=999)
    speed: int = Field(3, ge=1, le=6)
    attacks_per_turn: int = Field(1, ge=1, le=10)
    downed: Literal["defeat", "wounds"] = "defeat"
    tokens: Tokens = Tokens()
    react: Reactions = Reactions()
    exposed: int = Field(0, ge=0, le=MAX_STATUS_SIZE)
    impaired: int = Field(0, ge=0, le=MAX_STATUS_SIZE)
    cover: bool = False
    roll_modifier: int = Field(0, ge=-20, le=20)
    rushing: int = Field(0, ge=0, le=MAX_STATUS_SIZE)
    stances: list[Stance] = Field(default_factory=list, max_length=10)
    stance_policy: StancePolicy | None = None
    spirit: Spirit | None = None
    reinforce: Reinforce | None = None
    sunder: Sunder | None = None
    engaged_with: list[str] = Field(default_factory=list, max_length=64)

    @model_validator(mode="after")
    def _feature_fields(self) -> Combatant:
        names = [stance.name for stance in self.stances]
        policy = self.stance_policy
        if policy is not None and policy.switch_to not in names:
            shown = ", ".join(names) or "none"
            raise located_error(("stance_policy", "switch_to"), "expected a Stance listed "
                                f"under 'stances:' ({shown}); got {policy.switch_to!r}"
                                f"{did_you_mean(policy.switch_to, names)}",
                                policy.switch_to)  # fmt: skip
        if self.reinforce is not None and self.count != 1:
            raise located_error(("count",), "expected no count with 'reinforce:' (its cap "
                                f"sets the copies); got {self.count}", self.count)  # fmt: skip
        if self.sunder is not None and self.downed != "wounds":
            raise located_error(("sunder",), "expected 'downed: wounds' with 'sunder:' (a "
                                "Sunder replaces a Wound); got 'downed: defeat'", None)  # fmt: skip
        return self

    @model_validator(mode="after")
    def _stances_taken(self) -> Combatant:
        """With ``stances:``, the Stance taken sets the Phase and the attacks a Turn, so
        the combatant's own ``speed`` and ``attacks_per_turn`` could never matter; and a
        Stance is taken only when it is the first listed or the policy's ``switch_to``
        (a ``switch_to`` that is the first changes nothing)."""
        if not self.stances:
            return self
        for key in ("speed", "attacks_per_turn"):
            if key in self.model_fields_set:
                value = getattr(self, key)
                raise located_error((key,), f"expected {key} under each Stance, not beside "
                                    f"'stances:' (the Stance taken sets it); got {key}: "
                                    f"{value}", value)  # fmt: skip
        first, policy = self.stances[0].name, self.stance_policy
        if policy is not None and policy.switch_to == first:
            raise located_error(("stance_policy", "switch_to"), "expected a Stance other "
                                f"than the first listed ({first!r}, taken otherwise); got "
                                f"{first!r}", first)  # fmt: skip
        for j, stance in enumerate(self.stances[1:], 1):
            if policy is None or stance.name != policy.switch_to:
                raise located_error(("stances", j, "name"), _never_taken(first, policy,
                                    stance.name), stance.name)  # fmt: skip
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _wielded_with_block(
        cls, data: Any, handler: ModelWrapValidatorHandler[Combatant], info: ValidationInfo
    ) -> Combatant:
        """A Wielded item is Sundered only for an attack the combatant Blocked: without
        ``react: {block: …}`` its charges could never be used (refused where they are
        written, :func:`written`)."""
        self = handler(data)
        sunder = self.sunder
        if (sunder is not None and sunder.wielded > 0 and self.react.block is None
                and written(info, data, ("sunder", "wielded"))):  # fmt: skip
            raise located_error(("sunder", "wielded"), "expected 'react: {block: …}' with "
                                "wielded charges (a Wielded item is Sundered only for an "
                                "attack it Blocked); got no block", sunder.wielded)  # fmt: skip
        return self

    @property
    def copies(self) -> int:
        """Slots this entry fills: its ``count``, or its reinforcement ``cap``."""
        return self.reinforce.cap if self.reinforce is not None else self.count


def _never_taken(first: str, policy: StancePolicy | None, name: str) -> str:
    """The message for a Stance that is neither the first listed nor ``switch_to``."""
    if policy is None:
        return (f"expected a stance_policy to take a Stance other than the first listed "
                f"({first!r}); got {name!r}, which is never taken")  # fmt: skip
    return (f"expected only the Stances taken: the first listed ({first!r}) and "
            f"stance_policy's switch_to ({policy.switch_to!r}); got {name!r}, which is "
            "never taken")  # fmt: skip


class Params(StrictModel):
    """Rule parameters: the [default] readings of docs/rules/shattered-spirits.md, each overridable.

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
    guard_mode
        How Guard applies (step 3 of the damage order; the seed text says only to apply
        it): ``subtract`` takes it off the damage, floor 0 [default reading];
        ``threshold`` stops a hit whose damage is at most the Guard and lets a larger one
        through whole.
    cover_guard
        Guard that Cover adds when the attack is already Glancing (earlier-draft terrain
        rule, kept as an option: 0 turns it off).
    statuses_last
        How long Exposed/Impaired inflicted by a profile last: ``round`` (cleared at End
        of Round) or ``encounter``.
    engagement
        ``everyone``: every combatant is Engaged with every enemy [default reading];
        ``declared``: only the engagements combatants start with (``engaged_with``) and
        those a Spirit Manifested at Melee range makes; a ``melee`` attack may only
        target an enemy the attacker is Engaged with (seed 001, "Range").
    melee_manifest_cost
        Momentum paid to Manifest a Spirit at Melee range (text: 1).
    manifest_momentum
        Whether a character that Manifests its Spirit also gains ``momentum_per_respite``
        (docs/rules/shattered-spirits.md: both Respite options grant it); ``false``: only Recalling
        does.
    harm_meter
        Harm segments that fill a Spirit's meter; a Spirit whose meter is full stays
        Recalled for the rest of the encounter [default reading].
    sealed_rounds
        Rounds beyond the current one that Sealed adds to Suppressed [default 1: Sealed is
        a Suppression that also lasts the next Round].
    fatigue_per_sunder
        Fatigue taken for each Sunder. Fatigue has no effect (the text gives it none) and
        its amount is not reported: what it changes is only whether a Sunder counts as the
        ``fatigue`` event (0: never).
    unpaid_attack
        What an attacker does when the attack its rotation comes to costs more Momentum
        (``Attack.momentum_cost``) than its payer holds (seed 001, "Resources in Combat",
        leaves Momentum's uses open): ``next`` [default reading] passes over it to the next
        attack of the rotation it can pay for (none: that attack of its Turn is not made);
        ``wait`` makes no attack then, and the rotation stays on the priced attack, so it is
        made once it can be paid.
    source_destroyed_round
        The Round in which every Reinforcements source is destroyed (seed 001, "Arenas and
        Movement": a source can be destroyed): reinforcements arrive at the start of
        Rounds up to this one, none later. 0 [default]: the source is never destroyed.
    """

    bonus_size: int = Field(1, ge=0, le=10)
    exposed_per_level: int = Field(1, ge=0, le=10)
    impaired_per_level: int = Field(1, ge=0, le=10)
    glancing_divisor: int = Field(2, ge=1, le=10)
    stun_per_level: int = Field(1, ge=0, le=10)
    wound_roll: Literal["sum", "highest"] = "sum"
    strain_meter: int = Field(10, ge=1, le=999)
    reaction_cost: int = Field(1, ge=0, le=10)
    momentum_per_respite: int = Field(2, ge=0, le=MAX_MOMENTUM_PER_ROUND)
    guard_mode: Literal["subtract", "threshold"] = "subtract"
    cover_guard: int = Field(2, ge=0, le=MAX_GUARD)
    statuses_last: Literal["round", "encounter"] = "round"
    engagement: Literal["everyone", "declared"] = "everyone"
    melee_manifest_cost: int = Field(1, ge=0, le=10)
    manifest_momentum: bool = True
    harm_meter: int = Field(10, ge=1, le=999)
    sealed_rounds: int = Field(1, ge=0, le=10)
    fatigue_per_sunder: int = Field(1, ge=0, le=10)
    unpaid_attack: Literal["next", "wait"] = "next"
    source_destroyed_round: int = Field(0, ge=0, le=MAX_ROUNDS)


class Scenario(ScenarioBase):
    """A scenario under ``rules: shattered-spirits``.

    Sides act in the order they are listed: list the players' side first
    (docs/rules/shattered-spirits.md "Round": within a Phase all players act, then all enemies).
    """

    rules: Literal["shattered-spirits"]
    params: Params = Params()
    attacks: dict[str, Attack]
    sides: dict[str, list[Combatant]]

    @model_validator(mode="after")
    def _slot_count(self) -> Scenario:
        """Spirits and reinforcement slots are combatants too: at most MAX_COMBATANTS."""
        total = len(self.slots())
        if total > MAX_COMBATANTS:
            raise located_error(("sides",), f"expected at most {MAX_COMBATANTS} combatants "
                                f"with Spirits and reinforcement slots; got {total}",
                                None)  # fmt: skip
        return self

    @model_validator(mode="after")
    def _present_from_the_start(self) -> Scenario:
        """Every side has someone in the fight from Round 1: a side whose present members
        are all out has lost, reinforcements to come or not (docs/rules/shattered-spirits.md,
        "Reinforcements"), so a side of reinforcements alone lost every encounter before
        anyone acted."""
        for side, members in self.sides.items():
            if members and all(m.reinforce is not None for m in members):
                raise located_error(("sides", side), f"expected a combatant without "
                                    f"'reinforce:' on side {side!r} (reinforcements alone "
                                    "have lost before they arrive); got only reinforcements",
                                    None)  # fmt: skip
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _arrives_before_the_source_falls(
        cls, data: Any, handler: ModelWrapValidatorHandler[Scenario], info: ValidationInfo
    ) -> Scenario:
        """A ``reinforce:`` entry whose first arrival (``from_round``) comes after the
        Round its source is destroyed in (``source_destroyed_round``) never arrives:
        refused at ``source_destroyed_round`` in the file as written, and where an override
        writes the entry's ``reinforce:``; an override of the Round may leave it behind (a
        sweep of the Round from 1): :func:`written`."""
        self = handler(data)
        last = self.params.source_destroyed_round
        for side, members in self.sides.items():
            for i, member in enumerate(members):
                first = member.reinforce.from_round if member.reinforce else 0
                if not 0 < last < first:
                    continue
                where = ("sides", side, i, "reinforce", "from_round")
                if not written(info, data, where):
                    continue
                message = (f"expected source_destroyed_round 0 (never) or at least the "
                           f"from_round of {member.name!r} ({first}: its reinforcements "
                           f"arrive from then); got {last}, and none ever arrives")  # fmt: skip
                at = ("params", "source_destroyed_round") if as_written(info) else where
                raise located_error(at, message, last)
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _paid_reactions(
        cls, data: Any, handler: ModelWrapValidatorHandler[Scenario], info: ValidationInfo
    ) -> Scenario:
        """Every reaction written can be paid for (:func:`refuse_unpaid_reactions`)."""
        self = handler(data)
        refuse_unpaid_reactions(self, data, info)
        return self

    @model_validator(mode="after")
    def _engagements(self, info: ValidationInfo) -> Scenario:
        """Each ``engaged_with`` entry is an enemy entry; and ``engaged_with`` is refused
        in the file as written without ``engagement: declared``, under which alone it is
        read (under ``everyone`` every combatant is Engaged with every enemy: its names
        were checked, then ignored). An override that turns engagement to ``everyone``
        may leave it behind (:func:`as_written`)."""
        entries = {m.name: side for side, ms in self.sides.items() for m in ms}
        for side, members in self.sides.items():
            for i, member in enumerate(members):
                for j, name in enumerate(member.engaged_with):
                    if entries.get(name, side) == side:
                        foes = [n for n, s in entries.items() if s != side]
                        raise located_error(("sides", side, i, "engaged_with", j),
                                            f"expected an enemy entry ({', '.join(foes)}); "
                                            f"got {name!r}{did_you_mean(name, foes)}",
                                            name)  # fmt: skip
        if self.params.engagement != "declared" and as_written(info):
            self._refuse_unread_engagements()
        return self

    def _refuse_unread_engagements(self) -> None:
        """Refuse the first ``engaged_with`` written, under ``engagement: everyone``
        (:meth:`_engagements`)."""
        for side, members in self.sides.items():
            for i, member in enumerate(members):
                if member.engaged_with:
                    raise located_error(("sides", side, i, "engaged_with"),
                                        "expected 'params: {engagement: declared}' with "
                                        "engaged_with (under engagement: everyone, every "
                                        "combatant is Engaged with every enemy); got "
                                        f"engagement: {self.params.engagement}",
                                        member.engaged_with)  # fmt: skip

    @model_validator(mode="after")
    def _spirit_attacks(self) -> Scenario:
        known = ", ".join(sorted(self.attacks)) or "none defined"
        for side, members in self.sides.items():
            for i, member in enumerate(members):
                for j, name in enumerate(member.spirit.attacks if member.spirit else []):
                    if name not in self.attacks:
                        raise located_error(("sides", side, i, "spirit", "attacks", j),
                                            f"expected an attack defined under 'attacks:' "
                                            f"({known}); got {name!r}"
                                            f"{did_you_mean_items(name, self.attacks)}",
                                            name)  # fmt: skip
        return self

    @model_validator(mode="after")
    def _payable_prices(self) -> Scenario:
        """Every attack a combatant (or its Spirit) lists, and every reaction it has,
        costs at most the Momentum it can ever hold (:meth:`most_momentum`): one priced
        above that would never be paid, and so silently never made."""
        for side, members in self.sides.items():
            for i, member in enumerate(members):
                most, how = self.most_momentum(member)
                for maker, attacks in self._priced_makers(member):
                    for name in dict.fromkeys(attacks):
                        attack = self.attacks.get(name)
                        if attack is not None and attack.momentum_cost > most:
                            raise _unpayable(("attacks", name, "momentum_cost"),
                                             attack.momentum_cost, most, how,
                                             f"{maker} could never make {name!r}")  # fmt: skip
                for kind in ("block", "evade"):
                    reaction = getattr(member.react, kind)
                    if reaction is not None and reaction.momentum_cost > most:
                        raise _unpayable(("sides", side, i, "react", kind, "momentum_cost"),
                                         reaction.momentum_cost, most, how,
                                         f"{member.name!r} could never {kind}")  # fmt: skip
        return self

    def most_momentum(self, member: Combatant) -> tuple[int, str]:
        """The most Momentum ``member`` (each copy) can ever hold, and how it adds up.

        Momentum comes from ``tokens.momentum`` at the start and ``momentum_per_respite``
        at each Respite, one at the start of every round, and nothing else grants any
        (docs/rules/shattered-spirits.md, "Momentum"): so at most its tokens plus
        ``momentum_per_respite`` × the Respites it is in the fight for, ``max_rounds``
        (a reinforcement: from its first possible arrival, ``from_round``, on). Spending,
        Suppressed Respites and ``manifest_momentum: false`` only lower what it holds.
        """
        per = self.params.momentum_per_respite
        first = 1 if member.reinforce is None else member.reinforce.from_round
        respites = max(self.max_rounds - first + 1, 0)
        arriving = "" if member.reinforce is None else f" from round {first}"
        how = (f"tokens.momentum {member.tokens.momentum} + momentum_per_respite {per} × "
               f"{respites} Respites{arriving} by max_rounds {self.max_rounds}")  # fmt: skip
        return member.tokens.momentum + per * respites, how

    @staticmethod
    def _priced_makers(member: Combatant) -> list[tuple[str, list[str]]]:
        """Who makes which attacks paid from ``member``'s Momentum: the entry itself, and
        its Spirit (a Spirit pays from its character's Momentum)."""
        makers = [(repr(member.name), list(member.attacks))]
        if member.spirit is not None:
            spirit = (f"the Spirit {member.spirit.name!r} of {member.name!r}, which pays "
                      "from its character's Momentum,")  # fmt: skip
            makers.append((spirit, member.spirit.attacks))
        return makers

    DAMAGE_SOURCES: ClassVar[str] = (
        "a combatant or Spirit with an attack it can make (with engagement: declared, a "
        "Melee attack needs an Engaged enemy), or Rushing terrain"
    )

    MADE_BY: ClassVar[str] = (
        "an attack some combatant or Spirit lists under 'attacks:' and can make"
    )

    def can_deal_damage(self) -> bool:
        """An attack some combatant or Spirit can make (:meth:`able_makers`), or Rushing
        terrain's Stun beyond the maximum."""
        members = [m for ms in self.sides.values() for m in ms]
        return any(m.rushing for m in members) or any(a for *_, a in self.able_makers())

    def able_makers(self) -> list[tuple[str, str, list[str]]]:
        """(side, name, attacks) of every slot, with only the attacks it can ever make: a
        Spirit with ``manifest: never`` makes none; with ``engagement: declared`` a Melee
        attack needs an enemy its maker is Engaged with (its character's, for a Spirit
        Manifested at Melee range)."""
        engaged = self._engaged_entries()
        out = []
        for slot in self.slots():
            maker = slot.spirit or slot.member
            if slot.spirit is None:
                is_engaged = slot.member.name in engaged
            else:
                is_engaged = self._at_melee(slot) and slot.member.name in engaged
            able = ([] if _never_manifested(slot)
                    else [a for a in maker.attacks if self._can_make(a, is_engaged)])  # fmt: skip
            out.append((slot.side_name, slot.name, able))
        return out

    def never_made_why(self, attack: str) -> str:
        """``, listed only by the Spirit 'Ghost' (manifest: never)``, or ``, a Melee attack
        listed only by combatants Engaged with nobody (engagement: declared)``: why an
        attack some slot lists is never made; ``""`` for one nobody lists."""
        listers = [slot for slot in self.slots() if attack in (slot.spirit or slot.member).attacks]
        if not listers:
            return ""
        if all(slot.spirit is not None and slot.spirit.manifest == "never" for slot in listers):
            names = " and ".join(dict.fromkeys(repr(slot.spirit.name) for slot in listers
                                               if slot.spirit is not None))  # fmt: skip
            return f", listed only by the Spirit {names} (manifest: never)"
        unpaid = [self._unpaid_melee_why(slot) for slot in listers]
        if all(unpaid):
            names = " and ".join(dict.fromkeys(_said(slot) for slot in listers))
            return (f", a Melee attack listed only by {names}, which never reaches Melee "
                    f"range: {'; '.join(dict.fromkeys(unpaid))}")  # fmt: skip
        return (", a Melee attack listed only by combatants Engaged with nobody "
                "(engagement: declared)")  # fmt: skip

    def listed_unmade_why(self, attack: str, attacker: str | None, sides: set[str]) -> str:
        """``: the Spirit 'Wraith' lists 'club' but never makes it: 'club' is a Melee
        attack, and 'Ogre' can never pay melee_manifest_cost 1 …``: why each slot off
        ``sides`` (of ``attacker``'s copies, when named) that lists ``attack`` never makes
        it (:meth:`able_makers`); ``""`` when each that lists it makes it."""
        able = {name: attacks for _, name, attacks in self.able_makers()}
        whys = [f"{_said(slot)} lists {attack!r} but never makes it: "
                f"{self._never_makes_why(slot, attack)}"
                for slot in self.slots()
                if attack in (slot.spirit or slot.member).attacks
                and attack not in able[slot.name] and slot.side_name not in sides
                and (attacker is None or copies_of(attacker, [slot.name]))]  # fmt: skip
        return f": {'; '.join(dict.fromkeys(whys))}" if whys else ""

    def _never_makes_why(self, slot: Slot, attack: str) -> str:
        """Why ``slot``, which lists ``attack``, never makes it: a Spirit never
        Manifested, or a Melee attack whose maker never reaches Melee range or, under
        ``engagement: declared``, is Engaged with nobody."""
        if _never_manifested(slot):
            return "it has manifest: never"
        unpaid = self._unpaid_melee_why(slot)
        if unpaid:
            return f"{attack!r} is a Melee attack, and {unpaid}"
        return (f"{attack!r} is a Melee attack, and under engagement: declared "
                f"{_said(slot)} is Engaged with nobody")  # fmt: skip

    def never_attacks_why(self, sides: set[str]) -> str:
        """``: the Spirit 'Ghost' has manifest: never``, or ``: 'Brute' lists only Melee
        attacks and, under engagement: declared, is Engaged with nobody``: why each entry
        off ``sides`` that lists attacks makes none (:meth:`able_makers`), for
        :meth:`down_problem`."""
        listing = [slot for slot in self.slots() if (slot.spirit or slot.member).attacks]
        whys = [_makes_none_why(slot, self._unpaid_melee_why(slot))
                for slot in listing if slot.side_name not in sides]  # fmt: skip
        return f": {'; '.join(dict.fromkeys(whys))}" if whys else ""

    def attackers_of(self, target: str, makers: list[Maker] | None = None) -> list[Maker]:
        """(side, name, attacks) of the slots that can ever attack the slot named
        ``target``, each with only the attacks it can make at it (``makers``:
        :meth:`able_makers`, worked out when not given). A Spirit with ``manifest: never``
        is never in the fight, and nothing attacks it; under ``engagement: declared`` a
        Melee attack reaches only a slot its maker can be Engaged with
        (:meth:`_may_engage`), a Ranged one any enemy."""
        makers = self.able_makers() if makers is None else makers
        slots = {slot.name: slot for slot in self.slots()}
        aim = slots.get(target)
        if aim is None:
            return super().attackers_of(target, makers)
        if _never_manifested(aim):
            return []
        out = []
        for side, name, attacks in makers:
            engaged = self._may_engage(slots[name], aim)
            reach = [a for a in attacks if self._can_make(a, engaged)]
            if reach and side != aim.side_name:
                out.append((side, name, reach))
        return out

    def unattacked_why(self, targets: list[str], makers: list[Maker]) -> str:
        """Why none of ``makers`` ever attacks ``targets``: a Spirit that never
        Manifests is never in the fight; where nobody on another side makes an attack,
        why each makes none (:meth:`never_attacks_why`); else why each that lists an
        attack reaches none of them (``'Ogre' lists only Melee attacks and is Engaged
        only with 'Kaito'``)."""
        slots = {slot.name: slot for slot in self.slots()}
        aims = [slots[name] for name in targets if name in slots]
        never = _out_of_the_fight(aims)
        if never:
            return never
        sides = {aim.side_name for aim in aims}
        foes = [(slots[name], attacks) for side, name, attacks in makers if side not in sides]
        if not any(attacks for _, attacks in foes):
            return super().unattacked_why(targets, makers)
        whys = [_makes_none_why(slot, self._unpaid_melee_why(slot)) if not attacks else
                f"{_said(slot)} lists only Melee attacks and is Engaged only with "
                f"{self._engaged_said(slot)}"
                for slot, attacks in foes if (slot.spirit or slot.member).attacks]  # fmt: skip
        whys += [why for why in map(self._unpaid_melee_why, aims) if why]
        return f"nobody on another side can attack it: {'; '.join(dict.fromkeys(whys))}"

    def untargeted_why(self, attack: str, targets: list[str], makers: list[Maker]) -> str:
        """``: 'club' is a Melee attack, and 'Ogre' is Engaged only with 'Kaito'``, or
        ``: the Spirit 'Shade' has manifest: never and is never in the fight``: why the
        makers of ``attack`` on another side never make it at ``targets``, and why a
        Spirit among ``targets`` never reaches Melee range, where it would take its
        character's engagements (:meth:`_unpaid_melee_why`)."""
        slots = {slot.name: slot for slot in self.slots()}
        aims = [slots[name] for name in targets if name in slots]
        never = _out_of_the_fight(aims)
        if never:
            return f": {never}"
        sides = {aim.side_name for aim in aims}
        foes = [slots[name] for side, name, attacks in makers
                if attack in attacks and side not in sides]  # fmt: skip
        whys = [f"{_said(foe)} is Engaged only with {self._engaged_said(foe)}" for foe in foes]
        whys += [why for why in map(self._unpaid_melee_why, aims) if why]
        return f": {attack!r} is a Melee attack, and {'; '.join(dict.fromkeys(whys))}"

    def _may_engage(self, a: Slot, b: Slot) -> bool:
        """Whether slots ``a`` and ``b`` can ever be Engaged (the kernels' ``ENGAGED``):
        their characters' entries start Engaged (either names the other under
        ``engaged_with``, which covers every copy), and each is its character or a Spirit
        that Manifests at Melee range (:meth:`_at_melee`), taking its character's
        engagements."""
        at_melee = all(s.spirit is None or self._at_melee(s) for s in (a, b))
        named = b.member.name in a.member.engaged_with or a.member.name in b.member.engaged_with
        return at_melee and named and a.side != b.side

    def _at_melee(self, slot: Slot) -> bool:
        """Whether ``slot`` is a Spirit that ever Manifests at Melee range: ``manifest:
        melee``, and its character can pay ``melee_manifest_cost`` at some Respite
        (:meth:`_unpaid_melee_why`); else the kernels Manifest it at its Source."""
        melee = slot.spirit is not None and slot.spirit.manifest == "melee"
        return melee and not self._unpaid_melee_why(slot)

    def _unpaid_melee_why(self, slot: Slot) -> str:
        """Why the character of ``slot``, a Spirit with ``manifest: melee``, can never pay
        ``melee_manifest_cost`` to Manifest it at Melee range; ``""`` when it can, or
        ``slot`` is no such Spirit.

        The kernels pay the cost at a Respite before that Respite's Momentum comes, from
        what the character holds: at most its ``tokens.momentum`` plus
        ``momentum_per_respite`` for every Respite before the last it is in the fight
        for (:meth:`most_momentum`, less the last Respite's gain). With
        ``manifest_momentum: false`` none comes at a Respite the Spirit Manifests, and it
        Manifests at every Respite it may (it stops only when Suppressed, when none
        comes either, or for good, its Harm meter full or its HP below
        ``recall_below``): the tokens alone.
        """
        spirit = slot.spirit
        if spirit is None or spirit.manifest != "melee":
            return ""
        cost, member, params = self.params.melee_manifest_cost, slot.member, self.params
        tokens = member.tokens.momentum
        if params.manifest_momentum:
            before = max(self.max_rounds - max(slot.arrives, 1), 0)
            most = tokens + params.momentum_per_respite * before
            how = (f"tokens.momentum {tokens} + momentum_per_respite "
                   f"{params.momentum_per_respite} × {before} Respites before the last, by "
                   f"max_rounds {self.max_rounds}")  # fmt: skip
        else:
            most = tokens
            how = (f"tokens.momentum {tokens}: with manifest_momentum: false it gains none "
                   "at a Respite its Spirit Manifests")  # fmt: skip
        if most >= cost:
            return ""
        return (f"{member.name!r} can never pay melee_manifest_cost {cost} to Manifest the "
                f"Spirit {spirit.name!r} at Melee range (it holds at most {how})")  # fmt: skip

    def _engaged_said(self, slot: Slot) -> str:
        """What ``slot`` can ever be Engaged with, by entry: ``'Kaito' and the Spirit
        'Kestrel'``, or ``nobody``."""
        seen = [_said(other) for other in self.slots() if self._may_engage(slot, other)]
        names = list(dict.fromkeys(seen))
        if len(names) < 2:
            return names[0] if names else "nobody"
        return f"{', '.join(names[:-1])} and {names[-1]}"

    def _can_make(self, attack: str, engaged: bool) -> bool:
        """Whether ``attack`` can ever be made by a maker ``engaged`` or not; one not
        defined (a typo the loader names where it is) is taken as made, so that the typo
        is said alone, not as a scenario in which nobody can deal damage."""
        everyone = self.params.engagement == "everyone"
        defined = self.attacks.get(attack)
        return everyone or engaged or defined is None or defined.range == "ranged"

    def _engaged_entries(self) -> set[str]:
        """Names of the entries Engaged with some enemy at the start (either side may
        name the other: engagements are mutual)."""
        pairs = [(m.name, foe) for ms in self.sides.values() for m in ms for foe in m.engaged_with]
        return {name for pair in pairs for name in pair}

    def slots(self) -> list[Slot]:
        """Every combatant slot the kernels play, in order: each copy of an entry, its
        Spirit right after it, and the reinforcement slots of an entry with
        ``reinforce:`` (all preallocated, so the tallies keep a fixed size)."""
        out: list[Slot] = []
        for s, (side, members) in enumerate(self.sides.items()):
            for member in members:
                for k in range(member.copies):
                    suffix = "" if member.copies == 1 else f" {k + 1}"
                    arrives = 0
                    if member.reinforce is not None:
                        r = member.reinforce
                        arrives = r.from_round + k // r.per_round
                    owner = len(out)
                    out.append(Slot(s, side, member.name + suffix, member, None, -1, arrives))
                    if member.spirit is not None:
                        name = member.spirit.name + suffix
                        out.append(Slot(s, side, name, member, member.spirit, owner, arrives))
        return out

    def name_claims(self) -> list[NameClaim]:
        """Every name an entry gives, in order: its own and its copies' (``count:``, or
        ``reinforce:`` up to its cap), then its Spirit's, one per copy (:meth:`slots`)."""
        claims: list[NameClaim] = []
        for side, members in self.sides.items():
            for i, m in enumerate(members):
                how = "count" if m.reinforce is None else "reinforce cap"
                at = ("sides", side, i)
                where = f" on side {side!r}"
                claims += entry_claims(m.name, (*at, "name"), m.copies, where, how=how)
                if m.spirit is not None:
                    where = f" of {m.name!r}{where}"
                    claims += entry_claims(m.spirit.name, (*at, "spirit", "name"), m.copies,
                                          where, "Spirit", how)  # fmt: skip
        return claims

    def harmed_without_attacks(self, name: str) -> bool:
        """Whether ``name`` (or a copy, or its character's Spirit) stands in Rushing
        terrain, whose Stun past the maximum harms unattacked."""
        return any(slot.member.rushing for slot in self.slots() if copies_of(name, [slot.name]))

    def attack_makers(self) -> list[tuple[str, str, list[str]]]:
        """(side, name, attacks) of every slot of :meth:`slots`: a Spirit makes the
        attacks listed under its ``spirit:``, not its character's."""
        return [(slot.side_name, slot.name, list((slot.spirit or slot.member).attacks))
                for slot in self.slots()]  # fmt: skip

    @property
    def uses_features(self) -> list[str]:
        """The later-draft features this scenario uses (Spirits, Stances,
        Reinforcements, Sunder, declared engagements, attacks or reactions priced in
        Momentum), by name; empty for a scenario that uses none."""
        members = [m for ms in self.sides.values() for m in ms]
        found = {
            "spirits": any(m.spirit is not None for m in members),
            "stances": any(m.stances for m in members),
            "reinforcements": any(m.reinforce is not None for m in members),
            "sunder": any(m.sunder is not None for m in members),
            "engagement": self.params.engagement == "declared",
            "momentum": any(a.momentum_cost > 0 for a in self.attacks.values())
            or any(
                r is not None and r.momentum_cost > 0
                for m in members
                for r in (m.react.block, m.react.evade)
            ),
        }
        return [name for name, used in found.items() if used]


def _said(slot: Slot) -> str:
    """A slot as a message names it, by its entry: ``'Ogre'``, ``the Spirit 'Wraith'``."""
    return repr(slot.member.name) if slot.spirit is None else f"the Spirit {slot.spirit.name!r}"


def _never_manifested(slot: Slot) -> bool:
    """Whether ``slot`` is a Spirit with ``manifest: never``, never in the fight."""
    return slot.spirit is not None and slot.spirit.manifest == "never"


def _out_of_the_fight(aims: list[Slot]) -> str:
    """``the Spirit 'Shade' has manifest: never and is never in the fight`` when one of
    ``aims`` (the copies of one combatant) is such a Spirit; ``""`` otherwise."""
    never = [aim for aim in aims if _never_manifested(aim)]
    return f"{_said(never[0])} has manifest: never and is never in the fight" if never else ""


def _makes_none_why(slot: Slot, unpaid: str = "") -> str:
    """Why ``slot``, which lists attacks, makes none (:meth:`Scenario.able_makers`);
    ``unpaid``: why it never reaches Melee range, a Spirit whose character can never pay
    for it (:meth:`Scenario._unpaid_melee_why`)."""
    if _never_manifested(slot):
        return f"{_said(slot)} has manifest: never"
    why = f": {unpaid}" if unpaid else ""
    return (f"{_said(slot)} lists only Melee attacks and, under engagement: declared, is "
            f"Engaged with nobody{why}")  # fmt: skip


def _unpayable(loc: tuple[Any, ...], cost: int, most: int, how: str,
               never: str) -> ValidationError:  # fmt: skip
    """The error of a price in Momentum above the most its payer can hold."""
    return located_error(loc, f"expected a momentum_cost of at most {most}, the most Momentum "
                         f"its payer can ever hold ({how}); got {cost}: {never}",
                         cost)  # fmt: skip


class Slot(NamedTuple):
    """One combatant the kernels play: a copy of an entry, or its Spirit (``spirit`` set,
    ``owner`` the slot of its character), arriving in round ``arrives`` (0: present from
    the start)."""

    side: int
    side_name: str
    name: str
    member: Combatant
    spirit: Spirit | None
    owner: int
    arrives: int
