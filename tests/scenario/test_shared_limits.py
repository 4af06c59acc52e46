"""One kind of quantity has one limit in every rule system (``simlab/limits.py``).

A status size is 999 wherever it is written (a starting ``exposed:`` once stopped at 99
while a profile's ``exposed N`` went to 999); a price in Momentum goes up to the most
Momentum anyone can hold (it once stopped at 99, below what a combatant may hold); an
attack rotation has at most 20 items in every system (only draft1's ``plan:`` had a
cap). Each limit is accepted, and one past it refused where it is written, saying what
was expected and what was found.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

import simlab
from simlab.limits import (
    MAX_DAMAGE_BINS,
    MAX_GUARD,
    MAX_HP,
    MAX_MOMENTUM,
    MAX_ROTATION,
    MAX_ROUNDS,
    MAX_STATUS_SIZE,
    MAX_TOKENS,
)
from simlab.rules import rule_module
from tests.support import errors_of, slipped

PROFILE = "[0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]"
TOKENS = "      tokens: {}\n"
#: A scenario of each rule system in block style: party's Kaito (hp on line 12) and
#: enemies' Brute, both making attack ``a``; Kaito holds ``tokens: {}`` where the rules
#: have tokens.
BASE = {
    rules: (f"scenario: t\nrules: {rules}\nmax_rounds: 30\nparams: {{}}\n"
            f"{'techniques' if draft1 else 'attacks'}:\n  a: {attack}\n  b: {attack}\n"
            f"sides:\n  party:\n    - name: Kaito\n{TOKENS if spirits else ''}"
            f"      {'health: 24' if draft1 else 'hp: 24'}\n{extra}"
            f"      {'plan' if draft1 else 'attacks'}: [a]\n"
            f"  enemies:\n    - name: Brute\n      {'health: 30' if draft1 else 'hp: 30'}\n"
            f"{extra}      {'plan' if draft1 else 'attacks'}: [a]\n")
    for rules, attack, extra, draft1, spirits in [
        ("shattered-spirits", f"{{profile: {PROFILE}}}", "", False, True),
        ("shattered-spirits-draft1", f"{{profile: {PROFILE}, ap: 0, speed: 3}}",
         "      endurance: 5\n", True, True),
        ("glitters-d20", "{damage: 1d6, type: slashing}", "", False, False),
        ("zones-3d6", "{damage: 1d6}", "", False, False),
        ("opposed-tiers", "{}", "", False, False),
    ]
}  # fmt: skip
#: What lets Kaito hold the most Momentum anyone can: a price up to it is payable.
MOST_MOMENTUM = [("max_rounds: 30", f"max_rounds: {MAX_ROUNDS}"),
                 ("params: {}", "params: {momentum_per_respite: 10}"),
                 ("tokens: {}", f"tokens: {{momentum: {MAX_TOKENS}}}")]  # fmt: skip


class Case(NamedTuple):
    """A field at its limit: in ``rules``' scenario, ``old`` written as ``new``, whose
    ``|`` stands where the value goes (``{}``), with the ``also`` changes besides."""

    rules: str
    old: str
    new: str
    limit: int
    also: tuple[tuple[str, str], ...] = ()


def _systems(old: str, new: str, limit: int) -> list[Case]:
    return [Case(rules, old, new, limit) for rules in BASE if old in BASE[rules]]


SS, DRAFT1 = "shattered-spirits", "shattered-spirits-draft1"
KAITO_HP, KAITO_HEALTH = "      hp: 24\n", "      health: 24\n"
CASES = [
    # a status size
    Case(SS, KAITO_HP, KAITO_HP + "      exposed: |{}\n", MAX_STATUS_SIZE),
    Case(SS, KAITO_HP, KAITO_HP + "      impaired: |{}\n", MAX_STATUS_SIZE),
    Case(SS, KAITO_HP, KAITO_HP + "      rushing: |{}\n", MAX_STATUS_SIZE),
    Case(DRAFT1, KAITO_HEALTH, KAITO_HEALTH + "      exposed: |{}\n", MAX_STATUS_SIZE),
    Case(DRAFT1, KAITO_HEALTH, KAITO_HEALTH + "      impaired: |{}\n", MAX_STATUS_SIZE),
    Case(DRAFT1, "params: {}", "params: {fumble_exposed: |{}}", MAX_STATUS_SIZE),
    *[Case("glitters-d20", KAITO_HP, KAITO_HP + f"      {status}: |{{}}\n", MAX_STATUS_SIZE)
      for status in ("bleeding", "burning", "freezing")],
    # a Guard
    Case(SS, "params: {}", "params: {cover_guard: |{}}", MAX_GUARD),
    Case(DRAFT1, "params: {}", "params: {cover_guard: |{}}", MAX_GUARD),
    Case(SS, KAITO_HP, KAITO_HP + "      guard: |{}\n", MAX_GUARD),
    Case(DRAFT1, KAITO_HEALTH, KAITO_HEALTH + "      guard: |{}\n", MAX_GUARD),
    # a token
    *[Case(SS, "tokens: {}", f"tokens: {{{token}: |{{}}}}", MAX_TOKENS)
      for token in ("grit", "reflex", "momentum")],
    Case(DRAFT1, "tokens: {}", "tokens: {focus: |{}}", MAX_TOKENS),
    # a price in Momentum (b is Kaito's alone)
    Case(SS, f"  b: {{profile: {PROFILE}}}", f"  b: {{profile: {PROFILE}, momentum_cost: |{{}}}}",
         MAX_MOMENTUM, (*MOST_MOMENTUM, ("attacks: [a]", "attacks: [a, b]"))),
    Case(SS, KAITO_HP, KAITO_HP + "      react: {evade: {when_damage_at_least: 1, "
         "momentum_cost: |{}}}\n", MAX_MOMENTUM, tuple(MOST_MOMENTUM)),
    # a pool damage wears down
    *_systems(KAITO_HP, "      hp: |{}\n", MAX_HP),
    Case(DRAFT1, KAITO_HEALTH, "      health: |{}\n", MAX_HP),
    Case(DRAFT1, "      endurance: 5\n", "      endurance: |{}\n", MAX_HP),
    Case(SS, KAITO_HP, KAITO_HP + "      vigor: |{}\n", MAX_HP),
    # a round
    *_systems("max_rounds: 30", "max_rounds: |{}", MAX_ROUNDS),
    Case(SS, "params: {}", "params: {source_destroyed_round: |{}}", MAX_ROUNDS),
]  # fmt: skip
#: An attack rotation, in every system, and a Spirit's.
ROTATIONS = [
    *[Case(rules, "attacks: [a]", "attacks: |{}", MAX_ROTATION)
      for rules in BASE if rules != DRAFT1],
    Case(DRAFT1, "plan: [a]", "plan: |{}", MAX_ROTATION),
    Case(SS, KAITO_HP, KAITO_HP + "      spirit: {name: Kestrel, hp: 5, attacks: |{}}\n",
         MAX_ROTATION),
]  # fmt: skip


def _written(case: Case, value: str) -> tuple[str, str]:
    """The scenario of ``case`` with ``value`` at its place, and that place (LINE:COL)."""
    text = BASE[case.rules]
    for old, new in case.also:
        text = text.replace(old, new, 1)
    return slipped(text, case.old, case.new.replace("{}", value))


def _label(case: Case) -> str:
    return f"{case.rules}:{case.new.strip().replace('|{}', '')}"


@pytest.mark.parametrize("case", CASES, ids=_label)
def test_a_number_at_its_limit_is_taken_and_one_past_it_refused(case: Case) -> None:
    text, _ = _written(case, str(case.limit))
    simlab.loads(text, "s.yaml")
    text, at = _written(case, str(case.limit + 1))
    assert errors_of(text) == [f"s.yaml:{at}: expected a number ≤ {case.limit}; got "
                               f"{case.limit + 1}"]  # fmt: skip


@pytest.mark.parametrize("case", ROTATIONS, ids=_label)
def test_a_rotation_of_the_most_attacks_is_taken_and_one_more_refused(case: Case) -> None:
    def rotation(items: int) -> str:
        return "[" + ", ".join(["a"] * items) + "]"

    text, _ = _written(case, rotation(case.limit))
    simlab.loads(text, "s.yaml")
    text, at = _written(case, rotation(case.limit + 1))
    assert errors_of(text) == [f"s.yaml:{at}: expected at most {case.limit} items; got "
                               f"{case.limit + 1} items"]  # fmt: skip


def test_a_profile_status_size_has_the_same_limit_as_a_starting_one() -> None:
    base = Case(SS, f"  a: {{profile: {PROFILE}}}", f"  a: {{profile: {PROFILE}, status: "
                "{12: [|{}]}}", MAX_STATUS_SIZE)  # fmt: skip
    text, _ = _written(base, f"exposed {MAX_STATUS_SIZE}")
    simlab.loads(text, "s.yaml")
    text, at = _written(base, f"exposed {MAX_STATUS_SIZE + 1}")
    [problem] = errors_of(text)
    assert problem.startswith(f"s.yaml:{at}: expected 'stun N', 'exposed N' or 'impaired N' "
                              f"(N from 1 to {MAX_STATUS_SIZE})")  # fmt: skip


@pytest.mark.parametrize("rules", [SS, DRAFT1])
def test_the_most_exposed_keeps_the_damage_histogram_within_its_cap(rules: str) -> None:
    """A starting Exposed of 999 at 10 damage a level asks for about 10,000 bins (20,000
    in draft1, its fumbles' Exposed added): capped as every system's histogram is, its
    last bin counting that damage and more."""
    field = "health: 24" if rules == DRAFT1 else "hp: 24"
    text = (BASE[rules].replace(f"      {field}\n", f"      {field}\n      exposed: 999\n", 1)
            .replace("params: {}", "params: {exposed_per_level: 10}"))  # fmt: skip
    if rules == DRAFT1:
        text = text.replace("exposed_per_level: 10", "exposed_per_level: 10, fumble_exposed: 999")
    compiler = rule_module(rules, "compile")
    _, layout = compiler.compile_scenario(simlab.loads(text))
    assert layout.damage_bins == MAX_DAMAGE_BINS
