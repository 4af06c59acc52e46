"""``bench/bench_ab.py``: two versions of simlab timed A-B-B-A, each in its own worker."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios/benchmarks/ss-duel.yaml"


def bench_ab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench.bench_ab", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def test_refuses_a_folder_that_holds_no_simlab(tmp_path: Path) -> None:
    # The worker in tmp_path finds simlab only through the installed package, which lives
    # elsewhere: timing it would compare the installed version with itself.
    done = bench_ab(str(tmp_path), str(ROOT), str(SCENARIO), "--rounds", "1")
    assert done.returncode != 0
    assert f"expected {tmp_path} to hold simlab; its worker imported" in done.stderr
    assert str(ROOT / "simlab") in done.stderr


@pytest.mark.slow
def test_times_both_versions_in_turn() -> None:
    done = bench_ab(str(ROOT), str(ROOT), str(SCENARIO), "-n", "20000", "--rounds", "2")
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[-1]
    match = re.fullmatch(r"ss-duel\.yaml +A +([\d.]+) +B +([\d.]+) +A/B "
                         r"([\d.]+) \(([\d.]+)-([\d.]+)\)", line)  # fmt: skip
    assert match, line
    speed_a, speed_b, ratio, low, high = map(float, match.groups())
    assert speed_a > 0 and speed_b > 0
    assert low <= ratio <= high  # printed to the same places, so rounding keeps the order
