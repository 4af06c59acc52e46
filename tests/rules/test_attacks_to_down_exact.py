"""Attacks-to-down (``down_attacks``, ``mean_attacks_to_down``) against an exact chain.

In a duel whose attacker makes several attacks a turn, the number of attacks the
defender received up to and including the one that downed it is not its round of
first down. Each case here is a duel of independent attacks (no statuses, reactions or
anything else a hit changes), so the running damage is a Markov chain over the damage
dealt so far, stepped once per attack in the attacker's order (:func:`tests.chains.
attacks_to_reach`), and the defender goes down at the first attack whose running total
reaches what it can take. Every attack's damage distribution is written here from
docs/rules/<system>.md, independently of ``simlab.exact`` and the kernels.

Each system is played on the path its kernels take for such a duel (the plain-duel
paths; a defender with Parry is never a plain duel in glitters-d20, so that case takes
the general path both times) and, with a bystander added to the defender's side (who
never attacks and is only targeted once the defender is down), on the general path,
whose counting of received attacks is separate code. Two more tests check that the
``out`` event of zones-3d6 and of a ``downed: defeat`` shattered-spirits defender is the
round of that attack.

False alarms. Fixed seeds, so each test always passes or always fails. The histogram of
attacks received (plus the never-down cell) by a chi-square test (cells with expected
count < 5 merged) at p > 1e-4; ``mean_attacks_to_down`` within k = 4.5 standard errors
of the exact conditional mean, σ² the exact conditional variance over the encounters in
which it went down (P(|z| > 4.5) ≈ 6.8e-6). Ten runs × two comparisons and two ``out``
histograms: family-wise rate ≲ 2.5e-3.
"""

from __future__ import annotations

import numpy as np
import pytest

import simlab
from tests.chains import (
    P_MIN,
    assert_mean_attacks_to_down,
    attack_rounds,
    attacks_to_reach,
    combatant_index,
    glitters_attack,
    ss_attack,
    tiers_attack,
    zones_attack,
)
from tests.support import chi_square_p

N = 40_000
SEED = 5150

# ---------------------------------------------------------------------------------------
# Cases: scenario, the attack sequence, attacks per round, what downs the defender
# ---------------------------------------------------------------------------------------

BYSTANDER = {
    "glitters-d20": "{name: Bystander, hp: 100000, dc: 30}",
    "shattered-spirits": "{name: Bystander, hp: 100000}",
    "zones-3d6": "{name: Bystander, hp: 100000}",
    "opposed-tiers": "{name: Bystander, hp: 100000}",
}

GLITTERS = """
scenario: atd-glitters
rules: glitters-d20
max_rounds: 60
attacks:
  maul: {damage: 2d6, type: bludgeoning, bonus: 2, hand: two-handed}
  mace: {damage: 1d8+1, type: bludgeoning, bonus: 4}
  dagger: {damage: 1d4, type: piercing, bonus: 3, hand: offhand, attribute: null}
sides:
  a: [{name: A, hp: 10, attributes: {str: 12}, attacks: [maul, mace, dagger]}]
  b:
    - {name: D, hp: 40, dc: 13{defense}}
"""


def glitters_case(parry: bool) -> tuple[list[np.ndarray], list[int], int]:
    """The maul (two-handed: no offhand attack that turn), then the mace and the dagger
    (docs/rules/glitters-d20.md, "A turn": main-hand and two-handed attacks in rotation,
    the offhand attack after a one-handed one). STR 12: ASM +2 on the maul and mace.
    With Parry (+2 MIT) the first attack after each of the defender's turns is parried:
    the first attack of every one of the attacker's turns (and the dagger never)."""
    parried = 2 if parry else 0
    maul = glitters_attack(2, 13 + parried, 2, 6, 2)
    mace = glitters_attack(4, 13 + parried, 1, 8, 3)
    dagger = glitters_attack(3, 13, 1, 4, 0)
    return [maul, mace, dagger], [1, 2], 40


SS = """
scenario: atd-ss
rules: shattered-spirits
max_rounds: 40
attacks:
  jab: {profile: [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6]}
  hook: {profile: [0, 0, 0, 2, 2, 3, 4, 5, 6, 7, 9], modifier: -1}
sides:
  a: [{name: A, hp: 10, attacks_per_turn: 2, attacks: [jab, hook]}]
  b:
    - {name: D, hp: 30, guard: 1}
"""


def ss_case() -> tuple[list[np.ndarray], list[int], int]:
    """Two attacks a Turn, jab then hook (docs/rules/shattered-spirits.md: attacks in
    rotation, ``attacks_per_turn``); Guard 1; Downed at 0 HP (damage ≥ 30)."""
    jab = ss_attack([0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6], 0, 1)
    hook = ss_attack([0, 0, 0, 2, 2, 3, 4, 5, 6, 7, 9], -1, 1)
    return [jab, hook], [2], 30


ZONES = """
scenario: atd-zones
rules: zones-3d6
max_rounds: 40
attacks:
  sword: {damage: 1d6+1, bonus: 1}
  knife: {damage: 1d4, bonus: 3}
sides:
  a: [{name: A, hp: 10, attacks: [sword, knife]}]
  b:
    - {name: D, hp: 24, evasion: 2, base_defense: [1, 2]}
"""


def zones_case() -> tuple[list[np.ndarray], list[int], int]:
    """Three attacks a turn (``attacks_per_turn`` 3 by default) from the rotation sword,
    knife (docs/rules/zones-3d6.md); out when HP drops below 0 (damage ≥ 25)."""
    sword = zones_attack(1, 2, 6, 1, {1, 2})
    knife = zones_attack(3, 2, 4, 0, {1, 2})
    return [sword, knife], [3], 25


TIERS = """
scenario: atd-tiers
rules: opposed-tiers
max_rounds: 40
params: {attacks_per_turn: 2}
attacks: {axe: {damage_modifier: 1}, club: {damage_modifier: -2}}
sides:
  a: [{name: A, hp: 10, weapon_sl: 1, attacks: [axe, club]}]
  b:
    - {name: D, hp: 25, defense_sl: 1}
"""


def tiers_case() -> tuple[list[np.ndarray], list[int], int]:
    """Two attacks a turn (``attacks_per_turn: 2``), axe then club (docs/rules/
    opposed-tiers.md); falls at Health ≤ 0 (damage ≥ 25)."""
    return [tiers_attack(1, 1, 1), tiers_attack(1, 1, -2)], [2], 25


CASES = {
    "glitters": (GLITTERS.replace("{defense}", ""), lambda: glitters_case(False)),
    "glitters-parry": (
        GLITTERS.replace("{defense}", ", defense: parry"),
        lambda: glitters_case(True),
    ),
    "ss": (SS, ss_case),
    "zones": (ZONES, zones_case),
    "tiers": (TIERS, tiers_case),
}


def exact_attacks_to_down(name: str, cap: int) -> np.ndarray:
    """P(down at the k-th attack received), k = 0..(attacks made in ``cap`` rounds)."""
    attacks, pattern, need = CASES[name][1]()
    return attacks_to_reach(need, attacks, attack_rounds(pattern, cap))


def with_bystander(text: str, rules: str) -> str:
    """``text`` with an idle, unhittable-in-practice ally listed after the defender: no
    longer a duel, so the general kernel plays it."""
    return text + f"    - {BYSTANDER[rules]}\n"


@pytest.mark.parametrize("general", [False, True], ids=["duel-path", "general-path"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.kernels
def test_attacks_to_down_match_the_chain(name: str, general: bool) -> None:
    """The defender's attacks-received histogram and mean match the chain."""
    text = CASES[name][0]
    scn = simlab.loads(text, f"{name}.yaml")
    if general:
        scn = simlab.loads(with_bystander(text, scn.rules), f"{name}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED, threads=1)
    names = [m for _, m in res.layout.combatants]
    d = names.index("D")
    pmf = exact_attacks_to_down(name, scn.max_rounds)
    hist = res.tallies.down_attacks[d]
    assert hist.sum() == res.tallies.down_round[d].sum()
    assert hist[len(pmf) :].sum() == 0 and hist[0] == 0, "more attacks than the cap allows"
    observed = np.append(hist[1 : len(pmf)], N - hist.sum())
    expected = np.append(pmf[1:], 1 - pmf.sum())
    assert chi_square_p(observed, expected) > P_MIN, (name, observed[:30], expected[:30] * N)

    assert_mean_attacks_to_down(res, "D", pmf)


@pytest.mark.parametrize("name", list(CASES))
def test_attacks_to_down_differ_from_rounds(name: str) -> None:
    """Guard against a vacuous case: more than one attack a round on average, the
    defender down by the cap in nearly every encounter, after several attacks."""
    _, pattern, _ = CASES[name][1]()
    assert sum(pattern) / len(pattern) >= 1.5
    pmf = exact_attacks_to_down(name, simlab.loads(CASES[name][0], "c.yaml").max_rounds)
    assert pmf.sum() > 0.999
    assert float(np.arange(len(pmf)) @ pmf) > 5


@pytest.mark.parametrize("name", ["zones", "ss"])
@pytest.mark.kernels
def test_out_event_is_the_round_of_the_down(name: str) -> None:
    """zones-3d6's ``out`` (HP below 0: docs/rules/zones-3d6.md, "Time-to-down") and a
    ``downed: defeat`` combatant's ``out`` in shattered-spirits (out at 0 HP:
    docs/rules/shattered-spirits.md, "An attack") happen in the round of the attack
    that downs it: the chain's attacks summed into rounds of the attacker's attacks a
    turn."""
    scn = simlab.loads(CASES[name][0], f"{name}.yaml")
    res = simlab.simulate(scn, n=N, seed=SEED + 1, threads=1)
    (per_turn,) = CASES[name][1]()[1]
    by_attack = exact_attacks_to_down(name, scn.max_rounds)
    by_round = np.zeros(scn.max_rounds + 1)
    for k in range(1, len(by_attack)):
        by_round[(k - 1) // per_turn + 1] += by_attack[k]
    d = combatant_index(res, "D")
    out = res.tallies.event_round[d, res.layout.events.index("out")]
    assert np.array_equal(out, res.tallies.down_round[d])
    observed = np.append(out[1:], N - out.sum())
    expected = np.append(by_round[1:], 1 - by_round.sum())
    assert chi_square_p(observed, expected) > P_MIN, (name, observed, expected * N)
