"""shattered-spirits-draft1: attacks-to-down and the ``shaken`` and ``downed`` rounds
against an exact chain.

A passive defender (no plan) against one attacker whose plan is played every Round,
each Technique in the Phase of its Speed (docs/rules/shattered-spirits-draft1.md, "How a
Round is played"): so a Round is a fixed sequence of attacks, plan order within a Phase.
Damage takes Vigor, then Endurance — reaching 0 Endurance Shakes the defender, and with
``endurance_overflow: false`` the damage beyond it is lost — then Health, whose 0 Downs
it ("An attack"). A row that inflicts Exposed makes the defender take more from the
later attacks of the Round (``statuses_last: round``) or of the encounter
(``encounter``). The chain's state is (damage counted toward the thresholds, Shaken,
Exposed), stepped once per attack, with each attack's outcomes from
:func:`tests.chains.draft1_attack` (written from the rules text, sharing nothing with
the kernels or ``simlab.exact``, which refuses Exposed and ``endurance_overflow:
false``).

The plain-duel cases are played twice: as a plain duel (the kernels' duel path; with one
Technique of 2d6 a Round, its pair loop) and with an idle bystander on the defender's
side (the general path). Rows inflicting Exposed always take the general path.

False alarms. Fixed seeds, so each test always passes or always fails. Each histogram
(attacks received at the Down, the Down's round, the ``downed`` and ``shaken`` rounds,
each with its never cell) by a chi-square test at p > 1e-4 (cells with expected count
< 5 merged); ``mean_attacks_to_down`` within k = 4.5 standard errors of the chain's
conditional mean (σ² its conditional variance). Six runs × five comparisons:
family-wise false-alarm rate ≲ 3e-3.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import assert_draft1_down_matches, draft1_attack, draft1_passive_rounds

N = 40_000
SEED = 1975

HEADER = """
scenario: d1e-{name}
rules: shattered-spirits-draft1
max_rounds: {rounds}
params: {params}
"""

FLICK = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
LUNGE = [0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 8]
RAKE = [1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6]
MAUL = [0, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10]
RAKE_EXPOSED = {8: 1, 9: 1, 10: 2, 11: 2, 12: 3}

#: name → (params, max_rounds, body, defender (vigor, endurance, health, guard),
#: the Round's attacks in Phase order as draft1_attack keyword arguments)
CASES: dict[str, tuple[str, int, str, tuple[int, int, int, int], list[dict]]] = {
    # Two Techniques whose plan order is not their Phase order; Advantage and the
    # overflow damage on the lunge, Glancing on the flick; Vigor; the excess beyond
    # Endurance lost.
    "overflow-lost": (
        "{endurance_overflow: false}",
        30,
        """
techniques:
  lunge: {profile: [0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 8], advantage: 1, modifier: 1, ap: 2,
          speed: 3}
  flick: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5], glancing: true, ap: 1, speed: 1}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [lunge, flick]}]
  b:
    - {name: D, vigor: 2, endurance: 9, health: 12, guard: 1}
""",
        (2, 9, 12, 1),
        [
            {"profile": FLICK, "glancing": True},
            {"profile": LUNGE, "modifier": 1, "net_advantage": 1},
        ],
    ),
    # One Technique of 2d6 a Round (the duel path's pair loop), overflow kept.
    "single": (
        "{}",
        30,
        """
techniques:
  lunge: {profile: [0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 8], modifier: 1, ap: 3, speed: 2}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [lunge]}]
  b:
    - {name: D, endurance: 8, health: 9, guard: 1}
""",
        (0, 8, 9, 1),
        [{"profile": LUNGE, "modifier": 1}],
    ),
    # The rake's rows 8..12 inflict Exposed, which the later maul (and, lasting the
    # encounter, every later attack) adds to its damage.
    "exposed-round": (
        "{statuses_last: round}",
        30,
        """
techniques:
  maul: {profile: [0, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10], ap: 2, speed: 5}
  rake: {profile: [1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6], ap: 1, speed: 2,
         status: {8: [exposed 1], 9: [exposed 1], 10: [exposed 2], 11: [exposed 2],
                  12: [exposed 3]}}
sides:
  a: [{name: A, endurance: 10, health: 10, plan: [maul, rake]}]
  b:
    - {name: D, endurance: 14, health: 16, guard: 2}
""",
        (0, 14, 16, 2),
        [{"profile": RAKE, "status": RAKE_EXPOSED}, {"profile": MAUL}],
    ),
}
CASES["exposed-encounter"] = (
    "{statuses_last: encounter}",
    *CASES["exposed-round"][1:],
)

BYSTANDER = "    - {name: Bystander, endurance: 100000, health: 100000}\n"


@functools.cache
def chain(
    name: str, exposed_lasts_round: bool | None = None, overflow: bool | None = None
) -> dict[str, np.ndarray]:
    """P(Downed at the k-th attack received), P(Downed / Shaken in round r).

    :func:`tests.chains.draft1_passive_rounds` of the case's attacks: an attack adds its
    damage (which reads Exposed) to the count; the count reaching Vigor + Endurance
    Shakes the defender, and without ``endurance_overflow`` the count is set to that (the
    excess lost); the count reaching Vigor + Endurance + Health Downs it. A hit's Exposed
    adds up; at the End Phase it wears off under ``statuses_last: round``.
    ``exposed_lasts_round`` and ``overflow`` override the case's parameters.
    """
    params, rounds, _, (vigor, endurance, health, guard), attacks = CASES[name]
    if overflow is None:
        overflow = "endurance_overflow: false" not in params
    if exposed_lasts_round is None:
        exposed_lasts_round = "encounter" not in params
    made = [functools.partial(_attack_at, attack, guard) for attack in attacks]
    return draft1_passive_rounds(made, (vigor, endurance, health), rounds,
                                 exposed_lasts_round, overflow)  # fmt: skip


def _attack_at(attack: dict[str, object], guard: int, exposed: int) -> list[tuple[float, int, int]]:
    """The outcomes of one of a case's attacks at the defender's Guard and Exposed."""
    return draft1_attack(**attack, guard=guard, exposed=exposed)  # type: ignore[arg-type]


def text_of(name: str, bystander: bool) -> str:
    """The scenario of case ``name``, with an idle bystander on the defender's side."""
    params, rounds, body, _, _ = CASES[name]
    text = HEADER.format(name=name, rounds=rounds, params=params) + body
    return text + BYSTANDER if bystander else text


RUNS = [
    ("overflow-lost", False),
    ("overflow-lost", True),
    ("single", False),
    ("single", True),
    ("exposed-round", False),
    ("exposed-encounter", False),
]


@pytest.mark.parametrize(("name", "bystander"), RUNS,
                         ids=[f"{n}-{'general' if b else 'path'}" for n, b in RUNS])  # fmt: skip
@pytest.mark.kernels
def test_down_shaken_and_attacks_match_the_chain(name: str, bystander: bool) -> None:
    """``down_attacks``, ``mean_attacks_to_down``, ``down_round`` and the ``downed`` and
    ``shaken`` events of the defender match the chain."""
    scn = simlab.loads(text_of(name, bystander), f"{name}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    assert_draft1_down_matches(res, "D", chain(name), name)


@pytest.mark.parametrize("name", list(CASES))
def test_draft1_cases_are_not_trivial(name: str) -> None:
    """Guard against vacuous cases: several attacks to the Down, Shaken rounds ahead of
    it, most encounters decided before the cap yet not all in one round; the lost
    excess and the Exposed move the chain."""
    exact = chain(name)
    assert exact["down"].sum() > 0.9 and exact["down"].max() < 0.5
    assert float(np.arange(len(exact["attacks"])) @ exact["attacks"]) > 4
    mean_shaken = float(np.arange(len(exact["shaken"])) @ exact["shaken"])
    assert mean_shaken < float(np.arange(len(exact["down"])) @ exact["down"]) - 1


def test_draft1_perturbations_move_the_chain() -> None:
    """The readings the cases add each move the exact Down round noticeably: Exposed
    lasting the Round against the encounter, and the excess beyond Endurance lost
    against kept."""

    def mean_round(pmf: np.ndarray) -> float:
        return float(np.arange(len(pmf)) @ pmf)

    round_, encounter = chain("exposed-round")["down"], chain("exposed-encounter")["down"]
    assert mean_round(round_) - mean_round(encounter) > 0.3
    kept = chain("overflow-lost", overflow=True)["down"]
    assert mean_round(chain("overflow-lost")["down"]) - mean_round(kept) > 0.2
