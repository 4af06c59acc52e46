"""Benchmark: every rule system's plain duel through ``simlab.simulate`` against numpy.

Run with ``python -m bench.bench_duels [n] [rules…] [--rounds R]`` from the repository
root (default ``n`` = 2,000,000, all five systems, one round). Each duel is a
``scenarios/benchmarks/<…>.yaml``: one attacker, one attack per turn, against a defender
that does not fight back. Its numpy peer plays the same duel in lockstep over all
encounters still running: each round it rolls every running duel's dice at once, turns
them into damage by the system's rules (the scenario's numbers written out below),
subtracts it and drops the duels whose defender is down.

Both run in this process over ``n`` encounters, ``REPEATS`` times each, alternating, and
the fastest of each counts (the run least disturbed by other load on a shared machine);
simlab runs on all numba threads, numpy on one. Both mean times-to-down are printed, and
the numpy one is checked against simlab's within 5 standard errors: the two play the same
rules on different dice. With ``--rounds R`` the whole comparison is made ``R`` times
over, and each system's ratio summarised: its median, its range, and in how many rounds
it reached the target of 10x (``bench/rounds.py``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import simlab
from bench.rounds import add_rounds, every_round, parse_with_rounds, split_count, summary

BENCH = Path(__file__).resolve().parent.parent / "scenarios" / "benchmarks"
DEFAULT_N = 2_000_000
NUMPY_CHUNK = 1_000_000
REPEATS = 3
TARGET_RATIO = 10.0  # issue 19, target 1

Damage = Callable[[np.random.Generator, int], np.ndarray]


def roll(gen: np.random.Generator, count: int, sides: int, m: int) -> np.ndarray:
    """``count`` dice of ``sides`` faces for each of ``m`` duels, shape (count, m)."""
    return gen.integers(1, sides + 1, size=(count, m))


def ss_damage(gen: np.random.Generator, m: int) -> np.ndarray:
    """ss-duel: 2d6 picks the profile row; the damage less Guard 1."""
    profile = np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10])
    return np.maximum(profile[roll(gen, 2, 6, m).sum(axis=0) - 2] - 1, 0)


def draft1_damage(gen: np.random.Generator, m: int) -> np.ndarray:
    """draft1-duel: as ss-duel (the earlier draft's roll, profile and Guard agree here)."""
    return ss_damage(gen, m)


def zones_damage(gen: np.random.Generator, m: int) -> np.ndarray:
    """zones-3d6-duel: 3d6 with an edge (+1 unless all three show 6) against 3d6
    Evasion, ties hit; a hit deals 1d6 (a 1 is a Base Defense face: 0) plus bonus
    2 − Bonus Defense 1, at least 1."""
    attack = roll(gen, 3, 6, m)
    total = attack.sum(axis=0) + (attack < 6).any(axis=0)
    hit = total >= roll(gen, 3, 6, m).sum(axis=0)
    base = roll(gen, 1, 6, m)[0]
    return np.where(hit, np.maximum(np.where(base == 1, 0, base) + 1, 1), 0)


def tiers_damage(gen: np.random.Generator, m: int) -> np.ndarray:
    """opposed-tiers-duel: 2d6 + 1 against 2d6 + 1, hit when greater; a critical (at
    least twice the defense) rolls 3d6 instead of 2d6; + form SL 1."""
    attack = roll(gen, 2, 6, m).sum(axis=0) + 1
    defense = roll(gen, 2, 6, m).sum(axis=0) + 1
    dice = roll(gen, 3, 6, m)
    crit = attack >= 2 * defense
    damage = dice[:2].sum(axis=0) + np.where(crit, dice[2], 0) + 1
    return np.where(attack > defense, damage, 0)


def glitters_damage(gen: np.random.Generator, m: int) -> np.ndarray:
    """glitters-d20-duel: d20 + 5 against MIT 12; damage 1d8 + 2; a natural 20 is a
    critical hit, whose extra die counts its maximum: 8 more."""
    natural = roll(gen, 1, 20, m)[0]
    crit = natural == 20
    damage = roll(gen, 1, 8, m)[0] + 2 + np.where(crit, 8, 0)
    return np.where(crit | (natural + 5 >= 12), damage, 0)


@dataclass(frozen=True)
class Duel:
    """A benchmark duel and its numpy peer: damage per attack, the defender's pool, and
    whether the defender is down at 0 left (``<= 0``) or only below 0 (zones)."""

    scenario: str
    damage: Damage
    pool: int
    down_at_zero: bool = True


DUELS = {
    "shattered-spirits": Duel("ss-duel.yaml", ss_damage, 30),
    "shattered-spirits-draft1": Duel("shattered-spirits-draft1-duel.yaml", draft1_damage, 30),
    "zones-3d6": Duel("zones-3d6-duel.yaml", zones_damage, 30, down_at_zero=False),
    "opposed-tiers": Duel("opposed-tiers-duel.yaml", tiers_damage, 30),
    "glitters-d20": Duel("glitters-d20-duel.yaml", glitters_damage, 40),
}


def numpy_duel(duel: Duel, n: int, seed: int) -> np.ndarray:
    """Play ``n`` duels in lockstep with numpy; the round each defender went down."""
    gen = np.random.default_rng(seed)
    down = np.empty(n, dtype=np.int64)
    for lo in range(0, n, NUMPY_CHUNK):
        alive = np.arange(lo, min(lo + NUMPY_CHUNK, n))
        left = np.full(alive.size, duel.pool, dtype=np.int64)
        rnd = 0
        while alive.size:
            rnd += 1
            left -= duel.damage(gen, alive.size)
            done = left <= 0 if duel.down_at_zero else left < 0
            down[alive[done]] = rnd
            alive, left = alive[~done], left[~done]
    return down


def bench(rules: str, n: int, threads: int) -> float:
    """Time one system's duel both ways, print the figures; return simlab/numpy."""
    duel = DUELS[rules]
    scn = simlab.load(BENCH / duel.scenario)
    t0 = time.perf_counter()
    simlab.simulate(scn, n=10_000, threads=threads)  # compile or load, warm up
    warm_up = time.perf_counter() - t0
    simlab_s = numpy_s = float("inf")
    result: object = None
    down = np.zeros(1)
    for _ in range(REPEATS):  # alternate, so that both see the same machine load
        t0 = time.perf_counter()
        result = simlab.simulate(scn, n=n, threads=threads)
        t1 = time.perf_counter()
        down = numpy_duel(duel, n, scn.seed)
        simlab_s = min(simlab_s, t1 - t0)
        numpy_s = min(numpy_s, time.perf_counter() - t1)
    rounds = result.tallies.down_round[1]  # type: ignore[attr-defined]
    sim_mean = float((rounds * np.arange(rounds.size)).sum() / rounds.sum())
    np_mean = float(down.mean())
    agree = abs(sim_mean - np_mean) < 5 * float(down.std()) * np.sqrt(2 / n)
    ratio = numpy_s / simlab_s
    print(f"{rules:<25} simlab {n / simlab_s / 1e6:7.2f} M/s  numpy {n / numpy_s / 1e6:6.2f} M/s"
          f"  ratio {ratio:6.2f}x  mean rounds {sim_mean:.4f} / {np_mean:.4f} "
          f"{'agree' if agree else 'DIFFER'}  (compile/load {warm_up:.1f} s)")  # fmt: skip
    return ratio


def main() -> None:
    """Run the duels named on the command line (default: all five), ``--rounds`` times."""
    import numba

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("given", nargs="*", metavar="[n] [RULES ...]",
                        help=f"encounters (default {DEFAULT_N:,}), then rule systems "
                             f"(default: all of {', '.join(DUELS)})")  # fmt: skip
    add_rounds(parser, "the whole comparison")
    args = parse_with_rounds(parser)
    n, systems = split_count(args.given, DEFAULT_N)
    systems = systems or list(DUELS)
    unknown = sorted(set(systems) - set(DUELS))
    if unknown:
        parser.error(f"expected rule systems among {', '.join(DUELS)}; got {', '.join(unknown)}")
    threads = numba.get_num_threads()
    print(f"{n:,} encounters, simlab on {threads} threads, numpy on 1, best of {REPEATS}")
    ratios: dict[str, list[float]] = {rules: [] for rules in systems}
    for r in range(args.rounds):
        if args.rounds > 1:
            print(f"round {r + 1} of {args.rounds}")
        for rules in systems:
            ratios[rules].append(bench(rules, n, threads))
    if args.rounds > 1:
        print(f"ratio simlab/numpy over {args.rounds} rounds (target {TARGET_RATIO:.0f}x)")
        for rules, each in ratios.items():
            print(summary(rules, each, TARGET_RATIO, lambda ratio: f"{ratio:5.2f}x", width=25))
        print(f"{every_round(ratios, TARGET_RATIO)}/{len(systems)} systems at "
              f">= {TARGET_RATIO:.0f}x in every round")  # fmt: skip


if __name__ == "__main__":
    main()
