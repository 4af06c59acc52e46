"""Win, draw and encounter length of a duel, and its time-to-down, against the exact chain.

In a duel (one combatant attacks, its one opponent makes no attacks; README,
"Scenarios") the encounter ends in the round the defender first goes down, which the
attacker's side wins, or at the round cap ``R``, a draw (docs/rules/<system>.md: an
encounter ends as soon as at most one side has anyone standing, or at ``max_rounds``).
So the exact time-to-down that ``simlab.exact`` solves for every rule system,
p_r = P(first down in round r), with c = P(not down by R), also gives exactly

* the defender's ``down_round`` tally: p_1 … p_R (the rest, c, never down);
* the ``winner`` tally: the attacker's side with probability 1 − c, the draw with c,
  the defender's side never;
* the ``rounds`` tally (encounter length): r < R with p_r, R with p_R + c.

``tests/rules/test_*_statistics.py`` and ``tests/exact`` compare each system's per-attack
figures and (except opposed-tiers) its time-to-down; nothing compared the win/draw rates
and the encounter length with an exact answer, nor opposed-tiers' time-to-down. Each
benchmark duel is capped near its median round so that draws are common.

False alarms. Fixed seed, so each test always passes or always fails. Rates are within
k = 4.5 binomial standard errors (P(|z| > 4.5) ≈ 6.8e-6 each); the mean encounter
length within 4.5 standard errors of the exact capped mean; the two histograms by a
chi-square test (cells with expected count < 5 merged) at p > 1e-4. Five systems × six
comparisons keep the family-wise false-alarm rate below 1e-3.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simlab
from tests.support import K_SIGMA, chi_square_p, within

ROOT = Path(__file__).resolve().parents[2]
P_MIN = 1e-4
N = 100_000
SEED = 424242

#: benchmark duel → round cap (near the exact median, so that c is far from 0 and 1)
DUELS = {
    "ss-duel": 11,
    "shattered-spirits-draft1-duel": 11,
    "zones-3d6-duel": 13,
    "opposed-tiers-duel": 10,
    "glitters-d20-duel": 10,
}


@pytest.mark.parametrize(("name", "cap"), list(DUELS.items()))
@pytest.mark.kernels
def test_duel_win_draw_length_and_time_to_down_match_exact(name: str, cap: int) -> None:
    text = (ROOT / "scenarios" / "benchmarks" / f"{name}.yaml").read_text()
    assert "max_rounds: 100\n" in text
    scn = simlab.loads(text.replace("max_rounds: 100\n", f"max_rounds: {cap}\n"), f"{name}.yaml")
    solved = simlab.exact(scn).duel
    assert solved is not None, f"{name}: the exact engine solves this duel"
    p = np.zeros(cap + 1)
    n_pmf = min(len(solved.pmf), cap + 1)
    p[:n_pmf] = solved.pmf[:n_pmf]
    censored = 1.0 - float(p.sum())
    assert censored == pytest.approx(solved.censored, abs=1e-9)
    assert 0.1 < censored < 0.9, f"{name}: the cap makes draws common (c = {censored:.3f})"

    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    layout, tallies = res.layout, res.tallies
    names = [m for _, m in layout.combatants]
    defender = names.index(solved.defender)
    attacker_side = 1 - layout.side_of[defender]
    assert len(layout.sides) == 2

    # Time-to-down of the defender, round by round, plus the never-downed cell.
    down = tallies.down_round[defender]
    assert down[0] == 0 and len(down) == cap + 1
    observed = np.append(down[1:], N - down.sum())
    expected = np.append(p[1:], censored)
    assert chi_square_p(observed, expected) > P_MIN, (name, observed, expected * N)

    # Win and draw rates.
    wins = tallies.winner
    assert wins.sum() == N and wins[layout.side_of[defender]] == 0
    assert within(int(wins[attacker_side]), N, 1.0 - censored), (name, wins, censored)
    assert within(int(wins[-1]), N, censored), (name, wins, censored)

    # Encounter length: the round of the down, or the cap.
    length = p.copy()
    length[cap] += censored
    rounds = tallies.rounds
    assert rounds.sum() == N and rounds[0] == 0
    assert chi_square_p(rounds[1:], length[1:]) > P_MIN, (name, rounds, length * N)
    r = np.arange(cap + 1)
    mean, var = float(r @ length), float((r * r) @ length - (r @ length) ** 2)
    assert abs(res.mean_rounds() - mean) <= K_SIGMA * np.sqrt(var / N), (name, mean)
