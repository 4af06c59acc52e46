"""Runs to a precision: a deterministic stop, the rule honoured, and its coverage."""

from __future__ import annotations

import html
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
from simlab.engine.tallies import Layout, TallyArrays, new_tallies
from simlab.report.render import md_text
from simlab.tuning.figures import measure, parse_figure
from simlab.tuning.precision import (
    checkpoints,
    coarsen,
    precision_rule,
    stop_at_precision,
    widest,
)
from tests.support import assert_same_tallies
from tests.tuning.cases import SS_DUEL


def _same(a: Any, b: Any) -> None:
    for x, y in zip(a.tallies, b.tallies, strict=True):
        np.testing.assert_array_equal(x, y)


def test_checkpoints_divide_the_cap() -> None:
    assert checkpoints(10**6) == [3125, 15625, 31250, 62500, 125000, 250000, 500000, 10**6]
    assert checkpoints(999_983) == [999_983]  # a prime: one checkpoint
    assert checkpoints(500) == [500]
    steps = checkpoints(2 * 3**7 * 7)
    assert all(b % a == 0 for a, b in itertools.pairwise(steps))


def test_coarsened_batches_equal_a_longer_run(duel: Any) -> None:
    """The first 3,000 of 6,000 encounters, played as a run of 3,000 and coarsened, equal
    the same encounters played with the batches of the run of 6,000."""
    job = compile_job(duel, 3000, 4)
    short = runner.run_local(job, threads=1)
    longer = runner.run_local_range(compile_job(duel, 6000, 4), 0, 3000, threads=1)
    assert_same_tallies(coarsen(short, 2), longer, 3000)


def test_stop_does_not_depend_on_threads_or_blocks(fight: Any) -> None:
    """Same seed: same stop, same tallies, whatever the threads and block size; and the
    stopped run equals a plain run of that many encounters."""
    one = simlab.simulate(fight, 64_000, precision=0.02, threads=1, block_size=777)
    top = simlab.simulate(fight, 64_000, precision=0.02, threads=runner.max_threads())
    assert one.encounters == top.encounters < 64_000
    _same(one, top)
    _same(one, simlab.simulate(fight, one.encounters, threads=1))
    record = one.meta["precision"]
    assert record["met"] and record["encounters"] == one.encounters
    assert record["checkpoints"][-1] == one.encounters


def test_cli_run_stops_early_and_identically(tmp_path: Path) -> None:
    """The bar: ss-duel --precision 0.001 stops before 10^6 with every rate's half-width
    ≤ 0.001 and every mean's ≤ 0.001 × max(|mean|, 1); --threads 1 gives the same file."""
    cli = CliRunner()
    for name, extra in (("a", []), ("b", ["--threads", "1", "--block-size", "10000"])):
        done = cli.invoke(main, ["run", str(SS_DUEL), "--precision", "0.001",
                                 "--out", str(tmp_path / name), *extra])  # fmt: skip
        assert done.exit_code == 0, done.output
        assert "precision: stopped at" in done.output
    a, b = ((tmp_path / d / "summary.json").read_text() for d in "ab")
    assert a == b
    doc = json.loads(a)
    assert doc["encounters"] < 10**6 and doc["precision"]["encounters"] == doc["encounters"]
    assert doc["precision"]["cap"] == 10**6 and doc["precision"]["met"]
    rates = [x[f"{k}_ci"] for x in doc["attacks"] for k in ("hit_rate", "crit_rate")]
    rates += [c["down_rate_ci"] for c in doc["combatants"]]
    rates += [s["win_rate_ci"] for s in doc["sides"]]
    assert all((hi - lo) / 2 <= 0.001 for lo, hi in rates)
    for x in doc["attacks"]:
        lo, hi = x["mean_damage_ci"]
        assert (hi - lo) / 2 <= 0.001 * max(abs(x["mean_damage"]), 1)


def test_named_figures_and_the_cap(duel: Any) -> None:
    """--precision-on checks only the figures named; a rule not met by the cap says so."""
    named = simlab.simulate(duel, 200_000, precision=0.005, precision_on=["hit_rate:strike"])
    everything = simlab.simulate(duel, 200_000, precision=0.005)
    assert named.encounters < everything.encounters
    _x, lo, hi = measure(named.tallies, named.layout, named.encounters,
                        parse_figure("hit_rate:strike", "t"))  # fmt: skip
    assert (hi - lo) / 2 <= 0.005
    alone = simlab.simulate(duel, 200_000, precision=0.005, precision_on="hit_rate:strike")
    assert alone.encounters == named.encounters  # one figure written alone, not its letters
    capped = simlab.simulate(duel, 20_000, precision=0.0001)
    assert capped.encounters == 20_000
    assert capped.meta["precision"]["cap_reached"] and not capped.meta["precision"]["met"]


def test_a_named_figure_without_a_value_does_not_meet_the_rule(duel: Any) -> None:
    """A figure --precision-on names that has no value yet (the Defender's mean
    time-to-down when no encounter of 3 rounds downs it) was left out of the check: the
    run stopped at the first checkpoint and said the precision was met. It runs to the
    cap and says which figure it never measured."""
    from simlab.tuning.precision import describe_record

    short = duel.with_({"max_rounds": 3})
    res = simlab.simulate(short, 8000, precision=0.05,
                          precision_on=["mean_time_to_down:Defender"])  # fmt: skip
    value, _lo, _hi = measure(res.tallies, res.layout, res.encounters,
                              parse_figure("mean_time_to_down:Defender", "t"))  # fmt: skip
    assert np.isnan(value)  # never downed: no time-to-down to measure
    record = res.meta["precision"]
    assert res.encounters == 8000 and record["cap_reached"] and not record["met"]
    assert record["unmeasured"] == ["mean_time_to_down:Defender"]
    assert "never measured: mean_time_to_down:Defender" in describe_record(record)
    measured = simlab.simulate(duel, 8000, precision=0.05,
                               precision_on=["mean_time_to_down:Defender"])  # fmt: skip
    assert "unmeasured" not in measured.meta["precision"]


def test_precision_in_the_scenario_is_validated_and_used(duel: Any) -> None:
    text = SS_DUEL.read_text().replace("max_rounds: 100", "max_rounds: 100\nprecision: 0.01")
    scn = simlab.loads(text)
    assert scn.precision == 0.01
    assert simlab.simulate(scn, 64_000).meta["precision"]["half_width"] == 0.01
    message = r"<string>:9:\d+: expected a number > 0.0; got -1"
    with pytest.raises(simlab.api.InputError, match=message):
        simlab.loads(text.replace("precision: 0.01", "precision: -1"))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--precision", "0"],
            "'--precision': expected a half-width in (0, 1], such as 0.01; got 0",
        ),
        (["--precision", "1e-5000"], "expected a half-width in (0, 1], such as 0.01; got 1e-5000"),
        (["--precision", "nan"], "expected a half-width in (0, 1], such as 0.01; got nan"),
        (["--precision", "x"], "expected a half-width in (0, 1], such as 0.01; got 'x'"),
        (["--precision", "1%"], "got '1%' (a share is written as a fraction: 0.01)"),
        (["--precision", "0.01", "--precision-on", "nope:x"], "--precision-on nope:x"),
        (
            ["--precision", "0.01", "--precision-on", "hit_rate:kick"],
            "--precision-on hit_rate:kick",
        ),
        (["--precision-on", "hit_rate:strike"], "--precision-on: expected --precision H"),
    ],
)
def test_bad_precision_arguments_exit_2(tmp_path: Path, args: list[str], expected: str) -> None:
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["run", str(SS_DUEL), "-n", "5000", *args, "--out", str(out)])
    assert done.exit_code == 2, done.output
    assert expected in done.output and not out.exists()


@pytest.mark.parametrize("half_width", ["0.01", True, None])
def test_a_precision_that_is_not_a_number_is_an_input_error(half_width: object) -> None:
    with pytest.raises(simlab.api.InputError, match=r"^expected a half-width in \(0, 1\] for "
                       "precision; got"):  # fmt: skip
        precision_rule(half_width)  # type: ignore[arg-type]


def test_report_says_how_the_sample_size_was_chosen(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["report", str(SS_DUEL), "-n", "64000", "--precision",
                                     "0.01", "--out", str(tmp_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "stopped at" in (tmp_path / "report.md").read_text()
    runs = simlab.load_results(tmp_path / "results.json")
    assert runs[0].result.meta["precision"]["encounters"] == runs[0].result.encounters


# -- coverage of the stopping rule on synthetic tallies ------------------------------------

_LAYOUT = Layout(sides=["a", "b"], combatants=[("a", "A"), ("b", "B")], attacks=["x"],
                 events=[], max_rounds=1, damage_bins=8, side_of=[0, 1])  # fmt: skip
P_HIT, MEAN_ROLL = 0.3, 3.5  # one attack an encounter: hit with 0.3, then d6 damage


def _synthetic(rng: np.random.Generator) -> Any:
    """Tallies of one attack per encounter, as the engine would keep them."""
    pair = _LAYOUT.pair(0, 0, 1)

    def play(n_total: int, first: int, count: int) -> TallyArrays:
        t = new_tallies(_LAYOUT)
        batch = np.arange(first, first + count) * _LAYOUT.batches // n_total
        hits = rng.random(count) < P_HIT
        damage = hits * rng.integers(1, 7, count)
        size = _LAYOUT.batches
        t.attempts[pair] += np.bincount(batch, minlength=size)
        t.hits[pair] += np.bincount(batch, weights=hits, minlength=size).astype(np.int64)
        t.damage_sum[pair] += np.bincount(batch, weights=damage, minlength=size).astype(np.int64)
        return t

    return play


@pytest.mark.slow
@pytest.mark.parametrize(
    ("figure", "truth", "half"),
    [("hit_rate:x", P_HIT, 0.01), ("mean_damage:x", P_HIT * MEAN_ROLL, 0.02)],
)
def test_interval_at_the_stop_covers_at_the_nominal_rate(figure: str, truth: float,
                                                         half: float) -> None:  # fmt: skip
    """Over 3,000 seeds, the 95% interval at the stop covers the true value 95% of the
    time, within 3 binomial standard errors — stopping on the interval's own width does
    not spoil it — and every stop honours the rule."""
    seeds = 3000
    rule = precision_rule(half, [figure], _LAYOUT)
    ref = parse_figure(figure, "t")
    covered, stops = 0, set()
    for seed in range(seeds):
        tallies, n, record = stop_at_precision(2**7 * 1000, _LAYOUT, rule,
                                               _synthetic(np.random.default_rng(seed)))  # fmt: skip
        value, lo, hi = measure(tallies, _LAYOUT, n, ref)
        assert record["met"] and (hi - lo) / 2 <= half * (1 if ref.is_rate else max(value, 1))
        covered += lo <= truth <= hi
        stops.add(n)
    assert len(stops) >= 2  # the stop varies with the data: the rule is really sequential
    se = np.sqrt(0.95 * 0.05 / seeds)
    assert abs(covered / seeds - 0.95) <= 3 * se, covered / seeds


def test_sweep_points_and_comparisons_run_to_the_precision(duel: Any) -> None:
    """Each sweep point stops on its own and equals `run --set … --precision` at that point;
    a comparison runs A and B to the precision and compares both at the larger stop."""
    sw = simlab.sweep(duel, {"Defender.guard": [0, 3]}, n=128_000, precision=0.005, exact=False)
    for point in sw.points:
        alone = simlab.simulate(duel.with_(point.set), 128_000, precision=0.005, threads=1)
        assert point.result.encounters == alone.encounters < 128_000
        _same(point.result, alone)
    assert len({p.result.encounters for p in sw.points}) == 2  # less damage: fewer needed
    doc = sw.document()
    assert [p["precision"]["encounters"] for p in doc["points"]] == [
        p.result.encounters for p in sw.points
    ]
    ab = simlab.compare(duel, changes={"strike.profile[9]": 8}, n=128_000, precision=0.005)
    stops = ab.precision["stops"]
    assert ab.a.encounters == ab.b.encounters == max(stops) < 128_000
    assert ab.document()["precision"]["encounters"] == max(stops)


def test_tune_run_to_a_precision_records_each_values_stop(duel: Any) -> None:
    """tune.json gave every value's figure but not how many encounters it ran, which
    under --precision differs from value to value: each evaluation now says, and equals
    a run of that value to the same precision on the target's figure (the tune's own)."""
    found = simlab.tune(duel, "Defender.guard=0:3", "hit_rate:strike=0.7", n=128_000,
                        precision=0.01, exact=False)  # fmt: skip
    for e, saved in zip(found.evaluations, found.document()["evaluations"], strict=True):
        alone = simlab.simulate(duel.with_({"Defender.guard": e.value}), 128_000,
                                precision=0.01, precision_on=["hit_rate:strike"],
                                threads=1)  # fmt: skip
        assert e.encounters == saved["encounters"] == alone.encounters < 128_000


def test_a_comparison_records_the_stop_of_the_variant_that_set_it(duel: Any) -> None:
    """A (row 9 as written) stops at 8,000 encounters, B (row 9 at 8) at 16,000: the
    record of the comparison is B's, its checkpoints ending at the stop and its widest
    figure the one B's own run names. It was A's, next to B's stop (checkpoints to 8,000
    under ``encounters: 16000``; with B at its cap, 'not met' beside a widest figure
    within its limit)."""
    changes = {"strike.profile[9]": 8}
    ab = simlab.compare(duel, changes=changes, n=128_000, precision=0.005)
    alone = [simlab.simulate(scn, 128_000, precision=0.005).meta["precision"]
             for scn in (duel, duel.with_(changes))]  # fmt: skip
    assert ab.precision["stops"] == [r["encounters"] for r in alone] == [8000, 16000]
    assert ab.precision["checkpoints"] == alone[1]["checkpoints"]
    assert ab.precision["checkpoints"][-1] == ab.precision["encounters"] == 16000
    assert ab.precision["widest"] == alone[1]["widest"]


@pytest.mark.parametrize(
    ("changes", "stops"),
    [({"strike.profile[9]": 8}, [8000, 16000]), ({"Defender.hp": 31}, [8000, 8000])],
)
def test_a_comparison_to_a_precision_plays_no_encounter_twice(
    duel: Any, changes: dict[str, int], stops: list[int]
) -> None:
    """A and B each ran to the precision, then both again at the larger stop: A's stop +
    B's stop + 2 × the larger (56,000 encounters where 32,000 do, and 32,000 where
    16,000 do). The run that set the stop is the run of that many encounters, kept by
    range, and the other is played on from its own stop: 2 × the stop, with the tallies,
    figures and intervals of a plain comparison at the stop."""
    played: list[int] = []
    ab = simlab.compare(duel, changes=changes, n=128_000, precision=0.005,
                        progress=played.append)  # fmt: skip
    assert ab.precision["stops"] == stops
    stop = max(stops)
    plain = simlab.compare(duel, changes=changes, n=stop, threads=1)
    assert ab.a.encounters == ab.b.encounters == stop
    assert_same_tallies(ab.a.tallies, plain.a.tallies, stop)
    assert_same_tallies(ab.b.tallies, plain.b.tallies, stop)
    assert ab.figures.equals(plain.figures)
    assert sum(played) == 2 * stop


def test_a_run_kept_by_range_equals_the_ranges_played_anew(duel: Any) -> None:
    """The pieces a run to a precision keeps give, at its stop and at a later
    checkpoint, each range's tallies as a run of that many encounters plays them; at a
    count that is not a checkpoint, none."""
    from simlab.tuning.compare import range_edges
    from simlab.tuning.precision import run_ranges_to_precision

    job = compile_job(duel, 128_000, 4)
    rule = precision_rule(0.005, (), job.layout, duel)
    kept = run_ranges_to_precision(job, rule, lambda n: range_edges(n, 5), threads=1)
    assert kept.ranges_at(kept.stop + 1) is None
    for n in (kept.stop, 2 * kept.stop):
        whole = compile_job(duel, n, 4)
        parts = kept.ranges_at(n)
        assert parts is not None
        for (first, count), part in zip(range_edges(n, 5), parts, strict=True):
            assert_same_tallies(part, runner.run_local_range(whole, first, count, 1), count)


def test_a_sweep_run_to_a_precision_says_what_its_points_ran(
    duel: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its header, terminal and page, said "128,000 encounters per point", the cap, while
    its points stopped far sooner: it gives the counts they ran and the cap."""
    from rich.console import Console

    from simlab.report import terminal
    from simlab.report.tuning_terminal import print_sweep

    sw = simlab.sweep(duel, {"Defender.guard": [0, 3]}, n=128_000, precision=0.01, exact=False)
    stops = sorted(p.result.encounters for p in sw.points)
    assert stops[0] < stops[-1] < 128_000
    said = (f"{stops[0]:,}–{stops[-1]:,} encounters per point (each run to precision 0.01, "
            "cap 128,000)")  # fmt: skip
    console = Console(width=200, force_terminal=False, record=True)
    monkeypatch.setattr(terminal, "console", console)
    print_sweep(sw)
    assert said in console.export_text().splitlines()[0]
    simlab.write_sweep(sw, tmp_path)
    assert said in (tmp_path / "sweep.md").read_text()
    assert "128,000 encounters a point" not in repr(sw)
    plain = simlab.sweep(duel, {"Defender.guard": [0, 3]}, n=2000, exact=False)
    assert plain.per_point() == "2,000 encounters per point"


def test_a_comparison_page_says_how_its_runs_were_stopped(duel: Any, tmp_path: Path) -> None:
    """compare.md and compare.html said '4,000 encounters each' of a comparison run to a
    precision, where the terminal and compare.json said it was stopped there, on what
    rule, and at what stops: the pages now say it in the terminal's words."""
    ab = simlab.compare(duel, changes={"strike.profile[9]": 8}, n=8000, precision=0.05)
    said = ab.precision_note()
    assert said.startswith("stopped at 1,000 encounters (cap 8,000): 95% half-width ≤ 0.05")
    assert said.endswith("(A stopped at 1,000, B at 1,000; both compared at the larger)")
    simlab.write_compare(ab, tmp_path / "ab")
    page = (tmp_path / "ab" / "compare.md").read_text()
    assert md_text(f"Precision: {said}.") in page
    text = re.sub(r"<[^>]+>", "", (tmp_path / "ab" / "compare.html").read_text())
    assert html.escape(f"Precision: {said}.") in text
    assert simlab.compare(duel, changes={"strike.profile[9]": 8}, n=1000).precision_note() == ""


def test_a_comparison_runs_b_to_as_precision_not_its_own(tmp_path: Path) -> None:
    """B's own ``precision:`` set B's stop where A had one (A to 0.05, B to 0.02: the
    record's rule B's) and went unread where A had none, without a word: a comparison
    keeps how it runs the same for both, A's, as it does their seed and count, and the
    command line says B's was not used, as it says of B's seed."""
    text = SS_DUEL.read_text()
    a = tmp_path / "a.yaml"
    a.write_text(text.replace("max_rounds: 100", "max_rounds: 100\nprecision: 0.05"))
    b = tmp_path / "b.yaml"
    b.write_text(text.replace("max_rounds: 100", "max_rounds: 100\nprecision: 0.02"))
    ab = simlab.compare(simlab.load(a), simlab.load(b), n=8000)
    assert ab.precision is not None and ab.precision["half_width"] == 0.05
    assert ab.precision["stops"] == [1000, 1000]
    done = CliRunner().invoke(main, ["compare", str(a), str(b), "-n", "8000"])
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert "note: B's own precision (0.02) was not used; both ran to A's (0.05)" in said
    plain = tmp_path / "plain.yaml"
    plain.write_text(text)
    done = CliRunner().invoke(main, ["compare", str(plain), str(b), "-n", "1000"])
    said = " ".join(done.output.split())
    assert "note: B's own precision (0.02) was not used; both ran 1,000 encounters" in said


def test_a_precision_the_cap_does_not_reach_says_about_how_many_would(duel: Any) -> None:
    """A run that reached its cap before the precision said only its widest figure's
    half-width and limit, leaving the designer to guess whether a larger -n or a looser
    H is the way on: it now says about how many encounters the widest figure would need
    at a half-width shrinking as 1/√n, and a run of that many meets the rule."""
    from simlab.tuning.precision import describe_record

    capped = simlab.simulate(duel, 2000, precision=0.003, precision_on=["hit_rate:strike"])
    record = capped.meta["precision"]
    widest = record["widest"]
    needed = 2000 * (widest["half_width"] / widest["limit"]) ** 2
    said = describe_record(record)
    match = re.search(r"about ([\d,]+) encounters would meet it", said)
    assert match, said
    about = int(match.group(1).replace(",", ""))
    assert abs(about - needed) <= 0.05 * needed
    again = simlab.simulate(duel, about, precision=0.003, precision_on=["hit_rate:strike"])
    assert again.meta["precision"]["met"]
    met = simlab.simulate(duel, 8000, precision=0.05).meta["precision"]
    assert "would meet it" not in describe_record(met)


def test_a_variant_run_to_a_precision_says_a_first_compile_as_simulate_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sweep's point or a tune's value run to a precision (``simulate_among``) listens
    for a first compile as :func:`simlab.simulate` does, so that the Python API says it
    once, instead of a long silence."""
    from simlab import api
    from simlab.tuning.precision import simulate_among

    listened: list[str] = []
    real = api.told_of_compiles

    def recording(progress: Any, rules: str) -> Any:
        listened.append(rules)
        return real(progress, rules)

    monkeypatch.setattr(api, "told_of_compiles", recording)
    scenario = simlab.load(SS_DUEL)
    result = simulate_among(scenario, [scenario], 4000, 1, 0.2, ())
    assert listened == [scenario.rules]
    assert result.meta["precision"]["encounters"] > 0


def test_a_sweep_to_a_precision_takes_one_figure_written_alone(duel: Any) -> None:
    """``precision_on="hit_rate:strike"``, one figure as :func:`simlab.simulate` takes it:
    the sweep read it letter by letter (``precision_on h: expected a figure``)."""
    vary = {"Defender.hp": [5, 20]}
    alone = simlab.sweep(duel, vary, 4000, precision=0.05, precision_on="hit_rate:strike",
                         exact=False)  # fmt: skip
    listed = simlab.sweep(duel, vary, 4000, precision=0.05, precision_on=["hit_rate:strike"],
                          exact=False)  # fmt: skip
    for one, other in zip(alone.points, listed.points, strict=True):
        assert one.result.meta["precision"]["on"] == ["hit_rate:strike"]
        assert one.result.meta["precision"] == other.result.meta["precision"]
        _same(one.result, other.result)


def test_figures_given_by_a_generator_are_read_once(duel: Any) -> None:
    """``precision_on`` as a generator: read once, where every later use found it empty
    (an empty one without a precision raised StopIteration, a traceback)."""
    listed = simlab.simulate(duel, 4000, precision=0.05, precision_on=["hit_rate:strike"])
    generated = simlab.simulate(duel, 4000, precision=0.05,
                                precision_on=(f for f in ["hit_rate:strike"]))  # fmt: skip
    assert generated.meta["precision"] == listed.meta["precision"]
    assert generated.meta["precision"]["on"] == ["hit_rate:strike"]
    plain = simlab.simulate(duel, 500)
    _same(simlab.simulate(duel, 500, precision_on=(f for f in [])), plain)
    swept = simlab.sweep(duel, {"Defender.hp": [5, 20]}, 4000, precision=0.05,
                         precision_on=(f for f in ["hit_rate:strike"]), exact=False)  # fmt: skip
    assert all(p.result.meta["precision"]["on"] == ["hit_rate:strike"] for p in swept.points)


def test_the_rule_says_which_figures_it_holds(duel: Any) -> None:
    """The ``precision:`` line said "every reported rate and mean" while a mean time to
    down if downed, shown beside "precision met", was held to nothing: the words name each
    kind of rate the rule holds, and the mean it leaves out."""
    run = simlab.simulate(duel, 20_000)
    rule = precision_rule(0.01)
    held = {row["figure"] for row in widest(run.tallies, run.layout, run.encounters, rule)}
    said = rule.describe()
    rates = {figure.removesuffix("_rate") for figure in held if figure.endswith("_rate")}
    assert rates == {"hit", "crit", "down", "win", "draw"}
    assert all(f" {kind}" in said for kind in rates)
    assert "mean_time_to_down" not in held and "but the mean time-to-down if downed" in said
    assert {"mean_damage", "mean_rounds"} <= held
