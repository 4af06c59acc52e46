"""numba's variable liveness, worked out on bit sets: shorter first runs (issue 19).

After each pass that changes a function's IR (each inlining, each rewrite, the
legalisation before lowering) numba works out which variables are live at the entry of
every block (``numba.core.analysis.compute_live_map``). It does so on Python sets of
variable names, block after block, until nothing changes. On a rule system's one large
kernel, 290-560 blocks and 2,000-3,700 variables once everything is inlined, that
took 0.9-2.3 s of each system's first run, 7.8 s of the five together (measured, numba
0.68, README "Design notes").

:func:`compute_live_map` solves the same equations with one Python integer a block, one
bit a variable, so that a union of thousands of names is one machine-word loop in C, and
returns the same sets. numba's own is the least solution of, for every block ``b``
reachable from the entry (``cfg.topo_order()``; no other block takes part):

- ``reach[b]``: the variables used or defined in ``b`` or in any block it can be reached
  from, ``use[b] | def[b] | reach[p]`` for every predecessor ``p``;
- ``live[b]``: the variables live at its entry, ``use[b]``, and for every successor
  ``s`` what is live at the entry of ``s``, reached at ``b`` and not defined in ``b``:
  ``live[s] & reach[b] - def[b]``.

Both are solved by iterating to the fixed point, which does not depend on the order
the blocks are visited in. :func:`install` puts it in numba's place, on the numba
versions whose function it was checked against (``tests/engine/test_liveness.py``
compares the two on random graphs and on simlab's kernels).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np


def compute_live_map(
    cfg: Any, blocks: Mapping[int, Any], var_use_map: Mapping[int, set[str]],
    var_def_map: Mapping[int, set[str]],
) -> dict[int, set[str]]:  # fmt: skip
    """The variables live at the entry of each block, as numba's ``compute_live_map``.

    Parameters
    ----------
    cfg : numba.core.controlflow.CFGraph
        The control-flow graph of ``blocks``.
    blocks : mapping
        The function's IR blocks by label.
    var_use_map, var_def_map : mapping of set of str
        By block label, the variables each block uses before defining them, and those it
        defines (``numba.core.analysis.compute_use_defs``).

    Returns
    -------
    dict of set of str
        By block label, in the order of ``blocks``, the names of the variables live at
        the block's entry.
    """
    names: list[str] = []
    index: dict[str, int] = {}
    use = {label: _bits(var_use_map[label], index, names) for label in blocks}
    defined = {label: _bits(var_def_map[label], index, names) for label in blocks}
    order = cfg.topo_order()
    reach = _reach(cfg, order, use, defined)
    live = _live(cfg, order, use, defined, reach)
    n_bytes = (len(names) + 7) // 8
    return {label: _names(live[label], names, n_bytes) for label in blocks}


def _bits(variables: Iterable[str], index: dict[str, int], names: list[str]) -> int:
    """``variables`` as a bit set, numbering names not seen before."""
    bits = 0
    for name in variables:
        number = index.get(name)
        if number is None:
            number = index[name] = len(names)
            names.append(name)
        bits |= 1 << number
    return bits


def _reach(
    cfg: Any, order: list[int], use: dict[int, int], defined: dict[int, int]
) -> dict[int, int]:
    """By block, the variables used or defined in it or in a block it can be reached from."""
    successors = {label: [s for s, _ in cfg.successors(label)] for label in order}
    reach: dict[int, int] = {}
    changed = True
    while changed:
        changed = False
        for label in order:
            here = reach[label] = reach.get(label, 0) | use[label] | defined[label]
            for successor in successors[label]:
                before = reach.get(successor, 0)
                if here & ~before:
                    reach[successor] = before | here
                    changed = True
    return reach


def _live(
    cfg: Any, order: list[int], use: dict[int, int], defined: dict[int, int],
    reach: dict[int, int],
) -> dict[int, int]:  # fmt: skip
    """By block, the variables live at its entry (pushed back from each successor)."""
    predecessors = {label: [p for p, _ in cfg.predecessors(label)] for label in order}
    live = dict(use)
    changed = True
    while changed:
        changed = False
        for label in reversed(order):
            here = live[label]
            for predecessor in predecessors[label]:
                before = live[predecessor]
                more = here & reach.get(predecessor, 0) & ~defined[predecessor] & ~before
                if more:
                    live[predecessor] = before | more
                    changed = True
    return live


def _names(bits: int, names: list[str], n_bytes: int) -> set[str]:
    """The names of the variables in bit set ``bits``."""
    if not bits:
        return set()
    flags = np.unpackbits(np.frombuffer(bits.to_bytes(n_bytes, "little"), np.uint8),
                          bitorder="little")  # fmt: skip
    return {names[i] for i in np.flatnonzero(flags)}


#: numba's own function, once :func:`install` has put :func:`compute_live_map` in its place.
REPLACED: list[Any] = []


def install() -> bool:
    """Put :func:`compute_live_map` in numba's place, where numba's is the one it was
    checked against (it visits only the blocks of ``cfg.topo_order()``; older numba
    visited every block, which gives other sets for unreachable ones). Returns whether
    it is installed; installing again changes nothing. The caller checks numba's
    version (``jit``)."""
    from numba.core import analysis

    current = analysis.compute_live_map
    if current is compute_live_map:
        return True
    code = getattr(current, "__code__", None)
    if current.__module__ != analysis.__name__ or code is None:
        return False
    if "topo_order" not in code.co_names:
        return False
    REPLACED.append(current)
    analysis.compute_live_map = compute_live_map
    return True
