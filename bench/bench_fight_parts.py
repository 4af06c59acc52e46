"""Benchmark: where a fight's time goes, its attacks or the encounter around them.

Run with ``python -m bench.bench_fight_parts [n] [PATH…]`` from the repository root
(default ``n`` = 200,000 encounters; default paths: the five benchmark fights under
``scenarios/benchmarks/``). As ``bench_duel_parts`` does for the plain duels, each fight
is played on one thread with every combatant's pool scaled by :data:`SCALES`, so that
its fights are of several lengths; the best of ``REPEATS`` runs of each length counts,
the lengths taken in turn. A straight line fitted to the time an encounter against the
attacks it made splits that time in two: what each attack costs (with the turns and
status ticks that come with it), and what an encounter costs whatever its length
(starting its dice streams, the turn order, setting up and counting its end). Printed per
fight: nanoseconds an encounter at each length, the cost an attack, the cost an
encounter, and the encounter's share of the fight as written.

Why: a faster attack loop cannot take off more than the attacks' share. On December 2
the glitters-d20 benchmark fight spent about 30% of its time outside its attacks
(``docs/benchmark-history.md``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simlab
from bench.bench_duel_parts import POOL_FIELDS, time_lengths
from bench.rounds import split_count
from simlab.scenario.common import ScenarioBase

ROOT = Path(__file__).resolve().parent.parent
FIGHTS = sorted((ROOT / "scenarios" / "benchmarks").glob("*fight.yaml"))
DEFAULT_N = 200_000
REPEATS = 3
#: Every combatant's pool as a share of the scenario's.
SCALES = (0.5, 1.0, 2.0, 3.0)


def scaled(scn: ScenarioBase, scale: float) -> ScenarioBase:
    """``scn`` with every combatant's pool fields times ``scale`` (at least 1)."""
    fields = POOL_FIELDS.get(scn.rules, ("hp",))
    changes = {}
    for combatants in scn.sides.values():  # type: ignore[attr-defined]  # each system's own model
        for c in combatants:
            for f in fields:
                changes[f"{c.name}.{f}"] = max(1, round(getattr(c, f) * scale))
    return simlab.override(scn, changes)


def fight_parts(path: Path, n: int) -> None:
    """Time one fight at each length on one thread; print the split."""
    base = simlab.load(path)
    attacks, ns = time_lengths([scaled(base, scale) for scale in SCALES], n, REPEATS)
    per_attack, per_encounter = np.polyfit(attacks, ns, 1)
    as_written = ns[SCALES.index(1.0)]
    lengths = "  ".join(f"{a:5.2f} att {t:5.0f} ns" for a, t in zip(attacks, ns, strict=True))
    print(f"{path.stem:<28} {lengths}")
    print(f"{'':<28} an attack {per_attack:5.1f} ns, an encounter {per_encounter:5.0f} ns: "
          f"{per_encounter / as_written:4.0%} of the fight's {as_written:.0f} ns")  # fmt: skip


def main() -> None:
    """Run the fights named on the command line (default: the five benchmark fights)."""
    n, names = split_count(sys.argv[1:], DEFAULT_N)
    paths = [Path(name) for name in names] or FIGHTS
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        sys.exit(f"expected scenario files; got {', '.join(missing)}")
    print(f"{n:,} encounters a run, one thread, best of {REPEATS}; pools x{SCALES}")
    for path in paths:
        fight_parts(path, n)


if __name__ == "__main__":
    main()
