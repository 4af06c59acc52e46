"""A/B comparisons: same dice, paired intervals of every difference."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import simlab
from simlab.api import compile_job
from simlab.cli import main
from simlab.engine import runner
from simlab.errors import InputError
from simlab.tuning.compare import range_edges, run_ranges
from tests.tuning.cases import SS_DUEL

ROW9 = {"strike.profile[9]": 8}


@pytest.mark.parametrize("threads", [1, 2])
def test_ranges_merge_to_the_normal_run(fight: Any, threads: int) -> None:
    """The K ranges a comparison plays are the whole run, bit for bit."""
    job = compile_job(fight, 7_777, 3)
    parts = run_ranges(job, 32, threads)
    whole = runner.run_local(job, threads=1, block_size=1000)
    for k, array in enumerate(whole):
        np.testing.assert_array_equal(sum(p[k] for p in parts), array)


def test_range_edges_cover_everything_once() -> None:
    for n, k in ((100, 32), (5, 32), (1_000_003, 32)):
        edges = range_edges(n, k)
        assert edges[0][0] == 0 and sum(c for _, c in edges) == n
        assert all(a + c == b for (a, c), (b, _) in itertools.pairwise(edges))
        assert max(c for _, c in edges) - min(c for _, c in edges) <= 1


def test_row9_comparison_meets_the_bar(duel: Any) -> None:
    """The bar: raising row 9 from 6 to 8 shortens the defender's mean time-to-down; the
    paired interval excludes 0 and is at least 3x narrower than the independent one."""
    cmp = simlab.compare(duel, changes=ROW9, n=200_000)
    row = cmp.figures.query("figure == 'mean_time_to_down' and on == 'Defender'").iloc[0]
    assert row["diff"] < 0 and row.diff_ci_hi < 0 and row.changed
    paired = row.diff_ci_hi - row.diff_ci_lo
    independent = row.diff_ci_independent_hi - row.diff_ci_independent_lo
    assert independent >= 3 * paired, (paired, independent)
    assert cmp.figures.changed.iloc[0]  # changed figures come first


def test_holm_marks_what_holds_across_all_figures(fight: Any) -> None:
    """Each figure's p-value is below 0.05 exactly when its paired interval excludes 0;
    Holm's adjustment over all of them is never below it, and only figures changed one
    by one can hold after it. A 2v2 fight with the Brutes' HP raised: their down rates
    move a lot, and hold."""
    cmp = simlab.compare(fight, changes={"Brute.hp": 40}, n=20_000)
    f = cmp.figures.dropna(subset=["p"])
    assert ((f.p < 0.05) == f.changed).all()
    assert (f.p_holm >= f.p).all() and (f.p_holm <= 1).all()
    assert not (f.changed_holm & ~f.changed).any()
    brutes = f[(f.figure == "down_rate") & f.on.str.startswith("Brute")]
    assert len(brutes) == 2 and brutes.changed_holm.all()
    expected = np.minimum(1, np.maximum.accumulate(np.sort(f.p) * (len(f) - np.arange(len(f)))))
    np.testing.assert_allclose(np.sort(f.p_holm), expected)


def test_paired_interval_covers_the_exact_difference(duel: Any) -> None:
    """The exact engine knows both means: their difference lies within 4.5 paired
    standard errors of the simulated difference."""
    b = duel.with_(ROW9)
    cmp = simlab.compare(duel, b, n=100_000)
    exact = [simlab.exact(s).attacks().mean_damage.iloc[0] for s in (duel, b)]
    row = cmp.figures.query("figure == 'mean_damage'").iloc[0]
    se = (row.diff_ci_hi - row.diff_ci_lo) / (2 * 2.0395)  # t(0.975, 31)
    assert abs(row["diff"] - (exact[1] - exact[0])) < 4.5 * se
    assert exact[1] - exact[0] == pytest.approx(2 * 4 / 36)  # row 9 has 4 of 36 outcomes


def test_same_scenario_has_no_difference(duel: Any) -> None:
    cmp = simlab.compare(duel, duel, n=5000)
    assert (cmp.figures["diff"].fillna(0) == 0).all()
    assert not cmp.figures.changed.any()
    assert cmp.figures.narrowing.isna().all()  # no paired width to compare: not ∞
    _tallies = [cmp.a.tallies, cmp.b.tallies]
    for x, y in zip(*_tallies, strict=True):
        np.testing.assert_array_equal(x, y)


def test_a_changed_scenario_compared_in_python_is_named_with_its_changes(
    tmp_path: Path, duel: Any
) -> None:
    """``simlab.compare(duel, duel.with_(...))``, the README's own example: the repr,
    compare.md and compare.json named B ``ss-duel`` like A, and compare.json kept no
    overrides, so that the page did not say what was compared. B is named with its
    changes, as the command line's ``--set`` names it, and compare.json lists them."""
    ab = simlab.compare(duel, duel.with_({"strike.profile[9]": 8}), n=2000)
    assert ab.labels == ("ss-duel", "ss-duel with strike.profile[9]=8")
    assert "vs ss-duel with strike.profile[9]=8 ·" in repr(ab)
    simlab.write_compare(ab, tmp_path / "py")
    doc = json.loads((tmp_path / "py/compare.json").read_text())
    assert doc["b"] == "ss-duel with strike.profile[9]=8"
    assert doc["overrides"] == {"a": [], "b": ["strike.profile[9]=8"]}
    assert "B: ss-duel with strike.profile[9]=8" in (tmp_path / "py/compare.md").read_text()
    cli = CliRunner().invoke(main, ["compare", str(SS_DUEL), "--set", "strike.profile[9]=8",
                                    "-n", "2000", "--out", str(tmp_path / "cli")])  # fmt: skip
    assert cli.exit_code == 0, cli.output
    cli_doc = json.loads((tmp_path / "cli/compare.json").read_text())
    assert cli_doc["overrides"] == doc["overrides"] and cli_doc["figures"] == doc["figures"]
    plain = simlab.compare(duel, changes={"Defender.guard": 2}, n=200).document()
    assert plain["overrides"] == {"a": [], "b": ["Defender.guard=2"]}
    assert "overrides" not in simlab.compare(duel, duel, n=200).document()


def test_every_way_of_asking_for_a_changed_b_names_it_alike(tmp_path: Path, duel: Any) -> None:
    """Walkthrough: ``simlab compare A --set 'strike.profile[9]=8'`` and
    ``simlab.compare(duel, changes=...)`` named B ``strike.profile[9]=8`` (the terminal,
    compare.json's ``"b"``, the repr), where ``simlab.compare(duel, duel.with_(...))``
    named it ``ss-duel with strike.profile[9]=8``, as the README says. Every way names
    it by the scenario's id with the changes it carries."""
    named = "ss-duel with strike.profile[9]=8"
    ways = [simlab.compare(duel, duel.with_(ROW9), n=200, ranges=4),
            simlab.compare(duel, changes=ROW9, n=200, ranges=4),
            simlab.compare(SS_DUEL, changes="strike.profile[9]=8", n=200, ranges=4)]  # fmt: skip
    assert [ab.labels[1] for ab in ways] == [named] * 3
    assert all(f" vs {named} · " in repr(ab) for ab in ways)
    cli = CliRunner().invoke(main, ["compare", str(SS_DUEL), "--set", "strike.profile[9]=8",
                                    "-n", "200", "--out", str(tmp_path)])  # fmt: skip
    assert cli.exit_code == 0, cli.output
    assert f"B: {named}" in " ".join(cli.output.split()), cli.output
    assert json.loads((tmp_path / "compare.json").read_text())["b"] == named
    assert f"B: {named}" in (tmp_path / "compare.md").read_text()


PARTY = SS_DUEL.parents[1] / "glitters-d20/party-vs-monsters.yaml"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([str(PARTY), "--set", "Bruna.hp=32"],
         "B is identical to A: Bruna.hp is already 32, so Bruna.hp=32 changes nothing."),
        ([str(SS_DUEL), str(SS_DUEL)], "B is identical to A (the same scenario): every "
         "difference is 0."),
    ],
)  # fmt: skip
def test_a_b_identical_to_a_is_said_so(tmp_path: Path, args: list[str], said: str) -> None:
    """Bruna's HP is 32 in the file: ``--set Bruna.hp=32`` compared A with itself and
    said nothing of it; the same file twice showed ``∞`` under × for the figures whose
    paired interval has no width; and both printed the legend of ✱ and ✱✱, which no row
    had."""
    done = CliRunner().invoke(main, ["compare", *args, "-n", "2000", "--out", str(tmp_path)])
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert said in text
    assert "✱" not in done.output and "∞" not in done.output
    assert said in (tmp_path / "compare.md").read_text()
    changed = CliRunner().invoke(main, ["compare", str(SS_DUEL), "--set", "strike.profile[9]=8",
                                        "-n", "2000"])  # fmt: skip
    assert "identical" not in changed.output and "✱ changed: the paired" in changed.output


def test_a_set_that_makes_b_file_equal_to_a_is_not_said_to_change_nothing(
    tmp_path: Path,
) -> None:
    """Walkthrough: ``compare A.yaml B.yaml --set strike.profile[9]=6``, where B's file
    has 8 in row 9 and A's 6, said "strike.profile[9] is already 6, so
    strike.profile[9]=6 changes nothing": the override changed B's file, from 8 to 6,
    and that made B the same scenario as A."""
    copy = tmp_path / "row9.yaml"
    copy.write_text(SS_DUEL.read_text().replace("5, 6, 7, 8, 10]", "5, 8, 7, 8, 10]"))
    done = CliRunner().invoke(main, ["compare", str(SS_DUEL), str(copy), "--set",
                                     "strike.profile[9]=6", "-n", "200",
                                     "--out", str(tmp_path / "out")])  # fmt: skip
    assert done.exit_code == 0, done.output
    said = (
        "B is identical to A: strike.profile[9]=6 makes B's file the same scenario "
        "as A, so every difference is 0."
    )
    assert said in " ".join(done.output.split())
    assert "already" not in done.output
    assert said in (tmp_path / "out/compare.md").read_text()
    b = simlab.load(copy).with_({"strike.profile[9]": 6})
    assert said.removesuffix(".") in repr(simlab.compare(simlab.load(SS_DUEL), b, n=200))


def test_cli_compare_file_and_set_agree(tmp_path: Path) -> None:
    """`compare A B` with B the edited copy equals `compare A --set ...`; compare.json."""
    copy = tmp_path / "row9.yaml"
    copy.write_text(SS_DUEL.read_text().replace("5, 6, 7, 8, 10]", "5, 8, 7, 8, 10]"))
    cli = CliRunner()
    files = cli.invoke(main, ["compare", str(SS_DUEL), str(copy), "-n", "20000",
                              "--out", str(tmp_path / "files")])  # fmt: skip
    sets = cli.invoke(main, ["compare", str(SS_DUEL), "--set", "strike.profile[9]=8",
                             "-n", "20000", "--out", str(tmp_path / "sets")])  # fmt: skip
    assert files.exit_code == 0 and sets.exit_code == 0, files.output + sets.output
    a = json.loads((tmp_path / "files/compare.json").read_text())
    b = json.loads((tmp_path / "sets/compare.json").read_text())
    assert a["figures"] == b["figures"]
    first = a["figures"][0]
    assert set(first) >= {"figure", "on", "a", "b", "diff", "diff_ci", "diff_ci_independent"}
    assert first["changed"]
    for name in ("compare.html", "compare.md"):
        text = (tmp_path / "files" / name).read_text()
        assert "CHANGED" in text and "paired" in text
    assert text.index("| CHANGED |") < text.index("| same |")


def test_cli_compare_says_which_of_bs_own_settings_it_did_not_use(tmp_path: Path) -> None:
    """B's own ``seed:`` and ``encounters:`` give way to A's (the same dice); the command
    says so, and says nothing of a setting given on the command line."""
    other = tmp_path / "other-seed.yaml"
    text = SS_DUEL.read_text()
    other.write_text(text.replace("seed: 1\n", "seed: 7\n").replace("1_000_000", "5_000"))
    cli = CliRunner()
    done = cli.invoke(main, ["compare", str(SS_DUEL), str(other), "-n", "2000"])
    assert done.exit_code == 0, done.output
    note = "note: B's own seed (7) was not used; both ran on A's (1), on the same dice"
    assert note in done.output
    assert "encounters" not in done.output.split("note:")[1]  # -n was given
    given = cli.invoke(main, ["compare", str(SS_DUEL), str(other), "-n", "2000", "--seed", "3"])
    assert given.exit_code == 0 and "note:" not in given.output, given.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--set", "strike.profile[1]=3"], "--set strike.profile[1]=3: expected a row"),
        (["--set", "Defender.guard=two"], "--set Defender.guard=two: expected an integer"),
        ([], "expected a second scenario B or --set"),
        (["--set", "Defender.guard=2", "-n", "1"], "expected at least 2 encounters for a "
                                                   "comparison"),
    ],
)  # fmt: skip
def test_bad_compare_exits_2_writes_nothing(tmp_path: Path, args: list[str], words: str) -> None:
    out = tmp_path / "out"
    n = [] if "-n" in args else ["-n", "100"]
    done = CliRunner().invoke(main, ["compare", str(SS_DUEL), *args, *n,
                                     "--out", str(out)])  # fmt: skip
    assert done.exit_code == 2 and words in done.output, done.output
    assert not out.exists()


@pytest.mark.slow
def test_paired_interval_coverage_over_seeds(duel: Any) -> None:
    """The paired 95% interval of the mean-damage difference covers the exact difference
    in about 95% of seeds: over 200 seeds the count is within 4.5 binomial standard
    errors of 190."""
    b = duel.with_(ROW9)
    exact = (
        simlab.exact(b).attacks().mean_damage.iloc[0]
        - simlab.exact(duel).attacks().mean_damage.iloc[0]
    )
    seeds = range(1000, 1200)
    covered = 0
    for seed in seeds:
        row = simlab.compare(duel, b, n=4000, seed=seed).figures.query("figure == 'mean_damage'")
        covered += int(row.diff_ci_lo.iloc[0] <= exact <= row.diff_ci_hi.iloc[0])
    expected, sd = 0.95 * len(seeds), np.sqrt(len(seeds) * 0.95 * 0.05)
    assert abs(covered - expected) <= 4.5 * sd, covered


def test_the_independent_interval_is_shown_rounded_outwards() -> None:
    """The wide table's independent interval, like every interval shown, is rounded
    outwards: [-0.05231, 0.01202] at 3 decimals reads [-0.053, +0.013], never the
    nearer [-0.052, +0.012], which would be narrower than the computed one."""
    from simlab.report.terminal import bounds

    assert bounds(-0.05231, 0.01202, 3, sign="+") == "[-0.053, +0.013]"
    # a bound that reads as zero has no sign (terminal.formatted): never -0.000
    assert bounds(0.0004, -0.0004, 3, sign="+") == "[0.000, 0.000]"
    assert bounds(0.125, 0.125, 3, sign="+") == "[+0.125, +0.125]"  # exact: as it is
    assert bounds(float("nan"), float("nan"), 3, sign="+") == "[—, —]"


@pytest.mark.parametrize(
    ("diff", "lo", "hi", "digits"),
    [(0.0274, 0.0204, 0.0344, 3), (-0.0426, -0.0436, -0.0416, 3),
     (-1.46e-06, -2.26e-06, -6.6e-07, 4)],
)  # fmt: skip
def test_a_difference_shown_holds_its_whole_interval(diff: float, lo: float, hi: float,
                                                      digits: int) -> None:  # fmt: skip
    """``diff ± half`` in the terminal: the half-width reaches both ends of the paired
    interval from the difference as printed (rounded), not from the difference."""
    from simlab.report.tuning_terminal import _diff

    value, half = (float(x) for x in _diff(diff, lo, hi, digits).split(" ± "))
    assert value - half <= lo and hi <= value + half


def test_a_rare_figure_moved_a_little_reads_as_such() -> None:
    """On the same dice a crit rate of 0.0002 may move by about 1e-06 with a paired
    interval that excludes 0. Shown to 4 decimals it read ``-0.0000 ± 0.0001`` marked
    changed; the terminal now writes such a difference in powers of ten (half-width
    rounded up) and the page with the decimals its interval needs."""
    from types import SimpleNamespace

    from simlab.report.tuning import compare_rows
    from simlab.report.tuning_terminal import _diff, interval_digits

    diff, lo, hi = -1.4e-06, -2.1e-06, -6.6e-07
    digits = interval_digits(hi - lo)
    assert digits == 4
    assert _diff(diff, lo, hi, digits) == "-1.4e-06 ± 8e-07"
    assert _diff(0.084, 0.081, 0.087, interval_digits(0.006)) == "+0.084 ± 0.003"
    row = SimpleNamespace(changed=True, figure="crit_rate", on="R club → W", a=0.0002339,
                          b=0.0002325, diff=diff, diff_ci_lo=lo, diff_ci_hi=hi,
                          diff_ci_independent_lo=-2e-04, diff_ci_independent_hi=2e-04,
                          p_holm=0.31, changed_holm=False, narrowing=229.7)  # fmt: skip
    comparison = SimpleNamespace(figures=SimpleNamespace(itertuples=lambda: iter([row])))
    (cells,) = compare_rows(comparison)  # type: ignore[arg-type]
    assert cells[3:7] == ["0.0002339", "0.0002325", "-0.0000014",
                          "[-0.0000021, -0.0000006]"]  # fmt: skip
    assert (cells[0], cells[7]) == ("changed", "0.31")  # this figure alone, not after Holm
    assert cells[1] == "crit rate"  # the figure as the terminal names it


def test_the_page_signs_every_difference_as_the_terminal_does() -> None:
    """``compare.md`` and ``compare.html`` wrote a rise as ``0.1399`` beside a fall's
    ``-0.1399``; a difference and its bounds carry their sign, ``+0.1399``."""
    from types import SimpleNamespace

    from simlab.report.tuning import compare_rows

    row = SimpleNamespace(changed=True, figure="down_rate", on="Kaito", a=0.8593, b=0.9991,
                          diff=0.1398, diff_ci_lo=0.1360, diff_ci_hi=0.1437,
                          diff_ci_independent_lo=0.1359, diff_ci_independent_hi=0.1438,
                          p_holm=1e-20, changed_holm=True, narrowing=1.0)  # fmt: skip
    comparison = SimpleNamespace(figures=SimpleNamespace(itertuples=lambda: iter([row])))
    (cells,) = compare_rows(comparison)  # type: ignore[arg-type]
    assert cells[1] == "down rate"
    # to the decimals of the interval, as the terminal's +0.140 ± 0.004
    assert cells[5:7] == ["+0.140", "[+0.136, +0.144]"] and cells[8] == "[+0.135, +0.144]"


@pytest.mark.parametrize(
    ("rules_path", "crits"),
    [("zones-3d6/longsword-vs-plate.yaml", set()),
     ("shattered-spirits/quickstart.yaml", {"Brute stone-strike → Kaito"})],
)  # fmt: skip
def test_crit_rate_compared_only_where_the_rules_have_crits(rules_path: str,
                                                             crits: set[str]) -> None:  # fmt: skip
    """zones-3d6 has no critical hits: a comparison lists no crit rate of 0 beside 0 for
    every pair; in the quickstart, the stone-strike can crit (rows 11 and 12), the
    quick-jab cannot (no crit row): only the stone-strike's is listed, the jab's read
    ``0 → 0``."""
    scenario = simlab.load(Path(__file__).resolve().parents[2] / "scenarios" / rules_path)
    figures = simlab.compare(scenario, changes={"max_rounds": 25}, n=2_000).figures
    hit_pairs = set(figures.query("figure == 'hit_rate'").on)
    assert crits < hit_pairs  # a pair left without its crit rate in each
    assert set(figures.query("figure == 'crit_rate'").on) == crits


def test_what_a_and_b_do_not_share_is_said(tmp_path: Path) -> None:
    """Two scenarios of different rules and combatants share only the encounter's own
    figures: the rest is listed as not compared (terminal, page and compare.json), and
    the different rules are named."""
    scenarios = Path(__file__).resolve().parents[2] / "scenarios"
    a = scenarios / "zones-3d6/longsword-vs-plate.yaml"
    b = scenarios / "glitters-d20/training-duel.yaml"
    done = CliRunner().invoke(main, ["compare", str(a), str(b), "-n", "500",
                                     "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "A and B follow different rules (zones-3d6, glitters-d20)" in text
    doc = json.loads((tmp_path / "compare.json").read_text())
    only_a = {(f["figure"], f["on"]) for f in doc["only_in_a"]}
    assert ("hit_rate", "Swordsman longsword → Plate Knight") in only_a
    assert f"Not compared, {len(only_a)} figures only A has: hit rate of" in text
    assert doc["only_in_b"] and {f["figure"] for f in doc["figures"]} <= {
        "mean_rounds",
        "draw_rate",
        "win_rate",
        "down_rate",
        "mean_time_to_down",
    }
    assert "Not compared" in (tmp_path / "compare.md").read_text()
    same = simlab.compare(simlab.load(a), changes={"max_rounds": 25}, n=500)
    assert same.only_in_a == same.only_in_b == []


@pytest.mark.parametrize(
    ("ranges", "words"),
    [
        (0, "expected ranges from 2 to 1,000; got 0"),  # divided by zero
        (1, "expected ranges from 2 to 1,000; got 1"),  # no interval
        (-1, "expected ranges from 2 to 1,000; got -1"),  # compared no encounter at all
        (2.5, "expected ranges as a whole number; got 2.5"),
        (10**6, "expected ranges from 2 to 1,000; got 1000000"),
    ],
)
def test_a_bad_number_of_ranges_is_an_input_error(duel: Any, ranges: Any, words: str) -> None:
    with pytest.raises(simlab.api.InputError, match=words):
        simlab.compare(duel, changes={"Defender.guard": 2}, n=1000, ranges=ranges)


def test_more_ranges_than_encounters_are_refused_not_lowered(duel: Any) -> None:
    """``ranges=K`` over ``n`` was quietly lowered to ``n``; it is refused, before any
    run (to a precision too), naming what was expected and what was found."""
    words = re.escape(
        "expected ranges of at most one encounter each (at most 10 ranges for 10 encounters); "
        "got 64"
    )
    with pytest.raises(simlab.api.InputError, match=words):
        simlab.compare(duel, changes={"Defender.guard": 2}, n=10, ranges=64)
    with pytest.raises(simlab.api.InputError, match=words):
        simlab.compare(duel, changes={"Defender.guard": 2}, n=10, ranges=64, precision=0.01)
    exactly = simlab.compare(duel, changes={"Defender.guard": 2}, n=10, ranges=10)
    assert exactly.ranges == 10


def test_the_default_ranges_are_one_an_encounter_under_32(duel: Any) -> None:
    """K not asked for: 32, or one range an encounter when fewer, and said so."""
    few = simlab.compare(duel, changes={"Defender.guard": 2}, n=10)
    assert few.ranges == 10
    assert simlab.compare(duel, changes={"Defender.guard": 2}, n=100).ranges == 32


def test_a_count_written_as_a_float_compares_as_the_int(duel: Any) -> None:
    as_float = simlab.compare(duel, changes={"Defender.guard": 2}, n=2e3, ranges=8.0)
    as_int = simlab.compare(duel, changes={"Defender.guard": 2}, n=2000, ranges=8)
    assert as_float.a.encounters == 2000
    assert as_float.figures.equals(as_int.figures)


def test_changes_given_as_one_string_name_b_as_typed(duel: Any) -> None:
    """``changes="Defender.guard=2"``: B named with the change (it read "D, e, f, …")."""
    as_text = simlab.compare(duel, changes="Defender.guard=2", n=1000, ranges=4)
    as_mapping = simlab.compare(duel, changes={"Defender.guard": 2}, n=1000, ranges=4)
    assert as_text.labels[1] == "ss-duel with Defender.guard=2" == as_mapping.labels[1]
    assert as_text.figures.equals(as_mapping.figures)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"changes": {"seed": 5}}, "got one to 'seed', which a comparison keeps the same"),
        ({"changes": {"encounters": 500}}, "got one to 'encounters'"),
        ({"changes": {"Defender.guard": 2}, "precision_on": ["hit_rate:strike"]},
         "precision_on: expected precision= (or precision: in the scenario)"),
    ],
)  # fmt: skip
def test_compare_refuses_what_it_would_ignore(extra: dict[str, Any], words: str) -> None:
    """B ran on A's seed and count whatever its changes said, and --precision-on went
    unread without --precision."""
    from simlab.errors import InputError

    duel = simlab.load(SS_DUEL)
    with pytest.raises(InputError) as err:
        simlab.compare(duel, n=200, **extra)
    assert words in str(err.value)


@pytest.mark.parametrize("run", [{"seed": 99}, {"encounters": 500}, {"precision": 0.01}])
def test_compare_refuses_a_b_made_with_a_change_to_how_it_runs(run: dict[str, Any]) -> None:
    """``compare(A, A.with_({"seed": 99}))`` named B "with seed=99" and played it on A's
    seed, every difference 0; ``changes={"seed": 99}`` was refused. B made so is refused
    in the same words, and a B whose run field is A's is taken."""
    from simlab.errors import InputError

    duel = simlab.load(SS_DUEL)
    ((name, value),) = run.items()
    with pytest.raises(InputError) as err:
        simlab.compare(duel, duel.with_({**run, "Defender.guard": 2}), n=200, ranges=4)
    assert str(err.value).startswith(f"b with {name}={value}: expected a change to the "
                                     f"fight; got one to {name!r}, which a comparison keeps "
                                     "the same for every variant (set it with ")  # fmt: skip
    a = duel.with_(run)
    assert simlab.compare(a, a.with_({"Defender.guard": 2}), n=200, ranges=4).labels[1] == (
        f"ss-duel with {name}={value}, Defender.guard=2"
    )


@pytest.mark.parametrize(("command", "default"),
                         [("compare", "A's"), ("sweep", "the scenario's"),
                          ("tune", "the scenario's")])  # fmt: skip
def test_help_names_whose_seed_and_count_a_run_takes(command: str, default: str) -> None:
    """The help said "the (first) scenario's" for sweep and tune, which take one."""
    done = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
    assert f"Seed (default: {default})." in done.output
    assert "(default: the (first)" not in done.output


def test_cli_refusal_of_a_run_field_names_the_set_argument() -> None:
    """``simlab compare A --set seed=3`` named the change ``changes seed=3``, the Python
    argument's name, where the command line had ``--set``; among several, only the
    ``--set`` that changes how the comparison runs is named."""
    done = CliRunner().invoke(main, ["compare", str(SS_DUEL), "--set", "Defender.guard=2",
                                     "--set", "seed=3", "-n", "200"])  # fmt: skip
    assert done.exit_code == 2
    message = " ".join(done.output.split())
    assert "--set seed=3: expected a change to the fight; got one to 'seed'" in message
    assert "changes seed=3" not in message and "Defender.guard" not in message


def test_a_mean_time_to_down_one_variant_lacks_is_not_compared(fight: Any) -> None:
    """With Guard 3 the second Brute never goes down: B has no mean time-to-down for it.
    The figure is one only A has (not compared), not a figure whose paired interval
    contains 0: it was listed as "same" with no B, no difference and no interval, and
    the terminal counted it among the unchanged figures."""
    ab = simlab.compare(fight, changes={"Brute.guard": 3}, n=20_000)
    names = [name for _, name in ab.b.layout.combatants]
    downs = ab.b.tallies.down_round.sum(axis=1)
    never = [name for name, d in zip(names, downs, strict=True) if d == 0]
    assert never == ["Brute 2"] and ab.a.tallies.down_round[names.index("Brute 2")].sum() > 0
    assert ab.only_in_a == [("mean_time_to_down", "Brute 2")] and ab.only_in_b == []
    assert ab.figures[["a", "b", "diff", "diff_ci_lo", "diff_ci_hi"]].notna().all().all()
    compared = set(zip(ab.figures.figure, ab.figures.on, strict=True))
    assert ("mean_time_to_down", "Brute 2") not in compared


def test_b_and_changes_together_are_refused_in_python_and_named_once_by_the_cli(
    tmp_path: Path,
) -> None:
    """``b`` and ``changes`` are alternatives: together they named the change twice
    (``ss-duel with Defender.guard=2, Defender.hp=3 with Defender.hp=3``).
    ``b.with_(changes)`` names it once; so does ``simlab compare A B --set``."""
    duel = simlab.load(SS_DUEL)
    with pytest.raises(InputError, match=r"^expected b or changes; got both \(pass "
                       r"b\.with_\(changes\) as b"):  # fmt: skip
        simlab.compare(duel, duel.with_({"Defender.guard": 2}), changes={"Defender.hp": 3})
    ab = simlab.compare(duel, duel.with_({"Defender.guard": 2, "Defender.hp": 3}), n=200)
    assert repr(ab).count("Defender.hp=3") == 1
    args = [str(SS_DUEL), str(SS_DUEL), "--set", "Defender.hp=3", "-n", "200"]
    result = CliRunner().invoke(main, ["compare", *args, "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert document["b"] == f"{SS_DUEL} with Defender.hp=3"


def test_an_identical_b_shows_every_difference_as_0_and_no_spread(tmp_path: Path) -> None:
    """``--set Troll.hp=60`` (already 60): the page's "paired 95%" read ``[-0.0050,
    +0.0050]``, the exact test's interval for two independent runs, and the terminal
    ``0.000 ± 0.002``; A and B read ``10.1590`` and ``0.0000`` and a rate 0 in both runs
    had the independent interval ``[0.0000, 0.0000]``. With the same dice
    B − A is 0 in every encounter: ``0`` and ``[0, 0]``."""
    done = CliRunner().invoke(main, ["compare", str(PARTY), "--set", "Troll.hp=60", "-n", "2000",
                                     "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert " ± " not in done.output and "0.0000" not in done.output, done.output
    doc = json.loads((tmp_path / "compare.json").read_text())
    for f in doc["figures"]:
        assert f["diff_ci"] == [0, 0] and f["test"] == "paired", f
    rows = [line.split(" | ") for line in (tmp_path / "compare.md").read_text().splitlines()
            if line.startswith("| same |")]  # fmt: skip
    assert rows
    for row in rows:
        assert row[5:7] == ["0", "[0, 0]"], row
        assert "0.0000" not in " ".join(row) and not re.search(r"\d\.\d*0\b \|", row[3]), row
        assert "rate" not in row[1] or row[8] != "[0, 0]", row  # two runs could differ


@pytest.mark.parametrize("words", [{"description": "foo"}, {"scenario": "another-id"}])
def test_a_b_that_differs_from_a_in_words_only_is_identical(
    duel: Any, words: dict[str, str]
) -> None:
    """``compare A --set description=foo`` was not said to be identical: the scenario's
    hash covers its description, which changes no figure; nor was ``--set
    scenario=another-id``, a name."""
    from simlab.report.tuning_terminal import identical_note

    cmp = simlab.compare(duel, duel.with_(words), n=1000)
    assert identical_note(cmp).startswith("B is identical to A in every figure")
    assert (cmp.figures["diff"] == 0).all()
    assert cmp.a.meta["scenario_hash"] != cmp.b.meta["scenario_hash"]  # files keep theirs


def test_an_independent_bound_that_is_not_0_never_reads_as_0() -> None:
    """The wide terminal printed ``[0.000, +0.007]`` for an independent interval from
    +0.0008."""
    from types import SimpleNamespace

    from simlab.report.tuning_terminal import independent_bounds

    r = SimpleNamespace(diff_ci_independent_lo=0.00081, diff_ci_independent_hi=0.0065)
    assert independent_bounds(r, 3) == "[+0.0008, +0.0065]"
    r = SimpleNamespace(diff_ci_independent_lo=-0.0065, diff_ci_independent_hi=-0.00081)
    assert independent_bounds(r, 3) == "[-0.0065, -0.0008]"


def test_a_pair_that_cannot_crit_has_no_crit_rate_row(tmp_path: Path) -> None:
    """ss-duel's strike has no crit row: the comparison's tables gave it a crit rate of
    ``0 → 0`` (terminal, compare.md, compare.html, compare.json), a figure it cannot
    have; its hit rate and mean damage are still compared."""
    done = CliRunner().invoke(main, ["compare", str(SS_DUEL), "--set", "Defender.hp=28",
                                     "-n", "400", "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    shown = {name: (tmp_path / name).read_text() for name in ("compare.md", "compare.html")}
    shown["terminal"] = done.output
    for name, text in shown.items():
        assert "hit rate" in text and "crit rate" not in text, name
    figures = {f["figure"] for f in json.loads((tmp_path / "compare.json").read_text())["figures"]}
    assert {"hit_rate", "mean_damage"} <= figures and "crit_rate" not in figures


def test_two_files_under_different_rules_say_so_in_python_and_the_json() -> None:
    """The terminal said that A and B follow different rules, but the repr a notebook
    shows did not, and ``compare.json`` kept A's rules alone under ``rules``: B's are
    recorded too (``rules_b``), and a comparison under one set of rules has no such key."""
    drafts = [Path(__file__).parents[2] / "scenarios" / rules / "duel-both-drafts.yaml"
              for rules in ("shattered-spirits", "shattered-spirits-draft1")]  # fmt: skip
    apart = simlab.compare(*drafts, n=200)
    said = "A and B follow different rules (shattered-spirits, shattered-spirits-draft1)"
    assert said in repr(apart)
    doc = apart.document()
    assert (doc["rules"], doc["rules_b"]) == ("shattered-spirits", "shattered-spirits-draft1")
    same = simlab.compare(drafts[0], changes={"Kaito.hp": 25}, n=200)
    assert "different rules" not in repr(same) and "rules_b" not in same.document()


def test_what_pairing_did_across_rules_is_the_measured_narrowing() -> None:
    """Two drafts of Shattered Spirits compared: "pairing them narrows the intervals
    little" was printed under a × column reading 1.4 to 6.8. Both runs read the same
    random numbers, each as its own dice: two drafts that roll alike gain from pairing,
    a d20 system against a 3d6 one barely; the note says which, from the × measured."""
    from simlab.report.tuning_terminal import unmatched_note

    scenarios = Path(__file__).resolve().parents[2] / "scenarios"
    drafts = simlab.compare(*(scenarios / rules / "duel-both-drafts.yaml"
                              for rules in ("shattered-spirits-draft1", "shattered-spirits")),
                            n=4_000)  # fmt: skip
    times = drafts.figures.narrowing.dropna()
    assert times.max() > 2  # the drafts roll alike: pairing narrows their intervals
    note = unmatched_note(drafts)
    assert "narrows the intervals little" not in note and "narrowed them little" not in note
    assert f"{times.min():.1f} to {times.max():.1f} times narrower (×)" in note
    assert "each reads the same random numbers as its own dice" in note
    apart = simlab.compare(scenarios / "zones-3d6/longsword-vs-plate.yaml",
                           scenarios / "glitters-d20/training-duel.yaml", n=4_000)  # fmt: skip
    assert apart.figures.narrowing.dropna().max() < 1.2  # d20 against 3d6: nothing shared
    assert "here it narrowed them little (× at most 1." in unmatched_note(apart)
    same = simlab.compare(scenarios / "shattered-spirits/duel-both-drafts.yaml",
                          changes={"max_rounds": 25}, n=500)  # fmt: skip
    assert same.rules_note() == "" and "different rules" not in unmatched_note(same)


def test_a_crit_rate_the_attack_cannot_have_is_not_one_only_a_has() -> None:
    """The quickstart against a zones-3d6 duel listed "crit rate of Kaito quick-jab →
    Brute" among the figures only A has, though the quick-jab has no crit row; and so
    did the quickstart against itself with Kaito's jab swapped for a stone-strike. The
    stone-strike's crit rate, which it can have, is still listed on the side that has it."""
    from simlab.report.tuning_terminal import unmatched_note

    scenarios = Path(__file__).resolve().parents[2] / "scenarios"
    quickstart = scenarios / "shattered-spirits/quickstart.yaml"
    jab, strike = "Kaito quick-jab → Brute", "Kaito stone-strike → Brute"
    apart = simlab.compare(quickstart, scenarios / "zones-3d6/training-duel.yaml", n=2_000)
    swapped = simlab.compare(quickstart, changes={"Kaito.attacks[0]": "stone-strike"}, n=2_000)
    for ab in (apart, swapped):
        assert {("hit_rate", jab), ("mean_damage", jab)} <= set(ab.only_in_a)
        assert ("crit_rate", jab) not in ab.only_in_a
        assert "crit rate of Kaito quick-jab" not in " ".join(unmatched_note(ab).split())
    assert ("crit_rate", "Brute stone-strike → Kaito") in apart.only_in_a
    assert ("crit_rate", strike) in swapped.only_in_b
    assert len(swapped.only_in_a) == 2


@pytest.mark.parametrize(
    ("b", "found"),
    [
        ({"Defender.guard": 2}, "a dict"),
        (["Defender.guard=2"], "a list"),
        ("Defender.guard=2", "'Defender.guard=2'"),
    ],
)
def test_changes_given_as_b_say_where_they_go(duel: Any, b: Any, found: str) -> None:
    """Changes passed where B goes were refused as no scenario, or as a YAML file not
    found, saying nothing of ``changes=``, which takes them."""
    words = re.escape(
        f"expected a scenario (simlab.load) or the path of a scenario file for b; got {found}, "
        "changes to A: pass them as changes= (simlab.compare(a, changes=...))"
    )
    with pytest.raises(InputError, match=words):
        simlab.compare(duel, b, n=10)


def test_the_note_under_the_terminal_table_explains_what_the_table_shows(duel: Any) -> None:
    """The note under a table of a mean length and a draw rate alone (two rule systems
    compared) said what a mean time-to-down is the mean of; one with no ``—`` under ×,
    what a ``—`` there means. Each is said where the table has what it explains."""
    from simlab.report.tuning_terminal import (
        FEW_EVENTS_NOTE,
        MEAN_TIME_TO_DOWN_NOTE,
        compare_terminal_note,
    )

    figures = simlab.compare(duel, changes={"Defender.hp": 31}, n=2000).figures
    everything = compare_terminal_note(figures)
    assert FEW_EVENTS_NOTE in everything and MEAN_TIME_TO_DOWN_NOTE in everything
    assert figures.narrowing.isna().any()  # a down rate of 1 in A and B: no width
    paired = figures[figures.narrowing.notna() & (figures.figure != "mean_time_to_down")]
    assert len(paired), figures
    said = compare_terminal_note(paired)
    assert FEW_EVENTS_NOTE not in said and MEAN_TIME_TO_DOWN_NOTE not in said, said


def test_a_paired_interval_wider_than_the_independent_one_is_said_wider() -> None:
    """The quickstart against its earlier draft: Kaito's down rate had a paired interval
    wider than two independent runs' (× 0.9), and the note said pairing "made them 0.9 to
    1.7 times narrower", as if it had narrowed every one."""
    scenarios = Path(__file__).resolve().parents[2] / "scenarios"
    drafts = simlab.compare(*(scenarios / rules / "quickstart.yaml"
                              for rules in ("shattered-spirits", "shattered-spirits-draft1")),
                            n=5_000)  # fmt: skip
    times = drafts.figures.narrowing.dropna()
    assert round(times.min(), 1) < 1 < times.max(), times
    note = drafts.rules_note()
    assert f"{times.min():.1f} to" not in note, note
    assert f"up to {times.max():.1f} times narrower (×), and some wider (× down to " in note
    assert f"{times.min():.1f})" in note
