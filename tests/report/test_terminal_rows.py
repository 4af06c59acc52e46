"""What the terminal's tables leave out or name, so that a designer does not misread them:
a crit rate of a pair that cannot crit, the unit of a compared figure, a combatant a
sweep cannot down."""

from __future__ import annotations

import re
from pathlib import Path

import simlab
from simlab.report import terminal
from tests.support import printed_at

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


def _row(text: str, start: str) -> list[str]:
    """The cells of the row of ``text`` that starts with ``start``, two or more spaces
    apart."""
    line = next(line for line in text.splitlines() if line.strip().startswith(start))
    return re.split(r"\s{2,}", line.strip())


def test_a_run_shows_no_simulated_crit_rate_for_a_pair_that_never_crits() -> None:
    """quick-jab has no crit row: its crit rate read ``0 (< 0.0002)`` beside the
    stone-strike's, a simulated zero with an interval for an attack that cannot crit."""
    res = simlab.simulate(simlab.load(QUICKSTART), n=300)
    text = printed_at(lambda: terminal.print_result(res))
    header = next(line for line in text.splitlines() if "hit rate" in line)
    assert "crit rate" in header
    jab, strike = _row(text, "Kaito: quick-jab"), _row(text, "Brute:")
    assert jab[4] == terminal.NO_CRIT and "(<" not in " ".join(jab), jab
    assert "±" in strike[4], strike  # the stone-strike crits: its rate with its interval
    assert terminal.NO_CRIT_NOTE.split(":")[0] in text


def test_a_run_in_which_no_pair_crits_has_no_crit_rate_column() -> None:
    res = simlab.simulate(simlab.load(QUICKSTART).with_({"stone-strike.tier": {}}), n=300)
    text = printed_at(lambda: terminal.print_result(res))
    assert "crit rate" not in text and "Kaito: quick-jab" in text
