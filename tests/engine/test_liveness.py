"""numba's liveness on bit sets (``simlab/engine/liveness.py``) gives numba's own sets.

Compared with numba's ``compute_live_map`` on random control-flow graphs (loops, joins,
blocks nobody reaches, blocks that reach nothing) and on the IR of simlab's own
kernels, and installed only where numba's is the function it was checked against.
"""

from __future__ import annotations

import random

import numba
import pytest
from numba.core import analysis, ir
from numba.core.compiler import run_frontend
from numba.core.controlflow import CFGraph

from simlab.engine import jit, liveness
from simlab.rules import rule_module

READ = (0, 60) <= tuple(int(part) for part in numba.__version__.split(".")[:2]) < (0, 69)


def numba_own():
    """numba's ``compute_live_map``, whether or not simlab's is installed."""
    installed = analysis.compute_live_map is liveness.compute_live_map
    return liveness.REPLACED[0] if installed else analysis.compute_live_map


def random_graph(rng: random.Random):
    """A random CFG of 1-40 blocks (entry 0) with random use and def sets."""
    n = rng.randint(1, 40)
    cfg = CFGraph()
    for label in range(n):
        cfg.add_node(label)
    for label in range(n):
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
            cfg.add_edge(label, rng.randrange(n))  # back edges and self loops included
    cfg.set_entry_point(0)
    cfg.process()
    names = [f"v{i}" for i in range(rng.randint(1, 60))]
    use = {label: set(rng.sample(names, rng.randint(0, min(6, len(names))))) for label in range(n)}
    defs = {label: set(rng.sample(names, rng.randint(0, min(6, len(names))))) for label in range(n)}
    return cfg, dict.fromkeys(range(n)), use, defs


@pytest.mark.parametrize("seed", range(300))
def test_random_graphs_give_numba_own_sets(seed):
    cfg, blocks, use, defs = random_graph(random.Random(seed))
    expected = numba_own()(cfg, blocks, use, defs)
    got = liveness.compute_live_map(cfg, blocks, use, defs)
    assert got == expected
    assert list(got) == list(blocks)


def some_graph_has_unreachable_blocks():
    for seed in range(300):
        cfg, blocks, _, _ = random_graph(random.Random(seed))
        if set(cfg.topo_order()) != set(blocks):
            return True
    return False


def test_the_random_graphs_include_blocks_nobody_reaches():
    assert some_graph_has_unreachable_blocks()


KERNELS = [
    ("glitters-d20", "resolve_attack"),
    ("glitters-d20", "take_turn"),
    ("opposed-tiers", "play_encounter"),
    ("zones-3d6", "play_encounter"),
    ("shattered-spirits", "play_encounters"),
    ("shattered-spirits", "duel_loop"),
    ("shattered-spirits-draft1", "play_encounter"),
]


def kernel_ir(rules: str, name: str):
    """The untyped IR of one of simlab's kernels (no inlining), with a block added that
    nobody jumps to and that jumps into the function."""
    func_ir = run_frontend(getattr(rule_module(rules, "kernels"), name).py_func)
    blocks = dict(func_ir.blocks)
    target = max(blocks)
    loc = blocks[target].loc
    orphan = ir.Block(blocks[target].scope, loc)
    orphan.append(ir.Jump(target, loc))
    blocks[target + 1000] = orphan
    return blocks


@pytest.mark.parametrize(("rules", "name"), KERNELS)
def test_kernel_ir_gives_numba_own_sets(rules, name):
    blocks = kernel_ir(rules, name)
    cfg = analysis.compute_cfg_from_blocks(blocks)
    usedefs = analysis.compute_use_defs(blocks)
    expected = numba_own()(cfg, blocks, usedefs.usemap, usedefs.defmap)
    assert sum(map(len, expected.values())) > 20  # a kernel with variables live across blocks
    assert liveness.compute_live_map(cfg, blocks, usedefs.usemap, usedefs.defmap) == expected


def test_installed_on_checked_numba_versions():
    if not READ:
        pytest.skip(f"numba {numba.__version__}: simlab leaves its liveness as it is")
    jit.speed_up_compiles()
    assert analysis.compute_live_map is liveness.compute_live_map
    assert liveness.install()  # a second time changes nothing
    assert len(liveness.REPLACED) == 1


def test_not_installed_over_a_function_it_was_not_checked_against(monkeypatch):
    def older(cfg, blocks, var_use_map, var_def_map):  # visits every block, not topo_order
        return {}

    older.__module__ = analysis.__name__  # numba's, but not the version read
    monkeypatch.setattr(analysis, "compute_live_map", older)
    assert not liveness.install()
    assert analysis.compute_live_map is older
