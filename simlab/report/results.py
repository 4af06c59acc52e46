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
        "copies": {"Orc": ["Orc 1", "Orc 2"]},
        "cannot_crit": {"Kaito quick-jab → Brute": "its profile has no crit row"}}]}

``copies`` names the copies of each scenario entry that makes several (``count:``),
which the report's plots pool; a file written before it was recorded pools copies by
their names (``Orc 1``, ``Orc 2``), as simlab did then. ``cannot_crit`` names the attack
pairs that cannot crit, with why, so that a report read back says of them what the run
said (:func:`cannot_crit_of`); a file written before it was kept tells them by its exact
answers alone.
``run`` is the run identity every file of the folder carries
(:func:`simlab.report.files.run_identity`); a file whose ``run`` disagrees with its
scenarios, or a folder whose files disagree, is refused when read. Counts are checked
when read too (whole numbers, 0 ≤ hits, crits ≤ attempts in each batch, …), and so are
the totals and figures stored beside them (:mod:`simlab.report.derived`) and what is
read beside them (:mod:`simlab.report.saved`): a corrupted or hand-edited file is
refused, naming the place in it, rather than compared. Counts are what the statistical
tests use; the totals, rates and intervals are there for people and other tools. Tally
arrays this module does not know by name (a rule system may add some) are kept
losslessly in ``other_tallies`` as sparse (flat index, value) lists.
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
from simlab.binding import checked_arguments
from simlab.engine.tallies import Layout, TallyArrays, new_tallies
from simlab.errors import InputError
from simlab.limits import MAX_ENCOUNTERS, MAX_RESULTS_BYTES, MAX_SEED, read_bounded
from simlab.report.derived import (
    EntryError,
    JsonPath,
    check_figures,
    json_path,
    line_of,
    same,
    shown,
)
from simlab.report.files import (
    A_RESULTS_FILE,
    MANIFEST,
    OutputError,
    check_unit,
    cut_short_at,
    prepare_file,
    reading_unit,
    run_identity,
    simlab_output,
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

    def __repr__(self) -> str:
        """One line, as a :class:`Result`'s: the scenario (with the changes it was run
        with), its rules, sample size and seed, and how many ``expect:`` specs it has to
        check (the dataclass's own repr printed the whole exact-answer document)."""
        result = self.result
        changed = result._overrides_said()
        fixed = f" · with {', '.join(changed)}" if changed else ""
        specs = counted(len(self.expect), "spec")
        checked = f"{specs} (simlab.check)" if self.expect else "no specs"
        return (f"<ScenarioRun {self.scenario}{fixed} · rules {self.rules} · "
                f"{counted(result.encounters, 'encounter')} · seed {result.seed}: "
                f"{checked}; .result, .exact, .expect>")  # fmt: skip


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


def cannot_crit_of(res: Result) -> dict[str, str]:
    """The attack pairs of ``res`` that cannot crit, each with why (``its profile has no
    crit row``), kept in ``results.json`` as ``cannot_crit``, so that a report read back
    from it (``report --from``) says of them what a fresh run says, where it could tell
    them only by the exact answers kept: those it read back, or those of the scenario
    simulated; none in a rule system without crits (whose tables have no crit rate)."""
    from simlab.tuning.figures import known_cannot_crit

    return (known_cannot_crit(res) or {}) if res.layout.crits else {}


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
        **({"cannot_crit": cannot} if (cannot := cannot_crit_of(res)) else {}),
        **({"idle_overrides": res.meta["idle_overrides"]}
           if "idle_overrides" in res.meta else {}),
        **({"copies": res.meta["copies"]} if "copies" in res.meta else {}),
    }  # fmt: skip


def results_document(runs: list[ScenarioRun]) -> dict[str, Any]:
    """The whole ``results.json`` document of a report run."""
    return document_of([r.result for r in runs], [scenario_document(r) for r in runs])


def document_of(results: list[Result], entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``results.json`` document of ``results``, whose scenario entries are
    ``entries`` (one each, in order: made by :func:`scenario_document`, or kept as a
    baseline wrote them)."""
    return {"run": run_identity(results), "format": FORMAT, "simlab_version": __version__,
            "interval_level": LEVEL, "scenarios": entries}  # fmt: skip


def write_results_file(target: Path, document: dict[str, Any],
                       name: str | os.PathLike[str]) -> Path:  # fmt: skip
    """Write ``document`` to ``target`` atomically; an :class:`OutputError` naming the
    file as ``name`` when the disk refuses (nothing is changed then)."""
    try:
        return write_json(target, document)
    except OSError as err:
        raise OutputError(f"{name}: could not write ({(err.strerror or str(err)).lower()}); "
                          "nothing was changed") from None  # fmt: skip


@checked_arguments()
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
    return write_results_file(target, results_document(runs), path)


def prepare_results_file(path: str | os.PathLike[str], what: str = "") -> Path:
    """Check, before any work, that a results file may be written at ``path``.

    The path must be new, or hold a results file simlab wrote (a baseline is replaced
    on purpose) in this version's format or an older one: never a device, a FIFO, a
    folder, a scenario, an empty file or another of simlab's outputs (a ``sweep.json``, a
    report's page), which must not be destroyed, nor a file of an output folder, which
    is written whole by its command (README "Balance reports", "Output files").

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
    name = f"{what} {os.fspath(path)}".lstrip()
    if os.fspath(path) and "\0" not in os.fspath(path) and Path(path).is_dir():
        _refuse_an_output(Path(path), name)
    target = prepare_file(path, what) if what else Path(path)
    if os.path.lexists(target):
        _require_results(target, name)
    _refuse_in_an_output_folder(target, name)
    return target


#: What to name instead of another file as the baseline to write.
_NAME_THE_BASELINE = ("name the baseline file to write (reports/baseline/results.json by "
                      "default) or a new file")  # fmt: skip


def _not_written(name: str, got: str, instead: str = "") -> OutputError:
    """``NAME: expected a new file or a results file simlab wrote; got GOT; nothing was
    written[: INSTEAD]``."""
    then = f": {instead}" if instead else ""
    return OutputError(f"{name}: expected a new file or a results file simlab wrote; got "
                       f"{got}; nothing was written{then}")  # fmt: skip


def _refuse_an_output(path: Path, name: str) -> None:
    """Refuse one of simlab's outputs other than results, or a folder of results, as
    what it is (any other folder is refused by :func:`prepare_file`)."""
    output = simlab_output(path)
    if output is None or (output.kind == "results" and not path.is_dir()):
        return
    got = output.said()
    if output.kind == "results" and not output.damage:  # a report's folder: take its results
        raise _not_written(name, got, f"a baseline is one file: simlab baseline update "
                                      f"--from {path} --baseline FILE makes one of its "
                                      "results")  # fmt: skip
    raise _not_written(name, got, _NAME_THE_BASELINE)


def _require_results(target: Path, name: str) -> None:
    """Refuse ``target`` unless it is a regular file in simlab's results format, of this
    version or an older one."""

    def refuse(got: str) -> OutputError:
        return _not_written(name, got)

    data = read_bounded(os.fspath(target), MAX_RESULTS_BYTES, refuse)
    try:
        doc = json.loads(data.decode("utf-8"))
    except ValueError:
        if getattr(simlab_output(target), "kind", None) == "results":  # cut short: rewritten
            return
        _refuse_an_output(target, name)
        raise refuse("a file that is not JSON" if data.strip() else "an empty file") from None
    # Results of another format are simlab's too (an older simlab's baseline): a new
    # baseline replaces them, which is how one moves to this version's format.
    if not (isinstance(doc, dict) and _is_format_number(doc.get("format"))
            and isinstance(doc.get("scenarios"), list)):  # fmt: skip
        _refuse_an_output(target, name)
        raise refuse(f"a JSON file that is not simlab's results (format {FORMAT})")
    if doc["format"] > FORMAT:  # a newer simlab's: this one would take the team's back
        version = doc.get("simlab_version")
        newer = f"simlab {version}" if isinstance(version, str) else "the simlab that wrote it"
        raise _not_written(name, f"results of format {doc['format']}{_written_by(doc)}, "
                                 f"newer than this simlab {__version__} writes",
                           f"update it with {newer} or later")  # fmt: skip


def _refuse_in_an_output_folder(target: Path, name: str) -> None:
    """Refuse a results file inside an output folder (one with a manifest): the command
    that wrote the folder writes all its files at once, and one file replaced alone would
    leave the others of another run beside it (:func:`~simlab.report.files.check_unit`)."""
    folder = target.parent
    if not os.path.lexists(folder / MANIFEST):
        return
    output = simlab_output(folder)
    whose = output.what if output is not None else "an output folder"
    listed = f"its {target.name}" if (folder / target.name).exists() else "a new file"
    raise _not_written(name, f"{listed} in {whose}, which its command writes whole (its "
                             f"{MANIFEST} lists its files)",
                       f"{_NAME_THE_BASELINE} outside that folder")  # fmt: skip


def _is_format_number(value: Any) -> bool:
    """Whether ``value`` is what a results file's ``format`` holds: a whole number."""
    return isinstance(value, int) and not isinstance(value, bool)


# -- reading -------------------------------------------------------------------------------


def _uncounts(counts: Any, size: int, what: str, at: JsonPath) -> np.ndarray:
    """A ``{"bin": count}`` histogram read back, each count checked where it is."""
    if not isinstance(counts, dict):
        raise EntryError(at, f"expected {what} counts as a mapping; got {shown(counts, 60)}")
    out = np.zeros(size, dtype=np.int64)
    for key, value in counts.items():
        i = int(key)
        if not 0 <= i < size:
            raise EntryError((*at, key), f"expected {what} bins below {size}; got bin {key}")
        out[i] = _whole(value, f"each {what} count", (*at, key))
    return out


#: The largest count a results file may hold (tallies are 64-bit integers).
MAX_COUNT = 2**62
#: The largest size of a tally axis read from a file (bins, rounds, names).
_MAX_AXIS = 100_000


def _whole(value: Any, what: str, at: JsonPath, top: int = MAX_COUNT) -> int:
    """``value`` when it is a whole number from 0 to ``top``, else an EntryError at ``at``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise EntryError(at, f"expected {what} as a whole number from 0 to {top:_}; "
                             f"got {value!r}")  # fmt: skip
    return value


def _wholes(values: Any, size: int, what: str, at: JsonPath) -> list[int]:
    if not isinstance(values, list) or len(values) != size:
        raise EntryError(at, f"expected {size} {what} counts; got {values!r:.60}")
    return [_whole(v, f"each {what} count", (*at, j)) for j, v in enumerate(values)]


def _total(counts: np.ndarray) -> int:
    """The sum of counts read from a file, as a Python int: no 64-bit wrap-around can
    make a corrupted total come out right."""
    return sum(int(count) for count in counts.ravel())


def _pair_name(layout: Layout, p: int) -> str:
    """``Kaito's quick-jab on Brute``: the attack pair in tally slot ``p``."""
    a, k, d = layout.unpair(int(p))
    names = [name for _, name in layout.combatants]
    return f"{names[a]}'s {layout.attacks[k]} on {names[d]}"


def _check_batches(t: TallyArrays, p: int, at: JsonPath, pair: str) -> None:
    """Refuse a batch of pair ``p`` with more hits or crits than attempts (a corrupted or
    hand-edited file), naming the batch and its own counts."""
    for b in np.flatnonzero((t.hits[p] > t.attempts[p]) | (t.crits[p] > t.attempts[p])):
        key = "hits" if t.hits[p, b] > t.attempts[p, b] else "crits"
        raise EntryError((*at, "batches", key, int(b)),
                         f"expected the hits and crits of batch {b} of {pair} at most its "
                         f"{t.attempts[p, b]} attempts; got {t.hits[p, b]} hits and "
                         f"{t.crits[p, b]} crits")  # fmt: skip


def _check_damage(t: TallyArrays, p: int, at: JsonPath, pair: str) -> None:
    """Refuse pair ``p`` when its damage counts do not count its attempts, one each, or
    its damage total (the batch sums) is not what they add up to: their sum exactly, or
    more when the last bin holds damage of at least its value."""
    attempts, counts = _total(t.attempts[p]), _total(t.damage_hist[p])
    if counts != attempts:
        raise EntryError((*at, "damage_counts"),
                         f"expected the damage counts of {pair} to add up to its {attempts} "
                         f"attempts; got {counts}")  # fmt: skip
    total = _total(t.damage_sum[p])
    counted = sum(d * int(count) for d, count in enumerate(t.damage_hist[p]))
    if total < counted or (total > counted and not t.damage_hist[p, -1]):
        raise EntryError((*at, "batches", "damage"),
                         f"expected the damage total of {pair} to be the sum of its damage "
                         f"counts, {counted}; got {total}")  # fmt: skip


def _zero_or_one(value: Any) -> bool:
    """Whether ``value`` is the whole number 0 or 1 (not ``False`` or ``True``)."""
    return value in (0, 1) and not isinstance(value, bool)


def _first_rounds(doc: dict[str, Any], combatants: int) -> list[int]:
    """A layout's ``first_rounds``, one 0 or 1 per combatant. A file written before they
    were per combatant has one ``first_round`` for everyone (0 with a surprise round),
    read as that round for each; one written before that, round 1 for each."""
    first = doc.get("first_round", 1)
    if not _zero_or_one(first):
        raise EntryError(("layout", "first_round"),
                         f"expected layout first_round 0 or 1; got {first!r:.60}")  # fmt: skip
    if "first_rounds" not in doc:
        return [first] * combatants
    rounds = doc["first_rounds"]
    if not (isinstance(rounds, list) and len(rounds) == combatants
            and all(_zero_or_one(r) for r in rounds)):  # fmt: skip
        raise EntryError(("layout", "first_rounds"),
                         f"expected layout first_rounds, 0 or 1 for each of the {combatants} "
                         f"combatants; got {rounds!r:.60}")  # fmt: skip
    return list(rounds)


def _layout(doc: dict[str, Any]) -> Layout:
    known = {f.name for f in dataclasses.fields(Layout)}
    kwargs = {k: v for k, v in doc.items() if k in known}
    for key in ("max_rounds", "damage_bins", "batches", "attack_bins", "attacks_per_round"):
        at = ("layout", key)
        if key in kwargs and _whole(kwargs[key], f"layout {key}", at, _MAX_AXIS) < 1:
            raise EntryError(at, f"expected layout {key} of at least 1; got {kwargs[key]}")
    for key in ("sides", "combatants", "attacks", "events"):
        if len(kwargs.get(key, [])) > _MAX_AXIS:
            raise EntryError(("layout", key), f"expected at most {_MAX_AXIS} layout {key}; "
                                              "got more")  # fmt: skip
    kwargs["first_rounds"] = _first_rounds(doc, len(kwargs.get("combatants", [])))
    for key in ("statuses", "crits", "momentum"):
        if not isinstance(kwargs.get(key, False), bool):
            raise EntryError(("layout", key), f"expected layout {key} as true or false; "
                                              f"got {kwargs[key]!r:.60}")  # fmt: skip
    for key in ("sides", "attacks", "events"):
        _distinct_texts(kwargs.get(key, []), f"layout {key}", ("layout", key))
    kwargs["combatants"] = _layout_combatants(kwargs.get("combatants", []), kwargs["sides"])
    sides = [kwargs["sides"].index(side) for side, _ in kwargs["combatants"]]
    if kwargs.setdefault("side_of", sides) != sides:
        raise EntryError(("layout", "side_of"),
                         f"expected layout side_of {sides}, the sides of the layout's "
                         f"combatants; got {kwargs['side_of']!r:.60}")  # fmt: skip
    return Layout(**kwargs)


def _distinct_texts(values: Any, what: str, at: JsonPath) -> list[str]:
    """``values`` when it is a list of distinct texts (names), else an EntryError."""
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise EntryError(at, f"expected {what} as a list of names; got {values!r:.60}")
    twice = [v for v in dict.fromkeys(values) if values.count(v) > 1]
    if twice:
        raise EntryError(at, f"expected each of {what} once; got {twice[0]!r} more than once")
    return values


def _layout_combatants(entries: Any, sides: list[str]) -> list[tuple[str, str]]:
    """The layout's (side, name) pairs: each a side of the layout and a name of its own."""
    at = ("layout", "combatants")
    if not isinstance(entries, list) or not all(
        isinstance(e, list) and len(e) == 2 and e[0] in sides for e in entries
    ):
        raise EntryError(at, f"expected layout combatants as [side, name] pairs, each side "
                             f"one of {sides}; got {entries!r:.60}")  # fmt: skip
    _distinct_texts([name for _, name in entries], "the layout's combatant names", at)
    return [(side, name) for side, name in entries]


def _pair_index(pair: Any, layout: Layout, at: JsonPath) -> int:
    """The tally slot of an attack entry's ``pair``: the [attacker, attack, defender]
    positions of the layout's combatants and attacks."""
    c, k = len(layout.combatants), len(layout.attacks)
    whole = isinstance(pair, list) and len(pair) == 3 and all(
        isinstance(i, int) and not isinstance(i, bool) for i in pair)  # fmt: skip
    if not (whole and 0 <= pair[0] < c and 0 <= pair[1] < k and 0 <= pair[2] < c):
        raise EntryError(at, f"expected an attack pair [attacker, attack, defender] of the "
                             f"{c} combatants and {k} attacks; got {pair!r:.60}")  # fmt: skip
    return layout.pair(*pair)


def _tallies(doc: dict[str, Any], layout: Layout, n: int) -> TallyArrays:
    """The tallies of a scenario entry, refused where no run of ``n`` encounters could
    have counted them (a corrupted or hand-edited file)."""
    t = new_tallies(layout)
    made: dict[int, int] = {}
    for i, entry in enumerate(doc["attacks"]):
        p = _attack_tallies(entry, ("attacks", i), layout, t)
        if p in made:
            raise EntryError(("attacks", i, "pair"),
                             f"expected each attack pair once; got {entry['pair']} again "
                             f"(attacks[{made[p]}])")  # fmt: skip
        made[p] = i
    if len(doc["combatants"]) != len(layout.combatants):
        raise EntryError(("combatants",),
                         f"expected {len(layout.combatants)} combatant entries, one per "
                         f"combatant of the layout; got {len(doc['combatants'])}")  # fmt: skip
    for c, entry in enumerate(doc["combatants"]):
        _combatant_tallies(entry, c, layout, t, n)
    wins: list[tuple[JsonPath, Any]] = [
        (("sides", s, "wins"), side["wins"]) for s, side in enumerate(doc["sides"])
    ]
    if len(wins) != len(layout.sides):
        raise EntryError(("sides",), f"expected {len(layout.sides)} side entries, one per "
                                     f"side of the layout; got {len(wins)}")  # fmt: skip
    wins.append((("draws", "count"), doc["draws"]["count"]))
    t.winner[:] = [_whole(count, "each win count", at) for at, count in wins]
    if _total(t.winner) != n:
        raise EntryError(("sides",), f"expected wins and draws to add up to "
                                     f"{counted(n, 'encounter')}; "
                                     f"got {_total(t.winner)}")  # fmt: skip
    t.rounds[:] = _uncounts(doc["rounds_counts"], layout.max_rounds + 1, "round",
                            ("rounds_counts",))  # fmt: skip
    if _total(t.rounds) != n:
        raise EntryError(("rounds_counts",), f"expected rounds counts adding up to "
                                             f"{counted(n, 'encounter')}; "
                                             f"got {_total(t.rounds)}")  # fmt: skip
    for name, sparse in doc.get("other_tallies", {}).items():
        if name in t._fields:
            _other_tally(getattr(t, name), sparse, name, ("other_tallies", name))
    return t


def _attack_tallies(entry: dict[str, Any], at: JsonPath, layout: Layout, t: TallyArrays) -> int:
    """Read an attack entry's batches and damage counts into its pair's tallies; the
    pair's slot."""
    p = _pair_index(entry["pair"], layout, (*at, "pair"))
    batches, size = entry["batches"], layout.batches
    read = (("attempts", "attempt", t.attempts), ("hits", "hit", t.hits),
            ("crits", "crit", t.crits), ("damage", "damage", t.damage_sum))  # fmt: skip
    for key, what, array in read:
        array[p] = _wholes(batches[key], size, what, (*at, "batches", key))
    t.damage_hist[p] = _uncounts(entry["damage_counts"], layout.damage_bins, "damage",
                                 (*at, "damage_counts"))  # fmt: skip
    pair = _pair_name(layout, p)
    if not t.attempts[p].any():
        raise EntryError((*at, "batches", "attempts"),
                         f"expected attempts of {pair} in some batch (an entry is written "
                         "for each attack made); got none")  # fmt: skip
    _check_batches(t, p, at, pair)
    _check_damage(t, p, at, pair)
    return p


def _combatant_tallies(entry: dict[str, Any], c: int, layout: Layout, t: TallyArrays,
                       n: int) -> None:  # fmt: skip
    """Read combatant ``c``'s entry into its tallies: it goes down or is left standing
    at most once an encounter, and so does each of its rule events."""
    at, r1 = ("combatants", c), layout.max_rounds + 1
    name = layout.combatants[c][1]
    t.down_round[c] = _uncounts(entry["down_round_counts"], r1, "round",
                                (*at, "down_round_counts"))  # fmt: skip
    t.censor_round[c] = _uncounts(entry["censor_round_counts"], r1, "round",
                                  (*at, "censor_round_counts"))  # fmt: skip
    t.down_attacks[c] = _uncounts(entry["attacks_to_down_counts"], layout.attack_bins,
                                  "attack count", (*at, "attacks_to_down_counts"))  # fmt: skip
    downs, standing = _total(t.down_round[c]), _total(t.censor_round[c])
    if downs + standing > n:
        raise EntryError((*at, "censor_round_counts"),
                         f"expected {name} downed or left standing in at most "
                         f"{counted(n, 'encounter')}; got {downs} and {standing}")  # fmt: skip
    for e, event in enumerate(layout.events):
        where = (*at, "events", event, "round_counts")
        t.event_round[c, e] = _uncounts(entry["events"][event]["round_counts"], r1, "round",
                                        where)  # fmt: skip
        if _total(t.event_round[c, e]) > n:
            raise EntryError(where, f"expected {name}'s {event} in at most "
                                    f"{counted(n, 'encounter')}; "
                                    f"got {_total(t.event_round[c, e])}")  # fmt: skip


def _other_tally(array: np.ndarray, sparse: dict[str, Any], name: str, at: JsonPath) -> None:
    """Fill ``array`` from its sparse (flat index, value) entry."""
    if list(array.shape) != sparse["shape"]:
        raise EntryError((*at, "shape"), f"expected tally {name!r} of shape "
                                         f"{list(array.shape)}; got {sparse['shape']}")  # fmt: skip
    size = len(sparse["index"])
    index = _wholes(sparse["index"], size, f"{name} index", (*at, "index"))
    array.ravel()[index] = _wholes(sparse["values"], size, name, (*at, "values"))


def scenario_run(doc: dict[str, Any]) -> ScenarioRun:
    """Rebuild a :class:`ScenarioRun` from its ``results.json`` entry.

    Raises
    ------
    InputError
        When the entry is not what simlab writes: its counts impossible, a total or
        figure stored beside them other than theirs
        (:func:`simlab.report.derived.check_figures`), or what is read beside them of
        another shape (:func:`simlab.report.saved.check_about`); an
        :class:`~simlab.report.derived.EntryError` names the place in the entry.
    """
    layout = _layout(doc["layout"])
    check_about(doc, layout)
    n = _whole(doc["encounters"], "encounters", ("encounters",), MAX_ENCOUNTERS)
    tallies = _tallies(doc, layout, n)
    result = Result(scenario=doc["scenario"], rules=doc["rules"], encounters=n,
                    seed=_whole(doc["seed"], "the seed", ("seed",), MAX_SEED), layout=layout,
                    tallies=tallies, meta={"scenario_hash": doc.get("scenario_hash")})  # fmt: skip
    if doc.get("precision") is not None:
        _check_precision(doc["precision"], n)
        result.meta["precision"] = doc["precision"]
    if doc.get("overrides"):
        result.meta["overrides"] = list(doc["overrides"])
    if doc.get("idle_overrides"):
        result.meta["idle_overrides"] = list(doc["idle_overrides"])
    if doc.get("copies") is not None:
        result.meta["copies"] = {entry: list(names) for entry, names in doc["copies"].items()}
    if doc.get("cannot_crit"):
        result.meta["cannot_crit"] = dict(doc["cannot_crit"])
    run = ScenarioRun(result=result, source=doc.get("source"), exact=doc.get("exact"),
                      expect=list(doc.get("expect", [])),
                      drift_tolerance=dict(doc.get("drift_tolerance", {})),
                      simlab_version=str(doc.get("simlab_version", "unknown")))  # fmt: skip
    check_figures(doc, scenario_document(run), layout)
    return run


def _check_precision(record: dict[str, Any], n: int) -> None:
    """Refuse a precision record that disagrees with the run: the encounters it stopped
    at are the run's (the report says them), within its cap."""
    if record["encounters"] != n:
        raise EntryError(("precision", "encounters"),
                         f"expected {n}, the encounters of the run; got "
                         f"{shown(record['encounters'])}")  # fmt: skip
    if record["cap"] < n:
        raise EntryError(("precision", "cap"),
                         f"expected a cap of at least the {counted(n, 'encounter')} of the "
                         f"run; got {record['cap']}")  # fmt: skip


def results_path(path: str | os.PathLike[str]) -> Path:
    """``path`` itself, or ``path/results.json`` when it is a folder."""
    p = Path(path)
    return p / RESULTS_NAME if p.is_dir() else p


def _read_document(p: Path) -> tuple[dict[str, Any], str]:
    """The JSON document of the results file ``p`` and its text: a regular file of at
    most :data:`~simlab.limits.MAX_RESULTS_BYTES`, in simlab's results format."""

    def refuse(got: str) -> InputError:
        return InputError(f"{p}: expected a results.json file; got {got}")

    try:
        text = read_bounded(os.fspath(p), MAX_RESULTS_BYTES, refuse).decode("utf-8")
        doc = json.loads(text)
    except ValueError as err:  # not UTF-8, or not JSON: a page, a table, a scenario…
        output = simlab_output(p)
        if output is not None:
            raise InputError(f"{p}: {output.refusal(A_RESULTS_FILE)}") from None
        raise refuse(f"{_not_json(err)}; simlab report --out and baseline update write "
                     "one") from None  # fmt: skip
    if not isinstance(doc, dict):
        raise InputError(f"{p}: expected a JSON object; got {_json_kind(doc)}")
    output = simlab_output(p, doc)
    if output is not None and output.kind != "results":  # a summary, a sweep's, a verdict…
        raise InputError(f"{p}: {output.refusal(A_RESULTS_FILE)}")
    if doc.get("format") != FORMAT:
        raise InputError(f"{p}: expected results format {FORMAT}; got {_format_said(doc, p)}")
    if "scenarios" in doc and not isinstance(doc["scenarios"], list):
        raise InputError(f"{p}: expected a list of scenarios; got "
                         f"{_json_kind(doc['scenarios'])}")  # fmt: skip
    return doc, text


def _not_json(err: ValueError) -> str:
    """What a file that is not a JSON document is: empty, JSON cut short, text that is
    not JSON (where the parser stopped), or not text."""
    if not isinstance(err, json.JSONDecodeError):
        return f"a file that is not text ({err})"
    if not err.doc.strip():
        return "an empty file"
    cut = cut_short_at(err.doc)
    if cut is not None:
        return f"JSON cut short at line {cut} (the file ends before its document does)"
    return (f"a file that is not JSON (line {err.lineno}, column {err.colno}: "
            f"{err.msg.lower()})")  # fmt: skip


def _format_said(doc: dict[str, Any], p: Path) -> str:
    """What a results document of another format is, and what to do: ``format 0
    (written by simlab 0.0.9), which this simlab does not read; write it again (simlab
    baseline update --baseline FILE re-runs the scenarios it records)``, or, where it
    does not record each scenario's file, sample size and seed, ``… from the scenarios
    (simlab baseline update SCENARIO|DIR... --baseline FILE, …)``. A format newer than
    this version's is to be read by a newer simlab, not written again by this one (the
    gate's message would have a CI job downgrade the baseline): ``format 2 (written by
    simlab 0.3.0), newer than this simlab 0.1.0 reads; run it with simlab 0.3.0 or
    later``."""
    if "format" not in doc:
        return "no 'format' entry"
    if not _is_format_number(doc["format"]):  # an edit: simlab writes none such
        return f"format {doc['format']!r}, which is no format number simlab writes"
    if doc["format"] > FORMAT:  # written again here, the team's baseline would go back
        version = doc.get("simlab_version")
        newer = f"simlab {version}" if isinstance(version, str) else "the simlab that wrote it"
        return (f"format {doc['format']}{_written_by(doc)}, newer than this simlab "
                f"{__version__} reads; run it with {newer} or later")  # fmt: skip
    said = f"format {doc['format']!r}{_written_by(doc)}, which this simlab does not read"
    entries = doc.get("scenarios")
    if isinstance(entries, list) and entries and all(map(_recorded_entry, entries)):
        return (f"{said}; write it again (simlab baseline update --baseline {p} re-runs the "
                "scenarios it records)")  # fmt: skip
    return (f"{said}; write it again from the scenarios (simlab baseline update "
            f"SCENARIO|DIR... --baseline {p}, or simlab report SCENARIO|DIR... "
            "--out DIR)")  # fmt: skip


def _written_by(doc: dict[str, Any]) -> str:
    """`` (written by simlab 0.0.9)`` for a results document that records its version;
    "" for one that does not."""
    version = doc.get("simlab_version")
    return f" (written by simlab {version})" if isinstance(version, str) else ""


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


#: What reading a document of another shape than the format's raises (an entry missing,
#: a list where a mapping belongs, a key that is no number).
_MALFORMED = (KeyError, TypeError, ValueError, IndexError, OverflowError, AttributeError)


def _refuse_repeats(runs: list[ScenarioRun], p: Path) -> None:
    """Refuse a file with one scenario twice (rules id and scenario id): the drift gate
    and ``baseline update`` would use one of the two and silently drop the other."""
    seen: set[tuple[str, str]] = set()
    for run in runs:
        if (run.rules, run.scenario) in seen:
            raise InputError(f"{p}: expected each scenario once; got {run.scenario!r} "
                             f"(rules {run.rules}) twice")  # fmt: skip
        seen.add((run.rules, run.scenario))


def _scenario_runs(doc: dict[str, Any], text: str, p: Path) -> list[ScenarioRun]:
    """The scenario runs of a results document; a refusal located in a scenario's entry
    says where in the file (``results.json:78: scenarios[0].attacks[0].hits
    (quickstart): expected …; got …``)."""
    runs = []
    for i, entry in enumerate(doc["scenarios"]):
        named = isinstance(entry, dict) and isinstance(entry.get("scenario"), str)
        label = f" ({entry['scenario']})" if named else ""
        try:
            runs.append(scenario_run(entry))
        except EntryError as err:
            raise InputError(_located(p, text, ("scenarios", i, *err.path), label,
                                      err.message)) from None  # fmt: skip
        except InputError as err:
            raise InputError(_located(p, text, ("scenarios", i), label, str(err))) from None
        except _MALFORMED as err:  # an entry missing, or of another kind: its scenario's line
            raise InputError(_located(p, text, ("scenarios", i), label,
                                      f"expected a complete results.json; got "
                                      f"{_what_is_wrong(err)}")) from None  # fmt: skip
    if not same(doc["interval_level"], LEVEL):
        raise InputError(_located(p, text, ("interval_level",), "",
                                  f"expected {LEVEL}, the level of every interval the file "
                                  f"holds; got {shown(doc['interval_level'])}"))  # fmt: skip
    return runs


def _located(p: Path, text: str, path: JsonPath, label: str, message: str) -> str:
    """``results.json:78: scenarios[0].attacks[0].hits (quickstart): MESSAGE``."""
    return f"{p}:{line_of(text, path)}: {json_path(path)}{label}: {message}"


@checked_arguments()
def load_results(path: str | os.PathLike[str], *, name: str = "path") -> list[ScenarioRun]:
    """Read a ``results.json`` (or the one in a folder) back into scenario runs.

    Parameters
    ----------
    path : path-like
        The results file, or the folder that holds it.
    name : str
        How messages name ``path`` (the command line's ``--baseline``).

    Returns
    -------
    list of ScenarioRun
        One a scenario, as :func:`simlab.run_scenarios` gives them (no simulation
        kept: the tables it saved, and its specs).

    Raises
    ------
    InputError
        When the file is missing, is not a regular file of at most
        :data:`~simlab.limits.MAX_RESULTS_BYTES` (``/dev/zero``, a FIFO: refused unread),
        is not JSON, or is not a format this version reads; when its counts are
        impossible (corrupted) or a total or figure stored beside them is not theirs (a
        hand edit; the message names its line and place in the file); when the
        folder's files come from different runs
        (:func:`simlab.report.files.check_unit`); when ``path`` is not a path.
    """
    given = results_path_argument(path, name)
    p = results_path(given)
    output = simlab_output(given) if p != given and not os.path.lexists(p) else None
    if output is not None:  # the folder of a run, a sweep, a comparison…
        raise InputError(f"{given}: {output.refusal(A_RESULTS_FILE)}")
    with reading_unit(p.parent):
        doc, text = _read_document(p)  # first: a huge file or a FIFO is refused before anything
        if p.name == RESULTS_NAME and os.path.lexists(p.parent / MANIFEST):
            check_unit(p.parent)  # an output folder: all its files of one run
    try:
        runs = _scenario_runs(doc, text, p)
    except _MALFORMED as err:
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


# -- a baseline's recipe -------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """How a baseline's scenario was run, for ``baseline update`` to run it again.

    Attributes
    ----------
    scenario : str
        The scenario id.
    source : str or None
        Its file, as it was named where the baseline was made.
    encounters, seed : int
        Its sample size and seed.
    overrides : tuple of str
        The ``--set`` overrides it ran with.
    """

    scenario: str
    source: str | None
    encounters: int
    seed: int
    overrides: tuple[str, ...] = ()


def recorded_runs(path: str | os.PathLike[str]) -> list[Recorded]:
    """How each scenario of the baseline at ``path`` was run: read and checked whole
    (:func:`load_results`) in this format; in another (an older simlab's baseline,
    which this version cannot compare with), read for those fields alone, which every
    format of simlab's has recorded.

    Raises
    ------
    InputError
        As :func:`load_results` for a file of this format; for one of another, when an
        entry lacks its scenario, file, sample size or seed, naming the command that
        writes the baseline again from its scenario files.
    """
    p = results_path(path)
    try:
        runs = load_results(p)
    except InputError:
        doc = _other_format(p)
        if doc is None:
            raise
        return _recorded_of_other_format(doc, p)
    return [Recorded(r.scenario, r.source, r.result.encounters, r.result.seed,
                     tuple(r.result.meta.get("overrides", ()))) for r in runs]  # fmt: skip


def _other_format(p: Path) -> dict[str, Any] | None:
    """The document at ``p`` when it is simlab's results of another format than this
    version's (what :func:`prepare_results_file` lets a new baseline replace), else
    None."""
    try:
        doc = json.loads(read_bounded(os.fspath(p), MAX_RESULTS_BYTES, OSError).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if (isinstance(doc, dict) and _is_format_number(doc.get("format"))
            and doc["format"] != FORMAT and isinstance(doc.get("scenarios"), list)):  # fmt: skip
        return doc
    return None


def _recorded_entry(entry: Any) -> Recorded | None:
    """One scenario entry of another format as a :class:`Recorded`; None when it lacks
    (or garbles) its id, file, sample size or seed."""
    if not isinstance(entry, dict):
        return None
    scenario, source = entry.get("scenario"), entry.get("source")
    n, seed, overrides = entry.get("encounters"), entry.get("seed"), entry.get("overrides", [])
    texts = isinstance(overrides, list) and all(isinstance(o, str) for o in overrides)
    if not (texts and isinstance(scenario, str) and isinstance(source, str) and source):
        return None
    if not (isinstance(n, int) and isinstance(seed, int) and n > 0 and seed >= 0):
        return None
    if isinstance(n, bool) or isinstance(seed, bool):
        return None
    return Recorded(scenario, source, n, seed, tuple(overrides))


def _recorded_of_other_format(doc: dict[str, Any], p: Path) -> list[Recorded]:
    """The scenarios of a baseline of another format, as they were run; an InputError
    naming the command that writes it again from its files where one cannot be read."""
    recorded = [_recorded_entry(e) for e in doc["scenarios"]]
    if all(r is not None for r in recorded) and recorded:
        return [r for r in recorded if r is not None]
    by = _written_by(doc)
    entries = [e for e in doc["scenarios"] if isinstance(e, dict)]
    files = [e["source"] for e in entries if isinstance(e.get("source"), str) and e["source"]]
    sizes = {e.get("encounters") for e in entries}
    size = sizes.pop() if len(sizes) == 1 else None
    n = f" -n {size}" if _is_format_number(size) else ""
    named = " ".join(files) if len(files) == len(doc["scenarios"]) and files else "SCENARIO|DIR..."
    raise InputError(f"{p}: expected, in a baseline of format {doc['format']}{by}, each "
                     "scenario's file, sample size and seed, to run it again; got "
                     f"{'no scenarios' if not recorded else 'an entry without them'}; write "
                     f"it again from the scenario files: simlab baseline update {named}{n} "
                     f"--baseline {p}")  # fmt: skip
