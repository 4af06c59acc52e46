"""The figures a sweep draws and a comparison compares, computed from tallies in one place.

Every figure is a function of a run's integer tallies (:class:`TallyArrays`), so the same
code measures a whole run, one point of a sweep, or one range of encounters of an A/B
comparison. Time-to-down figures are read straight from ``down_round`` (encounters in
which a combatant first went down in round r), over all encounters:

- ``down_rate``: share of encounters in which it went down;
- ``mean_time_to_down``: mean round of first down among the encounters in which it went
  down by the round cap (the exact duel's is read the same way, from its P(first down in
  round r) up to the cap);
- ``median_time_to_down``: the round by which half of all encounters had it down (NaN
  when its down rate is below one half).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from simlab.analysis import stats
from simlab.analysis.result import (
    MEDIAN_CI_KIND,
    NORMAL_CI_KIND,
    interval_column,
    mean_time_to_down,
    median_time_to_down,
)
from simlab.engine.tallies import Layout, TallyArrays
from simlab.errors import InputError, did_you_mean
from simlab.limits import MAX_DAMAGE_AT_LEAST

__all__ = ["Counts", "FigureRef", "cannot_crit_why", "check_figure", "combatant_figures",
           "crit_problem", "crit_rate_problem", "exact_measure", "figure_counts",
           "figure_values", "labelled_pairs", "measure", "measure_with_kind", "never_crits",
           "pair_label", "pairs_that_can_crit", "pairs_that_cannot_crit",
           "parse_figure"]  # fmt: skip


def pair_label(attacker: str, attack: str, defender: str) -> str:
    """How an attack pair is named in comparison tables: ``Kaito quick-jab → Brute``."""
    return f"{attacker} {attack} → {defender}"


def labelled_pairs(layout: Layout) -> dict[str, tuple[str, str, str]]:
    """Every attack pair of ``layout`` by its :func:`pair_label`: its attacker, attack and
    defender, which a narrow table breaks a long pair between (the label alone does not
    say where an attack named with spaces, ``two-handed greatsword``, starts).

    Parameters
    ----------
    layout : Layout
        A run's names and sizes.

    Returns
    -------
    dict of str to (str, str, str)
        ``{"Kaito quick-jab → Brute": ("Kaito", "quick-jab", "Brute"), …}``.
    """
    names = [name for _, name in layout.combatants]
    pairs = itertools.product(names, layout.attacks, names)
    return {pair_label(*pair): pair for pair in pairs}


def combatant_figures(
    tallies: TallyArrays, layout: Layout, n: int, level: float = 0.95
) -> pd.DataFrame:
    """Down rate and time-to-down of every combatant, with intervals.

    Columns: ``combatant, side, down_rate`` with its Wilson (Clopper–Pearson when rare)
    interval, ``mean_time_to_down`` (among encounters in which it went down) with a
    normal interval (encounters are independent), each with its ``*_ci_kind``, and
    ``median_time_to_down`` (see the module docstring) with its interval in rounds.
    """
    rows = []
    for c, (side, name) in enumerate(layout.combatants):
        downs = int(tallies.down_round[c].sum())
        lo, hi, kind = stats.rate_interval(downs, n, level)
        mean, t_lo, t_hi = mean_time_to_down(tallies.down_round[c], level)
        rows.append({"combatant": name, "side": side, "down_rate": downs / n,
                     interval_column("down_rate", level, "lo"): float(lo),
                     interval_column("down_rate", level, "hi"): float(hi),
                     "down_rate_ci_kind": str(kind), "mean_time_to_down": mean,
                     interval_column("mean_time_to_down", level, "lo"): t_lo,
                     interval_column("mean_time_to_down", level, "hi"): t_hi,
                     "mean_time_to_down_ci_kind": NORMAL_CI_KIND})  # fmt: skip
        median, m_lo, m_hi = median_time_to_down(tallies.down_round[c], n, level,
                                                 layout.first_round_of([c]))  # fmt: skip
        rows[-1]["median_time_to_down"] = median
        rows[-1][interval_column("median_time_to_down", level, "lo")] = m_lo
        rows[-1][interval_column("median_time_to_down", level, "hi")] = m_hi
        rows[-1]["median_time_to_down_ci_kind"] = MEDIAN_CI_KIND
    return pd.DataFrame(rows)


def figure_values(tallies: TallyArrays, layout: Layout, n: int) -> dict[tuple[str, str], float]:
    """Every figure of a run (or of a range of its encounters) by (figure, what it is on).

    Attack pairs (on ``attacker attack → defender``): hit and crit rate (no crit rate in
    a rule system without crits, ``Layout.crits``), mean damage (misses 0); combatants:
    down rate, mean time-to-down (none for a combatant never downed: it has no such
    figure); sides: win rate; and the draw rate and mean encounter length (on ``""``).
    """
    out: dict[tuple[str, str], float] = {}
    attempts = tallies.attempts.sum(axis=1)
    sums = {"hit_rate": tallies.hits, "crit_rate": tallies.crits, "mean_damage": tallies.damage_sum}
    if not layout.crits:
        del sums["crit_rate"]
    for p in np.flatnonzero(attempts):
        a, k, d = layout.unpair(int(p))
        on = pair_label(layout.combatants[a][1], layout.attacks[k], layout.combatants[d][1])
        for figure, counts in sums.items():
            out[figure, on] = float(counts[p].sum() / attempts[p])
    for c, (_, name) in enumerate(layout.combatants):
        downs = int(tallies.down_round[c].sum())
        out["down_rate", name] = downs / n
        if downs:
            out["mean_time_to_down", name] = mean_time_to_down(tallies.down_round[c])[0]
    for s, side in enumerate(layout.sides):
        out["win_rate", side] = float(tallies.winner[s] / n)
    out["draw_rate", ""] = float(tallies.winner[-1] / n)
    out["mean_rounds", ""] = stats.histogram_mean_var(tallies.rounds)[0]
    return out


class Counts(NamedTuple):
    """The whole numbers behind a rate or a mean damage (:func:`figure_counts`).

    Attributes
    ----------
    events : int
        A rate's events (hits, crits, downs, wins, draws); a mean damage's hits, the
        only attacks that carry damage.
    trials : int
        Attacks, or encounters.
    total : int
        The figure's numerator: ``events`` for a rate, the damage dealt for a mean damage.
    """

    events: int
    trials: int
    total: int


def figure_counts(tallies: TallyArrays, layout: Layout, n: int) -> dict[tuple[str, str], Counts]:
    """The counts behind every rate and mean damage of :func:`figure_values`, by the
    same keys (a mean time-to-down and the mean rounds have none: every downed
    encounter, or every encounter, adds to them)."""
    out: dict[tuple[str, str], Counts] = {}
    attempts = tallies.attempts.sum(axis=1)
    hits, crits, damage = (x.sum(axis=1) for x in (tallies.hits, tallies.crits, tallies.damage_sum))
    for p in np.flatnonzero(attempts):
        a, k, d = layout.unpair(int(p))
        on = pair_label(layout.combatants[a][1], layout.attacks[k], layout.combatants[d][1])
        tried = int(attempts[p])
        out["hit_rate", on] = Counts(int(hits[p]), tried, int(hits[p]))
        if layout.crits:
            out["crit_rate", on] = Counts(int(crits[p]), tried, int(crits[p]))
        out["mean_damage", on] = Counts(int(hits[p]), tried, int(damage[p]))
    for c, (_, name) in enumerate(layout.combatants):
        downs = int(tallies.down_round[c].sum())
        out["down_rate", name] = Counts(downs, n, downs)
    for s, side in enumerate(layout.sides):
        out["win_rate", side] = Counts(int(tallies.winner[s]), n, int(tallies.winner[s]))
    out["draw_rate", ""] = Counts(int(tallies.winner[-1]), n, int(tallies.winner[-1]))
    return out


# -- named figures with intervals (the figures of `expect:`, for tune and precision) ----------

#: Figures a target may name: ``expect:``'s, and the mean time-to-down of the tables.
ATTACK_FIGURES = ("hit_rate", "crit_rate", "mean_damage", "damage_at_least")
COMBATANT_FIGURES = ("down_rate", "down_by_round", "median_time_to_down", "mean_time_to_down",
                     "event_rate")  # fmt: skip
#: Combatant figures of its going down: none moves for a combatant nobody can harm.
DOWN_FIGURES = ("down_rate", "down_by_round", "median_time_to_down", "mean_time_to_down")
SIDE_FIGURES = ("win_rate",)
SCENARIO_FIGURES = ("draw_rate", "mean_rounds")
#: Figures whose ON carries an argument after ``@``: a damage, a round, an event.
ARGUMENT = {"damage_at_least": "damage", "down_by_round": "round", "event_rate": "event"}
RATES = ("hit_rate", "crit_rate", "damage_at_least", "down_rate", "down_by_round", "event_rate",
         "win_rate", "draw_rate")  # fmt: skip


@dataclass(frozen=True)
class FigureRef:
    """A figure and what it is measured on, as written ``FIGURE[:ON[@ARG]]``.

    ``on`` is an attack (``strike``, or ``strike/Defender`` for one defender), a
    combatant (its ``count:`` copies pooled), a side, or empty for the scenario's
    figures; ``arg`` is the damage of ``damage_at_least``, the round of
    ``down_by_round`` or the event of ``event_rate``.
    """

    figure: str
    on: str = ""
    arg: str = ""
    #: How messages name the argument it was read from (``--precision-on hit_rate:strike``).
    label: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        at = f"@{self.arg}" if self.arg else ""
        return f"{self.figure}:{self.on}{at}" if self.on else self.figure

    @property
    def is_rate(self) -> bool:
        """Whether the figure is a probability (its values lie in [0, 1])."""
        return self.figure in RATES


def parse_figure(text: str, label: str) -> FigureRef:
    """Read ``FIGURE[:ON[@ARG]]`` (``median_time_to_down:Brute``, ``down_by_round:Brute@3``).

    Raises
    ------
    InputError
        Naming ``label`` when the figure is unknown, ON is missing or not expected, or
        the argument is missing or malformed.
    """
    figure, _, rest = text.strip().partition(":")
    on, _, arg = rest.partition("@")
    figure, on, arg = figure.strip(), on.strip(), arg.strip()
    known = ATTACK_FIGURES + COMBATANT_FIGURES + SIDE_FIGURES + SCENARIO_FIGURES
    if figure not in known:
        raise InputError(f"{label}: expected a figure ({', '.join(known)}); got {figure!r}"
                         f"{did_you_mean(figure, known)}")  # fmt: skip
    if figure in SCENARIO_FIGURES and on:
        raise InputError(f"{label}: expected nothing after {figure} (a figure of the whole "
                         f"scenario); got {rest!r}")  # fmt: skip
    if figure not in SCENARIO_FIGURES and not on:
        what = _WHAT[figure]
        raise InputError(f"{label}: expected {figure}:{what.upper()} naming the {what} it "
                         f"is measured on; got no ':'")  # fmt: skip
    needed = ARGUMENT.get(figure)
    if needed and not arg:
        raise InputError(f"{label}: expected {figure}:{_WHAT[figure].upper()}@{needed.upper()}"
                         f" (the {needed}); got no '@'")  # fmt: skip
    if arg and not needed:
        raise InputError(f"{label}: expected no '@' argument for {figure}; got @{arg}")
    if needed in ("damage", "round") and not (arg.isascii() and arg.isdigit()):
        _refuse_number_argument(figure, on, arg, needed, label)
    if needed == "damage" and int(arg) > MAX_DAMAGE_AT_LEAST:
        raise InputError(f"{label}: expected a damage of at most {MAX_DAMAGE_AT_LEAST:,} after "
                         f"'@' (the most a damage histogram counts whole); got {arg}")  # fmt: skip
    return FigureRef(figure, on, arg, label)


#: What a designer may write around the number after ``@``: ``r3``, ``round 3``,
#: ``3rd``, ``3.0``, ``8+``, ``>=8``, ``≥8``; a refusal suggests the number alone.
_NUMBER_WRITTEN_AROUND = re.compile(
    r"(?:rounds?|r|>=|≥)?\s*([0-9]+)(?:\.0*|st|nd|rd|th|\+)?", re.IGNORECASE
)


def _refuse_number_argument(figure: str, on: str, arg: str, needed: str, label: str) -> None:
    """Refuse ``arg``, which is not a whole number in digits, after ``@`` of ``figure``
    (a ``damage`` or a ``round``), with the spelling it takes and, where ``arg`` writes
    one such number among words or signs (``r3``, ``3rd``, ``8+``), that spelling.

    Raises
    ------
    InputError
        ``{label}: expected a round in digits after '@'; got 'r3'; did you mean
        'down_by_round:Pell@3'?``, or without the question ``(such as
        down_by_round:Pell@3)`` after ``'@'``.
    """
    meant = _NUMBER_WRITTEN_AROUND.fullmatch(arg)
    if meant:
        raise InputError(f"{label}: expected a {needed} in digits after '@'; got {arg!r}; "
                         f"did you mean '{figure}:{on}@{int(meant[1])}'?")  # fmt: skip
    example = {"round": "3", "damage": "8"}[needed]
    raise InputError(f"{label}: expected a {needed} in digits after '@' (such as "
                     f"{figure}:{on}@{example}); got {arg!r}")  # fmt: skip


_WHAT = {**{f: "attack" for f in ATTACK_FIGURES}, **{f: "combatant" for f in COMBATANT_FIGURES},
         "win_rate": "side"}  # fmt: skip


def never_crits(simulated: Any, exact: Any = None) -> bool:
    """Whether a crit rate is 0 in every run ``simulated`` (rates or crit counts) and in
    every exact answer ``exact`` that is known (NaN: none).

    Right where the figures are all there is to go by: ``simlab exact``'s answers
    (exactly 0: the attack cannot crit a fresh defender) and a single run's table, whose
    note says the ``—`` may be a crit too rare for its encounters. Where the scenario is
    at hand, whether a pair *can* crit is decided from its rules and profile
    (:func:`pairs_that_cannot_crit`, :func:`pairs_that_can_crit`): a sweep and a
    comparison, where a crit rate that vanished because a few attacks saw no natural 20
    would be a figure lost by luck.

    Parameters
    ----------
    simulated : array-like of float
        Crit rates or crit counts.
    exact : array-like of float, optional
        Exact crit rates, NaN where unknown.

    Returns
    -------
    bool
    """
    answers = np.asarray([] if exact is None else exact, dtype=float)
    return bool((np.asarray(simulated, dtype=float) == 0).all()
                and (np.nan_to_num(answers) == 0).all())  # fmt: skip


def pairs_that_cannot_crit(scenario: Any) -> set[str]:
    """The attack pairs of ``scenario`` that cannot crit, whatever the dice: those whose
    crit rate a table lists nowhere, where the crit rate of every other pair is listed,
    0 when a run happened to see no crit (a natural 20 in six encounters may not come
    up; that figure must not vanish by luck).

    A pair cannot crit when its attack's rows have no critical one (shattered-spirits'
    profiles, both drafts), or when the exact engine answers it (``attack_outcome``)
    with a crit rate of 0 that no fight moves (``fight_caveats`` does not name the crit
    rate: an opposed-tiers attack whose dice cannot double the defense). A pair the
    exact engine does not answer can crit unless its rows say otherwise. Every pair
    counts, under rules without crits (which have no crit rate at all).
    :func:`cannot_crit_why` says why of each.

    Parameters
    ----------
    scenario : ScenarioBase
        A loaded scenario.

    Returns
    -------
    set of str
        Pair labels (:func:`pair_label`) of attacker, attack and defender, the
        combatants named after ``count:`` expansion.
    """
    return set(cannot_crit_why(scenario))


def cannot_crit_why(scenario: Any) -> dict[str, str]:
    """Why each pair of :func:`pairs_that_cannot_crit` cannot crit, in the words a
    refusal gives after ``it cannot crit``: ``(its profile has no crit row)``.

    Parameters
    ----------
    scenario : ScenarioBase
        A loaded scenario.

    Returns
    -------
    dict of str to str
        Pair label to the reason, in parentheses.
    """
    from simlab.rules import has_crits

    pairs = _attack_pairs(scenario)
    if not has_crits(scenario.rules):
        return dict.fromkeys(pairs, f"({scenario.rules} has no critical hits)")
    rowless = {name for name, attack in scenario.attacks.items() if _no_crit_row(attack)}
    solver = functools.cache(lambda: _exact_crit_solver(scenario))  # the exact engine if asked
    out = {}
    for label, (a, attack, d) in pairs.items():
        if attack in rowless:
            out[label] = "(its profile has no crit row)"
        elif solver()(a, attack, d) == 0:
            out[label] = "(its exact crit rate is 0 whatever the fight)"
    return out


def known_cannot_crit(res: Any) -> dict[str, str] | None:
    """Why each attack pair of the run ``res`` cannot crit (pair label to the reason,
    without its parentheses: ``its profile has no crit row``), where that is known: from
    the scenario it simulated (:func:`cannot_crit_why`), or from what a results file kept
    of it (``Result.meta["cannot_crit"]``, ``results.json``'s ``cannot_crit``). None
    where neither tells: results read back from a file written before it was kept."""
    if res._simulated is not None:
        return {pair: why.strip("()") for pair, why in cannot_crit_why(res._simulated).items()}
    return dict(res.meta["cannot_crit"]) if "cannot_crit" in res.meta else None


def crit_problem(
    scenario: Any, attack: str, attacker: str | None = None, defender: str | None = None
) -> str | None:
    """Why a crit rate of ``attack`` (made by ``attacker``, at ``defender``, each a
    combatant or its ``count:`` copies; anyone when None) says nothing: every pair it
    pools cannot crit (:func:`cannot_crit_why`). None where one of them can, or where it
    pools none (the checks of who makes what say so).

    Parameters
    ----------
    scenario : ScenarioBase
        A loaded scenario.
    attack, attacker, defender : str
        What the crit rate is measured on.

    Returns
    -------
    str or None
        ``expected an attack that can crit; got 'strike': it cannot crit (its profile
        has no crit row)`` (``got 'strike' at 'Defender'`` for one defender).
    """
    from simlab.scenario.common import copies_of

    names = [name for _, name, _ in scenario.attack_makers()]

    def chosen(name: str | None) -> set[str]:
        return set(names if name is None else copies_of(name, names))

    attackers, defenders = chosen(attacker), chosen(defender)
    pooled = [label for label, (a, made, d) in _attack_pairs(scenario).items()
              if made == attack and names[a] in attackers and names[d] in defenders]  # fmt: skip
    why = cannot_crit_why(scenario) if pooled else {}
    if not pooled or any(label not in why for label in pooled):
        return None
    reasons = " ".join(dict.fromkeys(why[label] for label in pooled))
    at = "" if defender is None else f" at {defender!r}"
    return f"expected an attack that can crit; got {attack!r}{at}: it cannot crit {reasons}"


def pairs_that_can_crit(scenario: Any, why: Mapping[str, str] | None = None) -> set[str]:
    """The attack pairs of ``scenario`` that can crit: every pair it makes but those of
    :func:`pairs_that_cannot_crit`.

    Parameters
    ----------
    scenario : ScenarioBase
        A loaded scenario.
    why : mapping of str to str, optional
        Its :func:`cannot_crit_why`, where already worked out (it may ask the exact
        engine of every pair).

    Returns
    -------
    set of str
        Pair labels (:func:`pair_label`).
    """
    cannot = pairs_that_cannot_crit(scenario) if why is None else set(why)
    return set(_attack_pairs(scenario)) - cannot


def _attack_pairs(scenario: Any) -> dict[str, tuple[int, str, int]]:
    """Every attack pair ``scenario`` makes by its label: attacker's index, attack and
    defender's index among :meth:`~simlab.scenario.common.ScenarioBase.attack_makers`."""
    makers = [(side, name, list(dict.fromkeys(attacks)))
              for side, name, attacks in scenario.attack_makers()]  # fmt: skip
    return {pair_label(makers[a][1], attack, makers[d][1]): (a, attack, d)
            for a, (side, _, attacks) in enumerate(makers) for attack in attacks
            for d, (other, _, _) in enumerate(makers) if other != side}  # fmt: skip


def _no_crit_row(attack: Any) -> bool:
    """Whether an attack given by rows 2..12 (``row_tier``) has no critical row; False
    for an attack of other rules, which crit by their dice."""
    row_tier = getattr(attack, "row_tier", None)
    return row_tier is not None and all(row_tier(row) != "crit" for row in range(2, 13))


def _exact_crit_solver(scenario: Any) -> Any:
    """``solve(a, attack, d)``: the exact crit rate of that pair where the exact engine
    answers it and no fight moves it away from that answer; NaN elsewhere."""
    from simlab.errors import ExactUnsupported
    from simlab.exact.engine import exact_module

    try:
        module = exact_module(scenario.rules)
        whole = getattr(module, "check_scenario", None)
        if whole is not None:
            whole(scenario)
    except ExactUnsupported:
        return lambda a, attack, d: float("nan")
    caveats: Any = getattr(module, "fight_caveats", lambda *pair: {})

    def solve(a: int, attack: str, d: int) -> float:
        try:
            outcome = module.attack_outcome(scenario, a, attack, d)
            moved = "crit_rate" in caveats(scenario, a, attack, d)
        except ExactUnsupported:
            return float("nan")
        return float("nan") if moved else float(getattr(outcome, "crit_rate", 0.0))

    return solve


def refuse_crit_rate(figure: str, crits: bool, label: str) -> None:
    """Refuse the ``figure`` ``crit_rate`` of rules without critical hits (``crits``
    False, :attr:`Layout.crits`): it is 0 by the rules, a target or a curve of it says
    nothing.

    Raises
    ------
    InputError
        ``{label}: expected a figure these rules have; got 'crit_rate': they have no
        critical hits``.
    """
    if figure == "crit_rate" and not crits:
        raise InputError(f"{label}: expected a figure these rules have; got 'crit_rate': "
                         "they have no critical hits")  # fmt: skip


def check_figure(
    ref: FigureRef,
    layout: Layout,
    label: str,
    scenario: Any = None,
    others: Sequence[Any] = (),
    cap: int | None = None,
) -> None:
    """Check that what ``ref`` is measured on exists in a scenario's layout, and (given
    the ``scenario``) that an attack figure's attack is made by someone, at a defender it
    can target (:meth:`~simlab.scenario.common.ScenarioBase.attack_problem`), that a
    crit rate is of pairs of which one can crit (:func:`crit_problem`; or can in one of
    ``others``, the scenarios of a tune's other values), that a
    figure of going down is of a combatant something can harm
    (:meth:`~simlab.scenario.common.ScenarioBase.down_problem`), that a win rate is of
    a side that can win (every enemy can go down), and that a
    name of ``count:`` copies pools no combatant of its own (``Orc`` beside an ``Orc 3``).
    The round after ``@`` of ``down_by_round`` is within ``cap``, the largest round cap
    of a tune's values (``max_rounds`` may be its field), or the layout's.

    Raises
    ------
    InputError
        Naming ``label`` and the names the scenario has.
    """
    refuse_crit_rate(ref.figure, layout.crits, label)
    if ref.figure in ATTACK_FIGURES:
        attack, _, defender = ref.on.partition("/")
        if attack not in layout.attacks:
            raise InputError(f"{label}: expected an attack of the scenario "
                             f"({', '.join(layout.attacks)}); got {attack!r}"
                             f"{did_you_mean(attack, layout.attacks)}")  # fmt: skip
        if defender and not _chosen(layout, defender):
            targets = _targets(layout, scenario, attack)
            raise InputError(f"{label}: expected a defender after '/' "
                             f"({', '.join(targets)}); got {defender!r}"
                             f"{did_you_mean(defender, targets)}")  # fmt: skip
        if not _slots(layout, ref):
            raise InputError(f"{label}: expected an attack some combatant makes; "
                             f"got {ref.on!r}")  # fmt: skip
    elif ref.figure in COMBATANT_FIGURES and not _chosen(layout, ref.on):
        raise InputError(f"{label}: expected a combatant ({_names(layout)}); got {ref.on!r}"
                         f"{_suggest_name(layout, ref.on)}")  # fmt: skip
    elif ref.figure == "win_rate" and ref.on not in layout.sides:
        raise InputError(f"{label}: expected a side ({', '.join(layout.sides)}); "
                         f"got {ref.on!r}{did_you_mean(ref.on, layout.sides)}")  # fmt: skip
    last = layout.max_rounds if cap is None else cap
    if ref.figure == "down_by_round" and not 1 <= int(ref.arg) <= last:
        raise InputError(f"{label}: expected a round from 1 to {last} (the round "
                         f"cap) after '@'; got {ref.arg}")  # fmt: skip
    if ref.figure == "event_rate" and ref.arg not in layout.events:
        known = ", ".join(layout.events) or "none in these rules"
        raise InputError(f"{label}: expected an event ({known}); got {ref.arg!r}"
                         f"{did_you_mean(ref.arg, layout.events)}")  # fmt: skip
    if ref.figure in ATTACK_FIGURES and scenario is not None:
        attack, _, defender = ref.on.partition("/")
        problem = scenario.attack_problem(attack, defender or None)
        if problem is not None:
            raise InputError(f"{label}: {problem}")
    if ref.figure == "crit_rate" and scenario is not None:
        _refuse_crit_rate_of(ref, label, [scenario, *others])
    if ref.figure in DOWN_FIGURES and scenario is not None:
        problem = scenario.down_problem(ref.on)
        if problem is not None:
            raise InputError(f"{label}: {problem}")
    if ref.figure == "win_rate" and scenario is not None:
        problem = _never_wins(scenario, ref.on)
        if problem is not None:
            raise InputError(f"{label}: {problem}")
    for name in _combatants_named(ref) if scenario is not None else []:
        problem = scenario.pooling_problem(name)
        if problem is not None:
            raise InputError(f"{label}: {problem}")


def _refuse_crit_rate_of(ref: FigureRef, label: str, scenarios: list[Any]) -> None:
    """Refuse the crit rate ``ref`` where no pair it pools can crit in any of
    ``scenarios`` (:func:`crit_rate_problem`), in the words of the first."""
    first = crit_rate_problem(ref, scenarios[0])  # the others asked only where it is said
    if first and all(crit_rate_problem(ref, scn) for scn in scenarios[1:]):
        raise InputError(f"{label}: {first}")


def crit_rate_problem(ref: FigureRef, scenario: Any) -> str | None:
    """Why the crit rate ``ref`` of ``scenario`` is 0 whatever the dice: every pair it
    pools cannot crit (:func:`crit_problem`). None where one can, or ``ref`` is no crit
    rate. Where it is not None in one of several variants run side by side (a
    comparison's A and B, a sweep's points, a tune's values) and None in another, the
    figure is that variant's exact 0.

    Parameters
    ----------
    ref : FigureRef
        A figure, ``crit_rate:strike`` or ``crit_rate:strike/Defender``.
    scenario : ScenarioBase
        A loaded scenario.

    Returns
    -------
    str or None
        As :func:`crit_problem` says it.
    """
    if ref.figure != "crit_rate":
        return None
    attack, _, defender = ref.on.partition("/")
    return crit_problem(scenario, attack, None, defender or None)


def _never_wins(scenario: Any, side: str) -> str | None:
    """Why ``side`` of ``scenario`` never wins, or None: it wins when every enemy is
    down, so never where one of them can never go down
    (:meth:`~simlab.scenario.common.ScenarioBase.never_down_why`, which knows the harm
    that needs no attacker: a status, terrain)."""
    makers = scenario.able_makers()
    for enemy_side, name, _ in makers:
        reason = None if enemy_side == side else scenario.never_down_why(name, makers)
        if reason is not None:
            return (f"expected a side that can win; got {side!r}: it wins when every enemy "
                    f"is down, and {name!r} never is: {reason}")  # fmt: skip
    return None


def _combatants_named(ref: FigureRef) -> list[str]:
    """The combatant names ``ref`` is measured on: a combatant's, or an attack's
    defender after '/'."""
    if ref.figure in ATTACK_FIGURES:
        defender = ref.on.partition("/")[2]
        return [defender] if defender else []
    return [ref.on] if ref.figure in COMBATANT_FIGURES else []


def _names(layout: Layout) -> str:
    return ", ".join(dict.fromkeys(name for _, name in layout.combatants))


def _targets(layout: Layout, scenario: Any, attack: str) -> list[str]:
    """The combatants ``attack`` can target (on another side than its makers, as the
    ``scenario`` says); every combatant where no scenario is given, or where nobody
    makes the attack (which is then said on its own)."""
    names = list(dict.fromkeys(name for _, name in layout.combatants))
    if scenario is None:
        return names
    return [n for n in names if scenario.attack_problem(attack, n) is None] or names


def _suggest_name(layout: Layout, name: str) -> str:
    """``; did you mean 'Troll'?`` for a combatant name close to ``name``, else ``""``."""
    return did_you_mean(name, (known for _, known in layout.combatants))


def _chosen(layout: Layout, name: str) -> list[int]:
    """Combatant indices ``name`` designates: itself or its ``count:`` copies."""
    from simlab.scenario.common import copies_of

    names = [n for _, n in layout.combatants]
    chosen = set(copies_of(name, names))
    return [i for i, n in enumerate(names) if n in chosen]


def _slots(layout: Layout, ref: FigureRef) -> list[int]:
    """Attack pairs an attack figure pools: every attacker of the attack, every defender
    (or the one named after ``/``) — only pairs the layout can have."""
    attack, _, defender = ref.on.partition("/")
    k = layout.attacks.index(attack)
    n = len(layout.combatants)
    defenders = _chosen(layout, defender) if defender else range(n)
    return [layout.pair(a, k, d) for a in range(n) for d in defenders
            if layout.side_of[a] != layout.side_of[d]]  # fmt: skip


def measure(
    tallies: TallyArrays, layout: Layout, n: int, ref: FigureRef, level: float = 0.95
) -> tuple[float, float, float]:
    """A figure of a run and its ``level`` interval: (value, lo, hi), NaN when unmeasured.

    Rates: Wilson (Clopper–Pearson when rare); mean damage: batch means; mean rounds and
    mean time-to-down: normal (encounters are independent); the median time-to-down (the
    round by which half of all encounters had it down): read off the pointwise interval
    of P(down by round r), as in ``expect:``. :func:`measure_with_kind` names which.
    """
    return measure_with_kind(tallies, layout, n, ref, level)[:3]


def measure_with_kind(
    tallies: TallyArrays, layout: Layout, n: int, ref: FigureRef, level: float = 0.95
) -> tuple[float, float, float, str]:
    """:func:`measure`, with the kind of its interval as a sweep's ``*_ci_kind`` columns
    name it: ``wilson`` or ``clopper-pearson`` (a rate), ``batch-means`` (a mean damage),
    :data:`~simlab.analysis.result.NORMAL_CI_KIND` (a mean time-to-down or length),
    :data:`~simlab.analysis.result.MEDIAN_CI_KIND` (a median time-to-down); "" where
    nothing was measured (no attack made)."""
    if ref.figure in ATTACK_FIGURES:
        return _attack_measure(tallies, layout, ref, level)
    if ref.figure in COMBATANT_FIGURES:
        return _combatant_measure(tallies, layout, n, ref, level)
    if ref.figure in ("win_rate", "draw_rate"):
        s = layout.sides.index(ref.on) if ref.on else -1
        return _rate(int(tallies.winner[s]), n, level)
    mean, var = stats.histogram_mean_var(tallies.rounds)
    half = stats.normal_quantile(level) * np.sqrt(var / n)
    return mean, mean - half, mean + half, NORMAL_CI_KIND


def _rate(k: int, n: int, level: float) -> tuple[float, float, float, str]:
    if n == 0:
        return np.nan, np.nan, np.nan, ""
    lo, hi, kind = stats.rate_interval(k, n, level)
    return k / n, float(lo), float(hi), str(kind)


def _attack_measure(
    tallies: TallyArrays, layout: Layout, ref: FigureRef, level: float
) -> tuple[float, float, float, str]:
    slots = _slots(layout, ref)
    attempts = tallies.attempts[slots].sum(axis=0)
    total = int(attempts.sum())
    if ref.figure == "mean_damage":
        if total == 0:
            return np.nan, np.nan, np.nan, ""
        mean, lo, hi = stats.ratio_batch_means(tallies.damage_sum[slots].sum(axis=0), attempts,
                                               level)  # fmt: skip
        return mean, lo, hi, "batch-means"
    if ref.figure == "damage_at_least":
        k = int(tallies.damage_hist[slots, int(ref.arg) :].sum())
    else:
        k = int((tallies.hits if ref.figure == "hit_rate" else tallies.crits)[slots].sum())
    return _rate(k, total, level)


def _combatant_measure(
    tallies: TallyArrays, layout: Layout, n: int, ref: FigureRef, level: float
) -> tuple[float, float, float, str]:
    chosen = _chosen(layout, ref.on)
    down = tallies.down_round[chosen].sum(axis=0)
    total = n * len(chosen)
    if ref.figure == "down_rate":
        return _rate(int(down.sum()), total, level)
    if ref.figure == "event_rate":
        e = layout.events.index(ref.arg)
        return _rate(int(tallies.event_round[chosen, e].sum()), total, level)
    if ref.figure == "down_by_round":
        return _rate(int(down[: int(ref.arg) + 1].sum()), total, level)
    if ref.figure == "mean_time_to_down":
        return (*mean_time_to_down(down, level), NORMAL_CI_KIND)
    # Not reached by the round cap: beyond it, as far as a search is concerned.
    median, lo, hi = (np.inf if np.isnan(x) else x
                      for x in median_time_to_down(down, total, level,
                                                   layout.first_round_of(chosen)))  # fmt: skip
    return median, lo, hi, MEDIAN_CI_KIND


def exact_measure(answer: Any, ref: FigureRef) -> float | None:
    """A figure from an exact answer (:class:`simlab.exact.engine.ExactResult`), or None
    when the exact engine does not give it (several pairs pooled, solved or refused, a
    figure the fight moves away from the fresh-defender answer (the pair's ``caveats``),
    no solved duel, win and draw rates, encounter length)."""
    from simlab.exact.engine import capped_median  # the exact engine is loaded by now

    if ref.figure in ATTACK_FIGURES:
        attack, _, defender = ref.on.partition("/")

        def pooled(key: tuple[str, str, str]) -> bool:
            return key[1] == attack and (not defender or key[2] == defender)

        pairs = [p for p in answer.pairs if pooled(p.key)]
        refused = [s for s, _ in answer.refusals if isinstance(s, tuple) and pooled(s)]
        if len(pairs) != 1 or refused or _moved_by_the_fight(pairs[0].caveats, ref.figure):
            return None
        if ref.figure == "damage_at_least":
            return float(pairs[0].damage_pmf[int(ref.arg) :].sum())
        return float(getattr(pairs[0], ref.figure))
    duel = answer.duel
    if ref.figure not in COMBATANT_FIGURES or duel is None or duel.defender != ref.on:
        return None
    pmf = np.asarray(duel.pmf, dtype=float)
    if ref.figure == "down_rate":
        return float(pmf.sum())
    if ref.figure == "down_by_round":
        return float(pmf[: int(ref.arg) + 1].sum())
    if ref.figure == "median_time_to_down":  # past the round cap: not reached, as in a run
        median = capped_median(duel)
        return np.inf if median is None else median
    if ref.figure == "mean_time_to_down":
        return float(duel.capped_moments()[1])
    return None


def _moved_by_the_fight(caveats: dict[str, str], figure: str) -> bool:
    """Whether a pair's ``caveats`` say a fight moves ``figure`` away from its exact
    answer; ``damage_at_least`` reads the damage distribution, which any of them moves."""
    return bool(caveats) if figure == "damage_at_least" else figure in caveats
