"""The time-to-down Markov chain shared by every rule system's exact module.

In a duel whose damage does not depend on history — one attacker, one passive defender,
each attack's damage independent of what came before — the damage dealt so far is a
Markov chain, and the defender goes down in the first round whose running total reaches
what it can take (``need``: HP, plus Vigor or Endurance where the system has them).
Damage is never negative, so the total reaches ``need`` within a round exactly when it
has reached it by the round's end: a round's attacks can be convolved into one round
distribution. Rounds may differ (an attack rotation that repeats every few rounds), so
the chain takes one distribution per round of a repeating cycle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simlab.errors import ExactUnsupported

__all__ = ["MAX_CHAIN_ROUNDS", "MAX_CHAIN_WORK", "ONE_SIDED_DUEL", "TAIL_TOLERANCE",
           "TimeToDown", "and_listed", "duel_roles", "rotation_cycle", "round_damage",
           "time_to_reach"]  # fmt: skip

#: Stop once the mass still standing is below this (and the round cap is reached); it
#: bounds the truncation error of the mean (see :class:`TimeToDown`).
TAIL_TOLERANCE = 1e-15
#: Rounds the chain may run before giving up as too slow to converge.
MAX_CHAIN_ROUNDS = 200_000
#: Largest chain solved, in element operations (≈ 3 × mean rounds × ``need`` × distinct
#: damages per round; about 3e8 a second): a few seconds at most, where a defender with
#: 100,000 HP hit for 1.5 a round would take hours.
MAX_CHAIN_WORK = 1e9
_UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True)
class TimeToDown:
    """Exact distribution of the round in which a duel's defender first goes down.

    Attributes
    ----------
    pmf : numpy.ndarray
        ``pmf[r]`` = P(first down in round r), r ≥ 1 (``pmf[0]`` is 0), uncapped: it runs
        until the mass still standing is below ``TAIL_TOLERANCE`` (or to ``max_rounds``,
        whichever is later).
    tail : float
        P(still standing after the last round of ``pmf``).
    max_rounds : int
        The scenario's round cap.
    mean : float
        E[round of first down] without the cap; ``inf`` when it can never happen.
    variance : float
        Var[round of first down] without the cap (``inf`` when it can never happen).
    median : int or None
        The smallest round r with P(down by r) ≥ 1/2 (the Kaplan–Meier median of the
        simulator's tables); None when that never happens.
    error_bound : float
        Bound on |computed mean − exact mean|: the truncated tail contributes at most
        ``tail · (R + P − 1 + mean)`` (R: last round of ``pmf``, P: rounds per cycle;
        from any state the expected time left is at most P − 1 rounds to realign the
        cycle plus the mean from the start), and float64 rounding of sums and products
        of non-negative terms at most ``γ_n · mean`` with ``γ_n = n·u/(1 − n·u)``,
        u = 2⁻⁵³, n the depth of the operations.
    """

    pmf: np.ndarray
    tail: float
    max_rounds: int
    mean: float
    variance: float
    median: int | None
    error_bound: float

    @property
    def capped_pmf(self) -> np.ndarray:
        """``pmf`` up to the round cap: P(first down in round r), r = 0..max_rounds."""
        out = np.zeros(self.max_rounds + 1)
        n = min(len(self.pmf), self.max_rounds + 1)
        out[:n] = self.pmf[:n]
        return out

    @property
    def censored(self) -> float:
        """P(not down by the round cap): the encounters the simulator censors."""
        return float(self.pmf[self.max_rounds + 1 :].sum()) + self.tail


#: What the exact time-to-down solves, said first by the refusal of a scenario that is not it.
ONE_SIDED_DUEL = ("expected a one-sided duel (one combatant with attacks, and one opponent "
                  "that does not fight back)")  # fmt: skip
#: The most names a refusal lists before it counts the rest.
NAMES_LISTED = 4


def duel_roles(scenario: Any) -> tuple[int, int]:
    """(attacker, defender) indices of a duel, or ExactUnsupported saying why it is not one.

    A duel (README, "Scenarios" and "Output files") has exactly one combatant with attacks and
    exactly one combatant on the other sides, who therefore makes none. Indices are positions after
    ``count:`` expansion. A refusal says that (:data:`ONE_SIDED_DUEL`) and what the
    scenario has instead: ``got 2 combatants with attacks, Kaito and Brute, who fight
    each other``.

    Parameters
    ----------
    scenario : ScenarioBase
        Any loaded scenario; its combatants' ``attacks`` lists decide who attacks.
    """
    combatants = scenario.expanded()
    names = [name for _, name in scenario.combatant_names()]
    attackers = [c for c, (_, m) in enumerate(combatants) if m.attacks]
    if len(attackers) != 1:
        got = _named(attackers, names, "combatant with attacks", "combatants with attacks")
        if len(attackers) == 2 == len({combatants[c][0] for c in attackers}):
            got += ", who fight each other"
        raise ExactUnsupported(f"{ONE_SIDED_DUEL}; got {got}")
    a = attackers[0]
    enemies = [c for c, (s, _) in enumerate(combatants) if s != combatants[a][0]]
    if len(enemies) != 1:
        whose = f"opponent of {names[a]!r}", f"opponents of {names[a]!r}"
        raise ExactUnsupported(f"{ONE_SIDED_DUEL}; got {_named(enemies, names, *whose)}")
    return a, enemies[0]


def and_listed(names: Sequence[str]) -> str:
    """``names`` joined as prose: ``Kaito``, ``Kaito and Mira``, ``Kaito, Mira and Rin``.

    Parameters
    ----------
    names : Sequence of str
        The names, at least one.

    Returns
    -------
    str
    """
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _named(found: Sequence[int], names: Sequence[str], noun: str, plural: str) -> str:
    """The combatants ``found`` (indices into ``names``) counted and named: ``no
    combatant with attacks``, ``2 combatants with attacks, Kaito and Brute``, ``6 …
    (Knight, Duelist, Mage, Ogre and 2 more)``."""
    if not found:
        return f"no {noun}"
    shown = [names[c] for c in found[:NAMES_LISTED]]
    more = len(found) - len(shown)
    listed = and_listed([*shown, f"{more} more"] if more else shown)
    count = f"{len(found)} {noun if len(found) == 1 else plural}"
    return f"{count}, {listed}" if len(found) <= 2 else f"{count} ({listed})"


def round_damage(attack_pmfs: Sequence[np.ndarray]) -> np.ndarray:
    """Damage distribution of a round: the sum of its independent attacks' damages.

    Parameters
    ----------
    attack_pmfs : sequence of numpy.ndarray
        ``attack_pmfs[k][d]`` = P(the round's k-th attack deals d damage).
    """
    total = np.ones(1)
    for pmf in attack_pmfs:
        total = np.convolve(total, pmf)
    return total


def rotation_cycle(
    attacks: Sequence[str], per_round: int, damage_pmf: Callable[[str], np.ndarray]
) -> list[np.ndarray]:
    """Damage distribution of each round while an attacker cycles through its attacks.

    The attacker makes ``per_round`` attacks a round, taking ``attacks`` in rotation
    across rounds (the shared reading of every system's attack list), so the rounds
    repeat after ``len(attacks) / gcd(len(attacks), per_round)`` rounds.

    Parameters
    ----------
    attacks : sequence of str
        The attacker's attack names, in rotation order.
    per_round : int
        Attacks it makes each round.
    damage_pmf : callable
        ``damage_pmf(name)`` → the damage distribution of one such attack.

    Returns
    -------
    list of numpy.ndarray
        One round distribution per round of the cycle, for :func:`time_to_reach`.
    """
    rotation = len(attacks)
    period = rotation // math.gcd(rotation, per_round)
    pmfs = {name: damage_pmf(name) for name in dict.fromkeys(attacks)}
    return [
        round_damage([pmfs[attacks[(r * per_round + k) % rotation]] for k in range(per_round)])
        for r in range(period)
    ]


def time_to_reach(need: int, cycle: Sequence[np.ndarray], max_rounds: int) -> TimeToDown:
    """The round in which the damage dealt so far first reaches ``need``.

    Parameters
    ----------
    need : int
        Damage that takes the defender down (≥ 0; 0 means down before round 1).
    cycle : sequence of numpy.ndarray
        Damage distribution of each round of a repeating cycle: round r (from 1) deals
        ``cycle[(r - 1) % len(cycle)]``, independently of every other round.
    max_rounds : int
        The scenario's round cap (the chain runs at least this far).

    Returns
    -------
    TimeToDown

    Raises
    ------
    ExactUnsupported
        When the chain would be too slow (see :data:`MAX_CHAIN_WORK`) or converges too
        slowly (over :data:`MAX_CHAIN_ROUNDS` rounds).
    """
    never = np.zeros(max_rounds + 1)
    if need <= 0:
        return TimeToDown(never, 0.0, max_rounds, 0.0, 0.0, 0, 0.0)
    if all(not np.any(pmf[1:] > 0) for pmf in cycle):  # no round ever deals damage
        return TimeToDown(never, 1.0, max_rounds, math.inf, math.inf, None, 0.0)
    _check_work(need, cycle)
    alive = np.zeros(need)  # alive[s] = P(s damage dealt so far and still standing)
    alive[0] = 1.0
    pmf = [0.0]
    remaining = 1.0
    while len(pmf) <= max_rounds or remaining >= TAIL_TOLERANCE:
        if len(pmf) > MAX_CHAIN_ROUNDS:
            raise ExactUnsupported(
                f"expected a defender down within {MAX_CHAIN_ROUNDS:,} rounds but for a "
                f"chance below {TAIL_TOLERANCE:.0e}; got {remaining:.3g} of the encounters "
                "still standing after them (time-to-down converges too slowly)"
            )
        dealt = np.convolve(alive, cycle[(len(pmf) - 1) % len(cycle)])
        # The mass that crosses `need` this round, summed directly: a difference of two
        # sums would leave rounding noise (1e-16) in rounds where nobody can go down.
        pmf.append(float(dealt[need:].sum()))
        alive = dealt[:need]
        remaining = float(alive.sum())
    return _summarise(np.asarray(pmf), remaining, max_rounds, cycle)


def _check_work(need: int, cycle: Sequence[np.ndarray]) -> None:
    """Refuse a chain that would run far longer than :data:`MAX_CHAIN_WORK` allows."""
    per_round = float(np.mean([np.dot(np.arange(len(pmf)), pmf) for pmf in cycle]))
    rounds = 3 * need / per_round
    outcomes = max(len(pmf) for pmf in cycle)
    if rounds * need * outcomes > MAX_CHAIN_WORK:
        raise ExactUnsupported(
            "expected a time-to-down solved in a few seconds; got one too slow to solve "
            f"exactly (about {rounds:,.0f} rounds, each over {need:,} amounts of damage "
            f"still needed to go down and {outcomes:,} outcomes of a round's damage; the "
            "chain runs past the round cap, as the answer gives the mean without it)"
        )


def _summarise(
    probs: np.ndarray, tail: float, max_rounds: int, cycle: Sequence[np.ndarray]
) -> TimeToDown:
    rounds = np.arange(len(probs))
    mean = float(np.dot(rounds, probs))
    variance = float(np.dot((rounds - mean) ** 2, probs))
    cdf = np.cumsum(probs)
    median = int(np.argmax(cdf >= 0.5)) if cdf[-1] >= 0.5 else None
    depth = len(probs) * (max(len(pmf) for pmf in cycle) + 2) + 40
    gamma = depth * _UNIT_ROUNDOFF / (1 - depth * _UNIT_ROUNDOFF)
    bound = tail * (len(probs) - 1 + len(cycle) - 1 + mean) + gamma * mean
    return TimeToDown(probs, tail, max_rounds, mean, variance, median, bound)
