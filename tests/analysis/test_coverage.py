"""Interval coverage: over many seeds, each 95% interval holds the known answer ~95% of
the time.

The case is the benchmark duel with the round cap lowered to 10 rounds, so that the
defender is downed by the cap in about half of the encounters: the exact engine gives
its hit rate, mean damage per attack and P(Downed by round r) for every r — hence also
the down rate, the attacker's win rate and the draw rate. Each seed is an independent
run of ``N`` encounters; the share of runs whose interval holds the exact answer must be
consistent with 95% (a two-sided binomial test at 1e-3 over ``SEEDS`` runs: an interval
of true coverage 90% or 99% fails with probability above 0.99).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

import simlab

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
SEEDS = 600
N = 400
CAP = 10


def _duel_text() -> str:
    text = DUEL.read_text()
    assert "max_rounds: 100" in text
    return text.replace("max_rounds: 100", f"max_rounds: {CAP}")


def _assert_coverage(covered: np.ndarray, what: str) -> None:
    k = int(covered.sum())
    p = sps.binomtest(k, covered.size, 0.95).pvalue
    assert p > 1e-3, f"{what}: {k} of {covered.size} intervals hold the exact answer"


@pytest.mark.slow
def test_every_interval_covers_the_exact_answer_95_percent_of_the_time() -> None:
    scn = simlab.loads(_duel_text(), "duel.yaml")
    solved = simlab.exact(scn)
    pair, duel = solved.pairs[0], solved.duel
    assert duel is not None
    by_round = np.cumsum(duel.pmf)[1 : CAP + 1]
    assert 0.3 < by_round[-1] < 0.7  # the cap censors about half the duels
    hits, damage, down, wins, draws = [], [], [], [], []
    curve = []
    for seed in range(SEEDS):
        res = simlab.simulate(scn, n=N, seed=seed, threads=1)
        rate = res.hit_rates().iloc[0]
        hits.append(rate.hit_rate_ci95_lo <= pair.hit_rate <= rate.hit_rate_ci95_hi)
        dmg = res.damage().iloc[0]
        damage.append(dmg.mean_damage_ci95_lo <= pair.mean_damage <= dmg.mean_damage_ci95_hi)
        row = res.combatants().set_index("combatant").loc["Defender"]
        down.append(row.down_rate_ci95_lo <= by_round[-1] <= row.down_rate_ci95_hi)
        ttd = res.time_to_down()
        ttd = ttd[ttd.combatant == "Defender"]
        curve.append((ttd.down_by_round_ci95_lo.to_numpy() <= by_round + 1e-12)
                     & (by_round - 1e-12 <= ttd.down_by_round_ci95_hi.to_numpy()))  # fmt: skip
        outcome = res.win_rates().set_index("side")
        win = outcome.loc["attacker"]
        wins.append(win.win_rate_ci95_lo <= by_round[-1] <= win.win_rate_ci95_hi)
        draw = outcome.loc["draw"]
        draws.append(draw.win_rate_ci95_lo <= 1 - by_round[-1] <= draw.win_rate_ci95_hi)
    _assert_coverage(np.array(hits), "hit rate")
    _assert_coverage(np.array(damage), "mean damage (batch means)")
    _assert_coverage(np.array(down), "down rate")
    _assert_coverage(np.array(wins), "win rate")
    _assert_coverage(np.array(draws), "draw rate")
    covered = np.array(curve)
    for r in range(4, CAP):  # rounds where P(downed by r) is neither ~0 nor ~1
        if 0.02 < by_round[r] < 0.98:
            _assert_coverage(covered[:, r], f"P(downed by round {r + 1})")
