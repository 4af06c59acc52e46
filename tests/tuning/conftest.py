"""Fixtures of the tuning tests: the benchmark duel and the benchmark 2v2 fight."""

from __future__ import annotations

from typing import Any

import pytest

import simlab
from tests.tuning.cases import SS_2V2, SS_DUEL


@pytest.fixture(scope="session")
def duel() -> Any:
    return simlab.load(SS_DUEL)


@pytest.fixture(scope="session")
def fight() -> Any:
    return simlab.load(SS_2V2)
