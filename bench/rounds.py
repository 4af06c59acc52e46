"""Summaries of a benchmark repeated in rounds (``bench_duels``, ``bench_scenarios``).

On a shared machine one round says little: over minutes the same run moves by 10-15%.
Repeated with ``--rounds R``, a benchmark prints each round as it goes and then, per
figure, the median of the rounds, their range and in how many the figure met its target.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence


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
