"""Exact answers for a whole scenario — and the simulator's oracle.

:func:`exact` asks the rule system's exact module (``simlab.exact.<package>``, see the
contract in :mod:`simlab.exact`) for every (attacker, attack, defender on another side)
pair of the scenario — hit rate, crit rate, damage distribution and mean, against a
fresh defender — and, when the scenario is a duel, for the distribution of the round in
which the defender is first Downed. What the module cannot solve is recorded in
``ExactResult.refusals`` with the feature that prevents it; only when nothing at all can
be solved is :class:`~simlab.errors.ExactUnsupported` raised.

:func:`check_simulation` compares a simulation with those answers, figure by figure, in
standard errors. Caveat: a simulated pair mixes every attack of a full fight, in which
the defender's (or attacker's) state may change — statuses gained, exposure. The exact
answer is for the starting state, so only figures that cannot move during the fight are
compared: pairs the exact module refuses are skipped, and so are the figures the
system's ``fight_caveats`` names (for shattered-spirits: damage when some opponent can
inflict Exposed on the defender or Impaired on the attacker).
"""

from __future__ import annotations

import importlib
import math
import os
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from simlab import __version__
from simlab.analysis import stats
from simlab.binding import checked_arguments
from simlab.errors import ExactUnsupported
from simlab.report.files import scenario_hash
from simlab.report.words import counted, format_p
from simlab.rules import RULE_SYSTEMS
from simlab.scenario.common import ScenarioBase
from simlab.scenario.load import scenario_of

if TYPE_CHECKING:
    from simlab.analysis.result import Result

__all__ = [
    "CHECK_COLUMNS",
    "CHECK_Z",
    "DuelExact",
    "ExactResult",
    "PairExact",
    "check_result",
    "check_simulation",
    "check_verdict",
    "exact",
    "exact_module",
]

#: Verdict threshold of ``simlab run --check``, in standard errors: P(|z| > 4.5) ≈ 6.8e-6
#: per figure for a correct simulator, so even a hundred figures rarely raise an alarm.
CHECK_Z = 4.5
CHECK_COLUMNS = ["figure", "attacker", "attack", "defender", "simulated", "exact",
                 "std_error", "z", "p_value", "p_kind"]  # fmt: skip
#: ``p_kind`` of a row whose p-value is the exact binomial one (a rare rate), not the
#: normal one of its z.
BINOMIAL_P = "binomial"
SIMULATE_HINT = "use `simlab run` to simulate it"
TIME_TO_DOWN = "time_to_down"

Pair = tuple[str, str, str]
Subject = Pair | str


def scenario_refusal(message: str) -> tuple[str, list[str]]:
    """The exact engine's refusal of a whole scenario, read: its first line (``cannot
    solve scenario 'duel' exactly:``) and the reasons it lists under it, each without
    its ``- ``; the hint to simulate (:data:`SIMULATE_HINT`) left out, for a reader that
    has simulated (``run --check``, the report, ``simulate(check=True)``'s warning)."""
    head, *rest = [line for line in message.splitlines() if line != SIMULATE_HINT]
    return head, [line.strip().removeprefix("- ") for line in rest]


@dataclass(frozen=True)
class PairExact:
    """Exact outcome of one (attacker, attack, defender) pair against a fresh defender.

    Attributes
    ----------
    attacker, attack, defender : str
        Names (combatants after ``count:`` expansion).
    hit_rate, crit_rate, mean_damage : float
        P(hit or crit), P(crit), expected damage per attack (misses count as 0).
    damage_pmf : numpy.ndarray
        ``damage_pmf[d]`` = P(d damage).
    caveats : dict of str to str
        Figures a full fight may move away from this answer, each with every reason
        that moves it, joined by ``"; "`` (:func:`simlab.exact.outcome.every_reason`).
    """

    attacker: str
    attack: str
    defender: str
    hit_rate: float
    crit_rate: float
    mean_damage: float
    damage_pmf: np.ndarray
    caveats: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> Pair:
        """(attacker, attack, defender)."""
        return (self.attacker, self.attack, self.defender)

    @property
    def damage_variance(self) -> float:
        """Variance of the damage of one attack."""
        values = np.arange(len(self.damage_pmf))
        return float(np.dot((values - self.mean_damage) ** 2, self.damage_pmf))


@dataclass(frozen=True)
class DuelExact:
    """Exact time-to-down of a duel's defender, in rounds.

    Attributes
    ----------
    attacker, defender, side : str
        The duel's attacker, its defender and the defender's side.
    pmf : numpy.ndarray
        P(first Downed in round r), r = 0..max_rounds (the simulator's cap).
    censored : float
        P(not Downed by the round cap).
    mean, variance : float
        Of the round of first down, without the cap (``inf`` when never Downed).
    median : int or None
        Smallest round r with P(down by r) ≥ 1/2.
    """

    attacker: str
    defender: str
    side: str
    pmf: np.ndarray
    censored: float
    mean: float
    variance: float
    median: int | None

    def capped_moments(self) -> tuple[float, float, float]:
        """P(down by the cap), and the mean and variance of the round given that."""
        rounds = np.arange(len(self.pmf))
        total = float(self.pmf.sum())
        if total <= 0:
            return 0.0, math.nan, math.nan
        mean = float(np.dot(rounds, self.pmf)) / total
        return total, mean, float(np.dot((rounds - mean) ** 2, self.pmf)) / total


@dataclass
class ExactResult:
    """The outcome of ``simlab.exact``: every pair solved, the duel, and the refusals.

    Attributes
    ----------
    scenario, rules : str
        Scenario id and rules id.
    pairs : list of PairExact
        Solved pairs, in scenario order.
    duel : DuelExact or None
        The duel's time-to-down, when the scenario is a duel the system can solve.
    refusals : list of (subject, reason)
        What could not be solved: the subject is an (attacker, attack, defender) tuple or
        ``"time_to_down"``; the reason names the feature.
    overrides : list of str
        The changes (``NAME.FIELD=VALUE``) that made the scenario from its file, as a
        run records them.
    scenario_hash : str or None
        :func:`simlab.report.files.scenario_hash` of the scenario solved, as a run
        records its own (``Result.meta["scenario_hash"]``): the plots refuse the answers
        of another scenario.
    """

    scenario: str
    rules: str
    pairs: list[PairExact]
    duel: DuelExact | None
    refusals: list[tuple[Subject, str]]
    overrides: list[str] = field(default_factory=list)
    scenario_hash: str | None = None

    def __repr__(self) -> str:
        """One line: what was solved, how many pairs have figures a fight moves away
        from their answers, and where the tables are (the dataclass's own repr printed
        every pair's damage distribution as an array)."""
        duel = "the duel's time-to-down" if self.duel is not None else "no time-to-down"
        pairs = counted(len(self.pairs), "pair")
        moved = sum(1 for p in self.pairs if p.caveats)
        caveats = (f"; in a fight, figures of {counted(moved, 'pair')} move away from these "
                   "answers (.caveats(), column moved_by_fight)" if moved else "")  # fmt: skip
        return (f"<ExactResult {self.scenario} · rules {self.rules}: {pairs} and {duel} "
                f"solved, {len(self.refusals)} refused{caveats}; .attacks(), .damage_pmf(), "
                ".time_to_down(), .refusals>")  # fmt: skip

    @checked_arguments(table=True)
    def attacks(self) -> pd.DataFrame:
        """Hit rate, crit rate and mean damage of every solved pair, against a fresh
        defender.

        Returns
        -------
        pandas.DataFrame
            ``attacker, attack, defender, hit_rate, crit_rate, mean_damage`` and
            ``moved_by_fight``: the figures a full fight moves away from this answer
            (``"hit_rate, mean_damage"``; ``""`` when none), why in :meth:`caveats`.
        """
        columns = ["attacker", "attack", "defender", "hit_rate", "crit_rate", "mean_damage",
                   "moved_by_fight"]  # fmt: skip
        rows = [(*p.key, p.hit_rate, p.crit_rate, p.mean_damage, ", ".join(p.caveats))
                for p in self.pairs]  # fmt: skip
        return _table(rows, columns)

    @checked_arguments(table=True)
    def caveats(self) -> pd.DataFrame:
        """The figures a full fight moves away from the fresh-defender answers of
        :meth:`attacks` (a surprise round's undefended shots, a status gained), with why:
        one row per pair and figure, none where nothing moves.

        Returns
        -------
        pandas.DataFrame
            ``attacker, attack, defender, figure, reason``: ``reason`` gives every reason
            that moves the figure, joined by ``"; "`` (a Block and an acid that corrodes
            the defender's BC: ``Knight blocks on only some attacks; A's 'acid' corrodes
            Knight's BC``), so that a designer who removes one sees what else moves it.
        """
        rows = [(*p.key, figure, reason) for p in self.pairs
                for figure, reason in p.caveats.items()]  # fmt: skip
        return _table(rows, ["attacker", "attack", "defender", "figure", "reason"])

    @checked_arguments(table=True)
    def damage_pmf(self) -> pd.DataFrame:
        """Damage distribution of every solved pair, one row per reachable damage."""
        rows = [
            (*p.key, int(d), float(p.damage_pmf[d]))
            for p in self.pairs
            for d in np.flatnonzero(p.damage_pmf > 0)
        ]
        return _table(rows, ["attacker", "attack", "defender", "damage", "probability"])

    @checked_arguments(table=True)
    def time_to_down(self) -> pd.DataFrame:
        """The duel defender's P(first Downed in round r) and P(Downed by round r),
        r = 1..max_rounds (the simulation's ``down_by_round``).

        Empty when there is no duel answer.
        """
        columns = ["combatant", "round", "probability", "down_by_round"]
        if self.duel is None:
            return _table([], columns)
        pmf = self.duel.pmf[1:]
        return pd.DataFrame(
            {
                "combatant": self.duel.defender,
                "round": np.arange(1, len(pmf) + 1),
                "probability": pmf,
                "down_by_round": np.clip(np.cumsum(pmf), 0.0, 1.0),
            },
            columns=columns,
        )

    @checked_arguments()
    def summary(self) -> dict[str, Any]:
        """The ``summary.json`` document, shaped as ``simlab run``'s without intervals.

        No ``*_ci`` keys, no ``attempts``, ``encounters``, ``seed`` or
        ``interval_level`` (nothing was sampled); ``"method": "exact"`` and the
        ``refusals`` are added, and the ``scenario_hash`` of the scenario solved (a
        run's summary has it in its run stamp), by which the plots' ``exact=`` refuses
        the answers of another scenario; ``time_to_down.capped`` is a probability (not Downed by
        the round cap) and ``time_to_down.mean`` the uncapped mean. ``sides``, ``draw_rate`` and
        ``mean_rounds`` are not solved exactly (empty / null).
        """
        return {
            "scenario": self.scenario,
            "rules": self.rules,
            "simlab_version": __version__,
            "method": "exact",
            "attacks": [_pair_summary(p) for p in self.pairs],
            "combatants": [] if self.duel is None else [_duel_summary(self.duel)],
            "sides": [],
            "draw_rate": None,
            "mean_rounds": None,
            "refusals": [_refusal_summary(s, r) for s, r in self.refusals],
            **({"overrides": self.overrides} if self.overrides else {}),
            "scenario_hash": self.scenario_hash,
        }


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _pair_summary(p: PairExact) -> dict[str, Any]:
    pmf = {str(int(d)): float(p.damage_pmf[d]) for d in np.flatnonzero(p.damage_pmf > 0)}
    return {"attacker": p.attacker, "attack": p.attack, "defender": p.defender,
            "hit_rate": p.hit_rate, "crit_rate": p.crit_rate, "mean_damage": p.mean_damage,
            "damage_pmf": pmf, "caveats": dict(p.caveats)}  # fmt: skip


def _duel_summary(duel: DuelExact) -> dict[str, Any]:
    pmf = {str(int(r)): float(duel.pmf[r]) for r in np.flatnonzero(duel.pmf > 0)}
    median = capped_median(duel)
    # sums in floating point may end a hair past 1; a chance is written from 0 to 1
    by_round = np.clip(np.cumsum(duel.pmf), 0.0, 1.0)
    ttd = {"unit": "round", "median_time_to_down": median,
           "median_time_to_down_when_downed": stats.histogram_median(duel.pmf),
           # among the encounters downed by the cap, as a run's; "mean": without the cap
           "mean_time_to_down": _finite(stats.histogram_mean_var(duel.pmf)[0]),
           "mean": _finite(duel.mean),
           "pmf": pmf, "down_by_round": {str(r): float(by_round[r])
                                         for r in range(1, len(by_round))},
           "capped": duel.censored}  # fmt: skip
    return {"name": duel.defender, "side": duel.side, "down_rate": float(by_round[-1]),
            "time_to_down": ttd}  # fmt: skip


def capped_median(duel: DuelExact) -> float | None:
    """The median time-to-down as a run measures it: the round by which half of all
    encounters had the defender down, None when that is past the round cap (the fight
    ends there, a draw). ``duel.median`` is the round without the cap."""
    cap = len(duel.pmf) - 1
    return None if duel.median is None or duel.median > cap else float(duel.median)


def _refusal_summary(subject: Subject, reason: str) -> dict[str, Any]:
    if isinstance(subject, str):
        return {"figure": subject, "attacker": None, "attack": None, "defender": None,
                "reason": reason}  # fmt: skip
    attacker, attack, defender = subject
    return {"figure": "attack", "attacker": attacker, "attack": attack, "defender": defender,
            "reason": reason}  # fmt: skip


def describe(subject: Subject) -> str:
    """A refusal's subject as text: ``"Kaito: quick-jab → Brute"`` (the pair form of
    every table and list, :func:`simlab.report.terminal.pair_heading`; ``Kaito → Brute``
    for a duel's time-to-down) or ``"time_to_down"``."""
    if isinstance(subject, str):
        return subject
    who = f"{subject[0]}: {subject[1]}" if subject[1] else subject[0]
    return f"{who} → {subject[2]}"


# -- solving -------------------------------------------------------------------------------


#: The dtypes of the exact tables' columns, for a table with no row, which pandas would
#: type as objects: the dtypes of the same table with rows (a name is text).
_COLUMN_KINDS = {"damage": np.int64, "round": np.int64, "hit_rate": float, "crit_rate": float,
                 "mean_damage": float, "probability": float, "down_by_round": float}  # fmt: skip


def _table(rows: list[tuple[Any, ...]], columns: list[str]) -> pd.DataFrame:
    """The rows as a table; with no row, its columns typed as with rows
    (:data:`_COLUMN_KINDS`, text where not listed)."""
    if rows:
        return pd.DataFrame(rows, columns=columns)
    return pd.DataFrame({c: pd.Series(dtype=_COLUMN_KINDS.get(c, str)) for c in columns})


def exact_module(rules: str) -> ModuleType:
    """The exact module of a rule system: ``simlab.exact.<package>`` by convention.

    Raises
    ------
    ExactUnsupported
        When the system has no exact module.
    """
    package = RULE_SYSTEMS[rules].rsplit(".", 1)[-1]
    name = f"simlab.exact.{package}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        raise ExactUnsupported(
            f"expected rules with an exact engine; got rules {rules!r}, which have none yet "
            f"(no module {name}); {SIMULATE_HINT}"
        ) from None


def _roster(scenario: ScenarioBase) -> list[tuple[str, str, list[str]]]:
    """(side, name, distinct attacks) of every combatant after ``count:`` expansion: every
    attack it can make (``attack_makers``), those listed elsewhere than its ``attacks``
    included (the earlier draft's Improvised Technique)."""
    return [(s, n, list(dict.fromkeys(attacks))) for s, n, attacks in scenario.attack_makers()]


def _solve_pair(
    scenario: ScenarioBase, module: ModuleType, roster: list[Any], a: int, attack: str, d: int
) -> PairExact:
    """The exact answer of ``attack`` by combatant ``a`` at combatant ``d`` (their places
    in ``roster``, :func:`_roster`)."""
    outcome = module.attack_outcome(scenario, a, attack, d)
    hook = getattr(module, "fight_caveats", None)
    caveats = {} if hook is None else dict(hook(scenario, a, attack, d))
    # a chance from the dice alone is 0 or 1 only where it is so, never by float sums:
    # one summed to 1.0000000000000002 (every roll hits) is 1
    hit, crit = (min(max(float(x), 0.0), 1.0)
                 for x in (outcome.hit_rate, getattr(outcome, "crit_rate", 0.0)))  # fmt: skip
    rates = (hit, crit, float(outcome.mean_damage))
    return PairExact(roster[a][1], attack, roster[d][1], *rates,
                     np.asarray(outcome.damage_pmf, dtype=float), caveats)  # fmt: skip


def _solve_pairs(
    scenario: ScenarioBase, module: ModuleType
) -> tuple[list[PairExact], list[tuple[Subject, str]]]:
    roster = _roster(scenario)
    pairs: list[PairExact] = []
    refusals: list[tuple[Subject, str]] = []
    for a, (side_a, name_a, attacks) in enumerate(roster):
        for attack in attacks:
            for d, (side_d, name_d, _) in enumerate(roster):
                if side_d == side_a:
                    continue
                try:
                    pairs.append(_solve_pair(scenario, module, roster, a, attack, d))
                except ExactUnsupported as err:
                    refusals.append(((name_a, attack, name_d), str(err)))
    return pairs, refusals


def _duel_roles(scenario: ScenarioBase) -> tuple[int, int] | None:
    """(attacker, defender) indices when the scenario is a duel, else None."""
    roster = _roster(scenario)
    attackers = [c for c, (_, _, attacks) in enumerate(roster) if attacks]
    if len(attackers) != 1:
        return None
    opponents = [c for c, (s, _, _) in enumerate(roster) if s != roster[attackers[0]][0]]
    return (attackers[0], opponents[0]) if len(opponents) == 1 else None


def _solve_duel(scenario: ScenarioBase, module: ModuleType) -> DuelExact:
    solve = getattr(module, "duel_time_to_down", None)
    if solve is None:
        raise ExactUnsupported(f"expected rules with an exact time-to-down; got rules "
                               f"{scenario.rules!r}, which have none yet")  # fmt: skip
    roles = _duel_roles(scenario)
    chain = solve(scenario)
    if roles is None:  # the module solved something the engine cannot name
        raise ExactUnsupported("expected one combatant with attacks and one opponent")
    roster = _roster(scenario)
    attacker, defender = roster[roles[0]], roster[roles[1]]
    return DuelExact(attacker[1], defender[1], defender[0],
                     np.asarray(chain.capped_pmf, dtype=float), float(chain.censored),
                     float(chain.mean), float(chain.variance), chain.median)  # fmt: skip


def _nothing_message(scenario: ScenarioBase, refusals: list[tuple[Subject, str]]) -> str:
    lines = [f"cannot solve scenario {scenario.scenario!r} exactly:"]
    lines += [f"  - {'time-to-down' if s == TIME_TO_DOWN else describe(s)}: {r}"
              for s, r in refusals]  # fmt: skip
    lines.append(SIMULATE_HINT)
    return "\n".join(lines)


@checked_arguments()
def exact(scenario: ScenarioBase | str | os.PathLike[str]) -> ExactResult:
    """Exact attack outcomes of every pair, and the duel's time-to-down when it is one.

    Parameters
    ----------
    scenario : ScenarioBase or path
        A loaded scenario, or the path of one.

    Returns
    -------
    ExactResult
        Pairs or the duel the system cannot solve are listed in ``refusals``.

    Raises
    ------
    ExactUnsupported
        When nothing at all can be solved; the message gives every reason and the
        suggestion to use ``simlab run``.
    """
    scenario = scenario_of(scenario)
    module = exact_module(scenario.rules)
    whole = getattr(module, "check_scenario", None)  # refusals of the whole scenario
    if whole is not None:
        try:
            whole(scenario)
        except ExactUnsupported as err:
            raise ExactUnsupported(f"cannot solve scenario {scenario.scenario!r} exactly:\n"
                                   f"  - {err}\n{SIMULATE_HINT}") from None  # fmt: skip
    pairs, refusals = _solve_pairs(scenario, module)
    duel = None
    try:
        duel = _solve_duel(scenario, module)
    except ExactUnsupported as err:
        refusals.append((TIME_TO_DOWN, str(err)))
    if not pairs and duel is None:
        raise ExactUnsupported(_nothing_message(scenario, refusals))
    return ExactResult(scenario.scenario, scenario.rules, pairs, duel, refusals,
                       list(scenario.overrides), scenario_hash(scenario))  # fmt: skip


# -- checking a simulation -----------------------------------------------------------------


def _z_row(figure: str, key: Pair, simulated: float, exact_value: float, se: float) -> tuple:
    """One row of the check table: z = (simulated − exact) / se, two-sided p
    (:func:`simlab.analysis.stats.z_test`: rounding is no difference, and a standard error
    that is only rounding is shown as 0)."""
    z, p, se = stats.z_test(simulated - exact_value, se, exact_value)
    return (figure, *key, simulated, exact_value, se, z, p, "normal")


def _rate_row(figure: str, key: Pair, simulated: float, exact_value: float, n: int) -> tuple:
    """:func:`_z_row` of a rate from ``n`` trials (binomial standard error). Where fewer
    than ``RARE_EVENT_THRESHOLD`` events (or non-events) are expected, the count is far
    from normal and its p-value is the exact binomial one
    (:func:`simlab.analysis.stats.binomial_two_sided_p`)."""
    row = _z_row(figure, key, simulated, exact_value, _rate_se(exact_value, n))
    if not stats.few_expected(n, exact_value):
        return row
    k = min(max(round(simulated * n), 0), n)
    return (*row[:-2], stats.binomial_two_sided_p(k, n, exact_value), BINOMIAL_P)


def _rate_se(p: float, n: int) -> float:
    """Standard error of a rate from n trials. A chain's float sums may put p a hair
    outside [0, 1]: it is taken as far inside, so that a duel's chance of being down by
    the cap summed to 1 + 9e-16 (opposed-tiers) is tested as one summed to 1 − 3e-16
    (shattered-spirits), which it may well be (a chance a hair below 1 is not certain),
    where it was clipped to a certain 1. A pair's rates are clipped where they are made
    (:func:`_solve_pair`): from the dice alone, a hair past 1 is 1."""
    p = 2.0 - p if p > 1.0 else abs(p)
    return math.sqrt(p * (1 - p) / n)


def _pair_rows(pair: PairExact, rate: Any, dmg: Any, crits: bool) -> list[tuple]:
    """The check rows of one pair: hit rate, crit rate (where the rules have crits) and
    mean damage, but the figures a fight can move (``pair.caveats``)."""
    n = int(rate.attempts)
    rates = {"hit_rate": (float(rate.hit_rate), pair.hit_rate)}
    if crits:
        rates["crit_rate"] = (float(rate.crit_rate), pair.crit_rate)
    rows = [_rate_row(f, pair.key, *v, n) for f, v in rates.items() if f not in pair.caveats]
    if "mean_damage" not in pair.caveats:
        rows.append(_z_row("mean_damage", pair.key, float(dmg.mean_damage), pair.mean_damage,
                           math.sqrt(max(pair.damage_variance, 0.0) / n)))  # fmt: skip
    return rows


def _duel_rows(res: Result, duel: DuelExact) -> list[tuple]:
    """A duel's P(Downed by the round cap) over all encounters (binomial error), and its
    mean round of first down among the encounters in which it was Downed."""
    names = [name for _, name in res.layout.combatants]
    hist = res.tallies.down_round[names.index(duel.defender)].astype(float)
    downs = hist.sum()
    p_down, mean, var = duel.capped_moments()
    key = (duel.attacker, "", duel.defender)
    rows = [_rate_row("down_by_round_cap", key, downs / res.encounters, p_down, res.encounters)]
    if downs == 0 or p_down == 0:
        return rows
    simulated = float(np.dot(np.arange(len(hist)), hist) / downs)
    return [*rows, _z_row("mean_time_to_down", key, simulated, mean, math.sqrt(var / downs))]


def _skipped(pairs: list[PairExact], solved: ExactResult, seen: set[Pair]) -> list[tuple[str, str]]:
    """(what, reason) of every figure not compared: fight caveats and refusals."""
    out = [(f"{f.replace('_', ' ')} of {describe(p.key)}", r)
           for p in pairs for f, r in p.caveats.items()]  # fmt: skip
    out += [(describe(s), r) for s, r in solved.refusals if isinstance(s, str) or s in seen]
    return out


def check_simulation(res: Result, solved: ExactResult) -> pd.DataFrame:
    """Compare a simulation with the exact answers, figure by figure.

    Per pair simulated and solved: hit rate and crit rate (binomial standard error
    from the exact rate; no crit rate under rules without crits, such as zones-3d6),
    mean damage (exact standard deviation / sqrt(attempts)); for a duel, P(Downed by the
    round cap) over all encounters (``down_by_round_cap``, binomial standard error) and
    the mean round of first down among the encounters in which it happened by the cap
    (exact conditional sd / sqrt(downs)). Figures a fight can move
    (``PairExact.caveats``) are not compared.

    A figure whose exact answer is certain (no spread: a rate of exactly 0 or 1, the
    same damage on every attack) and which the simulation matched has nothing to test:
    it is no row (a z of 0 over a standard error of 0), and is not counted by
    :func:`check_verdict`; ``attrs["certain"]`` names it. A certain figure the
    simulation broke (a crit where none can happen) is a row, and fails (z ±inf, p 0).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHECK_COLUMNS` (``p_kind``: ``normal``, the p of ``z``, or
        :data:`BINOMIAL_P`, the exact binomial p of a rare rate); ``attrs["skipped"]``
        lists (what, reason) of the figures not compared, as text, and
        ``attrs["certain"]`` (figure, attacker, attack, defender, exact) of those
        certain and simulated so.
    """
    index = ["attacker", "attack", "defender"]
    rates = res.hit_rates().set_index(index)
    damage = res.damage().set_index(index)
    seen = set(rates.index)
    compared = [p for p in solved.pairs if p.key in seen]
    crits = res.layout.crits
    rows = [r for p in compared
            for r in _pair_rows(p, rates.loc[p.key], damage.loc[p.key], crits)]  # fmt: skip
    if solved.duel is not None:
        rows += _duel_rows(res, solved.duel)
    certain: list[tuple] = []
    tested: list[tuple] = []
    for row in rows:
        (certain if _certain_and_matched(row) else tested).append(row)
    frame = pd.DataFrame(tested, columns=CHECK_COLUMNS)
    frame.attrs["skipped"] = _skipped(compared, solved, seen)
    frame.attrs["certain"] = [(*r[:4], r[CHECK_COLUMNS.index("exact")]) for r in certain]
    return frame


def _certain_and_matched(row: tuple) -> bool:
    """Whether a check row tests nothing: its exact answer is certain (standard error 0,
    :func:`simlab.analysis.stats.z_test`) and the simulation matched it (z 0)."""
    cells = dict(zip(CHECK_COLUMNS, row, strict=True))
    return bool(cells["std_error"] == 0 and cells["z"] == 0)


def figure_of(figure: str, key: Pair) -> str:
    """A figure of a pair as the check's verdict and its note of certain figures
    (``simlab.report.terminal.certain_note``) name it: ``crit_rate of Kaito: quick-jab →
    Brute``."""
    return f"{figure} of {describe(key)}"


def check_result(scenario: ScenarioBase, res: Result) -> pd.DataFrame:
    """:func:`check_simulation` against ``exact(scenario)``; never raises ExactUnsupported.

    When nothing can be solved, the table is empty and ``attrs["skipped"]`` holds the
    reason.
    """
    try:
        solved = exact(scenario)
    except ExactUnsupported as err:
        frame = pd.DataFrame([], columns=CHECK_COLUMNS)
        frame.attrs["skipped"] = [("scenario", str(err))]
        return frame
    return check_simulation(res, solved)


#: The smallest p the exact check writes as a number: its threshold (:data:`CHECK_Z`
#: standard errors, p 6.8e-06) lies below the 0.0001 other p-values stop at, so a p
#: just above it and one far below are told apart (``2.3e-07``; ``< 1e-16``, below what
#: a double resolves).
CHECK_SMALLEST_P = 1e-16


def check_p_said(p: float) -> str:
    """A p of the exact check in a sentence: ``p = 0.0012``, ``p = 2.3e-07``, ``p <
    1e-16`` (:data:`CHECK_SMALLEST_P`)."""
    shown = format_p(p, CHECK_SMALLEST_P)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def check_verdict(check: pd.DataFrame, k: float = CHECK_Z) -> str:
    """One line: whether every figure tested is within ``k`` standard errors: whether
    its p-value is at least that of ``k`` (for a rare event's rate, the exact binomial
    p-value, :func:`_rate_row`). The figures certain and simulated so
    (``check.attrs["certain"]``, :func:`check_simulation`) are not counted: they test
    nothing."""
    n = len(check)
    if n == 0:
        certain = len(check.attrs.get("certain", []))
        if certain:
            every = ("the one figure compared is" if certain == 1
                     else f"all {certain} figures compared are")  # fmt: skip
            return f"nothing to test: {every} certain and simulated so"
        return "no figure could be checked against an exact answer"
    p = math.erfc(k / math.sqrt(2.0))
    bad = check[~(check.p_value >= p)]
    if bad.empty:
        every = "the one figure" if n == 1 else f"all {n} figures"
        return f"{every} within {k:g} standard errors (p ≥ {p:.2g}) of the exact answer"
    which = "; ".join(
        f"{figure_of(r.figure, (r.attacker, r.attack, r.defender))} (z = {r.z:.2f}, "
        f"{check_p_said(r.p_value)})"
        for r in bad.itertuples()
    )
    return (f"{len(bad)} of {counted(n, 'figure')} further from exact than {k:g} standard "
            f"errors (p < {p:.2g}): {which}")  # fmt: skip
