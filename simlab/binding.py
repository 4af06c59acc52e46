"""The arguments of a public function as a notebook writes them, checked against its
signature before it runs (README "Python API (notebooks)").

Python's own error for an argument left out or misnamed is a bare ``TypeError``
(``plot_damage_pmf() missing 2 required positional arguments: 'attacker' and
'attack'``, ``simulate() got an unexpected keyword argument 'encounters'``), which says
neither what to write nor, for a name taken from a result, the names it could be. A
function wrapped by :func:`checked_arguments` raises an
:class:`~simlab.errors.InputError` instead, as the command line's errors read::

    plot_damage_pmf(): expected attacker= and attack= (str); got neither (the attacks
    made: Kaito quick-jab, Brute stone-strike)
    simulate(): expected one of its arguments (scenario, n, seed, threads, …); got
    encounters=; did you mean n=?

The wrapped function keeps its signature and docstring (``help()``, a notebook's
tooltip) and is called as it was, with what it was given. The wrapper is one frame
more between the caller and the function: a warning raised in it at the caller's line
counts that frame in its ``stacklevel``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from simlab.arguments import describe
from simlab.errors import InputError, closest_name

__all__ = ["attacks_made", "checked_arguments", "name_goes_as"]

P = ParamSpec("P")
R = TypeVar("R")

#: What a notebook is likely to write for an argument of another name: the command
#: line's words (``--encounters``, ``--set``) and plurals of one name.
LIKELY_FOR: dict[str, tuple[str, ...]] = {
    "n": ("encounters", "encounter", "n_encounters", "samples", "trials", "runs", "N"),
    "changes": ("change", "set", "sets", "overrides", "override"),
    "vary": ("varies", "values", "grid", "sweep"),
    "scenario": ("scn", "scenarios", "path", "file"),
    "result": ("res", "results", "run"),
    "combatant": ("combatants", "name", "who"),
    "attacker": ("attackers",),
    "defender": ("defenders",),
    "attack": ("attacks",),
    "path": ("file", "filename", "scenario", "scn"),
    "out_dir": ("out", "folder", "directory", "dir", "path"),
    "threads": ("n_threads", "workers", "jobs"),
    "ax": ("axes", "axis", "axs"),
    "level": ("confidence", "ci", "ci_level"),
}

#: The arguments of a plot that take a name from the result's rows, in the order a
#: message lists them.
NAME_ARGUMENTS = ("attacker", "attack", "defender", "combatant", "side")

#: Why a call's arguments did not bind, and which names are at fault.
Hint = Callable[[inspect.BoundArguments], str]


def checked_arguments(
    hint: Hint | None = None, table: bool = False
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Wrap a public function (or method) so that arguments that do not fit its
    signature raise an :class:`~simlab.errors.InputError` saying what it expects.

    Parameters
    ----------
    hint : callable, optional
        Given the arguments that did bind (``inspect.BoundArguments`` of a partial
        bind), the end of the message for a required argument left out: what the result
        holds (``" (the attacks made: …)"``), or ``""``.
    table : bool
        A method giving a table of every row: a keyword it does not take, and no other
        argument is meant, is said to be selected with pandas
        (``sw.attacks(attacker="Kaito")``).

    Returns
    -------
    callable
        The decorator.
    """

    def wrap(func: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(func)

        @functools.wraps(func)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                said = unbound_message(func.__qualname__, signature, args, kwargs, hint, table)
                raise InputError(said) from None
            axes = bound.arguments.get("ax")
            if isinstance(axes, str):  # plot_hit_rates(res, "Kaito")
                raise InputError(
                    f"expected an Axes (matplotlib.pyplot.subplots) for ax; got "
                    f"{axes!r}{name_goes_as(axes, func.__name__, signature)}"
                )
            return func(*args, **kwargs)

        return call

    return wrap


def unbound_message(name: str, signature: inspect.Signature, args: tuple[Any, ...],
                    kwargs: dict[str, Any], hint: Hint | None = None,
                    table: bool = False) -> str:  # fmt: skip
    """What is wrong with ``args`` and ``kwargs`` for the function ``name`` of
    ``signature`` (a method's ``self`` left out of what is said): a keyword it does not
    take (and the one meant; for a ``table`` given a name, how to select its rows), more
    arguments by position than it takes, one given twice, or required ones left out."""
    if next(iter(signature.parameters), None) == "self":
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
        args = args[1:]
    said = _unbound(name, signature, args, kwargs, hint)
    unknown = [k for k in kwargs if k not in signature.parameters]
    if table and unknown and "did you mean" not in said and _names(kwargs[unknown[0]]):
        call = name.rsplit(".", 1)[-1]
        said += (f" (the table has a row for each one: select them with pandas, "
                 f".{call}().query(\"{unknown[0]} == {kwargs[unknown[0]]!r}\"))")  # fmt: skip
    return said


def _names(value: object) -> bool:
    """Whether ``value`` reads as the names a table's rows are selected by (``"Kaito"``,
    ``["Kaito", "Brute"]``), not a setting (``levl=0.9``)."""
    items = value if isinstance(value, list | tuple) else [value]
    return bool(items) and all(isinstance(item, str) for item in items)


def _unbound(name: str, signature: inspect.Signature, args: tuple[Any, ...],
             kwargs: dict[str, Any], hint: Hint | None) -> str:  # fmt: skip
    """:func:`unbound_message` but a table's hint."""
    params = signature.parameters
    takes = [p for p in params.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    variadic = {p.kind for p in params.values()} - {p.kind for p in takes}
    if not takes and not variadic:  # sw.attacks(attacker="Kaito"), sw.attacks(1)
        got = ", ".join([*map(describe, args), *(f"{k}=" for k in kwargs)])
        return f"{name}(): expected no arguments; got {got}"
    if inspect.Parameter.VAR_KEYWORD not in variadic:
        unknown = [k for k in kwargs if k not in params]
        if unknown:
            listed = ", ".join(p.name for p in takes)
            return (f"{name}(): expected one of its arguments ({listed}); got "
                    f"{unknown[0]}={_meant(unknown[0], [p.name for p in takes])}")  # fmt: skip
    by_position = [p for p in takes if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(args) > len(by_position) and inspect.Parameter.VAR_POSITIONAL not in variadic:
        named = ", ".join(p.name for p in by_position)
        most = f"{len(by_position)} argument{'s' if len(by_position) != 1 else ''}"
        return (f"{name}(): expected at most {most} by position ({named}), the others by "
                f"name; got {len(args)}")  # fmt: skip
    twice = [p.name for p in by_position[: len(args)] if p.name in kwargs]
    if twice:
        return (f"{name}(): expected {twice[0]} once; got it by position and as "
                f"{twice[0]}=")  # fmt: skip
    given = signature.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in params})
    missing = [p for p in takes if p.default is p.empty and p.name not in given.arguments]
    if not missing:
        return f"{name}(): the arguments do not fit {name}{signature}"
    none = {1: f"no {missing[0].name}", 2: "neither"}.get(len(missing), "none")
    return f"{name}(): expected {_wanted(missing)}; got {none}{hint(given) if hint else ''}"


def _wanted(missing: list[inspect.Parameter]) -> str:
    """The arguments left out, each run of them of one type followed by it:
    ``result= (Result | ScenarioRun), attacker= and attack= (str)``."""
    runs: list[tuple[str, list[str]]] = []
    for p in missing:
        # a type says what to give, but not Any ("vary= (Any)"): it says nothing
        kinds = [] if p.annotation is p.empty else str(p.annotation).split(" | ")
        kind = " | ".join(k for k in kinds if k != "Any")
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(f"{p.name}=")
        else:
            runs.append((kind, [f"{p.name}="]))
    parts = [" and ".join(names) + (f" ({kind})" if kind else "") for kind, names in runs]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _meant(found: str, names: list[str]) -> str:
    """``"; did you mean n=?"``: the argument ``found`` (a keyword no argument has) is
    likely meant as, among ``names``: one it is a usual other word for
    (:data:`LIKELY_FOR`), else the closest spelling; ``""`` for none."""
    likely = [name for name in names if found in LIKELY_FOR.get(name, ())]
    close = likely[0] if likely else closest_name(found, names)
    return f"; did you mean {close}=?" if close else ""


def attacks_made(given: inspect.BoundArguments) -> str:
    """The end of a message for a damage plot's attacker or attack left out: the attacks
    its ``result`` made, as the plot names them (copies pooled, ``Ogre ×2 claw``):
    ``" (the attacks made: Kaito quick-jab, Brute stone-strike)"``; ``""`` without a
    result to read them from."""
    from simlab.report.plots import pooled_damage_pmf, result_of

    try:
        res = result_of(given.arguments.get("result"))
    except InputError:
        return ""
    made = pooled_damage_pmf(res)[["attacker", "attack"]].drop_duplicates()
    pairs = ", ".join(f"{a} {k}" for a, k in made.itertuples(index=False))
    return f" (the attacks made: {pairs})"


def name_goes_as(text: str, plot: str, signature: inspect.Signature) -> str:
    """The end of a message for a name given where a plot takes its axes
    (``plot_hit_rates(res, "Kaito")``): the argument it goes as, by keyword.

    Parameters
    ----------
    text : str
        The name as given.
    plot : str
        The plot function's name.
    signature : inspect.Signature
        Its signature.

    Returns
    -------
    str
        ``"; a name goes as attacker='Kaito'"``; ``"; a name goes as combatant= or
        side="`` for a plot of more than one; ``"; plot_win_rates() takes no name"``.
    """
    params = signature.parameters.values()
    names = [name for name in NAME_ARGUMENTS if name in signature.parameters]
    if len(names) == 1:
        return f"; a name goes as {names[0]}={text!r}"
    if names:
        listed = [f"{name}=" for name in names]
        return f"; a name goes as {', '.join(listed[:-1])} or {listed[-1]}"
    if any(p.kind == p.VAR_KEYWORD for p in params):  # plot_sweep(sw, figure, **on)
        columns = ", ".join(f"{name}=" for name in NAME_ARGUMENTS)
        return f"; a name goes as the keyword of its column ({columns})"
    return f"; {plot}() takes no name"
