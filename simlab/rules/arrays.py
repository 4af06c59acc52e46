"""Array-building helpers shared by the rule systems' ``compile`` modules.

Every system hands its kernels int64 arrays with one row per field (``C_*``, ``A_*``,
``G_*`` constants) and one column per combatant or attack; these build them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


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
