"""What every test starts from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

#: Files run first, in this order (pytest-xdist hands each process whole files, in the
#: order collected; ``make test`` and ``make test-slow`` ask for that order). The slow
#: tier's two float checks, which compile every example's kernels afresh (about 4 minutes
#: each), start at once, one in each process: the kernels they save to the cache serve
#: the tests after them, which would otherwise compile them a second time. Each rule
#: system's roll-by-roll file compiles that system's traced kernel, which ``make test``
#: plays every run on: started next, the two processes compile different kernels
#: instead of both compiling the one the first files in alphabetical order use (20 s of
#: CPU twice, measured from a fresh clone). The longest files of either tier follow, so
#: that none is left to one process at the end. A file with no test of the tier run is
#: simply not there.
FIRST_FILES = (
    "engine/test_float_check_ss_tiers.py",
    "engine/test_float_check_d20_zones_draft1.py",
    "rules/test_ss_rules.py",
    "rules/test_glitters_rules.py",
    "rules/test_tiers_rules.py",
    "rules/test_zones_rules.py",
    "rules/test_draft1_rules.py",
    "cli/test_integrity.py",
    "cli/test_cli.py",
    "tuning/test_tune.py",
    "tuning/test_compare_rare.py",
    "report/test_drift_small_runs.py",
    "tuning/test_precision.py",
    "engine/test_compile_once.py",
    "test_docs.py",
    "engine/test_rng.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run :data:`FIRST_FILES` first; every other test keeps its place."""
    rank = {name: place for place, name in enumerate(FIRST_FILES)}

    def place(item: pytest.Item) -> int:
        return rank.get(item.path.relative_to(TESTS).as_posix(), len(rank))

    items.sort(key=place)


@pytest.fixture(autouse=True)
def terminal_of_no_width(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with no ``COLUMNS`` and the terminal's console made so (as a
    piped run makes it: wide enough for the wide tables).

    The console is made when ``simlab.report.terminal`` is first imported, under the
    ``COLUMNS`` of that moment: in a worker whose first import came inside a test that
    had set ``COLUMNS=60``, every later test printed at 60 columns, and tests that pass
    alone failed in the full suite (or in a shell with ``COLUMNS`` set). A test that
    wants a width sets ``COLUMNS`` and makes the console again
    (``tests.support.terminal_console``).
    """
    from simlab.report import terminal

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(terminal, "console", terminal._make_console())
    yield
