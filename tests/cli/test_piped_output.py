"""The output of each command piped (``| cat``, a CI log): no line ends in a space, so
that a log reads clean and two runs' outputs diff line for line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from simlab.cli import main
from simlab.report import terminal

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios/benchmarks/ss-duel.yaml")
PARTY = str(ROOT / "scenarios/glitters-d20/party-vs-monsters.yaml")
SPECS = str(ROOT / "scenarios/shattered-spirits/quickstart.yaml")

COMMANDS = {
    "run": ["run", PARTY, "-n", "200"],
    "run --check": ["run", DUEL, "-n", "200", "--check"],
    "exact": ["exact", DUEL],
    "check": ["check", SPECS, "-n", "200"],
    "sweep": ["sweep", DUEL, "--vary", "Defender.hp=20:40:10", "-n", "200"],
    "compare": ["compare", DUEL, "--set", "strike.profile[9]=8", "-n", "200"],
    "tune": [
        "tune",
        DUEL,
        "--vary",
        "Defender.hp=10:60",
        "--target",
        "median_time_to_down:Defender=8",
        "-n",
        "200",
    ],
    "validate": ["validate", PARTY],
}


@pytest.mark.parametrize("columns", ["", "80"], ids=["piped", "piped at COLUMNS=80"])
@pytest.mark.parametrize("command", COMMANDS)
def test_no_piped_line_ends_in_a_space(
    command: str, columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rich pads a table's rows, and a centred title, to the table's width: piped, each
    command's lines end at their last character."""
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(terminal, "console", terminal._make_console())
    done = CliRunner().invoke(main, COMMANDS[command])
    assert done.exit_code in (0, 1), done.output  # check and tune exit 1 on a miss
    assert "─" in done.output or command == "validate", done.output  # a table was printed
    padded = [line for line in done.output.splitlines() if line != line.rstrip()]
    assert not padded, "\n".join(f"{line!r}" for line in padded)
