"""Plots of a simulation for notebooks and reports (matplotlib).

Every function draws on the ``ax=`` it is given (or a new figure's axes), and returns the
pandas DataFrame it drew, so a notebook can both look at a curve and use its numbers::

    from simlab import plots
    res = simlab.simulate(scn, n=100_000)
    df = plots.plot_damage_pmf(res, "Brute", "stone-strike", exact=simlab.exact(scn))

``result`` is a :class:`simlab.analysis.result.Result` or a report's
:class:`simlab.report.results.ScenarioRun` (whose saved exact answers are used by
default). ``exact`` is an :class:`simlab.exact.engine.ExactResult` or its summary
document; where it answers a pair, the exact damage distribution is drawn over the
simulated one (dashed, "exact" in the legend); for a duel, the exact time-to-down curve
too.
Without ``ax=``, a new pyplot figure is made (the notebook's backend); reports draw on
figures of their own, rendered with the Agg backend (:mod:`simlab.report.render`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.analysis.result import Result

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from simlab.report.results import ScenarioRun

__all__ = [
    "plot_damage_at_least",
    "plot_damage_pmf",
    "plot_hit_rates",
    "plot_survival",
    "plot_time_to_down",
    "plot_win_rates",
]

LEVEL = 0.95
EXACT_STYLE: dict[str, Any] = {"color": "black", "linestyle": "--", "linewidth": 1.2,
                               "marker": "x", "markersize": 4}  # fmt: skip


def _unpack(result: Result | ScenarioRun, exact: Any) -> tuple[Result, dict[str, Any] | None]:
    """The Result, and the exact answers as a summary document (or None)."""
    res = result if isinstance(result, Result) else result.result
    if exact is None and not isinstance(result, Result):
        exact = result.exact
    if exact is not None and not isinstance(exact, dict):
        exact = exact.summary()
    return res, exact


def _axes(ax: Axes | None, size: tuple[float, float] = (6.0, 3.5)) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # the notebook's backend; reports draw on Agg figures

    _, new = plt.subplots(figsize=size)
    return new


def _exact_pmf(exact: dict[str, Any] | None, key: tuple[str, str, str]) -> dict[int, float]:
    for entry in (exact or {}).get("attacks", []):
        if (entry["attacker"], entry["attack"], entry["defender"]) == key:
            return {int(d): float(p) for d, p in entry["damage_pmf"].items()}
    return {}


def _pair_frames(res: Result, attacker: str, attack: str, defender: str | None,
                 exact: dict[str, Any] | None) -> pd.DataFrame:  # fmt: skip
    """Simulated (and exact) damage distribution of one attacker's attack, per defender."""
    pmf = res.damage_pmf()
    mine = pmf[(pmf.attacker == attacker) & (pmf.attack == attack)]
    if defender is not None:
        mine = mine[mine.defender == defender]
    if mine.empty:
        raise ValueError(f"expected an attack that happened; got {attacker} {attack} → "
                         f"{defender or 'anyone'} never made")  # fmt: skip
    frames = []
    for d, group in mine.groupby("defender", sort=False):
        attempts = int(group["count"].sum())
        top = int(group.damage.max())
        counts = np.zeros(top + 1, dtype=np.int64)
        counts[group.damage.to_numpy()] = group["count"].to_numpy()
        frames.append(pd.DataFrame({"defender": d, "source": "simulated",
                                    "damage": np.arange(top + 1), "count": counts,
                                    "attempts": attempts,
                                    "probability": counts / attempts}))  # fmt: skip
        known = _exact_pmf(exact, (attacker, attack, str(d)))
        if known:
            values = np.arange(max(known) + 1)
            frames.append(pd.DataFrame({"defender": d, "source": "exact", "damage": values,
                                        "count": 0, "attempts": 0,
                                        "probability": [known.get(int(v), 0.0)
                                                        for v in values]}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def plot_damage_pmf(
    result: Result | ScenarioRun,
    attacker: str,
    attack: str,
    defender: str | None = None,
    ax: Axes | None = None,
    exact: Any = None,
) -> pd.DataFrame:
    """Damage distribution of ``attacker``'s ``attack`` against each defender.

    Parameters
    ----------
    result : Result or ScenarioRun
        The simulation.
    attacker, attack : str
        Whose attack.
    defender : str, optional
        One defender; default every defender it was used against (one line each).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    exact : ExactResult or dict, optional
        Exact answers to overlay where they exist.

    Returns
    -------
    pandas.DataFrame
        ``defender, source ('simulated'/'exact'), damage, count, attempts,
        probability``: what was drawn (misses count as damage 0).
    """
    res, exact = _unpack(result, exact)
    data = _pair_frames(res, attacker, attack, defender, exact)
    ax = _axes(ax)
    for d, group in data.groupby("defender", sort=False):
        sim = group[group.source == "simulated"]
        line = ax.plot(sim.damage, sim.probability, marker="o", markersize=3,
                       label=f"vs {d} (n={int(sim.attempts.iloc[0]):,})")  # fmt: skip
        ex = group[group.source == "exact"]
        if not ex.empty:
            ax.plot(ex.damage, ex.probability, **{**EXACT_STYLE, "color": line[0].get_color()},
                    label=f"vs {d}: exact (fresh defender)")  # fmt: skip
    ax.set_xlabel("damage per attack (miss = 0)")
    ax.set_ylabel("probability")
    ax.set_title(f"{attacker} · {attack}: damage distribution", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return data


def plot_damage_at_least(
    result: Result | ScenarioRun,
    attacker: str,
    attack: str,
    defender: str | None = None,
    ax: Axes | None = None,
    exact: Any = None,
) -> pd.DataFrame:
    """P(damage ≥ x) of ``attacker``'s ``attack`` against each defender, with 95% bands.

    Parameters are those of :func:`plot_damage_pmf`.

    Returns
    -------
    pandas.DataFrame
        ``defender, source, damage, at_least, at_least_ci95_lo, at_least_ci95_hi``
        (intervals: Wilson, Clopper–Pearson when rare; NaN for the exact rows).
    """
    res, exact = _unpack(result, exact)
    data = _pair_frames(res, attacker, attack, defender, exact)
    frames = []
    for (d, source), group in data.groupby(["defender", "source"], sort=False):
        prob = group.probability.to_numpy()
        at_least = np.clip(prob[::-1].cumsum()[::-1], 0.0, 1.0)
        frame = pd.DataFrame({"defender": d, "source": source, "damage": group.damage,
                              "at_least": at_least})  # fmt: skip
        if source == "simulated":
            counts = group["count"].to_numpy()[::-1].cumsum()[::-1]
            lo, hi, _ = stats.rate_interval(counts, int(group.attempts.iloc[0]), LEVEL)
        else:
            lo = hi = np.full(len(group), np.nan)
        frame["at_least_ci95_lo"], frame["at_least_ci95_hi"] = lo, hi
        frames.append(frame)
    drawn = pd.concat(frames, ignore_index=True)
    ax = _axes(ax)
    for d, group in drawn.groupby("defender", sort=False):
        sim = group[group.source == "simulated"]
        line = ax.plot(sim.damage, sim.at_least, marker="o", markersize=3, label=f"vs {d}")
        ax.fill_between(sim.damage, sim.at_least_ci95_lo, sim.at_least_ci95_hi, alpha=0.25,
                        color=line[0].get_color())  # fmt: skip
        ex = group[group.source == "exact"]
        if not ex.empty:
            ax.plot(ex.damage, ex.at_least, **{**EXACT_STYLE, "color": line[0].get_color()},
                    label=f"vs {d}: exact (fresh defender)")  # fmt: skip
    ax.set_xlabel("damage x")
    ax.set_ylabel("P(damage ≥ x)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{attacker} · {attack}: at least x damage (95% band)", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return drawn


def _exact_down_by_round(exact: dict[str, Any] | None, name: str) -> pd.DataFrame | None:
    """A duel's exact P(downed by round r), from the exact summary's P(first down in r)."""
    for entry in (exact or {}).get("combatants", []):
        if entry["name"] == name:
            pmf = {int(r): float(p) for r, p in entry["time_to_down"]["pmf"].items()}
            rounds = np.arange(0, max(pmf, default=0) + 1)
            down = np.cumsum([pmf.get(int(r), 0.0) for r in rounds])
            return pd.DataFrame({"round": rounds, "down_by_round": np.clip(down, 0, 1)})
    return None


def plot_time_to_down(
    result: Result | ScenarioRun,
    combatant: str | list[str] | None = None,
    ax: Axes | None = None,
    side: str | None = None,
    exact: Any = None,
) -> pd.DataFrame:
    """P(downed by round r) over all encounters, per combatant, with 95% bands.

    Each curve rises from 0 to the combatant's down rate at the round cap; an encounter
    its side won counts as one it was never downed in (see
    :meth:`simlab.analysis.result.Result.time_to_down`). The band is pointwise (Wilson,
    each round on its own). A dotted line marks one half: where a curve crosses it is
    the median time-to-down.

    Parameters
    ----------
    result : Result or ScenarioRun
        The simulation.
    combatant : str or list of str, optional
        Which combatants (default: all, or all of ``side``).
    ax : matplotlib Axes, optional
        Where to draw.
    side : str, optional
        Only this side's combatants.
    exact : ExactResult or dict, optional
        A duel's exact curve is drawn over its simulated one.

    Returns
    -------
    pandas.DataFrame
        The rows of :meth:`Result.time_to_down` that were drawn (``round, downed,
        down_by_round`` and its band).
    """
    res, exact = _unpack(result, exact)
    table = res.time_to_down(LEVEL)
    if side is not None:
        table = table[table.side == side]
    if combatant is not None:
        wanted = [combatant] if isinstance(combatant, str) else list(combatant)
        table = table[table.combatant.isin(wanted)]
    ax = _axes(ax)
    for name, group in table.groupby("combatant", sort=False):
        rounds = np.append(0, group["round"])
        line = ax.step(rounds, np.append(0.0, group.down_by_round), where="post",
                       label=str(name))  # fmt: skip
        ax.fill_between(rounds, np.append(0.0, group.down_by_round_ci95_lo),
                        np.append(0.0, group.down_by_round_ci95_hi), step="post", alpha=0.2,
                        color=line[0].get_color())  # fmt: skip
        known = _exact_down_by_round(exact, str(name))
        if known is not None:
            ax.step(known["round"], known.down_by_round, where="post", **{**EXACT_STYLE,
                    "marker": None, "color": line[0].get_color()},
                    label=f"{name}: exact")  # fmt: skip
    ax.axhline(0.5, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xlabel("round r")
    ax.set_ylabel("P(downed by round r)")
    ax.set_ylim(-0.02, 1.02)
    where = f" · {side}" if side else ""
    ax.set_title(f"time-to-down over all encounters (95% band){where}", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return table.reset_index(drop=True)


#: The earlier name of :func:`plot_time_to_down` (it drew a survival curve).
plot_survival = plot_time_to_down


def plot_hit_rates(
    result: Result | ScenarioRun,
    ax: Axes | None = None,
    attacker: str | None = None,
    exact: Any = None,
) -> pd.DataFrame:
    """Hit and crit rate of every pair (or one attacker's), with 95% intervals.

    Returns
    -------
    pandas.DataFrame
        The rows of :meth:`Result.hit_rates` drawn, plus ``exact_hit_rate`` and
        ``exact_crit_rate`` (NaN where the exact engine has no answer).
    """
    res, exact = _unpack(result, exact)
    rates = res.hit_rates(LEVEL)
    if attacker is not None:
        rates = rates[rates.attacker == attacker]
    answers = {(e["attacker"], e["attack"], e["defender"]): e
               for e in (exact or {}).get("attacks", [])}  # fmt: skip
    keys = list(zip(rates.attacker, rates.attack, rates.defender, strict=True))
    rates = rates.assign(
        exact_hit_rate=[answers.get(k, {}).get("hit_rate", np.nan) for k in keys],
        exact_crit_rate=[answers.get(k, {}).get("crit_rate", np.nan) for k in keys],
    ).reset_index(drop=True)
    ax = _axes(ax, (6.0, 0.9 + 0.32 * max(len(rates), 1)))
    y = np.arange(len(rates))
    labels = [f"{a} · {k} → {d}" for a, k, d in keys]
    for column, offset, name in (("hit_rate", -0.17, "hit"), ("crit_rate", 0.17, "crit")):
        value = rates[column].to_numpy(dtype=float)
        err = np.vstack([value - rates[f"{column}_ci95_lo"], rates[f"{column}_ci95_hi"] - value])
        ax.barh(y + offset, value, height=0.32, xerr=err, capsize=2, label=f"{name} rate")
        ex = rates[f"exact_{column}"].to_numpy(dtype=float)
        if np.isfinite(ex).any():
            ax.plot(ex, y + offset, linestyle="none", marker="|", markersize=12, color="black",
                    label=f"{name} rate: exact" if name == "hit" else None)  # fmt: skip
    ax.set_yticks(y, labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("rate (95% interval)")
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, frameon=False)
    ax.grid(alpha=0.3, axis="x")
    return rates


def plot_win_rates(result: Result | ScenarioRun, ax: Axes | None = None) -> pd.DataFrame:
    """Win rate of each side and the draw rate, with 95% intervals.

    Returns
    -------
    pandas.DataFrame
        :meth:`Result.win_rates`, as drawn.
    """
    res, _ = _unpack(result, None)
    wins = res.win_rates(LEVEL)
    ax = _axes(ax, (4.5, 0.9 + 0.35 * len(wins)))
    value = wins.win_rate.to_numpy(dtype=float)
    err = np.vstack([value - wins.win_rate_ci95_lo, wins.win_rate_ci95_hi - value])
    ax.barh(np.arange(len(wins)), value, xerr=err, capsize=3, color="tab:green")
    ax.set_yticks(np.arange(len(wins)), list(wins.side), fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of encounters (95% interval)")
    ax.set_title("outcome", fontsize=10)
    ax.grid(alpha=0.3, axis="x")
    return wins
