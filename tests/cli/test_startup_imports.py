"""Commands import only what they use (issue 19: start-up time).

Each command runs in a fresh interpreter, which then lists the modules it imported:
``validate`` needs neither pandas, scipy nor numba; a ``run`` needs pandas and numba but
not scipy.stats (about 0.5 s to import), matplotlib, Dask, the exact engine or the
saved-results module.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"

_CHILD = """
import sys
from simlab.cli import main
main(sys.argv[1:], standalone_mode=False)
print("MODULES", " ".join(sorted(sys.modules)))
"""


def imported_by(*args: str) -> set[str]:
    """Top-level and dotted names of every module imported by ``simlab ARGS``."""
    out = subprocess.run([sys.executable, "-c", _CHILD, *args], check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout  # fmt: skip
    line = next(x for x in out.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:])


def test_validate_imports_no_pandas_scipy_or_numba() -> None:
    modules = imported_by("validate", str(DUEL))
    assert "simlab.scenario.load" in modules
    assert not {"pandas", "scipy", "numba", "pyarrow", "rich"} & modules


def test_run_imports_no_scipy_stats_matplotlib_dask_or_exact_engine() -> None:
    modules = imported_by("run", str(DUEL), "-n", "1000")
    assert {"pandas", "numba"} <= modules  # it did simulate and print tables
    assert not {"scipy.stats", "matplotlib", "distributed", "jinja2"} & modules
    assert not {"simlab.exact.engine", "simlab.report.results"} & modules


def test_the_api_still_offers_the_lazy_names() -> None:
    from simlab import api
    from simlab.exact.engine import exact
    from simlab.report.results import load_results, save_results

    assert (api.exact, api.load_results, api.save_results) == (exact, load_results, save_results)
