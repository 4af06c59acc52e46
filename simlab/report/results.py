"""``results.json``: every figure of a report run, with the integer counts behind it.

A report run is a list of :class:`ScenarioRun` — a simulation :class:`Result` plus what
the report needs around it (the scenario file, the exact answers, the scenario's
``expect:`` specs and drift tolerances). ``results.json`` stores them so that a report
can be drawn again and compared with the next night's run without simulating
(``simlab report --from``, ``--baseline``).

Format 1 (``"format": 1``)::

    {"run": {…}, "format": 1, "simlab_version": "0.1.0", "interval_level": 0.95,
     "scenarios": [{
        "scenario": "quickstart", "rules": "shattered-spirits", "source": "scenarios/…",
        "encounters": 200000, "seed": 7, "simlab_version": "0.1.0",
        "scenario_hash": "…",
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
        "expect": [{…}], "drift_tolerance": {"rate": 0.02, …},
        "copies": {"Orc": ["Orc 1", "Orc 2"]}}]}

``copies`` names the copies of each scenario entry that makes several (``count:``),
which the report's plots pool; a file written before it was recorded pools copies by
their names (``Orc 1``, ``Orc 2``), as simlab did then.
``run`` is the run identity every file of the folder carries
(:func:`simlab.report.files.run_identity`); a file whose ``run`` disagrees with its
scenarios, or a folder whose files disagree, is refused when read. Counts are checked
when read too (whole numbers, 0 ≤ hits, crits ≤ attempts, …), and so is what is read
beside them (:mod:`simlab.report.saved`): a corrupted file is refused rather than
compared. Counts are what the statistical tests use; the rates and
intervals are there for people and other tools. Tally arrays this module does not know
by name (a rule system may add some) are kept losslessly in ``other_tallies`` as sparse
(flat index, value) lists.
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
from simlab.arguments import describe, path_argument
from simlab.engine.tallies import Layout, TallyArrays, new_tallies
from simlab.errors import InputError
from simlab.limits import MAX_ENCOUNTERS, MAX_RESULTS_BYTES, MAX_SEED, read_bounded
from simlab.report.files import (
    MANIFEST,
    OutputError,
    check_unit,
    prepare_file,
    reading_unit,
    run_identity,
    write_json,
)
from simlab.report.saved import check_about
from simlab.report.words import counted

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


def run_list(runs: object) -> list[ScenarioRun]:
    """``runs`` as a list: one :class:`ScenarioRun`, or a list or tuple of them.

    Raises
    ------
    InputError
        For anything else (None, a path, an empty list, a bare :class:`Result`, a list
        holding one):
        ``expected a ScenarioRun or a list of them (…); got a Result``.
    """
    if isinstance(runs, ScenarioRun):
        return [runs]
    if isinstance(runs, Result):  # no expect: entries or exact answers to report with it
        got = "a Result (simlab.write_results writes one alone)"
    elif not isinstance(runs, list | tuple):
        got = describe(runs)
    elif not runs:  # an empty report or results file, of no scenario
        got = f"an empty {type(runs).__name__}"
    else:
        wrong = [r for r in runs if not isinstance(r, ScenarioRun)]
        if not wrong:
            return list(runs)
        got = f"a {type(runs).__name__} holding {describe(wrong[0])}"
    raise InputError("expected a ScenarioRun or a list of them (simlab.run_scenarios, "
                     f"simlab.load_results); got {got}")  # fmt: skip


def results_path_argument(path: object, name: str = "path") -> Path:
    """``path`` as a Path, when it is one: a results file or its folder.

    Raises
    ------
    InputError
        ``expected the path of a results file or its folder for baseline; got None``.
    """
    return Path(path_argument(path, "the path of a results file or its folder", name))


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
        out[i] = _whole(value, f"each {what} count")
    return out


#: The largest count a results file may hold (tallies are 64-bit integers).
MAX_COUNT = 2**62
#: The largest size of a tally axis read from a file (bins, rounds, names).
_MAX_AXIS = 100_000


def _whole(value: Any, what: str, top: int = MAX_COUNT) -> int:
    """``value`` when it is a whole number from 0 to ``top``, else an InputError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise InputError(f"expected {what} as a whole number from 0 to {top:_}; got {value!r}")
    return value


def _wholes(values: Any, size: int, what: str) -> list[int]:
    if not isinstance(values, list) or len(values) != size:
        raise InputError(f"expected {size} {what} counts; got {values!r:.60}")
    return [_whole(v, f"each {what} count") for v in values]


def _check_counts(t: TallyArrays, n: int, layout: Layout) -> None:
    """Refuse tallies no simulation can produce (a corrupted or hand-edited file)."""
    names = [name for _, name in layout.combatants]
    for p in np.flatnonzero((t.hits > t.attempts).any(axis=1) | (t.crits > t.attempts).any(axis=1)):
        a, k, d = layout.unpair(int(p))
        raise InputError(f"expected hits and crits at most the attempts of {names[a]}'s "
                         f"{layout.attacks[k]} on {names[d]}; got "
                         f"{int(t.hits[p].sum())} hits, {int(t.crits[p].sum())} crits, "
                         f"{int(t.attempts[p].sum())} attempts")  # fmt: skip
    _check_totals(t, n, layout)
    for c, name in enumerate(names):
        downs, standing = int(t.down_round[c].sum()), int(t.censor_round[c].sum())
        if downs + standing > n:
            raise InputError(f"expected {name} downed or left standing in at most "
                             f"{counted(n, 'encounter')}; got {downs} and {standing}")  # fmt: skip
        for e, event in enumerate(layout.events):
            if int(t.event_round[c, e].sum()) > n:
                raise InputError(f"expected {name}'s {event} in at most {counted(n, 'encounter')}; "
                                 f"got {int(t.event_round[c, e].sum())}")  # fmt: skip
    if int(t.winner.sum()) != n:
        raise InputError(f"expected wins and draws to add up to {counted(n, 'encounter')}; "
                         f"got {int(t.winner.sum())}")  # fmt: skip


def _check_totals(t: TallyArrays, n: int, layout: Layout) -> None:
    """Refuse histograms that do not count what they histogram: one damage count per
    attempt of a pair, one rounds count per encounter (summed as Python ints: no 64-bit
    wrap-around can make a corrupted total come out right)."""
    names = [name for _, name in layout.combatants]
    attempts = t.attempts.astype(object).sum(axis=1)
    damages = t.damage_hist.astype(object).sum(axis=1)
    for p in np.flatnonzero(attempts != damages):
        a, k, d = layout.unpair(int(p))
        raise InputError(f"expected the damage counts of {names[a]}'s {layout.attacks[k]} on "
                         f"{names[d]} to add up to its {attempts[p]} attempts; "
                         f"got {damages[p]}")  # fmt: skip
    for p in np.flatnonzero(attempts):
        _check_damage_total(t.damage_sum[p], t.damage_hist[p], layout, int(p))
    rounds = sum(int(count) for count in t.rounds)
    if rounds != n:
        raise InputError(f"expected rounds counts adding up to {counted(n, 'encounter')}; "
                         f"got {rounds}")  # fmt: skip


def _pair_name(layout: Layout, p: int) -> str:
    """``Kaito's quick-jab on Brute``: the attack pair in tally slot ``p``."""
    a, k, d = layout.unpair(int(p))
    names = [name for _, name in layout.combatants]
    return f"{names[a]}'s {layout.attacks[k]} on {names[d]}"


def _check_damage_total(sums: np.ndarray, hist: np.ndarray, layout: Layout, p: int) -> None:
    """Refuse pair ``p`` when its damage total (the batch sums) disagrees with its damage
    counts: the total is their sum exactly, or more when the last bin holds damage of
    at least its value (summed as Python ints, as :func:`_check_totals`)."""
    total = sum(int(x) for x in sums)
    counted = sum(d * int(count) for d, count in enumerate(hist))
    if total < counted or (total > counted and not hist[-1]):
        raise InputError(f"expected the damage total of {_pair_name(layout, p)} to be the "
                         f"sum of its damage counts, {counted}; got {total}")  # fmt: skip


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
        median, m_lo, m_hi = median_time_to_down(
            t.down_round[c], n, earliest=res.layout.first_round_of([c])
        )
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
        "scenario_hash": res.meta.get("scenario_hash"), "layout": dataclasses.asdict(res.layout),
        "attacks": _attack_entries(res), "combatants": _combatant_entries(res),
        "sides": sides, "draws": draws, "rounds_counts": _counts(t.rounds),
        "mean_rounds": _num(res.mean_rounds()), "other_tallies": other,
        "exact": run.exact, "expect": run.expect, "drift_tolerance": run.drift_tolerance,
        **({"precision": res.meta["precision"]} if "precision" in res.meta else {}),
        **({"overrides": res.meta["overrides"]} if "overrides" in res.meta else {}),
        **({"idle_overrides": res.meta["idle_overrides"]}
           if "idle_overrides" in res.meta else {}),
        **({"copies": res.meta["copies"]} if "copies" in res.meta else {}),
    }  # fmt: skip


def results_document(runs: list[ScenarioRun]) -> dict[str, Any]:
    """The whole ``results.json`` document of a report run."""
    return {"run": run_identity([r.result for r in runs]), "format": FORMAT,
            "simlab_version": __version__, "interval_level": LEVEL,
            "scenarios": [scenario_document(r) for r in runs]}  # fmt: skip


def save_results(runs: list[ScenarioRun] | ScenarioRun, path: str | os.PathLike[str]) -> Path:
    """Write ``results.json`` for ``runs`` to ``path``, atomically (a unit of one file).

    Parameters
    ----------
    runs : list of ScenarioRun, or one
        The report's scenarios.
    path : path-like
        The file to write (its folder is created).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    InputError
        When ``runs`` is not a ScenarioRun or a list of them (:func:`run_list`), or
        ``path`` not a path.
    OutputError
        When ``path`` holds something other than a results file simlab wrote
        (:func:`prepare_results_file`), or the disk refuses the write; nothing is changed.
    """
    runs = run_list(runs)
    path_argument(path, "a file path", "path")
    target = prepare_results_file(path)
    try:
        return write_json(target, results_document(runs))
    except OSError as err:
        raise OutputError(f"{path}: could not write ({(err.strerror or str(err)).lower()}); "
                          "nothing was changed") from None  # fmt: skip


def prepare_results_file(path: str | os.PathLike[str], what: str = "") -> Path:
    """Check, before any work, that a results file may be written at ``path``.

    The path must be new, or hold a results file simlab wrote (a baseline is replaced
    on purpose): never a device, a FIFO, a folder, a scenario or an empty file, which
    simlab did not write and must not destroy (README "Balance reports").

    Parameters
    ----------
    path : path-like
        The file to be (over)written.
    what : str, optional
        How the file is named in messages (the CLI option, ``"--baseline"``).

    Raises
    ------
    OutputError
        When ``path`` cannot be written (:func:`~simlab.report.files.prepare_file`) or
        holds something else; nothing is changed.
    """
    target = prepare_file(path, what) if what else Path(path)
    if os.path.lexists(target):
        _require_results(target, f"{what} {target}".lstrip())
    return target


def _require_results(target: Path, name: str) -> None:
    """Refuse ``target`` unless it is a regular file in simlab's results format."""

    def refuse(got: str) -> OutputError:
        return OutputError(f"{name}: expected a new file or a results file simlab wrote; "
                           f"got {got}; nothing was written")  # fmt: skip

    data = read_bounded(os.fspath(target), MAX_RESULTS_BYTES, refuse)
    try:
        doc = json.loads(data.decode("utf-8"))
    except ValueError:
        raise refuse("a file that is not JSON" if data.strip() else "an empty file") from None
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT
            and isinstance(doc.get("scenarios"), list)):  # fmt: skip
        raise refuse(f"a JSON file that is not simlab's results (format {FORMAT})")


# -- reading -------------------------------------------------------------------------------


def _zero_or_one(value: Any) -> bool:
    """Whether ``value`` is the whole number 0 or 1 (not ``False`` or ``True``)."""
    return value in (0, 1) and not isinstance(value, bool)


def _first_rounds(doc: dict[str, Any], combatants: int) -> list[int]:
    """A layout's ``first_rounds``, one 0 or 1 per combatant. A file written before they
    were per combatant has one ``first_round`` for everyone (0 with a surprise round),
    read as that round for each; one written before that, round 1 for each."""
    first = doc.get("first_round", 1)
    if not _zero_or_one(first):
        raise InputError(f"expected layout first_round 0 or 1; got {first!r:.60}")
    if "first_rounds" not in doc:
        return [first] * combatants
    rounds = doc["first_rounds"]
    if not (isinstance(rounds, list) and len(rounds) == combatants
            and all(_zero_or_one(r) for r in rounds)):  # fmt: skip
        raise InputError(f"expected layout first_rounds, 0 or 1 for each of the {combatants} "
                         f"combatants; got {rounds!r:.60}")  # fmt: skip
    return list(rounds)


def _layout(doc: dict[str, Any]) -> Layout:
    known = {f.name for f in dataclasses.fields(Layout)}
    kwargs = {k: v for k, v in doc.items() if k in known}
    for key in ("max_rounds", "damage_bins", "batches", "attack_bins", "attacks_per_round"):
        if key in kwargs and _whole(kwargs[key], f"layout {key}", _MAX_AXIS) < 1:
            raise InputError(f"expected layout {key} of at least 1; got {kwargs[key]}")
    for key in ("sides", "combatants", "attacks", "events"):
        if len(kwargs.get(key, [])) > _MAX_AXIS:
            raise InputError(f"expected at most {_MAX_AXIS} layout {key}; got more")
    kwargs["first_rounds"] = _first_rounds(doc, len(kwargs.get("combatants", [])))
    for key in ("statuses", "crits", "momentum"):
        if not isinstance(kwargs.get(key, False), bool):
            raise InputError(f"expected layout {key} as true or false; got {kwargs[key]!r:.60}")
    for key in ("sides", "attacks", "events"):
        _distinct_texts(kwargs.get(key, []), f"layout {key}")
    kwargs["combatants"] = _layout_combatants(kwargs.get("combatants", []), kwargs["sides"])
    sides = [kwargs["sides"].index(side) for side, _ in kwargs["combatants"]]
    if kwargs.setdefault("side_of", sides) != sides:
        raise InputError(f"expected layout side_of {sides}, the sides of the layout's "
                         f"combatants; got {kwargs['side_of']!r:.60}")  # fmt: skip
    return Layout(**kwargs)


def _distinct_texts(values: Any, what: str) -> list[str]:
    """``values`` when it is a list of distinct texts (names), else an InputError."""
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise InputError(f"expected {what} as a list of names; got {values!r:.60}")
    twice = [v for v in dict.fromkeys(values) if values.count(v) > 1]
    if twice:
        raise InputError(f"expected each of {what} once; got {twice[0]!r} more than once")
    return values


def _layout_combatants(entries: Any, sides: list[str]) -> list[tuple[str, str]]:
    """The layout's (side, name) pairs: each a side of the layout and a name of its own."""
    if not isinstance(entries, list) or not all(
        isinstance(e, list) and len(e) == 2 and e[0] in sides for e in entries
    ):
        raise InputError(f"expected layout combatants as [side, name] pairs, each side one "
                         f"of {sides}; got {entries!r:.60}")  # fmt: skip
    _distinct_texts([name for _, name in entries], "the layout's combatant names")
    return [(side, name) for side, name in entries]


def _pair_index(pair: Any, layout: Layout) -> int:
    """The tally slot of an attack entry's ``pair``: the [attacker, attack, defender]
    positions of the layout's combatants and attacks."""
    c, k = len(layout.combatants), len(layout.attacks)
    whole = isinstance(pair, list) and len(pair) == 3 and all(
        isinstance(i, int) and not isinstance(i, bool) for i in pair)  # fmt: skip
    if not (whole and 0 <= pair[0] < c and 0 <= pair[1] < k and 0 <= pair[2] < c):
        raise InputError(f"expected an attack pair [attacker, attack, defender] of the "
                         f"{c} combatants and {k} attacks; got {pair!r:.60}")  # fmt: skip
    return layout.pair(*pair)


def _tallies(doc: dict[str, Any], layout: Layout) -> TallyArrays:
    t = new_tallies(layout)
    for entry in doc["attacks"]:
        p = _pair_index(entry["pair"], layout)
        batches, size = entry["batches"], layout.batches
        t.attempts[p] = _wholes(batches["attempts"], size, "attempt")
        t.hits[p] = _wholes(batches["hits"], size, "hit")
        t.crits[p] = _wholes(batches["crits"], size, "crit")
        t.damage_sum[p] = _wholes(batches["damage"], size, "damage")
        t.damage_hist[p] = _uncounts(entry["damage_counts"], layout.damage_bins, "damage")
    r1 = layout.max_rounds + 1
    if len(doc["combatants"]) != len(layout.combatants):
        raise InputError(f"expected {len(layout.combatants)} combatant entries, one per "
                         f"combatant of the layout; got {len(doc['combatants'])}")  # fmt: skip
    for c, entry in enumerate(doc["combatants"]):
        t.down_round[c] = _uncounts(entry["down_round_counts"], r1, "round")
        t.censor_round[c] = _uncounts(entry["censor_round_counts"], r1, "round")
        t.down_attacks[c] = _uncounts(entry["attacks_to_down_counts"], layout.attack_bins,
                                      "attack count")  # fmt: skip
        for e, event in enumerate(layout.events):
            counts = entry["events"][event]["round_counts"]
            t.event_round[c, e] = _uncounts(counts, r1, "round")
    t.winner[:] = _wholes(
        [*(s["wins"] for s in doc["sides"]), doc["draws"]["count"]], len(t.winner), "win"
    )
    t.rounds[:] = _uncounts(doc["rounds_counts"], r1, "round")
    for name, sparse in doc.get("other_tallies", {}).items():
        if name in t._fields:
            array = getattr(t, name)
            if list(array.shape) != sparse["shape"]:
                raise InputError(f"expected tally {name!r} of shape {list(array.shape)}; "
                                 f"got {sparse['shape']}")  # fmt: skip
            flat = array.ravel()
            flat[_wholes(sparse["index"], len(sparse["index"]), f"{name} index")] = _wholes(
                sparse["values"], len(sparse["index"]), name
            )
    return t


def scenario_run(doc: dict[str, Any]) -> ScenarioRun:
    """Rebuild a :class:`ScenarioRun` from its ``results.json`` entry."""
    layout = _layout(doc["layout"])
    check_about(doc, layout)
    n = _whole(doc["encounters"], "encounters", MAX_ENCOUNTERS)
    tallies = _tallies(doc, layout)
    _check_counts(tallies, n, layout)
    result = Result(scenario=doc["scenario"], rules=doc["rules"], encounters=n,
                    seed=_whole(doc["seed"], "the seed", MAX_SEED), layout=layout,
                    tallies=tallies, meta={"scenario_hash": doc.get("scenario_hash")})  # fmt: skip
    if doc.get("precision") is not None:
        result.meta["precision"] = doc["precision"]
    if doc.get("overrides"):
        result.meta["overrides"] = list(doc["overrides"])
    if doc.get("idle_overrides"):
        result.meta["idle_overrides"] = list(doc["idle_overrides"])
    if doc.get("copies") is not None:
        result.meta["copies"] = {entry: list(names) for entry, names in doc["copies"].items()}
    return ScenarioRun(result=result, source=doc.get("source"), exact=doc.get("exact"),
                       expect=list(doc.get("expect", [])),
                       drift_tolerance=dict(doc.get("drift_tolerance", {})),
                       simlab_version=str(doc.get("simlab_version", "unknown")))  # fmt: skip


def results_path(path: str | os.PathLike[str]) -> Path:
    """``path`` itself, or ``path/results.json`` when it is a folder."""
    p = Path(path)
    return p / RESULTS_NAME if p.is_dir() else p


def _read_document(p: Path) -> dict[str, Any]:
    """The JSON document of the results file ``p``: a regular file of at most
    :data:`~simlab.limits.MAX_RESULTS_BYTES`, in simlab's results format."""

    def refuse(got: str) -> InputError:
        return InputError(f"{p}: expected a results.json file; got {got}")

    try:
        doc = json.loads(read_bounded(os.fspath(p), MAX_RESULTS_BYTES, refuse).decode("utf-8"))
    except json.JSONDecodeError as err:  # a scenario, or any other text
        raise refuse(f"a file that is not JSON (line {err.lineno}, column {err.colno}: "
                     f"{err.msg.lower()}); simlab report --out and baseline update write "
                     "one") from None  # fmt: skip
    except ValueError as err:  # not UTF-8
        raise refuse(f"a file that is not text ({err})") from None
    if not isinstance(doc, dict):
        raise InputError(f"{p}: expected a JSON object; got {_json_kind(doc)}")
    if doc.get("format") != FORMAT:
        raise InputError(f"{p}: expected results format {FORMAT}; got {doc.get('format')!r}")
    if "scenarios" in doc and not isinstance(doc["scenarios"], list):
        raise InputError(f"{p}: expected a list of scenarios; got "
                         f"{_json_kind(doc['scenarios'])}")  # fmt: skip
    return doc


def _json_kind(value: Any) -> str:
    """What a JSON value is, in words: ``a list``, ``a mapping``, ``a number``."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    return "null"


def _what_is_wrong(err: Exception) -> str:
    """What reading a results document failed on, in words: a missing entry, a list
    too short, or a value of another kind or size than the format's."""
    if isinstance(err, KeyError):
        return f"no {err.args[0]!r} entry"
    if isinstance(err, IndexError):
        return "a list shorter than its counts say"
    return f"a value of another kind or size than the format's ({err})"


def _refuse_repeats(runs: list[ScenarioRun], p: Path) -> None:
    """Refuse a file with one scenario twice (rules id and scenario id): the drift gate
    and ``baseline update`` would use one of the two and silently drop the other."""
    seen: set[tuple[str, str]] = set()
    for run in runs:
        if (run.rules, run.scenario) in seen:
            raise InputError(f"{p}: expected each scenario once; got {run.scenario!r} "
                             f"(rules {run.rules}) twice")  # fmt: skip
        seen.add((run.rules, run.scenario))


def load_results(path: str | os.PathLike[str], *, name: str = "path") -> list[ScenarioRun]:
    """Read a ``results.json`` (or the one in a folder) back into scenario runs.

    Parameters
    ----------
    path : path-like
        The results file, or the folder that holds it.
    name : str
        How messages name ``path`` (the command line's ``--baseline``).

    Raises
    ------
    InputError
        When the file is missing, is not a regular file of at most
        :data:`~simlab.limits.MAX_RESULTS_BYTES` (``/dev/zero``, a FIFO: refused unread),
        is not JSON, or is not a format this version reads; when its counts are
        impossible (corrupted); when the folder's files come from different runs
        (:func:`simlab.report.files.check_unit`); when ``path`` is not a path.
    """
    p = results_path(results_path_argument(path, name))
    with reading_unit(p.parent):
        doc = _read_document(p)  # first: a huge file or a FIFO is refused before anything
        if p.name == RESULTS_NAME and os.path.lexists(p.parent / MANIFEST):
            check_unit(p.parent)  # an output folder: all its files of one run
    try:
        runs = [scenario_run(entry) for entry in doc["scenarios"]]
    except InputError as err:
        raise InputError(f"{p}: {err}") from None
    except (KeyError, TypeError, ValueError, IndexError, OverflowError, AttributeError) as err:
        raise InputError(f"{p}: expected a complete results.json; got "
                         f"{_what_is_wrong(err)}") from None  # fmt: skip
    _refuse_repeats(runs, p)
    stamped = doc.get("run")
    if isinstance(stamped, dict) and stamped != run_identity([r.result for r in runs]) | {
        "simlab_version": stamped.get("simlab_version")
    }:
        raise InputError(f"{p}: expected the scenarios of the run it names; got scenarios "
                         "from another run (its 'run' field disagrees)")  # fmt: skip
    return runs
