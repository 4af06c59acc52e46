"""Say in plain words a key run into its value on a line of a block mapping, a list
item's '-' run into its key, or a ':' inside a value.

``hp:24`` on a line of its own (no space after the ':') is no key to YAML but text, so
the parser stops at the line after it, "could not find expected ':'", or, for the first
key of a list item (``- name:Kaito``), at the ':' of the next key, "mapping values are
not allowed here". This module finds the line the slip is on and says what was meant:
``expected 'hp: 24' (a key and its value are parted by ': '); got 'hp:24'``, as a key
run into its value inside ``{…}`` is said (:mod:`simlab.scenario.validation`); likewise
``-name: Kaito``, a key to YAML, which the parser found wrong only at that line or the
next; and ``name: Goblin: Scout``, which YAML reads as a second key on one line
("mapping values are not allowed here"), as a ':' inside a value that needs quotes,
or, when the word before the ':' is a key (``hp: 7 attacks: [claw]``), as two keys on
one line; a tab past a line's indentation (``hp:<TAB>24``), said by what it
stands between; and a Unicode space such as a non-breaking one, pasted from a web page
or a word processor, where YAML needs a plain space (``hp:<NBSP>30``, or in the
indentation), which YAML reads as text.
Only imported on the way out with a syntax error.
"""

from __future__ import annotations

import re
import unicodedata

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from simlab.errors import colon_inside_a_value, comment_inside_a_key, key_and_value_run_together

#: A located message: 1-based line and column, and the whole message.
Slip = tuple[int, int, str]

#: A key and its value written as one piece of text: ``hp:24``, ``hp=24``, ``hp = 24``,
#: or ``hp 24`` (a number or dice: two words of text may be a line that goes on from the
#: one above it); a key as the scenarios write them (letters, digits, '_' and '-').
_RUN_TOGETHER = re.compile(
    r"(?P<key>[A-Za-z_][\w-]*)(?:(?P<between>:|[ \t]*=[ \t]*)(?P<value>[^\s#].*?)"
    r"|[ \t]+(?P<word>[-+]?\d[^\s#:]*))"
)
_COMMENT = re.compile(r"[ \t]+#.*")
#: A line that starts with a '-' run into a key or a bracket: a list item's '- ' slipped.
_DASH_RUN_ON = re.compile(r"[ \t]*(?:-[ \t]+)*(?P<dash>-)(?=[A-Za-z_{\[])")
#: A line's indentation and the '- ' of the list items it starts.
_LINE_START = re.compile(r"[ \t]*(?:-[ \t]+)*")
#: What stands before a ':' inside a value: a line's indentation, a plain key, its ': '
#: and the start of a plain value (not a bracket or a quote).
_KEY_AND_VALUE_BEFORE = re.compile(
    r"[ \t]*(?:-[ \t]+)*(?P<key>[^\s:#\[\]{},'\"][^:#]*?):[ \t]+"
    r"(?P<value>[^\s#\[\]{},'\"|>&*!%@`][^#]*)"
)
#: A key and its ':' at the start of a text: ``name:`` of ``name: C``.
_KEY_AND_COLON = re.compile(r"(?P<key>[^\s:#\[\]{},'\"][^:#,{}\[\]\n]*?):(?:[ \t]|$)", re.M)
#: The longest line a message about it quotes; more is cut at its end.
_SHOWN_CHARS = 32
#: A line whose key a ' #' cut short: ``claw #1: {…}``, where YAML reads ``claw`` and a
#: comment that holds the key's ':'.
_KEY_CUT_BY_COMMENT = re.compile(
    r"[ \t]*(?:-[ \t]+)*(?P<key>[^\s:#\[\]{},'\"][^:#]*?)"
    r"[ \t]+(?P<comment>#[^\s:][^:]*?):(?:[ \t]|$)"
)
#: What may stand before the first ':' of a line: its indentation and a plain key.
_KEY_BEFORE_COLON = re.compile(r"[ \t]*(?:-[ \t]+)*[^\s:#\[\]{},'\"][^:#]*")
#: The spaces of Unicode other than the plain one (its category Zs), which YAML reads as
#: text: a non-breaking space (U+00A0), a figure space, a narrow non-breaking space, ….
_UNICODE_SPACE = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
#: What a designer calls the Unicode spaces most often pasted; others by their Unicode name.
_SPACE_NAMES = {
    "\u00a0": "a non-breaking space",
    "\u2007": "a figure space",
    "\u202f": "a narrow non-breaking space",
    "\u3000": "a full-width space",
}
#: How many Unicode spaces the YAML is read again for, each mended on its own: a file
#: of many is read no more than this many times over.
_SPACES_TRIED = 10


def run_together_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when it comes of a key run into its value on a block line.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column just after the key's ':' (or where its ':' belongs) and
        the message (``expected 'hp: 24' (…); got 'hp:24'``); None for any other error.
    """
    if not isinstance(exc, MarkedYAMLError) or exc.problem_mark is None:
        return None
    start = _start_of_the_slip(exc, text)
    return None if start is None else _slip_at(text, start)


def dash_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when a list item's '-' has no space after it (``-name: Kaito``),
    which YAML reads as part of a key: the parser stops at that line or the one below.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column just after the '-' and the message (``expected
        '- name: Kaito' (a list item starts with '- '); got '-name: Kaito'``); None for
        any other error.
    """
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, MarkedYAMLError) or mark is None:
        return None
    line_start = text.rfind("\n", 0, mark.index) + 1
    above = _line_above(text, line_start)
    for start in (line_start,) if above is None else (line_start, above):
        found = _DASH_RUN_ON.match(text, start)
        if found is not None:
            written = _COMMENT.sub("", text[found.start("dash") : _line_end(text, start)])
            meant = f"- {written[1:]}"
            message = (f"expected {meant!r} (a list item starts with '- '); got "
                       f"{written!r}")  # fmt: skip
            return _located(text, found.end("dash"), message)
    return None


def key_comment_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when a ' #' cut a key short (``claw #1: {damage: 1d6}``, or a
    side ``team #2:``): YAML reads the key as ``claw`` and the rest of the line as a
    comment, so the key has no ':', and the parser stops at that line or the next.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column of the '#' and the message (``expected valid YAML
        syntax; got a ' #' inside the key 'claw #1', which starts a comment: … (a key
        holding ' #' needs quotes: "claw #1":)``); None for any other error.
    """
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, MarkedYAMLError) or mark is None:
        return None
    line_start = text.rfind("\n", 0, mark.index) + 1
    context = getattr(exc, "context_mark", None)
    starts = [line_start, _line_above(text, line_start)]
    if context is not None:
        starts.append(text.rfind("\n", 0, context.index) + 1)
    for start in (s for s in starts if s is not None):
        found = _KEY_CUT_BY_COMMENT.match(text, start, _line_end(text, start))
        if found is not None:
            message = comment_inside_a_key(found["key"], found["comment"])
            return _located(text, found.start("comment"), f"expected valid YAML syntax; got "
                            f"{message}")  # fmt: skip
    return None


def tab_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when it stops at a tab inside a line, past its indentation:
    between a key's ':' and its value (``hp:<TAB>24``), after a list item's '-', or
    after a value. YAML parts these with spaces only, as it indents with them; a tab in
    the indentation is said as such (:mod:`simlab.scenario.source`).

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column of the tab and the message (``expected valid YAML
        syntax; got a tab between 'hp:' and its value (…: hp: 24)``); None for any
        other error, and for a tab in the indentation.
    """
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, MarkedYAMLError) or mark is None:
        return None
    if not text.startswith("\t", mark.index):
        return None
    line_start = text.rfind("\n", 0, mark.index) + 1
    before = text[line_start : mark.index].rstrip(" \t")
    if not before.strip(" -"):
        return _tab_after_a_dash(text, mark.index, before) if before.endswith("-") else None
    after = text[mark.index : _line_end(text, mark.index)].strip(" \t")
    written = before[len(before) - len(before.lstrip(" -")) :]
    if not after:
        got = f"a tab after {written!r} at the end of its line (YAML reads no tab there)"
    elif after.startswith("#"):
        got = (f"a tab before the '#' of a comment, after {written!r} (a comment starts "
               f"with a space and '#': {written} {after})")  # fmt: skip
    elif written.endswith(":"):
        value = _COMMENT.sub("", after)
        got = (f"a tab between {written!r} and its value (a key and its value are parted "
               f"by spaces only: {written} {value})")  # fmt: skip
    else:
        got = f"a tab after {written!r} (YAML parts the words of a line with spaces only)"
    return _located(text, mark.index, f"expected valid YAML syntax; got {got}")


def unicode_space_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when a Unicode space other than the plain one (a non-breaking
    space, U+00A0, pasted from a web page or a word processor) stands where YAML needs a
    plain space: in the indentation, after a key's ':', a list item's '-', or a ',', '['
    or '{' of a flow collection. YAML reads it as text there, so its parser stops later,
    at a ':' or a line that then makes no sense; inside quoted text or a comment, it is
    text and no slip.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column of the first such space, up to the end of the line the
        parser stopped on, that the parser gets past once it is a plain space, and the
        message (``expected valid YAML syntax; got a non-breaking space (U+00A0) after
        'hp:', which YAML does not read as a space (retype it as a plain space)``); None
        for any other error.
    """
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, MarkedYAMLError) or mark is None:
        return None
    found = _UNICODE_SPACE.finditer(text, 0, _line_end(text, mark.index))
    spaces = [space.start() for space in found if _wants_a_plain_space(text, space.start())]
    index = _first_that_mends(text, spaces, mark.index)
    if index is None:
        return None
    before = text[text.rfind("\n", 0, index) + 1 : index]
    char = text[index]
    name = _SPACE_NAMES.get(char) or _with_its_article(unicodedata.name(char).lower())
    message = (f"expected valid YAML syntax; got {name} (U+{ord(char):04X}) "
               f"{_where_a_space_is(before)}, which YAML does not read as a space (retype "
               "it as a plain space)")  # fmt: skip
    return _located(text, index, message)


def _first_that_mends(text: str, spaces: list[int], stop: int) -> int | None:
    """The first of the Unicode spaces at ``spaces`` that, made a plain space, gets the
    parser past ``stop``, where it stopped; or the first of them when only all of them
    together do (two in one indentation); None when they do not (another slip)."""
    tried = spaces[:_SPACES_TRIED]
    mending = (index for index in tried if _parses_past(_plain_at(text, [index]), stop))
    first = next(mending, None)
    if first is None and spaces and _parses_past(_plain_at(text, spaces), stop):
        return spaces[0]
    return first


def _with_its_article(name: str) -> str:
    """``name`` after 'a' or 'an' (``an em space``, ``a thin space``)."""
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _wants_a_plain_space(text: str, index: int) -> bool:
    """Whether the character at ``index`` stands where YAML parts things with a plain
    space (the indentation; after a ':', a '-', a ',', a '[' or a '{'), outside quoted
    text and comments."""
    before = text[text.rfind("\n", 0, index) + 1 : index]
    parts_two_things = _in_indentation(before) or before.endswith((":", "-", ",", "[", "{"))
    return parts_two_things and not _in_text(before)


def _in_indentation(before: str) -> bool:
    """Whether ``before`` (a line up to a character) is indentation alone: spaces, plain
    or Unicode, and list items' '-'."""
    return not _UNICODE_SPACE.sub("", before).strip(" -")


def _in_text(line: str) -> bool:
    """Whether the end of ``line`` (the start of a line) is inside quoted text or a
    comment: a quote opens text where a value may start, a '#' after a space a comment."""
    quote = ""
    for at, char in enumerate(line):
        starts_a_value = at == 0 or line[at - 1] in " -:,[{"
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"" and starts_a_value:
            quote = char
        elif char == "#" and (at == 0 or line[at - 1] in " \t"):
            return True
    return bool(quote)


def _plain_at(text: str, indices: list[int]) -> str:
    """``text`` with a plain space for the character at each of ``indices``."""
    chars = list(text)
    for index in indices:
        chars[index] = " "
    return "".join(chars)


def _parses_past(text: str, index: int) -> bool:
    """Whether the YAML parser reads ``text`` whole, or stops only after ``index``: a
    Unicode space mended, the parser gets past where it stopped."""
    try:
        for _ in YAML(typ="rt").parse(text):
            pass
    except MarkedYAMLError as exc:
        return exc.problem_mark is not None and exc.problem_mark.index > index
    except YAMLError:
        return False
    return True


def _where_a_space_is(before: str) -> str:
    """Where a Unicode space stands after the text ``before`` it on its line, said for
    the message: in the indentation, after a list item's '-', or after the word before
    it (``after 'hp:'``)."""
    if _in_indentation(before):
        return "after a list item's '-'" if before.endswith("-") else "in the indentation"
    return f"after {before.split()[-1]!r}"


def _tab_after_a_dash(text: str, tab: int, before: str) -> Slip:
    """A tab after a list item's '-' (``-<TAB>name: Kaito``), said at the tab."""
    item = _COMMENT.sub("", text[tab : _line_end(text, tab)]).strip(" \t")
    message = (f"expected valid YAML syntax; got a tab after a list item's '-' (a list "
               f"item starts with '- ', a space: - {item})")  # fmt: skip
    return _located(text, tab, message)


def missing_dash_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when a list item was written without its '- ': a line that
    starts in the column of the '-' of the items above it, which YAML reads as no item of
    that list.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column where the '- ' belongs and the message (``expected '-
        {name: C, hp: 5}' (a list item starts with '- ', as the ones above it do); got
        '{name: C, hp: 5}'``); None for any other error, and for a line that may be a
        key indented as deep as the list (one that does not start as the item above it
        does: ``name:`` after ``- name: B``).
    """
    start = _start_of_the_line(exc, text)
    if start is None:
        return None
    line_start = text.rfind("\n", 0, start) + 1
    item = _item_above(text, line_start, start - line_start)
    if item is None or not _starts_an_item(text[start:], text[item:]):
        return None
    written = _COMMENT.sub("", text[start : _line_end(text, start)]).rstrip()
    shown = written if len(written) <= _SHOWN_CHARS else f"{written[: _SHOWN_CHARS - 1]}…"
    message = (f"expected '- {shown}' (a list item starts with '- ', as the ones above it "
               f"do); got {shown!r}")  # fmt: skip
    return _located(text, start, message)


def _start_of_the_line(exc: YAMLError, text: str) -> int | None:
    """Where the text of the line the parser stopped on starts, when it stopped there: at
    the line's first text, or scanning a key that starts there; else None (and for a
    tab, where the line's indentation goes on)."""
    if not isinstance(exc, MarkedYAMLError) or exc.problem_mark is None:
        return None
    index = int(exc.problem_mark.index)
    if str(exc.problem or "") == "could not find expected ':'" and exc.context_mark:
        index = int(exc.context_mark.index)
    line_start = text.rfind("\n", 0, index) + 1
    if text[line_start:index].strip(" ") or text.startswith(("-", "\t"), index):
        return None  # a tab in the indentation is said as a tab (source.py)
    return index


def _item_above(text: str, line_start: int, column: int) -> int | None:
    """Where the text of the nearest list item above ``line_start`` starts (after its
    '- '), when its '-' stands in ``column`` and the list is indented deeper than the key
    that holds it; else None."""
    above, item = line_start, None
    while (above := _line_above(text, above)) is not None:  # type: ignore[assignment]
        indent = len(text[above:]) - len(text[above:].lstrip(" "))
        if indent < column:
            return item
        dash = _LINE_START.match(text, above).end()  # type: ignore[union-attr]
        if indent == column and (dash == above + indent or text[above + indent] != "-"):
            return None
        if indent == column and item is None:
            item = dash
    return None


def _starts_an_item(line: str, item: str) -> bool:
    """Whether ``line`` can only be an item of a list whose item above starts with
    ``item``: a '{…}', a '[…]' or a word without a ':', or the key the item above starts
    with (``name: C`` after ``- name: B``)."""
    if line[:1] in "{[" or not _KEY_AND_COLON.match(line):
        return True
    return _first_key(line) == _first_key(item.lstrip("{ "))


def _first_key(text: str) -> str | None:
    """The key a line starts with (``name`` of ``name: C``); None for no key."""
    found = _KEY_AND_COLON.match(text)
    return None if found is None else found["key"]


def colon_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when a ':' stands inside the plain value of a key on its line
    (``name: Goblin: Scout``), which YAML reads as a second key on one line.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column of the ':' and the message (``expected valid YAML
        syntax; got a ':' inside the value of 'name' (…: name: "Goblin: Scout")``); for
        two keys on one line, of the second key (``expected one key on a line; got
        'attacks' after 'hp: 7' …``); None for any other error.
    """
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, MarkedYAMLError) or mark is None:
        return None
    if str(exc.problem or "") != "mapping values are not allowed here":
        return None
    line_start = text.rfind("\n", 0, mark.index) + 1
    found = _KEY_AND_VALUE_BEFORE.fullmatch(text, line_start, mark.index)
    if found is None:
        return None
    if _ends_with_a_key(found["value"], text, mark.index):
        return _two_keys(text, found, mark.index)
    value = _COMMENT.sub("", text[found.start("value") : _line_end(text, mark.index)]).strip()
    message = f"expected valid YAML syntax; got {colon_inside_a_value(found['key'], value)}"
    return _located(text, mark.index, message)


def _two_keys(text: str, found: re.Match[str], colon: int) -> Slip:
    """Two keys on one line of a block mapping (``hp: 7 attacks: [claw]``): said at the
    second key, which needs a line of its own, in the column of the first."""
    value = found["value"].rstrip()
    second = found.start("value") + _last_word_start(value)
    first = f"{found['key']}: {value[: second - found.start('value')].rstrip()}"
    key = text[second:colon]
    message = (f"expected one key on a line; got {key!r} after {first!r} on one line (the "
               f"second key needs a line of its own, in the column of {found['key']!r}; or "
               "a '{…}' holding both, a ',' between them)")  # fmt: skip
    return _located(text, second, message)


def _last_word_start(value: str) -> int:
    """Where the last word of ``value`` starts in it."""
    return len(value) - len(value.split()[-1])


def _ends_with_a_key(value: str, text: str, colon: int) -> bool:
    """Whether the last word of a value before the ':' at ``colon`` is a key that its
    mapping may hold (:func:`~simlab.scenario.validation.like_a_key`, at
    :func:`~simlab.scenario.flow_slips.place_at`): two keys on one line (``hp: 7 attacks:
    [claw]``), not a ':' inside a value."""
    from simlab.scenario.flow_slips import place_at
    from simlab.scenario.validation import like_a_key  # imports the rule models

    words = value.split()
    return bool(words) and like_a_key(words[-1], *place_at(text, colon))


def _line_above(text: str, line_start: int) -> int | None:
    """The start of the nearest line above ``line_start`` with text (not blank, not only
    a comment); None on the first line."""
    while line_start > 0:
        line_start = text.rfind("\n", 0, line_start - 1) + 1
        content = text[line_start : _line_end(text, line_start)].strip()
        if content and not content.startswith("#"):
            return line_start
    return None


def _line_end(text: str, start: int) -> int:
    """The end of the line that ``start`` is on (before its line break)."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _located(text: str, index: int, message: str) -> Slip:
    """``message`` at the 1-based line and column of ``index``."""
    return (text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1, message)


def _start_of_the_slip(exc: MarkedYAMLError, text: str) -> int | None:
    """Where the text that YAML could not read as a key starts: the simple key it was
    scanning (a later key of a mapping), or the first line of a plain scalar that runs
    on to the line the parser stopped on (the first key of a list item)."""
    problem, context = str(exc.problem or ""), str(exc.context or "")
    if problem == "could not find expected ':'" and context == "while scanning a simple key":
        return None if exc.context_mark is None else int(exc.context_mark.index)
    if problem == "mapping values are not allowed here":
        return _multi_line_plain_start(text, exc.problem_mark.index)
    return None


def _multi_line_plain_start(text: str, index: int) -> int | None:
    """Where the text of the line above ``index`` starts (after its indentation and a
    list item's '- ') when the ':' at ``index`` ends the first key of its line: the
    parser read that line and the key as one text (``name:Kaito`` and ``hp``), which a
    ':' cannot follow; else None."""
    line_start = text.rfind("\n", 0, index) + 1
    if not _KEY_BEFORE_COLON.fullmatch(text, line_start, index) or line_start == 0:
        return None
    above_end = line_start - 1
    while above_end > 0 and text[:above_end].endswith("\n"):  # blank lines between
        above_end -= 1
    above_start = text.rfind("\n", 0, above_end) + 1
    return _LINE_START.match(text, above_start).end()  # type: ignore[union-attr]


def _slip_at(text: str, start: int) -> Slip | None:
    """The slip of the line from ``start`` on, when it is a key run into its value."""
    written = _COMMENT.sub("", text[start : _line_end(text, start)]).rstrip()
    found = _RUN_TOGETHER.fullmatch(written)
    if found is None:
        return None
    message = key_and_value_run_together(found["key"], found["value"] or found["word"], written)
    return _located(text, start + found.end("key") + (1 if found["between"] == ":" else 0), message)
