"""The Python API: load a scenario, simulate it, write its results.

The CLI is a thin shell over these functions; notebooks call them directly.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from simlab.analysis.result import Result
from simlab.analysis.summary import summary
from simlab.engine import runner
from simlab.errors import ExactUnsupported, InputError
from simlab.report.files import write_json, write_parquet
from simlab.rules import rule_module
from simlab.scenario.common import ScenarioBase
from simlab.scenario.load import load, loads

if TYPE_CHECKING:
    from simlab.exact.engine import ExactResult
    from simlab.report.results import ScenarioRun

__all__ = [
    "compile_job",
    "exact",  # noqa: F822  (lazy: see __getattr__)
    "load",
    "load_results",  # noqa: F822  (lazy: see __getattr__)
    "loads",
    "run_scenario",
    "run_scenarios",
    "save_results",  # noqa: F822  (lazy: see __getattr__)
    "scenario_paths",
    "simulate",
    "write_exact",
    "write_report",
    "write_results",
]


# Imported when first asked for (PEP 562): `simlab run` uses neither the exact engine nor
# saved results, and a command imports nothing it does not use (start-up time).
_LAZY = {"exact": "simlab.exact.engine", "load_results": "simlab.report.results",
         "save_results": "simlab.report.results"}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'simlab.api' has no attribute {name!r}")


def compile_job(
    scenario: ScenarioBase, n: int | None = None, seed: int | None = None
) -> runner.Job:
    """Compile ``scenario`` for the engine with a sample size and seed.

    Parameters
    ----------
    scenario : ScenarioBase
        A loaded scenario.
    n, seed : int, optional
        Override the scenario's ``encounters`` and ``seed``.
    """
    n = scenario.encounters if n is None else n
    seed = scenario.seed if seed is None else seed
    if n < 1:
        raise InputError(f"expected at least 1 encounter; got {n}")
    params, layout = rule_module(scenario.rules, "compile").compile_scenario(scenario)
    return runner.Job(rules=scenario.rules, params=params, layout=layout, seed=seed, n=n)


def simulate(
    scenario: ScenarioBase | str | os.PathLike[str],
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    block_size: int | None = None,
    trace: bool = False,
    progress: runner.Progress | None = None,
    client: Any = None,
    check: bool = False,
) -> Result:
    """Simulate ``n`` encounters of a scenario.

    Parameters
    ----------
    scenario : ScenarioBase or path
        A loaded scenario, or the path of one.
    n : int, optional
        Number of encounters (default: the scenario's ``encounters``).
    seed : int, optional
        Seed (default: the scenario's ``seed``). The same seed gives the same result bit
        for bit, whatever ``threads`` and ``block_size``.
    threads : int, optional
        numba threads (default: all cores).
    block_size : int, optional
        Encounters per block: memory and progress granularity only (default: 2**20 on
        local threads; on a Dask cluster, four blocks per worker, at most 2**20 each).
    trace : bool
        Also return one row per attack with the raw dice (``Result.trace``); for small
        runs (at most 10,000 encounters), played on one thread.
    progress : callable, optional
        Called with the number of encounters finished after each block.
    client : distributed.Client, optional
        Run the blocks as tasks on this Dask cluster instead of local threads; the
        result is identical.
    check : bool
        Also compare the result with the exact answers wherever one exists
        (``Result.check``: figure, simulated, exact, standard error, z, p-value; see
        :func:`simlab.exact.engine.check_simulation`).

    Returns
    -------
    Result
    """
    if not isinstance(scenario, ScenarioBase):
        scenario = load(scenario)
    job = compile_job(scenario, n, seed)
    trace_rows = None
    if trace:
        tallies, rows = runner.run_trace(job)
        columns = runner.kernels(job.rules).TRACE_COLUMNS
        trace_rows = _name_trace(pd.DataFrame(rows, columns=list(columns)), job)
    elif client is not None:
        from simlab.engine.distributed import run_dask

        tallies = run_dask(job, client, block_size, progress)
    else:
        tallies = runner.run_local(job, threads, block_size or runner.DEFAULT_BLOCK, progress)
    result = Result(
        scenario=scenario.scenario,
        rules=scenario.rules,
        encounters=job.n,
        seed=job.seed,
        layout=job.layout,
        tallies=tallies,
        trace=trace_rows,
    )
    if check:
        from simlab.exact.engine import check_result

        result.check = check_result(scenario, result)
    return result


def _name_trace(frame: pd.DataFrame, job: runner.Job) -> pd.DataFrame:
    names = [name for _, name in job.layout.combatants]
    for column in ("attacker", "defender"):
        frame[column] = [names[i] for i in frame[column]]
    # A negative attack index marks a row that is not an attack (a status tick, a save).
    frame["attack"] = [job.layout.attacks[i] if i >= 0 else "" for i in frame["attack"]]
    return frame


def write_results(result: Result, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``summary.json`` and one Parquet file per table into ``out_dir``, atomically.

    The tables are ``attacks``, ``damage_pmf``, ``combatants``, ``time_to_down`` and
    ``sides``; ``events`` for a rule system with events and ``status_damage`` for one
    whose statuses deal damage.

    Returns
    -------
    dict of str to Path
        What was written, by table name.
    """
    out = Path(out_dir)
    tables: dict[str, Any] = {
        "attacks": result.hit_rates().merge(result.damage()),
        "damage_pmf": result.damage_pmf(),
        "combatants": result.combatants(),
        "time_to_down": result.time_to_down(),
        "sides": result.win_rates(),
    }
    if result.layout.events:
        tables["events"] = result.events()
    if result.layout.statuses:
        tables["status_damage"] = result.status_damage()
    written = {name: write_parquet(out / f"{name}.parquet", t) for name, t in tables.items()}
    written["summary"] = write_json(out / "summary.json", summary(result))
    return written


def write_exact(result: ExactResult, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write an exact answer's ``summary.json`` and Parquet tables to ``out_dir``, atomically.

    The tables are ``attacks``, ``damage_pmf`` and ``time_to_down`` (empty when the
    scenario is not a duel); the summary has ``simlab run``'s shape without intervals.

    Returns
    -------
    dict of str to Path
        What was written, by table name.
    """
    out = Path(out_dir)
    tables = {
        "attacks": result.attacks(),
        "damage_pmf": result.damage_pmf(),
        "time_to_down": result.time_to_down(),
    }
    written = {name: write_parquet(out / f"{name}.parquet", t) for name, t in tables.items()}
    written["summary"] = write_json(out / "summary.json", result.summary())
    return written


# -- balance reports -------------------------------------------------------------------------


def scenario_paths(items: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """Scenario files named on a command line: files as given, folders searched recursively
    for ``*.yaml`` / ``*.yml`` (sorted).

    Raises
    ------
    InputError
        When an item does not exist or a folder holds no scenario.
    """
    out: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            found = sorted(f for f in path.rglob("*") if f.suffix in (".yaml", ".yml"))
            if not found:
                raise InputError(f"{path}: expected a folder with scenario files; got none")
            out += found
        elif path.exists():
            out.append(path)
        else:
            raise InputError(f"{path}: expected a scenario file or folder; got no such file")
    return list(dict.fromkeys(out))


def run_scenario(
    scenario: ScenarioBase | str | os.PathLike[str],
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    progress: runner.Progress | None = None,
    source: str | None = None,
) -> ScenarioRun:
    """Simulate one scenario for a report, with its exact answers, specs and tolerances.

    Parameters
    ----------
    scenario : ScenarioBase or path
        A loaded scenario, or the path of one.
    n, seed, threads, progress
        As for :func:`simulate`.
    source : str, optional
        The scenario file as it should be shown (default: the path given).

    Returns
    -------
    ScenarioRun
        ``exact`` holds the exact engine's summary document; when the rule system has
        no exact engine, no pairs and the reason as the only refusal.
    """
    if not isinstance(scenario, ScenarioBase):
        source = source or os.fspath(scenario)
        scenario = load(scenario)
    from simlab.exact.engine import exact
    from simlab.report.results import ScenarioRun

    result = simulate(scenario, n, seed, threads=threads, progress=progress)
    try:
        answers: dict[str, Any] = exact(scenario).summary()
    except ExactUnsupported as err:
        answers = {"attacks": [], "combatants": [],
                   "refusals": [{"figure": "scenario", "reason": str(err)}]}  # fmt: skip
    return ScenarioRun(
        result=result,
        source=source,
        exact={k: answers.get(k) for k in ("attacks", "combatants", "refusals")},
        expect=[e.model_dump(exclude_defaults=True) for e in scenario.expect],
        drift_tolerance=scenario.drift_tolerance.model_dump(),
    )


def run_scenarios(
    items: Sequence[str | os.PathLike[str]],
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    progress: Any = None,
) -> list[ScenarioRun]:
    """Load every scenario named (files or folders) first, then simulate each.

    ``progress``, when given, is a context manager factory ``progress(total, what)``
    yielding the per-block callback (as :func:`simlab.report.terminal.progress`).

    Raises
    ------
    InputError
        On any invalid scenario (before anything is simulated), or when two files
        share a scenario id under the same rules.
    """
    paths = scenario_paths(items)
    loaded = [(path, load(path)) for path in paths]
    ids: dict[tuple[str, str], Path] = {}
    for path, scn in loaded:
        key = (scn.rules, scn.scenario)
        if key in ids:
            raise InputError(f"{path}: expected a scenario id not used by {ids[key]} under "
                             f"the same rules; got {scn.scenario!r} again")  # fmt: skip
        ids[key] = path
    runs = []
    for path, scn in loaded:
        total = scn.encounters if n is None else n
        if progress is None:
            runs.append(run_scenario(scn, n, seed, threads=threads, source=path.as_posix()))
            continue
        with progress(total, path.as_posix()) as advance:
            runs.append(run_scenario(scn, n, seed, threads=threads, progress=advance,
                                     source=path.as_posix()))  # fmt: skip
    return runs


def write_report(
    runs: list[ScenarioRun],
    out_dir: str | os.PathLike[str],
    *,
    baseline: str | os.PathLike[str] | None = None,
    alpha: float = 0.01,
    strict: bool = False,
    title: str = "simlab balance report",
) -> tuple[dict[str, Path], pd.DataFrame, Any]:
    """Render the balance report of ``runs`` into ``out_dir`` (HTML, Markdown, PNGs, JSON).

    Parameters
    ----------
    runs : list of ScenarioRun
        From :func:`run_scenarios` or :func:`load_results`.
    out_dir : path-like
        Where ``report.html``, ``report.md``, ``png/`` and ``results.json`` go.
    baseline : path-like, optional
        A saved ``results.json`` (or its folder) to compare with.
    alpha : float
        Drift threshold on Holm-adjusted p-values.
    strict : bool
        Count borderline spec passes as failures.

    Returns
    -------
    written, specs, drift
        The files written, the spec verdicts (:func:`simlab.analysis.specs.evaluate_all`)
        and the :class:`~simlab.analysis.drift.DriftReport` (None without a baseline).
    """
    from simlab.analysis.drift import compare
    from simlab.analysis.specs import evaluate_all
    from simlab.report.render import render_report
    from simlab.report.results import load_results

    specs = evaluate_all(runs, strict=strict)
    drift = None
    shown = None
    if baseline is not None:
        drift = compare(runs, load_results(baseline), alpha)
        shown = os.fspath(baseline)
    written = render_report(runs, out_dir, specs=specs, drift=drift, baseline=shown, title=title)
    return written, specs, drift
