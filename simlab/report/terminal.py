"""Terminal output: rich tables of a result and a progress bar for long runs.

When standard output is not a terminal (CI logs, pipes), no live bar is drawn: one plain
line is printed when the run finishes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from simlab.analysis.result import Result

if TYPE_CHECKING:
    from simlab.analysis.drift import DriftReport
    from simlab.exact.engine import DuelExact, ExactResult

# Not a terminal (CI logs, pipes): a fixed width wide enough for the tables.
console = Console() if sys.stdout.isatty() else Console(width=150)


@contextmanager
def progress(total: int, what: str = "") -> Iterator[Callable[[int], None]]:
    """A progress bar over ``total`` encounters (of ``what``, when named); yields the
    function that advances it.

    Until the first block is done the bar says that the kernels may be compiling: the
    first run of a rule system after installing simlab compiles them, which takes about a
    minute and would otherwise look like a hang.
    """
    of = f" of {what}" if what else ""
    if not sys.stdout.isatty():
        yield lambda _done: None
        console.print(f"simulated {total:,} encounters{of}", markup=False, highlight=False)
        return
    starting = f"starting{of} (a first run compiles the kernels: about a minute)"
    simulating = f"simulating{of}"
    count = TextColumn("{task.completed:,}/{task.total:,}")
    columns = (TextColumn("{task.description}"), BarColumn(), count, TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(escape(starting), total=total)
        yield lambda done: bar.update(task, advance=done, description=escape(simulating))


def _rate(value: float, lo: float, hi: float) -> str:
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def _mean(value: float, lo: float, hi: float) -> str:
    return f"{value:.2f} [{lo:.2f}, {hi:.2f}]"


def attacks_table(result: Result) -> Table:
    """Hit rate, crit rate and mean damage of every attack pairing, with 95% intervals."""
    rates = result.hit_rates()
    damage = result.damage()
    table = Table(title=f"{result.scenario} · attacks (95% intervals)")
    for column in ("attacker", "attack", "defender", "attempts", "hit rate", "crit rate",
                   "mean damage"):  # fmt: skip
        table.add_column(column, justify="right" if column == "attempts" else "left")
    for (_, r), (_, d) in zip(rates.iterrows(), damage.iterrows(), strict=True):
        table.add_row(
            r.attacker, r.attack, r.defender, f"{r.attempts:,}",
            _rate(r.hit_rate, r.hit_rate_ci95_lo, r.hit_rate_ci95_hi),
            _rate(r.crit_rate, r.crit_rate_ci95_lo, r.crit_rate_ci95_hi),
            _mean(d.mean_damage, d.mean_damage_ci95_lo, d.mean_damage_ci95_hi),
        )  # fmt: skip
    return table


def combatants_table(result: Result) -> Table:
    """Down rate and median time-to-down (Kaplan–Meier, in rounds) of every combatant,
    its event rates and, where statuses deal damage, its status damage per encounter."""
    table = Table(title="time-to-down (rounds; censored = never downed)")
    statuses = result.status_damage() if result.layout.statuses else None
    for column in ("combatant", "side", "down rate", "median round", "censored",
                   *(f"{e} rate" for e in result.layout.events),
                   *(["status dmg/enc"] if statuses is not None else [])):  # fmt: skip
        table.add_column(column)
    for c, row in result.combatants().iterrows():
        median = "not reached" if pd.isna(row.median_round) else f"{row.median_round:.0f}"
        cells = [
            row.combatant, row.side,
            _rate(row.down_rate, row.down_rate_ci95_lo, row.down_rate_ci95_hi),
            median, f"{row.censored:,}",
            *(f"{row[f'{e}_rate']:.3f}" for e in result.layout.events),
        ]  # fmt: skip
        if statuses is not None:
            s = statuses.iloc[int(c)]
            cells.append(_mean(s.mean_status_damage, s.mean_status_damage_ci95_lo,
                               s.mean_status_damage_ci95_hi))  # fmt: skip
        table.add_row(*cells)
    return table


def sides_table(result: Result) -> Table:
    """Win rate of each side and the draw rate."""
    table = Table(title=f"outcome (mean length {result.mean_rounds():.2f} rounds)")
    table.add_column("side")
    table.add_column("win rate")
    for _, row in result.win_rates().iterrows():
        table.add_row(row.side, _rate(row.win_rate, row.win_rate_ci95_lo, row.win_rate_ci95_hi))
    return table


def print_result(result: Result) -> None:
    """Print the three tables of a run, headed by its identity (seed, n, rules)."""
    console.print(f"[bold]{result.scenario}[/bold] · rules {result.rules} · "
                  f"{result.encounters:,} encounters · seed {result.seed}")  # fmt: skip
    console.print(attacks_table(result))
    console.print(combatants_table(result))
    console.print(sides_table(result))


# -- exact answers and the --check comparison ---------------------------------------------


def exact_attacks_table(solved: ExactResult) -> Table:
    """Exact hit rate, crit rate and mean damage of every solved pair (fresh defender)."""
    table = Table(title=f"{solved.scenario} · attacks (exact, against a fresh defender)")
    for column in ("attacker", "attack", "defender", "hit rate", "crit rate", "mean damage"):
        table.add_column(column)
    for p in solved.pairs:
        table.add_row(p.attacker, p.attack, p.defender, f"{p.hit_rate:.5f}",
                      f"{p.crit_rate:.5f}", f"{p.mean_damage:.4f}")  # fmt: skip
    return table


def exact_duel_table(duel: DuelExact) -> Table:
    """The duel defender's exact time-to-down: mean, sd, median, P(down by the cap)."""
    table = Table(title="time-to-down (exact, rounds)")
    for column in ("combatant", "side", "mean", "sd", "median", "down by round cap"):
        table.add_column(column)
    median = "not reached" if duel.median is None else str(duel.median)
    table.add_row(duel.defender, duel.side, f"{duel.mean:.5f}", f"{duel.variance ** 0.5:.4f}",
                  median, f"{float(duel.pmf.sum()):.6f}")  # fmt: skip
    return table


def print_refusals(refusals: list[tuple[str, str]], title: str, hint: str = "") -> None:
    """List what has no exact answer, each with the feature that prevents it."""
    if not refusals:
        return
    console.print(f"[bold]{title}[/bold] ({len(refusals)}{hint}):")
    for what, reason in refusals:
        console.print(f"  - {what}: {reason}", markup=False, highlight=False)


def print_exact(solved: ExactResult) -> None:
    """Print an exact answer: attacks, the duel's time-to-down, and what was refused."""
    from simlab.exact.engine import describe

    console.print(f"[bold]{solved.scenario}[/bold] · rules {solved.rules} · exact")
    if solved.pairs:
        console.print(exact_attacks_table(solved))
    if solved.duel is not None:
        console.print(exact_duel_table(solved.duel))
    refusals = [(describe(s), r) for s, r in solved.refusals]
    print_refusals(refusals, "not solved exactly", "; use `simlab run` to simulate them")


def _check_cell(value: float, digits: int) -> str:
    return f"{value:.{digits}f}" if pd.notna(value) else "—"


def check_table(check: pd.DataFrame) -> Table:
    """Simulated vs exact, per figure, in standard errors."""
    table = Table(title="check against the exact answers")
    for column in ("figure", "attacker", "attack", "defender", "simulated", "exact",
                   "std error", "z", "p"):  # fmt: skip
        table.add_column(
            column,
            justify="left" if column in ("figure", "attacker", "attack", "defender") else "right",
        )
    for r in check.itertuples():
        table.add_row(r.figure, r.attacker, r.attack, r.defender, _check_cell(r.simulated, 5),
                      _check_cell(r.exact, 5), _check_cell(r.std_error, 5),
                      f"{r.z:+.2f}", f"{r.p_value:.3g}")  # fmt: skip
    return table


def print_check(check: pd.DataFrame) -> None:
    """Print the ``--check`` table, the figures not compared, and the verdict line."""
    from simlab.exact.engine import check_verdict

    if len(check):
        console.print(check_table(check))
    print_refusals(list(check.attrs.get("skipped", [])), "not checked")
    console.print(f"check: {check_verdict(check)}", markup=False, highlight=False)


# -- balance specs and the drift gate (simlab check / report) ------------------------------


def specs_table(specs: pd.DataFrame) -> Table:
    """Each spec with its measured figure, 95% interval, sample size and verdict."""
    table = Table(title="balance specs (expect:)")
    for column in ("scenario", "rules", "spec", "measured [95%]", "n", "verdict"):
        table.add_column(column, justify="right" if column == "n" else "left")
    for s in specs.itertuples():
        digits = 0 if s.figure == "median_time_to_down" else 3
        measured = (
            "—"
            if pd.isna(s.measured)
            else (
                f"{_cell(s.measured, digits)} [{_cell(s.ci_lo, digits)}, {_cell(s.ci_hi, digits)}]"
            )
        )
        verdict = "[green]PASS[/green]" if s.verdict == "pass" else "[bold red]FAIL[/bold red]"
        if s.borderline:
            verdict += " (borderline: interval crosses the bound)"
        spec = s.spec + (f" — {s.note}" if s.note else "")
        table.add_row(s.scenario, s.rules, spec, measured, f"{s.n:,}", verdict)
    return table


def _cell(x: float, digits: int) -> str:
    return "not reached" if x == float("inf") else f"{x:.{digits}f}"


def print_specs(specs: pd.DataFrame) -> None:
    """Print the spec table and a one-line verdict."""
    if specs.empty:
        console.print("check: no expect: entries in these scenarios")
        return
    console.print(specs_table(specs))
    failed = int((specs.verdict == "fail").sum())
    line = (f"check: {failed} of {len(specs)} specs failed" if failed
            else f"check: all {len(specs)} specs pass")  # fmt: skip
    console.print(line, markup=False, highlight=False)


def print_drift(drift: DriftReport, baseline: str) -> None:
    """The drift gate's output: the drifted figures first, then a table of the figures that
    are statistically different (drifted, or changed within tolerance); every figure
    compared is in the report files."""
    from simlab.report.render import DRIFT_HEADER, drift_cells, drift_lines

    lines = drift_lines(drift)
    if lines:
        console.print(
            f"[bold red]DRIFT[/bold red]: {len(lines)} figure(s) moved from the "
            f"baseline {baseline} (Holm p < {drift.alpha:g} and beyond tolerance):"
        )
        for line in lines:
            console.print(f"  - {line}", markup=False, highlight=False)
    else:
        console.print(
            f"no drift from the baseline {baseline} ({len(drift.table)} figures compared)",
            markup=False,
            highlight=False,
        )
    for note in drift.notes:
        console.print(f"  note: {note}", markup=False, highlight=False)
    moved = drift.table[drift.table.significant | drift.table.drifted]
    if moved.empty:
        return
    table = Table(title=f"{len(moved)} of {len(drift.table)} figures statistically different "
                        "from the baseline (all of them: report.md)")  # fmt: skip
    for column in ("scenario", "rules", *DRIFT_HEADER):
        table.add_column(column)
    for row in moved.itertuples():
        table.add_row(row.scenario, row.rules, *drift_cells(row))
    console.print(table)
