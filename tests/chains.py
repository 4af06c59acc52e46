"""Small exact computations that the statistical tests compare the simulator with.

Written from docs/rules/<system>.md alone, in plain numpy and Python, and sharing no code
with the simulator's kernels nor with ``simlab.exact``: dice sums, one attack's damage
distribution for the simple attacks the tests use, the attack at which running damage
first reaches a threshold; and the comparisons the tests share: a histogram of rounds
or attacks by chi-square, a per-encounter sum (``status_damage``, ``momentum_spent``)
that the tallies only keep per batch, the mean attacks to down.

Imported as ``tests.chains`` (see ``tests/support.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats

import simlab
from tests.support import K_SIGMA, chi_square_p

# ---------------------------------------------------------------------------------------
# Dice
# ---------------------------------------------------------------------------------------


def dice_pmf(count: int, sides: int) -> np.ndarray:
    """``pmf[t]`` = P(the sum of ``count`` d``sides`` is t) (``count`` 0: always 0)."""
    pmf = np.ones(1)
    for _ in range(count):
        pmf = np.convolve(pmf, np.r_[0.0, np.full(sides, 1.0 / sides)])
    return pmf


def shifted(pmf: np.ndarray, offset: int, floor: int = 0) -> np.ndarray:
    """The pmf of ``max(X + offset, floor)`` for X ~ ``pmf`` (values from 0)."""
    out = np.zeros(max(len(pmf) + offset, floor + 1))
    for value, p in enumerate(pmf):
        out[max(value + offset, floor)] += p
    return out


def mixture(parts: Sequence[tuple[float, np.ndarray]]) -> np.ndarray:
    """Σ weight · pmf over ``parts`` (pmfs of different lengths padded with zeros)."""
    out = np.zeros(max(len(pmf) for _, pmf in parts))
    for weight, pmf in parts:
        out[: len(pmf)] += weight * pmf
    return out


# ---------------------------------------------------------------------------------------
# One attack's damage, per system (docs/rules/<system>.md, "An attack")
# ---------------------------------------------------------------------------------------


def glitters_attack(bonus: int, mit: int, dice: int, sides: int, flat: int) -> np.ndarray:
    """docs/rules/glitters-d20.md, "An attack": a d20; a natural 20 is a critical hit
    and always hits, else natural + bonus ≥ MIT hits; damage = the dice + flat (ASM
    included), a critical adding one bonus die per damage die, the first at its
    maximum; at least 0."""
    p_crit = 1 / 20
    p_hit = sum(1 for n in range(1, 20) if n + bonus >= mit) / 20
    normal = shifted(dice_pmf(dice, sides), flat)
    crit = shifted(dice_pmf(2 * dice - 1, sides), flat + sides)
    return mixture([(1 - p_hit - p_crit, np.ones(1)), (p_hit, normal), (p_crit, crit)])


def two_d6() -> np.ndarray:
    """P(2d6 = t)."""
    return dice_pmf(2, 6)


def ss_attack(profile: Sequence[int], modifier: int, guard: int) -> np.ndarray:
    """docs/rules/shattered-spirits.md, "An attack": 2d6 + modifier reads row 2..12
    (above 12 row 12, below 2 a miss); a row of 0 damage and no status is a miss; damage
    = the row's − Guard, floor 0."""
    out = np.zeros(max(profile) + 1)
    for roll, p in enumerate(two_d6()):
        if p == 0:
            continue
        total = roll + modifier
        damage = 0 if total < 2 else max(profile[min(total, 12) - 2] - guard, 0)
        out[damage] += p
    return out


def reacted_damage(profile: Sequence[int], react_at: int, block_after_evade: bool) -> np.ndarray:
    """P(an attack deals d) against a defender who always holds the tokens to Evade and
    Block at ``react_at`` would-be damage (docs/rules/shattered-spirits.md and
    shattered-spirits-draft1.md, "An attack"; 2d6 + 0 reads row 2..12, no Guard): a row
    of at least ``react_at`` is Evaded, the whole 2d6 rerolled and its row read. One
    reaction per attack (the pages' reading): the reroll's damage stands.
    ``block_after_evade``: the other reading, in which a reroll still at the threshold is
    Blocked too (its roll lowered by 1)."""
    pmf = np.zeros(max(profile) + 1)
    two = two_d6()
    for roll in range(2, 13):
        if profile[roll - 2] < react_at:
            pmf[profile[roll - 2]] += two[roll]
            continue
        for again in range(2, 13):
            damage = profile[again - 2]
            if block_after_evade and damage >= react_at:
                damage = profile[again - 3]
            pmf[damage] += two[roll] * two[again]
    return pmf


def zones_roll(bonus: int) -> np.ndarray:
    """P(3d6 + bonus = t) for t ≥ 0 (bonuses here keep totals non-negative)."""
    return shifted(dice_pmf(3, 6), bonus)


def zones_attack(bonus: int, evasion: int, sides: int, flat: int, faces: set[int]) -> np.ndarray:
    """docs/rules/zones-3d6.md, "An attack": 3d6 + bonus against 3d6 + evasion, ties
    hit; a hit rolls one base die, a face among the Base Defense ``faces`` counting 0,
    plus the bonus damage ``flat``, at least 1."""
    attack, evade = zones_roll(bonus), zones_roll(evasion)
    p_hit = sum(pa * evade[: a + 1].sum() for a, pa in enumerate(attack))
    damage = np.zeros(sides + flat + 2)
    for face in range(1, sides + 1):
        damage[max((0 if face in faces else face) + flat, 1)] += 1 / sides
    return mixture([(1 - p_hit, np.ones(1)), (p_hit, damage)])


def tiers_attack(attack_sl: int, defense_sl: int, modifier: int) -> np.ndarray:
    """docs/rules/opposed-tiers.md, "An attack", Novices without gear: 2d6 + skill level
    against 2d6 + skill level; a hit needs the greater total, a critical at least twice
    the defense; damage 2d6 (a critical: the Journeyman's 3d6) + ``modifier``, at least
    0."""
    d = two_d6()
    p_hit = p_crit = 0.0
    for a, pa in enumerate(d):
        for b, pb in enumerate(d):
            atk, dfn = a + attack_sl, b + defense_sl
            if pa * pb and atk > dfn:
                p_hit += pa * pb
                p_crit += pa * pb * (atk >= 2 * dfn)
    normal = shifted(dice_pmf(2, 6), modifier)
    crit = shifted(dice_pmf(3, 6), modifier)
    return mixture([(1 - p_hit, np.ones(1)), (p_hit - p_crit, normal), (p_crit, crit)])


def wound_segments(wounds: int, how: str) -> np.ndarray:
    """P(a Wound — or a Spirit's Harm, rolled the same way — adds s segments):
    ceil(roll / 2), the roll 2d6 keep the lower with no Wounds yet, else one d6 per
    Wound, summed (``highest``: the highest die) (docs/rules/shattered-spirits.md, "An
    attack": Wounds; "Spirits": Harm)."""
    if wounds == 0:
        roll = np.zeros(7)
        for a in range(1, 7):
            for b in range(1, 7):
                roll[min(a, b)] += 1 / 36
    elif how == "sum":
        roll = dice_pmf(wounds, 6)
    else:
        roll = np.zeros(7)
        for top in range(1, 7):
            roll[top] = (top / 6) ** wounds - ((top - 1) / 6) ** wounds
    segments = np.zeros((len(roll) + 1) // 2 + 1)
    for r, p in enumerate(roll):
        segments[(r + 1) // 2] += p
    return segments


# ---------------------------------------------------------------------------------------
# Running damage
# ---------------------------------------------------------------------------------------


def attacks_to_reach(
    need: int, attacks: Sequence[np.ndarray], steps: int, overshoot_to: int | None = None
) -> np.ndarray:
    """P(running damage first reaches ``need`` at attack k), k = 1..``steps``.

    The attacks deal independent damage, attack k drawn from
    ``attacks[(k - 1) % len(attacks)]``; the defender goes down at the attack whose
    running total reaches ``need``, and receives no more. Returns ``out`` with
    ``out[k]`` that probability (``out[0]`` = 0); ``1 - out.sum()`` is P(still standing
    after ``steps`` attacks). With ``overshoot_to`` (at least ``need``), ``out[k]`` is
    P(the attack at which running damage first reaches ``need`` takes it to
    ``overshoot_to`` or more, at attack k): the attacks that reach ``need`` and fall short
    of ``overshoot_to`` count in no cell.
    """
    top = need if overshoot_to is None else overshoot_to
    out = np.zeros(steps + 1)
    standing = np.zeros(need)  # standing[s]: s damage so far, not yet down
    standing[0] = 1.0
    for k in range(1, steps + 1):
        dealt = np.convolve(standing, attacks[(k - 1) % len(attacks)])
        out[k] = dealt[top:].sum()
        standing = dealt[:need]
    return out


def attack_rounds(pattern: Sequence[int], rounds: int) -> int:
    """How many attacks are made in ``rounds`` rounds when round r makes
    ``pattern[(r - 1) % len(pattern)]`` attacks."""
    return sum(pattern[r % len(pattern)] for r in range(rounds))


# ---------------------------------------------------------------------------------------
# Per-encounter sums kept per batch
# ---------------------------------------------------------------------------------------


def batch_sizes(encounters: int, batches: int) -> np.ndarray:
    """Encounters in each batch: encounter e belongs to batch ``e * batches // encounters``
    (simlab.engine.tallies)."""
    batch = np.arange(encounters) * batches // encounters
    return np.bincount(batch, minlength=batches)


def per_encounter_verdict(
    sums: np.ndarray, encounters: int, mean: float, var: float
) -> tuple[float, float]:
    """How a per-encounter quantity's batch sums agree with its exact mean and variance.

    Parameters
    ----------
    sums : numpy.ndarray
        The tally's sums per batch, shape (B,).
    encounters : int
        Encounters simulated.
    mean, var : float
        Exact mean and variance of the quantity in one encounter.

    Returns
    -------
    z, p : float
        ``z``: the overall mean's distance from ``mean`` in standard errors,
        σ = sqrt(var / encounters); ``p``: the p-value of Σ_b z_b² ~ χ²(B), z_b each
        batch mean's standardised distance (batches hold hundreds of encounters, so each
        z_b is close to normal), which also fails when the spread between batches is not
        the exact variance's.
    """
    sizes = batch_sizes(encounters, len(sums))
    z = (sums.sum() / encounters - mean) / math.sqrt(var / encounters)
    z_b = (sums - sizes * mean) / np.sqrt(sizes * var)
    return float(z), float(stats.chi2.sf(float(z_b @ z_b), len(sums)))


# ---------------------------------------------------------------------------------------
# Comparisons of simulated tallies with an exact distribution
# ---------------------------------------------------------------------------------------

#: A chi-square or batch test below this p-value fails.
P_MIN = 1e-4
#: Expected cells below this are impossible: the simulator must never land in them.
IMPOSSIBLE = 1e-12


def combatant_index(res: simlab.Result, combatant: str) -> int:
    """Where ``combatant`` (a copy's own name) stands in ``res``' tallies."""
    return [name for _, name in res.layout.combatants].index(combatant)


def down_rounds(res: simlab.Result, combatant: str) -> np.ndarray:
    """The histogram, by round, of ``combatant``'s Down (``down_round``)."""
    return res.tallies.down_round[combatant_index(res, combatant)]


def event_rounds(res: simlab.Result, combatant: str, event: str) -> np.ndarray:
    """The histogram, by round, of the first time ``event`` happened to ``combatant``."""
    return res.tallies.event_round[combatant_index(res, combatant), res.layout.events.index(event)]


def assert_rounds_match(encounters: int, hist: np.ndarray, pmf: np.ndarray, what: str) -> None:
    """A histogram of rounds (or of attacks) 1.. over ``encounters``, with the encounters
    it never counts as one more cell, against the exact ``pmf`` (cell 0 empty in both): no
    count where the chain says none can be, and a chi-square p above :data:`P_MIN`."""
    assert hist[0] == 0 and pmf[0] == 0 and hist[len(pmf) :].sum() == 0, what
    observed = np.append(hist[1 : len(pmf)], encounters - hist.sum())
    expected = np.append(pmf[1:], 1 - pmf.sum())
    assert np.all(observed[expected <= IMPOSSIBLE] == 0), (what, observed, expected)
    p = chi_square_p(observed, expected)
    assert p > P_MIN, (what, p, observed[:40], expected[:40] * encounters)


def assert_damage_matches(hist: np.ndarray, pmf: np.ndarray, what: str) -> None:
    """A pair's damage histogram (``damage_hist``: every attack made, 0 for a miss) against
    the exact damage of one attack, the attacks independent of each other: none where
    the chain says none can be, and a chi-square p above :data:`P_MIN`."""
    assert hist[len(pmf) :].sum() == 0, (what, hist)
    seen = hist[: len(pmf)]
    assert np.all(seen[pmf <= IMPOSSIBLE] == 0), (what, seen, pmf)
    p = chi_square_p(seen, pmf)
    assert p > P_MIN, (what, p, seen, pmf * seen.sum())


def assert_sum_matches(encounters: int, sums: np.ndarray, pmf: np.ndarray, what: str) -> None:
    """A per-encounter quantity kept as batch sums (``status_damage``, ``momentum_spent``,
    a pair's ``attempts``) against its exact ``pmf`` over one encounter: equal to the
    certain value where the chain says it cannot vary, else within ``K_SIGMA`` standard
    errors with batch means that fit (:func:`per_encounter_verdict`, p above
    :data:`P_MIN`)."""
    values = np.arange(len(pmf))
    mean = float(values @ pmf)
    var = float(((values - mean) ** 2) @ pmf)
    if var < IMPOSSIBLE:
        assert sums.sum() == round(mean) * encounters, (what, sums.sum() / encounters, mean)
        return
    z, p = per_encounter_verdict(sums, encounters, mean, var)
    assert abs(z) <= K_SIGMA and p > P_MIN, (what, z, p, mean)


def mean_round(pmf: np.ndarray) -> float:
    """The mean round of a (defective) pmf of rounds, given the event happens."""
    return float(np.arange(len(pmf)) @ pmf) / pmf.sum()


def assert_mean_attacks_to_down(res: simlab.Result, combatant: str, pmf: np.ndarray) -> None:
    """``combatants()``' ``mean_attacks_to_down`` of ``combatant`` within ``K_SIGMA``
    standard errors of the mean of ``pmf`` (attacks received until down, a defective
    pmf: the rest never down) given that it went down."""
    k = np.arange(len(pmf))
    p_down = pmf.sum()
    mean = float(k @ pmf) / p_down
    var = float((k * k) @ pmf) / p_down - mean**2
    row = res.combatants().set_index("combatant").loc[combatant]
    sigma = math.sqrt(var / row.downed)
    assert abs(row.mean_attacks_to_down - mean) <= K_SIGMA * sigma, (row.mean_attacks_to_down, mean)


def assert_draft1_down_matches(res: simlab.Result, combatant: str, exact: dict[str, np.ndarray],
                               what: str) -> None:  # fmt: skip
    """A draft1 defender's attacks received at its Down (``down_attacks`` and their
    mean), its Down round, its ``downed`` event (the Down round itself) and its
    ``shaken`` event rounds against a chain's ``attacks``, ``down`` and ``shaken``
    (:func:`draft1_passive_rounds`)."""
    c = combatant_index(res, combatant)
    n, tallies = res.encounters, res.tallies
    assert_rounds_match(n, tallies.down_attacks[c], exact["attacks"], f"{what} attacks")
    assert_rounds_match(n, tallies.down_round[c], exact["down"], f"{what} down")
    assert np.array_equal(event_rounds(res, combatant, "downed"), tallies.down_round[c]), what
    shaken = event_rounds(res, combatant, "shaken")
    assert_rounds_match(n, shaken, exact["shaken"], f"{what} shaken")
    assert_mean_attacks_to_down(res, combatant, exact["attacks"])


# ---------------------------------------------------------------------------------------
# A chain over a small state
# ---------------------------------------------------------------------------------------

State = tuple[int, ...]
Step = Callable[[State], list[tuple[float, State]]]


def step_all(states: dict[State, float], step: Step) -> dict[State, float]:
    """Advance a distribution over states by one ``step`` (state → [(p, next)])."""
    out: dict[State, float] = {}
    for state, p in states.items():
        for q, nxt in step(state):
            out[nxt] = out.get(nxt, 0.0) + p * q
    return out


def blocked_down(
    profile: Sequence[int], block_at: int, grit: int, hp: int, cost: int, strikes: int
) -> np.ndarray:
    """P(a Blocking defender is Downed at the k-th strike), k = 1..``strikes``, in the two
    Shattered Spirits drafts (docs/rules/shattered-spirits.md and -draft1.md, "Reactions";
    ``reaction_cost``): each strike reads 2d6's row of ``profile`` (rows 2..12); when that
    damage reaches ``block_at`` and the defender holds ``cost`` Grit of its ``grit``, it
    pays and the roll drops by 1 and is read again (the caller's profile keeps a Blocked
    roll on a row); at ``hp`` damage taken it is Downed. Every strike may be Blocked (one
    a Turn). The chain's state: (damage taken, Grit left)."""
    two = two_d6()
    down = np.zeros(strikes + 1)
    states: dict[State, float] = {(0, grit): 1.0}
    for k in range(1, strikes + 1):
        nxt: dict[State, float] = {}
        for (taken, left), p in states.items():
            for roll in range(2, 13):
                damage, after = profile[roll - 2], left
                if damage >= block_at and left >= cost:
                    damage, after = profile[roll - 3], left - cost
                if taken + damage >= hp:
                    down[k] += p * two[roll]
                else:
                    key = (taken + damage, after)
                    nxt[key] = nxt.get(key, 0.0) + p * two[roll]
        states = nxt
    return down


Outcomes = list[tuple[float, int]]


def duel_attack(
    states: dict[State, float],
    by_x: bool,
    damage: Callable[[State], Outcomes],
    lethal: tuple[int, int],
    down: tuple[np.ndarray, np.ndarray],
    r: int,
) -> dict[State, float]:
    """One attack in round ``r`` of a duel in which both X and Y attack, over the states
    (damage taken by X, damage taken by Y): X's at Y when ``by_x``, else Y's at X,
    dealing ``damage(state)`` [(p, damage)]. A side whose damage taken reaches its
    ``lethal`` (X's, Y's) is down and the duel over: that probability is added to its
    ``down`` array at ``r`` and leaves the chain. Returns the states of the duel going on.
    """
    going: dict[State, float] = {}
    for (x, y), p in states.items():
        for q, dealt in damage((x, y)):
            x2, y2 = (x, y + dealt) if by_x else (x + dealt, y)
            if x2 >= lethal[0]:
                down[0][r] += p * q
            elif y2 >= lethal[1]:
                down[1][r] += p * q
            else:
                going[(x2, y2)] = going.get((x2, y2), 0.0) + p * q
    return going


def duel_down_rounds(
    x_first: float,
    turns: tuple[int, int],
    damage: tuple[Outcomes, Outcomes],
    lethal: tuple[int, int],
    rounds: int,
) -> dict[str, np.ndarray]:
    """P(X / Y is down in round r), r = 0..``rounds``, in a duel in which both attack:
    X acts first in every round with probability ``x_first`` (the turn order is rolled
    once an encounter), each making its ``turns`` attacks (X's, Y's) a turn, X dealing
    ``damage[0]`` to Y and Y ``damage[1]`` to X, by :func:`duel_attack`."""
    down = {k: np.zeros(rounds + 1) for k in ("X", "Y")}
    x_turn, y_turn = "X" * turns[0], "Y" * turns[1]
    for weight, order in ((x_first, x_turn + y_turn), (1 - x_first, y_turn + x_turn)):
        states: dict[State, float] = {(0, 0): weight}
        for r in range(1, rounds + 1):
            for who in order:
                dealt = damage[0] if who == "X" else damage[1]
                states = duel_attack(states, who == "X", lambda _, d=dealt: d, lethal,
                                     (down["X"], down["Y"]), r)  # fmt: skip
    return down


def outcomes(pmf: np.ndarray) -> list[tuple[float, int]]:
    """(probability, value) of every value of ``pmf`` that can happen."""
    return [(float(p), v) for v, p in enumerate(pmf) if p > 0]


def draft1_attack(
    profile: Sequence[int],
    modifier: int = 0,
    net_advantage: int = 0,
    glancing: bool = False,
    guard: int = 0,
    exposed: int = 0,
    status: dict[int, int] | None = None,
    *,
    damage_modifier: int = 0,
    impaired: int = 0,
    cover: bool = False,
    overflow_damage: int = 2,
    exposed_per_level: int = 1,
    impaired_per_level: int = 1,
    glancing_divisor: int = 2,
    cover_guard: int = 2,
) -> list[tuple[float, int, int]]:
    """docs/rules/shattered-spirits-draft1.md, "An attack" (no reaction): (probability,
    damage, Exposed the hit adds to the target) of every outcome.

    2d6 (net Advantage: 3d6 keep the highest two; net Disadvantage: the lowest two) +
    ``modifier``; below 2 (or a row of 0 damage) misses and deals nothing; otherwise,
    in the earlier draft's order: 1. the row's damage (row 12 above 12); 2. +
    ``damage_modifier`` − ``impaired`` (the attacker's Impaired) × ``impaired_per_level``,
    + ``overflow_damage`` above 12 (row 12 deals some here), floor 0; 3. Glancing divides
    by ``glancing_divisor`` rounding up (a target in ``cover`` makes the attack Glancing,
    or adds ``cover_guard`` to its Guard when it already is); 4. + the target's
    ``exposed`` × ``exposed_per_level``; 5. − ``guard``, floor 0. ``status`` maps a row
    (2..12) to the Exposed it inflicts on a hit. The keyword parameters' defaults are the
    page's.
    """
    status = status or {}
    n_dice = 2 if net_advantage == 0 else 3
    out: dict[tuple[int, int], float] = {}
    for dice in np.ndindex(*(6,) * n_dice):
        kept = sorted(d + 1 for d in dice)
        if n_dice == 3:
            kept = kept[1:] if net_advantage > 0 else kept[:2]
        roll = sum(kept) + modifier
        row = min(roll, 12)
        if roll < 2 or profile[row - 2] == 0:
            key = (0, 0)
        else:
            damage = profile[row - 2] + damage_modifier - impaired * impaired_per_level
            damage = max(damage + (overflow_damage if roll > 12 else 0), 0)
            shield, glances = guard, glancing
            if cover:
                if glancing:
                    shield += cover_guard
                else:
                    glances = True
            if glances:
                damage = -(-damage // glancing_divisor)
            damage += exposed * exposed_per_level
            key = (max(damage - shield, 0), status.get(row, 0))
        out[key] = out.get(key, 0.0) + 6.0**-n_dice
    return [(p, damage, gain) for (damage, gain), p in sorted(out.items())]


def p_fumble(modifier: int) -> float:
    """docs/rules/shattered-spirits-draft1.md, "An attack": P(a roll with Disadvantage —
    3d6 keep the lowest two — + ``modifier`` is below 2, a fumble)."""
    return sum(sum(sorted(d)[:2]) + 2 + modifier < 2 for d in np.ndindex(6, 6, 6)) / 216


def fumbler_down_rounds(
    pf: float,
    jab: Sequence[int],
    hp: int,
    focus: int,
    cost: int | None,
    exposed: int,
    lasts: str,
    rounds: int,
) -> np.ndarray:
    """docs/rules/shattered-spirits-draft1.md, "Fumbles": P(a fumbler is Downed in round
    r), r = 0..``rounds``. Each Round it swings first, fumbling with probability ``pf``;
    a fumble is paid with ``cost`` Focus while it holds that many (``cost`` None: never
    paid), else it makes it ``exposed`` more Exposed, for the Round or the encounter
    (``lasts``); then its opponent's ``jab`` (:func:`draft1_attack`, + its Exposed) hits
    it, and it is Downed once the damage reaches ``hp``. The chain's state: (damage
    taken, Exposed, Focus)."""
    most = exposed * rounds
    jabs = {e: draft1_attack(jab, exposed=e) for e in range(0, most + 1, max(exposed, 1))}
    down = np.zeros(rounds + 1)

    def swing(s: State) -> list[tuple[float, State]]:
        taken, ex, fo = s
        if cost is not None and fo >= cost:
            return [(1 - pf, s), (pf, (taken, ex, fo - cost))]
        return [(1 - pf, s), (pf, (taken, ex + exposed, fo))]

    states: dict[State, float] = {(0, 0, focus): 1.0}
    for r in range(1, rounds + 1):
        states = step_all(states, swing)
        going: dict[State, float] = {}
        for (taken, ex, fo), p in states.items():
            for q, damage, _ in jabs[ex]:
                if taken + damage >= hp:
                    down[r] += p * q
                else:
                    key = (taken + damage, 0 if lasts == "round" else ex, fo)
                    going[key] = going.get(key, 0.0) + p * q
        states = going
    return down


def draft1_passive_rounds(
    attacks: Sequence[Callable[[int], list[tuple[float, int, int]]]],
    toughness: tuple[int, int, int],
    rounds: int,
    exposed_lasts_round: bool = True,
    endurance_overflow: bool = True,
) -> dict[str, np.ndarray]:
    """docs/rules/shattered-spirits-draft1.md, "How a Round is played" and "An attack": a
    passive defender of (Vigor, Endurance, Health) ``toughness`` receives, every Round,
    the ``attacks`` in order, each a function of the Exposed the defender has gained so
    far to its outcomes (probability, damage, Exposed the hit adds), e.g. a
    :func:`draft1_attack` (whose ``exposed`` then holds any starting level too).

    Damage takes Vigor, then Endurance — its 0 Shakes — then Health (the excess beyond
    Endurance goes on with ``endurance_overflow``, else it is lost), whose 0 Downs the
    defender; the
    Exposed gained wears off at the End Phase unless it lasts the encounter. Returns
    P(Downed at the k-th attack received) (``attacks``), P(Downed in round r)
    (``down``) and P(Shaken in round r) (``shaken``). The chain's state: (damage taken,
    Shaken, Exposed gained).
    """
    shaken_at, down_at = toughness[0] + toughness[1], sum(toughness)
    by_attack = np.zeros(rounds * len(attacks) + 1)
    down, shaken = np.zeros(rounds + 1), np.zeros(rounds + 1)
    seen: dict[tuple[int, int], list[tuple[float, int, int]]] = {}
    states: dict[State, float] = {(0, 0, 0): 1.0}
    k = 0
    for r in range(1, rounds + 1):
        for i, attack in enumerate(attacks):
            k += 1
            nxt: dict[State, float] = {}
            for (taken, is_shaken, gained), p in states.items():
                if (i, gained) not in seen:
                    seen[i, gained] = attack(gained)
                for q, damage, gain in seen[i, gained]:
                    t, s = taken + damage, is_shaken
                    if not s and t >= shaken_at:
                        s = 1
                        shaken[r] += p * q
                        t = t if endurance_overflow else shaken_at
                    if t >= down_at:
                        by_attack[k] += p * q
                        down[r] += p * q
                        continue
                    key = (t, s, gained + gain)
                    nxt[key] = nxt.get(key, 0.0) + p * q
            states = nxt
        if exposed_lasts_round:
            states = step_all(states, lambda s: [(1.0, (s[0], s[1], 0))])
    return {"attacks": by_attack, "down": down, "shaken": shaken}


def damage_pmf(outcomes: Sequence[tuple[float, int, int]]) -> np.ndarray:
    """The pmf of the damage of :func:`draft1_attack`'s ``outcomes``."""
    pmf = np.zeros(max(d for _, d, _ in outcomes) + 1)
    for q, damage, _ in outcomes:
        pmf[damage] += q
    return pmf
