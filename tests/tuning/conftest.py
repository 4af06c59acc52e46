"""Fixtures of the tuning tests: the benchmark duel and a small 2v2 fight."""

from __future__ import annotations

from typing import Any

import pytest

import simlab

from tests.tuning.cases import SS_DUEL, TWO_VS_TWO


@pytest.fixture(scope="session")
def duel() -> Any:
    return simlab.load(SS_DUEL)


@pytest.fixture(scope="session")
def fight() -> Any:
    return simlab.loads(TWO_VS_TWO)
