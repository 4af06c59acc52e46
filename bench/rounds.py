"""Benchmarks repeated in rounds (``bench_duels``, ``bench_scenarios``): their shared
command line and the summary of their rounds.

On a shared machine one round says little: over minutes the same run moves by 10-15%.
Repeated with ``--rounds R``, a benchmark prints each round as it goes and then, per
figure, the median of the rounds, their range and in how many the figure met its target.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence


def add_rounds(parser: argparse.ArgumentParser, repeated: str) -> None:
    """Give ``parser`` the ``--rounds R`` option: repeat ``repeated``, then summarise."""
    parser.add_argument("--rounds", type=int, default=1,
                        help=f"repeat {repeated}; then summarise each figure")  # fmt: skip


def parse_with_rounds(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The command line, options anywhere among the positional arguments; ``--rounds``
    below 1 is refused (exit code 2)."""
    args = parser.parse_intermixed_args()
    if args.rounds < 1:
        parser.error(f"expected --rounds of at least 1; got {args.rounds}")
    return args


def split_count(given: list[str], default: int) -> tuple[int, list[str]]:
    """The count and the names among the positional arguments: a whole number among them
    (``200_000`` allowed), wherever it stands, is the count (``default`` if none), the
    rest are names."""

    def is_count(g: str) -> bool:
        return g.replace("_", "").isdigit()

    counts = [int(g.replace("_", "")) for g in given if is_count(g)]
    return (counts[-1] if counts else default), [g for g in given if not is_count(g)]


def summary(
    name: str,
    figures: Sequence[float],
    target: float,
    shown: Callable[[float], str],
    width: int = 58,
) -> str:
    """One line: ``name`` (padded to ``width``), the median of ``figures``, their lowest and
    highest, and in how many of them the figure reached ``target`` (each figure written by
    ``shown``)."""
    met = sum(figure >= target for figure in figures)
    return (f"{name:<{width}} median {shown(statistics.median(figures))}  "
            f"({shown(min(figures))} to {shown(max(figures))})  "
            f"at target in {met}/{len(figures)} rounds")  # fmt: skip


def every_round(figures: dict[str, list[float]], target: float) -> int:
    """How many of the names in ``figures`` reached ``target`` in every round."""
    return sum(all(figure >= target for figure in each) for each in figures.values())
