"""shattered-spirits-draft1: the non-default values of ``overflow_damage``,
``exposed_per_level``, ``impaired_per_level``, ``glancing_divisor`` and ``cover_guard``
against exact chains.

A passive defender D (no plan) against one attacker A whose plan is played every Round,
each Technique in the Phase of its Speed (docs/rules/shattered-spirits-draft1.md, "How a
Round is played"): a Round is a fixed sequence of attacks. Each attack's damage follows
"An attack", in the earlier draft's order: 1. the row's damage (row 12 above 12); 2. +
``damage_modifier`` − Impaired on the attacker × ``impaired_per_level``, +
``overflow_damage`` above 12, floor 0; 3. Glancing divides by ``glancing_divisor``,
rounding up (Cover grants Glancing, or ``cover_guard`` more Guard when the attack
already is Glancing); 4. + Exposed on the target × ``exposed_per_level``; 5. − Guard,
floor 0. Damage takes Vigor, then Endurance (its 0: ``shaken``), then Health (its 0:
``downed``). One case a parameter:

- ``overflow_damage: 7``: a lunge with +2 and Advantage rolls above 12 often.
- ``exposed_per_level: 3``: D starts Exposed 1, and A's rake (Phase 2) inflicts more on
  its rows 8..12, which A's maul (Phase 5) reads; the Exposed gained wears off at the
  End Phase (``statuses_last: round``), the starting level stays ("Exposed and Impaired
  gained this Round wear off").
- ``impaired_per_level: 3``: A starts Impaired 2 (``statuses_last: encounter``, so the
  level stays under either reading) and its smash has ``damage_modifier: 1``.
- ``glancing_divisor: 3``: a Glancing cleave against D, who starts Exposed 2
  (``statuses_last: encounter``): divided before the Exposed is added.
- ``cover_guard: 4``: D is in Cover; A's slash is Glancing (Cover adds Guard) and its
  thrust is not (Cover makes it Glancing).

Every case but ``exposed_per_level`` is a plain duel, played twice: alone (the kernels'
duel path) and with an idle bystander on D's side (the general path). The
``exposed_per_level`` case's rows inflict Exposed, which always takes the general path.

Checked: the damage histogram of each Technique whose damage does not depend on the
past (every attack but the maul), D's attacks received at its Down, its Down round, its
``downed`` and ``shaken`` event rounds, and ``mean_attacks_to_down``. The chains come
from :func:`tests.chains.draft1_attack` and :func:`tests.chains.draft1_passive_rounds`,
written from the rule page and sharing nothing with the kernels or ``simlab.exact``.

False alarms. Fixed seeds, so each test always passes or always fails. Nine runs, each
with at most two damage histograms, three round histograms by chi-square (cells
expecting fewer than 5 merged) at p > 1e-4 and one mean within k = 4.5 standard errors:
family-wise false-alarm rate ≲ 6e-3. Each guard shows that the parameter's default moves
the exact mean Down round by more than 0.15 round and the mean damage of an attack by
more than 0.3 (the simulated means' standard errors are below 0.025 and 0.02 with
N = 40,000 and standard deviations below 5 and 4), so a simulator keeping the default
would fail its chi-square tests.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import pytest

import simlab
from tests.chains import (
    assert_damage_matches,
    assert_draft1_down_matches,
    damage_pmf,
    draft1_attack,
    draft1_passive_rounds,
)

N = 40_000
SEED = 6203
ROUNDS = 30
#: the guards' minimum difference of mean Down rounds
MOVES = 0.15
#: the guards' minimum difference of an attack's mean damage
DAMAGE_MOVES = 0.3


@dataclass(frozen=True)
class Case:
    """One parameter at a non-default value, and the duel that shows it."""

    param: str
    value: int
    default: int
    #: Technique name → its YAML flow mapping
    techniques: dict[str, str]
    plan: list[str]
    #: the Round's attacks in Phase order: (Technique, draft1_attack keyword arguments)
    attacks: list[tuple[str, dict]]
    #: D's (Vigor, Endurance, Health)
    toughness: tuple[int, int, int]
    guard: int
    cover: bool = False
    #: D's and A's starting Exposed and Impaired
    exposed: int = 0
    impaired: int = 0
    lasts: str = "round"
    #: Techniques whose damage reads Exposed gained earlier in the Round
    history: frozenset[str] = field(default_factory=frozenset)

    def params(self, value: int | None = None) -> dict[str, int]:
        """The ``draft1_attack`` keyword of the parameter (the case's value by default)."""
        return {self.param: self.value if value is None else value}


LUNGE = [0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 8]
RAKE = [1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6]
RAKE_EXPOSED = {8: 1, 9: 1, 10: 1, 11: 2, 12: 2}
MAUL = [0, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10]
SMASH = [0, 2, 3, 5, 6, 7, 8, 9, 10, 12, 14]
CLEAVE = [0, 2, 3, 4, 6, 7, 8, 9, 11, 12, 14]
SLASH = [0, 2, 3, 5, 6, 7, 8, 10, 11, 12, 14]
THRUST = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]

RAKE_STATUS = ", ".join(f"{row}: [exposed {n}]" for row, n in RAKE_EXPOSED.items())

CASES: dict[str, Case] = {
    "overflow": Case(
        param="overflow_damage",
        value=7,
        default=2,
        techniques={"lunge": f"{{profile: {LUNGE}, modifier: 2, advantage: 1, ap: 3, speed: 2}}"},
        plan=["lunge"],
        attacks=[("lunge", {"profile": LUNGE, "modifier": 2, "net_advantage": 1})],
        toughness=(0, 10, 14),
        guard=1,
    ),
    "exposed": Case(
        param="exposed_per_level",
        value=3,
        default=1,
        techniques={
            "maul": f"{{profile: {MAUL}, ap: 2, speed: 5}}",
            "rake": f"{{profile: {RAKE}, ap: 1, speed: 2, status: {{{RAKE_STATUS}}}}}",
        },
        plan=["maul", "rake"],
        attacks=[("rake", {"profile": RAKE, "status": RAKE_EXPOSED}), ("maul", {"profile": MAUL})],
        toughness=(0, 14, 16),
        guard=3,
        exposed=1,
        history=frozenset({"maul"}),
    ),
    "impaired": Case(
        param="impaired_per_level",
        value=3,
        default=1,
        techniques={"smash": f"{{profile: {SMASH}, damage_modifier: 1, ap: 3, speed: 4}}"},
        plan=["smash"],
        attacks=[("smash", {"profile": SMASH, "damage_modifier": 1})],
        toughness=(2, 8, 10),
        guard=1,
        impaired=2,
        lasts="encounter",
    ),
    "glancing": Case(
        param="glancing_divisor",
        value=3,
        default=2,
        techniques={"cleave": f"{{profile: {CLEAVE}, glancing: true, ap: 3, speed: 3}}"},
        plan=["cleave"],
        attacks=[("cleave", {"profile": CLEAVE, "glancing": True})],
        toughness=(0, 8, 12),
        guard=2,
        exposed=2,
        lasts="encounter",
    ),
    "cover": Case(
        param="cover_guard",
        value=4,
        default=2,
        techniques={
            "thrust": f"{{profile: {THRUST}, ap: 2, speed: 4}}",
            "slash": f"{{profile: {SLASH}, glancing: true, ap: 1, speed: 2}}",
        },
        plan=["thrust", "slash"],
        attacks=[("slash", {"profile": SLASH, "glancing": True}), ("thrust", {"profile": THRUST})],
        toughness=(0, 10, 15),
        guard=1,
        cover=True,
    ),
}

SCENARIO = """
scenario: d1m-{name}
rules: shattered-spirits-draft1
max_rounds: {rounds}
params: {{{param}: {value}, statuses_last: {lasts}}}
techniques:
{techniques}
sides:
  a: [{{name: A, endurance: 10, health: 10, impaired: {impaired}, plan: [{plan}]}}]
  b:
    - {{name: D, vigor: {vigor}, endurance: {endurance}, health: {health}, guard: {guard},
       cover: {cover}, exposed: {exposed}}}
"""

BYSTANDER = "    - {name: Bystander, endurance: 100000, health: 100000}\n"


def scenario_text(name: str, bystander: bool) -> str:
    """Case ``name``'s duel, with an idle bystander on D's side."""
    c = CASES[name]
    text = SCENARIO.format(
        name=name, rounds=ROUNDS, param=c.param, value=c.value, lasts=c.lasts,
        techniques="\n".join(f"  {t}: {body}" for t, body in c.techniques.items()),
        impaired=c.impaired, plan=", ".join(c.plan), vigor=c.toughness[0],
        endurance=c.toughness[1], health=c.toughness[2], guard=c.guard,
        cover=str(c.cover).lower(), exposed=c.exposed,
    )  # fmt: skip
    return text + BYSTANDER if bystander else text


def attack_outcomes(name: str, technique: str, gained: int, value: int | None = None):
    """(probability, damage, Exposed gained) of ``technique``'s attack in case ``name``
    when D has gained ``gained`` Exposed this Round (the parameter at ``value``, by
    default the case's)."""
    c = CASES[name]
    kwargs = dict(dict(c.attacks)[technique])
    return draft1_attack(**kwargs, guard=c.guard, exposed=c.exposed + gained, cover=c.cover,
                         impaired=c.impaired, **c.params(value))  # fmt: skip


@functools.cache
def chain(name: str, value: int | None = None) -> dict[str, np.ndarray]:
    """P(D is Downed at the k-th attack received), P(Downed / Shaken in round r)."""
    c = CASES[name]
    attacks = [
        functools.partial(lambda g, t: attack_outcomes(name, t, g, value), t=t)
        for t, _ in c.attacks
    ]
    return draft1_passive_rounds(attacks, c.toughness, ROUNDS, c.lasts == "round")


def mean(pmf: np.ndarray) -> float:
    """The mean of a (defective) pmf, given the event happens."""
    return float(np.arange(len(pmf)) @ pmf) / pmf.sum()


RUNS = [(name, False) for name in CASES] + [(n, True) for n in CASES if n != "exposed"]


@pytest.mark.parametrize(("name", "bystander"), RUNS,
                         ids=[f"{n}-{'general' if b else 'plain'}" for n, b in RUNS])  # fmt: skip
@pytest.mark.kernels
def test_parameter_matches_the_chain(name: str, bystander: bool) -> None:
    """Each Technique's damage histogram (where it does not depend on the past), D's
    ``down_attacks``, ``down_round``, ``downed`` and ``shaken`` event rounds and
    ``mean_attacks_to_down`` match the chain."""
    c = CASES[name]
    scn = simlab.loads(scenario_text(name, bystander), f"{name}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    names = [m for _, m in res.layout.combatants]
    a, d = names.index("A"), names.index("D")
    for technique, _ in c.attacks:
        if technique in c.history:
            continue
        pmf = damage_pmf(attack_outcomes(name, technique, 0))
        hist = res.tallies.damage_hist[res.layout.pair(a, res.layout.attacks.index(technique), d)]
        assert len(pmf) < len(hist), (technique, hist)
        assert_damage_matches(hist, pmf, f"{name} {technique}")

    assert_draft1_down_matches(res, "D", chain(name), name)


@pytest.mark.parametrize("name", list(CASES))
def test_parameter_cases_are_not_trivial(name: str) -> None:
    """Guard: D is Downed in almost every encounter, over several rounds, Shaken well
    before; the parameter's default moves the mean Down round and the mean damage of an
    attack by more than the tests' resolution."""
    c = CASES[name]
    exact, default = chain(name), chain(name, c.default)
    assert exact["down"].sum() > 0.99 and exact["down"].max() < 0.5, name
    assert exact["shaken"].sum() > 0.99 and mean(exact["shaken"]) < mean(exact["down"]) - 1
    moved = abs(mean(exact["down"]) - mean(default["down"]))
    assert moved > MOVES, (name, moved)
    damage_moved = max(
        abs(mean(damage_pmf(attack_outcomes(name, t, 0, c.value)))
            - mean(damage_pmf(attack_outcomes(name, t, 0, c.default))))
        for t, _ in c.attacks
        if t not in c.history
    )  # fmt: skip
    assert damage_moved > DAMAGE_MOVES, (name, damage_moved)
