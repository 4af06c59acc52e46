"""The statistical tests are large enough to catch a 1-point error in a hit rate.

The rule systems' statistical tests compare a simulated hit rate with the exact one and
fail beyond ``K_SIGMA`` = 4.5 binomial standard errors (``tests.support.within``), on at
least 60,000 encounters. Here a duel of every rule system is simulated at that size, and
each hit rate the exact engine answers is compared with the exact answer moved by one
point (±0.01), as if the rules had a 1-point bug: the comparison must fail. Power: with
``a`` attempts and hit rate ``p`` the 1-point error lies ``0.01 / sqrt(p(1 − p)/a)``
standard errors away; the test requires that distance to be at least ``K_SIGMA`` + 3.09,
so the error is caught with probability at least 0.999 on any seed (and, on the seed
used, it is caught).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

import simlab
from tests.support import K_SIGMA, chi_square_p, within

ROOT = Path(__file__).resolve().parents[1]
ENCOUNTERS = 60_000  # the smallest sample of the rule systems' statistical tests
ERROR = 0.01
POWER = 0.999
DUELS = {
    "shattered-spirits": "benchmarks/ss-duel.yaml",
    "shattered-spirits-draft1": "shattered-spirits-draft1/training-dummy.yaml",
    "zones-3d6": "zones-3d6/longsword-vs-plate.yaml",
    "glitters-d20": "glitters-d20/training-duel.yaml",
    "opposed-tiers": "opposed-tiers/novice-duel.yaml",
}


def attempts_to_catch(p: float, error: float = ERROR, k_sigma: float = K_SIGMA,
                      power: float = POWER) -> float:  # fmt: skip
    """Attempts at which a rate off by ``error`` fails a ``k_sigma`` test with ``power``."""
    return float(((k_sigma + sps.norm.ppf(power)) * np.sqrt(p * (1 - p)) / error) ** 2)


@pytest.mark.slow
@pytest.mark.parametrize("rules", sorted(DUELS))
def test_a_one_point_error_in_a_hit_rate_is_caught(rules: str) -> None:
    scn = simlab.load(ROOT / "scenarios" / DUELS[rules])
    assert scn.rules == rules
    res = simlab.simulate(scn, n=ENCOUNTERS, seed=5, check=True)
    assert res.check is not None
    rates = res.hit_rates().set_index(["attacker", "attack", "defender"])
    checked = res.check[res.check.figure == "hit_rate"]
    assert len(checked) >= 1
    for row in checked.itertuples():
        attempts = int(rates.loc[(row.attacker, row.attack, row.defender)].attempts)
        hits = int(rates.loc[(row.attacker, row.attack, row.defender)].hits)
        assert within(hits, attempts, row.exact), "the unmoved exact rate must pass"
        for moved in (row.exact - ERROR, row.exact + ERROR):
            if 0 < moved < 1:
                assert attempts >= attempts_to_catch(moved), (rules, attempts, moved)
                assert not within(hits, attempts, moved), f"{rules}: 1-point error missed"


def test_the_chi_square_helper_tests_a_rare_outcome_it_cannot_pool() -> None:
    """An outcome expected 0.4 times in 40,000 cannot make a chi-square cell of its own:
    the helper pooled everything into one cell and returned 1, whatever was seen (10 where
    0.4 are expected passed). It tests the rare count exactly instead: 10 fails, 0 or 1
    passes; with nothing observed there is nothing to compare, and it says so."""
    expected = np.array([0.0, 1 - 1e-5, 1e-5])
    assert chi_square_p(np.array([0, 39_990, 10]), expected) < 1e-6
    assert chi_square_p(np.array([0, 40_000, 0]), expected) == pytest.approx(1.0)
    assert chi_square_p(np.array([0, 39_999, 1]), expected) > 0.3
    assert chi_square_p(np.array([0, 40_000, 0]), np.array([0.0, 1.0, 0.0])) == 1.0
    with pytest.raises(AssertionError, match="nothing observed"):
        chi_square_p(np.zeros(3, dtype=int), expected)  # it returned 1
