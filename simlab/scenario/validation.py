"""Validate scenario data with pydantic and explain every failure to a designer.

Each pydantic error becomes one :class:`~simlab.errors.Problem` located in the YAML file
and phrased as ``expected X; got Y``. The wording is chosen by a small dispatch table on
pydantic's error type; the allowed keys, literal choices and length limits are read from
the model classes by walking the field types along the error's location.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo
from pydantic_core import ErrorDetails

from simlab.errors import (
    NUMBER_WRITTEN,
    InputError,
    Problem,
    ScenarioError,
    closest_name,
    comment_inside_a_key,
    comment_inside_a_value,
    did_you_mean,
    did_you_mean_items,
    key_and_value_run_together,
    suggestion,
)
from simlab.scenario.source import Path, YamlSource, yaml_type_name

M = TypeVar("M", bound=BaseModel)

_MAX_SHOWN = 40
_KEY_MARK = "[key]"


class StrictModel(BaseModel):
    """Base of every scenario model: unknown keys are errors, no type coercion, immutable.

    Strict mode means a quoted ``"5"`` is not an integer and ``true`` is not a number;
    an integer is still accepted where a float is expected. Use ``Literal`` rather than
    ``Enum`` for choices (a strict Enum field accepts only Enum instances).
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    #: Fields the model sets itself, which a designer never writes: an unknown-key
    #: message does not list them among the keys expected.
    KEYS_NOT_WRITTEN: ClassVar[tuple[str, ...]] = ()
    #: Keys of other rule systems that stand for one of this model's: ``{"attacks":
    #: "techniques"}``; an unknown key among them is answered with the key it stands for.
    KEYS_ELSEWHERE: ClassVar[dict[str, str]] = {}


#: The validation context's key that says whether the document is the file as written
#: (no ``--set``/``--vary`` override applied): :func:`as_written`.
AS_WRITTEN = "as_written"
#: The validation context's key for what overrides wrote: the ``id`` of each mapping or
#: list of the document on an overridden path, to the paths under it that were written
#: (``()``: all of it, a value an override gave): :func:`written`.
WRITTEN = "written"
#: The validation context's key for where each value is written in the file
#: (:attr:`YamlSource.positions`), for a message that points at a second place:
#: :func:`written_at`.
POSITIONS = "positions"
#: The validation context's key for the comments that ended a text value where the
#: designer probably meant it to go on (:meth:`YamlSource.cut_by_comment`), for a
#: message about a second place: :func:`cut_at`.
CUT_BY_COMMENT = "cut_by_comment"


def as_written(info: ValidationInfo) -> bool:
    """Whether a model validator checks the file as written, not a document that
    overrides changed. A field that works only with another (``parry_value`` without
    ``defense: parry``) is refused where the designer wrote it, as a value nothing
    reads; left behind by an override (a sweep or comparison that turns a defense off)
    it is what the designer asked for, and accepted: see :func:`written`."""
    return bool((info.context or {}).get(AS_WRITTEN, True))


def written(info: ValidationInfo, data: Any, path: Path) -> bool:
    """Whether the field at ``path`` of ``data`` (the raw mapping a model validator of
    ``mode="wrap"`` was given) was written by the designer: in the file as written, every
    field was; in a document that overrides changed, only what an override wrote
    (``--set Scout.shield_tier=veteran``), not a field an override left behind by
    changing the one it works with (``--vary Fencer.defense=none,parry``). A field that
    could never matter is refused where it was written: an override that writes one is
    the slip the refusal is for."""
    context = info.context or {}
    if context.get(AS_WRITTEN, True):
        return True
    paths: Sequence[Path] = context.get(WRITTEN, {}).get(id(data), ())
    return any(tuple(path[: len(done)]) == tuple(done) for done in paths)


def written_at(info: ValidationInfo, path: Path) -> str:
    """``8:14``, the line and column where the value at ``path`` of the document is
    written in the file, for a message that points at a second place (``the first at
    8:14``); ``""`` where no file says (data validated without one).

    Parameters
    ----------
    info : ValidationInfo
        The validation's (its context holds the file's positions).
    path : tuple
        Mapping keys and list indices from the document's root.

    Returns
    -------
    str
        ``LINE:COL``, or ``""``.
    """
    position = (info.context or {}).get(POSITIONS, {}).get(tuple(path))
    return "" if position is None else f"{position[0]}:{position[1]}"


def cut_at(info: ValidationInfo, path: Path, value: str) -> str:
    """:func:`comment_hint` for the text ``value`` at ``path`` of the document, when a
    comment ended it where the designer probably meant it to go on; ``""`` otherwise.

    Parameters
    ----------
    info : ValidationInfo
        The validation's (its context holds the file's comments after values).
    path : tuple
        Mapping keys and list indices from the document's root.
    value : str
        The value there, as YAML read it.

    Returns
    -------
    str
        The hint, or ``""``.
    """
    comment = (info.context or {}).get(CUT_BY_COMMENT, {}).get(tuple(path))
    return "" if comment is None else comment_hint(value, comment, path)


#: A comment that holds a key's ':' (``#1:`` of ``claw #1: {…}``): the ' #' cut a key.
_KEY_IN_COMMENT = re.compile(r"(?P<rest>#[^:]*?):(?:[ \t]|$)")


def comment_hint(value: str, comment: str, path: Path) -> str:
    """``; the ' #' after 'Goblin' began a comment ('#1'), which YAML leaves out (a value
    holding ' #' needs quotes: name: "Goblin #1")``, for a text value that a comment
    ended (:meth:`YamlSource.cut_by_comment`); for one whose comment holds a key's ':'
    (``claw #1: {…}``), said of that key (:func:`~simlab.errors.comment_inside_a_key`).

    Parameters
    ----------
    value : str
        The value as YAML read it (``Goblin``).
    comment : str
        The comment after it (``#1``).
    path : tuple
        Where the value is written: its last part is its key, or its index in a list.

    Returns
    -------
    str
        The hint, to add at the end of a message.
    """
    key_cut = _KEY_IN_COMMENT.match(comment)
    if key_cut is not None:
        return "; " + comment_inside_a_key(value, key_cut["rest"])
    key = str(path[-1]) if path and not isinstance(path[-1], int) else None
    return "; " + comment_inside_a_value(value, comment, key)


def _context(source: YamlSource) -> dict[str, Any]:
    """The validation context of ``source``: :func:`as_written`, :func:`written`,
    :func:`written_at`, :func:`cut_at`."""
    cut = {path: source.cut_by_comment(path) for path in source.comments_after}
    return {**_written_context(source), CUT_BY_COMMENT: cut}


def _written_context(source: YamlSource) -> dict[str, Any]:
    """The context of :func:`as_written`, :func:`written` and :func:`written_at`."""
    if not source.overrides:
        return {AS_WRITTEN: True, POSITIONS: source.positions}
    done: dict[int, list[Path]] = {}
    for path in source.written:
        node: Any = source.data
        for i, key in enumerate(path):
            done.setdefault(id(node), []).append(tuple(path[i:]))
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
        else:
            _all_written(node, done)
    return {AS_WRITTEN: False, WRITTEN: done, POSITIONS: source.positions}


def _all_written(node: Any, done: dict[int, list[Path]]) -> None:
    """Mark every mapping and list in ``node`` (a value an override gave) as written."""
    if isinstance(node, (dict, list)):
        done.setdefault(id(node), []).append(())
        for item in node.values() if isinstance(node, dict) else node:
            _all_written(item, done)


def validate(
    model_cls: type[M],
    source: YamlSource,
    data: Any | None = None,
    path_prefix: Path = (),
) -> M:
    """Validate scenario data, reporting every failure located in the YAML file.

    Parameters
    ----------
    model_cls : type of BaseModel
        The model to build (normally a :class:`StrictModel` subclass).
    source : YamlSource
        The parsed file; used for its data and positions.
    data : Any, optional
        A part of ``source.data`` to validate instead of the whole document.
    path_prefix : tuple, optional
        Where ``data`` sits in the document, so positions can be found.

    Returns
    -------
    model_cls
        The validated model.

    Raises
    ------
    ScenarioError
        With one Problem per pydantic error, sorted by line.
    """
    target = source.data if data is None else data
    try:
        return model_cls.model_validate(target, context=_context(source))
    except ValidationError as exc:
        errors = [_resolve(model_cls, target, e) for e in exc.errors()]
    errors = _without_misspelt_missing(errors + _hidden_errors(model_cls, source, target, errors))
    problems = [_to_problem(source, path_prefix, item) for item in _choose(errors)]
    raise ScenarioError(sorted_unique(problems)) from None


#: The most keys refused on sight (:func:`_hidden_errors`) that one scenario is validated
#: again without, one round of them at a time.
_MAX_REFUSAL_ROUNDS = 4


def _hidden_errors(
    model_cls: type[M], source: YamlSource, target: Any, errors: list[_Resolved]
) -> list[_Resolved]:
    """The errors that keys refused on sight hid (:func:`_refused_key`): a model that
    refuses a key before its other checks (glitters-d20's ``ac:``, the earlier draft's
    ``attacks:``) says nothing else of the mapping it is in, so that a mistake on the
    line above it was said only once the key was mended. The data is validated again
    without those keys, as the model would read it once they are mended, and the errors
    found then are added; none at the keys removed."""
    found: list[_Resolved] = []
    removed: list[Path] = []
    for _ in range(_MAX_REFUSAL_ROUNDS):
        refused = [path for path in map(_refused_key, errors) if path is not None]
        if not refused:
            break
        removed += refused
        target = _without(target, refused)
        try:
            model_cls.model_validate(target, context=_context(replace(source, data=target)))
        except ValidationError as exc:
            errors = [_resolve(model_cls, target, e) for e in exc.errors()]
            found += [e for e in errors if not any(_under(e.path, done) for done in removed)]
            continue
        break
    return found


def _refused_key(error: _Resolved) -> Path | None:
    """The path of the key ``error`` refuses on sight, which it is then located at: an
    unknown key a model validator answers with what was meant (``ac:``, ``unknown key
    'ac' (an armor class, …)``), or a key the model sets itself (``KEYS_NOT_WRITTEN``:
    the earlier draft's ``attacks:``, set from the ``plan:``), refused at its mapping
    and naming it; None for any other error."""
    if error.kind != "value_error":
        return None
    message, path = _message_verbatim(error), error.path
    parent = _node_at(error.data, path[:-1]) if path else None
    if isinstance(parent, dict) and path[-1] in parent and message.startswith("unknown key"):
        error.on_key = True
        return path
    node = _node_at(error.data, path)
    models = [slot.tp for slot in error.slots if _is_model(slot.tp)]
    written = [key for model in models for key in model.KEYS_NOT_WRITTEN
               if isinstance(node, dict) and key in node and repr(key) in message]  # fmt: skip
    if not written:
        return None
    error.path, error.on_key = (*path, written[0]), True
    error.parent_slots, error.slots = error.slots, []
    return error.path


def _node_at(data: Any, path: Path) -> Any:
    """The value at ``path`` of ``data``; None where the path leads nowhere."""
    for part in path:
        if not _is_step(data, part, missing_here=False):
            return None
        data = data[part]
    return data


def _without(data: Any, paths: list[Path]) -> Any:
    """``data`` without the keys at ``paths``, copied along them (``data`` unchanged)."""
    for path in paths:
        data = _without_one(data, path)
    return data


def _without_one(data: Any, path: Path) -> Any:
    """``data`` without the key at ``path``, the mappings and lists along it copied."""
    if not path:
        return data
    head, rest = path[0], path[1:]
    if isinstance(data, dict) and head in data:
        copy = dict(data)
        if rest:
            copy[head] = _without_one(data[head], rest)
        else:
            del copy[head]
        return copy
    if isinstance(data, list) and isinstance(head, int) and 0 <= head < len(data):
        items = list(data)
        items[head] = _without_one(data[head], rest)
        return items
    return data


def _under(path: Path, top: Path) -> bool:
    """Whether ``path`` is ``top`` or lies under it."""
    return tuple(path[: len(top)]) == tuple(top)


def validate_saved(model_cls: type[M], data: Any, where: str) -> M:
    """Validate data that has no YAML file behind it (an entry of a results file), with
    the same wording as :func:`validate`.

    Parameters
    ----------
    model_cls : type of BaseModel
        The model to build.
    data : Any
        The data.
    where : str
        What the data is, for the message (``results.json: expect[0]``).

    Raises
    ------
    InputError
        ``WHERE.KEY: expected X; got Y`` for the first failure.
    """
    try:
        return model_cls.model_validate(data)
    except ValidationError as exc:
        first = _choose([_resolve(model_cls, data, error) for error in exc.errors()])[0]
        if isinstance(first, _Merged):
            site, message = first.site, _merged_message(first)
        else:
            site, message = first.path, _message(first)
        at = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in site)
        raise InputError(f"{where}{at}: {message}") from None


def problem_at(source: YamlSource, path: Path, message: str, key: bool = False) -> Problem:
    """Make a Problem located at ``path`` in the file, for checks done after validation.

    Parameters
    ----------
    source : YamlSource
        The parsed file.
    path : tuple
        Mapping keys and list indices from the document's root.
    message : str
        ``expected X; got Y``, e.g. ``expected an attack defined under 'attacks'; got 'bite'``.
    key : bool, optional
        Point at the key rather than its value (for unknown or misspelled names).

    Returns
    -------
    Problem
        Located at ``path`` or its nearest located ancestor.
    """
    line, col = source.locate_key(path) if key else source.locate(path)
    comment = None if key else source.cut_by_comment(path)
    value = _node_at(source.data, path)
    if comment is not None and isinstance(value, str):
        message += comment_hint(value, comment, path)
    return Problem(source.filename, line, col, message)


def describe_value(value: Any) -> str:
    """Show a found value to a designer: strings quoted, collections by their YAML type.

    Parameters
    ----------
    value : Any
        A plain value from the scenario data.

    Returns
    -------
    str
        E.g. ``'ten'``, ``5``, ``true``, ``a list``, ``a mapping``, ``an empty value``.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = repr(value)
        return shown if len(shown) <= _MAX_SHOWN else shown[: _MAX_SHOWN - 4] + "...'"
    if isinstance(value, int):
        return _whole_number(value)
    if isinstance(value, float):
        return repr(value)
    return yaml_type_name(value)


def _whole_number(value: int) -> str:
    """A whole number as a scenario writes it: ``5``; from a million on with ``_``
    between thousands (``100_000_000_000``, as the examples' ``encounters:``); one too long
    to read (beyond 24 digits: ``1e99`` read as a whole number) by its size, ``1e+99``."""
    if abs(value) < 10**6:
        return str(value)
    if abs(value) < 10**24:
        return f"{value:_}"
    return f"{float(value):.3g}"


# --- walking the model types along an error location ---------------------------------


@dataclass(frozen=True)
class _Slot:
    """One type a value may have at some location, with constraints from its field."""

    tp: Any
    meta: tuple[Any, ...] = ()


def _unwrap(slots: Iterable[_Slot]) -> list[_Slot]:
    """Flatten Annotated and Union/Optional into concrete alternatives (None dropped)."""
    result: list[_Slot] = []
    for slot in slots:
        origin = typing.get_origin(slot.tp)
        args = typing.get_args(slot.tp)
        if origin is Annotated:
            result += _unwrap([_Slot(args[0], slot.meta + tuple(args[1:]))])
        elif origin in (Union, types.UnionType):
            result += _unwrap(_Slot(arg, slot.meta) for arg in args if arg is not type(None))
        else:
            result.append(slot)
    return result


def _is_model(tp: Any) -> bool:
    """True if ``tp`` is a pydantic model class."""
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _field_key(name: str, info: Any) -> str:
    """The key a designer writes for a model field: its alias if set."""
    return str(info.alias or name)


def _model_keys(model: type[BaseModel]) -> dict[str, Any]:
    """Map each key accepted by ``model`` to its FieldInfo."""
    return {_field_key(name, info): info for name, info in model.model_fields.items()}


def _step_into(slot: _Slot, part: Any) -> list[_Slot]:
    """Types of the child ``part`` (a key or index) of a value typed by ``slot``."""
    tp = slot.tp
    if _is_model(tp):
        info = _model_keys(tp).get(part) if isinstance(part, str) else None
        return [] if info is None else [_Slot(info.annotation, tuple(info.metadata))]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if not isinstance(origin, type) or not args:
        return []
    if issubclass(origin, Mapping):
        return [_Slot(args[-1])]
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        return [_Slot(args[part])] if isinstance(part, int) and part < len(args) else []
    return [_Slot(args[0])] if issubclass(origin, (Sequence, set, frozenset)) else []


def _key_types(slots: Iterable[_Slot]) -> list[_Slot]:
    """Types of the keys of the mappings among ``slots``."""
    found = []
    for slot in slots:
        origin, args = typing.get_origin(slot.tp), typing.get_args(slot.tp)
        if isinstance(origin, type) and issubclass(origin, Mapping) and len(args) == 2:
            found.append(_Slot(args[0]))
    return _unwrap(found)


def _pick_branch(slots: list[_Slot], label: Any) -> list[_Slot]:
    """Keep the union alternatives pydantic named ``label``; all of them if none match."""
    named = [slot for slot in slots if getattr(slot.tp, "__name__", None) == label]
    return named or slots


# --- resolving pydantic's error location into a path in the data ---------------------


@dataclass
class _Resolved:
    """A pydantic error with its location split into data path and pydantic labels."""

    error: ErrorDetails
    path: Path
    site: Path | None
    branch: Any
    on_key: bool
    slots: list[_Slot]
    parent_slots: list[_Slot]
    #: The model validated: the path leads from it.
    root: type[BaseModel] | None = None
    #: The data validated, whose root the path starts at.
    data: Any = None

    @property
    def kind(self) -> str:
        """Pydantic's error type, e.g. ``int_type``."""
        return self.error["type"]


@dataclass
class _Walk:
    """Mutable state while following an error location through data and types."""

    node: Any
    slots: list[_Slot]
    parent_slots: list[_Slot]
    path: list[Any]
    site: Path | None = None
    branch: Any = None
    on_key: bool = False


def _is_step(node: Any, part: Any, missing_here: bool) -> bool:
    """True if ``part`` is a key or index into ``node`` (not a pydantic branch label)."""
    if isinstance(node, dict):
        return part in node or missing_here
    if isinstance(node, list) and isinstance(part, int) and not isinstance(part, bool):
        return 0 <= part < len(node)
    return False


def _resolve(model_cls: type[BaseModel], data: Any, error: ErrorDetails) -> _Resolved:
    """Follow ``error['loc']`` through the data and the model types."""
    loc = error["loc"]
    walk = _Walk(data, _unwrap([_Slot(model_cls)]), [], [])
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        missing_here = error["type"] == "missing" and last
        if error["type"] == "invalid_key" and last:  # pydantic names the key by its str()
            part = _key_named(walk.node, part)
            walk.on_key = True
        _advance(walk, part, missing_here)
    return _Resolved(error, tuple(walk.path), walk.site, walk.branch, walk.on_key, walk.slots,
                     walk.parent_slots, model_cls, data)  # fmt: skip


def _key_named(node: Any, label: Any) -> Any:
    """The key of mapping ``node`` that is not text and reads ``label`` as text (a
    ``null`` or number key pydantic refused), so that its line is found; else ``label``."""
    if isinstance(node, dict):
        for key in node:
            if not isinstance(key, str) and str(key) == label:
                return key
    return label


def _advance(walk: _Walk, part: Any, missing_here: bool) -> None:
    """Take one element of an error location: a data step, a key marker or a label."""
    if part == _KEY_MARK:
        walk.on_key = True
        walk.slots = _key_types(walk.parent_slots)
    elif _is_step(walk.node, part, missing_here):
        walk.path.append(part)
        walk.parent_slots = walk.slots
        walk.slots = _unwrap(s for slot in walk.slots for s in _step_into(slot, part))
        walk.node = walk.node.get(part) if isinstance(walk.node, dict) else walk.node[part]
    else:
        if walk.site is None:
            walk.site, walk.branch = tuple(walk.path), part
        walk.slots = _pick_branch(walk.slots, part)


# --- choosing among union branches ----------------------------------------------------


def _choose(errors: list[_Resolved]) -> list[_Resolved | _Merged]:
    """Keep plain errors; for each failed union, keep its most useful branch's errors."""
    chosen: list[_Resolved | _Merged] = [e for e in errors if e.site is None]
    unions: dict[Path, list[_Resolved]] = {}
    for error in errors:
        if error.site is not None:
            unions.setdefault(error.site, []).append(error)
    for site, group in unions.items():
        chosen += _best_branch(site, group)
    return chosen


@dataclass
class _Merged:
    """Several union branches that all failed on the value's type."""

    site: Path
    branches: list[_Resolved]


def _branch_score(site: Path, errors: list[_Resolved]) -> int:
    """2 if the value got inside this branch, 1 if its type fit, 0 if its type did not."""
    if all(len(e.path) > len(site) for e in errors):
        return 2
    return 0 if any(e.kind in _EXPECTED or e.kind == "literal_error" for e in errors) else 1


def _best_branch(site: Path, group: list[_Resolved]) -> list[_Resolved | _Merged]:
    """The errors of the best union branch, or one merged error if none fit at all."""
    branches: dict[Any, list[_Resolved]] = {}
    for error in group:
        branches.setdefault(error.branch, []).append(error)
    scored = [(_branch_score(site, errs), errs) for errs in branches.values()]
    best = max(score for score, _ in scored)
    if best > 0:
        return list(next(errs for score, errs in scored if score == best))
    return [_Merged(site, [errs[0] for errs in branches.values()])]


# --- wording --------------------------------------------------------------------------

_EXPECTED: dict[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "text",
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
    "frozen_set_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "dataclass_type": "a mapping",
    "none_required": "an empty value",
}

_BOUNDS: dict[str, tuple[str, str]] = {
    "greater_than": ("gt", ">"),
    "greater_than_equal": ("ge", "≥"),
    "less_than": ("lt", "<"),
    "less_than_equal": ("le", "≤"),
    "multiple_of": ("multiple_of", "multiple of"),
}


def _quote_all(values: Iterable[Any]) -> str:
    """``'a', 'b', 'c'`` — each value shown as a designer would write it."""
    return ", ".join(describe_value(value) for value in values)


def _choices(error: _Resolved) -> list[Any]:
    """Allowed values of the Literal or Enum types at the error's location."""
    values: list[Any] = []
    for slot in error.slots:
        if typing.get_origin(slot.tp) is Literal:
            values += typing.get_args(slot.tp)
        elif isinstance(slot.tp, type) and issubclass(slot.tp, enum.Enum):
            values += [member.value for member in slot.tp]
    return values


def _expect_choice(error: _Resolved) -> str:
    """``one of 'a', 'b'`` (or just ``'a'``) for literal and enum errors."""
    values = _choices(error)
    if not values:
        return str((error.error.get("ctx") or {}).get("expected", "an allowed value"))
    return _quote_all(values) if len(values) == 1 else f"one of {_quote_all(values)}"


def _expect_bound(error: _Resolved) -> str:
    """``a number ≥ 1`` for the comparison errors."""
    ctx_key, symbol = _BOUNDS[error.kind]
    limit = (error.error.get("ctx") or {}).get(ctx_key)
    return f"a number {symbol} {describe_value(limit)}"


def _length_limits(error: _Resolved) -> tuple[Any, Any]:
    """(min, max) length from the error's context or the field's constraints."""
    ctx = error.error.get("ctx") or {}
    low, high = ctx.get("min_length"), ctx.get("max_length")
    for slot in error.slots:
        for item in slot.meta:
            low = low if low is not None else getattr(item, "min_length", None)
            high = high if high is not None else getattr(item, "max_length", None)
    return low, high


def _expect_length(error: _Resolved) -> str:
    """``11 items``, ``at least 2 items`` or ``at most 3 characters``."""
    low, high = _length_limits(error)
    unit = "character" if error.kind.startswith("string") else "item"
    if low is not None and low == high:
        return _items(low, unit)
    if error.kind.endswith("too_short"):
        return f"at least {_items(low, unit)}"
    return f"at most {_items(high, unit)}"


def _items(count: Any, unit: str = "item") -> str:
    """``1 item``, ``11 items``: a count and its unit, one of it without the plural's s."""
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


#: What the items of a list of a fixed length stand for, by the key that holds it, where
#: a count alone does not say which item is missing or one too many: a Shattered
#: Spirits profile's rows (docs/rules/shattered-spirits.md, "Attack fields").
_ITEMS_STAND_FOR = {"profile": "the damage on each 2d6 total from 2 to 12, in that order"}


def _items_stand_for(error: _Resolved) -> str:
    """``" (the damage on each 2d6 total from 2 to 12, in that order)"``: what the items
    of a list given too few or too many of stand for (:data:`_ITEMS_STAND_FOR`); ``""``
    for another error, or a list whose items need no saying."""
    key = error.path[-1] if error.path else None
    if error.kind not in ("too_short", "too_long") or not isinstance(key, str):
        return ""
    meant = _ITEMS_STAND_FOR.get(key)
    return "" if meant is None else f" ({meant})"


def _expect_pattern(error: _Resolved) -> str:
    """Text matching a regular expression."""
    pattern = (error.error.get("ctx") or {}).get("pattern")
    return f"text matching the pattern {pattern!r}"


def _expect_fallback(error: _Resolved) -> str:
    """Reuse pydantic's own wording when we have none of ours."""
    msg = error.error["msg"]
    prefix = "Input should be "
    return msg[len(prefix) :] if msg.startswith(prefix) else f"a valid value ({msg})"


def _expect(error: _Resolved) -> str:
    """The ``X`` of ``expected X; got Y`` for one error."""
    if error.kind in _EXPECTED:
        return _EXPECTED[error.kind]
    return _EXPECT_BY_KIND.get(error.kind, _expect_fallback)(error)


_EXPECT_BY_KIND: dict[str, Callable[[_Resolved], str]] = {
    "literal_error": _expect_choice,
    "enum": _expect_choice,
    "is_instance_of": _expect_choice,
    "string_pattern_mismatch": _expect_pattern,
    **{kind: _expect_bound for kind in _BOUNDS},
    **{
        kind: _expect_length
        for kind in ("too_short", "too_long", "string_too_short", "string_too_long")
    },
}


def _got(error: _Resolved) -> str:
    """The ``Y`` of ``expected X; got Y``: the value found, or a count of items."""
    if error.kind in ("too_short", "too_long"):
        count = (error.error.get("ctx") or {}).get("actual_length")
        return _items(count) if count is not None else describe_value(error.error["input"])
    return describe_value(error.error["input"])


def _message_verbatim(error: _Resolved) -> str:
    """A custom validator's own message, without pydantic's prefix."""
    msg = error.error["msg"]
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    return msg


def _listed_keys(error: _Resolved) -> list[str]:
    """The keys a designer may write where an unknown key was found, sorted."""
    models = [slot.tp for slot in error.parent_slots if _is_model(slot.tp)]
    return sorted({key for model in models for key in _model_keys(model)
                   if key not in model.KEYS_NOT_WRITTEN})  # fmt: skip


def _meant_key(error: _Resolved) -> str | None:
    """The key an unknown key was meant to be: the one written with its value run into
    it (``damage:1d6``), the one it stands for in another rule system
    (``KEYS_ELSEWHERE``), else the one it is a likely misspelling of."""
    run_together = _run_together(error)
    if run_together is not None:
        return run_together["key"]
    key = error.path[-1] if error.path else None
    models = [slot.tp for slot in error.parent_slots if _is_model(slot.tp)]
    elsewhere = {k: v for model in models for k, v in model.KEYS_ELSEWHERE.items()}
    if key in elsewhere:
        return elsewhere[key]
    listed = _listed_keys(error)
    synonym = KEY_SYNONYMS.get(str(key).lower())
    return synonym if synonym in listed else closest_name(key, listed)


#: Keys other games (or another rule system here) write for a key, no spelling of which
#: is close to it: ``health: 30`` in a zones-3d6 combatant was two problems, an unknown
#: key with no suggestion and ``expected key 'hp'; got nothing``; ``hp`` in an
#: earlier-draft combatant, whose Health downs it at 0, the same.
KEY_SYNONYMS = {"health": "hp", "hit_points": "hp", "hitpoints": "hp", "life": "hp",
                "hp": "health"}  # fmt: skip


def _without_misspelt_missing(errors: list[_Resolved]) -> list[_Resolved]:
    """The errors without a missing key that an unknown key beside it was meant to be:
    ``endurence`` is one problem, its unknown key ending "did you mean 'endurance'?",
    not that and ``expected key 'endurance'; got nothing`` as well."""
    meant = {(*e.path[:-1], _meant_key(e)) for e in errors if e.kind == "extra_forbidden"}
    return [e for e in errors if e.kind != "missing" or e.path not in meant]


#: A key and its value written as one key with no value: ``damage:1d6`` (no space after
#: the ':'), ``damage 1d6`` (no ':'), ``damage=1d6``.
_RUN_TOGETHER = re.compile(r"(?P<key>[^\s:=]+)(?P<between>:|\s*=\s*|\s+)(?P<value>\S.*)")


def _run_together(error: _Resolved) -> re.Match[str] | None:
    """The key and value an unknown key with no value was written for, when what it
    starts with is a key of its mapping (``damage:1d6``, ``damage 1d6``); else None."""
    key = error.path[-1] if error.path and error.kind == "extra_forbidden" else None
    found = _RUN_TOGETHER.fullmatch(key) if isinstance(key, str) else None
    if found is None or error.error["input"] is not None:
        return None
    return found if found["key"] in _listed_keys(error) else None


def _mapping_as_text(error: _Resolved) -> re.Match[str] | None:
    """The key and value a mapping written as one text was meant to hold, when that text
    starts with one of its keys: ``strain_meter:8``, alone on the line under
    ``params:``, is text to YAML, not a mapping; else None."""
    written = error.error["input"]
    if error.kind not in _MAPPING_KINDS or not isinstance(written, str):
        return None
    found = _RUN_TOGETHER.fullmatch(written)
    keys = {key for slot in error.slots if _is_model(slot.tp) for key in _model_keys(slot.tp)}
    return found if found is not None and found["key"] in keys else None


_MAPPING_KINDS = ("dict_type", "model_type", "model_attributes_type", "dataclass_type")


def _run_together_column(error: _Resolved) -> int:
    """How far into the key (or the text) its slip is: just after its ':', or where the
    ':' belongs."""
    found = _run_together(error) or _mapping_as_text(error)
    if found is None:
        return 0
    return found.end("key") + (1 if found["between"] == ":" else 0)


def _message_mapping(error: _Resolved) -> str:
    """``expected a mapping; got 'hp'``, or for a mapping of one key written as one text,
    ``expected 'strain_meter: 8' (…); got 'strain_meter:8'``."""
    found = _mapping_as_text(error)
    if found is None:
        hint = (_entries_as_a_list(error) or _empty_mapping(error)
                or _attack_key_as_an_attack(error) or _one_needed_key(error))  # fmt: skip
        return f"expected {_expect(error)}; got {_got(error)}{hint}"
    return key_and_value_run_together(found["key"], found["value"], found.group())


def _mapping_models(error: _Resolved) -> list[type[BaseModel]]:
    """The mappings (models) the value of ``error`` may be, of the types its place takes."""
    return [slot.tp for slot in error.slots if _is_model(slot.tp)]


def _attack_key_as_an_attack(error: _Resolved) -> str:
    """Where an attack's own key was indented as an attack (``modifier: 1`` level with the
    attacks above it, not under one): ``" ('modifier' is a key of an attack, indented
    here as an attack of its own: indent it under its attack)"``; ``""`` for any other
    value. Said otherwise, ``modifier: 1`` read as an attack whose one needed key is
    missing (:func:`_one_needed_key`), or as no mapping with no hint at all."""
    if error.root is None or len(error.path) != 2 or not isinstance(error.path[1], str):
        return ""
    attacks = getattr(error.root, "KEYS_ELSEWHERE", {}).get("attacks", "attacks")
    key = error.path[1]
    if error.path[0] != attacks or key not in _keys_at(error.root, ("attacks", "")):
        return ""
    return (f" ({describe_value(key)} is a key of an attack, indented here as an attack "
            "of its own: indent it under its attack)")  # fmt: skip


def _one_needed_key(error: _Resolved) -> str:
    """The mapping a number or a word was meant to be, where the mapping needs one key
    only: ``" (a mapping of the one key it needs: block: {when_damage_at_least: 6})"``
    for ``block: 6``, a shattered-spirits reaction's threshold written without its key;
    ``""`` for any other value or mapping."""
    written, key = error.error["input"], error.path[-1] if error.path else None
    if not isinstance(written, int | float | str) or isinstance(written, bool) or written == "":
        return ""
    models = _mapping_models(error)
    needed = {k for m in models for k, info in _model_keys(m).items() if info.is_required()}
    if not isinstance(key, str) or len(models) != 1 or len(needed) != 1:
        return ""
    return f" (a mapping of the one key it needs: {key}: {{{needed.pop()}: {written}}})"


def _empty_mapping(error: _Resolved) -> str:
    """How a mapping with no entries is written, for a key left with no value where a
    mapping that needs none goes (``sword:``, an opposed-tiers attack without special
    qualities): ``" (a mapping with no entries is written '{}': sword: {})"``; ``""``
    for any other value, or a mapping with a key it needs."""
    key = error.path[-1] if error.path else None
    if error.error["input"] is not None or not isinstance(key, str):
        return ""
    models = _mapping_models(error)
    if not models or any(info.is_required() for m in models for info in m.model_fields.values()):
        return ""
    return f" (a mapping with no entries is written '{{}}': {key}: {{}})"


def _entries_as_a_list(error: _Resolved) -> str:
    """The end of the message for a mapping written as a list of its entries, each a
    mapping of one key (``[damage: 1d6]``, or lines that start with ``- cut: …``), which
    says how a mapping is written; ``""`` for any other value."""
    written = error.error["input"]
    if not isinstance(written, list) or not written:
        return ""
    if not all(isinstance(item, dict) and len(item) == 1 for item in written):
        return ""
    return (" of 'key: value' entries (a mapping's entries go inside '{…}', not '[…]', or "
            "on lines of their own without '- ')")  # fmt: skip


def _message_unknown_key(error: _Resolved) -> str:
    """``unknown key 'hpp'; expected one of: hp, name; did you mean 'hp'?``, or for a key
    and its value written together, ``expected 'hp: 30' (…); got 'hp:30', …``."""
    run_together = _run_together(error)
    if run_together is not None:
        said = key_and_value_run_together(run_together["key"], run_together["value"],
                                          run_together.group())  # fmt: skip
        return f"{said}, a key with no value"
    keys = _listed_keys(error)
    key = error.path[-1] if error.path else "?"
    found = f"unknown key {describe_value(key)}{_whose_key(error)}"
    if not keys:
        return f"{found}; expected no other keys here"
    return f"{found}; expected one of: {', '.join(keys)}{suggestion(_meant_key(error))}"


#: The places of a scenario where a key may be written in the wrong one, as a message
#: names them, with a path to each (any side, attack or combatant).
_PLACES = (
    ("the file's top level", ()),
    ("'{}:'", ("params",)),
    ("an attack under '{}:'", ("attacks", "")),
    ("a combatant under '{}:'", ("sides", "", 0)),
)


def _whose_key(error: _Resolved) -> str:
    """Where an unknown key belongs, when the scenario's rules take it at another place
    (:data:`_PLACES`) or other rules take it at this one (:func:`_key_of_other_rules`);
    ``""`` otherwise."""
    return _key_of_another_place(error) or _key_of_other_rules(error)


def _key_of_another_place(error: _Resolved) -> str:
    """``" (a key of the file's top level)"``: an unknown key that this scenario's rules
    take at another place (``encounters:`` in a combatant, ``initiative_ties:`` at the
    top level, not under ``params:``); ``""`` for any other key, or a model that is no
    rule system's scenario."""
    if _rules_of(error.root) is None or error.root is None or not error.path:
        return ""
    own = getattr(error.root, "KEYS_ELSEWHERE", {})  # draft1: attacks under techniques:
    places = [name.format(own.get(path[0], path[0]) if path else "") for name, path in _PLACES
              if error.path[-1] in _keys_at(error.root, path)]  # fmt: skip
    return f" (a key of {' and '.join(places)})" if places else ""


def _key_of_other_rules(error: _Resolved) -> str:
    """``" (a key of rules glitters-d20, but this scenario's rules are zones-3d6)"``: an
    unknown key that the scenarios of other rule systems take at the same place (a
    combatant's ``dc:`` in a zones-3d6 file, one copied from a glitters-d20 file); ``""``
    for any other key, or a model that is no rule system's scenario."""
    rules = _rules_of(error.root)
    if rules is None or error.root is None or not error.path:
        return ""
    where = _as_other_rules_write_it(error.root, error.path[:-1])
    others = [other for other, model in _scenario_models().items()
              if other != rules and error.path[-1] in _keys_at(model, where)]  # fmt: skip
    if not others:
        return ""
    named = ", ".join(others[:-1]) + " and " + others[-1] if len(others) > 1 else others[0]
    return f" (a key of rules {named}, but this scenario's rules are {rules})"


def _as_other_rules_write_it(model: type[BaseModel], path: Path) -> Path:
    """``path`` of a document ``model`` validates, with each key that stands for another
    rule system's (``KEYS_ELSEWHERE``: draft1's ``techniques``) written as that one's."""
    slots, written = _unwrap([_Slot(model)]), []
    for part in path:
        stands_for = {mine: theirs for slot in slots if _is_model(slot.tp)
                      for theirs, mine in slot.tp.KEYS_ELSEWHERE.items()}  # fmt: skip
        written.append(stands_for.get(part, part))
        slots = _unwrap(s for slot in slots for s in _step_into(slot, part))
    return tuple(written)


def every_rules_key() -> set[str]:
    """Every key a scenario of any rule system takes, at any place, read from the models:
    what tells a key from a word of a value.

    Returns
    -------
    set of str
    """
    keys: set[str] = set()
    seen: set[type[BaseModel]] = set()

    def visit(tp: Any) -> None:
        for slot in _unwrap([_Slot(tp)]):
            if not _is_model(slot.tp):
                for arg in typing.get_args(slot.tp):
                    visit(arg)
            elif slot.tp not in seen:
                seen.add(slot.tp)
                for key, info in _model_keys(slot.tp).items():
                    keys.add(key)
                    visit(info.annotation)

    for model in _scenario_models().values():
        visit(model)
    return keys


def like_a_key(word: str, rules: str | None = None, path: Path | None = None) -> bool:
    """Whether ``word`` is a key or close to one (:func:`~simlab.errors.closest_name`): a
    key a ',' or a line break was left off before (``1d8+2 type: …``), rather than a word
    of a value (``Goblin Chief: Scout``).

    The keys are those the mapping the word stands in may hold: the keys a scenario of
    ``rules`` takes at ``path`` (``plan`` in a shattered-spirits-draft1 combatant, a word
    of a value in an ``expect:`` spec's ``note``); every key of any rule system
    (:func:`every_rules_key`) where those are not known (no rule system or place given,
    or one whose keys are free, such as a side's name).

    Parameters
    ----------
    word : str
        The word written before a ':'.
    rules : str, optional
        The rule system the file names (``rules:``).
    path : tuple, optional
        Mapping keys and list indices from the root to the mapping the word stands in.

    Returns
    -------
    bool
    """
    keys = _keys_of_rules_at(rules, path) or every_rules_key()
    return word in keys or closest_name(word, keys) is not None


def _keys_of_rules_at(rules: str | None, path: Path | None) -> set[str]:
    """The keys a scenario of ``rules`` takes at ``path`` (:func:`_keys_at`); none for an
    unknown rule system or no path."""
    model = _scenario_models().get(rules) if isinstance(rules, str) else None
    return set() if model is None or path is None else _keys_at(model, path)


def _scenario_models() -> dict[str, type[BaseModel]]:
    """The scenario model of each rule system, by its ``rules:`` name."""
    from simlab.rules import RULE_SYSTEMS, rule_module  # the rule models import this module

    return {rules: rule_module(rules, "model").Scenario for rules in RULE_SYSTEMS}


def _rules_of(model: type[BaseModel] | None) -> str | None:
    """The rule system whose scenario ``model`` is; None for another model."""
    return next((rules for rules, scenario in _scenario_models().items() if scenario is model),
                None)  # fmt: skip


def _keys_at(model: type[BaseModel], path: Path) -> set[str]:
    """The keys a designer may write in the mapping at ``path`` (mapping keys and list
    indices from the root, as most rule systems write them: ``attacks``, not draft1's
    ``techniques``) of a document that ``model`` validates, read from the model types
    along it; none where the path leads to no model."""
    slots = _unwrap([_Slot(model)])
    for part in path:
        own = {theirs: mine for slot in slots if _is_model(slot.tp)
               for theirs, mine in slot.tp.KEYS_ELSEWHERE.items()}  # fmt: skip
        slots = _unwrap(s for slot in slots for s in _step_into(slot, own.get(part, part)))
    return {key for slot in slots if _is_model(slot.tp) for key in _model_keys(slot.tp)
            if key not in slot.tp.KEYS_NOT_WRITTEN}  # fmt: skip


def _message_missing(error: _Resolved) -> str:
    """``expected key 'hp'; got nothing``."""
    return f"expected key {describe_value(error.path[-1] if error.path else '?')}; got nothing"


def _message_key_not_text(error: _Resolved) -> str:
    """``expected a key written as text; got an empty value``."""
    return f"expected a key written as text; got {describe_value(error.error['input'])}"


_MESSAGE_BY_KIND: dict[str, Callable[[_Resolved], str]] = {
    "invalid_key": _message_key_not_text,
    "value_error": _message_verbatim,
    "assertion_error": _message_verbatim,
    # a dice expression's own message already says what was expected and what was found
    "dice_expression": _message_verbatim,
    "extra_forbidden": _message_unknown_key,
    "missing": _message_missing,
    **dict.fromkeys(_MAPPING_KINDS, _message_mapping),
}


def _message(error: _Resolved) -> str:
    """The whole designer-facing message for one error."""
    special = _MESSAGE_BY_KIND.get(error.kind)
    if special:
        return special(error)
    message = f"expected {_expect(error)}{_items_stand_for(error)}; got {_got(error)}"
    if error.kind in _NUMBER_KINDS:
        message += number_hint(error.error["input"])
    if error.kind == "list_type" and error.path and error.path[-1] == "between":
        message += _between_hint(error.error["input"])
    elif error.kind == "list_type":
        message += _list_hint(error.error["input"], _item_names(error))
    if error.kind in ("bool_type", "bool_parsing"):
        message += _bool_hint(error.error["input"])
    if _EXPECT_BY_KIND.get(error.kind) is _expect_choice:
        message += _null_hint(error)
        in_a_list = bool(error.path) and isinstance(error.path[-1], int)
        meant = did_you_mean_items if in_a_list else did_you_mean
        message += meant(error.error["input"], _choices(error))
    return message


def _merged_message(merged: _Merged) -> str:
    """``expected an integer or text; got a list`` for a union no branch fit."""
    expected = list(dict.fromkeys(_expect(error) for error in merged.branches))
    joined = ", ".join(expected[:-1]) + " or " + expected[-1] if len(expected) > 1 else expected[0]
    first = merged.branches[0]
    numbers = any(error.kind in _NUMBER_KINDS for error in merged.branches)
    hint = number_hint(first.error["input"]) if numbers else ""
    return f"expected {joined}; got {_got(first)}{hint}"


def _list_hint(written: Any, names: Iterable[str] = ()) -> str:
    """How a list is written, for a value given where one is expected: ``" (a list is
    written inside '[…]': [cut])"`` for text (``attacks: cut``), with its words parted by
    commas where each is one of the ``names`` its items may be, or close to one
    (``attacks: cut thrust``: ``[cut, thrust]``); the items of a list starting with
    ``- `` for a mapping (a side's one combatant without its ``- ``); ``""`` for an
    empty value."""
    if isinstance(written, dict):
        return " (a list's items each start with '- ', or go inside '[…]')"
    if isinstance(written, str):
        return f" (a list is written inside '[…]': [{', '.join(_list_items(written, names))}])"
    return "" if written is None else " (a list is written inside '[…]')"


#: A range written as its two ends in text (``2-6``, ``0.5 to 0.9``, ``1..3``).
_RANGE_WRITTEN = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|\.\.|to)\s*(-?\d+(?:\.\d+)?)\s*")


def _between_hint(written: Any) -> str:
    """How a spec's ``between:`` is written, for text in its place: its two ends
    (``between: 2-6`` is ``[2, 6]``, where :func:`_list_hint` read a run of whole
    numbers, ``[2, 3, 4, 5, 6]``, which ``between:`` refuses as 5 items)."""
    found = _RANGE_WRITTEN.fullmatch(written) if isinstance(written, str) else None
    ends = f": [{found[1]}, {found[2]}]" if found else ""
    return f" (a range is written as its two ends inside '[…]'{ends})"


def _item_names(error: _Resolved) -> list[str]:
    """The names the items of the list at ``error`` may be: the choices of its item type
    (a status, a damage type), or, for a combatant's list of attacks (``attacks:``, or
    the earlier draft's ``plan:``), the attacks the document defines; none elsewhere."""
    items = _unwrap(s for slot in error.slots for s in _step_into(slot, 0))
    names = [str(name) for name in _choices(replace(error, slots=items))]
    path, data = error.path, error.data
    if len(path) == 4 and path[0] == "sides" and path[-1] in _ATTACK_LISTS:
        defined = data.get(_attacks_key(error.root)) if isinstance(data, dict) else None
        names += [str(name) for name in defined] if isinstance(defined, dict) else []
    return names


#: The keys of a combatant whose items are the names of attacks the document defines.
_ATTACK_LISTS = ("attacks", "plan")


def _attacks_key(root: type[BaseModel] | None) -> str:
    """The top-level key a scenario of the model ``root`` defines its attacks under
    (``attacks``, or the key that stands for it: the earlier draft's ``techniques``)."""
    own = getattr(root, "KEYS_ELSEWHERE", {})
    return str(own.get("attacks", "attacks"))


#: A run of whole numbers written as its ends (``1-3``, a Base Defense of faces 1 to 3).
_NUMBER_RUN = re.compile(r"\s*(\d{1,2})\s*[-–]\s*(\d{1,2})\s*")


def _list_items(written: str, names: Iterable[str] = ()) -> list[str]:
    """The items text written for a list means: parted by commas (``bite, claw``), or
    by spaces where each is a number (``1 2``) or one of ``names``, or close to one
    (``dagger longsword``, as written); a run of whole numbers written as its ends
    (``1-3``) is each number of it."""
    run = _NUMBER_RUN.fullmatch(written)
    if run is not None and int(run[1]) < int(run[2]):
        return [str(n) for n in range(int(run[1]), int(run[2]) + 1)]
    words = written.replace(",", " ").split()
    if words and all(_QUOTED_NUMBER.fullmatch(word) for word in words):
        return words
    known = list(names)
    if len(words) > 1 and all(closest_name(word, known) is not None for word in words):
        return words
    return [item.strip() for item in written.split(",") if item.strip()]


_NUMBER_KINDS = ("int_type", "int_parsing", "float_type", "float_parsing")
_QUOTED_NUMBER = re.compile(NUMBER_WRITTEN)
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+")
_THOUSANDFOLD = re.compile(rf"(?P<number>{NUMBER_WRITTEN})[ \t]*(?P<suffix>[kK]|M)")
_PERCENT = re.compile(rf"(?P<number>{NUMBER_WRITTEN})[ \t]*%")
_WITH_A_UNIT = re.compile(rf"(?P<number>{NUMBER_WRITTEN})[ \t]*(?P<unit>[A-Za-z]+)")


def number_hint(written: Any) -> str:
    """How the number a field was given as text is written (``" (write 10_000)"`` for
    ``10k``): one in quotes, with ',' between thousands, ``k`` or ``M`` for thousands or
    millions, ``%`` for a share, a unit after it (``40hp``); ``""`` for other text."""
    if not isinstance(written, str):
        return ""
    from decimal import Decimal

    text = written.strip()
    if _QUOTED_NUMBER.fullmatch(text):
        return f" (a number in quotes is text: write {text} without them)"
    if _THOUSANDS.fullmatch(text):
        return f" (write {text.replace(',', '_')}: a ',' does not part thousands)"
    found = _THOUSANDFOLD.fullmatch(text)
    if found is not None:
        number = Decimal(found["number"].replace("_", "")) * (
            1000 if found["suffix"] in "kK" else 1_000_000
        )
        if number == number.to_integral_value():
            return f" (write {int(number):_})"
    found = _PERCENT.fullmatch(text)
    if found is not None:
        share = Decimal(found["number"].replace("_", "")) / 100
        return f" (a share is written as a fraction: {share.normalize():f})"
    found = _WITH_A_UNIT.fullmatch(text)
    if found is not None and found["unit"].lower() != "d":  # 3d: dice, not 3 of a unit
        return f" (a number is written without a unit: {found['number']})"
    return ""


#: What YAML 1.1 read as true or false, and YAML 1.2 (simlab's) reads as text.
_OLD_BOOLEANS = {"yes": "true", "on": "true", "y": "true", "no": "false", "off": "false",
                 "n": "false"}  # fmt: skip


def _bool_hint(written: Any) -> str:
    """How true or false is written, for ``yes``, ``no``, ``on`` or ``off``: ``" (YAML
    reads yes as text: write true)"``, for ``1`` or ``0`` (``cover: 0``): ``" (write
    false)"``, and for ``"true"``, text only by its quotes, as a number in quotes is
    (:func:`number_hint`); ``""`` for anything else."""
    if type(written) is int and written in (0, 1):
        return f" (write {'true' if written else 'false'})"
    if isinstance(written, str) and written.lower() in ("true", "false"):
        return f" (true or false in quotes is text: write {written.lower()} without them)"
    meant = _OLD_BOOLEANS.get(written.strip().lower()) if isinstance(written, str) else None
    return "" if meant is None else f" (YAML reads {written.strip()} as text: write {meant})"


#: Words for none that YAML reads as text, where a choice that may be null was meant null.
_NONE_WORDS = ("none", "null", "nil", "nothing")


def _null_hint(error: _Resolved) -> str:
    """How none is written for a field that may be null, for ``none`` where it is no
    choice (glitters-d20's ``attribute: none``): ``" (YAML reads none as text: write
    attribute: null for none)"``, as the rule pages write it; ``""`` for anything else."""
    key, written = error.path[-1] if error.path else None, error.error["input"]
    if not isinstance(key, str) or not isinstance(written, str):
        return ""
    if written.strip().lower() not in _NONE_WORDS or not _may_be_null(error, key):
        return ""
    return f" (YAML reads {written.strip()} as text: write {key}: null for none)"


def _may_be_null(error: _Resolved, key: str) -> bool:
    """Whether the field ``key`` of the model that holds the value at ``error`` takes
    null (its type a union with None)."""
    for slot in error.parent_slots:
        field = slot.tp.model_fields.get(key) if _is_model(slot.tp) else None
        if field is not None and type(None) in typing.get_args(field.annotation):
            return True
    return False


# --- placing ---------------------------------------------------------------------------


def _to_problem(source: YamlSource, prefix: Path, item: _Resolved | _Merged) -> Problem:
    """Locate one chosen error in the file and word it."""
    if isinstance(item, _Merged):
        return problem_at(source, prefix + item.site, _merged_message(item))
    path = prefix + item.path
    if item.kind == "missing":
        return problem_at(source, path[:-1], _message(item), key=True)
    on_key = item.on_key or item.kind == "extra_forbidden"
    problem = problem_at(source, path, _message(item), key=on_key)
    shift = _run_together_column(item)
    exact = source.key_positions if on_key else source.positions
    if shift and problem.col is not None and path in exact:
        return replace(problem, col=problem.col + shift)
    return problem


def sorted_unique(problems: list[Problem]) -> list[Problem]:
    """Problems without repeats, in file order (unlocated ones last)."""
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.line is None, p.line or 0, p.col or 0))
