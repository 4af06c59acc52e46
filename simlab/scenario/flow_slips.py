"""Say in plain words what a designer slipped on inside ``{…}`` and ``[…]``.

The scenarios write attacks, combatants and specs as one-line flow collections
(``mace: {damage: 1d8+2, type: bludgeoning}``), where the YAML parser's complaints name
tokens, not the slip: a missing comma is "expected ',' or '}', but got ':'" at the colon
of the next key, a '}' left off is the same message a line below. This module reads the
tokens before the parser stopped and says what is missing and where it belongs: a ','
or a closing bracket right after the last thing written, a ',' or bracket too many where
it stands, a ' #' that made the rest of the line a comment where it starts; and, inside
brackets or not, a quote inside text in quotes of its kind, which ended the text early.
Only imported on the way out with a syntax error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    CollectionEndEvent,
    CollectionStartEvent,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
)
from ruamel.yaml.tokens import (
    FlowEntryToken,
    FlowMappingEndToken,
    FlowMappingStartToken,
    FlowSequenceEndToken,
    FlowSequenceStartToken,
    KeyToken,
    ScalarToken,
    Token,
    ValueToken,
)

from simlab.errors import colon_inside_a_value, comma_inside_a_value, quote_inside_quotes

#: A located message: 1-based line and column, and what was found, in plain words.
Slip = tuple[int, int, str]
#: Mapping keys and list indices from a document's root.
Path = tuple[Any, ...]

_MISSING_SEPARATOR = re.compile(r"expected ',' or '(?P<closer>[\]}])', but got '(?P<got>.*)'")
_BLOCK_END = re.compile(r"expected <block end>, but found '(?P<got>.*)'")
_NO_ENTRY = re.compile(r"expected the node content, but found '(?P<got>.*)'")
_CLOSERS = {"[": "]", "{": "}"}
_OPENERS = (FlowMappingStartToken, FlowSequenceStartToken)
_ENDS = (FlowMappingEndToken, FlowSequenceEndToken)
_SPACES = re.compile(" *")
#: What a value goes on with after a ':' in it: up to its entry's end, or a comment.
_VALUE_END = re.compile(r"(?:[^,\[\]{}\n#]|(?<!\s)#)*")
_WORD = re.compile(r"[^\s,:\[\]{}]*")
#: A comment: a '#' after a space, or first on its line.
_COMMENT = re.compile(r"(?:(?<=[ \t])|(?<=^))#", re.M)
#: What ends the key an entry may start with (``hp=34``, ``hp 34``).
_KEY_START = re.compile(r"[\s=:]")
#: A quote that may close text in quotes: one that only spaces, the end of an entry or
#: of a bracket, a comment or the line's end follow.
_CLOSING_QUOTE = {
    quote: re.compile(rf"{quote}(?=[ \t]*(?:[,\]}}]|#|$))", re.M) for quote in ("'", '"')
}
#: The longest text a message quotes of what was written; more is cut in its middle.
_QUOTE_CHARS = 24


@dataclass
class _Before:
    """The tokens the scanner read before the parser stopped at ``index``.

    Parameters
    ----------
    tokens : list of Token
        Every token that starts before ``index``, in order, without the zero-width ones
        (a key's mark, a block's start or end).
    opened : list of Token
        The ``{`` and ``[`` still open at ``index``, outermost first.
    starts : dict
        The opening token of each closing one, by the closer's position in ``tokens``.
    at : Token or None
        The token the parser stopped at.
    """

    tokens: list[Token]
    opened: list[Token]
    starts: dict[int, Token]
    at: Token | None


def flow_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when it is a slip in or just after a ``{…}`` or ``[…]``.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column of the slip (where the missing ',' or bracket belongs,
        or the stray one stands) and what was found there, in a designer's words
        (``no ',' between '1d8+2' and 'type' …``); None for any other error.
    """
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, MarkedYAMLError) or mark is None:
        return None
    problem, context = str(exc.problem or ""), str(exc.context or "")
    before = _tokens_before(text, mark.index)
    separator = _MISSING_SEPARATOR.fullmatch(problem)
    if separator is not None and context.startswith("while parsing a flow"):
        return _missing_separator(text, before, separator["closer"], separator["got"])
    no_entry = _NO_ENTRY.fullmatch(problem)
    if no_entry is not None:
        return _no_entry(text, before, mark.index, no_entry["got"])
    block_end = _BLOCK_END.fullmatch(problem)
    if block_end is not None:
        return _after_the_end(text, before, mark.index, block_end["got"])
    if problem == "mapping values are not allowed here":
        return _after_the_end(text, before, mark.index, ":")
    return None


def quote_slip(exc: YAMLError, text: str) -> Slip | None:
    """What ``exc`` means when the parser stopped right after text in quotes, at more
    text with no space between: a quote of the same kind inside the text, which ended
    it early (``note: 'the Brute's win'``), in a ``{…}`` or on a line of its own.

    Parameters
    ----------
    exc : YAMLError
        What ruamel.yaml raised while reading ``text``.
    text : str
        The YAML document.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column of the quote that ended the text and what was found,
        with the text written as it needs to be (``a ' inside text in '…', which ends the
        text there (write it twice: 'the Brute''s win'; …)``); None for any other error.
    """
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, MarkedYAMLError) or mark is None:
        return None
    before = _tokens_before(text, mark.index)
    if not before.tokens or not isinstance(before.at, ScalarToken):
        return None
    last = before.tokens[-1]
    quote = getattr(last, "style", None)
    if not isinstance(last, ScalarToken) or quote not in ("'", '"'):
        return None
    end = last.end_mark.index
    if before.at.start_mark.index != end:
        return None
    start = last.start_mark.index
    closing = _CLOSING_QUOTE[quote].search(text, end)
    meant = None
    if closing is not None and "\n" not in text[end : closing.start()]:
        meant = text[start + 1 : end - 1] + quote + text[end : closing.start()]
    return _slip(text, end - 1, quote_inside_quotes(quote, meant))


def comma_in_a_value(text: str, key: Any, value: Any, more: list[Any]) -> Slip | None:
    """What a ``{…}`` value followed by entries without a ':' means: a ',' inside the
    value (``{base_defense: 1, 2, hp: 30}``), which YAML read as the end of the value
    and a key ``2`` with no value of its own.

    Parameters
    ----------
    text : str
        The YAML document.
    key, value : ScalarEvent
        The value's key (None when not plain text) and the value, as parsed.
    more : list of ScalarEvent
        The entries without a ':' that follow the value, each parsed as a key.

    Returns
    -------
    tuple of (int, int, str) or None
        1-based line and column of the value and the whole message (``expected one value
        for 'base_defense' (…); got '1, 2' (a list is written inside '[…]': …)``); None
        when the first entry starts with a key the ``{…}`` may hold in the file's rule
        system (:func:`place_at`), or close to one (``{hp: 7, attacks}``: its value left
        out; ``{name: Knight, hp=34}``: a key run into its value; validation says both).
        A key of another place or rule system is a word of the value: ``plan`` (a
        shattered-spirits-draft1 combatant's) in a glitters-d20 ``{resist: slashing,
        plan}``.
    """
    from simlab.scenario.validation import like_a_key  # imports the rule models

    first = more[0]
    word = _KEY_START.split(str(first.value), 1)[0]
    if like_a_key(word, *place_at(text, first.start_mark.index)):
        return None
    parts = [_written(text, event.start_mark.index, event.end_mark.index)
             for event in (value, *more)]  # fmt: skip
    name = None if key is None else str(key.value)
    return _slip(text, value.start_mark.index, comma_inside_a_value(name, parts))


def _tokens_before(text: str, index: int) -> _Before:
    """Scan ``text`` up to ``index`` (:class:`_Before`); a scanner error there ends it."""
    tokens: list[Token] = []
    opened: list[Token] = []
    starts: dict[int, Token] = {}
    try:
        for token in YAML(typ="rt").scan(text):
            if token.start_mark.index >= index and not isinstance(token, KeyToken):
                return _Before(tokens, opened, starts, token)
            if token.start_mark.index == token.end_mark.index:
                continue
            if isinstance(token, _ENDS) and opened:
                starts[len(tokens)] = opened.pop()
            elif isinstance(token, _OPENERS):
                opened.append(token)
            tokens.append(token)
    except YAMLError:
        pass
    return _Before(tokens, opened, starts, None)


def _missing_separator(text: str, before: _Before, closer: str, got: str) -> Slip | None:
    """A '{…}' or '[…]' whose entry is followed by something other than ',' or its
    closing bracket: a wrong bracket, the end of the file, the next line (its closing
    bracket left off), a ':' with no space after it, or the next entry (a ',' left off)."""
    if not before.opened or not before.tokens or before.at is None:
        return None
    opener, last, at = before.opened[-1], before.tokens[-1], before.at
    opened = f"the '{_char(text, opener)}' opened at {_shown(text, opener)}"
    if got in _CLOSERS.values():
        return _slip(text, at.start_mark.index, f"a '{got}' closing {opened} (a "
                     f"'{_char(text, opener)}' closes with '{closer}')")  # fmt: skip
    if got == "<stream end>":
        return _never_closed_or_hidden(text, opener, last)
    if _no_space_after_colon(last, at):
        written = _written(text, last.start_mark.index, last.end_mark.index)
        return _slip(text, at.start_mark.index, f"no space between {written!r} and "
                     f"'{_char(text, at)}' (a key and its value are parted by ': ')")  # fmt: skip
    split = _split(text, last, at)
    if split is None and not (isinstance(last, ScalarToken) and last.plain):
        return _slip(text, at.start_mark.index, f"a second ':' in one entry of {opened} "
                     "(a value holding ': ' needs quotes)")  # fmt: skip
    if split is None:
        return _colon_in_a_value(text, before)
    end, start = split
    comment = _hiding_comment(text, end, start, opener)
    if comment is not None:
        return _comment_slip(text, comment, opened)
    if _on_a_line_of_its_own(text, end, start, opener):
        return _slip(text, end, f"no '{closer}' closing {opened} before the next line")
    if isinstance(at, ValueToken) and not _a_key(text, end, start, at.start_mark.index):
        return _colon_in_a_value(text, before)
    first = _first_written(text, before, end)
    following = _written(text, start, _word_end(text, start))
    kind = "entries" if closer == "}" else "items"
    inside = f"the {kind} inside '{_char(text, opener)}…{closer}'"
    hint = "; a value holding ': ' needs quotes" if isinstance(at, ValueToken) else ""
    return _slip(text, end, f"no ',' between {first!r} and {following!r} ({inside} are "
                 f"parted by commas{hint})")  # fmt: skip


def _a_key(text: str, end: int, start: int, colon: int) -> bool:
    """Whether the word before a ':' (from ``start``), after a value (ending at ``end``)
    with no ',' after it, is a key that the ``{…}`` may hold in the file's rule system
    (:func:`place_at`), or close to one (``1d8+2 type: …``: a ',' left off before
    ``type``), not a word of the value (``Goblin Chief: Scout``, ``note: the plan: wait``:
    a ':' in a value). A word on a later line than the value it follows is a key: ``16``
    at a line's end and ``zebra: […]`` below it, a ',' left off at the line's end."""
    from simlab.scenario.validation import like_a_key  # imports the rule models

    return "\n" in text[end:start] or like_a_key(text[start:colon].strip(), *place_at(text, colon))


@dataclass
class _Open:
    """A list or mapping the parser is inside: how many nodes it holds so far, its last
    key, and where it stands in the one it is in (a key or an index)."""

    mapping: bool
    part: Any = None
    held: int = 0
    key: Any = None


def place_at(text: str, index: int) -> tuple[str | None, Path]:
    """The rule system a document names and where in it ``index`` stands, as read by the
    parser up to there: what tells the keys that may be written at ``index``.

    Parameters
    ----------
    text : str
        The YAML document, which may not parse past ``index``.
    index : int
        Where in ``text`` a word stands that may be a key.

    Returns
    -------
    tuple of (str or None, tuple)
        The top-level ``rules:`` value when written before ``index`` (else None), and
        the path (mapping keys and list indices from the root) of the mapping open at
        ``index``; in a list, of its item at ``index`` (a block mapping whose first key
        the parser has not read yet).
    """
    rules, opened = None, [_Open(mapping=False)]
    try:
        for event in YAML(typ="rt").parse(text):
            if event.start_mark.index >= index:
                break
            if isinstance(event, CollectionEndEvent) and len(opened) > 1:
                opened.pop()
            elif isinstance(event, NodeEvent):
                rules = _held(opened, event) or rules
    except YAMLError:
        pass
    path = tuple(frame.part for frame in opened[2:])
    if len(opened) == 1 or opened[-1].mapping:
        return rules, path
    return rules, (*path, opened[-1].held)


def _held(opened: list[_Open], event: NodeEvent) -> str | None:
    """Count ``event`` in the list or mapping it is in and open it when it starts one;
    its text when it is the value of the top-level ``rules:``, else None."""
    into = opened[-1]
    value = not into.mapping or into.held % 2 == 1
    part = (into.key if into.mapping else into.held) if value else None
    if into.mapping and not value:
        into.key = event.value if isinstance(event, ScalarEvent) else None
    into.held += 1
    if isinstance(event, CollectionStartEvent):
        opened.append(_Open(isinstance(event, MappingStartEvent), part))
    elif len(opened) == 2 and value and into.key == "rules" and isinstance(event, ScalarEvent):
        return str(event.value)
    return None


def _colon_in_a_value(text: str, before: _Before) -> Slip:
    """A ':' inside a plain value (``{name: Goblin: Scout}``), which YAML reads as a key's:
    said at the ':' with the value quoted, as it should be written."""
    assert before.at is not None
    tokens, colon = before.tokens, before.at.start_mark.index
    value_start = tokens[-1].start_mark.index
    end = _VALUE_END.match(text, colon).end()  # type: ignore[union-attr]
    key = tokens[-3] if len(tokens) >= 3 and isinstance(tokens[-2], ValueToken) else None
    written = None
    if isinstance(key, ScalarToken):
        written = _written(text, key.start_mark.index, key.end_mark.index)
    return _slip(text, colon, colon_inside_a_value(written, text[value_start:end].strip()))


def _no_space_after_colon(last: Token, at: Token) -> bool:
    """Whether a plain scalar ending in ':' runs straight into a '[' or '{' (``8:[stun]``):
    a key whose ':' has no space after it, which YAML reads as part of the key."""
    key = isinstance(last, ScalarToken) and last.plain and str(last.value).endswith(":")
    return key and isinstance(at, _OPENERS) and at.start_mark.index == last.end_mark.index


def _split(text: str, last: Token, at: Token) -> tuple[int, int] | None:
    """Where what was written before the slip ends and what follows it starts, as
    indices into ``text``; None for a second ':' in one entry.

    YAML reads a value and the key after it with no ',' between (``1d8+2 type``), or a
    value and the next line (``6`` and ``- {``), as one plain scalar: its last word, or
    its last line, is what follows the slip.
    """
    plain = isinstance(last, ScalarToken) and last.plain
    key = isinstance(at, ValueToken)
    written = text[last.start_mark.index : last.end_mark.index] if plain else ""
    runs = list(re.finditer(r"\s+" if key else r"[ \t]*\n\s*", written))
    if runs:
        return (last.start_mark.index + runs[-1].start(), last.start_mark.index + runs[-1].end())
    return None if key else (last.end_mark.index, at.start_mark.index)


def _hiding_comment(text: str, end: int, start: int, opener: Token) -> int | None:
    """Where a comment starts that hid the rest of a bracket's entries (``{name: Ogre
    #1, hp: 5}``), between the last thing written (ending at ``end``) and what follows
    (from ``start``); None for none. Only a comment on the line of the last thing
    written counts, and only one that hides the closing bracket or is followed by more
    of the bracket (a line indented deeper than the one it opened on): a comment line
    below an entry whose closing bracket was left off (the next block's heading), or a
    note after that entry (``hp: 30  # the boss``), is not the slip; the missing
    bracket is (:func:`_on_a_line_of_its_own`)."""
    found = _comment_on_its_line(text, end, start)
    if found is None:
        return None
    at, hidden = found
    if _CLOSERS[_char(text, opener)] in hidden or not _on_a_line_of_its_own(
        text, end, start, opener
    ):
        return at
    return None


def _comment_on_its_line(text: str, end: int, start: int) -> tuple[int, str] | None:
    """The comment between ``end`` and ``start`` on the line ``end`` is on: where it
    starts, and the rest of that line, which it hides; None for none."""
    comment = _COMMENT.search(text, end, start)
    if comment is None or "\n" in text[end : comment.start()]:
        return None
    line_end = text.find("\n", comment.start())
    return comment.start(), text[comment.start() : len(text) if line_end < 0 else line_end]


def _never_closed_or_hidden(text: str, opener: Token, last: Token) -> Slip:
    """The end of the file inside a bracket (:func:`_never_closed`), or, where a comment
    on the line of the last thing written hides its closing bracket (``{name: Goblin
    #1, hp: 3}`` on the file's last line), that comment."""
    found = _comment_on_its_line(text, last.end_mark.index, len(text))
    if found is not None and _CLOSERS[_char(text, opener)] in found[1]:
        opened = f"the '{_char(text, opener)}' opened at {_shown(text, opener)}"
        return _comment_slip(text, found[0], opened)
    return _never_closed(text, opener)


def _comment_slip(text: str, at: int, opened: str) -> Slip:
    """A comment at ``at`` inside the bracket ``opened`` (``the '{' opened at 8:7``) that
    hid the rest of its line."""
    return _slip(text, at, f"a '#' inside {opened}, which starts a comment: the rest of its "
                 "line is not read (a value holding ' #' needs quotes)")  # fmt: skip


def _on_a_line_of_its_own(text: str, end: int, start: int, opener: Token) -> bool:
    """Whether what follows the slip starts a later line indented no deeper than the
    line the bracket was opened on: the next entry of the file, not of the bracket."""
    if text.count("\n", end, start) == 0:
        return False
    return _indent(text, start) <= _indent(text, opener.start_mark.index)


def _never_closed(text: str, opener: Token) -> Slip:
    """The end of the file inside a bracket: located at the bracket, the one place known."""
    opening = _char(text, opener)
    return _slip(text, opener.start_mark.index, f"a '{opening}' never closed: the file "
                 f"ends before its '{_CLOSERS[opening]}'")  # fmt: skip


def _no_entry(text: str, before: _Before, index: int, got: str) -> Slip | None:
    """A ',' where an entry was expected (two in a row, or one first), a closing bracket
    of the other kind there, or the end of the file after a ','."""
    if not before.opened or not before.tokens:
        return None
    if got == "<stream end>":
        return _never_closed(text, before.opened[-1])
    opener, last = before.opened[-1], before.tokens[-1]
    opening = _char(text, opener)
    if got in _CLOSERS.values() and got != _CLOSERS[opening]:
        return _slip(text, index, f"a stray '{got}' inside the '{opening}' opened at "
                     f"{_shown(text, opener)} (a '{opening}' closes with "
                     f"'{_CLOSERS[opening]}')")  # fmt: skip
    if got != "," or not isinstance(last, (FlowEntryToken, *_OPENERS)):
        return None
    if isinstance(last, FlowEntryToken):
        return _slip(text, index, "two ',' in a row (an entry left out between them, or a "
                     "',' too many)")  # fmt: skip
    return _slip(text, index, f"a ',' before the first entry of the '{_char(text, last)}'")


def _after_the_end(text: str, before: _Before, index: int, got: str) -> Slip | None:
    """Something after a closing bracket that ends a block entry: a ',' (which parts
    entries only inside brackets), a closing bracket with nothing open, or more text."""
    if not before.tokens or before.opened or not isinstance(before.tokens[-1], _ENDS):
        return None
    end = before.tokens[-1]
    closing = _char(text, end)
    if got == ",":
        return _slip(text, index, f"a ',' after the closing '{closing}' (a ',' parts the "
                     "entries inside '{…}' or '[…]' only)")  # fmt: skip
    if got in _CLOSERS.values():
        return _slip(text, index, f"a '{got}' with no '[' or '{{' open to close")
    if text.count("\n", end.end_mark.index, index):
        return None
    start = _skip_blanks(text, end.end_mark.index)
    opener = before.starts.get(len(before.tokens) - 1)
    whose = "" if opener is None else f" of the '{_char(text, opener)}' opened at " \
        f"{_shown(text, opener)}"  # fmt: skip
    found = _written(text, start, _word_end(text, start))
    return _slip(text, start, f"{found!r} after the closing '{closing}'{whose} (only a "
                 "comment may follow it on its line)")  # fmt: skip


def _first_written(text: str, before: _Before, end: int) -> str:
    """What was written just before the slip: the last word or the whole bracket it ends."""
    last = len(before.tokens) - 1
    token = before.tokens[last]
    begin = before.starts[last].start_mark.index if last in before.starts else None
    if begin is None:
        begin = token.start_mark.index
        if isinstance(token, ScalarToken) and token.plain:
            begin += _last_word_start(text[begin:end])
    return _written(text, begin, end)


def _last_word_start(written: str) -> int:
    """Where the last word of ``written`` starts (a value may be several words)."""
    runs = list(re.finditer(r"\s+", written.rstrip()))
    return runs[-1].end() if runs else 0


def _word_end(text: str, start: int) -> int:
    """The end of the word that starts at ``start``: a key stops at its ':'."""
    end = _WORD.match(text, start).end()  # type: ignore[union-attr]
    return end if end > start else min(start + 1, len(text))


def _written(text: str, begin: int, end: int) -> str:
    """The text from ``begin`` to ``end`` on one line, its middle cut when long."""
    shown = " ".join(text[begin:end].split())
    half = (_QUOTE_CHARS - 1) // 2
    return shown if len(shown) <= _QUOTE_CHARS else f"{shown[:half]}…{shown[-half:]}"


def _skip_blanks(text: str, index: int) -> int:
    """The first index from ``index`` on that is not a space or a tab."""
    while index < len(text) and text[index] in " \t":
        index += 1
    return index


def _char(text: str, token: Any) -> str:
    """The bracket a token stands for, as written."""
    return text[token.start_mark.index]


def _at(text: str, index: int) -> tuple[int, int]:
    """1-based (line, column) of ``index``."""
    return (text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1)


def _slip(text: str, index: int, found: str) -> Slip:
    """``found`` located at ``index``."""
    return (*_at(text, index), found)


def _shown(text: str, token: Token) -> str:
    """Where a token starts, as a message names it: ``15:9``."""
    line, col = _at(text, token.start_mark.index)
    return f"{line}:{col}"


def _indent(text: str, index: int) -> int:
    """How many spaces start the line of ``index``."""
    start = text.rfind("\n", 0, index) + 1
    return _SPACES.match(text, start).end() - start  # type: ignore[union-attr]
