"""The exact outcome of one attack, shared by the rule systems' exact modules that need
no fields beyond the contract's (see :class:`simlab.exact.AttackOutcomeLike`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["REASONS_APART", "AttackOutcome", "every_reason"]

#: Between two reasons a fight moves one figure away from its exact answer
#: (:func:`every_reason`).
REASONS_APART = "; "


def every_reason(moves: Iterable[tuple[Iterable[str], str]]) -> dict[str, str]:
    """Figure → every reason that moves it away from its exact answer, as a rule
    system's ``fight_caveats`` gives them: each figure's reasons in the order of
    ``moves``, each once, joined by :data:`REASONS_APART` (one reason alone kept for a
    figure two moved read as if removing it would leave the figure's answer standing).

    Parameters
    ----------
    moves : iterable of (figures, reason)
        What moves which figures (``hit_rate``, ``crit_rate``, ``mean_damage``), and
        why; a figure a reason moves is listed in the order the figures first come.

    Returns
    -------
    dict of str to str
        Figure name → its reasons; no entry for a figure nothing moves.
    """
    reasons: dict[str, list[str]] = {}
    for figures, reason in moves:
        for figure in figures:
            said = reasons.setdefault(figure, [])
            if reason not in said:
                said.append(reason)
    return {figure: REASONS_APART.join(said) for figure, said in reasons.items()}


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
