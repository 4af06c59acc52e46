"""A sweep's crit rates where a pair cannot crit, at some points or at all: the note
under its tables, and its page's, give only the reason that applies (as a run's do,
tests/report/test_run_crit_dash.py); a point where the pair cannot crit reads ``—``,
exactly 0, not ``0 (< 4e-06)`` as if measured; a point's value that is a map reads as
the scenario file writes it, ``{12: crit}``, not Python's ``{12: 'crit'}``."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

import simlab
from simlab.report import terminal
from simlab.report.tuning import _sweep_rows
from simlab.report.tuning_terminal import print_sweep
from tests.report.test_run_crit_dash import EXACT, EXACT_ZERO, PROFILE
from tests.support import column_cells, printed_at
from tests.tuning.cases import ROOT, SS_DUEL

QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
#: ss-duel's strike has no crit row, then a crit row at 12: its crit rate moves.
TIERS = {"strike.tier": [{}, {12: "crit"}]}


def _said(sweep: simlab.SweepResult) -> str:
    """What ``print_sweep`` prints at 80 columns, on one line."""
    return " ".join(printed_at(lambda: print_sweep(sweep)).split())


def _crit_notes(said: str) -> list[str]:
    """The notes in ``said`` on a crit rate's ``—``: each up to the end of the next
    sentence."""
    return re.findall(r"Crit rate —.*?\.(?= ).*?\.(?= |$)", said)


def _crit_whys(said: str) -> list[str]:
    """The reasons in parentheses of each note in ``said`` on a crit rate's ``—``."""
    return re.findall(r"Crit rate —[^()]*\(([^()]*)\)", said)


def test_the_sweep_note_gives_only_the_reason_that_applies() -> None:
    """It said both reasons a pair may not crit where one applied: the quick-jab has no
    crit row; the crushing-blow's row is out of reach."""
    quickstart = simlab.sweep(simlab.load(QUICKSTART), {"Brute.hp": [28, 32]}, n=50)
    assert _crit_whys(_said(quickstart)) == [PROFILE]
    exact_zero = simlab.sweep(simlab.loads(EXACT_ZERO), {"Sato.health": [10, 11]}, n=50)
    assert _crit_whys(_said(exact_zero)) == [EXACT]


def test_a_point_where_the_pair_cannot_crit_reads_exactly_0() -> None:
    """At ``strike.tier = {}`` the strike cannot crit: its crit rate read ``0 (< 4e-06)``,
    as if measured; it reads ``—``, said once under the tables, as on the page."""
    sweep = simlab.sweep(simlab.load(SS_DUEL), TIERS, n=2000, exact=False)
    text = printed_at(lambda: print_sweep(sweep))
    cells = column_cells(text, "crit rate", r"^ ?\{")
    assert cells[0] == terminal.NO_CRIT and cells[1].startswith("0.0"), text
    (note,) = _crit_notes(" ".join(text.split()))
    assert "exactly 0" in note and f"({PROFILE})" in note, note
    header, rows = _sweep_rows(sweep)
    crit = header.index("crit rate [95%]")
    assert rows[0][crit] == terminal.NO_CRIT and rows[1][crit].startswith("0.0"), rows


def test_a_point_whose_value_is_a_map_reads_as_the_file_writes_it(tmp_path: Path) -> None:
    """``{12: 'crit'}``, Python's repr, in the tables, the page and the stops line."""
    sweep = simlab.sweep(simlab.load(SS_DUEL), TIERS, n=2000, exact=False)
    text = printed_at(lambda: print_sweep(sweep))
    assert "{12: crit}" in text and "'crit'" not in text, text
    _, rows = _sweep_rows(sweep)
    assert [row[0] for row in rows] == ["{}", "{12: crit}"], rows
    written = simlab.write_sweep(sweep, tmp_path / "sweep")  # Parquet took no such map
    page = written["markdown"].read_text()
    assert "{12: crit}" in page and "'crit'" not in page
    (note,) = _crit_notes(" ".join(page.split()))
    assert "exactly 0" in note and f"({PROFILE})" in note, note
    stored = pd.read_parquet(written["attacks"])["strike.tier"]
    assert list(stored) == ["{}", "{12: crit}"], stored


def test_a_further_fields_map_value_reads_in_the_legend_as_the_file_writes_it(
    tmp_path: Path,
) -> None:
    """The legend named a further varied field's values by Python's ``str()``:
    ``strike.tier={12: 'crit'}`` beside the tables' ``{12: crit}``; and a map could not
    group the lines (``simlab sweep --out`` of such a sweep failed: unhashable dict)."""
    import matplotlib.pyplot as plt

    sweep = simlab.sweep(simlab.load(SS_DUEL), {"Defender.hp": [5, 20], **TIERS}, n=500,
                         exact=False)  # fmt: skip
    for figure, on in (("hit_rate", {}), ("mean_damage", {"attack": "strike"})):
        fig, ax = plt.subplots()
        simlab.plot_sweep(sweep, figure, ax=ax, **on)
        legend = [text.get_text() for text in ax.get_legend().get_texts()]
        fig.savefig(tmp_path / f"{figure}.png")
        plt.close(fig)
        assert "strike.tier={}" in legend and "strike.tier={12: crit}" in legend, legend
    page = simlab.write_sweep(sweep, tmp_path / "sweep")["markdown"].read_text()
    assert "{12: crit}" in page and "'crit'" not in page
