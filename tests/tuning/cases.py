"""Scenarios shared by the tuning tests."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SS_DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"

SS_2V2 = ROOT / "scenarios/benchmarks/ss-2v2.yaml"
