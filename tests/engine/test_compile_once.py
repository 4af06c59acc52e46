"""The first run's wait: each kernel is compiled once per argument type.

Two numba habits would compile the same kernel several times (simlab/engine/jit.py):
a constant argument typed as a literal (one version per constant) and the index of a
``prange`` loop typed first as int64, then as uint64. Both doubled the first run of a
scenario; this test keeps them out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab import api
from simlab.rules import rule_module

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {
    "opposed-tiers": "scenarios/opposed-tiers/party-fight.yaml",
    "zones-3d6": "scenarios/zones-3d6/skirmish.yaml",
    "glitters-d20": "scenarios/glitters-d20/party-vs-monsters.yaml",
    "shattered-spirits-draft1": "scenarios/shattered-spirits-draft1/techniques-3v3.yaml",
    "shattered-spirits": "scenarios/shattered-spirits/party-3v3.yaml",
}


@pytest.mark.parametrize("rules", list(SCENARIOS))
def test_every_kernel_has_one_version_per_argument_type(rules: str) -> None:
    api.simulate(api.load(ROOT / SCENARIOS[rules]), n=200, seed=3)
    from simlab.engine import rng

    kernels = rule_module(rules, "kernels")
    compiled = {
        f"{module.__name__}.{name}": obj.signatures
        for module in (kernels, rng)
        for name, obj in vars(module).items()
        if hasattr(obj, "signatures") and obj.__module__ == module.__name__
    }
    assert compiled, "no kernel was compiled"
    literal = {n: s for n, s in compiled.items() if any("Literal" in str(x) for x in s)}
    assert not literal, literal
    # Apart from kernels that tests call directly with other types, one version each.
    for name in (f"{kernels.__name__}.run_block", f"{rng.__name__}._start_batch"):
        assert len(compiled[name]) <= 1, (name, compiled[name])
    twice = {n: s for n, s in compiled.items() if len(s) > 1}
    assert not twice, twice
