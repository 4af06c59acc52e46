"""How wide printed output is laid out: one rule for the tables (rich, in
:mod:`simlab.report.terminal`) and for the lines ``simlab validate`` prints without rich
(it imports nothing it does not use, README "Targets")."""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Iterable, Sequence

#: The narrowest width tables are laid out for: a terminal (or ``COLUMNS``) narrower than
#: this gets lines that wrap, as rich cannot lay a table out in fewer columns than it has.
NARROWEST = 40


def fits_a_width() -> bool:
    """Whether output is laid out to a width: it goes to a terminal, or ``COLUMNS`` says
    how wide. Otherwise (CI logs, pipes) a line is not broken for a width."""
    return sys.stdout.isatty() or bool(os.environ.get("COLUMNS"))


def broken_at_spaces(line: str, width: int, indent: str = "", whole: Iterable[str] = ()) -> str:
    """``line`` broken at spaces into lines of at most ``width`` columns where output is
    laid out to a width (:func:`fits_a_width`), the lines after the first starting with
    ``indent`` (under a list item's text); a word longer than that (a path) is kept
    whole on a line of its own, and hyphenated names are not split, nor the names in
    ``whole`` at a space inside them (``Raider Chief``)."""
    return wrapped(line, width, indent, whole) if fits_a_width() else line


def wrapped(line: str, width: int, indent: str = "", whole: Iterable[str] = ()) -> str:
    """``line`` broken at spaces into lines of at most ``width`` columns (at least
    :data:`NARROWEST`), as :func:`broken_at_spaces` breaks it, whatever the output."""
    return textwrap.fill(_glued(line, whole), max(width, NARROWEST), subsequent_indent=indent,
                         break_long_words=False,
                         break_on_hyphens=False).replace(_GLUE, " ")  # fmt: skip


#: What stands for a space inside a name while a line is broken (never in printed text).
_GLUE = "\x00"


def words_keeping(text: str, whole: Iterable[str] = ()) -> list[str]:
    """The words of ``text``, each name of ``whole`` that holds a space one word with it
    (``Raider Chief's``): the parts :func:`packed` breaks a sentence between."""
    return [word.replace(_GLUE, " ") for word in _glued(text, whole).split(" ") if word]


def _glued(text: str, whole: Iterable[str]) -> str:
    """``text`` with the spaces inside each name of ``whole`` glued (:data:`_GLUE`), the
    longest names first (``Raider Chief`` before ``Raider``), and a dash to the word
    before it: ``0.95 —`` ends a line, never ``— all three copies pooled`` starts one."""
    for name in sorted({n for n in whole if " " in n}, key=len, reverse=True):
        text = text.replace(name, name.replace(" ", _GLUE))
    return re.sub(r"(?<=\S) (?=—(?: |$))", _GLUE, text)


def packed(parts: Sequence[str], width: int, indent: str = "") -> list[str]:
    """``parts`` joined by spaces on lines of at most ``width`` columns, broken only
    between two parts: each part (a name, ``label value``, an item with the separator
    after it, ``seed 7 ·``) is kept whole, on a line of its own where it is longer than
    that. The lines after the first start with ``indent``."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += f" {part}"
        else:
            lines.append(f"{indent if lines else ''}{part}")
    return lines


def items(*groups: str | Sequence[str], separator: str = "·") -> list[str]:
    """The parts (:func:`packed`) of a line of items joined by `` · ``, the separator
    ending the part before it so that a line breaks only after it: each group is an
    item kept whole or the parts of one (:func:`listed`)."""
    parts: list[str] = []
    for k, group in enumerate(groups):
        within = [group] if isinstance(group, str) else list(group)
        if k + 1 < len(groups):
            within[-1] += f" {separator}"
        parts += within
    return parts


def listed(label: str, values: Sequence[str]) -> list[str]:
    """The parts (:func:`packed`) of ``label v1, v2, v3``: broken only after a comma,
    every value whole and the label kept with the first."""
    parts = [f"{v}," for v in values[:-1]] + [str(values[-1])] if values else [""]
    return [f"{label} {parts[0]}".strip(), *parts[1:]]


def at_separators(text: str) -> list[str]:
    """The parts (:func:`packed`) of ``text``, a list in prose (``3,125 encounters per
    point (each run to precision 0.01, cap 100,000)``): broken only after a ``,`` or a
    ``;`` and its space, so that ``1,000`` and ``label value`` stay whole."""
    return re.split(r"(?<=[,;]) ", text)
