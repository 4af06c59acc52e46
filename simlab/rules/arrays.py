"""Array-building helpers shared by the rule systems' ``compile`` modules.

Every system hands its kernels int64 arrays with one row per field (``C_*``, ``A_*``,
``G_*`` constants) and one column per combatant or attack; these build them the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

Answer = TypeVar("Answer")


def ints(values: Iterable[int]) -> np.ndarray:
    """A 1-D int64 array of ``values`` (globals, orders, index lists)."""
    return np.asarray(list(values), dtype=np.int64)


def field_rows(items: Sequence[Sequence[int]], n_fields: int) -> np.ndarray:
    """The (n_fields, len(items)) int64 array whose column ``i`` is ``items[i]``.

    Parameters
    ----------
    items : sequence of sequences of int
        One entry per combatant or attack, each with ``n_fields`` values.
    n_fields : int
        Values per item (also when there are no items).
    """
    return np.array(items, dtype=np.int64).reshape(len(items), n_fields).T.copy()


def records(rows: np.ndarray) -> np.ndarray:
    """``rows`` (one row per field, one column per combatant or attack, as
    :func:`field_rows` makes them) laid out flat, item by item: field ``f`` of item ``i``
    at ``i * n_fields + f``.

    A kernel reads it at a row width that is a constant of the system (its
    ``N_*_FIELDS``), so that a read needs the array's start alone: a two-dimensional
    array is read through its width held at run time, one value more to keep in a
    register or reload, for each such array (glitters-d20, README "Design notes").
    """
    return np.ascontiguousarray(rows.T).reshape(-1)


def attack_lists(lists: Iterable[Iterable[str]], names: list[str]) -> tuple[np.ndarray, list[int]]:
    """Each combatant's attacks (by index in ``names``) laid end to end, and where each
    combatant's attacks start: combatant ``c`` uses ``attack_list[starts[c]:…]``."""
    attack_list: list[int] = []
    starts: list[int] = []
    for attacks in lists:
        starts.append(len(attack_list))
        attack_list.extend(names.index(n) for n in attacks)
    return ints(attack_list), starts


def enemy_rows(side_of: Sequence[int]) -> np.ndarray:
    """Row ``c`` lists the combatants on other sides than combatant ``c``'s, in ascending
    order, padded with −1 to the longest row."""
    rows = [[d for d, s in enumerate(side_of) if s != mine] for mine in side_of]
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for c, r in enumerate(rows):
        out[c, : len(r)] = r
    return out


def per_params(question: Callable[[Any], Answer]) -> Callable[[Any], Answer]:
    """``question(p)``, a function of a compiled scenario's parameters alone, answered
    once for the last parameters asked about (the same object).

    Choosing a plain duel's kernel and making its working arrays ask the same questions
    of ``p`` many times over (which combatant attacks, the shape of its damage), each a
    walk over its arrays in Python; a run asks them of one ``p``. Nothing changes a
    compiled scenario's parameters in place, so the object is the key.
    """
    last: list[tuple[Any, Answer]] = []

    @functools.wraps(question)
    def answer(p: Any) -> Answer:
        remembered = last[:1]
        if remembered and remembered[0][0] is p:
            return remembered[0][1]
        value = question(p)
        last[:] = [(p, value)]
        return value

    return answer
