"""Synthetic simulation results drawn straight from fixed probabilities (no simulator).

Counts are binomial / multinomial draws, so two results made from the same
probabilities with different generators differ by sampling noise only: exactly the null
hypothesis of the drift gate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simlab.analysis.result import Result
from simlab.engine.tallies import Layout, new_tallies

ROUNDS = 10
DAMAGE = [0.3, 0.0, 0.1, 0.2, 0.2, 0.1, 0.05, 0.05]  # P(damage = 0, 1, …, 7)


@dataclass
class Truth:
    """The probabilities a synthetic result is drawn from."""

    hit: float = 0.6
    crit: float = 0.1  # of hits
    damage: list[float] = field(default_factory=lambda: list(DAMAGE))
    # P(first down in round 1..ROUNDS) for each combatant; the rest is never downed.
    down: tuple[list[float], list[float]] = (
        [0.0, 0.05, 0.1, 0.15, 0.15, 0.1, 0.05, 0.05, 0.0, 0.0],
        [0.0, 0.0, 0.05, 0.1, 0.1, 0.1, 0.05, 0.0, 0.0, 0.0],
    )
    winner: list[float] = field(default_factory=lambda: [0.55, 0.4, 0.05])
    attacks_per_encounter: int = 5


LAYOUT = Layout(sides=["heroes", "villains"], combatants=[("heroes", "A"), ("villains", "B")],
                attacks=["strike"], events=["out"], max_rounds=ROUNDS, damage_bins=12,
                side_of=[0, 1])  # fmt: skip


def synthetic_result(truth: Truth, n: int, rng: np.random.Generator) -> Result:
    """A Result whose tallies are drawn from ``truth`` for ``n`` encounters."""
    lay = LAYOUT
    t = new_tallies(lay)
    per_batch = np.diff(np.arange(lay.batches + 1) * n // lay.batches)
    damage = np.asarray(truth.damage) / np.sum(truth.damage)
    for a, d in ((0, 1), (1, 0)):
        p = lay.pair(a, 0, d)
        attempts = per_batch * truth.attacks_per_encounter
        t.attempts[p] = attempts
        t.hits[p] = rng.binomial(attempts, truth.hit)
        t.crits[p] = rng.binomial(t.hits[p], truth.crit)
        for b, m in enumerate(attempts):
            counts = rng.multinomial(m, damage)
            t.damage_sum[p, b] = int(np.dot(np.arange(len(damage)), counts))
            t.damage_hist[p, : len(damage)] += counts
    for c, probs in enumerate(truth.down):
        p_never = 1.0 - sum(probs)
        drawn = rng.multinomial(n, [*probs, p_never])
        t.down_round[c, 1:] = drawn[:-1]
        t.event_round[c, 0, 1:] = drawn[:-1]
        # Never-downed encounters end (are censored) somewhere in rounds 3..ROUNDS.
        t.censor_round[c, 3:] = rng.multinomial(drawn[-1], np.full(ROUNDS - 2, 1 / (ROUNDS - 2)))
    t.winner[:] = rng.multinomial(n, truth.winner)
    t.rounds[1:] = rng.multinomial(n, np.full(ROUNDS, 1 / ROUNDS))
    return Result(scenario="synthetic", rules="synthetic", encounters=n, seed=0, layout=lay,
                  tallies=t)  # fmt: skip
