"""Benchmark: every scenario with each rule parameter moved off its default, one at a time.

Run with ``python -m bench.bench_options [n] [--threads T] [PATH…]`` from the repository
root (default ``n`` = 50,000 encounters a run, 2 threads, every ``*.yaml`` under
``scenarios/``; a folder stands for every ``*.yaml`` under it). The examples are what the
designers start from, and ``bench_scenarios`` times them as written; a designer's own
scenario is an example with some rule parameters changed (``params:``, ``--set
params.X=…``). This looks for a parameter that takes a scenario off its fast path.

Each parameter of the scenario's rule system that is a yes/no, a choice or a whole number
gets each other value (a yes/no flipped, every other choice, a number one above its
default, or one below at its bound); other parameters (dice) are skipped. The variant is
timed against the scenario as written in turns A-B-B-A, each turn the best of two runs of
``n`` encounters, so that the machine's speed, which moves from minute to minute, moves
both: the ratio is the variant's attacks/s over the scenario's. A variant the scenario's
other fields do not allow (``engagement: declared`` without declared foes, say) is listed
with the first line of its error. Each scenario ends with its slowest variant, and the
run with every variant below 20 M attacks/s (the issue-19 target) or below 0.7x.
"""

from __future__ import annotations

import argparse
import typing
from pathlib import Path
from typing import Any

import simlab
from bench.bench_scenarios import ROOT, best_speeds, scenarios_in, shown_path
from bench.rounds import split_count
from simlab.errors import InputError

DEFAULT_N = 50_000
TARGET_ATTACKS = 20e6
#: Below this share of the scenario's own speed a variant is listed at the end.
SLOW_RATIO = 0.7


def alternatives(field: Any) -> list[Any]:
    """The values other than the default that a rule parameter is tried with."""
    kind, default = field.annotation, field.default
    if kind is bool:
        return [not default]
    if typing.get_origin(kind) is typing.Literal:
        return [choice for choice in typing.get_args(kind) if choice != default]
    if kind is int:
        low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
        up, down = default + 1, default - 1
        if high is None or up <= high:
            return [up]
        return [down] if low is None or down >= low else []
    return []


def attacks_per_second(scenario: Any, n: int, threads: int) -> float:
    """Attacks resolved a second: the best of two runs of ``n`` encounters."""
    return best_speeds(scenario, n, threads, 2)[1]


def compared(variant: Any, scenario: Any, n: int, threads: int) -> tuple[float, float]:
    """(variant's attacks/s, its ratio to ``scenario``'s), timed A-B-B-A."""
    simlab.simulate(variant, n=1_000, threads=threads)  # compile or load, warm up
    a1 = attacks_per_second(variant, n, threads)
    b1 = attacks_per_second(scenario, n, threads)
    b2 = attacks_per_second(scenario, n, threads)
    a2 = attacks_per_second(variant, n, threads)
    return (a1 + a2) / 2, (a1 + a2) / (b1 + b2)


def survey(path: Path, n: int, threads: int) -> list[tuple[str, float, float]]:
    """Print and return (name=value, attacks/s, ratio) of every variant of one scenario."""
    scenario = simlab.load(path)
    simlab.simulate(scenario, n=1_000, threads=threads)
    written = attacks_per_second(scenario, n, threads)
    print(f"{shown_path(path)} ({scenario.rules}): {written / 1e6:.1f} M attacks/s as written")
    rows = []
    for name, field in type(scenario.params).model_fields.items():
        values = alternatives(field)
        if not values:
            kind = field.annotation.__name__
            print(f"    {name}: skipped ({kind}, not a yes/no, choice or number)")
        for value in values:
            label = f"{name}={value}"
            try:
                variant = simlab.override(scenario, {f"params.{name}": value})
            except InputError as err:  # the message after its file:line:col
                reason = str(err).splitlines()[0].split(": ", 1)[-1]
                print(f"    {label:<44} not allowed here: {reason[:100]}")
                continue
            speed, ratio = compared(variant, scenario, n, threads)
            rows.append((label, speed, ratio))
            print(f"    {label:<44} {speed / 1e6:7.1f} M attacks/s  {ratio:5.2f}x", flush=True)
    if rows:
        label, speed, ratio = min(rows, key=lambda row: row[2])
        print(f"    slowest: {label} at {ratio:.2f}x ({speed / 1e6:.1f} M attacks/s)")
    return rows


def main() -> None:
    """Survey every scenario named (default: all under ``scenarios/``), then list the
    variants below the target or below :data:`SLOW_RATIO` of their scenario."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("given", nargs="*", metavar="[n] [PATH ...]",
                        help=f"encounters a run (default {DEFAULT_N:,}), then scenarios or "
                             "folders (default: scenarios/)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    n, given = split_count(args.given, DEFAULT_N)
    folders = [Path(g) for g in given] or [ROOT / "scenarios"]
    paths = [path for folder in folders for path in scenarios_in(folder)]
    print(f"{n:,} encounters a run, {args.threads} threads, variant against the scenario A-B-B-A")
    flagged, count = [], 0
    for path in paths:
        for label, speed, ratio in survey(path, n, args.threads):
            count += 1
            if speed < TARGET_ATTACKS or ratio < SLOW_RATIO:
                flagged.append(f"{shown_path(path)} {label}: {speed / 1e6:.1f} M attacks/s, "
                               f"{ratio:.2f}x")  # fmt: skip
    print(f"{count} variants of {len(paths)} scenarios; below {TARGET_ATTACKS / 1e6:.0f} M "
          f"attacks/s or {SLOW_RATIO}x of their scenario: {len(flagged)}")  # fmt: skip
    for line in flagged:
        print(f"    {line}")


if __name__ == "__main__":
    main()
