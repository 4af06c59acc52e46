"""Benchmark: the exact engine's answers, against their time targets.

Run with ``python -m bench.bench_exact`` from the repository root. Each figure is the
best of a few repeats, after the imports and one warm-up call:

* the full per-attack table (``simlab.exact(scn).attacks()``) of every scenario in
  ``scenarios/`` that has one: < 100 ms each;
* the ss-duel time-to-down: < 50 ms;
* the ss-duel with the defender's HP raised to 500 (edited in memory): < 1 s.

Prints each figure with PASS/FAIL; the exit code is 1 when any target is missed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import simlab
from simlab.errors import ExactUnsupported
from simlab.exact.engine import exact

ROOT = Path(__file__).resolve().parents[1]
DUEL = ROOT / "scenarios" / "benchmarks" / "ss-duel.yaml"
REPEATS = 5
TABLE_TARGET, DUEL_TARGET, BIG_DUEL_TARGET = 0.100, 0.050, 1.0
BIG_HP = 500


def best_time(work: Callable[[], Any]) -> float:
    """Best wall time of ``REPEATS`` calls of ``work``, after one warm-up call."""
    work()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def report(label: str, seconds: float, target: float) -> bool:
    """Print one figure against its target; True when it is met."""
    ok = seconds < target
    verdict = "PASS" if ok else "FAIL"
    print(f"{label:<58} {seconds * 1e3:9.2f} ms  (target < {target * 1e3:.0f} ms)  {verdict}")
    return ok


def attack_tables() -> list[bool]:
    """Time the per-attack table of every example scenario that can be solved."""
    results = []
    for path in sorted((ROOT / "scenarios").glob("*/*.yaml")):
        scn = simlab.load(path)
        try:
            exact(scn)
        except ExactUnsupported as err:
            print(f"{path.relative_to(ROOT)}: not solvable exactly ({str(err).splitlines()[0]})")
            continue
        seconds = best_time(partial(_attack_table, scn))
        results.append(report(f"attack table {path.relative_to(ROOT)}", seconds, TABLE_TARGET))
    return results


def _attack_table(scn: object) -> object:
    return exact(scn).attacks()  # type: ignore[arg-type]


def duels() -> list[bool]:
    """Time the ss-duel time-to-down, and the same duel with HP 500."""
    module = simlab.exact.shattered_spirits
    duel = simlab.load(DUEL)
    text = DUEL.read_text()
    big = simlab.loads(text.replace("{name: Defender, hp: 30", f"{{name: Defender, hp: {BIG_HP}"))
    assert module.duel_time_to_down(big).mean > 100, "HP edit did not apply"
    return [
        report("ss-duel time-to-down", best_time(lambda: module.duel_time_to_down(duel)),
               DUEL_TARGET),
        report(f"ss-duel time-to-down, HP {BIG_HP}",
               best_time(lambda: module.duel_time_to_down(big)), BIG_DUEL_TARGET),
        report(f"simlab.exact(ss-duel, HP {BIG_HP}) (all figures)",
               best_time(lambda: exact(big)), BIG_DUEL_TARGET),
    ]  # fmt: skip


def main() -> int:
    """Run every benchmark; 0 when all targets are met."""
    import simlab.exact.shattered_spirits  # noqa: F401  (the duel benchmarks use it)

    results = attack_tables() + duels()
    print(f"{sum(results)}/{len(results)} targets met")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
