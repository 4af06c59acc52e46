"""An exact answer a hair below 1 (or above 0) never reads as certainty: ``simlab exact``
wrote the benchmark duel's P(down by the round cap), 1 − 3·10⁻¹⁶, as ``1.000000``, and
``simlab run --check`` as ``1.000000000000``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from simlab.cli import main
from simlab.report.terminal import exact_number

ROOT = Path(__file__).resolve().parents[2]
SS_DUEL = ROOT / "scenarios" / "benchmarks" / "ss-duel.yaml"
ZONES_DUEL = ROOT / "scenarios" / "zones-3d6" / "training-duel.yaml"


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
    monkeypatch.setenv("COLUMNS", "80")
    cells = _down_by_cap_row(_printed("exact", str(SS_DUEL)), "Defender")
    assert cells[-2:] == [">", "0.99999999"], cells
    # one below 1 by more than 10⁻⁸ is written with the decimals that show it
    assert _down_by_cap_row(_printed("exact", str(ZONES_DUEL)), "Pell")[-1] == "0.99999999"


def test_run_check_writes_the_exact_down_by_cap_as_below_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = _printed("run", str(SS_DUEL), "-n", "2000", "--check")
    (line,) = [line for line in text.splitlines() if "down_by_round_cap" in line]
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
    attacks table, a crit rate of 3·10⁻⁷ ``0.00000``; exactly 1 reads so still, and a
    crit rate of exactly 0 ``—``, as a run writes a pair with no crit."""
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
    assert rows["Pell"][:2] == ["1.00000", "—"], rows
