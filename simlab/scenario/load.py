"""Read a scenario file: YAML → structure (pydantic) → meaning (cross references).

Phase one checks the shape of the document against the model selected by ``rules:``;
phase two checks what only the whole scenario can tell (an attack that a combatant uses
but nobody defined). Every problem is reported with ``file:line:col``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from simlab.arguments import describe, is_path, names_an_entry, path_argument
from simlab.errors import InputError, Problem, ScenarioError, did_you_mean, did_you_mean_items
from simlab.rules import RULE_SYSTEMS, rule_module
from simlab.scenario.common import ScenarioBase
from simlab.scenario.source import YamlSource, parse_yaml, read_yaml
from simlab.scenario.validation import describe_value, problem_at, sorted_unique, validate


def load(path: str | os.PathLike[str]) -> ScenarioBase:
    """Load and validate a scenario file.

    Parameters
    ----------
    path : str or path-like
        The scenario's YAML file.

    Returns
    -------
    ScenarioBase
        The frozen, typed scenario of the rule system named by its ``rules:`` key.

    Raises
    ------
    ScenarioError
        With every problem found, each as ``file:line:col: expected X; got Y``.
    InputError
        When ``path`` is not a path at all (None, a number, a loaded scenario).
    """
    if not is_path(path) or os.fspath(path) == "":
        got = "an empty path ''" if is_path(path) else describe(path)
        raise InputError(f"expected the path of a scenario file; got {got}")
    _refuse_text_as_path(os.fspath(path))
    try:
        return from_source(read_yaml(path))
    except ScenarioError:
        _refuse_simlab_output(path)
        raise


def _refuse_text_as_path(path: str) -> None:
    """Refuse a scenario's text given as its path (several lines, or one ``{…}`` mapping
    in flow style; no such file), pointing to :func:`loads`: the message repeated the
    whole text, then said no such file."""
    lines = path.splitlines()
    one_mapping = path.lstrip().startswith("{") and ":" in path
    if (len(lines) > 1 or one_mapping) and not names_an_entry(path):
        shape = f"a str of {len(lines)} lines" if len(lines) > 1 else "one {…} mapping"
        raise InputError(f"expected the path of a scenario file; got YAML text ({shape}): "
                         f"load text with simlab.loads(text)")  # fmt: skip


def _refuse_simlab_output(path: str | os.PathLike[str]) -> None:
    """Refuse a file or folder simlab wrote (a sweep's, a run's results…) as what it is,
    saying what to do with it, where its fields would read as a scenario's mistakes."""
    from simlab.report.files import A_SCENARIO, simlab_output

    output = simlab_output(path)
    if output is not None:
        problem = Problem(os.fspath(path), None, None, output.refusal(A_SCENARIO))
        raise ScenarioError([problem]) from None


def loads(text: str, filename: str = "<string>") -> ScenarioBase:
    """Load a scenario from YAML text (notebooks, tests); see :func:`load`.

    Parameters
    ----------
    text : str
        The scenario file's text (README, "Scenarios").
    filename : str
        How messages name the text (``<string>:3:5: …``).

    Returns
    -------
    ScenarioBase
        The validated scenario of the rule system its ``rules:`` names.

    Raises
    ------
    InputError
        When ``text`` or ``filename`` is not a str (None, a number, bytes).
    """
    if not isinstance(text, str):
        raise InputError(f"expected YAML text (a str); got {describe(text)}")
    if not isinstance(filename, str):
        raise InputError(f"expected a str for filename; got {describe(filename)}")
    if "\n" not in text and text.strip() and names_an_entry(text, "file"):
        raise InputError(f"expected YAML text (a str); got {describe(text)}, the path of a "
                         "file: load a file with simlab.load(path)")  # fmt: skip
    return from_source(parse_yaml(text, filename))


def scenario_of(value: object, name: str = "scenario") -> ScenarioBase:
    """The scenario a public function was given: a loaded one as it is, a path loaded.

    Parameters
    ----------
    value : object
        A loaded scenario (:func:`load`) or the path of a scenario file.
    name : str
        The argument's name, for the message when it is not ``scenario`` (``"b"``).

    Raises
    ------
    InputError
        When ``value`` is neither (None, a dict, a number, a result, a list):
        ``expected a scenario (simlab.load) or the path of a scenario file; got None``.
    ScenarioError
        When the file cannot be loaded (:func:`load`).
    """
    if isinstance(value, ScenarioBase):
        return value
    if not is_path(value):
        named = "" if name == "scenario" else f" for {name}"
        raise InputError(f"expected a scenario (simlab.load) or the path of a scenario "
                         f"file{named}; got {describe(value)}")  # fmt: skip
    return load(value)  # type: ignore[arg-type]


def from_source(source: YamlSource) -> ScenarioBase:
    """Validate a parsed YAML document as a scenario (both phases)."""
    model = rule_module(_rules_id(source), "model")
    try:
        scenario: ScenarioBase = validate(model.Scenario, source)
    except ScenarioError as error:
        # a typo elsewhere in an entry hides its unknown attacks from the checks below:
        # say them now, so that one round of fixes mends both
        problems = error.problems + _written_attack_problems(source)
        raise ScenarioError(sorted_unique(problems)) from None
    problems = reference_problems(scenario, source)
    if problems:
        raise ScenarioError(problems)
    scenario._source = source
    return scenario


def _rules_id(source: YamlSource) -> str:
    """The rule system named by ``rules:``: one of the known names, written as text
    (README, "Rule systems"); anything else (a list, a number, a misspelling) is refused
    at its value."""
    rules: Any = source.data.get("rules")
    if isinstance(rules, str) and rules in RULE_SYSTEMS:
        return rules
    known = ", ".join(repr(k) for k in RULE_SYSTEMS)
    if rules is None:
        message = f"expected key 'rules' with one of {known}; got nothing"
        raise ScenarioError([problem_at(source, (), message)])
    suggestion = did_you_mean(rules, RULE_SYSTEMS)
    message = f"expected one of {known}; got {describe_value(rules)}{suggestion}"
    raise ScenarioError([problem_at(source, ("rules",), message)])


def reference_problems(scenario: ScenarioBase, source: YamlSource) -> list[Problem]:
    """Attacks that combatants use but the scenario does not define, ``expect:``
    events the rule system does not have, and (once every attack is defined) ``expect:``
    crit rates of attacks that cannot crit, each located."""
    undefined = _attack_problems(scenario, source)
    crits = [] if undefined else _crit_problems(scenario, source)
    return undefined + _event_problems(scenario, source) + crits


def _crit_problems(scenario: ScenarioBase, source: YamlSource) -> list[Problem]:
    """``expect:`` crit rates none of whose pairs can crit
    (:meth:`~simlab.scenario.common.ScenarioBase.crit_spec_problem`)."""
    found = [(i, scenario.crit_spec_problem(spec)) for i, spec in enumerate(scenario.expect)]
    return [problem_at(source, ("expect", i, p.key), p.message) for i, p in found if p]


def _event_problems(scenario: ScenarioBase, source: YamlSource) -> list[Problem]:
    """``expect:`` entries naming an event the rule system does not tally for this
    scenario (a rule system whose events depend on the scenario says which with
    ``compile.scenario_events``)."""
    named = [(i, spec.event) for i, spec in enumerate(scenario.expect) if spec.event is not None]
    if not named:  # spares `simlab validate` importing the compiler, and numpy with it
        return []
    compiler = rule_module(scenario.rules, "compile")
    events = getattr(compiler, "scenario_events", lambda _: compiler.EVENTS)(scenario)
    known = ", ".join(events) or "none in these rules"
    return [
        problem_at(
            source,
            ("expect", i, "event"),
            f"expected an event of rules {scenario.rules} ({known}); got {event!r}"
            f"{did_you_mean(event, events)}",
        )
        for i, event in named
        if event not in events
    ]


def _attack_problems(scenario: ScenarioBase, source: YamlSource) -> list[Problem]:
    """Attacks the validated scenario's combatants make that it does not define."""
    sides: dict[str, list[Any]] = scenario.sides  # type: ignore[attr-defined]
    listed = {(side, i): member.attacks for side, members in sides.items()
              for i, member in enumerate(members)}  # fmt: skip
    return _undefined_attacks(source, scenario.attacks, listed)  # type: ignore[attr-defined]


def _written_attack_problems(source: YamlSource) -> list[Problem]:
    """:func:`_attack_problems` read from the file as written, for a scenario that does not
    validate: the ``attacks:`` lists of the combatant entries that are mappings, against
    the ``attacks:`` mapping's names; nothing where either is not of its shape."""
    attacks, sides = source.data.get("attacks"), source.data.get("sides")
    if not isinstance(attacks, Mapping) or not isinstance(sides, Mapping):
        return []
    listed = {(side, i): entry["attacks"] for side, members in sides.items()
              if isinstance(members, list) for i, entry in enumerate(members)
              if isinstance(entry, Mapping) and isinstance(entry.get("attacks"), list)}  # fmt: skip
    return _undefined_attacks(source, attacks, listed)


def _undefined_attacks(
    source: YamlSource, attacks: Mapping[str, Any], listed: Mapping[tuple[str, int], list[Any]]
) -> list[Problem]:
    """A problem at each name of the combatants' attack lists (``listed`` by side and
    entry) that ``attacks`` does not define."""
    known = ", ".join(sorted(map(str, attacks))) or "none defined"
    problems = []
    for (side, i), names in listed.items():
        for j, name in enumerate(names):
            if isinstance(name, str) and name not in attacks:
                message = (f"expected an attack defined under 'attacks:' ({known}); "
                           f"got {name!r}{did_you_mean_items(name, attacks)}")  # fmt: skip
                problems.append(problem_at(source, ("sides", side, i, "attacks", j), message))
    return problems


def id_clash(
    path: Path, scenario: ScenarioBase, seen: dict[tuple[str, str], Path]
) -> Problem | None:
    """The problem of a scenario whose id another file of the same run already has under
    the same rules, located at its ``scenario:`` value; None when the id is new, which
    ``seen`` then records.

    Figures, reports and baselines tell scenarios apart by rules and id, so
    ``validate``, ``report``, ``check`` and ``baseline update`` refuse a folder that
    holds two files of one id alike.

    Parameters
    ----------
    path : Path
        The file ``scenario`` was loaded from.
    scenario : ScenarioBase
        The loaded scenario.
    seen : dict
        (rules, id) → the file that first had it, for the files before this one.

    Returns
    -------
    Problem or None
    """
    key = (scenario.rules, scenario.scenario)
    return _clash(path, key, scenario.source, seen)


def written_id_clash(path: Path, seen: dict[tuple[str, str], Path]) -> Problem | None:
    """:func:`id_clash` for a file that does not load, from its ``rules:`` and
    ``scenario:`` as written, so that the clash is said beside the file's other problems
    rather than only once they are mended; None when the file is no YAML mapping, or
    either is not text (its own problem then says so), or the id is new.

    Parameters
    ----------
    path : Path
        The file that did not load.
    seen : dict
        As for :func:`id_clash`; a new id is recorded, for the files after this one.

    Returns
    -------
    Problem or None
    """
    try:
        source = read_yaml(path)
    except ScenarioError:
        return None
    rules, ident = source.data.get("rules"), source.data.get("scenario")
    if not (isinstance(rules, str) and rules in RULE_SYSTEMS and isinstance(ident, str)):
        return None
    return _clash(path, (rules, ident), source, seen)


def _clash(
    path: Path, key: tuple[str, str], source: YamlSource | None, seen: dict[tuple[str, str], Path]
) -> Problem | None:
    """The problem of ``key`` (rules, id) when ``seen`` has it from another file."""
    first = seen.setdefault(key, path)
    if first == path or same_file(first, path):  # one file by two spellings, or a link
        return None
    message = (f"expected a scenario id not used by {first} under the same rules; got "
               f"{key[1]!r} again")  # fmt: skip
    if source is None:
        return Problem(str(path), None, None, message)
    return problem_at(source, ("scenario",), message)


def scenario_paths(items: Sequence[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[Path]:
    """Scenario files named on a command line: files as given, folders searched recursively
    for ``*.yaml`` / ``*.yml`` (sorted).

    Raises
    ------
    InputError
        When ``items`` is not a path or a list of them (a loaded scenario: see
        :func:`run_scenario`), or an item does not exist or a folder holds no scenario.
    """
    if is_path(items):  # one path, not a sequence of characters
        items = [items]  # type: ignore[list-item]
    elif isinstance(items, ScenarioBase | Mapping | bytes) or not isinstance(items, Iterable):
        raise InputError("expected scenario paths (a path or a list of paths; run_scenario "
                         f"runs a loaded scenario); got {describe(items)}")  # fmt: skip
    out: list[Path] = []
    for item in items:
        path = Path(path_argument(item, "the path of a scenario file or folder", "items"))
        if path.is_dir():
            found = sorted(f for f in path.rglob("*") if f.suffix in (".yaml", ".yml"))
            if not found:
                _refuse_simlab_output(path)
                raise InputError(f"{path}: expected a folder with scenario files; got none")
            out += found
        elif path.exists():
            out.append(path)
        else:
            raise InputError(f"{path}: expected a scenario file or folder; got no such file")
    # one file named twice (a folder and a file in it, wb/../one/duel.yaml and
    # one/duel.yaml, a symbolic link) is one scenario, as first named
    firsts: dict[Path, Path] = {}
    for path in out:
        firsts.setdefault(_resolved(path), path)
    return list(firsts.values())


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (resolved: ``..``, symbolic links)."""
    return _resolved(a) == _resolved(b)


def _resolved(path: Path) -> Path:
    """``path`` resolved (``..``, symbolic links), or as given if it cannot be."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        return path
