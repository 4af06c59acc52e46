"""simlab: Monte Carlo balance analysis for tabletop combat rules.

The public API (kept light to import: numba loads only when a simulation runs)::

    scn = simlab.load("scenarios/shattered-spirits/quickstart.yaml")
    res = simlab.simulate(scn, n=100_000, seed=7)
    res.hit_rates(); res.damage(); res.time_to_down(); res.win_rates()
    simlab.exact(scn).attacks()     # exact answers, no sampling
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "exact", "load", "loads", "simulate", "write_results"]


def __getattr__(name: str) -> Any:
    if name == "exact":  # the subpackage, callable as simlab.exact.engine.exact
        import importlib

        return importlib.import_module("simlab.exact")
    if name in ("load", "loads", "simulate", "write_results"):
        from simlab import api

        return getattr(api, name)
    raise AttributeError(f"module 'simlab' has no attribute {name!r}")
