"""Scenario → flat arrays for the opposed-tiers kernels (docs/rules/opposed-tiers.md; seed 002).

The kernels see only integers and integer arrays, gathered in :class:`KernelParams`.
Combatants are expanded (``count:`` copies) and numbered in scenario order; attacks are
numbered in the order of ``attacks:``. Each combatant's tiers are looked up here, once:
the kernels only see which dice expression each of its rolls uses (attack, defense,
shield, damage, critical damage, armor), indices into one table of expressions.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np

from simlab.dice import KEEP_MODES, Dice
from simlab.engine.tallies import Layout
from simlab.limits import MAX_DAMAGE_BINS
from simlab.rules.arrays import enemy_rows, field_rows, ints
from simlab.rules.opposed_tiers.model import Combatant, Params, ResolvedTier, Scenario
from simlab.scenario.common import POLICY_CODE

EVENTS = ["out", "unconscious", "dead"]
#: Threshold of a combatant without Vigor: never reached.
NEVER = -(1 << 40)
NO_DICE = -1

A_MODIFIER, A_DAMAGE_MODIFIER, A_RANGED = range(3)
N_ATTACK_FIELDS = 3
(
    C_SIDE,
    C_HP,
    C_UNCONSCIOUS_AT,
    C_DEAD_BELOW,
    C_FALLS_OUT,
    C_WEAPON_SL,
    C_FORM_SL,
    C_DEFENSE_SL,
    C_REFLEX,
    C_HIDDEN,
    C_ATTACKS_PER_TURN,
    C_POLICY,
    C_ATTACK_START,
    C_ATTACK_COUNT,
    C_ATTACK_DICE,
    C_DEFENSE_DICE,
    C_SHIELD_DICE,
    C_DAMAGE_DICE,
    C_CRITICAL_DICE,
    C_ARMOR_DICE,
) = range(20)
N_COMBATANT_FIELDS = 20
E_START, E_COUNT, E_CONSTANT, E_WHOLE_D6, E_ONE_DIE = range(5)
N_EXPR_FIELDS = 5
(
    G_N_SIDES,
    G_MAX_ROUNDS,
    G_DAMAGE_FLOOR,
    G_FALLEN_FIGHT_ON,
    G_TARGET_FALLEN,
    G_TARGET_UNCONSCIOUS,
    G_SURPRISE,
    G_SURPRISE_ARMOR,
    G_INITIATIVE_DICE,
    G_RANDOM_TIES,
    G_SCRATCH,
) = range(11)
N_GLOBAL_FIELDS = 11


class KernelParams(NamedTuple):
    """Everything the encounter kernel reads.

    Attributes
    ----------
    combatant : ndarray (N_COMBATANT_FIELDS, C)
        Per-combatant values, rows named by the ``C_*`` constants; the ``*_DICE`` rows
        are indices into ``exprs`` (``NO_DICE`` when it has no shield or armor).
    attack : ndarray (N_ATTACK_FIELDS, A)
        Per-attack values, rows ``A_*``.
    exprs : ndarray (N_EXPR_FIELDS, X)
        Dice expressions: their first term in ``terms``, number of terms, constant, and
        (``E_WHOLE_D6``) the count of d6 when the expression is that many d6 added up,
        kept whole, plus its constant (0 otherwise), and (``E_ONE_DIE``) the faces of
        its die when it is one die plus its constant (0 otherwise): the kernels'
        shortcuts for the tiers' usual rolls, shields and armor.
    terms : ndarray (T, 5)
        Dice terms as :meth:`simlab.dice.Dice.as_array` lays them out.
    globals_ : ndarray (N_GLOBAL_FIELDS,)
        Scenario-wide values and rule parameters (``G_*``).
    attack_list : ndarray
        Each combatant's attacks, ``attack_list[start:start + count]``.
    enemies : ndarray (C, E)
        Row ``c``: the combatants of other sides than ``c``'s, in listed order, padded
        with −1 (:func:`simlab.rules.arrays.enemy_rows`); targets are chosen among them.
    """

    combatant: np.ndarray
    attack: np.ndarray
    exprs: np.ndarray
    terms: np.ndarray
    globals_: np.ndarray
    attack_list: np.ndarray
    enemies: np.ndarray


def expand(scenario: Scenario) -> list[tuple[int, Combatant]]:
    """(side index, combatant) for every copy, in scenario order."""
    return scenario.expanded()


def unconscious_at(vigor: int, params: Params) -> int:
    """Health at or below which a character is unconscious: −Vigor/2 rounded as
    ``unconscious_rounding`` says (docs/rules/opposed-tiers.md; seed 002: Vigor 14 → −7)."""
    half = -(-vigor // 2) if params.unconscious_rounding == "up" else vigor // 2
    return -half


def dead_below(vigor: int, params: Params) -> int:
    """Health below which a character is dead (docs/rules/opposed-tiers.md; seed 002, "Health"):
    −Vigor by the rule (``dead_at: below``), or −Vigor + 1 so that −Vigor itself is dead, as the
    seed's example reads (``dead_at: minus_vigor``: Vigor 14 dead at −14)."""
    return -vigor + int(params.dead_at == "minus_vigor")


def critical_dice(table: list[ResolvedTier], tier: str, params: Params) -> Dice:
    """Damage dice of a critical by a ``tier`` skill: the next tier's damage dice
    (docs/rules/opposed-tiers.md "Critical"; seed 002: Novice becomes Journeyman). The top tier
    keeps its own, or adds one die to its first damage term (``top_tier_critical``)."""
    names = [t.name for t in table]
    i = names.index(tier)
    if i + 1 < len(table):
        return table[i + 1].damage
    own = table[i].damage
    if params.top_tier_critical == "own" or not own.terms or own.terms[0].count >= 100:
        return own
    first = own.terms[0]
    more = dataclasses.replace(first, count=first.count + 1,
                               keep_n=first.keep_n + (first.keep == "all"))  # fmt: skip
    return dataclasses.replace(own, text=f"{own} +1 die", terms=(more, *own.terms[1:]))


@dataclasses.dataclass(frozen=True)
class CombatantDice:
    """The dice a combatant rolls, from its tiers (docs/rules/opposed-tiers.md).

    ``shield`` and ``armor`` are None when it carries none.
    """

    attack: Dice
    defense: Dice
    damage: Dice
    critical: Dice
    shield: Dice | None
    armor: Dice | None


def combatant_dice(scenario: Scenario, member: Combatant) -> CombatantDice:
    """Look up every roll of ``member`` in the scenario's tier table
    (docs/rules/opposed-tiers.md)."""
    table = scenario.tier_table()
    by_name = {t.name: t for t in table}
    first = table[0].name
    prm = scenario.params

    def gear(kind: str) -> Dice | None:
        chosen = getattr(member, kind)
        tier = by_name[member.skill_tier(kind, first)]
        return None if chosen is None else getattr(tier, kind)[chosen]

    return CombatantDice(
        attack=by_name[member.skill_tier("weapon", first)].attack,
        defense=by_name[member.skill_tier("defense", first)].defense,
        damage=by_name[member.skill_tier("form", first)].damage,
        critical=critical_dice(table, member.skill_tier(prm.critical_tier, first), prm),
        shield=gear("shield"),
        armor=gear("armor"),
    )


def attacks_per_turn(member: Combatant, params: Params) -> int:
    """Attacks ``member`` makes per turn: its own number, else the parameter."""
    return member.attacks_per_turn or params.attacks_per_turn


def falls_out(member: Combatant, params: Params) -> bool:
    """Whether ``member`` leaves the fight as soon as it falls (NPCs,
    docs/rules/opposed-tiers.md)."""
    return not member.player and params.npcs_fall_out


def surprise_happens(scenario: Scenario) -> bool:
    """Whether there is a surprise round: the option is on and a hidden combatant has
    attacks (docs/rules/opposed-tiers.md "Surprise round"; seed 002, "Subsequent Attacks –
    Surprise!")."""
    return scenario.params.surprise_round and any(
        m.hidden and m.attacks for _, m in scenario.expanded()
    )


def first_rounds(scenario: Scenario) -> list[int]:
    """The first round each combatant (after ``count:`` copies) can be attacked, and so go
    down: 0 for the enemies of a hidden combatant with attacks when there is a surprise
    round (round 0, docs/rules/opposed-tiers.md "Surprise round"), else 1 — a hidden
    combatant's own side is not attacked before round 1, nor is anyone without one."""
    members = scenario.expanded()
    if not surprise_happens(scenario):
        return [1] * len(members)
    ambushers = {side for side, m in members if m.hidden and m.attacks}
    return [0 if ambushers - {side} else 1 for side, _ in members]


def whole_d6(dice: Dice) -> int:
    """How many d6 ``dice`` adds up when it is one term of d6, all kept, added (``3d6``,
    ``2d6+1``); 0 for any other expression (``2d6+1d4``, ``4d6kh3``, ``-1d6``)."""
    if len(dice.terms) != 1:
        return 0
    term = dice.terms[0]
    whole = term.sides == 6 and term.keep == KEEP_MODES[0] and term.sign == 1
    return term.count if whole else 0


def one_die(dice: Dice) -> int:
    """The faces of the die when ``dice`` is one die added (``1d8``, ``1d4+1``); 0 for any
    other expression (``2d8``, ``-1d4``)."""
    if len(dice.terms) != 1:
        return 0
    term = dice.terms[0]
    return term.sides if term.count == 1 and term.sign == 1 else 0


class _Exprs:
    """Collects distinct dice expressions, numbering them for the kernels."""

    def __init__(self) -> None:
        self.index: dict[Dice, int] = {}
        self.rows: list[tuple[int, int, int, int, int]] = []
        self.terms: list[np.ndarray] = []
        self.n_terms = 0

    def add(self, dice: Dice | None) -> int:
        if dice is None:
            return NO_DICE
        if dice not in self.index:
            self.index[dice] = len(self.rows)
            self.rows.append(
                (self.n_terms, len(dice.terms), dice.constant, whole_d6(dice), one_die(dice))
            )
            self.terms.append(dice.as_array())
            self.n_terms += len(dice.terms)
        return self.index[dice]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        exprs = np.array(self.rows, dtype=np.int64).reshape(-1, N_EXPR_FIELDS).T.copy()
        terms = np.concatenate([*self.terms, np.zeros((0, 5), dtype=np.int64)]).astype(np.int64)
        return exprs, terms


def _combatant_row(
    scenario: Scenario, side: int, m: Combatant, start: int, exprs: _Exprs
) -> list[int]:
    prm = scenario.params
    dice = combatant_dice(scenario, m)
    unconscious = NEVER if m.vigor is None else unconscious_at(m.vigor, prm)
    dead = NEVER if m.vigor is None else dead_below(m.vigor, prm)
    return [
        side, m.hp, unconscious, dead, int(falls_out(m, prm)), m.weapon_sl, m.form_sl,
        m.defense_sl, m.reflex, int(m.hidden), attacks_per_turn(m, prm),
        POLICY_CODE[m.target], start, len(m.attacks), exprs.add(dice.attack),
        exprs.add(dice.defense), exprs.add(dice.shield), exprs.add(dice.damage),
        exprs.add(dice.critical), exprs.add(dice.armor),
    ]  # fmt: skip


def _globals(scenario: Scenario, initiative: int, scratch: int) -> np.ndarray:
    prm = scenario.params
    return np.array([
        len(scenario.sides), scenario.max_rounds, prm.damage_floor, int(prm.fallen_fight_on),
        int(prm.target_fallen), int(prm.target_unconscious), int(surprise_happens(scenario)),
        int(prm.surprise_armor), initiative, int(prm.initiative_ties == "random"), scratch,
    ], dtype=np.int64)  # fmt: skip


def compile_scenario(scenario: Scenario) -> tuple[KernelParams, Layout]:
    """Flatten a validated scenario into kernel parameters and the tally layout.

    Parameters
    ----------
    scenario : Scenario
        A validated ``opposed-tiers`` scenario (docs/rules/opposed-tiers.md).

    Returns
    -------
    (KernelParams, Layout)
    """
    combatants = expand(scenario)
    side_of = [s for s, _ in combatants]
    prm = scenario.params
    attack_names = list(scenario.attacks)
    attack_list: list[int] = []
    exprs = _Exprs()
    initiative = exprs.add(prm.initiative_dice)
    rows = []
    for side, m in combatants:
        rows.append(_combatant_row(scenario, side, m, len(attack_list), exprs))
        attack_list.extend(attack_names.index(n) for n in m.attacks)
    attack = field_rows(
        [[a.modifier, a.damage_modifier, int(a.ranged)] for a in scenario.attacks.values()],
        N_ATTACK_FIELDS,
    )
    expr_array, terms = exprs.arrays()
    scratch = max((t.count for d in exprs.index for t in d.terms), default=1)
    params = KernelParams(
        combatant=field_rows(rows, N_COMBATANT_FIELDS),
        attack=attack,
        exprs=expr_array,
        terms=terms,
        globals_=_globals(scenario, initiative, scratch),
        attack_list=ints(attack_list),
        enemies=enemy_rows(side_of),
    )
    per_round = sum(attacks_per_turn(m, prm) for _, m in combatants if m.attacks)
    if surprise_happens(scenario):  # round 0 comes on top of the capped rounds
        per_round = math.ceil(per_round * (scenario.max_rounds + 1) / scenario.max_rounds)
    layout = Layout(
        sides=list(scenario.sides),
        combatants=scenario.combatant_names(),
        attacks=attack_names,
        events=EVENTS,
        max_rounds=scenario.max_rounds,
        damage_bins=_damage_bins(scenario, combatants),
        side_of=side_of,
        attacks_per_round=per_round,
        first_rounds=first_rounds(scenario),
    )
    return params, layout


def _damage_bins(scenario: Scenario, combatants: list[tuple[int, Combatant]]) -> int:
    """Enough bins for the largest possible damage, within a cap (last bin: ≥)."""
    every = [combatant_dice(scenario, m) for _, m in combatants]
    armor_low = min((d.armor.min for d in every if d.armor is not None), default=0)
    top = 0
    for (_, m), dice in zip(combatants, every, strict=True):
        for name in m.attacks:
            bonus = m.form_sl + scenario.attacks[name].damage_modifier
            top = max(top, max(dice.damage.max, dice.critical.max) + bonus)
    return min(max(64, top - min(armor_low, 0) + scenario.params.damage_floor + 2),
               MAX_DAMAGE_BINS)  # fmt: skip
