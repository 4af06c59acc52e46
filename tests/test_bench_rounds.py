"""``bench/rounds.py`` and the ``--rounds`` summaries of ``bench_duels`` and
``bench_scenarios``: a figure's median, range and rounds at target."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.rounds import every_round, summary

ROOT = Path(__file__).resolve().parents[1]


def test_summary_gives_the_median_the_range_and_the_rounds_at_target() -> None:
    line = summary("duel", [9.5, 12.0, 10.0, 8.0, 11.0], 10.0, lambda x: f"{x:.1f}x", width=6)
    assert line == "duel   median 10.0x  (8.0x to 12.0x)  at target in 3/5 rounds"


def test_a_figure_on_the_target_meets_it() -> None:
    assert summary("f", [20e6], 20e6, str).endswith("at target in 1/1 rounds")


def test_every_round_counts_only_what_met_the_target_each_time() -> None:
    figures = {"steady": [21.0, 20.0, 25.0], "once short": [30.0, 19.9, 30.0], "never": [1.0]}
    assert every_round(figures, 20.0) == 1


def run_bench(module: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_bench_duels_summarises_its_rounds() -> None:
    out = run_bench("bench.bench_duels", "20000", "zones-3d6", "--rounds", "2")
    ratios = sorted(float(r) for r in re.findall(r"ratio +([\d.]+)x", out))
    assert len(ratios) == 2
    median, low, high = figures_of(out, "zones-3d6", "x")
    assert (low, high) == tuple(ratios)
    assert median == pytest.approx(sum(ratios) / 2, abs=0.011)  # the mean of two, rounded
    assert "/1 systems at >= 10x in every round" in out


@pytest.mark.slow
def test_bench_scenarios_summarises_its_rounds() -> None:
    duel = "scenarios/benchmarks/ss-duel.yaml"
    out = run_bench("bench.bench_scenarios", "20000", "--rounds", "3", duel)
    speeds = sorted(float(s) for s in re.findall(r"M enc/s +([\d.]+) M attacks/s", out))
    assert len(speeds) == 3
    median, low, high = figures_of(out, duel, "")
    assert (median, low, high) == (speeds[1], speeds[0], speeds[2])
    met = sum(speed >= 20 for speed in speeds)
    assert f"at target in {met}/3 rounds" in out


def figures_of(out: str, name: str, unit: str) -> tuple[float, float, float]:
    """(median, lowest, highest) from the summary line of ``name``."""
    line = next(line for line in out.splitlines() if line.startswith(name) and "median" in line)
    number = rf"([\d.]+){unit}"
    match = re.search(rf"median +{number} +\( *{number} to +{number}\)", line)
    assert match, line
    median, low, high = map(float, match.groups())
    return median, low, high


def test_bench_duels_refuses_an_unknown_system() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.bench_duels", "10", "no-such-rules"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert "expected rule systems among" in done.stderr and "got no-such-rules" in done.stderr


@pytest.mark.parametrize("module", ["bench.bench_duels", "bench.bench_scenarios"])
def test_a_run_of_no_rounds_is_refused(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--rounds", "0"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert "expected --rounds of at least 1; got 0" in done.stderr
