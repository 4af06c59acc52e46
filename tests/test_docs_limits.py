"""The limits ``simlab validate`` enforces are written down where a designer reads them.

Every numeric range and length limit of a rule system's models (pydantic ``Field(ge=…,
le=…, min_length=…, max_length=…)``) appears in the "**Limits**" table of its page
``docs/rules/<rules>.md``; those of the fields every system shares (``simlab/scenario/
common.py``: ``encounters``, ``seed``, ``max_rounds``, ``expect:``, a combatant's
``name`` and ``count``…) appear once, in the README's table under "Scenarios". A table
row names where the field is written (``sides:``, ``attacks:``, ``params:``… or
``(top level)``), the field below that (``tokens.grit``, ``stances.speed``: a list's
items have no index) and what is allowed, with both ends of the range. A row for a field
that has no such limit any more fails too, so the tables cannot drift from the code
either way. Fast: no simulation.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import annotated_types as at
import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from simlab.rules import RULE_SYSTEMS, rule_module

ROOT = Path(__file__).resolve().parents[1]
#: The module of the models every rule system shares: their limits are the README's.
SHARED = "simlab.scenario.common"
TOP = "(top level)"


class Limit(NamedTuple):
    """A field's limit: where it is written (a top-level key, or ``TOP``), the field
    below it, and the numbers a page must state (the range's ends, or a list's or a
    text's length)."""

    under: str
    field: str
    numbers: tuple[float, ...]  # ints where the model's are


def _ends(metadata: list[Any]) -> dict[str, float]:
    """The ends a field's constraints set: ``Ge(1), Le(64)`` → {low: 1, high: 64}; a
    length's ends for a list or a text."""
    found: dict[str, float] = {}
    for item in metadata:
        if isinstance(item, FieldInfo):  # a Field(...) inside Annotated[...] (``Name``)
            found.update(_ends(item.metadata))
        elif isinstance(item, at.Ge | at.Gt):
            found["low"] = item.ge if isinstance(item, at.Ge) else item.gt
        elif isinstance(item, at.Le | at.Lt):
            found["high"] = item.le if isinstance(item, at.Le) else item.lt
        elif isinstance(item, at.MinLen):
            found["low"] = item.min_length
        elif isinstance(item, at.MaxLen):
            found["high"] = item.max_length
    return found


def _defined_in(model: type[BaseModel], name: str) -> str:
    """The module of the class that declares the field ``name`` of ``model`` (a
    subclass that re-declares it owns it: draft1's ``Technique.status``)."""
    owner = next(c for c in model.__mro__ if name in vars(c).get("__annotations__", {}))
    return owner.__module__


def _walk(tp: Any, path: tuple[str, ...], metadata: list[Any],
          shared: bool) -> Iterator[tuple[tuple[str, ...], tuple[float, ...], bool]]:  # fmt: skip
    """(path, bounds, shared) of every limit at or below the type ``tp``: into models'
    fields, ``list[...]`` items, ``dict[...]`` values and the arms of ``X | None``."""
    if typing.get_origin(tp) is typing.Annotated:
        inner, *more = typing.get_args(tp)
        yield from _walk(inner, path, [*metadata, *more], shared)
        return
    ends = _ends(metadata)
    if ends:
        yield path, tuple(ends[end] for end in ("low", "high") if end in ends), shared
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        for name, field in tp.model_fields.items():
            if name in tp.KEYS_NOT_WRITTEN:  # type: ignore[attr-defined]
                continue  # set by the model itself (draft1's attacks, from the plan)
            owned = shared or _defined_in(tp, name) == SHARED
            yield from _walk(field.annotation, (*path, name), list(field.metadata), owned)
        return
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is list:
        yield from _walk(args[0], path, [], shared)
    elif origin is dict:
        yield from _walk(args[1], path, [], shared)
    elif origin in (typing.Union, types.UnionType):
        for arm in args:
            yield from _walk(arm, path, [], shared)


def model_limits(rules: str) -> tuple[set[Limit], set[Limit]]:
    """The limits of the scenario model of ``rules`` (the class the loader validates a
    file with): (the system's own, the shared ones)."""
    scenario = rule_module(rules, "model").Scenario
    own: set[Limit] = set()
    shared: set[Limit] = set()
    for path, numbers, is_shared in _walk(scenario, (), [], False):
        under, field = (TOP, path[0]) if len(path) == 1 else (path[0], ".".join(path[1:]))
        (shared if is_shared else own).add(Limit(under, field, numbers))
    return own, shared


def _validated_limits(rules: str) -> set[Limit]:
    """The limits of ``rules`` that a validator checks rather than a ``Field``
    constraint, which introspection cannot see: stated here by hand, with the constant
    the validator reads where it has one."""
    model = rule_module(rules, "model")
    if rules in ("shattered-spirits", "shattered-spirits-draft1"):
        from simlab.rules.shattered_spirits.model import MAX_STATUS_SIZE, ROWS

        key = "techniques" if rules == "shattered-spirits-draft1" else "attacks"
        return {Limit(key, "profile", (0, 999)),  # each row's damage (_damage_in_range)
                Limit(key, "status", (ROWS[0], ROWS[-1], 1, MAX_STATUS_SIZE)),
                Limit(key, "tier", (ROWS[0], ROWS[-1]))}  # fmt: skip
    if rules == "glitters-d20":
        return {Limit("sides", "attributes", (0, model.MAX_ATTRIBUTE))}
    if rules == "zones-3d6":
        return {Limit("sides", "base_defense", (1,))}  # a face, up to the largest die
    return set()


NUMBER = re.compile(r"[−-]?\d(?:,?\d)*(?:\.\d+)?")


def _numbers(text: str) -> set[float]:
    """The numbers written in ``text``: ``−50`` (a minus sign or a hyphen), ``100,000``
    (whole numbers kept exact: a seed goes up to 2**64 − 1)."""
    written = (n.replace("−", "-").replace(",", "") for n in NUMBER.findall(text))
    return {float(n) if "." in n else int(n) for n in written}


def limits_table(text: str, where: str) -> dict[tuple[str, str], str]:
    """The rows of the table under the paragraph that starts ``**Limits`` in ``text``:
    (under, field) → allowed."""
    start = text.find("\n**Limits")
    assert start != -1, f"{where}: no **Limits** section"
    lines = text[start:].split("\n\n| ", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [c.strip() for c in lines[0].split("|")] == ["under", "field", "allowed", ""]
    rows: dict[tuple[str, str], str] = {}
    for line in lines[2:]:
        under, field, allowed = (c.strip().strip("`") for c in line.strip("|").split("|"))
        assert (under.rstrip(":"), field) not in rows, f"{where}: {under} {field} twice"
        rows[under.rstrip(":"), field] = allowed
    return rows


def _mismatches(limits: set[Limit], rows: dict[tuple[str, str], str]) -> list[str]:
    """Each limit missing from ``rows`` or stated with other numbers, and each row of
    ``rows`` with no limit behind it."""
    wanted: dict[tuple[str, str], set[float]] = {}
    for limit in limits:
        wanted.setdefault((limit.under, limit.field), set()).update(limit.numbers)
    problems = [f"{under} {field}: {sorted(numbers)} not in {rows.get((under, field))!r}"
                for (under, field), numbers in sorted(wanted.items())
                if not numbers <= _numbers(rows.get((under, field), ""))]  # fmt: skip
    problems += [f"{under} {field}: a row for no limit" for under, field in rows
                 if (under, field) not in wanted]  # fmt: skip
    return problems


def _page(rules: str) -> str:
    return (ROOT / "docs/rules" / f"{rules}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_rule_page_states_every_limit_of_its_models(rules: str) -> None:
    own, _ = model_limits(rules)
    rows = limits_table(_page(rules), f"{rules}.md")
    assert _mismatches(own | _validated_limits(rules), rows) == []


def test_readme_states_every_limit_the_rule_systems_share() -> None:
    """Once, under "Scenarios"; the total of combatants (``MAX_COMBATANTS``, a check of
    the sides, not a ``Field``) is in the row of ``count``."""
    from simlab.scenario.common import MAX_COMBATANTS

    shared = set().union(*(model_limits(rules)[1] for rules in RULE_SYSTEMS))
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    scenarios = text[text.index("\n## Scenarios\n") : text.index("\n### Rule systems\n")]
    rows = limits_table(scenarios, "README.md, Scenarios")
    assert _mismatches(shared, rows) == []
    assert MAX_COMBATANTS in _numbers(rows["sides", "count"])


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_rule_page_points_to_the_shared_limits(rules: str) -> None:
    section = _page(rules).split("\n**Limits", 1)[1].split("\n\n| ", 1)[0]
    assert "README" in section and "Scenarios" in section


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_parameter_rows_name_every_choice(rules: str) -> None:
    """A parameter of a few choices (``Literal``) names each in its row of the page's
    parameter table (glitters-d20's ``rounding`` once named only ``down``)."""
    params = rule_module(rules, "model").Params
    page = _page(rules).splitlines()
    missing = []
    for name, field in params.model_fields.items():
        if typing.get_origin(field.annotation) is not typing.Literal:
            continue
        row = next((line for line in page if line.startswith(f"| `{name}` |")), "")
        missing += [f"{name}: {choice}" for choice in typing.get_args(field.annotation)
                    if f"`{choice}`" not in row]  # fmt: skip
    assert missing == []


def test_the_walk_finds_nested_and_optional_fields() -> None:
    """The introspection reaches a model in a list in a dict (a Stance of a combatant),
    an optional model (a Spirit), an optional int (glitters-d20's ``dc``) and a shared
    field of a subclass (``count``)."""
    own, shared = model_limits("shattered-spirits")
    assert Limit("sides", "stances.speed", (1, 6)) in own
    assert Limit("sides", "spirit.hp", (1, 100_000)) in own
    assert Limit("sides", "react.block.when_damage_at_least", (0, 999)) in own
    assert Limit("sides", "count", (1, 64)) in shared
    assert Limit("sides", "dc", (0, 200)) in model_limits("glitters-d20")[0]
    assert _numbers("−50 to 50; 100,000") == {-50, 50, 100_000}
