"""Read a scenario YAML file into plain Python data, remembering where every value was.

Designers write scenarios by hand, so every mistake must be reported as
``file:line:col: expected X; got Y``. This module turns YAML text into plain Python
values (dicts, lists, str, int, float, bool, None) and records, for every node, the
1-based line and column where it was written. Nothing in a scenario is ever constructed
or executed: explicit tags (``!foo``, ``!!python/object``) are refused before any value
is built.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    Event,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.scalarbool import ScalarBoolean

from simlab.errors import Problem, ScenarioError, curly_quotes, in_curly_quotes
from simlab.limits import (
    MAX_DEPTH,
    MAX_INTEGER_DIGITS,
    MAX_NODES,
    MAX_SCENARIO_BYTES,
    read_bounded,
    too_many_digits,
)

Path = tuple[Any, ...]
Position = tuple[int, int]
Located = tuple[int | None, int | None]

#: A comment right after a plain value on its line whose '#' touches a word, as in
#: ``name: Goblin #1``: YAML ends the value at the ' #', so it reads ``Goblin``.
_COMMENT_AFTER = re.compile(r"[ \t]+(?P<comment>#\S.*?)[ \t]*$")

#: Refuse documents whose aliases expand to more values than this (a "billion laughs").
MAX_VALUES = 1_000_000

#: Characters YAML does not allow in a document (the complement of its printable set).
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_DUPLICATE_KEY = re.compile(r'duplicate key "(?P<key>.*)" with value')
#: What of an integer's text is not a digit: its sign, base prefix, underscores, colons.
_NOT_DIGITS = re.compile(r"^[-+]?(?:0[xXoObB])?|[_:]")
_STANDARD_TAG = "tag:yaml.org,2002:"


@dataclass(frozen=True)
class YamlSource:
    """Plain data read from a YAML document, with the position of every node.

    Parameters
    ----------
    filename : str
        Name of the file as the user gave it ("<string>" for text given directly).
    data : Any
        The document as plain Python values: dict, list, str, int, float, bool, None.
    positions : dict
        Maps a path (tuple of mapping keys and list indices, e.g.
        ``("sides", "party", 0, "hp")``) to the 1-based ``(line, col)`` of its value.
        The empty path is the document's root.
    key_positions : dict
        Maps the path of a mapping entry to the 1-based ``(line, col)`` of its key.
    comments_after : dict
        Maps the path of a plain text value to the comment right after it on its line
        whose '#' touches a word (``#1`` of ``name: Goblin #1``): the text the designer
        probably meant as part of the value (:meth:`cut_by_comment`).
    overrides : tuple of str
        The overrides applied to the file's document, ``NAME.FIELD=VALUE`` in order
        (``simlab.override``, ``--set``): results and reports say that they were.
    written : tuple of tuple
        The document paths those overrides wrote (a field that could never matter is
        refused where it was written: :func:`simlab.scenario.validation.written`).
    """

    filename: str
    data: Any
    positions: dict[Path, Position] = field(default_factory=dict)
    key_positions: dict[Path, Position] = field(default_factory=dict)
    overrides: tuple[str, ...] = ()
    written: tuple[Path, ...] = ()
    comments_after: dict[Path, str] = field(default_factory=dict)

    def locate(self, path: Path) -> Located:
        """Return the position of the value at ``path``, or of its nearest located ancestor.

        Parameters
        ----------
        path : tuple
            Mapping keys and list indices from the root.

        Returns
        -------
        tuple of (int or None, int or None)
            1-based ``(line, col)``; ``(None, None)`` if nothing on the path is located.
        """
        for prefix in _prefixes(tuple(path)):
            if prefix in self.positions:
                return self.positions[prefix]
        return (None, None)

    def locate_key(self, path: Path) -> Located:
        """Return the position of the key at ``path``, else as :meth:`locate`.

        Parameters
        ----------
        path : tuple
            Mapping keys and list indices from the root; the last one names the key.

        Returns
        -------
        tuple of (int or None, int or None)
            1-based ``(line, col)`` of the key if it was written, else of its value or
            nearest located ancestor.
        """
        path = tuple(path)
        if path in self.key_positions:
            return self.key_positions[path]
        if path in self.positions:
            return self.positions[path]
        return self.locate_key(path[:-1]) if path else self.locate(path)

    def cut_by_comment(self, path: Path) -> str | None:
        """The comment that ended the text value at ``path`` where the designer
        probably meant it to go on (``#1`` of ``name: Goblin #1``, read as ``Goblin``).

        Parameters
        ----------
        path : tuple
            Mapping keys and list indices from the root.

        Returns
        -------
        str or None
            The comment, ``#`` included; None when no such comment follows the value,
            or when an override wrote the value (its position is no longer the file's).
        """
        position = self.positions.get(tuple(path))
        if position is None or position[0] < 1:
            return None
        return self.comments_after.get(tuple(path))


def _prefixes(path: Path) -> Iterator[Path]:
    """Yield ``path`` and each of its ancestors, longest first."""
    for end in range(len(path), -1, -1):
        yield path[:end]


def read_yaml(path: str | os.PathLike[str]) -> YamlSource:
    """Read a scenario YAML file.

    Parameters
    ----------
    path : str or os.PathLike
        The file to read; it is named in error messages exactly as given.

    Returns
    -------
    YamlSource
        The document as plain data, with positions.

    Raises
    ------
    ScenarioError
        If the file cannot be read, is not valid YAML, uses tags or duplicate keys, or
        its top level is not a mapping.
    """
    filename = os.fspath(path)
    data = _read_bytes(filename)
    _refuse_other_unicode(data, filename)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, col = _byte_position(data, exc.start)
        byte = data[exc.start]
        message = f"expected UTF-8 text; got the byte 0x{byte:02x}{_single_byte_reading(byte)}"
        raise ScenarioError([Problem(filename, line, col, message)]) from None
    return parse_yaml(text, filename)


#: The byte-order marks of the Unicode encodings other than UTF-8, UTF-32's first: its
#: little-endian mark starts with UTF-16's.
_BYTE_ORDER_MARKS = (
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\xfe\xff", "UTF-16"),
    (b"\xff\xfe", "UTF-16"),
)
#: The first four bytes of a UTF-32 or UTF-16 file that starts with a character of
#: ASCII and has no byte-order mark: its zero bytes (YAML 1.2, "Character Encodings").
_ZERO_BYTES = (
    (re.compile(b"\x00\x00\x00[^\x00]", re.S), "UTF-32"),
    (re.compile(b"[^\x00]\x00\x00\x00", re.S), "UTF-32"),
    (re.compile(b"\x00[^\x00]", re.S), "UTF-16"),
    (re.compile(b"[^\x00]\x00", re.S), "UTF-16"),
)


def _refuse_other_unicode(data: bytes, filename: str) -> None:
    """Raise for a file saved as UTF-16 or UTF-32 (a Windows editor's "Unicode"), told
    by its byte-order mark or the zero bytes of its first character: read as UTF-8,
    it is its first byte, or a NUL, that is wrong, which says nothing of the slip."""
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            shown = " ".join(f"0x{byte:02x}" for byte in mark)
            _refuse_encoding(filename, encoding, f"it starts with {encoding}'s byte-order "
                             f"mark {shown}")  # fmt: skip
    for zeros, encoding in _ZERO_BYTES:
        if zeros.match(data):
            _refuse_encoding(filename, encoding, "zero bytes between its first characters, "
                             "and no byte-order mark")  # fmt: skip


def _refuse_encoding(filename: str, encoding: str, told_by: str) -> None:
    """Raise for a file of ``encoding``, at its start, saying how to mend it."""
    message = (f"expected UTF-8 text (scenarios are read as UTF-8); got {encoding} text "
               f"({told_by}): save the file as UTF-8 in the editor, or convert it "
               f"with 'iconv -f {encoding} -t UTF-8'")  # fmt: skip
    raise ScenarioError([Problem(filename, 1, 1, message)])


def _single_byte_reading(byte: int) -> str:
    """What a byte that is no UTF-8 reads as in the one-byte encoding a file was likely
    saved in, with what to do: ``" ('é' in Latin-1: save the file as UTF-8)"``; ``""``
    for a byte no such encoding gives a printable character."""
    encoding = "Latin-1" if byte >= 0xA0 else "Windows-1252"  # alike from 0xa0 on
    try:
        char = bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d: none in Windows-1252
        return ""
    if not char.isprintable() or char.isspace():
        return ""
    return f" ({char!r} in {encoding}: save the file as UTF-8)"


def _read_bytes(filename: str) -> bytes:
    """The file's bytes, refusing what is not a regular file or is larger than the limit
    (:func:`simlab.limits.read_bounded`, :data:`~simlab.limits.MAX_SCENARIO_BYTES`)."""

    def refuse(got: str) -> ScenarioError:
        return ScenarioError([Problem(filename, None, None, f"expected a readable YAML "
                                      f"file; got {got}")])  # fmt: skip

    return read_bounded(filename, MAX_SCENARIO_BYTES, refuse)


def _byte_position(data: bytes, offset: int) -> Located:
    """1-based (line, column) of byte ``offset``; the column counts characters."""
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace"))
    return (data.count(b"\n", 0, offset) + 1, column + 1)


def parse_yaml(text: str, filename: str = "<string>") -> YamlSource:
    """Parse scenario YAML text.

    Parameters
    ----------
    text : str
        The YAML document (YAML 1.2: ``no`` is the string "no").
    filename : str, optional
        Name to use in error messages.

    Returns
    -------
    YamlSource
        The document as plain data, with positions.

    Raises
    ------
    ScenarioError
        If the text is not valid YAML, uses tags or duplicate keys, or its top level is
        not a mapping.
    """
    yaml = YAML(typ="rt")
    yaml.Constructor = _Constructor
    _refuse_unprintable(text, filename)
    try:
        _scan_events(yaml, text, filename)
        tree = yaml.load(text)
    except YAMLError as exc:
        raise ScenarioError([_yaml_problem(exc, filename, text)]) from None
    builder = _Builder(filename, text)
    data = builder.convert(tree, ())
    _require_mapping(data, builder, filename)
    return YamlSource(filename, data, builder.positions, builder.key_positions,
                      comments_after=builder.comments_after)  # fmt: skip


def _refuse_unprintable(text: str, filename: str) -> None:
    """Raise at the first character YAML does not allow (a NUL byte, a control code)."""
    found = _NOT_PRINTABLE.search(text)
    if found is None:
        return
    offset = found.start()
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    message = f"expected printable text; got the character U+{ord(found.group()):04X}"
    raise ScenarioError([Problem(filename, line, col, message)])


def _scan_events(yaml: YAML, text: str, filename: str) -> None:
    """Check the event stream before anything is built: no explicit tags, nesting at most
    :data:`~simlab.limits.MAX_DEPTH` deep, at most :data:`~simlab.limits.MAX_NODES`
    nodes, no list or mapping as a key, no plain text wholly in curly quotes (``name:
    “Dummy”``, a word processor's, which ``--set Dummy.hp=3`` and ``expect:`` then did
    not find). The parser is a state machine, so even hostile
    nesting is stopped early."""
    depth = nodes = 0
    keys = _Keys(text, filename)
    entries = _LoneEntries(text, filename)
    for event in yaml.parse(text):
        keys.see(event)
        entries.see(event)
        tag = None if isinstance(event, AliasEvent) else getattr(event, "tag", None)
        if tag is not None:
            shown = _show_tag(str(getattr(tag, "value", tag)))
            _refuse_at(event, filename, f"expected plain YAML values; got the tag '{shown}'")
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                _refuse_at(event, filename, f"expected lists and mappings nested at most "
                           f"{MAX_DEPTH} deep; got deeper")  # fmt: skip
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
        if isinstance(event, ScalarEvent) and _plain(event) and in_curly_quotes(event.value):
            _refuse_at(event, filename, curly_quotes(event.value))
        if isinstance(event, NodeEvent):
            nodes += 1
            if nodes > MAX_NODES:
                _refuse_at(event, filename, f"expected at most {MAX_NODES:_} values in a "
                           "scenario; got more")  # fmt: skip


@dataclass
class _Open:
    """A list or mapping the event stream is inside: how many nodes it holds so far, and
    its start when it is itself a mapping's key."""

    mapping: bool
    held: int = 0
    key: Event | None = None


class _Keys:
    """Refuse a list or mapping written as a key, once the event stream has it whole.

    ruamel builds such a key before simlab sees it, and fails with a ``TypeError`` when
    it holds a list (``- {name: Ogre, attacks: [club]}:``, a ':' typed after an entry):
    an internal error where a designer's slip was.
    """

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.open: list[_Open] = []
        #: Whether each anchor of a list or mapping names a mapping.
        self.anchored: dict[Any, bool] = {}

    def see(self, event: Event) -> None:
        """Follow one event; raise at the end of a list or mapping that is a key, or at
        an alias of one as a key."""
        if isinstance(event, CollectionEndEvent):
            done = self.open.pop()
            if done.key is not None:
                self._refuse(done.key, done.mapping, event)
            self._held()
        elif isinstance(event, CollectionStartEvent):
            mapping = isinstance(event, MappingStartEvent)
            if event.anchor is not None:
                self.anchored[event.anchor] = mapping
            self.open.append(_Open(mapping, key=event if self._at_a_key() else None))
        elif isinstance(event, NodeEvent):
            if isinstance(event, AliasEvent) and self._at_a_key() and event.anchor in self.anchored:
                kind = "a mapping" if self.anchored[event.anchor] else "a list"
                _refuse_at(event, self.filename, f"expected a plain key; got {kind} as a key")
            self._held()

    def _at_a_key(self) -> bool:
        """Whether the next node is a mapping's key."""
        return bool(self.open) and self.open[-1].mapping and self.open[-1].held % 2 == 0

    def _held(self) -> None:
        """Count a node whole in the list or mapping it is in."""
        if self.open:
            self.open[-1].held += 1

    def _refuse(self, start: Event, mapping: bool, end: Event) -> None:
        """A ':' typed right after a closing bracket is the slip, said there; any other
        list or mapping as a key is refused at its start, ``expected a plain key``."""
        after = len(self.text) if end.end_mark is None else end.end_mark.index
        colon = after + len(self.text[after:]) - len(self.text[after:].lstrip(" \t"))
        closing = self.text[after - 1 : after]
        if self.text.startswith(":", colon) and closing in ("}", "]"):
            line = self.text.count("\n", 0, colon) + 1
            col = colon - (self.text.rfind("\n", 0, colon) + 1) + 1
            brackets = "'{…}'" if closing == "}" else "'[…]'"
            message = (f"expected valid YAML syntax; got a ':' after the closing '{closing}', "
                       f"which makes the {brackets} a key")  # fmt: skip
            raise ScenarioError([Problem(self.filename, line, col, message)])
        kind = "a mapping" if mapping else "a list"
        _refuse_at(start, self.filename, f"expected a plain key; got {kind} as a key")


@dataclass
class _InFlow:
    """A list or mapping the event stream is inside, as :class:`_LoneEntries` follows it:
    whether it is a ``{…}``, how many nodes it holds so far, the key being read, the last
    plain value and its key, and the entries written without a ':' right after that
    value."""

    flow_mapping: bool
    held: int = 0
    key: ScalarEvent | None = None
    value_key: ScalarEvent | None = None
    value: ScalarEvent | None = None
    lone: list[ScalarEvent] = field(default_factory=list)


class _LoneEntries:
    """Refuse a ',' inside a value of a ``{…}`` (``{base_defense: 1, 2, hp: 30}``), once.

    YAML reads the ``2`` after the ',' as a key with no value: validation then said that
    the value ``1`` is no list, and again that ``2`` is no key written as text. The value
    and the entries without a ':' after it are said as one value with a ',' in it
    (:func:`~simlab.scenario.flow_slips.comma_in_a_value`), unless the first looks like
    a key (``{hp: 7, attacks}``: a key whose value is missing, which validation says).
    """

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.open: list[_InFlow] = []

    def see(self, event: Event) -> None:
        """Follow one event; raise after a value that runs on past a ','."""
        if isinstance(event, CollectionStartEvent):
            self._held(None)
            flow_mapping = isinstance(event, MappingStartEvent) and bool(event.flow_style)
            self.open.append(_InFlow(flow_mapping))
        elif isinstance(event, CollectionEndEvent):
            self._said(self.open.pop())
        elif isinstance(event, NodeEvent):
            self._held(event if isinstance(event, ScalarEvent) else None)

    def _held(self, scalar: ScalarEvent | None) -> None:
        """Count a node in the collection it is in; in a ``{…}``, follow its entries."""
        if not self.open:
            return
        at = self.open[-1]
        at.held += 1
        if not at.flow_mapping:
            return
        if at.held % 2:  # a key
            at.key = scalar if _plain(scalar) else None
            return
        if at.key is not None and at.value is not None and _no_value(scalar) \
                and self._without_colon(at.key):  # fmt: skip
            at.lone.append(at.key)  # more of the value before it
            return
        self._said(at)
        plain = scalar is not None and _plain(scalar) and bool(scalar.value)
        at.value_key, at.value = (at.key, scalar) if plain else (None, None)

    def _without_colon(self, key: ScalarEvent) -> bool:
        """Whether no ':' follows the text of ``key``: an entry written without one."""
        return not self.text[key.end_mark.index :].lstrip(" \t").startswith(":")

    def _said(self, at: _InFlow) -> None:
        """Raise at a value followed by entries without a ':', when that is a slip."""
        lone, at.lone = at.lone, []
        if not lone or at.value is None:
            return
        from simlab.scenario.flow_slips import comma_in_a_value  # only with a slip

        slip = comma_in_a_value(self.text, at.value_key, at.value, lone)
        if slip is not None:
            raise ScenarioError([Problem(self.filename, *slip)])


def _plain(scalar: ScalarEvent | None) -> bool:
    """Whether ``scalar`` is plain text (no quotes, no block scalar)."""
    return scalar is not None and scalar.style is None


def _no_value(scalar: ScalarEvent | None) -> bool:
    """Whether ``scalar`` is the empty value YAML gives a key written without one."""
    return (scalar is not None and _plain(scalar) and scalar.value == ""
            and scalar.start_mark.index == scalar.end_mark.index)  # fmt: skip


class _LongInteger(MarkedYAMLError):
    """An integer written with more than :data:`~simlab.limits.MAX_INTEGER_DIGITS` digits."""


class _Constructor(RoundTripConstructor):
    """ruamel's round-trip constructor, refusing an integer too long for any scenario
    field before Python converts it (README, "Limits"): a decimal of more than 4,300
    digits cannot be converted at all, and a longer hexadecimal one could not be shown."""

    def construct_yaml_int(self, node: Any) -> Any:
        """The integer of a scalar node, or :class:`_LongInteger` at the node."""
        problem = too_many_digits(len(_NOT_DIGITS.sub("", str(node.value))))
        if problem is not None:
            raise _LongInteger(problem=problem, problem_mark=node.start_mark)
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: Any) -> Any:
        """A whole number written with an exponent (``2e5``, ``2.5e5``) as the integer
        it is, as ``-n 2e5`` reads on the command line, so that ``encounters: 2e5`` or
        ``--set encounters=1e6`` is a count; any other float as a float (``30.0`` stays
        one: a count refuses it, quoting it as written)."""
        number = _whole_in_exponent_form(str(node.value))
        return super().construct_yaml_float(node) if number is None else number


def _whole_in_exponent_form(text: str) -> int | None:
    """The integer ``text`` writes in exponent form (``2e5``, ``-1.5E3``, ``1_000e3``),
    or None: not that form, a fraction (``1.25e1``), or more digits than any field takes
    (:data:`~simlab.limits.MAX_INTEGER_DIGITS`)."""
    from decimal import Decimal

    digits = text.replace("_", "")
    if not _EXPONENT_FORM.fullmatch(digits):
        return None
    number = Decimal(digits)
    if number != number.to_integral_value() or number.adjusted() >= MAX_INTEGER_DIGITS:
        return None
    return int(number)


_EXPONENT_FORM = re.compile(r"[+-]?\d+(?:\.\d+)?[eE]\+?\d+")
_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)
_Constructor.add_constructor("tag:yaml.org,2002:float", _Constructor.construct_yaml_float)


def _refuse_at(event: Event, filename: str, message: str) -> None:
    line, col = _mark_position(event)
    raise ScenarioError([Problem(filename, line, col, message)])


def _show_tag(tag: str) -> str:
    """Spell a tag the way it was written (``!!str`` rather than the full URI)."""
    if tag.startswith(_STANDARD_TAG):
        return "!!" + tag[len(_STANDARD_TAG) :]
    return tag


def _mark_position(event: Event) -> Located:
    """1-based position of an event's start mark."""
    mark = event.start_mark
    if mark is None:
        return (None, None)
    return (mark.line + 1, mark.column + 1)


def _yaml_problem(exc: YAMLError, filename: str, text: str) -> Problem:
    """Turn a ruamel.yaml exception about ``text`` into a located Problem."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    key_start = getattr(exc, "context_mark", None)
    if _KEY_WITHOUT_COLON in str(getattr(exc, "problem", "")) and key_start is not None:
        mark = key_start  # the parser notices on the line after: the slip is the key's line
    line = mark.line + 1 if mark is not None else None
    col = mark.column + 1 if mark is not None else None
    if isinstance(exc, _LongInteger):
        return Problem(filename, line, col, str(exc.problem))
    if isinstance(exc, DuplicateKeyError):
        found = _DUPLICATE_KEY.search(exc.problem or "")
        key = repr(found.group("key")) if found else "a key"
        first = _first_of_key(text, exc.context_mark, found.group("key")) if found else None
        at = "" if first is None else f" (the first at {first[0]}:{first[1]})"
        return Problem(filename, line, col, f"expected each key once; got {key} twice{at}")
    opened = getattr(exc, "context_mark", None)
    if "quoted scalar" in str(getattr(exc, "context", "")) and opened is not None:
        return Problem(
            filename,
            opened.line + 1,
            opened.column + 1,
            "expected a closing quote for the text opened here; got "
            + _end_of_file(str(getattr(exc, "problem", ""))),
        )
    from simlab.scenario import block_slips as block  # only with an error
    from simlab.scenario.flow_slips import flow_slip, quote_slip

    space = block.unicode_space_slip(exc, text)  # before the slips it would look like
    if space is not None:
        return Problem(filename, *space)
    slip = quote_slip(exc, text) or flow_slip(exc, text)
    if slip is not None:
        return Problem(filename, slip[0], slip[1], f"expected valid YAML syntax; got {slip[2]}")
    block_slip = (block.key_comment_slip(exc, text)
                  or block.tab_slip(exc, text) or block.run_together_slip(exc, text)
                  or block.dash_slip(exc, text)
                  or block.colon_slip(exc, text) or block.missing_dash_slip(exc, text))  # fmt: skip
    if block_slip is not None:
        return Problem(filename, *block_slip)
    if isinstance(exc, MarkedYAMLError):
        what = f"{exc.problem} ({exc.context})" if exc.context else str(exc.problem)
        plain = _plain_yaml_problem(what)
        if plain is not None:
            what = f"{plain}; the YAML parser says: {exc.problem}"
        return Problem(filename, line, col, f"expected valid YAML syntax; got {what}")
    return Problem(filename, line, col, f"expected valid YAML; got {exc}")


def _first_of_key(text: str, mapping: Any, key: str) -> Located | None:
    """Where ``key`` is first written in the mapping starting at the mark ``mapping``
    (1-based), for a key written twice: the parser names only the second. None when
    not found (a key that is no plain text)."""
    if mapping is None:
        return None
    for node in _mappings(YAML(typ="rt").compose(text)):
        start = node.start_mark
        if (start.line, start.column) == (mapping.line, mapping.column):
            for key_node, _ in node.value:
                if isinstance(key_node, ScalarNode) and key_node.value == key:
                    return (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
    return None


def _mappings(node: Node | None) -> Iterator[MappingNode]:
    """Every mapping node under ``node``, itself included."""
    if isinstance(node, MappingNode):
        yield node
        for key, value in node.value:
            yield from _mappings(key)
            yield from _mappings(value)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            yield from _mappings(item)


_KEY_WITHOUT_COLON = "could not find expected ':'"
#: What the YAML parser's commonest complaints mean in a scenario file, in a designer's
#: words: (a phrase of the parser's message, what was found).
_PLAIN_YAML = (
    ("expected <block end>", "a line indented differently from the lines before it (the "
     "keys of one mapping, and the items of one list, start in the same column)"),
    ("mapping values are not allowed here", "a ':' where no key can start (a line "
     "indented deeper than the key above it, or a value holding ': ' that needs quotes)"),
    (_KEY_WITHOUT_COLON, "a key without its ':', or a line that goes on from the one "
     "above it"),
    ("'\\t' that cannot start any token", "a tab (YAML indents with spaces only)"),
    ("but found another document", "a second document in the file (a line '---' starts "
     "one; a scenario is one document)"),
    ("found undefined alias", "a value starting with '*', which YAML reads as the name of "
     "an '&' anchor that the file does not define (a value starting with '*' needs "
     "quotes)"),
)  # fmt: skip


def _plain_yaml_problem(what: str) -> str | None:
    """What the parser's message ``what`` means, in a designer's words
    (:data:`_PLAIN_YAML`); None for a message not listed there."""
    return next((plain for phrase, plain in _PLAIN_YAML if phrase in what), None)


def _end_of_file(problem: str) -> str:
    """ruamel's "found unexpected end of stream", as a designer would say it."""
    return "the end of the file" if "end of stream" in problem else problem


def _require_mapping(data: Any, builder: _Builder, filename: str) -> None:
    """Raise unless the document's top level is a mapping."""
    if isinstance(data, dict):
        return
    line, col = builder.positions.get((), (1, 1))
    got = "an empty document" if data is None else yaml_type_name(data)
    message = f"expected a mapping of scenario keys; got {got}"
    raise ScenarioError([Problem(filename, line, col, message)])


def yaml_type_name(value: Any) -> str:
    """Name a plain value's YAML type for a designer, with its article.

    Parameters
    ----------
    value : Any
        A plain value as found in :attr:`YamlSource.data`.

    Returns
    -------
    str
        E.g. ``"a mapping"``, ``"a list"``, ``"a number"``, ``"text"``.
    """
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "an empty value" if value is None else f"a {type(value).__name__}"


class _Builder:
    """Convert a ruamel round-trip tree to plain data, recording positions."""

    def __init__(self, filename: str, text: str = "") -> None:
        self.filename = filename
        self.positions: dict[Path, Position] = {}
        self.key_positions: dict[Path, Position] = {}
        self.comments_after: dict[Path, str] = {}
        self._lines = text.splitlines()
        self._done: dict[int, tuple[Any, int]] = {}
        self._active: set[int] = set()
        self._count = 0

    def convert(self, node: Any, path: Path) -> Any:
        """Return ``node`` as plain data; ``path`` is where it sits in the document."""
        if path == () and isinstance(node, (CommentedMap, CommentedSeq)):
            self.positions[()] = (node.lc.line + 1, node.lc.col + 1)
        if isinstance(node, (CommentedMap, CommentedSeq)):
            return self._convert_collection(node, path)
        self._count_values(1, path)
        value = self._scalar(node, path)
        if isinstance(value, str):
            self._note_comment_after(value, path)
        return value

    def _note_comment_after(self, value: str, path: Path) -> None:
        """Record the comment right after the plain text ``value`` on its line, when its
        '#' touches a word (:data:`_COMMENT_AFTER`): a quoted value, or one that runs
        over several lines, does not start its line's text as written."""
        line, col = self.positions.get(path, (0, 0))
        if not value or not 0 < line <= len(self._lines):
            return
        written = self._lines[line - 1][col - 1 :]
        if not written.startswith(value):
            return
        found = _COMMENT_AFTER.match(written, len(value))
        if found is not None:
            self.comments_after[path] = found["comment"]

    def _convert_collection(self, node: CommentedMap | CommentedSeq, path: Path) -> Any:
        """Convert a mapping or sequence once; aliases share the converted result."""
        ident = id(node)
        if ident in self._active:
            self._fail(path, "expected plain YAML values; got an alias that contains itself")
        if ident in self._done:
            value, size = self._done[ident]
            self._count_values(size, path)
            return value
        self._active.add(ident)
        before = self._count
        if isinstance(node, CommentedMap):
            value = self._mapping(node, path)
        else:
            value = self._sequence(node, path)
        self._active.discard(ident)
        self._done[ident] = (value, self._count - before)
        return value

    def _mapping(self, node: CommentedMap, path: Path) -> dict[Any, Any]:
        """Convert a mapping, recording key and value positions of its own entries."""
        self._count_values(1, path)
        result: dict[Any, Any] = {}
        for raw_key, raw_value in node.items():
            key = self._key(raw_key, path)
            child = (*path, key)
            spot = node.lc.data.get(raw_key)
            if spot is not None:
                self._record_entry(child, spot, raw_value is None)
            result[key] = self.convert(raw_value, child)
        return result

    def _record_entry(self, path: Path, spot: list[int], empty: bool) -> None:
        """Record key and value positions of a mapping entry.

        ruamel places an empty value (``hp:`` and nothing else) at the next token, which
        may be lines below; such a value is located at its key instead.
        """
        key_at = (spot[0] + 1, spot[1] + 1)
        value_at = (spot[2] + 1, spot[3] + 1)
        if empty and spot[2] != spot[0]:
            value_at = key_at
        self.key_positions.setdefault(path, key_at)
        self.positions.setdefault(path, value_at)

    def _sequence(self, node: CommentedSeq, path: Path) -> list[Any]:
        """Convert a sequence, recording the position of each item."""
        self._count_values(1, path)
        result: list[Any] = []
        for index, raw_item in enumerate(node):
            spot = node.lc.data.get(index)
            if spot is not None:
                self.positions.setdefault((*path, index), (spot[0] + 1, spot[1] + 1))
            result.append(self.convert(raw_item, (*path, index)))
        return result

    def _key(self, raw_key: Any, path: Path) -> Any:
        """Convert a mapping key, which must be a scalar."""
        if isinstance(raw_key, (Mapping, Sequence)) and not isinstance(raw_key, str):
            kind = "a mapping" if isinstance(raw_key, Mapping) else "a list"
            message = f"expected a plain key; got {kind} as a key"
            lc = getattr(raw_key, "lc", None)
            if lc is not None and lc.line is not None:
                raise ScenarioError([Problem(self.filename, lc.line + 1, lc.col + 1, message)])
            self._fail(path, message)
        return self._scalar(raw_key, path)

    def _scalar(self, node: Any, path: Path) -> Any:
        """Convert one scalar to a plain Python value."""
        if node is None or type(node) in (str, int, float, bool):
            return node
        for kind, convert in _SCALAR_CONVERSIONS:
            if isinstance(node, kind):
                return convert(node)
        self._fail(path, f"expected plain YAML values; got a {type(node).__name__}")
        return None

    def _count_values(self, amount: int, path: Path) -> None:
        """Refuse documents that expand to an unreasonable number of values."""
        self._count += amount
        if self._count > MAX_VALUES:
            message = f"expected at most {MAX_VALUES:_} values; got more (via aliases?)"
            self._fail(path, message)

    def _fail(self, path: Path, message: str) -> None:
        """Raise a ScenarioError located at ``path`` (or its nearest located ancestor)."""
        line, col = YamlSource(self.filename, None, self.positions).locate(path)
        raise ScenarioError([Problem(self.filename, line, col, message)])


_SCALAR_CONVERSIONS: tuple[tuple[type, Any], ...] = (
    (ScalarBoolean, bool),  # subclasses int, not bool: test it first
    (int, int),
    (float, float),
    (str, str),
    (datetime.date, lambda value: value.isoformat()),
)
