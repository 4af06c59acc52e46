"""Balance specs: a scenario's ``expect:`` entries measured on a simulation.

Each entry (:class:`simlab.scenario.common.Expectation`) names a figure, what it is
measured on and a bound. :func:`evaluate` measures the figure with its 95% interval and
gives a verdict: ``pass`` when the measured value is within the bound, ``fail``
otherwise. When the interval reaches past the bound the verdict is flagged
``borderline`` (more encounters would settle it); ``strict=True`` counts a borderline
pass as a failure. A hit or crit rate that the exact engine answers as 0 (or 1) in every
pair a spec covers, and that the fight does not move, is that value whatever the dice
(the crit rate of an attack with no critical tier): its interval is that value alone,
so "at most 0" passes, ``strict`` or not, where the simulated interval ``[0, 5e-06]``
would always reach past it.

Intervals: Wilson (Clopper–Pearson when rare) for rates and for ``down_by_round``
(P(downed by round r) over all encounters: a rate out of every encounter), batch means
for mean damage; for ``median_time_to_down`` (the round by which half of all encounters
had it downed; "not reached" when fewer than half did) the rounds where the band of
P(downed by round r) reaches one half; the standard error of the mean for
``mean_rounds``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from simlab.analysis import stats
from simlab.analysis.names import FIGURE_NAMES, event_rate_name
from simlab.analysis.result import Result, median_time_to_down
from simlab.errors import InputError
from simlab.exact import pair_answer
from simlab.scenario.common import Expectation
from simlab.scenario.validation import validate_saved

__all__ = ["SPEC_COLUMNS", "Verdict", "describe", "evaluate", "evaluate_all", "figure_words"]

LEVEL = 0.95
SPEC_COLUMNS = ["scenario", "rules", "spec", "figure", "measured", "ci_lo", "ci_hi", "low", "high",
                "n", "verdict", "borderline", "note", "failed_by_strict"]  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """The outcome of one spec.

    Attributes
    ----------
    spec : str
        The spec in words.
    measured, lo, hi : float
        The measured figure and its 95% interval (NaN when nothing was measured).
    n : int
        Sample size behind it (attacks, encounters).
    passed : bool
        Whether the measured value satisfies the bound.
    borderline : bool
        Whether the interval reaches past the bound.
    note : str
        The designer's note, or why nothing could be measured.
    """

    spec: str
    figure: str
    measured: float
    lo: float
    hi: float
    low: float
    high: float
    n: int
    passed: bool
    borderline: bool
    note: str = ""


def _names(res: Result) -> list[str]:
    return [name for _, name in res.layout.combatants]


def _select(res: Result, name: str | None) -> list[int]:
    """Combatant indices ``name`` designates (itself or its ``count:`` copies); all if None."""
    names = _names(res)
    if name is None:
        return list(range(len(names)))
    if name in names:
        return [names.index(name)]
    pattern = re.compile(rf"{re.escape(name)} \d+")
    return [i for i, n in enumerate(names) if pattern.fullmatch(n)]


def _attack_slots(res: Result, spec: Expectation) -> list[int]:
    if spec.attack not in res.layout.attacks:
        return []
    k = res.layout.attacks.index(spec.attack)
    attackers, defenders = _select(res, spec.attacker), _select(res, spec.defender)
    return [res.layout.pair(a, k, d) for a in attackers for d in defenders]


def _rate(k: int, n: int) -> tuple[float, float, float]:
    if n == 0:
        return math.nan, math.nan, math.nan
    lo, hi, _ = stats.rate_interval(k, n, LEVEL)
    return k / n, float(lo), float(hi)


def _measure_attack(res: Result, spec: Expectation) -> tuple[float, float, float, int]:
    t = res.tallies
    slots = _attack_slots(res, spec)
    attempts = t.attempts[slots].sum(axis=0) if slots else np.zeros(1)
    n = int(attempts.sum())
    if spec.figure == "mean_damage":
        if n == 0:
            return math.nan, math.nan, math.nan, 0
        m, lo, hi = stats.ratio_batch_means(t.damage_sum[slots].sum(axis=0), attempts, LEVEL)
        return m, lo, hi, n
    if spec.figure == "hit_rate":
        k = int(t.hits[slots].sum()) if slots else 0
    elif spec.figure == "crit_rate":
        k = int(t.crits[slots].sum()) if slots else 0
    else:  # damage_at_least
        k = int(t.damage_hist[slots, spec.damage :].sum()) if slots else 0
    return (*_rate(k, n), n)


def _measure_combatant(res: Result, spec: Expectation) -> tuple[float, float, float, int]:
    t, n = res.tallies, res.encounters
    chosen = _select(res, spec.combatant)
    down = t.down_round[chosen].sum(axis=0)
    total = n * len(chosen)
    if spec.figure == "down_rate":
        return (*_rate(int(down.sum()), total), total)
    if spec.figure == "event_rate":
        if spec.event not in res.layout.events:
            known = ", ".join(res.layout.events) or "none in these rules"
            raise InputError(f"expected an event of rules {res.rules} ({known}); "
                             f"got {spec.event!r}")  # fmt: skip
        e = res.layout.events.index(spec.event)
        return (*_rate(int(t.event_round[chosen, e].sum()), total), total)
    curve = stats.cumulative_incidence(down, total, LEVEL)
    if spec.figure == "down_by_round":
        upto = curve[curve["round"] <= spec.round]
        if upto.empty:
            return 0.0, 0.0, 0.0, total
        last = upto.iloc[-1]
        return float(last.by_round), float(last.by_round_lo), float(last.by_round_hi), total
    median, lo, hi = (math.inf if math.isnan(x) else x
                      for x in median_time_to_down(down, total, LEVEL,
                                                   res.layout.first_round_of(chosen)))  # fmt: skip
    return median, lo, hi, total


def _measure(res: Result, spec: Expectation) -> tuple[float, float, float, int]:
    n = res.encounters
    if spec.figure in ("hit_rate", "crit_rate", "mean_damage", "damage_at_least"):
        return _measure_attack(res, spec)
    if spec.figure in ("down_rate", "down_by_round", "median_time_to_down", "event_rate"):
        return _measure_combatant(res, spec)
    if spec.figure == "win_rate":
        side = res.layout.sides.index(str(spec.side))
        return (*_rate(int(res.tallies.winner[side]), n), n)
    if spec.figure == "draw_rate":
        return (*_rate(int(res.tallies.winner[-1]), n), n)
    mean, var = stats.histogram_mean_var(res.tallies.rounds)
    half = 1.959963984540054 * math.sqrt(var / n)
    return mean, mean - half, mean + half, n


#: The figures only a spec has, in words; every other figure is named as the drift gate
#: names it (:func:`figure_words`).
SPEC_ONLY_WORDS = {
    "damage_at_least": "P(damage ≥ {damage})",
    "down_by_round": "P(Downed by round {round})",
}
#: The figures measured in rounds, whose bounds say so ("at most 15 rounds").
IN_ROUNDS = frozenset({"median_time_to_down", "mean_rounds"})


def figure_words(spec: Expectation) -> str:
    """A spec's figure in words, in the drift gate's words for the same figure
    (:data:`simlab.analysis.names.FIGURE_NAMES`): ``median time-to-down``, an event's
    ``rate of spending Momentum`` (``momentum_spent``), ``dead rate``; the figures only a
    spec has from :data:`SPEC_ONLY_WORDS` (``P(damage ≥ 8)``).

    Parameters
    ----------
    spec : Expectation
        An ``expect:`` entry.

    Returns
    -------
    str
        What the spec line names its figure.
    """
    if spec.figure in SPEC_ONLY_WORDS:
        return SPEC_ONLY_WORDS[spec.figure].format(damage=spec.damage, round=spec.round)
    if spec.figure == "event_rate":
        return event_rate_name(str(spec.event))  # set: the model asks it of an event_rate
    return FIGURE_NAMES[spec.figure]


def describe(spec: Expectation) -> str:
    """The spec in words, e.g. ``stone-strike hit rate (→ Kaito) at least 0.6``,
    ``Kaito's median time-to-down between 6 and 9 rounds``."""
    figure = figure_words(spec)
    if spec.attack is not None:
        who = spec.attack if spec.attacker is None else f"{spec.attacker}'s {spec.attack}"
        target = f" (→ {spec.defender})" if spec.defender else ""
        subject = f"{who} {figure}{target}"
    elif spec.combatant is not None:
        subject = f"{_possessive(spec.combatant)} {figure}"
    elif spec.side is not None:
        subject = f"{_possessive(spec.side)} {figure}"
    else:
        subject = figure
    low, high = spec.bounds
    if spec.between is not None:
        return f"{subject} between {low:g} and {_bound(spec, high, plural=True)}"
    return (
        f"{subject} at least {_bound(spec, low)}"
        if spec.at_least is not None
        else f"{subject} at most {_bound(spec, high)}"
    )


def _bound(spec: Expectation, value: float, plural: bool = False) -> str:
    """A bound as the spec line says it, in rounds for a figure in rounds (``1 round``,
    ``15 rounds``; ``plural`` after "between 6 and")."""
    if spec.figure not in IN_ROUNDS:
        return f"{value:g}"
    return f"{value:g} {'rounds' if plural or value != 1 else 'round'}"


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def evaluate(res: Result, spec: Expectation | dict[str, Any],
             exact: dict[str, Any] | None = None) -> Verdict:  # fmt: skip
    """Measure one spec on a simulation and give its verdict.

    Parameters
    ----------
    res : Result
        The simulation of the spec's scenario.
    spec : Expectation or dict
        An ``expect:`` entry (a dict is validated as one).
    exact : dict, optional
        The scenario's exact answers (``ScenarioRun.exact``): a hit or crit rate they
        make certain (:func:`_certain`) has that value as its interval.

    Returns
    -------
    Verdict
        A spec whose attack never happened fails, with a note saying so.

    Raises
    ------
    InputError
        For a spec that is not one, or that the scenario ``res`` simulated would refuse
        in its ``expect:`` (:meth:`~simlab.scenario.common.ScenarioBase.spec_problem`:
        a name it does not have, an attack never made at that defender, a bound in
        rounds no encounter can reach): ``spec {figure: mean_rounds, at_least:
        -3}.at_least: expected a bound from 1 to 30 rounds …; got -3``. A spec of the
        scenario's own was checked when it loaded, as its file has it.
    """
    return _verdict(res, _checked_spec(res, spec, f"spec {_written(spec)}"), exact)


def _verdict(res: Result, spec: Expectation, exact: dict[str, Any] | None) -> Verdict:
    """:func:`evaluate` of a spec already checked."""
    measured, lo, hi, n = _measure(res, spec)
    if n and measured == _certain(res, spec, exact):
        lo = hi = measured
    low, high = spec.bounds
    text = describe(spec)
    if n == 0 or math.isnan(measured):
        return Verdict(text, spec.figure, math.nan, math.nan, math.nan, low, high, n, False,
                       False, spec.note or "never measured: no such attacks happened")  # fmt: skip
    passed = low <= measured <= high
    lo_past_the_cap = _past_the_cap(res, spec, lo)
    borderline = (lo_past_the_cap < low <= hi) or (lo_past_the_cap <= high < hi)
    note, cap = spec.note, res.layout.max_rounds
    if math.isinf(measured) and borderline and any(cap < b < math.inf for b in (low, high)):
        why = f"not reached by the round cap ({cap}), which the bound passes: raise max_rounds"
        note = f"{note}; {why}" if note else why
    return Verdict(text, spec.figure, measured, lo, hi, low, high, n, passed, borderline,
                   note)  # fmt: skip


def _checked_spec(res: Result, spec: Expectation | dict[str, Any], where: str) -> Expectation:
    """``spec`` as an ``expect:`` entry of the scenario ``res`` simulated: a dict
    validated as one, then checked as the scenario checks its own when it loads
    (:meth:`~simlab.scenario.common.ScenarioBase.spec_problem`), unless it is one of
    them (those are checked as written: a sweep of ``max_rounds`` may leave a bound in
    rounds behind). A result that does not know its scenario (one read back from
    files) has its specs checked against its layout where they were read.

    Parameters
    ----------
    res : Result
        The simulation the spec is measured on.
    spec : Expectation or dict
        The spec.
    where : str
        Which spec, for the message (``spec {figure: mean_rounds, at_least: -3}``,
        ``quickstart: expect[0]``).

    Returns
    -------
    Expectation
        The spec, validated.

    Raises
    ------
    InputError
        ``WHERE.KEY: expected X; got Y`` for the first problem found.
    """
    if not isinstance(spec, Expectation):
        try:
            spec = Expectation.model_validate(spec, strict=False)
        except ValidationError:
            # the same check, strict, words its first failure as the loader does
            spec = validate_saved(Expectation, spec, where)
    scenario = res._simulated
    if scenario is None or spec.model_dump() in [e.model_dump() for e in scenario.expect]:
        return spec
    problem = scenario.spec_problem(spec)
    if problem is not None:
        raise InputError(f"{where}.{problem.key}: {problem.message}")
    return spec


def _written(spec: Any) -> str:
    """A spec as a flow mapping of YAML says it, ``{figure: mean_rounds, at_least: -3}``
    (the keys given, not the defaults), for a message; anything else as its repr."""
    if isinstance(spec, Expectation):
        spec = spec.model_dump(exclude_defaults=True)
    if not isinstance(spec, dict):
        return repr(spec)
    return "{" + ", ".join(f"{key}: {value}" for key, value in spec.items()) + "}"


def _past_the_cap(res: Result, spec: Expectation, lo: float) -> float:
    """The lower end of a median time-to-down's interval for the borderline test: a
    median the round cap does not reach (``inf``) lies past the cap, from the round
    after it on, which a bound above the cap may hold (``at_most: 40`` at a cap of 30:
    the run cannot tell, so the pass or fail is borderline, not certain)."""
    if spec.figure == "median_time_to_down" and math.isinf(lo):
        return float(res.layout.max_rounds + 1)
    return lo


def _certain(res: Result, spec: Expectation, exact: dict[str, Any] | None) -> float | None:
    """The value a hit- or crit-rate spec's figure has whatever the dice, if the exact
    answers make it certain: 0 (or 1) in every pair the spec covers that the run made,
    and a figure the fight does not move (:func:`simlab.exact.pair_answer`); else None.

    The crit rate of an attack with no critical tier is 0 by construction; simulated,
    its interval still reaches above 0 (``0 [0, 5e-06]`` at 800,000 attacks).
    """
    if spec.figure not in ("hit_rate", "crit_rate") or not exact:
        return None
    answers = {(e["attacker"], e["attack"], e["defender"]): e for e in exact.get("attacks") or []}
    names, values = _names(res), set()
    for p in _attack_slots(res, spec):
        if res.tallies.attempts[p].sum():
            a, k, d = res.layout.unpair(p)
            entry = answers.get((names[a], res.layout.attacks[k], names[d]))
            values.add(math.nan if entry is None else pair_answer(entry, spec.figure))
    return values.pop() if len(values) == 1 and values <= {0.0, 1.0} else None


def evaluate_all(runs: Sequence[Any], strict: bool = False) -> pd.DataFrame:
    """Every spec of every scenario run, one row each (columns :data:`SPEC_COLUMNS`).

    Parameters
    ----------
    runs : sequence of ScenarioRun
        Report runs; their ``expect`` lists are measured on their results.
    strict : bool
        Count a borderline pass as a failure.

    Returns
    -------
    pandas.DataFrame
        ``verdict`` is ``pass`` or ``fail``; ``borderline`` flags an interval that
        reaches past the bound; ``failed_by_strict`` a borderline pass that ``strict``
        counted as a failure (its measured value is within the bound).
    """
    rows = []
    for run in runs:
        for i, spec in enumerate(run.expect):
            checked = _checked_spec(run.result, spec, f"{run.scenario}: expect[{i}]")
            v = _verdict(run.result, checked, run.exact)
            passed = v.passed and not (strict and v.borderline)
            rows.append((run.scenario, run.rules, v.spec, v.figure, v.measured, v.lo, v.hi,
                         v.low, v.high, v.n, "pass" if passed else "fail", v.borderline,
                         v.note, v.passed and not passed))  # fmt: skip
    frame = pd.DataFrame(rows, columns=SPEC_COLUMNS)
    frame.attrs["names"] = sorted(set().union(*(_spec_names(run.result.layout) for run in runs)))
    return frame


def _spec_names(layout: Any) -> set[str]:
    """The names a spec's text may hold, for a table to keep whole: the sides, the
    combatants (and the base names of ``count:`` copies, ``Orc Warrior``) and attacks."""
    combatants = {name for _, name in layout.combatants}
    bases = {re.sub(r" \d+$", "", name) for name in combatants}
    return {*layout.sides, *combatants, *bases, *layout.attacks}
