"""How wide printed output is laid out: one rule for the tables (rich, in
:mod:`simlab.report.terminal`) and for the lines ``simlab validate`` prints without rich
(it imports nothing it does not use, README "Targets")."""

from __future__ import annotations

import os
import sys
import textwrap

#: The narrowest width tables are laid out for: a terminal (or ``COLUMNS``) narrower than
#: this gets lines that wrap, as rich cannot lay a table out in fewer columns than it has.
NARROWEST = 40


def fits_a_width() -> bool:
    """Whether output is laid out to a width: it goes to a terminal, or ``COLUMNS`` says
    how wide. Otherwise (CI logs, pipes) a line is not broken for a width."""
    return sys.stdout.isatty() or bool(os.environ.get("COLUMNS"))


def broken_at_spaces(line: str, width: int, indent: str = "") -> str:
    """``line`` broken at spaces into lines of at most ``width`` columns where output is
    laid out to a width (:func:`fits_a_width`), the lines after the first starting with
    ``indent`` (under a list item's text); a word longer than that (a path) is kept
    whole on a line of its own, and hyphenated names are not split."""
    return wrapped(line, width, indent) if fits_a_width() else line


def wrapped(line: str, width: int, indent: str = "") -> str:
    """``line`` broken at spaces into lines of at most ``width`` columns (at least
    :data:`NARROWEST`), as :func:`broken_at_spaces` breaks it, whatever the output."""
    return textwrap.fill(line, max(width, NARROWEST), subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False)  # fmt: skip
