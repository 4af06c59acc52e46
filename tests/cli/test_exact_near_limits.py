"""An exact answer a hair below 1 (or above 0) never reads as certainty: ``simlab exact``
wrote the benchmark duel's P(down by the round cap), 1 − 3·10⁻¹⁶, as ``1.000000``, and
``simlab run --check`` as ``1.000000000000``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from simlab.cli import main
from simlab.report import terminal
from simlab.report.terminal import exact_number
from tests.support import terminal_console

ROOT = Path(__file__).resolve().parents[2]
SS_DUEL = ROOT / "scenarios" / "benchmarks" / "ss-duel.yaml"
ZONES_DUEL = ROOT / "scenarios" / "zones-3d6" / "training-duel.yaml"


def _columns(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """A terminal of ``width`` columns: ``COLUMNS``, and the console made from it (the
    terminal's console is made when its module is first imported, maybe by another test
    under other ``COLUMNS``)."""
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(terminal, "console", terminal._make_console())


def _printed(*args: str) -> str:
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def _down_by_cap_row(text: str, name: str) -> list[str]:
    """The cells of the exact time-to-down table's row of ``name``."""
    (row,) = [line for line in text.splitlines() if line.split()[:1] == [name]]
    return row.split()


def test_exact_writes_a_down_by_cap_just_below_1_as_below_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _columns(monkeypatch, 80)
    cells = _down_by_cap_row(_printed("exact", str(SS_DUEL)), "Defender")
    assert cells[-2:] == [">", "0.99999999"], cells
    # one below 1 by more than 10⁻⁸ is written with the decimals that show it
    assert _down_by_cap_row(_printed("exact", str(ZONES_DUEL)), "Pell")[-1] == "0.99999999"


def test_run_check_writes_the_exact_down_by_cap_as_below_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _columns(monkeypatch, 80)
    text = _printed("run", str(SS_DUEL), "-n", "2000", "--check")
    # at 80 columns the p-values may follow in a table of their own: the first row is it
    line = next(line for line in text.splitlines() if "down_by_round_cap" in line)
    assert "> 0.99999999" in line and "1.0000000" not in line, line


@pytest.mark.parametrize(
    ("value", "figure", "digits", "written"),
    [(1 - 4e-16, "down_by_round_cap", 6, "> 0.99999999"),
     (1 + 9e-16, "hit_rate", 4, "> 0.99999999"),
     (1 - 7e-9, "down_by_round_cap", 6, "0.99999999"),
     (1.0, "down_by_round_cap", 6, "1.000000"),
     (3e-17, "hit_rate", 4, "< 1e-08"),
     (0.0, "hit_rate", 4, "0.0000"),
     (0.15201, "hit_rate", 4, "0.1520")],
)  # fmt: skip
def test_an_exact_number_reads_as_a_limit_only_at_it(
    value: float, figure: str, digits: int, written: str
) -> None:
    assert exact_number(value, figure, digits) == written


def test_exact_attacks_table_writes_a_rate_just_below_1_as_below_1() -> None:
    """A pair's exact hit rate of 0.9999996 read ``1.00000`` in ``simlab exact``'s
    attacks table, a crit rate of 3·10⁻⁷ ``0.00000``; exactly 1 reads so still
    (``1.0000``), and a crit rate of exactly 0 ``—``, as a run writes a pair with no
    crit."""
    from types import SimpleNamespace

    from rich.console import Console

    from simlab.report import terminal

    def pair(defender: str, hit: float, crit: float) -> SimpleNamespace:
        return SimpleNamespace(key=("Hero", "sword", defender), hit_rate=hit, crit_rate=crit,
                               mean_damage=4.0)  # fmt: skip

    pairs = [pair("Ogre", 1 - 4e-7, 3e-7), pair("Pell", 1.0, 0.0)]
    solved = SimpleNamespace(scenario="duel", rules="glitters-d20", pairs=pairs)
    console = Console(width=80, record=True)
    console.print(terminal.exact_attacks_table(solved))  # type: ignore[arg-type]
    rows = {line.split()[3]: line.split()[4:] for line in console.export_text().splitlines()
            if "→" in line}  # fmt: skip
    assert rows["Ogre"][:2] == ["0.9999996", "0.0000003"], rows
    assert rows["Pell"][:2] == ["1.0000", "—"], rows


def _check_cells(rows: list[tuple[str, float, float, float]]) -> dict[str, list[str]]:
    """The ``--check`` table of ``rows`` (figure, simulated, exact, standard error) at
    120 columns: each figure's (``hit_rate:``) simulated and exact cells."""
    import pandas as pd
    from rich.console import Console

    from simlab.report import terminal

    check = pd.DataFrame([{"figure": figure, "attacker": "Kaito", "attack": "quick-jab",
                           "defender": "Brute", "simulated": simulated, "exact": exact,
                           "std_error": se, "z": (simulated - exact) / se, "p_value": 0.5}
                          for figure, simulated, exact, se in rows])  # fmt: skip
    with terminal_console(Console(width=120, record=True), 120) as console:
        console.print(terminal.check_table(check))
        printed = console.export_text()
    return {line.split()[0]: line.split()[5:7] for line in printed.splitlines()
            if "→" in line}  # fmt: skip


def test_a_check_row_writes_its_simulated_and_exact_figures_to_the_same_decimals() -> None:
    """``run --check`` wrote a simulated hit rate to the 5 decimals its interval calls
    for beside the exact one to 4 (``0.97225`` beside ``0.9722``, where ``simlab exact``
    writes ``0.97222``): a row's two figures have the same decimals."""
    cells = _check_cells([("hit_rate", 0.97225, 35 / 36, 9.5e-05),
                          ("mean_damage", 1.38843, 1.38889, 0.0007)])  # fmt: skip
    assert cells["hit_rate:"] == ["0.97225", "0.97222"], cells
    assert cells["mean_damage:"] == ["1.3884", "1.3889"], cells


def test_exact_writes_each_answer_as_the_check_table_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """``simlab exact`` wrote a hit rate to 5 decimals (``0.91667``) and a mean round to 5
    (``10.16650``), where ``run --check`` writes the same answers to 4 beside a
    simulated figure that needs no more: one rule for both."""
    _columns(monkeypatch, 120)
    checked = _printed("run", str(SS_DUEL), "-n", "2000", "--check")
    exact = {}
    for figure in ("hit_rate:", "mean_damage:", "mean_time_to_down:"):
        (line,) = [x for x in checked.splitlines() if x.split()[:1] == [figure]]
        exact[figure] = line.split()[-4]
    solved = _printed("exact", str(SS_DUEL))
    (attack,) = [line.split() for line in solved.splitlines() if "→" in line]
    assert attack[-2:] == [exact["hit_rate:"], exact["mean_damage:"]], (attack, exact)
    assert _down_by_cap_row(solved, "Defender")[4] == exact["mean_time_to_down:"], solved


TIERS_DUEL = ROOT / "scenarios" / "benchmarks" / "opposed-tiers-duel.yaml"


def test_a_chance_summed_a_hair_past_1_is_tested_as_one_a_hair_below(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """opposed-tiers' duel sums its P(down by the round cap) to 1 + 9e-16, which was
    clipped to a certain 1 (``certain and simulated so``), where shattered-spirits' at
    1 − 3e-16 is a row of the check: whether a figure read as certain turned on the
    float sum's last bit. Both are rows now, each ``> 0.99999999``."""
    _columns(monkeypatch, 80)
    text = _printed("run", str(TIERS_DUEL), "-n", "2000", "--check")
    line = next(line for line in text.splitlines() if "down_by_round_cap" in line)
    assert "> 0.99999999" in line, line
    assert "down_by_round_cap" not in text.split("certain and simulated so")[-1][:400]


def test_a_hit_rate_of_every_roll_is_exactly_1() -> None:
    """A profile that hits on every 2d6 total summed its hit rate to 1.0000000000000002:
    stored past 1 (``ExactResult.attacks()``), shown as ``> 0.99999999``. From the dice
    alone, a chance a hair past 1 is 1; ``--check`` finds it certain."""
    import simlab

    every = simlab.load(SS_DUEL).with_({"strike.profile[2]": 1, "strike.profile[3]": 1})
    assert simlab.exact(every).attacks().hit_rate.tolist() == [1.0]
    check = simlab.simulate(every, n=2000, check=True).check
    assert check is not None
    assert ("hit_rate", "Attacker", "strike", "Defender", 1.0) in check.attrs["certain"]
