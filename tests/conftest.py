"""What every test starts from."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


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
