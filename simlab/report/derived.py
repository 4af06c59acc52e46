"""The totals and figures a results file stores beside its counts, checked when read.

``results.json`` keeps, beside the per-batch counts and histograms every figure is
computed from, the totals and figures drawn from them for people and other tools: an
attack's ``attempts``, ``hits``, ``crits``, ``damage_total``, rates, mean damage and
intervals, a combatant's ``downed``, ``down_rate``, medians, ``capped`` and event rates,
the sides' and draws' rates, ``mean_rounds``. A reader computes its figures from the
counts, so an edited total would be silently ignored; one that disagrees with the
counts (or is no number, or a count written with a fraction) is refused instead, named
by its place in the file::

    results.json:78: scenarios[0].attacks[0].hits (quickstart): expected 145513, the
    hits of Kaito's quick-jab on Brute added up over its batches; got 149811

A float is written as the shortest text that reads back as the same float, so a file
simlab wrote reads back exactly; the figures are compared within a relative 1e-9 only
so that the last digits of another machine's arithmetic (a square root, a sum in
another order) do not refuse a file it wrote.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from simlab.engine.tallies import Layout
from simlab.errors import InputError

__all__ = ["EntryError", "JsonPath", "check_figures", "json_path", "line_of", "same", "shown"]

#: Relative and absolute tolerance of a stored float figure (see the module docstring).
REL_TOL = 1e-9
ABS_TOL = 1e-12

#: Keys and list indices from a document's root (or a scenario's entry) to a value.
JsonPath = tuple[str | int, ...]

#: What each figure of an attack entry is: {0} is the pair (``Kaito's quick-jab on Brute``).
_ATTACK = {
    "attacker": "the attacker its pair names",
    "attack": "the attack its pair names",
    "defender": "the defender its pair names",
    "attempts": "the attempts of {0} added up over its batches",
    "hits": "the hits of {0} added up over its batches",
    "crits": "the crits of {0} added up over its batches",
    "damage_total": "the damage of {0} added up over its batches",
    "hit_rate": "the share of the attempts of {0} that hit",
    "hit_rate_ci": "the interval of the hit rate of {0}",
    "crit_rate": "the share of the attempts of {0} that crit",
    "crit_rate_ci": "the interval of the crit rate of {0}",
    "mean_damage": "the damage of {0} over its attempts",
    "mean_damage_ci": "the batch-means interval of the mean damage of {0}",
}
#: What each figure of a combatant entry is: {0} is its name, {1} its place in the layout.
_COMBATANT = {
    "name": "combatant {1} of the layout",
    "side": "the side of {0} in the layout",
    "downed": "the encounters {0} went down in, its down_round_counts added up",
    "down_rate": "the share of all encounters {0} went down in",
    "down_rate_ci": "the interval of the down rate of {0}",
    "median_time_to_down": "read from the down_round_counts of {0}",
    "median_time_to_down_ci": "its interval, read from the down_round_counts of {0}",
    "median_time_to_down_when_downed": "read from the down_round_counts of {0}",
    "capped": "the censor_round_counts of {0} at the round cap",
}
_EVENT = {"rate": "the share of all encounters with {0}'s {2} event, its round_counts added up"}
_SIDE = {
    "name": "side {1} of the layout",
    "win_rate": "the share of all encounters {0} won",
    "win_rate_ci": "the interval of the win rate of {0}",
}
_DRAWS = {
    "rate": "the share of all encounters drawn",
    "ci": "the interval of the draw rate",
}
_SCENARIO = {"mean_rounds": "the mean of rounds_counts"}


class EntryError(InputError):
    """A refusal of one value of a results file, at its JSON path.

    Parameters
    ----------
    path : tuple of str and int
        Keys and list indices from the scenario's entry (``("attacks", 0, "hits")``);
        :func:`simlab.report.results.load_results` puts the file's own in front.
    message : str
        ``expected …; got …``.
    """

    def __init__(self, path: JsonPath, message: str) -> None:
        super().__init__(f"{json_path(path)}: {message}")
        self.path = path
        self.message = message


def json_path(path: JsonPath) -> str:
    """``scenarios[0].attacks[2].hits``: keys joined by dots, list indices bracketed, as
    are keys that are no names (``rounds_counts["7"]``)."""
    text = "".join(
        f"[{step}]" if isinstance(step, int)
        else f".{step}" if step.isidentifier() else f"[{json.dumps(step)}]"
        for step in path
    )  # fmt: skip
    return text.lstrip(".")


def check_figures(found: dict[str, Any], want: dict[str, Any], layout: Layout) -> None:
    """Refuse a scenario entry whose stored totals and figures are not those of its counts.

    Parameters
    ----------
    found : dict
        The scenario's entry as read (its counts already checked).
    want : dict
        The entry simlab writes for the counts read from it
        (:func:`simlab.report.results.scenario_document`).
    layout : Layout
        Its tallies' names.

    Raises
    ------
    EntryError
        ``attacks[0].hits: expected 145513, the hits of Kaito's quick-jab on Brute added
        up over its batches; got 149811`` for the first figure that disagrees, is
        missing, or is no number of the kind simlab writes.
    """
    made = {tuple(entry["pair"]): entry for entry in want["attacks"]}
    for i, entry in enumerate(found["attacks"]):
        wanted = made[tuple(entry["pair"])]
        pair = f"{wanted['attacker']}'s {wanted['attack']} on {wanted['defender']}"
        _agree(entry, wanted, _ATTACK, ("attacks", i), pair)
    for c, entry in enumerate(found["combatants"]):
        wanted = want["combatants"][c]
        _agree(entry, wanted, _COMBATANT, ("combatants", c), wanted["name"], c)
        for event in layout.events:
            _agree(entry["events"][event], wanted["events"][event], _EVENT,
                   ("combatants", c, "events", event), wanted["name"], c, event)  # fmt: skip
    for s, entry in enumerate(found["sides"]):
        wanted = want["sides"][s]
        _agree(entry, wanted, _SIDE, ("sides", s), wanted["name"], s)
    _agree(found["draws"], want["draws"], _DRAWS, ("draws",))
    _agree(found, want, _SCENARIO, ())


def _agree(found: Any, want: dict[str, Any], figures: dict[str, str], at: JsonPath,
           *names: object) -> None:  # fmt: skip
    """Refuse the first of ``figures`` that ``found`` lacks or holds another value of."""
    if not isinstance(found, dict):
        raise EntryError(at, f"expected a mapping of figures; got {shown(found)}")
    for key, what in figures.items():
        expected = f"expected {shown(want[key])}, {what.format(*names)}"
        if key not in found:
            raise EntryError(at, f"{expected}; got no {key!r} entry")
        if not same(found[key], want[key]):
            raise EntryError((*at, key), f"{expected}; got {shown(found[key])}")


def same(got: Any, want: Any) -> bool:
    """Whether a value read from a file is the figure ``want`` as simlab writes it: the
    same whole number (not a float, not true or false), a float within the tolerance,
    the same text or null, or a list of such."""
    if isinstance(got, bool):  # no figure is true or false (and True == 1 in Python)
        return False
    if want is None or isinstance(want, str):
        return got == want and type(got) is type(want)
    if isinstance(want, list):
        return (isinstance(got, list) and len(got) == len(want)
                and all(same(g, w) for g, w in zip(got, want, strict=True)))  # fmt: skip
    if isinstance(want, int):
        return type(got) is int and got == want
    return (isinstance(got, int | float) and math.isfinite(got)
            and math.isclose(got, float(want), rel_tol=REL_TOL, abs_tol=ABS_TOL))  # fmt: skip


def shown(value: Any, width: int = 80) -> str:
    """A value as the file writes it (``149811``, ``1.5``, ``null``, ``[0.97, 0.98]``),
    cut to ``width`` characters."""
    text = json.dumps(value, allow_nan=True)
    return text if len(text) <= width else text[: width - 1] + "…"


# -- where a value is in the file ------------------------------------------------------------

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODE = json.JSONDecoder().raw_decode


def line_of(text: str, path: JsonPath) -> int:
    """The line of ``text`` (a JSON document) on which the value at ``path`` starts, or
    the nearest of its containers that is there (a missing key: its entry's line)."""
    at = _skip(text, 0)
    try:
        for step in path:
            inner = _child(text, at, step)
            if inner is None:
                break
            at = inner
    except (ValueError, IndexError):  # not a JSON document after all: where it got to
        pass
    return text.count("\n", 0, at) + 1


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _child(text: str, at: int, step: str | int) -> int | None:
    """Where the value of key or index ``step`` of the object or array at ``at`` starts
    (of a key written twice, the last, which the reader keeps), or None."""
    opening = text[at : at + 1]
    if opening != ("{" if isinstance(step, str) else "["):
        return None
    found, index, at = None, 0, _skip(text, at + 1)
    while text[at] not in "]}":
        if opening == "{":
            key, at = _DECODE(text, at)
            at = _skip(text, _skip(text, at) + 1)  # past the colon
            if key == step:
                found = at
        elif index == step:
            return at
        _, at = _DECODE(text, at)
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
        index += 1
    return found
