"""Sweep, compare and tune in an 80-column terminal: nothing cut, nothing over 80."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.report import terminal
from tests.support import broken_names, column_cells, printed_at

# Slow tier (make test-slow): runs sweeps, comparisons and tunings to read their terminal output.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
PLATE = ROOT / "scenarios/zones-3d6/longsword-vs-plate.yaml"


def _run_at_80(monkeypatch: pytest.MonkeyPatch, *args: object, whole: str = "^$") -> str:
    """The output of ``simlab ARGS`` piped with ``COLUMNS=80``: no line over 80 columns
    but those that match ``whole``, lines a tool reads, kept whole when piped."""
    from rich.console import Console

    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    monkeypatch.setenv("COLUMNS", "80")  # as a terminal says how wide: lines broken to it
    done = CliRunner().invoke(main, [str(a) for a in args])
    assert done.exit_code == 0, done.output
    lines = [line for line in done.output.splitlines() if not re.match(whole, line)]
    assert max(len(line) for line in lines) <= 80, done.output
    assert "…" not in done.output, done.output
    return str(done.output)


def _compare_at_80(monkeypatch: pytest.MonkeyPatch, frame: Any) -> str:
    """The text :func:`compare_table` of ``frame`` prints in an 80-column terminal."""
    from rich.console import Console

    from simlab.report.tuning_terminal import compare_table

    console = Console(width=80, force_terminal=False, record=True)
    monkeypatch.setattr(terminal, "console", console)
    console.print(compare_table(frame))
    return str(console.export_text())


def _heading_cells(text: str) -> list[list[str]]:
    """The heading lines of the first table in ``text`` (those just above its rule, up to
    its title), each split into its cells (two or more spaces apart)."""
    lines = text.splitlines()
    rule = next(k for k, line in enumerate(lines) if line.startswith("─"))
    heading = []
    for line in reversed(lines[:rule]):
        if "(" in line:  # the title
            break
        heading.insert(0, re.split(r"\s{2,}", line.strip()))
    return heading


def test_sweep_of_a_grid_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _run_at_80(monkeypatch, "sweep", PLATE, "--vary", "Swordsman.hp=20,30",
                      "--vary", "Plate Knight.bonus_defense=0:1", "-n", 2000)  # fmt: skip
    # A table for the attack pair the sweep moves, named whole in its title, both varied
    # fields as columns; the Plate Knight's own attack, which neither field touches, in
    # the table of unchanged pairs.
    assert "Swordsman: longsword → Plate Knight (± 95% interval)" in text
    unchanged = text.split("unchanged across the sweep")[1].split("time-to-down")[0]
    assert "Plate Knight: longsword → Swordsman" in unchanged
    # Each varied field heads its column by its whole name, broken after a dot or an
    # underscore: "hp" alone would read as the Swordsman's in the combatants' table.
    assert _heading_cells(text) == [
        ["Plate Knight."],
        ["Swordsman.", "bonus_", "exact"],
        ["hp", "defense", "hit rate", "mean damage", "mean"],
    ]
    combatants = _heading_cells(text[text.index("time-to-down (rounds") :])
    assert combatants[-1][:3] == ["combatant", "hp", "defense"]
    assert combatants[-2][:2] == ["Swordsman.", "bonus_"]
    assert combatants[-3] == ["Plate Knight."], combatants  # whole: a name is not broken
    assert "crit" not in text  # zones-3d6 has no crits
    assert text.count("±") >= 4 * (2 + 2 + 2 + 2)  # attacks, time-to-down, sides


def test_sweep_of_a_duel_grid_prints_every_exact_mean_whole_in_80_columns(
    monkeypatch: pytest.MonkeyPatch, duel: Any
) -> None:
    """Two varied fields and the exact mean columns are wider than 80 columns with the
    tables' usual spacing: rich cut the exact means at the right edge short (``7.2112``
    printed ``7.``). Every one is printed whole, no line over 80."""
    from rich.console import Console

    from simlab.report.terminal import plain_number
    from simlab.report.tuning_terminal import print_sweep

    console = Console(width=80, force_terminal=False, record=True)
    monkeypatch.setattr(terminal, "console", console)
    monkeypatch.setenv("COLUMNS", "80")  # as an 80-column terminal says: notes broken to it
    sweep = simlab.sweep(duel, {"strike.profile[9]": [5, 6], "Defender.hp": [20, 30]}, n=1000)
    print_sweep(sweep)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80, text
    exact = [*sweep.attacks().exact_mean_damage, *sweep.combatants().exact_mean_time_to_down]
    printed = set(re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", text))
    missing = {plain_number(v, 4) for v in exact if v == v} - printed
    assert not missing, text


def test_sweep_note_explains_only_the_columns_and_tables_printed(duel: Any) -> None:
    """The note under a sweep explained an exact column and a table of unchanged pairs
    that a sweep without them does not print."""
    from simlab.report.tuning_terminal import sweep_note

    plain = simlab.sweep(duel, {"strike.profile[9]": [5, 8]}, n=1000, exact=False)
    note = sweep_note(plain)
    assert "Exact:" not in note and "Unchanged across the sweep" not in note
    assert "Mean if downed" in note
    both = simlab.sweep(duel, {"Defender.hp": [20, 30]}, n=1000)  # the attack is not moved
    note = sweep_note(both)
    assert "Exact: the exact mean damage" in note and "Unchanged across the sweep:" in note


def test_sweep_with_crits_and_exact_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Brute's Guard moves Kaito's quick-jab, which has no crit row: its curve has no
    crit column of 0s (it had one); the stone-strike, unchanged, can crit and keeps it."""
    text = _run_at_80(monkeypatch, "sweep", QUICKSTART, "--vary", "Brute.guard=0:3",
                      "-n", 2000)  # fmt: skip
    header = next(line for line in text.splitlines() if "hit rate" in line)
    assert header.split() == ["Brute.guard", "hit", "rate", "mean", "damage", "mean"]
    flat = text.split("unchanged across")[1].split("time-to-down (rounds")[0]
    assert "crit rate" in flat, text
    # Every row with an exact answer: the exact mean damage lies within (or at most a
    # rounding step beyond) the simulated interval printed beside it.
    attacks, unchanged = text.split("time-to-down (rounds")[0].split("unchanged across")
    rows = re.findall(r" ([\d.]+) ± ([\d.]+) +([\d.]+) *$", attacks, re.M)
    assert len(rows) == 4, text  # Kaito's jab at the Brute, whose Guard is swept
    for mean, half, exact in rows:
        assert abs(float(exact) - float(mean)) <= float(half) + 0.001, (mean, half, exact)
    # The Brute's strike at Kaito does not depend on the Brute's Guard: one row, its mean
    # damage the range of its four estimates, the exact mean damage beside them.
    assert re.search(r"Brute: stone-strike → Kaito .* [\d.]+–[\d.]+ +[\d.]+ *$", unchanged,
                     re.M), text  # fmt: skip


def test_unchanged_pairs_show_the_range_of_their_estimates() -> None:
    """Each figure of an unchanged pair: its lowest and highest estimate over the points,
    one number when both read the same; the exact mean where known, else a dash."""
    import pandas as pd

    from simlab.report.tuning_terminal import _flat_pairs_table

    frame = pd.DataFrame({"attacker": ["A"] * 3 + ["B"] * 3, "attack": "x", "defender": "D",
                          "hit_rate": [0.5461, 0.5474, 0.5468, 0.25, 0.2501, 0.2499],
                          "mean_damage": [4.6031, 4.6079, 4.6, 1.0, 1.0, 1.0],
                          "exact_mean_damage": [4.6182] * 3 + [float("nan")] * 3})  # fmt: skip
    table = _flat_pairs_table(lambda *pair: True, frame, ["hit_rate", "mean_damage"])  # no crits
    cells = [[str(cell) for cell in column.cells] for column in table.columns]
    assert cells == [["A: x → D", "B: x → D"], ["0.546–0.547", "0.250"],
                     ["4.60–4.61", "1.00"], ["4.6182", "—"]]  # fmt: skip


def test_compare_fits_80_columns_and_marks_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _run_at_80(monkeypatch, "compare", QUICKSTART, "--set", "Brute.guard=1",
                      "-n", 4000)  # fmt: skip
    changed = [line for line in text.splitlines() if line.lstrip().startswith("✱")]
    assert any("down rate" in line for line in changed), text
    assert "independent 95%" not in text  # only in a wide terminal
    assert "narrower" in text


def test_compare_says_what_its_mean_time_to_down_is_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The mean time-to-down compared is over the encounters in which the combatant went
    down: the sweep's tables say "mean if downed", the comparison said nothing, and a
    Novice Hero downed in 7% of the encounters instead of 49% read as lasting 2.75 rounds
    longer. The notes under the table and on the page say what it is over."""
    said = "Mean time-to-down: among the encounters in which the combatant went down"
    monkeypatch.chdir(tmp_path)  # a short --out: "wrote 3 files to out" fits 80 columns
    text = _run_at_80(monkeypatch, "compare", QUICKSTART, "--set", "Brute.guard=1", "-n", 4000,
                      "--out", "out")  # fmt: skip
    assert any("mean time-to-down" in line for line in text.splitlines() if "✱" in line[:3])
    assert said in " ".join(text.split())
    page = " ".join((tmp_path / "out/compare.md").read_text().split())
    assert said[0].upper() + said[1:] in page  # a paragraph of its own on the page


def test_compare_keeps_a_long_pairs_figures_on_its_first_line_in_80_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fight's pair names run to 27 characters ("Ghoul 2 ghoul-claw → Aldric"): at 80
    columns, every column two spaces from the next, the pair breaks after its arrow and
    its row's figures keep to its first line, every number whole."""
    import pandas as pd

    frame = pd.DataFrame({
        "figure": ["mean_time_to_down", "crit_rate"],
        "on": ["Ghoul 2", "Ghoul 2 ghoul-claw → Aldric"],
        "a": [2.86, 0.048], "b": [5.23, 0.051], "diff": [2.37, 0.003],
        "diff_ci_lo": [2.33, 0.001], "diff_ci_hi": [2.41, 0.005],
        "diff_ci_independent_lo": [2.3, -0.002], "diff_ci_independent_hi": [2.44, 0.008],
        "changed": [True, True], "changed_holm": [True, False], "narrowing": [1.1, 2.1],
    })  # fmt: skip
    lines = _compare_at_80(monkeypatch, frame).splitlines()
    rows = [k for k, line in enumerate(lines) if line.startswith("✱")]
    assert len(rows) == 2 and max(len(line) for line in lines) <= 80, lines
    assert lines[rows[1]].split() == ["✱", "crit", "rate", "Ghoul", "2", "ghoul-claw", "→",
                                      "0.048", "0.051", "+0.003", "±", "0.002", "2.1"]  # fmt: skip
    assert lines[rows[1] + 1].strip() == "Aldric", lines


def test_compare_keeps_every_number_whole_beside_a_wide_difference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rare figure's difference needs many digits to stay off 0 (``-0.001170 ±
    0.001164``); beside a long pair it cut the × column to ``1`` for ``1.5``. The pair
    now breaks before its attack too, so that every number keeps its width."""
    import pandas as pd

    frame = pd.DataFrame({
        "figure": ["down_rate", "crit_rate"],
        "on": ["Warden", "Berserker runed-axe → Raider 3"],
        "a": [0.246, 0.091], "b": [0.145, 0.090], "diff": [-0.101, -0.00117],
        "diff_ci_lo": [-0.107, -0.002334], "diff_ci_hi": [-0.095, -0.000006],
        "diff_ci_independent_lo": [-0.11, -0.008], "diff_ci_independent_hi": [-0.09, 0.006],
        "changed": [True, True], "changed_holm": [True, False], "narrowing": [1.5, 4.7],
    })  # fmt: skip
    lines = _compare_at_80(monkeypatch, frame).splitlines()
    rows = [line for line in lines if line.startswith("✱")]
    assert max(len(line) for line in lines) <= 80, lines
    assert rows[0].split()[-1] == "1.5" and rows[1].split()[-1] == "4.7", rows


def test_compare_of_the_same_scenario_says_nothing_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = _run_at_80(monkeypatch, "compare", QUICKSTART, QUICKSTART, "-n", 2000)
    assert "No shared figure changed: every paired interval contains 0." in text
    assert "───" not in text  # no empty table


@pytest.mark.parametrize(
    "command",
    [
        ["run", QUICKSTART, "--precision", "0.01", "-n", 200_000],
        ["compare", QUICKSTART, "--set", "Brute.guard=1", "--precision", "0.02", "-n", 100_000],
        ["sweep", QUICKSTART, "--vary", "Brute.guard=0:1", "--precision", "0.02", "-n", 100_000],
        ["tune", QUICKSTART, "--vary", "Brute.hp=5:30", "--target", "win_rate:party=0.5",
         "--precision", "0.02", "-n", 100_000],
    ],
)  # fmt: skip
def test_a_run_to_a_precision_says_so_within_80_columns(
    monkeypatch: pytest.MonkeyPatch, command: list[object]
) -> None:
    """The ``precision:`` record of run and compare (200 columns and more) is the one
    line over 80 columns piped, whole for ``grep '^precision:'`` (on a terminal it is
    broken at spaces: tests/cli); the rest fits, sweep's and tune's words on the
    precision too."""
    widest = r"precision: stopped at .*; widest( \(B: .*\))?: "  # compare's names its variant
    text = _run_at_80(monkeypatch, *command, whole=widest)
    if command[0] in ("run", "compare"):
        assert re.search(rf"^{widest}.*\)$", text, re.MULTILINE), text
    assert "precision" in text


def test_a_note_on_b_s_own_settings_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """``note: B's own encounters (…) were not used; …`` (92 columns) is wrapped."""
    duel = ROOT / "scenarios/benchmarks/ss-duel.yaml"
    text = _run_at_80(monkeypatch, "compare", QUICKSTART, duel, "--seed", 7)
    assert "note: B's own encounters (1,000,000) were not used" in " ".join(text.split())


def test_tune_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _run_at_80(monkeypatch, "tune", ROOT / "scenarios/benchmarks/ss-duel.yaml",
                      "--vary", "Defender.hp=5:60", "--target",
                      "median_time_to_down:Defender=3")  # fmt: skip
    assert "Consistent with the target: Defender.hp = 7..9" in text


def test_tune_says_a_median_not_reached_rather_than_inf(monkeypatch: pytest.MonkeyPatch) -> None:
    """A median time-to-down that half of the encounters never reach was printed ``inf``;
    it is ``not reached`` in the table, and the closing line says that no value gave a
    median to hold the target against (it said "closest: … gives not reached")."""
    from rich.console import Console

    monkeypatch.setattr(terminal, "console", Console(width=80, force_terminal=False))
    done = CliRunner().invoke(main, ["tune", str(PLATE), "--vary", "Plate Knight.hp=40:100",
                                     "--target", "median_time_to_down:Plate Knight=2",
                                     "--set", "max_rounds=2", "-n", "500"])  # fmt: skip
    assert done.exit_code == 1, done.output  # unreachable
    assert "inf" not in done.output, done.output
    assert re.search(r"^ 40  ◀ +not reached +simulated", done.output, re.M), done.output
    assert ("median_time_to_down:Plate Knight was measured at no value of Plate Knight.hp "
            "tried (40..100)") in " ".join(done.output.split())  # fmt: skip


def test_compare_of_a_fight_counts_its_unchanged_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fight shares dozens of figures: the terminal lists the changed ones and counts
    the unchanged ones by kind; each figure is either listed or counted."""
    from simlab.report.tuning_terminal import MOST_UNCHANGED_LISTED

    text = _run_at_80(monkeypatch, "compare", ROOT / "scenarios/benchmarks/ss-2v2.yaml",
                      "--set", "max_rounds=3", "-n", 4000)  # fmt: skip
    flat = " ".join(text.split())
    found = re.search(r"Not listed, (\d+) unchanged figures \(their paired intervals contain "
                      r"0\): ([^;]+);", flat)  # fmt: skip
    assert found, text
    counted = int(found.group(1))
    assert counted > MOST_UNCHANGED_LISTED
    assert counted == sum(int(n) for n in re.findall(r" (\d+)(?:,|$)", found.group(2)))
    listed = [line for line in text.splitlines() if line.lstrip().startswith("✱")]
    assert listed and all(line.split()[0] in ("✱", "✱✱") for line in listed)


def test_field_heading_breaks_after_dots_underscores_and_hyphens() -> None:
    """A part longer than the width keeps a line of its own, and no empty line follows
    the last one (it pushed the heading a line above its neighbours')."""
    from simlab.report.tuning_terminal import field_heading

    assert field_heading("Plate Knight.bonus_defense", 6) == "Plate Knight.\nbonus_\ndefense"
    assert field_heading("stone-strike.profile[9]", 6) == "stone-\nstrike.\nprofile[9]"
    assert field_heading("Orc.hp", 6) == "Orc.hp"


def test_compare_shows_a_marked_difference_with_an_interval_that_excludes_0(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A difference whose paired interval excludes 0 (marked ✱) was printed to the
    interval's decimals with its half-width rounded up, ``+0.05 ± 0.06``: as printed it
    reached past 0. It gets the decimals that keep it on its side of 0, off 0 itself
    (``+0.008 ± 0.008`` reads as an interval that holds 0)."""
    import pandas as pd

    frame = pd.DataFrame({
        "figure": ["mean_damage", "mean_damage"],
        "on": ["Archer shortbow → Raider 3", "Raider 1 club → Lancer"],
        "a": [2.3113, 2.4530], "b": [2.3661, 2.4163], "diff": [0.0548, -0.0367],
        "diff_ci_lo": [0.0039, -0.0688], "diff_ci_hi": [0.1057, -0.0046],
        "diff_ci_independent_lo": [-0.03, -0.17], "diff_ci_independent_hi": [0.14, 0.1],
        "changed": True, "changed_holm": False, "narrowing": [1.5, 4.1],
    })  # fmt: skip
    text = _compare_at_80(monkeypatch, frame)
    shown = re.findall(r"([+-][\d.]+) ± ([\d.]+)", text)
    assert len(shown) == 2, text
    for diff, half in shown:
        assert abs(float(diff)) > float(half), (diff, half)


def test_a_difference_that_rounds_to_zero_has_no_sign(monkeypatch: pytest.MonkeyPatch) -> None:
    """A difference of -0.0003 shown to three decimals printed ``-0.000`` (Python 3.10
    has no ``z`` format option): in the terminal's table, on the page and in every
    interval bound, a number that reads as zero reads ``0.000``, whatever its sign."""
    import pandas as pd

    from simlab.report.terminal import bounds, decimals, formatted

    assert formatted(-0.0003, "+.3f") == formatted(0.0001, "+.3f") == "0.000"
    assert formatted(-0.0, ".4g") == "0" and formatted(-0.002, "+.3f") == "-0.002"
    assert decimals(-0.00004, 4) == "0.0000"  # the page's A, B and diff columns
    assert bounds(-0.004, -0.00001, 3, sign="+") == "[-0.004, 0.000]"
    frame = pd.DataFrame({
        "figure": ["mean_damage"], "on": ["Kaito quick-jab → Brute"],
        "a": [1.3878], "b": [1.3875], "diff": [-0.0003],
        "diff_ci_lo": [-0.0033], "diff_ci_hi": [0.0027],
        "diff_ci_independent_lo": [-0.008], "diff_ci_independent_hi": [0.007],
        "changed": [False], "changed_holm": [False], "narrowing": [2.7],
    })  # fmt: skip
    text = _compare_at_80(monkeypatch, frame)
    assert " 0.000 ± 0.004 " in text and "-0.0" not in text, text


def test_a_sweep_of_three_long_fields_stacks_its_points_in_80_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three varied fields with long names took a column each, and the time-to-down
    table ran past 80 columns: its edge cut the median, ``not reache``. Where a column
    per field does not fit, each point's values share one column, ``20 · 1 · 1d8``,
    named field by field in a line above the tables; every figure is whole."""
    text = _run_at_80(monkeypatch, "sweep", PLATE, "--vary", "Plate Knight.hp=20,30",
                      "--vary", "Plate Knight.bonus_defense=0,1",
                      "--vary", "longsword.damage=1d8,1d10", "-n", 2000)  # fmt: skip
    assert "point: Plate Knight.hp · Plate Knight.bonus_defense · longsword.damage" in text
    assert re.search(r"^ Swordsman +20 · 0 · 1d8 +[\d.]+ ± ", text, re.M), text
    assert text.count("not reached") == len(re.findall(r"not reache", text)) > 0, text
    heading = _heading_cells(text[text.index("time-to-down (rounds") :])
    assert heading[-1] == ["combatant", "point", "down rate", "downed", "median"], heading


def test_compare_breaks_a_pair_too_long_for_its_column_after_the_arrow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the numbers leave the pair column less room than ``Bruna warhammer → Ghoul
    2`` (four decimals), the pair breaks after its arrow: the defender's name stays
    whole on the second line (a wrap inside the column left ``Ghoul`` and ``2`` apart)."""
    import pandas as pd

    frame = pd.DataFrame({
        "figure": ["mean_time_to_down", "crit_rate"],
        "on": ["Ghoul 2", "Bruna warhammer → Ghoul 2"],
        "a": [2.86, 0.0496], "b": [5.23, 0.0492], "diff": [2.37, -0.0004],
        "diff_ci_lo": [2.33, -0.0007], "diff_ci_hi": [2.41, -0.0001],
        "diff_ci_independent_lo": [2.3, -0.002], "diff_ci_independent_hi": [2.44, 0.001],
        "changed": [True, True], "changed_holm": [True, False], "narrowing": [1.1, 5.3],
    })  # fmt: skip
    lines = _compare_at_80(monkeypatch, frame).splitlines()
    assert max(len(line) for line in lines) <= 80, lines
    row = next(k for k, line in enumerate(lines) if re.match(r"✱\s+crit rate", line))
    assert lines[row].split()[3:6] == ["Bruna", "warhammer", "→"], lines
    assert lines[row + 1].split() == ["Ghoul", "2"], lines


@pytest.mark.parametrize("width", [84, 76])
def test_compare_breaks_its_long_pairs_before_its_differences(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    """Walkthrough: a fight's comparison at 80 columns put every row's difference on two
    lines (``-0.100`` / ``± 0.005``), the table twice as tall, its ``on`` column as wide
    as ``Scout shortbow → Raider Chief``. A long pair breaks first, after its arrow (at
    76 columns, where the pair has less room than a figure's name, before its attack
    too), and every difference keeps to its line (the columns two spaces apart)."""
    import pandas as pd

    frame = pd.DataFrame({
        "figure": ["down_rate", "mean_time_to_down", "hit_rate", "crit_rate"],
        "on": ["Warden", "Raider Chief", "Scout shortbow → Raider Chief",
               "Warden longsword → Raider Chief"],
        "a": [0.252, 16.59, 0.293, 0.0669], "b": [0.152, 17.17, 0.296, 0.0675],
        "diff": [-0.100, 0.57, 0.0033, 0.00058],
        "diff_ci_lo": [-0.105, 0.52, 0.0014, 0.00001],
        "diff_ci_hi": [-0.095, 0.62, 0.0052, 0.00115],
        "diff_ci_independent_lo": [-0.11, 0.4, -0.008, -0.002],
        "diff_ci_independent_hi": [-0.09, 0.7, 0.014, 0.003],
        "changed": [True] * 4, "changed_holm": [True, True, False, False],
        "narrowing": [2.1, 2.7, 5.8, 4.0],
    })  # fmt: skip
    from rich.console import Console

    from simlab.report.tuning_terminal import compare_table

    pairs = {
        "Scout shortbow → Raider Chief": ("Scout", "shortbow", "Raider Chief"),
        "Warden longsword → Raider Chief": ("Warden", "longsword", "Raider Chief"),
    }
    console = Console(width=width, force_terminal=False, record=True)
    monkeypatch.setattr(terminal, "console", console)
    console.print(compare_table(frame, pairs))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= width, lines
    rows = [line for line in lines if line.startswith("✱")]
    differences = [" ".join(row.split()[-4:-1]) for row in rows]
    assert differences == ["-0.100 ± 0.005", "+0.57 ± 0.05", "+0.0033 ± 0.0019",
                           "+0.00058 ± 0.00057"], lines  # fmt: skip
    pairs = [" / ".join(" ".join(line.split()) for line in cell)
             for cell in _pair_cells(lines)[2:]]  # fmt: skip
    assert pairs == ({84: ["Scout shortbow → / Raider Chief",
                           "Warden longsword → / Raider Chief"],
                      76: ["Scout / shortbow → / Raider Chief",
                           "Warden / longsword → / Raider Chief"]}[width]), lines  # fmt: skip


def _pair_cells(lines: list[str]) -> list[list[str]]:
    """The lines of each row's pair in a narrow comparison table (``lines``), its first
    line's A, B, difference and × left off."""
    cells: list[list[str]] = []
    for line in lines:
        if line.startswith("✱"):
            cells.append([" ".join(line[2:].split()[2:-6])])
        elif cells and line.strip():
            cells[-1].append(line.strip())
    return cells


#: An attack named with spaces, whose last word compare took for the attack.
GREATSWORD = "two-handed executioner's greatsword"


def test_compare_breaks_a_pair_between_its_names_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough: compare's ``on`` column broke a pair before the last word ahead of
    its arrow, taken for the attack: ``Brute two-handed executioner's`` / ``greatsword
    → Kaito``. At 80 columns the attack's name stays whole, the pair broken between its
    attacker, attack and defender only, and every figure of the pair is printed."""
    monkeypatch.chdir(tmp_path)  # a short path: the heading's line keeps to 80 columns
    Path("duel.yaml").write_text(QUICKSTART.read_text().replace("stone-strike", GREATSWORD))
    text = _run_at_80(monkeypatch, "compare", "duel.yaml", "--set", "Brute.hp=40", "-n", 2000)
    named = [line for line in text.splitlines() if "two-handed" in line or "greatsword" in line]
    assert len(named) >= 3 and all(GREATSWORD in line for line in named), text
    rows = r"^ ?✱?✱? +(hit|crit) rate +Brute\b"  # the attack on its line, or beside
    for header in ("A", "B", "diff", "×"):
        cells = column_cells(text, header, rows)
        assert len(cells) == 2 and all(cells), (header, text)


def test_a_heading_line_breaks_between_its_items_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A heading too long for 80 columns was broken at any space: ``… · 1,000 encounters
    · seed`` with ``1`` alone below, ``varied: Plate`` / ``Knight.hp, …``. It breaks only
    after a `` · `` (the line then ends without it) or a ``, ``, the later lines
    indented: never inside ``label value`` nor inside a name."""
    run = _run_at_80(monkeypatch, "run", ROOT / "scenarios/benchmarks/ss-duel.yaml", "-n", 1000,
                     "--set", "max_rounds=50")  # fmt: skip
    assert run.splitlines()[1:3] == [
        "ss-duel · with max_rounds=50 · rules shattered-spirits · 1,000 encounters",
        "  seed 1",
    ], run
    sweep = _run_at_80(monkeypatch, "sweep", PLATE, "--vary", "Plate Knight.hp=20:24:4",
                       "--vary", "Swordsman.hp=20,24", "--vary", "Plate Knight.bonus_defense=1,2",
                       "-n", 500)  # fmt: skip
    assert sweep.splitlines()[1:4] == [
        "longsword-vs-plate · 500 encounters per point · seed 4",
        "  varied: Plate Knight.hp, Swordsman.hp, Plate Knight.bonus_defense",
        "point: Plate Knight.hp · Swordsman.hp · Plate Knight.bonus_defense",
    ], sweep
    assert not broken_names(sweep, ["Plate Knight"]), sweep


def test_a_sweep_never_breaks_a_name_in_a_column_heading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two fields of the Plate Knight: the combatants' table headed a field's column
    ``Plate`` / ``Knight.`` / ``hp``, the name broken at its space. A field's heading
    breaks after a dot, an underscore or a hyphen only; where the columns do not fit so,
    each point's values share one column, the fields named whole above the tables."""
    text = _run_at_80(monkeypatch, "sweep", PLATE, "--vary", "Plate Knight.hp=20,30",
                      "--vary", "Plate Knight.bonus_defense=0:1", "-n", 500)  # fmt: skip
    assert not broken_names(text, ["Plate Knight"]), text
    assert "point: Plate Knight.hp · Plate Knight.bonus_defense" in text


def _compare_rows(text: str) -> list[str]:
    """The rows of the comparison table in ``text``, each with its lines joined (a pair
    broken after its arrow continues on the lines below its row's first)."""
    from simlab.report.tuning_terminal import FIGURE_LABELS

    labels = "|".join(re.escape(label) for label in sorted(FIGURE_LABELS.values(), key=len,
                                                             reverse=True))  # fmt: skip
    starts = re.compile(rf"^\s*(✱✱|✱)?\s*({labels})\s")
    lines = text.splitlines()
    rule = next(k for k, line in enumerate(lines) if set(line.strip()) == {"─"})
    rows: list[str] = []
    for line in lines[rule + 1 :]:
        if starts.match(line) or not rows:
            rows.append(line)
        else:
            rows[-1] += f" {line}"
    return rows


def _numbers(row: str) -> list[str]:
    """Every number printed in a row of a table, as printed."""
    return re.findall(r"[+-]?\d[\d,]*\.?\d*(?:e[+-]?\d+)?", row)


@pytest.fixture(scope="module")
def comparisons(duel: Any) -> list[Any]:
    """The figures the terminal lists of two real comparisons: the duel's row 9 raised
    to 8 and a fight's Warden at 30 HP (pairs of up to 31 characters)."""
    from simlab.report.tuning_terminal import shown_figures

    fight = simlab.load(ROOT / "scenarios/opposed-tiers/party-fight.yaml")
    return [shown_figures(simlab.compare(duel, changes={"strike.profile[9]": 8},
                                         n=20_000).figures)[0],
            shown_figures(simlab.compare(fight, changes={"Warden.hp": 30},
                                         n=5_000).figures)[0]]  # fmt: skip


def test_compare_cuts_no_number_at_any_width_from_80_to_200(comparisons: list[Any]) -> None:
    """At exactly 110 columns the wide layout was one column too wide and rich cut its
    last column: ``4.`` for ``4.0``, ``narrowe``. At every width every number
    reads as it does at 200 columns (the independent interval only where it is shown),
    and from 110 to 120 columns the duel's pair keeps to at most two lines."""
    from rich.console import Console

    from simlab.report.tuning_terminal import compare_table

    saved = terminal.console
    try:
        shown = []  # each frame's text at each width
        for frame in comparisons:
            texts = {}
            # every width where a layout can change (up to 140), then every tenth
            for width in (200, *range(80, 141), *range(150, 200, 10)):
                terminal.console = Console(width=width, force_terminal=False, record=True)
                terminal.console.print(compare_table(frame))
                texts[width] = terminal.console.export_text()
            shown.append(texts)
            widest = _compare_rows(texts[200])
            assert len(widest) == len(frame)
            for width, text in texts.items():
                rows = _compare_rows(text)
                assert "×" in text and len(rows) == len(frame), (width, text)
                wide = "independent 95%" in text
                for row, whole in zip(rows, widest, strict=True):
                    expected = whole if wide else re.sub(r"\[[^[]*\]([^[]*)$", r"\1", whole)
                    assert sorted(_numbers(row)) == sorted(_numbers(expected)), (width, row, whole)
        for width in range(110, 121):
            text = shown[0][width]
            assert "independent 95%" in text
            assert "Attacker strike →" in text and "          strike →" not in text, text
    finally:
        terminal.console = saved


#: A combatant's name of 39 characters (re-check of the fixed tables: 34 and more).
GRAND_DUKE = "Grand Duke Ferdinand of the Sunken Keep"


@pytest.mark.parametrize("width", [80, 73])
def test_compare_prints_every_column_beside_a_long_name(monkeypatch: pytest.MonkeyPatch,
                                                        width: int) -> None:  # fmt: skip
    """Re-check: ``simlab compare`` of a combatant named with 39 characters lost its
    ``diff`` and ``×`` columns at 80 columns. Each difference goes on two lines there,
    value over interval, and where even so the table would not fit (73 columns), each
    name heads a row of its own and a figure's A, B, diff and × go side by side on the
    row under its names, in one table (they went on in three further tables, a column
    each): every figure's A, B, diff and × printed."""

    from simlab.report.tuning_terminal import (
        FIGURE_LABELS,
        print_compare,
        shown_figures,
        times_narrower,
    )

    scenario = simlab.loads(QUICKSTART.read_text(encoding="utf-8").replace("Kaito", GRAND_DUKE))
    comparison = simlab.compare(scenario, changes={f"{GRAND_DUKE}.hp": 26}, n=2000)
    text = printed_at(lambda: print_compare(comparison), width)
    assert max(len(line) for line in text.splitlines()) <= width, text
    assert not broken_names(text, [GRAND_DUKE]), text
    listed = shown_figures(comparison.figures)[0]
    labels = "|".join(re.escape(label) for label in FIGURE_LABELS.values())
    rows = rf"^ ?(✱✱|✱)? *({labels}) "
    if width == 73:  # the figures on the row under the names, ten spaces in at least
        assert text.count("A/B on the same dice") == 1, text
        assert re.search(r"^ +on +A +B +diff +×$", text, re.M), text
        figures = [line.split() for line in text.splitlines() if re.match(r"^ {10,}\S", line)]
        assert [cells[-1] for cells in figures] == [times_narrower(r) for r in listed.narrowing]
        assert all(len(cells) >= 4 for cells in figures), text  # A, B, diff, ×
        return
    assert column_cells(text, "×", rows) == [times_narrower(r) for r in listed.narrowing], text
    for header in ("A", "B", "diff"):
        cells = column_cells(text, header, rows)
        assert len(cells) == len(listed) and all(cells), (header, text)


@pytest.mark.parametrize("width", [80, 73])
def test_a_sweep_prints_every_column_of_every_table_beside_long_names(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    """Re-check: a sweep of the training duel with names of 34–39 characters lost the
    time-to-down table's median and exact columns at 80 columns, and the unchanged
    pairs' exact mean. Where a table does not fit even with one ``point`` column, its
    figures break between value and interval and its columns go on in a further table
    under its names and points: every figure of every table printed."""

    from simlab.report.terminal import exact_number
    from simlab.report.tuning_terminal import never_attacked, never_winning, print_sweep

    dummy = "Straw Effigy of the Drowned Chapel"
    text = (ROOT / "scenarios/glitters-d20/training-duel.yaml").read_text(encoding="utf-8")
    for old, new in {"Fighter": GRAND_DUKE, "warhammer": "two-handed executioner's greatsword",
                     "Dummy": dummy}.items():  # fmt: skip
        text = text.replace(old, new)
    sweep = simlab.sweep(simlab.loads(text), {f"{dummy}.hp": [50, 60]}, n=1000, seed=1)
    printed = printed_at(lambda: print_sweep(sweep), width)
    assert max(len(line) for line in printed.splitlines()) <= width, printed
    assert not broken_names(printed, [GRAND_DUKE, dummy]), printed
    flat = printed[printed.index("unchanged across") : printed.index("time-to-down (rounds")]
    pairs = sweep.attacks().drop_duplicates(["attacker", "attack", "defender"])
    exact = [exact_number(v) for v in pairs.exact_mean_damage]
    assert column_cells(flat, "mean", rf"^ ?{GRAND_DUKE}:") == exact, flat
    assert len(column_cells(flat, "damage", rf"^ ?{GRAND_DUKE}:")) == len(pairs), flat
    downs = printed[printed.index("time-to-down (rounds") : printed.index("Every point ran")]
    points = r"^.* (50|60) "
    combatants = sweep.combatants()  # but the Grand Duke, whom no one attacks: not listed
    combatants = combatants[~combatants.combatant.isin(never_attacked(sweep))]
    assert never_attacked(sweep) == [GRAND_DUKE]
    by_combatant = combatants.groupby("combatant", sort=False)
    exact = [exact_number(v) for _, rows in by_combatant for v in rows.exact_mean_time_to_down]
    assert column_cells(downs, "mean", points) == exact, downs
    for header in ("rate", "downed", "median"):
        cells = column_cells(downs, header, points)
        assert len(cells) == len(combatants) and all(cells), (header, downs)
    sides = printed[printed.index("outcome (") :]  # but the dummy's, which never attacks
    shown = sweep.sides()[~sweep.sides().side.isin(never_winning(sweep))]
    assert never_winning(sweep) == ["dummy"]
    assert len(column_cells(sides, "rate", points)) == len(shown), sides


def test_a_sweep_marks_the_crit_rate_of_an_attack_that_never_crits() -> None:
    """The unchanged pairs' table gave the quickstart's quick-jab, which cannot crit, a
    crit rate of ``0.000`` beside the stone-strike's ``0.083``, where a run's table says
    ``—`` and why. It says ``—`` and the note under the tables says why; a crit rate
    that is measured keeps its number."""
    from simlab.report.tuning_terminal import print_sweep

    sweep = simlab.sweep(simlab.load(QUICKSTART), {"Brute.hp": [28, 32]}, n=300)
    text = printed_at(lambda: print_sweep(sweep))
    flat = text[text.index("unchanged across") : text.index("time-to-down (rounds")]
    assert column_cells(flat, "rate", r"^ ?Kaito: quick-jab")[-1] == "—", flat
    assert column_cells(flat, "rate", r"^ ?Brute: stone-strike")[-1] not in ("—", "0.000"), flat
    note = " ".join(text[text.index("Every point ran") :].split())
    assert "Crit rate —: the attack cannot crit (its profile has no crit row)." in note, note


@pytest.mark.parametrize("width", [200, 80, 60])
def test_compare_s_heading_starts_a_and_b_each_on_a_line_of_its_own(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compare's heading broken over lines printed ``A: <path>`` and then, indented,
    ``  B: <label> (1,000 encounters each, …``, as if B were part of A: where it does
    not fit on one line, A and B each start a line at the same indent, what follows B
    after it; where it fits, it keeps one line."""
    from simlab.report.tuning_terminal import print_compare

    monkeypatch.chdir(ROOT)
    path = "scenarios/shattered-spirits/quickstart.yaml"
    ab = simlab.compare(path, changes={"Kaito.guard": 2}, n=1000)
    lines = printed_at(lambda: print_compare(ab), width).splitlines()
    how = "(1,000 encounters each, the same dice; intervals from 32 paired ranges)"
    one = f"A: {path} · B: quickstart with Kaito.guard=2 {how}"
    if width >= len(one):
        assert lines[0].rstrip() == one, lines
        return
    assert lines[0].rstrip() == f"A: {path}", lines
    assert lines[1].startswith("B: quickstart with Kaito.guard=2 ("), lines
    end = next(k for k, line in enumerate(lines) if "paired ranges)" in line)
    assert all(line.startswith("  ") for line in lines[2 : end + 1]), lines
    assert " ".join(line.strip() for line in lines[1 : end + 1]) == one.split(" · ")[1], lines


@pytest.mark.parametrize("width", [80, 60])
def test_a_heading_broken_at_a_separator_ends_no_line_with_it(width: int) -> None:
    """The sweep's heading ended a line with a stray `` ·`` (``seed 7 ·`` over
    ``varied: Kaito.guard, Brute.hp``), as did compare's (``A: … ·`` over ``B: …``): the
    line break parts the items there, the dot between them is dropped."""
    from simlab.report.tuning_terminal import print_compare, print_sweep

    quickstart = simlab.load(QUICKSTART).with_({"Kaito.hp": 30})
    sw = simlab.sweep(quickstart, {"Kaito.guard": [0, 1], "Brute.hp": [20, 30]}, n=1000,
                      exact=False)  # fmt: skip
    ab = simlab.compare(QUICKSTART, changes={"Kaito.guard": 2}, n=1000)
    for shown in (printed_at(lambda: print_sweep(sw), width),
                  printed_at(lambda: print_compare(ab), width)):  # fmt: skip
        heading = shown.splitlines()[:3]
        assert not [line for line in heading if line.rstrip().endswith("·")], heading
    top = printed_at(lambda: print_sweep(sw), width).splitlines()[:2]
    assert " · ".join(line.strip() for line in top) == (
        "quickstart · with Kaito.hp=30 · 1,000 encounters per point · seed 7 · "
        "varied: Kaito.guard, Brute.hp"
    ), top
