"""The ``simlab`` command: a thin shell over the Python API (:mod:`simlab.api`).

Exit codes: 0 ok; 1 a balance check failed or drifted; 2 invalid input (the message says
``file:line:col: expected X; got Y``); 3 an internal error. Heavy imports (numba,
pandas, the rule systems) happen inside the commands, so ``simlab --help`` stays fast.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any

import click

EXIT_OK, EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def _fail(message: str, code: int) -> None:
    click.echo(message, err=True)
    sys.exit(code)


def handle_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn simlab's errors into a message and an exit code, never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from simlab.errors import InputError

        try:
            return command(*args, **kwargs)
        except InputError as err:
            _fail(str(err), EXIT_INPUT)
        except KeyboardInterrupt:
            _fail("interrupted; no output file was left half-written", EXIT_INTERNAL)
        except Exception as err:  # the last line of defence: report, do not dump
            if os.environ.get("SIMLAB_DEBUG"):
                raise
            _fail(f"internal error: {type(err).__name__}: {err} (set SIMLAB_DEBUG=1 for details)",
                  EXIT_INTERNAL)  # fmt: skip
        return None

    return wrapper


SCENARIO = click.argument("scenario", type=click.Path(dir_okay=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="simlab")
def main() -> None:
    """Monte Carlo balance analysis for tabletop combat rules."""


@main.command()
@SCENARIO
@handle_errors
def validate(scenario: str) -> None:
    """Check a scenario file and report every mistake with its line and column."""
    from simlab.scenario.load import load  # not simlab.api: no pandas, numba or scipy

    scn = load(scenario)
    fighters = len(scn.combatant_names())
    attacks = len(scn.attacks)  # type: ignore[attr-defined]
    click.echo(f"ok: {scenario}: scenario {scn.scenario!r}, rules {scn.rules}, "
               f"{fighters} combatants, {attacks} attacks")  # fmt: skip


@main.command()
@SCENARIO
@click.option("-n", "--encounters", type=click.IntRange(min=1), help="Encounters to run.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="Seed (default: scenario's).")
@click.option("--out", type=click.Path(file_okay=False), help="Write summary.json + Parquet.")
@click.option("--threads", type=click.IntRange(min=1), help="Threads (default: all cores).")
@click.option(
    "--block-size",
    type=click.IntRange(min=1),
    help="Encounters per block (default 2^20; with --scheduler, 4 blocks per worker); "
    "results do not depend on it.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Run on this Dask scheduler (e.g. tcp://host:8786); same results.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Compare with the exact answers where they exist (a report: exit 0).",
)
@handle_errors
def run(
    scenario: str,
    encounters: int | None,
    seed: int | None,
    out: str | None,
    threads: int | None,
    block_size: int | None,
    scheduler: str | None,
    check: bool,
) -> None:
    """Simulate a scenario and print hit rates, damage, time-to-down and win rates."""
    from simlab import api
    from simlab.report import terminal

    scn = api.load(scenario)
    _check_threads(threads)
    n = encounters or scn.encounters
    client = _connect(scheduler)
    with terminal.progress(n) as advance:
        result = api.simulate(scn, n, seed, threads=threads, block_size=block_size,
                              progress=advance, client=client, check=check)  # fmt: skip
    terminal.print_result(result)
    if result.check is not None:
        terminal.print_check(result.check)
    if out:
        written = api.write_results(result, out)
        click.echo(f"wrote {len(written)} files to {out}")


def _connect(scheduler: str | None) -> object:
    if scheduler is None:
        return None
    try:
        from distributed import Client
    except ImportError as err:
        from simlab.errors import InputError

        raise InputError("expected simlab[dask] installed for --scheduler; got no dask") from err
    try:
        return Client(scheduler, timeout=10)
    except OSError as err:
        from simlab.errors import InputError

        raise InputError(f"expected a reachable Dask scheduler at {scheduler}; got {err}") from err


@main.command(name="exact")
@SCENARIO
@click.option("--out", type=click.Path(file_okay=False), help="Write summary.json + Parquet.")
@handle_errors
def exact_command(scenario: str, out: str | None) -> None:
    """Solve a scenario exactly: hit, crit and damage per attack; a duel's time-to-down.

    What cannot be solved exactly is listed with the feature that prevents it; when
    nothing can be, the exit code is 2 (use `simlab run` to simulate it).
    """
    from simlab import api
    from simlab.report import terminal

    solved = api.exact(api.load(scenario))
    terminal.print_exact(solved)
    if out:
        written = api.write_exact(solved, out)
        click.echo(f"wrote {len(written)} files to {out}")


def _check_threads(threads: int | None) -> None:
    if threads is None:
        return
    from simlab.engine.runner import max_threads

    top = max_threads()
    if threads > top:
        from simlab.errors import InputError

        raise InputError(f"expected --threads between 1 and {top}; got {threads}")


# -- balance reports ---------------------------------------------------------------------------

SCENARIOS = click.argument("scenarios", nargs=-1, type=click.Path())
DEFAULT_REPORT_DIR = "reports/latest"
DEFAULT_BASELINE = "reports/baseline/results.json"


def _sample_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """-n, --seed, --threads and --from, shared by report, check and baseline update."""
    options = [
        click.option("-n", "--encounters", type=click.IntRange(min=1),
                     help="Encounters per scenario (default: each scenario's)."),
        click.option("--seed", type=click.IntRange(0, 2**64 - 1),
                     help="Seed (default: each scenario's)."),
        click.option("--threads", type=click.IntRange(min=1),
                     help="Threads (default: all cores)."),
        click.option("--from", "from_", type=click.Path(), metavar="RESULTS",
                     help="Use saved results (a results.json or its folder) instead of "
                          "simulating."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _runs(scenarios: tuple[str, ...], encounters: int | None, seed: int | None,
          threads: int | None, from_: str | None) -> list[Any]:  # fmt: skip
    """Simulate the scenarios named, or read saved results (exactly one of the two)."""
    from simlab import api
    from simlab.errors import InputError

    if from_ is not None:
        if scenarios or encounters or seed is not None:
            raise InputError("expected either scenarios to simulate or --from saved results; "
                             "got both")  # fmt: skip
        return api.load_results(from_)
    if not scenarios:
        raise InputError("expected at least one scenario file or folder (or --from); got none")
    from simlab.report import terminal

    _check_threads(threads)
    return api.run_scenarios(scenarios, encounters, seed, threads=threads,
                             progress=terminal.progress)  # fmt: skip


@main.command()
@SCENARIOS
@_sample_options
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=DEFAULT_REPORT_DIR,
    show_default=True,
    help="Folder for report.html, report.md, PNGs, results.json.",
)
@click.option(
    "--baseline",
    type=click.Path(),
    metavar="RESULTS",
    help="Compare with saved results (e.g. reports/baseline/results.json); "
    "exit 1 when a figure drifted.",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.01,
    show_default=True,
    help="Drift threshold on Holm-adjusted p.",
)
@click.option("--title", default="simlab balance report", help="Title of the report.")
@handle_errors
def report(
    scenarios: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    from_: str | None,
    out: str,
    baseline: str | None,
    alpha: float,
    title: str,
) -> None:
    """Run scenarios (files or folders) and write a balance report with plots.

    With --baseline, every figure is compared with the saved results; a figure drifts
    when it is both statistically different (Holm-adjusted p < --alpha) and beyond the
    scenario's practical tolerance. Exit code 1 when anything drifted.
    """
    from simlab import api
    from simlab.report import terminal

    if baseline is not None:
        api.load_results(baseline)  # a missing or bad baseline fails before simulating
    runs = _runs(scenarios, encounters, seed, threads, from_)
    written, specs, drift = api.write_report(runs, out, baseline=baseline, alpha=alpha,
                                             title=title)  # fmt: skip
    if drift is not None:
        terminal.print_drift(drift, str(baseline))
    if not specs.empty:
        terminal.print_specs(specs)
    click.echo(f"wrote {out}/report.html, report.md, results.json and "
               f"{len(written) - 3} PNGs ({len(runs)} scenarios)")  # fmt: skip
    if drift is not None and not drift.ok:
        sys.exit(EXIT_CHECK_FAILED)


@main.command()
@SCENARIOS
@_sample_options
@click.option(
    "--strict", is_flag=True, help="Also fail a spec whose 95% interval crosses its bound."
)
@handle_errors
def check(
    scenarios: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    from_: str | None,
    strict: bool,
) -> None:
    """Check the balance specs (expect: entries) of scenarios; exit 1 when one fails."""
    from simlab.analysis.specs import evaluate_all
    from simlab.report import terminal

    specs = evaluate_all(_runs(scenarios, encounters, seed, threads, from_), strict=strict)
    terminal.print_specs(specs)
    if (specs.verdict == "fail").any():
        sys.exit(EXIT_CHECK_FAILED)


@main.group()
def baseline() -> None:
    """The saved results the drift gate compares with (reports/baseline/)."""


@baseline.command(name="update")
@SCENARIOS
@_sample_options
@click.option(
    "--baseline",
    "path",
    type=click.Path(dir_okay=False),
    default=DEFAULT_BASELINE,
    show_default=True,
    help="The baseline file to (over)write.",
)
@handle_errors
def baseline_update(
    scenarios: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    from_: str | None,
    path: str,
) -> None:
    """Write a new baseline, deliberately: simulate SCENARIOS (or take --from results).

    Without SCENARIOS or --from, the scenarios of the current baseline are simulated
    again, each with the sample size and seed recorded there unless -n/--seed are given.
    """
    from pathlib import Path

    from simlab import api

    if not scenarios and from_ is None:
        old = api.load_results(path)
        runs = []
        for run in old:
            if not run.source:
                from simlab.errors import InputError

                raise InputError(f"{path}: expected each scenario's source file; "
                                 f"got none for {run.scenario!r}")  # fmt: skip
            more = _runs(
                (run.source,),
                encounters or run.result.encounters,
                run.result.seed if seed is None else seed,
                threads,
                None,
            )
            runs += more
    else:
        runs = _runs(scenarios, encounters, seed, threads, from_)
    written = api.save_results(runs, Path(path))
    click.echo(f"wrote baseline {written} ({len(runs)} scenarios: "
               f"{', '.join(r.scenario for r in runs)})")  # fmt: skip
