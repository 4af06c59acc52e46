"""Which attack pairs a sweep draws as moving: a sweep that moves nothing draws a pair
with chance at most ``FALSE_MOVE_RATE`` (README, "Tuning"; :func:`moving_pairs`).

Null sweeps are made from known distributions, so that the truth is known: every pair
has the same hit rate, crit rate and damage at every point. Their figures and intervals
come from the same functions a sweep's do (``stats.rate_interval`` for the rates,
``stats.ratio_batch_means_many`` for the mean damage, by batches of encounters).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import simlab
from simlab.analysis import stats
from simlab.analysis.result import interval_column
from simlab.report.terminal import level_percent
from simlab.tuning.sweep import (
    FALSE_MOVE_RATE,
    PAIR_FIGURES,
    joint_level,
    moving_level,
    moving_pairs,
    pair_figures,
    split_moving,
)

# Slow tier (make test-slow): runs many sweeps to count false moves.
pytestmark = pytest.mark.slow

FIGURES = list(PAIR_FIGURES)
PAIRS, POINTS, BATCHES, PER_BATCH = 20, 11, 16, 40  # 640 attacks a pair at each point
SWEEPS = 300  # null sweeps; the share drawn moving has a standard error of 1.3% at 5%
FEW_SWEEPS = 40  # for the guard and the power, whose shares lie far from the bound
K_SIGMA = 4.0
HIT, CRIT, DAMAGE_DIE = 0.55, 0.05, 8  # every pair, every point: a hit deals 1d8


def null_sweep(rng: np.random.Generator, level: float, moved: float = 0.0) -> pd.DataFrame:
    """One sweep's attack table (a row per pair and point) with each figure's interval at
    ``level``, every pair alike at every point; ``moved`` adds to pair 0's hit rate at
    the last point."""
    hit = np.full((PAIRS, POINTS, 1, 1), HIT)
    hit[0, -1] += moved
    u = rng.random((PAIRS, POINTS, BATCHES, PER_BATCH))
    tier = (u < hit).astype(int) + (u < CRIT)
    damage = np.where(tier > 0, rng.integers(1, DAMAGE_DIE + 1, tier.shape), 0)
    attempts = np.full(PAIRS * POINTS, BATCHES * PER_BATCH)
    frame = pd.DataFrame({"attacker": np.repeat([f"pair {p}" for p in range(PAIRS)], POINTS),
                          "attack": "a", "defender": "d"})  # fmt: skip
    for figure, hits in (("hit_rate", tier > 0), ("crit_rate", tier == 2)):
        lo, hi, _ = stats.rate_interval(hits.sum(axis=(2, 3)).ravel(), attempts, level)
        frame[interval_column(figure, level, "lo")] = lo
        frame[interval_column(figure, level, "hi")] = hi
    sums = damage.sum(axis=3).reshape(PAIRS * POINTS, BATCHES)
    _, lo, hi = stats.ratio_batch_means_many(sums, np.full(sums.shape, PER_BATCH), level)
    frame[interval_column("mean_damage", level, "lo")] = lo
    frame[interval_column("mean_damage", level, "hi")] = hi
    return frame


def share_drawn_moving(level_of: Any, sweeps: int, moved: float = 0.0,
                       seed: int = 20261129) -> float:  # fmt: skip
    """The share of ``sweeps`` null sweeps in which some pair is drawn as moving, each
    sweep's intervals at ``level_of(sweep's pairs table)``."""
    rng = np.random.default_rng(seed)
    frame_of_pairs = pd.DataFrame({"attacker": [f"pair {p}" for p in range(PAIRS)
                                                for _ in range(POINTS)],
                                   "attack": "a", "defender": "d"})  # fmt: skip
    level = level_of(frame_of_pairs)
    drawn = 0
    for _ in range(sweeps):
        moving, _ = split_moving(null_sweep(rng, level, moved), FIGURES, level)
        drawn += not moving.empty
    return drawn / sweeps


def _sigma(sweeps: int) -> float:
    """The standard error of a share of ``sweeps`` sweeps at :data:`FALSE_MOVE_RATE`."""
    return float(np.sqrt(FALSE_MOVE_RATE * (1 - FALSE_MOVE_RATE) / sweeps))


def test_a_sweep_that_moves_nothing_draws_a_pair_at_most_at_the_false_move_rate() -> None:
    """Intervals at the whole sweep's level (Bonferroni over 20 pairs x 11 points x 3
    figures): null sweeps draw some pair moving in at most 5% of them, within K_SIGMA
    standard errors of the share over 300 sweeps."""
    share = share_drawn_moving(lambda pairs: joint_level(pairs, FIGURES), SWEEPS)
    assert share <= FALSE_MOVE_RATE + K_SIGMA * _sigma(SWEEPS)


def test_guard_each_interval_at_95_percent_draws_noise_as_moving() -> None:
    """Guard: with every interval at 95% (the reading before), most null sweeps of 20
    pairs and 11 points draw some pair as moving, so the test above can fail."""
    share = share_drawn_moving(lambda pairs: 0.95, FEW_SWEEPS)
    assert share > FALSE_MOVE_RATE + K_SIGMA * _sigma(FEW_SWEEPS)


def test_a_pair_that_moves_well_past_its_noise_is_drawn() -> None:
    """Power: pair 0's hit rate 0.25 higher at one point (more than 8 standard errors of
    the difference at 640 attacks a point) is drawn in nearly every sweep."""
    share = share_drawn_moving(lambda pairs: joint_level(pairs, FIGURES), FEW_SWEEPS,
                               moved=0.25)  # fmt: skip
    assert share >= 1 - FALSE_MOVE_RATE


def test_joint_level_counts_the_intervals_of_pairs_seen_at_two_points() -> None:
    """m counts each figure of each pair at each point, leaving out a pair seen once
    (it is drawn in full, not compared)."""
    pairs = pd.DataFrame({"attacker": ["x", "x", "x", "y"], "attack": "a", "defender": "d"})
    assert joint_level(pairs, FIGURES) == 1 - FALSE_MOVE_RATE / 9
    assert joint_level(pairs.iloc[3:], FIGURES) == 0.95  # nothing compared


def test_a_real_sweep_compares_its_intervals_at_the_joint_level(duel: Any) -> None:
    """:func:`moving_pairs` of a run sweep reads intervals at :func:`moving_level`: the
    duel's one pair at three points, each figure its rules have (wider than at 95%)."""
    sw = simlab.sweep(duel, {"Defender.guard": [0, 1, 2]}, n=2000, exact=False)
    figures = len(pair_figures(sw))
    assert moving_level(sw) == 1 - FALSE_MOVE_RATE / (3 * figures)
    level = moving_level(sw)
    bounds = sw.attack_intervals(level)
    wider = (bounds[interval_column("hit_rate", level, "hi")]
             - bounds[interval_column("hit_rate", level, "lo")])  # fmt: skip
    at_95 = sw.attacks().hit_rate_ci95_hi - sw.attacks().hit_rate_ci95_lo
    assert (wider.to_numpy() > at_95.to_numpy()).all()
    moving, _ = moving_pairs(sw)
    assert len(moving) == 1  # Guard moves the strike


def test_a_level_is_printed_with_the_decimals_that_tell_it_from_100_percent() -> None:
    assert level_percent(0.95) == "95%"
    assert level_percent(1 - 0.05 / 396) == "99.987%"  # 99.98737…: short by 0.0126%
    assert level_percent(0.999) == "99.9%"


def test_the_notes_name_the_level_the_flat_pairs_were_judged_at(duel: Any) -> None:
    """The terminal's note and the page's say at what level the pairs left flat were
    compared; a sweep that moves every pair prints neither part."""
    from simlab.report.tuning import _flat_note
    from simlab.report.tuning_terminal import sweep_note

    still = simlab.sweep(duel, {"Attacker.hp": [10, 20, 30]}, n=1000, exact=False)
    level = level_percent(moving_level(still))
    assert f"each at {level}, so that all of the sweep's hold at once with 95%" in (
        sweep_note(still))  # fmt: skip
    flat = moving_pairs(still)[1]
    assert f"each at {level}" in _flat_note(flat, len(flat), moving_level(still))
    moved = simlab.sweep(duel, {"Defender.guard": [0, 3]}, n=1000, exact=False)
    assert "each at" not in sweep_note(moved)
