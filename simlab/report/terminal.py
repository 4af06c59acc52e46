"""Terminal output: rich tables of a result and a progress bar for long runs.

When standard output is not a terminal (CI logs, pipes), no live bar is drawn: one plain
line is printed when the run finishes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pandas as pd
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from simlab.analysis.result import Result

# Not a terminal (CI logs, pipes): a fixed width wide enough for the tables.
console = Console() if sys.stdout.isatty() else Console(width=150)


@contextmanager
def progress(total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar over ``total`` encounters; yields the function that advances it."""
    if not sys.stdout.isatty():
        yield lambda _done: None
        console.print(f"simulated {total:,} encounters")
        return
    count = TextColumn("{task.completed:,}/{task.total:,}")
    columns = (TextColumn("simulating"), BarColumn(), count, TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("run", total=total)
        yield lambda done: bar.advance(task, done)


def _rate(value: float, lo: float, hi: float) -> str:
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


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
            f"{d.mean_damage:.2f} [{d.mean_damage_ci95_lo:.2f}, {d.mean_damage_ci95_hi:.2f}]",
        )  # fmt: skip
    return table


def combatants_table(result: Result) -> Table:
    """Down rate and median time-to-down (Kaplan–Meier, in rounds) of every combatant."""
    table = Table(title="time-to-down (rounds; censored = never downed)")
    for column in ("combatant", "side", "down rate", "median round", "censored",
                   *(f"{e} rate" for e in result.layout.events)):  # fmt: skip
        table.add_column(column)
    for _, row in result.combatants().iterrows():
        median = "not reached" if pd.isna(row.median_round) else f"{row.median_round:.0f}"
        table.add_row(
            row.combatant, row.side,
            _rate(row.down_rate, row.down_rate_ci95_lo, row.down_rate_ci95_hi),
            median, f"{row.censored:,}",
            *(f"{row[f'{e}_rate']:.3f}" for e in result.layout.events),
        )  # fmt: skip
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
