"""What every test starts from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

#: Files run first, in this order (pytest-xdist hands each process whole files, in the
#: order collected). Each rule system's roll-by-roll file compiles that system's traced
#: kernel, which ``make test`` plays every run on: started first, the two processes
#: compile different kernels instead of both compiling the one the first files in
#: alphabetical order use (20 s of CPU twice, measured from a fresh clone); the longest
#: files follow, so that none is left to one process at the end.
FIRST_FILES = (
    "rules/test_ss_rules.py",
    "rules/test_glitters_rules.py",
    "rules/test_tiers_rules.py",
    "rules/test_zones_rules.py",
    "rules/test_draft1_rules.py",
    "cli/test_cli.py",
    "tuning/test_tune.py",
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
