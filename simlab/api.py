"""The Python API: load a scenario, simulate it, write its results.

The CLI is a thin shell over these functions; notebooks call them directly.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from simlab.analysis.result import Result
from simlab.analysis.summary import summary
from simlab.arguments import (
    describe,
    flag_argument,
    function_argument,
    instance_argument,
    is_path,
    names_an_entry,
    path_argument,
    precision_on_argument,
    threads_or_client,
)
from simlab.binding import checked_arguments
from simlab.engine import runner
from simlab.errors import ExactUnsupported, InputError, ScenarioError
from simlab.limits import MAX_ENCOUNTERS, encounters_and_seed, seed_value, whole_number_in
from simlab.report.files import output_unit, run_identity, scenario_hash, write_json, write_parquet
from simlab.report.words import counted
from simlab.rules import rule_module
from simlab.scenario.common import ScenarioBase
from simlab.scenario.load import (
    id_clash,
    load,
    loads,
    scenario_of,
    scenario_paths,
    written_id_clash,
)
from simlab.scenario.validation import sorted_unique

load = checked_arguments()(load)  # load(file=...) names path=, as every public function here
loads = checked_arguments()(loads)

if TYPE_CHECKING:
    from simlab.exact.engine import ExactResult
    from simlab.report.results import ScenarioRun
    from simlab.tuning.tune import Range

__all__ = [
    "check",
    "compare",
    "compile_job",
    "exact",  # noqa: F822  (lazy: see __getattr__)
    "load",
    "load_results",  # noqa: F822  (lazy: see __getattr__)
    "loads",
    "override",
    "run_scenario",
    "run_scenarios",
    "save_results",  # noqa: F822  (lazy: see __getattr__)
    "scenario_paths",
    "simulate",
    "sweep",
    "tune",
    "write_compare",
    "write_exact",
    "write_report",
    "write_results",
    "write_sweep",
    "write_tune",
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
    n, seed = encounters_and_seed(scenario, n, seed)
    params, layout = rule_module(scenario.rules, "compile").compile_scenario(scenario)
    return runner.Job(rules=scenario.rules, params=params, layout=layout, seed=seed, n=n)


@checked_arguments()
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
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
) -> Result:
    """Simulate ``n`` encounters of a scenario (or until its figures are precise enough).

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
        The most encounters one kernel call plays (default: 2**20) on local threads,
        where calls are also sized to last at most 0.2 s; on a Dask cluster, the
        encounters of a task (default: four tasks per worker, at most 2**20 each).
    trace : bool
        Also return one row per attack with the raw dice (``Result.trace``); for small
        runs (at most 10,000 encounters), played on one thread.
    progress : callable, optional
        Called as the run goes with the encounters played since its last call: an
        increment, not a running total (the calls add up to the encounters simulated,
        so ``bar.update(k)``, not ``bar.n = k``); locally after each kernel call of the
        calling thread, at most 0.2 s apart once the speed is known; on a cluster after
        each task.
    client : distributed.Client, optional
        Run the blocks as tasks on this Dask cluster instead of local threads; the
        result is identical. Not with ``threads``: each worker plays on its own.
    check : bool
        Also compare the result with the exact answers wherever one exists
        (``Result.check``: figure, simulated, exact, standard error, z, p-value; see
        :func:`simlab.exact.engine.check_simulation`). Where no figure can be compared,
        a ``UserWarning`` says why (the reasons are in ``Result.check.attrs["skipped"]``).
    precision : float, optional
        Run to a precision (default: the scenario's ``precision:``): stop at the first
        fixed checkpoint where every reported rate's 95% half-width is at most this and
        every mean's at most this × max(|mean|, 1); ``n`` is then a cap. The stop does
        not depend on ``threads``, ``block_size`` or ``client``; ``Result.meta
        ["precision"]`` records it (see :mod:`simlab.tuning.precision`). Ignored with
        ``trace=True``.
    precision_on : sequence of str
        Check only these figures (``FIGURE[:ON[@ARG]]``, e.g. ``hit_rate:strike``).

    Returns
    -------
    Result
        Its ``meta["copies"]`` names the copies of each entry that makes several
        (:meth:`~simlab.scenario.common.ScenarioBase.copy_groups`), which plots pool.

    Raises
    ------
    InputError
        Naming the first argument of the wrong type or out of range, before anything runs.
    """
    function_argument(progress, "progress")
    threads_or_client(threads, client)
    trace = flag_argument(trace, "trace")
    check = flag_argument(check, "check")
    scenario = scenario_of(scenario)
    job = compile_job(scenario, n, seed)
    if block_size is not None:
        block_size = whole_number_in(block_size, "block_size", 1, MAX_ENCOUNTERS)
    precision = scenario.precision if precision is None else precision
    precision_on = precision_on_argument(precision, precision_on)
    result = simulate_job(scenario, job, None if trace else precision, precision_on,
                          threads=threads, block_size=block_size, trace=trace,
                          progress=progress, client=client)  # fmt: skip
    if check:
        result.check = exact_check(scenario, result)
        _warn_if_nothing_checked(result.check)
    return result


def exact_check(scenario: ScenarioBase, result: Result) -> pd.DataFrame:
    """``result`` of ``scenario`` compared with the exact answers wherever one exists
    (:func:`simlab.exact.engine.check_result`): the table of :func:`simulate`'s
    ``check=True``, without its warning when nothing is compared, for the command line,
    which prints why (``not checked: …``)."""
    from simlab.exact.engine import check_result

    return check_result(scenario, result)


def _warn_if_nothing_checked(check: pd.DataFrame) -> None:
    """A ``UserWarning`` when :func:`simulate`'s ``check=True`` compared no figure with an
    exact answer, saying why, as ``simlab run --check`` prints it (``not checked: …``):
    an empty table said nothing, its reasons only in ``check.attrs["skipped"]``."""
    if len(check) or check.attrs.get("certain"):
        return
    from simlab.exact.engine import check_verdict, scenario_refusal

    skipped = list(check.attrs.get("skipped", []))
    whole = [" ".join([head, *reasons]) for what, reason in skipped if what == "scenario"
             for head, reasons in [scenario_refusal(reason)]]  # fmt: skip
    pairs = len(skipped) - len(whole)
    why = whole + ([f"{counted(pairs, 'figure')} not checked, each with its reason in "
                    ".check.attrs['skipped']"] if pairs else [])  # fmt: skip
    warnings.warn(f"check: {check_verdict(check)}" + "".join(f"; {w}" for w in why),
                  UserWarning, stacklevel=4)  # fmt: skip


def simulate_job(
    scenario: ScenarioBase,
    job: runner.Job,
    precision: float | None = None,
    precision_on: Iterable[Any] = (),
    others: Sequence[ScenarioBase] = (),
    *,
    threads: int | None = None,
    block_size: int | None = None,
    trace: bool = False,
    progress: runner.Progress | None = None,
    client: Any = None,
) -> Result:
    """The :class:`Result` of playing ``job``, the compiled ``scenario``, its arguments
    checked (:func:`simulate`, whose arguments these are): every encounter, or to
    ``precision`` on ``precision_on`` (``job.n`` the cap), as one of the variants
    ``others`` run beside it where given (a sweep's points, a tune's values:
    :func:`simlab.tuning.precision.precision_rule`), listening for a first compile
    (:func:`told_of_compiles`). The one path a run starts, stops and listens by."""
    trace_rows = None
    more: dict[str, Any] = {}  # a run to a precision's record
    with told_of_compiles(progress, scenario.rules):
        if precision is not None:
            from simlab.tuning.precision import precision_rule, run_to_precision

            rule = precision_rule(precision, precision_on, job.layout, scenario, others)
            tallies, stop, more["precision"] = run_to_precision(
                job, rule, threads=threads, block_size=block_size, progress=progress,
                client=client)  # fmt: skip
            job = dataclasses.replace(job, n=stop)
        elif trace:
            tallies, rows = runner.run_trace(job)
            columns = runner.kernels(job.rules).TRACE_COLUMNS
            trace_rows = _name_trace(pd.DataFrame(rows, columns=list(columns)), job)
        elif client is not None:
            from simlab.engine.distributed import run_dask

            tallies = run_dask(job, client, block_size, progress)
        else:
            block = block_size or runner.DEFAULT_BLOCK
            tallies = runner.run_local(job, threads, block, progress)
    return simulated_result(scenario, job, tallies, more, trace_rows)


def simulated_result(scenario: ScenarioBase, job: runner.Job, tallies: Any,
                     more: dict[str, Any] | None = None,
                     trace: pd.DataFrame | None = None) -> Result:  # fmt: skip
    """The :class:`Result` :func:`simulate` gives for ``tallies`` of ``job``, the
    compiled ``scenario``: its ``meta`` the scenario's hash, copies and overrides, then
    ``more`` (a run to a precision's record)."""
    meta: dict[str, Any] = {"scenario_hash": scenario_hash(scenario),
                            "copies": scenario.copy_groups()}  # fmt: skip
    if scenario.overrides:
        meta["overrides"] = list(scenario.overrides)
    result = Result(scenario=scenario.scenario, rules=scenario.rules, encounters=job.n,
                    seed=job.seed, layout=job.layout, tallies=tallies, trace=trace,
                    meta={**meta, **(more or {})})  # fmt: skip
    result._simulated = scenario
    return result


def told_of_compiles(progress: runner.Progress | None, rules: str) -> AbstractContextManager[None]:
    """While inside, a first compile of kernels is said on the ``simlab`` logger once
    (:mod:`simlab.engine.compiling`), unless the caller shows a ``progress`` of its own
    (or an outer run, the command line's, already listens: the run names ``rules`` to
    it). A warm run says nothing."""
    from simlab.engine import compiling

    return compiling.listening(None if progress is not None else compiling.say_compiling, rules)


def _name_trace(frame: pd.DataFrame, job: runner.Job) -> pd.DataFrame:
    names = [name for _, name in job.layout.combatants]
    for column in ("attacker", "defender"):
        frame[column] = [names[i] for i in frame[column]]
    # A negative attack index marks a row that is not an attack (a status tick, a save).
    frame["attack"] = [job.layout.attacks[i] if i >= 0 else "" for i in frame["attack"]]
    return frame


@checked_arguments()
def write_results(result: Result, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``summary.json`` and one Parquet file per table into ``out_dir``, as one unit.

    The tables are ``attacks``, ``damage_pmf``, ``combatants``, ``time_to_down`` and
    ``sides``; ``events`` for a rule system with events, ``status_damage`` for one
    whose statuses deal damage and ``momentum_spent`` for a scenario that spends
    Momentum. The folder is replaced whole, every file stamped with the run identity
    (:func:`simlab.report.files.output_unit`). README, "Output files".

    Parameters
    ----------
    result : Result
        From :func:`simulate`.
    out_dir : path-like
        The folder to write (created, or replaced whole).

    Returns
    -------
    dict of str to Path
        What was written, by table name.

    Raises
    ------
    InputError
        When ``result`` is not a :class:`Result` or ``out_dir`` not a path.
    """
    instance_argument(result, Result, "simlab.simulate")
    out = _folder(out_dir)
    tables: dict[str, Any] = {
        "attacks": result.hit_rates().merge(result.damage()),
        "damage_pmf": result.damage_pmf(),
        "combatants": result.combatants(),
        "time_to_down": result.time_to_down(),
        "sides": result.win_rates(),
    }
    if result.layout.events:
        tables["events"] = result.events()
    for name in result.layout.per_encounter_tallies:
        tables[name] = result.per_encounter(name)
    return _write_tables(out, tables, summary(result), run_identity([result]))


def _folder(out_dir: object) -> Path:
    """``out_dir`` as a Path, when it is one (:func:`simlab.arguments.path_argument`)."""
    return Path(path_argument(out_dir, "a folder path", "out_dir"))


def _write_tables(out: Path, tables: dict[str, Any], document: dict[str, Any],
                  identity: dict[str, Any]) -> dict[str, Path]:  # fmt: skip
    """Parquet tables and ``summary.json`` as one output unit; their final paths."""
    with output_unit(out, identity) as folder:
        for name, table in tables.items():
            write_parquet(folder / f"{name}.parquet", table)
        write_json(folder / "summary.json", document)
    return {**{name: out / f"{name}.parquet" for name in tables}, "summary": out / "summary.json"}


@checked_arguments()
def write_exact(
    result: ExactResult, out_dir: str | os.PathLike[str], scenario_hash: str | None = None
) -> dict[str, Path]:
    """Write an exact answer's ``summary.json`` and Parquet tables to ``out_dir``, as one unit.

    ``scenario_hash`` (:func:`simlab.report.files.scenario_hash`, default the one
    ``result`` holds) goes into the run identity stamped in every file.

    The tables are ``attacks``, ``damage_pmf`` and ``time_to_down`` (empty when the
    scenario is not a duel); the summary has ``simlab run``'s shape without intervals.

    Returns
    -------
    dict of str to Path
        What was written, by table name.

    Raises
    ------
    InputError
        When ``result`` is not an :class:`ExactResult`, ``out_dir`` not a path or
        ``scenario_hash`` not a str.
    """
    from simlab.exact.engine import ExactResult

    instance_argument(result, ExactResult, "simlab.exact")
    out = _folder(out_dir)
    if scenario_hash is not None and not isinstance(scenario_hash, str):
        raise InputError(f"expected a str for scenario_hash; got {describe(scenario_hash)}")
    tables = {
        "attacks": result.attacks(),
        "damage_pmf": result.damage_pmf(),
        "time_to_down": result.time_to_down(),
    }
    identity = run_identity([result], method="exact")
    solved = scenario_hash or result.scenario_hash
    identity["scenarios"][0]["scenario_hash"] = solved
    return _write_tables(out, tables, {**result.summary(), "scenario_hash": solved}, identity)


# -- balance reports -------------------------------------------------------------------------


@checked_arguments()
def run_scenario(
    scenario: ScenarioBase | str | os.PathLike[str],
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    progress: runner.Progress | None = None,
    source: str | None = None,
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
    client: Any = None,
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
    precision, precision_on
        Run to a precision, as for :func:`simulate`.
    client : distributed.Client, optional
        Run on this Dask cluster instead of ``threads``, as for :func:`simulate`.

    Returns
    -------
    ScenarioRun
        ``exact`` holds the exact engine's summary document; when the rule system has
        no exact engine, no pairs and the reason as the only refusal.
    """
    if not isinstance(scenario, ScenarioBase):
        path, scenario = scenario, scenario_of(scenario)
        source = source or os.fspath(path)
    result = simulate(scenario, n, seed, threads=threads, progress=progress,
                      precision=precision, precision_on=precision_on,
                      client=client)  # fmt: skip
    note_idle_overrides(result, scenario)
    return _report_run(result, scenario, source)


def _report_run(result: Result, scenario: ScenarioBase, source: str | None) -> ScenarioRun:
    """``result`` of ``scenario`` as a report's run: with the scenario's exact answers
    (when the rule system has no exact engine, none and the reason as the only
    refusal), its ``expect:`` entries and drift tolerances."""
    from simlab.exact.engine import exact
    from simlab.report.results import ScenarioRun

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


@checked_arguments()
def check(
    subject: Any,
    n: int | None = None,
    seed: int | None = None,
    *,
    strict: bool = False,
    threads: int | None = None,
) -> pd.DataFrame:
    """Check scenarios' balance specs (their ``expect:`` entries): ``simlab check``'s table.

    Parameters
    ----------
    subject : Result, ScenarioRun, ScenarioBase, path, or a list of them
        What was simulated: a :class:`Result` of :func:`simulate` (or a sweep's point,
        a comparison's ``a`` or ``b``), measured against the specs of the scenario it
        simulated; a sweep (:func:`sweep`: each simulated point, in order) or a
        comparison (:func:`compare`: ``a``, then ``b``), each of its results so; a
        report's run (:func:`run_scenario`, :func:`load_results`); or a
        scenario, or the path of one, simulated first; a folder is every scenario file
        in it that has specs, as ``simlab check FOLDER`` runs them. A list (or tuple)
        checks each in turn, in one table: every scenario is loaded before any is
        simulated, so a wrong file stops the check before anything runs.
    n, seed : int, optional
        For a scenario: the encounters and seed to simulate (default: the scenario's).
        Refused with what is already simulated.
    strict : bool
        Count a borderline pass (an interval that reaches past the bound) as a failure,
        as ``simlab check --strict`` does.
    threads : int, optional
        numba threads, for a scenario simulated here.

    Returns
    -------
    pandas.DataFrame
        One row per spec (:func:`simlab.analysis.specs.evaluate_all`), of each subject in
        the order given: ``scenario``, ``overrides`` (the changes it was run with, as
        the terminal's heading says them: ``Kaito.hp=200``; "" for none), ``rules``,
        ``spec`` (its text), ``figure``, ``measured`` with its 95% interval (``ci_lo``, ``ci_hi``;
        ``inf`` for a median time-to-down the round cap does not reach), the same as
        ``simlab check`` prints it (``measured_text``: ``0.916 ± 0.003``, ``7 [7, 8]``,
        ``not reached``),
        the bounds ``low`` and ``high``, ``n`` (what it was measured on), ``verdict``
        (``pass`` or ``fail``), ``borderline``, ``note`` and ``failed_by_strict`` (a
        borderline pass that ``strict`` failed); no rows when no scenario has
        ``expect:``.

    Warns
    -----
    UserWarning
        For each subject that adds no row, having no ``expect:`` entries (a folder: in
        none of its scenarios), as ``simlab check`` says "no expect: entries": such a
        scenario is not simulated (nor is it on the command line), and an empty table,
        or one without that subject's rows, said nothing. A warning, not an error, as
        the command line exits 0 then: a list or a loop over folders goes on.

    Raises
    ------
    InputError
        Naming the argument of the wrong type, or a ``Result`` that does not know the
        scenario it simulated.
    """
    from simlab.analysis.specs import evaluate_all
    from simlab.report.results import ScenarioRun

    strict = flag_argument(strict, "strict")
    several = isinstance(subject, list | tuple)
    if several and not subject:
        raise InputError("expected something to check for subject; got an empty "
                         f"{type(subject).__name__}")  # fmt: skip
    ready: list[ScenarioRun | tuple[str | None, ScenarioBase]] = []
    for item in subject if several else [subject]:  # a loop: the warning's stacklevel
        ready += _with_specs(item, _to_check(item, n, seed, threads))
    runs = [entry if isinstance(entry, ScenarioRun)
            else run_scenario(entry[1], n, seed, threads=threads, source=entry[0])
            for entry in ready]  # fmt: skip
    return _with_overrides(_with_text(evaluate_all(runs, strict=strict)), runs)


def _to_check(
    item: object, n: int | None, seed: int | None, threads: int | None
) -> list[ScenarioRun | tuple[str | None, ScenarioBase]]:
    """What :func:`check` measures for one subject, loaded but not yet simulated: the
    run of a result, or each scenario to simulate with the file it came from (a folder's
    that have specs)."""
    from simlab.report.results import ScenarioRun

    simulated = [item] if isinstance(item, Result | ScenarioRun) else _simulated_in(item)
    if simulated is not None:
        for name, value in (("n", n), ("seed", seed), ("threads", threads)):
            if value is not None:  # a Result is measured as it was simulated
                raise InputError(f"{name}: expected none with a {type(item).__name__}, "
                                 f"already simulated; got {name}={value!r}")  # fmt: skip
        return [run if isinstance(run, ScenarioRun) else _checked_run(run) for run in simulated]
    # refused here, as a subject without specs is never simulated, which would check them
    if n is not None:
        whole_number_in(n, "encounters", 1, MAX_ENCOUNTERS)
    if seed is not None:
        seed_value(seed)
    if isinstance(item, ScenarioBase):
        return [(None, item)]
    if not is_path(item):
        raise InputError(f"expected a Result (simlab.simulate), a sweep (simlab.sweep) or "
                         f"one of its points, a comparison (simlab.compare), a ScenarioRun "
                         f"(simlab.run_scenario), a scenario (simlab.load), the path of a "
                         f"scenario file or folder, or a list of them, for subject; got "
                         f"{describe(item)}")  # fmt: skip
    given = cast("str | os.PathLike[str]", item)
    if not names_an_entry(given, "folder"):
        return [(os.fspath(given), scenario_of(given))]
    return [(path.as_posix(), scn) for path, scn in _load_every(scenario_paths(given), None)
            if scn.expect]  # fmt: skip


def _simulated_in(item: object) -> list[Result] | None:
    """The results a sweep or a comparison holds, for :func:`check` to measure each: a
    sweep's points in order (those simulated), a comparison's ``a`` then ``b``, a sweep's
    point its result; None for anything else. A tuning keeps no simulation: refused,
    saying what to check instead."""
    from simlab.tuning.compare import Comparison
    from simlab.tuning.sweep import SweepPoint, SweepResult
    from simlab.tuning.tune import TuneResult

    if isinstance(item, Comparison):
        return [item.a, item.b]
    if isinstance(item, SweepPoint):
        if item.result is None:
            raise InputError("subject: expected a simulated point of a sweep; got one "
                             "without a result (read back from files): check its "
                             "scenario, simlab.check(point.scenario)")  # fmt: skip
        return [item.result]
    if isinstance(item, SweepResult):
        results = [point.result for point in item.points if point.result is not None]
        if not results:
            raise InputError("subject: expected a sweep with simulated points; got one "
                             "without any (read back from files, or answered exactly): "
                             "check the scenario at a point instead")  # fmt: skip
        return results
    if isinstance(item, TuneResult):
        value = "VALUE" if math.isnan(item.value) else f"{item.value:g}"
        raise InputError(f"subject: expected a Result, a sweep or a comparison; got a "
                         f"TuneResult, which keeps no simulation: check the tuned scenario "
                         f"at the value found, simlab.check(scn.with_({{{item.field!r}: "
                         f"{value}}}))")  # fmt: skip
    return None


def _with_specs(
    item: object, ready: list[ScenarioRun | tuple[str | None, ScenarioBase]]
) -> list[ScenarioRun | tuple[str | None, ScenarioBase]]:
    """Of what :func:`_to_check` made of the subject ``item``, what has specs to check;
    where nothing has, a ``UserWarning`` naming ``item`` (:func:`check`)."""
    from simlab.report.results import ScenarioRun

    kept = [entry for entry in ready
            if (entry.expect if isinstance(entry, ScenarioRun) else entry[1].expect)]  # fmt: skip
    if not kept:
        warnings.warn(f"check: no expect: entries in {_subject_said(item)}, so it adds no "
                      "row to the table", UserWarning, stacklevel=4)  # fmt: skip
    return kept


def _subject_said(item: object) -> str:
    """A subject of :func:`check` as its warning names it: ``the scenario quickstart
    (a Result)``, ``scenarios/glitters-d20 (a folder)``, ``duel.yaml``."""
    from simlab.report.results import ScenarioRun

    kind = "a scenario" if isinstance(item, ScenarioBase) else f"a {type(item).__name__}"
    simulated = _simulated_in(item)
    named = simulated[0] if simulated else item  # a sweep's or a comparison's: its first's
    if isinstance(named, Result | ScenarioRun | ScenarioBase):
        name = named.result.scenario if isinstance(named, ScenarioRun) else named.scenario
        return f"the scenario {name} ({kind})"
    path = os.fspath(cast("str | os.PathLike[str]", item))
    return f"{path} (a folder: in none of its scenarios)" if Path(path).is_dir() else path


def _with_text(specs: pd.DataFrame) -> pd.DataFrame:
    """``specs`` with ``measured_text`` after ``ci_hi``: the measured figure and its
    interval as ``simlab check`` prints them (``0.916 ± 0.003``, ``7 [7, 8]``), a median
    time-to-down the round cap does not reach ``not reached``, where the numbers hold
    ``inf``."""
    from simlab.report.terminal import measured_cell

    text = [measured_cell(row) for row in specs.itertuples()]
    specs.insert(specs.columns.get_loc("ci_hi") + 1, "measured_text", pd.Series(text, dtype=str))
    return specs


def _with_overrides(specs: pd.DataFrame, runs: list[ScenarioRun]) -> pd.DataFrame:
    """``specs`` with ``overrides`` after ``scenario``: the changes each row's run was
    made with, as the terminal's heading says them (``Kaito.hp=200``, one that changes
    nothing said so; "" for the scenario as its file has it), which tell a variant's
    rows from its base's where both read ``scenario quickstart``."""
    said = [", ".join(run.result._overrides_said()) for run in runs for _ in run.expect]
    specs.insert(specs.columns.get_loc("scenario") + 1, "overrides", pd.Series(said, dtype=str))
    return specs


def _checked_run(result: Result) -> ScenarioRun:
    """A result as the run :func:`check` measures: with the specs and exact answers of
    the scenario it simulated, which :func:`simulate` keeps on it."""
    if result._simulated is None:
        raise InputError("subject: expected a Result that knows the scenario it simulated "
                         "(simlab.simulate, a sweep's point, a comparison's a or b); got one "
                         "without it: check the scenario instead")  # fmt: skip
    return _report_run(result, result._simulated, None)


def note_idle_overrides(result: Result, scenario: ScenarioBase) -> None:
    """Record in ``result.meta["idle_overrides"]`` the scenario's ``--set`` overrides
    that change nothing (the field already had that value,
    :attr:`ScenarioBase.idle_overrides`), for the report's head and identity table and
    the terminal's head. Not done by :func:`simulate`: working it out costs a
    validation an override, which every point of a sweep or a tune would pay (a
    :class:`~simlab.analysis.result.Result`'s repr works it out when first shown)."""
    if scenario.idle_overrides:
        result.meta["idle_overrides"] = list(scenario.idle_overrides)


@checked_arguments()
def run_scenarios(
    items: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    progress: Any = None,
    overrides: Any = None,
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
    with_specs_only: bool = False,
    on_run: Any = None,
    client: Any = None,
    on_loaded: Any = None,
) -> list[ScenarioRun]:
    """Load every scenario named (files or folders) first, then simulate each.

    ``progress``, when given, is a context manager factory ``progress(total, what)``
    yielding the per-block callback (as :func:`simlab.report.terminal.progress`);
    ``on_run``, when given, is called with each :class:`ScenarioRun` as soon as it has
    run (the command line, piped, says what each simulated as it goes); ``on_loaded``,
    when given, with the ``(path, scenario)`` pairs to simulate once every one is loaded,
    before any is (``simlab report`` refuses there a baseline that holds none of them).
    ``overrides`` (as for :func:`override`) are applied to every scenario;
    ``precision`` and ``precision_on`` run each to a precision (see :func:`simulate`).
    With ``with_specs_only``, only the scenarios that have ``expect:`` entries are
    simulated (``simlab check``); the others are still loaded and validated. With
    ``client`` (a Dask ``distributed.Client``), every scenario runs on that cluster
    instead of ``threads``, with the same numbers (see :func:`simulate`).

    Parameters
    ----------
    items : path-like, or a list of them
        Scenario files, or folders of them.
    n, seed : int, optional
        Encounters and seed of every scenario (default: each one's own).
    threads, precision, precision_on, client
        As for :func:`simulate`.
    progress, on_run, on_loaded, overrides, with_specs_only
        As above.

    Returns
    -------
    list of ScenarioRun
        One a scenario, in the order named (a folder's files sorted): its result,
        exact answers and specs, for :func:`check` and :func:`write_report`.

    Raises
    ------
    InputError
        On any invalid scenario (before anything is simulated), or when two files
        share a scenario id under the same rules (a :class:`ScenarioError` located at
        the later file's ``scenario:``, :func:`simlab.scenario.load.id_clash`).
    """
    function_argument(progress, "progress")
    function_argument(on_run, "on_run")
    function_argument(on_loaded, "on_loaded")
    threads_or_client(threads, client)
    loaded = _load_every(scenario_paths(items), overrides)
    if with_specs_only:
        loaded = [(path, scn) for path, scn in loaded if scn.expect]
    if on_loaded is not None:
        on_loaded(loaded)
    runs = []
    for path, scn in loaded:
        total = scn.encounters if n is None else n
        with progress(total, path.as_posix()) if progress else nullcontext() as advance:
            runs.append(run_scenario(scn, n, seed, threads=threads, progress=advance,
                                     source=path.as_posix(), precision=precision,
                                     precision_on=precision_on, client=client))  # fmt: skip
        if on_run is not None:
            on_run(runs[-1])
    return runs


def _load_every(paths: list[Path], overrides: Any) -> list[tuple[Path, ScenarioBase]]:
    """Every scenario at ``paths``, with ``overrides`` applied; the problems of every file
    that cannot be loaded, together, so that a folder's mistakes are listed at once, and
    a scenario id that two files have under the same rules (:func:`id_clash`, beside the
    problems of a file that does not load: :func:`written_id_clash`).

    Raises
    ------
    ScenarioError
        With every problem of every file that failed.
    InputError
        Naming the file, when an override does not fit it (a combatant it does not have).
    """
    loaded, problems = [], []
    seen: dict[tuple[str, str], Path] = {}
    for path in paths:
        try:
            scenario = load(path)
        except ScenarioError as err:
            clash = written_id_clash(path, seen)
            problems += sorted_unique(err.problems + ([] if clash is None else [clash]))
            continue
        try:
            loaded.append((path, override(scenario, overrides or {})))
        except ScenarioError as err:
            clash = id_clash(path, scenario, seen)
            problems += err.problems + ([] if clash is None else [clash])
            continue
        except InputError as err:  # an override this file has no field for: say which file
            raise InputError(f"{err} (in {path})") from None
        clash = id_clash(path, loaded[-1][1], seen)
        problems += [] if clash is None else [clash]
    if problems:
        raise ScenarioError(problems)
    return loaded


@checked_arguments()
def write_report(
    runs: list[ScenarioRun] | ScenarioRun,
    out_dir: str | os.PathLike[str],
    *,
    baseline: str | os.PathLike[str] | None = None,
    alpha: float = 0.01,
    strict: bool = False,
    title: str = "simlab balance report",
    progress: Callable[[int, int, str], None] | None = None,
    processes: int | None = 1,
) -> tuple[dict[str, Path], pd.DataFrame, Any]:
    """Render the balance report of ``runs`` into ``out_dir`` (HTML, Markdown, PNGs, JSON).

    The folder is written as one unit (:func:`simlab.report.files.output_unit`).

    Parameters
    ----------
    runs : list of ScenarioRun, or one
        From :func:`run_scenarios` or :func:`load_results`.
    out_dir : path-like
        Where ``report.html``, ``report.md``, ``png/`` and ``results.json`` go.
    baseline : path-like, optional
        A saved ``results.json`` (or its folder) to compare with.
    alpha : float
        Drift threshold on Holm-adjusted p-values, between 0 and 1.
    strict : bool
        Count borderline spec passes as failures.
    title : str
        The heading of ``report.html`` and ``report.md``.
    progress : callable, optional
        ``progress(i, total, "scenario (rules)")`` before each scenario is drawn.
    processes : int or None
        The most processes drawing the plots, from 1 (the default: this process alone)
        to the threads numba may use (None: all of them, as ``simlab report`` does).
        Others start only for pictures enough to pay for their start-up, one for every
        12 (:mod:`simlab.report.drawing`); the files are the same bytes either way.
        They are started with multiprocessing's ``spawn``, which imports a script's
        ``__main__`` again: a script that asks for more than one process keeps its top
        level under ``if __name__ == "__main__":``.

    Returns
    -------
    written, specs, drift
        The files written, the spec verdicts (:func:`simlab.analysis.specs.evaluate_all`)
        and the :class:`~simlab.analysis.drift.DriftReport` (None without a baseline).
    """
    from simlab.analysis.drift import compare
    from simlab.analysis.specs import evaluate_all
    from simlab.report.render import render_report
    from simlab.report.results import load_results, results_path_argument, run_list

    runs = run_list(runs)
    _folder(out_dir)
    if baseline is not None:
        results_path_argument(baseline, "baseline")
    function_argument(progress, "progress")
    if processes is not None:
        processes = whole_number_in(processes, "processes", 1, 2**31)
        if processes > 1:  # the most numba may use, which imports numba
            whole_number_in(processes, "processes", 1, runner.max_threads())
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise InputError(f"expected alpha between 0 and 1 (a p-value threshold); got {alpha!r}")
    specs = evaluate_all(runs, strict=strict)
    drift = None
    shown = None
    before: list[ScenarioRun] = []
    if baseline is not None:
        shown = os.fspath(baseline)
        before = load_results(baseline)
        drift = compare(runs, before, alpha, shown)
    written = _write_unit(out_dir, [r.result for r in runs], lambda folder: render_report(
        runs, folder, specs=specs, drift=drift, baseline=shown, title=title,
        baseline_runs=before, progress=progress, processes=processes,
        shown_out=os.fspath(out_dir)))  # fmt: skip
    return written, specs, drift


# -- tuning ----------------------------------------------------------------------------------


@checked_arguments()
def override(scenario: ScenarioBase | str | os.PathLike[str], changes: Any) -> ScenarioBase:
    """A new scenario with fields changed, validated exactly like the file.

    ``changes`` is ``{"Defender.guard": 2, "strike.profile[9]": 8}`` or strings
    ``"Defender.guard=2"``; see :func:`simlab.tuning.overrides.override` for the spelling
    (``profile[9]`` is row 9 of the 2..12 chart). Also ``scenario.with_(changes)``.
    README, "Tuning".

    Parameters
    ----------
    scenario : ScenarioBase or path
        A loaded scenario, or the path of one.
    changes : mapping, str or list of str
        ``NAME.FIELD`` to its new value, or ``NAME.FIELD=VALUE`` texts.

    Returns
    -------
    ScenarioBase
        A new scenario (``scenario`` is unchanged) that names its changes in its repr.

    Raises
    ------
    InputError
        Naming the override whose name or value the scenario does not accept.
    """
    from simlab.tuning.overrides import override as apply

    return apply(scenario_of(scenario), changes)


@checked_arguments()
def sweep(
    scenario: ScenarioBase | str | os.PathLike[str],
    vary: Any,
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    exact: bool = True,
    progress: runner.Progress | None = None,
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
    client: Any = None,
) -> Any:
    """Run a scenario at every value of the varied fields on the same seed.

    ``vary`` maps ``NAME.FIELD`` to its values (``{"Defender.guard": range(5)}``), or
    spells them as ``--vary`` does (``"Defender.guard=0:4"``, or a list of such texts);
    several fields make a grid. Returns a :class:`simlab.tuning.sweep.SweepResult`
    whose tables (``attacks()``, ``combatants()``, ``sides()``) have one column per
    varied field; :func:`simlab.plot_sweep` draws its curves. With ``precision``, each
    point runs to that precision (``n`` is the cap). See :func:`simlab.tuning.sweep.sweep`.

    Parameters
    ----------
    scenario : ScenarioBase or path
        A loaded scenario, or the path of one.
    vary : mapping, str or list of str
        The varied fields and their values, as above.
    n, seed : int, optional
        Encounters per point and seed (default: the scenario's).
    threads, progress, precision, precision_on
        As for :func:`simulate`.
    exact : bool
        Also ask the exact engine at every point where it answers.
    client : distributed.Client, optional
        Run every point as tasks on this Dask cluster instead of ``threads``; the
        points are the same, bit for bit (see :func:`simulate`).

    Returns
    -------
    SweepResult
        Its points in the order of ``vary``'s values, and their tables.
    """
    from simlab.tuning.sweep import sweep as run

    function_argument(progress, "progress")
    threads_or_client(threads, client)
    exact = flag_argument(exact, "exact")
    loaded = scenario_of(scenario)
    with told_of_compiles(progress, loaded.rules):
        return run(loaded, vary, n, seed, threads=threads, exact=exact, progress=progress,
                   precision=precision, precision_on=precision_on,
                   client=client)  # fmt: skip


@checked_arguments()
def compare(
    a: ScenarioBase | str | os.PathLike[str],
    b: ScenarioBase | str | os.PathLike[str] | None = None,
    *,
    changes: Any = None,
    n: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    ranges: int | None = None,
    progress: runner.Progress | None = None,
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
    client: Any = None,
) -> Any:
    """Compare two variants on the same dice, with paired intervals of every difference.

    B is the scenario ``b``, or ``a`` with ``changes`` (as for :func:`override`); both
    together are refused (``b.with_(changes)`` is ``b`` with changes). Returns a
    :class:`simlab.tuning.compare.Comparison`; its
    ``figures`` table has A, B, B − A, the paired 95% interval and the interval two
    independent runs would give (see :mod:`simlab.tuning.compare`). With
    ``precision``, A and B are each run to that precision (``n`` the cap) and both are
    compared at the larger of the two stops. ``ranges`` is K, the ranges the intervals
    come from: 2 to 1,000 and at most one an encounter (more is refused); by default 32,
    or one an encounter under 32.

    Parameters
    ----------
    a, b : ScenarioBase or path
        A, and B (or ``changes``).
    changes : mapping, str or list, optional
        The changes that make B of ``a``, as for :func:`override`.
    n, seed : int, optional
        Encounters and seed of both (default: A's).
    threads, progress, precision, precision_on
        As for :func:`simulate` (``progress``'s calls add up to both runs' encounters);
        ``precision`` of both, by default A's (B's own ``precision:`` is not used).
    ranges : int, optional
        K, as above.
    client : distributed.Client, optional
        Play A and B as tasks on this Dask cluster instead of ``threads``; the
        comparison is the same, bit for bit (see :func:`simulate`).

    Returns
    -------
    Comparison
        ``a`` and ``b`` (the two results) and ``figures``, one row per figure.
    """
    if b is not None and changes:
        raise InputError("expected b or changes; got both (pass b.with_(changes) as b to "
                         "compare A with b changed)")  # fmt: skip
    return compare_variants(a, b, changes=changes, n=n, seed=seed, threads=threads,
                            ranges=ranges, progress=progress, precision=precision,
                            precision_on=precision_on, client=client)  # fmt: skip


def _refuse_changes_as_b(b: object) -> None:
    """Refuse changes given where B goes (a mapping, a list of texts, or a text that
    reads as an override and names no file), saying that ``changes=`` takes them: they
    were refused as no scenario (``got a dict``), or as a YAML file not found."""
    texts = isinstance(b, list | tuple) and b and all(isinstance(c, str) for c in b)
    override_text = isinstance(b, str) and "=" in b and not names_an_entry(b)
    if isinstance(b, Mapping) or texts or override_text:
        raise InputError(f"expected a scenario (simlab.load) or the path of a scenario file "
                         f"for b; got {describe(b)}, changes to A: pass them as changes= "
                         f"(simlab.compare(a, changes=...))")  # fmt: skip


def compare_variants(
    a: ScenarioBase | str | os.PathLike[str],
    b: ScenarioBase | str | os.PathLike[str] | None = None,
    *,
    changes: Any = None,
    n: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    ranges: int | None = None,
    progress: runner.Progress | None = None,
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
    client: Any = None,
) -> Any:
    """:func:`compare`, where B may also be ``b`` with ``changes``, named ``B with
    CHANGES`` (``simlab compare A B --set ...``). B made of ``a`` with ``changes`` is
    named as ``a.with_(changes)`` is, by its scenario's id with the changes it carries
    (``ss-duel with strike.profile[9]=8``), however A was given. The parameters are
    :func:`compare`'s, ``client`` with them."""
    from simlab.tuning.compare import compare as run
    from simlab.tuning.compare import ranges_for
    from simlab.tuning.overrides import as_overrides, refuse_run_changes, refuse_spec_changes

    function_argument(progress, "progress")
    threads_or_client(threads, client)
    first = scenario_of(a, "a")
    _refuse_changes_as_b(b)
    second = first if b is None else scenario_of(b, "b")
    if b is None and not changes:
        raise InputError("expected a second scenario or changes to compare with; got neither")
    if b is not None:
        _refuse_run_overrides(first, second)
    if changes:
        parsed = as_overrides(changes)
        changed = override(second, parsed)
        refuse_run_changes(second, changed, _changes_argument(changes), "comparison")
        refuse_spec_changes(second, changed, parsed, "comparison")
        second = changed
    labels = (_label(a, first), _label(b, second) if b is not None else _label(second, second))
    if b is not None and changes:
        labels = (labels[0], f"{labels[1]} with {_changes_label(changes)}")
    record, played = None, (None, None)
    precision_on = precision_on_argument(first.precision if precision is None else precision,
                                         precision_on)  # fmt: skip
    with told_of_compiles(progress, first.rules):
        if precision is not None or first.precision is not None:
            # refused before the runs to a precision; their stop is at least min(cap, 1,000)
            ranges_for(ranges, encounters_and_seed(first, n, seed)[0])
            n, record, played = _precision_stop(first, second, n, seed, threads, precision,
                                                precision_on, progress, client, ranges)  # fmt: skip
        result = run(first, second, n, seed, threads=threads, ranges=ranges, labels=labels,
                     progress=progress, client=client, played=played)  # fmt: skip
    result.precision = record
    return result


def _refuse_run_overrides(a: ScenarioBase, b: ScenarioBase) -> None:
    """Refuse a B made with overrides of a field that sets how the comparison is run
    (``b=a.with_({"seed": 99})``) to a value other than A's: B is played on A's seed,
    count and precision, under a label that says otherwise, as the ``changes`` that set
    one are refused (two files with seeds of their own are not: no label claims one).

    Raises
    ------
    InputError
        ``b with seed=99: expected a change to the fight; got one to 'seed', …``.
    """
    from simlab.tuning.overrides import RUN_FIELDS, refuse_run_changes

    run = [o for o in b.overrides if o.partition("=")[0] in RUN_FIELDS]
    if run:
        fields = [o.partition("=")[0] for o in run]
        refuse_run_changes(a, b, f"b with {', '.join(run)}", "comparison", fields)


def _precision_stop(a: ScenarioBase, b: ScenarioBase, n: int | None, seed: int | None,
                    threads: int | None, precision: float | None,
                    precision_on: Sequence[Any], progress: runner.Progress | None = None,
                    client: Any = None, ranges: int | None = None,
                    ) -> tuple[int, dict[str, Any], tuple[Any, Any]]:  # fmt: skip
    """The sample size of a comparison run to a precision: the larger of A's and B's
    stops, with the record of the variant that set it (its checkpoints, its widest
    figure; at equal stops, the one whose widest figure is nearer its limit; which it
    is, ``widest_of``; and the crit rates exactly 0 in each, ``cannot_crit``), and A's
    and B's tallies on the comparison's ranges at that size where they need not be
    played again (:meth:`~simlab.tuning.precision.RangesKept.ranges_at`: the run that
    set the stop, and the other when it stopped at a checkpoint before it on the same
    cap and seed, played on to it). Each run advances ``progress`` as it goes (a bar
    that sat at "starting" through both)."""
    from simlab.tuning.compare import DEFAULT_RANGES, range_edges
    from simlab.tuning.precision import precision_rule, run_ranges_to_precision

    def ranges_of(stop: int) -> list[tuple[int, int]]:
        return range_edges(stop, ranges or DEFAULT_RANGES)

    kept = []
    given = a.precision if precision is None else precision  # B's own is not used, as its seed
    assert given is not None, "a comparison to a precision without one"
    for scn in (a, b):  # a crit rate only one of them can have is exactly 0 in the other
        job = compile_job(scn, n, seed)
        rule = precision_rule(given, precision_on, job.layout, scn, (a, b))
        kept.append(run_ranges_to_precision(job, rule, ranges_of, threads=threads,
                                            progress=progress, client=client))  # fmt: skip
    records = [k.record for k in kept]
    last = max(records, key=lambda r: (r["encounters"], _nearness(r["widest"])))
    record = {**last, "met": all(r["met"] for r in records),
              "cap_reached": any(r["cap_reached"] for r in records),
              "stops": [r["encounters"] for r in records],
              "widest_of": "AB"[records.index(last)]}  # fmt: skip
    record.pop("cannot_crit", None)
    if any("cannot_crit" in r for r in records):
        record["cannot_crit"] = [r.get("cannot_crit", []) for r in records]
    stop, paired_seed = last["encounters"], encounters_and_seed(a, n, seed)[1]
    played = tuple(k.ranges_at(stop) if k.job.seed == paired_seed else None for k in kept)
    return stop, record, (played[0], played[1])


def _nearness(widest: dict[str, Any] | None) -> float:
    """How near its limit a precision record's widest figure is (half-width / limit)."""
    return 0.0 if widest is None else widest["half_width"] / widest["limit"]


def _label(given: Any, scenario: ScenarioBase) -> str:
    """How a comparison names a variant: the path given, or a loaded scenario's id with
    the overrides it carries (``ss-duel with strike.profile[9]=8``: ``scn.with_``, or A
    with a comparison's ``changes``)."""
    if not isinstance(given, ScenarioBase):
        return os.fspath(given)
    changed = f" with {', '.join(scenario.overrides)}" if scenario.overrides else ""
    return scenario.scenario + changed


def _changes_argument(changes: Any) -> str:
    """How a comparison's changes are named in a message refusing a change to how it runs:
    as the command line typed them (``--set seed=3``: each parsed change carries its
    label), those of the run's own fields if any, else ``changes ...``."""
    from simlab.tuning.overrides import RUN_FIELDS, Override

    parsed = not isinstance(changes, str | Mapping) and bool(changes)
    if parsed and all(isinstance(c, Override) for c in changes):
        run = [c for c in changes if c.target in RUN_FIELDS]
        return ", ".join(c.label for c in run or changes)
    return f"changes {_changes_label(changes)}"


def _changes_label(changes: Any) -> str:
    """A comparison's changes, as typed: how B given with them is named after its file
    (``B.yaml with Defender.hp=3``), and how a message refusing one names them."""
    if isinstance(changes, str):
        return changes
    if isinstance(changes, Mapping):
        return ", ".join(f"{k}={v}" for k, v in changes.items())
    return ", ".join(str(getattr(c, "label", c)).removeprefix("--set ") for c in changes)


@checked_arguments()
def write_sweep(sweep: Any, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write a sweep's tables, page and pictures into ``out_dir``, as one unit.

    ``sweep.json``, tidy Parquet tables (``attacks``, ``damage_pmf``, ``combatants``,
    ``sides``; one column per varied field), ``sweep.html`` and ``sweep.md`` with their
    PNGs, stamped with the points' run identity (README, "Tuning").

    Parameters
    ----------
    sweep : SweepResult
        From :func:`sweep`.
    out_dir : path-like
        The folder to write (created, or replaced whole).

    Returns
    -------
    dict of str to Path
        What was written, by name.

    Raises
    ------
    InputError
        When ``sweep`` is not a SweepResult or ``out_dir`` not a path.
    """
    from simlab.report.tuning import render_sweep, sweep_tables
    from simlab.tuning.sweep import SweepResult

    instance_argument(sweep, SweepResult, "simlab.sweep")
    _folder(out_dir)

    def write(folder: Path) -> dict[str, Path]:
        written = {name: write_parquet(folder / f"{name}.parquet", table)
                   for name, table in sweep_tables(sweep).items()}  # fmt: skip
        written["sweep"] = write_json(folder / "sweep.json", sweep.document())
        written.update(render_sweep(sweep, folder))
        return written

    results = [point.result for point in sweep.points if point.result is not None]
    return _write_unit(out_dir, results, write, "sweep")


@checked_arguments()
def write_compare(comparison: Any, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write a comparison's ``compare.json``, ``compare.html`` and ``compare.md`` into
    ``out_dir``, as one unit stamped with both runs' identity (README, "Tuning").

    Parameters
    ----------
    comparison : Comparison
        From :func:`compare`.
    out_dir : path-like
        The folder to write (created, or replaced whole).

    Returns
    -------
    dict of str to Path
        What was written, by name.

    Raises
    ------
    InputError
        When ``comparison`` is not a Comparison or ``out_dir`` not a path.
    """
    from simlab.report.tuning import render_compare
    from simlab.tuning.compare import Comparison

    instance_argument(comparison, Comparison, "simlab.compare")
    _folder(out_dir)

    def write(folder: Path) -> dict[str, Path]:
        written = {"compare": write_json(folder / "compare.json", comparison.document())}
        written.update(render_compare(comparison, folder))
        return written

    return _write_unit(out_dir, [comparison.a, comparison.b], write, "comparison")


def _write_unit(
    out_dir: str | os.PathLike[str],
    results: list[Result],
    write: Any,
    method: str = "simulation",
) -> dict[str, Path]:
    """Call ``write(folder)`` on a staging folder and swap it in as ``out_dir`` whole,
    every file stamped with the runs' identity (:func:`simlab.report.files.output_unit`);
    returns the final paths of what ``write`` reported."""
    out = Path(out_dir)
    with output_unit(out, run_identity(results, method)) as folder:
        staged: dict[str, Path] = write(folder)
    return {name: out / path.relative_to(folder) for name, path in staged.items()}


@checked_arguments()
def tune(
    scenario: ScenarioBase | str | os.PathLike[str],
    vary: str | tuple[str, float, float] | Mapping[str, tuple[float, float]] | Range,
    target: str | Any,
    n: int | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    exact: bool = True,
    precision: float | None = None,
    precision_on: Sequence[Any] = (),
    progress: runner.Progress | None = None,
    client: Any = None,
) -> Any:
    """Find the value of one field that brings a figure to a target, on common random numbers.

    ``vary`` is ``"Defender.hp=5:60"`` (integers when both ends are),
    ``("Defender.hp", 5, 60)`` or ``{"Defender.hp": (5, 60)}``; ``target`` is
    ``"median_time_to_down:Defender=5"`` (``FIGURE[:ON[@ARG]]=VALUE``, the figures of
    ``expect:``). The exact engine answers
    where it gives the figure, simulation (same seed at every value) elsewhere. Returns a
    :class:`simlab.tuning.tune.TuneResult`: the closest value, its figure with interval,
    every value evaluated and the range consistent with the target, and where the figure
    turns (not monotone) or is flat round the value found, every place it meets the
    target and what to do (``.crossings``, ``.caveats()``); see
    :mod:`simlab.tuning.tune` for the search.

    Parameters
    ----------
    scenario : ScenarioBase or path
        A loaded scenario, or the path of one.
    vary, target
        The field and its range, and the figure wanted, as above.
    n, seed : int, optional
        Encounters per simulated value and seed (default: the scenario's).
    threads, precision, precision_on, progress
        As for :func:`simulate` (``precision_on`` by default the target's figure).
    exact : bool
        Use the exact engine where it gives the figure.
    client : distributed.Client, optional
        Simulate every value as tasks on this Dask cluster instead of ``threads``; the
        search and its figures are the same, bit for bit (see :func:`simulate`).

    Returns
    -------
    TuneResult
        ``.value`` (the value found, or, where the target is not reached, the closest
        end, or where a flat stretch of the very same figure running to it begins),
        ``.best`` and ``.evaluated()`` (every value tried).
    """
    from simlab.tuning.tune import parse_target
    from simlab.tuning.tune import tune as search

    function_argument(progress, "progress")
    threads_or_client(threads, client)
    exact = flag_argument(exact, "exact")
    loaded = scenario_of(scenario)
    field = _tune_range(vary)
    goal = parse_target(target, "target") if isinstance(target, str) else target
    with told_of_compiles(progress, loaded.rules):
        result = search(loaded, field.field, field.lo, field.hi, goal, n, seed,
                        threads=threads, exact=exact, precision=precision,
                        precision_on=precision_on, progress=progress,
                        label=field.label, client=client)  # fmt: skip
    result.meta["scenario_hash"] = scenario_hash(loaded)
    return result


def _tune_range(vary: Any) -> Range:
    """The field and range of :func:`tune`'s ``vary``: ``"Defender.hp=5:60"``,
    ``("Defender.hp", 5, 60)`` or ``{"Defender.hp": (5, 60)}`` (a sweep's mapping, of one
    field to its two ends), named ``vary Defender.hp=5:60`` in messages; or the
    :class:`~simlab.tuning.tune.Range` the command line parsed, named as it gives it."""
    from simlab.tuning.overrides import argument_label
    from simlab.tuning.tune import Range, parse_range

    if isinstance(vary, Range):
        return vary
    if isinstance(vary, str):
        return parse_range(vary, "vary")
    ends: Any = None
    if isinstance(vary, (tuple, list)) and len(vary) == 3:
        name, *ends = vary
    elif isinstance(vary, Mapping) and len(vary) == 1:
        ((name, ends),) = vary.items()
    if isinstance(ends, (tuple, list)) and len(ends) == 2:
        lo, hi = ends
        return Range(name, lo, hi, argument_label("vary", f"{name}={lo}:{hi}"))
    raise InputError(f"vary: expected 'NAME.FIELD=LO:HI', (NAME.FIELD, LO, HI) or "
                     f"{{NAME.FIELD: (LO, HI)}}; got {vary!r}")  # fmt: skip


@checked_arguments()
def write_tune(result: Any, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write a tuning's ``tune.json``, ``tune.html`` and ``tune.md`` with the plot's PNG
    into ``out_dir``, as one unit stamped with the tuned scenario's identity (seed and
    sample size of its simulated values; README, "Targets").

    Parameters
    ----------
    result : TuneResult
        From :func:`tune`.
    out_dir : path-like
        The folder to write (created, or replaced whole).

    Returns
    -------
    dict of str to Path
        What was written, by name.

    Raises
    ------
    InputError
        When ``result`` is not a TuneResult or ``out_dir`` not a path.
    """
    from simlab.report.tuning import render_tune
    from simlab.tuning.tune import TuneResult

    instance_argument(result, TuneResult, "simlab.tune")
    _folder(out_dir)

    def write(folder: Path) -> dict[str, Path]:
        return {"tune": write_json(folder / "tune.json", result.document()),
                **render_tune(result, folder)}  # fmt: skip

    return _write_unit(out_dir, [result], write, "tune")
