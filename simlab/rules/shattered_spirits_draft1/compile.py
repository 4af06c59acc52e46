"""Scenario → flat arrays for the earlier-draft kernels (docs/rules/shattered-spirits-draft1.md;
seed 000).

The kernels see only integers and integer arrays, gathered in :class:`KernelParams`.
Combatants are expanded (``count:`` copies) and numbered in scenario order, so each
side's combatants are consecutive; Techniques are numbered in the order of
``techniques:``. Every plan is flattened into one list of *slots* (one per planned
Technique), consecutive per combatant and therefore per side: a side's Turns in a Phase
are its slots of that Speed, in listed order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simlab.engine.tallies import Layout
from simlab.limits import MAX_DAMAGE_BINS
from simlab.rules.arrays import enemy_rows, field_rows, ints
from simlab.rules.shattered_spirits.compile import attack_rows
from simlab.rules.shattered_spirits_draft1.model import Combatant, Params, Scenario, Technique
from simlab.scenario.common import POLICY_CODE

EVENTS = ["shaken", "downed"]
NO_REACTION = -1
NONE = -1
FUMBLE_TOKENS_CODE = {"focus-first": 0, "momentum-first": 1, "none": 2}

# Field indices of the kernel arrays (one int64 row per field keeps argument lists short).
(C_SIDE, C_VIGOR, C_ENDURANCE, C_HEALTH, C_GUARD, C_COVER, C_ROLL_MODIFIER, C_GRIT, C_REFLEX,
 C_MOMENTUM, C_FOCUS, C_BLOCK_AT, C_EVADE_AT, C_EXPOSED, C_IMPAIRED, C_POLICY, C_IMPROVISE_SLOT,
 C_IMPROVISE_USE) = range(18)  # fmt: skip
N_COMBATANT_FIELDS = 18
A_MODIFIER, A_DAMAGE_MODIFIER, A_NET_ADVANTAGE, A_GLANCING, A_AP, A_SPEED = range(6)
N_ATTACK_FIELDS = 6
R_DAMAGE, R_TIER, R_EXPOSED, R_IMPAIRED = range(4)
N_ROW_FIELDS = 4
S_OWNER, S_TECHNIQUE = range(2)
N_SLOT_FIELDS = 2
(G_N_SIDES, G_MAX_ROUNDS, G_OVERFLOW_DAMAGE, G_FUMBLE_TOKENS, G_FUMBLE_COST, G_FUMBLE_EXPOSED,
 G_EXPOSED_PER_LEVEL, G_IMPAIRED_PER_LEVEL, G_GLANCING_DIVISOR, G_COVER_GUARD,
 G_ENDURANCE_OVERFLOW, G_SHAKEN_ROLL_MODIFIER, G_REACTION_COST, G_MOMENTUM_PER_REFRESH,
 G_IMPROVISE_COST, G_STATUSES_LAST_ROUND, G_ROUND_START_PLAYERS) = range(17)  # fmt: skip
N_GLOBAL_FIELDS = 17


class KernelParams(NamedTuple):
    """Everything the encounter kernel reads.

    Attributes
    ----------
    combatant : ndarray (N_COMBATANT_FIELDS, C)
        Per-combatant values, rows named by the ``C_*`` constants.
    attack : ndarray (N_ATTACK_FIELDS, T)
        Per-Technique values, rows ``A_*``.
    rows : ndarray (N_ROW_FIELDS, T, 11)
        Per profile row 2..12: damage, tier code, Exposed, Impaired (``R_*``).
    globals_ : ndarray (N_GLOBAL_FIELDS,)
        Scenario-wide values and rule parameters (``G_*``).
    slots : ndarray (N_SLOT_FIELDS, S)
        Every planned Technique: its owner and the Technique (``S_*``), in scenario order.
    side_slots : ndarray (n_sides + 1,)
        Side s's slots are ``side_slots[s]:side_slots[s + 1]``.
    enemies : ndarray (C, E)
        Row ``c``: the combatants of other sides than ``c``'s, in listed order, padded
        with −1 (:func:`simlab.rules.arrays.enemy_rows`); targets are chosen among them.
    """

    combatant: np.ndarray
    attack: np.ndarray
    rows: np.ndarray
    globals_: np.ndarray
    slots: np.ndarray
    side_slots: np.ndarray
    enemies: np.ndarray


def expand(scenario: Scenario) -> list[tuple[int, Combatant]]:
    """(side index, combatant) for every copy, in scenario order."""
    return scenario.expanded()


def net_advantage(technique: Technique, params: Params) -> int:
    """+1 (Advantage), −1 (Disadvantage) or 0: instances do not stack
    (docs/rules/shattered-spirits-draft1.md).

    Parameters
    ----------
    technique : Technique
        Its ``advantage`` and ``disadvantage`` instance counts.
    params : Params
        ``advantage_with_disadvantage`` decides a roll with both ([default] cancel).

    Returns
    -------
    int
        The sign of the roll's Advantage: 3d6 keep the highest (+1) or lowest (−1) two.
    """
    has_adv, has_dis = technique.advantage > 0, technique.disadvantage > 0
    if has_adv and has_dis:
        return {"cancel": 0, "advantage": 1, "disadvantage": -1}[params.advantage_with_disadvantage]
    return int(has_adv) - int(has_dis)


def _threshold(reaction: object) -> int:
    return NO_REACTION if reaction is None else reaction.when_damage_at_least  # type: ignore[attr-defined]


def _combatants(
    combatants: list[tuple[int, Combatant]], names: list[str], plan_start: list[int]
) -> np.ndarray:
    out = np.zeros((N_COMBATANT_FIELDS, len(combatants)), dtype=np.int64)
    for c, (side, m) in enumerate(combatants):
        slot, use = NONE, NONE
        if m.improvise is not None:
            slot = plan_start[c] + m.plan.index(m.improvise.replace)
            use = names.index(m.improvise.use)
        t = m.tokens
        out[:, c] = [
            side, m.vigor, m.endurance, m.health, m.guard, int(m.cover), m.roll_modifier,
            t.grit, t.reflex, t.momentum, t.focus, _threshold(m.react.block),
            _threshold(m.react.evade), m.exposed, m.impaired, POLICY_CODE[m.target], slot, use,
        ]  # fmt: skip
    return out


def _techniques(techniques: list[Technique], params: Params) -> tuple[np.ndarray, np.ndarray]:
    attack = field_rows(
        [[t.modifier, t.damage_modifier, net_advantage(t, params), int(t.glancing), t.ap,
          t.speed] for t in techniques], N_ATTACK_FIELDS,
    )  # fmt: skip
    rows = np.zeros((N_ROW_FIELDS, len(techniques), 11), dtype=np.int64)
    for k, t in enumerate(techniques):
        r = attack_rows(t)
        rows[:, k, :] = [t.profile, r["tier"], r["exposed"], r["impaired"]]
    return attack, rows


def _globals(scenario: Scenario) -> np.ndarray:
    prm = scenario.params
    return ints([
        len(scenario.sides), scenario.max_rounds, prm.overflow_damage,
        FUMBLE_TOKENS_CODE[prm.fumble_tokens], prm.fumble_cost, prm.fumble_exposed,
        prm.exposed_per_level, prm.impaired_per_level, prm.glancing_divisor, prm.cover_guard,
        int(prm.endurance_overflow), prm.shaken_roll_modifier, prm.reaction_cost,
        prm.momentum_per_refresh, prm.improvise_cost, int(prm.statuses_last == "round"),
        int(prm.round_start == "players"),
    ])  # fmt: skip


def compile_scenario(scenario: Scenario) -> tuple[KernelParams, Layout]:
    """Flatten a validated scenario into kernel parameters and the tally layout.

    Parameters
    ----------
    scenario : Scenario
        A validated ``shattered-spirits-draft1`` scenario (docs/rules/shattered-spirits-draft1.md).

    Returns
    -------
    (KernelParams, Layout)
    """
    combatants = expand(scenario)
    side_of = [s for s, _ in combatants]
    names = list(scenario.techniques)
    techniques = [scenario.techniques[n] for n in names]
    owners: list[int] = []
    chosen: list[int] = []
    plan_start: list[int] = []
    side_slots = [0] * (len(scenario.sides) + 1)
    for c, (side, m) in enumerate(combatants):
        plan_start.append(len(owners))
        owners.extend(c for _ in m.plan)
        chosen.extend(names.index(n) for n in m.plan)
        side_slots[side + 1] = len(owners)
    for s in range(1, len(side_slots)):  # a side without combatants has no slots
        side_slots[s] = max(side_slots[s], side_slots[s - 1])
    attack, rows = _techniques(techniques, scenario.params)
    params = KernelParams(
        combatant=_combatants(combatants, names, plan_start),
        attack=attack,
        rows=rows,
        globals_=_globals(scenario),
        slots=np.array([owners, chosen], dtype=np.int64).reshape(N_SLOT_FIELDS, len(owners)),
        side_slots=ints(side_slots),
        enemies=enemy_rows(side_of),
    )
    members = [m for _, m in combatants]
    layout = Layout(
        sides=list(scenario.sides),
        combatants=scenario.combatant_names(),
        attacks=names,
        events=EVENTS,
        max_rounds=scenario.max_rounds,
        damage_bins=_damage_bins(techniques, members, scenario.params),
        side_of=side_of,
        attacks_per_round=len(owners),
    )
    return params, layout


def _damage_bins(techniques: list[Technique], members: list[Combatant], params: Params) -> int:
    """Enough bins for any damage short of pathological Exposed stacking, within a cap
    (last bin: ≥)."""
    top = max((max(t.profile) + max(t.damage_modifier, 0) for t in techniques), default=0)
    exposure = max((m.exposed for m in members), default=0) + params.fumble_exposed
    wanted = top + params.overflow_damage + exposure * params.exposed_per_level + 32
    return min(max(64, wanted), MAX_DAMAGE_BINS)
