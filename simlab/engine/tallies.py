"""Integer tallies: what every block of encounters returns, merged by addition.

Tallies are histograms and counts, never per-encounter rows, so memory does not grow
with the number of encounters, and blocks merge exactly in any order — a run split over
threads, blocks or cluster workers gives the same integers bit for bit.

Layout (P attack pairs = attacker × attack × defender, B batches, D damage bins,
C combatants, E rule-specific events, R round cap, S sides, K attack-count bins):

========================  ==============  =============================================
name                      shape           meaning
========================  ==============  =============================================
attempts, hits, crits     (P, B)          attacks made / that hit / that crit, per batch
damage_sum                (P, B)          total damage of those attacks, per batch
damage_hist               (P, D)          attacks by damage dealt (last bin: ≥ D−1)
down_round                (C, R+1)        encounters in which the combatant first went
                                          down in round r
censor_round              (C, R+1)        encounters that ended after round r with the
                                          combatant never down (at r = R: "capped")
down_attacks              (C, K)          attacks received up to and including the one
                                          that downed it (last bin: ≥ K−1)
event_round               (C, E, R+1)     round of each rule-specific event (out, dead…)
winner                    (S+1,)          encounters won by each side; last entry: draws
rounds                    (R+1,)          encounters by the round they ended in
status_damage             (C, B)          damage the combatant took from statuses
                                          (bleeding, burning…), per batch; 0 in systems
                                          without statuses
momentum_spent            (C, B)          Momentum the combatant spent, per batch; 0 in
                                          scenarios that spend none
========================  ==============  =============================================

A batch is a fixed, contiguous range of encounter indices (``encounter * B // n``), so
batch-means intervals do not depend on how the work was split.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

N_BATCHES = 32
ATTACK_BINS = 256


class TallyArrays(NamedTuple):
    """The tally arrays; inside a kernel each has a leading chunk axis."""

    attempts: np.ndarray
    hits: np.ndarray
    crits: np.ndarray
    damage_sum: np.ndarray
    damage_hist: np.ndarray
    down_round: np.ndarray
    censor_round: np.ndarray
    down_attacks: np.ndarray
    event_round: np.ndarray
    winner: np.ndarray
    rounds: np.ndarray
    status_damage: np.ndarray
    momentum_spent: np.ndarray


@dataclass(frozen=True)
class Layout:
    """Names and sizes that give the tally arrays their meaning.

    Parameters
    ----------
    sides : list of str
        Side names in scenario order.
    combatants : list of (str, str)
        (side, name) of each combatant after expanding copies.
    attacks : list of str
        Attack names in scenario order.
    events : list of str
        Names of the rule system's extra per-combatant events (``event_round`` axis 1).
    max_rounds : int
        The round cap R.
    damage_bins : int
        D, the number of damage histogram bins.
    side_of : list of int
        Side index of each combatant.
    attacks_per_round : int
        Most attacks all combatants together can make in a round (sizes trace buffers).
    statuses : bool
        Whether the rule system has statuses that deal damage (``status_damage``).
    crits : bool
        Whether the rule system has critical hits (zones-3d6 has none: tables leave the
        crit rate out).
    momentum : bool
        Whether the scenario spends Momentum (``momentum_spent``; Shattered Spirits with
        Spirits or attacks and reactions priced in Momentum).
    first_rounds : list of int
        Per combatant, the first round in which it can go down (it can first be
        attacked): 1, or 0 for the enemies of a hidden combatant in an opposed-tiers
        scenario with a surprise round (round 0); not given: 1 for every combatant. A
        median time-to-down's interval starts there at the earliest
        (:meth:`first_round_of`).
    """

    sides: list[str]
    combatants: list[tuple[str, str]]
    attacks: list[str]
    events: list[str]
    max_rounds: int
    damage_bins: int
    batches: int = N_BATCHES
    attack_bins: int = ATTACK_BINS
    side_of: list[int] = field(default_factory=list)
    attacks_per_round: int = 1
    statuses: bool = False
    crits: bool = True
    momentum: bool = False
    first_rounds: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        """Round 1 for every combatant where ``first_rounds`` is not given."""
        if not self.first_rounds:
            object.__setattr__(self, "first_rounds", [1] * len(self.combatants))

    @property
    def first_round(self) -> int:
        """The first round in which anyone can go down: 0 when someone can in the
        surprise round, else 1 (:meth:`first_round_of` every combatant)."""
        return self.first_round_of(range(len(self.combatants)))

    def first_round_of(self, combatants: Iterable[int]) -> int:
        """The first round in which any of ``combatants`` (indices, one or several
        pooled) can go down (``first_rounds``).

        Parameters
        ----------
        combatants : iterable of int
            Combatant indices.

        Returns
        -------
        int
            0 or 1; 1 for no combatant.
        """
        return min((self.first_rounds[c] for c in combatants), default=1)

    @property
    def per_encounter_tallies(self) -> list[str]:
        """The per-combatant (C, B) tallies this scenario reports as means per encounter:
        ``status_damage`` where statuses deal damage, ``momentum_spent`` where Momentum
        is spent. Tables, summaries, the drift gate and precision runs all follow it."""
        shown = (("status_damage", self.statuses), ("momentum_spent", self.momentum))
        return [name for name, on in shown if on]

    @property
    def n_pairs(self) -> int:
        """Number of (attacker, attack, defender) slots."""
        return len(self.combatants) * len(self.attacks) * len(self.combatants)

    def pair(self, attacker: int, attack: int, defender: int) -> int:
        """Index of an (attacker, attack, defender) slot, as the kernels compute it."""
        n = len(self.combatants)
        return (attacker * len(self.attacks) + attack) * n + defender

    def unpair(self, index: int) -> tuple[int, int, int]:
        """Inverse of :meth:`pair`."""
        n = len(self.combatants)
        rest, defender = divmod(index, n)
        attacker, attack = divmod(rest, len(self.attacks))
        return attacker, attack, defender


def new_tallies(layout: Layout, chunks: int = 0) -> TallyArrays:
    """Zeroed tallies for ``layout``; with ``chunks`` > 0, a leading chunk axis."""
    lead = (chunks,) if chunks else ()
    p, c = layout.n_pairs, len(layout.combatants)
    r1 = layout.max_rounds + 1

    def zeros(*shape: int) -> np.ndarray:
        return np.zeros(lead + shape, dtype=np.int64)

    return TallyArrays(
        attempts=zeros(p, layout.batches),
        hits=zeros(p, layout.batches),
        crits=zeros(p, layout.batches),
        damage_sum=zeros(p, layout.batches),
        damage_hist=zeros(p, layout.damage_bins),
        down_round=zeros(c, r1),
        censor_round=zeros(c, r1),
        down_attacks=zeros(c, layout.attack_bins),
        event_round=zeros(c, len(layout.events), r1),
        winner=zeros(len(layout.sides) + 1),
        rounds=zeros(r1),
        status_damage=zeros(c, layout.batches),
        momentum_spent=zeros(c, layout.batches),
    )


def collapse(chunked: TallyArrays) -> TallyArrays:
    """Sum the chunk axis away."""
    return TallyArrays(*(a.sum(axis=0) for a in chunked))


def merge(a: TallyArrays, b: TallyArrays) -> TallyArrays:
    """Add two tallies of the same layout (exact: integers)."""
    return TallyArrays(*(x + y for x, y in zip(a, b, strict=True)))
