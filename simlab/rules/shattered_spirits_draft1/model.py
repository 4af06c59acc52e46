"""Scenario fields of ``rules: shattered-spirits-draft1`` (docs/rules/shattered-spirits-draft1.md,
seed 000).

The earlier draft keeps the later draft's profile charts, statuses, tokens and reactions,
so those models are imported from :mod:`simlab.rules.shattered_spirits.model` — the
parts both drafts read (:class:`~simlab.rules.shattered_spirits.model.AttackProfile`,
:class:`~simlab.rules.shattered_spirits.model.ThresholdReactions`), never the later
draft's additions (an attack's ``range`` and ``momentum_cost``, a reaction's
``momentum_cost``), which a Technique or a reaction here refuses as unknown keys. What
is new is here: Techniques (a profile plus an AP cost and a Speed), each combatant's
plan for a Round, Endurance and Health, Focus, Improvise and the earlier draft's
parameters.

Every [default] reading of docs/rules/shattered-spirits-draft1.md is a field of :class:`Params` with
that default, so a designer can change it in the scenario's ``params:`` block.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    Field,
    ModelWrapValidatorHandler,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core.core_schema import ValidatorFunctionWrapHandler

from simlab.errors import did_you_mean
from simlab.limits import (
    MAX_GUARD,
    MAX_HP,
    MAX_MOMENTUM_PER_ROUND,
    MAX_ROTATION,
    MAX_STATUS_SIZE,
    MAX_TOKENS,
)
from simlab.rules.shattered_spirits.model import (
    AttackProfile,
    ThresholdReactions,
    Tokens,
    parse_status,
    refuse_unpaid_reactions,
)
from simlab.scenario.common import CombatantBase, ScenarioBase, located_error
from simlab.scenario.validation import StrictModel, written

PHASES = tuple(range(1, 7))
DEFAULT_AP = 3
#: Its ``downed`` event is the down itself (Downed is out; the kernels tally both from
#: one round): its rate is the down rate (``simlab.rules.down_events``).
DOWN_EVENTS = ("downed",)


class _Known:
    """The scenario's techniques and AP budget while its sides are being validated."""

    def __init__(self, techniques: dict[str, Technique], ap_per_round: int | None) -> None:
        self.techniques = techniques
        self.ap_per_round = ap_per_round

    def listing(self) -> str:
        return ", ".join(sorted(self.techniques)) or "none defined"


_KNOWN: ContextVar[_Known | None] = ContextVar("_KNOWN", default=None)


#: The statuses the earlier draft gives a size: seed 000 has no Stun.
DRAFT_STATUSES = ("exposed", "impaired")


def _draft_status(text: str) -> str:
    """A profile status of the earlier draft, as written: as the later draft's (see
    :func:`~simlab.rules.shattered_spirits.model.parse_status`), without ``stun N``."""
    parse_status(text, DRAFT_STATUSES, " (the earlier draft has no Stun)")
    return text


#: One status of a Technique's profile row, checked where it is written.
DraftStatusText = Annotated[str, AfterValidator(_draft_status)]


class Technique(AttackProfile):
    """A Technique with a Profile (docs/rules/shattered-spirits-draft1.md; seed 000, "Making
    Attacks", "Rounds").

    The profile chart, statuses, tiers, roll and damage modifiers, ``advantage``,
    ``disadvantage`` and ``glancing`` are read as in the later draft (see
    :class:`simlab.rules.shattered_spirits.model.AttackProfile`; the later draft's
    ``range`` and ``momentum_cost`` are not keys here), with two differences:
    Advantage and Disadvantage are present or absent (several instances add nothing, see
    ``Params.advantage_with_disadvantage``), and there is no Stun in the earlier draft,
    so a ``stun N`` status is refused. ``ap`` is what the Technique costs from the
    combatant's Action Points; ``speed`` is the Phase (1–6) it resolves in.
    """

    status: dict[int, list[DraftStatusText]] = Field(default_factory=dict)
    ap: int = Field(ge=0, le=10)
    speed: int = Field(ge=1, le=6)


class DraftTokens(Tokens):
    """Starting token pools (seed 000, "Tokens"): the later draft's Grit, Reflex and
    Momentum, and Focus, which pays for fumbles (docs/rules/shattered-spirits-draft1.md "Extreme
    rolls")."""

    focus: int = Field(0, ge=0, le=MAX_TOKENS)


def _known_technique(name: str) -> str:
    known = _KNOWN.get()
    if known is not None and name not in known.techniques:
        raise ValueError(
            f"expected a technique defined under 'techniques:' ({known.listing()}); got "
            f"{name!r}{did_you_mean(name, known.techniques)}"
        )
    return name


PlanItem = Annotated[str, AfterValidator(_known_technique)]


class Improvise(StrictModel):
    """Improvise policy (docs/rules/shattered-spirits-draft1.md; seed 000, "Rounds in Shattered
    Spirits").

    At the start of every Round, if the combatant holds enough Momentum
    (``Params.improvise_cost``), it pays and uses the Technique ``use`` in place of the
    first ``replace`` of its plan for that Round. The text requires the same AP cost and
    a Speed no slower than the replaced Technique's.
    """

    replace: PlanItem
    use: PlanItem


class Combatant(CombatantBase):
    """An earlier-draft combatant (docs/rules/shattered-spirits-draft1.md; seed 000, "Health and
    Healing", "Rounds").

    ``endurance`` is lost before ``health`` and after ``vigor``; at 0 Endurance the
    combatant is Shaken, at 0 Health Downed (out of the fight). ``plan`` lists the
    Techniques it plays every Round (their AP must fit its ``ap``, default
    ``params.ap_per_round``); each resolves in the Phase of its Speed. ``improvise`` is
    an optional Improvise policy. ``guard``, ``cover``, ``roll_modifier``, ``exposed``,
    ``impaired``, ``tokens`` and ``react`` are read as in the later draft; ``tokens``
    also holds ``focus``, and a reaction is its threshold alone (no ``momentum_cost``).
    The scenario's ``attacks`` of a combatant are its plan's
    Techniques (set from ``plan``; ``attacks:`` itself is not accepted).
    """

    vigor: int = Field(0, ge=0, le=MAX_HP)
    endurance: int = Field(ge=0, le=MAX_HP)
    health: int = Field(ge=1, le=MAX_HP)
    guard: int = Field(0, ge=0, le=MAX_GUARD)
    cover: bool = False
    roll_modifier: int = Field(0, ge=-20, le=20)
    exposed: int = Field(0, ge=0, le=MAX_STATUS_SIZE)
    impaired: int = Field(0, ge=0, le=MAX_STATUS_SIZE)
    tokens: DraftTokens = DraftTokens()
    react: ThresholdReactions = ThresholdReactions()
    ap: int | None = Field(None, ge=0, le=20)
    plan: list[PlanItem] = Field(default_factory=list, max_length=MAX_ROTATION)
    improvise: Improvise | None = None
    # set from the plan, whose length is refused where it is written, and only there
    attacks: list[str] = Field(default_factory=list)

    KEYS_NOT_WRITTEN: ClassVar[tuple[str, ...]] = ("attacks",)  # set from the plan

    @model_validator(mode="before")
    @classmethod
    def _attacks_from_plan(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if "attacks" in data:
            raise ValueError(
                "expected 'plan' (the earlier draft plots Techniques each Round); got 'attacks'"
            )
        plan = data.get("plan", [])
        ok = isinstance(plan, list) and all(isinstance(x, str) for x in plan)
        return {**data, "attacks": list(plan) if ok else []}

    @field_validator("plan")
    @classmethod
    def _fits_ap(cls, plan: list[str], info: ValidationInfo) -> list[str]:
        known = _KNOWN.get()
        if known is None:
            return plan
        if "ap" not in info.data:
            return plan  # its own budget is invalid, and reported there
        budget = info.data["ap"]
        budget = known.ap_per_round if budget is None else budget
        if budget is None:
            return plan
        cost = sum(known.techniques[name].ap for name in plan)
        if cost > budget:
            spent = " + ".join(f"{name} {known.techniques[name].ap}" for name in plan)
            raise ValueError(
                f"expected a plan costing at most {budget} AP; got {cost} AP ({spent})"
            )
        return plan

    @field_validator("improvise")
    @classmethod
    def _same_cost_no_slower(
        cls, improvise: Improvise | None, info: ValidationInfo
    ) -> Improvise | None:
        known = _KNOWN.get()
        plan = info.data.get("plan")
        if improvise is None or known is None or plan is None:
            return improvise
        if improvise.replace not in plan:
            raise ValueError(
                f"expected a technique of the plan ({', '.join(plan) or 'empty'}) to "
                f"replace; got {improvise.replace!r}"
            )
        if improvise.use == improvise.replace:  # it would pay Momentum to change nothing
            raise ValueError(f"expected a technique other than {improvise.replace!r} to use "
                             f"in its place; got {improvise.use!r}")  # fmt: skip
        old, new = known.techniques[improvise.replace], known.techniques[improvise.use]
        if new.ap != old.ap or new.speed > old.speed:
            raise ValueError(
                f"expected a technique costing {old.ap} AP with speed {old.speed} or faster "
                f"to replace {improvise.replace!r}; got {improvise.use!r} "
                f"({new.ap} AP, speed {new.speed})"
            )
        return improvise

    @property
    def attacks_per_turn(self) -> int:
        """Attacks per Round (one per Technique of the plan); read by the exact engine's
        estimate of a duel's length."""
        return len(self.plan)


class Params(StrictModel):
    """Rule parameters of the earlier draft (docs/rules/shattered-spirits-draft1.md), each
    overridable.

    Values the text states are parameters too, so that a designer can try another
    number; they are marked (text). The others are [default] readings.

    ap_per_round
        Action Points each combatant spends on its plan every Round (text: 3).
    advantage_with_disadvantage
        What an attack with both Advantage and Disadvantage rolls: ``cancel`` (2d6),
        ``advantage`` or ``disadvantage`` (3d6 keeping the highest / lowest two).
        Instances never stack into a Bonus or Penalty.
    overflow_damage
        Damage added when the modified roll is above 12 and row 12 deals damage (text: 2).
    fumble_tokens
        How a fumble (modified roll below 2) is paid: ``focus-first`` (Focus, else
        Momentum), ``momentum-first``, or ``none`` (never paid: always the penalty).
    fumble_cost
        Tokens a fumble costs (text: 1).
    fumble_exposed
        Exposed the attacker gains when it cannot (or does not) pay for a fumble (the
        Spirit Master's choice among Disarmed, Exposed 2 and Prone; only Exposed changes
        the numbers). 0 turns the penalty off.
    exposed_per_level, impaired_per_level
        Damage added per level of Exposed on the target (step 4 of the damage order) /
        removed per level of Impaired on the attacker (with the modifiers, step 2).
    glancing_divisor
        Glancing divides damage by this, rounding up (step 3).
    cover_guard
        Guard Cover adds when the attack is already Glancing (text: 2).
    endurance_overflow
        Damage beyond the last point of Endurance goes on to Health (false: it is lost).
    shaken_roll_modifier
        Added to the attack rolls of a Shaken combatant (0: Shaken is only reported).
    reaction_cost
        Tokens paid for one Block (Grit) or Evade (Reflex).
    momentum_per_refresh
        Momentum each combatant still in the fight gains at every Refresh. Seed 000 has
        Momentum come from Stances and Styles, which a scenario does not model, so by
        default none: a scenario whose Stances grant Momentum says how much.
    improvise_cost
        Momentum an Improvise costs (text: 2).
    statuses_last
        How long Exposed/Impaired gained in the fight (profiles, fumbles) last: ``round``
        (until the end of the Round) or ``encounter``.
    round_start
        Who takes the first Turn of a Round's first Phase with Turns: ``carry`` (the side
        that did not act last, as between any two Phases; players start the fight) or
        ``players`` (the first listed side, every Round).
    """

    ap_per_round: int = Field(DEFAULT_AP, ge=0, le=20)
    advantage_with_disadvantage: Literal["cancel", "advantage", "disadvantage"] = "cancel"
    overflow_damage: int = Field(2, ge=0, le=100)
    fumble_tokens: Literal["focus-first", "momentum-first", "none"] = "focus-first"
    fumble_cost: int = Field(1, ge=0, le=10)
    fumble_exposed: int = Field(2, ge=0, le=MAX_STATUS_SIZE)
    exposed_per_level: int = Field(1, ge=0, le=10)
    impaired_per_level: int = Field(1, ge=0, le=10)
    glancing_divisor: int = Field(2, ge=1, le=10)
    cover_guard: int = Field(2, ge=0, le=MAX_GUARD)
    endurance_overflow: bool = True
    shaken_roll_modifier: int = Field(0, ge=-20, le=20)
    reaction_cost: int = Field(1, ge=0, le=10)
    momentum_per_refresh: int = Field(0, ge=0, le=MAX_MOMENTUM_PER_ROUND)
    improvise_cost: int = Field(2, ge=0, le=10)
    statuses_last: Literal["round", "encounter"] = "round"
    round_start: Literal["carry", "players"] = "carry"


class Scenario(ScenarioBase):
    """A scenario under ``rules: shattered-spirits-draft1``.

    Sides are listed players first: the first listed side takes the first Turn of the
    fight (docs/rules/shattered-spirits-draft1.md "Rounds"). ``techniques`` replaces the later
    draft's ``attacks``; :attr:`attacks` gives the same mapping to the engine's shared code.
    """

    rules: Literal["shattered-spirits-draft1"]
    params: Params = Params()
    techniques: dict[str, Technique]
    sides: dict[str, list[Combatant]]

    DAMAGE_SOURCES: ClassVar[str] = "a combatant with a plan of Techniques"
    MADE_BY: ClassVar[str] = "a technique some combatant's 'plan:' or 'improvise:' plays"
    KEYS_ELSEWHERE: ClassVar[dict[str, str]] = {"attacks": "techniques"}

    @property
    def attacks(self) -> dict[str, Technique]:
        """The Techniques: every Technique has a profile, so each is an attack."""
        return self.techniques

    @field_validator("sides", mode="wrap")
    @classmethod
    def _plans_know_techniques(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        """Validate the sides knowing the techniques and the AP budget, to check plans."""
        techniques = info.data.get("techniques")
        params = info.data.get("params")
        known = None
        if techniques is not None:
            # Invalid params are reported on their own; skip the budget check then.
            ap = params.ap_per_round if isinstance(params, Params) else None
            known = _Known(techniques, ap)
        token = _KNOWN.set(known)
        try:
            return handler(value)
        finally:
            _KNOWN.reset(token)

    @model_validator(mode="wrap")
    @classmethod
    def _paid_reactions(
        cls, data: Any, handler: ModelWrapValidatorHandler[Scenario], info: ValidationInfo
    ) -> Scenario:
        """Every reaction written can be paid for: Grit and Reflex are only spent during
        a fight, as in the later draft (:func:`refuse_unpaid_reactions`)."""
        self = handler(data)
        refuse_unpaid_reactions(self, data, info)
        self._refuse_unpaid_improvise(data, info)
        return self

    def _refuse_unpaid_improvise(self, data: Any, info: ValidationInfo) -> None:
        """Refuse an ``improvise:`` policy its combatant can never pay for, where it is
        written: Momentum comes only from ``tokens: {momentum: N}`` and
        ``params.momentum_per_refresh`` (docs/rules/shattered-spirits-draft1.md), so with
        neither reaching ``improvise_cost`` the policy never played its Technique, and
        the run said nothing. An override of the tokens or the params may leave it
        unpaid (:func:`written`)."""
        cost, gained = self.params.improvise_cost, self.params.momentum_per_refresh
        for side, members in self.sides.items():
            for i, member in enumerate(members):
                where = ("sides", side, i, "improvise")
                held = member.tokens.momentum
                if (member.improvise is None or gained > 0 or held >= cost
                        or not written(info, data, where)):  # fmt: skip
                    continue
                raise located_error(where, f"expected tokens.momentum of at least {cost} "
                                    "(improvise_cost) or params.momentum_per_refresh above 0; "
                                    f"got tokens.momentum {held} and momentum_per_refresh 0: "
                                    f"{member.name!r} could never Improvise",
                                    member.improvise)  # fmt: skip

    def attack_makers(self) -> list[tuple[str, str, list[str]]]:
        """(side, name, Techniques) of every combatant, ``count:`` copies apart: its plan,
        then the Technique its Improvise policy plays in place of one of them (seed 000,
        "Rounds in Shattered Spirits"), which it makes in the Rounds it Improvises."""
        out = super().attack_makers()
        members = [m for ms in self.sides.values() for m in ms for _ in range(m.count)]
        for (_, _, attacks), member in zip(out, members, strict=True):
            if member.improvise is not None and member.improvise.use not in attacks:
                attacks.append(member.improvise.use)
        return out
