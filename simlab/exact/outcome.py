"""The exact outcome of one attack, shared by the rule systems' exact modules that need
no fields beyond the contract's (see :class:`simlab.exact.AttackOutcomeLike`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AttackOutcome"]


@dataclass(frozen=True)
class AttackOutcome:
    """Exact outcome of one attack: ``hit_rate``, ``crit_rate``, ``damage_pmf`` (misses
    as 0) and ``mean_damage``."""

    hit_rate: float
    crit_rate: float
    damage_pmf: np.ndarray
    mean_damage: float

    @classmethod
    def from_pmf(cls, hit_rate: float, crit_rate: float, damage_pmf: np.ndarray) -> AttackOutcome:
        """The outcome with these rates and damage distribution; its mean from the PMF.

        Parameters
        ----------
        hit_rate, crit_rate : float
            P(hit or crit) and P(crit).
        damage_pmf : numpy.ndarray
            ``damage_pmf[d]`` = P(the attack deals d damage), misses as 0.
        """
        return cls(hit_rate, crit_rate, damage_pmf, float(np.arange(len(damage_pmf)) @ damage_pmf))
