"""How wide printed output is laid out: one rule for the tables (rich, in
:mod:`simlab.report.terminal`) and for the lines ``simlab validate`` prints without rich
(it imports nothing it does not use, README "Targets")."""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Iterable, Sequence

#: What parts the items of a heading line (:func:`items`).
SEPARATOR = "·"
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
    ``whole`` at a space inside them (``Raider Chief``) where they fit a line: a name
    longer than that is broken at its spaces (:func:`_fitting`), as no line of words
    runs past the edge."""
    return wrapped(line, width, indent, whole) if fits_a_width() else line


def wrapped(line: str, width: int, indent: str = "", whole: Iterable[str] = ()) -> str:
    """``line`` broken at spaces into lines of at most ``width`` columns (at least
    :data:`NARROWEST`), as :func:`broken_at_spaces` breaks it, whatever the output."""
    width = max(width, NARROWEST)
    words = [_fitting(word, whole, width - len(indent)) for word in _glued(line, whole).split(" ")]
    lines = textwrap.fill(" ".join(words), width, subsequent_indent=indent,
                          break_long_words=False, break_on_hyphens=False)  # fmt: skip
    return lines.replace(f" {_FOLD}", "").replace(_FOLD, "").replace(_GLUE, " ")


#: What stands for a space inside a name while a line is broken (never in printed text).
_GLUE = "\x00"


def words_keeping(text: str, whole: Iterable[str] = ()) -> list[str]:
    """The words of ``text``, each name of ``whole`` that holds a space one word with it
    (``Raider Chief's``): the parts :func:`packed` breaks a sentence between."""
    return [word.replace(_GLUE, " ") for word in _glued(text, whole).split(" ") if word]


def _fitting(word: str, whole: Iterable[str], room: int) -> str:
    """``word`` of a glued line (:func:`_glued`) made to fit lines of ``room`` columns:
    where a name that fits is longer with what is written onto it
    (``median_time_to_down:Grand Duke Ferdinand of the Sunken Keep=8``), the line may
    fold before and after the name (:data:`_FOLD`); a name longer than a line is broken
    at its spaces, the shorter names inside it kept whole."""
    if len(word) <= room or _GLUE not in word:
        return word
    text = word.replace(_GLUE, " ")
    inside = sorted({n for n in whole if " " in n and n in text}, key=len, reverse=True)
    if not inside:
        return word
    longest, rest = inside[0], inside[1:]
    if len(longest) > room:
        return " ".join(_fitting(part, rest, room) for part in _glued(text, rest).split(" "))
    before, _, after = text.partition(longest)
    pieces = [_fitting(_glued(before, rest), rest, room), _glued(longest, [longest]),
              _fitting(_glued(after, inside), inside, room)]  # fmt: skip
    return f" {_FOLD}".join(piece for piece in pieces if piece)


#: Where a word may fold onto the next line without a space: written `` {_FOLD}`` in
#: the line :func:`wrapped` breaks, so that the break may fall there, and taken out after.
_FOLD = "\x01"


def _glued(text: str, whole: Iterable[str]) -> str:
    """``text`` with the spaces inside each name of ``whole`` glued (:data:`_GLUE`), the
    longest names first (``Raider Chief`` before ``Raider``), and a dash or a pair's
    arrow to the word before it: ``0.95 —`` ends a line, never ``— all three copies
    pooled`` starts one, nor ``→ Warden``."""
    for name in sorted({n for n in whole if " " in n}, key=len, reverse=True):
        text = text.replace(name, name.replace(" ", _GLUE))
    return re.sub(r"(?<=\S) (?=[—→](?: |$))", _GLUE, text)


def packed(parts: Sequence[str], width: int, indent: str = "",
           whole: Iterable[str] | None = None) -> list[str]:  # fmt: skip
    """``parts`` joined by spaces on lines of at most ``width`` columns, broken only
    between two parts: each part (a name, ``label value``, an item with the separator
    after it, ``seed 7 ·``) is kept whole, on a line of its own where it is longer than
    that; or, given the names to keep ``whole``, a part longer than a line is broken at
    its spaces but inside those (:func:`wrapped`: ``B: duel with Grand Duke Ferdinand
    of the Sunken Keep.hp=40,`` at 60 columns). The lines after the first start with
    ``indent``."""
    if whole is not None:
        parts = [piece for part in parts for piece in _pieces(part, width - len(indent), whole)]
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += f" {part}"
        else:
            lines.append(f"{indent if lines else ''}{part}")
    return lines


def _pieces(part: str, room: int, whole: Iterable[str]) -> list[str]:
    """``part`` as it is where it fits ``room`` columns, else its lines broken so."""
    return [part] if len(part) <= room else wrapped(part, room, whole=whole).split("\n")


def items(*groups: str | Sequence[str], separator: str = SEPARATOR) -> list[str]:
    """The parts (:func:`packed`) of a line of items joined by `` · ``, the separator
    ending the part before it so that a line breaks only after it (and, laid out by
    :func:`items_packed`, ends without it): each group is an item kept whole or the
    parts of one (:func:`listed`)."""
    parts: list[str] = []
    for k, group in enumerate(groups):
        within = [group] if isinstance(group, str) else list(group)
        if k + 1 < len(groups):
            within[-1] += f" {separator}"
        parts += within
    return parts


def items_packed(parts: Sequence[str], width: int, indent: str = "",
                 whole: Iterable[str] | None = None) -> list[str]:  # fmt: skip
    """The lines :func:`packed` lays the parts of a line of items (:func:`items`) out
    in, a line broken at a separator ending without it: the break parts the items
    there, and ``seed 7 ·`` at a line's end read as a stray dot."""
    return [line.removesuffix(f" {SEPARATOR}") for line in packed(parts, width, indent, whole)]


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
