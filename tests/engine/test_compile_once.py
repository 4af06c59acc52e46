"""The first run's wait: each kernel is compiled once per argument type.

A numba habit would compile the same kernel several times (simlab/engine/jit.py): a
constant argument typed as a literal, one version per constant. It doubled the first run
of a scenario (as did the index of a ``prange`` loop, typed first as int64, then as
uint64, before the block kernels left ``prange`` for a pool of threads); this test keeps
it out. Each scenario runs in a fresh process, as a user's
first run does: in the test process, other tests call kernels with other types.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {
    "opposed-tiers": "scenarios/opposed-tiers/party-fight.yaml",
    "opposed-tiers duel": "scenarios/benchmarks/opposed-tiers-duel.yaml",
    "zones-3d6": "scenarios/zones-3d6/skirmish.yaml",
    "zones-3d6 duel": "scenarios/zones-3d6/training-duel.yaml",
    "glitters-d20": "scenarios/glitters-d20/party-vs-monsters.yaml",
    "glitters-d20 duel": "scenarios/glitters-d20/training-duel.yaml",
    "shattered-spirits-draft1": "scenarios/shattered-spirits-draft1/techniques-3v3.yaml",
    "shattered-spirits-draft1 duel": "scenarios/shattered-spirits-draft1/training-dummy.yaml",
    "shattered-spirits": "scenarios/shattered-spirits/party-3v3.yaml",
    "shattered-spirits duel": "scenarios/benchmarks/ss-duel.yaml",
}
PROBE = """
import json, sys
from simlab import api
from simlab.engine import rng
from simlab.rules import rule_module
scenario = api.load(sys.argv[1])
api.simulate(scenario, n=200, seed=3)
modules = (rule_module(scenario.rules, "kernels"), rng)
print(json.dumps({f"{m.__name__}.{name}": [str(s) for s in obj.signatures]
                  for m in modules for name, obj in vars(m).items()
                  if hasattr(obj, "signatures") and obj.__module__ == m.__name__}))
"""


@pytest.mark.slow  # a fresh process per scenario: about a minute from an empty cache
@pytest.mark.parametrize("key", list(SCENARIOS))
def test_every_kernel_has_one_version_per_argument_type(key: str) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / SCENARIOS[key])],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    compiled = json.loads(done.stdout.splitlines()[-1])
    assert any(name.endswith("chunk") and s for name, s in compiled.items()), compiled
    literal = {n: s for n, s in compiled.items() if any("Literal" in x for x in s)}
    assert not literal, literal
    twice = {n: s for n, s in compiled.items() if len(s) > 1}
    assert not twice, twice
