"""A trace's rows, encounter by encounter, read from the trace once.

``frame.groupby("encounter")`` builds a DataFrame per encounter, and ``rows_of`` then
reads every column of each one: for a replay of thousands of small encounters that is
most of its time. Here the whole trace is read once and its rows are split by
encounter, giving the same rows in the same order.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from tests.support import rows_of


def encounters(frame: pd.DataFrame) -> list[list[Any]]:
    """``[rows_of(rows) for _, rows in frame.groupby("encounter", sort=True)]``.

    Parameters
    ----------
    frame
        A trace, or some of its rows, with an ``encounter`` column.

    Returns
    -------
    list of list
        One list of rows (the named tuples of ``rows_of``: ``Index`` first, then the
        columns) per encounter present, by encounter number; within an encounter the
        rows keep their order in ``frame``.
    """
    by_encounter: dict[int, list[Any]] = {}
    for row in rows_of(frame):
        by_encounter.setdefault(row.encounter, []).append(row)
    return [by_encounter[k] for k in sorted(by_encounter)]
