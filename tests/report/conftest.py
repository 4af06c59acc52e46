"""Pages several test modules of the report read, drawn once a session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from simlab import api
from simlab.report.render import render_report
from simlab.report.results import ScenarioRun

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def duel_sweep() -> Any:
    """ss-duel's defender's guard at 0 and 2: a duel whose Attacker no one attacks and
    whose defender's side makes no attack."""
    return api.sweep(ROOT / "scenarios/benchmarks/ss-duel.yaml", {"Defender.guard": [0, 2]},
                     n=2000, seed=3)  # fmt: skip


@pytest.fixture(scope="session")
def duel_sweep_pages(duel_sweep: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder :func:`duel_sweep`'s pages (``sweep.html``, ``sweep.md``) are written to;
    a test reads them, never writes there."""
    out = tmp_path_factory.mktemp("duel-sweep")
    api.write_sweep(duel_sweep, out)
    return out


@pytest.fixture(scope="session")
def skirmish_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[ScenarioRun, Path]:
    """zones-3d6's skirmish, 20,000 encounters of seed 6, and the folder its report is
    drawn in: the party wins most fights, so the Warden's median time-to-down is not
    reached. A test reads the folder, never writes there."""
    run = api.run_scenario(ROOT / "scenarios/zones-3d6/skirmish.yaml", n=20_000, seed=6)
    out = tmp_path_factory.mktemp("skirmish")
    render_report([run], out)
    return run, out
