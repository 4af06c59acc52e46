"""Scenarios shared by the tuning tests."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SS_DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"

#: A small 2v2 fight under the later draft: both sides attack, nobody is a duel.
TWO_VS_TWO = """
scenario: two-vs-two
rules: shattered-spirits
encounters: 20_000
seed: 5
max_rounds: 30
attacks:
  stone-strike:
    profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]
    status: {8: [staggered]}
  quick-jab:
    profile: [0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 6]
    modifier: 1
sides:
  party:
    - {name: Kaito, hp: 24, guard: 1, speed: 2, attacks: [quick-jab]}
    - {name: Mira, hp: 20, speed: 4, attacks: [quick-jab]}
  enemies:
    - {name: Brute, count: 2, hp: 30, guard: 2, speed: 5, attacks: [stone-strike]}
"""
