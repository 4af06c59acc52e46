"""Overrides: change fields of a loaded scenario and validate the result like the file.

An override names a field the way a designer thinks of it — ``Defender.guard``,
``strike.damage``, ``params.strain_meter``, ``max_rounds``, ``stone-strike.profile[9]``
(row 9 of the 2..12 chart), ``expect[0].at_least`` (an item of a list, counted from 0)
— and a value. It is applied to the scenario's *document*
(the plain data read from its YAML), which is then validated by the same pydantic models
as the file, so an override can never reach the kernels unchecked. A mistake is reported
naming the override (``--set Defender.guard=x: expected an integer; got 'x'``).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import io
import itertools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML

from simlab.arguments import describe, spelled_as
from simlab.errors import (
    InputError,
    Problem,
    ScenarioError,
    colon_inside_a_value,
    did_you_mean,
)
from simlab.limits import MAX_INTEGER_DIGITS, too_many_digits
from simlab.scenario.common import ScenarioBase
from simlab.scenario.source import Path, YamlSource, parse_yaml
from simlab.scenario.validation import describe_value

__all__ = ["Override", "apply_overrides", "as_overrides", "check_value", "override",
           "parse_assignment", "parse_value", "spelled_value"]  # fmt: skip

#: The first row of a profile chart: ``profile[9]`` is row 9 of the 2d6 chart (rows 2..12).
PROFILE_FIRST_ROW = 2
#: Mappings of named attacks in a scenario document (the earlier draft calls them techniques).
ATTACK_KEYS = ("attacks", "techniques")
#: Fields an override may not change: they select the rule system itself.
FIXED_FIELDS = ("rules",)

#: The key an override's text is parsed under, as the one value of a YAML document.
VALUE_KEY = "value"

#: The most characters of a command-line argument repeated in a message.
MAX_LABEL = 80

_INDEX = re.compile(r"^(?P<field>[^\[\]]+)\[(?P<row>-?\d+)\]$")


@dataclass(frozen=True)
class Override:
    """One change to a scenario: ``target`` (``NAME.FIELD``) set to ``value``.

    ``label`` names the override in error messages: the ``--set`` argument as typed on
    the command line, or the key of the mapping given in Python (``keyed``: its value is
    a Python value, a sweep's from the list under that key too). ``one_of`` marks a value
    that is one of several its argument gives (a sweep's or a tune's ``--vary``): a
    problem of the scenario it makes names the value too (:meth:`named`).
    """

    target: str
    value: Any
    label: str
    one_of: bool = False
    keyed: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", plain_value(self.value))  # numpy's, made Python's
        check_value(self.value, self.label)

    def spelled(self) -> str:
        """``NAME.FIELD=VALUE`` as a reader would type it (``Defender.guard=2``)."""
        return f"{self.target}={spelled_value(self.value)}"

    def named(self) -> str:
        """How a problem of the scenario it makes names it: its label, or, for one value
        of several, ``params.ap_per_round=1 from --vary params.ap_per_round=3,1``."""
        if not self.one_of:
            return self.label
        return f"{self.target}={written_value(self.value, self.keyed)} from {self.label}"

    def brought(self) -> str:
        """How a problem in the file that the override brings names it, among those of
        the same change (:meth:`named`), always with its value: a Python mapping's key
        gets it, ``override params.ap_per_round=1`` as the command line's ``--set
        params.ap_per_round=1`` (the value is what broke the file's line)."""
        keyed_alone = self.keyed and not self.one_of
        return f"{self.label}={spelled_value(self.value)}" if keyed_alone else self.named()


def written_value(value: Any, keyed: bool) -> str:
    """An override's value as its caller wrote it: ``True``, ``False`` or ``None`` given
    in Python (``keyed``: a mapping's value, or one of a sweep's list) as Python spells
    them, any other value as the file's YAML does (:func:`spelled_value`)."""
    if keyed and (value is None or isinstance(value, bool)):
        return repr(value)
    return spelled_value(value)


def spelled_value(value: Any) -> str:
    """An override's value as a reader would type it, in the file's YAML: ``2``, ``1d8``,
    ``[0, 1]``, ``[stun 2]`` and ``{figure: win_rate, side: party}`` (in YAML's flow
    style, quoted only where YAML needs it, keys in their order), never JSON's
    ``["stun 2"]``; read back by ``--set``, it is the same value."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list | dict):
        return json.dumps(value)  # a number, true, false or null: the same in YAML
    text = io.StringIO()
    _flow_yaml().dump(value, text)
    return text.getvalue().strip()


@functools.cache
def _flow_yaml() -> YAML:
    """A YAML writer of one line in flow style, keys in their order."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = True
    yaml.width = 2**31  # never broken onto another line
    yaml.representer.sort_base_mapping_type_on_output = False
    return yaml


#: Scenario fields that set how a run is played, not the fight, each with how it is set
#: for every variant at once, in Python and on the command line: a sweep, a comparison
#: and a tune play every variant with
#: one seed, one number of encounters and one precision. A precision varied point by
#: point would change only how long each point runs, not what it measures: the points
#: would stop at different counts, no longer on the same sample, and a sweep of it
#: would draw the same figures with narrower bands.
RUN_FIELDS = {
    "seed": ("seed= and n=", "--seed and -n"),
    "encounters": ("seed= and n=", "--seed and -n"),
    "precision": ("precision=, which runs every variant to it",
                  "--precision H, which runs every variant to H"),
}  # fmt: skip


def refuse_run_changes(before: ScenarioBase, after: ScenarioBase, label: str, kind: str,
                       fields: Iterable[str] = tuple(RUN_FIELDS)) -> None:  # fmt: skip
    """Refuse a variant of ``before`` that changes a :data:`RUN_FIELDS` field (of
    ``fields``): a ``kind`` (sweep, comparison, tune) would play it with the common
    seed, count and precision all the same, under a label that says otherwise.

    Raises
    ------
    InputError
        Naming ``label``, the field and the argument that sets it for every variant, as
        the reader of ``label`` spells it (:func:`~simlab.arguments.spelled_as`).
    """
    for name, options in RUN_FIELDS.items():
        if name in fields and getattr(after, name) != getattr(before, name):
            raise InputError(f"{label}: expected a change to the fight; got one to {name!r}, "
                             f"which a {kind} keeps the same for every variant (set it with "
                             f"{spelled_as(label, *options)})")  # fmt: skip


#: What a ``kind`` of study plays of its scenario, one fight each, as its messages say.
PLAYED_BY = {"sweep": "its points", "tune": "its values", "comparison": "A and B"}


def refuse_spec_changes(before: ScenarioBase, after: ScenarioBase, changes: list[Override],
                        kind: str) -> None:  # fmt: skip
    """Refuse a variant of ``before`` that changes an ``expect:`` spec (``--vary
    expect[1].at_least=…``): a ``kind`` (sweep, tune, comparison) checks no spec, so
    its variants would play the same fight, alike in every table (a tune ends "the field
    does not move it", a comparison "no shared figure changed"); a bound is tried with
    ``simlab check --set``.

    Raises
    ------
    InputError
        Naming the label of the change (of ``changes``, those that made ``after``) that
        does, and how to try a spec's bound, as its reader spells it.
    """
    if after.expect == before.expect:
        return
    label = next(c.label for c in changes
                 if apply_overrides(before, [c]).expect != before.expect)  # fmt: skip
    how = spelled_as(label, "simlab.check(scenario.with_(...))", "simlab check --set")
    raise InputError(f"{label}: expected a change to the fight; got one to 'expect', which a "
                     f"{kind} does not check: {PLAYED_BY[kind]} would play the same (try a "
                     f"spec's bound with {how})")  # fmt: skip


def argument_label(option: str, text: str) -> str:
    """``OPTION TEXT``, naming a command-line argument in messages; a text longer than
    :data:`MAX_LABEL` characters is cut short (a value of thousands of digits)."""
    shown = text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3] + "..."
    return f"{option} {shown}"


def check_value(value: Any, label: str) -> None:
    """Refuse, anywhere in a Python override's value, what no scenario file could write:
    an integer of more than :data:`~simlab.limits.MAX_INTEGER_DIGITS` digits, as the
    YAML reader refuses it in a file (README, "Limits": Python cannot even show a
    decimal of more than 4,300 digits), or a value that is not a number, a text, a
    bool, None, nor a list or mapping of them (a set, bytes, an object), which
    validation and the record of overrides (:meth:`Override.spelled`) cannot read."""
    if isinstance(value, dict):
        for item in [*value, *value.values()]:
            check_value(item, label)
    elif isinstance(value, list):
        for item in value:
            check_value(item, label)
    elif isinstance(value, int) and abs(value) >= 10**MAX_INTEGER_DIGITS:
        digits = math.floor(math.log10(abs(value))) + 1
        raise InputError(f"{label}: {too_many_digits(digits)}")
    elif value is not None and not isinstance(value, bool | int | float | str):
        raise InputError(f"{label}: expected a value a scenario file can hold (a number, a "
                         f"text, true or false, or a list or mapping of them); got "
                         f"{describe(value)}")  # fmt: skip


#: A range written as LO-HI or LO..HI (a dash or two dots where LO:HI takes a colon).
_RANGE_SLIP = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*(?:\.\.|-|–)\s*(-?\d+(?:\.\d+)?)\s*")


def refuse_range_slip(target: str, spec: str, label: str) -> None:
    """Refuse a range written ``0-4`` or ``0..4``, which would be read as one value that
    no number field takes, naming the ``LO:HI`` meant.

    Raises
    ------
    InputError
        ``--vary Defender.guard=0-4: expected LO:HI (a colon between the ends); got
        '0-4' (did you mean Defender.guard=0:4?)``.
    """
    slip = _RANGE_SLIP.fullmatch(spec)
    if slip is not None:
        raise InputError(f"{label}: expected LO:HI (a colon between the ends); got "
                         f"{spec.strip()!r} (did you mean {target.strip()}="
                         f"{slip[1]}:{slip[2]}?)")  # fmt: skip


def parse_value(text: str, label: str, target: str | None = None) -> Any:
    """Read an override's value as a YAML value (``2``, ``1d8+3``, ``[0, 1, 2]``, ``true``).

    Parameters
    ----------
    text : str
        The value as typed after ``=``.
    label : str
        The argument as typed, for messages (``--set Squire.name=Sir: the Bold``).
    target : str, optional
        The ``NAME.FIELD`` it is set on, for a message's example of the value quoted
        (``Squire.name="Sir: the Bold"``); without it, the value alone.

    Raises
    ------
    InputError
        Naming ``label`` when the text is not a single-line YAML value.
    """
    if "\n" in text or not text.strip():
        raise InputError(f"{label}: expected a value after '='; got {text!r}")
    try:
        return parse_yaml(f"{VALUE_KEY}: {text}", label).data[VALUE_KEY]
    except ScenarioError as err:
        reason = err.problems[0].message
        if f"inside the value of {VALUE_KEY!r}" in reason:  # Sir: the Bold, a ':' of ours
            # said of the override as typed, not of the key its text is parsed under
            reason = "got " + colon_inside_a_value(None, text.strip(), target)
        # the text is read as a document of one line: its end is the value's
        reason = reason.replace("the file", "the value")
        raise InputError(f"{label}: expected a YAML value after '='; {reason}") from None


def parse_assignment(text: str, option: str = "--set") -> Override:
    """Split ``NAME.FIELD=VALUE`` (as given to ``--set``) into an :class:`Override`.

    Raises
    ------
    InputError
        Naming the argument when there is no ``=`` or nothing before it.
    """
    label = argument_label(option, text)
    target, equals, value = text.partition("=")
    if not equals or not target.strip():
        missing = "'='" if not equals else "name before '='"
        raise InputError(f"{label}: expected NAME.FIELD=VALUE; got no {missing}")
    return Override(target.strip(), parse_value(value.strip(), label, target.strip()), label)


def plain_value(value: Any) -> Any:
    """``value`` with numpy's numbers and arrays made Python ones, in lists and mappings
    too (``np.int64(3)`` -> ``3``, ``np.arange(3)`` -> ``[0, 1, 2]``): a notebook's
    values, validated and written (JSON) as the file's would be (every
    :class:`Override`'s value). numpy is not imported: whatever has a ``dtype`` and
    ``tolist`` is taken for one of its values."""
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, dict):
        return {k: plain_value(v) for k, v in value.items()}
    return value


def whole_numbers(value: Any) -> Any:
    """``value`` with every float that has no fraction made an integer (``30.0`` ->
    ``30``), in lists and mappings too: a Python value of an override or a sweep, where
    a notebook's numbers are often floats (``np.linspace(20, 40, 3)``, ``1e3``), as
    ``simulate``'s ``n=1e3`` and ``seed=1e3`` are taken. A field of floats takes the
    integer as the same number. Not for text (``--set Brute.hp=30.0`` is a fraction
    written, as in the file), nor for tune's range ends, which choose between an
    integer search and a continuous one."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    return value


def as_overrides(
    changes: Mapping[str, Any] | Iterable[str] | Iterable[Override],
) -> list[Override]:
    """Overrides from a mapping (values as Python values) or ``NAME.FIELD=VALUE`` strings
    (one string is one override, not its characters).

    Raises
    ------
    InputError
        Naming ``changes`` when it is none of those (``scn.with_(5)`` raised a
        TypeError, "'int' object is not iterable").
    """
    if isinstance(changes, str):
        changes = [changes]
    if isinstance(changes, Mapping):
        return [Override(str(k), whole_numbers(plain_value(v)), f"override {k}", keyed=True)
                for k, v in changes.items()]  # fmt: skip
    if isinstance(changes, bytes | bytearray) or not isinstance(changes, Iterable):
        raise InputError(f"changes: expected a mapping of NAME.FIELD to values, a "
                         f"'NAME.FIELD=VALUE' text or a list of them; got "
                         f"{describe(changes)}")  # fmt: skip
    given = list(changes)
    mappings = [c for c in given if isinstance(c, Mapping)]
    if mappings:  # several variants asked for at once: "override {'Kaito.guard': 2}: no '='"
        raise InputError(f"changes: expected one mapping of every change, or a list of "
                         f"'NAME.FIELD=VALUE' texts; got a list holding the mapping "
                         f"{mappings[0]!r}: one call makes one variant, so for several "
                         f"variants make one call for each mapping (a field's values "
                         f"side by side: simlab.sweep)")  # fmt: skip
    return [c if isinstance(c, Override) else parse_assignment(str(c), "override")
            for c in given]  # fmt: skip


def override(
    scenario: ScenarioBase, changes: Mapping[str, Any] | Iterable[str] | Iterable[Override]
) -> ScenarioBase:
    """A new scenario with ``changes`` applied, validated exactly like the file.

    Parameters
    ----------
    scenario : ScenarioBase
        A scenario loaded with :func:`simlab.load` or :func:`simlab.loads`.
    changes : mapping, str or iterable of str
        ``{"Defender.guard": 2, "strike.profile[9]": 8}`` (Python values), or strings
        ``"Defender.guard=2"`` (values read as YAML, named ``override Defender.guard=2``
        in messages), one or several. A NAME is a
        combatant entry's ``name`` or an attack's name; ``params.FIELD`` is a rule
        parameter; a bare field (``max_rounds``) is a scenario field. ``profile[R]`` is
        row R of the 2..12 chart; ``[N]`` after another list is its item N, counted from
        0 (``expect[0].at_least``, the first spec's bound). Deeper fields are reached with more dots
        (``Kaito.tokens.grit``).

    Returns
    -------
    ScenarioBase
        The changed scenario; ``scenario`` itself is unchanged.

    Raises
    ------
    InputError
        Naming the override, when a name or value is not what the scenario expects.
    """
    return apply_overrides(scenario, as_overrides(changes))


def apply_overrides(scenario: ScenarioBase, overrides: list[Override]) -> ScenarioBase:
    """Apply parsed overrides to the scenario's document and validate it (see :func:`override`)."""
    from simlab.scenario.load import from_source

    source: YamlSource | None = scenario.source
    if source is None:
        raise InputError("expected a scenario loaded with simlab.load or simlab.loads; "
                         "got one without its document")  # fmt: skip
    if not overrides:
        return scenario
    data = copy.deepcopy(source.data)
    # Positions of an earlier override's values are not in the file: forget them.
    positions = {p: at for p, at in source.positions.items() if at[0] >= 0}
    key_positions = {p: at for p, at in source.key_positions.items() if at[0] >= 0}
    changed_by: dict[tuple[Any, ...], Override] = {}
    for k, item in enumerate(overrides):
        path = resolve(data, item, scenario)
        earlier = _overlapping(changed_by, tuple(path))
        if earlier is not None:
            raise InputError(f"{item.label}: expected each field changed once; "
                             f"{earlier.label} changes it too")  # fmt: skip
        changed_by[tuple(path)] = item
        _assign(data, path, item.value)
        # A changed row (a list item, a row key) is checked with its chart: errors name it.
        whole = path[:-1] if isinstance(path[-1], int) else path
        _mark(positions, key_positions, whole, _sentinel(k))
    applied, done = _recorded(source, changed_by, data)
    changed = YamlSource(source.filename, data, positions, key_positions, applied, done,
                         source.comments_after)  # fmt: skip
    try:
        result = from_source(changed)
    except ScenarioError as err:
        raise ScenarioError([_name_override(p, overrides) for p in err.problems]) from None
    result._made_from = (scenario, tuple(o.spelled() for o in overrides))
    return result


def _recorded(source: YamlSource, changed_by: dict[tuple[Any, ...], Override],
              data: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Path, ...]]:  # fmt: skip
    """The overrides a changed scenario records (``NAME.FIELD=VALUE``) and the document
    paths they wrote: ``source``'s own, then those of ``changed_by`` (``data`` is the
    document with them). One entry a field, with the value in effect: a later change of
    a field an earlier override set (``scn.with_({"Brute.guard": 3}).with_({"Brute.guard":
    4})``, or a whole ``profile`` after a row of it) replaces it, and a later change of a
    part of what an earlier one set (a row after the whole ``profile``) records the whole
    as it now is. The record lists each change once, as one ``--set`` each would make it."""
    entries = dict(zip(source.written, source.overrides, strict=True))
    for path, item in changed_by.items():
        spelled = item.spelled()
        for earlier in [p for p in entries if _overlaps(p, path)]:
            target = entries.pop(earlier).partition("=")[0]
            if len(earlier) < len(path):  # the later one changed a part of it
                path, spelled = earlier, f"{target}={spelled_value(_at(data, earlier))}"
        entries[path] = spelled
    return tuple(entries.values()), tuple(entries)


def _overlaps(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether the document paths ``a`` and ``b`` are one, or one holds the other."""
    return a[: len(b)] == b or b[: len(a)] == a


def idle_overrides(before: ScenarioBase, after: ScenarioBase,
                   spelled: Sequence[str]) -> tuple[str, ...]:  # fmt: skip
    """Those of the overrides ``spelled`` (``NAME.FIELD=VALUE``) that change nothing in
    ``before`` (``after`` is ``before`` with all of them): its content, by
    :func:`simlab.report.files.scenario_hash`, is the same with the override as without
    it. One that only validates with others is not.
    Asked for only where a report says so (:attr:`ScenarioBase.idle_overrides`): each
    override applied alone is a validation of its own, which a sweep's points and a
    tune's values need not pay for."""
    from simlab.report.files import scenario_hash

    if len(spelled) == 1:
        same = scenario_hash(after) == scenario_hash(before)
        return tuple(spelled) if same else ()
    idle = []
    for text in spelled:
        try:
            idle += list(
                apply_overrides(before, [parse_assignment(text, "override")]).idle_overrides
            )
        except (ScenarioError, InputError):
            continue
    return tuple(idle)


def _overlapping(
    changed_by: dict[tuple[Any, ...], Override], path: tuple[Any, ...]
) -> Override | None:
    """The earlier override that changes ``path``, a part of it or what holds it
    (``profile`` and ``profile[9]``), if any: both would apply, the last winning."""
    for earlier, item in changed_by.items():
        if _overlaps(earlier, path):
            return item
    return None


def _sentinel(k: int) -> tuple[int, int]:
    """A position no file has: errors located there belong to override ``k``."""
    return (-(k + 1), 0)


def _name_override(problem: Problem, overrides: list[Override]) -> Problem:
    """``problem`` named after the override it is located at; a problem located in the
    file (which validated before the overrides) says which overrides brought it."""
    if problem.line is None or problem.line >= 0:
        labels = ", ".join(item.brought() for item in overrides)
        message = f"{problem.message} (with {labels})"
        return Problem(problem.file, problem.line, problem.col, message)
    item = overrides[-problem.line - 1]
    return Problem(item.named(), None, None, _as_written(problem.message, item))


def _as_written(message: str, item: Override) -> str:
    """``message`` saying a Python mapping's ``True``, ``False`` or ``None`` as its
    caller wrote it, where the scenario's checks say it in YAML (``got true``, ``got an
    empty value``); a ``--set`` text's value was YAML already."""
    written = written_value(item.value, item.keyed)
    if written == spelled_value(item.value):
        return message
    return message.replace(f"got {describe_value(item.value)}", f"got {written}")


def _mark(positions: dict[Path, Any], keys: dict[Path, Any], path: Path, at: Any) -> None:
    """Locate ``path`` and everything under it at ``at`` (the old positions no longer apply)."""
    for table in (positions, keys):
        for old in [p for p in table if p[: len(path)] == path]:
            del table[old]
        table[path] = at


# -- resolving NAME.FIELD to a path in the document -------------------------------------------


def resolve(data: dict[str, Any], item: Override, scenario: ScenarioBase) -> Path:
    """The document path an override's ``NAME.FIELD`` designates in ``data``, the
    document of ``scenario`` (validated: it gives the values the document leaves out).

    Raises
    ------
    InputError
        Naming the override when NAME is neither a combatant, an attack, ``params`` nor a
        scenario field, when a ``[ROW]`` is not a row of a profile chart, or when a field
        follows a value that is not a mapping (``Kaito.hp.x``, ``profile[9].x``).
    """
    parts = item.target.split(".")
    head, rest = _head(data, parts, item, tuple(type(scenario).model_fields))
    if not rest and head and head[0] in ("sides", *ATTACK_KEYS):
        raise InputError(f"{item.label}: expected NAME.FIELD (a field of {parts[0]!r}); "
                         f"got only the name")  # fmt: skip
    if "" in rest:
        raise InputError(f"{item.label}: expected NAME.FIELD with a field between each pair "
                         f"of dots; got {item.target!r}")  # fmt: skip
    if head[:1] == ("sides",) and rest[:1] == ["name"]:
        raise InputError(f"{item.label}: expected a field other than 'name' (--set, --vary and "
                         "expect: find a combatant by it); got 'name'")  # fmt: skip
    path = list(head)
    node: Any = _at(data, head)
    for i, part in enumerate(rest):
        if node is None:  # absent from the file (params:, a default): the value it has
            node = _validated_at(scenario, path)
        if node is not None and not isinstance(node, dict):  # max_rounds.x, expect.0
            raise InputError(_not_a_mapping(item, ".".join(rest[:i]) or str(path[-1]), part, node))
        match = _INDEX.match(part)
        field = match["field"] if match else part
        key = _key(node, field)
        path.append(key)
        node = node.get(key) if isinstance(node, dict) else None
        if match:
            in_file = node is not None
            if node is None:  # absent from the file (expect:): the value it has
                node = _validated_at(scenario, path)
            whole = i == len(rest) - 1 and (in_file or not node)  # may add an item
            position = _list_position(node, field, int(match["row"]), item, whole)
            path.append(ListIndex(position))
            node = node[position] if position < len(node) else None
    return tuple(path)


class ListIndex(int):
    """A path step that is a place in a list (``expect[0]``), not a numbered row key of
    a mapping (``status.12``): where the list is absent, :func:`_assign` makes one."""


def _not_a_mapping(item: Override, before: str, part: str, node: Any) -> str:
    """The message for field ``part`` under ``node``, the value of the field ``before``
    it, which is no mapping; under a list, how an item of it is named (``expect[0]``)."""
    expected = f"{item.label}: expected a field of a mapping after {before!r}; got {part!r}"
    if not isinstance(node, list):
        return f"{expected} under the value {node!r}"
    return f"{expected} under a list (an item of a list is named by its place from 0: {before}[0])"


def _validated_at(scenario: ScenarioBase, path: list[Any]) -> Any:
    """The value at document ``path`` in the validated ``scenario`` (its defaults
    filled in), or None where it has none."""
    node: Any = scenario.model_dump(by_alias=True)
    for key in path:
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            return None
    return node


def _head(
    data: dict[str, Any], parts: list[str], item: Override, fields: tuple[str, ...]
) -> tuple[Path, list[str]]:
    """The path of the longest leading NAME (names may contain dots) and the fields after it."""
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        found = _named(data, name, item)
        if found is not None:
            return found, parts[cut:]
    first = parts[0]
    indexed = _INDEX.match(first)
    first = indexed["field"] if indexed else first
    if first in FIXED_FIELDS:
        raise InputError(
            f"{item.label}: expected a field other than {first!r} (a variant "
            f"runs under the scenario's own rule system); got {first!r}"
        )
    if first in fields and first not in FIXED_FIELDS:
        # an item of a list (expect[0]) is read as a field of the document is
        return ((), parts) if indexed else ((first,), parts[1:])
    combatants, attacks = _names_in(data)
    suggestion = did_you_mean(first, [*combatants, *attacks, *fields]) or _owners_said(
        data, first, parts
    )
    raise InputError(f"{item.label}: expected {_known_names(combatants, attacks)}; got "
                     f"{first!r}{suggestion}")  # fmt: skip


def _owners_said(data: dict[str, Any], first: str, parts: list[str]) -> str:
    """``; did you mean 'Attacker.hp' or 'Defender.hp'?`` for a field written without the
    combatant or attack it is of (``--vary hp=20:40``, ``--set profile[9]=8``), naming
    those whose entry has it (past two, the first of them: ``; did you mean NAME.dc, such
    as 'Bruna.dc'?``); "" where none has."""
    owners = [m["name"] for _, members in _sides(data) for m in members
              if isinstance(m, dict) and first in m and "name" in m]  # fmt: skip
    owners += [name for key in ATTACK_KEYS if isinstance(data.get(key), dict)
               for name, attack in data[key].items()
               if isinstance(attack, dict) and first in attack]  # fmt: skip
    meant = [repr(".".join([str(owner), *parts])) for owner in dict.fromkeys(owners)]
    if len(meant) > 2:
        return f"; did you mean NAME.{'.'.join(parts)}, such as {meant[0]}?"
    return f"; did you mean {' or '.join(meant)}?" if meant else ""


def _named(data: dict[str, Any], name: str, item: Override) -> Path | None:
    """Path of the combatant entry or attack called ``name``; None when there is none."""
    combatants = [("sides", side, i) for side, members in _sides(data)
                  for i, m in enumerate(members)
                  if isinstance(m, dict) and m.get("name") == name]  # fmt: skip
    attacks = [(key, name) for key in ATTACK_KEYS if isinstance(data.get(key), dict)
               and name in data[key]]  # fmt: skip
    if combatants and attacks:
        raise InputError(f"{item.label}: expected a name that is a combatant or an attack; "
                         f"got {name!r}, which is both")  # fmt: skip
    found = combatants + attacks
    return found[0] if found else None


def _sides(data: dict[str, Any]) -> list[tuple[str, list[Any]]]:
    sides = data.get("sides")
    if not isinstance(sides, dict):
        return []
    return [(s, m) for s, m in sides.items() if isinstance(m, list)]


def _names_in(data: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The names of the combatants and of the attacks a scenario's data defines."""
    combatants = [m["name"] for _, ms in _sides(data) for m in ms
                  if isinstance(m, dict) and "name" in m]  # fmt: skip
    attacks = [a for key in ATTACK_KEYS if isinstance(data.get(key), dict) for a in data[key]]
    return combatants, attacks


def _known_names(combatants: list[Any], attacks: list[Any]) -> str:
    return (f"a combatant ({', '.join(map(str, combatants)) or 'none'}), an attack "
            f"({', '.join(map(str, attacks)) or 'none'}), params.FIELD or a scenario field "
            "such as max_rounds")  # fmt: skip


def _key(node: Any, field: str) -> Any:
    """``field`` as a key of ``node``: a number is an integer key (a profile's ``status``
    and ``tier`` rows) unless the mapping has it as text."""
    if field.isdigit() and not (isinstance(node, dict) and field in node):
        return int(field)
    return field


def _list_position(node: Any, field: str, number: int, item: Override, whole: bool) -> int:
    """Index of ``field[number]`` in the list ``node``: row ``number`` of a profile chart
    (rows 2..12 on 2d6), else the item ``number`` counted from 0 (``expect[0]``, the
    first spec), or, set ``whole`` (the override's last step), the next index, which adds
    an item (``Kaito.attacks[1]=stone-strike`` after its one attack)."""
    if not isinstance(node, list):
        raise InputError(f"{item.label}: expected [N] only after a list (profile[9] is row 9 "
                         f"of a profile chart, expect[0] the first spec); got "
                         f"{field}[{number}]{did_you_mean(field, ['profile'])}")  # fmt: skip
    if field == "profile":
        return _profile_position(node, number, item)
    if 0 <= number < len(node) or (whole and number == len(node)):
        return number
    how = f"to add one, set it whole: {field}[{len(node)}]=…"
    if not node:
        raise InputError(f"{item.label}: expected an item of {field!r}; got {field}[{number}], "
                         f"and {field!r} has none ({how}, or set the whole list: "
                         f"{field}=[…])")  # fmt: skip
    raise InputError(f"{item.label}: expected an item of {field!r}, {field}[0] to "
                     f"{field}[{len(node) - 1}] (counted from 0); got {field}[{number}] "
                     f"({how})")  # fmt: skip


def _profile_position(node: list[Any], row: int, item: Override) -> int:
    """Index of row ``row`` of a profile chart (rows 2..12 on 2d6)."""
    last = PROFILE_FIRST_ROW + len(node) - 1
    if not PROFILE_FIRST_ROW <= row <= last:
        raise InputError(f"{item.label}: expected a row of the profile chart, "
                         f"{PROFILE_FIRST_ROW} to {last}; got {row}")  # fmt: skip
    return row - PROFILE_FIRST_ROW


def _at(data: Any, path: Path) -> Any:
    """The value at ``path``, or None where the document has nothing there."""
    node = data
    for key in path:
        node = node.get(key) if isinstance(node, dict) else node[key]
    return node


def _assign(data: dict[str, Any], path: Path, value: Any) -> None:
    """Set ``value`` at ``path``, creating mappings on the way (``params`` may be absent)
    and a list before an index (``expect:``); an index one past a list's end adds the
    item (:func:`_list_position`)."""
    node: Any = data
    for key, after in itertools.pairwise(path):
        if isinstance(node, dict):
            if not isinstance(node.get(key), (dict, list)):
                node[key] = [] if isinstance(after, ListIndex) else {}
            node = node[key]
        else:
            node = node[key]
    if isinstance(node, list) and path[-1] == len(node):
        node.append(copy.deepcopy(value))
    else:
        node[path[-1]] = copy.deepcopy(value)


#: Per rule system, the combatant field that adds a flat bonus to every attack's dice
#: damage, where the flat part is not written in the dice alone (zones-3d6's bonus damage).
DAMAGE_BONUS_FIELDS = {"zones-3d6": "bonus_damage"}


def flat_dice_note(scenario: ScenarioBase, target: str, values: Sequence[Any],
                   label: str) -> str | None:  # fmt: skip
    """Say that varying a dice field over whole numbers (``--vary greataxe.damage=1:10``)
    tries flat numbers in place of its dice, which may be what the designer means, and
    may not: ``greataxe.damage was 1d12+2; the values tried are flat numbers (to keep
    the dice, list them: greataxe.damage=1d12+1,1d12+3)``, and, where the rule system
    adds a flat bonus to an attack's dice through a field of its makers
    (:data:`DAMAGE_BONUS_FIELDS`), that field (``; its bonus: Ogre.bonus_damage``).

    Parameters
    ----------
    scenario : ScenarioBase
        The scenario varied, as loaded (its document gives the field's dice as written).
    target : str
        The varied field, ``NAME.FIELD``.
    values : Sequence
        The values tried.
    label : str
        How messages name the argument (a problem of ``target`` is refused there).

    Returns
    -------
    str or None
        The note; None where the field holds no dice or a value tried is not a number.
    """
    from simlab.dice import DiceError, parse_dice

    if not values or not all(type(v) is int for v in values) or scenario.source is None:
        return None
    data = scenario.source.data
    path = resolve(data, Override(target, values[0], label), scenario)
    was = _validated_at(scenario, list(path))
    try:
        dice = parse_dice(was) if isinstance(was, str) else None
    except DiceError:
        return None
    if dice is None or not dice.terms:
        return None
    base = str(dataclasses.replace(dice, constant=0))
    examples = ",".join(
        f"{base}{c:+d}" if c else base for c in (dice.constant - 1, dice.constant + 1)
    )
    note = (f"{target} was {was}; the values tried are flat numbers (to keep the dice, "
            f"list them: {target}={examples}")  # fmt: skip
    bonus = DAMAGE_BONUS_FIELDS.get(scenario.rules)
    makers = _makers_of(data, path[1]) if bonus and path[0] in ATTACK_KEYS else []
    if makers:
        note += f"; its flat bonus: {', '.join(f'{m}.{bonus}' for m in makers)}"
    return note + ")"


def _makers_of(data: dict[str, Any], attack: Any) -> list[str]:
    """The names of the combatant entries of document ``data`` that list ``attack``."""
    return [member["name"] for _, members in _sides(data) for member in members
            if isinstance(member, dict) and attack in (member.get("attacks") or [])]  # fmt: skip
