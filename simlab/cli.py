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
    from simlab.api import load

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
@click.option("--block-size", type=click.IntRange(min=1), default=1 << 20, show_default=True,
              help="Encounters per block (progress granularity; results do not depend on it).")
@click.option("--scheduler", metavar="ADDRESS",
              help="Run on this Dask scheduler (e.g. tcp://host:8786); same results.")
@click.option("--check", is_flag=True,
              help="Compare with the exact answers where they exist (a report: exit 0).")
@handle_errors
def run(
    scenario: str,
    encounters: int | None,
    seed: int | None,
    out: str | None,
    threads: int | None,
    block_size: int,
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
