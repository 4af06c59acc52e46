"""The machine-readable summary of a run (``summary.json``), built from a Result.

The format is documented in the README ("Output files"). Floats come straight from the
integer tallies, so the same seed gives the same file byte for byte.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simlab import __version__
from simlab.analysis.result import MEAN_WHEN, MEDIAN_WHEN, Result

LEVEL = 0.95


def _num(x: Any) -> float | None:
    """A JSON number, or None for a missing value (NaN/None)."""
    if x is None:
        return None
    x = float(x)
    return None if np.isnan(x) else x


def _rows_by(frame: Any, *keys: str) -> dict[Any, list[Any]]:
    """The rows of ``frame`` (named tuples) by the value of the columns ``keys`` (a tuple
    of them when there are several), in order: read in one pass, instead of filtering
    the whole frame for each combatant or attack (a sweep writes a summary per point)."""
    out: dict[Any, list[Any]] = {}
    for row in frame.itertuples(index=False):
        key = tuple(getattr(row, k) for k in keys) if len(keys) > 1 else getattr(row, keys[0])
        out.setdefault(key, []).append(row)
    return out


def _attacks(res: Result) -> list[dict[str, Any]]:
    rates = res.hit_rates(LEVEL)
    damage = res.damage(LEVEL)
    pmfs = _rows_by(res.damage_pmf(), "attacker", "attack", "defender")
    out = []
    for r, d in zip(rates.itertuples(), damage.itertuples(), strict=True):
        mine = pmfs.get((r.attacker, r.attack, r.defender), [])
        damage_pmf = {str(row.damage): float(row.probability) for row in mine}
        out.append(
            {
                "attacker": r.attacker,
                "attack": r.attack,
                "defender": r.defender,
                "attempts": int(r.attempts),
                "hit_rate": _num(r.hit_rate),
                "hit_rate_ci": [_num(r.hit_rate_ci95_lo), _num(r.hit_rate_ci95_hi)],
                "crit_rate": _num(r.crit_rate),
                "crit_rate_ci": [_num(r.crit_rate_ci95_lo), _num(r.crit_rate_ci95_hi)],
                "mean_damage": _num(d.mean_damage),
                "mean_damage_ci": [_num(d.mean_damage_ci95_lo), _num(d.mean_damage_ci95_hi)],
                "damage_pmf": damage_pmf,
            }
        )
    return out


def _combatants(res: Result) -> list[dict[str, Any]]:
    table = res.combatants(LEVEL)
    events = res.events(LEVEL)
    curves = res.time_to_down(LEVEL)
    means = {name: res.per_encounter(name, LEVEL) for name in res.layout.per_encounter_tallies}
    curves_of = _rows_by(curves, "combatant")
    events_of = _rows_by(events, "combatant")
    out = []
    for c, row in table.iterrows():
        entry: dict[str, Any] = {
            "name": row.combatant,
            "side": row.side,
            "down_rate": _num(row.down_rate),
            "down_rate_ci": [_num(row.down_rate_ci95_lo), _num(row.down_rate_ci95_hi)],
            "time_to_down": _time_to_down(res, int(c), row, curves_of.get(row.combatant, [])),
        }
        for event in res.layout.events:
            entry[f"{event}_rate"] = _num(row[f"{event}_rate"])
        if res.layout.events:
            entry["events"] = _events(res, int(c), events_of.get(row.combatant, []))
        for name, per_combatant in means.items():
            entry[name] = _mean_entry(per_combatant.iloc[int(c)], name)
        out.append(entry)
    return out


def _mean_entry(row: Any, name: str) -> dict[str, Any]:
    """``{"mean", "mean_ci"}`` of a per-encounter mean row (``mean_<name>`` columns)."""
    column = f"mean_{name}"
    interval = [_num(row[f"{column}_ci95_lo"]), _num(row[f"{column}_ci95_hi"])]
    return {"mean": _num(row[column]), "mean_ci": interval}


def _time_to_down(res: Result, combatant: int, row: Any, rounds: list[Any]) -> dict[str, Any]:
    """One combatant's time-to-down: P(downed by round r) over all encounters, its band
    (``rounds``: its rows of the time-to-down table), the medians, the mean when downed
    and the encounters capped with it standing."""
    return {
        "unit": "round",
        "median_time_to_down": _num(row.median_time_to_down),
        "median_time_to_down_ci": [_num(row.median_time_to_down_ci95_lo),
                                   _num(row.median_time_to_down_ci95_hi)],
        "median_time_to_down_when_downed": _num(row.median_time_to_down_when_downed),
        "mean_time_to_down": _num(row.mean_time_to_down),
        "mean_time_to_down_ci": [_num(row.mean_time_to_down_ci95_lo),
                                 _num(row.mean_time_to_down_ci95_hi)],
        "pmf": {str(r): p for r, p in res.down_pmf(combatant).items()},
        "down_by_round": {str(r.round): _num(r.down_by_round) for r in rounds},
        "down_by_round_ci": {str(r.round): [_num(r.down_by_round_ci95_lo),
                                            _num(r.down_by_round_ci95_hi)]
                             for r in rounds},
        "capped": int(row.capped),
    }  # fmt: skip


def _events(res: Result, combatant: int, rows: list[Any]) -> dict[str, Any]:
    """Each rule-specific event of one combatant (``rows``: its rows of the events
    table): rate with interval, and its round: ``pmf`` over all encounters (it sums to
    the rate, as the time-to-down's sums to the down rate), the mean and median over only
    the encounters in which it happened (``sum(r * pmf[r]) / rate``)."""
    out = {}
    for e, row in enumerate(rows):
        out[row.event] = {
            "rate": _num(row.rate),
            "rate_ci": [_num(row.rate_ci95_lo), _num(row.rate_ci95_hi)],
            "time": {
                "unit": "round",
                "pmf": {str(r): p for r, p in res.event_pmf(combatant, e).items()},
                "mean_when_happened": _num(getattr(row, MEAN_WHEN)),
                "median_when_happened": _num(getattr(row, MEDIAN_WHEN)),
            },
        }
    return out


def _side(row: Any) -> dict[str, Any]:
    ci = [_num(row.win_rate_ci95_lo), _num(row.win_rate_ci95_hi)]
    return {"name": row.side, "win_rate": _num(row.win_rate), "win_rate_ci": ci}


def summary(res: Result) -> dict[str, Any]:
    """The ``summary.json`` document of a simulation result.

    Parameters
    ----------
    res : Result
        A simulation result.

    Returns
    -------
    dict
        JSON-ready: run identity, per-attack rates and damage, per-combatant
        time-to-down, side win rates and the draw rate (intervals at 95%).
    """
    wins = res.win_rates(LEVEL)
    sides = wins.iloc[:-1]  # the last row is the draws
    return {
        "scenario": res.scenario,
        "rules": res.rules,
        "encounters": res.encounters,
        "seed": res.seed,
        "simlab_version": __version__,
        "interval_level": LEVEL,
        "attacks": _attacks(res),
        "combatants": _combatants(res),
        "sides": [_side(s) for s in sides.itertuples()],
        "draw_rate": _num(wins.win_rate.iloc[-1]),
        "mean_rounds": _num(res.mean_rounds()),
        **({"precision": res.meta["precision"]} if "precision" in res.meta else {}),
        **({"overrides": res.meta["overrides"]} if "overrides" in res.meta else {}),
    }
