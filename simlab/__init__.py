"""simlab: Monte Carlo balance analysis for tabletop combat rules.

The public API (kept light to import: numba loads only when a simulation runs,
matplotlib only when something is plotted)::

    scn = simlab.load("scenarios/shattered-spirits/quickstart.yaml")
    res = simlab.simulate(scn, n=100_000, seed=7)
    res.hit_rates(); res.damage(); res.time_to_down(); res.win_rates()
    simlab.exact(scn).attacks()     # exact answers, no sampling
    simlab.plots.plot_time_to_down(res, ax=ax)   # plots take ax= and return what they drew
    sw = simlab.sweep(scn, vary={"Defender.guard": range(5)})   # tuning: same dice
    simlab.compare(scn, changes={"strike.profile[9]": 8}).figures
    found = simlab.tune(scn, "Defender.hp=5:60", "median_time_to_down:Defender=5")
    found.value; simlab.plot_tune(found, ax=ax)   # simlab.plot_sweep(sw, ...) likewise
    simlab.check(res)               # the scenario's expect: specs, simlab check's table
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# Not "report": that name is the simlab.report subpackage.
_API = ("load", "loads", "simulate", "write_results", "run_scenario", "run_scenarios",
        "write_report", "load_results", "save_results", "override", "sweep", "compare",
        "write_sweep", "write_compare", "tune", "write_tune", "check")  # fmt: skip
_PLOTS = ("plot_damage_pmf", "plot_damage_at_least", "plot_time_to_down", "plot_survival",
          "plot_hit_rates", "plot_win_rates")  # fmt: skip

#: The tuning plots, in simlab.report.tuning (which loads matplotlib and jinja2).
_TUNING_PLOTS = ("plot_sweep", "plot_tune")

__all__ = ["__version__", "exact", "plots", *_TUNING_PLOTS, *_API, *_PLOTS]


def __dir__() -> list[str]:
    """The public API, for tab completion (the names load lazily, so ``globals()`` lacks
    them), without this module's own imports (``Any``, ``annotations``)."""
    return sorted({*globals(), *__all__} - {"Any", "annotations"})


def __getattr__(name: str) -> Any:
    if name in ("exact", "plots"):  # subpackage (callable as simlab.exact.engine.exact) / module
        import importlib

        return importlib.import_module("simlab.exact" if name == "exact" else
                                       "simlab.report.plots")  # fmt: skip
    if name in _API:
        from simlab import api

        return getattr(api, name)
    if name in _PLOTS:
        from simlab.report import plots

        return getattr(plots, name)
    if name in _TUNING_PLOTS:
        from simlab.report import tuning

        return getattr(tuning, name)
    raise AttributeError(f"module 'simlab' has no attribute {name!r}")
