"""Benchmark: where a plain duel's time goes, its attacks or the duel itself.

Run with ``python -m bench.bench_duel_parts [n] [rules…]`` from the repository root
(default ``n`` = 1,000,000 encounters, all five systems). Each system's benchmark duel
(``bench_duels``) is played on one thread with its defender's pool scaled by
:data:`SCALES`, so that the duels are of several lengths; the best of ``REPEATS`` runs
of each length counts, the lengths taken in turn. A straight line fitted to the time a
duel against the attacks it made splits that time in two: what each attack costs, and
what a duel costs whatever its length (its dice streams' first blocks, setting up its
cursors, the one mispredicted end of its loop, counting its end). Printed per system:
nanoseconds a duel at each length, the cost an attack, the cost a duel, and the share
of the benchmark duel's time that is the duel's own.

Why: a speed-up of the attack loop cannot take off more than the attacks' share; on
December 1 the glitters-d20 duel spent about two thirds of its time outside its attacks
(``docs/benchmark-history.md``).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import simlab
from bench.bench_duels import BENCH, DUELS
from bench.rounds import split_count
from simlab.scenario.common import ScenarioBase

DEFAULT_N = 1_000_000
REPEATS = 5
#: The defender's pool as a share of the benchmark duel's.
SCALES = (0.25, 0.5, 1.0, 1.5)
#: The fields that make a defender's pool, by rule system (the earlier draft's two).
POOL_FIELDS = {"shattered-spirits-draft1": ("endurance", "health")}


def scaled(scn: ScenarioBase, rules: str, scale: float) -> ScenarioBase:
    """``scn`` with its defender's pool fields times ``scale`` (at least 1)."""
    defender = scn.sides["defender"][0]  # type: ignore[attr-defined]  # each system's own model
    fields = POOL_FIELDS.get(rules, ("hp",))
    changes = {f"Defender.{f}": max(1, round(getattr(defender, f) * scale)) for f in fields}
    return simlab.override(scn, changes)


def duel_parts(rules: str, n: int) -> None:
    """Time one system's duel at each length on one thread; print the split."""
    base = simlab.load(BENCH / DUELS[rules].scenario)
    attacks, ns = time_lengths([scaled(base, rules, scale) for scale in SCALES], n, REPEATS)
    per_attack, per_duel = np.polyfit(attacks, ns, 1)
    at_benchmark = ns[SCALES.index(1.0)]
    lengths = "  ".join(f"{a:5.2f} att {t:6.2f} ns" for a, t in zip(attacks, ns, strict=True))
    print(f"{rules:<25} {lengths}")
    print(f"{'':<25} an attack {per_attack:5.2f} ns, a duel {per_duel:5.2f} ns: "
          f"{per_duel / at_benchmark:4.0%} of the benchmark duel's "
          f"{at_benchmark:.2f} ns")  # fmt: skip


def time_lengths(scns: list[ScenarioBase], n: int, repeats: int) -> tuple[list[float], list[float]]:
    """The attacks an encounter and the nanoseconds an encounter of each of ``scns``
    (the same scenario at several lengths), on one thread: each compiled or loaded and
    warmed up, then run ``repeats`` times in turn, the best run of each counting."""
    for scn in scns:
        simlab.simulate(scn, n=2_000, threads=1)  # compile or load, warm up
    best = [float("inf")] * len(scns)
    attacks = [0.0] * len(scns)
    for _ in range(repeats):
        for i, scn in enumerate(scns):
            t0 = time.perf_counter()
            result = simlab.simulate(scn, n=n, threads=1)
            best[i] = min(best[i], time.perf_counter() - t0)
            attacks[i] = float(result.tallies.attempts.sum()) / n
    return attacks, [seconds / n * 1e9 for seconds in best]


def main() -> None:
    """Run the systems named on the command line (default: all five)."""
    n, systems = split_count(sys.argv[1:], DEFAULT_N)
    unknown = sorted(set(systems) - set(DUELS))
    if unknown:
        sys.exit(f"expected rule systems among {', '.join(DUELS)}; got {', '.join(unknown)}")
    print(f"{n:,} encounters a run, one thread, best of {REPEATS}; pools x{SCALES}")
    for rules in systems or list(DUELS):
        duel_parts(rules, n)


if __name__ == "__main__":
    main()
