"""``results.json``: every figure of a report run, with the integer counts behind it.

A report run is a list of :class:`ScenarioRun` — a simulation :class:`Result` plus what
the report needs around it (the scenario file, the exact answers, the scenario's
``expect:`` specs and drift tolerances). ``results.json`` stores them so that a report
can be drawn again and compared with the next night's run without simulating
(``simlab report --from``, ``--baseline``).

Format 1 (``"format": 1``)::

    {"format": 1, "simlab_version": "0.1.0", "interval_level": 0.95,
     "scenarios": [{
        "scenario": "quickstart", "rules": "shattered-spirits", "source": "scenarios/…",
        "encounters": 200000, "seed": 7, "simlab_version": "0.1.0",
        "layout": {…},                       # names and sizes of the tallies
        "attacks": [{"attacker", "attack", "defender", "pair": [a, k, d],
                     "attempts", "hits", "crits", "damage_total",
                     "hit_rate", "hit_rate_ci", "crit_rate", "crit_rate_ci",
                     "mean_damage", "mean_damage_ci",
                     "damage_counts": {"0": 812, "3": 90, …},
                     "batches": {"attempts": [32 ints], "hits": […], "crits": […],
                                 "damage": […]}}],
        "combatants": [{"name", "side", "downed", "down_rate", "down_rate_ci",
                        "median_time_to_down", "median_time_to_down_ci",
                        "median_time_to_down_when_downed", "capped",
                        "down_round_counts": {"r": n}, "censor_round_counts": {"r": n},
                        "attacks_to_down_counts": {"k": n},
                        "events": {"out": {"rate": …, "round_counts": {"r": n}}}}],
        "sides": [{"name", "wins", "win_rate", "win_rate_ci"}],
        "draws": {"count", "rate", "ci"}, "rounds_counts": {"r": n}, "mean_rounds": …,
        "other_tallies": {name: {"shape": […], "index": […], "values": […]}},
        "exact": null | {"attacks": […], "time_to_down": {…} | null, "refusals": […]},
        "expect": [{…}], "drift_tolerance": {"rate": 0.02, …}}]}

Counts are what the statistical tests use; the rates and intervals are there for people
and other tools. Tally arrays this module does not know by name (a rule system may add
some) are kept losslessly in ``other_tallies`` as sparse (flat index, value) lists.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simlab import __version__
from simlab.analysis import stats
from simlab.analysis.result import Result, median_time_to_down
from simlab.engine.tallies import Layout, TallyArrays, new_tallies
from simlab.errors import InputError
from simlab.report.files import write_json

FORMAT = 1
LEVEL = 0.95
RESULTS_NAME = "results.json"
#: Tally arrays stored by name (per attack / combatant); any other is kept sparse.
_KNOWN = {"attempts", "hits", "crits", "damage_sum", "damage_hist", "down_round",
          "censor_round", "down_attacks", "event_round", "winner", "rounds"}  # fmt: skip


@dataclass
class ScenarioRun:
    """One scenario of a report: its simulation and what the report shows with it.

    Attributes
    ----------
    result : Result
        The simulation (tallies, layout, seed, sample size).
    source : str or None
        The scenario file, as given on the command line.
    exact : dict or None
        The exact answers (``attacks``, ``time_to_down``, ``refusals``; the shape of
        ``simlab exact``'s summary), or None when the rule system has none.
    expect : list of dict
        The scenario's ``expect:`` entries (see
        :class:`simlab.scenario.common.Expectation`).
    drift_tolerance : dict
        The scenario's drift tolerances, defaults filled in.
    simlab_version : str
        The version that simulated it.
    """

    result: Result
    source: str | None = None
    exact: dict[str, Any] | None = None
    expect: list[dict[str, Any]] = field(default_factory=list)
    drift_tolerance: dict[str, float] = field(default_factory=dict)
    simlab_version: str = __version__

    @property
    def scenario(self) -> str:
        """The scenario id."""
        return self.result.scenario

    @property
    def rules(self) -> str:
        """The rules id."""
        return self.result.rules


def as_run(obj: ScenarioRun | Result) -> ScenarioRun:
    """A :class:`ScenarioRun` for a run or a bare simulation result."""
    return obj if isinstance(obj, ScenarioRun) else ScenarioRun(result=obj)


# -- writing -------------------------------------------------------------------------------


def _num(x: Any) -> float | None:
    """A JSON number, or None for NaN / None / ±inf."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _counts(hist: np.ndarray) -> dict[str, int]:
    """A histogram as ``{"bin": count}`` for its non-empty bins."""
    return {str(int(i)): int(hist[i]) for i in np.flatnonzero(hist)}


def _uncounts(counts: dict[str, int], size: int, what: str) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    for key, value in counts.items():
        i = int(key)
        if not 0 <= i < size:
            raise InputError(f"expected {what} bins below {size}; got bin {key}")
        out[i] = int(value)
    return out


def _attack_entries(res: Result) -> list[dict[str, Any]]:
    t = res.tallies
    attempts = t.attempts.sum(axis=1)
    used = np.flatnonzero(attempts)
    names = [name for _, name in res.layout.combatants]
    hits, crits = t.hits.sum(axis=1), t.crits.sum(axis=1)
    mean, lo, hi = stats.ratio_batch_means_many(t.damage_sum[used], t.attempts[used], LEVEL)
    out = []
    for j, p in enumerate(used):
        a, k, d = res.layout.unpair(int(p))
        n = int(attempts[p])
        h_lo, h_hi, _ = stats.rate_interval(int(hits[p]), n, LEVEL)
        c_lo, c_hi, _ = stats.rate_interval(int(crits[p]), n, LEVEL)
        out.append({
            "attacker": names[a], "attack": res.layout.attacks[k], "defender": names[d],
            "pair": [a, k, d], "attempts": n, "hits": int(hits[p]), "crits": int(crits[p]),
            "damage_total": int(t.damage_sum[p].sum()),
            "hit_rate": hits[p] / n, "hit_rate_ci": [_num(h_lo), _num(h_hi)],
            "crit_rate": crits[p] / n, "crit_rate_ci": [_num(c_lo), _num(c_hi)],
            "mean_damage": _num(mean[j]), "mean_damage_ci": [_num(lo[j]), _num(hi[j])],
            "damage_counts": _counts(t.damage_hist[p]),
            "batches": {"attempts": t.attempts[p].tolist(), "hits": t.hits[p].tolist(),
                        "crits": t.crits[p].tolist(), "damage": t.damage_sum[p].tolist()},
        })  # fmt: skip
    return out


def _combatant_entries(res: Result) -> list[dict[str, Any]]:
    t, n = res.tallies, res.encounters
    out = []
    for c, (side, name) in enumerate(res.layout.combatants):
        downs = int(t.down_round[c].sum())
        lo, hi, _ = stats.rate_interval(downs, n, LEVEL)
        median, m_lo, m_hi = median_time_to_down(stats.cumulative_incidence(t.down_round[c], n))
        events = {
            event: {"rate": int(t.event_round[c, e].sum()) / n,
                    "round_counts": _counts(t.event_round[c, e])}
            for e, event in enumerate(res.layout.events)
        }  # fmt: skip
        out.append({
            "name": name, "side": side, "downed": downs, "down_rate": downs / n,
            "down_rate_ci": [_num(lo), _num(hi)],
            "median_time_to_down": _num(median),
            "median_time_to_down_ci": [_num(m_lo), _num(m_hi)],
            "median_time_to_down_when_downed": stats.histogram_median(t.down_round[c]),
            "capped": int(t.censor_round[c, res.layout.max_rounds]),
            "down_round_counts": _counts(t.down_round[c]),
            "censor_round_counts": _counts(t.censor_round[c]),
            "attacks_to_down_counts": _counts(t.down_attacks[c]),
            "events": events,
        })  # fmt: skip
    return out


def _sparse(array: np.ndarray) -> dict[str, Any]:
    flat = array.ravel()
    index = np.flatnonzero(flat)
    return {"shape": list(array.shape), "index": index.tolist(), "values": flat[index].tolist()}


def scenario_document(run: ScenarioRun) -> dict[str, Any]:
    """The ``results.json`` entry of one scenario (see the module docstring)."""
    res = run.result
    t, n = res.tallies, res.encounters
    wins = t.winner
    w_lo, w_hi, _ = stats.rate_interval(wins, np.full(len(wins), n), LEVEL)
    sides = [
        {"name": s, "wins": int(wins[i]), "win_rate": wins[i] / n,
         "win_rate_ci": [_num(w_lo[i]), _num(w_hi[i])]}
        for i, s in enumerate(res.layout.sides)
    ]  # fmt: skip
    draws = {"count": int(wins[-1]), "rate": wins[-1] / n, "ci": [_num(w_lo[-1]), _num(w_hi[-1])]}
    other = {
        name: _sparse(np.asarray(array))
        for name, array in zip(t._fields, t, strict=True)
        if name not in _KNOWN
    }
    return {
        "scenario": res.scenario, "rules": res.rules, "source": run.source,
        "encounters": n, "seed": res.seed, "simlab_version": run.simlab_version,
        "layout": dataclasses.asdict(res.layout),
        "attacks": _attack_entries(res), "combatants": _combatant_entries(res),
        "sides": sides, "draws": draws, "rounds_counts": _counts(t.rounds),
        "mean_rounds": _num(res.mean_rounds()), "other_tallies": other,
        "exact": run.exact, "expect": run.expect, "drift_tolerance": run.drift_tolerance,
    }  # fmt: skip


def results_document(runs: list[ScenarioRun]) -> dict[str, Any]:
    """The whole ``results.json`` document of a report run."""
    return {"format": FORMAT, "simlab_version": __version__, "interval_level": LEVEL,
            "scenarios": [scenario_document(r) for r in runs]}  # fmt: skip


def save_results(runs: list[ScenarioRun], path: str | os.PathLike[str]) -> Path:
    """Write ``results.json`` for ``runs`` to ``path``, atomically.

    Parameters
    ----------
    runs : list of ScenarioRun
        The report's scenarios.
    path : path-like
        The file to write (its folder is created).

    Returns
    -------
    Path
        The file written.
    """
    return write_json(Path(path), results_document(runs))


# -- reading -------------------------------------------------------------------------------


def _layout(doc: dict[str, Any]) -> Layout:
    known = {f.name for f in dataclasses.fields(Layout)}
    kwargs = {k: v for k, v in doc.items() if k in known}
    kwargs["combatants"] = [tuple(c) for c in kwargs.get("combatants", [])]
    return Layout(**kwargs)


def _tallies(doc: dict[str, Any], layout: Layout) -> TallyArrays:
    t = new_tallies(layout)
    for entry in doc["attacks"]:
        p = layout.pair(*entry["pair"])
        batches = entry["batches"]
        t.attempts[p] = batches["attempts"]
        t.hits[p] = batches["hits"]
        t.crits[p] = batches["crits"]
        t.damage_sum[p] = batches["damage"]
        t.damage_hist[p] = _uncounts(entry["damage_counts"], layout.damage_bins, "damage")
    r1 = layout.max_rounds + 1
    for c, entry in enumerate(doc["combatants"]):
        t.down_round[c] = _uncounts(entry["down_round_counts"], r1, "round")
        t.censor_round[c] = _uncounts(entry["censor_round_counts"], r1, "round")
        t.down_attacks[c] = _uncounts(entry["attacks_to_down_counts"], layout.attack_bins,
                                      "attack count")  # fmt: skip
        for e, event in enumerate(layout.events):
            counts = entry["events"].get(event, {}).get("round_counts", {})
            t.event_round[c, e] = _uncounts(counts, r1, "round")
    t.winner[:] = [*(s["wins"] for s in doc["sides"]), doc["draws"]["count"]]
    t.rounds[:] = _uncounts(doc["rounds_counts"], r1, "round")
    for name, sparse in doc.get("other_tallies", {}).items():
        if name in t._fields:
            array = getattr(t, name)
            if list(array.shape) != sparse["shape"]:
                raise InputError(f"expected tally {name!r} of shape {list(array.shape)}; "
                                 f"got {sparse['shape']}")  # fmt: skip
            array.ravel()[sparse["index"]] = sparse["values"]
    return t


def scenario_run(doc: dict[str, Any]) -> ScenarioRun:
    """Rebuild a :class:`ScenarioRun` from its ``results.json`` entry."""
    layout = _layout(doc["layout"])
    result = Result(scenario=doc["scenario"], rules=doc["rules"],
                    encounters=int(doc["encounters"]), seed=int(doc["seed"]), layout=layout,
                    tallies=_tallies(doc, layout))  # fmt: skip
    return ScenarioRun(result=result, source=doc.get("source"), exact=doc.get("exact"),
                       expect=list(doc.get("expect", [])),
                       drift_tolerance=dict(doc.get("drift_tolerance", {})),
                       simlab_version=str(doc.get("simlab_version", "unknown")))  # fmt: skip


def results_path(path: str | os.PathLike[str]) -> Path:
    """``path`` itself, or ``path/results.json`` when it is a folder."""
    p = Path(path)
    return p / RESULTS_NAME if p.is_dir() else p


def load_results(path: str | os.PathLike[str]) -> list[ScenarioRun]:
    """Read a ``results.json`` (or the one in a folder) back into scenario runs.

    Raises
    ------
    InputError
        When the file is missing, is not JSON, or is not a format this version reads.
    """
    p = results_path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{p}: expected a results.json file; got no such file") from None
    except (OSError, ValueError) as err:
        raise InputError(f"{p}: expected a results.json file; got {err}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise InputError(f"{p}: expected results format {FORMAT}; got {got!r}")
    try:
        return [scenario_run(entry) for entry in doc["scenarios"]]
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise InputError(f"{p}: expected a complete results.json; got a problem with "
                         f"{type(err).__name__}: {err}") from None  # fmt: skip
