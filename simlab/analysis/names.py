"""Figures in words: the names the terminal, the report's pages, the drift gate and the
balance specs give each figure (README, "Balance reports").

Kept apart from :mod:`simlab.analysis.drift`, whose statistical tests import scipy.stats
(about 1 s): a run's tables name its event rates with these, and a run imports no
scipy.stats.
"""

from __future__ import annotations

#: Each figure of the drift table in words, beside its id: the name the terminal,
#: ``report.md`` and the pages give it, in the words of the report's tables (a designer
#: reads "damage distribution", not ``damage_pmf``). ``drift.json`` keeps the ids, for
#: tools, with these beside them (``figure_name``). The rate of an event not listed is
#: "<event> rate", its underscores as spaces (:func:`figure_name`). A balance spec's line
#: names its figure from here too (:func:`simlab.analysis.specs.figure_words`).
FIGURE_NAMES: dict[str, str] = {
    "hit_rate": "hit rate",
    "crit_rate": "crit rate",
    "mean_damage": "mean damage",
    "damage_pmf": "damage distribution",
    "down_rate": "down rate",
    "time_to_down": "time-to-down",
    "median_time_to_down": "median time-to-down",
    "momentum_spent_rate": "rate of spending Momentum",
    "reinforcement_rate": "arrival rate (reinforcement)",
    "shaken_rate": "rate of becoming Shaken",  # the earlier draft's: Endurance reached 0
    "downed_rate": "rate of becoming Downed",  # the earlier draft's down itself
    "mean_status_damage": "status damage per encounter",
    "mean_momentum_spent": "Momentum spent per encounter",
    "win_rate": "win rate",
    "draw_rate": "draw rate",
    "rounds_pmf": "encounter length",
    "mean_rounds": "mean encounter length",
}
#: The figures of the whole encounter, whose subject (``encounter length``, ``draw``) their
#: name already says: "mean encounter length", not "mean encounter length of encounter length".
OF_THE_ENCOUNTER = frozenset({"draw_rate", "rounds_pmf", "mean_rounds"})


def figure_name(figure: str) -> str:
    """A drift figure in words (:data:`FIGURE_NAMES`): ``damage_pmf`` is ``damage
    distribution``, an event's ``out_rate`` is ``out rate``."""
    if figure in FIGURE_NAMES:
        return FIGURE_NAMES[figure]
    if figure.endswith("_rate"):
        return f"{figure.removesuffix('_rate').replace('_', ' ')} rate"
    return figure.replace("_", " ")


def event_rate(event: str) -> str:
    """The figure id of an event's rate (``out`` → ``out_rate``), as the drift table,
    the combatant table and a spec's ``event:`` name it."""
    return f"{event}_rate"


def event_rate_name(event: str) -> str:
    """An event's rate in words (:func:`figure_name` of :func:`event_rate`): ``out
    rate``, ``rate of spending Momentum``."""
    return figure_name(event_rate(event))
