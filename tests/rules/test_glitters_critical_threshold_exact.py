"""glitters-d20: ``attack_critical_threshold`` (an attack's own CT against the
scenario's ``critical_threshold``) against an exact attack distribution.

docs/rules/glitters-d20.md, "An attack": a natural d20 at least the CT is a critical
hit and always hits, else natural + ``bonus`` ≥ MIT (= DC, no armor) hits; damage is the
dice + ASM (STR 10: 0) + flat, a critical adding one bonus die per damage die, the first
at its maximum. "Parameters": with ``attack_critical_threshold: lowest`` an attack's CT
counts only when it is below the scenario's; with ``replace`` it stands, even when
higher. In a scenario with CT 18 the plain mace (its own CT 20) crits on 18–20 under
``lowest`` and on 20 alone under ``replace``; the keen blade (its own CT 17) crits on
17–20 either way. Bludgeoning without armor adds nothing and leaves no status; one
Round, one attack a combatant, against a defender whom nothing Downs: every attack is
an independent draw.

The exact side is written here from the rules text alone, sharing nothing with the
kernels or ``simlab.exact``.

False alarms. Fixed seeds, so each test always passes or always fails. Per attack:
hit and critical rates within k = 4.5 standard errors (σ = sqrt(p(1 − p)/n)) and the
damage histogram by chi-square (cells expecting fewer than 5 merged) at p > 1e-4; two
runs × two attacks × three comparisons: family-wise false-alarm rate ≲ 5e-4. The guard
shows ``replace`` moves the mace's critical rate by 0.10, some 60 standard errors
(N = 40,000).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import simlab
from tests.chains import P_MIN, dice_pmf, mixture, shifted
from tests.support import chi_square_p, within

N = 40_000
SEED = 9311
SCENARIO_CT, DC = 18, 13

TEXT = """
scenario: gct-{mode}
rules: glitters-d20
max_rounds: 1
params: {{critical_threshold: 18, attack_critical_threshold: {mode}}}
attacks:
  mace: {{damage: 1d8+1, type: bludgeoning, bonus: 3, critical_threshold: 20}}
  keen: {{damage: 1d6, type: bludgeoning, bonus: 1, critical_threshold: 17}}
sides:
  a:
    - {{name: M, hp: 10, attacks: [mace]}}
    - {{name: K, hp: 10, attacks: [keen]}}
  b: [{{name: D, hp: 100000, dc: 13}}]
"""

#: attack → (dice sides, flat, bonus, its own CT)
ATTACKS = {"mace": (8, 1, 3, 20), "keen": (6, 0, 1, 17)}


def critical_threshold(own: int, mode: str) -> int:
    """The CT an attack uses: the lower of its own and the scenario's, or its own."""
    return own if mode == "replace" else min(own, SCENARIO_CT)


def attack(name: str, mode: str) -> tuple[float, float, np.ndarray]:
    """(hit rate, critical rate, damage pmf) of one attack with one d8 or d6."""
    sides, flat, bonus, own = ATTACKS[name]
    ct = critical_threshold(own, mode)
    p_crit = sum(1 for n in range(1, 21) if n >= ct) / 20
    p_plain = sum(1 for n in range(1, 21) if n < ct and n + bonus >= DC) / 20
    normal = shifted(dice_pmf(1, sides), flat)
    crit = shifted(dice_pmf(1, sides), flat + sides)
    damage = mixture([(1 - p_plain - p_crit, np.ones(1)), (p_plain, normal), (p_crit, crit)])
    return p_plain + p_crit, p_crit, damage


@functools.cache
def run(mode: str) -> simlab.Result:
    return simlab.simulate(simlab.loads(TEXT.format(mode=mode), f"{mode}.yaml"), n=N,
                           seed=SEED, threads=1)  # fmt: skip


@pytest.mark.parametrize("mode", ["lowest", "replace"])
@pytest.mark.kernels
def test_critical_threshold_matches_exact(mode: str) -> None:
    """Each attack's hit and critical rates and damage histogram match."""
    res = run(mode)
    names = [m for _, m in res.layout.combatants]
    d = names.index("D")
    for who, name in (("M", "mace"), ("K", "keen")):
        pair = res.layout.pair(names.index(who), res.layout.attacks.index(name), d)
        attempts = int(res.tallies.attempts[pair].sum())
        assert attempts == N, (name, attempts)
        hit, crit, pmf = attack(name, mode)
        assert within(int(res.tallies.hits[pair].sum()), N, hit), (mode, name, "hits")
        assert within(int(res.tallies.crits[pair].sum()), N, crit), (mode, name, "crits")
        hist = res.tallies.damage_hist[pair]
        assert hist[len(pmf) :].sum() == 0 and np.all(hist[: len(pmf)][pmf == 0] == 0), name
        assert chi_square_p(hist[: len(pmf)], pmf) > P_MIN, (mode, name, hist, pmf * N)


def test_replace_is_not_trivial() -> None:
    """Guard: ``replace`` lowers the mace's critical rate by 0.10 (and its damage with
    it) and leaves the keen blade's alone."""
    assert attack("mace", "lowest")[1] - attack("mace", "replace")[1] > 0.099
    assert attack("keen", "lowest")[1] == attack("keen", "replace")[1] == 0.2
