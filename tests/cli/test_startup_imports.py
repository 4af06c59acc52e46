"""Commands import only what they use (issue 19: start-up time).

Each command runs in a fresh interpreter, which then lists the modules it imported:
``validate`` needs neither numpy, pandas, scipy nor numba; a ``run`` needs pandas and
numba but not scipy.stats or scipy.special (0.3-0.5 s to import), matplotlib, Dask, the
exact engine or the saved-results module, and a run whose kernels come from the cache
does not refresh numba's compiler (numpy's linear algebra and scipy.linalg with it:
0.4-0.6 s).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Slow tier (make test-slow): starts a fresh interpreter for each command to list its imports.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"

_CHILD = """
import sys
from simlab.cli import main
main(sys.argv[1:], standalone_mode=False)
print("MODULES", " ".join(sorted(sys.modules)))
"""

# After a run whose kernels came from the cache, the user's own numba code still
# compiles with all of numba: here numpy's linear algebra, which the light load skipped.
_USER_KERNEL_AFTER_RUN = """
import sys
import numba
import numpy as np
from simlab.cli import main
main(sys.argv[1:], standalone_mode=False)
light = "numba.np.linalg" not in sys.modules
norm = numba.njit(lambda a: np.linalg.norm(a))(np.array([3.0, 4.0]))
print("LIGHT", light, "NORM", norm)
"""


def imported_by(*args: str) -> set[str]:
    """Top-level and dotted names of every module imported by ``simlab ARGS``."""
    out = subprocess.run([sys.executable, "-c", _CHILD, *args], check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout  # fmt: skip
    line = next(x for x in out.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:])


def test_validate_imports_no_numpy_pandas_scipy_or_numba() -> None:
    modules = imported_by("validate", str(DUEL))
    assert "simlab.scenario.load" in modules
    assert not {"numpy", "pandas", "scipy", "numba", "pyarrow", "rich"} & modules
    assert "logging" not in modules  # only a run that compiles says so through it (10 ms)


def test_run_imports_no_scipy_stats_matplotlib_dask_or_exact_engine() -> None:
    # -n 1000 leaves rare counts (critical hits, draws) in the tables: Clopper–Pearson
    # intervals and batch-means t quantiles are printed without scipy.special.
    modules = imported_by("run", str(DUEL), "-n", "1000")
    assert {"pandas", "numba"} <= modules  # it did simulate and print tables
    assert not {"scipy.stats", "scipy.special", "matplotlib", "distributed", "jinja2"} & modules
    assert not {"simlab.exact.engine", "simlab.report.results"} & modules


FIGHT = ROOT / "scenarios/benchmarks/ss-2v2.yaml"
PAGES_ONLY = {"scipy.stats", "matplotlib", "jinja2", "simlab.report.render"}


@pytest.mark.parametrize(
    "args",
    [
        ("sweep", str(FIGHT), "--vary", "Kaito.hp=20:22", "-n", "500"),
        ("compare", str(FIGHT), "--set", "Kaito.hp=30", "-n", "500"),
        ("tune", str(FIGHT), "--vary", "Kaito.hp=5:60", "--target", "win_rate:party=0.5",
         "-n", "500"),
    ],
    ids=["sweep", "compare", "tune"],
)  # fmt: skip
def test_tuning_commands_print_without_what_only_pages_need(args: tuple[str, ...]) -> None:
    # The pages' plots and templates (and the drift tests' scipy.stats, which the page
    # module brings in) took about 2 s to import; printing the tables needs none of it.
    modules = imported_by(*args)
    assert {"simlab.report.tuning_terminal", "pandas"} <= modules  # it did print tables
    assert not PAGES_ONLY & modules


def test_a_cached_run_loads_its_kernels_without_refreshing_numba() -> None:
    from simlab.engine.jit import LIGHT_CACHE_LOADS

    args = ["run", str(DUEL), "-n", "1000"]
    subprocess.run([sys.executable, "-m", "simlab", *args], check=True, capture_output=True,
                   cwd=ROOT)  # fmt: skip  # compiles, or finds the kernels cached
    out = subprocess.run([sys.executable, "-c", _USER_KERNEL_AFTER_RUN, *args], check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout  # fmt: skip
    assert f"LIGHT {LIGHT_CACHE_LOADS} NORM 5.0" in out


def test_the_api_still_offers_the_lazy_names() -> None:
    from simlab import api
    from simlab.exact.engine import exact
    from simlab.report.results import load_results, save_results

    assert (api.exact, api.load_results, api.save_results) == (exact, load_results, save_results)
