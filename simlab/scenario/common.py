"""The parts of a scenario every rule system shares.

A scenario names its rule system (``rules:``), the sample size and seed, the round cap,
its attacks and its sides. Each rule system subclasses these models with its own attack
and combatant fields (``simlab/rules/<system>/model.py``); everything here is validated
the same way for all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

from pydantic import (
    AfterValidator,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from simlab.errors import InputError, did_you_mean
from simlab.limits import (
    MAX_COMBATANTS,
    MAX_DAMAGE_AT_LEAST,
    MAX_ENCOUNTERS,
    MAX_ROTATION,
    MAX_ROUNDS,
    MAX_SEED,
)
from simlab.rules import has_crits
from simlab.scenario.validation import StrictModel, as_written, cut_at, written_at

TargetPolicy = Literal["focus", "random", "lowest-hp"]
TARGET_POLICIES: tuple[str, ...] = ("focus", "random", "lowest-hp")
# Codes the kernels use for the policies (simlab.engine.encounter).
POLICY_CODE = {name: code for code, name in enumerate(TARGET_POLICIES)}


def _without_edge_spaces(name: str) -> str:
    """A name as given, refused when it starts or ends with a space: ``"Raider 2 "`` beside
    the copy ``Raider 2`` of ``count: 2`` was another name, and the tables then showed
    two rows named alike that nothing told apart."""
    if name != name.strip():
        raise ValueError(f"expected a name without spaces at its start or end; got {name!r}")
    return name


#: A combatant's (or a Spirit's, a Stance's) name: 1 to 60 characters, no space at either
#: end.
Name = Annotated[str, Field(min_length=1, max_length=60), AfterValidator(_without_edge_spaces)]


class CombatantBase(StrictModel):
    """Fields every combatant has, whatever the rule system.

    ``name`` is its own (no other combatant, nor a copy, may have it; checked by
    ``ScenarioBase``); ``count`` makes that many copies, named ``Name 1``, ``Name 2``, …;
    ``attacks`` lists attack names from the scenario's ``attacks:`` used in rotation, one
    per attack made; ``target`` is the targeting policy (README, "Scenarios" and "Output
    files"): ``focus`` (first standing enemy in listed order; default), ``random`` or
    ``lowest-hp``.
    """

    name: Name
    count: int = Field(1, ge=1, le=MAX_COMBATANTS)
    attacks: list[str] = Field(default_factory=list, max_length=MAX_ROTATION)
    target: TargetPolicy = "focus"


# -- balance specs (`expect:`) and drift tolerances (`drift_tolerance:`) -----------------

#: Figures an ``expect:`` entry can name, by what they are measured on.
ATTACK_FIGURES = ("hit_rate", "crit_rate", "mean_damage", "damage_at_least")
COMBATANT_FIGURES = ("down_rate", "down_by_round", "median_time_to_down", "event_rate")
SIDE_FIGURES = ("win_rate",)
SCENARIO_FIGURES = ("draw_rate", "mean_rounds")
#: Figures of a combatant's going down: of one that can (:meth:`ScenarioBase.down_problem`).
DOWN_SPEC_FIGURES = ("down_rate", "down_by_round", "median_time_to_down")
#: Figures that are shares (of attacks or encounters), from 0 to 1.
RATE_FIGURES = ("hit_rate", "crit_rate", "damage_at_least", "down_rate", "down_by_round",
                "event_rate", "win_rate", "draw_rate")  # fmt: skip
SpecFigure = Literal[
    "hit_rate", "crit_rate", "mean_damage", "damage_at_least",
    "down_rate", "down_by_round", "median_time_to_down", "event_rate",
    "win_rate", "draw_rate", "mean_rounds",
]  # fmt: skip
_SUBJECT_KEYS = ("attack", "attacker", "defender", "combatant", "side", "damage", "round", "event")
# Keys each figure needs (first tuple) and may have (second), besides the bound.
_FIGURE_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **{f: (("attack",), ("attacker", "defender")) for f in ATTACK_FIGURES},
    "damage_at_least": (("attack", "damage"), ("attacker", "defender")),
    **{f: (("combatant",), ()) for f in COMBATANT_FIGURES},
    "down_by_round": (("combatant", "round"), ()),
    "event_rate": (("combatant", "event"), ()),
    "win_rate": (("side",), ()),
    **{f: ((), ()) for f in SCENARIO_FIGURES},
}


# What each kind of figure is measured on, as a wrong subject's message says it.
_FIGURE_IS = {
    **{f: "it is a figure of one attack's rolls" for f in ATTACK_FIGURES},
    **{f: "it is a figure of one combatant" for f in COMBATANT_FIGURES},
    **{f: "it is a figure of one side" for f in SIDE_FIGURES},
    **{f: "it is one figure of the whole fight" for f in SCENARIO_FIGURES},
}
_SUBJECT_WORDS = {"attack": "an attack", "combatant": "a combatant", "side": "a side",
                  "damage": "a damage threshold", "round": "a round",
                  "event": "an event"}  # fmt: skip


def _stray_subject(figure: str, key: str, value: Any) -> str:
    """The message for ``key: value`` in an ``expect:`` entry whose ``figure`` takes no
    such key: ``expected only a side for 'win_rate' (it is a figure of one side); got
    attack: quick-jab``."""
    needed, optional = _FIGURE_KEYS[figure]
    subjects = " and ".join(_SUBJECT_WORDS[k] for k in needed)
    wanted = f"only {subjects}" if needed else "no subject"
    if optional:
        wanted += f" (narrowed by {' or '.join(optional)})"
    message = f"expected {wanted} for {figure!r} ({_FIGURE_IS[figure]}); got {key}: {value}"
    if key == "combatant" and "attacker" in optional:
        message += f" (for the attacks {value} makes or takes, write attacker: or defender:)"
    return message


def located_error(loc: tuple[Any, ...], message: str, value: Any) -> ValidationError:
    """A validation error at ``loc`` (relative to the model being validated).

    Raised from a model validator, pydantic places it under that model's own location,
    so the scenario loader reports it as ``file:line:col: message`` at the offending key.
    """
    return located_errors([(loc, message, value)])


def located_errors(errors: list[tuple[tuple[Any, ...], str, Any]]) -> ValidationError:
    """A validation error with a problem at each ``(loc, message, value)`` of ``errors``
    (as :func:`located_error`), for a check that finds several at once."""
    details = []
    for loc, message, value in errors:
        error = PydanticCustomError("value_error", "{message}", {"message": message})
        details.append(InitErrorDetails(type=error, loc=loc, input=value))
    return ValidationError.from_exception_data("scenario", details)


def _bounds_at(key: str, value: Any) -> list[tuple[tuple[Any, ...], float | None]]:
    """The bounds of an ``expect:`` spec's ``key`` with where each is written (relative to
    the spec): ``at_least: 0.5`` at ``("at_least",)``, the ends of ``between: [a, b]`` at
    ``("between", 0)`` and ``("between", 1)``."""
    if isinstance(value, list):
        return [((key, i), bound) for i, bound in enumerate(value)]
    return [((key,), value)]


#: A bound of an ``expect:`` spec: a finite number (``.nan`` would fail every check, and
#: ``.inf`` pass or fail every one, whatever was measured).
Bound = Annotated[float, Field(allow_inf_nan=False)]


class Expectation(StrictModel):
    """One balance spec of an ``expect:`` list, checked by ``simlab check``.

    ``figure`` names what is measured; ``attack`` (optionally narrowed by ``attacker``
    and ``defender``), ``combatant`` or ``side`` say on what; ``damage`` is the X of
    ``damage_at_least`` (P(damage ≥ X) per attack), ``round`` the r of
    ``down_by_round`` (P(Downed by the end of round r)), ``event`` the rule event of
    ``event_rate`` (e.g. ``out``, ``dead``). The bound is exactly one of ``at_least``,
    ``at_most`` or ``between: [low, high]``. A name given with ``count:`` covers all of
    its copies, pooled. ``note`` is the designer's own words, shown with the verdict.
    """

    figure: SpecFigure
    attack: str | None = None
    attacker: str | None = None
    defender: str | None = None
    combatant: str | None = None
    side: str | None = None
    # P(damage ≥ 0) is 1 on every attack: a spec of it could never fail
    damage: int | None = Field(None, ge=1, le=MAX_DAMAGE_AT_LEAST)
    round: int | None = Field(None, ge=1, le=MAX_ROUNDS)
    event: str | None = None
    at_least: Bound | None = None
    at_most: Bound | None = None
    between: list[Bound] | None = Field(None, min_length=2, max_length=2)
    note: str = Field("", max_length=200)

    @model_validator(mode="after")
    def _shape(self) -> Expectation:
        bounds = [k for k in ("at_least", "at_most", "between") if getattr(self, k) is not None]
        if len(bounds) != 1:
            got = ", ".join(bounds) if bounds else "none"
            raise located_error((), "expected exactly one of at_least, at_most, between; "
                                f"got {got}", None)  # fmt: skip
        if self.between is not None and self.between[0] > self.between[1]:
            low, high = self.between
            raise located_error(("between",), "expected [low, high] with low ≤ high; got "
                                f"[{low:g}, {high:g}]", self.between)  # fmt: skip
        if self.figure in RATE_FIGURES:  # beyond, it could never fail (at_most: 60 for 60%)
            self._refuse_bounds(lambda bound: not 0 <= bound <= 1, "from 0 to 1 for the rate "
                                f"{self.figure!r} (0.6 for 60%)")  # fmt: skip
        if self.figure == "mean_damage":  # below 0, it could never fail (at_least: -1)
            self._refuse_bounds(lambda bound: bound < 0, f"of 0 or more for {self.figure!r} "
                                "(damage is never below 0)")  # fmt: skip
        needed, optional = _FIGURE_KEYS[self.figure]
        for key in needed:
            if getattr(self, key) is None:
                raise located_error((), f"expected key {key!r} for figure {self.figure!r}; "
                                    "got nothing", None)  # fmt: skip
        for key in _SUBJECT_KEYS:
            value = getattr(self, key)
            if value is not None and key not in needed + optional:
                # pydantic's mark of a key: the loader places the error at `side:`, not `hero`
                where = (key, "[key]")
                raise located_error(where, _stray_subject(self.figure, key, value), value)
        return self

    def _refuse_bounds(self, outside: Callable[[float], bool], allowed: str) -> None:
        """Refuse each bound of the spec that ``outside`` says lies beyond what its
        figure can be (``allowed``: ``from 0 to 1 for the rate 'hit_rate' (…)``), where it
        is written: both ends of a ``between:`` at their own items. Such a spec could
        never fail, or never pass, whatever was measured."""
        bad = [
            (loc, f"expected a bound {allowed}; got {bound:g}", bound)
            for key in ("at_least", "at_most", "between")
            for loc, bound in _bounds_at(key, getattr(self, key))
            if bound is not None and outside(bound)
        ]
        if bad:
            raise located_errors(bad)

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high) of the accepted range; ``±inf`` for an open end."""
        if self.between is not None:
            return float(self.between[0]), float(self.between[1])
        if self.at_least is not None:
            return float(self.at_least), float("inf")
        return float("-inf"), float(self.at_most)  # type: ignore[arg-type]


class DriftTolerance(StrictModel):
    """Practical tolerances of the nightly drift gate (``drift_tolerance:``).

    A figure drifts only when it is statistically different from the baseline *and*
    its change reaches the tolerance of its kind: ``rate`` (absolute change of a
    probability; 0.02), ``pmf`` (total variation distance between two distributions:
    damage, time-to-down, encounter length; 0.05), ``mean`` (change of a mean relative
    to max(|baseline|, 1); 0.05), ``median`` (change of a median in rounds; 1).
    """

    rate: float = Field(0.02, ge=0, le=1)
    pmf: float = Field(0.05, ge=0, le=1)
    mean: float = Field(0.05, ge=0, le=1000)
    median: float = Field(1.0, ge=0, le=1000)


class NameClaim(NamedTuple):
    """A name a scenario entry gives a combatant: ``loc`` is the entry's ``name:``,
    ``who`` says which combatant bears it (``copy 2 of 'Goblin' (count: 3) on side 'b'``);
    ``copies`` is the entry's count on the claim of its own name (1 on every other)."""

    name: str
    loc: tuple[Any, ...]
    who: str
    copies: int = 1


def entry_claims(name: str, loc: tuple[Any, ...], copies: int, where: str,
                kind: str = "combatant", how: str = "count") -> list[NameClaim]:  # fmt: skip
    """The names one entry gives: its own, and with ``copies`` > 1 those of its copies,
    ``Name 1``, ``Name 2``, … (README, "Scenarios"); ``where`` ends each description
    (`` on side 'b'``), ``how`` names what sets the copies (``count``)."""
    if copies == 1:
        return [NameClaim(name, loc, f"the {kind} {name!r}{where}")]
    entry = f"{name!r} ({how}: {copies})"
    copied = [NameClaim(f"{name} {k}", loc, f"copy {k} of {entry}{where}")
              for k in range(1, copies + 1)]  # fmt: skip
    return [NameClaim(name, loc, f"the {kind} entry {entry}{where}", copies), *copied]


def lookalike_problem(claims: list[NameClaim], name: str) -> str | None:
    """What is wrong with ``name`` when it designates the copies of a ``count:`` entry
    (``Orc``, count: 2) and a combatant of its own reads as one more copy (``Orc 3``):
    figures, which tell copies by their names, would pool it with them. None when
    ``name`` designates only what it says."""
    entry = next((c for c in claims if c.name == name), None)
    if entry is None or entry.copies == 1:
        return None
    copies = {f"{name} {k}" for k in range(1, entry.copies + 1)}
    others = [c for c in claims if c.name not in copies | {name} and copies_of(name, [c.name])]
    if not others:
        return None
    return (f"expected a name that designates only the copies of {entry.who}; got "
            f"{name!r}, which would pool {others[0].who} with them (rename "
            f"{others[0].name!r}: '{name} N' reads as a copy)")  # fmt: skip


def _clash(claim: NameClaim, first: NameClaim, info: ValidationInfo) -> str:
    """``the combatant 'Brute' on side 'a' twice (the first at 8:14)`` for two entries
    alike, else ``'Kaito' for the combatant 'Kaito' on side 'b', already the name of the
    combatant 'Kaito' on side 'a' (at 7:14)``: what ``claim`` clashes with, and where,
    saying when a ' #' cut the first name short there and not the clashing one, which
    the message is located at (:func:`cut_at`)."""
    at = written_at(info, first.loc)
    cut = "" if cut_at(info, claim.loc, claim.name) else cut_at(info, first.loc, first.name)
    if claim.who == first.who:
        return f"{claim.who} twice" + (f" (the first at {at}{cut})" if at else "")
    return (f"{claim.name!r} for {claim.who}, already the name of {first.who}"
            + (f" (at {at}{cut})" if at else ""))  # fmt: skip


def copies_of(name: str, names: list[str]) -> list[str]:
    """Combatant names ``name`` designates among ``names``: itself, or its ``count:``
    copies (``Orc`` designates ``Orc 1``, ``Orc 2``)."""
    if name in names:
        return [name]
    pattern = re.compile(rf"{re.escape(name)} \d+")
    return [n for n in names if pattern.fullmatch(n)]


#: The name the outcome tables give their row of draws, which no side may have.
DRAW = "draw"


class ScenarioBase(StrictModel):
    """Fields every scenario has; rule systems add ``attacks``, ``sides`` and ``params``."""

    scenario: str = Field(min_length=1, max_length=100)
    rules: str
    description: str = ""
    encounters: int = Field(100_000, ge=1, le=MAX_ENCOUNTERS)
    seed: int = Field(0, ge=0, le=MAX_SEED)
    max_rounds: int = Field(30, ge=1, le=MAX_ROUNDS)
    precision: float | None = Field(None, gt=0, le=1)
    expect: list[Expectation] = Field(default_factory=list, max_length=500)
    drift_tolerance: DriftTolerance = Field(default_factory=DriftTolerance)

    _source: Any = PrivateAttr(default=None)
    #: The scenario this one was made from and the overrides that made it, as spelled
    #: (one :func:`simlab.override` step), for :attr:`idle_overrides`; None as loaded.
    _made_from: Any = PrivateAttr(default=None)

    @field_validator("sides", check_fields=False)
    @classmethod
    def _two_sides(cls, sides: dict[str, list[Any]]) -> dict[str, list[Any]]:
        if len(sides) < 2:
            raise ValueError(f"expected at least 2 sides; got {len(sides)}")
        total = sum(c.count for members in sides.values() for c in members)
        if total > MAX_COMBATANTS:
            raise ValueError(f"expected at most {MAX_COMBATANTS} combatants; got {total}")
        return sides

    @model_validator(mode="after")
    def _sides_have_combatants(self) -> Any:
        """Every side has at least one combatant: an empty one would lose every fight
        before it starts (the shared model's sides are groups of combatants). No side is
        named ``draw``: the outcome tables name their row of draws so."""
        sides: dict[str, list[Any]] = getattr(self, "sides", {})
        for name, members in sides.items():
            if name == DRAW:
                raise located_error(("sides", name), f"expected a side name other than "
                                    f"{DRAW!r} (the outcome tables' row of draws); got "
                                    f"{name!r}", members)  # fmt: skip
            if not members:
                raise located_error(("sides", name), f"expected at least 1 combatant on "
                                    f"side {name!r}; got none", members)  # fmt: skip
        return self

    @model_validator(mode="after")
    def _distinct_names(self, info: ValidationInfo) -> Any:
        """Every combatant has a name of its own once ``count:`` copies are named (README,
        "Scenarios"): tables, traces, ``expect:`` and ``--set`` tell combatants apart by
        name alone. A clash is reported at the later entry's ``name:``, saying where the
        first is (:func:`written_at`), as a key written twice is."""
        seen: dict[str, NameClaim] = {}
        for claim in self.name_claims():
            first = seen.setdefault(claim.name, claim)
            if first.loc != claim.loc:
                raise located_error(claim.loc, "expected every combatant name once (copies "
                                    f"of count: included); got {_clash(claim, first, info)}",
                                    claim.name)  # fmt: skip
        return self

    def pooling_problem(self, name: str) -> str | None:
        """What is wrong with ``name`` as the subject of a figure: it would pool a
        combatant of its own with the copies it designates (:func:`lookalike_problem`);
        None when it designates only what it says."""
        return lookalike_problem(self.name_claims(), name)

    def attack_problem(self, attack: str, defender: str | None = None) -> str | None:
        """What is wrong with a figure of ``attack`` (at ``defender``, when named): no
        combatant makes it (:meth:`unmade_problem`), or ``defender`` is on the side of
        everyone who does, so the figure could never be measured. None when the attack
        can be made so."""
        makers = self.able_makers()
        unmade = self.unmade_problem(attack, makers)
        if unmade is not None or defender is None:
            return unmade
        return self.target_problem(attack, None, defender, makers)

    def target_problem(self, attack: str, attacker: str | None, defender: str,
                       makers: list[Maker]) -> str | None:  # fmt: skip
        """What is wrong with a figure of ``attack`` (made by ``attacker``'s copies, when
        named) at ``defender``: no maker of it can ever make it at ``defender`` or one of
        its copies (:meth:`attackers_of`; ``makers``: :meth:`able_makers`), saying why.
        None when one can."""
        targets = copies_of(defender, [name for _, name, _ in makers])
        for target in targets:
            if _attacking_sides(attack, attacker, self.attackers_of(target, makers)):
                return None
        sides = {side for side, name, _ in makers if name in targets}
        if not targets or _attacking_sides(attack, attacker, makers) <= sides:
            return _no_target(attack, defender) + self.listed_unmade_why(attack, attacker, sides)
        making = [maker for maker in makers if _attacking_sides(attack, attacker, [maker])]
        return (f"expected a combatant that {attack!r} can target; got {defender!r}"
                f"{self.untargeted_why(attack, targets, making)}")  # fmt: skip

    #: What makes an attack in these rules, for the message of one nobody makes.
    MADE_BY: ClassVar[str] = "an attack some combatant lists under 'attacks:'"

    def unmade_problem(self, attack: str, makers: list[Maker] | None = None) -> str | None:
        """What is wrong with a figure of ``attack`` when no combatant ever makes it
        (``makers``: :meth:`able_makers`, worked out when not given): ``'strike' is made
        by no combatant: expected an attack some combatant lists under 'attacks:' (jab);
        got 'strike'``; None when some combatant makes it. Said before anything it
        causes (no attacker, no defender it could target)."""
        makers = self.able_makers() if makers is None else makers
        made = [name for name in getattr(self, "attacks", {})
                if _attacking_sides(name, None, makers)]  # fmt: skip
        if attack in made:
            return None
        return (
            f"{attack!r} is made by no combatant: expected {self.MADE_BY} "
            f"({', '.join(made) or 'none'}); got {attack!r}{self.never_made_why(attack)}"
        )

    def able_makers(self) -> list[Maker]:
        """(side, name, attacks) of :meth:`attack_makers` with only the attacks each can
        ever make: here every one it lists; a rule system in which a listed attack may
        never be made (a Spirit never Manifested, a Melee attack with nobody Engaged)
        says so in its own."""
        return self.attack_makers()

    def never_made_why(self, attack: str) -> str:
        """Why ``attack``, which some combatant lists, is never made (``, listed only by
        …``), for :meth:`unmade_problem`; ``""`` here, where a listed attack is made."""
        return ""

    def listed_unmade_why(self, attack: str, attacker: str | None, sides: set[str]) -> str:
        """Why the combatants off ``sides`` (``attacker``'s copies only, when named) that
        list ``attack`` never make it (``: the Spirit 'Wraith' lists 'club' but never
        makes it: …``), for a spec refused because none of them is its attacker
        (:meth:`target_problem`, the ``attacker`` check); ``""`` here, where a listed
        attack is made."""
        return ""

    def down_problem(self, name: str, makers: list[Maker] | None = None) -> str | None:
        """What is wrong with a time-to-down or down rate of ``name`` (or its copies):
        no one on another side makes an attack (``makers``: :meth:`able_makers`, worked
        out when not given; one listed but never made counts for none) and nothing else
        harms it (a status or terrain, :meth:`harmed_without_attacks`), so it never goes
        down. None when it can."""
        why = self.never_down_why(name, makers)
        if why is None:
            return None
        return f"expected a combatant that can go down; got {name!r}: {why}"

    def never_down_why(self, name: str, makers: list[Maker] | None = None) -> str | None:
        """Why ``name`` (or its copies) never goes down, :meth:`down_problem`'s reason
        (``no one attacks it (…), so it never does``); None when it can."""
        makers = self.able_makers() if makers is None else makers
        targets = copies_of(name, [maker for _, maker, _ in makers])
        if any(self.attackers_of(target, makers) for target in targets):
            return None
        if not targets or self.harmed_without_attacks(name):
            return None  # a name the layout checks, or harm that needs no attacker
        return f"no one attacks it ({self.unattacked_why(targets, makers)}), so it never does"

    def attackers_of(self, target: str, makers: list[Maker] | None = None) -> list[Maker]:
        """(side, name, attacks) of the makers that can ever attack the combatant named
        ``target`` (one of them, a copy as ``Orc 2``), each with only the attacks it can
        make at it, and none that has none (``makers``: :meth:`able_makers`, worked out
        when not given): here every maker on another side, with every attack it makes; a
        rule system in which an attack reaches only some enemies (shattered-spirits'
        declared engagements) says so in its own."""
        makers = self.able_makers() if makers is None else makers
        sides = {side for side, name, _ in makers if name == target}
        return [maker for maker in makers if maker[2] and maker[0] not in sides]

    def unattacked_why(self, targets: list[str], makers: list[Maker]) -> str:
        """Why none of ``makers`` (:meth:`able_makers`) ever attacks ``targets`` (the
        copies of one combatant), for :meth:`down_problem`: here ``nobody on another side
        makes an attack``, and why those that list some make none
        (:meth:`never_attacks_why`)."""
        sides = {side for side, name, _ in makers if name in targets}
        return f"nobody on another side makes an attack{self.never_attacks_why(sides)}"

    def untargeted_why(self, attack: str, targets: list[str], makers: list[Maker]) -> str:
        """Why the makers of ``attack`` among ``makers`` (those :meth:`target_problem` asks
        of) on another side than ``targets`` never make it at them (``: …``); ``""`` here,
        where an attack is made at every enemy."""
        return ""

    def never_attacks_why(self, sides: set[str]) -> str:
        """Why the combatants of every side but ``sides`` that list attacks make none
        (``: the Spirit 'Ghost' has manifest: never``), for :meth:`down_problem`; ``""``
        here, where a listed attack is made."""
        return ""

    def harmed_without_attacks(self, name: str) -> bool:
        """Whether ``name`` (or one of its copies) can take damage no attack deals: here
        never; rule systems with damaging statuses or terrain say when in their own."""
        return False

    def attack_makers(self) -> list[tuple[str, str, list[str]]]:
        """(side, name, attacks) of every combatant, ``count:`` copies apart (``Orc 1``,
        ``Orc 2``), in order; a rule system whose combatants are not one per copy of an
        entry, or make attacks listed elsewhere (Shattered Spirits' Spirits and
        reinforcements), says so in its own."""
        out: list[tuple[str, str, list[str]]] = []
        for side, members in self.sides.items():  # type: ignore[attr-defined]
            for m in members:
                names = [m.name] if m.count == 1 else [f"{m.name} {k + 1}" for k in range(m.count)]
                out += [(side, name, list(m.attacks)) for name in names]
        return out

    def copy_groups(self) -> dict[str, list[str]]:
        """The copies of every entry that makes several (``count:``, and in
        shattered-spirits a reinforcement's cap and the Spirits of copies): entry name →
        its copies' names, ``{"Orc": ["Orc 1", "Orc 2"]}``. Figures pool copies by these
        entries, never by a name that merely reads as a copy (``Orc 3`` listed apart)."""
        return {claim.name: [f"{claim.name} {k}" for k in range(1, claim.copies + 1)]
                for claim in self.name_claims() if claim.copies > 1}  # fmt: skip

    def name_claims(self) -> list[NameClaim]:
        """Every name the combatant entries give, in order (see :func:`entry_claims`)."""
        claims: list[NameClaim] = []
        for side, members in self.sides.items():  # type: ignore[attr-defined]
            for i, m in enumerate(members):
                where = f" on side {side!r}"
                claims += entry_claims(m.name, ("sides", side, i, "name"), m.count, where)
        return claims

    def _attack_key(self) -> str:
        """What an attack's name must be, as a message says it: ``an attack defined
        under 'attacks:'``, or in a system whose attacks are written under another key
        (``KEYS_ELSEWHERE``: the earlier draft's ``techniques:``), that key's."""
        key = self.KEYS_ELSEWHERE.get("attacks", "attacks")
        noun = "an attack" if key == "attacks" else f"a {key.removesuffix('s')}"
        return f"{noun} defined under '{key}:'"

    @model_validator(mode="after")
    def _expect_references(self) -> Any:
        """Every name an ``expect:`` entry uses must exist in the scenario."""
        if not self.expect:
            return self
        # who can make what is unknown until the loader names a typo in an attacks list
        undefined = _lists_undefined(self.attack_makers(), getattr(self, "attacks", {}))
        known = self._spec_names(able=not undefined)
        for i, spec in enumerate(self.expect):
            problem = self._reference_problem(spec, known)
            if problem is not None:
                key, message, value = problem
                raise located_error(("expect", i, key), message, value)
        return self

    def spec_problem(self, spec: Expectation) -> SpecProblem | None:
        """What is wrong with ``spec`` as an ``expect:`` entry of this scenario, checked
        as the entries of its file are when it loads (the names it uses, who makes its
        attack at whom, its round and bounds within the round cap, a combatant that can
        go down): ``(key, message, value)``, the key at fault with what was expected and
        what was found; None when nothing is. For a spec given apart from the file
        (:func:`simlab.analysis.specs.evaluate` with a dict).

        Parameters
        ----------
        spec : Expectation
            The spec, validated on its own.

        Returns
        -------
        SpecProblem or None
            The first problem found, in the order the loader finds them.
        """
        known = self._spec_names(able=True)
        problem = (self._reference_problem(spec, known) or self._round_problem(spec)
                   or self._bound_problem(spec))  # fmt: skip
        if problem is None and spec.figure in DOWN_SPEC_FIGURES and spec.combatant is not None:
            down = self.down_problem(spec.combatant, known.able)
            problem = None if down is None else SpecProblem("combatant", down, spec.combatant)
        return problem or self.crit_spec_problem(spec)

    def crit_spec_problem(self, spec: Expectation) -> SpecProblem | None:
        """What is wrong with a ``crit_rate`` spec none of whose pairs can crit
        (:func:`simlab.tuning.figures.crit_problem`: its profile has no crit row…) and
        whose bound a rate of 0 does not meet (``at_least: 0.05``): a rate that is 0
        whatever is changed never meets it. A bound 0 meets (``at_most: 0``) is kept: it
        guards that the attack never crits, and fails once a crit row is added. None for
        any other spec. Asked once the scenario's names are known good (the loader's
        second phase, :meth:`spec_problem`).

        Parameters
        ----------
        spec : Expectation
            The spec, its names checked.

        Returns
        -------
        SpecProblem or None
            At the spec's ``attack``.
        """
        if spec.figure != "crit_rate" or spec.attack is None or _zero_meets(spec):
            return None
        from simlab.tuning.figures import crit_problem

        problem = crit_problem(self, spec.attack, spec.attacker, spec.defender)
        return None if problem is None else SpecProblem("attack", problem, spec.attack)

    def _spec_names(self, able: bool) -> _SpecNames:
        """What the checks of an ``expect:`` entry look names up in; ``able``: whether to
        work out who can make what (:meth:`able_makers`; not while an attacks list names
        an attack that is not defined)."""
        makers = self.attack_makers()
        sides: dict[str, list[Any]] = getattr(self, "sides", {})
        return _SpecNames(
            attacks=list(getattr(self, "attacks", {})),
            sides=list(sides),
            names=[name for _, name, _ in makers],
            shown=", ".join(dict.fromkeys(m.name for ms in sides.values() for m in ms)),
            claims=self.name_claims(),
            able=self.able_makers() if able else None,
        )

    def _reference_problem(self, spec: Expectation, known: _SpecNames) -> SpecProblem | None:
        """What is wrong with the names ``spec`` uses (:meth:`spec_problem`); who makes
        its attack at whom only when ``known.able`` is worked out."""
        if spec.figure == "crit_rate" and not has_crits(self.rules):
            return SpecProblem("figure", "expected a figure these rules have; got "
                               f"'crit_rate': {self.rules} has no critical hits",
                               spec.figure)  # fmt: skip
        attacks, names = known.attacks, known.names
        if spec.attack is not None and spec.attack not in attacks:
            return SpecProblem("attack", f"expected {self._attack_key()} ({', '.join(attacks)});"
                               f" got {spec.attack!r}{did_you_mean(spec.attack, attacks)}",
                               spec.attack)  # fmt: skip
        for key in ("attacker", "defender", "combatant"):
            name = getattr(spec, key)
            if name is not None and not copies_of(name, names):
                return SpecProblem(key, f"expected a combatant of this scenario "
                                   f"({known.shown}); got {name!r}"
                                   f"{did_you_mean(name, names)}", name)  # fmt: skip
            pooled = None if name is None else lookalike_problem(known.claims, name)
            if pooled is not None:
                return SpecProblem(key, pooled, name)
        if known.able is None:
            return None
        made = self._made_problem(spec, known.able)
        if made is not None:
            return made
        if spec.side is not None and spec.side not in known.sides:
            return SpecProblem("side", f"expected a side of this scenario "
                               f"({', '.join(known.sides)}); got {spec.side!r}"
                               f"{did_you_mean(spec.side, known.sides)}",
                               spec.side)  # fmt: skip
        return None

    def _made_problem(self, spec: Expectation, able: list[Maker]) -> SpecProblem | None:
        """What is wrong with ``spec``'s attack as made: by nobody, not by its
        ``attacker``, or never at its ``defender`` (``able``: :meth:`able_makers`)."""
        if spec.attack is None:
            return None
        unmade = self.unmade_problem(spec.attack, able)
        if unmade is not None:
            return SpecProblem("attack", unmade, spec.attack)
        if spec.attacker is not None and not _attacking_sides(spec.attack, spec.attacker, able):
            why = self.listed_unmade_why(spec.attack, spec.attacker, set())
            return SpecProblem("attacker", f"expected a combatant that uses {spec.attack!r}; "
                               f"got {spec.attacker!r}{why}", spec.attacker)  # fmt: skip
        if spec.defender is not None:
            aimed = self.target_problem(spec.attack, spec.attacker, spec.defender, able)
            if aimed is not None:
                return SpecProblem("defender", aimed, spec.defender)
        return None

    @model_validator(mode="after")
    def _expect_rounds_within_the_cap(self) -> Any:
        """A ``down_by_round`` spec's round lies within the round cap: past it nobody is
        observed (``tune`` refuses such a target too)."""
        for i, spec in enumerate(self.expect):
            problem = self._round_problem(spec)
            if problem is not None:
                raise located_error(("expect", i, problem.key), problem.message, problem.value)
        return self

    def _round_problem(self, spec: Expectation) -> SpecProblem | None:
        """What is wrong with ``spec``'s ``round:``: past the round cap."""
        if spec.round is not None and spec.round > self.max_rounds:
            return SpecProblem("round", f"expected a round from 1 to {self.max_rounds} (the "
                               f"round cap); got {spec.round}", spec.round)  # fmt: skip
        return None

    @model_validator(mode="after")
    def _expect_bounds_in_rounds_possible(self, info: ValidationInfo) -> Any:
        """A bound in rounds lies where the figure can (:meth:`rounds_problem`), in the
        file as written (:func:`~simlab.scenario.validation.as_written`): an override of
        the round cap (a sweep of ``max_rounds`` from 2) may leave a bound behind, as it
        may a field that works only with another."""
        if not as_written(info):
            return self
        for i, spec in enumerate(self.expect):
            problem = self._bound_problem(spec)
            if problem is not None:
                raise located_error(("expect", i, problem.key), problem.message, problem.value)
        return self

    def _bound_problem(self, spec: Expectation) -> SpecProblem | None:
        """What is wrong with a bound of ``spec`` in rounds (:meth:`rounds_problem`)."""
        for key in ("at_least", "at_most", "between"):
            value = getattr(spec, key)
            for bound in value if isinstance(value, list) else [value]:
                problem = None if bound is None else self.rounds_problem(spec.figure, bound)
                if problem is not None:
                    return SpecProblem(key, problem, value)
        return None

    def rounds_problem(self, figure: str, bound: float) -> str | None:
        """What is wrong with ``bound`` for ``figure`` in rounds; None when it is one the
        figure can take, or ``figure`` is not in rounds. An encounter lasts from the
        first round (:meth:`first_round`) to the round cap, and a median time-to-down
        lies from the first round on (past the cap, a bound holds a median the cap does
        not reach: README "Balance specs"); beyond, the spec could never fail
        (``at_least: -3``) or never pass. A bound at either end is kept, as a rate's 0
        and 1 are."""
        if figure not in ("mean_rounds", "median_time_to_down"):
            return None
        first = self.first_round()
        said = "round 1" if first == 1 else f"round {first}, the surprise round,"
        if figure == "mean_rounds" and not first <= bound <= self.max_rounds:
            return (f"expected a bound from {first} to {self.max_rounds} rounds for "
                    f"'mean_rounds' (an encounter lasts from {said} to the round cap, "
                    f"{self.max_rounds}); got {bound:g}")  # fmt: skip
        if figure == "median_time_to_down" and bound < first:
            return (f"expected a bound of {first} round{'s' * (first != 1)} or more for "
                    f"'median_time_to_down' (nobody goes down before {said.rstrip(',')}; "
                    f"past the round cap, {self.max_rounds}, it holds a median the cap "
                    "does not reach)"
                    f"; got {bound:g}")  # fmt: skip
        return None

    def first_round(self) -> int:
        """The first round of an encounter: 1 (opposed-tiers' surprise round is 0)."""
        return 1

    @model_validator(mode="after")
    def _someone_deals_damage(self) -> Any:
        """Something can deal damage (:meth:`can_deal_damage`): else every encounter is a
        draw at the round cap, and every figure 0 — a scenario missing its attacks, not a
        fight to measure."""
        if not self.can_deal_damage():
            raise located_error(("sides",), f"expected {self.DAMAGE_SOURCES} (without, "
                                "nobody can deal damage and every encounter is a draw); got "
                                "none", None)  # fmt: skip
        return self

    @model_validator(mode="after")
    def _expect_downs_possible(self) -> Any:
        """A spec of a combatant's going down is of one that can (:meth:`down_problem`):
        else it measures 0, or never reaches a median, whatever the rules. Checked once
        every name and attack is known and something deals damage, so that a slip is
        named as itself (an attack nobody makes), not as what it causes."""
        if not self.expect or _lists_undefined(self.attack_makers(), getattr(self, "attacks", {})):
            return self
        able = self.able_makers()
        for i, spec in enumerate(self.expect):
            if spec.figure in DOWN_SPEC_FIGURES and spec.combatant is not None:
                problem = self.down_problem(spec.combatant, able)
                if problem is not None:
                    raise located_error(("expect", i, "combatant"), problem, spec.combatant)
        return self

    #: What can deal damage in these rules, for the message of a scenario without any.
    DAMAGE_SOURCES: ClassVar[str] = "a combatant with attacks"

    def can_deal_damage(self) -> bool:
        """Whether anything can ever deal damage: here, a combatant with attacks; rule
        systems with damaging statuses or terrain, or with attacks not every combatant
        can make, say more."""
        sides: dict[str, list[Any]] = getattr(self, "sides", {})
        return any(m.attacks for members in sides.values() for m in members)

    @property
    def source(self) -> Any:
        """The YAML source this scenario was read from (positions for error messages)."""
        return self._source

    @property
    def overrides(self) -> tuple[str, ...]:
        """The changes that made this scenario from its file, ``NAME.FIELD=VALUE`` in
        order (``--set``, :func:`simlab.override`); none for a scenario as loaded."""
        return () if self._source is None else tuple(self._source.overrides)

    @property
    def idle_overrides(self) -> tuple[str, ...]:
        """Those of :attr:`overrides` that change nothing: each sets a field to the value
        the scenario already has (``Brute.hp=30`` on a Brute of 30 hp). Worked out when
        asked (:func:`simlab.tuning.overrides.idle_overrides`)."""
        if self._made_from is None:
            return ()
        from simlab.tuning.overrides import idle_overrides

        before, overrides = self._made_from
        if len(self.overrides) == len(before.overrides) + len(overrides):
            return before.idle_overrides + idle_overrides(before, self, overrides)
        # a field changed again: its one entry (the value in effect) is idle when the
        # file has that value, whatever the earlier change set it to
        root = before
        while root._made_from is not None:
            root = root._made_from[0]
        return idle_overrides(root, self, self.overrides)

    def __repr__(self) -> str:
        """One line: the scenario, the changes that made it from its file (one that
        changes nothing said so, as ``simlab run`` heads its tables), its run fields and
        who is on each side (a notebook shows this for ``scn``; pydantic's own repr
        printed every field, some 2,500 characters, the changes nowhere). Every field:
        ``scn.model_dump()``."""
        from simlab.report.words import counted, overrides_said

        said = overrides_said({"overrides": self.overrides,
                               "idle_overrides": self.idle_overrides})  # fmt: skip
        changed = f" · with {', '.join(said)}" if said else ""
        sides = "; ".join(f"{side}: {', '.join(names)}"
                          for side, names in self._names_by_side().items())  # fmt: skip
        key = self.KEYS_ELSEWHERE.get("attacks", "attacks")  # draft1's techniques:
        attacks = counted(len(getattr(self, "attacks", {})), key.removesuffix("s"))
        return (f"<Scenario {self.scenario}{changed} · rules {self.rules} · "
                f"{counted(self.encounters, 'encounter')} · seed {self.seed} · "
                f"{self.max_rounds} rounds at most: {sides}; {attacks} defined; "
                ".model_dump() for every field>")  # fmt: skip

    def __str__(self) -> str:
        """As :meth:`__repr__` (``print(scn)``)."""
        return repr(self)

    def _names_by_side(self) -> dict[str, list[str]]:
        """The combatants' names by side, ``count:`` copies as ``Raider ×3``."""
        sides: dict[str, list[Any]] = getattr(self, "sides", {})
        return {side: [m.name if m.count == 1 else f"{m.name} ×{m.count}" for m in members]
                for side, members in sides.items()}  # fmt: skip

    def model_copy(self, *, update: Any = None, deep: bool = False) -> Any:
        """A copy of the scenario. With ``update`` it is refused: pydantic's copy skips
        validation (a ``max_rounds`` of 0 would run); :meth:`with_` validates."""
        if update:
            raise InputError("expected scn.with_({...}) or simlab.override(scn, {...}) to "
                             "change a scenario (both validate it); got model_copy(update=...),"
                             " which does not")  # fmt: skip
        return super().model_copy(deep=deep)

    def __setattr__(self, name: str, value: Any) -> None:
        """Private attributes only: a scenario is read-only, changed by :meth:`with_`."""
        if not name.startswith("_"):
            raise InputError(f"expected scn.with_({{{name!r}: ...}}) to change a scenario "
                             f"(it is read-only and validated as a whole); got an assignment "
                             f"to {name!r}")  # fmt: skip
        super().__setattr__(name, value)

    def with_(self, changes: Any = None, /, **fields: Any) -> Any:
        """A new scenario with fields changed, validated like the file (see
        :func:`simlab.override`): ``scn.with_({"Defender.guard": 2})``, or top-level
        fields as keywords, ``scn.with_(max_rounds=50)``, or both (a field both change
        is refused, as any field changed twice)."""
        from simlab.tuning.overrides import as_overrides, override

        if fields:  # changes of any kind, checked as such, and the keywords' with them
            changes = [*as_overrides(changes or {}), *as_overrides(fields)]
        return override(self, changes or {})

    def expanded(self) -> list[tuple[int, Any]]:
        """(side index, combatant model) for every copy after ``count:``, in order."""
        out: list[tuple[int, Any]] = []
        for s, members in enumerate(self.sides.values()):  # type: ignore[attr-defined]
            for member in members:
                out.extend((s, member) for _ in range(member.count))
        return out

    def combatant_names(self) -> list[tuple[str, str]]:
        """(side, name) of every combatant after expanding ``count:`` copies, in order
        (those of :meth:`attack_makers`)."""
        return [(side, name) for side, name, _ in self.attack_makers()]


#: (side, name, attacks) of one combatant (:meth:`ScenarioBase.attack_makers`).
Maker = tuple[str, str, list[str]]


class SpecProblem(NamedTuple):
    """What is wrong with an ``expect:`` entry (:meth:`ScenarioBase.spec_problem`): the
    ``key`` at fault, the ``message`` (what was expected, what was found) and the
    ``value`` found there."""

    key: str
    message: str
    value: Any


class _SpecNames(NamedTuple):
    """What the checks of an ``expect:`` entry look names up in
    (:meth:`ScenarioBase._spec_names`): the attacks and sides defined, every
    combatant's name (copies apart), the entries' names as a message lists them, the
    names the entries claim and, when worked out, who can make what."""

    attacks: list[str]
    sides: list[str]
    names: list[str]
    shown: str
    claims: list[NameClaim]
    able: list[Maker] | None


def _lists_undefined(makers: list[Maker], attacks: dict[str, Any]) -> bool:
    """Whether a combatant lists an attack not defined under ``attacks:`` (a typo the
    loader reports where it is, ``load._attack_problems``): until it is mended, who can
    make an attack is not known, and an ``expect:`` entry is not refused for it."""
    return any(name not in attacks for _, _, listed in makers for name in listed)


def _attacking_sides(attack: str | None, attacker: str | None, makers: list[Maker]) -> set[str]:
    """The sides of the combatants that make ``attack`` (of ``attacker``'s copies only,
    when it names one)."""
    return {side for side, name, attacks in makers
            if attack in attacks and (attacker is None or copies_of(attacker, [name]))}  # fmt: skip


def _no_target(attack: str, defender: str) -> str:
    """The message for a ``defender`` on the side of everyone who makes ``attack``."""
    return (
        f"expected a combatant that {attack!r} can target, on another side than its "
        f"attackers; got {defender!r}"
    )


def _zero_meets(spec: Expectation) -> bool:
    """Whether a figure of 0 meets ``spec``'s bound (``at_most``, ``at_least: 0``,
    ``between: [0, …]``)."""
    if spec.at_least is not None:
        return spec.at_least <= 0
    return spec.between is None or spec.between[0] <= 0
