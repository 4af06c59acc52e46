"""What a results file holds beside its counts, checked when it is read.

A report drawn again (``simlab report --from``), the checks of ``simlab check --from`` and
the drift gate read a scenario's ids, ``expect:`` specs, drift tolerances, exact answers,
precision record, overrides and ``count:`` copies from ``results.json``. A hand-edited
or corrupted entry is refused here, as ``results.json:40: scenarios[0] (duel):
expect[0].combatant: expected …; got …`` (exit code 2), rather than failing halfway
through a report or being measured on nothing; so are exact answers no solution gives
(a hit rate of 1.5, a damage distribution that does not add up to 1).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from simlab.engine.tallies import Layout
from simlab.errors import InputError
from simlab.report.derived import EntryError, JsonPath, shown
from simlab.scenario.common import DriftTolerance, Expectation, copies_of
from simlab.scenario.validation import validate_saved

__all__ = ["check_about", "check_cannot_crit", "check_copies", "check_exact", "check_expect"]

#: A key of a saved distribution: a whole number written as text (``"12"``).
_Bin = Annotated[str, Field(pattern=r"^\d{1,6}$")]


class _Saved(BaseModel):
    """A saved entry: the types simlab writes (other keys are let be)."""

    model_config = ConfigDict(strict=True)


class _ExactPair(_Saved):
    attacker: str
    attack: str
    defender: str
    hit_rate: float
    crit_rate: float
    mean_damage: float
    damage_pmf: dict[_Bin, float]
    caveats: dict[str, str] = Field(default_factory=dict)


class _ExactTime(_Saved):
    pmf: dict[_Bin, float]


class _ExactDuel(_Saved):
    name: str
    time_to_down: _ExactTime


class _Exact(_Saved):
    attacks: list[_ExactPair] = Field(default_factory=list)
    combatants: list[_ExactDuel] = Field(default_factory=list)


class _Widest(_Saved):
    figure: str
    on: str | None
    half_width: float
    limit: float


class _Precision(_Saved):
    rule: str
    cap: int
    encounters: int
    met: bool
    widest: _Widest | None = None


class _About(_Saved):
    scenario: str = Field(min_length=1)
    rules: str = Field(min_length=1)
    source: str | None = None
    simlab_version: str = "unknown"
    overrides: list[str] | None = None
    precision: _Precision | None = None
    exact: _Exact | None = None
    expect: list[dict[str, Any]] = Field(default_factory=list)
    drift_tolerance: dict[str, Any] = Field(default_factory=dict)
    copies: dict[str, list[str]] | None = None
    cannot_crit: dict[str, str] | None = None


def check_about(doc: dict[str, Any], layout: Layout) -> None:
    """Refuse a scenario entry of a results file whose ids, specs, tolerances, exact
    answers, precision record or overrides are not what simlab writes.

    Parameters
    ----------
    doc : dict
        The scenario's entry of ``results.json``.
    layout : Layout
        Its tallies' names, which the ``expect:`` specs must use.

    Raises
    ------
    InputError
        ``expect[0].combatant: expected a combatant of these results (…); got
        'Nobody'`` (the reader puts the file, line and scenario in front).
    EntryError
        For exact answers no solution gives (:func:`check_exact`).
    """
    try:
        about = validate_saved(_About, doc, "")
    except InputError as err:  # ".scenario: expected text; got 5": the reader says whose
        raise InputError(str(err).lstrip(".")) from None
    if about.exact is not None:
        check_exact(about.exact)
    if about.drift_tolerance:
        validate_saved(DriftTolerance, about.drift_tolerance, "drift_tolerance")
    for i, spec in enumerate(about.expect):
        where = f"expect[{i}]"
        check_expect(validate_saved(Expectation, spec, where), layout, where)
    if about.copies is not None:
        check_copies(about.copies, layout, "copies")
    if about.cannot_crit:
        check_cannot_crit(about.cannot_crit, layout, "cannot_crit")


def check_cannot_crit(cannot: dict[str, str], layout: Layout, where: str) -> None:
    """Refuse a record of the pairs that cannot crit that is not what simlab writes: a
    pair that is no attacker, attack and defender of these results, or no reason why."""
    from simlab.tuning.figures import pair_label

    names = [name for _, name in layout.combatants]
    pairs = {pair_label(a, k, d) for a in names for k in layout.attacks for d in names}
    for pair, why in cannot.items():
        if pair not in pairs or not why.strip():
            raise InputError(f"{where}: expected attack pairs of these results, each with "
                             f"why it cannot crit; got {pair!r:.80}: {why!r:.80}")  # fmt: skip


def check_copies(copies: dict[str, list[str]], layout: Layout, where: str) -> None:
    """Refuse a record of ``count:`` copies that is not what simlab writes: an entry
    whose copies are not at least two combatants of these results, or a combatant
    that is a copy of two entries."""
    names = [name for _, name in layout.combatants]
    seen: set[str] = set()
    for entry, members in copies.items():
        strangers = [m for m in members if m not in names or m in seen]
        if len(members) < 2 or len(set(members)) < len(members) or strangers:
            raise InputError(f"{where}.{entry}: expected the names of its copies, at least "
                             f"two combatants of these results and of no other entry; got "
                             f"{members!r:.120}")  # fmt: skip
        seen.update(members)


def check_expect(spec: Expectation, layout: Layout, where: str) -> None:
    """Refuse a spec that names what the results do not have: an attack, a combatant
    (itself or its ``count:`` copies), a side or a rule event."""
    names = [name for _, name in layout.combatants]

    def refuse(key: str, what: str, known: list[str]) -> InputError:
        shown = ", ".join(known) or "none"
        return InputError(f"{where}.{key}: expected {what} of these results ({shown}); "
                          f"got {getattr(spec, key)!r}")  # fmt: skip

    if spec.attack is not None and spec.attack not in layout.attacks:
        raise refuse("attack", "an attack", layout.attacks)
    for key in ("attacker", "defender", "combatant"):
        name = getattr(spec, key)
        if name is not None and not copies_of(name, names):
            raise refuse(key, "a combatant", names)
    if spec.side is not None and spec.side not in layout.sides:
        raise refuse("side", "a side", layout.sides)
    if spec.event is not None and spec.event not in layout.events:
        raise refuse("event", "a rule event", layout.events)


#: How far a stored exact distribution's total and mean may be from what its
#: probabilities give (the writer's own float sums, in another order).
_EXACT_TOL = 1e-9


def check_exact(exact: _Exact) -> None:
    """Refuse exact answers that no solution gives: a rate or probability outside 0 to
    1, a damage distribution that does not add up to 1, or a mean damage that is not its
    distribution's mean (a hand edit, which the report would show and draw as the
    answer).

    Parameters
    ----------
    exact : _Exact
        The scenario entry's ``exact`` answers, their types already checked.

    Raises
    ------
    EntryError
        ``exact.attacks[0].hit_rate: expected a probability from 0 to 1; got 1.5``.
    """
    for i, pair in enumerate(exact.attacks):
        at: JsonPath = ("exact", "attacks", i)
        _probability(pair.hit_rate, "a probability", (*at, "hit_rate"))
        _probability(pair.crit_rate, "a probability", (*at, "crit_rate"))
        total = _distribution(pair.damage_pmf, (*at, "damage_pmf"))
        if not math.isclose(total, 1.0, rel_tol=0, abs_tol=_EXACT_TOL):
            raise EntryError((*at, "damage_pmf"), "expected damage probabilities adding up "
                                                  f"to 1; got {total!r}")  # fmt: skip
        mean = sum(int(d) * p for d, p in pair.damage_pmf.items())
        if not math.isclose(pair.mean_damage, mean, rel_tol=_EXACT_TOL, abs_tol=_EXACT_TOL):
            raise EntryError((*at, "mean_damage"),
                             f"expected {mean!r}, the mean of its damage_pmf; got "
                             f"{shown(pair.mean_damage)}")  # fmt: skip
    for c, duel in enumerate(exact.combatants):
        at = ("exact", "combatants", c, "time_to_down", "pmf")
        total = _distribution(duel.time_to_down.pmf, at)
        if total > 1.0 + _EXACT_TOL:
            raise EntryError(at, f"expected probabilities of going down in each round adding "
                                 f"up to at most 1; got {total!r}")  # fmt: skip


def _probability(value: float, what: str, at: JsonPath) -> float:
    """``value`` when it is a number from 0 to 1, else an EntryError at ``at``. A sum of
    floats may land a last digit outside (an attack that always hits solves to a hit
    rate of 1.0000000000000002), which is no edit."""
    if not -_EXACT_TOL <= value <= 1.0 + _EXACT_TOL:  # NaN too
        raise EntryError(at, f"expected {what} from 0 to 1; got {shown(value)}")
    return value


def _distribution(pmf: dict[str, float], at: JsonPath) -> float:
    """The total of a distribution's probabilities, each checked to be one."""
    return math.fsum(_probability(p, "each probability", (*at, d)) for d, p in pmf.items())
