"""The figures a sweep draws and a comparison compares, computed from tallies in one place.

Every figure is a function of a run's integer tallies (:class:`TallyArrays`), so the same
code measures a whole run, one point of a sweep, or one range of encounters of an A/B
comparison. Time-to-down figures are read straight from ``down_round`` (encounters in
which a combatant first went down in round r), over all encounters:

- ``down_rate``: share of encounters in which it went down;
- ``mean_time_to_down``: mean round of first down among the encounters in which it went
  down (the exact engine's duel mean is the same figure without the round cap);
- ``median_time_to_down``: the round by which half of all encounters had it down (NaN
  when its down rate is below one half).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.engine.tallies import Layout, TallyArrays

__all__ = ["combatant_figures", "figure_values", "pair_label"]


def pair_label(attacker: str, attack: str, defender: str) -> str:
    """How an attack pair is named in comparison tables: ``Kaito quick-jab → Brute``."""
    return f"{attacker} {attack} → {defender}"


def _down_figures(down_round: np.ndarray, n: int) -> tuple[int, float, float, float]:
    """(encounters downed, mean round when downed, its variance, median over all)."""
    downs = int(down_round.sum())
    mean, var = stats.histogram_mean_var(down_round) if downs else (np.nan, np.nan)
    rounds = np.arange(len(down_round))
    median = stats.first_round_reaching(rounds, np.cumsum(down_round) / n)
    return downs, mean, var, np.nan if median is None else median


def combatant_figures(
    tallies: TallyArrays, layout: Layout, n: int, level: float = 0.95
) -> pd.DataFrame:
    """Down rate and time-to-down of every combatant, with intervals.

    Columns: ``combatant, side, down_rate`` with its Wilson (Clopper–Pearson when rare)
    interval, ``mean_time_to_down`` (among encounters in which it went down) with a
    normal interval (encounters are independent), ``median_time_to_down`` (see the
    module docstring).
    """
    z = stats.normal_quantile(level)
    rows = []
    for c, (side, name) in enumerate(layout.combatants):
        downs, mean, var, median = _down_figures(tallies.down_round[c], n)
        lo, hi, _ = stats.rate_interval(downs, n, level)
        half = z * np.sqrt(var / downs) if downs > 1 else np.nan
        rows.append({"combatant": name, "side": side, "down_rate": downs / n,
                     "down_rate_ci95_lo": float(lo), "down_rate_ci95_hi": float(hi),
                     "mean_time_to_down": mean, "mean_time_to_down_ci95_lo": mean - half,
                     "mean_time_to_down_ci95_hi": mean + half,
                     "median_time_to_down": median})  # fmt: skip
    return pd.DataFrame(rows)


def figure_values(tallies: TallyArrays, layout: Layout, n: int) -> dict[tuple[str, str], float]:
    """Every figure of a run (or of a range of its encounters) by (figure, what it is on).

    Attack pairs (on ``attacker attack → defender``): hit and crit rate, mean damage
    (misses 0); combatants: down rate, mean time-to-down; sides: win rate; and the
    draw rate and mean encounter length (on ``""``).
    """
    out: dict[tuple[str, str], float] = {}
    attempts = tallies.attempts.sum(axis=1)
    sums = {"hit_rate": tallies.hits, "crit_rate": tallies.crits, "mean_damage": tallies.damage_sum}
    for p in np.flatnonzero(attempts):
        a, k, d = layout.unpair(int(p))
        on = pair_label(layout.combatants[a][1], layout.attacks[k], layout.combatants[d][1])
        for figure, counts in sums.items():
            out[figure, on] = float(counts[p].sum() / attempts[p])
    for c, (_, name) in enumerate(layout.combatants):
        downs, mean, _, _ = _down_figures(tallies.down_round[c], n)
        out["down_rate", name] = downs / n
        out["mean_time_to_down", name] = mean
    for s, side in enumerate(layout.sides):
        out["win_rate", side] = float(tallies.winner[s] / n)
    out["draw_rate", ""] = float(tallies.winner[-1] / n)
    out["mean_rounds", ""] = stats.histogram_mean_var(tallies.rounds)[0]
    return out
