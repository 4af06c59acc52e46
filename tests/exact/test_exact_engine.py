"""The exact engine (``simlab.exact``), ``simlab exact`` and ``simlab run --check``.

The per-pair and duel numbers themselves are checked against brute force in
``test_ss_exact.py``; here: the engine calls them for every pair, lays them out in the
documented tables and summary, records refusals, and checks simulations against them.

False alarms. ``check`` figures are compared within 4.5 standard errors: P(|z| > 4.5)
≈ 6.8e-6 each under a correct simulator; the simulations below have fixed seeds and
together fewer than 60 figures, so a correct simulator fails them with chance ≲ 4e-4
(and, the seeds being fixed, either always or never).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

import simlab
import simlab.exact.shattered_spirits as ss_exact
from simlab.analysis.summary import summary as sim_summary
from simlab.errors import ExactUnsupported
from simlab.exact import pair_answer
from simlab.exact.engine import CHECK_COLUMNS, CHECK_Z, check_simulation, check_verdict, exact
from tests.cli.simlab_runs import simlab_here
from tests.support import UNSOLVABLE, printed_at

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
PARTY = ROOT / "scenarios/shattered-spirits/party-3v3.yaml"
SEED = 20240611


#: A command's output and exit status, in this process (``python -m simlab`` would load
#: numpy, pandas, scipy and the kernels again, 1.5-3 s of CPU, for nothing these tests read).
run_cli = simlab_here


# -- tables --------------------------------------------------------------------------------


def test_attacks_table_has_every_pair_from_the_system_module() -> None:
    scn = simlab.load(QUICKSTART)
    table = simlab.exact(scn).attacks()  # the package is callable although imported
    assert list(table.columns) == ["attacker", "attack", "defender", "hit_rate", "crit_rate",
                                   "mean_damage", "moved_by_fight"]  # fmt: skip
    assert (table.moved_by_fight == "").all()  # a duel of quickstart: nothing moves them
    assert list(zip(table.attacker, table.attack, table.defender, strict=True)) == [
        ("Kaito", "quick-jab", "Brute"),
        ("Brute", "stone-strike", "Kaito"),
    ]
    for row, (a, d) in zip(table.itertuples(), [(0, 1), (1, 0)], strict=True):
        ref = ss_exact.attack_outcome(scn, a, row.attack, d)  # type: ignore[arg-type]
        assert (row.hit_rate, row.crit_rate, row.mean_damage) == (
            ref.hit_rate, ref.crit_rate, ref.mean_damage)  # fmt: skip
    assert table.crit_rate.iloc[1] == pytest.approx(3 / 36)  # rows 11 and 12 crit


def test_answers_a_fight_moves_are_flagged_in_the_table_and_the_repr() -> None:
    """knight-vs-skeleton's Knight blocks on only some attacks, so a fight moves the
    rusty spear's hit rate and mean damage away from the fresh-defender answer (0.55
    against some 0.47 simulated): ``attacks()`` and the repr gave it as a plain answer,
    the reason only in ``pairs[i].caveats``."""
    solved = exact(ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml")
    table = solved.attacks()
    moved = table[table.moved_by_fight != ""]
    assert list(moved.attacker) == ["Skeleton 1", "Skeleton 2"]
    assert set(moved.moved_by_fight) == {"hit_rate, mean_damage"}
    assert (table[table.attacker == "Knight"].moved_by_fight == "").all()
    caveats = solved.caveats()
    assert list(caveats.columns) == ["attacker", "attack", "defender", "figure", "reason"]
    assert list(zip(caveats.attacker, caveats.figure, strict=True)) == [
        ("Skeleton 1", "hit_rate"), ("Skeleton 1", "mean_damage"),
        ("Skeleton 2", "hit_rate"), ("Skeleton 2", "mean_damage")]  # fmt: skip
    assert set(caveats.reason) == {"Knight blocks on only some attacks"}
    said = "1 refused; in a fight, figures of 2 pairs move away from these answers "
    assert said + "(.caveats(), column moved_by_fight);" in repr(solved), repr(solved)
    assert exact(DUEL).caveats().empty and "caveats" not in repr(exact(DUEL))


def test_damage_pmf_is_tidy_and_consistent_with_the_means() -> None:
    solved = exact(QUICKSTART)
    pmf = solved.damage_pmf()
    assert list(pmf.columns) == ["attacker", "attack", "defender", "damage", "probability"]
    assert (pmf.probability > 0).all()
    for row in solved.attacks().itertuples():
        mine = pmf[(pmf.attacker == row.attacker) & (pmf.attack == row.attack)]
        assert mine.probability.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.dot(mine.damage, mine.probability) == pytest.approx(row.mean_damage)


def test_duel_time_to_down_table_mean_and_median() -> None:
    solved = exact(DUEL)
    assert solved.duel is not None and solved.refusals == []
    assert solved.duel.mean == pytest.approx(10.16650, abs=5e-6)
    assert solved.duel.median == 10
    ttd = solved.time_to_down()
    assert list(ttd.columns) == ["combatant", "round", "probability", "down_by_round"]
    assert ttd["round"].tolist() == list(range(1, 101))
    assert (ttd.combatant == "Defender").all()
    assert np.all(np.diff(ttd.down_by_round) >= 0)
    np.testing.assert_allclose(ttd.down_by_round, ttd.probability.cumsum(), atol=1e-15)
    assert ttd.probability.sum() + solved.duel.censored == pytest.approx(1.0, abs=1e-12)
    cdf = ttd.probability.cumsum()
    assert cdf.iloc[8] < 0.5 <= cdf.iloc[9]  # the median, round 10


def test_no_duel_gives_an_empty_time_to_down_table() -> None:
    solved = exact(QUICKSTART)
    assert solved.duel is None
    assert solved.time_to_down().empty
    reason = ("expected a one-sided duel (one combatant with attacks, and one opponent that "
              "does not fight back); got 2 combatants with attacks, Kaito and Brute, who "
              "fight each other")  # fmt: skip
    assert solved.refusals == [("time_to_down", reason)]


# -- summary -------------------------------------------------------------------------------


def _shape(doc: dict) -> set[str]:
    return {k for k in doc if not k.endswith("_ci")}


@pytest.mark.kernels
def test_summary_has_the_run_shape_without_intervals() -> None:
    res = simlab.simulate(DUEL, n=2_000, seed=SEED, threads=1)
    sim = sim_summary(res)
    doc = exact(DUEL).summary()
    json.dumps(doc, allow_nan=False)  # JSON-ready
    assert doc["method"] == "exact"
    skipped = {"encounters", "seed", "interval_level"}
    # scenario_hash: a run's summary.json has it in its run stamp, written with the file
    assert _shape(doc) - {"method", "refusals", "scenario_hash"} == _shape(sim) - skipped
    assert _shape(doc["attacks"][0]) == _shape(sim["attacks"][0]) - {"attempts"} | {"caveats"}
    assert doc["attacks"][0]["caveats"] == {}  # a duel: nothing moves the answer
    defender = next(c for c in sim["combatants"] if c["name"] == "Defender")
    assert set(doc["combatants"][0]) <= _shape(defender)
    ttd = doc["combatants"][0]["time_to_down"]
    assert set(ttd) == _shape(defender["time_to_down"]) - {"mean_time_to_down_ci"} | {"mean"}
    lo, hi = defender["time_to_down"]["mean_time_to_down_ci"]  # 95%: about ±2σ
    sigma = (hi - lo) / 4
    assert abs(ttd["mean_time_to_down"] - defender["time_to_down"]["mean_time_to_down"]) < 4 * sigma
    assert not any(k.endswith("_ci") for a in doc["attacks"] for k in a)
    assert ttd["median_time_to_down"] == ttd["median_time_to_down_when_downed"] == 10.0
    assert ttd["down_by_round"]["100"] == pytest.approx(1 - ttd["capped"], abs=1e-12)
    assert doc["attacks"][0]["damage_pmf"]["0"] == pytest.approx(6 / 36)  # rows 2-3, 4 - guard


@pytest.mark.kernels
def test_summary_median_past_the_round_cap_is_not_reached_as_in_a_run() -> None:
    """With max_rounds 5 the duel ends a draw long before the defender's median round
    (10): half of all encounters never have it down, and summary.json says so (null), as
    a run's does, where it gave 10. The terminal gives the round with the cap beside it."""
    capped = simlab.load(DUEL).with_(max_rounds=5)
    solved = exact(capped)
    assert solved.duel is not None and solved.duel.median == 10
    ttd = solved.summary()["combatants"][0]["time_to_down"]
    assert ttd["median_time_to_down"] is None
    run = sim_summary(simlab.simulate(capped, n=2_000, seed=SEED, threads=1))
    defender = next(c for c in run["combatants"] if c["name"] == "Defender")
    assert defender["time_to_down"]["median_time_to_down"] is None
    done = run_cli("exact", str(DUEL), "--set", "max_rounds=5")
    assert done.returncode == 0, done.stderr
    assert "10 (> cap 5)" in done.stdout
    assert ttd["median_time_to_down_when_downed"] == 5.0  # the few downed by round 5


def test_summary_lists_refusals() -> None:
    doc = exact(PARTY).summary()
    refusals = doc["refusals"]
    assert {r["figure"] for r in refusals} == {"attack", "time_to_down"}
    kaito = [r for r in refusals if r["defender"] == "Kaito"]
    assert len(kaito) == 3 and all("react: block" in r["reason"] for r in kaito)


# -- refusals ------------------------------------------------------------------------------


def test_refusals_name_the_feature_and_do_not_stop_the_rest() -> None:
    solved = exact(PARTY)
    refused = {s: r for s, r in solved.refusals}
    assert len(solved.pairs) == 15
    assert "reactions" in refused[("Ogre", "crushing-blow", "Mira")]
    assert "react: evade" in refused[("Ogre", "crushing-blow", "Mira")]
    assert "duel" in refused["time_to_down"]


def test_nothing_solvable_raises_with_every_reason_and_the_hint() -> None:
    with pytest.raises(ExactUnsupported) as err:
        exact(simlab.loads(UNSOLVABLE))
    message = str(err.value)
    assert "react: block" in message and "react: evade" in message
    assert "\n  - time-to-down: expected a one-sided duel (one combatant with attacks" in message
    assert "time_to_down" not in message  # the figure's id, not the reader's words
    assert message.endswith("use `simlab run` to simulate it")


# -- the CLI -------------------------------------------------------------------------------


def test_cli_exact_prints_and_writes(tmp_path: Path) -> None:
    done = run_cli("exact", str(DUEL), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "Attacker" in done.stdout and "0.9167" in done.stdout  # hit rate 33/36
    assert "10.1665" in done.stdout  # mean time-to-down
    assert "wrote 4 files" in done.stdout
    doc = json.loads((tmp_path / "out/summary.json").read_text())
    assert doc["method"] == "exact" and doc["scenario"] == "ss-duel"
    ttd = pd.read_parquet(tmp_path / "out/time_to_down.parquet")
    assert len(ttd) == 100
    assert len(pd.read_parquet(tmp_path / "out/attacks.parquet")) == 1
    assert not list((tmp_path / "out").glob(".*tmp"))  # no temporary file left behind


@pytest.mark.kernels
def test_cli_exact_of_a_changed_scenario_says_what_changed(tmp_path: Path) -> None:
    """`exact --set` answers for the scenario as changed, and says so as `run --set` does:
    beside the name in the terminal and as ``overrides`` in summary.json (neither did:
    the file read as the answers of the scenario as written)."""
    sets = ["--set", "max_rounds=9", "--set", "Defender.guard=2"]
    done = run_cli("exact", str(DUEL), *sets, "--out", str(tmp_path / "exact"))
    assert done.returncode == 0, done.stderr
    ran = run_cli("run", str(DUEL), *sets, "-n", "500", "--out", str(tmp_path / "run"))
    assert ran.returncode == 0, ran.stderr
    exact_doc = json.loads((tmp_path / "exact/summary.json").read_text())
    run_doc = json.loads((tmp_path / "run/summary.json").read_text())
    assert exact_doc["overrides"] == run_doc["overrides"] == ["max_rounds=9", "Defender.guard=2"]
    assert "ss-duel · with max_rounds=9, Defender.guard=2 · rules" in done.stdout
    assert "overrides" not in exact(DUEL).summary()


@pytest.mark.parametrize(
    ("path", "crits"),
    [("zones-3d6/longsword-vs-plate.yaml", False), ("shattered-spirits/quickstart.yaml", True)],
)
def test_cli_exact_shows_a_crit_rate_where_the_rules_have_crits(path: str, crits: bool) -> None:
    """zones-3d6 has no critical hits: its table has no column of zeros for them (nor
    has a duel whose attacks cannot crit, as ss-duel.yaml's)."""
    done = run_cli("exact", str(ROOT / "scenarios" / path))
    assert done.returncode == 0, done.stderr
    assert "hit rate" in done.stdout and ("crit rate" in done.stdout) == crits


def test_cli_exact_lists_refusals_with_the_hint() -> None:
    done = run_cli("exact", str(PARTY))
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())  # lines wrapped at the terminal's width
    assert ("not solved exactly: 6 pairs and time-to-down (use `simlab run` to simulate "
            "them):") in said  # fmt: skip
    assert "  - time-to-down: expected a one-sided duel" in done.stdout
    assert "time_to_down" not in done.stdout  # an id, not words
    assert "Ogre: crushing-blow → Kaito: expected a defender without reactions" in done.stdout


def test_cli_exact_names_what_a_fight_moves() -> None:
    """party-fight's hidden Scout opens with undefended shots: its shortbow's answers
    are for the rounds after, and the exact command says so, one line for all six
    defenders."""
    done = run_cli("exact", str(ROOT / "scenarios/opposed-tiers/party-fight.yaml"))
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())  # lines wrapped at the terminal's width
    assert ("in a fight, figures of 6 pairs move away from the answers above (`simlab run "
            "--check` does not compare them):") in text  # fmt: skip
    assert ("hit rate, crit rate, mean damage of Scout: shortbow → Raider 1, Raider 2, "
            "Raider 3, Raider 4, Cutthroat, Raider Chief: Scout's 'shortbow' is an "
            "undefended surprise attack in round 0") in text  # fmt: skip
    duel = run_cli("exact", str(DUEL))
    assert "in a fight" not in duel.stdout  # a duel's answer is its fight's


def test_cli_exact_wraps_a_listed_item_under_its_text() -> None:
    """At 80 columns a long item of the list of what a fight moves wraps with its
    continuation lines indented under the item's text, not at the left edge."""
    fight = ROOT / "scenarios/opposed-tiers/party-fight.yaml"
    done = run_cli("exact", str(fight), columns="80")
    lines = done.stdout.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("  - hit rate"))
    assert lines[first + 1].startswith("    ") and lines[first + 1].strip(), lines
    assert max(len(line) for line in lines) <= 80, lines


def test_cli_exact_tells_the_uncapped_mean_from_the_one_check_compares() -> None:
    """Under a round cap that binds, the duel's table gives the mean without the cap
    (10.17 rounds for ``ss-duel`` under a cap of 5) and, marked apart, the mean among
    fights the defender is down by the cap: the number ``run --check`` compares, which
    it printed as ``exact`` beside the same word "mean" (4.96), in 80 columns."""
    duel = ROOT / "scenarios/benchmarks/ss-duel.yaml"
    done = run_cli("exact", str(duel), "--set", "max_rounds=5", columns="80")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80 and "…" not in done.stdout, lines
    heading = lines[next(k for k, line in enumerate(lines) if "time-to-down" in line) + 2]
    assert heading.split() == ["combatant", "no", "cap", "no", "cap", "no", "cap", "down", "by",
                               "cap", "round", "cap"]  # fmt: skip
    solved = exact(simlab.load(duel).with_(max_rounds=5)).duel
    _, if_down, _ = solved.capped_moments()
    row = next(line for line in lines if line.startswith(" Defender")).split()
    assert float(row[1]) == pytest.approx(solved.mean, abs=1e-5) and solved.mean > 10
    assert float(row[-2]) == pytest.approx(if_down, abs=1e-5) and if_down < 5


def test_cli_exact_exits_2_when_nothing_can_be_solved(tmp_path: Path) -> None:
    bad = tmp_path / "unsolvable.yaml"
    bad.write_text(UNSOLVABLE)
    done = run_cli("exact", str(bad))
    assert done.returncode == 2
    assert "cannot solve scenario 'unsolvable' exactly" in done.stderr
    assert "use `simlab run` to simulate it" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.kernels
def test_cli_run_check_prints_the_comparison_and_verdict() -> None:
    done = run_cli("run", str(QUICKSTART), "-n", "20000", "--threads", "1", "--check")
    assert done.returncode == 0, done.stderr
    assert "check against the exact answers" in done.stdout
    said = " ".join(done.stdout.split())
    verdict = "check: all 5 figures within 4.5 standard errors (p ≥ 6.8e-06) of the exact answer"
    assert verdict in said
    assert "not checked:\n  - time-to-down: expected a one-sided duel" in done.stdout
    # The jab cannot crit: its crit rate of 0, simulated 0, is no row (a z-test of
    # nothing, whose p of 1.0 drew in the footnote of the binomial p), but one note.
    table = done.stdout[done.stdout.index("check against") : done.stdout.index("certain and")]
    assert "crit_rate: Kaito" not in table and "*" not in done.stdout, done.stdout
    assert ("certain and simulated so, nothing to test: crit_rate of Kaito: quick-jab → Brute "
            "(exact 0)") in said  # fmt: skip


@pytest.mark.kernels
def test_cli_run_check_on_an_unsolvable_scenario_still_exits_0(tmp_path: Path) -> None:
    bad = tmp_path / "unsolvable.yaml"
    bad.write_text(UNSOLVABLE)
    done = run_cli("run", str(bad), "-n", "200", "--threads", "1", "--check")
    assert done.returncode == 0, done.stderr
    assert "check: no figure could be checked against an exact answer" in done.stdout


# -- simulate(check=True) ------------------------------------------------------------------


def _assert_all_close(check: pd.DataFrame) -> None:
    assert list(check.columns) == CHECK_COLUMNS
    bad = check[~(check.z.abs() < CHECK_Z)]
    assert bad.empty, bad.to_string()
    assert ((check.p_value >= 0) & (check.p_value <= 1)).all()


@pytest.mark.kernels
def test_simulate_check_on_the_duel() -> None:
    res = simlab.simulate(DUEL, n=50_000, seed=SEED, threads=1, check=True)
    assert res.check is not None
    _assert_all_close(res.check)
    assert set(res.check.figure) == {
        "hit_rate",
        "mean_damage",
        "down_by_round_cap",
        "mean_time_to_down",
    }
    # its attack cannot crit: nothing to test, and said so
    assert [c[0] for c in res.check.attrs["certain"]] == ["crit_rate"]
    ttd = res.check[res.check.figure == "mean_time_to_down"].iloc[0]
    assert ttd.exact == pytest.approx(10.16650, abs=5e-6)
    mean, var = _rounds_to_down(simlab.load(DUEL), need=30, cap=100)
    downs = int(res.tallies.down_round[1].sum())
    assert ttd.exact == pytest.approx(mean, abs=1e-9)
    assert ttd.std_error == pytest.approx(math.sqrt(var / downs), rel=1e-6)


def _rounds_to_down(scenario: object, need: int, cap: int) -> tuple[float, float]:
    """Mean and variance of the Defender's round of down in ss-duel (one strike a round,
    its damage independent of the rest), given down by ``cap``: the damage not yet
    ``need`` is convolved with one strike's damage pmf round by round."""
    strike = ss_exact.attack_outcome(scenario, 0, "strike", 1).damage_pmf  # type: ignore[arg-type]
    alive, down_by = np.array([1.0]), [0.0]
    for _ in range(cap):
        alive = np.convolve(alive, strike)[:need]
        down_by.append(1.0 - alive.sum())
    pmf, rounds = np.diff(down_by) / down_by[-1], np.arange(1, cap + 1)
    mean = float(rounds @ pmf)
    return mean, float((rounds - mean) ** 2 @ pmf)


@pytest.mark.parametrize("path", [QUICKSTART, PARTY])
@pytest.mark.kernels
def test_simulate_check_on_multi_pair_scenarios(path: Path) -> None:
    res = simlab.simulate(path, n=20_000, seed=SEED, threads=1, check=True)
    assert res.check is not None
    _assert_all_close(res.check)
    assert len(res.check) >= 5
    assert check_verdict(res.check).startswith(f"all {len(res.check)} figures within 4.5")


@pytest.mark.kernels
def test_check_compares_no_crit_rate_under_rules_without_crits() -> None:
    """zones-3d6 has no critical hits (its tables have no crit-rate column), yet `run
    --check` compared a crit rate of 0 with an exact 0 for every pair, counted among the
    figures of its verdict."""
    res = simlab.simulate(ROOT / "scenarios/zones-3d6/training-duel.yaml", n=2000, seed=SEED,
                          threads=1, check=True)  # fmt: skip
    assert res.check is not None and not res.layout.crits
    assert "crit_rate" not in set(res.check.figure)
    assert {"hit_rate", "mean_damage"} <= set(res.check.figure)


@pytest.mark.kernels
def test_check_skips_figures_a_fight_can_move() -> None:
    res = simlab.simulate(PARTY, n=2_000, seed=SEED, threads=1, check=True)
    assert res.check is not None
    # Mira's flame-lash exposes every enemy: damage against them is not compared...
    against_enemies = res.check[res.check.defender.isin(["Brute 1", "Brute 2", "Ogre"])]
    assert "mean_damage" not in set(against_enemies.figure)
    assert "hit_rate" in set(against_enemies.figure)  # ...but the rolls are
    skipped = dict(res.check.attrs["skipped"])
    assert "'exposed 1'" in skipped["mean damage of Kaito: quick-jab → Ogre"]
    assert "'impaired 1'" in skipped["mean damage of Ogre: crushing-blow → Sato"]
    assert not any(res.check.defender.isin(["Kaito", "Mira"]))  # reactions: refused


@pytest.mark.kernels
def test_summary_names_the_figures_a_fight_can_move() -> None:
    """The summary keeps each pair's caveats; tables and pages that set the exact answer
    beside a simulated figure leave it out where a caveat says the fight moves it."""
    doc = exact(PARTY).summary()
    json.dumps(doc, allow_nan=False)
    pairs = {(a["attacker"], a["attack"], a["defender"]): a for a in doc["attacks"]}
    jab = pairs[("Kaito", "quick-jab", "Ogre")]
    assert set(jab["caveats"]) == {"mean_damage"} and "'exposed 1'" in jab["caveats"]["mean_damage"]
    assert pair_answer(jab, "hit_rate") == jab["hit_rate"]
    assert np.isnan(pair_answer(jab, "mean_damage"))
    assert pair_answer({"mean_damage": 2.5}, "mean_damage") == 2.5  # written before caveats
    sweep = simlab.sweep(PARTY, {"Ogre.hp": [20, 30]}, n=500)
    row = sweep.attacks().query("attacker == 'Kaito' and defender == 'Ogre'").iloc[0]
    assert row.exact_hit_rate == jab["hit_rate"] and np.isnan(row.exact_mean_damage)


@pytest.mark.filterwarnings("ignore:exact answers not drawn")  # said where they are tested
@pytest.mark.slow  # draws a whole report
@pytest.mark.kernels
def test_report_leaves_out_what_a_fight_moves() -> None:
    """The balance report's attack table and hit-rate plot show the exact answer only
    for the figures the fight does not move: Kaito's jab at the Ogre keeps its exact
    hit and crit rate, and its mean damage (Mira's flame-lash exposes the Ogre) is a
    dash; its damage plot has no exact diamonds."""
    from simlab.report import plots
    from simlab.report.render import ExactDrawn, _attack_rows, _exact_note, _pictures
    from simlab.report.results import ScenarioRun

    res = simlab.simulate(PARTY, n=500, seed=SEED, threads=1)
    doc = exact(PARTY).summary()
    run = ScenarioRun(result=res, exact=doc)
    jab = next(e for e in doc["attacks"] if (e["attacker"], e["defender"]) == ("Kaito", "Ogre"))
    row = next(r for r in _attack_rows(run)[1] if r[:3] == ["Kaito", "quick-jab", "Ogre"])
    assert row[-1] == f"{jab['hit_rate']:.4f} / {jab['crit_rate']:.4f} / —"
    assert "fight moves away from the answer" in str(_exact_note(run, ExactDrawn()))
    rates = plots.plot_hit_rates(res, exact=doc, pool=False)
    shown = rates[(rates.attacker == "Kaito") & (rates.defender == "Ogre")].iloc[0]
    assert shown.exact_hit_rate == jab["hit_rate"]
    damage = plots.plot_damage_pmf(res, "Kaito", "quick-jab", "Ogre", exact=doc, pool=False)
    assert set(damage.source) == {"simulated"}
    # The captions name the exact answer only where it is drawn.
    pictures = {p.title: p for p in _pictures(run, ExactDrawn(), [])}
    rates_caption = pictures["hit and crit rates (95% intervals)"].caption
    assert "Open black diamond: the exact rate" in rates_caption
    jab_damage = pictures["Kaito · quick-jab: damage"].caption
    assert "Bars and dots: simulated." in jab_damage and "diamonds" not in jab_damage
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.kernels
def test_check_catches_a_wrong_answer() -> None:
    """A simulator (here: an oracle) off by 2 percentage points is flagged."""
    res = simlab.simulate(QUICKSTART, n=20_000, seed=SEED, threads=1)
    solved = exact(QUICKSTART)
    wrong = dataclasses.replace(solved.pairs[0], hit_rate=solved.pairs[0].hit_rate - 0.02)
    solved.pairs[0] = wrong
    check = check_simulation(res, solved)
    bad = check[check.z.abs() > CHECK_Z]
    assert bad[["figure", "attacker"]].values.tolist() == [["hit_rate", "Kaito"]]
    assert check.loc[bad.index[0], "p_value"] < 1e-6
    verdict = check_verdict(check)
    assert verdict.startswith("1 of 5 figures further from exact than 4.5 standard errors")
    assert "hit_rate of Kaito: quick-jab → Brute (z = " in verdict


@pytest.mark.parametrize(
    ("k", "expected", "fails"),
    [(6, 1.0, False), (20, 3.0, True), (1, 0.17, False), (0, 8.0, False)],
)
def test_a_rare_rate_is_checked_by_its_exact_binomial_p(k: int, expected: float,
                                                        fails: bool) -> None:  # fmt: skip
    """Where fewer than 10 events are expected the count is far from normal. 6 crits in
    15,000 attempts where 1 is expected is z = +5.0: a correct simulator failed the
    check, though the exact chance of so many is 6e-4. The p-value of such a rate is the
    exact binomial one (twice the smaller tail), and the verdict reads that p."""
    from simlab.exact.engine import _rate_row

    n = 15_000
    row = _rate_row("crit_rate", ("A", "bite", "B"), k / n, expected / n, n)
    check = pd.DataFrame([row], columns=CHECK_COLUMNS)
    tail = (sps.binom.sf(k - 1, n, expected / n) if k > expected
            else sps.binom.cdf(k, n, expected / n))  # fmt: skip
    assert check.p_value[0] == pytest.approx(min(2 * tail, 1.0), rel=1e-9)
    assert check_verdict(check).startswith("1 of 1 figure further" if fails else "the one")
    normal = math.erfc(abs(check.z[0]) / math.sqrt(2))
    if (k, expected) == (6, 1.0):  # what the normal approximation said
        assert check.z[0] > CHECK_Z and normal < 1e-5 < check.p_value[0]


CERTAIN_DAMAGE = """
scenario: certain-damage
rules: shattered-spirits
max_rounds: 3
attacks:
  crush: {profile: [999, 999, 999, 999, 999, 999, 999, 999, 999, 999, 999]}
  tap: {profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}
sides:
  a: [{name: A, hp: 1, attacks: [crush]}]
  b: [{name: B, hp: 100000, attacks: [tap]}]
"""


@pytest.mark.kernels
def test_check_passes_a_certain_figure_whatever_its_rounding() -> None:
    """Damage that is the same on every hit (999, 1) is certain: its exact mean and
    standard error carry only float rounding (5e-15), which is no spread to divide by;
    so are these attacks' hit rate (1 + 2e-16: a sum of floats) and crit rate (0).
    Simulated so, none has anything to test: no row, each one of ``attrs["certain"]``,
    and the verdict says so."""
    from simlab.report import terminal

    scn = simlab.loads(CERTAIN_DAMAGE)
    res = simlab.simulate(scn, n=2000, seed=SEED, threads=1)
    check = check_simulation(res, exact(scn))
    assert check.empty, check
    certain = {c[:4]: c[4] for c in check.attrs["certain"]}
    assert certain[("mean_damage", "A", "crush", "B")] == pytest.approx(999.0, rel=1e-14)
    assert certain[("mean_damage", "B", "tap", "A")] == pytest.approx(1.0, rel=1e-14)
    assert certain[("hit_rate", "A", "crush", "B")] == pytest.approx(1.0, rel=1e-14)
    assert len(certain) == 6
    verdict = "nothing to test: all 6 figures compared are certain and simulated so"
    assert check_verdict(check) == verdict
    text = " ".join(printed_at(lambda: terminal.print_check(check)).split())
    assert "check against the exact answers" not in text, text
    assert "mean_damage of A: crush → B (exact 999); hit_rate of B: tap → A (exact 1)" in text
    assert f"check: {verdict}" in text


@pytest.mark.kernels
def test_a_certain_figure_simulated_so_is_a_note_not_a_row() -> None:
    """``crit_rate: Kaito: quick-jab → Brute  0  0.0000  0  0.00  1.0*``: an attack that
    cannot crit, simulated without a crit, was a z-test of nothing (std error 0), counted
    in the verdict, and its ``*`` drew in the footnote on the exact binomial p. It is
    one line under the table now, and no figure of the verdict."""
    from simlab.report import terminal

    res = simlab.simulate(QUICKSTART, n=2000, seed=SEED, threads=1, check=True)
    assert res.check is not None
    jab = ("crit_rate", "Kaito", "quick-jab", "Brute")
    assert jab not in {tuple(r) for r in res.check[CHECK_COLUMNS[:4]].itertuples(index=False)}
    assert res.check.attrs["certain"] == [(*jab, 0.0)]
    text = printed_at(lambda: terminal.print_check(res.check))
    table = text[: text.index("certain and")]
    assert not re.search(r"^ ?crit_rate:.*\n?\s*Kaito: ", table, re.M), text  # no row
    assert "* exact binomial p" not in text, text
    assert ("certain and simulated so, nothing to test: crit_rate of Kaito: quick-jab → Brute "
            "(exact 0)") in " ".join(text.split())  # fmt: skip
    assert "check: all 5 figures within 4.5" in " ".join(text.split()), text


@pytest.mark.parametrize(("attacker", "figure", "certain"),
                         [("Brute", "crit_rate", 0.0), ("Kaito", "hit_rate", 1.0)])  # fmt: skip
@pytest.mark.kernels
def test_a_broken_certainty_is_a_failing_row(attacker: str, figure: str, certain: float) -> None:
    """A rate that is certain by the exact answer (0, or 1) and simulated otherwise (a
    crit where none can happen, a miss where every attack hits) is a row, and fails."""
    from simlab.report import terminal

    res = simlab.simulate(QUICKSTART, n=2000, seed=SEED, threads=1)
    solved = exact(QUICKSTART)
    k = next(i for i, p in enumerate(solved.pairs) if p.attacker == attacker)
    solved.pairs[k] = dataclasses.replace(solved.pairs[k], **{figure: certain})
    check = check_simulation(res, solved)
    row = check[(check.figure == figure) & (check.attacker == attacker)]
    assert len(row) == 1 and math.isinf(row.z.iloc[0]) and row.p_value.iloc[0] == 0, check
    assert (figure, attacker) not in {c[:2] for c in check.attrs["certain"]}
    # its row: the figure, and its pair beside it or on the line under it
    printed = printed_at(lambda: terminal.print_check(check))
    assert re.search(rf"^ ?{figure}:.*\n?\s*{attacker}: ", printed, re.M), printed
    assert check_verdict(check).startswith("1 of ")
    assert f"{figure} of {attacker}:" in check_verdict(check)
    # its p as the table writes it (p = 0 read as a p the double resolved)
    assert check_verdict(check).endswith(", p < 1e-16)")


def test_a_check_of_certain_figures_only_says_there_is_nothing_to_test() -> None:
    """Where every figure compared is certain and simulated so, the verdict says that,
    not that no figure could be checked, nor that all 0 are within 4.5 errors."""
    check = pd.DataFrame([], columns=CHECK_COLUMNS)
    check.attrs["certain"] = [("crit_rate", "A", "jab", "B", 0.0)]
    assert check_verdict(check) == ("nothing to test: the one figure compared is certain and "
                                    "simulated so")  # fmt: skip
    check.attrs["certain"] *= 2
    assert check_verdict(check) == ("nothing to test: all 2 figures compared are certain and "
                                    "simulated so")  # fmt: skip


@pytest.mark.kernels
def test_check_flags_any_change_of_a_certain_figure() -> None:
    """A certain figure simulated one point away is infinitely unlikely, not rounding."""
    scn = simlab.loads(CERTAIN_DAMAGE)
    res = simlab.simulate(scn, n=2000, seed=SEED, threads=1)
    solved = exact(scn)
    pmf = np.zeros(999)
    pmf[998] = 1.0
    solved.pairs[0] = dataclasses.replace(solved.pairs[0], mean_damage=998.0, damage_pmf=pmf)
    check = check_simulation(res, solved)
    crush = check[(check.figure == "mean_damage") & (check.attack == "crush")]
    assert crush.z.tolist() == [np.inf]


SCENARIOS = sorted((ROOT / "scenarios").glob("*/*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_example_scenario_is_solved_or_refused_by_name(path: Path) -> None:
    """Every system plugs in by convention; a refusal is ExactUnsupported, never a crash."""
    try:
        solved = exact(path)
    except ExactUnsupported as err:
        assert "use `simlab run`" in str(err)
        return
    json.dumps(solved.summary(), allow_nan=False)
    assert len(solved.attacks()) == len(solved.pairs)


DUELS = ["benchmarks/opposed-tiers-duel.yaml", "benchmarks/glitters-d20-duel.yaml",
         "zones-3d6/training-duel.yaml"]  # fmt: skip


@pytest.mark.parametrize("name", DUELS)
def test_summary_chances_of_a_duel_stay_within_0_and_1(name: str) -> None:
    """A chain's sums in floating point may end a hair past 1 (the opposed-tiers duel's
    P(down by the cap) summed to 1.0000000000000004): summary.json, read by other tools,
    gives a chance from 0 to 1, its down_rate the down_by_round at the round cap, as a
    run's does."""
    ttd_doc = exact(ROOT / "scenarios" / name).summary()["combatants"][0]
    by_round = list(ttd_doc["time_to_down"]["down_by_round"].values())
    assert all(0.0 <= p <= 1.0 for p in [*by_round, ttd_doc["down_rate"]])
    assert by_round == sorted(by_round)
    assert ttd_doc["down_rate"] == by_round[-1]
